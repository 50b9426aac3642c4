//! Bad control flow is a located error, never a panic or "a compiler bug": branches that
//! yield different shapes, tensor conditions, a while body that changes a carried
//! value's shape, a failed `static_assert`, and values used after the loop or branch that made them (`RT0110`,
//! naming the line that made the value and the line that used it). Hand-built IR that
//! breaks the same rules is refused by the verifier; a lowered program whose branch
//! condition differs between lanes, or whose branch skips a barrier, is refused by the
//! simulator.

use rstest::rstest;
use rtriton::backend::ptx::lir::{BinOp, Cmp, Group, Inst, Operand, Param, ParamTy, Program, Reg, Special, Ty};
use rtriton::diag::{Code, Diagnostic, HasDiagnostics};
use rtriton::interp::Memory;
use rtriton::ir::SourceLoc;
use rtriton::kernel;
use rtriton::prelude::*;
use rtriton::sim::{self, Check};
use rtriton::spec::ArgValue;
use rtriton::trace::{KernelDef, trace_unspecialized};

/// The line of this file that holds `marker` (each is written once, in a comment).
fn line_of(marker: &str) -> u32 {
    let src = include_str!("control_flow_errors.rs");
    let hits: Vec<usize> = src.lines().enumerate().filter(|(_, l)| l.contains(marker)).map(|(i, _)| i + 1).collect();
    assert_eq!(hits.len(), 2, "`{marker}` is written once in a kernel and once in the table");
    hits[0] as u32
}

/// Tracing `def` fails with exactly one diagnostic.
fn the_error(def: KernelDef) -> Diagnostic {
    let e = trace_unspecialized(&def, &[("BLOCK", 16)]).expect_err("the trace must fail");
    let ds = e.diagnostics();
    assert_eq!(ds.len(), 1, "one diagnostic: {e}");
    ds[0].clone()
}

kernel! {
    fn branches_of_two_shapes(y: Ptr<f32>; const BLOCK: usize) {
        let c = program_id(0).eq(0);
        let r = if_(c, || full::<f32>(&[BLOCK], 1.0), || full::<f32>(&[2 * BLOCK], 2.0)); // @shapes
        store(y + arange(0, BLOCK), r, None); // the then branch's shape: no second error
    }
}

kernel! {
    fn tensor_condition_in_if(y: Ptr<f32>; const BLOCK: usize) {
        let offs = arange(0, BLOCK);
        if_then(offs.lt(3), || store(y + offs, full::<f32>(&[BLOCK], 1.0), None)); // @if_tensor
    }
}

kernel! {
    fn tensor_condition_in_while(y: Ptr<f32>; const BLOCK: usize) {
        let offs = arange(0, BLOCK);
        let v = while_loop(full::<f32>(&[BLOCK], 1.0), |v| v.lt(8.0f32), |v| v * 2.0f32); // @while_tensor
        store(y + offs, v, None);
    }
}

kernel! {
    fn while_body_changes_shape(y: Ptr<f32>; const BLOCK: usize) {
        let v = while_loop(full::<f32>(&[], 1.0), |v| v.lt(8.0f32), |_| full::<f32>(&[BLOCK], 2.0)); // @carried_shape
        store(y, v, None);
    }
}

kernel! {
    fn escapes_from_if(y: Ptr<f32>; const BLOCK: usize) {
        let mut inner = None;
        if_then(program_id(0).eq(0), || {
            inner = Some(full::<f32>(&[BLOCK], 1.0) + 2.0f32); // @made_in_if
        });
        if let Some(v) = inner {
            store(y + arange(0, BLOCK), v, None); // @used_after_if
        }
    }
}

kernel! {
    fn escapes_from_while(y: Ptr<i32>; const BLOCK: usize) {
        let mut inner = None;
        let n = while_loop(full::<i32>(&[], 0), |i| i.lt(4), |i| {
            let next = i + 1; // @made_in_while
            inner = Some(next);
            next
        });
        store(y, n + inner.unwrap_or(n), None); // @used_after_while
    }
}

kernel! {
    fn escapes_from_for(y: Ptr<i32>, n: i32; const BLOCK: usize) {
        let mut last = None;
        for_range(0, n, 1, (), |i, ()| {
            last = Some(i * 2); // @made_in_for
        });
        if let Some(v) = last {
            store(y, v, None); // @used_after_for
        }
    }
}

