//! Summaries of timing samples: median, percentiles, extremes; and bandwidth arithmetic.

use serde::{Deserialize, Serialize};

/// The `q`-th percentile (`0.0..=100.0`) of `sorted` (ascending), interpolated linearly
/// between the two nearest samples (numpy's default), or `None` for no samples.
pub fn percentile(sorted: &[f64], q: f64) -> Option<f64> {
    let last = sorted.len().checked_sub(1)?;
    let pos = q.clamp(0.0, 100.0) / 100.0 * last as f64;
    let (lo, hi) = (pos.floor() as usize, pos.ceil() as usize);
    Some(sorted[lo] + (sorted[hi] - sorted[lo]) * (pos - lo as f64))
}

/// What a list of per-launch times (milliseconds) comes to.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Summary {
    pub samples: usize,
    pub median_ms: f64,
    pub p10_ms: f64,
    pub p90_ms: f64,
    pub min_ms: f64,
    pub max_ms: f64,
}

impl Summary {
    /// Summarizes `times_ms`; `None` when there are none (or any is not finite).
    pub fn of(times_ms: &[f32]) -> Option<Summary> {
        let mut v: Vec<f64> = times_ms.iter().map(|&t| t as f64).collect();
        if v.iter().any(|t| !t.is_finite()) {
            return None;
        }
        v.sort_by(f64::total_cmp);
        Some(Summary {
            samples: v.len(),
            median_ms: percentile(&v, 50.0)?,
            p10_ms: percentile(&v, 10.0)?,
            p90_ms: percentile(&v, 90.0)?,
            min_ms: v[0],
            max_ms: v[v.len() - 1],
        })
    }
}

/// Bandwidth in GB/s (10^9 bytes per second) of moving `bytes` in `ms` milliseconds.
pub fn gb_per_s(bytes: u64, ms: f64) -> f64 {
    bytes as f64 / (ms * 1e-3) / 1e9
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn percentiles_interpolate_between_samples() {
        let v = [1.0, 2.0, 3.0, 4.0];
        assert_eq!(percentile(&v, 50.0), Some(2.5));
        assert_eq!(percentile(&v, 0.0), Some(1.0));
        assert_eq!(percentile(&v, 100.0), Some(4.0));
        assert!((percentile(&v, 10.0).unwrap() - 1.3).abs() < 1e-12);
        assert!((percentile(&v, 90.0).unwrap() - 3.7).abs() < 1e-12);
        assert_eq!(percentile(&[7.0], 90.0), Some(7.0));
        assert_eq!(percentile(&[], 50.0), None);
    }

    #[test]
    fn a_summary_sorts_first_and_ignores_order() {
        let s = Summary::of(&[5.0, 1.0, 3.0, 2.0, 4.0]).unwrap();
        assert_eq!(
            s,
            Summary { samples: 5, median_ms: 3.0, p10_ms: 1.4, p90_ms: 4.6, min_ms: 1.0, max_ms: 5.0 }
                .with_rounding(&s)
        );
        assert_eq!((s.median_ms, s.min_ms, s.max_ms), (3.0, 1.0, 5.0));
        assert_eq!(Summary::of(&[]), None);
        assert_eq!(Summary::of(&[1.0, f32::NAN]), None);
    }

    impl Summary {
        /// `self` with the percentiles of `other` where they agree to 1e-9 (float noise).
        fn with_rounding(mut self, other: &Summary) -> Summary {
            for (a, b) in [(&mut self.p10_ms, other.p10_ms), (&mut self.p90_ms, other.p90_ms)] {
                assert!((*a - b).abs() < 1e-9, "{a} vs {b}");
                *a = b;
            }
            self
        }
    }

    #[test]
    fn bandwidth_is_bytes_over_time_in_decimal_gigabytes() {
        // 1 GiB in 1 ms.
        assert!((gb_per_s(1 << 30, 1.0) - 1073.741824).abs() < 1e-9);
        // 32768 x 8192 f32 (1 GiB) read at 4.8 TB/s takes 0.2237 ms.
        assert!((gb_per_s(32768 * 8192 * 4, 0.2236962) - 4800.0).abs() < 0.01);
    }
}
