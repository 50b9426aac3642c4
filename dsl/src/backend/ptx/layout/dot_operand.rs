//! The operands of tensor-core `dot`s in their own layouts, as Triton's TTGIR writes them:
//! each `a` and `b` of a `dot` that runs on tensor cores is read through a
//! `convert_layout` to `#dot_op<{opIdx, parent = the accumulator's #mma, kWidth}>`, the
//! registers `mma.sync` (or `wgmma`'s `a`) takes, in the PTX ISA's fragment tables.
//!
//! The pass runs last in the stage (after `remat.rs`), over every tensor-core `dot`
//! (`dot_input`): one conversion an operand, right before its `dot`. Where the fragments
//! come from is the operand's own layout, which the conversion's operand keeps: a ring
//! slot read in place (`#shared`, `ldmatrix` or `wgmma`'s descriptor), the accumulator of
//! a chained product (`#mma`: attention's `P`, its registers repacked), or a blocked value
//! (staged through shared memory, then read as fragments). The conversion is lowered
//! with its `dot` (`lower/mma.rs`, `lower/wgmma.rs`): the fragments are read k-step by
//! k-step between the products, so the registers they take are a k-step's, not the whole
//! operand's. The conversion of a loop-invariant `a` goes before the loop instead, where
//! the budget allows ([`hoisted`]): it stages `a` and reads all its fragments there.
//!
//! The analyses that ask how a value is read and the lowering see through these
//! conversions to the value they convert (`operand_reads.rs`).

use std::collections::{HashMap, HashSet};
use std::sync::Arc;

use super::mma::dot_input;
use super::stage::splice;
use super::{Blocked, DotOperand, Layout, MmaInput};
use crate::ir::{Kernel, Op, OpId, OpKind, Value, ValueData, ValueDef};

/// The most registers a thread keeps of the `a` fragments read before a loop
/// ([`hoisted`]): attention's `Q` (32 at the tutorial's tiles) fits, where the backward's
/// `k` and `v` of head dim 128 (64 together, beside two accumulators of 64) would push
/// the loop into spills.
const MAX_HOISTED_REGS: usize = 32;

/// `k_width` of an operand of `input`: elements along K in one 32-bit register.
fn k_width(input: MmaInput) -> u8 {
    match input {
        MmaInput::F16 | MmaInput::BF16 => 2,
        MmaInput::Tf32 => 1,
        MmaInput::S8 => 4,
    }
}

/// Writes a conversion to its `#dot_op` layout for each operand of every tensor-core
/// `dot` of `k` (see the module doc), before the `dot`, or before its loop for a hoisted
/// `a` ([`hoisted`]). `layouts` and `reader` (each conversion's `dot`) grow with the new
/// values; returns the hoisted conversions' results.
pub(super) fn insert(
    k: &mut Kernel,
    layouts: &mut Vec<Option<Layout>>,
    reader: &mut HashMap<Value, OpId>,
) -> HashSet<Value> {
    let loops = hoisted(k, layouts);
    let mut before: HashMap<OpId, Vec<OpId>> = HashMap::new();
    let mut lifted = HashSet::new();
    for id in k.walk() {
        let op = k.op(id).clone();
        let OpKind::Dot { a, b, acc, input_precision } = op.kind else { continue };
        let Some(input) = dot_input(k, layouts, &op) else { continue };
        let Some(parent) = layouts[op.results[0].index()].as_ref().map(|l| Arc::clone(&l.enc)) else { continue };
        let mut copies = [a, b];
        for (index, v) in [a, b].into_iter().enumerate() {
            let c = Value(k.values.len() as u32);
            let cid = OpId(k.ops.len() as u32);
            let ty = k.ty(v).clone();
            k.values.push(ValueData { ty, def: ValueDef::Result { op: cid, index: 0 } });
            k.ops.push(Op { kind: OpKind::ConvertLayout { value: v }, results: vec![c], loc: op.loc });
            let operand = DotOperand { index: index as u8, k_width: k_width(input) };
            layouts.push(Some(Layout { enc: Arc::clone(&parent), embed: vec![0, 1], operand: Some(operand) }));
            reader.insert(c, id);
            let at = match loops.get(&id) {
                Some(&l) if index == 0 => {
                    lifted.insert(c);
                    l
                }
                _ => id,
            };
            before.entry(at).or_default().push(cid);
            copies[index] = c;
        }
        let [a, b] = copies;
        k.ops[id.index()].kind = OpKind::Dot { a, b, acc, input_precision };
    }
    let lists = before.into_iter().map(|(id, mut list)| {
        list.push(id);
        (id, list)
    });
    splice(k, &lists.collect());
    lifted
}

/// Whether `a` is in the accumulator layout `enc` of the `dot` reading it with every warp
/// along M (attention's `P`): a thread then holds, for each 16-row tile and k-step, the
/// elements of its `a` fragment (the `m16n8k16` accumulator's pairs of two 8-column tiles
/// are the `a` fragment's four registers), so the fragments are its registers repacked.
pub(crate) fn a_in_registers(layout: Option<&Layout>, enc: &Blocked) -> bool {
    layout.is_some_and(|l| l.operand.is_none() && *l.enc == *enc && l.embed == [0, 1] && enc.warps_per_cta[1] == 1)
}

/// The `dot`s whose `a` conversion goes before their loop, with that loop: a tensor-core
/// `dot` of 16-bit inputs directly in the body of a loop that is not unrolled, whose `a`
/// comes from outside the loop (attention's `Q`) and is not the accumulator's registers.
/// Its fragments are then read once, before the loop, and stay live through it (Triton
/// converts such an operand before the loop too), so at most [`MAX_HOISTED_REGS`]
/// registers a thread are hoisted per loop, in program order; a `dot` past that reads its
/// `a` in the loop.
fn hoisted(k: &Kernel, layouts: &[Option<Layout>]) -> HashMap<OpId, OpId> {
    let mut out = HashMap::new();
    for l in k.walk() {
        let OpKind::For { body, unroll, .. } = &k.op(l).kind else { continue };
        if *unroll > 1 {
            continue;
        }
        let mut inside: HashSet<Value> = body.args.iter().copied().collect();
        let mut ids: Vec<OpId> = body.ops.clone();
        while let Some(x) = ids.pop() {
            inside.extend(k.op(x).results.iter().copied());
            for r in k.op(x).kind.regions() {
                inside.extend(r.args.iter().copied());
                ids.extend(r.ops.iter().copied());
            }
        }
        let mut regs = 0;
        for &id in &body.ops {
            let op = k.op(id);
            let OpKind::Dot { a, .. } = &op.kind else { continue };
            let Some(enc) = layouts[op.results[0].index()].as_ref().map(|l| Arc::clone(&l.enc)) else { continue };
            if inside.contains(a)
                || !matches!(dot_input(k, layouts, op), Some(MmaInput::F16 | MmaInput::BF16))
                || a_in_registers(layouts[a.index()].as_ref(), &enc)
            {
                continue;
            }
            let [m, kk] = k.shape(*a).dims()[..] else { continue };
            let n = (kk / 16) * (m / (16 * enc.warps_per_cta[0])) * 4;
            if regs + n <= MAX_HOISTED_REGS {
                regs += n;
                out.insert(id, l);
            }
        }
    }
    out
}
