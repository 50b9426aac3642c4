//! Fuzz-style property tests (proptest, stable Rust) of the other command-line parsers:
//! `bench --shape` (`BenchShape::parse`), `--set` and `--programs` (`Overrides`), and
//! `--load` (`load_report`). Each: no panic on any text; an accepted value round-trips
//! through its printed form; and structured inputs are accepted exactly when the rule
//! says (products computed in u128 as the oracle). Fixed case counts keep it to seconds.

use proptest::prelude::*;
use rtriton_host::bench::{BenchShape, BenchView, Overrides, load_report, render_table};

/// The oracle for a shape: its buffer's bytes, in u128 (`None` past even that).
fn bytes(rows: u64, cols: u64, view: &BenchView) -> Option<u128> {
    let (r, c) = (rows as u128, cols as u128);
    let elements = match *view {
        BenchView::Contiguous | BenchView::Transposed => r.checked_mul(c)?,
        BenchView::Stride(k) => r.checked_mul(c)?.checked_mul(k as u128)?,
        BenchView::Offset(o) => r.checked_mul(c)?.checked_add(o as u128)?,
    };
    elements.checked_mul(4)
}

fn view_text(view: &BenchView) -> String {
    match view {
        BenchView::Contiguous => String::new(),
        BenchView::Transposed => ":T".into(),
        BenchView::Stride(k) => format!(":stride={k}"),
        BenchView::Offset(o) => format!(":offset={o}"),
    }
}

/// Numbers near the edges that matter (0, 1, powers of two, u32 and u64 ends) and any.
fn edgy() -> impl Strategy<Value = u64> {
    prop_oneof![
        Just(0u64),
        Just(1),
        (0u32..64).prop_map(|s| 1u64 << s),
        (0u32..64).prop_map(|s| (1u64 << s).wrapping_sub(1)),
        Just(u32::MAX as u64),
        Just(u32::MAX as u64 + 1),
        Just(u64::MAX),
        any::<u64>(),
        0u64..10_000,
    ]
}

fn views() -> impl Strategy<Value = BenchView> {
    prop_oneof![
        Just(BenchView::Contiguous),
        Just(BenchView::Transposed),
        edgy().prop_map(|k| BenchView::Stride(k as usize)),
        edgy().prop_map(|k| BenchView::Offset(k as usize)),
    ]
}

/// Checks what an accepted shape promises: its name parses back to it, its layout and
/// its byte count exist (no overflow in any later product).
fn check_accepted(s: &BenchShape) -> Result<(), TestCaseError> {
    prop_assert_eq!(&BenchShape::parse(&s.to_string()).unwrap(), s);
    let bytes = s.buffer_bytes();
    prop_assert!(bytes.is_some_and(|b| b <= isize::MAX as usize));
    let l = s.layout();
    prop_assert_eq!(l.buffer_len * 4, bytes.unwrap());
    prop_assert!(s.numel() <= l.buffer_len);
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 3000, failure_persistence: None, ..ProptestConfig::default() })]

    /// Any text of the shape alphabet: no panic; an accepted shape keeps its promises.
    #[test]
    fn shape_text_never_panics(text in "[0-9x:=Tstrideofcngu-]{0,40}") {
        if let Ok(s) = BenchShape::parse(&text) {
            check_accepted(&s)?;
        }
    }

    /// Structured shapes are accepted exactly when every count is at least 1 (an offset
    /// may be 0) and the buffer fits one allocation.
    #[test]
    fn shapes_are_accepted_exactly_when_the_buffer_fits(rows in edgy(), cols in edgy(), view in views()) {
        let text = format!("{rows}x{cols}{}", view_text(&view));
        let fits = rows >= 1
            && cols >= 1
            && !matches!(view, BenchView::Stride(0))
            && bytes(rows, cols, &view).is_some_and(|b| b <= isize::MAX as u128);
        match BenchShape::parse(&text) {
            Ok(s) => {
                prop_assert!(fits, "{} accepted", text);
                prop_assert_eq!((s.n_rows as u64, s.n_cols as u64, s.view), (rows, cols, view));
                check_accepted(&s)?;
            }
            Err(e) => prop_assert!(!fits, "{} refused: {}", text, e),
        }
    }

    /// `--set`: no panic; an accepted pair prints back to itself.
    #[test]
    fn set_never_panics_and_round_trips(text in "[A-Za-z0-9_= +-]{0,30}") {
        if let Ok((name, v)) = Overrides::parse_set(&text) {
            prop_assert_eq!(Overrides::parse_set(&format!("{name}={v}")).unwrap(), (name, v));
        }
    }

    #[test]
    fn every_set_value_is_accepted(v in any::<i64>()) {
        prop_assert_eq!(Overrides::parse_set(&format!("BLOCK={v}")).unwrap(), ("BLOCK".to_string(), v));
    }

    /// `--programs`: no panic; accepted axes print back to themselves.
    #[test]
    fn programs_never_panic_and_round_trip(text in "[0-9, x-]{0,30}") {
        if let Ok(axes) = Overrides::parse_programs(&text) {
            prop_assert!((1..=3).contains(&axes.len()) && axes.iter().all(|&a| a >= 1));
            let back: Vec<String> = axes.iter().map(u32::to_string).collect();
            prop_assert_eq!(Overrides::parse_programs(&back.join(",")).unwrap(), axes);
        }
    }

    /// One to three axes are accepted exactly when each is in 1..=u32::MAX; a value past
    /// it says "too large".
    #[test]
    fn programs_are_accepted_exactly_in_range(axes in prop::collection::vec(edgy(), 1..=3)) {
        let text = axes.iter().map(u64::to_string).collect::<Vec<_>>().join(",");
        let ok = axes.iter().all(|&a| (1..=u32::MAX as u64).contains(&a));
        match Overrides::parse_programs(&text) {
            Ok(parsed) => {
                prop_assert!(ok, "{}", text);
                prop_assert_eq!(parsed.iter().map(|&a| a as u64).collect::<Vec<_>>(), axes);
            }
            Err(e) => {
                prop_assert!(!ok, "{}: {}", text, e);
                if axes.iter().any(|&a| a > u32::MAX as u64) && axes.iter().all(|&a| a >= 1) {
                    prop_assert!(e.contains("is too large; a grid axis takes at most 4294967295 programs"), "{}", e);
                }
            }
        }
    }
}

