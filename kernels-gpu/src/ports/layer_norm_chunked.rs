//! Layer norm backward for rows too wide for the persistent form (more than
//! `layer_norm_plan::MAX_PERSISTENT_BLOCK` columns), without the tutorial's lock: three
//! launches, all in the DSL.
//!
//! 1. `layer_norm_bwd_row_sums*`: one program per row computes the row's two means the
//!    `dx` formula needs, `c1 = mean(x_hat w dy)` and `c2 = mean(w dy)`, looping over the
//!    row in blocks, and stores them as `f32`.
//! 2. `layer_norm_bwd_dx_chunked*`: a grid of `G x S` programs, program `(p, s)` taking
//!    column chunk `s` (`BLOCK_SIZE_N` columns) of rows `p, p + G, ...`: it computes that
//!    chunk of `dx` from `c1` and `c2`, and keeps its chunk of the sums of `dy * x_hat`
//!    and `dy` in `f32` registers across its rows, stored at the end as its chunk of
//!    partial row `p` (the persistent form's partial rows, cut into chunks).
//! 3. `layer_norm_bwd_dwdb_from_f32*` (the persistent form's) sums the `G` partial rows.
//!
//! Why: a row of 8192 or more columns does not fit one program's registers with its
//! partial sums (the persistent form spills past 4096), and the tutorial's lock form
//! makes the programs of a group wait for each other (0.57x of torch at f16 2048 x 32768,
//! the H200 record of 2026-12-04 at `8e7ff3d`). Here `x` and `dy` are read twice (once for
//! the row's means, once for `dx`), 5 row-sized transfers for the 3 a single pass would
//! need, but no program waits for another; this is the split torch's layer-norm backward
//! makes too (its `dgamma`/`dbeta` kernel rereads `x` and `dy`).

use half::{bf16, f16};
use rtriton::kernel;
use rtriton::prelude::*;

use super::layer_norm::Element;

/// Row `program_id(0)`'s `c1 = sum(x_hat w dy) / n` and `c2 = sum(w dy) / n` in `f32`,
/// with `x_hat = (x - mean) * rstd`, summed in `block_size_n`-column blocks (each lane
/// keeps its own running sums; the block is summed once at the end).
pub fn bwd_row_sums<T: Element>(
    c1_ptr: Tensor<Ptr<f32>>,
    c2_ptr: Tensor<Ptr<f32>>,
    dy_ptr: Tensor<Ptr<T>>,
    x_ptr: Tensor<Ptr<T>>,
    w_ptr: Tensor<Ptr<T>>,
    mean_ptr: Tensor<Ptr<f32>>,
    rstd_ptr: Tensor<Ptr<f32>>,
    stride_dy_row: Tensor<i32>,
    stride_dy_col: Tensor<i32>,
    stride_x_row: Tensor<i32>,
    stride_x_col: Tensor<i32>,
    stride_w: Tensor<i32>,
    stride_mean: Tensor<i32>,
    stride_rstd: Tensor<i32>,
    stride_c: Tensor<i32>,
    n: Tensor<i32>,
    block_size_n: usize,
) {
    let row = program_id(0).to::<i64>();
    let x_row = x_ptr + row * stride_x_row;
    let dy_row = dy_ptr + row * stride_dy_row;
    let mean = load(mean_ptr + row * stride_mean, None, None);
    let rstd = load(rstd_ptr + row * stride_rstd, None, None);
    let cols = arange(0, block_size_n);
    let zero = zeros::<f32>(&[block_size_n]);
    let (a, b) = for_range(0, n, block_size_n as i32, (zero, zero), |off, (a, b)| {
        let c = off + cols;
        let mask = c.lt(n);
        let c = c.to::<i64>();
        let x = load(x_row + c * stride_x_col, Some(mask), Some(T::ZERO)).to::<f32>();
        let dy = load(dy_row + c * stride_dy_col, Some(mask), Some(T::ZERO)).to::<f32>();
        let w = load(w_ptr + c * stride_w, Some(mask), Some(T::ZERO)).to::<f32>();
        // Masked lanes load dy = 0, so `w dy` is 0 there; `x_hat` is zeroed too, so that a
        // row whose mean is infinite adds no `inf * 0` from its tail.
        let wdy = w * dy;
        let xhat = where_(mask, (x - mean) * rstd, 0.0f32);
        (a + xhat * wdy, b + wdy)
    });
    let c1 = sum(a, 0) / n;
    let c2 = sum(b, 0) / n;
    let at = program_id(0).to::<i64>() * stride_c;
    store(c1_ptr + at, c1, None);
    store(c2_ptr + at, c2, None);
}

