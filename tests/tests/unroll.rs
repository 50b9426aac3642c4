//! Unrolled loops (`for_range_unrolled`, Triton's `loop_unroll_factor`; the back end's
//! `lower/unroll.rs`): several independent loads in flight per thread, and the same
//! results as the plain loop.
//!
//! - An order-sensitive fold of the induction variable (`h = 31 h + iv + lane`, wrapping)
//!   over ranges whose trip counts leave every remainder, empty and reversed ranges, and
//!   bounds at the ends of `i32` and `i64`, with unroll factors 1 to 16: interpreter,
//!   simulator (bit for bit) and GPU (ignored here), against a plain-Rust loop.
//! - A row max whose column loop is unrolled, through the harness on the row-max cases.
//! - The lowered form: the main loop's body holds `UNROLL` copies of the body's vector
//!   loads and nothing that orders them (no store, barrier or shuffle), the remainder loop
//!   one copy; one access decision per source load; ptxas for sm_86 and sm_90 without
//!   spills; a plain loop's PTX is unchanged by `unroll 1`.
//! - A non-positive runtime step stops an unrolled loop as it stops a plain one, and an
//!   unroll factor out of range is a located trace error.

mod ptx_common;

use rtriton::backend::ptx::lir::{Inst, Operand, Program};
use rtriton::backend::ptx::{AccessKind, Arch};
use rtriton::diag::{Code, HasDiagnostics};
use rtriton::kernel;
use rtriton::prelude::*;
use rtriton::sim::Check;
use rtriton::spec::SpecPolicy;
use rtriton::trace::trace_unspecialized;
use rtriton_kernels::RowMaxVariant;
use rtriton_kernels::cases::{RowMaxCase, SHAPE_MATRIX};
use rtriton_testing::run::{run_interpreter, run_simulator};
use rtriton_testing::{Backend, Case, RunError, Suite, View};
use rtriton_tests::{contiguous_args, harness_case, lower_def, reference};

const LANES: usize = 32;

kernel! {
    /// y[lane] = the fold `h = 31 h + iv + lane` (wrapping) over `iv` in `lower..upper` by
    /// `step` (i64 bounds), the loop unrolled `UNROLL` times: any change in the number or
    /// order of the iterations changes the result.
    fn fold_i64(y_ptr: Ptr<i64>, lower: i64, upper: i64, step: i64; const UNROLL: usize) {
        let lanes = arange(0, LANES).to::<i64>();
        let h = for_range_unrolled(lower, upper, step, UNROLL, zeros::<i64>(&[LANES]), |iv, h| h * 31 + iv + lanes);
        store(y_ptr + arange(0, LANES), h, None);
    }
}

kernel! {
    /// [`fold_i64`] with `i32` bounds (the induction variable and the fold in `i32`).
    fn fold_i32(y_ptr: Ptr<i32>, lower: i32, upper: i32, step: i32; const UNROLL: usize) {
        let lanes = arange(0, LANES);
        let h = for_range_unrolled(lower, upper, step, UNROLL, zeros::<i32>(&[LANES]), |iv, h| h * 31 + iv + lanes);
        store(y_ptr + arange(0, LANES), h, None);
    }
}

kernel! {
    /// `row_max_loop` with its column loop unrolled `UNROLL` times.
    fn row_max_unrolled(x_ptr: Ptr<f32>, y_ptr: Ptr<f32>, n_rows: i32, n_cols: i32, stride_row: i32, stride_col: i32;
                        const BLOCK: usize, const UNROLL: usize) {
        let row = program_id(0).to::<i64>();
        let row_ptr = x_ptr + row * stride_row;
        let cols = arange(0, BLOCK);
        let acc = full::<f32>(&[BLOCK], f32::NEG_INFINITY);
        let acc = for_range_unrolled(0, n_cols, BLOCK as i32, UNROLL, acc, |start, acc| {
            let c = start + cols;
            let x = load(row_ptr + c.to::<i64>() * stride_col, Some(c.lt(n_cols)), Some(f32::NEG_INFINITY));
            maximum(acc, x)
        });
        store(y_ptr + row, max(acc, 0), None);
    }
}

