//! Row-wise and column-wise `sum`, `max`, `min`, `argmax` and `argmin` of a 2-D tensor
//! with any strides. After the everyday kernels `torch.sum / amax / amin / argmax /
//! argmin(x, dim)` written the Triton way: Triton's `python/test/unit/language/test_core.py`
//! (`test_reduce2d`: `tl.sum`, `tl.max`, `tl.min`, `tl.argmax`, `tl.argmin` over an axis of
//! a 2-D block) with the looping accumulator of `python/tutorials/05-layer-norm.py`
//! (`_layer_norm_fwd_fused`: a block-wide running sum over column blocks, reduced once
//! after the loop).
//!
//! Each program owns a block of the *kept* dimension (`BLOCK_M` rows for a row-wise
//! reduction, `BLOCK_N` columns for a column-wise one) and walks the *reduced* dimension
//! in `[BLOCK_M, BLOCK_N]` tiles, keeping one accumulator per tile element; one reduction
//! across the tile ends it. Tiles are row-major with the column index fastest, so a
//! column-wise reduction reads along rows too (coalesced) and any width loops.
//!
//! The bodies are written once, generic over the element type ([`ReduceElem`]) and the
//! operation ([`ValueOp`] for sum/max/min, [`IndexOp`] for argmax/argmin); the table at the
//! bottom makes one `kernel!` per operation, direction and dtype. `f16` / `bf16` elements
//! are widened to `f32` once after the load and accumulated there, as Triton does.
//!
//! Results (`docs/semantics.md`, "Reductions"): `max` / `min` ignore NaN (a line of only NaN
//! gives the padding value, `-inf` / `+inf`, as `tl.max` with a `-inf` pad does), `+0.0 >
//! -0.0`; `argmax` / `argmin` give the first index of the extremum, NaN ignored, 0 for a
//! line of only NaN; `sum` adds in a fixed order (per accumulator in column-block order,
//! then `reduce`'s balanced tree across the tile), the same bits on every back end.

use half::{bf16, f16};
use rtriton::kernel;
use rtriton::prelude::*;

/// The index an arg accumulator starts from: larger than any index, so "not found yet".
const NOT_FOUND: i32 = i32::MAX;

/// A type the reductions compute in: `f32` (for the float types) or `i32`.
pub trait Accumulator: NumericMarker + Promote<Self, Output = Self> {
    /// The smallest value (`-inf`, `i32::MIN`): `max`'s identity.
    const LOWEST: Self::Native;
    /// The largest value (`+inf`, `i32::MAX`): `min`'s identity.
    const HIGHEST: Self::Native;
    const ZERO: Self::Native;
}

impl Accumulator for f32 {
    const LOWEST: f32 = f32::NEG_INFINITY;
    const HIGHEST: f32 = f32::INFINITY;
    const ZERO: f32 = 0.0;
}

impl Accumulator for i32 {
    const LOWEST: i32 = i32::MIN;
    const HIGHEST: i32 = i32::MAX;
    const ZERO: i32 = 0;
}

/// An element type the reductions take, the type it accumulates in, and its own copies of
/// the identities (the `other` of masked loads is an element).
pub trait ReduceElem: ScalarMarker {
    type Acc: Accumulator;
    const LOWEST: Self::Native;
    const HIGHEST: Self::Native;
    const ZERO: Self::Native;
}

impl ReduceElem for f32 {
    type Acc = f32;
    const LOWEST: f32 = f32::NEG_INFINITY;
    const HIGHEST: f32 = f32::INFINITY;
    const ZERO: f32 = 0.0;
}

impl ReduceElem for i32 {
    type Acc = i32;
    const LOWEST: i32 = i32::MIN;
    const HIGHEST: i32 = i32::MAX;
    const ZERO: i32 = 0;
}

impl ReduceElem for f16 {
    type Acc = f32;
    const LOWEST: f16 = f16::NEG_INFINITY;
    const HIGHEST: f16 = f16::INFINITY;
    const ZERO: f16 = f16::ZERO;
}

impl ReduceElem for bf16 {
    type Acc = f32;
    const LOWEST: bf16 = bf16::NEG_INFINITY;
    const HIGHEST: bf16 = bf16::INFINITY;
    const ZERO: bf16 = bf16::ZERO;
}

