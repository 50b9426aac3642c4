//! The entry point's choices without a GPU: `RowMax::choose` with a fake tuning (as the
//! autotuner's own tests do) shows which shapes tune, which reuse a choice (same class)
//! and which candidates each class offers; bad inputs are located `RT0760` errors.

use std::cell::Cell;

use rtriton::diag::{Code, HasDiagnostics};
use rtriton::ir::ScalarType;
use rtriton_kernels::row_max_plan::ShapeClass;
use rtriton_runtime::autotune::{Settings, Trial};
use rtriton_runtime::timing::Summary;

use super::*;
use crate::driver::RawBuffer;

/// An H200's SM count.
const SMS: usize = 132;

fn buffer(addr: u64, len: usize, dtype: ScalarType) -> RawBuffer {
    RawBuffer::unowned(addr, len, dtype)
}

/// `rows x cols` of `dtype` with `strides`, and its output.
fn views(rows: usize, cols: usize, strides: [isize; 2], dtype: ScalarType) -> (TensorArg<'static>, TensorArg<'static>) {
    let x = TensorArg::from_raw(buffer(0x7f00_0000_0000, rows * cols, dtype), &[rows, cols], &strides);
    let y = TensorArg::from_raw(buffer(0x7f10_0000_0000, rows, dtype), &[rows], &[1]);
    (x, y)
}

fn contiguous(rows: usize, cols: usize) -> (TensorArg<'static>, TensorArg<'static>) {
    views(rows, cols, [cols as isize, 1], ScalarType::F32)
}

