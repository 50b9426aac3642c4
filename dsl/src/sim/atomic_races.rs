//! Bookkeeping of the atomics of one launch, for the race checks in [`super::checks`]:
//! which global words were accessed atomically, by which programs and threads, and what
//! each word carries for the acquire/release synchronization of `sync.rs`. Atomics among
//! themselves never race (that is what they are for), unless one is `cta`-scoped and
//! another program touches the same word ([`Check::AtomicScope`]); a plain load or store
//! of a word that another thread accesses atomically does ([`Check::AtomicRace`]), unless
//! it comes after that access: the same thread, the same program after a `bar.sync`, or
//! another program that knows it through a lock.

use std::collections::BTreeMap;
use std::sync::Arc;

use super::checks::{LoadRun, program_text};
use super::error::{Address, Check, SimFault};
use super::sync::{Clock, ProgramSync, Stamp};
use crate::ir::{Scope, Sem};

/// One program's atomic accesses of a word: the threads (lowest, highest), the last
/// epoch and step, whether one was `cta`-scoped, and what the program knew of the others
/// at its first one.
#[derive(Clone, Debug, PartialEq, Eq)]
struct AtomicUse {
    program: [u32; 3],
    threads: (u32, u32),
    epoch: u64,
    step: u64,
    cta_scoped: bool,
    knew: Option<Arc<Clock>>,
}

/// Every global 4-byte word some thread accessed atomically during the launch.
#[derive(Debug, Default)]
pub(crate) struct AtomicWords {
    /// Per word, one entry per program that accessed it, in the order they did.
    words: BTreeMap<u64, Vec<AtomicUse>>,
    /// Per word, what its releasing atomics handed on (`sync.rs`).
    carried: BTreeMap<u64, Clock>,
}

impl AtomicWords {
    pub fn is_empty(&self) -> bool {
        self.words.is_empty()
    }

    /// The access at `now` is an atomic of `addr..addr + bytes` with `scope`.
    pub fn atomic(
        &mut self,
        sync: &ProgramSync,
        now: Stamp,
        addr: u64,
        bytes: u32,
        scope: Scope,
    ) -> Result<(), SimFault> {
        let cta = scope == Scope::Cta;
        for w in (addr & !3..addr + u64::from(bytes)).step_by(4) {
            let uses = self.words.entry(w).or_default();
            let other = uses.iter().find(|u| u.program != now.program && (u.cta_scoped || cta));
            if let Some(u) = other {
                return Err(SimFault::new(
                    Check::AtomicScope,
                    Some(now.thread),
                    format!(
                        "thread {} and thread {} of program {} update one global element atomically, with a cta-scoped atomic: it is atomic only within one program (CTA)",
                        now.thread,
                        u.threads.0,
                        program_text(u.program)
                    ),
                    "use scope gpu (Triton's default, Scope::Gpu) for elements that several programs update",
                )
                .at(Address::Global(addr)));
            }
            match uses.iter_mut().find(|u| u.program == now.program) {
                Some(u) => {
                    u.threads = (u.threads.0.min(now.thread), u.threads.1.max(now.thread));
                    u.epoch = now.epoch;
                    u.step = now.step;
                    u.cta_scoped |= cta;
                }
                None => uses.push(AtomicUse {
                    program: now.program,
                    threads: (now.thread, now.thread),
                    epoch: now.epoch,
                    step: now.step,
                    cta_scoped: cta,
                    knew: sync.common(),
                }),
            }
        }
        Ok(())
    }

    /// After the atomic at `now` on `addr..addr + bytes` (which wrote memory when `wrote`):
    /// an acquiring one hands what the word carries to its thread, a releasing one that
    /// wrote adds what its thread knows to what the word carries (`sync.rs`).
    pub fn synchronize(
        &mut self,
        sync: &mut ProgramSync,
        now: Stamp,
        addr: u64,
        bytes: u32,
        (sem, scope): (Sem, Scope),
        wrote: bool,
    ) {
        if scope == Scope::Cta {
            return;
        }
        let acquire = matches!(sem, Sem::Acquire | Sem::AcqRel);
        let release = wrote && matches!(sem, Sem::Release | Sem::AcqRel);
        for w in (addr & !3..addr + u64::from(bytes)).step_by(4) {
            if acquire && let Some(c) = self.carried.get(&w) {
                sync.acquire(now.thread, c);
            }
            if release {
                let released = sync.released(&now);
                self.carried.entry(w).or_default().join(&released);
            }
        }
    }

