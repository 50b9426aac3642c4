//! The tuning loop on fake trials: what each configuration writes and how long it takes
//! are data, so every rule is checked without a GPU.

use std::collections::HashMap;

use rtriton::diag::HasDiagnostics;

use super::*;
use crate::launch::LaunchError;

/// What a fake configuration does when run.
#[derive(Clone)]
enum Behaviour {
    /// Writes these f32 values and takes these times.
    Runs(Vec<f32>, Vec<f32>),
    /// A block the device does not allow (a per-configuration refusal).
    TooManyThreads,
    /// A kernel fault that poisons the context (a device failure).
    Faults,
}

#[derive(Default)]
struct FakeTrials {
    behaviour: HashMap<String, Behaviour>,
    /// Every call, in order: `run BLOCK: 64, num_warps: 4`, `time ... (warmup 1, reps 3)`.
    calls: Vec<String>,
}

impl FakeTrials {
    fn with(rows: &[(&Config, Behaviour)]) -> FakeTrials {
        FakeTrials { behaviour: rows.iter().map(|(c, b)| (c.to_string(), b.clone())).collect(), calls: Vec::new() }
    }
}

fn bytes(v: &[f32]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}

impl Trials for FakeTrials {
    fn run(&mut self, config: &Config) -> Result<Vec<OutputBytes>, HostError> {
        self.calls.push(format!("run {config}"));
        match &self.behaviour[&config.to_string()] {
            Behaviour::Runs(out, _) => {
                Ok(vec![OutputBytes { param: "y_ptr", elem: ScalarType::F32, bytes: bytes(out) }])
            }
            Behaviour::TooManyThreads => Err(HostError::Launch(LaunchError::BlockTooLarge {
                kernel: "k".into(),
                threads: 2048,
                max: 1024,
                num_warps: 64,
            })),
            Behaviour::Faults => Err(HostError::ContextPoisoned {
                op: "cuStreamSynchronize",
                code: cudarc::driver::sys::CUresult::CUDA_ERROR_ILLEGAL_ADDRESS,
            }),
        }
    }

    fn time(&mut self, config: &Config, warmup: usize, reps: usize) -> Result<Vec<f32>, HostError> {
        self.calls.push(format!("time {config} (warmup {warmup}, reps {reps})"));
        match &self.behaviour[&config.to_string()] {
            Behaviour::Runs(_, t) => Ok(t.clone()),
            Behaviour::TooManyThreads | Behaviour::Faults => unreachable!("not timed after failing its run"),
        }
    }
}

fn site() -> Site<'static> {
    Site { kernel: "k", loc: SourceLoc { file: "src/k.rs", line: 7, column: 1 }, agreement: Agreement::Bits }
}

fn c(block: i64) -> Config {
    Config::new(&[("BLOCK", block)])
}

const Y: [f32; 3] = [1.0, -0.0, f32::INFINITY];

#[test]
fn the_fastest_median_wins_each_config_checked_once_then_timed() {
    let (a, b, d) = (c(64), c(128), c(256).num_warps(8));
    let mut t = FakeTrials::with(&[
        (&a, Behaviour::Runs(Y.to_vec(), vec![3.0, 1.0, 3.0])),
        (&b, Behaviour::Runs(Y.to_vec(), vec![2.0, 2.0, 9.0])),
        (&d, Behaviour::Runs(Y.to_vec(), vec![2.5, 2.5, 0.1])),
    ]);
    let o = tune(site(), &[a.clone(), b.clone(), d.clone()], &mut t, 1, 3).unwrap();
    // Medians 3.0, 2.0, 2.5: the second wins though the first and third have faster outliers.
    assert_eq!((o.best, o.best_config()), (1, &b));
    assert_eq!(
        t.calls,
        [
            "run BLOCK: 64, num_warps: 4",
            "time BLOCK: 64, num_warps: 4 (warmup 1, reps 3)",
            "run BLOCK: 128, num_warps: 4",
            "time BLOCK: 128, num_warps: 4 (warmup 1, reps 3)",
            "run BLOCK: 256, num_warps: 8",
            "time BLOCK: 256, num_warps: 8 (warmup 1, reps 3)",
        ]
    );
    assert!(matches!(&o.trials[2].1, Trial::Timed(s) if s.median_ms == 2.5 && s.samples == 3));
}

