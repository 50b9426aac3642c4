//! Layer norm, forward and backward. After Triton's tutorial
//! `python/tutorials/05-layer-norm.py`: `_layer_norm_fwd_fused` (here `layer_norm_fwd_fused`),
//! `_layer_norm_bwd_dx_fused` (`layer_norm_bwd_dx_fused`) and `_layer_norm_bwd_dwdb`
//! (`layer_norm_bwd_dwdb`); Rust has no use for the leading underscore.
//!
//! Each kernel body is written once, as a Rust function generic over the element type of
//! the tensors (`x`, `y`, `w`, `b` and the gradients); the math is `f32` whatever that
//! type is, as in the tutorial (`.to(tl.float32)` after each load). `kernel!` then makes
//! one kernel per element type from it. Unlike the tutorial, every tensor comes with its
//! own strides (a row and a column stride for the 2-D ones, one stride for the vectors),
//! so views work: a strided or transposed `x`, every other element of `w`. A stride equal
//! to 1 is specialized to the constant 1, which is what lets contiguous rows load as
//! vectors. Index math is `i64` (the row times its stride can pass 2^31).
//!
//! The backward here is the tutorial's, lock included; the lock-free backwards the bench
//! runs are in `layer_norm_persistent` (rows up to 4096 columns) and `layer_norm_chunked`
//! (wider rows), and which one runs is `layer_norm_plan`'s choice.

use half::{bf16, f16};
use rtriton::kernel;
use rtriton::prelude::*;

/// The element types the layer norm takes: its tensors hold one of these, its math is `f32`.
pub trait Element: ScalarMarker + Promote<Self, Output = Self> {
    /// The value masked lanes load as (the tutorial's `other=0.`).
    const ZERO: Self::Native;
}

impl Element for f32 {
    const ZERO: f32 = 0.0;
}

impl Element for f16 {
    const ZERO: f16 = f16::ZERO;
}

impl Element for bf16 {
    const ZERO: bf16 = bf16::ZERO;
}

/// The forward pass of one row per program: the mean and the variance of the row in
/// `f32` (each a loop over the row in `block_size` chunks, as the tutorial does, so any
/// width works), `rstd = rsqrt(var + eps)`, then `y = (x - mean) * rstd * w + b`; the row's
/// `mean` and `rstd` are stored for the backward pass.
pub fn fwd_fused<T: Element>(
    x_ptr: Tensor<Ptr<T>>,
    y_ptr: Tensor<Ptr<T>>,
    w_ptr: Tensor<Ptr<T>>,
    b_ptr: Tensor<Ptr<T>>,
    mean_ptr: Tensor<Ptr<f32>>,
    rstd_ptr: Tensor<Ptr<f32>>,
    stride_x_row: Tensor<i32>,
    stride_x_col: Tensor<i32>,
    stride_y_row: Tensor<i32>,
    stride_y_col: Tensor<i32>,
    stride_w: Tensor<i32>,
    stride_b: Tensor<i32>,
    stride_mean: Tensor<i32>,
    stride_rstd: Tensor<i32>,
    n: Tensor<i32>,
    eps: Tensor<f32>,
    block_size: usize,
) {
    // The row of x and y this program computes.
    let row = program_id(0).to::<i64>();
    let x_row = x_ptr + row * stride_x_row;
    let y_row = y_ptr + row * stride_y_row;
    let cols = arange(0, block_size);
    // Compute the mean.
    let acc = for_range(0, n, block_size as i32, zeros::<f32>(&[block_size]), |off, acc| {
        let c = off + cols;
        let a = load(x_row + c.to::<i64>() * stride_x_col, Some(c.lt(n)), Some(T::ZERO)).to::<f32>();
        acc + a
    });
    let mean = sum(acc, 0) / n;
    // Compute the variance (the masked tail must not add `mean * mean`).
    let acc = for_range(0, n, block_size as i32, zeros::<f32>(&[block_size]), |off, acc| {
        let c = off + cols;
        let x = load(x_row + c.to::<i64>() * stride_x_col, Some(c.lt(n)), Some(T::ZERO)).to::<f32>();
        let x = where_(c.lt(n), x - mean, 0.0f32);
        acc + x * x
    });
    let var = sum(acc, 0) / n;
    let rstd = rsqrt(var + eps);
    // Write the mean and 1/std.
    store(mean_ptr + row * stride_mean, mean, None);
    store(rstd_ptr + row * stride_rstd, rstd, None);
    // Normalize and apply the linear transformation.
    for_range(0, n, block_size as i32, (), |off, ()| {
        let c = off + cols;
        let mask = c.lt(n);
        let c = c.to::<i64>();
        let w = load(w_ptr + c * stride_w, Some(mask), None).to::<f32>();
        let b = load(b_ptr + c * stride_b, Some(mask), None).to::<f32>();
        let x = load(x_row + c * stride_x_col, Some(mask), Some(T::ZERO)).to::<f32>();
        let x_hat = (x - mean) * rstd;
        let y = x_hat * w + b;
        store(y_row + c * stride_y_col, y.to::<T>(), Some(mask));
    });
}

