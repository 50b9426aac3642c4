//! The row-max application of rtriton, on top of the generic runtime
//! ([`rtriton_runtime`]): the CUDA reference runner, `validate`, `bench` and the `rtriton`
//! CLI. Builds and runs its non-GPU parts on machines with no CUDA.
//!
//! Code map:
//! - [`reference`](mod@reference): the CUDA C row-max reference, compiled with NVRTC;
//! - [`validate`]: every row-max variant against the reference, on the GPU or the interpreter;
//! - [`row_max`](mod@row_max): the row-max entry point, `RowMax::row_max(view)`, autotuned over
//!   the `row_max_split` kernel's configurations;
//! - [`bench`]: GPU time and bandwidth of every row-max variant against the reference;
//! - [`cli`]: the `rtriton` command line.
//!
//! The runtime's modules are re-exported under their old paths (`rtriton_host::launch`,
//! ...) so code written against the single host crate keeps compiling.

pub use rtriton_runtime::{HostError, cache, driver, error, launch};

pub mod bench;
pub mod cli;
pub mod ports;
pub mod provenance;
pub mod reference;
pub mod row_max;
pub mod validate;
