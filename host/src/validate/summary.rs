//! `validate`'s default output: one grid (cases against kernels, a mark per row), then
//! details only for the rows that did not pass, laid out within [`MAX_WIDTH`] columns so
//! it reads in a terminal without wrapping. `--verbose` prints the per-case tables instead
//! ([`render_verbose`], the full layout), and `--json` keeps every field of every row.

use std::fmt::Write;

use rtriton_kernels::RowMaxVariant;
use rtriton_kernels::cases::HUGE_CASE;

use super::{CaseResult, Outcome, Report, render_tables};
use crate::row_max::ENTRY_NAME;

/// The widest line the default layout prints. The verdict, the last line, keeps its form
/// for the scripts that read it; see [`Report::verdict`].
pub const MAX_WIDTH: usize = 100;

/// The kernel name every variant's column title leaves out (`row_max_loop` is `loop`).
const FAMILY_PREFIX: &str = "row_max_";
/// The widest column title; a longer kernel name is cut.
const MAX_TITLE: usize = 12;
/// The narrowest the case column gets when long names must be cut to fit.
const MIN_CASE_WIDTH: usize = 10;
const GAP: &str = "  ";

/// The default output: the heading and `notes`, wrapped; the grid; the details of every
/// row that did not pass; the verdict.
pub fn render_summary(report: &Report, notes: &[String]) -> String {
    let mut out = String::new();
    for line in report.heading().lines().chain(notes.iter().map(String::as_str)) {
        push_wrapped(&mut out, line, "", "  ");
    }
    out.push('\n');
    out.push_str(&grid(report));
    let details = details(report);
    if !details.is_empty() {
        out.push('\n');
        out.push_str(&details);
    }
    out.push('\n');
    out.push_str("--verbose: a table per case with every column; --json FILE: every field of every row\n");
    out.push_str(&report.verdict());
    out.push('\n');
    out
}

/// The full layout, for `--verbose`: the heading and `notes` as they are, one table per
/// case with every column, the verdict with the PTX cache counts.
pub fn render_verbose(report: &Report, notes: &[String]) -> String {
    let mut out = format!("{}\n", report.heading());
    for n in notes {
        out.push_str(n);
        out.push('\n');
    }
    out.push_str(&render_tables(&report.results));
    out.push_str(&report.summary());
    out.push('\n');
    out
}

/// The mark a row gets in the grid.
fn mark(outcome: &Outcome) -> char {
    match outcome {
        Outcome::Match => '✓',
        Outcome::RefusedAsExpected { .. } => 'r',
        Outcome::Mismatch { .. } | Outcome::Error { .. } => '✗',
        Outcome::Skipped { .. } => 's',
        Outcome::Unchecked { .. } => '?',
    }
}

/// A kernel's column title: the family's variants without the family's prefix, the
/// entry point `entry`, the CUDA reference `ref`; cut to [`MAX_TITLE`].
fn title(variant: &str) -> String {
    let t = match variant {
        "cuda_reference" => "ref",
        v => v.strip_prefix(FAMILY_PREFIX).unwrap_or(v),
    };
    cut(t, MAX_TITLE)
}

/// `text` cut to `width` characters, the last one `…` when something was cut.
fn cut(text: &str, width: usize) -> String {
    if text.chars().count() <= width {
        return text.to_string();
    }
    let mut s: String = text.chars().take(width.saturating_sub(1)).collect();
    s.push('…');
    s
}

fn pad(text: &str, width: usize) -> String {
    let n = text.chars().count();
    format!("{text}{}", " ".repeat(width.saturating_sub(n)))
}

/// Values in the order they first appear.
fn first_seen<'a>(items: impl Iterator<Item = &'a str>) -> Vec<&'a str> {
    let mut seen: Vec<&str> = Vec::new();
    for i in items {
        if !seen.contains(&i) {
            seen.push(i);
        }
    }
    seen
}

