//! What a block pointer's shape, strides and offsets are given as: a list of integer
//! scalars, each a scalar tensor of any integer dtype or a Rust `i32` / `i64` (Triton's
//! tuples of ints and scalar tensors). A tuple may mix them (`(m, 1)`); an array or a
//! slice holds one kind (`[m, k]`, `&[0, 0]`). `make_block_ptr` and `advance` check the
//! dtypes and that each is a scalar.

use crate::ir::{SourceLoc, Value};

use super::dtype::IntMarker;
use super::tensor::{Tensor, TensorOperand};

/// One entry of an [`IndexList`]: an integer tensor (a scalar, checked where it is used)
/// or a Rust `i32` / `i64`.
pub trait IndexOperand: TensorOperand {}
impl<T: IntMarker> IndexOperand for Tensor<T> {}
impl IndexOperand for i32 {}
impl IndexOperand for i64 {}

/// A list of [`IndexOperand`]s, one per dim: an array, a reference to one, a slice, or a
/// tuple of up to five (whose entries may differ in type).
pub trait IndexList {
    /// The IR value of each entry, in order (a Rust value becomes a constant at `loc`).
    fn index_values(self, loc: SourceLoc) -> Vec<Value>;
}

impl<T: IndexOperand, const N: usize> IndexList for [T; N] {
    fn index_values(self, loc: SourceLoc) -> Vec<Value> {
        self.iter().map(|v| v.value(loc)).collect()
    }
}

impl<T: IndexOperand, const N: usize> IndexList for &[T; N] {
    fn index_values(self, loc: SourceLoc) -> Vec<Value> {
        self.iter().map(|v| v.value(loc)).collect()
    }
}

impl<T: IndexOperand> IndexList for &[T] {
    fn index_values(self, loc: SourceLoc) -> Vec<Value> {
        self.iter().map(|v| v.value(loc)).collect()
    }
}

macro_rules! index_tuple {
    ($($name:ident),*) => {
        impl<$($name: IndexOperand),*> IndexList for ($($name,)*) {
            fn index_values(self, loc: SourceLoc) -> Vec<Value> {
                #[allow(non_snake_case)]
                let ($($name,)*) = self;
                vec![$($name.value(loc)),*]
            }
        }
    };
}
index_tuple!(A);
index_tuple!(A, B);
index_tuple!(A, B, C);
index_tuple!(A, B, C, D);
index_tuple!(A, B, C, D, E);
