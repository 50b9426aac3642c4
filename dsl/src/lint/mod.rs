//! The portability lint: patterns that work in rtriton but break or slow down a kernel
//! once it is ported to (or from) Triton. One file per rule; each rule names the Triton
//! issue it comes from.
//!
//! | rule | file | from |
//! |------|------|------|
//! | [`Rule::ToOnSpecializableArg`] | `to_on_arg.rs` | triton-lang/triton#2939 |
//! | [`Rule::I32IndexProduct`] | `i32_offset.rs` | triton-lang/triton#832, #1058, #5022, #6748 |
//! | [`Rule::UnspecializedUnitStride`] | `unspecialized_stride.rs` | triton-lang/triton#9834, pytorch/helion#2426 |
//!
//! The lint runs on the *unspecialized* trace of a kernel (specialization folds an
//! argument equal to 1 away, and with it the evidence), plus one probe trace per
//! specializable integer argument under Triton semantics for the first rule, so its
//! findings do not depend on the launch's argument values.
//!
//! Findings are warnings; [`LintOptions::deny`] makes them errors, which
//! `CompileSession::checked` then refuses to compile.

mod i32_offset;
mod to_on_arg;
mod unspecialized_stride;

use std::fmt;

use crate::diag::{Code, Diagnostic, Severity};
use crate::ir::Kernel;
use crate::trace::KernelDef;

/// A lint rule.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Rule {
    /// `.to::<T>()` on a scalar integer argument that Triton folds to a constant when it
    /// equals 1: AttributeError in Triton (`row_max_i64_strides`'s bug).
    ToOnSpecializableArg,
    /// A pointer offset computed in i32 from an index times a runtime argument: wraps
    /// past 2^31 elements.
    I32IndexProduct,
    /// A `#[do_not_specialize]` integer argument multiplies an index tensor in a pointer
    /// offset: when it is 1 the access is never known to be contiguous, so it is never
    /// vectorized.
    UnspecializedUnitStride,
}

impl Rule {
    pub const ALL: [Rule; 3] = [Rule::ToOnSpecializableArg, Rule::I32IndexProduct, Rule::UnspecializedUnitStride];

    /// The rule's name, as `--allow` takes it and findings print it.
    pub fn code(self) -> &'static str {
        match self {
            Rule::ToOnSpecializableArg => "to-on-specializable-arg",
            Rule::I32IndexProduct => "i32-index-product",
            Rule::UnspecializedUnitStride => "unspecialized-unit-stride",
        }
    }

    /// The Triton issue(s) the rule comes from.
    pub fn origin(self) -> &'static str {
        match self {
            Rule::ToOnSpecializableArg => "triton-lang/triton#2939",
            Rule::I32IndexProduct => "triton-lang/triton#832",
            Rule::UnspecializedUnitStride => "triton-lang/triton#9834",
        }
    }

    pub fn from_code(code: &str) -> Option<Rule> {
        Rule::ALL.into_iter().find(|r| r.code() == code)
    }

    /// The diagnostic code of the rule's findings (callers tell rules apart by it).
    pub fn diag_code(self) -> Code {
        match self {
            Rule::ToOnSpecializableArg => Code::LintToOnSpecializableArg,
            Rule::I32IndexProduct => Code::LintI32IndexProduct,
            Rule::UnspecializedUnitStride => Code::LintUnspecializedUnitStride,
        }
    }

    /// The rule whose findings carry `code`.
    pub fn from_diag_code(code: Code) -> Option<Rule> {
        Rule::ALL.into_iter().find(|r| r.diag_code() == code)
    }
}

impl fmt::Display for Rule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.code())
    }
}

/// How the lint runs.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Default)]
pub struct LintOptions {
    /// Report findings as errors (compilation through `CompileSession::checked` then fails).
    pub deny: bool,
    /// Rules not to run.
    pub allow: Vec<Rule>,
}

impl LintOptions {
    fn runs(&self, rule: Rule) -> bool {
        !self.allow.contains(&rule)
    }
}

/// Builds a finding of `rule`: the fix is followed by the rule's name and origin.
fn finding(
    rule: Rule,
    kernel: &Kernel,
    loc: impl Into<Option<crate::ir::SourceLoc>>,
    message: String,
    fix: String,
) -> Diagnostic {
    let help = format!("{fix} [{}, from {}]", rule.code(), rule.origin());
    Diagnostic::warning(rule.diag_code(), &kernel.name, loc, message, help)
}

/// Every rule on `kernel`, the unspecialized (dead-code-free) trace of `def` with
/// `constexprs` (the first rule also probes `def`).
pub fn lint_traced(
    def: &KernelDef,
    constexprs: &[(&str, i64)],
    kernel: &Kernel,
    options: &LintOptions,
) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    if options.runs(Rule::ToOnSpecializableArg) {
        out.extend(to_on_arg::check(def, constexprs, kernel));
    }
    out.extend(lint_kernel(kernel, options));
    finish(out, options)
}

/// The rules that need only a traced kernel (all but [`Rule::ToOnSpecializableArg`],
/// which needs the definition to probe). Give it an unspecialized trace: a specialized
/// one has the arguments equal to 1 folded away.
pub fn lint_kernel(kernel: &Kernel, options: &LintOptions) -> Vec<Diagnostic> {
    let widths = crate::analysis::index_width::analyze(kernel);
    let mut out = Vec::new();
    if options.runs(Rule::I32IndexProduct) {
        out.extend(i32_offset::check(kernel, &widths));
    }
    if options.runs(Rule::UnspecializedUnitStride) {
        out.extend(unspecialized_stride::check(kernel, &widths));
    }
    finish(out, options)
}

fn finish(mut out: Vec<Diagnostic>, options: &LintOptions) -> Vec<Diagnostic> {
    let mut seen = std::collections::HashSet::new();
    out.retain(|d| seen.insert(d.clone()));
    out.sort_by_key(|d| d.loc.map(|l| (l.file, l.line, l.column)));
    if options.deny {
        for d in &mut out {
            d.severity = Severity::Error;
        }
    }
    out
}
