//! One CTA: `num_warps * 32` threads in lock step over the decoded instructions.
//!
//! Registers are one array per register, one slot per thread (`regs[r * T + t]`), so an
//! instruction runs as a loop over the threads. Every thread executes every instruction
//! unless a loop's trip count differs between threads (which `lir` forbids): then the
//! threads that left the loop are inactive (`active`) until it ends, and a `bar.sync` or
//! `shfl.sync` they miss is reported. Each register also records which threads wrote it,
//! so reading a register never written is reported instead of returning stale bits.

mod async_copy;
mod atom;
mod control;
mod inline_asm;
mod print;
mod tensor_core;
mod tma;
mod tma_store;
mod wgmma;

use super::SimReport;
use super::async_copy::AsyncCopies;
use super::checks::{GlobalStores, SharedRaces};
use super::decode::{Decoded, MicroOp, Src, fma_bits, unary_bits};
use super::error::{Address, Check, SimFault};
use super::mbarrier::Mbarriers;
use super::sectors::WarpAccesses;
use super::shfl::source_lane;
use super::sync::{ProgramSync, Stamp};
use crate::backend::ptx::lir::{AtomOp, Guard, Special, Ty};
use crate::interp::{Memory, MemoryError};

/// Per-launch state shared by the CTAs (run one after another).
#[derive(Debug)]
pub(crate) struct Launch<'a> {
    pub d: &'a Decoded,
    pub grid: [u32; 3],
    pub threads: usize,
    pub shared_bytes: usize,
    pub stores: GlobalStores,
    pub report: SimReport,
    /// Loop iterations one program may run (`SimOptions::step_budget`).
    pub budget: u64,
}

/// The state of one CTA while it runs; reused from program to program.
#[derive(Debug)]
pub(crate) struct Cta {
    t: usize,
    pid: [u32; 3],
    regs: Vec<u64>,
    /// Registers every thread wrote (the common case, checked first).
    written_all: Vec<bool>,
    /// Per register, one bit per thread that wrote it (`words` u64 each).
    written: Vec<u64>,
    words: usize,
    active: Vec<bool>,
    all_active: bool,
    shared: Vec<u8>,
    races: SharedRaces,
    /// `cp.async` copies in flight and their groups.
    copies: AsyncCopies,
    /// Per-thread scratch rows for operands and results (`T` values each).
    scratch: [Vec<u64>; 4],
    /// Barriers passed so far (orders global stores and loads within the CTA).
    epoch: u64,
    /// What the program's threads know of the other programs' accesses (`sync.rs`).
    sync: ProgramSync,
    /// Register names for messages.
    names: Vec<String>,
    /// The op being executed (for the error's source line).
    pub pc: usize,
    /// Loop iterations (counted and while) this program has run.
    steps: u64,
    /// `wgmma` groups in flight and their accumulators.
    wgmma_groups: wgmma::WgmmaGroups,
    /// mbarriers and the tensor copies in flight on them.
    mbarriers: Mbarriers,
    /// Tensor stores still reading shared memory, by thread.
    bulk_stores: tma_store::BulkStores,
}

impl Cta {
    pub fn new(l: &Launch<'_>) -> Cta {
        let t = l.threads;
        let words = t.div_ceil(64);
        Cta {
            t,
            pid: [0; 3],
            regs: vec![0; l.d.tys.len() * t],
            written_all: vec![false; l.d.tys.len()],
            written: vec![0; l.d.tys.len() * words],
            words,
            active: vec![true; t],
            all_active: true,
            shared: vec![0; l.shared_bytes],
            races: {
                let mut r = SharedRaces::new(l.shared_bytes);
                if l.d.ops.iter().any(|o| matches!(o, MicroOp::Wgmma { .. } | MicroOp::TensorStore { .. })) {
                    r.track_async_proxy();
                }
                r
            },
            copies: AsyncCopies::new(l.shared_bytes, t),
            scratch: std::array::from_fn(|_| vec![0; t]),
            epoch: 0,
            sync: ProgramSync::default(),
            names: (0..l.d.tys.len() as u32).map(|r| l.d.reg_name(r)).collect(),
            pc: 0,
            steps: 0,
            wgmma_groups: wgmma::WgmmaGroups::default(),
            mbarriers: Mbarriers::default(),
            bulk_stores: tma_store::BulkStores::default(),
        }
    }

