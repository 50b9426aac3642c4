//! The crate's own command line (`src/main.rs`, one call to `rtriton_host::cli::App`), run
//! as a user runs it.

use std::process::Command;

/// The binary under test: Cargo bakes its build path in; a nextest archive run on another
/// machine (the GPU recipe) moves it and says where in `NEXTEST_BIN_EXE_testing-user`.
fn bin() -> std::path::PathBuf {
    std::env::var_os("NEXTEST_BIN_EXE_testing-user")
        .or_else(|| std::env::var_os("NEXTEST_BIN_EXE_testing_user"))
        .map_or_else(|| env!("CARGO_BIN_EXE_testing-user").into(), Into::into)
}

/// Runs the binary; returns (status, stdout, stderr).
fn cli(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(bin()).args(args).output().expect("the binary runs");
    (
        out.status.code().expect("an exit status"),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

const ARGS: [&str; 8] = ["--arg", "n=1000", "--arg", "stride_x=1", "--arg", "stride_y=1", "--arg", "alpha=2.0"];

#[test]
fn list_shows_this_crates_kernels_only() {
    let (code, stdout, _) = cli(&["list"]);
    assert_eq!(code, 0);
    let names: Vec<&str> = stdout.lines().map(|l| l.split('(').next().unwrap()).collect();
    assert_eq!(names, ["scaled_add", "scaled_add_off_by_one"]);
    assert!(stdout.contains("alpha: f32, const BLOCK)"), "{stdout}");
}

#[test]
fn ptx_takes_arguments_and_constexprs_as_rtriton_does() {
    // 1024 elements per block over 128 threads: 8 consecutive elements per thread.
    let args = [
        "ptx",
        "scaled_add",
        "--const",
        "BLOCK=1024",
        "--arg",
        "n=4096",
        "--arg",
        "stride_x=1",
        "--arg",
        "stride_y=1",
        "--arg",
        "alpha=2.0",
    ];
    let (code, stdout, stderr) = cli(&args);
    assert_eq!(code, 0, "{stderr}");
    assert!(stdout.contains(".target sm_86") && stdout.contains(".visible .entry scaled_add("), "{stdout}");
    // The strides equal to 1 are specialized (folded) and n is a multiple of 16, so the
    // loads are contiguous with a mask constant in runs: vectorized.
    assert!(stdout.contains("ld.global.v4.f32"), "{stdout}");
    let (_, unspecialized, _) = cli(&[&args[..], &["--no-specialize"]].concat());
    assert!(!unspecialized.contains("ld.global.v4.f32"), "{unspecialized}");
}

#[test]
fn a_missing_constexpr_an_unknown_kernel_and_a_bad_argument_are_named() {
    let mut args = vec!["ptx", "scaled_add"];
    args.extend(ARGS);
    let (code, _, stderr) = cli(&args);
    assert_eq!(code, 1);
    assert_eq!(stderr.trim(), "kernel `scaled_add` needs a value for constexpr BLOCK: pass --const BLOCK=V");
    let (code, _, stderr) = cli(&["lint", "row_max", "--const", "BLOCK=128"]);
    assert_eq!(code, 1);
    assert_eq!(
        stderr.trim(),
        "unknown kernel `row_max`; known kernels: scaled_add, scaled_add_off_by_one (`list` shows their parameters)"
    );
    let (code, _, stderr) =
        cli(&["explain", "scaled_add", "--const", "BLOCK=128", "--arg", "n=--16", "--arg", "stride_x=1"]);
    assert_eq!(code, 1);
    assert!(stderr.contains("n=--16"), "{stderr}");
}

#[test]
fn explain_and_lint_run_on_a_users_kernel() {
    let mut args = vec!["explain", "scaled_add", "--const", "BLOCK=128"];
    args.extend(ARGS);
    let (code, stdout, stderr) = cli(&args);
    assert_eq!(code, 0, "{stdout}{stderr}");
    assert!(stdout.contains("stride_x") && stdout.contains("folded"), "{stdout}");
    let (code, stdout, _) = cli(&["lint", "scaled_add", "--const", "BLOCK=128"]);
    assert_eq!((code, stdout.trim()), (0, "scaled_add: no findings"));
    // `--case` fills the row-max family's arguments; a user's kernel has none.
    let (code, _, stderr) = cli(&["explain", "scaled_add", "--const", "BLOCK=128", "--case", "transposed"]);
    assert_eq!(code, 1);
    assert!(stderr.contains("--case fills the row-max family's arguments"), "{stderr}");
}

#[test]
fn validate_runs_the_suites_and_fails_on_the_planted_bug() {
    let (code, stdout, stderr) = cli(&["validate", "--backend", "cpu", "--kernel", "scaled_add"]);
    assert_eq!(code, 0, "{stdout}{stderr}");
    assert!(stdout.trim_end().ends_with("ok: 12 passed, 0 failed (2 back ends: interpreter, simulator)"), "{stdout}");
    let (code, _, stderr) =
        cli(&["validate", "--backend", "cpu", "--kernel", "scaled_add_off_by_one", "--case", "tail"]);
    assert_eq!(code, 1);
    // The report names the case, the back end, the program and the op's line.
    assert!(stderr.contains("scaled_add_off_by_one / tail_1000 on the interpreter:"), "{stderr}");
    assert!(stderr.contains("program (7, 0, 0)") && stderr.contains("src/lib.rs:"), "{stderr}");
    assert!(
        stderr.trim_end().ends_with("FAILED: 0 passed, 2 failed (2 back ends: interpreter, simulator)"),
        "{stderr}"
    );
    let (code, _, stderr) = cli(&["validate", "--kernel", "nope"]);
    assert_eq!(code, 1);
    assert!(stderr.contains("--kernel nope: no suite tests a kernel of that name"), "{stderr}");
}

/// On a GPU the same suites also run on the device.
#[test]
#[ignore = "needs a GPU"]
fn validate_on_a_gpu_adds_the_device() {
    let (code, stdout, stderr) = cli(&["validate", "--backend", "gpu", "--kernel", "scaled_add"]);
    assert_eq!(code, 0, "{stdout}{stderr}");
    assert!(
        stdout.trim_end().ends_with("ok: 18 passed, 0 failed (3 back ends: interpreter, simulator, gpu)"),
        "{stdout}"
    );
}

/// A user's command line (`App`) prints through the same writer as `rtriton`: a closed
/// pipe ends it quietly with status 0, a full disk is an error naming stdout (both
/// panicked in `print!`).
#[test]
fn output_errors_never_panic() {
    let (reader, writer) = std::io::pipe().expect("a pipe");
    drop(reader);
    let out = Command::new(bin()).arg("list").stdout(writer).output().expect("the binary runs");
    assert_eq!((out.status.code(), String::from_utf8_lossy(&out.stderr).as_ref()), (Some(0), ""));
    let Ok(full) = std::fs::OpenOptions::new().write(true).open("/dev/full") else {
        if cfg!(target_os = "linux") {
            panic!("/dev/full exists on Linux");
        }
        return;
    };
    let out = Command::new(bin()).arg("list").stdout(full).output().expect("the binary runs");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(stderr.starts_with("could not write the output to stdout: No space left on device"), "{stderr}");
}
