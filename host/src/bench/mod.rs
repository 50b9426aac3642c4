//! `bench`: GPU time of every row-max variant against the CUDA warp-shuffle reference,
//! measured in the same run on the same input, with a device-to-device copy of the same
//! bytes as a bandwidth yardstick.
//!
//! Method, per shape: the input is built on the host and copied to the device once; the
//! reference runs once and is checked against `cpu_row_max`; each variant launches once
//! through the launch API (`Runtime::launch`, specialization on, the variant's
//! `constexprs_for` and `validate`'s warps) and must equal the reference bit for bit, or
//! no time is reported for it. Then each kernel gets `warmup` untimed launches and
//! `iters` timed ones, each timed with CUDA events around the launch alone, after an L2
//! flush ([`flush`]). Times are summarized by median, p10/p90 and min/max ([`stats`]).
//!
//! The pure parts (statistics, bandwidth, flush sizing, rendering) are tested without a
//! GPU; the runner ([`run_bench`]) needs one and says so when there is none.

mod flush;
mod gpu;
mod report;
mod stats;

pub use flush::{L2Flush, MIN_FLUSH_BYTES, flush_bytes};
pub use gpu::run_bench;
pub use report::{BenchReport, render_table};
pub use stats::{Summary, gb_per_s, percentile};

use rtriton_kernels::RowMaxVariant;
use rtriton_kernels::cases::{Fill, RowMaxCase, ViewKind};
use serde::Serialize;

/// The shapes `bench` runs by default: large contiguous inputs both ways round, narrow rows
/// (where one row per program leaves threads idle) and a transposed (column-strided) view.
pub const BENCH_SHAPES: [RowMaxCase; 4] = [
    RowMaxCase { name: "32768x8192", n_rows: 32768, n_cols: 8192, view: ViewKind::Contiguous, fill: Fill::Random(21) },
    RowMaxCase { name: "8192x32768", n_rows: 8192, n_cols: 32768, view: ViewKind::Contiguous, fill: Fill::Random(22) },
    RowMaxCase {
        name: "262144x256_narrow",
        n_rows: 262_144,
        n_cols: 256,
        view: ViewKind::Contiguous,
        fill: Fill::Random(23),
    },
    RowMaxCase {
        name: "8192x8192_transposed",
        n_rows: 8192,
        n_cols: 8192,
        view: ViewKind::Transposed,
        fill: Fill::Random(24),
    },
];

/// What `bench` runs.
#[derive(Clone, Debug)]
pub struct BenchOptions {
    pub shapes: Vec<RowMaxCase>,
    pub variants: Vec<RowMaxVariant>,
    /// Untimed launches per kernel before timing.
    pub warmup: usize,
    /// Timed launches per kernel.
    pub iters: usize,
    /// Bytes written to flush L2 before each timed launch; `None`: [`flush_bytes`] of the
    /// device's L2.
    pub flush_bytes: Option<usize>,
    /// Progress lines on stderr.
    pub progress: bool,
}

impl Default for BenchOptions {
    fn default() -> Self {
        BenchOptions {
            shapes: BENCH_SHAPES.to_vec(),
            variants: RowMaxVariant::ALL.to_vec(),
            warmup: 5,
            iters: 50,
            flush_bytes: None,
            progress: true,
        }
    }
}

/// What a row of the table measures.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum RowKind {
    /// The CUDA warp-shuffle reference (`kernels-gpu/cuda/row_max_ref.cu`).
    Reference,
    /// A row-max variant written in the DSL.
    Variant,
    /// `cuMemcpyDtoD` of the input's bytes: the bandwidth yardstick (reads and writes).
    Copy,
}

/// How one kernel's measurement ended.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(tag = "status", rename_all = "snake_case")]
pub enum BenchStatus {
    /// Checked bit for bit, then timed.
    Timed { summary: Summary },
    /// Its rows differ from the reference: no time is reported.
    Wrong { detail: String },
    /// It could not be compiled, launched or timed.
    Error { message: String },
}

/// One kernel on one shape.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct BenchRow {
    pub shape: String,
    pub n_rows: usize,
    pub n_cols: usize,
    pub stride_row: usize,
    pub stride_col: usize,
    pub kernel: String,
    pub kind: RowKind,
    /// Constexprs and warps of a variant's launch (`BLOCK=1024 warps=4`).
    pub config: String,
    /// The specialization key the launch computed (variants).
    pub spec_key: String,
    /// Bytes the measurement counts: the view's bytes read (kernels), or read plus written
    /// (the copy).
    pub bytes: u64,
    pub status: BenchStatus,
    /// GB/s at the median time (`bytes / median`).
    pub gb_per_s: Option<f64>,
    /// Reference median / this median: above 1 is faster than the reference.
    pub speed_vs_reference: Option<f64>,
    /// This GB/s over the copy's GB/s on the same shape.
    pub fraction_of_copy_bandwidth: Option<f64>,
}

impl BenchRow {
    pub fn median_ms(&self) -> Option<f64> {
        match &self.status {
            BenchStatus::Timed { summary } => Some(summary.median_ms),
            _ => None,
        }
    }

    pub fn is_failure(&self) -> bool {
        !matches!(self.status, BenchStatus::Timed { .. })
    }
}

/// Fills in GB/s of every timed row, and the speed against the reference and the fraction
/// of copy bandwidth of every timed kernel row, from the medians of the same shape.
pub fn derive_ratios(rows: &mut [BenchRow]) {
    let medians: Vec<(String, RowKind, Option<f64>, u64)> =
        rows.iter().map(|r| (r.shape.clone(), r.kind, r.median_ms(), r.bytes)).collect();
    let find = |shape: &str, kind: RowKind| {
        medians.iter().find(|(s, k, m, _)| s == shape && *k == kind && m.is_some()).map(|(_, _, m, b)| (m.unwrap(), *b))
    };
    for r in rows.iter_mut() {
        let Some(median) = r.median_ms() else { continue };
        let bw = gb_per_s(r.bytes, median);
        r.gb_per_s = Some(bw);
        if r.kind == RowKind::Copy {
            continue;
        }
        r.speed_vs_reference = find(&r.shape, RowKind::Reference).map(|(m, _)| m / median);
        r.fraction_of_copy_bandwidth = find(&r.shape, RowKind::Copy).map(|(m, b)| bw / gb_per_s(b, m));
    }
}
