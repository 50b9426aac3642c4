//! The GPU run: the CUDA reference once per case, then every variant x specialization.

use indicatif::{ProgressBar, ProgressStyle};
use rtriton::spec::SpecPolicy;
use rtriton_kernels::cases::RowMaxCase;
use rtriton_kernels::{RowMaxVariant, cpu_row_max};

use super::launch_shape;
use super::{CPU_CHECK_MAX_ELEMS, CaseResult, Outcome, Report, ValidateOptions, compare_bits, i32_overflow_skip};
use crate::driver::{DeviceBuffer, Timer};
use crate::error::HostError;
use crate::launch::{Arg, JitKernel, Runtime, TensorArg};
use crate::reference::RowMaxReference;

/// Runs the matrix on device 0. Fails (before running anything) when there is no GPU or
/// the reference cannot be compiled.
pub fn run_gpu(options: &ValidateOptions) -> Result<Report, HostError> {
    let mut rt = Runtime::new()?;
    let reference = RowMaxReference::compile(&rt.gpu)?;
    let cases = options.gpu_cases();
    let bar = progress_bar(options.progress, cases.len() as u64 * per_case(options));
    let mut results = Vec::new();
    for case in &cases {
        bar.set_message(case.name);
        match run_case(&mut rt, &reference, options, case, &bar) {
            Ok(mut r) => results.append(&mut r),
            Err(e) => {
                let mut r = CaseResult::new(case, "cuda_reference", None);
                r.outcome = Outcome::Error { message: e.to_string() };
                results.push(r);
            }
        }
    }
    bar.finish_and_clear();
    Ok(Report::new(
        "gpu",
        format!(
            "{}; rtriton PTX targets sm_86 (.target sm_86), JIT-compiled by the driver for this GPU; the reference is \
             NVRTC PTX for compute_86",
            rt.gpu.info.summary()
        ),
        None,
        results,
        rt.stats,
    ))
}

/// Progress steps per case: the reference plus every variant x specialization.
fn per_case(options: &ValidateOptions) -> u64 {
    (1 + options.variants.len() * options.policies.len()) as u64
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
    options: &ValidateOptions,
    case: &RowMaxCase,
    bar: &ProgressBar,
) -> Result<Vec<CaseResult>, HostError> {
    let l = case.layout();
    let needed = (l.buffer_len + 2 * case.n_rows) * std::mem::size_of::<f32>();
    let (free, _) = rt.gpu.mem_info()?;
    if needed > free {
        let mut r = CaseResult::new(case, "cuda_reference", None);
        r.outcome = Outcome::Skipped {
            reason: format!("needs {needed} bytes of device memory, {free} free; run on a GPU with more memory"),
        };
        bar.inc(per_case(options));
        return Ok(vec![r]);
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

    let mut out = Vec::new();
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
        None => Outcome::Skipped { reason: "too large for the CPU check; the variants are compared with it".into() },
    };
    out.push(r);
    bar.inc(1);

    for &variant in &options.variants {
        for &policy in &options.policies {
            let mut r = CaseResult::new(case, variant.name(), Some(policy));
            r.outcome = match i32_overflow_skip(variant, case) {
                Some(reason) => Outcome::Skipped { reason },
                None => match run_variant(rt, variant, policy, case, &x, &mut y, &mut r) {
                    Ok(got) => judge(&mut r, &got, &want, cpu.as_deref()),
                    Err(e) => Outcome::Error { message: e.to_string() },
                },
            };
            out.push(r);
            bar.inc(1);
        }
    }
    Ok(out)
}

fn run_variant(
    rt: &mut Runtime,
    variant: RowMaxVariant,
    policy: SpecPolicy,
    case: &RowMaxCase,
    x: &DeviceBuffer<f32>,
    y: &mut DeviceBuffer<f32>,
    r: &mut CaseResult,
) -> Result<Vec<f32>, HostError> {
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
    // Compile (or load) first so the timing below is the kernel only.
    let prepared = rt.prepare(&kernel, &args)?;
    r.spec_key = prepared.spec.to_string();
    let timer = Timer::start(&rt.gpu)?;
    rt.launch(&kernel, &args)?;
    r.time_ms = Some(timer.stop(&rt.gpu)?);
    y.to_host(&rt.gpu)
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
