//! `rtriton explain`: what specialization did to a kernel for one set of launch
//! arguments, and why. The report is built here (no CLI dependency); the host adds the
//! PTX diff (it owns the diff library) and the command line.
//!
//! Sections, in order ([`Section`]):
//! - `spec`: the specialization key per argument: folded / hinted / plain, and why;
//! - `trace`: whether the kernel traces under the chosen semantics (Triton-semantics mode
//!   reproduces Triton's AttributeError here);
//! - `fold`: what folding changed: op counts with and without specialization, and the
//!   ops that read each folded argument;
//! - `index`: which pointer offsets are computed in i32 and which in i64, and from what;
//! - `vector`: the kernel's layout (which dim is fastest, from the loads' contiguity) and
//!   the vector width of every load and store with and without specialization, and why,
//!   and how each reduction is lowered (from the PTX back end's decisions);
//! - `lint`: the portability lint's findings;
//! - `guard`: the overflow guard's verdict for the extents given;
//! - `ir`: the specialized kernel's IR.

use std::collections::BTreeMap;
use std::fmt::Write;
use std::sync::Arc;

use crate::analysis::index_width::{IndexWidths, analyze};
use crate::backend::ptx::{AccessKind, Ptx, PtxError, PtxOptions};
use crate::diag::{Code, Diagnostic};
use crate::guard::{TensorExtent, check_offsets};
use crate::ir::{Kernel, OpKind, ParamDecl, ParamKind, Value};
use crate::lint::LintOptions;
use crate::session::{CompileError, CompileSession, FrontEndError, SessionStats};
use crate::spec::{ArgSpec, ArgValue, HINT_DIVISIBILITY, SpecError, SpecKey, SpecPolicy};
use crate::trace::{KernelDef, Semantics, TraceOptions};
use crate::verify::VerifiedKernel;

/// One part of the report.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Section {
    Spec,
    Trace,
    Fold,
    Index,
    Vector,
    Lint,
    Guard,
    Ir,
}

impl Section {
    /// Every section in report order.
    pub const ALL: [Section; 8] = [
        Section::Spec,
        Section::Trace,
        Section::Fold,
        Section::Index,
        Section::Vector,
        Section::Lint,
        Section::Guard,
        Section::Ir,
    ];

    /// The sections a report has when none are asked for (the IR is opt-in).
    pub const DEFAULT: [Section; 7] =
        [Section::Spec, Section::Trace, Section::Fold, Section::Index, Section::Vector, Section::Lint, Section::Guard];

    pub fn name(self) -> &'static str {
        match self {
            Section::Spec => "spec",
            Section::Trace => "trace",
            Section::Fold => "fold",
            Section::Index => "index",
            Section::Vector => "vector",
            Section::Lint => "lint",
            Section::Guard => "guard",
            Section::Ir => "ir",
        }
    }

    pub fn from_name(name: &str) -> Option<Section> {
        Section::ALL.into_iter().find(|s| s.name() == name)
    }
}

/// What to explain: a kernel, its constexprs and one launch's arguments.
#[derive(Clone, Copy, Debug)]
pub struct ExplainInput<'a> {
    pub def: &'a KernelDef,
    pub constexprs: &'a [(&'a str, i64)],
    pub args: &'a [ArgValue],
    pub policy: SpecPolicy,
    pub semantics: Semantics,
    /// Tensor extents for the overflow guard (none: the guard section says so).
    pub extents: &'a [TensorExtent],
    pub ptx: PtxOptions,
    /// How the portability lint runs (`deny` makes its findings stop the launch).
    pub lint: &'a LintOptions,
}

/// How one argument was specialized, and why.
#[derive(Clone, Debug, PartialEq)]
pub struct ArgLine {
    pub name: &'static str,
    pub kind: ParamKind,
    pub value: ArgValue,
    pub spec: ArgSpec,
    pub why: String,
}

/// A traced and verified kernel, or why tracing failed.
pub type Traced = Result<Arc<VerifiedKernel>, FrontEndError>;

