//! Reductions (`rtriton_kernels::ports::reduce`): row-wise and column-wise `sum`, `max`,
//! `min`, `argmax`, `argmin` of `f32`, `i32`, `f16` and `bf16` views, one suite per
//! kernel, all from one case table and one f64 reference.
//!
//! The cases cross shapes that are not powers of two (1 x 1, 3 x 7, 1000 x 1, 1 x 5000,
//! 257 x 1000) and every 2-D view of `rtriton_testing::table::views_2d` (padded rows, a
//! transpose, reversed rows and columns, an offset, a broadcast row) with fills: ordinary
//! values, ties (few distinct values, so equal extremes sit in different accumulators and
//! loop iterations), signed zeros, lines that each hold one special value (NaN with
//! payloads, infinities, subnormals, the extremes), lines of only NaN, and every special
//! value cycled. Buffer elements outside the view hold a poison value, so a stray read
//! changes a result, and the output is a strided view in some cases, so a stray write
//! shows.
//!
//! Rules: `max`, `min`, `argmax`, `argmin` and every `i32` result are bit for bit. A float
//! `sum` is within [`Kernel::rule`] of the f64 reference: the kernel adds in f32 (`f16` and
//! `bf16` too, rounding the total once) along each accumulator's loop and then in a
//! balanced tree, `d = ceil(n / B) - 1 + log2(B)` roundings deep for a line of `n` in tiles
//! of `B`, so its error is at most `d * 2^-24 * sum |x|`, plus one rounding to the dtype;
//! `sum_rule_covers_the_error_bound_of_every_case` checks that bound against the rule on
//! every line of every case.

use rtriton_kernels::ports::reduce::{self as kernels, Direction, blocks, grid};
use rtriton_kernels::ports::reduce_plan::{ColPlan, NUM_WARPS, SplitPlan, col_plan, row_launch};
use rtriton_testing::table::views_2d;
use rtriton_testing::{Case, NanRule, Rule, Suite, Tolerance, View};

use super::Port;
use super::bench::{BenchPoint, SHAPES_2D, Target, elem_bytes};
use super::dtype::{Dtype, mix, uniform};
use super::example::ExampleCase;
use super::reduce_split;

pub const PORT: Port = Port {
    name: "reduce",
    about: "torch.sum/amax/amin/argmax/argmin(x, dim) as Triton kernels: row- and column-wise over strided views, f32/i32/f16/bf16",
    kernels: || {
        let mut defs: Vec<_> = Kernel::all().into_iter().map(Kernel::def).collect();
        defs.extend(reduce_split::kernels());
        defs
    },
    suites,
    bench: bench_points,
    example,
};

/// The peer script's reduction points (`bench/peers/tutorial_peers.py`: `sum`, `amax`,
/// `argmax` along dim 1 and dim 0 of its 2-D shapes; `argmax` in f32 only) on a
/// contiguous input, each launch checked against its suite's reference before it is
/// timed: row-wise (`dim1`) the direct kernel as `reduce_plan::row_launch` launches it
/// for the measured device's SM count (one row per program at 8 warps where few rows
/// loop); column-wise
/// (`dim0`) as `reduce_plan::col_plan` launches it for the measured device's SM count
/// (`Target`): the direct kernel, or where it splits the one-launch kernel
/// (`col_{op}_fused_*`) or the partials and combine kernels timed together (the combine
/// reads partials the CPU reference computed, in a buffer of its own), as
/// `Kernel::one_launch` says. Each `dim0` point has a second row, variant `dim0, other
/// split form`, where the plan splits: the form the plan did not pick; the peer script has
/// no row for it. Bytes: the input read and the results written (an `i32` per
/// argmax; torch writes `i64`), not the partials.
pub fn bench_points() -> Vec<BenchPoint> {
    let mut out = Vec::new();
    for (name, op) in [("sum", Op::Sum), ("amax", Op::Max), ("argmax", Op::ArgMax)] {
        for dtype in [Dtype::F32, Dtype::F16, Dtype::BF16, Dtype::I32] {
            for (rows, cols) in SHAPES_2D {
                for (variant, direction) in [("dim1", Direction::Rows), ("dim0", Direction::Cols)] {
                    let kernel = Kernel { op, direction, dtype };
                    let n_results = lines(direction, rows, cols).0 as u64;
                    let result_bytes = if op == Op::ArgMax { 4 } else { elem_bytes(dtype.name()) };
                    out.push(BenchPoint {
                        kernel: name,
                        variant,
                        dtype: dtype.name(),
                        shape: vec![rows, cols],
                        bytes: (rows * cols) as u64 * elem_bytes(dtype.name()) + n_results * result_bytes,
                        flops: 0,
                        launches: Box::new(move |target: Target| bench_launches(kernel, rows, cols, target)),
                    });
                    if direction == Direction::Cols {
                        out.push(BenchPoint {
                            kernel: name,
                            variant: "dim0, other split form",
                            dtype: dtype.name(),
                            shape: vec![rows, cols],
                            bytes: (rows * cols) as u64 * elem_bytes(dtype.name()) + n_results * result_bytes,
                            flops: 0,
                            launches: Box::new(move |target: Target| other_split_form(kernel, rows, cols, target)),
                        });
                    }
                }
            }
        }
    }
    out
}

