//! The chunked layer-norm backward for wide rows (`layer_norm_bwd_row_sums*`,
//! `layer_norm_bwd_dx_chunked*`, then the persistent form's `layer_norm_bwd_dwdb_from_f32*`,
//! in f32, f16 and bf16): the cases of the two new kernels, their f64 references and
//! tolerances, the three kernels chained on one back end against the gradients computed
//! in f64, and the backward's bench launches as `layer_norm_plan` plans them.
//!
//! The data and the references build on the tutorial's ([`super::tutorial`]) and the
//! persistent form's ([`super::persistent`]): the partial rows are the persistent form's,
//! cut into column chunks.

use rtriton::ir::ScalarType;
use rtriton::trace::KernelDef;
use rtriton_kernels::ports::layer_norm_chunked::{
    layer_norm_bwd_dx_chunked, layer_norm_bwd_dx_chunked_bf16, layer_norm_bwd_dx_chunked_f16, layer_norm_bwd_row_sums,
    layer_norm_bwd_row_sums_bf16, layer_norm_bwd_row_sums_f16,
};
use rtriton_kernels::ports::layer_norm_plan::{
    self, BwdPlan, CHUNK_BLOCK, CHUNK_WARPS, Form, ROW_SUMS_BLOCK, ROW_SUMS_WARPS, sum_depth,
};
use rtriton_testing::compare::Tolerance;
use rtriton_testing::half::{bf16, f16};
use rtriton_testing::{Backend, Case, Element, Rule, Suite, View};

use super::persistent::{self, chain_rule_for, collect_chains, dx_rule_for, inputs, sum_rule_for};
use super::tutorial::{
    Layout, Values, at, backward_dwdb_case_of, backward_dwdb_reference, put, row_gradients, unwritten,
};
use crate::ports::chain::{buffer, run_on};

/// The f32 unit roundoff.
const U: f64 = 1.0 / (1u64 << 24) as f64;

/// The largest `|x_hat w dy|` of the cases' ordinary data (`|x_hat| <= 1.75`, `w` in
/// [0, 1], `|dy| <= 0.1`), which bounds every term of `c1` (and `|w dy| <= 0.1` those of
/// `c2`).
const TERM: f64 = 0.175;

/// The chunked form's two new kernels for `T`: the row sums and the chunked dx kernel
/// (the third launch is [`persistent::kernels`]' sum).
pub fn kernels<T: Element>() -> (KernelDef, KernelDef) {
    match T::SCALAR {
        ScalarType::F16 => (layer_norm_bwd_row_sums_f16(), layer_norm_bwd_dx_chunked_f16()),
        ScalarType::BF16 => (layer_norm_bwd_row_sums_bf16(), layer_norm_bwd_dx_chunked_bf16()),
        // f32 (the layer norm's other element type)
        _ => (layer_norm_bwd_row_sums(), layer_norm_bwd_dx_chunked()),
    }
}

/// The suites of `T`'s two new kernels.
pub fn suites_of<T: Element>() -> [Suite; 2] {
    let (sums, dx) = kernels::<T>();
    [row_sums_suite_of::<T>(sums), dx_suite_of::<T>(dx)]
}

/// Row `r`'s `c1 = mean(x_hat w dy)` and `c2 = mean(w dy)` in f64 from `case`'s inputs.
fn row_means(case: &Case, r: usize) -> (f64, f64) {
    let cols = case.tensor("x").view.shape[1];
    let (mean, rstd) = (at(case, "mean", &[r]), at(case, "rstd", &[r]));
    let (mut c1, mut c2) = (0.0, 0.0);
    for c in 0..cols {
        let wdy = at(case, "w", &[c]) * at(case, "dy", &[r, c]);
        c1 += (at(case, "x", &[r, c]) - mean) * rstd * wdy;
        c2 += wdy;
    }
    (c1 / cols as f64, c2 / cols as f64)
}

// ---- the row sums ----

