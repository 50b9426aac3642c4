//! Triton's debugging ops. Two run at trace time, on values the trace knows (constexprs,
//! shapes, dtypes: plain Rust values while the body runs): `static_print` and
//! `static_assert`. Two are ops of the IR that run with the kernel: `device_print` and
//! `device_assert` (`docs/semantics.md`, "Debugging ops").

use crate::ir::SourceLoc;
use crate::trace::with_builder;

/// Triton's `tl.static_print`: prints `msg` when the body is traced, once per trace (a
/// specialization is traced once by a compile session; the portability lint traces the
/// unspecialized body once more). What it can show is what the trace knows: constexprs,
/// shapes and dtypes, formatted by the caller (`static_print(format!("BLOCK = {BLOCK},
/// shape {:?}", x.shape()))`). The line goes to standard output, or to the thread's
/// [`crate::print_sink::capture_prints`]. Nothing is emitted into the kernel.
#[track_caller]
pub fn static_print(msg: impl std::fmt::Display) {
    // Through the builder, so a call outside a trace is the usual located panic rather
    // than a print that pretends a kernel was traced.
    with_builder(|_| ());
    crate::print_sink::print_line(msg.to_string());
}

/// Triton's `tl.static_assert(cond, msg)`: a condition on trace-time values (constexprs,
/// shapes) that must hold for the kernel to make sense. "Known at trace time" is a plain
/// Rust `bool`: a tensor's value is not known until the kernel runs, and a `Tensor<bool>`
/// does not type-check here (that is `device_assert`). When the condition is false,
/// tracing records an `RT0101` error at the caller's line naming the kernel, with `msg` as
/// the message and `help` as what to do, and the kernel does not compile; nothing is
/// emitted either way.
#[track_caller]
pub fn static_assert(cond: bool, msg: &str, help: &str) {
    if !cond {
        let loc = SourceLoc::caller();
        with_builder(|b| b.error(loc, format!("static_assert failed: {msg}"), help));
    }
}