/// The launches of one bench point on `target` (see [`bench_points`]).
fn bench_launches(kernel: Kernel, rows: usize, cols: usize, target: Target) -> Vec<(Suite, Case)> {
    let (blocks, num_warps) = match kernel.direction {
        Direction::Rows => {
            let row = row_launch(rows, cols, target.sm_count);
            (row.blocks, row.num_warps)
        }
        Direction::Cols => match col_plan(reduce_split::elem_bytes(kernel.dtype), rows, cols, target.sm_count) {
            ColPlan::Direct { blocks } => (blocks, NUM_WARPS),
            ColPlan::Split(plan) if kernel.one_launch(&plan, cols) => {
                return reduce_split::bench_launch(kernel, rows, cols, plan);
            }
            ColPlan::Split(plan) => return reduce_split::bench_launches(kernel, rows, cols, plan),
        },
    };
    let case = case(kernel, "bench", View::contiguous(&[rows, cols]), Fill::Ordinary, 1, Some(blocks))
        .num_warps(num_warps as u32);
    let n = lines(kernel.direction, rows, cols).1;
    let b = match kernel.direction {
        Direction::Rows => blocks.1,
        Direction::Cols => blocks.0,
    };
    let suite = kernel.suite().rule(rule_for_depth(kernel.rule(), sum_depth(kernel.direction, n, b)));
    vec![(suite, case)]
}

/// The `dim0, other split form` points' launches: where the plan splits, the form it did
/// not pick (two launches for one, one for two); the direct kernel (as the `dim0` point)
/// where it does not split.
fn other_split_form(kernel: Kernel, rows: usize, cols: usize, target: Target) -> Vec<(Suite, Case)> {
    match col_plan(reduce_split::elem_bytes(kernel.dtype), rows, cols, target.sm_count) {
        ColPlan::Split(plan) if kernel.one_launch(&plan, cols) => {
            reduce_split::bench_launches(kernel, rows, cols, plan)
        }
        ColPlan::Split(plan) => reduce_split::bench_launch(kernel, rows, cols, plan),
        ColPlan::Direct { .. } => bench_launches(kernel, rows, cols, target),
    }
}

/// Float roundings on the deepest path of a `sum` over a line of `n` elements in tiles of
/// `b`: along the loop, then the tile's tree along a row (`reduce` with `+`, balanced) or
/// its sum across rows (`sum`, any order: see `Sum::finish` in the kernels).
pub(super) fn sum_depth(direction: Direction, n: usize, b: usize) -> usize {
    match direction {
        Direction::Rows => n.div_ceil(b) - 1 + b.ilog2() as usize,
        Direction::Cols => rtriton_kernels::ports::reduce_plan::col_sum_depth(n, b),
    }
}

/// The rule a bench launch is checked under: `rule`, except that a float sum whose
/// results are `depth` roundings deep (deeper than the suites': the peer script's lines
/// reach 32768 elements) allows `2.5 depth 2^-24` relative: the a-priori bound with the
/// ordinary fill's `sum |x| / |sum x|` of about 1.25, doubled.
pub(super) fn rule_for_depth(rule: Rule, depth: usize) -> Rule {
    let Tolerance::Approx { epsilon, max_relative } = rule.tolerance else {
        return rule;
    };
    Rule::approx(epsilon, max_relative.max(2.5 * depth as f64 * f64::from(f32::EPSILON) / 2.0))
}

