//! Layer norm backward without the tutorial's lock: a persistent grid of `G` programs,
//! program `p` taking rows `p, p + G, p + 2G, ...` and keeping its share of `dw` and `db`
//! in `f32` registers across them, then storing them as partial row `p` of two `f32`
//! buffers; `layer_norm_bwd_dwdb_from_f32*` sums the `G` partial rows into `dw` and `db`.
//! This is the form torch's and Liger-Kernel's layer-norm backward kernels take (one
//! partial row per program, summed afterwards).
//!
//! Why: the tutorial's `_layer_norm_bwd_dx_fused` (`layer_norm::bwd_dx_fused`, kept as the
//! tutorial writes it) adds every row into one of `GROUP_SIZE_M` partial rows under a
//! spin lock, so the programs of a group wait for each other, and its partial rows are in
//! the element type, rounded once per row added. Here no program waits for another and no
//! atomic is issued; the partial sums are rounded to `f32` only.
//!
//! [`crate::ports::layer_norm_plan`] says when this form is used (rows up to a width whose
//! registers fit) and with how many programs.

use half::{bf16, f16};
use rtriton::kernel;
use rtriton::prelude::*;

use super::layer_norm::{Element, bwd_dwdb};

kernel! {
    /// The persistent backward, for f32, f16 and bf16 tensors: `dx` of every row this program
    /// takes, exactly as [`bwd_dx_fused`](super::layer_norm::bwd_dx_fused) computes it
    /// (`BLOCK_SIZE_N >= n`: a row is one block), and the sums over those rows of `dy * x_hat`
    /// and `dy`, kept in `f32` and stored at the end as partial row `program_id(0)` of `dw_ptr`
    /// / `db_ptr` (whose columns are contiguous). The loop loads the next row's `x` and `dy`
    /// before computing the current one, so those loads are in flight during this row's
    /// reductions (as `softmax::softmax_rows_prefetch` does); `w` is loaded once, before the
    /// loop.
    pub fn layer_norm_bwd_dx_persistent<T: Element in [f32, f16, bf16]>(
        dx_ptr: Ptr<T>, dy_ptr: Ptr<T>, dw_ptr: Ptr<f32>, db_ptr: Ptr<f32>,
        x_ptr: Ptr<T>, w_ptr: Ptr<T>, mean_ptr: Ptr<f32>, rstd_ptr: Ptr<f32>,
        stride_dx_row: i32, stride_dx_col: i32, stride_dy_row: i32, stride_dy_col: i32,
        stride_x_row: i32, stride_x_col: i32, stride_w: i32,
        stride_mean: i32, stride_rstd: i32, stride_dw: i32, stride_db: i32,
        n_rows: i32, n: i32; const BLOCK_SIZE_N: usize
    ) {
        let row_start = program_id(0);
        let row_step = num_programs(0);
        let cols = arange(0, BLOCK_SIZE_N);
        let mask = cols.lt(n);
        let cols = cols.to::<i64>();
        let x_cols = cols * stride_x_col;
        let dy_cols = cols * stride_dy_col;
        let w = load(w_ptr + cols * stride_w, Some(mask), None).to::<f32>();
        // Row `row`'s x and dy, or nothing loaded (zeros) past the last row.
        let load_row = |row: Tensor<i32>| {
            let in_range = mask & row.lt(n_rows);
            let row = row.to::<i64>();
            let x = load(x_ptr + row * stride_x_row + x_cols, Some(in_range), Some(T::ZERO));
            let dy = load(dy_ptr + row * stride_dy_row + dy_cols, Some(in_range), Some(T::ZERO));
            (x, dy)
        };
        let zero = zeros::<f32>(&[BLOCK_SIZE_N]);
        let init = ((zero, zero), load_row(row_start));
        let ((dw, db), _) = for_range(row_start, n_rows, row_step, init, |row, ((dw, db), (x, dy))| {
            // `row < n_rows`, so the sum stays below `n_rows + num_programs`: no i32 wrap
            // (the plan launches at most `min(n_rows, 32 * SMs)` programs).
            let next = load_row(row + row_step);
            let row = row.to::<i64>();
            let x = x.to::<f32>();
            let dy = dy.to::<f32>();
            let mean = load(mean_ptr + row * stride_mean, None, None);
            let rstd = load(rstd_ptr + row * stride_rstd, None, None);
            // Compute dx, as `bwd_dx_fused` does.
            let xhat = (x - mean) * rstd;
            let wdy = w * dy;
            let xhat = where_(mask, xhat, 0.0f32);
            let wdy = where_(mask, wdy, 0.0f32);
            // This program's share of dw and db, in f32: added here, before the reductions,
            // so that `dy` is dead during them (ptxas -v: 92 registers instead of 97 for rows
            // of 4096 f32 on 16 warps).
            let acc = (dw + dy * xhat, db + dy);
            let c1 = sum(xhat * wdy, 0) / n;
            let c2 = sum(wdy, 0) / n;
            let dx = (wdy - (xhat * c1 + c2)) * rstd;
            store(dx_ptr + row * stride_dx_row + cols * stride_dx_col, dx.to::<T>(), Some(mask));
            (acc, next)
        });
        let partial = program_id(0).to::<i64>();
        store(dw_ptr + partial * stride_dw + cols, dw, Some(mask));
        store(db_ptr + partial * stride_db + cols, db, Some(mask));
    }
}

kernel! {
    /// The sum of the `f32` partial rows into `dw` and `db` of f32, f16 or bf16
    /// ([`bwd_dwdb`]).
    pub fn layer_norm_bwd_dwdb_from_f32<T: Element in [f32, f16, bf16]>(
        dw_ptr: Ptr<f32>, db_ptr: Ptr<f32>, final_dw_ptr: Ptr<T>, final_db_ptr: Ptr<T>,
        stride_dw: i32, stride_db: i32, stride_final_dw: i32, stride_final_db: i32,
        m: i32, n: i32; const BLOCK_SIZE_M: usize, const BLOCK_SIZE_N: usize
    ) {
        bwd_dwdb::<f32, T>(dw_ptr, db_ptr, final_dw_ptr, final_db_ptr, stride_dw, stride_db, stride_final_dw,
                           stride_final_db, m, n, BLOCK_SIZE_M, BLOCK_SIZE_N);
    }
}
