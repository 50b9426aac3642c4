//! `rtriton bench` as a user runs it: on a machine without a GPU it says so and exits 2
//! (nothing measured is not a pass); with one, a small run prints its table and JSON.

mod common;

use common::rtriton;

#[test]
fn bench_exits_2_without_a_gpu_and_measures_with_one() {
    let json = std::env::temp_dir().join(format!("rtriton-bench-{}.json", std::process::id()));
    let (code, stdout, stderr) = rtriton(&[
        "bench",
        "--shape",
        "262144x256",
        "--variant",
        "row_max_2d",
        "--iters",
        "3",
        "--warmup",
        "1",
        "--no-progress",
        "--json",
        json.to_str().unwrap(),
    ]);
    match rtriton_host::driver::Gpu::open(0) {
        Err(e) if e.is_no_gpu() => {
            assert_eq!(code, 2, "{stdout}\n{stderr}");
            assert!(stdout.is_empty(), "{stdout}");
            assert_eq!(
                stderr,
                format!("{e}\nbench measures GPU time and has no interpreter fallback: nothing was measured\n")
            );
            assert!(stderr.starts_with("no CUDA driver found: ") || stderr.starts_with("no CUDA device found: "));
            assert!(!json.exists());
        }
        _ => {
            assert_eq!(code, 0, "{stdout}\n{stderr}");
            assert!(stdout.contains("262144x256 (262144x256, strides (256, 1), 256 MiB read)"), "{stdout}");
            let report: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
            let kernels: Vec<_> = report["rows"].as_array().unwrap().iter().map(|r| r["kernel"].clone()).collect();
            assert_eq!(kernels, ["cuda_reference", "row_max_2d", "row_max_2d (autotuned)", "d2d_copy"]);
            // The autotuned row names the configuration it chose and how.
            let config = report["rows"][2]["config"].as_str().unwrap();
            assert!(config.starts_with("BLOCK_M: ") && config.contains(", num_warps: "), "{config}");
            assert_eq!(report["rows"][1]["status"]["summary"]["samples"], 3);
            std::fs::remove_file(json).unwrap();
        }
    }
}

#[test]
fn unknown_variants_and_shapes_are_errors_that_list_the_choices() {
    let (code, _, stderr) = rtriton(&["bench", "--variant", "row_min"]);
    assert_eq!(code, 1);
    assert!(stderr.contains("unknown variant `row_min`; pick one of row_max, row_max_loop"), "{stderr}");
    let (code, _, stderr) = rtriton(&["bench", "--shape", "nope"]);
    assert_eq!(code, 1);
    assert_eq!(
        stderr,
        "--shape nope: not a shape ROWSxCOLS[:VIEW], and no default shape's name contains it; the defaults are \
         32768x32768, 65537x32768, 8192x8192, 1048576x32, 64x4194304, 8192x16384:T, 8192x8192:stride=2, 4096x1000, \
         1x1, 3x7, 1000x1\n"
    );
    // A shape that does not parse names the flag, the value and the form.
    let (code, _, stderr) = rtriton(&["bench", "--shape", "4096x0:T"]);
    assert_eq!(code, 1);
    assert_eq!(
        stderr,
        "--shape 4096x0:T: COLS `0` must be at least 1; write ROWSxCOLS[:VIEW] with VIEW one of contiguous, T, stride=K, \
         offset=K (e.g. 8192x16384:T)\n"
    );
    let (code, _, stderr) = rtriton(&["bench", "--iters", "0"]);
    assert_eq!(code, 2, "clap's usage error: {stderr}");
    // Empty text is in every name; a flush too large to count in bytes is refused, not wrapped.
    let (code, _, stderr) = rtriton(&["bench", "--shape", ""]);
    assert_eq!(code, 1);
    assert_eq!(
        stderr,
        "--shape \"\": empty text selects every shape; give a shape (e.g. --shape 4096x1000:T) or part of a default \
         shape's name (e.g. --shape :T), or leave --shape out\n"
    );
    let max = usize::MAX.to_string();
    let (code, _, stderr) = rtriton(&["bench", "--flush-mib", &max]);
    assert_eq!(code, 1);
    assert_eq!(
        stderr,
        format!(
            "--flush-mib {max}: {max} MiB does not fit in this machine's address space; give at most {}\n",
            usize::MAX >> 20
        )
    );
}