/// The backward pass of one row per program (`block_size_n >= n`: the row is one block):
/// `dx`, and the row's `dy * x_hat` and `dy` added into partial sums of `dw` and `db`.
/// Row `r` adds into partial row `r % group_size_m` of `dw_ptr` / `db_ptr` (whose columns
/// are contiguous), under that row's lock: `lock_ptr[g]` is 0 when free and 1 when held,
/// `lock_ptr[group_size_m + g]` counts whether a program stored into the row yet (the first
/// one stores, the others add). Both start at 0.
pub fn bwd_dx_fused<T: Element>(
    dx_ptr: Tensor<Ptr<T>>,
    dy_ptr: Tensor<Ptr<T>>,
    dw_ptr: Tensor<Ptr<T>>,
    db_ptr: Tensor<Ptr<T>>,
    x_ptr: Tensor<Ptr<T>>,
    w_ptr: Tensor<Ptr<T>>,
    mean_ptr: Tensor<Ptr<f32>>,
    rstd_ptr: Tensor<Ptr<f32>>,
    lock_ptr: Tensor<Ptr<i32>>,
    stride_dx_row: Tensor<i32>,
    stride_dx_col: Tensor<i32>,
    stride_dy_row: Tensor<i32>,
    stride_dy_col: Tensor<i32>,
    stride_x_row: Tensor<i32>,
    stride_x_col: Tensor<i32>,
    stride_w: Tensor<i32>,
    stride_mean: Tensor<i32>,
    stride_rstd: Tensor<i32>,
    stride_dw: Tensor<i32>,
    stride_db: Tensor<i32>,
    n: Tensor<i32>,
    group_size_m: usize,
    block_size_n: usize,
) {
    // The row of x, dy and dx this program computes.
    let row = program_id(0).to::<i64>();
    let cols = arange(0, block_size_n);
    let mask = cols.lt(n);
    let cols = cols.to::<i64>();
    let x_row = x_ptr + row * stride_x_row;
    let dy_row = dy_ptr + row * stride_dy_row;
    let dx_row = dx_ptr + row * stride_dx_row;
    // The lock of the partial dw / db row this program adds into.
    let lock_id = row % group_size_m as i64;
    let lock = lock_ptr + lock_id;
    let count = lock + group_size_m as i64;
    // Load the row.
    let x = load(x_row + cols * stride_x_col, Some(mask), Some(T::ZERO)).to::<f32>();
    let dy = load(dy_row + cols * stride_dy_col, Some(mask), Some(T::ZERO)).to::<f32>();
    let w = load(w_ptr + cols * stride_w, Some(mask), None).to::<f32>();
    let mean = load(mean_ptr + row * stride_mean, None, None);
    let rstd = load(rstd_ptr + row * stride_rstd, None, None);
    // Compute dx.
    let xhat = (x - mean) * rstd;
    let wdy = w * dy;
    let xhat = where_(mask, xhat, 0.0f32);
    let wdy = where_(mask, wdy, 0.0f32);
    let c1 = sum(xhat * wdy, 0) / n;
    let c2 = sum(wdy, 0) / n;
    let dx = (wdy - (xhat * c1 + c2)) * rstd;
    store(dx_row + cols * stride_dx_col, dx.to::<T>(), Some(mask));
    // Accumulate the partial sums of dw and db under the lock.
    let partial_dw = (dy * xhat).to::<T>();
    let partial_db = dy.to::<T>();
    while_loop((), |()| atomic_cas(lock, 0, 1).eq(1), |()| ());
    // The partial row's pointers, made here rather than at the top (as the tutorial does)
    // so that they do not hold registers through the whole kernel.
    let dw = dw_ptr + lock_id * stride_dw + cols;
    let db = db_ptr + lock_id * stride_db + cols;
    let mask = arange(0, block_size_n).lt(n);
    let stored = load(count, None, None);
    // The first program to take the lock stores; the others add to what is there.
    let (partial_dw, partial_db) = if_(
        stored.eq(0),
        || {
            atomic_xchg(count, 1, None);
            (partial_dw, partial_db)
        },
        || (partial_dw + load(dw, Some(mask), None), partial_db + load(db, Some(mask), None)),
    );
    store(dw, partial_dw, Some(mask));
    store(db, partial_db, Some(mask));
    // Every thread's stores must be done before one thread releases the lock.
    debug_barrier();
    atomic_xchg(lock, 0, None);
}

