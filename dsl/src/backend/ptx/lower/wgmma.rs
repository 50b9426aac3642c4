//! `dot` on sm_90a's warpgroup tensor cores: `wgmma.mma_async` with `B`, and `A` too
//! where it can, read from staging rings' slots through shared-memory matrix descriptors.
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
//! `A` is read through a descriptor as well (`K`-major) when it is a ring read whose every
//! reader is such a `dot`'s `A`. The `mma` layout gives warp `w` of `wm` the rows `(2i +
//! h) 8 wm + 8 w + (0..8)` of its tile `i`, while a warpgroup's `wgmma` reads 64 rows as 8
//! groups of 8 one stride apart, warp by warp, half by half; so that ring's slots hold the
//! 8-row groups permuted (the low `log2(2 wm)` bits of the group index rotated left by 1,
//! `(h, w) -> (w, h)`), and warpgroup `G`'s tile `i` is the run of groups from `8 G + 2 wm
//! i`. Otherwise `A` comes as `mma.sync`'s: each warp's `ldmatrix` fragments of its 16
//! rows, or its own registers (attention's `P`).
//!
//! Per `dot`: the `A` fragments (if in registers), the accumulators copied to the
//! instruction's registers, `wgmma.fence`, one `wgmma` per k-step and 64-row tile,
//! `commit_group` and `wait_group 0`, after which the accumulators are read and the slot
//! may be refilled. A `dot` with both operands in shared memory whose accumulator is a
//! loop's carried value, read by nothing but the `dot` and yielded by nothing but it,
//! stays in flight across the iteration instead ([`WgmmaDot::in_flight`]): it accumulates
//! in the carried registers themselves, waits with `wait_group 1` (the previous
//! iteration's group is then done), and the loop's copies into its rings move after a
//! barrier that follows that wait (the slot they refill is the one the previous
//! iteration's group read, in every warpgroup); after the loop, `wait_group 0`. Rings one
//! slot deeper (`TraceOptions::deeper_rings`, set for sm_90a) refill the slot read two
//! iterations earlier, which every warpgroup waited for before the iteration's first
//! barrier: no barrier follows the wait then.
//!
//! The ring's copies land in shared memory through the generic proxy; `ring_read` puts a
//! `fence.proxy.async` between their wait and the barrier, so the `wgmma`s (the async
//! proxy) see them.

use std::collections::{HashMap, HashSet};

use super::Lowerer;
use super::ring::{SlotLayout, read_in_place};
use super::swizzle::Swizzle;
use crate::backend::ptx::layout::{Layout, MmaInput, WARPGROUP_WARPS};
use crate::backend::ptx::layout::{dot_input, operand_reads, transposed_operand};
use crate::backend::ptx::lir::{BinOp, Inst, Operand, Reg, Ty, WgmmaA};
use crate::backend::ptx::{Arch, PtxError};
use crate::ir::{Kernel, Op, OpId, OpKind, Value};

/// The widest row the descriptor's swizzle modes take (128-byte swizzle); a wider slot row
/// is split into panels of this many bytes.
pub(crate) const PANEL_BYTES: usize = 128;
/// The most columns one `wgmma` computes.
const MAX_N: usize = 256;

/// A `dot` that runs as `wgmma`: where its operands are, and whether it stays in flight.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct WgmmaDot {
    /// The ring read holding `B`'s tile.
    pub source: Value,
    /// `[K, N]` as it is (`N`-major), else the `[N, K]` tile a transpose reads (`K`-major).
    pub n_major: bool,
    /// `A`'s ring read when `A` is read through a descriptor (`[M, K]`, `K`-major, its
    /// slot's 8-row groups permuted); `None`: `A` in registers.
    pub a: Option<Value>,
    /// The accumulator is carried by the loop the `dot` is in and the group stays in
    /// flight until the next iteration's `wait_group 1`.
    pub in_flight: bool,
    /// In flight, with rings whose slot is refilled one iteration after its last read, so
    /// a barrier must follow the wait before the refill; `false` where the rings are one
    /// slot deeper (`TraceOptions::deeper_rings`): every warpgroup has waited for the
    /// group that read the slot before the iteration's first barrier.
    pub refill_barrier: bool,
}

