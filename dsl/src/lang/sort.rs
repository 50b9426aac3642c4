//! Triton's `sort`, `topk` and `bitonic_merge` (`standard.py`): the same bitonic network,
//! written with other ops (no op of their own), so every back end runs what the ops they
//! use run.
//!
//! A compare-and-swap on bit `b` pairs the elements whose indices along the axis differ in
//! that bit only. Triton reshapes the whole block into dims of size 2 once and finds each
//! partner with an `xor_sum` of the bits; rtriton has one blocked layout per kernel, and
//! a block of rank 10 would spread every other block of the kernel over dims of at most
//! two threads (a `[1024]` load then needs 512 registers a thread). So each
//! compare-and-swap reshapes the axis alone into `[n / 2^(b+1), 2, 2^b]` (a rank two above
//! `x`'s), and a `reduce` over the dim of size 2 hands every pair its left and right
//! element: that dim combines once, as `combine(position 0, position 1)` on every back
//! end (`docs/semantics.md`, "Combine order"), and the combine keeps the left side's copy
//! and the right side's. `where` puts the two back in their new places. Values move only
//! through `reshape`, that selecting `reduce` and `where`, never through arithmetic or a
//! bitcast, so every bit stays (NaN payloads, `-0.0`) for every dtype.
//!
//! **The pair decision.** A pair is exchanged when it is out of order under Triton's `>`
//! (ordered: false when either side is NaN; `-0.0 > +0.0` is false): `left > right` where
//! the run is ascending, `right > left` where it is descending, and both elements move on
//! that one decision. Triton 3.6's `_compare_and_swap` decides each side on its own
//! (`where((x > y) != (flip ^ is_right), y, x)`), which gives the same bits whenever one
//! side is greater or the two have the same bits, and two copies of one side when neither
//! is greater and their bits differ (a NaN, or `-0.0` beside `+0.0`); here the block stays
//! a permutation of its input.
//!
//! **Cost.** Sorting `n = 2^s` elements takes `s (s + 1) / 2` compare-and-swaps (55 for
//! 1024), each a `reshape` (a shared-memory round trip in the PTX back end) and a
//! reduction over two positions (in registers, a shuffle or shared memory, as the layout
//! puts the pair); no block is larger than `x`. Giving two bits a dim each per reshape
//! halves the reshapes, but the one more small dim in the kernel's layout turned sorts of
//! 2048 elements at 1 or 2 warps into register-budget refusals (`RT0802`); one bit per
//! reshape compiles them.

use crate::ir::{BinaryOp, CmpPred, Constant, DType, Shape, SourceLoc, Value};
use crate::trace::{Builder, with_builder};

use super::combine::reduce_at;
use super::dtype::NumericMarker;
use super::indexing::normalize_dim;
use super::tensor::Tensor;

/// `tl.sort(x, dim=None, descending=False)`: `x` sorted along `dim` (`None`: the last dim,
/// Triton's default; a negative dim counts from the end; Triton 3.6 sorts the last dim
/// only), ascending or, with `descending`, descending. `x`'s shape and dtype; integers
/// compare by value (unsigned ones as unsigned), floats by Triton's `>` (see the module
/// documentation for NaN and `-0.0`). A block without NaNs comes out ordered by value;
/// `-0.0` and `+0.0` are equal and keep the order the network leaves them in.
#[track_caller]
pub fn sort<T: NumericMarker>(x: Tensor<T>, dim: Option<isize>, descending: bool) -> Tensor<T> {
    sort_at(x, None, dim, descending, "sort", SourceLoc::caller())
}

/// `tl.topk(x, k, dim=None)`: the `k` largest elements along `dim`, largest first
/// (Triton's bitonic top-k: runs of `k` sorted, then halved by pairwise maxima and merged
/// again). The result has `x`'s shape with `k` along `dim`; `k` is a power of two from 1
/// to the dim's length (Triton floors another `k` to a power of two; rtriton refuses it).
#[track_caller]
pub fn topk<T: NumericMarker>(x: Tensor<T>, k: usize, dim: Option<isize>) -> Tensor<T> {
    sort_at(x, Some(k), dim, true, "topk", SourceLoc::caller())
}

