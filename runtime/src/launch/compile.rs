//! The compile step of a launch, through the runtime's compile session (the one driver
//! of the stages, `rtriton::session`): front end (trace, verify), then the PTX back end.

use std::sync::Arc;

use rtriton::backend::ptx::PtxOptions;
use rtriton::session::{CompileError, CompileSession, front_end_options};
use rtriton::spec::SpecKey;
use rtriton::verify::VerifiedKernel;

use super::JitKernel;
use crate::cache::CompiledPtx;
use crate::error::HostError;

/// The PTX options a launch of `kernel` compiles with: `num_warps` and `min_ctas_per_sm`
/// from the launch; the target from [`JitKernel::arch`] (sm_86 unless set; newer GPUs
/// JIT-compile it) at the `.version` it needs (`PtxOptions::for_arch`: 7.8, 8.1 for
/// sm_89); debug mode from the kernel or `TRITON_DEBUG=1`.
pub fn ptx_options(kernel: &JitKernel) -> PtxOptions {
    let debug = debug_mode(kernel);
    PtxOptions {
        num_warps: kernel.num_warps,
        min_ctas_per_sm: kernel.min_ctas_per_sm,
        debug,
        ..PtxOptions::for_arch(kernel.arch)
    }
}

/// Whether `kernel` compiles in debug mode: [`JitKernel::debug`], or `TRITON_DEBUG=1` in
/// the environment, read once per process (as Triton reads it when it first compiles; a
/// launch does not look the variable up again).
pub fn debug_mode(kernel: &JitKernel) -> bool {
    static ENV: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    kernel.debug || *ENV.get_or_init(|| std::env::var("TRITON_DEBUG").is_ok_and(|v| v == "1"))
}

/// A session's error for `kernel` as the host's error.
pub fn host_error(kernel: &JitKernel, e: CompileError) -> HostError {
    match e {
        CompileError::FrontEnd(source) => {
            HostError::FrontEnd { kernel: kernel.def.name.to_string(), source: Box::new(source) }
        }
        CompileError::Ptx(p) => HostError::Ptx { kernel: kernel.def.name.to_string(), source: Box::new(p) },
        CompileError::LintDenied(d) => HostError::LintDenied(d),
    }
}

/// The front end for one specialization: trace with the launch's constexprs and trace
/// options (for its target, `front_end_options`), remove dead code, verify (no device
/// needed; once per session and key, shared with the compile).
pub fn front_end(
    session: &mut CompileSession,
    kernel: &JitKernel,
    spec: &SpecKey,
) -> Result<Arc<VerifiedKernel>, HostError> {
    let options = front_end_options(&kernel.trace_options, &ptx_options(kernel));
    session
        .front_end(&kernel.def, &kernel.meta.0, spec, &options)
        .map_err(|e| host_error(kernel, CompileError::FrontEnd(e)))
}

/// Front end then back end for one specialization (no device needed; once per session
/// and key).
pub fn compile_kernel(
    session: &mut CompileSession,
    kernel: &JitKernel,
    spec: &SpecKey,
) -> Result<CompiledPtx, HostError> {
    let p = session
        .ptx(&kernel.def, &kernel.meta.0, spec, &kernel.trace_options, &ptx_options(kernel))
        .map_err(|e| host_error(kernel, e))?;
    Ok(CompiledPtx {
        text: p.text.clone(),
        entry: p.entry.clone(),
        threads_per_cta: p.threads_per_cta,
        shared_bytes: p.shared_bytes,
        shared_site: p.shared_site.map(|l| l.short()),
        tensor_maps: p.tensor_maps.iter().map(Into::into).collect(),
    })
}
