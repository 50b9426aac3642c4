//! Shared by the CLI test binaries.

use std::path::PathBuf;
use std::process::Command;

/// The `rtriton` binary under test. Cargo bakes its build path in at compile time; a
/// nextest archive run on another machine (the GPU recipe in `gpu-runs.md`) moves it, and
/// nextest then says where it is in `NEXTEST_BIN_EXE_rtriton`.
pub fn rtriton_bin() -> PathBuf {
    std::env::var_os("NEXTEST_BIN_EXE_rtriton")
        .map_or_else(|| PathBuf::from(env!("CARGO_BIN_EXE_rtriton")), PathBuf::from)
}

/// Runs `rtriton args...` and returns its exit status, stdout and stderr.
pub fn rtriton(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(rtriton_bin()).args(args).output().expect("the binary runs");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into(),
        String::from_utf8_lossy(&out.stderr).into(),
    )
}
