//! What every port's example (`cargo run --release --example NAME`) does: run one case of
//! its suite on the GPU when there is one, else on the interpreter (saying so), check it
//! against the CPU reference under the suite's rule, and print what happened.

use std::process::ExitCode;

use rtriton_testing::{Backend, Suite};

/// Runs case `case` of `suite` and prints the outcome; status 1 if it does not match.
pub fn run(suite: &Suite, case: &str) -> ExitCode {
    let backend = match crate::cli::suites_gpu_found() {
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
    let Some(c) = suite.find(case) else {
        eprintln!("the suite of `{}` has no case `{case}`", suite.def.name);
        return ExitCode::FAILURE;
    };
    let shapes: Vec<String> =
        c.tensors().map(|t| format!("{} {:?} strides {:?}", t.name, t.view.shape, t.view.strides)).collect();
    println!("kernel `{}`, case `{case}`: {}", suite.def.name, shapes.join(", "));
    if backend == Backend::Gpu {
        println!("(rtriton's PTX targets sm_86 and is JIT-compiled by the driver for this GPU)");
    }
    match suite.run(case, backend) {
        Ok(()) => {
            println!(
                "ran on the {backend} with specialization on and off; every output matches the CPU reference ({})",
                suite.rule
            );
            ExitCode::SUCCESS
        }
        Err(f) => {
            eprintln!("{f}");
            ExitCode::FAILURE
        }
    }
}
