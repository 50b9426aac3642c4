//! Triton's fp8 storage dtypes, `float8e4nv` (`F8E4M3`) and `float8e5` (`F8E5M2`): loads,
//! stores and conversions to and from f32, f16 and bf16 on the interpreter and the
//! simulator (which must agree bit for bit), against an independent reference model
//! (`reference.rs`) and hand-written tables; arithmetic refused with a located error;
//! ptxas; the GPU (ignored here). See `docs/semantics.md`, "fp8".

#[path = "../ptx_common/mod.rs"]
mod ptx_common;
#[path = "../dtypes/run.rs"]
#[allow(dead_code, reason = "the dtypes suite's runner; this suite uses part of it")]
mod run;

mod kernels;
mod reference;

mod compute;
mod decode;
mod encode;
mod gpu;
mod ptxas;
mod refused;
