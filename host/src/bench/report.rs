//! The benchmark report: one table per shape for people, JSON for tools.

use comfy_table::{Cell, CellAlignment, Table, presets::UTF8_FULL_CONDENSED};
use serde::Serialize;

use super::{BenchRow, BenchStatus, RowKind};
use crate::provenance::Provenance;

/// Everything one `bench` run measured.
#[derive(Clone, Debug, Serialize)]
pub struct BenchReport {
    /// The build that produced this report.
    pub build: Provenance,
    /// The device, and how the kernels reached it (PTX for sm_86, JIT-compiled).
    pub device: String,
    pub warmup: usize,
    pub iters: usize,
    /// Bytes written to flush L2 before each timed launch.
    pub flush_bytes: usize,
    pub rows: Vec<BenchRow>,
    /// Kernels that failed the bit-exact check or could not run (no time reported).
    pub failed: usize,
}

impl BenchReport {
    pub fn new(device: String, warmup: usize, iters: usize, flush_bytes: usize, rows: Vec<BenchRow>) -> BenchReport {
        let failed = rows.iter().filter(|r| r.is_failure()).count();
        BenchReport { build: Provenance::current(), device, warmup, iters, flush_bytes, rows, failed }
    }

    pub fn ok(&self) -> bool {
        self.failed == 0
    }

    /// The lines printed above the tables.
    pub fn heading(&self) -> String {
        format!(
            "{}\ndevice: {}\nper kernel: {} warm-up launches, then {} launches each timed with CUDA events, after writing \
             {} MiB to flush L2; GB/s = bytes of the view read / median time; speed vs ref = reference median / \
             median (above 1: faster than the CUDA reference); of copy = GB/s over the device-to-device copy's \
             (read + write) GB/s",
            self.build.line(),
            self.device,
            self.warmup,
            self.iters,
            self.flush_bytes >> 20
        )
    }

    /// The closing line.
    pub fn summary(&self) -> String {
        let count =
            |f: &dyn Fn(&BenchRow) -> bool| self.rows.iter().filter(|r| r.kind != RowKind::Peer && f(r)).count();
        let timed = count(&|r| matches!(r.status, BenchStatus::Timed { .. }));
        let cannot = count(&|r| matches!(r.status, BenchStatus::CannotRun { .. }));
        let cannot =
            if cannot > 0 { format!(", {cannot} cannot run their shape by design (listed)") } else { String::new() };
        let peers = self.rows.iter().filter(|r| r.kind == RowKind::Peer).count();
        let peers = if peers > 0 { format!("; {peers} peer rows merged") } else { String::new() };
        if self.ok() {
            format!("ok: {timed} kernels checked bit for bit against the reference and timed{cannot}{peers}")
        } else {
            format!(
                "FAILED: {} kernels wrong or not run (no time reported for them), {timed} timed{cannot}{peers}",
                self.failed
            )
        }
    }
}

/// A report `bench --json` wrote, to show again (with peers merged, or plotted) without
/// measuring: the rows as written, the device line saying which build measured them.
/// The file must hold at least one row, and each row must pass [`check_row`]: a loaded
/// report is shown as a measurement, so it must say what a measurement could.
pub fn load_report(path: &std::path::Path) -> Result<BenchReport, String> {
    #[derive(serde::Deserialize)]
    struct Saved {
        build: serde_json::Value,
        device: String,
        warmup: usize,
        iters: usize,
        flush_bytes: usize,
        rows: Vec<BenchRow>,
    }
    let text = std::fs::read_to_string(path).map_err(|e| format!("--load {}: {e}", path.display()))?;
    let s: Saved = serde_json::from_str(&text).map_err(|e| {
        format!("--load {}: not a bench report ({e}); write one with rtriton bench --json", path.display())
    })?;
    let device = format!(
        "{} (measured by commit {}, loaded from {})",
        s.device,
        s.build["commit"].as_str().unwrap_or("unknown"),
        path.display()
    );
    let at = |what: String| format!("--load {}: {what}; write the report with rtriton bench --json", path.display());
    if s.rows.is_empty() {
        return Err(at("the report has no rows".into()));
    }
    for (i, r) in s.rows.iter().enumerate() {
        check_row(r).map_err(|e| at(format!("row {i} ({} on {}): {e}", r.kernel, r.shape)))?;
    }
    let mut rows = s.rows;
    super::derive_ratios(&mut rows);
    Ok(BenchReport::new(device, s.warmup, s.iters, s.flush_bytes, rows))
}

