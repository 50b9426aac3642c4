//! Bounded execution: the interpreter and the simulator stop a loop that does not end
//! after a budget of loop iterations per program (`RunOptions::step_budget`,
//! `SimOptions::step_budget`, `RTRITON_STEP_BUDGET`, default 2^24), with `RT0409` /
//! `RT0523` at the loop's line, instead of hanging. Cases: `while_loop(n, |i| i.ge(0),
//! |i| i + 1)` on i64 (ran forever), and a body whose carried state repeats every two
//! iterations while it stores to memory (so no cycle check can prove it stuck).

use std::time::{Duration, Instant};

use rtriton::diag::{Code, HasDiagnostics};
use rtriton::interp::{self, Memory, RunOptions};
use rtriton::kernel;
use rtriton::prelude::*;
use rtriton::session::CompileSession;
use rtriton::sim::{self, Check, SimOptions};
use rtriton::spec::SpecPolicy;
use rtriton::trace::TraceOptions;
use rtriton_testing::run::{lower, place};
use rtriton_testing::{Case, Data, View};

kernel! {
    fn count_up(y_ptr: Ptr<i64>, n: i64) {
        let i = while_loop(n, |i| i.ge(0), |i| i + 1); // FOREVER
        store(y_ptr, i, None);
    }
}

kernel! {
    fn flip_flop(y_ptr: Ptr<i32>, n: i32) {
        let f = while_loop(n, |f| f.ge(0), |f| { // FLIP
            store(y_ptr, f, None);
            f * -1 + 1
        });
        store(y_ptr, f, None);
    }
}

kernel! {
    fn bounded(y_ptr: Ptr<i32>, n: i32) {
        let s = for_range(0, n, 1, full::<i32>(&[], 0), |i, s| s + i); // COUNTED
        store(y_ptr, s, None);
    }
}

fn line_of(marker: &str) -> u32 {
    let src = include_str!("step_budget.rs");
    src.lines().position(|l| l.contains(marker)).expect("marker") as u32 + 1
}

fn case(y: Data, n: i64) -> Case {
    Case::new("loop").output("y", y, View::contiguous(&[1])).int(n).num_warps(1).grid([1, 1, 1])
}

/// Runs `def` on the interpreter with `budget` (`None`: the default); the error, if any.
fn interpret(def: &rtriton::trace::KernelDef, c: &Case, budget: Option<u64>) -> Result<(), interp::InterpError> {
    let mut mem = Memory::new();
    let placed = place(&mut mem, c).unwrap();
    let verified = CompileSession::new()
        .front_end_for_args(def, &c.constexprs, &placed.args, SpecPolicy::Off, &TraceOptions::default())
        .unwrap();
    let options = RunOptions { step_budget: budget, ..RunOptions::default() };
    interp::run_with(&verified, c.grid, &placed.args, &mut mem, &options)
}

fn simulate(def: &rtriton::trace::KernelDef, c: &Case, budget: u64) -> Result<sim::SimReport, sim::SimError> {
    let mut mem = Memory::new();
    let placed = place(&mut mem, c).unwrap();
    let program =
        lower(&mut CompileSession::new(), def, &c.constexprs, &placed.args, SpecPolicy::Off, c.num_warps).unwrap();
    sim::run_with_options(&program, c.grid, &placed.args, &mut mem, &SimOptions::default().step_budget(budget))
        .map(|(r, _)| r)
}

#[rstest::rstest]
#[case::counts_up_forever(count_up as fn() -> rtriton::trace::KernelDef, Data::I64(vec![0]), "// FOREVER")]
#[case::repeats_every_two_iterations(flip_flop, Data::I32(vec![0]), "// FLIP")]
fn a_loop_that_does_not_end_stops_at_the_budget_naming_its_line(
    #[case] def: fn() -> rtriton::trace::KernelDef,
    #[case] y: Data,
    #[case] marker: &str,
) {
    let c = case(y, 0);
    let start = Instant::now();
    let e = interpret(&def(), &c, Some(100_000)).expect_err("the loop must not end");
    let d = &e.diagnostics()[0];
    assert_eq!(d.code, Code::InterpStepBudget, "{e}");
    assert_eq!(d.loc.map(|l| l.line), Some(line_of(marker)), "{e}");
    assert!(d.message.contains("step budget of 100000 loop iterations"), "{e}");
    assert!(d.help.contains("RTRITON_STEP_BUDGET"), "{e}");
    let e = simulate(&def(), &c, 100_000).expect_err("the loop must not end on the simulator");
    assert_eq!((e.check, e.program), (Check::StepBudget, Some([0, 0, 0])), "{e}");
    assert_eq!(e.diagnostics()[0].code, Code::SimStepBudget);
    assert_eq!(e.loc.map(|l| l.line), Some(line_of(marker)), "{e}");
    assert!(start.elapsed() < Duration::from_secs(60), "took {:?}", start.elapsed());
}

/// The budget counts iterations, not loops: exactly `budget` iterations run, one more
/// stops, on both back ends (a counted loop here).
#[test]
fn the_budget_is_exact_and_counted_loops_obey_it() {
    let c = case(Data::I32(vec![0]), 50);
    interpret(&bounded(), &c, Some(50)).expect("50 iterations fit a budget of 50");
    let e = interpret(&bounded(), &c, Some(49)).expect_err("50 iterations pass a budget of 49");
    assert_eq!(e.diagnostic().code, Code::InterpStepBudget);
    assert_eq!(e.diagnostic().loc.map(|l| l.line), Some(line_of("// COUNTED")));
    simulate(&bounded(), &c, 50).expect("50 iterations fit on the simulator");
    assert_eq!(simulate(&bounded(), &c, 49).unwrap_err().check, Check::StepBudget);
}

/// Without an option, the default (or `RTRITON_STEP_BUDGET`) applies: a short loop runs.
#[test]
fn the_default_budget_lets_ordinary_loops_run() {
    if std::env::var_os(rtriton::budget::STEP_BUDGET_ENV).is_none() {
        assert_eq!(rtriton::budget::step_budget_from_env(), Ok(rtriton::budget::DEFAULT_STEP_BUDGET));
    }
    interpret(&bounded(), &case(Data::I32(vec![0]), 1000), None).expect("1000 iterations");
}
