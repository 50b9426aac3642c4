//! Lowering of the math ops: `fma` (one `fma.rn` per element) and the register types the
//! one-instruction functions are emitted for. `exp`, `log`, `sigmoid` and `erf` need no
//! case here: the front end composes them from these ops (`lang/math.rs`), so the
//! interpreter, the simulator and the PTX compute the same sequence of roundings.

use super::super::PtxError;
use super::super::lir::{Inst, Operand, Ty};
use super::Lowerer;
use crate::ir::{Op, UnaryOp, Value};

impl Lowerer<'_> {
    /// Refuses a unary op on a register type it has no PTX instruction for here: the math
    /// functions are emitted for `.f32` only (a float dtype added later, f16 or f64, is a
    /// located error until its instructions are written, never wrong PTX).
    pub(super) fn check_unary_type(&self, op: &Op, uop: UnaryOp, ty: Ty) -> Result<(), PtxError> {
        let ok = match uop {
            // Unsigned negation wraps (the writer emits it as `neg.s32`/`.s64` on the bits).
            UnaryOp::Neg => matches!(ty, Ty::I32 | Ty::I64 | Ty::U32 | Ty::U64 | Ty::F32 | Ty::F64),
            UnaryOp::Abs => matches!(ty, Ty::I32 | Ty::I64 | Ty::F32 | Ty::F64),
            UnaryOp::Math(_) => ty == Ty::F32,
        };
        if ok {
            return Ok(());
        }
        Err(self.err(
            op.loc,
            format!("`{}` on {} is not supported by the PTX back end", uop.name(), self.k.dtype(op.results[0])),
            "compute it in f32: convert the operand with .to::<f32>() and the result back",
        ))
    }

    /// `a * b + c` rounded once, element by element (`fma.rn.f32`).
    pub(super) fn fma(&mut self, op: &Op, operands: [Value; 3]) -> Result<Vec<Operand>, PtxError> {
        let ty = super::ty_of(self.k.dtype(op.results[0]));
        if ty != Ty::F32 {
            return Err(self.err(
                op.loc,
                format!("`fma` on {} is not supported by the PTX back end", self.k.dtype(op.results[0])),
                "compute it in f32: convert the operands with .to::<f32>()",
            ));
        }
        let [a, b, c] = operands.map(|v| self.val(v));
        let (a, b, c) = (a?, b?, c?);
        let mut elems = Vec::with_capacity(a.len());
        for i in 0..a.len() {
            // The first operand is a register (PTX takes immediates for the others only).
            let first = Operand::Reg(self.reg(a[i], ty));
            let dst = self.new_reg(ty);
            self.emit(Inst::Fma { ty, dst, a: first, b: b[i], c: c[i] });
            elems.push(Operand::Reg(dst));
        }
        Ok(elems)
    }
}
