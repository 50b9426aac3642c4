//! Layer norm (`layer_norm_fwd_fused`, `layer_norm_bwd_dx_fused`, `layer_norm_bwd_dwdb`,
//! each in f32, f16 and bf16): the cases of each kernel (one table for every dtype), their
//! f64 references and their tolerances.
//!
//! The references compute in f64 from the kernel's inputs (the backward reads the `mean`
//! and `rstd` it is given, as the kernel does) and round once. The kernels compute in f32
//! and add in an order of their own (a block's lanes, then a reduction tree; the partial
//! sums of `dw` and `db` in the order the programs take the lock, which the GPU does not
//! fix), so every output is compared under `approx`'s rule with an absolute and a
//! relative bound derived in `docs/semantics.md` ("Tolerances of the ports"); in f16 and
//! bf16 the roundings to the element type are added on top ([`rule`]). Integers (the lock
//! and count buffer) compare bit for bit. The lock-free persistent backward's suites are
//! in [`super::persistent`]; they are part of this port's `suites`.

use rtriton::ir::ScalarType;
use rtriton::trace::KernelDef;
use rtriton_kernels::ports::layer_norm::{
    bwd_config, fwd_config, layer_norm_bwd_dwdb, layer_norm_bwd_dx_fused, layer_norm_fwd_fused,
};
use rtriton_testing::{Case, Element, Rule, Suite, View};

/// The tutorial's epsilon.
pub const EPS: f32 = 1e-5;

/// What an output buffer holds before the kernel runs: elements the kernel must not write
/// (outside the view, padding, unused partial rows) keep it.
pub(super) const UNWRITTEN: f64 = -1234.5;

/// A value in [-1, 1) that depends only on `(seed, i)` (SplitMix64's finalizer), so the
/// cases are the same on every machine.
fn noise(seed: u64, i: usize) -> f32 {
    let mut z = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15).wrapping_add(i as u64).wrapping_add(0x632B_E59B_D9B4_E019);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^= z >> 31;
    ((z >> 40) as f32 / (1u64 << 24) as f32) * 2.0 - 1.0
}

/// `n` values `center + spread * noise` rounded to `T`: the tutorial's data (`x = -2.3 +
/// 0.5 * randn`, `w`, `b = rand`, `dy = 0.1 * randn`) with uniform noise instead of normal.
pub(super) fn fill<T: Element>(seed: u64, n: usize, center: f64, spread: f64) -> Vec<T> {
    (0..n).map(|i| of(center + spread * f64::from(noise(seed, i)))).collect()
}

/// `v` rounded to `T` (a float type: always defined).
pub(super) fn of<T: Element>(v: f64) -> T {
    T::round_from_f64(v).expect("a float element type")
}

/// The significand bits of a float element type.
pub(super) fn precision(dtype: ScalarType) -> i32 {
    match dtype {
        ScalarType::F16 => 11,
        ScalarType::BF16 => 8,
        // f32 (the layer norm's other element type)
        _ => 24,
    }
}

/// The tolerance of a suite in `T`: `f32`'s bound `(abs, rel)` (which covers the f32 math
/// and, in f32, the rounding of the outputs), plus in f16 and bf16 `roundings` roundings
/// to `T` of values below `max` in magnitude (half an ulp of `T` at `max` each,
/// absolutely; `2^-p` each, relatively).
fn rule<T: Element>((abs, rel): (f64, f64), roundings: f64, max: f64) -> Rule {
    let p = precision(T::SCALAR);
    if p == 24 {
        return Rule::approx(abs, rel);
    }
    let half_ulp = 2f64.powi(max.log2().ceil() as i32 - p);
    Rule::approx(abs + roundings * half_ulp, rel + roundings * 2f64.powi(-p))
}

