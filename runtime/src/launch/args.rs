//! Launch arguments: tensors (a device buffer seen through shape, strides and an element
//! offset, like a torch view), integers and floats.

use std::marker::PhantomData;
use std::sync::Arc;

use rtriton::spec::ArgValue;

use super::foreign::StreamBinding;
use crate::driver::{DeviceBuffer, Element, RawBuffer};

/// A view of a device buffer: element `[i0, i1, ...]` is at
/// `offset_elems + i0 * strides[0] + i1 * strides[1] + ...` (strides in elements).
/// The kernel receives the address of element `[0, 0, ...]`; shape and strides are used
/// to check the view stays inside the buffer (pass them to the kernel as scalars, as in
/// Triton).
///
/// The buffer is rtriton's [`DeviceBuffer`], a cudarc `CudaSlice` / `CudaView` borrowed
/// without a copy ([`TensorArg::cuda`], [`TensorArg::cuda_mut`]), or a raw device pointer
/// ([`TensorArg::from_device_ptr`]).
#[derive(Clone)]
pub struct TensorArg<'a> {
    pub buffer: RawBuffer,
    pub offset_elems: usize,
    pub shape: Vec<usize>,
    pub strides: Vec<isize>,
    /// For a cudarc allocation: the stream its use was ordered on, and cudarc's event
    /// recorded when the last copy of this argument is dropped (after the launch).
    pub(super) binding: Option<Arc<StreamBinding<'a>>>,
    _borrow: PhantomData<&'a ()>,
}

impl std::fmt::Debug for TensorArg<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TensorArg")
            .field("buffer", &self.buffer)
            .field("offset_elems", &self.offset_elems)
            .field("shape", &self.shape)
            .field("strides", &self.strides)
            .field("stream", &self.binding.as_ref().map(|b| b.stream))
            .finish()
    }
}

/// Two views are equal when they describe the same elements; how a cudarc allocation's
/// use is ordered is not part of the view.
impl PartialEq for TensorArg<'_> {
    fn eq(&self, other: &Self) -> bool {
        (self.buffer, self.offset_elems, &self.shape, &self.strides)
            == (other.buffer, other.offset_elems, &other.shape, &other.strides)
    }
}

impl<'a> TensorArg<'a> {
    /// A view with explicit shape and strides, starting at the buffer's first element.
    pub fn new<T: Element>(buffer: &'a DeviceBuffer<T>, shape: &[usize], strides: &[isize]) -> Self {
        Self::from_raw(buffer.raw(), shape, strides)
    }

    /// A row-major view of the whole buffer with this shape. A stride past `isize::MAX`
    /// saturates there, so the launch check refuses the view as out of bounds instead of
    /// a stride wrapping to a small or negative number.
    pub fn contiguous<T: Element>(buffer: &'a DeviceBuffer<T>, shape: &[usize]) -> Self {
        Self::new(buffer, shape, &contiguous_strides(shape))
    }
    /// The same view moved `offset_elems` elements into the buffer (a slice such as `x[1:]`).
    pub fn with_offset(mut self, offset_elems: usize) -> Self {
        self.offset_elems = offset_elems;
        self
    }

    /// For tests and tools that describe a buffer by hand (the checks still apply).
    pub fn from_raw(buffer: RawBuffer, shape: &[usize], strides: &[isize]) -> Self {
        TensorArg {
            buffer,
            offset_elems: 0,
            shape: shape.to_vec(),
            strides: strides.to_vec(),
            binding: None,
            _borrow: PhantomData,
        }
    }

    /// The stream (`CUstream` address) a cudarc allocation's use was ordered on, if this
    /// view is of one: a launch on another stream is refused.
    pub fn bound_stream(&self) -> Option<usize> {
        self.binding.as_ref().map(|b| b.stream)
    }

    /// The address of the view's first element (what the kernel's pointer receives), or
    /// an error when the offset takes it past the 64-bit address space (checked: user
    /// input must not wrap to a small address).
    pub fn address(&self) -> Result<u64, AddressOverflow> {
        let elem_bytes = self.buffer.elem.size_bytes();
        let overflow = AddressOverflow { ptr: self.buffer.ptr, offset_elems: self.offset_elems, elem_bytes };
        u64::try_from(self.offset_elems)
            .ok()
            .and_then(|o| o.checked_mul(elem_bytes))
            .and_then(|bytes| self.buffer.ptr.checked_add(bytes))
            .ok_or(overflow)
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

/// Row-major strides (in elements) of `shape`, saturating at `isize::MAX`.
pub fn contiguous_strides(shape: &[usize]) -> Vec<isize> {
    let mut strides = vec![1isize; shape.len()];
    for i in (0..shape.len().saturating_sub(1)).rev() {
        let next = isize::try_from(shape[i + 1]).unwrap_or(isize::MAX);
        strides[i] = strides[i + 1].saturating_mul(next);
    }
    strides
}

/// A view offset that takes the address past `u64::MAX`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
#[error(
    "an offset of {offset_elems} elements of {elem_bytes} bytes from 0x{ptr:x} passes the end of the 64-bit address space"
)]
pub struct AddressOverflow {
    pub ptr: u64,
    pub offset_elems: usize,
    pub elem_bytes: u64,
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
    pub fn value(&self) -> Result<ArgValue, AddressOverflow> {
        Ok(match self {
            Arg::Tensor(t) => ArgValue::Ptr(t.address()?),
            Arg::Int(v) => ArgValue::Int(*v),
            Arg::F32(v) => ArgValue::F32(*v),
        })
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
        assert_eq!(t.address(), Ok(0x1000));
    }

    #[test]
    fn the_offset_moves_the_address_and_the_reach() {
        let t = TensorArg::from_raw(buffer(64), &[7, 8], &[8, 1]).with_offset(3);
        assert_eq!(t.address(), Ok(0x1000 + 12));
        assert_eq!(t.reach(), Some((3, 3 + 6 * 8 + 7)));
        assert_eq!(Arg::Tensor(t).value(), Ok(ArgValue::Ptr(0x100c)));
    }

    /// Offsets from user input: the address is checked, never wrapped (release) or a
    /// panic (debug); the launch check turns the error into a located refusal.
    #[test]
    fn an_offset_past_the_address_space_is_an_error_not_a_wrap() {
        let t = TensorArg::from_raw(buffer(64), &[1], &[1]).with_offset(usize::MAX / 2);
        let e = t.address().unwrap_err();
        assert_eq!(
            e.to_string(),
            format!(
                "an offset of {} elements of 4 bytes from 0x1000 passes the end of the 64-bit address space",
                usize::MAX / 2
            )
        );
        assert_eq!(Arg::Tensor(t).value(), Err(e));
        let last = TensorArg::from_raw(RawBuffer::unowned(u64::MAX - 3, 1, ScalarType::F32), &[1], &[1]);
        assert_eq!(last.address(), Ok(u64::MAX - 3));
        assert!(last.with_offset(1).address().is_err());
    }

    #[test]
    fn contiguous_strides_saturate_instead_of_wrapping() {
        assert_eq!(contiguous_strides(&[2, 3, 4]), vec![12, 4, 1]);
        assert_eq!(contiguous_strides(&[2, usize::MAX, 1 << 40]), vec![isize::MAX, 1 << 40, 1]);
        assert_eq!(contiguous_strides(&[]), Vec::<isize>::new());
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
