//! `rtriton bench`: GPU time of every row-max variant against the CUDA reference in the
//! same run. Exit status 0 when every kernel was checked and timed, 1 when one was wrong
//! or failed (no time is reported for it), 2 when there is no GPU (nothing is measured
//! and nothing passes).

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Context;
use clap::Args;

use crate::bench::{BENCH_SHAPES, BenchOptions, render_table, run_bench};

/// The exit status when there is no GPU to measure on.
pub const NO_GPU_STATUS: u8 = 2;

#[derive(Debug, Args)]
pub struct BenchArgs {
    /// Timed launches per kernel.
    #[arg(long, default_value_t = 50, value_parser = clap::value_parser!(u64).range(1..))]
    pub iters: u64,
    /// Untimed launches per kernel before timing.
    #[arg(long, default_value_t = 5)]
    pub warmup: u64,
    /// Only these variants (repeatable; default: all). The reference and the copy always run.
    #[arg(long = "variant", value_name = "NAME")]
    pub variants: Vec<String>,
    /// Only the shapes whose name contains this text (repeatable; default: all of
    /// 32768x8192, 8192x32768, 262144x256_narrow, 8192x8192_transposed).
    #[arg(long = "shape", value_name = "TEXT")]
    pub shapes: Vec<String>,
    /// MiB written to flush L2 before each timed launch (default: 4x the device's L2, at
    /// least 256).
    #[arg(long, value_name = "MIB")]
    pub flush_mib: Option<usize>,
    /// Also write the results as JSON to this file.
    #[arg(long, value_name = "FILE")]
    pub json: Option<PathBuf>,
    /// No progress lines on stderr.
    #[arg(long)]
    pub no_progress: bool,
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
        ..Default::default()
    };
    if !args.variants.is_empty() {
        o.variants = super::parse_variants(&args.variants)?;
    }
    if !args.shapes.is_empty() {
        anyhow::ensure!(
            args.shapes.iter().all(|t| !t.is_empty()),
            "--shape \"\": empty text selects every shape; give part of a shape name (e.g. --shape transposed) or leave --shape out"
        );
        o.shapes =
            BENCH_SHAPES.iter().copied().filter(|s| args.shapes.iter().any(|t| s.name.contains(t.as_str()))).collect();
        anyhow::ensure!(
            !o.shapes.is_empty(),
            "no shape name contains {:?}; the shapes are {}",
            args.shapes,
            BENCH_SHAPES.iter().map(|s| s.name).collect::<Vec<_>>().join(", ")
        );
    }
    Ok(o)
}

pub fn run(args: &BenchArgs) -> anyhow::Result<ExitCode> {
    let options = options(args)?;
    let report = match run_bench(&options) {
        Ok(r) => r,
        Err(e) if e.is_no_gpu() => {
            eprintln!("{e}");
            eprintln!("bench measures GPU time and has no interpreter fallback: nothing was measured");
            return Ok(ExitCode::from(NO_GPU_STATUS));
        }
        Err(e) => return Err(e).context("bench could not start"),
    };
    println!("{}", report.heading());
    print!("{}", render_table(&report.rows));
    println!("{}", report.summary());
    if let Some(path) = &args.json {
        let json = serde_json::to_string_pretty(&report).expect("the report serializes");
        std::fs::write(path, json).with_context(|| format!("could not write {}", path.display()))?;
    }
    Ok(if report.ok() { ExitCode::SUCCESS } else { ExitCode::FAILURE })
}