    /// Counts one iteration of the loop at `pc`; past the launch's budget the program stops
    /// with [`Check::StepBudget`] at that loop's line.
    fn step(&mut self, l: &Launch<'_>, pc: usize) -> Result<(), SimFault> {
        self.steps += 1;
        if self.steps <= l.budget {
            return Ok(());
        }
        self.pc = pc;
        Err(SimFault::new(
            Check::StepBudget,
            None,
            format!(
                "the program ran past its step budget of {} loop iterations in this loop; a loop whose condition never turns false (or a far bound) would run forever",
                l.budget
            ),
            format!(
                "check the loop's condition and bounds; if the kernel really needs more iterations, raise the budget with SimOptions::step_budget or {}=N",
                crate::budget::STEP_BUDGET_ENV
            ),
        ))
    }

    /// Runs program `pid` from the first instruction to the last.
    pub fn run(&mut self, l: &mut Launch<'_>, mem: &mut Memory, pid: [u32; 3]) -> Result<(), SimFault> {
        self.pid = pid;
        self.steps = 0;
        self.written_all.fill(false);
        self.written.fill(0);
        self.active.fill(true);
        self.all_active = true;
        // Shared memory starts undefined: a read of a byte no thread wrote is reported.
        self.races.start_program();
        self.copies.start_program();
        self.mbarriers.start_program();
        self.sync.start_program();
        self.wgmma_groups.start_program();
        self.bulk_stores.start_program();
        self.exec(l, mem, 0, l.d.ops.len())?;
        self.bulk_stores_done()
    }

    // ---- registers ----

    #[inline]
    fn get(&self, s: Src, t: usize) -> u64 {
        match s {
            Src::Reg(r) => self.regs[r as usize * self.t + t],
            Src::Imm(v) => v,
        }
    }

    #[inline]
    fn set(&mut self, r: u32, t: usize, v: u64) {
        self.regs[r as usize * self.t + t] = v;
    }

    /// The values of `s` for every thread, in scratch buffer `i` (taken; give it back
    /// through `self.scratch`).
    fn fetch(&mut self, s: Src, i: usize) -> Vec<u64> {
        let mut buf = std::mem::take(&mut self.scratch[i]);
        match s {
            Src::Reg(r) => {
                let base = r as usize * self.t;
                buf.copy_from_slice(&self.regs[base..base + self.t]);
            }
            Src::Imm(v) => buf.fill(v),
        }
        buf
    }

    /// Writes `vals` to register `r` for every active thread.
    fn put(&mut self, r: u32, vals: &[u64]) {
        let base = r as usize * self.t;
        if self.all_active {
            self.regs[base..base + self.t].copy_from_slice(vals);
        } else {
            for (t, v) in vals.iter().enumerate() {
                if self.active[t] {
                    self.regs[base + t] = *v;
                }
            }
        }
        self.wrote(r);
    }

    fn active(&self, t: usize) -> bool {
        self.all_active || self.active[t]
    }

    /// Records that every active thread wrote `r`.
    fn wrote(&mut self, r: u32) {
        let r = r as usize;
        if self.written_all[r] {
            return;
        }
        if self.all_active {
            self.written_all[r] = true;
            return;
        }
        for t in 0..self.t {
            if self.active[t] {
                self.written[r * self.words + t / 64] |= 1 << (t % 64);
            }
        }
        self.settle(r);
    }

    /// Records that thread `t` wrote `r`.
    fn wrote_one(&mut self, r: u32, t: usize) {
        let r = r as usize;
        if !self.written_all[r] {
            self.written[r * self.words + t / 64] |= 1 << (t % 64);
        }
    }

    /// Records that no thread has written `r` (an accumulator a `wgmma` in flight writes).
    fn unwrite(&mut self, r: u32) {
        let r = r as usize;
        self.written_all[r] = false;
        self.written[r * self.words..(r + 1) * self.words].fill(0);
    }

    /// Marks `r` written by all when every thread's bit is set.
    fn settle(&mut self, r: usize) {
        let full = (0..self.t).all(|t| self.written[r * self.words + t / 64] & (1 << (t % 64)) != 0);
        if full {
            self.written_all[r] = true;
        }
    }

    /// Every active thread must have written `s` before reading it.
    fn need(&self, s: Src) -> Result<(), SimFault> {
        match s {
            Src::Reg(r) => self.need_reg(r),
            Src::Imm(_) => Ok(()),
        }
    }

    fn need_reg(&self, r: u32) -> Result<(), SimFault> {
        let ri = r as usize;
        if self.written_all[ri] {
            return Ok(());
        }
        match (0..self.t).find(|&t| self.active(t) && !self.wrote_by(ri, t)) {
            None => Ok(()),
            Some(t) => Err(self.unwritten(ri, t)),
        }
    }

