//! Rewriting the values an op reads, for passes that renumber or replace values.

use crate::ir::OpKind;
use crate::ir::Value;

/// `kind` with every operand `v` replaced by `f(v)`. A loop's nested body is copied
/// unchanged (passes rebuild bodies themselves, block by block).
pub fn map_operands(kind: &OpKind, mut f: impl FnMut(Value) -> Value) -> OpKind {
    match kind {
        OpKind::Param { .. }
        | OpKind::Constant(_)
        | OpKind::ProgramId { .. }
        | OpKind::NumPrograms { .. }
        | OpKind::Arange { .. } => kind.clone(),
        OpKind::Splat(v) => OpKind::Splat(f(*v)),
        OpKind::Broadcast(v) => OpKind::Broadcast(f(*v)),
        OpKind::Cast(v) => OpKind::Cast(f(*v)),
        OpKind::ExpandDims { value, axis } => OpKind::ExpandDims { value: f(*value), axis: *axis },
        OpKind::Binary { op, lhs, rhs } => OpKind::Binary { op: *op, lhs: f(*lhs), rhs: f(*rhs) },
        OpKind::Compare { pred, lhs, rhs } => OpKind::Compare { pred: *pred, lhs: f(*lhs), rhs: f(*rhs) },
        OpKind::Select { cond, on_true, on_false } => {
            OpKind::Select { cond: f(*cond), on_true: f(*on_true), on_false: f(*on_false) }
        }
        OpKind::AddPtr { ptr, offset } => OpKind::AddPtr { ptr: f(*ptr), offset: f(*offset) },
        OpKind::Load { ptr, mask, other } => {
            OpKind::Load { ptr: f(*ptr), mask: mask.map(&mut f), other: other.map(&mut f) }
        }
        OpKind::Store { ptr, value, mask } => OpKind::Store { ptr: f(*ptr), value: f(*value), mask: mask.map(&mut f) },
        OpKind::Reduce { op, value, axis } => OpKind::Reduce { op: *op, value: f(*value), axis: *axis },
        OpKind::For { lower, upper, step, init, body } => OpKind::For {
            lower: f(*lower),
            upper: f(*upper),
            step: f(*step),
            init: init.iter().map(|v| f(*v)).collect(),
            body: body.clone(),
        },
        OpKind::Yield(vs) => OpKind::Yield(vs.iter().map(|v| f(*v)).collect()),
    }
}
