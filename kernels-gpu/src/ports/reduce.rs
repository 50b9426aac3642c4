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
//! A column-wise reduction whose columns give too few programs splits its rows
//! (`reduce_plan`): `col_{op}_partials_*` walks one chunk of rows per program (the grid's
//! second axis) and stores each chunk's result in the accumulator type to a
//! `[split, n_cols]` scratch buffer, and `col_{op}_combine_*` reduces those partials into
//! `y` (the same walk, over the partials); both in a fixed order, no atomics.
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
    /// A value no comparison holds for (NaN), if the type has one: an arg reduction loads
    /// it for masked-off elements, which then are never taken, so it needs no mask test
    /// per element.
    const UNORDERED: Option<Self::Native>;
}

impl ReduceElem for f32 {
    type Acc = f32;
    const LOWEST: f32 = f32::NEG_INFINITY;
    const HIGHEST: f32 = f32::INFINITY;
    const ZERO: f32 = 0.0;
    const UNORDERED: Option<f32> = Some(f32::NAN);
}

impl ReduceElem for i32 {
    type Acc = i32;
    const LOWEST: i32 = i32::MIN;
    const HIGHEST: i32 = i32::MAX;
    const ZERO: i32 = 0;
    const UNORDERED: Option<i32> = None;
}

impl ReduceElem for f16 {
    type Acc = f32;
    const LOWEST: f16 = f16::NEG_INFINITY;
    const HIGHEST: f16 = f16::INFINITY;
    const ZERO: f16 = f16::ZERO;
    const UNORDERED: Option<f16> = Some(f16::NAN);
}

impl ReduceElem for bf16 {
    type Acc = f32;
    const LOWEST: bf16 = bf16::NEG_INFINITY;
    const HIGHEST: bf16 = bf16::INFINITY;
    const ZERO: bf16 = bf16::ZERO;
    const UNORDERED: Option<bf16> = Some(bf16::NAN);
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

/// The most rows of a column tile that a column sum adds with `sum` (any order) rather
/// than the balanced tree: enough for the split kernels' tiles (8 or 16 rows), few enough
/// that the any-order error bound stays inside the rule.
pub const SUM_ACROSS_ROWS_MAX: usize = 16;

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
        if axis == 0 && acc.shape()[0] <= SUM_ACROSS_ROWS_MAX {
            // Across the few rows of a column tile (spread over warps), `tl.sum`: the
            // balanced tree's fixed order needs the tile exchanged through shared memory
            // first, which made the column sums half as fast as the column maxima (H200,
            // the H200 record of 2026-12-04 at `aa60014`). `sum` fixes no order: up to
            // `rows - 1` roundings deep instead of `log2(rows)`, which the suites' error
            // bound counts (`col_sum_depth`).
            sum(acc, 0).to::<A>()
        } else {
            // `reduce` with `+` rather than `tl.sum` along a row: its balanced-tree order
            // is the same on every back end, so float sums agree bit for bit between them.
            reduce(acc, axis, |a: Tensor<A>, b: Tensor<A>| a + b)
        }
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

/// `argmax` or `argmin`: a (value, index) accumulator per tile element, and the best
/// value across a tile.
pub trait IndexOp {
    /// The accumulator's start: the extreme a value must beat.
    fn init<A: Accumulator>() -> A::Native;
    /// Where `a` is strictly better than `b` (false when either is NaN).
    fn better<A: Accumulator>(a: Tensor<A>, b: Tensor<A>) -> Tensor<bool>;
    /// The best value along `axis` (NaN ignored).
    fn extreme<A: Accumulator>(t: Tensor<A>, axis: usize) -> Tensor<A>;
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
    fn extreme<A: Accumulator>(t: Tensor<A>, axis: usize) -> Tensor<A> {
        max(t, axis)
    }
}

impl IndexOp for ArgMin {
    fn init<A: Accumulator>() -> A::Native {
        A::HIGHEST
    }
    fn better<A: Accumulator>(a: Tensor<A>, b: Tensor<A>) -> Tensor<bool> {
        a.lt(b)
    }
    fn extreme<A: Accumulator>(t: Tensor<A>, axis: usize) -> Tensor<A> {
        min(t, axis)
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
    /// Tiles whose loads are in flight together: the walk's loop body copied this many
    /// times a trip ([`for_range_unrolled`]; 1: a plain loop). The results are the same
    /// for every value (the tiles are still added in order).
    pub unroll: usize,
}

/// One program's walk: its kept indices, and a tile of the reduced dimension at a time
/// over its range `start..end` of that dimension (the whole line, or one row chunk of a
/// split column reduction).
struct Walk {
    axis: usize,
    block_m: usize,
    block_n: usize,
    /// This program's kept indices (rows or columns) and which of them exist.
    kept: Tensor<i32>,
    kept_mask: Tensor<bool>,
    /// Their offsets in `x`, widened before the multiply so they never wrap.
    kept_offsets: Tensor<i64>,
    /// The range of the reduced dimension this program walks, and that dimension's stride.
    start: Tensor<i32>,
    end: Tensor<i32>,
    stride_along: Tensor<i32>,
    unroll: usize,
}

impl Walk {
    /// The walk of a whole line: kept block `program_id(0)`, every index along.
    fn new<E, O>(a: &Args<E, O>, axis: usize) -> Walk {
        let n_along = if axis == 1 { a.n_cols } else { a.n_rows };
        Walk::over(a, axis, full::<i32>(&[], 0), n_along)
    }

