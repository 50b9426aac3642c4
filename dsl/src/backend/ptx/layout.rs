//! Layouts: which thread owns which element of a block tensor.
//!
//! # Blocked layout
//! A [`Blocked`] layout of rank `R` (Triton's `#blocked`) tiles a shape with
//! `sizePerThread x threadsPerWarp x warpsPerCTA` along every dim; `order` lists the dims
//! from fastest to slowest (row-major blocks: `[R-1, ..., 0]`). Lane and warp indices are
//! split over the dims in that order: the lowest lane bits go to `order[0]`, so
//! consecutive lanes own consecutive chunks of `sizePerThread` elements along the
//! contiguous axis (coalesced accesses; vector loads of `sizePerThread` elements).
//!
//! For a block of shape `P` (rank `R`), per dim `d`:
//! - the thread's chunk `s_d = min(spt_d, P_d)`, its position
//!   `t_d = warp_d * tpw_d + lane_d` in `0..T_d` with `T_d = tpw_d * wpc_d`;
//! - the CTA tile `tile_d = s_d * T_d` and `reps_d = max(1, P_d / tile_d)`;
//! - the thread holds `regs_d = s_d * reps_d` elements along `d`: register `k_d`
//!   (`k_d = rep * s_d + j`) holds coordinate `(rep * tile_d + t_d * s_d + j) mod P_d`.
//!
//! When `P_d < tile_d` the `mod` wraps: threads `t_d` and `t_d + P_d / s_d` hold the same
//! elements (*replication*, a block smaller than the CTA). The *owner* of an element is
//! its first copy (`t_d < P_d / s_d` in every replicated dim); stores are guarded so only
//! owners write.
//!
//! A thread's element list is the product of its registers over all dims, `order[0]`
//! varying fastest: its `s` consecutive elements along the contiguous dim are
//! consecutive registers, which is what a vector access loads.
//!
//! # Slice layouts
//! A value of rank `r < R` (a 1-D block that `expand_dims` turns into a row or column of
//! a 2-D one, or the result of a reduction) uses the kernel's blocked layout with an
//! *embedding*: its dim `i` is parent dim `embed[i]`, and the other parent dims have size 1
//! (Triton's `#slice<dim, parent>`). A thread then owns the elements the parent layout
//! gives it in a block with those dims of size 1, so `expand_dims` and `broadcast` move
//! no data between threads. Scalars have no layout: every thread holds the value.
//!
//! One blocked layout per kernel (from its largest block, the "anchor"); every value's
//! embedding follows from the ops that connect it to others ([`assign`]).

use std::fmt;

use super::PtxError;
use crate::diag::Code;
use crate::ir::{Kernel, OpKind, Value};

/// Registers per thread one block value may take (the register budget).
pub const MAX_REGS_PER_VALUE: usize = 128;

/// Triton's `BlockedEncodingAttr`.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Blocked {
    pub size_per_thread: Vec<usize>,
    pub threads_per_warp: Vec<usize>,
    pub warps_per_cta: Vec<usize>,
    /// Dims from fastest to slowest.
    pub order: Vec<usize>,
}

impl Blocked {
    /// The default layout for an `anchor` block with `fast_spt` elements per thread along
    /// the contiguous (last) dim and `num_warps` warps, Triton's
    /// `getDefaultBlockedEncoding` rule: lanes then warps fill the dims in order, as far
    /// as the shape goes, and what is left goes to the slowest dim (replication).
    pub fn for_anchor(anchor: &[usize], fast_spt: usize, num_warps: usize) -> Blocked {
        let rank = anchor.len().max(1);
        let anchor: Vec<usize> = if anchor.is_empty() { vec![1] } else { anchor.to_vec() };
        let order: Vec<usize> = (0..rank).rev().collect();
        let mut spt = vec![1; rank];
        spt[rank - 1] = fast_spt.clamp(1, anchor[rank - 1]);
        let mut tpw = vec![1; rank];
        let mut wpc = vec![1; rank];
        let (mut lanes, mut warps) = (32usize, num_warps);
        for &d in &order {
            let mut max_threads = (anchor[d] / spt[d]).max(1);
            tpw[d] = lanes.min(max_threads);
            max_threads = (max_threads / tpw[d]).max(1);
            wpc[d] = warps.min(max_threads);
            lanes /= tpw[d];
            warps /= wpc[d];
        }
        let slowest = order[rank - 1];
        tpw[slowest] *= lanes;
        wpc[slowest] *= warps;
        Blocked { size_per_thread: spt, threads_per_warp: tpw, warps_per_cta: wpc, order }
    }

