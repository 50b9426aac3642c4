//! Autotuning on the GPU: `row_max_2d` tuned over tile shapes and warps on real views. The
//! winner's result is bit-exact against `cpu_row_max`, a second launch of the key does not
//! tune, a new autotuner reads the winner from the on-disk store, an explicit configuration
//! skips tuning, and the user's buffers end as one launch of the winner left them (inputs
//! untouched, including when the output shares the input's buffer).
//!
//! Every test is `#[ignore = "needs a GPU"]`; run them with
//! `cargo test -p rtriton-host --test gpu_autotune -- --include-ignored`.

use rstest::rstest;
use rtriton_host::bench::{row_max_2d_autotuned, row_max_2d_configs};
use rtriton_host::driver::{DeviceBuffer, Gpu};
use rtriton_host::launch::{Arg, Runtime, TensorArg};
use rtriton_kernels::cases::random;
use rtriton_kernels::cpu_row_max;
use rtriton_runtime::autotune::{Autotuned, Config, Decision, Mode, Settings};

fn runtime(cache: &std::path::Path) -> Runtime {
    let gpu = Gpu::open(0).unwrap_or_else(|e| panic!("this test needs a GPU (run it on the GPU machine): {e}"));
    Runtime::with_disk_cache(gpu, Some(rtriton_host::cache::DiskCache::new(cache)))
}

fn bits(v: &[f32]) -> Vec<u32> {
    v.iter().map(|x| x.to_bits()).collect()
}

fn print_settings() -> Settings {
    Settings { print: true, ..Settings::in_memory() }
}

/// A view of `rows x cols` with these strides and offset in a buffer of `len` elements.
struct View {
    rows: usize,
    cols: usize,
    strides: [usize; 2],
    offset: usize,
    len: usize,
}

fn args<'a>(x: &'a DeviceBuffer<f32>, y: TensorArg<'a>, v: &View) -> Vec<Arg<'a>> {
    vec![
        Arg::Tensor(
            TensorArg::new(x, &[v.rows, v.cols], &[v.strides[0] as isize, v.strides[1] as isize]).with_offset(v.offset),
        ),
        Arg::Tensor(y),
        Arg::Int(v.rows as i64),
        Arg::Int(v.cols as i64),
        Arg::Int(v.strides[0] as i64),
        Arg::Int(v.strides[1] as i64),
    ]
}

#[rstest]
#[case::narrow_non_pow2(View { rows: 4096, cols: 1000, strides: [1000, 1], offset: 0, len: 4_096_000 })]
#[case::transposed(View { rows: 2048, cols: 3000, strides: [1, 2048], offset: 0, len: 2048 * 3000 })]
#[case::offset_tail(View { rows: 1000, cols: 77, strides: [77, 1], offset: 3, len: 77_003 })]
#[case::every_other_column(View { rows: 512, cols: 4096, strides: [8192, 2], offset: 0, len: 512 * 8192 })]
#[ignore = "needs a GPU"]
fn the_winner_is_bit_exact_and_a_second_launch_does_not_tune(#[case] v: View) {
    let cache = tempfile::tempdir().unwrap();
    let mut rt = runtime(cache.path());
    let host_x = random(7, v.len, -1000.0, 1000.0);
    let want = cpu_row_max(&host_x, v.offset, v.rows, v.cols, v.strides[0] as isize, v.strides[1] as isize, false);
    let x = DeviceBuffer::from_host(&rt.gpu, &host_x).unwrap();
    let mut y = DeviceBuffer::<f32>::zeros(&rt.gpu, v.rows).unwrap();
    y.fill_bytes(&rt.gpu, 0xff).unwrap();
    let mut k = row_max_2d_autotuned(v.rows).settings(print_settings());
    let (choice, _) = k.launch(&mut rt, &args(&x, TensorArg::contiguous(&y, &[v.rows]), &v)).unwrap();
    assert_eq!(choice.decision, Decision::Tuned);
    let report = k.last_report.clone().unwrap();
    println!("{report}");
    // Every declared configuration ran, agreed bit for bit with the first, and was timed.
    for c in row_max_2d_configs() {
        assert!(report.contains(&format!("  {c}: ")) && !report.contains("cannot run"), "{c}:\n{report}");
    }
    assert_eq!(bits(&y.to_host(&rt.gpu).unwrap()), bits(&want));
    assert_eq!(bits(&x.to_host(&rt.gpu).unwrap()), bits(&host_x), "tuning wrote to the input");
    // The same key again: no tuning, the same configuration, the same result.
    y.fill_bytes(&rt.gpu, 0xff).unwrap();
    let (again, _) = k.launch(&mut rt, &args(&x, TensorArg::contiguous(&y, &[v.rows]), &v)).unwrap();
    assert_eq!((again.decision, &again.config), (Decision::Memory, &choice.config));
    assert_eq!(k.stats.tunings, 1);
    assert_eq!(bits(&y.to_host(&rt.gpu).unwrap()), bits(&want));
}