/// The legend, then one line per case with its shape and, per kernel, one mark per row
/// (the specializations in the order they ran).
fn grid(report: &Report) -> String {
    let rows = &report.results;
    if rows.is_empty() {
        return "no rows ran\n".to_string();
    }
    let cases = first_seen(rows.iter().map(|r| r.case.as_str()));
    let kernels = first_seen(rows.iter().map(|r| r.variant.as_str()));
    let policies = first_seen(rows.iter().map(|r| r.specialization.as_str()).filter(|s| *s != "-"));
    let shape = |case: &str| {
        let r = rows.iter().find(|r| r.case == case).expect("a listed case has a row");
        format!("{}x{}", r.n_rows, r.n_cols)
    };
    let cell = |case: &str, kernel: &str| {
        let marks: Vec<String> = rows
            .iter()
            .filter(|r| r.case == case && r.variant == kernel)
            .map(|r| mark(&r.outcome).to_string())
            .collect();
        marks.join(" ")
    };
    let titles: Vec<String> = kernels.iter().map(|k| title(k)).collect();
    let widths: Vec<usize> = kernels
        .iter()
        .zip(&titles)
        .map(|(k, t)| cases.iter().map(|c| cell(c, k).chars().count()).max().unwrap_or(0).max(t.chars().count()))
        .collect();
    let shape_width = cases.iter().map(|c| shape(c).len()).max().unwrap_or(0).max("shape".len());
    let kernels_width: usize = widths.iter().map(|w| w + GAP.len()).sum();
    let case_width = cases.iter().map(|c| c.chars().count()).max().unwrap_or(0).max("case".len());
    // Long case names are cut rather than the line wrapped; the details name them whole.
    let room = MAX_WIDTH.saturating_sub(shape_width + GAP.len() + kernels_width);
    let case_width = case_width.min(room.max(MIN_CASE_WIDTH));

    let mut out = String::new();
    let mut legend = match policies.as_slice() {
        [] => "Each cell: one mark per row. ".to_string(),
        [one] => format!("Each cell: specialization {one}. "),
        many => format!("Each cell: a mark for specialization {}. ", many.join(", then ")),
    };
    legend.push_str("✓ passed, ✗ failed");
    let present = |m: char| rows.iter().any(|r| mark(&r.outcome) == m);
    for (m, what) in [
        ('s', "s skipped"),
        ('r', "r refused by the overflow guard as expected (a pass)"),
        ('?', "? ran, nothing to compare with"),
    ] {
        if present(m) {
            legend.push_str(", ");
            legend.push_str(what);
        }
    }
    legend.push('.');
    push_wrapped(&mut out, &legend, "", "  ");
    let mut key = Vec::new();
    if kernels.iter().any(|k| k.starts_with(FAMILY_PREFIX)) {
        key.push(format!("kernels without their {FAMILY_PREFIX} prefix"));
    }
    if kernels.contains(&ENTRY_NAME) {
        key.push(format!("entry is {ENTRY_NAME}, the autotuned entry point"));
    }
    if kernels.contains(&"cuda_reference") {
        key.push("ref is the CUDA reference, checked against the CPU".to_string());
    }
    if !key.is_empty() {
        push_wrapped(&mut out, &format!("Columns: {}.", key.join("; ")), "", "  ");
    }
    out.push('\n');
    let line = |case: String, shape: String, cells: Vec<String>| {
        let mut l = format!("{}{GAP}{}", pad(&case, case_width), pad(&shape, shape_width));
        for (c, w) in cells.iter().zip(&widths) {
            l.push_str(GAP);
            l.push_str(&pad(c, *w));
        }
        format!("{}\n", l.trim_end())
    };
    out.push_str(&line("case".into(), "shape".into(), titles.clone()));
    for case in &cases {
        let cells = kernels.iter().map(|k| cell(case, k)).collect();
        out.push_str(&line(cut(case, case_width), shape(case), cells));
    }
    out
}

