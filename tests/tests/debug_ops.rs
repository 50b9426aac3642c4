//! Triton's debugging ops: `static_print` and `static_assert` at trace time, `device_print`
//! and `device_assert` as ops that run with the kernel (`docs/semantics.md`, "Debugging
//! ops").

use rtriton::diag::{Code, HasDiagnostics};
use rtriton::kernel;
use rtriton::prelude::*;
use rtriton::print_sink::capture_prints;
use rtriton::trace::trace_unspecialized;

/// The line of this file that holds `marker` (written once in a kernel, once in a test).
fn line_of(marker: &str) -> u32 {
    let src = include_str!("debug_ops.rs");
    let hits: Vec<usize> = src.lines().enumerate().filter(|(_, l)| l.contains(marker)).map(|(i, _)| i + 1).collect();
    assert!(hits.len() >= 2, "`{marker}` is written in a kernel and in a test");
    hits[0] as u32
}

kernel! {
    fn shows_its_block(y: Ptr<f32>; const BLOCK: usize) {
        let offs = arange(0, BLOCK);
        static_print(format!("BLOCK = {BLOCK}, offs {:?}", offs.shape()));
        static_assert(BLOCK >= 16, &format!("BLOCK = {BLOCK} is below 16"), "launch with BLOCK of 16 or more"); // @static_assert
        store(y + offs, full::<f32>(&[BLOCK], 1.0), None);
    }
}

/// `static_print` prints what the trace knows, once per trace; a kept `static_assert`
/// changes nothing.
#[test]
fn static_print_prints_once_per_trace() {
    let (kernel, lines) = capture_prints(|| trace_unspecialized(&shows_its_block(), &[("BLOCK", 32)]));
    kernel.unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(lines, ["BLOCK = 32, offs [32]"]);
    let (_, lines) = capture_prints(|| {
        trace_unspecialized(&shows_its_block(), &[("BLOCK", 16)]).unwrap_or_else(|e| panic!("{e}"));
        trace_unspecialized(&shows_its_block(), &[("BLOCK", 64)]).unwrap_or_else(|e| panic!("{e}"))
    });
    assert_eq!(lines, ["BLOCK = 16, offs [16]", "BLOCK = 64, offs [64]"]);
}

/// A false trace-time condition is `RT0101` naming the kernel, the line and the message.
#[test]
fn a_false_static_assert_is_located() {
    let (r, _) = capture_prints(|| trace_unspecialized(&shows_its_block(), &[("BLOCK", 8)]));
    let e = r.expect_err("BLOCK = 8 breaks the assertion");
    let ds = e.diagnostics();
    assert_eq!(ds.len(), 1, "{e}");
    let d = &ds[0];
    assert_eq!(d.code, Code::TraceRule, "{d}");
    assert_eq!(d.kernel, "shows_its_block", "{d}");
    assert_eq!(d.loc.map(|l| l.line), Some(line_of("@static_assert")), "{d}");
    assert!(d.message.contains("static_assert failed: BLOCK = 8 is below 16"), "{d}");
    assert!(d.help.contains("BLOCK of 16 or more"), "{d}");
}
