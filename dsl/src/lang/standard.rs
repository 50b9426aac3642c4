//! Functions of Triton's `standard.py` that are written with other ops there, written the
//! same way here: `zeros_like`, `ravel`, `interleave`, `swizzle2d`, `softmax`, `reduce_or`.
//! They add no op, so every back end runs what the ops they use run.

use crate::ir::{BinaryOp, SourceLoc};
use crate::trace::with_builder;

use super::combine::reduce;
use super::dtype::{IntMarker, ScalarMarker};
use super::math::{div_rn, exp, fdiv};
use super::ops::{max, minimum, sum, zeros};
use super::shape_ops::{join, reshape};
use super::tensor::Tensor;

/// `tl.zeros_like(x)`: a block of zeros with `x`'s shape and dtype.
#[track_caller]
pub fn zeros_like<T: ScalarMarker>(x: Tensor<T>) -> Tensor<T> {
    zeros::<T>(&x.shape())
}

/// `tl.ravel(x)`: `x`'s elements in row-major order as a 1-D block.
#[track_caller]
pub fn ravel<T>(x: Tensor<T>) -> Tensor<T> {
    let n = x.shape().iter().product::<usize>();
    reshape(x, &[n])
}

/// `tl.interleave(a, b)`: `a` and `b` interleaved along their last dim
/// (`[a0, b0, a1, b1, ...]`): `join`, then the trailing pair merged into that dim.
#[track_caller]
pub fn interleave<T>(a: Tensor<T>, b: Tensor<T>) -> Tensor<T> {
    let c = join(a, b);
    let mut shape = c.shape();
    if shape.len() < 2 {
        // Two scalars: `join` already gives `[a, b]`.
        return c;
    }
    let pair = shape.pop().unwrap_or(2);
    let last = shape.pop().unwrap_or(1);
    shape.push(last * pair);
    reshape(c, &shape)
}

/// `tl.swizzle2d(i, j, size_i, size_j, size_g)`: the row-major index `(i, j)` of a
/// `size_i x size_j` grid mapped to the column-major order within groups of `size_g`
/// rows (the last group may have fewer), Triton's arithmetic line by line. Non-negative
/// indices and sizes; `i32` scalars or blocks.
#[track_caller]
pub fn swizzle2d(
    i: Tensor<i32>,
    j: Tensor<i32>,
    size_i: Tensor<i32>,
    size_j: Tensor<i32>,
    size_g: Tensor<i32>,
) -> (Tensor<i32>, Tensor<i32>) {
    // The unrolled index in the grid, and the elements of `size_g` rows.
    let ij = i * size_j + j;
    let size_gj = size_g * size_j;
    // The group of (i, j), the first row of that group, and its rows (the last group
    // may have fewer).
    let group_id = ij / size_gj;
    let off_i = group_id * size_g;
    let size_g = minimum(size_i - off_i, size_g);
    // The index within the group, then the new row and column.
    let ij = ij % size_gj;
    let new_i = off_i + ij % size_g;
    let new_j = ij / size_g;
    (new_i, new_j)
}

/// `tl.softmax(x, dim)`: `exp(x - max) / sum(exp(x - max))` along `dim`, the division
/// `fdiv` (Triton's default `ieee_rounding=False`); the result has `x`'s shape. The max and
/// the sum broadcast back along `dim` (Triton's `keep_dims=True`: its default drops the
/// dim and broadcasts correctly only along the first one).
#[track_caller]
pub fn softmax(x: Tensor<f32>, dim: usize) -> Tensor<f32> {
    softmax_with(x, dim, false)
}

/// [`softmax`] with Triton's `ieee_rounding`: `true` divides with `div_rn`.
#[track_caller]
pub fn softmax_with(x: Tensor<f32>, dim: usize, ieee_rounding: bool) -> Tensor<f32> {
    let z = x - max(x, dim).expand_dims(dim);
    let num = exp(z);
    let den = sum(num, dim).expand_dims(dim);
    if ieee_rounding { div_rn(num, den) } else { fdiv(num, den) }
}

/// `tl.reduce_or(x, axis)`: the bitwise or of the elements along `axis` (ints).
#[track_caller]
pub fn reduce_or<T: IntMarker>(x: Tensor<T>, axis: usize) -> Tensor<T> {
    let loc = SourceLoc::caller();
    // `a | b` of one dtype is that dtype (the generic operator's output is `Promote`'s).
    reduce(x, axis, move |a: Tensor<T>, b: Tensor<T>| {
        Tensor::<T>::from_value(with_builder(|bl| bl.binary(BinaryOp::Or, a.id(), b.id(), loc)))
    })
}

impl<T> Tensor<T> {
    /// [`ravel`] as a method.
    #[track_caller]
    pub fn ravel(self) -> Tensor<T> {
        ravel(self)
    }

    /// The number of elements (`x.numel` in Triton): the product of the shape.
    pub fn numel(self) -> usize {
        self.shape().iter().product()
    }
}

impl Tensor<f32> {
    /// [`softmax`] as a method.
    #[track_caller]
    pub fn softmax(self, dim: usize) -> Tensor<f32> {
        softmax(self, dim)
    }
}

impl<T: IntMarker> Tensor<T> {
    /// [`reduce_or`] as a method.
    #[track_caller]
    pub fn reduce_or(self, axis: usize) -> Tensor<T> {
        reduce_or(self, axis)
    }
}
