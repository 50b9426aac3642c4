//! `assume` (Triton's `tl.assume`): a promise the interpreter checks (a located `RT0410`
//! where it is false) and AxisInfo relies on. A value promised non-negative keeps the
//! contiguity of `(p * BLOCK + arange) % n`, so its loads are vectors; without the promise
//! a remainder of a possibly negative dividend is not contiguous (`-7 % 4 = -3` follows
//! `-8 % 4 = 0`), its loads stay scalar, and the simulator computes the interpreter's
//! bits even where the dividend is negative.

mod ptx_common;

use ptx_common::{compile_def, options};
use rstest::rstest;
use rtriton::backend::ptx::{AccessKind, Arch};
use rtriton::kernel;
use rtriton::prelude::*;
use rtriton::spec::{ArgValue, SpecPolicy};
use rtriton_testing::run::{run_interpreter, run_simulator};
use rtriton_testing::{Case, Data, View};

/// What `wrapped` promises about `p`.
const NONE: usize = 0;
const GE_ZERO: usize = 1;
const GT_MINUS_ONE: usize = 2;
const GE_MINUS_ONE: usize = 3;

kernel! {
    /// `y[pid * BLOCK + i] = x[(p * BLOCK + i) % n + n]` with `p = pid - shift`.
    fn wrapped(x_ptr: Ptr<f32>, y_ptr: Ptr<f32>, n: i32, shift: i32; const BLOCK: usize, const PROMISE: usize) {
        let p = program_id(0) - shift;
        match PROMISE {
            GE_ZERO => assume(p.ge(0)),
            GT_MINUS_ONE => assume(p.gt(-1)),
            GE_MINUS_ONE => assume(p.ge(-1)),
            _ => {}
        }
        let offs = (p * BLOCK as i32 + arange(0, BLOCK)) % n + n;
        let v = load(x_ptr + offs, None, None);
        store(y_ptr + program_id(0) * BLOCK as i32 + arange(0, BLOCK), v, None);
    }
}

const X: u64 = 0x7f00_0000_0000;
const Y: u64 = 0x7f10_0000_0000;

/// The width of the load of `x` under Triton's specialization (`n` and `shift` divisible
/// by 16, pointers 16-byte aligned).
fn load_width(promise: usize) -> u32 {
    let args = [ArgValue::Ptr(X), ArgValue::Ptr(Y), ArgValue::Int(1024), ArgValue::Int(32)];
    let p = compile_def(
        &wrapped(),
        &[("BLOCK", 128), ("PROMISE", promise as i64)],
        &args,
        SpecPolicy::Triton,
        &options(Arch::Sm86, 1),
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let widths: Vec<u32> =
        p.decisions.accesses.iter().filter(|d| d.kind == AccessKind::Load).map(|d| d.vector_width).collect();
    assert_eq!(widths.len(), 1, "{widths:?}");
    widths[0]
}

#[rstest]
#[case::no_promise(NONE, 1)]
#[case::at_least_zero(GE_ZERO, 4)]
#[case::above_minus_one(GT_MINUS_ONE, 4)]
#[case::at_least_minus_one_proves_nothing(GE_MINUS_ONE, 1)]
fn a_promised_non_negative_dividend_keeps_the_remainder_contiguous(#[case] promise: usize, #[case] width: u32) {
    assert_eq!(load_width(promise), width);
}

fn case(n: usize, shift: i64, programs: u32, promise: usize) -> Case {
    let x: Vec<f32> = (0..2 * n).map(|i| i as f32).collect();
    // One warp, 4 consecutive elements a thread: vectors wherever contiguity allows.
    let mut c = Case::new("wrapped").grid([programs, 1, 1]).num_warps(1);
    c.constexprs = vec![("BLOCK", 128), ("PROMISE", promise as i64)];
    let len = 128 * programs as usize;
    c.input("x", Data::F32(x), View::contiguous(&[2 * n]))
        .output("y", Data::F32(vec![0.0; len]), View::contiguous(&[len]))
        .int(n as i64)
        .int(shift)
}

/// Dividends from -256 up (programs 0 and 1 with `shift` 2): the remainders of negative
/// ones run `0, -15, -14, ...`, so the loads must not be vectors; the simulator reads what
/// the interpreter reads.
#[test]
fn negative_dividends_are_read_element_by_element() {
    let c = case(16, 2, 4, NONE);
    let want = run_interpreter(&wrapped(), &c, SpecPolicy::Triton).unwrap_or_else(|e| panic!("{e}"));
    let got = run_simulator(&wrapped(), &c, SpecPolicy::Triton).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(got.buffers[0].1.to_le_bytes(), want.buffers[0].1.to_le_bytes());
    // program 0: p = -2, offsets (-256 + i) % 16 + 16
    let out = &want.buffers[0].1;
    for i in 0..128 {
        let expect = ((-256 + i as i64) % 16 + 16) as f64;
        assert_eq!(out.f64_at(i).unwrap(), expect, "element {i}");
    }
}

/// A kept promise changes no result; a broken one stops the interpreter at the `assume`
/// with `RT0410`, naming the program.
#[test]
fn the_interpreter_checks_the_promise() {
    let kept = case(16, 0, 2, GE_ZERO);
    let want = run_interpreter(&wrapped(), &case(16, 0, 2, NONE), SpecPolicy::Triton).unwrap_or_else(|e| panic!("{e}"));
    let got = run_interpreter(&wrapped(), &kept, SpecPolicy::Triton).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(got.buffers[0].1.to_le_bytes(), want.buffers[0].1.to_le_bytes());
    let sim = run_simulator(&wrapped(), &kept, SpecPolicy::Triton).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(sim.buffers[0].1.to_le_bytes(), want.buffers[0].1.to_le_bytes());

    let err =
        run_interpreter(&wrapped(), &case(16, 1, 2, GE_ZERO), SpecPolicy::Triton).expect_err("p = -1 in program 0");
    let text = err.to_string();
    assert!(text.contains("RT0410") && text.contains("tests/tests/assume.rs:30"), "{text}");
    assert!(text.contains("program (0, 0, 0)") || text.contains("program 0"), "{text}");
}
