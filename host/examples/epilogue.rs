//! A fused element-wise epilogue, `y = act(x * scale + bias)` with GELU (tanh and erf
//! forms) and SiLU, as a Triton kernel after the epilogue of tutorial 03's matmul: the
//! kernels are in `kernels-gpu/src/ports/epilogue.rs` (one generic body, an activation
//! each), their cases and f64 references in `host/src/ports/epilogue.rs`. Runs each
//! activation on a 257 x 1000 tensor with a per-column bias on the GPU when there is
//! one, else on the interpreter, and checks it against the reference.
//!
//! `cargo run --release --example epilogue [-- --dtype f32|f16|bf16]` (f32 by default)

fn main() -> std::process::ExitCode {
    rtriton_host::ports::example::main(rtriton_host::ports::epilogue::example())
}
