//! Conversions between element types (`OpKind::Cast`, `.to::<T>()`), one element at a
//! time. The interpreter's casts and the simulator's `cvt` both call [`convert`], so the
//! two agree bit for bit; the rules (and what the PTX back end emits for each) are in
//! `docs/semantics.md`, "Dtypes".
//!
//! - int to int: wraps to the target width (two's complement); widening sign-extends a
//!   signed source and zero-extends an unsigned one (C's and LLVM's rule).
//! - int to float: rounds to nearest even (`cvt.rn`).
//! - float to int: truncates toward zero, saturates at the *target* type's range, NaN
//!   gives 0 (`cvt.rzi`; measured for `s32` on an H200, the PTX ISA states it for every
//!   integer type).
//! - float to float: widening is exact; narrowing rounds to nearest even, overflows to
//!   infinity and keeps subnormals (`cvt.rn`).
//! - NaN through float conversions: widening keeps the sign and the payload and sets the
//!   quiet bit (`bf16 -> f32` is a plain shift of the bits, so it keeps them all);
//!   narrowing gives the target's canonical NaN (all exponent and mantissa bits set, sign
//!   clear: `0x7FFF` for f16 and bf16, `0x7FFF_FFFF` for f32).
//! - `f16`/`bf16` from or to anything but `f32` goes through `f32` (two conversions), as
//!   the front end emits it, so hand-built IR means the same thing.
//! - anything to `i1` is `!= 0` (NaN gives true); `i1` is 0 or 1.
//! - the fp8 types (`fp8e4nv`, `fp8e5`) convert to and from `f32` only, by
//!   `semantics/fp8.rs`'s rules (exact decoding; encoding rounds to nearest even and
//!   saturates); from or to anything else they go through `f32`, as 16-bit floats do
//!   (so an fp8 NaN becomes the canonical f16 or bf16 NaN).

use half::{bf16, f16};

use crate::ir::{Fp8Format, ScalarType};

use super::fp8::{decode_to_f32, encode_f32};

pub use super::nan::{CANONICAL_NAN16_BITS, CANONICAL_NAN64_BITS};

/// One element as a conversion reads it: integers of every width are exact in `i128`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Elem {
    Bool(bool),
    Int(i128),
    F16(f16),
    BF16(bf16),
    F32(f32),
    F64(f64),
    /// An fp8 code of the given format.
    Fp8(Fp8Format, u8),
}

/// Wraps `v` to the width of the integer type `to` and gives its value (sign-extended for
/// signed types, zero-extended for unsigned ones).
pub fn wrap_to(v: i128, to: ScalarType) -> i128 {
    let bits = to.int_bits().unwrap_or(64);
    let m = v & ((1i128 << bits) - 1);
    if to.is_signed_int() && m >= 1i128 << (bits - 1) { m - (1i128 << bits) } else { m }
}

/// `f32` to `f16`, round to nearest even; NaN gives the canonical NaN.
pub fn f32_to_f16(x: f32) -> f16 {
    if x.is_nan() { f16::from_bits(CANONICAL_NAN16_BITS) } else { f16::from_f32(x) }
}

/// `f32` to `bf16`, round to nearest even; NaN gives the canonical NaN.
pub fn f32_to_bf16(x: f32) -> bf16 {
    if x.is_nan() { bf16::from_bits(CANONICAL_NAN16_BITS) } else { bf16::from_f32(x) }
}

/// `f16` to `f32`: exact; a NaN keeps sign and payload and becomes quiet.
pub fn f16_to_f32(x: f16) -> f32 {
    x.to_f32()
}

/// `bf16` to `f32`: the 16 bits become the high half (exact, NaN bits included), the
/// portable lowering's `mov.b32 %f, {0, %h}`.
pub fn bf16_to_f32(x: bf16) -> f32 {
    f32::from_bits(u32::from(x.to_bits()) << 16)
}

/// `f32` to `f64`: exact; a NaN keeps sign and payload and becomes quiet.
pub fn f32_to_f64(x: f32) -> f64 {
    if x.is_nan() {
        let b = u64::from(x.to_bits());
        f64::from_bits((b >> 31) << 63 | 0x7FF8_0000_0000_0000 | (b & 0x003F_FFFF) << 29)
    } else {
        f64::from(x)
    }
}