#[test]
fn equal_medians_go_to_the_first_declared() {
    let (a, b) = (c(64), c(128));
    let mut t =
        FakeTrials::with(&[(&a, Behaviour::Runs(Y.to_vec(), vec![2.0])), (&b, Behaviour::Runs(Y.to_vec(), vec![2.0]))]);
    assert_eq!(tune(site(), &[b.clone(), a.clone()], &mut t, 0, 1).unwrap().best_config(), &b);
}

#[test]
fn a_config_that_cannot_run_is_skipped_with_its_reason_and_the_check_is_against_the_first_that_ran() {
    let (big, a, b) = (c(1 << 20), c(64), c(128));
    let mut t = FakeTrials::with(&[
        (&big, Behaviour::TooManyThreads),
        (&a, Behaviour::Runs(Y.to_vec(), vec![2.0])),
        (&b, Behaviour::Runs(vec![1.0, 0.0, f32::INFINITY], vec![1.0])),
    ]);
    // `b` writes +0.0 where `a` wrote -0.0: compared with `a`, the first that ran.
    let e = tune(site(), &[big.clone(), a.clone(), b.clone()], &mut t, 0, 1).unwrap_err();
    assert!(e.has_code(Code::AutotuneOutputsDiffer), "{e}");
    let mut t = FakeTrials::with(&[(&big, Behaviour::TooManyThreads), (&a, Behaviour::Runs(Y.to_vec(), vec![2.0]))]);
    let o = tune(site(), &[big.clone(), a.clone()], &mut t, 0, 1).unwrap();
    assert_eq!(o.best, 1);
    assert!(
        matches!(&o.trials[0].1, Trial::CannotRun(why) if why.starts_with("kernel `k`") && why.contains("2048")),
        "{:?}",
        o.trials[0]
    );
    assert!(!t.calls.iter().any(|c| c.starts_with("time BLOCK: 1048576")), "{:?}", t.calls);
}

#[test]
fn different_outputs_stop_tuning_naming_both_configs_and_the_element() {
    let (a, b, d) = (c(64), c(128), c(256));
    let mut t = FakeTrials::with(&[
        (&a, Behaviour::Runs(Y.to_vec(), vec![2.0])),
        (&b, Behaviour::Runs(vec![1.0, -0.0, f32::NAN], vec![1.0])),
        (&d, Behaviour::Runs(Y.to_vec(), vec![1.0])),
    ]);
    let e = tune(site(), &[a, b, d], &mut t, 0, 1).unwrap_err();
    assert_eq!(
        format!("{:#}", e.diagnostics()[0]),
        "error[RT0752]: kernel `k` at src/k.rs:7: configurations `BLOCK: 64, num_warps: 4` and `BLOCK: 128, num_warps: 4` \
         wrote different outputs: `y_ptr` element 2 is inf (0x7f800000) with the first and NaN (0x7fc00000) with the other\n  \
         help: the kernel's result depends on its configuration: fix the kernel (a mask, a tail), or remove the configurations that disagree"
    );
    // The disagreeing configuration is not timed, and tuning stops there.
    assert_eq!(t.calls.len(), 3, "{:?}", t.calls);
}

#[test]
fn a_device_failure_stops_tuning_with_that_error() {
    let (a, b) = (c(64), c(128));
    let mut t = FakeTrials::with(&[(&a, Behaviour::Runs(Y.to_vec(), vec![2.0])), (&b, Behaviour::Faults)]);
    let e = tune(site(), &[a, b], &mut t, 0, 1).unwrap_err();
    assert!(e.is_context_poisoned(), "{e}");
}

