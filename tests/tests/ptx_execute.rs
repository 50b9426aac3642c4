//! The lowered `lir` of every row-max variant, run CTA by CTA in lock step (a test-side
//! reference evaluator in `ptx_common`) over the shared shape matrix, against
//! `cpu_row_max`. Checks the numerics of layouts, vector loads, masks, shuffles, shared
//! memory and loops without a GPU.

mod ptx_common;

use std::collections::HashMap;

use ptx_common::{Cta, Memory, lower, options};
use rstest::rstest;
use rtriton::backend::ptx::Arch;
use rtriton::prelude::*;
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
            // One block covering a 5000-wide row (BLOCK 8192) is over the register budget
            // with 1 warp: the back end refuses it (tested in ptx_decisions), nothing to run.
            Err(e) if e.to_string().contains("registers per thread") && num_warps == 1 => continue,
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
                    got.to_bits() == want[r].to_bits(),
                    "{} {case} {policy:?} num_warps={num_warps}: row {r}: got {got}, want {}",
                    v.name(),
                    want[r]
                );
            }
        }
    }
}

rtriton::kernel! {
    /// y[i] = x[i] + 1 over n elements: vector loads and vector stores, masked tail.
    fn add_one(x_ptr: Ptr<f32>, y_ptr: Ptr<f32>, n: i32; const BLOCK: usize) {
        let offs = program_id(0) * BLOCK as i32 + arange(0, BLOCK);
        let mask = offs.lt(n);
        let x = load(x_ptr + offs, Some(mask), Some(0.0));
        store(y_ptr + offs, x + 1.0, Some(mask));
    }
}

/// Vector stores write each element once and nothing past `n`; replicated layouts
/// (BLOCK 16 on 128 threads) store once per element too; there, as in Triton's
/// coalescing rule, each thread gets one element, so accesses are scalar.
#[rstest]
#[case::vector_4096(4096, 1024, 4)]
#[case::tail_1000(1000, 256, 1)]
#[case::block_smaller_than_cta(48, 16, 1)]
fn add_one_stores_every_element_once(#[case] n: i64, #[case] block: i64, #[case] want_width: u32) {
    let def = add_one();
    let args = [ArgValue::Ptr(X), ArgValue::Ptr(Y), ArgValue::Int(n)];
    let (k, info) = rtriton::pipeline::specialize_and_trace(
        &def,
        &[("BLOCK", block)],
        &args,
        SpecPolicy::Triton,
        &rtriton::trace::TraceOptions::default(),
    )
    .unwrap();
    let program = rtriton::backend::ptx::lower(&k, &info, &options(Arch::Sm86, 4)).unwrap();
    let widths: Vec<u32> = program.decisions.accesses.iter().map(|d| d.vector_width).collect();
    assert_eq!(widths, vec![want_width, want_width], "{:?}", program.decisions.accesses);
    let grid = (n as u64).div_ceil(block as u64) as u32;
    let mut mem: Memory = HashMap::new();
    // Both buffers padded to whole blocks; y's padding must stay untouched.
    for i in 0..u64::from(grid) * block as u64 {
        mem.insert(X + i * 4, (i as f32).to_bits());
        mem.insert(Y + i * 4, (-7.0f32).to_bits());
    }
    for cta in 0..grid {
        Cta::run(&program, &[X, Y, n as u64], cta, grid, &mut mem);
    }
    for i in 0..u64::from(grid) * block as u64 {
        let got = f32::from_bits(mem[&(Y + i * 4)]);
        let want = if i < n as u64 { i as f32 + 1.0 } else { -7.0 };
        assert_eq!(got, want, "element {i}");
    }
}

rtriton::kernel! {
    /// The index of the first maximum of each row (NaN ignored).
    fn row_argmax(x_ptr: Ptr<f32>, y_ptr: Ptr<i32>, n_cols: i32; const BLOCK: usize) {
        let row = program_id(0);
        let cols = arange(0, BLOCK);
        let x = load(x_ptr + row * n_cols + cols, Some(cols.lt(n_cols)), Some(f32::NEG_INFINITY));
        store(y_ptr + row, argmax(x, 0), None);
    }
}

/// The IR's argmax over a block: the first maximum, NaN losing to every number.
fn cpu_argmax(block: &[f32]) -> i32 {
    let mut best = 0;
    for (i, &v) in block.iter().enumerate() {
        let b = block[best];
        if (b.is_nan() && !v.is_nan()) || v > b {
            best = i;
        }
    }
    best as i32
}