/// Sums the `m` partial rows of `dw` and `db` into the final gradients: `block_size_n`
/// columns per program, `block_size_m` partial rows at a time, in `f32`. The partial rows
/// hold `P` and the gradients `T`: the tutorial's partials are `T` (`bwd_dwdb::<T, T>`),
/// the persistent form's are `f32` (`bwd_dwdb::<f32, T>`, see `layer_norm_persistent`).
pub fn bwd_dwdb<P: Element, T: Element>(
    dw_ptr: Tensor<Ptr<P>>,
    db_ptr: Tensor<Ptr<P>>,
    final_dw_ptr: Tensor<Ptr<T>>,
    final_db_ptr: Tensor<Ptr<T>>,
    stride_dw: Tensor<i32>,
    stride_db: Tensor<i32>,
    stride_final_dw: Tensor<i32>,
    stride_final_db: Tensor<i32>,
    m: Tensor<i32>,
    n: Tensor<i32>,
    block_size_m: usize,
    block_size_n: usize,
) {
    // The columns of dw and db this program sums.
    let pid = program_id(0);
    let cols = pid * block_size_n as i32 + arange(0, block_size_n);
    let zero = zeros::<f32>(&[block_size_m, block_size_n]);
    // Iterate through the partial rows.
    let (dw, db) = for_range(0, m, block_size_m as i32, (zero, zero), |i, (dw, db)| {
        let rows = i + arange(0, block_size_m);
        let mask = rows.expand_dims(1).lt(m) & cols.expand_dims(0).lt(n);
        let rows = rows.to::<i64>().expand_dims(1);
        let c = cols.to::<i64>().expand_dims(0);
        let dw = dw + load(dw_ptr + rows * stride_dw + c, Some(mask), Some(P::ZERO)).to::<f32>();
        let db = db + load(db_ptr + rows * stride_db + c, Some(mask), Some(P::ZERO)).to::<f32>();
        (dw, db)
    });
    // Write the final sums.
    let sum_dw = sum(dw, 0);
    let sum_db = sum(db, 0);
    let mask = cols.lt(n);
    let c = cols.to::<i64>();
    store(final_dw_ptr + c * stride_final_dw, sum_dw.to::<T>(), Some(mask));
    store(final_db_ptr + c * stride_final_db, sum_db.to::<T>(), Some(mask));
}

