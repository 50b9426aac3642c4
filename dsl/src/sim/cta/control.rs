//! `lir`'s uniform if and while in the lock-step CTA. Each thread takes its own path
//! (active masks, as for a loop whose trip count differs), and the uniformity invariant is
//! checked on the way: a condition that differs between the active lanes of one warp is
//! undefined behaviour of `bra.uni` ([`Check::DivergentBranch`]); one that differs between
//! warps runs, and a `bar.sync` or `shfl.sync` inside the branch that some thread skips is
//! reported by the barrier and shuffle checks.

use super::{Cta, Launch};
use crate::interp::Memory;
use crate::sim::error::{Check, SimFault};

impl Cta {
    /// The active threads whose predicate `cond` is true (`cond` read by every one of them),
    /// after checking that it is the same in every active lane of each warp.
    fn uniform_condition(&self, cond: u32, what: &str) -> Result<Vec<bool>, SimFault> {
        self.need_reg(cond)?;
        let mut taken = vec![false; self.t];
        for w in 0..self.t.div_ceil(32) {
            let mut first: Option<(usize, bool)> = None;
            let lanes = w * 32..((w + 1) * 32).min(self.t);
            for (t, slot) in lanes.clone().zip(&mut taken[lanes]) {
                if !self.active(t) {
                    continue;
                }
                let c = self.regs[cond as usize * self.t + t] != 0;
                *slot = c;
                match first {
                    None => first = Some((t, c)),
                    Some((t0, c0)) if c0 != c => {
                        return Err(SimFault::new(
                            Check::DivergentBranch,
                            Some(t as u32),
                            format!(
                                "the condition {} of a uniform {what} (bra.uni) is {c} in thread {t} but {c0} in thread {t0} of the same warp",
                                self.names[cond as usize]
                            ),
                            "branch and loop conditions must be the same in every thread: compute them from scalars only (block-IR scalars are uniform)",
                        ));
                    }
                    Some(_) => {}
                }
            }
        }
        Ok(taken)
    }

    /// Runs `start..end` with the threads of `mask` active (none: skipped).
    fn exec_masked(
        &mut self,
        l: &mut Launch<'_>,
        mem: &mut Memory,
        mask: &[bool],
        start: usize,
        end: usize,
    ) -> Result<(), SimFault> {
        if !mask.iter().any(|m| *m) {
            return Ok(());
        }
        self.active.copy_from_slice(mask);
        self.all_active = mask.iter().all(|m| *m);
        self.exec(l, mem, start, end)
    }

    /// `if cond { pc + 1 .. else_start } else { else_start .. end }`.
    pub(super) fn run_if(
        &mut self,
        l: &mut Launch<'_>,
        mem: &mut Memory,
        pc: usize,
        cond: u32,
        else_start: usize,
        end: usize,
    ) -> Result<(), SimFault> {
        let taken = self.uniform_condition(cond, "if")?;
        let outer: Vec<bool> = (0..self.t).map(|t| self.active(t)).collect();
        let outer_all = self.all_active;
        let then_mask: Vec<bool> = (0..self.t).map(|t| outer[t] && taken[t]).collect();
        let else_mask: Vec<bool> = (0..self.t).map(|t| outer[t] && !taken[t]).collect();
        self.exec_masked(l, mem, &then_mask, pc + 1, else_start)?;
        self.exec_masked(l, mem, &else_mask, else_start, end)?;
        self.pc = pc;
        self.active = outer;
        self.all_active = outer_all;
        Ok(())
    }

    /// `loop { pc + 1 .. after_start; if !cond break; after_start .. end }`, per thread.
    ///
    /// As in the interpreter (`interp/control.rs`), an iteration that brings the CTA back
    /// to a state it was in (registers, shared memory, the running threads, and no change
    /// of global memory since) would repeat forever, since the simulator runs one program
    /// at a time: it is reported ([`Check::NoProgress`]) instead.
    pub(super) fn run_while(
        &mut self,
        l: &mut Launch<'_>,
        mem: &mut Memory,
        pc: usize,
        cond: u32,
        after_start: usize,
        end: usize,
    ) -> Result<(), SimFault> {
        let outer: Vec<bool> = (0..self.t).map(|t| self.active(t)).collect();
        let outer_all = self.all_active;
        let mut running = outer.clone();
        let mut saved: Option<Saved> = None;
        let (mut since_saved, mut power) = (0u64, 1u64);
        while running.iter().any(|r| *r) {
            self.step(l, pc)?;
            self.exec_masked(l, mem, &running, pc + 1, after_start)?;
            self.pc = pc;
            let go = self.uniform_condition(cond, "while")?;
            for (r, g) in running.iter_mut().zip(&go) {
                *r &= *g;
            }
            self.exec_masked(l, mem, &running, after_start, end)?;
            self.pc = pc;
            if saved.as_ref().is_some_and(|s| s.same(self, mem, &running)) {
                return Err(SimFault::new(
                    Check::NoProgress,
                    None,
                    "the program spins in a while loop that can never end: an iteration left its registers, shared memory and global memory as they were, and the simulator runs one program at a time, so no other program can change them",
                    "a program that waits (a lock, a flag) must wait for an earlier program, never a later one: release every lock the program takes; on the GPU a wait for another program also needs both to be resident at once",
                ));
            }
            since_saved += 1;
            if since_saved == power {
                saved = Some(Saved::of(self, mem, &running));
                (since_saved, power) = (0, power * 2);
            }
        }
        self.active = outer;
        self.all_active = outer_all;
        Ok(())
    }
}

/// The state of a CTA in a while loop, for Brent's cycle detection (saved at iterations 1,
/// 2, 4, 8, ... and compared with each later one).
struct Saved {
    changes: u64,
    running: Vec<bool>,
    shared: Vec<u8>,
    regs: Vec<u64>,
}

impl Saved {
    fn of(cta: &Cta, mem: &Memory, running: &[bool]) -> Saved {
        Saved { changes: mem.changes(), running: running.to_vec(), shared: cta.shared.clone(), regs: cta.regs.clone() }
    }

    /// The cheap parts first: most loops change memory or a counter every iteration.
    fn same(&self, cta: &Cta, mem: &Memory, running: &[bool]) -> bool {
        self.changes == mem.changes() && self.running == running && self.shared == cta.shared && self.regs == cta.regs
    }
}
