//! Reductions and scans on every back end: `max`, `min`, `sum`, `argmax`, `argmin`,
//! `xor_sum`, `reduce` with a DSL combine function (one and two operands, associative or
//! not), `cumsum` and `associative_scan`, on f32, i32 and i64, 1-D and both axes of 2-D,
//! with masked tails (the identity as `other`), non-power-of-two extents, ties, NaN,
//! infinities, signed zeros and the integer extremes.
//!
//! Each case runs on the interpreter, which must match a plain-Rust model written here
//! (exactly: the model folds in the order `docs/semantics.md` defines), and on the SIMT
//! simulator with `num_warps` 1, 4 and 8 under both specialization policies, which must
//! match the interpreter bit for bit. The same PTX is assembled by ptxas for sm_86 and
//! sm_90 (no spills), and the GPU tests (ignored here) compare the H200 with the model.

mod ptx_common;

use rstest::rstest;
use rtriton::diag::Code;
use rtriton::kernel;
use rtriton::prelude::*;
use rtriton::spec::SpecPolicy;
use rtriton_testing::compare::differences;
use rtriton_testing::run::{Outputs, run_interpreter, run_simulator};
use rtriton_testing::{Case, Data, Rule, View};

/// Which reduction or scan a kernel traces (a constexpr, so one kernel per dtype covers all).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Op {
    Max,
    Min,
    Sum,
    Argmax,
    Argmin,
    XorSum,
    /// `reduce(x, axis, |a, b| a + b)`: a float sum in the tree order.
    ReduceAdd,
    /// `reduce(x, axis, |a, b| a - b)`: neither associative nor commutative.
    ReduceSub,
    /// `reduce((x, x), axis, |(a0, a1), (b0, b1)| (maximum(a0, b0), a1 - b1))`, stored as
    /// `max - diff`: two operands.
    ReducePair,
    Cumsum,
    /// `associative_scan(x, axis, |a, b| a - b)`.
    ScanSub,
}

const OPS: [Op; 11] = [
    Op::Max,
    Op::Min,
    Op::Sum,
    Op::Argmax,
    Op::Argmin,
    Op::XorSum,
    Op::ReduceAdd,
    Op::ReduceSub,
    Op::ReducePair,
    Op::Cumsum,
    Op::ScanSub,
];

impl Op {
    fn code(self) -> i64 {
        OPS.iter().position(|o| *o == self).unwrap() as i64
    }
}

/// One kernel per dtype: loads a `[ROWS, COLS]` tile of a row-major `n_rows x n_cols`
/// input (`ROWS == 0`: a 1-D block of `COLS`), masked lanes give `$lo` (max, argmax),
/// `$hi` (min, argmin) or 0, and applies `OPS[OP]` along `AXIS`. Values go to `y_ptr`,
/// indices to `i_ptr`, scans to `z_ptr` (the input's shape).
macro_rules! reduce_kernel {
    ($name:ident, $t:ty, $lo:expr, $hi:expr, $zero:expr, $int:expr) => {
        kernel! {
            fn $name(
                x_ptr: Ptr<$t>, y_ptr: Ptr<$t>, i_ptr: Ptr<i32>, z_ptr: Ptr<$t>, n_rows: i32, n_cols: i32;
                const ROWS: usize, const COLS: usize, const AXIS: usize, const OP: usize
            ) {
                let op = OPS[OP];
                let other: $t = match op {
                    Op::Max | Op::Argmax => $lo,
                    Op::Min | Op::Argmin => $hi,
                    _ => $zero,
                };
                let cols = arange(0, COLS);
                if ROWS == 0 {
                    let mask = cols.lt(n_cols);
                    let x = load(x_ptr + cols, Some(mask), Some(other));
                    match op {
                        Op::Argmax => store(i_ptr, argmax(x, 0), None),
                        Op::Argmin => store(i_ptr, argmin(x, 0), None),
                        Op::Cumsum => store(z_ptr + cols, cumsum(x, 0), Some(mask)),
                        Op::ScanSub => store(z_ptr + cols, associative_scan(x, 0, |a, b| a - b), Some(mask)),
                        _ => store(y_ptr, reduce_value(op, x, 0, $int), None),
                    }
                    return;
                }
                let r = arange(0, ROWS).expand_dims(1);
                let c = cols.expand_dims(0);
                let mask = r.lt(n_rows) & c.lt(n_cols);
                let offs = r * n_cols + c;
                let x = load(x_ptr + offs, Some(mask), Some(other));
                let (n_out, len) = if AXIS == 1 { (ROWS, n_rows) } else { (COLS, n_cols) };
                let k = arange(0, n_out);
                let kmask = Some(k.lt(len));
                match op {
                    Op::Argmax => store(i_ptr + k, argmax(x, AXIS), kmask),
                    Op::Argmin => store(i_ptr + k, argmin(x, AXIS), kmask),
                    Op::Cumsum => store(z_ptr + offs, cumsum(x, AXIS), Some(mask)),
                    Op::ScanSub => store(z_ptr + offs, associative_scan(x, AXIS, |a, b| a - b), Some(mask)),
                    _ => store(y_ptr + k, reduce_value(op, x, AXIS, $int), kmask),
                }
            }
        }
    };
}

