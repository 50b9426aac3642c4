//! Pipelining through staging rings: the loads that feed a `dot` in a loop with
//! `num_stages = S >= 2` become copies into rings of `S` slots, issued `S - 1` iterations
//! ahead (Triton's pipeliner: `async_copy_global_to_local` into a multi-buffered shared
//! allocation, `async_wait`, `local_load`).
//!
//! A load qualifies as for the register prefetch (the module doc of `pipeline`), and its
//! `other` is absent or a zero (a masked-off element of a copy is 0), and the next value of
//! every carried value its address reads is computed by pure ops too (the address is
//! advanced `S - 1` iterations). All the qualifying loads of a loop go into rings at once,
//! ring `r + j` for the `j`-th, and the loop carries one more value, the slot it reads:
//!
//! ```text
//! async_copy p(lower + s step) into slot s, masked by lower + s step < upper   (s < S - 1)
//! for iv, slot = 0, ...:
//!     x_j = ring_read ring r + j, slot            (waits for this slot's copies)
//!     async_copy p(iv + (S - 1) step) into slot (slot + S - 1) % S, masked by ... < upper
//!     ... the loop's ops, reading x_j for load j ...
//!     yield ..., (slot + 1) % S
//! ```
//!
//! The slot a copy writes was read one iteration earlier; the back end's wait at the
//! first `ring_read` of an iteration is also the barrier after which no warp still reads
//! it (`backend/ptx/lower/ring.rs`). With `TraceOptions::deeper_rings` (sm_90a), the rings
//! of a loop whose `dot` can stay in flight (both operands ring reads, the accumulator
//! carried) have `S + 1` slots where they fit: the slot a copy writes was then read two
//! iterations earlier, by a group every warpgroup has waited for before this iteration's
//! barrier, so the refill needs no barrier of its own. The interpreter runs the copies at
//! once, so the kernel reads the same elements and computes the same result.

use std::collections::{BTreeSet, HashMap};

use super::{
    BlockRef, block, blocks, carried_read, clone_ops, less_than, load_inputs, push_op, qualifies, slice, writes_memory,
};
use crate::ir::{
    BinaryOp, Block, Constant, DType, Kernel, Op, OpId, OpKind, Shape, SourceLoc, TensorType, Value, ValueData,
    ValueDef,
};

/// The first loop with loads that go into rings: its parent block, the loop, the loads.
pub(super) fn find(k: &Kernel) -> Option<(BlockRef, OpId, Vec<OpId>)> {
    for parent in blocks(k) {
        for &for_id in &block(k, parent).ops {
            let OpKind::For { body, stages, .. } = &k.op(for_id).kind else { continue };
            if *stages < 2 || writes_memory(k, body) || has_ring(body, k) {
                continue;
            }
            let loads: Vec<OpId> =
                body.ops.iter().copied().filter(|&id| qualifies(k, body, id) && zero_other(k, id)).collect();
            if !loads.is_empty() && carried_closure(k, body, &loads).is_some() {
                return Some((parent, for_id, loads));
            }
        }
    }
    None
}

fn has_ring(body: &Block, k: &Kernel) -> bool {
    body.ops.iter().any(|&id| matches!(k.op(id).kind, OpKind::AsyncCopy { .. } | OpKind::RingRead { .. }))
}

/// Whether the load's `other` is absent or zero in every bit (what a copy's masked-off
/// elements are).
fn zero_other(k: &Kernel, load: OpId) -> bool {
    let OpKind::Load { other, .. } = k.op(load).kind else { return false };
    other.is_none_or(|o| is_zero(k, o))
}

fn is_zero(k: &Kernel, v: Value) -> bool {
    match k.def_op(v).map(|op| &op.kind) {
        Some(OpKind::Constant { value }) => match value {
            Constant::Bool(b) => !b,
            Constant::Int(i) => *i == 0,
            Constant::F32(x) => x.to_bits() == 0,
            Constant::F64(x) => x.to_bits() == 0,
        },
        Some(OpKind::Splat { value } | OpKind::Broadcast { value } | OpKind::Cast { value }) => is_zero(k, *value),
        _ => false,
    }
}

