//! The GPU run: the CUDA reference once per case, then every variant x specialization.

use indicatif::{ProgressBar, ProgressStyle};
use rtriton::spec::{SpecKey, SpecPolicy};
use rtriton_kernels::cases::RowMaxCase;
use rtriton_kernels::{RowMaxVariant, cpu_row_max};

use super::launch_shape;
use super::{
    CPU_CHECK_MAX_ELEMS, CaseResult, OnFault, Outcome, Report, ValidateOptions, compare_bits, expects_overflow_refusal,
    not_refused, refused,
};
use crate::driver::{DeviceBuffer, Timer};
use crate::error::HostError;
use crate::launch::{Arg, CacheStats, JitKernel, LaunchError, Runtime, TensorArg};
use crate::reference::RowMaxReference;
use crate::row_max::{ENTRY_NAME, RowMax};

/// Runs the matrix on device 0. Fails (before running anything) when there is no GPU or
/// the reference cannot be compiled.
pub fn run_gpu(options: &ValidateOptions) -> Result<Report, HostError> {
    let mut rt = Runtime::new()?;
    let gpu_summary = rt.gpu.info.summary();
    let mut reference = RowMaxReference::compile(&rt.gpu)?;
    // One entry point per policy for the whole run: each shape class tunes once.
    let mut entries: Vec<(SpecPolicy, RowMax)> =
        options.policies.iter().map(|&p| (p, RowMax::new().spec_policy(p))).collect();
    let cases = options.cases_to_run();
    let bar = progress_bar(options.progress, cases.len() as u64 * per_case(options));
    let mut results = Vec::new();
    let mut restarts = Vec::new();
    for (i, case) in cases.iter().enumerate() {
        bar.set_message(case.name);
        let Err(e) = run_case(&mut rt, &reference, &mut entries, options, case, &bar, &mut results) else { continue };
        let mut r = CaseResult::new(case, "cuda_reference", None);
        let poisoned = e.is_context_poisoned();
        r.outcome = Outcome::Error {
            message: if poisoned { format!("case stopped by a kernel fault: {e}") } else { e.to_string() },
        };
        results.push(r);
        if !poisoned {
            continue;
        }
        // A kernel fault poisons the context: try to reset it so the next case still runs
        // in this process (the reference's module lived in the old context and is loaded
        // again). Where the driver refuses a new context (the H200 with driver 580 does),
        // the remaining cases run in a new process (`OnFault::Restart`, the CLI's choice)
        // or validate stops with an error naming the cases run (`OnFault::Stop`).
        drop(reference);
        let stats_before = rt.stats;
        match rt.recover() {
            Ok(recovered) => {
                rt = recovered;
                reference = RowMaxReference::compile(&rt.gpu)?;
            }
            Err(refusal) => {
                let OnFault::Restart { exe } = &options.on_fault else {
                    let mut done: Vec<&str> = results.iter().map(|r: &CaseResult| r.case.as_str()).collect();
                    done.dedup();
                    return Err(HostError::Driver {
                        op: "Runtime::recover",
                        message: format!(
                            "{refusal}; the driver gives no new context after the fault, so validate stops here \
                             (cases run: {}); restart it without the failing case",
                            done.join(", ")
                        ),
                    });
                };
                bar.finish_and_clear();
                restarts.push(case.name.to_string());
                let child = super::restart::run_remaining(exe, options, &cases[i + 1..]);
                results.extend(child.results);
                restarts.extend(child.restarts);
                let mut report = Report::new(
                    "gpu",
                    device_line(&format!("{} (cases after a kernel fault ran in a new process)", gpu_summary)),
                    None,
                    results,
                    CacheStats {
                        compiles: stats_before.compiles + child.cache.compiles,
                        disk_hits: stats_before.disk_hits + child.cache.disk_hits,
                        memory_hits: stats_before.memory_hits + child.cache.memory_hits,
                    },
                );
                report.restarts = restarts;
                return Ok(report);
            }
        }
    }
    bar.finish_and_clear();
    let mut report = Report::new("gpu", device_line(&rt.gpu.info.summary()), None, results, rt.stats);
    report.restarts = restarts;
    Ok(report)
}

/// The report's device text: the GPU, and that the PTX targets sm_86 and is JIT-compiled.
fn device_line(gpu: &str) -> String {
    format!(
        "{gpu}; rtriton PTX targets sm_86 (.target sm_86), JIT-compiled by the driver for this GPU; the reference is \
         NVRTC PTX for compute_86"
    )
}