#[test]
fn no_config_that_runs_is_an_error_listing_each_reason() {
    let (a, b) = (c(1 << 20), c(1 << 21));
    let mut t = FakeTrials::with(&[(&a, Behaviour::TooManyThreads), (&b, Behaviour::TooManyThreads)]);
    let e = tune(site(), &[a, b], &mut t, 0, 1).unwrap_err();
    assert!(e.has_code(Code::AutotuneNoConfigRuns), "{e}");
    let text = e.to_string();
    assert!(text.starts_with("error[RT0753]: kernel `k` at src/k.rs:7: none of the 2 configurations could run on these arguments\n  BLOCK: 1048576, num_warps: 4: kernel `k`: 2048 threads"), "{text}");
    assert!(text.contains("\n  BLOCK: 2097152, num_warps: 4: kernel `k`: 2048 threads"), "{text}");
}

#[test]
fn zero_reps_or_unusable_times_cannot_decide() {
    let a = c(64);
    let mut t = FakeTrials::with(&[(&a, Behaviour::Runs(Y.to_vec(), vec![f32::NAN]))]);
    let e = tune(site(), std::slice::from_ref(&a), &mut t, 0, 1).unwrap_err();
    assert!(e.has_code(Code::AutotuneNoConfigRuns) && e.to_string().contains("no usable times: [NaN]"), "{e}");
}

#[test]
fn the_report_reads_like_tritons_then_lists_every_config() {
    let s = |m: f64| Summary { samples: 10, median_ms: m, p10_ms: m, p90_ms: m, min_ms: m, max_ms: m };
    let o = TuneOutcome {
        best: 1,
        trials: vec![
            (c(64), Trial::Timed(s(0.5))),
            (c(128).num_warps(8), Trial::Timed(s(0.25))),
            (c(1 << 21), Trial::CannotRun("kernel `k` at a.rs:3: too large\n  help: smaller".into())),
        ],
        seconds: 1.234,
    };
    assert_eq!(
        tuning_report("row_max", "n_cols=1000, x_ptr:f32", &o),
        "rtriton autotuning for kernel row_max,
with key as (n_cols=1000, x_ptr:f32),
finished after 1.23s,
best config selected: BLOCK: 128, num_warps: 8;
  BLOCK: 64, num_warps: 4: 0.5000 ms (median of 10)
  BLOCK: 128, num_warps: 8: 0.2500 ms (median of 10)  <- best
  BLOCK: 2097152, num_warps: 4: cannot run: kernel `k` at a.rs:3: too large
"
    );
}

#[test]
fn what_stops_tuning_and_what_skips_a_config() {
    assert!(config_cannot_run(&HostError::Launch(LaunchError::MissingConstexpr {
        kernel: "k".into(),
        name: "B".into()
    })));
    assert!(!config_cannot_run(&HostError::Driver { op: "cuLaunchKernel", message: "x".into() }));
    assert!(!config_cannot_run(&HostError::NoDevice("none".into())));
}

/// With a tolerance, float outputs that differ in their last bits agree (NaN with NaN, an
/// infinity only with itself); past it, or with an infinity against a number, they differ.
#[test]
fn outputs_within_the_agreement_tolerance_agree() {
    let (a, b) = (c(64), c(128));
    let near = vec![1.0 + f32::EPSILON, -0.0, f32::INFINITY];
    let within = Site { agreement: Agreement::Within { abs: 0.0, rel: 1e-6 }, ..site() };
    let runs = |y: Vec<f32>| {
        FakeTrials::with(&[(&a, Behaviour::Runs(Y.to_vec(), vec![2.0])), (&b, Behaviour::Runs(y, vec![1.0]))])
    };
    assert_eq!(tune(within, &[a.clone(), b.clone()], &mut runs(near.clone()), 0, 1).unwrap().best, 1);
    let e = tune(site(), &[a.clone(), b.clone()], &mut runs(near), 0, 1).unwrap_err();
    assert!(e.has_code(Code::AutotuneOutputsDiffer), "bit for bit by default: {e}");
    for far in [vec![1.001, -0.0, f32::INFINITY], vec![1.0, -0.0, f32::MAX]] {
        let e = tune(within, &[a.clone(), b.clone()], &mut runs(far), 0, 1).unwrap_err();
        assert!(e.has_code(Code::AutotuneOutputsDiffer), "{e}");
    }
}