/// A report row with these numbers.
fn row(shape: &str, n_rows: u64, n_cols: u64, median: f64, bytes: u64) -> serde_json::Value {
    serde_json::json!({
        "shape": shape, "n_rows": n_rows, "n_cols": n_cols, "stride_row": n_cols, "stride_col": 1, "offset": 0,
        "kernel": "row_max", "kind": "variant", "config": "", "spec_key": "", "bytes": bytes,
        "status": {"status": "timed", "summary": {"samples": 3, "median_ms": median, "p10_ms": median,
            "p90_ms": median, "min_ms": median, "max_ms": median}},
        "gb_per_s": null, "speed_vs_reference": null, "fraction_of_copy_bandwidth": null
    })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 300, failure_persistence: None, ..ProptestConfig::default() })]

    /// `--load`: reports with arbitrary numbers never panic the loader or the table, and
    /// one is accepted exactly when it has rows whose sizes match their shape's name and
    /// whose times are positive and finite.
    #[test]
    fn load_never_panics_and_accepts_only_what_a_measurement_could_say(
        rows in prop::collection::vec((edgy(), edgy(), edgy(), edgy(), prop_oneof![Just(0.5f64), Just(-1.0), Just(0.0), any::<f64>()], edgy()), 0..4),
    ) {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("r.json");
        let json_rows: Vec<serde_json::Value> = rows
            .iter()
            .map(|&(r, c, nr, nc, m, b)| row(&format!("{}x{}", r % 100_000, c % 100_000), nr % 4 + r % 100_000, nc % 2 + c % 100_000, m, b))
            .collect();
        let report = serde_json::json!({"build": {}, "device": "d", "warmup": 1, "iters": 3, "flush_bytes": 0, "rows": json_rows});
        std::fs::write(&path, serde_json::to_string(&report).unwrap()).unwrap();
        let expected = !rows.is_empty()
            && rows.iter().all(|&(r, c, nr, nc, m, b)| {
                let (r, c) = (r % 100_000, c % 100_000);
                r >= 1 && c >= 1 && nr % 4 == 0 && nc % 2 == 0 && m.is_finite() && m > 0.0 && b > 0
            });
        match load_report(&path) {
            Ok(r) => {
                prop_assert!(expected, "accepted {}", report);
                let _ = render_table(&r.rows);
                prop_assert!(!r.summary().is_empty());
            }
            Err(e) => {
                prop_assert!(!expected, "refused {}: {}", report, e);
                prop_assert!(e.starts_with(&format!("--load {}: ", path.display())), "{}", e);
            }
        }
    }
}