    pub fn rank(&self) -> usize {
        self.order.len()
    }

    fn position(&self, d: usize) -> usize {
        self.order.iter().position(|&x| x == d).expect("dim in order")
    }

    /// log2 of the lane stride of dim `d`: lane bits `[shift, shift + log2 tpw_d)` are `d`'s.
    pub fn lane_shift(&self, d: usize) -> u32 {
        self.order[..self.position(d)].iter().map(|&x| self.threads_per_warp[x]).product::<usize>().trailing_zeros()
    }

    /// log2 of the warp stride of dim `d`.
    pub fn warp_shift(&self, d: usize) -> u32 {
        self.order[..self.position(d)].iter().map(|&x| self.warps_per_cta[x]).product::<usize>().trailing_zeros()
    }

    /// Thread positions along `d` (`tpw_d * wpc_d`).
    pub fn threads_along(&self, d: usize) -> usize {
        self.threads_per_warp[d] * self.warps_per_cta[d]
    }
}

impl fmt::Display for Blocked {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "blocked{{spt={:?}, tpw={:?}, wpc={:?}, order={:?}}}",
            self.size_per_thread, self.threads_per_warp, self.warps_per_cta, self.order
        )
    }
}

/// The geometry of one block shape under a blocked layout (see the module doc).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Geometry {
    /// The block's shape in the parent's rank (embedded dims; others 1).
    pub parent: Vec<usize>,
    /// `s_d`: consecutive elements of a thread's chunk.
    pub chunk: Vec<usize>,
    pub tile: Vec<usize>,
    pub reps: Vec<usize>,
    /// `regs_d = s_d * reps_d`.
    pub regs: Vec<usize>,
    pub order: Vec<usize>,
}

impl Geometry {
    pub fn new(enc: &Blocked, parent: Vec<usize>) -> Geometry {
        let r = enc.rank();
        let chunk: Vec<usize> = (0..r).map(|d| enc.size_per_thread[d].min(parent[d])).collect();
        let tile: Vec<usize> = (0..r).map(|d| chunk[d] * enc.threads_along(d)).collect();
        let reps: Vec<usize> = (0..r).map(|d| (parent[d] / tile[d]).max(1)).collect();
        let regs = (0..r).map(|d| chunk[d] * reps[d]).collect();
        Geometry { parent, chunk, tile, reps, regs, order: enc.order.clone() }
    }

    pub fn num_regs(&self) -> usize {
        self.regs.iter().product()
    }

    /// Whether threads along `d` hold copies of each other's elements.
    pub fn replicated(&self, d: usize) -> bool {
        self.parent[d] < self.tile[d]
    }

    /// Distinct thread positions along `d`: `P_d / s_d` when replicated, else all.
    pub fn distinct_threads(&self, d: usize, enc: &Blocked) -> usize {
        if self.replicated(d) { self.parent[d] / self.chunk[d] } else { enc.threads_along(d) }
    }

    /// The per-dim register indices of register number `i` of the element list.
    pub fn multi(&self, mut i: usize) -> Vec<usize> {
        let mut k = vec![0; self.parent.len()];
        for &d in &self.order {
            k[d] = i % self.regs[d];
            i /= self.regs[d];
        }
        k
    }

    /// The element-list index of per-dim register indices `k`.
    pub fn index(&self, k: &[usize]) -> usize {
        let mut i = 0;
        for &d in self.order.iter().rev() {
            i = i * self.regs[d] + k[d];
        }
        i
    }

    /// `rep * tile_d + j` of register index `k_d`: the coordinate minus the thread's part.
    pub fn static_offset(&self, d: usize, k_d: usize) -> usize {
        (k_d / self.chunk[d]) * self.tile[d] + k_d % self.chunk[d]
    }
}

/// A value's layout: the kernel's blocked layout and where the value's dims sit in it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Layout {
    /// `embed[i]`: the parent dim of the value's dim `i` (strictly increasing).
    pub embed: Vec<usize>,
}

impl Layout {
    pub fn geometry(&self, enc: &Blocked, shape: &[usize]) -> Geometry {
        let mut parent = vec![1; enc.rank()];
        for (i, &d) in self.embed.iter().enumerate() {
            parent[d] = shape[i];
        }
        Geometry::new(enc, parent)
    }

    /// `blocked` for a full-rank value, `slice{dims=[..]}` for an embedded one.
    pub fn describe(&self, enc: &Blocked) -> String {
        if self.embed.len() == enc.rank() {
            "#blocked".to_string()
        } else {
            let sliced: Vec<usize> = (0..enc.rank()).filter(|d| !self.embed.contains(d)).collect();
            format!("#slice<dims={sliced:?}, #blocked>")
        }
    }
}

