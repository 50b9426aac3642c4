//! `dot` on sm_90a's warpgroup tensor cores: `wgmma.mma_async` with `A` from registers
//! and `B` from a staging ring's slot through a shared-memory matrix descriptor.
//!
//! A 16-bit `dot` runs as `wgmma` when (`plan`):
//! - the target is `sm_90a` and its accumulator is in the `mma` layout with every warp
//!   along M in whole warpgroups (`layout/mma.rs` gives `sm_90a`'s products such warps), so
//!   each warpgroup's `m64nNk16` covers 64 rows and all `N` columns (8 to 256);
//! - `B` is a ring read that stays in shared memory (`ring.rs`), `N`-major as it is
//!   (`[K, N]`) or `K`-major through a transpose (`[N, K]`, attention's `K^T`), in a
//!   swizzled slot of rows of 32 to 128 bytes, which is the descriptor's swizzle mode
//!   (Triton's `perPhase`/`maxPhase` chunk `xor` is the hardware's `Swizzle<b, 4, 3>` on a
//!   slot aligned to the pattern); a wider row is split into 128-byte panels
//!   ([`SlotLayout::Panels`]), which needs every reader of that ring to be such a `B`.
//!
//! `A` comes as `mma.sync`'s: each warp's `ldmatrix` fragments of its 16 rows, or its own
//! registers (attention's `P`), so the rows of a warp are the accumulator layout's own.
//! Per `dot`: all `A` fragments, the accumulators copied to the instruction's registers,
//! `wgmma.fence`, one `wgmma` per k-step and 64-row tile, `commit_group` and
//! `wait_group 0`, after which the accumulators are read and the slot may be refilled.
//! The ring's copies land in shared memory through the generic proxy; `ring_read` puts a
//! `fence.proxy.async` between their wait and the barrier, so the `wgmma`s (the async
//! proxy) see them.

use std::collections::{HashMap, HashSet};

use super::Lowerer;
use super::mma::{dot_input, transposed_operand};
use super::ring::{SlotLayout, read_in_place};
use super::swizzle::Swizzle;
use crate::backend::ptx::Arch;
use crate::backend::ptx::layout::{Layout, MmaInput, WARPGROUP_WARPS};
use crate::backend::ptx::lir::{BinOp, Inst, Operand, Reg, Ty};
use crate::ir::{Kernel, Op, OpId, OpKind, Value};

/// The widest row the descriptor's swizzle modes take (128-byte swizzle); a wider slot row
/// is split into panels of this many bytes.
pub(crate) const PANEL_BYTES: usize = 128;
/// The most columns one `wgmma` computes.
const MAX_N: usize = 256;

/// The `B` of a `dot` that runs as `wgmma`: the ring read holding its tile, and how.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct WgmmaB {
    pub source: Value,
    /// `[K, N]` as it is (`N`-major), else the `[N, K]` tile a transpose reads (`K`-major).
    pub n_major: bool,
}

/// Which `dot`s run as `wgmma` and how their rings lay out their slots.
#[derive(Clone, Debug, Default)]
pub(crate) struct WgmmaPlan {
    /// By the `dot`'s result.
    pub dots: HashMap<Value, WgmmaB>,
    /// Rings whose slots a `wgmma` reads, with their layout.
    pub rings: HashMap<u32, SlotLayout>,
}