/// One `layer_norm_bwd_row_sums*` case of `T`: `rows x cols`, `BLOCK_SIZE_N = block` on
/// `warps` warps, one program per row; `c1` and `c2` at the layout's vector stride.
pub fn row_sums_case<T: Element>(
    name: &str,
    (rows, cols): (usize, usize),
    (block, warps): (usize, u32),
    layout: Layout,
    values: Values,
) -> Case {
    let i = inputs::<T>((rows, cols), layout, values);
    let [xv, dyv, wv, mv, rv] = i.views;
    let cv = layout.vector(rows, 3);
    Case::new(name)
        .output("c1", unwritten::<f32>(&cv), cv.clone())
        .output("c2", unwritten::<f32>(&cv), cv.clone())
        .input("dy", i.dy, dyv.clone())
        .input("x", i.x, xv.clone())
        .input("w", i.w, wv.clone())
        .input("mean", i.mean, mv.clone())
        .input("rstd", i.rstd, rv.clone())
        .int(dyv.strides[0] as i64)
        .int(dyv.strides[1] as i64)
        .int(xv.strides[0] as i64)
        .int(xv.strides[1] as i64)
        .int(wv.strides[0] as i64)
        .int(mv.strides[0] as i64)
        .int(rv.strides[0] as i64)
        .int(cv.strides[0] as i64)
        .int(cols as i64)
        .constexpr("BLOCK_SIZE_N", block as i64)
        .num_warps(warps)
        .grid([rows as u32, 1, 1])
}

/// The row-sums cases: the plan's block over rows of several blocks with a masked tail,
/// a row narrower than the block, a small block looping many times, strided and
/// transposed views, special values (a NaN row, an infinite one, a constant one, zeros,
/// subnormals, large values).
pub fn row_sums_cases<T: Element>() -> Vec<Case> {
    use Layout::*;
    use Values::*;
    let case = row_sums_case::<T>;
    let planned = (ROW_SUMS_BLOCK, ROW_SUMS_WARPS);
    vec![
        case("planned_5000", (3, 5000), planned, Contiguous, Ordinary),
        case("narrower_than_the_block", (4, 700), planned, Contiguous, Ordinary),
        case("block_64_looping", (5, 1000), (64, 2), Contiguous, Ordinary),
        case("strided_views", (4, 300), (128, 1), Strided, Ordinary),
        case("transposed_views", (6, 333), (128, 4), Transposed, Ordinary),
        case("special_values", (8, 130), (64, 1), Contiguous, Special),
    ]
}

/// Each row's `c1` and `c2` in f64 ([`row_means`]).
pub fn row_sums_reference(case: &mut Case) {
    for r in 0..case.tensor("x").view.shape[0] {
        let (c1, c2) = row_means(case, r);
        put(case, "c1", &[r], c1);
        put(case, "c2", &[r], c2);
    }
}

/// The row sums' bound for rows of `cols` in blocks of `block`: each lane adds
/// `cdiv(cols, block)` terms, then the block's lanes are summed, at most `block - 1`
/// additions deep whatever the order; the mean of terms below [`TERM`] is then within
/// `(cdiv(cols, block) + block + 2) u TERM`, or relatively that many `u`. f32 outputs in
/// every dtype (nothing is rounded to `T`).
pub fn row_sums_rule(cols: usize, block: usize) -> Rule {
    let (abs, rel) = row_sums_bound(cols, block);
    Rule::approx(abs, rel)
}

/// [`row_sums_rule`]'s `(absolute, relative)` bound.
fn row_sums_bound(cols: usize, block: usize) -> (f64, f64) {
    let depth = (cols.div_ceil(block.max(1)) + block + 2) as f64;
    (depth * U * TERM, depth * U)
}

