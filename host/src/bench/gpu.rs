//! The GPU runner: per shape, the reference (checked against the CPU), every variant, the
//! entry point and the autotuned kernel (checked bit for bit against the reference, then timed) and the
//! copy yardstick.

use rtriton::spec::SpecPolicy;
use rtriton_kernels::{RowMaxVariant, cpu_row_max};
use rtriton_runtime::autotune::{Decision, config_cannot_run};

use super::{
    AUTOTUNED_NAME, BenchOptions, BenchReport, BenchRow, BenchShape, BenchStatus, L2Flush, RowKind, Summary,
    derive_ratios, flush_bytes, row_max_2d_autotuned,
};
use crate::driver::{DeviceBuffer, Timer};
use crate::error::HostError;
use crate::launch::{Arg, JitKernel, Runtime, TensorArg};
use crate::reference::RowMaxReference;
use crate::row_max::{ENTRY_NAME, RowMax};
use crate::validate::{compare_bits, launch_shape_for};

/// Runs the benchmark on device 0. Fails before measuring anything when there is no GPU
/// ([`HostError::is_no_gpu`]) or the reference cannot be compiled.
pub fn run_bench(options: &BenchOptions) -> Result<BenchReport, HostError> {
    let mut rt = Runtime::new()?;
    let reference = RowMaxReference::compile(&rt.gpu)?;
    let flush_len = options.flush_bytes.unwrap_or_else(|| flush_bytes(rt.gpu.info.l2_cache_bytes));
    let mut flush = L2Flush::new(&rt.gpu, flush_len)?;
    // One entry point for the run: a shape class tuned for one shape is reused by the next.
    let mut entry = RowMax::new();
    let mut rows = Vec::new();
    for shape in &options.shapes {
        if options.progress {
            eprintln!("bench: {shape} ...");
        }
        match bench_shape(&mut rt, &reference, &mut flush, &mut entry, options, shape) {
            Ok(mut r) => rows.append(&mut r),
            Err(e) => rows.push(row(
                shape,
                "cuda_reference",
                RowKind::Reference,
                BenchStatus::Error { message: e.to_string() },
            )),
        }
    }
    derive_ratios(&mut rows);
    let device = format!(
        "{}; rtriton PTX targets sm_86 (.target sm_86) and the reference is NVRTC PTX for compute_86, both \
         JIT-compiled by the driver for this GPU: these are times on this GPU, not sm_86 times",
        rt.gpu.info.summary()
    );
    Ok(BenchReport::new(device, options.warmup, options.iters, flush.bytes(), rows))
}

/// A row with no measurement yet.
pub(crate) fn row(shape: &BenchShape, kernel: &str, kind: RowKind, status: BenchStatus) -> BenchRow {
    let l = shape.layout();
    let view_bytes = (shape.numel() * 4) as u64;
    BenchRow {
        shape: shape.to_string(),
        n_rows: shape.n_rows,
        n_cols: shape.n_cols,
        stride_row: l.stride_row,
        stride_col: l.stride_col,
        offset: l.offset,
        kernel: kernel.to_string(),
        kind,
        config: String::new(),
        spec_key: String::new(),
        bytes: if kind == RowKind::Copy { 2 * view_bytes } else { view_bytes },
        status,
        gb_per_s: None,
        speed_vs_reference: None,
        fraction_of_copy_bandwidth: None,
        speed_vs_best_peer: None,
    }
}

/// The status of a kernel that failed before it was timed: a refusal of this shape by
/// design (front end, PTX back end, launch checks, overflow guard) is `CannotRun`, a
/// failure of the device or host is an `Error`.
fn not_run(e: HostError) -> BenchStatus {
    if config_cannot_run(&e) {
        BenchStatus::CannotRun { reason: e.to_string() }
    } else {
        BenchStatus::Error { message: e.to_string() }
    }
}

/// `warmup` untimed calls of `launch`, then `iters` calls each after an L2 flush and
/// between two CUDA events; all are queued before the first time is read.
fn time_launches(
    rt: &mut Runtime,
    flush: &mut L2Flush,
    options: &BenchOptions,
    mut launch: impl FnMut(&mut Runtime) -> Result<(), HostError>,
) -> Result<BenchStatus, HostError> {
    for _ in 0..options.warmup {
        launch(rt)?;
    }
    rt.gpu.synchronize()?;
    let mut timers = Vec::with_capacity(options.iters);
    for _ in 0..options.iters {
        flush.run(&rt.gpu)?;
        let timer = Timer::start(&rt.gpu)?;
        launch(rt)?;
        timer.end(&rt.gpu)?;
        timers.push(timer);
    }
    let times = timers.iter().map(Timer::elapsed_ms).collect::<Result<Vec<_>, _>>()?;
    Ok(match Summary::of(&times) {
        Some(summary) => BenchStatus::Timed { summary },
        None => BenchStatus::Error { message: format!("no usable times (iters = {}): {times:?}", options.iters) },
    })
}

