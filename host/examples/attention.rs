//! Fused attention, forward, ported from Triton's tutorial 06 (`_attn_fwd`): the kernels
//! are in `kernels-gpu/src/ports/attention.rs`, their cases and f64 reference in
//! `host/src/ports/attention.rs`. Runs three launches on the GPU when there is one, else
//! on the interpreter, and checks each `o` and log-sum-exp against the CPU reference
//! under the port's tolerances:
//!
//! - 2 batches x 3 heads of 100 rows, head dim 64, tensors in (batch, seq, heads, dim)
//!   order;
//! - causal, 37 rows (the diagonal block and the sequence's tail masked);
//! - head dim 128.
//!
//! `cargo run --release --example attention [-- --dtype f16|bf16]` (f16 by default)

fn main() -> std::process::ExitCode {
    rtriton_host::ports::example::main(rtriton_host::ports::attention::example())
}
