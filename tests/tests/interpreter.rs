//! The interpreter suite: every row-max variant on every case of the shape matrix, with
//! specialization on and off, must match the CPU reference bit for bit; plus the
//! interpreter's corner cases (wraparound, NaN, signed zeros, argmax ties, empty loops).

use rstest::rstest;
use rstest_reuse::apply;
use rtriton::interp::{self, Fault, InterpError, InterpRunError, Memory};
use rtriton::kernel;
use rtriton::prelude::*;
use rtriton::spec::{ArgValue, SpecPolicy};
use rtriton_kernels::RowMaxVariant;
use rtriton_kernels::cases::{Fill, SHAPE_MATRIX};
use rtriton_testing::Backend;
use rtriton_tests::tables::every_variant;
use rtriton_tests::{kernels, prepare, reference, row_max_suite};

#[apply(every_variant)]
fn row_max_matches_the_reference_on_every_case(
    variant: RowMaxVariant,
    #[values(SpecPolicy::Triton, SpecPolicy::Off)] policy: SpecPolicy,
) {
    row_max_suite(variant.def(), variant, SHAPE_MATRIX, false).policies(&[policy]).check_all(Backend::Interpreter);
}

#[test]
fn the_matrix_covers_what_the_foundation_issue_asks_for() {
    assert!(SHAPE_MATRIX.len() >= 11);
    // The NaN case must hold a row of only NaN and rows with some NaN, so both NaN rules
    // are exercised.
    let nan_case = SHAPE_MATRIX.iter().find(|c| matches!(c.fill, Fill::SomeNaN(_))).expect("a NaN case");
    let want = reference(nan_case, false);
    assert!(want.iter().all(|v| !v.is_nan()), "NaN is ignored, an all-NaN row gives -inf");
    assert_eq!(want[1], f32::NEG_INFINITY);
    assert!(reference(nan_case, true).iter().filter(|v| v.is_nan()).count() > 1);
}

#[rstest]
#[case::single_block(kernels::row_max_nan(), RowMaxVariant::RowMax)]
#[case::looping(kernels::row_max_loop_nan(), RowMaxVariant::RowMaxLoop)]
fn nan_propagating_max_matches_the_propagating_reference(
    #[case] def: rtriton::trace::KernelDef,
    #[case] shaped_like: RowMaxVariant,
    #[values(SpecPolicy::Triton, SpecPolicy::Off)] policy: SpecPolicy,
) {
    row_max_suite(def, shaped_like, SHAPE_MATRIX, true).policies(&[policy]).check_all(Backend::Interpreter);
}

/// The recorded results of Triton on an H200 (`data/triton_h200_row_max.txt`, made by
/// `data/triton_row_max.py` from the same inputs) agree with the CPU reference bit for
/// bit, for both NaN rules: the reference, and so the interpreter that matches it above,
/// computes what a GPU computes, signed zeros and canonical NaN included.
#[test]
fn the_reference_matches_triton_on_an_h200() {
    let recorded = include_str!("data/triton_h200_row_max.txt");
    let mut checked = 0;
    for line in recorded.lines().filter(|l| !l.starts_with('#')) {
        let mut words = line.split(' ');
        let (name, rule) = (words.next().unwrap_or(""), words.next().unwrap_or(""));
        let gpu: Vec<u32> = words.map(|h| u32::from_str_radix(h, 16).expect("hex bits")).collect();
        let case = SHAPE_MATRIX.iter().find(|c| c.name == name).unwrap_or_else(|| {
            panic!("recorded case `{name}` is not in SHAPE_MATRIX; regenerate data/triton_h200_row_max.txt")
        });
        let want: Vec<u32> = reference(case, rule == "propagate").into_iter().map(f32::to_bits).collect();
        assert_eq!(gpu.len(), want.len(), "{name}: the case changed shape; regenerate the recording");
        let bad: Vec<String> = (0..want.len())
            .filter(|&r| gpu[r] != want[r])
            .take(5)
            .map(|r| format!("row {r}: GPU 0x{:08X}, reference 0x{:08X}", gpu[r], want[r]))
            .collect();
        assert!(bad.is_empty(), "{name} ({rule}):\n{}", bad.join("\n"));
        checked += 1;
    }
    assert_eq!(checked, 2 * 16, "every recorded case and rule is checked");
}

