//! The command line's answers to hostile inputs, run as a user runs the binary: output
//! errors (a closed pipe, a full disk), the PTX cache folder, parsers whose numbers
//! overflow, flags a mode would ignore, and `explain-code`. `docs/reliability.md` lists
//! these rows.

mod common;

use std::process::{Command, Stdio};

use common::{rtriton, rtriton_bin};

/// Runs `rtriton args` with stdout a pipe whose reader is already gone.
fn with_closed_stdout(args: &[&str], env: &[(&str, &std::path::Path)]) -> (i32, String) {
    let (reader, writer) = std::io::pipe().expect("a pipe");
    drop(reader);
    let out = Command::new(rtriton_bin())
        .args(args)
        .envs(env.iter().map(|(k, v)| (*k, *v)))
        .stdout(writer)
        .stderr(Stdio::piped())
        .output()
        .expect("the binary runs");
    (out.status.code().unwrap_or(-1), String::from_utf8_lossy(&out.stderr).into())
}

/// Runs `rtriton args` with stdout `/dev/full` (every write fails: no space left).
fn with_full_stdout(args: &[&str], env: &[(&str, &std::path::Path)]) -> Option<(i32, String)> {
    let full = std::fs::OpenOptions::new().write(true).open("/dev/full").ok()?;
    let out = Command::new(rtriton_bin())
        .args(args)
        .envs(env.iter().map(|(k, v)| (*k, *v)))
        .stdout(full)
        .stderr(Stdio::piped())
        .output()
        .expect("the binary runs");
    Some((out.status.code().unwrap_or(-1), String::from_utf8_lossy(&out.stderr).into()))
}

fn cache_env(dir: &std::path::Path) -> [(&'static str, &std::path::Path); 1] {
    [("RTRITON_CACHE_DIR", dir)]
}

/// `rtriton list | head -1` and the others: the reader going away ends the command
/// quietly with status 0 (it panicked: "failed printing to stdout: Broken pipe").
#[test]
fn a_closed_pipe_ends_the_command_quietly_with_status_0() {
    let dir = tempfile::tempdir().unwrap();
    let env = cache_env(dir.path());
    for args in [
        &["list"][..],
        &[
            "ptx",
            "row_max",
            "--arg",
            "n_rows=4",
            "--arg",
            "n_cols=16",
            "--arg",
            "stride_row=16",
            "--arg",
            "stride_col=1",
        ],
        &["cache"],
        &["explain-code", "RT0104"],
        &["lint", "row_max"],
    ] {
        let (code, stderr) = with_closed_stdout(args, &env);
        assert_eq!((code, stderr.as_str()), (0, ""), "{args:?}");
    }
}

/// `> /dev/full`: an error naming stdout, status 1, no panic.
#[test]
fn a_full_disk_is_an_error_naming_stdout() {
    let dir = tempfile::tempdir().unwrap();
    let env = cache_env(dir.path());
    for args in [
        &["list"][..],
        &[
            "ptx",
            "row_max",
            "--arg",
            "n_rows=4",
            "--arg",
            "n_cols=16",
            "--arg",
            "stride_row=16",
            "--arg",
            "stride_col=1",
        ],
        &["cache"],
        &["validate", "--kernel", "vector_add", "--backend", "interp", "--case", "nosuch-case-name"],
        &["explain-code", "RT0104"],
    ] {
        let Some((code, stderr)) = with_full_stdout(args, &env) else {
            if cfg!(target_os = "linux") {
                panic!("/dev/full exists on Linux");
            }
            return;
        };
        assert_eq!(code, 1, "{args:?}: {stderr}");
        assert!(!stderr.contains("panicked"), "{args:?}: {stderr}");
        assert!(
            stderr.starts_with("could not write the output to stdout: No space left on device"),
            "{args:?}: {stderr}"
        );
    }
}

/// `cache --clear` removes rtriton's entries only; foreign files and a foreign folder
/// stay and are listed (it deleted the whole `ptx` folder).
#[test]
fn cache_clear_leaves_what_rtriton_did_not_write_and_says_so() {
    let dir = tempfile::tempdir().unwrap();
    let env = cache_env(dir.path());
    let ptx = dir.path().join("ptx");
    std::fs::create_dir_all(ptx.join("photos")).unwrap();
    std::fs::write(ptx.join("photos").join("cat.jpg"), "meow").unwrap();
    std::fs::write(ptx.join("thesis.tex"), "chapter 1").unwrap();
    // An entry as the runtime writes it: the header line, then the body.
    std::fs::write(ptx.join("row_max-00000000000000aa.json"), "rtriton-ptx-cache v1 2 0000\n{}").unwrap();
    let out = Command::new(rtriton_bin()).args(["cache", "--clear"]).envs(env).output().unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{stdout}");
    assert!(stdout.contains("removed 1 entries\nleft 2 files that rtriton did not write"), "{stdout}");
    assert!(
        stdout.contains("  photos  (not a regular file)\n  thesis.tex  (not named as an rtriton entry)\n"),
        "{stdout}"
    );
    assert_eq!(std::fs::read_to_string(ptx.join("thesis.tex")).unwrap(), "chapter 1");
    assert!(ptx.join("photos").join("cat.jpg").exists());
    assert!(!ptx.join("row_max-00000000000000aa.json").exists());
}

/// `RTRITON_CACHE_DIR` naming a file, or a folder that cannot be read: an error and
/// status 1 (it reported "0 entries" and exited 0).
#[test]
fn an_unusable_cache_folder_is_an_error() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("a-file");
    std::fs::write(&file, "x").unwrap();
    for args in [&["cache"][..], &["cache", "--clear"]] {
        let out = Command::new(rtriton_bin()).args(args).envs(cache_env(&file)).output().unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{stderr}");
        assert_eq!(
            stderr,
            format!(
                "rtriton cache: cannot read the cache (set RTRITON_CACHE_DIR to a folder rtriton can read): ptx cache \
                 at {}: this is a file, not a folder; set RTRITON_CACHE_DIR to a writable folder\n",
                file.display()
            )
        );
        assert!(out.stdout.is_empty());
    }
}