/// The value reductions (`xor_sum` only on integers).
#[track_caller]
fn reduce_value<T: NumericMarker<Sum = T>>(op: Op, x: Tensor<T>, axis: usize, int: bool) -> Tensor<T>
where
    T: Promote<T, Output = T> + AddOutput<T, Output = T>,
{
    match op {
        Op::Max => max(x, axis),
        Op::Min => min(x, axis),
        Op::Sum => sum(x, axis),
        Op::XorSum if int => xor_sum(x, axis),
        Op::ReduceAdd => reduce(x, axis, |a, b| a + b),
        Op::ReduceSub => reduce(x, axis, |a, b| a - b),
        Op::ReducePair => {
            let (m, d) = reduce((x, x), axis, |(a0, a1): (Tensor<T>, Tensor<T>), (b0, b1)| (maximum(a0, b0), a1 - b1));
            m - d
        }
        _ => panic!("{op:?} is not a value reduction of this dtype"),
    }
}

reduce_kernel!(reduce_f32, f32, f32::NEG_INFINITY, f32::INFINITY, 0.0f32, false);
reduce_kernel!(reduce_i32, i32, i32::MIN, i32::MAX, 0i32, true);
reduce_kernel!(reduce_i64, i64, i64::MIN, i64::MAX, 0i64, true);

// ---- the plain-Rust model ----

/// A line's elements as the kernel sees them: the input, then the masked tail's `other`.
fn line<T: Copy>(x: &[T], n: usize, block: usize, other: T) -> Vec<T> {
    (0..block).map(|i| if i < n { x[i] } else { other }).collect()
}

/// The balanced tree of `docs/semantics.md`: pairs `(0, 1), (2, 3), ...` each round.
fn tree<T: Copy>(mut v: Vec<T>, f: &dyn Fn(T, T) -> T) -> T {
    while v.len() > 1 {
        v = v.chunks(2).map(|c| if c.len() == 2 { f(c[0], c[1]) } else { c[0] }).collect();
    }
    v[0]
}

/// Hillis-Steele rounds: `v[p] = f(v[p - d], v[p])` for `p >= d`, `d = 1, 2, 4, ...`.
fn hillis_steele<T: Copy>(mut v: Vec<T>, f: &dyn Fn(T, T) -> T) -> Vec<T> {
    let mut d = 1;
    while d < v.len() {
        v = (0..v.len()).map(|p| if p >= d { f(v[p - d], v[p]) } else { v[p] }).collect();
        d *= 2;
    }
    v
}

/// Element operations the model needs, per dtype.
trait Elem: Copy + PartialOrd + std::fmt::Debug {
    fn lo() -> Self;
    fn hi() -> Self;
    fn zero() -> Self;
    fn add(self, o: Self) -> Self;
    fn sub(self, o: Self) -> Self;
    fn xor(self, o: Self) -> Self;
    fn max_(self, o: Self) -> Self;
    fn min_(self, o: Self) -> Self;
    fn is_nan(self) -> bool {
        #[allow(clippy::eq_op, reason = "x != x is the NaN test")]
        let nan = self != self;
        nan
    }
    fn data(v: Vec<Self>) -> Data;
}