/// The three kernels for element type `$t`: each only names the type and calls its body
/// above (`kernel!` makes a kernel of a fixed signature, so one per type).
macro_rules! layer_norm_kernels {
    ($t:ty, $dtype:literal: $fwd:ident, $dx:ident, $dwdb:ident) => {
        kernel! {
            #[doc = concat!("`_layer_norm_fwd_fused` on ", $dtype, " tensors ([`fwd_fused`]): one program per row of `x`.")]
            pub fn $fwd(x_ptr: Ptr<$t>, y_ptr: Ptr<$t>, w_ptr: Ptr<$t>, b_ptr: Ptr<$t>,
                        mean_ptr: Ptr<f32>, rstd_ptr: Ptr<f32>,
                        stride_x_row: i32, stride_x_col: i32, stride_y_row: i32, stride_y_col: i32,
                        stride_w: i32, stride_b: i32, stride_mean: i32, stride_rstd: i32,
                        n: i32, eps: f32; const BLOCK_SIZE: usize) {
                fwd_fused::<$t>(x_ptr, y_ptr, w_ptr, b_ptr, mean_ptr, rstd_ptr,
                                stride_x_row, stride_x_col, stride_y_row, stride_y_col,
                                stride_w, stride_b, stride_mean, stride_rstd, n, eps, BLOCK_SIZE);
            }
        }

        kernel! {
            #[doc = concat!("`_layer_norm_bwd_dx_fused` on ", $dtype, " tensors ([`bwd_dx_fused`]): one program per row of `x`.")]
            pub fn $dx(dx_ptr: Ptr<$t>, dy_ptr: Ptr<$t>, dw_ptr: Ptr<$t>, db_ptr: Ptr<$t>,
                       x_ptr: Ptr<$t>, w_ptr: Ptr<$t>, mean_ptr: Ptr<f32>, rstd_ptr: Ptr<f32>,
                       lock_ptr: Ptr<i32>,
                       stride_dx_row: i32, stride_dx_col: i32, stride_dy_row: i32, stride_dy_col: i32,
                       stride_x_row: i32, stride_x_col: i32, stride_w: i32,
                       stride_mean: i32, stride_rstd: i32, stride_dw: i32, stride_db: i32,
                       n: i32; const GROUP_SIZE_M: usize, const BLOCK_SIZE_N: usize) {
                bwd_dx_fused::<$t>(dx_ptr, dy_ptr, dw_ptr, db_ptr, x_ptr, w_ptr, mean_ptr, rstd_ptr, lock_ptr,
                                   stride_dx_row, stride_dx_col, stride_dy_row, stride_dy_col,
                                   stride_x_row, stride_x_col, stride_w, stride_mean, stride_rstd, stride_dw, stride_db,
                                   n, GROUP_SIZE_M, BLOCK_SIZE_N);
            }
        }

        kernel! {
            #[doc = concat!("`_layer_norm_bwd_dwdb` on ", $dtype, " tensors ([`bwd_dwdb`]): `cdiv(n, BLOCK_SIZE_N)` programs.")]
            pub fn $dwdb(dw_ptr: Ptr<$t>, db_ptr: Ptr<$t>, final_dw_ptr: Ptr<$t>, final_db_ptr: Ptr<$t>,
                         stride_dw: i32, stride_db: i32, stride_final_dw: i32, stride_final_db: i32,
                         m: i32, n: i32; const BLOCK_SIZE_M: usize, const BLOCK_SIZE_N: usize) {
                bwd_dwdb::<$t, $t>(dw_ptr, db_ptr, final_dw_ptr, final_db_ptr,
                               stride_dw, stride_db, stride_final_dw, stride_final_db, m, n, BLOCK_SIZE_M, BLOCK_SIZE_N);
            }
        }
    };
}

layer_norm_kernels!(f32, "f32": layer_norm_fwd_fused, layer_norm_bwd_dx_fused, layer_norm_bwd_dwdb);
layer_norm_kernels!(f16, "f16": layer_norm_fwd_fused_f16, layer_norm_bwd_dx_fused_f16, layer_norm_bwd_dwdb_f16);
layer_norm_kernels!(bf16, "bf16": layer_norm_fwd_fused_bf16, layer_norm_bwd_dx_fused_bf16, layer_norm_bwd_dwdb_bf16);

