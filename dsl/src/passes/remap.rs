//! Rewriting the values an op reads, for passes that renumber or replace values.

use crate::ir::OpKind;
use crate::ir::Value;

/// `kind` with every operand `v` replaced by `f(v)`. A loop's nested body is copied
/// unchanged (passes rebuild bodies themselves, block by block). Generated from the op
/// table ([`OpKind::map_operands`]).
pub fn map_operands(kind: &OpKind, f: impl FnMut(Value) -> Value) -> OpKind {
    kind.map_operands(f)
}
