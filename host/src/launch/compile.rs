//! The compile step of a launch: front end (specialize, trace, verify) then the PTX back
//! end. The one place the host calls the back end.

use rtriton::ir::Kernel;
use rtriton::verify::KernelInfo;

use crate::cache::CompiledPtx;
use crate::error::HostError;

/// The PTX options a launch compiles with (`num_warps` from the launch, the rest default:
/// `.target sm_86`, `.version 7.8`).
pub fn ptx_options(num_warps: u32) -> PtxOptionsStandIn {
    PtxOptionsStandIn { num_warps }
}

/// Until the PTX back end is merged: the options it will take.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct PtxOptionsStandIn {
    pub num_warps: u32,
}

/// Lowers a traced, verified kernel to PTX.
pub fn compile_ptx(
    kernel: &Kernel,
    _info: &KernelInfo,
    _options: &PtxOptionsStandIn,
) -> Result<CompiledPtx, HostError> {
    Err(HostError::Ptx {
        kernel: kernel.name.clone(),
        message: "the ptx back end is not merged into this build yet".into(),
    })
}
