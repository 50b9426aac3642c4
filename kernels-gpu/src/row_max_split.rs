//! `row_max_split`: the kernel behind the row-max entry point. A program reduces a
//! `[BLOCK_M, BLOCK_N]` tile of `BLOCK_M` rows at a time, and `SPLIT` programs share each
//! group of rows, so one kernel covers every shape:
//! - narrow rows (`1048576 x 32`): many rows per program (`BLOCK_M` large), each tile one
//!   vectorized load per thread per row slice;
//! - wide rows with many of them: one row or a few per program, looping over the columns;
//! - **few wide rows** (`64 x 4194304`, fewer rows than about 4x the SM count): `SPLIT > 1`
//!   programs per row (grid axis 1), each reducing every `SPLIT`-th column block, their
//!   partial maxima combined with `atomic_max` into `y`.
//!
//! Arguments are the row-max family's: `x_ptr, y_ptr, n_rows, n_cols, stride_row,
//! stride_col` (strides in elements, any view; `y` contiguous). Launch with grid
//! `[cdiv(n_rows, BLOCK_M), SPLIT, 1]`. `VEC` is the launcher's promise that `stride_row`
//! and `n_cols` are multiples of it (`multiple_of`; the interpreter checks it), which lets
//! rows that Triton's specialization cannot align (400 bytes apart) load as vectors; 1
//! promises nothing. `UNROLL` copies the column loop's body that many
//! times per trip (`for_range_unrolled`, Triton's `loop_unroll_factor`), so the loads of
//! `UNROLL` tiles are in flight together; 1 leaves the loop as written. It changes no
//! result: the maxima are folded in the same order.
//!
//! **`y` must hold the identity (`-inf`, an integer type's minimum) before a launch with
//! `SPLIT > 1`**: the programs of a row only ever raise it. With `SPLIT = 1` every row is
//! stored once and `y`'s contents do not matter.
//!
//! **Bit for bit the maxima of `cpu_row_max`** (`docs/semantics.md`): the running maximum
//! starts from the identity and masked lanes load it, so `maximum` never holds a NaN (a
//! NaN operand gives the other one); a partial maximum is never NaN, a row with some NaN
//! gives the maximum of the rest and a row of only NaN gives `-inf`, whatever `SPLIT`
//! is. The atomic on `f32` is the language's `atomic_max`, which orders floats by their
//! sign-magnitude bits (Triton's sign split: `atom.max.s32` for a partial whose sign bit is
//! clear, `atom.min.u32` for one whose sign bit is set), so `+0.0` beats `-0.0` as in
//! `maximum`, and on non-NaN values that order is the float order: combining the partials
//! in any order gives the same bits as the sequential fold.
//!
//! One generic body, [`split_body`], serves every dtype the PTX back end reduces (32-bit
//! payloads: `f32`, `i32`, `u32`, and the types that compute in them: `f16`, `bf16`, `i8`,
//! `u8`, `i16`); `SPLIT > 1` needs an `atomic_max` on the element type, which the language
//! has for `f32`, `i32` and `u32` (elsewhere the trace stops with a located error).

use half::{bf16, f16};
use rtriton::kernel;
use rtriton::lang::Promote;
use rtriton::prelude::*;
use rtriton::trace::KernelDef;

