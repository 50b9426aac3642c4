//! `bench --kernel NAME|ports`: GPU time of the tutorial ports, with the row-max bench's
//! methodology (each launch checked against the suite's CPU reference under the suite's
//! rule before any time is taken; warm-up launches; then every timed repetition after an
//! L2 flush, between two CUDA events; medians), on the points
//! `bench/peers/tutorial_peers.py` measures torch and Triton on, so the two JSON files
//! join into one table ([`combine`]) with the ratio to the best peer.
//!
//! Bandwidth is bytes read + written (as the peer script counts them) per second, in
//! TB/s (10^12 bytes).

use std::path::Path;

use rtriton::spec::SpecPolicy;
use rtriton_runtime::HostError;
use rtriton_runtime::driver::Timer;
use rtriton_runtime::launch::Runtime;
use rtriton_testing::compare::differences;
use rtriton_testing::run::gpu::GpuCase;
use rtriton_testing::run::{Outputs, RunError};
use rtriton_testing::{Case, Suite};
use serde::{Deserialize, Serialize};

use super::overrides::Overrides;
use super::{L2Flush, Summary, flush_bytes};
use crate::ports::BenchPoint;
use crate::ports::bench::{Target, shape_text};
use crate::provenance::Provenance;

/// One port measurement (`impl` is always `rtriton`; the peer file's rows have the same
/// fields, so a row reads the same in both).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PortRow {
    pub kernel: String,
    /// `dim1`/`dim0` for a reduction along that dimension, `lock` for the tutorial's
    /// layer-norm backward measured beside the planned form, else empty.
    #[serde(default)]
    pub variant: String,
    pub dtype: String,
    pub shape: Vec<usize>,
    #[serde(rename = "impl")]
    pub implementation: String,
    /// The launches' kernels, constexprs and warps.
    pub config: String,
    /// Median milliseconds of the whole point (all its launches), when it was timed.
    pub ms: Option<f64>,
    pub summary: Option<Summary>,
    pub bytes: u64,
    pub tbps: Option<f64>,
    /// `2 M N K / time` for a point that counts its flops (matmul), in TFLOPS.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tflops: Option<f64>,
    /// `ok (RULE)`, `MISMATCH: ...` or `ERROR: ...`.
    pub check: String,
}

impl PortRow {
    pub fn failed(&self) -> bool {
        self.ms.is_none()
    }

    /// `softmax f32 4096x1024`, `argmax (dim0) i32 4096x1024`: as the bench point's label.
    pub fn label(&self) -> String {
        let v = if self.variant.is_empty() { String::new() } else { format!(" ({})", self.variant) };
        format!("{}{v} {} {}", self.kernel, self.dtype, crate::ports::bench::shape_text(&self.shape))
    }
}

/// Everything one `bench --kernel` run measured.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct PortsReport {
    /// `rtriton --version`'s line for the binary that measured.
    pub build: String,
    pub device: String,
    pub warmup: usize,
    pub iters: usize,
    pub flush_bytes: usize,
    /// The launch overrides every point ran under (`--set`, `--warps`, ...), empty when
    /// the points ran as their ports plan them.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub overrides: String,
    pub rows: Vec<PortRow>,
}

impl PortsReport {
    pub fn failed(&self) -> usize {
        self.rows.iter().filter(|r| r.failed()).count()
    }

    pub fn heading(&self) -> String {
        let overrides = if self.overrides.is_empty() {
            String::new()
        } else {
            format!("\nlaunch overrides (not the ports' plans): {}", self.overrides)
        };
        format!(
            "{}\ndevice: {}\nper point: launches checked against the CPU reference first; {} warm-up repetitions, then {} \
             each timed with CUDA events after writing {} MiB to flush L2; TB/s = bytes read + written / median time{overrides}",
            self.build,
            self.device,
            self.warmup,
            self.iters,
            self.flush_bytes >> 20
        )
    }
}