/// What `cargo run --example reduce [-- --dtype f32|f16|bf16|i32]` runs: a sum along the
/// rows and an argmax along the columns of a 257 x 1000 tensor, and a min along the rows
/// of a transposed view, in the dtype asked for.
pub fn example() -> Vec<ExampleCase> {
    let mut cases = Vec::new();
    for dtype in Kernel::DTYPES {
        let kernel = |op, direction| Kernel { op, direction, dtype }.suite();
        cases.push(ExampleCase::new(dtype.name(), kernel(Op::Sum, Direction::Rows), "257x1000"));
        cases.push(ExampleCase::new(dtype.name(), kernel(Op::ArgMax, Direction::Cols), "257x1000"));
        cases.push(ExampleCase::new(dtype.name(), kernel(Op::Min, Direction::Rows), "view_transposed"));
    }
    cases
}

/// A float sum's tolerance in `f32`: `2^-18` relative, or `2^-19` absolute for sums near
/// zero (the error bound of the module doc, checked against every case's lines; it was
/// `2^-19` relative until column tiles of up to 16 rows finished with `sum`, whose any
/// order is up to 15 roundings deep where the tree was 4).
pub const SUM_RULE_F32: Rule = Rule {
    tolerance: Tolerance::Approx { epsilon: 1.0 / 524_288.0, max_relative: 1.0 / 262_144.0 },
    nan: NanRule::AnyNan,
};

/// What a kernel computes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Op {
    Sum,
    Max,
    Min,
    ArgMax,
    ArgMin,
}

impl Op {
    pub const ALL: [Op; 5] = [Op::Sum, Op::Max, Op::Min, Op::ArgMax, Op::ArgMin];

    pub fn name(self) -> &'static str {
        match self {
            Op::Sum => "sum",
            Op::Max => "max",
            Op::Min => "min",
            Op::ArgMax => "argmax",
            Op::ArgMin => "argmin",
        }
    }

    pub fn is_index(self) -> bool {
        matches!(self, Op::ArgMax | Op::ArgMin)
    }
}

/// One reduction kernel: what, along which dimension, of which type.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Kernel {
    pub op: Op,
    pub direction: Direction,
    pub dtype: Dtype,
}

impl Kernel {
    pub const DTYPES: [Dtype; 4] = [Dtype::F32, Dtype::F16, Dtype::BF16, Dtype::I32];

    /// Whether a split of this kernel runs as one launch: [`SplitPlan::one_launch`], except
    /// the `i32` index reductions, which take two. H200 (2026-12-05)
    /// (the H200 record of 2026-12-05 at `6bf5b8e`): `argmax` over `i32` columns in
    /// one launch ran at 1.95 and 2.24 TB/s at 4096x16384 and 2048x32768 (0.72x and 0.82x of
    /// torch), in two at 3.13 and 3.11; at the other shapes the two forms were within 2%
    /// (4096x4096: 1.54 against 1.87). `f32` `argmax` is the other way round (3.39 in one
    /// launch, 2.93 in two). Registers do not explain it (ptxas for sm_90: 68 for
    /// the `i32` one-launch kernel, 64 for its partials kernel, 56 for both in `f32`); the
    /// cause is not known yet. `argmin` runs the same code with the comparison turned (68
    /// registers too) and was not timed apart: it follows `argmax`.
    pub fn one_launch(self, plan: &SplitPlan, n_cols: usize) -> bool {
        plan.one_launch(n_cols) && !(self.op.is_index() && self.dtype == Dtype::I32)
    }

    /// Every kernel of the port, in the order `validate` runs them.
    pub fn all() -> Vec<Kernel> {
        let mut all = Vec::new();
        for dtype in Kernel::DTYPES {
            for direction in [Direction::Rows, Direction::Cols] {
                for op in Op::ALL {
                    all.push(Kernel { op, direction, dtype });
                }
            }
        }
        all
    }

    /// `row_sum_f32`, ...: the kernel's name in `rtriton_kernels::ports::reduce`.
    pub fn name(self) -> String {
        format!("{}_{}_{}", self.direction.name(), self.op.name(), self.dtype.name())
    }

    pub fn def(self) -> rtriton::trace::KernelDef {
        let name = self.name();
        // Every (op, direction, dtype) has a kernel: `every_kernel_exists` checks the table.
        kernels::all().into_iter().find(|d| d.name == name).unwrap_or_else(|| panic!("no reduction kernel `{name}`"))
    }

