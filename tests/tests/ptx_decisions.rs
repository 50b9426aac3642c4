//! Tests of what the PTX back end decided, not only of its text: vector widths, single
//! owners of stored elements, reductions with or without shared memory, and the errors
//! for kernels it cannot compile.

mod ptx_common;

use ptx_common::{compile, compile_def, compile_plain, options};
use rstest::rstest;
use rstest_reuse::apply;
use rtriton::backend::ptx::lir::Inst;
use rtriton::backend::ptx::{AccessKind, Arch, PtxError, PtxOptions};
use rtriton::diag::{Code, HasDiagnostics};
use rtriton::interp::Memory;
use rtriton::prelude::*;
use rtriton::spec::{ArgValue, SpecPolicy};
use rtriton_kernels::RowMaxVariant;
use rtriton_kernels::cases::{Fill, RowMaxCase, ViewKind};
use rtriton_tests::fixtures::row_max_family;
use rtriton_tests::tables::every_variant;
use rtriton_tests::{compare_bits, contiguous_args, prepare, reference};

const X: u64 = 0x7f00_0000_0000;
const Y: u64 = 0x7f00_0010_0000;

fn args(x: u64, n_cols: i64, stride_row: i64, stride_col: i64) -> Vec<ArgValue> {
    vec![
        ArgValue::Ptr(x),
        ArgValue::Ptr(Y),
        ArgValue::Int(1000),
        ArgValue::Int(n_cols),
        ArgValue::Int(stride_row),
        ArgValue::Int(stride_col),
    ]
}

fn load_widths(v: RowMaxVariant, a: &[ArgValue], policy: SpecPolicy) -> Vec<u32> {
    let p = compile(v, a, policy, &PtxOptions::default()).expect("compiles");
    p.decisions.accesses.iter().filter(|d| d.kind == AccessKind::Load).map(|d| d.vector_width).collect()
}

#[apply(every_variant)]
fn contiguous_aligned_stride_one_loads_are_v4(variant: RowMaxVariant) {
    let v = variant;
    assert_eq!(load_widths(v, &contiguous_args(), SpecPolicy::Triton), vec![4], "{}", v.name());
    let p = compile(v, &contiguous_args(), SpecPolicy::Triton, &PtxOptions::default()).unwrap();
    assert!(p.text.contains("ld.global.v4.f32"), "{}", v.name());
}

/// Without a proof the access is scalar: no stride == 1 specialization (a strided view,
/// or specialization off), a base pointer without the 16-byte hint, or a mask that may
/// change inside a vector (n_cols not divisible by 16: Triton's mask-constancy rule).
#[rstest]
#[case::stride_two(args(X, 1024, 2048, 2), SpecPolicy::Triton)]
#[case::specialization_off(contiguous_args(), SpecPolicy::Off)]
#[case::base_plus_4_bytes(args(X + 4, 1024, 1024, 1), SpecPolicy::Triton)]
#[case::base_plus_8_bytes(args(X + 8, 1024, 1024, 1), SpecPolicy::Triton)]
#[case::row_stride_not_divisible(args(X, 1024, 1000, 1), SpecPolicy::Triton)]
#[case::n_cols_not_divisible(args(X, 1000, 1024, 1), SpecPolicy::Triton)]
fn unprovable_loads_are_scalar(
    #[case] a: Vec<ArgValue>,
    #[case] policy: SpecPolicy,
    #[values(RowMaxVariant::RowMax, RowMaxVariant::RowMaxLoop, RowMaxVariant::RowMax2d, RowMaxVariant::I64Index)]
    v: RowMaxVariant,
) {
    // (row_stride_not_divisible: the row base x + row * stride_row is only 4-byte aligned.)
    assert_eq!(load_widths(v, &a, policy), vec![1], "{}", v.name());
    let p = compile(v, &a, policy, &PtxOptions::default()).unwrap();
    assert!(!p.text.contains(".v4") && !p.text.contains(".v2"), "{}", v.name());
}

