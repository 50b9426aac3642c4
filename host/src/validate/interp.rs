//! The interpreter run (no GPU): every variant x case x specialization on the CPU
//! interpreter, compared bit for bit with `cpu_row_max`, behind the same overflow guard as
//! a GPU launch. Cases above [`INTERP_MAX_ELEMS`] (the huge case) get the guard only: the
//! i32 variant must be refused, the int64 variants are accepted and not interpreted.

use rtriton::diag::Diagnostic;
use rtriton::guard::OffsetWidths;
use rtriton::interp;
use rtriton::session::CompileSession;
use rtriton::spec::{ArgValue, SpecKey, SpecPolicy};
use rtriton::trace::TraceOptions;
use rtriton_kernels::cases::RowMaxCase;
use rtriton_kernels::{RowMaxVariant, cpu_row_max};

use super::LaunchShape;
use super::{
    CaseResult, Outcome, Report, ValidateOptions, case_extents, compare_bits, expects_overflow_refusal, launch_shape,
    not_refused, refused,
};
use crate::launch::{CacheStats, LaunchError, overflow_guard};
use crate::row_max::ENTRY_NAME;

/// The largest case the interpreter runs (the matrix is far below; the huge case far above).
pub const INTERP_MAX_ELEMS: usize = 1 << 24;

/// The address a pointer takes when a case is only guarded, not run (256-byte aligned, as
/// `cudaMalloc` returns).
const GUARD_ONLY_PTR: u64 = 0x7f00_0000_0000;

/// Runs the matrix (and the huge case, guard only, when asked) on the interpreter. `why`
/// says why the GPU was not used (printed).
pub fn run_interp(options: &ValidateOptions, why: Option<String>) -> Report {
    let cases = options.cases_to_run();
    let total = cases.len() * options.kernels_per_case() * options.policies.len();
    let bar =
        if options.progress { indicatif::ProgressBar::new(total as u64) } else { indicatif::ProgressBar::hidden() };
    let mut results = Vec::new();
    // One session for the run: the cases that specialize alike share one trace.
    let mut session = CompileSession::new();
    for case in &cases {
        bar.set_message(case.name);
        let l = case.layout();
        let runnable = case.numel() <= INTERP_MAX_ELEMS;
        let x = if runnable { case.input() } else { Vec::new() };
        let want = runnable.then(|| {
            cpu_row_max(&x, l.offset, case.n_rows, case.n_cols, l.stride_row as isize, l.stride_col as isize, false)
        });
        for &variant in &options.variants {
            for &policy in &options.policies {
                let mut r = CaseResult::new(case, variant.name(), Some(policy));
                let expect_refusal = expects_overflow_refusal(variant, case);
                // Never interpret a launch the guard must refuse, even if it does not.
                let input = (runnable && !expect_refusal).then_some(x.as_slice());
                r.outcome = match run_one(&mut session, variant, policy, case, input, &mut r) {
                    Ok(Ran::Refused(d)) => refused(&d, expect_refusal),
                    Ok(Ran::Accepted) if expect_refusal => not_refused(variant, case),
                    Ok(Ran::Accepted) => Outcome::Skipped {
                        reason: format!(
                            "accepted by the overflow guard; the interpreter runs cases up to {INTERP_MAX_ELEMS} \
                             elements, this one has {}: run it on the GPU",
                            case.numel()
                        ),
                    },
                    Ok(Ran::Rows(got)) => {
                        let want = want.as_deref().expect("a runnable case has its CPU result");
                        let c = compare_bits(&got, want);
                        r.vs_cpu = Some(c.equal());
                        if c.equal() { Outcome::Match } else { Outcome::Mismatch { detail: c.describe("cpu_row_max") } }
                    }
                    Err(message) => Outcome::Error { message },
                };
                results.push(r);
                bar.inc(1);
            }
        }
        if options.entry {
            for &policy in &options.policies {
                let mut r = CaseResult::new(case, ENTRY_NAME, Some(policy));
                let input = runnable.then_some(x.as_slice());
                r.outcome = super::entry::run_interp(&mut session, policy, case, input, want.as_deref(), &mut r);
                results.push(r);
                bar.inc(1);
            }
        }
    }
    bar.finish_and_clear();
    let note = "the CPU interpreter; no CUDA reference here, results are compared with cpu_row_max".to_string();
    Report::new("interpreter", note, why, results, CacheStats::default())
}

/// What one interpreter launch did.
enum Ran {
    /// Passed the guard and ran: the rows.
    Rows(Vec<f32>),
    /// Passed the guard; not run (no input given).
    Accepted,
    /// Refused by the overflow guard.
    Refused(Diagnostic),
}

/// Specializes and traces `variant` for `case`, runs the overflow guard on the case's
/// extents (as a GPU launch does), then, given the input `x`, interprets it.
fn run_one(
    session: &mut CompileSession,
    variant: RowMaxVariant,
    policy: SpecPolicy,
    case: &RowMaxCase,
    x: Option<&[f32]>,
    r: &mut CaseResult,
) -> Result<Ran, String> {
    let l = case.layout();
    let def = variant.def();
    let LaunchShape { constexprs, grid, .. } = launch_shape(variant, case);
    let mut mem = interp::Memory::new();
    let (x_addr, y_addr) = match x {
        Some(x) => (mem.alloc_f32(x), mem.alloc_f32(&vec![f32::from_bits(u32::MAX); case.n_rows])),
        None => (GUARD_ONLY_PTR, GUARD_ONLY_PTR + (1 << 40)),
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
    let verified = session.front_end(&def, &constexprs, &spec, &TraceOptions::default()).map_err(|e| e.to_string())?;
    match overflow_guard(&OffsetWidths::of(verified.kernel()), &case_extents(case)) {
        Ok(()) => {}
        Err(LaunchError::IndexOverflow(d)) => return Ok(Ran::Refused(*d)),
        Err(e) => return Err(e.to_string()),
    }
    let Some(_) = x else { return Ok(Ran::Accepted) };
    interp::run(&verified, [grid as u32, 1, 1], &args, &mut mem).map_err(|e| e.to_string())?;
    mem.read_f32(y_addr, case.n_rows).map(Ran::Rows).map_err(|e| e.to_string())
}
