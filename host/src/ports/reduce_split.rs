//! The split column reductions (`rtriton_kernels::ports::reduce_plan`): a partials kernel,
//! a combine kernel and the one-launch kernel doing both per column `sum`, `max`, `min`,
//! `argmax`, `argmin` and dtype, each with its own suite, and the first two chained (the
//! partials one back end wrote, fed to the combine on the same back end) against the
//! direct reduction's reference.
//!
//! Cases: few columns and many rows, masked tails along both dimensions, the 2-D views of
//! `rtriton_testing::table::views_2d` (transposed, padded, reversed, offset, broadcast),
//! ties across chunks, signed zeros, one special value per column, columns whose first
//! chunks are all NaN next to chunks whose extremum is an infinity, columns of only NaN,
//! a strided output, and a shape the plan itself splits on an H200.
//!
//! References: a partial is the chunk's reduction (the same f64 rules as the direct
//! reference; an arg reduction's is the chunk's best value, a zero as `+0.0`, and the
//! first row holding it, or the start value and row `i32::MAX` for a chunk of only NaN), a
//! combine reduces the partials (of equal values the lower row). Rules: the
//! direct kernel's (`Kernel::rule`), partial sums under the `f32` rule as they are `f32`.

use rtriton_kernels::ports::reduce::{self as kernels, Direction};
use rtriton_kernels::ports::reduce_plan::{ColPlan, NOMINAL_SM_COUNT, SplitPlan, col_plan};
use rtriton_testing::table::views_2d;
use rtriton_testing::{Backend, Case, Rule, Suite, View};

use super::chain::{buffer, run_on};
use super::dtype::Dtype;
use super::reduce::{
    Fill, Kernel, Op, SUM_RULE_F32, case as direct_case, max_ignoring_nan, min_ignoring_nan, reference, rule_for_depth,
};

/// The row an arg partial holds where its chunk has no candidate (every value NaN).
const NOT_FOUND: i32 = i32::MAX;

/// The accumulator type of `dtype`: what partials are stored in.
pub fn acc_dtype(dtype: Dtype) -> Dtype {
    match dtype {
        Dtype::F32 | Dtype::F16 | Dtype::BF16 => Dtype::F32,
        Dtype::I32 => Dtype::I32,
    }
}

/// Bytes per element of `dtype`.
pub fn elem_bytes(dtype: Dtype) -> usize {
    match dtype {
        Dtype::F32 | Dtype::I32 => 4,
        Dtype::F16 | Dtype::BF16 => 2,
    }
}

/// The (partials, combine) kernels of a column reduction.
pub fn defs(kernel: Kernel) -> (rtriton::trace::KernelDef, rtriton::trace::KernelDef) {
    let (op, dtype) = (kernel.op.name(), kernel.dtype.name());
    let name = format!("col_{op}_partials_{dtype}");
    // Every (op, dtype) has both: `every_split_kernel_exists` checks the table.
    kernels::all_split()
        .into_iter()
        .find(|(p, _)| p.name == name)
        .unwrap_or_else(|| panic!("no split reduction kernel `{name}`"))
}

/// The one-launch kernel of a split column reduction (`col_{op}_fused_{dtype}`).
pub fn fused_def(kernel: Kernel) -> rtriton::trace::KernelDef {
    let name = format!("col_{}_fused_{}", kernel.op.name(), kernel.dtype.name());
    // Every (op, dtype) has one: `every_split_kernel_exists` checks the table.
    kernels::all_fused()
        .into_iter()
        .find(|d| d.name == name)
        .unwrap_or_else(|| panic!("no one-launch split reduction kernel `{name}`"))
}

/// The rule of the partials suite: a float sum's partials are `f32` sums.
fn partials_rule(kernel: Kernel) -> Rule {
    match (kernel.op, kernel.dtype) {
        (Op::Sum, Dtype::F32 | Dtype::F16 | Dtype::BF16) => SUM_RULE_F32,
        _ => kernel.rule(),
    }
}