/// Shapes whose element or byte counts overflow are refused by the parser, before any
/// allocation (they panicked with "capacity overflow" or a multiply overflow).
#[test]
fn bench_shapes_past_one_allocation_are_refused_before_anything_runs() {
    for shape in ["3037000500x3037000500", "2305843009213693952x4", "1x18446744073709551615"] {
        let (code, stdout, stderr) = rtriton(&["bench", "--shape", shape, "--no-progress"]);
        assert_eq!(code, 1, "{shape}: {stdout}{stderr}");
        assert!(stderr.starts_with(&format!("--shape {shape}: the buffer of {shape} holds ")), "{stderr}");
        assert!(stderr.contains("more than one allocation can take (9223372036854775807 bytes)"), "{stderr}");
        assert!(!stderr.contains("panicked"), "{stderr}");
    }
    let (code, _, stderr) = rtriton(&["bench", "--shape", "4x4:offset=00x", "--no-progress"]);
    assert_eq!(code, 1);
    assert!(stderr.starts_with("--shape 4x4:offset=00x: the offset K `00x` is not a whole number; "), "{stderr}");
}

/// `--programs` past u32 says "too large" with the maximum; `--point` that matches nothing
/// names the value and the labels it could match.
#[test]
fn programs_and_points_name_the_value_and_the_rule() {
    let (code, _, stderr) = rtriton(&["bench", "--kernel", "vector_add", "--programs", "4294967296"]);
    assert_eq!(code, 1);
    assert!(
        stderr.starts_with(
            "--programs `4294967296`: `4294967296` is too large; a grid axis takes at most 4294967295 programs"
        ),
        "{stderr}"
    );
    let (code, _, stderr) = rtriton(&["bench", "--kernel", "vector_add", "--point", "nomatch"]);
    assert_eq!(code, 1);
    assert!(
        stderr.starts_with(
            "--point \"nomatch\": no point's label contains this text; give part of one of the labels: add f32 "
        ),
        "{stderr}"
    );
}

/// Flags a mode would ignore are refused, naming the flag.
#[test]
fn flags_a_mode_ignores_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let f = dir.path().join("r.json");
    std::fs::write(&f, "{}").unwrap();
    let f = f.to_str().unwrap();
    for (args, flag) in [
        (&["bench", "--load", f, "--shape", "4x4"][..], "--shape <SHAPE>"),
        (&["bench", "--load", f, "--variant", "row_max"], "--variant <NAME>"),
        (&["bench", "--load", f, "--iters", "3"], "--iters <ITERS>"),
        (&["validate", "--kernel", "vector_add", "--spec", "off"], "--spec <SPEC>"),
        (&["validate", "--kernel", "vector_add", "--exact-case", "nosuch"], "--exact-case <NAME>"),
        (&["validate", "--kernel", "vector_add", "--verbose"], "--verbose"),
    ] {
        let (code, _, stderr) = rtriton(args);
        assert_eq!(code, 2, "{args:?}: {stderr}");
        assert!(stderr.contains("cannot be used with") && stderr.contains(flag), "{args:?}: {stderr}");
    }
}

