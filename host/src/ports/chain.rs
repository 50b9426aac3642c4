//! Running one launch of a chain of kernels on a back end and taking one of its outputs,
//! for the suites that chain two kernels (the split column reductions, the persistent
//! layer norm backward): the second launch reads what the first wrote.

use rtriton::spec::SpecPolicy;
use rtriton::trace::KernelDef;
use rtriton_testing::run::gpu::run_gpu;
use rtriton_testing::run::{run_interpreter, run_simulator};
use rtriton_testing::{Backend, Case, Data, Outputs, RunError};

/// One launch of `case` on `backend`, Triton's specialization (the GPU through the
/// harness's runner).
pub(crate) fn run_on(def: &KernelDef, case: &Case, backend: Backend) -> Result<Outputs, RunError> {
    let policy = SpecPolicy::Triton;
    match backend {
        Backend::Interpreter => run_interpreter(def, case, policy),
        Backend::Simulator => run_simulator(def, case, policy),
        Backend::Gpu => run_gpu(def, case, policy, Default::default()),
    }
}

/// The output buffer `name` of `outputs` (the suites name outputs their cases declare).
pub(crate) fn buffer(outputs: &Outputs, name: &str) -> Data {
    outputs
        .buffers
        .iter()
        .find(|(n, _)| *n == name)
        .map(|(_, d)| d.clone())
        .unwrap_or_else(|| panic!("no output `{name}`"))
}
