//! The compile session: the one driver of the stages (Triton's stage list, Cranelift's
//! `Context`). Each stage takes the previous stage's type:
//!
//! ```text
//! KernelDef + constexprs + SpecKey + TraceOptions
//!   --trace, dce-->      ir::Kernel                 (traced)
//!   --verify-->          verify::VerifiedKernel     (only the verifier makes one)
//!   --ptx::lower-->      lir::Program               (lowered)
//!   --ptx::write-->      backend::ptx::Ptx          (text)
//! ```
//!
//! The session memoizes each stage per [`StageKey`] (a derived `Hash` of structured values:
//! the kernel's identity, its constexprs, the specialization and the trace options; plus the
//! PTX options for the back-end stages), so a launch that needs the overflow guard, the
//! lint and the PTX, or an `explain` that needs both traces, the lint and both PTX texts,
//! traces each kernel once. Nothing outside this module runs the stages by hand: the
//! runtime, the CLI, `validate`, `bench` and the test helpers all call a session.

use std::collections::HashMap;
use std::sync::Arc;

use crate::backend::ptx::{self, Ptx, PtxError, PtxOptions, lir};
use crate::diag::{Diagnostic, Diagnostics, HasDiagnostics};
pub use crate::front_end_error::FrontEndError;
use crate::interp::{InterpRunError, Memory};
use crate::ir::SourceLoc;
use crate::lint::LintOptions;
use crate::spec::{ArgValue, SpecKey, SpecPolicy};
use crate::trace::{KernelDef, TraceOptions, trace};
use crate::verify::{VerifiedKernel, verify};

/// Why a kernel could not be compiled to PTX.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum CompileError {
    #[error(transparent)]
    FrontEnd(#[from] FrontEndError),
    #[error(transparent)]
    Ptx(#[from] PtxError),
    /// The portability lint found something and the caller asked to deny findings.
    #[error("{0}")]
    LintDenied(Diagnostics),
}

impl HasDiagnostics for CompileError {
    fn diagnostics(&self) -> Vec<Diagnostic> {
        match self {
            CompileError::FrontEnd(e) => e.diagnostics(),
            CompileError::Ptx(e) => e.diagnostics(),
            CompileError::LintDenied(d) => d.diagnostics(),
        }
    }
}

/// What selects one traced kernel: the definition (name and definition site), the
/// constexprs (sorted by name: their order does not change the kernel), the
/// specialization and the trace options.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct StageKey {
    pub kernel: &'static str,
    pub site: SourceLoc,
    pub constexprs: Vec<(String, i64)>,
    pub spec: SpecKey,
    pub options: TraceOptions,
}

impl StageKey {
    pub fn new(def: &KernelDef, constexprs: &[(&str, i64)], spec: &SpecKey, options: &TraceOptions) -> StageKey {
        let mut constexprs: Vec<(String, i64)> = constexprs.iter().map(|(n, v)| (n.to_string(), *v)).collect();
        constexprs.sort();
        StageKey { kernel: def.name, site: def.loc, constexprs, spec: spec.clone(), options: *options }
    }
}

/// The trace options the front end runs with for a lowering under `ptx`: `options`, with
/// the rings one slot deeper on sm_90a (whose in-flight `wgmma` then needs no barrier
/// before a refill, `TraceOptions::deeper_rings`). Every stage that compiles for a target
/// traces with these, so a launch traces each specialization once.
pub fn front_end_options(options: &TraceOptions, ptx: &PtxOptions) -> TraceOptions {
    TraceOptions { deeper_rings: ptx.arch == ptx::Arch::Sm90a, ..*options }
}

/// How often each stage ran (memoized results are not counted again).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SessionStats {
    /// Traces, each followed by dce and verify.
    pub traces: u64,
    /// Lowerings to `lir`.
    pub lowerings: u64,
    /// Lint runs (each on a memoized unspecialized trace).
    pub lints: u64,
}

type LintKey = (StageKey, LintOptions);

/// The stage driver with its memo tables (see the module doc).
#[derive(Debug, Default)]
pub struct CompileSession {
    verified: HashMap<StageKey, Result<Arc<VerifiedKernel>, FrontEndError>>,
    lowered: HashMap<(StageKey, PtxOptions), Result<Arc<lir::Program>, PtxError>>,
    ptx: HashMap<(StageKey, PtxOptions), Arc<Ptx>>,
    lints: HashMap<LintKey, Vec<Diagnostic>>,
    stats: SessionStats,
}

impl CompileSession {
    pub fn new() -> CompileSession {
        CompileSession::default()
    }

    pub fn stats(&self) -> SessionStats {
        self.stats
    }

    /// Triton's specialization of `def` for actual arguments `args` under `policy`.
    pub fn specialize(def: &KernelDef, args: &[ArgValue], policy: SpecPolicy) -> Result<SpecKey, FrontEndError> {
        Ok(SpecKey::from_args(def.name, &def.params, args, policy)?)
    }

