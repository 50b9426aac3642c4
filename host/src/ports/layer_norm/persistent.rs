//! The lock-free persistent layer-norm backward (`layer_norm_bwd_dx_persistent*`, then
//! `layer_norm_bwd_dwdb_from_f32*`, in f32, f16 and bf16): the cases of each kernel, their
//! f64 references and tolerances, the two kernels chained on one back end against the
//! gradients summed over every row, and the backward's bench launches as
//! `rtriton_kernels::ports::layer_norm_plan` plans them.
//!
//! The references are those of the tutorial's kernels ([`super::tutorial`]): f64 from
//! the kernel's inputs, rounded once. The partial rows are `f32` whatever the element
//! type, so unlike the tutorial's they are never rounded to `T`; the tolerances are
//! derived in `docs/semantics.md` ("Tolerances of the ports", the persistent backward).

use rtriton::ir::ScalarType;
use rtriton::trace::KernelDef;
use rtriton_kernels::ports::layer_norm_persistent::{layer_norm_bwd_dwdb_from_f32, layer_norm_bwd_dx_persistent};
use rtriton_kernels::ports::layer_norm_plan::{self, BwdPlan, Form, SumPlan, sum_depth, sum_plan};
use rtriton_testing::half::{bf16, f16};
use rtriton_testing::{Backend, Case, Element, Rule, Suite, View};

use super::tutorial::{
    Layout, Values, backward_dwdb_case_of, backward_dwdb_reference, fill, moments, of, precision, put, row_gradients,
    unwritten,
};
use crate::ports::chain::{buffer, run_on};

/// The f32 unit roundoff.
const U: f64 = 1.0 / (1u64 << 24) as f64;

/// The largest `|dy x_hat|` of the cases' data (`|dy| <= 0.1`, `|x_hat| <= 1.75`), which
/// bounds every term of a partial row (`|dy|` bounds those of `db`).
const TERM: f64 = 0.175;

/// The largest `|partial|` of the sum cases' data (uniform in [-0.3, 0.3]).
const PARTIAL: f64 = 0.3;

/// The persistent form's kernels for `T`: the `T` instances of the dx kernel and of the
/// sum of its partial rows (both generic over the layer norm's element types).
pub fn kernels<T: Element>() -> (KernelDef, KernelDef) {
    let instance = |def: KernelDef| def.instance(T::SCALAR).expect("the layer norm's element types are f32, f16, bf16");
    (instance(layer_norm_bwd_dx_persistent()), instance(layer_norm_bwd_dwdb_from_f32()))
}

/// The suites of `T`'s two kernels.
pub fn suites_of<T: Element>() -> [Suite; 2] {
    let (dx, sum) = kernels::<T>();
    [dx_suite_of::<T>(dx), sum_suite_of::<T>(sum)]
}

/// A rule for outputs computed in f32 within `abs` absolutely or `rel` relatively and
/// then rounded once to `T`: in f32 that bound; in f16 and bf16 both doubled after adding
/// the rounding's `2^-p` to `rel` (an error within `abs + (rel + 2^-p) |v|` is within
/// `2 abs` or within `2 (rel + 2^-p) |v|`, whichever term is larger), so that the rounding
/// loosens neither bound by the largest output's ulp.
pub fn rounded_once<T: Element>((abs, rel): (f64, f64)) -> Rule {
    let p = precision(T::SCALAR);
    if p == 24 {
        return Rule::approx(abs, rel);
    }
    Rule::approx(2.0 * abs, 2.0 * (rel + 2f64.powi(-p)))
}

// ---- dx and the f32 partial rows ----

