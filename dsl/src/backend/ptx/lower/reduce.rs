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

use super::{Lowerer, ty_of};
use crate::backend::ptx::layout::Geometry;
use crate::backend::ptx::lir::{BinOp, Cmp, Guard, Inst, Operand, Ty};
use crate::backend::ptx::{PtxError, ReductionDecision};
use crate::ir::{Op, ReduceOp, Value};

impl Lowerer<'_> {
    pub(super) fn reduce(
        &mut self,
        op: &Op,
        rop: ReduceOp,
        value: Value,
        axis: usize,
    ) -> Result<Vec<Operand>, PtxError> {
        let k = self.k;
        let ty = ty_of(k.dtype(value));
        let combine = match rop {
            ReduceOp::Max(n) => BinOp::Max(n),
            ReduceOp::Min(n) => BinOp::Min(n),
            ReduceOp::Sum => BinOp::Add,
            ReduceOp::Argmax => {
                return Err(self.err(
                    op.loc,
                    "argmax is not supported by the PTX back end yet",
                    "use the interpreter for argmax, or compute max and then the first index where x == max",
                ));
            }
        };
        if !matches!(ty, Ty::F32 | Ty::I32) {
            return Err(self.err(
                op.loc,
                format!(
                    "reductions of {} are not supported by the PTX back end (32-bit shuffles only)",
                    k.dtype(value)
                ),
                "reduce f32 or i32 values",
            ));
        }
        let gs = self.geometry(value).expect("a reduced value is a block");
        let a = self.layout(value).unwrap().embed[axis];
        let mut pr = gs.parent.clone();
        pr[a] = 1;
        let gr = Geometry::new(self.enc, pr);
        let src = self.val(value);

        // 1. In-thread.
        let mut accs: Vec<Operand> = Vec::with_capacity(gr.num_regs());
        for i in 0..gr.num_regs() {
            let kr = gr.multi(i);
            let mut acc: Option<Operand> = None;
            for ka in 0..gs.regs[a] {
                let mut ks = kr.clone();
                ks[a] = ka;
                let x = src[gs.index(&ks)];
                acc = Some(match acc {
                    None => x,
                    Some(p) => self.bin(combine, ty, p, x),
                });
            }
            accs.push(acc.expect("at least one element"));
        }

        // 2. Lanes.
        let distinct = gs.distinct_threads(a, self.enc);
        let tpw = self.enc.threads_per_warp[a];
        let lanes = tpw.min(distinct);
        let shift = self.enc.lane_shift(a);
        for b in (0..lanes.trailing_zeros()).rev() {
            let lane_mask = 1u32 << (shift + b);
            for acc in accs.iter_mut() {
                let src = self.reg(*acc, ty);
                let dst = self.new_reg(ty);
                self.emit(Inst::Shfl { ty, dst, src, lane_mask, clamp: 0x1f, member_mask: 0xffff_ffff });
                *acc = self.bin(combine, ty, src.into(), dst.into());
            }
        }

        // 3. Warps.
        let warps = (distinct / tpw).max(1);
        if warps > 1 {
            let res_numel: usize = k.shape(op.results[0]).numel();
            let bytes = (res_numel * warps * 4).next_multiple_of(16) as u32;
            self.shared_bytes = self.shared_bytes.max(bytes);
            let base = self.smem_base();
            let lane_a = self.lane_pos(a);
            let warp_a = self.warp_pos(a);
            // Writers: the first lane along the axis, in the first `warps` warps along it,
            // holding the first copy along the other dims.
            let mut writer = self.owner(&gs, Some(a));
            if let Operand::Reg(l) = lane_a {
                let p = self.setp(Cmp::Eq, Ty::I32, l.into(), Operand::Int(0));
                writer = self.and_pred(writer, Some(p));
            }
            if self.enc.warps_per_cta[a] > warps {
                let p = self.setp(Cmp::Lt, Ty::I32, warp_a, Operand::Int(warps as i64));
                writer = self.and_pred(writer, Some(p));
            }
            // Slot of result element e from warp w: (e * warps + w) * 4 bytes.
            let res_embed: Vec<usize> = (0..gs.parent.len()).filter(|&d| d != a && gs.parent[d] > 1).collect();
            let mut slots = Vec::with_capacity(accs.len());
            for i in 0..gr.num_regs() {
                let kr = gr.multi(i);
                let mut e = Operand::Int(0);
                for &d in &res_embed {
                    let c = self.coord(&gr, d, kr[d]);
                    let stride: usize = res_embed.iter().filter(|&&x| x > d).map(|&x| gr.parent[x]).product();
                    let term = match c {
                        Operand::Int(x) => Operand::Int(x * stride as i64),
                        c if stride == 1 => c,
                        c => self.bin(BinOp::Mul, Ty::I32, c, Operand::Int(stride as i64)),
                    };
                    e = match (e, term) {
                        (Operand::Int(0), t) => t,
                        (Operand::Int(x), Operand::Int(y)) => Operand::Int(x + y),
                        (x, y) => self.bin(BinOp::Add, Ty::I32, x, y),
                    };
                }
                // Read address: base + e * warps * 4; write address adds w * 4.
                let read = match e {
                    Operand::Int(x) => Operand::Int(x * warps as i64 * 4),
                    e => self.bin(BinOp::Mul, Ty::I32, e, Operand::Int(warps as i64 * 4)),
                };
                let read = self.bin(BinOp::Add, Ty::I32, base.into(), read);
                slots.push(read);
            }
            let warp_off = match warp_a {
                Operand::Int(x) => Operand::Int(x * 4),
                w => {
                    let masked = if self.enc.warps_per_cta[a] > warps {
                        self.bin(BinOp::And, Ty::I32, w, Operand::Int(warps as i64 - 1))
                    } else {
                        w
                    };
                    self.bin(BinOp::Shl, Ty::I32, masked, Operand::Int(2))
                }
            };
            for (acc, slot) in accs.iter().zip(&slots) {
                let addr = self.bin(BinOp::Add, Ty::I32, *slot, warp_off);
                let addr = self.reg(addr, Ty::I32);
                let src = self.reg(*acc, ty);
                self.emit(Inst::StShared {
                    guard: writer.map(|pred| Guard { pred, negate: false }),
                    ty,
                    src,
                    addr,
                    offset: 0,
                });
            }
            self.emit(Inst::BarSync { id: 0 });
            for (acc, slot) in accs.iter_mut().zip(&slots) {
                let addr = self.reg(*slot, Ty::I32);
                let mut cur: Option<Operand> = None;
                for w in 0..warps {
                    let dst = self.new_reg(ty);
                    self.emit(Inst::LdShared { ty, dst, addr, offset: (w * 4) as u32 });
                    cur = Some(match cur {
                        None => dst.into(),
                        Some(p) => self.bin(combine, ty, p, dst.into()),
                    });
                }
                *acc = cur.unwrap();
            }
            self.emit(Inst::BarSync { id: 0 });
        }

        let shape = k.shape(value);
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
        Ok(accs)
    }
}
