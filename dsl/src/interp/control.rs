//! Runs `if` and `while` (the regions of `OpKind::If` / `OpKind::While`) for one program.
//! The condition is a scalar `i1`, so the whole program takes one branch; the semantics
//! are in `docs/semantics.md` ("Runtime control flow").

use crate::ir::{Block, OpId, Value};

use super::eval::{OpTrap, ProgramRun};
use super::memory::Memory;
use super::value::{Data, Trap};

/// The single element of a scalar `i1` condition.
fn condition(d: &Data) -> Result<bool, Trap> {
    match d {
        Data::Bool(v) if v.len() == 1 => Ok(v[0]),
        // an int, a float or a block (data, not an op kind); the verifier refuses these
        _ => Err(Trap::Unsupported("a branch or loop condition that is not a scalar i1".into())),
    }
}

impl ProgramRun<'_> {
    /// `if cond { then } else { else }`: runs one block and binds the op's results to
    /// what it yields.
    pub(super) fn if_op(
        &mut self,
        id: OpId,
        cond: Value,
        then_body: &Block,
        else_body: &Block,
        mem: &mut Memory,
    ) -> Result<(), OpTrap> {
        let at = |t| (id, t);
        let taken = self.get(cond).and_then(condition).map_err(at)?;
        let yielded = self.block(if taken { then_body } else { else_body }, mem)?;
        self.bind_results(id, yielded)
    }

    /// `while before(carried) { carried = after(carried) }`: the condition block runs with
    /// the carried values, then the body block if it yielded true; the results are the
    /// carried values the condition was first false for.
    ///
    /// A loop that never ends is reported instead of run forever: programs run one at a
    /// time, so an iteration after which the carried values and memory are as they were at
    /// an earlier one (Brent's cycle detection: the state is saved at iterations 1, 2, 4,
    /// 8, ... and compared with each later one) repeats forever. That is a program waiting
    /// for another (a lock another program holds), or a loop that does not advance.
    pub(super) fn while_loop(
        &mut self,
        id: OpId,
        init: &[Value],
        before: &Block,
        after: &Block,
        mem: &mut Memory,
    ) -> Result<(), OpTrap> {
        let at = |t| (id, t);
        if before.args.len() != init.len() || after.args.len() != init.len() {
            return Err(at(Trap::Unsupported("a while whose blocks do not take its carried values".into())));
        }
        let mut carried: Vec<Data> =
            init.iter().map(|v| self.get(*v).cloned()).collect::<Result<_, _>>().map_err(at)?;
        let mut saved: Option<(Vec<Data>, u64)> = None;
        let (mut since_saved, mut power) = (0u64, 1u64);
        loop {
            self.step().map_err(at)?;
            for (arg, value) in before.args.iter().zip(&carried) {
                self.set(*arg, value.clone()).map_err(at)?;
            }
            let go = match self.block(before, mem)?.as_deref() {
                Some([c]) => condition(c).map_err(at)?,
                // a condition block that does not yield one value (not an op kind)
                _ => return Err(at(Trap::Unsupported("a while condition block that does not yield one i1".into()))),
            };
            if !go {
                break;
            }
            for (arg, value) in after.args.iter().zip(carried) {
                self.set(*arg, value).map_err(at)?;
            }
            carried = match self.block(after, mem)? {
                Some(next) if next.len() == init.len() => next,
                // a body without a final yield of the right arity (not an op kind)
                _ => return Err(at(Trap::Unsupported("a while body that does not yield its carried values".into()))),
            };
            let repeated = saved.as_ref().is_some_and(|(values, changes)| {
                *changes == mem.changes() && values.iter().zip(&carried).all(|(a, b)| a.same_bits(b))
            });
            if repeated {
                return Err(at(Trap::NoProgress));
            }
            since_saved += 1;
            if since_saved == power {
                saved = Some((carried.clone(), mem.changes()));
                (since_saved, power) = (0, power * 2);
            }
        }
        self.bind_results(id, Some(carried))
    }

    /// Binds op `id`'s results to the values its region yielded.
    fn bind_results(&mut self, id: OpId, yielded: Option<Vec<Data>>) -> Result<(), OpTrap> {
        let results = self.kernel.op(id).results.clone();
        let values = match yielded {
            Some(v) if v.len() == results.len() => v,
            // a region without a final yield of the right arity (not an op kind)
            _ => return Err((id, Trap::Unsupported("a region that does not yield the op's results".into()))),
        };
        for (r, v) in results.iter().zip(values) {
            self.set(*r, v).map_err(|t| (id, t))?;
        }
        Ok(())
    }
}
