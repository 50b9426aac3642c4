//! The PTX back end: a verified block-level kernel ([`VerifiedKernel`]) to PTX text.
//!
//! # Pipeline
//! 1. [`axis_info`]: contiguity / divisibility / constancy of every value (Triton's
//!    AxisInfo), from the specialization hints.
//! 2. [`coalesce`]: the kernel's blocked layout, its fastest dim (`order`) from the
//!    contiguity of the loads' pointers and the elements each thread holds along it from
//!    the widest vector they prove (Triton's Coalesce pass).
//! 3. [`layout`]: every value's place in that layout (a slice of it for lower ranks):
//!    which thread owns which element; [`vectorize`]: the width of each load and store.
//! 4. [`mod@lower`]: block IR to the thread-level [`lir::Program`] (typed virtual registers,
//!    structured loops, explicit shuffles, shared memory and barriers).
//! 5. [`writer`]: [`lir::Program`] to PTX text.
//!
//! [`compile`] runs all of them; [`fn@lower`] and [`fn@write`] are the two halves.
//! [`fn@layouts_text`] prints the kernel after step 3 (`rtriton explain --ir layouts`), as
//! Triton prints TTGIR.
//!
//! # Parameters and launch
//! The entry takes every runtime parameter of the kernel in declaration order, including
//! those specialization folded to the constant 1 (they are simply not read). Triton drops
//! folded arguments from the compiled signature; rtriton keeps them so the host passes the
//! same argument list to every specialization. Launch with exactly
//! [`Ptx::threads_per_cta`] threads per CTA (`.maxntid` allows fewer, but the layouts
//! assume every thread of `num_warps` warps is there) and one CTA per program.
//!
//! # Where rtriton differs from Triton's lowering
//! - One blocked layout per kernel (from its largest block) and slices of it for lower
//!   ranks; Triton picks a layout per op and inserts conversions. Its order follows the
//!   contiguity of the loads as Triton's Coalesce pass orders each access's layout; where
//!   accesses prefer different orders, the loads with the most elements win and the others
//!   are not coalesced (`coalesce.rs`). Here a value gets a second
//!   layout only where one op needs it in another role (one `arange` as rows and as
//!   columns, a row sum read along the other dim): an index made from an `arange` is
//!   recomputed in that layout (`layout/remat.rs`), anything else goes through shared
//!   memory (a `convert_layout` op of the layout stage, lowered by `lower/exchange.rs`). `permute`/`trans`,
//!   `reshape`, `join` and `split` always move their elements through shared memory
//!   (Triton often makes them free by choosing the layouts around them).
//! - Reductions start from the first element a thread holds instead of the identity and
//!   skip replicated lanes; the results are the same.
//! - Vector width: Triton's rule (contiguity, pointer divisibility, mask constancy,
//!   elements per thread), with the comparison rule restricted to `<`/`>=` (range on the
//!   left), which is exact; see [`vectorize`].
//! - `argmax` is supported: (value, index) pairs, the first maximum, NaN ignored.
//! - Not supported (clear errors): i64 and i1 reductions, float remainder, loads and
//!   stores of i1.

pub(crate) mod axis_info;
pub(crate) mod coalesce;
mod encodings;
pub mod layout;
mod layouts_text;
pub mod lir;
pub(crate) mod lower;
mod tensor_copies;
pub mod tensor_map;
pub(crate) mod vectorize;
pub(crate) mod writer;

use std::fmt;
use std::str::FromStr;

use crate::diag::{Code, Diagnostic, Diagnostics, HasDiagnostics};
use crate::ir::SourceLoc;
use crate::verify::VerifiedKernel;

pub use layouts_text::{layout_stage_kernel, layouts_text};

/// The GPU architecture PTX is generated for (`.target`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default, PartialOrd, Ord)]
pub enum Arch {
    Sm80,
    /// The product's reference target.
    #[default]
    Sm86,
    Sm89,
    Sm90,
    /// sm_90 with its architecture-specific features (`.target sm_90a`): its code runs on
    /// compute capability 9.0 only, not on later GPUs, so it is chosen explicitly. The
    /// lowering is sm_90's for now; `wgmma` and TMA are what the target is for.
    Sm90a,
}

impl Arch {
    pub const ALL: [Arch; 5] = [Arch::Sm80, Arch::Sm86, Arch::Sm89, Arch::Sm90, Arch::Sm90a];

