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

    /// `exp(x)` for `x <= 0` (an element minus the running maximum) in a softmax stored as
    /// this type: `exp`, `2^(x log2(e))`.
    fn exp_below_max(x: Tensor<f32>) -> Tensor<f32> {
        exp(x)
    }
}

impl SoftmaxElement for f32 {
    const NEG_INF: f32 = f32::NEG_INFINITY;
}

impl SoftmaxElement for f16 {
    const NEG_INF: f16 = f16::NEG_INFINITY;

    /// The same product, with the power flushed below 2^-126 (`exp2_ftz`, 3 SASS
    /// instructions fewer): such a power is either added to a sum of at least 1 (the
    /// maximum's own `exp(0)`), under half its ulp, or divided by that sum and stored as
    /// `f16`, where anything below 2^-25 is zero. The stored results are `exp`'s, unless a
    /// flushed power decides a rounding tie of a partial sum (each is under 2^-126 against
    /// sums it would move by half an ulp), and within the port's tolerance in any case.
    fn exp_below_max(x: Tensor<f32>) -> Tensor<f32> {
        exp2_ftz(x * std::f32::consts::LOG2_E)
    }
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

/// `exp(row - max(row)) / sum(exp(row - max(row)))` of one row held in a block: the math
/// both single-block bodies share.
fn softmax_of_row<T: SoftmaxElement>(row: Tensor<f32>) -> Tensor<f32> {
    // Subtract the maximum for numerical stability (exp cannot overflow).
    let row_minus_max = row - max(row, 0);
    // `exp` is `ex2.approx` of the argument scaled by log2(e), as in Triton.
    let numerator = T::exp_below_max(row_minus_max);
    // Triton's `tl.sum`: pairwise on the interpreter, each thread's elements then a
    // tree across threads on the GPU; an error of about log2(width) ulp either way.
    // (`reduce` with `+` gives one order on every back end, but under the blocked
    // layout its tree sends every repetition of a thread's row across the lanes and
    // warps: 0.82x as fast at 32768 columns, the H200 record of 2026-12-04 at `d5a2047`.)
    let denominator = sum(numerator, 0);
    // One correctly rounded reciprocal per row, then a multiply per element: within
    // one ulp of `numerator / denominator`, without a `div.rn` (a dozen instructions
    // and a slow path) per element.
    numerator * (1.0 / denominator)
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
        let softmax_output = softmax_of_row::<T>(row);
        let output_ptrs = a.output_ptr + row_idx * a.output_row_stride + cols * a.output_col_stride;
        store(output_ptrs, softmax_output.to::<T>(), Some(mask));
    });
}

/// [`softmax_rows`] with the next row's load issued before this row's reductions: the
/// row loop carries the loaded row, so while a program reduces and writes row `r` the
/// loads of row `r + row_step` are in flight. Triton's tutorial gets this overlap from
/// `tl.range(..., num_stages=num_stages)`, its software pipeliner, which stages the next
/// rows in shared memory with `cp.async`; here the pipelining is written in the body, one
/// row ahead, and the next row is staged the same way (`load_staged`): its copies land in
/// shared memory while the registers hold only the current row, and it is read back after
/// this row's store, at the end of the body. So a thread needs registers for one row, not
/// two, and rows up to [`MAX_STAGED_BLOCK`] columns fit one block. It pays off with a
/// persistent grid (fewer programs than rows, each looping, as the tutorial launches); with
/// one program per row the prefetch is fully masked.
pub fn softmax_rows_prefetch<T: SoftmaxElement>(a: SoftmaxArgs<T>, block_size: usize) {
    prefetch_rows(a, block_size, true);
}

/// [`softmax_rows_prefetch`] with the next row a plain `load`, held in registers while
/// this row is reduced, so a thread needs registers for two rows: what the plan runs for
/// rows up to [`MAX_SINGLE_BLOCK`] columns ([`Form::PrefetchRegisters`]), where it ran
/// faster than staging (the H200 record of 2026-12-04 at `af83889`).
pub fn softmax_rows_prefetch_registers<T: SoftmaxElement>(a: SoftmaxArgs<T>, block_size: usize) {
    prefetch_rows(a, block_size, false);
}

