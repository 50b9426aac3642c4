//! The row-max shape matrix as `rtriton-testing` cases, and the helpers the integration
//! suites in `tests/tests/` share. Placing buffers, specializing, lowering and running on
//! the interpreter and the simulator is the harness's (`rtriton_testing::run`), the same
//! code a user's crate gets; this crate only says what a row-max launch is.

pub mod fixtures;
pub mod kernels;
pub mod split;
pub mod tables;

use rtriton::interp::Memory;
use rtriton::session::CompileSession;
use rtriton::spec::{ArgValue, SpecPolicy};
use rtriton::trace::KernelDef;
use rtriton_kernels::RowMaxVariant;
use rtriton_kernels::cases::{RowMaxCase, SHAPE_MATRIX};
use rtriton_kernels::cpu_row_max;
use rtriton_testing::compare::differences;
use rtriton_testing::{Case, Data, Rule, Suite, View};

/// The case of [`SHAPE_MATRIX`] named `name` (rstest tables list cases by name).
pub fn case(name: &str) -> RowMaxCase {
    *SHAPE_MATRIX.iter().find(|c| c.name == name).unwrap_or_else(|| panic!("no case `{name}` in SHAPE_MATRIX"))
}

/// A contiguous 1000 x 1024 launch: 16-byte aligned pointers, n_cols and stride_row
/// divisible by 16, stride_col == 1 (folded under Triton specialization).
pub fn contiguous_args() -> Vec<ArgValue> {
    vec![
        ArgValue::Ptr(0x7f00_0000_0000),
        ArgValue::Ptr(0x7f00_0010_0000),
        ArgValue::Int(1000),
        ArgValue::Int(1024),
        ArgValue::Int(1024),
        ArgValue::Int(1),
    ]
}

/// The transpose of a contiguous 16384 x 8192 buffer viewed as 8192 x 16384 (the row-max target's
/// `(16384 x 8192).T`): 16-byte aligned pointers, `stride_row == 1` (folded under Triton
/// specialization), `stride_col = 8192`, n_rows and n_cols divisible by 16.
pub fn transposed_args() -> Vec<ArgValue> {
    vec![
        ArgValue::Ptr(0x7f00_0000_0000),
        ArgValue::Ptr(0x7f00_0010_0000),
        ArgValue::Int(8192),
        ArgValue::Int(16384),
        ArgValue::Int(1),
        ArgValue::Int(8192),
    ]
}

/// What a launch of a variant on a case passes besides the buffers.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LaunchShape {
    pub constexprs: Vec<(&'static str, i64)>,
    pub grid: [u32; 3],
}

/// The constexprs and grid `variant` uses for `case` (the same for every back end).
pub fn launch_shape(variant: RowMaxVariant, case: &RowMaxCase) -> LaunchShape {
    let constexprs = variant.constexprs_for(case.n_rows, case.n_cols);
    let grid = [variant.grid(case.n_rows, &constexprs) as u32, 1, 1];
    LaunchShape { constexprs, grid }
}

/// `case` as a harness case with the row-max arguments `x_ptr, y_ptr, n_rows, n_cols,
/// stride_row, stride_col`: `x` is the case's input buffer seen through its view, `y` a
/// zeroed output of `n_rows` floats; no constexprs, one program, 4 warps.
pub fn row_max_tensors(case: &RowMaxCase) -> Case {
    let l = case.layout();
    let x = View::strided(&[case.n_rows, case.n_cols], &[l.stride_row as isize, l.stride_col as isize])
        .with_offset(l.offset);
    Case::new(case.name)
        .input("x", case.input(), x)
        .output("y", vec![0.0f32; case.n_rows], View::contiguous(&[case.n_rows]))
        .int(case.n_rows as i64)
        .int(case.n_cols as i64)
        .int(l.stride_row as i64)
        .int(l.stride_col as i64)
}

/// [`row_max_tensors`] launched as `shaped_like` launches on `case` ([`launch_shape`]).
pub fn harness_case(shaped_like: RowMaxVariant, case: &RowMaxCase) -> Case {
    let LaunchShape { constexprs, grid } = launch_shape(shaped_like, case);
    let mut c = row_max_tensors(case).grid(grid);
    c.constexprs = constexprs;
    c
}

/// The harness suite of `def` launched as `shaped_like` over `cases`, against
/// `cpu_row_max` (NaN ignored or propagated), bit for bit. `y` starts as 0xFFFFFFFF (a NaN
/// no kernel computes: the canonical NaN is 0x7FFFFFFF), so a row no program stores fails.
pub fn row_max_suite(def: KernelDef, shaped_like: RowMaxVariant, cases: &[RowMaxCase], propagate_nan: bool) -> Suite {
    let by_name: Vec<RowMaxCase> = cases.to_vec();
    let unwritten = |mut c: Case| {
        let n = c.tensor("y").data.len();
        c.tensor_mut("y").data = Data::F32(vec![f32::from_bits(0xFFFF_FFFF); n]);
        c
    };
    Suite::new(def)
        .cases(cases.iter().map(|c| unwritten(harness_case(shaped_like, c))))
        .reference(move |c| {
            let case = by_name.iter().find(|r| r.name == c.name).expect("a case of the suite");
            c.tensor_mut("y").data = Data::F32(reference(case, propagate_nan));
        })
        .rule(Rule::BITS)
}

