//! Performance baselines: the recorded ratio to the best peer of every benchmark point on
//! one GPU, and the check a new run is held to (`bench --baseline FILE`).
//!
//! A ratio, not a time, is recorded: rtriton and its peers (torch, Triton) ran in the same
//! run on the same card, so the ratio survives a card that runs warmer or a driver that
//! moves every kernel a little; an absolute time does not. A point regresses when its new
//! ratio falls more than [`REGRESSION_TOLERANCE`] below the recorded one. Points measured
//! but not recorded, and points recorded but not measured, are listed and do not fail the
//! check: a baseline is extended by writing a new one (`bench --write-baseline FILE`).

use std::collections::BTreeMap;
use std::path::Path;

use serde::{Deserialize, Serialize};

/// How far below its recorded ratio a point may fall before the check fails: 5%. Run-to-run
/// spread of one point is 1-3% for rtriton's kernels (events, medians, L2 flushed), and up
/// to 4-7% for some peers' (`docs/benchmarks.md`), so a smaller bound would fail on noise.
pub const REGRESSION_TOLERANCE: f64 = 0.05;

/// The recorded ratios of one benchmark on one GPU.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Baseline {
    /// The device the ratios were measured on, as `bench` names it.
    pub device: String,
    /// The build that measured them (`rtriton --version`: version and commit).
    pub build: String,
    /// Which benchmark: `row max` or `ports`.
    pub benchmark: String,
    /// Each point's best peer time over rtriton's time (above 1: rtriton is faster).
    pub points: BTreeMap<String, f64>,
}

/// A point whose ratio fell more than the tolerance below its recorded one.
#[derive(Clone, Debug, PartialEq)]
pub struct Regression {
    pub point: String,
    pub recorded: f64,
    pub now: f64,
}

/// A run held against a baseline.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Comparison {
    pub regressions: Vec<Regression>,
    /// Points of the run with no recorded ratio.
    pub unrecorded: Vec<String>,
    /// Recorded points the run did not measure (or measured without a peer).
    pub unmeasured: Vec<String>,
    /// Points compared.
    pub compared: usize,
}

impl Comparison {
    pub fn ok(&self) -> bool {
        self.regressions.is_empty() && self.compared > 0
    }

    /// One line per regression, then what was compared and what was not.
    pub fn render(&self) -> String {
        let mut out = String::new();
        for r in &self.regressions {
            out.push_str(&format!(
                "REGRESSION {}: {:.3}x of the best peer, recorded {:.3}x ({:+.1}%, more than {:.0}% below)\n",
                r.point,
                r.now,
                r.recorded,
                (r.now / r.recorded - 1.0) * 100.0,
                REGRESSION_TOLERANCE * 100.0
            ));
        }
        if !self.unrecorded.is_empty() {
            out.push_str(&format!("not in the baseline (not checked): {}\n", self.unrecorded.join("; ")));
        }
        if !self.unmeasured.is_empty() {
            out.push_str(&format!("in the baseline, not measured with a peer now: {}\n", self.unmeasured.join("; ")));
        }
        out.push_str(&format!(
            "baseline: {} of {} points compared, {} regressed\n",
            self.compared,
            self.compared + self.unmeasured.len(),
            self.regressions.len()
        ));
        out
    }
}

/// Holds `measured` (each point with its ratio to the best peer, where a peer ran) against
/// `baseline`.
pub fn compare(measured: &[(String, Option<f64>)], baseline: &Baseline) -> Comparison {
    let mut c = Comparison::default();
    for (point, now) in measured {
        match (baseline.points.get(point), now) {
            (Some(&recorded), Some(now)) => {
                c.compared += 1;
                if *now < recorded * (1.0 - REGRESSION_TOLERANCE) {
                    c.regressions.push(Regression { point: point.clone(), recorded, now: *now });
                }
            }
            (None, Some(_)) => c.unrecorded.push(point.clone()),
            (_, None) => {}
        }
    }
    let measured_with_peer = |p: &String| measured.iter().any(|(q, r)| q == p && r.is_some());
    c.unmeasured = baseline.points.keys().filter(|p| !measured_with_peer(p)).cloned().collect();
    c
}

/// The baseline of a run: every point that has a ratio.
pub fn baseline_of(benchmark: &str, device: &str, build: &str, measured: &[(String, Option<f64>)]) -> Baseline {
    Baseline {
        device: device.to_string(),
        build: build.to_string(),
        benchmark: benchmark.to_string(),
        points: measured.iter().filter_map(|(p, r)| r.map(|r| (p.clone(), r))).collect(),
    }
}

