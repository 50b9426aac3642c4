//! The portability lint: every rule, rendered findings compared as whole text. The row-max
//! family is the fixture copy in `tests/src/fixtures/`, whose lines the findings name.

use rstest::rstest;
use rtriton::diag::{Diagnostic, Severity};
use rtriton::lint::{LintOptions, Rule};
use rtriton::prelude::*;
use rtriton::session::{CompileError, CompileSession, FrontEndError};
use rtriton::spec::{ArgValue, SpecPolicy};
use rtriton::trace::{KernelDef, TraceOptions};
use rtriton_kernels::RowMaxVariant;
use rtriton_tests::fixtures::row_max_family::def as fixture;

rtriton::kernel! {
    /// A strided copy whose stride is `#[do_not_specialize]`: never folded to 1, so the
    /// load is never known to be contiguous (rule `unspecialized-unit-stride`).
    pub fn copy_unspecialized_stride(x_ptr: Ptr<f32>, y_ptr: Ptr<f32>, n: i32, #[do_not_specialize] stride: i32;
                                     const BLOCK: usize) {
        let offs = program_id(0).to::<i64>() * BLOCK as i64 + arange(0, BLOCK).to::<i64>();
        let mask = offs.lt(n);
        let x = load(x_ptr + offs * stride, Some(mask), Some(0.0));
        store(y_ptr + offs, x, Some(mask));
    }
}

fn render(def: &KernelDef, constexprs: &[(&str, i64)], options: &LintOptions) -> String {
    let found = lint(def, constexprs, options).expect("the kernel traces");
    found.iter().map(|d| format!("{d}\n")).collect()
}

fn check(variant: RowMaxVariant, expected: &str) {
    assert_eq!(render(&fixture(variant), &variant.default_constexprs(), &LintOptions::default()), expected);
}

