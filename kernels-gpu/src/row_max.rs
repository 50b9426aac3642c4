//! The row-max family: `y[r] = max_c x[r, c]` for a 2-D `f32` tensor with any strides.
//!
//! Every variant takes the same runtime arguments, so tools treat them alike:
//! `x_ptr, y_ptr, n_rows, n_cols, stride_row, stride_col` (strides in elements; `y` is
//! contiguous). They differ in how a program covers a row and in how index math is typed.

use rtriton::kernel;
use rtriton::prelude::*;
use rtriton::trace::KernelDef;

const NEG_INF: f32 = f32::NEG_INFINITY;

kernel! {
    /// One program per row; one block covers the whole row (`BLOCK >= n_cols`, masked).
    /// Index tensors are widened to i64 first, so offsets never overflow. The block's
    /// maximum is combined once with `-inf` (`fmaxf(-inf, m)`): a row of only NaN gives
    /// `-inf` whatever BLOCK is, as in every other variant (without it, `BLOCK == n_cols`
    /// left no `-inf` lane and the block reduced to the canonical NaN).
    pub fn row_max(x_ptr: Ptr<f32>, y_ptr: Ptr<f32>, n_rows: i32, n_cols: i32, stride_row: i32, stride_col: i32;
                   const BLOCK: usize) {
        let row = program_id(0).to::<i64>();
        let cols = arange(0, BLOCK);
        let mask = cols.lt(n_cols);
        let x = load(x_ptr + row * stride_row + cols.to::<i64>() * stride_col, Some(mask), Some(NEG_INF));
        store(y_ptr + row, maximum(max(x, 0), NEG_INF), None);
    }
}

kernel! {
    /// One program per row, looping over the columns in blocks of `BLOCK` (any width);
    /// a block-wide running maximum is reduced once after the loop.
    pub fn row_max_loop(x_ptr: Ptr<f32>, y_ptr: Ptr<f32>, n_rows: i32, n_cols: i32, stride_row: i32, stride_col: i32;
                        const BLOCK: usize) {
        let row = program_id(0).to::<i64>();
        let row_ptr = x_ptr + row * stride_row;
        let cols = arange(0, BLOCK);
        let acc = full::<f32>(&[BLOCK], NEG_INF);
        let acc = for_range(0, n_cols, BLOCK as i32, acc, |start, acc| {
            let c = start + cols;
            let x = load(row_ptr + c.to::<i64>() * stride_col, Some(c.lt(n_cols)), Some(NEG_INF));
            maximum(acc, x)
        });
        store(y_ptr + row, max(acc, 0), None);
    }
}

kernel! {
    /// `BLOCK_M` rows per program as a 2-D `[BLOCK_M, BLOCK_N]` block, looping over the
    /// columns: for narrow rows, where one row per program would leave threads idle.
    pub fn row_max_2d(x_ptr: Ptr<f32>, y_ptr: Ptr<f32>, n_rows: i32, n_cols: i32, stride_row: i32, stride_col: i32;
                      const BLOCK_M: usize, const BLOCK_N: usize) {
        let rows = program_id(0).to::<i64>() * BLOCK_M as i64 + arange(0, BLOCK_M).to::<i64>();
        let row_mask = rows.lt(n_rows);
        let row_ptrs = x_ptr + rows.expand_dims(1) * stride_row;
        let cols = arange(0, BLOCK_N);
        let acc = full::<f32>(&[BLOCK_M, BLOCK_N], NEG_INF);
        let acc = for_range(0, n_cols, BLOCK_N as i32, acc, |start, acc| {
            let c = start + cols;
            let mask = row_mask.expand_dims(1) & c.lt(n_cols).expand_dims(0);
            let x = load(row_ptrs + (c.to::<i64>() * stride_col).expand_dims(0), Some(mask), Some(NEG_INF));
            maximum(acc, x)
        });
        store(y_ptr + rows, max(acc, 1), Some(row_mask));
    }
}

kernel! {
    /// A port that follows a common porting rule, "call `.to(tl.int64)` on the stride
    /// arguments": correct in rtriton; in Triton a stride argument equal to 1 is a
    /// constexpr, and `.to` on it raises AttributeError.
    pub fn row_max_i64_strides(x_ptr: Ptr<f32>, y_ptr: Ptr<f32>, n_rows: i32, n_cols: i32, stride_row: i32, stride_col: i32;
                               const BLOCK: usize) {
        let row = program_id(0);
        let row_start = row.to::<i64>() * stride_row.to::<i64>();
        let stride = stride_col.to::<i64>();
        let cols = arange(0, BLOCK);
        let acc = full::<f32>(&[BLOCK], NEG_INF);
        let acc = for_range(0, n_cols, BLOCK as i32, acc, |start, acc| {
            let c = start + cols;
            let x = load(x_ptr + row_start + c * stride, Some(c.lt(n_cols)), Some(NEG_INF));
            maximum(acc, x)
        });
        store(y_ptr + row, max(acc, 0), None);
    }
}

