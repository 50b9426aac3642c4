//! mbarriers and tensor copies (TMA), thread by thread (`sim/mbarrier.rs` has the model):
//! a copy reads its box at the issue, bytes outside the tensor as zeros, and lands,
//! swizzled as its map says, when a wait needs its phase.

use super::{Cta, Launch};
use crate::backend::ptx::lir::Guard;
use crate::interp::Memory;
use crate::sim::decode::{LaunchMap, Src};
use crate::sim::error::{Address, Check, SimFault};
use crate::sim::mbarrier::{BulkCopy, Sources};

/// Bytes of an mbarrier (its address is aligned to them).
const MBARRIER_BYTES: u32 = 8;

impl Cta {
    /// The shared address of the mbarrier register `bar` holds in thread `t`.
    fn mbarrier_addr(&self, bar: u32, t: usize) -> Result<u32, SimFault> {
        self.shared_addr(bar, 0, MBARRIER_BYTES, t)
    }

    fn mbarrier_fault(&self, t: usize, at: u32, message: String) -> SimFault {
        SimFault::new(
            Check::MbarrierNeverCompletes,
            Some(t as u32),
            message,
            "arm each phase with one arrive.expect_tx of exactly the bytes its tensor copies bring, and wait with the parity of the phase the copies complete",
        )
        .at(Address::Shared(at))
    }

    pub(super) fn mbarrier_init(&mut self, guard: Option<Guard>, bar: u32, count: u32) -> Result<(), SimFault> {
        for t in 0..self.t {
            if self.active(t) && self.guard_holds(guard, t) {
                let a = self.mbarrier_addr(bar, t)?;
                self.mbarriers.init(a, count);
            }
        }
        Ok(())
    }

    pub(super) fn mbarrier_arrive(&mut self, guard: Option<Guard>, bar: u32, bytes: u32) -> Result<(), SimFault> {
        for t in 0..self.t {
            if self.active(t) && self.guard_holds(guard, t) {
                let a = self.mbarrier_addr(bar, t)?;
                self.mbarriers.arrive_expect_tx(a, bytes).map_err(|e| self.mbarrier_fault(t, a, e))?;
            }
        }
        Ok(())
    }

    /// Each thread whose guard holds issues the copy of `map`'s box at `coords` (innermost
    /// first) to `dst`.
    pub(super) fn tensor_copy(
        &mut self,
        l: &mut Launch<'_>,
        mem: &Memory,
        guard: Option<Guard>,
        (dst, map, coords, bar): (u32, &LaunchMap, &[Src], u32),
    ) -> Result<(), SimFault> {
        for t in 0..self.t {
            if !self.active(t) || !self.guard_holds(guard, t) {
                continue;
            }
            let b = self.mbarrier_addr(bar, t)?;
            let to = self.get(Src::Reg(dst), t) as u32;
            let index: Vec<i64> = coords.iter().rev().map(|&c| i64::from(self.get(c, t) as u32 as i32)).collect();
            let (bytes, sources) = self.box_bytes(l, mem, map, &index, t)?;
            let n = bytes.len() as u32;
            self.box_in_shared(t, (to, n), map.map.swizzle, ("a tensor copy's", "lands at", "each slot"))?;
            self.races.check_not_in_flight(t as u32, to, n)?;
            self.copies.issue_bulk(t as u32, to, n)?;
            self.races.write_async_proxy(t as u32, to, n)?;
            self.mbarriers
                .add_copy(b, BulkCopy { shared: to, bytes, sources })
                .map_err(|e| self.mbarrier_fault(t, b, e))?;
        }
        Ok(())
    }

    /// Thread `t`'s box of `n` bytes at shared offset `at` lies inside the buffer, aligned to
    /// its `swizzle`'s 8-row pattern. `words`: whose box, what it does there, what to place.
    pub(super) fn box_in_shared(
        &self,
        t: usize,
        (at, n): (u32, u32),
        swizzle: u32,
        (whose, does, what): (&str, &str, &str),
    ) -> Result<(), SimFault> {
        let align = 8 * swizzle;
        if u64::from(at) + u64::from(n) <= self.shared.len() as u64 && at.is_multiple_of(align) {
            return Ok(());
        }
        Err(SimFault::new(
            Check::TensorCopyBox,
            Some(t as u32),
            format!(
                "{whose} {n}-byte box {does} shared offset {at}, which is {} (the buffer has {} bytes; a {swizzle}-byte swizzle needs {align}-byte alignment)",
                if !at.is_multiple_of(align) { "misaligned" } else { "past the buffer's end" },
                self.shared.len(),
            ),
            format!("place {what} inside the shared buffer, aligned to its swizzle's 8-row pattern"),
        )
        .at(Address::Shared(at)))
    }