/// Which dimension a kernel reduces.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Direction {
    /// One result per row (`x.sum(dim=1)`): programs own rows and walk the columns.
    Rows,
    /// One result per column (`x.sum(dim=0)`): programs own columns and walk the rows.
    Cols,
}

impl Direction {
    /// The tile axis the kernel reduces (1 for rows, 0 for columns).
    pub const fn axis(self) -> usize {
        match self {
            Direction::Rows => 1,
            Direction::Cols => 0,
        }
    }

    pub const fn name(self) -> &'static str {
        match self {
            Direction::Rows => "row",
            Direction::Cols => "col",
        }
    }
}

/// `sum`, `max` or `min`: an accumulator per tile element, folded with `step`, then
/// reduced across the tile with `finish`.
pub trait ValueOp {
    /// The value masked-off elements load as (the operation's identity).
    fn pad<E: ReduceElem>() -> E::Native;
    /// The accumulator's start (the identity).
    fn init<A: Accumulator>() -> A::Native;
    fn step<A: Accumulator>(acc: Tensor<A>, x: Tensor<A>) -> Tensor<A>;
    fn finish<A: Accumulator>(acc: Tensor<A>, axis: usize) -> Tensor<A>;
}

/// `sum`: wrapping for `i32`; for floats `+` in a fixed order (see the module doc).
#[derive(Debug)]
pub struct Sum;
/// `max`, NaN ignored.
#[derive(Debug)]
pub struct Max;
/// `min`, NaN ignored.
#[derive(Debug)]
pub struct Min;

impl ValueOp for Sum {
    fn pad<E: ReduceElem>() -> E::Native {
        E::ZERO
    }
    fn init<A: Accumulator>() -> A::Native {
        A::ZERO
    }
    fn step<A: Accumulator>(acc: Tensor<A>, x: Tensor<A>) -> Tensor<A> {
        acc + x
    }
    fn finish<A: Accumulator>(acc: Tensor<A>, axis: usize) -> Tensor<A> {
        // `reduce` with `+` rather than `tl.sum`: its balanced-tree order is the same on
        // every back end, so float sums agree bit for bit between them.
        reduce(acc, axis, |a: Tensor<A>, b: Tensor<A>| a + b)
    }
}

impl ValueOp for Max {
    fn pad<E: ReduceElem>() -> E::Native {
        E::LOWEST
    }
    fn init<A: Accumulator>() -> A::Native {
        A::LOWEST
    }
    fn step<A: Accumulator>(acc: Tensor<A>, x: Tensor<A>) -> Tensor<A> {
        maximum(acc, x)
    }
    fn finish<A: Accumulator>(acc: Tensor<A>, axis: usize) -> Tensor<A> {
        max(acc, axis)
    }
}

impl ValueOp for Min {
    fn pad<E: ReduceElem>() -> E::Native {
        E::HIGHEST
    }
    fn init<A: Accumulator>() -> A::Native {
        A::HIGHEST
    }
    fn step<A: Accumulator>(acc: Tensor<A>, x: Tensor<A>) -> Tensor<A> {
        minimum(acc, x)
    }
    fn finish<A: Accumulator>(acc: Tensor<A>, axis: usize) -> Tensor<A> {
        min(acc, axis)
    }
}

/// `argmax` or `argmin`: a (value, index) accumulator per tile element.
pub trait IndexOp {
    /// The accumulator's start: the extreme a value must beat.
    fn init<A: Accumulator>() -> A::Native;
    /// Where `a` is strictly better than `b` (false when either is NaN).
    fn better<A: Accumulator>(a: Tensor<A>, b: Tensor<A>) -> Tensor<bool>;
}

/// `argmax`: the first index of the maximum.
#[derive(Debug)]
pub struct ArgMax;
/// `argmin`: the first index of the minimum.
#[derive(Debug)]
pub struct ArgMin;

impl IndexOp for ArgMax {
    fn init<A: Accumulator>() -> A::Native {
        A::LOWEST
    }
    fn better<A: Accumulator>(a: Tensor<A>, b: Tensor<A>) -> Tensor<bool> {
        a.gt(b)
    }
}

