//! Shared helpers of the integration suites in `tests/tests/`: run a row-max variant on a
//! case of the shape matrix, compute the reference, compare bit for bit. The interpreter,
//! simulator and GPU suites all go through these, so they check the same thing.

use rtriton::interp::{self, Memory};
use rtriton::spec::{ArgValue, SpecPolicy};
use rtriton_kernels::RowMaxVariant;
use rtriton_kernels::cases::RowMaxCase;
use rtriton_kernels::cpu_row_max;

/// How a case is laid out in device memory and what a launch passes.
#[derive(Clone, Debug, PartialEq)]
pub struct Launch {
    pub constexprs: Vec<(&'static str, i64)>,
    pub grid: [u32; 3],
    /// `x_ptr, y_ptr, n_rows, n_cols, stride_row, stride_col`.
    pub args: Vec<ArgValue>,
    /// Base address of the output `y` (`n_rows` floats).
    pub y: u64,
}

/// Allocates `case`'s input (the whole buffer; `x_ptr` points `offset` elements into it)
/// and a zeroed output in `mem`, and returns the launch of `variant` on them.
pub fn prepare(mem: &mut Memory, variant: RowMaxVariant, case: &RowMaxCase) -> Launch {
    let layout = case.layout();
    let x_base = mem.alloc_f32(&case.input());
    let y = mem.alloc(case.n_rows * 4);
    let x_ptr = x_base + layout.offset as u64 * 4;
    let constexprs = variant.constexprs_for(case.n_rows, case.n_cols);
    let grid = [variant.grid(case.n_rows, &constexprs) as u32, 1, 1];
    let args = vec![
        ArgValue::Ptr(x_ptr),
        ArgValue::Ptr(y),
        ArgValue::Int(case.n_rows as i64),
        ArgValue::Int(case.n_cols as i64),
        ArgValue::Int(layout.stride_row as i64),
        ArgValue::Int(layout.stride_col as i64),
    ];
    Launch { constexprs, grid, args, y }
}

/// Runs `variant` on `case` on the CPU interpreter under `policy` and returns `y`.
pub fn run_on_interpreter(variant: RowMaxVariant, case: &RowMaxCase, policy: SpecPolicy) -> Result<Vec<f32>, String> {
    let mut mem = Memory::new();
    let launch = prepare(&mut mem, variant, case);
    interp::run_def(&variant.def(), &launch.constexprs, &launch.args, policy, launch.grid, &mut mem)
        .map_err(|e| e.to_string())?;
    mem.read_f32(launch.y, case.n_rows).map_err(|e| e.to_string())
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
/// payload counts); else a message naming the first differing rows.
pub fn compare_bits(got: &[f32], want: &[f32]) -> Result<(), String> {
    if got.len() != want.len() {
        return Err(format!("{} results, expected {}", got.len(), want.len()));
    }
    let bad: Vec<String> = got
        .iter()
        .zip(want)
        .enumerate()
        .filter(|(_, (g, w))| g.to_bits() != w.to_bits())
        .take(5)
        .map(|(r, (g, w))| {
            format!("row {r}: got {g:?} (0x{:08X}), expected {w:?} (0x{:08X})", g.to_bits(), w.to_bits())
        })
        .collect();
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
) -> Result<Vec<f32>, String> {
    run_def_on_simulator(&variant.def(), variant, case, policy, num_warps)
}

/// [`run_on_simulator`] for any kernel `def` taking the row-max arguments, launched as
/// `shaped_like` would be.
pub fn run_def_on_simulator(
    def: &rtriton::trace::KernelDef,
    shaped_like: RowMaxVariant,
    case: &RowMaxCase,
    policy: SpecPolicy,
    num_warps: u32,
) -> Result<Vec<f32>, String> {
    let mut mem = Memory::new();
    let launch = prepare(&mut mem, shaped_like, case);
    let program = lower(def, &launch, policy, num_warps)?;
    rtriton::sim::run(&program, launch.grid, &launch.args, &mut mem).map_err(|e| e.to_string())?;
    mem.read_f32(launch.y, case.n_rows).map_err(|e| e.to_string())
}

/// Specializes `def` for `launch`'s arguments under `policy`, traces it and lowers it to
/// the thread-level program the PTX writer prints.
pub fn lower(
    def: &rtriton::trace::KernelDef,
    launch: &Launch,
    policy: SpecPolicy,
    num_warps: u32,
) -> Result<rtriton::backend::ptx::lir::Program, String> {
    use rtriton::backend::ptx::{self, PtxOptions};
    let (kernel, info) = rtriton::pipeline::specialize_and_trace(
        def,
        &launch.constexprs,
        &launch.args,
        policy,
        &rtriton::trace::TraceOptions::default(),
    )
    .map_err(|e| e.to_string())?;
    ptx::lower(&kernel, &info, &PtxOptions { num_warps, ..PtxOptions::default() }).map_err(|e| e.to_string())
}