/// Reads a baseline, refusing one that could not hold a run to anything: no points, or a
/// ratio that is not a positive finite number.
pub fn load_baseline(path: &Path) -> Result<Baseline, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("--baseline {}: {e}", path.display()))?;
    let b: Baseline =
        serde_json::from_str(&text).map_err(|e| format!("--baseline {}: not a baseline ({e})", path.display()))?;
    if b.points.is_empty() {
        return Err(format!("--baseline {}: it records no point; write one with --write-baseline", path.display()));
    }
    if let Some((p, r)) = b.points.iter().find(|(_, r)| !(r.is_finite() && **r > 0.0)) {
        return Err(format!("--baseline {}: point `{p}` records {r}, not a positive ratio", path.display()));
    }
    Ok(b)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn baseline(points: &[(&str, f64)]) -> Baseline {
        Baseline {
            device: "test".into(),
            build: "rtriton 0.1.0 (test)".into(),
            benchmark: "ports".into(),
            points: points.iter().map(|(p, r)| (p.to_string(), *r)).collect(),
        }
    }

    fn run(points: &[(&str, Option<f64>)]) -> Vec<(String, Option<f64>)> {
        points.iter().map(|(p, r)| (p.to_string(), *r)).collect()
    }

    /// (recorded, now, regressed): the bound is 5% below the recorded ratio, whatever
    /// side of 1 the ratio is on.
    const CASES: &[(f64, f64, bool)] = &[
        (1.00, 1.00, false),
        (1.00, 0.951, false),
        (1.00, 0.949, true),
        (2.00, 1.91, false),
        (2.00, 1.89, true),
        (0.90, 0.86, false),
        (0.90, 0.85, true),
        (1.00, 1.50, false),
    ];

    #[test]
    fn a_point_regresses_when_it_falls_more_than_five_percent_below_its_record() {
        for &(recorded, now, regressed) in CASES {
            let c = compare(
                &run(&[("softmax f32 4096x1024", Some(now))]),
                &baseline(&[("softmax f32 4096x1024", recorded)]),
            );
            assert_eq!(c.compared, 1);
            assert_eq!(!c.regressions.is_empty(), regressed, "recorded {recorded}, now {now}");
            assert_eq!(c.ok(), !regressed);
        }
    }

    #[test]
    fn unrecorded_and_unmeasured_points_are_listed_not_failed() {
        let b = baseline(&[("a", 1.0), ("b", 1.0), ("c", 1.0)]);
        let c = compare(&run(&[("a", Some(1.0)), ("b", None), ("d", Some(0.5))]), &b);
        assert_eq!(c.compared, 1);
        assert!(c.ok());
        assert_eq!(c.unrecorded, ["d"]);
        assert_eq!(c.unmeasured, ["b", "c"]);
        let text = c.render();
        assert!(text.contains("not in the baseline (not checked): d"), "{text}");
        assert!(text.contains("1 of 3 points compared, 0 regressed"), "{text}");
    }

    #[test]
    fn a_run_that_compares_nothing_is_not_a_pass() {
        let c = compare(&run(&[("x", Some(1.0))]), &baseline(&[("a", 1.0)]));
        assert_eq!(c.compared, 0);
        assert!(!c.ok());
    }

    #[test]
    fn a_written_baseline_holds_the_run_it_came_from() {
        let measured = run(&[("a", Some(1.2)), ("b", None), ("c", Some(0.97))]);
        let b = baseline_of("ports", "H100", "abc", &measured);
        assert_eq!(b.points.len(), 2);
        let c = compare(&measured, &b);
        assert_eq!((c.compared, c.regressions.len()), (2, 0));
    }

    #[test]
    fn loading_refuses_empty_and_nonsense_baselines() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("b.json");
        let write = |b: &Baseline| std::fs::write(&path, serde_json::to_string(b).unwrap()).unwrap();
        write(&baseline(&[]));
        assert!(load_baseline(&path).unwrap_err().contains("records no point"));
        write(&baseline(&[("a", -1.0)]));
        assert!(load_baseline(&path).unwrap_err().contains("not a positive ratio"));
        write(&baseline(&[("a", 1.0)]));
        assert_eq!(load_baseline(&path).unwrap().points.len(), 1);
        std::fs::write(&path, "{}").unwrap();
        assert!(load_baseline(&path).unwrap_err().contains("not a baseline"));
    }
}