/// How the tensors of a case lie in their buffers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Layout {
    /// Every tensor contiguous.
    Contiguous,
    /// The rows of the matrices padded and every other column taken, after an offset; the
    /// vectors every second or third element.
    Strided,
    /// The matrices are transposes of contiguous `[cols, rows]` buffers (row stride 1,
    /// column stride `rows`); the vectors contiguous.
    Transposed,
}

impl Layout {
    /// A `[rows, cols]` matrix view.
    pub(super) fn matrix(self, rows: usize, cols: usize) -> View {
        match self {
            Layout::Contiguous => View::contiguous(&[rows, cols]),
            Layout::Strided => View::strided(&[rows, cols], &[(2 * cols + 7) as isize, 2]).with_offset(3),
            Layout::Transposed => View::contiguous(&[cols, rows]).transposed(0, 1),
        }
    }

    /// A vector view of `n` elements; `stride` is used by the strided layout.
    pub(super) fn vector(self, n: usize, stride: usize) -> View {
        match self {
            Layout::Contiguous | Layout::Transposed => View::contiguous(&[n]),
            Layout::Strided => View::strided(&[n], &[stride as isize]).with_offset(1),
        }
    }
}

/// The element of `tensor` at view index `index`, as f64.
pub(super) fn at(case: &Case, tensor: &str, index: &[usize]) -> f64 {
    case.tensor(tensor).f64_at(index)
}

/// Stores `value` (rounded once to the tensor's element type) at view index `index`.
pub(super) fn put(case: &mut Case, tensor: &str, index: &[usize], value: f64) {
    case.tensor_mut(tensor).set_f64(index, value);
}

/// A buffer for an output view, every element [`UNWRITTEN`].
pub(super) fn unwritten<T: Element>(view: &View) -> Vec<T> {
    vec![of(UNWRITTEN); view.min_buffer_len()]
}

/// The f64 mean and `1 / sqrt(var + eps)` of the `cols` values `x` (the forward's
/// definition, with the biased variance as torch and the tutorial use).
pub(super) fn moments(x: &[f64]) -> (f64, f64) {
    moments_with(x, f64::from(EPS), 0.0)
}

/// [`moments`] with another `eps` and `ddof` (the variance divides by `n - ddof`): the
/// tests show that the tolerances tell these apart.
fn moments_with(x: &[f64], eps: f64, ddof: f64) -> (f64, f64) {
    let n = x.len() as f64;
    let mean = x.iter().sum::<f64>() / n;
    let var = x.iter().map(|v| (v - mean) * (v - mean)).sum::<f64>() / (n - ddof).max(1.0);
    (mean, 1.0 / (var + eps).sqrt())
}

// ---- forward ----

/// What the rows of `x` hold.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Values {
    /// The tutorial's data.
    Ordinary,
    /// One row each: a NaN, `+inf`, both infinities, a constant row (variance 0, so `y`
    /// is `b` and `rstd` is `1 / sqrt(eps)`), zeros, subnormals of the element type only,
    /// large values (near 1e17 in f32 and bf16, whose squares near 1e34 are still finite in
    /// f32; near 1e4 in f16, whose largest value is 65504), then ordinary rows.
    Special,
}

/// Row `r` of a [`Values::Special`] case with `cols` columns, as f64 values exact in `T`.
fn special_row<T: Element>(r: usize, cols: usize, ordinary: &[f64]) -> Vec<f64> {
    let mut row = ordinary.to_vec();
    let smallest = T::from_bits64(1).to_f64_exact().expect("a float element type");
    let large = if T::SCALAR == ScalarType::F16 { 1e4 } else { 1e17 };
    match r {
        0 => row[cols / 2] = f64::NAN,
        1 => row[cols - 1] = f64::INFINITY,
        2 => {
            row[0] = f64::INFINITY;
            row[cols - 1] = f64::NEG_INFINITY;
        }
        3 => row.fill(1.5),
        4 => row.fill(0.0),
        5 => row.iter_mut().enumerate().for_each(|(c, v)| *v = smallest * (1 + c * 977 % 1000) as f64),
        6 => row.iter_mut().enumerate().for_each(|(c, v)| *v = large * (1.0 + (c % 7) as f64)),
        _ => {}
    }
    row
}

