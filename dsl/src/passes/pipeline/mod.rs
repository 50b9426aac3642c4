//! Software pipelining of the loads that feed a `dot` in a `for` loop: each iteration
//! loads the next iteration's operands before its own `dot`, so the global-memory latency
//! of iteration `i + 1` overlaps the matrix product of iteration `i` (Triton's pipeliner
//! with two stages; here the second stage is the registers the prefetch lands in).
//!
//! A load `L` of the body of a loop with 2 or more stages (`lang::for_range_staged`,
//! Triton's `num_stages`) is pipelined when
//! - every use of its result is the `a` or `b` operand of a `dot` in the same body;
//! - its pointer, mask and `other` are computed in the body by pure ops (no load, no
//!   `dot`, no region) from the induction variable, the carried values and values from
//!   outside the loop, and so is each carried value's next value (the `yield`ed one) that
//!   they read;
//! - nothing in the body writes memory (a store could feed a later load).
//!
//! The loop then carries `L`'s result: the prologue loads it for the first iteration
//! (masked by `lower < upper`), and the body loads it for the next one, from the next
//! induction variable and the next carried values, masked by `iv + step < upper`, right
//! before the first `dot` that reads it (the ops computing those next values move up
//! there; they read nothing the `dot` writes). A load past the last iteration is masked
//! off, so it reads nothing: the kernel reads the same elements, in another order, and
//! computes the same result.

use std::collections::{HashMap, HashSet};

use crate::ir::{
    BinaryOp, Block, CmpPred, DType, Effect, Kernel, Op, OpId, OpKind, Shape, TensorType, Value, ValueData, ValueDef,
};

mod ring;

/// Pipelines every load that qualifies (see the module doc); returns how many. Loads
/// whose tiles can go through staging rings do (`ring.rs`; `deeper_rings`: one slot more
/// for a `dot` sm_90a keeps in flight); the rest are prefetched into registers.
pub fn run(k: &mut Kernel, deeper_rings: bool) -> usize {
    let mut done = 0;
    while let Some((parent, for_id, loads)) = ring::find(k) {
        ring::rewrite(k, parent, for_id, &loads, deeper_rings);
        done += loads.len();
    }
    // One load at a time: each rewrite changes the loop it is in.
    while let Some((parent, for_id, load)) = find(k) {
        rewrite(k, parent, for_id, load);
        done += 1;
    }
    done
}

/// Where a block lives: the kernel's body, or region `index` of an op.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum BlockRef {
    Body,
    Region(OpId, usize),
}

fn block(k: &Kernel, b: BlockRef) -> &Block {
    match b {
        BlockRef::Body => &k.body,
        BlockRef::Region(op, i) => k.op(op).kind.regions()[i],
    }
}

fn block_mut(k: &mut Kernel, b: BlockRef) -> &mut Block {
    match b {
        BlockRef::Body => &mut k.body,
        BlockRef::Region(op, i) => k.ops[op.index()].kind.regions_mut().into_iter().nth(i).expect("region index"),
    }
}

/// Every block of the kernel, outermost first.
fn blocks(k: &Kernel) -> Vec<BlockRef> {
    let mut out = vec![BlockRef::Body];
    for id in k.walk() {
        for i in 0..k.op(id).kind.regions().len() {
            out.push(BlockRef::Region(id, i));
        }
    }
    out
}

/// The first load that qualifies: its loop's parent block, the loop, the load.
fn find(k: &Kernel) -> Option<(BlockRef, OpId, OpId)> {
    for parent in blocks(k) {
        for &for_id in &block(k, parent).ops {
            let OpKind::For { body, stages, .. } = &k.op(for_id).kind else { continue };
            if *stages < 2 || writes_memory(k, body) {
                continue;
            }
            for &id in &body.ops {
                if qualifies(k, body, id) {
                    return Some((parent, for_id, id));
                }
            }
        }
    }
    None
}

fn writes_memory(k: &Kernel, b: &Block) -> bool {
    b.ops.iter().any(|&id| {
        let op = k.op(id);
        matches!(op.kind.effect(), Effect::WritesMemory | Effect::ReadsWritesMemory)
            || op.kind.regions().into_iter().any(|r| writes_memory(k, r))
    })
}

