//! Comparison rules: when is a back end's buffer equal to the reference's.
//!
//! A rule applies to every float dtype in that dtype's own precision: [`Tolerance::Ulps`]
//! counts units in the last place of the buffer's dtype (f16 ULPs for f16 data, f64 ULPs
//! for f64 data), [`Tolerance::Approx`] compares the two values exactly converted to
//! `f64`, and [`Tolerance::Bits`] compares bit patterns. The NaN rule decides every
//! comparison where either side is a NaN. Integer buffers are compared bit for bit
//! whatever the rule.

use std::fmt;

use rtriton::ir::ScalarType;

use crate::data::Data;
use crate::float::Float;

/// How close floats must be (integers are always compared exactly).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Tolerance {
    /// Equal bits (`-0.0 != +0.0`).
    Bits,
    /// At most this many units in the last place of the buffer's dtype apart (signed
    /// zeros are 0 apart, the largest finite value and infinity 1).
    Ulps(u32),
    /// `approx::relative_eq!` on the values as `f64`, with this absolute `epsilon` and
    /// `max_relative` (equal infinities match; signed zeros match).
    Approx { epsilon: f64, max_relative: f64 },
}

/// How NaNs compare.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NanRule {
    /// A NaN matches only the same bits (payload and sign count).
    SameBits,
    /// Any NaN matches any NaN.
    AnyNan,
}

/// A comparison rule: a tolerance and a NaN rule.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Rule {
    pub tolerance: Tolerance,
    pub nan: NanRule,
}

impl Rule {
    /// Bit for bit, NaN payloads included: for exact math (max, min, copies, integers).
    pub const BITS: Rule = Rule { tolerance: Tolerance::Bits, nan: NanRule::SameBits };

    /// Within `max` ULPs of the buffer's dtype, any NaN matching any NaN.
    pub fn ulps(max: u32) -> Rule {
        Rule { tolerance: Tolerance::Ulps(max), nan: NanRule::AnyNan }
    }

    /// Within `epsilon` absolute or `max_relative` relative (in `f64`), any NaN matching
    /// any NaN.
    pub fn approx(epsilon: impl Into<f64>, max_relative: impl Into<f64>) -> Rule {
        let (epsilon, max_relative) = (epsilon.into(), max_relative.into());
        Rule { tolerance: Tolerance::Approx { epsilon, max_relative }, nan: NanRule::AnyNan }
    }

    pub fn any_nan(mut self) -> Rule {
        self.nan = NanRule::AnyNan;
        self
    }

    /// Whether element `got` matches `want`, both given as bit patterns of `dtype`.
    pub fn matches(&self, dtype: ScalarType, got: u64, want: u64) -> bool {
        let Some(format) = Float::of(dtype) else {
            return got == want;
        };
        let (got_nan, want_nan) = (format.is_nan(got), format.is_nan(want));
        if got_nan || want_nan {
            return match self.nan {
                NanRule::SameBits => got == want,
                NanRule::AnyNan => got_nan && want_nan,
            };
        }
        match self.tolerance {
            Tolerance::Bits => got == want,
            Tolerance::Ulps(max) => format.ulp_distance(got, want).is_some_and(|d| d <= u64::from(max)),
            Tolerance::Approx { epsilon, max_relative } => {
                let (g, w) = (format.to_f64(got), format.to_f64(want));
                approx::relative_eq!(g, w, epsilon = epsilon, max_relative = max_relative)
            }
        }
    }

    /// Whether `got` matches `want` under this rule.
    pub fn matches_f32(&self, got: f32, want: f32) -> bool {
        self.matches(ScalarType::F32, u64::from(got.to_bits()), u64::from(want.to_bits()))
    }
}

impl fmt::Display for Rule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.tolerance {
            Tolerance::Bits => write!(f, "bit-exact")?,
            Tolerance::Ulps(n) => write!(f, "within {n} ulp")?,
            Tolerance::Approx { epsilon, max_relative } => write!(f, "within abs {epsilon:e} or rel {max_relative:e}")?,
        }
        match self.nan {
            NanRule::SameBits => write!(f, ", NaN bits must match"),
            NanRule::AnyNan => write!(f, ", any NaN matches any NaN"),
        }
    }
}

/// Units in the last place between two `f32`s (`None` when either is NaN). Signed zeros
/// are 0 apart; the distance crosses zero through the integers the floats map onto in
/// order. [`Float::ulp_distance`] is the same for every float dtype.
pub fn ulp_distance(a: f32, b: f32) -> Option<u64> {
    Float::F32.ulp_distance(u64::from(a.to_bits()), u64::from(b.to_bits()))
}

