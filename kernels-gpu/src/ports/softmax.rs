//! Fused softmax. After Triton's tutorial `python/tutorials/02-fused-softmax.py`,
//! `softmax_kernel`: each program loops over rows with a step of the grid size, loads a
//! whole row into one block (`BLOCK_SIZE` = the next power of two >= `n_cols`, masked
//! with `-inf`), and writes `exp(row - max(row)) / sum(exp(row - max(row)))`.
//!
//! What rtriton adds to the tutorial:
//! - a column stride for the input and the output besides the row strides, so strided and
//!   transposed views work (Triton's specialization makes a stride of 1 a constant, and
//!   contiguous rows still load as vectors);
//! - `softmax_online_kernel_*`, the online form (running max and rescaled running sum,
//!   then a second pass) for rows wider than one block, so any width works; [`plan`]
//!   chooses between the two by the width;
//! - f16 and bf16 inputs and outputs: each kernel body is one generic Rust function over
//!   the element type ([`SoftmaxElement`]), called by one `kernel!` per dtype; the math
//!   runs in f32, as Triton extends half types around `tl.exp`, and the result is rounded
//!   to the element type once, at the store.
//!
//! Offsets are computed in i64 (the row index and the column offsets are widened before
//! they meet the strides), so tensors past 2^31 elements work, which the tutorial's i32
//! `row_idx * input_row_stride` does not.

use half::{bf16, f16};
use rtriton::kernel;
use rtriton::prelude::*;
use rtriton::trace::KernelDef;

const NEG_INF: f32 = f32::NEG_INFINITY;

/// The element types the softmax kernels load and store.
pub trait SoftmaxElement: ScalarMarker {
    /// `-inf` of the element type: what a masked lane loads, so it changes neither the
    /// maximum nor (as `exp(-inf) = 0`) the sum.
    const NEG_INF: Self::Native;
}

impl SoftmaxElement for f32 {
    const NEG_INF: f32 = f32::NEG_INFINITY;
}

impl SoftmaxElement for f16 {
    const NEG_INF: f16 = f16::NEG_INFINITY;
}

impl SoftmaxElement for bf16 {
    const NEG_INF: bf16 = bf16::NEG_INFINITY;
}

/// The runtime arguments every softmax kernel takes, in parameter order: `output_ptr,
/// input_ptr`, then the input's row and column strides, the output's row and column
/// strides (in elements), `n_rows` and `n_cols`.
#[derive(Clone, Copy, Debug)]
pub struct SoftmaxArgs<T: SoftmaxElement> {
    pub output_ptr: Tensor<Ptr<T>>,
    pub input_ptr: Tensor<Ptr<T>>,
    pub input_row_stride: Tensor<i32>,
    pub input_col_stride: Tensor<i32>,
    pub output_row_stride: Tensor<i32>,
    pub output_col_stride: Tensor<i32>,
    pub n_rows: Tensor<i32>,
    pub n_cols: Tensor<i32>,
}

/// The tutorial's `softmax_kernel` body for any element type: the row in one block.
pub fn softmax_rows<T: SoftmaxElement>(a: SoftmaxArgs<T>, block_size: usize) {
    // The rows of the softmax are independent, so programs take every `row_step`-th row.
    let row_start = program_id(0);
    let row_step = num_programs(0);
    let col_offsets = arange(0, block_size);
    // BLOCK_SIZE may be larger than n_cols: the padding lanes are masked.
    let mask = col_offsets.lt(a.n_cols);
    let cols = col_offsets.to::<i64>();
    for_range(row_start, a.n_rows, row_step, (), |row_idx, ()| {
        let row_idx = row_idx.to::<i64>();
        let input_ptrs = a.input_ptr + row_idx * a.input_row_stride + cols * a.input_col_stride;
        // Padding lanes read -inf: they change neither the maximum nor the sum.
        let row = load(input_ptrs, Some(mask), Some(T::NEG_INF)).to::<f32>();
        // Subtract the maximum for numerical stability (exp cannot overflow).
        let row_minus_max = row - max(row, 0);
        // `exp` is `ex2.approx` of the argument scaled by log2(e), as in Triton.
        let numerator = exp(row_minus_max);
        // Triton's `tl.sum`. rtriton's `sum` adds left to right on the interpreter, an
        // error growing with the width; `reduce` with `+` adds in one balanced tree on
        // every back end: the same bits everywhere and an error of log2(width) ulp.
        let denominator = reduce(numerator, 0, |a: Tensor<f32>, b: Tensor<f32>| a + b);
        let softmax_output = numerator / denominator;
        let output_ptrs = a.output_ptr + row_idx * a.output_row_stride + cols * a.output_col_stride;
        store(output_ptrs, softmax_output.to::<T>(), Some(mask));
    });
}