/// The offline half of a GPU session: a saved `--json` report, shown again with the peers'
/// JSON merged and plotted, through the binary and with no GPU.
#[test]
fn a_saved_report_merges_peers_and_plots_without_a_gpu() {
    use rtriton_host::bench::{BenchReport, BenchShape, BenchStatus, RowKind, Summary, derive_ratios};
    let dir = tempfile::tempdir().unwrap();
    let shape = BenchShape::parse("8192x16384:T").unwrap();
    let timed = |ms: f64| BenchStatus::Timed {
        summary: Summary { samples: 50, median_ms: ms, p10_ms: ms, p90_ms: ms, min_ms: ms, max_ms: ms },
    };
    let l = shape.layout();
    let row = |kernel: &str, kind: RowKind, status: BenchStatus| rtriton_host::bench::BenchRow {
        shape: shape.to_string(),
        n_rows: shape.n_rows,
        n_cols: shape.n_cols,
        stride_row: l.stride_row,
        stride_col: l.stride_col,
        offset: 0,
        kernel: kernel.into(),
        kind,
        config: String::new(),
        spec_key: String::new(),
        bytes: (shape.numel() * 4) as u64,
        status,
        gb_per_s: None,
        speed_vs_reference: None,
        fraction_of_copy_bandwidth: None,
        speed_vs_best_peer: None,
    };
    let mut rows = vec![
        row("cuda_reference", RowKind::Reference, timed(0.25)),
        row("row_max", RowKind::Variant, BenchStatus::CannotRun { reason: "BLOCK 16384 is fine, say".into() }),
        row("row_max_2d (autotuned)", RowKind::Autotuned, timed(0.2)),
    ];
    derive_ratios(&mut rows);
    let saved = dir.path().join("bench.json");
    let report = BenchReport::new("NVIDIA H200 (sm_90)".into(), 5, 50, 256 << 20, rows);
    std::fs::write(&saved, serde_json::to_string(&report).unwrap()).unwrap();
    let peers = dir.path().join("peers.json");
    std::fs::write(
        &peers,
        r#"{"env": {"gpu": "NVIDIA H200"}, "results": [
            {"shape": "8192x16384:T", "n_rows": 8192, "n_cols": 16384, "stride_row": 1, "stride_col": 8192, "offset": 0,
             "impl": "torch.amax", "config": "", "ms": 0.1, "p10_ms": 0.09, "p90_ms": 0.11, "check": "ok"},
            {"shape": "8192x16384:T", "n_rows": 8192, "n_cols": 16384, "stride_row": 1, "stride_col": 8192, "offset": 0,
             "impl": "triton_autotuned", "config": "BLOCK_M: 64, BLOCK_N: 64, num_warps: 4", "ms": 0.125, "check": "ok"}]}"#,
    )
    .unwrap();
    let (svg, combined) = (dir.path().join("bench.svg"), dir.path().join("combined.json"));
    let (code, stdout, stderr) = rtriton(&[
        "bench",
        "--load",
        saved.to_str().unwrap(),
        "--peers",
        peers.to_str().unwrap(),
        "--plot",
        svg.to_str().unwrap(),
        "--json",
        combined.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{stdout}\n{stderr}");
    assert!(stdout.contains("device: NVIDIA H200 (sm_90) (measured by commit "), "{stdout}");
    assert!(stdout.contains("8192x16384:T (8192x16384, strides (1, 8192), 512 MiB read)"), "{stdout}");
    assert!(stdout.contains("vs best peer"), "{stdout}");
    // 0.2 ms against torch's 0.1 ms: 0.50x; torch itself 1.00x; the cannot-run row is listed.
    let line = |name: &str| stdout.lines().find(|l| l.contains(name)).unwrap_or_else(|| panic!("{name}: {stdout}"));
    assert!(line("row_max_2d (autotuned)").contains("0.50x"), "{stdout}");
    assert!(line("torch.amax (peer)").contains("1.00x"), "{stdout}");
    assert!(line("│ row_max ").contains("cannot run: BLOCK 16384 is fine, say"), "{stdout}");
    assert!(stdout.contains("ok: 2 kernels checked bit for bit against the reference and timed, 1 cannot run their shape by design (listed); 2 peer rows merged"), "{stdout}");
    let svg = std::fs::read_to_string(svg).unwrap();
    assert!(svg.contains("torch.amax (peer)") && svg.contains("8192x16384:T"));
    let json: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(combined).unwrap()).unwrap();
    assert_eq!(json["rows"][3]["kind"], "peer");
    assert_eq!(json["rows"][2]["speed_vs_best_peer"], 0.5);
    // A peers file for another view is refused before anything is shown.
    std::fs::write(
        &peers,
        std::fs::read_to_string(&peers).unwrap().replace("\"stride_row\": 1,", "\"stride_row\": 16384,"),
    )
    .unwrap();
    let (code, _, stderr) = rtriton(&["bench", "--load", saved.to_str().unwrap(), "--peers", peers.to_str().unwrap()]);
    assert_eq!(code, 1);
    assert!(stderr.contains(": result 0: shape `8192x16384:T` means (rows, cols, stride_row, stride_col, offset) = (8192, 16384, 1, 8192, 0), but the row says (8192, 16384, 16384, 8192, 0)"), "{stderr}");
}