    /// A plain store of `addr..addr + bytes` ends the words' release sequences.
    pub fn forget(&mut self, addr: u64, bytes: u32) {
        if !self.carried.is_empty() {
            let words: Vec<u64> = self.carried.range(addr & !3..addr + u64::from(bytes)).map(|(w, _)| *w).collect();
            for w in words {
                self.carried.remove(&w);
            }
        }
    }

    /// A plain access (`what`: "loads" or "stores") at `now`: a race with an atomic
    /// access of the word it does not come after.
    pub fn plain(&self, sync: &ProgramSync, now: Stamp, addr: u64, bytes: u32, what: &str) -> Result<(), SimFault> {
        if self.words.is_empty() {
            return Ok(());
        }
        for (_, uses) in self.words.range(addr & !3..addr + u64::from(bytes)) {
            for u in uses {
                let ordered = if u.program == now.program {
                    u.threads == (now.thread, now.thread) || u.epoch < now.epoch
                } else {
                    sync.knows_threads(now.thread, u.program, u.threads, u.epoch, u.step)
                };
                if !ordered {
                    let same = u.program == now.program;
                    return Err(plain_vs_atomic(now.thread, what, same, u.program, u.threads.0, addr));
                }
            }
        }
        Ok(())
    }

    /// After the launch: a load run that covers a word another program accessed
    /// atomically later in the simulator's order, without knowing the load.
    pub fn loaded(&self, run: &LoadRun) -> Option<SimFault> {
        for (&w, uses) in self.words.range(run.start & !3..run.end) {
            let later = uses.iter().find(|u| {
                u.program != run.program
                    && u.step > run.step
                    && !u.knew.as_ref().is_some_and(|c| c.covers_threads(run.program, run.threads, run.epoch, run.step))
            });
            if let Some(u) = later {
                return Some(plain_vs_atomic(run.threads.0, "loads", false, u.program, u.threads.0, w.max(run.start)));
            }
        }
        None
    }
}