/// The carried values (indices) the loads' addresses read, and those their next values
/// read, transitively; `None` when one of those next values is not computed by pure ops.
fn carried_closure(k: &Kernel, body: &Block, loads: &[OpId]) -> Option<Vec<usize>> {
    let inputs: Vec<Value> = loads.iter().flat_map(|&id| load_inputs(&k.op(id).kind).unwrap_or_default()).collect();
    let ops = slice(k, body, &inputs)?;
    let Some(OpKind::Yield { values: yields }) = body.ops.last().map(|&y| &k.op(y).kind) else { return None };
    let mut set: BTreeSet<usize> = carried_read(k, body, &ops, &inputs).into_iter().collect();
    loop {
        let mut added = false;
        for c in set.clone() {
            let y = *yields.get(c)?;
            let s = slice(k, body, &[y])?;
            for c2 in carried_read(k, body, &s, &[y]) {
                added |= set.insert(c2);
            }
        }
        if !added {
            return Some(set.into_iter().collect());
        }
    }
}

/// Appends an op without results.
fn push_effect(k: &mut Kernel, kind: OpKind, loc: SourceLoc) -> OpId {
    let id = OpId(k.ops.len() as u32);
    k.ops.push(Op { kind, results: vec![], loc });
    id
}

fn int(k: &mut Kernel, v: i64, loc: SourceLoc, ops: &mut Vec<OpId>) -> Value {
    let (id, r) =
        push_op(k, OpKind::Constant { value: Constant::Int(v) }, TensorType::new(DType::I32, Shape::scalar()), loc);
    ops.push(id);
    r
}

fn binary(k: &mut Kernel, op: BinaryOp, lhs: Value, rhs: Value, loc: SourceLoc, ops: &mut Vec<OpId>) -> Value {
    let ty = k.ty(lhs).clone();
    let (id, r) = push_op(k, OpKind::Binary { op, lhs, rhs }, ty, loc);
    ops.push(id);
    r
}

/// What a loop body's values are in one iteration: the induction variable and the carried
/// values the addresses read.
struct Iteration {
    map: HashMap<Value, Value>,
}

/// The loop's parts the rewrite reads.
struct Parts<'a> {
    body: &'a Block,
    yields: &'a [Value],
    carried: &'a [usize],
    step: Value,
    upper: Value,
    loc: SourceLoc,
}

impl Parts<'_> {
    /// The iteration after `it`: `iv + step`, and each carried value's next value computed
    /// from `it`'s (clones of the ops the `yield` reads).
    fn advance(&self, k: &mut Kernel, it: &Iteration, ops: &mut Vec<OpId>) -> Iteration {
        let iv = self.body.args[0];
        let mut src: HashMap<Value, Value> = HashMap::new();
        src.insert(iv, it.map[&iv]);
        for &c in self.carried {
            let a = self.body.args[c + 1];
            src.insert(a, it.map[&a]);
        }
        let ys: Vec<Value> = self.carried.iter().map(|&c| self.yields[c]).collect();
        let slice_ops = slice(k, self.body, &ys).expect("checked by carried_closure");
        ops.extend(clone_ops(k, &slice_ops, &mut src));
        let iv_next = binary(k, BinaryOp::Add, it.map[&iv], self.step, self.loc, ops);
        let mut map = HashMap::new();
        map.insert(iv, iv_next);
        for (&c, y) in self.carried.iter().zip(ys) {
            map.insert(self.body.args[c + 1], src.get(&y).copied().unwrap_or(y));
        }
        Iteration { map }
    }

    /// The copies of `loads` for iteration `it` into `slot` of rings `first..`, masked by
    /// the load's mask and `it`'s `iv < upper`.
    fn copies(
        &self,
        k: &mut Kernel,
        loads: &[OpId],
        it: &Iteration,
        (first, slots, slot): (u32, u32, Value),
        ops: &mut Vec<OpId>,
    ) {
        let iv = self.body.args[0];
        let (cmp, more) = less_than(k, it.map[&iv], self.upper, self.loc);
        ops.push(cmp);
        for (j, &load) in loads.iter().enumerate() {
            let op = k.op(load).clone();
            let OpKind::Load { ptr, mask, ref desc, .. } = op.kind else { unreachable!("checked by qualifies") };
            let inputs = load_inputs(&op.kind).expect("checked by qualifies");
            let input_ops = slice(k, self.body, &inputs).expect("checked by qualifies");
            let mut map = it.map.clone();
            ops.extend(clone_ops(k, &input_ops, &mut map));
            let mask_ty = TensorType::new(DType::BOOL, k.ty(ptr).shape.clone());
            let (splat, cond) = push_op(k, OpKind::Splat { value: more }, mask_ty.clone(), op.loc);
            ops.push(splat);
            let mask = match mask.map(|m| map.get(&m).copied().unwrap_or(m)) {
                Some(m) => {
                    let (and, r) = push_op(k, OpKind::Binary { op: BinaryOp::And, lhs: m, rhs: cond }, mask_ty, op.loc);
                    ops.push(and);
                    r
                }
                None => cond,
            };
            let ptr = map.get(&ptr).copied().unwrap_or(ptr);
            // A descriptor's box keeps its parts, and the copy says when it exists at all.
            let desc: Vec<Value> = desc.iter().map(|v| map.get(v).copied().unwrap_or(*v)).collect();
            let when = (!desc.is_empty()).then_some(more);
            let kind = OpKind::AsyncCopy {
                ptr,
                mask: Some(mask),
                other: None,
                ring: first + j as u32,
                slots,
                slot,
                desc,
                when,
            };
            ops.push(push_effect(k, kind, op.loc));
        }
    }
}