/// The row-sums suite of a `layer_norm_bwd_row_sums*` kernel, under the loosest rule of
/// its cases.
pub fn row_sums_suite_of<T: Element>(def: KernelDef) -> Suite {
    let cases = row_sums_cases::<T>();
    let depth = |c: &Case| {
        let block = c.constexprs[0].1 as usize;
        let cols = c.tensor("x").view.shape[1];
        cols.div_ceil(block) + block
    };
    let widest = cases.iter().max_by_key(|c| depth(c)).expect("cases");
    let rule = row_sums_rule(widest.tensor("x").view.shape[1], widest.constexprs[0].1 as usize);
    Suite::new(def).cases(cases).reference(row_sums_reference).rule(rule)
}

// ---- dx in chunks, and the f32 partial rows ----

/// One `layer_norm_bwd_dx_chunked*` case of `T`: `rows x cols` on `groups` row groups
/// (the grid's axis 0) and `cdiv(cols, block)` chunks (axis 1), whose `f32` partial rows
/// lie `partial_stride >= cols` apart; `c1` and `c2` are [`row_means`] rounded to f32
/// (what the row-sums kernel stores, within its bound).
pub fn dx_case<T: Element>(
    name: &str,
    (rows, cols): (usize, usize),
    (groups, partial_stride): (usize, usize),
    (block, warps): (usize, u32),
    layout: Layout,
    values: Values,
) -> Case {
    let i = inputs::<T>((rows, cols), layout, values);
    let [xv, dyv, wv, mv, rv] = i.views;
    let dxv = layout.matrix(rows, cols);
    let cv = layout.vector(rows, 3);
    let pv = View::strided(&[groups, cols], &[partial_stride as isize, 1]);
    let mut case = Case::new(name)
        .output("dx", unwritten::<T>(&dxv), dxv.clone())
        .input("dy", i.dy, dyv.clone())
        .output("dw", unwritten::<f32>(&pv), pv.clone())
        .output("db", unwritten::<f32>(&pv), pv.clone())
        .input("x", i.x, xv.clone())
        .input("w", i.w, wv.clone())
        .input("mean", i.mean, mv.clone())
        .input("rstd", i.rstd, rv.clone())
        .input("c1", unwritten::<f32>(&cv), cv.clone())
        .input("c2", unwritten::<f32>(&cv), cv.clone())
        .int(dxv.strides[0] as i64)
        .int(dxv.strides[1] as i64)
        .int(dyv.strides[0] as i64)
        .int(dyv.strides[1] as i64)
        .int(xv.strides[0] as i64)
        .int(xv.strides[1] as i64)
        .int(wv.strides[0] as i64)
        .int(mv.strides[0] as i64)
        .int(rv.strides[0] as i64)
        .int(cv.strides[0] as i64)
        .int(partial_stride as i64)
        .int(partial_stride as i64)
        .int(rows as i64)
        .int(cols as i64)
        .constexpr("BLOCK_SIZE_N", block as i64)
        .num_warps(warps)
        .grid([groups as u32, cols.div_ceil(block) as u32, 1]);
    for r in 0..rows {
        let (c1, c2) = row_means(&case, r);
        put(&mut case, "c1", &[r], c1);
        put(&mut case, "c2", &[r], c2);
    }
    case
}

/// The chunked dx cases: the plan's chunk over rows of three chunks with a masked tail
/// and more rows than groups (each group loops 3 or 4 times), a row narrower than one
/// chunk, small chunks of a non-power-of-two width, fewer rows than groups (the idle
/// groups store zero partial rows), strided views with padded partial rows, transposed
/// views, special values (each special row in a partial row of its own).
pub fn dx_cases<T: Element>() -> Vec<Case> {
    use Layout::*;
    use Values::*;
    let case = dx_case::<T>;
    let planned = (CHUNK_BLOCK, CHUNK_WARPS);
    vec![
        case("planned_chunks_of_5000_on_3_groups", (10, 5000), (3, 5000), planned, Contiguous, Ordinary),
        case("narrower_than_a_chunk", (4, 1500), (2, 1500), planned, Contiguous, Ordinary),
        case("chunks_of_64_of_1151", (9, 1151), (4, 1151), (64, 2), Contiguous, Ordinary),
        case("fewer_rows_than_groups", (3, 200), (5, 200), (64, 1), Contiguous, Ordinary),
        case("strided_views", (6, 300), (4, 307), (128, 1), Strided, Ordinary),
        case("transposed_views", (8, 97), (3, 100), (32, 1), Transposed, Ordinary),
        case("special_values", (14, 37), (7, 37), (16, 1), Contiguous, Special),
    ]
}