/// The prefetching body; `staged` picks how the next row is loaded.
fn prefetch_rows<T: SoftmaxElement>(a: SoftmaxArgs<T>, block_size: usize, staged: bool) {
    let row_start = program_id(0);
    let row_step = num_programs(0);
    let col_offsets = arange(0, block_size);
    let mask = col_offsets.lt(a.n_cols);
    let cols = col_offsets.to::<i64>();
    let in_cols = cols * a.input_col_stride;
    let out_cols = cols * a.output_col_stride;
    // Row `row_idx`, or nothing loaded (all -inf) past the last row.
    let load_row = |row_idx: Tensor<i32>| {
        let in_range = mask & row_idx.lt(a.n_rows);
        let ptrs = a.input_ptr + row_idx.to::<i64>() * a.input_row_stride + in_cols;
        if staged {
            load_staged(ptrs, Some(in_range), Some(T::NEG_INF))
        } else {
            load(ptrs, Some(in_range), Some(T::NEG_INF))
        }
    };
    let first = load_row(row_start);
    for_range(row_start, a.n_rows, row_step, first, |row_idx, loaded| {
        // `row_idx < n_rows` and `row_step <= n_rows` for any grid the plan launches, so
        // the sum stays below 2 * n_rows: it cannot wrap for n_rows < 2^30.
        let next = load_row(row_idx + row_step);
        let softmax_output = softmax_of_row::<T>(loaded.to::<f32>());
        let output_ptrs = a.output_ptr + row_idx.to::<i64>() * a.output_row_stride + out_cols;
        store(output_ptrs, softmax_output.to::<T>(), Some(mask));
        next
    });
}