    /// Thread `t` must have written `r` before reading it (an operand only some lanes of
    /// a warp-collective instruction read).
    fn need_reg_of(&self, r: u32, t: usize) -> Result<(), SimFault> {
        let ri = r as usize;
        if self.written_all[ri] || self.wrote_by(ri, t) { Ok(()) } else { Err(self.unwritten(ri, t)) }
    }

    fn wrote_by(&self, r: usize, t: usize) -> bool {
        self.written[r * self.words + t / 64] & (1 << (t % 64)) != 0
    }

    fn unwritten(&self, r: usize, t: usize) -> SimFault {
        if let Some(e) = self.pending_accumulator(r, t) {
            return e;
        }
        SimFault::new(
            Check::UninitializedRegister,
            Some(t as u32),
            format!("register {} is read before this thread wrote it (its value is unspecified)", self.names[r]),
            "define the value before its first use on every path (a value defined inside a loop that may run zero times is not defined after it)",
        )
    }

    /// Where thread `t`'s access at the current instruction happens (for the race checks).
    fn stamp(&self, l: &Launch<'_>, t: usize) -> Stamp {
        Stamp { program: self.pid, thread: t as u32, epoch: self.epoch, step: l.report.instructions }
    }

    fn guard_holds(&self, g: Option<Guard>, t: usize) -> bool {
        match g {
            None => true,
            Some(g) => (self.regs[g.pred.index() * self.t + t] != 0) != g.negate,
        }
    }

    fn need_guard(&self, g: Option<Guard>) -> Result<(), SimFault> {
        match g {
            None => Ok(()),
            Some(g) => self.need_reg(g.pred.0),
        }
    }

    // ---- execution ----