#[test]
fn scalar_reason_names_the_missing_fact() {
    let p =
        compile(RowMaxVariant::RowMax, &args(X, 1024, 2048, 2), SpecPolicy::Triton, &PtxOptions::default()).unwrap();
    let load = &p.decisions.accesses[0];
    assert!(load.reason.starts_with("scalar: contiguity 1"), "{}", load.reason);
    assert!(load.reason.contains("stride specialized to 1"), "{}", load.reason);
    let p = compile(RowMaxVariant::RowMax, &args(X + 4, 1024, 1024, 1), SpecPolicy::Triton, &PtxOptions::default())
        .unwrap();
    assert!(p.decisions.accesses[0].reason.contains("base alignment only 1 B"), "{}", p.decisions.accesses[0].reason);
}

/// Every element of `y` is written by exactly one thread, also when the block is smaller
/// than the CTA (replicated elements) and for scalar results. On the simulator a second
/// store of an element (by another thread or another program) is a
/// `GlobalStoreConflict`, an access outside `x` or `y` is out of bounds, and each
/// row must hold its own maximum (y starts as NaN, so a row no thread stores fails too,
/// and random rows make a load from another program's rows change the result).
#[rstest]
#[case::row_max_block_16(RowMaxVariant::RowMax, vec![("BLOCK", 16)], 10, 1)]
#[case::row_max_block_1024(RowMaxVariant::RowMax, vec![("BLOCK", 1024)], 1000, 1)]
#[case::loop_block_32(RowMaxVariant::RowMaxLoop, vec![("BLOCK", 32)], 100, 1)]
#[case::two_d_4x8(RowMaxVariant::RowMax2d, vec![("BLOCK_M", 4), ("BLOCK_N", 8)], 20, 4)]
#[case::two_d_16x64(RowMaxVariant::RowMax2d, vec![("BLOCK_M", 16), ("BLOCK_N", 64)], 100, 16)]
fn each_output_element_has_one_writer(
    #[case] v: RowMaxVariant,
    #[case] constexprs: Vec<(&'static str, i64)>,
    #[case] n_cols: usize,
    #[case] rows_per_cta: usize,
    #[values(1, 4, 8)] num_warps: u32,
    #[values(SpecPolicy::Triton, SpecPolicy::Off)] policy: SpecPolicy,
) {
    // Three whole programs of rows and a partly filled fourth.
    let case = RowMaxCase {
        name: "one_writer",
        n_rows: 3 * rows_per_cta + 1,
        n_cols,
        view: ViewKind::Contiguous,
        fill: Fill::Random(7),
    };
    let mut mem = Memory::new();
    let mut launch = prepare(&mut mem, v, &case);
    launch.grid = [v.grid(case.n_rows, &constexprs) as u32, 1, 1];
    launch.constexprs = constexprs;
    mem.write_f32(launch.y, &vec![f32::NAN; case.n_rows]).unwrap();
    let program = rtriton_tests::lower(&v.def(), &launch, policy, num_warps).expect("lowers");
    for inst in program.walk() {
        if let Inst::StGlobal { guard, .. } = inst {
            assert!(guard.is_some(), "stores in a CTA of {} threads must be guarded", program.threads_per_cta);
        }
    }
    rtriton::sim::run(&program, launch.grid, &launch.args, &mut mem).unwrap_or_else(|e| panic!("{e}"));
    let got = mem.read_f32(launch.y, case.n_rows).unwrap();
    compare_bits(&got, &reference(&case, false)).unwrap_or_else(|e| panic!("each row's result stored once:\n{e}"));
}

