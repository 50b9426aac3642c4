//! Layer norm, ported from Triton's tutorial 05 (`_layer_norm_fwd_fused`,
//! `_layer_norm_bwd_dx_fused`, `_layer_norm_bwd_dwdb`): the kernels are in
//! `kernels-gpu/src/ports/layer_norm.rs`, their cases and f64 references in
//! `host/src/ports/layer_norm/` (the whole-row forward the bench runs is in
//! `kernels-gpu/src/ports/layer_norm_rows.rs`). Runs the forward pass (the tutorial's, and
//! the whole-row one) and the backward pass (the tutorial's two kernels, then the
//! lock-free persistent pair) on the GPU when there is one, else on the interpreter, and
//! checks each against its CPU reference.
//!
//! `cargo run --release --example layer_norm [-- --dtype f32|f16|bf16]` (f32 by default)

fn main() -> std::process::ExitCode {
    rtriton_host::ports::example::main(rtriton_host::ports::layer_norm::example())
}