/// `f64` to `f32`, round to nearest even; NaN gives the canonical NaN.
pub fn f64_to_f32(x: f64) -> f32 {
    if x.is_nan() { super::scalar::canonical_nan() } else { x as f32 }
}

/// A float to the integer type `to`: truncates toward zero, saturates at `to`'s range,
/// NaN gives 0.
fn float_to_int(x: f64, to: ScalarType) -> i128 {
    match to {
        ScalarType::I8 => i128::from(x as i8),
        ScalarType::I16 => i128::from(x as i16),
        ScalarType::I32 => i128::from(x as i32),
        ScalarType::I64 => i128::from(x as i64),
        ScalarType::U8 => i128::from(x as u8),
        ScalarType::U32 => i128::from(x as u32),
        ScalarType::U64 => i128::from(x as u64),
        ScalarType::Bool
        | ScalarType::F16
        | ScalarType::BF16
        | ScalarType::F32
        | ScalarType::F64
        | ScalarType::F8E4M3
        | ScalarType::F8E5M2 => 0,
    }
}

/// The fp8 code of an `f32` element (every other source went through f32 first).
fn fp8_from(x: Elem, format: Fp8Format) -> u8 {
    if let Elem::F32(f) = x { encode_f32(format, f) } else { 0 }
}

/// Converts one element to `to` (the rules of the module doc).
pub fn convert(x: Elem, to: ScalarType) -> Elem {
    // fp8 converts through f32 from and to everything but f32, as f16 and bf16 do.
    let fp8_through_f32 = match (x, to) {
        (Elem::Fp8(..), ScalarType::F32) | (Elem::F32(_), ScalarType::F8E4M3 | ScalarType::F8E5M2) => false,
        (Elem::Fp8(..), _) | (_, ScalarType::F8E4M3 | ScalarType::F8E5M2) => true,
        // neither side is fp8 (element and type pairs, not an op kind)
        _ => false,
    };
    if fp8_through_f32 {
        return convert(convert(x, ScalarType::F32), to);
    }
    // f16 and bf16 convert through f32 from and to everything but f32.
    let through_f32 = match (x, to) {
        (Elem::F16(_) | Elem::BF16(_), ScalarType::F32) => false,
        (Elem::F16(_) | Elem::BF16(_), _) => true,
        (Elem::F32(_), ScalarType::F16 | ScalarType::BF16) => false,
        (_, ScalarType::F16 | ScalarType::BF16) => true,
        // neither side is a 16-bit float (element and type pairs, not an op kind)
        _ => false,
    };
    if through_f32 {
        return convert(convert(x, ScalarType::F32), to);
    }
    match to {
        ScalarType::Bool => Elem::Bool(match x {
            Elem::Bool(b) => b,
            Elem::Int(i) => i != 0,
            Elem::F16(f) => f.to_f32() != 0.0,
            Elem::BF16(f) => f.to_f32() != 0.0,
            Elem::F32(f) => f != 0.0,
            Elem::F64(f) => f != 0.0,
            // fp8 went through f32 above
            Elem::Fp8(..) => false,
        }),
        t if t.is_int() => Elem::Int(match x {
            Elem::Bool(b) => i128::from(b),
            Elem::Int(i) => wrap_to(i, t),
            Elem::F32(f) => float_to_int(f64::from(f), t),
            Elem::F64(f) => float_to_int(f, t),
            // 16-bit floats and fp8 went through f32 above
            Elem::F16(_) | Elem::BF16(_) | Elem::Fp8(..) => 0,
        }),
        ScalarType::F32 => Elem::F32(match x {
            Elem::Bool(b) => f32::from(u8::from(b)),
            Elem::Int(i) => i as f32,
            Elem::F16(f) => f16_to_f32(f),
            Elem::BF16(f) => bf16_to_f32(f),
            Elem::F32(f) => f,
            Elem::F64(f) => f64_to_f32(f),
            Elem::Fp8(format, code) => decode_to_f32(format, code),
        }),
        ScalarType::F64 => Elem::F64(match x {
            Elem::Bool(b) => f64::from(u8::from(b)),
            Elem::Int(i) => i as f64,
            Elem::F32(f) => f32_to_f64(f),
            Elem::F64(f) => f,
            // 16-bit floats and fp8 went through f32 above
            Elem::F16(_) | Elem::BF16(_) | Elem::Fp8(..) => 0.0,
        }),
        ScalarType::F16 => Elem::F16(match x {
            Elem::F32(f) => f32_to_f16(f),
            // every other source went through f32 above
            _ => f16::ZERO,
        }),
        ScalarType::BF16 => Elem::BF16(match x {
            Elem::F32(f) => f32_to_bf16(f),
            // every other source went through f32 above
            _ => bf16::ZERO,
        }),
        ScalarType::F8E4M3 => Elem::Fp8(Fp8Format::E4M3, fp8_from(x, Fp8Format::E4M3)),
        ScalarType::F8E5M2 => Elem::Fp8(Fp8Format::E5M2, fp8_from(x, Fp8Format::E5M2)),
        // the integer types are the guarded arm above
        ScalarType::I8
        | ScalarType::I16
        | ScalarType::I32
        | ScalarType::I64
        | ScalarType::U8
        | ScalarType::U32
        | ScalarType::U64 => Elem::Int(0),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn f(x: Elem, to: ScalarType) -> Elem {
        convert(x, to)
    }

    #[test]
    fn ints_wrap_and_extend_by_the_source_signedness() {
        assert_eq!(f(Elem::Int(300), ScalarType::U8), Elem::Int(44));
        assert_eq!(f(Elem::Int(-1), ScalarType::U8), Elem::Int(255));
        assert_eq!(f(Elem::Int(255), ScalarType::I8), Elem::Int(-1));
        assert_eq!(f(Elem::Int(-1), ScalarType::U64), Elem::Int(u64::MAX.into()));
        assert_eq!(f(Elem::Int(1 << 40), ScalarType::U32), Elem::Int(0));
        assert_eq!(f(Elem::Int(0x8000), ScalarType::I16), Elem::Int(-0x8000));
    }

    #[test]
    fn floats_to_ints_truncate_saturate_at_the_target_and_map_nan_to_zero() {
        assert_eq!(f(Elem::F32(300.7), ScalarType::U8), Elem::Int(255));
        assert_eq!(f(Elem::F32(-3.9), ScalarType::U32), Elem::Int(0));
        assert_eq!(f(Elem::F32(-3.9), ScalarType::I8), Elem::Int(-3));
        assert_eq!(f(Elem::F32(-1e10), ScalarType::I16), Elem::Int(i16::MIN.into()));
        assert_eq!(f(Elem::F64(f64::NAN), ScalarType::U64), Elem::Int(0));
        assert_eq!(f(Elem::F64(1e30), ScalarType::U64), Elem::Int(u64::MAX.into()));
        assert_eq!(f(Elem::F16(f16::from_f32(-2.5)), ScalarType::I32), Elem::Int(-2));
    }

    #[test]
    fn narrowing_floats_round_to_nearest_even_and_canonicalize_nan() {
        // 1 + 2^-11 is a tie between 1 and 1 + 2^-10 in f16: even is 1.
        assert_eq!(f(Elem::F32(1.0 + 2f32.powi(-11)), ScalarType::F16), Elem::F16(f16::ONE));
        // 1 + 3 * 2^-11 ties up to 1 + 2^-9.
        let up = f16::from_bits(0x3C02);
        assert_eq!(f(Elem::F32(1.0 + 3.0 * 2f32.powi(-11)), ScalarType::F16), Elem::F16(up));
        // bf16: 1 + 2^-8 is a tie, even is 1.
        assert_eq!(f(Elem::F32(1.0 + 2f32.powi(-8)), ScalarType::BF16), Elem::BF16(bf16::ONE));
        assert_eq!(f(Elem::F32(65520.0), ScalarType::F16), Elem::F16(f16::INFINITY));
        assert_eq!(f(Elem::F32(2f32.powi(-24)), ScalarType::F16), Elem::F16(f16::from_bits(1)));
        let nan = Elem::F32(f32::from_bits(0xFFC0_1234));
        let Elem::F16(h) = f(nan, ScalarType::F16) else { panic!() };
        assert_eq!(h.to_bits(), 0x7FFF);
        let Elem::BF16(h) = f(nan, ScalarType::BF16) else { panic!() };
        assert_eq!(h.to_bits(), 0x7FFF);
        let Elem::F32(x) = f(Elem::F64(f64::NAN), ScalarType::F32) else { panic!() };
        assert_eq!(x.to_bits(), 0x7FFF_FFFF);
    }

    #[test]
    fn widening_floats_are_exact_and_keep_nan_payloads() {
        let Elem::F32(x) = f(Elem::BF16(bf16::from_bits(0xFF81)), ScalarType::F32) else { panic!() };
        assert_eq!(x.to_bits(), 0xFF81_0000);
        let Elem::F32(x) = f(Elem::F16(f16::from_bits(0x0001)), ScalarType::F32) else { panic!() };
        assert_eq!(x, 2f32.powi(-24));
        let Elem::F64(x) = f(Elem::F32(f32::from_bits(0x7F80_0001)), ScalarType::F64) else { panic!() };
        assert_eq!(x.to_bits(), 0x7FF8_0000_2000_0000);
        // f16 to bf16 goes through f32: one rounding.
        let Elem::BF16(x) = f(Elem::F16(f16::from_f32(1.0 + 2f32.powi(-10))), ScalarType::BF16) else { panic!() };
        assert_eq!(x, bf16::ONE);
    }

    #[test]
    fn ints_to_floats_round_to_nearest_even() {
        assert_eq!(f(Elem::Int(16_777_217), ScalarType::F32), Elem::F32(16_777_216.0));
        assert_eq!(f(Elem::Int(u64::MAX.into()), ScalarType::F32), Elem::F32(18_446_744_073_709_551_616.0));
        assert_eq!(f(Elem::Int(2049), ScalarType::F16), Elem::F16(f16::from_f32(2048.0)));
        assert_eq!(f(Elem::Int(-128), ScalarType::F64), Elem::F64(-128.0));
    }
}

/// `x` rounded to tf32 (PTX `cvt.rna.tf32.f32`): the f32 with the low 13 mantissa bits
/// cleared, rounded to nearest with ties away from zero (adding half of the dropped unit to
/// the magnitude, then truncating). A value past the largest tf32 rounds to infinity;
/// infinities are kept; a NaN gives the canonical NaN. `dot` with `input_precision`
/// `tf32` rounds both operands with it (`docs/semantics.md`, "dot").
pub fn f32_to_tf32_rna(x: f32) -> f32 {
    if x.is_nan() {
        return super::nan::canonical_nan();
    }
    if x.is_infinite() {
        return x;
    }
    f32::from_bits((x.to_bits() + 0x1000) & !0x1FFF)
}

#[cfg(test)]
mod tf32_tests {
    use super::f32_to_tf32_rna;

    #[test]
    fn tf32_rounds_to_nearest_with_ties_away_from_zero() {
        let ulp = 2f32.powi(-10);
        assert_eq!(f32_to_tf32_rna(1.0 + 2f32.powi(-12)), 1.0);
        // A tie (half a tf32 ulp) goes away from zero, on both signs.
        assert_eq!(f32_to_tf32_rna(1.0 + ulp / 2.0), 1.0 + ulp);
        assert_eq!(f32_to_tf32_rna(-(1.0 + ulp / 2.0)), -(1.0 + ulp));
        assert_eq!(f32_to_tf32_rna(1.0 + ulp / 2.0 - 2f32.powi(-23)), 1.0);
        assert_eq!(f32_to_tf32_rna(f32::MAX), f32::INFINITY);
        assert_eq!(f32_to_tf32_rna(f32::NEG_INFINITY), f32::NEG_INFINITY);
        assert_eq!(f32_to_tf32_rna(f32::NAN).to_bits(), 0x7FFF_FFFF);
        assert_eq!(f32_to_tf32_rna(-0.0).to_bits(), (-0.0f32).to_bits());
        // Subnormals keep their top 10 mantissa bits too.
        assert_eq!(f32_to_tf32_rna(f32::from_bits(0x0000_1000)).to_bits(), 0x0000_2000);
        assert_eq!(f32_to_tf32_rna(f32::from_bits(0x0000_0FFF)).to_bits(), 0);
    }
}