/// How `bench --kernel` measures.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PortsBenchOptions {
    pub warmup: usize,
    pub iters: usize,
    /// Bytes written to flush L2 (`None`: the runtime's default for the device).
    pub flush_bytes: Option<usize>,
    pub progress: bool,
    /// Launches whose largest buffer holds more elements than this are timed without the
    /// CPU reference check, and their rows say so (the f64 reference of a 2^28-element
    /// add takes about a minute on one core; `validate` checks the same kernels and
    /// configurations on the suites' shapes).
    pub check_limit: usize,
    /// Launch overrides applied to every point (empty: the ports' own launches).
    pub overrides: Overrides,
}

/// The default `--check-limit`: 2^26 elements (every 2-D point of the peer script; the
/// 2^28-element adds are timed unchecked).
pub const DEFAULT_CHECK_LIMIT: usize = 1 << 26;

/// Measures every point on device 0.
pub fn run_ports_bench(points: &[BenchPoint], o: &PortsBenchOptions) -> Result<PortsReport, HostError> {
    let (warmup, iters, progress) = (o.warmup, o.iters, o.progress);
    let mut rt = Runtime::new()?;
    let flush_len = o.flush_bytes.unwrap_or_else(|| flush_bytes(rt.gpu.info.l2_cache_bytes));
    let mut l2 = L2Flush::new(&rt.gpu, flush_len)?;
    let target = Target { sm_count: rt.gpu.info.multiprocessor_count };
    let mut rows = Vec::new();
    // The CPU side (inputs, f64 references) takes far longer than the GPU side: worker
    // threads prepare the points ahead, a few at a time (each can hold gigabytes), and
    // this thread measures them in order.
    let workers = std::thread::available_parallelism().map_or(1, |n| n.get()).clamp(1, 8);
    let next = std::sync::atomic::AtomicUsize::new(0);
    std::thread::scope(|scope| -> Result<(), HostError> {
        let (tx, rx) = std::sync::mpsc::sync_channel::<(usize, Result<Vec<Prepared>, String>)>(workers);
        for _ in 0..workers {
            let (tx, next) = (tx.clone(), &next);
            scope.spawn(move || {
                loop {
                    let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                    let Some(p) = points.get(i) else { break };
                    if tx.send((i, prepare(p, target, o.check_limit, &o.overrides))).is_err() {
                        break;
                    }
                }
            });
        }
        drop(tx);
        let mut ready = std::collections::BTreeMap::new();
        for i in 0..points.len() {
            let prepared = loop {
                if let Some(p) = ready.remove(&i) {
                    break p;
                }
                let (j, p) = rx.recv().expect("a worker prepares every point");
                ready.insert(j, p);
            };
            let p = &points[i];
            if progress {
                eprintln!("[{}/{}] {}", i + 1, points.len(), p.label());
            }
            let row = match measure(&mut rt, &mut l2, p, prepared, warmup, iters) {
                Ok(mut row) if !o.overrides.is_empty() => {
                    row.config = format!("{} [{}]", row.config, o.overrides.describe());
                    row
                }
                Ok(row) => row,
                Err(e) => {
                    // Stop the workers before returning the error.
                    next.store(points.len(), std::sync::atomic::Ordering::Relaxed);
                    drop(rx);
                    return Err(e);
                }
            };
            if progress {
                eprintln!("    {}", row_line(&row));
            }
            rows.push(row);
        }
        Ok(())
    })?;
    let device = format!(
        "{}; rtriton PTX targets sm_86 (.target sm_86), JIT-compiled by the driver for this GPU: these are times on \
         this GPU, not sm_86 times; rows marked sm_90a target sm_90a (.target sm_90a, wgmma)",
        rt.gpu.info.summary()
    );
    Ok(PortsReport {
        build: Provenance::current().line(),
        device,
        warmup,
        iters,
        flush_bytes: l2.bytes(),
        overrides: o.overrides.describe(),
        rows,
    })
}

fn row_line(r: &PortRow) -> String {
    match r.tbps {
        Some(t) => match r.tflops {
            Some(f) => format!("{f:.1} TFLOPS, {t:.3} TB/s ({:.4} ms), {}", r.ms.unwrap_or_default(), r.check),
            None => format!("{t:.3} TB/s ({:.4} ms), {}", r.ms.unwrap_or_default(), r.check),
        },
        None => r.check.clone(),
    }
}

