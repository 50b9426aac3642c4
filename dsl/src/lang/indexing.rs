//! Triton's `histogram`, `flip` and `gather`, written with other ops (no op of their own),
//! so every back end runs what the ops they use run.
//!
//! Each result is reproduced bit for bit for every dtype: values move only through shape
//! ops (`reshape`, `permute`, `split`, `join`), `where` and a selecting `reduce`, never
//! through float arithmetic, which would turn `-0.0 + 0.0` into `+0.0` and give NaNs the
//! canonical payload. Where Triton lowers an op to warp shuffles or shared memory
//! (`tt.gather`, `tt.histogram`), rtriton compares every output position with every input
//! position (a one-hot block); the cost of each is in its doc comment.

use crate::ir::{BinaryOp, CmpPred, Constant, DType, ReduceOp, SourceLoc};
use crate::trace::with_builder;

use super::dtype::IntMarker;
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
