//! Bookkeeping of the checks that span several threads: shared-memory races between two
//! barriers ([`SharedRaces`]) and two threads storing the same global element
//! ([`GlobalStores`]). The per-access checks (bounds, alignment) and the warp and barrier
//! checks live where the access is executed, in [`super::cta`].

use std::collections::BTreeMap;

use super::atomic_races::AtomicWords;
use super::error::{Address, Check, SimFault};
use crate::ir::Scope;

const NONE: u32 = u32::MAX;

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
}

impl SharedRaces {
    pub fn new(bytes: usize) -> SharedRaces {
        SharedRaces {
            writer: vec![NONE; bytes],
            readers: vec![[NONE; 2]; bytes],
            touched: Vec::new(),
            defined: vec![false; bytes],
        }
    }

    /// A new program: nothing is written yet.
    pub fn start_program(&mut self) {
        self.barrier();
        self.defined.fill(false);
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
            if w != NONE && w != t {
                return Err(race(t, addr, format!("thread {t} reads shared byte {b} that thread {w} wrote")));
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

    /// Thread `t` writes bytes `addr..addr + n` (already bounds-checked).
    pub fn write(&mut self, t: u32, addr: u32, n: u32) -> Result<(), SimFault> {
        for b in addr as usize..(addr + n) as usize {
            let w = self.writer[b];
            if w != NONE && w != t {
                return Err(race(t, addr, format!("threads {w} and {t} both write shared byte {b}")));
            }
            let r = self.readers[b];
            if let Some(other) = r.iter().find(|&&x| x != NONE && x != t) {
                return Err(race(t, addr, format!("thread {t} writes shared byte {b} that thread {other} read")));
            }
            self.touch(b);
            self.writer[b] = t;
            self.defined[b] = true;
        }
        Ok(())
    }
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

/// Bytes `start..end` that op `pc` of `program` loaded (from `first_thread` on).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct LoadRun {
    start: u64,
    end: u64,
    program: [u32; 3],
    first_thread: u32,
    pc: usize,
}

/// Who stored a global word: the program, the thread and the thread's barrier epoch.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Stored {
    program: [u32; 3],
    thread: u32,
    epoch: u64,
}

fn program_text(p: [u32; 3]) -> String {
    format!("({}, {}, {})", p[0], p[1], p[2])
}

/// Every global granule stored during the launch, with who stored it: 4-byte words, or
/// single bytes in a program that stores 8- or 16-bit elements ([`GlobalStores::bytewise`],
/// so two threads storing neighbouring bytes do not conflict). Two threads storing one
/// granule is a conflict (which value lands is up to the hardware); a thread
/// loading a word another thread stored is a race unless both are in one CTA with a
/// `bar.sync` in between (CTAs run in any order, concurrently), whichever of the two the
/// simulator ran first.
#[derive(Debug, Default)]
pub(crate) struct GlobalStores {
    words: BTreeMap<u64, Stored>,
    /// Every load, as runs of consecutive bytes one op of one program read (consecutive
    /// threads' accesses merge), checked at the end against later stores.
    loads: Vec<LoadRun>,
    /// The lowest and highest stored word (loads outside skip the lookup).
    lo: u64,
    hi: u64,
    /// The words accessed atomically (plain accesses of them race).
    atomics: AtomicWords,
    /// Granules are single bytes instead of 4-byte words.
    bytewise: bool,
}

impl GlobalStores {
    /// Bookkeeping by single bytes (for programs with stores narrower than 4 bytes).
    pub fn bytewise() -> GlobalStores {
        GlobalStores { bytewise: true, ..GlobalStores::default() }
    }

    /// The granules `addr..addr + bytes` touches.
    fn granules(&self, addr: u64, bytes: u32) -> std::iter::StepBy<std::ops::Range<u64>> {
        if self.bytewise {
            (addr..addr + u64::from(bytes)).step_by(1)
        } else {
            (addr & !3..addr + u64::from(bytes)).step_by(4)
        }
    }