kernel! {
    /// The index-promoting port: the index tensors are widened (`program_id(0).to::<i64>()`,
    /// the column offsets `.to::<i64>()`) and the scalar strides follow by promotion, so
    /// it works in Triton too, for contiguous and strided inputs alike.
    pub fn row_max_i64_index(x_ptr: Ptr<f32>, y_ptr: Ptr<f32>, n_rows: i32, n_cols: i32, stride_row: i32, stride_col: i32;
                             const BLOCK: usize) {
        let row = program_id(0).to::<i64>();
        let row_start = row * stride_row;
        let cols = arange(0, BLOCK);
        let acc = full::<f32>(&[BLOCK], NEG_INF);
        let acc = for_range(0, n_cols, BLOCK as i32, acc, |start, acc| {
            let c = start + cols;
            let x = load(x_ptr + row_start + c.to::<i64>() * stride_col, Some(c.lt(n_cols)), Some(NEG_INF));
            maximum(acc, x)
        });
        store(y_ptr + row, max(acc, 0), None);
    }
}

kernel! {
    /// `row_max` with all index math left in i32, as a first port often is: correct until
    /// `row * stride_row` passes 2^31 - 1, then it wraps and reads the wrong memory. Kept
    /// to teach the overflow (the lint flags it; the launch guard refuses large tensors).
    /// An all-NaN row gives `-inf`, as in `row_max`.
    pub fn row_max_i32(x_ptr: Ptr<f32>, y_ptr: Ptr<f32>, n_rows: i32, n_cols: i32, stride_row: i32, stride_col: i32;
                       const BLOCK: usize) {
        let row = program_id(0);
        let cols = arange(0, BLOCK);
        let x = load(x_ptr + row * stride_row + cols * stride_col, Some(cols.lt(n_cols)), Some(NEG_INF));
        store(y_ptr + row, maximum(max(x, 0), NEG_INF), None);
    }
}

/// The members of the family, for tools and test tables.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum RowMaxVariant {
    RowMax,
    RowMaxLoop,
    RowMax2d,
    I64Strides,
    I64Index,
    RowMaxI32,
}

impl RowMaxVariant {
    pub const ALL: [RowMaxVariant; 6] = [
        RowMaxVariant::RowMax,
        RowMaxVariant::RowMaxLoop,
        RowMaxVariant::RowMax2d,
        RowMaxVariant::I64Strides,
        RowMaxVariant::I64Index,
        RowMaxVariant::RowMaxI32,
    ];

    pub fn def(self) -> KernelDef {
        match self {
            RowMaxVariant::RowMax => row_max(),
            RowMaxVariant::RowMaxLoop => row_max_loop(),
            RowMaxVariant::RowMax2d => row_max_2d(),
            RowMaxVariant::I64Strides => row_max_i64_strides(),
            RowMaxVariant::I64Index => row_max_i64_index(),
            RowMaxVariant::RowMaxI32 => row_max_i32(),
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            RowMaxVariant::RowMax => "row_max",
            RowMaxVariant::RowMaxLoop => "row_max_loop",
            RowMaxVariant::RowMax2d => "row_max_2d",
            RowMaxVariant::I64Strides => "row_max_i64_strides",
            RowMaxVariant::I64Index => "row_max_i64_index",
            RowMaxVariant::RowMaxI32 => "row_max_i32",
        }
    }

    pub fn from_name(name: &str) -> Option<RowMaxVariant> {
        Self::ALL.into_iter().find(|v| v.name() == name)
    }

    /// Whether every pointer offset is computed in i64 (safe past 2^31 elements).
    pub fn promotes_to_i64(self) -> bool {
        self != RowMaxVariant::RowMaxI32
    }

