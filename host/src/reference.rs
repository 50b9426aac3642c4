//! The CUDA C row-max reference (`kernels-gpu/cuda/row_max_ref.cu`), compiled at run time
//! with NVRTC for `compute_86` and loaded as PTX (the driver JIT-compiles it for the
//! device), launched one block per row on any view.

use cudarc::nvrtc::{CompileError, CompileOptions, compile_ptx_with_opts};
use rtriton_kernels::reference::{
    ROW_MAX_REF_ARCH, ROW_MAX_REF_CU, ROW_MAX_REF_ENTRY, ROW_MAX_REF_PROPAGATE_NAN_ENTRY, ROW_MAX_REF_THREADS,
};

use crate::driver::{DeviceBuffer, Gpu, LoadedModule, RawParam, nvrtc_present};
use crate::error::HostError;
use crate::launch::{LaunchError, TensorArg, check_args, check_grid};

/// The reference, compiled and loaded on one device.
#[derive(Debug)]
pub struct RowMaxReference {
    /// `row_max_ref` (NaN ignored).
    module: LoadedModule,
    /// `row_max_ref_propagate_nan`.
    propagate_nan: LoadedModule,
    /// The PTX NVRTC produced (for logs and inspection).
    pub ptx: String,
}

/// The NVRTC options: `-arch=compute_86` (PTX for sm_86, JIT-compiled on newer GPUs).
pub fn nvrtc_options() -> CompileOptions {
    CompileOptions {
        arch: Some(ROW_MAX_REF_ARCH),
        name: Some("row_max_ref.cu".into()),
        // fmaxf must stay the IEEE maxNum the validation compares against: no fast math.
        ftz: Some(false),
        ..Default::default()
    }
}

/// Compiles the reference to PTX with NVRTC (no GPU needed, only libnvrtc).
pub fn compile_reference_ptx() -> Result<String, HostError> {
    nvrtc_present()?;
    Ok(compile_ptx_with_opts(ROW_MAX_REF_CU, nvrtc_options()).map_err(nvrtc_error)?.to_src())
}

impl RowMaxReference {
    /// Compiles the reference with NVRTC and loads it on `gpu`.
    pub fn compile(gpu: &Gpu) -> Result<RowMaxReference, HostError> {
        let ptx = compile_reference_ptx()?;
        let module = LoadedModule::load(gpu, &ptx, ROW_MAX_REF_ENTRY)?;
        let propagate_nan = LoadedModule::load(gpu, &ptx, ROW_MAX_REF_PROPAGATE_NAN_ENTRY)?;
        Ok(RowMaxReference { module, propagate_nan, ptx })
    }

    /// `y[r] = max_c x[r, c]` for the 2-D view `x` (any strides and offset) into the
    /// contiguous `y` of `x.shape[0]` elements, NaN ignored (`fmaxf`). Enqueues; does not
    /// wait.
    pub fn run(&self, gpu: &Gpu, x: &TensorArg<'_>, y: &mut DeviceBuffer<f32>) -> Result<(), HostError> {
        self.run_with_nan_rule(gpu, x, y, false)
    }

    /// [`RowMaxReference::run`] with the NaN rule chosen: `propagate_nan` makes any NaN
    /// in a row give the canonical NaN `0x7FFF_FFFF` (as `cpu_row_max(.., true)`).
    pub fn run_with_nan_rule(
        &self,
        gpu: &Gpu,
        x: &TensorArg<'_>,
        y: &mut DeviceBuffer<f32>,
        propagate_nan: bool,
    ) -> Result<(), HostError> {
        let (kernel, module) = if propagate_nan {
            (ROW_MAX_REF_PROPAGATE_NAN_ENTRY, &self.propagate_nan)
        } else {
            (ROW_MAX_REF_ENTRY, &self.module)
        };
        assert_eq!(x.shape.len(), 2, "the reference takes a 2-D view");
        let (n_rows, n_cols) = (x.shape[0], x.shape[1]);
        let y_view = TensorArg::contiguous(y, &[n_rows]);
        let params = reference_params();
        let args = [x.clone().into(), y_view.clone().into()];
        check_args(kernel, &params, &args, gpu.device_id())?;
        if n_rows == 0 {
            return Ok(());
        }
        let grid = check_grid(kernel, [n_rows as u64, 1, 1], gpu.info.max_grid)?;
        let raw = [
            RawParam::Ptr(x.buffer.ptr),
            RawParam::Ptr(y_view.address().map_err(|source| LaunchError::AddressOverflow {
                kernel: kernel.into(),
                param: params[1].name.into(),
                source,
            })?),
            RawParam::I64(x.offset_elems as i64),
            RawParam::I64(n_rows as i64),
            RawParam::I64(n_cols as i64),
            RawParam::I64(x.strides[0] as i64),
            RawParam::I64(x.strides[1] as i64),
        ];
        // SAFETY: the parameters follow row_max_ref's signature (two pointers, five
        // 64-bit integers); check_args proved both views lie inside live buffers of this
        // device, and the kernel reads exactly the view and writes y[0..n_rows].
        unsafe { module.launch(gpu, grid, [ROW_MAX_REF_THREADS, 1, 1], &raw) }
    }
}

/// The reference's two tensor parameters, for the shared argument checks.
fn reference_params() -> Vec<rtriton::ir::ParamDecl> {
    use rtriton::ir::ParamDecl;
    use rtriton::lang::Ptr;
    vec![ParamDecl::new::<Ptr<f32>>("x"), ParamDecl::new::<Ptr<f32>>("y")]
}

fn nvrtc_error(e: CompileError) -> HostError {
    let message = match e {
        CompileError::CompileError { nvrtc, options, log } => {
            format!("{nvrtc:?} with options {options:?}:\n{}", log.to_string_lossy())
        }
        other => format!("{other:?}"),
    };
    HostError::Nvrtc { name: "row_max_ref.cu".into(), message }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Needs libnvrtc (the GPU machine; locally NVRTC from PyPI on LD_LIBRARY_PATH), so it
    /// is ignored by default and fails, rather than skips, when asked for without it.
    #[test]
    #[ignore = "needs NVRTC"]
    fn nvrtc_compiles_the_reference_for_sm_86_with_the_shuffle_ladder() {
        let ptx = compile_reference_ptx().unwrap_or_else(|e| panic!("{e}"));
        if let Some(path) = std::env::var_os("RTRITON_DUMP_REF_PTX") {
            std::fs::write(path, &ptx).unwrap();
        }
        assert!(ptx.contains(".target sm_86"), "{ptx}");
        for entry in [ROW_MAX_REF_ENTRY, ROW_MAX_REF_PROPAGATE_NAN_ENTRY] {
            assert!(ptx.contains(&format!(".entry {entry}(")), "{ptx}");
        }
        assert_eq!(ptx.matches("shfl.sync.down.b32").count(), 20, "two entries, two ladders of five:\n{ptx}");
        assert!(ptx.contains("bar.sync"), "{ptx}");
        assert!(ptx.contains("max.f32"), "{ptx}");
    }
}