// ---- corner cases -------------------------------------------------------------------

/// Runs `def` with one program per entry of `grid` and returns the i32 output `y` of `n`.
fn run_i32(
    def: &rtriton::trace::KernelDef,
    consts: &[(&str, i64)],
    x: &[i32],
    extra: &[ArgValue],
    n: usize,
) -> Vec<i32> {
    let mut mem = Memory::new();
    let xp = mem.alloc_i32(x);
    let yp = mem.alloc(n * 4);
    let mut args = vec![ArgValue::Ptr(xp), ArgValue::Ptr(yp)];
    args.extend_from_slice(extra);
    rtriton::session::CompileSession::new()
        .interpret(def, consts, &args, SpecPolicy::Triton, [1, 1, 1], &mut mem)
        .unwrap();
    mem.read_i32(yp, n).unwrap()
}

kernel! {
    /// y = x * k in i32 (wraps), and y2 = x.to::<i64>() * k narrowed back.
    fn mul_i32(x_ptr: Ptr<i32>, y_ptr: Ptr<i32>, k: i32; const BLOCK: usize) {
        let offs = arange(0, BLOCK);
        let x = load(x_ptr + offs, None, None);
        store(y_ptr + offs, x * k, None);
    }
}

#[test]
fn i32_arithmetic_wraps_like_the_gpu() {
    let x = [65536, -65536, i32::MAX, 3];
    let got = run_i32(&mul_i32(), &[("BLOCK", 4)], &x, &[ArgValue::Int(65536)], 4);
    assert_eq!(got, vec![0, 0, -65536, 196_608]);
}

kernel! {
    /// An index computed in i32 past 2^31 wraps negative before the pointer add.
    fn wrapped_offset(x_ptr: Ptr<i32>, y_ptr: Ptr<i32>, stride: i32) {
        let off = (program_id(0) + 2) * stride;
        store(y_ptr + off, program_id(0), None);
    }
}

#[test]
fn an_i32_offset_that_wraps_points_before_the_buffer_and_faults() {
    let mut mem = Memory::new();
    let xp = mem.alloc(4);
    let yp = mem.alloc(4);
    let args = [ArgValue::Ptr(xp), ArgValue::Ptr(yp), ArgValue::Int(1 << 30)];
    let err = rtriton::session::CompileSession::new()
        .interpret(&wrapped_offset(), &[], &args, SpecPolicy::Triton, [1, 1, 1], &mut mem)
        .unwrap_err();
    // (0 + 2) * 2^30 = 2^31 wraps to -2^31: the store lands 8 GiB below y.
    let InterpRunError::Interp(InterpError::Fault { fault: Fault::OutOfBounds { addr, .. }, .. }) = err else {
        panic!("expected an out-of-bounds fault, got {err}");
    };
    assert_eq!(addr, yp.wrapping_sub(1u64 << 33));
}

kernel! {
    /// argmax along each row of a BLOCK_M x BLOCK_N block.
    fn argmax_rows(x_ptr: Ptr<f32>, y_ptr: Ptr<i32>; const BLOCK_M: usize, const BLOCK_N: usize) {
        let rows = arange(0, BLOCK_M);
        let cols = arange(0, BLOCK_N);
        let x = load(x_ptr + rows.expand_dims(1) * BLOCK_N as i32 + cols.expand_dims(0), None, None);
        store(y_ptr + rows, argmax(x, 1), None);
    }
}

#[test]
fn argmax_takes_the_first_maximum_ignores_nan_and_ties_signed_zeros() {
    let nan = f32::NAN;
    #[rustfmt::skip]
    let x = [
        1.0, 3.0, 3.0, 2.0,
        nan, 0.5, nan, 0.5,
        -0.0, 0.0, -1.0, 0.0,
        nan, nan, nan, nan,
        f32::NEG_INFINITY, f32::NEG_INFINITY, f32::NEG_INFINITY, f32::NEG_INFINITY,
        -5.0, -4.0, f32::INFINITY, f32::INFINITY,
        7.0, 1.0, 1.0, 1.0,
        0.0, 0.0, 0.0, 9.0,
    ];
    let mut mem = Memory::new();
    let xp = mem.alloc_f32(&x);
    let yp = mem.alloc(8 * 4);
    let consts = [("BLOCK_M", 8), ("BLOCK_N", 4)];
    let args = [ArgValue::Ptr(xp), ArgValue::Ptr(yp)];
    rtriton::session::CompileSession::new()
        .interpret(&argmax_rows(), &consts, &args, SpecPolicy::Triton, [1, 1, 1], &mut mem)
        .unwrap();
    assert_eq!(mem.read_i32(yp, 8).unwrap(), vec![1, 1, 0, 0, 0, 2, 0, 3]);
}

