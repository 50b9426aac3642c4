//! Conversions between register types (`OpKind::Cast`) that involve the dtypes added with
//! the dtype table (`u32`, `u64`, `f64`, `f16`, `bf16`, `i8`, `u8`, `i16`); the pairs of the
//! original four types stay in `elementwise.rs`'s `cast`, so their PTX does not change. The
//! rules are `crate::semantics::convert`'s, which the simulator runs for every `Cvt`.

use super::Lowerer;
use crate::backend::ptx::lir::{Cmp, Inst, Operand, Ty};
use crate::semantics::convert::wrap_to;

/// A 32-bit integer register class (`%r`): the narrow types live extended in one.
fn is_int32(t: Ty) -> bool {
    matches!(t, Ty::I32 | Ty::U32 | Ty::S8 | Ty::U8 | Ty::S16)
}

fn is_int64(t: Ty) -> bool {
    matches!(t, Ty::I64 | Ty::U64)
}

fn is_narrow(t: Ty) -> bool {
    matches!(t, Ty::S8 | Ty::U8 | Ty::S16)
}

fn is_half(t: Ty) -> bool {
    matches!(t, Ty::F16 | Ty::BF16)
}

impl Lowerer<'_> {
    /// `x` of register type `from` converted to `to` (at least one of them a newer type).
    pub(super) fn convert(&mut self, x: Operand, from: Ty, to: Ty) -> Operand {
        if from == to {
            return x;
        }
        // 16-bit floats convert to and from f32 only; everything else goes through it.
        if (is_half(from) && to != Ty::F32) || (is_half(to) && from != Ty::F32) {
            let mid = self.convert(x, from, Ty::F32);
            return self.convert(mid, Ty::F32, to);
        }
        match (from, to) {
            (Ty::Pred, _) => {
                let c = self.reg(x, Ty::Pred);
                let dst = self.new_reg(to);
                let (one, zero) = match to {
                    Ty::F64 => (Operand::F64(1.0), Operand::F64(0.0)),
                    // ints take 1 and 0 (register types, not an op kind)
                    _ => (Operand::Int(1), Operand::Int(0)),
                };
                self.emit(Inst::Selp { ty: to, dst, a: one, b: zero, cond: c });
                dst.into()
            }
            (_, Ty::Pred) => {
                let zero = if from == Ty::F64 { Operand::F64(0.0) } else { Operand::Int(0) };
                Operand::Reg(self.setp(Cmp::Ne, from, x, zero))
            }
            (Ty::BF16, Ty::F32) => {
                // The bits into the high half of a 32-bit register: exact (sm_80 has no
                // `cvt.f32.bf16`).
                let hi = self.reg(x, Ty::BF16);
                let lo = self.new_reg(Ty::BF16);
                self.emit(Inst::Mov { ty: Ty::BF16, dst: lo, src: Operand::Int(0) });
                let dst = self.new_reg(Ty::F32);
                self.emit(Inst::Pack { dst, lo, hi });
                dst.into()
            }
            (f, t) if (is_int32(f) || is_int64(f)) && (is_int32(t) || is_int64(t)) => self.int_to_int(x, f, t),
            // int and float, float and float: one cvt (register types, not an op kind)
            _ => self.cvt(x, from, to),
        }
    }

    /// One `cvt`, plus the NaN rule where the GPU does not keep it by itself: the rules
    /// say a NaN converts to integer 0, which `cvt.rzi` gives for f32 to a 32-bit or
    /// narrower int, but measured on the H200 it gives the target's minimum for an f64
    /// source and for a 64-bit target (`0x8000...`; the H200 record of 2026-12-03 at `e02f4e1`).
    /// There a `setp.eq` of the source with itself (false only for NaN) selects 0.
    pub(super) fn cvt(&mut self, x: Operand, from: Ty, to: Ty) -> Operand {
        let src = self.reg(x, from);
        let dst = self.new_reg(to);
        self.emit(Inst::Cvt { dst, to, src, from });
        if (from, to) == (Ty::I32, Ty::I64) {
            self.sign_extended.insert(dst, src);
        }
        let float_to_int = from.scalar().is_float() && to.scalar().is_int();
        if float_to_int && (from == Ty::F64 || is_int64(to)) {
            let not_nan = self.setp(Cmp::Eq, from, src.into(), src.into());
            let out = self.new_reg(to);
            self.emit(Inst::Selp { ty: to, dst: out, a: dst.into(), b: Operand::Int(0), cond: not_nan });
            return out.into();
        }
        dst.into()
    }

    /// Integers: the register already holds the value extended by its own signedness, so
    /// a 32-bit class to a 32-bit int (`i8 -> u32`, `i32 -> u32`) keeps the bits; a
    /// narrow target wraps (`cvt.s32.s8`); 32 to 64 bits extends by the source's
    /// signedness; 64 to 32 bits keeps the low half.
    fn int_to_int(&mut self, x: Operand, from: Ty, to: Ty) -> Operand {
        if let Operand::Int(c) = x {
            return Operand::Int(wrap_to(i128::from(wrap_to(i128::from(c), from.scalar()) as i64), to.scalar()) as i64);
        }
        if is_narrow(to) {
            let x32 = if is_int64(from) { self.cvt(x, from, Ty::U32) } else { x };
            let from32 = if is_int64(from) { Ty::U32 } else { from };
            return self.cvt(x32, from32, to);
        }
        match (is_int64(from), is_int64(to)) {
            // same width: the same bits (a register of the other signedness reads them)
            (false, false) | (true, true) => x,
            // widening or narrowing between 32 and 64 bits (register classes, not an op kind)
            _ => self.cvt(x, from, to),
        }
    }
}
