//! Which layout every value gets, and which operands an op must read converted.
//!
//! Element-wise ops (and loads, stores, pointer adds, loop-carried values) tie their block
//! operands and results into one class that shares one embedding: they work register by
//! register. Full-rank values have the identity embedding, or the permutation of it that
//! fits the kernel's layout best when the identity does not (a block shaped like the
//! anchor transposed). `expand_dims`, reductions and `permute` *relate* the classes of
//! their operand and result (the operand of `expand_dims(x, a)` is the result's embedding
//! without dim `a`; a reduction's result is its operand's without the reduced dim; result
//! dim `i` of a `permute` sits where operand dim `dims[i]` does, so no element moves);
//! embeddings propagate along relations in program order until every
//! class has one (a class nothing constrains takes the trailing parent dims, a vector the
//! parent dim with the most threads), reductions before permutations before `expand_dims`.
//!
//! A relation whose two sides ended up disagreeing (one `arange` used both as
//! `offs[:, None]` and as `offs[None, :]`; a row sum expanded along the other dim) is not
//! an error: that op reads its operand *converted* to the embedding the relation needs
//! (Triton's `convert_layout`, through shared memory). `reshape`, `join` and `split`
//! relate nothing: they always move their elements through shared memory from the
//! operand's layout to the result's, whatever those are.

use std::collections::{HashMap, HashSet};
use std::sync::Arc;

use super::{Blocked, Layout};
use crate::backend::ptx::lower::fits_one_exchange;
use crate::ir::{Kernel, OpFamily, OpId, OpKind, Value};

/// Every value's layout and the conversions the lowering inserts.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Assignment {
    /// Per value (by index): its layout; `None` for scalars.
    pub layouts: Vec<Option<Layout>>,
    /// `(op, operand)` -> the layout `op` reads `operand` in, where that is not the
    /// operand's own.
    pub conversions: HashMap<(OpId, Value), Layout>,
}

/// Union-find over `0..n` (value indices here; the `dot` chains of `mma.rs` too).
pub(super) struct Uf {
    parent: Vec<usize>,
}

impl Uf {
    pub(super) fn new(n: usize) -> Uf {
        Uf { parent: (0..n).collect() }
    }

    pub(super) fn find(&mut self, x: usize) -> usize {
        let mut r = x;
        while self.parent[r] != r {
            r = self.parent[r];
        }
        let mut c = x;
        while self.parent[c] != r {
            let n = self.parent[c];
            self.parent[c] = r;
            c = n;
        }
        r
    }
    pub(super) fn union(&mut self, a: usize, b: usize) {
        let (a, b) = (self.find(a), self.find(b));
        if a != b {
            self.parent[a] = b;
        }
    }
}

/// How an op relates the embeddings of its operand and result.
#[derive(Clone, Debug)]
enum Kind {
    /// `expand_dims(axis)`: the result has one dim more.
    Expand(usize),
    /// A reduction along `axis`: the result has one dim less.
    Reduce(usize),
    /// `permute(dims)`: result dim `i` is operand dim `dims[i]`, so result dim `i` sits
    /// where operand dim `dims[i]` does and no element moves.
    Permute(Vec<usize>),
    /// `broadcast` between a `dot`'s accumulator class and another: the same embedding
    /// (elsewhere a broadcast ties its operand and result into one class).
    Broadcast,
    /// A `store` of a value in a `dot`'s accumulator class through pointers of another
    /// class: the value is converted to the pointers' layout (elsewhere a store ties its
    /// value and pointers into one class).
    Store,
}

/// An op that relates the embeddings of its operand and result.
#[derive(Clone, Debug)]
struct Relation {
    op: OpId,
    operand: Value,
    result: Value,
    kind: Kind,
}

/// `e` with a parent dim that `e` does not use inserted at `axis`: one that keeps `e`
/// increasing if there is one, else the smallest free one. `None` when no dim is free.
fn insert_free(e: &[usize], axis: usize, rank: usize) -> Option<Vec<usize>> {
    let free: Vec<usize> = (0..rank).filter(|d| !e.contains(d)).collect();
    let with = |d: usize| {
        let mut x = e.to_vec();
        x.insert(axis.min(x.len()), d);
        x
    };
    let increasing = free.iter().map(|&d| with(d)).find(|x| x.windows(2).all(|w| w[0] < w[1]));
    increasing.or_else(|| free.first().map(|&d| with(d)))
}

