//! Triton's fp8 storage dtypes, `float8e4nv` (`F8E4M3`) and `float8e5` (`F8E5M2`): loads,
//! stores and conversions to and from f32, f16 and bf16 on the interpreter and the
//! simulator (which must agree bit for bit, the simulator running both lowerings: the
//! integer sequences of sm_86 and the hardware conversions of sm_89 and sm_90), against an
//! independent reference model (`reference.rs`) and hand-written tables; arithmetic refused
//! with a located error; ptxas; the GPU (ignored here). See `docs/semantics.md`, "fp8".

#[path = "../ptx_common/mod.rs"]
mod ptx_common;
#[path = "../dtypes/run.rs"]
#[allow(dead_code, reason = "the dtypes suite's runner; this suite uses part of it")]
mod run;

use rtriton::backend::ptx::Arch;
use rtriton::trace::KernelDef;

/// The targets whose fp8 conversions lower differently: integer sequences on sm_86,
/// PTX's conversions on sm_89 and sm_90.
pub const ARCHS: [Arch; 3] = [Arch::Sm86, Arch::Sm89, Arch::Sm90];

/// The output buffers of `def` on the interpreter, which the simulator must give for every
/// one of [`ARCHS`].
pub fn both(def: &KernelDef, l: &run::Launch) -> Vec<Vec<u8>> {
    run::on_archs(def, l, &ARCHS)
}

mod kernels;
mod reference;

mod compute;
mod decode;
mod encode;
mod gpu;
mod ptxas;
mod refused;