/// One forward case of element type `T`: `rows x cols`, `BLOCK_SIZE = block`,
/// `num_warps = warps`.
pub fn forward_case<T: Element>(
    name: &str,
    shape: (usize, usize),
    config: (usize, u32),
    layout: Layout,
    values: Values,
) -> Case {
    forward_case_of::<T>(name, shape, config, layout, values, Signature::Tutorial)
}

/// The forward kernels' argument lists: the tutorial's, and the whole-row kernels'
/// (`layer_norm_rows`), which take the row count before `n`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Signature {
    Tutorial,
    WithRowCount,
}

/// [`forward_case`] for a kernel of `signature`, on `rows` programs.
pub(super) fn forward_case_of<T: Element>(
    name: &str,
    (rows, cols): (usize, usize),
    (block, warps): (usize, u32),
    layout: Layout,
    values: Values,
    signature: Signature,
) -> Case {
    let (xv, yv) = (layout.matrix(rows, cols), layout.matrix(rows, cols));
    let (wv, bv) = (layout.vector(cols, 3), layout.vector(cols, 2));
    let (mv, rv) = (layout.vector(rows, 2), layout.vector(rows, 3));
    let mut x: Vec<T> = fill(1, xv.min_buffer_len(), -2.3, 0.9);
    if values == Values::Special {
        for r in 0..rows {
            let ordinary: Vec<f64> = (0..cols).map(|c| x[xv.element(&[r, c])].to_f64_exact().unwrap_or(0.0)).collect();
            for (c, v) in special_row::<T>(r, cols, &ordinary).into_iter().enumerate() {
                x[xv.element(&[r, c])] = of(v);
            }
        }
    }
    let case = Case::new(name)
        .input("x", x, xv.clone())
        .output("y", unwritten::<T>(&yv), yv.clone())
        .input("w", fill::<T>(2, wv.min_buffer_len(), 0.5, 0.5), wv.clone())
        .input("b", fill::<T>(3, bv.min_buffer_len(), 0.5, 0.5), bv.clone())
        .output("mean", unwritten::<f32>(&mv), mv.clone())
        .output("rstd", unwritten::<f32>(&rv), rv.clone())
        .int(xv.strides[0] as i64)
        .int(xv.strides[1] as i64)
        .int(yv.strides[0] as i64)
        .int(yv.strides[1] as i64)
        .int(wv.strides[0] as i64)
        .int(bv.strides[0] as i64)
        .int(mv.strides[0] as i64)
        .int(rv.strides[0] as i64);
    let case = match signature {
        Signature::Tutorial => case,
        Signature::WithRowCount => case.int(rows as i64),
    };
    case.int(cols as i64).f32(EPS).constexpr("BLOCK_SIZE", block as i64).num_warps(warps).grid([rows as u32, 1, 1])
}

/// The forward cases: the tutorial's configuration on a power-of-two and a
/// non-power-of-two width, rows wider than one block (the loops, with a masked tail),
/// rows narrower than a warp, one column, strided and transposed views, special values.
/// (The wide-row block of `fwd_config` is not a suite case: the suites also compile
/// unspecialized, where 64 scalar accesses a thread spill; its own test runs it on the
/// interpreter and the simulator, and `tests/tests/ports_layer_norm.rs` assembles it.)
pub fn forward_cases<T: Element>() -> Vec<Case> {
    use Layout::*;
    use Values::*;
    let forward_case = forward_case::<T>;
    let fwd_config = |n: usize| fwd_config(n, T::SCALAR.size_bytes() as usize);
    vec![
        forward_case("rows_of_1024", (6, 1024), fwd_config(1024), Contiguous, Ordinary),
        forward_case("non_pow2_1151", (5, 1151), fwd_config(1151), Contiguous, Ordinary),
        forward_case("loop_5000_by_1024", (4, 5000), (1024, 4), Contiguous, Ordinary),
        forward_case("loop_300_by_64_one_warp", (5, 300), (64, 1), Contiguous, Ordinary),
        forward_case("narrow_3", (9, 3), fwd_config(3), Contiguous, Ordinary),
        forward_case("one_column", (4, 1), fwd_config(1), Contiguous, Ordinary),
        forward_case("strided_views", (5, 700), (256, 2), Strided, Ordinary),
        forward_case("transposed_views", (6, 97), fwd_config(97), Transposed, Ordinary),
        forward_case("special_values", (9, 37), (16, 1), Contiguous, Special),
    ]
}

