//! The shape and layout ops, named as in `triton.language`: free functions and the
//! `Tensor` methods Triton has for them. The rules are in `shape_semantic.rs`.

use crate::ir::{Shape, SourceLoc};
use crate::trace::with_builder;

use super::tensor::Tensor;

/// `tl.reshape(x, shape)`: the elements of `x` in row-major order, read as `shape` (the
/// element count must not change; `can_reorder=False`).
#[track_caller]
pub fn reshape<T>(x: Tensor<T>, shape: &[usize]) -> Tensor<T> {
    let loc = SourceLoc::caller();
    Tensor::from_value(with_builder(|b| b.reshape(x.id(), shape, loc)))
}

/// `tl.trans(x)`: a 2-D block with its dims swapped (`result[j, i] = x[i, j]`).
#[track_caller]
pub fn trans<T>(x: Tensor<T>) -> Tensor<T> {
    let loc = SourceLoc::caller();
    Tensor::from_value(with_builder(|b| b.trans(x.id(), loc)))
}

/// `tl.permute(x, dims)`: result dim `i` is dim `dims[i]` of `x`.
#[track_caller]
pub fn permute<T>(x: Tensor<T>, dims: &[usize]) -> Tensor<T> {
    let loc = SourceLoc::caller();
    Tensor::from_value(with_builder(|b| b.permute(x.id(), dims, loc)))
}

/// `tl.expand_dims(x, axis)`: a dim of size 1 inserted at `axis` (`x[:, None]` is axis 1).
#[track_caller]
pub fn expand_dims<T>(x: Tensor<T>, axis: usize) -> Tensor<T> {
    let loc = SourceLoc::caller();
    Tensor::from_value(with_builder(|b| b.expand_dims(x.id(), axis, loc)))
}

/// `tl.broadcast_to(x, shape)`: dims of size 1 repeated (and leading dims added) up to
/// `shape`.
#[track_caller]
pub fn broadcast_to<T>(x: Tensor<T>, shape: &[usize]) -> Tensor<T> {
    let loc = SourceLoc::caller();
    Tensor::from_value(with_builder(|b| {
        b.check_block_shape(shape, loc);
        b.broadcast_to(x.id(), &Shape(shape.to_vec()), loc)
    }))
}

/// `tl.join(a, b)`: `a` and `b` (broadcast to one shape) along a new trailing dim of size
/// 2: `result[..., 0] = a`, `result[..., 1] = b`.
#[track_caller]
pub fn join<T>(a: Tensor<T>, b: Tensor<T>) -> Tensor<T> {
    let loc = SourceLoc::caller();
    Tensor::from_value(with_builder(|bl| bl.join(a.id(), b.id(), loc)))
}

/// `tl.split(x)`: `(x[..., 0], x[..., 1])` of a block whose last dim has size 2.
#[track_caller]
pub fn split<T>(x: Tensor<T>) -> (Tensor<T>, Tensor<T>) {
    let loc = SourceLoc::caller();
    let (a, b) = with_builder(|bl| bl.split(x.id(), loc));
    (Tensor::from_value(a), Tensor::from_value(b))
}

impl<T> Tensor<T> {
    /// [`reshape`] as a method (`x.reshape(shape)`).
    #[track_caller]
    pub fn reshape(self, shape: &[usize]) -> Tensor<T> {
        reshape(self, shape)
    }

    /// [`trans`] as a method (`x.trans()`, Triton's `x.T`).
    #[track_caller]
    pub fn trans(self) -> Tensor<T> {
        trans(self)
    }

    /// [`permute`] as a method.
    #[track_caller]
    pub fn permute(self, dims: &[usize]) -> Tensor<T> {
        permute(self, dims)
    }

    /// [`join`] as a method (`a.join(b)`).
    #[track_caller]
    pub fn join(self, other: Tensor<T>) -> Tensor<T> {
        join(self, other)
    }

    /// [`split`] as a method.
    #[track_caller]
    pub fn split(self) -> (Tensor<T>, Tensor<T>) {
        split(self)
    }
}