/// The `wgmma` plan of `k` on `arch`: a function of the layouts alone, so the layouts text
/// shows what the PTX does.
pub(crate) fn plan(k: &Kernel, layouts: &[Option<Layout>], arch: Arch) -> WgmmaPlan {
    if arch != Arch::Sm90a {
        return WgmmaPlan::default();
    }
    let candidates: HashMap<OpId, WgmmaB> =
        k.walk().into_iter().filter_map(|id| candidate(k, layouts, k.op(id)).map(|b| (id, b))).collect();
    let sources: HashSet<Value> = candidates.values().map(|b| b.source).collect();
    // Per ring: its reads' tiles, and whether every reader of each is a candidate's `B`.
    let mut rings: HashMap<u32, (Vec<Value>, bool)> = HashMap::new();
    for id in k.walk() {
        let op = k.op(id);
        let OpKind::RingRead { ring, .. } = op.kind else { continue };
        let Some(&v) = op.results.first() else { continue };
        let e = rings.entry(ring).or_insert_with(|| (Vec::new(), true));
        e.0.push(v);
        e.1 &= sources.contains(&v) && only_wgmma_reads(k, layouts, &candidates, v);
    }
    let mut out = WgmmaPlan::default();
    for (ring, (reads, all_wgmma)) in rings {
        let Some(&v) = reads.first() else { continue };
        let [rows, cols] = k.shape(v).dims()[..] else { continue };
        let row_bytes = cols * 2;
        let layout = if row_bytes <= PANEL_BYTES {
            SlotLayout::of(&[rows, cols], Ty::F16)
        } else if all_wgmma && rows.is_multiple_of(8) {
            SlotLayout::Panels { rows }
        } else {
            continue;
        };
        if reads.iter().any(|r| sources.contains(r)) {
            out.rings.insert(ring, layout);
        }
    }
    let ring_of = |v: Value| match k.def_op(v).map(|o| &o.kind) {
        Some(OpKind::RingRead { ring, .. }) => Some(*ring),
        _ => None,
    };
    out.dots = candidates
        .into_iter()
        .filter(|(_, b)| ring_of(b.source).is_some_and(|r| out.rings.contains_key(&r)))
        .map(|(id, b)| (k.op(id).results[0], b))
        .collect();
    out
}

/// Whether every use of the ring read `v` is the `B` of a candidate `dot` (directly or
/// through the transpose it reads).
fn only_wgmma_reads(k: &Kernel, layouts: &[Option<Layout>], candidates: &HashMap<OpId, WgmmaB>, v: Value) -> bool {
    let reads_b = |id: OpId, x: Value| {
        candidates.get(&id).is_some_and(|b| b.source == v)
            && matches!(&k.op(id).kind, OpKind::Dot { a, acc, .. } if *a != x && *acc != x)
    };
    k.walk().into_iter().all(|id| {
        let op = k.op(id);
        if !op.kind.operands().contains(&v) {
            return true;
        }
        if matches!(op.kind, OpKind::Permute { .. }) && transposed_operand(k, layouts, op.results[0]).is_some() {
            let t = op.results[0];
            return k.walk().into_iter().all(|u| !k.op(u).kind.operands().contains(&t) || reads_b(u, t));
        }
        reads_b(id, v)
    })
}

/// The `B` of `op` when it can run as `wgmma` as far as the `dot` itself goes (its ring's
/// other readers are [`plan`]'s to check).
fn candidate(k: &Kernel, layouts: &[Option<Layout>], op: &Op) -> Option<WgmmaB> {
    let OpKind::Dot { b, .. } = &op.kind else { return None };
    if !matches!(dot_input(k, layouts, op), Some(MmaInput::F16 | MmaInput::BF16)) {
        return None;
    }
    let enc = layouts[op.results[0].index()].as_ref()?.enc.clone();
    let [wm, wn] = enc.warps_per_cta[..] else { return None };
    let n = k.shape(*b).dims()[1];
    if wn != 1 || !wm.is_multiple_of(WARPGROUP_WARPS) || !n.is_multiple_of(8) || n > MAX_N {
        return None;
    }
    let (source, n_major) = match transposed_operand(k, layouts, *b) {
        Some(x) => (x, false),
        None => (*b, true),
    };
    let is_ring = matches!(k.def_op(source).map(|o| &o.kind), Some(OpKind::RingRead { .. }));
    let row_bytes = k.shape(source).dims()[1] * 2;
    let swizzled = Swizzle::of(row_bytes.min(PANEL_BYTES)).is_some() && row_bytes.is_power_of_two();
    (is_ring && read_in_place(k, layouts, source) && swizzled).then_some(WgmmaB { source, n_major })
}

/// The descriptor of a slot's `B` tile: the fixed fields, and the start address's step per
/// k-step.
struct DescriptorShape {
    /// Leading byte offset: between 64-column panels (`N`-major); unused (1) `K`-major.
    leading: u32,
    /// Stride byte offset: between groups of 8 rows.
    stride: u32,
    /// The swizzle mode: 1, 2, 3 for rows of 128, 64, 32 bytes.
    mode: u64,
}

impl DescriptorShape {
    fn of(layout: SlotLayout, n_major: bool) -> Option<DescriptorShape> {
        let (row_bytes, panel) = match layout {
            SlotLayout::Swizzled(sw) => (sw.row_bytes as u32, 0),
            SlotLayout::Panels { rows } => (PANEL_BYTES as u32, (rows * PANEL_BYTES) as u32),
            SlotLayout::Padded { .. } => return None,
        };
        let mode = match row_bytes {
            128 => 1,
            64 => 2,
            32 => 3,
            _ => return None,
        };
        let leading = if n_major && panel > 0 { panel } else { 16 };
        Some(DescriptorShape { leading, stride: 8 * row_bytes, mode })
    }