/// The race of a plain access with an atomic one.
pub(crate) fn plain_vs_atomic(
    t: u32,
    what: &str,
    same_program: bool,
    program: [u32; 3],
    thread: u32,
    addr: u64,
) -> SimFault {
    let who = if same_program {
        format!("thread {thread} of the same program accesses atomically, with no bar.sync in between")
    } else {
        format!("thread {thread} of program {} accesses atomically in this launch", program_text(program))
    };
    SimFault::new(
        Check::AtomicRace,
        Some(t),
        format!("thread {t} {what} a global element that {who}: a plain access racing with an atomic"),
        "access an element that other threads update atomically only through atomics (atomic_xchg to write it, \
         the old value of an atomic to read it), or move the plain access to another launch",
    )
    .at(Address::Global(addr))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(program: u32, thread: u32, epoch: u64, step: u64) -> Stamp {
        Stamp { program: [program, 0, 0], thread, epoch, step }
    }

    #[test]
    fn atomics_do_not_race_among_themselves_but_plain_accesses_do() {
        let mut a = AtomicWords::default();
        let none = ProgramSync::default();
        a.atomic(&none, at(0, 0, 0, 1), 0x1000, 4, Scope::Gpu).unwrap();
        a.atomic(&none, at(1, 3, 0, 2), 0x1000, 4, Scope::Gpu).unwrap();
        a.atomic(&none, at(1, 3, 0, 3), 0x1008, 8, Scope::Sys).unwrap();
        // Its own thread, or its own program after a barrier: ordered with its own atomic,
        // but program 1's atomic on the word is not known.
        a.plain(&none, at(1, 3, 0, 4), 0x1008, 4, "loads").unwrap();
        a.plain(&none, at(1, 7, 1, 4), 0x100c, 4, "stores").unwrap();
        let e = a.plain(&none, at(1, 7, 0, 4), 0x100c, 4, "stores").unwrap_err();
        assert_eq!(e.check, Check::AtomicRace);
        assert!(e.message.contains("with no bar.sync in between"), "{}", e.message);
        let e = a.plain(&none, at(2, 1, 0, 5), 0x100c, 4, "loads").unwrap_err();
        assert!(e.message.contains("thread 3 of program (1, 0, 0) accesses atomically"), "{}", e.message);
        a.plain(&none, at(2, 1, 0, 5), 0x1004, 4, "loads").unwrap();
        let run = |start, end, step| LoadRun { start, end, program: [5, 0, 0], threads: (0, 0), pc: 0, epoch: 0, step };
        assert!(a.loaded(&run(0x0ff0, 0x1004, 0)).is_some());
        assert!(a.loaded(&run(0x1004, 0x1008, 0)).is_none());
        // A load after every atomic of the word was checked when it ran.
        assert!(a.loaded(&run(0x0ff0, 0x1004, 9)).is_none());
    }

    #[test]
    fn a_lock_orders_plain_accesses_between_programs() {
        let mut a = AtomicWords::default();
        // Program 0 takes the lock (nothing carried yet), sets the count, releases.
        let mut p0 = ProgramSync::default();
        a.atomic(&p0, at(0, 0, 0, 1), 0x100, 4, Scope::Gpu).unwrap();
        a.synchronize(&mut p0, at(0, 0, 0, 1), 0x100, 4, (Sem::AcqRel, Scope::Gpu), true);
        a.atomic(&p0, at(0, 0, 1, 5), 0x200, 4, Scope::Gpu).unwrap();
        a.atomic(&p0, at(0, 0, 2, 9), 0x100, 4, Scope::Gpu).unwrap();
        a.synchronize(&mut p0, at(0, 0, 2, 9), 0x100, 4, (Sem::AcqRel, Scope::Gpu), true);
        // Program 1 fails to see the count before taking the lock, sees it after.
        let mut p1 = ProgramSync::default();
        assert!(a.plain(&p1, at(1, 0, 3, 10), 0x200, 4, "loads").is_err());
        a.atomic(&p1, at(1, 0, 3, 11), 0x100, 4, Scope::Gpu).unwrap();
        a.synchronize(&mut p1, at(1, 0, 3, 11), 0x100, 4, (Sem::AcqRel, Scope::Gpu), true);
        a.plain(&p1, at(1, 0, 3, 12), 0x200, 4, "loads").unwrap();
        assert!(a.plain(&p1, at(1, 5, 3, 12), 0x200, 4, "loads").is_err());
        p1.barrier();
        a.plain(&p1, at(1, 5, 4, 13), 0x200, 4, "loads").unwrap();
        // A relaxed or cta-scoped atomic does not acquire; a failed cas does not release.
        let mut p2 = ProgramSync::default();
        a.synchronize(&mut p2, at(2, 0, 5, 20), 0x100, 4, (Sem::Relaxed, Scope::Gpu), true);
        a.synchronize(&mut p2, at(2, 0, 5, 20), 0x100, 4, (Sem::AcqRel, Scope::Cta), true);
        assert!(a.plain(&p2, at(2, 0, 5, 21), 0x200, 4, "loads").is_err());
        a.forget(0x100, 4);
        a.synchronize(&mut p2, at(2, 0, 5, 22), 0x100, 4, (Sem::Acquire, Scope::Gpu), false);
        assert!(a.plain(&p2, at(2, 0, 5, 23), 0x200, 4, "loads").is_err(), "a plain store ended the release sequence");
    }

    #[test]
    fn cta_scoped_atomics_from_two_programs_are_reported() {
        let mut a = AtomicWords::default();
        let none = ProgramSync::default();
        a.atomic(&none, at(0, 0, 0, 1), 0x2000, 4, Scope::Cta).unwrap();
        a.atomic(&none, at(0, 9, 0, 2), 0x2000, 4, Scope::Cta).unwrap();
        let e = a.atomic(&none, at(1, 0, 0, 3), 0x2000, 4, Scope::Gpu).unwrap_err();
        assert_eq!(e.check, Check::AtomicScope);
        a.atomic(&none, at(0, 0, 0, 4), 0x3000, 4, Scope::Gpu).unwrap();
        let e = a.atomic(&none, at(1, 0, 0, 5), 0x3000, 4, Scope::Cta).unwrap_err();
        assert!(e.message.contains("cta-scoped"), "{}", e.message);
    }
}
