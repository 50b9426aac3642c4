//! Vector add, ported from Triton's tutorial 01 (`add_kernel`): the kernel is in
//! `kernels-gpu/src/ports/vector_add.rs`, its cases and f64 reference in
//! `host/src/ports/vector_add.rs`. Runs the masked-tail case (98 432 elements in blocks
//! of 1024) on the GPU when there is one, else on the interpreter, and checks it.
//!
//! `cargo run --release --example vector_add [-- --dtype f32|f16|bf16]` (f32 by default)

fn main() -> std::process::ExitCode {
    rtriton_host::ports::example::main(rtriton_host::ports::vector_add::example())
}