kernel! {
    /// A row of exactly BLOCK elements (no masked lanes), reduced with tl.max.
    fn max_exact(x_ptr: Ptr<f32>, y_ptr: Ptr<f32>; const BLOCK: usize) {
        let row = program_id(0);
        let x = load(x_ptr + row * BLOCK as i32 + arange(0, BLOCK), None, None);
        store(y_ptr + row, max(x, 0), None);
    }
}

#[test]
fn max_of_a_block_of_only_nan_is_the_canonical_nan_and_signed_zeros_order() {
    let nan = f32::NAN;
    let x = [nan, nan, nan, nan, -0.0, -0.0, -0.0, -0.0, -0.0, 0.0, -0.0, -0.0, nan, -1.0, nan, -2.0];
    let mut mem = Memory::new();
    let xp = mem.alloc_f32(&x);
    let yp = mem.alloc(16);
    let args = [ArgValue::Ptr(xp), ArgValue::Ptr(yp)];
    rtriton::session::CompileSession::new()
        .interpret(&max_exact(), &[("BLOCK", 4)], &args, SpecPolicy::Triton, [4, 1, 1], &mut mem)
        .unwrap();
    let bits: Vec<u32> = mem.read_f32(yp, 4).unwrap().into_iter().map(f32::to_bits).collect();
    // Measured with Triton 3.6 on an H200: tl.max of [NaN; 8] stores 0x7FFFFFFF.
    assert_eq!(bits, vec![0x7FFF_FFFF, 0x8000_0000, 0x0000_0000, (-1.0f32).to_bits()]);
}

kernel! {
    /// Sums x[0..n] in blocks of BLOCK with a runtime loop; y = sum (or init when n = 0).
    fn sum_loop(x_ptr: Ptr<i32>, y_ptr: Ptr<i32>, n: i32, step: i32; const BLOCK: usize) {
        let offs = arange(0, BLOCK);
        let acc = full::<i32>(&[BLOCK], 0);
        let acc = for_range(0, n, step, acc, |start, acc| {
            let o = start + offs;
            acc + load(x_ptr + o, Some(o.lt(n)), Some(0))
        });
        store(y_ptr, sum(acc, 0) + 100, None);
    }
}

#[test]
fn loops_run_their_trip_count_and_an_empty_range_yields_the_initial_values() {
    let x: Vec<i32> = (1..=10).collect();
    let sum = |n: i64| run_i32(&sum_loop(), &[("BLOCK", 4)], &x, &[ArgValue::Int(n), ArgValue::Int(4)], 1)[0];
    assert_eq!(sum(10), 155);
    assert_eq!(sum(3), 106);
    assert_eq!(sum(0), 100);
    assert_eq!(sum(-5), 100);
}

#[rstest]
#[case::zero(0)]
#[case::negative(-4)]
fn a_loop_with_a_non_positive_runtime_step_is_an_error(#[case] step: i64) {
    let mut mem = Memory::new();
    let xp = mem.alloc_i32(&[1; 4]);
    let yp = mem.alloc(4);
    let args = [ArgValue::Ptr(xp), ArgValue::Ptr(yp), ArgValue::Int(4), ArgValue::Int(step)];
    let err = rtriton::session::CompileSession::new()
        .interpret(&sum_loop(), &[("BLOCK", 4)], &args, SpecPolicy::Triton, [1, 1, 1], &mut mem)
        .unwrap_err();
    let InterpRunError::Interp(InterpError::Fault { fault: Fault::NonPositiveStep { step: s, .. }, .. }) = &err else {
        panic!("expected a step fault, got {err}");
    };
    assert_eq!(*s, step);
    assert!(err.to_string().contains(&format!("loop step {step} is not positive in program (0, 0, 0)")), "{err}");
}

