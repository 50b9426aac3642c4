//! Shared base addresses: the vectors of one thread's global access whose addresses lie
//! a compile-time distance apart read one address register plus an immediate offset
//! (`ld.global.v4.f32 {..}, [%rd+8192]`), as Triton's LLVM lowering does, instead of an
//! address register each. A thread holding 8 vectors of a row then keeps one 64-bit
//! address (and one 64-bit column offset, when the offsets are loop-invariant) alive
//! instead of 8: the softmax at 16384 columns on 16 warps needed 79 registers a thread
//! this way, over the 64 that let two 512-thread programs share an SM.
//!
//! The distance comes from the layout (which coordinates a thread's registers hold:
//! `rep * tile + t * s + j`, so two of them differ by a constant) and from AxisInfo's
//! contiguity (two elements in one run of consecutive addresses lie exactly their index
//! difference apart). The addresses the lowering computes for the other vectors are then
//! unread and `dce` drops them.
//!
//! Exactness: AxisInfo's rules hold in wrapping arithmetic (mod 2^64 for pointers and
//! 64-bit ints, mod 2^32 for 32-bit ones), and so does `addr + offset`; what does not
//! commute with wrapping is widening a 32-bit int (`cast` to 64 bits, or a 32-bit `add_ptr`
//! offset, sign-extended): `[2^31 - 1, 2^31]` is a run in i32 but not after the widening. So
//! the offset is folded only when every 32-bit int widened on the pointer's way has runs
//! that cannot wrap inside (each run starts at a multiple of its length or more:
//! divisibility >= contiguity), as for `arange` from 0; `row * stride + arange` in i32 is
//! not folded (its runs may wrap), the vectors keep their own addresses, and the result is
//! the same either way.

use std::collections::HashSet;

use super::Lowerer;
use crate::backend::ptx::axis_info::AxisInfoMap;
use crate::ir::{Kernel, OpKind, Value};

impl Lowerer<'_> {
    /// For the vector starting at each multiple of `width` of an access through `ptr`: the
    /// start of the vector whose address register it reads and the byte offset it adds
    /// (`(c, 0)`: its own address). `n` is the number of elements the thread holds.
    pub(super) fn vector_bases(&self, ptr: Value, n: usize, width: usize) -> Vec<(usize, i64)> {
        let own: Vec<(usize, i64)> = (0..n).step_by(width.max(1)).map(|c| (c, 0)).collect();
        let (Some(g), Some(l)) = (self.geometry(ptr), self.layout(ptr)) else { return own };
        let fastest = l.enc.order[0];
        // Only along the layout's fastest dim do a thread's registers step by constants
        // within a run; a pointer without that dim keeps its addresses.
        let Some(dim) = l.embed.iter().position(|&d| d == fastest) else { return own };
        let run = self.ai.get(ptr).contiguity[dim];
        if run <= 1 || !widenings_exact(self.k, self.ai, ptr) {
            return own;
        }
        let elem = self.k.dtype(ptr).pointee().map_or(1, |s| s.size_bytes()) as i64;
        let (size, chunk, threads) = (g.parent[fastest], g.chunk[fastest], l.enc.threads_along(fastest));
        // The distance in elements from register `b` to register `c` along the fastest
        // dim, when it is the same in every thread and both lie in one run.
        let distance = |b: usize, c: usize| -> Option<i64> {
            let (kb, kc) = (g.multi(b), g.multi(c));
            if (0..kb.len()).any(|e| e != fastest && kb[e] != kc[e]) {
                return None;
            }
            let (ob, oc) = (g.static_offset(fastest, kb[fastest]), g.static_offset(fastest, kc[fastest]));
            let mut delta = None;
            for t in 0..threads {
                let (xb, xc) = ((ob + t * chunk) % size, (oc + t * chunk) % size);
                let d = xc as i64 - xb as i64;
                if xb as u64 / run != xc as u64 / run || delta.is_some_and(|x| x != d) {
                    return None;
                }
                delta = Some(d);
            }
            delta
        };
        let mut bases: Vec<usize> = Vec::new();
        own.iter()
            .map(|&(c, _)| {
                let found = bases.iter().find_map(|&b| {
                    let bytes = distance(b, c)?.checked_mul(elem)?;
                    // A positive 32-bit displacement: what PTX's `[reg+imm]` takes.
                    (bytes > 0 && bytes <= i64::from(i32::MAX)).then_some((b, bytes))
                });
                found.unwrap_or_else(|| {
                    bases.push(c);
                    (c, 0)
                })
            })
            .collect()
    }
}

/// Whether every 32-bit int widened to 64 bits on the way to `ptr` (a `cast`, or an
/// `add_ptr` offset) has runs that cannot wrap inside: along every dim each run starts at a
/// multiple of at least its length. Then `ptr`'s contiguity holds in exact 64-bit
/// arithmetic, not only in 32-bit wrapping arithmetic.
fn widenings_exact(k: &Kernel, ai: &AxisInfoMap, ptr: Value) -> bool {
    let bits = |v: Value| k.dtype(v).scalar().and_then(|s| s.int_bits());
    let narrow = |v: Value| bits(v).is_some_and(|b| b < 64);
    // A run starting at a multiple of its length (or more) never holds the wrap point
    // (`2^(b-1)` signed, `2^b` unsigned: multiples of every smaller power of two), unless
    // it is longer than half the range.
    let no_wrap = |v: Value| {
        let (i, half) = (ai.get(v), 1u64 << (bits(v).unwrap_or(64) - 1));
        i.contiguity.iter().zip(&i.divisibility).all(|(&c, &d)| c == 1 || (d >= c && c <= half))
    };
    let mut seen = HashSet::new();
    let mut stack = vec![ptr];
    while let Some(v) = stack.pop() {
        if !seen.insert(v) {
            continue;
        }
        // A block argument (loop variable or carried value) has no defining op here.
        let Some(op) = k.def_op(v) else { continue };
        let widened = match &op.kind {
            OpKind::Cast { value } if narrow(*value) && bits(v) == Some(64) => Some(*value),
            OpKind::AddPtr { offset, .. } if narrow(*offset) => Some(*offset),
            // every other op computes in its own width (wrapping, as AxisInfo assumes) or
            // keeps no contiguity; its operands are walked below
            _ => None,
        };
        if widened.is_some_and(|w| !no_wrap(w)) {
            return false;
        }
        stack.extend(op.kind.operands());
    }
    true
}
