//! The validation report: one table per case for people, JSON for tools.

use comfy_table::{Cell, Table, presets::UTF8_FULL_CONDENSED};
use serde::Serialize;

use super::CaseResult;
use crate::launch::CacheStats;

/// Everything one `validate` run found.
#[derive(Clone, Debug, Serialize)]
pub struct Report {
    /// `"gpu"` or `"interpreter"`.
    pub backend: String,
    /// The device (GPU) or a note on the interpreter.
    pub device: String,
    /// Why the GPU was not used, when it was not.
    pub fallback_reason: Option<String>,
    pub results: Vec<CaseResult>,
    pub passed: usize,
    pub failed: usize,
    pub skipped: usize,
    pub cache: CacheSummary,
}

#[derive(Clone, Copy, Debug, Serialize)]
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
        Report {
            backend: backend.into(),
            device,
            fallback_reason,
            passed: results.len() - failed - skipped,
            failed,
            skipped,
            results,
            cache: CacheSummary {
                compiles: stats.compiles,
                disk_hits: stats.disk_hits,
                memory_hits: stats.memory_hits,
            },
        }
    }

    pub fn ok(&self) -> bool {
        self.failed == 0
    }

    /// The heading printed above the tables.
    pub fn heading(&self) -> String {
        let mut s = String::new();
        if let Some(why) = &self.fallback_reason {
            s.push_str(&format!("no GPU: {why}\nrunning the same matrix (without the huge case) on the interpreter\n"));
        }
        s.push_str(&format!("back end: {} ({})", self.backend, self.device));
        s
    }

    /// The closing line.
    pub fn summary(&self) -> String {
        format!(
            "{}: {} passed, {} failed, {} skipped on the {} (ptx: {} compiled, {} from disk cache, {} from memory)",
            if self.ok() { "ok" } else { "FAILED" },
            self.passed,
            self.failed,
            self.skipped,
            self.backend,
            self.cache.compiles,
            self.cache.disk_hits,
            self.cache.memory_hits
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
