//! Fused softmax, ported from Triton's tutorial 02 (`softmax_kernel`): the kernels are in
//! `kernels-gpu/src/ports/softmax.rs`, their cases and f64 reference in
//! `host/src/ports/softmax.rs`. Runs two launches on the GPU when there is one, else on
//! the interpreter, and checks each against the CPU reference:
//!
//! - rows of 781 columns (the tutorial's width): one block of `next_power_of_2(781)` =
//!   1024 columns per row, 2 warps in f32 (one warp per 2 KiB of row), the padding lanes
//!   masked with `-inf`;
//! - rows of 16385 columns, wider than the single-block limit (16384): the online kernel,
//!   which keeps a running maximum and a rescaled running sum over tiles (4096 columns
//!   here, where the odd width rules out 16-byte vectors; 16384 for vector rows),
//!   then writes `exp(x - max) / sum` in a second pass.
//!
//! `cargo run --release --example softmax [-- --dtype f32|f16|bf16]` (f32 by default;
//! f16 and bf16 load and store 16-bit values and compute in f32)

use rtriton_kernels::ports::softmax::{Dtype, H200_SHARED_BYTES, plan};

fn main() -> std::process::ExitCode {
    // The host helper picks the kernel, its block and its warps from the row width and the
    // dtype, as the tutorial's `softmax()` does.
    for n_cols in [781, 16385] {
        for dtype in Dtype::ALL {
            // Rows of 781 or 16385 columns cannot load 16-byte vectors (the width is odd).
            let p = plan(n_cols, dtype, false, H200_SHARED_BYTES);
            println!(
                "rows of {n_cols} {}: {:?} form, BLOCK_SIZE {}, {} warps",
                dtype.name(),
                p.form,
                p.block_size,
                p.num_warps
            );
        }
    }
    rtriton_host::ports::example::main(rtriton_host::ports::softmax::example())
}