/// The shared memory a CTA may have on sm_90 (227 KiB), which rings one slot deeper must
/// fit.
const SM90_SHARED_BYTES: usize = 227 * 1024;

/// Whether `body` holds, at its top level, a `dot` that reads two of `loads` and whose
/// accumulator goes around the loop through it alone (`Kernel::accumulates_carried`): the
/// `dot` sm_90a's `wgmma` keeps in flight across iterations (`backend/ptx/lower/wgmma.rs`).
fn in_flight_dot(k: &Kernel, body: &Block, loads: &[OpId]) -> bool {
    let loaded: Vec<Value> = loads.iter().map(|&id| k.op(id).results[0]).collect();
    body.ops.iter().any(|&id| {
        let OpKind::Dot { a, b, .. } = k.op(id).kind else { return false };
        loaded.contains(&a) && loaded.contains(&b) && a != b && k.accumulates_carried(body, id)
    })
}

/// Whether the rings of `loads` with `stages + 1` slots fit sm_90's shared memory.
fn fits_deeper(k: &Kernel, loads: &[OpId], stages: u32) -> bool {
    let slot_bytes: usize = loads
        .iter()
        .map(|&id| {
            let ty = k.ty(k.op(id).results[0]);
            let elem = ty.dtype.scalar().map_or(8, |s| s.size_bytes() as usize);
            ty.shape.dims().iter().product::<usize>() * elem
        })
        .sum();
    slot_bytes * (stages as usize + 1) <= SM90_SHARED_BYTES
}

/// The next free ring number of the kernel.
fn next_ring(k: &Kernel) -> u32 {
    k.ops
        .iter()
        .filter_map(|op| if let OpKind::AsyncCopy { ring, .. } = op.kind { Some(ring + 1) } else { None })
        .max()
        .unwrap_or(0)
}