/// The forward's launch configuration for rows of `n` elements of `elem_bytes` bytes:
/// `BLOCK_SIZE` the next power of two of `n` up to [`FWD_MAX_BLOCK`] (the loops cover
/// wider rows), `num_warps = min(max(BLOCK_SIZE / 256, 1), 8)` as in the tutorial. The
/// tutorial caps `BLOCK_SIZE` at 64 KB of elements instead, because its backward needs
/// the whole row in one block; the forward does not, and 16384 f32 per block (64 per
/// thread) take 176 registers (`ptxas -v`, sm_90), which leaves one CTA per SM, where
/// 4096 take 52 (four CTAs of 8 warps).
///
/// Rows of more than [`FWD_L2_ROW_BYTES`] take the tutorial's 16384 on 8 warps after all.
/// The forward reads its row three times (mean, variance, normalize), the second and
/// third time from L2 if the row is still there; with four programs of 52 registers per
/// SM, 528 rows of 128 KiB (`f32` 2048 x 32768) are in flight, 69 MB, more than the
/// H200's 60 MiB of L2, and the rereads go to memory: that shape ran at 1.98 TB/s, 1.03x
/// torch, where Triton's tutorial kernel with 16384 on 8 warps (one program per SM, 17
/// MB of rows in flight) ran at 2.56 (the H200 record of 2026-12-04 at `aa60014`
/// run-1922929/combined.md`). Rows of 64 KiB keep the smaller block: 4096 x 16384 `f32`
/// ran at 2.71 TB/s with it against Triton's 2.56, and `f16` 2048 x 32768 at 2.06 against
/// Triton's 1.62 with 32768 a block. Measured with this rule in one run
/// (the H200 record of 2026-12-04 at `8e7ff3d`): 2.07 TB/s against 1.98 with 4096 on
/// 8 warps; Triton's kernel, same block and warps, reached 2.59 in the same session.
pub fn fwd_config(n: usize, elem_bytes: usize) -> (usize, u32) {
    if n.saturating_mul(elem_bytes) > FWD_L2_ROW_BYTES {
        return (FWD_WIDE_ROW_BLOCK, 8);
    }
    let block = n.max(1).next_power_of_two().min(FWD_MAX_BLOCK);
    (block, (block / 256).clamp(1, 8) as u32)
}

/// The forward's largest block (see [`fwd_config`]) for rows of at most
/// [`FWD_L2_ROW_BYTES`].
pub const FWD_MAX_BLOCK: usize = 4096;

/// Rows wider than this many bytes take [`FWD_WIDE_ROW_BLOCK`] (see [`fwd_config`]).
pub const FWD_L2_ROW_BYTES: usize = 64 << 10;

/// The block of rows wider than [`FWD_L2_ROW_BYTES`]: the tutorial's `f32` block.
pub const FWD_WIDE_ROW_BLOCK: usize = 16384;

/// The backward's launch configuration for rows of `n` elements of `elem_bytes` bytes:
/// the whole row in one block, as the tutorial requires (`None` past its 64 KB limit), on
/// `num_warps = min(max(BLOCK_SIZE / 512, 1), 16)` warps: at most 16 elements per thread up
/// to rows of 8192, where the tutorial's 8 warps would hold 64 f32 per thread (and spill)
/// at 16384.
pub fn bwd_config(n: usize, elem_bytes: usize) -> Option<(usize, u32)> {
    let block = n.max(1).next_power_of_two();
    (block <= 65536 / elem_bytes).then_some((block, (block / 512).clamp(1, 16) as u32))
}

/// The tutorial's `GROUP_SIZE_M` (how many partial rows `dw` and `db` get) for rows of
/// `n` elements.
pub fn group_size_m(n: usize) -> usize {
    match n {
        0..=1024 => 256,
        1025..=4096 => 128,
        4097..=8192 => 96,
        _ => 64,
    }
}