impl IndexOp for ArgMin {
    fn init<A: Accumulator>() -> A::Native {
        A::HIGHEST
    }
    fn better<A: Accumulator>(a: Tensor<A>, b: Tensor<A>) -> Tensor<bool> {
        a.lt(b)
    }
}

/// The launch arguments every reduction kernel takes, as the body sees them: `x` is an
/// `n_rows x n_cols` view with strides `stride_row`, `stride_col`; `y` holds one result
/// per kept index at stride `stride_y`.
#[derive(Clone, Copy, Debug)]
pub struct Args<E, O> {
    pub x_ptr: Tensor<Ptr<E>>,
    pub y_ptr: Tensor<Ptr<O>>,
    pub n_rows: Tensor<i32>,
    pub n_cols: Tensor<i32>,
    pub stride_row: Tensor<i32>,
    pub stride_col: Tensor<i32>,
    pub stride_y: Tensor<i32>,
    pub block_m: usize,
    pub block_n: usize,
}

/// One program's walk: its kept indices, and a tile of the reduced dimension at a time.
struct Walk {
    axis: usize,
    block_m: usize,
    block_n: usize,
    /// This program's kept indices (rows or columns) and which of them exist.
    kept: Tensor<i32>,
    kept_mask: Tensor<bool>,
    /// Their offsets in `x`, widened before the multiply so they never wrap.
    kept_offsets: Tensor<i64>,
    /// The length of the reduced dimension, its stride, and the tile's extent along it.
    n_along: Tensor<i32>,
    stride_along: Tensor<i32>,
}

impl Walk {
    fn new<E, O>(a: &Args<E, O>, axis: usize) -> Walk {
        let pid = program_id(0);
        let (block_kept, n_kept, stride_kept, n_along, stride_along) = if axis == 1 {
            (a.block_m, a.n_rows, a.stride_row, a.n_cols, a.stride_col)
        } else {
            (a.block_n, a.n_cols, a.stride_col, a.n_rows, a.stride_row)
        };
        let kept = pid * block_kept as i32 + arange(0, block_kept);
        let kept_mask = kept.lt(n_kept);
        let kept_offsets = kept.to::<i64>() * stride_kept;
        Walk { axis, block_m: a.block_m, block_n: a.block_n, kept, kept_mask, kept_offsets, n_along, stride_along }
    }

    /// The tile's extent along the reduced dimension (the loop's step).
    fn step(&self) -> usize {
        if self.axis == 1 { self.block_n } else { self.block_m }
    }

    /// `t` (a block along the kept dimension) as a tile row or column, so it broadcasts
    /// against the other dimension.
    fn kept_dim<T>(&self, t: Tensor<T>) -> Tensor<T> {
        t.expand_dims(self.axis)
    }

    /// `t` (a block along the reduced dimension) placed along the tile's reduced axis.
    fn along_dim<T>(&self, t: Tensor<T>) -> Tensor<T> {
        t.expand_dims(1 - self.axis)
    }

    /// The tile starting at index `start` of the reduced dimension: element offsets in
    /// `x`, the mask of elements that exist, and each element's index along the reduced
    /// dimension (the result of an arg reduction; a tile row or column, broadcast by use).
    fn tile(&self, start: Tensor<i32>) -> (Tensor<i64>, Tensor<bool>, Tensor<i32>) {
        let along = start + arange(0, self.step());
        let mask = self.kept_dim(self.kept_mask) & self.along_dim(along.lt(self.n_along));
        let offsets = self.kept_dim(self.kept_offsets) + self.along_dim(along.to::<i64>() * self.stride_along);
        (offsets, mask, self.along_dim(along))
    }

    /// Where result `kept` goes in `y`.
    fn store<O: ScalarMarker>(&self, y_ptr: Tensor<Ptr<O>>, stride_y: Tensor<i32>, value: Tensor<O>) {
        store(y_ptr + self.kept.to::<i64>() * stride_y, value, Some(self.kept_mask));
    }
}

