//! The launch-time overflow guard: the i32-indexing variant is refused on a tensor past
//! 2^31 elements (a fake extent: nothing that large is allocated), the i64-promoting
//! variants are accepted on the same extent, and everything is accepted on small tensors.

use rstest::rstest;
use rtriton::guard::{TensorExtent, check_offsets};
use rtriton::ir::Kernel;
use rtriton::pipeline::specialize_and_trace;
use rtriton::spec::{ArgValue, SpecPolicy};
use rtriton::trace::TraceOptions;
use rtriton_kernels::RowMaxVariant;
use rtriton_kernels::cases::HUGE_CASE;

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
    specialize_and_trace(&variant.def(), &consts, &args, SpecPolicy::Triton, &TraceOptions::default())
        .expect("traces")
        .0
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
error: kernel `row_max_i32` at kernels-gpu/src/row_max.rs:111: launch refused: tensor `x_ptr` has 2147516416 elements and a maximum element offset of 2147516415, past i32::MAX = 2147483647, but program_id(0) times `stride_row` is computed in i32 here and would wrap
  help: promote the index tensors to i64 before the index math (`program_id(0).to::<i64>()`, `offs.to::<i64>()`), or launch an i64-indexing variant"
    );
}

#[rstest]
#[case::row_max(RowMaxVariant::RowMax)]
#[case::row_max_loop(RowMaxVariant::RowMaxLoop)]
#[case::row_max_2d(RowMaxVariant::RowMax2d)]
#[case::skill_port(RowMaxVariant::SkillPort)]
#[case::fixed_port(RowMaxVariant::FixedPort)]
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
error: kernel `row_max` at kernels-gpu/src/row_max.rs:13: the overflow guard got an extent for `n_rows`, which is not a pointer parameter
  help: pass extents for the pointer parameters: x_ptr, y_ptr"
    );
}
