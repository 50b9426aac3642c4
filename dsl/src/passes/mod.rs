//! IR-to-IR passes. Each takes a traced kernel and leaves it valid (tests re-verify after
//! every pass).
//!
//! - [`dce`]: removes ops whose results nobody uses and that have no side effects (run by
//!   `pipeline::trace_and_verify`, so every consumer sees clean IR).

pub mod dce;
pub mod remap;