    /// The bytes from the tile's start to k-step `ks`'s (16 `k`s).
    fn k_step(&self, layout: SlotLayout, n_major: bool, ks: usize) -> u32 {
        let row_bytes = self.stride as usize / 8;
        let at = if n_major {
            // 16 rows of `k`
            16 * ks * row_bytes
        } else {
            // 32 bytes of `k` along the row; past a panel's 128 bytes, the next panel
            match layout {
                SlotLayout::Panels { rows } => (32 * ks / PANEL_BYTES) * rows * PANEL_BYTES + (32 * ks) % PANEL_BYTES,
                _ => 32 * ks,
            }
        };
        at as u32
    }
}

impl Lowerer<'_> {
    /// `D = A B + D` for every k-step and 64-row tile of a `wgmma` `dot`: `a_frags[ks][i]`
    /// the `A` fragments of k-step `ks` and 16-row tile `i`, `accs[i]` the accumulators of
    /// tile `i` (`n / 2` a thread, the instruction's order). Returns the accumulators.
    pub(super) fn wgmma(
        &mut self,
        op: &Op,
        input: MmaInput,
        (b, n): (WgmmaB, usize),
        a_frags: &[Vec<Vec<Reg>>],
        accs: Vec<Vec<Reg>>,
    ) -> Result<Vec<Vec<Reg>>, crate::backend::ptx::PtxError> {
        let ring = match self.k.def_op(b.source).map(|o| &o.kind) {
            Some(OpKind::RingRead { ring, .. }) => *ring,
            _ => return Err(self.invariant(op, "runs as wgmma with a B that is no ring read")),
        };
        let layout = self.wgmma.rings.get(&ring).copied();
        let view = self.ring_views.get(&b.source).copied();
        let (Some(layout), Some(view)) = (layout, view) else {
            return Err(self.invariant(op, "runs as wgmma with a B not read in place"));
        };
        let Some(shape) = DescriptorShape::of(layout, b.n_major) else {
            return Err(self.invariant(op, "runs as wgmma with a B slot that has no descriptor"));
        };
        // Low word: start address (bits 4..18) and leading byte offset; high word: stride
        // byte offset and swizzle mode.
        let start = self.bin(BinOp::And, Ty::I32, view.addr.into(), Operand::Int(0x3ffff));
        let start = self.bin(BinOp::ShrU, Ty::I32, start, Operand::Int(4));
        let lo = self.bin(BinOp::Or, Ty::I32, start, Operand::Int(i64::from(shape.leading >> 4) << 16));
        let hi = self.reg(Operand::Int((i64::from(shape.stride >> 4)) | ((shape.mode as i64) << 30)), Ty::I32);
        let mut d: Vec<Vec<Reg>> = Vec::with_capacity(accs.len());
        for tile in &accs {
            let regs: Vec<Reg> = tile
                .iter()
                .map(|&r| {
                    let x = self.new_reg(Ty::F32);
                    self.emit(Inst::Mov { ty: Ty::F32, dst: x, src: Operand::Reg(r) });
                    x
                })
                .collect();
            d.push(regs);
        }
        self.emit(Inst::WgmmaFence);
        for (ks, frags) in a_frags.iter().enumerate() {
            let step = shape.k_step(layout, b.n_major, ks);
            let lo_ks = self.bin(BinOp::Add, Ty::I32, lo, Operand::Int(i64::from(step >> 4)));
            let lo_ks = self.reg(lo_ks, Ty::I32);
            let desc = self.new_reg(Ty::I64);
            self.emit(Inst::Pack64 { ty: Ty::I64, dst: desc, lo: lo_ks, hi });
            for (tile, a) in d.iter().zip(frags) {
                self.emit(Inst::Wgmma {
                    input,
                    n: n as u32,
                    d: tile.clone(),
                    a: a.clone(),
                    b_desc: desc,
                    trans_b: b.n_major,
                });
            }
        }
        self.emit(Inst::WgmmaCommit);
        self.emit(Inst::WgmmaWait { pending: 0 });
        Ok(d)
    }
}