/// `dx = (w dy - (x_hat c1 + c2)) * rstd` of every row with the case's `c1` and `c2` (the
/// inputs the kernel reads), and partial row `g` of `dw` / `db` the sum of `dy * x_hat` /
/// `dy` over the rows `r` with `r % groups == g` (zero for a group without rows).
pub fn dx_reference(case: &mut Case) {
    let (rows, cols) = (case.tensor("x").view.shape[0], case.tensor("x").view.shape[1]);
    let groups = case.tensor("dw").view.shape[0];
    let mut dw = vec![vec![0.0f64; cols]; groups];
    let mut db = vec![vec![0.0f64; cols]; groups];
    for r in 0..rows {
        let (mean, rstd) = (at(case, "mean", &[r]), at(case, "rstd", &[r]));
        let (c1, c2) = (at(case, "c1", &[r]), at(case, "c2", &[r]));
        for c in 0..cols {
            let dy = at(case, "dy", &[r, c]);
            let x_hat = (at(case, "x", &[r, c]) - mean) * rstd;
            let dx = (at(case, "w", &[c]) * dy - (x_hat * c1 + c2)) * rstd;
            put(case, "dx", &[r, c], dx);
            dw[r % groups][c] += dy * x_hat;
            db[r % groups][c] += dy;
        }
    }
    for g in 0..groups {
        for c in 0..cols {
            put(case, "dw", &[g, c], dw[g][c]);
            put(case, "db", &[g, c], db[g][c]);
        }
    }
}

/// The most rows a partial row of `case` receives.
fn rows_per_group(case: &Case) -> usize {
    case.tensor("x").view.shape[0].div_ceil(case.grid[0] as usize)
}

/// The chunked dx suite of a `layer_norm_bwd_dx_chunked*` kernel whose tensors hold `T`,
/// under the persistent form's rule ([`dx_rule_for`]: the same f32 operations per
/// element, without the row's reductions) for the case with the most rows per group.
pub fn dx_suite_of<T: Element>(def: KernelDef) -> Suite {
    let cases = dx_cases::<T>();
    let r = cases.iter().map(rows_per_group).max().unwrap_or(1);
    Suite::new(def).cases(cases).reference(dx_reference).rule(dx_rule_for::<T>(r))
}

// ---- the three kernels chained ----

/// The chained runs: `(rows, columns, SM count)`, each launched as
/// [`layer_norm_plan::plan`] says for that many SMs (few, so that groups loop over
/// several rows), all past the persistent form's 4096 columns.
pub const CHAINS: [(usize, usize, usize); 3] = [(12, 4097, 1), (7, 6000, 2), (20, 5000, 1)];

