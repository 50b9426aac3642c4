//! The ports' validation: for each port in `rtriton_kernels::ports`, its
//! `rtriton_testing::Suite`s: a shape matrix with non-power-of-2 sizes, masked tails,
//! strided and transposed views and special values, a CPU reference computed in f64 and
//! the port's tolerance. `rtriton validate --kernel NAME` runs them on the interpreter,
//! the simulator and the GPU (`cli/suites.rs`); the examples in `host/examples/` run the
//! cases each port names for them (`example.rs`).

use rtriton::trace::KernelDef;
use rtriton_testing::Suite;

pub mod attention;
pub mod attention_bwd;
pub mod bench;
mod chain;
pub mod dtype;
pub mod epilogue;
pub mod example;
pub mod layer_norm;
pub mod matmul;
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
    /// Its kernels, in the order its suites first use them: what `list`, `ptx`, `explain`
    /// and `lint` know it by, without building the suites' cases (which takes seconds).
    pub kernels: fn() -> Vec<KernelDef>,
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
    vec![vector_add::PORT, softmax::PORT, layer_norm::PORT, reduce::PORT, epilogue::PORT, matmul::PORT, attention::PORT]
}

/// The ports `names` select (`ports` selects all), each once however often it is named
/// (`--kernel vector_add --kernel vector_add` runs its cases once), or an error listing
/// the names.
pub fn select(names: &[String]) -> anyhow::Result<Vec<Port>> {
    let ports = all();
    let mut out: Vec<Port> = Vec::new();
    for n in names {
        if n == "ports" {
            return Ok(ports);
        }
        let port = ports.iter().find(|p| p.name == n.as_str()).copied().ok_or_else(|| {
            let known: Vec<&str> = ports.iter().map(|p| p.name).collect();
            anyhow::anyhow!("--kernel {n}: no port of that name; ports: {} (or `ports` for all)", known.join(", "))
        })?;
        if !out.iter().any(|p| p.name == port.name) {
            out.push(port);
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `kernels` is the cheap list the CLI reads instead of building the suites: it must
    /// name exactly the suites' kernels, in the order the suites first use them.
    #[test]
    fn every_port_lists_the_kernels_of_its_suites() {
        for port in all() {
            // Labels: the instances of a generic kernel share its name (`name<f16>`).
            let mut from_suites: Vec<String> = Vec::new();
            for suite in (port.suites)() {
                let label = suite.def.label().into_owned();
                if !from_suites.contains(&label) {
                    from_suites.push(label);
                }
            }
            let listed: Vec<String> = (port.kernels)().iter().map(|d| d.label().into_owned()).collect();
            assert_eq!(listed, from_suites, "port {}", port.name);
        }
    }

    #[test]
    fn a_port_named_twice_is_selected_once() {
        let names = |v: &[&str]| -> Vec<&'static str> {
            let args: Vec<String> = v.iter().map(|s| s.to_string()).collect();
            select(&args).unwrap().iter().map(|p| p.name).collect()
        };
        assert_eq!(names(&["vector_add", "vector_add"]), ["vector_add"]);
        assert_eq!(names(&["vector_add", "softmax", "vector_add"]), ["vector_add", "softmax"]);
        assert_eq!(names(&["vector_add", "ports"]).len(), all().len());
    }
}
