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
        "narrow",
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
            assert!(stdout.contains("262144x256_narrow (262144x256, strides (256, 1), 256 MiB read)"), "{stdout}");
            let report: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
            let kernels: Vec<_> = report["rows"].as_array().unwrap().iter().map(|r| r["kernel"].clone()).collect();
            assert_eq!(kernels, ["cuda_reference", "row_max_2d", "d2d_copy"]);
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
        "no shape name contains [\"nope\"]; the shapes are 32768x8192, 8192x32768, 262144x256_narrow, \
         8192x8192_transposed\n"
    );
    let (code, _, stderr) = rtriton(&["bench", "--iters", "0"]);
    assert_eq!(code, 2, "clap's usage error: {stderr}");
    // Empty text is in every name; a flush too large to count in bytes is refused, not wrapped.
    let (code, _, stderr) = rtriton(&["bench", "--shape", ""]);
    assert_eq!(code, 1);
    assert_eq!(
        stderr,
        "--shape \"\": empty text selects every shape; give part of a shape name (e.g. --shape transposed) or leave \
         --shape out\n"
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