/// The partials suite of column reduction `kernel` (module doc).
pub fn partials_suite(kernel: Kernel) -> Suite {
    let cases = split_table(kernel).into_iter().map(|row| partials_case(kernel, &row));
    Suite::new(defs(kernel).0)
        .cases(cases)
        .reference(move |case| partials_reference(kernel, case))
        .rule(partials_rule(kernel))
}

/// The combine suite: each case's partials are the partials reference of a row of the
/// table.
pub fn combine_suite(kernel: Kernel) -> Suite {
    let cases = split_table(kernel).into_iter().map(|row| {
        let mut partials = partials_case(kernel, &row);
        partials_reference(kernel, &mut partials);
        combine_case(kernel, &row.name, &partials, row.plan, row.y_stride)
    });
    Suite::new(defs(kernel).1).cases(cases).reference(move |case| combine_reference(kernel, case)).rule(kernel.rule())
}

/// The one-launch suite: every row of the table as one launch, its partials, its results
/// and its counters (zero before and after) checked; one rule for all, the direct
/// kernel's (looser than the partials' own for 16-bit sums, which `partials_suite`
/// checks under the `f32` rule).
pub fn fused_suite(kernel: Kernel) -> Suite {
    let cases = split_table(kernel).into_iter().map(|row| fused_case(kernel, &row));
    Suite::new(fused_def(kernel)).cases(cases).reference(move |case| fused_reference(kernel, case)).rule(kernel.rule())
}

/// The partials, combine and one-launch kernels of every column reduction, in the order
/// of [`suites`].
pub fn kernels() -> Vec<rtriton::trace::KernelDef> {
    Kernel::all()
        .into_iter()
        .filter(|k| k.direction == Direction::Cols)
        .flat_map(|k| {
            let (partials, combine) = defs(k);
            [partials, combine, fused_def(k)]
        })
        .collect()
}

/// The partials, combine and one-launch suites of every column reduction.
pub fn suites() -> Vec<Suite> {
    Kernel::all()
        .into_iter()
        .filter(|k| k.direction == Direction::Cols)
        .flat_map(|k| [partials_suite(k), combine_suite(k), fused_suite(k)])
        .collect()
}

/// One row of the split case table: the input and how it is split.
#[derive(Clone, Debug)]
pub struct SplitRow {
    pub name: String,
    pub view: View,
    pub fill: Fill,
    pub plan: SplitPlan,
    pub y_stride: usize,
}

/// The split cases of `kernel` (module doc).
pub fn split_table(kernel: Kernel) -> Vec<SplitRow> {
    let float_sum = kernel.dtype != Dtype::I32 && kernel.op == Op::Sum;
    let row = |name: &str, view: View, fill, blocks, rows_per_split, y_stride| {
        let plan = SplitPlan::new(blocks, rows_per_split, view.shape[0], view.shape[1], NOMINAL_SM_COUNT);
        SplitRow { name: name.to_string(), view, fill, plan, y_stride }
    };
    let contiguous = |r: usize, c: usize| View::contiguous(&[r, c]);
    let mut rows = vec![
        row("1000x3", contiguous(1000, 3), Fill::Ordinary, (16, 4), 64, 1),
        row("777x45_masked_tails", contiguous(777, 45), Fill::Ordinary, (8, 16), 24, 1),
        row("ties", contiguous(300, 70), Fill::Ties, (4, 32), 8, 1),
        row("signed_zeros", contiguous(100, 33), Fill::SignedZeros, (8, 8), 16, 1),
        row("one_special_per_line", contiguous(96, 29), Fill::OneSpecial, (8, 16), 16, 3),
        row("nan_head", contiguous(130, 12), Fill::NanHead, (8, 16), 16, 1),
        row("all_nan", contiguous(40, 9), Fill::AllNan, (8, 16), 8, 1),
    ];
    if !float_sum {
        rows.push(row("specials", contiguous(58, 31), Fill::Specials, (8, 16), 16, 1));
    }
    for (name, view) in views_2d(37, 45) {
        rows.push(row(&format!("view_{name}"), view, Fill::Ordinary, (8, 16), 8, 1));
    }
    // Chunks of 5 and 7 tiles walked 2 and 4 tiles a trip: the unrolled main loop, its
    // remainder, and a last chunk shorter than one trip. Value reductions only: arg
    // reductions walk a tile a trip (`SplitPlan::unroll_of`).
    let unrolled = if kernel.op.is_index() { &[][..] } else { &[(2, 40), (4, 56)][..] };
    for &(unroll, rows_per_split) in unrolled {
        let mut r = row(&format!("unroll_{unroll}"), contiguous(203, 45), Fill::Ordinary, (8, 16), rows_per_split, 1);
        r.plan.unroll = unroll;
        rows.push(r);
    }
    // A shape the plan splits on an H200: its own tiles, chunks and combine tiles.
    let (n_rows, n_cols) = (1030, 70);
    let ColPlan::Split(plan) = col_plan(elem_bytes(kernel.dtype), n_rows, n_cols, NOMINAL_SM_COUNT) else {
        panic!("the plan does not split {n_rows}x{n_cols}")
    };
    rows.push(SplitRow {
        name: "planned_1030x70".into(),
        view: contiguous(n_rows, n_cols),
        fill: Fill::Ordinary,
        plan,
        y_stride: 1,
    });
    rows
}

