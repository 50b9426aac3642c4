//! The whole-row layer norm forward (`layer_norm_fwd_rows*`,
//! `layer_norm_fwd_prefetch_registers*`, `layer_norm_fwd_prefetch_staged*`, in f32, f16 and
//! bf16): its cases, and the forward's launch as `layer_norm_fwd_plan` plans it, which the
//! bench times. The reference and the tolerance are the tutorial forward's
//! ([`super::tutorial`]): the kernels compute the same two-pass mean and variance in f32,
//! from one load of the row instead of three.

use rtriton::ir::ScalarType;
use rtriton::spec::SpecPolicy;
use rtriton::trace::KernelDef;
use rtriton_kernels::ports::layer_norm::{layer_norm_fwd_fused, layer_norm_fwd_fused_bf16, layer_norm_fwd_fused_f16};
use rtriton_kernels::ports::layer_norm_fwd_plan::{self, Form, Plan};
use rtriton_kernels::ports::layer_norm_rows::*;
use rtriton_kernels::ports::softmax::H200_SHARED_BYTES;
use rtriton_testing::half::{bf16, f16};
use rtriton_testing::{Case, Element, Suite};

use super::tutorial::{Layout, Signature, Values, forward_case_of, forward_reference, forward_rule};

/// The forward kernel of `form` for `T`.
pub fn kernel<T: Element>(form: Form) -> KernelDef {
    match (T::SCALAR, form) {
        (ScalarType::F16, Form::Loop) => layer_norm_fwd_fused_f16(),
        (ScalarType::F16, Form::Rows) => layer_norm_fwd_rows_f16(),
        (ScalarType::F16, Form::PrefetchRegisters) => layer_norm_fwd_prefetch_registers_f16(),
        (ScalarType::F16, Form::PrefetchStaged) => layer_norm_fwd_prefetch_staged_f16(),
        (ScalarType::BF16, Form::Loop) => layer_norm_fwd_fused_bf16(),
        (ScalarType::BF16, Form::Rows) => layer_norm_fwd_rows_bf16(),
        (ScalarType::BF16, Form::PrefetchRegisters) => layer_norm_fwd_prefetch_registers_bf16(),
        (ScalarType::BF16, Form::PrefetchStaged) => layer_norm_fwd_prefetch_staged_bf16(),
        // f32 (the layer norm's other element type)
        (_, Form::Loop) => layer_norm_fwd_fused(),
        (_, Form::Rows) => layer_norm_fwd_rows_f32(),
        (_, Form::PrefetchRegisters) => layer_norm_fwd_prefetch_registers_f32(),
        (_, Form::PrefetchStaged) => layer_norm_fwd_prefetch_staged_f32(),
    }
}

/// One case of a whole-row kernel: `rows x cols` at `plan`'s block and warps, in the
/// pieces [`parts`] gives (rows of a strided or transposed view: [`element_wise_parts`]),
/// on `programs` programs (each taking rows `pid, pid + programs, ...`).
pub fn case<T: Element>(
    name: &str,
    (rows, cols): (usize, usize),
    plan: Plan,
    programs: usize,
    layout: Layout,
    values: Values,
) -> Case {
    let config = (plan.block_size, plan.num_warps);
    // Strided and transposed rows never load as vectors (contiguous ones do where Triton's
    // specialization proves them aligned, as the plan assumes).
    let pieces = match layout {
        Layout::Contiguous => parts(plan.block_size, T::SCALAR.size_bytes() as usize, plan.num_warps),
        Layout::Strided | Layout::Transposed => element_wise_parts(plan.block_size, plan.num_warps),
    };
    forward_case_of::<T>(name, (rows, cols), config, layout, values, Signature::WithRowCount)
        .constexpr("PARTS", pieces as i64)
        .grid([programs as u32, 1, 1])
}

/// The plan of a `cols`-wide row of `T` loaded element by element: the warps every case
/// can take unspecialized without spilling.
fn scalar_plan<T: Element>(cols: usize, form: Form) -> Plan {
    let plan = layer_norm_fwd_plan::plan(cols, T::SCALAR.size_bytes() as usize, false, H200_SHARED_BYTES);
    Plan { form, persistent: form != Form::Rows, ..plan }
}

