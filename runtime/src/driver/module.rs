//! Modules loaded from PTX text and launches with raw parameters that follow the PTX
//! signature (`.u64` pointers, `.s32` / `.s64` integers, `.f32` floats).

use std::sync::Arc;

use cudarc::driver::{CudaFunction, CudaModule, LaunchConfig, PushKernelArg};
use cudarc::nvrtc::Ptx;

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
}

impl LoadedModule {
    /// Loads `ptx` (JIT-compiled by the driver for the device) and looks up `entry`.
    pub fn load(gpu: &Gpu, ptx: &str, entry: &str) -> Result<LoadedModule, HostError> {
        let module = gpu.ctx.load_module(Ptx::from_src(ptx)).map_err(HostError::driver("cuModuleLoadData"))?;
        let function = module.load_function(entry).map_err(HostError::driver("cuModuleGetFunction"))?;
        Ok(LoadedModule { _module: module, function, entry: entry.to_string() })
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
        let mut builder = gpu.stream.launch_builder(&self.function);
        for p in params {
            match p {
                RawParam::Ptr(v) => builder.arg(v),
                RawParam::I32(v) => builder.arg(v),
                RawParam::I64(v) => builder.arg(v),
                RawParam::F32(v) => builder.arg(v),
            };
        }
        let cfg = LaunchConfig {
            grid_dim: (grid[0], grid[1], grid[2]),
            block_dim: (block[0], block[1], block[2]),
            // rtriton's PTX and the CUDA reference declare their shared memory statically.
            shared_mem_bytes: 0,
        };
        // SAFETY: forwarded to the caller (see above).
        unsafe { builder.launch(cfg) }.map_err(HostError::driver("cuLaunchKernel"))?;
        Ok(())
    }
}