/// The direct case of `row`: the same input and output, the reference's view of it.
pub fn direct_case_of(kernel: Kernel, row: &SplitRow) -> Case {
    direct_case(kernel, &row.name, row.view.clone(), row.fill, row.y_stride, None)
}

/// The partials launch of `row`: `x` as the direct case has it, the partials `part`
/// (and `part_index`) contiguous `[split, n_cols]` buffers of poison.
pub fn partials_case(kernel: Kernel, row: &SplitRow) -> Case {
    let x = direct_case_of(kernel, row).tensor("x").clone();
    let (n_rows, n_cols) = (x.view.shape[0], x.view.shape[1]);
    let plan = row.plan;
    let part_view = View::contiguous(&[plan.split, n_cols]);
    let mut case = Case::new(row.name.clone()).input("x", x.data, x.view.clone()).output(
        "part",
        acc_dtype(kernel.dtype).poisoned(&part_view),
        part_view.clone(),
    );
    if kernel.op.is_index() {
        case = case.output("part_index", Dtype::I32.poisoned(&part_view), part_view);
    }
    case.int(n_rows as i64)
        .int(n_cols as i64)
        .int(x.view.strides[0] as i64)
        .int(x.view.strides[1] as i64)
        .int(plan.rows_per_split as i64)
        .constexpr("BLOCK_M", plan.blocks.0 as i64)
        .constexpr("BLOCK_N", plan.blocks.1 as i64)
        .constexpr("UNROLL", plan.unroll_of(kernel.op.is_index()) as i64)
        .grid(plan.partials_grid(n_cols))
}

/// The combine launch named `name` over the partials `partials` holds (their outputs as
/// its inputs), the results into a poisoned `y` at stride `y_stride`.
pub fn combine_case(kernel: Kernel, name: &str, partials: &Case, plan: SplitPlan, y_stride: usize) -> Case {
    let part = partials.tensor("part");
    let (split, n_cols) = (part.view.shape[0], part.view.shape[1]);
    let y_view = View::strided(&[n_cols], &[y_stride as isize]);
    let y_dtype = if kernel.op.is_index() { Dtype::I32 } else { kernel.dtype };
    let mut case = Case::new(name).input("part", part.data.clone(), part.view.clone());
    if kernel.op.is_index() {
        let index = partials.tensor("part_index");
        case = case.input("part_index", index.data.clone(), index.view.clone());
    }
    case.output("y", y_dtype.poisoned(&y_view), y_view)
        .int(split as i64)
        .int(n_cols as i64)
        .int(y_stride as i64)
        .constexpr("BLOCK_M", plan.combine_blocks.0 as i64)
        .constexpr("BLOCK_N", plan.combine_blocks.1 as i64)
        .grid(plan.combine_grid(n_cols))
}

