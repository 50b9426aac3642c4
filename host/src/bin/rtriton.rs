//! The `rtriton` command line.

fn main() -> std::process::ExitCode {
    rtriton_host::cli::main()
}