    pub fn name(self) -> &'static str {
        match self {
            Arch::Sm80 => "sm_80",
            Arch::Sm86 => "sm_86",
            Arch::Sm89 => "sm_89",
            Arch::Sm90 => "sm_90",
            Arch::Sm90a => "sm_90a",
        }
    }

    /// Whether the target's code runs only on its own compute capability (`sm_90a`), where
    /// every other target's also runs on later GPUs (the driver JIT-compiles it).
    pub fn arch_specific(self) -> bool {
        self == Arch::Sm90a
    }

    /// Whether a device of compute capability `device` runs this target's code.
    pub fn runs_on(self, device: (u32, u32)) -> bool {
        if self.arch_specific() { device == self.compute_capability() } else { device >= self.compute_capability() }
    }

    /// The newest target a device of compute capability `device` runs, the
    /// architecture-specific ones (`sm_90a`) only when `arch_specific` opts into them: how a
    /// program picks `sm_90a`'s `wgmma` on an H100 or H200 and keeps a portable target
    /// elsewhere. `None` for a device older than every target.
    pub fn newest_for(device: (u32, u32), arch_specific: bool) -> Option<Arch> {
        Arch::ALL.into_iter().rev().find(|a| (arch_specific || !a.arch_specific()) && a.runs_on(device))
    }

    /// The compute capability `(major, minor)` the target needs: a device of a lower one
    /// cannot run its code (a higher one JIT-compiles it).
    pub fn compute_capability(self) -> (u32, u32) {
        match self {
            Arch::Sm80 => (8, 0),
            Arch::Sm86 => (8, 6),
            Arch::Sm89 => (8, 9),
            Arch::Sm90 | Arch::Sm90a => (9, 0),
        }
    }

    /// The lowest `.version` at which this target converts fp8 in hardware
    /// (`cvt.rn.satfinite.{e4m3x2,e5m2x2}.f32`, `cvt.rn.f16x2.{e4m3x2,e5m2x2}`: PTX ISA 7.8
    /// on sm_90, 8.1 on sm_89); `None` before sm_89, which gets integer sequences
    /// (`lower/fp8.rs`).
    pub fn fp8_conversions_version(self) -> Option<(u32, u32)> {
        match self {
            Arch::Sm80 | Arch::Sm86 => None,
            Arch::Sm89 => Some((8, 1)),
            Arch::Sm90 => Some((7, 8)),
            Arch::Sm90a => Some((8, 0)),
        }
    }

    /// The lowest `.version` that accepts this target.
    pub fn min_ptx_version(self) -> (u32, u32) {
        match self {
            Arch::Sm80 => (7, 0),
            Arch::Sm86 => (7, 1),
            Arch::Sm89 => (7, 8),
            Arch::Sm90 => (7, 8),
            Arch::Sm90a => (8, 0),
        }
    }
}

impl fmt::Display for Arch {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Arch {
    type Err = String;

    /// Accepts `sm_86`, `sm86` and `86` (`sm_90a`, `90a`).
    fn from_str(s: &str) -> Result<Arch, String> {
        let digits = s.trim().trim_start_matches("sm").trim_start_matches('_');
        Arch::ALL
            .into_iter()
            .find(|a| &a.name()[3..] == digits)
            .ok_or_else(|| format!("unknown architecture `{s}`; use one of sm_80, sm_86, sm_89, sm_90, sm_90a"))
    }
}

/// The most shared memory a kernel declares statically (`.shared` arrays past 48 KiB are
/// refused by the driver): a program that needs more declares `smem` as dynamic shared
/// memory (`.extern .shared`), and its launch sets the function's
/// `CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES` and passes the bytes.
pub const MAX_STATIC_SHARED_BYTES: u32 = 48 * 1024;

/// The dynamic shared memory a launch of a program of `shared_bytes` must pass: 0 for a
/// static declaration ([`MAX_STATIC_SHARED_BYTES`] or less), else all of it.
pub fn dynamic_shared_bytes(shared_bytes: u32) -> u32 {
    if shared_bytes > MAX_STATIC_SHARED_BYTES { shared_bytes } else { 0 }
}

/// Code-generation options (part of the compiled-kernel cache key).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct PtxOptions {
    pub arch: Arch,
    /// Warps per CTA; the CTA has `num_warps * 32` threads (`.maxntid`).
    pub num_warps: u32,
    /// `.version` (major, minor).
    pub ptx_version: (u32, u32),
    /// The CTAs an SM should hold at once (`.minnctapersm`, CUDA's `__launch_bounds__`
    /// second argument): ptxas then keeps the registers per thread at or below what that
    /// many CTAs of `num_warps * 32` threads leave (64 for two CTAs of 16 warps), spilling
    /// if it must. 0 (the default) leaves ptxas free. A launch knob like `num_warps`, so
    /// a plan or a tuning configuration can ask for it.
    pub min_ctas_per_sm: u32,
    /// Debug mode (Triton's `debug=True` / `TRITON_DEBUG=1`): `device_print` is compiled
    /// in as `vprintf` calls and `device_assert` as `__assertfail` calls where the
    /// condition's elements are false (`lower/debug.rs`). Off (the default), both lower to
    /// nothing.
    pub debug: bool,
}