kernel! {
    /// y = x / d element-wise in i32.
    fn div_i32(x_ptr: Ptr<i32>, y_ptr: Ptr<i32>, d_ptr: Ptr<i32>; const BLOCK: usize) {
        let offs = arange(0, BLOCK);
        store(y_ptr + offs, load(x_ptr + offs, None, None) / load(d_ptr + offs, None, None), None);
    }
}

#[test]
fn integer_division_truncates_wraps_at_min_and_faults_on_zero() {
    let mut mem = Memory::new();
    let xp = mem.alloc_i32(&[7, -7, i32::MIN, 5]);
    let yp = mem.alloc(16);
    let dp = mem.alloc_i32(&[2, 2, -1, 1]);
    let args = [ArgValue::Ptr(xp), ArgValue::Ptr(yp), ArgValue::Ptr(dp)];
    rtriton::session::CompileSession::new()
        .interpret(&div_i32(), &[("BLOCK", 4)], &args, SpecPolicy::Triton, [1, 1, 1], &mut mem)
        .unwrap();
    assert_eq!(mem.read_i32(yp, 4).unwrap(), vec![3, -3, i32::MIN, 5]);
    mem.write_i32(dp, &[1, 1, 0, 1]).unwrap();
    let err = rtriton::session::CompileSession::new()
        .interpret(&div_i32(), &[("BLOCK", 4)], &args, SpecPolicy::Triton, [1, 1, 1], &mut mem)
        .unwrap_err();
    let InterpRunError::Interp(InterpError::Fault { fault: Fault::DivisionByZero { element, .. }, .. }) = err else {
        panic!("expected a division fault, got {err}");
    };
    assert_eq!(element, vec![2]);
}

#[test]
fn a_launch_that_disagrees_with_the_specialization_is_refused() {
    // Trace for stride_col = 1 (folded), then run with stride_col = 2.
    let case = &SHAPE_MATRIX[3];
    let mut mem = Memory::new();
    let launch = prepare(&mut mem, RowMaxVariant::RowMax, case);
    let def = RowMaxVariant::RowMax.def();
    let kernel = rtriton::session::CompileSession::new()
        .front_end_for_args(&def, &launch.constexprs, &launch.args, SpecPolicy::Triton, &Default::default())
        .unwrap();
    let mut args = launch.args.clone();
    args[5] = ArgValue::Int(2);
    let err = interp::run(&kernel, launch.grid, &args, &mut mem).unwrap_err();
    assert!(matches!(err, InterpError::Launch(_)), "{err}");
    assert!(err.to_string().contains("argument `stride_col` = 2 does not fit the specialization"), "{err}");
}

#[test]
fn a_grid_with_a_zero_dimension_runs_nothing() {
    let mut mem = Memory::new();
    let case = &SHAPE_MATRIX[0];
    let launch = prepare(&mut mem, RowMaxVariant::RowMax, case);
    let def = RowMaxVariant::RowMax.def();
    rtriton::session::CompileSession::new()
        .interpret(&def, &launch.constexprs, &launch.args, SpecPolicy::Off, [0, 1, 1], &mut mem)
        .unwrap();
    assert_eq!(mem.read_f32(launch.y, 1).unwrap(), vec![0.0]);
}

#[test]
fn a_pointer_that_is_not_aligned_to_its_element_faults() {
    let mut mem = Memory::new();
    let x = mem.alloc_i32(&[1, 2, 3, 4, 5]);
    let y = mem.alloc(16);
    let args = [ArgValue::Ptr(x + 2), ArgValue::Ptr(y), ArgValue::Int(3)];
    let err = rtriton::session::CompileSession::new()
        .interpret(&mul_i32(), &[("BLOCK", 4)], &args, SpecPolicy::Triton, [1, 1, 1], &mut mem)
        .unwrap_err();
    let InterpRunError::Interp(InterpError::Fault { fault: Fault::Misaligned { element, addr, .. }, .. }) = &err else {
        panic!("expected a misaligned access, got {err}");
    };
    assert_eq!((element.as_slice(), *addr), (&[0][..], x + 2));
    assert!(err.to_string().contains("misaligned load in program (0, 0, 0), element [0]"), "{err}");
}
