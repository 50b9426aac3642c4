//! Layer norm forward with the whole row in one block: `x` is read from memory once per
//! row. The tutorial's `_layer_norm_fwd_fused` (`layer_norm::fwd_fused`) loops over the
//! row three times (mean, variance, normalize) and so reads it three times, the second
//! and third from L2 when the row is still there; that costs two dependent L2 round trips
//! per row on narrow rows and, on rows of 128 KiB, rereads from memory once the rows in
//! flight outgrow the L2. Here the row is loaded into one block, its mean and centred
//! variance are two reductions of that block (the tutorial's two-pass math, so the same
//! numbers), and `y` is computed from the same registers.
//!
//! Three bodies, one per way of overlapping rows, as the softmax port has
//! (`softmax::{softmax_rows, softmax_rows_prefetch_registers, softmax_rows_prefetch}`):
//! - [`NextRow::None`]: each program takes rows `pid, pid + grid, ...`; with a grid of one
//!   program per row, which the plan launches for blocks of up to 8 warps, the GPU keeps
//!   several programs per SM and overlaps them;
//! - [`NextRow::Registers`]: a persistent grid (one program per SM) whose row loop carries
//!   the next row, loaded before this row's reductions, in registers;
//! - [`NextRow::Staged`]: the same, the next row staged in shared memory (`load_staged`,
//!   `cp.async`), so a thread holds one row, not two.
//!
//! `layer_norm_fwd_plan` chooses among them and the tutorial's loop by the width.

use half::{bf16, f16};
use rtriton::kernel;
use rtriton::prelude::*;

use super::layer_norm::Element;

/// The runtime arguments of every whole-row forward kernel, in parameter order: the
/// tutorial's (`x, y, w, b, mean, rstd`, each tensor's strides in elements, `n`, `eps`) with
/// `n_rows` before `n`, since a program may take several rows.
#[derive(Clone, Copy, Debug)]
pub struct FwdArgs<T: Element> {
    pub x_ptr: Tensor<Ptr<T>>,
    pub y_ptr: Tensor<Ptr<T>>,
    pub w_ptr: Tensor<Ptr<T>>,
    pub b_ptr: Tensor<Ptr<T>>,
    pub mean_ptr: Tensor<Ptr<f32>>,
    pub rstd_ptr: Tensor<Ptr<f32>>,
    pub stride_x_row: Tensor<i32>,
    pub stride_x_col: Tensor<i32>,
    pub stride_y_row: Tensor<i32>,
    pub stride_y_col: Tensor<i32>,
    pub stride_w: Tensor<i32>,
    pub stride_b: Tensor<i32>,
    pub stride_mean: Tensor<i32>,
    pub stride_rstd: Tensor<i32>,
    pub n_rows: Tensor<i32>,
    pub n: Tensor<i32>,
    pub eps: Tensor<f32>,
}

/// Where a program keeps the next row while it works on this one.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NextRow {
    /// Nowhere: each row is loaded when its turn comes.
    None,
    /// In registers, loaded before this row's reductions.
    Registers,
    /// In shared memory (`load_staged`), read back after this row's store.
    Staged,
}

/// The layer norm forward of rows `pid, pid + grid, ...` (`block_size >= n`: one block
/// holds a row), the next row kept as `next` says, the row held as `parts` column pieces
/// (see [`parts`]): 1, 2, 4, 8 or 16, dividing `block_size`.
pub fn fwd_rows<T: Element>(a: FwdArgs<T>, block_size: usize, parts: usize, next: NextRow) {
    let valid = matches!(parts, 1 | 2 | 4 | 8 | 16) && block_size.is_multiple_of(parts);
    static_assert(
        valid,
        &format!("PARTS = {parts} does not cut BLOCK_SIZE = {block_size} into 1, 2, 4, 8 or 16 equal pieces"),
        "pass PARTS = layer_norm_rows::parts(BLOCK_SIZE, element bytes, num_warps), a power of two up to 16",
    );
    match parts {
        2 => fwd_rows_in::<T, 2>(a, block_size, next),
        4 => fwd_rows_in::<T, 4>(a, block_size, next),
        8 => fwd_rows_in::<T, 8>(a, block_size, next),
        16 => fwd_rows_in::<T, 16>(a, block_size, next),
        // 1, and any invalid count once its error is recorded (the trace fails anyway).
        _ => fwd_rows_in::<T, 1>(a, block_size, next),
    }
}