/// `y[k] = op(x along the reduced dimension at kept index k)` for `sum`, `max`, `min`.
pub fn value_body<E: ReduceElem, Op: ValueOp>(a: Args<E, E>, axis: usize) {
    let walk = Walk::new(&a, axis);
    let acc = full::<E::Acc>(&[a.block_m, a.block_n], Op::init::<E::Acc>());
    let acc = for_range(0, walk.n_along, walk.step() as i32, acc, |start, acc| {
        let (offsets, mask, _) = walk.tile(start);
        let x = load(a.x_ptr + offsets, Some(mask), Some(Op::pad::<E>())).to::<E::Acc>();
        Op::step(acc, x)
    });
    walk.store(a.y_ptr, a.stride_y, Op::finish(acc, axis).to::<E>());
}

/// `y[k] = the first index of the extremum` along the reduced dimension (NaN ignored;
/// 0 when there is none: a line of only NaN).
pub fn index_body<E: ReduceElem, Op: IndexOp>(a: Args<E, i32>, axis: usize) {
    let walk = Walk::new(&a, axis);
    let shape = [a.block_m, a.block_n];
    let init = (full::<E::Acc>(&shape, Op::init::<E::Acc>()), full::<i32>(&shape, NOT_FOUND));
    let (value, index) = for_range(0, walk.n_along, walk.step() as i32, init, |start, (value, index)| {
        let (offsets, mask, at) = walk.tile(start);
        let x = load(a.x_ptr + offsets, Some(mask), Some(E::ZERO)).to::<E::Acc>();
        // Each accumulator sees its indices in increasing order, so the first of equal
        // values stays; an extreme equal to the start (`-inf` for argmax) is taken when
        // nothing was found yet. NaN is never better nor equal, so it is never taken.
        let first = value.eq(x) & index.eq(NOT_FOUND);
        let take = mask & (Op::better(x, value) | first);
        (where_(take, x, value), where_(take, at, index))
    });
    // Across the tile: the better value, and of equal values the lower index (`-0.0` and
    // `+0.0` are equal). Accumulators hold no NaN, so this order is total.
    let (_, index) = reduce((value, index), axis, |(va, ia): (Tensor<E::Acc>, Tensor<i32>), (vb, ib)| {
        let b_wins = Op::better(vb, va) | (vb.eq(va) & ib.lt(ia));
        (where_(b_wins, vb, va), where_(b_wins, ib, ia))
    });
    walk.store(a.y_ptr, a.stride_y, where_(index.ne(NOT_FOUND), index, 0));
}

/// One `kernel!` per row of the table: `name => element type, body, operation, output
/// type, direction`; and [`all`], every kernel of the table.
macro_rules! reductions {
    ($($name:ident => $e:ty, $body:ident, $op:ty, $out:ty, $dir:expr;)*) => {
        $(
            kernel! {
                pub fn $name(x_ptr: Ptr<$e>, y_ptr: Ptr<$out>, n_rows: i32, n_cols: i32, stride_row: i32,
                             stride_col: i32, stride_y: i32; const BLOCK_M: usize, const BLOCK_N: usize) {
                    let args = Args { x_ptr, y_ptr, n_rows, n_cols, stride_row, stride_col, stride_y,
                                      block_m: BLOCK_M, block_n: BLOCK_N };
                    $body::<$e, $op>(args, Direction::axis($dir));
                }
            }
        )*

        /// Every reduction kernel, named `{row|col}_{op}_{dtype}`.
        pub fn all() -> Vec<rtriton::trace::KernelDef> {
            vec![$($name()),*]
        }
    };
}

use Direction::{Cols, Rows};