    /// Who stored each word: (program, thread).
    pub fn writers(&self) -> BTreeMap<u64, ([u32; 3], u32)> {
        self.words.iter().map(|(&w, s)| (w, (s.program, s.thread))).collect()
    }

    /// Thread `t` of `program` stores `bytes` bytes at `addr` (aligned, in bounds) in
    /// barrier epoch `epoch`. A thread may overwrite its own stores.
    pub fn store(&mut self, program: [u32; 3], t: u32, epoch: u64, addr: u64, bytes: u32) -> Result<(), SimFault> {
        self.atomics.plain(program, t, epoch, addr, bytes, "stores")?;
        let now = Stored { program, thread: t, epoch };
        if self.words.is_empty() {
            (self.lo, self.hi) = (u64::MAX, 0);
        }
        self.lo = self.lo.min(addr & !3);
        self.hi = self.hi.max(addr + u64::from(bytes));
        for w in self.granules(addr, bytes) {
            match self.words.insert(w, now) {
                Some(before) if before.program != program || before.thread != t => {
                    let who = if before.program == program {
                        format!("thread {} of the same program", before.thread)
                    } else {
                        format!("thread {} of program {}", before.thread, program_text(before.program))
                    };
                    return Err(SimFault::new(
                        Check::GlobalStoreConflict,
                        Some(t),
                        format!("two threads store the same global element: thread {t} and {who}"),
                        "guard the store so exactly one thread writes each element (the owner of its first copy)",
                    )
                    .at(Address::Global(addr)));
                }
                // same thread, or an earlier barrier epoch: no conflict (not an op kind)
                _ => {}
            }
        }
        Ok(())
    }

