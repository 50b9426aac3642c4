//! Triton's `histogram`, `flip` and `gather`, which rtriton writes with other ops
//! (`dsl/src/lang/indexing.rs`): each over a table of shapes, dtypes and masks against a
//! plain-Rust reference on the interpreter and the simulator (and, asked for, the GPU),
//! bit for bit; their PTX through ptxas; a one-hot block over the register budget refused.

mod ptx_common;

use rtriton::backend::ptx::Arch;
use rtriton::diag::{Code, HasDiagnostics};
use rtriton::kernel;
use rtriton::prelude::*;
use rtriton::spec::{ArgValue, SpecPolicy};
use rtriton::trace::KernelDef;
use rtriton_testing::run::run_simulator;
use rtriton_testing::{Backend, Case, Data, Rule, Suite, View};

/// A deterministic scramble of `i` (a multiplicative hash, then a rotation by `seed`).
fn mix(seed: u32, i: usize) -> u32 {
    (i as u32 ^ seed.wrapping_mul(0x9E37_79B9)).wrapping_mul(2_654_435_761).rotate_left(seed % 32)
}

fn constexpr(case: &Case, name: &str) -> i64 {
    case.constexprs.iter().find(|(n, _)| *n == name).map(|(_, v)| *v).expect("the case sets the constexpr")
}

// ---------------------------------------------------------------------------------------
// histogram

/// `y = histogram(x[..N], BINS)`, masked by `m[i] != 0` when `MASKED` is 1.
fn hist_body<T: IntMarker>(
    x_ptr: Tensor<Ptr<T>>,
    m_ptr: Tensor<Ptr<i32>>,
    y_ptr: Tensor<Ptr<i32>>,
    n: usize,
    bins: usize,
    masked: usize,
) {
    let offs = arange(0, n);
    let x = load(x_ptr + offs, None, None);
    let y = if masked == 1 {
        histogram_with(x, bins, Some(load(m_ptr + offs, None, None).ne(0)))
    } else {
        x.histogram(bins)
    };
    store(y_ptr + arange(0, bins), y, None);
}

kernel! {
    /// [`hist_body`] of `i32` values.
    fn hist_i32(x_ptr: Ptr<i32>, m_ptr: Ptr<i32>, y_ptr: Ptr<i32>; const N: usize, const BINS: usize, const MASKED: usize) {
        hist_body(x_ptr, m_ptr, y_ptr, N, BINS, MASKED);
    }
}

kernel! {
    /// [`hist_body`] of `i64` values.
    fn hist_i64(x_ptr: Ptr<i64>, m_ptr: Ptr<i32>, y_ptr: Ptr<i32>; const N: usize, const BINS: usize, const MASKED: usize) {
        hist_body(x_ptr, m_ptr, y_ptr, N, BINS, MASKED);
    }
}

kernel! {
    /// [`hist_body`] of `i8` values (negative ones must not wrap onto a bin).
    fn hist_i8(x_ptr: Ptr<i8>, m_ptr: Ptr<i32>, y_ptr: Ptr<i32>; const N: usize, const BINS: usize, const MASKED: usize) {
        hist_body(x_ptr, m_ptr, y_ptr, N, BINS, MASKED);
    }
}

/// Values spread over `[-4, bins + 4)` so that some fall below and above the bins, and the
/// dtype's extremes, which no bin counts.
fn hist_values(seed: u32, n: usize, bins: usize, lo: i64, hi: i64) -> Vec<i64> {
    (0..n)
        .map(|i| match i % 13 {
            2 => lo,
            5 => hi,
            _ => i64::from(mix(seed, i) % (bins as u32 + 8)) - 4,
        })
        .collect()
}

/// Counts of `x[i]` in `[0, bins)` where `mask[i] != 0` (all when not masked).
fn hist_ref(x: &[i64], mask: &[i32], masked: bool, bins: usize) -> Vec<i32> {
    let mut y = vec![0i32; bins];
    for (&v, &m) in x.iter().zip(mask) {
        if (!masked || m != 0) && (0..bins as i64).contains(&v) {
            y[v as usize] += 1;
        }
    }
    y
}

/// The histogram table: (dtype, N, BINS). Every row runs masked and unmasked.
const HIST_TABLE: &[(&str, usize, usize)] = &[
    ("i32", 16, 8),
    ("i32", 64, 32),
    ("i32", 128, 4),
    ("i64", 32, 16),
    ("i64", 8, 64),
    // 256 bins of i8 values: -128 must not count in bin 128.
    ("i8", 64, 256),
    ("i8", 32, 8),
];

