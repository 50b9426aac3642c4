//! Modules loaded from PTX text and launches with raw parameters that follow the PTX
//! signature (`.u64` pointers, `.s32` / `.s64` integers, `.f32` floats).

use std::ffi::c_void;
use std::sync::Arc;

use cudarc::driver::sys::CUfunction_attribute;
use cudarc::driver::{CudaFunction, CudaModule, CudaStream};
use cudarc::nvrtc::Ptx;
use smallvec::SmallVec;

use super::Gpu;
use crate::error::HostError;

/// One kernel parameter as the PTX entry declares it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum RawParam {
    /// A device address (`.param .u64`).
    Ptr(u64),
    I32(i32),
    I64(i64),
    F32(f32),
}

/// A PTX module loaded into a context, with its entry function.
#[derive(Debug, Clone)]
pub struct LoadedModule {
    _module: Arc<CudaModule>,
    function: CudaFunction,
    pub entry: String,
    /// Dynamic shared memory every launch passes (0: the PTX declares it statically).
    pub dynamic_shared_bytes: u32,
    /// What the driver's compile for the device gave the entry: registers per thread, and
    /// local memory per thread (the PTX's own `.local` arrays plus spilled registers).
    pub registers: u32,
    pub local_bytes: u32,
    /// The tensor maps each launch encodes from its parameters and passes after them
    /// (the kernel's tensor copies; `tensor_map.rs`).
    pub tensor_maps: Vec<rtriton::backend::ptx::tensor_map::TensorMap>,
}

impl LoadedModule {
    /// Loads `ptx` (JIT-compiled by the driver for the device) and looks up `entry`.
    pub fn load(gpu: &Gpu, ptx: &str, entry: &str) -> Result<LoadedModule, HostError> {
        LoadedModule::load_with_shared(gpu, ptx, entry, 0)
    }

    /// [`LoadedModule::load`] for an entry that declares `dynamic_shared_bytes` of dynamic
    /// shared memory (`.extern .shared`, past the 48 KiB a launch gets without opting in):
    /// sets the function's `CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES`, and every
    /// launch passes the bytes. The caller checks them against the device's opt-in limit
    /// first (`launch::check_shared`), so the driver never refuses them.
    pub fn load_with_shared(
        gpu: &Gpu,
        ptx: &str,
        entry: &str,
        dynamic_shared_bytes: u32,
    ) -> Result<LoadedModule, HostError> {
        let module = gpu.ctx.load_module(Ptx::from_src(ptx)).map_err(HostError::driver("cuModuleLoadData"))?;
        let function = module.load_function(entry).map_err(HostError::driver("cuModuleGetFunction"))?;
        if dynamic_shared_bytes > 0 {
            let attr = CUfunction_attribute::CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES;
            function
                .set_attribute(attr, dynamic_shared_bytes as i32)
                .map_err(HostError::driver("cuFuncSetAttribute"))?;
        }
        let attribute = |a: CUfunction_attribute| {
            function.get_attribute(a).map(|v| v.max(0) as u32).map_err(HostError::driver("cuFuncGetAttribute"))
        };
        let registers = attribute(CUfunction_attribute::CU_FUNC_ATTRIBUTE_NUM_REGS)?;
        let local_bytes = attribute(CUfunction_attribute::CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES)?;
        Ok(LoadedModule {
            _module: module,
            function,
            entry: entry.to_string(),
            dynamic_shared_bytes,
            registers,
            local_bytes,
            tensor_maps: Vec::new(),
        })
    }

    /// Enqueues one launch on the device's stream. Does not wait.
    ///
    /// # Safety
    /// `params` must match the entry's PTX signature in number, order and type, and every
    /// pointer must address device memory that stays allocated until the launch finishes
    /// and covers everything the kernel reads or writes for this grid.
    pub unsafe fn launch(
        &self,
        gpu: &Gpu,
        grid: [u32; 3],
        block: [u32; 3],
        params: &[RawParam],
    ) -> Result<(), HostError> {
        // SAFETY: forwarded to the caller (see above).
        unsafe { self.launch_on(&gpu.stream, grid, block, params) }
    }

    /// Enqueues one launch on `stream` (of the module's context). Does not wait. Straight
    /// to `cuLaunchKernel` with the parameter addresses on the stack: no allocation, so
    /// the host cost of a cached launch is the driver's and the checks'.
    ///
    /// # Safety
    /// As [`LoadedModule::launch`]; `stream` must belong to the context the module was
    /// loaded in.
    pub unsafe fn launch_on(
        &self,
        stream: &CudaStream,
        grid: [u32; 3],
        block: [u32; 3],
        params: &[RawParam],
    ) -> Result<(), HostError> {
        // The driver reads each parameter through its address during the call.
        let mut addresses: SmallVec<[*mut c_void; 16]> = params
            .iter()
            .map(|p| match p {
                RawParam::Ptr(v) => v as *const u64 as *mut c_void,
                RawParam::I32(v) => v as *const i32 as *mut c_void,
                RawParam::I64(v) => v as *const i64 as *mut c_void,
                RawParam::F32(v) => v as *const f32 as *mut c_void,
            })
            .collect();
        // The tensor maps after them, encoded for these parameters (alive for the call).
        let maps = self
            .tensor_maps
            .iter()
            .map(|m| super::tensor_map::encode(&self.entry, m, params))
            .collect::<Result<Vec<_>, _>>()?;
        addresses.extend(maps.iter().map(|m| m as *const _ as *mut c_void));
        stream.context().bind_to_thread().map_err(HostError::driver("cuCtxSetCurrent"))?;
        // SAFETY: the function belongs to a live module of the stream's context; the
        // addresses point into `params`, alive for the call; the rest is the caller's
        // contract (see above). Static shared declarations need no size; a dynamic `smem`
        // gets its bytes here.
        unsafe {
            cudarc::driver::result::launch_kernel(
                self.function.cu_function(),
                (grid[0], grid[1], grid[2]),
                (block[0], block[1], block[2]),
                self.dynamic_shared_bytes,
                stream.cu_stream(),
                &mut addresses,
            )
        }
        .map_err(HostError::driver("cuLaunchKernel"))
    }
}