#[rstest]
fn argmax_matches_cpu(#[values(16, 256, 1024)] block: i64, #[values(1, 4, 8)] num_warps: u32) {
    let n_cols = (block - 3).max(1) as usize;
    let rows: Vec<Vec<f32>> = vec![
        (0..n_cols).map(|c| ((c * 37) % 101) as f32).collect(), // ties: first max wins
        vec![f32::NEG_INFINITY; n_cols],
        (0..n_cols).map(|c| if c % 2 == 0 { f32::NAN } else { -(c as f32) }).collect(),
        vec![f32::NAN; n_cols],
        (0..n_cols).map(|c| if c == n_cols - 1 { 5.0 } else { 1.0 }).collect(),
    ];
    let def = row_argmax();
    let args = [ArgValue::Ptr(X), ArgValue::Ptr(Y), ArgValue::Int(n_cols as i64)];
    let (k, info) = rtriton::pipeline::specialize_and_trace(
        &def,
        &[("BLOCK", block)],
        &args,
        SpecPolicy::Triton,
        &rtriton::trace::TraceOptions::default(),
    )
    .unwrap();
    let program = rtriton::backend::ptx::lower(&k, &info, &options(Arch::Sm86, num_warps)).unwrap();
    let mut mem: Memory = HashMap::new();
    for (r, row) in rows.iter().enumerate() {
        for (c, x) in row.iter().enumerate() {
            mem.insert(X + ((r * n_cols + c) * 4) as u64, x.to_bits());
        }
        mem.insert(Y + r as u64 * 4, 0xdead_beef);
    }
    for cta in 0..rows.len() as u32 {
        Cta::run(&program, &[X, Y, n_cols as u64], cta, rows.len() as u32, &mut mem);
    }
    for (r, row) in rows.iter().enumerate() {
        let mut padded = row.clone();
        padded.resize(block as usize, f32::NEG_INFINITY);
        assert_eq!(mem[&(Y + r as u64 * 4)] as i32, cpu_argmax(&padded), "row {r}");
    }
}

rtriton::kernel! {
    /// Counts the iterations of `for_range(lo, hi, step)`: the trip count is exact, so
    /// bounds near the ends of i32 neither wrap nor loop forever.
    fn count_iterations(y_ptr: Ptr<i32>, lo: i32, hi: i32, step: i32) {
        let zero = full::<i32>(&[], 0);
        let n = for_range(lo, hi, step, zero, |_, n| n + 1);
        store(y_ptr, n, None);
    }
}

#[rstest]
#[case::plain(0, 10, 3, 4)]
#[case::exact_multiple(0, 12, 3, 4)]
#[case::empty(5, 5, 1, 0)]
#[case::reversed(10, 0, 1, 0)]
#[case::near_i32_max(i32::MAX - 5, i32::MAX, 4, 2)]
#[case::whole_i32_range(i32::MIN, i32::MAX, 1 << 30, 4)]
fn loop_trip_count_is_exact(#[case] lo: i32, #[case] hi: i32, #[case] step: i32, #[case] want: i32) {
    let def = count_iterations();
    let args = [ArgValue::Ptr(Y), ArgValue::Int(lo.into()), ArgValue::Int(hi.into()), ArgValue::Int(step.into())];
    let (k, info) = rtriton::pipeline::specialize_and_trace(
        &def,
        &[],
        &args,
        SpecPolicy::Off,
        &rtriton::trace::TraceOptions::default(),
    )
    .unwrap();
    let program = rtriton::backend::ptx::lower(&k, &info, &options(Arch::Sm86, 1)).unwrap();
    let mut mem: Memory = HashMap::from([(Y, 0xdead_beef)]);
    let bits = [Y, lo as u32 as u64, hi as u32 as u64, step as u32 as u64];
    Cta::run(&program, &bits, 0, 1, &mut mem);
    assert_eq!(mem[&Y] as i32, want);
    let text = rtriton::backend::ptx::write(&program);
    assert!(text.contains("trap;"), "a runtime step is checked");
    if let Some(ptxas) = ptx_common::ptxas_or_skip("loop_trip_count_is_exact") {
        ptx_common::assemble(&ptxas, &text, "sm_86", "count_iterations").unwrap_or_else(|e| panic!("{e}\n{text}"));
    }
}

rtriton::kernel! {
    /// Every comparison between masks, packed into one int per element.
    fn mask_compare(y_ptr: Ptr<i32>; const BLOCK: usize) {
        let i = arange(0, BLOCK);
        let a = (i & 1).eq(1);
        let b = (i & 2).eq(2);
        let r = a.lt(b).to::<i32>()
            + a.le(b).to::<i32>() * 2
            + a.gt(b).to::<i32>() * 4
            + a.ge(b).to::<i32>() * 8
            + a.eq(b).to::<i32>() * 16
            + a.ne(b).to::<i32>() * 32;
        store(y_ptr + i, r, None);
    }
}

#[test]
fn masks_compare_as_zero_and_one() {
    let def = mask_compare();
    let (k, info) = rtriton::pipeline::specialize_and_trace(
        &def,
        &[("BLOCK", 4)],
        &[ArgValue::Ptr(Y)],
        SpecPolicy::Triton,
        &rtriton::trace::TraceOptions::default(),
    )
    .unwrap();
    let program = rtriton::backend::ptx::lower(&k, &info, &options(Arch::Sm86, 1)).unwrap();
    let mut mem: Memory = (0..4).map(|i| (Y + i * 4, 0)).collect();
    Cta::run(&program, &[Y], 0, 1, &mut mem);
    for i in 0..4u64 {
        let (a, b) = (i & 1 == 1, i & 2 == 2);
        let want = i32::from(!a & b)
            + i32::from(a <= b) * 2
            + i32::from(a & !b) * 4
            + i32::from(a >= b) * 8
            + i32::from(a == b) * 16
            + i32::from(a != b) * 32;
        assert_eq!(mem[&(Y + i * 4)] as i32, want, "element {i}");
    }
    if let Some(ptxas) = ptx_common::ptxas_or_skip("masks_compare_as_zero_and_one") {
        let text = rtriton::backend::ptx::write(&program);
        ptx_common::assemble(&ptxas, &text, "sm_86", "mask_compare").unwrap_or_else(|e| panic!("{e}\n{text}"));
    }
}
