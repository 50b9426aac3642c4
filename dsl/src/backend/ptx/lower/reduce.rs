//! Reductions along one axis (Triton's `ReduceOpToLLVM.cpp`):
//! 1. each thread combines the elements it holds along the axis, in register order;
//! 2. lanes that hold different positions along the axis combine with
//!    `shfl.sync.bfly` rounds (lane masks from high to low, clamp 0x1f, full member mask);
//!    lanes holding replicated copies are left out, so a sum never counts an element twice;
//! 3. when several warps hold different positions, one lane per warp writes its partial to
//!    shared memory, `bar.sync 0`, every thread reads all partials of its outputs and
//!    combines them in warp order, `bar.sync 0` again (so the buffer can be reused);
//! 4. every thread then holds the result for each element it owns under the result's
//!    slice layout (a scalar result: every thread).
//!
//! No identity value is needed: every lane holds real (possibly replicated) elements, so
//! combining starts from the first one. The identities (`-inf` for max, `0fFF800000`)
//! enter through the kernel's masked loads (`other`).
//!
//! `argmax` carries (value, index) pairs through the same three stages (two shuffles per
//! round, two shared-memory slots); the pair with the larger value wins, NaN values lose
//! to any number, and equal values (or two NaNs) keep the smaller index, so the result is
//! the first maximum and an all-`-inf` row gives 0, as the IR documents.

use super::{Lowerer, ty_of};
use crate::backend::ptx::layout::Geometry;
use crate::backend::ptx::lir::{BinOp, Cmp, Guard, Inst, Operand, Reg, Ty};
use crate::backend::ptx::{PtxError, ReductionDecision};
use crate::ir::{Op, PropagateNan, ReduceOp, Value};

/// A partial result: the value and, for argmax, its index along the axis.
#[derive(Clone, Copy)]
struct Acc {
    v: Operand,
    i: Option<Operand>,
}

