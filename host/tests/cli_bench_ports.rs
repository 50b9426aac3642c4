//! `rtriton bench --kernel NAME|ports`: the tutorial ports measured on the points
//! `bench/peers/tutorial_peers.py` measures torch and Triton on, and the combined table.

mod common;

use std::process::Command;

use common::rtriton;

#[test]
fn port_bench_exits_2_without_a_gpu_and_measures_with_one() {
    let json = std::env::temp_dir().join(format!("rtriton-bench-ports-{}.json", std::process::id()));
    let args =
        ["bench", "--kernel", "vector_add", "--dtype", "f16", "--point", "16777216", "--iters", "3", "--warmup", "1"];
    let (code, stdout, stderr) = rtriton(&[&args[..], &["--no-progress", "--json", json.to_str().unwrap()]].concat());
    match rtriton_host::driver::Gpu::open(0) {
        Err(e) if e.is_no_gpu() => {
            assert_eq!(code, 2, "{stdout}\n{stderr}");
            assert!(stdout.is_empty(), "{stdout}");
            assert!(
                stderr.ends_with("bench measures GPU time and has no interpreter fallback: nothing was measured\n")
            );
            assert!(!json.exists());
        }
        _ => {
            assert_eq!(code, 0, "{stdout}\n{stderr}");
            assert!(stdout.contains("| add | f16 | 16777216 | "), "{stdout}");
            let report: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
            assert_eq!(report["rows"][0]["bytes"], 3 * (1u64 << 24) * 2);
            assert_eq!(report["rows"][0]["summary"]["samples"], 3);
            std::fs::remove_file(json).unwrap();
        }
    }
}

#[test]
fn bad_port_selections_name_the_flag() {
    let (code, _, stderr) = rtriton(&["bench", "--kernel", "nope"]);
    assert_eq!(code, 1);
    assert!(stderr.contains("--kernel nope: no port of that name; ports: vector_add"), "{stderr}");
    let (code, _, stderr) = rtriton(&["bench", "--kernel", "vector_add", "--dtype", "f64"]);
    assert_eq!((code, stderr.as_str()), (1, "--dtype f64: ports are measured in f32, f16, bf16, i32\n"));
    let (code, _, stderr) = rtriton(&["bench", "--kernel", "vector_add", "--point", "softmax"]);
    assert_eq!(code, 1);
    // The value, then the labels it could have named.
    assert!(
        stderr.starts_with("--point \"softmax\": no point's label contains this text; give part of one of the labels: add f32 16777216;"),
        "{stderr}"
    );
    let (code, _, stderr) = rtriton(&["bench", "--kernel", "vector_add", "--point", ""]);
    assert_eq!(code, 1);
    assert!(stderr.starts_with("--point \"\": empty text selects every point"), "{stderr}");
    // Row-max flags do not mix with ports (clap's usage error).
    let (code, _, stderr) = rtriton(&["bench", "--kernel", "vector_add", "--variant", "row_max"]);
    assert_eq!(code, 2, "{stderr}");
    let (code, _, stderr) = rtriton(&["bench", "--dtype", "f16"]);
    assert_eq!(code, 2, "--dtype needs --kernel: {stderr}");
}

/// The launch overrides' mistakes are errors before any GPU is opened, naming the flag.
#[test]
fn bad_launch_overrides_name_the_flag() {
    let base = ["bench", "--kernel", "vector_add", "--dtype", "f32", "--point", "16777216"];
    let run = |extra: &[&str]| rtriton(&[&base[..], extra].concat());
    let (code, _, stderr) = run(&["--set", "BLOCK_SIZE"]);
    assert_eq!((code, stderr.as_str()), (1, "--set BLOCK_SIZE: expected NAME=V, e.g. BLOCK_SIZE=4096\n"));
    let (code, _, stderr) = run(&["--set", "BLOCK_SIZE=big"]);
    assert_eq!(code, 1);
    assert!(stderr.starts_with("--set BLOCK_SIZE=big: the value is not an integer"), "{stderr}");
    let (code, _, stderr) = run(&["--launch", "0"]);
    assert_eq!(
        (code, stderr.as_str()),
        (1, "--launch: give --set, --warps, --programs or --min-ctas to apply to it\n")
    );
    let (code, _, stderr) = run(&["--programs", "0"]);
    assert_eq!((code, stderr.as_str()), (1, "--programs `0`: a grid axis needs at least 1 program, not `0`\n"));
    let (code, _, stderr) = run(&["--programs", "2,2,2,2"]);
    assert_eq!((code, stderr.as_str()), (1, "--programs `2,2,2,2`: a grid has 3 axes; give N, X,Y or X,Y,Z\n"));
    // clap's range checks (usage errors, status 2), and the flags need --kernel.
    assert_eq!(run(&["--warps", "0"]).0, 2);
    assert_eq!(rtriton(&["bench", "--warps", "8"]).0, 2);
    // A loaded report is not re-measured: overrides there are a mistake.
    let (code, _, stderr) = rtriton(&["bench", "--kernel", "ports", "--load", "x.json", "--warps", "8"]);
    assert_eq!(code, 1);
    assert!(stderr.starts_with("--set/--warps/--programs change a measurement; --load shows one"), "{stderr}");
}

