//! `rtriton bench`: GPU time of every row-max variant, the row-max entry point and the
//! autotuned `row_max_2d` against the CUDA reference in the same run. Exit status 0 when every kernel was checked
//! and timed (or cannot run its shape by design, listed), 1 when one was wrong or failed
//! (no time is reported for it), 2 when there is no GPU (nothing is measured and nothing
//! passes).
//!
//! `--load FILE` shows a report an earlier `--json` wrote instead of measuring (no GPU
//! needed), so `--peers` and `--plot` can be applied to a run afterwards.

use std::path::PathBuf;
use std::process::ExitCode;

use super::out::outln;
use anyhow::Context;
use clap::Args;

use crate::bench::{
    BenchOptions, BenchReport, BenchShape, DEFAULT_SHAPES, RowKind, default_shapes, load_peers, load_report,
    merge_peers, render_table, run_bench, write_svg,
};

/// The exit status when there is no GPU to measure on.
pub const NO_GPU_STATUS: u8 = 2;

/// The flags `--load` refuses: a loaded report was measured already, so they would change
/// nothing (clap counts only flags given, not defaults).
const LOAD_CONFLICTS: [&str; 9] =
    ["iters", "warmup", "variants", "shapes", "no_autotune", "flush_mib", "dtypes", "points", "check_limit"];