/// Everything the report shows, computed once.
#[derive(Debug)]
pub struct Explanation {
    pub kernel: String,
    pub signature: String,
    pub constexprs: Vec<(String, i64)>,
    pub policy: SpecPolicy,
    pub semantics: Semantics,
    pub args: Vec<ArgLine>,
    pub spec: SpecKey,
    /// Traced with the launch's specialization and semantics.
    pub specialized: Traced,
    /// Traced with every argument plain, rtriton semantics (the baseline).
    pub unspecialized: Traced,
    pub lints: Result<Vec<Diagnostic>, FrontEndError>,
    /// `None` when no extents were given.
    pub guard: Option<Result<(), Diagnostic>>,
    /// PTX of the specialized and unspecialized traces (`None` when the trace failed).
    pub ptx_specialized: Option<Result<Arc<Ptx>, PtxError>>,
    pub ptx_unspecialized: Option<Result<Arc<Ptx>, PtxError>>,
    /// How often each stage ran for this report (each trace once).
    pub stages: SessionStats,
}

impl Explanation {
    /// Whether the launch would go ahead: the kernel traces under the chosen semantics,
    /// the lint reports no error (findings are errors only under `deny`) and the guard
    /// (if asked) accepts it.
    pub fn ok(&self) -> bool {
        let lint_errors =
            self.lints.as_ref().is_ok_and(|l| l.iter().any(|d| d.severity == crate::diag::Severity::Error));
        self.specialized.is_ok() && !lint_errors && !matches!(self.guard, Some(Err(_)))
    }
}

/// Computes the report's contents. Fails only when the arguments do not fit the kernel's
/// parameters (count, types, ranges).
pub fn explain(input: &ExplainInput<'_>) -> Result<Explanation, SpecError> {
    let def = input.def;
    let spec = SpecKey::from_args(def.name, &def.params, input.args, input.policy)?;
    let args = def
        .params
        .iter()
        .zip(input.args)
        .zip(&spec.args)
        .map(|((p, v), (_, _, s))| ArgLine {
            name: p.name,
            kind: p.kind,
            value: *v,
            spec: *s,
            why: why(p, *v, *s, input.policy),
        })
        .collect();
    // One session for the whole report: the unspecialized trace serves the folding
    // section, the lint and the baseline PTX, traced once.
    let mut session = CompileSession::new();
    let options = TraceOptions { semantics: input.semantics, ..TraceOptions::default() };
    let plain = SpecKey::plain(&def.params);
    let specialized = session.front_end(def, input.constexprs, &spec, &options);
    let unspecialized = session.front_end(def, input.constexprs, &plain, &TraceOptions::default());
    let lints = session.lint(def, input.constexprs, input.lint);
    let guard_kernel = specialized.as_ref().or(unspecialized.as_ref()).ok();
    let guard = match (input.extents.is_empty(), guard_kernel) {
        (false, Some(v)) => Some(check_offsets(v.kernel(), input.extents)),
        // extents not given or no trace: no guard verdict (not an op kind)
        _ => None,
    };
    let mut compile = |t: &Traced, spec: &SpecKey, options: &TraceOptions| {
        t.as_ref().ok().map(|_| {
            session.ptx(def, input.constexprs, spec, options, &input.ptx).map_err(|e| match e {
                CompileError::Ptx(p) => p,
                // The trace succeeded (checked above), so only the back end can fail here.
                CompileError::FrontEnd(_) | CompileError::LintDenied(_) => PtxError::new(
                    Code::PtxUnsupported,
                    def.name,
                    def.loc,
                    e.to_string(),
                    "report this as an rtriton bug",
                ),
            })
        })
    };
    let ptx_specialized = compile(&specialized, &spec, &options);
    let ptx_unspecialized = compile(&unspecialized, &plain, &TraceOptions::default());
    Ok(Explanation {
        kernel: def.name.to_string(),
        signature: def.signature(),
        constexprs: input.constexprs.iter().map(|(n, v)| (n.to_string(), *v)).collect(),
        policy: input.policy,
        semantics: input.semantics,
        args,
        spec,
        ptx_specialized,
        ptx_unspecialized,
        stages: session.stats(),
        specialized,
        unspecialized,
        lints,
        guard,
    })
}