/// The rows that did not pass (failures, skips, unchecked rows), grouped by case and by
/// what happened: where, the mismatch, error or reason, and, for a failure, the command
/// that runs just those rows with every column.
fn details(report: &Report) -> String {
    let rows: Vec<&CaseResult> = report
        .results
        .iter()
        .filter(|r| !matches!(r.outcome, Outcome::Match | Outcome::RefusedAsExpected { .. }))
        .collect();
    // (case, outcome label) -> the rows, in the order they ran.
    let mut groups: Vec<(&str, String, Vec<&CaseResult>)> = Vec::new();
    for r in rows {
        let label = r.outcome.label();
        match groups.iter_mut().find(|(c, l, _)| *c == r.case && *l == label) {
            Some(g) => g.2.push(r),
            None => groups.push((r.case.as_str(), label, vec![r])),
        }
    }
    let mut out = String::new();
    for (case, label, group) in &groups {
        let first = group[0];
        let kernels: Vec<String> = first_seen(group.iter().map(|r| r.variant.as_str()))
            .into_iter()
            .map(|k| {
                let specs: Vec<&str> = group
                    .iter()
                    .filter(|r| r.variant == k && r.specialization != "-")
                    .map(|r| r.specialization.as_str())
                    .collect();
                if specs.is_empty() { k.to_string() } else { format!("{k} (spec {})", specs.join(", ")) }
            })
            .collect();
        let head = format!(
            "{} {case} ({}x{}, strides ({}, {}), offset {}): {}",
            mark(&first.outcome),
            first.n_rows,
            first.n_cols,
            first.stride_row,
            first.stride_col,
            first.offset,
            kernels.join(", ")
        );
        push_wrapped(&mut out, &head, "", "    ");
        push_wrapped(&mut out, label, "    ", "      ");
        if first.outcome.is_failure() {
            push_wrapped(&mut out, &format!("rerun: {}", rerun(report, case, group)), "    ", "      ");
        }
    }
    out
}

/// The command that runs `rows` of `case` again with every column (`--verbose`).
fn rerun(report: &Report, case: &str, rows: &[&CaseResult]) -> String {
    let backend = if report.backend == "gpu" { "gpu" } else { "interp" };
    let mut cmd = format!("rtriton validate --backend {backend}");
    if case == HUGE_CASE.name {
        cmd.push_str(" --huge");
    }
    let _ = write!(cmd, " --case {case}");
    let kernels = first_seen(rows.iter().map(|r| r.variant.as_str()));
    match kernels.as_slice() {
        ["cuda_reference"] => cmd.push_str(" --reference-only"),
        // The reference runs with every variant; naming variants beside it would drop it.
        ks if ks.contains(&"cuda_reference") => {}
        ks => {
            // Rows `--variant` cannot name (an injected fault's) are left out.
            for k in ks.iter().filter(|k| RowMaxVariant::from_name(k).is_some() || **k == ENTRY_NAME) {
                let _ = write!(cmd, " --variant {k}");
            }
        }
    }
    if let [only] = first_seen(rows.iter().map(|r| r.specialization.as_str()).filter(|s| *s != "-")).as_slice() {
        let _ = write!(cmd, " --spec {only}");
    }
    cmd.push_str(" --verbose");
    cmd
}

/// Appends `text` word-wrapped to [`MAX_WIDTH`]: its first line after `first`, every other
/// line (its own and the wrapped ones) after `rest`. A word longer than a line is cut, so
/// no line passes the width.
fn push_wrapped(out: &mut String, text: &str, first: &str, rest: &str) {
    for (i, line) in text.lines().enumerate() {
        wrap_line(out, line, if i == 0 { first } else { rest }, rest);
    }
    if text.is_empty() {
        out.push_str(first.trim_end());
        out.push('\n');
    }
}

fn wrap_line(out: &mut String, text: &str, first: &str, rest: &str) {
    let mut line = first.to_string();
    let mut empty = true;
    for word in text.split(' ').filter(|w| !w.is_empty()) {
        let len = line.chars().count();
        if !empty && len + 1 + word.chars().count() > MAX_WIDTH {
            out.push_str(&line);
            out.push('\n');
            line = rest.to_string();
            empty = true;
        }
        let mut word = word.to_string();
        loop {
            let len = line.chars().count() + usize::from(!empty);
            let room = MAX_WIDTH.saturating_sub(len);
            if word.chars().count() <= room {
                break;
            }
            let head: String = word.chars().take(room).collect();
            word = word.chars().skip(room).collect();
            if !empty {
                line.push(' ');
            }
            line.push_str(&head);
            out.push_str(&line);
            out.push('\n');
            line = rest.to_string();
            empty = true;
        }
        if !empty {
            line.push(' ');
        }
        line.push_str(&word);
        empty = false;
    }
    out.push_str(&line);
    out.push('\n');
}

#[cfg(test)]
mod tests {
    use rtriton::spec::SpecPolicy;
    use rtriton_kernels::RowMaxVariant;
    use rtriton_kernels::cases::{HUGE_CASE, RowMaxCase, SHAPE_MATRIX};

    use super::*;
    use crate::launch::CacheStats;
    use crate::validate::Status;

    const POLICIES: [SpecPolicy; 2] = [SpecPolicy::Triton, SpecPolicy::Off];

