//! The one diagnostic type every stage reports with: a stable code, a severity, the
//! kernel, the source location of the offending op, what went wrong, notes and what to do.
//!
//! Codes are declared once, in [`declare_codes!`] below (documented in
//! `docs/diagnostics.md`, which a test keeps in step). Callers branch on [`Code`], never on
//! message text: "is this a register-budget refusal?" is
//! `d.code == Code::PtxRegisterBudget`.

use std::fmt;

use crate::ir::SourceLoc;

/// The stage a diagnostic comes from (the hundreds digit of its code).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Stage {
    Trace,
    Verify,
    Lint,
    Interpreter,
    Simulator,
    Guard,
    Launch,
    PtxBackEnd,
}

/// Declares [`Code`] with each code's stable id, stage and one-line summary.
macro_rules! declare_codes {
    ($( $(#[doc = $doc:literal])* $name:ident = $id:literal, $stage:ident, $summary:literal; )*) => {
        /// A diagnostic's stable code (`RT0801`...). See `docs/diagnostics.md`.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub enum Code {
            $( $(#[doc = $doc])* $name, )*
        }

        impl Code {
            /// Every code, in table order.
            pub const ALL: &'static [Code] = &[$(Code::$name),*];

            /// The stable id, `RT` and four digits.
            pub fn id(self) -> &'static str {
                match self {
                    $( Code::$name => $id, )*
                }
            }

            pub fn stage(self) -> Stage {
                match self {
                    $( Code::$name => Stage::$stage, )*
                }
            }

            /// What the code means, in one line.
            pub fn summary(self) -> &'static str {
                match self {
                    $( Code::$name => $summary, )*
                }
            }

            /// The code with this id (`RT0801`).
            pub fn from_id(id: &str) -> Option<Code> {
                Code::ALL.iter().copied().find(|c| c.id() == id)
            }
        }
    };
}

declare_codes! {
    TraceRule = "RT0101", Trace, "an op breaks a language rule (types, shapes, ranges, constexprs)";
    TraceTritonConstexprTo = "RT0102", Trace, "Triton semantics: `.to()` on an argument specialized to 1 (Triton's AttributeError)";
    TraceCombine = "RT0103", Trace, "a reduce or scan combine function that returns the wrong dtype, shape or count, or holds a non-element-wise op";
    TraceEscapingValue = "RT0110", Trace, "a value defined inside a loop or if body is used outside it (yield or carry it)";
    TraceMathDType = "RT0104", Trace, "a math function applied to a dtype it is not defined on (`exp` of an i32)";
    TraceOperatorDtype = "RT0105", Trace, "an operator on a dtype it is not defined on (a shift of a float, `%` of i1, `~` of a float)";
    TraceBitcastWidth = "RT0106", Trace, "a bitcast between dtypes of different bit widths, or of a pointer";
    TraceDotShape = "RT0107", Trace, "a dot whose operands are not 2-D, whose inner dims differ, whose M, N or K is not a power of two of at least 16, or whose accumulator has another shape than [M, N]";
    TraceDotDType = "RT0108", Trace, "a dot of a dtype pair it does not take (f16 with bf16, fp8 with f16, an int other than i8), an accumulator or out_dtype of the wrong dtype, or tf32 on non-f32 operands";
    TraceRandomDType = "RT0109", Trace, "a random-number function given a seed or offsets that are not integers (`rand(2.5, offs)`), or `uint_to_uniform_float` of a value that is not a 32- or 64-bit integer";
    TraceBlockPointer = "RT0111", Trace, "a block pointer built or used against Triton's rules (ranks that disagree, a block dim that is not a power of two, an order that is not a permutation, a base or index that is not a scalar, offsets that are not i32, a bad boundary_check dim, NaN padding of integers, a stored value of another shape), or a loop or branch that changes its shape or strides";
    TraceTensorDescriptor = "RT0112", Trace, "a tensor descriptor made or used against Triton's rules (not 1 to 5 dims, lists that disagree, a block dim that is not a power of two, fewer than 16 bytes along the last block dim, a last stride that is not 1 at compile time, undefined padding or NaN padding of integers, offsets that are not one i32 per dim, a stored value of another shape), or a loop or branch that changes it";
    InvalidIr = "RT0201", Verify, "the IR breaks an invariant (a compiler bug or hand-built IR)";
    LintToOnSpecializableArg = "RT0301", Lint, "`.to()` on an integer argument Triton specializes when it is 1 (triton-lang/triton#2939)";
    LintI32IndexProduct = "RT0302", Lint, "an i32 index times an argument: can pass 2^31 (triton-lang/triton#832)";
    LintUnspecializedUnitStride = "RT0303", Lint, "a unit stride that specialization cannot fold (triton-lang/triton#9834)";
    InterpLaunch = "RT0401", Interpreter, "the arguments or the grid do not fit the kernel";
    InterpOutOfBounds = "RT0402", Interpreter, "a load or store outside every allocation";
    InterpMisaligned = "RT0403", Interpreter, "a load or store at an address not aligned to its element";
    InterpDivisionByZero = "RT0404", Interpreter, "an integer division by zero";
    InterpNonPositiveStep = "RT0405", Interpreter, "a loop with a step that is not positive";
    InterpUnsupported = "RT0406", Interpreter, "an op the interpreter cannot run (hand-built IR)";
    InterpNoProgress = "RT0407", Interpreter, "a while loop that can never end (a program waiting for another one)";
    InterpBrokenMultipleOf = "RT0408", Interpreter, "a value that is not a multiple of what `multiple_of` promised";
    InterpStepBudget = "RT0409", Interpreter, "a program ran more loop iterations than its step budget (a loop that does not end)";
    InterpBrokenAssume = "RT0410", Interpreter, "an `assume` whose condition is false";
    InterpDeviceAssert = "RT0411", Interpreter, "a `device_assert` whose condition is false";
    InterpInlineAsmNoModel = "RT0412", Interpreter, "an `inline_asm_elementwise` without a CPU model (the interpreter cannot run PTX)";
    SimLaunch = "RT0501", Simulator, "the arguments do not fit the lowered program";
    SimOutOfBounds = "RT0502", Simulator, "a global access outside every allocation";
    SimMisaligned = "RT0503", Simulator, "a global access not aligned to its width";
    SimSharedOutOfBounds = "RT0504", Simulator, "a shared-memory access outside the CTA's buffer";
    SimShuffleMembership = "RT0505", Simulator, "a shuffle by a thread outside its member mask";
    SimShuffleSource = "RT0506", Simulator, "a shuffle reading an inactive or non-member lane";
    SimBarrierDivergence = "RT0507", Simulator, "a barrier not reached by every thread of the CTA";
    SimSharedRace = "RT0508", Simulator, "two threads touch a shared byte with no barrier between, one writing";
    SimGlobalStoreConflict = "RT0509", Simulator, "two threads store the same global element";
    SimGlobalRace = "RT0510", Simulator, "a program loads a global element another program stores";
    SimUninitializedRegister = "RT0511", Simulator, "a register read before any write";
    SimUninitializedShared = "RT0512", Simulator, "a shared byte read before any write";
    SimDivisionByZero = "RT0513", Simulator, "an integer division by zero";
    SimLoopBounds = "RT0514", Simulator, "a loop with bounds the lowering never emits";
    SimUnsupported = "RT0515", Simulator, "an instruction the simulator cannot execute";
    SimDivergentBranch = "RT0520", Simulator, "a uniform branch (`bra.uni`) whose condition differs between the lanes of a warp";
    SimAtomicRace = "RT0516", Simulator, "a plain load or store of a global element that another thread accesses atomically";
    SimAtomicScope = "RT0517", Simulator, "cta-scoped atomics on one global element from two programs";
    SimNoProgress = "RT0521", Simulator, "a while loop that can never end (a program waiting for another one)";
    SimAsyncCopyPending = "RT0522", Simulator, "a shared byte accessed while a cp.async writing it has not been waited for";
    SimStepBudget = "RT0523", Simulator, "a program ran more loop iterations than its step budget (a loop that does not end)";
    SimWarpCollective = "RT0524", Simulator, "a warp-collective instruction (ldmatrix, mma.sync) not executed by all 32 lanes of a warp";
    SimDeviceAssert = "RT0525", Simulator, "a `device_assert` compiled in debug mode failed (`__assertfail`): an element of its condition is false";
    SimInlineAsmNoModel = "RT0526", Simulator, "an inline asm without a CPU model (the simulator cannot run PTX)";
    SimAsyncMmaPending = "RT0527", Simulator, "a wgmma accumulator read before a wgmma.wait_group covered its group";
    SimAsyncProxyUnfenced = "RT0528", Simulator, "a wgmma read shared bytes written through the generic proxy with no fence.proxy.async by their writer";
    SimAsyncMmaOperandOverwritten = "RT0529", Simulator, "shared bytes a wgmma in flight reads written before a wgmma.wait_group covered its group";
    SimMbarrierNeverCompletes = "RT0530", Simulator, "an mbarrier wait for a phase that can never complete (arrivals or tensor-copy bytes missing): the GPU hangs";
    SimTensorCopyBox = "RT0531", Simulator, "a tensor copy (TMA) whose box does not fit: its shared destination or its map breaks the hardware's rules";
    SimTensorStorePending = "RT0532", Simulator, "shared bytes a tensor store (TMA) may still read written, or the program ended, before a cp.async.bulk.wait_group.read of its thread covered it";
    GuardIndexOverflow = "RT0601", Guard, "i32 index math on a tensor past 2^31 - 1 elements";
    LaunchArgCount = "RT0701", Launch, "the wrong number of runtime arguments";
    LaunchArgType = "RT0702", Launch, "an argument of another type than its parameter";
    LaunchIntRange = "RT0703", Launch, "an integer that does not fit its i32 parameter";
    LaunchNullPointer = "RT0704", Launch, "a null pointer argument";
    LaunchForeignPointer = "RT0705", Launch, "a pointer this runtime did not allocate";
    LaunchStrideRank = "RT0706", Launch, "a view with one stride per dimension missing";
    LaunchViewOutOfBounds = "RT0707", Launch, "a view that reaches outside its buffer";
    LaunchGridZero = "RT0708", Launch, "a grid with a zero dimension";
    LaunchGridTooLarge = "RT0709", Launch, "a grid past the device's limit";
    LaunchBlockTooLarge = "RT0710", Launch, "more threads per program than the device allows";
    LaunchMissingConstexpr = "RT0711", Launch, "the grid closure reads a constexpr the launch does not set";
    LaunchAddressOverflow = "RT0712", Launch, "a view offset that takes the address past the 64-bit address space";
    LaunchSharedMemory = "RT0713", Launch, "a kernel needs more shared memory per program than the device allows";
    LaunchOverlappingOutput = "RT0714", Launch, "an output tensor that overlaps another tensor argument of the launch, not declared in place";
    LaunchGridClosure = "RT0715", Launch, "the grid closure failed for another reason than a missing constexpr";
    LaunchStreamMismatch = "RT0716", Launch, "a cudarc tensor whose use was ordered on another stream than the launch's";
    LaunchStreamContext = "RT0717", Launch, "a launch or capture on a stream of another context than the runtime's, or a capture on the legacy default stream";
    LaunchDeviceAssert = "RT0718", Launch, "a `device_assert` compiled in debug mode failed on the GPU (CUDA_ERROR_ASSERT): the driver printed its file:line and message on standard error, and the context must be recreated";
    LaunchRegisterSpill = "RT0719", Launch, "a kernel the driver compiled with registers spilled to local memory";
    LaunchArchTooNew = "RT0720", Launch, "a kernel compiled for a newer architecture than the device's compute capability";
    LaunchArchSpecific = "RT0721", Launch, "a kernel compiled for an architecture-specific target (sm_90a) on a device of another compute capability";
    AutotuneDeclaration = "RT0751", Launch, "an autotuner declaration with no configuration, a duplicate one, or an unknown key or output name";
    AutotuneOutputsDiffer = "RT0752", Launch, "two configurations of an autotuned kernel wrote different outputs";
    AutotuneNoConfigRuns = "RT0753", Launch, "no configuration of an autotuned kernel could run on these arguments";
    AutotuneEnv = "RT0754", Launch, "an RTRITON_AUTOTUNE variable with a value it does not take";
    EntryPointInput = "RT0760", Launch, "an input the row-max entry point cannot take: not a 2-D view, an output that is not one contiguous element per row of the input's dtype, a dtype it has no kernel for";
    PtxUnsupported = "RT0801", PtxBackEnd, "an op or dtype the PTX back end does not lower";
    PtxRegisterBudget = "RT0802", PtxBackEnd, "a block needs more registers per thread than the budget";
    PtxLayoutConflict = "RT0803", PtxBackEnd, "a layout conversion or layout op needs more shared memory than a CTA has";
}

/// How serious a diagnostic is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Severity {
    Error,
    Warning,
}