impl Elem for f32 {
    fn lo() -> Self {
        f32::NEG_INFINITY
    }
    fn hi() -> Self {
        f32::INFINITY
    }
    fn zero() -> Self {
        0.0
    }
    fn add(self, o: Self) -> Self {
        self + o
    }
    fn sub(self, o: Self) -> Self {
        self - o
    }
    fn xor(self, _: Self) -> Self {
        unreachable!("no xor_sum on floats")
    }
    fn max_(self, o: Self) -> Self {
        rtriton::semantics::scalar::max_f32(self, o, PropagateNan::None)
    }
    fn min_(self, o: Self) -> Self {
        rtriton::semantics::scalar::min_f32(self, o, PropagateNan::None)
    }
    fn data(v: Vec<Self>) -> Data {
        Data::F32(v)
    }
}

macro_rules! int_elem {
    ($t:ty, $variant:ident) => {
        impl Elem for $t {
            fn lo() -> Self {
                <$t>::MIN
            }
            fn hi() -> Self {
                <$t>::MAX
            }
            fn zero() -> Self {
                0
            }
            fn add(self, o: Self) -> Self {
                self.wrapping_add(o)
            }
            fn sub(self, o: Self) -> Self {
                self.wrapping_sub(o)
            }
            fn xor(self, o: Self) -> Self {
                self ^ o
            }
            fn max_(self, o: Self) -> Self {
                self.max(o)
            }
            fn min_(self, o: Self) -> Self {
                self.min(o)
            }
            fn data(v: Vec<Self>) -> Data {
                Data::$variant(v)
            }
        }
    };
}
int_elem!(i32, I32);
int_elem!(i64, I64);

/// The first index whose value no other beats (`beats(v, best)`), NaN skipped, 0 if none.
fn arg<T: Elem>(v: &[T], beats: fn(T, T) -> bool) -> i32 {
    let mut best: Option<usize> = None;
    for (i, x) in v.iter().enumerate() {
        if x.is_nan() {
            continue;
        }
        if best.is_none_or(|b| beats(*x, v[b])) {
            best = Some(i);
        }
    }
    best.unwrap_or(0) as i32
}

/// What the kernel computes for one line (the block's elements, tail included).
fn model_value<T: Elem>(op: Op, l: Vec<T>) -> T {
    match op {
        // max/min are associative and commutative (semantics.md): any order; one element
        // still meets the identity (the NaN rule of a one-element axis).
        Op::Max if l.len() == 1 => T::lo().max_(l[0]),
        Op::Min if l.len() == 1 => T::hi().min_(l[0]),
        Op::Max => l.into_iter().reduce(T::max_).unwrap(),
        Op::Min => l.into_iter().reduce(T::min_).unwrap(),
        Op::Sum | Op::ReduceAdd => tree(l, &T::add),
        Op::XorSum => tree(l, &T::xor),
        Op::ReduceSub => tree(l, &T::sub),
        Op::ReducePair => {
            let pairs: Vec<(T, T)> = l.iter().map(|x| (*x, *x)).collect();
            let (m, d) = tree(pairs, &|(a0, a1): (T, T), (b0, b1): (T, T)| (a0.max_(b0), a1.sub(b1)));
            m.sub(d)
        }
        other => panic!("{other:?} gives no value"),
    }
}

/// One launch: the input, its extents, the tile and the op.
#[derive(Clone, Debug)]
struct Launch<T> {
    x: Vec<T>,
    n_rows: usize,
    n_cols: usize,
    /// 0: a 1-D block of `cols`.
    rows: usize,
    cols: usize,
    axis: usize,
    op: Op,
}

impl<T: Elem> Launch<T> {
    fn out_len(&self) -> usize {
        if self.rows == 0 {
            1
        } else if self.axis == 1 {
            self.rows
        } else {
            self.cols
        }
    }

    fn other(&self) -> T {
        match self.op {
            Op::Max | Op::Argmax => T::lo(),
            Op::Min | Op::Argmin => T::hi(),
            _ => T::zero(),
        }
    }

