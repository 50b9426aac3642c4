//! A spin lock between programs, the pattern of Triton's layer-norm backward (tutorial 05):
//! `while atomic_cas(lock, 0, 1) == 1 {}`, a count read with a plain load, plain loads and
//! stores of the protected buffer, `debug_barrier()`, `atomic_xchg(lock, 0)`.
//!
//! The interpreter and the simulator run the programs one after another, so each program
//! finds the lock free and the spin loop runs its condition once; the result is the same in
//! any program order (checked on the interpreter with shuffled orders). The simulator
//! orders the plain accesses of different programs through the lock's acquire and release
//! (`dsl/src/sim/sync.rs`) and still reports the races of a broken lock: no barrier before
//! the release, no lock, relaxed atomics. A lock never released makes the next program
//! spin forever: both report that instead of hanging. ptxas accepts the kernel; the GPU
//! runs it (ignored here).

mod ptx_common;

use rstest::rstest;
use rtriton::backend::ptx::Arch;
use rtriton::diag::{Code, HasDiagnostics};
use rtriton::interp::{self, Memory, ProgramOrder, RunOptions};
use rtriton::kernel;
use rtriton::prelude::*;
use rtriton::session::CompileSession;
use rtriton::sim::Check;
use rtriton::spec::SpecPolicy;
use rtriton::trace::TraceOptions;
use rtriton_testing::run::run_simulator;
use rtriton_testing::{Backend, Case, Rule, RunError, Suite, View};

/// How [`locked_sum`] takes its lock.
const TUTORIAL: i64 = 0;
const NO_BARRIER: i64 = 1;
const NO_LOCK: i64 = 2;
const RELAXED: i64 = 3;
const NO_RELEASE: i64 = 4;

kernel! {
    /// Every program adds its row of `x` into `acc` under the lock `lock[0]`; `lock[1]`
    /// counts whether a program stored `acc` yet (the first stores, the others add). `MODE`
    /// is the tutorial's lock or one of its broken forms.
    fn locked_sum(x_ptr: Ptr<f32>, acc_ptr: Ptr<f32>, lock_ptr: Ptr<i32>, n: i32; const BLOCK: usize, const MODE: usize) {
        let row = program_id(0).to::<i64>();
        let cols = arange(0, BLOCK);
        let mask = cols.lt(n);
        let x = load(x_ptr + row * n + cols, Some(mask), Some(0.0));
        let sem = if MODE as i64 == RELAXED { Sem::Relaxed } else { Sem::AcqRel };
        let count = lock_ptr + 1;
        if MODE as i64 != NO_LOCK {
            while_loop((), |()| atomic_cas_with(lock_ptr, 0, 1, sem, Scope::Gpu).eq(1), |()| ()); // SPIN
        }
        let stored = load(count, None, None);
        let total = if_(
            stored.eq(0),
            || {
                atomic_xchg_with(count, 1, None, sem, Scope::Gpu);
                x
            },
            || x + load(acc_ptr + cols, Some(mask), None),
        );
        store(acc_ptr + cols, total, Some(mask));
        if MODE as i64 != NO_BARRIER {
            debug_barrier();
        }
        if MODE as i64 != NO_LOCK && MODE as i64 != NO_RELEASE {
            atomic_xchg_with(lock_ptr, 0, None, sem, Scope::Gpu); // RELEASE
        }
    }
}

/// `rows` programs of `n` columns in blocks of `BLOCK = block` on `warps` warps. The values
/// are small integers, so their sum is exact in any order.
fn case(name: &str, rows: usize, n: usize, (block, warps): (usize, u32), mode: i64) -> Case {
    let x: Vec<f32> = (0..rows * n).map(|i| ((i * 7) % 23) as f32 - 11.0).collect();
    Case::new(name)
        .input("x", x, View::contiguous(&[rows, n]))
        .output("acc", vec![-1.0f32; n + 3], View::contiguous(&[n + 3]))
        .output("lock", vec![0i32; 2], View::contiguous(&[2]))
        .int(n as i64)
        .constexpr("BLOCK", block as i64)
        .constexpr("MODE", mode)
        .num_warps(warps)
        .grid([rows as u32, 1, 1])
}

/// `acc[c]` the column sums, the lock free and the count 1.
fn reference(case: &mut Case) {
    let (rows, n) = (case.tensor("x").view.shape[0], case.tensor("x").view.shape[1]);
    for c in 0..n {
        let total: f32 = (0..rows).map(|r| case.tensor("x").f32_at(&[r, c])).sum();
        case.tensor_mut("acc").set_f32(&[c], total);
    }
    case.tensor_mut("lock").set_i32(&[1], 1);
}

fn suite() -> Suite {
    Suite::new(locked_sum())
        .cases([
            case("rows_128_warps_4", 9, 100, (128, 4), TUTORIAL),
            case("rows_512_warps_8", 5, 300, (512, 8), TUTORIAL),
            case("one_program", 1, 30, (32, 1), TUTORIAL),
        ])
        .reference(reference)
        .rule(Rule::BITS)
}

rtriton_testing::backend_tests!(suite => [rows_128_warps_4, rows_512_warps_8, one_program]);

