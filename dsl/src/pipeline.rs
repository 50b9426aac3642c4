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

/// A kernel through the front end, with the portability lint's findings.
#[derive(Clone, Debug, PartialEq)]
pub struct Checked {
    pub kernel: Kernel,
    pub info: KernelInfo,
    /// Warnings of the portability lint (empty when it is off or found nothing).
    pub lints: Vec<crate::diag::Diagnostic>,
}

/// Why [`compile_with_lints`] refused a kernel.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum CheckedError {
    #[error(transparent)]
    FrontEnd(#[from] FrontEndError),
    /// The lint found something and `deny` is set.
    #[error("{0}")]
    Denied(crate::diag::Diagnostics),
}

/// [`specialize_and_trace`] plus the portability lint ([`crate::lint`]), the entry point
/// launches and the CLI use so the lint runs by default at compile time. Findings are
/// returned as warnings; with `lint.deny` any finding is an error. `lint: None` skips it.
pub fn compile_with_lints(
    def: &KernelDef,
    constexprs: &[(&str, i64)],
    args: &[ArgValue],
    policy: SpecPolicy,
    options: &TraceOptions,
    lint: Option<&crate::lint::LintOptions>,
) -> Result<Checked, CheckedError> {
    let (kernel, info) = specialize_and_trace(def, constexprs, args, policy, options)?;
    let lints = match lint {
        Some(lo) => crate::lint::lint(def, constexprs, lo).map_err(FrontEndError::from)?,
        None => Vec::new(),
    };
    if lint.is_some_and(|l| l.deny) && !lints.is_empty() {
        return Err(CheckedError::Denied(crate::diag::Diagnostics(lints)));
    }
    Ok(Checked { kernel, info, lints })
}
