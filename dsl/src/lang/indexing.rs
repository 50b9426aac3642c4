//! Triton's `histogram`, `flip` and `gather`, written with other ops (no op of their own),
//! so every back end runs what the ops they use run.
//!
//! Each result is reproduced bit for bit for every dtype: values move only through shape
//! ops (`reshape`, `permute`, `split`, `join`), `where` and a selecting `reduce`, never
//! through float arithmetic, which would turn `-0.0 + 0.0` into `+0.0` and give NaNs the
//! canonical payload. Where Triton lowers an op to warp shuffles or shared memory
//! (`tt.gather`, `tt.histogram`), rtriton compares every output position with every input
//! position (a one-hot block); the cost of each is in its doc comment.

use crate::ir::{BinaryOp, CmpPred, Constant, DType, ReduceOp, Shape, SourceLoc, Value};
use crate::trace::{Builder, with_builder};

use super::combine::reduce_at;
use super::dtype::{IntMarker, ScalarMarker};
use super::tensor::Tensor;

/// `tl.histogram(input, num_bins)`: `num_bins` `i32` counts, count `b` the number of
/// elements of the 1-D integer block `input` equal to `b`; values outside `[0, num_bins)`
/// are ignored. `num_bins` is a block size (a power of two).
///
/// Cost: a `[num_bins, len(input)]` block of comparisons summed along its last dim (Triton
/// lowers `tt.histogram` to shared-memory atomics); a block over the register budget is
/// refused with the register-budget diagnostic (`RT0802`).
#[track_caller]
pub fn histogram<T: IntMarker>(input: Tensor<T>, num_bins: usize) -> Tensor<i32> {
    histogram_at(input, num_bins, None, SourceLoc::caller())
}

/// [`histogram`] with Triton's `mask`: elements where `mask` is false are not counted.
/// `mask` broadcasts to `input`'s shape (a scalar `bool` masks all or nothing).
#[track_caller]
pub fn histogram_with<T: IntMarker>(input: Tensor<T>, num_bins: usize, mask: Option<Tensor<bool>>) -> Tensor<i32> {
    histogram_at(input, num_bins, mask, SourceLoc::caller())
}

fn histogram_at<T: IntMarker>(
    input: Tensor<T>,
    num_bins: usize,
    mask: Option<Tensor<bool>>,
    loc: SourceLoc,
) -> Tensor<i32> {
    Tensor::from_value(with_builder(|b| {
        let shape = b.ty(input.id()).shape.clone();
        let bins = b.arange(0, num_bins as i64, loc);
        if shape.rank() != 1 {
            b.error(
                loc,
                format!("histogram of a block of shape {shape}: histogram counts a 1-D block"),
                "ravel the block first (ravel(x)), or count each row separately",
            );
            return b.full(&[num_bins], Constant::Int(0), DType::I32, loc);
        }
        // hit[b, i] = input[i] == b: the comparison promotes both sides to one integer
        // type (bins are small and non-negative, so no wider input wraps onto a bin).
        let bins = b.expand_dims(bins, 1, loc);
        let row = b.expand_dims(input.id(), 0, loc);
        let mut hit = b.compare(CmpPred::Eq, row, bins, loc);
        if let Some(mask) = mask {
            let mask = b.broadcast_to(mask.id(), &shape, loc);
            let mask = b.expand_dims(mask, 0, loc);
            hit = b.binary(BinaryOp::And, hit, mask, loc);
        }
        // Integer counts: the sum is exact in any order.
        let ones = b.cast(hit, DType::I32, loc, true);
        b.reduce(ReduceOp::Sum, ones, 1, loc)
    }))
}

impl<T: IntMarker> Tensor<T> {
    /// [`histogram`] as a method.
    #[track_caller]
    pub fn histogram(self, num_bins: usize) -> Tensor<i32> {
        histogram_at(self, num_bins, None, SourceLoc::caller())
    }

    /// [`histogram_with`] as a method.
    #[track_caller]
    pub fn histogram_with(self, num_bins: usize, mask: Option<Tensor<bool>>) -> Tensor<i32> {
        histogram_at(self, num_bins, mask, SourceLoc::caller())
    }
}

