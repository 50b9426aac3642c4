//! 64-bit values across 32-bit shuffles: `shfl.sync` moves `.b32` only, so a 64-bit
//! register is split into its halves (`mov.b64 {lo, hi}, x`), each half is shuffled with
//! the same lane mask, and the halves are joined again (`mov.b64 y, {lo, hi}`), as CUDA's
//! `__shfl_xor_sync` on a `long long` compiles. The PTX writer prints the two moves, the
//! simulator runs them ([`Inst::Unpack64`], [`Inst::Pack64`]). A 16-bit float register
//! rides in the low half of a 32-bit word the same way ([`Inst::Pack`], [`Inst::Unpack`]).

use super::Lowerer;
use crate::backend::ptx::lir::{Inst, Operand, Reg, Ty};

impl Lowerer<'_> {
    /// `src` (a 64-bit register of type `ty`) of lane `lane ^ lane_mask`.
    pub(super) fn shfl_wide(&mut self, ty: Ty, src: Reg, lane_mask: u32) -> Operand {
        let (lo, hi) = (self.new_reg(Ty::I32), self.new_reg(Ty::I32));
        self.emit(Inst::Unpack64 { ty, lo, hi, src });
        let lo = self.shfl(Ty::I32, lo.into(), lane_mask);
        let hi = self.shfl(Ty::I32, hi.into(), lane_mask);
        let (Operand::Reg(lo), Operand::Reg(hi)) = (lo, hi) else { unreachable!("a shuffle writes a register") };
        let dst = self.new_reg(ty);
        self.emit(Inst::Pack64 { ty, dst, lo, hi });
        dst.into()
    }

    /// An `f16`/`bf16` register shuffled as the low half of a 32-bit word (`shfl.sync`
    /// moves only `.b32`): packed, shuffled, unpacked, every bit kept.
    pub(super) fn shfl_half(&mut self, ty: Ty, src: Reg, lane_mask: u32) -> Operand {
        let word = self.new_reg(Ty::I32);
        self.emit(Inst::Pack { dst: word, lo: src, hi: src });
        let moved = self.shfl(Ty::I32, word.into(), lane_mask);
        let Operand::Reg(moved) = moved else { unreachable!("a shuffle writes a register") };
        let (lo, hi) = (self.new_reg(ty), self.new_reg(ty));
        self.emit(Inst::Unpack { lo, hi, src: moved });
        lo.into()
    }
}