/// One finding of a stage.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Diagnostic {
    pub code: Code,
    pub severity: Severity,
    pub kernel: String,
    /// The offending op's source location (`None` only where no op is involved: a launch
    /// argument, a grid).
    pub loc: Option<SourceLoc>,
    /// What is wrong, lowercase, no trailing period.
    pub message: String,
    /// Context lines, each printed on its own line (`at: program (1, 0, 0), thread 4`).
    /// (A boxed slice: results carrying a `Diagnostic` as their error stay small.)
    pub notes: Box<[String]>,
    /// What to do about it.
    pub help: String,
}

impl Diagnostic {
    pub fn error(
        code: Code,
        kernel: &str,
        loc: impl Into<Option<SourceLoc>>,
        message: impl Into<String>,
        help: impl Into<String>,
    ) -> Self {
        Diagnostic {
            code,
            severity: Severity::Error,
            kernel: kernel.to_string(),
            loc: loc.into(),
            message: message.into(),
            notes: Box::default(),
            help: help.into(),
        }
    }

    pub fn warning(
        code: Code,
        kernel: &str,
        loc: impl Into<Option<SourceLoc>>,
        message: impl Into<String>,
        help: impl Into<String>,
    ) -> Self {
        Diagnostic { severity: Severity::Warning, ..Diagnostic::error(code, kernel, loc, message, help) }
    }

