//! The element-wise ops: one instruction (or a short sequence) per element a thread holds,
//! operands and result in one layout, so element `i` of every operand is register `i`.
//! Shifts and bitcasts are in `bits.rs`, conversions between the newer dtypes in
//! `convert.rs`, `fma` and the math functions' types in `math.rs`.

use super::{Lowerer, ty_of};
use crate::backend::ptx::PtxError;
use crate::backend::ptx::lir::{BinOp, Cmp, Inst, Operand, Ty};
use crate::ir::{BinaryOp, CmpPred, Op, PropagateNan, UnaryOp, Value};
use crate::semantics::bits::shifts_arithmetically;

impl Lowerer<'_> {
    pub(super) fn unary(&mut self, op: &Op, uop: UnaryOp, value: Value) -> Result<(), PtxError> {
        let r = self.result(op)?;
        let ty = ty_of(self.k.dtype(r));
        self.check_unary_type(op, uop, ty)?;
        let elems = self
            .val(value)?
            .into_iter()
            .map(|x| {
                let src = self.reg(x, ty);
                let dst = self.new_reg(ty);
                self.emit(Inst::Unary { op: uop, ty, dst, src });
                Operand::Reg(dst)
            })
            .collect();
        self.set(r, elems);
        Ok(())
    }

    pub(super) fn binary(&mut self, op: &Op, bop: BinaryOp, lhs: Value, rhs: Value) -> Result<(), PtxError> {
        let k = self.k;
        let r = self.result(op)?;
        let ty = ty_of(k.dtype(r));
        if let (BinaryOp::Shl | BinaryOp::Shr, Ty::I32 | Ty::I64 | Ty::U32 | Ty::U64) = (bop, ty) {
            let arithmetic = k.dtype(r).scalar().is_some_and(shifts_arithmetically);
            let (a, b) = (self.val(lhs)?, self.val(rhs)?);
            let left = bop == BinaryOp::Shl;
            let elems = a.iter().zip(&b).map(|(x, y)| self.shift(left, arithmetic, ty, *x, *y)).collect();
            self.set(r, elems);
            return Ok(());
        }
        let bin = match (bop, ty) {
            (BinaryOp::Add, Ty::I32 | Ty::I64 | Ty::F32 | Ty::U32 | Ty::U64 | Ty::F64) => BinOp::Add,
            (BinaryOp::Sub, Ty::I32 | Ty::I64 | Ty::F32 | Ty::U32 | Ty::U64 | Ty::F64) => BinOp::Sub,
            (BinaryOp::Mul, Ty::I32 | Ty::I64 | Ty::F32 | Ty::U32 | Ty::U64 | Ty::F64) => BinOp::Mul,
            (BinaryOp::Div, Ty::I32 | Ty::I64 | Ty::F32 | Ty::U32 | Ty::U64 | Ty::F64) => BinOp::Div,
            (BinaryOp::Rem, Ty::I32 | Ty::I64 | Ty::U32 | Ty::U64) => BinOp::Rem,
            (BinaryOp::Max(n), Ty::I32 | Ty::I64 | Ty::F32 | Ty::U32 | Ty::U64) => BinOp::Max(n),
            (BinaryOp::Min(n), Ty::I32 | Ty::I64 | Ty::F32 | Ty::U32 | Ty::U64) => BinOp::Min(n),
            (BinaryOp::Max(PropagateNan::None), Ty::F64) => BinOp::Max(PropagateNan::None),
            (BinaryOp::Min(PropagateNan::None), Ty::F64) => BinOp::Min(PropagateNan::None),
            // i1 arithmetic is one-bit: + and - are xor, * is and.
            (BinaryOp::Add | BinaryOp::Sub, Ty::Pred) => BinOp::Xor,
            (BinaryOp::Mul, Ty::Pred) => BinOp::And,
            (BinaryOp::And, Ty::I32 | Ty::I64 | Ty::Pred | Ty::U32 | Ty::U64) => BinOp::And,
            (BinaryOp::Or, Ty::I32 | Ty::I64 | Ty::Pred | Ty::U32 | Ty::U64) => BinOp::Or,
            (BinaryOp::Xor, Ty::I32 | Ty::I64 | Ty::Pred | Ty::U32 | Ty::U64) => BinOp::Xor,
            (BinaryOp::FDiv, Ty::F32) => BinOp::DivFull,
            (BinaryOp::UMulHi, Ty::I32 | Ty::I64 | Ty::U32 | Ty::U64) => BinOp::MulHiU,
            // `div.full` is f32 only (`div_rn` / `/` divide f64 exactly).
            (BinaryOp::FDiv, Ty::I32 | Ty::I64 | Ty::Pred | Ty::U32 | Ty::U64 | Ty::F64)
            | (BinaryOp::Rem, Ty::F32 | Ty::F64 | Ty::Pred)
            | (BinaryOp::Max(PropagateNan::All) | BinaryOp::Min(PropagateNan::All), Ty::F64)
            | (BinaryOp::Div | BinaryOp::Max(_) | BinaryOp::Min(_), Ty::Pred)
            | (BinaryOp::And | BinaryOp::Or | BinaryOp::Xor | BinaryOp::UMulHi, Ty::F32 | Ty::F64)
            | (BinaryOp::UMulHi, Ty::Pred)
            // Int shifts returned above; i1 and float shifts are refused by the verifier.
            | (BinaryOp::Shl | BinaryOp::Shr, _) => {
                let help = if matches!((bop, ty), (BinaryOp::Rem, Ty::F32 | Ty::F64)) {
                    // rtriton has no `trunc`: the quotient rounds toward zero with floor and ceil.
                    "compute the remainder with floor, ceil and where_: with q = x / y, \
                     x - where_(q.lt(0.0), ceil(q), floor(q)) * y (the sign of x, as C's fmod)"
                } else {
                    "compute it with supported ops"
                };
                return Err(self.err(
                    op.loc,
                    format!("`{}` on {} is not supported by the PTX back end", bop.name(), k.dtype(r)),
                    help,
                ));
            }
            // Storage types never reach arithmetic: the front end computes in their
            // computation type and the verifier checks it.
            (_, Ty::F16 | Ty::BF16 | Ty::S8 | Ty::U8 | Ty::S16) => {
                return Err(self.err(
                    op.loc,
                    format!("`{}` on the storage type {}", bop.name(), k.dtype(r)),
                    "convert to its computation type first (f16/bf16 compute in f32, i8/u8/i16 in i32)",
                ));
            }
        };
        let (a, b) = (self.val(lhs)?, self.val(rhs)?);
        // Scalar i64 products may be one `mul.wide.s32` (`wide_mul.rs` says why tensors of
        // products are not).
        if bin == BinOp::Mul
            && ty == Ty::I64
            && k.shape(r).is_scalar()
            && let (Some(x), Some(y)) = (a.first(), b.first())
            && let Some(w) = self.mul_wide(*x, *y)
        {
            self.set(r, vec![w]);
            return Ok(());
        }
        let elems = a.iter().zip(&b).map(|(x, y)| self.bin(bin, ty, *x, *y)).collect();
        self.set(r, elems);
        Ok(())
    }

    pub(super) fn compare(&mut self, op: &Op, pred: CmpPred, lhs: Value, rhs: Value) -> Result<(), PtxError> {
        let r = self.result(op)?;
        let ty = ty_of(self.k.dtype(lhs));
        let (a, b) = (self.val(lhs)?, self.val(rhs)?);
        if ty == Ty::Pred {
            // i1 compares as 0 < 1: eq = !(a ^ b), ne = a ^ b, lt = !a & b, ...
            let elems = a.iter().zip(&b).map(|(x, y)| self.compare_pred(pred, *x, *y)).collect();
            self.set(r, elems);
            return Ok(());
        }
        let cmp = match pred {
            CmpPred::Lt => Cmp::Lt,
            CmpPred::Le => Cmp::Le,
            CmpPred::Gt => Cmp::Gt,
            CmpPred::Ge => Cmp::Ge,
            CmpPred::Eq => Cmp::Eq,
            CmpPred::Ne => Cmp::Ne,
        };
        let elems = a.iter().zip(&b).map(|(x, y)| Operand::Reg(self.setp(cmp, ty, *x, *y))).collect();
        self.set(r, elems);
        Ok(())
    }

    fn not(&mut self, x: Operand) -> Operand {
        let src = self.reg(x, Ty::Pred);
        let dst = self.new_reg(Ty::Pred);
        self.emit(Inst::Not { dst, src });
        dst.into()
    }

    fn compare_pred(&mut self, pred: CmpPred, a: Operand, b: Operand) -> Operand {
        let p = Ty::Pred;
        match pred {
            CmpPred::Ne => self.bin(BinOp::Xor, p, a, b),
            CmpPred::Eq => {
                let x = self.bin(BinOp::Xor, p, a, b);
                self.not(x)
            }
            CmpPred::Lt | CmpPred::Ge => {
                let na = self.not(a);
                let lt = self.bin(BinOp::And, p, na, b);
                if pred == CmpPred::Lt { lt } else { self.not(lt) }
            }
            CmpPred::Gt | CmpPred::Le => {
                let nb = self.not(b);
                let gt = self.bin(BinOp::And, p, a, nb);
                if pred == CmpPred::Gt { gt } else { self.not(gt) }
            }
        }
    }

    /// `cast`: element by element to the result's register type.
    pub(super) fn cast_op(&mut self, op: &Op, v: Value) -> Result<(), PtxError> {
        let r = self.result(op)?;
        let (from_d, to_d) = (self.k.dtype(v), self.k.dtype(r));
        let (from, to) = (ty_of(from_d), ty_of(to_d));
        let src = self.val(v)?;
        let elems = match (from_d.scalar(), to_d.scalar()) {
            // an fp8 code shares u8's register type: its casts read the dtypes (lower/fp8.rs)
            (Some(f), Some(t)) if f != t && (f.fp8_format().is_some() || t.fp8_format().is_some()) => {
                src.into_iter().map(|x| self.fp8_cast(x, f, t, from, to)).collect()
            }
            // no fp8 side: the register types decide (dtypes, not an op kind)
            _ => src.into_iter().map(|x| self.cast(x, from, to)).collect(),
        };
        self.set(r, elems);
        Ok(())
    }

    pub(super) fn cast(&mut self, x: Operand, from: Ty, to: Ty) -> Operand {
        if from == to {
            return x;
        }
        let original = |t: Ty| matches!(t, Ty::Pred | Ty::I32 | Ty::I64 | Ty::F32);
        if !original(from) || !original(to) {
            return self.convert(x, from, to);
        }
        match (x, from, to) {
            (Operand::Int(c), Ty::I32 | Ty::I64, Ty::I64) => return Operand::Int(c),
            (Operand::Int(c), Ty::I64, Ty::I32) => return Operand::Int(i64::from(c as i32)),
            (Operand::Int(c), Ty::I32 | Ty::I64, Ty::F32) => return Operand::F32(c as f32),
            // not a foldable immediate (operand and register types, not an op kind)
            _ => {}
        }
        match (from, to) {
            (Ty::Pred, _) => {
                let c = self.reg(x, Ty::Pred);
                let dst = self.new_reg(to);
                let (one, zero) = if to == Ty::F32 {
                    (Operand::F32(1.0), Operand::F32(0.0))
                } else {
                    (Operand::Int(1), Operand::Int(0))
                };
                self.emit(Inst::Selp { ty: to, dst, a: one, b: zero, cond: c });
                dst.into()
            }
            (_, Ty::Pred) => {
                let zero = if from == Ty::F32 { Operand::F32(0.0) } else { Operand::Int(0) };
                Operand::Reg(self.setp(Cmp::Ne, from, x, zero))
            }
            // number to number: one cvt and the NaN rule (register types, not an op kind)
            _ => self.cvt(x, from, to),
        }
    }

    /// A promise for the analyses (AxisInfo): no instruction, the result is the operand's
    /// registers.
    pub(super) fn promise(&mut self, op: &Op, v: Value) -> Result<(), PtxError> {
        let r = self.result(op)?;
        let src = self.val(v)?;
        self.set(r, src);
        Ok(())
    }

    pub(super) fn bitcast_op(&mut self, op: &Op, v: Value) -> Result<(), PtxError> {
        let r = self.result(op)?;
        let (from, to) = (ty_of(self.k.dtype(v)), ty_of(self.k.dtype(r)));
        let src = self.val(v)?;
        let elems = src.into_iter().map(|x| self.bitcast(x, from, to)).collect();
        self.set(r, elems);
        Ok(())
    }

    /// `where(cond, on_true, on_false)`: `selp`, or `(c & t) | (!c & f)` on `i1`.
    pub(super) fn select(&mut self, op: &Op, [cond, on_true, on_false]: [Value; 3]) -> Result<(), PtxError> {
        let r = self.result(op)?;
        let ty = ty_of(self.k.dtype(r));
        let (c, t, f) = (self.val(cond)?, self.val(on_true)?, self.val(on_false)?);
        let mut elems = Vec::with_capacity(c.len());
        for i in 0..c.len() {
            let cr = self.reg(c[i], Ty::Pred);
            if ty == Ty::Pred {
                // (c & t) | (!c & f)
                let nc = self.new_reg(Ty::Pred);
                self.emit(Inst::Not { dst: nc, src: cr });
                let x = self.bin(BinOp::And, Ty::Pred, cr.into(), t[i]);
                let y = self.bin(BinOp::And, Ty::Pred, nc.into(), f[i]);
                elems.push(self.bin(BinOp::Or, Ty::Pred, x, y));
            } else {
                let dst = self.new_reg(ty);
                self.emit(Inst::Selp { ty, dst, a: t[i], b: f[i], cond: cr });
                elems.push(dst.into());
            }
        }
        self.set(r, elems);
        Ok(())
    }

    /// `ptr + offset` elements: the offset scaled to bytes (`mul.wide.s32` from a 32-bit
    /// register, a shift from a 64-bit one, folded for an immediate) added in 64 bits.
    pub(super) fn add_ptr(&mut self, op: &Op, ptr: Value, offset: Value) -> Result<(), PtxError> {
        let r = self.result(op)?;
        let elem = self.k.dtype(ptr).pointee().map_or(1, |s| s.size_bytes()) as i64;
        let oty = ty_of(self.k.dtype(offset));
        let (p, o) = (self.val(ptr)?, self.val(offset)?);
        let mut elems = Vec::with_capacity(p.len());
        for (pp, oo) in p.iter().zip(&o) {
            let bytes = match (*oo, oty) {
                (Operand::Int(c), _) => Operand::Int(c.wrapping_mul(elem)),
                (Operand::Reg(x), Ty::I32) => {
                    let dst = self.new_reg(Ty::I64);
                    self.emit(Inst::MulWide { dst, a: x.into(), b: Operand::Int(elem) });
                    dst.into()
                }
                (x, _) => self.bin(BinOp::Shl, Ty::I64, x, Operand::Int(elem.trailing_zeros().into())),
            };
            elems.push(match bytes {
                Operand::Int(0) => *pp,
                b => self.bin(BinOp::Add, Ty::I64, *pp, b),
            });
        }
        self.set(r, elems);
        Ok(())
    }
}
