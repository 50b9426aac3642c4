//! `wgmma` on the CTA, warpgroup by warpgroup: each warpgroup (4 consecutive warps)
//! executes the `wgmma` instructions with all 128 threads or not at all (`.sync.aligned`),
//! gathers its warps' accumulators and `a` fragments (or reads `A` through its
//! descriptor), reads `B` through its descriptor (`sim/wgmma.rs`), and computes the
//! product at once; the accumulators then stay pending, unreadable by any other
//! instruction, until a `wgmma.wait_group` of the warpgroup covers their group (a later
//! `wgmma` chains on them, as the hardware orders accumulator accesses across `wgmma`s of
//! one shape). Each element of an operand in shared memory is a shared read by the
//! warpgroup's first thread, through the bounds, `cp.async` and race checks of the other
//! shared loads, and a read of the async proxy: its writer must have executed
//! `fence.proxy.async` since writing it (`checks.rs`). The hardware may read those bytes
//! at any time until the wait, so they are in flight until then (no thread may write
//! them) and are read again, for the race checks, by the warpgroup when the wait covers
//! the group: a write by another warpgroup after its own wait but with no barrier after
//! this one's is a race; the warpgroup's own threads are ordered after it by the wait.

use std::collections::{HashMap, VecDeque};

use super::Cta;
use crate::backend::ptx::layout::MmaInput;
use crate::sim::checks::warpgroup_reader;
use crate::sim::decode::{Src, WgmmaOperand};
use crate::sim::error::{Address, Check, SimFault};
use crate::sim::tensor_core::{Frag, LANES, frag_elem, per_reg};
use crate::sim::wgmma::{self, Descriptor};

/// Threads of a warpgroup.
const WARPGROUP: usize = 4 * LANES;

/// One group of `wgmma`s: the accumulators they write, the shared elements they read
/// (the reading warpgroup, the address).
#[derive(Debug, Default)]
struct Group {
    accs: Vec<u32>,
    reads: Vec<(u32, u32)>,
}

/// The `wgmma` groups of the CTA's warpgroups (they run in lock step, so one record
/// serves all): the open group and each committed one.
#[derive(Debug, Default)]
pub(crate) struct WgmmaGroups {
    open: Group,
    committed: VecDeque<Group>,
    /// Accumulators no group's wait has covered yet, with the number of groups writing
    /// each.
    pub pending: HashMap<u32, u32>,
}

impl WgmmaGroups {
    pub fn start_program(&mut self) {
        self.open = Group::default();
        self.committed.clear();
        self.pending.clear();
    }
}

impl Cta {
    /// Whether warpgroup `g` executes the warpgroup-collective `what` (all 128 threads,
    /// or none; anything between is reported).
    fn warpgroup_executes(&self, g: usize, what: &str) -> Result<bool, SimFault> {
        let base = g * WARPGROUP;
        let count = (base..base + WARPGROUP).filter(|&t| self.active(t)).count();
        if count == 0 || count == WARPGROUP {
            return Ok(count == WARPGROUP);
        }
        let idle = (base..base + WARPGROUP).find(|&t| !self.active(t)).unwrap_or(base);
        Err(SimFault::new(
            Check::WarpCollective,
            Some(idle as u32),
            format!(
                "{what} is executed by {count} of the 128 threads of warpgroup {g}: thread {idle} does not execute it; the instruction is .sync.aligned, so the whole warpgroup must execute it together"
            ),
            format!("keep {what} out of divergent code, and give the kernel a multiple of 4 warps"),
        ))
    }

    /// Checks that every warpgroup executes `what` together; how many did.
    pub(super) fn warpgroup_collective(&self, what: &str) -> Result<u64, SimFault> {
        if !self.t.is_multiple_of(WARPGROUP) {
            return Err(SimFault::new(
                Check::WarpCollective,
                None,
                format!("{what} needs whole warpgroups of 4 warps; the CTA has {} threads", self.t),
                "launch the kernel with a multiple of 4 warps",
            ));
        }
        let mut n = 0;
        for g in 0..self.t / WARPGROUP {
            n += u64::from(self.warpgroup_executes(g, what)?);
        }
        Ok(n)
    }

