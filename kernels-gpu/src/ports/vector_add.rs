//! Vector add. After Triton's tutorial `python/tutorials/01-vector-add.py`, `add_kernel`;
//! rtriton's version takes a stride per tensor, so views (every K-th element, reversed
//! buffers are not possible with positive strides but offsets are) work too.
//!
//! One body, [`add`], serves every dtype: each `kernel!` below only names its element
//! type and calls it (as the Triton kernel is one function whatever `x.dtype` is). In
//! f16 and bf16, `x + y` computes in f32 and rounds the sum to the dtype once (the
//! language's rule for half types, `docs/semantics.md`), which is the correctly rounded
//! half-precision sum (see `host/src/ports/vector_add.rs`).

use half::{bf16, f16};
use rtriton::kernel;
use rtriton::prelude::*;

/// `out[i] = x[i * stride_x] + y[i * stride_y]` for `i < n`; one program per
/// `BLOCK_SIZE` elements, the last one masked. The body of every `add_kernel*`.
#[allow(clippy::too_many_arguments, non_snake_case)]
pub fn add<T>(
    x_ptr: Tensor<Ptr<T>>,
    y_ptr: Tensor<Ptr<T>>,
    output_ptr: Tensor<Ptr<T>>,
    n_elements: Tensor<i32>,
    stride_x: Tensor<i32>,
    stride_y: Tensor<i32>,
    stride_out: Tensor<i32>,
    BLOCK_SIZE: usize,
) where
    T: ScalarMarker + AddOutput<T, Output = T>,
{
    let pid = program_id(0);
    let block_start = pid * BLOCK_SIZE as i32;
    let offsets = block_start + arange(0, BLOCK_SIZE);
    let mask = offsets.lt(n_elements);
    let i = offsets.to::<i64>();
    let x = load(x_ptr + i * stride_x, Some(mask), None);
    let y = load(y_ptr + i * stride_y, Some(mask), None);
    let output = x + y;
    store(output_ptr + i * stride_out, output, Some(mask));
}

kernel! {
    /// [`add`] in f32 (the tutorial's dtype).
    pub fn add_kernel(x_ptr: Ptr<f32>, y_ptr: Ptr<f32>, output_ptr: Ptr<f32>, n_elements: i32,
                      stride_x: i32, stride_y: i32, stride_out: i32; const BLOCK_SIZE: usize) {
        add(x_ptr, y_ptr, output_ptr, n_elements, stride_x, stride_y, stride_out, BLOCK_SIZE);
    }
}

kernel! {
    /// [`add`] in f16.
    pub fn add_kernel_f16(x_ptr: Ptr<f16>, y_ptr: Ptr<f16>, output_ptr: Ptr<f16>, n_elements: i32,
                          stride_x: i32, stride_y: i32, stride_out: i32; const BLOCK_SIZE: usize) {
        add(x_ptr, y_ptr, output_ptr, n_elements, stride_x, stride_y, stride_out, BLOCK_SIZE);
    }
}

kernel! {
    /// [`add`] in bf16.
    pub fn add_kernel_bf16(x_ptr: Ptr<bf16>, y_ptr: Ptr<bf16>, output_ptr: Ptr<bf16>, n_elements: i32,
                           stride_x: i32, stride_y: i32, stride_out: i32; const BLOCK_SIZE: usize) {
        add(x_ptr, y_ptr, output_ptr, n_elements, stride_x, stride_y, stride_out, BLOCK_SIZE);
    }
}

/// The grid for `n` elements in blocks of `block` (Triton's `triton.cdiv(n, BLOCK_SIZE)`).
pub fn grid(n: usize, block: usize) -> [u32; 3] {
    [n.div_ceil(block) as u32, 1, 1]
}
