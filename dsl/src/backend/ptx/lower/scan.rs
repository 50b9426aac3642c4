//! `associative_scan(x, axis, combine)` and `cumsum` (`OpKind::Scan`), in the order the
//! interpreter defines (`interp/combine.rs`): Hillis-Steele rounds with distance
//! `d = 1, 2, 4, ... < n`, each position `p >= d` becoming `combine(v[p - d], v[p])`.
//!
//! Every round goes through shared memory, so the order is the same whatever the layout:
//! the owner of each element stores its current value to the round's buffer (two buffers,
//! used alternately, so a round's stores never race with the previous round's loads),
//! `bar.sync`, then every thread loads `v[p - d]` for each element it holds (its own
//! element when `p < d`, to keep the address in range) and keeps
//! `p >= d ? combine(v[p - d], v[p]) : v[p]`; a last `bar.sync` frees the buffers for the
//! next op. The combine region is inlined for every element in every round (its result is
//! discarded where `p < d`). Shared memory: two buffers of the block per operand.
//!
//! Not done yet: the faster in-thread scan + `shfl.sync.up` warp scan + cross-warp carry
//! that Triton emits; its association differs with the layout, so it would need the
//! interpreter to follow it (see `docs/semantics.md`).

use super::{Lowerer, ty_of};
use crate::backend::ptx::PtxError;
use crate::backend::ptx::lir::{BinOp, Cmp, Guard, Inst, Operand, Ty};
use crate::diag::Code;
use crate::ir::{Block, Op, Value};

/// The most shared memory one CTA may use without opting in (48 KiB).
const MAX_SHARED_BYTES: i64 = 48 * 1024;

impl Lowerer<'_> {
    pub(super) fn scan(&mut self, op: &Op, values: &[Value], axis: usize, region: &Block) -> Result<(), PtxError> {
        let tys: Vec<Ty> = values.iter().map(|v| ty_of(self.k.dtype(*v))).collect();
        if let Some(t) = tys.iter().find(|t| **t == Ty::Pred) {
            return Err(self.err(op.loc, format!("a scan of {t} blocks"), "scan integer or float blocks"));
        }
        let first = *values.first().ok_or_else(|| self.invariant(op, "has no operand"))?;
        let gs = self.block_geometry(op, first)?;
        let a = self.embed(op, first, axis)?;
        let n = gs.parent[a];
        let numel: usize = gs.parent.iter().product();
        // Two buffers per operand, one after another, 8-byte aligned.
        let mut buf_off = Vec::with_capacity(tys.len());
        let mut bytes = 0i64;
        for t in &tys {
            let one = (numel as u64 * u64::from(t.size_bytes())).next_multiple_of(8) as i64;
            buf_off.push([bytes, bytes + one]);
            bytes += 2 * one;
        }
        if bytes > MAX_SHARED_BYTES {
            return Err(crate::backend::ptx::PtxError::new(
                Code::PtxUnsupported,
                &self.k.name,
                op.loc,
                format!(
                    "this scan of a {} block needs {bytes} bytes of shared memory (at most {MAX_SHARED_BYTES})",
                    self.k.ty(values[0])
                ),
                "scan a smaller block (loop over the axis in blocks and carry the last value)",
            ));
        }
        self.use_scratch(bytes as u32);
        let base = self.smem_base();
        let owner = self.owner(&gs, None).map(|pred| Guard { pred, negate: false });
        // Each register's row-major element index in the parent shape and position along `a`.
        let strides: Vec<usize> = (0..gs.parent.len()).map(|d| gs.parent[d + 1..].iter().product()).collect();
        let mut lin = Vec::with_capacity(gs.num_regs());
        let mut pos = Vec::with_capacity(gs.num_regs());
        for i in 0..gs.num_regs() {
            let ks = gs.multi(i);
            let mut e = Operand::Int(0);
            for d in (0..gs.parent.len()).filter(|&d| gs.parent[d] > 1) {
                let c = self.coord(&gs, d, ks[d]);
                if d == a {
                    pos.push(c);
                }
                let term = self.fold_i32(BinOp::Mul, c, Operand::Int(strides[d] as i64));
                e = self.fold_i32(BinOp::Add, e, term);
            }
            if n == 1 {
                pos.push(Operand::Int(0));
            }
            lin.push(e);
        }
        let mut cur: Vec<Vec<Operand>> = (0..gs.num_regs()).map(|_| Vec::with_capacity(values.len())).collect();
        for v in values {
            for (i, x) in self.val(*v)?.into_iter().enumerate() {
                cur[i].push(x);
            }
        }
        let (mut d, mut round) = (1usize, 0usize);
        while d < n {
            let which = round % 2;
            for (i, elem) in cur.iter().enumerate() {
                for (k, (x, t)) in elem.iter().zip(&tys).enumerate() {
                    let addr = self.slot_addr(base, lin[i], *t, buf_off[k][which]);
                    let src = self.reg(*x, *t);
                    self.emit(Inst::StShared { guard: owner, ty: *t, src, addr, offset: 0 });
                }
            }
            self.emit(Inst::BarSync { id: 0 });
            let back = (d * strides[a]) as i64;
            for i in 0..cur.len() {
                let (from, has) = match pos[i] {
                    Operand::Int(p) if p >= d as i64 => (self.fold_i32(BinOp::Add, lin[i], Operand::Int(-back)), None),
                    Operand::Int(_) => continue,
                    p => {
                        let has = self.setp(Cmp::Ge, Ty::I32, p, Operand::Int(d as i64));
                        let earlier = self.fold_i32(BinOp::Add, lin[i], Operand::Int(-back));
                        let from = self.new_reg(Ty::I32);
                        self.emit(Inst::Selp { ty: Ty::I32, dst: from, a: earlier, b: lin[i], cond: has });
                        (from.into(), Some(has))
                    }
                };
                let mut left = Vec::with_capacity(tys.len());
                for (k, t) in tys.iter().enumerate() {
                    let addr = self.slot_addr(base, from, *t, buf_off[k][which]);
                    let dst = self.new_reg(*t);
                    self.emit(Inst::LdShared { ty: *t, dst, addr, offset: 0 });
                    left.push(dst.into());
                }
                let mine = cur[i].clone();
                let combined = self.inline_combine(op, region, &left, &mine)?;
                cur[i] = match has {
                    None => combined,
                    Some(has) => {
                        let mut kept = Vec::with_capacity(tys.len());
                        for ((c, m), t) in combined.iter().zip(&mine).zip(&tys) {
                            let dst = self.new_reg(*t);
                            self.emit(Inst::Selp { ty: *t, dst, a: *c, b: *m, cond: has });
                            kept.push(dst.into());
                        }
                        kept
                    }
                };
            }
            d *= 2;
            round += 1;
        }
        if round > 0 {
            self.emit(Inst::BarSync { id: 0 });
        }
        for (k, r) in op.results.iter().enumerate() {
            let elems = cur.iter().map(|e| e[k]).collect();
            self.set(*r, elems);
        }
        Ok(())
    }
}
