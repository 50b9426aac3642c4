//! `validate`: every row-max variant x the shape matrix x specialization on/off, compared
//! bit for bit with the CUDA C reference on the GPU (and with `cpu_row_max` on small
//! shapes), or, without a GPU, with `cpu_row_max` on the interpreter.
//!
//! The huge case (more than 2^31 elements, 8.6 GB) runs with `--huge`: on the GPU every
//! int64-indexing variant must match the reference, and the launch-time overflow guard
//! must refuse `row_max_i32` (an expected refusal counts as a pass, an acceptance as a
//! failure). On the interpreter only the guard runs on it (nothing that large is
//! allocated or interpreted).

mod compare;
mod entry;
mod fault;
mod gpu;
mod interp;
mod report;
mod restart;
mod summary;

pub use compare::{Comparison, compare_bits};
pub use gpu::run_gpu;
pub use interp::run_interp;
pub use report::{Report, Status, render_tables};
pub use restart::{OnFault, child_args};
pub use summary::{MAX_WIDTH, render_summary, render_verbose};

use rtriton::diag::Diagnostic;
use rtriton::guard::TensorExtent;
use rtriton::spec::SpecPolicy;
use rtriton_kernels::RowMaxVariant;
use rtriton_kernels::cases::{HUGE_CASE, RowMaxCase, SHAPE_MATRIX};
use serde::{Deserialize, Serialize};

use crate::error::HostError;
use crate::launch::needs_overflow_guard;

/// Views at most this large are also checked against `cpu_row_max` on the GPU (every
/// case of the matrix, the huge one included: its CPU pass takes seconds).
pub const CPU_CHECK_MAX_ELEMS: usize = 1 << 32;

/// Which back end runs the kernels.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, clap::ValueEnum)]
#[serde(rename_all = "lowercase")]
pub enum BackendChoice {
    /// The GPU when a CUDA driver and device are found, else the interpreter.
    Auto,
    /// The GPU; an error when there is none.
    Gpu,
    /// The CPU interpreter, compared with `cpu_row_max` (the huge case: the guard only).
    Interp,
}

/// What `validate` runs.
#[derive(Clone, Debug)]
pub struct ValidateOptions {
    pub variants: Vec<RowMaxVariant>,
    /// Also validate the row-max entry point (`row_max_entry`, `crate::row_max`).
    pub entry: bool,
    pub cases: Vec<RowMaxCase>,
    pub policies: Vec<SpecPolicy>,
    /// Adds [`HUGE_CASE`] on the GPU.
    pub huge: bool,
    pub backend: BackendChoice,
    pub progress: bool,
    /// What to do when a kernel fault poisons the context for good (see [`OnFault`]).
    pub on_fault: OnFault,
    /// Launch a kernel that stores through an unmapped pointer in the case of this exact
    /// name, after its reference row: a way to test the recovery path on a GPU.
    pub inject_fault: Option<String>,
}

impl Default for ValidateOptions {
    fn default() -> Self {
        ValidateOptions {
            variants: RowMaxVariant::ALL.to_vec(),
            entry: true,
            cases: SHAPE_MATRIX.to_vec(),
            policies: vec![SpecPolicy::Triton, SpecPolicy::Off],
            huge: false,
            backend: BackendChoice::Auto,
            progress: true,
            on_fault: OnFault::Stop,
            inject_fault: None,
        }
    }
}

impl ValidateOptions {
    /// The cases to run (the matrix plus the huge case when asked).
    pub fn cases_to_run(&self) -> Vec<RowMaxCase> {
        let mut cases = self.cases.clone();
        if self.huge {
            cases.push(HUGE_CASE);
        }
        cases
    }

    /// Kernels validated per case and policy: the variants and the entry point.
    pub fn kernels_per_case(&self) -> usize {
        self.variants.len() + usize::from(self.entry)
    }
}