    /// The comparison rule of its suite (module doc).
    pub fn rule(self) -> Rule {
        match (self.op, self.dtype) {
            (Op::Sum, Dtype::F32) => SUM_RULE_F32,
            // The f32 sum's error and one rounding to the dtype: a unit of its last place
            // relative (2^-10, 2^-7), or the f32 rule's absolute 2^-19 near zero.
            (Op::Sum, Dtype::F16) => Rule::approx(1.0 / 524_288.0, 1.0 / 1024.0),
            (Op::Sum, Dtype::BF16) => Rule::approx(1.0 / 524_288.0, 1.0 / 128.0),
            (Op::Sum, Dtype::I32) | (Op::Max | Op::Min | Op::ArgMax | Op::ArgMin, _) => Rule::BITS,
        }
    }

    pub fn suite(self) -> Suite {
        Suite::new(self.def()).cases(cases(self)).reference(move |case| reference(self, case)).rule(self.rule())
    }
}

/// Every kernel's suite, then the split column reductions' partials and combine suites.
pub fn suites() -> Vec<Suite> {
    let mut all: Vec<Suite> = Kernel::all().into_iter().map(Kernel::suite).collect();
    all.extend(reduce_split::suites());
    all
}

/// The values of a case: a function of (kept index, index along the reduced dimension,
/// length of the reduced dimension).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Fill {
    /// Distinct ordinary values (floats with full mantissas in [-1, 3), rounded to the
    /// dtype; `i32` over its whole range, so sums wrap).
    Ordinary,
    /// Five distinct values, so every line has ties across accumulators and iterations.
    Ties,
    /// `-0.0` and `+0.0` (`i32`: 0) among negative values: the extremum is a signed zero.
    SignedZeros,
    /// Ordinary values and one special value per line, a different one on each line; one
    /// line holds both infinities.
    OneSpecial,
    /// Every line only NaN (`i32`: the lowest value), payloads and signs mixed.
    AllNan,
    /// Lines NaN (`i32`: the lowest value) over their first none, quarter, half or three
    /// quarters (line `k % 4`), ordinary after; on every fourth line the rest is `+inf` and
    /// `-inf` alternating, or only `-inf`, or only `+inf` (`i32`: the extremes): chunks of
    /// only NaN next to chunks whose extremum is an infinity, or equals the start value
    /// of `argmax` / `argmin` (the split cases).
    NanHead,
    /// The special values cycled with ordinary ones (not for float sums: the order of
    /// `MAX + MAX - MAX` decides between `inf` and `MAX`).
    Specials,
}

/// Line `k`'s element `j` (of `n`) as `dtype`'s bits.
pub(super) fn value(dtype: Dtype, fill: Fill, k: usize, j: usize, n: usize) -> u64 {
    let h = mix(k, j);
    let ordinary = |h: u64| match dtype {
        Dtype::I32 => h >> 32,
        Dtype::F32 | Dtype::F16 | Dtype::BF16 => dtype.bits_of(uniform(h, -1.0, 3.0)),
    };
    let small = |h: u64| dtype.bits_of((h % 1000) as f64 - 500.0);
    let specials = || dtype.specials();
    // The dtype's NaNs (quiet, with a payload and the sign, signalling), mixed; `i32`'s
    // lowest value.
    let nan = |h: u64| match dtype.float() {
        Some(format) => {
            let nans: Vec<u64> = specials().into_iter().filter(|&b| format.is_nan(b)).collect();
            nans[(h % nans.len() as u64) as usize]
        }
        None => dtype.bits_of(f64::from(i32::MIN)),
    };
    match fill {
        Fill::Ordinary => ordinary(h),
        Fill::Ties => dtype.bits_of((h % 5) as f64 - 2.0),
        Fill::SignedZeros => match h % 3 {
            0 => dtype.bits_of(0.0),
            1 => dtype.bits_of(-0.0),
            _ => dtype.bits_of(-1.0 - (h % 7) as f64),
        },
        Fill::OneSpecial => {
            // After the dtype's special values, a line with +inf and -inf (their sum is
            // NaN; for i32 the extremes again).
            let specials = specials();
            let s = k % (specials.len() + 1);
            if j == (k * 5) % n {
                specials.get(s).copied().unwrap_or_else(|| dtype.bits_of(f64::INFINITY))
            } else if s == specials.len() && j == (k * 5 + 1) % n {
                dtype.bits_of(f64::NEG_INFINITY)
            } else if dtype == Dtype::I32 {
                small(h)
            } else {
                ordinary(h)
            }
        }
        Fill::AllNan => nan(h),
        Fill::NanHead => {
            let infinity = |positive: bool| match (dtype, positive) {
                (Dtype::I32, true) => dtype.bits_of(f64::from(i32::MAX)),
                (Dtype::I32, false) => dtype.bits_of(f64::from(i32::MIN)),
                (_, true) => dtype.bits_of(f64::INFINITY),
                (_, false) => dtype.bits_of(f64::NEG_INFINITY),
            };
            if j < n * (k % 4) / 4 {
                nan(h)
            } else if k % 4 == 3 {
                match (k / 4) % 3 {
                    0 => infinity(j.is_multiple_of(2)),
                    1 => infinity(false),
                    _ => infinity(true),
                }
            } else {
                ordinary(h)
            }
        }
        Fill::Specials => {
            let specials = specials();
            if (k + j) % 3 == 2 { small(h) } else { specials[(k + j) % specials.len()] }
        }
    }
}

