//! The host's error type: one enum for everything that can go wrong between a launch
//! request and results back on the host. Launch-argument problems have their own enum
//! ([`crate::launch::LaunchError`]) because they are the user's to fix.

use cudarc::driver::DriverError;

use rtriton::diag::{Code, Diagnostic, HasDiagnostics};

use crate::launch::LaunchError;

/// Why a host operation failed.
#[derive(Debug, thiserror::Error)]
pub enum HostError {
    /// libcuda could not be loaded: no GPU driver on this machine.
    #[error("{0}")]
    NoDriver(String),
    /// NVRTC could not be loaded, so the CUDA reference cannot be compiled.
    #[error("{0}")]
    NoNvrtc(String),
    /// The driver is there but reports no usable device (or cannot initialize).
    #[error("no CUDA device found: {0}; run on a machine with an NVIDIA GPU")]
    NoDevice(String),
    /// A driver call failed.
    #[error("cuda driver call `{op}` failed: {message}")]
    Driver { op: &'static str, message: String },
    /// A kernel faulted (an illegal address, a trap...) and left a sticky error: the
    /// context is unusable until it is reset (`Runtime::recover`, `Gpu::reset`).
    #[error(
        "the cuda context is poisoned: `{op}` failed with {code:?}, a sticky error from a kernel fault; every later \
         call on this context fails: recover the runtime (`Runtime::recover`) or restart the process"
    )]
    ContextPoisoned { op: &'static str, code: cudarc::driver::sys::CUresult },
    /// A `device_assert` compiled in debug mode failed on the device (`CUDA_ERROR_ASSERT`,
    /// `RT0718`): the driver printed its file:line, kernel, block, thread and message on
    /// standard error. Sticky like [`HostError::ContextPoisoned`]: the context must be
    /// recreated (`Runtime::recover`, `Gpu::reset`) or the process restarted.
    #[error(
        "a device_assert failed on the GPU: `{op}` returned CUDA_ERROR_ASSERT (RT0718); the driver printed the \
         assertion's file:line, kernel and message on standard error (\"file:line: kernel: block: [..], thread: \
         [..] Assertion `message` failed.\"); the cuda context is unusable from now on: recreate it \
         (`Runtime::recover`) or restart the process"
    )]
    DeviceAssert { op: &'static str },
    /// NVRTC rejected a CUDA C source.
    #[error("nvrtc could not compile `{name}`: {message}")]
    Nvrtc { name: String, message: String },
    /// The arguments of a launch are wrong.
    #[error(transparent)]
    Launch(#[from] LaunchError),
    /// The kernel could not be specialized, traced or verified.
    #[error("kernel `{kernel}` failed in the front end: {source}")]
    FrontEnd { kernel: String, source: Box<rtriton::session::FrontEndError> },
    /// The portability lint found problems and the launch asked to deny them.
    #[error("{0}")]
    LintDenied(rtriton::diag::Diagnostics),
    /// The PTX back end refused the kernel (typed: ask `has_code(Code::PtxRegisterBudget)`).
    #[error("kernel `{kernel}`: the ptx back end failed: {source}")]
    Ptx { kernel: String, source: Box<rtriton::backend::ptx::PtxError> },
    /// The on-disk PTX cache could not be read or written.
    #[error("ptx cache at {path}: {message}; set RTRITON_CACHE_DIR to a writable folder")]
    Cache { path: String, message: String },
    /// An autotuned kernel could not choose a configuration (`crate::autotune`; ask
    /// `has_code(Code::AutotuneOutputsDiffer)` and the other `Autotune*` codes).
    #[error("{0}")]
    Autotune(Box<Diagnostic>),
    /// An operation built on launches (an application's entry point, such as the row-max
    /// one) refused its inputs before launching anything: the diagnostic names the caller's
    /// line and what to pass instead.
    #[error("{0}")]
    Input(Box<Diagnostic>),
}

impl HostError {
    /// Wraps a driver error with the name of the call that returned it.
    /// A failed device assertion becomes [`HostError::DeviceAssert`], another sticky error
    /// (see [`crate::driver::is_sticky`]) [`HostError::ContextPoisoned`].
    pub fn driver(op: &'static str) -> impl FnOnce(DriverError) -> HostError {
        move |e| {
            if e.0 == cudarc::driver::sys::cudaError_enum::CUDA_ERROR_ASSERT {
                HostError::DeviceAssert { op }
            } else if crate::driver::is_sticky(e.0) {
                HostError::ContextPoisoned { op, code: e.0 }
            } else {
                HostError::Driver { op, message: format!("{e:?}") }
            }
        }
    }

    /// Whether the context is unusable and must be reset before the next call (a kernel
    /// fault, a failed device assertion included).
    pub fn is_context_poisoned(&self) -> bool {
        matches!(self, HostError::ContextPoisoned { .. } | HostError::DeviceAssert { .. })
    }

    /// Whether this error means "there is no GPU here" (as opposed to a failure on one).
    pub fn is_no_gpu(&self) -> bool {
        matches!(self, HostError::NoDriver(_) | HostError::NoDevice(_))
    }
}

impl HasDiagnostics for HostError {
    /// The diagnostics behind a refusal of the kernel or its launch (each with its code);
    /// empty for driver, NVRTC and cache failures, which concern no kernel op.
    fn diagnostics(&self) -> Vec<Diagnostic> {
        match self {
            HostError::Launch(e) => e.diagnostics(),
            HostError::FrontEnd { source, .. } => source.diagnostics(),
            HostError::LintDenied(d) => d.diagnostics(),
            HostError::Ptx { source, .. } => source.diagnostics(),
            HostError::Autotune(d) | HostError::Input(d) => vec![(**d).clone()],
            // The driver reports the assertion at a later synchronization, not at its
            // launch: the kernel, line and message are in the driver's line on stderr.
            HostError::DeviceAssert { .. } => vec![Diagnostic::error(
                Code::LaunchDeviceAssert,
                "named on standard error",
                None,
                self.to_string(),
                "read the driver's `file:line: kernel: ... Assertion `message` failed.` line on standard error; \
                 recreate the context (`Runtime::recover`) before the next launch",
            )],
            HostError::NoDriver(_)
            | HostError::NoNvrtc(_)
            | HostError::NoDevice(_)
            | HostError::Driver { .. }
            | HostError::ContextPoisoned { .. }
            | HostError::Nvrtc { .. }
            | HostError::Cache { .. } => Vec::new(),
        }
    }
}
