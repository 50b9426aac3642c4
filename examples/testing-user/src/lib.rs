//! An example of a crate that writes its own kernel and tests it with `rtriton-testing`
//! (see `tests/` and docs/testing.md): `out[i] = alpha * x[i] + y[i]` over strided views.

use rtriton::kernel;

pub mod suite;
use rtriton::prelude::*;

kernel! {
    /// `out[i] = alpha * x[i * stride_x] + y[i * stride_y]` for `i < n`; one program per
    /// `BLOCK` elements, the last one masked (the tail).
    pub fn scaled_add(x_ptr: Ptr<f32>, y_ptr: Ptr<f32>, out_ptr: Ptr<f32>, n: i32, stride_x: i32, stride_y: i32, alpha: f32;
                      const BLOCK: usize) {
        let offs = program_id(0) * BLOCK as i32 + arange(0, BLOCK);
        let mask = offs.lt(n);
        let i = offs.to::<i64>();
        let x = load(x_ptr + i * stride_x, Some(mask), Some(0.0));
        let y = load(y_ptr + i * stride_y, Some(mask), Some(0.0));
        store(out_ptr + offs, x * alpha + y, Some(mask));
    }
}

kernel! {
    /// `scaled_add` with a planted bug: the mask is `offs <= n`, one element too many, so
    /// the last program reads and writes element `n` (tests/planted_bug.rs shows the
    /// harness catching it on the interpreter and the simulator).
    pub fn scaled_add_off_by_one(x_ptr: Ptr<f32>, y_ptr: Ptr<f32>, out_ptr: Ptr<f32>, n: i32, stride_x: i32, stride_y: i32, alpha: f32;
                                 const BLOCK: usize) {
        let offs = program_id(0) * BLOCK as i32 + arange(0, BLOCK);
        let mask = offs.le(n);
        let i = offs.to::<i64>();
        let x = load(x_ptr + i * stride_x, Some(mask), Some(0.0));
        let y = load(y_ptr + i * stride_y, Some(mask), Some(0.0));
        store(out_ptr + offs, x * alpha + y, Some(mask));
    }
}

/// The grid for `n` elements in blocks of `block`.
pub fn grid(n: usize, block: usize) -> [u32; 3] {
    [n.div_ceil(block) as u32, 1, 1]
}
