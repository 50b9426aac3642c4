//! Launch arguments in memory rtriton did not allocate: cudarc's `CudaSlice`, `CudaView`
//! and `CudaViewMut` (what candle's and burn's CUDA back ends hold), borrowed without a
//! copy, and raw device pointers.
//!
//! cudarc orders the uses of one allocation across streams with two events per slice (its
//! "event tracking"): a reader waits for the last write, a writer for the last reads and
//! write. A view made here takes part in that protocol on the stream the caller names:
//! the stream waits for the events when the view is made, and the view records its own
//! event when its last copy is dropped, which is after the launch that took it. So the
//! launch must go to that stream: [`Runtime::launch_on`](super::Runtime::launch_on)
//! refuses a view bound to another (`RT0716`).

use cudarc::driver::{CudaStream, DevicePtr, DevicePtrMut, SyncOnDrop};

use super::TensorArg;
use crate::driver::{Element, Owner, RawBuffer};

/// The stream a cudarc allocation's use was ordered on, and the event cudarc records when
/// the use ends (dropped with the last copy of the [`TensorArg`]).
pub(crate) struct StreamBinding<'a> {
    /// The `CUstream` address.
    pub(crate) stream: usize,
    _record_on_drop: SyncOnDrop<'a>,
}

impl<'a> TensorArg<'a> {
    /// A view of a cudarc allocation that the kernel only reads, its use ordered on
    /// `stream` (the stream waits for the allocation's last write). `shape` and `strides`
    /// (in elements) describe the view from the allocation's first element, as
    /// [`TensorArg::new`] does; [`contiguous_strides`](super::contiguous_strides) gives
    /// row-major strides. The launch checks the view against the allocation's length and
    /// that the allocation belongs to the runtime's context.
    pub fn cuda<T: Element>(
        slice: &'a impl DevicePtr<T>,
        stream: &'a CudaStream,
        shape: &[usize],
        strides: &[isize],
    ) -> TensorArg<'a> {
        let owner = Owner::Context(slice.stream().context().cu_ctx() as usize);
        let len = slice.len();
        let (ptr, sync) = slice.device_ptr(stream);
        bound(RawBuffer { ptr, len, elem: T::SCALAR, owner }, stream, sync, shape, strides)
    }

    /// A view of a cudarc allocation that the kernel writes (an output, or a tensor it
    /// updates in place), its use ordered on `stream` (the stream waits for the
    /// allocation's last reads and write; later users wait for this launch).
    pub fn cuda_mut<T: Element>(
        slice: &'a mut impl DevicePtrMut<T>,
        stream: &'a CudaStream,
        shape: &[usize],
        strides: &[isize],
    ) -> TensorArg<'a> {
        let owner = Owner::Context(slice.stream().context().cu_ctx() as usize);
        let len = slice.len();
        let (ptr, sync) = slice.device_ptr_mut(stream);
        bound(RawBuffer { ptr, len, elem: T::SCALAR, owner }, stream, sync, shape, strides)
    }

    /// A view of device memory given as a raw address and its length in bytes (memory
    /// from another library, an allocator, an IPC handle, ...). The launch checks the view
    /// against `byte_len`, but cannot check the memory itself.
    ///
    /// # Safety
    /// `ptr..ptr + byte_len` must be device memory of the context the launch runs in,
    /// holding elements of `T`, allocated until every launch that takes this view has
    /// finished on the device, and not used by other work on other streams meanwhile
    /// (nothing orders those uses: the caller does, with events or one stream).
    pub unsafe fn from_device_ptr<T: Element>(
        ptr: u64,
        byte_len: usize,
        shape: &[usize],
        strides: &[isize],
    ) -> TensorArg<'a> {
        let len = byte_len / std::mem::size_of::<T>();
        TensorArg::from_raw(RawBuffer { ptr, len, elem: T::SCALAR, owner: Owner::Caller }, shape, strides)
    }
}

fn bound<'a>(
    buffer: RawBuffer,
    stream: &'a CudaStream,
    sync: SyncOnDrop<'a>,
    shape: &[usize],
    strides: &[isize],
) -> TensorArg<'a> {
    let mut t = TensorArg::from_raw(buffer, shape, strides);
    let binding = StreamBinding { stream: stream.cu_stream() as usize, _record_on_drop: sync };
    t.binding = Some(std::sync::Arc::new(binding));
    t
}