reductions! {
    row_sum_f32 => f32, value_body, Sum, f32, Rows;
    row_max_f32 => f32, value_body, Max, f32, Rows;
    row_min_f32 => f32, value_body, Min, f32, Rows;
    row_argmax_f32 => f32, index_body, ArgMax, i32, Rows;
    row_argmin_f32 => f32, index_body, ArgMin, i32, Rows;
    col_sum_f32 => f32, value_body, Sum, f32, Cols;
    col_max_f32 => f32, value_body, Max, f32, Cols;
    col_min_f32 => f32, value_body, Min, f32, Cols;
    col_argmax_f32 => f32, index_body, ArgMax, i32, Cols;
    col_argmin_f32 => f32, index_body, ArgMin, i32, Cols;
    row_sum_i32 => i32, value_body, Sum, i32, Rows;
    row_max_i32 => i32, value_body, Max, i32, Rows;
    row_min_i32 => i32, value_body, Min, i32, Rows;
    row_argmax_i32 => i32, index_body, ArgMax, i32, Rows;
    row_argmin_i32 => i32, index_body, ArgMin, i32, Rows;
    col_sum_i32 => i32, value_body, Sum, i32, Cols;
    col_max_i32 => i32, value_body, Max, i32, Cols;
    col_min_i32 => i32, value_body, Min, i32, Cols;
    col_argmax_i32 => i32, index_body, ArgMax, i32, Cols;
    col_argmin_i32 => i32, index_body, ArgMin, i32, Cols;
    row_sum_f16 => f16, value_body, Sum, f16, Rows;
    row_max_f16 => f16, value_body, Max, f16, Rows;
    row_min_f16 => f16, value_body, Min, f16, Rows;
    row_argmax_f16 => f16, index_body, ArgMax, i32, Rows;
    row_argmin_f16 => f16, index_body, ArgMin, i32, Rows;
    col_sum_f16 => f16, value_body, Sum, f16, Cols;
    col_max_f16 => f16, value_body, Max, f16, Cols;
    col_min_f16 => f16, value_body, Min, f16, Cols;
    col_argmax_f16 => f16, index_body, ArgMax, i32, Cols;
    col_argmin_f16 => f16, index_body, ArgMin, i32, Cols;
    row_sum_bf16 => bf16, value_body, Sum, bf16, Rows;
    row_max_bf16 => bf16, value_body, Max, bf16, Rows;
    row_min_bf16 => bf16, value_body, Min, bf16, Rows;
    row_argmax_bf16 => bf16, index_body, ArgMax, i32, Rows;
    row_argmin_bf16 => bf16, index_body, ArgMin, i32, Rows;
    col_sum_bf16 => bf16, value_body, Sum, bf16, Cols;
    col_max_bf16 => bf16, value_body, Max, bf16, Cols;
    col_min_bf16 => bf16, value_body, Min, bf16, Cols;
    col_argmax_bf16 => bf16, index_body, ArgMax, i32, Cols;
    col_argmin_bf16 => bf16, index_body, ArgMin, i32, Cols;
}

/// Tile elements per thread: 16 at 4 warps or more, held in registers with the loads in
/// flight (an arg accumulator holds a value and an index each); 8 below, because ptxas
/// caps a CTA of one warp at 72 registers for sm_90 (16 per thread spilled there).
pub fn elems_per_thread(num_warps: usize) -> usize {
    if num_warps >= 4 { 16 } else { 8 }
}

/// `(BLOCK_M, BLOCK_N)` for an `n_rows x n_cols` input launched with `num_warps` warps
/// (the tile holds [`elems_per_thread`] per thread: 2048 elements at 4 warps). Rows: a
/// block covers the row up to 1024 columns (wider rows loop) and as many rows as fill
/// the tile. Columns: blocks of 16 to 256 columns, so a wide input still gives about 256
/// programs, and as many rows per tile as fill it.
pub fn blocks(direction: Direction, n_rows: usize, n_cols: usize, num_warps: usize) -> (usize, usize) {
    let pow2 = |n: usize| n.max(1).next_power_of_two();
    let tile = elems_per_thread(num_warps) * 32 * pow2(num_warps);
    let n = match direction {
        Direction::Rows => pow2(n_cols).min(1024),
        Direction::Cols => pow2(n_cols).min(1 << (n_cols / 256).clamp(16, 256).ilog2()),
    }
    .min(tile);
    ((tile / n).min(pow2(n_rows)), n)
}

/// The grid for `blocks(direction, n_rows, n_cols, _)`: one program per kept block.
pub fn grid(direction: Direction, n_rows: usize, n_cols: usize, (block_m, block_n): (usize, usize)) -> [u32; 3] {
    let programs = match direction {
        Direction::Rows => n_rows.div_ceil(block_m),
        Direction::Cols => n_cols.div_ceil(block_n),
    };
    [programs as u32, 1, 1]
}
