//! The GPU back end: the case's buffers copied to device 0, the kernel launched through
//! `rtriton-runtime` (its argument checks, overflow guard and caches included), the
//! outputs copied back. Every dtype of [`Data`] goes to a device buffer of its own element
//! type, so the runtime's launch checks see the dtype the kernel's pointer expects.
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
use rtriton_runtime::driver::{DeviceBuffer, Gpu};
use rtriton_runtime::launch::{Arg, JitKernel, Runtime, TensorArg};

use super::{Outputs, RunError};
use crate::case::{Case, CaseArg};
use crate::data::{Data, each_data};
use crate::element::Element;
use crate::view::View;

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

/// A device copy of a [`Data`] buffer, whatever its element type.
trait DeviceData {
    /// The buffer seen through `view` (the launch checks it against the buffer).
    fn tensor_arg(&self, view: &View) -> TensorArg<'_>;
    /// The whole buffer copied back.
    fn read(&self, gpu: &Gpu) -> Result<Data, HostError>;
}

impl<T: Element> DeviceData for DeviceBuffer<T> {
    fn tensor_arg(&self, view: &View) -> TensorArg<'_> {
        TensorArg::new(self, &view.shape, &view.strides).with_offset(view.offset)
    }

    fn read(&self, gpu: &Gpu) -> Result<Data, HostError> {
        self.to_host(gpu).map(T::wrap)
    }
}

/// `data` copied to a new device buffer of its element type.
fn upload(gpu: &Gpu, data: &Data) -> Result<Box<dyn DeviceData>, HostError> {
    fn copy<T: Element>(gpu: &Gpu, host: &[T]) -> Result<Box<dyn DeviceData>, HostError> {
        Ok(Box::new(DeviceBuffer::from_host(gpu, host)?))
    }
    each_data!(data, v => copy(gpu, v))
}

/// Runs `case` on device 0 under `policy`. Without a GPU this is `RunError::Gpu` with
/// `is_no_gpu()`; callers that must not pass without a GPU treat it as a failure.
pub fn run_gpu(def: &KernelDef, case: &Case, policy: SpecPolicy, options: GpuOptions) -> Result<Outputs, RunError> {
    let case = &*case.resolve(def).map_err(|e| RunError::Args(Box::new(e)))?;
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
    let on_device = GpuCase::upload(rt, def, case, policy)?;
    on_device.launch(rt)?;
    rt.gpu.synchronize().map_err(gpu_error)?;
    on_device.read_outputs(rt)
}

/// A case's buffers on the device, ready to launch as often as a caller likes (`bench`
/// times the ports this way): the kernel, its launch arguments rebuilt from the
/// buffers at each launch, and the outputs read back on request.
pub struct GpuCase<'c> {
    /// The case bound to the kernel's signature (borrowed unless it had named arguments).
    case: std::borrow::Cow<'c, Case>,
    kernel: JitKernel,
    device: Vec<Box<dyn DeviceData>>,
}

impl std::fmt::Debug for GpuCase<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("GpuCase").field("case", &self.case.name).field("buffers", &self.device.len()).finish()
    }
}

impl<'c> GpuCase<'c> {
    /// Copies every tensor of `case` to the device of `rt`.
    pub fn upload(rt: &mut Runtime, def: &KernelDef, case: &'c Case, policy: SpecPolicy) -> Result<Self, RunError> {
        let case = case.resolve(def).map_err(|e| RunError::Args(Box::new(e)))?;
        case.check().map_err(RunError::Case)?;
        let mut device = Vec::new();
        for t in case.tensors() {
            device.push(upload(&rt.gpu, &t.data).map_err(gpu_error)?);
        }
        let grid = case.grid.map(u64::from);
        let kernel = JitKernel::new(def.clone())
            .constexprs(&case.constexprs)
            .num_warps(case.num_warps)
            .min_ctas_per_sm(case.min_ctas_per_sm)
            .arch(case.arch)
            .spec_policy(policy)
            .grid(move |_| grid);
        Ok(GpuCase { case, kernel, device })
    }

    /// Enqueues one launch (does not wait).
    pub fn launch(&self, rt: &mut Runtime) -> Result<(), RunError> {
        rt.launch(&self.kernel, &self.args()).map(drop).map_err(gpu_error)
    }

    /// The launch arguments over the device buffers, in the case's order: what another
    /// launcher of the same kernel (an autotuner, say) passes.
    pub fn args(&self) -> Vec<Arg<'_>> {
        let mut args = Vec::new();
        let mut buffers = self.device.iter().zip(self.case.tensors());
        for a in &self.case.args {
            args.push(match a {
                CaseArg::Tensor(_) => {
                    let (d, t) = buffers.next().expect("one device buffer per tensor");
                    Arg::Tensor(d.tensor_arg(&t.view))
                }
                CaseArg::Int(v) => Arg::Int(*v),
                CaseArg::F32(v) => Arg::F32(*v),
            });
        }
        args
    }

    /// Every output tensor's whole buffer, copied back (waits for the stream).
    pub fn read_outputs(&self, rt: &Runtime) -> Result<Outputs, RunError> {
        let mut out = Vec::new();
        for (d, t) in self.device.iter().zip(self.case.tensors()) {
            if t.output {
                out.push((t.name, d.read(&rt.gpu).map_err(gpu_error)?));
            }
        }
        Ok(Outputs { buffers: out, writers: None })
    }
}