/// [`topk`] with `descending`: `false` gives the `k` smallest elements, smallest first
/// (the argument later Triton versions add).
#[track_caller]
pub fn topk_with<T: NumericMarker>(x: Tensor<T>, k: usize, dim: Option<isize>, descending: bool) -> Tensor<T> {
    sort_at(x, Some(k), dim, descending, "topk", SourceLoc::caller())
}

/// `tl.bitonic_merge(x, dim=None, descending=False)`: the last merge stage of the sort
/// along `dim`, which orders a bitonic sequence (one that rises then falls, or falls then
/// rises, such as two sorted halves in opposite orders). Another input comes out as that
/// network leaves it: a permutation of it, not sorted in general.
#[track_caller]
pub fn bitonic_merge<T: NumericMarker>(x: Tensor<T>, dim: Option<isize>, descending: bool) -> Tensor<T> {
    let loc = SourceLoc::caller();
    let Some(mut s) = with_builder(|b| Network::new(b, x.id(), dim, "bitonic_merge", loc)) else {
        return x;
    };
    s.merge(s.log_len(), Order::fixed(descending));
    Tensor::from_value(with_builder(|b| s.finish(b)))
}

fn sort_at<T: NumericMarker>(
    x: Tensor<T>,
    k: Option<usize>,
    dim: Option<isize>,
    descending: bool,
    what: &str,
    loc: SourceLoc,
) -> Tensor<T> {
    let Some((mut s, log_k)) = with_builder(|b| {
        let s = Network::new(b, x.id(), dim, what, loc)?;
        let log_k = match k {
            None => s.log_len(),
            Some(k) => s.check_k(b, k)?,
        };
        Some((s, log_k))
    }) else {
        return x;
    };
    let log_n = s.log_len();
    let last = |stage: u32| if stage < log_n { Order::Alternating } else { Order::fixed(descending) };
    // Sorted runs of 2, 4, ... 2^log_k elements, alternately ascending and descending
    // until the last stage of a whole sort.
    for stage in 1..=log_k {
        s.merge(stage, last(stage));
    }
    // Bitonic top-k: two neighbouring runs (one ascending, one descending) hold their
    // pair's k best in the pairwise best of the two, a bitonic sequence that one more
    // merge sorts; each round halves the axis.
    for round in log_k + 1..=log_n {
        s.halve(log_k, descending);
        s.merge(log_k, last(round));
    }
    Tensor::from_value(with_builder(|b| s.finish(b)))
}

/// `x` reversed along `dim` (`tl.flip`): every bit of the index along the axis
/// complemented, one [`Network::exchange`] a bit. Values move by selection only, and
/// only the axis is reshaped at each step, so the kernel's layout keeps a low rank (a
/// 1-D block of 1024 at 4 warps fits the register budget). `x` itself after a located
/// error.
pub(super) fn flip_at(x: Value, dim: Option<isize>, loc: SourceLoc) -> Value {
    let Some(mut s) = with_builder(|b| Network::new(b, x, dim, "flip", loc)) else {
        return x;
    };
    for bit in 0..s.log_len() {
        s.exchange(bit);
    }
    with_builder(|b| s.finish(b))
}

/// The direction a merge stage leaves the runs in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Order {
    Ascending,
    Descending,
    /// Ascending where bit `stage` of the index along the axis is 0, descending where it
    /// is 1 (Triton's order 2), so that neighbouring runs form bitonic sequences.
    Alternating,
}

impl Order {
    fn fixed(descending: bool) -> Order {
        if descending { Order::Descending } else { Order::Ascending }
    }
}

