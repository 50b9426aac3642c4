//! Triton's `tl.max_contiguous` and `tl.max_constancy`: promises about a block's runs that
//! AxisInfo uses to widen loads and stores (`multiple_of`, the third hint, is in `ops.rs`).

use crate::ir::{HintKind, OpKind, SourceLoc};
use crate::trace::with_builder;

use super::tensor::Tensor;

/// The values of a hint, one per dim: a number for a 1-D block or a scalar (`BLOCK`), an
/// array or a slice for any rank (Triton's int or list of ints).
pub trait HintValues {
    /// The values, dim by dim.
    fn hint_values(self) -> Vec<u64>;
}

impl HintValues for usize {
    fn hint_values(self) -> Vec<u64> {
        vec![self as u64]
    }
}

impl HintValues for u32 {
    fn hint_values(self) -> Vec<u64> {
        vec![u64::from(self)]
    }
}

impl<const N: usize> HintValues for [usize; N] {
    fn hint_values(self) -> Vec<u64> {
        self.iter().map(|&v| v as u64).collect()
    }
}

impl HintValues for &[usize] {
    fn hint_values(self) -> Vec<u64> {
        self.iter().map(|&v| v as u64).collect()
    }
}

/// `x`, with the promise that along each dim `d` its values come in runs of `values[d]`
/// consecutive integers (pointers: consecutive elements), each run starting at an index
/// that is a multiple of `values[d]` (Triton's `tl.max_contiguous`). AxisInfo then counts
/// runs of the largest power of two dividing `values[d]` (or more, where it proves more),
/// so accesses through `x` can be vectors where an op in between hid the runs (a `where_`
/// between two tiles, a remainder by a runtime size). Nothing is computed, and nothing
/// checks the promise: on the GPU a broken one can make vector accesses touch the wrong
/// elements. One value per dim (a scalar counts as one), each at least 1.
#[track_caller]
pub fn max_contiguous<T>(x: Tensor<T>, values: impl HintValues) -> Tensor<T> {
    hint(HintKind::Contiguity, x, values.hint_values(), SourceLoc::caller())
}

/// `x`, with the promise that along each dim `d` its values come in runs of `values[d]`
/// equal values, each run starting at an index that is a multiple of `values[d]` (Triton's
/// `tl.max_constancy`): a mask constant over a run lets a masked access of the run be one
/// vector. As [`max_contiguous`] otherwise.
#[track_caller]
pub fn max_constancy<T>(x: Tensor<T>, values: impl HintValues) -> Tensor<T> {
    hint(HintKind::Constancy, x, values.hint_values(), SourceLoc::caller())
}

fn hint<T>(hint: HintKind, x: Tensor<T>, values: Vec<u64>, loc: SourceLoc) -> Tensor<T> {
    Tensor::from_value(with_builder(|b| {
        let ty = b.ty(x.id()).clone();
        let dims = ty.shape.rank().max(1);
        if values.len() != dims {
            b.error(
                loc,
                format!("{hint} of a {ty} takes {dims} value(s), one per dim, got {}", values.len()),
                "pass one run length per dim (an array for a block of rank 2 or more)",
            );
            return x.id();
        }
        if values.contains(&0) {
            b.error(loc, format!("{hint}({values:?}): a run length of 0"), "promise runs of at least 1");
            return x.id();
        }
        if values.iter().all(|&v| v == 1) {
            // Runs of 1 hold of every value: nothing promised.
            return x.id();
        }
        b.push1(OpKind::AxisHint { value: x.id(), hint, values }, ty, loc)
    }))
}