/// The chunked backward of a contiguous `rows x cols` input of `T`, planned for
/// `sm_count` SMs, on `backend`: the row sums, the chunked dx kernel reading the `c1` and
/// `c2` they stored, then the sum of the partial rows, compared with `dx`, `dw` and `db`
/// computed in f64 from the inputs. `dx` moves by `(|x_hat| dc1 + dc2) rstd` when the
/// row sums are off by their bound ([`row_sums_rule`]); `dw` and `db` do not depend on
/// them ([`chain_rule_for`]). `Err` describes the first difference or the run's error.
pub fn check_chain<T: Element>((rows, cols, sm_count): (usize, usize, usize), backend: Backend) -> Result<(), String> {
    let (sums_def, dx_def) = kernels::<T>();
    let sum_def = persistent::kernels::<T>().1;
    let what = format!(
        "{} then {} then {} on {rows}x{cols} for {sm_count} SMs on {backend:?}",
        sums_def.name, dx_def.name, sum_def.name
    );
    let plan = layer_norm_plan::plan(cols, rows, T::SCALAR.size_bytes() as usize, sm_count)
        .filter(|p| p.form == Form::Chunked)
        .ok_or_else(|| format!("{what}: the plan does not run the chunked form"))?;
    let g = plan.programs;
    let sums = row_sums_case::<T>(
        "chain",
        (rows, cols),
        (ROW_SUMS_BLOCK, ROW_SUMS_WARPS),
        Layout::Contiguous,
        Values::Ordinary,
    );
    let wrote = run_on(&sums_def, &sums, backend).map_err(|e| format!("{what}: {}: {e}", sums_def.name))?;
    let mut dx = dx_case::<T>(
        "chain",
        (rows, cols),
        (g, cols),
        (plan.block_size_n, plan.num_warps),
        Layout::Contiguous,
        Values::Ordinary,
    );
    if dx.grid[1] as usize != plan.chunks {
        return Err(format!("{what}: the case has {} chunks, the plan {}", dx.grid[1], plan.chunks));
    }
    let want_dx = {
        let mut want = dx.clone();
        for r in 0..rows {
            let grads = row_gradients(&want, r);
            for (c, v) in grads.dx.into_iter().enumerate() {
                put(&mut want, "dx", &[r, c], v);
            }
        }
        want
    };
    dx.tensor_mut("c1").data = buffer(&wrote, "c1");
    dx.tensor_mut("c2").data = buffer(&wrote, "c2");
    let got_dx = run_on(&dx_def, &dx, backend).map_err(|e| format!("{what}: {}: {e}", dx_def.name))?;
    let s = plan.sum;
    let mut sum =
        backward_dwdb_case_of::<f32, T>("chain", (g, cols), (cols, 1), (s.block_size_m, s.block_size_n, s.num_warps));
    sum.tensor_mut("dw").data = buffer(&got_dx, "dw");
    sum.tensor_mut("db").data = buffer(&got_dx, "db");
    let got = run_on(&sum_def, &sum, backend).map_err(|e| format!("{what}: {}: {e}", sum_def.name))?;
    let mut want = sum.clone();
    for (to, term) in [("final_dw", 0), ("final_db", 1)] {
        let mut total = vec![0.0f64; cols];
        for r in 0..rows {
            let grads = row_gradients(&dx, r);
            let terms = if term == 0 { &grads.dy_x_hat } else { &grads.dy };
            total.iter_mut().zip(terms).for_each(|(t, v)| *t += v);
        }
        for (c, v) in total.into_iter().enumerate() {
            put(&mut want, to, &[c], v);
        }
    }
    // dx: its own rule, plus what the row sums' error moves it by.
    let largest_rstd = (0..rows).map(|r| at(&dx, "rstd", &[r]).abs()).fold(0.0, f64::max);
    let sums_error = row_sums_bound(cols, ROW_SUMS_BLOCK).0;
    let dx_rule = match dx_rule_for::<T>(rows.div_ceil(g)).tolerance {
        Tolerance::Approx { epsilon, max_relative } => {
            Rule::approx(epsilon + (1.75 + 1.0) * sums_error * largest_rstd, max_relative)
        }
        other => return Err(format!("{what}: the dx rule is {other:?}, not a bound")),
    };
    let sum_rule = chain_rule_for::<T>(rows, rows.div_ceil(g), sum_depth(g, s.block_size_m));
    let checks = [
        (&got_dx, &want_dx, "dx", &dx_rule),
        (&got, &want, "final_dw", &sum_rule),
        (&got, &want, "final_db", &sum_rule),
    ];
    for (got, want, name, rule) in checks {
        let (shown, total) =
            rtriton_testing::compare::differences(&buffer(got, name), &want.tensor(name).data, rule, 1);
        if let Some(d) = shown.first() {
            return Err(format!(
                "{what}: `{name}`: {total} elements differ ({rule}), first at {}: got {}, expected {}",
                d.element, d.got, d.want
            ));
        }
    }
    Ok(())
}

