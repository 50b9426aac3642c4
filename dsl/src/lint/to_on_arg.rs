//! Rule `to-on-specializable-arg` (triton-lang/triton#2939, still open; PR #6767 to add
//! `.to` on constexpr was closed).
//!
//! Triton passes an integer argument equal to 1 as the constant 1, a plain Python int,
//! unless the parameter is `do_not_specialize` (or annotated with a Triton integer type).
//! `stride.to(tl.int64)` then raises `AttributeError: 'int' object has no attribute 'to'`
//! for exactly the inputs where the stride is 1: every contiguous tensor. rtriton keeps a
//! folded argument typed, so the port works here and fails only in Triton.
//!
//! Detection: one probe trace per specializable integer parameter, folded to 1 under
//! [`Semantics::Triton`]; the probe's AttributeErrors are the `.to` calls that would fail.
//! This catches the call wherever the argument flows without arithmetic, and does not
//! confuse an explicit `.to` with the implicit widening `i64 * i32` does (which is fine
//! in Triton).

use crate::diag::{Code, Diagnostic};
use crate::ir::{Kernel, ParamKind};
use crate::lang::semantic::TRITON_TO_ERROR;
use crate::spec::{ArgSpec, SpecKey};
use crate::trace::{KernelDef, Semantics, TraceOptions, trace};

use super::{Rule, finding};

pub(super) fn check(def: &KernelDef, constexprs: &[(&str, i64)], kernel: &Kernel) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    for (index, p) in def.params.iter().enumerate() {
        let ParamKind::Scalar(s) = p.kind else { continue };
        if !s.is_int() || p.do_not_specialize {
            continue;
        }
        let mut spec = SpecKey::plain(&def.params);
        spec.args[index].2 = ArgSpec::FoldedOne;
        let options = TraceOptions { semantics: Semantics::Triton, ..TraceOptions::default() };
        let Err(err) = trace(def, constexprs, &spec, &options) else { continue };
        for d in err.0.0.iter().filter(|d| d.code == Code::TraceTritonConstexprTo) {
            out.push(finding(
                Rule::ToOnSpecializableArg,
                kernel,
                d.loc,
                format!(
                    "`.to()` on the integer argument `{0}`: in Triton this argument becomes a constant when it is 1 \
                     and `.to` raises {TRITON_TO_ERROR} (for every input where `{0}` is 1, e.g. a contiguous \
                     dimension's stride)",
                    p.name
                ),
                format!(
                    "promote the index tensor instead: `program_id(0).to::<i64>()` or `offs.to::<i64>() * {0}`, \
                     and let `{0}` widen by promotion",
                    p.name
                ),
            ));
        }
    }
    out
}