/// Chunk `program_id(1)` (`block_size_n` columns) of `dx` for the rows `program_id(0),
/// program_id(0) + num_programs(0), ...`, from each row's `mean`, `rstd`, `c1` and `c2`:
/// `dx = (w dy - (x_hat c1 + c2)) * rstd`, as `bwd_dx_fused` computes it once it has the
/// row's means. The sums of `dy * x_hat` and `dy` over those rows stay in `f32` and are
/// stored at the end as this chunk of partial row `program_id(0)` of `dw_ptr` / `db_ptr`
/// (whose columns are contiguous). The next row's `x` and `dy` are loaded before this
/// row's are used, so they are in flight meanwhile; `w` is loaded once.
pub fn bwd_dx_chunked<T: Element>(
    dx_ptr: Tensor<Ptr<T>>,
    dy_ptr: Tensor<Ptr<T>>,
    dw_ptr: Tensor<Ptr<f32>>,
    db_ptr: Tensor<Ptr<f32>>,
    x_ptr: Tensor<Ptr<T>>,
    w_ptr: Tensor<Ptr<T>>,
    mean_ptr: Tensor<Ptr<f32>>,
    rstd_ptr: Tensor<Ptr<f32>>,
    c1_ptr: Tensor<Ptr<f32>>,
    c2_ptr: Tensor<Ptr<f32>>,
    stride_dx_row: Tensor<i32>,
    stride_dx_col: Tensor<i32>,
    stride_dy_row: Tensor<i32>,
    stride_dy_col: Tensor<i32>,
    stride_x_row: Tensor<i32>,
    stride_x_col: Tensor<i32>,
    stride_w: Tensor<i32>,
    stride_mean: Tensor<i32>,
    stride_rstd: Tensor<i32>,
    stride_c: Tensor<i32>,
    stride_dw: Tensor<i32>,
    stride_db: Tensor<i32>,
    n_rows: Tensor<i32>,
    n: Tensor<i32>,
    block_size_n: usize,
) {
    let row_start = program_id(0);
    let row_step = num_programs(0);
    let cols = program_id(1) * block_size_n as i32 + arange(0, block_size_n);
    let mask = cols.lt(n);
    let cols = cols.to::<i64>();
    let x_cols = cols * stride_x_col;
    let dy_cols = cols * stride_dy_col;
    let w = load(w_ptr + cols * stride_w, Some(mask), None).to::<f32>();
    // Row `row`'s chunk of x and dy, or nothing loaded (zeros) past the last row.
    let load_row = |row: Tensor<i32>| {
        let in_range = mask & row.lt(n_rows);
        let row = row.to::<i64>();
        let x = load(x_ptr + row * stride_x_row + x_cols, Some(in_range), Some(T::ZERO));
        let dy = load(dy_ptr + row * stride_dy_row + dy_cols, Some(in_range), Some(T::ZERO));
        (x, dy)
    };
    let zero = zeros::<f32>(&[block_size_n]);
    let init = ((zero, zero), load_row(row_start));
    let ((dw, db), _) = for_range(row_start, n_rows, row_step, init, |row, ((dw, db), (x, dy))| {
        // `row < n_rows`, so the sum stays below `n_rows + num_programs(0)`: no i32 wrap
        // (the plan launches at most `n_rows` row groups).
        let next = load_row(row + row_step);
        let row = row.to::<i64>();
        let x = x.to::<f32>();
        let dy = dy.to::<f32>();
        let mean = load(mean_ptr + row * stride_mean, None, None);
        let rstd = load(rstd_ptr + row * stride_rstd, None, None);
        let c1 = load(c1_ptr + row * stride_c, None, None);
        let c2 = load(c2_ptr + row * stride_c, None, None);
        let xhat = (x - mean) * rstd;
        let wdy = w * dy;
        // Masked lanes have dy = 0: they add nothing to the sums and store nothing.
        let acc = (dw + dy * xhat, db + dy);
        let dx = (wdy - (xhat * c1 + c2)) * rstd;
        store(dx_ptr + row * stride_dx_row + cols * stride_dx_col, dx.to::<T>(), Some(mask));
        (acc, next)
    });
    let partial = program_id(0).to::<i64>();
    store(dw_ptr + partial * stride_dw + cols, dw, Some(mask));
    store(db_ptr + partial * stride_db + cols, db, Some(mask));
}

