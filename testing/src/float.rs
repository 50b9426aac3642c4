//! The float formats a buffer can hold (f16, bf16, f32, f64), read from their bits: the
//! NaN test, the exact value as `f64`, the order ULP distances count in, and rounding an
//! `f64` to the format (round to nearest, ties to even) for references written once in
//! `f64` for every dtype.
//!
//! Rounding is done here, on the bits, rather than with `half`'s `from_f64`: that one
//! drops the low 32 bits of the `f64` significand before rounding, so a value just above
//! a tie (`1 + 2^-11 + 2^-40` to f16) rounds down to the even neighbour instead of up.

use rtriton::ir::ScalarType;

/// An IEEE-style binary float format.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Float {
    F16,
    BF16,
    F32,
    F64,
}

impl Float {
    /// The format of `dtype`, `None` for the integer types, `i1` and fp8.
    pub fn of(dtype: ScalarType) -> Option<Float> {
        match dtype {
            ScalarType::F16 => Some(Float::F16),
            ScalarType::BF16 => Some(Float::BF16),
            ScalarType::F32 => Some(Float::F32),
            ScalarType::F64 => Some(Float::F64),
            ScalarType::Bool
            | ScalarType::I8
            | ScalarType::I16
            | ScalarType::I32
            | ScalarType::I64
            | ScalarType::U8
            | ScalarType::U32
            | ScalarType::U64
            // the fp8 formats have no harness buffers (`data.rs`)
            | ScalarType::F8E4M3
            | ScalarType::F8E5M2 => None,
        }
    }

    pub fn dtype(self) -> ScalarType {
        match self {
            Float::F16 => ScalarType::F16,
            Float::BF16 => ScalarType::BF16,
            Float::F32 => ScalarType::F32,
            Float::F64 => ScalarType::F64,
        }
    }

    /// Stored significand bits (the hidden bit not counted).
    pub fn mantissa_bits(self) -> u32 {
        match self {
            Float::F16 => 10,
            Float::BF16 => 7,
            Float::F32 => 23,
            Float::F64 => 52,
        }
    }

    pub fn exponent_bits(self) -> u32 {
        match self {
            Float::F16 => 5,
            Float::BF16 | Float::F32 => 8,
            Float::F64 => 11,
        }
    }

    /// Total width in bits.
    pub fn width(self) -> u32 {
        1 + self.exponent_bits() + self.mantissa_bits()
    }

    /// The precision `p`: significand bits with the hidden one.
    pub fn precision(self) -> u32 {
        self.mantissa_bits() + 1
    }

    fn bias(self) -> i32 {
        (1 << (self.exponent_bits() - 1)) - 1
    }

    /// The exponent of the smallest normal number (`2^emin`).
    pub fn min_exponent(self) -> i32 {
        1 - self.bias()
    }

    fn sign_bit(self) -> u64 {
        1 << (self.width() - 1)
    }

    fn exponent_mask(self) -> u64 {
        ((1u64 << self.exponent_bits()) - 1) << self.mantissa_bits()
    }

    fn mantissa_mask(self) -> u64 {
        (1u64 << self.mantissa_bits()) - 1
    }

    /// Whether `bits` (the low `width` bits) encode a NaN.
    pub fn is_nan(self, bits: u64) -> bool {
        bits & self.exponent_mask() == self.exponent_mask() && bits & self.mantissa_mask() != 0
    }

    /// The value `bits` encode, exactly (every f16, bf16 and f32 value is an f64 value);
    /// a NaN gives some NaN.
    pub fn to_f64(self, bits: u64) -> f64 {
        match self {
            Float::F16 => half::f16::from_bits(bits as u16).to_f64(),
            Float::BF16 => half::bf16::from_bits(bits as u16).to_f64(),
            Float::F32 => f64::from(f32::from_bits(bits as u32)),
            Float::F64 => f64::from_bits(bits),
        }
    }

    /// Where `bits` sit in the order of the format's values: consecutive values have
    /// consecutive keys, and `-0.0` and `+0.0` share key 0 (so they are 0 ULP apart and
    /// the smallest subnormals of either sign are 2 apart).
    fn order_key(self, bits: u64) -> i128 {
        let magnitude = i128::from(bits & !self.sign_bit());
        if bits & self.sign_bit() != 0 { -magnitude } else { magnitude }
    }

