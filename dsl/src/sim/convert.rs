//! Register bits of every `lir` type as the interpreter's elements, and the `cvt` of
//! every pair of register types through `crate::semantics::convert::convert` (the function
//! the interpreter's casts call), so the simulator converts bit for bit as the
//! interpreter does.
//!
//! Register bits (see `decode.rs`): 32-bit registers zero-extended in a `u64` (an `S8` /
//! `S16` register holds its value sign-extended to 32 bits, a `U8` zero-extended), 64-bit
//! ones as they are, `F16`/`BF16` their 16 bits, `Pred` 0 or 1.

use half::{bf16, f16};

use super::decode::{BinFn, CvtFn};
use crate::backend::ptx::lir::Ty;
use crate::semantics::convert::{Elem, convert};
use crate::semantics::fp8::{Fp8Format, decode_to_f16_bits, encode_f32};

/// The element register bits `x` of type `ty` hold.
pub(crate) fn bits_to_elem(ty: Ty, x: u64) -> Elem {
    match ty {
        Ty::Pred => Elem::Bool(x != 0),
        Ty::I32 | Ty::S8 | Ty::S16 => Elem::Int(i128::from(x as u32 as i32)),
        Ty::U32 | Ty::U8 => Elem::Int(i128::from(x as u32)),
        Ty::I64 => Elem::Int(i128::from(x as i64)),
        Ty::U64 => Elem::Int(i128::from(x)),
        Ty::F32 => Elem::F32(f32::from_bits(x as u32)),
        Ty::F64 => Elem::F64(f64::from_bits(x)),
        Ty::F16 => Elem::F16(f16::from_bits(x as u16)),
        Ty::BF16 => Elem::BF16(bf16::from_bits(x as u16)),
    }
}

/// The register bits of element `e` (already of `ty`'s kind) in a register of type `ty`.
pub(crate) fn elem_to_bits(ty: Ty, e: Elem) -> u64 {
    match (ty, e) {
        (Ty::Pred, Elem::Bool(b)) => u64::from(b),
        (Ty::I32 | Ty::U32 | Ty::S8 | Ty::U8 | Ty::S16, Elem::Int(i)) => u64::from(i as u32),
        (Ty::I64 | Ty::U64, Elem::Int(i)) => i as u64,
        (Ty::F32, Elem::F32(f)) => u64::from(f.to_bits()),
        (Ty::F64, Elem::F64(f)) => f.to_bits(),
        (Ty::F16, Elem::F16(f)) => u64::from(f.to_bits()),
        (Ty::BF16, Elem::BF16(f)) => u64::from(f.to_bits()),
        // `convert` gives an element of the target's kind (a pair of data, not an op kind)
        _ => 0,
    }
}

/// Every register type, indexed by the const parameters of [`cvt_via`].
const TYS: [Ty; 12] =
    [Ty::Pred, Ty::I32, Ty::I64, Ty::F32, Ty::U32, Ty::U64, Ty::F64, Ty::F16, Ty::BF16, Ty::S8, Ty::U8, Ty::S16];

/// `cvt` from `TYS[F]` to `TYS[T]` as a plain function pointer (the decoded program binds
/// each instruction to one; see `decode.rs`).
fn cvt_via<const F: usize, const T: usize>(x: u64) -> u64 {
    let (from, to) = (TYS[F], TYS[T]);
    elem_to_bits(to, convert(bits_to_elem(from, x), to.scalar()))
}

macro_rules! cvt_row {
    ($f:literal) => {
        [
            cvt_via::<$f, 0>,
            cvt_via::<$f, 1>,
            cvt_via::<$f, 2>,
            cvt_via::<$f, 3>,
            cvt_via::<$f, 4>,
            cvt_via::<$f, 5>,
            cvt_via::<$f, 6>,
            cvt_via::<$f, 7>,
            cvt_via::<$f, 8>,
            cvt_via::<$f, 9>,
            cvt_via::<$f, 10>,
            cvt_via::<$f, 11>,
        ]
    };
}

const CVT: [[CvtFn; 12]; 12] = [
    cvt_row!(0),
    cvt_row!(1),
    cvt_row!(2),
    cvt_row!(3),
    cvt_row!(4),
    cvt_row!(5),
    cvt_row!(6),
    cvt_row!(7),
    cvt_row!(8),
    cvt_row!(9),
    cvt_row!(10),
    cvt_row!(11),
];

/// The conversion from `from` to `to` (values, with `convert`'s rules).
pub(crate) fn cvt_fn(from: Ty, to: Ty) -> CvtFn {
    let index = |t: Ty| TYS.iter().position(|x| *x == t).unwrap_or(0);
    CVT[index(from)][index(to)]
}

