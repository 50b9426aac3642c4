//! The shape matrix every row-max suite runs (interpreter, simulator, GPU, `validate`):
//! one table, so every back end is checked on the same views and special values.

use std::fmt;

/// How the `n_rows x n_cols` view sits in its buffer.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ViewKind {
    /// Row-major, `stride_row = n_cols`, `stride_col = 1`.
    Contiguous,
    /// Every other column of a row-major `n_rows x 2*n_cols` buffer (`x[:, ::2]`).
    EveryOtherColumn,
    /// The transpose of a row-major `n_cols x n_rows` buffer: `stride_row = 1`,
    /// `stride_col = n_rows`.
    Transposed,
    /// Row-major starting `offset` elements into the buffer (a slice such as `x[1:]`); the
    /// base pointer is not 16-byte aligned for offsets that are not multiples of 4.
    Offset(usize),
}

/// What values the input holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Fill {
    /// Pseudo-random values in [-1000, 1000) from a fixed seed.
    Random(u64),
    /// Every value negative, so an identity of 0 instead of -inf is caught.
    AllNegative(u64),
    /// Every value `-inf`: the result must be `-inf`.
    AllNegInf,
    /// Random values with a NaN in some rows (NaN rule: ignored unless propagating).
    SomeNaN(u64),
    /// Rows of `-0.0` and `+0.0` only, in both orders.
    SignedZeros,
    /// Every element a NaN (the NaN payloads of [`SPECIAL_VALUES`], both signs, quiet and
    /// signalling): every row's maximum is `-inf` (NaN ignored), whatever BLOCK is; at a
    /// power-of-two width a single-block kernel's block holds no `-inf` padding.
    AllNaN,
    /// [`SPECIAL_VALUES`] over and over: NaN with payloads (both signs, quiet and
    /// signalling), signed zeros, infinities and subnormals. In a one-column view each row
    /// is one of them alone, where a reduction of one element must still apply its NaN
    /// rule (`docs/semantics.md`).
    Specials,
}

/// The values [`Fill::Specials`] cycles through, as bits.
pub const SPECIAL_VALUES: [u32; 12] = [
    0x7FC0_1234, // quiet NaN with a payload
    0xFFC0_0001, // negative quiet NaN with a payload
    0x7F80_0001, // signalling NaN
    0x7FFF_FFFF, // the canonical NaN
    0x8000_0000, // -0.0
    0x0000_0000, // +0.0
    0x7F80_0000, // +inf
    0xFF80_0000, // -inf
    0x0000_0001, // the smallest subnormal
    0x8000_0001, // the smallest negative subnormal
    0x007F_FFFF, // the largest subnormal
    0x3F80_0000, // 1.0
];

/// One case of the matrix.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct RowMaxCase {
    pub name: &'static str,
    pub n_rows: usize,
    pub n_cols: usize,
    pub view: ViewKind,
    pub fill: Fill,
}

/// The strides and offset (elements) of a case's view, plus the buffer length it needs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ViewLayout {
    pub offset: usize,
    pub stride_row: usize,
    pub stride_col: usize,
    pub buffer_len: usize,
}

const fn case(name: &'static str, n_rows: usize, n_cols: usize, view: ViewKind, fill: Fill) -> RowMaxCase {
    RowMaxCase { name, n_rows, n_cols, view, fill }
}

/// The matrix: shapes and views (the foundation issue's 11+ cases) and special values.
pub const SHAPE_MATRIX: &[RowMaxCase] = &[
    case("1x1", 1, 1, ViewKind::Contiguous, Fill::Random(1)),
    case("single_row", 1, 1000, ViewKind::Contiguous, Fill::Random(2)),
    case("single_column", 1000, 1, ViewKind::Contiguous, Fill::Random(3)),
    case("non_pow2", 37, 100, ViewKind::Contiguous, Fill::Random(4)),
    case("narrower_than_warp", 64, 7, ViewKind::Contiguous, Fill::Random(5)),
    case("wider_than_block", 3, 5000, ViewKind::Contiguous, Fill::Random(6)),
    case("every_other_column", 50, 300, ViewKind::EveryOtherColumn, Fill::Random(7)),
    case("transposed", 128, 96, ViewKind::Transposed, Fill::Random(8)),
    case("offset_base", 40, 130, ViewKind::Offset(3), Fill::Random(9)),
    case("aligned_pow2", 256, 1024, ViewKind::Contiguous, Fill::Random(10)),
    case("odd_small", 17, 33, ViewKind::Contiguous, Fill::Random(11)),
    case("tall_narrow", 1000, 3, ViewKind::Contiguous, Fill::Random(12)),
    case("all_negative", 20, 77, ViewKind::Contiguous, Fill::AllNegative(13)),
    case("all_neg_inf", 5, 64, ViewKind::Contiguous, Fill::AllNegInf),
    case("nan_rows", 16, 50, ViewKind::Contiguous, Fill::SomeNaN(14)),
    case("signed_zeros", 8, 40, ViewKind::Contiguous, Fill::SignedZeros),
    case("one_column_specials", 24, 1, ViewKind::Contiguous, Fill::Specials),
    case("one_column_specials_offset", 13, 1, ViewKind::Offset(1), Fill::Specials),
    case("all_nan_pow2", 8, 64, ViewKind::Contiguous, Fill::AllNaN),
    case("all_nan_non_pow2", 9, 50, ViewKind::Contiguous, Fill::AllNaN),
    case("all_nan_pow2_transposed", 16, 32, ViewKind::Transposed, Fill::AllNaN),
    case("all_nan_two_columns", 5, 2, ViewKind::Contiguous, Fill::AllNaN),
];