/// The body's top-level op defining each value it defines.
fn definers(k: &Kernel, body: &Block) -> HashMap<Value, OpId> {
    body.ops.iter().flat_map(|&id| k.op(id).results.iter().map(move |&r| (r, id))).collect()
}

/// The ops of `body` that `roots` are computed from (their backward closure within the
/// body), in body order; `None` when one of them is not a pure op without regions, or is
/// a load or a `dot`.
fn slice(k: &Kernel, body: &Block, roots: &[Value]) -> Option<Vec<OpId>> {
    let defs = definers(k, body);
    let mut seen: HashSet<OpId> = HashSet::new();
    let mut todo: Vec<Value> = roots.to_vec();
    while let Some(v) = todo.pop() {
        let Some(&id) = defs.get(&v) else { continue };
        if !seen.insert(id) {
            continue;
        }
        let op = k.op(id);
        let pure = op.kind.effect() == Effect::Pure && op.kind.regions().is_empty();
        if !pure || matches!(op.kind, OpKind::Dot { .. }) {
            return None;
        }
        todo.extend(op.kind.operands());
    }
    Some(body.ops.iter().copied().filter(|id| seen.contains(id)).collect())
}

/// What a load reads its pointer, mask and `other` from.
fn load_inputs(kind: &OpKind) -> Option<Vec<Value>> {
    match kind {
        OpKind::Load { ptr, mask, other, staged: false, desc } => {
            Some([Some(*ptr), *mask, *other].into_iter().flatten().chain(desc.iter().copied()).collect())
        }
        _ => None,
    }
}

/// The carried values (their indices among the carried) that the ops of `ops` read.
fn carried_read(k: &Kernel, body: &Block, ops: &[OpId], roots: &[Value]) -> Vec<usize> {
    let mut read: Vec<Value> = ops.iter().flat_map(|&id| k.op(id).kind.operands()).collect();
    read.extend(roots);
    (1..body.args.len()).filter(|&i| read.contains(&body.args[i])).map(|i| i - 1).collect()
}

fn qualifies(k: &Kernel, body: &Block, id: OpId) -> bool {
    let op = k.op(id);
    let Some(inputs) = load_inputs(&op.kind) else { return false };
    let result = op.results[0];
    // Every use: a dot's `a` or `b` in this body.
    let mut uses = 0;
    for &other in &body.ops {
        let kind = &k.op(other).kind;
        let n = kind.operands().iter().filter(|&&v| v == result).count();
        if n == 0 {
            continue;
        }
        match kind {
            OpKind::Dot { a, b, acc, .. } if *acc != result && (*a == result || *b == result) => uses += n,
            // `trans(x)` read only as a `dot`'s `b` (`K^T` in attention): the back end reads
            // the transpose's fragments from `x`'s tile.
            OpKind::Permute { dims, .. } if dims[..] == [1, 0] && only_dot_b(k, body, k.op(other).results[0]) => {
                uses += n
            }
            _ => return false,
        }
    }
    if uses == 0 || nested_use(k, body, result) {
        return false;
    }
    let Some(ops) = slice(k, body, &inputs) else { return false };
    let Some(OpKind::Yield { values }) = body.ops.last().map(|&y| &k.op(y).kind) else { return false };
    carried_read(k, body, &ops, &inputs)
        .into_iter()
        .all(|c| values.get(c).is_some_and(|&y| slice(k, body, &[y]).is_some()))
}

/// Whether every use of `v` in `body` is the `b` (and not the `a` or accumulator) of a
/// `dot`, and no op nested in a region reads it.
fn only_dot_b(k: &Kernel, body: &Block, v: Value) -> bool {
    let mut uses = 0;
    for &id in &body.ops {
        let kind = &k.op(id).kind;
        let n = kind.operands().iter().filter(|&&x| x == v).count();
        match kind {
            _ if n == 0 => {}
            OpKind::Dot { a, b, acc, .. } if *b == v && *a != v && *acc != v => uses += n,
            _ => return false,
        }
    }
    uses > 0 && !nested_use(k, body, v)
}