/// `y = (x - mean) * rstd * w + b` row by row in f64; `mean` and `rstd` as defined by
/// [`moments`].
pub fn forward_reference(case: &mut Case) {
    forward_reference_with(case, f64::from(EPS), 0.0);
}

/// [`forward_reference`] with the moments of [`moments_with`].
pub(super) fn forward_reference_with(case: &mut Case, eps: f64, ddof: f64) {
    let (rows, cols) = (case.tensor("x").view.shape[0], case.tensor("x").view.shape[1]);
    for r in 0..rows {
        let x: Vec<f64> = (0..cols).map(|c| at(case, "x", &[r, c])).collect();
        let (mean, rstd) = moments_with(&x, eps, ddof);
        for (c, xc) in x.iter().enumerate() {
            let y = (xc - mean) * rstd * at(case, "w", &[c]) + at(case, "b", &[c]);
            put(case, "y", &[r, c], y);
        }
        put(case, "mean", &[r], mean);
        put(case, "rstd", &[r], rstd);
    }
}

/// The forward's tolerance in `T` (`docs/semantics.md`, "Tolerances of the ports"): one
/// rounding of `y` (below 4 in magnitude) to `T`.
pub fn forward_rule<T: Element>() -> Rule {
    rule::<T>((8e-4, 1.3e-4), 1.0, 4.0)
}

/// The forward suite of a `layer_norm_fwd_fused*` kernel whose tensors hold `T`.
pub fn forward_suite_of<T: Element>(def: KernelDef) -> Suite {
    Suite::new(def).cases(forward_cases::<T>()).reference(forward_reference).rule(forward_rule::<T>())
}

/// `layer_norm_fwd_fused` in f32.
pub fn forward_suite() -> Suite {
    forward_suite_of::<f32>(layer_norm_fwd_fused())
}

// ---- backward: dx and the partial sums of dw and db ----

