//! Loads and stores: vector width (from [`crate::backend::ptx::vectorize`]), `other`
//! values, mask predicates and single-owner stores. Eight f16 or bf16 elements (16 bytes)
//! travel as four 32-bit words, two elements each ([`Inst::Pack`], [`Inst::Unpack`]).
//! Vectors a constant distance apart share an address register (`address.rs`).

use super::{Lowerer, ty_of};
use crate::backend::ptx::lir::{Guard, Inst, Operand, Reg, Ty};
use crate::backend::ptx::vectorize::{self, Facts, MAX_VECTOR_ELEMS};
use crate::backend::ptx::{AccessDecision, AccessKind, PtxError};
use crate::ir::{Op, Value};
use crate::semantics::convert::{f32_to_bf16, f32_to_f16};

impl Lowerer<'_> {
    /// The width of an access through `ptr`: the provable width along the pointer's dim
    /// that lies along the layout's fastest dim, capped by the thread's chunk there;
    /// recorded in the decisions.
    pub(super) fn access_width(&mut self, op: &Op, kind: AccessKind, ptr: Value, mask: Option<Value>) -> usize {
        // Only the layout's fastest dim keeps a thread's chunk in consecutive registers. A
        // pointer with no dim there (a row of a tile read along its columns) gets width 1,
        // with the facts of its last dim in the reason.
        let (dim, chunk) = match (self.geometry(ptr), self.layout(ptr)) {
            (Some(g), Some(l)) => match l.embed.iter().position(|&d| d == l.enc.order[0]) {
                Some(i) => (i, g.chunk[l.enc.order[0]]),
                None => (l.embed.len() - 1, 1),
            },
            // a scalar pointer: one element per access (not an op kind)
            _ => (0, 1),
        };
        let facts = Facts::of(self.k, self.ai, ptr, mask, dim);
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
        let ty = ty_of(self.k.dtype(op.results[0]));
        if ty == Ty::Pred {
            return Err(self.err(op.loc, "loads of i1 are not supported by the PTX back end", "load i32 and compare"));
        }
        let width = self.access_width(op, AccessKind::Load, ptr, mask);
        self.load_width(op, (ptr, mask, other), width)
    }

    /// A load into registers, `width` elements per access (decided by the caller).
    pub(super) fn load_width(
        &mut self,
        op: &Op,
        (ptr, mask, other): (Value, Option<Value>, Option<Value>),
        width: usize,
    ) -> Result<Vec<Operand>, PtxError> {
        let ty = ty_of(self.k.dtype(op.results[0]));
        self.load_elems(ty, (ptr, mask, other), width)
    }

    /// [`Self::load_width`] of elements of type `ty` (an op without a result, such as
    /// `async_copy`, names it).
    pub(super) fn load_elems(
        &mut self,
        ty: Ty,
        (ptr, mask, other): (Value, Option<Value>, Option<Value>),
        width: usize,
    ) -> Result<Vec<Operand>, PtxError> {
        let ptrs = self.val(ptr)?;
        let masks = mask.map(|m| self.val(m)).transpose()?;
        let others = other.map(|o| self.val(o)).transpose()?;
        let bases = self.vector_bases(ptr, ptrs.len(), width);
        let mut out = Vec::with_capacity(ptrs.len());
        for (c, (base, offset)) in (0..ptrs.len()).step_by(width).zip(bases) {
            // The mask is constant across the vector (proved by `vectorize`): its first
            // element guards the whole access.
            let guard = masks.as_ref().map(|m| Guard { pred: self.reg(m[c], Ty::Pred), negate: false });
            if width > MAX_VECTOR_ELEMS as usize {
                let others: Option<Vec<Operand>> =
                    mask.map(|_| (0..width).map(|j| others.as_ref().map_or(Operand::Int(0), |o| o[c + j])).collect());
                let addr = self.reg(ptrs[base], Ty::I64);
                out.extend(self.load_pairs(ty, guard, (addr, offset), width, others));
                continue;
            }
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
            let addr = self.reg(ptrs[base], Ty::I64);
            self.emit(Inst::LdGlobal { guard, ty, dsts: dsts.clone(), addr, offset, non_coherent: false });
            out.extend(dsts.into_iter().map(Operand::Reg));
        }
        Ok(out)
    }

    /// `debug_barrier`: `bar.sync` waits for the CTA and makes its earlier accesses visible
    /// to every thread of it (Triton's `gpu.barrier`).
    pub(super) fn debug_barrier(&mut self) -> Result<(), PtxError> {
        self.emit(Inst::BarSync { id: 0 });
        Ok(())
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
        let ptrs = self.val(ptr)?;
        let vals = self.val(value)?;
        let masks = mask.map(|m| self.val(m)).transpose()?;
        let bases = self.vector_bases(ptr, ptrs.len(), width);
        for (c, (base, offset)) in (0..ptrs.len()).step_by(width).zip(bases) {
            let m = masks.as_ref().map(|m| self.reg(m[c], Ty::Pred));
            let guard = self.and_pred(m, owner).map(|pred| Guard { pred, negate: false });
            let addr = self.reg(ptrs[base], Ty::I64);
            if width > MAX_VECTOR_ELEMS as usize {
                // Two 16-bit elements to a word, the lower address in the low half.
                let words: Vec<Reg> = (0..width / 2)
                    .map(|w| {
                        let (lo, hi) = (self.reg(vals[c + 2 * w], ty), self.reg(vals[c + 2 * w + 1], ty));
                        let dst = self.new_reg(Ty::U32);
                        self.emit(Inst::Pack { dst, lo, hi });
                        dst
                    })
                    .collect();
                self.emit(Inst::StGlobal { guard, ty: Ty::U32, srcs: words, addr, offset });
                continue;
            }
            let srcs: Vec<Reg> = (0..width).map(|j| self.reg(vals[c + j], ty)).collect();
            self.emit(Inst::StGlobal { guard, ty, srcs, addr, offset });
        }
        Ok(())
    }

    /// A load of `width` (8) 16-bit elements of `ty` as `width / 2` 32-bit words, each
    /// unpacked into two registers (the lower address is the low half, memory being
    /// little-endian). With a mask, the words first hold the packed `others`, which a
    /// false guard leaves in place.
    fn load_pairs(
        &mut self,
        ty: Ty,
        guard: Option<Guard>,
        (addr, offset): (Reg, i64),
        width: usize,
        others: Option<Vec<Operand>>,
    ) -> Vec<Operand> {
        let words: Vec<Reg> = (0..width / 2).map(|_| self.new_reg(Ty::U32)).collect();
        if let Some(others) = others {
            for (w, word) in words.iter().enumerate() {
                let (lo, hi) = (others[2 * w], others[2 * w + 1]);
                match (half_bits(lo, ty), half_bits(hi, ty)) {
                    (Some(l), Some(h)) => {
                        let src = Operand::Int(i64::from(u32::from(h) << 16 | u32::from(l)));
                        self.emit(Inst::Mov { ty: Ty::U32, dst: *word, src });
                    }
                    // a register (or an immediate `half_bits` does not read): packed at run time
                    _ => {
                        let (lo, hi) = (self.reg(lo, ty), self.reg(hi, ty));
                        self.emit(Inst::Pack { dst: *word, lo, hi });
                    }
                }
            }
        }
        self.emit(Inst::LdGlobal { guard, ty: Ty::U32, dsts: words.clone(), addr, offset, non_coherent: false });
        let mut out = Vec::with_capacity(width);
        for word in words {
            let (lo, hi) = (self.new_reg(ty), self.new_reg(ty));
            self.emit(Inst::Unpack { lo, hi, src: word });
            out.push(Operand::Reg(lo));
            out.push(Operand::Reg(hi));
        }
        out
    }
}

/// The 16 bits an immediate of a 16-bit float register `ty` holds, as the writer prints
/// it and the simulator reads it (rounded to nearest even); `None` for a register.
fn half_bits(o: Operand, ty: Ty) -> Option<u16> {
    let x = match o {
        Operand::F32(x) => x,
        Operand::Int(v) => v as f32,
        Operand::Reg(_) | Operand::F64(_) => return None,
    };
    Some(if ty == Ty::BF16 { f32_to_bf16(x).to_bits() } else { f32_to_f16(x).to_bits() })
}