#[derive(Debug, Args)]
pub struct BenchArgs {
    /// Timed launches per kernel.
    #[arg(long, default_value_t = 50, value_parser = clap::value_parser!(u64).range(1..))]
    pub iters: u64,
    /// Untimed launches per kernel before timing.
    #[arg(long, default_value_t = 5)]
    pub warmup: u64,
    /// Only these variants (repeatable; default: all, and the entry point `row_max_entry`).
    /// The reference and the copy always run.
    #[arg(long = "variant", value_name = "NAME")]
    pub variants: Vec<String>,
    /// A shape `ROWSxCOLS[:VIEW]`, VIEW one of contiguous, T (transposed), stride=K (every
    /// K-th column), offset=K (repeatable); or text that selects default shapes whose name
    /// contains it (e.g. `:T`). Default: 32768x32768, 65537x32768, 8192x8192, 1048576x32,
    /// 64x4194304, 8192x16384:T, 8192x8192:stride=2, 4096x1000, 1x1, 3x7, 1000x1.
    #[arg(long = "shape", value_name = "SHAPE")]
    pub shapes: Vec<String>,
    /// Leave out the autotuned `row_max_2d` row.
    #[arg(long)]
    pub no_autotune: bool,
    /// MiB written to flush L2 before each timed launch (default: 4x the device's L2, at
    /// least 256).
    #[arg(long, value_name = "MIB")]
    pub flush_mib: Option<usize>,
    /// Also write the results as JSON to this file.
    #[arg(long, value_name = "FILE")]
    pub json: Option<PathBuf>,
    /// Merge peer measurements (bench/peers/rowmax_peers.py's JSON): their rows join the
    /// tables and every row gets its speed against the best peer of its shape.
    #[arg(long, value_name = "FILE")]
    pub peers: Option<PathBuf>,
    /// Draw GB/s per shape per implementation as an SVG chart to this file.
    #[arg(long, value_name = "FILE.svg")]
    pub plot: Option<PathBuf>,
    /// Show the report an earlier `--json` wrote instead of measuring (no GPU needed).
    /// The flags that choose or shape a measurement are refused with it (they would be
    /// ignored).
    #[arg(long, value_name = "FILE", conflicts_with_all = LOAD_CONFLICTS)]
    pub load: Option<PathBuf>,
    /// Hold the run against a baseline (`bench/results/<gpu>/*-baseline.json`): fail
    /// when a point's ratio to the best peer falls more than 5% below its recorded one.
    /// Needs `--peers`.
    #[arg(long, value_name = "FILE", requires = "peers")]
    pub baseline: Option<PathBuf>,
    /// Write every point's ratio to the best peer as a baseline to this file. Needs
    /// `--peers`.
    #[arg(long, value_name = "FILE", requires = "peers")]
    pub write_baseline: Option<PathBuf>,
    /// No progress lines on stderr.
    #[arg(long)]
    pub no_progress: bool,
    /// Measure tutorial ports instead of the row-max family: a port's name, or `ports`
    /// for all (repeatable). Their points are `bench/peers/tutorial_peers.py`'s, whose
    /// JSON `--peers` then takes; `--load` takes a report an earlier `--kernel ... --json`
    /// wrote.
    #[arg(long = "kernel", value_name = "NAME", conflicts_with_all = ["variants", "shapes", "no_autotune", "plot"])]
    pub kernels: Vec<String>,
    /// Measure the `mma.sync` ceiling instead: TFLOPS of a kernel that issues only
    /// `mma.sync.aligned.m16n8k16` (f16 and bf16), the instruction `dot` runs on, with no
    /// memory traffic (`bench/mma_ceiling.rs`); a matmul's TFLOPS are read against it.
    /// `--iters` is the timed launches.
    #[arg(long, conflicts_with_all = ["kernels", "variants", "shapes", "no_autotune", "plot", "load", "peers"])]
    pub mma_ceiling: bool,
    /// Measure the host time of a launch instead (`bench/launch_overhead.rs`): the
    /// driver's floor, `Runtime::launch` of a user kernel, `RowMax::run`, and a CUDA graph's
    /// replay per kernel, each 20,000 launches then one synchronize. `--peers` takes
    /// `bench/peers/launch_peers.py`'s JSON; `--json` writes the rows.
    #[arg(long, conflicts_with_all = ["kernels", "variants", "shapes", "no_autotune", "plot", "load", "mma_ceiling"])]
    pub launch_overhead: bool,
    /// With `--kernel`: only these dtypes (f32, f16, bf16; repeatable).
    #[arg(long = "dtype", value_name = "DTYPE", requires = "kernels")]
    pub dtypes: Vec<String>,
    /// With `--kernel`: only points whose label (`softmax f32 4096x1024`) contains this
    /// text (repeatable: any of them).
    #[arg(long = "point", value_name = "TEXT", requires = "kernels")]
    pub points: Vec<String>,
    /// With `--kernel`: launches whose largest buffer has more elements than this are
    /// timed without the CPU reference check (their rows say `unchecked`); 2^26 by default.
    #[arg(long, value_name = "ELEMENTS", requires = "kernels")]
    pub check_limit: Option<usize>,
    /// With `--kernel`: run every selected point's launches with this constexpr instead of
    /// their plan's, `NAME=V` (repeatable); an experiment, said in the report's heading and
    /// each row; every launch is still checked against the CPU reference first.
    #[arg(long = "set", value_name = "NAME=V", requires = "kernels")]
    pub sets: Vec<String>,
    /// With `--kernel`: launch with this many warps instead of the plan's.
    #[arg(long, value_name = "W", requires = "kernels", value_parser = clap::value_parser!(u32).range(1..=32))]
    pub warps: Option<u32>,
    /// With `--kernel`: launch this many programs along the grid's first axis instead of
    /// the plan's (a persistent grid's size), or `X,Y` / `X,Y,Z` along the first two or
    /// three (a tile the plan does not choose, with `--set`); a grid that misses programs
    /// fails the check.
    #[arg(long, value_name = "N|X,Y[,Z]", requires = "kernels")]
    pub programs: Option<String>,
    /// With `--kernel`: ask ptxas to fit this many CTAs of each launch per SM (PTX
    /// `.minnctapersm`, a bound on the registers per thread); an experiment, as `--set`.
    #[arg(long = "min-ctas", value_name = "N", requires = "kernels", value_parser = clap::value_parser!(u32).range(1..=32))]
    pub min_ctas: Option<u32>,
    /// With `--set`/`--warps`/`--programs`/`--min-ctas`: apply them to this launch of each point only
    /// (0-based; the layer norm backward's point is the dx kernel then the dw/db sum).
    #[arg(long, value_name = "I", requires = "kernels")]
    pub launch: Option<usize>,
}

