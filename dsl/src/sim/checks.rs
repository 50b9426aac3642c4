//! Bookkeeping of the checks that span several threads: shared-memory races between two
//! barriers ([`SharedRaces`]) and two threads storing the same global element
//! ([`GlobalStores`]). The per-access checks (bounds, alignment) and the warp and barrier
//! checks live where the access is executed, in [`super::cta`].

use std::collections::BTreeMap;
use std::sync::Arc;

use super::atomic_races::AtomicWords;
use super::error::{Address, Check, SimFault};
use super::sync::{Clock, ProgramSync, Stamp, ordered};
use crate::ir::Scope;

const NONE: u32 = u32::MAX;
/// A reader that is a whole warpgroup (the tag bit and the warpgroup's index): a `wgmma`'s
/// operand read, done when a `wgmma.wait_group` of the warpgroup covers it, which orders it
/// before every later access of the warpgroup's threads.
const WARPGROUP_TAG: u32 = 1 << 31;
/// Threads of a warpgroup.
const WARPGROUP_THREADS: u32 = 128;

/// The reader id of warpgroup `g` ([`WARPGROUP_TAG`]).
pub(crate) fn warpgroup_reader(g: u32) -> u32 {
    WARPGROUP_TAG | g
}

/// Whether accesses by `a` and `b` (threads or warpgroups) are ordered without a barrier:
/// the same thread, or a thread and its own warpgroup.
fn ordered_without_barrier(a: u32, b: u32) -> bool {
    let group = |x: u32| if x & WARPGROUP_TAG != 0 { x & !WARPGROUP_TAG } else { x / WARPGROUP_THREADS };
    a == b || ((a & WARPGROUP_TAG != 0) != (b & WARPGROUP_TAG != 0) && group(a) == group(b))
}

/// Who touched each shared byte since the last `bar.sync` (an *epoch*): the last
/// writer and up to two distinct readers (two are enough to know that someone other
/// than the current thread read it).
#[derive(Debug)]
pub(crate) struct SharedRaces {
    writer: Vec<u32>,
    readers: Vec<[u32; 2]>,
    /// Bytes touched in this epoch, reset at the next barrier.
    touched: Vec<u32>,
    /// Bytes written since the program started (shared memory starts undefined).
    defined: Vec<bool>,
    /// Whether the async proxy's view is tracked (a program with `wgmma`): per byte, the
    /// thread whose generic-proxy write of it no `fence.proxy.async` of that thread has
    /// ordered yet, and per thread the bytes it wrote since its last fence.
    track_proxy: bool,
    unfenced: Vec<u32>,
    since_fence: std::collections::HashMap<u32, Vec<u32>>,
    /// Per byte, how many `wgmma`s in flight (issued, no wait has covered their group)
    /// read it: until they finish, no thread may write it.
    in_flight: Vec<u16>,
    /// Per byte, how many tensor stores (TMA) may still read it (no
    /// `cp.async.bulk.wait_group.read` of their thread has covered them).
    store_reading: Vec<u16>,
}

impl SharedRaces {
    pub fn new(bytes: usize) -> SharedRaces {
        SharedRaces {
            writer: vec![NONE; bytes],
            readers: vec![[NONE; 2]; bytes],
            touched: Vec::new(),
            defined: vec![false; bytes],
            track_proxy: false,
            unfenced: Vec::new(),
            since_fence: std::collections::HashMap::new(),
            in_flight: Vec::new(),
            store_reading: Vec::new(),
        }
    }

    /// Tracks which bytes the async proxy (`wgmma`'s operand reads, tensor stores) may not
    /// see yet.
    pub fn track_async_proxy(&mut self) {
        self.track_proxy = true;
        self.unfenced = vec![NONE; self.defined.len()];
        self.in_flight = vec![0; self.defined.len()];
        self.store_reading = vec![0; self.defined.len()];
    }

    /// A tensor store reads `addr..addr + n` until its thread's
    /// `cp.async.bulk.wait_group.read` covers it (`done`: it did).
    pub fn store_reading(&mut self, addr: u32, n: u32, done: bool) {
        for b in addr as usize..(addr + n) as usize {
            let c = &mut self.store_reading[b];
            *c = if done { c.saturating_sub(1) } else { *c + 1 };
        }
    }