/// The body of every `row_max_split*` kernel (see the module doc); `identity` is the
/// element type's smallest value, which masked lanes load and the running maximum starts
/// from; `nan` is the maximum's NaN rule (`None` ignores NaN, `All` propagates it).
#[allow(clippy::too_many_arguments, non_snake_case)]
pub fn split_body<T>(
    x_ptr: Tensor<Ptr<T>>,
    y_ptr: Tensor<Ptr<T>>,
    n_rows: Tensor<i32>,
    n_cols: Tensor<i32>,
    stride_row: Tensor<i32>,
    stride_col: Tensor<i32>,
    BLOCK_M: usize,
    BLOCK_N: usize,
    SPLIT: usize,
    UNROLL: usize,
    VEC: usize,
    identity: T::Native,
    nan: PropagateNan,
) where
    T: NumericMarker + Promote<T, Output = T>,
{
    // The launcher's promise (`tl.multiple_of`): the row stride and the row length are
    // multiples of VEC elements, so a contiguous row's tiles start on VEC-element
    // boundaries and their masks change only at such boundaries: loads of VEC elements.
    // Triton's specialization proves this only for multiples of 16 (a 100-column row
    // loads element by element without it). VEC = 1 promises nothing.
    let stride_row = multiple_of(stride_row, VEC as u32);
    let n_cols = multiple_of(n_cols, VEC as u32);
    let rows = program_id(0).to::<i64>() * BLOCK_M as i64 + arange(0, BLOCK_M).to::<i64>();
    let row_mask = rows.lt(n_rows);
    let row_ptrs = x_ptr + rows.expand_dims(1) * stride_row;
    let cols = arange(0, BLOCK_N).to::<i64>();
    let acc = full::<T>(&[BLOCK_M, BLOCK_N], identity);
    // Program `s` of the SPLIT sharing these rows takes column blocks s, s + SPLIT, ...:
    // every block starts at a multiple of BLOCK_N, so the loads keep their alignment (and
    // their vector width), and the blocks of one row are spread evenly over its programs.
    let first = program_id(1) * BLOCK_N as i32;
    let acc = for_range_unrolled(first, n_cols, (SPLIT * BLOCK_N) as i32, UNROLL, acc, |start, acc| {
        // Column indices in i64: `start + BLOCK_N` can pass i32::MAX on a row that wide.
        let c = start.to::<i64>() + cols;
        let mask = row_mask.expand_dims(1) & c.lt(n_cols).expand_dims(0);
        let x = load(row_ptrs + (c * stride_col).expand_dims(0), Some(mask), Some(identity));
        maximum_with(acc, x, nan)
    });
    let row_max = max_with(acc, 1, nan);
    if SPLIT == 1 {
        store(y_ptr + rows, row_max, Some(row_mask));
    } else {
        // The old values are not needed: one atomic per row and program, nothing read back.
        let _ = atomic_max(y_ptr + rows, row_max, Some(row_mask));
    }
}

kernel! {
    /// [`split_body`] on `f32` (NaN ignored, `+0.0 > -0.0`; `SPLIT > 1` needs `y` at `-inf`).
    pub fn row_max_split(x_ptr: Ptr<f32>, y_ptr: Ptr<f32>, n_rows: i32, n_cols: i32, stride_row: i32, stride_col: i32;
                         const BLOCK_M: usize, const BLOCK_N: usize, const SPLIT: usize, const UNROLL: usize, const VEC: usize) {
        split_body(x_ptr, y_ptr, n_rows, n_cols, stride_row, stride_col, BLOCK_M, BLOCK_N, SPLIT, UNROLL, VEC, f32::NEG_INFINITY, PropagateNan::None);
    }
}

kernel! {
    /// [`split_body`] on `f16` (computed in f32, exact; `SPLIT = 1` only).
    pub fn row_max_split_f16(x_ptr: Ptr<f16>, y_ptr: Ptr<f16>, n_rows: i32, n_cols: i32, stride_row: i32, stride_col: i32;
                             const BLOCK_M: usize, const BLOCK_N: usize, const SPLIT: usize, const UNROLL: usize, const VEC: usize) {
        split_body(x_ptr, y_ptr, n_rows, n_cols, stride_row, stride_col, BLOCK_M, BLOCK_N, SPLIT, UNROLL, VEC, f16::NEG_INFINITY, PropagateNan::None);
    }
}

kernel! {
    /// [`split_body`] on `bf16` (computed in f32, exact; `SPLIT = 1` only).
    pub fn row_max_split_bf16(x_ptr: Ptr<bf16>, y_ptr: Ptr<bf16>, n_rows: i32, n_cols: i32, stride_row: i32, stride_col: i32;
                              const BLOCK_M: usize, const BLOCK_N: usize, const SPLIT: usize, const UNROLL: usize, const VEC: usize) {
        split_body(x_ptr, y_ptr, n_rows, n_cols, stride_row, stride_col, BLOCK_M, BLOCK_N, SPLIT, UNROLL, VEC, bf16::NEG_INFINITY, PropagateNan::None);
    }
}

kernel! {
    /// [`split_body`] on `i32` (`SPLIT > 1` needs `y` at `i32::MIN`).
    pub fn row_max_split_i32(x_ptr: Ptr<i32>, y_ptr: Ptr<i32>, n_rows: i32, n_cols: i32, stride_row: i32, stride_col: i32;
                             const BLOCK_M: usize, const BLOCK_N: usize, const SPLIT: usize, const UNROLL: usize, const VEC: usize) {
        split_body(x_ptr, y_ptr, n_rows, n_cols, stride_row, stride_col, BLOCK_M, BLOCK_N, SPLIT, UNROLL, VEC, i32::MIN, PropagateNan::None);
    }
}

