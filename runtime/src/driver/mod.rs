//! The driver layer on cudarc: one [`Gpu`] (context + stream + device limits), device
//! buffers, modules loaded from PTX and event timers.
//!
//! **Architecture Invariant:** nothing here touches libcuda before [`Gpu::open`] has
//! checked that it can be loaded (cudarc panics otherwise), so the crate builds and runs
//! its non-GPU parts on machines without CUDA.

mod buffer;
mod module;
mod raw;
mod recovery;
mod tensor_map;
mod timer;

pub use buffer::{DeviceBuffer, Element, Owner, RawBuffer};
pub use module::{LoadedModule, RawParam};
pub use raw::{ScratchBuffer, copy_raw, fill_raw32, read_raw, zero_raw};
pub use recovery::is_sticky;
pub use timer::Timer;

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use cudarc::driver::sys::CUdevice_attribute as Attr;
use cudarc::driver::{CudaContext, CudaStream};

use crate::error::HostError;

/// What a launch needs to know about the device.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DeviceInfo {
    pub ordinal: usize,
    pub name: String,
    /// `(major, minor)`, e.g. `(9, 0)` for an H200.
    pub compute_capability: (i32, i32),
    /// `cuDriverGetVersion`, e.g. 13000 for CUDA 13.0.
    pub driver_version: i32,
    pub total_mem_bytes: usize,
    pub max_grid: [u32; 3],
    pub max_threads_per_block: u32,
    pub max_shared_bytes_per_block: u32,
    /// The most shared memory one program may use when its kernel opts in (dynamic shared
    /// memory): 227 KiB on an H200, 99 KiB on sm_86.
    pub max_shared_bytes_optin: u32,
    /// The L2 cache size (60 MiB on an H200): what a benchmark's cache flush must exceed.
    pub l2_cache_bytes: usize,
    /// Streaming multiprocessors (132 on an H200): how many programs run at once, which
    /// decides when a few rows are worth splitting across programs.
    pub multiprocessor_count: usize,
}

impl DeviceInfo {
    /// `NVIDIA H200 (sm_90, driver CUDA 13.0, 139.8 GiB)`
    pub fn summary(&self) -> String {
        format!(
            "{} (sm_{}{}, driver CUDA {}.{}, {:.1} GiB)",
            self.name,
            self.compute_capability.0,
            self.compute_capability.1,
            self.driver_version / 1000,
            (self.driver_version % 1000) / 10,
            self.total_mem_bytes as f64 / (1u64 << 30) as f64
        )
    }
}

/// Whether libcuda can be loaded, with the reason when it cannot.
pub fn driver_present() -> Result<(), HostError> {
    // SAFETY: only tries to dlopen libcuda under its usual names; loads no symbols.
    if unsafe { cudarc::driver::sys::is_culib_present() } {
        Ok(())
    } else {
        Err(HostError::NoDriver(
            "no CUDA driver found: libcuda.so could not be loaded; run on a machine with an NVIDIA GPU and driver \
             (or use the interpreter)"
                .into(),
        ))
    }
}

/// Whether NVRTC can be loaded (needed for the CUDA reference only).
pub fn nvrtc_present() -> Result<(), HostError> {
    // SAFETY: only tries to dlopen libnvrtc under its usual names.
    if unsafe { cudarc::nvrtc::sys::is_culib_present() } {
        Ok(())
    } else {
        Err(HostError::NoNvrtc(
            "no NVRTC found: libnvrtc.so could not be loaded; add the CUDA toolkit's lib64 to LD_LIBRARY_PATH".into(),
        ))
    }
}

static NEXT_GPU_ID: AtomicU64 = AtomicU64::new(1);

/// What the foreign-pointer check compares a buffer's [`Owner`] with: the buffers a
/// [`Gpu`] allocated itself, and cudarc allocations of its context.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DeviceId {
    pub gpu: u64,
    /// The `CUcontext` address (0: none, as in tests without a device).
    pub context: usize,
}

impl DeviceId {
    /// Whether a buffer of `owner` is live memory a launch through this device may use.
    pub fn owns(&self, owner: Owner) -> bool {
        match owner {
            Owner::Gpu(id) => id == self.gpu,
            Owner::Context(ctx) => ctx != 0 && ctx == self.context,
            Owner::Caller => true,
            Owner::Nobody => false,
        }
    }
}

/// One device: a context, the stream launches go to unless told otherwise, and its limits.
#[derive(Debug)]
pub struct Gpu {
    /// Distinguishes this `Gpu`'s buffers from another's (the foreign-pointer check).
    pub(crate) id: u64,
    pub(crate) ctx: Arc<CudaContext>,
    pub(crate) stream: Arc<CudaStream>,
    pub info: DeviceInfo,
}