/// One `layer_norm_bwd_dx_fused*` case of element type `T`: `rows x cols`, `GROUP_SIZE_M = group` partial rows
/// (each `partial_stride >= cols` apart), `BLOCK_SIZE_N = block`, `num_warps = warps`.
/// `mean` and `rstd` are what the forward would have stored (computed in f64 from `x`).
pub fn backward_dx_case<T: Element>(
    name: &str,
    (rows, cols): (usize, usize),
    (group, partial_stride): (usize, usize),
    (block, warps): (usize, u32),
    layout: Layout,
) -> Case {
    let (dxv, dyv, xv) = (layout.matrix(rows, cols), layout.matrix(rows, cols), layout.matrix(rows, cols));
    let wv = layout.vector(cols, 2);
    let (mv, rv) = (layout.vector(rows, 3), layout.vector(rows, 2));
    let pv = View::strided(&[group, cols], &[partial_stride as isize, 1]);
    let x: Vec<T> = fill(4, xv.min_buffer_len(), -2.3, 0.9);
    let mut mean: Vec<f32> = fill(5, mv.min_buffer_len(), 0.0, 1.0);
    let mut rstd: Vec<f32> = fill(6, rv.min_buffer_len(), 0.0, 1.0);
    for r in 0..rows {
        let row: Vec<f64> = (0..cols).map(|c| x[xv.element(&[r, c])].to_f64_exact().unwrap_or(0.0)).collect();
        let (m, s) = moments(&row);
        mean[mv.element(&[r])] = m as f32;
        rstd[rv.element(&[r])] = s as f32;
    }
    // The tutorial zeroes the partial buffers; what the kernel must not touch keeps
    // UNWRITTEN (the padding between partial rows), so zero only the view.
    let mut partial = unwritten::<T>(&pv);
    for g in 0..group {
        for c in 0..cols {
            partial[pv.element(&[g, c])] = of(0.0);
        }
    }
    Case::new(name)
        .output("dx", unwritten::<T>(&dxv), dxv.clone())
        .input("dy", fill::<T>(7, dyv.min_buffer_len(), 0.0, 0.1), dyv.clone())
        .output("dw", partial.clone(), pv.clone())
        .output("db", partial, pv.clone())
        .input("x", x, xv.clone())
        .input("w", fill::<T>(8, wv.min_buffer_len(), 0.5, 0.5), wv.clone())
        .input("mean", mean, mv.clone())
        .input("rstd", rstd, rv.clone())
        .output("lock", vec![0i32; 2 * group], View::contiguous(&[2 * group]))
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
        .int(cols as i64)
        .constexpr("GROUP_SIZE_M", group as i64)
        .constexpr("BLOCK_SIZE_N", block as i64)
        .num_warps(warps)
        .grid([rows as u32, 1, 1])
}

/// The dx cases: the tutorial's configuration on a non-power-of-two width with several
/// rows per partial row, more partial rows than rows (some stay untouched, their count 0),
/// one partial row for all rows (every program waits for the previous one's lock),
/// strided views with padded partial rows, transposed views.
pub fn backward_dx_cases<T: Element>() -> Vec<Case> {
    use Layout::*;
    let backward_dx_case = backward_dx_case::<T>;
    let bwd = |n| bwd_config(n, 4).expect("rows within the tutorial's 64 KB");
    vec![
        backward_dx_case("non_pow2_1151_group_4", (10, 1151), (4, 1151), bwd(1151), Contiguous),
        backward_dx_case("rows_of_1024_group_3", (7, 1024), (3, 1024), bwd(1024), Contiguous),
        backward_dx_case("more_groups_than_rows", (3, 100), (8, 100), bwd(100), Contiguous),
        backward_dx_case("one_group", (9, 64), (1, 64), (64, 1), Contiguous),
        backward_dx_case("narrow_3", (5, 3), (2, 3), bwd(3), Contiguous),
        backward_dx_case("strided_views", (6, 300), (2, 307), (512, 2), Strided),
        backward_dx_case("transposed_views", (8, 33), (3, 36), bwd(33), Transposed),
    ]
}

/// What row `r` of a backward case contributes, in f64 from the case's inputs (its
/// `mean` and `rstd` as given): its `dx`, and its terms of `dw` and `db`.
pub(super) struct RowGradients {
    pub dx: Vec<f64>,
    pub dy_x_hat: Vec<f64>,
    pub dy: Vec<f64>,
}

/// Row `r`'s [`RowGradients`]: `x_hat = (x - mean) * rstd`, `c1 = mean(x_hat w dy)`,
/// `c2 = mean(w dy)`, `dx = (w dy - (x_hat c1 + c2)) * rstd`.
pub(super) fn row_gradients(case: &Case, r: usize) -> RowGradients {
    let cols = case.tensor("x").view.shape[1];
    let (mean, rstd) = (at(case, "mean", &[r]), at(case, "rstd", &[r]));
    let x_hat: Vec<f64> = (0..cols).map(|c| (at(case, "x", &[r, c]) - mean) * rstd).collect();
    let dy: Vec<f64> = (0..cols).map(|c| at(case, "dy", &[r, c])).collect();
    let wdy: Vec<f64> = (0..cols).map(|c| at(case, "w", &[c]) * dy[c]).collect();
    let c1 = x_hat.iter().zip(&wdy).map(|(a, b)| a * b).sum::<f64>() / cols as f64;
    let c2 = wdy.iter().sum::<f64>() / cols as f64;
    let dx = (0..cols).map(|c| (wdy[c] - (x_hat[c] * c1 + c2)) * rstd).collect();
    let dy_x_hat = (0..cols).map(|c| dy[c] * x_hat[c]).collect();
    RowGradients { dx, dy_x_hat, dy }
}