/// The view index of element `j` of line `k`.
fn index(direction: Direction, k: usize, j: usize) -> [usize; 2] {
    match direction {
        Direction::Rows => [k, j],
        Direction::Cols => [j, k],
    }
}

/// (number of lines, their length) of an `n_rows x n_cols` input.
pub(super) fn lines(direction: Direction, n_rows: usize, n_cols: usize) -> (usize, usize) {
    match direction {
        Direction::Rows => (n_rows, n_cols),
        Direction::Cols => (n_cols, n_rows),
    }
}

/// A case: `x` is `view` (an `n_rows x n_cols` view) filled with `fill`; the results go to
/// a view of `y` with stride `y_stride`; blocks as the launcher chooses them for 4 warps,
/// or `blocks_override`.
pub(super) fn case(
    kernel: Kernel,
    name: &str,
    view: View,
    fill: Fill,
    y_stride: usize,
    blocks_override: Option<(usize, usize)>,
) -> Case {
    let (n_rows, n_cols) = (view.shape[0], view.shape[1]);
    let (n_kept, n_along) = lines(kernel.direction, n_rows, n_cols);
    let b = blocks_override.unwrap_or_else(|| blocks(kernel.direction, n_rows, n_cols, 4));
    let x = kernel.dtype.through_view(&view, |i| {
        let (k, j) = match kernel.direction {
            Direction::Rows => (i[0], i[1]),
            Direction::Cols => (i[1], i[0]),
        };
        value(kernel.dtype, fill, k, j, n_along)
    });
    let y_view = View::strided(&[n_kept], &[y_stride as isize]);
    let y_dtype = if kernel.op.is_index() { Dtype::I32 } else { kernel.dtype };
    let strides = view.strides.clone();
    Case::new(name)
        .input("x", x, view)
        .output("y", y_dtype.poisoned(&y_view), y_view)
        .int(n_rows as i64)
        .int(n_cols as i64)
        .int(strides[0] as i64)
        .int(strides[1] as i64)
        .int(y_stride as i64)
        .constexpr("BLOCK_M", b.0 as i64)
        .constexpr("BLOCK_N", b.1 as i64)
        .grid(grid(kernel.direction, n_rows, n_cols, b))
}

/// The cases of `kernel` (see the module doc).
pub fn cases(kernel: Kernel) -> Vec<Case> {
    let contiguous = |r: usize, c: usize| View::contiguous(&[r, c]);
    let float_sum = kernel.dtype != Dtype::I32 && kernel.op == Op::Sum;
    let mut cases = vec![
        case(kernel, "1x1", contiguous(1, 1), Fill::Ordinary, 1, None),
        case(kernel, "3x7", contiguous(3, 7), Fill::Ordinary, 1, None),
        case(kernel, "1000x1", contiguous(1000, 1), Fill::Ordinary, 1, None),
        case(kernel, "1x5000", contiguous(1, 5000), Fill::Ordinary, 1, None),
        case(kernel, "257x1000", contiguous(257, 1000), Fill::Ordinary, 1, None),
        // Small blocks, so short lines still loop and a block has a masked tail.
        case(kernel, "37x45_small_blocks", contiguous(37, 45), Fill::Ordinary, 1, Some((8, 16))),
        case(kernel, "ties", contiguous(67, 1030), Fill::Ties, 1, Some((4, 64))),
        case(kernel, "signed_zeros", contiguous(40, 33), Fill::SignedZeros, 1, Some((8, 8))),
        case(kernel, "one_special_per_line", contiguous(48, 29), Fill::OneSpecial, 1, None),
        case(kernel, "all_nan", contiguous(5, 9), Fill::AllNan, 1, None),
        case(kernel, "nan_head", contiguous(40, 12), Fill::NanHead, 1, Some((8, 8))),
        case(kernel, "all_nan_one_element", contiguous(1, 1), Fill::AllNan, 1, None),
        case(kernel, "strided_output", contiguous(19, 23), Fill::Ordinary, 3, None),
        case(kernel, "one_warp", contiguous(21, 70), Fill::Ordinary, 1, Some(blocks(kernel.direction, 21, 70, 1)))
            .num_warps(1),
    ];
    if kernel.direction == Direction::Rows {
        // Few wide rows: one row a program at 8 warps, as `row_launch` plans them (here on
        // one SM), with a masked tail in the last trip.
        let launch = row_launch(5, 4500, 1);
        cases.push(
            case(kernel, "wide_rows_planned", contiguous(5, 4500), Fill::Ordinary, 1, Some(launch.blocks))
                .num_warps(launch.num_warps as u32),
        );
    }
    if !float_sum {
        cases.push(case(kernel, "specials", contiguous(29, 31), Fill::Specials, 1, None));
    }
    for (name, view) in views_2d(37, 45) {
        cases.push(case(kernel, &format!("view_{name}"), view, Fill::Ordinary, 1, None));
    }
    cases.push(case(kernel, "view_transposed_ties", views_2d(45, 70).remove(2).1, Fill::Ties, 2, Some((16, 16))));
    cases
}

