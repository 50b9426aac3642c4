//! Comparison rules: when is a back end's buffer equal to the reference's.

use std::fmt;

use crate::data::Data;

/// How close floats must be (integers are always compared exactly).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Tolerance {
    /// Equal bits (`-0.0 != +0.0`).
    Bits,
    /// At most this many units in the last place apart (signed zeros are 0 apart).
    Ulps(u32),
    /// `approx::relative_eq!` with this absolute `epsilon` and `max_relative`.
    Approx { epsilon: f32, max_relative: f32 },
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

    pub fn ulps(max: u32) -> Rule {
        Rule { tolerance: Tolerance::Ulps(max), nan: NanRule::AnyNan }
    }

    pub fn approx(epsilon: f32, max_relative: f32) -> Rule {
        Rule { tolerance: Tolerance::Approx { epsilon, max_relative }, nan: NanRule::AnyNan }
    }

    pub fn any_nan(mut self) -> Rule {
        self.nan = NanRule::AnyNan;
        self
    }

    /// Whether `got` matches `want` under this rule.
    pub fn matches_f32(&self, got: f32, want: f32) -> bool {
        if got.is_nan() || want.is_nan() {
            return match self.nan {
                NanRule::SameBits => got.to_bits() == want.to_bits(),
                NanRule::AnyNan => got.is_nan() && want.is_nan(),
            };
        }
        match self.tolerance {
            Tolerance::Bits => got.to_bits() == want.to_bits(),
            Tolerance::Ulps(max) => ulp_distance(got, want).is_some_and(|d| d <= u64::from(max)),
            Tolerance::Approx { epsilon, max_relative } => {
                approx::relative_eq!(got, want, epsilon = epsilon, max_relative = max_relative)
            }
        }
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

/// Units in the last place between two finite-or-infinite floats (`None` when either is
/// NaN). Signed zeros are 0 apart; the distance crosses zero through the integers the
/// floats map onto in order.
pub fn ulp_distance(a: f32, b: f32) -> Option<u64> {
    if a.is_nan() || b.is_nan() {
        return None;
    }
    let key = |x: f32| -> i64 {
        let bits = x.to_bits() as i32;
        i64::from(if bits < 0 { i32::MIN - bits } else { bits })
    };
    Some(key(a).abs_diff(key(b)))
}

/// One element where a back end and the reference differ.
#[derive(Clone, Debug, PartialEq)]
pub struct Difference {
    /// Index in the whole buffer.
    pub element: usize,
    pub got: String,
    pub want: String,
    /// For floats that are not NaN.
    pub ulps: Option<u64>,
}

/// The differing elements of `got` against `want` (at most `limit`), and how many there
/// are in all.
pub fn differences(got: &Data, want: &Data, rule: &Rule, limit: usize) -> (Vec<Difference>, usize) {
    let mut shown = Vec::new();
    let mut total = 0;
    let n = got.len().min(want.len());
    for i in 0..n {
        let same = match (got, want) {
            (Data::F32(g), Data::F32(w)) => rule.matches_f32(g[i], w[i]),
            _ => got.bits(i) == want.bits(i),
        };
        if same {
            continue;
        }
        total += 1;
        if shown.len() < limit {
            let ulps = match (got, want) {
                (Data::F32(g), Data::F32(w)) => ulp_distance(g[i], w[i]),
                _ => None,
            };
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