/// `dx = (w dy - (x_hat c1 + c2)) * rstd` with `x_hat = (x - mean) * rstd`,
/// `c1 = mean(x_hat w dy)`, `c2 = mean(w dy)`; partial row `g` of `dw` / `db` the sum of
/// `dy * x_hat` / `dy` over the rows `r` with `r % GROUP_SIZE_M == g`; every lock 0 again
/// and the count of each partial row that received a row 1.
pub fn backward_dx_reference(case: &mut Case) {
    let (rows, cols) = (case.tensor("x").view.shape[0], case.tensor("x").view.shape[1]);
    let group = case.tensor("dw").view.shape[0];
    let mut dw = vec![vec![0.0f64; cols]; group];
    let mut db = vec![vec![0.0f64; cols]; group];
    for r in 0..rows {
        let g = row_gradients(case, r);
        for c in 0..cols {
            put(case, "dx", &[r, c], g.dx[c]);
            dw[r % group][c] += g.dy_x_hat[c];
            db[r % group][c] += g.dy[c];
        }
    }
    for g in 0..group.min(rows) {
        for c in 0..cols {
            put(case, "dw", &[g, c], dw[g][c]);
            put(case, "db", &[g, c], db[g][c]);
        }
        case.tensor_mut("lock").set_i32(&[group + g], 1);
    }
}

/// The dx kernel's tolerance in `T` for the case table (at most 9 rows per partial row;
/// see [`backward_dx_rule_for`]).
pub fn backward_dx_rule<T: Element>() -> Rule {
    backward_dx_rule_for::<T>(9)
}

/// The dx kernel's tolerance in `T` when up to `r` rows add into one partial row
/// (`docs/semantics.md`, "Tolerances of the ports"): `dx` within 2e-5 (the table's widest
/// block), a partial row within `(r + 3) u r 0.175` (each term `|dy x_hat| <= 0.1 * 1.75`
/// with the cases' data) and relatively `(r + 3) u`; in f16 and bf16 a partial row is
/// also rounded to `T` once per row added and once when stored, its values below `r 0.175`
/// (at least 2).
pub fn backward_dx_rule_for<T: Element>(r: usize) -> Rule {
    const U: f64 = 1.0 / (1u64 << 24) as f64;
    let r = r as f64;
    let largest = (r * 0.175).max(2.0);
    rule::<T>((((r + 3.0) * U * largest).max(2e-5), ((r + 3.0) * U).max(1e-6)), r + 1.0, largest)
}

/// The dx suite of a `layer_norm_bwd_dx_fused*` kernel whose tensors hold `T`.
pub fn backward_dx_suite_of<T: Element>(def: KernelDef) -> Suite {
    Suite::new(def).cases(backward_dx_cases::<T>()).reference(backward_dx_reference).rule(backward_dx_rule::<T>())
}

/// `layer_norm_bwd_dx_fused` in f32.
pub fn backward_dx_suite() -> Suite {
    backward_dx_suite_of::<f32>(layer_norm_bwd_dx_fused())
}

// ---- backward: the sums of the partial dw and db ----

/// One `layer_norm_bwd_dwdb*` case of element type `T`: `m` partial rows of `cols` columns `partial_stride`
/// apart, summed by programs of `BLOCK_SIZE_M x BLOCK_SIZE_N = block`; the final
/// gradients at stride `final_stride`.
pub fn backward_dwdb_case<T: Element>(
    name: &str,
    (m, cols): (usize, usize),
    (partial_stride, final_stride): (usize, usize),
    blocks: (usize, usize, u32),
) -> Case {
    backward_dwdb_case_of::<T, T>(name, (m, cols), (partial_stride, final_stride), blocks)
}

