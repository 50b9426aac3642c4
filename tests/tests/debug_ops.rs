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

/// The interpreter prints one line an element in Triton's GPU format (`vprintf` of
/// `pid (%u, %u, %u) idx (%1u) x: %i`), every operand of a print, booleans as 0 or 1, and
/// a kept assertion changes nothing.
#[test]
fn the_interpreter_prints_each_element() {
    let (r, lines) = interpret(100, 2);
    r.unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(lines.len(), 2 * 3 * B as usize, "{lines:#?}");
    assert_eq!(lines[0], "pid (0, 0, 0) idx (0) x: 0");
    assert_eq!(lines[3], "pid (0, 0, 0) idx (3) x: 3");
    assert_eq!(lines[4], "pid (0, 0, 0) idx (0) pair: (operand 0) 0");
    assert_eq!(lines[8], "pid (0, 0, 0) idx (0) pair: (operand 1) 1");
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

/// The simulator's run of `checked_copy` on two programs, with the lines it printed.
fn simulate(debug: bool, limit: i64) -> (Result<(), sim::SimError>, Vec<String>) {
    let program = lowered(debug);
    let (mut mem, mut args) = memory(2 * B as usize);
    args.push(ArgValue::Int(limit));
    capture_prints(|| sim::run(&program, [2, 1, 1], &args, &mut mem).map(|_| ()))
}

/// Sorted, for comparing the lines of two back ends: on the GPU (and the simulator) each
/// thread prints its own elements, so only the set of lines is the same.
fn sorted(mut lines: Vec<String>) -> Vec<String> {
    lines.sort();
    lines
}

/// Without debug mode both ops lower to nothing: no system call in the PTX, no line and
/// no failure on the simulator.
#[test]
fn without_debug_mode_both_ops_lower_to_nothing() {
    let plain = ptx::write(&lowered(false));
    for absent in ["vprintf", "__assertfail", "trap", ".local", ".global .align 1"] {
        assert!(!plain.contains(absent), "{absent} in\n{plain}");
    }
    let (r, lines) = simulate(false, 6);
    r.unwrap_or_else(|e| panic!("{e}"));
    assert!(lines.is_empty(), "{lines:#?}");
}

/// In debug mode the simulator prints the interpreter's lines (each element once, though
/// 32 threads hold copies of the four), and a passing assertion changes nothing.
#[test]
fn the_simulator_prints_the_interpreters_lines() {
    let (r, sim_lines) = simulate(true, 100);
    r.unwrap_or_else(|e| panic!("{e}"));
    let (r, interp_lines) = interpret(100, 2);
    r.unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(sim_lines.len(), 2 * 3 * B as usize, "{sim_lines:#?}");
    assert_eq!(sorted(sim_lines), sorted(interp_lines));
}

/// In debug mode a false element is `RT0525` at the assertion's line, with its message.
#[test]
fn a_false_device_assert_stops_the_simulator_at_its_line() {
    let (r, _) = simulate(true, 6);
    let text = r.expect_err("x = 6 fails").to_string();
    assert!(text.contains("RT0525"), "{text}");
    assert!(text.contains(&format!("debug_ops.rs:{}", line_of("@device_assert"))), "{text}");
    assert!(text.contains("checked_copy"), "{text}");
    assert!(text.contains("device_assert failed: x below limit"), "{text}");
    assert!(text.contains("program (1, 0, 0)"), "{text}");
}

/// The debug-mode PTX calls the CUDA system calls as nvcc does: `vprintf` with Triton's
/// format string, one call an element, and `__assertfail` with the message, the file,
/// the line and the kernel's name.
#[test]
fn debug_mode_ptx_calls_vprintf_and_assertfail() {
    let text = ptx::write(&lowered(true));
    assert!(text.contains(".extern .func (.param .b32 status) vprintf (.param .b64 format, .param .b64 valist);"));
    assert!(text.contains(
        ".extern .func __assertfail (.param .b64 message, .param .b64 file, .param .b32 line, .param .b64 function, \
         .param .b64 char_size);"
    ));
    assert!(text.contains("\t.local .align 8 .b8 printf_buffer[20];"), "{text}");
    // One element a thread (4 elements on 32 threads), three operands printed.
    assert_eq!(text.matches("call.uni (status), vprintf, (format, valist);").count(), 3, "{text}");
    assert_eq!(text.matches("call.uni __assertfail, (message, file, line, function, char_size);").count(), 1);
    assert!(text.contains(&format!("st.param.b32 [line], {};", line_of("@device_assert"))), "{text}");
    let strings = global_strings(&text);
    for expected in [
        "pid (%u, %u, %u) idx (%1u) x: %i\n",
        "pid (%u, %u, %u) idx (%1u) pair: (operand 0) %i\n",
        "pid (%u, %u, %u) idx (%1u) pair: (operand 1) %u\n",
        "x below limit",
        "tests/tests/debug_ops.rs",
        "checked_copy",
    ] {
        assert!(strings.iter().any(|s| s == expected), "{expected:?} not in {strings:#?}");
    }
}

/// The text of each `.global .align 1 .b8 $strN[len] = {...};` of `ptx`, without its NUL.
fn global_strings(ptx: &str) -> Vec<String> {
    ptx.lines()
        .filter(|l| l.starts_with(".global .align 1 .b8 $str"))
        .map(|l| {
            let bytes = &l[l.find('{').unwrap() + 1..l.rfind('}').unwrap()];
            let mut b: Vec<u8> = bytes.split(", ").map(|x| x.parse().unwrap()).collect();
            assert_eq!(b.pop(), Some(0), "{l}");
            String::from_utf8(b).unwrap()
        })
        .collect()
}

kernel! {
    /// Prints a tile of `x` as f32, f16, i64, i8 and i1, its addresses and the program id.
    fn prints_a_tile(x_ptr: Ptr<f32>; const M: usize, const N: usize) {
        let r = arange(0, M).expand_dims(1);
        let c = arange(0, N).expand_dims(0);
        let offs = r * N as i32 + c;
        let x = load(x_ptr + offs, None, None);
        device_print("x", x);
        device_print("as", (x.to::<half::f16>(), x.to::<i64>(), x.to::<i8>(), x.gt(0.0)));
        device_print("at 100%", x_ptr + offs);
        device_print("pid", program_id(0));
    }
}

/// Floats print as `%f` of the f64 they convert to (NaN and infinities as C prints them),
/// integers by their signedness, masks as 0 or 1, addresses as `%p`; a 2-D tile's indices
/// are padded to their dim's digits. The simulator prints the interpreter's lines, on one
/// warp and on four (where threads hold copies of the tile's elements).
#[test]
fn every_dtype_prints_alike_on_the_interpreter_and_the_simulator() {
    let (m, n) = (4usize, 16usize);
    let xs: Vec<f32> = (0..m * n)
        .map(|i| match i {
            0 => f32::NAN,
            1 => -f32::NAN,
            2 => f32::NEG_INFINITY,
            3 => -0.0,
            4 => 1e30,
            i => (i as f32 - 20.0) * 0.37,
        })
        .collect();
    let constexprs = [("M", m as i64), ("N", n as i64)];
    let run = |backend: Option<u32>| {
        let mut mem = Memory::new();
        let args = [ArgValue::Ptr(mem.alloc_f32(&xs))];
        let (r, lines) = capture_prints(|| {
            let mut session = CompileSession::new();
            match backend {
                None => session
                    .interpret(&prints_a_tile(), &constexprs, &args, SpecPolicy::Triton, [2, 1, 1], &mut mem)
                    .map_err(|e| e.to_string()),
                Some(num_warps) => {
                    let verified = session
                        .front_end_for_args(
                            &prints_a_tile(),
                            &constexprs,
                            &args,
                            SpecPolicy::Triton,
                            &TraceOptions::default(),
                        )
                        .map_err(|e| e.to_string())?;
                    let options = PtxOptions { debug: true, num_warps, ..PtxOptions::default() };
                    let program = ptx::lower(&verified, &options).map_err(|e| e.to_string())?;
                    sim::run(&program, [2, 1, 1], &args, &mut mem).map(|_| ()).map_err(|e| e.to_string())
                }
            }
        });
        r.unwrap_or_else(|e| panic!("{e}"));
        lines
    };
    let interp = run(None);
    // Per program: 64 elements of x, 4 operands of 64, 64 addresses, one program id.
    assert_eq!(interp.len(), 2 * (64 * 6 + 1), "{interp:#?}");
    for expected in [
        "pid (0, 0, 0) idx (0,  0) x: nan",
        "pid (0, 0, 0) idx (0,  1) x: -nan",
        "pid (0, 0, 0) idx (0,  2) x: -inf",
        "pid (0, 0, 0) idx (0,  3) x: -0.000000",
        "pid (0, 0, 0) idx (0,  4) x: 1000000015047466219876688855040.000000",
        "pid (1, 0, 0) idx (3, 15) x: 15.910000",
        "pid (0, 0, 0) idx (0,  5) as: (operand 0) -5.550781",
        "pid (0, 0, 0) idx (0,  5) as: (operand 1) -5",
        "pid (0, 0, 0) idx (0,  5) as: (operand 2) -5",
        "pid (0, 0, 0) idx (0,  5) as: (operand 3) 0",
        "pid (0, 0, 0) idx (3, 15) as: (operand 3) 1",
        "pid (0, 0, 0) idx () pid: 0",
        "pid (1, 0, 0) idx () pid: 1",
    ] {
        assert!(interp.iter().any(|l| l == expected), "{expected:?} not printed:\n{interp:#?}");
    }
    let base = {
        let mut mem = Memory::new();
        mem.alloc_f32(&xs)
    };
    assert!(interp.contains(&format!("pid (0, 0, 0) idx (0,  1) at 100%: {:#x}", base + 4)), "{interp:#?}");
    for num_warps in [1, 4] {
        assert_eq!(sorted(run(Some(num_warps))), sorted(interp.clone()), "num_warps = {num_warps}");
    }
}

/// The debug-mode PTX assembles for sm_86 and sm_90.
#[test]
#[cfg_attr(not(has_ptxas), ignore = "needs ptxas on PATH")]
fn debug_mode_ptx_assembles() {
    let ptxas = ptxas("debug_mode_ptx_assembles");
    let args = [ArgValue::Ptr(0x1000), ArgValue::Ptr(0x2000), ArgValue::Int(100)];
    let tile = [ArgValue::Ptr(0x1000)];
    for arch in [Arch::Sm86, Arch::Sm90] {
        let session = &mut CompileSession::new();
        let copy = session
            .front_end_for_args(&checked_copy(), &[("BLOCK", 128)], &args, SpecPolicy::Triton, &TraceOptions::default())
            .unwrap_or_else(|e| panic!("{e}"));
        let tile = session
            .front_end_for_args(
                &prints_a_tile(),
                &[("M", 4), ("N", 16)],
                &tile,
                SpecPolicy::Triton,
                &TraceOptions::default(),
            )
            .unwrap_or_else(|e| panic!("{e}"));
        for verified in [copy, tile] {
            let p = ptx::compile(&verified, &PtxOptions { debug: true, ..options(arch, 4) })
                .unwrap_or_else(|e| panic!("{e}"));
            assert!(p.text.contains("vprintf"), "{}", p.text);
            assemble(&ptxas, &p.text, arch.name(), "debug_ops").unwrap_or_else(|e| panic!("{}: {e}", arch.name()));
        }
    }
}