    /// A `wgmma` in flight reads `addr..addr + n` until [`SharedRaces::async_done`].
    pub fn async_reading(&mut self, addr: u32, n: u32) {
        for b in addr as usize..(addr + n) as usize {
            self.in_flight[b] += 1;
        }
    }

    /// The `wgmma` reading `addr..addr + n` finished (a wait covered its group).
    pub fn async_done(&mut self, addr: u32, n: u32) {
        for b in addr as usize..(addr + n) as usize {
            self.in_flight[b] = self.in_flight[b].saturating_sub(1);
        }
    }

    /// Thread `t` is about to write `addr..addr + n` (a store, or a `cp.async` at its
    /// issue, since the copy may land at any time after): no `wgmma` in flight may read it.
    pub fn check_not_in_flight(&self, t: u32, addr: u32, n: u32) -> Result<(), SimFault> {
        if !self.track_proxy {
            return Ok(());
        }
        if let Some(b) = (addr as usize..(addr + n) as usize).find(|&b| self.store_reading[b] > 0) {
            return Err(SimFault::new(
                Check::TensorStorePending,
                Some(t),
                format!(
                    "thread {t} writes shared byte {b}, which a tensor store (TMA) may still read (no cp.async.bulk.wait_group.read of its thread has covered it): the store may write the new bytes"
                ),
                "after the tensor stores' cp.async.bulk.commit_group, have their thread wait with cp.async.bulk.wait_group.read, then a barrier, before shared memory is written again",
            )
            .at(Address::Shared(b as u32)));
        }
        match (addr as usize..(addr + n) as usize).find(|&b| self.in_flight[b] > 0) {
            None => Ok(()),
            Some(b) => Err(SimFault::new(
                Check::AsyncMmaOperandOverwritten,
                Some(t),
                format!(
                    "thread {t} writes shared byte {b}, which a wgmma in flight reads (no wgmma.wait_group has covered its group): the tensor cores may read the new bytes"
                ),
                "wait for the wgmma (wgmma.wait_group) in every warpgroup, then a barrier, before refilling its operands' shared memory",
            )
            .at(Address::Shared(b as u32))),
        }
    }

    /// `fence.proxy.async` by thread `t`: its earlier writes are ordered for the async
    /// proxy.
    pub fn fence_proxy(&mut self, t: u32) {
        if let Some(bytes) = self.since_fence.remove(&t) {
            for b in bytes {
                if self.unfenced[b as usize] == t {
                    self.unfenced[b as usize] = NONE;
                }
            }
        }
    }

    /// The async proxy (`who`: a `wgmma` of thread `t`'s warpgroup, or a tensor store
    /// thread `t` issued) reads `addr..addr + n`: every byte's writer must have fenced its
    /// write for the async proxy.
    pub fn async_read(&self, t: u32, addr: u32, n: u32, who: &str) -> Result<(), SimFault> {
        if !self.track_proxy {
            return Ok(());
        }
        for b in addr as usize..(addr + n) as usize {
            let w = self.unfenced[b];
            if w != NONE {
                return Err(SimFault::new(
                    Check::AsyncProxyUnfenced,
                    Some(t),
                    format!(
                        "{who} reads shared byte {b}, which thread {w} wrote through the generic proxy (a store or a cp.async) with no fence.proxy.async of that thread since: the async proxy may read the old bytes"
                    ),
                    format!("have every thread that writes what a {who} reads execute fence.proxy.async.shared::cta after its writes land (after its cp.async.wait_group) and before the barrier the {who} waits on"),
                )
                .at(Address::Shared(b as u32)));
            }
        }
        Ok(())
    }

    /// A new program: nothing is written yet.
    pub fn start_program(&mut self) {
        self.barrier();
        self.defined.fill(false);
        self.unfenced.fill(NONE);
        self.since_fence.clear();
        self.in_flight.fill(0);
        self.store_reading.fill(0);
    }

    /// A barrier: every access before it happens before every access after it.
    pub fn barrier(&mut self) {
        for &b in &self.touched {
            self.writer[b as usize] = NONE;
            self.readers[b as usize] = [NONE; 2];
        }
        self.touched.clear();
    }