    pub(super) fn exec(
        &mut self,
        l: &mut Launch<'_>,
        mem: &mut Memory,
        start: usize,
        end: usize,
    ) -> Result<(), SimFault> {
        let d = l.d;
        let mut pc = start;
        while pc < end {
            self.pc = pc;
            l.report.instructions += 1;
            match &d.ops[pc] {
                MicroOp::Nop => {}
                MicroOp::Mov { dst, src } => {
                    self.need(*src)?;
                    let mut a = self.fetch(*src, 0);
                    self.put(*dst, &a);
                    std::mem::swap(&mut self.scratch[0], &mut a);
                }
                MicroOp::Special { dst, sreg } => {
                    let mut out = std::mem::take(&mut self.scratch[3]);
                    for (t, o) in out.iter_mut().enumerate() {
                        *o = u64::from(match sreg {
                            Special::TidX => t as u32,
                            Special::CtaId(a) => self.pid.get(*a as usize).copied().unwrap_or(0),
                            Special::NCtaId(a) => l.grid.get(*a as usize).copied().unwrap_or(1),
                        });
                    }
                    self.put(*dst, &out);
                    self.scratch[3] = out;
                }
                MicroOp::Bin { f, dst, a, b } => {
                    self.need(*a)?;
                    self.need(*b)?;
                    let (x, y) = (self.fetch(*a, 0), self.fetch(*b, 1));
                    let mut out = std::mem::take(&mut self.scratch[3]);
                    let n = self.t;
                    let mut t = 0;
                    while t < n {
                        match f(x[t], y[t]) {
                            Some(v) => out[t] = v,
                            None if !self.active(t) => out[t] = 0,
                            None => {
                                return Err(SimFault::new(
                                    Check::DivisionByZero,
                                    Some(t as u32),
                                    "integer division by zero (the result is unspecified on the GPU)",
                                    "guard the divisor so that it is never zero",
                                ));
                            }
                        }
                        t += 1;
                    }
                    self.put(*dst, &out);
                    self.scratch = [x, y, std::mem::take(&mut self.scratch[2]), out];
                }
                MicroOp::Not { dst, src } => {
                    self.need_reg(*src)?;
                    let mut x = self.fetch(Src::Reg(*src), 0);
                    for v in x.iter_mut() {
                        *v ^= 1;
                    }
                    self.put(*dst, &x);
                    self.scratch[0] = x;
                }
                MicroOp::Unary { op, ty, dst, src } => {
                    self.need_reg(*src)?;
                    let mut x = self.fetch(Src::Reg(*src), 0);
                    for v in x.iter_mut() {
                        *v = unary_bits(*op, *ty, *v)?;
                    }
                    self.put(*dst, &x);
                    self.scratch[0] = x;
                }
                MicroOp::Fma { dst, a, b, c } => {
                    self.need(*a)?;
                    self.need(*b)?;
                    self.need(*c)?;
                    let (mut x, y, z) = (self.fetch(*a, 0), self.fetch(*b, 1), self.fetch(*c, 2));
                    for t in 0..self.t {
                        x[t] = fma_bits(x[t], y[t], z[t]);
                    }
                    self.put(*dst, &x);
                    self.scratch[0] = x;
                    self.scratch[1] = y;
                    self.scratch[2] = z;
                }
                MicroOp::Cvt { f, dst, src } => {
                    self.need_reg(*src)?;
                    let mut x = self.fetch(Src::Reg(*src), 0);
                    let n = self.t;
                    let mut t = 0;
                    while t < n {
                        x[t] = f(x[t]);
                        t += 1;
                    }
                    self.put(*dst, &x);
                    self.scratch[0] = x;
                }
                MicroOp::Setp { f, dst, a, b } => {
                    self.need(*a)?;
                    self.need(*b)?;
                    let (mut x, y) = (self.fetch(*a, 0), self.fetch(*b, 1));
                    let n = self.t;
                    let mut t = 0;
                    while t < n {
                        x[t] = u64::from(f(x[t], y[t]));
                        t += 1;
                    }
                    self.put(*dst, &x);
                    self.scratch[0] = x;
                    self.scratch[1] = y;
                }
                MicroOp::Selp { dst, a, b, cond } => {
                    self.need(*a)?;
                    self.need(*b)?;
                    self.need_reg(*cond)?;
                    let (mut x, y, c) = (self.fetch(*a, 0), self.fetch(*b, 1), self.fetch(Src::Reg(*cond), 2));
                    let n = self.t;
                    let mut t = 0;
                    while t < n {
                        if c[t] == 0 {
                            x[t] = y[t];
                        }
                        t += 1;
                    }
                    self.put(*dst, &x);
                    self.scratch[0] = x;
                    self.scratch[1] = y;
                    self.scratch[2] = c;
                }
                MicroOp::LdGlobal { guard, size, widen, dsts, addr, offset } => {
                    self.need_guard(*guard)?;
                    self.need_reg(*addr)?;
                    self.ld_global(l, mem, *guard, (*size, *widen), dsts, *addr, *offset)?;
                }
                MicroOp::StGlobal { guard, size, srcs, addr, offset } => {
                    self.need_guard(*guard)?;
                    self.need_reg(*addr)?;
                    for s in srcs {
                        self.need_reg(*s)?;
                    }
                    self.st_global(l, mem, *guard, *size, srcs, *addr, *offset)?;
                }
                MicroOp::Atom { guard, op, size, sem, scope, dst, addr, src } => {
                    self.need_guard(*guard)?;
                    self.need_reg(*addr)?;
                    self.need_reg(*src)?;
                    if let AtomOp::Cas { cmp } = op {
                        self.need_reg(cmp.0)?;
                    }
                    self.atom(l, mem, *guard, (*op, *size, *sem, *scope), *dst, *addr, *src)?;
                }
                MicroOp::LdShared { size, widen, dst, addr, offset } => {
                    self.need_reg(*addr)?;
                    for t in 0..self.t {
                        if self.active(t) {
                            let a = self.shared_addr(*addr, *offset, *size, t)?;
                            self.copies.check(t as u32, a, *size, "reads")?;
                            self.races.read(t as u32, a, *size)?;
                            let mut buf = [0u8; 8];
                            buf[..*size as usize].copy_from_slice(&self.shared[a as usize..(a + size) as usize]);
                            self.set(*dst, t, widen(u64::from_le_bytes(buf)));
                        }
                    }
                    self.wrote(*dst);
                }
                MicroOp::StShared { guard, size, src, addr, offset } => {
                    self.need_guard(*guard)?;
                    self.need_reg(*addr)?;
                    self.need_reg(*src)?;
                    for t in 0..self.t {
                        if self.active(t) && self.guard_holds(*guard, t) {
                            let a = self.shared_addr(*addr, *offset, *size, t)?;
                            self.copies.check(t as u32, a, *size, "writes")?;
                            self.races.write(t as u32, a, *size)?;
                            let v = self.get(Src::Reg(*src), t).to_le_bytes();
                            self.shared[a as usize..(a + size) as usize].copy_from_slice(&v[..*size as usize]);
                        }
                    }
                }
                MicroOp::StSharedVec { guard, size, srcs, addr, offset } => {
                    self.need_guard(*guard)?;
                    self.need_reg(*addr)?;
                    for s in srcs {
                        self.need_reg(*s)?;
                    }
                    let total = *size * srcs.len() as u32;
                    for t in 0..self.t {
                        if self.active(t) && self.guard_holds(*guard, t) {
                            // the whole vector's bounds and alignment, then each element
                            let a = self.shared_addr(*addr, *offset, total, t)?;
                            self.copies.check(t as u32, a, total, "writes")?;
                            self.races.write(t as u32, a, total)?;
                            for (i, s) in srcs.iter().enumerate() {
                                let v = self.get(Src::Reg(*s), t).to_le_bytes();
                                let at = (a + i as u32 * size) as usize;
                                self.shared[at..at + *size as usize].copy_from_slice(&v[..*size as usize]);
                            }
                        }
                    }
                }
                MicroOp::LdSharedVec { size, dsts, addr, offset } => {
                    self.need_reg(*addr)?;
                    self.ld_shared_vec(*size, dsts, *addr, *offset)?;
                }
                MicroOp::CpAsync { guard, dst, offset, src, src_size } => {
                    self.need_guard(*guard)?;
                    self.need_reg(*dst)?;
                    self.need_reg(*src)?;
                    self.need(*src_size)?;
                    self.cp_async(l, mem, *guard, (*dst, *offset), *src, *src_size)?;
                }
                MicroOp::CpAsyncCommit => {
                    for t in 0..self.t {
                        if self.active(t) {
                            self.copies.commit(t as u32);
                        }
                    }
                }
                MicroOp::CpAsyncWait { pending } => self.cp_async_wait(mem, *pending)?,
                MicroOp::MbarrierInit { guard, bar, count } => {
                    self.need_guard(*guard)?;
                    self.need_reg(*bar)?;
                    self.mbarrier_init(*guard, *bar, *count)?;
                }
                MicroOp::MbarrierArrive { guard, bar, bytes } => {
                    self.need_guard(*guard)?;
                    self.need_reg(*bar)?;
                    self.mbarrier_arrive(*guard, *bar, *bytes)?;
                }
                MicroOp::TensorCopy { guard, dst, map, coords, bar } => {
                    self.need_guard(*guard)?;
                    self.need_reg(*dst)?;
                    self.need_reg(*bar)?;
                    for c in coords {
                        self.need(*c)?;
                    }
                    self.tensor_copy(l, mem, *guard, (*dst, map, coords, *bar))?;
                }
                MicroOp::MbarrierWait { bar, parity } => {
                    self.need_reg(*bar)?;
                    self.need_reg(*parity)?;
                    self.mbarrier_wait(mem, *bar, *parity)?;
                }
                MicroOp::TensorStore { guard, src, map, coords } => {
                    self.need_guard(*guard)?;
                    self.need_reg(*src)?;
                    for c in coords {
                        self.need(*c)?;
                    }
                    self.tensor_store(l, mem, *guard, (*src, map, coords))?;
                }
                MicroOp::BulkCommit { guard } => {
                    self.need_guard(*guard)?;
                    self.bulk_commit(*guard);
                }
                MicroOp::BulkWaitRead { guard, pending } => {
                    self.need_guard(*guard)?;
                    self.bulk_wait_read(*guard, *pending);
                }
                MicroOp::AssertFail { guard, message } => {
                    self.need_guard(Some(*guard))?;
                    if let Some(t) = (0..self.t).find(|&t| self.active(t) && self.guard_holds(Some(*guard), t)) {
                        return Err(SimFault::new(
                            Check::DeviceAssert,
                            Some(t as u32),
                            format!(
                                "device_assert failed: {message} (an element of the condition this thread holds is false)"
                            ),
                            "the condition does not hold for these arguments: check them, or run the interpreter for the failing element",
                        ));
                    }
                }
                MicroOp::Printf { guard, format, args } => self.printf(*guard, format, args)?,
                MicroOp::Shfl { dst, src, mode, b, c, member_mask } => {
                    self.need_reg(*src)?;
                    l.report.shuffles += self.shfl(*dst, *src, *mode, *b, *c, *member_mask)?;
                }
                MicroOp::InlineAsm { run, inputs, outputs } => self.inline_asm(*run, inputs, outputs)?,
                MicroOp::Ldmatrix { trans, dsts, addr, offset } => {
                    l.report.ldmatrix += self.ldmatrix(*trans, dsts, *addr, *offset)?;
                }
                MicroOp::WgmmaFence => {
                    self.warpgroup_collective("wgmma.fence")?;
                }
                MicroOp::Wgmma { input, n, d, a, desc, trans_b } => {
                    self.warpgroup_collective("wgmma.mma_async")?;
                    l.report.wgmma += self.wgmma(*input, *n, (d, *a), *desc, *trans_b)?;
                }
                MicroOp::WgmmaCommit => {
                    self.warpgroup_collective("wgmma.commit_group")?;
                    self.wgmma_commit();
                }
                MicroOp::WgmmaWait { pending } => {
                    self.warpgroup_collective("wgmma.wait_group")?;
                    self.wgmma_wait(*pending)?;
                }
                MicroOp::FenceProxyAsync => {
                    for t in 0..self.t {
                        if self.active(t) {
                            self.races.fence_proxy(t as u32);
                        }
                    }
                }
                MicroOp::Mma { input, d, a, b, c } => {
                    for r in a.iter().chain(b).chain(c) {
                        self.need_reg(*r)?;
                    }
                    l.report.mma += self.mma(*input, d, a, b, c)?;
                }
                MicroOp::Unpack { lo, hi, src, bits } => {
                    self.need_reg(*src)?;
                    let mut x = self.fetch(Src::Reg(*src), 0);
                    let mut high = self.fetch(Src::Reg(*src), 1);
                    let mask = (1u64 << bits) - 1;
                    for (l, h) in x.iter_mut().zip(high.iter_mut()) {
                        *h = (*h >> bits) & mask;
                        *l &= mask;
                    }
                    self.put(*lo, &x);
                    self.put(*hi, &high);
                    self.scratch[0] = x;
                    self.scratch[1] = high;
                }
                MicroOp::BarSync { id } => {
                    if let Some(t) = (0..self.t).find(|&t| !self.active(t)) {
                        let reached = self.active.iter().filter(|a| **a).count();
                        return Err(SimFault::new(
                            Check::BarrierDivergence,
                            Some(t as u32),
                            format!(
                                "bar.sync {id} is reached by {reached} of the CTA's {} threads; thread {t} does not reach it (it left a loop whose trip count differs between threads, or skipped a branch the others took)",
                                self.t
                            ),
                            "every thread of the CTA must execute every bar.sync: keep barriers out of divergent code (loop bounds and branch conditions must be uniform)",
                        ));
                    }
                    self.races.barrier();
                    self.sync.barrier();
                    self.epoch += 1;
                    l.report.barriers += 1;
                }
                MicroOp::If { cond, else_start, end } => {
                    self.run_if(l, mem, pc, *cond, *else_start, *end)?;
                    pc = *end;
                    continue;
                }
                MicroOp::While { cond, after_start, end } => {
                    self.run_while(l, mem, pc, *cond, *after_start, *end)?;
                    pc = *end;
                    continue;
                }
                MicroOp::Loop { ty, iv, lower, upper, step, end } => {
                    self.run_loop(l, mem, pc, *ty, *iv, *lower, *upper, *step, *end)?;
                    pc = *end;
                    continue;
                }
            }
            pc += 1;
        }
        Ok(())
    }