/// Writes the expected result of every line of `case` into `y`, computed from the view
/// with the rules of the module doc (in f64, which holds every value of the dtypes
/// exactly; `i32` sums wrap).
pub fn reference(kernel: Kernel, case: &mut Case) {
    let x = case.tensor("x").clone();
    let (n_kept, n_along) = lines(kernel.direction, x.view.shape[0], x.view.shape[1]);
    let y = case.tensor_mut("y");
    for k in 0..n_kept {
        let at = |j: usize| index(kernel.direction, k, j);
        if kernel.dtype == Dtype::I32 && kernel.op == Op::Sum {
            let sum = (0..n_along).fold(0i32, |a, j| a.wrapping_add(x.at::<i32>(&at(j))));
            y.set_i32(&[k], sum);
            continue;
        }
        let line: Vec<f64> = (0..n_along).map(|j| x.f64_at(&at(j))).collect();
        let (lowest, highest) = match kernel.dtype {
            Dtype::I32 => (f64::from(i32::MIN), f64::from(i32::MAX)),
            Dtype::F32 | Dtype::F16 | Dtype::BF16 => (f64::NEG_INFINITY, f64::INFINITY),
        };
        match kernel.op {
            Op::Sum => y.set_f64(&[k], line.iter().fold(0.0, |a, b| a + b)),
            Op::Max => y.set_f64(&[k], line.iter().fold(lowest, |a, &b| max_ignoring_nan(a, b))),
            Op::Min => y.set_f64(&[k], line.iter().fold(highest, |a, &b| min_ignoring_nan(a, b))),
            Op::ArgMax => y.set_i32(&[k], first_index(&line, |a, b| a > b)),
            Op::ArgMin => y.set_i32(&[k], first_index(&line, |a, b| a < b)),
        }
    }
}

/// PTX's `max`: NaN ignored, `+0.0 > -0.0`.
pub(super) fn max_ignoring_nan(a: f64, b: f64) -> f64 {
    match (a.is_nan(), b.is_nan()) {
        (true, _) => b,
        (_, true) => a,
        _ if a == b => f64::from_bits(a.to_bits() & b.to_bits()),
        _ => a.max(b),
    }
}

/// PTX's `min`: NaN ignored, `-0.0 < +0.0`.
pub(super) fn min_ignoring_nan(a: f64, b: f64) -> f64 {
    match (a.is_nan(), b.is_nan()) {
        (true, _) => b,
        (_, true) => a,
        _ if a == b => f64::from_bits(a.to_bits() | b.to_bits()),
        _ => a.min(b),
    }
}

/// The first index whose value no other value is `better` than (NaN never is, and ties
/// keep the first); 0 when every value is NaN.
fn first_index(line: &[f64], better: fn(f64, f64) -> bool) -> i32 {
    let mut best: Option<(usize, f64)> = None;
    for (i, &v) in line.iter().enumerate() {
        if !v.is_nan() && best.is_none_or(|(_, b)| better(v, b)) {
            best = Some((i, v));
        }
    }
    best.map_or(0, |(i, _)| i as i32)
}