const I64_STRIDES_FINDINGS: &str = "\
warning[RT0301]: kernel `row_max_i64_strides` at tests/src/fixtures/row_max_family.rs:71: `.to()` on the integer argument `stride_row`: in Triton this argument becomes a constant when it is 1 and `.to` raises AttributeError: 'int' object has no attribute 'to' (for every input where `stride_row` is 1, e.g. a contiguous dimension's stride)
  help: promote the index tensor instead: `program_id(0).to::<i64>()` or `offs.to::<i64>() * stride_row`, and let `stride_row` widen by promotion [to-on-specializable-arg, from triton-lang/triton#2939]
warning[RT0301]: kernel `row_max_i64_strides` at tests/src/fixtures/row_max_family.rs:72: `.to()` on the integer argument `stride_col`: in Triton this argument becomes a constant when it is 1 and `.to` raises AttributeError: 'int' object has no attribute 'to' (for every input where `stride_col` is 1, e.g. a contiguous dimension's stride)
  help: promote the index tensor instead: `program_id(0).to::<i64>()` or `offs.to::<i64>() * stride_col`, and let `stride_col` widen by promotion [to-on-specializable-arg, from triton-lang/triton#2939]
";

const ROW_MAX_I32: &str = "\
warning[RT0302]: kernel `row_max_i32` at tests/src/fixtures/row_max_family.rs:111: the offset into `x_ptr` multiplies program_id(0) by `stride_row` in i32: it wraps past 2^31 - 1 elements and addresses the wrong memory on large tensors
  help: promote the index tensor before multiplying: `program_id(0).to::<i64>()` or `offs.to::<i64>()`, so the product runs in i64 [i32-index-product, from triton-lang/triton#832]
warning[RT0302]: kernel `row_max_i32` at tests/src/fixtures/row_max_family.rs:111: the offset into `x_ptr` multiplies an arange index tensor by `stride_col` in i32: it wraps past 2^31 - 1 elements and addresses the wrong memory on large tensors
  help: promote the index tensor before multiplying: `program_id(0).to::<i64>()` or `offs.to::<i64>()`, so the product runs in i64 [i32-index-product, from triton-lang/triton#832]
";

#[rstest]
#[case::i64_strides(RowMaxVariant::I64Strides, I64_STRIDES_FINDINGS)]
#[case::i64_index(RowMaxVariant::I64Index, "")]
#[case::row_max(RowMaxVariant::RowMax, "")]
#[case::row_max_loop(RowMaxVariant::RowMaxLoop, "")]
#[case::row_max_2d(RowMaxVariant::RowMax2d, "")]
#[case::row_max_i32(RowMaxVariant::RowMaxI32, ROW_MAX_I32)]
fn row_max_family(#[case] variant: RowMaxVariant, #[case] expected: &str) {
    check(variant, expected);
}

#[test]
fn do_not_specialize_stride_blocks_vectorization() {
    let expected = "\
warning[RT0303]: kernel `copy_unspecialized_stride` at tests/tests/teach_lint.rs:21: `stride` is #[do_not_specialize] and multiplies an element index in a pointer offset: it is never folded to 1, so this access is not known to be contiguous and is not vectorized even when `stride` is 1
  help: drop #[do_not_specialize] from `stride` (use #[do_not_specialize_on_alignment] to keep the folding and drop only the hint); in Triton, also leave the stride unannotated [unspecialized-unit-stride, from triton-lang/triton#9834]
";
    assert_eq!(render(&copy_unspecialized_stride(), &[("BLOCK", 256)], &LintOptions::default()), expected);
}

#[test]
fn allow_turns_a_rule_off() {
    let options = LintOptions { deny: false, allow: vec![Rule::ToOnSpecializableArg] };
    let v = RowMaxVariant::I64Strides;
    assert_eq!(render(&fixture(v), &v.default_constexprs(), &options), "");
}

#[test]
fn deny_makes_findings_errors_and_refuses_compilation() {
    let v = RowMaxVariant::I64Strides;
    let deny = LintOptions { deny: true, allow: vec![] };
    let found = lint(&fixture(v), &v.default_constexprs(), &deny).expect("traces");
    assert!(found.iter().all(|d| d.severity == Severity::Error));
    let args = [
        ArgValue::Ptr(0x7f00_0000_0000),
        ArgValue::Ptr(0x7f00_0010_0000),
        ArgValue::Int(4),
        ArgValue::Int(100),
        ArgValue::Int(200),
        ArgValue::Int(2),
    ];
    let consts = v.default_constexprs();
    let err = CompileSession::new()
        .checked(&fixture(v), &consts, &args, SpecPolicy::Triton, &TraceOptions::default(), Some(&deny))
        .expect_err("deny refuses the stride-promoting port");
    let CompileError::LintDenied(diags) = err else { panic!("expected a lint refusal, got {err}") };
    // Findings are told apart by code: both are the `.to()` rule's.
    assert!(diags.0.iter().all(|d| Rule::from_diag_code(d.code) == Some(Rule::ToOnSpecializableArg)), "{diags}");
    assert_eq!(format!("{diags}\n"), I64_STRIDES_FINDINGS.replace("warning[", "error["));
    // By default the same compile goes ahead with the findings as warnings.
    let ok = CompileSession::new()
        .checked(
            &fixture(v),
            &consts,
            &args,
            SpecPolicy::Triton,
            &TraceOptions::default(),
            Some(&LintOptions::default()),
        )
        .expect("warnings do not stop compilation");
    assert_eq!(ok.lints.iter().map(|d| format!("{d}\n")).collect::<String>(), I64_STRIDES_FINDINGS);
}

#[test]
fn rule_codes_round_trip() {
    for r in Rule::ALL {
        assert_eq!(Rule::from_code(r.code()), Some(r));
    }
}

rtriton::kernel! {
    /// An i32 offset whose pointer nothing loads from: dead code, not a finding.
    pub fn dead_offset(x_ptr: Ptr<f32>, y_ptr: Ptr<f32>, stride: i32; const BLOCK: usize) {
        let _unused = x_ptr + program_id(0) * stride;
        let offs = arange(0, BLOCK).to::<i64>();
        store(y_ptr + offs, load(x_ptr + offs, None, None), None);
    }
}

#[test]
fn dead_code_is_not_a_finding() {
    assert_eq!(render(&dead_offset(), &[("BLOCK", 64)], &LintOptions::default()), "");
}

/// The lint on a fresh compile session (what `rtriton lint` runs).
fn lint(def: &KernelDef, constexprs: &[(&str, i64)], options: &LintOptions) -> Result<Vec<Diagnostic>, FrontEndError> {
    CompileSession::new().lint(def, constexprs, options)
}