/// How many column pieces a block of `block_size` elements of `elem_bytes` bytes on
/// `num_warps` warps is held as: pieces of one 16-byte vector a thread (at least one
/// piece, at most 16). Why pieces: after the two reductions a thread holds its centred
/// row, and each piece's `w` and `b` are loaded, used and dropped before the next piece's,
/// where a single piece would load all of `w` and `b` at once, three rows' worth of
/// registers: ptxas spilled 200 bytes a thread for 32768 `f32` columns on 16 warps that
/// way. The pieces are added element-wise before each reduction, so a row costs two block
/// reductions however many pieces it has.
pub fn parts(block_size: usize, elem_bytes: usize, num_warps: u32) -> usize {
    let vector_bytes = 16 * 32 * num_warps.max(1) as usize;
    (block_size * elem_bytes / vector_bytes).clamp(1, 16)
}

/// [`parts`] for rows loaded element by element (a column stride other than 1, or rows
/// not proven 16-byte aligned): pieces of 4 elements a thread whatever the element type,
/// as `f32` rows get. Each element of such a row holds its own address register pair, so a
/// piece's registers grow with its elements, not its bytes: ptxas spilled 8 bytes a thread
/// for 16-bit rows of 8192 on 16 warps in [`parts`]' 2 pieces of 8 elements (sm_90, once
/// loops stopped counting a 64-bit trip count), none in 4 pieces of 4, as for `f32`.
pub fn element_wise_parts(block_size: usize, num_warps: u32) -> usize {
    parts(block_size, 4, num_warps)
}

/// [`fwd_rows`] with `P` pieces.
fn fwd_rows_in<T: Element, const P: usize>(a: FwdArgs<T>, block_size: usize, next: NextRow) {
    let row_start = program_id(0);
    let row_step = num_programs(0);
    let part = block_size / P;
    let offsets: [Tensor<i32>; P] = std::array::from_fn(|k| arange(k * part, (k + 1) * part));
    // BLOCK_SIZE may be larger than n: the padding lanes load 0 and are masked out of
    // the variance and the store.
    let masks = offsets.map(|c| c.lt(a.n));
    let cols = offsets.map(|c| c.to::<i64>());
    let x_cols = cols.map(|c| c * a.stride_x_col);
    // Row `row`, or nothing loaded (all 0) past the last row.
    let load_row = |row: Tensor<i32>| -> [Tensor<T>; P] {
        let row_ptr = a.x_ptr + row.to::<i64>() * a.stride_x_row;
        std::array::from_fn(|k| {
            let in_range = masks[k] & row.lt(a.n_rows);
            match next {
                NextRow::Staged => load_staged(row_ptr + x_cols[k], Some(in_range), Some(T::ZERO)),
                _ => load(row_ptr + x_cols[k], Some(in_range), Some(T::ZERO)),
            }
        })
    };
    // The row's normalization and its store, from the row's values in registers.
    let normalize = |row: Tensor<i32>, x: [Tensor<T>; P]| {
        let x = x.map(|p| p.to::<f32>());
        let mean = sum(add_up(x), 0) / a.n;
        let xc: [Tensor<f32>; P] = std::array::from_fn(|k| where_(masks[k], x[k] - mean, 0.0f32));
        let var = sum(add_up(xc.map(|p| p * p)), 0) / a.n;
        let rstd = rsqrt(var + a.eps);
        let row = row.to::<i64>();
        store(a.mean_ptr + row * a.stride_mean, mean, None);
        store(a.rstd_ptr + row * a.stride_rstd, rstd, None);
        let y_row = a.y_ptr + row * a.stride_y_row;
        // `w` and `b` are loaded after the reductions, piece by piece: the same columns
        // for every row, so they come from L2.
        for k in 0..P {
            let w = load(a.w_ptr + cols[k] * a.stride_w, Some(masks[k]), None).to::<f32>();
            let b = load(a.b_ptr + cols[k] * a.stride_b, Some(masks[k]), None).to::<f32>();
            let y = xc[k] * rstd * w + b;
            store(y_row + cols[k] * a.stride_y_col, y.to::<T>(), Some(masks[k]));
        }
    };
    if next == NextRow::None {
        for_range(row_start, a.n_rows, row_step, (), |row, ()| normalize(row, load_row(row)));
        return;
    }
    let first = load_row(row_start);
    for_range(row_start, a.n_rows, row_step, first, |row, loaded| {
        // `row < n_rows` and `row_step <= n_rows` for any grid the plan launches, so the
        // sum stays below 2 * n_rows: it cannot wrap for n_rows < 2^30.
        let next = load_row(row + row_step);
        normalize(row, loaded);
        next
    });
}

