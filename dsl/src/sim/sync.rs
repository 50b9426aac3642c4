//! Happens-before between the accesses of a launch, for the race checks: which accesses
//! of other programs a thread is known to come after.
//!
//! Inside a program, a thread's own earlier accesses and every access before the last
//! `bar.sync` (an earlier barrier *epoch*) come before its next one. Between programs
//! nothing is ordered, except through atomics with acquire and release semantics, the way
//! a lock orders the plain accesses it protects (the layer-norm backward of Triton's
//! tutorial 05: `while atomic_cas(lock, 0, 1) == 1 {}`, plain loads and stores, a
//! barrier, `atomic_xchg(lock, 0)`):
//! - an atomic *releases* when its `sem` is `release` or `acq_rel` and it writes (a
//!   compare-and-swap that fails only reads): the word then carries what the releasing
//!   thread knew, plus every access of its program in an earlier barrier epoch and the
//!   thread's own accesses so far (a [`Clock`]);
//! - an atomic *acquires* when its `sem` is `acquire` or `acq_rel`: the acquiring thread
//!   learns what the word carries; the other threads of its program learn it at their next
//!   `bar.sync` (which is how the lowering hands an atomic's result to the whole CTA);
//! - any atomic on the word keeps what the word carries (an RMW continues a release
//!   sequence, as in the PTX and C++ memory models); a plain store of it forgets it;
//! - `cta`-scoped atomics order nothing between programs (they are atomic only inside
//!   one CTA; two programs using one are reported by `Check::AtomicScope` anyway).
//!
//! Knowledge is transitive: a release hands on what the releasing thread had acquired, so
//! the n-th holder of a lock comes after every earlier holder's protected accesses.
//!
//! The simulator runs the programs one after another, so an access of another program is
//! either entirely before or entirely after all of the current program's accesses: the
//! checks ask whether the later access's thread knows the earlier access ([`Clock::covers`]).

use std::collections::BTreeMap;
use std::sync::Arc;

/// A program id (`[x, y, z]`).
pub(crate) type ProgramId = [u32; 3];

/// Where one access happened: its program and thread, the thread's barrier epoch (epochs
/// count every `bar.sync` of the launch, so they grow across programs too) and the
/// launch-wide instruction count at the access.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Stamp {
    pub program: ProgramId,
    pub thread: u32,
    pub epoch: u64,
    pub step: u64,
}

/// What is known of one program: every access in a barrier epoch before `epoch`, and the
/// accesses of each listed thread up to (and including) its step.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
struct Seen {
    epoch: u64,
    threads: Vec<(u32, u64)>,
}

impl Seen {
    fn join(&mut self, other: &Seen) {
        self.epoch = self.epoch.max(other.epoch);
        for &(t, step) in &other.threads {
            match self.threads.iter_mut().find(|(u, _)| *u == t) {
                Some((_, s)) => *s = (*s).max(step),
                None => self.threads.push((t, step)),
            }
        }
    }
}

/// The accesses of other programs known to come before a thread's next access (a vector
/// clock with one entry per program that released something the thread acquired).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct Clock(BTreeMap<ProgramId, Seen>);

impl Clock {
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// Whether the access at `s` is known.
    pub fn covers(&self, s: &Stamp) -> bool {
        self.0.get(&s.program).is_some_and(|seen| {
            s.epoch < seen.epoch || seen.threads.iter().any(|&(t, step)| t == s.thread && s.step <= step)
        })
    }

    /// Whether accesses of `program` by threads `threads` in epochs up to `epoch` and
    /// steps up to `step` are all known (a run of loads by several threads, or the atomics
    /// of several threads on one word).
    pub fn covers_threads(&self, program: ProgramId, threads: (u32, u32), epoch: u64, step: u64) -> bool {
        if threads.0 == threads.1 {
            return self.covers(&Stamp { program, thread: threads.0, epoch, step });
        }
        self.0.get(&program).is_some_and(|seen| epoch < seen.epoch)
    }

    pub fn join(&mut self, other: &Clock) {
        for (p, seen) in &other.0 {
            self.0.entry(*p).or_default().join(seen);
        }
    }

    /// Adds what a release at `s` hands on of its own program: every access in an earlier
    /// epoch, and the releasing thread's accesses so far.
    fn add_release(&mut self, s: &Stamp) {
        self.0.entry(s.program).or_default().join(&Seen { epoch: s.epoch, threads: vec![(s.thread, s.step)] });
    }
}

/// What the threads of the running program know of other programs: `common` to all of
/// them (joined at each `bar.sync`), plus what single threads acquired since the last one.
#[derive(Debug, Default)]
pub(crate) struct ProgramSync {
    common: Arc<Clock>,
    acquired: BTreeMap<u32, Clock>,
}

