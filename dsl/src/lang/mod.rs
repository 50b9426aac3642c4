//! The kernel language: what a kernel body calls (Triton's `triton.language`).
//!
//! `tensor.rs` and `ops.rs` are the thin user-facing API; `dtype.rs` holds the element
//! types and the promotion table; `semantic.rs` holds every typing, broadcasting and
//! folding rule.

mod combine;
mod control;
mod dtype;
mod ops;
pub mod semantic;
mod tensor;

pub use combine::{argmin, associative_scan, cumsum, reduce, xor_sum};
pub use control::{if_, if_then, while_loop};
pub use dtype::{AddOutput, DTypeMarker, IntMarker, NumericMarker, Promote, Ptr, ScalarMarker};
pub use ops::{
    Carry, arange, argmax, cdiv, for_range, full, load, max, max_with, maximum, maximum_with, min, min_with, minimum,
    minimum_with, num_programs, program_id, store, sum, where_, zeros,
};
pub use tensor::{Tensor, TensorOperand};