#[test]
fn row_reduction_in_one_warp_uses_shuffles_only() {
    let p = compile(RowMaxVariant::RowMax2d, &contiguous_args(), SpecPolicy::Triton, &PtxOptions::default()).unwrap();
    let r = &p.decisions.reductions[0];
    assert!(r.uses_shuffles && !r.uses_shared_memory, "{}", r.reason);
    assert!(!p.text.contains("bar.sync") && !p.text.contains(".shared"), "no shared memory stage");
    assert_eq!(p.shared_bytes, 0);
}

#[rstest]
#[case::row_over_four_warps(RowMaxVariant::RowMax, SpecPolicy::Triton, 4, true)]
#[case::row_in_one_warp(RowMaxVariant::RowMax, SpecPolicy::Triton, 1, false)]
#[case::two_d_unspecialized_rows_span_two_warps(RowMaxVariant::RowMax2d, SpecPolicy::Off, 4, true)]
fn shared_memory_only_when_several_warps_span_the_axis(
    #[case] v: RowMaxVariant,
    #[case] policy: SpecPolicy,
    #[case] num_warps: u32,
    #[case] shared: bool,
) {
    let p = compile(v, &contiguous_args(), policy, &options(Arch::Sm86, num_warps)).unwrap();
    let r = &p.decisions.reductions[0];
    assert!(r.uses_shuffles, "{}", r.reason);
    assert_eq!(r.uses_shared_memory, shared, "{}", r.reason);
    assert_eq!(p.text.matches("bar.sync 0;").count(), if shared { 2 } else { 0 });
}

#[test]
fn nan_propagating_max_uses_max_nan() {
    rtriton::kernel! {
        fn amax(x_ptr: Ptr<f32>, y_ptr: Ptr<f32>; const BLOCK: usize) {
            let x = load(x_ptr + arange(0, BLOCK), None, None);
            store(y_ptr + program_id(0), max_with(x, 0, PropagateNan::All), None);
        }
    }
    let p = compile_plain(&amax(), &[("BLOCK", 128)], &PtxOptions::default()).unwrap();
    assert!(p.text.contains("max.NaN.f32") && !p.text.contains("max.f32"));
}

/// The PTX back end has no float remainder; its help names functions rtriton has (it
/// suggested `trunc`, which rtriton does not have).
#[test]
fn float_remainder_is_refused_with_a_help_that_uses_existing_functions() {
    rtriton::kernel! {
        fn frem(x_ptr: Ptr<f32>, y_ptr: Ptr<f32>; const BLOCK: usize) {
            let x = load(x_ptr + arange(0, BLOCK), None, None);
            store(y_ptr + arange(0, BLOCK), x % x, None);
        }
    }
    let e = compile_plain(&frem(), &[("BLOCK", 128)], &PtxOptions::default()).unwrap_err();
    assert!(e.has_code(Code::PtxUnsupported), "{e}");
    let e = e.to_string();
    assert!(e.contains("`rem` on f32 is not supported by the PTX back end"), "{e}");
    assert!(
        e.ends_with(
            "help: compute the remainder with floor, ceil and where_: with q = x / y, \
             x - where_(q.lt(0.0), ceil(q), floor(q)) * y (the sign of x, as C's fmod)"
        ),
        "{e}"
    );
    assert!(!e.contains("trunc"), "{e}");
}

