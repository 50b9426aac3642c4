//! Fills with the values kernels get wrong: NaN with payloads and either sign, infinities,
//! signed zeros, subnormals, the extremes, and ties (equal values an argmax or a max must
//! break the same way on every back end), for every float dtype; and ramps.

use half::{bf16, f16};

use crate::element::Element;

/// The special `f32` values, each with why it is there.
pub const SPECIAL_F32: [f32; 14] = [
    f32::NAN,
    // A NaN with a payload and the sign bit set: back ends must not canonicalize a NaN
    // they only move.
    f32::from_bits(0xFFC0_1234),
    f32::from_bits(0x7F80_0001), // a signalling NaN
    f32::INFINITY,
    f32::NEG_INFINITY,
    0.0,
    -0.0,
    f32::from_bits(1),            // the smallest subnormal
    -f32::from_bits(0x007F_FFFF), // the largest negative subnormal
    f32::MIN_POSITIVE,
    f32::MAX,
    f32::MIN,
    1.5, // ties: appears twice so reductions meet equal values
    1.5,
];

/// The special `f16` values, as [`SPECIAL_F32`] in f16: NaN, a NaN with a payload and
/// the sign bit, a signalling NaN, the infinities, signed zeros, the smallest subnormal
/// and the largest negative one, the smallest normal, the extremes and a tie.
pub const SPECIAL_F16: [f16; 14] = [
    f16::NAN,
    f16::from_bits(0xFE12),
    f16::from_bits(0x7C01), // a signalling NaN
    f16::INFINITY,
    f16::NEG_INFINITY,
    f16::ZERO,
    f16::NEG_ZERO,
    f16::from_bits(0x0001), // the smallest subnormal
    f16::from_bits(0x83FF), // the largest negative subnormal
    f16::MIN_POSITIVE,
    f16::MAX,
    f16::MIN,
    f16::from_bits(0x3E00), // 1.5, twice: a tie
    f16::from_bits(0x3E00),
];

/// The special `bf16` values, as [`SPECIAL_F32`] in bf16.
pub const SPECIAL_BF16: [bf16; 14] = [
    bf16::NAN,
    bf16::from_bits(0xFFC1),
    bf16::from_bits(0x7F81), // a signalling NaN
    bf16::INFINITY,
    bf16::NEG_INFINITY,
    bf16::ZERO,
    bf16::NEG_ZERO,
    bf16::from_bits(0x0001), // the smallest subnormal
    bf16::from_bits(0x807F), // the largest negative subnormal
    bf16::MIN_POSITIVE,
    bf16::MAX,
    bf16::MIN,
    bf16::from_bits(0x3FC0), // 1.5, twice: a tie
    bf16::from_bits(0x3FC0),
];

/// The special `f64` values, as [`SPECIAL_F32`] in f64.
pub const SPECIAL_F64: [f64; 14] = [
    f64::NAN,
    f64::from_bits(0xFFF8_0000_0000_1234),
    f64::from_bits(0x7FF0_0000_0000_0001), // a signalling NaN
    f64::INFINITY,
    f64::NEG_INFINITY,
    0.0,
    -0.0,
    f64::from_bits(1),                      // the smallest subnormal
    -f64::from_bits(0x000F_FFFF_FFFF_FFFF), // the largest negative subnormal
    f64::MIN_POSITIVE,
    f64::MAX,
    f64::MIN,
    1.5,
    1.5,
];

/// The special `i32` values: the extremes, around zero, and a tie.
pub const SPECIAL_I32: [i32; 7] = [i32::MIN, i32::MIN + 1, -1, 0, 1, i32::MAX, i32::MAX];

/// The special `i64` values.
pub const SPECIAL_I64: [i64; 7] = [i64::MIN, i64::MIN + 1, -1, 0, 1, i64::MAX, i64::MAX];

/// `n` floats counting up from `start` in steps of `step` (distinct, exact, easy to read
/// in a report).
pub fn ramp_f32(n: usize, start: f32, step: f32) -> Vec<f32> {
    (0..n).map(|i| start + i as f32 * step).collect()
}

/// `n` floats that cycle through [`SPECIAL_F32`] mixed with ordinary values, so every
/// special value meets ordinary neighbours at every lane position.
pub fn special_f32(n: usize) -> Vec<f32> {
    (0..n)
        .map(|i| if i % 3 == 2 { i as f32 * 0.25 - 7.0 } else { SPECIAL_F32[(i / 3 * 2 + i % 3) % SPECIAL_F32.len()] })
        .collect()
}