/// The online softmax body for any element type: rows of any width in tiles of
/// `block_size` columns. The first pass keeps a running maximum `m` and a running sum `d`
/// of `exp(x - m)`, rescaled whenever the maximum grows: `d = d * exp(m_old - m_new) +
/// sum(exp(x - m_new))`; the second pass writes `exp(x - m) / d`. Both passes load the
/// next tile before working on the current one (the loop carries the loaded tile), so a
/// tile's loads are in flight during the previous tile's reductions, as in
/// [`softmax_rows_prefetch`].
///
/// The row's last tile is read once: the first pass's loop stops before it, so the tile
/// it carries out is the last one, which the pass folds in and the second pass writes
/// first, from registers, while the loads of the row's first tile are in flight; the
/// second pass's loop then reloads only the tiles before it. A row of two tiles (2048 x
/// 32768 `f32` in tiles of 16384) reads three tiles instead of four; a row of one tile
/// reads it once, as the single-block kernel does.
pub fn softmax_online_rows<T: SoftmaxElement>(a: SoftmaxArgs<T>, block_size: usize) {
    let row_start = program_id(0);
    let row_step = num_programs(0);
    let col_offsets = arange(0, block_size);
    let tile = block_size as i32;
    // Where the row's last tile starts: 0 for rows of at most one tile (and for empty
    // rows, whose tile is all masked). No i32 wrap: it is at most `n_cols - 1`.
    let last = (maximum(a.n_cols, 1) - 1) / tile * tile;
    for_range(row_start, a.n_rows, row_step, (), |row_idx, ()| {
        let row_idx = row_idx.to::<i64>();
        let input_row = a.input_ptr + row_idx * a.input_row_stride;
        let output_row = a.output_ptr + row_idx * a.output_row_stride;
        // The tile at `start`, its columns below `end` (past them nothing is loaded: all
        // -inf). `start` stays below `n_cols + tile`: no i32 wrap for widths under 2^31 -
        // 2^20.
        let load_tile = |start: Tensor<i32>, end: Tensor<i32>| {
            let cols = start + col_offsets;
            load(input_row + cols.to::<i64>() * a.input_col_stride, Some(cols.lt(end)), Some(T::NEG_INF))
        };
        // `(m, d)` with the tile `x` folded in.
        let fold = |m: Tensor<f32>, d: Tensor<f32>, x: Tensor<T>| {
            let x = x.to::<f32>();
            let m_new = maximum(m, max(x, 0));
            // While every element so far is -inf, m_new is -inf and exp(-inf - -inf)
            // would be NaN: subtract 0 then, so both exponentials below give 0 and d stays
            // 0. (A row of only -inf still ends as NaN, in the second pass, as the
            // single-block kernel and torch give.)
            let m_shift = where_(m_new.gt(NEG_INF), m_new, 0.0);
            let tile_sum = sum(T::exp_below_max(x - m_shift), 0);
            (m_new, d * T::exp_below_max(m - m_shift) + tile_sum)
        };
        let m = full::<f32>(&[], NEG_INF);
        let d = full::<f32>(&[], 0.0);
        let first = load_tile(full::<i32>(&[], 0), a.n_cols);
        // Pass 1 over the tiles before the last; it carries the last one out, loaded.
        let (m, d, last_tile) = for_range(0, last, tile, (m, d, first), |start, (m, d, x)| {
            let next = load_tile(start + tile, a.n_cols);
            let (m, d) = fold(m, d, x);
            (m, d, next)
        });
        let (m, d) = fold(m, d, last_tile);
        // One reciprocal per row, as in the single-block kernels.
        let inv_d = 1.0 / d;
        let write = |start: Tensor<i32>, x: Tensor<T>| {
            let cols = start + col_offsets;
            let softmax_output = T::exp_below_max(x.to::<f32>() - m) * inv_d;
            store(
                output_row + cols.to::<i64>() * a.output_col_stride,
                softmax_output.to::<T>(),
                Some(cols.lt(a.n_cols)),
            );
        };
        // Pass 2: the first tile's loads go out (none when the row is one tile), then the
        // last tile is written from registers, then the tiles before it, reloaded.
        let first = load_tile(full::<i32>(&[], 0), last);
        write(last, last_tile);
        for_range(0, last, tile, first, |start, x| {
            let next = load_tile(start + tile, last);
            write(start, x);
            next
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
    /// Row softmax of an f32 matrix, one block per row, the next row prefetched.
    softmax_prefetch_kernel_f32: f32 => softmax_rows_prefetch;
    /// Row softmax of an f16 matrix, one block per row, the next row prefetched.
    softmax_prefetch_kernel_f16: f16 => softmax_rows_prefetch;
    /// Row softmax of a bf16 matrix, one block per row, the next row prefetched.
    softmax_prefetch_kernel_bf16: bf16 => softmax_rows_prefetch;
    /// [`softmax_prefetch_kernel_f32`] with the next row in registers (rows up to 16384).
    softmax_prefetch_registers_kernel_f32: f32 => softmax_rows_prefetch_registers;
    /// [`softmax_prefetch_kernel_f16`] with the next row in registers (rows up to 16384).
    softmax_prefetch_registers_kernel_f16: f16 => softmax_rows_prefetch_registers;
    /// [`softmax_prefetch_kernel_bf16`] with the next row in registers (rows up to 16384).
    softmax_prefetch_registers_kernel_bf16: bf16 => softmax_rows_prefetch_registers;
}

/// The register-prefetch kernel for `dtype` (see [`softmax_rows_prefetch_registers`]).
pub fn prefetch_registers_def(dtype: Dtype) -> KernelDef {
    match dtype {
        Dtype::F32 => softmax_prefetch_registers_kernel_f32(),
        Dtype::F16 => softmax_prefetch_registers_kernel_f16(),
        Dtype::Bf16 => softmax_prefetch_registers_kernel_bf16(),
    }
}

/// The widest row the single-block kernel takes: `BLOCK_SIZE` 16384 at 16 warps is 32
/// f32 per thread per block value (the row and its exponentials), well inside the
/// register file; wider rows go to the online kernel.
pub const MAX_SINGLE_BLOCK: usize = 16384;

/// The online kernel's tile for rows of 16-byte vectors: 16384 columns, 128 bytes per
/// thread (16 warps of f32, 8 of f16), twice that with the prefetched tile. Measured on
/// the H200 at 2048 x 32768 (the H200 record of 2026-12-04 at `aa60014`): 1.09x
/// (f32) and 1.03x (f16) faster than tiles of 8192 without prefetch.
pub const ONLINE_TILE: usize = 16384;

/// The online kernel's tile for rows loaded element by element: 4096 columns at 8 warps
/// (16 elements per thread, each with its own address register, twice with the prefetch).
pub const SCALAR_ONLINE_TILE: usize = 4096;

/// Which body a launch uses.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Form {
    /// `softmax_kernel_*`: the row in one block.
    SingleBlock,
    /// `softmax_online_kernel_*`: tiles, two passes.
    Online,
    /// `softmax_prefetch_kernel_*`: the row in one block, the next row's load in flight,
    /// staged in shared memory (rows past [`MAX_SINGLE_BLOCK`]).
    Prefetch,
    /// `softmax_prefetch_registers_kernel_*`: the same with the next row in registers
    /// (rows up to [`MAX_SINGLE_BLOCK`], where it ran faster than staging). No plan
    /// chooses it since one program a row ran faster (see [`plan`]); the bench times it
    /// beside those rows and the suites keep it correct.
    PrefetchRegisters,
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

    /// Bytes per element.
    pub fn bytes(self) -> usize {
        match self {
            Dtype::F32 => 4,
            Dtype::F16 | Dtype::Bf16 => 2,
        }
    }
}

/// How to launch the softmax of `n_cols`-wide rows.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Plan {
    pub form: Form,
    pub block_size: usize,
    pub num_warps: u32,
    /// One program per SM, each looping over rows ([`grid`]), instead of one per row.
    pub persistent: bool,
    /// CTAs an SM should hold at once (PTX `.minnctapersm`; 0: no bound): see [`plan`].
    pub min_ctas_per_sm: u32,
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
        (Form::Prefetch, Dtype::F32) => softmax_prefetch_kernel_f32(),
        (Form::Prefetch, Dtype::F16) => softmax_prefetch_kernel_f16(),
        (Form::Prefetch, Dtype::Bf16) => softmax_prefetch_kernel_bf16(),
        (Form::PrefetchRegisters, dtype) => prefetch_registers_def(dtype),
    }
}

/// The widest vector row the prefetching kernel takes in one block: 32768 columns at 16
/// warps is 64 f32 of row per thread. The next row is staged in shared memory
/// (`load_staged`), not held in registers, so ptxas fits it in 128 registers without
/// spills for f32, f16 and bf16 (`tests/tests/port_softmax.rs` checks), which one
/// 512-thread program per SM allows; the staged row (128 KiB of f32) must fit the
/// device's shared memory (see [`prefetch_shared_bytes`]).
pub const MAX_STAGED_BLOCK: usize = 32768;

/// The most shared memory a program may use on the H200 (227 KiB,
/// `CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN`): what the suites and the CPU
/// tests plan for, as they take its 132 SMs.
pub const H200_SHARED_BYTES: usize = 227 * 1024;

/// The reductions' shared scratch of a softmax block: one partial per warp, at most
/// this much at 16 warps (an upper bound; the test of [`prefetch_shared_bytes`] compares it
/// with the lowered kernels').
const SCRATCH_BYTES: usize = 1024;

/// Shared memory a prefetching program of `block_size` elements of `dtype` uses: the
/// staged next row (16-byte vectors, one buffer: the first row's load is read back before
/// the loop's takes it over) and the reductions' scratch.
pub fn prefetch_shared_bytes(block_size: usize, dtype: Dtype) -> usize {
    block_size * dtype.bytes() + SCRATCH_BYTES
}

/// The launch for rows of `n_cols` elements of `dtype`, `vectors` saying whether the rows'
/// loads and stores are 16-byte vectors (contiguous columns, and the width, the row
/// strides and the offsets multiples of 16 elements, as Triton's specialization proves),
/// on a device that gives a program at most `shared_bytes` of shared memory
/// ([`H200_SHARED_BYTES`] on the H200).
///
/// One block of the next power of two when that is at most [`MAX_SINGLE_BLOCK`] (the
/// tutorial's `triton.next_power_of_2(n_cols)`), or for vector rows at most
/// [`MAX_STAGED_BLOCK`] when the staged row fits `shared_bytes`; else the online kernel in
/// tiles of [`ONLINE_TILE`] ([`SCALAR_ONLINE_TILE`] without vectors). A vector block that
/// takes 16 warps (32 KiB of row or more) runs one program per row where that was
/// measured faster (below), else the prefetching kernel on a persistent grid: one
/// 512-thread program per SM is what its registers allow (up to 128 per thread), and
/// without the next row in flight such a program leaves its SM's memory pipe idle while it
/// reduces (the H200 record of 2026-12-04 at `aa60014`). That is 16-bit rows past
/// [`MAX_SINGLE_BLOCK`], the next row staged in shared memory ([`Form::Prefetch`]): at
/// 2048 x 32768 on the H200 (the H200 record of 2026-12-04 at `af83889`) staging ran 1.03x
/// (f16) and 0.99x (bf16) of the online kernel, which reads 1.5 rows per row written, and
/// 1.14x and 1.16x of Triton's kernel on the H200. One program per row:
/// - f32 rows of 16 warps up to [`MAX_SINGLE_BLOCK`] columns, two per SM
///   ([`TWO_PROGRAMS_PER_SM`]), which ran 1.05x faster than the register prefetch at
///   4096 x 16384 (runs 12 and 13; rows of 8192 take the same rule, unmeasured,
///   ptxas-checked); f32 rows past it up to [`MAX_F32_ONE_ROW_BLOCK`], one per SM (128
///   registers), which needs no shared memory;
/// - 16-bit rows of 16 warps up to [`MAX_SINGLE_BLOCK`] (8193 to 16384 columns), as
///   Triton's tutorial launches them: ptxas gives `softmax_kernel_f16`/`_bf16` 62
///   registers for sm_90 (57 for sm_86), so two programs share an SM without a bound. At
///   4096 x 16384 on the H200 they ran 3.69 TB/s (f16) against the register prefetch's
///   ([`Form::PrefetchRegisters`], one program per SM) 3.57, twice
///   (the H200 record of 2026-12-06 at `9ab1c55`), and on an H100 level with Triton's
///   kernel and 1.04x faster than the prefetch in f16 and bf16
///   (the H100 record of 2026-12-06 at `bfb9661`). On the H200 with the loops of `57a09d5` they had run
///   0.92x to 0.94x of the prefetch, and the plan took the prefetch then: every
///   program divided a 64-bit trip count (a `div.u64` subroutine) before its first load,
///   which loops no longer do (`docs/performance.md`). No plan chooses the register
///   prefetch now; the bench times it beside these rows.
///
/// Element-wise accesses take an address register per element and cannot be staged: they
/// get the warps of f32 and no prefetch, which would spill.
pub fn plan(n_cols: usize, dtype: Dtype, vectors: bool, shared_bytes: usize) -> Plan {
    let block = n_cols.max(1).next_power_of_two();
    // Registers per element: a vector shares its address, a scalar access does not.
    let bytes = if vectors { dtype.bytes() } else { 4 };
    let staged_fits = vectors && prefetch_shared_bytes(block, dtype) <= shared_bytes;
    let fits_registers = block <= MAX_SINGLE_BLOCK;
    // Vector rows of 16 warps: one program per row, f32 up to [`MAX_F32_ONE_ROW_BLOCK`]
    // (two per SM where its registers allow), 16-bit up to [`MAX_SINGLE_BLOCK`] (see the
    // doc above).
    let one_row_limit = if dtype == Dtype::F32 { MAX_F32_ONE_ROW_BLOCK } else { MAX_SINGLE_BLOCK };
    if vectors && warps_for(block * bytes) == MAX_WARPS && block <= one_row_limit {
        let two = dtype == Dtype::F32 && fits_registers;
        return Plan {
            form: Form::SingleBlock,
            block_size: block,
            num_warps: MAX_WARPS,
            persistent: false,
            min_ctas_per_sm: if two { TWO_PROGRAMS_PER_SM } else { 0 },
        };
    }
    if fits_registers || (staged_fits && block <= MAX_STAGED_BLOCK) {
        let num_warps = warps_for(block * bytes);
        let persistent = vectors && num_warps == MAX_WARPS;
        let form = match (persistent, fits_registers) {
            (false, _) => Form::SingleBlock,
            (true, true) => Form::PrefetchRegisters,
            (true, false) => Form::Prefetch,
        };
        Plan { form, block_size: block, num_warps, persistent, min_ctas_per_sm: 0 }
    } else {
        // 128 bytes of tile per thread with vectors, 16 elements without.
        let (tile, num_warps) = if vectors {
            (ONLINE_TILE, warps_for(ONLINE_TILE * bytes / 2))
        } else {
            (SCALAR_ONLINE_TILE, warps_for(SCALAR_ONLINE_TILE * 4))
        };
        Plan { form: Form::Online, block_size: tile, num_warps, persistent: false, min_ctas_per_sm: 0 }
    }
}

/// The widest `f32` vector row the plan gives the one-row kernel (`softmax_kernel_f32` on
/// 16 warps, one program per SM: 64 elements a thread, within its 128 registers without
/// spills, `tests/tests/port_softmax.rs`), Triton's tutorial configuration. At 2048 x 32768
/// on the H200 it ran 3.849 TB/s (0.99x of Triton) where the staged prefetch it replaces,
/// timed beside it, ran 3.637 (the H200 record of 2026-12-04 at `b04a541`).
pub const MAX_F32_ONE_ROW_BLOCK: usize = 32768;

/// `min_ctas_per_sm` of the 16-warp `f32` single-block plan: ptxas fits
/// `softmax_kernel_f32` with `BLOCK_SIZE` 16384 in 64 registers without spilling (79
/// unbounded), so two programs share an SM, as Triton's kernel (57 registers) does; a
/// program's reductions then overlap the other's loads. On the H200 at 4096 x 16384, the
/// sums then `reduce` (the H200 record of 2026-12-04 at `d5a2047`): 3.95 TB/s against
/// 2.83 without the bound and 3.75 for the register-prefetch kernel; f16 rows ran 3.04 that
/// way against 3.44 prefetching, so 16-bit rows keep the prefetch. With `sum`
/// (the H200 record of 2026-12-04 at `9134d83`): 3.96 against 3.85.
pub const TWO_PROGRAMS_PER_SM: u32 = 2;

/// The most warps a softmax block takes.
pub const MAX_WARPS: u32 = 16;

/// Warps for a block of `block_size` elements of `dtype` loaded as 16-byte vectors: see
/// [`plan`].
pub fn num_warps(block_size: usize, dtype: Dtype) -> u32 {
    warps_for(block_size * dtype.bytes())
}

/// Warps for a block of `bytes`: one per 2 KiB (each thread four 16-byte loads: 16 f32 or
/// 32 f16), from 1 to [`MAX_WARPS`]. Measured on the H200
/// (the H200 record of 2026-12-04 at `2ab94c2`, and that of the same day at `aa60014`): per 2
/// KiB ran 4096-column f32 rows 1.23x faster than per 1 KiB (the tutorial's older 4 / 8 /
/// 16 rule), and 4096-column f16 rows 1.11x faster at 4 warps than at 8.
fn warps_for(bytes: usize) -> u32 {
    (bytes / 2048).clamp(1, MAX_WARPS as usize) as u32
}

/// The programs of a launch of `plan` over `n_rows` rows on a device of `sm_count` SMs:
/// one per row, or for a persistent plan one per SM (fewer when there are fewer rows),
/// each taking every `grid`-th row as the tutorial's persistent loop does.
pub fn grid(plan: Plan, n_rows: usize, sm_count: usize) -> [u32; 3] {
    let programs = if plan.persistent { n_rows.min(sm_count.max(1)) } else { n_rows };
    [programs.max(1) as u32, 1, 1]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plan_covers_a_row_in_one_block_up_to_the_limit_and_goes_online_past_it() {
        use Dtype::{Bf16, F16, F32};
        use Form::{Online, Prefetch, SingleBlock};
        // (width, dtype, 16-byte vectors, form, block, warps)
        let table = [
            (1, F32, false, SingleBlock, 1, 1),
            (7, F32, false, SingleBlock, 8, 1),
            (781, F32, false, SingleBlock, 1024, 2),
            (781, F16, false, SingleBlock, 1024, 2),
            (1024, F32, true, SingleBlock, 1024, 2),
            (1024, F16, true, SingleBlock, 1024, 1),
            (2048, F32, true, SingleBlock, 2048, 4),
            (4096, F32, true, SingleBlock, 4096, 8),
            (4096, F16, true, SingleBlock, 4096, 4),
            (4096, F16, false, SingleBlock, 4096, 8),
            (4097, F32, false, SingleBlock, 8192, 16),
            (8192, F32, true, SingleBlock, 8192, 16),
            (8192, F16, true, SingleBlock, 8192, 8),
            (16384, F32, true, SingleBlock, 16384, 16),
            (16384, F16, true, SingleBlock, 16384, 16),
            (16384, Bf16, true, SingleBlock, 16384, 16),
            (16384, F32, false, SingleBlock, 16384, 16),
            (16384, F16, false, SingleBlock, 16384, 16),
            (16385, F32, false, Online, SCALAR_ONLINE_TILE, 8),
            (16385, F16, false, Online, SCALAR_ONLINE_TILE, 8),
            (16400, F32, true, SingleBlock, 32768, 16),
            (32768, F32, true, SingleBlock, 32768, 16),
            (32768, F16, true, Prefetch, 32768, 16),
            (32768, F32, false, Online, SCALAR_ONLINE_TILE, 8),
            (32769, F32, true, Online, ONLINE_TILE, 16),
            (32769, F16, true, Online, ONLINE_TILE, 8),
            (1 << 20, F32, true, Online, ONLINE_TILE, 16),
        ];
        for (n_cols, dtype, vectors, form, block_size, num_warps) in table {
            let persistent = form == Prefetch;
            // f32 blocks of 16 warps: one program per row, two per SM up to 16384 columns.
            let two = form == SingleBlock && num_warps == 16 && vectors && dtype == F32 && block_size <= 16384;
            let min_ctas_per_sm = if two { 2 } else { 0 };
            let want = Plan { form, block_size, num_warps, persistent, min_ctas_per_sm };
            let got = plan(n_cols, dtype, vectors, H200_SHARED_BYTES);
            assert_eq!(got, want, "n_cols {n_cols} {dtype:?} vectors {vectors}");
        }
    }

    /// The staged row must fit the device: on sm_86 (99 KiB per program) 32768 f16
    /// columns (64 KiB) prefetch (f32 ones take the one-row kernel, no staging); with too little
    /// shared memory for any staged row, wide vector rows go online. Rows up to 16384
    /// columns run one program a row and need no shared memory for a next row.
    #[test]
    fn the_prefetch_needs_the_staged_row_to_fit_the_devices_shared_memory() {
        use Form::{Online, Prefetch, SingleBlock};
        const SM86: usize = 99 * 1024;
        let table = [
            (32768, Dtype::F32, SM86, SingleBlock, 32768),
            (32768, Dtype::F16, SM86, Prefetch, 32768),
            (16384, Dtype::F16, SM86, SingleBlock, 16384),
            (16384, Dtype::Bf16, 48 * 1024, SingleBlock, 16384),
            (32768, Dtype::Bf16, 48 * 1024, Online, ONLINE_TILE),
        ];
        for (n_cols, dtype, shared, form, block) in table {
            let p = plan(n_cols, dtype, true, shared);
            assert_eq!((p.form, p.block_size), (form, block), "{n_cols} {dtype:?} with {shared} bytes");
            assert_eq!(p.persistent, form == Prefetch);
        }
    }

    #[test]
    fn a_persistent_grid_is_one_program_per_sm_or_per_row_when_fewer() {
        let (wide, narrow) =
            (plan(32768, Dtype::F16, true, H200_SHARED_BYTES), plan(1024, Dtype::F32, true, H200_SHARED_BYTES));
        let table = [(wide, 4096, 132, 132), (wide, 100, 132, 100), (wide, 0, 132, 1), (narrow, 4096, 132, 4096)];
        for (p, rows, sms, programs) in table {
            assert_eq!(grid(p, rows, sms), [programs, 1, 1], "{p:?} {rows} rows");
        }
    }

    #[test]
    fn every_kernel_has_its_dtype_in_its_name() {
        for form in [Form::SingleBlock, Form::Online, Form::Prefetch, Form::PrefetchRegisters] {
            for dtype in Dtype::ALL {
                let def = kernel_def(form, dtype);
                assert!(def.name.ends_with(dtype.name()), "{}", def.name);
            }
        }
    }
}
