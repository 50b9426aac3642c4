//! Tracing: running a kernel definition's Rust body to build its IR.
//!
//! `trace(def, constexprs, spec, options) -> Kernel` is the first step of the pipeline
//! (trace, verify, lower, print). The body is ordinary Rust that calls DSL ops; every op
//! appends to the [`Builder`] installed for the duration of the trace and records the
//! caller's location. Errors found while tracing (shape mismatches, bad constexprs,
//! Triton-semantics violations) are collected, not raised, so one trace reports them all.

mod builder;
mod generic;
mod kernel_def;
mod scope;

pub use builder::Builder;
pub(crate) use builder::with_builder;
pub use generic::{Generic, Instance};
pub use kernel_def::{ArgBinder, ConstexprValue, KernelDef, ParamType};

use crate::diag::{Code, Diagnostic, Diagnostics};
use crate::ir::Kernel;
use crate::spec::SpecKey;

/// Which language rules the trace follows.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum Semantics {
    /// rtriton's rules: a folded argument is still a typed value (`.to::<i64>()` works).
    #[default]
    Rtriton,
    /// Triton's rules, to reproduce ports' failures on purpose: an argument specialized
    /// to 1 is a plain constexpr int with no `.to()`, so calling it is a trace error with
    /// Triton's AttributeError text.
    Triton,
}

/// Options that change what a trace produces (part of the compile cache key).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub struct TraceOptions {
    pub semantics: Semantics,
    /// The staging rings of a K loop whose `dot` can stay in flight across iterations (its
    /// operands both ring reads, its accumulator carried) get one slot more than the loop's
    /// stages where they fit a CTA's shared memory on sm_90, so a slot is refilled two
    /// iterations after its last read and no barrier is needed between the wait for that
    /// read and the refill (`passes/pipeline/ring.rs`). [`CompileSession::lower`] sets it
    /// for sm_90a. It changes no result.
    ///
    /// [`CompileSession::lower`]: crate::session::CompileSession::lower
    pub deeper_rings: bool,
}

/// Everything a trace found wrong.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct TraceError(pub Diagnostics);

impl crate::diag::HasDiagnostics for TraceError {
    fn diagnostics(&self) -> Vec<Diagnostic> {
        self.0.0.clone()
    }
}

/// Runs `def`'s body with the given constexprs and specialization and returns its IR.
pub fn trace(
    def: &KernelDef,
    constexprs: &[(&str, i64)],
    spec: &SpecKey,
    options: &TraceOptions,
) -> Result<Kernel, TraceError> {
    let mut errors = Vec::new();
    for (name, _) in constexprs {
        if !def.constexprs.contains(name) {
            errors.push(Diagnostic::error(
                Code::TraceRule,
                def.name,
                def.loc,
                format!("unknown constexpr `{name}`"),
                format!("the kernel's constexprs are: {}", def.constexprs.join(", ")),
            ));
        }
    }
    if spec.args.len() != def.params.len()
        || spec.args.iter().zip(&def.params).any(|((n, k, _), p)| *n != p.name || *k != p.kind)
    {
        errors.push(Diagnostic::error(
            Code::TraceRule,
            def.name,
            def.loc,
            "the specialization key does not match the kernel's parameters",
            "compute the key with SpecKey::from_args for this kernel's parameters",
        ));
    }
    if !errors.is_empty() {
        return Err(TraceError(Diagnostics(errors)));
    }
    let builder = Builder::new(def, constexprs, spec, *options);
    let builder = builder::run(builder, |binder| (def.body)(binder));
    builder.finish()
}

/// Convenience for tests and tools: trace with every argument plain (specialization off).
pub fn trace_unspecialized(def: &KernelDef, constexprs: &[(&str, i64)]) -> Result<Kernel, TraceError> {
    trace(def, constexprs, &SpecKey::plain(&def.params), &TraceOptions::default())
}