/// The element-wise sum of the pieces (pieces of one shape share a layout).
fn add_up<const P: usize>(pieces: [Tensor<f32>; P]) -> Tensor<f32> {
    pieces[1..].iter().fold(pieces[0], |acc, &p| acc + p)
}

/// One `kernel!` per element type and body, each naming the type and calling [`fwd_rows`].
macro_rules! fwd_rows_kernels {
    ($($(#[$doc:meta])* $name:ident: $t:ty => $next:expr;)*) => {$(
        kernel! {
            $(#[$doc])*
            pub fn $name(x_ptr: Ptr<$t>, y_ptr: Ptr<$t>, w_ptr: Ptr<$t>, b_ptr: Ptr<$t>,
                         mean_ptr: Ptr<f32>, rstd_ptr: Ptr<f32>,
                         stride_x_row: i32, stride_x_col: i32, stride_y_row: i32, stride_y_col: i32,
                         stride_w: i32, stride_b: i32, stride_mean: i32, stride_rstd: i32,
                         n_rows: i32, n: i32, eps: f32; const BLOCK_SIZE: usize, const PARTS: usize) {
                let args = FwdArgs {
                    x_ptr, y_ptr, w_ptr, b_ptr, mean_ptr, rstd_ptr, stride_x_row, stride_x_col,
                    stride_y_row, stride_y_col, stride_w, stride_b, stride_mean, stride_rstd, n_rows, n, eps,
                };
                fwd_rows::<$t>(args, BLOCK_SIZE, PARTS, $next);
            }
        }
    )*};
}

fwd_rows_kernels! {
    /// Layer norm forward of f32 rows, a row in one block, read once ([`NextRow::None`]).
    layer_norm_fwd_rows_f32: f32 => NextRow::None;
    /// Layer norm forward of f16 rows (math in f32), a row in one block, read once.
    layer_norm_fwd_rows_f16: f16 => NextRow::None;
    /// Layer norm forward of bf16 rows (math in f32), a row in one block, read once.
    layer_norm_fwd_rows_bf16: bf16 => NextRow::None;
    /// [`layer_norm_fwd_rows_f32`] on a persistent grid, the next row in registers.
    layer_norm_fwd_prefetch_registers_f32: f32 => NextRow::Registers;
    /// [`layer_norm_fwd_rows_f16`] on a persistent grid, the next row in registers.
    layer_norm_fwd_prefetch_registers_f16: f16 => NextRow::Registers;
    /// [`layer_norm_fwd_rows_bf16`] on a persistent grid, the next row in registers.
    layer_norm_fwd_prefetch_registers_bf16: bf16 => NextRow::Registers;
    /// [`layer_norm_fwd_rows_f32`] on a persistent grid, the next row staged in shared memory.
    layer_norm_fwd_prefetch_staged_f32: f32 => NextRow::Staged;
    /// [`layer_norm_fwd_rows_f16`] on a persistent grid, the next row staged in shared memory.
    layer_norm_fwd_prefetch_staged_f16: f16 => NextRow::Staged;
    /// [`layer_norm_fwd_rows_bf16`] on a persistent grid, the next row staged in shared memory.
    layer_norm_fwd_prefetch_staged_bf16: bf16 => NextRow::Staged;
}