/// The one-launch case of `row`: the partials case's `x` and scratch, the results into a
/// poisoned `y` at stride `y_stride`, and a counter per column block, zero (the kernel
/// leaves it zero); the partials' grid; the last chunk's combine in tiles of
/// `SplitPlan::fused_combine_block_m` partial rows.
pub fn fused_case(kernel: Kernel, row: &SplitRow) -> Case {
    let partials = partials_case(kernel, row);
    let x = partials.tensor("x");
    let (n_rows, n_cols) = (x.view.shape[0], x.view.shape[1]);
    let plan = row.plan;
    let y_view = View::strided(&[n_cols], &[row.y_stride as isize]);
    let y_dtype = if kernel.op.is_index() { Dtype::I32 } else { kernel.dtype };
    let counter_view = View::contiguous(&[n_cols.div_ceil(plan.blocks.1)]);
    let part = partials.tensor("part");
    let mut case = Case::new(row.name.clone()).input("x", x.data.clone(), x.view.clone()).output(
        "part",
        part.data.clone(),
        part.view.clone(),
    );
    if kernel.op.is_index() {
        let index = partials.tensor("part_index");
        case = case.output("part_index", index.data.clone(), index.view.clone());
    }
    case.output("y", y_dtype.poisoned(&y_view), y_view)
        .output("counter", vec![0i32; counter_view.min_buffer_len()], counter_view)
        .int(n_rows as i64)
        .int(n_cols as i64)
        .int(x.view.strides[0] as i64)
        .int(x.view.strides[1] as i64)
        .int(row.y_stride as i64)
        .int(plan.rows_per_split as i64)
        .constexpr("BLOCK_M", plan.blocks.0 as i64)
        .constexpr("BLOCK_N", plan.blocks.1 as i64)
        .constexpr("COMBINE_BLOCK_M", plan.fused_combine_block_m() as i64)
        .constexpr("UNROLL", plan.unroll_of(kernel.op.is_index()) as i64)
        .grid(plan.partials_grid(n_cols))
}

/// The one launch's outputs: the partials ([`partials_reference`]), `y` the combination
/// of those partials ([`combine_reference`]), every counter back to zero.
pub fn fused_reference(kernel: Kernel, case: &mut Case) {
    partials_reference(kernel, case);
    combine_reference(kernel, case);
    let counters = case.tensor("counter").view.shape[0];
    for b in 0..counters {
        case.tensor_mut("counter").set_i32(&[b], 0);
    }
}

/// The `rows_per_split` a partials case was built with (its last argument).
fn rows_per_split(case: &Case) -> usize {
    match case.args.last() {
        Some(rtriton_testing::CaseArg::Int(v)) => *v as usize,
        other => panic!("a partials case ends with rows_per_split, not {other:?}"),
    }
}

/// `max`'s and `min`'s start, `argmax`'s and `argmin`'s start value, in f64.
fn extremes(dtype: Dtype) -> (f64, f64) {
    match dtype {
        Dtype::I32 => (f64::from(i32::MIN), f64::from(i32::MAX)),
        Dtype::F32 | Dtype::F16 | Dtype::BF16 => (f64::NEG_INFINITY, f64::INFINITY),
    }
}

/// Whether `a` beats `b` for an arg reduction (false when either is NaN).
fn better(op: Op, a: f64, b: f64) -> bool {
    match op {
        Op::ArgMax => a > b,
        Op::ArgMin => a < b,
        Op::Sum | Op::Max | Op::Min => unreachable!("not an arg reduction"),
    }
}

