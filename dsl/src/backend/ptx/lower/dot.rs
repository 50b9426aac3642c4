//! Lowering of `dot` on CUDA cores: `f32` operands under `ieee`, and any `dot` whose
//! accumulator is not in the tensor-core layout (`mma.rs` lowers the others).
//!
//! Each thread owns its accumulator elements in the result's blocked layout (layout
//! assignment ties the accumulator to the result, `layout/assign.rs`). `a` (`[M, K]`) and
//! `b` (`[K, N]`) are written once to shared memory by their owners, each in its padded
//! row-major place (`exchange.rs`), after one barrier; then for `k = 0, 1, ..., K - 1`
//! each thread loads `a[m, k]` for each row `m` it owns and `b[k, n]` for each column `n`
//! (one load per distinct address per `k`) and updates each of its accumulators with one
//! `fma.rn.f32` (`f16`/`bf16` widened exactly first) or, for `i8`, `mul.lo.s32` and
//! `add.s32`: the interpreter's order (`interp/dot.rs`), so the two agree bit for bit. A
//! barrier after the last read lets the next exchange reuse the buffer.

use super::super::PtxError;
use super::Lowerer;
use super::exchange::{Place, Side, padded};
use crate::backend::ptx::layout::{MAX_REGS_PER_VALUE, MmaInput};
use crate::backend::ptx::lir::{BinOp, Inst, Operand, Ty};
use crate::diag::Code;
use crate::ir::{InputPrecision, Op, Value};

impl Lowerer<'_> {
    /// `acc + a @ b`, element by element in the result's layout.
    pub(super) fn dot(
        &mut self,
        op: &Op,
        [a, b, acc]: [Value; 3],
        precision: InputPrecision,
    ) -> Result<Vec<Operand>, PtxError> {
        let result = self.result(op)?;
        // A tensor-core `dot` reads its operands through `#dot_op` conversions, lowered
        // here: the fragments come from what they convert (`layout/dot_operand.rs`).
        let (a, b) = (self.operand_source(a), self.operand_source(b));
        // The accumulator's registers, on tensor cores or not.
        let geo = self.block_geometry(op, result)?;
        if geo.num_regs() > MAX_REGS_PER_VALUE {
            return Err(PtxError::new(
                Code::PtxRegisterBudget,
                &self.k.name,
                op.loc,
                format!(
                    "`dot` accumulates a {} block in {} registers per thread (the budget is {MAX_REGS_PER_VALUE} per value)",
                    self.k.ty(result),
                    geo.num_regs()
                ),
                "use smaller BLOCK_M x BLOCK_N tiles or more warps",
            ));
        }
        let elem = self.k.dtype(a).scalar();
        if let Some(input) = self.mma_input(result, a, elem.and_then(|s| MmaInput::of(s, precision))) {
            return self.dot_mma(op, [a, b, acc], input, geo);
        }
        let ty_in = super::ty_of(self.k.dtype(a));
        if precision == InputPrecision::Tf32 {
            return Err(self.err(
                op.loc,
                "dot with input_precision tf32 runs on tensor cores only, and this one's accumulator is not in the tensor-core layout",
                "use input_precision ieee here, or give the dot a result of its own (its accumulator shares its layout with every value it is tied to)",
            ));
        }
        let (a_shape, b_shape) = (self.k.shape(a).dims().to_vec(), self.k.shape(b).dims().to_vec());
        let (m, kk, n) = (a_shape[0], a_shape[1], b_shape[1]);
        let (a_strides, a_len) = padded(&a_shape);
        let (b_strides, b_len) = padded(&b_shape);
        let writes = vec![
            (
                Side {
                    shape: a_shape,
                    layout: self.layout(a).cloned(),
                    place: Place { strides: a_strides.clone(), offset: 0 },
                },
                self.val(a)?,
            ),
            (
                Side {
                    shape: b_shape,
                    layout: self.layout(b).cloned(),
                    place: Place { strides: b_strides.clone(), offset: a_len },
                },
                self.val(b)?,
            ),
        ];
        // Written by their owners, then a barrier; the reads below come after it.
        self.stage(op, self.k.dtype(a), a_len + b_len, writes)?;
        let layout = self.layout(result).cloned();
        let elem = super::exchange::shared_elem_bytes(ty_in);
        // Each accumulator's `a[m, 0]` and `b[0, n]`: a row of `a` per element (stride 0
        // along n), a column of `b` (stride 0 along m).
        let a_side = Side {
            shape: vec![m, n],
            layout: layout.clone(),
            place: Place { strides: vec![a_strides[0], 0], offset: 0 },
        };
        let b_side = Side { shape: vec![m, n], layout, place: Place { strides: vec![0, b_strides[1]], offset: a_len } };
        let (a_base, a_offs) = self.addresses(&a_side, elem);
        let (b_base, b_offs) = self.addresses(&b_side, elem);
        let mut accs = self.val(acc)?;
        if accs.len() != a_offs.len() {
            return Err(self.invariant(op, "reads an accumulator in another layout than its result"));
        }
        let sty = super::exchange::shared_ty(ty_in);
        for k in 0..kk {
            let mut a_regs = std::collections::HashMap::new();
            let mut b_regs = std::collections::HashMap::new();
            for (r, acc_r) in accs.iter_mut().enumerate() {
                let a_off = a_offs[r] + (k * a_strides[1] * elem) as u32;
                let b_off = b_offs[r] + (k * b_strides[0] * elem) as u32;
                let x = match a_regs.get(&a_off) {
                    Some(&x) => x,
                    None => {
                        let x = self.load_operand(sty, ty_in, a_base, a_off);
                        a_regs.insert(a_off, x);
                        x
                    }
                };
                let y = match b_regs.get(&b_off) {
                    Some(&y) => y,
                    None => {
                        let y = self.load_operand(sty, ty_in, b_base, b_off);
                        b_regs.insert(b_off, y);
                        y
                    }
                };
                *acc_r = if ty_in == Ty::S8 {
                    let p = self.bin(BinOp::Mul, Ty::I32, x, y);
                    let first = Operand::Reg(self.reg(*acc_r, Ty::I32));
                    self.bin(BinOp::Add, Ty::I32, first, p)
                } else {
                    let dst = self.new_reg(Ty::F32);
                    self.emit(Inst::Fma { ty: Ty::F32, dst, a: x, b: y, c: *acc_r });
                    Operand::Reg(dst)
                };
            }
        }
        self.emit(Inst::BarSync { id: 0 });
        Ok(accs)
    }

    /// One operand element from shared memory, as the accumulation reads it: `f32`, or
    /// `i32` for `i8` (a 32-bit register holds it sign-extended).
    fn load_operand(&mut self, sty: Ty, ty_in: Ty, base: crate::backend::ptx::lir::Reg, offset: u32) -> Operand {
        let dst = self.new_reg(sty);
        self.emit(Inst::LdShared { ty: sty, dst, addr: base, offset });
        match ty_in {
            Ty::S8 => self.convert(dst.into(), Ty::S8, Ty::I32),
            t => {
                let x = self.convert(dst.into(), t, Ty::F32);
                Operand::Reg(self.reg(x, Ty::F32))
            }
        }
    }
}
