//! `bench/peers/rowmax_peers.py` and `rtriton bench --peers` agree on the format: the
//! script's `--dry-run` (no GPU, no torch) writes every planned row, and the loader accepts
//! each one, which also checks that the script's strides and offsets for every view are
//! the ones `rtriton bench` means by the same shape name.

use std::process::Command;

use rtriton_host::bench::{BenchStatus, DEFAULT_SHAPES, RowKind, load_peers};

fn script() -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../bench/peers/rowmax_peers.py")
}

fn dry_run(extra: &[&str]) -> (std::process::Output, tempfile::TempDir) {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("peers.json");
    let output = Command::new("python3")
        .arg("-B") // no __pycache__ in the source tree
        .arg(script())
        .args(["--dry-run", "--out", out.to_str().unwrap()])
        .args(extra)
        .output()
        .expect("python3 runs (the peers script is Python; install python3)");
    (output, dir)
}

#[test]
fn the_dry_run_plans_every_default_shape_and_the_loader_accepts_every_row() {
    let (output, dir) = dry_run(&["--shape", "40x130:offset=3", "--shape", "50x300:stride=3"]);
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    let rows = load_peers(&dir.path().join("peers.json")).unwrap();
    assert_eq!(rows.len(), 2 * 3);
    assert!(rows.iter().all(|r| r.kind == RowKind::Peer && matches!(r.status, BenchStatus::CannotRun { .. })));
    assert_eq!(rows[0].offset, 3);
    assert_eq!((rows[3].stride_row, rows[3].stride_col), (900, 3));
    let (output, dir) = dry_run(&[]);
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    let rows = load_peers(&dir.path().join("peers.json")).unwrap();
    let shapes: Vec<_> = rows.iter().map(|r| r.shape.as_str()).step_by(3).collect();
    assert_eq!(shapes, DEFAULT_SHAPES);
    let impls: Vec<_> = rows[..3].iter().map(|r| r.kernel.as_str()).collect();
    assert_eq!(impls, ["torch.amax", "triton_autotuned", "cuda_reference"]);
}

#[test]
fn the_script_refuses_a_bad_shape_as_bench_does() {
    let (output, _dir) = dry_run(&["--shape", "4096x0:T"]);
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.ends_with(
            "error: --shape: COLS `0` must be at least 1; write ROWSxCOLS[:VIEW] with VIEW one of contiguous, T, \
             stride=K, offset=K (e.g. 8192x16384:T)\n"
        ),
        "{stderr}"
    );
}

/// `bench/peers/launch_peers.py --dry-run` writes the rows `rtriton bench --launch-overhead
/// --peers` reads, in its format, and names the peers the launch-overhead table compares.
#[test]
fn the_launch_peers_dry_run_is_what_the_launch_overhead_table_reads() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("launch.json");
    let script = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../bench/peers/launch_peers.py");
    let output = Command::new("python3")
        .arg("-B")
        .arg(script)
        .args(["--dry-run", "--out", out.to_str().unwrap()])
        .output()
        .expect("python3 runs");
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    let peers: rtriton_host::bench::launch_overhead::OverheadPeers =
        serde_json::from_str(&std::fs::read_to_string(&out).unwrap()).unwrap();
    let names: Vec<_> = peers.rows.iter().map(|r| r.what.as_str()).collect();
    assert_eq!(
        names,
        [
            "torch.amax, 1x1",
            "Triton kernel (cached)",
            "Triton kernel, autotuned (cached decision)",
            "torch CUDA graph of 100 Triton launches, per kernel"
        ]
    );
    let table = rtriton_host::bench::launch_overhead::render("dry run", &[], Some(&peers));
    assert!(table.contains("| torch.amax, 1x1 (peer) |"), "{table}");
}