/// How one run ended.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "status", rename_all = "snake_case")]
pub enum Outcome {
    /// Every row equal, bit for bit, to every reference it was compared with.
    Match,
    /// Some rows differ.
    Mismatch { detail: String },
    /// Refused at launch as expected (e.g. an overflow guard); counts as a pass.
    RefusedAsExpected { reason: String },
    /// Not run, with the reason: not a failure and not a pass; the run is incomplete
    /// unless skips are allowed (`--allow-skips`).
    Skipped { reason: String },
    /// Ran, but nothing compared its output (the CUDA reference on a case too large for
    /// the CPU check, which the variants are then compared with).
    Unchecked { reason: String },
    /// Failed to compile, launch or run.
    Error { message: String },
}

impl Outcome {
    pub fn is_failure(&self) -> bool {
        matches!(self, Outcome::Mismatch { .. } | Outcome::Error { .. })
    }

    pub fn label(&self) -> String {
        match self {
            Outcome::Match => "ok".into(),
            Outcome::Mismatch { detail } => format!("MISMATCH: {detail}"),
            Outcome::RefusedAsExpected { reason } => format!("refused (expected): {reason}"),
            Outcome::Skipped { reason } => format!("skipped: {reason}"),
            Outcome::Unchecked { reason } => format!("ran, unchecked: {reason}"),
            Outcome::Error { message } => format!("ERROR: {message}"),
        }
    }
}

/// One variant x case x specialization.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CaseResult {
    pub case: String,
    /// `"row_max"`, ..., `"row_max_entry"` for the entry point, or `"cuda_reference"` for
    /// the reference checked against the CPU.
    pub variant: String,
    /// How the entry point ran: the configuration it chose (GPU) or how many it checked
    /// (interpreter); empty for the variants.
    #[serde(default)]
    pub config: String,
    pub n_rows: usize,
    pub n_cols: usize,
    pub stride_row: usize,
    pub stride_col: usize,
    pub offset: usize,
    /// `"on"` (Triton's rules) or `"off"`.
    pub specialization: String,
    /// The specialization key the launch computed (empty when not launched).
    pub spec_key: String,
    /// Compared with the CUDA reference: `Some(true)` equal, `Some(false)` different.
    pub vs_reference: Option<bool>,
    /// Compared with `cpu_row_max`.
    pub vs_cpu: Option<bool>,
    /// Kernel time from CUDA events (GPU only).
    pub time_ms: Option<f32>,
    pub outcome: Outcome,
}

impl CaseResult {
    pub(crate) fn new(case: &RowMaxCase, variant: &str, policy: Option<SpecPolicy>) -> CaseResult {
        let l = case.layout();
        CaseResult {
            case: case.name.to_string(),
            variant: variant.to_string(),
            config: String::new(),
            n_rows: case.n_rows,
            n_cols: case.n_cols,
            stride_row: l.stride_row,
            stride_col: l.stride_col,
            offset: l.offset,
            specialization: policy.map_or("-".into(), policy_name),
            spec_key: String::new(),
            vs_reference: None,
            vs_cpu: None,
            time_ms: None,
            outcome: Outcome::Skipped { reason: "not run".into() },
        }
    }
}

pub fn policy_name(p: SpecPolicy) -> String {
    match p {
        SpecPolicy::Triton => "on".into(),
        SpecPolicy::Off => "off".into(),
    }
}

/// Runs the validation on the chosen back end. `Auto` falls back to the interpreter
/// only when there is no GPU (no driver or no device), and the report says so.
pub fn run(options: &ValidateOptions) -> Result<Report, HostError> {
    match options.backend {
        BackendChoice::Interp => Ok(run_interp(options, None)),
        BackendChoice::Gpu => run_gpu(options),
        BackendChoice::Auto => match run_gpu(options) {
            Err(e) if e.is_no_gpu() => Ok(run_interp(options, Some(e.to_string()))),
            other => other,
        },
    }
}

/// How a variant is launched on a case.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LaunchShape {
    pub constexprs: Vec<(&'static str, i64)>,
    pub grid: u64,
    pub num_warps: u32,
}

