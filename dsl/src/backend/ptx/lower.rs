//! Block IR to [`super::lir`].

use super::{PtxError, PtxOptions, lir};
use crate::ir::Kernel;
use crate::verify::KernelInfo;

pub(super) fn lower_kernel(
    kernel: &Kernel,
    _info: &KernelInfo,
    _options: &PtxOptions,
) -> Result<lir::Program, PtxError> {
    Err(PtxError::new(&kernel.name, kernel.loc, "the PTX lowering is not written yet", "wait for the ptx branch"))
}
