//! The front half of the pipeline in one call: specialize from actual arguments, trace,
//! remove dead code, verify. Back ends (PTX, interpreter) start from its output.

use crate::ir::Kernel;
use crate::spec::{ArgValue, SpecError, SpecKey, SpecPolicy};
use crate::trace::{KernelDef, TraceError, TraceOptions, trace};
use crate::verify::{KernelInfo, VerifyError, verify};

/// Why a kernel could not be specialized, traced or verified.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum FrontEndError {
    #[error(transparent)]
    Spec(#[from] SpecError),
    #[error(transparent)]
    Trace(#[from] TraceError),
    #[error(transparent)]
    Verify(#[from] VerifyError),
}

/// Specializes `def` for `args` under `policy`, traces it with `constexprs` and verifies it.
pub fn specialize_and_trace(
    def: &KernelDef,
    constexprs: &[(&str, i64)],
    args: &[ArgValue],
    policy: SpecPolicy,
    options: &TraceOptions,
) -> Result<(Kernel, KernelInfo), FrontEndError> {
    let spec = SpecKey::from_args(def.name, &def.params, args, policy)?;
    trace_and_verify(def, constexprs, &spec, options)
}

/// Traces `def` under an already computed specialization, removes the dead ops the trace
/// left behind ([`crate::passes::dce`]) and verifies the result.
pub fn trace_and_verify(
    def: &KernelDef,
    constexprs: &[(&str, i64)],
    spec: &SpecKey,
    options: &TraceOptions,
) -> Result<(Kernel, KernelInfo), FrontEndError> {
    let mut kernel = trace(def, constexprs, spec, options)?;
    crate::passes::dce::run(&mut kernel);
    let info = verify(&kernel)?;
    Ok((kernel, info))
}
