//! Going on after a kernel fault. A fault (an illegal address) poisons the CUDA context,
//! and on the H200 with driver 580 the driver then refuses a new context in the same
//! process (`cuCtxCreate` returns the sticky error again; NVIDIA documents that the
//! process must be restarted: the H200 record of 2026-12-03 at `da2de26`). So the CLI's `validate`
//! runs the cases after the fault in a fresh process of its own executable, with the same
//! selection, reads that process's JSON report and merges its rows: the failing case is
//! reported and the rest still run. A further fault in the child repeats this there.
//!
//! The library default is to stop with an error ([`OnFault::Stop`]): a library must not
//! spawn processes behind its caller's back.

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::Command;

use rtriton::spec::SpecPolicy;
use rtriton_kernels::cases::RowMaxCase;
use serde::Deserialize;

use super::{CaseResult, Outcome, ValidateOptions, policy_name};

/// What `validate` does on the GPU when a kernel fault poisons the context and the driver
/// gives no new one.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub enum OnFault {
    /// Stop with an error that names the cases run.
    #[default]
    Stop,
    /// Run the remaining cases in a new process of `exe` (an `rtriton` binary) and merge
    /// its report.
    Restart { exe: PathBuf },
}

/// The part of a child's JSON report the parent merges.
#[derive(Debug, Deserialize)]
struct ChildReport {
    results: Vec<CaseResult>,
    cache: super::report::CacheSummary,
    #[serde(default)]
    restarts: Vec<String>,
}

/// What the restarted process ran.
#[derive(Debug)]
pub struct ChildRun {
    pub results: Vec<CaseResult>,
    pub cache: super::report::CacheSummary,
    /// The cases after which a process was restarted, this one's and its children's.
    pub restarts: Vec<String>,
}

/// The `rtriton` arguments that run exactly `remaining` with the options' variants and
/// specialization policies, writing JSON to `json`.
pub fn child_args(options: &ValidateOptions, remaining: &[RowMaxCase], json: &Path) -> Vec<OsString> {
    let mut args: Vec<OsString> =
        ["validate", "--backend", "gpu", "--no-progress", "--allow-skips", "--json"].map(OsString::from).into();
    args.push(json.as_os_str().to_owned());
    if options.variants.is_empty() && !options.entry {
        args.push("--reference-only".into());
    }
    for v in &options.variants {
        args.extend(["--variant".into(), v.name().into()]);
    }
    if options.entry {
        args.extend(["--variant".into(), crate::row_max::ENTRY_NAME.into()]);
    }
    if let [only] = options.policies.as_slice() {
        args.extend(["--spec".into(), policy_name(*only).into()]);
    }
    for c in remaining {
        args.extend(["--exact-case".into(), c.name.into()]);
    }
    if let Some(name) = &options.inject_fault
        && remaining.iter().any(|c| c.name == name.as_str())
    {
        args.extend(["--inject-fault".into(), name.into()]);
    }
    args
}

/// Runs `remaining` in a new process of `exe`. Never fails: when the child cannot start
/// or writes no report, every remaining row says why.
pub fn run_remaining(exe: &Path, options: &ValidateOptions, remaining: &[RowMaxCase]) -> ChildRun {
    let dir = match tempfile::tempdir() {
        Ok(d) => d,
        Err(e) => return failed_rows(remaining, &format!("no temporary directory for its report: {e}")),
    };
    let json = dir.path().join("report.json");
    let output = Command::new(exe).args(child_args(options, remaining, &json)).output();
    let why = match output {
        Err(e) => format!("could not start {}: {e}", exe.display()),
        Ok(out) => match std::fs::read(&json).map_err(|e| e.to_string()).and_then(|bytes| {
            serde_json::from_slice::<ChildReport>(&bytes).map_err(|e| format!("its report does not parse: {e}"))
        }) {
            Ok(child) => {
                return ChildRun { results: child.results, cache: child.cache, restarts: child.restarts };
            }
            Err(e) => format!(
                "the restarted process ({}) wrote no report ({e}); its stderr ends: {}",
                out.status,
                tail(&String::from_utf8_lossy(&out.stderr), 400)
            ),
        },
    };
    failed_rows(remaining, &why)
}

/// One error row per case (its reference row) when the restart itself failed.
fn failed_rows(remaining: &[RowMaxCase], why: &str) -> ChildRun {
    let results = remaining
        .iter()
        .map(|c| {
            let mut r = CaseResult::new(c, "cuda_reference", None::<SpecPolicy>);
            r.outcome = Outcome::Error { message: format!("not run after a kernel fault: {why}") };
            r
        })
        .collect();
    ChildRun {
        results,
        cache: super::report::CacheSummary { compiles: 0, disk_hits: 0, memory_hits: 0 },
        restarts: Vec::new(),
    }
}

fn tail(s: &str, n: usize) -> &str {
    let start = s.len().saturating_sub(n);
    let start = (start..=s.len()).find(|&i| s.is_char_boundary(i)).unwrap_or(s.len());
    s[start..].trim()
}