/// Which `dot`s run as `wgmma` and how their rings lay out their slots.
#[derive(Clone, Debug, Default)]
pub(crate) struct WgmmaPlan {
    /// By the `dot`'s result.
    pub dots: HashMap<Value, WgmmaDot>,
    /// Rings whose slots a `wgmma` reads, with their layout.
    pub rings: HashMap<u32, SlotLayout>,
}

impl WgmmaPlan {
    /// The `dot` of `body` (a loop's) that stays in flight across its iterations.
    pub(crate) fn in_flight(&self, k: &Kernel, body: &crate::ir::Block) -> Option<OpId> {
        body.ops
            .iter()
            .copied()
            .find(|&id| k.op(id).results.first().and_then(|r| self.dots.get(r)).is_some_and(|d| d.in_flight))
    }
}

/// The `wgmma` plan of `k` on `arch`: a function of the layouts alone, so the layouts text
/// shows what the PTX does.
pub(crate) fn plan(k: &Kernel, layouts: &[Option<Layout>], arch: Arch) -> WgmmaPlan {
    if arch != Arch::Sm90a {
        return WgmmaPlan::default();
    }
    let candidates: HashMap<OpId, WgmmaDot> =
        k.walk().into_iter().filter_map(|id| candidate(k, layouts, k.op(id)).map(|b| (id, b))).collect();
    let sources: HashSet<Value> = candidates.values().map(|b| b.source).collect();
    // `A` ring reads, with the rotation their dots' warps need.
    let mut a_sources: HashMap<Value, u32> = HashMap::new();
    for (&id, d) in &candidates {
        if let Some(a) = d.a {
            let rotate = a_rotate(layouts, k.op(id));
            let e = a_sources.entry(a).or_insert(rotate);
            if *e != rotate {
                *e = u32::MAX;
            }
        }
    }
    // Per ring: its reads' tiles, whether every reader of each is a candidate's `B`, and
    // the rotation when every reader of each is a candidate's `A`.
    let mut rings: HashMap<u32, (Vec<Value>, bool, Option<u32>)> = HashMap::new();
    for id in k.walk() {
        let op = k.op(id);
        let OpKind::RingRead { ring, .. } = op.kind else { continue };
        let Some(&v) = op.results.first() else { continue };
        let a_rot =
            a_sources.get(&v).copied().filter(|&r| r != u32::MAX && only_wgmma_a_reads(k, layouts, &candidates, v));
        let e = rings.entry(ring).or_insert_with(|| (Vec::new(), true, a_rot));
        e.0.push(v);
        e.1 &= sources.contains(&v) && only_wgmma_reads(k, layouts, &candidates, v);
        if e.2 != a_rot {
            e.2 = None;
        }
    }
    let mut out = WgmmaPlan::default();
    let mut a_rings: HashSet<u32> = HashSet::new();
    for (ring, (reads, all_wgmma, a_rot)) in rings {
        let Some(&v) = reads.first() else { continue };
        let [rows, cols] = k.shape(v).dims()[..] else { continue };
        let row_bytes = cols * 2;
        if let Some(rotate) = a_rot {
            out.rings.insert(ring, SlotLayout::Panels { rows, row_bytes: row_bytes.min(PANEL_BYTES), rotate });
            a_rings.insert(ring);
            continue;
        }
        let layout = if row_bytes <= PANEL_BYTES {
            SlotLayout::of(&[rows, cols], Ty::F16)
        } else if all_wgmma && rows.is_multiple_of(8) {
            SlotLayout::Panels { rows, row_bytes: PANEL_BYTES, rotate: 0 }
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
    let mut dots: Vec<(OpId, WgmmaDot)> = candidates
        .into_iter()
        .filter(|(_, d)| ring_of(d.source).is_some_and(|r| out.rings.contains_key(&r) && !a_rings.contains(&r)))
        .map(|(id, mut d)| {
            d.a = d.a.filter(|&a| ring_of(a).is_some_and(|r| a_rings.contains(&r)));
            (id, d)
        })
        .collect();
    // One `dot` in flight a loop, the first in program order.
    dots.sort_by_key(|(id, _)| *id);
    let mut loops: HashSet<OpId> = HashSet::new();
    for (id, d) in &mut dots {
        if let Some(a) = d.a
            && let Some(l) = carrying_loop(k, *id)
            && loops.insert(l)
        {
            d.in_flight = true;
            d.refill_barrier = [a, d.source].into_iter().any(|v| !refilled_after_two_reads(k, v));
        }
    }
    out.dots = dots.into_iter().map(|(id, d)| (k.op(id).results[0], d)).collect();
    out
}

/// The rotation of `A`'s 8-row groups for `op`'s warps along M: `log2(2 wm)` bits.
fn a_rotate(layouts: &[Option<Layout>], op: &Op) -> u32 {
    let wm = layouts[op.results[0].index()].as_ref().map_or(1, |l| l.enc.warps_per_cta[0]);
    (2 * wm).trailing_zeros()
}

/// The loop (not unrolled) whose body holds `dot` at its top level with the accumulator
/// going around it through the `dot` alone (`Kernel::accumulates_carried`): the `dot` can
/// stay in flight across the iteration.
fn carrying_loop(k: &Kernel, dot: OpId) -> Option<OpId> {
    k.walk().into_iter().find(|&l| {
        let OpKind::For { body, unroll, .. } = &k.op(l).kind else { return false };
        *unroll <= 1 && k.accumulates_carried(body, dot)
    })
}

/// Whether the ring the read `v` reads has at least two slots more than the iterations
/// its copies run ahead (`slots >= ahead + 2`): the slot refilled in an iteration was last
/// read two iterations earlier. `ahead` is the read's `pending` copies (`(ahead - 1)` a
/// ring of its loop) over its loop's rings, plus one.
fn refilled_after_two_reads(k: &Kernel, v: Value) -> bool {
    let Some(OpKind::RingRead { ring, slot, pending }) = k.def_op(v).map(|o| o.kind.clone()) else { return false };
    let rings = k.ops.iter().filter(|o| matches!(o.kind, OpKind::RingRead { slot: s, .. } if s == slot)).count();
    let slots = k.ops.iter().find_map(|o| match o.kind {
        OpKind::AsyncCopy { ring: r, slots, .. } if r == ring => Some(slots),
        _ => None,
    });
    let ahead = pending / (rings.max(1) as u32) + 1;
    slots.is_some_and(|s| s >= ahead + 2)
}

/// Whether every use of the ring read `v` is the `A` of a candidate `dot` (and nothing
/// else of it).
fn only_wgmma_a_reads(k: &Kernel, layouts: &[Option<Layout>], candidates: &HashMap<OpId, WgmmaDot>, v: Value) -> bool {
    operand_reads::readers(k, layouts, v).into_iter().all(|(id, x)| {
        candidates.get(&id).is_some_and(|d| d.a == Some(v))
            && matches!(&k.op(id).kind, OpKind::Dot { a, b, acc, .. } if *a == x && *b != x && *acc != x)
    })
}

/// Whether every use of the ring read `v` is the `B` of a candidate `dot` (directly or
/// through the transpose it reads).
fn only_wgmma_reads(k: &Kernel, layouts: &[Option<Layout>], candidates: &HashMap<OpId, WgmmaDot>, v: Value) -> bool {
    let reads_b = |id: OpId, x: Value| {
        candidates.get(&id).is_some_and(|b| b.source == v)
            && matches!(&k.op(id).kind, OpKind::Dot { a, acc, .. } if *a != x && *acc != x)
    };
    operand_reads::readers(k, layouts, v).into_iter().all(|(id, x)| {
        let op = k.op(id);
        if matches!(op.kind, OpKind::Permute { .. }) && transposed_operand(k, layouts, op.results[0]).is_some() {
            let t = op.results[0];
            return operand_reads::readers(k, layouts, t).into_iter().all(|(u, y)| reads_b(u, y));
        }
        reads_b(id, x)
    })
}

/// The operands of `op` when it can run as `wgmma` as far as the `dot` itself goes (its
/// rings' other readers are [`plan`]'s to check): `B` from a ring, and `A` from one when
/// it is a ring read of rows the descriptor's swizzle takes.
fn candidate(k: &Kernel, layouts: &[Option<Layout>], op: &Op) -> Option<WgmmaDot> {
    let OpKind::Dot { a, b, .. } = &op.kind else { return None };
    if !matches!(dot_input(k, layouts, op), Some(MmaInput::F16 | MmaInput::BF16)) {
        return None;
    }
    // What the operands' `#dot_op` conversions read.
    let (a, b) = (&operand_reads::source(k, layouts, *a), &operand_reads::source(k, layouts, *b));
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
    let is_ring = |v: Value| matches!(k.def_op(v).map(|o| &o.kind), Some(OpKind::RingRead { .. }));
    let swizzled = |v: Value| {
        let row_bytes = k.shape(v).dims()[1] * 2;
        Swizzle::of(row_bytes.min(PANEL_BYTES)).is_some() && row_bytes.is_power_of_two()
    };
    if !(is_ring(source) && read_in_place(k, layouts, source) && swizzled(source)) {
        return None;
    }
    let m = k.shape(*a).dims()[0];
    let a_smem =
        is_ring(*a) && read_in_place(k, layouts, *a) && swizzled(*a) && m.is_multiple_of(16 * wm) && *a != source;
    Some(WgmmaDot { source, n_major, a: a_smem.then_some(*a), in_flight: false, refill_barrier: true })
}

/// The descriptor of a slot's tile: the fixed fields, and the start address's step per
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
            SlotLayout::Panels { rows, row_bytes, .. } => (row_bytes as u32, (rows * row_bytes) as u32),
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
            // 32 bytes of `k` along the row; past a panel's row, the next panel
            match layout {
                SlotLayout::Panels { rows, row_bytes, .. } => {
                    (32 * ks / row_bytes) * rows * row_bytes + (32 * ks) % row_bytes
                }
                _ => 32 * ks,
            }
        };
        at as u32
    }

    /// The descriptor's high word: stride byte offset and swizzle mode.
    fn high(&self) -> i64 {
        i64::from(self.stride >> 4) | ((self.mode as i64) << 30)
    }
}