/// The cases of the kernel of `form` (not [`Form::Loop`], the tutorial's, whose cases are
/// [`super::forward_cases`]): one program per row, then grids of fewer programs than rows
/// (so a program loops, and a prefetching one uses the row it prefetched), over
/// non-power-of-2 widths, rows narrower than a warp, one column, strided and transposed
/// views and special values. Blocks stay at most 2048 wide: the suites also compile
/// unspecialized, where each element takes its own address register.
pub fn cases<T: Element>(form: Form) -> Vec<Case> {
    use Layout::*;
    use Values::*;
    let p = |cols: usize| scalar_plan::<T>(cols, form);
    vec![
        case::<T>("rows_of_1024", (6, 1024), p(1024), 6, Contiguous, Ordinary),
        case::<T>("non_pow2_1151", (5, 1151), p(1151), 5, Contiguous, Ordinary),
        case::<T>("narrow_3", (9, 3), p(3), 9, Contiguous, Ordinary),
        case::<T>("one_column", (4, 1), p(1), 4, Contiguous, Ordinary),
        case::<T>("strided_views", (5, 700), p(700), 5, Strided, Ordinary),
        case::<T>("transposed_views", (6, 97), p(97), 6, Transposed, Ordinary),
        case::<T>("special_values", (9, 37), p(37), 9, Contiguous, Special),
        case::<T>("w781_3_programs_of_10_rows", (10, 781), p(781), 3, Contiguous, Ordinary),
        case::<T>("w1000_1_program_of_7_rows", (7, 1000), p(1000), 1, Contiguous, Ordinary),
        case::<T>("special_values_2_programs", (9, 37), p(37), 2, Contiguous, Special),
        case::<T>("strided_4_programs_of_11", (11, 300), p(300), 4, Strided, Ordinary),
        case::<T>("transposed_2_programs_of_5", (5, 130), p(130), 2, Transposed, Ordinary),
    ]
}

/// The kernel of `form` on vector rows as [`layer_norm_fwd_plan::plan`] launches them on
/// the H200 past the blocks of [`cases`]: the widest blocks of each form, only under
/// Triton's specialization, which proves the 16-byte vectors (unspecialized, the plan
/// takes other forms for these rows).
pub fn wide_cases<T: Element>(form: Form) -> Vec<Case> {
    let bytes = T::SCALAR.size_bytes() as usize;
    let planned = |cols: usize| layer_norm_fwd_plan::plan(cols, bytes, true, H200_SHARED_BYTES);
    let widths: &[usize] = match (form, bytes) {
        (Form::Rows, _) => &[4096],
        (Form::PrefetchRegisters, _) => &[16384],
        (Form::PrefetchStaged, _) => &[32768, 16400],
        (Form::Loop, _) => &[],
    };
    widths
        .iter()
        .map(|&cols| {
            let plan = Plan { form, persistent: form != Form::Rows, ..planned(cols) };
            let programs = if plan.persistent { 2 } else { 3 };
            let values = if cols % 16 == 0 { Values::Ordinary } else { Values::Special };
            case::<T>(&format!("w{cols}_planned"), (3, cols), plan, programs, Layout::Contiguous, values)
        })
        .collect()
}

/// The suite of the kernel of `form` in `T`: [`cases`] under both specializations, and
/// [`wide_cases`] in a suite of their own (Triton's specialization only).
pub fn suites_of<T: Element>(form: Form) -> [Suite; 2] {
    let suite = || Suite::new(kernel::<T>(form)).reference(forward_reference).rule(forward_rule::<T>());
    [suite().cases(cases::<T>(form)), suite().cases(wide_cases::<T>(form)).policies(&[SpecPolicy::Triton])]
}

/// The whole-row forms, in the order of the suites.
const FORMS: [Form; 3] = [Form::Rows, Form::PrefetchRegisters, Form::PrefetchStaged];

/// Every whole-row kernel's suites in `T`.
pub fn all_suites_of<T: Element>() -> Vec<Suite> {
    FORMS.into_iter().flat_map(suites_of::<T>).collect()
}

/// The kernels of [`suites`], in its order.
pub fn kernels() -> Vec<KernelDef> {
    let mut defs: Vec<KernelDef> = FORMS.into_iter().map(kernel::<f32>).collect();
    defs.extend(FORMS.into_iter().map(kernel::<f16>));
    defs.extend(FORMS.into_iter().map(kernel::<bf16>));
    defs
}