    fn touch(&mut self, b: usize) {
        if self.writer[b] == NONE && self.readers[b][0] == NONE {
            self.touched.push(b as u32);
        }
    }

    /// Thread `t` reads bytes `addr..addr + n` (already bounds-checked).
    pub fn read(&mut self, t: u32, addr: u32, n: u32) -> Result<(), SimFault> {
        for b in addr as usize..(addr + n) as usize {
            if !self.defined[b] {
                return Err(SimFault::new(
                    Check::UninitializedShared,
                    Some(t),
                    format!("thread {t} reads shared byte {b}, which no thread of this program wrote (its value is undefined)"),
                    "every shared slot a thread reads must be written first (check the writers' guard and the slot addresses)",
                )
                .at(Address::Shared(addr)));
            }
            let w = self.writer[b];
            if w != NONE && !ordered_without_barrier(w, t) {
                return Err(race(t, addr, format!("{} reads shared byte {b} that thread {w} wrote", who(t))));
            }
            self.touch(b);
            let r = &mut self.readers[b];
            if r[0] == NONE {
                r[0] = t;
            } else if r[0] != t && r[1] == NONE {
                r[1] = t;
            }
        }
        Ok(())
    }

    /// A tensor copy thread `t` issued writes bytes `addr..addr + n`: a write of that
    /// thread (for the races), through the async proxy, so `wgmma` reads it unfenced.
    pub fn write_async_proxy(&mut self, t: u32, addr: u32, n: u32) -> Result<(), SimFault> {
        self.write(t, addr, n)?;
        if self.track_proxy {
            for b in addr as usize..(addr + n) as usize {
                if self.unfenced[b] == t {
                    self.unfenced[b] = NONE;
                }
            }
        }
        Ok(())
    }

    /// Thread `t` writes bytes `addr..addr + n` (already bounds-checked).
    pub fn write(&mut self, t: u32, addr: u32, n: u32) -> Result<(), SimFault> {
        self.check_not_in_flight(t, addr, n)?;
        for b in addr as usize..(addr + n) as usize {
            let w = self.writer[b];
            if w != NONE && w != t {
                return Err(race(t, addr, format!("threads {w} and {t} both write shared byte {b}")));
            }
            let r = self.readers[b];
            if let Some(&other) = r.iter().find(|&&x| x != NONE && !ordered_without_barrier(x, t)) {
                return Err(race(t, addr, format!("thread {t} writes shared byte {b} that {} read", who(other))));
            }
            self.touch(b);
            self.writer[b] = t;
            self.defined[b] = true;
            if self.track_proxy {
                self.unfenced[b] = t;
                self.since_fence.entry(t).or_default().push(b as u32);
            }
        }
        Ok(())
    }
}

/// A reader or writer in a message: a thread, or a warpgroup's `wgmma`.
fn who(x: u32) -> String {
    if x & WARPGROUP_TAG != 0 { format!("a wgmma of warpgroup {}", x & !WARPGROUP_TAG) } else { format!("thread {x}") }
}

fn race(t: u32, addr: u32, what: String) -> SimFault {
    SimFault::new(
        Check::SharedRace,
        Some(t),
        format!("shared-memory race: {what} with no bar.sync in between"),
        "put a bar.sync between the write and the other thread's access (and before the buffer is reused)",
    )
    .at(Address::Shared(addr))
}

/// Bytes `start..end` that op `pc` of `program` loaded (threads `threads.0..=threads.1`,
/// in barrier epoch `epoch`, by launch step `step` at the latest).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct LoadRun {
    pub start: u64,
    pub end: u64,
    pub program: [u32; 3],
    pub threads: (u32, u32),
    pub pc: usize,
    pub epoch: u64,
    pub step: u64,
}

/// Who stored a global granule last, and what its program knew of the others when it
/// first stored it (for the loads of other programs that ran before it; see `sync.rs`).
#[derive(Clone, Debug, PartialEq, Eq)]
struct Stored {
    at: Stamp,
    knew: Option<Arc<Clock>>,
}