    /// The rows a run makes on `cases`, every one matching: on the GPU the CUDA reference
    /// first, then every variant and the entry point under both policies.
    fn rows(cases: &[RowMaxCase], gpu: bool) -> Vec<CaseResult> {
        let mut rows = Vec::new();
        for case in cases {
            if gpu {
                rows.push(CaseResult::new(case, "cuda_reference", None));
            }
            for name in RowMaxVariant::ALL.iter().map(|v| v.name()).chain([ENTRY_NAME]) {
                rows.extend(POLICIES.iter().map(|&p| CaseResult::new(case, name, Some(p))));
            }
        }
        for r in &mut rows {
            r.outcome = Outcome::Match;
        }
        rows
    }

    fn report(backend: &str, rows: Vec<CaseResult>, stats: CacheStats) -> Report {
        let fallback =
            (backend == "interpreter").then(|| "no CUDA driver found: libcuda.so could not be loaded".into());
        Report::new(backend, "a device".into(), fallback, rows, stats)
    }

    fn set(rows: &mut [CaseResult], case: &str, variant: &str, spec: &str, outcome: Outcome) {
        let r = rows.iter_mut().find(|r| r.case == case && r.variant == variant && r.specialization == spec).unwrap();
        r.outcome = outcome;
    }

    fn widest(text: &str) -> usize {
        text.lines().map(|l| l.chars().count()).max().unwrap_or(0)
    }

    /// What follows the heading (from the blank line after it): the grid, the details, the
    /// hint and the verdict.
    fn body(text: &str) -> &str {
        &text[text.find("\n\n").expect("a blank line ends the heading") + 1..]
    }

    /// Every line but the last (the verdict) within the width.
    fn within_width_but_the_verdict(text: &str) -> bool {
        widest(text.trim_end().rsplit_once('\n').unwrap().0) <= MAX_WIDTH
    }

    fn stats() -> CacheStats {
        CacheStats { compiles: 90, disk_hits: 3, memory_hits: 2989 }
    }

    #[test]
    fn the_whole_matrix_passing_on_the_interpreter_is_a_grid_within_100_columns() {
        let r = report("interpreter", rows(SHAPE_MATRIX, false), CacheStats::default());
        let text = render_summary(&r, &[]);
        assert!(text.lines().count() < 60, "{text}");
        assert!(widest(&text) <= MAX_WIDTH, "{text}");
        let body = body(&text);
        let want_top = "
Each cell: a mark for specialization on, then off. ✓ passed, ✗ failed.
Columns: kernels without their row_max_ prefix; entry is row_max_entry, the autotuned entry point.

case                        shape     row_max  loop  2d   i64_strides  i64_index  i32  entry
1x1                         1x1       ✓ ✓      ✓ ✓   ✓ ✓  ✓ ✓          ✓ ✓        ✓ ✓  ✓ ✓
";
        assert!(body.starts_with(want_top), "{body}");
        assert_eq!(body.lines().filter(|l| l.contains("✓ ✓")).count(), SHAPE_MATRIX.len(), "{body}");
        // No failure, no skip: no details; the interpreter compiles no PTX, so the verdict
        // leaves the cache counts out as the grid leaves out the GPU's reference column.
        let n = SHAPE_MATRIX.len() * (RowMaxVariant::ALL.len() + 1) * 2;
        let want_end = format!(
            "all_nan_two_columns         5x2       ✓ ✓      ✓ ✓   ✓ ✓  ✓ ✓          ✓ ✓        ✓ ✓  ✓ ✓

--verbose: a table per case with every column; --json FILE: every field of every row
ok: {n} passed, 0 failed, 0 skipped on the interpreter
"
        );
        assert!(body.ends_with(&want_end), "{body}");
        assert!(!body.contains(" ref ") && !body.contains("CUDA reference") && !body.contains("ptx"), "{body}");
    }