    /// `lir`'s counted loop: `step <= 0` aborts; otherwise the body runs
    /// `trips = upper > lower ? (upper - lower - 1) / step + 1 : 0` times (exact, so the
    /// induction variable never wraps inside the loop) with `iv = lower + k * step`.
    fn run_loop(
        &mut self,
        l: &mut Launch<'_>,
        mem: &mut Memory,
        pc: usize,
        ty: Ty,
        iv: u32,
        lower: Src,
        upper: Src,
        step: Src,
        end: usize,
    ) -> Result<(), SimFault> {
        self.need(lower)?;
        self.need(upper)?;
        self.need(step)?;
        let wide = ty == Ty::I64;
        let signed = |x: u64| if wide { x as i64 } else { i64::from(x as u32 as i32) };
        let outer = self.active.clone();
        let outer_all = self.all_active;
        let mut trips = vec![0u64; self.t];
        let mut steps = vec![0u64; self.t];
        for t in 0..self.t {
            if !self.active(t) {
                continue;
            }
            let (lo, hi, st) = (signed(self.get(lower, t)), signed(self.get(upper, t)), signed(self.get(step, t)));
            if st <= 0 {
                return Err(SimFault::new(
                    Check::LoopBounds,
                    Some(t as u32),
                    format!("loop step {st} is not positive (the GPU traps)"),
                    "loop steps must be positive",
                ));
            }
            trips[t] = if hi > lo { (hi.wrapping_sub(lo) as u64 - 1) / st as u64 + 1 } else { 0 };
            steps[t] = st as u64;
            self.set(iv, t, self.get(lower, t));
        }
        self.wrote(iv);
        let mut diverged = false;
        loop {
            let mut any = false;
            let mut all = true;
            for (t, left) in trips.iter().enumerate() {
                let on = (outer_all || outer[t]) && *left > 0;
                self.active[t] = on;
                any |= on;
                all &= on;
            }
            if !any {
                break;
            }
            self.step(l, pc)?;
            if !all && outer_all && !diverged {
                diverged = true;
                l.report.divergent_loops += 1;
            }
            self.all_active = all;
            self.exec(l, mem, pc + 1, end)?;
            self.pc = pc;
            for t in 0..self.t {
                if self.active[t] {
                    trips[t] -= 1;
                    // The increment after the last trip may wrap; it is never compared.
                    let next = self.get(Src::Reg(iv), t).wrapping_add(steps[t]);
                    self.set(iv, t, if wide { next } else { next & 0xFFFF_FFFF });
                }
            }
        }
        self.active = outer;
        self.all_active = outer_all;
        Ok(())
    }

