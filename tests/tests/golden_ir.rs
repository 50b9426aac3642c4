//! Golden IR text of every row-max variant, with specialization on (aligned pointers,
//! `stride_col` = 1) and off, traced from the fixture copies in `tests/src/fixtures/` (so
//! the snapshots name that file, not `row_max.rs`). The snapshots live in
//! `tests/tests/snapshots/`; review a change in its diff, then regenerate with
//! `INSTA_UPDATE=always cargo test -p rtriton-tests --test golden_ir` (in CI, where `CI` is
//! set, a mismatch fails).

use rstest::rstest;
use rstest_reuse::apply;
use rtriton::ir::Kernel;
use rtriton::passes::dce;
use rtriton::session::CompileSession;
use rtriton::spec::{ArgValue, SpecKey, SpecPolicy};
use rtriton::trace::{TraceOptions, trace};
use rtriton::verify::check;
use rtriton_kernels::RowMaxVariant;
use rtriton_tests::fixtures::row_max_family;
use rtriton_tests::tables::every_variant;

/// Launch arguments whose specialization folds `stride_col` and hints both pointers:
/// `x_ptr, y_ptr, n_rows, n_cols, stride_row, stride_col` (37 x 100, row-major).
const ARGS: [ArgValue; 6] = [
    ArgValue::Ptr(0x1_0000_0000),
    ArgValue::Ptr(0x1_0001_0000),
    ArgValue::Int(37),
    ArgValue::Int(100),
    ArgValue::Int(100),
    ArgValue::Int(1),
];

fn spec(variant: RowMaxVariant, on: bool) -> SpecKey {
    let def = row_max_family::def(variant);
    let policy = if on { SpecPolicy::Triton } else { SpecPolicy::Off };
    SpecKey::from_args(def.name, &def.params, &ARGS, policy).expect("the arguments fit every variant")
}

fn traced(variant: RowMaxVariant, on: bool) -> Kernel {
    let constexprs = variant.default_constexprs();
    CompileSession::new()
        .front_end(&row_max_family::def(variant), &constexprs, &spec(variant, on), &TraceOptions::default())
        .unwrap_or_else(|e| panic!("{} does not trace: {e}", variant.name()))
        .kernel()
        .clone()
}

#[apply(every_variant)]
fn ir_text_is_stable(variant: RowMaxVariant, #[values(true, false)] spec_on: bool) {
    let name = format!("{}__spec_{}", variant.name(), if spec_on { "on" } else { "off" });
    insta::assert_snapshot!(name, traced(variant, spec_on).to_string());
}

/// With `stride_col` folded to 1, nothing reads the `stride_col` parameter (the multiply
/// by it is folded away, so the column offsets stay contiguous); without specialization
/// every variant reads it.
#[apply(every_variant)]
fn folding_of_stride_col_is_visible(variant: RowMaxVariant) {
    let on = traced(variant, true).to_string();
    let off = traced(variant, false).to_string();
    assert!(on.contains("stride_col: i32 [=1]"), "{on}");
    assert!(!on.contains("param 5 (stride_col)"), "{on}");
    assert!(!on.contains("constant 1 :"), "the folded constant 1 is dead and removed:\n{on}");
    assert!(off.contains("param 5 (stride_col)"), "{off}");
    assert!(on.lines().count() < off.lines().count(), "{on}\n{off}");
}

/// DCE keeps the kernel valid, removes the dead constant the folded argument was bound
/// to, and is idempotent.
#[apply(every_variant)]
fn dce_keeps_kernels_valid(variant: RowMaxVariant, #[values(true, false)] spec_on: bool) {
    let constexprs = variant.default_constexprs();
    let mut kernel =
        trace(&row_max_family::def(variant), &constexprs, &spec(variant, spec_on), &TraceOptions::default()).unwrap();
    check(&kernel).unwrap();
    let before = kernel.walk().len();
    let removed = dce::run(&mut kernel);
    check(&kernel).unwrap_or_else(|e| panic!("DCE broke {}: {e}\n{kernel}", variant.name()));
    assert_eq!(kernel.walk().len(), before - removed);
    assert_eq!(kernel.ops.len(), kernel.walk().len(), "the arena holds only reachable ops");
    if spec_on {
        assert!(removed >= 1, "the folded stride_col constant is dead:\n{kernel}");
    }
    let once = kernel.clone();
    assert_eq!(dce::run(&mut kernel), 0);
    assert_eq!(kernel, once);
}
