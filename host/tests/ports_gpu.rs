//! Every port's suites on the GPU (the same cases, references and rules the interpreter
//! and simulator run in CI; each case under both specializations, compared with the
//! reference and with the interpreter). Ignored without a GPU; on the GPU machine:
//! `cargo nextest run -p rtriton-host --test ports_gpu --run-ignored all`.

use rtriton_testing::{Backend, Failure, Failures};

/// Every case of every suite of port `name` on the GPU; panics with every failure.
fn check_port_on_the_gpu(name: &str) {
    let port = rtriton_host::ports::all()
        .into_iter()
        .find(|p| p.name == name)
        .unwrap_or_else(|| panic!("no port `{name}` in ports::all()"));
    let mut failures: Vec<Failure> = Vec::new();
    let mut cases = 0;
    for suite in (port.suites)() {
        for case in &suite.cases {
            cases += 1;
            if let Err(f) = suite.run(&case.name, Backend::Gpu) {
                failures.extend(f.0);
            }
        }
    }
    assert!(cases > 0, "port `{name}` has no cases");
    assert!(failures.is_empty(), "{}", Failures(failures));
}

#[test]
#[ignore = "needs a GPU"]
fn vector_add_on_the_gpu() {
    check_port_on_the_gpu("vector_add");
}

#[test]
#[ignore = "needs a GPU"]
fn softmax_on_the_gpu() {
    check_port_on_the_gpu("softmax");
}

#[test]
#[ignore = "needs a GPU"]
fn layer_norm_on_the_gpu() {
    check_port_on_the_gpu("layer_norm");
}

/// The persistent layer-norm backward's two launches chained on the GPU (the sum reads
/// the partial rows the GPU wrote), planned for a few SMs so that programs loop, against
/// dw and db summed over every row; the suites themselves run in `layer_norm_on_the_gpu`.
#[test]
#[ignore = "needs a GPU"]
fn layer_norm_persistent_chains_on_the_gpu() {
    use rtriton_host::ports::layer_norm::persistent::{CHAINS, check_every_chain};
    let checked = check_every_chain(Backend::Gpu).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(checked, 3 * CHAINS.len());
}

/// The chunked layer-norm backward's three launches chained on the GPU (the dx kernel
/// reads the row sums the GPU stored, the sum the partial rows), planned for a few SMs,
/// against dx, dw and db computed in f64.
#[test]
#[ignore = "needs a GPU"]
fn layer_norm_chunked_chains_on_the_gpu() {
    use rtriton_host::ports::layer_norm::chunked::{CHAINS, check_every_chain};
    let checked = check_every_chain(Backend::Gpu).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(checked, 3 * CHAINS.len());
}

#[test]
#[ignore = "needs a GPU"]
fn reduce_on_the_gpu() {
    check_port_on_the_gpu("reduce");
}

/// The split column reductions' two launches chained on the GPU (the combine reads the
/// partials the GPU wrote), every row of every split table against the direct reference.
#[test]
#[ignore = "needs a GPU"]
fn reduce_split_chains_on_the_gpu() {
    let checked = rtriton_host::ports::reduce_split::check_every_chain(Backend::Gpu).unwrap_or_else(|e| panic!("{e}"));
    assert!(checked >= 20 * 10, "only {checked} chains");
}

#[test]
#[ignore = "needs a GPU"]
fn epilogue_on_the_gpu() {
    check_port_on_the_gpu("epilogue");
}

/// Every matmul case, the large GPU-only ones included, on tensor cores.
#[test]
#[ignore = "needs a GPU"]
fn matmul_on_the_gpu() {
    check_port_on_the_gpu("matmul");
}

/// Every attention case (forward and backward kernels), the large GPU-only ones included.
#[test]
#[ignore = "needs a GPU"]
fn attention_on_the_gpu() {
    check_port_on_the_gpu("attention");
}

/// Each port has its GPU test above (a port added to `ports::all()` without one fails here).
#[test]
fn every_port_has_a_gpu_test() {
    let source = include_str!("ports_gpu.rs");
    for port in rtriton_host::ports::all() {
        let call = format!("check_port_on_the_gpu(\"{}\")", port.name);
        assert!(source.contains(&call), "no GPU test runs port `{}`: add one calling {call}", port.name);
    }
}
