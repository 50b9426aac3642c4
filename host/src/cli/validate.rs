//! `rtriton validate`: the row-max family against the CUDA reference (GPU) or the CPU
//! reference (interpreter, when there is no GPU). Exit status 1 on any mismatch, and when a
//! requested row was skipped unless `--allow-skips`.

use std::path::PathBuf;
use std::process::ExitCode;

use super::out::outln;
use anyhow::Context;
use clap::Args;
use rtriton::spec::SpecPolicy;
use rtriton_kernels::cases::{HUGE_CASE, RowMaxCase, SHAPE_MATRIX};

use crate::validate::{BackendChoice, OnFault, Status, ValidateOptions, render_summary, render_verbose, run};

#[derive(Debug, Args)]
pub struct ValidateArgs {
    /// Where to run: the GPU if one is found (else the interpreter), or force one.
    #[arg(long, value_enum, default_value = "auto")]
    pub backend: BackendChoice,
    /// Also run the case with more than 2^31 elements (65537 x 32768): off by default, it needs
    /// 8.6 GB of device and of host memory. The overflow guard must refuse `row_max_i32` on
    /// it (an expected refusal counts as a pass). On the interpreter only the guard runs.
    #[arg(long)]
    pub huge: bool,
    /// Validate these ports of Triton's tutorial kernels instead of the row-max family
    /// (repeatable; `ports` for all): each port's suites on the interpreter, the simulator
    /// and the GPU (when there is one), against an f64 CPU reference.
    /// The row-max family's flags are refused with it (they would be ignored).
    #[arg(long = "kernel", value_name = "NAME", conflicts_with_all = ["variants", "huge", "reference_only", "json", "inject_fault", "spec", "exact_cases", "allow_skips", "no_restart", "verbose"])]
    pub kernels: Vec<String>,
    /// Only these variants (repeatable; default: all, and the entry point `row_max_entry`).
    #[arg(long = "variant", value_name = "NAME")]
    pub variants: Vec<String>,
    /// Only the cases whose name contains this text (repeatable; default: all).
    #[arg(long = "case", value_name = "TEXT")]
    pub cases: Vec<String>,
    /// Only specialization on (`on`) or off (`off`); default both.
    #[arg(long, value_parser = ["on", "off"])]
    pub spec: Option<String>,
    /// Run only the CUDA reference against the CPU (no DSL kernels): checks the driver
    /// layer and NVRTC on a new machine.
    #[arg(long, conflicts_with = "variants")]
    pub reference_only: bool,
    /// Also write the results as JSON to this file.
    #[arg(long, value_name = "FILE")]
    pub json: Option<PathBuf>,
    /// Accept rows that could not run (e.g. `--huge` on a GPU with too little memory): without
    /// it, a skipped row makes the run INCOMPLETE and the exit status 1.
    #[arg(long)]
    pub allow_skips: bool,
    /// No progress bar.
    #[arg(long)]
    pub no_progress: bool,
    /// One table per case with every column (view, specialization key, comparisons, time),
    /// instead of the grid of marks and the details of the rows that did not pass.
    #[arg(long)]
    pub verbose: bool,
    /// Only the case with exactly this name (repeatable): how validate runs the cases
    /// after a kernel fault in a new process of itself.
    #[arg(long = "exact-case", value_name = "NAME", hide = true, conflicts_with = "cases")]
    pub exact_cases: Vec<String>,
    /// Launch a faulting kernel (a store to an unmapped address) in the case of exactly this
    /// name, to test that validate reports it and goes on with the other cases.
    #[arg(long, value_name = "NAME", hide = true)]
    pub inject_fault: Option<String>,
    /// Stop at a kernel fault the driver cannot recover from, instead of running the
    /// remaining cases in a new process.
    #[arg(long)]
    pub no_restart: bool,
}

