//! IR-to-IR passes. Each takes a traced kernel and leaves it valid (tests re-verify after
//! every pass).
//!
//! - [`dce`]: removes ops whose results nobody uses and that have no side effects (run by
//!   `session::CompileSession::front_end`, so every consumer sees clean IR).
//! - [`pipeline`]: loads the operands of a `dot` in a staged loop one iteration ahead
//!   (run by `CompileSession::front_end` after `dce`, which then runs again on what the
//!   rewrite left unused).

pub mod dce;
pub mod pipeline;