    /// Units in the last place of this format between two values (infinities count as
    /// the value after the largest finite one); `None` when either is NaN.
    pub fn ulp_distance(self, a: u64, b: u64) -> Option<u64> {
        if self.is_nan(a) || self.is_nan(b) {
            return None;
        }
        Some(self.order_key(a).abs_diff(self.order_key(b)) as u64)
    }

    /// `x` rounded to this format, to nearest with ties to even, as the format's bits:
    /// past the largest finite value it is an infinity, below the smallest subnormal it
    /// is a zero of `x`'s sign. A NaN gives the format's canonical NaN (all exponent and
    /// mantissa bits set, sign clear), which is what the language's narrowing conversions
    /// give (`docs/semantics.md`, "Dtypes").
    pub fn round_from_f64(self, x: f64) -> u64 {
        if x.is_nan() {
            return self.exponent_mask() | self.mantissa_mask();
        }
        let sign = if x.is_sign_negative() { self.sign_bit() } else { 0 };
        if x.is_infinite() {
            return sign | self.exponent_mask();
        }
        // |x| = m * 2^e with m an integer below 2^53.
        let bits = x.to_bits();
        let (biased, fraction) = ((bits >> 52) & 0x7FF, bits & ((1 << 52) - 1));
        let (m, e) = if biased == 0 { (fraction, -1074) } else { (fraction | 1 << 52, biased as i32 - 1075) };
        if m == 0 {
            return sign;
        }
        let p = self.precision() as i32;
        // The quantum (the weight of the last significand bit) of the result: set by |x|'s
        // own exponent, but never below the subnormals' quantum.
        let top = e + 63 - m.leading_zeros() as i32;
        let quantum = (top - (p - 1)).max(self.min_exponent() - (p - 1));
        let shift = quantum - e;
        let mut r = if shift <= 0 {
            // Only an f64 source in f64 gets here; the value is a multiple of the quantum.
            m << -shift
        } else if shift >= 64 {
            0
        } else {
            let kept = m >> shift;
            let rest = m & ((1u64 << shift) - 1);
            let half = 1u64 << (shift - 1);
            kept + u64::from(rest > half || (rest == half && kept & 1 == 1))
        };
        let mut quantum = quantum;
        if r == 1 << p {
            // Rounding carried into a new binade.
            r >>= 1;
            quantum += 1;
        }
        if r == 0 {
            return sign;
        }
        if r < 1 << (p - 1) {
            // A subnormal: exponent field 0, the significand as it is.
            return sign | r;
        }
        let field = quantum + (p - 1) + self.bias();
        if field >= (1 << self.exponent_bits()) - 1 {
            return sign | self.exponent_mask();
        }
        sign | (field as u64) << self.mantissa_bits() | (r & self.mantissa_mask())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `(format, input, expected bits)`: ties to even, a tie broken by a bit half's
    /// `from_f64` drops, carries into the next binade, overflow, subnormals, underflow
    /// to signed zero, NaN.
    #[test]
    fn rounding_from_f64_is_round_to_nearest_even() {
        let table: &[(Float, f64, u64)] = &[
            (Float::F16, 1.0, 0x3C00),
            (Float::F16, 1.0 + 2f64.powi(-11), 0x3C00), // tie: to even (1.0)
            (Float::F16, 1.0 + 3.0 * 2f64.powi(-11), 0x3C02), // tie: to even (1 + 2^-9)
            (Float::F16, 1.0 + 2f64.powi(-11) + 2f64.powi(-40), 0x3C01), // above the tie
            (Float::F16, 2.0 - 2f64.powi(-12), 0x4000), // carries into 2.0
            (Float::F16, 65504.0, 0x7BFF),
            (Float::F16, 65519.99, 0x7BFF),
            (Float::F16, 65520.0, 0x7C00), // the tie above the largest finite: infinity
            (Float::F16, -1e9, 0xFC00),
            (Float::F16, 2f64.powi(-24), 0x0001),        // the smallest subnormal
            (Float::F16, 2f64.powi(-25), 0x0000),        // half of it: tie to even zero
            (Float::F16, -2f64.powi(-25) * 1.5, 0x8001), // above half: rounds up
            (Float::F16, -1e-30, 0x8000),
            (Float::F16, f64::MIN_POSITIVE / 4.0, 0x0000), // an f64 subnormal
            (Float::F16, f64::NAN, 0x7FFF),
            (Float::F16, f64::NEG_INFINITY, 0xFC00),
            (Float::BF16, 1.0 + 2f64.powi(-8), 0x3F80),
            (Float::BF16, 1.0 + 2f64.powi(-8) + 2f64.powi(-45), 0x3F81),
            (Float::BF16, 3.0e38, 0x7F62),
            (Float::BF16, f64::from(f32::MAX), 0x7F80), // beyond bf16's largest: infinity
            (Float::BF16, 2f64.powi(-133), 0x0001),
            (Float::BF16, -0.0, 0x8000),
            (Float::BF16, f64::NAN, 0x7FFF),
            (Float::F32, 1.0 + 2f64.powi(-24), 0x3F80_0000),
            (Float::F32, 1.0 + 2f64.powi(-24) + 2f64.powi(-40), 0x3F80_0001),
            (Float::F32, 2f64.powi(-149), 0x0000_0001),
            (Float::F32, f64::MAX, 0x7F80_0000),
            (Float::F64, f64::MIN_POSITIVE / 8.0, (f64::MIN_POSITIVE / 8.0).to_bits()),
            (Float::F64, -1.1, (-1.1f64).to_bits()),
        ];
        for &(format, x, want) in table {
            let got = format.round_from_f64(x);
            assert_eq!(got, want, "{format:?} of {x:e}: got 0x{got:X}, expected 0x{want:X}");
        }
    }

    /// Against Rust's own `f64 as f32` (round to nearest even) on a spread of values,
    /// and against `half`'s `from_f32` on every f32 that rounds from an f64 which is
    /// itself an f32 (where its rounding is exact).
    #[test]
    fn rounding_agrees_with_rust_and_half_where_they_are_exact() {
        let mut x = 0x1234_5678_9ABC_DEF0u64;
        for _ in 0..20_000 {
            // xorshift: bit patterns over the whole f64 range, and near the f32 range.
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let wide = f64::from_bits(x);
            let near = f64::from(f32::from_bits(x as u32)) * (1.0 + (x >> 40) as f64 * 2f64.powi(-30));
            for v in [wide, near] {
                if v.is_nan() {
                    continue;
                }
                assert_eq!(Float::F32.round_from_f64(v), u64::from((v as f32).to_bits()), "{v:e}");
                let f = f64::from(f32::from_bits(x as u32));
                if !f.is_nan() {
                    assert_eq!(Float::F16.round_from_f64(f), u64::from(half::f16::from_f64(f).to_bits()), "{f:e}");
                    assert_eq!(
                        Float::BF16.round_from_f64(f),
                        u64::from(half::bf16::from_f32(f as f32).to_bits()),
                        "{f:e}"
                    );
                }
            }
        }
    }

    #[test]
    fn ulp_distances_count_in_the_format_across_zero() {
        let table: &[(Float, u64, u64, Option<u64>)] = &[
            (Float::F16, 0x3C00, 0x3C03, Some(3)),
            (Float::F16, 0x0000, 0x8000, Some(0)),
            (Float::F16, 0x0001, 0x8001, Some(2)),
            (Float::F16, 0x7BFF, 0x7C00, Some(1)),
            (Float::F16, 0x7E00, 0x3C00, None),
            (Float::BF16, 0x3F80, 0x3F81, Some(1)),
            (Float::BF16, 0xFFC1, 0x3F80, None),
            (Float::F32, 0x3F80_0000, 0x3F80_0002, Some(2)),
            (Float::F64, 1.0f64.to_bits(), 1.0f64.to_bits() + 5, Some(5)),
            (Float::F64, (-0.0f64).to_bits(), 1, Some(1)),
        ];
        for &(format, a, b, want) in table {
            assert_eq!(format.ulp_distance(a, b), want, "{format:?} 0x{a:X} 0x{b:X}");
        }
    }

    #[test]
    fn nan_tests_and_values_read_the_bits_of_each_format() {
        assert!(Float::F16.is_nan(0x7C01) && !Float::F16.is_nan(0x7C00));
        assert!(Float::BF16.is_nan(0xFF81) && !Float::BF16.is_nan(0xFF80));
        assert!(Float::F64.is_nan(f64::NAN.to_bits()));
        assert_eq!(Float::F16.to_f64(0x3E00), 1.5);
        assert_eq!(Float::BF16.to_f64(0x3FC0), 1.5);
        assert_eq!(Float::F16.to_f64(0x0001), 2f64.powi(-24));
    }
}