    #[test]
    fn a_mismatch_and_an_error_are_marked_and_detailed_with_the_command_that_reruns_them() {
        let mut rows = rows(&SHAPE_MATRIX[..4], false);
        let detail = "3 of 37 rows differ from cpu_row_max; first row 5: got 0x00000000 (0.0), want 0x80000000 (-0.0)";
        for spec in ["on", "off"] {
            set(&mut rows, "non_pow2", "row_max_2d", spec, Outcome::Mismatch { detail: detail.into() });
        }
        set(&mut rows, "1x1", "row_max_loop", "off", Outcome::Error { message: "the trace failed".into() });
        let r = report("interpreter", rows, CacheStats::default());
        assert_eq!(r.status, Status::Failed);
        let text = render_summary(&r, &[]);
        assert!(widest(&text) <= MAX_WIDTH, "{text}");
        let body = body(&text);
        let want = "
Each cell: a mark for specialization on, then off. ✓ passed, ✗ failed.
Columns: kernels without their row_max_ prefix; entry is row_max_entry, the autotuned entry point.

case           shape   row_max  loop  2d   i64_strides  i64_index  i32  entry
1x1            1x1     ✓ ✓      ✓ ✗   ✓ ✓  ✓ ✓          ✓ ✓        ✓ ✓  ✓ ✓
single_row     1x1000  ✓ ✓      ✓ ✓   ✓ ✓  ✓ ✓          ✓ ✓        ✓ ✓  ✓ ✓
single_column  1000x1  ✓ ✓      ✓ ✓   ✓ ✓  ✓ ✓          ✓ ✓        ✓ ✓  ✓ ✓
non_pow2       37x100  ✓ ✓      ✓ ✓   ✗ ✗  ✓ ✓          ✓ ✓        ✓ ✓  ✓ ✓

✗ 1x1 (1x1, strides (1, 1), offset 0): row_max_loop (spec off)
    ERROR: the trace failed
    rerun: rtriton validate --backend interp --case 1x1 --variant row_max_loop --spec off --verbose
✗ non_pow2 (37x100, strides (100, 1), offset 0): row_max_2d (spec on, off)
    MISMATCH: 3 of 37 rows differ from cpu_row_max; first row 5: got 0x00000000 (0.0), want
      0x80000000 (-0.0)
    rerun: rtriton validate --backend interp --case non_pow2 --variant row_max_2d --verbose

--verbose: a table per case with every column; --json FILE: every field of every row
FAILED: 53 passed, 3 failed, 0 skipped on the interpreter
";
        assert_eq!(body, want);
    }

    /// On the GPU: the reference's column, the skipped huge case with its reason (what to
    /// do is in it), the verdict with the PTX cache counts as `--verbose` prints it.
    #[test]
    fn the_gpu_adds_the_reference_column_and_skips_are_detailed_once_per_reason() {
        let mut rows = rows(&[SHAPE_MATRIX[0], HUGE_CASE], true);
        let reason = "needs 8590327816 bytes of device memory, 1024 free; run on a GPU with more memory";
        for r in rows.iter_mut().filter(|r| r.case == HUGE_CASE.name) {
            r.outcome = Outcome::Skipped { reason: reason.into() };
        }
        let r = report("gpu", rows, stats());
        assert_eq!(r.status, Status::Incomplete);
        let text = render_summary(&r, &[]);
        let body = body(&text);
        let want = format!(
            "
Each cell: a mark for specialization on, then off. ✓ passed, ✗ failed, s skipped.
Columns: kernels without their row_max_ prefix; entry is row_max_entry, the autotuned entry point;
  ref is the CUDA reference, checked against the CPU.

case        shape        ref  row_max  loop  2d   i64_strides  i64_index  i32  entry
1x1         1x1          ✓    ✓ ✓      ✓ ✓   ✓ ✓  ✓ ✓          ✓ ✓        ✓ ✓  ✓ ✓
huge_2^31+  65537x32768  s    s s      s s   s s  s s          s s        s s  s s

s huge_2^31+ (65537x32768, strides (32768, 1), offset 0): cuda_reference, row_max (spec on, off),
    row_max_loop (spec on, off), row_max_2d (spec on, off), row_max_i64_strides (spec on, off),
    row_max_i64_index (spec on, off), row_max_i32 (spec on, off), row_max_entry (spec on, off)
    skipped: {reason}

--verbose: a table per case with every column; --json FILE: every field of every row
{}
",
            r.summary()
        );
        assert_eq!(body, want);
        assert_eq!(r.verdict(), r.summary());
        assert!(r.verdict().ends_with("on the gpu (ptx: 90 compiled, 3 from disk cache, 2989 from memory)"));
        // Every line but the verdict, whose form scripts read, within the width.
        assert!(within_width_but_the_verdict(&text), "{text}");
    }

