//! The tensor copies and mbarriers (`Inst::Tma`) as PTX: one line each, but the wait, a
//! `try_wait.parity` loop with a label of its own.

use super::Writer;
use crate::backend::ptx::lir::{Guard, Operand, TmaOp, Ty};
use crate::backend::ptx::tensor_map::TensorMap;

impl Writer<'_> {
    /// The line of `op` (for a wait, the `try_wait` the loop repeats; its predicate is
    /// `%tw`, declared by the loop's scope).
    pub(super) fn tma_line(&self, guard: Option<Guard>, op: &TmaOp) -> String {
        let g = self.guard(guard);
        match op {
            TmaOp::Init { bar, count } => format!("{g}mbarrier.init.shared::cta.b64 [{}], {count};", self.reg(*bar)),
            TmaOp::FenceInit => format!("{g}fence.mbarrier_init.release.cluster;"),
            TmaOp::ArriveExpectTx { bar, bytes } => {
                format!("{g}mbarrier.arrive.expect_tx.shared::cta.b64 _, [{}], {bytes};", self.reg(*bar))
            }
            TmaOp::Load { dst, map_addr, coords, bar, .. } => {
                let coords: Vec<String> = coords.iter().map(|c| self.opnd(*c, Ty::I32)).collect();
                format!(
                    "{g}cp.async.bulk.tensor.{}d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [{}], [{}, {{{}}}], [{}];",
                    coords.len(),
                    self.reg(*dst),
                    self.reg(*map_addr),
                    coords.join(", "),
                    self.reg(*bar)
                )
            }
            TmaOp::Wait { bar, parity } => format!(
                "{g}mbarrier.try_wait.parity.shared::cta.b64 %tw, [{}], {};",
                self.reg(*bar),
                self.opnd(Operand::Reg(*parity), Ty::I32)
            ),
            TmaOp::Store { src, map_addr, coords, .. } => {
                let coords: Vec<String> = coords.iter().map(|c| self.opnd(*c, Ty::I32)).collect();
                format!(
                    "{g}cp.async.bulk.tensor.{}d.global.shared::cta.bulk_group [{}, {{{}}}], [{}];",
                    coords.len(),
                    self.reg(*map_addr),
                    coords.join(", "),
                    self.reg(*src)
                )
            }
            TmaOp::StoreCommit => format!("{g}cp.async.bulk.commit_group;"),
            TmaOp::StoreWaitRead { pending } => format!("{g}cp.async.bulk.wait_group.read {pending};"),
            TmaOp::MapAddr { dst, map } => {
                format!(
                    "{g}cvta.param.u64 {}, {};",
                    self.reg(*dst),
                    TensorMap::param_name(&self.p.entry, *map as usize)
                )
            }
        }
    }

    /// A wait: `try_wait` until the phase has completed (it returns false after a
    /// time-out the hardware chooses, so it loops).
    pub(super) fn tma_wait(&mut self, guard: Option<Guard>, op: &TmaOp, d: usize) {
        let label = format!("$L__mbar_wait_{}", self.branches);
        self.branches += 1;
        self.line(d, "{");
        self.line(d + 1, ".reg .pred %tw;");
        self.out.push_str(&format!("{label}:\n"));
        let line = self.tma_line(guard, op);
        self.line(d + 1, &line);
        self.line(d + 1, &format!("@!%tw bra {label};"));
        self.line(d, "}");
    }
}