/// The forward of a contiguous `rows x cols` input of `T` as [`layer_norm_fwd_plan::plan`]
/// launches it on a device of `sm_count` SMs (the bench's inputs: rows of a multiple of 16
/// columns load as 16-byte vectors).
pub fn planned_launch<T: Element>(rows: usize, cols: usize, sm_count: usize) -> (Suite, Case) {
    let bytes = T::SCALAR.size_bytes() as usize;
    let plan = layer_norm_fwd_plan::plan(cols, bytes, cols.is_multiple_of(16), H200_SHARED_BYTES);
    form_launch::<T>(plan, rows, cols, sm_count)
}

/// The form the bench times beside `plan` (for rows of `elem_bytes`-byte elements), with
/// its variant name, where the choice between the two was close: the staged next row
/// beside the register one on 16 warps; one program per row beside the 8-warp register
/// prefetch, and the reverse. `None` for other plans.
pub fn other_form(plan: Plan, elem_bytes: usize) -> Option<(&'static str, Plan)> {
    let staged_fits = layer_norm_fwd_plan::staged_shared_bytes(plan.block_size, elem_bytes) <= H200_SHARED_BYTES;
    match (plan.form, plan.num_warps) {
        (Form::PrefetchRegisters, 16) if staged_fits => Some(("staged", Plan { form: Form::PrefetchStaged, ..plan })),
        (Form::PrefetchRegisters, 8) => Some(("rows", Plan { form: Form::Rows, persistent: false, ..plan })),
        (Form::Rows, 8) => Some(("prefetch", Plan { form: Form::PrefetchRegisters, persistent: true, ..plan })),
        _ => None,
    }
}

/// The forward of a contiguous `rows x cols` input of `T` at `plan`.
pub fn form_launch<T: Element>(plan: Plan, rows: usize, cols: usize, sm_count: usize) -> (Suite, Case) {
    let programs = layer_norm_fwd_plan::grid(plan, rows, sm_count)[0] as usize;
    let suite = Suite::new(kernel::<T>(plan.form)).reference(forward_reference).rule(forward_rule::<T>());
    let case = match plan.form {
        Form::Loop => super::forward_case::<T>(
            "bench",
            (rows, cols),
            (plan.block_size, plan.num_warps),
            Layout::Contiguous,
            Values::Ordinary,
        ),
        _ => case::<T>("bench", (rows, cols), plan, programs, Layout::Contiguous, Values::Ordinary),
    };
    (suite, case)
}

/// The whole-row suites of every dtype, for the port's list.
pub fn suites() -> Vec<Suite> {
    let mut out = all_suites_of::<f32>();
    out.extend(all_suites_of::<f16>());
    out.extend(all_suites_of::<bf16>());
    out
}

#[cfg(test)]
mod tests {
    use rtriton_testing::Backend;

    use super::*;

    /// A `PARTS` that does not cut the block into 1, 2, 4, 8 or 16 pieces is a trace
    /// error at the kernel's `static_assert`, naming the kernel and what to pass.
    #[test]
    fn a_wrong_parts_is_a_located_error() {
        let def = kernel::<f32>(Form::Rows);
        for (block, parts) in [(1024, 3), (1024, 32), (4, 8)] {
            let e = rtriton::trace::trace_unspecialized(&def, &[("BLOCK_SIZE", block), ("PARTS", parts)])
                .expect_err("the trace must fail");
            let text = e.to_string();
            assert!(text.contains("layer_norm_fwd_rows_f32"), "{text}");
            assert!(text.contains(&format!("PARTS = {parts} does not cut BLOCK_SIZE = {block}")), "{text}");
            assert!(text.contains("layer_norm_rows.rs"), "the static_assert's line: {text}");
            assert!(text.contains("layer_norm_rows::parts"), "what to pass: {text}");
        }
    }

    /// Every whole-row suite in every dtype on the interpreter and the simulator.
    #[test]
    fn the_whole_row_forward_passes_on_the_interpreter_and_the_simulator() {
        let suites = suites();
        assert_eq!(suites.len(), 3 * 3 * 2);
        for s in suites {
            assert!(!s.cases.is_empty(), "{} has no cases", s.def.name);
            s.check_all(Backend::Interpreter);
            s.check_all(Backend::Simulator);
        }
    }
}
