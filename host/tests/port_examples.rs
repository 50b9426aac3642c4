//! Each port has its example, `host/examples/NAME.rs`, whose `main` runs exactly the port's
//! `example()` cases (which `ports::example`'s unit test runs on the interpreter), and each
//! example is a port's: so the test of the examples covers every example there is.

use std::path::Path;

#[test]
fn every_port_has_an_example_that_runs_its_example_cases_and_no_example_is_left_out() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples");
    let ports = rtriton_host::ports::all();
    for port in &ports {
        let file = dir.join(format!("{}.rs", port.name));
        let text = std::fs::read_to_string(&file)
            .unwrap_or_else(|e| panic!("port `{}` has no example {}: {e}", port.name, file.display()));
        let call = format!("rtriton_host::ports::example::main(rtriton_host::ports::{}::example())", port.name);
        assert!(text.contains(&call), "{} does not run `{call}`", file.display());
    }
    let mut examples = 0;
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|e| e == "rs") {
            let name = path.file_stem().unwrap().to_string_lossy().to_string();
            assert!(ports.iter().any(|p| p.name == name), "example {} is no port's (ports::all())", path.display());
            examples += 1;
        }
    }
    assert_eq!(examples, ports.len());
}