/// The launch overrides `args` ask for, or an error naming the flag.
pub fn overrides(args: &BenchArgs) -> anyhow::Result<crate::bench::Overrides> {
    let constexprs = args
        .sets
        .iter()
        .map(|s| crate::bench::Overrides::parse_set(s))
        .collect::<Result<Vec<_>, _>>()
        .map_err(anyhow::Error::msg)?;
    let o = crate::bench::Overrides {
        constexprs,
        num_warps: args.warps,
        programs: args
            .programs
            .as_deref()
            .map(crate::bench::Overrides::parse_programs)
            .transpose()
            .map_err(|e| anyhow::anyhow!("--programs {e}"))?,
        min_ctas_per_sm: args.min_ctas,
        launch: args.launch,
    };
    anyhow::ensure!(
        o.launch.is_none() || !o.is_empty(),
        "--launch: give --set, --warps, --programs or --min-ctas to apply to it"
    );
    Ok(o)
}

/// The ports' points `args` select, or an error naming the flag.
pub fn port_points(args: &BenchArgs) -> anyhow::Result<Vec<crate::ports::BenchPoint>> {
    for d in &args.dtypes {
        anyhow::ensure!(
            crate::ports::bench::BENCH_DTYPES.contains(&d.as_str()),
            "--dtype {d}: ports are measured in {}",
            crate::ports::bench::BENCH_DTYPES.join(", ")
        );
    }
    for t in &args.points {
        anyhow::ensure!(!t.is_empty(), "--point \"\": empty text selects every point; leave --point out instead");
    }
    let candidates: Vec<_> = crate::ports::select(&args.kernels)?
        .iter()
        .flat_map(|p| (p.bench)())
        .filter(|p| args.dtypes.is_empty() || args.dtypes.iter().any(|d| d == p.dtype))
        .collect();
    if candidates.is_empty() {
        let kernels = format!("--kernel {}", args.kernels.join(" --kernel "));
        anyhow::ensure!(!args.dtypes.is_empty(), "{kernels}: these ports have no bench point");
        anyhow::bail!(
            "{kernels} --dtype {}: these ports have no bench point in these dtypes; leave --dtype out to see them all",
            args.dtypes.join(" --dtype ")
        );
    }
    // Each `--point` must select something: a typo is an error, not a silent no-op.
    for t in &args.points {
        if !candidates.iter().any(|p| p.label().contains(t.as_str())) {
            let labels: Vec<String> = candidates.iter().map(|p| p.label()).collect();
            anyhow::bail!(
                "--point {t:?}: no point's label contains this text; give part of one of the labels: {}",
                labels.join("; ")
            );
        }
    }
    Ok(candidates
        .into_iter()
        .filter(|p| args.points.is_empty() || args.points.iter().any(|t| p.label().contains(t.as_str())))
        .collect())
}

