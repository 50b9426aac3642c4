//! Staging rings filled by tensor copies (sm_90's TMA) instead of `cp.async`: where a
//! ring's copies are a tensor descriptor's blocks (`async_copy`'s `desc`) and the slots are
//! `wgmma`'s swizzled panels, one thread copies each panel of the tile with
//! `cp.async.bulk.tensor`, the hardware filling what lies outside the tensor with zeros
//! (what the copy's mask gives), and every thread waits for the slot on an mbarrier
//! instead of its own `cp.async` group. The plan here also lists the stores tensor copies
//! write (`tma_store.rs`), whose maps follow the rings'.
//!
//! - The tensor map (base, sizes, strides, box, swizzle) is a kernel parameter the host
//!   encodes at each launch (`tensor_map.rs`): so its parts must be kernel parameters or
//!   constants, the base 16-byte aligned and the strides multiples of 16 bytes by the
//!   specialization (Triton's own rule for host descriptors). Any other ring keeps
//!   `cp.async`, with the same results.
//! - A box is one panel of the tile. A slot whose 8-row groups are permuted for `wgmma`'s
//!   `A` (`SlotLayout::Panels`'s `rotate`) keeps `cp.async`: copied as one box a group (16
//!   a 128-row tile), the matmul ran at half the speed of `cp.async` on an H100
//!   (`docs/performance.md`).
//! - One mbarrier a slot (8 bytes after every other use of shared memory), initialized by
//!   thread 0 in the prologue. A copy (only when its iteration exists, `async_copy`'s
//!   `when`) is one `arrive.expect_tx` of the slot's bytes and the panels' copies; each
//!   thread keeps, a bit a slot, the parity of the latest copy into it (every thread runs
//!   every copy op, so all agree), and a `ring_read` waits for that phase. A slot is read
//!   exactly once per copy, so the phases never run ahead of the waits.
//! - The barrier after the wait stays: it is what keeps the next copy into a slot after
//!   every warp's reads of it (`ring.rs`).

use std::collections::HashMap;

use super::Lowerer;
use super::ring::SlotLayout;
use super::wgmma::WgmmaPlan;
use crate::backend::ptx::axis_info::AxisInfoMap;
use crate::backend::ptx::lir::{BinOp, Guard, Inst, Operand, Reg, TmaOp, Ty};
use crate::backend::ptx::tensor_copies::{MAX_BOX, TensorStore, map_of};
use crate::backend::ptx::tensor_map::TensorMap;
use crate::backend::ptx::{Arch, PtxError};
use crate::ir::{Kernel, Op, OpId, OpKind, Value, desc_parts};

/// Bytes of one mbarrier.
const MBARRIER_BYTES: u32 = 8;

/// Which rings tensor copies fill and which stores they write, and the tensor map each
/// reads or writes.
#[derive(Clone, Debug, Default)]
pub(crate) struct TmaPlan {
    pub rings: HashMap<u32, TmaRingPlan>,
    pub stores: HashMap<OpId, TmaStorePlan>,
    pub maps: Vec<TensorMap>,
}

/// How tensor copies write one store's tile (`tma_store.rs`).
#[derive(Clone, Copy, Debug)]
pub(crate) struct TmaStorePlan {
    /// Index into [`TmaPlan::maps`].
    pub map: usize,
    /// Columns of boxes (panels) the tile is cut into.
    pub panels: u32,
}

/// How tensor copies fill one ring's slot.
#[derive(Clone, Copy, Debug)]
pub(crate) struct TmaRingPlan {
    /// Index into [`TmaPlan::maps`].
    pub map: usize,
    /// The tile's rows (a panel's, one box).
    pub rows: u32,
}

