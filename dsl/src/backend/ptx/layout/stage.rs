//! The layout stage, as Triton's TTGIR: the kernel with every value's layout, and each
//! conversion the assignment (`assign.rs`) asks for written as an explicit
//! `convert_layout` op before the op that reads the copy, or, where the copied value is
//! cheap to recompute, as copies of the ops that compute it (`remat.rs`, run over the
//! stage).
//!
//! [`materialize`] is the pass that writes the conversions. A copy made in a block serves
//! every later reader in that block and in the blocks nested in it (one conversion a value
//! and layout per block, as a register copy would); a loop body's copies are its own, since
//! a loop that runs no iteration writes none of them. The new ops and values go after the
//! existing ones in the kernel's arenas, so every `OpId` and `Value` the earlier passes
//! keyed their facts by (the `dot`s' encodings, the rings) keeps its meaning. The result
//! is verified again: the stage the lowering reads is verified IR, as its input was.

use std::collections::HashMap;

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
}

/// Where a block's ops live: the kernel's body, or region `index` of op `owner`.
type BlockKey = Option<(OpId, usize)>;

/// What the pass adds, computed over the unchanged kernel and applied at the end.
#[derive(Default)]
struct Edits {
    ops: Vec<Op>,
    values: Vec<ValueData>,
    /// `(op, operand)` -> the copy the op reads instead.
    operands: HashMap<(OpId, Value), Value>,
    /// Each block's new op list, where it changed.
    blocks: HashMap<BlockKey, Vec<OpId>>,
    reader: HashMap<Value, OpId>,
    layouts: Vec<Option<Layout>>,
}

/// The layout stage of `k` under `assignment` (see the module doc).
pub(crate) fn materialize(k: &Kernel, assignment: Assignment) -> Result<LayoutStage, PtxError> {
    let Assignment { mut layouts, conversions } = assignment;
    let mut edits = Edits::default();
    let mut scope = HashMap::new();
    block(k, &layouts, &conversions, &k.body, None, &mut scope, &mut edits);
    let Edits { ops, values, operands, blocks, reader, layouts: added } = edits;
    let mut out = k.clone();
    let readers: std::collections::HashSet<OpId> = operands.keys().map(|&(id, _)| id).collect();
    for id in readers {
        let op = &mut out.ops[id.index()];
        op.kind = op.kind.map_operands(|v| operands.get(&(id, v)).copied().unwrap_or(v));
    }
    out.ops.extend(ops);
    out.values.extend(values);
    layouts.extend(added);
    for (key, list) in blocks {
        match key {
            None => out.body.ops = list,
            Some((owner, index)) => {
                if let Some(b) = out.ops[owner.index()].kind.regions_mut().into_iter().nth(index) {
                    b.ops = list;
                }
            }
        }
    }
    let recomputed = remat::run(&mut out, &mut layouts, &reader);
    let kernel = verify::verify(out).map_err(|e| {
        PtxError::new(
            Code::PtxUnsupported,
            &k.name,
            k.loc,
            format!("internal: the layout stage's conversions broke the IR ({e}); this is an rtriton bug"),
            "please report it with the kernel's IR text",
        )
    })?;
    Ok(LayoutStage { kernel, layouts, reader, recomputed })
}

/// The conversions of `b`'s ops (and of the blocks nested in them), with the copies
/// already made in enclosing blocks in `scope`.
fn block(
    k: &Kernel,
    layouts: &[Option<Layout>],
    conversions: &HashMap<(OpId, Value), Layout>,
    b: &Block,
    key: BlockKey,
    scope: &mut HashMap<(Value, Layout), Value>,
    edits: &mut Edits,
) {
    let outer = scope.clone();
    let mut list = Vec::with_capacity(b.ops.len());
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
                        list.push(cid);
                        c
                    }
                };
                edits.operands.insert((id, v), copy);
            }
        }
        list.push(id);
        for (index, inner) in op.kind.regions().into_iter().enumerate() {
            block(k, layouts, conversions, inner, Some((id, index)), scope, edits);
        }
    }
    if list.len() != b.ops.len() {
        edits.blocks.insert(key, list);
    }
    *scope = outer;
}
