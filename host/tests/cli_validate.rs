//! `rtriton validate` as a user runs it: exit status, output and the JSON file.

mod common;

use common::rtriton;

use std::process::Command;

use rtriton_kernels::RowMaxVariant;

/// `--verbose`: one table per case with every column, the verdict with the PTX cache counts.
#[test]
fn validate_verbose_on_the_interpreter_prints_tables_writes_json_and_exits_zero() {
    let json = std::env::temp_dir().join(format!("rtriton-validate-{}.json", std::process::id()));
    let (code, stdout, stderr) = rtriton(&[
        "validate",
        "--backend",
        "interp",
        "--case",
        "offset_base",
        "--variant",
        "row_max_loop",
        "--no-progress",
        "--verbose",
        "--json",
        json.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{stdout}\n{stderr}");
    // The first line is the build (checked in version_and_report_headers_carry_the_commit_and_profile).
    assert!(stdout.lines().nth(1).is_some_and(|l| l.starts_with("back end: interpreter")), "{stdout}");
    assert!(stdout.contains("offset_base (40x130, strides (130, 1), offset 3)"), "{stdout}");
    // Offset 3 elements: the pointer is not 16-byte aligned, so x_ptr gets no hint.
    assert!(stdout.contains("x_ptr:- y_ptr:D16"), "{stdout}");
    assert!(
        stdout.trim_end().ends_with(
            "ok: 2 passed, 0 failed, 0 skipped on the interpreter (ptx: 0 compiled, 0 from disk cache, 0 from memory)"
        ),
        "{stdout}"
    );
    let report: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    assert_eq!(report["backend"], "interpreter");
    assert_eq!(report["results"].as_array().unwrap().len(), 2);
    assert_eq!(report["results"][0]["outcome"]["status"], "match");
    assert_eq!(report["results"][0]["vs_cpu"], true);
    std::fs::remove_file(json).unwrap();
}

#[test]
fn the_huge_case_on_the_interpreter_is_refused_for_row_max_i32_and_counted_as_a_pass() {
    let json = std::env::temp_dir().join(format!("rtriton-validate-huge-{}.json", std::process::id()));
    let args = [
        "validate",
        "--backend",
        "interp",
        "--huge",
        "--case",
        "huge",
        "--variant",
        "row_max_i32",
        "--variant",
        "row_max_i64_index",
        "--no-progress",
        "--json",
        json.to_str().unwrap(),
    ];
    // The int64 variant cannot run on the interpreter: without --allow-skips that is an
    // incomplete run and exit status 1; the JSON says so.
    let (code, stdout, stderr) = rtriton(&args);
    assert_eq!(code, 1, "{stdout}\n{stderr}");
    assert!(stdout.contains("INCOMPLETE: 2 passed (2 refused by the overflow guard, as expected), 0 failed, 2 skipped (requested rows did not run: --allow-skips accepts that)"), "{stdout}");
    let report: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    assert_eq!((report["status"].as_str(), report["allow_skips"].as_bool()), (Some("incomplete"), Some(false)));
    let mut allowed = args.to_vec();
    // The guard's diagnostic is in the verbose table's row.
    allowed.extend(["--allow-skips", "--verbose"]);
    let (code, stdout, stderr) = rtriton(&allowed);
    assert_eq!(code, 0, "{stdout}\n{stderr}");
    // The CLI runs the production kernel; the line is found in its source.
    let at = rtriton_kernels::source::line_of(RowMaxVariant::RowMaxI32, "let x = load(").expect("row_max_i32 loads x");
    assert!(stdout.contains(&format!("refused (expected): error[RT0601]: kernel `row_max_i32` at {at}:")), "{stdout}");
    assert!(
        stdout.trim_end().ends_with(
            "ok: 2 passed (2 refused by the overflow guard, as expected), 0 failed, 2 skipped on the interpreter (ptx: 0 \
             compiled, 0 from disk cache, 0 from memory)"
        ),
        "{stdout}"
    );
    let report: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    assert_eq!(report["refused_as_expected"], 2);
    let statuses: Vec<_> = report["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            format!(
                "{} {} {}",
                r["variant"].as_str().unwrap(),
                r["specialization"].as_str().unwrap(),
                r["outcome"]["status"].as_str().unwrap()
            )
        })
        .collect();
    assert_eq!(
        statuses,
        [
            "row_max_i32 on refused_as_expected",
            "row_max_i32 off refused_as_expected",
            "row_max_i64_index on skipped",
            "row_max_i64_index off skipped"
        ]
    );
    std::fs::remove_file(json).unwrap();
}

