//! Bit-for-bit comparison of row results.

/// How two result vectors compare.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Comparison {
    pub rows: usize,
    pub differing: usize,
    /// `(row, got bits, want bits)` of the first differing row.
    pub first: Option<(usize, u32, u32)>,
}

impl Comparison {
    pub fn equal(&self) -> bool {
        self.differing == 0
    }

    /// `3 of 40 rows differ; first row 7: got 0x7fc00000 (NaN), want 0xc2c80000 (-100)`
    pub fn describe(&self, against: &str) -> String {
        match self.first {
            None => format!("equal to {against}"),
            Some((r, g, w)) => format!(
                "{} of {} rows differ from {against}; first row {r}: got 0x{g:08x} ({:?}), want 0x{w:08x} ({:?})",
                self.differing,
                self.rows,
                f32::from_bits(g),
                f32::from_bits(w)
            ),
        }
    }
}

/// Compares `got` with `want` bit for bit (so `-0.0 != +0.0`, and NaNs must have the same
/// payload). A length difference counts every missing row as differing.
pub fn compare_bits(got: &[f32], want: &[f32]) -> Comparison {
    let rows = want.len().max(got.len());
    let mut differing = rows - want.len().min(got.len());
    let mut first = None;
    for (r, (g, w)) in got.iter().zip(want).enumerate() {
        if g.to_bits() != w.to_bits() {
            differing += 1;
            first.get_or_insert((r, g.to_bits(), w.to_bits()));
        }
    }
    Comparison { rows, differing, first }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn equal_vectors_compare_equal() {
        let v = [1.0, f32::NEG_INFINITY, -0.0, f32::NAN];
        assert!(compare_bits(&v, &v).equal());
    }

    #[test]
    fn signed_zeros_and_nan_payloads_are_differences() {
        let c = compare_bits(&[1.0, 0.0], &[1.0, -0.0]);
        assert_eq!(c.first, Some((1, 0, 0x8000_0000)));
        assert_eq!(
            c.describe("the CUDA reference"),
            "1 of 2 rows differ from the CUDA reference; first row 1: got 0x00000000 (0.0), want 0x80000000 (-0.0)"
        );
        assert!(!compare_bits(&[f32::from_bits(0x7fc0_0001)], &[f32::NAN]).equal());
    }

    #[test]
    fn missing_rows_differ() {
        assert_eq!(compare_bits(&[1.0], &[1.0, 2.0]).differing, 1);
    }
}
