//! Front-end rules of the bit-level operators: `!x` (Triton's `~x` and `not`), bitcasts,
//! and the located error for an operator on a dtype it is not defined on.

use crate::diag::Code;
use crate::ir::{BinaryOp, Constant, DType, OpKind, ScalarType, SourceLoc, TensorType, Value};
use crate::trace::Builder;

impl Builder {
    /// The located error for `op` on `dtype` (which `BinaryOp::accepts` refuses), with
    /// what to do instead.
    pub(crate) fn operator_dtype_error(&mut self, op: BinaryOp, dtype: DType, loc: SourceLoc) {
        let help = match op {
            BinaryOp::Shl | BinaryOp::Shr => {
                "shift integers: convert with .to::<i32>() (or bitcast a float's bits first)"
            }
            BinaryOp::Div | BinaryOp::Rem => "convert the i1 operands with .to::<i32>() first",
            BinaryOp::FDiv => "use fdiv on floats, or `/` on ints",
            BinaryOp::UMulHi => "use umulhi on i32, u32, i64 or u64 (convert other ints with .to::<u32>())",
            BinaryOp::And | BinaryOp::Or | BinaryOp::Xor => {
                "use it on ints or masks (bitcast a float's bits to an int first)"
            }
            // Every dtype but pointers takes these; pointers move by adding offsets.
            BinaryOp::Add | BinaryOp::Sub | BinaryOp::Mul | BinaryOp::Max(_) | BinaryOp::Min(_) => {
                "add integer offsets to pointers"
            }
        };
        self.error_with(Code::TraceOperatorDtype, loc, format!("`{}` is not defined on {dtype}", op.name()), help);
    }

    /// `!x`: logical not on `i1`, bitwise not on ints (Triton's `~x`, which Triton builds
    /// the same way: `x ^ all-ones`). Floats are a located error.
    pub fn invert(&mut self, v: Value, loc: SourceLoc) -> Value {
        let dtype = self.dtype(v);
        let ones = match dtype.scalar() {
            Some(ScalarType::Bool) => Constant::Bool(true),
            Some(s) if s.is_int() => Constant::Int(-1),
            // floats and pointers have no bitwise not (a dtype, not an op kind)
            _ => {
                self.error_with(
                    Code::TraceOperatorDtype,
                    loc,
                    format!("`!` (Triton's `~`) is not defined on {dtype}"),
                    "use it on ints or masks (bitcast a float's bits to an int first)",
                );
                return v;
            }
        };
        let ones = self.constant_value(ones, dtype, Default::default(), loc);
        self.binary(BinaryOp::Xor, v, ones, loc)
    }

    /// `v`'s bits as `to` (Triton's `cast(x, to, bitcast=True)`): both dtypes must be
    /// non-pointer and of one bit width; anything else is a located error naming both
    /// dtypes and widths. A constant folds; the same dtype is `v` itself.
    pub fn bitcast(&mut self, v: Value, to: DType, loc: SourceLoc) -> Value {
        let ty = self.ty(v).clone();
        if ty.dtype == to {
            return v;
        }
        let (Some(from_s), Some(to_s)) = (ty.dtype.scalar(), to.scalar()) else {
            self.error_with(
                Code::TraceBitcastWidth,
                loc,
                format!("cannot bitcast {} to {to}: pointers are not bitcast", ty.dtype),
                "move pointers by adding integer offsets; bitcast the loaded values instead",
            );
            return v;
        };
        if from_s.bit_width() != to_s.bit_width() {
            self.error_with(
                Code::TraceBitcastWidth,
                loc,
                format!(
                    "cannot bitcast {from_s} ({} bits) to {to_s} ({} bits): a bitcast keeps every bit, so both types need one width",
                    from_s.bit_width(),
                    to_s.bit_width()
                ),
                format!("bitcast to a type of {} bits, or convert the value with .to::<{to_s}>()", from_s.bit_width()),
            );
            return v;
        }
        // Two ints of one width differ only in how they read the bits: the wrapping
        // conversion keeps every bit, and every back end has it.
        if from_s.is_int() && to_s.is_int() {
            return self.cast(v, to, loc, false);
        }
        // An i16 lives sign-extended in a 32-bit register, an f16 in a 16-bit one: no move
        // between them is lowered yet.
        if from_s.is_int() != to_s.is_int() && from_s.bit_width() == 16 {
            self.error_with(
                Code::TraceBitcastWidth,
                loc,
                format!("bitcast between {from_s} and {to_s} is not supported yet (the PTX back end holds an i16 sign-extended in 32 bits and an f16 or bf16 in 16)"),
                "keep the values in one of the two types, or bitcast between f16 and bf16, or between 32-bit types",
            );
            return v;
        }
        if let Some(c) = self.constant(v)
            && let Some(folded) = fold_bitcast(c, from_s, to_s)
        {
            return self.constant_value(folded, to, ty.shape, loc);
        }
        self.push1(OpKind::Bitcast { value: v }, TensorType::new(to, ty.shape), loc)
    }
}

/// A constant's bits as `to` (same width), `None` where the constant is not of `from`.
fn fold_bitcast(c: Constant, from: ScalarType, to: ScalarType) -> Option<Constant> {
    Some(match (c, from, to) {
        (Constant::F32(f), ScalarType::F32, ScalarType::I32) => Constant::Int(i64::from(f.to_bits() as i32)),
        (Constant::Int(i), ScalarType::I32, ScalarType::F32) => Constant::F32(f32::from_bits(i as u32)),
        // Other pairs have no other type of their width yet (a pair, not an op kind).
        _ => return None,
    })
}
