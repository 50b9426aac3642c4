//! The lowered `lir` of every row-max variant, run CTA by CTA in lock step (a test-side
//! reference evaluator in `ptx_common`) over the shared shape matrix, against
//! `cpu_row_max`. Checks the numerics of layouts, vector loads, masks, shuffles, shared
//! memory and loops without a GPU.

mod ptx_common;

use std::collections::HashMap;

use ptx_common::{Cta, Memory, lower, options};
use rstest::rstest;
use rtriton::backend::ptx::Arch;
use rtriton::spec::{ArgValue, SpecPolicy};
use rtriton_kernels::cases::SHAPE_MATRIX;
use rtriton_kernels::{RowMaxVariant, cpu_row_max};

const X: u64 = 0x1000_0000;
const Y: u64 = 0x8000_0000;

#[rstest]
fn lowered_row_max_matches_cpu(
    #[values(
        RowMaxVariant::RowMax,
        RowMaxVariant::RowMaxLoop,
        RowMaxVariant::RowMax2d,
        RowMaxVariant::SkillPort,
        RowMaxVariant::FixedPort,
        RowMaxVariant::RowMaxI32
    )]
    v: RowMaxVariant,
    #[values(SpecPolicy::Triton, SpecPolicy::Off)] policy: SpecPolicy,
    #[values(1, 4)] num_warps: u32,
) {
    for case in SHAPE_MATRIX {
        let l = case.layout();
        let input = case.input();
        let x_base = X + l.offset as u64 * 4;
        let args = [
            ArgValue::Ptr(x_base),
            ArgValue::Ptr(Y),
            ArgValue::Int(case.n_rows as i64),
            ArgValue::Int(case.n_cols as i64),
            ArgValue::Int(l.stride_row as i64),
            ArgValue::Int(l.stride_col as i64),
        ];
        let c = v.constexprs_for(case.n_rows, case.n_cols);
        let program = match lower(v, &args, policy, Some(c.clone()), &options(Arch::Sm86, num_warps)) {
            Ok(p) => p,
            Err(e) if e.to_string().contains("registers per thread") => continue,
            Err(e) => panic!("{}: {e}", case.name),
        };
        let mut mem: Memory = HashMap::new();
        for (i, x) in input.iter().enumerate() {
            mem.insert(X + i as u64 * 4, x.to_bits());
        }
        for r in 0..case.n_rows {
            mem.insert(Y + r as u64 * 4, 12345.678f32.to_bits());
        }
        let bits = [x_base, Y, case.n_rows as u64, case.n_cols as u64, l.stride_row as u64, l.stride_col as u64];
        let grid = v.grid(case.n_rows, &c) as u32;
        // Long grids: the first and last few CTAs (every CTA runs the same code).
        let ctas: Vec<u32> = if grid <= 8 { (0..grid).collect() } else { vec![0, 1, 2, grid / 2, grid - 2, grid - 1] };
        let rows_per_cta = case.n_rows.div_ceil(grid as usize);
        for &cta in &ctas {
            Cta::run(&program, &bits, cta, grid, &mut mem);
        }
        let want = cpu_row_max(
            &input,
            l.offset,
            case.n_rows,
            case.n_cols,
            l.stride_row as isize,
            l.stride_col as isize,
            false,
        );
        for &cta in &ctas {
            for r in (cta as usize * rows_per_cta)..((cta as usize + 1) * rows_per_cta).min(case.n_rows) {
                let got = f32::from_bits(mem[&(Y + r as u64 * 4)]);
                assert!(
                    got == want[r] || (got.is_nan() && want[r].is_nan()),
                    "{} {case} {policy:?} num_warps={num_warps}: row {r}: got {got}, want {}",
                    v.name(),
                    want[r]
                );
            }
        }
    }
}