/// `bench --kernel`: measure (or `--load`) the ports, join `--peers`, print the table.
fn run_ports(args: &BenchArgs) -> anyhow::Result<ExitCode> {
    use crate::bench::{combine, load_ports_report, load_tutorial_peers, render_markdown, run_ports_bench};
    let peers = args.peers.as_deref().map(load_tutorial_peers).transpose().map_err(anyhow::Error::msg)?;
    let report = match &args.load {
        Some(path) => {
            anyhow::ensure!(
                overrides(args)?.is_empty(),
                "--set/--warps/--programs change a measurement; --load shows one already made (its heading says \
                 what it ran under)"
            );
            load_ports_report(path).map_err(anyhow::Error::msg)?
        }
        None => {
            let points = port_points(args)?;
            let o = options(args)?;
            let po = crate::bench::PortsBenchOptions {
                warmup: o.warmup,
                iters: o.iters,
                flush_bytes: o.flush_bytes,
                progress: o.progress,
                check_limit: args.check_limit.unwrap_or(crate::bench::DEFAULT_CHECK_LIMIT),
                overrides: overrides(args)?,
            };
            match run_ports_bench(&points, &po) {
                Ok(r) => r,
                Err(e) if e.is_no_gpu() => {
                    eprintln!("{e}");
                    eprintln!("bench measures GPU time and has no interpreter fallback: nothing was measured");
                    return Ok(ExitCode::from(NO_GPU_STATUS));
                }
                Err(e) => return Err(e).context("bench could not start"),
            }
        }
    };
    outln!("{}", report.heading())?;
    let combined = combine(&report.rows, peers.as_deref().unwrap_or(&[]));
    super::out::print(&render_markdown(&combined))?;
    let failed = report.failed();
    let unchecked = report.rows.iter().filter(|r| r.check.contains("unchecked")).count();
    outln!(
        "{}: {} points measured ({unchecked} of them timed without the CPU check, over --check-limit), {failed} not \
         timed (wrong or failed, listed)",
        if failed == 0 { "ok" } else { "FAILED" },
        report.rows.len() - failed
    )?;
    if let Some(path) = &args.json {
        let json = serde_json::to_string_pretty(&report).expect("the report serializes");
        std::fs::write(path, json).with_context(|| format!("could not write {}", path.display()))?;
    }
    let ratios: Vec<(String, Option<f64>)> = combined.iter().map(|c| (c.row.label(), c.vs_best)).collect();
    let held = hold_against_baseline(args, "ports", &report.device, &report.build, &ratios)?;
    Ok(if failed == 0 && held { ExitCode::SUCCESS } else { ExitCode::FAILURE })
}

/// `--write-baseline` and `--baseline`: writes the run's ratios, then holds them against
/// the baseline; whether the run passed (true without `--baseline`).
fn hold_against_baseline(
    args: &BenchArgs,
    benchmark: &str,
    device: &str,
    build: &str,
    ratios: &[(String, Option<f64>)],
) -> anyhow::Result<bool> {
    use crate::bench::{baseline_of, compare, load_baseline};
    if let Some(path) = &args.write_baseline {
        let b = baseline_of(benchmark, device, build, ratios);
        anyhow::ensure!(!b.points.is_empty(), "--write-baseline: no point of this run has a peer's ratio to record");
        let json = serde_json::to_string_pretty(&b).expect("the baseline serializes");
        std::fs::write(path, json + "\n").with_context(|| format!("could not write {}", path.display()))?;
    }
    let Some(path) = &args.baseline else { return Ok(true) };
    let baseline = load_baseline(path).map_err(anyhow::Error::msg)?;
    anyhow::ensure!(
        baseline.benchmark == benchmark,
        "--baseline {}: it records the {} benchmark, this run is {benchmark}",
        path.display(),
        baseline.benchmark
    );
    let comparison = compare(ratios, &baseline);
    outln!("against {} (recorded on {}, {}):", path.display(), baseline.device, baseline.build)?;
    super::out::print(&comparison.render())?;
    Ok(comparison.ok())
}

/// The shapes `--shape` values select: a value that starts with a digit is a shape (an
/// error names the flag and the value); other text selects the default shapes whose name
/// contains it.
pub fn shapes(values: &[String]) -> anyhow::Result<Vec<BenchShape>> {
    if values.is_empty() {
        return Ok(default_shapes());
    }
    let mut out: Vec<BenchShape> = Vec::new();
    for v in values {
        anyhow::ensure!(
            !v.is_empty(),
            "--shape \"\": empty text selects every shape; give a shape (e.g. --shape 4096x1000:T) or part of a \
             default shape's name (e.g. --shape :T), or leave --shape out"
        );
        let picked = if v.starts_with(|c: char| c.is_ascii_digit()) {
            vec![BenchShape::parse(v).map_err(|e| anyhow::anyhow!("--shape {v}: {e}"))?]
        } else {
            let picked: Vec<_> = default_shapes().into_iter().filter(|s| s.to_string().contains(v.as_str())).collect();
            anyhow::ensure!(
                !picked.is_empty(),
                "--shape {v}: not a shape ROWSxCOLS[:VIEW], and no default shape's name contains it; the defaults are {}",
                DEFAULT_SHAPES.join(", ")
            );
            picked
        };
        for s in picked {
            if !out.contains(&s) {
                out.push(s);
            }
        }
    }
    Ok(out)
}