/// The constexprs, grid and warps a variant launches with on a case. Warps follow
/// Triton's softmax tutorial: 4, 8 from 2048 elements per block, 16 from 4096, so a
/// single-block row of 32768 elements keeps 64 registers per thread per block value.
pub fn launch_shape(variant: RowMaxVariant, case: &RowMaxCase) -> LaunchShape {
    launch_shape_for(variant, case.n_rows, case.n_cols)
}

/// [`launch_shape`] for an `n_rows x n_cols` input of any view (`bench`'s shapes).
pub fn launch_shape_for(variant: RowMaxVariant, n_rows: usize, n_cols: usize) -> LaunchShape {
    let constexprs = variant.constexprs_for(n_rows, n_cols);
    let grid = variant.grid(n_rows, &constexprs) as u64;
    let block_elems: i64 = constexprs.iter().map(|(_, v)| *v).product();
    let num_warps = match block_elems {
        ..2048 => 4,
        2048..4096 => 8,
        _ => 16,
    };
    LaunchShape { constexprs, grid, num_warps }
}

/// Whether the overflow guard must refuse `variant` on `case`: the variant computes
/// offsets in i32 and the view's largest offset passes `i32::MAX` (the huge case for
/// `row_max_i32`). `validate` expects the refusal there and counts it as a pass; an
/// acceptance is a failure and the kernel is not launched.
pub fn expects_overflow_refusal(variant: RowMaxVariant, case: &RowMaxCase) -> bool {
    !variant.promotes_to_i64() && needs_overflow_guard(&case_extents(case))
}

/// The extents of a case's tensors (`x` seen through the case's view from its first
/// element, `y` contiguous), for the overflow guard on the interpreter.
pub fn case_extents(case: &RowMaxCase) -> Vec<TensorExtent> {
    let l = case.layout();
    vec![
        TensorExtent::of_view(
            "x_ptr",
            0,
            &[case.n_rows as u64, case.n_cols as u64],
            &[l.stride_row as i64, l.stride_col as i64],
        ),
        TensorExtent::of_view("y_ptr", 0, &[case.n_rows as u64], &[1]),
    ]
}

/// The outcome when the overflow guard refused a launch (`refusal`), given whether a
/// refusal was expected: expected, a pass that shows the guard's diagnostic; unexpected,
/// an error.
pub(crate) fn refused(refusal: &Diagnostic, expected: bool) -> Outcome {
    if expected {
        Outcome::RefusedAsExpected { reason: refusal.to_string() }
    } else {
        Outcome::Error { message: format!("the overflow guard refused an int64-indexing launch: {refusal}") }
    }
}

/// The outcome when the overflow guard accepted a launch it had to refuse.
pub(crate) fn not_refused(variant: RowMaxVariant, case: &RowMaxCase) -> Outcome {
    Outcome::Error {
        message: format!(
            "the overflow guard accepted {} on {} ({} elements, i32 offsets): expected a refusal; not launched",
            variant.name(),
            case.name,
            case.numel()
        ),
    }
}

#[cfg(test)]
mod tests {
    use rtriton::spec::{ArgValue, SpecKey};
    use rtriton_kernels::RowMaxVariant;
    use rtriton_kernels::cases::{HUGE_CASE, SHAPE_MATRIX};

    use super::*;
    use crate::launch::{JitKernel, compile_kernel};

