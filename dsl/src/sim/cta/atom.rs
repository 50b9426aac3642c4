//! `atom`: each thread whose guard holds applies its atomic completely before the next
//! thread (threads in index order), with the element functions the interpreter uses
//! (`semantics::atomic`), and the race bookkeeping records the access as atomic and applies
//! its acquire and release semantics (`sim/sync.rs`).

use super::Cta;
use super::Launch;
use crate::backend::ptx::lir::{AtomOp, Guard};
use crate::interp::Memory;
use crate::ir::{Scope, Sem};
use crate::semantics::atomic::{cas_bits, rmw_bits};
use crate::sim::decode::Src;
use crate::sim::error::SimFault;

impl Cta {
    #[allow(clippy::too_many_arguments, reason = "one decoded instruction's fields")]
    pub(super) fn atom(
        &mut self,
        l: &mut Launch<'_>,
        mem: &mut Memory,
        guard: Option<Guard>,
        (op, size, sem, scope): (AtomOp, u32, Sem, Scope),
        dst: u32,
        addr: u32,
        src: u32,
    ) -> Result<(), SimFault> {
        let width = size * 8;
        let partial = guard.is_some() || !self.all_active;
        for t in 0..self.t {
            if !self.active(t) || !self.guard_holds(guard, t) {
                continue;
            }
            let a = self.global_addr(mem, addr, 0, size, 1, t, "atomic")?;
            let now = self.stamp(l, t);
            l.stores.atomic(&self.sync, now, a, size, scope)?;
            let bytes = mem.read_bytes(a, size as usize).expect("checked in bounds");
            let mut buf = [0u8; 8];
            buf[..size as usize].copy_from_slice(bytes);
            let old = u64::from_le_bytes(buf);
            let val = self.get(Src::Reg(src), t);
            // A compare-and-swap whose comparison fails only reads: it releases nothing.
            let (new, wrote) = match op {
                AtomOp::Rmw(kind) => (rmw_bits(kind, width, old, val), true),
                AtomOp::Cas { cmp } => {
                    let cmp = self.get(Src::Reg(cmp.0), t);
                    let mask = if width == 64 { u64::MAX } else { (1u64 << width) - 1 };
                    (cas_bits(width, old, cmp, val), old == cmp & mask)
                }
            };
            mem.write_bytes(a, &new.to_le_bytes()[..size as usize]).expect("checked in bounds");
            l.stores.atomics.synchronize(&mut self.sync, now, a, size, (sem, scope), wrote);
            self.set(dst, t, old);
            if partial {
                self.wrote_one(dst, t);
            }
            l.report.global_atomics += 1;
        }
        if !partial {
            self.wrote(dst);
        } else if !self.written_all[dst as usize] {
            self.settle(dst as usize);
        }
        Ok(())
    }
}
