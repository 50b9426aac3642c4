//! The ports' validation: for each port in `rtriton_kernels::ports`, its
//! `rtriton_testing::Suite`s: a shape matrix with non-power-of-2 sizes, masked tails,
//! strided and transposed views and special values, a CPU reference computed in f64 and
//! the port's tolerance. `rtriton validate --kernel NAME` runs them on the interpreter,
//! the simulator and the GPU (`cli/suites.rs`); the examples in `host/examples/` run the
//! cases each port names for them (`example.rs`).

use rtriton_testing::Suite;

pub mod bench;
mod chain;
pub mod dtype;
pub mod epilogue;
pub mod example;
pub mod layer_norm;

pub mod reduce;
pub mod reduce_split;
pub mod softmax;
pub mod vector_add;

pub use bench::BenchPoint;

/// One ported kernel family.
#[derive(Clone, Copy, Debug)]
pub struct Port {
    /// What `--kernel` selects it by.
    pub name: &'static str,
    /// One line: the Triton original and what the port covers.
    pub about: &'static str,
    /// Its suites (one per kernel and dtype).
    pub suites: fn() -> Vec<Suite>,
    /// What `rtriton bench --kernel` measures of it (`bench/peers/tutorial_peers.py`
    /// measures torch and Triton on the same points).
    pub bench: fn() -> Vec<BenchPoint>,
    /// The cases its example (`host/examples/NAME.rs`) runs.
    pub example: fn() -> Vec<example::ExampleCase>,
}

/// Every port, in the order `validate` runs them.
pub fn all() -> Vec<Port> {
    vec![vector_add::PORT, softmax::PORT, layer_norm::PORT, reduce::PORT, epilogue::PORT]
}

/// The ports `names` select (`ports` selects all), or an error listing the names.
pub fn select(names: &[String]) -> anyhow::Result<Vec<Port>> {
    let ports = all();
    if names.iter().any(|n| n == "ports") {
        return Ok(ports);
    }
    names
        .iter()
        .map(|n| {
            ports.iter().find(|p| p.name == n.as_str()).copied().ok_or_else(|| {
                let known: Vec<&str> = ports.iter().map(|p| p.name).collect();
                anyhow::anyhow!("--kernel {n}: no port of that name; ports: {} (or `ports` for all)", known.join(", "))
            })
        })
        .collect()
}
