//! The layout stage, as Triton's TTGIR: the kernel with every value's layout, and each
//! conversion the assignment (`assign.rs`) asks for written as an explicit
//! `convert_layout` op before the op that reads the copy, or, where the copied value is
//! cheap to recompute, as copies of the ops that compute it (`remat.rs`, run over the
//! stage), and each tensor-core `dot` operand read through a conversion to its `#dot_op`
//! layout (`dot_operand.rs`, run last).
//!
//! [`materialize`] is the pass that writes the conversions. A copy made in a block serves
//! every later reader in that block and in the blocks nested in it (one conversion a value
//! and layout per block, as a register copy would); a loop body's copies are its own, since
//! a loop that runs no iteration writes none of them. The new ops and values go after the
//! existing ones in the kernel's arenas, so every `OpId` and `Value` the earlier passes
//! keyed their facts by (the `dot`s' encodings, the rings) keeps its meaning. The result
//! is verified again: the stage the lowering reads is verified IR, as its input was.

use std::collections::{HashMap, HashSet};

use super::dot_operand;
use super::remat::{self, Recomputed};
use super::{Assignment, Layout, transposed_operand};
use crate::backend::ptx::PtxError;
use crate::diag::Code;
use crate::ir::{Block, Kernel, Op, OpId, OpKind, Value, ValueData, ValueDef};
use crate::verify::{self, VerifiedKernel};

/// The kernel of the layout stage and every value's layout.
pub(crate) struct LayoutStage {
    /// The kernel with its `convert_layout` ops, verified.
    pub kernel: VerifiedKernel,
    /// Per value (by index): its layout; `None` for scalars. A `convert_layout`'s result
    /// has the layout its reader needs.
    pub layouts: Vec<Option<Layout>>,
    /// Each `convert_layout`'s result -> the op it was written for (its first reader):
    /// what the lowering's messages and decisions name, since authors never write a
    /// conversion themselves.
    pub reader: HashMap<Value, OpId>,
    /// The conversions replaced by recomputing their operand (`remat.rs`), by the first
    /// op of the copies.
    pub recomputed: HashMap<OpId, Recomputed>,
    /// The `#dot_op` conversions of a loop-invariant `a` that go before their loop
    /// (`dot_operand.rs`), by result: they read the fragments there, once.
    pub hoisted: HashSet<Value>,
}

/// What the pass adds, computed over the unchanged kernel and applied at the end.
#[derive(Default)]
struct Edits {
    ops: Vec<Op>,
    values: Vec<ValueData>,
    /// `(op, operand)` -> the copy the op reads instead.
    operands: HashMap<(OpId, Value), Value>,
    /// Each reader with the conversions made for it, in the order they go before it.
    before: HashMap<OpId, Vec<OpId>>,
    reader: HashMap<Value, OpId>,
    layouts: Vec<Option<Layout>>,
}

/// The layout stage of `k` under `assignment` (see the module doc).
pub(crate) fn materialize(k: &Kernel, assignment: Assignment) -> Result<LayoutStage, PtxError> {
    let Assignment { mut layouts, conversions } = assignment;
    let mut edits = Edits::default();
    let mut scope = HashMap::new();
    block(k, &layouts, &conversions, &k.body, &mut scope, &mut edits);
    let Edits { ops, values, operands, before, mut reader, layouts: added } = edits;
    let mut out = k.clone();
    let readers: HashSet<OpId> = operands.keys().map(|&(id, _)| id).collect();
    for id in readers {
        let op = &mut out.ops[id.index()];
        op.kind = op.kind.map_operands(|v| operands.get(&(id, v)).copied().unwrap_or(v));
    }
    out.ops.extend(ops);
    out.values.extend(values);
    layouts.extend(added);
    let spliced = before.into_iter().map(|(id, mut list)| {
        list.push(id);
        (id, list)
    });
    splice(&mut out, &spliced.collect());
    let recomputed = remat::run(&mut out, &mut layouts, &reader);
    let hoisted = dot_operand::insert(&mut out, &mut layouts, &mut reader);
    let kernel = verify::verify(out).map_err(|e| {
        PtxError::new(
            Code::PtxUnsupported,
            &k.name,
            k.loc,
            format!("internal: the layout stage's conversions broke the IR ({e}); this is an rtriton bug"),
            "please report it with the kernel's IR text",
        )
    })?;
    Ok(LayoutStage { kernel, layouts, reader, recomputed, hoisted })
}

/// The conversions of `b`'s ops (and of the blocks nested in them), with the copies
/// already made in enclosing blocks in `scope`.
fn block(
    k: &Kernel,
    layouts: &[Option<Layout>],
    conversions: &HashMap<(OpId, Value), Layout>,
    b: &Block,
    scope: &mut HashMap<(Value, Layout), Value>,
    edits: &mut Edits,
) {
    let outer = scope.clone();
    for &id in &b.ops {
        let op = k.op(id);
        // A transpose that tensor-core `dot`s read through is not lowered, so neither is
        // a conversion of its operand.
        let read_through =
            matches!(op.kind, OpKind::Permute { .. }) && transposed_operand(k, layouts, op.results[0]).is_some();
        if !read_through {
            for v in op.kind.operands() {
                let Some(to) = conversions.get(&(id, v)) else { continue };
                let copy = match scope.get(&(v, to.clone())) {
                    Some(&c) => c,
                    None => {
                        let c = Value((k.values.len() + edits.values.len()) as u32);
                        let cid = OpId((k.ops.len() + edits.ops.len()) as u32);
                        edits
                            .values
                            .push(ValueData { ty: k.ty(v).clone(), def: ValueDef::Result { op: cid, index: 0 } });
                        edits.ops.push(Op { kind: OpKind::ConvertLayout { value: v }, results: vec![c], loc: op.loc });
                        edits.layouts.push(Some(to.clone()));
                        edits.reader.insert(c, id);
                        scope.insert((v, to.clone()), c);
                        edits.before.entry(id).or_default().push(cid);
                        c
                    }
                };
                edits.operands.insert((id, v), copy);
            }
        }
        for inner in op.kind.regions() {
            block(k, layouts, conversions, inner, scope, edits);
        }
    }
    *scope = outer;
}

/// Every block of `k` with each op listed in `lists` replaced by its list (the passes of
/// the stage put new ops around existing ones this way).
pub(super) fn splice(k: &mut Kernel, lists: &HashMap<OpId, Vec<OpId>>) {
    fn one(b: &mut Block, lists: &HashMap<OpId, Vec<OpId>>) {
        if b.ops.iter().any(|id| lists.contains_key(id)) {
            b.ops = b.ops.iter().flat_map(|id| lists.get(id).cloned().unwrap_or_else(|| vec![*id])).collect();
        }
    }
    one(&mut k.body, lists);
    for op in &mut k.ops {
        for b in op.kind.regions_mut() {
            one(b, lists);
        }
    }
}