pub fn run_cli(args: ValidateArgs) -> anyhow::Result<ExitCode> {
    if !args.kernels.is_empty() {
        return run_ports(&args);
    }
    let options = options(&args)?;
    let report = run(&options).context("validate could not start")?.with_allow_skips(args.allow_skips);
    anyhow::ensure!(
        !args.reference_only || report.backend == "gpu",
        "--reference-only runs the CUDA reference, which needs a GPU: {}",
        report.fallback_reason.as_deref().unwrap_or("the GPU was not used")
    );
    let mut notes = Vec::new();
    if options.huge && report.backend != "gpu" {
        notes.push(
            "the huge case on the interpreter: the overflow guard only (row_max_i32 must be refused; the int64 \
             variants are accepted, and run on the GPU only)"
                .to_string(),
        );
    }
    let text = if args.verbose { render_verbose(&report, &notes) } else { render_summary(&report, &notes) };
    super::out::print(&text)?;
    if let Some(path) = &args.json {
        let json = serde_json::to_string_pretty(&report).expect("the report serializes");
        std::fs::write(path, json).with_context(|| format!("could not write {}", path.display()))?;
    }
    Ok(match report.status {
        Status::Ok => ExitCode::SUCCESS,
        Status::Failed | Status::Incomplete => ExitCode::FAILURE,
    })
}

fn options(args: &ValidateArgs) -> anyhow::Result<ValidateOptions> {
    let mut o =
        ValidateOptions { huge: args.huge, backend: args.backend, progress: !args.no_progress, ..Default::default() };
    if !args.variants.is_empty() {
        let selection = super::parse_variants(&args.variants)?;
        (o.variants, o.entry) = (selection.variants, selection.entry);
    }
    if !args.cases.is_empty() {
        // Empty text is contained in every name: it would select everything silently.
        anyhow::ensure!(
            args.cases.iter().all(|t| !t.is_empty()),
            "--case \"\": empty text selects every case; give part of a case name (e.g. --case transposed) or leave --case out"
        );
        o.cases =
            SHAPE_MATRIX.iter().copied().filter(|c| args.cases.iter().any(|t| c.name.contains(t.as_str()))).collect();
        o.huge = o.huge || args.cases.iter().any(|t| "huge".contains(t.as_str()));
        anyhow::ensure!(!o.cases.is_empty() || o.huge, "no case name contains {:?}", args.cases);
    }
    if !args.exact_cases.is_empty() {
        let all: Vec<RowMaxCase> = SHAPE_MATRIX.iter().copied().chain([HUGE_CASE]).collect();
        o.cases = Vec::new();
        for name in &args.exact_cases {
            let case = all.iter().find(|c| c.name == name.as_str()).with_context(|| {
                format!(
                    "--exact-case {name:?}: no case has this name (the grid `rtriton validate` prints names every case)"
                )
            })?;
            if case.name == HUGE_CASE.name {
                o.huge = true;
            } else {
                o.cases.push(*case);
            }
        }
    }
    if let Some(name) = &args.inject_fault {
        anyhow::ensure!(
            args.backend == BackendChoice::Gpu,
            "--inject-fault tests recovery from a GPU kernel fault: use it with --backend gpu"
        );
        anyhow::ensure!(
            o.cases_to_run().iter().any(|c| c.name == name.as_str()),
            "--inject-fault {name:?}: no selected case has this name"
        );
        o.inject_fault = Some(name.clone());
    }
    if !args.no_restart {
        // The CLI may restart itself; a library caller keeps the default (stop).
        if let Ok(exe) = std::env::current_exe() {
            o.on_fault = OnFault::Restart { exe };
        }
    }
    if args.reference_only {
        o.variants.clear();
        o.entry = false;
    }
    if let Some(s) = &args.spec {
        o.policies = vec![if s == "on" { SpecPolicy::Triton } else { SpecPolicy::Off }];
    }
    Ok(o)
}

/// `validate --kernel NAME`: the ports' suites through the same runner a user's program
/// gets (`cli/suites.rs`).
fn run_ports(args: &ValidateArgs) -> anyhow::Result<ExitCode> {
    let ports = crate::ports::select(&args.kernels)?;
    let suites: Vec<rtriton_testing::Suite> = ports.iter().flat_map(|p| (p.suites)()).collect();
    let suite_args = super::suites::SuiteArgs {
        backend: match args.backend {
            BackendChoice::Auto => super::suites::SuiteBackends::Auto,
            BackendChoice::Gpu => super::suites::SuiteBackends::Gpu,
            BackendChoice::Interp => super::suites::SuiteBackends::Cpu,
        },
        kernels: Vec::new(),
        cases: args.cases.clone(),
    };
    outln!("{}", crate::provenance::Provenance::current().line())?;
    for p in &ports {
        outln!("{}: {}", p.name, p.about)?;
    }
    let mut out = String::new();
    let code = super::suites::run(&suite_args, &suites, rtriton_runtime::driver::Gpu::probe()?, &mut out)?;
    super::out::print(&out)?;
    Ok(ExitCode::from(code))
}
