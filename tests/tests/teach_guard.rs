//! The launch-time overflow guard: the i32-indexing variant is refused on a tensor past
//! 2^31 elements (a fake extent: nothing that large is allocated), the i64-promoting
//! variants are accepted on the same extent, and everything is accepted on small tensors.
//! The kernels are the fixture copies in `tests/src/fixtures/`, whose lines the errors name.

use rstest::rstest;
use rtriton::guard::{TensorExtent, check_offsets};
use rtriton::interp::{Memory, run};
use rtriton::ir::Kernel;
use rtriton::session::CompileSession;
use rtriton::spec::{ArgValue, SpecPolicy};
use rtriton::trace::TraceOptions;
use rtriton_kernels::cases::{HUGE_CASE, SHAPE_MATRIX};
use rtriton_kernels::{RowMaxVariant, cpu_row_max};
use rtriton_tests::fixtures::row_max_family;

/// The kernel as a launch on `HUGE_CASE` (65537 x 32768, contiguous) would trace it.
fn traced_for_huge(variant: RowMaxVariant) -> Kernel {
    let c = HUGE_CASE;
    let l = c.layout();
    let args = [
        ArgValue::Ptr(0x7f00_0000_0000),
        ArgValue::Ptr(0x7e00_0000_0000),
        ArgValue::Int(c.n_rows as i64),
        ArgValue::Int(c.n_cols as i64),
        ArgValue::Int(l.stride_row as i64),
        ArgValue::Int(l.stride_col as i64),
    ];
    let consts = variant.constexprs_for(c.n_rows, c.n_cols);
    CompileSession::new()
        .front_end_for_args(&row_max_family::def(variant), &consts, &args, SpecPolicy::Triton, &TraceOptions::default())
        .expect("traces")
        .kernel()
        .clone()
}

fn huge_extents() -> Vec<TensorExtent> {
    let c = HUGE_CASE;
    let l = c.layout();
    vec![
        TensorExtent::of_view(
            "x_ptr",
            l.offset as u64,
            &[c.n_rows as u64, c.n_cols as u64],
            &[l.stride_row as i64, l.stride_col as i64],
        ),
        TensorExtent::of_view("y_ptr", 0, &[c.n_rows as u64], &[1]),
    ]
}

#[test]
fn extent_of_a_view() {
    let e = TensorExtent::of_view("x_ptr", 3, &[40, 130], &[130, 1]);
    assert_eq!(e, TensorExtent { param: "x_ptr".into(), numel: 5200, max_offset_elems: 3 + 39 * 130 + 129 });
    let huge = &huge_extents()[0];
    assert_eq!((huge.numel, huge.max_offset_elems), (2_147_516_416, 2_147_516_415));
}

#[test]
fn refuses_the_i32_variant_past_2_pow_31() {
    let err = check_offsets(&traced_for_huge(RowMaxVariant::RowMaxI32), &huge_extents()).expect_err("refused");
    assert_eq!(
        err.to_string(),
        "\
error[RT0601]: kernel `row_max_i32` at tests/src/fixtures/row_max_family.rs:111: launch refused: tensor `x_ptr` has 2147516416 elements and a maximum element offset of 2147516415, past i32::MAX = 2147483647, but program_id(0) times `stride_row` is computed in i32 here and would wrap
  help: promote the index tensors to i64 before the index math (`program_id(0).to::<i64>()`, `offs.to::<i64>()`), or launch an i64-indexing variant"
    );
}

#[rstest]
#[case::row_max(RowMaxVariant::RowMax)]
#[case::row_max_loop(RowMaxVariant::RowMaxLoop)]
#[case::row_max_2d(RowMaxVariant::RowMax2d)]
#[case::i64_strides(RowMaxVariant::I64Strides)]
#[case::i64_index(RowMaxVariant::I64Index)]
fn accepts_i64_variants_on_the_same_extent(#[case] variant: RowMaxVariant) {
    assert_eq!(check_offsets(&traced_for_huge(variant), &huge_extents()), Ok(()));
}

#[rstest]
#[case::row_max_i32(RowMaxVariant::RowMaxI32)]
#[case::row_max(RowMaxVariant::RowMax)]
fn accepts_everything_below_the_limit(#[case] variant: RowMaxVariant) {
    let k = traced_for_huge(variant);
    let at_limit = TensorExtent { param: "x_ptr".into(), numel: 1 << 31, max_offset_elems: i32::MAX as u64 };
    assert_eq!(check_offsets(&k, &[at_limit]), Ok(()));
}

