//! Vector add. After Triton's tutorial `python/tutorials/01-vector-add.py`, `add_kernel`;
//! rtriton's version takes a stride per tensor, so views (every K-th element, reversed
//! buffers are not possible with positive strides but offsets are) work too.

use rtriton::kernel;
use rtriton::prelude::*;

kernel! {
    /// `out[i] = x[i * stride_x] + y[i * stride_y]` for `i < n`; one program per
    /// `BLOCK_SIZE` elements, the last one masked.
    pub fn add_kernel(x_ptr: Ptr<f32>, y_ptr: Ptr<f32>, output_ptr: Ptr<f32>, n_elements: i32,
                      stride_x: i32, stride_y: i32, stride_out: i32; const BLOCK_SIZE: usize) {
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
}

/// The grid for `n` elements in blocks of `block` (Triton's `triton.cdiv(n, BLOCK_SIZE)`).
pub fn grid(n: usize, block: usize) -> [u32; 3] {
    [n.div_ceil(block) as u32, 1, 1]
}