pub(crate) fn program_text(p: [u32; 3]) -> String {
    format!("({}, {}, {})", p[0], p[1], p[2])
}

/// What the help of a cross-program race says to do.
pub(crate) const CROSS_PROGRAM_HELP: &str = "programs run in any order, concurrently: a program must not read what another program of the same launch writes (split the work into two launches), unless a lock orders them (an acquiring atomic after the other program's releasing one)";

/// Every global granule stored during the launch, with who stored it: 4-byte words, or
/// single bytes in a program that stores 8- or 16-bit elements ([`GlobalStores::bytewise`],
/// so two threads storing neighbouring bytes do not conflict). Two threads storing one
/// granule is a conflict (which value lands is up to the hardware) unless it is the same
/// thread, or another program that comes after the first store through acquire/release
/// atomics (a lock, `sync.rs`). A thread loading a granule another thread stored is a race unless the
/// later of the two comes after the other in the same way, whichever the simulator ran
/// first.
#[derive(Debug, Default)]
pub(crate) struct GlobalStores {
    words: BTreeMap<u64, Stored>,
    /// Earlier stores of granules that another program then stored again, in order (a
    /// lock's protected data): the loads of programs that ran before them are checked
    /// against each.
    overwritten: BTreeMap<u64, Vec<Stored>>,
    /// Every load, as runs of consecutive bytes one op of one program read (consecutive
    /// threads' accesses merge), checked at the end against later stores.
    loads: Vec<LoadRun>,
    /// The lowest and highest stored word (loads outside skip the lookup).
    lo: u64,
    hi: u64,
    /// The words accessed atomically (plain accesses of them race).
    pub atomics: AtomicWords,
    /// Granules are single bytes instead of 4-byte words.
    bytewise: bool,
}

impl GlobalStores {
    /// Bookkeeping by single bytes (for programs with stores narrower than 4 bytes).
    pub fn bytewise() -> GlobalStores {
        GlobalStores { bytewise: true, ..GlobalStores::default() }
    }

    /// The granule holding byte `addr`.
    fn first_granule(&self, addr: u64) -> u64 {
        if self.bytewise { addr } else { addr & !3 }
    }

    /// The granules `addr..addr + bytes` touches.
    fn granules(&self, addr: u64, bytes: u32) -> std::iter::StepBy<std::ops::Range<u64>> {
        if self.bytewise {
            (addr..addr + u64::from(bytes)).step_by(1)
        } else {
            (addr & !3..addr + u64::from(bytes)).step_by(4)
        }
    }

    /// Who stored each word last: (program, thread).
    pub fn writers(&self) -> BTreeMap<u64, ([u32; 3], u32)> {
        self.words.iter().map(|(&w, s)| (w, (s.at.program, s.at.thread))).collect()
    }

    /// The access at `now` (whose program knows `sync`) stores `bytes` bytes at `addr`
    /// (aligned, in bounds). A thread may overwrite its own stores.
    pub fn store(&mut self, sync: &ProgramSync, now: Stamp, addr: u64, bytes: u32) -> Result<(), SimFault> {
        self.atomics.plain(sync, now, addr, bytes, "stores")?;
        self.atomics.forget(addr, bytes);
        if self.words.is_empty() {
            (self.lo, self.hi) = (u64::MAX, 0);
        }
        self.lo = self.lo.min(addr & !3);
        self.hi = self.hi.max(addr + u64::from(bytes));
        for w in self.granules(addr, bytes) {
            let Some(before) = self.words.get_mut(&w) else {
                self.words.insert(w, Stored { at: now, knew: sync.common() });
                continue;
            };
            // In one program only the thread itself may store a granule again (two threads
            // storing one element is a layout bug even with a barrier between them); another
            // program must come after the store through a lock.
            let after = if before.at.program == now.program {
                before.at.thread == now.thread
            } else {
                sync.knows(now.thread, &before.at)
            };
            if !after {
                let b = before.at;
                let who = if b.program == now.program {
                    format!("thread {} of the same program", b.thread)
                } else {
                    format!("thread {} of program {}", b.thread, program_text(b.program))
                };
                return Err(SimFault::new(
                    Check::GlobalStoreConflict,
                    Some(now.thread),
                    format!("two threads store the same global element: thread {} and {who}", now.thread),
                    "guard the store so exactly one thread writes each element (the owner of its first copy)",
                )
                .at(Address::Global(addr)));
            }
            if before.at.program == now.program {
                before.at = now;
            } else {
                let earlier = std::mem::replace(before, Stored { at: now, knew: sync.common() });
                self.overwritten.entry(w).or_default().push(earlier);
            }
        }
        Ok(())
    }