    /// Every launch `validate` makes (the huge case included) compiles to PTX whose entry
    /// and CTA size the launch uses; no GPU needed.
    #[test]
    fn every_validate_launch_compiles_to_ptx() {
        let mut failures = Vec::new();
        let mut session = rtriton::session::CompileSession::new();
        for case in SHAPE_MATRIX.iter().chain([&HUGE_CASE]) {
            let l = case.layout();
            for variant in RowMaxVariant::ALL {
                for policy in [SpecPolicy::Triton, SpecPolicy::Off] {
                    let shape = launch_shape(variant, case);
                    let kernel = JitKernel::new(variant.def())
                        .constexprs(&shape.constexprs)
                        .num_warps(shape.num_warps)
                        .spec_policy(policy);
                    let args = [
                        ArgValue::Ptr(0x7f00_0000_0000 + 4 * l.offset as u64),
                        ArgValue::Ptr(0x7f10_0000_0000),
                        ArgValue::Int(case.n_rows as i64),
                        ArgValue::Int(case.n_cols as i64),
                        ArgValue::Int(l.stride_row as i64),
                        ArgValue::Int(l.stride_col as i64),
                    ];
                    let spec = SpecKey::from_args(variant.name(), &kernel.def.params, &args, policy).unwrap();
                    match compile_kernel(&mut session, &kernel, &spec) {
                        Ok(ptx) => {
                            assert!(ptx.text.contains(&format!(".entry {}(", ptx.entry)), "{}", ptx.text);
                            assert_eq!(ptx.threads_per_cta, shape.num_warps * 32);
                        }
                        Err(e) => failures.push(format!("{} {} {policy:?}: {e}", variant.name(), case.name)),
                    }
                }
            }
        }
        assert!(failures.is_empty(), "{}", failures.join("\n"));
    }

    #[test]
    fn the_interpreter_runs_the_whole_matrix_bit_exact() {
        let options = ValidateOptions { backend: BackendChoice::Interp, progress: false, ..Default::default() };
        let report = run(&options).unwrap();
        assert_eq!(report.backend, "interpreter");
        assert_eq!(report.results.len(), SHAPE_MATRIX.len() * (RowMaxVariant::ALL.len() + 1) * 2);
        let entry: Vec<&CaseResult> = report.results.iter().filter(|r| r.variant == "row_max_entry").collect();
        assert_eq!(entry.len(), SHAPE_MATRIX.len() * 2);
        assert!(entry.iter().all(|r| r.outcome == Outcome::Match && r.vs_cpu == Some(true)));
        let split = entry.iter().find(|r| r.case == "wider_than_block").unwrap();
        assert!(split.config.ends_with("configurations (few wide rows (split))"), "{}", split.config);
        assert!(report.ok(), "{}\n{}", report.summary(), render_tables(&report.results));
        assert_eq!((report.failed, report.skipped), (0, 0));
    }

    #[test]
    fn auto_falls_back_to_the_interpreter_only_without_a_gpu_and_says_why() {
        let options = ValidateOptions {
            cases: vec![SHAPE_MATRIX[0]],
            variants: vec![RowMaxVariant::RowMax],
            progress: false,
            ..Default::default()
        };
        let report = run(&options).unwrap();
        match crate::driver::Gpu::open(0) {
            Err(e) if e.is_no_gpu() => {
                assert_eq!(report.backend, "interpreter");
                let why = report.fallback_reason.as_deref().unwrap();
                assert!(why.starts_with("no CUDA"), "{why}");
                let first = format!("{}\nno GPU: no CUDA", crate::provenance::Provenance::current().line());
                assert!(report.heading().starts_with(&first), "{}", report.heading());
            }
            _ => assert_eq!(report.backend, "gpu"),
        }
        assert!(report.ok(), "{}", report.summary());
    }

    #[test]
    fn a_mismatch_or_an_error_fails_the_report_and_skips_do_not() {
        let case = SHAPE_MATRIX[0];
        let with = |outcome| {
            let mut r = CaseResult::new(&case, "row_max", Some(SpecPolicy::Triton));
            r.outcome = outcome;
            Report::new("gpu", "test".into(), None, vec![r], Default::default())
        };
        assert!(with(Outcome::Match).ok());
        assert!(with(Outcome::Skipped { reason: "r".into() }).ok());
        assert!(with(Outcome::RefusedAsExpected { reason: "r".into() }).ok());
        assert!(!with(Outcome::Mismatch { detail: "d".into() }).ok());
        assert!(!with(Outcome::Error { message: "m".into() }).ok());
        assert!(with(Outcome::Error { message: "m".into() }).summary().starts_with("FAILED: 0 passed, 1 failed"));
    }