impl Default for PtxOptions {
    fn default() -> Self {
        PtxOptions { arch: Arch::Sm86, num_warps: 4, ptx_version: (7, 8), min_ctas_per_sm: 0, debug: false }
    }
}

impl PtxOptions {
    /// The defaults for target `arch`, at the lowest `.version` (7.8 or later) that gives
    /// the target every instruction the lowering uses on it (8.1 for sm_89's fp8
    /// conversions) and accepts the target (8.0 for sm_90a).
    pub fn for_arch(arch: Arch) -> PtxOptions {
        let base = PtxOptions::default().ptx_version.max(arch.min_ptx_version());
        let ptx_version = arch.fp8_conversions_version().map_or(base, |v| v.max(base));
        PtxOptions { arch, ptx_version, ..PtxOptions::default() }
    }

    /// Whether fp8 conversions are PTX instructions: the target has them at this
    /// `.version` ([`Arch::fp8_conversions_version`]); otherwise integer sequences compute
    /// the same bits.
    pub fn fp8_conversions(&self) -> bool {
        self.arch.fp8_conversions_version().is_some_and(|v| self.ptx_version >= v)
    }
}

/// A compiled kernel: PTX text and what the launch needs to know.
#[derive(Clone, Debug, PartialEq)]
pub struct Ptx {
    pub text: String,
    /// The `.entry` name to look up in the module.
    pub entry: String,
    /// Launch with exactly this many threads per CTA (`num_warps * 32`).
    pub threads_per_cta: u32,
    /// Shared memory the entry uses (bytes): declared statically up to
    /// [`MAX_STATIC_SHARED_BYTES`], past it dynamic ([`Ptx::dynamic_shared_bytes`]).
    pub shared_bytes: u32,
    /// The op whose shared buffer raised the kernel's shared memory last (a staged load),
    /// which a launch refused for its shared memory names.
    pub shared_site: Option<SourceLoc>,
    pub decisions: Decisions,
    /// The tensor maps a launch encodes and passes after the kernel's parameters
    /// (`tensor_map.rs`; empty without tensor copies).
    pub tensor_maps: Vec<tensor_map::TensorMap>,
}

impl Ptx {
    /// What a launch passes as dynamic shared memory (0: the declaration is static).
    pub fn dynamic_shared_bytes(&self) -> u32 {
        dynamic_shared_bytes(self.shared_bytes)
    }
}

/// Whether an access reads or writes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum AccessKind {
    Load,
    Store,
}

/// The vector width chosen for one load or store, and why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AccessDecision {
    pub loc: SourceLoc,
    pub kind: AccessKind,
    /// Elements per memory instruction: 1 (scalar), 2 (`.v2`) or 4 (`.v4`); 0 where no
    /// thread accesses global memory (a store tensor copies write, `lower/tma_store.rs`).
    pub vector_width: u32,
    /// The facts that bound the width (contiguity, divisibility, mask constancy...).
    pub reason: String,
}

/// How one reduction was lowered.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ReductionDecision {
    pub loc: SourceLoc,
    /// Lanes of a warp combine with `shfl.sync.bfly`.
    pub uses_shuffles: bool,
    /// Several warps span the reduced axis: partials go through shared memory.
    pub uses_shared_memory: bool,
    pub reason: String,
}

/// A layout conversion through shared memory the lowering inserted (Triton's
/// `convert_layout`): a value one op reads in another layout than its own.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ConversionDecision {
    pub loc: SourceLoc,
    /// Moved between threads through shared memory; `false`: recomputed in the layout
    /// (an index cheap to rematerialize, `layout/remat.rs`).
    pub through_shared_memory: bool,
    pub reason: String,
}

/// The kernel's blocked layout and why its dims are ordered as they are (`coalesce.rs`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LayoutDecision {
    /// Dims from fastest to slowest: `order[0]` is the one consecutive lanes (and a
    /// thread's vector registers) run along.
    pub order: Vec<usize>,
    pub size_per_thread: Vec<usize>,
    /// The whole layout as the PTX header prints it (`blocked{spt=.., order=..}`).
    pub blocked: String,
    /// Which access decided the order and what bounded `sizePerThread`, in words.
    pub reason: String,
}

/// How a `for` loop with an unroll factor was lowered (`lower/unroll.rs`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LoopDecision {
    pub loc: SourceLoc,
    /// Copies of the body per trip of the main loop (at least 2; plain loops have no entry).
    pub unroll: u32,
    pub reason: String,
}

