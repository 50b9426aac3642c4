//! `for` loops with an unroll factor `U > 1` (`for_range_unrolled`, Triton's
//! `loop_unroll_factor`): the body is lowered `U` times into one trip of a main loop, so
//! the loads of `U` iterations are independent instructions of one basic block that ptxas
//! may issue before any of them is needed (it does not always: `docs/performance.md`,
//! "Several loads in flight"), and a remainder loop runs the last `trips mod U` iterations
//! one at a time.
//!
//! ```text
//! [if step is not a positive constant: an empty lir loop with that step: it aborts the
//!  launch on step <= 0, before anything runs, as every loop does]
//! trips = upper > lower ? (upper - lower - 1) /u step + 1 : 0     // 64-bit, exact
//! iv = lower
//! repeat trips / U times:  body(iv); body(iv + step); ...; body(iv + (U-1) step); iv += U step
//! repeat trips % U times:  body(iv); iv += step
//! ```
//!
//! The trip count is computed as the writer computes a loop's (in 64 bits from the
//! difference, unsigned), and both loops count trips in `i64` from 0 (`trips / U < 2^63`),
//! so no bound can overflow. The induction values `iv + j step` handed to the bodies are
//! those of real iterations (each below `upper`), so their wrapping adds are exact; only the
//! `iv` after the last trip may wrap, and nothing reads it. The iterations run in order, so
//! the results are the interpreter's.

use super::{Lowerer, ty_of};
use crate::backend::ptx::lir::{BinOp, Cmp, Group, Inst, Operand, Reg, Ty};
use crate::backend::ptx::{LoopDecision, PtxError};
use crate::ir::{Block, Op, OpKind, Value};