fn bench_shape(
    rt: &mut Runtime,
    reference: &RowMaxReference,
    flush: &mut L2Flush,
    entry: &mut RowMax,
    options: &BenchOptions,
    shape: &BenchShape,
) -> Result<Vec<BenchRow>, HostError> {
    let l = shape.layout();
    let host_x = shape.input();
    let cpu =
        cpu_row_max(&host_x, l.offset, shape.n_rows, shape.n_cols, l.stride_row as isize, l.stride_col as isize, false);
    let x = DeviceBuffer::from_host(&rt.gpu, &host_x)?;
    drop(host_x);
    let mut y = DeviceBuffer::<f32>::zeros(&rt.gpu, shape.n_rows)?;
    let dims = [shape.n_rows, shape.n_cols];
    let strides = [l.stride_row as isize, l.stride_col as isize];
    let view = || TensorArg::new(&x, &dims, &strides).with_offset(l.offset);
    let mut out = Vec::new();

    // The reference: checked against the CPU once, then timed.
    y.fill_bytes(&rt.gpu, 0xff)?;
    reference.run(&rt.gpu, &view(), &mut y)?;
    let want = y.to_host(&rt.gpu)?;
    let vs_cpu = compare_bits(&want, &cpu);
    let status = if vs_cpu.equal() {
        time_launches(rt, flush, options, |rt| reference.run(&rt.gpu, &view(), &mut y))?
    } else {
        BenchStatus::Wrong { detail: vs_cpu.describe("cpu_row_max") }
    };
    out.push(row(shape, "cuda_reference", RowKind::Reference, status));

    for &variant in &options.variants {
        let mut r = row(shape, variant.name(), RowKind::Variant, BenchStatus::Error { message: "not run".into() });
        r.status = bench_variant(rt, flush, options, variant, shape, &x, &mut y, &want, &mut r).unwrap_or_else(not_run);
        out.push(r);
    }
    if options.entry {
        let mut r = row(shape, ENTRY_NAME, RowKind::EntryPoint, BenchStatus::Error { message: "not run".into() });
        r.status = bench_entry(rt, flush, options, entry, shape, &x, &mut y, &want, &mut r).unwrap_or_else(not_run);
        out.push(r);
    }
    if options.autotune {
        let mut r = row(shape, AUTOTUNED_NAME, RowKind::Autotuned, BenchStatus::Error { message: "not run".into() });
        r.status = bench_autotuned(rt, flush, options, shape, &x, &mut y, &want, &mut r).unwrap_or_else(not_run);
        out.push(r);
    }

    // The yardstick: a device-to-device copy of the input buffer (the view's bytes for
    // these shapes), reading and writing each byte once.
    let mut dst = DeviceBuffer::<f32>::zeros(&rt.gpu, x.len())?;
    let mut copy = row(shape, "d2d_copy", RowKind::Copy, BenchStatus::Error { message: "not run".into() });
    copy.bytes = 2 * (x.len() * 4) as u64;
    copy.status = time_launches(rt, flush, options, |rt| dst.copy_from(&rt.gpu, &x))?;
    out.push(copy);
    Ok(out)
}

/// One variant: a launch checked bit for bit against the reference's rows `want`, then
/// timed (or the mismatch, and no time).
fn bench_variant(
    rt: &mut Runtime,
    flush: &mut L2Flush,
    options: &BenchOptions,
    variant: RowMaxVariant,
    shape: &BenchShape,
    x: &DeviceBuffer<f32>,
    y: &mut DeviceBuffer<f32>,
    want: &[f32],
    r: &mut BenchRow,
) -> Result<BenchStatus, HostError> {
    let l = shape.layout();
    let launch = launch_shape_for(variant, shape.n_rows, shape.n_cols);
    let grid = launch.grid;
    r.config = launch
        .constexprs
        .iter()
        .map(|(n, v)| format!("{n}={v}"))
        .chain([format!("warps={}", launch.num_warps)])
        .collect::<Vec<_>>()
        .join(" ");
    let kernel = JitKernel::new(variant.def())
        .constexprs(&launch.constexprs)
        .num_warps(launch.num_warps)
        .spec_policy(SpecPolicy::Triton)
        .grid(move |_| [grid, 1, 1]);
    let dims = [shape.n_rows, shape.n_cols];
    let strides = [l.stride_row as isize, l.stride_col as isize];
    y.fill_bytes(&rt.gpu, 0xff)?;
    let y: &DeviceBuffer<f32> = y;
    let args = [
        Arg::Tensor(TensorArg::new(x, &dims, &strides).with_offset(l.offset)),
        Arg::Tensor(TensorArg::contiguous(y, &[shape.n_rows])),
        Arg::Int(shape.n_rows as i64),
        Arg::Int(shape.n_cols as i64),
        Arg::Int(l.stride_row as i64),
        Arg::Int(l.stride_col as i64),
    ];
    let record = rt.launch(&kernel, &args)?;
    r.spec_key = record.spec.to_string();
    let got = y.to_host(&rt.gpu)?;
    let c = compare_bits(&got, want);
    if !c.equal() {
        return Ok(BenchStatus::Wrong { detail: c.describe("the CUDA reference") });
    }
    time_launches(rt, flush, options, |rt| rt.launch(&kernel, &args).map(drop))
}