fn without(e: &[usize], axis: usize) -> Vec<usize> {
    let mut x = e.to_vec();
    if axis < x.len() {
        x.remove(axis);
    }
    x
}

impl Relation {
    /// The operand's embedding this op needs given the result's.
    fn operand_for(&self, result: &[usize], rank: usize) -> Option<Vec<usize>> {
        match &self.kind {
            Kind::Expand(axis) => Some(without(result, *axis)),
            Kind::Reduce(axis) => insert_free(result, *axis, rank),
            Kind::Broadcast | Kind::Store => Some(result.to_vec()),
            Kind::Permute(dims) => {
                let mut e = vec![0; dims.len()];
                for (i, &d) in dims.iter().enumerate() {
                    *e.get_mut(d)? = *result.get(i)?;
                }
                Some(e)
            }
        }
    }

    /// The result's embedding this op gives from the operand's.
    fn result_for(&self, operand: &[usize], rank: usize) -> Option<Vec<usize>> {
        match &self.kind {
            Kind::Expand(axis) => insert_free(operand, *axis, rank),
            Kind::Reduce(axis) => Some(without(operand, *axis)),
            Kind::Broadcast | Kind::Store => Some(operand.to_vec()),
            Kind::Permute(dims) => dims.iter().map(|&d| operand.get(d).copied()).collect(),
        }
    }

    /// Reductions, then permutations, then `expand_dims` (see `assign`).
    fn priority(&self) -> u8 {
        match self.kind {
            Kind::Reduce(_) => 0,
            Kind::Permute(_) => 1,
            Kind::Expand(_) => 2,
            Kind::Broadcast | Kind::Store => 3,
        }
    }
}

/// Every injective map of `r` dims into `0..n`, in lexicographic order (`n` is a
/// kernel's rank: small): the candidate embeddings of a rank-`r` value.
fn embeddings(r: usize, n: usize) -> Vec<Vec<usize>> {
    if r == 0 {
        return vec![Vec::new()];
    }
    let mut out = Vec::new();
    for rest in embeddings(r - 1, n) {
        for d in (0..n).filter(|d| !rest.contains(d)) {
            let mut e = vec![d];
            e.extend(&rest);
            out.push(e);
        }
    }
    out.sort();
    out
}

/// The embedding that holds a block of `shape` in the fewest registers per thread, unless
/// `preferred` needs at most `margin` times as many (past rank 5 the search is not worth
/// its time: `preferred`).
fn fewest_registers(enc: &Blocked, shape: &[usize], preferred: Vec<usize>, margin: usize) -> Vec<usize> {
    if enc.rank() > 5 {
        return preferred;
    }
    let enc = Arc::new(enc.clone());
    let regs = |e: &Vec<usize>| Layout::new(enc.clone(), e.clone()).geometry(shape).num_regs();
    let best = embeddings(shape.len(), enc.rank()).into_iter().min_by_key(regs).unwrap_or_else(|| preferred.clone());
    if regs(&best) * margin < regs(&preferred) { best } else { preferred }
}

/// The embedding of a full-rank class whose largest member has `shape`: the identity,
/// unless a permutation of the parent dims holds the block in fewer registers per thread
/// (a block that is the anchor transposed: `[64, 2]` in a kernel whose layout was made
/// for `[2, 64]` would otherwise put 64 elements along a dim with one thread). The
/// identity keeps the contiguous dim fastest (coalesced accesses, and a `trans` then goes
/// through shared memory as Triton's does), so it stays unless it needs more than twice
/// the registers; the anchor and its rows and columns (`x[:, None]`: each dim the
/// anchor's or 1) always keep it, so a row stays a slice of the tile it came from.
fn full_rank(enc: &Blocked, anchor: &[usize], shape: &[usize]) -> Vec<usize> {
    let identity: Vec<usize> = (0..enc.rank()).collect();
    let slice_of_anchor = shape.len() == anchor.len() && shape.iter().zip(anchor).all(|(s, a)| s == a || *s == 1);
    if slice_of_anchor { identity } else { fewest_registers(enc, shape, identity, 2) }
}