/// Where a tensor-core `dot`'s operand comes from (`lower/mma.rs`, `lower/wgmma.rs`): its
/// conversion to the dot-operand layout, Triton's `#dot_op`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DotOperandSource {
    /// The operand's own registers, repacked as fragments: no data movement (attention's
    /// `P`, whose accumulator pairs are the `a` fragment).
    Registers,
    /// `ldmatrix` fragments read once before the loop the `dot` is in (a loop-invariant
    /// `a`, attention's `Q`).
    Hoisted,
    /// Read in place from its staging ring's slot by `ldmatrix`.
    RingSlot,
    /// Read by `wgmma` from its staging ring's slot through a shared-memory descriptor.
    Descriptor,
    /// Written to shared memory by the `dot`, a barrier, then read as fragments: a layout
    /// conversion through shared memory.
    Staged,
}

impl fmt::Display for DotOperandSource {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            DotOperandSource::Registers => "from its registers, repacked as fragments (no data movement)",
            DotOperandSource::Hoisted => "ldmatrix fragments read once before the loop",
            DotOperandSource::RingSlot => "ldmatrix from its staging ring's slot, in place",
            DotOperandSource::Descriptor => "wgmma reads its staging ring's slot through a descriptor",
            DotOperandSource::Staged => "through shared memory: written by the dot, then read as fragments",
        })
    }
}

/// How one operand of a tensor-core `dot` reaches the tensor cores.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DotOperandDecision {
    pub loc: SourceLoc,
    /// `a` or `b`.
    pub operand: &'static str,
    pub source: DotOperandSource,
}

/// The decisions the lowering made, for tests, `rtriton ptx` and performance reviews.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Decisions {
    /// The kernel's layout (`None` only in a `Decisions::default()`).
    pub layout: Option<LayoutDecision>,
    pub accesses: Vec<AccessDecision>,
    pub reductions: Vec<ReductionDecision>,
    pub conversions: Vec<ConversionDecision>,
    pub loops: Vec<LoopDecision>,
    pub dot_operands: Vec<DotOperandDecision>,
}

impl Decisions {
    /// The lengths of the lists, for [`Decisions::truncate`].
    pub(crate) fn lens(&self) -> Vec<usize> {
        vec![
            self.accesses.len(),
            self.reductions.len(),
            self.conversions.len(),
            self.loops.len(),
            self.dot_operands.len(),
        ]
    }

    /// Drops the entries past `lens` (from [`Decisions::lens`]): a body lowered several
    /// times records its decisions once.
    pub(crate) fn truncate(&mut self, lens: &[usize]) {
        self.accesses.truncate(lens[0]);
        self.reductions.truncate(lens[1]);
        self.conversions.truncate(lens[2]);
        self.loops.truncate(lens[3]);
        self.dot_operands.truncate(lens[4]);
    }
}

/// Why a kernel cannot be compiled to PTX: unsupported ops, no valid layout, a block too
/// large for the register budget. Each diagnostic names the kernel and the op's line.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct PtxError(pub Diagnostics);

impl PtxError {
    pub fn new(
        code: Code,
        kernel: &str,
        loc: SourceLoc,
        message: impl Into<String>,
        help: impl Into<String>,
    ) -> PtxError {
        PtxError(Diagnostics(vec![Diagnostic::error(code, kernel, loc, message, help)]))
    }
}

impl HasDiagnostics for PtxError {
    fn diagnostics(&self) -> Vec<Diagnostic> {
        self.0.0.clone()
    }
}

/// Lowers a verified kernel to the thread-level form.
pub fn lower(kernel: &VerifiedKernel, options: &PtxOptions) -> Result<lir::Program, PtxError> {
    lower::lower_kernel(kernel.kernel(), options)
}

/// Prints a lowered program as PTX text.
pub fn write(program: &lir::Program) -> String {
    writer::write(program)
}

/// [`fn@lower`] then [`fn@write`].
pub fn compile(kernel: &VerifiedKernel, options: &PtxOptions) -> Result<Ptx, PtxError> {
    let program = lower(kernel, options)?;
    Ok(ptx_of(&program))
}

/// The PTX text of a lowered program, with what launches need to know about it.
pub fn ptx_of(program: &lir::Program) -> Ptx {
    let text = write(program);
    Ptx {
        text,
        entry: program.entry.clone(),
        threads_per_cta: program.threads_per_cta,
        shared_bytes: program.shared_bytes,
        shared_site: program.shared_site,
        decisions: program.decisions.clone(),
        tensor_maps: program.tensor_maps.clone(),
    }
}