/// A driver error that poisons the context ends the run (nothing after it could be
/// trusted); anything else is this point's failure.
fn fatal(e: RunError) -> Result<String, HostError> {
    match e {
        RunError::Gpu(h) if h.is_context_poisoned() || h.is_no_gpu() => Err(h),
        RunError::StickyDriverError(m) => Err(host_error(RunError::StickyDriverError(m))),
        other => Ok(other.to_string()),
    }
}

/// A harness error as the runtime's (the timing loop returns those).
fn host_error(e: RunError) -> HostError {
    match e {
        RunError::Gpu(h) => h,
        other => HostError::Driver { op: "bench launch", message: other.to_string() },
    }
}

/// One launch of a point, built on a worker thread: its suite and case, and the CPU
/// reference's outputs unless the case is over the check limit (then why not).
struct Prepared {
    suite: Suite,
    case: Case,
    expected: Result<Outputs, String>,
}

/// The point's launches with the overrides applied (or why they do not fit the point).
fn prepare(p: &BenchPoint, target: Target, check_limit: usize, overrides: &Overrides) -> Result<Vec<Prepared>, String> {
    let mut launches = (p.launches)(target);
    overrides.apply(&mut launches)?;
    Ok(launches
        .into_iter()
        .map(|(suite, case)| {
            let largest = case.tensors().map(|t| t.data.len()).max().unwrap_or(0);
            let expected = if largest > check_limit {
                Err(format!("{}: unchecked, {largest} elements over --check-limit {check_limit}", suite.def.name))
            } else {
                Ok(suite.expected(&case))
            };
            Prepared { suite, case, expected }
        })
        .collect())
}

fn measure(
    rt: &mut Runtime,
    l2: &mut L2Flush,
    p: &BenchPoint,
    launches: Result<Vec<Prepared>, String>,
    warmup: usize,
    iters: usize,
) -> Result<PortRow, HostError> {
    let (launches, refused) = match launches {
        Ok(l) => (l, None),
        Err(why) => (Vec::new(), Some(why)),
    };
    let config = launches
        .iter()
        .map(|l| {
            let consts: Vec<String> = l.case.constexprs.iter().map(|(n, v)| format!("{n}={v}")).collect();
            format!("{} {} warps={}", l.suite.def.name, consts.join(" "), l.case.num_warps)
        })
        .collect::<Vec<_>>()
        .join("; ");
    let mut row = PortRow {
        kernel: p.kernel.to_string(),
        variant: p.variant.to_string(),
        dtype: p.dtype.to_string(),
        shape: p.shape.clone(),
        implementation: "rtriton".into(),
        config,
        ms: None,
        summary: None,
        bytes: p.bytes,
        tbps: None,
        tflops: None,
        check: String::new(),
    };
    if let Some(why) = refused {
        row.config = "(launch overrides refused)".into();
        row.check = format!("ERROR: {why}");
        return Ok(row);
    }
    let mut on_device = Vec::new();
    let mut rules = Vec::new();
    for Prepared { suite, case, expected } in &launches {
        let uploaded = match GpuCase::upload(rt, &suite.def, case, SpecPolicy::Triton) {
            Ok(u) => u,
            Err(e) => {
                row.check = format!("ERROR: {}: {}", suite.def.name, fatal(e)?);
                return Ok(row);
            }
        };
        let checked = uploaded
            .launch(rt)
            .and_then(|()| rt.gpu.synchronize().map_err(RunError::Gpu))
            .and_then(|()| uploaded.read_outputs(rt));
        let got = match checked {
            Ok(g) => g,
            Err(e) => {
                row.check = format!("ERROR: {}: {}", suite.def.name, fatal(e)?);
                return Ok(row);
            }
        };
        let want = match expected {
            Ok(want) => want,
            Err(unchecked) => {
                rules.push(unchecked.clone());
                on_device.push(uploaded);
                continue;
            }
        };
        // Each output under its own rule (`Suite::rule_for`), as `validate` compares them.
        for ((name, g), (_, w)) in got.buffers.iter().zip(&want.buffers) {
            let (rule, own) = suite.rule_of(name);
            let (shown, total) = differences(g, w, &rule, 1);
            if let Some(d) = shown.first() {
                row.check = format!(
                    "MISMATCH: {} `{name}`: {total} elements differ ({rule}), first at {}: got {}, expected {}",
                    suite.def.name, d.element, d.got, d.want
                );
                return Ok(row);
            }
            if own {
                rules.push(format!("`{name}` {rule}"));
            }
        }
        if suite.output_rules.len() < got.buffers.len() {
            rules.push(suite.rule.to_string());
        }
        on_device.push(uploaded);
    }
    rules.dedup();
    let run_all = |rt: &mut Runtime| -> Result<(), HostError> {
        for u in &on_device {
            u.launch(rt).map_err(host_error)?;
        }
        Ok(())
    };
    for _ in 0..warmup {
        run_all(rt)?;
    }
    rt.gpu.synchronize()?;
    let mut timers = Vec::with_capacity(iters);
    for _ in 0..iters {
        l2.run(&rt.gpu)?;
        let t = Timer::start(&rt.gpu)?;
        run_all(rt)?;
        t.end(&rt.gpu)?;
        timers.push(t);
    }
    let times = timers.iter().map(Timer::elapsed_ms).collect::<Result<Vec<_>, _>>()?;
    match Summary::of(&times) {
        Some(s) => {
            row.ms = Some(s.median_ms);
            row.tbps = Some(p.bytes as f64 / (s.median_ms * 1e-3) / 1e12);
            row.tflops = (p.flops > 0).then(|| p.flops as f64 / (s.median_ms * 1e-3) / 1e12);
            row.summary = Some(s);
            row.check = if rules.iter().any(|r| r.contains("unchecked")) {
                format!("timed ({})", rules.join("; "))
            } else {
                format!("ok ({})", rules.join("; "))
            };
        }
        None => row.check = format!("ERROR: no usable times: {times:?}"),
    }
    Ok(row)
}

