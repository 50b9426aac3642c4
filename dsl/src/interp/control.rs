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
    /// carried values the condition was first false for. A loop that never ends does not
    /// end here either (as on the GPU).
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
        loop {
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
