//! Whole-buffer operations on [`RawBuffer`]s (what a launch argument holds, whatever its
//! element type), and scratch allocations shaped like them: what the autotuner needs to
//! save, restore, zero and read back the outputs of a kernel it runs several times.
//!
//! Every operation checks that each buffer belongs to this [`Gpu`] (so its address range
//! is a live allocation of this context, held by the caller's borrow of the buffer) and
//! that copies are between buffers of the same size.

use cudarc::driver::{CudaSlice, DevicePtr};

use super::{Gpu, Owner, RawBuffer};
use crate::error::HostError;

/// A device allocation of the same element type and length as another buffer.
#[derive(Debug)]
pub struct ScratchBuffer {
    slice: CudaSlice<u8>,
    like: RawBuffer,
}

impl ScratchBuffer {
    /// Allocates (zero-filled) as many bytes as `like` holds, with its element type.
    pub fn like(gpu: &Gpu, like: &RawBuffer) -> Result<ScratchBuffer, HostError> {
        let slice = gpu.stream.alloc_zeros::<u8>(byte_len(like)?.max(1)).map_err(HostError::driver("cuMemAlloc"))?;
        Ok(ScratchBuffer { slice, like: *like })
    }

    /// The allocation as a buffer of `like`'s element type and length, owned by the `Gpu`
    /// it was allocated on (valid while `self` lives).
    pub fn raw(&self, gpu: &Gpu) -> RawBuffer {
        let (ptr, _sync) = self.slice.device_ptr(&gpu.stream);
        RawBuffer { ptr, len: self.like.len, elem: self.like.elem, owner: Owner::Gpu(gpu.id) }
    }
}

fn byte_len(b: &RawBuffer) -> Result<usize, HostError> {
    usize::try_from(b.elem.size_bytes())
        .ok()
        .and_then(|s| s.checked_mul(b.len))
        .ok_or_else(|| HostError::Driver { op: "buffer size", message: format!("{} elements overflow usize", b.len) })
}

fn check_owner(gpu: &Gpu, b: &RawBuffer) -> Result<(), HostError> {
    if gpu.device_id().owns(b.owner) {
        Ok(())
    } else {
        Err(HostError::Driver {
            op: "raw buffer copy",
            message: format!("the buffer at 0x{:x} does not belong to this device handle's context", b.ptr),
        })
    }
}

/// Enqueues a copy of all of `src` over all of `dst` (same element type and length).
pub fn copy_raw(gpu: &Gpu, dst: &RawBuffer, src: &RawBuffer) -> Result<(), HostError> {
    check_owner(gpu, dst)?;
    check_owner(gpu, src)?;
    if (dst.elem, dst.len) != (src.elem, src.len) {
        return Err(HostError::Driver {
            op: "raw buffer copy",
            message: format!("{} x {} into {} x {}", src.len, src.elem, dst.len, dst.elem),
        });
    }
    // SAFETY: both are live allocations of this context (owner checked; the caller's
    // borrows keep them alive) of exactly `byte_len` bytes, on the stream they are used on.
    unsafe { cudarc::driver::result::memcpy_dtod_async(dst.ptr, src.ptr, byte_len(src)?, gpu.stream.cu_stream()) }
        .map_err(HostError::driver("cuMemcpyDtoDAsync"))
}

/// Enqueues a memset to zero of `count` elements of `dst` from element `first`.
pub fn zero_raw(gpu: &Gpu, dst: &RawBuffer, first: usize, count: usize) -> Result<(), HostError> {
    check_owner(gpu, dst)?;
    let size = dst.elem.size_bytes() as usize;
    if first.checked_add(count).is_none_or(|end| end > dst.len) {
        return Err(HostError::Driver {
            op: "raw buffer memset",
            message: format!("elements {first}..+{count} are outside the buffer of {}", dst.len),
        });
    }
    // SAFETY: a live allocation of this context (see `copy_raw`); the range is inside it
    // (checked above), so the memset writes only this buffer's bytes.
    unsafe {
        cudarc::driver::result::memset_d8_async(
            dst.ptr + (first * size) as u64,
            0,
            count * size,
            gpu.stream.cu_stream(),
        )
    }
    .map_err(HostError::driver("cuMemsetD8Async"))
}

/// Enqueues a fill of `count` 4-byte elements of `dst` from element `first` with `bits`
/// (`cuMemsetD32Async`): how an output is set to an identity such as `-inf` before
/// programs combine into it with atomics.
pub fn fill_raw32(gpu: &Gpu, dst: &RawBuffer, first: usize, count: usize, bits: u32) -> Result<(), HostError> {
    check_owner(gpu, dst)?;
    if dst.elem.size_bytes() != 4 {
        return Err(HostError::Driver {
            op: "raw buffer fill",
            message: format!("a 32-bit fill of a buffer of {} (not 4-byte elements)", dst.elem),
        });
    }
    if first.checked_add(count).is_none_or(|end| end > dst.len) {
        return Err(HostError::Driver {
            op: "raw buffer fill",
            message: format!("elements {first}..+{count} are outside the buffer of {}", dst.len),
        });
    }
    if count == 0 {
        return Ok(());
    }
    // SAFETY: a live allocation of this context (see `copy_raw`) of 4-byte elements; the
    // range is inside it (checked above), so the fill writes only this buffer's words.
    unsafe { cudarc::driver::sys::cuMemsetD32Async(dst.ptr + (first * 4) as u64, bits, count, gpu.stream.cu_stream()) }
        .result()
        .map_err(HostError::driver("cuMemsetD32Async"))
}

/// The bytes of all of `src`, after everything enqueued before (waits for the stream).
pub fn read_raw(gpu: &Gpu, src: &RawBuffer) -> Result<Vec<u8>, HostError> {
    check_owner(gpu, src)?;
    let mut out = vec![0u8; byte_len(src)?];
    gpu.synchronize()?;
    // SAFETY: a live allocation of this context of `out.len()` bytes (see `copy_raw`); the
    // stream is idle, so the copy sees every write enqueued before.
    unsafe { cudarc::driver::result::memcpy_dtoh_sync(&mut out, src.ptr) }
        .map_err(HostError::driver("cuMemcpyDtoH"))?;
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::driver::DeviceBuffer;

    /// A 32-bit fill writes exactly its range; a buffer of other element sizes and a range
    /// past the end are refused, naming why.
    #[test]
    #[ignore = "needs a GPU"]
    fn a_32_bit_fill_writes_its_range_only() {
        let gpu = Gpu::open(0).unwrap();
        let y = DeviceBuffer::<f32>::from_host(&gpu, &[1.0; 6]).unwrap();
        fill_raw32(&gpu, &y.raw(), 1, 4, f32::NEG_INFINITY.to_bits()).unwrap();
        let got: Vec<u32> = y.to_host(&gpu).unwrap().into_iter().map(f32::to_bits).collect();
        assert_eq!(got, [0x3F80_0000, 0xFF80_0000, 0xFF80_0000, 0xFF80_0000, 0xFF80_0000, 0x3F80_0000]);
        let e = fill_raw32(&gpu, &y.raw(), 3, 4, 0).unwrap_err().to_string();
        assert!(e.contains("elements 3..+4 are outside the buffer of 6"), "{e}");
        let h = DeviceBuffer::<half::f16>::zeros(&gpu, 4).unwrap();
        let e = fill_raw32(&gpu, &h.raw(), 0, 4, 0).unwrap_err().to_string();
        assert!(e.contains("a 32-bit fill of a buffer of f16"), "{e}");
    }
}