/// One row of `bench/peers/tutorial_peers.py`'s JSON (`{"env": {...}, "results": [...]}`).
#[derive(Clone, Debug, PartialEq, Deserialize)]
pub struct TutorialPeer {
    pub kernel: String,
    pub dtype: String,
    pub shape: Vec<usize>,
    /// `torch`, `triton`, or `torch_dim1`/`torch_dim0` for reductions.
    #[serde(rename = "impl")]
    pub implementation: String,
    pub ms: Option<f64>,
    pub bytes: Option<u64>,
    /// Floating-point operations of the point (matmul rows), for TFLOPS.
    #[serde(default)]
    pub flops: Option<u64>,
    pub check: String,
}

#[derive(Deserialize)]
struct PeerFile {
    results: Vec<TutorialPeer>,
}

/// Reads the peer script's JSON.
pub fn load_tutorial_peers(path: &Path) -> Result<Vec<TutorialPeer>, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("--peers {}: {e}", path.display()))?;
    let file: PeerFile = serde_json::from_str(&text)
        .map_err(|e| format!("--peers {}: not bench/peers/tutorial_peers.py's JSON: {e}", path.display()))?;
    Ok(file.results)
}

/// Reads a report an earlier `bench --kernel ... --json` wrote: at least one row, each
/// with a shape whose element count fits a machine word, and any time positive and finite.
pub fn load_ports_report(path: &Path) -> Result<PortsReport, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("--load {}: {e}", path.display()))?;
    let report: PortsReport = serde_json::from_str(&text)
        .map_err(|e| format!("--load {}: not a `bench --kernel` report (--json): {e}", path.display()))?;
    let at = |what: String| {
        format!("--load {}: {what}; write the report with rtriton bench --kernel ... --json", path.display())
    };
    if report.rows.is_empty() {
        return Err(at("the report has no rows".into()));
    }
    for (i, r) in report.rows.iter().enumerate() {
        let bad = |what: String| at(format!("row {i} ({} {}): {what}", r.kernel, r.dtype));
        if r.shape.is_empty() || r.shape.contains(&0) {
            return Err(bad(format!("the shape {:?} has no elements", r.shape)));
        }
        if r.shape.iter().try_fold(1usize, |n, &d| n.checked_mul(d)).is_none() {
            return Err(bad(format!("the shape {:?} has more elements than this machine can count", r.shape)));
        }
        let mut times: Vec<(&str, Option<f64>)> = vec![("ms", r.ms), ("tbps", r.tbps)];
        if let Some(s) = &r.summary {
            times.extend([("median_ms", Some(s.median_ms)), ("min_ms", Some(s.min_ms)), ("max_ms", Some(s.max_ms))]);
        }
        for (name, t) in times {
            if let Some(t) = t
                && !(t.is_finite() && t > 0.0)
            {
                return Err(bad(format!("{name} is {t}; it must be a positive, finite number")));
            }
        }
    }
    Ok(report)
}