    /// The lines along the axis, each with its masked tail.
    fn lines(&self) -> Vec<Vec<T>> {
        let at = |r: usize, c: usize| {
            if r < self.n_rows && c < self.n_cols { self.x[r * self.n_cols + c] } else { self.other() }
        };
        if self.rows == 0 {
            return vec![line(&self.x, self.n_cols, self.cols, self.other())];
        }
        if self.axis == 1 {
            (0..self.rows).map(|r| (0..self.cols).map(|c| at(r, c)).collect()).collect()
        } else {
            (0..self.cols).map(|c| (0..self.rows).map(|r| at(r, c)).collect()).collect()
        }
    }

    fn case(&self, num_warps: u32) -> Case {
        let n = self.x.len();
        let outs = self.out_len();
        let mut c = Case::new("reduction")
            .input("x", T::data(self.x.clone()), View::contiguous(&[n]))
            .output("y", T::data(vec![T::zero(); outs]), View::contiguous(&[outs]))
            .output("i", Data::I32(vec![-7; outs]), View::contiguous(&[outs]))
            .output("z", T::data(vec![T::zero(); n]), View::contiguous(&[n]))
            .int(self.n_rows as i64)
            .int(self.n_cols as i64)
            .num_warps(num_warps)
            .grid([1, 1, 1]);
        c.constexprs = vec![
            ("ROWS", self.rows as i64),
            ("COLS", self.cols as i64),
            ("AXIS", self.axis as i64),
            ("OP", self.op.code()),
        ];
        c
    }

    /// The outputs the model expects (`y`, `i`, `z`), as the harness reads them.
    fn expected(&self) -> Vec<Data> {
        let outs = self.out_len();
        let (mut y, mut i, mut z) = (vec![T::zero(); outs], vec![-7; outs], vec![T::zero(); self.x.len()]);
        let lines = self.lines();
        let live = if self.rows == 0 {
            1
        } else if self.axis == 1 {
            self.n_rows.min(self.rows)
        } else {
            self.n_cols.min(self.cols)
        };
        for (k, l) in lines.into_iter().enumerate().take(live) {
            match self.op {
                Op::Argmax => i[k] = arg(&l, |v, b| v > b),
                Op::Argmin => i[k] = arg(&l, |v, b| v < b),
                Op::Cumsum | Op::ScanSub => {
                    let f: &dyn Fn(T, T) -> T = if self.op == Op::Cumsum { &T::add } else { &T::sub };
                    let s = hillis_steele(l, f);
                    for (p, v) in s.into_iter().enumerate() {
                        let (r, c) = match (self.rows, self.axis) {
                            (0, _) => (0, p),
                            (_, 1) => (k, p),
                            _ => (p, k),
                        };
                        if r < self.n_rows && c < self.n_cols {
                            z[r * self.n_cols + c] = v;
                        }
                    }
                }
                op => y[k] = model_value(op, l),
            }
        }
        vec![T::data(y), Data::I32(i), T::data(z)]
    }
}

/// The first element where `got` and `want` differ, bit for bit.
impl Op {
    /// How the back ends' results compare with the model and with each other: bit for bit,
    /// except that float arithmetic promises no NaN bits (docs/semantics.md, "Floats"):
    /// which operand's payload a CPU add keeps depends on the order the compiler gives
    /// the operands (an optimized build swapped them: the model and the interpreter, each
    /// a Rust `+`, kept different payloads under `--release`), so any NaN matches any NaN
    /// there. max, min and the arg and xor reductions keep bits exactly.
    fn cpu_rule(self) -> Rule {
        match self {
            Op::Sum | Op::ReduceAdd | Op::ReduceSub | Op::ReducePair | Op::Cumsum | Op::ScanSub => Rule::BITS.any_nan(),
            Op::Max | Op::Min | Op::Argmax | Op::Argmin | Op::XorSum => Rule::BITS,
        }
    }
}

fn first_difference_under(got: &Outputs, want: &[(&str, Data)], rule: &Rule) -> Result<(), String> {
    for ((name, g), (_, w)) in got.buffers.iter().zip(want) {
        let (diffs, _) = differences(g, w, rule, 1);
        if let Some(d) = diffs.first() {
            return Err(format!("`{name}` differs first at element {}: got {}, expected {}", d.element, d.got, d.want));
        }
    }
    Ok(())
}