/// Of (value, row) candidates in order, the best value and of equal ones the lowest row,
/// starting from (the op's start value, `NOT_FOUND`); NaN values are never taken.
fn best_of(op: Op, dtype: Dtype, candidates: impl Iterator<Item = (f64, i32)>) -> (f64, i32) {
    let (lowest, highest) = extremes(dtype);
    let start = if op == Op::ArgMax { lowest } else { highest };
    candidates.fold(
        (start, NOT_FOUND),
        |(bv, bi), (v, i)| {
            if better(op, v, bv) || (v == bv && i < bi) { (v, i) } else { (bv, bi) }
        },
    )
}

/// A line's `sum`, `max` or `min` in f64, as the direct reference folds it (`i32` sums
/// wrap).
fn fold_values(op: Op, dtype: Dtype, values: &[f64]) -> f64 {
    let (lowest, highest) = extremes(dtype);
    match op {
        Op::Sum if dtype == Dtype::I32 => f64::from(values.iter().fold(0i32, |a, &v| a.wrapping_add(v as i32))),
        Op::Sum => values.iter().sum(),
        Op::Max => values.iter().fold(lowest, |a, &b| max_ignoring_nan(a, b)),
        Op::Min => values.iter().fold(highest, |a, &b| min_ignoring_nan(a, b)),
        Op::ArgMax | Op::ArgMin => unreachable!("not a value reduction"),
    }
}

/// Writes each chunk's partial of each column into `part` (and `part_index`).
pub fn partials_reference(kernel: Kernel, case: &mut Case) {
    let x = case.tensor("x").clone();
    let (n_rows, n_cols) = (x.view.shape[0], x.view.shape[1]);
    let rows = rows_per_split(case);
    let split = case.tensor("part").view.shape[0];
    for s in 0..split {
        let chunk = s * rows..((s + 1) * rows).min(n_rows);
        for c in 0..n_cols {
            let values: Vec<f64> = chunk.clone().map(|r| x.f64_at(&[r, c])).collect();
            if kernel.op.is_index() {
                // The chunk's best value (a zero as `+0.0`: `x + 0.0`), and the first row
                // holding it.
                let (v, i) =
                    best_of(kernel.op, kernel.dtype, values.iter().zip(chunk.clone()).map(|(&v, r)| (v, r as i32)));
                case.tensor_mut("part").set_f64(&[s, c], v + 0.0);
                case.tensor_mut("part_index").set_i32(&[s, c], i);
            } else {
                case.tensor_mut("part").set_f64(&[s, c], fold_values(kernel.op, kernel.dtype, &values));
            }
        }
    }
}

/// Writes each column's combination of its partials into `y`.
pub fn combine_reference(kernel: Kernel, case: &mut Case) {
    let part = case.tensor("part").clone();
    let (split, n_cols) = (part.view.shape[0], part.view.shape[1]);
    for c in 0..n_cols {
        let values: Vec<f64> = (0..split).map(|s| part.f64_at(&[s, c])).collect();
        if kernel.op.is_index() {
            let index = case.tensor("part_index").clone();
            let rows = (0..split).map(|s| index.at::<i32>(&[s, c]));
            let (_, i) = best_of(kernel.op, kernel.dtype, values.iter().copied().zip(rows));
            case.tensor_mut("y").set_i32(&[c], if i == NOT_FOUND { 0 } else { i });
        } else {
            case.tensor_mut("y").set_f64(&[c], fold_values(kernel.op, kernel.dtype, &values));
        }
    }
}