    /// Thread `t` of `program` accesses `bytes` bytes at `addr` atomically in barrier epoch
    /// `epoch`: a race with a plain store of the word by another program, or by another
    /// thread of its program in the same epoch (see `atomic_races.rs` for the rest).
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
            if let Some(s) = self.words.get(&w)
                && !(s.program == program && (s.thread == t || s.epoch != epoch))
            {
                let mut fault =
                    super::atomic_races::plain_vs_atomic(s.thread, "stores", s.program == program, program, t, addr);
                fault.thread = Some(t);
                return Err(fault);
            }
        }
        self.atomics.atomic(program, t, epoch, addr, bytes, scope)
    }

    /// Records that thread `t` of `program` loaded `addr..addr + bytes` at op `pc`.
    pub fn record_load(&mut self, program: [u32; 3], t: u32, pc: usize, addr: u64, bytes: u32) {
        let end = addr + u64::from(bytes);
        if let Some(last) = self.loads.last_mut()
            && last.program == program
            && last.pc == pc
            && last.start <= addr
            && addr <= last.end
        {
            // Consecutive (or repeated: a scalar every thread loads) bytes extend the run.
            last.end = last.end.max(end);
            return;
        }
        self.loads.push(LoadRun { start: addr, end, program, first_thread: t, pc });
    }

    /// After the launch: a load of a word that another program stored *later* in the
    /// simulator's order (the earlier case is reported when the load runs). Returns the
    /// fault with the loading program and op.
    pub fn loads_before_stores(&self) -> Result<(), (SimFault, [u32; 3], usize)> {
        if !self.atomics.is_empty() {
            for run in &self.loads {
                if let Some(fault) = self.atomics.loaded(run.program, run.first_thread, run.start, run.end) {
                    return Err((fault, run.program, run.pc));
                }
            }
        }
        if self.words.is_empty() {
            return Ok(());
        }
        for run in &self.loads {
            if run.end <= self.lo || run.start >= self.hi {
                continue;
            }
            if let Some((&w, s)) = self.words.range(run.start & !3..run.end).find(|(_, s)| s.program != run.program) {
                let fault = SimFault::new(
                    Check::GlobalRace,
                    Some(run.first_thread),
                    format!(
                        "program {} loads a global element that thread {} of program {} stores in this launch (the loading threads start at thread {})",
                        program_text(run.program),
                        s.thread,
                        program_text(s.program),
                        run.first_thread
                    ),
                    "programs run in any order, concurrently: a program must not read what another program of the same launch writes (split the work into two launches)",
                )
                .at(Address::Global(w.max(run.start)));
                return Err((fault, run.program, run.pc));
            }
        }
        Ok(())
    }

    /// Thread `t` of `program` loads `bytes` bytes at `addr` in barrier epoch `epoch`.
    pub fn load(&self, program: [u32; 3], t: u32, epoch: u64, addr: u64, bytes: u32) -> Result<(), SimFault> {
        self.atomics.plain(program, t, epoch, addr, bytes, "loads")?;
        if self.words.is_empty() || addr + u64::from(bytes) <= self.lo || addr >= self.hi {
            return Ok(());
        }
        for w in self.granules(addr, bytes) {
            let Some(s) = self.words.get(&w) else { continue };
            let ordered = s.program == program && (s.thread == t || s.epoch != epoch);
            if !ordered {
                let (who, help) = if s.program == program {
                    (
                        format!("thread {} of the same program, with no bar.sync in between", s.thread),
                        "put a bar.sync between the store and the other thread's load",
                    )
                } else {
                    (
                        format!("thread {} of program {}", s.thread, program_text(s.program)),
                        "programs run in any order, concurrently: a program must not read what another program of the same launch writes (split the work into two launches)",
                    )
                };
                return Err(SimFault::new(
                    Check::GlobalRace,
                    Some(t),
                    format!("thread {t} loads a global element that {who} stored during this launch"),
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

    #[test]
    fn global_stores_conflict_within_and_across_programs() {
        let mut g = GlobalStores::default();
        g.store([0, 0, 0], 0, 0, 0x1000, 16).unwrap();
        g.store([0, 0, 0], 0, 1, 0x1000, 4).unwrap();
        let e = g.store([0, 0, 0], 5, 1, 0x1008, 4).unwrap_err();
        assert!(e.message.contains("thread 5 and thread 0 of the same program"), "{}", e.message);
        let e = g.store([1, 0, 0], 3, 1, 0x1000, 4).unwrap_err();
        assert!(e.message.contains("of program (0, 0, 0)"), "{}", e.message);
    }

    #[test]
    fn loads_of_stored_elements_need_the_same_program_and_a_barrier() {
        let mut g = GlobalStores::default();
        g.load([0, 0, 0], 0, 0, 0x1000, 4).unwrap();
        g.store([0, 0, 0], 0, 0, 0x1000, 4).unwrap();
        g.load([0, 0, 0], 0, 0, 0x1000, 4).unwrap();
        g.load([0, 0, 0], 1, 1, 0x1000, 4).unwrap();
        let e = g.load([0, 0, 0], 1, 0, 0x1000, 4).unwrap_err();
        assert_eq!(e.check, Check::GlobalRace);
        assert!(e.message.contains("with no bar.sync in between"), "{}", e.message);
        let e = g.load([2, 0, 0], 0, 5, 0x1000, 4).unwrap_err();
        assert!(e.message.contains("thread 0 of program (0, 0, 0) stored"), "{}", e.message);
    }

    #[test]
    fn a_load_before_another_programs_store_is_found_after_the_launch() {
        let mut g = GlobalStores::default();
        // Program 0's threads 0..3 read 0x2000..0x2010 in one run; program 1 stores 0x2008.
        for t in 0..4 {
            g.record_load([0, 0, 0], t, 7, 0x2000 + u64::from(t) * 4, 4);
        }
        g.record_load([1, 0, 0], 0, 7, 0x3000, 4);
        g.store([1, 0, 0], 0, 0, 0x3000, 4).unwrap();
        g.loads_before_stores().unwrap();
        g.store([1, 0, 0], 2, 0, 0x2008, 4).unwrap();
        let (e, program, pc) = g.loads_before_stores().unwrap_err();
        assert_eq!((program, pc, e.address), ([0, 0, 0], 7, Some(Address::Global(0x2008))));
        assert!(
            e.message.contains("program (0, 0, 0) loads a global element that thread 2 of program (1, 0, 0) stores")
        );
    }
}
