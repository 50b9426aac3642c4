//! Lowering of the control-flow ops: `for` to `lir`'s [`Inst::Loop`] (with an unroll
//! factor: `unroll.rs`), the runtime `if` and `while` to its uniform [`Inst::If`] and
//! [`Inst::While`].
//!
//! Conditions are block-IR scalars, which every thread of the CTA computes alike (a scalar
//! is one register per thread holding the same value), so the branches are uniform and
//! barriers and shuffles inside them are reached by every thread: the invariant `lir`
//! documents and the simulator checks. Values leave a branch or a loop through registers:
//! an `if`'s results are fresh registers both branches write at their end; a `while`'s
//! carried values are registers written before the loop and at the end of its body.

use super::{Lowerer, ty_of};
use crate::backend::ptx::PtxError;
use crate::backend::ptx::lir::{Group, Inst, Operand, Reg, Ty};
use crate::ir::{Block, Op, OpId, OpKind, Value};

impl Lowerer<'_> {
    /// `if cond { then } else { else }` with the op's results in new registers.
    pub(super) fn if_op(&mut self, op: &Op, cond: Value, then_body: &Block, else_body: &Block) -> Result<(), PtxError> {
        let c = self.first(cond)?;
        let c = self.reg(c, Ty::Pred);
        let results: Vec<Vec<Reg>> = op
            .results
            .iter()
            .map(|r| {
                let ty = ty_of(self.k.dtype(*r));
                (0..self.count(*r)).map(|_| self.new_reg(ty)).collect()
            })
            .collect();
        let then_insts = self.region(then_body, &results)?;
        let else_insts = self.region(else_body, &results)?;
        self.emit(Inst::If { cond: c, then_body: then_insts, else_body: else_insts });
        self.emit(Inst::Group(Group::at("end if", op.loc)));
        for (r, regs) in op.results.iter().zip(results) {
            self.set(*r, regs.into_iter().map(Operand::Reg).collect());
        }
        Ok(())
    }

    /// `while before(carried) { carried = after(carried) }`: the carried values live in
    /// registers that both blocks read and the body's yield overwrites.
    pub(super) fn while_loop(
        &mut self,
        op: &Op,
        init: &[Value],
        before: &Block,
        after: &Block,
    ) -> Result<(), PtxError> {
        let mut carried: Vec<Vec<Reg>> = Vec::new();
        for (i, v) in init.iter().enumerate() {
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
            let elems: Vec<Operand> = regs.iter().map(|r| Operand::Reg(*r)).collect();
            for block in [before, after] {
                if let Some(arg) = block.args.get(i) {
                    self.set(*arg, elems.clone());
                }
            }
            carried.push(regs);
        }
        let outer = std::mem::take(&mut self.out);
        self.block(before)?;
        let cond = match self.k.yielded(before) {
            Some([c]) => self.first(*c)?,
            // the verifier requires one condition (a slice pattern, not an op kind)
            _ => return Err(self.invariant(op, "has a condition block that does not yield one i1")),
        };
        let cond = self.reg(cond, Ty::Pred);
        let before_insts = std::mem::take(&mut self.out);
        self.block(after)?;
        if let Some(ys) = self.k.yielded(after) {
            self.yield_into(&carried, ys)?;
        }
        let after_insts = std::mem::replace(&mut self.out, outer);
        self.emit(Inst::While { before: before_insts, cond, after: after_insts });
        self.emit(Inst::Group(Group::at("end while", op.loc)));
        for (r, regs) in op.results.iter().zip(carried) {
            self.set(*r, regs.into_iter().map(Operand::Reg).collect());
        }
        Ok(())
    }

    /// Lowers an `if` branch into its own instruction list, ending with the moves of what it
    /// yields into the `if`'s result registers.
    fn region(&mut self, body: &Block, results: &[Vec<Reg>]) -> Result<Vec<Inst>, PtxError> {
        let outer = std::mem::take(&mut self.out);
        self.block(body)?;
        if let Some(ys) = self.k.yielded(body) {
            // The result registers are fresh: no yielded value can be one of them, so the
            // moves need no temporaries.
            for (regs, y) in results.iter().zip(ys) {
                let ty = ty_of(self.k.dtype(*y));
                for (dst, src) in regs.iter().zip(self.val(*y)?) {
                    self.emit(Inst::Mov { ty, dst: *dst, src });
                }
            }
        }
        Ok(std::mem::replace(&mut self.out, outer))
    }

    /// The yield at the end of a loop body: the next carried values into the carried
    /// registers, as a parallel move (through temporaries when a yielded value is itself a
    /// carried register). Shared by `for` and `while`.
    pub(super) fn yield_into(&mut self, carried: &[Vec<Reg>], ys: &[Value]) -> Result<(), PtxError> {
        let all: Vec<Reg> = carried.iter().flatten().copied().collect();
        let mut moves: Vec<(Ty, Reg, Operand)> = Vec::new();
        for (i, y) in ys.iter().enumerate() {
            let ety = ty_of(self.k.dtype(*y));
            for (dst, src) in carried[i].iter().zip(self.val(*y)?) {
                if src != Operand::Reg(*dst) {
                    moves.push((ety, *dst, src));
                }
            }
        }
        let conflict = moves.iter().any(|(_, _, s)| matches!(s, Operand::Reg(r) if all.contains(r)));
        if conflict {
            let temps: Vec<Reg> = moves
                .iter()
                .map(|(t, _, s)| {
                    let r = self.new_reg(*t);
                    self.emit(Inst::Mov { ty: *t, dst: r, src: *s });
                    r
                })
                .collect();
            for ((t, d, _), tmp) in moves.iter().zip(temps) {
                self.emit(Inst::Mov { ty: *t, dst: *d, src: tmp.into() });
            }
        } else {
            for (t, d, s) in moves {
                self.emit(Inst::Mov { ty: t, dst: d, src: s });
            }
        }
        Ok(())
    }

    /// `for`: a plain loop, or `unroll` copies of the body per trip (`unroll.rs`).
    pub(super) fn for_op(
        &mut self,
        op: &Op,
        bounds: [Value; 3],
        init: &[Value],
        body: &Block,
        unroll: u32,
    ) -> Result<(), PtxError> {
        // A body's first ring read waits whether the copies it needs came before the loop
        // or from the previous iteration.
        self.ring_synced = false;
        let in_flight = self.wgmma.in_flight(self.k, body);
        if unroll > 1 {
            self.unrolled_loop(op, bounds, init, body, unroll)?;
        } else if let Some(dot) = in_flight {
            // A `wgmma` in flight across iterations (`wgmma.rs`): the copies into the
            // rings move after it, where its barrier has freed the slots they refill.
            let copies: Vec<OpId> =
                body.ops.iter().copied().filter(|&id| matches!(self.k.op(id).kind, OpKind::AsyncCopy { .. })).collect();
            let mut ops: Vec<OpId> = Vec::with_capacity(body.ops.len());
            for &id in &body.ops {
                if !copies.contains(&id) {
                    ops.push(id);
                }
                if id == dot {
                    ops.extend(&copies);
                }
            }
            let body = Block { args: body.args.clone(), ops };
            self.for_loop(op, bounds, init, &body)?;
            self.emit(Inst::WgmmaWait { pending: 0 });
        } else {
            self.for_loop(op, bounds, init, body)?;
        }
        self.ring_synced = false;
        // The copies a pipelined loop issued for iterations past its last are still in
        // flight (zero fills of masked-off tiles): none is left running past the loop.
        if body.ops.iter().any(|&id| matches!(self.k.op(id).kind, OpKind::AsyncCopy { .. })) {
            self.close_rings();
        }
        Ok(())
    }

    /// `for iv in (lower..upper).step_by(step)`: one `lir` loop whose carried values live in
    /// registers the body's yield overwrites.
    fn for_loop(
        &mut self,
        op: &Op,
        [lower, upper, step]: [Value; 3],
        init: &[Value],
        body: &Block,
    ) -> Result<(), PtxError> {
        let ty = ty_of(self.k.dtype(lower));
        let (lo, hi, st) = (self.first(lower)?, self.first(upper)?, self.first(step)?);
        let iv = self.new_reg(ty);
        let [iv_arg, carried_args @ ..] = &body.args[..] else {
            return Err(self.invariant(op, "has a body without an induction variable"));
        };
        self.set(*iv_arg, vec![iv.into()]);
        let carried = self.carried_registers(init)?;
        for (arg, regs) in carried_args.iter().zip(&carried) {
            self.set(*arg, regs.iter().map(|r| (*r).into()).collect());
        }
        let outer = std::mem::take(&mut self.out);
        self.block(body)?;
        // The yield: next carried values into the carried registers (a parallel move).
        if let Some(OpKind::Yield { values: ys }) = body.ops.last().map(|l| &self.k.op(*l).kind) {
            self.yield_into(&carried, ys)?;
        }
        let inner = std::mem::replace(&mut self.out, outer);
        self.emit(Inst::Loop { ty, iv, lower: lo, upper: hi, step: st, body: inner });
        self.emit(Inst::Group(Group::at("end for", op.loc)));
        for (r, regs) in op.results.iter().zip(&carried) {
            self.set(*r, regs.iter().map(|x| (*x).into()).collect());
        }
        Ok(())
    }
}