/// Progress steps per case: the reference plus every variant (and the entry point) x
/// specialization.
fn per_case(options: &ValidateOptions) -> u64 {
    (1 + options.kernels_per_case() * options.policies.len()) as u64
}

fn progress_bar(enabled: bool, len: u64) -> ProgressBar {
    if !enabled {
        return ProgressBar::hidden();
    }
    let bar = ProgressBar::new(len);
    bar.set_style(ProgressStyle::with_template("{bar:40} {pos}/{len} {elapsed} {msg}").expect("the template is valid"));
    bar
}

/// The reference row and every variant row for one case.
fn run_case(
    rt: &mut Runtime,
    reference: &RowMaxReference,
    entries: &mut [(SpecPolicy, RowMax)],
    options: &ValidateOptions,
    case: &RowMaxCase,
    bar: &ProgressBar,
    out: &mut Vec<CaseResult>,
) -> Result<(), HostError> {
    let l = case.layout();
    // Checked: a case too large to count in bytes is too large for any GPU.
    let needed = l.buffer_len.checked_add(2 * case.n_rows).and_then(|n| n.checked_mul(std::mem::size_of::<f32>()));
    let (free, _) = rt.gpu.mem_info()?;
    if needed.is_none_or(|n| n > free) {
        // Every requested row is reported as skipped, so the JSON lists what did not run.
        let needed = needed.map_or("more than usize::MAX".to_string(), |n| n.to_string());
        let reason = format!("needs {needed} bytes of device memory, {free} free; run on a GPU with more memory");
        let mut rows = vec![CaseResult::new(case, "cuda_reference", None)];
        for &variant in &options.variants {
            for &policy in &options.policies {
                rows.push(CaseResult::new(case, variant.name(), Some(policy)));
            }
        }
        if options.entry {
            rows.extend(options.policies.iter().map(|&p| CaseResult::new(case, ENTRY_NAME, Some(p))));
        }
        for mut r in rows {
            r.outcome = Outcome::Skipped { reason: reason.clone() };
            out.push(r);
        }
        bar.inc(per_case(options));
        return Ok(());
    }
    let host_x = case.input();
    let cpu = (case.numel() <= CPU_CHECK_MAX_ELEMS).then(|| {
        cpu_row_max(&host_x, l.offset, case.n_rows, case.n_cols, l.stride_row as isize, l.stride_col as isize, false)
    });
    let gpu = &rt.gpu;
    let x = DeviceBuffer::from_host(gpu, &host_x)?;
    drop(host_x);
    let mut y = DeviceBuffer::<f32>::zeros(gpu, case.n_rows)?;
    let view = || {
        TensorArg::new(&x, &[case.n_rows, case.n_cols], &[l.stride_row as isize, l.stride_col as isize])
            .with_offset(l.offset)
    };

    let mut r = CaseResult::new(case, "cuda_reference", None);
    y.fill_bytes(gpu, 0xff)?;
    let timer = Timer::start(gpu)?;
    reference.run(gpu, &view(), &mut y)?;
    r.time_ms = Some(timer.stop(gpu)?);
    let want = y.to_host(gpu)?;
    r.outcome = match &cpu {
        Some(cpu) => {
            let c = compare_bits(&want, cpu);
            r.vs_cpu = Some(c.equal());
            if c.equal() { Outcome::Match } else { Outcome::Mismatch { detail: c.describe("cpu_row_max") } }
        }
        None => Outcome::Unchecked { reason: "too large for the CPU check; the variants are compared with it".into() },
    };
    out.push(r);
    bar.inc(1);

    if options.inject_fault.as_deref() == Some(case.name) {
        let e = super::fault::inject(gpu);
        let mut r = CaseResult::new(case, "injected_fault", None);
        r.outcome = Outcome::Error { message: format!("--inject-fault: {e}") };
        out.push(r);
        return Err(e);
    }

    for &variant in &options.variants {
        for &policy in &options.policies {
            let mut r = CaseResult::new(case, variant.name(), Some(policy));
            let expect_refusal = expects_overflow_refusal(variant, case);
            r.outcome = match run_variant(rt, variant, policy, case, &x, &mut y, &mut r, expect_refusal) {
                Ok(Some(got)) => judge(&mut r, &got, &want, cpu.as_deref()),
                Ok(None) => not_refused(variant, case),
                Err(HostError::Launch(LaunchError::IndexOverflow(d))) => refused(&d, expect_refusal),
                // The context is unusable: record this row, stop the case (the caller
                // recovers the runtime and goes on with the next case).
                Err(e) if e.is_context_poisoned() => {
                    r.outcome = Outcome::Error { message: e.to_string() };
                    out.push(r);
                    return Err(e);
                }
                Err(e) => Outcome::Error { message: e.to_string() },
            };
            out.push(r);
            bar.inc(1);
        }
    }
    if options.entry {
        for (policy, entry) in entries.iter_mut() {
            let mut r = CaseResult::new(case, ENTRY_NAME, Some(*policy));
            r.outcome = match super::entry::run_gpu(rt, entry, case, &x, &mut y, &want, cpu.as_deref(), &mut r) {
                Ok(outcome) => outcome,
                Err(e) if e.is_context_poisoned() => {
                    r.outcome = Outcome::Error { message: e.to_string() };
                    out.push(r);
                    return Err(e);
                }
                Err(e) => Outcome::Error { message: e.to_string() },
            };
            out.push(r);
            bar.inc(1);
        }
    }
    Ok(())
}