    /// Adds a context line.
    pub fn note(mut self, note: impl Into<String>) -> Self {
        let mut notes = std::mem::take(&mut self.notes).into_vec();
        notes.push(note.into());
        self.notes = notes.into_boxed_slice();
        self
    }
}

impl fmt::Display for Diagnostic {
    /// As rustc prints its errors, with the code (`rtriton explain-code RT0802` says what
    /// it means):
    /// ```text
    /// error[RT0802]: kernel `row_max` at src/my_kernels.rs:31: message
    ///   note lines
    ///   help: what to do
    /// ```
    /// (`{:#}` prints the same.)
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let sev = match self.severity {
            Severity::Error => "error",
            Severity::Warning => "warning",
        };
        write!(f, "{sev}[{}]: kernel `{}`", self.code.id(), self.kernel)?;
        if let Some(loc) = self.loc {
            write!(f, " at {}", loc.short())?;
        }
        write!(f, ": {}", self.message)?;
        for n in self.notes.iter() {
            write!(f, "\n  {n}")?;
        }
        if !self.help.is_empty() {
            write!(f, "\n  help: {}", self.help)?;
        }
        Ok(())
    }
}

/// A non-empty list of diagnostics, printed one after another.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Diagnostics(pub Vec<Diagnostic>);

impl Diagnostics {
    /// Whether any diagnostic has `code`.
    pub fn has(&self, code: Code) -> bool {
        self.0.iter().any(|d| d.code == code)
    }
}

