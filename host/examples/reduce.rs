//! Row- and column-wise reductions (`torch.sum / amax / amin / argmax / argmin(x, dim)`
//! written as Triton kernels): the kernels are in `kernels-gpu/src/ports/reduce.rs`, one
//! generic body per kind of reduction; their cases and f64 references in
//! `host/src/ports/reduce.rs`. Runs a row-wise sum and a column-wise argmax of a
//! 257 x 1000 tensor and a row-wise min of a transposed view on the GPU when there is
//! one, else on the interpreter, and checks each against the reference.
//!
//! `cargo run --release --example reduce [-- --dtype f32|f16|bf16|i32]` (f32 by default)

fn main() -> std::process::ExitCode {
    rtriton_host::ports::example::main(rtriton_host::ports::reduce::example())
}
