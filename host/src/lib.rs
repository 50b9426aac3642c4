//! The driver side of rtriton: launches through cudarc, caches, the CUDA reference runner
//! and the `rtriton` CLI. Builds and runs its non-GPU parts on machines with no CUDA.

pub mod cli;