    fn shared_addr(&self, addr: u32, offset: u32, size: u32, t: usize) -> Result<u32, SimFault> {
        let a = (self.get(Src::Reg(addr), t) as u32).wrapping_add(offset);
        if u64::from(a) + u64::from(size) > self.shared.len() as u64 {
            return Err(SimFault::new(
                Check::SharedOutOfBounds,
                Some(t as u32),
                format!(
                    "{size}-byte shared access at offset {a} is outside the CTA's {}-byte buffer",
                    self.shared.len()
                ),
                "size the shared buffer for every slot the kernel addresses",
            )
            .at(Address::Shared(a)));
        }
        if !a.is_multiple_of(size) {
            return Err(SimFault::new(
                Check::Misaligned,
                Some(t as u32),
                format!("{size}-byte shared access at offset {a} is not aligned to {size} bytes"),
                "align shared slots to their element size",
            )
            .at(Address::Shared(a)));
        }
        Ok(a)
    }

    /// The byte address of a vector access of `n` elements of `size` bytes by thread `t`,
    /// checked for alignment and bounds.
    fn global_addr(
        &self,
        mem: &Memory,
        addr: u32,
        offset: i64,
        size: u32,
        n: usize,
        t: usize,
        what: &str,
    ) -> Result<u64, SimFault> {
        let a = self.get(Src::Reg(addr), t).wrapping_add(offset as u64);
        let bytes = u64::from(size) * n as u64;
        if !a.is_multiple_of(bytes) {
            let vec = if n > 1 { format!(".v{n} ") } else { String::new() };
            return Err(SimFault::new(
                Check::Misaligned,
                Some(t as u32),
                format!("misaligned global {vec}{what}: {}", MemoryError::Misaligned { addr: a, bytes }),
                "a vector access needs an address aligned to its whole width; the lowering must prove alignment (divisibility of the base and strides) before widening",
            )
            .at(Address::Global(a)));
        }
        if let Err(e) = mem.read_bytes(a, bytes as usize) {
            return Err(SimFault::new(
                Check::OutOfBounds,
                Some(t as u32),
                format!("out-of-bounds global {what}: {e}"),
                format!("mask the {what} for threads whose elements lie outside the tensor, or check the sizes and strides passed to the kernel"),
            )
            .at(Address::Global(a)));
        }
        Ok(a)
    }

