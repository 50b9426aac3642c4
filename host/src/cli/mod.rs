//! The `rtriton` CLI: one file per subcommand.

use std::process::ExitCode;

use clap::{Parser, Subcommand};

mod bench;
mod cache;
mod explain;
mod explain_code;
mod explain_ir;
pub mod kernels;
mod lint;
mod list;
pub mod named;
pub mod out;
mod ptx;
mod suites;
mod user;
mod validate;

pub use kernels::KernelSet;
pub use suites::{SuiteArgs, SuiteBackends};
pub use user::{App, main_with};

/// rtriton: a block-level GPU kernel language in Rust that mirrors Triton.
#[derive(Debug, Parser)]
#[command(name = "rtriton", version = crate::provenance::LONG_VERSION, about)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Lists the kernels the CLI knows, one per line: name, then parameters.
    List,
    /// Runs every row-max variant x the shape matrix x specialization on/off and compares
    /// each result bit for bit with the CUDA reference (GPU) or the CPU (interpreter).
    /// Exits with status 1 on any mismatch or error.
    Validate(validate::ValidateArgs),
    /// Times every row-max variant against the CUDA warp-shuffle reference on the GPU, in the
    /// same run (median of N launches after an L2 flush, GB/s, speed vs the reference, a
    /// device-to-device copy as yardstick); each kernel is checked bit for bit first.
    /// Exits 1 if a kernel is wrong, 2 without a GPU.
    Bench(Box<bench::BenchArgs>),
    /// Shows the on-disk PTX cache (folder, entries) or clears it.
    Cache(cache::CacheArgs),
    /// Explains what specialization does to a kernel for one launch's arguments: the key
    /// per argument, what folding removed, index widths, vector widths, lint findings,
    /// the overflow guard's verdict and the PTX diff. `--ir layouts` prints instead the
    /// kernel's IR with every value's layout and the conversions between layouts, as
    /// Triton prints TTGIR.
    Explain(explain::ExplainArgs),
    /// Runs the portability lint on a kernel (no launch arguments needed): patterns that
    /// break or slow down a port to Triton, each with the issue it comes from.
    Lint(lint::LintArgs),
    /// Prints the PTX of one specialization (arguments drive it as a launch would).
    Ptx(ptx::PtxArgs),
    /// Says what a diagnostic code (`error[RT0104]: ...`) means, from docs/diagnostics.md;
    /// `--list` lists every code.
    ExplainCode(explain_code::ExplainCodeArgs),
}

/// Parses the command line, runs the subcommand and maps errors to a non-zero status.
pub fn main() -> ExitCode {
    let cli = Cli::parse();
    // Only the commands that look kernels up by name build the set (a list of definitions,
    // no cases): `cache`, `validate` and `bench` start without it.
    let kernels = KernelSet::builtin;
    let result = match cli.command {
        Command::List => list::run(&kernels()),
        Command::Cache(a) => cache::run(&a),
        Command::Validate(args) => validate::run_cli(args),
        Command::Bench(a) => bench::run(&a),
        Command::Explain(a) => {
            let mut text = String::new();
            let r = explain::run(&a, &kernels(), &mut text);
            out::print(&text).and(r.map(ExitCode::from))
        }
        Command::Lint(a) => {
            let mut text = String::new();
            let r = lint::run(&a, &kernels(), &mut text);
            out::print(&text).and(r.map(ExitCode::from))
        }
        Command::Ptx(a) => ptx::run(&a, &kernels()),
        Command::ExplainCode(a) => explain_code::run(&a),
    };
    exit_status(result)
}

/// The process's status for a command's result: a closed stdout (`| head`) is a quiet
/// success; other errors print to stderr and give 1.
fn exit_status(result: anyhow::Result<ExitCode>) -> ExitCode {
    match result {
        Ok(code) => code,
        Err(e) if out::is_stdout_closed(&e) => ExitCode::SUCCESS,
        Err(e) => {
            use std::io::Write;
            // Not `eprintln!`, which panics when stderr is closed too.
            let _ = writeln!(std::io::stderr(), "{e:#}");
            ExitCode::FAILURE
        }
    }
}

/// What `--variant NAME` selects: row-max variants, and the entry point
/// (`row_max_entry`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Selection {
    pub variants: Vec<rtriton_kernels::RowMaxVariant>,
    pub entry: bool,
}

/// Row-max variants and the entry point by name (`--variant`), or an error listing the
/// known names.
pub fn parse_variants(names: &[String]) -> anyhow::Result<Selection> {
    use anyhow::Context;
    use rtriton_kernels::RowMaxVariant;

    use crate::row_max::ENTRY_NAME;
    let variants = names
        .iter()
        .filter(|n| n.as_str() != ENTRY_NAME)
        .map(|n| {
            RowMaxVariant::from_name(n).with_context(|| {
                let known: Vec<_> = RowMaxVariant::ALL.iter().map(|v| v.name()).chain([ENTRY_NAME]).collect();
                format!("unknown variant `{n}`; pick one of {}", known.join(", "))
            })
        })
        .collect::<anyhow::Result<_>>()?;
    Ok(Selection { variants, entry: names.iter().any(|n| n == ENTRY_NAME) })
}

/// Lint options from the `--deny` and `--allow RULE` flags shared by `lint` and `explain`.
pub fn lint_options(deny: bool, allow: &[String]) -> anyhow::Result<rtriton::lint::LintOptions> {
    use rtriton::lint::Rule;
    let allow = allow
        .iter()
        .map(|r| {
            Rule::from_code(r).ok_or_else(|| {
                let codes: Vec<&str> = Rule::ALL.iter().map(|r| r.code()).collect();
                anyhow::anyhow!("unknown lint rule `{r}`; the rules are: {}", codes.join(", "))
            })
        })
        .collect::<anyhow::Result<_>>()?;
    Ok(rtriton::lint::LintOptions { deny, allow })
}

/// Runs an `explain` or `lint` command line (`["rtriton", "explain", ...]`) and returns its exit
/// status and everything it prints, as the tutorial test does to check every command shown in
/// `docs/tutorial/`. Errors print as `main` prints them.
pub fn run_captured<I, T>(argv: I) -> (u8, String)
where
    I: IntoIterator<Item = T>,
    T: Into<std::ffi::OsString> + Clone,
{
    let cli = match Cli::try_parse_from(argv) {
        Ok(c) => c,
        Err(e) => return (2, e.to_string()),
    };
    let mut out = String::new();
    let result = match cli.command {
        Command::Explain(a) => explain::run(&a, &KernelSet::builtin(), &mut out),
        Command::Lint(a) => lint::run(&a, &KernelSet::builtin(), &mut out),
        // The other subcommands print as they go (or need a GPU); the tutorial runs
        // `explain` and `lint` only.
        _ => Err(anyhow::anyhow!("run_captured runs `explain` and `lint` only")),
    };
    match result {
        Ok(code) => (code, out),
        Err(e) => {
            out.push_str(&format!("{e:#}\n"));
            (1, out)
        }
    }
}
