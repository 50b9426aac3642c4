//! How a value is read, seeing through the `#dot_op` conversions of tensor-core `dot`
//! operands (`dot_operand.rs`): the analyses that decide from a value's readers (ring reads
//! that stay in shared memory, transposes read through, the `wgmma` plan) and the lowering
//! ask here, so a conversion changes none of their answers.

use super::DotOperand;
use super::Layout;
use crate::ir::{Kernel, OpId, OpKind, Value};

/// The `#dot_op` layout of `v`, when it is a `dot` operand's conversion.
pub(crate) fn operand(layouts: &[Option<Layout>], v: Value) -> Option<DotOperand> {
    layouts.get(v.index())?.as_ref()?.operand
}

/// The value a `dot` operand's conversion converts (`v` itself for any other value):
/// what the fragments are read from.
pub(crate) fn source(k: &Kernel, layouts: &[Option<Layout>], v: Value) -> Value {
    match k.def_op(v).map(|o| &o.kind) {
        Some(OpKind::ConvertLayout { value }) if operand(layouts, v).is_some() => *value,
        _ => v,
    }
}

/// Each op that reads `v`, with the value it reads: an op reading `v` directly, and a
/// `dot` reading it through its operand conversion (then the value is the conversion's
/// result, which is what the `dot`'s fields hold).
pub(crate) fn readers(k: &Kernel, layouts: &[Option<Layout>], v: Value) -> Vec<(OpId, Value)> {
    let mut out = Vec::new();
    for id in k.walk() {
        let op = k.op(id);
        if !op.kind.operands().contains(&v) {
            continue;
        }
        match (&op.kind, op.results.first()) {
            (OpKind::ConvertLayout { .. }, Some(&c)) if operand(layouts, c).is_some() => {
                out.extend(k.walk().into_iter().filter(|&u| k.op(u).kind.operands().contains(&c)).map(|u| (u, c)));
            }
            _ => out.push((id, v)),
        }
    }
    out
}