    /// The box of `map` at `index` (outermost first) as it lands in shared memory:
    /// row-major, each row's 16-byte chunks swizzled, zeros outside the tensor; and where
    /// each element read lies in it. Each read is a load of thread `t` for the global race
    /// checks, as a `cp.async`'s is.
    fn box_bytes(
        &self,
        l: &mut Launch<'_>,
        mem: &Memory,
        map: &LaunchMap,
        index: &[i64],
        t: usize,
    ) -> Result<(Vec<u8>, Sources), SimFault> {
        let (rows, cols) = (map.map.box_dims[0] as usize, map.map.box_dims[1] as usize);
        let eb = map.resolved.elem_bytes as usize;
        let row_bytes = cols * eb;
        let span = map.map.swizzle as usize;
        let mut out = vec![0u8; rows * row_bytes];
        let mut sources = Vec::new();
        for r in 0..rows {
            for c in 0..cols {
                let at = [index[0] + r as i64, index[1] + c as i64];
                let Some(off) = map.resolved.offset_of(&at) else { continue };
                let a = map.resolved.address + off;
                let src = mem.read_bytes(a, eb).map_err(|e| {
                    SimFault::new(
                        Check::OutOfBounds,
                        Some(t as u32),
                        format!("a tensor copy reads outside every buffer: {e} (the tensor map's sizes and strides describe memory past the tensor)"),
                        "pass the tensor's true sizes and strides to the descriptor",
                    )
                    .at(Address::Global(a))
                })?;
                l.report.global_load_bytes += eb as u64;
                let now = self.stamp(l, t);
                l.stores.load(&self.sync, now, a, eb as u32)?;
                l.stores.record_load(now, self.pc, a, eb as u32);
                let swizzled = swizzled(r * row_bytes + c * eb, span);
                out[swizzled..swizzled + eb].copy_from_slice(src);
                sources.push((a, swizzled as u32, eb as u32));
            }
        }
        Ok((out, sources))
    }

    /// Every active thread waits for the phase of parity `parity` of its mbarrier; the
    /// copies that complete it land.
    pub(super) fn mbarrier_wait(&mut self, mem: &Memory, bar: u32, parity: u32) -> Result<(), SimFault> {
        for t in 0..self.t {
            if !self.active(t) {
                continue;
            }
            let a = self.mbarrier_addr(bar, t)?;
            let p = self.get(Src::Reg(parity), t);
            let landed = self.mbarriers.wait(a, p).map_err(|e| self.mbarrier_fault(t, a, e))?;
            for c in landed {
                // The hardware may read the tensor at any time until the copy lands: a
                // global byte written in between makes the copy's bytes either value.
                for &(a, off, len) in &c.sources {
                    let now = mem.read_bytes(a, len as usize).ok();
                    if now != Some(&c.bytes[off as usize..(off + len) as usize]) {
                        return Err(SimFault::new(
                            Check::GlobalRace,
                            Some(t as u32),
                            format!(
                                "global bytes 0x{a:x}..0x{:x} were written between the tensor copy that reads them and the wait that lands it: the copy may see either value",
                                a + u64::from(len)
                            ),
                            "a tensor descriptor's loads in a pipelined loop must read memory the kernel does not write before the loop has read them",
                        )
                        .at(Address::Global(a)));
                    }
                }
                let n = c.bytes.len() as u32;
                self.copies.land_bulk(c.shared, n);
                self.shared[c.shared as usize..c.shared as usize + n as usize].copy_from_slice(&c.bytes);
            }
        }
        Ok(())
    }
}

/// Where byte `linear` of a box (its rows one after the other) lies in shared memory under
/// a `span`-byte swizzle: its 16-byte chunk `xor` the phase of its 128-byte line.
pub(super) fn swizzled(linear: usize, span: usize) -> usize {
    linear ^ (((linear >> 7) & (span / 16 - 1)) << 4)
}
