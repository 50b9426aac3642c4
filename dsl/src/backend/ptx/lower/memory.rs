//! Loads and stores: vector width (from [`crate::backend::ptx::vectorize`]), `other`
//! values, mask predicates and single-owner stores.

use super::{Lowerer, ty_of};
use crate::backend::ptx::lir::{Guard, Inst, Operand, Reg, Ty};
use crate::backend::ptx::vectorize::{self, Facts};
use crate::backend::ptx::{AccessDecision, AccessKind, PtxError};
use crate::ir::{Op, Value};

impl Lowerer<'_> {
    /// The width of an access through `ptr`: the provable width capped by the thread's
    /// chunk along the value's last dim; recorded in the decisions.
    fn access_width(&mut self, op: &Op, kind: AccessKind, ptr: Value, mask: Option<Value>) -> usize {
        let facts = Facts::of(self.k, self.ai, ptr, mask);
        let chunk = match (self.geometry(ptr), self.layout(ptr)) {
            (Some(g), Some(l)) => {
                let last = *l.embed.last().expect("block");
                // Only the layout's fastest dim keeps a thread's chunk in consecutive registers.
                if last == self.enc.order[0] { g.chunk[last] } else { 1 }
            }
            // a scalar pointer: one element per access (not an op kind)
            _ => 1,
        };
        let (width, reason) = vectorize::decide(&facts, chunk as u64);
        self.decisions.accesses.push(AccessDecision { loc: op.loc, kind, vector_width: width, reason });
        width as usize
    }

    pub(super) fn load(
        &mut self,
        op: &Op,
        ptr: Value,
        mask: Option<Value>,
        other: Option<Value>,
    ) -> Result<Vec<Operand>, PtxError> {
        let res = op.results[0];
        let ty = ty_of(self.k.dtype(res));
        if ty == Ty::Pred {
            return Err(self.err(op.loc, "loads of i1 are not supported by the PTX back end", "load i32 and compare"));
        }
        let width = self.access_width(op, AccessKind::Load, ptr, mask);
        let ptrs = self.val(ptr);
        let masks = mask.map(|m| self.val(m));
        let others = other.map(|o| self.val(o));
        let mut out = Vec::with_capacity(ptrs.len());
        for c in (0..ptrs.len()).step_by(width) {
            let dsts: Vec<Reg> = (0..width).map(|_| self.new_reg(ty)).collect();
            // Masked-off lanes keep what the registers held: `other` (or 0, so the result
            // does not depend on stale registers).
            if mask.is_some() {
                for (j, d) in dsts.iter().enumerate() {
                    let src = match &others {
                        Some(o) => o[c + j],
                        None if ty == Ty::F32 => Operand::F32(0.0),
                        None => Operand::Int(0),
                    };
                    self.emit(Inst::Mov { ty, dst: *d, src });
                }
            }
            // The mask is constant across the vector (proved by `vectorize`): its first
            // element guards the whole access.
            let guard = masks.as_ref().map(|m| Guard { pred: self.reg(m[c], Ty::Pred), negate: false });
            let addr = self.reg(ptrs[c], Ty::I64);
            self.emit(Inst::LdGlobal { guard, ty, dsts: dsts.clone(), addr, offset: 0, non_coherent: false });
            out.extend(dsts.into_iter().map(Operand::Reg));
        }
        Ok(out)
    }

    pub(super) fn store(&mut self, op: &Op, ptr: Value, value: Value, mask: Option<Value>) -> Result<(), PtxError> {
        let ty = ty_of(self.k.dtype(value));
        if ty == Ty::Pred {
            return Err(self.err(
                op.loc,
                "stores of i1 are not supported by the PTX back end",
                "store an i32 (cast the mask)",
            ));
        }
        let width = self.access_width(op, AccessKind::Store, ptr, mask);
        // Exactly one thread writes each element: the owner of its first copy.
        let owner = match self.geometry(ptr) {
            Some(g) => self.owner(&g, None),
            None => Some(self.scalar_owner()),
        };
        let ptrs = self.val(ptr);
        let vals = self.val(value);
        let masks = mask.map(|m| self.val(m));
        for c in (0..ptrs.len()).step_by(width) {
            let m = masks.as_ref().map(|m| self.reg(m[c], Ty::Pred));
            let guard = self.and_pred(m, owner).map(|pred| Guard { pred, negate: false });
            let srcs: Vec<Reg> = (0..width).map(|j| self.reg(vals[c + j], ty)).collect();
            let addr = self.reg(ptrs[c], Ty::I64);
            self.emit(Inst::StGlobal { guard, ty, srcs, addr, offset: 0 });
        }
        Ok(())
    }
}
