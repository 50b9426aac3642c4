//! The row-max entry point's rows in `validate` (`row_max_entry`), next to the variants'.
//!
//! - GPU: one [`RowMax`] per specialization policy for the whole run, called as a user
//!   calls it (tuning on the first case of each shape class, each configuration checked
//!   bit for bit against the first by the tuner), its rows compared with the CUDA reference
//!   and `cpu_row_max`;
//! - interpreter: no timing to choose by, so every configuration the plan offers for the
//!   case (what tuning may pick) runs, each from the `y` the entry point would give it
//!   (filled with `-inf` where a configuration splits rows), and each must equal
//!   `cpu_row_max`; past [`super::interp::INTERP_MAX_ELEMS`] (the huge case) only the
//!   overflow guard runs, on every configuration, which must accept it (i64 offsets).

use rtriton::guard::OffsetWidths;
use rtriton::interp;
use rtriton::session::CompileSession;
use rtriton::spec::{ArgValue, SpecKey, SpecPolicy};
use rtriton::trace::TraceOptions;
use rtriton_kernels::cases::RowMaxCase;
use rtriton_kernels::row_max_plan::{NOMINAL_SM_COUNT, SplitConfig, plan, vec_promise};

use super::gpu::judge;
use super::interp::INTERP_MAX_ELEMS;
use super::{CaseResult, Outcome, case_extents, compare_bits};
use crate::driver::{DeviceBuffer, Timer};
use crate::error::HostError;
use crate::launch::{LaunchError, Runtime, TensorArg, overflow_guard};
use crate::row_max::RowMax;

/// The entry point on `case` on the GPU into `y` (filled with 0xff first, so a row no
/// program writes shows); `want` is the reference's rows, `cpu` `cpu_row_max`'s.
#[allow(clippy::too_many_arguments, reason = "the case's buffers, both references and the row to fill")]
pub fn run_gpu(
    rt: &mut Runtime,
    entry: &mut RowMax,
    case: &RowMaxCase,
    x: &DeviceBuffer<f32>,
    y: &mut DeviceBuffer<f32>,
    want: &[f32],
    cpu: Option<&[f32]>,
    r: &mut CaseResult,
) -> Result<Outcome, HostError> {
    let l = case.layout();
    y.fill_bytes(&rt.gpu, 0xff)?;
    let xv = TensorArg::new(x, &[case.n_rows, case.n_cols], &[l.stride_row as isize, l.stride_col as isize])
        .with_offset(l.offset);
    let yv = TensorArg::contiguous(y, &[case.n_rows]);
    let timer = Timer::start(&rt.gpu)?;
    let launched = entry.run(rt, &xv, &yv)?;
    r.time_ms = Some(timer.stop(&rt.gpu)?);
    if let Some(l) = &launched {
        r.spec_key = l.record.spec.to_string();
        r.config = format!("{} ({}, {:?})", l.config, l.class.name(), l.decision);
    }
    let got = y.to_host(&rt.gpu)?;
    Ok(judge(r, &got, want, cpu))
}

/// The entry point on `case` on the interpreter (see the module doc); `x` is the case's
/// input when it is small enough to interpret.
pub fn run_interp(
    session: &mut CompileSession,
    policy: SpecPolicy,
    case: &RowMaxCase,
    x: Option<&[f32]>,
    want: Option<&[f32]>,
    r: &mut CaseResult,
) -> Outcome {
    let plan = match plan(rtriton::ir::ScalarType::F32, case.n_rows, case.n_cols, NOMINAL_SM_COUNT) {
        Ok(p) => p,
        Err(e) => return Outcome::Error { message: e.to_string() },
    };
    r.config = format!("{} configurations ({})", plan.configs.len(), plan.class.name());
    // The promise the entry point adds to every configuration (`RowMax`), so the
    // interpreter checks it on every case and runs the vector form the GPU runs.
    let l = case.layout();
    let vec = vec_promise(rtriton::ir::ScalarType::F32, case.n_cols, l.stride_row as isize, l.stride_col as isize);
    let mut problems = Vec::new();
    let mut ran = 0;
    for c in &plan.configs {
        let c = &SplitConfig { vec, ..*c };
        let fill = plan.fill.filter(|_| c.split > 1);
        match run_config(session, &plan.kernel, policy, case, *c, fill, x, r) {
            Ok(None) => {}
            Ok(Some(got)) => {
                ran += 1;
                let want = want.expect("a case run on the interpreter has its CPU rows");
                let cmp = compare_bits(&got, want);
                if !cmp.equal() {
                    problems.push(format!("{c}: {}", cmp.describe("cpu_row_max")));
                }
            }
            Err(message) => problems.push(format!("{c}: {message}")),
        }
    }
    if !problems.is_empty() {
        return Outcome::Mismatch { detail: problems.join("; ") };
    }
    if ran == 0 {
        return Outcome::Skipped {
            reason: format!(
                "accepted by the overflow guard under each of the {} configurations; the interpreter runs cases up to \
                 {INTERP_MAX_ELEMS} elements, this one has {}: run it on the GPU",
                plan.configs.len(),
                case.numel()
            ),
        };
    }
    r.vs_cpu = Some(true);
    Outcome::Match
}

/// One configuration: traced, guarded like a launch, and (given `x`) interpreted from a
/// `y` holding `fill` (or 0xFF.. where no fill is needed). `Ok(None)`: guarded only.
#[allow(clippy::too_many_arguments, reason = "one launch's kernel, configuration, fill, input and row")]
fn run_config(
    session: &mut CompileSession,
    def: &rtriton::trace::KernelDef,
    policy: SpecPolicy,
    case: &RowMaxCase,
    c: SplitConfig,
    fill: Option<u32>,
    x: Option<&[f32]>,
    r: &mut CaseResult,
) -> Result<Option<Vec<f32>>, String> {
    let l = case.layout();
    let mut mem = interp::Memory::new();
    let y0 = vec![f32::from_bits(fill.unwrap_or(u32::MAX)); case.n_rows];
    let (x_addr, y_addr) = match x {
        Some(x) => (mem.alloc_f32(x), mem.alloc_f32(&y0)),
        None => (0x7f00_0000_0000, 0x7f00_0000_0000 + (1 << 40)),
    };
    let args = [
        ArgValue::Ptr(x_addr + 4 * l.offset as u64),
        ArgValue::Ptr(y_addr),
        ArgValue::Int(case.n_rows as i64),
        ArgValue::Int(case.n_cols as i64),
        ArgValue::Int(l.stride_row as i64),
        ArgValue::Int(l.stride_col as i64),
    ];
    let spec = SpecKey::from_args(def.name, &def.params, &args, policy).map_err(|e| e.to_string())?;
    r.spec_key = spec.to_string();
    let verified =
        session.front_end(def, &c.constexprs(), &spec, &TraceOptions::default()).map_err(|e| e.to_string())?;
    match overflow_guard(&OffsetWidths::of(verified.kernel()), &case_extents(case)) {
        Ok(()) => {}
        Err(LaunchError::IndexOverflow(d)) => return Err(format!("the overflow guard refused it: {d}")),
        Err(e) => return Err(e.to_string()),
    }
    let Some(_) = x else { return Ok(None) };
    let [gx, gy, gz] = c.grid(case.n_rows);
    interp::run(&verified, [gx as u32, gy as u32, gz as u32], &args, &mut mem).map_err(|e| e.to_string())?;
    mem.read_f32(y_addr, case.n_rows).map(Some).map_err(|e| e.to_string())
}
