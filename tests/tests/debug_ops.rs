//! Triton's debugging ops: `static_print` and `static_assert` at trace time, `device_print`
//! and `device_assert` as ops that run with the kernel (`docs/semantics.md`, "Debugging
//! ops").

mod ptx_common;

use ptx_common::{assemble, options, ptxas};
use rtriton::backend::ptx::{self, Arch, PtxOptions};
use rtriton::diag::{Code, HasDiagnostics};
use rtriton::interp::Memory;
use rtriton::kernel;
use rtriton::prelude::*;
use rtriton::print_sink::capture_prints;
use rtriton::session::CompileSession;
use rtriton::sim;
use rtriton::spec::{ArgValue, SpecPolicy};
use rtriton::trace::{TraceOptions, trace_unspecialized};

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

kernel! {
    /// Copies `x` to `y`, printing the elements and asserting each is below `limit`.
    fn checked_copy(x_ptr: Ptr<i32>, y_ptr: Ptr<i32>, limit: i32; const BLOCK: usize) {
        let offs = program_id(0) * BLOCK as i32 + arange(0, BLOCK);
        let x = load(x_ptr + offs, None, None);
        device_print("x", x);
        device_print("pair", (offs, x.lt(limit)));
        device_assert(x.lt(limit), "x below limit"); // @device_assert
        store(y_ptr + offs, x, None);
    }
}

const B: i64 = 4;

/// Memory with `x = [0, 1, 2, ...]` of `n` elements and an output of as many.
fn memory(n: usize) -> (Memory, Vec<ArgValue>) {
    let mut mem = Memory::new();
    let x = mem.alloc_i32(&(0..n as i32).collect::<Vec<_>>());
    let y = mem.alloc(n * 4);
    (mem, vec![ArgValue::Ptr(x), ArgValue::Ptr(y)])
}

fn interpret(limit: i64, programs: u32) -> (Result<(), String>, Vec<String>) {
    let (mut mem, mut args) = memory(B as usize * programs as usize);
    args.push(ArgValue::Int(limit));
    capture_prints(|| {
        CompileSession::new()
            .interpret(&checked_copy(), &[("BLOCK", B)], &args, SpecPolicy::Off, [programs, 1, 1], &mut mem)
            .map_err(|e| e.to_string())
    })
}

/// The interpreter prints one line an element in Triton's format, every operand of a
/// print, and a kept assertion changes nothing.
#[test]
fn the_interpreter_prints_each_element() {
    let (r, lines) = interpret(100, 2);
    r.unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(lines.len(), 2 * 3 * B as usize, "{lines:#?}");
    assert_eq!(lines[0], "pid (0, 0, 0) idx (0) x: 0");
    assert_eq!(lines[3], "pid (0, 0, 0) idx (3) x: 3");
    assert_eq!(lines[4], "pid (0, 0, 0) idx (0) pair (operand 0): 0");
    assert_eq!(lines[8], "pid (0, 0, 0) idx (0) pair (operand 1): true");
    assert_eq!(lines[13], "pid (1, 0, 0) idx (1) x: 5");
}

/// A false element is `RT0411` naming the kernel, the line, the message, the program and
/// the element.
#[test]
fn a_false_device_assert_stops_the_interpreter() {
    let (r, _) = interpret(6, 2);
    let text = r.expect_err("x = 6 in program 1, element 2");
    assert!(text.contains("RT0411"), "{text}");
    assert!(text.contains("checked_copy"), "{text}");
    assert!(text.contains(&format!("debug_ops.rs:{}", line_of("@device_assert"))), "{text}");
    assert!(text.contains("x below limit"), "{text}");
    assert!(text.contains("program (1, 0, 0)") && text.contains("element [2]"), "{text}");
}

fn lowered(debug: bool) -> rtriton::backend::ptx::lir::Program {
    let args = [ArgValue::Ptr(0x1000), ArgValue::Ptr(0x2000), ArgValue::Int(100)];
    let verified = CompileSession::new()
        .front_end_for_args(&checked_copy(), &[("BLOCK", B)], &args, SpecPolicy::Off, &TraceOptions::default())
        .unwrap_or_else(|e| panic!("{e}"));
    ptx::lower(&verified, &PtxOptions { debug, num_warps: 1, ..PtxOptions::default() })
        .unwrap_or_else(|e| panic!("{e}"))
}

fn simulate(debug: bool, limit: i64) -> Result<(), sim::SimError> {
    let program = lowered(debug);
    let (mut mem, mut args) = memory(2 * B as usize);
    args.push(ArgValue::Int(limit));
    sim::run(&program, [2, 1, 1], &args, &mut mem).map(|_| ())
}

/// Without debug mode both ops lower to nothing; in debug mode the assertion is a
/// predicated `trap`, which the simulator reports at the assertion's line.
#[test]
fn the_simulator_traps_only_in_debug_mode() {
    let plain = ptx::write(&lowered(false));
    assert!(!plain.contains("trap"), "{plain}");
    let debug = ptx::write(&lowered(true));
    assert!(debug.contains("trap;"), "{debug}");

    simulate(false, 6).unwrap_or_else(|e| panic!("{e}"));
    simulate(true, 100).unwrap_or_else(|e| panic!("{e}"));
    let e = simulate(true, 6).expect_err("x = 6 traps");
    let text = e.to_string();
    assert!(text.contains("RT0525"), "{text}");
    assert!(text.contains(&format!("debug_ops.rs:{}", line_of("@device_assert"))), "{text}");
    assert!(text.contains("checked_copy"), "{text}");
}

/// The debug-mode PTX assembles for sm_86 and sm_90.
#[test]
#[cfg_attr(not(has_ptxas), ignore = "needs ptxas on PATH")]
fn debug_mode_ptx_assembles() {
    let ptxas = ptxas("debug_mode_ptx_assembles");
    let args = [ArgValue::Ptr(0x1000), ArgValue::Ptr(0x2000), ArgValue::Int(100)];
    for arch in [Arch::Sm86, Arch::Sm90] {
        let verified = CompileSession::new()
            .front_end_for_args(&checked_copy(), &[("BLOCK", 128)], &args, SpecPolicy::Triton, &TraceOptions::default())
            .unwrap_or_else(|e| panic!("{e}"));
        let p =
            ptx::compile(&verified, &PtxOptions { debug: true, ..options(arch, 4) }).unwrap_or_else(|e| panic!("{e}"));
        assert!(p.text.contains("trap;"), "{}", p.text);
        assemble(&ptxas, &p.text, arch.name(), "debug_ops").unwrap_or_else(|e| panic!("{}: {e}", arch.name()));
    }
}