/// `n` values of a float dtype counting up from `start` in steps of `step`, each computed
/// in `f64` and rounded once to `T` (distinct while the steps stay above `T`'s ULP).
pub fn ramp<T: Element>(n: usize, start: f64, step: f64) -> Vec<T> {
    (0..n).map(|i| T::round_from_f64(start + i as f64 * step).expect("a float dtype takes every f64")).collect()
}

/// [`ramp`] in f16.
pub fn ramp_f16(n: usize, start: f64, step: f64) -> Vec<f16> {
    ramp(n, start, step)
}

/// [`ramp`] in bf16.
pub fn ramp_bf16(n: usize, start: f64, step: f64) -> Vec<bf16> {
    ramp(n, start, step)
}

/// [`ramp`] in f64.
pub fn ramp_f64(n: usize, start: f64, step: f64) -> Vec<f64> {
    ramp(n, start, step)
}

/// `n` floats of `T` cycling through `specials` mixed with ordinary values, in the
/// pattern of [`special_f32`] (the ordinary values rounded to `T`).
fn cycle_specials<T: Element>(n: usize, specials: &[T]) -> Vec<T> {
    (0..n)
        .map(|i| {
            if i % 3 == 2 {
                T::round_from_f64(i as f64 * 0.25 - 7.0).expect("a float dtype takes every f64")
            } else {
                specials[(i / 3 * 2 + i % 3) % specials.len()]
            }
        })
        .collect()
}

/// `n` f16 values cycling through [`SPECIAL_F16`] mixed with ordinary values.
pub fn special_f16(n: usize) -> Vec<f16> {
    cycle_specials(n, &SPECIAL_F16)
}

/// `n` bf16 values cycling through [`SPECIAL_BF16`] mixed with ordinary values.
pub fn special_bf16(n: usize) -> Vec<bf16> {
    cycle_specials(n, &SPECIAL_BF16)
}

/// `n` f64 values cycling through [`SPECIAL_F64`] mixed with ordinary values.
pub fn special_f64(n: usize) -> Vec<f64> {
    cycle_specials(n, &SPECIAL_F64)
}

/// The special values of an integer dtype, as bit patterns: for a signed type its
/// minimum and the one above, -1, 0, 1 and its maximum twice (a tie); for an unsigned one
/// 0, 1, its maximum twice, the top bit alone and the value below it (where a signed
/// reading would flip), and one below the maximum.
fn special_int_bits(width: u32, signed: bool) -> Vec<u64> {
    let all = if width == 64 { u64::MAX } else { (1 << width) - 1 };
    let top = 1u64 << (width - 1);
    if signed { vec![top, top + 1, all, 0, 1, top - 1, top - 1] } else { vec![0, 1, all, all, top, top - 1, all - 1] }
}

/// `n` values of any dtype mixing its special values with ordinary ones: for the float
/// dtypes as [`special_f16`] ... (NaNs, infinities, signed zeros, subnormals, extremes,
/// a tie), for the integer dtypes their extremes, 0, 1 and all ones, every other element
/// an ordinary `i - 50` (wrapped to the type).
pub fn special<T: Element>(n: usize) -> Vec<T> {
    use rtriton::ir::ScalarType;
    let floats = |s: &[u64]| cycle_specials(n, &s.iter().map(|&b| T::from_bits64(b)).collect::<Vec<T>>());
    match T::SCALAR {
        ScalarType::F16 => floats(&SPECIAL_F16.map(Element::bits)),
        ScalarType::BF16 => floats(&SPECIAL_BF16.map(Element::bits)),
        ScalarType::F32 => floats(&SPECIAL_F32.map(Element::bits)),
        ScalarType::F64 => floats(&SPECIAL_F64.map(Element::bits)),
        ScalarType::I8
        | ScalarType::I16
        | ScalarType::I32
        | ScalarType::I64
        | ScalarType::U8
        | ScalarType::U32
        | ScalarType::U64 => {
            let specials = special_int_bits(T::SCALAR.size_bytes() as u32 * 8, T::SCALAR.is_signed_int());
            (0..n)
                .map(|i| {
                    let bits =
                        if i % 2 == 1 { (i as u64).wrapping_sub(50) } else { specials[(i / 2) % specials.len()] };
                    T::from_bits64(bits)
                })
                .collect()
        }
        // No buffer holds i1 or fp8 (`Element` is not implemented for them).
        ScalarType::Bool | ScalarType::F8E4M3 | ScalarType::F8E5M2 => Vec::new(),
    }
}

/// `n` integers cycling through [`SPECIAL_I32`] mixed with ordinary values.
pub fn special_i32(n: usize) -> Vec<i32> {
    (0..n).map(|i| if i % 2 == 1 { i as i32 - 50 } else { SPECIAL_I32[(i / 2) % SPECIAL_I32.len()] }).collect()
}

