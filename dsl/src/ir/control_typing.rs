//! The typing rules of the runtime control-flow ops `if` and `while` (referenced by their
//! entries in the op table, `ir/ops.rs`). Like every rule in `typing.rs`, each pushes what
//! is wrong (lowercase, no trailing period) onto `out`.

use super::typing::TypeCx;
use super::{Block, DType, TensorType, Value};

/// A runtime branch or loop condition: one `i1` per program (a scalar).
fn condition(cx: &TypeCx<'_>, out: &mut Vec<String>, what: &str, cond: Value) {
    let t = cx.kernel.ty(cond);
    if t.dtype != DType::BOOL || !t.shape.is_scalar() {
        out.push(format!("{what} must be a scalar i1, got {t}"));
    }
}

/// The types a region's final `yield` hands out (`None` when it does not end with one; the
/// verifier reports that).
fn yielded_types<'k>(cx: &TypeCx<'k>, block: &Block) -> Option<Vec<&'k TensorType>> {
    cx.kernel.yielded(block).map(|vs| vs.iter().map(|v| cx.kernel.ty(*v)).collect())
}

pub fn if_op(cx: &TypeCx<'_>, out: &mut Vec<String>, cond: Value, then_body: &Block, else_body: &Block) {
    condition(cx, out, "if condition", cond);
    if !then_body.args.is_empty() || !else_body.args.is_empty() {
        out.push("if blocks take no arguments".into());
    }
    let results: Vec<&TensorType> = cx.op.results.iter().map(|r| cx.kernel.ty(*r)).collect();
    for (name, block) in [("then", then_body), ("else", else_body)] {
        if let Some(ys) = yielded_types(cx, block)
            && ys != results
        {
            out.push(format!("the {name} block must yield one value of each result type"));
        }
    }
}

pub fn while_loop(cx: &TypeCx<'_>, out: &mut Vec<String>, init: &[Value], before: &Block, after: &Block) {
    let carried: Vec<&TensorType> = init.iter().map(|v| cx.kernel.ty(*v)).collect();
    let args = |b: &Block| b.args.iter().map(|v| cx.kernel.ty(*v)).collect::<Vec<_>>();
    let results: Vec<&TensorType> = cx.op.results.iter().map(|r| cx.kernel.ty(*r)).collect();
    if args(before) != carried || args(after) != carried || results != carried {
        out.push(
            "the condition and body blocks take one argument of each carried type, and the results have them".into(),
        );
    }
    match cx.kernel.yielded(before) {
        Some([c]) => condition(cx, out, "while condition", *c),
        Some(_) => out.push("the condition block must yield exactly one scalar i1".into()),
        None => {}
    }
    if let Some(ys) = yielded_types(cx, after)
        && ys != carried
    {
        out.push("the body block must yield one value of each carried type".into());
    }
}