/// A block going through the network: its current value (in the shape of the last
/// step's view, or `x`'s before the first), the shape it stands for and the axis.
struct Network {
    value: Value,
    dims: Vec<usize>,
    axis: usize,
    loc: SourceLoc,
}

impl Network {
    /// Checks `x` and `dim`; `None` after a located error.
    fn new(b: &mut Builder, x: Value, dim: Option<isize>, what: &str, loc: SourceLoc) -> Option<Network> {
        let shape = b.ty(x).shape.clone();
        let axis = normalize_dim(b, what, dim.unwrap_or(-1), &shape, loc)?;
        Some(Network { value: x, dims: shape.dims().to_vec(), axis, loc })
    }

    fn len(&self) -> usize {
        self.dims[self.axis]
    }

    /// log2 of the length along the axis (block dims are powers of two).
    fn log_len(&self) -> u32 {
        self.len().trailing_zeros()
    }

    /// `log2(k)`, or a located error when `k` is not a power of two within the axis.
    fn check_k(&self, b: &mut Builder, k: usize) -> Option<u32> {
        let n = self.len();
        if k.is_power_of_two() && k <= n {
            return Some(k.trailing_zeros());
        }
        b.error(
            self.loc,
            format!(
                "topk of k = {k} along dim {} of a block of shape {}: k must be a power of two from 1 to {n}",
                self.axis,
                Shape(self.dims.clone())
            ),
            format!("choose k in 1, 2, 4, ..., {n} (take the first elements of a larger topk for another count)"),
        );
        None
    }

    /// The shape of a compare-and-swap on `bit`: the axis as `[n / 2^(bit+1), 2, 2^bit]`,
    /// the pair dim at `axis + 1`.
    fn view(&self, bit: u32) -> Vec<usize> {
        let (a, n) = (self.axis, self.len());
        let mut v = self.dims[..a].to_vec();
        v.extend([n >> (bit + 1), 2, 1 << bit]);
        v.extend(&self.dims[a + 1..]);
        v
    }

    /// The left and right element of every pair that differs in `bit`, in `view(bit)`
    /// without the pair dim.
    fn pairs(&mut self, bit: u32) -> (Value, Value) {
        let view = self.view(bit);
        let y = with_builder(|b| b.reshape(self.value, &view, self.loc));
        let y = Tensor::<()>::from_value(y);
        // A dim of 2 combines once, as `combine(position 0, position 1)` on every back
        // end: the left side's first copy and the right side's second are the pair.
        let (l, r) = reduce_at((y, y), self.axis + 1, |(l, _), (_, r)| (l, r), self.loc);
        (l.id(), r.id())
    }

    /// A bitonic merge of runs of `2^stage`: compare-and-swaps on bits `stage - 1` down to 0.
    fn merge(&mut self, stage: u32, order: Order) {
        for bit in (0..stage).rev() {
            self.compare_and_swap(bit, stage, order);
        }
    }

    fn compare_and_swap(&mut self, bit: u32, stage: u32, order: Order) {
        let (l, r) = self.pairs(bit);
        // The view's rank, and the size of its dim of the bits above `bit`.
        let (axis, loc, rank) = (self.axis, self.loc, self.dims.len() + 2);
        let hi = self.len() >> (bit + 1);
        self.value = with_builder(|b| {
            let swap = match order {
                Order::Ascending => b.compare(CmpPred::Gt, l, r, loc),
                Order::Descending => b.compare(CmpPred::Gt, r, l, loc),
                Order::Alternating => {
                    let (asc, desc) = (b.compare(CmpPred::Gt, l, r, loc), b.compare(CmpPred::Gt, r, l, loc));
                    // `l > r` has the view's shape without the pair dim (rank - 1).
                    let descending = stage_bit_set(b, axis, rank - 1, hi, stage - bit - 1, loc);
                    b.select(descending, desc, asc, loc)
                }
            };
            // Both elements of a pair move on the one decision: the left place takes the
            // right element where they swap, the right place the left one.
            let swap = b.expand_dims(swap, axis + 1, loc);
            let right = pair_right(b, loc);
            let right = along(b, right, axis + 1, rank, loc);
            let take_right = b.binary(BinaryOp::Xor, swap, right, loc);
            let (l, r) = (b.expand_dims(l, axis + 1, loc), b.expand_dims(r, axis + 1, loc));
            b.select(take_right, r, l, loc)
        });
    }

