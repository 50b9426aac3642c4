//! The simulator suite: every row-max variant on the shape matrix, with specialization on
//! and off and `num_warps` in {1, 4, 8}, lowered to the thread-level program the PTX
//! writer prints and run on the SIMT simulator, must match the interpreter bit for bit
//! (and pass every simulator check: bounds, alignment, shuffles, barriers, races,
//! duplicate stores, uninitialized registers).

use rstest::rstest;
use rtriton::backend::ptx::layout::MAX_REGS_PER_VALUE;
use rtriton::interp::{self, Memory};
use rtriton::kernel;
use rtriton::prelude::*;
use rtriton::spec::SpecPolicy;
use rtriton_kernels::RowMaxVariant;
use rtriton_kernels::cases::{RowMaxCase, SHAPE_MATRIX};
use rtriton_tests::{compare_bits, prepare, run_def_on_simulator, run_on_interpreter};

const NUM_WARPS: [u32; 3] = [1, 4, 8];

/// The variants the table below lists; `every_variant_is_in_the_table` keeps it complete.
const TABLE_LEN: usize = 6;

#[test]
fn every_variant_is_in_the_table() {
    assert_eq!(RowMaxVariant::ALL.len(), TABLE_LEN, "add the new variant to the #[values] lists in this file");
}

/// The matrix the simulator runs: every case of [`SHAPE_MATRIX`] (every view kind and
/// special value), with row counts capped so the suite stays fast on CI's two cores.
/// Capping rows keeps what each program does (the columns, strides and offsets are the
/// case's own) and still runs several programs; the GPU suite runs the full shapes.
fn sim_cases() -> Vec<RowMaxCase> {
    SHAPE_MATRIX.iter().map(|c| RowMaxCase { n_rows: capped_rows(c.n_rows), ..*c }).collect()
}

/// More than 80 rows become `64 + n_rows % 16`: the same residue modulo 16, so the
/// specialization (divisibility of `n_rows`, and of the column stride of a transposed
/// view) and the partly filled last program of `row_max_2d` are those of the full case.
fn capped_rows(n_rows: usize) -> usize {
    if n_rows <= 80 { n_rows } else { 64 + n_rows % 16 }
}

#[test]
fn capping_keeps_every_view_fill_and_residue() {
    for (full, capped) in SHAPE_MATRIX.iter().zip(sim_cases()) {
        assert_eq!((full.view, full.fill, full.n_cols), (capped.view, capped.fill, capped.n_cols));
        assert_eq!(full.n_rows % 16, capped.n_rows % 16, "{}", full.name);
        assert!(capped.n_rows <= 80);
    }
}

/// Whether the lowering must refuse `variant` on `case` with `num_warps`: a single block
/// of more than `MAX_REGS_PER_VALUE * 32 * num_warps` elements is over the register
/// budget (`row_max` on 5000 columns is one block of 8192 with one warp).
fn over_register_budget(variant: RowMaxVariant, case: &RowMaxCase, num_warps: u32) -> bool {
    let numel: i64 = variant
        .constexprs_for(case.n_rows, case.n_cols)
        .iter()
        .filter(|(n, _)| n.starts_with("BLOCK"))
        .map(|(_, v)| *v)
        .product();
    numel > (MAX_REGS_PER_VALUE * 32) as i64 * i64::from(num_warps)
}

/// Runs one combination; an expected refusal by the lowering is `Ok` only when the
/// lowering does refuse, for the register budget.
fn check_one(
    def: &rtriton::trace::KernelDef,
    variant: RowMaxVariant,
    case: &RowMaxCase,
    policy: SpecPolicy,
    nw: u32,
    want: &[f32],
) -> Result<(), String> {
    let got = run_def_on_simulator(def, variant, case, policy, nw);
    if over_register_budget(variant, case, nw) {
        return match got {
            Err(e) if e.contains("registers per thread") => Ok(()),
            Err(e) => Err(format!("expected the register-budget refusal, got: {e}")),
            Ok(_) => Err("expected the lowering to refuse a block over the register budget".into()),
        };
    }
    compare_bits(&got?, want)
}

