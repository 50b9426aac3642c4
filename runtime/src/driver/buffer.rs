//! Device buffers: a typed cudarc allocation that remembers which [`Gpu`] owns it.

use cudarc::driver::{CudaSlice, DevicePtr, DeviceRepr, ValidAsZeroBits};
use rtriton::ir::ScalarType;

use super::Gpu;
use crate::error::HostError;

/// Element types a buffer can hold, with their IR scalar type (for argument checks).
pub trait Element: DeviceRepr + ValidAsZeroBits + bytemuck::Pod + Default {
    const SCALAR: ScalarType;
}

impl Element for f32 {
    const SCALAR: ScalarType = ScalarType::F32;
}
impl Element for i32 {
    const SCALAR: ScalarType = ScalarType::I32;
}
impl Element for i64 {
    const SCALAR: ScalarType = ScalarType::I64;
}

/// The other dtypes' host element types: `&[half::f16]`, `&[half::bf16]`, `&[u8]`, ...
/// (`half`'s types are `bytemuck::Pod` through its `bytemuck` feature).
macro_rules! elements {
    ($($t:ty => $s:ident),*) => {$(
        impl Element for $t {
            const SCALAR: ScalarType = ScalarType::$s;
        }
    )*};
}
elements!(half::f16 => F16, half::bf16 => BF16, f64 => F64, i8 => I8, i16 => I16, u8 => U8, u32 => U32, u64 => U64);

/// Who vouches that a buffer's address range is live memory of the launching context:
/// what the foreign-pointer check reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Owner {
    /// Nobody: an address from elsewhere ([`RawBuffer::unowned`]); launches refuse it.
    Nobody,
    /// Allocated through the [`Gpu`] with this id ([`DeviceBuffer`]).
    Gpu(u64),
    /// A cudarc allocation (`CudaSlice`, `CudaView`) of the context with this `CUcontext`
    /// address: any runtime on that context may use it.
    Context(usize),
    /// A raw device pointer its caller vouched for
    /// ([`TensorArg::from_device_ptr`](crate::launch::TensorArg::from_device_ptr), `unsafe`).
    Caller,
}

/// What a launch needs of a buffer: its address range, element type and owner.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RawBuffer {
    pub ptr: u64,
    pub len: usize,
    pub elem: ScalarType,
    pub owner: Owner,
}

impl RawBuffer {
    /// A buffer no [`Gpu`] owns (an address from elsewhere): launches refuse it as a
    /// foreign pointer. For tests and tools.
    pub fn unowned(ptr: u64, len: usize, elem: ScalarType) -> RawBuffer {
        RawBuffer { ptr, len, elem, owner: Owner::Nobody }
    }
}

/// A device allocation of `len` elements of `T`.
///
/// An empty buffer is valid (an empty tensor is a legal argument): the driver refuses
/// `cuMemAlloc(0)` with `CUDA_ERROR_INVALID_VALUE`, so an empty buffer holds one element
/// that is never read or written, and `len` stays 0.
#[derive(Debug)]
pub struct DeviceBuffer<T: Element> {
    slice: CudaSlice<T>,
    len: usize,
    owner: Owner,
}

impl<T: Element> DeviceBuffer<T> {
    /// Copies `host` to a new allocation.
    pub fn from_host(gpu: &Gpu, host: &[T]) -> Result<Self, HostError> {
        if host.is_empty() {
            return Self::zeros(gpu, 0);
        }
        let slice = gpu.stream.clone_htod(host).map_err(HostError::driver("cuMemcpyHtoD"))?;
        Ok(DeviceBuffer { slice, len: host.len(), owner: Owner::Gpu(gpu.id) })
    }

    /// A zero-filled allocation.
    pub fn zeros(gpu: &Gpu, len: usize) -> Result<Self, HostError> {
        let slice = gpu.stream.alloc_zeros::<T>(len.max(1)).map_err(HostError::driver("cuMemAlloc"))?;
        Ok(DeviceBuffer { slice, len, owner: Owner::Gpu(gpu.id) })
    }

    /// Copies the whole buffer back to the host (waits for the stream).
    pub fn to_host(&self, gpu: &Gpu) -> Result<Vec<T>, HostError> {
        let mut host = gpu.stream.clone_dtoh(&self.slice).map_err(HostError::driver("cuMemcpyDtoH"))?;
        host.truncate(self.len);
        Ok(host)
    }

    /// Copies `host` into the start of the buffer.
    pub fn write(&mut self, gpu: &Gpu, host: &[T]) -> Result<(), HostError> {
        assert!(host.len() <= self.len(), "write of {} elements into a buffer of {}", host.len(), self.len());
        if host.is_empty() {
            return Ok(());
        }
        gpu.stream.memcpy_htod(host, &mut self.slice).map_err(HostError::driver("cuMemcpyHtoD"))
    }

    /// Fills the buffer with a byte pattern (e.g. 0xff to make unwritten results visible as NaN).
    pub fn fill_bytes(&mut self, gpu: &Gpu, byte: u8) -> Result<(), HostError> {
        let bytes = self.len() * std::mem::size_of::<T>();
        let (ptr, _sync) = cudarc::driver::DevicePtrMut::device_ptr_mut(&mut self.slice, &gpu.stream);
        // SAFETY: `ptr` is this allocation's start and `bytes` its size; the stream is the
        // one the allocation is used on.
        unsafe { cudarc::driver::result::memset_d8_async(ptr, byte, bytes, gpu.stream.cu_stream()) }
            .map_err(HostError::driver("cuMemsetD8Async"))
    }

    /// Copies all of `src` into the start of this buffer on the device (enqueued, does not
    /// wait). Panics if this buffer is shorter than `src`.
    pub fn copy_from(&mut self, gpu: &Gpu, src: &DeviceBuffer<T>) -> Result<(), HostError> {
        assert!(src.len() <= self.len(), "copy of {} elements into a buffer of {}", src.len(), self.len());
        if src.is_empty() {
            return Ok(());
        }
        gpu.stream.memcpy_dtod(&src.slice, &mut self.slice).map_err(HostError::driver("cuMemcpyDtoDAsync"))
    }

    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The address range, element type and owner a launch checks arguments against.
    pub fn raw(&self) -> RawBuffer {
        let (ptr, _sync) = self.slice.device_ptr(self.slice.stream());
        RawBuffer { ptr, len: self.len(), elem: T::SCALAR, owner: self.owner }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An empty tensor is a legal argument: allocating, filling, copying and reading back
    /// zero elements works (the driver itself refuses `cuMemAlloc(0)`), and the buffer
    /// reports length 0.
    #[test]
    #[ignore = "needs a GPU"]
    fn empty_buffers_allocate_copy_and_read_back_as_empty() {
        let gpu = Gpu::open(0).expect("a GPU");
        let mut a = DeviceBuffer::<f32>::from_host(&gpu, &[]).unwrap();
        let b = DeviceBuffer::<f32>::zeros(&gpu, 0).unwrap();
        assert_eq!((a.len(), a.is_empty(), b.len()), (0, true, 0));
        a.fill_bytes(&gpu, 0xff).unwrap();
        a.write(&gpu, &[]).unwrap();
        a.copy_from(&gpu, &b).unwrap();
        assert_eq!(a.to_host(&gpu).unwrap(), Vec::<f32>::new());
        assert_eq!(a.raw().len, 0);
        // A non-empty buffer still round-trips.
        let c = DeviceBuffer::<i32>::from_host(&gpu, &[1, 2, 3]).unwrap();
        assert_eq!(c.to_host(&gpu).unwrap(), vec![1, 2, 3]);
    }
}