/// A tuning that picks the first configuration for which `pick` holds, counting tunings;
/// it records the candidates it was offered.
fn fake<'a>(
    pick: impl Fn(&Config) -> bool + 'a,
    count: &'a Cell<u32>,
    offered: &'a Cell<usize>,
) -> impl FnOnce(Site<'_>, &[Config], &Settings) -> Result<TuneOutcome, HostError> + 'a {
    move |_, configs, _| {
        count.set(count.get() + 1);
        offered.set(configs.len());
        let best = configs.iter().position(pick).expect("a candidate to pick");
        let s = |m: f64| Summary { samples: 10, median_ms: m, p10_ms: m, p90_ms: m, min_ms: m, max_ms: m };
        let trials =
            configs.iter().enumerate().map(|(i, c)| (c.clone(), Trial::Timed(s(if i == best { 0.1 } else { 1.0 }))));
        Ok(TuneOutcome { best, trials: trials.collect(), seconds: 0.1 })
    }
}

fn never(_: Site<'_>, _: &[Config], _: &Settings) -> Result<TuneOutcome, HostError> {
    panic!("this call must not tune")
}

fn split(c: &Config) -> i64 {
    c.get("SPLIT").unwrap_or(1)
}

fn entry() -> RowMax {
    RowMax::new().settings(Settings::in_memory())
}

/// Few wide rows offer split configurations, and when timing says one is fastest the
/// entry point keeps it for the whole class: 48 x 4000000 reuses 64 x 2^22's choice.
#[test]
fn few_wide_rows_can_choose_a_split_and_the_class_reuses_it() {
    let mut rm = entry();
    let (count, offered) = (Cell::new(0), Cell::new(0));
    let (x, y) = contiguous(64, 1 << 22);
    let (plan, c) = rm.choose("H200", SMS, &x, &y, fake(|c| split(c) == 17, &count, &offered)).unwrap();
    assert_eq!((plan.class, c.decision, split(&c.config)), (ShapeClass::FewWideRows, Decision::Tuned, 17));
    assert_eq!(offered.get(), plan.configs.len());
    assert!(plan.configs.iter().filter(|c| c.split > 1).count() >= 8, "{:?}", plan.configs);
    assert!(plan.configs.iter().any(|c| c.split == 1), "unsplit candidates compete too");
    // Other counts in the same classes, divisible by 16 as 64 and 2^22 are (one
    // specialization).
    let (x2, y2) = contiguous(48, 4_000_000);
    let (_, again) = rm.choose("H200", SMS, &x2, &y2, never).unwrap();
    assert_eq!((again.decision, &again.config), (Decision::Memory, &c.config));
    assert_eq!(count.get(), 1);
}

/// The unsplit candidates compete: a tuning that finds SPLIT = 1 fastest is kept.
#[test]
fn few_wide_rows_keep_an_unsplit_winner() {
    let mut rm = entry();
    let (x, y) = contiguous(2, 1 << 20);
    let (_, c) = rm.choose("H200", SMS, &x, &y, fake(|c| split(c) == 1, &Cell::new(0), &Cell::new(0))).unwrap();
    assert_eq!(split(&c.config), 1);
}

/// Each class offers its own candidates; a shape of another class tunes again.
#[rstest::rstest]
#[case::narrow(1048576, 32, [32, 1], ShapeClass::NarrowRows, "BLOCK_N", 32)]
// Rows of at most 4096 never split (longer ones split their tall tiles: row_max_plan).
#[case::rows(8192, 4096, [4096, 1], ShapeClass::Rows, "SPLIT", 1)]
#[case::transposed(16384, 4096, [1, 16384], ShapeClass::Rows, "SPLIT", 1)]
#[case::one_column(1000, 1, [1, 1], ShapeClass::NarrowRows, "BLOCK_N", 1)]
fn each_class_offers_its_candidates(
    #[case] rows: usize,
    #[case] cols: usize,
    #[case] strides: [isize; 2],
    #[case] class: ShapeClass,
    #[case] every_config_has: &str,
    #[case] value: i64,
) {
    let mut rm = entry();
    let (x, y) = views(rows, cols, strides, ScalarType::F32);
    let offered = Cell::new(0);
    let (plan, c) = rm.choose("H200", SMS, &x, &y, fake(|_| true, &Cell::new(0), &offered)).unwrap();
    assert_eq!((plan.class, c.decision, plan.fill), (class, Decision::Tuned, None));
    assert_eq!(offered.get(), plan.configs.len());
    for k in &plan.configs {
        assert_eq!(to_config(k).get(every_config_has), Some(value), "{k}");
    }
}

/// The key has the view's strides (by class) and the dtype: a transposed view of the same
/// shape and another dtype tune on their own; the contiguous f32 shape reuses its choice.
#[test]
fn views_and_dtypes_are_keyed_apart() {
    let mut rm = entry();
    let count = Cell::new(0);
    let mut tune = |rows, cols, strides, dtype| {
        let (x, y) = views(rows, cols, strides, dtype);
        rm.choose("H200", SMS, &x, &y, fake(|_| true, &count, &Cell::new(0))).unwrap().1.decision
    };
    assert_eq!(tune(4096, 1024, [1024, 1], ScalarType::F32), Decision::Tuned);
    assert_eq!(tune(4096, 1024, [1, 4096], ScalarType::F32), Decision::Tuned);
    assert_eq!(tune(4096, 1024, [1024, 1], ScalarType::I32), Decision::Tuned);
    assert_eq!(tune(4096, 1024, [1024, 1], ScalarType::F16), Decision::Tuned);
    assert_eq!(tune(3008, 1024, [1024, 1], ScalarType::F32), Decision::Memory);
    assert_eq!(count.get(), 4);
}

/// Each bad input is a located `RT0760` error at the call, saying what to pass.
#[rstest::rstest]
#[case::three_dims(vec![4, 4, 4], vec![16, 4, 1], ScalarType::F32, 4, ScalarType::F32, "row_max reduces the rows of a 2-D view; x has shape [4, 4, 4] and strides [16, 4, 1]")]
#[case::short_output(vec![4, 8], vec![8, 1], ScalarType::F32, 3, ScalarType::F32, "y must hold one element per row of x (4) contiguously; it has shape [3] and strides [1]")]
#[case::other_dtype_output(vec![4, 8], vec![8, 1], ScalarType::F32, 4, ScalarType::I32, "y holds i32 elements, x holds f32: the maxima are of x's dtype")]
#[case::f64(vec![4, 8], vec![8, 1], ScalarType::F64, 4, ScalarType::F64, "row_max has no kernel for f64 elements: the PTX back end reduces 32-bit payloads (f32, i32, u32) and the types that compute in them (f16, bf16, i8, u8, i16); convert the input first")]
fn a_bad_input_is_a_located_error(
    #[case] shape: Vec<usize>,
    #[case] strides: Vec<isize>,
    #[case] x_dtype: ScalarType,
    #[case] y_len: usize,
    #[case] y_dtype: ScalarType,
    #[case] message: &str,
) {
    let x = TensorArg::from_raw(buffer(0x1000, 1 << 10, x_dtype), &shape, &strides);
    let y = TensorArg::from_raw(buffer(0x10_0000, y_len, y_dtype), &[y_len], &[1]);
    let line = line!() + 1;
    let e = entry().choose("H200", SMS, &x, &y, never).unwrap_err();
    assert!(e.has_code(Code::EntryPointInput), "{e}");
    let d = &e.diagnostics()[0];
    assert_eq!((d.kernel.as_str(), d.loc.unwrap().file, d.loc.unwrap().line), (ENTRY_KERNEL, file!(), line));
    assert_eq!(d.message, message);
    assert!(!d.help.is_empty());
}

/// Every configuration any plan offers compiles for the shapes of the issue's table on
/// their views (a refused one would only be skipped while tuning, but every declared
/// configuration should run), with ptxas-free PTX checks: the entry and the CTA size.
#[test]
fn every_planned_configuration_compiles_on_the_issue_shapes() {
    use rtriton::spec::{ArgValue, SpecKey};

    use crate::launch::compile_kernel;

    let mut session = rtriton::session::CompileSession::new();
    let shapes: [(usize, usize, [i64; 2]); 8] = [
        (32768, 32768, [32768, 1]),
        (65537, 32768, [32768, 1]),
        (1048576, 32, [32, 1]),
        (64, 4194304, [4194304, 1]),
        (8192, 16384, [1, 8192]),
        (8192, 8192, [16384, 2]),
        (4096, 1000, [1000, 1]),
        (3, 7, [7, 1]),
    ];
    let mut failures = Vec::new();
    for (rows, cols, strides) in shapes {
        let plan = plan(ScalarType::F32, rows, cols, SMS).unwrap();
        for c in &plan.configs {
            let kernel = to_config(c).apply(&JitKernel::new(plan.kernel.clone()));
            let args = [
                ArgValue::Ptr(0x7f00_0000_0000),
                ArgValue::Ptr(0x7f10_0000_0000),
                ArgValue::Int(rows as i64),
                ArgValue::Int(cols as i64),
                ArgValue::Int(strides[0]),
                ArgValue::Int(strides[1]),
            ];
            let spec = SpecKey::from_args(kernel.def.name, &kernel.def.params, &args, SpecPolicy::Triton).unwrap();
            match compile_kernel(&mut session, &kernel, &spec) {
                Ok(ptx) => assert_eq!(ptx.threads_per_cta, c.num_warps * 32),
                Err(e) => failures.push(format!("{rows}x{cols} {strides:?} {c}: {e}")),
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