    /// The access at `now` is an atomic of `bytes` bytes at `addr`: a race with a plain
    /// store of the word it does not come after (see `atomic_races.rs` for the rest).
    pub fn atomic(
        &mut self,
        sync: &ProgramSync,
        now: Stamp,
        addr: u64,
        bytes: u32,
        scope: Scope,
    ) -> Result<(), SimFault> {
        for w in (addr & !3..addr + u64::from(bytes)).step_by(4) {
            if let Some(s) = self.words.get(&w)
                && !ordered(sync, &now, &s.at)
            {
                let same = s.at.program == now.program;
                let mut fault =
                    super::atomic_races::plain_vs_atomic(s.at.thread, "stores", same, now.program, now.thread, addr);
                fault.thread = Some(now.thread);
                return Err(fault);
            }
        }
        self.atomics.atomic(sync, now, addr, bytes, scope)
    }

    /// Records that the access at `now` (op `pc`) loaded `addr..addr + bytes`.
    pub fn record_load(&mut self, now: Stamp, pc: usize, addr: u64, bytes: u32) {
        let end = addr + u64::from(bytes);
        if let Some(last) = self.loads.last_mut()
            && last.program == now.program
            && last.pc == pc
            && last.epoch == now.epoch
            && last.start <= addr
            && addr <= last.end
        {
            // Consecutive (or repeated: a scalar every thread loads) bytes extend the run.
            last.end = last.end.max(end);
            last.threads = (last.threads.0.min(now.thread), last.threads.1.max(now.thread));
            last.step = last.step.max(now.step);
            return;
        }
        self.loads.push(LoadRun {
            start: addr,
            end,
            program: now.program,
            threads: (now.thread, now.thread),
            pc,
            epoch: now.epoch,
            step: now.step,
        });
    }

    /// After the launch: a load of a word that another program stored or accessed
    /// atomically *later* in the simulator's order, without knowing the load (the earlier
    /// case is reported when the load runs). Returns the fault with the loading program
    /// and op.
    pub fn loads_before_stores(&self) -> Result<(), (SimFault, [u32; 3], usize)> {
        if !self.atomics.is_empty() {
            for run in &self.loads {
                if let Some(fault) = self.atomics.loaded(run) {
                    return Err((fault, run.program, run.pc));
                }
            }
        }
        if self.words.is_empty() {
            return Ok(());
        }
        let unordered = |run: &LoadRun, s: &Stored| {
            s.at.program != run.program
                && s.at.step > run.step
                && !s.knew.as_ref().is_some_and(|c| c.covers_threads(run.program, run.threads, run.epoch, run.step))
        };
        for run in &self.loads {
            if run.end <= self.lo || run.start >= self.hi {
                continue;
            }
            let range = self.first_granule(run.start)..run.end;
            let last = self.words.range(range.clone()).find(|(_, s)| unordered(run, s));
            let earlier = || {
                self.overwritten
                    .range(range.clone())
                    .find_map(|(w, v)| v.iter().find(|s| unordered(run, s)).map(|s| (w, s)))
            };
            if let Some((&w, s)) = last.or_else(earlier) {
                let fault = SimFault::new(
                    Check::GlobalRace,
                    Some(run.threads.0),
                    format!(
                        "program {} loads a global element that thread {} of program {} stores in this launch (the loading threads start at thread {})",
                        program_text(run.program),
                        s.at.thread,
                        program_text(s.at.program),
                        run.threads.0
                    ),
                    CROSS_PROGRAM_HELP,
                )
                .at(Address::Global(w.max(run.start)));
                return Err((fault, run.program, run.pc));
            }
        }
        Ok(())
    }

