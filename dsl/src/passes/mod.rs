//! IR-to-IR passes. Each takes a traced kernel and leaves it valid (tests re-verify after
//! every pass).
//!
//! - [`dce`]: removes ops whose results nobody uses and that have no side effects (run by
//!   `session::CompileSession::front_end`, so every consumer sees clean IR).

pub mod dce;