struct Uf {
    parent: Vec<usize>,
}

impl Uf {
    fn find(&mut self, x: usize) -> usize {
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
    fn union(&mut self, a: usize, b: usize) {
        let (a, b) = (self.find(a), self.find(b));
        if a != b {
            self.parent[a] = b;
        }
    }
}

/// Assigns every non-scalar value an embedding into the kernel's blocked layout of rank
/// `rank`. Element-wise ops (and loops' carried values) tie their operands and results to
/// one embedding; `expand_dims` and `reduce` relate the embeddings of operand and result
/// (the operand of `expand_dims(x, a)` is the result's embedding without dim `a`).
/// Values of full rank get the identity. Values constrained to two different
/// embeddings are a layout conflict (an error naming the op); unconstrained ones take the
/// trailing dims.
pub fn assign(k: &Kernel, rank: usize) -> Result<Vec<Option<Layout>>, PtxError> {
    let n = k.values.len();
    let mut uf = Uf { parent: (0..n).collect() };
    // (operand, result, axis, is_expand)
    let mut relations: Vec<(Value, Value, usize, bool, crate::ir::SourceLoc)> = Vec::new();
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
            OpKind::Binary { lhs, rhs, .. } | OpKind::Compare { lhs, rhs, .. } => tie(&[*lhs, *rhs, op.results[0]]),
            OpKind::Unary { value: v, .. } | OpKind::Cast { value: v } | OpKind::Broadcast { value: v } => {
                tie(&[*v, op.results[0]])
            }
            OpKind::Select { cond, on_true, on_false } => tie(&[*cond, *on_true, *on_false, op.results[0]]),
            OpKind::Fma { a, b, c } => tie(&[*a, *b, *c, op.results[0]]),
            OpKind::AddPtr { ptr, offset } => tie(&[*ptr, *offset, op.results[0]]),
            OpKind::Load { .. } | OpKind::Store { .. } | OpKind::AtomicRmw { .. } | OpKind::AtomicCas { .. } => {
                let mut vs = op.kind.operands();
                vs.extend(op.results.iter().copied());
                tie(&vs);
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
            OpKind::ExpandDims { value, axis } if is_block(*value) => {
                relations.push((*value, op.results[0], *axis, true, op.loc))
            }
            OpKind::Reduce { value, axis, .. } if is_block(op.results[0]) => {
                relations.push((*value, op.results[0], *axis, false, op.loc))
            }
            // Every operand of a combine reduction has one layout; each result is its slice.
            OpKind::ReduceWith { values, axis, .. } => {
                tie(values);
                for (v, r) in values.iter().zip(&op.results).filter(|(_, r)| is_block(**r)) {
                    relations.push((*v, *r, *axis, false, op.loc));
                }
            }
            // A scan keeps its operands' layout.
            OpKind::Scan { values, .. } => {
                let mut vs = values.clone();
                vs.extend(op.results.iter().copied());
                tie(&vs);
            }
            // Scalars and ops that start a layout class of their own: nothing to tie. (A
            // scalar operand of `expand_dims` or a reduction to a scalar relates no blocks.)
            OpKind::Param { .. }
            | OpKind::Constant { .. }
            | OpKind::ProgramId { .. }
            | OpKind::NumPrograms { .. }
            | OpKind::Arange { .. }
            | OpKind::Splat { .. }
            | OpKind::ExpandDims { .. }
            | OpKind::Reduce { .. }
            | OpKind::Yield { .. } => {}
        }
    }
    let mut class_embed: Vec<Option<Vec<usize>>> = vec![None; n];
    let set = |uf: &mut Uf,
               v: Value,
               e: Vec<usize>,
               loc: crate::ir::SourceLoc,
               class_embed: &mut Vec<Option<Vec<usize>>>| {
        let c = uf.find(v.index());
        match &class_embed[c] {
            Some(old) if *old != e => Err(PtxError::new(
                Code::PtxLayoutConflict,
                &k.name,
                loc,
                format!(
                    "layout conflict: {v} ({}) is needed both as parent dims {old:?} and as parent dims {e:?} of the kernel's rank-{rank} layout",
                    k.ty(v)
                ),
                "use separate values for the row and the column roles (e.g. a second arange), or reshape with expand_dims consistently",
            )),
            Some(_) => Ok(false),
            None => {
                class_embed[c] = Some(e);
                Ok(true)
            }
        }
    };
    for (i, vd) in k.values.iter().enumerate() {
        if vd.ty.shape.rank() == rank && rank > 0 {
            let loc = k.def_op(Value(i as u32)).map_or(k.loc, |o| o.loc);
            set(&mut uf, Value(i as u32), (0..rank).collect(), loc, &mut class_embed)?;
        }
    }
    loop {
        let mut changed = true;
        while changed {
            changed = false;
            for &(operand, result, axis, is_expand, loc) in &relations {
                let (co, cr) = (uf.find(operand.index()), uf.find(result.index()));
                // For expand_dims the operand is the result minus `axis`; for reduce the
                // result is the operand minus `axis`.
                let (big, small) = if is_expand { (cr, co) } else { (co, cr) };
                let (big_v, small_v) = if is_expand { (result, operand) } else { (operand, result) };
                if let Some(e) = class_embed[big].clone() {
                    let mut s = e.clone();
                    s.remove(axis);
                    changed |= set(&mut uf, small_v, s, loc, &mut class_embed)?;
                } else if let Some(s) = class_embed[small].clone() {
                    // The big side's dim `axis` is the parent dim not used by the small
                    // side at that position; only determined when ranks differ by one and
                    // the parent has exactly one free dim.
                    let free: Vec<usize> = (0..rank).filter(|d| !s.contains(d)).collect();
                    if k.shape(big_v).rank() == s.len() + 1 && free.len() == 1 && rank == s.len() + 1 {
                        let mut e = s.clone();
                        e.insert(axis, free[0]);
                        if e.windows(2).all(|w| w[0] < w[1]) {
                            changed |= set(&mut uf, big_v, e, loc, &mut class_embed)?;
                        }
                    }
                    let _ = small_v;
                }
            }
        }
        // Default the first unassigned block value to the trailing dims, then propagate.
        let next = (0..n).find(|&i| {
            let r = k.values[i].ty.shape.rank();
            r > 0 && class_embed[uf.find(i)].is_none()
        });
        match next {
            None => break,
            Some(i) => {
                let r = k.values[i].ty.shape.rank();
                let c = uf.find(i);
                class_embed[c] = Some((rank - r..rank).collect());
            }
        }
    }
    Ok((0..n)
        .map(|i| {
            if k.values[i].ty.shape.is_scalar() {
                None
            } else {
                class_embed[uf.find(i)].clone().map(|embed| Layout { embed })
            }
        })
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(anchor: &[usize], spt: usize, warps: usize, want: &str) {
        assert_eq!(Blocked::for_anchor(anchor, spt, warps).to_string(), want, "{anchor:?} spt {spt} warps {warps}");
    }

    #[test]
    fn default_blocked_layouts() {
        check(&[1024], 4, 4, "blocked{spt=[4], tpw=[32], wpc=[4], order=[0]}");
        check(&[1024], 1, 4, "blocked{spt=[1], tpw=[32], wpc=[4], order=[0]}");
        // Smaller than the CTA: what is left of lanes and warps replicates.
        check(&[16], 1, 4, "blocked{spt=[1], tpw=[32], wpc=[4], order=[0]}");
        check(&[16, 64], 4, 4, "blocked{spt=[1, 4], tpw=[2, 16], wpc=[4, 1], order=[1, 0]}");
        check(&[16, 64], 1, 4, "blocked{spt=[1, 1], tpw=[1, 32], wpc=[2, 2], order=[1, 0]}");
        check(&[4, 8], 1, 1, "blocked{spt=[1, 1], tpw=[4, 8], wpc=[1, 1], order=[1, 0]}");
    }

    #[test]
    fn geometry_of_replicated_and_repeated_blocks() {
        let enc = Blocked::for_anchor(&[1024], 4, 4);
        let g = Geometry::new(&enc, vec![1024]);
        assert_eq!((g.chunk[0], g.tile[0], g.reps[0], g.num_regs()), (4, 512, 2, 8));
        assert!(!g.replicated(0));
        // Register 5 = second repetition, element 1: coordinate 512 + 4 t + 1.
        assert_eq!(g.static_offset(0, 5), 513);
        let small = Geometry::new(&enc, vec![16]);
        assert_eq!((small.chunk[0], small.num_regs(), small.distinct_threads(0, &enc)), (4, 4, 4));
        assert!(small.replicated(0));
    }

    #[test]
    fn register_order_is_fastest_dim_first() {
        let enc = Blocked::for_anchor(&[16, 64], 4, 4);
        let g = Geometry::new(&enc, vec![16, 64]);
        assert_eq!(g.regs, vec![2, 4]);
        assert_eq!(g.multi(5), vec![1, 1]);
        assert_eq!(g.index(&[1, 1]), 5);
    }
}