/// Runs the launch on the interpreter (against the model) and on the simulator with 1, 4
/// and 8 warps under both policies (against the interpreter); panics with every failure.
fn check<T: Elem>(def: fn() -> rtriton::trace::KernelDef, l: &Launch<T>) {
    let def = def();
    let mut failures = Vec::new();
    let model: Vec<(&str, Data)> = ["y", "i", "z"].into_iter().zip(l.expected()).collect();
    for policy in [SpecPolicy::Triton, SpecPolicy::Off] {
        let want = match run_interpreter(&def, &l.case(4), policy) {
            Ok(w) => w,
            Err(e) => {
                failures.push(format!("{policy:?}: interpreter: {e}"));
                continue;
            }
        };
        let rule = l.op.cpu_rule();
        if let Err(e) = first_difference_under(&want, &model, &rule) {
            failures.push(format!("{policy:?}: the interpreter disagrees with the model: {e}"));
        }
        for nw in [1, 4, 8] {
            let outcome = run_simulator(&def, &l.case(nw), policy)
                .map_err(|e| e.to_string())
                .and_then(|got| first_difference_under(&got, &want.buffers, &rule));
            if let Err(e) = outcome {
                failures.push(format!("{policy:?}, num_warps = {nw}: the simulator: {e}"));
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{:?} on {}x{} (tile {}x{}, axis {}):\n{}",
        l.op,
        l.n_rows,
        l.n_cols,
        l.rows,
        l.cols,
        l.axis,
        failures.join("\n")
    );
}

// ---- inputs ----

/// Special f32 values: NaN (payloads, sign), infinities, signed zeros, subnormals,
/// extremes and ties, cycled over `n` elements mixed with a ramp.
fn f32_specials(n: usize) -> Vec<f32> {
    let specials = [
        f32::NAN,
        f32::from_bits(0xFFC0_1234),
        f32::INFINITY,
        f32::NEG_INFINITY,
        -0.0,
        0.0,
        f32::from_bits(1),
        -f32::from_bits(0x007F_FFFF),
        f32::MAX,
        f32::MIN,
        3.5,
        3.5,
    ];
    (0..n)
        .map(|i| if i % 3 == 0 { specials[(i / 3) % specials.len()] } else { ((i * 37) % 23) as f32 * 0.37 - 4.0 })
        .collect()
}

/// Ties and signed zeros without NaN (a line of ties: the first index wins).
fn f32_ties(n: usize) -> Vec<f32> {
    (0..n).map(|i| if i % 2 == 0 { -0.0 } else { 0.0 }).collect()
}

fn f32_all_nan(n: usize) -> Vec<f32> {
    vec![f32::NAN; n]
}

/// Values whose sums round differently with the order: a float sum in the wrong tree
/// shape changes bits.
fn f32_rounding(n: usize) -> Vec<f32> {
    (0..n).map(|i| 1.0e-3 * ((i * 7919) % 1000) as f32 + if i % 5 == 0 { 1.0e4 } else { 0.1 }).collect()
}

fn i32_specials(n: usize) -> Vec<i32> {
    let s = [i32::MIN, i32::MAX, -1, 0, 1, i32::MIN, 7, 7];
    (0..n).map(|i| if i % 2 == 0 { s[(i / 2) % s.len()] } else { ((i * 7919) % 2001) as i32 - 1000 }).collect()
}

fn i64_specials(n: usize) -> Vec<i64> {
    let s = [i64::MIN, i64::MAX, -1, 0, 1 << 40, -(1 << 33), 0x1234_5678_9ABC_DEF0, i64::MIN + 1];
    (0..n)
        .map(|i| if i % 2 == 0 { s[(i / 2) % s.len()] } else { ((i * 7919) % 2001) as i64 * 0x1_0000_0001 - 1000 })
        .collect()
}

/// (n_rows, n_cols, ROWS, COLS, AXIS): 1-D blocks with a masked tail, 2-D tiles along
/// either axis with non-power-of-two extents, one-element axes.
const SHAPES: [(usize, usize, usize, usize, usize); 9] = [
    (1, 1000, 0, 1024, 0),
    (1, 5, 0, 8, 0),
    (1, 1, 0, 1, 0),
    (1, 77, 0, 128, 0),
    (13, 29, 16, 32, 1),
    (13, 29, 16, 32, 0),
    (3, 200, 4, 256, 1),
    (61, 3, 64, 4, 0),
    (8, 1, 8, 1, 1),
];

fn launches<T: Elem>(ops: &[Op], fills: &[fn(usize) -> Vec<T>]) -> Vec<Launch<T>> {
    let mut out = Vec::new();
    for &(n_rows, n_cols, rows, cols, axis) in &SHAPES {
        for fill in fills {
            for &op in ops {
                out.push(Launch { x: fill(n_rows * n_cols), n_rows, n_cols, rows, cols, axis, op });
            }
        }
    }
    out
}

const FLOAT_OPS: [Op; 10] = [
    Op::Max,
    Op::Min,
    Op::Sum,
    Op::Argmax,
    Op::Argmin,
    Op::ReduceAdd,
    Op::ReduceSub,
    Op::ReducePair,
    Op::Cumsum,
    Op::ScanSub,
];

#[rstest]
#[case::max(Op::Max)]
#[case::min(Op::Min)]
#[case::argmax(Op::Argmax)]
#[case::argmin(Op::Argmin)]
#[case::reduce_add(Op::ReduceAdd)]
#[case::reduce_sub(Op::ReduceSub)]
#[case::reduce_pair(Op::ReducePair)]
#[case::cumsum(Op::Cumsum)]
#[case::scan_sub(Op::ScanSub)]
fn f32_reductions_match_the_model_on_every_back_end(#[case] op: Op) {
    for l in launches::<f32>(&[op], &[f32_specials, f32_ties, f32_all_nan, f32_rounding]) {
        check(reduce_f32, &l);
    }
}

/// `sum` keeps the lowering Triton's in-thread + butterfly order: bit-exact between the
/// interpreter and simulator only when every partial sum is exact (small integers).
#[test]
fn f32_sums_of_small_integers_are_exact_everywhere() {
    let fill = |n: usize| (0..n).map(|i| ((i * 37) % 101) as f32 - 50.0).collect::<Vec<_>>();
    for l in launches::<f32>(&[Op::Sum], &[fill]) {
        check(reduce_f32, &l);
    }
}

#[rstest]
fn i32_reductions_match_the_model_on_every_back_end(
    #[values(
        Op::Max,
        Op::Min,
        Op::Sum,
        Op::Argmax,
        Op::Argmin,
        Op::XorSum,
        Op::ReduceSub,
        Op::ReducePair,
        Op::Cumsum,
        Op::ScanSub
    )]
    op: Op,
) {
    for l in launches::<i32>(&[op], &[i32_specials]) {
        check(reduce_i32, &l);
    }
}