/// The rings tensor copies can fill: every copy into the ring carries the same
/// descriptor parts, each a parameter or a constant that meets the hardware's alignment,
/// and its slots are 16-bit panels of at most 256 rows, not permuted. Then the stores
/// they write (`stores`, the layout stage's choice), their maps after the rings'.
pub(crate) fn plan(
    k: &Kernel,
    ai: &AxisInfoMap,
    wgmma: &WgmmaPlan,
    arch: Arch,
    stores: &HashMap<OpId, TensorStore>,
) -> TmaPlan {
    let mut out = TmaPlan::default();
    if !matches!(arch, Arch::Sm90 | Arch::Sm90a) {
        return out;
    }
    let mut copies: HashMap<u32, Vec<(Value, Vec<Value>)>> = HashMap::new();
    let mut order = Vec::new();
    for id in k.walk() {
        if let OpKind::AsyncCopy { ptr, ring, desc, .. } = &k.op(id).kind {
            if !copies.contains_key(ring) {
                order.push(*ring);
            }
            copies.entry(*ring).or_default().push((*ptr, desc.clone()));
        }
    }
    for ring in order {
        let list = &copies[&ring];
        let (ptr, desc) = &list[0];
        let Some(map) = tensor_map(k, ai, wgmma, ring, *ptr, desc) else { continue };
        // The loop's copies and the prologue's read the same tensor: one map.
        let same = |d: &Vec<Value>| {
            let (a, b) = (desc_parts(d), desc_parts(desc));
            matches!((a, b), (Some(a), Some(b)) if a.base == b.base && a.dims == b.dims && a.strides == b.strides)
        };
        if list.iter().all(|(_, d)| same(d)) {
            let rows = k.shape(*ptr).dims()[0] as u32;
            out.rings.insert(ring, TmaRingPlan { map: out.maps.len(), rows });
            out.maps.push(map);
        }
    }
    // In program order, so the maps' order is the same at every lowering.
    for id in k.walk() {
        if let Some(s) = stores.get(&id) {
            out.stores.insert(id, TmaStorePlan { map: out.maps.len(), panels: s.panels });
            out.maps.push(s.map.clone());
        }
    }
    out
}

/// The tensor map of ring `ring`'s copies from `ptr` with parts `desc`, where one serves:
/// the slot is `wgmma`'s (panels not permuted, or one swizzled row of 32, 64 or 128 bytes,
/// the patterns tensor copies write).
fn tensor_map(
    k: &Kernel,
    ai: &AxisInfoMap,
    wgmma: &WgmmaPlan,
    ring: u32,
    ptr: Value,
    desc: &[Value],
) -> Option<TensorMap> {
    let elem = k.dtype(ptr).pointee()?;
    let eb = elem.size_bytes() as usize;
    let shape = k.shape(ptr).dims();
    let row_bytes = match wgmma.rings.get(&ring).copied()? {
        SlotLayout::Panels { rows, row_bytes, rotate: 0 } if rows == shape[0] => row_bytes,
        SlotLayout::Swizzled(sw) if sw.row_bytes == shape[1] * eb => sw.row_bytes,
        _ => return None,
    };
    if eb != 2 || shape[0] > MAX_BOX || !matches!(row_bytes, 32 | 64 | 128) || !shape[0].is_multiple_of(8) {
        return None;
    }
    let box_dims = vec![shape[0] as u32, (row_bytes / eb) as u32];
    map_of(k, ai, elem, desc, box_dims, row_bytes as u32)
}

/// A ring filled by tensor copies, once made: its first mbarrier and the register of its
/// slots' phase bits.
#[derive(Clone, Copy, Debug)]
pub(super) struct TmaRing {
    first_bar: u32,
    phases: Reg,
}

/// The lowering's tensor-copy state.
#[derive(Debug, Default)]
pub(super) struct TmaState {
    pub plan: TmaPlan,
    rings: HashMap<u32, TmaRing>,
    /// mbarriers allotted so far.
    bars: u32,
    /// The mbarriers' base register and the prologue index of the `mov` of their offset
    /// from `smem`, patched when the lowering ends ([`Lowerer::place_mbarriers`]).
    bars_base: Option<(Reg, usize)>,
    map_addrs: HashMap<usize, Reg>,
}

impl TmaState {
    pub fn new(plan: TmaPlan) -> TmaState {
        TmaState { plan, ..TmaState::default() }
    }