/// Why an argument got its specialization.
fn why(p: &ParamDecl, v: ArgValue, s: ArgSpec, policy: SpecPolicy) -> String {
    let off = policy == SpecPolicy::Off;
    match (s, v) {
        (ArgSpec::FoldedOne, _) => "equals 1: traced as the constant 1 (Triton's (\"constexpr\", 1))".into(),
        (ArgSpec::Divisible16, ArgValue::Int(x)) => {
            format!("{x} is a multiple of {HINT_DIVISIBILITY}: tt.divisibility = {HINT_DIVISIBILITY}")
        }
        (ArgSpec::Divisible16, ArgValue::Ptr(a)) => {
            format!("0x{a:x} is {HINT_DIVISIBILITY}-byte aligned: tt.divisibility = {HINT_DIVISIBILITY}")
        }
        (_, ArgValue::F32(_)) => "floats are never specialized".into(),
        _ if off => "specialization is off for this launch".into(),
        _ if p.do_not_specialize => "#[do_not_specialize]".into(),
        (_, ArgValue::Int(x)) if x % HINT_DIVISIBILITY as i64 == 0 => {
            format!("{x} is a multiple of {HINT_DIVISIBILITY} but the parameter is #[do_not_specialize_on_alignment]")
        }
        (_, ArgValue::Int(x)) => format!("{x} is neither 1 nor a multiple of {HINT_DIVISIBILITY}"),
        (_, ArgValue::Ptr(_)) if p.do_not_specialize_on_alignment => "#[do_not_specialize_on_alignment]".into(),
        (_, ArgValue::Ptr(a)) => format!("0x{a:x} is not {HINT_DIVISIBILITY}-byte aligned"),
    }
}

/// Renders the report's sections in report order.
pub fn render(e: &Explanation, sections: &[Section]) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "kernel {}", e.signature);
    if !e.constexprs.is_empty() {
        let cs: Vec<String> = e.constexprs.iter().map(|(n, v)| format!("{n} = {v}")).collect();
        let _ = writeln!(out, "constexprs: {}", cs.join(", "));
    }
    for s in Section::ALL.into_iter().filter(|s| sections.contains(s)) {
        out.push('\n');
        match s {
            Section::Spec => spec_section(e, &mut out),
            Section::Trace => trace_section(e, &mut out),
            Section::Fold => fold_section(e, &mut out),
            Section::Index => index_section(e, &mut out),
            Section::Vector => vector_section(e, &mut out),
            Section::Lint => lint_section(e, &mut out),
            Section::Guard => guard_section(e, &mut out),
            Section::Ir => ir_section(e, &mut out),
        }
    }
    out
}

fn spec_section(e: &Explanation, out: &mut String) {
    let policy = match e.policy {
        SpecPolicy::Triton => "Triton's rules",
        SpecPolicy::Off => "off",
    };
    let _ = writeln!(out, "specialization ({policy}): {}", e.spec);
    let w = e.args.iter().map(|a| a.name.len()).max().unwrap_or(0);
    let vw = e.args.iter().map(|a| a.value.to_string().len()).max().unwrap_or(0);
    for a in &e.args {
        let what = match a.spec {
            ArgSpec::FoldedOne => "folded",
            ArgSpec::Divisible16 => "hinted",
            ArgSpec::Plain => "plain ",
        };
        let _ = writeln!(out, "  {:w$} = {:<vw$}  {what}  {}", a.name, a.value.to_string(), a.why);
    }
}

fn semantics_name(s: Semantics) -> &'static str {
    match s {
        Semantics::Rtriton => "rtriton",
        Semantics::Triton => "Triton",
    }
}

fn trace_section(e: &Explanation, out: &mut String) {
    match &e.specialized {
        Ok(v) => {
            let k = v.kernel();
            let _ = writeln!(out, "trace ({} semantics): ok, {} ops", semantics_name(e.semantics), k.walk().len());
        }
        Err(err) => {
            let _ = writeln!(out, "trace ({} semantics): failed", semantics_name(e.semantics));
            let _ = writeln!(out, "{err}");
        }
    }
}

/// Op counts by name, nested loop bodies included, constants left out (folding turns
/// ops into constants, which cost nothing at run time).
fn op_counts(k: &Kernel) -> BTreeMap<&'static str, usize> {
    let mut m = BTreeMap::new();
    for id in k.walk() {
        if !matches!(k.op(id).kind, OpKind::Constant { .. }) {
            *m.entry(k.op(id).kind.name()).or_insert(0) += 1;
        }
    }
    m
}

/// The ops reading `v`, looking through casts, splats and broadcasts of it.
fn readers(k: &Kernel, v: Value) -> Vec<crate::ir::OpId> {
    let mut frontier = vec![v];
    let mut out = Vec::new();
    while let Some(x) = frontier.pop() {
        for id in k.walk() {
            let op = k.op(id);
            if !op.kind.operands().contains(&x) {
                continue;
            }
            // Any reader is listed; casts, splats and broadcasts carry the value on, so
            // their readers are followed too.
            out.push(id);
            if matches!(op.kind, OpKind::Cast { .. } | OpKind::Splat { .. } | OpKind::Broadcast { .. }) {
                frontier.extend(op.results.iter().copied());
            }
        }
    }
    out.sort();
    out.dedup();
    out
}

