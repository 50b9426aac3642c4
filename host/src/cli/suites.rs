//! `validate` for a user's kernels: every case of every suite (`rtriton_testing::Suite`,
//! the same description the user's `#[test]`s use) on the interpreter, the simulator and,
//! when there is one, the GPU, each against the suite's CPU reference under its rule and
//! the non-interpreter back ends also against the interpreter, under Triton's
//! specialization and without it. Exit status 1 on any failure.

use std::fmt::Write;

use clap::ValueEnum;
use comfy_table::{Cell, Table, presets::UTF8_FULL_CONDENSED};
use rtriton_testing::{Backend, Failures, Suite};

/// Where the cases run.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum SuiteBackends {
    /// The interpreter and the simulator, and the GPU when one is found.
    Auto,
    /// The interpreter and the simulator only.
    Cpu,
    /// The interpreter, the simulator and the GPU; an error without a GPU.
    Gpu,
}

#[derive(Debug, clap::Args)]
pub struct SuiteArgs {
    /// Where to run.
    #[arg(long, value_enum, default_value_t = SuiteBackends::Auto)]
    pub backend: SuiteBackends,
    /// Only the suites of these kernels (repeatable; default: all).
    #[arg(long = "kernel", value_name = "NAME")]
    pub kernels: Vec<String>,
    /// Only the cases whose name contains this text (repeatable; default: all).
    #[arg(long = "case", value_name = "TEXT")]
    pub cases: Vec<String>,
}

/// One case on one back end (every policy of its suite).
struct Row {
    kernel: String,
    case: String,
    backend: Backend,
    failures: Option<Failures>,
    /// The case declares this back end unsupported (`Case::unsupported`): not run, shown
    /// as such and not counted as passed.
    not_run: bool,
}

/// Runs the selected suites, writing tables and failure reports to `out`; returns the
/// exit status. `gpu_found` says whether a GPU can be opened (`Gpu::probe`) (asked by the caller, so a
/// test can run this without one).
pub fn run(args: &SuiteArgs, suites: &[Suite], gpu_found: Result<(), String>, out: &mut String) -> anyhow::Result<u8> {
    anyhow::ensure!(
        !suites.is_empty(),
        "validate runs the test suites given to `App::suites`; this program gave none (see examples/user-cli)"
    );
    for k in &args.kernels {
        if !suites.iter().any(|s| s.def.name == k.as_str() || s.def.label() == k.as_str()) {
            let known: Vec<String> = suites.iter().map(|s| s.def.label().into_owned()).collect();
            anyhow::bail!("--kernel {k}: no suite tests a kernel of that name; suites: {}", known.join(", "));
        }
    }
    anyhow::ensure!(
        args.cases.iter().all(|t| !t.is_empty()),
        "--case \"\": empty text selects every case; give part of a case name or leave --case out"
    );
    let mut backends = vec![Backend::Interpreter, Backend::Simulator];
    match (args.backend, &gpu_found) {
        (SuiteBackends::Cpu, _) => {}
        (SuiteBackends::Auto, Ok(())) | (SuiteBackends::Gpu, Ok(())) => backends.push(Backend::Gpu),
        (SuiteBackends::Auto, Err(why)) => {
            let _ = writeln!(out, "no GPU ({why}): the interpreter and the simulator only");
        }
        (SuiteBackends::Gpu, Err(why)) => anyhow::bail!("--backend gpu: no GPU ({why})"),
    }
    let mut rows = Vec::new();
    for suite in suites
        .iter()
        .filter(|s| args.kernels.is_empty() || args.kernels.iter().any(|k| k == s.def.name || *k == s.def.label()))
    {
        for case in suite
            .cases
            .iter()
            .filter(|c| args.cases.is_empty() || args.cases.iter().any(|t| c.name.contains(t.as_str())))
        {
            for &backend in &backends {
                let not_run = case.unsupported_on(backend).is_some();
                let failures = suite.run(&case.name, backend).err();
                rows.push(Row {
                    kernel: suite.def.label().into_owned(),
                    case: case.name.clone(),
                    backend,
                    failures,
                    not_run,
                });
            }
        }
    }
    anyhow::ensure!(!rows.is_empty(), "no case name contains {:?}", args.cases);
    out.push_str(&table(&rows, &backends));
    out.push('\n');
    let mut failed = 0;
    for r in &rows {
        if let Some(f) = &r.failures {
            failed += 1;
            let _ = writeln!(out, "\n{} / {} on the {}:\n{f}", r.kernel, r.case, r.backend);
        }
    }
    let not_run = rows.iter().filter(|r| r.not_run && r.failures.is_none()).count();
    let not_run_text = if not_run == 0 {
        String::new()
    } else {
        format!(", {not_run} not run (cases their suites declare unsupported on that back end)")
    };
    let _ = writeln!(
        out,
        "{}: {} passed, {failed} failed{not_run_text} ({} back ends: {})",
        if failed == 0 { "ok" } else { "FAILED" },
        rows.len() - failed - not_run,
        backends.len(),
        backends.iter().map(|b| b.to_string()).collect::<Vec<_>>().join(", ")
    );
    Ok(if failed == 0 { 0 } else { 1 })
}

/// One line per kernel and case, one column per back end.
fn table(rows: &[Row], backends: &[Backend]) -> String {
    let mut t = Table::new();
    let mut header = vec!["kernel".to_string(), "case".to_string()];
    header.extend(backends.iter().map(|b| b.to_string()));
    t.load_preset(UTF8_FULL_CONDENSED).set_header(header);
    for line in rows.chunks(backends.len()) {
        let mut cells = vec![Cell::new(&line[0].kernel), Cell::new(&line[0].case)];
        cells.extend(line.iter().map(|r| {
            Cell::new(if r.failures.is_some() {
                "FAILED"
            } else if r.not_run {
                "not run"
            } else {
                "ok"
            })
        }));
        t.add_row(cells);
    }
    t.to_string()
}