#[test]
#[ignore = "needs a GPU"]
fn a_new_autotuner_reads_the_winner_from_disk_and_an_explicit_config_skips_tuning() {
    let cache = tempfile::tempdir().unwrap();
    let store = tempfile::tempdir().unwrap();
    let mut rt = runtime(cache.path());
    let v = View { rows: 3000, cols: 500, strides: [500, 1], offset: 0, len: 1_500_000 };
    let host_x = random(8, v.len, -1000.0, 1000.0);
    let want = cpu_row_max(&host_x, 0, v.rows, v.cols, 500, 1, false);
    let x = DeviceBuffer::from_host(&rt.gpu, &host_x).unwrap();
    let y = DeviceBuffer::<f32>::zeros(&rt.gpu, v.rows).unwrap();
    let settings = Settings { mode: Mode::Tune, store_dir: Some(store.path().to_path_buf()), ..print_settings() };
    let a = args(&x, TensorArg::contiguous(&y, &[v.rows]), &v);
    let (first, _) = row_max_2d_autotuned(v.rows).settings(settings.clone()).launch(&mut rt, &a).unwrap();
    assert_eq!(first.decision, Decision::Tuned);
    assert_eq!(std::fs::read_dir(store.path()).unwrap().count(), 1, "one stored result");
    let mut second = row_max_2d_autotuned(v.rows).settings(settings);
    let (read, _) = second.launch(&mut rt, &a).unwrap();
    assert_eq!((read.decision, &read.config), (Decision::Store, &first.config));
    assert_eq!(second.stats.tunings, 0);
    assert_eq!(bits(&y.to_host(&rt.gpu).unwrap()), bits(&want));
    // Explicit: no tuning, the named configuration (declared or not).
    let mut third = row_max_2d_autotuned(v.rows).settings(Settings::in_memory());
    let mine = Config::new(&[("BLOCK_M", 32), ("BLOCK_N", 32)]);
    let (c, _) = third.launch_config(&mut rt, &mine, &a).unwrap();
    assert_eq!((c.decision, c.index), (Decision::Explicit, None));
    assert_eq!(third.stats.tunings, 0);
    assert_eq!(bits(&y.to_host(&rt.gpu).unwrap()), bits(&want));
}

/// The output lives in the input's buffer (after the view): tuning runs on a clone of the
/// buffer, so the user's buffer is written once, by the winner, and the input region is
/// untouched. With `reset_to_zero` the output is zeroed before each launch instead.
#[rstest]
#[case::restore(false)]
#[case::reset_to_zero(true)]
#[ignore = "needs a GPU"]
fn an_output_sharing_the_inputs_buffer_is_tuned_on_a_clone(#[case] zero: bool) {
    let cache = tempfile::tempdir().unwrap();
    let mut rt = runtime(cache.path());
    let (rows, cols) = (2000usize, 300usize);
    let mut host = random(9, rows * cols + rows, -1000.0, 1000.0);
    let want = cpu_row_max(&host, 0, rows, cols, cols as isize, 1, false);
    for v in &mut host[rows * cols..] {
        *v = f32::from_bits(0xffff_ffff); // the output region starts as NaN
    }
    let buf = DeviceBuffer::from_host(&rt.gpu, &host).unwrap();
    let v = View { rows, cols, strides: [cols, 1], offset: 0, len: rows * cols };
    let out = TensorArg::new(&buf, &[rows], &[1]).with_offset(rows * cols);
    let base = row_max_2d_autotuned(rows);
    let k =
        Autotuned::new(base.base().clone(), row_max_2d_configs(), &["n_rows", "n_cols", "stride_row", "stride_col"]);
    let mut k = if zero { k.reset_to_zero(&["y_ptr"]) } else { k.restore_value(&["y_ptr"]) }.settings(print_settings());
    let (choice, _) = k.launch(&mut rt, &args(&buf, out, &v)).unwrap();
    assert_eq!(choice.decision, Decision::Tuned);
    let got = buf.to_host(&rt.gpu).unwrap();
    assert_eq!(bits(&got[..rows * cols]), bits(&host[..rows * cols]), "the input region changed");
    assert_eq!(bits(&got[rows * cols..]), bits(&want));
}

#[test]
#[ignore = "needs a GPU"]
fn a_configuration_the_device_cannot_run_is_skipped_and_reported() {
    let cache = tempfile::tempdir().unwrap();
    let mut rt = runtime(cache.path());
    let (rows, cols) = (256usize, 256usize);
    let host_x = random(10, rows * cols, -1000.0, 1000.0);
    let x = DeviceBuffer::from_host(&rt.gpu, &host_x).unwrap();
    let y = DeviceBuffer::<f32>::zeros(&rt.gpu, rows).unwrap();
    let base = row_max_2d_autotuned(rows).base().clone();
    // 64 warps = 2048 threads per program: over every NVIDIA GPU's 1024.
    let configs = vec![
        Config::new(&[("BLOCK_M", 1), ("BLOCK_N", 4096)]).num_warps(64),
        Config::new(&[("BLOCK_M", 16), ("BLOCK_N", 64)]),
    ];
    let mut k = Autotuned::new(base, configs.clone(), &["n_rows", "n_cols"])
        .restore_value(&["y_ptr"])
        .settings(print_settings());
    let v = View { rows, cols, strides: [cols, 1], offset: 0, len: rows * cols };
    let (choice, _) = k.launch(&mut rt, &args(&x, TensorArg::contiguous(&y, &[rows]), &v)).unwrap();
    assert_eq!(choice.config, configs[1]);
    let report = k.last_report.clone().unwrap();
    assert!(report.contains(&format!("  {}: cannot run: ", configs[0])), "{report}");
    assert_eq!(bits(&y.to_host(&rt.gpu).unwrap()), bits(&cpu_row_max(&host_x, 0, rows, cols, cols as isize, 1, false)));
}