fn fold_section(e: &Explanation, out: &mut String) {
    let (Ok(spec), Ok(plain)) = (&e.specialized, &e.unspecialized) else {
        let _ = writeln!(out, "folding: not shown (the kernel does not trace)");
        return;
    };
    let (spec, plain) = (spec.kernel(), plain.kernel());
    let (a, b) = (op_counts(plain), op_counts(spec));
    let (na, nb) = (a.values().sum::<usize>(), b.values().sum::<usize>());
    let _ = writeln!(
        out,
        "folding: {na} ops unspecialized, {nb} specialized ({} removed; constants not counted)",
        na.saturating_sub(nb)
    );
    let names: std::collections::BTreeSet<&str> = a.keys().chain(b.keys()).copied().collect();
    let changed: Vec<String> = names
        .into_iter()
        .filter_map(|n| {
            let (x, y) = (a.get(n).copied().unwrap_or(0), b.get(n).copied().unwrap_or(0));
            (x != y).then(|| format!("{n} {x} -> {y}"))
        })
        .collect();
    if !changed.is_empty() {
        let _ = writeln!(out, "  op counts: {}", changed.join(", "));
    }
    for (index, a) in e.args.iter().enumerate() {
        if a.spec != ArgSpec::FoldedOne {
            continue;
        }
        let param = plain.walk().into_iter().find(|id| plain.op(*id).kind == OpKind::Param { index });
        let Some(param) = param else { continue };
        let reads: Vec<String> = readers(plain, plain.op(param).results[0])
            .into_iter()
            .map(|id| format!("{} at {}", plain.op(id).kind.name(), plain.op(id).loc.short()))
            .collect();
        let reads = if reads.is_empty() { "nothing".to_string() } else { reads.join(", ") };
        let _ = writeln!(out, "  `{}` = 1: its reads in the unspecialized trace fold away: {reads}", a.name);
    }
}

/// `a and b` as `(a and b)`, so a product of two lists reads unambiguously.
fn group(s: String) -> String {
    if s.contains(" and ") { format!("({s})") } else { s }
}

fn describe_offsets(k: &Kernel, w: &IndexWidths, out: &mut String) {
    for o in &w.offsets {
        let base = o.param.map_or("?", |p| k.params[p].name);
        let _ = writeln!(out, "  {base} + offset at {}: {} from {}", o.loc.short(), o.width, o.sources.describe(k));
        if !o.widenings.is_empty() {
            let w: Vec<String> =
                o.widenings.iter().map(|w| format!("{} at {}", w.sources.describe(k), w.loc.short())).collect();
            let _ = writeln!(out, "    widened to i64: {}", w.join(", "));
        }
        for p in &o.products {
            let risk = if p.width == crate::ir::ScalarType::I32 { "  <- wraps past 2^31 - 1" } else { "" };
            let _ = writeln!(
                out,
                "    {} x {} in {} at {}{risk}",
                group(p.index.describe(k)),
                group(p.runtime.describe(k)),
                p.width,
                p.loc.short()
            );
        }
    }
}

fn index_section(e: &Explanation, out: &mut String) {
    let (k, which) = match (&e.specialized, &e.unspecialized) {
        (Ok(v), _) => (v.kernel(), "specialized"),
        (Err(_), Ok(v)) => (v.kernel(), "unspecialized"),
        // neither trace succeeded (a pair of results, not an op kind)
        _ => {
            let _ = writeln!(out, "index math: not shown (the kernel does not trace)");
            return;
        }
    };
    let w = analyze(k);
    let narrow = w.offsets.iter().filter(|o| o.computed_in_i32()).count();
    let _ = writeln!(
        out,
        "index math ({which} trace): {} pointer offsets, {narrow} computed in i32, {} in i64",
        w.offsets.len(),
        w.offsets.len() - narrow
    );
    describe_offsets(k, &w, out);
}

fn access_kind(k: AccessKind) -> &'static str {
    match k {
        AccessKind::Load => "load",
        AccessKind::Store => "store",
    }
}

/// `v4`, or `tensor copy` where no thread accesses global memory (a tensor store, TMA).
fn vector_width(w: u32) -> String {
    if w == 0 { "tensor copy".to_string() } else { format!("v{w}") }
}

