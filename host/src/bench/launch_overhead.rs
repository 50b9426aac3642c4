//! `rtriton bench --launch-overhead`: the host time of one launch, as a Rust program sees
//! it. Each figure is [`LAUNCHES`] launches of a one-program kernel enqueued back to back,
//! then one synchronize, divided by the launches (the median of [`REPEATS`] such runs):
//! the kernels take about a microsecond on the device, so the time is the host's
//! enqueueing, as long as it exceeds the device's.
//!
//! Rows: the driver's own floor (`cuLaunchKernel` on a loaded module, nothing else), a
//! user kernel through [`Runtime::launch`] (checks, signature lookup, driver call), the
//! row-max entry point on a 1x1 input ([`RowMax::run`]: its input checks and tuner lookup
//! on top), and a CUDA graph of [`GRAPH_KERNELS`] launches replayed, per kernel, beside the
//! same launches made directly on the graph's stream. `bench/peers/launch_peers.py`
//! measures torch and Triton the same way; `--peers` joins its rows.

use std::time::Instant;

use rtriton::kernel;
use rtriton::prelude::*;
use rtriton::session::CompileSession;
use rtriton::spec::SpecKey;
use rtriton_runtime::driver::{DeviceBuffer, LoadedModule, RawParam};
use rtriton_runtime::launch::{Arg, JitKernel, Runtime, TensorArg, arg_values, compile_kernel};
use serde::{Deserialize, Serialize};

use crate::error::HostError;
use crate::row_max::RowMax;

/// Launches per timed run.
pub const LAUNCHES: usize = 20_000;
/// Timed runs per row (the row is their median).
pub const REPEATS: usize = 5;
/// Launches one graph holds.
pub const GRAPH_KERNELS: usize = 100;

kernel! {
    /// `y[i] = x[i] + 1` for `i < n`: the smallest kernel with a tensor, a mask and a
    /// scalar argument, launched as one program.
    pub fn add_one(x_ptr: Ptr<f32>, y_ptr: Ptr<f32>, n: i32; const BLOCK: usize) {
        let offs = arange(0, BLOCK);
        let mask = offs.lt(n);
        let x = load(x_ptr + offs, Some(mask), Some(0.0));
        store(y_ptr + offs, x + 1.0, Some(mask));
    }
}

/// One row of the table.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct OverheadRow {
    pub what: String,
    pub us_per_launch: f64,
}

/// The peers' rows (`bench/peers/launch_peers.py --out FILE`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct OverheadPeers {
    pub device: String,
    pub rows: Vec<OverheadRow>,
}

/// The median of `REPEATS` runs of `launches` calls of `launch`, synchronized by `sync`,
/// in microseconds per call; both get `state` (what they launch through).
fn per_launch<S: ?Sized>(
    state: &mut S,
    launches: usize,
    mut launch: impl FnMut(&mut S) -> Result<(), HostError>,
    mut sync: impl FnMut(&mut S) -> Result<(), HostError>,
) -> Result<f64, HostError> {
    // Warm: the first calls compile, load and tune.
    for _ in 0..100 {
        launch(state)?;
    }
    sync(state)?;
    let mut runs = Vec::with_capacity(REPEATS);
    for _ in 0..REPEATS {
        let t = Instant::now();
        for _ in 0..launches {
            launch(state)?;
        }
        sync(state)?;
        runs.push(t.elapsed().as_secs_f64() * 1e6 / launches as f64);
    }
    runs.sort_by(f64::total_cmp);
    Ok(runs[REPEATS / 2])
}