impl ProgramSync {
    /// A new program knows nothing of the others.
    pub fn start_program(&mut self) {
        self.common = Arc::default();
        self.acquired.clear();
    }

    /// Whether thread `t` knows the access at `s` (of another program).
    pub fn knows(&self, t: u32, s: &Stamp) -> bool {
        self.common.covers(s) || self.acquired.get(&t).is_some_and(|c| c.covers(s))
    }

    /// Whether thread `t` knows the accesses of `program` by `threads` up to `epoch` and
    /// `step`.
    pub fn knows_threads(&self, t: u32, program: ProgramId, threads: (u32, u32), epoch: u64, step: u64) -> bool {
        self.common.covers_threads(program, threads, epoch, step)
            || self.acquired.get(&t).is_some_and(|c| c.covers_threads(program, threads, epoch, step))
    }

    /// A `bar.sync`: what any thread acquired, every thread now knows.
    pub fn barrier(&mut self) {
        if self.acquired.is_empty() {
            return;
        }
        let common = Arc::make_mut(&mut self.common);
        for c in std::mem::take(&mut self.acquired).values() {
            common.join(c);
        }
    }

    /// Thread `t` acquires what a word carries.
    pub fn acquire(&mut self, t: u32, carried: &Clock) {
        if !carried.is_empty() {
            self.acquired.entry(t).or_default().join(carried);
        }
    }

    /// What a release at `s` (by this program) hands on: what its thread knows, and its
    /// own accesses before it.
    pub fn released(&self, s: &Stamp) -> Clock {
        let mut c = (*self.common).clone();
        if let Some(a) = self.acquired.get(&s.thread) {
            c.join(a);
        }
        c.add_release(s);
        c
    }

    /// What every thread of the program knows now; `None` when nothing (the common case,
    /// which records keep without an allocation).
    pub fn common(&self) -> Option<Arc<Clock>> {
        (!self.common.is_empty()).then(|| Arc::clone(&self.common))
    }
}

/// Whether an access at `now` (thread `now.thread` of the running program, which knows
/// `sync`) comes after the access at `earlier`.
pub(crate) fn ordered(sync: &ProgramSync, now: &Stamp, earlier: &Stamp) -> bool {
    if earlier.program == now.program {
        earlier.thread == now.thread || earlier.epoch < now.epoch
    } else {
        sync.knows(now.thread, earlier)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(program: u32, thread: u32, epoch: u64, step: u64) -> Stamp {
        Stamp { program: [program, 0, 0], thread, epoch, step }
    }

    #[test]
    fn a_release_hands_on_earlier_epochs_and_the_releasing_threads_accesses() {
        // Program 0: thread 3 stores at epoch 4, a barrier, thread 0 releases at epoch 5.
        let p0 = ProgramSync::default();
        let word = p0.released(&at(0, 0, 5, 100));
        // Program 1: thread 0 acquires; thread 7 learns at the next barrier.
        let mut p1 = ProgramSync::default();
        p1.acquire(0, &word);
        assert!(p1.knows(0, &at(0, 3, 4, 90)));
        assert!(!p1.knows(7, &at(0, 3, 4, 90)));
        // The releasing thread's own access in the release's epoch is known, another
        // thread's in that epoch is not, nor anything after the release.
        assert!(p1.knows(0, &at(0, 0, 5, 99)));
        assert!(!p1.knows(0, &at(0, 2, 5, 99)));
        assert!(!p1.knows(0, &at(0, 0, 5, 101)));
        p1.barrier();
        assert!(p1.knows(7, &at(0, 3, 4, 90)));
        assert!(p1.knows_threads(7, [0, 0, 0], (0, 127), 4, 95));
        assert!(!p1.knows_threads(7, [0, 0, 0], (0, 127), 5, 95));
        // Transitive: program 1's release carries program 0's accesses on.
        let word = p1.released(&at(1, 0, 9, 200));
        let mut p2 = ProgramSync::default();
        p2.acquire(0, &word);
        assert!(p2.knows(0, &at(0, 3, 4, 90)) && p2.knows(0, &at(1, 5, 8, 150)));
        assert!(!p2.knows(0, &at(2, 0, 0, 0)));
        p2.start_program();
        assert!(!p2.knows(0, &at(0, 3, 4, 90)) && p2.common().is_none());
    }

    #[test]
    fn inside_a_program_the_thread_or_a_barrier_orders() {
        let sync = ProgramSync::default();
        let now = at(1, 2, 6, 50);
        assert!(ordered(&sync, &now, &at(1, 2, 6, 40)));
        assert!(ordered(&sync, &now, &at(1, 9, 5, 40)));
        assert!(!ordered(&sync, &now, &at(1, 9, 6, 40)));
        assert!(!ordered(&sync, &now, &at(0, 2, 1, 1)));
    }
}