/// One line of the combined table: rtriton and its peers on one point.
#[derive(Clone, Debug, PartialEq)]
pub struct Combined {
    pub row: PortRow,
    /// TB/s of torch and of Triton's tutorial kernel, where measured and checked ok.
    pub torch: Option<f64>,
    pub triton: Option<f64>,
    /// TFLOPS of torch and of Triton's kernel, for a point that counts its flops.
    pub torch_tflops: Option<f64>,
    pub triton_tflops: Option<f64>,
    /// The best checked peer's median time over rtriton's (above 1: rtriton is faster).
    pub vs_best: Option<f64>,
    /// Peers measured on this point whose check failed (not counted as best).
    pub peer_notes: Vec<String>,
}

/// The peers' variant of an rtriton row's: a row run for a target of its own (`sm_90a`,
/// `causal sm_90a`) is compared with the peers of the variant without it, which choose
/// their own instructions for the GPU they run on; so is a row of another form of the
/// same kernel (`persistent sm_90a`: the same product, one program an SM).
fn peer_variant(variant: &str) -> String {
    variant.split_whitespace().filter(|w| !matches!(*w, "sm_90a" | "persistent")).collect::<Vec<_>>().join(" ")
}

/// Joins rtriton's rows with the peers of the same (kernel, variant, dtype, shape). A
/// peer counts only if its check passed (the script compares each with torch). Each
/// implementation's TB/s uses the bytes it counted (an argmax in torch writes int64
/// indices, rtriton's int32); the ratio is of times, best peer time / rtriton's time, so
/// it compares the same work whatever each counted. Byte counts more than 1% apart are
/// noted. A check `ok (NOTE)` (the tutorial matmul's chosen configuration) passed.
pub fn combine(rows: &[PortRow], peers: &[TutorialPeer]) -> Vec<Combined> {
    rows.iter()
        .map(|r| {
            let mut c = Combined {
                row: r.clone(),
                torch: None,
                triton: None,
                torch_tflops: None,
                triton_tflops: None,
                vs_best: None,
                peer_notes: Vec::new(),
            };
            let mut best_ms: Option<f64> = None;
            for p in peers.iter().filter(|p| p.kernel == r.kernel && p.dtype == r.dtype && p.shape == r.shape) {
                let (base, variant) = match p.implementation.split_once('_') {
                    Some((b, v)) => (b, v),
                    None => (p.implementation.as_str(), ""),
                };
                if variant != peer_variant(&r.variant) {
                    continue;
                }
                let ok = p.check == "ok" || p.check.starts_with("ok (") || p.check.starts_with("reference");
                let tflops = match (p.ms, p.flops) {
                    (Some(ms), Some(f)) if ok => Some(f as f64 / (ms * 1e-3) / 1e12),
                    _ => None,
                };
                let tbps = match (p.ms, p.bytes) {
                    (Some(ms), Some(b)) if ok => {
                        if (b as f64 - r.bytes as f64).abs() > 0.01 * r.bytes as f64 {
                            c.peer_notes.push(format!("{} counts {b} bytes, rtriton {}", p.implementation, r.bytes));
                        }
                        best_ms = Some(best_ms.map_or(ms, |m| m.min(ms)));
                        Some(b as f64 / (ms * 1e-3) / 1e12)
                    }
                    _ => {
                        c.peer_notes.push(format!("{}: {}", p.implementation, p.check));
                        None
                    }
                };
                match base {
                    "torch" => (c.torch, c.torch_tflops) = (tbps, tflops),
                    "triton" => (c.triton, c.triton_tflops) = (tbps, tflops),
                    other => c.peer_notes.push(format!("unknown peer `{other}`")),
                }
            }
            c.vs_best = r.ms.zip(best_ms).map(|(mine, best)| best / mine);
            c
        })
        .collect()
}