/// The error compiling `v`'s fixture copy gives (the text names the fixture's lines, so an
/// edit of `row_max.rs` does not change it).
fn compile_err(v: RowMaxVariant, constexprs: Vec<(&'static str, i64)>, o: &PtxOptions) -> PtxError {
    let def = row_max_family::def(v);
    compile_def(&def, &constexprs, &contiguous_args(), SpecPolicy::Triton, o).expect_err("must not compile")
}

#[test]
fn block_over_register_budget_is_an_error() {
    let e = compile_err(RowMaxVariant::RowMax, vec![("BLOCK", 65536)], &PtxOptions::default());
    assert!(e.has_code(Code::PtxRegisterBudget), "{e}");
    assert_eq!(
        e.to_string(),
        "error[RT0802]: kernel `row_max` at tests/src/fixtures/row_max_family.rs:19: block tensor<65536xi32> needs 512 registers per thread with num_warps = 4 (the budget is 128 per value)\n  help: use a smaller block (loop over the row in blocks) or more warps"
    );
}

/// Tutorial 03 written as a broadcast product (`sum(a[:, :, None] * b[None, :, :], 1)`) at
/// 32x32x32 tiles: the refusal names the product, which needs the registers, not the
/// first value whose layout came out over the budget.
#[test]
fn the_register_budget_names_the_value_that_needs_the_most() {
    rtriton::kernel! {
        fn broadcast_matmul(a_ptr: Ptr<f32>, b_ptr: Ptr<f32>, c_ptr: Ptr<f32>; const B: usize) {
            let rows = expand_dims(arange(0, B), 1);
            let cols = expand_dims(arange(0, B), 0);
            let a = load(a_ptr + rows * B as i32 + cols, None, None);
            let b = load(b_ptr + rows * B as i32 + cols, None, None);
            let product = expand_dims(a, 2) * expand_dims(b, 0);
            store(c_ptr + rows * B as i32 + cols, sum(product, 1), None);
        }
    }
    let e = compile_plain(&broadcast_matmul(), &[("B", 32)], &PtxOptions::default()).unwrap_err();
    assert!(e.has_code(Code::PtxRegisterBudget), "{e}");
    let e = e.to_string();
    assert!(e.contains("block tensor<32x32x32xf32> needs 256 registers per thread with num_warps = 4"), "{e}");
}

#[test]
fn num_warps_without_layout_is_an_error() {
    let e = compile_err(RowMaxVariant::RowMax, vec![("BLOCK", 1024)], &options(Arch::Sm86, 3));
    assert!(e.has_code(Code::PtxUnsupported) && !e.has_code(Code::PtxRegisterBudget), "{e}");
    let e = e.to_string();
    assert!(e.starts_with("error[RT0801]: kernel `row_max` at tests/src/fixtures/row_max_family.rs:"), "{e}");
    assert!(e.contains("num_warps = 3 has no valid layout"), "{e}");
}

/// One block in two roles (`a[:, None]` and `a[None, :]`) was a layout conflict before
/// layout conversions; now the second role gets the arange recomputed in its layout, with
/// no shared memory (tests/tests/layouts.rs has the kernels that need shared memory).
#[test]
fn one_block_in_two_roles_is_converted() {
    rtriton::kernel! {
        fn outer_sum(x_ptr: Ptr<i32>; const BLOCK: usize) {
            let a = arange(0, BLOCK);
            let grid = a.expand_dims(1) + a.expand_dims(0);
            store(x_ptr + grid, grid, None);
        }
    }
    let p = compile_plain(&outer_sum(), &[("BLOCK", 16)], &PtxOptions::default()).unwrap();
    let line = include_str!("ptx_decisions.rs")
        .lines()
        .position(|l| l.contains("let grid = a.expand_dims(1) + a.expand_dims(0);"))
        .expect("the kernel's line") as u32
        + 1;
    let c = &p.decisions.conversions;
    assert_eq!(c.len(), 1, "{c:#?}");
    assert_eq!((c[0].loc.line, c[0].through_shared_memory), (line, false), "{c:#?}");
    assert!(!p.text.contains(".shared"), "{}", p.text);
}

rtriton::kernel! {
    /// `offs < n` vs `offs <= n - 1`: the same mask, but only `<` against a bound divisible
    /// by 16 is provably constant per vector (`<=` switches one element later).
    fn copy_masked(x_ptr: Ptr<f32>, y_ptr: Ptr<f32>, n: i32; const BLOCK: usize, const LE: bool) {
        let offs = program_id(0) * BLOCK as i32 + arange(0, BLOCK);
        let mask = if LE { offs.le(n) } else { offs.lt(n) };
        let x = load(x_ptr + offs, Some(mask), Some(0.0));
        store(y_ptr + offs, x, Some(mask));
    }
}

#[rstest]
#[case::lt(0, 4)]
#[case::le(1, 1)]
fn mask_constancy_follows_the_comparison(#[case] le: i64, #[case] width: u32) {
    let args = [ArgValue::Ptr(X), ArgValue::Ptr(Y), ArgValue::Int(4096)];
    let p =
        rtriton_tests::lower_def(&copy_masked(), &[("BLOCK", 1024), ("LE", le)], &args, SpecPolicy::Triton, 4).unwrap();
    let widths: Vec<u32> = p.decisions.accesses.iter().map(|d| d.vector_width).collect();
    assert_eq!(widths, vec![width, width], "{:?}", p.decisions.accesses);
}

rtriton::kernel! {
    /// A copy looping over tiles of `BLOCK`: with a carried value (`CARRY`) or with none.
    /// The induction variable is a multiple of `BLOCK` either way, so both loads are v4.
    fn tiled_copy(x_ptr: Ptr<f32>, y_ptr: Ptr<f32>, n: i32; const BLOCK: usize, const CARRY: bool) {
        let offs = arange(0, BLOCK);
        if CARRY {
            let total = for_range(0, n, BLOCK as i32, full::<f32>(&[], 0.0), |start, total| {
                let i = start + offs;
                let x = load(x_ptr + i, Some(i.lt(n)), Some(0.0));
                store(y_ptr + i, x, Some(i.lt(n)));
                total + max(x, 0)
            });
            store(y_ptr + n, total, None);
        } else {
            for_range(0, n, BLOCK as i32, (), |start, ()| {
                let i = start + offs;
                let x = load(x_ptr + i, Some(i.lt(n)), Some(0.0));
                store(y_ptr + i, x, Some(i.lt(n)));
            });
        }
    }
}

/// A loop without carried values has no results; its induction variable still gets its
/// facts (it used not to, and every access it indexed was scalar: the softmax port's
/// second pass).
#[rstest]
#[case::carried(1)]
#[case::no_carried_values(0)]
fn loop_induction_variable_keeps_its_divisibility(#[case] carry: i64) {
    let args = [ArgValue::Ptr(X), ArgValue::Ptr(Y), ArgValue::Int(4096)];
    let p = rtriton_tests::lower_def(&tiled_copy(), &[("BLOCK", 1024), ("CARRY", carry)], &args, SpecPolicy::Triton, 4)
        .unwrap();
    let widths: Vec<u32> = p.decisions.accesses.iter().map(|d| d.vector_width).collect();
    assert_eq!(&widths[..2], &[4, 4], "{:?}", p.decisions.accesses);
}

#[test]
fn unsupported_op_is_an_error_naming_the_line() {
    // (i64 reductions used to be the example; they lower now. A scan whose shared-memory
    // rounds need more than 48 KiB is still refused.)
    rtriton::kernel! {
        fn cumsum_wide(x_ptr: Ptr<f32>, y_ptr: Ptr<f32>; const BLOCK: usize) {
            let offs = arange(0, BLOCK);
            let x = load(x_ptr + offs, None, None);
            store(y_ptr + offs, cumsum(x, 0), None);
        }
    }
    let e = compile_plain(&cumsum_wide(), &[("BLOCK", 8192)], &PtxOptions::default()).unwrap_err().to_string();
    let line = include_str!("ptx_decisions.rs")
        .lines()
        .position(|l| l.contains("store(y_ptr + offs, cumsum(x, 0), None);"))
        .expect("the kernel's store line")
        + 1;
    assert_eq!(
        e,
        format!(
            "error[RT0801]: kernel `cumsum_wide` at tests/tests/ptx_decisions.rs:{line}: this scan of a tensor<8192xf32> block needs 65536 bytes of shared memory (at most 49152)\n  help: scan a smaller block (loop over the axis in blocks and carry the last value)"
        )
    );
}
