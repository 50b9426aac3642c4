//! A deliberate kernel fault, to test how `validate` goes on after one (`--inject-fault`):
//! one thread stores through an unmapped address, which the driver reports as the sticky
//! `CUDA_ERROR_ILLEGAL_ADDRESS`.

use crate::driver::{Gpu, LoadedModule, RawParam};
use crate::error::HostError;

/// Stores 1 through the pointer it is given.
const STORE_ONE: &str = "\
.version 7.8
.target sm_86
.address_size 64
.visible .entry store_one(.param .u64 p)
{
    .reg .b32 %r<2>;
    .reg .b64 %rd<2>;
    ld.param.u64 %rd1, [p];
    mov.b32 %r1, 1;
    st.global.b32 [%rd1], %r1;
    ret;
}
";

/// An address no allocation maps (the first page is never mapped).
const UNMAPPED: u64 = 0x100;

/// Launches the faulting store and waits for it: returns the poisoned-context error (or
/// an error saying the fault did not happen, which the caller reports as a failure).
pub fn inject(gpu: &Gpu) -> HostError {
    let module = match LoadedModule::load(gpu, STORE_ONE, "store_one") {
        Ok(m) => m,
        Err(e) => return e,
    };
    // SAFETY: deliberately not: the address is unmapped, the fault is the point.
    if let Err(e) = unsafe { module.launch(gpu, [1, 1, 1], [1, 1, 1], &[RawParam::Ptr(UNMAPPED)]) } {
        return e;
    }
    match gpu.synchronize() {
        Err(e) => e,
        Ok(()) => HostError::Driver {
            op: "validate --inject-fault",
            message: format!("a store to {UNMAPPED:#x} did not fault; the recovery path was not tested"),
        },
    }
}