/// The entry point: its first call tunes the shape's class (unless an earlier shape of the
/// class did) and is checked bit for bit against the reference; then whole calls are
/// timed, the identity fill of a split choice included (it is part of the entry point's
/// cost).
#[allow(clippy::too_many_arguments, reason = "as bench_variant, plus the entry point")]
fn bench_entry(
    rt: &mut Runtime,
    flush: &mut L2Flush,
    options: &BenchOptions,
    entry: &mut RowMax,
    shape: &BenchShape,
    x: &DeviceBuffer<f32>,
    y: &mut DeviceBuffer<f32>,
    want: &[f32],
    r: &mut BenchRow,
) -> Result<BenchStatus, HostError> {
    let l = shape.layout();
    let dims = [shape.n_rows, shape.n_cols];
    let strides = [l.stride_row as isize, l.stride_col as isize];
    y.fill_bytes(&rt.gpu, 0xff)?;
    let y: &DeviceBuffer<f32> = y;
    let xv = TensorArg::new(x, &dims, &strides).with_offset(l.offset);
    let yv = TensorArg::contiguous(y, &[shape.n_rows]);
    let Some(launched) = entry.run(rt, &xv, &yv)? else {
        return Ok(BenchStatus::CannotRun { reason: "no rows: nothing to launch".into() });
    };
    let how = match launched.decision {
        Decision::Tuned => "tuned now",
        Decision::Memory => "tuned earlier",
        Decision::Store => "from the tuning store",
        Decision::Explicit => "explicit",
        Decision::First => "tuning off",
    };
    let fill = if launched.filled { ", y filled" } else { "" };
    r.config = format!("{} [{}, {how}{fill}]", launched.config, launched.class.name());
    r.spec_key = launched.record.spec.to_string();
    let got = y.to_host(&rt.gpu)?;
    let c = compare_bits(&got, want);
    if !c.equal() {
        return Ok(BenchStatus::Wrong { detail: c.describe("the CUDA reference") });
    }
    time_launches(rt, flush, options, |rt| entry.run(rt, &xv, &yv).map(drop))
}

/// The autotuned kernel: the first launch tunes it for this shape (each configuration
/// checked against the first, then timed) and is checked bit for bit against the
/// reference; then the chosen configuration is timed as a plain launch, as the variants are.
fn bench_autotuned(
    rt: &mut Runtime,
    flush: &mut L2Flush,
    options: &BenchOptions,
    shape: &BenchShape,
    x: &DeviceBuffer<f32>,
    y: &mut DeviceBuffer<f32>,
    want: &[f32],
    r: &mut BenchRow,
) -> Result<BenchStatus, HostError> {
    let l = shape.layout();
    let mut tuned = row_max_2d_autotuned(shape.n_rows);
    let dims = [shape.n_rows, shape.n_cols];
    let strides = [l.stride_row as isize, l.stride_col as isize];
    y.fill_bytes(&rt.gpu, 0xff)?;
    let y: &DeviceBuffer<f32> = y;
    let args = [
        Arg::Tensor(TensorArg::new(x, &dims, &strides).with_offset(l.offset)),
        Arg::Tensor(TensorArg::contiguous(y, &[shape.n_rows])),
        Arg::Int(shape.n_rows as i64),
        Arg::Int(shape.n_cols as i64),
        Arg::Int(l.stride_row as i64),
        Arg::Int(l.stride_col as i64),
    ];
    let (choice, record) = tuned.launch(rt, &args)?;
    let how = match choice.decision {
        Decision::Tuned => "tuned now",
        Decision::Memory => "tuned earlier",
        Decision::Store => "from the tuning store",
        Decision::Explicit => "explicit",
        Decision::First => "tuning off",
    };
    r.config = format!("{} [{how}]", choice.config);
    r.spec_key = record.spec.to_string();
    let got = y.to_host(&rt.gpu)?;
    let c = compare_bits(&got, want);
    if !c.equal() {
        return Ok(BenchStatus::Wrong { detail: c.describe("the CUDA reference") });
    }
    let kernel = choice.config.apply(tuned.base());
    time_launches(rt, flush, options, |rt| rt.launch(&kernel, &args).map(drop))
}