pub(super) fn rewrite(k: &mut Kernel, parent: BlockRef, for_id: OpId, loads: &[OpId], deeper: bool) {
    let OpKind::For { lower, upper, step, init, body, stages, .. } = k.op(for_id).kind.clone() else {
        unreachable!("a loop")
    };
    let slots = stages + u32::from(deeper && in_flight_dot(k, &body, loads) && fits_deeper(k, loads, stages));
    let loc = k.op(for_id).loc;
    let carried = carried_closure(k, &body, loads).expect("checked by find");
    let yield_id = *body.ops.last().expect("a body ends with its yield");
    let OpKind::Yield { values: yields } = k.op(yield_id).kind.clone() else { unreachable!("checked") };
    let parts = Parts { body: &body, yields: &yields, carried: &carried, step, upper, loc };
    let first = next_ring(k);
    let ahead = stages - 1;
    let iv = body.args[0];

    // The prologue: the copies of the first `S - 1` iterations into slots 0, 1, ...
    let mut prologue = Vec::new();
    let mut it = Iteration { map: HashMap::new() };
    it.map.insert(iv, lower);
    for &c in &carried {
        it.map.insert(body.args[c + 1], init[c]);
    }
    let mut slot0 = None;
    for s in 0..ahead {
        if s > 0 {
            it = parts.advance(k, &it, &mut prologue);
        }
        let slot = int(k, i64::from(s), loc, &mut prologue);
        slot0.get_or_insert(slot);
        parts.copies(k, loads, &it, (first, slots, slot), &mut prologue);
    }
    let slot0 = slot0.expect("at least one stage ahead");

    // The body: read this iteration's slots, copy the tiles of `S - 1` iterations ahead
    // into the slot read last iteration, advance the slot.
    let i32_ty = TensorType::new(DType::I32, Shape::scalar());
    k.values.push(ValueData { ty: i32_ty.clone(), def: ValueDef::BlockArg });
    let slot_arg = Value(k.values.len() as u32 - 1);
    let mut head = Vec::new();
    let pending = (ahead - 1) * loads.len() as u32;
    let mut reads = HashMap::new();
    for (j, &load) in loads.iter().enumerate() {
        let ty = k.ty(k.op(load).results[0]).clone();
        let kind = OpKind::RingRead { ring: first + j as u32, slot: slot_arg, pending };
        let (id, r) = push_op(k, kind, ty, k.op(load).loc);
        head.push(id);
        reads.insert(k.op(load).results[0], r);
    }
    let mut it = Iteration { map: HashMap::new() };
    it.map.insert(iv, iv);
    for &c in &carried {
        it.map.insert(body.args[c + 1], body.args[c + 1]);
    }
    for _ in 0..ahead {
        it = parts.advance(k, &it, &mut head);
    }
    let slots_v = int(k, i64::from(slots), loc, &mut head);
    let ahead_v = int(k, i64::from(ahead), loc, &mut head);
    let w = binary(k, BinaryOp::Add, slot_arg, ahead_v, loc, &mut head);
    let write_slot = binary(k, BinaryOp::Rem, w, slots_v, loc, &mut head);
    parts.copies(k, loads, &it, (first, slots, write_slot), &mut head);
    let one = int(k, 1, loc, &mut head);
    let n = binary(k, BinaryOp::Add, slot_arg, one, loc, &mut head);
    let next_slot = binary(k, BinaryOp::Rem, n, slots_v, loc, &mut head);

    let first_reader = body
        .ops
        .iter()
        .position(|&id| k.op(id).kind.operands().iter().any(|v| reads.contains_key(v)))
        .expect("checked by qualifies: a dot reads each load");
    let mut ops: Vec<OpId> = Vec::with_capacity(body.ops.len() + head.len());
    for (i, &id) in body.ops.iter().enumerate() {
        if i == first_reader {
            ops.extend(&head);
        }
        if !loads.contains(&id) {
            ops.push(id);
        }
    }
    for &id in &ops {
        let kind = k.ops[id.index()].kind.map_operands(|v| reads.get(&v).copied().unwrap_or(v));
        k.ops[id.index()].kind = kind;
    }
    if let OpKind::Yield { values } = &mut k.ops[yield_id.index()].kind {
        values.push(next_slot);
    }
    let n_results = k.op(for_id).results.len();
    k.values.push(ValueData { ty: i32_ty, def: ValueDef::Result { op: for_id, index: n_results } });
    let out = Value(k.values.len() as u32 - 1);
    {
        let op = &mut k.ops[for_id.index()];
        op.results.push(out);
        if let OpKind::For { init, body, .. } = &mut op.kind {
            init.push(slot0);
            body.args.push(slot_arg);
            body.ops = ops;
        }
    }
    let parent_block = super::block_mut(k, parent);
    let at = parent_block.ops.iter().position(|&id| id == for_id).expect("the loop is in its parent");
    parent_block.ops.splice(at..at, prologue);
}