fn hist_suite(dtype: &str) -> Suite {
    let def = match dtype {
        "i32" => hist_i32(),
        "i64" => hist_i64(),
        _ => hist_i8(),
    };
    let (lo, hi) = match dtype {
        "i32" => (i64::from(i32::MIN), i64::from(i32::MAX)),
        "i64" => (i64::MIN, i64::MAX),
        _ => (i64::from(i8::MIN), i64::from(i8::MAX)),
    };
    let cases = HIST_TABLE.iter().filter(|r| r.0 == dtype).flat_map(|&(_, n, bins)| {
        [0, 1].map(move |masked| {
            let x = hist_values(n as u32 + bins as u32, n, bins, lo, hi);
            let data = match dtype {
                "i32" => Data::I32(x.iter().map(|&v| v as i32).collect()),
                "i64" => Data::I64(x),
                _ => Data::I8(x.iter().map(|&v| v as i8).collect()),
            };
            let mask: Vec<i32> = (0..n).map(|i| i32::from(mix(7, i) % 3 != 0)).collect();
            Case::new(format!("{dtype} n={n} bins={bins} masked={masked}"))
                .input("x", data, View::contiguous(&[n]))
                .input("m", mask, View::contiguous(&[n]))
                .output("y", vec![-1i32; bins], View::contiguous(&[bins]))
                .constexpr("N", n as i64)
                .constexpr("BINS", bins as i64)
                .constexpr("MASKED", masked)
        })
    });
    Suite::new(def)
        .cases(cases)
        .reference(|case| {
            let x: Vec<i64> = match &case.tensor("x").data {
                Data::I32(v) => v.iter().map(|&e| i64::from(e)).collect(),
                Data::I64(v) => v.clone(),
                Data::I8(v) => v.iter().map(|&e| i64::from(e)).collect(),
                other => unreachable!("{other:?}"),
            };
            let Data::I32(mask) = &case.tensor("m").data else { unreachable!() };
            let masked = constexpr(case, "MASKED") == 1;
            let bins = constexpr(case, "BINS") as usize;
            case.tensor_mut("y").data = Data::I32(hist_ref(&x, mask, masked, bins));
        })
        .rule(Rule::BITS)
}

/// Every suite of this file, by function and dtype.
fn suites() -> Vec<Suite> {
    vec![hist_suite("i32"), hist_suite("i64"), hist_suite("i8")]
}

fn check_every_case(backend: Backend) {
    for suite in suites() {
        suite.check_all(backend);
    }
}

#[test]
fn every_function_matches_its_reference_on_the_interpreter() {
    check_every_case(Backend::Interpreter);
}

#[test]
fn every_function_matches_its_reference_on_the_simulator() {
    check_every_case(Backend::Simulator);
}

/// The GPU's bits against the reference and the interpreter's (`Suite::run` compares
/// with both), every case.
#[test]
#[ignore = "needs a GPU"]
fn every_function_matches_the_interpreter_on_the_gpu() {
    check_every_case(Backend::Gpu);
}

/// The reference histogram is not vacuous: the table's data puts values below, inside and
/// above the bins, and the mask removes some that would count.
#[test]
fn the_histogram_table_covers_ignored_and_masked_values() {
    for &(_, n, bins) in HIST_TABLE {
        let x = hist_values(n as u32 + bins as u32, n, bins, -1000, 1000);
        let mask: Vec<i32> = (0..n).map(|i| i32::from(mix(7, i) % 3 != 0)).collect();
        let all = hist_ref(&x, &mask, false, bins).iter().sum::<i32>();
        let kept = hist_ref(&x, &mask, true, bins).iter().sum::<i32>();
        assert!(x.iter().any(|&v| v < 0) && x.iter().any(|&v| v >= bins as i64), "n={n} bins={bins}");
        assert!(0 < kept && kept < all && all < n as i32, "n={n} bins={bins}: {kept} {all}");
    }
}

// ---------------------------------------------------------------------------------------
// PTX and the register budget

/// A kernel with the arguments and constexprs it is compiled for.
type Launch = (KernelDef, Vec<ArgValue>, Vec<(&'static str, i64)>);

fn ptr(i: u64) -> ArgValue {
    ArgValue::Ptr(0x7f00_0000_0000 + (i << 32))
}

#[test]
#[cfg_attr(not(has_ptxas), ignore = "needs ptxas on PATH")]
fn their_ptx_assembles_without_spills() {
    let ptxas = ptx_common::ptxas("standard_indexing");
    let kernels: Vec<Launch> = vec![
        (hist_i32(), vec![ptr(0), ptr(1), ptr(2)], vec![("N", 64), ("BINS", 32), ("MASKED", 1)]),
        (hist_i64(), vec![ptr(0), ptr(1), ptr(2)], vec![("N", 32), ("BINS", 16), ("MASKED", 0)]),
        // 256 bins of 64 values fill the register budget exactly and spill; 64 do not.
        (hist_i8(), vec![ptr(0), ptr(1), ptr(2)], vec![("N", 64), ("BINS", 64), ("MASKED", 1)]),
    ];
    for (def, args, constexprs) in kernels {
        for arch in [Arch::Sm86, Arch::Sm90] {
            let p =
                ptx_common::compile_def(&def, &constexprs, &args, SpecPolicy::Triton, &ptx_common::options(arch, 4))
                    .unwrap_or_else(|e| panic!("{}: {e}", def.name));
            let info = ptx_common::assemble(&ptxas, &p.text, arch.name(), def.name)
                .unwrap_or_else(|e| panic!("{} {arch}: {e}", def.name));
            assert_eq!(ptx_common::spill_stores(&info), Some(0), "{} {arch}", def.name);
        }
    }
}

/// A one-hot block past the register budget is refused with the budget's diagnostic
/// before anything runs, never compiled to spilling code.
#[test]
fn a_one_hot_block_over_the_register_budget_is_refused() {
    // 1024 bins of 256 values: a [1024, 256] block, 2048 registers a thread on 4 warps.
    let (n, bins) = (256usize, 1024usize);
    let case = Case::new("too large")
        .input("x", vec![0i32; n], View::contiguous(&[n]))
        .input("m", vec![1i32; n], View::contiguous(&[n]))
        .output("y", vec![0i32; bins], View::contiguous(&[bins]))
        .constexpr("N", n as i64)
        .constexpr("BINS", bins as i64)
        .constexpr("MASKED", 0);
    let e = run_simulator(&hist_i32(), &case, SpecPolicy::Triton).expect_err("over the budget");
    assert!(e.has_code(Code::PtxRegisterBudget), "histogram: {e}");
}