fn tb(v: Option<f64>) -> String {
    v.map_or("-".into(), |v| format!("{v:.3}"))
}

/// A TB/s cell, with the TFLOPS after it where the point counts its flops.
fn tb_flops(v: Option<f64>, tflops: Option<f64>) -> String {
    match (v, tflops) {
        (Some(v), Some(f)) => format!("{v:.3} ({f:.1} TFLOPS)"),
        _ => tb(v),
    }
}

/// The table as Markdown (readable in a terminal and committed as is under
/// `bench/results/`).
pub fn render_markdown(combined: &[Combined]) -> String {
    let mut out = String::from(
        "| kernel | dtype | shape | rtriton TB/s | torch TB/s | Triton TB/s | rtriton / best peer | check |\n\
         |---|---|---|---|---|---|---|---|\n",
    );
    for c in combined {
        let r = &c.row;
        let kernel = if r.variant.is_empty() { r.kernel.clone() } else { format!("{} ({})", r.kernel, r.variant) };
        let mut check = r.check.clone();
        if !c.peer_notes.is_empty() {
            check.push_str(&format!("; peers: {}", c.peer_notes.join("; ")));
        }
        out.push_str(&format!(
            "| {kernel} | {} | {} | {} | {} | {} | {} | {} |\n",
            r.dtype,
            shape_text(&r.shape),
            tb_flops(r.tbps, r.tflops),
            tb_flops(c.torch, c.torch_tflops),
            tb_flops(c.triton, c.triton_tflops),
            c.vs_best.map_or("-".into(), |v| format!("{v:.2}x")),
            check.replace('|', "/")
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(kernel: &str, variant: &str, tbps: Option<f64>) -> PortRow {
        PortRow {
            kernel: kernel.into(),
            variant: variant.into(),
            dtype: "f32".into(),
            shape: vec![4096, 1024],
            implementation: "rtriton".into(),
            config: String::new(),
            ms: tbps.map(|t| 32.0 * 1024.0 * 1024.0 / (t * 1e12) * 1e3),
            summary: None,
            bytes: 32 << 20,
            tbps,
            tflops: None,
            check: "ok".into(),
        }
    }

    fn peer(kernel: &str, implementation: &str, tbps: f64, bytes: u64, check: &str) -> TutorialPeer {
        TutorialPeer {
            kernel: kernel.into(),
            dtype: "f32".into(),
            shape: vec![4096, 1024],
            implementation: implementation.into(),
            ms: Some(bytes as f64 / (tbps * 1e12) * 1e3),
            bytes: Some(bytes),
            flops: None,
            check: check.into(),
        }
    }

    /// A matmul point: peers with flops and an `ok (NOTE)` check count, and every cell
    /// shows TFLOPS beside TB/s.
    #[test]
    fn flops_points_show_tflops_and_an_ok_with_a_note_counts() {
        let b = 32 << 20;
        let mut mine = row("matmul", "", Some(0.05));
        let ms = mine.ms.unwrap();
        mine.tflops = Some(1e12 / (ms * 1e-3) / 1e12);
        let with_flops = |mut p: TutorialPeer| {
            p.flops = Some(1_000_000_000_000);
            p
        };
        let peers = [
            with_flops(peer("matmul", "torch", 0.5, b, "reference (cuBLAS)")),
            with_flops(peer("matmul", "triton", 0.4, b, "ok (best config BLOCK_SIZE_M: 128)")),
        ];
        let c = combine(&[mine], &peers);
        assert!(c[0].peer_notes.is_empty(), "{:?}", c[0].peer_notes);
        assert_eq!(c[0].vs_best.map(|v| (v * 100.0).round()), Some(10.0));
        let md = render_markdown(&c);
        let cell = |tbps: f64| format!("{tbps:.3} ({:.1} TFLOPS)", tbps * 1e12 / b as f64);
        let want = format!("| matmul | f32 | 4096x1024 | {} | {} | {} | 0.10x |", cell(0.05), cell(0.5), cell(0.4));
        assert!(md.contains(&want), "{want}\n{md}");
    }

    #[test]
    fn peers_join_by_point_and_the_best_checked_one_sets_the_ratio() {
        let b = 32 << 20;
        let peers = [
            peer("softmax", "torch", 2.0, b, "reference"),
            peer("softmax", "triton", 2.5, b, "ok"),
            peer("add", "triton", 9.0, b, "ok"),
        ];
        let c = combine(&[row("softmax", "", Some(3.0))], &peers);
        assert_eq!(
            (c[0].torch.map(|v| (v * 1e3).round()), c[0].triton.map(|v| (v * 1e3).round())),
            (Some(2000.0), Some(2500.0))
        );
        assert_eq!(c[0].vs_best.map(|v| (v * 100.0).round()), Some(120.0));
    }

    #[test]
    fn a_failed_peer_is_noted_not_compared_and_the_ratio_is_of_times() {
        let b = 32 << 20;
        let peers =
            [peer("softmax", "triton", 9.0, b, "MISMATCH: x"), peer("softmax", "torch", 1.0, 2 * b, "reference")];
        let c = combine(&[row("softmax", "", Some(3.0))], &peers);
        // torch moved twice the bytes at 1 TB/s: six times rtriton's time at 3 TB/s.
        assert_eq!((c[0].torch.map(f64::round), c[0].triton), (Some(1.0), None));
        assert_eq!(c[0].vs_best.map(|v| (v * 100.0).round()), Some(600.0));
        assert_eq!(c[0].peer_notes.len(), 2, "{:?}", c[0].peer_notes);
        let md = render_markdown(&c);
        assert!(
            md.contains("triton: MISMATCH: x") && md.contains("torch counts 67108864 bytes, rtriton 33554432"),
            "{md}"
        );
    }

    /// A row run for its own target (`sm_90a`) meets the peers of its variant without it.
    #[test]
    fn target_rows_match_the_peers_of_their_variant() {
        let b = 32 << 20;
        let peers =
            [peer("attention", "torch_causal", 2.0, b, "reference"), peer("attention", "torch", 1.0, b, "reference")];
        let rows = [row("attention", "causal sm_90a", Some(3.0)), row("attention", "sm_90a", Some(3.0))];
        let c = combine(&rows, &peers);
        assert_eq!(c[0].vs_best.map(|v| (v * 100.0).round()), Some(150.0));
        assert_eq!(c[1].vs_best.map(|v| (v * 100.0).round()), Some(300.0));
    }

    #[test]
    fn reductions_match_the_peer_of_their_dimension() {
        let b = 32 << 20;
        let peers = [peer("sum", "torch_dim1", 2.0, b, "reference"), peer("sum", "torch_dim0", 1.0, b, "reference")];
        let c = combine(&[row("sum", "dim0", Some(1.5)), row("sum", "dim1", Some(1.5))], &peers);
        assert_eq!(c[0].vs_best.map(|v| (v * 100.0).round()), Some(150.0));
        assert_eq!(c[1].vs_best.map(|v| (v * 100.0).round()), Some(75.0));
        let md = render_markdown(&c);
        assert!(md.contains("| sum (dim0) | f32 | 4096x1024 | 1.500 | 1.000 | - | 1.50x | ok |"), "{md}");
    }

    #[test]
    fn an_unmeasured_row_has_no_ratio() {
        let c = combine(&[row("softmax", "", None)], &[peer("softmax", "torch", 2.0, 32 << 20, "reference")]);
        assert_eq!(c[0].vs_best, None);
        assert!(render_markdown(&c).contains("| - | 2.000 | - | - |"));
    }
}