/// The row-sums and chunked dx kernels for element type `$t` (the sum of the partial rows
/// is `layer_norm_persistent`'s `layer_norm_bwd_dwdb_from_f32*`).
macro_rules! chunked_kernels {
    ($t:ty, $dtype:literal: $sums:ident, $dx:ident) => {
        kernel! {
            #[doc = concat!("Each row's `c1` and `c2` of the layer-norm backward on ", $dtype, " tensors ([`bwd_row_sums`]).")]
            pub fn $sums(c1_ptr: Ptr<f32>, c2_ptr: Ptr<f32>, dy_ptr: Ptr<$t>, x_ptr: Ptr<$t>, w_ptr: Ptr<$t>,
                         mean_ptr: Ptr<f32>, rstd_ptr: Ptr<f32>,
                         stride_dy_row: i32, stride_dy_col: i32, stride_x_row: i32, stride_x_col: i32,
                         stride_w: i32, stride_mean: i32, stride_rstd: i32, stride_c: i32,
                         n: i32; const BLOCK_SIZE_N: usize) {
                bwd_row_sums::<$t>(c1_ptr, c2_ptr, dy_ptr, x_ptr, w_ptr, mean_ptr, rstd_ptr,
                                   stride_dy_row, stride_dy_col, stride_x_row, stride_x_col,
                                   stride_w, stride_mean, stride_rstd, stride_c, n, BLOCK_SIZE_N);
            }
        }

        kernel! {
            #[doc = concat!("The layer-norm backward's dx in column chunks on ", $dtype, " tensors ([`bwd_dx_chunked`]).")]
            pub fn $dx(dx_ptr: Ptr<$t>, dy_ptr: Ptr<$t>, dw_ptr: Ptr<f32>, db_ptr: Ptr<f32>,
                       x_ptr: Ptr<$t>, w_ptr: Ptr<$t>, mean_ptr: Ptr<f32>, rstd_ptr: Ptr<f32>,
                       c1_ptr: Ptr<f32>, c2_ptr: Ptr<f32>,
                       stride_dx_row: i32, stride_dx_col: i32, stride_dy_row: i32, stride_dy_col: i32,
                       stride_x_row: i32, stride_x_col: i32, stride_w: i32,
                       stride_mean: i32, stride_rstd: i32, stride_c: i32, stride_dw: i32, stride_db: i32,
                       n_rows: i32, n: i32; const BLOCK_SIZE_N: usize) {
                bwd_dx_chunked::<$t>(dx_ptr, dy_ptr, dw_ptr, db_ptr, x_ptr, w_ptr, mean_ptr, rstd_ptr,
                                     c1_ptr, c2_ptr, stride_dx_row, stride_dx_col, stride_dy_row, stride_dy_col,
                                     stride_x_row, stride_x_col, stride_w, stride_mean, stride_rstd, stride_c,
                                     stride_dw, stride_db, n_rows, n, BLOCK_SIZE_N);
            }
        }
    };
}

chunked_kernels!(f32, "f32": layer_norm_bwd_row_sums, layer_norm_bwd_dx_chunked);
chunked_kernels!(f16, "f16": layer_norm_bwd_row_sums_f16, layer_norm_bwd_dx_chunked_f16);
chunked_kernels!(bf16, "bf16": layer_norm_bwd_row_sums_bf16, layer_norm_bwd_dx_chunked_bf16);