/// Row `r` of a [`Values::Special`] case of `cols` columns, as f64 values exact in `T`: a
/// NaN, `+inf`, a constant row (variance 0: `rstd = 1 / sqrt(eps)`, `x_hat = 0`), zeros,
/// subnormals of `T` only, large values (near 1e17 in f32 and bf16, near 1e4 in f16 and
/// below its largest finite 65504), then ordinary rows.
fn special_row<T: Element>(r: usize, cols: usize, ordinary: &[f64]) -> Vec<f64> {
    let mut row = ordinary.to_vec();
    let smallest = T::from_bits64(1).to_f64_exact().expect("a float element type");
    let large = if T::SCALAR == ScalarType::F16 { 4e3 } else { 1e17 };
    match r {
        0 => row[cols / 2] = f64::NAN,
        1 => row[cols - 1] = f64::INFINITY,
        2 => row.fill(1.5),
        3 => row.fill(0.0),
        4 => row.iter_mut().enumerate().for_each(|(c, v)| *v = smallest * (1 + c * 977 % 1000) as f64),
        5 => row.iter_mut().enumerate().for_each(|(c, v)| *v = large * (1.0 + (c % 7) as f64)),
        _ => {}
    }
    row
}

/// The inputs the backward's dx kernels read (the persistent form's and the chunked
/// form's, and the chunked row sums), as a case of `rows x cols` in `layout` holds them: `x`
/// (special rows for [`Values::Special`]), `dy`, `w`, and the `mean` and `rstd` the
/// forward would have stored (f64 from `x`, rounded to f32).
pub(super) struct Inputs<T> {
    pub(super) x: Vec<T>,
    pub(super) dy: Vec<T>,
    pub(super) w: Vec<T>,
    pub(super) mean: Vec<f32>,
    pub(super) rstd: Vec<f32>,
    pub(super) views: [View; 5],
}

pub(super) fn inputs<T: Element>((rows, cols): (usize, usize), layout: Layout, values: Values) -> Inputs<T> {
    let (xv, dyv, wv) = (layout.matrix(rows, cols), layout.matrix(rows, cols), layout.vector(cols, 2));
    let (mv, rv) = (layout.vector(rows, 3), layout.vector(rows, 2));
    let mut x: Vec<T> = fill(4, xv.min_buffer_len(), -2.3, 0.9);
    let row_of = |x: &[T], r: usize| -> Vec<f64> {
        (0..cols).map(|c| x[xv.element(&[r, c])].to_f64_exact().expect("a float element type")).collect()
    };
    if values == Values::Special {
        for r in 0..rows {
            let special = special_row::<T>(r, cols, &row_of(&x, r));
            for (c, v) in special.into_iter().enumerate() {
                x[xv.element(&[r, c])] = of(v);
            }
        }
    }
    let mut mean: Vec<f32> = fill(5, mv.min_buffer_len(), 0.0, 1.0);
    let mut rstd: Vec<f32> = fill(6, rv.min_buffer_len(), 0.0, 1.0);
    for r in 0..rows {
        let (m, s) = moments(&row_of(&x, r));
        mean[mv.element(&[r])] = m as f32;
        rstd[rv.element(&[r])] = s as f32;
    }
    Inputs {
        x,
        dy: fill::<T>(7, dyv.min_buffer_len(), 0.0, 0.1),
        w: fill::<T>(8, wv.min_buffer_len(), 0.5, 0.5),
        mean,
        rstd,
        views: [xv, dyv, wv, mv, rv],
    }
}

