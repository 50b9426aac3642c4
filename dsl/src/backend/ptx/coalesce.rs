//! Which dim of the kernel's blocked layout is fastest, and how many elements each thread
//! holds along it: Triton's Coalesce pass (`Coalesce.cpp`, `getOrderFromContiguity` and
//! `buildCoalescedEncoding` in `Utility.cpp`), for rtriton's one layout per kernel.
//!
//! Triton gives every load and store a layout whose `order` lists the dims of its pointer
//! tensor by decreasing contiguity (AxisInfo), so consecutive lanes read consecutive
//! addresses, and `sizePerThread` along the first of them is as wide as a 128-bit access
//! allows. rtriton has one blocked layout per kernel ([`super::layout`]), so the accesses
//! vote:
//!
//! 1. Each load of the kernel's rank whose shape is the anchor's (or a row or column of it,
//!    whose embedding is the identity) prefers the order of its pointer's contiguity:
//!    the dims from the last to the first, stably sorted by decreasing contiguity (ties
//!    keep the last dim fastest, as Triton's). An access with no contiguous dim has no
//!    preference. Stores decide the same way when no such load has a preference.
//! 2. Each preference weighs the elements the access moves; the heaviest order wins (on a
//!    tie the first access's, in program order). Without a preference the default order
//!    stays: the last dim fastest. The accesses that preferred another order are named in
//!    the decision's reason (`rtriton explain` prints it).
//! 3. `sizePerThread` along the winning fastest dim is the widest vector a load of the
//!    kernel's rank can prove along it ([`super::vectorize::Facts::provable`], at most 128
//!    bits), no more than the anchor gives each thread; lanes then warps fill the dims in
//!    that order ([`Blocked::new`]).
//!
//! So a tile of a transposed view (`x[r, c]` at `r * 1 + c * stride`, the row stride
//! specialized to the constant 1) is read along dim 0 with 128-bit accesses, and a
//! reduction over dim 1 (the strided axis) combines in registers, then across the lanes
//! and warps the layout puts along dim 1. Where accesses disagree the losers are read with
//! narrower or scalar accesses; Triton would convert their layouts through shared memory.

use std::fmt::Write as _;

use super::axis_info::AxisInfoMap;
use super::layout::Blocked;
use super::vectorize::{self, Facts};
use super::{AccessKind, LayoutDecision};
use crate::ir::{Kernel, OpKind, SourceLoc, Value};

/// One load or store that can vote for the layout's order.
struct Access {
    kind: AccessKind,
    loc: SourceLoc,
    ptr: Value,
    mask: Option<Value>,
}

/// The loads, then the stores, of the kernel (program order within each).
fn accesses(k: &Kernel) -> Vec<Access> {
    let mut loads = Vec::new();
    let mut stores = Vec::new();
    for id in k.walk() {
        // Only loads (copies into staging rings among them) and stores vote: atomics
        // access one element per instruction (no vectors), and no other op touches memory.
        let op = k.op(id);
        if let OpKind::Load { ptr, mask, .. } | OpKind::AsyncCopy { ptr, mask, .. } = &op.kind {
            loads.push(Access { kind: AccessKind::Load, loc: op.loc, ptr: *ptr, mask: *mask });
        }
        if let OpKind::Store { ptr, mask, .. } = &op.kind {
            stores.push(Access { kind: AccessKind::Store, loc: op.loc, ptr: *ptr, mask: *mask });
        }
    }
    loads.extend(stores);
    loads
}

/// Triton's `getOrderFromContiguity`: the dims from the last to the first, stably sorted by
/// decreasing contiguity.
pub fn order_from_contiguity(contiguity: &[u64]) -> Vec<usize> {
    let mut order: Vec<usize> = (0..contiguity.len()).rev().collect();
    order.sort_by_key(|&d| std::cmp::Reverse(contiguity[d]));
    order
}

/// The default order: the last dim fastest (row-major blocks).
pub fn default_order(rank: usize) -> Vec<usize> {
    (0..rank.max(1)).rev().collect()
}

