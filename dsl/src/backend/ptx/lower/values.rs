//! The ops that make values from no block operand: kernel arguments, constants, the
//! program's index and the grid size (special registers), and `arange` (each element's
//! coordinate, from the thread's position in the layout: `threads.rs`).

use super::{Lowerer, ty_of};
use crate::backend::ptx::PtxError;
use crate::backend::ptx::lir::{BinOp, Inst, Operand, Special, Ty};
use crate::ir::{Constant, Op};

impl Lowerer<'_> {
    /// Runtime argument `index`: `ld.param`, then `cvta.to.global` for a pointer.
    pub(super) fn param(&mut self, op: &Op, index: usize) -> Result<(), PtxError> {
        let r = self.result(op)?;
        let kind = self
            .k
            .params
            .get(index)
            .ok_or_else(|| self.invariant(op, "reads a parameter the kernel does not have"))?
            .kind;
        let ty = ty_of(kind.dtype());
        let dst = self.new_reg(ty);
        self.emit(Inst::LdParam { dst, param: index });
        let v = if kind.dtype().is_ptr() {
            let g = self.new_reg(Ty::I64);
            self.emit(Inst::CvtaGlobal { dst: g, src: dst });
            g
        } else {
            dst
        };
        self.set(r, vec![v.into()]);
        Ok(())
    }

    /// A constant: the immediate in every element (no instruction).
    pub(super) fn constant(&mut self, op: &Op, c: &Constant) -> Result<(), PtxError> {
        let r = self.result(op)?;
        let fp8 = self.k.dtype(r).scalar().and_then(crate::ir::ScalarType::fp8_format);
        let imm = match (c, fp8) {
            // an fp8 constant is its code (the interpreter encodes the value the same way)
            (c, Some(format)) => {
                let value = match c {
                    Constant::Bool(b) => f32::from(u8::from(*b)),
                    Constant::Int(v) => *v as f32,
                    Constant::F32(x) => *x,
                    Constant::F64(x) => *x as f32,
                };
                Operand::Int(i64::from(crate::semantics::fp8::encode_f32(format, value)))
            }
            (c, None) => match c {
                Constant::Bool(b) => Operand::Int(i64::from(*b)),
                Constant::Int(v) => Operand::Int(*v),
                Constant::F32(x) => Operand::F32(*x),
                Constant::F64(x) => Operand::F64(*x),
            },
        };
        let n = self.count(r);
        self.set(r, vec![imm; n]);
        Ok(())
    }

    /// `program_id` / `num_programs`: one read of the special register.
    pub(super) fn special(&mut self, op: &Op, sreg: Special) -> Result<(), PtxError> {
        let r = self.result(op)?;
        let dst = self.new_reg(Ty::I32);
        self.emit(Inst::ReadSpecial { dst, sreg });
        self.set(r, vec![dst.into()]);
        Ok(())
    }

    /// `arange(start, end)`: each element's coordinate along the block's one dim, plus
    /// `start`.
    pub(super) fn arange(&mut self, op: &Op, start: i64) -> Result<(), PtxError> {
        let r = self.result(op)?;
        let geo = self.block_geometry(op, r)?;
        let d = self.embed(op, r, 0)?;
        let mut elems = Vec::with_capacity(geo.num_regs());
        for i in 0..geo.num_regs() {
            let kd = geo.multi(i)[d];
            let c = self.coord(&geo, d, kd);
            elems.push(match c {
                Operand::Int(x) => Operand::Int(x + start),
                c if start == 0 => c,
                c => self.bin(BinOp::Add, Ty::I32, c, Operand::Int(start)),
            });
        }
        self.set(r, elems);
        Ok(())
    }
}