/// The two launches of `row` chained on `backend` (the combine reads the partials the
/// partials kernel wrote there), compared with the direct reduction's reference under
/// the direct kernel's rule; `Err` describes the first difference.
pub fn check_chain(kernel: Kernel, row: &SplitRow, backend: Backend) -> Result<(), String> {
    let (partials_def, combine_def) = defs(kernel);
    let mut partials = partials_case(kernel, row);
    let wrote = run_on(&partials_def, &partials, backend).map_err(|e| format!("{}: {e}", partials_def.name))?;
    partials.tensor_mut("part").data = buffer(&wrote, "part");
    if kernel.op.is_index() {
        partials.tensor_mut("part_index").data = buffer(&wrote, "part_index");
    }
    let combine = combine_case(kernel, &row.name, &partials, row.plan, row.y_stride);
    let got = run_on(&combine_def, &combine, backend).map_err(|e| format!("{}: {e}", combine_def.name))?;
    let mut want = direct_case_of(kernel, row);
    reference(kernel, &mut want);
    let (shown, total) =
        rtriton_testing::compare::differences(&buffer(&got, "y"), &want.tensor("y").data, &kernel.rule(), 1);
    match shown.first() {
        None => Ok(()),
        Some(d) => Err(format!(
            "{} case `{}` chained on {backend:?}: {total} results differ ({}), first at {}: got {}, expected {}",
            kernel.name(),
            row.name,
            kernel.rule(),
            d.element,
            d.got,
            d.want
        )),
    }
}

/// Every row of every column reduction's split table chained on `backend`; `Err` lists
/// every failure.
pub fn check_every_chain(backend: Backend) -> Result<usize, String> {
    let mut failures = Vec::new();
    let mut checked = 0;
    for kernel in Kernel::all().into_iter().filter(|k| k.direction == Direction::Cols) {
        for row in split_table(kernel) {
            checked += 1;
            if let Err(e) = check_chain(kernel, &row, backend) {
                failures.push(e);
            }
        }
    }
    if failures.is_empty() { Ok(checked) } else { Err(failures.join("\n")) }
}

/// A column-wise bench point's one launch on a contiguous `rows x cols` input (the
/// ordinary fill) where `Kernel::one_launch` says so: the one-launch kernel, float sums checked under `rule_for_depth` of
/// its depth. Its counters are zero after every launch, so the timed repetitions reuse
/// them.
pub fn bench_launch(kernel: Kernel, rows: usize, cols: usize, plan: SplitPlan) -> Vec<(Suite, Case)> {
    let row = SplitRow {
        name: "bench".into(),
        view: View::contiguous(&[rows, cols]),
        fill: Fill::Ordinary,
        plan,
        y_stride: 1,
    };
    let case = fused_case(kernel, &row);
    let suite = Suite::new(fused_def(kernel))
        .reference(move |case| fused_reference(kernel, case))
        .rule(rule_for_depth(kernel.rule(), plan.fused_sum_depth()));
    vec![(suite, case)]
}