/// Launches `variant` on `case` through the launch API and returns its rows. The launch
/// path's checks run first (`Runtime::prepare`, which includes the overflow guard); when
/// `expect_refusal` and they pass, nothing is launched and the result is `None`.
fn run_variant(
    rt: &mut Runtime,
    variant: RowMaxVariant,
    policy: SpecPolicy,
    case: &RowMaxCase,
    x: &DeviceBuffer<f32>,
    y: &mut DeviceBuffer<f32>,
    r: &mut CaseResult,
    expect_refusal: bool,
) -> Result<Option<Vec<f32>>, HostError> {
    let l = case.layout();
    let shape = launch_shape(variant, case);
    let grid = shape.grid;
    let kernel = JitKernel::new(variant.def())
        .constexprs(&shape.constexprs)
        .num_warps(shape.num_warps)
        .spec_policy(policy)
        .grid(move |_| [grid, 1, 1]);
    y.fill_bytes(&rt.gpu, 0xff)?;
    let xv = TensorArg::new(x, &[case.n_rows, case.n_cols], &[l.stride_row as isize, l.stride_col as isize])
        .with_offset(l.offset);
    let args = [
        Arg::Tensor(xv),
        Arg::Tensor(TensorArg::contiguous(y, &[case.n_rows])),
        Arg::Int(case.n_rows as i64),
        Arg::Int(case.n_cols as i64),
        Arg::Int(l.stride_row as i64),
        Arg::Int(l.stride_col as i64),
    ];
    // The key for the report; a launch the checks refuse below reports why instead.
    if let Ok(values) = crate::launch::arg_values(kernel.def.name, &kernel.def.params, &args)
        && let Ok(spec) = SpecKey::from_args(kernel.def.name, &kernel.def.params, &values, policy)
    {
        r.spec_key = spec.to_string();
    }
    // Check, guard and compile (or load) first so the timing below is the kernel only.
    rt.prepare(&kernel, &args)?;
    if expect_refusal {
        return Ok(None);
    }
    let timer = Timer::start(&rt.gpu)?;
    rt.launch(&kernel, &args)?;
    r.time_ms = Some(timer.stop(&rt.gpu)?);
    y.to_host(&rt.gpu).map(Some)
}

/// Compares a variant's rows with the reference and (when there) the CPU.
pub(crate) fn judge(r: &mut CaseResult, got: &[f32], reference: &[f32], cpu: Option<&[f32]>) -> Outcome {
    let vs_ref = compare_bits(got, reference);
    r.vs_reference = Some(vs_ref.equal());
    let mut problems = Vec::new();
    if !vs_ref.equal() {
        problems.push(vs_ref.describe("the CUDA reference"));
    }
    if let Some(cpu) = cpu {
        let c = compare_bits(got, cpu);
        r.vs_cpu = Some(c.equal());
        if !c.equal() {
            problems.push(c.describe("cpu_row_max"));
        }
    }
    if problems.is_empty() { Outcome::Match } else { Outcome::Mismatch { detail: problems.join("; ") } }
}