/// One `layer_norm_bwd_dx_persistent*` case of element type `T`: `rows x cols` on
/// `programs` programs, whose `f32` partial rows lie `partial_stride >= cols` apart,
/// `BLOCK_SIZE_N = block` on `warps` warps. `mean` and `rstd` are what the forward would
/// have stored (computed in f64 from `x`). Every element of the partial rows is written
/// (programs without rows store zeros); the padding between them must keep its value.
pub fn dx_case<T: Element>(
    name: &str,
    (rows, cols): (usize, usize),
    (programs, partial_stride): (usize, usize),
    (block, warps): (usize, u32),
    layout: Layout,
    values: Values,
) -> Case {
    let i = inputs::<T>((rows, cols), layout, values);
    let [xv, dyv, wv, mv, rv] = i.views;
    let dxv = layout.matrix(rows, cols);
    let pv = View::strided(&[programs, cols], &[partial_stride as isize, 1]);
    Case::new(name)
        .output("dx", unwritten::<T>(&dxv), dxv.clone())
        .input("dy", i.dy, dyv.clone())
        .output("dw", unwritten::<f32>(&pv), pv.clone())
        .output("db", unwritten::<f32>(&pv), pv.clone())
        .input("x", i.x, xv.clone())
        .input("w", i.w, wv.clone())
        .input("mean", i.mean, mv.clone())
        .input("rstd", i.rstd, rv.clone())
        .int(dxv.strides[0] as i64)
        .int(dxv.strides[1] as i64)
        .int(dyv.strides[0] as i64)
        .int(dyv.strides[1] as i64)
        .int(xv.strides[0] as i64)
        .int(xv.strides[1] as i64)
        .int(wv.strides[0] as i64)
        .int(mv.strides[0] as i64)
        .int(rv.strides[0] as i64)
        .int(partial_stride as i64)
        .int(partial_stride as i64)
        .int(rows as i64)
        .int(cols as i64)
        .constexpr("BLOCK_SIZE_N", block as i64)
        .num_warps(warps)
        .grid([programs as u32, 1, 1])
}

/// The dx cases: the plan's configuration for rows of 1024 with more rows than programs
/// and a program count that does not divide them (each program loops 4 or 5 times), a
/// non-power-of-two width, the plan's widest block (4096 columns on 16 warps), fewer rows
/// than programs (the idle programs store zero partial rows), one program for every row,
/// rows narrower than a warp, strided views with padded partial rows, transposed views,
/// special values (each special row in a partial row of its own).
pub fn dx_cases<T: Element>() -> Vec<Case> {
    use Layout::*;
    use Values::*;
    let dx_case = dx_case::<T>;
    let planned = |n| layer_norm_plan::persistent_config(n).expect("a width the persistent form takes");
    vec![
        dx_case("rows_of_1024_on_5_programs", (23, 1024), (5, 1024), planned(1024), Contiguous, Ordinary),
        dx_case("non_pow2_1151_on_4_programs", (10, 1151), (4, 1151), planned(1151), Contiguous, Ordinary),
        dx_case("rows_of_4096_on_2_programs", (5, 4096), (2, 4096), planned(4096), Contiguous, Ordinary),
        dx_case("fewer_rows_than_programs", (3, 100), (8, 100), planned(100), Contiguous, Ordinary),
        dx_case("one_program", (9, 64), (1, 64), planned(64), Contiguous, Ordinary),
        dx_case("narrow_3", (5, 3), (2, 3), planned(3), Contiguous, Ordinary),
        dx_case("strided_views", (6, 300), (4, 307), planned(300), Strided, Ordinary),
        dx_case("transposed_views", (8, 33), (3, 36), planned(33), Transposed, Ordinary),
        dx_case("special_values", (14, 37), (7, 37), planned(37), Contiguous, Special),
    ]
}

/// `dx` of every row as [`super::layer_norm::backward_dx_reference`] defines it, and
/// partial row `p` of `dw` / `db` the sum of `dy * x_hat` / `dy` over the rows `r` with
/// `r % programs == p` (zero for a program without rows).
pub fn dx_reference(case: &mut Case) {
    let (rows, cols) = (case.tensor("x").view.shape[0], case.tensor("x").view.shape[1]);
    let programs = case.tensor("dw").view.shape[0];
    let mut dw = vec![vec![0.0f64; cols]; programs];
    let mut db = vec![vec![0.0f64; cols]; programs];
    for r in 0..rows {
        let g = row_gradients(case, r);
        for c in 0..cols {
            put(case, "dx", &[r, c], g.dx[c]);
            dw[r % programs][c] += g.dy_x_hat[c];
            db[r % programs][c] += g.dy[c];
        }
    }
    for p in 0..programs {
        for c in 0..cols {
            put(case, "dw", &[p, c], dw[p][c]);
            put(case, "db", &[p, c], db[p][c]);
        }
    }
}