    fn ld_global(
        &mut self,
        l: &mut Launch<'_>,
        mem: &Memory,
        guard: Option<Guard>,
        (size, widen): (u32, super::decode::CvtFn),
        dsts: &[u32],
        addr: u32,
        offset: i64,
    ) -> Result<(), SimFault> {
        let n = dsts.len();
        let partial = guard.is_some() || !self.all_active;
        let mut warps = WarpAccesses::default();
        for t in 0..self.t {
            if !self.active(t) || !self.guard_holds(guard, t) {
                continue;
            }
            let a = self.global_addr(mem, addr, offset, size, n, t, "load")?;
            warps.add(t, a, size * n as u32);
            l.report.global_load_bytes += u64::from(size) * n as u64;
            let now = self.stamp(l, t);
            l.stores.load(&self.sync, now, a, size * n as u32)?;
            l.stores.record_load(now, self.pc, a, size * n as u32);
            let bytes = mem.read_bytes(a, size as usize * n).expect("checked in bounds");
            for (i, r) in dsts.iter().enumerate() {
                let mut buf = [0u8; 8];
                buf[..size as usize].copy_from_slice(&bytes[i * size as usize..(i + 1) * size as usize]);
                self.set(*r, t, widen(u64::from_le_bytes(buf)));
                if partial {
                    self.wrote_one(*r, t);
                }
            }
            l.report.global_loads += 1;
        }
        let (requests, sectors) = warps.count();
        l.report.global_load_requests += requests;
        l.report.global_load_sectors += sectors;
        if !partial {
            for r in dsts {
                self.wrote(*r);
            }
        } else {
            for r in dsts {
                if !self.written_all[*r as usize] {
                    self.settle(*r as usize);
                }
            }
        }
        Ok(())
    }