/// Whether a block of `shape` is the anchor or a row or column of it (each dim the
/// anchor's or 1): the values `layout::assign` always gives the identity embedding, so
/// their dims are the layout's.
fn slice_of_anchor(shape: &[usize], anchor: &[usize]) -> bool {
    shape.len() == anchor.len() && shape.iter().zip(anchor).all(|(s, a)| s == a || *s == 1)
}

/// One order and the accesses that prefer it.
struct Vote {
    order: Vec<usize>,
    elements: usize,
    first: SourceLoc,
    kind: AccessKind,
    contiguity: Vec<u64>,
}

/// The orders the accesses of `kind` whose pointers are the anchor's shape (or a row or
/// column of it) prefer, each with the elements that prefer it, in program order of their
/// first access; accesses with no contiguous dim prefer nothing.
fn votes(k: &Kernel, ai: &AxisInfoMap, all: &[Access], anchor: &[usize], kind: AccessKind) -> Vec<Vote> {
    let mut votes: Vec<Vote> = Vec::new();
    for a in all.iter().filter(|a| a.kind == kind && slice_of_anchor(k.shape(a.ptr).dims(), anchor)) {
        let contiguity = ai.get(a.ptr).contiguity.clone();
        if contiguity.iter().all(|&c| c <= 1) {
            continue;
        }
        let order = order_from_contiguity(&contiguity);
        let elements = k.shape(a.ptr).numel();
        match votes.iter_mut().find(|v| v.order == order) {
            Some(v) => v.elements += elements,
            None => votes.push(Vote { order, elements, first: a.loc, kind: a.kind, contiguity }),
        }
    }
    votes
}

/// The kernel's blocked layout for its `anchor` block on `num_warps` warps, and why.
pub fn coalesced_layout(k: &Kernel, ai: &AxisInfoMap, anchor: &[usize], num_warps: usize) -> (Blocked, LayoutDecision) {
    let rank = anchor.len().max(1);
    let all = accesses(k);
    let load_votes = votes(k, ai, &all, anchor, AccessKind::Load);
    let store_votes = votes(k, ai, &all, anchor, AccessKind::Store);
    let deciding = if load_votes.is_empty() { &store_votes } else { &load_votes };
    // The heaviest order; `max_by_key` keeps the last of equals, so search in reverse to
    // keep the first.
    let winner = deciding.iter().rev().max_by_key(|v| v.elements);
    let order = winner.map_or_else(|| default_order(rank), |v| v.order.clone());
    let threads = num_warps * 32;
    let anchor_numel: usize = anchor.iter().product();
    let (chunk, chunk_from) = chunk_along(k, ai, &all, rank, order[0], anchor_numel, threads);
    let narrowest = narrowest_full_load(k, ai, &all, anchor, order[0], chunk, threads);
    // Lanes along the fastest dim stop at the narrowest full load's width, so no lane of
    // that load holds a copy of another's elements (its copies would be issued twice).
    let mut lanes_anchor = anchor.to_vec();
    if let Some((width, _)) = narrowest {
        lanes_anchor[order[0]] = width;
    }
    let enc = Blocked::new(&lanes_anchor, order.clone(), chunk, num_warps);

    let mut reason = String::new();
    let fastest = order[0];
    match winner {
        None => {
            let _ = write!(
                reason,
                "dim {fastest} fastest (the default): no load or store of the {anchor:?} tile has a contiguous dim"
            );
        }
        Some(w) => {
            let what = access_name(w.kind);
            let _ = write!(
                reason,
                "dim {fastest} fastest: the {what} at {} is contiguous along it (contiguity {:?})",
                w.first.short(),
                w.contiguity
            );
            let others: Vec<String> = load_votes
                .iter()
                .chain(&store_votes)
                .filter(|v| v.order != w.order)
                .map(|v| format!("the {} at {} prefers order {:?}", access_name(v.kind), v.first.short(), v.order))
                .collect();
            if !others.is_empty() {
                let _ = write!(
                    reason,
                    "; {} (one layout per kernel: not coalesced; loads decide before stores, then the most elements)",
                    others.join(", ")
                );
            }
        }
    }
    let _ = write!(reason, "; {chunk} element(s) per thread along dim {fastest}: {chunk_from}");
    if let Some((width, loc)) = narrowest {
        let _ = write!(
            reason,
            "; lanes along dim {fastest} cover {width} elements, the width of the load at {} (no lane repeats its \
             elements)",
            loc.short()
        );
    }
    let decision =
        LayoutDecision { order, size_per_thread: enc.size_per_thread.clone(), blocked: enc.to_string(), reason };
    (enc, decision)
}

