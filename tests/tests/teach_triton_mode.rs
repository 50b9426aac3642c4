//! Triton-semantics mode beyond the seed scenario: which values count as Triton
//! constexpr ints (no `.to()`), and that default mode accepts the same kernels.

use rstest::rstest;
use rtriton::prelude::*;
use rtriton::session::CompileSession;
use rtriton::spec::{ArgValue, SpecPolicy};
use rtriton::trace::{KernelDef, Semantics, TraceOptions};

rtriton::kernel! {
    /// `.to()` on arithmetic of a folded argument and a literal: still a constexpr int.
    pub fn scaled_stride(x_ptr: Ptr<f32>, y_ptr: Ptr<f32>, stride: i32; const BLOCK: usize) {
        let offs = arange(0, BLOCK).to::<i64>();
        let s = (stride * 2).to::<i64>();
        store(y_ptr + offs, load(x_ptr + offs * s, None, None), None);
    }
}

rtriton::kernel! {
    /// `.to()` on a folded argument combined with a runtime one: a tensor, fine in Triton.
    pub fn mixed_stride(x_ptr: Ptr<f32>, y_ptr: Ptr<f32>, stride: i32, extra: i32; const BLOCK: usize) {
        let offs = arange(0, BLOCK).to::<i64>();
        let s = (stride + extra).to::<i64>();
        store(y_ptr + offs, load(x_ptr + offs * s, None, None), None);
    }
}

rtriton::kernel! {
    /// A `#[do_not_specialize]` argument is never folded, so `.to()` on it works in Triton.
    pub fn unspecialized_stride(x_ptr: Ptr<f32>, y_ptr: Ptr<f32>, #[do_not_specialize] stride: i32;
                                const BLOCK: usize) {
        let offs = arange(0, BLOCK).to::<i64>();
        let s = stride.to::<i64>();
        store(y_ptr + offs, load(x_ptr + offs * s, None, None), None);
    }
}

fn trace(def: &KernelDef, ints: &[i64], semantics: Semantics) -> Result<(), String> {
    let mut args = vec![ArgValue::Ptr(0x1000), ArgValue::Ptr(0x2000)];
    args.extend(ints.iter().map(|v| ArgValue::Int(*v)));
    CompileSession::new()
        .front_end_for_args(
            def,
            &[("BLOCK", 64)],
            &args,
            SpecPolicy::Triton,
            &TraceOptions { semantics, ..TraceOptions::default() },
        )
        .map(|_| ())
        .map_err(|e| e.to_string())
}

#[test]
fn arithmetic_on_a_folded_argument_stays_a_constexpr() {
    assert_eq!(
        trace(&scaled_stride(), &[1], Semantics::Triton),
        Err("\
error[RT0102]: kernel `scaled_stride` at tests/tests/teach_triton_mode.rs:14: AttributeError: 'int' object has no attribute 'to'
  note: Triton specializes an integer argument equal to 1 into the constant 1 (a plain int, key (\"constexpr\", 1)), so `stride` is not a tensor here and has no `.to()`; this fails for every input where `stride` is 1 (a contiguous dimension's stride) and compiles only for other values
  help: promote the index tensor instead of the scalar argument: `program_id(0).to::<i64>()` or `offs.to::<i64>() * stride`, and let `stride` widen to i64 by promotion"
            .to_string())
    );
}

#[rstest]
#[case::scaled_not_folded(scaled_stride(), vec![3], Semantics::Triton)]
#[case::scaled_default_mode(scaled_stride(), vec![1], Semantics::Rtriton)]
#[case::mixed_with_runtime(mixed_stride(), vec![1, 5], Semantics::Triton)]
#[case::do_not_specialize(unspecialized_stride(), vec![1], Semantics::Triton)]
fn traces(#[case] def: KernelDef, #[case] ints: Vec<i64>, #[case] semantics: Semantics) {
    assert_eq!(trace(&def, &ints, semantics), Ok(()));
}

#[test]
fn the_lint_flags_the_same_call() {
    let found = rtriton::session::CompileSession::new()
        .lint(&scaled_stride(), &[("BLOCK", 64)], &Default::default())
        .expect("traces");
    let lines: Vec<String> =
        found.iter().map(|d| format!("{} {}", d.loc.map_or(String::new(), |l| l.short()), d.help)).collect();
    assert_eq!(
        lines,
        ["tests/tests/teach_triton_mode.rs:14 promote the index tensor instead: `program_id(0).to::<i64>()` or \
          `offs.to::<i64>() * stride`, and let `stride` widen by promotion [to-on-specializable-arg, from \
          triton-lang/triton#2939]"]
    );
    for def in [mixed_stride(), unspecialized_stride()] {
        let found =
            rtriton::session::CompileSession::new().lint(&def, &[("BLOCK", 64)], &Default::default()).expect("traces");
        let to_findings: Vec<_> =
            found.iter().filter(|d| d.code == rtriton::diag::Code::LintToOnSpecializableArg).collect();
        assert!(to_findings.is_empty(), "{}: {to_findings:?}", def.name);
    }
}
