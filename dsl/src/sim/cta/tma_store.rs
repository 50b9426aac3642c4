//! Tensor stores (TMA), thread by thread: a store reads its box from shared memory
//! (un-swizzling each row as its map says) and writes the elements inside the tensor to
//! global memory. The hardware may read shared memory at any time until a
//! `cp.async.bulk.wait_group.read` of the issuing thread covers the store's group, so the
//! simulator writes global memory at the issue and reports any write to those shared bytes
//! before that wait, and a program that ends with a store still reading
//! ([`Check::TensorStorePending`]); the box's bytes must have been fenced for the async
//! proxy by their writers ([`Check::AsyncProxyUnfenced`]) and ordered before the issue by
//! a barrier (a race otherwise).

use std::collections::VecDeque;

use super::tma::swizzled;
use super::{Cta, Launch};
use crate::backend::ptx::lir::Guard;
use crate::interp::Memory;
use crate::sim::decode::{LaunchMap, Src};
use crate::sim::error::{Address, Check, SimFault};

/// The shared ranges each thread's tensor stores read: those not yet committed to a bulk
/// group, and the committed groups, oldest first.
#[derive(Debug, Default)]
pub(crate) struct BulkStores {
    open: Vec<Vec<(u32, u32)>>,
    committed: Vec<VecDeque<Vec<(u32, u32)>>>,
}

impl BulkStores {
    pub fn start_program(&mut self) {
        self.open.clear();
        self.committed.clear();
    }

    fn thread(&mut self, t: usize) {
        if self.open.len() <= t {
            self.open.resize_with(t + 1, Vec::new);
            self.committed.resize_with(t + 1, VecDeque::new);
        }
    }
}

impl Cta {
    /// Each thread whose guard holds stores the box of `map` at `coords` (innermost first)
    /// from shared `src`.
    pub(super) fn tensor_store(
        &mut self,
        l: &mut Launch<'_>,
        mem: &mut Memory,
        guard: Option<Guard>,
        (src, map, coords): (u32, &LaunchMap, &[Src]),
    ) -> Result<(), SimFault> {
        for t in 0..self.t {
            if !self.active(t) || !self.guard_holds(guard, t) {
                continue;
            }
            let from = self.get(Src::Reg(src), t) as u32;
            let index: Vec<i64> = coords.iter().rev().map(|&c| i64::from(self.get(c, t) as u32 as i32)).collect();
            let (rows, cols) = (map.map.box_dims[0] as usize, map.map.box_dims[1] as usize);
            let eb = map.resolved.elem_bytes as usize;
            let row_bytes = cols * eb;
            let n = (rows * row_bytes) as u32;
            self.box_in_shared(t, (from, n), map.map.swizzle, ("a tensor store's", "is read from", "the stored tile"))?;
            self.copies.check(t as u32, from, n, "reads (by a tensor store)")?;
            self.races.read(t as u32, from, n)?;
            self.races.async_read(t as u32, from, n, "tensor store")?;
            self.races.store_reading(from, n, false);
            let span = map.map.swizzle as usize;
            let now = self.stamp(l, t);
            for r in 0..rows {
                for c in 0..cols {
                    let at = [index[0] + r as i64, index[1] + c as i64];
                    let Some(off) = map.resolved.offset_of(&at) else { continue };
                    let a = map.resolved.address + off;
                    let swizzled = from as usize + swizzled(r * row_bytes + c * eb, span);
                    let bytes = self.shared[swizzled..swizzled + eb].to_vec();
                    l.stores.store(&self.sync, now, a, eb as u32)?;
                    mem.write_bytes(a, &bytes).map_err(|e| {
                        SimFault::new(
                            Check::OutOfBounds,
                            Some(t as u32),
                            format!("a tensor store writes outside every buffer: {e} (the tensor map's sizes and strides describe memory past the tensor)"),
                            "pass the tensor's true sizes and strides to the descriptor",
                        )
                        .at(Address::Global(a))
                    })?;
                    l.report.global_store_bytes += eb as u64;
                }
            }
            l.report.global_stores += 1;
            self.bulk_stores.thread(t);
            self.bulk_stores.open[t].push((from, n));
        }
        Ok(())
    }

    /// `cp.async.bulk.commit_group` of each thread whose guard holds.
    pub(super) fn bulk_commit(&mut self, guard: Option<Guard>) {
        for t in 0..self.t {
            if self.active(t) && self.guard_holds(guard, t) {
                self.bulk_stores.thread(t);
                let group = std::mem::take(&mut self.bulk_stores.open[t]);
                self.bulk_stores.committed[t].push_back(group);
            }
        }
    }

    /// `cp.async.bulk.wait_group.read pending` of each thread whose guard holds: the
    /// stores of every group but the newest `pending` no longer read shared memory.
    pub(super) fn bulk_wait_read(&mut self, guard: Option<Guard>, pending: u32) {
        for t in 0..self.t {
            if !self.active(t) || !self.guard_holds(guard, t) {
                continue;
            }
            self.bulk_stores.thread(t);
            while self.bulk_stores.committed[t].len() > pending as usize {
                let group = self.bulk_stores.committed[t].pop_front().unwrap_or_default();
                for (from, n) in group {
                    self.races.store_reading(from, n, true);
                }
            }
        }
    }

    /// At the program's end no tensor store may still read shared memory (the CTA's
    /// shared memory goes to the next CTA).
    pub(super) fn bulk_stores_done(&self) -> Result<(), SimFault> {
        let open = self.bulk_stores.open.iter().zip(&self.bulk_stores.committed);
        match open.enumerate().find(|(_, (o, c))| !o.is_empty() || c.iter().any(|g| !g.is_empty())) {
            None => Ok(()),
            Some((t, (o, _))) => Err(SimFault::new(
                Check::TensorStorePending,
                Some(t as u32),
                format!(
                    "the program ends while a tensor store (TMA) of thread {t} may still read shared memory ({})",
                    if o.is_empty() {
                        "no cp.async.bulk.wait_group.read covered its group"
                    } else {
                        "its store was never committed to a bulk group"
                    }
                ),
                "commit the tensor stores (cp.async.bulk.commit_group) and wait with cp.async.bulk.wait_group.read before the program ends",
            )),
        }
    }
}