/// `(name, lower, upper, step, unroll)`: the ranges of the fold suites.
type Range = (&'static str, i64, i64, i64, i64);

/// Trip counts leaving each remainder, empty and reversed ranges, a non-power-of-two
/// factor, factors above the trip count, and bounds at the ends of the type (the
/// induction value after the last trip would wrap; the trip count needs 64 unsigned bits).
const I64_RANGES: &[Range] = &[
    ("ten_by_4", 0, 10, 1, 4),
    ("twelve_step_3_by_4", 0, 12, 3, 4),
    ("exact_multiple_by_2", -8, 8, 2, 2),
    ("odd_factor_3", -7, 20, 2, 3),
    ("empty", 5, 5, 1, 4),
    ("reversed", 5, 4, 1, 4),
    ("fewer_trips_than_copies", i64::MIN, i64::MIN + 5, 1, 16),
    ("whole_i64_range", i64::MIN, i64::MAX, 1 << 61, 4),
    ("at_i64_max", i64::MAX - 10, i64::MAX, 3, 2),
    ("one_trip_huge_step", 0, i64::MAX, i64::MAX, 2),
    ("not_unrolled", -3, 30, 4, 1),
    // Plain loops (one copy) with a runtime step at the ends of the type: the PTX writer's
    // own loop test, not the unrolled trip count, decides when they stop.
    ("plain_whole_i64_range", i64::MIN, i64::MAX, 1 << 61, 1),
    ("plain_at_i64_max", i64::MAX - 10, i64::MAX, 3, 1),
    ("plain_one_trip_huge_step", 0, i64::MAX, i64::MAX, 1),
];

const I32_RANGES: &[Range] = &[
    ("ten_by_4", 0, 10, 1, 4),
    ("odd_factor_5", -100, 100, 7, 5),
    ("whole_i32_range", i32::MIN as i64, i32::MAX as i64, 1 << 29, 4),
    ("at_i32_max", i32::MAX as i64 - 7, i32::MAX as i64, 2, 4),
    ("sixteen", 0, 1000, 3, 16),
    ("plain_whole_i32_range", i32::MIN as i64, i32::MAX as i64, 1 << 29, 1),
    ("plain_at_i32_max", i32::MAX as i64 - 7, i32::MAX as i64, 3, 1),
    ("plain_one_trip_huge_step", 0, i32::MAX as i64, i32::MAX as i64, 1),
    ("plain_from_i32_min", i32::MIN as i64, i32::MIN as i64 + 10, 4, 1),
];

/// The fold in plain Rust, lane by lane, in the type's wrapping arithmetic.
fn fold(lower: i64, upper: i64, step: i64, bits: u32) -> Vec<i64> {
    let wrap = |x: i128| -> i64 { if bits == 32 { x as i32 as i64 } else { x as i64 } };
    (0..LANES as i64)
        .map(|lane| {
            let mut h: i64 = 0;
            let mut iv = i128::from(lower);
            while iv < i128::from(upper) {
                h = wrap(i128::from(h) * 31 + iv + i128::from(lane));
                iv += i128::from(step);
            }
            h
        })
        .collect()
}

fn fold_case((name, lower, upper, step, unroll): Range, bits: u32) -> Case {
    let y = if bits == 32 {
        Case::new(name).output("y", vec![0i32; LANES], View::contiguous(&[LANES]))
    } else {
        Case::new(name).output("y", vec![0i64; LANES], View::contiguous(&[LANES]))
    };
    y.int(lower).int(upper).int(step).constexpr("UNROLL", unroll).num_warps(1)
}

fn fold_suite(def: rtriton::trace::KernelDef, ranges: &[Range], bits: u32) -> Suite {
    Suite::new(def).cases(ranges.iter().map(|r| fold_case(*r, bits))).reference(move |c| {
        let arg = |i: usize| match &c.args[i] {
            rtriton_testing::CaseArg::Int(v) => *v,
            other => panic!("argument {i} is an int, not {other:?}"),
        };
        let want = fold(arg(1), arg(2), arg(3), bits);
        for (lane, v) in want.into_iter().enumerate() {
            if bits == 32 {
                c.tensor_mut("y").set_i32(&[lane], v as i32);
            } else {
                c.tensor_mut("y").set_i64(&[lane], v);
            }
        }
    })
}

fn fold_i64_suite() -> Suite {
    fold_suite(fold_i64(), I64_RANGES, 64)
}

fn fold_i32_suite() -> Suite {
    fold_suite(fold_i32(), I32_RANGES, 32)
}

mod i64_bounds {
    use super::*;
    rtriton_testing::backend_tests!(fold_i64_suite => [
        ten_by_4, twelve_step_3_by_4, exact_multiple_by_2, odd_factor_3, empty, reversed, fewer_trips_than_copies,
        whole_i64_range, at_i64_max, one_trip_huge_step, not_unrolled, plain_whole_i64_range, plain_at_i64_max,
        plain_one_trip_huge_step,
    ]);
}

mod i32_bounds {
    use super::*;
    rtriton_testing::backend_tests!(fold_i32_suite => [
        ten_by_4, odd_factor_5, whole_i32_range, at_i32_max, sixteen, plain_whole_i32_range, plain_at_i32_max,
        plain_one_trip_huge_step, plain_from_i32_min,
    ]);
}

/// The row-max cases with the column loop unrolled 4 times in blocks of 32 (so wide rows
/// take several main-loop trips and a remainder), against `cpu_row_max`.
fn row_max_unrolled_suite() -> Suite {
    let cases = SHAPE_MATRIX.iter().map(|c| {
        let mut case = harness_case(RowMaxVariant::RowMaxLoop, c);
        case.constexprs = vec![("BLOCK", 32), ("UNROLL", 4)];
        case
    });
    Suite::new(row_max_unrolled()).cases(cases).reference(|c| {
        let rc: &RowMaxCase = SHAPE_MATRIX.iter().find(|r| r.name == c.name).expect("a shape-matrix case");
        let want = reference(rc, false);
        for (r, v) in want.into_iter().enumerate() {
            c.tensor_mut("y").set_f32(&[r], v);
        }
    })
}

#[test]
fn unrolled_row_max_matches_on_every_shape() {
    let suite = row_max_unrolled_suite();
    suite.check_all(Backend::Interpreter);
    suite.check_all(Backend::Simulator);
}

#[test]
#[ignore = "needs a GPU"]
fn unrolled_row_max_matches_on_every_shape_gpu() {
    row_max_unrolled_suite().check_all(Backend::Gpu);
}

/// The lowered row max (contiguous, specialized: `v4` loads), `unroll` copies.
fn lowered_row_max(unroll: i64) -> Program {
    lower_def(&row_max_unrolled(), &[("BLOCK", 1024), ("UNROLL", unroll)], &contiguous_args(), SpecPolicy::Triton, 4)
        .expect("lowers")
}

/// The loops of `p`'s top level, in order.
fn loops(p: &Program) -> Vec<&Vec<Inst>> {
    p.body.iter().filter_map(|i| if let Inst::Loop { body, .. } = i { Some(body) } else { None }).collect()
}

fn count(body: &[Inst], f: impl Fn(&Inst) -> bool + Copy) -> usize {
    body.iter().map(|i| usize::from(f(i)) + i.bodies().into_iter().map(|b| count(b, f)).sum::<usize>()).sum()
}

fn v4_load(i: &Inst) -> bool {
    matches!(i, Inst::LdGlobal { dsts, .. } if dsts.len() == 4)
}

/// Each thread holds 8 elements of a 1024-wide block on 4 warps: two `v4` loads per body.
#[test]
fn the_main_loop_holds_unroll_copies_of_the_loads() {
    for unroll in [2, 4, 8] {
        let p = lowered_row_max(unroll);
        let ls = loops(&p);
        assert_eq!(ls.len(), 2, "a main loop and a remainder loop (unroll {unroll})");
        assert_eq!(count(ls[0], v4_load), 2 * unroll as usize, "main loop, unroll {unroll}");
        assert_eq!(count(ls[1], v4_load), 2, "remainder loop, unroll {unroll}");
        let orders = |i: &Inst| matches!(i, Inst::StGlobal { .. } | Inst::BarSync { .. } | Inst::Shfl { .. });
        assert_eq!(count(ls[0], orders), 0, "nothing in the main loop orders its loads");
        // Both loops count trips from 0 by 1.
        for i in p.body.iter().filter(|i| matches!(i, Inst::Loop { .. })) {
            let Inst::Loop { lower, step, .. } = i else { unreachable!("filtered") };
            assert_eq!((*lower, *step), (Operand::Int(0), Operand::Int(1)));
        }
        let d = &p.decisions;
        assert_eq!(d.accesses.iter().filter(|a| a.kind == AccessKind::Load).count(), 1, "one decision per load");
        assert_eq!(d.loops.len(), 1);
        assert_eq!(d.loops[0].unroll, unroll as u32);
    }
}

/// `unroll 1` is the plain loop: the same program as `for_range`.
#[test]
fn unroll_one_is_the_plain_loop() {
    let plain =
        lower_def(&RowMaxVariant::RowMaxLoop.def(), &[("BLOCK", 1024)], &contiguous_args(), SpecPolicy::Triton, 4)
            .expect("lowers");
    let one = lowered_row_max(1);
    let text = |p: &Program| {
        // The kernels differ only in their name and source lines.
        rtriton::backend::ptx::write(p)
            .lines()
            .filter(|l| !l.trim_start().starts_with("//") && !l.contains(".entry"))
            .collect::<Vec<_>>()
            .join("\n")
    };
    assert_eq!(text(&one), text(&plain));
    assert!(one.decisions.loops.is_empty());
}

#[test]
#[cfg_attr(not(has_ptxas), ignore = "needs ptxas on PATH")]
fn unrolled_loops_assemble_without_spills() {
    let ptxas = ptx_common::ptxas("unrolled_loops_assemble_without_spills");
    let fold = |def: rtriton::trace::KernelDef, unroll: i64| {
        let spec = rtriton::spec::SpecKey::plain(&def.params);
        let k = rtriton::session::CompileSession::new()
            .front_end(&def, &[("UNROLL", unroll)], &spec, &rtriton::trace::TraceOptions::default())
            .expect("traces");
        rtriton::backend::ptx::compile(&k, &ptx_common::options(Arch::Sm86, 1)).expect("compiles").text
    };
    let mut programs: Vec<(String, String)> = [2, 4, 8, 16]
        .iter()
        .map(|&u| (format!("row_max_unrolled_{u}"), rtriton::backend::ptx::write(&lowered_row_max(u))))
        .collect();
    programs.push(("fold_i64_3".into(), fold(fold_i64(), 3)));
    programs.push(("fold_i32_16".into(), fold(fold_i32(), 16)));
    for (name, text) in programs {
        for arch in [Arch::Sm86, Arch::Sm90] {
            let text = text.replace(".target sm_86", &format!(".target {arch}"));
            let info = ptx_common::assemble(&ptxas, &text, arch.name(), &name)
                .unwrap_or_else(|e| panic!("{name} for {arch}: {e}\n{text}"));
            assert_eq!(ptx_common::spill_stores(&info), Some(0), "{name} for {arch}: {info}");
        }
    }
}

/// A step of 0 stops the launch before any trip, unrolled or not: the interpreter's
/// `NonPositiveStep`, the simulator's loop-bounds check (the GPU traps).
#[test]
fn a_non_positive_step_is_an_error_unrolled_or_not() {
    for unroll in [1, 4] {
        let case = fold_case(("zero_step", 0, 10, 0, unroll), 64);
        let e = run_interpreter(&fold_i64(), &case, SpecPolicy::Triton).expect_err("step 0");
        assert!(e.to_string().contains("step"), "{e}");
        match run_simulator(&fold_i64(), &case, SpecPolicy::Triton) {
            Err(RunError::Simulator(e)) => assert_eq!(e.check, Check::LoopBounds, "unroll {unroll}: {e}"),
            other => panic!("unroll {unroll}: the simulator must refuse step 0, got {other:?}"),
        }
    }
}

kernel! {
    fn unroll_zero(y_ptr: Ptr<i32>; const UNROLL: usize) {
        let h = for_range_unrolled(0, full::<i32>(&[], 8), 1, UNROLL, zeros::<i32>(&[4]), |_, h| h + 1); // @unroll
        store(y_ptr + arange(0, 4), h, None);
    }
}

#[test]
fn an_unroll_factor_out_of_range_is_a_located_error() {
    let line = include_str!("unroll.rs").lines().position(|l| l.contains("// @unroll")).unwrap() as u32 + 1;
    for (unroll, what) in [(0, "unroll factor 0 is out of range"), (17, "unroll factor 17 is out of range")] {
        let e = trace_unspecialized(&unroll_zero(), &[("UNROLL", unroll)]).expect_err("out of range");
        let ds = e.diagnostics();
        assert_eq!(ds.len(), 1, "{e}");
        assert_eq!((ds[0].code, ds[0].message.as_str()), (Code::TraceRule, what));
        assert_eq!(ds[0].loc.map(|l| l.line), Some(line), "{e}");
        assert!(ds[0].help.contains("between 1 (no unrolling) and 16"), "{e}");
    }
}

/// The IR prints the factor when it is not 1 (so plain loops print as before), and dead-code
/// elimination keeps it.
#[test]
fn the_ir_prints_the_unroll_factor() {
    let text = |unroll: i64| trace_unspecialized(&fold_i64(), &[("UNROLL", unroll)]).expect("traces").to_string();
    let four = text(4);
    let line = four.lines().find(|l| l.contains(" = for ")).expect("a for line");
    assert!(line.contains(" step %3 unroll 4 iter_args("), "{line}");
    let one = text(1);
    let line = one.lines().find(|l| l.contains(" = for ")).expect("a for line");
    assert!(line.contains(" step %3 iter_args(") && !line.contains(" unroll "), "{line}");
}
