//! What the simulator reports: a check that fired (or a launch that does not fit the
//! program), naming the kernel, the block-level op's source line, the program, the thread
//! and the address.

use std::fmt;

/// Which check fired. Tests match on this; the text is in [`SimError::message`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Check {
    /// The arguments or the grid do not fit the program (no thread ran).
    Launch,
    /// A global access outside every buffer, or across a buffer's end.
    OutOfBounds,
    /// A global or shared access not aligned to its size (vector width x element size).
    Misaligned,
    /// A shared-memory access outside `0..shared_bytes`.
    SharedOutOfBounds,
    /// A lane executed `shfl.sync` without being named in its member mask, or a lane
    /// named in the member mask did not execute it.
    ShuffleMembership,
    /// A shuffle read a source lane that is inactive or outside the member mask.
    ShuffleSource,
    /// A `bar.sync` that some thread of the CTA did not reach.
    BarrierDivergence,
    /// Two threads of a CTA wrote the same shared byte, or one wrote and another read it,
    /// with no `bar.sync` in between.
    SharedRace,
    /// Two threads (of one CTA or of two programs) stored to the same global element.
    GlobalStoreConflict,
    /// A thread read a register it never wrote (its value is unspecified).
    UninitializedRegister,
    /// Integer division or remainder by zero (unspecified on the GPU).
    DivisionByZero,
    /// A loop whose step is not positive, or whose induction variable overflowed.
    LoopBounds,
    /// An instruction the simulator cannot execute (a malformed program).
    Unsupported,
}

/// One failed check of one launch. Renders like the other stages' diagnostics:
///
/// ```text
/// error: kernel `row_max` at kernels-gpu/src/row_max.rs:21: out-of-bounds global load in program (3, 0, 0), thread 37 (warp 1, lane 5), address 0x100001000: ...
///   op: %9 = load : tensor<1024xf32> #blocked (8 per thread)
///   help: ...
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SimError {
    pub check: Check,
    /// The entry (kernel) name.
    pub kernel: String,
    /// `file:line` of the block-level op the failing instruction was lowered from (from
    /// the group comment the lowering puts above it), when known.
    pub loc: Option<String>,
    /// The group comment itself (the block-level op, its type and layout).
    pub op: Option<String>,
    /// The program (CTA) id; `None` for launch errors.
    pub program: Option<[u32; 3]>,
    /// The thread (`%tid.x`) that tripped the check.
    pub thread: Option<u32>,
    /// The memory address involved (global: device address; shared: byte offset).
    pub address: Option<u64>,
    /// What is wrong, lowercase, no trailing period.
    pub message: String,
    /// What to do about it.
    pub help: String,
}

impl fmt::Display for SimError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "error: kernel `{}`", self.kernel)?;
        if let Some(loc) = &self.loc {
            write!(f, " at {loc}")?;
        }
        write!(f, ": {}", self.message)?;
        if let Some([x, y, z]) = self.program {
            write!(f, " in program ({x}, {y}, {z})")?;
        }
        if let Some(t) = self.thread {
            write!(f, ", thread {t} (warp {}, lane {})", t / 32, t % 32)?;
        }
        if let Some(a) = self.address {
            write!(f, ", address 0x{a:x}")?;
        }
        if let Some(op) = &self.op {
            write!(f, "\n  op: {op}")?;
        }
        if !self.help.is_empty() {
            write!(f, "\n  help: {}", self.help)?;
        }
        Ok(())
    }
}

impl std::error::Error for SimError {}

/// A check that fired inside a CTA, before the launch context (kernel, program, source
/// line) is attached by [`super::cta`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Fault {
    pub check: Check,
    pub thread: Option<u32>,
    pub address: Option<u64>,
    pub message: String,
    pub help: String,
}

impl Fault {
    pub fn new(check: Check, thread: Option<u32>, message: impl Into<String>, help: impl Into<String>) -> Fault {
        Fault { check, thread, address: None, message: message.into(), help: help.into() }
    }

    pub fn at(mut self, address: u64) -> Fault {
        self.address = Some(address);
        self
    }
}