/// Every row of [`CHAINS`] in f32, f16 and bf16 on `backend`; `Err` lists every failure.
pub fn check_every_chain(backend: Backend) -> Result<usize, String> {
    collect_chains(CHAINS.into_iter().flat_map(|chain| {
        [check_chain::<f32>(chain, backend), check_chain::<f16>(chain, backend), check_chain::<bf16>(chain, backend)]
    }))
}

// ---- bench ----

/// The chunked backward's three launches on a contiguous `rows x cols` input of `T` as
/// `plan` says: the row sums (one program per row), the chunked dx kernel on `G x S`
/// programs (its `c1` and `c2` the f64 ones, its rule for `ceil(rows / G)` rows per
/// partial row), and the sum of `G` partial rows of the suite's data at the plan's
/// blocks.
pub fn bench_launches<T: Element>(rows: usize, cols: usize, plan: BwdPlan) -> Vec<(Suite, Case)> {
    let (sums_def, dx_def) = kernels::<T>();
    let sum_def = persistent::kernels::<T>().1;
    let g = plan.programs;
    let sums = row_sums_case::<T>(
        "bench",
        (rows, cols),
        (ROW_SUMS_BLOCK, ROW_SUMS_WARPS),
        Layout::Contiguous,
        Values::Ordinary,
    );
    let sums_suite = Suite::new(sums_def).reference(row_sums_reference).rule(row_sums_rule(cols, ROW_SUMS_BLOCK));
    let dx = dx_case::<T>(
        "bench",
        (rows, cols),
        (g, cols),
        (plan.block_size_n, plan.num_warps),
        Layout::Contiguous,
        Values::Ordinary,
    );
    let dx_suite = Suite::new(dx_def).reference(dx_reference).rule(dx_rule_for::<T>(rows.div_ceil(g)));
    let s = plan.sum;
    let sum =
        backward_dwdb_case_of::<f32, T>("bench", (g, cols), (cols, 1), (s.block_size_m, s.block_size_n, s.num_warps));
    let sum_suite = Suite::new(sum_def).reference(backward_dwdb_reference).rule(sum_rule_for::<T>(g, s.block_size_m));
    vec![(sums_suite, sums), (dx_suite, dx), (sum_suite, sum)]
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every case of both kernels in `T`, on the interpreter and the simulator.
    fn check_cpu<T: Element>() {
        for suite in suites_of::<T>() {
            suite.check_all(Backend::Interpreter);
            suite.check_all(Backend::Simulator);
        }
    }

    #[test]
    fn the_chunked_backward_passes_on_the_interpreter_and_the_simulator_in_f32() {
        check_cpu::<f32>();
    }

    #[test]
    fn the_chunked_backward_passes_on_the_interpreter_and_the_simulator_in_f16() {
        check_cpu::<f16>();
    }

    #[test]
    fn the_chunked_backward_passes_on_the_interpreter_and_the_simulator_in_bf16() {
        check_cpu::<bf16>();
    }

    #[test]
    fn the_three_kernels_chained_give_the_gradients_on_the_interpreter_and_the_simulator() {
        for backend in [Backend::Interpreter, Backend::Simulator] {
            let checked = check_every_chain(backend).unwrap_or_else(|e| panic!("{e}"));
            assert_eq!(checked, 3 * CHAINS.len());
        }
    }

    /// The cases exercise what they are named for: groups looping over several rows,
    /// several chunks with a masked tail, idle groups.
    #[test]
    fn the_dx_cases_loop_chunk_and_leave_groups_idle() {
        let cases = dx_cases::<f32>();
        let find = |name: &str| cases.iter().find(|c| c.name == name).unwrap();
        let planned = find("planned_chunks_of_5000_on_3_groups");
        let (rows, groups) = (planned.tensor("x").view.shape[0], planned.grid[0] as usize);
        assert!(rows > 3 * groups && rows % groups != 0);
        assert_eq!(planned.grid[1], 3, "5000 columns are three chunks of 2048, the last masked");
        let idle = find("fewer_rows_than_groups");
        assert!(idle.tensor("x").view.shape[0] < idle.grid[0] as usize);
    }

    /// The rules still catch what a wrong kernel would do: row sums divided by the block
    /// instead of the row's width, a dx computed without `c2`, a partial row missing a row.
    #[test]
    fn the_rules_reject_a_wrong_divisor_a_missing_c2_and_a_missing_row() {
        fn outside<T: Element>() {
            let differ = |a: &Case, b: &Case, t: &str, rule: &Rule| {
                rtriton_testing::compare::differences(&a.tensor(t).data, &b.tensor(t).data, rule, 1).1 > 0
            };
            let sums = row_sums_suite_of::<T>(kernels::<T>().0);
            let mut right = sums.cases.iter().find(|c| c.name == "planned_5000").unwrap().clone();
            row_sums_reference(&mut right);
            let mut wrong = right.clone();
            for r in 0..3 {
                let c1 = at(&right, "c1", &[r]);
                put(&mut wrong, "c1", &[r], c1 * 5000.0 / 6144.0);
            }
            assert!(differ(&right, &wrong, "c1", &sums.rule), "{}: a wrong divisor passes", sums.def.name);

            let dx = dx_suite_of::<T>(kernels::<T>().1);
            let mut right = dx.cases.iter().find(|c| c.name == "chunks_of_64_of_1151").unwrap().clone();
            dx_reference(&mut right);
            let mut no_c2 = right.clone();
            let (rstd, c2) = (at(&right, "rstd", &[2]), at(&right, "c2", &[2]));
            for c in 0..1151 {
                let v = at(&right, "dx", &[2, c]);
                put(&mut no_c2, "dx", &[2, c], v + c2 * rstd);
            }
            assert!(differ(&right, &no_c2, "dx", &dx.rule), "{}: a dx without c2 passes", dx.def.name);
            let mut missing = right.clone();
            let g = row_gradients(&right, 4);
            for c in 0..1151 {
                let p = at(&missing, "dw", &[0, c]);
                put(&mut missing, "dw", &[0, c], p - g.dy_x_hat[c]);
            }
            assert!(differ(&right, &missing, "dw", &dx.rule), "{}: a missing row passes", dx.def.name);
        }
        outside::<f32>();
        outside::<f16>();
        outside::<bf16>();
    }

    /// The bench's launches for the widest peer-script shape follow the plan: one
    /// row-sums program per row, `G x S` dx programs, `G` partial rows summed.
    #[test]
    fn the_bench_launches_follow_the_plan() {
        let plan = layer_norm_plan::plan(32768, 64, 2, 132).unwrap();
        assert_eq!(plan.form, Form::Chunked);
        let launches = bench_launches::<f16>(64, 32768, plan);
        let names: Vec<_> = launches.iter().map(|(s, _)| s.def.name).collect();
        assert_eq!(
            names,
            ["layer_norm_bwd_row_sums_f16", "layer_norm_bwd_dx_chunked_f16", "layer_norm_bwd_dwdb_from_f32"]
        );
        assert_eq!(launches[0].1.grid, [64, 1, 1]);
        assert_eq!(launches[1].1.grid, [plan.programs as u32, 16, 1]);
        assert_eq!(launches[2].1.tensor("dw").view.shape, [plan.programs, 32768]);
        assert!(launches.iter().all(|(_, c)| c.check().is_ok()));
    }
}