/// The dx kernel's tolerance in `T` when up to `r` rows add into one partial row
/// (`docs/semantics.md`, "Tolerances of the ports"): `dx` within 5e-5 (the widest block,
/// 4096, and the constant rows' `rstd = 316` on a block of 64), a partial row within
/// `(r + 3) u r 0.175` and relatively `(r + 3) u`, in f32; `dx` rounded once to `T`
/// ([`rounded_once`]).
pub fn dx_rule_for<T: Element>(r: usize) -> Rule {
    let r = r as f64;
    rounded_once::<T>((((r + 3.0) * U * r * TERM).max(5e-5), ((r + 3.0) * U).max(1e-6)))
}

/// The most rows a partial row of `case` receives.
fn rows_per_program(case: &Case) -> usize {
    case.tensor("x").view.shape[0].div_ceil(case.grid[0] as usize)
}

/// The dx suite of a `layer_norm_bwd_dx_persistent*` kernel whose tensors hold `T`, under
/// the rule of its case with the most rows per program.
pub fn dx_suite_of<T: Element>(def: KernelDef) -> Suite {
    let cases = dx_cases::<T>();
    let r = cases.iter().map(rows_per_program).max().unwrap_or(1);
    Suite::new(def).cases(cases).reference(dx_reference).rule(dx_rule_for::<T>(r))
}

// ---- the sum of the f32 partial rows ----

/// The sum cases, at blocks [`sum_plan`] gives: 300 partial rows of 1024 columns on an
/// H200's 132 SMs (`8`-column tiles of 256 rows: 128 programs, the second block of rows
/// masked), a width with a masked column tail and fewer rows than a block, the
/// tutorial's `16 x 128`-shaped blocks (planned for 4 SMs) looping over several blocks of
/// rows, padded partial rows with strided outputs, one partial row.
pub fn sum_cases<T: Element>() -> Vec<Case> {
    let case = backward_dwdb_case_of::<f32, T>;
    let planned = |n, m, sms| {
        let s: SumPlan = sum_plan(n, m, sms);
        (s.block_size_m, s.block_size_n, s.num_warps)
    };
    vec![
        case("planned_300x1024", (300, 1024), (1024, 1), planned(1024, 300, 132)),
        case("planned_40x1001", (40, 1001), (1001, 1), planned(1001, 40, 132)),
        case("planned_50x600_on_4_sms", (50, 600), (600, 1), planned(600, 50, 4)),
        case("strided", (7, 200), (203, 2), planned(200, 7, 132)),
        case("one_partial_row", (1, 130), (130, 1), planned(130, 1, 132)),
    ]
}

/// The sum's f32 bound for `m` partial rows in blocks of `block_m` rows, partials within
/// `magnitude`: `(d + 1) u m magnitude` absolutely, `(d + 1) u` relatively, with `d` the
/// interpreter's longest chain of additions ([`sum_depth`]).
fn sum_bound(m: usize, block_m: usize, magnitude: f64) -> (f64, f64) {
    let d = sum_depth(m, block_m) as f64;
    ((d + 1.0) * U * m as f64 * magnitude, (d + 1.0) * U)
}

/// The sum's tolerance in `T` for `m` partial rows in blocks of `block_m` rows
/// (`docs/semantics.md`): [`sum_bound`] with the cases' partials (below 0.3), the sums
/// rounded once to `T`.
pub fn sum_rule_for<T: Element>(m: usize, block_m: usize) -> Rule {
    rounded_once::<T>(sum_bound(m, block_m, PARTIAL))
}

