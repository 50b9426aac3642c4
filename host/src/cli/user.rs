//! A command line for a user's own kernels, in the convention of `criterion_main!`: the
//! user's crate has a binary whose `main` is
//!
//! ```no_run
//! # use rtriton::prelude::*;
//! # rtriton::kernel! { pub fn my_kernel(x_ptr: Ptr<f32>; const BLOCK: usize) { let _ = x_ptr; } }
//! fn main() -> std::process::ExitCode {
//!     rtriton_host::cli::main_with(&[my_kernel])
//! }
//! ```
//!
//! and gets `list`, `ptx`, `explain` and `lint` over those kernels with the same flags as
//! `rtriton` (`--arg NAME=V`, `--const NAME=V`, ...), and, with [`App::suites`], a
//! `validate` that runs the user's `rtriton_testing::Suite`s on every back end. See
//! `examples/user-cli`.

use std::process::ExitCode;

use clap::{CommandFactory, FromArgMatches, Parser, Subcommand};
use rtriton::trace::KernelDef;
use rtriton_testing::Suite;

use super::kernels::KernelSet;
use super::{explain, lint, ptx, suites};

/// The subcommands a user's program gets.
#[derive(Debug, Parser)]
#[command(version = crate::provenance::LONG_VERSION)]
struct UserCli {
    #[command(subcommand)]
    command: UserCommand,
}

#[derive(Debug, Subcommand)]
enum UserCommand {
    /// Lists this program's kernels, one per line: name, then parameters.
    List,
    /// Prints the PTX of one specialization (arguments drive it as a launch would; every
    /// constexpr must be given with --const).
    Ptx(ptx::PtxArgs),
    /// Explains what specialization does to a kernel for one launch's arguments; `--ir
    /// layouts` prints its IR with every value's layout instead.
    Explain(explain::ExplainArgs),
    /// Runs the portability lint on a kernel.
    Lint(lint::LintArgs),
    /// Runs this program's test suites on the interpreter, the simulator and the GPU (when
    /// there is one), against their CPU references. Exits 1 on any failure.
    Validate(suites::SuiteArgs),
}

/// A user's command line: kernels for `list`/`ptx`/`explain`/`lint`, suites for `validate`.
#[derive(Debug)]
pub struct App {
    kernels: Vec<fn() -> KernelDef>,
    suites: Vec<fn() -> Suite>,
}

impl App {
    /// A command line over `kernels` (the functions `kernel!` generates).
    pub fn new(kernels: &[fn() -> KernelDef]) -> App {
        App { kernels: kernels.to_vec(), suites: Vec::new() }
    }

    /// The suites `validate` runs (functions building them, as `backend_tests!` takes).
    pub fn suites(mut self, suites: &[fn() -> Suite]) -> App {
        self.suites = suites.to_vec();
        self
    }

    /// Parses the process's command line and runs it; errors print to stderr and give
    /// status 1 (2 for a command-line usage error, as clap does).
    pub fn main(self) -> ExitCode {
        let name = std::env::args().next().map_or("kernels".to_string(), |a| {
            std::path::Path::new(&a).file_name().map_or(a.clone(), |f| f.to_string_lossy().into_owned())
        });
        let (code, out) = self.run_captured_as(&name, std::env::args_os());
        if code == 0 {
            return super::exit_status(super::out::print(&out).map(|()| ExitCode::SUCCESS));
        }
        use std::io::Write;
        let _ = write!(std::io::stderr(), "{out}");
        ExitCode::from(code)
    }

    /// Runs one command line (`argv[0]` first) and returns its exit status and output.
    pub fn run_captured<I, T>(&self, argv: I) -> (u8, String)
    where
        I: IntoIterator<Item = T>,
        T: Into<std::ffi::OsString> + Clone,
    {
        self.run_captured_as("kernels", argv)
    }

    fn run_captured_as<I, T>(&self, name: &str, argv: I) -> (u8, String)
    where
        I: IntoIterator<Item = T>,
        T: Into<std::ffi::OsString> + Clone,
    {
        let command = UserCli::command().bin_name(name.to_string());
        let cli = match command.try_get_matches_from(argv).and_then(|m| UserCli::from_arg_matches(&m)) {
            Ok(c) => c,
            Err(e) => return (if e.use_stderr() { 2 } else { 0 }, e.render().to_string()),
        };
        let mut out = String::new();
        match self.dispatch(cli.command, &mut out) {
            Ok(code) => (code, out),
            Err(e) => {
                out.push_str(&format!("{e:#}\n"));
                (1, out)
            }
        }
    }

    fn dispatch(&self, command: UserCommand, out: &mut String) -> anyhow::Result<u8> {
        let kernels = KernelSet::user(&self.kernels)?;
        match command {
            UserCommand::List => {
                for def in kernels.defs() {
                    out.push_str(&format!("{}\n", def.signature()));
                }
                Ok(0)
            }
            UserCommand::Ptx(a) => ptx::render(&a, &kernels, out),
            UserCommand::Explain(a) => explain::run(&a, &kernels, out),
            UserCommand::Lint(a) => lint::run(&a, &kernels, out),
            UserCommand::Validate(a) => {
                let suites: Vec<Suite> = self.suites.iter().map(|s| s()).collect();
                suites::run(&a, &suites, rtriton_runtime::driver::Gpu::probe()?, out)
            }
        }
    }
}

/// [`App::new`]`(kernels).main()`: a command line over a user's kernels.
pub fn main_with(kernels: &[fn() -> KernelDef]) -> ExitCode {
    App::new(kernels).main()
}
