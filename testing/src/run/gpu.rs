//! The GPU back end: the case's buffers copied to device 0, the kernel launched through
//! `rtriton-runtime` (its argument checks, overflow guard and caches included), the
//! outputs copied back.
//!
//! A kernel fault (an illegal address, a trap) is *sticky*: the CUDA context is unusable
//! afterwards and every later call on it fails (the runtime reports it as
//! `HostError::ContextPoisoned`). The harness remembers the first sticky error for the whole
//! process and refuses every later GPU run with it ([`RunError::StickyDriverError`]) rather
//! than report results from a device that faulted (`GpuOptions::refuse_after_sticky_error`,
//! on by default; off, each run still fails on the poisoned context with the runtime's
//! error).

use std::sync::Mutex;

use rtriton::spec::SpecPolicy;
use rtriton::trace::KernelDef;
use rtriton_runtime::HostError;
use rtriton_runtime::driver::DeviceBuffer;
use rtriton_runtime::launch::{Arg, JitKernel, Runtime, TensorArg};

use super::{Outputs, RunError};
use crate::case::{Case, CaseArg};
use crate::data::Data;

/// How GPU runs treat driver errors.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct GpuOptions {
    /// Refuse to report results once the driver has reported a sticky error in this
    /// process (see the module doc).
    pub refuse_after_sticky_error: bool,
}

impl Default for GpuOptions {
    fn default() -> GpuOptions {
        GpuOptions { refuse_after_sticky_error: true }
    }
}

/// The first sticky driver error seen in this process.
static STICKY: Mutex<Option<String>> = Mutex::new(None);

fn sticky() -> Option<String> {
    STICKY.lock().unwrap_or_else(|p| p.into_inner()).clone()
}

/// A runtime error as a run error: a sticky one is remembered for the process.
fn gpu_error(e: HostError) -> RunError {
    if e.is_context_poisoned() {
        STICKY.lock().unwrap_or_else(|p| p.into_inner()).get_or_insert_with(|| e.to_string());
        RunError::StickyDriverError(e.to_string())
    } else {
        RunError::Gpu(e)
    }
}

enum DeviceData {
    F32(DeviceBuffer<f32>),
    I32(DeviceBuffer<i32>),
    I64(DeviceBuffer<i64>),
}

/// Runs `case` on device 0 under `policy`. Without a GPU this is `RunError::Gpu` with
/// `is_no_gpu()`; callers that must not pass without a GPU treat it as a failure.
pub fn run_gpu(def: &KernelDef, case: &Case, policy: SpecPolicy, options: GpuOptions) -> Result<Outputs, RunError> {
    case.check().map_err(RunError::Case)?;
    if options.refuse_after_sticky_error
        && let Some(e) = sticky()
    {
        return Err(RunError::StickyDriverError(format!("an earlier launch: {e}")));
    }
    RUNTIME.with(|cell| {
        let mut slot = cell.borrow_mut();
        if slot.is_none() {
            *slot = Some(Runtime::new().map_err(gpu_error)?);
        }
        let rt = slot.as_mut().expect("set above");
        let result = run_on(rt, def, case, policy);
        // A poisoned context is of no use to later runs: drop it (they are refused anyway,
        // or open a fresh one when `refuse_after_sticky_error` is off).
        if matches!(result, Err(RunError::StickyDriverError(_))) {
            *slot = None;
        }
        result
    })
}

thread_local! {
    /// One runtime per test thread, reused across runs: opening a CUDA context and
    /// JIT-loading modules costs far more than the small launches tests make, and a
    /// runtime per run made the GPU suites take minutes. Kernels are cached by name and
    /// definition site, so reuse never mixes two kernels up.
    static RUNTIME: std::cell::RefCell<Option<Runtime>> = const { std::cell::RefCell::new(None) };
}

fn run_on(rt: &mut Runtime, def: &KernelDef, case: &Case, policy: SpecPolicy) -> Result<Outputs, RunError> {
    let mut device = Vec::new();
    for t in case.tensors() {
        device.push(
            match &t.data {
                Data::F32(v) => DeviceBuffer::from_host(&rt.gpu, v).map(DeviceData::F32),
                Data::I32(v) => DeviceBuffer::from_host(&rt.gpu, v).map(DeviceData::I32),
                Data::I64(v) => DeviceBuffer::from_host(&rt.gpu, v).map(DeviceData::I64),
            }
            .map_err(gpu_error)?,
        );
    }
    let mut args = Vec::new();
    let mut buffers = device.iter().zip(case.tensors());
    for a in &case.args {
        args.push(match a {
            CaseArg::Tensor(_) => {
                let (d, t) = buffers.next().expect("one device buffer per tensor");
                let (shape, strides) = (&t.view.shape, &t.view.strides);
                let view = match d {
                    DeviceData::F32(b) => TensorArg::new(b, shape, strides),
                    DeviceData::I32(b) => TensorArg::new(b, shape, strides),
                    DeviceData::I64(b) => TensorArg::new(b, shape, strides),
                };
                Arg::Tensor(view.with_offset(t.view.offset))
            }
            CaseArg::Int(v) => Arg::Int(*v),
            CaseArg::F32(v) => Arg::F32(*v),
        });
    }
    let grid = case.grid.map(u64::from);
    let kernel = JitKernel::new(def.clone())
        .constexprs(&case.constexprs)
        .num_warps(case.num_warps)
        .spec_policy(policy)
        .grid(move |_| grid);
    rt.launch(&kernel, &args).map_err(gpu_error)?;
    rt.gpu.synchronize().map_err(gpu_error)?;
    let mut out = Vec::new();
    for (d, t) in device.iter().zip(case.tensors()) {
        if !t.output {
            continue;
        }
        let data = match d {
            DeviceData::F32(b) => b.to_host(&rt.gpu).map(Data::F32),
            DeviceData::I32(b) => b.to_host(&rt.gpu).map(Data::I32),
            DeviceData::I64(b) => b.to_host(&rt.gpu).map(Data::I64),
        };
        out.push((t.name, data.map_err(gpu_error)?));
    }
    Ok(Outputs { buffers: out, writers: None })
}