/// Asserts that both ends of the any-order error bound of a float sum of `line`,
/// `depth` roundings deep, match the exact sum rounded to the dtype under `kernel`'s
/// rule (`what` names the line in a failure); false for a line the bound says nothing
/// about (infinities or NaN, whose results are exact, or a bound past the largest
/// finite value, allowing an overflow no order reaches: the suites compare those).
#[cfg(test)]
pub(crate) fn sum_bound_within_rule(
    kernel: Kernel,
    format: rtriton_testing::Float,
    line: &[f64],
    depth: f64,
    what: &str,
) -> bool {
    let u = f64::from(f32::EPSILON) / 2.0;
    let abs_sum: f64 = line.iter().map(|v| v.abs()).sum();
    let largest = format.to_f64(format.round_from_f64(f64::INFINITY) - 1);
    if !abs_sum.is_finite() || abs_sum * (1.0 + 2.0 * depth * u) >= largest {
        return false;
    }
    let exact: f64 = line.iter().sum();
    // Integer values whose absolute sum fits f32's 24 bits add exactly in any order
    // (the ties and signed-zero fills).
    let exact_in_f32 = line.iter().all(|v| v.fract() == 0.0) && abs_sum <= f64::from(1u32 << 24);
    let error = if exact_in_f32 { 0.0 } else { depth * u / (1.0 - depth * u) * abs_sum };
    let want = format.round_from_f64(exact);
    for end in [exact - error, exact + error] {
        let got = format.round_from_f64(end);
        assert!(
            kernel.rule().matches(format.dtype(), got, want),
            "{what}: a sum {end:e} (depth {depth}, sum {exact:e}, sum of |x| {abs_sum:e}) fails {}",
            kernel.rule()
        );
    }
    true
}

#[cfg(test)]
mod tests {
    use rtriton_testing::Backend;

    use super::*;
    use crate::ports::bench::Target;

    /// `i32` index reductions split in two launches where the plan would fuse them (H200, 2026-12-05),
    /// other kernels as the plan says: at 4096 x 16384 on the H200 the plan splits and fuses.
    #[test]
    fn i32_index_reductions_split_in_two_launches() {
        let ColPlan::Split(plan) = col_plan(4, 4096, 16384, Target::H200.sm_count) else { panic!("no split") };
        assert!(plan.one_launch(16384));
        let kernel = |op, dtype| Kernel { op, direction: Direction::Cols, dtype };
        for (op, dtype, one) in [
            (Op::ArgMax, Dtype::I32, false),
            (Op::ArgMin, Dtype::I32, false),
            (Op::Max, Dtype::I32, true),
            (Op::ArgMax, Dtype::F32, true),
        ] {
            assert_eq!(kernel(op, dtype).one_launch(&plan, 16384), one, "{op:?} {dtype:?}");
        }
        let launches = bench_launches(kernel(Op::ArgMax, Dtype::I32), 4096, 16384, Target::H200);
        let names: Vec<&str> = launches.iter().map(|(suite, _)| suite.def.name).collect();
        assert_eq!(names, ["col_argmax_partials_i32", "col_argmax_combine_i32"]);
    }

    /// A bench launch is checked like a suite case: the smallest peer-script shape of the
    /// deepest sum (column-wise, 4096 rows of 1024) passes its rule on the interpreter.
    #[test]
    fn a_bench_launch_passes_its_check_on_the_interpreter() {
        let point = bench_points()
            .into_iter()
            .find(|p| p.kernel == "sum" && p.variant == "dim0" && p.dtype == "f32" && p.shape == [4096, 1024])
            .expect("the point");
        assert_eq!(point.bytes, 4096 * 1024 * 4 + 1024 * 4);
        for (suite, case) in (point.launches)(Target::H200) {
            let suite = suite.case(case);
            suite.check("bench", Backend::Interpreter);
        }
    }

    /// Every operation is benched in every dtype of the port (`argmax` in f16 and bf16 too,
    /// and i32, as the peer script times torch in them), in both directions, on the peer
    /// script's shapes; and a 16-bit `argmax` launch passes its check on the interpreter.
    #[test]
    fn the_bench_covers_every_operation_in_every_dtype() {
        let points = bench_points();
        for name in ["sum", "amax", "argmax"] {
            for dtype in ["f32", "f16", "bf16", "i32"] {
                for variant in ["dim1", "dim0"] {
                    let n =
                        points.iter().filter(|p| p.kernel == name && p.dtype == dtype && p.variant == variant).count();
                    assert_eq!(n, SHAPES_2D.len(), "{name} {dtype} {variant}");
                }
            }
        }
        let point = |kernel: &str, variant: &str, dtype: &str| {
            points
                .iter()
                .find(|p| p.kernel == kernel && p.variant == variant && p.dtype == dtype && p.shape == [4096, 1024])
                .expect("the point")
        };
        let argmax = point("argmax", "dim1", "bf16");
        assert_eq!(argmax.bytes, 4096 * 1024 * 2 + 4096 * 4, "bf16 read, i32 indices written");
        let sum = point("sum", "dim0", "i32");
        assert_eq!(sum.bytes, 4096 * 1024 * 4 + 1024 * 4, "i32 read and written");
        for p in [argmax, sum] {
            for (suite, case) in (p.launches)(Target::H200) {
                suite.case(case).check("bench", Backend::Interpreter);
            }
        }
    }

