//! Running a case on one back end: the buffers are placed in memory the same way on each
//! (interpreter and simulator share [`place`]; the GPU gets device buffers with the same
//! views), and what comes back is every output tensor's whole buffer.

mod cpu;
pub mod gpu;

use std::borrow::Cow;
use std::fmt;

use rtriton::backend::ptx::lir;
use rtriton::session::{CompileError, CompileSession};
use rtriton::spec::{ArgValue, SpecPolicy};
use rtriton::trace::{KernelDef, TraceOptions};

use crate::data::Data;

/// The kernel a case runs: `def` itself, or the instance of a generic `def` its tensors'
/// dtypes pick (`KernelDef::instance_for`; no instance is `RT0702`, naming the parameter).
pub fn instance_for_case<'d>(def: &'d KernelDef, case: &crate::Case) -> Result<Cow<'d, KernelDef>, RunError> {
    if !def.is_generic() {
        return Ok(Cow::Borrowed(def));
    }
    let pointees: Vec<_> = case
        .args
        .iter()
        .map(|a| match a {
            crate::case::CaseArg::Tensor(t) => Some(t.data.dtype()),
            crate::case::CaseArg::Int(_) | crate::case::CaseArg::F32(_) => None,
        })
        .collect();
    def.instance_for(&pointees)
        .map(Cow::Owned)
        .map_err(|e| RunError::Compile(CompileError::FrontEnd(rtriton::front_end_error::FrontEndError::Spec(e))))
}

pub use cpu::{Placed, place, read_outputs, run_interpreter, run_simulator};

/// Where a case runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Backend {
    /// The CPU interpreter, rtriton's semantic reference.
    Interpreter,
    /// The lowered thread-level program on the SIMT simulator, every check on.
    Simulator,
    /// The PTX on device 0 through `rtriton-runtime`.
    Gpu,
}

impl fmt::Display for Backend {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Backend::Interpreter => "interpreter",
            Backend::Simulator => "simulator",
            Backend::Gpu => "gpu",
        })
    }
}

/// Why a back end produced no results (each variant keeps the stage's typed error, so a
/// test can branch on its diagnostic codes).
#[derive(Debug)]
pub enum RunError {
    /// The case itself is wrong (a view outside its buffer, a missing tensor).
    Case(String),
    /// The case's arguments do not fit the kernel's signature (a named argument that is
    /// unknown, given twice, missing, of the wrong kind, or mixed with positional ones).
    Args(Box<crate::args::ArgError>),
    /// Specialization, tracing, verification or lowering refused the kernel.
    Compile(CompileError),
    /// The interpreter stopped (out-of-bounds access, division by zero, ...): names the
    /// kernel, the op's file:line, the program and the element.
    Interpreter(rtriton::interp::InterpError),
    /// A simulator check failed: names the check, the PTX instruction, the op's
    /// file:line, the program, the thread and the address.
    Simulator(rtriton::sim::SimError),
    /// Reading results back failed.
    Memory(String),
    /// The GPU run failed (no GPU is `HostError::is_no_gpu`).
    Gpu(rtriton_runtime::HostError),
    /// The driver reported an error that poisons the context (this launch or an earlier
    /// one in the process): GPU results are refused rather than reported.
    StickyDriverError(String),
}

impl RunError {
    /// The argument error, when the case's arguments did not fit the signature.
    pub fn arg_error(&self) -> Option<&crate::args::ArgError> {
        match self {
            RunError::Args(e) => Some(e),
            _ => None,
        }
    }
}

impl fmt::Display for RunError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RunError::Case(e) => write!(f, "{e}"),
            RunError::Args(e) => write!(f, "{e}"),
            RunError::Compile(e) => write!(f, "{e}"),
            RunError::Interpreter(e) => write!(f, "{e}"),
            RunError::Simulator(e) => write!(f, "{e}"),
            RunError::Memory(e) => write!(f, "{e}"),
            RunError::Gpu(e) => write!(f, "{e}"),
            RunError::StickyDriverError(e) => write!(
                f,
                "gpu results refused: the driver reported a sticky error ({e}); every later launch in this process is refused too, rerun the test alone (under compute-sanitizer to find the faulting access)"
            ),
        }
    }
}

/// The stage diagnostics behind a run error, so tests branch on codes
/// (`err.has_code(Code::SimOutOfBounds)`), never on message text; none for a wrong case,
/// a failed read-back or a refused GPU result.
impl rtriton::diag::HasDiagnostics for RunError {
    fn diagnostics(&self) -> Vec<rtriton::diag::Diagnostic> {
        match self {
            RunError::Compile(e) => e.diagnostics(),
            RunError::Interpreter(e) => e.diagnostics(),
            RunError::Simulator(e) => e.diagnostics(),
            RunError::Gpu(e) => e.diagnostics(),
            RunError::Case(_) | RunError::Args(_) | RunError::Memory(_) | RunError::StickyDriverError(_) => Vec::new(),
        }
    }
}

/// What a back end wrote: each output tensor's whole buffer, in case order.
#[derive(Clone, Debug, PartialEq)]
pub struct Outputs {
    pub buffers: Vec<(&'static str, Data)>,
    /// Who stored each output element (program, thread), when the back end knows
    /// (the simulator); indexed like `buffers`, by element.
    pub writers: Option<Vec<Vec<Option<Writer>>>>,
}

/// The program and thread that stored an element.
pub type Writer = ([u32; 3], u32);

/// The specialization key `def` gets for `args` under `policy`, as text (for reports).
pub fn spec_text(def: &KernelDef, args: &[ArgValue], policy: SpecPolicy) -> String {
    match CompileSession::specialize(def, args, policy) {
        Ok(key) => key.to_string(),
        Err(e) => format!("(not specializable: {e})"),
    }
}

/// Specializes `def` for `args` under `policy`, traces it with `constexprs` and lowers it
/// with `num_warps` (the other PTX options at their defaults): the program the PTX writer
/// prints and the simulator runs.
pub fn lower(
    session: &mut CompileSession,
    def: &KernelDef,
    constexprs: &[(&str, i64)],
    args: &[ArgValue],
    policy: SpecPolicy,
    num_warps: u32,
) -> Result<lir::Program, CompileError> {
    let options = rtriton::backend::ptx::PtxOptions { num_warps, ..Default::default() };
    lower_with(session, def, constexprs, args, policy, &options)
}

/// [`lower`] with every PTX option given (the target architecture, say: the simulator runs
/// what the lowering emits for it).
pub fn lower_with(
    session: &mut CompileSession,
    def: &KernelDef,
    constexprs: &[(&str, i64)],
    args: &[ArgValue],
    policy: SpecPolicy,
    options: &rtriton::backend::ptx::PtxOptions,
) -> Result<lir::Program, CompileError> {
    let spec = CompileSession::specialize(def, args, policy)?;
    let program = session.lower(def, constexprs, &spec, &TraceOptions::default(), options)?;
    Ok(program.as_ref().clone())
}
