//! Rematerialization, a pass over the layout stage: a `convert_layout` whose operand is
//! cheap to recompute (an index computed from an `arange`, constants and scalars by
//! element-wise ops, `program_id(0) * BLOCK + arange(0, BLOCK)`) is replaced by copies of
//! the ops that compute it, in the layout the reader needs, so no element moves between
//! threads. This is what makes Triton's `offs[:, None] * B + offs[None, :]` free: each
//! role gets its own copy of `offs` in the threads that need it, as Triton's
//! `RemoveLayoutConversions` pass does for `arange`. The conversions left go through
//! shared memory (`lower/exchange.rs`).

use std::collections::{BTreeMap, HashMap};

use super::{Layout, MAX_REGS_PER_VALUE};
use crate::ir::{Kernel, Op, OpFamily, OpId, OpKind, Value, ValueData, ValueDef};

/// The most ops one rematerialization writes; longer chains go through shared memory.
const MAX_CHAIN: usize = 8;

/// One conversion replaced by recomputing: what the lowering says where the copies start.
#[derive(Clone, Debug)]
pub(crate) struct Recomputed {
    /// The value recomputed (the conversion's operand).
    pub value: Value,
    pub to: Layout,
    /// The op the conversion was made for.
    pub reader: OpId,
    /// Each copy's result and the value it copies, in order.
    pub copies: Vec<(Value, Value)>,
}

/// The values a recomputation copies, each with its layout, and the conversions met on
/// the way (`copy -> operand`: recomputed, a copy is its operand recomputed).
struct Chain {
    /// Numbered in definition order (conversions, numbered after their readers, are
    /// never members), so the map's order is a valid order to copy them in.
    values: BTreeMap<Value, Layout>,
    copies: HashMap<Value, Value>,
}

/// Replaces every conversion of `k` whose operand is cheap to recompute (see the module
/// doc); the copies go where the conversion was, the conversion leaves its block, and its
/// readers read the copy of its operand. Returns, per first copied op, what it recomputes.
pub(crate) fn run(
    k: &mut Kernel,
    layouts: &mut Vec<Option<Layout>>,
    readers: &HashMap<Value, OpId>,
) -> HashMap<OpId, Recomputed> {
    // Every chain is found in the kernel as the conversion pass left it.
    let plans: Vec<(OpId, Value, Value, Layout, Chain)> = k
        .walk()
        .into_iter()
        .filter_map(|id| {
            let op = k.op(id);
            let OpKind::ConvertLayout { value } = op.kind else { return None };
            let copy = *op.results.first()?;
            let to = layouts.get(copy.index())?.clone()?;
            chain(k, value, &to).map(|c| (id, copy, value, to, c))
        })
        .collect();
    let mut replace: HashMap<Value, Value> = HashMap::new();
    let mut inserted: HashMap<OpId, Vec<OpId>> = HashMap::new();
    let mut recomputed = HashMap::new();
    for (convert, copy, value, to, chain) in plans {
        let mut map: HashMap<Value, Value> = HashMap::new();
        let resolve = |map: &HashMap<Value, Value>, o: Value| {
            map.get(&o).or_else(|| chain.copies.get(&o).and_then(|src| map.get(src))).copied().unwrap_or(o)
        };
        let mut ids = Vec::with_capacity(chain.values.len());
        let mut copies = Vec::with_capacity(chain.values.len());
        for (&x, lx) in &chain.values {
            let Some(def) = k.def_op(x).cloned() else { continue };
            let kind = def.kind.map_operands(|o| resolve(&map, o));
            let (nx, nid) = (Value(k.values.len() as u32), OpId(k.ops.len() as u32));
            k.values.push(ValueData { ty: k.ty(x).clone(), def: ValueDef::Result { op: nid, index: 0 } });
            k.ops.push(Op { kind, results: vec![nx], loc: def.loc });
            layouts.push(Some(lx.clone()));
            map.insert(x, nx);
            ids.push(nid);
            copies.push((nx, x));
        }
        replace.insert(copy, resolve(&map, value));
        if let Some(&first) = ids.first() {
            let reader = readers.get(&copy).copied().unwrap_or(convert);
            recomputed.insert(first, Recomputed { value, to, reader, copies });
        }
        inserted.insert(convert, ids);
    }
    if inserted.is_empty() {
        return recomputed;
    }
    for op in &mut k.ops {
        op.kind = op.kind.map_operands(|o| replace.get(&o).copied().unwrap_or(o));
    }
    // Each replaced conversion's place goes to its copies.
    super::stage::splice(k, &inserted);
    recomputed
}

/// The block values `v` is computed from (itself included), each with the layout it is
/// recomputed in (`to` for `v`), when all of them are cheap to recompute and fit the
/// register budget; `None` otherwise.
fn chain(k: &Kernel, v: Value, to: &Layout) -> Option<Chain> {
    let mut values = BTreeMap::new();
    let mut copies = HashMap::new();
    let mut todo = vec![(v, to.clone())];
    // Into the tensor-core accumulator layout (a `dot`'s tile indices and pointers,
    // `assign.rs`), `expand_dims` and pointer arithmetic recompute too.
    let into_mma = to.enc.is_mma();
    while let Some((x, lx)) = todo.pop() {
        if k.shape(x).is_scalar() {
            continue;
        }
        let op = k.def_op(x)?;
        if let OpKind::ConvertLayout { value } = op.kind {
            // Recomputed in `lx`, a copy is its operand recomputed in `lx`.
            copies.insert(x, value);
            todo.push((value, lx));
            continue;
        }
        match values.get(&x) {
            Some(l) if *l == lx => continue,
            // one value wanted in two layouts: not a chain to recompute
            Some(_) => return None,
            None => {}
        }
        // A copy over the budget stays a conversion, whose refusal names its reader.
        if op.results.len() != 1 || lx.geometry(k.shape(x).dims()).num_regs() > MAX_REGS_PER_VALUE {
            return None;
        }
        values.insert(x, lx.clone());
        if values.len() > MAX_CHAIN {
            return None;
        }
        match (op.kind.family(), &op.kind) {
            // Constants and ranges recompute from nothing (the other sources are scalars,
            // skipped above); a splat from its scalar.
            (OpFamily::Source, _) | (OpFamily::Shape, OpKind::Splat { .. }) => {}
            (OpFamily::Shape, OpKind::ExpandDims { value, axis }) if into_mma => {
                let mut embed = lx.embed.clone();
                embed.remove(*axis);
                todo.push((*value, Layout::new(lx.enc.clone(), embed)));
            }
            // Pointer arithmetic is left out, with the memory accesses it feeds; an impure
            // asm runs where it was written, once.
            (OpFamily::Elementwise, OpKind::AddPtr { .. }) if !into_mma => return None,
            (OpFamily::Elementwise, OpKind::InlineAsm { is_pure: false, .. }) => return None,
            // Element-wise ops compute in any layout, from their operands recomputed in it.
            (OpFamily::Elementwise, _) => todo.extend(op.kind.operands().into_iter().map(|o| (o, lx.clone()))),
            // Memory accesses, reductions and scans, layout ops, shape changes and the
            // results of control flow are not recomputed (memory, cost or a different
            // shape).
            (OpFamily::Shape | OpFamily::Memory | OpFamily::Reduction | OpFamily::Dot | OpFamily::Control, _) => {
                return None;
            }
        }
    }
    Some(Chain { values, copies })
}