/// A Triton dim (negative counts from the end) as an index in `0..rank`, or a located
/// error and `None`.
pub(super) fn normalize_dim(b: &mut Builder, what: &str, dim: isize, shape: &Shape, loc: SourceLoc) -> Option<usize> {
    let rank = shape.rank() as isize;
    if rank == 0 || dim < -rank || dim >= rank {
        b.error(
            loc,
            format!("{what} along dim {dim} of a block of shape {shape} (rank {rank})"),
            if rank == 0 {
                "a scalar has no dim to index".to_string()
            } else {
                format!("use a dim in -{rank}..{rank}")
            },
        );
        return None;
    }
    Some(if dim < 0 { (dim + rank) as usize } else { dim as usize })
}

/// `tl.flip(x, dim=None)`: `x` reversed along `dim` (`None`: the last dim, Triton's
/// default; a negative dim counts from the end). `x`'s shape and dtype; any dtype.
///
/// As in Triton's `standard.py`, each of the `s` bits of an index along the dim of size
/// `2^s` is complemented in turn (reversing an index complements each of its bits). Triton
/// reshapes the dim into `s` dims of size 2 and swaps with `y ^ xor_sum(y)` on the bits
/// bitcast to an integer; here, as in `sort` (`sort.rs`), the dim alone is reshaped to
/// `[2^s / 2^(b+1), 2, 2^b]` for bit `b`, a `reduce` over the dim of 2 hands each pair
/// over and `where` puts its two elements back the other way round: values only move, so
/// every bit (NaN payloads, `-0.0`) stays, and 16-bit floats need no bitcast to `i16`
/// (which the PTX back end does not have). Cost: `s` rounds over `x`'s elements, each a
/// shared-memory round trip.
#[track_caller]
pub fn flip<T: ScalarMarker>(x: Tensor<T>, dim: Option<isize>) -> Tensor<T> {
    flip_at(x, dim, SourceLoc::caller())
}

fn flip_at<T: ScalarMarker>(x: Tensor<T>, dim: Option<isize>, loc: SourceLoc) -> Tensor<T> {
    Tensor::from_value(super::sort::flip_at(x.id(), dim, loc))
}

/// `tl.gather(src, index, axis)`: `out[..., i, ...] = src[..., index[..., i, ...], ...]`
/// along `axis` (negative counts from the end). `index` is an integer block of `src`'s rank
/// whose other dims equal `src`'s; the result has `index`'s shape and `src`'s dtype.
///
/// Out-of-range indices (negative or at least `src.shape[axis]`) are undefined in Triton;
/// here they read nothing (the composition only compares positions) and give the element
/// whose bits are all zero (`0`, `+0.0`, `false`).
///
/// Written with ops: every output position is compared with every position along `axis`
/// (a one-hot block of `index.shape` with `src.shape[axis]` inserted after `axis`), the
/// selected values kept by `where` (others zero) and reduced with a combine that keeps the
/// side whose one-hot flag is set. The value moves by selection only, never through float
/// addition, so its bits are exact for every dtype (a float sum of zeros and the value
/// would turn `-0.0` into `+0.0` and NaN payloads into the canonical NaN; a bitcast to an
/// integer and an integer sum would do, but the PTX back end has no `f16`/`i16` bitcast).
/// Cost: `O(index.numel * src.shape[axis])` elements in registers, where Triton lowers
/// `tt.gather` to warp shuffles or shared memory; a block over the register budget is
/// refused with the register-budget diagnostic (`RT0802`).
#[track_caller]
pub fn gather<T: ScalarMarker, I: IntMarker>(src: Tensor<T>, index: Tensor<I>, axis: isize) -> Tensor<T> {
    gather_at(src, index, axis, SourceLoc::caller())
}

/// A handle to a value whose dtype only the builder knows (the carried operands of the
/// selecting reduction: `src`'s dtype, or `i32` for `bool`).
type Untyped = Tensor<()>;