/// The runtime arguments for `case`, given the device address of the input *buffer*
/// (`case.input()`, whose view starts `layout().offset` elements in) and of the output
/// (`n_rows` floats). Any back end (interpreter, simulator, GPU) passes its own addresses.
pub fn row_max_args(case: &RowMaxCase, x_buffer: u64, y: u64) -> Vec<ArgValue> {
    row_max_tensors(case).arg_values(&[x_buffer, y])
}

/// A launch prepared in the interpreter's [`Memory`].
#[derive(Clone, Debug, PartialEq)]
pub struct Launch {
    pub constexprs: Vec<(&'static str, i64)>,
    pub grid: [u32; 3],
    /// `x_ptr, y_ptr, n_rows, n_cols, stride_row, stride_col`.
    pub args: Vec<ArgValue>,
    /// Base address of the output `y` (`n_rows` floats).
    pub y: u64,
}

/// Places `case`'s buffers in `mem` through the harness and returns the launch of
/// `variant` on them.
pub fn prepare(mem: &mut Memory, variant: RowMaxVariant, case: &RowMaxCase) -> Launch {
    let c = harness_case(variant, case);
    let placed = rtriton_testing::run::place(mem, &c).unwrap_or_else(|e| panic!("{case}: {e}"));
    Launch { constexprs: c.constexprs, grid: c.grid, args: placed.args, y: placed.buffers[1] }
}

/// Runs `variant` on `case` on the CPU interpreter under `policy` and returns `y`.
pub fn run_on_interpreter(variant: RowMaxVariant, case: &RowMaxCase, policy: SpecPolicy) -> Result<Vec<f32>, String> {
    run_def_on_interpreter(&variant.def(), variant, case, policy)
}

/// [`run_on_interpreter`] for any kernel `def` taking the row-max arguments, launched as
/// `shaped_like` would be.
pub fn run_def_on_interpreter(
    def: &KernelDef,
    shaped_like: RowMaxVariant,
    case: &RowMaxCase,
    policy: SpecPolicy,
) -> Result<Vec<f32>, String> {
    let out = rtriton_testing::run::run_interpreter(def, &harness_case(shaped_like, case), policy)
        .map_err(|e| e.to_string())?;
    Ok(y_of(&out))
}

fn y_of(out: &rtriton_testing::Outputs) -> Vec<f32> {
    rtriton_testing::suite::output(out, "y").and_then(Data::as_f32).expect("y is an f32 output").to_vec()
}

/// The CPU reference for `case` (NaN ignored, or propagated).
pub fn reference(case: &RowMaxCase, propagate_nan: bool) -> Vec<f32> {
    let l = case.layout();
    cpu_row_max(
        &case.input(),
        l.offset,
        case.n_rows,
        case.n_cols,
        l.stride_row as isize,
        l.stride_col as isize,
        propagate_nan,
    )
}

/// `Ok` when `got` and `want` have equal bits everywhere (so `-0.0 != +0.0` and the NaN
/// payload counts); else a message naming the first differing rows (the harness's
/// comparison under `Rule::BITS`).
pub fn compare_bits(got: &[f32], want: &[f32]) -> Result<(), String> {
    if got.len() != want.len() {
        return Err(format!("{} results, expected {}", got.len(), want.len()));
    }
    let (diffs, _) = differences(&Data::F32(got.to_vec()), &Data::F32(want.to_vec()), &Rule::BITS, 5);
    let bad: Vec<String> =
        diffs.iter().map(|d| format!("row {}: got {}, expected {}", d.element, d.got, d.want)).collect();
    if bad.is_empty() { Ok(()) } else { Err(bad.join("\n")) }
}

/// Runs `variant` on `case` on the SIMT simulator ([`rtriton::sim`]): specialized under
/// `policy`, lowered with `num_warps` warps, executed on the same memory layout as the
/// interpreter. Returns `y`.
pub fn run_on_simulator(
    variant: RowMaxVariant,
    case: &RowMaxCase,
    policy: SpecPolicy,
    num_warps: u32,
) -> Result<Vec<f32>, SimRunError> {
    run_def_on_simulator(&variant.def(), variant, case, policy, num_warps)
}

/// [`run_on_simulator`] for any kernel `def` taking the row-max arguments, launched as
/// `shaped_like` would be.
pub fn run_def_on_simulator(
    def: &KernelDef,
    shaped_like: RowMaxVariant,
    case: &RowMaxCase,
    policy: SpecPolicy,
    num_warps: u32,
) -> Result<Vec<f32>, SimRunError> {
    let c = harness_case(shaped_like, case).num_warps(num_warps);
    Ok(y_of(&rtriton_testing::run::run_simulator(def, &c, policy)?))
}

/// Why [`run_def_on_simulator`] produced no rows: the harness's typed error, so tests
/// branch on diagnostic codes (a register-budget refusal is `Compile` with
/// `Code::PtxRegisterBudget`).
pub type SimRunError = rtriton_testing::RunError;

/// Specializes `def` for `launch`'s arguments under `policy`, traces it and lowers it to
/// the thread-level program the PTX writer prints.
pub fn lower(
    def: &KernelDef,
    launch: &Launch,
    policy: SpecPolicy,
    num_warps: u32,
) -> Result<rtriton::backend::ptx::lir::Program, rtriton::session::CompileError> {
    lower_def(def, &launch.constexprs, &launch.args, policy, num_warps)
}

/// Specializes `def` for `args` under `policy`, traces it with `constexprs` and lowers
/// it with `num_warps` (the other PTX options at their defaults), through the harness.
pub fn lower_def(
    def: &KernelDef,
    constexprs: &[(&str, i64)],
    args: &[ArgValue],
    policy: SpecPolicy,
    num_warps: u32,
) -> Result<rtriton::backend::ptx::lir::Program, rtriton::session::CompileError> {
    rtriton_testing::run::lower(&mut CompileSession::new(), def, constexprs, args, policy, num_warps)
}

/// Mixing dtypes in a kernel body is a Rust compile error, not a run-time diagnostic:
/// storing `i32` values through an `f32` pointer does not type-check (`store::<E>` takes
/// a `Tensor<Ptr<E>>` and a `Tensor<E>`), so only hand-built IR can reach the verifier
/// with it (`tests/tests/diagnostics.rs` checks that path).
///
/// ```compile_fail,E0308
/// use rtriton::prelude::*;
/// rtriton::kernel! {
///     fn store_i32_through_f32(y_ptr: Ptr<f32>) {
///         let offs = arange(0, 4);
///         store(y_ptr + offs, offs, None);
///     }
/// }
/// ```
///
/// With the conversion the author meant, the same kernel compiles:
///
/// ```
/// use rtriton::prelude::*;
/// rtriton::kernel! {
///     fn store_i32_through_f32(y_ptr: Ptr<f32>) {
///         let offs = arange(0, 4);
///         store(y_ptr + offs, offs.to::<f32>(), None);
///     }
/// }
/// let _ = store_i32_through_f32();
/// ```
pub mod dtype_mismatch_is_a_compile_error {}

/// rstest needs literal `#[values]` lists, so the shared templates in `tables.rs` spell out
/// the shape matrix's case names and the row-max variants; this keeps them whole when a
/// case or a variant is added.
#[cfg(test)]
mod values_lists {
    use super::*;

