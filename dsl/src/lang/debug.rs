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

/// What `device_print` takes after its prefix: one tensor, or a tuple of up to four of any
/// dtypes (Triton's `*args`).
pub trait PrintArgs {
    /// The values, in order.
    fn values(&self) -> Vec<crate::ir::Value>;
}

impl<T> PrintArgs for super::tensor::Tensor<T> {
    fn values(&self) -> Vec<crate::ir::Value> {
        vec![self.id()]
    }
}

macro_rules! print_args_tuple {
    ($($t:ident $i:tt),+) => {
        impl<$($t),+> PrintArgs for ($(super::tensor::Tensor<$t>,)+) {
            fn values(&self) -> Vec<crate::ir::Value> {
                vec![$(self.$i.id()),+]
            }
        }
    };
}
print_args_tuple!(A 0);
print_args_tuple!(A 0, B 1);
print_args_tuple!(A 0, B 1, C 2);
print_args_tuple!(A 0, B 1, C 2, D 3);

/// Triton's `tl.device_print(prefix, *args)`: prints every element of `args` when the
/// kernel runs, one line an element in Triton's GPU format, `pid (x, y, z) idx (i, j)
/// prefix: value` (with `(operand k) ` before the value for several values). The
/// interpreter and the simulator print to standard output or the thread's
/// [`crate::print_sink::capture_prints`]; the PTX back end compiles it only in debug mode
/// (`PtxOptions::debug`), as `vprintf` calls whose lines the driver writes to the process's
/// standard output. An op with a side effect: dead-code removal keeps it.
#[track_caller]
pub fn device_print(prefix: &str, args: impl PrintArgs) {
    let loc = SourceLoc::caller();
    let values = args.values();
    with_builder(|b| {
        b.push(crate::ir::OpKind::DevicePrint { prefix: prefix.to_string(), values }, vec![], loc);
    });
}

/// Triton's `tl.device_assert(cond, msg)`: stops the launch where an element of `cond` (a
/// `Tensor<bool>`, block or scalar) is false. The interpreter always checks it: a located
/// `RT0411` naming the kernel, the line, `msg`, the program and the first false element.
/// The PTX back end compiles it only in debug mode (`PtxOptions::debug`, Triton's
/// `debug=True`/`TRITON_DEBUG=1`), as an `__assertfail` call in each thread holding a
/// false element (the simulator's located `RT0525`; on the GPU the driver prints `msg` and
/// the file:line on standard error, and the launch fails with `RT0718`, the context lost);
/// otherwise it lowers to nothing. A condition known at trace time is `static_assert`.
#[track_caller]
pub fn device_assert(cond: super::tensor::Tensor<bool>, msg: &str) {
    let loc = SourceLoc::caller();
    with_builder(|b| {
        b.push(crate::ir::OpKind::DeviceAssert { cond: cond.id(), msg: msg.to_string() }, vec![], loc);
    });
}