/// Every row, measured on `rt`'s device.
pub fn run(rt: &mut Runtime) -> Result<Vec<OverheadRow>, HostError> {
    let n = 32usize;
    let x = DeviceBuffer::from_host(&rt.gpu, &vec![1.0f32; n])?;
    let y = DeviceBuffer::<f32>::zeros(&rt.gpu, n)?;
    let k = JitKernel::new(add_one()).constexpr("BLOCK", n as i64).num_warps(1);
    let args: [Arg<'_>; 3] =
        [TensorArg::contiguous(&x, &[n]).into(), TensorArg::contiguous(&y, &[n]).into(), Arg::Int(n as i64)];
    let mut rows = Vec::new();
    let row = |what: &str, us: f64| OverheadRow { what: what.to_string(), us_per_launch: us };

    // The floor: the same kernel's module launched with its raw parameters.
    let values = arg_values(k.def.name, &k.def.params, &args)?;
    let spec = SpecKey::from_args(k.def.name, &k.def.params, &values, k.spec_policy)
        .map_err(|e| HostError::Launch(e.into()))?;
    let ptx = compile_kernel(&mut CompileSession::new(), &k, &spec)?;
    let module = LoadedModule::load(&rt.gpu, &ptx.text, &ptx.entry)?;
    let params = [RawParam::Ptr(x.raw().ptr), RawParam::Ptr(y.raw().ptr), RawParam::I32(n as i32)];
    // SAFETY: the parameters follow the entry's signature (two tensors of `n` f32 and
    // `n`), both buffers live through the synchronizations below.
    let launch_raw =
        |rt: &mut Runtime| unsafe { module.launch(&rt.gpu, [1, 1, 1], [ptx.threads_per_cta, 1, 1], &params) };
    let floor = per_launch(rt, LAUNCHES, launch_raw, |rt| rt.gpu.synchronize())?;
    rows.push(row("cuLaunchKernel alone (the driver's floor)", floor));

    let direct = per_launch(rt, LAUNCHES, |rt| rt.launch(&k, &args).map(drop), |rt| rt.gpu.synchronize())?;
    rows.push(row("rtriton user kernel, Runtime::launch", direct));

    let xm = DeviceBuffer::from_host(&rt.gpu, &[3.0f32])?;
    let ym = DeviceBuffer::<f32>::zeros(&rt.gpu, 1)?;
    let (xa, ya) = (TensorArg::contiguous(&xm, &[1, 1]), TensorArg::contiguous(&ym, &[1]));
    let mut entry = RowMax::new();
    let row_max = per_launch(rt, LAUNCHES, |rt| entry.run(rt, &xa, &ya).map(drop), |rt| rt.gpu.synchronize())?;
    rows.push(row("RowMax::run, 1x1", row_max));

    // A graph of GRAPH_KERNELS launches, and the same launches direct on its stream.
    let stream = rt.gpu.context().new_stream().map_err(HostError::driver("cuStreamCreate"))?;
    let graph = rt.capture(&stream, |rt, s| {
        for _ in 0..GRAPH_KERNELS {
            rt.launch_on(s, &k, &args)?;
        }
        Ok(())
    })?;
    graph.upload()?;
    let per_graph = per_launch(&mut (), LAUNCHES / GRAPH_KERNELS, |_| graph.replay(), |_| graph.synchronize())?;
    let graph_row = format!("rtriton graph replay, per kernel ({GRAPH_KERNELS} a graph)");
    rows.push(row(&graph_row, per_graph / GRAPH_KERNELS as f64));
    let sync_stream = |_: &mut Runtime| stream.synchronize().map_err(HostError::driver("cuStreamSynchronize"));
    let on_stream = per_launch(rt, LAUNCHES, |rt| rt.launch_on(&stream, &k, &args).map(drop), sync_stream)?;
    rows.push(row("rtriton user kernel, Runtime::launch_on the graph's stream", on_stream));
    // Every launch wrote y = x + 1: a launch that did nothing would time as fast.
    let got = y.to_host(&rt.gpu)?;
    if got.iter().any(|&v| v != 2.0) {
        return Err(HostError::Driver { op: "launch overhead", message: format!("add_one wrote {got:?}, not 2.0s") });
    }
    Ok(rows)
}

/// The table: every row with its ratio to the driver's floor.
pub fn render(device: &str, rows: &[OverheadRow], peers: Option<&OverheadPeers>) -> String {
    let floor = rows.first().map_or(f64::NAN, |r| r.us_per_launch);
    let mut s = format!(
        "Launch overhead on {device}: host time per launch, {LAUNCHES} launches of a one-program kernel then one \
         synchronize, median of {REPEATS} runs\n\n| what | us per launch | x the driver's floor |\n|---|---|---|\n"
    );
    let all = rows.iter().map(|r| ("rtriton", r)).chain(peers.iter().flat_map(|p| p.rows.iter().map(|r| ("peer", r))));
    for (who, r) in all {
        let name = if who == "peer" { format!("{} (peer)", r.what) } else { r.what.clone() };
        s.push_str(&format!("| {name} | {:.2} | {:.2} |\n", r.us_per_launch, r.us_per_launch / floor));
    }
    if let Some(p) = peers
        && p.device != device
    {
        s.push_str(&format!("\nwarning: the peers were measured on {}, not {device}\n", p.device));
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_table_puts_peers_after_rtriton_with_ratios_to_the_floor() {
        let rows = vec![
            OverheadRow { what: "cuLaunchKernel alone (the driver's floor)".into(), us_per_launch: 2.0 },
            OverheadRow { what: "rtriton user kernel, Runtime::launch".into(), us_per_launch: 2.5 },
        ];
        let peers = OverheadPeers {
            device: "NVIDIA H100".into(),
            rows: vec![OverheadRow { what: "torch.amax".into(), us_per_launch: 6.0 }],
        };
        let t = render("NVIDIA H100", &rows, Some(&peers));
        assert!(t.contains("| rtriton user kernel, Runtime::launch | 2.50 | 1.25 |"), "{t}");
        assert!(t.contains("| torch.amax (peer) | 6.00 | 3.00 |"), "{t}");
        assert!(!t.contains("warning"), "{t}");
        assert!(render("NVIDIA H200", &rows, Some(&peers)).contains("warning: the peers were measured on NVIDIA H100"));
    }
}