/// Whether an op nested in one of `body`'s regions reads `v`.
fn nested_use(k: &Kernel, body: &Block, v: Value) -> bool {
    fn reads(k: &Kernel, b: &Block, v: Value) -> bool {
        b.ops.iter().any(|&id| {
            let op = k.op(id);
            op.kind.operands().contains(&v) || op.kind.regions().into_iter().any(|r| reads(k, r, v))
        })
    }
    body.ops.iter().any(|&id| k.op(id).kind.regions().into_iter().any(|r| reads(k, r, v)))
}

/// Appends a value of type `ty` defined by result `index` of `op`.
fn new_value(k: &mut Kernel, ty: TensorType, op: OpId, index: usize) -> Value {
    k.values.push(ValueData { ty, def: ValueDef::Result { op, index } });
    Value(k.values.len() as u32 - 1)
}

/// Appends an op with one result of type `ty`; returns the op and its result.
fn push_op(k: &mut Kernel, kind: OpKind, ty: TensorType, loc: crate::ir::SourceLoc) -> (OpId, Value) {
    let id = OpId(k.ops.len() as u32);
    let r = new_value(k, ty, id, 0);
    k.ops.push(Op { kind, results: vec![r], loc });
    (id, r)
}

/// Clones the ops `ops` (in order) with their operands mapped through `map`, extended
/// with each clone's results; returns the new ops.
fn clone_ops(k: &mut Kernel, ops: &[OpId], map: &mut HashMap<Value, Value>) -> Vec<OpId> {
    let mut out = Vec::with_capacity(ops.len());
    for &id in ops {
        let op = k.op(id).clone();
        let kind = op.kind.map_operands(|v| map.get(&v).copied().unwrap_or(v));
        let new_id = OpId(k.ops.len() as u32);
        let mut results = Vec::with_capacity(op.results.len());
        for (i, r) in op.results.iter().enumerate() {
            let ty = k.ty(*r).clone();
            let nr = new_value(k, ty, new_id, i);
            map.insert(*r, nr);
            results.push(nr);
        }
        k.ops.push(Op { kind, results, loc: op.loc });
        out.push(new_id);
    }
    out
}

/// The load `load` (of a body) re-issued with `map` applied to its inputs' ops, and its
/// mask and-ed with the scalar `cond`: the new ops, and the new load's result.
fn reissue(
    k: &mut Kernel,
    load: OpId,
    inputs_ops: &[OpId],
    map: &mut HashMap<Value, Value>,
    cond: Value,
) -> (Vec<OpId>, Value) {
    let mut ops = clone_ops(k, inputs_ops, map);
    let op = k.op(load).clone();
    let OpKind::Load { ptr, mask, other, ref desc, .. } = op.kind else { unreachable!("checked by qualifies") };
    let desc: Vec<Value> = desc.iter().map(|v| map.get(v).copied().unwrap_or(*v)).collect();
    let shape = k.ty(ptr).shape.clone();
    let mask_ty = TensorType::new(DType::BOOL, shape);
    let (splat, cond_block) = push_op(k, OpKind::Splat { value: cond }, mask_ty.clone(), op.loc);
    ops.push(splat);
    let m = map_of(map, mask);
    let mask = match m {
        Some(m) => {
            let (and, r) = push_op(k, OpKind::Binary { op: BinaryOp::And, lhs: m, rhs: cond_block }, mask_ty, op.loc);
            ops.push(and);
            r
        }
        None => cond_block,
    };
    let ty = k.ty(op.results[0]).clone();
    let kind = OpKind::Load {
        ptr: map.get(&ptr).copied().unwrap_or(ptr),
        mask: Some(mask),
        other: map_of(map, other),
        staged: false,
        desc,
    };
    let (id, r) = push_op(k, kind, ty, op.loc);
    ops.push(id);
    (ops, r)
}

fn map_of(map: &HashMap<Value, Value>, v: Option<Value>) -> Option<Value> {
    v.map(|v| map.get(&v).copied().unwrap_or(v))
}

/// `lhs < rhs` (scalars): a new op and its result.
fn less_than(k: &mut Kernel, lhs: Value, rhs: Value, loc: crate::ir::SourceLoc) -> (OpId, Value) {
    push_op(k, OpKind::Compare { pred: CmpPred::Lt, lhs, rhs }, TensorType::new(DType::BOOL, Shape::scalar()), loc)
}

