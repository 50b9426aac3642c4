//! The compile step of a launch: the front end (trace, verify) then the PTX back end.
//! The one place the host calls the back end.

use rtriton::backend::ptx::{self, PtxOptions};
use rtriton::ir::Kernel;
use rtriton::pipeline::trace_and_verify;
use rtriton::spec::SpecKey;
use rtriton::verify::KernelInfo;

use super::JitKernel;
use crate::cache::CompiledPtx;
use crate::error::HostError;

/// The PTX options a launch compiles with: `num_warps` from the launch, the rest the back
/// end's defaults (`.target sm_86`, `.version 7.8`; newer GPUs JIT-compile it).
pub fn ptx_options(num_warps: u32) -> PtxOptions {
    PtxOptions { num_warps, ..PtxOptions::default() }
}

/// Lowers a traced, verified kernel to PTX.
pub fn compile_ptx(kernel: &Kernel, info: &KernelInfo, options: &PtxOptions) -> Result<CompiledPtx, HostError> {
    let p = ptx::compile(kernel, info, options)
        .map_err(|e| HostError::Ptx { kernel: kernel.name.clone(), message: e.to_string() })?;
    Ok(CompiledPtx { text: p.text, entry: p.entry, threads_per_cta: p.threads_per_cta, shared_bytes: p.shared_bytes })
}

/// The front end for one specialization: trace with the launch's constexprs and trace
/// options, remove dead code, verify (no device needed).
pub fn trace_kernel(kernel: &JitKernel, spec: &SpecKey) -> Result<(Kernel, KernelInfo), HostError> {
    trace_and_verify(&kernel.def, &kernel.meta.0, spec, &kernel.trace_options)
        .map_err(|source| HostError::FrontEnd { kernel: kernel.def.name.to_string(), source: Box::new(source) })
}

/// Front end then back end for one specialization (no device needed).
pub fn compile_kernel(kernel: &JitKernel, spec: &SpecKey) -> Result<CompiledPtx, HostError> {
    let (ir, info) = trace_kernel(kernel, spec)?;
    compile_ptx(&ir, &info, &ptx_options(kernel.num_warps))
}