/// The online softmax body for any element type: rows of any width in tiles of
/// `block_size` columns. The first pass keeps a running maximum `m` and a running sum `d`
/// of `exp(x - m)`, rescaled whenever the maximum grows: `d = d * exp(m_old - m_new) +
/// sum(exp(x - m_new))`; the second pass writes `exp(x - m) / d`.
pub fn softmax_online_rows<T: SoftmaxElement>(a: SoftmaxArgs<T>, block_size: usize) {
    let row_start = program_id(0);
    let row_step = num_programs(0);
    let col_offsets = arange(0, block_size);
    for_range(row_start, a.n_rows, row_step, (), |row_idx, ()| {
        let row_idx = row_idx.to::<i64>();
        let input_row = a.input_ptr + row_idx * a.input_row_stride;
        let output_row = a.output_ptr + row_idx * a.output_row_stride;
        let m = full::<f32>(&[], NEG_INF);
        let d = full::<f32>(&[], 0.0);
        let (m, d) = for_range(0, a.n_cols, block_size as i32, (m, d), |start, (m, d)| {
            let cols = start + col_offsets;
            let mask = cols.lt(a.n_cols);
            let x = load(input_row + cols.to::<i64>() * a.input_col_stride, Some(mask), Some(T::NEG_INF));
            let x = x.to::<f32>();
            let m_new = maximum(m, max(x, 0));
            // While every element so far is -inf, m_new is -inf and exp(-inf - -inf)
            // would be NaN: subtract 0 then, so both exponentials below give 0 and d stays
            // 0. (A row of only -inf still ends as NaN, in the second pass, as the
            // single-block kernel and torch give.)
            let m_shift = where_(m_new.gt(NEG_INF), m_new, 0.0);
            let tile_sum = reduce(exp(x - m_shift), 0, |a: Tensor<f32>, b: Tensor<f32>| a + b);
            let d_new = d * exp(m - m_shift) + tile_sum;
            (m_new, d_new)
        });
        for_range(0, a.n_cols, block_size as i32, (), |start, ()| {
            let cols = start + col_offsets;
            let mask = cols.lt(a.n_cols);
            let cols = cols.to::<i64>();
            let x = load(input_row + cols * a.input_col_stride, Some(mask), Some(T::NEG_INF)).to::<f32>();
            let softmax_output = exp(x - m) / d;
            store(output_row + cols * a.output_col_stride, softmax_output.to::<T>(), Some(mask));
        });
    });
}

/// One `kernel!` per dtype and form, each calling the generic body.
macro_rules! softmax_kernels {
    ($($(#[$doc:meta])* $name:ident: $t:ty => $body:ident;)*) => {$(
        kernel! {
            $(#[$doc])*
            pub fn $name(output_ptr: Ptr<$t>, input_ptr: Ptr<$t>, input_row_stride: i32, input_col_stride: i32,
                         output_row_stride: i32, output_col_stride: i32, n_rows: i32, n_cols: i32;
                         const BLOCK_SIZE: usize) {
                let args = SoftmaxArgs {
                    output_ptr, input_ptr, input_row_stride, input_col_stride, output_row_stride,
                    output_col_stride, n_rows, n_cols,
                };
                $body::<$t>(args, BLOCK_SIZE);
            }
        }
    )*};
}

softmax_kernels! {
    /// Row softmax of an f32 matrix, one block per row (`BLOCK_SIZE >= n_cols`).
    softmax_kernel_f32: f32 => softmax_rows;
    /// Row softmax of an f16 matrix (math in f32), one block per row.
    softmax_kernel_f16: f16 => softmax_rows;
    /// Row softmax of a bf16 matrix (math in f32), one block per row.
    softmax_kernel_bf16: bf16 => softmax_rows;
    /// Row softmax of an f32 matrix of any width, online, in tiles of `BLOCK_SIZE` columns.
    softmax_online_kernel_f32: f32 => softmax_online_rows;
    /// Row softmax of an f16 matrix of any width, online (math in f32).
    softmax_online_kernel_f16: f16 => softmax_online_rows;
    /// Row softmax of a bf16 matrix of any width, online (math in f32).
    softmax_online_kernel_bf16: bf16 => softmax_online_rows;
}

/// The widest row the single-block kernel takes: `BLOCK_SIZE` 16384 at 16 warps is 32
/// f32 per thread per block value (the row and its exponentials), well inside the
/// register file; wider rows go to the online kernel.
pub const MAX_SINGLE_BLOCK: usize = 16384;

/// The online kernel's tile: 8192 columns at 16 warps, 16 f32 per thread (four 16-byte
/// loads of a contiguous f32 row).
pub const ONLINE_TILE: usize = 8192;

/// Which body a launch uses.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Form {
    /// `softmax_kernel_*`: the row in one block.
    SingleBlock,
    /// `softmax_online_kernel_*`: tiles, two passes.
    Online,
}

/// The element types the kernels are instantiated for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Dtype {
    F32,
    F16,
    Bf16,
}

