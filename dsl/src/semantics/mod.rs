//! Element semantics: what one element of each operation computes, bit for bit.
//!
//! The interpreter, the SIMT simulator and the PTX back end all read these functions
//! (conversions, shifts, the math instructions' CPU models, PTX's float max/min, the
//! hardware atomics on raw bits, `vprintf`'s formatting), so the three cannot disagree
//! about an element. This module depends only on `ir`'s types: it is the shared floor
//! under `interp`, `sim` and `backend`, none of which imports another's internals for
//! element rules.

pub mod atomic;
pub(crate) mod bits;
pub mod convert;
pub mod fp8;
pub mod fp8_types;
pub mod math;
pub(crate) mod nan;
pub mod printf;
pub mod scalar;
