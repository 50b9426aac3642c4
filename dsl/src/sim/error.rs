//! What the simulator reports: a check that fired (or a launch that does not fit the
//! program), naming the kernel, the block-level op's source line, the program, the thread
//! and the address.

use std::fmt;

use crate::diag::{Code, Diagnostic, HasDiagnostics};
use crate::ir::SourceLoc;

/// Which check fired. Tests match on this; the text is in [`SimErrorInfo::message`].
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
    /// A uniform branch (`lir`'s if or while, `bra.uni` in PTX) whose condition differs
    /// between the active lanes of a warp: the lowering broke the uniformity invariant.
    DivergentBranch,
    /// Two threads of a CTA wrote the same shared byte, or one wrote and another read it,
    /// with no `bar.sync` in between.
    SharedRace,
    /// Two threads (of one CTA or of two programs) stored to the same global element.
    GlobalStoreConflict,
    /// A thread loaded a global element another thread stored in the same launch, without
    /// a barrier between them (or from another program, unless a lock orders them).
    GlobalRace,
    /// A thread read a register it never wrote (its value is unspecified).
    UninitializedRegister,
    /// A thread read a shared byte no thread of the program wrote.
    UninitializedShared,
    /// Integer division or remainder by zero (unspecified on the GPU).
    DivisionByZero,
    /// A loop whose step is not positive (the GPU traps).
    LoopBounds,
    /// An instruction the simulator cannot execute (a malformed program).
    Unsupported,
    /// A plain load or store of a global element that another thread accesses atomically
    /// in the same launch (from another program, or from its own program with no barrier
    /// in between).
    AtomicRace,
    /// Atomics on one global element from two programs, one of them `cta`-scoped (atomic
    /// only within its own CTA).
    AtomicScope,
    /// A while loop back in a state it was in, with global memory unchanged: run one
    /// program at a time, it never ends (the program waits for another one).
    NoProgress,
    /// A shared byte accessed while a `cp.async` writing it has not been waited for
    /// (`cp.async.wait_group` of the issuing thread).
    AsyncCopyPending,
    /// A program ran more loop iterations than its step budget (`SimOptions::step_budget`,
    /// `RTRITON_STEP_BUDGET`): a loop that does not end, stopped at its line.
    StepBudget,
    /// A warp-collective instruction (`ldmatrix`, `mma.sync`) executed by some lanes of a
    /// warp but not by all 32 (`.sync.aligned`: the whole warp executes it together).
    WarpCollective,
    /// An `__assertfail` whose guard held in an active thread: a `device_assert` compiled
    /// in debug mode found a false element of its condition (the GPU aborts the launch).
    DeviceAssert,
    /// An inline asm without a CPU model: the simulator cannot run PTX (no thread ran).
    InlineAsmNoModel,
    /// An accumulator of a `wgmma` read before a `wgmma.wait_group` covered its group.
    AsyncMmaPending,
    /// A `wgmma` read a shared byte whose generic-proxy write (a store, a `cp.async`) its
    /// writer had not ordered for the async proxy with `fence.proxy.async`.
    AsyncProxyUnfenced,
    /// A shared byte written while a `wgmma` in flight reads it (before a
    /// `wgmma.wait_group` covered its group).
    AsyncMmaOperandOverwritten,
    /// An mbarrier wait for a phase that can never complete: arrivals it expects never
    /// come, or the bytes its `expect_tx` announced are more than the tensor copies bring
    /// (the GPU waits forever).
    MbarrierNeverCompletes,
    /// A tensor copy (TMA) whose box does not fit: its shared destination past the buffer
    /// or not aligned for its swizzle, or its map breaking the hardware's rules.
    TensorCopyBox,
    /// A shared byte a tensor store (TMA) may still read was written, or the program
    /// ended while one still read shared memory: no `cp.async.bulk.wait_group.read` of the
    /// issuing thread covered the store's bulk group.
    TensorStorePending,
}

/// An address a check names.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Address {
    /// A global (device) address, as in [`crate::interp::Memory`].
    Global(u64),
    /// A byte offset in the CTA's shared buffer.
    Shared(u32),
}

impl fmt::Display for Address {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Address::Global(a) => write!(f, "global address 0x{a:x}"),
            Address::Shared(a) => write!(f, "shared offset {a}"),
        }
    }
}

/// One failed check of one launch. Renders like the other stages' diagnostics:
///
/// ```text
/// error[RT0502]: kernel `row_max` at src/my_kernels.rs:21: out-of-bounds global load: 4-byte access at 0x100000320 is 0 bytes past the end of the 800-byte buffer at 0x100000000
///   at: program (1, 0, 0), thread 100 (warp 3, lane 4), global address 0x100000320
///   op: %16 = load : tensor<128xf32> #blocked (1 per thread)
///   inst: @%p12 ld.global.f32 %f13, [%rd11];
///   help: mask the load for threads whose elements lie outside the tensor, ...
/// ```
///
/// The details are boxed (errors are rare, results are returned often); fields read
/// through [`std::ops::Deref`]: `err.check`, `err.thread`...
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SimError(pub Box<SimErrorInfo>);

impl std::ops::Deref for SimError {
    type Target = SimErrorInfo;

