//! The SIMT simulator: runs a lowered [`lir::Program`] on the CPU the way a GPU runs its
//! PTX, thread by thread, and checks what the GPU would silently get wrong.
//!
//! [`run`] executes the grid program by program (x fastest, then y, then z, as the
//! interpreter does) against the interpreter's [`Memory`], so the same buffers and
//! arguments work on both and their outputs can be compared bit for bit. Each CTA has
//! `num_warps * 32` threads with their own registers, executing in lock step
//! (`shfl.sync`, `ldmatrix` and `mma.sync` see the whole warp), one shared-memory buffer
//! and `bar.sync`.
//!
//! # Checks
//! Every check is a [`SimError`] naming the kernel, the block-level op's source line (from
//! the group marker the lowering puts above each op's instructions), the program, the
//! thread and the address ([`Check`] says which):
//! - global accesses out of bounds ([`Check::OutOfBounds`]) or not aligned to the vector
//!   width ([`Check::Misaligned`]); shared accesses outside the buffer or misaligned;
//! - `shfl.sync` executed by a lane outside its member mask, or not executed by a lane in
//!   it ([`Check::ShuffleMembership`]), or reading a source lane that is inactive or
//!   outside the mask ([`Check::ShuffleSource`]);
//! - `bar.sync` not reached by every thread of the CTA ([`Check::BarrierDivergence`]);
//! - `ldmatrix` or `mma.sync` executed by some lanes of a warp but not all 32
//!   ([`Check::WarpCollective`]); an `ldmatrix` row outside the shared buffer or not
//!   16-byte aligned (its rows are shared reads for every check below, by the lane that
//!   gives the row's address and by each lane that receives its bytes);
//! - two threads writing the same shared byte, or one writing and another reading it,
//!   between two barriers ([`Check::SharedRace`]);
//! - two threads storing the same global element, in one program or in two
//!   ([`Check::GlobalStoreConflict`]), and a thread loading an element another thread
//!   stored, in another program (whichever ran first) or in its own program with no
//!   barrier in between ([`Check::GlobalRace`]);
//! - a plain load or store of a global element another thread accesses atomically, in
//!   another program or in its own with no barrier in between ([`Check::AtomicRace`]), and
//!   `cta`-scoped atomics on one element from two programs ([`Check::AtomicScope`]);
//!   atomics among themselves never race; accesses of two programs that a lock orders
//!   (acquire/release atomics, `sync.rs`) do not race either;
//! - a while loop back in a state it was in with memory unchanged, which would spin
//!   forever since one program runs at a time ([`Check::NoProgress`]);
//! - a shared byte read or written while a `cp.async` writing it is in flight (not yet
//!   covered by a `cp.async.wait_group` of its thread, [`Check::AsyncCopyPending`]);
//! - an accumulator of a `wgmma` read before a `wgmma.wait_group` covers its group
//!   ([`Check::AsyncMmaPending`]), a `wgmma` operand byte whose writer did not
//!   execute `fence.proxy.async` after writing it ([`Check::AsyncProxyUnfenced`]), a
//!   shared byte written while a `wgmma` in flight reads it
//!   ([`Check::AsyncMmaOperandOverwritten`]), and one written by another warpgroup with no
//!   barrier after the wait that finished that read (a race, the read counted at the wait);
//! - a tensor copy (TMA) read before an mbarrier wait observed the phase it completes
//!   ([`Check::AsyncCopyPending`]: a wait with the wrong parity), a wait for a phase that
//!   can never complete ([`Check::MbarrierNeverCompletes`]), and a copy's box landing
//!   outside the shared buffer or misaligned for its swizzle ([`Check::TensorCopyBox`]),
//!   and global bytes it read that the kernel writes before it lands
//!   ([`Check::GlobalRace`], as for `cp.async`); a tensor store's shared bytes written
//!   without `fence.proxy.async` ([`Check::AsyncProxyUnfenced`]) or a barrier before the
//!   copy (a race), or rewritten, or left to a program's end, before a
//!   `cp.async.bulk.wait_group.read` of its thread ([`Check::TensorStorePending`]);
//! - an inline asm without a CPU model, which it cannot run ([`Check::InlineAsmNoModel`],
//!   before any thread runs; with a model, the model runs in each thread);
//! - reading a register the thread never wrote ([`Check::UninitializedRegister`]) or a
//!   shared byte no thread wrote ([`Check::UninitializedShared`]), integer division by
//!   zero, loops with a non-positive step.
//!
//! Not checked: a thread storing a global word that another thread of the *same* program
//! loaded earlier in the same barrier epoch (write after read inside a CTA); whether
//! registers are used with the type an instruction expects (`lir` has no verifier yet);
//! whether a tf32 `mma` operand was rounded to tf32 (its f32 bits are used as they are);
//! anything about speed (the simulator counts instructions and accesses, not cycles).
//!
//! Floats follow the interpreter's element semantics ([`crate::semantics::scalar`]: PTX
//! `max.f32` / `max.NaN.f32` bit for bit, `+0.0 > -0.0`); see `lir`'s docs for the rest.
//!
//! Code map: `decode.rs` (the program, flattened and typed once per launch), `cta.rs`
//! (one CTA: registers, active threads, instruction semantics, memory accesses),
//! `shfl.rs` (PTX shuffle lanes), `sectors.rs` (the 32-byte sectors each warp's global
//! access touches, for coalescing tests), `checks.rs` (race and duplicate-store bookkeeping),
//! `atomic_races.rs` (atomically accessed words), `sync.rs` (happens-before between
//! programs through acquire/release atomics), `cta/atom.rs` (atomics), `tensor_core.rs`
//! (`mma` fragment tables and arithmetic, `ldmatrix` lanes) and `cta/tensor_core.rs` (both
//! instructions warp by warp, with their checks), `wgmma.rs` (descriptors, swizzles and
//! the warpgroup product) and `cta/wgmma.rs` (`wgmma` warpgroup by warpgroup, its groups
//! and waits), `async_copy.rs` and
//! `cta/async_copy.rs` (`cp.async`: in-flight slots, groups, the copy at the wait),
//! `error.rs`, `text.rs` (the failing instruction as PTX for messages).
//!
//! **Architecture Invariant:** the simulator executes the same [`lir::Program`] the PTX
//! writer prints, never the block IR: what it checks is what the GPU runs.