/// The options `args` describe (no device needed).
pub fn options(args: &BenchArgs) -> anyhow::Result<BenchOptions> {
    let flush_bytes = match args.flush_mib {
        None => None,
        Some(mib) => Some(mib.checked_mul(1 << 20).with_context(|| {
            format!(
                "--flush-mib {mib}: {mib} MiB does not fit in this machine's address space; give at most {}",
                usize::MAX >> 20
            )
        })?),
    };
    let mut o = BenchOptions {
        warmup: usize::try_from(args.warmup).context("--warmup: too large for this machine")?,
        iters: usize::try_from(args.iters).context("--iters: too large for this machine")?,
        flush_bytes,
        progress: !args.no_progress,
        autotune: !args.no_autotune,
        shapes: shapes(&args.shapes)?,
        ..Default::default()
    };
    if !args.variants.is_empty() {
        let selection = super::parse_variants(&args.variants)?;
        (o.variants, o.entry) = (selection.variants, selection.entry);
    }
    Ok(o)
}

pub fn run(args: &BenchArgs) -> anyhow::Result<ExitCode> {
    if args.launch_overhead {
        return run_launch_overhead(args);
    }
    if args.mma_ceiling {
        return run_mma_ceiling(args);
    }
    if !args.kernels.is_empty() {
        return run_ports(args);
    }
    let options = options(args)?;
    // Read the peers before measuring: a bad file should not cost a GPU run.
    let peers = args.peers.as_deref().map(load_peers).transpose().map_err(anyhow::Error::msg)?;
    let mut report = match &args.load {
        Some(path) => load_report(path).map_err(anyhow::Error::msg)?,
        None => match run_bench(&options) {
            Ok(r) => r,
            Err(e) if e.is_no_gpu() => {
                eprintln!("{e}");
                eprintln!("bench measures GPU time and has no interpreter fallback: nothing was measured");
                return Ok(ExitCode::from(NO_GPU_STATUS));
            }
            Err(e) => return Err(e).context("bench could not start"),
        },
    };
    if let Some(mut peers) = peers {
        crate::bench::derive_ratios(&mut peers);
        let mut rows = std::mem::take(&mut report.rows);
        merge_peers(&mut rows, peers);
        report = BenchReport::new(report.device.clone(), report.warmup, report.iters, report.flush_bytes, rows);
    }
    outln!("{}", report.heading())?;
    super::out::print(&render_table(&report.rows))?;
    outln!("{}", report.summary())?;
    if let Some(path) = &args.json {
        let json = serde_json::to_string_pretty(&report).expect("the report serializes");
        std::fs::write(path, json).with_context(|| format!("could not write {}", path.display()))?;
    }
    if let Some(path) = &args.plot {
        let title = format!("row max, f32: GB/s per shape ({})", report.device.split(';').next().unwrap_or_default());
        write_svg(&report.rows, &title, path).map_err(anyhow::Error::msg)?;
    }
    let ratios: Vec<(String, Option<f64>)> = report
        .rows
        .iter()
        .filter(|r| matches!(r.kind, RowKind::Variant | RowKind::Autotuned | RowKind::EntryPoint))
        .map(|r| (format!("{} {}", r.kernel, r.shape), r.speed_vs_best_peer))
        .collect();
    let held = hold_against_baseline(args, "row max", &report.device, &report.build.line(), &ratios)?;
    Ok(if report.ok() && held { ExitCode::SUCCESS } else { ExitCode::FAILURE })
}