/// `--variant row_max_entry` selects the entry point alone: on the interpreter every
/// configuration of the case's plan, one row per specialization.
#[test]
fn the_entry_point_is_selected_by_name_and_checks_every_planned_configuration() {
    let json = std::env::temp_dir().join(format!("rtriton-validate-entry-{}.json", std::process::id()));
    let (code, stdout, stderr) = rtriton(&[
        "validate",
        "--backend",
        "interp",
        "--case",
        "wider_than_block",
        "--variant",
        "row_max_entry",
        "--no-progress",
        "--json",
        json.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{stdout}\n{stderr}");
    assert!(stdout.contains("row_max_entry"), "{stdout}");
    let report: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    let rows = report["results"].as_array().unwrap();
    assert_eq!(rows.len(), 2, "one row per specialization");
    for r in rows {
        assert_eq!((r["variant"].as_str(), r["outcome"]["status"].as_str()), (Some("row_max_entry"), Some("match")));
        // 3 rows of 5000 on the nominal 132 SMs: few wide rows, split configurations, as
        // many as the plan has (the count comes from the plan, which grows).
        let p = rtriton_kernels::row_max_plan::plan(rtriton::ir::ScalarType::F32, 3, 5000, 132).unwrap();
        assert_eq!(p.class, rtriton_kernels::row_max_plan::ShapeClass::FewWideRows);
        assert!(p.configs.iter().any(|c| c.split > 1) && p.configs.iter().any(|c| c.unroll > 1));
        assert_eq!(r["config"], format!("{} configurations (few wide rows (split))", p.configs.len()));
    }
    std::fs::remove_file(json).unwrap();
}

/// `rtriton validate` as a newcomer first runs it, on a machine without a GPU (none is
/// visible to it here): one grid of marks, no details when everything passes, under 60
/// lines within 100 columns, the verdict last.
#[test]
fn validate_without_a_gpu_prints_one_grid_within_100_columns_and_60_lines() {
    let out = Command::new(common::rtriton_bin())
        .args(["validate", "--no-progress"])
        .env("CUDA_VISIBLE_DEVICES", "")
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{stdout}\n{}", String::from_utf8_lossy(&out.stderr));
    assert!(stdout.lines().nth(1).is_some_and(|l| l.starts_with("no GPU: ")), "{stdout}");
    assert!(stdout.lines().count() < 60, "{} lines:\n{stdout}", stdout.lines().count());
    let widest = stdout.lines().map(|l| l.chars().count()).max().unwrap();
    assert!(widest <= 100, "{widest} columns:\n{stdout}");
    let header = stdout.lines().find(|l| l.starts_with("case ")).expect("the grid's header");
    assert_eq!(
        header.split_whitespace().collect::<Vec<_>>(),
        ["case", "shape", "row_max", "loop", "2d", "i64_strides", "i64_index", "i32", "entry"]
    );
    let grid: Vec<&str> =
        stdout.lines().skip_while(|l| !l.starts_with("case ")).skip(1).take_while(|l| !l.is_empty()).collect();
    assert_eq!(grid.len(), rtriton_kernels::cases::SHAPE_MATRIX.len(), "{stdout}");
    assert!(grid.iter().all(|l| l.matches("✓ ✓").count() == RowMaxVariant::ALL.len() + 1), "{stdout}");
    // Nothing failed or was skipped: no details, no GPU-only counts.
    assert!(!grid.iter().any(|l| l.contains('✗')), "{stdout}");
    assert!(!stdout.contains("\n✗ ") && !stdout.contains("rerun:") && !stdout.contains("ptx:"), "{stdout}");
    let n = rtriton_kernels::cases::SHAPE_MATRIX.len() * (RowMaxVariant::ALL.len() + 1) * 2;
    assert!(stdout.ends_with(&format!("\nok: {n} passed, 0 failed, 0 skipped on the interpreter\n")), "{stdout}");
}

#[test]
fn unknown_variants_and_cases_are_errors_that_list_the_choices() {
    let (code, _, stderr) = rtriton(&["validate", "--backend", "interp", "--variant", "row_min"]);
    assert_ne!(code, 0);
    assert!(stderr.contains("unknown variant `row_min`; pick one of row_max, row_max_loop"), "{stderr}");
    assert!(stderr.contains("row_max_i32, row_max_entry"), "the entry point is a choice too: {stderr}");
    let (code, _, stderr) = rtriton(&["validate", "--backend", "interp", "--case", "nope"]);
    assert_ne!(code, 0);
    assert!(stderr.contains("no case name contains [\"nope\"]"), "{stderr}");
    // Empty text is in every name: refused rather than running everything.
    let (code, _, stderr) = rtriton(&["validate", "--backend", "interp", "--case", ""]);
    assert_eq!(code, 1);
    assert_eq!(
        stderr,
        "--case \"\": empty text selects every case; give part of a case name (e.g. --case transposed) or leave \
         --case out\n"
    );
}

/// The build's commit and profile: `--version`, the first line of `validate`, its JSON.
#[test]
fn version_and_report_headers_carry_the_commit_and_profile() {
    let line = rtriton_host::provenance::Provenance::current().line();
    let (code, stdout, _) = rtriton(&["--version"]);
    assert_eq!((code, stdout), (0, format!("{line}\n")));
    let json = std::env::temp_dir().join(format!("rtriton-validate-build-{}.json", std::process::id()));
    let (code, stdout, stderr) = rtriton(&[
        "validate",
        "--backend",
        "interp",
        "--case",
        "1x1",
        "--variant",
        "row_max",
        "--no-progress",
        "--json",
        json.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{stdout}\n{stderr}");
    assert_eq!(stdout.lines().next(), Some(line.as_str()));
    let report: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    let p = rtriton_host::provenance::Provenance::current();
    assert_eq!(
        report["build"],
        serde_json::json!({"version": p.version, "commit": p.commit, "dirty": p.dirty, "profile": p.profile})
    );
    assert_eq!(report["status"], "ok");
    std::fs::remove_file(json).unwrap();
}

#[test]
fn the_cache_command_honours_the_environment_override() {
    let dir = std::env::temp_dir().join(format!("rtriton-cli-cache-{}", std::process::id()));
    std::fs::create_dir_all(dir.join("ptx")).unwrap();
    std::fs::write(dir.join("ptx").join("row_max-0123456789abcdef.json"), "{}").unwrap();
    let run = |args: &[&str]| {
        let out = Command::new(common::rtriton_bin()).args(args).env("RTRITON_CACHE_DIR", &dir).output().unwrap();
        (out.status.success(), String::from_utf8_lossy(&out.stdout).into_owned())
    };
    let (ok, stdout) = run(&["cache"]);
    assert!(ok, "{stdout}");
    assert!(stdout.starts_with(&format!("{} (set RTRITON_CACHE_DIR to move it)", dir.display())), "{stdout}");
    // `{}` is no entry: listed, as corrupt.
    assert!(
        stdout
            .contains("row_max-0123456789abcdef.json  CORRUPT (no header line; a miss, replaced on the next compile)"),
        "{stdout}"
    );
    assert!(stdout.trim_end().ends_with("1 entries (0 valid, 1 corrupt)"), "{stdout}");
    // Named as an entry but without the header: not provably rtriton's, so `--clear`
    // leaves it and says so (it deleted the whole folder).
    let (ok, stdout) = run(&["cache", "--clear"]);
    assert!(ok, "{stdout}");
    assert!(
        stdout.contains(
            "removed 0 entries\nleft 1 files that rtriton did not write (remove them yourself if you mean to):\n  \
             row_max-0123456789abcdef.json  (named as rtriton's but without its header)\n"
        ),
        "{stdout}"
    );
    assert!(dir.join("ptx").join("row_max-0123456789abcdef.json").exists());
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn exact_case_selects_one_case_and_an_unknown_name_or_fault_target_is_refused() {
    // `--case non_pow2` would also select nothing else here, but `--exact-case` must not
    // match by substring: "1x" is part of no case's exact name.
    let (code, stdout, stderr) =
        rtriton(&["validate", "--backend", "interp", "--exact-case", "1x", "--variant", "row_max", "--no-progress"]);
    assert_eq!(code, 1, "{stdout}\n{stderr}");
    assert!(stderr.contains("--exact-case \"1x\": no case has this name"), "{stderr}");
    let (code, stdout, stderr) = rtriton(&[
        "validate",
        "--backend",
        "interp",
        "--exact-case",
        "1x1",
        "--exact-case",
        "non_pow2",
        "--variant",
        "row_max",
        "--spec",
        "on",
        "--no-progress",
    ]);
    assert_eq!(code, 0, "{stdout}\n{stderr}");
    // The grid's lines, between its header and the blank line after it, name the cases run.
    let cases: Vec<&str> = stdout
        .lines()
        .skip_while(|l| !l.starts_with("case "))
        .skip(1)
        .take_while(|l| !l.is_empty())
        .map(|l| l.split_whitespace().next().unwrap())
        .collect();
    assert_eq!(cases, ["1x1", "non_pow2"], "{stdout}");
    assert!(stdout.contains("ok: 2 passed"), "{stdout}");
    let (code, _, stderr) =
        rtriton(&["validate", "--backend", "interp", "--exact-case", "1x1", "--inject-fault", "1x1", "--no-progress"]);
    assert_eq!(code, 1);
    assert!(
        stderr.contains("--inject-fault tests recovery from a GPU kernel fault: use it with --backend gpu"),
        "{stderr}"
    );
    let (code, _, stderr) = rtriton(&[
        "validate",
        "--backend",
        "gpu",
        "--exact-case",
        "1x1",
        "--inject-fault",
        "non_pow2",
        "--no-progress",
    ]);
    assert_eq!(code, 1);
    assert!(stderr.contains("--inject-fault \"non_pow2\": no selected case has this name"), "{stderr}");
}

/// A kernel fault in one case poisons the CUDA context; the H200's driver then refuses a
/// new context in the process, so validate runs the remaining cases in a new process of
/// itself: the faulting case is reported as an error, every other case still runs and
/// matches, and the summary names the restart.
#[test]
#[ignore = "needs a GPU"]
fn a_kernel_fault_is_reported_and_the_remaining_cases_still_run() {
    let json = std::env::temp_dir().join(format!("rtriton-validate-fault-{}.json", std::process::id()));
    let (code, stdout, stderr) = rtriton(&[
        "validate",
        "--backend",
        "gpu",
        "--exact-case",
        "1x1",
        "--exact-case",
        "single_row",
        "--exact-case",
        "non_pow2",
        "--exact-case",
        "narrower_than_warp",
        "--inject-fault",
        "single_row",
        "--variant",
        "row_max",
        "--variant",
        "row_max_2d",
        "--no-progress",
        "--json",
        json.to_str().unwrap(),
    ]);
    assert_eq!(code, 1, "a fault is a failure\n{stdout}\n{stderr}");
    let report: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    let rows = report["results"].as_array().unwrap();
    let status = |case: &str| -> Vec<String> {
        rows.iter()
            .filter(|r| r["case"] == case)
            .map(|r| format!("{}:{}", r["variant"].as_str().unwrap(), r["outcome"]["status"].as_str().unwrap()))
            .collect()
    };
    // Before the fault: the reference and 2 variants x 2 policies, all matching.
    for case in ["1x1", "non_pow2", "narrower_than_warp"] {
        let s = status(case);
        assert_eq!(s.len(), 5, "{case}: {s:?}");
        assert!(s.iter().all(|s| s.ends_with(":match")), "{case}: {s:?}\n{stdout}");
    }
    let faulted = status("single_row");
    assert!(faulted.contains(&"injected_fault:error".to_string()), "{faulted:?}");
    let restarts: Vec<&str> = report["restarts"].as_array().unwrap().iter().map(|r| r.as_str().unwrap()).collect();
    // Either the driver gave a new context (no restart) or the rest ran in a new process.
    assert!(restarts.is_empty() || restarts == ["single_row"], "{restarts:?}");
    assert_eq!(report["failed"], faulted.iter().filter(|s| s.ends_with(":error")).count());
    std::fs::remove_file(json).unwrap();
}

#[test]
fn validate_kernel_runs_a_ports_suites_and_names_unknown_ports() {
    let (code, stdout, stderr) =
        rtriton(&["validate", "--backend", "interp", "--kernel", "vector_add", "--case", "tail"]);
    assert_eq!(code, 0, "{stdout}{stderr}");
    assert!(stdout.contains("vector_add: Triton tutorial 01"), "{stdout}");
    // The tail case of each dtype's suite, on two back ends.
    assert!(stdout.trim_end().ends_with("ok: 6 passed, 0 failed (2 back ends: interpreter, simulator)"), "{stdout}");
    for kernel in ["add_kernel ", "add_kernel_f16", "add_kernel_bf16"] {
        assert!(stdout.contains(kernel), "{kernel}: {stdout}");
    }
    // Layer norm: the tutorial's forward, the three whole-row forwards, the tutorial's dx
    // kernel and the persistent dx kernel have a `narrow_3` case, in three dtypes.
    let (code, stdout, stderr) =
        rtriton(&["validate", "--backend", "interp", "--kernel", "layer_norm", "--case", "narrow_3"]);
    assert_eq!(code, 0, "{stdout}{stderr}");
    assert!(stdout.contains("layer_norm: Triton tutorial 05"), "{stdout}");
    assert!(stdout.trim_end().ends_with("ok: 36 passed, 0 failed (2 back ends: interpreter, simulator)"), "{stdout}");
    let kernels = [
        "layer_norm_fwd_fused ",
        "layer_norm_fwd_rows_f16",
        "layer_norm_fwd_prefetch_registers_bf16",
        "layer_norm_fwd_prefetch_staged_f32",
        "layer_norm_bwd_dx_fused_f16",
        "layer_norm_fwd_fused_bf16",
        "layer_norm_bwd_dx_persistent<f32>",
        "layer_norm_bwd_dx_persistent<bf16>",
    ];
    for kernel in kernels {
        assert!(stdout.contains(kernel), "{kernel}: {stdout}");
    }
    let (code, _, stderr) = rtriton(&["validate", "--kernel", "nope"]);
    assert_eq!(code, 1);
    assert!(
        stderr.contains(
            "--kernel nope: no port of that name; ports: vector_add, softmax, layer_norm, reduce, epilogue, matmul"
        ),
        "{stderr}"
    );
    let (code, _, stderr) = rtriton(&["validate", "--kernel", "ports", "--variant", "row_max"]);
    assert_eq!(code, 2, "--kernel and --variant conflict: {stderr}");
}

/// `--kernel reduce` runs the suite of every reduction kernel (5 operations x 2 directions
/// x 4 dtypes); one case each here, on both CPU back ends.
#[test]
fn validate_kernel_reduce_runs_every_reduction_suite() {
    let (code, stdout, stderr) = rtriton(&["validate", "--backend", "interp", "--kernel", "reduce", "--case", "3x7"]);
    assert_eq!(code, 0, "{stdout}{stderr}");
    assert!(stdout.contains("reduce: torch.sum/amax/amin/argmax/argmin"), "{stdout}");
    for kernel in ["row_sum_f32", "col_argmin_f32", "row_max_i32", "col_argmax_i32", "row_sum_f16", "col_min_bf16"] {
        assert!(stdout.contains(kernel), "{kernel} missing:\n{stdout}");
    }
    assert!(stdout.trim_end().ends_with("ok: 80 passed, 0 failed (2 back ends: interpreter, simulator)"), "{stdout}");
}

/// `--kernel reduce` also runs the split column reductions' suites: a partials and a
/// combine kernel and the one-launch kernel per operation and dtype (60 suites), here their `1000x3` case (1000
/// rows in 16 chunks of 64), on both CPU back ends.
#[test]
fn validate_kernel_reduce_runs_the_split_suites() {
    let (code, stdout, stderr) =
        rtriton(&["validate", "--backend", "interp", "--kernel", "reduce", "--case", "1000x3"]);
    assert_eq!(code, 0, "{stdout}{stderr}");
    for kernel in [
        "col_sum_partials_f32",
        "col_sum_combine_f32",
        "col_argmax_partials_bf16",
        "col_argmin_combine_i32",
        "col_sum_fused_f32",
        "col_argmax_fused_bf16",
    ] {
        assert!(stdout.contains(kernel), "{kernel} missing:\n{stdout}");
    }
    // 20 column reductions, three split suites each (partials, combine, one launch).
    assert!(stdout.trim_end().ends_with("ok: 120 passed, 0 failed (2 back ends: interpreter, simulator)"), "{stdout}");
}

/// `--kernel epilogue` runs every activation in every dtype (9 suites).
#[test]
fn validate_kernel_epilogue_runs_every_activation_and_dtype() {
    let (code, stdout, stderr) = rtriton(&["validate", "--backend", "interp", "--kernel", "epilogue", "--case", "3x7"]);
    assert_eq!(code, 0, "{stdout}{stderr}");
    assert!(stdout.contains("epilogue: y = gelu(x * scale + bias)"), "{stdout}");
    for kernel in ["gelu_tanh_f32", "gelu_erf_f16", "silu_bf16"] {
        assert!(stdout.contains(kernel), "{kernel} missing:\n{stdout}");
    }
    assert!(stdout.trim_end().ends_with("ok: 18 passed, 0 failed (2 back ends: interpreter, simulator)"), "{stdout}");
}

/// `--kernel matmul` runs every case of the three kernels' suites on both CPU back ends;
/// the GPU-only cases are listed as not run there, never as passed.
#[test]
fn validate_kernel_matmul_runs_every_dtype_and_names_the_gpu_only_cases() {
    let (code, stdout, stderr) = rtriton(&["validate", "--backend", "interp", "--kernel", "matmul"]);
    assert_eq!(code, 0, "{stdout}{stderr}");
    assert!(stdout.contains("matmul: C = A @ B"), "{stdout}");
    for kernel in [
        "matmul_kernel_f16",
        "matmul_kernel_bf16",
        "matmul_kernel_tf32",
        "matmul_kernel_persistent_f16",
        "matmul_kernel_descriptor_persistent_bf16",
    ] {
        assert!(stdout.contains(kernel), "{kernel} missing:\n{stdout}");
    }
    let line = |case: &str| stdout.lines().find(|l| l.contains(case)).unwrap_or_else(|| panic!("no {case}: {stdout}"));
    assert!(line("a_transposed").matches("ok").count() == 2, "{stdout}");
    assert!(line("77x61x4099").matches("not run").count() == 2, "{stdout}");
    // 26 cases run on both back ends (9 of them lowered for sm_90a, 8 persistent, 5 of
    // those through tensor descriptors), 18 GPU-only ones on neither, in 3 dtypes.
    let want = "ok: 156 passed, 0 failed, 108 not run (cases their suites declare unsupported on that back end) \
                (2 back ends: interpreter, simulator)";
    assert!(stdout.trim_end().ends_with(want), "{stdout}");
}

#[test]
fn validate_kernel_softmax_runs_every_form() {
    let (code, stdout, stderr) = rtriton(&["validate", "--backend", "interp", "--kernel", "softmax", "--case", "w1_"]);
    assert_eq!(code, 0, "{stdout}{stderr}");
    assert!(stdout.contains("softmax: Triton tutorial 02"), "{stdout}");
    // w1_specials (one block of 1, on the single-block kernel and both prefetching ones)
    // and w1_tile1 (the online kernel in one tile of 1), in each of the three dtypes.
    let kernels =
        ["softmax_kernel", "softmax_online_kernel", "softmax_prefetch_kernel", "softmax_prefetch_registers_kernel"];
    for kernel in kernels {
        for dtype in ["f32", "f16", "bf16"] {
            assert!(stdout.contains(&format!("{kernel}_{dtype} ")), "{kernel}_{dtype}: {stdout}");
        }
    }
    assert!(stdout.trim_end().ends_with("ok: 24 passed, 0 failed (2 back ends: interpreter, simulator)"), "{stdout}");
}
