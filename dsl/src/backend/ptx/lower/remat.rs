//! Rematerialization: a value an op needs in another layout is recomputed in that layout
//! instead of moved through shared memory, when it is cheap to recompute, i.e. an index
//! computed from an `arange`, constants and scalars by element-wise ops
//! (`program_id(0) * BLOCK + arange(0, BLOCK)`). This is what makes Triton's
//! `offs[:, None] * B + offs[None, :]` free: each role gets its own copy of `offs` in the
//! threads that need it, as Triton's `RemoveLayoutConversions` pass does for `arange`.

use std::collections::BTreeMap;

use super::Lowerer;
use crate::backend::ptx::PtxError;
use crate::backend::ptx::layout::Layout;
use crate::backend::ptx::lir::{Group, Inst, Operand};
use crate::ir::{Op, OpFamily, OpKind, Value};

/// The most ops one rematerialization re-emits; longer chains go through shared memory.
const MAX_CHAIN: usize = 8;

/// What one rematerialization re-emits.
struct Chain {
    /// The values recomputed, each with its layout; numbered in definition order, so the
    /// map's order is a valid one.
    values: BTreeMap<Value, Layout>,
    /// The conversions on the way: `copy -> operand`, read as the operand recomputed.
    copies: BTreeMap<Value, Value>,
}

impl Lowerer<'_> {
    /// The block values `v` is computed from (itself included), each with the layout it is
    /// recomputed in (`to` for `v`), when all of them are cheap to recompute, and the
    /// conversions met on the way (a copy is its operand: `copy -> operand`); `None`
    /// otherwise.
    fn remat_chain(&self, v: Value, to: &Layout) -> Option<Chain> {
        let mut chain = BTreeMap::new();
        let mut copies = BTreeMap::new();
        let mut todo = vec![(v, to.clone())];
        // Into the tensor-core accumulator layout (a `dot`'s tile indices and pointers,
        // `layout/assign.rs`), `expand_dims` and pointer arithmetic recompute too.
        let into_mma = to.enc.is_mma();
        while let Some((x, lx)) = todo.pop() {
            if self.k.shape(x).is_scalar() {
                continue;
            }
            match chain.get(&x) {
                Some(l) if *l == lx => continue,
                // one value wanted in two layouts: not a chain to recompute
                Some(_) => return None,
                None => {}
            }
            chain.insert(x, lx.clone());
            if chain.len() > MAX_CHAIN {
                return None;
            }
            let op = self.k.def_op(x)?;
            if let OpKind::ConvertLayout { value } = op.kind {
                // Recomputed in `lx`, the copy is its operand recomputed in `lx`. Not a
                // chain member: the stage numbers it after its readers.
                chain.remove(&x);
                copies.insert(x, value);
                todo.push((value, lx));
                continue;
            }
            match (op.kind.family(), &op.kind) {
                // Constants and ranges recompute from nothing (the other sources are
                // scalars, skipped above); a splat from its scalar.
                (OpFamily::Source, _) | (OpFamily::Shape, OpKind::Splat { .. }) => {}
                (OpFamily::Shape, OpKind::ExpandDims { value, axis }) if into_mma => {
                    let mut embed = lx.embed.clone();
                    embed.remove(*axis);
                    todo.push((*value, Layout { enc: lx.enc.clone(), embed }));
                }
                // Pointer arithmetic is left out, with the memory accesses it feeds; an
                // impure asm runs where it was written, once.
                (OpFamily::Elementwise, OpKind::AddPtr { .. }) if !into_mma => return None,
                (OpFamily::Elementwise, OpKind::InlineAsm { is_pure: false, .. }) => return None,
                // Element-wise ops compute in any layout, from their operands recomputed
                // in it.
                (OpFamily::Elementwise, _) => todo.extend(op.kind.operands().into_iter().map(|o| (o, lx.clone()))),
                // Memory accesses, reductions and scans, layout ops, shape changes and the
                // results of control flow are not recomputed (memory, cost or a different
                // shape).
                (OpFamily::Shape | OpFamily::Memory | OpFamily::Reduction | OpFamily::Dot | OpFamily::Control, _) => {
                    return None;
                }
            }
        }
        Some(Chain { values: chain, copies })
    }

    /// `v`'s elements recomputed in layout `to`, or `None` when `v` is not cheap to
    /// recompute. Leaves the lowering's state as it was, except for the new registers.
    pub(super) fn rematerialize(&mut self, op: &Op, v: Value, to: &Layout) -> Result<Option<Vec<Operand>>, PtxError> {
        let Some(Chain { values: chain, copies }) = self.remat_chain(v, to) else { return Ok(None) };
        self.emit(Inst::Group(Group::at(
            format!("recompute {v} ({}) as {} (no data movement)", self.k.ty(v), to.describe()),
            op.loc,
        )));
        let saved = self.overrides.clone();
        // Values are numbered in definition order, so the set's order is a valid one.
        for (&x, lx) in &chain {
            // `remat_chain` keeps op results only.
            let def = self
                .k
                .def_op(x)
                .ok_or_else(|| self.invariant(op, format_args!("reads {x}, recomputed without its op")))?;
            let own = self.vals[x.index()].take();
            self.overrides.insert(x, (lx.clone(), Vec::new()));
            let lowered = self.op(def);
            let elems = std::mem::replace(&mut self.vals[x.index()], own);
            lowered?;
            let elems = elems.ok_or_else(|| self.invariant(def, format_args!("did not define {x} when recomputed")))?;
            // A copy of `x` met on the way reads as `x` recomputed (its operand comes
            // before every reader of the copy, so the copies are ready when read).
            for (&copy, _) in copies.iter().filter(|(_, o)| **o == x) {
                self.overrides.insert(copy, (lx.clone(), elems.clone()));
            }
            self.overrides.insert(x, (lx.clone(), elems));
        }
        // The chain holds `v` itself, or `v` is a copy of a chain member.
        let elems = self
            .overrides
            .get(&v)
            .map(|(_, e)| e.clone())
            .ok_or_else(|| self.invariant(op, format_args!("reads {v}, not recomputed")))?;
        self.overrides = saved;
        self.decisions.conversions.push(crate::backend::ptx::ConversionDecision {
            loc: op.loc,
            through_shared_memory: false,
            reason: format!(
                "{} recomputed as {} for `{}` ({} ops)",
                self.value_origin(v),
                to.describe(),
                op.kind.name(),
                chain.len()
            ),
        });
        Ok(Some(elems))
    }
}