/// The narrowest extent along `fast`, below the anchor's, of a load of the anchor's rank
/// that fills the block's threads with `chunk`-wide vectors along `fast` (a tile of a
/// matmul's narrower operand: `128 x 64` beside a `128 x 128` anchor), and where it is.
/// Narrower loads (a row of a column vector) stay replicated, as before.
fn narrowest_full_load(
    k: &Kernel,
    ai: &AxisInfoMap,
    all: &[Access],
    anchor: &[usize],
    fast: usize,
    chunk: usize,
    threads: usize,
) -> Option<(usize, SourceLoc)> {
    all.iter()
        .filter(|a| a.kind == AccessKind::Load && k.shape(a.ptr).rank() == anchor.len())
        .filter_map(|a| {
            let shape = k.shape(a.ptr).dims();
            let contiguous = ai.get(a.ptr).contiguity.get(fast).copied().unwrap_or(1);
            let full = shape.iter().product::<usize>() >= threads * chunk;
            (chunk > 1 && contiguous >= chunk as u64 && full && shape[fast] >= chunk && shape[fast] < anchor[fast])
                .then_some((shape[fast], a.loc))
        })
        .min_by_key(|(width, _)| *width)
}

fn access_name(kind: AccessKind) -> &'static str {
    match kind {
        AccessKind::Load => "load",
        AccessKind::Store => "store",
    }
}

/// `sizePerThread` along parent dim `fast`: the widest width any load of rank `rank` can
/// prove along that dim (stores when the kernel has no such load), but no more than the
/// anchor block gives each of `threads` threads; with the reason in words.
fn chunk_along(
    k: &Kernel,
    ai: &AxisInfoMap,
    all: &[Access],
    rank: usize,
    fast: usize,
    anchor_numel: usize,
    threads: usize,
) -> (usize, String) {
    let widest = |kind: AccessKind| {
        all.iter()
            .filter(|a| a.kind == kind && k.shape(a.ptr).rank() == rank)
            .map(|a| Facts::of(k, ai, a.ptr, a.mask, fast).provable())
            .max()
    };
    let (best, from) = match (widest(AccessKind::Load), widest(AccessKind::Store)) {
        (Some(w), _) => (w, "the widest vector a load proves"),
        (None, Some(w)) => (w, "the widest vector a store proves"),
        (None, None) => (1, "no load or store of the kernel's rank"),
    };
    let per_thread = (anchor_numel / threads).max(1);
    let chunk = (best as usize).min(per_thread);
    let why = if chunk < best as usize {
        format!("{from} is {best}, the tile has {per_thread} per thread")
    } else {
        format!("{from} (at most {} bytes)", vectorize::MAX_VECTOR_BYTES)
    };
    (chunk, why)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn order_sorts_by_contiguity_and_keeps_the_last_dim_fastest_on_ties() {
        let table: [(&[u64], &[usize]); 6] = [
            (&[1, 64], &[1, 0]),
            (&[64, 1], &[0, 1]),
            (&[1, 1], &[1, 0]),
            (&[16, 16], &[1, 0]),
            (&[4, 1, 8], &[2, 0, 1]),
            (&[8], &[0]),
        ];
        for (contiguity, want) in table {
            assert_eq!(order_from_contiguity(contiguity), want, "{contiguity:?}");
        }
    }
}
