//! Bookkeeping of the atomics of one launch, for the race checks in [`super::checks`]:
//! which global words were accessed atomically and by whom. Atomics among themselves never
//! race (that is what they are for), unless one is `cta`-scoped and another program
//! touches the same word ([`Check::AtomicScope`]); a plain load or store of a word that
//! another thread accesses atomically does ([`Check::AtomicRace`]).
//!
//! Not modelled: synchronization through acquire/release atomics (a lock). Plain accesses
//! that a lock orders between programs are still reported, as the global race check
//! reports any cross-program load of a stored element.

use std::collections::BTreeMap;

use super::error::{Address, Check, SimFault};
use crate::ir::Scope;

/// The first atomic access of a word, and the first `cta`-scoped one.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct AtomicUse {
    program: [u32; 3],
    thread: u32,
    epoch: u64,
    cta_scoped: Option<([u32; 3], u32)>,
}

fn program_text(p: [u32; 3]) -> String {
    format!("({}, {}, {})", p[0], p[1], p[2])
}

/// Every global 4-byte word some thread accessed atomically during the launch.
#[derive(Debug, Default)]
pub(crate) struct AtomicWords {
    words: BTreeMap<u64, AtomicUse>,
}

impl AtomicWords {
    pub fn is_empty(&self) -> bool {
        self.words.is_empty()
    }

    /// Thread `t` of `program` accesses `addr..addr + bytes` atomically with `scope`.
    pub fn atomic(
        &mut self,
        program: [u32; 3],
        t: u32,
        epoch: u64,
        addr: u64,
        bytes: u32,
        scope: Scope,
    ) -> Result<(), SimFault> {
        for w in (addr & !3..addr + u64::from(bytes)).step_by(4) {
            let now = AtomicUse { program, thread: t, epoch, cta_scoped: None };
            let used = self.words.entry(w).or_insert(now);
            let other_cta = used.cta_scoped.filter(|(p, _)| *p != program);
            let cta_vs_other = (scope == Scope::Cta && used.program != program).then_some((used.program, used.thread));
            if let Some((p, thread)) = other_cta.or(cta_vs_other) {
                return Err(SimFault::new(
                    Check::AtomicScope,
                    Some(t),
                    format!(
                        "thread {t} and thread {thread} of program {} update one global element atomically, with a cta-scoped atomic: it is atomic only within one program (CTA)",
                        program_text(p)
                    ),
                    "use scope gpu (Triton's default, Scope::Gpu) for elements that several programs update",
                )
                .at(Address::Global(addr)));
            }
            if scope == Scope::Cta && used.cta_scoped.is_none() {
                used.cta_scoped = Some((program, t));
            }
        }
        Ok(())
    }

    /// A plain access (`what`: "loads" or "stores") by thread `t` of `program` in barrier
    /// epoch `epoch`: a race with an atomic access of the word by another program, or by
    /// another thread of the same program in the same epoch.
    pub fn plain(
        &self,
        program: [u32; 3],
        t: u32,
        epoch: u64,
        addr: u64,
        bytes: u32,
        what: &str,
    ) -> Result<(), SimFault> {
        if self.words.is_empty() {
            return Ok(());
        }
        if let Some((_, used)) = self.words.range(addr & !3..addr + u64::from(bytes)).next() {
            let ordered = used.program == program && (used.thread == t || used.epoch != epoch);
            if !ordered {
                return Err(plain_vs_atomic(t, what, used.program == program, used.program, used.thread, addr));
            }
        }
        Ok(())
    }

    /// After the launch: a load run of `program` (from `first_thread`) that covers a word
    /// another program accessed atomically (later in the simulator's order).
    pub fn loaded(&self, program: [u32; 3], first_thread: u32, start: u64, end: u64) -> Option<SimFault> {
        let (&w, used) = self.words.range(start & !3..end).find(|(_, u)| u.program != program)?;
        Some(plain_vs_atomic(first_thread, "loads", false, used.program, used.thread, w.max(start)))
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

    #[test]
    fn atomics_do_not_race_among_themselves_but_plain_accesses_do() {
        let mut a = AtomicWords::default();
        a.atomic([0, 0, 0], 0, 0, 0x1000, 4, Scope::Gpu).unwrap();
        a.atomic([1, 0, 0], 3, 0, 0x1000, 4, Scope::Gpu).unwrap();
        a.atomic([1, 0, 0], 3, 0, 0x1008, 8, Scope::Sys).unwrap();
        // Its own thread, or its own program after a barrier: ordered.
        a.plain([0, 0, 0], 0, 0, 0x1000, 4, "loads").unwrap();
        a.plain([0, 0, 0], 7, 1, 0x1000, 4, "stores").unwrap();
        let e = a.plain([0, 0, 0], 7, 0, 0x1000, 4, "stores").unwrap_err();
        assert_eq!(e.check, Check::AtomicRace);
        assert!(e.message.contains("with no bar.sync in between"), "{}", e.message);
        let e = a.plain([2, 0, 0], 1, 0, 0x100c, 4, "loads").unwrap_err();
        assert!(e.message.contains("thread 3 of program (1, 0, 0) accesses atomically"), "{}", e.message);
        a.plain([2, 0, 0], 1, 0, 0x1004, 4, "loads").unwrap();
        assert!(a.loaded([5, 0, 0], 0, 0x0ff0, 0x1004).is_some());
        assert!(a.loaded([5, 0, 0], 0, 0x1004, 0x1008).is_none());
    }

    #[test]
    fn cta_scoped_atomics_from_two_programs_are_reported() {
        let mut a = AtomicWords::default();
        a.atomic([0, 0, 0], 0, 0, 0x2000, 4, Scope::Cta).unwrap();
        a.atomic([0, 0, 0], 9, 0, 0x2000, 4, Scope::Cta).unwrap();
        let e = a.atomic([1, 0, 0], 0, 0, 0x2000, 4, Scope::Gpu).unwrap_err();
        assert_eq!(e.check, Check::AtomicScope);
        a.atomic([0, 0, 0], 0, 0, 0x3000, 4, Scope::Gpu).unwrap();
        let e = a.atomic([1, 0, 0], 0, 0, 0x3000, 4, Scope::Cta).unwrap_err();
        assert!(e.message.contains("cta-scoped"), "{}", e.message);
    }
}