    /// The access at `now` loads `bytes` bytes at `addr`.
    pub fn load(&self, sync: &ProgramSync, now: Stamp, addr: u64, bytes: u32) -> Result<(), SimFault> {
        self.atomics.plain(sync, now, addr, bytes, "loads")?;
        if self.words.is_empty() || addr + u64::from(bytes) <= self.lo || addr >= self.hi {
            return Ok(());
        }
        for w in self.granules(addr, bytes) {
            let Some(s) = self.words.get(&w) else { continue };
            if !ordered(sync, &now, &s.at) {
                let (who, help) = if s.at.program == now.program {
                    (
                        format!("thread {} of the same program, with no bar.sync in between", s.at.thread),
                        "put a bar.sync between the store and the other thread's load",
                    )
                } else {
                    (format!("thread {} of program {}", s.at.thread, program_text(s.at.program)), CROSS_PROGRAM_HELP)
                };
                return Err(SimFault::new(
                    Check::GlobalRace,
                    Some(now.thread),
                    format!("thread {} loads a global element that {who} stored during this launch", now.thread),
                    help,
                )
                .at(Address::Global(addr)));
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_barrier_separates_a_write_from_another_threads_read() {
        let mut s = SharedRaces::new(16);
        assert_eq!(s.read(0, 0, 4).unwrap_err().check, Check::UninitializedShared);
        s.write(0, 0, 4).unwrap();
        s.read(0, 0, 4).unwrap();
        assert_eq!(s.read(1, 0, 4).unwrap_err().check, Check::SharedRace);
        s.barrier();
        s.read(1, 0, 4).unwrap();
        s.read(2, 0, 4).unwrap();
        let e = s.write(1, 2, 2).unwrap_err();
        assert!(e.message.contains("thread 1 writes shared byte 2 that thread 2 read"), "{}", e.message);
        s.barrier();
        s.write(3, 4, 4).unwrap();
        assert!(s.write(4, 4, 4).unwrap_err().message.contains("threads 3 and 4 both write"));
    }

    fn at(program: u32, thread: u32, epoch: u64, step: u64) -> Stamp {
        Stamp { program: [program, 0, 0], thread, epoch, step }
    }

    #[test]
    fn global_stores_conflict_within_and_across_programs() {
        let mut g = GlobalStores::default();
        let none = ProgramSync::default();
        g.store(&none, at(0, 0, 0, 1), 0x1000, 16).unwrap();
        g.store(&none, at(0, 0, 1, 2), 0x1000, 4).unwrap();
        let e = g.store(&none, at(0, 5, 1, 3), 0x1008, 4).unwrap_err();
        assert!(e.message.contains("thread 5 and thread 0 of the same program"), "{}", e.message);
        let e = g.store(&none, at(1, 3, 1, 4), 0x1000, 4).unwrap_err();
        assert!(e.message.contains("of program (0, 0, 0)"), "{}", e.message);
    }

    #[test]
    fn loads_of_stored_elements_need_the_same_program_and_a_barrier() {
        let mut g = GlobalStores::default();
        let none = ProgramSync::default();
        g.load(&none, at(0, 0, 0, 1), 0x1000, 4).unwrap();
        g.store(&none, at(0, 0, 0, 2), 0x1000, 4).unwrap();
        g.load(&none, at(0, 0, 0, 3), 0x1000, 4).unwrap();
        g.load(&none, at(0, 1, 1, 4), 0x1000, 4).unwrap();
        let e = g.load(&none, at(0, 1, 0, 5), 0x1000, 4).unwrap_err();
        assert_eq!(e.check, Check::GlobalRace);
        assert!(e.message.contains("with no bar.sync in between"), "{}", e.message);
        let e = g.load(&none, at(2, 0, 5, 6), 0x1000, 4).unwrap_err();
        assert!(e.message.contains("thread 0 of program (0, 0, 0) stored"), "{}", e.message);
    }

    #[test]
    fn a_load_before_another_programs_store_is_found_after_the_launch() {
        let mut g = GlobalStores::default();
        let none = ProgramSync::default();
        // Program 0's threads 0..3 read 0x2000..0x2010 in one run; program 1 stores 0x2008.
        for t in 0..4 {
            g.record_load(at(0, t, 0, 1), 7, 0x2000 + u64::from(t) * 4, 4);
        }
        g.record_load(at(1, 0, 1, 2), 7, 0x3000, 4);
        g.store(&none, at(1, 0, 1, 3), 0x3000, 4).unwrap();
        g.loads_before_stores().unwrap();
        g.store(&none, at(1, 2, 1, 4), 0x2008, 4).unwrap();
        let (e, program, pc) = g.loads_before_stores().unwrap_err();
        assert_eq!((program, pc, e.address), ([0, 0, 0], 7, Some(Address::Global(0x2008))));
        assert!(
            e.message.contains("program (0, 0, 0) loads a global element that thread 2 of program (1, 0, 0) stores")
        );
    }

    /// Byte by byte, a load of the second half of a word is not a load of its first half,
    /// which another program stores after it.
    #[test]
    fn bytewise_loads_start_at_their_own_byte() {
        let mut g = GlobalStores::bytewise();
        let none = ProgramSync::default();
        g.record_load(at(0, 0, 0, 1), 3, 0x2002, 2);
        g.store(&none, at(1, 0, 1, 2), 0x2000, 2).unwrap();
        g.loads_before_stores().unwrap();
        g.store(&none, at(1, 1, 1, 3), 0x2002, 2).unwrap();
        assert!(g.loads_before_stores().is_err());
    }

    /// Two programs hand a buffer on under a lock: program 0 stores it and releases, program
    /// 1 acquires, loads and stores it again; program 2 loads it after acquiring from 1.
    #[test]
    fn stores_and_loads_under_a_lock_are_ordered_and_without_it_are_not() {
        let mut g = GlobalStores::default();
        let mut p0 = ProgramSync::default();
        g.atomic(&p0, at(0, 0, 0, 1), 0x100, 4, Scope::Gpu).unwrap();
        g.atomics.synchronize(&mut p0, at(0, 0, 0, 1), 0x100, 4, (crate::ir::Sem::AcqRel, Scope::Gpu), true);
        g.store(&p0, at(0, 1, 1, 2), 0x2000, 4).unwrap();
        g.record_load(at(0, 1, 1, 2), 3, 0x2004, 4);
        let release = |g: &mut GlobalStores, sync: &mut ProgramSync, now: Stamp| {
            g.atomic(sync, now, 0x100, 4, Scope::Gpu).unwrap();
            g.atomics.synchronize(sync, now, 0x100, 4, (crate::ir::Sem::AcqRel, Scope::Gpu), true);
        };
        release(&mut g, &mut p0, at(0, 0, 2, 3));
        // Program 1 before taking the lock: a race; after (and a barrier): ordered.
        let mut p1 = ProgramSync::default();
        assert_eq!(g.load(&p1, at(1, 1, 3, 4), 0x2000, 4).unwrap_err().check, Check::GlobalRace);
        release(&mut g, &mut p1, at(1, 0, 3, 5));
        p1.barrier();
        g.load(&p1, at(1, 1, 4, 6), 0x2000, 4).unwrap();
        g.store(&p1, at(1, 1, 4, 7), 0x2000, 4).unwrap();
        g.store(&p1, at(1, 1, 4, 7), 0x2004, 4).unwrap();
        release(&mut g, &mut p1, at(1, 0, 5, 8));
        g.loads_before_stores().unwrap();
        // Program 2 stores without the lock: a conflict with program 1's store.
        let p2 = ProgramSync::default();
        let e = g.store(&p2, at(2, 0, 6, 9), 0x2000, 4).unwrap_err();
        assert_eq!(e.check, Check::GlobalStoreConflict);
        // A program that loads 0x2004 without the lock before a locked store is found after
        // the launch.
        let mut g = GlobalStores::default();
        g.record_load(at(0, 0, 0, 1), 3, 0x2004, 4);
        let mut p1 = ProgramSync::default();
        release(&mut g, &mut p1, at(1, 0, 1, 2));
        g.store(&p1, at(1, 0, 1, 3), 0x2004, 4).unwrap();
        assert!(g.loads_before_stores().is_err());
    }
}