/// The embedding of a lower-rank block of `shape` that nothing constrains: the one with
/// the fewest registers per thread, the trailing parent dims on a tie.
fn unconstrained(enc: &Blocked, shape: &[usize]) -> Vec<usize> {
    let rank = enc.rank();
    fewest_registers(enc, shape, (rank - shape.len()..rank).collect(), 1)
}

/// Assigns every block value an embedding into the kernel's blocked layout `enc` (made
/// for the block shape `anchor`), or into the accumulator layout of a `dot` that runs on
/// tensor cores (`mma`, see [`super::mma_encoding`]), and lists the operands that must be
/// converted (see the module doc).
pub fn assign(
    k: &Kernel,
    enc: &Arc<Blocked>,
    anchor: &[usize],
    mma: &dyn Fn(OpId) -> Option<Blocked>,
    from_shared: &dyn Fn(OpId) -> bool,
) -> Assignment {
    let rank = enc.rank();
    let n = k.values.len();
    let mut mma_seeds: Vec<(Value, Arc<Blocked>)> = Vec::new();
    let mut uf = Uf::new(n);
    let mut relations: Vec<Relation> = Vec::new();
    // Broadcasts and stored values are tied after the walk, except across a `dot`
    // accumulator's class.
    let mut broadcasts: Vec<(OpId, Value, Value)> = Vec::new();
    let mut stores: Vec<(OpId, Value, Value)> = Vec::new();
    let is_block = |v: Value| !k.shape(v).is_scalar();
    for id in k.walk() {
        let op = k.op(id);
        let mut tie = |vs: &[Value]| {
            let blocks: Vec<Value> = vs.iter().copied().filter(|v| is_block(*v)).collect();
            for w in blocks.windows(2) {
                uf.union(w[0].index(), w[1].index());
            }
        };
        match &op.kind {
            OpKind::Broadcast { value: v } if is_block(*v) => broadcasts.push((id, *v, op.results[0])),
            OpKind::Store { ptr, value, mask, .. } if is_block(*ptr) && is_block(*value) => {
                tie(&[Some(*ptr), *mask].into_iter().flatten().collect::<Vec<_>>());
                // A store tensor copies write (`tensor_copies.rs`) takes its value from
                // shared memory, written there from the value's own layout: no conversion.
                if !from_shared(id) {
                    stores.push((id, *value, *ptr));
                }
            }
            OpKind::For { init, body, .. } => {
                let yields = k.yielded(body);
                for (i, v) in init.iter().enumerate() {
                    let mut vs = vec![*v, body.args[i + 1], op.results[i]];
                    if let Some(ys) = &yields {
                        vs.push(ys[i]);
                    }
                    tie(&vs);
                }
            }
            // A result of an if shares its layout with what both branches yield in its
            // place; a while's carried value with its arguments, its next value and result.
            OpKind::If { then_body, else_body, .. } => {
                let (ty, ey) = (k.yielded(then_body), k.yielded(else_body));
                for (i, r) in op.results.iter().enumerate() {
                    let mut vs = vec![*r];
                    vs.extend(ty.and_then(|y| y.get(i)).copied());
                    vs.extend(ey.and_then(|y| y.get(i)).copied());
                    tie(&vs);
                }
            }
            OpKind::While { init, before, after } => {
                let yields = k.yielded(after);
                for (i, v) in init.iter().enumerate() {
                    let mut vs = vec![*v, op.results[i]];
                    vs.extend(before.args.get(i).copied());
                    vs.extend(after.args.get(i).copied());
                    vs.extend(yields.and_then(|y| y.get(i)).copied());
                    tie(&vs);
                }
            }
            // Every operand of a combine reduction has one layout, and so do its results
            // (each the operands' slice): a conversion, if one is needed, then converts every
            // operand to the same layout.
            OpKind::ReduceWith { values, axis, .. } => {
                tie(values);
                tie(&op.results);
                for (v, r) in values.iter().zip(&op.results).filter(|(_, r)| is_block(**r)) {
                    relations.push(Relation { op: id, operand: *v, result: *r, kind: Kind::Reduce(*axis) });
                }
            }
            // A scan keeps its operands' layout.
            OpKind::Scan { values, .. } => {
                let mut vs = values.clone();
                vs.extend(op.results.iter().copied());
                tie(&vs);
            }
            OpKind::ExpandDims { value, axis } if is_block(*value) => {
                relations.push(Relation { op: id, operand: *value, result: op.results[0], kind: Kind::Expand(*axis) })
            }
            OpKind::Reduce { value, axis, .. } if is_block(op.results[0]) => {
                relations.push(Relation { op: id, operand: *value, result: op.results[0], kind: Kind::Reduce(*axis) })
            }
            OpKind::Permute { value, dims } => relations.push(Relation {
                op: id,
                operand: *value,
                result: op.results[0],
                kind: Kind::Permute(dims.clone()),
            }),
            // Every other op by its family (the op table's). Element-wise ops and memory
            // accesses read and write their blocks in one layout (element `i` of each is
            // register `i`): tie them. Nothing to tie for the rest: sources start a layout
            // class of their own; the other shape ops move their elements through shared
            // memory (so operand and result need not be related) or relate no blocks
            // (`splat`, `expand_dims` of a scalar), as a reduction to a scalar does; a
            // yield is tied by the op that holds it.
            kind => match kind.family() {
                OpFamily::Elementwise | OpFamily::Memory => {
                    let mut vs = kind.operands();
                    vs.extend(op.results.iter().copied());
                    tie(&vs);
                }
                // A matrix product reads its `a` and `b` operands through shared memory (any
                // layout), and its accumulator element by element into its result (the
                // last operand): tie those two.
                // On tensor cores the two are in the accumulator layout.
                OpFamily::Dot => {
                    let mut vs: Vec<Value> = kind.operands().last().copied().into_iter().collect();
                    vs.extend(op.results.iter().copied());
                    tie(&vs);
                    if let Some(m) = mma(id) {
                        mma_seeds.push((op.results[0], Arc::new(m)));
                    }
                }
                OpFamily::Source | OpFamily::Shape | OpFamily::Reduction | OpFamily::Control => {}
            },
        }
    }
    // A broadcast joins its operand's class to its result's, unless exactly one of the two
    // holds a tensor-core accumulator: then the accumulator's class keeps the `mma` layout
    // and the other its own (the indices of a tile are shared by the loads of the operands
    // and the store of the result; the broadcast reads them converted, often recomputed).
    let mma_values: Vec<Value> = mma_seeds.iter().map(|(v, _)| *v).collect();
    let in_mma = |uf: &mut Uf, x: Value| {
        let c = uf.find(x.index());
        mma_values.iter().any(|m| uf.find(m.index()) == c)
    };
    for (id, v, r) in broadcasts {
        if in_mma(&mut uf, v) == in_mma(&mut uf, r) {
            uf.union(v.index(), r.index());
        } else {
            relations.push(Relation { op: id, operand: v, result: r, kind: Kind::Broadcast });
        }
    }
    // A store keeps its value in its pointers' class, unless the value is a tensor-core
    // accumulator's and the pointers are not: the pointers then take the kernel's
    // coalesced layout and the accumulator converts to it at the store (through shared
    // memory), as Triton's stores of `mma` results do, so each thread writes whole
    // vectors along rows instead of the accumulator fragment's pairs. A block too large
    // for one exchange is stored from the fragments.
    for (id, v, p) in stores {
        let fits = fits_one_exchange(k.shape(v).dims(), k.dtype(v));
        if !fits || !in_mma(&mut uf, v) || in_mma(&mut uf, p) {
            uf.union(v.index(), p.index());
        } else {
            relations.push(Relation { op: id, operand: v, result: p, kind: Kind::Store });
        }
    }
    // Reductions first: where a reduction and an `expand_dims` disagree about a class, the
    // `expand_dims` operand (one dim smaller, often an index that is recomputed for free)
    // is the one converted, not the reduction's whole operand. Stable: program order
    // within each kind.
    relations.sort_by_key(Relation::priority);
    // Full-rank classes are seeded from their largest member (a class holds one rank; a
    // broadcast ties a `[n, 1]` operand to its `[n, m]` result).
    let mut largest: HashMap<usize, Vec<usize>> = HashMap::new();
    for (i, vd) in k.values.iter().enumerate() {
        if vd.ty.shape.rank() == rank && rank > 0 {
            let dims = vd.ty.shape.dims();
            let slot = largest.entry(uf.find(i)).or_insert_with(|| dims.to_vec());
            if dims.iter().product::<usize>() > slot.iter().product::<usize>() {
                *slot = dims.to_vec();
            }
        }
    }
    // A class holds its encoding and its embedding into it. A `dot` on tensor cores puts
    // its accumulator's class in the `mma` layout; every other full-rank class starts in
    // the kernel's.
    type Class = (Arc<Blocked>, Vec<usize>);
    let mut class: Vec<Option<Class>> = vec![None; n];
    for (v, m) in &mma_seeds {
        let c = uf.find(v.index());
        if class[c].is_none() {
            class[c] = Some((m.clone(), vec![0, 1]));
        }
    }
    // A block broadcast into an accumulator's class (`m_i[:, None]`, a row statistic of
    // the product expanded back) joins the `mma` layout, unless it holds pointers (an
    // index block that also addresses memory keeps the kernel's coalesced layout): its
    // `expand_dims` then reads the row reduction of the accumulator as it is, and the
    // broadcast moves nothing.
    let holds_ptrs: HashSet<usize> = (0..n).filter(|&i| k.values[i].ty.dtype.is_ptr()).map(|i| uf.find(i)).collect();
    for rel in &relations {
        if !matches!(rel.kind, Kind::Broadcast) {
            continue;
        }
        let (co, cr) = (uf.find(rel.operand.index()), uf.find(rel.result.index()));
        if class[co].is_none()
            && !holds_ptrs.contains(&co)
            && let Some((m, e)) = class[cr].clone()
            && m.is_mma()
        {
            class[co] = Some((m, e));
        }
    }
    // The classes of the pointers of copies into staging rings keep the identity (the
    // layout coalesce made for their contiguous dim: 16-byte `cp.async`s) while it fits the
    // register budget, even where a permutation would hold them in fewer registers (a
    // copy in another layout goes element by element through registers).
    let mut accessed: HashSet<usize> = HashSet::new();
    for id in k.walk() {
        if let OpKind::AsyncCopy { ptr, .. } = &k.op(id).kind {
            accessed.insert(uf.find(ptr.index()));
        }
    }
    for (c, shape) in &largest {
        if class[*c].is_none() {
            let identity: Vec<usize> = (0..rank).collect();
            let fits =
                Layout::new(enc.clone(), identity.clone()).geometry(shape).num_regs() <= super::MAX_REGS_PER_VALUE;
            let embed = if accessed.contains(c) && fits { identity } else { full_rank(enc, anchor, shape) };
            class[*c] = Some((enc.clone(), embed));
        }
    }
    loop {
        let mut changed = true;
        while changed {
            changed = false;
            for rel in &relations {
                let (co, cr) = (uf.find(rel.operand.index()), uf.find(rel.result.index()));
                let derived = match (&class[co], &class[cr]) {
                    (None, Some((e, r))) => rel.operand_for(r, e.rank()).map(|x| (co, (e.clone(), x))),
                    (Some((e, o)), None) => rel.result_for(o, e.rank()).map(|x| (cr, (e.clone(), x))),
                    // both known (checked below) or neither yet (not an embedding pair)
                    _ => None,
                };
                if let Some((c, e)) = derived {
                    class[c] = Some(e);
                    changed = true;
                }
            }
        }
        // Default the unassigned block value of the highest rank and the most elements (the
        // first such; the blocks that need the most registers choose first, `unconstrained`),
        // then propagate to the values related to it.
        let next = (0..n)
            .filter(|&i| k.values[i].ty.shape.rank() > 0 && class[uf.find(i)].is_none())
            .max_by_key(|&i| (k.values[i].ty.shape.rank(), k.values[i].ty.shape.numel(), std::cmp::Reverse(i)));
        match next {
            None => break,
            Some(i) => {
                let c = uf.find(i);
                class[c] = Some((enc.clone(), unconstrained(enc, k.values[i].ty.shape.dims())));
            }
        }
    }
    let layouts: Vec<Option<Layout>> = (0..n)
        .map(|i| {
            if k.values[i].ty.shape.is_scalar() {
                None
            } else {
                class[uf.find(i)].clone().map(|(enc, embed)| Layout::new(enc, embed))
            }
        })
        .collect();
    let mut conversions = HashMap::new();
    for rel in &relations {
        let (Some(o), Some(r)) = (&layouts[rel.operand.index()], &layouts[rel.result.index()]) else { continue };
        let agrees = o.enc == r.enc
            && match &rel.kind {
                Kind::Expand(axis) => without(&r.embed, *axis) == o.embed,
                Kind::Reduce(_) | Kind::Permute(_) | Kind::Broadcast | Kind::Store => {
                    rel.result_for(&o.embed, r.enc.rank()) == Some(r.embed.clone())
                }
            };
        if !agrees && let Some(e) = rel.operand_for(&r.embed, r.enc.rank()) {
            conversions.insert((rel.op, rel.operand), Layout::new(r.enc.clone(), e));
        }
    }
    Assignment { layouts, conversions }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn embeddings_are_listed_in_order() {
        assert_eq!(
            embeddings(3, 3),
            vec![vec![0, 1, 2], vec![0, 2, 1], vec![1, 0, 2], vec![1, 2, 0], vec![2, 0, 1], vec![2, 1, 0]]
        );
        assert_eq!(embeddings(1, 3), vec![vec![0], vec![1], vec![2]]);
        assert_eq!(embeddings(2, 3).len(), 6);
    }

    #[test]
    fn an_unconstrained_block_takes_the_dims_with_the_threads() {
        // The layout of a [2, 1, 256] anchor: all 32 lanes along the last dim.
        let enc = Blocked::row_major(&[2, 1, 256], 1, 1);
        let regs = |e: Vec<usize>, s: &[usize]| Layout::new(Arc::new(enc.clone()), e).geometry(s).num_regs();
        // [128, 4] along the trailing dims would put 128 elements on one thread.
        assert_eq!(regs(unconstrained(&enc, &[128, 4]), &[128, 4]), 16);
        assert_eq!(unconstrained(&enc, &[64]), vec![2]);
    }

    #[test]
    fn a_transposed_anchor_gets_the_permutation_that_fits_the_layout() {
        let a = [2, 64];
        let enc = Blocked::row_major(&a, 1, 1);
        assert_eq!(full_rank(&enc, &a, &[2, 64]), vec![0, 1]);
        assert_eq!(full_rank(&enc, &a, &[64, 2]), vec![1, 0]);
        // Square: the identity is as good as any, and wins.
        let a = [16, 16];
        let enc = Blocked::row_major(&a, 1, 4);
        assert_eq!(full_rank(&enc, &a, &[16, 16]), vec![0, 1]);
        assert_eq!(full_rank(&enc, &a, &[16, 1]), vec![0, 1]);
        // 512 elements on 128 threads: 4 registers each once the 64 go along the dim with
        // the lanes (the identity puts them along a dim with one thread).
        let a = [2, 4, 64];
        let enc = Blocked::row_major(&a, 1, 4);
        let regs = |e: Vec<usize>, s: &[usize]| Layout::new(Arc::new(enc.clone()), e).geometry(s).num_regs();
        assert_eq!(regs(full_rank(&enc, &a, &[4, 64, 2]), &[4, 64, 2]), 4);
        assert!(regs(vec![0, 1, 2], &[4, 64, 2]) > 4);
        // A transposed anchor with a dim of size 1 is no slice of it: searched too.
        assert_eq!(regs(full_rank(&enc, &a, &[4, 128, 1]), &[4, 128, 1]), 4);
    }

    #[test]
    fn a_free_dim_keeps_the_embedding_increasing_when_it_can() {
        assert_eq!(insert_free(&[1], 0, 2), Some(vec![0, 1]));
        assert_eq!(insert_free(&[0], 1, 2), Some(vec![0, 1]));
        // Only dim 0 is free and it must come second: a transposed embedding.
        assert_eq!(insert_free(&[1], 1, 2), Some(vec![1, 0]));
        assert_eq!(insert_free(&[2], 0, 3), Some(vec![0, 2]));
        assert_eq!(insert_free(&[0, 1], 1, 2), None);
    }
}