impl fmt::Display for Diagnostics {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, d) in self.0.iter().enumerate() {
            if i > 0 {
                writeln!(f)?;
            }
            if f.alternate() { write!(f, "{d:#}")? } else { write!(f, "{d}")? }
        }
        Ok(())
    }
}

impl std::error::Error for Diagnostics {}

/// What every stage's error offers: its diagnostics, each with a code.
pub trait HasDiagnostics {
    fn diagnostics(&self) -> Vec<Diagnostic>;

    /// Whether any of the diagnostics has `code`.
    fn has_code(&self, code: Code) -> bool {
        self.diagnostics().iter().any(|d| d.code == code)
    }
}

impl HasDiagnostics for Diagnostics {
    fn diagnostics(&self) -> Vec<Diagnostic> {
        self.0.clone()
    }
}

impl HasDiagnostics for Diagnostic {
    fn diagnostics(&self) -> Vec<Diagnostic> {
        vec![self.clone()]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_are_unique_and_numbered_by_stage() {
        let mut seen = std::collections::HashSet::new();
        for c in Code::ALL {
            assert!(seen.insert(c.id()), "duplicate id {}", c.id());
            assert_eq!(Code::from_id(c.id()), Some(*c));
            let digit = match c.stage() {
                Stage::Trace => '1',
                Stage::Verify => '2',
                Stage::Lint => '3',
                Stage::Interpreter => '4',
                Stage::Simulator => '5',
                Stage::Guard => '6',
                Stage::Launch => '7',
                Stage::PtxBackEnd => '8',
            };
            assert!(c.id().starts_with("RT0") && c.id().chars().nth(3) == Some(digit), "{} in {:?}", c.id(), c.stage());
            assert!(!c.summary().is_empty() && !c.summary().ends_with('.'));
        }
    }

    /// The code is in the header, as rustc prints `error[E0308]`, in both forms.
    #[test]
    fn the_header_shows_the_code() {
        let loc = SourceLoc { file: "k.rs", line: 3, column: 1 };
        let d = Diagnostic::error(Code::PtxRegisterBudget, "k", loc, "too many", "use fewer").note("at: here");
        assert_eq!(d.to_string(), "error[RT0802]: kernel `k` at k.rs:3: too many\n  at: here\n  help: use fewer");
        assert_eq!(format!("{d:#}"), d.to_string());
        let no_loc = Diagnostic::warning(Code::LaunchGridZero, "k", None, "m", "");
        assert_eq!(no_loc.to_string(), "warning[RT0708]: kernel `k`: m");
        let both = Diagnostics(vec![d.clone(), no_loc]);
        assert_eq!(both.to_string(), format!("{d}\nwarning[RT0708]: kernel `k`: m"));
    }
}