    /// Trace (with dead-code removal) and verify, once per [`StageKey`].
    pub fn front_end(
        &mut self,
        def: &KernelDef,
        constexprs: &[(&str, i64)],
        spec: &SpecKey,
        options: &TraceOptions,
    ) -> Result<Arc<VerifiedKernel>, FrontEndError> {
        let key = StageKey::new(def, constexprs, spec, options);
        if let Some(done) = self.verified.get(&key) {
            return done.clone();
        }
        self.stats.traces += 1;
        let result = trace(def, constexprs, spec, options).map_err(FrontEndError::from).and_then(|mut kernel| {
            crate::passes::dce::run(&mut kernel);
            if crate::passes::pipeline::run(&mut kernel, options.deeper_rings) > 0 {
                crate::passes::dce::run(&mut kernel);
            }
            Ok(Arc::new(verify(kernel)?))
        });
        self.verified.insert(key, result.clone());
        result
    }

    /// [`CompileSession::specialize`] then [`CompileSession::front_end`].
    pub fn front_end_for_args(
        &mut self,
        def: &KernelDef,
        constexprs: &[(&str, i64)],
        args: &[ArgValue],
        policy: SpecPolicy,
        options: &TraceOptions,
    ) -> Result<Arc<VerifiedKernel>, FrontEndError> {
        let spec = Self::specialize(def, args, policy)?;
        self.front_end(def, constexprs, &spec, options)
    }

    /// [`CompileSession::front_end_for_args`], then the interpreter on `grid` (the
    /// interpreter's whole pipeline in one call).
    pub fn interpret(
        &mut self,
        def: &KernelDef,
        constexprs: &[(&str, i64)],
        args: &[ArgValue],
        policy: SpecPolicy,
        grid: [u32; 3],
        mem: &mut Memory,
    ) -> Result<(), InterpRunError> {
        let verified = self.front_end_for_args(def, constexprs, args, policy, &TraceOptions::default())?;
        crate::interp::run(&verified, grid, args, mem)?;
        Ok(())
    }

    /// The front end, then the lowering to `lir` under `ptx_options`, once per key.
    pub fn lower(
        &mut self,
        def: &KernelDef,
        constexprs: &[(&str, i64)],
        spec: &SpecKey,
        options: &TraceOptions,
        ptx_options: &PtxOptions,
    ) -> Result<Arc<lir::Program>, CompileError> {
        let options = &front_end_options(options, ptx_options);
        let verified = self.front_end(def, constexprs, spec, options)?;
        let key = (StageKey::new(def, constexprs, spec, options), *ptx_options);
        if let Some(done) = self.lowered.get(&key) {
            return Ok(done.clone()?);
        }
        self.stats.lowerings += 1;
        let result = ptx::lower(&verified, ptx_options).map(Arc::new);
        self.lowered.insert(key, result.clone());
        Ok(result?)
    }

    /// The lowered program printed as PTX, once per key.
    pub fn ptx(
        &mut self,
        def: &KernelDef,
        constexprs: &[(&str, i64)],
        spec: &SpecKey,
        options: &TraceOptions,
        ptx_options: &PtxOptions,
    ) -> Result<Arc<Ptx>, CompileError> {
        let program = self.lower(def, constexprs, spec, options, ptx_options)?;
        let options = &front_end_options(options, ptx_options);
        let key = (StageKey::new(def, constexprs, spec, options), *ptx_options);
        Ok(self.ptx.entry(key).or_insert_with(|| Arc::new(ptx::ptx_of(&program))).clone())
    }

    /// The portability lint's findings for `def` with `constexprs`, on the unspecialized
    /// trace (shared with any other stage that needs that trace). Errors only when the
    /// kernel does not trace.
    pub fn lint(
        &mut self,
        def: &KernelDef,
        constexprs: &[(&str, i64)],
        lint: &LintOptions,
    ) -> Result<Vec<Diagnostic>, FrontEndError> {
        let plain = SpecKey::plain(&def.params);
        let options = TraceOptions::default();
        let key = (StageKey::new(def, constexprs, &plain, &options), lint.clone());
        if let Some(done) = self.lints.get(&key) {
            return Ok(done.clone());
        }
        let unspecialized = self.front_end(def, constexprs, &plain, &options)?;
        self.stats.lints += 1;
        let findings = crate::lint::lint_traced(def, constexprs, unspecialized.kernel(), lint);
        self.lints.insert(key, findings.clone());
        Ok(findings)
    }

    /// The front end for actual arguments plus the lint, as a compile does by default:
    /// findings come back as warnings, or as [`CompileError::LintDenied`] when `lint.deny`.
    /// `lint: None` skips the lint.
    pub fn checked(
        &mut self,
        def: &KernelDef,
        constexprs: &[(&str, i64)],
        args: &[ArgValue],
        policy: SpecPolicy,
        options: &TraceOptions,
        lint: Option<&LintOptions>,
    ) -> Result<Checked, CompileError> {
        let verified = self.front_end_for_args(def, constexprs, args, policy, options)?;
        // The lint reads the unspecialized trace; a kernel that traces only under its
        // specialization (a tensor descriptor's last stride folded to 1) has nothing for it
        // to read, and the specialized front end above already passed.
        let lints = lint.map(|lo| self.lint(def, constexprs, lo).unwrap_or_default()).unwrap_or_default();
        if lint.is_some_and(|l| l.deny) && !lints.is_empty() {
            return Err(CompileError::LintDenied(Diagnostics(lints)));
        }
        Ok(Checked { verified, lints })
    }
}

/// A kernel through the front end, with the portability lint's findings.
#[derive(Clone, Debug, PartialEq)]
pub struct Checked {
    pub verified: Arc<VerifiedKernel>,
    /// Warnings of the portability lint (empty when it is off or found nothing).
    pub lints: Vec<Diagnostic>,
}