#[test]
fn an_extent_for_no_pointer_parameter_is_an_error() {
    let k = traced_for_huge(RowMaxVariant::RowMax);
    let bad = TensorExtent { param: "n_rows".into(), numel: 1, max_offset_elems: 0 };
    assert_eq!(
        check_offsets(&k, &[bad]).expect_err("not a pointer").to_string(),
        "\
error[RT0601]: kernel `row_max` at tests/src/fixtures/row_max_family.rs:13: the overflow guard got an extent for `n_rows`, which is not a pointer parameter
  help: pass extents for the pointer parameters: x_ptr, y_ptr"
    );
}

/// The guard on the interpreter path: a small real input (37 x 100), with the guard told
/// that `x` extends past 2^31 elements (a fake extent: nothing that large is allocated).
/// The i32 variant is refused before it runs; the i64 variants are accepted and their
/// results on the real input are correct. With the true extent every variant runs.
#[rstest]
#[case::row_max_i32(RowMaxVariant::RowMaxI32)]
#[case::row_max(RowMaxVariant::RowMax)]
#[case::row_max_loop(RowMaxVariant::RowMaxLoop)]
#[case::row_max_2d(RowMaxVariant::RowMax2d)]
#[case::i64_strides(RowMaxVariant::I64Strides)]
#[case::i64_index(RowMaxVariant::I64Index)]
fn guard_before_the_interpreter(#[case] variant: RowMaxVariant) {
    let c = *SHAPE_MATRIX.iter().find(|c| c.name == "non_pow2").expect("case");
    let l = c.layout();
    let mut mem = Memory::new();
    let input = c.input();
    let (x, y) = (mem.alloc_f32(&input), mem.alloc(4 * c.n_rows));
    let args = [
        ArgValue::Ptr(x),
        ArgValue::Ptr(y),
        ArgValue::Int(c.n_rows as i64),
        ArgValue::Int(c.n_cols as i64),
        ArgValue::Int(l.stride_row as i64),
        ArgValue::Int(l.stride_col as i64),
    ];
    let consts = variant.constexprs_for(c.n_rows, c.n_cols);
    let verified = CompileSession::new()
        .front_end_for_args(&row_max_family::def(variant), &consts, &args, SpecPolicy::Triton, &TraceOptions::default())
        .expect("traces");
    let kernel = verified.kernel();
    let fake = TensorExtent { param: "x_ptr".into(), numel: 3 << 30, max_offset_elems: (3 << 30) - 1 };
    let real = TensorExtent::of_view("x_ptr", 0, &[c.n_rows as u64, c.n_cols as u64], &[100, 1]);
    let verdict = check_offsets(kernel, std::slice::from_ref(&fake));
    if variant.promotes_to_i64() {
        assert_eq!(verdict, Ok(()));
    } else {
        assert_eq!(
            verdict.expect_err("refused").to_string(),
            "\
error[RT0601]: kernel `row_max_i32` at tests/src/fixtures/row_max_family.rs:111: launch refused: tensor `x_ptr` has 3221225472 elements and a maximum element offset of 3221225471, past i32::MAX = 2147483647, but program_id(0) times `stride_row` is computed in i32 here and would wrap
  help: promote the index tensors to i64 before the index math (`program_id(0).to::<i64>()`, `offs.to::<i64>()`), or launch an i64-indexing variant"
        );
    }
    assert_eq!(check_offsets(kernel, &[real]), Ok(()));
    let grid = variant.grid(c.n_rows, &consts) as u32;
    run(&verified, [grid, 1, 1], &args, &mut mem).expect("runs");
    let got = mem.read_f32(y, c.n_rows).expect("allocated");
    assert_eq!(got, cpu_row_max(&input, 0, c.n_rows, c.n_cols, 100, 1, false));
}

#[rstest]
#[case::row_max_i32(RowMaxVariant::RowMaxI32, true, true)]
#[case::row_max(RowMaxVariant::RowMax, false, false)]
#[case::i64_strides(RowMaxVariant::I64Strides, false, true)]
fn the_cacheable_summary_gives_the_same_verdict(
    #[case] variant: RowMaxVariant,
    #[case] x_narrow: bool,
    #[case] y_narrow: bool,
) {
    let k = traced_for_huge(variant);
    let summary = rtriton::guard::OffsetWidths::of(&k);
    assert_eq!((summary.narrow("x_ptr"), summary.narrow("y_ptr")), (x_narrow, y_narrow));
    assert_eq!(summary.check(&huge_extents()), check_offsets(&k, &huge_extents()));
}
