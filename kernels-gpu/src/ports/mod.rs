//! Triton's tutorial and everyday kernels ported to rtriton, each written the
//! way its Triton original is, so the two read line by line. The Triton source each one
//! follows is named at the top of its file. Their validation suites (cases, CPU
//! references in f64, tolerances) are in `rtriton-host`'s `ports` module; runnable
//! examples in `host/examples/`.

pub mod attention;
pub mod attention_bwd;
pub mod epilogue;
pub mod layer_norm;
pub mod layer_norm_chunked;
pub mod layer_norm_fwd_plan;
pub mod layer_norm_persistent;
pub mod layer_norm_plan;
pub mod layer_norm_rows;
pub mod matmul;
pub mod reduce;
pub mod reduce_plan;
pub mod softmax;
pub mod vector_add;