/// The widening a load applies to the bytes it read (zero-extended): an `S8`/`S16`
/// register holds its value sign-extended to 32 bits.
pub(crate) fn load_widen(ty: Ty) -> CvtFn {
    match ty {
        Ty::S8 => |x| u64::from(x as u8 as i8 as i32 as u32),
        Ty::S16 => |x| u64::from(x as u16 as i16 as i32 as u32),
        // the other types load their bits as they are (a register type, not an op kind)
        _ => |x| x,
    }
}

/// `cvt.rn.satfinite.{e4m3x2,e5m2x2}.f32` of two f32 register bits (`hi`, `lo`): the
/// codes of `semantics/fp8.rs`'s encoder, `hi`'s in the high byte.
pub(crate) fn fp8x2_encode_fn(format: Fp8Format) -> BinFn {
    fn pair<const E5M2: bool>(hi: u64, lo: u64) -> Option<u64> {
        let f = if E5M2 { Fp8Format::E5M2 } else { Fp8Format::E4M3 };
        let code = |x: u64| u64::from(encode_f32(f, f32::from_bits(x as u32)));
        Some(code(hi) << 8 | code(lo))
    }
    match format {
        Fp8Format::E4M3 => pair::<false>,
        Fp8Format::E5M2 => pair::<true>,
    }
}

/// `cvt.rn.f16x2.{e4m3x2,e5m2x2}` of a 16-bit register's bits: each byte decoded to f16 by
/// `semantics/fp8.rs`, the low byte's in the low half.
pub(crate) fn fp8x2_decode_fn(format: Fp8Format) -> CvtFn {
    fn pair<const E5M2: bool>(x: u64) -> u64 {
        let f = if E5M2 { Fp8Format::E5M2 } else { Fp8Format::E4M3 };
        let half = |code: u64| u64::from(decode_to_f16_bits(f, code as u8));
        half(x >> 8 & 0xFF) << 16 | half(x & 0xFF)
    }
    match format {
        Fp8Format::E4M3 => pair::<false>,
        Fp8Format::E5M2 => pair::<true>,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The pair instructions' byte and half order: `a` (`hi`) in the high byte, and the low
    /// byte's value in the low half.
    #[test]
    fn fp8_pairs_keep_ptx_order() {
        let (one, minus_two) = (u64::from(1.0f32.to_bits()), u64::from((-2.0f32).to_bits()));
        assert_eq!(fp8x2_encode_fn(Fp8Format::E4M3)(one, minus_two), Some(0x38C0));
        assert_eq!(fp8x2_encode_fn(Fp8Format::E5M2)(one, minus_two), Some(0x3CC0));
        assert_eq!(fp8x2_decode_fn(Fp8Format::E4M3)(0x38C0), 0x3C00_C000);
        assert_eq!(fp8x2_decode_fn(Fp8Format::E5M2)(0x3CC0), 0x3C00_C000);
    }

    #[test]
    fn narrow_registers_hold_extended_values() {
        assert_eq!(load_widen(Ty::S8)(0x80), 0xFFFF_FF80);
        assert_eq!(load_widen(Ty::U8)(0x80), 0x80);
        assert_eq!(load_widen(Ty::S16)(0x8000), 0xFFFF_8000);
        // i32 -1 to i8 is -1 (sign-extended bits); to u8 is 255.
        assert_eq!(cvt_fn(Ty::I32, Ty::S8)(0xFFFF_FFFF), 0xFFFF_FFFF);
        assert_eq!(cvt_fn(Ty::I32, Ty::U8)(0xFFFF_FFFF), 0xFF);
        assert_eq!(cvt_fn(Ty::S8, Ty::U64)(0xFFFF_FF80), (-128i64) as u64);
        assert_eq!(cvt_fn(Ty::U32, Ty::I64)(0xFFFF_FFFF), 0xFFFF_FFFF);
    }

    #[test]
    fn float_conversions_match_the_interpreter() {
        assert_eq!(cvt_fn(Ty::F32, Ty::F16)(u64::from(1.0f32.to_bits())), 0x3C00);
        assert_eq!(cvt_fn(Ty::F16, Ty::F32)(0x3C00), u64::from(1.0f32.to_bits()));
        assert_eq!(cvt_fn(Ty::F32, Ty::BF16)(u64::from(f32::NAN.to_bits())), 0x7FFF);
        assert_eq!(cvt_fn(Ty::F32, Ty::U8)(u64::from(300.0f32.to_bits())), 255);
        assert_eq!(cvt_fn(Ty::F64, Ty::F32)(1.5f64.to_bits()), u64::from(1.5f32.to_bits()));
    }
}
