//! `cp.async`, `cp.async.wait_group` and the vector shared load that reads a staged slot
//! back. Global memory is read at the issue (with the bounds, alignment, race and sector
//! bookkeeping of a global load); shared memory is written at the wait that covers the
//! copy's group (`sim/async_copy.rs`), so reading the slot earlier is reported.

use super::{Cta, Launch};
use crate::backend::ptx::lir::Guard;
use crate::interp::Memory;
use crate::sim::async_copy::Copy;
use crate::sim::decode::Src;
use crate::sim::error::{Address, Check, SimFault};
use crate::sim::sectors::WarpAccesses;

impl Cta {
    pub(super) fn cp_async(
        &mut self,
        l: &mut Launch<'_>,
        mem: &Memory,
        guard: Option<Guard>,
        (dst, offset): (u32, u32),
        src: u32,
        src_size: Src,
    ) -> Result<(), SimFault> {
        let mut warps = WarpAccesses::default();
        for t in 0..self.t {
            if !self.active(t) || !self.guard_holds(guard, t) {
                continue;
            }
            let shared = self.shared_addr(dst, offset, 16, t)?;
            self.races.check_not_in_flight(t as u32, shared, 16)?;
            let mut bytes = [0u8; 16];
            let mut src_addr = None;
            match self.get(src_size, t) {
                0 => {}
                16 => {
                    let a = self.global_addr(mem, src, 0, 16, 1, t, "cp.async")?;
                    warps.add(t, a, 16);
                    l.report.global_load_bytes += 16;
                    l.report.global_loads += 1;
                    let now = self.stamp(l, t);
                    l.stores.load(&self.sync, now, a, 16)?;
                    l.stores.record_load(now, self.pc, a, 16);
                    bytes.copy_from_slice(mem.read_bytes(a, 16).expect("checked in bounds"));
                    src_addr = Some(a);
                }
                n => {
                    return Err(SimFault::new(
                        Check::Unsupported,
                        Some(t as u32),
                        format!("cp.async of {n} source bytes (the lowering copies 16 or 0)"),
                        "report this: the staged-load lowering sets src_size to 16 or 0",
                    ));
                }
            }
            self.copies.issue(t as u32, Copy { shared, bytes, src: src_addr })?;
        }
        let (requests, sectors) = warps.count();
        l.report.global_load_requests += requests;
        l.report.global_load_sectors += sectors;
        Ok(())
    }

    /// Every active thread's copies of all but its `pending` newest groups land in shared
    /// memory, written by that thread (for the race checks). The global bytes each read
    /// must still hold what they held at the issue: the GPU may copy them at any time
    /// until now.
    pub(super) fn cp_async_wait(&mut self, mem: &Memory, pending: u32) -> Result<(), SimFault> {
        for t in 0..self.t {
            if !self.active(t) {
                continue;
            }
            for c in self.copies.wait(t as u32, pending) {
                if let Some(a) = c.src
                    && mem.read_bytes(a, 16).ok() != Some(&c.bytes[..])
                {
                    return Err(SimFault::new(
                        Check::GlobalRace,
                        Some(t as u32),
                        format!(
                            "global bytes 0x{a:x}..0x{:x} were written between the cp.async that reads them and its wait: the copy may see either value",
                            a + 16
                        ),
                        "a staged load (load_staged) must read memory the kernel does not write before the value's first use; use load there",
                    )
                    .at(Address::Global(a)));
                }
                self.races.write(t as u32, c.shared, 16)?;
                self.shared[c.shared as usize..c.shared as usize + 16].copy_from_slice(&c.bytes);
            }
        }
        Ok(())
    }

    pub(super) fn ld_shared_vec(&mut self, size: u32, dsts: &[u32], addr: u32, offset: u32) -> Result<(), SimFault> {
        let total = size * dsts.len() as u32;
        for t in 0..self.t {
            if !self.active(t) {
                continue;
            }
            let a = self.shared_addr(addr, offset, total, t)?;
            self.copies.check(t as u32, a, total, "reads")?;
            self.races.read(t as u32, a, total)?;
            for (i, r) in dsts.iter().enumerate() {
                let at = (a + i as u32 * size) as usize;
                let mut buf = [0u8; 8];
                buf[..size as usize].copy_from_slice(&self.shared[at..at + size as usize]);
                self.set(*r, t, u64::from_le_bytes(buf));
            }
        }
        for r in dsts {
            self.wrote(*r);
        }
        Ok(())
    }
}