    #[test]
    fn every_kernel_exists_and_the_table_has_no_other() {
        let names: Vec<String> = Kernel::all().into_iter().map(Kernel::name).collect();
        let defs: Vec<&str> = kernels::all().iter().map(|d| d.name).collect();
        assert_eq!(names.len(), defs.len());
        for n in &names {
            assert!(defs.contains(&n.as_str()), "no kernel `{n}`");
        }
    }

    /// The kernel's float sum is the exact sum `s` within `E = d u / (1 - d u) * sum |x|`
    /// (module doc; `u = 2^-24`), rounded to the dtype (f16, bf16) or already an f32: so any
    /// order of additions gives a result between `round(s - E)` and `round(s + E)`. On every
    /// finite line of every case both ends match the reference `round(s)` under the rule:
    /// the rule passes every correct order of additions, not only the one the back ends use.
    #[test]
    fn sum_rule_covers_the_error_bound_of_every_case() {
        let mut checked = 0;
        for dtype in [Dtype::F32, Dtype::F16, Dtype::BF16] {
            let format = dtype.float().expect("a float dtype");
            for direction in [Direction::Rows, Direction::Cols] {
                let kernel = Kernel { op: Op::Sum, direction, dtype };
                for case in cases(kernel) {
                    let x = case.tensor("x");
                    let (n_kept, n) = lines(direction, x.view.shape[0], x.view.shape[1]);
                    let constexpr = |name| case.constexprs.iter().find(|(c, _)| *c == name).unwrap().1 as usize;
                    let b = match direction {
                        Direction::Rows => constexpr("BLOCK_N"),
                        Direction::Cols => constexpr("BLOCK_M"),
                    };
                    let depth = sum_depth(direction, n, b) as f64;
                    for k in 0..n_kept {
                        let line: Vec<f64> = (0..n).map(|j| x.f64_at(&index(direction, k, j))).collect();
                        let what = format!("{} case `{}` line {k}", kernel.name(), case.name);
                        if !sum_bound_within_rule(kernel, format, &line, depth, &what) {
                            continue;
                        }
                        checked += 1;
                    }
                }
            }
        }
        assert!(checked > 3000, "only {checked} lines checked");
    }

    fn check(op: Op, direction: Direction, dtype: Dtype) {
        let s = Kernel { op, direction, dtype }.suite();
        s.check_all(Backend::Interpreter);
        s.check_all(Backend::Simulator);
    }

    macro_rules! every_kernel {
        ($($name:ident => $dtype:ident;)*) => {$(
            mod $name {
                use super::*;

                #[test]
                fn row_sum() { check(Op::Sum, Direction::Rows, Dtype::$dtype) }
                #[test]
                fn row_max() { check(Op::Max, Direction::Rows, Dtype::$dtype) }
                #[test]
                fn row_min() { check(Op::Min, Direction::Rows, Dtype::$dtype) }
                #[test]
                fn row_argmax() { check(Op::ArgMax, Direction::Rows, Dtype::$dtype) }
                #[test]
                fn row_argmin() { check(Op::ArgMin, Direction::Rows, Dtype::$dtype) }
                #[test]
                fn col_sum() { check(Op::Sum, Direction::Cols, Dtype::$dtype) }
                #[test]
                fn col_max() { check(Op::Max, Direction::Cols, Dtype::$dtype) }
                #[test]
                fn col_min() { check(Op::Min, Direction::Cols, Dtype::$dtype) }
                #[test]
                fn col_argmax() { check(Op::ArgMax, Direction::Cols, Dtype::$dtype) }
                #[test]
                fn col_argmin() { check(Op::ArgMin, Direction::Cols, Dtype::$dtype) }
            }
        )*};
    }

    every_kernel! {
        f32 => F32;
        f16 => F16;
        bf16 => BF16;
        i32 => I32;
    }
}
