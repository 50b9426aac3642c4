//! The bit-level operators: shifts with the amount clamped as the interpreter defines it
//! (`semantics::bits`), and bitcasts (a `mov.b32` between register classes, or nothing).

use super::Lowerer;
use crate::backend::ptx::lir::{BinOp, Cmp, Inst, Operand, Ty};
use crate::semantics::bits::shift_amount;

impl Lowerer<'_> {
    /// `a << b` (`left`) or `a >> b` in `ty` (`I32`, `I64`, `U32`, `U64`; the 8- and
    /// 16-bit ints compute in `I32`); `arithmetic` picks `shr.s`
    /// over `shr.u`. PTX reads the amount as an unsigned 32-bit register and clamps it to
    /// the width, which is the rule for `i32`; an `i64` amount is first clamped to 64 in 64
    /// bits, because its low 32 bits alone would turn `2^32` into 0.
    pub(super) fn shift(&mut self, left: bool, arithmetic: bool, ty: Ty, a: Operand, b: Operand) -> Operand {
        let op = match (left, arithmetic) {
            (true, _) => BinOp::Shl,
            (false, true) => BinOp::ShrS,
            (false, false) => BinOp::ShrU,
        };
        let wide = matches!(ty, Ty::I64 | Ty::U64);
        let width = if wide { 64 } else { 32 };
        let amount = match b {
            Operand::Int(v) => {
                let s = shift_amount(v, width);
                if s < width {
                    Operand::Int(s.into())
                } else if op == BinOp::ShrS {
                    // Every bit shifted out leaves the sign fill, which width - 1 gives too.
                    Operand::Int((width - 1).into())
                } else {
                    return Operand::Int(0);
                }
            }
            Operand::Reg(_) if wide => {
                // amount >= 64 (unsigned) exactly when bits 6.. are not all zero.
                let high = self.bin(BinOp::ShrU, Ty::I64, b, Operand::Int(6));
                let past = self.setp(Cmp::Ne, Ty::I64, high, Operand::Int(0));
                let low = self.cast(b, Ty::I64, Ty::I32);
                let dst = self.new_reg(Ty::I32);
                self.emit(Inst::Selp { ty: Ty::I32, dst, a: Operand::Int(64), b: low, cond: past });
                dst.into()
            }
            // An i32 amount register is what PTX clamps itself (operands, not an op kind).
            _ => b,
        };
        self.bin(op, ty, a, amount)
    }

    /// The bits of `x` (type `from`) as type `to` of the same width and register size
    /// (`f32` and `i32`/`u32`, `f64` and `i64`/`u64`, `f16` and `bf16`): an immediate is
    /// re-read, a register is moved with `mov.b32` / `mov.b64` / `mov.b16` (typed by the
    /// integer side, which PTX lets read or write a float register of its width).
    pub(super) fn bitcast(&mut self, x: Operand, from: Ty, to: Ty) -> Operand {
        if from == to {
            return x;
        }
        match (x, to) {
            (Operand::Int(v), Ty::F32) => return Operand::F32(f32::from_bits(v as u32)),
            (Operand::F32(f), Ty::I32) => return Operand::Int(i64::from(f.to_bits() as i32)),
            // A register, or an immediate already of the target's kind (not an op kind).
            _ => {}
        }
        let src = self.reg(x, from);
        let ty = if matches!(from, Ty::F32 | Ty::F64) { to } else { from };
        let dst = self.new_reg(to);
        self.emit(Inst::Mov { ty, dst, src: src.into() });
        dst.into()
    }
}
