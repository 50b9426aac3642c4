//! Matrix multiplication, ported from Triton's tutorial 03 (`matmul_kernel`): the kernels
//! are in `kernels-gpu/src/ports/matmul.rs`, their cases and f64 reference in
//! `host/src/ports/matmul.rs`. Runs three launches on the GPU when there is one, else on
//! the interpreter, and checks each against the CPU reference under the dot rule plus the
//! rounding to the output dtype:
//!
//! - `C = A @ B` for 100 x 70 by 70 x 96 in tiles of 64 x 32 (the tutorial's
//!   configuration of 2 warps), K in steps of 32, every edge masked;
//! - the same with `B` given transposed (its strides swapped);
//! - `leaky_relu(A @ B)`, the tutorial's fused activation.
//!
//! `cargo run --release --example matmul [-- --dtype f16|bf16|f32]` (f16 by default; f32
//! multiplies as tf32 on tensor cores)

fn main() -> std::process::ExitCode {
    rtriton_host::ports::example::main(rtriton_host::ports::matmul::example())
}