mod async_copy;
mod atomic_races;
mod checks;
mod convert;
mod cta;
mod decode;
mod error;
mod inline_asm;
mod mbarrier;
pub mod sectors;
pub mod shfl;
mod sync;
mod tensor_core;
mod text;
mod wgmma;

pub use error::{Address, Check, SimError, SimErrorInfo};

use crate::backend::ptx::lir::{self, ParamTy};
use crate::interp::Memory;
use crate::spec::ArgValue;

use error::SimFault;

/// What a launch did (for tests and timing): counts over all programs.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SimReport {
    /// Programs (CTAs) run.
    pub programs: u64,
    /// Instructions executed by a CTA (each counts once, whatever the thread count).
    pub instructions: u64,
    /// Global load and store instructions executed by a thread (a vector access is one).
    pub global_loads: u64,
    pub global_stores: u64,
    /// Warp-wide global load instructions (a warp with at least one lane executing it),
    /// and the distinct 32-byte sectors each touched, summed: how well loads coalesce
    /// (`sectors.rs`; Nsight Compute's sectors per request).
    pub global_load_requests: u64,
    pub global_load_sectors: u64,
    /// The same for global stores.
    pub global_store_requests: u64,
    pub global_store_sectors: u64,
    /// Bytes the global loads and stores of all threads moved (a `.v4.f32` is 16).
    pub global_load_bytes: u64,
    pub global_store_bytes: u64,
    /// Global atomics executed by a thread (one element each).
    pub global_atomics: u64,
    /// `shfl.sync` executions, one per warp.
    pub shuffles: u64,
    /// `ldmatrix` executions, one per warp.
    pub ldmatrix: u64,
    /// `wgmma.mma_async` instructions, counted per warpgroup that executed one.
    pub wgmma: u64,
    /// `mma.sync` executions, one per warp.
    pub mma: u64,
    /// `bar.sync` executions, one per CTA.
    pub barriers: u64,
    /// Loop executions whose trip count differed between the threads of a CTA. `lir`
    /// promises uniform trip counts; a divergent loop is legal PTX as long as no barrier
    /// or shuffle sits in it (which the checks report), so it is counted, not an error.
    pub divergent_loops: u64,
}

/// Runs `program` for every CTA of `grid` with `args` (one per parameter, pointers as
/// addresses in `mem`), writing its stores to `mem`. Stops at the first failed check.
///
/// A grid with a zero dimension runs no program.
pub fn run(program: &lir::Program, grid: [u32; 3], args: &[ArgValue], mem: &mut Memory) -> Result<SimReport, SimError> {
    run_with_writers(program, grid, args, mem).map(|(report, _)| report)
}

/// Which program and thread stored each global 4-byte word of a launch (the duplicate-store
/// check's own record), so a test harness can say who wrote a wrong element.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Writers(std::collections::BTreeMap<u64, ([u32; 3], u32)>);

impl Writers {
    /// The program and thread that stored the word holding byte `addr`, if any did.
    pub fn writer_of(&self, addr: u64) -> Option<([u32; 3], u32)> {
        self.0.get(&addr).or_else(|| self.0.get(&(addr & !3))).copied()
    }
}

/// Options of a simulator run.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct SimOptions {
    /// The most loop iterations (counted loops and while loops, nested ones counted each)
    /// one program may run before the run stops with `RT0523` at the loop's line; `None`:
    /// `RTRITON_STEP_BUDGET` when set, else [`crate::budget::DEFAULT_STEP_BUDGET`].
    pub step_budget: Option<u64>,
}

