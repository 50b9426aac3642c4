//! `reduce(x, axis, combine)` with a combine region (`OpKind::ReduceWith`), in the order
//! the interpreter defines (`interp/combine.rs`): a balanced binary tree over positions
//! along the axis, `combine(left, right)` with the lower positions on the left.
//!
//! Under the blocked layout a position along the axis is, from its low bits to its high
//! bits, `j` (the element in the thread's chunk), the lane, the warp and the repetition
//! (`layout.rs`: `rep * tile + (warp * tpw + lane) * chunk + j`), so the tree's rounds are:
//! 1. in-thread: a tree over each chunk's `j`, for every repetition separately;
//! 2. lanes: one `shfl.sync.bfly` round per lane bit, **low bit first**; the lane whose
//!    bit is clear is the left operand, so both partners compute `combine(left, right)`
//!    with the same operands and hold the same bits afterwards (two `selp` per operand
//!    put the operands in order);
//! 3. warps: one partial per (result element, repetition, warp) through shared memory,
//!    `bar.sync`, every thread combines the warps' partials in a tree, `bar.sync`;
//! 4. repetitions: a tree over the repetitions' partials, in registers.
//!
//! The region's `lir` is inlined at every combine step ([`Lowerer::inline_combine`]), so
//! the simulator runs exactly what the PTX does. 64-bit operands cross shuffles as two
//! halves (`wide.rs`) and take 8-byte shared-memory slots.

use super::{Lowerer, ty_of};
use crate::backend::ptx::layout::Geometry;
use crate::backend::ptx::lir::{BinOp, Cmp, Guard, Inst, Operand, Reg, Ty};
use crate::backend::ptx::{PtxError, ReductionDecision};
use crate::ir::{Block, Op, OpKind, Value};

/// One partial result: an operand per reduced value.
type Partial = Vec<Operand>;