#[cfg(test)]
mod tests {
    use rtriton_kernels::RowMaxVariant;
    use rtriton_kernels::cases::{HUGE_CASE, SHAPE_MATRIX};

    use super::*;

    fn strings(args: &[OsString]) -> Vec<String> {
        args.iter().map(|a| a.to_string_lossy().into_owned()).collect()
    }

    #[test]
    fn the_child_runs_exactly_the_remaining_cases_with_the_same_selection() {
        let options = ValidateOptions {
            variants: vec![RowMaxVariant::RowMax, RowMaxVariant::RowMax2d],
            entry: false,
            policies: vec![SpecPolicy::Off],
            inject_fault: Some(SHAPE_MATRIX[2].name.to_string()),
            ..Default::default()
        };
        let remaining = [SHAPE_MATRIX[2], HUGE_CASE];
        let args = strings(&child_args(&options, &remaining, Path::new("/tmp/r.json")));
        assert_eq!(
            args.join(" "),
            format!(
                "validate --backend gpu --no-progress --allow-skips --json /tmp/r.json --variant row_max --variant \
                 row_max_2d --spec off --exact-case {} --exact-case {} --inject-fault {}",
                SHAPE_MATRIX[2].name, HUGE_CASE.name, SHAPE_MATRIX[2].name
            )
        );
    }

    #[test]
    fn both_policies_pass_no_spec_flag_and_a_fault_already_behind_is_not_injected_again() {
        let options = ValidateOptions { inject_fault: Some(SHAPE_MATRIX[0].name.to_string()), ..Default::default() };
        let args = strings(&child_args(&options, &SHAPE_MATRIX[1..2], Path::new("r.json")));
        assert!(!args.contains(&"--spec".to_string()), "{args:?}");
        assert!(!args.contains(&"--inject-fault".to_string()), "{args:?}");
        assert_eq!(args.iter().filter(|a| *a == "--variant").count(), RowMaxVariant::ALL.len() + 1);
        assert!(
            args.ends_with(&[
                "--variant".into(),
                "row_max_entry".into(),
                "--exact-case".into(),
                SHAPE_MATRIX[1].name.into()
            ]),
            "{args:?}"
        );
        let reference_only = ValidateOptions { variants: vec![], entry: false, ..Default::default() };
        assert!(
            strings(&child_args(&reference_only, &SHAPE_MATRIX[1..2], Path::new("r.json")))
                .contains(&"--reference-only".to_string())
        );
    }

    #[test]
    fn a_child_that_cannot_start_leaves_an_error_row_per_remaining_case() {
        let run = run_remaining(Path::new("/nonexistent/rtriton"), &ValidateOptions::default(), &SHAPE_MATRIX[..2]);
        assert_eq!(run.results.len(), 2);
        for (r, c) in run.results.iter().zip(&SHAPE_MATRIX[..2]) {
            assert_eq!(r.case, c.name);
            assert!(
                matches!(&r.outcome, Outcome::Error { message } if message.contains("could not start /nonexistent/rtriton")),
                "{:?}",
                r.outcome
            );
        }
    }

    /// A stand-in `rtriton` that writes a report with one row for the case after
    /// `--exact-case` into the file after `--json`, as a restarted process does.
    #[test]
    #[cfg(unix)]
    fn a_childs_report_is_merged_with_its_restarts() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let exe = dir.path().join("fake-rtriton");
        let mut row = CaseResult::new(&SHAPE_MATRIX[1], "row_max", Some(SpecPolicy::Triton));
        row.outcome = Outcome::Match;
        let report = serde_json::json!({
            "results": [row],
            "cache": {"compiles": 3, "disk_hits": 1, "memory_hits": 0},
            "restarts": ["later_case"],
        });
        std::fs::write(
            &exe,
            format!("#!/bin/sh\nwhile [ \"$1\" != --json ]; do shift; done\ncat > \"$2\" <<'END'\n{report}\nEND\n"),
        )
        .unwrap();
        std::fs::set_permissions(&exe, std::fs::Permissions::from_mode(0o755)).unwrap();
        let run = run_remaining(&exe, &ValidateOptions::default(), &SHAPE_MATRIX[1..2]);
        assert_eq!(run.results, vec![row]);
        assert_eq!((run.cache.compiles, run.cache.disk_hits), (3, 1));
        assert_eq!(run.restarts, vec!["later_case".to_string()]);
    }

    #[test]
    fn a_child_that_writes_no_report_is_an_error_with_its_stderr() {
        // `false` exits 1 without writing anything: the rows say so.
        let run = run_remaining(Path::new("false"), &ValidateOptions::default(), &SHAPE_MATRIX[..1]);
        assert!(
            matches!(&run.results[0].outcome, Outcome::Error { message } if message.contains("wrote no report")),
            "{:?}",
            run.results[0].outcome
        );
    }
}
