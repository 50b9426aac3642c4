//! The block IR of runtime control flow: how `if` and `while` print, what dead-code
//! elimination keeps (a region op lives when it stores or its results are used), and what
//! the verifier says about hand-built IR that breaks their rules (located, never "a
//! compiler bug").

use rtriton::diag::{Code, HasDiagnostics};
use rtriton::ir::{OpKind, ValueDef};
use rtriton::kernel;
use rtriton::prelude::*;
use rtriton::trace::trace_unspecialized;
use rtriton::verify::check;

kernel! {
    fn if_and_while(x: Ptr<f32>, y: Ptr<f32>, n: i32) {
        let pid = program_id(0);
        let v = load(x + pid, None, None);
        let r = if_(v.gt(0.0f32), || v * 2.0f32, || -v);
        let (s, _) = while_loop((r, full::<i32>(&[], 0)), |(_, i)| i.lt(n), |(s, i)| (s + 1.0f32, i + 1));
        store(y + pid, s, None);
        // Dead: no store reads them, nothing inside stores.
        let _unused = if_(pid.eq(0), || v + 1.0f32, || v);
        let _spin = while_loop(full::<i32>(&[], 0), |i| i.lt(3), |i| i + 1);
        // Live although it yields nothing: it stores.
        if_then(pid.eq(1), || store(y, v, None));
    }
}

fn traced() -> rtriton::ir::Kernel {
    trace_unspecialized(&if_and_while(), &[]).expect("traces")
}

#[test]
fn if_and_while_print_their_regions() {
    let text = traced().to_string();
    for want in [" = if %", "} else {", " = while iter_args(", "} do(%", "yield %"] {
        assert!(text.contains(want), "`{want}` missing from\n{text}");
    }
}

#[test]
fn dead_region_ops_go_and_live_ones_stay() {
    let mut k = traced();
    let count = |k: &rtriton::ir::Kernel| {
        let ifs = k.walk().iter().filter(|id| matches!(k.op(**id).kind, OpKind::If { .. })).count();
        let whiles = k.walk().iter().filter(|id| matches!(k.op(**id).kind, OpKind::While { .. })).count();
        (ifs, whiles)
    };
    assert_eq!(count(&k), (3, 2));
    assert!(rtriton::passes::dce::run(&mut k) > 0);
    check(&k).expect("verifies after DCE");
    assert_eq!(count(&k), (2, 1), "{k}");
    assert_eq!(rtriton::passes::dce::run(&mut k), 0, "a second run changes nothing");
}

/// A store moved to read a value of the then branch (IR no trace makes): the verifier
/// names the op, the value's line and the fix.
#[test]
fn hand_built_ir_reading_a_branch_value_after_the_if_is_located() {
    let mut k = traced();
    let inner = k
        .walk()
        .into_iter()
        .find_map(|id| match &k.op(id).kind {
            OpKind::If { then_body, .. } => then_body.ops.first().and_then(|op| k.op(*op).results.first().copied()),
            // other ops hold no then branch (not an op kind match over all of them)
            _ => None,
        })
        .expect("an if with a value in its then branch");
    assert!(matches!(k.values[inner.index()].def, ValueDef::Result { .. }));
    let store = *k.body.ops.iter().find(|id| matches!(k.op(**id).kind, OpKind::Store { .. })).expect("a store");
    if let OpKind::Store { value, .. } = &mut k.ops[store.index()].kind {
        *value = inner;
    }
    let e = check(&k).expect_err("refused");
    assert!(e.has_code(Code::InvalidIr), "{e}");
    let text = e.to_string();
    assert!(text.contains("defined at tests/tests/control_flow_ir.rs:"), "{text}");
    assert!(text.contains("inside a loop or if region that has ended"), "{text}");
    assert!(text.contains("yield it from the region"), "{text}");
    assert!(!text.contains("compiler bug"), "{text}");
}

/// An if whose branches yield different dtypes (Rust refuses it in a kernel body; only
/// hand-built IR gets here) fails its typing rule.
#[test]
fn hand_built_branches_of_two_dtypes_fail_the_typing_rule() {
    let mut k = traced();
    let (id, pid) = {
        let id = k.walk().into_iter().find(|id| matches!(k.op(*id).kind, OpKind::If { .. })).expect("an if");
        let pid = k
            .walk()
            .into_iter()
            .find(|i| matches!(k.op(*i).kind, OpKind::ProgramId { .. }))
            .map(|i| k.op(i).results[0])
            .expect("program_id");
        (id, pid)
    };
    let else_yield = match &k.op(id).kind {
        OpKind::If { else_body, .. } => *else_body.ops.last().expect("a yield"),
        // the op found above is an if (not an op kind match over all of them)
        _ => unreachable!(),
    };
    k.ops[else_yield.index()].kind = OpKind::Yield { values: vec![pid] };
    let e = check(&k).expect_err("refused");
    assert!(e.to_string().contains("the else block must yield one value of each result type"), "{e}");
}