/// Whether a loaded row says what a measured one would: its shape name parses and its
/// sizes, strides and offset are the name's; a time is positive and finite, and its
/// percentiles are in order.
pub fn check_row(r: &BenchRow) -> Result<(), String> {
    let shape =
        super::BenchShape::parse(&r.shape).map_err(|e| format!("the shape `{}` is not a bench shape: {e}", r.shape))?;
    let l = shape.layout();
    let said = (r.n_rows, r.n_cols, r.stride_row, r.stride_col, r.offset);
    let named = (shape.n_rows, shape.n_cols, l.stride_row, l.stride_col, l.offset);
    if said != named {
        return Err(format!(
            "shape `{}` means (rows, cols, stride_row, stride_col, offset) = {named:?}, but the row says {said:?}",
            r.shape
        ));
    }
    if let super::BenchStatus::Timed { summary: s } = &r.status {
        let times = [
            ("median_ms", s.median_ms),
            ("p10_ms", s.p10_ms),
            ("p90_ms", s.p90_ms),
            ("min_ms", s.min_ms),
            ("max_ms", s.max_ms),
        ];
        for (name, t) in times {
            if !(t.is_finite() && t > 0.0) {
                return Err(format!("{name} is {t}; a time must be a positive, finite number of milliseconds"));
            }
        }
        if s.samples == 0 {
            return Err("a timed row with 0 samples".into());
        }
        if !(s.min_ms <= s.p10_ms && s.p10_ms <= s.median_ms && s.median_ms <= s.p90_ms && s.p90_ms <= s.max_ms) {
            return Err(format!(
                "the times are out of order (min {} <= p10 {} <= median {} <= p90 {} <= max {} must hold)",
                s.min_ms, s.p10_ms, s.median_ms, s.p90_ms, s.max_ms
            ));
        }
    }
    if r.bytes == 0 {
        return Err("bytes is 0; a row counts the bytes it moved".into());
    }
    Ok(())
}

fn ms(v: f64) -> String {
    format!("{v:.4}")
}