    /// Skipped rows are neither passes nor failures: the run is INCOMPLETE (exit 1) unless
    /// skips are allowed; the status and the counts are in the JSON.
    #[test]
    fn skips_make_the_run_incomplete_unless_allowed() {
        let case = SHAPE_MATRIX[0];
        let rows = |outcomes: Vec<Outcome>| {
            outcomes
                .into_iter()
                .map(|o| {
                    let mut r = CaseResult::new(&case, "row_max", Some(SpecPolicy::Triton));
                    r.outcome = o;
                    r
                })
                .collect::<Vec<_>>()
        };
        let skip = || Outcome::Skipped { reason: "needs 9 bytes".into() };
        let report = |o: Vec<Outcome>, allow| {
            Report::new("gpu", "test".into(), None, rows(o), Default::default()).with_allow_skips(allow)
        };
        let r = report(vec![Outcome::Match, skip()], false);
        assert_eq!((r.status, r.passed, r.skipped), (Status::Incomplete, 1, 1));
        assert!(r.summary().starts_with(
            "INCOMPLETE: 1 passed, 0 failed, 1 skipped (requested rows did not run: --allow-skips accepts that) on the gpu"
        ));
        assert_eq!(r.results[1].outcome.label(), "skipped: needs 9 bytes");
        let json = serde_json::to_value(&r).unwrap();
        assert_eq!((json["status"].as_str(), json["skipped"].as_u64()), (Some("incomplete"), Some(1)));
        assert_eq!(json["results"][1]["outcome"]["status"], "skipped");
        let allowed = report(vec![Outcome::Match, skip()], true);
        assert_eq!(allowed.status, Status::Ok);
        assert!(allowed.summary().starts_with("ok: 1 passed, 0 failed, 1 skipped on the gpu"), "{}", allowed.summary());
        assert_eq!(report(vec![skip(), Outcome::Error { message: "m".into() }], true).status, Status::Failed);
        let unchecked = report(vec![Outcome::Unchecked { reason: "too large".into() }, Outcome::Match], false);
        assert_eq!((unchecked.status, unchecked.passed, unchecked.unchecked), (Status::Ok, 1, 1));
        assert!(unchecked.summary().starts_with("ok: 1 passed, 0 failed, 0 skipped, 1 ran unchecked on the gpu"));
        let p = crate::provenance::Provenance::current();
        assert_eq!(json["build"]["commit"], p.commit);
        assert!(r.heading().starts_with(&format!("{}\nback end: gpu", p.line())), "{}", r.heading());
    }

    #[test]
    fn the_guard_must_refuse_row_max_i32_on_the_huge_case_only() {
        for v in RowMaxVariant::ALL {
            assert_eq!(expects_overflow_refusal(v, &HUGE_CASE), v == RowMaxVariant::RowMaxI32, "{}", v.name());
            for c in SHAPE_MATRIX {
                assert!(!expects_overflow_refusal(v, c), "{} {}", v.name(), c.name);
            }
        }
    }