#[rstest]
fn the_lock_gives_the_same_bits_in_any_program_order(#[values(1, 2, 3, 99)] seed: u64) {
    let c = case("shuffled", 9, 100, (128, 4), TUTORIAL);
    let mut mem = Memory::new();
    let placed = rtriton_testing::run::place(&mut mem, &c).unwrap();
    let verified = CompileSession::new()
        .front_end_for_args(&locked_sum(), &c.constexprs, &placed.args, SpecPolicy::Triton, &TraceOptions::default())
        .unwrap();
    interp::run_with(
        &verified,
        c.grid,
        &placed.args,
        &mut mem,
        &RunOptions { order: ProgramOrder::Shuffled { seed }, ..RunOptions::default() },
    )
    .unwrap();
    let got = rtriton_testing::run::read_outputs(&mem, &c, &placed).unwrap();
    let want = suite().expected(&c);
    assert_eq!(got.buffers, want.buffers);
}

/// The line of this file holding `marker` (in the kernel).
fn line_of(marker: &str) -> u32 {
    let src = include_str!("locks.rs");
    src.lines().position(|l| l.contains(marker)).expect("marker in the kernel") as u32 + 1
}

/// A broken lock is a race the simulator names: without the barrier, thread 0 may release
/// before the other threads' stores of `acc` are done, so the next program's load of an
/// element another thread stored is unordered; without the lock, or with relaxed atomics
/// (which synchronize nothing), the programs' accesses of `acc` and of the count are
/// unordered. The interpreter, which has no race checks, gives the sums anyway.
#[rstest]
#[case::no_barrier(NO_BARRIER, Check::GlobalRace)]
#[case::no_lock(NO_LOCK, Check::AtomicRace)]
#[case::relaxed(RELAXED, Check::AtomicRace)]
fn a_broken_lock_is_reported_by_the_simulator(#[case] mode: i64, #[case] check: Check) {
    let c = case("broken", 3, 100, (128, 4), mode);
    let e = match run_simulator(&locked_sum(), &c, SpecPolicy::Off) {
        Err(RunError::Simulator(e)) => e,
        other => panic!("expected a simulator finding, got {other:?}"),
    };
    assert_eq!((e.check, e.program), (check, Some([1, 0, 0])), "{e}");
    assert!(e.diagnostics()[0].help.contains("lock") || check != Check::GlobalRace, "{e}");
    let s = Suite::new(locked_sum()).case(c).reference(reference).rule(Rule::BITS);
    s.check("broken", Backend::Interpreter);
}

/// A program that never releases the lock: the next one would spin forever (one program
/// runs at a time), which the interpreter (`RT0407`) and the simulator (`RT0521`) report at
/// the spin loop, naming the program, instead of hanging.
#[test]
fn a_lock_never_released_is_reported_not_spun_on_forever() {
    let c = case("never_released", 3, 100, (128, 4), NO_RELEASE);
    let e = match rtriton_testing::run::run_interpreter(&locked_sum(), &c, SpecPolicy::Off) {
        Err(RunError::Interpreter(e)) => e,
        other => panic!("expected an interpreter error, got {other:?}"),
    };
    let d = &e.diagnostics()[0];
    assert_eq!(d.code, Code::InterpNoProgress, "{e}");
    assert_eq!(d.loc.map(|l| l.line), Some(line_of("// SPIN")), "{e}");
    assert!(d.message.contains("program (1, 0, 0) spins in a while loop that can never end"), "{e}");
    let e = match run_simulator(&locked_sum(), &c, SpecPolicy::Off) {
        Err(RunError::Simulator(e)) => e,
        other => panic!("expected a simulator finding, got {other:?}"),
    };
    assert_eq!((e.check, e.program), (Check::NoProgress, Some([1, 0, 0])), "{e}");
    assert_eq!(e.diagnostics()[0].code, Code::SimNoProgress);
    assert_eq!(e.loc.map(|l| l.line), Some(line_of("// SPIN")), "{e}");
}

/// The barrier is what orders the other threads' stores before the release: in the PTX a
/// `bar.sync` sits between the last store of `acc` and the releasing `atom.exch`.
#[test]
fn the_release_follows_a_barrier_in_the_ptx() {
    let options = ptx_common::options(Arch::Sm86, 4);
    let text =
        |mode| ptx_common::compile_plain(&locked_sum(), &[("BLOCK", 128), ("MODE", mode)], &options).unwrap().text;
    let release = format!("locks.rs:{}", line_of("// RELEASE"));
    let before_release = |t: &str| t[..t.find(&release).expect("the release's group comment")].to_string();
    let tutorial = before_release(&text(TUTORIAL));
    let last_store = tutorial.rfind("st.global").unwrap();
    assert!(tutorial[last_store..].contains("bar.sync 0;"), "{tutorial}");
    let broken = before_release(&text(NO_BARRIER));
    let last_store = broken.rfind("st.global").unwrap();
    assert!(!broken[last_store..].contains("bar.sync"), "{broken}");
}

#[test]
#[cfg_attr(not(has_ptxas), ignore = "needs ptxas on PATH")]
fn the_lock_assembles_for_sm86_and_sm90_without_spills() {
    let ptxas = ptx_common::ptxas("the_lock_assembles_for_sm86_and_sm90_without_spills");
    for (arch, name) in [(Arch::Sm86, "sm_86"), (Arch::Sm90, "sm_90")] {
        let text = ptx_common::compile_plain(
            &locked_sum(),
            &[("BLOCK", 512), ("MODE", TUTORIAL)],
            &ptx_common::options(arch, 8),
        )
        .unwrap()
        .text;
        let info = ptx_common::assemble(&ptxas, &text, name, "locked_sum").unwrap_or_else(|e| panic!("{e}\n{text}"));
        assert_eq!(ptx_common::spill_stores(&info), Some(0), "{info}");
    }
}