kernel! {
    fn escapes_into_the_other_branch(y: Ptr<f32>; const BLOCK: usize) {
        // Both closures borrow it: a cell, as an author sharing a value between branches would.
        let from_then = std::cell::Cell::new(None);
        let c = program_id(0).eq(0);
        let r = if_(
            c,
            || {
                let v = full::<f32>(&[BLOCK], 1.0) * 3.0f32; // @made_in_then
                from_then.set(Some(v));
                v
            },
            || from_then.get().map_or(full::<f32>(&[BLOCK], 0.0), |v| v + 1.0f32), // @used_in_else
        );
        store(y + arange(0, BLOCK), r, None);
    }
}

kernel! {
    fn static_assert_on_a_constexpr(y: Ptr<f32>; const BLOCK: usize) {
        static_assert(BLOCK >= 64, &format!("BLOCK = {BLOCK} is below 64"), "launch with BLOCK of 64 or more"); // @static
        store(y + arange(0, BLOCK), full::<f32>(&[BLOCK], 1.0), None);
    }
}

/// Errors that are one language rule each: the code, the line and what the message and
/// the help must say.
#[rstest]
#[case::branches_of_two_shapes(branches_of_two_shapes(), "@shapes", &["tensor<16xf32> in the then branch but a tensor<32xf32> in the else branch"], "same shape")]
#[case::tensor_condition_in_if(tensor_condition_in_if(), "@if_tensor", &["the condition of if_then is a tensor<16xi1>"], "where_")]
#[case::tensor_condition_in_while(tensor_condition_in_while(), "@while_tensor", &["the condition of while_loop is a tensor<16xi1>"], "reduce")]
#[case::while_body_changes_shape(while_body_changes_shape(), "@carried_shape", &["carried value 0 starts as f32 but the body yields tensor<16xf32>"], "broadcast")]
#[case::static_assert(static_assert_on_a_constexpr(), "@static", &["static_assert failed: BLOCK = 16 is below 64"], "BLOCK of 64 or more")]
fn rule_errors_are_located(#[case] def: KernelDef, #[case] marker: &str, #[case] message: &[&str], #[case] help: &str) {
    let d = the_error(def);
    assert_eq!(d.code, Code::TraceRule, "{d}");
    assert_eq!(d.loc.map(|l| l.line), Some(line_of(marker)), "{d}");
    for m in message {
        assert!(d.message.contains(m), "message lacks `{m}`: {d}");
    }
    assert!(d.help.contains(help), "help lacks `{help}`: {d}");
}

/// A value used after the region that made it: reported at the use, naming the line that
/// made it, the region and what to do ("this is an rtriton compiler bug" never appears).
#[rstest]
#[case::from_if(escapes_from_if(), "@made_in_if", "@used_after_if", "the branch of an if_then")]
#[case::from_while(escapes_from_while(), "@made_in_while", "@used_after_while", "the body of a while_loop")]
#[case::from_for(escapes_from_for(), "@made_in_for", "@used_after_for", "a for_range body")]
#[case::into_the_other_branch(
    escapes_into_the_other_branch(),
    "@made_in_then",
    "@used_in_else",
    "the then branch of an if_"
)]
fn escaping_values_are_located(#[case] def: KernelDef, #[case] made: &str, #[case] used: &str, #[case] region: &str) {
    let name = def.name;
    let d = the_error(def);
    assert_eq!(d.code, Code::TraceEscapingValue, "{d}");
    assert_eq!(d.loc.map(|l| l.line), Some(line_of(used)), "reported at the use: {d}");
    let made_at = format!("tests/tests/control_flow_errors.rs:{}", line_of(made));
    assert!(d.message.contains(&format!("made at {made_at}, inside {region}")), "{d}");
    assert!(d.message.contains("is used here, after that region ended"), "{d}");
    assert!(d.help.contains("returning it from the closure"), "{d}");
    let text = format!("{d}");
    assert!(text.contains(&format!("kernel `{name}`")) && !text.contains("compiler bug"), "{text}");
}