    #[test]
    fn the_shared_tables_name_every_case_and_variant() {
        let src = include_str!("tables.rs");
        assert_case_lists_are_whole("tables", src, 2);
        assert_variant_lists_are_whole("tables", src, 2);
    }

    /// The rstest `#[values(...)]` lists of `src` (a test file's `include_str!`), as the
    /// items that contain `marker`, with `marker` stripped (`"` for case names, the enum path
    /// for variants); lists without it are left out.
    fn values_lists<'a>(src: &'a str, marker: &str) -> Vec<Vec<&'a str>> {
        src.split("#[values(")
            .skip(1)
            .map(|part| &part[..part.find(")]").unwrap_or(part.len())])
            .map(|list| {
                list.split(',')
                    .map(str::trim)
                    .filter(|item| item.contains(marker))
                    .map(|item| item.trim_matches('"').trim_start_matches(marker))
                    .collect::<Vec<_>>()
            })
            .filter(|items| !items.is_empty())
            .collect()
    }

    /// Panics unless `src` has `lists` `#[values]` lists of quoted case names and each names
    /// every case of `SHAPE_MATRIX`, in order: rstest needs literal lists, this keeps them
    /// whole.
    fn assert_case_lists_are_whole(name: &str, src: &str, lists: usize) {
        let all: Vec<&str> = SHAPE_MATRIX.iter().map(|c| c.name).collect();
        let found = values_lists(src, "\"");
        assert_eq!(found.len(), lists, "{name}.rs: #[values] lists of case names");
        for names in found {
            assert_eq!(names, all, "{name}.rs: a #[values] list of cases differs from SHAPE_MATRIX");
        }
    }

    /// Panics unless `src` has exactly `lists` `#[values]` lists naming every
    /// `RowMaxVariant` in the order of `RowMaxVariant::ALL` (lists of some variants, on
    /// purpose, are not counted): a new variant must be added to every whole list.
    fn assert_variant_lists_are_whole(name: &str, src: &str, lists: usize) {
        let all: Vec<String> = RowMaxVariant::ALL.iter().map(|v| format!("{v:?}")).collect();
        let whole = values_lists(src, "RowMaxVariant::").into_iter().filter(|names| *names == all).count();
        assert_eq!(whole, lists, "{name}.rs: #[values] lists naming every RowMaxVariant (add a new variant to each)");
    }
}