/// `(m, BLOCK_SIZE_M)` of a sum case.
fn sum_shape(case: &Case) -> (usize, usize) {
    let block_m = case.constexprs.iter().find(|(n, _)| *n == "BLOCK_SIZE_M").map_or(1, |&(_, v)| v as usize);
    (case.tensor("dw").view.shape[0], block_m)
}

/// The sum suite of a `layer_norm_bwd_dwdb_from_f32*` kernel whose gradients are `T`,
/// under the rule of its case with the largest bound.
pub fn sum_suite_of<T: Element>(def: KernelDef) -> Suite {
    let cases = sum_cases::<T>();
    let (m, block_m) = cases
        .iter()
        .map(sum_shape)
        .max_by(|a, b| sum_bound(a.0, a.1, PARTIAL).0.total_cmp(&sum_bound(b.0, b.1, PARTIAL).0))
        .unwrap_or((1, 1));
    Suite::new(def).cases(cases).reference(backward_dwdb_reference).rule(sum_rule_for::<T>(m, block_m))
}

// ---- the two kernels chained ----

/// The chained runs: `(rows, columns, SM count)`, each launched as [`layer_norm_plan::plan`]
/// says for that many SMs (few, so that programs loop over several rows).
pub const CHAINS: [(usize, usize, usize); 4] = [(50, 1024, 2), (37, 1151, 1), (9, 64, 1), (20, 4096, 8)];

/// The gradients' tolerance in `T` after both kernels, `rows` rows in partial rows of at
/// most `r` and the sum's `d` deep: every term within `(r + 3) u` through its partial row
/// and `(d + 1) u` through the sum, relative to the largest total `rows 0.175`; rounded
/// once to `T`.
pub fn chain_rule_for<T: Element>(rows: usize, r: usize, d: usize) -> Rule {
    let k = (r + d + 4) as f64 * U;
    rounded_once::<T>((k * rows as f64 * TERM, k))
}