/// A value of the loop's own arguments used after it (the induction variable) is named
/// as the region's argument.
#[test]
fn an_escaping_induction_variable_is_named_as_an_argument() {
    kernel! {
        fn escapes_iv(y: Ptr<i32>, n: i32; const BLOCK: usize) {
            let mut iv = None;
            for_range(0, n, 1, (), |i, ()| iv = Some(i));
            if let Some(i) = iv {
                store(y, i, None);
            }
        }
    }
    let d = the_error(escapes_iv());
    assert_eq!(d.code, Code::TraceEscapingValue, "{d}");
    assert!(
        d.message.starts_with("the i32 argument of a for_range body (opened at tests/tests/control_flow_errors.rs:"),
        "{d}"
    );
}

// ---- the simulator checks the uniformity invariant ---------------------------------------

fn loc() -> SourceLoc {
    SourceLoc { file: "tests/tests/control_flow_errors.rs", line: 1, column: 1 }
}

/// A hand-built program: `p = tid < cut` (a condition that is *not* uniform, which the
/// lowering never emits), then an if on it around `then_body`, then a store of one value
/// per thread (so the run has an effect).
fn branch_on_tid(threads: u32, cut: i64, then_body: Vec<Inst>) -> Result<sim::SimReport, sim::SimError> {
    let regs = vec![Ty::I64, Ty::I32, Ty::Pred, Ty::I64, Ty::I64];
    let (y, tid, p, off, addr) = (Reg(0), Reg(1), Reg(2), Reg(3), Reg(4));
    let body = vec![
        Inst::Group(Group::at("a branch on the thread index", loc())),
        Inst::LdParam { dst: y, param: 0 },
        Inst::ReadSpecial { dst: tid, sreg: Special::TidX },
        Inst::Setp { cmp: Cmp::Lt, ty: Ty::I32, dst: p, a: tid.into(), b: Operand::Int(cut) },
        Inst::If { cond: p, then_body, else_body: vec![] },
        Inst::MulWide { dst: off, a: tid.into(), b: Operand::Int(4) },
        Inst::Bin { op: BinOp::Add, ty: Ty::I64, dst: addr, a: y.into(), b: off.into() },
        Inst::StGlobal { guard: None, ty: Ty::I32, srcs: vec![tid], addr, offset: 0 },
    ];
    let program = Program {
        entry: "branch_on_tid".into(),
        params: vec![Param { name: "y".into(), kind: ParamTy::Ptr }],
        target: "sm_86".into(),
        ptx_version: (7, 8),
        threads_per_cta: threads,
        min_ctas_per_sm: 0,
        shared_bytes: 0,
        shared_align: 16,
        shared_site: None,
        regs,
        body,
        layouts: Vec::new(),
        header: Vec::new(),
        decisions: Default::default(),
        tensor_maps: Vec::new(),
    };
    let mut mem = Memory::new();
    let y = mem.alloc(threads as usize * 4);
    sim::run(&program, [1, 1, 1], &[ArgValue::Ptr(y)], &mut mem)
}

/// A condition that differs between the lanes of one warp breaks `bra.uni`: reported as
/// a divergent branch naming the two threads that disagree.
#[test]
fn a_condition_that_differs_inside_a_warp_is_a_divergent_branch() {
    let e = branch_on_tid(64, 5, vec![]).unwrap_err();
    assert_eq!(e.check, Check::DivergentBranch, "{e}");
    assert!(e.has_code(Code::SimDivergentBranch));
    assert_eq!(e.thread, Some(5), "{e}");
    assert!(e.message.contains("is false in thread 5 but true in thread 0 of the same warp"), "{e}");
    assert_eq!(e.loc.map(|l| l.line), Some(1), "{e}");
}

/// Uniform within each warp but not across warps: legal for `bra.uni`, runs; a barrier in
/// the branch is then skipped by a warp, which the barrier check reports.
#[test]
fn a_branch_that_differs_between_warps_runs_but_may_not_hold_a_barrier() {
    branch_on_tid(64, 32, vec![]).expect("warp-uniform branches are valid");
    let e = branch_on_tid(64, 32, vec![Inst::BarSync { id: 0 }]).unwrap_err();
    assert_eq!(e.check, Check::BarrierDivergence, "{e}");
    assert!(e.message.contains("skipped a branch the others took"), "{e}");
    // The same barrier in a branch every thread takes is fine.
    let report = branch_on_tid(64, 64, vec![Inst::BarSync { id: 0 }]).expect("a uniform branch");
    assert_eq!(report.barriers, 1);
}
