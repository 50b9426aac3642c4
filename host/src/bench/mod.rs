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
//! flush ([`L2Flush`]). The entry point's row times a whole call (the identity fill of a
//! split choice included), after the first call tuned its shape class. Times are summarized by median, p10/p90 and min/max ([`Summary`]).
//!
//! The pure parts (statistics, bandwidth, flush sizing, rendering) are tested without a
//! GPU; the runner ([`run_bench`]) needs one and says so when there is none.

mod baseline;
mod gpu;
pub mod launch_overhead;
pub mod mma_ceiling;
mod overrides;
mod peers;
mod plot;
mod ports;
mod report;
mod shape;
mod tuned;

pub use baseline::{Baseline, Comparison, REGRESSION_TOLERANCE, Regression, baseline_of, compare, load_baseline};
pub use gpu::run_bench;
pub use overrides::Overrides;
pub use peers::{PeerFile, PeerResult, derive_peer_ratios, load_peers, merge_peers};
pub use plot::write_svg;
pub use ports::{
    Combined, DEFAULT_CHECK_LIMIT, PortRow, PortsBenchOptions, PortsReport, TutorialPeer, combine, load_ports_report,
    load_tutorial_peers, render_markdown, run_ports_bench,
};
pub use report::{BenchReport, load_report, render_table};
// The flush and the statistics live in the runtime, which the autotuner shares them from.
pub use rtriton_runtime::timing::{L2Flush, MIN_FLUSH_BYTES, Summary, flush_bytes, gb_per_s, percentile};
pub use shape::{BenchShape, BenchView, DEFAULT_SHAPES, default_shapes};
pub use tuned::{AUTOTUNED_NAME, row_max_2d_autotuned, row_max_2d_configs};

use rtriton_kernels::RowMaxVariant;
use serde::{Deserialize, Serialize};

/// What `bench` runs.
#[derive(Clone, Debug)]
pub struct BenchOptions {
    pub shapes: Vec<BenchShape>,
    pub variants: Vec<RowMaxVariant>,
    /// Also run the row-max entry point (`row_max_entry`, `crate::row_max`), its own row.
    pub entry: bool,
    /// Also run `row_max_2d` autotuned over [`row_max_2d_configs`] (its own row).
    pub autotune: bool,
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
            shapes: default_shapes(),
            variants: RowMaxVariant::ALL.to_vec(),
            entry: true,
            autotune: true,
            warmup: 5,
            iters: 50,
            flush_bytes: None,
            progress: true,
        }
    }
}

/// What a row of the table measures.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RowKind {
    /// The CUDA warp-shuffle reference (`kernels-gpu/cuda/row_max_ref.cu`).
    Reference,
    /// A row-max variant written in the DSL.
    Variant,
    /// A DSL kernel whose configuration the autotuner chose for this shape.
    Autotuned,
    /// The row-max entry point (`RowMax`): its class's configurations autotuned, the
    /// identity fill included in its time when its choice splits rows.
    EntryPoint,
    /// Another implementation measured by `bench/peers/` (torch, Triton), merged from JSON.
    Peer,
    /// `cuMemcpyDtoD` of the input's bytes: the bandwidth yardstick (reads and writes).
    Copy,
}

/// How one kernel's measurement ended.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "status", rename_all = "snake_case")]
pub enum BenchStatus {
    /// Checked bit for bit, then timed.
    Timed { summary: Summary },
    /// Its rows differ from the reference: no time is reported.
    Wrong { detail: String },
    /// It could not be compiled, launched or timed.
    Error { message: String },
    /// This kernel cannot run this shape by design (a block over the limit, the overflow
    /// guard's refusal of i32 index math past 2^31 elements): reported, not a failure.
    CannotRun { reason: String },
}

/// One kernel on one shape.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct BenchRow {
    pub shape: String,
    pub n_rows: usize,
    pub n_cols: usize,
    pub stride_row: usize,
    pub stride_col: usize,
    /// Elements from the buffer's start to the view's first element.
    #[serde(default)]
    pub offset: usize,
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
    /// This GB/s over the best peer's GB/s on the same shape (when peers were merged).
    #[serde(default)]
    pub speed_vs_best_peer: Option<f64>,
}

impl BenchRow {
    pub fn median_ms(&self) -> Option<f64> {
        match &self.status {
            BenchStatus::Timed { summary } => Some(summary.median_ms),
            _ => None,
        }
    }

    /// Wrong or not run for a reason that is not by design.
    /// (A peer's failure is reported in its row but is not rtriton's.)
    pub fn is_failure(&self) -> bool {
        self.kind != RowKind::Peer && matches!(self.status, BenchStatus::Wrong { .. } | BenchStatus::Error { .. })
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