/// One table per shape: kernel, launch config, median, p10-p90, min-max, GB/s, speed vs
/// the reference, fraction of copy bandwidth, status.
pub fn render_table(rows: &[BenchRow]) -> String {
    let mut out = String::new();
    let mut start = 0;
    while start < rows.len() {
        let first = &rows[start];
        let end = start + rows[start..].iter().take_while(|r| r.shape == first.shape).count();
        let offset = if first.offset > 0 { format!(", offset {}", first.offset) } else { String::new() };
        out.push_str(&format!(
            "\n{} ({}x{}, strides ({}, {}){offset}, {} MiB read)\n",
            first.shape,
            first.n_rows,
            first.n_cols,
            first.stride_row,
            first.stride_col,
            (first.n_rows * first.n_cols * 4) >> 20
        ));
        let group = &rows[start..end];
        let with_peers = group.iter().any(|r| r.speed_vs_best_peer.is_some());
        let mut table = Table::new();
        let mut header =
            vec!["kernel", "config", "median ms", "p10-p90 ms", "min-max ms", "GB/s", "speed vs ref", "of copy"];
        if with_peers {
            header.push("vs best peer");
        }
        header.push("status");
        table.load_preset(UTF8_FULL_CONDENSED).set_header(header);
        for r in group {
            let kernel = match r.kind {
                RowKind::Copy => format!("{} (read+write)", r.kernel),
                RowKind::Peer => format!("{} (peer)", r.kernel),
                RowKind::EntryPoint => format!("{} (entry point)", r.kernel),
                RowKind::Reference | RowKind::Variant | RowKind::Autotuned => r.kernel.clone(),
            };
            let (median, spread, range, status) = match &r.status {
                BenchStatus::Timed { summary: s } => (
                    ms(s.median_ms),
                    format!("{}-{}", ms(s.p10_ms), ms(s.p90_ms)),
                    format!("{}-{}", ms(s.min_ms), ms(s.max_ms)),
                    "ok".to_string(),
                ),
                BenchStatus::Wrong { detail } => {
                    (String::new(), String::new(), String::new(), format!("WRONG: {detail}"))
                }
                BenchStatus::Error { message } => {
                    (String::new(), String::new(), String::new(), format!("ERROR: {message}"))
                }
                BenchStatus::CannotRun { reason } => {
                    (String::new(), String::new(), String::new(), format!("cannot run: {reason}"))
                }
            };
            let right = |s: String| Cell::new(s).set_alignment(CellAlignment::Right);
            let mut cells = vec![
                Cell::new(kernel),
                Cell::new(&r.config),
                right(median),
                right(spread),
                right(range),
                right(r.gb_per_s.map_or(String::new(), |v| format!("{v:.0}"))),
                right(r.speed_vs_reference.map_or(String::new(), |v| format!("{v:.2}x"))),
                right(r.fraction_of_copy_bandwidth.map_or(String::new(), |v| format!("{:.0}%", v * 100.0))),
            ];
            if with_peers {
                cells.push(right(r.speed_vs_best_peer.map_or(String::new(), |v| format!("{v:.2}x"))));
            }
            cells.push(Cell::new(status));
            table.add_row(cells);
        }
        out.push_str(&table.to_string());
        out.push('\n');
        start = end;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bench::{Summary, derive_ratios};

    fn row(shape: &str, kernel: &str, kind: RowKind, bytes: u64, status: BenchStatus) -> BenchRow {
        BenchRow {
            shape: shape.into(),
            n_rows: 32768,
            n_cols: 8192,
            stride_row: 8192,
            stride_col: 1,
            offset: 0,
            kernel: kernel.into(),
            kind,
            config: if kind == RowKind::Variant { "BLOCK=8192 warps=16".into() } else { String::new() },
            spec_key: String::new(),
            bytes,
            status,
            gb_per_s: None,
            speed_vs_reference: None,
            fraction_of_copy_bandwidth: None,
            speed_vs_best_peer: None,
        }
    }

    fn timed(median_ms: f64) -> BenchStatus {
        BenchStatus::Timed {
            summary: Summary {
                samples: 50,
                median_ms,
                p10_ms: median_ms - 0.001,
                p90_ms: median_ms + 0.002,
                min_ms: median_ms - 0.005,
                max_ms: median_ms + 0.01,
            },
        }
    }

    fn rows() -> Vec<BenchRow> {
        const GIB: u64 = 1 << 30;
        let mut rows = vec![
            row("32768x8192", "cuda_reference", RowKind::Reference, GIB, timed(0.25)),
            row("32768x8192", "row_max", RowKind::Variant, GIB, timed(0.2)),
            row(
                "32768x8192",
                "row_max_2d",
                RowKind::Variant,
                GIB,
                BenchStatus::Wrong { detail: "1 of 32768 rows differ".into() },
            ),
            row("32768x8192", "d2d_copy", RowKind::Copy, 2 * GIB, timed(0.5)),
        ];
        derive_ratios(&mut rows);
        rows
    }

    #[test]
    fn ratios_come_from_the_medians_of_the_same_shape() {
        let rows = rows();
        let close = |a: Option<f64>, b: f64| (a.unwrap() - b).abs() < 1e-9;
        // 1 GiB in 0.2 ms = 5368.7 GB/s; the reference takes 0.25 ms: 1.25x as fast.
        assert!(close(rows[1].gb_per_s, 5368.709120));
        assert!(close(rows[1].speed_vs_reference, 1.25));
        // The copy moves 2 GiB in 0.5 ms = 4295 GB/s: the kernel reads at 125% of it.
        assert!(close(rows[3].gb_per_s, 4294.967296));
        assert!(close(rows[1].fraction_of_copy_bandwidth, 1.25));
        assert!(close(rows[0].speed_vs_reference, 1.0));
        // No time, no ratios, for a wrong kernel.
        assert_eq!((rows[2].gb_per_s, rows[2].speed_vs_reference), (None, None));
    }

    #[test]
    fn the_table_shows_times_ratios_and_refuses_a_speed_for_a_wrong_kernel() {
        let table = render_table(&rows());
        let expected = "
32768x8192 (32768x8192, strides (8192, 1), 1024 MiB read)
┌───────────────────────┬─────────────────────┬───────────┬───────────────┬───────────────┬──────┬──────────────┬─────────┬───────────────────────────────┐
│ kernel                ┆ config              ┆ median ms ┆ p10-p90 ms    ┆ min-max ms    ┆ GB/s ┆ speed vs ref ┆ of copy ┆ status                        │
╞═══════════════════════╪═════════════════════╪═══════════╪═══════════════╪═══════════════╪══════╪══════════════╪═════════╪═══════════════════════════════╡
│ cuda_reference        ┆                     ┆    0.2500 ┆ 0.2490-0.2520 ┆ 0.2450-0.2600 ┆ 4295 ┆        1.00x ┆    100% ┆ ok                            │
│ row_max               ┆ BLOCK=8192 warps=16 ┆    0.2000 ┆ 0.1990-0.2020 ┆ 0.1950-0.2100 ┆ 5369 ┆        1.25x ┆    125% ┆ ok                            │
│ row_max_2d            ┆ BLOCK=8192 warps=16 ┆           ┆               ┆               ┆      ┆              ┆         ┆ WRONG: 1 of 32768 rows differ │
│ d2d_copy (read+write) ┆                     ┆    0.5000 ┆ 0.4990-0.5020 ┆ 0.4950-0.5100 ┆ 4295 ┆              ┆         ┆ ok                            │
└───────────────────────┴─────────────────────┴───────────┴───────────────┴───────────────┴──────┴──────────────┴─────────┴───────────────────────────────┘
";
        assert_eq!(table, expected);
    }

    #[test]
    fn the_json_has_every_measurement_and_the_verdict() {
        let report = BenchReport::new("test device".into(), 5, 50, 256 << 20, rows());
        assert!(!report.ok());
        assert_eq!(report.summary(), "FAILED: 1 kernels wrong or not run (no time reported for them), 3 timed");
        let json: serde_json::Value = serde_json::to_value(&report).unwrap();
        assert_eq!(json["flush_bytes"], 256 << 20);
        assert_eq!(json["failed"], 1);
        let r = &json["rows"][1];
        assert_eq!(r["kernel"], "row_max");
        assert_eq!(r["kind"], "variant");
        assert_eq!(r["status"]["status"], "timed");
        assert_eq!(r["status"]["summary"]["median_ms"], 0.2);
        assert_eq!(r["status"]["summary"]["samples"], 50);
        assert_eq!(r["speed_vs_reference"], 1.25);
        assert_eq!(
            json["rows"][2]["status"],
            serde_json::json!({"status": "wrong", "detail": "1 of 32768 rows differ"})
        );
        assert_eq!(json["rows"][2]["gb_per_s"], serde_json::Value::Null);
        let p = Provenance::current();
        assert_eq!(
            json["build"],
            serde_json::json!({"version": p.version, "commit": p.commit, "dirty": p.dirty, "profile": p.profile})
        );
        assert!(report.heading().starts_with(&format!("{}\ndevice: test device\n", p.line())), "{}", report.heading());
    }
}
