//! Fused softmax, ported from Triton's tutorial 02 (`softmax_kernel`): the kernels are in
//! `kernels-gpu/src/ports/softmax.rs`, their cases and f64 reference in
//! `host/src/ports/softmax.rs`. Runs two launches on the GPU when there is one, else on
//! the interpreter, and checks each against the CPU reference:
//!
//! - rows of 781 columns (the tutorial's width): one block of `next_power_of_2(781)` =
//!   1024 columns per row, 2 warps, the padding lanes masked with `-inf`;
//! - rows of 16385 columns, wider than the single-block limit (16384): the online kernel,
//!   which keeps a running maximum and a rescaled running sum over tiles of 8192 columns,
//!   then writes `exp(x - max) / sum` in a second pass.
//!
//! `cargo run --release --example softmax [-- --dtype f32|f16|bf16]` (f32 by default;
//! f16 and bf16 load and store 16-bit values and compute in f32)

use rtriton_kernels::ports::softmax::plan;

fn main() -> std::process::ExitCode {
    // The host helper picks the kernel, its block and its warps from the row width, as the
    // tutorial's `softmax()` does.
    for n_cols in [781, 16385] {
        let p = plan(n_cols);
        println!("rows of {n_cols}: {:?} form, BLOCK_SIZE {}, {} warps", p.form, p.block_size, p.num_warps);
    }
    rtriton_host::ports::example::main(rtriton_host::ports::softmax::example())
}
