//! What can go wrong when the interpreter runs a kernel: bad launch input, or a fault of
//! one program at one op (an out-of-bounds access, a division by zero, ...). Every error
//! renders as a [`Diagnostic`] naming the kernel and the op's file:line.

use std::fmt;

use crate::diag::{Diagnostic, HasDiagnostics};
use crate::front_end_error::FrontEndError;

/// Whether a memory fault happened in a load, a store or an atomic.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Access {
    Load,
    Store,
    /// An atomic read-modify-write or compare-and-swap.
    Atomic,
}

impl fmt::Display for Access {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Access::Load => "load",
            Access::Store => "store",
            Access::Atomic => "atomic",
        })
    }
}

/// A program id `(x, y, z)`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ProgramId(pub [u32; 3]);

impl fmt::Display for ProgramId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let [x, y, z] = self.0;
        write!(f, "({x}, {y}, {z})")
    }
}

/// What faulted at run time, with the data a tool may want to inspect.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Fault {
    /// A lane whose mask is true (or an unmasked lane) accessed memory outside every
    /// buffer or across a buffer's end.
    OutOfBounds { access: Access, program: ProgramId, element: Vec<usize>, addr: u64 },
    /// A lane accessed an address not aligned to the element size.
    Misaligned { access: Access, program: ProgramId, element: Vec<usize>, addr: u64 },
    /// Integer division or remainder by zero.
    DivisionByZero { program: ProgramId, element: Vec<usize> },
    /// A `multiple_of` whose operand had an element that is not a multiple of its divisor.
    NotAMultiple { program: ProgramId, element: Vec<usize>, value: i128, divisor: u64 },
    /// A `device_assert` whose condition had a false element (`message` is the assert's).
    DeviceAssert { program: ProgramId, element: Vec<usize>, message: String },
    /// An `assume` whose condition had a false element.
    BrokenAssume { program: ProgramId, element: Vec<usize> },
    /// A loop's runtime step was zero or negative.
    NonPositiveStep { program: ProgramId, step: i64 },
    /// A `while` iteration changed neither the loop's carried values nor memory: run one
    /// program at a time, the loop can never end (it waits for another program).
    NoProgress { program: ProgramId },
    /// The program ran more loop iterations than the step budget allows
    /// (`RunOptions::step_budget`, `RTRITON_STEP_BUDGET`); the diagnostic names the loop.
    StepBudget { program: ProgramId, budget: u64 },
    /// An `inline_asm_elementwise` without a CPU model: the interpreter cannot run PTX.
    NoAsmModel { program: ProgramId },
    /// The kernel uses an op in a way the interpreter does not support (a verified kernel
    /// never does; this guards hand-built IR).
    Unsupported { program: ProgramId },
}

/// Why [`crate::interp::run`] failed.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum InterpError {
    /// The arguments or the grid do not fit the kernel.
    #[error("{0}")]
    Launch(Box<Diagnostic>),
    /// A program faulted at an op.
    #[error("{diagnostic}")]
    Fault { fault: Fault, diagnostic: Box<Diagnostic> },
}

impl InterpError {
    /// The diagnostic of a launch error or fault.
    pub fn diagnostic(&self) -> &Diagnostic {
        match self {
            InterpError::Launch(d) | InterpError::Fault { diagnostic: d, .. } => d,
        }
    }
}

impl HasDiagnostics for InterpError {
    fn diagnostics(&self) -> Vec<Diagnostic> {
        vec![self.diagnostic().clone()]
    }
}

/// Why [`crate::session::CompileSession::interpret`] failed: in the front end (specialization, trace,
/// verification) or while running.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum InterpRunError {
    #[error(transparent)]
    FrontEnd(#[from] FrontEndError),
    #[error(transparent)]
    Interp(#[from] InterpError),
}

impl HasDiagnostics for InterpRunError {
    fn diagnostics(&self) -> Vec<Diagnostic> {
        match self {
            InterpRunError::FrontEnd(e) => e.diagnostics(),
            InterpRunError::Interp(e) => e.diagnostics(),
        }
    }
}

/// `[5]` or `[3, 7]`: a lane's index in its block.
pub(crate) fn element_text(element: &[usize]) -> String {
    let parts: Vec<String> = element.iter().map(|i| i.to_string()).collect();
    format!("[{}]", parts.join(", "))
}