fn rewrite(k: &mut Kernel, parent: BlockRef, for_id: OpId, load: OpId) {
    let OpKind::For { lower, upper, step, init, body, .. } = k.op(for_id).kind.clone() else { unreachable!("a loop") };
    let loc = k.op(load).loc;
    let result = k.op(load).results[0];
    let inputs = load_inputs(&k.op(load).kind).expect("checked by qualifies");
    let input_ops = slice(k, &body, &inputs).expect("checked by qualifies");
    let yield_id = *body.ops.last().expect("a body ends with its yield");
    let OpKind::Yield { values: yields } = k.op(yield_id).kind.clone() else { unreachable!("checked") };
    let carried = carried_read(k, &body, &input_ops, &inputs);
    let iv = body.args[0];

    // The prologue, before the loop: the load of the first iteration.
    let mut map: HashMap<Value, Value> = HashMap::new();
    map.insert(iv, lower);
    for &c in &carried {
        map.insert(body.args[c + 1], init[c]);
    }
    let (first_cmp, runs) = less_than(k, lower, upper, loc);
    let (mut prologue, first) = reissue(k, load, &input_ops, &mut map, runs);
    prologue.insert(0, first_cmp);

    // In the body: the next iteration's load, before the first dot that reads this one.
    let mut next_ops: Vec<OpId> = Vec::new();
    let iv_ty = k.ty(iv).clone();
    let (add, iv_next) = push_op(k, OpKind::Binary { op: BinaryOp::Add, lhs: iv, rhs: step }, iv_ty, loc);
    let (cmp, more) = less_than(k, iv_next, upper, loc);
    next_ops.extend([add, cmp]);
    let mut map: HashMap<Value, Value> = HashMap::new();
    map.insert(iv, iv_next);
    let mut moved: Vec<OpId> = Vec::new();
    for &c in &carried {
        map.insert(body.args[c + 1], yields[c]);
        moved.extend(slice(k, &body, &[yields[c]]).expect("checked by qualifies"));
    }
    let (reissued, next) = reissue(k, load, &input_ops, &mut map, more);
    next_ops.extend(reissued);

    // The loop carries the loaded block.
    let arg_ty = k.ty(result).clone();
    k.values.push(ValueData { ty: arg_ty.clone(), def: ValueDef::BlockArg });
    let arg = Value(k.values.len() as u32 - 1);
    let n_results = k.op(for_id).results.len();
    let out = new_value(k, arg_ty, for_id, n_results);

    // The body: uses of the load read the carried block; the load goes; the next
    // values' ops move up with the prefetch, before the first reader.
    let first_reader = body
        .ops
        .iter()
        .position(|&id| k.op(id).kind.operands().contains(&result))
        .expect("checked by qualifies: a dot reads it");
    let moved_set: HashSet<OpId> = moved.iter().copied().collect();
    // Moved ops already before the reader stay where they are; the later ones come up.
    let late = |i: usize, id: OpId| i > first_reader && moved_set.contains(&id);
    let mut ops: Vec<OpId> = Vec::with_capacity(body.ops.len() + next_ops.len());
    for (i, &id) in body.ops.iter().enumerate() {
        if i == first_reader {
            ops.extend(body.ops.iter().enumerate().filter(|&(j, &m)| late(j, m)).map(|(_, &m)| m));
            ops.extend(&next_ops);
        }
        if id != load && !late(i, id) {
            ops.push(id);
        }
    }
    for &id in &ops {
        let kind = k.ops[id.index()].kind.map_operands(|v| if v == result { arg } else { v });
        k.ops[id.index()].kind = kind;
    }
    if let OpKind::Yield { values } = &mut k.ops[yield_id.index()].kind {
        values.push(next);
    }
    {
        let op = &mut k.ops[for_id.index()];
        op.results.push(out);
        if let OpKind::For { init, body, .. } = &mut op.kind {
            init.push(first);
            body.args.push(arg);
            body.ops = ops;
        }
    }
    let parent_block = block_mut(k, parent);
    let at = parent_block.ops.iter().position(|&id| id == for_id).expect("the loop is in its parent");
    parent_block.ops.splice(at..at, prologue);
}
