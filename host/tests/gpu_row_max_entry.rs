//! The row-max entry point on the GPU: every case of the shape matrix and the issue's
//! shape kinds scaled down (few wide rows that split, narrow rows, transposed, strided
//! and offset views, NaN, signed zeros split across programs), bit for bit against
//! `cpu_row_max`, with both specializations; a second call of the class reuses the choice
//! (and fills `y` only when that choice splits); the other dtypes against a plain-Rust
//! fold; tuning checks every configuration of a class against the first, so each call
//! that tunes also checks every split configuration on the device.
//!
//! Every test is `#[ignore = "needs a GPU"]`; run them with
//! `cargo test -p rtriton-host --test gpu_row_max_entry -- --include-ignored`.

use rstest::rstest;
use rtriton::spec::SpecPolicy;
use rtriton_host::driver::{DeviceBuffer, Gpu};
use rtriton_host::launch::{Runtime, TensorArg};
use rtriton_host::row_max::RowMax;
use rtriton_kernels::cases::{Fill, RowMaxCase, SHAPE_MATRIX, ViewKind};
use rtriton_kernels::cpu_row_max;
use rtriton_kernels::row_max_plan::ShapeClass;
use rtriton_runtime::autotune::{Decision, Settings};
use rtriton_testing::Element;
use rtriton_testing::fill::special;
use rtriton_testing::half::{bf16, f16};

fn runtime(cache: &std::path::Path) -> Runtime {
    let gpu = Gpu::open(0).unwrap_or_else(|e| panic!("this test needs a GPU (run it on the GPU machine): {e}"));
    Runtime::with_disk_cache(gpu, Some(rtriton_host::cache::DiskCache::new(cache)))
}

fn entry(policy: SpecPolicy) -> RowMax {
    RowMax::new().settings(Settings { print: true, ..Settings::in_memory() }).spec_policy(policy)
}

fn bits(v: &[f32]) -> Vec<u32> {
    v.iter().map(|x| x.to_bits()).collect()
}

/// Runs the entry point on `case` twice (the second reuses the first's choice) and checks
/// both results against `cpu_row_max`; returns the class and whether the first filled.
fn check_case(rt: &mut Runtime, rm: &mut RowMax, case: &RowMaxCase) -> ShapeClass {
    let l = case.layout();
    let host_x = case.input();
    let want =
        cpu_row_max(&host_x, l.offset, case.n_rows, case.n_cols, l.stride_row as isize, l.stride_col as isize, false);
    let x = DeviceBuffer::from_host(&rt.gpu, &host_x).unwrap();
    let mut y = DeviceBuffer::<f32>::zeros(&rt.gpu, case.n_rows).unwrap();
    let xv = TensorArg::new(&x, &[case.n_rows, case.n_cols], &[l.stride_row as isize, l.stride_col as isize])
        .with_offset(l.offset);
    let mut decisions = Vec::new();
    let mut class = None;
    for _ in 0..2 {
        y.fill_bytes(&rt.gpu, 0xff).unwrap();
        let launched = rm.run(rt, &xv, &TensorArg::contiguous(&y, &[case.n_rows])).unwrap().expect("rows to reduce");
        assert_eq!(bits(&y.to_host(&rt.gpu).unwrap()), bits(&want), "{case}: {launched:?}");
        if launched.decision == Decision::Memory {
            assert_eq!(launched.filled, launched.config.split > 1, "{case}: a known unsplit choice needs no fill");
        }
        decisions.push(launched.decision);
        class = Some(launched.class);
    }
    assert_eq!(decisions[1], Decision::Memory, "{case}");
    assert_eq!(bits(&x.to_host(&rt.gpu).unwrap()), bits(&host_x), "{case}: the input was written");
    class.unwrap()
}

/// Every case of the shape matrix, both specializations.
#[rstest]
#[ignore = "needs a GPU"]
fn the_shape_matrix_is_bit_exact(#[values(SpecPolicy::Triton, SpecPolicy::Off)] policy: SpecPolicy) {
    let cache = tempfile::tempdir().unwrap();
    let mut rt = runtime(cache.path());
    let mut rm = entry(policy);
    for case in SHAPE_MATRIX {
        check_case(&mut rt, &mut rm, case);
    }
}