/// `bench --mma-ceiling`: the tensor cores' `mma.sync` TFLOPS on this GPU, as a table.
fn run_launch_overhead(args: &BenchArgs) -> anyhow::Result<ExitCode> {
    use crate::bench::launch_overhead::{self, OverheadPeers};
    let peers: Option<OverheadPeers> = match &args.peers {
        Some(path) => {
            let text = std::fs::read_to_string(path).with_context(|| format!("--peers {}", path.display()))?;
            Some(
                serde_json::from_str(&text)
                    .with_context(|| format!("--peers {}: not bench/peers/launch_peers.py's JSON", path.display()))?,
            )
        }
        None => None,
    };
    let mut rt = match crate::launch::Runtime::new() {
        Ok(rt) => rt,
        Err(e) if e.is_no_gpu() => {
            eprintln!("{e}");
            eprintln!("launch overhead is a GPU measurement: nothing was measured");
            return Ok(ExitCode::from(NO_GPU_STATUS));
        }
        Err(e) => return Err(e).context("bench could not start"),
    };
    let rows = launch_overhead::run(&mut rt)?;
    if let Some(path) = &args.json {
        let own = OverheadPeers { device: rt.gpu.info.name.clone(), rows: rows.clone() };
        std::fs::write(path, serde_json::to_string_pretty(&own)?)
            .with_context(|| format!("--json {}", path.display()))?;
    }
    outln!("{}", launch_overhead::render(&rt.gpu.info.name, &rows, peers.as_ref()))?;
    Ok(ExitCode::SUCCESS)
}

fn run_mma_ceiling(args: &BenchArgs) -> anyhow::Result<ExitCode> {
    use crate::bench::mma_ceiling::{self, CHAINS, CTAS_PER_SM, Operand16, WARPS};
    let gpu = match crate::driver::Gpu::open(0) {
        Ok(g) => g,
        Err(e) if e.is_no_gpu() => {
            eprintln!("{e}");
            eprintln!("the mma.sync ceiling is a GPU measurement: nothing was measured");
            return Ok(ExitCode::from(NO_GPU_STATUS));
        }
        Err(e) => return Err(e).context("bench could not start"),
    };
    let iters = 8192;
    outln!(
        "mma.sync ceiling on {}: {CHAINS} accumulator chains a warp, {WARPS} warps a CTA, {CTAS_PER_SM} CTAs an SM, {iters} iterations a launch, median of {} launches",
        gpu.info.name,
        args.iters
    )?;
    outln!("| operands | CTAs | median ms | TFLOPS |")?;
    outln!("|---|---|---|---|")?;
    for op in [Operand16::F16, Operand16::BF16] {
        let c = mma_ceiling::run(&gpu, op, iters, args.iters as usize)?;
        outln!("| {} | {} | {:.3} | {:.1} |", op.name(), c.ctas, c.median_ms, c.tflops)?;
    }
    Ok(ExitCode::SUCCESS)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn texts(v: &[&str]) -> Vec<String> {
        v.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn shape_values_are_shapes_or_select_defaults_by_name() {
        let names = |v: &[&str]| shapes(&texts(v)).unwrap().iter().map(|s| s.to_string()).collect::<Vec<_>>();
        assert_eq!(names(&[]).len(), 11);
        assert_eq!(names(&["5x7:offset=1", "3000x1000:T"]), ["5x7:offset=1", "3000x1000:T"]);
        assert_eq!(names(&[":T"]), ["8192x16384:T"]);
        assert_eq!(names(&["stride", "8192x8192:stride=2", "4096x1000"]), ["8192x8192:stride=2", "4096x1000"]);
        let e = shapes(&texts(&["8x8:R"])).unwrap_err().to_string();
        assert_eq!(
            e,
            "--shape 8x8:R: unknown view `R`; write ROWSxCOLS[:VIEW] with VIEW one of contiguous, T, stride=K, offset=K \
             (e.g. 8192x16384:T)"
        );
        let e = shapes(&texts(&["narrow"])).unwrap_err().to_string();
        assert!(e.starts_with("--shape narrow: not a shape ROWSxCOLS[:VIEW], and no default shape's name contains it; the defaults are 32768x32768, "), "{e}");
    }
}
