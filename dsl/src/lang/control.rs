//! Runtime control flow besides `for_range`: `if_` / `if_then` (Triton's `if` on a runtime
//! scalar, `scf.if`) and `while_loop` (Triton's `while`, `scf.while`).
//!
//! The condition is one `i1` per program (a scalar tensor): every thread of the program's
//! CTA takes the same branch, so the PTX branches are uniform (`bra.uni`) and barriers and
//! shuffles inside a branch or a loop stay collective. A tensor condition is a located
//! error saying to reduce it or to select element-wise with `where_`.

use crate::ir::{OpKind, SourceLoc, TensorType, Value};
use crate::trace::{Builder, with_builder};

use super::ops::Carry;
use super::tensor::Tensor;

/// Triton's `if cond: ... else: ...` with values assigned in both branches:
/// `if_(cond, || then_values, || else_values)` runs one closure per program, chosen by
/// the runtime scalar `cond`, and returns what it returned (a tensor, a tuple of tensors,
/// or `()`). Both closures return the same Rust type (so the same dtypes); their shapes
/// must agree too (a located error otherwise).
///
/// ```
/// # use rtriton::prelude::*;
/// rtriton::kernel! {
///     fn clamp_row(x: Ptr<f32>, out: Ptr<f32>, limit: f32) {
///         let pid = program_id(0);
///         let v = load(x + pid, None, None);
///         let r = if_(v.gt(limit), || full::<f32>(&[], 0.0) + limit, || v);
///         store(out + pid, r, None);
///     }
/// }
/// # rtriton::trace::trace_unspecialized(&clamp_row(), &[]).unwrap();
/// ```
///
/// The branches must yield one type (in Rust, so this does not compile):
///
/// ```compile_fail,E0308
/// # use rtriton::prelude::*;
/// rtriton::kernel! {
///     fn mixed(x: Ptr<f32>) {
///         let c = program_id(0).eq(0);
///         let _ = if_(c, || full::<f32>(&[], 1.0), || full::<i32>(&[], 1));
///     }
/// }
/// ```
#[track_caller]
pub fn if_<C: Carry>(cond: Tensor<bool>, then_branch: impl FnOnce() -> C, else_branch: impl FnOnce() -> C) -> C {
    let loc = SourceLoc::caller();
    with_builder(|b| check_condition(b, "if_", cond.id(), loc));
    let (then_body, then_carry) = region("the then branch of an if_", loc, then_branch);
    let (else_body, else_carry) = region("the else branch of an if_", loc, else_branch);
    then_carry.check_captured(&else_carry, "an if_", loc);
    let results = with_builder(|b| {
        let types = branch_types(b, &then_carry.values(), &else_carry.values(), loc);
        b.push(OpKind::If { cond: cond.id(), then_body, else_body }, types, loc)
    });
    then_carry.rebuild(&mut results.into_iter())
}

/// Triton's `if cond: ...` with no `else` and no values assigned (the branch only stores):
/// `then_branch` runs in the programs where the runtime scalar `cond` is true.
#[track_caller]
pub fn if_then(cond: Tensor<bool>, then_branch: impl FnOnce()) {
    let loc = SourceLoc::caller();
    with_builder(|b| check_condition(b, "if_then", cond.id(), loc));
    let (then_body, _) = region("the branch of an if_then", loc, then_branch);
    let (else_body, _) = region("the empty else branch of an if_then", loc, || ());
    with_builder(|b| b.push(OpKind::If { cond: cond.id(), then_body, else_body }, vec![], loc));
}