/// The persistent backward of a contiguous `rows x cols` input of `T`, planned for
/// `sm_count` SMs, on `backend`: the dx kernel, then the sum of the partial rows it wrote
/// there, compared with `dw` and `db` summed over every row in f64 ([`chain_rule_for`]);
/// `Err` describes the first difference or the run's error.
pub fn check_chain<T: Element>((rows, cols, sm_count): (usize, usize, usize), backend: Backend) -> Result<(), String> {
    let (dx_def, sum_def) = kernels::<T>();
    let what = format!("{} then {} on {rows}x{cols} for {sm_count} SMs on {backend:?}", dx_def.name, sum_def.name);
    let plan = layer_norm_plan::plan(cols, rows, T::SCALAR.size_bytes() as usize, sm_count)
        .filter(|p| p.form == Form::Persistent)
        .ok_or_else(|| format!("{what}: the plan does not run the persistent form"))?;
    let g = plan.programs;
    let dx = dx_case::<T>(
        "chain",
        (rows, cols),
        (g, cols),
        (plan.block_size_n, plan.num_warps),
        Layout::Contiguous,
        Values::Ordinary,
    );
    let wrote = run_on(&dx_def, &dx, backend).map_err(|e| format!("{what}: {}: {e}", dx_def.name))?;
    let s = plan.sum;
    let mut sum =
        backward_dwdb_case_of::<f32, T>("chain", (g, cols), (cols, 1), (s.block_size_m, s.block_size_n, s.num_warps));
    sum.tensor_mut("dw").data = buffer(&wrote, "dw");
    sum.tensor_mut("db").data = buffer(&wrote, "db");
    let got = run_on(&sum_def, &sum, backend).map_err(|e| format!("{what}: {}: {e}", sum_def.name))?;
    let mut want = sum.clone();
    for (to, term) in [("final_dw", 0), ("final_db", 1)] {
        let mut total = vec![0.0f64; cols];
        for r in 0..rows {
            let g = row_gradients(&dx, r);
            let terms = if term == 0 { &g.dy_x_hat } else { &g.dy };
            total.iter_mut().zip(terms).for_each(|(t, v)| *t += v);
        }
        for (c, v) in total.into_iter().enumerate() {
            put(&mut want, to, &[c], v);
        }
    }
    let rule = chain_rule_for::<T>(rows, rows.div_ceil(g), sum_depth(g, s.block_size_m));
    for name in ["final_dw", "final_db"] {
        let (shown, total) =
            rtriton_testing::compare::differences(&buffer(&got, name), &want.tensor(name).data, &rule, 1);
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

/// How many chain checks ran, or every failure among them, one a line.
pub(super) fn collect_chains(results: impl IntoIterator<Item = Result<(), String>>) -> Result<usize, String> {
    let mut checked = 0;
    let failures: Vec<String> = results.into_iter().inspect(|_| checked += 1).filter_map(Result::err).collect();
    if failures.is_empty() { Ok(checked) } else { Err(failures.join("\n")) }
}

// ---- bench ----

/// The persistent backward's two launches on a contiguous `rows x cols` input of `T` as
/// `plan` says: the dx kernel on `G` programs (its rule for `ceil(rows / G)` rows per
/// partial row), and the sum of `G` partial rows of the suite's data at the plan's
/// blocks.
pub fn bench_launches<T: Element>(rows: usize, cols: usize, plan: BwdPlan) -> Vec<(Suite, Case)> {
    let (dx_def, sum_def) = kernels::<T>();
    let g = plan.programs;
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
    vec![(dx_suite, dx), (sum_suite, sum)]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ports::layer_norm::at;

    /// Every case of both kernels in `T`, on the interpreter and the simulator.
    fn check_cpu<T: Element>() {
        for suite in suites_of::<T>() {
            suite.check_all(Backend::Interpreter);
            suite.check_all(Backend::Simulator);
        }
    }

    #[test]
    fn the_persistent_backward_passes_on_the_interpreter_and_the_simulator_in_f32() {
        check_cpu::<f32>();
    }

    #[test]
    fn the_persistent_backward_passes_on_the_interpreter_and_the_simulator_in_f16() {
        check_cpu::<f16>();
    }

    #[test]
    fn the_persistent_backward_passes_on_the_interpreter_and_the_simulator_in_bf16() {
        check_cpu::<bf16>();
    }

    #[test]
    fn the_two_kernels_chained_give_the_gradients_on_the_interpreter_and_the_simulator() {
        for backend in [Backend::Interpreter, Backend::Simulator] {
            let checked = check_every_chain(backend).unwrap_or_else(|e| panic!("{e}"));
            assert_eq!(checked, 3 * CHAINS.len());
        }
    }

    /// The cases exercise what they are named for: loops of several rows, a program
    /// count not dividing the rows, idle programs, the plan's blocks.
    #[test]
    fn the_dx_cases_loop_leave_programs_idle_and_use_the_planned_blocks() {
        let cases = dx_cases::<f32>();
        let shape = |name: &str| {
            let c = cases.iter().find(|c| c.name == name).unwrap();
            (c.tensor("x").view.shape[0], c.grid[0] as usize, c.num_warps)
        };
        let (rows, programs, warps) = shape("rows_of_1024_on_5_programs");
        assert!(rows > 4 * programs && rows % programs != 0 && warps == 4);
        let (rows, programs, _) = shape("fewer_rows_than_programs");
        assert!(rows < programs);
        assert_eq!(shape("rows_of_4096_on_2_programs").2, 16);
    }

    /// The special-values case's partial rows: the NaN and infinity rows make theirs NaN,
    /// every other is finite, so the constant, zero, subnormal and large rows are checked
    /// through the partial sums too.
    #[test]
    fn special_rows_spoil_only_their_own_partial_rows() {
        let mut case = dx_cases::<f32>().into_iter().find(|c| c.name == "special_values").unwrap();
        dx_reference(&mut case);
        let programs = case.grid[0] as usize;
        let nan_rows: Vec<usize> =
            (0..programs).filter(|&p| (0..37).any(|c| case.tensor("dw").f64_at(&[p, c]).is_nan())).collect();
        assert_eq!(nan_rows, [0, 1]);
    }

    /// The tolerance still catches what a wrong kernel would do: a partial row missing
    /// one of its rows, or a dx with the wrong `c2` (the mean of `w dy` over the block
    /// instead of the row), is outside the rule of every dtype.
    #[test]
    fn the_dx_rule_rejects_a_missing_row_and_a_wrong_mean() {
        fn outside<T: Element>() {
            let suite = dx_suite_of::<T>(kernels::<T>().0);
            let mut right = suite.cases.iter().find(|c| c.name == "non_pow2_1151_on_4_programs").unwrap().clone();
            dx_reference(&mut right);
            let mut missing = right.clone();
            let g = row_gradients(&right, 8);
            for c in 0..1151 {
                let p = missing.tensor("dw").f64_at(&[0, c]);
                put(&mut missing, "dw", &[0, c], p - g.dy_x_hat[c]);
            }
            let differ = |a: &Case, b: &Case, t: &str| {
                rtriton_testing::compare::differences(&a.tensor(t).data, &b.tensor(t).data, &suite.rule, 1).1 > 0
            };
            assert!(differ(&right, &missing, "dw"), "{}: a missing row passes", suite.def.name);
            let mut wrong_mean = right.clone();
            let rstd = at(&right, "rstd", &[2]);
            let wdy_sum: f64 = (0..1151).map(|c| at(&right, "w", &[c]) * at(&right, "dy", &[2, c])).sum();
            let shift = wdy_sum / 1151.0 - wdy_sum / 2048.0;
            for c in 0..1151 {
                let dx = at(&right, "dx", &[2, c]);
                put(&mut wrong_mean, "dx", &[2, c], dx + shift * rstd);
            }
            assert!(differ(&right, &wrong_mean, "dx"), "{}: c2 over the block passes", suite.def.name);
        }
        outside::<f32>();
        outside::<f16>();
        outside::<bf16>();
    }

    /// The suite's rule is one for every output, so it is as loose as `dx` in `T` needs;
    /// the partial rows are `f32` in every dtype and must meet the f32 sum's own bound,
    /// `(r + 3) u r 0.175` (1.1e-6 for the table's 9 rows per program), on the interpreter
    /// and the simulator: what keeping them in f32 buys over the tutorial's `T` partials.
    #[test]
    fn the_partial_rows_meet_the_f32_bound_in_every_dtype() {
        fn check<T: Element>() {
            let suite = dx_suite_of::<T>(kernels::<T>().0);
            for case in &suite.cases {
                let r = rows_per_program(case) as f64;
                let rule = Rule::approx((r + 3.0) * U * r * TERM, (r + 3.0) * U);
                let want = suite.expected(case);
                for got in
                    [run_on(&suite.def, case, Backend::Interpreter), run_on(&suite.def, case, Backend::Simulator)]
                {
                    let got = got.unwrap_or_else(|e| panic!("{} {}: {e}", suite.def.name, case.name));
                    for name in ["dw", "db"] {
                        let (shown, total) =
                            rtriton_testing::compare::differences(&buffer(&got, name), &buffer(&want, name), &rule, 1);
                        assert_eq!(total, 0, "{} {} `{name}` ({rule}): {shown:?}", suite.def.name, case.name);
                    }
                }
            }
        }
        check::<f32>();
        check::<f16>();
        check::<bf16>();
    }

    #[test]
    fn the_sum_cases_use_the_planned_blocks() {
        let cases = sum_cases::<f32>();
        let first = &cases[0];
        assert_eq!(first.constexprs, [("BLOCK_SIZE_M", 256), ("BLOCK_SIZE_N", 8)]);
        assert_eq!(first.grid, [128, 1, 1], "every SM of an H200 gets a program");
    }
}