/// A loaded report must say what a measurement could: rows, shapes that match their
/// names, positive finite times (`"rows": []` gave "ok"; negative medians gave "-134 GB/s").
#[test]
fn a_loaded_report_is_checked() {
    let dir = tempfile::tempdir().unwrap();
    let f = dir.path().join("r.json");
    let row = |median: &str, n_rows: u64| {
        format!(
            r#"{{"shape": "4x4", "n_rows": {n_rows}, "n_cols": 4, "stride_row": 4, "stride_col": 1, "offset": 0,
            "kernel": "row_max", "kind": "variant", "config": "", "spec_key": "", "bytes": 64,
            "status": {{"status": "timed", "summary": {{"samples": 3, "median_ms": {median}, "p10_ms": {median},
            "p90_ms": {median}, "min_ms": {median}, "max_ms": {median}}}}},
            "gb_per_s": null, "speed_vs_reference": null, "fraction_of_copy_bandwidth": null}}"#
        )
    };
    let report = |rows: &str| {
        format!(r#"{{"build": {{}}, "device": "d", "warmup": 1, "iters": 3, "flush_bytes": 0, "rows": [{rows}]}}"#)
    };
    for (rows, says) in [
        (String::new(), "the report has no rows"),
        (row("-0.5", 4), "row 0 (row_max on 4x4): median_ms is -0.5; a time must be a positive, finite number"),
        (row("0", 4), "median_ms is 0; a time must be"),
        (
            row("0.5", 5),
            "shape `4x4` means (rows, cols, stride_row, stride_col, offset) = (4, 4, 4, 1, 0), but the row says (5, 4, 4, 1, 0)",
        ),
    ] {
        std::fs::write(&f, report(&rows)).unwrap();
        let (code, stdout, stderr) = rtriton(&["bench", "--load", f.to_str().unwrap()]);
        assert_eq!(code, 1, "{says}: {stdout}");
        assert!(stderr.starts_with(&format!("--load {}: ", f.display())) && stderr.contains(says), "{stderr}");
    }
    std::fs::write(&f, report(&row("0.5", 4))).unwrap();
    let (code, stdout, stderr) = rtriton(&["bench", "--load", f.to_str().unwrap()]);
    assert_eq!(code, 0, "{stderr}");
    assert!(stdout.contains("ok: 1 kernels checked"), "{stdout}");
}

/// `explain-code` prints the code's row of docs/diagnostics.md from any folder; an
/// unknown code is an error saying how to list them.
#[test]
fn explain_code_works_from_any_folder() {
    let out = Command::new(rtriton_bin()).args(["explain-code", "RT0104"]).current_dir("/").output().unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success());
    assert!(stdout.starts_with("RT0104 (TraceMathDType), from the trace stage:\n"), "{stdout}");
    let (code, _, stderr) = rtriton(&["explain-code", "RT9999"]);
    assert_eq!(code, 1);
    assert!(stderr.contains("`rtriton explain-code --list` lists every code"), "{stderr}");
    let (code, stdout, _) = rtriton(&["explain-code", "--list"]);
    assert_eq!(code, 0);
    assert!(stdout.lines().any(|l| l == "RT0802  a block needs more registers per thread than the budget"), "{stdout}");
}

/// A constexpr refused for its type is the only error: the body traced on with 0 and
/// added "arange(0, 0) has 0 elements", which blamed the block size for the refusal.
#[test]
fn a_refused_constexpr_is_not_followed_by_a_misleading_arange_error() {
    let args = ["--arg", "n_rows=4", "--arg", "n_cols=16", "--arg", "stride_row=16", "--arg", "stride_col=1"];
    let mut argv = vec!["ptx", "row_max", "--const", "BLOCK=-4"];
    argv.extend(args);
    let (code, stdout, stderr) = rtriton(&argv);
    assert_eq!((code, stdout.as_str()), (1, ""));
    assert!(stderr.contains("constexpr `BLOCK` = -4 does not fit its declared type usize"), "{stderr}");
    assert!(!stderr.contains("arange(0, 0)"), "{stderr}");
    assert_eq!(stderr.matches("error").count(), 1, "{stderr}");
}

/// `validate --kernel vector_add --kernel vector_add` runs each case once (it reported
/// twice the cases as passed).
#[test]
fn a_port_named_twice_is_validated_once() {
    let summary = |args: &[&str]| {
        let (code, stdout, stderr) = rtriton(args);
        assert_eq!(code, 0, "{stdout}{stderr}");
        stdout.lines().last().unwrap_or_default().to_string()
    };
    let once = summary(&["validate", "--kernel", "vector_add", "--backend", "interp"]);
    let twice = summary(&["validate", "--kernel", "vector_add", "--kernel", "vector_add", "--backend", "interp"]);
    assert!(once.starts_with("ok: "), "{once}");
    assert_eq!(once, twice);
}