impl Lowerer<'_> {
    /// The registers that carry `init` around a loop (each element moved into its own).
    pub(super) fn carried_registers(&mut self, init: &[Value]) -> Result<Vec<Vec<Reg>>, PtxError> {
        let mut carried = Vec::new();
        for v in init {
            let ety = ty_of(self.k.dtype(*v));
            let regs: Vec<Reg> = self
                .val(*v)?
                .into_iter()
                .map(|x| {
                    let r = self.new_reg(ety);
                    self.emit(Inst::Mov { ty: ety, dst: r, src: x });
                    r
                })
                .collect();
            carried.push(regs);
        }
        Ok(carried)
    }

    /// `x` of the loop type `ty` as an `I64` operand.
    fn widened(&mut self, x: Operand, ty: Ty) -> Operand {
        if ty == Ty::I64 { x } else { self.cast(x, ty, Ty::I64) }
    }

    /// `x / d` (unsigned, `I64` operand, `d` a positive constant or a register).
    fn div_u64(&mut self, x: Operand, d: Operand) -> Operand {
        match d {
            Operand::Int(c) if c > 0 && (c as u64).is_power_of_two() => {
                self.bin(BinOp::ShrU, Ty::I64, x, Operand::Int(c.trailing_zeros().into()))
            }
            d => {
                let x = self.reg(x, Ty::I64);
                let dst = self.new_reg(Ty::U64);
                self.emit(Inst::Bin { op: BinOp::Div, ty: Ty::U64, dst, a: x.into(), b: d });
                dst.into()
            }
        }
    }

    /// One body copy: the induction value `iv`, the carried registers in and out.
    fn body_copy(&mut self, body: &Block, iv: Operand, carried: &[Vec<Reg>]) -> Result<(), PtxError> {
        self.set(body.args[0], vec![iv]);
        for (arg, regs) in body.args[1..].iter().zip(carried) {
            self.set(*arg, regs.iter().map(|r| (*r).into()).collect());
        }
        self.block(body)?;
        if let Some(OpKind::Yield { values: ys }) = body.ops.last().map(|l| &self.k.op(*l).kind) {
            self.yield_into(carried, ys)?;
        }
        Ok(())
    }

    /// A counted loop of `trips` (an `I64` operand) trips whose body is `copies` copies of
    /// `body` at `cur`, `cur + step`, ..., then `cur += copies * step`.
    fn copies_loop(
        &mut self,
        ty: Ty,
        (cur, step): (Reg, Operand),
        trips: Operand,
        copies: u32,
        body: &Block,
        carried: &[Vec<Reg>],
    ) -> Result<(), PtxError> {
        let outer = std::mem::take(&mut self.out);
        let mut iv = Operand::Reg(cur);
        for j in 0..copies {
            if j > 0 {
                iv = self.bin(BinOp::Add, ty, iv, step);
            }
            self.body_copy(body, iv, carried)?;
        }
        let next = self.bin(BinOp::Add, ty, iv, step);
        self.emit(Inst::Mov { ty, dst: cur, src: next });
        let inner = std::mem::replace(&mut self.out, outer);
        let counter = self.new_reg(Ty::I64);
        self.emit(Inst::Loop {
            ty: Ty::I64,
            iv: counter,
            lower: Operand::Int(0),
            upper: trips,
            step: Operand::Int(1),
            body: inner,
        });
        Ok(())
    }

    /// `for` with `unroll > 1` copies of the body per main-loop trip (see the module doc).
    pub(super) fn unrolled_loop(
        &mut self,
        op: &Op,
        [lower, upper, step]: [Value; 3],
        init: &[Value],
        body: &Block,
        unroll: u32,
    ) -> Result<(), PtxError> {
        let ty = ty_of(self.k.dtype(lower));
        let (lo, hi, st) = (self.first(lower)?, self.first(upper)?, self.first(step)?);
        let constant_step = matches!(st, Operand::Int(c) if c > 0);
        if !constant_step {
            // An empty loop with the runtime step: its step check aborts on step <= 0
            // before any body runs, exactly where a plain loop would.
            let guard = self.new_reg(ty);
            self.emit(Inst::Loop {
                ty,
                iv: guard,
                lower: Operand::Int(0),
                upper: Operand::Int(0),
                step: st,
                body: vec![],
            });
        }
        let (lo64, hi64, st64) = (self.widened(lo, ty), self.widened(hi, ty), self.widened(st, ty));
        let nonempty = self.setp(Cmp::Gt, Ty::I64, hi64, lo64);
        let span = self.bin(BinOp::Sub, Ty::I64, hi64, lo64);
        let span = self.bin(BinOp::Sub, Ty::I64, span, Operand::Int(1));
        let whole = self.div_u64(span, st64);
        let trips_if_nonempty = self.bin(BinOp::Add, Ty::I64, whole, Operand::Int(1));
        let trips = self.new_reg(Ty::I64);
        self.emit(Inst::Selp { ty: Ty::I64, dst: trips, a: trips_if_nonempty, b: Operand::Int(0), cond: nonempty });
        let main = self.div_u64(trips.into(), Operand::Int(i64::from(unroll)));
        let done = self.bin(BinOp::Mul, Ty::I64, main, Operand::Int(i64::from(unroll)));
        let rest = self.bin(BinOp::Sub, Ty::I64, trips.into(), done);

        let carried = self.carried_registers(init)?;
        let cur = self.new_reg(ty);
        self.emit(Inst::Mov { ty, dst: cur, src: lo });
        // One decision per access of the source, as for a plain loop: every copy appends
        // the same ones, so the main loop's are cut to one copy's and the remainder's dropped.
        let before = self.decisions.lens();
        self.copies_loop(ty, (cur, st), main, unroll, body, &carried)?;
        let after = self.decisions.lens();
        let one_copy: Vec<usize> = before.iter().zip(&after).map(|(b, a)| b + (a - b) / unroll as usize).collect();
        self.decisions.truncate(&one_copy);
        self.copies_loop(ty, (cur, st), rest, 1, body, &carried)?;
        self.decisions.truncate(&one_copy);
        self.decisions.loops.push(LoopDecision {
            loc: op.loc,
            unroll,
            reason: format!(
                "{unroll} copies of the body per trip of the main loop (trips / {unroll} trips), then a remainder loop of trips % {unroll}"
            ),
        });
        self.emit(Inst::Group(Group::at("end for", op.loc)));
        for (r, regs) in op.results.iter().zip(&carried) {
            self.set(*r, regs.iter().map(|x| (*x).into()).collect());
        }
        Ok(())
    }
}