#[rstest]
fn row_max_on_the_simulator_matches_the_interpreter(
    #[values(
        RowMaxVariant::RowMax,
        RowMaxVariant::RowMaxLoop,
        RowMaxVariant::RowMax2d,
        RowMaxVariant::SkillPort,
        RowMaxVariant::FixedPort,
        RowMaxVariant::RowMaxI32
    )]
    variant: RowMaxVariant,
    #[values(SpecPolicy::Triton, SpecPolicy::Off)] policy: SpecPolicy,
) {
    let def = variant.def();
    let mut failures = Vec::new();
    for case in sim_cases() {
        let want = match run_on_interpreter(variant, &case, policy) {
            Ok(w) => w,
            Err(e) => {
                failures.push(format!("{case}: interpreter: {e}"));
                continue;
            }
        };
        for nw in NUM_WARPS {
            let outcome = check_one(&def, variant, &case, policy, nw, &want);
            if let Err(e) = outcome {
                failures.push(format!("{case}, num_warps = {nw}:\n{e}"));
            }
        }
    }
    assert!(failures.is_empty(), "{} under {policy:?} failed:\n{}", variant.name(), failures.join("\n\n"));
}

kernel! {
    /// `row_max` with a NaN-propagating reduction (`max.NaN.f32` in the shuffles).
    fn row_max_nan(x_ptr: Ptr<f32>, y_ptr: Ptr<f32>, n_rows: i32, n_cols: i32, stride_row: i32, stride_col: i32;
                   const BLOCK: usize) {
        let row = program_id(0).to::<i64>();
        let cols = arange(0, BLOCK);
        let x = load(x_ptr + row * stride_row + cols.to::<i64>() * stride_col, Some(cols.lt(n_cols)), Some(f32::NEG_INFINITY));
        store(y_ptr + row, max_with(x, 0, PropagateNan::All), None);
    }
}

kernel! {
    /// `row_max_loop` with a NaN-propagating running maximum and reduction.
    fn row_max_loop_nan(x_ptr: Ptr<f32>, y_ptr: Ptr<f32>, n_rows: i32, n_cols: i32, stride_row: i32, stride_col: i32;
                        const BLOCK: usize) {
        let row = program_id(0).to::<i64>();
        let cols = arange(0, BLOCK);
        let acc = full::<f32>(&[BLOCK], f32::NEG_INFINITY);
        let acc = for_range(0, n_cols, BLOCK as i32, acc, |start, acc| {
            let c = start + cols;
            let x = load(x_ptr + row * stride_row + c.to::<i64>() * stride_col, Some(c.lt(n_cols)), Some(f32::NEG_INFINITY));
            maximum_with(acc, x, PropagateNan::All)
        });
        store(y_ptr + row, max_with(acc, 0, PropagateNan::All), None);
    }
}

#[rstest]
#[case::single_block(row_max_nan(), RowMaxVariant::RowMax)]
#[case::looping(row_max_loop_nan(), RowMaxVariant::RowMaxLoop)]
fn nan_propagating_max_on_the_simulator_matches_the_interpreter(
    #[case] def: rtriton::trace::KernelDef,
    #[case] shaped_like: RowMaxVariant,
    #[values(SpecPolicy::Triton, SpecPolicy::Off)] policy: SpecPolicy,
) {
    let mut failures = Vec::new();
    for case in sim_cases() {
        let mut mem = Memory::new();
        let launch = prepare(&mut mem, shaped_like, &case);
        let want = interp::run_def(&def, &launch.constexprs, &launch.args, policy, launch.grid, &mut mem)
            .map_err(|e| e.to_string())
            .and_then(|()| mem.read_f32(launch.y, case.n_rows).map_err(|e| e.to_string()));
        let want = match want {
            Ok(w) => w,
            Err(e) => {
                failures.push(format!("{case}: interpreter: {e}"));
                continue;
            }
        };
        for nw in NUM_WARPS {
            let outcome = check_one(&def, shaped_like, &case, policy, nw, &want);
            if let Err(e) = outcome {
                failures.push(format!("{case}, num_warps = {nw}:\n{e}"));
            }
        }
    }
    assert!(failures.is_empty(), "{}:\n{}", def.name, failures.join("\n\n"));
}