impl Lowerer<'_> {
    fn combine(&mut self, op: &Op, rop: ReduceOp, ty: Ty, a: Acc, b: Acc) -> Result<Acc, PtxError> {
        Ok(match rop {
            ReduceOp::Max(n) => Acc { v: self.bin(BinOp::Max(n), ty, a.v, b.v), i: None },
            ReduceOp::Min(n) => Acc { v: self.bin(BinOp::Min(n), ty, a.v, b.v), i: None },
            ReduceOp::Sum => Acc { v: self.bin(BinOp::Add, ty, a.v, b.v), i: None },
            ReduceOp::XorSum => Acc { v: self.bin(BinOp::Xor, ty, a.v, b.v), i: None },
            ReduceOp::Argmax | ReduceOp::Argmin => {
                // Every partial of an arg reduction carries its index (from the in-thread step on).
                let (Some(ai), Some(bi)) = (a.i, b.i) else {
                    return Err(
                        self.invariant(op, format_args!("({}) combines a partial without its index", rop.name()))
                    );
                };
                let beats = if rop == ReduceOp::Argmax { Cmp::Gt } else { Cmp::Lt };
                self.arg_combine(beats, ty, (a, ai), (b, bi))
            }
        })
    }

    /// The (value, index) pair that wins under `beats` (`Gt` for argmax, `Lt` for argmin).
    fn arg_combine(&mut self, beats: Cmp, ty: Ty, (a, ai): (Acc, Operand), (b, bi): (Acc, Operand)) -> Acc {
        // take b when: vb beats va, or vb == va and ib < ia, or (floats) va is NaN and
        // vb is not, or both are NaN and ib < ia.
        let gt = self.setp(beats, ty, b.v, a.v);
        let eq = self.setp(Cmp::Eq, ty, b.v, a.v);
        let lt_i = self.setp(Cmp::Lt, Ty::I32, bi, ai);
        let tie = self.bin(BinOp::And, Ty::Pred, eq.into(), lt_i.into());
        let mut take = self.bin(BinOp::Or, Ty::Pred, gt.into(), tie);
        if ty == Ty::F32 {
            let a_nan = self.setp(Cmp::Ne, ty, a.v, a.v);
            let b_num = self.setp(Cmp::Eq, ty, b.v, b.v);
            let b_nan = self.new_reg(Ty::Pred);
            self.emit(Inst::Not { dst: b_nan, src: b_num });
            let num_beats_nan = self.bin(BinOp::And, Ty::Pred, a_nan.into(), b_num.into());
            let both_nan = self.bin(BinOp::And, Ty::Pred, a_nan.into(), b_nan.into());
            let nan_tie = self.bin(BinOp::And, Ty::Pred, both_nan, lt_i.into());
            take = self.bin(BinOp::Or, Ty::Pred, take, num_beats_nan);
            take = self.bin(BinOp::Or, Ty::Pred, take, nan_tie);
        }
        let take = self.reg(take, Ty::Pred);
        let v = self.new_reg(ty);
        self.emit(Inst::Selp { ty, dst: v, a: b.v, b: a.v, cond: take });
        let i = self.new_reg(Ty::I32);
        self.emit(Inst::Selp { ty: Ty::I32, dst: i, a: bi, b: ai, cond: take });
        Acc { v: v.into(), i: Some(i.into()) }
    }

    /// `x` of lane `lane ^ lane_mask`; a 64-bit value moves as two 32-bit halves, an
    /// `f16`/`bf16` (a 16-bit register, which `shfl.b32` does not take) in a 32-bit word.
    pub(super) fn shfl(&mut self, ty: Ty, x: Operand, lane_mask: u32) -> Operand {
        let src = self.reg(x, ty);
        if ty.size_bytes() == 8 {
            return self.shfl_wide(ty, src, lane_mask);
        }
        if matches!(ty, Ty::F16 | Ty::BF16) {
            return self.shfl_half(ty, src, lane_mask);
        }
        let dst = self.new_reg(ty);
        self.emit(Inst::Shfl { ty, dst, src, lane_mask, clamp: 0x1f, member_mask: 0xffff_ffff });
        dst.into()
    }

    pub(super) fn reduce(
        &mut self,
        op: &Op,
        rop: ReduceOp,
        value: Value,
        axis: usize,
    ) -> Result<Vec<Operand>, PtxError> {
        let k = self.k;
        let ty = ty_of(k.dtype(value));
        if !matches!(ty.size_bytes(), 4 | 8) || ty == Ty::Pred {
            return Err(self.err(
                op.loc,
                format!("reductions of {} are not supported by the PTX back end", k.dtype(value)),
                "reduce 32- or 64-bit values (convert the block first)",
            ));
        }
        if ty == Ty::F64 && matches!(rop, ReduceOp::Max(PropagateNan::All) | ReduceOp::Min(PropagateNan::All)) {
            return Err(self.err(
                op.loc,
                format!("`{}` on f64 is not supported by the PTX back end (PTX has no max.NaN.f64)", rop.name()),
                "reduce with the NaN-ignoring max/min, or convert to f32",
            ));
        }
        let argmax = rop.gives_index();
        let gs = self.block_geometry(op, value)?;
        let a = self.embed(op, value, axis)?;
        let mut pr = gs.parent.clone();
        pr[a] = 1;
        let gr = Geometry::new(&gs.enc, pr);
        let src = self.val(value)?;

        // 1. In-thread.
        let mut accs: Vec<Acc> = Vec::with_capacity(gr.num_regs());
        for i in 0..gr.num_regs() {
            let kr = gr.multi(i);
            let mut acc: Option<Acc> = None;
            for ka in 0..gs.regs[a] {
                let mut ks = kr.clone();
                ks[a] = ka;
                let x = Acc { v: src[gs.index(&ks)], i: if argmax { Some(self.coord(&gs, a, ka)) } else { None } };
                acc = Some(match acc {
                    None => x,
                    Some(p) => self.combine(op, rop, ty, p, x)?,
                });
            }
            accs.push(acc.ok_or_else(|| self.invariant(op, "reduces an axis of no elements"))?);
        }

        // 2. Lanes.
        let distinct = gs.distinct_threads(a);
        let tpw = gs.enc.threads_per_warp[a];
        let lanes = tpw.min(distinct);
        let shift = gs.enc.lane_shift(a);
        for b in (0..lanes.trailing_zeros()).rev() {
            let lane_mask = 1u32 << (shift + b);
            for acc in accs.iter_mut() {
                let v = Operand::Reg(self.reg(acc.v, ty));
                let i = acc.i.map(|i| Operand::Reg(self.reg(i, Ty::I32)));
                let other = Acc { v: self.shfl(ty, v, lane_mask), i: i.map(|i| self.shfl(Ty::I32, i, lane_mask)) };
                *acc = self.combine(op, rop, ty, Acc { v, i }, other)?;
            }
        }

        // 3. Warps.
        let warps = (distinct / tpw).max(1);
        if warps > 1 {
            self.across_warps(op, rop, ty, &gs, &gr, a, warps, &mut accs)?;
        }

        // 4. An axis of one element still applies the reduction's NaN rule (docs/semantics.md):
        // `max.f32(x, -inf)`, as `fmaxf(-inf, x)` in Triton and CUDA, so a lone NaN never keeps
        // its payload. Longer axes combine at least two elements, which applies it already.
        let shape = k.shape(value);
        if shape.dims()[axis] == 1 && matches!(ty, Ty::F32 | Ty::F64) {
            let inf = |neg: bool| match (ty, neg) {
                (Ty::F64, true) => Operand::F64(f64::NEG_INFINITY),
                (Ty::F64, false) => Operand::F64(f64::INFINITY),
                (_, true) => Operand::F32(f32::NEG_INFINITY),
                (_, false) => Operand::F32(f32::INFINITY),
            };
            for acc in accs.iter_mut() {
                let identity = match rop {
                    ReduceOp::Max(_) => inf(true),
                    ReduceOp::Min(_) => inf(false),
                    ReduceOp::Sum | ReduceOp::Argmax | ReduceOp::Argmin | ReduceOp::XorSum => continue,
                };
                *acc = self.combine(op, rop, ty, *acc, Acc { v: identity, i: None })?;
            }
        }
        self.decisions.reductions.push(ReductionDecision {
            loc: op.loc,
            uses_shuffles: lanes > 1,
            uses_shared_memory: warps > 1,
            reason: format!(
                "{} along axis {axis} of {shape}: {} elements per thread combined in registers, {lanes} lanes ({} shfl.sync.bfly rounds), {warps} warps{}",
                rop.name(),
                gs.regs[a],
                lanes.trailing_zeros(),
                if warps > 1 { " (partials through shared memory, 2 bar.sync)" } else { " (no shared memory)" }
            ),
        });
        Ok(accs.into_iter().map(|acc| acc.i.unwrap_or(acc.v)).collect())
    }

    /// Stage 3: partials of `warps` warps through shared memory. Slot of result element
    /// `e` from warp `w`: `(e * warps + w) * size` bytes, `size` the value's (4 or 8; argmax
    /// and argmin indices in a second array of slots of the same stride after the values).
    fn across_warps(
        &mut self,
        op: &Op,
        rop: ReduceOp,
        ty: Ty,
        gs: &Geometry,
        gr: &Geometry,
        a: usize,
        warps: usize,
        accs: &mut [Acc],
    ) -> Result<(), PtxError> {
        let res_numel: usize = self.k.shape(op.results[0]).numel();
        let size = ty.size_bytes() as i64;
        let array = res_numel as i64 * warps as i64 * size;
        // Index slots mirror the value slots (same stride), so one address serves both.
        let index_array = if rop.gives_index() { array } else { 0 };
        let bytes = ((array + index_array) as usize).next_multiple_of(16) as u32;
        self.use_scratch(bytes);
        let base = self.smem_base();
        let lane_a = self.lane_pos(&gs.enc, a);
        let warp_a = self.warp_pos(&gs.enc, a);
        // Writers: the first lane along the axis, in the first `warps` warps along it,
        // holding the first copy along the other dims.
        let mut writer = self.owner(gs, Some(a));
        if let Operand::Reg(l) = lane_a {
            let p = self.setp(Cmp::Eq, Ty::I32, l.into(), Operand::Int(0));
            writer = self.and_pred(writer, Some(p));
        }
        if gs.enc.warps_per_cta[a] > warps {
            let p = self.setp(Cmp::Lt, Ty::I32, warp_a, Operand::Int(warps as i64));
            writer = self.and_pred(writer, Some(p));
        }
        let res_dims: Vec<usize> = (0..gs.parent.len()).filter(|&d| d != a && gs.parent[d] > 1).collect();
        let mut slots: Vec<Reg> = Vec::with_capacity(accs.len());
        for i in 0..gr.num_regs() {
            let kr = gr.multi(i);
            let mut e = Operand::Int(0);
            for &d in &res_dims {
                let c = self.coord(gr, d, kr[d]);
                let stride: usize = res_dims.iter().filter(|&&x| x > d).map(|&x| gr.parent[x]).product();
                let term = match c {
                    Operand::Int(x) => Operand::Int(x * stride as i64),
                    c => self.bin(BinOp::Mul, Ty::I32, c, Operand::Int(stride as i64)),
                };
                e = match (e, term) {
                    (Operand::Int(x), Operand::Int(y)) => Operand::Int(x + y),
                    (x, y) => self.bin(BinOp::Add, Ty::I32, x, y),
                };
            }
            let read = match e {
                Operand::Int(x) => Operand::Int(x * warps as i64 * size),
                e => self.bin(BinOp::Mul, Ty::I32, e, Operand::Int(warps as i64 * size)),
            };
            let read = self.bin(BinOp::Add, Ty::I32, base.into(), read);
            slots.push(self.reg(read, Ty::I32));
        }
        let warp_off = match warp_a {
            Operand::Int(x) => Operand::Int(x * size),
            w => {
                let masked = if gs.enc.warps_per_cta[a] > warps {
                    self.bin(BinOp::And, Ty::I32, w, Operand::Int(warps as i64 - 1))
                } else {
                    w
                };
                self.bin(BinOp::Shl, Ty::I32, masked, Operand::Int(size.trailing_zeros().into()))
            }
        };
        let guard = writer.map(|pred| Guard { pred, negate: false });
        for (acc, slot) in accs.iter().zip(&slots) {
            let addr = self.bin(BinOp::Add, Ty::I32, (*slot).into(), warp_off);
            let addr = self.reg(addr, Ty::I32);
            let src = self.reg(acc.v, ty);
            self.emit(Inst::StShared { guard, ty, src, addr, offset: 0 });
            if let Some(i) = acc.i {
                let src = self.reg(i, Ty::I32);
                self.emit(Inst::StShared { guard, ty: Ty::I32, src, addr, offset: array as u32 });
            }
        }
        self.emit(Inst::BarSync { id: 0 });
        for (acc, slot) in accs.iter_mut().zip(&slots) {
            let mut cur: Option<Acc> = None;
            for w in 0..warps {
                let v = self.new_reg(ty);
                self.emit(Inst::LdShared { ty, dst: v, addr: *slot, offset: (w as i64 * size) as u32 });
                let i = acc.i.map(|_| {
                    let r = self.new_reg(Ty::I32);
                    self.emit(Inst::LdShared {
                        ty: Ty::I32,
                        dst: r,
                        addr: *slot,
                        offset: (array + w as i64 * size) as u32,
                    });
                    Operand::Reg(r)
                });
                let x = Acc { v: v.into(), i };
                cur = Some(match cur {
                    None => x,
                    Some(p) => self.combine(op, rop, ty, p, x)?,
                });
            }
            *acc = cur.ok_or_else(|| self.invariant(op, "combines the partials of no warps"))?;
        }
        self.emit(Inst::BarSync { id: 0 });
        Ok(())
    }
}
