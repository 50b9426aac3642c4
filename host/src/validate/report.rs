//! The validation report: its heading and verdict, one table per case (`--verbose`),
//! JSON for tools; `summary.rs` lays out the default grid.

use comfy_table::{Cell, Table, presets::UTF8_FULL_CONDENSED};
use serde::{Deserialize, Serialize};

use super::CaseResult;
use crate::launch::CacheStats;
use crate::provenance::Provenance;

/// How a run ended, as the exit status and the JSON `status` say.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Status {
    /// Every requested row ran and passed (or was skipped with `--allow-skips`).
    Ok,
    /// A row mismatched or failed.
    Failed,
    /// Nothing failed, but requested rows were skipped and skips were not allowed.
    Incomplete,
}

/// Everything one `validate` run found.
#[derive(Clone, Debug, Serialize)]
pub struct Report {
    /// The build that produced this report.
    pub build: Provenance,
    pub status: Status,
    /// Whether skipped rows were accepted (`--allow-skips`).
    pub allow_skips: bool,
    /// `"gpu"` or `"interpreter"`.
    pub backend: String,
    /// The device (GPU) or a note on the interpreter.
    pub device: String,
    /// Why the GPU was not used, when it was not.
    pub fallback_reason: Option<String>,
    pub results: Vec<CaseResult>,
    /// Passes, expected refusals included.
    pub passed: usize,
    /// Launches the overflow guard refused as expected (counted in `passed`).
    pub refused_as_expected: usize,
    pub failed: usize,
    pub skipped: usize,
    /// Rows that ran with nothing to compare them with (see [`super::Outcome::Unchecked`]).
    pub unchecked: usize,
    pub cache: CacheSummary,
    /// The cases after whose kernel fault the remaining cases ran in a new process (see
    /// `validate::OnFault`), in order.
    pub restarts: Vec<String>,
}

#[derive(Clone, Copy, Debug, Serialize, Deserialize)]
pub struct CacheSummary {
    pub compiles: u64,
    pub disk_hits: u64,
    pub memory_hits: u64,
}

impl Report {
    pub fn new(
        backend: &str,
        device: String,
        fallback_reason: Option<String>,
        results: Vec<CaseResult>,
        stats: CacheStats,
    ) -> Report {
        let failed = results.iter().filter(|r| r.outcome.is_failure()).count();
        let skipped = results.iter().filter(|r| matches!(r.outcome, super::Outcome::Skipped { .. })).count();
        let unchecked = results.iter().filter(|r| matches!(r.outcome, super::Outcome::Unchecked { .. })).count();
        let refused_as_expected =
            results.iter().filter(|r| matches!(r.outcome, super::Outcome::RefusedAsExpected { .. })).count();
        let mut r = Report {
            build: Provenance::current(),
            status: Status::Ok,
            allow_skips: false,
            backend: backend.into(),
            device,
            fallback_reason,
            passed: results.len() - failed - skipped - unchecked,
            refused_as_expected,
            failed,
            skipped,
            unchecked,
            results,
            cache: CacheSummary {
                compiles: stats.compiles,
                disk_hits: stats.disk_hits,
                memory_hits: stats.memory_hits,
            },
            restarts: Vec::new(),
        };
        r.status = r.judge();
        r
    }

    /// The same report with skips accepted (`true`) or counted against it.
    pub fn with_allow_skips(mut self, allow: bool) -> Report {
        self.allow_skips = allow;
        self.status = self.judge();
        self
    }

    fn judge(&self) -> Status {
        match (self.failed, self.skipped) {
            (0, 0) => Status::Ok,
            (0, _) if self.allow_skips => Status::Ok,
            (0, _) => Status::Incomplete,
            _ => Status::Failed,
        }
    }

    /// No row failed (skips aside: see [`Report::status`]).
    pub fn ok(&self) -> bool {
        self.failed == 0
    }