/// A column-wise bench point's two launches on a contiguous `rows x cols` input (the
/// ordinary fill): the partials kernel, and the combine over the partials the reference
/// computed; float sums checked under `rule_for_depth` of each pass's depth (the bench's
/// split points where `Kernel::one_launch` is false, and the other form beside those
/// where it is true).
pub fn bench_launches(kernel: Kernel, rows: usize, cols: usize, plan: SplitPlan) -> Vec<(Suite, Case)> {
    let row = SplitRow {
        name: "bench".into(),
        view: View::contiguous(&[rows, cols]),
        fill: Fill::Ordinary,
        plan,
        y_stride: 1,
    };
    let partials = partials_case(kernel, &row);
    let mut computed = partials.clone();
    partials_reference(kernel, &mut computed);
    let combine = combine_case(kernel, "bench", &computed, plan, 1);
    let depth = rtriton_kernels::ports::reduce_plan::col_sum_depth;
    let (partials_depth, combine_depth) =
        (depth(plan.rows_per_split, plan.blocks.0), depth(plan.split, plan.combine_blocks.0));
    let (partials_def, combine_def) = defs(kernel);
    vec![
        (
            Suite::new(partials_def)
                .reference(move |case| partials_reference(kernel, case))
                .rule(rule_for_depth(partials_rule(kernel), partials_depth)),
            partials,
        ),
        (
            Suite::new(combine_def)
                .reference(move |case| combine_reference(kernel, case))
                .rule(rule_for_depth(kernel.rule(), combine_depth)),
            combine,
        ),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ports::reduce::sum_bound_within_rule;

    #[test]
    fn every_split_kernel_exists_and_the_table_has_no_other() {
        let cols: Vec<Kernel> = Kernel::all().into_iter().filter(|k| k.direction == Direction::Cols).collect();
        assert_eq!(cols.len(), kernels::all_split().len());
        assert_eq!(cols.len(), kernels::all_fused().len());
        for kernel in cols {
            let (partials, combine) = defs(kernel);
            let (op, dtype) = (kernel.op.name(), kernel.dtype.name());
            assert_eq!(
                (partials.name, combine.name, fused_def(kernel).name),
                (
                    &*format!("col_{op}_partials_{dtype}"),
                    &*format!("col_{op}_combine_{dtype}"),
                    &*format!("col_{op}_fused_{dtype}")
                )
            );
        }
    }

    /// Every row of every table splits: more than one chunk, chunks of whole tiles.
    #[test]
    fn every_case_splits_its_rows() {
        for kernel in Kernel::all().into_iter().filter(|k| k.direction == Direction::Cols) {
            for row in split_table(kernel) {
                let p = row.plan;
                assert!(p.split >= 2, "{} `{}`: one chunk", kernel.name(), row.name);
                assert_eq!(p.rows_per_split % p.blocks.0, 0, "{} `{}`", kernel.name(), row.name);
            }
        }
    }

    /// Each chained float sum is within the direct kernel's rule of the exact sum for any
    /// order of its `sum_depth` roundings, on every finite line of every case (as
    /// `reduce`'s test checks the direct kernel's cases).
    #[test]
    fn sum_rule_covers_the_error_bound_of_every_split_case() {
        let mut checked = 0;
        for dtype in [Dtype::F32, Dtype::F16, Dtype::BF16] {
            let format = dtype.float().expect("a float dtype");
            let kernel = Kernel { op: Op::Sum, direction: Direction::Cols, dtype };
            for row in split_table(kernel) {
                let x = direct_case_of(kernel, &row).tensor("x").clone();
                let depth = row.plan.sum_depth().max(row.plan.fused_sum_depth()) as f64;
                for c in 0..x.view.shape[1] {
                    let line: Vec<f64> = (0..x.view.shape[0]).map(|r| x.f64_at(&[r, c])).collect();
                    let what = format!("{} `{}` column {c}", kernel.name(), row.name);
                    if !sum_bound_within_rule(kernel, format, &line, depth, &what) {
                        continue;
                    }
                    checked += 1;
                }
            }
        }
        assert!(checked > 500, "only {checked} columns checked");
    }

    fn check(op: Op, dtype: Dtype) {
        let kernel = Kernel { op, direction: Direction::Cols, dtype };
        for backend in [Backend::Interpreter, Backend::Simulator] {
            partials_suite(kernel).check_all(backend);
            combine_suite(kernel).check_all(backend);
            fused_suite(kernel).check_all(backend);
            let failures: Vec<String> =
                split_table(kernel).iter().filter_map(|row| check_chain(kernel, row, backend).err()).collect();
            assert!(failures.is_empty(), "{}", failures.join("\n"));
        }
    }

    macro_rules! every_split_kernel {
        ($($name:ident => $dtype:ident;)*) => {$(
            mod $name {
                use super::*;

                #[test]
                fn col_sum() { check(Op::Sum, Dtype::$dtype) }
                #[test]
                fn col_max() { check(Op::Max, Dtype::$dtype) }
                #[test]
                fn col_min() { check(Op::Min, Dtype::$dtype) }
                #[test]
                fn col_argmax() { check(Op::ArgMax, Dtype::$dtype) }
                #[test]
                fn col_argmin() { check(Op::ArgMin, Dtype::$dtype) }
            }
        )*};
    }

    every_split_kernel! {
        f32 => F32;
        f16 => F16;
        bf16 => BF16;
        i32 => I32;
    }
}