impl SimOptions {
    /// These options with a step budget of `budget` loop iterations per program.
    pub fn step_budget(mut self, budget: u64) -> SimOptions {
        self.step_budget = Some(budget);
        self
    }
}

/// [`run`], also returning who stored each global word.
pub fn run_with_writers(
    program: &lir::Program,
    grid: [u32; 3],
    args: &[ArgValue],
    mem: &mut Memory,
) -> Result<(SimReport, Writers), SimError> {
    run_with_options(program, grid, args, mem, &SimOptions::default())
}

/// [`run_with_writers`] with options (the step budget).
pub fn run_with_options(
    program: &lir::Program,
    grid: [u32; 3],
    args: &[ArgValue],
    mem: &mut Memory,
    options: &SimOptions,
) -> Result<(SimReport, Writers), SimError> {
    check_args(program, args)?;
    let budget = match options.step_budget {
        Some(b) => b,
        None => crate::budget::step_budget_from_env()
            .map_err(|e| launch_error(program, e.to_string(), crate::budget::ENV_HELP))?,
    };
    inline_asm::refuse_unmodelled(program)?;
    let d = decode::decode(program, args).map_err(|f| attach(program, None, None, f))?;
    let threads = program.threads_per_cta as usize;
    if threads == 0 || !threads.is_multiple_of(32) {
        return Err(launch_error(
            program,
            format!("{threads} threads per CTA is not a whole number of warps"),
            "lower with num_warps >= 1 (threads_per_cta = num_warps * 32)",
        ));
    }
    let mut launch = cta::Launch {
        d: &d,
        grid,
        threads,
        shared_bytes: program.shared_bytes as usize,
        // Programs that store 8- or 16-bit elements track stores byte by byte.
        stores: if program.walk().iter().any(|i| matches!(i, lir::Inst::StGlobal { ty, .. } if ty.size_bytes() < 4)) {
            checks::GlobalStores::bytewise()
        } else {
            Default::default()
        },
        report: SimReport::default(),
        budget,
    };
    let mut cta = cta::Cta::new(&launch);
    for z in 0..grid[2] {
        for y in 0..grid[1] {
            for x in 0..grid[0] {
                let pid = [x, y, z];
                cta.run(&mut launch, mem, pid).map_err(|f| attach(program, Some(&d), Some((pid, cta.pc)), f))?;
                launch.report.programs += 1;
            }
        }
    }
    launch.stores.loads_before_stores().map_err(|(f, pid, pc)| attach(program, Some(&d), Some((pid, pc)), f))?;
    Ok((launch.report, Writers(launch.stores.writers())))
}

fn launch_error(p: &lir::Program, message: String, help: &str) -> SimError {
    SimError(Box::new(SimErrorInfo {
        check: Check::Launch,
        kernel: p.entry.clone(),
        loc: None,
        op: None,
        inst: None,
        program: None,
        thread: None,
        address: None,
        message,
        help: help.to_string(),
    }))
}

/// The arguments must match the parameters in number and kind.
fn check_args(p: &lir::Program, args: &[ArgValue]) -> Result<(), SimError> {
    if args.len() != p.params.len() {
        let names: Vec<&str> = p.params.iter().map(|p| p.name.as_str()).collect();
        return Err(launch_error(
            p,
            format!("{} runtime arguments given, the kernel takes {}", args.len(), p.params.len()),
            &format!("pass one value per parameter, in order: {}", names.join(", ")),
        ));
    }
    for (prm, a) in p.params.iter().zip(args) {
        let fits = match (prm.kind, *a) {
            (ParamTy::Ptr, ArgValue::Ptr(_)) | (ParamTy::I64, ArgValue::Int(_)) | (ParamTy::F32, ArgValue::F32(_)) => {
                true
            }
            (ParamTy::I32, ArgValue::Int(v)) => i32::try_from(v).is_ok(),
            // any other (parameter, argument) pair does not fit (not an op kind)
            _ => false,
        };
        if !fits {
            return Err(launch_error(
                p,
                format!("argument `{}` is declared {:?}, got {a}", prm.name, prm.kind),
                "pass a value of the declared type (pointers as device addresses from Memory)",
            ));
        }
    }
    Ok(())
}

/// Attaches the launch context to a fault: the kernel, the program, the op's group
/// marker and its source line.
fn attach(p: &lir::Program, d: Option<&decode::Decoded>, at: Option<([u32; 3], usize)>, f: SimFault) -> SimError {
    let group = d.zip(at).and_then(|(d, (_, pc))| {
        let g = *d.group_of.get(pc)?;
        d.groups.get(g as usize)
    });
    SimError(Box::new(SimErrorInfo {
        check: f.check,
        kernel: p.entry.clone(),
        loc: group.and_then(|g| g.loc),
        op: group.map(|g| g.op.clone()),
        inst: at.and_then(|(_, pc)| text::nth_inst(p, pc)).map(|i| text::inst_text(p, i)),
        program: at.map(|(pid, _)| pid),
        thread: f.thread,
        address: f.address,
        message: f.message,
        help: f.help,
    }))
}