    /// The constexprs a launch uses for an `n_rows x n_cols` input: single-block variants
    /// cover the row with the next power of two; looping ones use a fixed block.
    pub fn constexprs_for(self, _n_rows: usize, n_cols: usize) -> Vec<(&'static str, i64)> {
        match self {
            RowMaxVariant::RowMax | RowMaxVariant::RowMaxI32 => {
                vec![("BLOCK", n_cols.max(1).next_power_of_two() as i64)]
            }
            RowMaxVariant::RowMaxLoop | RowMaxVariant::I64Strides | RowMaxVariant::I64Index => vec![("BLOCK", 1024)],
            RowMaxVariant::RowMax2d => vec![("BLOCK_M", 16), ("BLOCK_N", 64)],
        }
    }

    /// The constexprs of the ahead-of-time build (one specialization per variant).
    pub fn default_constexprs(self) -> Vec<(&'static str, i64)> {
        self.constexprs_for(1, 1024)
    }

    /// Programs along axis 0 for an `n_rows`-row input.
    pub fn grid(self, n_rows: usize, constexprs: &[(&str, i64)]) -> usize {
        match self {
            RowMaxVariant::RowMax2d => {
                let m = constexprs.iter().find(|(n, _)| *n == "BLOCK_M").map_or(1, |(_, v)| (*v).max(1) as usize);
                n_rows.div_ceil(m)
            }
            _ => n_rows,
        }
    }
}

/// The NaN an NVIDIA GPU returns for an f32 NaN result (PTX "canonical NaN", measured
/// on an H200): the bits `0x7FFF_FFFF`, not Rust's `f32::NAN` (`0x7FC0_0000`).
const CANONICAL_NAN: u32 = 0x7FFF_FFFF;

/// One step of the reference fold: PTX `max.f32` (`propagate_nan` false: a NaN operand
/// is ignored, two NaNs give the canonical NaN) or `max.NaN.f32` (`propagate_nan` true:
/// any NaN gives the canonical NaN), with `+0.0 > -0.0` as PTX orders them. Written out
/// here rather than `f32::max`, which leaves the sign of a zero result unspecified.
fn max_step(acc: f32, v: f32, propagate_nan: bool) -> f32 {
    match (acc.is_nan(), v.is_nan()) {
        (true, true) => f32::from_bits(CANONICAL_NAN),
        (true, false) | (false, true) if propagate_nan => f32::from_bits(CANONICAL_NAN),
        (true, false) => v,
        (false, true) => acc,
        (false, false) if acc == v => {
            if acc.is_sign_negative() {
                v
            } else {
                acc
            }
        }
        (false, false) => {
            if acc > v {
                acc
            } else {
                v
            }
        }
    }
}

/// The plain-Rust reference: `y[r] = max over c of x[offset + r*stride_row + c*stride_col]`
/// folded from `-inf` in column order, bit for bit what the GPU computes (see
/// `docs/semantics.md`):
/// - NaN is ignored (`tl.max`, CUDA `fmaxf`, PTX `max.f32`), so a row of only NaN gives
///   `-inf` (the identity; the kernels start from `-inf` or pad masked lanes with it);
/// - with `propagate_nan`, any NaN in the row gives the canonical NaN `0x7FFF_FFFF`;
/// - `+0.0 > -0.0`: a row of zeros gives `+0.0` if it holds one, else `-0.0`.
pub fn cpu_row_max(
    x: &[f32],
    offset: usize,
    n_rows: usize,
    n_cols: usize,
    stride_row: isize,
    stride_col: isize,
    propagate_nan: bool,
) -> Vec<f32> {
    (0..n_rows)
        .map(|r| {
            (0..n_cols).fold(f32::NEG_INFINITY, |acc, c| {
                let idx = offset as isize + r as isize * stride_row + c as isize * stride_col;
                max_step(acc, x[idx as usize], propagate_nan)
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bits(v: Vec<f32>) -> Vec<u32> {
        v.into_iter().map(f32::to_bits).collect()
    }

    #[test]
    fn signed_zeros_follow_ptx_max() {
        let x = [-0.0, 0.0, -0.0, -0.0, 0.0, -0.0];
        assert_eq!(bits(cpu_row_max(&x, 0, 3, 2, 2, 1, false)), vec![0, 0x8000_0000, 0]);
    }

    #[test]
    fn nan_is_ignored_or_propagated_as_the_canonical_nan() {
        let nan = f32::NAN;
        let x = [nan, 1.0, nan, nan];
        assert_eq!(bits(cpu_row_max(&x, 0, 2, 2, 2, 1, false)), vec![0x3F80_0000, 0xFF80_0000]);
        assert_eq!(bits(cpu_row_max(&x, 0, 2, 2, 2, 1, true)), vec![CANONICAL_NAN, CANONICAL_NAN]);
    }
}