/// A case with more than 2^31 elements (8.6 GB of f32): GPU only.
pub const HUGE_CASE: RowMaxCase = case("huge_2^31+", 65537, 32768, ViewKind::Contiguous, Fill::Random(99));

impl RowMaxCase {
    pub fn layout(&self) -> ViewLayout {
        let (r, c) = (self.n_rows, self.n_cols);
        match self.view {
            ViewKind::Contiguous => ViewLayout { offset: 0, stride_row: c, stride_col: 1, buffer_len: r * c },
            ViewKind::EveryOtherColumn => {
                ViewLayout { offset: 0, stride_row: 2 * c, stride_col: 2, buffer_len: r * 2 * c }
            }
            ViewKind::Transposed => ViewLayout { offset: 0, stride_row: 1, stride_col: r, buffer_len: r * c },
            ViewKind::Offset(o) => ViewLayout { offset: o, stride_row: c, stride_col: 1, buffer_len: o + r * c },
        }
    }

    pub fn numel(&self) -> usize {
        self.n_rows * self.n_cols
    }

    /// The whole input buffer (view elements and the gaps between them).
    pub fn input(&self) -> Vec<f32> {
        let len = self.layout().buffer_len;
        match self.fill {
            Fill::Random(seed) => random(seed, len, -1000.0, 1000.0),
            Fill::AllNegative(seed) => random(seed, len, -1000.0, -0.5),
            Fill::AllNegInf => vec![f32::NEG_INFINITY; len],
            Fill::SomeNaN(seed) => {
                let mut v = random(seed, len, -1000.0, 1000.0);
                // A NaN in every third row at varying columns, plus a row that is all NaN.
                let l = self.layout();
                for r in (0..self.n_rows).step_by(3) {
                    let c = (r * 7) % self.n_cols;
                    v[l.offset + r * l.stride_row + c * l.stride_col] = f32::NAN;
                }
                if self.n_rows > 1 {
                    for c in 0..self.n_cols {
                        v[l.offset + l.stride_row + c * l.stride_col] = f32::NAN;
                    }
                }
                v
            }
            Fill::SignedZeros => (0..len).map(|i| if (i / 3 + i / 7) % 2 == 0 { -0.0 } else { 0.0 }).collect(),
            Fill::Specials => (0..len).map(|i| f32::from_bits(SPECIAL_VALUES[i % SPECIAL_VALUES.len()])).collect(),
            Fill::AllNaN => {
                let nans: Vec<u32> = SPECIAL_VALUES.iter().copied().filter(|b| f32::from_bits(*b).is_nan()).collect();
                (0..len).map(|i| f32::from_bits(nans[i % nans.len()])).collect()
            }
        }
    }
}

impl fmt::Display for RowMaxCase {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let l = self.layout();
        write!(
            f,
            "{} {}x{} strides ({}, {}) offset {}",
            self.name, self.n_rows, self.n_cols, l.stride_row, l.stride_col, l.offset
        )
    }
}

/// Deterministic pseudo-random floats (xorshift64*), reproducible on every machine.
pub fn random(seed: u64, len: usize, lo: f32, hi: f32) -> Vec<f32> {
    let mut s = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    (0..len)
        .map(|_| {
            s ^= s >> 12;
            s ^= s << 25;
            s ^= s >> 27;
            let u = (s.wrapping_mul(0x2545_F491_4F6C_DD1D) >> 40) as f32 / (1u64 << 24) as f32;
            lo + (hi - lo) * u
        })
        .collect()
}
