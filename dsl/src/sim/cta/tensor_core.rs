//! `ldmatrix` and `mma.sync` on the CTA, warp by warp: each warp executes them with all
//! 32 lanes or not at all (`.sync.aligned`; anything in between is reported), gathers its
//! lanes' operands, and `sim/tensor_core.rs` computes what every lane receives.
//!
//! An `ldmatrix` row is a shared read like an `ld.shared` of its 16 bytes by the lane that
//! gives its address, and every lane also reads the bytes it receives: both go through the
//! bounds, alignment, `cp.async` and race checks of the other shared loads, so a row read
//! before its writers' barrier is a race whichever lane wrote it.

use super::Cta;
use crate::backend::ptx::layout::MmaInput;
use crate::sim::decode::Src;
use crate::sim::error::{Address, Check, SimFault};
use crate::sim::tensor_core::{self, LANES, WarpFrags, ldmatrix_elems};

/// Bytes of one `ldmatrix` row: 8 16-bit elements.
const ROW_BYTES: u32 = 16;

impl Cta {
    /// Whether warp `w` executes the warp-collective `what`: `true` when all its lanes
    /// are active, `false` when none is, an error otherwise.
    fn warp_executes(&self, w: usize, what: &str) -> Result<bool, SimFault> {
        let base = w * LANES;
        let on: Vec<bool> = (0..LANES).map(|l| self.active(base + l)).collect();
        let count = on.iter().filter(|a| **a).count();
        if count == 0 || count == LANES {
            return Ok(count == LANES);
        }
        let idle = on.iter().position(|a| !a).expect("some lane is inactive");
        let busy = on.iter().position(|a| *a).expect("some lane is active");
        Err(SimFault::new(
            Check::WarpCollective,
            Some((base + idle) as u32),
            format!(
                "{what} is executed by {count} of the 32 lanes of warp {w}: lane {busy} executes it, lane {idle} does not (it left a loop whose trip count differs between threads); the instruction is .sync.aligned, so the whole warp must execute it together"
            ),
            format!(
                "keep {what} out of divergent code: the trip counts of the loops around it must be the same in every lane of the warp"
            ),
        ))
    }

    /// `ldmatrix` of `dsts.len()` matrices in every warp that executes it; returns how many
    /// warps did.
    pub(super) fn ldmatrix(&mut self, trans: bool, dsts: &[u32], addr: u32, offset: u32) -> Result<u64, SimFault> {
        let n = dsts.len();
        let mut warps = 0;
        for w in 0..self.t / LANES {
            if !self.warp_executes(w, "ldmatrix")? {
                continue;
            }
            warps += 1;
            let base = w * LANES;
            // Lanes past 8 n give no address: their register is not read.
            let mut rows = vec![0u32; 8 * n];
            for (lane, row) in rows.iter_mut().enumerate() {
                let t = base + lane;
                self.need_reg_of(addr, t)?;
                *row = self.ldmatrix_row(addr, offset, t, lane)?;
                self.copies.check(t as u32, *row, ROW_BYTES, "reads (by ldmatrix)")?;
                self.races.read(t as u32, *row, ROW_BYTES)?;
            }
            for lane in 0..LANES {
                for i in 0..n {
                    for (r, c) in ldmatrix_elems(lane, trans) {
                        self.races.read((base + lane) as u32, rows[8 * i + r] + 2 * c as u32, 2)?;
                    }
                }
            }
            let out = tensor_core::ldmatrix(&self.shared, &rows, trans);
            for (lane, regs) in out.iter().enumerate() {
                for (r, v) in dsts.iter().zip(regs) {
                    self.set(*r, base + lane, u64::from(*v));
                }
            }
        }
        for r in dsts {
            self.wrote(*r);
        }
        Ok(warps)
    }

    /// The shared address of the row lane `lane` (thread `t`) gives: row `lane % 8` of
    /// matrix `lane / 8`, 16 bytes in bounds and 16-byte aligned.
    fn ldmatrix_row(&self, addr: u32, offset: u32, t: usize, lane: usize) -> Result<u32, SimFault> {
        let a = (self.get(Src::Reg(addr), t) as u32).wrapping_add(offset);
        let which = format!("ldmatrix row {} of matrix {} (the address lane {lane} gives)", lane % 8, lane / 8);
        if u64::from(a) + u64::from(ROW_BYTES) > self.shared.len() as u64 {
            return Err(SimFault::new(
                Check::SharedOutOfBounds,
                Some(t as u32),
                format!(
                    "{which} is shared bytes {a}..{}, outside the CTA's {}-byte buffer",
                    u64::from(a) + u64::from(ROW_BYTES),
                    self.shared.len()
                ),
                "size the shared buffer for every row the ldmatrix reads (16 bytes each) and check the row addresses the lanes compute",
            )
            .at(Address::Shared(a)));
        }
        if !a.is_multiple_of(ROW_BYTES) {
            return Err(SimFault::new(
                Check::Misaligned,
                Some(t as u32),
                format!("{which} is at shared offset {a}, which is not 16-byte aligned"),
                "every ldmatrix row is 16 bytes and must start at a 16-byte aligned address: align the shared tile and make its row stride a multiple of 16 bytes",
            )
            .at(Address::Shared(a)));
        }
        Ok(a)
    }

    /// `mma.sync` in every warp that executes it (its operands already checked written);
    /// returns how many warps did. `d` may be `c`: every operand is read before `d` is
    /// written.
    pub(super) fn mma(
        &mut self,
        input: MmaInput,
        d: &[u32; 4],
        a: &[u32; 4],
        b: &[u32; 2],
        c: &[u32; 4],
    ) -> Result<u64, SimFault> {
        let mut warps = 0;
        for w in 0..self.t / LANES {
            if !self.warp_executes(w, "mma.sync")? {
                continue;
            }
            warps += 1;
            let base = w * LANES;
            let mut f = WarpFrags::default();
            for lane in 0..LANES {
                let bits = |r: &u32| self.get(Src::Reg(*r), base + lane) as u32;
                f.a[lane] = a.map(|r| bits(&r));
                f.b[lane] = b.map(|r| bits(&r));
                f.c[lane] = c.map(|r| bits(&r));
            }
            let out = tensor_core::mma(input, &f);
            for (lane, regs) in out.iter().enumerate() {
                for (r, v) in d.iter().zip(regs) {
                    self.set(*r, base + lane, u64::from(*v));
                }
            }
        }
        for r in d {
            self.wrote(*r);
        }
        Ok(warps)
    }
}

#[cfg(test)]
mod tests;