/// `n` integers cycling through [`SPECIAL_I64`] mixed with ordinary values.
pub fn special_i64(n: usize) -> Vec<i64> {
    (0..n).map(|i| if i % 2 == 1 { i as i64 - 50 } else { SPECIAL_I64[(i / 2) % SPECIAL_I64.len()] }).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn special_fills_hold_every_special_value() {
        let f = special_f32(64);
        for s in SPECIAL_F32 {
            assert!(f.iter().any(|v| v.bits() == s.bits()), "{s:?} (0x{:08X}) missing", s.to_bits());
        }
        let i = special_i32(32);
        assert!(SPECIAL_I32.iter().all(|s| i.contains(s)));
        let l = special_i64(32);
        assert!(SPECIAL_I64.iter().all(|s| l.contains(s)));
        holds_every_special(&special_f16(64), &SPECIAL_F16);
        holds_every_special(&special_bf16(64), &SPECIAL_BF16);
        holds_every_special(&special_f64(64), &SPECIAL_F64);
        // The generic fill: the same floats, and each integer type's extremes.
        holds_every_special(&special::<f16>(64), &SPECIAL_F16);
        holds_every_special(&special::<f32>(64), &SPECIAL_F32);
        holds_every_special(&special::<i8>(32), &[i8::MIN, i8::MIN + 1, -1, 0, 1, i8::MAX]);
        holds_every_special(&special::<i16>(32), &[i16::MIN, -1, i16::MAX]);
        holds_every_special(&special::<u8>(32), &[0, 1, 0x80, 0x7F, 0xFE, u8::MAX]);
        holds_every_special(&special::<u32>(32), &[0, 1, 1 << 31, u32::MAX]);
        holds_every_special(&special::<u64>(32), &[0, 1, 1 << 63, u64::MAX]);
        holds_every_special(&special::<i64>(32), &SPECIAL_I64);
    }

    fn holds_every_special<T: Element>(fill: &[T], specials: &[T]) {
        for s in specials {
            assert!(fill.iter().any(|v| v.bits() == s.bits()), "{} missing", s.describe());
        }
    }

    /// Each dtype's specials are what their comments say, read back through the dtype's
    /// own format (so a wrong bit pattern cannot hide behind a constant's name).
    #[test]
    fn special_values_are_the_named_values_of_each_dtype() {
        use crate::float::Float;
        for (format, bits) in [
            (Float::F16, SPECIAL_F16.map(Element::bits)),
            (Float::BF16, SPECIAL_BF16.map(Element::bits)),
            (Float::F32, SPECIAL_F32.map(Element::bits)),
            (Float::F64, SPECIAL_F64.map(Element::bits)),
        ] {
            let value = |i: usize| format.to_f64(bits[i]);
            assert!((0..3).all(|i| format.is_nan(bits[i])), "{format:?}: three NaNs first");
            assert_ne!(bits[0], bits[1], "{format:?}: the second NaN has its own payload and sign");
            assert!(value(1).is_sign_negative(), "{format:?}");
            assert_eq!((value(3), value(4)), (f64::INFINITY, f64::NEG_INFINITY), "{format:?}");
            assert!(value(5) == 0.0 && value(5).is_sign_positive() && value(6) == 0.0 && value(6).is_sign_negative());
            let min_normal = 2f64.powi(format.min_exponent());
            let smallest = min_normal * 2f64.powi(-(format.mantissa_bits() as i32));
            assert_eq!(value(7), smallest, "{format:?}: the smallest subnormal");
            assert_eq!(value(8), -(min_normal - smallest), "{format:?}: the largest negative subnormal");
            assert_eq!(value(9), min_normal, "{format:?}");
            assert_eq!(format.ulp_distance(bits[10], format.round_from_f64(f64::INFINITY)), Some(1), "{format:?}: max");
            assert_eq!(value(11), -value(10), "{format:?}");
            assert_eq!((value(12), value(13)), (1.5, 1.5), "{format:?}");
        }
    }

    #[test]
    fn ramps_round_each_step_once_to_the_dtype() {
        assert_eq!(ramp_f16(3, -1.0, 0.5), [-1.0, -0.5, 0.0].map(f16::from_f32));
        assert_eq!(ramp_bf16(2, 1.0, 1.0 / 256.0), [1.0, 1.0].map(bf16::from_f32), "1 + 2^-8 ties to even 1.0");
        assert_eq!(ramp_f64(2, 0.1, 0.2), [0.1, 0.1 + 0.2]);
    }
}
