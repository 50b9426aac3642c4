//! Launch arguments: tensors (a device buffer seen through shape, strides and an element
//! offset, like a torch view), integers and floats.

use std::marker::PhantomData;

use rtriton::spec::ArgValue;

use crate::driver::{DeviceBuffer, Element, RawBuffer};

/// A view of a device buffer: element `[i0, i1, ...]` is at
/// `offset_elems + i0 * strides[0] + i1 * strides[1] + ...` (strides in elements).
/// The kernel receives the address of element `[0, 0, ...]`; shape and strides are used
/// to check the view stays inside the buffer (pass them to the kernel as scalars, as in
/// Triton).
#[derive(Clone, Debug, PartialEq)]
pub struct TensorArg<'a> {
    pub buffer: RawBuffer,
    pub offset_elems: usize,
    pub shape: Vec<usize>,
    pub strides: Vec<isize>,
    _borrow: PhantomData<&'a ()>,
}

impl<'a> TensorArg<'a> {
    /// A view with explicit shape and strides, starting at the buffer's first element.
    pub fn new<T: Element>(buffer: &'a DeviceBuffer<T>, shape: &[usize], strides: &[isize]) -> Self {
        Self::from_raw(buffer.raw(), shape, strides)
    }

    /// A row-major view of the whole buffer with this shape.
    pub fn contiguous<T: Element>(buffer: &'a DeviceBuffer<T>, shape: &[usize]) -> Self {
        let mut strides = vec![1isize; shape.len()];
        for i in (0..shape.len().saturating_sub(1)).rev() {
            strides[i] = strides[i + 1] * shape[i + 1] as isize;
        }
        Self::new(buffer, shape, &strides)
    }

    /// The same view moved `offset_elems` elements into the buffer (a slice such as `x[1:]`).
    pub fn with_offset(mut self, offset_elems: usize) -> Self {
        self.offset_elems = offset_elems;
        self
    }

    /// For tests and tools that describe a buffer by hand (the checks still apply).
    pub fn from_raw(buffer: RawBuffer, shape: &[usize], strides: &[isize]) -> Self {
        TensorArg { buffer, offset_elems: 0, shape: shape.to_vec(), strides: strides.to_vec(), _borrow: PhantomData }
    }

    /// The address of the view's first element (what the kernel's pointer receives).
    pub fn address(&self) -> u64 {
        self.buffer.ptr + self.offset_elems as u64 * self.buffer.elem.size_bytes()
    }

    /// The lowest and highest element index (relative to the buffer start) the view
    /// touches, or `None` for an empty view.
    pub fn reach(&self) -> Option<(i128, i128)> {
        if self.shape.contains(&0) {
            return None;
        }
        let (mut lo, mut hi) = (self.offset_elems as i128, self.offset_elems as i128);
        for (&n, &s) in self.shape.iter().zip(&self.strides) {
            let span = (n as i128 - 1) * s as i128;
            if span < 0 {
                lo += span;
            } else {
                hi += span;
            }
        }
        Some((lo, hi))
    }
}

/// One runtime argument of a launch, in parameter order.
#[derive(Clone, Debug, PartialEq)]
pub enum Arg<'a> {
    Tensor(TensorArg<'a>),
    Int(i64),
    F32(f32),
}

impl<'a> Arg<'a> {
    /// The value specialization sees: a tensor is the address of its first element.
    pub fn value(&self) -> ArgValue {
        match self {
            Arg::Tensor(t) => ArgValue::Ptr(t.address()),
            Arg::Int(v) => ArgValue::Int(*v),
            Arg::F32(v) => ArgValue::F32(*v),
        }
    }

    pub(crate) fn describe(&self) -> String {
        match self {
            Arg::Tensor(t) => format!("a tensor of {}", t.buffer.elem),
            Arg::Int(_) => "an integer".into(),
            Arg::F32(_) => "a float".into(),
        }
    }
}

impl<'a> From<TensorArg<'a>> for Arg<'a> {
    fn from(t: TensorArg<'a>) -> Self {
        Arg::Tensor(t)
    }
}

#[cfg(test)]
mod tests {
    use rtriton::ir::ScalarType;

    use super::*;

    fn buffer(len: usize) -> RawBuffer {
        RawBuffer::unowned(0x1000, len, ScalarType::F32)
    }

    #[test]
    fn contiguous_views_are_row_major() {
        let t = TensorArg::from_raw(buffer(24), &[2, 3, 4], &[12, 4, 1]);
        assert_eq!(t.reach(), Some((0, 23)));
        assert_eq!(t.address(), 0x1000);
    }

    #[test]
    fn the_offset_moves_the_address_and_the_reach() {
        let t = TensorArg::from_raw(buffer(64), &[7, 8], &[8, 1]).with_offset(3);
        assert_eq!(t.address(), 0x1000 + 12);
        assert_eq!(t.reach(), Some((3, 3 + 6 * 8 + 7)));
        assert_eq!(Arg::Tensor(t).value(), ArgValue::Ptr(0x100c));
    }

    #[test]
    fn transposed_strided_and_negative_views_reach_what_they_index() {
        assert_eq!(TensorArg::from_raw(buffer(12), &[4, 3], &[1, 4]).reach(), Some((0, 11)));
        assert_eq!(TensorArg::from_raw(buffer(40), &[5, 4], &[8, 2]).reach(), Some((0, 38)));
        let flipped = TensorArg::from_raw(buffer(8), &[8], &[-1]).with_offset(7);
        assert_eq!(flipped.reach(), Some((0, 7)));
        assert_eq!(TensorArg::from_raw(buffer(8), &[3, 0], &[1, 1]).reach(), None);
    }
}
