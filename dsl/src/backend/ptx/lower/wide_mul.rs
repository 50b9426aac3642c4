//! 64-bit products of sign-extended 32-bit factors as one `mul.wide.s32`.
//!
//! Index math widens `i32` indices and strides to `i64` before it multiplies them
//! (`row.to::<i64>() * stride`, the promotion rules of `docs/semantics.md`), which lowers
//! to two `cvt.s64.s32` and a `mul.lo.s64`. ptxas does not see through the extensions: it
//! emits the full 64 x 64 product (an `IMAD.WIDE.U32` and two `IMAD`s for the high words,
//! after the shifts that make the sign words), where `mul.wide.s32` is one `IMAD.WIDE`.
//! The two are equal bit for bit: the product of two values in `[-2^31, 2^31)` lies in
//! `(-2^62, 2^62]` and never wraps in 64 bits. ptxas 12.9 for sm_90 on the f32 softmax
//! at 4096 columns: 16 SASS instructions fewer, 4 of them before the first load.
//!
//! Only scalar products take the wide form (`pid * stride`, `row * row_stride`: the
//! products a program computes once, before its first load). On tensors of products
//! (the element offsets of strided views, one per element) ptxas 12.9 allocated fewer
//! registers than it needed and spilled: the tutorial's layer-norm backward on strided
//! views, 512 columns on 2 warps, 64 registers and 8 bytes of spill for sm_86 where the
//! `cvt` form takes 72 and none (and 70 with scalar products wide);
//! `tests/tests/ports_ptxas.rs` checks every port for spills.
//!
//! The extension's source register is read at the product rather than at the `cvt`:
//! the same value, since every register the lowering defines is written once, except the
//! loop registers (induction variables, carried values, the unrolled loops' cursor),
//! which are written at the end of a loop body, after every instruction of the body that
//! reads them, and a value computed from one in a body is not read after it.

use super::Lowerer;
use crate::backend::ptx::lir::{Inst, Operand, Ty};

impl Lowerer<'_> {
    /// Scalar `a * b` as `mul.wide.s32` when each factor is a sign-extended `i32` register or an
    /// immediate in `i32`'s range, and at least one is a register; `None` otherwise.
    pub(super) fn mul_wide(&mut self, a: Operand, b: Operand) -> Option<Operand> {
        let narrow = |o: Operand| match o {
            Operand::Reg(r) => self.sign_extended.get(&r).map(|s| Operand::Reg(*s)),
            Operand::Int(c) => i32::try_from(c).ok().map(|c| Operand::Int(i64::from(c))),
            _ => None,
        };
        let (x, y) = (narrow(a)?, narrow(b)?);
        let (x, y) = match (x, y) {
            (Operand::Reg(_), _) => (x, y),
            (_, Operand::Reg(_)) => (y, x),
            _ => return None,
        };
        let dst = self.new_reg(Ty::I64);
        self.emit(Inst::MulWide { dst, a: x, b: y });
        Some(Operand::Reg(dst))
    }
}