fn vector_section(e: &Explanation, out: &mut String) {
    match (&e.ptx_specialized, &e.ptx_unspecialized) {
        (Some(Ok(s)), plain) => {
            let _ = writeln!(out, "vector widths (specialized; unspecialized in brackets):");
            let plain_decisions = match plain {
                Some(Ok(p)) => Some(&p.decisions),
                // no unspecialized PTX (a Result, not an op kind)
                _ => None,
            };
            // The layout's order decides along which dim the accesses below are vectors.
            if let Some(l) = &s.decisions.layout {
                let _ = writeln!(out, "  layout {}: {}", l.blocked, l.reason);
                if let Some(p) = plain_decisions.and_then(|p| p.layout.as_ref()).filter(|p| p.order != l.order) {
                    let _ = writeln!(out, "    unspecialized: layout {}: {}", p.blocked, p.reason);
                }
            }
            let plain = plain_decisions.map(|p| &p.accesses);
            for (i, a) in s.decisions.accesses.iter().enumerate() {
                // Both traces keep every load and store, in program order.
                let before = plain.and_then(|p| p.get(i)).filter(|b| b.loc == a.loc && b.kind == a.kind);
                let width = before.map_or("?".to_string(), |b| vector_width(b.vector_width));
                let _ = writeln!(
                    out,
                    "  {} at {}: {} [{width}]: {}",
                    access_kind(a.kind),
                    a.loc.short(),
                    vector_width(a.vector_width),
                    a.reason
                );
                if let Some(b) = before.filter(|b| b.vector_width != a.vector_width) {
                    let _ = writeln!(out, "    unspecialized: {}", b.reason);
                }
            }
            for r in &s.decisions.reductions {
                let how = match (r.uses_shuffles, r.uses_shared_memory) {
                    (true, true) => "warp shuffles, then shared memory across warps",
                    (true, false) => "warp shuffles",
                    (false, true) => "shared memory",
                    (false, false) => "in registers",
                };
                let _ = writeln!(out, "  reduce at {}: {how}: {}", r.loc.short(), r.reason);
            }
            for l in &s.decisions.loops {
                let _ = writeln!(out, "  loop at {}: unrolled {}x: {}", l.loc.short(), l.unroll, l.reason);
            }
            for c in &s.decisions.conversions {
                let how = if c.through_shared_memory { "through shared memory" } else { "recomputed" };
                let _ = writeln!(out, "  layout conversion at {}: {how}: {}", c.loc.short(), c.reason);
            }
            for d in &s.decisions.dot_operands {
                let _ = writeln!(out, "  dot operand at {}: `{}` {}", d.loc.short(), d.operand, d.source);
            }
        }
        (Some(Err(err)), _) => {
            let _ = writeln!(out, "vector widths: the PTX back end could not compile the kernel");
            let _ = writeln!(out, "{err}");
        }
        (None, _) => {
            let _ = writeln!(out, "vector widths: not shown (the kernel does not trace)");
        }
    }
}

fn lint_section(e: &Explanation, out: &mut String) {
    match &e.lints {
        Ok(found) if found.is_empty() => {
            let _ = writeln!(out, "lint: no findings");
        }
        Ok(found) => {
            let _ = writeln!(out, "lint: {} finding{}", found.len(), if found.len() == 1 { "" } else { "s" });
            for d in found {
                let _ = writeln!(out, "{d}");
            }
        }
        Err(err) => {
            let _ = writeln!(out, "lint: not run (the kernel does not trace)\n{err}");
        }
    }
}

fn guard_section(e: &Explanation, out: &mut String) {
    match &e.guard {
        None => {
            let _ = writeln!(out, "overflow guard: no tensor extents given (pass --extent NAME=ELEMENTS)");
        }
        Some(Ok(())) => {
            let _ = writeln!(out, "overflow guard: launch accepted");
        }
        Some(Err(d)) => {
            let _ = writeln!(out, "overflow guard: launch refused\n{d}");
        }
    }
}

fn ir_section(e: &Explanation, out: &mut String) {
    match &e.specialized {
        Ok(v) => {
            let _ = writeln!(out, "specialized IR:");
            out.push_str(&v.kernel().to_string());
        }
        Err(_) => {
            let _ = writeln!(out, "specialized IR: none (the kernel does not trace)");
        }
    }
}