/// [`backward_dwdb_case`] with partial rows of `P` (values in [-0.3, 0.3]) and gradients of
/// `T`: `layer_norm_bwd_dwdb_from_f32*` sums `f32` partial rows.
pub fn backward_dwdb_case_of<P: Element, T: Element>(
    name: &str,
    (m, cols): (usize, usize),
    (partial_stride, final_stride): (usize, usize),
    (block_m, block_n, warps): (usize, usize, u32),
) -> Case {
    let pv = View::strided(&[m, cols], &[partial_stride as isize, 1]);
    let fv = View::strided(&[cols], &[final_stride as isize]).with_offset(final_stride - 1);
    Case::new(name)
        .input("dw", fill::<P>(9, pv.min_buffer_len(), 0.0, 0.3), pv.clone())
        .input("db", fill::<P>(10, pv.min_buffer_len(), 0.0, 0.3), pv.clone())
        .output("final_dw", unwritten::<T>(&fv), fv.clone())
        .output("final_db", unwritten::<T>(&fv), fv.clone())
        .int(partial_stride as i64)
        .int(partial_stride as i64)
        .int(final_stride as i64)
        .int(final_stride as i64)
        .int(m as i64)
        .int(cols as i64)
        .constexpr("BLOCK_SIZE_M", block_m as i64)
        .constexpr("BLOCK_SIZE_N", block_n as i64)
        .num_warps(warps)
        .grid([cols.div_ceil(block_n) as u32, 1, 1])
}

/// The dw/db cases: the tutorial's 256 partial rows and `32 x 128` blocks on a width that
/// leaves a masked tail, fewer partial rows than one block, padded partial rows with
/// strided outputs, one warp.
pub fn backward_dwdb_cases<T: Element>() -> Vec<Case> {
    let backward_dwdb_case = backward_dwdb_case::<T>;
    vec![
        backward_dwdb_case("tutorial_256x1000", (256, 1000), (1000, 1), (32, 128, 4)),
        backward_dwdb_case("five_rows", (5, 130), (130, 1), (32, 128, 4)),
        backward_dwdb_case("strided", (7, 200), (203, 2), (32, 128, 4)),
        backward_dwdb_case("one_warp", (40, 50), (50, 1), (8, 32, 1)),
    ]
}

/// `final[c] = sum_g partial[g, c]` for `dw` and `db`, in f64.
pub fn backward_dwdb_reference(case: &mut Case) {
    let (m, cols) = (case.tensor("dw").view.shape[0], case.tensor("dw").view.shape[1]);
    for (from, to) in [("dw", "final_dw"), ("db", "final_db")] {
        for c in 0..cols {
            let total = (0..m).map(|g| at(case, from, &[g, c])).sum::<f64>();
            put(case, to, &[c], total);
        }
    }
}

/// The dw/db sum's tolerance in `T` (`docs/semantics.md`, "Tolerances of the ports"): one
/// rounding of the sums (below 16 in magnitude) to `T`.
pub fn backward_dwdb_rule<T: Element>() -> Rule {
    rule::<T>((2e-4, 2.4e-6), 1.0, 16.0)
}

/// The dw/db suite of a `layer_norm_bwd_dwdb*` kernel whose tensors hold `T`.
pub fn backward_dwdb_suite_of<T: Element>(def: KernelDef) -> Suite {
    Suite::new(def).cases(backward_dwdb_cases::<T>()).reference(backward_dwdb_reference).rule(backward_dwdb_rule::<T>())
}

/// `layer_norm_bwd_dwdb` in f32.
pub fn backward_dwdb_suite() -> Suite {
    backward_dwdb_suite_of::<f32>(layer_norm_bwd_dwdb())
}