/// One element where a back end and the reference differ.
#[derive(Clone, Debug, PartialEq)]
pub struct Difference {
    /// Index in the whole buffer.
    pub element: usize,
    pub got: String,
    pub want: String,
    /// For floats that are not NaN: the distance in ULPs of the buffer's dtype.
    pub ulps: Option<u64>,
}

/// The differing elements of `got` against `want` (at most `limit`), and how many there
/// are in all. Buffers of different dtypes differ at every element (a reference that
/// replaced an output with another type has a bug).
pub fn differences(got: &Data, want: &Data, rule: &Rule, limit: usize) -> (Vec<Difference>, usize) {
    let mut shown = Vec::new();
    let mut total = 0;
    let n = got.len().min(want.len());
    let dtype = got.dtype();
    let same_dtype = dtype == want.dtype();
    let format = Float::of(dtype).filter(|_| same_dtype);
    for i in 0..n {
        let (g, w) = (got.bits(i), want.bits(i));
        if same_dtype && rule.matches(dtype, g, w) {
            continue;
        }
        total += 1;
        if shown.len() < limit {
            let ulps = format.and_then(|f| f.ulp_distance(g, w));
            shown.push(Difference { element: i, got: got.describe(i), want: want.describe(i), ulps });
        }
    }
    (shown, total + got.len().abs_diff(want.len()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ulp_distance_counts_across_zero() {
        assert_eq!(ulp_distance(1.0, f32::from_bits(1.0f32.to_bits() + 3)), Some(3));
        assert_eq!(ulp_distance(0.0, -0.0), Some(0));
        assert_eq!(ulp_distance(f32::from_bits(1), -f32::from_bits(1)), Some(2));
        assert_eq!(ulp_distance(f32::NAN, 1.0), None);
    }

    #[test]
    fn rules_treat_nan_and_zero_signs_as_documented() {
        let payload = f32::from_bits(0x7FC0_0001);
        assert!(!Rule::BITS.matches_f32(payload, f32::NAN));
        assert!(Rule::BITS.any_nan().matches_f32(payload, f32::NAN));
        assert!(!Rule::BITS.matches_f32(-0.0, 0.0));
        assert!(Rule::ulps(0).matches_f32(-0.0, 0.0));
        assert!(Rule::ulps(2).matches_f32(1.0, f32::from_bits(1.0f32.to_bits() + 2)));
        assert!(!Rule::ulps(1).matches_f32(1.0, f32::from_bits(1.0f32.to_bits() + 2)));
        assert!(Rule::approx(1e-3, 0.0).matches_f32(1.0, 1.0005));
        assert!(!Rule::approx(1e-4, 1e-4).matches_f32(1.0, 1.01));
    }

    /// `(dtype, rule, got bits, want bits, matches)`: each float dtype in its own ULPs,
    /// `approx` in f64, the NaN rules and signed zeros, integers by bits whatever the rule.
    #[test]
    fn rules_apply_to_every_dtype_in_its_own_precision() {
        use ScalarType::*;
        let one_f64 = 1.0f64.to_bits();
        let table: &[(ScalarType, Rule, u64, u64, bool)] = &[
            // f16: 0x3C00 is 1.0; 0x3C01 one f16 ULP above (about 1e-3 relative).
            (F16, Rule::BITS, 0x3C00, 0x3C00, true),
            (F16, Rule::BITS, 0x3C00, 0x3C01, false),
            (F16, Rule::ulps(1), 0x3C00, 0x3C01, true),
            (F16, Rule::ulps(1), 0x3C00, 0x3C02, false),
            (F16, Rule::ulps(1), 0x7BFF, 0x7C00, true), // largest finite and infinity
            (F16, Rule::ulps(0), 0x0000, 0x8000, true), // signed zeros
            (F16, Rule::BITS, 0x0000, 0x8000, false),
            (F16, Rule::ulps(1), 0x0001, 0x8001, false), // 2 apart across zero
            (F16, Rule::approx(0.0, 1e-3), 0x3C00, 0x3C01, true),
            (F16, Rule::approx(0.0, 1e-4), 0x3C00, 0x3C01, false),
            (F16, Rule::BITS, 0x7E00, 0x7E00, true),
            (F16, Rule::BITS, 0x7E00, 0xFE12, false), // another payload and sign
            (F16, Rule::BITS.any_nan(), 0x7E00, 0xFE12, true),
            (F16, Rule::ulps(100), 0x7E00, 0x3C00, false), // a NaN never matches a number
            (F16, Rule::ulps(u32::MAX), 0x7C00, 0xFC00, true), // +-inf, 2 * 0x7C00 apart
            // bf16: 0x3F80 is 1.0; 0x3F81 one bf16 ULP above (about 8e-3 relative).
            (BF16, Rule::ulps(1), 0x3F80, 0x3F81, true),
            (BF16, Rule::ulps(0), 0x3F80, 0x3F81, false),
            (BF16, Rule::approx(0.0, 1e-2), 0x3F80, 0x3F81, true),
            (BF16, Rule::approx(0.0, 1e-3), 0x3F80, 0x3F81, false),
            (BF16, Rule::ulps(0), 0x8000, 0x0000, true),
            (BF16, Rule::BITS, 0xFFC1, 0xFFC1, true),
            (BF16, Rule::BITS, 0x7FC0, 0x7FFF, false),
            (BF16, Rule::ulps(0), 0x7FC0, 0x7FFF, true), // ulps rules take any NaN
            // f32 and f64: the same rules in their precisions.
            (F32, Rule::ulps(2), 0x3F80_0000, 0x3F80_0002, true),
            (F32, Rule::ulps(1), 0x3F80_0000, 0x3F80_0002, false),
            (F32, Rule::approx(2e-7, 0.0), 0x3F80_0000, 0x3F80_0001, true),
            (F32, Rule::approx(1e-7, 0.0), 0x3F80_0000, 0x3F80_0001, false), // an f32 ULP is 1.19e-7
            (F64, Rule::ulps(1), one_f64, one_f64 + 1, true),
            (F64, Rule::ulps(1), one_f64, one_f64 + 2, false),
            (F64, Rule::approx(0.0, 1e-15), one_f64, one_f64 + 4, true),
            (F64, Rule::BITS, 0, 0x8000_0000_0000_0000, false),
            (F64, Rule::ulps(0), 0, 0x8000_0000_0000_0000, true),
            (F64, Rule::BITS, f64::NAN.to_bits(), f64::NAN.to_bits(), true),
            // Integers: bits, whatever the tolerance.
            (I8, Rule::ulps(5), 0x7F, 0x80, false),
            (I16, Rule::approx(10.0, 1.0), 1, 2, false),
            (U8, Rule::BITS.any_nan(), 0xFF, 0xFF, true),
            (U32, Rule::ulps(1), 7, 8, false),
            (U64, Rule::BITS, u64::MAX, u64::MAX, true),
            (I64, Rule::ulps(1), 0, 1, false),
        ];
        for &(dtype, rule, got, want, expected) in table {
            assert_eq!(rule.matches(dtype, got, want), expected, "{dtype} {rule}: 0x{got:X} vs 0x{want:X}");
        }
    }

    #[test]
    fn differences_count_ulps_in_the_buffers_dtype() {
        let got = Data::from(vec![half::f16::from_bits(0x3C00), half::f16::from_bits(0x3C00)]);
        let want = Data::from(vec![half::f16::from_bits(0x3C00), half::f16::from_bits(0x3C03)]);
        let (d, total) = differences(&got, &want, &Rule::ulps(2), 5);
        assert_eq!(total, 1);
        assert_eq!((d[0].element, d[0].ulps), (1, Some(3)));
        assert_eq!((d[0].got.as_str(), d[0].want.as_str()), ("1.0 (0x3C00)", "1.0029297 (0x3C03)"));
        // A buffer of another dtype differs everywhere.
        let (_, total) = differences(&got, &Data::from(vec![1.0f32, 1.0]), &Rule::BITS, 5);
        assert_eq!(total, 2);
    }

    #[test]
    fn differences_name_the_element_the_bits_and_the_distance() {
        let got = Data::F32(vec![1.0, 2.0, f32::NAN]);
        let want = Data::F32(vec![1.0, f32::from_bits(2.0f32.to_bits() + 1), f32::NAN]);
        let (d, total) = differences(&got, &want, &Rule::BITS, 5);
        assert_eq!(total, 1);
        assert_eq!(d[0].element, 1);
        assert_eq!(d[0].ulps, Some(1));
        assert!(d[0].got.contains("0x40000000"), "{}", d[0].got);
        let (_, total) = differences(&Data::I32(vec![1, 2]), &Data::I32(vec![1, 3]), &Rule::BITS, 5);
        assert_eq!(total, 1);
    }
}
