//! rtriton: a block-level GPU kernel language in Rust that mirrors Triton.
//!
//! The pipeline shows in the types, and one driver runs it ([`session::CompileSession`]):
//! 1. [`trace::trace`]`(def, constexprs, spec, options) -> ir::Kernel` runs a kernel body;
//! 2. [`passes::dce::run`]`(&mut Kernel)` drops dead ops the trace left behind;
//! 3. [`verify::verify`]`(Kernel) -> VerifiedKernel` checks the IR (only the verifier
//!    makes a `VerifiedKernel`);
//! 4. the interpreter ([`interp::run`]) and the PTX back end ([`backend::ptx::lower`] to
//!    `lir::Program`, [`backend::ptx::write`] to text) take a `VerifiedKernel`.
//!
//! This crate has no CUDA dependency (an architecture invariant): it builds and tests on
//! machines without a GPU. It has no `unsafe` code either.

#![forbid(unsafe_code)]

pub mod analysis;
pub mod backend;
pub mod budget;
pub mod diag;
pub mod explain;
pub mod front_end_error;
pub mod guard;
pub mod interp;
pub mod ir;
pub mod lang;
pub mod lint;
pub mod passes;
pub mod print_sink;
pub mod semantics;
pub mod session;
pub mod sim;
pub mod spec;
pub mod trace;
pub mod verify;

/// Everything a kernel body needs: `use rtriton::prelude::*;`.
pub mod prelude {
    pub use crate::ir::PropagateNan;
    pub use crate::lang::*;
}

/// Triton-style alias: `use rtriton::tl;` then `tl::program_id(0)`.
pub use lang as tl;

/// The `half` crate, for the dtype lists `kernel!` expands to.
#[doc(hidden)]
pub use half;
