//! The driver side of rtriton: launches through cudarc, caches, the CUDA reference runner
//! and the `rtriton` CLI. Builds and runs its non-GPU parts on machines with no CUDA.
//!
//! Code map:
//! - [`driver`]: the cudarc layer (device, buffers, modules, events);
//! - [`launch`]: `kernel[grid](args)` for DSL kernels: argument checks, specialization,
//!   compile, cache, launch;
//! - [`cache`]: the in-memory module cache and the on-disk PTX cache;
//! - [`reference`](mod@reference): the CUDA C row-max reference, compiled with NVRTC;
//! - [`validate`]: every row-max variant against the reference, on the GPU or the interpreter;
//! - [`cli`]: the `rtriton` command line.

pub mod cache;
pub mod cli;
pub mod driver;
pub mod error;
pub mod launch;
pub mod reference;
pub mod validate;

pub use error::HostError;