impl Lowerer<'_> {
    /// The combine region's instructions for one step: binds its arguments to `a` then
    /// `b`, lowers its ops and gives the yielded operands.
    pub(super) fn inline_combine(
        &mut self,
        op: &Op,
        region: &Block,
        a: &[Operand],
        b: &[Operand],
    ) -> Result<Partial, PtxError> {
        for (arg, x) in region.args.iter().zip(a.iter().chain(b)) {
            self.set(*arg, vec![*x]);
        }
        for &id in &region.ops {
            let inner = self.k.op(id);
            if let OpKind::Yield { values } = &inner.kind {
                return values.iter().map(|v| self.first(*v)).collect();
            }
            self.op(inner)?;
        }
        Err(self.err(op.loc, "a combine region without a yield", "end the combine function with its result"))
    }

    /// A balanced tree over `parts` (pairs `(0, 1), (2, 3), ...` each round; an odd last
    /// one moves up unchanged).
    fn tree(&mut self, op: &Op, region: &Block, mut parts: Vec<Partial>) -> Result<Partial, PtxError> {
        while parts.len() > 1 {
            let mut next = Vec::with_capacity(parts.len().div_ceil(2));
            let mut it = parts.into_iter();
            while let Some(left) = it.next() {
                match it.next() {
                    Some(right) => next.push(self.inline_combine(op, region, &left, &right)?),
                    None => next.push(left),
                }
            }
            parts = next;
        }
        parts.pop().ok_or_else(|| self.invariant(op, "combines a line of no elements"))
    }

    pub(super) fn reduce_with(
        &mut self,
        op: &Op,
        values: &[Value],
        axis: usize,
        region: &Block,
    ) -> Result<(), PtxError> {
        let tys: Vec<Ty> = values.iter().map(|v| ty_of(self.k.dtype(*v))).collect();
        if let Some(t) = tys.iter().find(|t| **t == Ty::Pred) {
            return Err(self.err(op.loc, format!("a reduction of {t} blocks"), "reduce integer or float blocks"));
        }
        let first = *values.first().ok_or_else(|| self.invariant(op, "has no operand"))?;
        let gs = self.block_geometry(op, first)?;
        let a = self.embed(op, first, axis)?;
        let mut pr = gs.parent.clone();
        pr[a] = 1;
        let gr = Geometry::new(&gs.enc, pr);
        let srcs: Vec<Vec<Operand>> = values.iter().map(|v| self.val(*v)).collect::<Result<_, _>>()?;
        let (chunk, reps) = (gs.chunk[a], gs.reps[a]);

        // 1. In-thread: per result register and repetition, a tree over the chunk.
        let mut parts: Vec<Vec<Partial>> = Vec::with_capacity(gr.num_regs());
        for i in 0..gr.num_regs() {
            let kr = gr.multi(i);
            let mut per_rep = Vec::with_capacity(reps);
            for r in 0..reps {
                let chunk_parts: Vec<Partial> = (0..chunk)
                    .map(|j| {
                        let mut ks = kr.clone();
                        ks[a] = r * chunk + j;
                        srcs.iter().map(|s| s[gs.index(&ks)]).collect()
                    })
                    .collect();
                per_rep.push(self.tree(op, region, chunk_parts)?);
            }
            parts.push(per_rep);
        }

        // 2. Lanes, low bit first; the lane with the bit clear holds the left operand.
        let distinct = gs.distinct_threads(a);
        let tpw = gs.enc.threads_per_warp[a];
        let lanes = tpw.min(distinct);
        let shift = gs.enc.lane_shift(a);
        for b in 0..lanes.trailing_zeros() {
            let lane_mask = 1u32 << (shift + b);
            let lane = self.lane();
            let bit = self.bin(BinOp::And, Ty::I32, lane.into(), Operand::Int(i64::from(lane_mask)));
            let is_right = self.setp(Cmp::Ne, Ty::I32, bit, Operand::Int(0));
            for part in parts.iter_mut().flatten() {
                let mine: Partial = part.iter().zip(&tys).map(|(x, t)| Operand::Reg(self.reg(*x, *t))).collect();
                let other: Partial = mine.iter().zip(&tys).map(|(x, t)| self.shfl(*t, *x, lane_mask)).collect();
                let (mut left, mut right) = (Vec::new(), Vec::new());
                for ((m, o), t) in mine.iter().zip(&other).zip(&tys) {
                    let (l, r) = (self.new_reg(*t), self.new_reg(*t));
                    self.emit(Inst::Selp { ty: *t, dst: l, a: *o, b: *m, cond: is_right });
                    self.emit(Inst::Selp { ty: *t, dst: r, a: *m, b: *o, cond: is_right });
                    left.push(l.into());
                    right.push(r.into());
                }
                *part = self.inline_combine(op, region, &left, &right)?;
            }
        }

        // 3. Warps, through shared memory.
        let warps = (distinct / tpw).max(1);
        if warps > 1 {
            self.combine_across_warps(op, region, &tys, &gs, &gr, a, warps, &mut parts)?;
        }

        // 4. Repetitions.
        let mut results: Vec<Vec<Operand>> = vec![Vec::with_capacity(gr.num_regs()); values.len()];
        for per_rep in parts {
            let total = self.tree(op, region, per_rep)?;
            for (k, x) in total.into_iter().enumerate() {
                results[k].push(x);
            }
        }
        for (r, elems) in op.results.iter().zip(results) {
            self.set(*r, elems);
        }
        let shape = self.k.shape(values[0]).clone();
        self.decisions.reductions.push(ReductionDecision {
            loc: op.loc,
            uses_shuffles: lanes > 1,
            uses_shared_memory: warps > 1,
            reason: format!(
                "reduce with a combine region along axis {axis} of {shape}: balanced tree over positions; {chunk} elements per chunk x {reps} repetitions in registers, {lanes} lanes ({} shfl.sync.bfly rounds, low bit first), {warps} warps{}",
                lanes.trailing_zeros(),
                if warps > 1 { " (partials through shared memory, 2 bar.sync)" } else { " (no shared memory)" }
            ),
        });
        Ok(())
    }

    /// Stage 3: the partial of every (result element `e`, repetition `r`, warp `w`) goes
    /// to slot `(e * reps + r) * warps + w` of its operand's array (slots of the operand's
    /// size; arrays one after another, 8-byte aligned); after `bar.sync` every thread
    /// combines the `warps` partials of each of its (element, repetition) in a tree.
    #[allow(clippy::too_many_arguments, reason = "the geometry of one reduction, passed through")]
    fn combine_across_warps(
        &mut self,
        op: &Op,
        region: &Block,
        tys: &[Ty],
        gs: &Geometry,
        gr: &Geometry,
        a: usize,
        warps: usize,
        parts: &mut [Vec<Partial>],
    ) -> Result<(), PtxError> {
        let reps = gs.reps[a];
        let res_numel: usize = self.k.shape(op.results[0]).numel();
        let slots = (res_numel * reps * warps) as i64;
        let mut array_off = Vec::with_capacity(tys.len());
        let mut bytes = 0i64;
        for t in tys {
            array_off.push(bytes);
            bytes = ((bytes + slots * i64::from(t.size_bytes())) as u64).next_multiple_of(8) as i64;
        }
        self.use_scratch(bytes as u32);
        let base = self.smem_base();
        let lane_a = self.lane_pos(&gs.enc, a);
        let warp_a = self.warp_pos(&gs.enc, a);
        // Writers: the first lane along the axis in the first `warps` warps, holding the
        // first copy along the other dims.
        let mut writer = self.owner(gs, Some(a));
        if let Operand::Reg(l) = lane_a {
            let p = self.setp(Cmp::Eq, Ty::I32, l.into(), Operand::Int(0));
            writer = self.and_pred(writer, Some(p));
        }
        if gs.enc.warps_per_cta[a] > warps {
            let p = self.setp(Cmp::Lt, Ty::I32, warp_a, Operand::Int(warps as i64));
            writer = self.and_pred(writer, Some(p));
        }
        let guard = writer.map(|pred| Guard { pred, negate: false });
        let w = match warp_a {
            Operand::Int(x) => Operand::Int(x),
            w if gs.enc.warps_per_cta[a] > warps => self.bin(BinOp::And, Ty::I32, w, Operand::Int(warps as i64 - 1)),
            w => w,
        };
        let res_dims: Vec<usize> = (0..gs.parent.len()).filter(|&d| d != a && gs.parent[d] > 1).collect();
        // The slot index (without the warp) of every (result register, repetition).
        let mut slot_of: Vec<Vec<Operand>> = Vec::with_capacity(parts.len());
        for i in 0..gr.num_regs() {
            let kr = gr.multi(i);
            let mut e = Operand::Int(0);
            for &d in &res_dims {
                let c = self.coord(gr, d, kr[d]);
                let stride: usize = res_dims.iter().filter(|&&x| x > d).map(|&x| gr.parent[x]).product();
                let term = self.fold_i32(BinOp::Mul, c, Operand::Int(stride as i64));
                e = self.fold_i32(BinOp::Add, e, term);
            }
            let er = self.fold_i32(BinOp::Mul, e, Operand::Int((reps * warps) as i64));
            slot_of.push((0..reps).map(|r| self.fold_i32(BinOp::Add, er, Operand::Int((r * warps) as i64))).collect());
        }
        for (per_rep, slots_i) in parts.iter().zip(&slot_of) {
            for (part, slot) in per_rep.iter().zip(slots_i) {
                let s = self.fold_i32(BinOp::Add, *slot, w);
                for (k, (x, t)) in part.iter().zip(tys).enumerate() {
                    let addr = self.slot_addr(base, s, *t, array_off[k]);
                    let src = self.reg(*x, *t);
                    self.emit(Inst::StShared { guard, ty: *t, src, addr, offset: 0 });
                }
            }
        }
        self.emit(Inst::BarSync { id: 0 });
        for (per_rep, slots_i) in parts.iter_mut().zip(&slot_of) {
            for (part, slot) in per_rep.iter_mut().zip(slots_i) {
                let mut from_warps = Vec::with_capacity(warps);
                for wi in 0..warps {
                    let mut p = Vec::with_capacity(tys.len());
                    for (k, t) in tys.iter().enumerate() {
                        let addr = self.slot_addr(base, *slot, *t, array_off[k]);
                        let dst = self.new_reg(*t);
                        let offset = (wi as i64 * i64::from(t.size_bytes())) as u32;
                        self.emit(Inst::LdShared { ty: *t, dst, addr, offset });
                        p.push(dst.into());
                    }
                    from_warps.push(p);
                }
                *part = self.tree(op, region, from_warps)?;
            }
        }
        self.emit(Inst::BarSync { id: 0 });
        Ok(())
    }

    /// `base + array + slot * size(ty)` in a register.
    pub(super) fn slot_addr(&mut self, base: Reg, slot: Operand, ty: Ty, array: i64) -> Reg {
        let bytes = self.fold_i32(BinOp::Mul, slot, Operand::Int(i64::from(ty.size_bytes())));
        let off = self.fold_i32(BinOp::Add, bytes, Operand::Int(array));
        let addr = self.bin(BinOp::Add, Ty::I32, base.into(), off);
        self.reg(addr, Ty::I32)
    }

    /// `a op b` on `I32` (`Add` or `Mul`), folded when both are immediates.
    pub(super) fn fold_i32(&mut self, op: BinOp, a: Operand, b: Operand) -> Operand {
        match (op, a, b) {
            (BinOp::Add, Operand::Int(x), Operand::Int(y)) => Operand::Int(x + y),
            (BinOp::Mul, Operand::Int(x), Operand::Int(y)) => Operand::Int(x * y),
            (BinOp::Mul, Operand::Int(0), _) | (BinOp::Mul, _, Operand::Int(0)) => Operand::Int(0),
            // not two immediates: one instruction (identities are folded by `bin`)
            _ => self.bin(op, Ty::I32, a, b),
        }
    }
}