    /// The walk of row chunk `program_id(1)` of a column reduction: rows
    /// `chunk * rows_per_split .. min((chunk + 1) * rows_per_split, n_rows)`.
    fn chunk<E, O>(a: &Args<E, O>, rows_per_split: Tensor<i32>) -> Walk {
        let start = program_id(1) * rows_per_split;
        let end = minimum(start + rows_per_split, a.n_rows);
        Walk::over(a, Direction::Cols.axis(), start, end)
    }

    fn over<E, O>(a: &Args<E, O>, axis: usize, start: Tensor<i32>, end: Tensor<i32>) -> Walk {
        let pid = program_id(0);
        let (block_kept, n_kept, stride_kept, stride_along) = if axis == 1 {
            (a.block_m, a.n_rows, a.stride_row, a.stride_col)
        } else {
            (a.block_n, a.n_cols, a.stride_col, a.stride_row)
        };
        let kept = pid * block_kept as i32 + arange(0, block_kept);
        let kept_mask = kept.lt(n_kept);
        let kept_offsets = kept.to::<i64>() * stride_kept;
        let (block_m, block_n, unroll) = (a.block_m, a.block_n, a.unroll);
        Walk { axis, block_m, block_n, kept, kept_mask, kept_offsets, start, end, stride_along, unroll }
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

    /// Runs `body(tile_start, carried)` for every tile of the walk's range, in order,
    /// `unroll` tiles' loads in flight together.
    fn fold<C: Carry>(&self, init: C, body: impl FnOnce(Tensor<i32>, C) -> C) -> C {
        for_range_unrolled(self.start, self.end, self.step() as i32, self.unroll, init, body)
    }

    /// The tile starting at index `start` of the reduced dimension: element offsets in
    /// `x`, the mask of elements that exist, and each element's index along the reduced
    /// dimension (the result of an arg reduction; a tile row or column, broadcast by use).
    fn tile(&self, start: Tensor<i32>) -> (Tensor<i64>, Tensor<bool>, Tensor<i32>) {
        let along = start + arange(0, self.step());
        let mask = self.kept_dim(self.kept_mask) & self.along_dim(along.lt(self.end));
        let offsets = self.kept_dim(self.kept_offsets) + self.along_dim(along.to::<i64>() * self.stride_along);
        (offsets, mask, self.along_dim(along))
    }

    /// Where result `kept` goes in `y`.
    fn store<O: ScalarMarker>(&self, y_ptr: Tensor<Ptr<O>>, stride_y: Tensor<i32>, value: Tensor<O>) {
        store(y_ptr + self.kept.to::<i64>() * stride_y, value, Some(self.kept_mask));
    }

    /// Where this chunk's partial result of column `kept` goes: row `program_id(1)` of a
    /// contiguous `[split, n_cols]` scratch buffer.
    fn store_partial<O: ScalarMarker>(&self, part_ptr: Tensor<Ptr<O>>, n_cols: Tensor<i32>, value: Tensor<O>) {
        let row = program_id(1).to::<i64>() * n_cols;
        store(part_ptr + row + self.kept.to::<i64>(), value, Some(self.kept_mask));
    }
}

/// The accumulator tile of `sum`, `max` or `min` over the walk's range.
fn value_fold<E: ReduceElem, O, Op: ValueOp>(a: &Args<E, O>, walk: &Walk) -> Tensor<E::Acc> {
    let acc = full::<E::Acc>(&[a.block_m, a.block_n], Op::init::<E::Acc>());
    walk.fold(acc, |start, acc| {
        let (offsets, mask, _) = walk.tile(start);
        let x = load(a.x_ptr + offsets, Some(mask), Some(Op::pad::<E>())).to::<E::Acc>();
        Op::step(acc, x)
    })
}

/// `y[k] = op(x along the reduced dimension at kept index k)` for `sum`, `max`, `min`,
/// computed in `E`'s accumulator type and stored as `O` (`E` itself; or, combining the
/// `f32` partials of a split `f16` / `bf16` reduction, that type).
pub fn value_body<E: ReduceElem, O: ScalarMarker, Op: ValueOp>(a: Args<E, O>, axis: usize) {
    let walk = Walk::new(&a, axis);
    let acc = value_fold::<E, O, Op>(&a, &walk);
    walk.store(a.y_ptr, a.stride_y, Op::finish(acc, axis).to::<O>());
}

/// The first pass of a split column reduction (`sum`, `max`, `min`): program `(c, s)`
/// reduces rows `s * rows_per_split ..` of its `BLOCK_N` columns and stores the result
/// in `E`'s accumulator type (no rounding to `f16` / `bf16` between the passes) at
/// `y[s, column]` of the `[split, n_cols]` scratch buffer `a.y_ptr`.
pub fn value_partial_body<E: ReduceElem, Op: ValueOp>(a: Args<E, E::Acc>, rows_per_split: Tensor<i32>) {
    let walk = Walk::chunk(&a, rows_per_split);
    let acc = value_fold::<E, E::Acc, Op>(&a, &walk);
    walk.store_partial(a.y_ptr, a.n_cols, Op::finish(acc, walk.axis));
}

/// The second pass of a split column reduction: `y[c] = op(part[.., c])` over the
/// `[split, n_cols]` partials, stored as `O`. The same walk as a direct column reduction
/// of the contiguous partials (`sum` adds them in a fixed order: run to run, the same
/// bits).
pub fn value_combine_body<A: ReduceElem<Acc = A>, O: ScalarMarker, Op: ValueOp>(
    part_ptr: Tensor<Ptr<A>>,
    y_ptr: Tensor<Ptr<O>>,
    split: Tensor<i32>,
    n_cols: Tensor<i32>,
    stride_y: Tensor<i32>,
    (block_m, block_n): (usize, usize),
) {
    let a = partials_args(part_ptr, y_ptr, split, n_cols, stride_y, (block_m, block_n));
    value_body::<A, O, Op>(a, Direction::Cols.axis());
}

/// The arguments of a walk over the contiguous `[split, n_cols]` partials.
fn partials_args<A, O>(
    part_ptr: Tensor<Ptr<A>>,
    y_ptr: Tensor<Ptr<O>>,
    split: Tensor<i32>,
    n_cols: Tensor<i32>,
    stride_y: Tensor<i32>,
    (block_m, block_n): (usize, usize),
) -> Args<A, O> {
    Args {
        x_ptr: part_ptr,
        y_ptr,
        n_rows: split,
        n_cols,
        stride_row: n_cols,
        stride_col: full::<i32>(&[], 1),
        stride_y,
        block_m,
        block_n,
        unroll: 1,
    }
}

/// The (value, index) accumulator tiles of `argmax` / `argmin` over the walk's range:
/// per tile element the best value seen and the first index holding it (`NOT_FOUND`
/// while nothing was taken).
fn index_fold<E: ReduceElem, O, Op: IndexOp>(a: &Args<E, O>, walk: &Walk) -> (Tensor<E::Acc>, Tensor<i32>) {
    let shape = [a.block_m, a.block_n];
    let init = (full::<E::Acc>(&shape, Op::init::<E::Acc>()), full::<i32>(&shape, NOT_FOUND));
    walk.fold(init, |start, (value, index)| {
        let (offsets, mask, at) = walk.tile(start);
        let x = load(a.x_ptr + offsets, Some(mask), Some(E::UNORDERED.unwrap_or(E::ZERO))).to::<E::Acc>();
        // Each accumulator sees its indices in increasing order, so the first of equal
        // values stays; an extreme equal to the start (`-inf` for argmax) is taken when
        // nothing was found yet. NaN is never better nor equal, so it is never taken:
        // neither is a masked-off element of a float type, which loads NaN.
        let first = value.eq(x) & index.eq(NOT_FOUND);
        let take = Op::better(x, value) | first;
        let take = if E::UNORDERED.is_some() { take } else { mask & take };
        (where_(take, x, value), where_(take, at, index))
    })
}

/// Across the tile: the best value (`max` / `min`), then the lowest index among the
/// accumulators holding it (`-0.0` and `+0.0` are equal; `NOT_FOUND` is above every
/// index, so an accumulator that took nothing never wins unless none did). Two
/// single-value reductions rather than one `reduce` of (value, index) pairs: each tree
/// step is one shuffle and one `max` / `min` instead of two shuffles, two compares and
/// two selects, and the pairs' registers are free once the best value is known.
/// Accumulators hold no NaN, and both reductions are exact, so the result is the same.
fn index_finish<A: Accumulator, Op: IndexOp>(
    value: Tensor<A>,
    index: Tensor<i32>,
    axis: usize,
) -> (Tensor<A>, Tensor<i32>) {
    let best = Op::extreme(value, axis);
    let at_best = where_(value.eq(best.expand_dims(axis)), index, NOT_FOUND);
    (best, min(at_best, axis))
}

/// `y[k] = the first index of the extremum` along the reduced dimension (NaN ignored;
/// 0 when there is none: a line of only NaN).
pub fn index_body<E: ReduceElem, Op: IndexOp>(a: Args<E, i32>, axis: usize) {
    let walk = Walk::new(&a, axis);
    let (value, index) = index_fold::<E, i32, Op>(&a, &walk);
    let (_, index) = index_finish::<E::Acc, Op>(value, index, axis);
    walk.store(a.y_ptr, a.stride_y, where_(index.ne(NOT_FOUND), index, 0));
}

/// The first pass of a split column `argmax` / `argmin`: each row chunk's best value in
/// the accumulator type (a zero as `+0.0`; the start value where the chunk has none) at
/// `a.y_ptr[s, c]`, and the first row holding a value equal to it (`i32::MAX` where
/// none) at `index_ptr[s, c]`.
pub fn index_partial_body<E: ReduceElem, Op: IndexOp>(
    a: Args<E, E::Acc>,
    index_ptr: Tensor<Ptr<i32>>,
    rows_per_split: Tensor<i32>,
) {
    let walk = Walk::chunk(&a, rows_per_split);
    let (value, index) = index_fold::<E, E::Acc, Op>(&a, &walk);
    let (value, index) = index_finish::<E::Acc, Op>(value, index, walk.axis);
    // Which zero an accumulator keeps depends on which came first in it; the combine only
    // compares values (`-0.0 == +0.0`), so store `+0.0` for either: the same bits on every
    // back end and tile.
    let zero = full::<E::Acc>(&[a.block_n], <E::Acc as Accumulator>::ZERO);
    walk.store_partial(a.y_ptr, a.n_cols, value + zero);
    walk.store_partial(index_ptr, a.n_cols, index);
}

/// The second pass of a split column `argmax` / `argmin`: of the chunks' (value, row)
/// partials of column `c`, the better value and of equal ones the lower row, as the
/// direct kernel decides (a chunk without a row loses to any chunk with one; 0 where no
/// chunk has one: a column of only NaN).
#[allow(clippy::too_many_arguments)]
pub fn index_combine_body<A: ReduceElem<Acc = A> + Accumulator, Op: IndexOp>(
    part_ptr: Tensor<Ptr<A>>,
    index_ptr: Tensor<Ptr<i32>>,
    y_ptr: Tensor<Ptr<i32>>,
    split: Tensor<i32>,
    n_cols: Tensor<i32>,
    stride_y: Tensor<i32>,
    (block_m, block_n): (usize, usize),
) {
    let a = partials_args(part_ptr, y_ptr, split, n_cols, stride_y, (block_m, block_n));
    let walk = Walk::new(&a, Direction::Cols.axis());
    let shape = [a.block_m, a.block_n];
    let init = (full::<A>(&shape, Op::init::<A>()), full::<i32>(&shape, NOT_FOUND));
    let (value, index) = walk.fold(init, |start, (value, index)| {
        let (offsets, mask, _) = walk.tile(start);
        let x = load(a.x_ptr + offsets, Some(mask), Some(Op::init::<A>()));
        let at = load(index_ptr + offsets, Some(mask), Some(NOT_FOUND));
        let take = Op::better(x, value) | (x.eq(value) & at.lt(index));
        (where_(take, x, value), where_(take, at, index))
    });
    let (_, index) = index_finish::<A, Op>(value, index, walk.axis);
    walk.store(a.y_ptr, a.stride_y, where_(index.ne(NOT_FOUND), index, 0));
}

/// The last chunk of each column block to finish combines: after this program's
/// partials are stored (every thread's, hence the barrier), one `acq_rel` atomic add on
/// `counter_ptr[program_id(0)]` counts the chunks of this column block done; the program
/// that makes it `split` runs `combine` (the other chunks' partials are visible to it
/// through the counter's release sequence) and sets the counter back to 0, so the buffer
/// is ready for the next launch. The pattern of CUDA's `threadFenceReduction` sample and
/// of torch's column reductions (a semaphore per output block): one launch instead of
/// two, and the combine of one column block overlaps the partials of the others.
fn last_chunk_combines(counter_ptr: Tensor<Ptr<i32>>, combine: impl FnOnce()) {
    debug_barrier();
    let counter = counter_ptr + program_id(0);
    let done = atomic_add(counter, 1, None);
    if_then(done.eq(num_programs(1) - 1), || {
        combine();
        atomic_xchg(counter, 0, None);
    });
}

/// A split column reduction (`sum`, `max`, `min`) in one launch: the partials of
/// [`value_partial_body`] into `a.y_ptr`'s `[split, n_cols]` scratch, then, in the last
/// chunk of each column block to finish, [`value_combine_body`] of that block's columns
/// (`BLOCK_N` as the partials, `combine_block_m` partial rows a step) into `y_ptr`.
pub fn value_fused_body<E: ReduceElem, Op: ValueOp>(
    a: Args<E, E::Acc>,
    (y_ptr, stride_y): (Tensor<Ptr<E>>, Tensor<i32>),
    counter_ptr: Tensor<Ptr<i32>>,
    rows_per_split: Tensor<i32>,
    combine_block_m: usize,
) where
    E::Acc: ReduceElem<Acc = E::Acc>,
{
    value_partial_body::<E, Op>(a, rows_per_split);
    last_chunk_combines(counter_ptr, || {
        let split = num_programs(1);
        value_combine_body::<E::Acc, E, Op>(a.y_ptr, y_ptr, split, a.n_cols, stride_y, (combine_block_m, a.block_n));
    });
}

/// A split column `argmax` / `argmin` in one launch: [`index_partial_body`], then in the
/// last chunk of each column block [`index_combine_body`] of its columns (as
/// [`value_fused_body`]).
#[allow(clippy::too_many_arguments)]
pub fn index_fused_body<E: ReduceElem, Op: IndexOp>(
    a: Args<E, E::Acc>,
    index_ptr: Tensor<Ptr<i32>>,
    (y_ptr, stride_y): (Tensor<Ptr<i32>>, Tensor<i32>),
    counter_ptr: Tensor<Ptr<i32>>,
    rows_per_split: Tensor<i32>,
    combine_block_m: usize,
) where
    E::Acc: ReduceElem<Acc = E::Acc>,
{
    index_partial_body::<E, Op>(a, index_ptr, rows_per_split);
    last_chunk_combines(counter_ptr, || {
        let split = num_programs(1);
        index_combine_body::<E::Acc, Op>(
            a.y_ptr,
            index_ptr,
            y_ptr,
            split,
            a.n_cols,
            stride_y,
            (combine_block_m, a.block_n),
        );
    });
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
                                      block_m: BLOCK_M, block_n: BLOCK_N, unroll: 1 };
                    reductions!(@call $body, $e, $out, $op, args, Direction::axis($dir));
                }
            }
        )*

        /// Every direct reduction kernel, named `{row|col}_{op}_{dtype}`.
        pub fn all() -> Vec<rtriton::trace::KernelDef> {
            vec![$($name()),*]
        }
    };
    (@call value_body, $e:ty, $out:ty, $op:ty, $args:expr, $axis:expr) => {
        value_body::<$e, $out, $op>($args, $axis)
    };
    (@call index_body, $e:ty, $out:ty, $op:ty, $args:expr, $axis:expr) => {
        index_body::<$e, $op>($args, $axis)
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

/// The passes of every split column reduction: `col_{op}_partials_{dtype}` (grid
/// `[cdiv(n_cols, BLOCK_N), split]`, partials into a contiguous `[split, n_cols]`
/// scratch buffer of the accumulator type; an arg reduction also the rows, into a second
/// `i32` buffer), `col_{op}_combine_{dtype}` (grid `[cdiv(n_cols, BLOCK_N)]`, the
/// partials into `y`), and `col_{op}_fused_{dtype}`, both in one launch (the partials'
/// grid; the last chunk of each column block combines, counted in an `i32` buffer of one
/// zero per column block that it leaves zero). `name => element type, accumulator type,
/// operation`.
macro_rules! split_reductions {
    (values { $($partials:ident, $combine:ident, $fused:ident => $e:ty, $acc:ty, $op:ty;)* }
     indices { $($ipartials:ident, $icombine:ident, $ifused:ident => $ie:ty, $iacc:ty, $iop:ty;)* }) => {
        $(
            kernel! {
                pub fn $partials(x_ptr: Ptr<$e>, part_ptr: Ptr<$acc>, n_rows: i32, n_cols: i32, stride_row: i32,
                                 stride_col: i32, rows_per_split: i32;
                                 const BLOCK_M: usize, const BLOCK_N: usize, const UNROLL: usize) {
                    let args = Args { x_ptr, y_ptr: part_ptr, n_rows, n_cols, stride_row, stride_col,
                                      stride_y: n_cols, block_m: BLOCK_M, block_n: BLOCK_N, unroll: UNROLL };
                    value_partial_body::<$e, $op>(args, rows_per_split);
                }
            }
            kernel! {
                pub fn $combine(part_ptr: Ptr<$acc>, y_ptr: Ptr<$e>, split: i32, n_cols: i32, stride_y: i32;
                                const BLOCK_M: usize, const BLOCK_N: usize) {
                    value_combine_body::<$acc, $e, $op>(part_ptr, y_ptr, split, n_cols, stride_y, (BLOCK_M, BLOCK_N));
                }
            }
            kernel! {
                pub fn $fused(x_ptr: Ptr<$e>, part_ptr: Ptr<$acc>, y_ptr: Ptr<$e>, counter_ptr: Ptr<i32>,
                              n_rows: i32, n_cols: i32, stride_row: i32, stride_col: i32, stride_y: i32,
                              rows_per_split: i32;
                              const BLOCK_M: usize, const BLOCK_N: usize, const COMBINE_BLOCK_M: usize,
                              const UNROLL: usize) {
                    let args = Args { x_ptr, y_ptr: part_ptr, n_rows, n_cols, stride_row, stride_col,
                                      stride_y: n_cols, block_m: BLOCK_M, block_n: BLOCK_N, unroll: UNROLL };
                    value_fused_body::<$e, $op>(args, (y_ptr, stride_y), counter_ptr, rows_per_split, COMBINE_BLOCK_M);
                }
            }
        )*
        $(
            kernel! {
                pub fn $ipartials(x_ptr: Ptr<$ie>, part_ptr: Ptr<$iacc>, index_ptr: Ptr<i32>, n_rows: i32,
                                  n_cols: i32, stride_row: i32, stride_col: i32, rows_per_split: i32;
                                  const BLOCK_M: usize, const BLOCK_N: usize, const UNROLL: usize) {
                    let args = Args { x_ptr, y_ptr: part_ptr, n_rows, n_cols, stride_row, stride_col,
                                      stride_y: n_cols, block_m: BLOCK_M, block_n: BLOCK_N, unroll: UNROLL };
                    index_partial_body::<$ie, $iop>(args, index_ptr, rows_per_split);
                }
            }
            kernel! {
                pub fn $icombine(part_ptr: Ptr<$iacc>, index_ptr: Ptr<i32>, y_ptr: Ptr<i32>, split: i32,
                                 n_cols: i32, stride_y: i32; const BLOCK_M: usize, const BLOCK_N: usize) {
                    index_combine_body::<$iacc, $iop>(part_ptr, index_ptr, y_ptr, split, n_cols, stride_y,
                                                      (BLOCK_M, BLOCK_N));
                }
            }
            kernel! {
                pub fn $ifused(x_ptr: Ptr<$ie>, part_ptr: Ptr<$iacc>, index_ptr: Ptr<i32>, y_ptr: Ptr<i32>,
                               counter_ptr: Ptr<i32>, n_rows: i32, n_cols: i32, stride_row: i32, stride_col: i32,
                               stride_y: i32, rows_per_split: i32;
                               const BLOCK_M: usize, const BLOCK_N: usize, const COMBINE_BLOCK_M: usize,
                               const UNROLL: usize) {
                    let args = Args { x_ptr, y_ptr: part_ptr, n_rows, n_cols, stride_row, stride_col,
                                      stride_y: n_cols, block_m: BLOCK_M, block_n: BLOCK_N, unroll: UNROLL };
                    index_fused_body::<$ie, $iop>(args, index_ptr, (y_ptr, stride_y), counter_ptr, rows_per_split,
                                                  COMBINE_BLOCK_M);
                }
            }
        )*

        /// Every split column reduction's two kernels, partials then combine.
        pub fn all_split() -> Vec<(rtriton::trace::KernelDef, rtriton::trace::KernelDef)> {
            vec![$(($partials(), $combine())),* , $(($ipartials(), $icombine())),*]
        }

        /// Every split column reduction's one-launch kernel.
        pub fn all_fused() -> Vec<rtriton::trace::KernelDef> {
            vec![$($fused()),* , $($ifused()),*]
        }
    };
}

split_reductions! {
    values {
    col_sum_partials_f32, col_sum_combine_f32, col_sum_fused_f32 => f32, f32, Sum;
    col_max_partials_f32, col_max_combine_f32, col_max_fused_f32 => f32, f32, Max;
    col_min_partials_f32, col_min_combine_f32, col_min_fused_f32 => f32, f32, Min;
    col_sum_partials_i32, col_sum_combine_i32, col_sum_fused_i32 => i32, i32, Sum;
    col_max_partials_i32, col_max_combine_i32, col_max_fused_i32 => i32, i32, Max;
    col_min_partials_i32, col_min_combine_i32, col_min_fused_i32 => i32, i32, Min;
    col_sum_partials_f16, col_sum_combine_f16, col_sum_fused_f16 => f16, f32, Sum;
    col_max_partials_f16, col_max_combine_f16, col_max_fused_f16 => f16, f32, Max;
    col_min_partials_f16, col_min_combine_f16, col_min_fused_f16 => f16, f32, Min;
    col_sum_partials_bf16, col_sum_combine_bf16, col_sum_fused_bf16 => bf16, f32, Sum;
    col_max_partials_bf16, col_max_combine_bf16, col_max_fused_bf16 => bf16, f32, Max;
    col_min_partials_bf16, col_min_combine_bf16, col_min_fused_bf16 => bf16, f32, Min;
    }
    indices {
    col_argmax_partials_f32, col_argmax_combine_f32, col_argmax_fused_f32 => f32, f32, ArgMax;
    col_argmin_partials_f32, col_argmin_combine_f32, col_argmin_fused_f32 => f32, f32, ArgMin;
    col_argmax_partials_i32, col_argmax_combine_i32, col_argmax_fused_i32 => i32, i32, ArgMax;
    col_argmin_partials_i32, col_argmin_combine_i32, col_argmin_fused_i32 => i32, i32, ArgMin;
    col_argmax_partials_f16, col_argmax_combine_f16, col_argmax_fused_f16 => f16, f32, ArgMax;
    col_argmin_partials_f16, col_argmin_combine_f16, col_argmin_fused_f16 => f16, f32, ArgMin;
    col_argmax_partials_bf16, col_argmax_combine_bf16, col_argmax_fused_bf16 => bf16, f32, ArgMax;
    col_argmin_partials_bf16, col_argmin_combine_bf16, col_argmin_fused_bf16 => bf16, f32, ArgMin;
    }
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
