//! `cp.async` bookkeeping: which shared bytes each thread's copies are still writing, and
//! the copies of each thread's open and committed groups.
//!
//! The simulator reads global memory when a copy is issued (the lowering only stages data
//! the kernel does not write before the wait, `docs/semantics.md`) and writes shared
//! memory when a `cp.async.wait_group` of the issuing thread covers the copy's group. In
//! between, the 16 shared bytes are *in flight*: any thread's access to them is reported
//! ([`Check::AsyncCopyPending`]), so a missing or misplaced wait cannot pass as a lucky
//! read of bytes the GPU may not have written yet. The GPU may copy at any time between
//! the issue and the wait, so global bytes a copy read that differ at the wait (the kernel
//! wrote them in between) are reported as a race ([`Check::GlobalRace`]).

use std::collections::VecDeque;

use super::error::{Address, Check, SimFault};

const NONE: u32 = u32::MAX;
/// Marks an in-flight byte's owner as a tensor copy (TMA) the thread issued, which lands
/// when an mbarrier wait observes its phase, not at the thread's `wait_group`.
const BULK: u32 = 1 << 30;

/// One issued copy: where it lands, the 16 bytes it carries (zeros past `src_size`) and
/// the global address it read them from (`None` for a zero fill).
#[derive(Clone, Debug)]
pub(crate) struct Copy {
    pub shared: u32,
    pub bytes: [u8; 16],
    pub src: Option<u64>,
}

#[derive(Debug)]
pub(crate) struct AsyncCopies {
    /// Per shared byte: the thread whose copy into it is in flight (`NONE`: none).
    inflight: Vec<u32>,
    /// Per thread: the copies issued since its last `commit_group`.
    open: Vec<Vec<Copy>>,
    /// Per thread: its committed groups not yet waited for, oldest first.
    committed: Vec<VecDeque<Vec<Copy>>>,
}

impl AsyncCopies {
    pub fn new(shared_bytes: usize, threads: usize) -> AsyncCopies {
        AsyncCopies {
            inflight: vec![NONE; shared_bytes],
            open: vec![Vec::new(); threads],
            committed: vec![VecDeque::new(); threads],
        }
    }

    /// A new program: no copy is in flight. (Copies a program never waited for were never
    /// read: its shared memory is gone with it.)
    pub fn start_program(&mut self) {
        self.inflight.fill(NONE);
        self.open.iter_mut().for_each(Vec::clear);
        self.committed.iter_mut().for_each(VecDeque::clear);
    }

    /// Thread `t` accesses shared bytes `addr..addr + n` (bounds-checked): an error when a
    /// copy still writes one of them.
    pub fn check(&self, t: u32, addr: u32, n: u32, what: &str) -> Result<(), SimFault> {
        for b in addr..addr + n {
            let owner = self.inflight[b as usize];
            if owner != NONE && owner & BULK != 0 {
                return Err(SimFault::new(
                    Check::AsyncCopyPending,
                    Some(t),
                    format!(
                        "thread {t} {what} shared byte {b}, which a tensor copy (TMA) thread {} issued is still writing (no mbarrier wait has observed the phase the copy completes)",
                        owner & !BULK
                    ),
                    "wait on the slot's mbarrier for the phase of its latest copy (mbarrier.try_wait.parity with that phase's parity) before the slot is read back or reused",
                )
                .at(Address::Shared(addr)));
            }
            if owner != NONE {
                return Err(SimFault::new(
                    Check::AsyncCopyPending,
                    Some(t),
                    format!(
                        "thread {t} {what} shared byte {b}, which a cp.async of thread {owner} is still writing (no cp.async.wait_group of that thread covers the copy yet)"
                    ),
                    "the lowering must wait for the copy's group (cp.async.wait_group) before the slot is read back or reused",
                )
                .at(Address::Shared(addr)));
            }
        }
        Ok(())
    }

    /// Thread `t` issues `copy` (its slot bounds- and alignment-checked) into its open group.
    pub fn issue(&mut self, t: u32, copy: Copy) -> Result<(), SimFault> {
        self.check(t, copy.shared, 16, "starts a cp.async into")?;
        self.inflight[copy.shared as usize..copy.shared as usize + 16].fill(t);
        self.open[t as usize].push(copy);
        Ok(())
    }

    /// Thread `t` issues a tensor copy into `shared..shared + n`: in flight until
    /// [`AsyncCopies::land_bulk`].
    pub fn issue_bulk(&mut self, t: u32, shared: u32, n: u32) -> Result<(), SimFault> {
        self.check(t, shared, n, "starts a tensor copy into")?;
        self.inflight[shared as usize..(shared + n) as usize].fill(t | BULK);
        Ok(())
    }

    /// A tensor copy into `shared..shared + n` landed (a wait observed its phase).
    pub fn land_bulk(&mut self, shared: u32, n: u32) {
        self.inflight[shared as usize..(shared + n) as usize].fill(NONE);
    }

    /// `cp.async.commit_group` of thread `t`.
    pub fn commit(&mut self, t: u32) {
        let group = std::mem::take(&mut self.open[t as usize]);
        self.committed[t as usize].push_back(group);
    }

    /// `cp.async.wait_group pending` of thread `t`: the copies of every committed group but
    /// the `pending` newest, which the caller writes to shared memory.
    pub fn wait(&mut self, t: u32, pending: u32) -> Vec<Copy> {
        let groups = &mut self.committed[t as usize];
        let mut done = Vec::new();
        while groups.len() > pending as usize {
            let group = groups.pop_front().expect("longer than `pending`");
            for c in &group {
                self.inflight[c.shared as usize..c.shared as usize + 16].fill(NONE);
            }
            done.extend(group);
        }
        done
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn copy(shared: u32) -> Copy {
        Copy { shared, bytes: [7; 16], src: None }
    }

    #[test]
    fn a_slot_is_in_flight_from_issue_to_the_wait_that_covers_its_group() {
        let mut a = AsyncCopies::new(64, 2);
        a.issue(0, copy(16)).unwrap();
        let e = a.check(1, 20, 4, "reads").unwrap_err();
        assert_eq!(e.check, Check::AsyncCopyPending);
        assert!(e.message.contains("thread 1 reads shared byte 20, which a cp.async of thread 0"), "{}", e.message);
        // a wait before the commit covers nothing: the copy is in the open group
        assert!(a.wait(0, 0).is_empty());
        a.commit(0);
        a.issue(0, copy(32)).unwrap();
        a.commit(0);
        // `wait_group 1` leaves the newest group in flight
        let done = a.wait(0, 1);
        assert_eq!(done.iter().map(|c| c.shared).collect::<Vec<_>>(), vec![16]);
        a.check(1, 16, 16, "reads").unwrap();
        assert_eq!(a.check(0, 40, 4, "reads").unwrap_err().check, Check::AsyncCopyPending);
        assert_eq!(a.wait(0, 0).len(), 1);
        a.check(0, 32, 16, "reads").unwrap();
    }

    #[test]
    fn a_second_copy_into_a_slot_in_flight_is_reported() {
        let mut a = AsyncCopies::new(32, 1);
        a.issue(0, copy(0)).unwrap();
        assert_eq!(a.issue(0, copy(0)).unwrap_err().check, Check::AsyncCopyPending);
    }
}
