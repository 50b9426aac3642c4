//! What every port's example (`cargo run --release --example NAME [-- --dtype D]`) does:
//! run the port's example cases of one dtype on the GPU when there is one, else on the
//! interpreter (saying so), check each against the CPU reference under its suite's rule,
//! and print what happened. The cases are the port's [`super::Port::example`], so a test
//! runs every example's cases, in every dtype, on the interpreter
//! (`every_ports_example_passes_on_the_interpreter`).

use std::fmt::Write;
use std::process::ExitCode;

use rtriton_testing::{Backend, Suite};

/// One case an example runs: the dtype it is in (what `--dtype` selects), a suite and the
/// name of one of its cases.
#[derive(Clone, Debug)]
pub struct ExampleCase {
    pub dtype: &'static str,
    pub suite: Suite,
    pub case: &'static str,
    /// What the launch computes, printed before it (empty: nothing printed).
    pub what: &'static str,
}

impl ExampleCase {
    pub fn new(dtype: &'static str, suite: Suite, case: &'static str) -> ExampleCase {
        ExampleCase { dtype, suite, case, what: "" }
    }

    /// The same case, saying first what it computes (an example of several steps).
    pub fn saying(self, what: &'static str) -> ExampleCase {
        ExampleCase { what, ..self }
    }
}

/// An example's `main`: `--dtype D` (or `--dtype=D`) picks the cases of dtype `D`, the
/// first case's dtype by default; then [`run`]. Status 2 for a bad command line.
pub fn main(cases: Vec<ExampleCase>) -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match select(cases, &args) {
        Ok(cases) => run(&cases),
        Err(message) => {
            eprintln!("{message}");
            ExitCode::from(2)
        }
    }
}

/// The cases of the dtype `args` asks for, or what is wrong with `args`.
pub fn select(cases: Vec<ExampleCase>, args: &[String]) -> Result<Vec<ExampleCase>, String> {
    let mut dtypes: Vec<&'static str> = cases.iter().map(|c| c.dtype).collect();
    dtypes.dedup();
    let usage = format!("usage: [--dtype {}]", dtypes.join("|"));
    let dtype = match args {
        [] => dtypes.first().copied().ok_or("this example has no cases")?,
        [flag, d] if flag == "--dtype" => d.as_str(),
        [flag] if flag.starts_with("--dtype=") => &flag["--dtype=".len()..],
        _ => return Err(usage),
    };
    let chosen: Vec<ExampleCase> = cases.iter().filter(|c| c.dtype == dtype).cloned().collect();
    if chosen.is_empty() {
        return Err(format!("--dtype {dtype}: this example runs in {}; give one of those", dtypes.join(", ")));
    }
    Ok(chosen)
}

/// Runs `cases` on the GPU when there is one, else on the interpreter, printing what it
/// did; status 1 if any does not match its reference.
pub fn run(cases: &[ExampleCase]) -> ExitCode {
    let backend = match rtriton_runtime::driver::Gpu::probe() {
        Ok(Ok(())) => Backend::Gpu,
        Ok(Err(why)) => {
            println!("no GPU ({why}): running on the interpreter instead");
            Backend::Interpreter
        }
        Err(e) => {
            eprintln!("the GPU could not be opened: {e:#}");
            return ExitCode::FAILURE;
        }
    };
    if backend == Backend::Gpu {
        println!("(rtriton's PTX targets sm_86 and is JIT-compiled by the driver for this GPU)");
    }
    let mut out = String::new();
    let ok = run_on(cases, backend, &mut out);
    print!("{out}");
    if ok { ExitCode::SUCCESS } else { ExitCode::FAILURE }
}

/// Runs `cases` on `backend`, writing a line per case (and each failure's report) to
/// `out`; whether every case matched.
pub fn run_on(cases: &[ExampleCase], backend: Backend, out: &mut String) -> bool {
    let mut ok = true;
    for ExampleCase { suite, case, what, .. } in cases {
        if !what.is_empty() {
            let _ = writeln!(out, "\n{what}");
        }
        ok &= run_case(suite, case, backend, out);
    }
    ok
}

fn run_case(suite: &Suite, case: &str, backend: Backend, out: &mut String) -> bool {
    let Some(c) = suite.find(case) else {
        let _ = writeln!(out, "the suite of `{}` has no case `{case}`", suite.def.name);
        return false;
    };
    let shapes: Vec<String> = c
        .tensors()
        .map(|t| format!("{} {} {:?} strides {:?}", t.name, t.data.dtype(), t.view.shape, t.view.strides))
        .collect();
    let _ = writeln!(out, "kernel `{}`, case `{case}`: {}", suite.def.name, shapes.join(", "));
    match suite.run(case, backend) {
        Ok(()) => {
            let _ = writeln!(
                out,
                "  ran on the {backend} with specialization on and off; every output matches the CPU reference ({})",
                suite.rule
            );
            true
        }
        Err(f) => {
            let _ = writeln!(out, "{f}");
            false
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The examples run in CI without a GPU. Each example's `main` runs some of
    /// `(port.example)()`; this runs all of them, every dtype, on the interpreter.
    #[test]
    fn every_ports_example_passes_on_the_interpreter() {
        for port in super::super::all() {
            let cases = (port.example)();
            assert!(!cases.is_empty(), "port `{}` gives its example no case", port.name);
            let mut out = String::new();
            assert!(run_on(&cases, Backend::Interpreter, &mut out), "the example of `{}` failed:\n{out}", port.name);
            assert_eq!(out.matches("every output matches the CPU reference").count(), cases.len(), "{out}");
        }
    }

    #[test]
    fn a_case_the_suite_lacks_is_reported_not_run() {
        let cases = [ExampleCase::new("f32", super::super::vector_add::suite(), "no_such_case")];
        let mut out = String::new();
        assert!(!run_on(&cases, Backend::Interpreter, &mut out));
        assert!(out.contains("the suite of `add_kernel` has no case `no_such_case`"), "{out}");
    }

    /// The arguments, then the kernels chosen or the error.
    type Row = (&'static [&'static str], Result<&'static [&'static str], &'static str>);

    #[test]
    fn dtype_selects_the_cases_of_one_dtype() {
        let args = |a: &[&str]| a.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        let table: [Row; 5] = [
            (&[], Ok(&["add_kernel"])),
            (&["--dtype", "bf16"], Ok(&["add_kernel_bf16"])),
            (&["--dtype=f16"], Ok(&["add_kernel_f16"])),
            (&["--dtype", "i8"], Err("--dtype i8: this example runs in f32, f16, bf16; give one of those")),
            (&["--size", "3"], Err("usage: [--dtype f32|f16|bf16]")),
        ];
        for (a, want) in table {
            let got = select(super::super::vector_add::example(), &args(a))
                .map(|cases| cases.iter().map(|c| c.suite.def.name).collect::<Vec<_>>());
            assert_eq!(got, want.map(|k| k.to_vec()).map_err(str::to_string), "{a:?}");
        }
    }
}
