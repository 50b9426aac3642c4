//! The Rust element types a buffer holds, one per dtype the language loads and stores:
//! `half::f16`, `half::bf16`, `f32`, `f64`, `i8`, `i16`, `i32`, `i64`, `u8`, `u32`, `u64`.
//! Each knows its dtype (through the runtime's [`DeviceElement`], so a buffer of it goes
//! to the GPU as it is), its bits, and its value as `f64` both ways, which is what lets a
//! reference be written once in `f64` for every dtype.

use std::fmt;

use rtriton::ir::ScalarType;
use rtriton_runtime::driver::Element as DeviceElement;

use crate::data::Data;
use crate::float::Float;

/// An element type of [`Data`].
pub trait Element: DeviceElement + fmt::Debug + PartialEq + Send + Sync + 'static {
    /// The element's bit pattern, zero-extended.
    fn bits(self) -> u64;
    /// The element with bit pattern `bits` (the low `size` bytes).
    fn from_bits64(bits: u64) -> Self;
    /// A buffer of these elements.
    fn wrap(v: Vec<Self>) -> Data;
    /// The elements of `data` if it holds this type.
    fn slice(data: &Data) -> Option<&[Self]>;
    fn slice_mut(data: &mut Data) -> Option<&mut [Self]>;

    /// As a person reads it, with its bit pattern: `1.5 (0x3E00)`, `-1 (0xFFFFFFFF)`.
    fn describe(self) -> String {
        let digits = Self::SCALAR.size_bytes() as usize * 2;
        format!("{self:?} (0x{:0digits$X})", self.bits())
    }

    /// The value as `f64`, `None` when it is not exact there (an integer past 2^53); a
    /// float is always exact (a NaN gives some NaN).
    fn to_f64_exact(self) -> Option<f64> {
        match Float::of(Self::SCALAR) {
            Some(format) => Some(format.to_f64(self.bits())),
            None => {
                let v = int_value(Self::SCALAR, self.bits());
                let f = v as f64;
                (f as i128 == v).then_some(f)
            }
        }
    }

    /// `v` as this type: a float rounds to nearest with ties to even (NaN gives the
    /// dtype's canonical NaN, see [`Float::round_from_f64`]); an integer must be a whole
    /// number in the type's range, else `None` (a reference that computes a fraction
    /// for an integer output has a bug the harness should not round away).
    fn round_from_f64(v: f64) -> Option<Self> {
        match Float::of(Self::SCALAR) {
            Some(format) => Some(Self::from_bits64(format.round_from_f64(v))),
            None => {
                let (lo, hi) = int_range(Self::SCALAR);
                let whole = v.is_finite() && v.fract() == 0.0 && v >= lo as f64 && v <= hi as f64;
                // `hi as f64` rounds up past `u64::MAX`/`i64::MAX`; the i128 check catches it.
                let i = v as i128;
                (whole && i >= lo && i <= hi).then(|| Self::from_bits64(i as u64))
            }
        }
    }
}

/// The value of an integer dtype's `bits` (sign-extended for signed types).
fn int_value(dtype: ScalarType, bits: u64) -> i128 {
    let width = dtype.size_bytes() as u32 * 8;
    let v = i128::from(bits);
    if dtype.is_signed_int() && v >= 1 << (width - 1) { v - (1 << width) } else { v }
}

/// The smallest and largest value of an integer dtype.
fn int_range(dtype: ScalarType) -> (i128, i128) {
    let width = dtype.size_bytes() as u32 * 8;
    if dtype.is_signed_int() { (-(1 << (width - 1)), (1 << (width - 1)) - 1) } else { (0, (1 << width) - 1) }
}

macro_rules! elements {
    ($($t:ty => $variant:ident, $to:expr, $from:expr;)*) => {$(
        impl Element for $t {
            fn bits(self) -> u64 {
                let to: fn($t) -> u64 = $to;
                to(self)
            }
            fn from_bits64(bits: u64) -> $t {
                let from: fn(u64) -> $t = $from;
                from(bits)
            }
            fn wrap(v: Vec<$t>) -> Data {
                Data::$variant(v)
            }
            fn slice(data: &Data) -> Option<&[$t]> {
                if let Data::$variant(v) = data { Some(v) } else { None }
            }
            fn slice_mut(data: &mut Data) -> Option<&mut [$t]> {
                if let Data::$variant(v) = data { Some(v) } else { None }
            }
        }
    )*};
}

elements! {
    half::f16 => F16, |v| u64::from(v.to_bits()), |b| half::f16::from_bits(b as u16);
    half::bf16 => BF16, |v| u64::from(v.to_bits()), |b| half::bf16::from_bits(b as u16);
    f32 => F32, |v| u64::from(v.to_bits()), |b| f32::from_bits(b as u32);
    f64 => F64, |v| v.to_bits(), f64::from_bits;
    i8 => I8, |v| u64::from(v as u8), |b| b as u8 as i8;
    i16 => I16, |v| u64::from(v as u16), |b| b as u16 as i16;
    i32 => I32, |v| u64::from(v as u32), |b| b as u32 as i32;
    i64 => I64, |v| v as u64, |b| b as i64;
    u8 => U8, u64::from, |b| b as u8;
    u32 => U32, u64::from, |b| b as u32;
    u64 => U64, |v| v, |b| b;
}

#[cfg(test)]
mod tests {
    use half::{bf16, f16};

    use super::*;

    #[test]
    fn bits_round_trip_and_describe_with_the_dtype_width() {
        assert_eq!(f16::from_f32(1.5).describe(), "1.5 (0x3E00)");
        assert_eq!(bf16::from_f32(-2.0).describe(), "-2.0 (0xC000)");
        assert_eq!((-1i8).describe(), "-1 (0xFF)");
        assert_eq!((-1i16).describe(), "-1 (0xFFFF)");
        assert_eq!(255u8.describe(), "255 (0xFF)");
        assert_eq!(u64::MAX.describe(), "18446744073709551615 (0xFFFFFFFFFFFFFFFF)");
        assert_eq!(1.0f64.describe(), "1.0 (0x3FF0000000000000)");
        assert_eq!(i16::from_bits64((-300i16).bits()), -300);
        assert_eq!(i8::MIN.bits(), 0x80);
    }

    #[test]
    fn f64_values_are_exact_or_refused() {
        assert_eq!(i8::MIN.to_f64_exact(), Some(-128.0));
        assert_eq!(u32::MAX.to_f64_exact(), Some(4_294_967_295.0));
        assert_eq!((1i64 << 60).to_f64_exact(), Some(2f64.powi(60)));
        assert_eq!(i64::MAX.to_f64_exact(), None);
        assert_eq!(u64::MAX.to_f64_exact(), None);
        assert_eq!(f16::from_bits(0x0001).to_f64_exact(), Some(2f64.powi(-24)));
        assert_eq!(i8::round_from_f64(-128.0), Some(-128));
        assert_eq!(i8::round_from_f64(128.0), None);
        assert_eq!(u8::round_from_f64(-1.0), None);
        assert_eq!(i32::round_from_f64(0.5), None);
        assert_eq!(u64::round_from_f64(2f64.powi(64)), None);
        assert_eq!(i64::round_from_f64(-(2f64.powi(63))), Some(i64::MIN));
        assert_eq!(i64::round_from_f64(2f64.powi(63)), None);
        assert_eq!(f16::round_from_f64(1.0 + 2f64.powi(-11) + 2f64.powi(-40)).map(Element::bits), Some(0x3C01));
        assert_eq!(f32::round_from_f64(f64::NAN).map(Element::bits), Some(0x7FFF_FFFF));
    }
}
