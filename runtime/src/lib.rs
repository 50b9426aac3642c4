//! The generic rtriton runtime: what any crate needs to launch its own DSL kernels on a
//! GPU through cudarc. It knows no kernel family: the row-max application (`validate`,
//! `bench`, the CLI) lives in `rtriton-host` on top of it.
//!
//! Code map:
//! - [`driver`]: the cudarc layer (device, buffers, modules, events); checks that libcuda
//!   is present before touching it;
//! - [`launch`]: `kernel[grid](args)` for DSL kernels: argument checks, specialization,
//!   overflow guard, compile, cache, launch;
//! - [`cache`]: the compiled-kernel key and the on-disk PTX cache;
//! - [`autotune`]: `triton.autotune`: configurations timed on the first launch of a key,
//!   the winner kept in memory and on disk;
//! - [`timing`]: the L2 flush and time summaries `bench` and the autotuner share;
//! - [`error`]: [`HostError`], everything that can go wrong between a launch request and
//!   results back on the host.

pub mod autotune;
pub mod cache;
pub mod driver;
pub mod error;
pub mod launch;
pub mod timing;

pub use error::HostError;

#[cfg(test)]
mod tests {
    /// The runtime must stay usable without the row-max family: `rtriton-kernels` may be a
    /// dev-dependency (for unit tests) but never a normal one.
    #[test]
    fn runtime_does_not_depend_on_kernels() {
        let manifest = include_str!("../Cargo.toml");
        let deps = manifest
            .split("\n[")
            .find(|section| section.starts_with("dependencies]"))
            .expect("runtime/Cargo.toml has a [dependencies] section");
        assert!(!deps.contains("rtriton-kernels"), "runtime depends on rtriton-kernels:\n{deps}");
        assert!(!deps.contains("rtriton-host"), "runtime depends on rtriton-host:\n{deps}");
    }
}