    /// Exchanges the two elements of every pair that differs in `bit` (a compare-and-swap
    /// whose every pair swaps): `flip`'s step, one for each bit of the index.
    fn exchange(&mut self, bit: u32) {
        let (l, r) = self.pairs(bit);
        let (axis, loc, rank) = (self.axis, self.loc, self.dims.len() + 2);
        self.value = with_builder(|b| {
            let right = pair_right(b, loc);
            let right = along(b, right, axis + 1, rank, loc);
            let (l, r) = (b.expand_dims(l, axis + 1, loc), b.expand_dims(r, axis + 1, loc));
            // The left place takes the right element, the right place the left one.
            b.select(right, l, r, loc)
        });
    }

    /// Keeps one element of every pair that differs in `bit`: the greater (`greater`:
    /// the right one unless the left is greater) or the smaller (the left one unless the
    /// right is smaller), the two places an ascending compare-and-swap gives them. The
    /// axis halves.
    fn halve(&mut self, bit: u32, greater: bool) {
        let (l, r) = self.pairs(bit);
        let loc = self.loc;
        self.value = with_builder(|b| {
            let gt = b.compare(CmpPred::Gt, l, r, loc);
            if greater { b.select(gt, l, r, loc) } else { b.select(gt, r, l, loc) }
        });
        self.dims[self.axis] /= 2;
    }

    /// The result: the current value in the shape it stands for.
    fn finish(&self, b: &mut Builder) -> Value {
        b.reshape(self.value, &self.dims, self.loc)
    }
}

/// `[false, true]`: whether a place of a pair is the right one.
fn pair_right(b: &mut Builder, loc: SourceLoc) -> Value {
    let i = b.arange(0, 2, loc);
    let zero = b.constant_value(Constant::Int(0), DType::I32, Shape(vec![]), loc);
    b.compare(CmpPred::Ne, i, zero, loc)
}

/// Whether bit `shift` of `arange(0, hi)` is set, placed at dim `at` of a block of rank
/// `rank` (the other dims of size 1): bit `stage` of the index along the axis, read from
/// the dim of size `hi` that holds the bits above the compared one.
fn stage_bit_set(b: &mut Builder, at: usize, rank: usize, hi: usize, shift: u32, loc: SourceLoc) -> Value {
    let i = b.arange(0, hi as i64, loc);
    let (shift, one) = (
        b.constant_value(Constant::Int(shift.into()), DType::I32, Shape(vec![]), loc),
        b.constant_value(Constant::Int(1), DType::I32, Shape(vec![]), loc),
    );
    let i = b.binary(BinaryOp::Shr, i, shift, loc);
    let bit = b.binary(BinaryOp::And, i, one, loc);
    let zero = b.constant_value(Constant::Int(0), DType::I32, Shape(vec![]), loc);
    let set = b.compare(CmpPred::Ne, bit, zero, loc);
    along(b, set, at, rank, loc)
}

/// The 1-D block `v` as dim `at` of a block of rank `rank` whose other dims have size 1
/// (`expand_dims` only: no element moves).
fn along(b: &mut Builder, v: Value, at: usize, rank: usize, loc: SourceLoc) -> Value {
    let mut v = v;
    for _ in 0..at {
        v = b.expand_dims(v, 0, loc);
    }
    for d in at + 1..rank {
        v = b.expand_dims(v, d, loc);
    }
    v
}