fn gather_at<T: ScalarMarker, I: IntMarker>(
    src: Tensor<T>,
    index: Tensor<I>,
    axis: isize,
    loc: SourceLoc,
) -> Tensor<T> {
    let Some((picked, flags, a)) = with_builder(|b| one_hot(b, src.id(), index.id(), axis, loc)) else {
        return src;
    };
    let operands = (Untyped::from_value(picked), Untyped::from_value(flags));
    let (out, _) = reduce_at(
        operands,
        a + 1,
        |(va, fa), (vb, fb)| {
            with_builder(|b| {
                // At most one flag along the axis is set: keep that side's value, bit for bit.
                let zero = b.constant_value(Constant::Int(0), DType::I32, Shape(vec![]), loc);
                let set = b.compare(CmpPred::Ne, fa.id(), zero, loc);
                let v = b.select(set, va.id(), vb.id(), loc);
                let f = b.binary(BinaryOp::Or, fa.id(), fb.id(), loc);
                (Untyped::from_value(v), Untyped::from_value(f))
            })
        },
        loc,
    );
    Tensor::from_value(with_builder(|b| {
        if b.dtype(src.id()) == DType::BOOL {
            let zero = b.constant_value(Constant::Int(0), DType::I32, Shape(vec![]), loc);
            b.compare(CmpPred::Ne, out.id(), zero, loc)
        } else {
            out.id()
        }
    }))
}

/// Checks `gather`'s operands; gives the one-hot selected values (`src`'s where the
/// position matches the index, zero bits elsewhere; `bool` as `i32`), the one-hot flags
/// (`i32`) and the normalized axis. `None` after a located error.
fn one_hot(b: &mut Builder, src: Value, index: Value, axis: isize, loc: SourceLoc) -> Option<(Value, Value, usize)> {
    let (ss, is) = (b.ty(src).shape.clone(), b.ty(index).shape.clone());
    if ss.rank() != is.rank() {
        b.error(
            loc,
            format!("gather of a block of shape {ss} with an index of shape {is}: they must have the same rank"),
            "give the index the source's rank (expand_dims)",
        );
        return None;
    }
    let a = normalize_dim(b, "gather", axis, &ss, loc)?;
    if let Some(d) = (0..ss.rank()).find(|&d| d != a && ss.dims()[d] != is.dims()[d]) {
        b.error(
            loc,
            format!(
                "gather along dim {a}: index dim {d} ({}) differs from the source's ({})",
                is.dims()[d],
                ss.dims()[d]
            ),
            "only the gathered dim may differ between the source and the index",
        );
        return None;
    }
    let n = ss.dims()[a];
    // [.., 1, n, ..] against [.., i, 1, ..]: the one-hot block is [.., i, n, ..].
    let src_e = b.expand_dims(src, a, loc);
    let idx_e = b.expand_dims(index, a + 1, loc);
    let mut pos_shape = vec![1; ss.rank() + 1];
    pos_shape[a + 1] = n;
    let pos = b.arange(0, n as i64, loc);
    let pos = b.reshape(pos, &pos_shape, loc);
    // The comparison promotes the index and the positions to one integer type; positions
    // are small and non-negative, so no index wraps onto one.
    let hit = b.compare(CmpPred::Eq, idx_e, pos, loc);
    // `reduce` carries no `bool`: a `bool` source travels as 0 / 1 in `i32`.
    let vals = if b.dtype(src) == DType::BOOL { b.cast(src_e, DType::I32, loc, true) } else { src_e };
    let zero = match b.dtype(vals).scalar() {
        Some(s) if s.is_float() && s.bit_width() == 64 => Constant::F64(0.0),
        Some(s) if s.is_float() => Constant::F32(0.0),
        _ => Constant::Int(0),
    };
    let dtype = b.dtype(vals);
    let zero = b.constant_value(zero, dtype, Shape(vec![]), loc);
    let picked = b.select(hit, vals, zero, loc);
    let flags = b.cast(hit, DType::I32, loc, true);
    Some((picked, flags, a))
}

impl<T: ScalarMarker> Tensor<T> {
    /// [`flip`] as a method.
    #[track_caller]
    pub fn flip(self, dim: Option<isize>) -> Tensor<T> {
        flip_at(self, dim, SourceLoc::caller())
    }

    /// [`gather`] as a method.
    #[track_caller]
    pub fn gather<I: IntMarker>(self, index: Tensor<I>, axis: isize) -> Tensor<T> {
        gather_at(self, index, axis, SourceLoc::caller())
    }
}