    /// A refusal the guard had to make is a pass (`r`) with no details; the unchecked
    /// reference is marked `?` and says why.
    #[test]
    fn refusals_pass_quietly_and_unchecked_rows_say_why() {
        let mut rows = rows(&[HUGE_CASE], true);
        set(&mut rows, HUGE_CASE.name, "cuda_reference", "-", Outcome::Unchecked { reason: "too large".into() });
        for spec in ["on", "off"] {
            set(&mut rows, HUGE_CASE.name, "row_max_i32", spec, Outcome::RefusedAsExpected { reason: "RT0601".into() });
        }
        let r = report("gpu", rows, stats());
        let text = render_summary(&r, &[]);
        let words = text.split_whitespace().collect::<Vec<_>>().join(" ");
        assert!(
            words.contains(
                "✓ passed, ✗ failed, r refused by the overflow guard as expected (a pass), ? ran, nothing to compare with."
            ),
            "{text}"
        );
        assert!(
            text.contains("\nhuge_2^31+  65537x32768  ?    ✓ ✓      ✓ ✓   ✓ ✓  ✓ ✓          ✓ ✓        r r  ✓ ✓\n"),
            "{text}"
        );
        assert!(text.contains("\n? huge_2^31+ (65537x32768, strides (32768, 1), offset 0): cuda_reference\n    ran, unchecked: too large\n"), "{text}");
        assert!(!text.contains("RT0601") && !text.contains("rerun"), "{text}");
    }

    /// Names longer than the width allows are cut in the grid (whole in the details, wrapped),
    /// an unbroken word is cut across lines: no line passes the width.
    #[test]
    fn long_names_and_messages_are_cut_or_wrapped_to_the_width() {
        let long = RowMaxCase {
            name: "a_case_whose_name_goes_on_and_on_far_past_what_any_terminal_column_holds",
            ..SHAPE_MATRIX[3]
        };
        let mut rows = rows(&[long, SHAPE_MATRIX[0]], true);
        let variant = "row_max_a_variant_with_a_name_longer_than_a_title";
        rows.push(CaseResult { variant: variant.into(), ..rows[1].clone() });
        let path = format!("/{}", "very_deep_directory/".repeat(10));
        rows[2].outcome = Outcome::Error { message: format!("could not read {path} (the word is longer than a line)") };
        let r = report("gpu", rows, CacheStats::default());
        let text = render_summary(&r, &["a note that goes on for a while: ".repeat(5)]);
        assert!(text.ends_with(&format!("\n{}\n", r.verdict())), "{text}");
        assert!(within_width_but_the_verdict(&text), "{text}");
        let header = text.lines().find(|l| l.starts_with("case")).unwrap();
        assert!(header.ends_with("  a_variant_w…"), "{header}");
        assert!(text.contains("\na_case_whose_nam…  37x100  "), "{text}");
        // The details name the case whole, and the cut word comes back whole when joined.
        assert!(text.contains(&format!("✗ {}", long.name)), "{text}");
        let joined: String = text.lines().map(str::trim).collect();
        assert!(joined.contains(&path), "{text}");
    }

    #[test]
    fn wrapping_keeps_words_whole_and_indents_every_line_after_the_first() {
        let mut out = String::new();
        let words = "word ".repeat(30);
        push_wrapped(&mut out, &format!("{}\n  help: {}", words.trim_end(), words.trim_end()), "> ", "  ");
        assert!(
            out.lines().all(|l| l.chars().count() <= MAX_WIDTH && (l.starts_with("> ") || l.starts_with("  "))),
            "{out}"
        );
        assert_eq!(out.lines().next().unwrap(), format!("> {}word", "word ".repeat(18)));
        assert!(out.contains("\n  help: word"), "{out}");
        assert_eq!(out.split_whitespace().filter(|w| *w == "word").count(), 60);
    }

    /// `--verbose`: the heading, one table per case, the verdict with the PTX cache counts.
    #[test]
    fn verbose_is_the_tables_and_the_summary() {
        let r = report("interpreter", rows(&SHAPE_MATRIX[..2], false), CacheStats::default());
        let notes = ["a note".to_string()];
        let text = render_verbose(&r, &notes);
        assert_eq!(text, format!("{}\na note\n{}{}\n", r.heading(), render_tables(&r.results), r.summary()));
        assert!(text.ends_with("on the interpreter (ptx: 0 compiled, 0 from disk cache, 0 from memory)\n"), "{text}");
    }
}