impl Lowerer<'_> {
    /// A descriptor's low word for the tile at `start` (a shared address): start address
    /// (bits 4..18) and leading byte offset.
    fn descriptor_low(&mut self, start: Operand, shape: &DescriptorShape) -> Operand {
        let start = self.bin(BinOp::And, Ty::I32, start, Operand::Int(0x3ffff));
        let start = self.bin(BinOp::ShrU, Ty::I32, start, Operand::Int(4));
        self.bin(BinOp::Or, Ty::I32, start, Operand::Int(i64::from(shape.leading >> 4) << 16))
    }

    /// The slot view and layout of the ring read `v` a `wgmma` of `op` reads.
    fn wgmma_slot(&self, op: &Op, v: Value, what: &str) -> Result<(super::ring::RingView, SlotLayout), PtxError> {
        let ring = match self.k.def_op(v).map(|o| &o.kind) {
            Some(OpKind::RingRead { ring, .. }) => *ring,
            _ => return Err(self.invariant(op, format!("runs as wgmma with {what} that is no ring read"))),
        };
        let layout = self.wgmma.rings.get(&ring).copied();
        let view = self.ring_views.get(&v).copied();
        match (layout, view) {
            (Some(layout), Some(view)) => Ok((view, layout)),
            _ => Err(self.invariant(op, format!("runs as wgmma with {what} not read in place"))),
        }
    }

    /// `D = A B + D` for every k-step and 64-row tile of a `wgmma` `dot`: `a_frags[ks][i]`
    /// the `A` fragments of k-step `ks` and 16-row tile `i` (none where `A` is read
    /// through a descriptor), `accs[i]` the accumulators of tile `i` (`n / 2` a thread,
    /// the instruction's order), `wm` the warps along M. Returns the accumulators.
    pub(super) fn wgmma(
        &mut self,
        op: &Op,
        input: MmaInput,
        (dot, n, wm): (WgmmaDot, usize, usize),
        a_frags: &[Vec<Vec<Reg>>],
        accs: Vec<Vec<Reg>>,
    ) -> Result<Vec<Vec<Reg>>, PtxError> {
        let (view, layout) = self.wgmma_slot(op, dot.source, "a B")?;
        let Some(shape) = DescriptorShape::of(layout, dot.n_major) else {
            return Err(self.invariant(op, "runs as wgmma with a B slot that has no descriptor"));
        };
        let lo = self.descriptor_low(view.addr.into(), &shape);
        let hi = self.reg(Operand::Int(shape.high()), Ty::I32);
        // `A` through descriptors: warpgroup `G`'s tile `i` starts at group `8 G + 2 wm i`
        // of the slot (`plan`).
        let a_desc = match dot.a {
            Some(a) => {
                let (a_view, a_layout) = self.wgmma_slot(op, a, "an A")?;
                let Some(a_shape) = DescriptorShape::of(a_layout, false) else {
                    return Err(self.invariant(op, "runs as wgmma with an A slot that has no descriptor"));
                };
                let warp = self.warp();
                let group = self.bin(BinOp::ShrU, Ty::I32, warp.into(), Operand::Int(2));
                let group_bytes = i64::from(a_shape.stride);
                let at = self.bin(BinOp::Mul, Ty::I32, group, Operand::Int(8 * group_bytes));
                let at = self.bin(BinOp::Add, Ty::I32, a_view.addr.into(), at);
                let a_lo = self.descriptor_low(at, &a_shape);
                let a_hi = self.reg(Operand::Int(a_shape.high()), Ty::I32);
                let tile_bytes = 2 * wm as i64 * group_bytes;
                Some((a_lo, a_hi, a_shape, a_layout, tile_bytes))
            }
            None => None,
        };
        let d: Vec<Vec<Reg>> = if dot.in_flight {
            // In place: the carried registers, which nothing else touches in the loop.
            accs
        } else {
            accs.iter()
                .map(|tile| {
                    tile.iter()
                        .map(|&r| {
                            let x = self.new_reg(Ty::F32);
                            self.emit(Inst::Mov { ty: Ty::F32, dst: x, src: Operand::Reg(r) });
                            x
                        })
                        .collect()
                })
                .collect()
        };
        let k_steps = self.k.shape(dot.source).dims()[if dot.n_major { 0 } else { 1 }] / 16;
        self.emit(Inst::WgmmaFence);
        for ks in 0..k_steps {
            let desc = self.descriptor(lo, hi, shape.k_step(layout, dot.n_major, ks));
            for (i, tile) in d.iter().enumerate() {
                let a = match &a_desc {
                    Some((a_lo, a_hi, a_shape, a_layout, tile_bytes)) => {
                        let step = a_shape.k_step(*a_layout, false, ks) + (i as i64 * tile_bytes) as u32;
                        WgmmaA::Desc(self.descriptor(*a_lo, *a_hi, step))
                    }
                    None => match a_frags.get(ks).and_then(|f| f.get(i)) {
                        Some(a) => WgmmaA::Regs(a.clone()),
                        None => return Err(self.invariant(op, "runs as wgmma without the A fragments of a tile")),
                    },
                };
                self.emit(Inst::Wgmma { input, n: n as u32, d: tile.clone(), a, b_desc: desc, trans_b: dot.n_major });
            }
        }
        self.emit(Inst::WgmmaCommit);
        if dot.in_flight {
            // The previous iteration's group is done in this warpgroup; after the barrier,
            // in every one, so the loop's copies (moved after this `dot`) may refill the
            // slots it read.
            self.emit(Inst::WgmmaWait { pending: 1 });
            if dot.refill_barrier {
                self.emit(Inst::BarSync { id: 0 });
            }
        } else {
            self.emit(Inst::WgmmaWait { pending: 0 });
        }
        Ok(d)
    }

    /// The descriptor `lo + (step >> 4) | hi << 32`.
    fn descriptor(&mut self, lo: Operand, hi: Reg, step: u32) -> Reg {
        let lo = self.bin(BinOp::Add, Ty::I32, lo, Operand::Int(i64::from(step >> 4)));
        let lo = self.reg(lo, Ty::I32);
        let desc = self.new_reg(Ty::I64);
        self.emit(Inst::Pack64 { ty: Ty::I64, dst: desc, lo, hi });
        desc
    }
}