    fn st_global(
        &mut self,
        l: &mut Launch<'_>,
        mem: &mut Memory,
        guard: Option<Guard>,
        size: u32,
        srcs: &[u32],
        addr: u32,
        offset: i64,
    ) -> Result<(), SimFault> {
        let n = srcs.len();
        let mut buf = [0u8; 32];
        let mut warps = WarpAccesses::default();
        for t in 0..self.t {
            if !self.active(t) || !self.guard_holds(guard, t) {
                continue;
            }
            let a = self.global_addr(mem, addr, offset, size, n, t, "store")?;
            warps.add(t, a, size * n as u32);
            l.report.global_store_bytes += u64::from(size) * n as u64;
            for (i, r) in srcs.iter().enumerate() {
                let v = self.get(Src::Reg(*r), t).to_le_bytes();
                buf[i * size as usize..(i + 1) * size as usize].copy_from_slice(&v[..size as usize]);
            }
            l.stores.store(&self.sync, self.stamp(l, t), a, size * n as u32)?;
            mem.write_bytes(a, &buf[..size as usize * n]).expect("checked in bounds");
            l.report.global_stores += 1;
        }
        let (requests, sectors) = warps.count();
        l.report.global_store_requests += requests;
        l.report.global_store_sectors += sectors;
        Ok(())
    }

    /// Executes a shuffle in every warp with an active lane; returns how many warps did.
    fn shfl(
        &mut self,
        dst: u32,
        src: u32,
        mode: super::shfl::Mode,
        b: u32,
        c: u32,
        member: u32,
    ) -> Result<u64, SimFault> {
        let mut warps = 0;
        for w in 0..self.t / 32 {
            let base = w * 32;
            let mut vals = [0u64; 32];
            let mut executing = 0u32;
            for (l, v) in vals.iter_mut().enumerate() {
                *v = self.get(Src::Reg(src), base + l);
                if self.active(base + l) {
                    executing |= 1 << l;
                }
            }
            if executing == 0 {
                continue;
            }
            warps += 1;
            let help = "every lane named in the member mask must execute the shuffle, and only those: keep shuffles out of divergent code and pass the mask of the lanes that take part";
            if let Some(l) = (0..32).find(|&l| executing & (1 << l) != 0 && member & (1 << l) == 0) {
                return Err(SimFault::new(
                    Check::ShuffleMembership,
                    Some((base + l) as u32),
                    format!("lane {l} executes shfl.sync but is not in its member mask 0x{member:08x}"),
                    help,
                ));
            }
            if let Some(l) = (0..32).find(|&l| member & (1 << l) != 0 && executing & (1 << l) == 0) {
                return Err(SimFault::new(
                    Check::ShuffleMembership,
                    Some((base + l) as u32),
                    format!("lane {l} is named in the member mask 0x{member:08x} of shfl.sync but does not execute it"),
                    help,
                ));
            }
            for l in 0..32u32 {
                if executing & (1 << l) == 0 {
                    continue;
                }
                let (j, _) = source_lane(mode, l, b, c);
                if member & (1 << j) == 0 || executing & (1 << j) == 0 {
                    let why = if member & (1 << j) == 0 { "outside the member mask" } else { "inactive" };
                    return Err(SimFault::new(
                        Check::ShuffleSource,
                        Some(base as u32 + l),
                        format!(
                            "lane {l} reads lane {j} in shfl.sync.{} (b = {b}, c = 0x{c:x}, member mask 0x{member:08x}), which is {why}: the value is undefined",
                            mode.name(),
                        ),
                        "shuffle only between lanes that are active and named in the member mask",
                    ));
                }
                self.set(dst, base + l as usize, vals[j as usize]);
            }
        }
        self.wrote(dst);
        Ok(warps)
    }
}