/// A report written by an earlier run and the peers' JSON make the combined table
/// without a GPU: rtriton next to torch and Triton with the ratio to the best one.
#[test]
fn a_loaded_report_and_the_peers_make_the_combined_table() {
    let dir = tempfile::tempdir().unwrap();
    let bytes = 3u64 << 26; // 2^24 f32 elements, three tensors
    let report = serde_json::json!({
        "build": "rtriton 0.1.0 (commit abc, dirty: false, release build)", "device": "a GPU",
        "warmup": 1, "iters": 3, "flush_bytes": 268435456,
        "rows": [{"kernel": "add", "dtype": "f32", "shape": [16777216], "impl": "rtriton", "config": "add_kernel",
                  "ms": 0.05, "summary": null, "bytes": bytes, "tbps": bytes as f64 / 0.05e-3 / 1e12, "check": "ok"}]
    });
    let peers = serde_json::json!({"env": {}, "results": [
        {"kernel": "add", "dtype": "f32", "shape": [16777216], "impl": "torch", "ms": 0.06, "bytes": bytes, "check": "reference"},
        {"kernel": "add", "dtype": "f32", "shape": [16777216], "impl": "triton", "ms": 0.055, "bytes": bytes, "check": "ok"},
    ]});
    let (r, p) = (dir.path().join("r.json"), dir.path().join("p.json"));
    std::fs::write(&r, report.to_string()).unwrap();
    std::fs::write(&p, peers.to_string()).unwrap();
    let (code, stdout, stderr) =
        rtriton(&["bench", "--kernel", "ports", "--load", r.to_str().unwrap(), "--peers", p.to_str().unwrap()]);
    assert_eq!(code, 0, "{stderr}");
    assert!(stdout.contains("| add | f32 | 16777216 | 4.027 | 3.355 | 3.660 | 1.10x | ok |"), "{stdout}");
    assert!(
        stdout
            .contains("ok: 1 points measured (0 of them timed without the CPU check, over --check-limit), 0 not timed"),
        "{stdout}"
    );
    assert!(!stdout.contains("launch overrides"), "{stdout}");
    // A report measured under launch overrides says so in its heading.
    let mut overridden = report.clone();
    overridden["overrides"] = serde_json::json!("--set BLOCK_SIZE=4096 --warps 8");
    std::fs::write(&r, overridden.to_string()).unwrap();
    let (code, stdout, stderr) = rtriton(&["bench", "--kernel", "ports", "--load", r.to_str().unwrap()]);
    assert_eq!(code, 0, "{stderr}");
    assert!(
        stdout.contains("\nlaunch overrides (not the ports' plans): --set BLOCK_SIZE=4096 --warps 8\n"),
        "{stdout}"
    );
}

/// `bench/peers/tutorial_peers.py --dry-run` with `extra` flags (no GPU, no torch): its
/// output, and the plan it wrote, if it wrote one.
fn tutorial_peers_dry_run(extra: &[&str]) -> (std::process::Output, Option<String>) {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("plan.json");
    let script = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../bench/peers/tutorial_peers.py");
    let output = Command::new("python3")
        .args(["-B", script.to_str().unwrap(), "--dry-run", "--out", out.to_str().unwrap()])
        .args(extra)
        .output()
        .expect("python3 runs");
    (output, std::fs::read_to_string(out).ok())
}

/// `--shape` narrows the peer script to the shapes given, in their order (`run.sh
/// ports-paired` times one point at a time with it), for every kernel of that rank, and a
/// shape that is not `ROWSxCOLS` or `N` is refused.
#[test]
fn the_peer_script_measures_the_shapes_given_in_their_order() {
    let (done, plan) = tutorial_peers_dry_run(&[
        "--only",
        "silu",
        "--only",
        "add",
        "--dtype",
        "f16",
        "--shape",
        "32768x1024",
        "--shape",
        "4x4",
        "--shape",
        "16777216",
    ]);
    assert!(done.status.success(), "{}", String::from_utf8_lossy(&done.stderr));
    let plan: serde_json::Value = serde_json::from_str(&plan.unwrap()).unwrap();
    let planned: Vec<String> = plan["planned"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| format!("{} {} {}", r["kernel"].as_str().unwrap(), r["dtype"].as_str().unwrap(), r["shape"]))
        .collect();
    assert_eq!(planned, ["add f16 [16777216]", "silu f16 [32768,1024]", "silu f16 [4,4]"]);
    let (refused, _) = tutorial_peers_dry_run(&["--shape", "4096xbig"]);
    assert_eq!(refused.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&refused.stderr).contains("`4096xbig` is not MxNxK, ROWSxCOLS or N"));
}

/// Every point rtriton measures is one the peer script plans (same kernel, dtype and
/// shape), so the combined table has peers on every row.
#[test]
fn the_peer_script_plans_every_point_rtriton_measures() {
    let (status, plan) = tutorial_peers_dry_run(&[]);
    assert!(status.status.success(), "{}", String::from_utf8_lossy(&status.stderr));
    let plan: serde_json::Value = serde_json::from_str(&plan.unwrap()).unwrap();
    let planned: Vec<(String, String, Vec<u64>)> = plan["planned"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            let shape = r["shape"].as_array().unwrap().iter().map(|v| v.as_u64().unwrap()).collect();
            (r["kernel"].as_str().unwrap().to_string(), r["dtype"].as_str().unwrap().to_string(), shape)
        })
        .collect();
    for port in rtriton_host::ports::all() {
        for p in (port.bench)() {
            let key = (p.kernel.to_string(), p.dtype.to_string(), p.shape.iter().map(|&v| v as u64).collect());
            assert!(planned.contains(&key), "{}: {} is not planned by the peer script", port.name, p.label());
        }
    }
}
