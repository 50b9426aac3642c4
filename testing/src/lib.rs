//! Differential tests for rtriton kernels: one description of a kernel's tests runs on
//! the CPU interpreter (the semantic reference), on the SIMT simulator (the lowered
//! thread-level program, with its checks for out-of-bounds and misaligned accesses,
//! shared-memory races, divergent barriers, inactive-lane shuffles and duplicate stores)
//! and on the GPU through `rtriton-runtime`, each under Triton's specialization and
//! without it, against a CPU reference under a comparison rule.
//!
//! ```no_run
//! use rtriton::prelude::*;
//! use rtriton_testing::{Case, Rule, Suite, View};
//!
//! rtriton::kernel! {
//!     pub fn double(x_ptr: Ptr<f32>, y_ptr: Ptr<f32>, n: i32; const BLOCK: usize) {
//!         let offs = program_id(0) * BLOCK as i32 + arange(0, BLOCK);
//!         let mask = offs.lt(n);
//!         let x = load(x_ptr + offs, Some(mask), Some(0.0));
//!         store(y_ptr + offs, x + x, Some(mask));
//!     }
//! }
//!
//! fn suite() -> Suite {
//!     let n = 100;
//!     Suite::new(double())
//!         .case(
//!             Case::new("tail")
//!                 .input("x", rtriton_testing::fill::special_f32(n), View::contiguous(&[n]))
//!                 .output("y", vec![0.0f32; n], View::contiguous(&[n]))
//!                 .arg("n", n)
//!                 .constexpr("BLOCK", 64)
//!                 .grid([2, 1, 1]),
//!         )
//!         .reference(move |case| {
//!             for i in 0..n {
//!                 let x = case.tensor("x").f32_at(&[i]);
//!                 case.tensor_mut("y").set_f32(&[i], x + x);
//!             }
//!         })
//!         .rule(Rule::BITS)
//! }
//!
//! // One test per case and back end: `tail::interpreter`, `tail::simulator`, and
//! // `tail::gpu` (ignored unless run with `--ignored` / `--run-ignored all`).
//! rtriton_testing::backend_tests!(suite => [tail]);
//! ```
//!
//! Code map: `view.rs` (views as data), `data.rs` (typed buffers of every dtype),
//! `element.rs` (their Rust element types, with f64 both ways), `float.rs` (float formats
//! from their bits: ULPs, rounding from f64), `fill.rs` (special values), `case.rs` (one launch), `args.rs` (named scalar arguments bound to the signature), `compare.rs` (rules, ULP distance), `run/` (the back
//! ends: `cpu.rs` interpreter and simulator, `gpu.rs` the device), `report.rs` (failure
//! reports), `suite.rs` (one kernel's tests), `table.rs` (ready-made views and sizes), `strategy.rs` (proptest strategies).

pub mod args;
pub mod case;
pub mod compare;
pub mod data;
pub mod element;
pub mod fill;
pub mod float;
pub mod report;
pub mod run;
pub mod strategy;
pub mod suite;
pub mod table;
pub mod view;

pub use args::{ArgError, ArgErrorKind, IntoScalar, ScalarValue};
pub use case::{Case, CaseArg, Tensor};
pub use compare::{NanRule, Rule, Tolerance};
pub use data::Data;
pub use element::Element;
pub use float::Float;
/// The crate of the `f16` / `bf16` element types, so a test crate can name them without
/// depending on it.
pub use half;
pub use report::{Failure, FailureKind, Failures};
pub use run::gpu::GpuOptions;
pub use run::{Backend, Outputs, RunError};
pub use suite::Suite;
pub use view::View;

/// One `#[test]` per case and back end from one [`Suite`]: for each case name `c`, a
/// module `c` with `interpreter`, `simulator` and `gpu` tests. The GPU test is
/// `#[ignore = "needs a GPU"]`, so `cargo test` lists it as ignored, never as passed, and
/// `cargo test -- --ignored` (or `cargo nextest run --run-ignored all`) runs it; run
/// without a GPU it fails, saying so.
///
/// `$suite` is a function returning the [`Suite`]; case names must be the suite's case
/// names, written as identifiers.
#[macro_export]
macro_rules! backend_tests {
    ($suite:path => [$($case:ident),+ $(,)?]) => {
        $(
            #[allow(non_snake_case)]
            mod $case {
                #[allow(unused_imports)]
                use super::*;

                #[test]
                fn interpreter() {
                    $suite().check(stringify!($case), $crate::Backend::Interpreter);
                }

                #[test]
                fn simulator() {
                    $suite().check(stringify!($case), $crate::Backend::Simulator);
                }

                #[test]
                #[ignore = "needs a GPU"]
                fn gpu() {
                    $suite().check(stringify!($case), $crate::Backend::Gpu);
                }
            }
        )+
    };
}