impl Gpu {
    /// This `Gpu`'s identity, which its buffers carry: launch checks (the runtime's and an
    /// application's own, such as the CUDA reference runner) refuse buffers of another `Gpu`.
    pub fn id(&self) -> u64 {
        self.id
    }

    /// The identity launch checks compare buffer owners with ([`DeviceId::owns`]).
    pub fn device_id(&self) -> DeviceId {
        DeviceId { gpu: self.id, context: self.ctx.cu_ctx() as usize }
    }

    /// The cudarc context (for code that allocates or launches beside rtriton).
    pub fn context(&self) -> &Arc<CudaContext> {
        &self.ctx
    }

    /// The stream launches go to when no other is named, and that this `Gpu`'s buffers
    /// copy on.
    pub fn stream(&self) -> &Arc<CudaStream> {
        &self.stream
    }

    /// A `Gpu` on a context and stream the caller already has (a cudarc program, or
    /// candle's or burn's CUDA device, which are built on cudarc): launches go to `stream`
    /// unless another is named per call, and cudarc allocations of `ctx` are accepted as
    /// launch arguments without copies. `stream` must belong to `ctx`.
    pub fn from_cudarc(ctx: Arc<CudaContext>, stream: Arc<CudaStream>) -> Result<Gpu, HostError> {
        if !Arc::ptr_eq(stream.context(), &ctx) && stream.context().cu_ctx() != ctx.cu_ctx() {
            return Err(HostError::Driver {
                op: "Gpu::from_cudarc",
                message: "the stream belongs to another context than the one given; pass a stream of `ctx`                           (`ctx.default_stream()` or `ctx.new_stream()`)"
                    .into(),
            });
        }
        let info = device_info(&ctx)?;
        Ok(Gpu { id: NEXT_GPU_ID.fetch_add(1, Ordering::Relaxed), ctx, stream, info })
    }

    /// Whether device 0 can be opened: `Ok(Err(why))` when there is no driver or device
    /// (not an error: a command that may run on the interpreter goes on without it),
    /// `Err` for any other driver failure.
    pub fn probe() -> Result<Result<(), String>, HostError> {
        match Gpu::open(0) {
            Ok(_) => Ok(Ok(())),
            Err(e) if e.is_no_gpu() => Ok(Err(e.to_string())),
            Err(e) => Err(e),
        }
    }

    /// Opens device `ordinal`, or says clearly why there is none.
    pub fn open(ordinal: usize) -> Result<Gpu, HostError> {
        driver_present()?;
        let count = CudaContext::device_count()
            .map_err(|e| HostError::NoDevice(format!("the driver did not initialize ({e:?})")))?;
        if count <= ordinal as i32 {
            return Err(HostError::NoDevice(format!(
                "the driver reports {count} devices, device {ordinal} was asked for"
            )));
        }
        let ctx = CudaContext::new(ordinal).map_err(HostError::driver("cuCtxCreate"))?;
        let stream = ctx.default_stream();
        Gpu::from_cudarc(ctx, stream)
    }

    /// Waits for every launch and copy on this device's stream; surfaces launch faults.
    pub fn synchronize(&self) -> Result<(), HostError> {
        self.stream.synchronize().map_err(HostError::driver("cuStreamSynchronize"))
    }

    /// Free and total device memory in bytes.
    pub fn mem_info(&self) -> Result<(usize, usize), HostError> {
        self.ctx.mem_get_info().map_err(HostError::driver("cuMemGetInfo"))
    }
}

/// The limits of the device under `ctx`.
fn device_info(ctx: &CudaContext) -> Result<DeviceInfo, HostError> {
    let attr = |a: Attr| ctx.attribute(a).map_err(HostError::driver("cuDeviceGetAttribute"));
    let mut driver_version = 0i32;
    // SAFETY: libcuda is loaded (a context exists); the pointer is to a live local.
    unsafe { cudarc::driver::sys::cuDriverGetVersion(&mut driver_version) }
        .result()
        .map_err(HostError::driver("cuDriverGetVersion"))?;
    let info = DeviceInfo {
        ordinal: ctx.ordinal(),
        name: ctx.name().map_err(HostError::driver("cuDeviceGetName"))?,
        compute_capability: ctx.compute_capability().map_err(HostError::driver("cuDeviceGetAttribute"))?,
        driver_version,
        total_mem_bytes: ctx.total_mem().map_err(HostError::driver("cuDeviceTotalMem"))?,
        max_grid: [
            attr(Attr::CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X)? as u32,
            attr(Attr::CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Y)? as u32,
            attr(Attr::CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Z)? as u32,
        ],
        max_threads_per_block: attr(Attr::CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK)? as u32,
        max_shared_bytes_per_block: attr(Attr::CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK)? as u32,
        max_shared_bytes_optin: attr(Attr::CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN)? as u32,
        l2_cache_bytes: attr(Attr::CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE)? as usize,
        multiprocessor_count: attr(Attr::CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT)? as usize,
    };
    Ok(info)
}
