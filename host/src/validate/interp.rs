//! The interpreter run (no GPU): every variant x case x specialization on the CPU
//! interpreter, compared bit for bit with `cpu_row_max`. The huge case is not run.

use rtriton::interp;
use rtriton::pipeline::specialize_and_trace;
use rtriton::spec::{ArgValue, SpecKey, SpecPolicy};
use rtriton::trace::TraceOptions;
use rtriton_kernels::cases::RowMaxCase;
use rtriton_kernels::{RowMaxVariant, cpu_row_max};

use super::LaunchShape;
use super::{CaseResult, Outcome, Report, ValidateOptions, compare_bits, i32_overflow_skip, launch_shape};
use crate::launch::CacheStats;

/// Runs the matrix on the interpreter. `why` says why the GPU was not used (printed).
pub fn run_interp(options: &ValidateOptions, why: Option<String>) -> Report {
    let total = options.cases.len() * options.variants.len() * options.policies.len();
    let bar =
        if options.progress { indicatif::ProgressBar::new(total as u64) } else { indicatif::ProgressBar::hidden() };
    let mut results = Vec::new();
    for case in &options.cases {
        bar.set_message(case.name);
        let l = case.layout();
        let x = case.input();
        let want =
            cpu_row_max(&x, l.offset, case.n_rows, case.n_cols, l.stride_row as isize, l.stride_col as isize, false);
        for &variant in &options.variants {
            for &policy in &options.policies {
                let mut r = CaseResult::new(case, variant.name(), Some(policy));
                r.outcome = match i32_overflow_skip(variant, case) {
                    Some(reason) => Outcome::Skipped { reason },
                    None => match run_one(variant, policy, case, &x, &mut r) {
                        Ok(got) => {
                            let c = compare_bits(&got, &want);
                            r.vs_cpu = Some(c.equal());
                            if c.equal() {
                                Outcome::Match
                            } else {
                                Outcome::Mismatch { detail: c.describe("cpu_row_max") }
                            }
                        }
                        Err(message) => Outcome::Error { message },
                    },
                };
                results.push(r);
                bar.inc(1);
            }
        }
    }
    bar.finish_and_clear();
    let note = "the CPU interpreter; no CUDA reference here, results are compared with cpu_row_max".to_string();
    Report::new("interpreter", note, why, results, CacheStats::default())
}

fn run_one(
    variant: RowMaxVariant,
    policy: SpecPolicy,
    case: &RowMaxCase,
    x: &[f32],
    r: &mut CaseResult,
) -> Result<Vec<f32>, String> {
    let l = case.layout();
    let def = variant.def();
    let LaunchShape { constexprs, grid, .. } = launch_shape(variant, case);
    let mut mem = interp::Memory::new();
    let x_addr = mem.alloc_f32(x);
    let y_addr = mem.alloc_f32(&vec![f32::from_bits(u32::MAX); case.n_rows]);
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
    let (kernel, _info) =
        specialize_and_trace(&def, &constexprs, &args, policy, &TraceOptions::default()).map_err(|e| e.to_string())?;
    interp::run(&kernel, [grid as u32, 1, 1], &args, &mut mem).map_err(|e| e.to_string())?;
    mem.read_f32(y_addr, case.n_rows).map_err(|e| e.to_string())
}