    /// The huge case on the interpreter: the same overflow guard as a GPU launch, on the
    /// real extent (nothing allocated); `row_max_i32` refused (a pass), the int64 variants
    /// accepted and left to the GPU.
    #[test]
    fn the_interpreter_guards_the_huge_case() {
        let options = ValidateOptions {
            backend: BackendChoice::Interp,
            cases: vec![],
            huge: true,
            progress: false,
            ..Default::default()
        };
        let report = run(&options).unwrap();
        assert_eq!(report.results.len(), (RowMaxVariant::ALL.len() + 1) * 2);
        // The entry point's plan for the huge case (65537 x 32768 rows).
        let configs = rtriton_kernels::row_max_plan::plan(
            rtriton::ir::ScalarType::F32,
            65537,
            32768,
            rtriton_kernels::row_max_plan::NOMINAL_SM_COUNT,
        )
        .unwrap()
        .configs
        .len();
        // Where row_max_i32 loads `x`, found in its source so no line number is written down.
        let at =
            rtriton_kernels::source::line_of(RowMaxVariant::RowMaxI32, "let x = load(").expect("row_max_i32 loads x");
        for r in &report.results {
            match (&r.outcome, r.variant.as_str()) {
                (Outcome::RefusedAsExpected { reason }, "row_max_i32") => assert_eq!(
                    reason,
                    &format!(
                        "\
error[RT0601]: kernel `row_max_i32` at {at}: launch refused: tensor `x_ptr` has 2147516416 elements and a maximum element offset of 2147516415, past i32::MAX = 2147483647, but program_id(0) times `stride_row` is computed in i32 here and would wrap
  help: promote the index tensors to i64 before the index math (`program_id(0).to::<i64>()`, `offs.to::<i64>()`), or launch an i64-indexing variant"
                    )
                ),
                (Outcome::Skipped { reason }, "row_max_entry") => assert_eq!(
                    reason,
                    &format!(
                        "accepted by the overflow guard under each of the {configs} configurations; the interpreter \
                         runs cases up to 16777216 elements, this one has 2147516416: run it on the GPU"
                    )
                ),
                (Outcome::Skipped { reason }, v) if v != "row_max_i32" => assert_eq!(
                    reason,
                    "accepted by the overflow guard; the interpreter runs cases up to 16777216 elements, this one has \
                     2147516416: run it on the GPU"
                ),
                (o, v) => panic!("{v} {}: {o:?}", r.specialization),
            }
        }
        assert_eq!((report.passed, report.refused_as_expected, report.failed, report.skipped), (2, 2, 0, 12));
        // The int64 variants could not run on the interpreter: the run is incomplete.
        assert_eq!(report.status, Status::Incomplete);
        assert!(
            report.summary().starts_with(
                "INCOMPLETE: 2 passed (2 refused by the overflow guard, as expected), 0 failed, 12 skipped"
            ),
            "{}",
            report.summary()
        );
    }

    #[test]
    fn a_refusal_passes_only_where_expected_and_an_acceptance_there_fails() {
        let d = Diagnostic::error(
            rtriton::diag::Code::GuardIndexOverflow,
            "row_max_i32",
            rtriton_kernels::RowMaxVariant::RowMaxI32.def().loc,
            "m",
            "h",
        );
        assert!(matches!(refused(&d, true), Outcome::RefusedAsExpected { .. }));
        let unexpected = refused(&d, false);
        assert!(unexpected.is_failure());
        assert!(
            unexpected
                .label()
                .starts_with("ERROR: the overflow guard refused an int64-indexing launch: error[RT0601]:")
        );
        let accepted = not_refused(RowMaxVariant::RowMaxI32, &HUGE_CASE);
        assert_eq!(
            accepted.label(),
            "ERROR: the overflow guard accepted row_max_i32 on huge_2^31+ (2147516416 elements, i32 offsets): \
             expected a refusal; not launched"
        );
    }

    #[test]
    fn warps_grow_with_the_block() {
        let case = |n_cols| RowMaxCase { n_cols, ..SHAPE_MATRIX[0] };
        assert_eq!(launch_shape(RowMaxVariant::RowMax, &case(1000)).num_warps, 4);
        assert_eq!(launch_shape(RowMaxVariant::RowMax, &case(3000)).num_warps, 16);
        assert_eq!(launch_shape(RowMaxVariant::RowMax, &case(2048)).num_warps, 8);
        assert_eq!(launch_shape(RowMaxVariant::RowMax, &HUGE_CASE).num_warps, 16);
        assert_eq!(launch_shape(RowMaxVariant::RowMax2d, &HUGE_CASE).num_warps, 4);
    }
}
