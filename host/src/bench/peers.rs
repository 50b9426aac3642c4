//! Peer measurements (`bench/peers/rowmax_peers.py`: torch, autotuned Triton, the CUDA
//! reference through cupy) merged into a `bench` report, so one table shows rtriton next
//! to the best peer on every shape, with the ratio.
//!
//! The file is JSON: `{"env": {...}, "results": [row, ...]}`, each row
//! `{"shape": "8192x16384:T", "n_rows", "n_cols", "stride_row", "stride_col", "offset",
//! "impl": "torch.amax", "config": "...", "ms": median, "p10_ms", "p90_ms", "min_ms",
//! "max_ms", "check": "ok" | "MISMATCH: ..." | "ERROR: ..." | "SKIPPED: ..."}`. The shape is
//! `bench`'s own name (`ROWSxCOLS[:VIEW]`), and its strides and offset must be the ones
//! that name means, so a peer measured on another view is refused, not compared.

use std::path::Path;

use serde::Deserialize;

use super::gpu::row;
use super::{BenchRow, BenchShape, BenchStatus, RowKind, Summary};

/// One peer measurement as the script writes it.
#[derive(Clone, Debug, PartialEq, Deserialize)]
pub struct PeerResult {
    pub shape: String,
    pub n_rows: usize,
    pub n_cols: usize,
    pub stride_row: usize,
    pub stride_col: usize,
    #[serde(default)]
    pub offset: usize,
    #[serde(rename = "impl")]
    pub implementation: String,
    #[serde(default)]
    pub config: String,
    pub ms: Option<f64>,
    pub p10_ms: Option<f64>,
    pub p90_ms: Option<f64>,
    pub min_ms: Option<f64>,
    pub max_ms: Option<f64>,
    pub check: String,
}

/// The whole file.
#[derive(Clone, Debug, PartialEq, Deserialize)]
pub struct PeerFile {
    #[serde(default)]
    pub env: serde_json::Value,
    pub results: Vec<PeerResult>,
}

impl PeerResult {
    /// The row a report shows for it, or why it does not describe the shape it names.
    pub fn to_row(&self) -> Result<BenchRow, String> {
        let shape = BenchShape::parse(&self.shape).map_err(|e| format!("shape `{}`: {e}", self.shape))?;
        let l = shape.layout();
        let said = (self.n_rows, self.n_cols, self.stride_row, self.stride_col, self.offset);
        let means = (shape.n_rows, shape.n_cols, l.stride_row, l.stride_col, l.offset);
        if said != means {
            return Err(format!(
                "shape `{}` means (rows, cols, stride_row, stride_col, offset) = {means:?}, but the row says {said:?}: \
                 it was measured on another view",
                self.shape
            ));
        }
        let status = match (self.check.as_str(), self.ms) {
            ("ok", Some(ms)) if ms.is_finite() && ms > 0.0 => BenchStatus::Timed {
                // do_bench gives quantiles, not its sample count: 0 means "not known".
                summary: Summary {
                    samples: 0,
                    median_ms: ms,
                    p10_ms: self.p10_ms.unwrap_or(ms),
                    p90_ms: self.p90_ms.unwrap_or(ms),
                    min_ms: self.min_ms.unwrap_or(ms),
                    max_ms: self.max_ms.unwrap_or(ms),
                },
            },
            ("ok", ms) => BenchStatus::Error { message: format!("checked, but no usable time ({ms:?})") },
            (c, _) if c.starts_with("MISMATCH") => BenchStatus::Wrong { detail: c.to_string() },
            (c, _) if c.starts_with("SKIPPED") => {
                BenchStatus::CannotRun { reason: c.trim_start_matches("SKIPPED").trim_start_matches(':').trim().into() }
            }
            (c, _) => BenchStatus::Error { message: c.trim_start_matches("ERROR: ").to_string() },
        };
        let mut r = row(&shape, &self.implementation, RowKind::Peer, status);
        r.config = self.config.clone();
        Ok(r)
    }
}