    fn deref(&self) -> &SimErrorInfo {
        &self.0
    }
}

/// The details of a [`SimError`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SimErrorInfo {
    pub check: Check,
    /// The entry (kernel) name.
    pub kernel: String,
    /// The block-level op the failing instruction was lowered from (from the group marker
    /// the lowering puts above it), when known.
    pub loc: Option<SourceLoc>,
    /// The group marker's op (the block-level op, its type and layout).
    pub op: Option<String>,
    /// The failing instruction, as PTX (`ld.global.v4.f32 {%f8, ...}, [%rd6];`).
    pub inst: Option<String>,
    /// The program (CTA) id; `None` for launch errors.
    pub program: Option<[u32; 3]>,
    /// The thread (`%tid.x`) that tripped the check.
    pub thread: Option<u32>,
    /// The memory address involved.
    pub address: Option<Address>,
    /// What is wrong, lowercase, no trailing period.
    pub message: String,
    /// What to do about it.
    pub help: String,
}

impl fmt::Display for SimError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.fmt(f)
    }
}

impl Check {
    /// The diagnostic code of this check.
    pub fn code(self) -> Code {
        match self {
            Check::Launch => Code::SimLaunch,
            Check::OutOfBounds => Code::SimOutOfBounds,
            Check::Misaligned => Code::SimMisaligned,
            Check::SharedOutOfBounds => Code::SimSharedOutOfBounds,
            Check::ShuffleMembership => Code::SimShuffleMembership,
            Check::ShuffleSource => Code::SimShuffleSource,
            Check::BarrierDivergence => Code::SimBarrierDivergence,
            Check::DivergentBranch => Code::SimDivergentBranch,
            Check::SharedRace => Code::SimSharedRace,
            Check::GlobalStoreConflict => Code::SimGlobalStoreConflict,
            Check::GlobalRace => Code::SimGlobalRace,
            Check::UninitializedRegister => Code::SimUninitializedRegister,
            Check::UninitializedShared => Code::SimUninitializedShared,
            Check::DivisionByZero => Code::SimDivisionByZero,
            Check::LoopBounds => Code::SimLoopBounds,
            Check::Unsupported => Code::SimUnsupported,
            Check::AtomicRace => Code::SimAtomicRace,
            Check::AtomicScope => Code::SimAtomicScope,
            Check::NoProgress => Code::SimNoProgress,
            Check::AsyncCopyPending => Code::SimAsyncCopyPending,
            Check::StepBudget => Code::SimStepBudget,
            Check::WarpCollective => Code::SimWarpCollective,
            Check::DeviceAssert => Code::SimDeviceAssert,
            Check::InlineAsmNoModel => Code::SimInlineAsmNoModel,
            Check::AsyncMmaPending => Code::SimAsyncMmaPending,
            Check::AsyncProxyUnfenced => Code::SimAsyncProxyUnfenced,
            Check::AsyncMmaOperandOverwritten => Code::SimAsyncMmaOperandOverwritten,
            Check::MbarrierNeverCompletes => Code::SimMbarrierNeverCompletes,
            Check::TensorCopyBox => Code::SimTensorCopyBox,
            Check::TensorStorePending => Code::SimTensorStorePending,
        }
    }
}

impl SimErrorInfo {
    /// The finding as the diagnostic every stage reports with: the check's code, the
    /// kernel, the op's source line, and the program, thread, address, op and failing
    /// instruction as notes.
    pub fn diagnostic(&self) -> Diagnostic {
        let mut d =
            Diagnostic::error(self.check.code(), &self.kernel, self.loc, self.message.clone(), self.help.clone());
        let mut at = Vec::new();
        if let Some([x, y, z]) = self.program {
            at.push(format!("program ({x}, {y}, {z})"));
        }
        if let Some(t) = self.thread {
            at.push(format!("thread {t} (warp {}, lane {})", t / 32, t % 32));
        }
        if let Some(a) = self.address {
            at.push(a.to_string());
        }
        if !at.is_empty() {
            d = d.note(format!("at: {}", at.join(", ")));
        }
        if let Some(op) = &self.op {
            d = d.note(format!("op: {op}"));
        }
        if let Some(inst) = &self.inst {
            d = d.note(format!("inst: {inst}"));
        }
        d
    }
}

impl fmt::Display for SimErrorInfo {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if f.alternate() { write!(f, "{:#}", self.diagnostic()) } else { write!(f, "{}", self.diagnostic()) }
    }
}

impl HasDiagnostics for SimError {
    fn diagnostics(&self) -> Vec<Diagnostic> {
        vec![self.diagnostic()]
    }
}

impl std::error::Error for SimError {}

/// A check that fired inside a CTA, before the launch context (kernel, program, source
/// line) is attached by [`super::cta`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct SimFault {
    pub check: Check,
    pub thread: Option<u32>,
    pub address: Option<Address>,
    pub message: String,
    pub help: String,
}

impl SimFault {
    pub fn new(check: Check, thread: Option<u32>, message: impl Into<String>, help: impl Into<String>) -> SimFault {
        SimFault { check, thread, address: None, message: message.into(), help: help.into() }
    }

    pub fn at(mut self, address: Address) -> SimFault {
        self.address = Some(address);
        self
    }
}