kernel! {
    /// [`split_body`] on `u32` (`SPLIT > 1` needs `y` at 0).
    pub fn row_max_split_u32(x_ptr: Ptr<u32>, y_ptr: Ptr<u32>, n_rows: i32, n_cols: i32, stride_row: i32, stride_col: i32;
                             const BLOCK_M: usize, const BLOCK_N: usize, const SPLIT: usize, const UNROLL: usize, const VEC: usize) {
        split_body(x_ptr, y_ptr, n_rows, n_cols, stride_row, stride_col, BLOCK_M, BLOCK_N, SPLIT, UNROLL, VEC, 0u32, PropagateNan::None);
    }
}

kernel! {
    /// [`split_body`] on `i16` (computed in i32; `SPLIT = 1` only).
    pub fn row_max_split_i16(x_ptr: Ptr<i16>, y_ptr: Ptr<i16>, n_rows: i32, n_cols: i32, stride_row: i32, stride_col: i32;
                             const BLOCK_M: usize, const BLOCK_N: usize, const SPLIT: usize, const UNROLL: usize, const VEC: usize) {
        split_body(x_ptr, y_ptr, n_rows, n_cols, stride_row, stride_col, BLOCK_M, BLOCK_N, SPLIT, UNROLL, VEC, i16::MIN, PropagateNan::None);
    }
}

kernel! {
    /// [`split_body`] on `i8` (computed in i32; `SPLIT = 1` only).
    pub fn row_max_split_i8(x_ptr: Ptr<i8>, y_ptr: Ptr<i8>, n_rows: i32, n_cols: i32, stride_row: i32, stride_col: i32;
                            const BLOCK_M: usize, const BLOCK_N: usize, const SPLIT: usize, const UNROLL: usize, const VEC: usize) {
        split_body(x_ptr, y_ptr, n_rows, n_cols, stride_row, stride_col, BLOCK_M, BLOCK_N, SPLIT, UNROLL, VEC, i8::MIN, PropagateNan::None);
    }
}

kernel! {
    /// [`split_body`] on `u8` (computed in i32; `SPLIT = 1` only).
    pub fn row_max_split_u8(x_ptr: Ptr<u8>, y_ptr: Ptr<u8>, n_rows: i32, n_cols: i32, stride_row: i32, stride_col: i32;
                            const BLOCK_M: usize, const BLOCK_N: usize, const SPLIT: usize, const UNROLL: usize, const VEC: usize) {
        split_body(x_ptr, y_ptr, n_rows, n_cols, stride_row, stride_col, BLOCK_M, BLOCK_N, SPLIT, UNROLL, VEC, 0u8, PropagateNan::None);
    }
}

/// Every `row_max_split*` kernel, for tools (`rtriton list`, `ptx`) and tests.
pub fn split_kernels() -> Vec<KernelDef> {
    vec![
        row_max_split(),
        row_max_split_f16(),
        row_max_split_bf16(),
        row_max_split_i32(),
        row_max_split_u32(),
        row_max_split_i16(),
        row_max_split_i8(),
        row_max_split_u8(),
    ]
}

kernel! {
    /// `row_max_split` with torch.amax's NaN rule (`NanMode::Propagate` of the entry
    /// point): a row holding a NaN gives the canonical NaN `0x7FFF_FFFF` (`max.NaN.f32`),
    /// other rows the same bits as `row_max_split`. With `SPLIT > 1` the partials meet in
    /// `atomic_max`, whose sign-magnitude order puts the canonical NaN (sign clear, every
    /// other bit set) above every float, so a NaN partial wins whatever the order; `y`
    /// starts at `-inf` as for `row_max_split`.
    pub fn row_max_split_propagate_nan(x_ptr: Ptr<f32>, y_ptr: Ptr<f32>, n_rows: i32, n_cols: i32, stride_row: i32, stride_col: i32;
                                       const BLOCK_M: usize, const BLOCK_N: usize, const SPLIT: usize, const UNROLL: usize, const VEC: usize) {
        split_body(x_ptr, y_ptr, n_rows, n_cols, stride_row, stride_col, BLOCK_M, BLOCK_N, SPLIT, UNROLL, VEC, f32::NEG_INFINITY, PropagateNan::All);
    }
}