/// Reads a peers file; errors name the file (and the row).
pub fn load_peers(path: &Path) -> Result<Vec<BenchRow>, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("--peers {}: {e}", path.display()))?;
    let file: PeerFile = serde_json::from_str(&text).map_err(|e| {
        format!("--peers {}: not a peers file ({e}); write it with bench/peers/rowmax_peers.py", path.display())
    })?;
    file.results
        .iter()
        .enumerate()
        .map(|(i, r)| r.to_row().map_err(|e| format!("--peers {}: result {i}: {e}", path.display())))
        .collect()
}

/// Adds `peers` to `rows`, each after the last row of its shape (a shape `rows` lacks
/// goes at the end), then sets every timed row's speed against the best timed peer of
/// its shape.
pub fn merge_peers(rows: &mut Vec<BenchRow>, peers: Vec<BenchRow>) {
    for p in peers {
        match rows.iter().rposition(|r| r.shape == p.shape) {
            Some(i) => rows.insert(i + 1, p),
            None => rows.push(p),
        }
    }
    derive_peer_ratios(rows);
}

/// Sets `speed_vs_best_peer` (GB/s over the best peer's GB/s on the same shape) on every
/// timed kernel row (not the copy) whose shape has a timed peer.
pub fn derive_peer_ratios(rows: &mut [BenchRow]) {
    let best: Vec<(String, f64)> = rows
        .iter()
        .filter(|r| r.kind == RowKind::Peer)
        .filter_map(|r| Some((r.shape.clone(), r.gb_per_s?)))
        .fold(Vec::new(), |mut acc: Vec<(String, f64)>, (s, g)| {
            match acc.iter_mut().find(|(t, _)| *t == s) {
                Some((_, b)) => *b = b.max(g),
                None => acc.push((s, g)),
            }
            acc
        });
    for r in rows.iter_mut().filter(|r| r.kind != RowKind::Copy) {
        r.speed_vs_best_peer = match (r.gb_per_s, best.iter().find(|(s, _)| *s == r.shape)) {
            (Some(g), Some((_, b))) => Some(g / b),
            _ => None,
        };
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bench::derive_ratios;

    fn peer(shape: &str, strides: (usize, usize), implementation: &str, ms: Option<f64>, check: &str) -> PeerResult {
        let s = BenchShape::parse(shape).unwrap();
        PeerResult {
            shape: shape.into(),
            n_rows: s.n_rows,
            n_cols: s.n_cols,
            stride_row: strides.0,
            stride_col: strides.1,
            offset: 0,
            implementation: implementation.into(),
            config: String::new(),
            ms,
            p10_ms: None,
            p90_ms: None,
            min_ms: None,
            max_ms: None,
            check: check.into(),
        }
    }

    #[test]
    fn each_check_becomes_its_status() {
        let ok = peer("64x64", (64, 1), "torch.amax", Some(0.5), "ok").to_row().unwrap();
        assert!(
            matches!(ok.status, BenchStatus::Timed { summary } if summary.median_ms == 0.5 && summary.samples == 0)
        );
        assert_eq!((ok.kind, ok.bytes), (RowKind::Peer, 64 * 64 * 4));
        let wrong = peer("64x64", (64, 1), "triton", Some(0.5), "MISMATCH: 3 rows differ").to_row().unwrap();
        assert_eq!(wrong.status, BenchStatus::Wrong { detail: "MISMATCH: 3 rows differ".into() });
        let skipped = peer("64x64", (64, 1), "cuda_reference", None, "SKIPPED: no cupy").to_row().unwrap();
        assert_eq!(skipped.status, BenchStatus::CannotRun { reason: "no cupy".into() });
        let error = peer("64x64", (64, 1), "triton", None, "ERROR: OutOfResources: shared memory").to_row().unwrap();
        assert_eq!(error.status, BenchStatus::Error { message: "OutOfResources: shared memory".into() });
        let no_time = peer("64x64", (64, 1), "triton", None, "ok").to_row().unwrap();
        assert!(matches!(no_time.status, BenchStatus::Error { .. }));
        // A peer's failure is not rtriton's.
        assert!(!wrong.is_failure() && !error.is_failure());
    }

    #[test]
    fn a_peer_measured_on_another_view_is_refused() {
        let e = peer("8192x16384:T", (16384, 1), "torch.amax", Some(1.0), "ok").to_row().unwrap_err();
        assert_eq!(
            e,
            "shape `8192x16384:T` means (rows, cols, stride_row, stride_col, offset) = (8192, 16384, 1, 8192, 0), but the \
             row says (8192, 16384, 16384, 1, 0): it was measured on another view"
        );
        assert!(peer("8192x16384:T", (1, 8192), "torch.amax", Some(1.0), "ok").to_row().is_ok());
    }

    #[test]
    fn peers_merge_after_their_shape_and_ratios_are_to_the_best_timed_peer() {
        let s = BenchShape::parse("64x64").unwrap();
        let timed = |ms: f64| BenchStatus::Timed {
            summary: Summary { samples: 5, median_ms: ms, p10_ms: ms, p90_ms: ms, min_ms: ms, max_ms: ms },
        };
        let mut rows = vec![
            row(&s, "cuda_reference", RowKind::Reference, timed(2.0)),
            row(&s, "row_max", RowKind::Variant, timed(1.0)),
            row(&s, "d2d_copy", RowKind::Copy, timed(1.0)),
            row(&BenchShape::parse("3x7").unwrap(), "row_max", RowKind::Variant, timed(1.0)),
        ];
        let peers = vec![
            peer("64x64", (64, 1), "torch.amax", Some(0.8), "ok").to_row().unwrap(),
            peer("64x64", (64, 1), "triton_autotuned", Some(2.0), "ok").to_row().unwrap(),
            peer("64x64", (64, 1), "broken", Some(0.1), "MISMATCH: x").to_row().unwrap(),
            peer("1x1", (1, 1), "torch.amax", Some(0.004), "ok").to_row().unwrap(),
        ];
        derive_ratios(&mut rows);
        let mut peers = peers;
        derive_ratios(&mut peers);
        merge_peers(&mut rows, peers);
        let order: Vec<_> = rows.iter().map(|r| format!("{} {}", r.shape, r.kernel)).collect();
        assert_eq!(
            order,
            [
                "64x64 cuda_reference",
                "64x64 row_max",
                "64x64 d2d_copy",
                "64x64 torch.amax",
                "64x64 triton_autotuned",
                "64x64 broken",
                "3x7 row_max",
                "1x1 torch.amax"
            ]
        );
        let ratio = |i: usize| rows[i].speed_vs_best_peer;
        // The best timed peer is torch at 0.8 ms (the mismatching one does not count).
        assert!((ratio(1).unwrap() - 0.8).abs() < 1e-12, "{:?}", ratio(1));
        assert!((ratio(0).unwrap() - 0.4).abs() < 1e-12);
        assert_eq!((ratio(2), ratio(3), ratio(5), ratio(6)), (None, Some(1.0), None, None));
        assert!((ratio(4).unwrap() - 0.4).abs() < 1e-12);
    }

    #[test]
    fn a_file_that_is_not_a_peers_file_is_an_error_naming_it() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("p.json");
        std::fs::write(&path, "{\"rows\": []}").unwrap();
        let e = load_peers(&path).unwrap_err();
        assert!(
            e.starts_with(&format!("--peers {}: not a peers file (missing field `results`", path.display())),
            "{e}"
        );
        let e = load_peers(&dir.path().join("missing.json")).unwrap_err();
        assert!(e.starts_with("--peers ") && e.contains("missing.json: "), "{e}");
        std::fs::write(&path, r#"{"results": [{"shape": "4x", "n_rows": 4, "n_cols": 0, "stride_row": 0, "stride_col": 1, "impl": "t", "ms": 1.0, "check": "ok"}]}"#).unwrap();
        let e = load_peers(&path).unwrap_err();
        assert!(e.contains(": result 0: shape `4x`: COLS `` is not a whole number"), "{e}");
    }
}
