//! The instruction builders every family's lowering uses: an operand into a register, a
//! binary op with its identities folded, a comparison into a predicate, the conjunction
//! of two optional guards; and the register type of each element type.

use super::Lowerer;
use crate::backend::ptx::lir::{BinOp, Cmp, Inst, Operand, Reg, Ty};
use crate::ir::{DType, ScalarType};

/// The register type of a block-IR element type (pointers are 64-bit addresses).
pub(super) fn ty_of(d: DType) -> Ty {
    match d {
        DType::Ptr(_) => Ty::I64,
        DType::Scalar(ScalarType::Bool) => Ty::Pred,
        DType::Scalar(ScalarType::I32) => Ty::I32,
        DType::Scalar(ScalarType::I64) => Ty::I64,
        DType::Scalar(ScalarType::F32) => Ty::F32,
        DType::Scalar(ScalarType::U32) => Ty::U32,
        DType::Scalar(ScalarType::U64) => Ty::U64,
        DType::Scalar(ScalarType::F64) => Ty::F64,
        DType::Scalar(ScalarType::F16) => Ty::F16,
        DType::Scalar(ScalarType::BF16) => Ty::BF16,
        DType::Scalar(ScalarType::I8) => Ty::S8,
        // An fp8 code is a byte like u8 (loaded, stored and selected as one); `cast`s of
        // it are `lower/fp8.rs`'s integer sequences, which read the dtype, not this type.
        DType::Scalar(ScalarType::U8 | ScalarType::F8E4M3 | ScalarType::F8E5M2) => Ty::U8,
        DType::Scalar(ScalarType::I16) => Ty::S16,
    }
}

impl Lowerer<'_> {
    /// `op` in a register of type `ty` (immediates are moved into a new one).
    pub fn reg(&mut self, op: Operand, ty: Ty) -> Reg {
        match op {
            Operand::Reg(r) => r,
            imm => {
                let dst = self.new_reg(ty);
                self.emit(Inst::Mov { ty, dst, src: imm });
                dst
            }
        }
    }

    pub fn bin(&mut self, op: BinOp, ty: Ty, a: Operand, b: Operand) -> Operand {
        let commutes = op.commutes();
        // Identities: x + 0, x - 0, x * 1, x << 0, x >> 0 (and 0 + x, 1 * x when `op` commutes).
        if let Some(id) = op.right_identity()
            && ty != Ty::F32
            && ty != Ty::F64
            && ty != Ty::Pred
        {
            if b == Operand::Int(id) {
                return a;
            }
            if a == Operand::Int(id) && commutes {
                return b;
            }
        }
        let (a, b) = match (a, b) {
            (Operand::Reg(_), _) => (a, b),
            (_, Operand::Reg(_)) if commutes => (b, a),
            // two immediates: materialize the first (operands, not an op kind)
            _ => (Operand::Reg(self.reg(a, ty)), b),
        };
        let dst = self.new_reg(ty);
        self.emit(Inst::Bin { op, ty, dst, a, b });
        Operand::Reg(dst)
    }

    pub fn setp(&mut self, cmp: Cmp, ty: Ty, a: Operand, b: Operand) -> Reg {
        let a = Operand::Reg(self.reg(a, ty));
        let dst = self.new_reg(Ty::Pred);
        self.emit(Inst::Setp { cmp, ty, dst, a, b });
        dst
    }

    pub fn and_pred(&mut self, a: Option<Reg>, b: Option<Reg>) -> Option<Reg> {
        match (a, b) {
            (Some(x), Some(y)) => {
                let dst = self.new_reg(Ty::Pred);
                self.emit(Inst::Bin { op: BinOp::And, ty: Ty::Pred, dst, a: x.into(), b: y.into() });
                Some(dst)
            }
            (x, None) => x,
            (None, y) => y,
        }
    }
}