#[rstest]
fn i64_reductions_match_the_model_on_every_back_end(
    #[values(
        Op::Max,
        Op::Min,
        Op::Sum,
        Op::Argmax,
        Op::Argmin,
        Op::XorSum,
        Op::ReduceSub,
        Op::ReducePair,
        Op::Cumsum,
        Op::ScanSub
    )]
    op: Op,
) {
    for l in launches::<i64>(&[op], &[i64_specials]) {
        check(reduce_i64, &l);
    }
}

#[test]
fn float_ops_list_every_float_case() {
    // The f32 table above names each of these; a new op must be added to both.
    assert_eq!(FLOAT_OPS.len() + 1, OPS.len(), "every op but xor_sum runs on f32");
}

// ---- ptxas ----

/// Every reduction and scan of every dtype, 1-D and 2-D, with 1, 4 and 8 warps, assembles
/// for sm_86 and sm_90 without spills (64-bit shuffles as `mov.b64` halves included).
#[test]
#[cfg_attr(not(has_ptxas), ignore = "needs ptxas on PATH")]
fn every_reduction_assembles_for_sm_86_and_sm_90_without_spills() {
    use rtriton::backend::ptx::Arch;
    let ptxas = ptx_common::ptxas("every_reduction_assembles_for_sm_86_and_sm_90_without_spills");
    let kernels: [(fn() -> rtriton::trace::KernelDef, bool); 3] =
        [(reduce_f32, false), (reduce_i32, true), (reduce_i64, true)];
    let mut failures = Vec::new();
    let mut saw_wide_shuffle = false;
    for (def, int) in kernels {
        let def = def();
        for op in OPS.iter().filter(|o| int || **o != Op::XorSum) {
            for (rows, cols, axis) in [(0, 1024, 0), (16, 32, 1), (64, 4, 0)] {
                for nw in [1, 4, 8] {
                    let c = [("ROWS", rows), ("COLS", cols), ("AXIS", axis), ("OP", op.code())];
                    for arch in [Arch::Sm86, Arch::Sm90] {
                        let ptx = match ptx_common::compile_plain(&def, &c, &ptx_common::options(arch, nw)) {
                            Ok(p) => p,
                            Err(e) => {
                                failures.push(format!("{} {op:?} {c:?} {arch:?}: lowering: {e}", def.name));
                                continue;
                            }
                        };
                        saw_wide_shuffle |= ptx.text.contains("mov.b64 {");
                        let name = format!("{}_{}", def.name, op.code());
                        match ptx_common::assemble(&ptxas, &ptx.text, &arch.to_string(), &name) {
                            Ok(info) if ptx_common::spill_stores(&info) == Some(0) => {}
                            Ok(info) => {
                                failures.push(format!("{} {op:?} {c:?} {arch}: spills or no report:\n{info}", def.name))
                            }
                            Err(e) => failures.push(format!("{} {op:?} {c:?} {arch}: ptxas refused:\n{e}", def.name)),
                        }
                    }
                }
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
    assert!(saw_wide_shuffle, "i64 reductions shuffle 64-bit values as two halves (mov.b64 {{lo, hi}})");
}

// ---- located errors ----

thread_local! {
    /// The line of the offending call in the kernel this thread traced last (tests run in
    /// parallel threads; each traces on its own).
    static LINE: std::cell::Cell<u32> = const { std::cell::Cell::new(0) };
}

fn mark(line: u32) {
    LINE.with(|l| l.set(line));
}

kernel! {
    fn combine_returns_a_mask(x_ptr: Ptr<f32>) {
        let x = load(x_ptr + arange(0, 16), None, None);
        mark(line!()); let _ = reduce(x, 0, |a, b| a.lt(b));
    }
}

kernel! {
    fn combine_returns_a_block(x_ptr: Ptr<f32>) {
        let x = load(x_ptr + arange(0, 16), None, None);
        mark(line!()); let _ = associative_scan(x, 0, |a, b| (a + b).broadcast_to(&[4]));
    }
}

kernel! {
    fn combine_reads_an_outer_value(x_ptr: Ptr<f32>) {
        let x = load(x_ptr + arange(0, 16), None, None);
        let s = load(x_ptr, None, None);
        mark(line!()); let _ = reduce(x, 0, |a, b| a + b * s);
    }
}

kernel! {
    fn xor_sum_of_floats(x_ptr: Ptr<f32>) {
        let x = load(x_ptr + arange(0, 16), None, None);
        mark(line!()); let _ = xor_sum(x, 0);
    }
}

/// A bad combine function or `xor_sum` of a float is a located trace error: its code, the
/// kernel, the line of the call and what to do.
#[rstest]
#[case::wrong_dtype(combine_returns_a_mask, Code::TraceCombine, "returns (i1) but must return (f32)")]
#[case::wrong_shape(combine_returns_a_block, Code::TraceCombine, "returns (tensor<4xf32>) but must return (f32)")]
#[case::outer_value(combine_reads_an_outer_value, Code::TraceCombine, "a value from outside it")]
#[case::xor_sum_of_f32(xor_sum_of_floats, Code::TraceRule, "xor_sum of a block of f32")]
fn bad_combines_are_located_errors(
    #[case] def: fn() -> rtriton::trace::KernelDef,
    #[case] code: Code,
    #[case] message: &str,
) {
    use rtriton::diag::HasDiagnostics;
    let def = def();
    let err = rtriton::trace::trace_unspecialized(&def, &[]).expect_err("the trace must fail");
    let line = LINE.with(std::cell::Cell::get);
    let d = err.diagnostics().into_iter().find(|d| d.code == code).unwrap_or_else(|| panic!("no {code:?} in {err}"));
    assert_eq!(d.kernel, def.name);
    let loc = d.loc.expect("a located error");
    assert_eq!((loc.file, loc.line), (file!(), line), "{err}");
    assert!(d.message.contains(message), "{}", d.message);
    assert!(!d.help.is_empty());
}

// ---- GPU ----

/// The same launches on the H200 (PTX through the driver JIT) against the model, bit for
/// bit: the combine orders are the semantics, so float sums and non-associative combines
/// must agree exactly too (NaN bits of float arithmetic aside, as documented).
#[rstest]
#[ignore = "needs a GPU"]
fn reductions_on_the_gpu_match_the_model(#[values(1, 4, 8)] num_warps: u32) {
    use rtriton_testing::GpuOptions;
    use rtriton_testing::run::gpu::run_gpu;
    fn on_gpu<T: Elem>(
        def: fn() -> rtriton::trace::KernelDef,
        l: &Launch<T>,
        nw: u32,
        sum_rule: Option<Rule>,
        failures: &mut Vec<String>,
    ) {
        let model: Vec<(&str, Data)> = ["y", "i", "z"].into_iter().zip(l.expected()).collect();
        // Float arithmetic promises no NaN bits (docs/semantics.md): the GPU's add.f32 and
        // sub.f32 return the canonical NaN where the CPU keeps an input's payload, so those
        // combines compare values bit for bit and let any NaN match any NaN. max, min and
        // the arg reductions keep bits exactly.
        // `sum` fixes no order (semantics.md: the interpreter adds pairwise, the
        // GPU adds in its tree), so a float sum is compared under its error bound;
        // `reduce` with `+` has a fixed order and stays bit for bit.
        let rule = match (l.op, sum_rule) {
            (Op::Sum, Some(bound)) => bound,
            (Op::Sum | Op::ReduceAdd | Op::ReduceSub | Op::ReducePair | Op::Cumsum | Op::ScanSub, _) => {
                Rule::BITS.any_nan()
            }
            (Op::Max | Op::Min | Op::Argmax | Op::Argmin | Op::XorSum, _) => Rule::BITS,
        };
        for policy in [SpecPolicy::Triton, SpecPolicy::Off] {
            let got = run_gpu(&def(), &l.case(nw), policy, GpuOptions::default())
                .map_err(|e| e.to_string())
                .and_then(|got| first_difference_under(&got, &model, &rule));
            if let Err(e) = got {
                failures.push(format!(
                    "{:?} {}x{} tile {}x{} axis {} {policy:?}: {e}",
                    l.op, l.n_rows, l.n_cols, l.rows, l.cols, l.axis
                ));
            }
        }
    }
    let mut failures = Vec::new();
    for l in launches::<f32>(&FLOAT_OPS, &[f32_specials, f32_ties, f32_all_nan, f32_rounding]) {
        // Any order of n - 1 f32 additions is within (n - 1) u sum |x| <= (n - 1) u n max |x|
        // of the exact sum (u = 2^-24), and within (n - 1) u relatively when the terms
        // share a sign (the rounding fill).
        let n = if l.rows == 0 || l.axis == 1 { l.cols } else { l.rows } as f64;
        let max_abs = l.x.iter().filter(|v| v.is_finite()).fold(0.0f64, |m, v| m.max(f64::from(v.abs())));
        let u = f64::from(f32::EPSILON) / 2.0;
        let sum_rule = Rule::approx((n - 1.0) * u * n * max_abs, (n - 1.0).max(1.0) * u);
        on_gpu(reduce_f32, &l, num_warps, Some(sum_rule), &mut failures);
    }
    let int_ops = [
        Op::Max,
        Op::Min,
        Op::Sum,
        Op::Argmax,
        Op::Argmin,
        Op::XorSum,
        Op::ReduceSub,
        Op::ReducePair,
        Op::Cumsum,
        Op::ScanSub,
    ];
    for l in launches::<i32>(&int_ops, &[i32_specials]) {
        on_gpu(reduce_i32, &l, num_warps, None, &mut failures);
    }
    for l in launches::<i64>(&int_ops, &[i64_specials]) {
        on_gpu(reduce_i64, &l, num_warps, None, &mut failures);
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
