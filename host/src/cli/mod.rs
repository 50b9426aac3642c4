//! The `rtriton` CLI: one file per subcommand.

use std::process::ExitCode;

use clap::{Parser, Subcommand};

mod list;
mod ptx;

/// rtriton: a block-level GPU kernel language in Rust that mirrors Triton.
#[derive(Debug, Parser)]
#[command(name = "rtriton", version, about)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Lists the kernels the CLI knows, one per line: name, then parameters.
    List,
    /// Prints the PTX of one specialization (arguments drive it as a launch would).
    Ptx(ptx::PtxArgs),
}

/// Parses the command line, runs the subcommand and maps errors to a non-zero status.
pub fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::List => list::run(),
        Command::Ptx(a) => ptx::run(&a),
    };
    match result {
        Ok(code) => code,
        Err(e) => {
            eprintln!("{e:#}");
            ExitCode::FAILURE
        }
    }
}

/// The kernels the CLI knows (the row-max family).
pub fn known_kernels() -> Vec<rtriton::trace::KernelDef> {
    rtriton_kernels::RowMaxVariant::ALL.iter().map(|v| v.def()).collect()
}