    /// The heading printed above the tables.
    pub fn heading(&self) -> String {
        let mut s = format!("{}\n", self.build.line());
        if let Some(why) = &self.fallback_reason {
            s.push_str(&format!(
                "no GPU: {why}\nrunning the same matrix on the interpreter (the huge case, when asked, through the \
                 overflow guard only)\n"
            ));
        }
        s.push_str(&format!("back end: {} ({})", self.backend, self.device));
        s
    }

    /// The closing line, as `--verbose` prints it: the PTX cache counts always.
    pub fn summary(&self) -> String {
        self.closing_line(true)
    }

    /// The closing line of the default output: [`Report::summary`] without the PTX cache
    /// counts on the interpreter, which compiles no PTX (they are always 0 there), as the
    /// interpreter's grid has no GPU-only column.
    pub fn verdict(&self) -> String {
        self.closing_line(self.backend == "gpu")
    }

    fn closing_line(&self, ptx: bool) -> String {
        let refused = match self.refused_as_expected {
            0 => String::new(),
            n => format!(" ({n} refused by the overflow guard, as expected)"),
        };
        let unchecked = match self.unchecked {
            0 => String::new(),
            n => format!(", {n} ran unchecked"),
        };
        let skips = match self.status {
            Status::Incomplete => " (requested rows did not run: --allow-skips accepts that)",
            Status::Ok | Status::Failed => "",
        };
        let restarts = match self.restarts.as_slice() {
            [] => String::new(),
            cases => format!(
                "; after the kernel fault in {} the remaining cases ran in a new process",
                cases.join(", then ")
            ),
        };
        let ptx = if ptx {
            format!(
                " (ptx: {} compiled, {} from disk cache, {} from memory)",
                self.cache.compiles, self.cache.disk_hits, self.cache.memory_hits
            )
        } else {
            String::new()
        };
        format!(
            "{}: {} passed{refused}, {} failed, {} skipped{skips}{unchecked} on the {}{ptx}{restarts}",
            match self.status {
                Status::Ok => "ok",
                Status::Failed => "FAILED",
                Status::Incomplete => "INCOMPLETE",
            },
            self.passed,
            self.failed,
            self.skipped,
            self.backend,
        )
    }
}

/// One table per case: variant, shape, strides, specialization, key, result.
pub fn render_tables(results: &[CaseResult]) -> String {
    let mut out = String::new();
    let mut start = 0;
    while start < results.len() {
        let case = &results[start].case;
        let end = start + results[start..].iter().take_while(|r| &r.case == case).count();
        let first = &results[start];
        out.push_str(&format!(
            "\n{} ({}x{}, strides ({}, {}), offset {})\n",
            case, first.n_rows, first.n_cols, first.stride_row, first.stride_col, first.offset
        ));
        let mut table = Table::new();
        table
            .load_preset(UTF8_FULL_CONDENSED)
            .set_header(["variant", "shape", "strides", "spec", "spec key", "vs ref", "vs cpu", "ms", "result"]);
        for r in &results[start..end] {
            let yes_no = |b: Option<bool>| match b {
                Some(true) => "=",
                Some(false) => "DIFF",
                None => "",
            };
            table.add_row([
                Cell::new(&r.variant),
                Cell::new(format!("{}x{}", r.n_rows, r.n_cols)),
                Cell::new(format!("({}, {})+{}", r.stride_row, r.stride_col, r.offset)),
                Cell::new(&r.specialization),
                Cell::new(compact_key(&r.spec_key)),
                Cell::new(yes_no(r.vs_reference)),
                Cell::new(yes_no(r.vs_cpu)),
                Cell::new(r.time_ms.map_or(String::new(), |t| format!("{t:.3}"))),
                Cell::new(r.outcome.label()),
            ]);
        }
        out.push_str(&table.to_string());
        out.push('\n');
        start = end;
    }
    out
}

/// `x_ptr:*f32:D16, n_cols:i32:-` as `x_ptr:D16 n_cols:-` (the types are the kernel's).
fn compact_key(key: &str) -> String {
    key.split(", ")
        .filter_map(|part| {
            let mut it = part.split(':');
            let name = it.next()?;
            let spec = it.next_back()?;
            Some(format!("{name}:{spec}"))
        })
        .collect::<Vec<_>>()
        .join(" ")
}