/// The issue's shape kinds, scaled down to run in seconds; the few-rows ones split on the
/// device's SM count (each tuning checks every split configuration against the first).
#[rstest]
#[case::few_wide_rows(RowMaxCase { name: "few_wide_rows", n_rows: 64, n_cols: 1 << 18, view: ViewKind::Contiguous, fill: Fill::Random(31) }, ShapeClass::FewWideRows)]
#[case::one_wide_row(RowMaxCase { name: "one_wide_row", n_rows: 1, n_cols: 1 << 20, view: ViewKind::Contiguous, fill: Fill::SomeNaN(32) }, ShapeClass::FewWideRows)]
#[case::few_rows_nan(RowMaxCase { name: "few_rows_nan", n_rows: 30, n_cols: 100_000, view: ViewKind::Contiguous, fill: Fill::SomeNaN(33) }, ShapeClass::FewWideRows)]
#[case::few_rows_zeros(RowMaxCase { name: "few_rows_zeros", n_rows: 12, n_cols: 70_000, view: ViewKind::Contiguous, fill: Fill::SignedZeros }, ShapeClass::FewWideRows)]
#[case::few_rows_specials(RowMaxCase { name: "few_rows_specials", n_rows: 5, n_cols: 50_001, view: ViewKind::Offset(3), fill: Fill::Specials }, ShapeClass::FewWideRows)]
#[case::few_rows_transposed(RowMaxCase { name: "few_rows_transposed", n_rows: 64, n_cols: 65536, view: ViewKind::Transposed, fill: Fill::Random(34) }, ShapeClass::FewWideRows)]
#[case::few_rows_strided(RowMaxCase { name: "few_rows_strided", n_rows: 8, n_cols: 40_000, view: ViewKind::EveryOtherColumn, fill: Fill::AllNegative(35) }, ShapeClass::FewWideRows)]
#[case::narrow(RowMaxCase { name: "narrow", n_rows: 100_000, n_cols: 32, view: ViewKind::Contiguous, fill: Fill::Random(36) }, ShapeClass::NarrowRows)]
#[case::narrow_transposed(RowMaxCase { name: "narrow_transposed", n_rows: 100_000, n_cols: 20, view: ViewKind::Transposed, fill: Fill::SomeNaN(37) }, ShapeClass::NarrowRows)]
#[case::rows_transposed(RowMaxCase { name: "rows_transposed", n_rows: 2048, n_cols: 3000, view: ViewKind::Transposed, fill: Fill::Random(38) }, ShapeClass::Rows)]
#[case::rows_strided(RowMaxCase { name: "rows_strided", n_rows: 1024, n_cols: 4099, view: ViewKind::EveryOtherColumn, fill: Fill::Random(39) }, ShapeClass::Rows)]
#[ignore = "needs a GPU"]
fn the_issue_shapes_scaled_down_are_bit_exact(#[case] case: RowMaxCase, #[case] class: ShapeClass) {
    let cache = tempfile::tempdir().unwrap();
    let mut rt = runtime(cache.path());
    assert_eq!(check_case(&mut rt, &mut entry(SpecPolicy::Triton), &case), class);
}

/// `x`'s row maxima by the kernels' rule in `f64` (NaN ignored, `+0.0 > -0.0`, from the
/// identity), converted back exactly.
fn reference<T: Element>(x: &[T], rows: usize, cols: usize, identity: f64) -> Vec<u64> {
    let data = T::wrap(x.to_vec());
    (0..rows)
        .map(|r| {
            let m = (0..cols).fold(identity, |acc, c| {
                let v = data.f64_at(r * cols + c).unwrap();
                if v.is_nan() || (v == acc && v.is_sign_negative()) || v < acc { acc } else { v }
            });
            T::round_from_f64(m).unwrap().bits()
        })
        .collect()
}

fn check_dtype<T: Element>(identity: f64) {
    let cache = tempfile::tempdir().unwrap();
    let mut rt = runtime(cache.path());
    let mut rm = entry(SpecPolicy::Triton);
    for (rows, cols) in [(4096, 1000), (16, 100_000), (50_000, 8)] {
        let host = special::<T>(rows * cols);
        let x = DeviceBuffer::from_host(&rt.gpu, &host).unwrap();
        let y: DeviceBuffer<T> = rm.row_max(&mut rt, &TensorArg::contiguous(&x, &[rows, cols])).unwrap();
        let got: Vec<u64> = y.to_host(&rt.gpu).unwrap().into_iter().map(Element::bits).collect();
        assert_eq!(
            got,
            reference(&host, rows, cols, identity),
            "{} {rows}x{cols}",
            <T as rtriton_host::driver::Element>::SCALAR
        );
    }
}

#[test]
#[ignore = "needs a GPU"]
fn other_dtypes_are_bit_exact() {
    check_dtype::<f16>(f64::NEG_INFINITY);
    check_dtype::<bf16>(f64::NEG_INFINITY);
    check_dtype::<i32>(f64::from(i32::MIN));
    check_dtype::<u32>(0.0);
    check_dtype::<i8>(f64::from(i8::MIN));
}

/// No rows: nothing to launch (`None`). Rows of no columns: every maximum is the identity,
/// `-inf`, as `cpu_row_max` folds nothing from it.
#[test]
#[ignore = "needs a GPU"]
fn empty_inputs_launch_nothing_or_give_the_identity() {
    let cache = tempfile::tempdir().unwrap();
    let mut rt = runtime(cache.path());
    let mut rm = entry(SpecPolicy::Triton);
    let x = DeviceBuffer::<f32>::zeros(&rt.gpu, 8).unwrap();
    let y = DeviceBuffer::<f32>::zeros(&rt.gpu, 4).unwrap();
    let none = rm.run(&mut rt, &TensorArg::new(&x, &[0, 8], &[8, 1]), &TensorArg::contiguous(&y, &[0])).unwrap();
    assert_eq!(none, None);
    let y: DeviceBuffer<f32> = rm.row_max(&mut rt, &TensorArg::new(&x, &[4, 0], &[0, 1])).unwrap();
    assert_eq!(bits(&y.to_host(&rt.gpu).unwrap()), [0xFF80_0000; 4]);
    assert_eq!(cpu_row_max(&[], 0, 4, 0, 0, 1, false), [f32::NEG_INFINITY; 4]);
}