    /// Whether tensor copies fill ring `ring`.
    pub fn fills(&self, ring: u32) -> bool {
        self.plan.rings.contains_key(&ring)
    }
}

impl Lowerer<'_> {
    /// The copy of one tile into the slot at `slot_off` of ring `ring` (`slot` its index,
    /// `slot_bytes` its size) through the ring's tensor map: thread 0 arms the slot's
    /// mbarrier and copies each panel, where `when` holds.
    pub(super) fn tma_copy(
        &mut self,
        op: &Op,
        (ring, slots, slot): (u32, u32, Value),
        (slot_off, slot_bytes): (Operand, u32),
        desc: &[Value],
        when: Option<Value>,
    ) -> Result<(), PtxError> {
        let TmaRingPlan { map: m, rows } = self.tma.plan.rings[&ring];
        let map = self.tma.plan.maps[m].clone();
        let parts = desc_parts(desc)
            .ok_or_else(|| self.invariant(op, "copies through a tensor map without descriptor parts"))?;
        let tr = self.tma_ring(ring, slots);
        // Copies through a descriptor always say whether their iteration exists.
        let when = when.ok_or_else(|| self.invariant(op, "copies through a tensor map without its `when`"))?;
        let when = self.first(when)?;
        let when = self.reg(when, Ty::Pred);
        let owner = self.scalar_owner();
        let issue = self.new_reg(Ty::Pred);
        self.emit(Inst::Bin { op: BinOp::And, ty: Ty::Pred, dst: issue, a: owner.into(), b: when.into() });
        let guard = Some(Guard { pred: issue, negate: false });
        let s = self.first(slot)?;
        let bar = self.mbarrier(tr, s);
        self.emit(Inst::Tma { guard, op: TmaOp::ArriveExpectTx { bar, bytes: slot_bytes } });
        let map_addr = self.map_addr(m);
        let smem = self.smem_base();
        let dst0 = self.bin(BinOp::Add, Ty::I32, smem.into(), slot_off);
        let cols = map.box_dims[1];
        let panel_bytes = rows * map.swizzle;
        let outer = self.first(parts.offsets[0])?;
        let inner = self.first(parts.offsets[1])?;
        for p in 0..slot_bytes / panel_bytes {
            let dst = self.bin(BinOp::Add, Ty::I32, dst0, Operand::Int(i64::from(p * panel_bytes)));
            let dst = self.reg(dst, Ty::I32);
            let col = self.bin(BinOp::Add, Ty::I32, inner, Operand::Int(i64::from(p * cols)));
            let load = TmaOp::Load { dst, map: m as u32, map_addr, coords: vec![col, outer], bar };
            self.emit(Inst::Tma { guard, op: load });
        }
        // Every thread flips the slot's parity bit when the copy is issued.
        let flip = self.new_reg(Ty::I32);
        self.emit(Inst::Selp { ty: Ty::I32, dst: flip, a: Operand::Int(1), b: Operand::Int(0), cond: when });
        let bit = self.bin(BinOp::Shl, Ty::I32, flip.into(), s);
        self.emit(Inst::Bin { op: BinOp::Xor, ty: Ty::I32, dst: tr.phases, a: tr.phases.into(), b: bit });
        // The `cp.async` groups stay counted as without tensor copies: an empty group.
        self.emit(Inst::CpAsyncCommit);
        Ok(())
    }

    /// Every thread waits until the latest copy into slot `slot` of ring `ring` landed.
    pub(super) fn tma_wait(&mut self, ring: u32, slots: u32, slot: Value) -> Result<(), PtxError> {
        let tr = self.tma_ring(ring, slots);
        let s = self.first(slot)?;
        let bit = self.bin(BinOp::ShrU, Ty::I32, tr.phases.into(), s);
        let bit = self.bin(BinOp::And, Ty::I32, bit, Operand::Int(1));
        // The latest copy's phase: the bit flipped when it was issued, so its parity is
        // the bit's complement.
        let parity = self.bin(BinOp::Xor, Ty::I32, bit, Operand::Int(1));
        let parity = self.reg(parity, Ty::I32);
        let bar = self.mbarrier(tr, s);
        self.emit(Inst::Tma { guard: None, op: TmaOp::Wait { bar, parity } });
        Ok(())
    }

    /// Ring `ring`'s mbarriers and phase bits, made (in the prologue) on first use.
    fn tma_ring(&mut self, ring: u32, slots: u32) -> TmaRing {
        if let Some(r) = self.tma.rings.get(&ring) {
            return *r;
        }
        let base = self.mbarriers_base();
        let phases = self.new_reg(Ty::I32);
        self.emit_pro(Inst::Mov { ty: Ty::I32, dst: phases, src: Operand::Int(0) });
        let first_bar = self.tma.bars;
        self.tma.bars += slots;
        let owner = self.scalar_owner();
        let guard = Some(Guard { pred: owner, negate: false });
        for s in 0..slots {
            let bar = self.new_reg(Ty::I32);
            let at = i64::from((first_bar + s) * MBARRIER_BYTES);
            self.emit_pro(Inst::Bin { op: BinOp::Add, ty: Ty::I32, dst: bar, a: base.into(), b: Operand::Int(at) });
            self.emit_pro(Inst::Tma { guard, op: TmaOp::Init { bar, count: 1 } });
        }
        self.emit_pro(Inst::Tma { guard, op: TmaOp::FenceInit });
        self.emit_pro(Inst::BarSync { id: 0 });
        let r = TmaRing { first_bar, phases };
        self.tma.rings.insert(ring, r);
        r
    }

    /// The address of the mbarrier of slot `s` of `tr`.
    fn mbarrier(&mut self, tr: TmaRing, s: Operand) -> Reg {
        let base = self.mbarriers_base();
        let at = self.bin(BinOp::Mul, Ty::I32, s, Operand::Int(i64::from(MBARRIER_BYTES)));
        let at = self.bin(BinOp::Add, Ty::I32, at, Operand::Int(i64::from(tr.first_bar * MBARRIER_BYTES)));
        let bar = self.bin(BinOp::Add, Ty::I32, base.into(), at);
        self.reg(bar, Ty::I32)
    }

    /// The mbarriers' address (prologue): `smem` plus an offset patched at the end.
    fn mbarriers_base(&mut self) -> Reg {
        if let Some((r, _)) = self.tma.bars_base {
            return r;
        }
        let smem = self.smem_base();
        let off = self.new_reg(Ty::I32);
        let at = self.prologue.len();
        self.emit_pro(Inst::Mov { ty: Ty::I32, dst: off, src: Operand::Int(0) });
        let r = self.new_reg(Ty::I32);
        self.emit_pro(Inst::Bin { op: BinOp::Add, ty: Ty::I32, dst: r, a: smem.into(), b: off.into() });
        self.tma.bars_base = Some((r, at));
        r
    }

    /// The generic address of tensor map `m`'s parameter (prologue).
    pub(super) fn map_addr(&mut self, m: usize) -> Reg {
        if let Some(r) = self.tma.map_addrs.get(&m) {
            return *r;
        }
        let r = self.new_reg(Ty::I64);
        self.emit_pro(Inst::Tma { guard: None, op: TmaOp::MapAddr { dst: r, map: m as u32 } });
        self.tma.map_addrs.insert(m, r);
        r
    }

    /// At the end of the lowering: the mbarriers go after everything else in shared
    /// memory, which they occupy for the whole program.
    pub(super) fn place_mbarriers(&mut self) {
        let Some((_, at)) = self.tma.bars_base else { return };
        let off = self.shared_bytes.next_multiple_of(MBARRIER_BYTES);
        if let Inst::Mov { src, .. } = &mut self.prologue[at] {
            *src = Operand::Int(i64::from(off));
        }
        self.shared_bytes = (off + self.tma.bars * MBARRIER_BYTES).next_multiple_of(16);
    }
}
