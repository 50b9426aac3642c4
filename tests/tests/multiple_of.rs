//! `multiple_of` (Triton's `tl.multiple_of`): a promise that lets AxisInfo prove vector
//! loads a runtime stride alone does not, checked by the interpreter, free on the GPU.

mod ptx_common;

use ptx_common::{assemble, compile_def, options, ptxas, spill_stores};
use rtriton::backend::ptx::{AccessKind, Arch};
use rtriton::diag::{Code, HasDiagnostics};
use rtriton::interp::{Fault, InterpError, InterpRunError, Memory};
use rtriton::kernel;
use rtriton::prelude::*;
use rtriton::session::CompileSession;
use rtriton::spec::{ArgValue, SpecKey, SpecPolicy};

kernel! {
    /// `y[r] = max(x[r, 0..BLOCK])` over rows `stride` elements apart, the stride promised
    /// to be a multiple of `VEC` (1: no promise).
    fn promised_rows(x_ptr: Ptr<f32>, y_ptr: Ptr<f32>, stride: i32; const BLOCK: usize, const VEC: usize) {
        let stride = multiple_of(stride, VEC as u32);
        let row = program_id(0).to::<i64>();
        let x = load(x_ptr + row * stride + arange(0, BLOCK).to::<i64>(), None, None);
        store(y_ptr + row, max(x, 0), None);
    }
}

kernel! {
    /// `multiple_of` of a constant that is not a multiple: a trace error.
    fn broken_constant(y_ptr: Ptr<i32>) {
        let seven = full::<i32>(&[], 7);
        store(y_ptr, multiple_of(seven, 4), None);
    }
}

kernel! {
    /// `multiple_of(x, 0)`: a trace error.
    fn divisor_zero(y_ptr: Ptr<i32>, n: i32) {
        store(y_ptr, multiple_of(n, 0), None);
    }
}

const X: u64 = 0x7f00_0000_0000;
const Y: u64 = 0x7f10_0000_0000;

fn load_widths(vec: i64, stride: i64) -> Vec<u32> {
    let args = [ArgValue::Ptr(X), ArgValue::Ptr(Y), ArgValue::Int(stride)];
    let p = compile_def(
        &promised_rows(),
        &[("BLOCK", 128), ("VEC", vec)],
        &args,
        SpecPolicy::Triton,
        &options(Arch::Sm86, 1),
    )
    .expect("compiles");
    p.decisions.accesses.iter().filter(|d| d.kind == AccessKind::Load).map(|d| d.vector_width).collect()
}

/// A stride of 100 `f32`s is not a multiple of 16, so specialization proves nothing about
/// where rows start: scalar loads. Promised a multiple of 4 (or 2), the rows start on 16-
/// (8-) byte boundaries: vectors of that many elements, as a stride divisible by 16 gets.
#[test]
fn a_promised_stride_makes_the_loads_vectors() {
    assert_eq!(load_widths(1, 100), vec![1]);
    assert_eq!(load_widths(2, 100), vec![2]);
    assert_eq!(load_widths(4, 100), vec![4]);
    // A promise of 8 gives no more than a 16-byte vector of f32.
    assert_eq!(load_widths(8, 104), vec![4]);
    // What specialization proves on its own.
    assert_eq!(load_widths(1, 128), vec![4]);
}

/// The op emits nothing: with the promise the kernel is the same but for fewer, wider
/// loads (fewer instructions in all), and it assembles for both targets without spills.
#[test]
#[cfg_attr(not(has_ptxas), ignore = "needs ptxas on PATH")]
fn the_promise_costs_no_instruction_and_assembles() {
    let ptxas = ptxas("multiple_of");
    let args = [ArgValue::Ptr(X), ArgValue::Ptr(Y), ArgValue::Int(100)];
    let instructions =
        |text: &str| text.lines().filter(|l| l.trim().ends_with(';') && !l.trim().starts_with("//")).count();
    for arch in [Arch::Sm86, Arch::Sm90] {
        let compile = |vec: i64| {
            compile_def(&promised_rows(), &[("BLOCK", 128), ("VEC", vec)], &args, SpecPolicy::Triton, &options(arch, 1))
                .expect("compiles")
        };
        let (p, plain) = (compile(4), compile(1));
        assert!(p.text.contains("ld.global.v4.f32"), "{}", p.text);
        assert!(instructions(&p.text) < instructions(&plain.text), "{}\n---\n{}", p.text, plain.text);
        let info = assemble(&ptxas, &p.text, arch.name(), "promised_rows").unwrap_or_else(|e| panic!("{arch}: {e}"));
        assert_eq!(spill_stores(&info), Some(0));
    }
}

/// On the interpreter the promise is checked: kept, the result is the maxima; broken, the
/// run stops with `RT0408` at the `multiple_of` line, naming the value and the divisor.
#[test]
fn the_interpreter_checks_the_promise() {
    let rows = 3usize;
    let run = |stride: usize, vec: i64| {
        let mut mem = Memory::new();
        let x: Vec<f32> = (0..rows * stride).map(|i| (i % 37) as f32 - (i / stride) as f32).collect();
        let xp = mem.alloc_f32(&x);
        let yp = mem.alloc(4 * rows);
        let args = [ArgValue::Ptr(xp), ArgValue::Ptr(yp), ArgValue::Int(stride as i64)];
        let r = rtriton::session::CompileSession::new().interpret(
            &promised_rows(),
            &[("BLOCK", 4), ("VEC", vec)],
            &args,
            SpecPolicy::Triton,
            [rows as u32, 1, 1],
            &mut mem,
        );
        let want: Vec<f32> = (0..rows)
            .map(|r| x[r * stride..r * stride + 4].iter().copied().fold(f32::NEG_INFINITY, f32::max))
            .collect();
        r.map(|()| (mem.read_f32(yp, rows).unwrap(), want))
    };
    let (got, want) = run(8, 4).expect("8 is a multiple of 4");
    assert_eq!(got, want);
    let err = run(6, 4).unwrap_err();
    let InterpRunError::Interp(InterpError::Fault { fault: Fault::NotAMultiple { value, divisor, .. }, .. }) = &err
    else {
        panic!("expected a broken promise, got {err}");
    };
    assert_eq!((*value, *divisor), (6, 4));
    let d = &err.diagnostics()[0];
    assert_eq!(d.code, Code::InterpBrokenMultipleOf);
    let text = err.to_string();
    assert!(text.contains("promised_rows") && text.contains("tests/tests/multiple_of.rs:"), "{text}");
    assert!(text.contains("multiple_of promised multiples of 4, but element"), "{text}");
}

/// A promise the trace can already see broken, or a divisor of 0, is a located trace error;
/// the IR text names the op.
#[test]
fn bad_promises_are_trace_errors_and_the_ir_prints_the_op() {
    for def in [broken_constant(), divisor_zero()] {
        let spec = SpecKey::plain(&def.params);
        let e = CompileSession::new().front_end(&def, &[], &spec, &Default::default()).unwrap_err();
        let text = e.to_string();
        assert!(text.contains("multiple_of(") && text.contains("tests/tests/multiple_of.rs:"), "{text}");
    }
    let def = promised_rows();
    let spec = SpecKey::plain(&def.params);
    let traced =
        CompileSession::new().front_end(&def, &[("BLOCK", 32), ("VEC", 4)], &spec, &Default::default()).unwrap();
    let text = traced.kernel().to_string();
    assert!(text.contains("multiple_of %"), "{text}");
}