    /// `wgmma.mma_async` in every warpgroup that executes it: `D = A B + D`, `d` pending.
    pub(super) fn wgmma(
        &mut self,
        input: MmaInput,
        n: usize,
        (d, a): (&[u32], WgmmaOperand),
        desc: u32,
        trans_b: bool,
    ) -> Result<u64, SimFault> {
        let mut groups = 0;
        for g in 0..self.t / WARPGROUP {
            if !self.warpgroup_executes(g, "wgmma.mma_async")? {
                continue;
            }
            groups += 1;
            let base = g * WARPGROUP;
            let a_regs: &[u32] = match &a {
                WgmmaOperand::Regs(r) => r,
                WgmmaOperand::Desc(r) => std::slice::from_ref(r),
            };
            for t in base..base + WARPGROUP {
                self.need_reg_of(desc, t)?;
                for r in a_regs {
                    self.need_reg_of(*r, t)?;
                }
                for r in d {
                    if !self.wgmma_groups.pending.contains_key(r) {
                        self.need_reg_of(*r, t)?;
                    }
                }
            }
            // A (64 x 16) and C (64 x n), row-major.
            let mut at = vec![0u32; wgmma::ROWS * wgmma::K];
            let mut c = vec![0u32; wgmma::ROWS * n];
            for w in 0..4 {
                for lane in 0..LANES {
                    let t = base + w * LANES + lane;
                    if let WgmmaOperand::Regs(a) = &a {
                        for (reg, r) in a.iter().enumerate() {
                            let v = self.get(Src::Reg(*r), t) as u32;
                            for part in 0..per_reg(input, Frag::A) {
                                let (row, col) = frag_elem(input, Frag::A, lane, reg, part);
                                at[(16 * w + row) * wgmma::K + col] = (v >> (16 * part)) & 0xffff;
                            }
                        }
                    }
                    for (i, r) in d.iter().enumerate() {
                        let (row, col) = frag_elem(input, Frag::C, lane, i % 4, 0);
                        c[(16 * w + row) * n + 8 * (i / 4) + col] = self.get(Src::Reg(*r), t) as u32;
                    }
                }
            }
            if let WgmmaOperand::Desc(r) = a {
                let dsc = self.descriptor(r, base, "A")?;
                for m in 0..wgmma::ROWS {
                    for k in 0..wgmma::K {
                        at[m * wgmma::K + k] = u32::from(self.wgmma_read(base, dsc.b_elem(false, k, m), "A")?);
                    }
                }
            }
            let dsc = self.descriptor(desc, base, "B")?;
            let mut b = vec![0u32; wgmma::K * n];
            for k in 0..wgmma::K {
                for col in 0..n {
                    b[k * n + col] = u32::from(self.wgmma_read(base, dsc.b_elem(trans_b, k, col), "B")?);
                }
            }
            let out = wgmma::product(input, &at, &b, &c, n);
            for w in 0..4 {
                for lane in 0..LANES {
                    let t = base + w * LANES + lane;
                    for (i, r) in d.iter().enumerate() {
                        let (row, col) = frag_elem(input, Frag::C, lane, i % 4, 0);
                        self.set(*r, t, u64::from(out[(16 * w + row) * n + 8 * (i / 4) + col]));
                    }
                }
            }
        }
        // Pending until a wait covers the group: no thread has them as written.
        for r in d {
            self.unwrite(*r);
            *self.wgmma_groups.pending.entry(*r).or_default() += 1;
            self.wgmma_groups.open.accs.push(*r);
        }
        Ok(groups)
    }

    /// The descriptor in register `r` of warpgroup thread `t`, for operand `what`.
    fn descriptor(&self, r: u32, t: usize, what: &str) -> Result<Descriptor, SimFault> {
        Descriptor::decode(self.get(Src::Reg(r), t)).map_err(|why| {
            SimFault::new(
                Check::Unsupported,
                Some(t as u32),
                format!("the simulator does not model {why} (the descriptor of {what})"),
                "give the operand a swizzled layout whose pattern starts at the slot (what the lowering emits)",
            )
        })
    }

    /// One 16-bit element of operand `what` that warpgroup thread `t` reads at shared
    /// `addr`, in flight until a wait covers the open group.
    fn wgmma_read(&mut self, t: usize, addr: u32, what: &str) -> Result<u16, SimFault> {
        if addr as usize + 2 > self.shared.len() {
            return Err(SimFault::new(
                Check::SharedOutOfBounds,
                Some(t as u32),
                format!(
                    "wgmma reads {what} at shared bytes {addr}..{}, outside the CTA's {}-byte buffer",
                    addr + 2,
                    self.shared.len()
                ),
                format!("check the {what} descriptor's start address and strides against the tile's slot"),
            )
            .at(Address::Shared(addr)));
        }
        self.copies.check(t as u32, addr, 2, "reads (by wgmma)")?;
        self.races.read(t as u32, addr, 2)?;
        self.races.async_read(t as u32, addr, 2, "wgmma")?;
        self.races.async_reading(addr, 2);
        self.wgmma_groups.open.reads.push(((t / WARPGROUP) as u32, addr));
        Ok(u16::from_le_bytes([self.shared[addr as usize], self.shared[addr as usize + 1]]))
    }

    /// `wgmma.commit_group`: the open group's accumulators form one group.
    pub(super) fn wgmma_commit(&mut self) {
        let open = std::mem::take(&mut self.wgmma_groups.open);
        self.wgmma_groups.committed.push_back(open);
    }

    /// `wgmma.wait_group pending`: the accumulators of every group but the `pending`
    /// newest are written, and their shared reads done (read again here for the race
    /// checks: the hardware may have read them until now).
    pub(super) fn wgmma_wait(&mut self, pending: u32) -> Result<(), SimFault> {
        while self.wgmma_groups.committed.len() > pending as usize {
            let Some(group) = self.wgmma_groups.committed.pop_front() else { break };
            for r in group.accs {
                let left = self.wgmma_groups.pending.get_mut(&r).map(|c| {
                    *c -= 1;
                    *c
                });
                if left == Some(0) {
                    self.wgmma_groups.pending.remove(&r);
                    self.wrote(r);
                }
            }
            for (g, addr) in group.reads {
                self.races.async_done(addr, 2);
                self.races.read(warpgroup_reader(g), addr, 2)?;
            }
        }
        Ok(())
    }

    /// The fault of reading `r`, an accumulator of a `wgmma` no wait has covered yet.
    pub(super) fn pending_accumulator(&self, r: usize, t: usize) -> Option<SimFault> {
        self.wgmma_groups.pending.contains_key(&(r as u32)).then(|| {
            SimFault::new(
                Check::AsyncMmaPending,
                Some(t as u32),
                format!(
                    "register {} is read while the wgmma writing it is in flight (no wgmma.wait_group has covered its group)",
                    self.names[r]
                ),
                "commit the wgmma group and wait for it (wgmma.commit_group, then wgmma.wait_group) before reading its accumulators",
            )
        })
    }
}
