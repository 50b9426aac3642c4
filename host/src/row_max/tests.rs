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

// ---- the interpreter path: aliasing and the NaN rule ----

use rtriton::interp::Memory;
use rtriton_kernels::cpu_row_max;

/// `x` as a `rows x cols` row-major view of a new interpreter buffer (its address, view).
fn interp_x(mem: &mut Memory, x: &[f32], rows: usize, cols: usize) -> (u64, TensorArg<'static>) {
    let addr = mem.alloc_f32(x);
    (addr, TensorArg::from_raw(buffer(addr, x.len(), ScalarType::F32), &[rows, cols], &[cols as isize, 1]))
}

fn interp_y(mem: &mut Memory, rows: usize) -> (u64, TensorArg<'static>) {
    let addr = mem.alloc_f32(&vec![7.0; rows]);
    (addr, TensorArg::from_raw(buffer(addr, rows, ScalarType::F32), &[rows], &[1]))
}

/// The issue's case: `y` over the start of `x` (the same allocation). A plan that splits
/// rows filled `y` with `-inf` first and so destroyed part of `x` (row 0's maximum came out
/// 96 instead of 1000 on the interpreter); now the call is refused before any write, on
/// both paths, naming both arguments, and `x` is unchanged.
#[test]
fn an_output_overlapping_the_input_is_refused_before_any_write() {
    let (rows, cols) = (2, 1 << 18);
    let mut host: Vec<f32> = (0..rows * cols).map(|i| (i % 97) as f32).collect();
    host[5] = 1000.0;
    let mut mem = Memory::new();
    let (addr, x) = interp_x(&mut mem, &host, rows, cols);
    let p = plan(ScalarType::F32, rows, cols, rtriton_kernels::row_max_plan::NOMINAL_SM_COUNT).unwrap();
    assert!(p.fill.is_some(), "the plan splits rows, so y would be filled first");
    for at in [0usize, 4, cols + 3] {
        let y = TensorArg::from_raw(buffer(addr, rows * cols, ScalarType::F32), &[rows], &[1]).with_offset(at);
        for index in 0..p.configs.len() {
            let mut rm = entry().interp_config(index);
            let e = rm.run_interp(&mut mem, &x, &y).unwrap_err();
            assert!(e.has_code(Code::EntryPointInput), "{e}");
            let text = e.to_string();
            assert!(text.contains("the output y (bytes") && text.contains("overlaps the input x (bytes"), "{text}");
            assert_eq!(mem.read_f32(addr, rows * cols).unwrap(), host, "x was written (y at {at}, config {index})");
        }
        let e = entry().choose("H200", SMS, &x, &y, never).unwrap_err();
        assert!(e.has_code(Code::EntryPointInput), "{e}");
    }
    // A y in the same allocation past x's extent shares no byte: accepted, and right.
    let mut mem = Memory::new();
    let mut both = host.clone();
    both.extend([7.0; 2]);
    let addr = mem.alloc_f32(&both);
    let raw = buffer(addr, both.len(), ScalarType::F32);
    let x = TensorArg::from_raw(raw, &[rows, cols], &[cols as isize, 1]);
    let y = TensorArg::from_raw(raw, &[rows], &[1]).with_offset(rows * cols);
    entry().run_interp(&mut mem, &x, &y).unwrap();
    let got = mem.read_f32(addr + 4 * (rows * cols) as u64, rows).unwrap();
    assert_eq!(got, cpu_row_max(&host, 0, rows, cols, cols as isize, 1, false));
    assert_eq!(got[0], 1000.0);
}

fn bits(v: &[f32]) -> Vec<u32> {
    v.iter().map(|f| f.to_bits()).collect()
}

/// One answer for a row of only NaN, whatever the width (power of two or not) and the
/// configuration: `-inf` (`NanMode::Ignore`, the default, `cpu_row_max`'s rule), or the
/// canonical NaN under `NanMode::Propagate` (`cpu_row_max(.., true)`), which also turns
/// any row holding a NaN into NaN.
#[rstest::rstest]
fn the_nan_rule_is_one_answer_whatever_the_width(
    #[values(1, 2, 16, 50, 64, 1000, 1024)] cols: usize,
    #[values(NanMode::Ignore, NanMode::Propagate)] nan: NanMode,
) {
    let rows = 4;
    let mut host: Vec<f32> = (0..rows * cols).map(|i| (i % 13) as f32 - 6.0).collect();
    for (c, v) in host[..cols].iter_mut().enumerate() {
        *v = f32::from_bits(if c % 2 == 0 { 0x7FC0_1234 } else { 0xFF80_0001 }); // row 0: only NaN
    }
    host[2 * cols + cols / 2] = f32::NAN; // row 2: one NaN
    let want = cpu_row_max(&host, 0, rows, cols, cols as isize, 1, nan == NanMode::Propagate);
    let n_configs =
        plan(ScalarType::F32, rows, cols, rtriton_kernels::row_max_plan::NOMINAL_SM_COUNT).unwrap().configs.len();
    for index in 0..n_configs {
        let mut mem = Memory::new();
        let (_, x) = interp_x(&mut mem, &host, rows, cols);
        let (y_addr, y) = interp_y(&mut mem, rows);
        let c = entry().nan(nan).interp_config(index).run_interp(&mut mem, &x, &y).unwrap().unwrap();
        let got = mem.read_f32(y_addr, rows).unwrap();
        assert_eq!(bits(&got), bits(&want), "{cols} columns, {nan:?}, {c}");
    }
    assert_eq!(want[0].to_bits(), if nan == NanMode::Propagate { 0x7FFF_FFFF } else { f32::NEG_INFINITY.to_bits() });
}

/// The GPU path has no NaN-propagating kernel yet: it refuses `Propagate` with a clear
/// error instead of returning NaN-ignoring maxima.
#[test]
fn propagate_is_refused_on_the_gpu_path() {
    let (x, y) = contiguous(64, 1024);
    let e = entry().nan(NanMode::Propagate).choose("H200", SMS, &x, &y, never).unwrap_err();
    assert!(e.has_code(Code::EntryPointInput), "{e}");
    assert!(e.to_string().contains("NanMode::Propagate (torch.amax's rule) is not available on the GPU path"), "{e}");
}