/// Triton's `while cond(carried): carried = body(carried)` (`scf.while`):
/// `while_loop(init, |c| condition, |c| next)` evaluates `condition` on the carried values
/// (a runtime scalar `i1`), and while it is true replaces them with `next`; it returns the
/// carried values for which `condition` was first false (`init` if it is false at once).
/// The carried values keep their shapes and dtypes across iterations. The trip count may
/// differ between programs (it may depend on loaded data), never between the threads of
/// one program. Values computed in `condition` are not visible in `body`: compute them
/// again there, or carry them.
///
/// ```
/// # use rtriton::prelude::*;
/// rtriton::kernel! {
///     // Halves each program's value until it is below 1.0, counting the steps.
///     fn halvings(x: Ptr<f32>, steps: Ptr<i32>) {
///         let pid = program_id(0);
///         let v = load(x + pid, None, None);
///         let (_, n) = while_loop(
///             (v, full::<i32>(&[], 0)),
///             |(v, _)| v.ge(1.0f32),
///             |(v, n)| (v * 0.5f32, n + 1),
///         );
///         store(steps + pid, n, None);
///     }
/// }
/// # rtriton::trace::trace_unspecialized(&halvings(), &[]).unwrap();
/// ```
#[track_caller]
pub fn while_loop<C: Carry>(init: C, condition: impl FnOnce(C) -> Tensor<bool>, body: impl FnOnce(C) -> C) -> C {
    let loc = SourceLoc::caller();
    let init_values = init.values();
    let types: Vec<TensorType> = with_builder(|b| init_values.iter().map(|v| b.ty(*v).clone()).collect());
    // The condition block: the carried values in, one scalar i1 out.
    let args = with_builder(|b| b.open_region("the condition of a while_loop", Some(loc), types.clone()));
    let cond = condition(init.rebuild(&mut args.into_iter())).id();
    let before = with_builder(|b| {
        check_condition(b, "while_loop", cond, loc);
        b.push(OpKind::Yield { values: vec![cond] }, vec![], loc);
        b.close_block()
    });
    // The body block: the carried values in, the next carried values out.
    let args = with_builder(|b| b.open_region("the body of a while_loop", Some(loc), types.clone()));
    let next_carried = body(init.rebuild(&mut args.into_iter()));
    init.check_captured(&next_carried, "a while_loop", loc);
    let next = next_carried.values();
    let after = with_builder(|b| {
        for (i, (n, t)) in next.iter().zip(&types).enumerate() {
            if b.ty(*n) != t {
                let got = b.ty(*n).clone();
                b.error(
                    loc,
                    format!("while_loop carried value {i} starts as {t} but the body yields {got}"),
                    "keep each carried value's shape and type the same across iterations (broadcast the initial value)",
                );
            }
        }
        b.push(OpKind::Yield { values: next }, vec![], loc);
        b.close_block()
    });
    let results = with_builder(|b| b.push(OpKind::While { init: init_values, before, after }, types, loc));
    init.rebuild(&mut results.into_iter())
}

/// Traces `f` as a region without arguments (`what`, opened at `loc`) ending with a
/// `yield` of what it returns; gives the block and what `f` returned.
fn region<C: Carry>(what: &'static str, loc: SourceLoc, f: impl FnOnce() -> C) -> (crate::ir::Block, C) {
    with_builder(|b| b.open_region(what, Some(loc), vec![]));
    let carried = f();
    let values = carried.values();
    let block = with_builder(|b| {
        b.push(OpKind::Yield { values }, vec![], loc);
        b.close_block()
    });
    (block, carried)
}

/// A branch or loop condition is one `i1` per program.
fn check_condition(b: &mut Builder, what: &str, cond: Value, loc: SourceLoc) {
    let ty = b.ty(cond).clone();
    if !ty.shape.is_scalar() {
        b.error(
            loc,
            format!("the condition of {what} is a {ty}; a runtime branch needs one scalar i1 per program"),
            "reduce the block to a scalar first (e.g. `max(c.to::<i32>(), 0).gt(0)` for \"any\"), \
             or choose element by element with where_(cond, a, b)",
        );
    }
}

/// The result types of an `if_`: the then branch's, which the else branch must match.
fn branch_types(b: &mut Builder, then_values: &[Value], else_values: &[Value], loc: SourceLoc) -> Vec<TensorType> {
    let types: Vec<TensorType> = then_values.iter().map(|v| b.ty(*v).clone()).collect();
    for (i, (t, e)) in then_values.iter().zip(else_values).enumerate() {
        let (tt, et) = (b.ty(*t).clone(), b.ty(*e).clone());
        if tt != et {
            b.error(
                loc,
                format!("if_ value {i} is a {tt} in the then branch but a {et} in the else branch"),
                "make both branches yield the same shape and dtype (broadcast_to / full with the other branch's shape)",
            );
        }
    }
    types
}