impl Dtype {
    pub const ALL: [Dtype; 3] = [Dtype::F32, Dtype::F16, Dtype::Bf16];

    pub fn name(self) -> &'static str {
        match self {
            Dtype::F32 => "f32",
            Dtype::F16 => "f16",
            Dtype::Bf16 => "bf16",
        }
    }
}

/// How to launch the softmax of `n_cols`-wide rows.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Plan {
    pub form: Form,
    pub block_size: usize,
    pub num_warps: u32,
}

impl Plan {
    /// The kernel of this plan's form for `dtype`.
    pub fn def(self, dtype: Dtype) -> KernelDef {
        kernel_def(self.form, dtype)
    }
}

/// The kernel of `form` for `dtype`.
pub fn kernel_def(form: Form, dtype: Dtype) -> KernelDef {
    match (form, dtype) {
        (Form::SingleBlock, Dtype::F32) => softmax_kernel_f32(),
        (Form::SingleBlock, Dtype::F16) => softmax_kernel_f16(),
        (Form::SingleBlock, Dtype::Bf16) => softmax_kernel_bf16(),
        (Form::Online, Dtype::F32) => softmax_online_kernel_f32(),
        (Form::Online, Dtype::F16) => softmax_online_kernel_f16(),
        (Form::Online, Dtype::Bf16) => softmax_online_kernel_bf16(),
    }
}

/// The launch for rows of `n_cols`: one block of the next power of two when that is at
/// most [`MAX_SINGLE_BLOCK`] (the tutorial's `triton.next_power_of_2(n_cols)`), else
/// the online kernel in tiles of [`ONLINE_TILE`].
pub fn plan(n_cols: usize) -> Plan {
    let block = n_cols.max(1).next_power_of_two();
    if block <= MAX_SINGLE_BLOCK {
        Plan { form: Form::SingleBlock, block_size: block, num_warps: num_warps(block) }
    } else {
        Plan { form: Form::Online, block_size: ONLINE_TILE, num_warps: num_warps(ONLINE_TILE) }
    }
}

/// Warps for a block of `block_size` columns: one per 512 columns (16 f32 per thread,
/// four 16-byte loads), from 1 to 16. Measured on the H200 against one warp per 256
/// columns (the tutorial's older 4 / 8 / 16 rule) and per 256 up to 32 warps
/// (`docs/results/2026-12-04-h200-run4/softmax-warps/`): half the warps ran 4096-column
/// rows 1.23x faster (f32 and f16) and 1024-column rows 1.0-1.14x, while 32 warps on
/// 16384 columns ran slower than 16.
pub fn num_warps(block_size: usize) -> u32 {
    (block_size / 512).clamp(1, 16) as u32
}

/// One program per row (each program's row loop then runs once); a smaller grid makes the
/// programs loop, as the tutorial's persistent form does.
pub fn grid(n_rows: usize) -> [u32; 3] {
    [n_rows.max(1) as u32, 1, 1]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plan_covers_a_row_in_one_block_up_to_the_limit_and_goes_online_past_it() {
        let table = [
            (1, Form::SingleBlock, 1, 1),
            (7, Form::SingleBlock, 8, 1),
            (781, Form::SingleBlock, 1024, 2),
            (1024, Form::SingleBlock, 1024, 2),
            (2048, Form::SingleBlock, 2048, 4),
            (4096, Form::SingleBlock, 4096, 8),
            (4097, Form::SingleBlock, 8192, 16),
            (16384, Form::SingleBlock, 16384, 16),
            (16385, Form::Online, ONLINE_TILE, 16),
            (1 << 20, Form::Online, ONLINE_TILE, 16),
        ];
        for (n_cols, form, block_size, num_warps) in table {
            assert_eq!(plan(n_cols), Plan { form, block_size, num_warps }, "n_cols {n_cols}");
        }
    }

    #[test]
    fn every_kernel_has_its_dtype_in_its_name() {
        for form in [Form::SingleBlock, Form::Online] {
            for dtype in Dtype::ALL {
                let def = kernel_def(form, dtype);
                assert!(def.name.ends_with(dtype.name()), "{}", def.name);
            }
        }
    }
}
