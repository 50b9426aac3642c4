//! The performance regression check: rtriton and its peers measured in the same run on the
//! points of the recorded baseline of this GPU (`bench/results/<gpu>/*-baseline.json`),
//! failing when a point's ratio to the best peer falls more than 5% below its record
//! (`rtriton bench --baseline`). Needs the GPU machine: a GPU, and python3 with torch and
//! triton for the peers. `tools/gpu/run.sh baseline` writes the baselines it reads.

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;

use common::rtriton;

/// The repository root (the carried tree on the GPU machine: nextest's workspace remap
/// runs the tests from it).
fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// `h100` or `h200`: which card's records apply, from the device name.
fn gpu_folder() -> String {
    let out = Command::new("nvidia-smi").args(["--query-gpu=name", "--format=csv,noheader"]).output();
    let name = out.map(|o| String::from_utf8_lossy(&o.stdout).to_lowercase()).unwrap_or_default();
    match ["h100", "h200"].into_iter().find(|g| name.contains(g)) {
        Some(g) => g.to_string(),
        None => panic!("no recorded baseline for this GPU ({name:?}): record one with tools/gpu/run.sh baseline"),
    }
}

/// The shapes of the points a baseline records (a point's label ends with its shape), once
/// each, sorted.
fn recorded_shapes(baseline: &Path) -> Vec<String> {
    let mut shapes: Vec<String> =
        recorded_points(baseline).iter().filter_map(|p| p.rsplit(' ').next().map(str::to_string)).collect();
    shapes.sort();
    shapes.dedup();
    shapes
}

/// The points a baseline records.
fn recorded_points(baseline: &Path) -> Vec<String> {
    let text = std::fs::read_to_string(baseline)
        .unwrap_or_else(|e| panic!("{}: {e}; record it with tools/gpu/run.sh baseline", baseline.display()));
    let b: serde_json::Value = serde_json::from_str(&text).expect("a baseline");
    b["points"].as_object().expect("a baseline's points").keys().cloned().collect()
}

/// Runs a peer script to `out` and panics with its output when it fails.
fn peers(script: &str, args: &[String], out: &Path) {
    let status = Command::new("python3")
        .arg(root().join(script))
        .args(args)
        .arg("--out")
        .arg(out)
        .output()
        .expect("python3 runs");
    assert!(
        status.status.success(),
        "{script} failed:\n{}\n{}",
        String::from_utf8_lossy(&status.stdout),
        String::from_utf8_lossy(&status.stderr)
    );
}

#[test]
#[ignore = "needs a GPU, and python3 with torch and triton"]
fn the_ports_hold_their_recorded_ratio_to_the_best_peer() {
    let baseline = root().join(format!("bench/results/{}/ports-baseline.json", gpu_folder()));
    let dir = tempfile::tempdir().unwrap();
    let peer_json = dir.path().join("peers.json");
    // The peers on the recorded points' shapes (the script pairs 1-D shapes with the 1-D
    // kernel and 2-D ones with the others).
    let shapes = recorded_shapes(&baseline);
    let mut peer_args = vec!["--rep".to_string(), "50".to_string()];
    for s in &shapes {
        peer_args.extend(["--shape".to_string(), s.clone()]);
    }
    peers("bench/peers/tutorial_peers.py", &peer_args, &peer_json);
    let mut args = vec!["bench", "--kernel", "ports", "--iters", "20", "--warmup", "3", "--no-progress"];
    for s in &shapes {
        args.extend(["--point", s.as_str()]);
    }
    args.extend(["--peers", peer_json.to_str().unwrap(), "--baseline", baseline.to_str().unwrap()]);
    let (code, stdout, stderr) = rtriton(&args);
    assert_eq!(code, 0, "{stdout}\n{stderr}");
    assert!(stdout.contains(" regressed\n"), "{stdout}");
}

#[test]
#[ignore = "needs a GPU, and python3 with torch and triton"]
fn the_row_max_family_holds_its_recorded_ratio_to_the_best_peer() {
    let baseline = root().join(format!("bench/results/{}/row-max-baseline.json", gpu_folder()));
    let dir = tempfile::tempdir().unwrap();
    let peer_json = dir.path().join("peers.json");
    // A row-max point is `KERNEL SHAPE`.
    let shapes = recorded_shapes(&baseline);
    let mut peer_args = vec!["--rep".to_string(), "50".to_string()];
    let mut args = vec!["bench", "--iters", "20", "--no-progress"];
    for s in &shapes {
        peer_args.extend(["--shape".to_string(), s.clone()]);
        args.extend(["--shape", s.as_str()]);
    }
    peers("bench/peers/rowmax_peers.py", &peer_args, &peer_json);
    args.extend(["--peers", peer_json.to_str().unwrap(), "--baseline", baseline.to_str().unwrap()]);
    let (code, stdout, stderr) = rtriton(&args);
    assert_eq!(code, 0, "{stdout}\n{stderr}");
    assert!(stdout.contains(" regressed\n"), "{stdout}");
}
