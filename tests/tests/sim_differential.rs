//! The simulator suite: every row-max variant on the shape matrix, with specialization on
//! and off and `num_warps` in {1, 4, 8}, lowered to the thread-level program the PTX
//! writer prints and run on the SIMT simulator, must match the interpreter bit for bit
//! (and pass every simulator check: bounds, alignment, shuffles, barriers, races,
//! duplicate stores, uninitialized registers). Kernels beyond row max (vector stores,
//! argmax, exact loop trip counts, mask comparisons, mixed ops) are also checked against
//! independent expectations (`cpu_row_max`, a CPU argmax, hand-computed values), and a
//! mutated program shows the comparison catches what no check does.

mod ptx_common;

use rstest::rstest;
use rstest_reuse::apply;
use rtriton::backend::ptx::layout::MAX_REGS_PER_VALUE;
use rtriton::backend::ptx::lir::{Inst, Program};
use rtriton::diag::{Code, HasDiagnostics};
use rtriton::interp::Memory;
use rtriton::kernel;
use rtriton::prelude::*;
use rtriton::spec::SpecPolicy;
use rtriton_kernels::RowMaxVariant;
use rtriton_kernels::cases::{RowMaxCase, SHAPE_MATRIX};
use rtriton_testing::compare::differences;
use rtriton_testing::run::{run_interpreter, run_simulator};
use rtriton_testing::suite::arg_values;
use rtriton_testing::{Case, Data, Outputs, Rule, View};
use rtriton_tests::tables::every_variant;
use rtriton_tests::{
    SimRunError, compare_bits, kernels, lower_def, prepare, reference, run_def_on_interpreter, run_def_on_simulator,
};

const NUM_WARPS: [u32; 3] = [1, 4, 8];

/// The matrix the simulator runs: every case of [`SHAPE_MATRIX`] (every view kind and
/// special value), with row counts capped so the suite stays fast on CI's two cores.
/// Capping rows keeps what each program does (the columns, strides and offsets are the
/// case's own) and still runs several programs; the GPU suite runs the full shapes.
fn sim_cases() -> Vec<RowMaxCase> {
    SHAPE_MATRIX.iter().map(|c| RowMaxCase { n_rows: capped_rows(c.n_rows), ..*c }).collect()
}

/// More than 80 rows become `64 + n_rows % 16`: the same residue modulo 16, so the
/// specialization (divisibility of `n_rows`, and of the column stride of a transposed
/// view) and the partly filled last program of `row_max_2d` are those of the full case.
fn capped_rows(n_rows: usize) -> usize {
    if n_rows <= 80 { n_rows } else { 64 + n_rows % 16 }
}

#[test]
fn capping_keeps_every_view_fill_and_residue() {
    for (full, capped) in SHAPE_MATRIX.iter().zip(sim_cases()) {
        assert_eq!((full.view, full.fill, full.n_cols), (capped.view, capped.fill, capped.n_cols));
        assert_eq!(full.n_rows % 16, capped.n_rows % 16, "{}", full.name);
        assert!(capped.n_rows <= 80);
    }
}

/// Whether the lowering must refuse `variant` on `case` with `num_warps`: a single block
/// of more than `MAX_REGS_PER_VALUE * 32 * num_warps` elements is over the register
/// budget (`row_max` on 5000 columns is one block of 8192 with one warp).
fn over_register_budget(variant: RowMaxVariant, case: &RowMaxCase, num_warps: u32) -> bool {
    let numel: i64 = variant
        .constexprs_for(case.n_rows, case.n_cols)
        .iter()
        .filter(|(n, _)| n.starts_with("BLOCK"))
        .map(|(_, v)| *v)
        .product();
    numel > (MAX_REGS_PER_VALUE * 32) as i64 * i64::from(num_warps)
}

/// Runs one combination; an expected refusal by the lowering is `Ok` only when the
/// lowering does refuse, for the register budget.
fn check_one(
    def: &rtriton::trace::KernelDef,
    variant: RowMaxVariant,
    case: &RowMaxCase,
    policy: SpecPolicy,
    nw: u32,
    want: &[f32],
) -> Result<(), String> {
    let got = run_def_on_simulator(def, variant, case, policy, nw);
    if over_register_budget(variant, case, nw) {
        return match got {
            Err(SimRunError::Compile(e)) if e.has_code(Code::PtxRegisterBudget) => Ok(()),
            Err(e) => Err(format!("expected the register-budget refusal, got: {e}")),
            Ok(_) => Err("expected the lowering to refuse a block over the register budget".into()),
        };
    }
    compare_bits(&got.map_err(|e| e.to_string())?, want)
}

/// Runs `def` (launched as `shaped_like`) on every case of [`sim_cases`] on the
/// interpreter, which must match the plain-Rust `cpu_row_max` (NaN propagated or not),
/// and on the simulator with every `num_warps`, which must match the interpreter; panics
/// with every failure.
fn check_all_cases(def: &rtriton::trace::KernelDef, shaped_like: RowMaxVariant, policy: SpecPolicy, nan: bool) {
    let mut failures = Vec::new();
    for case in sim_cases() {
        let want = run_def_on_interpreter(def, shaped_like, &case, policy)
            .and_then(|w| compare_bits(&w, &reference(&case, nan)).map(|()| w));
        let want = match want {
            Ok(w) => w,
            Err(e) => {
                failures.push(format!("{case}: interpreter: {e}"));
                continue;
            }
        };
        for nw in NUM_WARPS {
            if let Err(e) = check_one(def, shaped_like, &case, policy, nw, &want) {
                failures.push(format!("{case}, num_warps = {nw}:\n{e}"));
            }
        }
    }
    assert!(failures.is_empty(), "{} under {policy:?} failed:\n{}", def.name, failures.join("\n\n"));
}

#[apply(every_variant)]
fn row_max_on_the_simulator_matches_the_interpreter(
    variant: RowMaxVariant,
    #[values(SpecPolicy::Triton, SpecPolicy::Off)] policy: SpecPolicy,
) {
    check_all_cases(&variant.def(), variant, policy, false);
}

#[rstest]
#[case::single_block(kernels::row_max_nan(), RowMaxVariant::RowMax)]
#[case::looping(kernels::row_max_loop_nan(), RowMaxVariant::RowMaxLoop)]
fn nan_propagating_max_on_the_simulator_matches_the_interpreter(
    #[case] def: rtriton::trace::KernelDef,
    #[case] shaped_like: RowMaxVariant,
    #[values(SpecPolicy::Triton, SpecPolicy::Off)] policy: SpecPolicy,
) {
    check_all_cases(&def, shaped_like, policy, true);
}

// ---- kernels beyond the row-max family ------------------------------------------------
// What row max does not exercise: vector stores, replicated stores, argmax pairs, integer
// division, casts, where, f32 sums and i32 reductions. Inputs are small integers, so f32
// sums are exact and the reduction order (sequential on the interpreter, a tree on the
// simulator) does not change a bit.

kernel! {
    /// y[i] = x[i] + 1 over n elements: vector loads and stores, a masked tail.
    fn add_one(x_ptr: Ptr<f32>, y_ptr: Ptr<f32>, n: i32; const BLOCK: usize) {
        let offs = program_id(0) * BLOCK as i32 + arange(0, BLOCK);
        let mask = offs.lt(n);
        let x = load(x_ptr + offs, Some(mask), Some(0.0));
        store(y_ptr + offs, x + 1.0, Some(mask));
    }
}

kernel! {
    /// The index of the first maximum of each row (NaN ignored).
    fn row_argmax(x_ptr: Ptr<f32>, y_ptr: Ptr<i32>, n_cols: i32; const BLOCK: usize) {
        let row = program_id(0);
        let cols = arange(0, BLOCK);
        let x = load(x_ptr + row * n_cols + cols, Some(cols.lt(n_cols)), Some(f32::NEG_INFINITY));
        store(y_ptr + row, argmax(x, 0), None);
    }
}

/// A launch of any kernel whose parameters are input buffers, then output buffers, then
/// scalars, as a harness case: runs it on the interpreter and, for every policy and
/// `num_warps`, on the simulator (both through `rtriton_testing::run`), and compares every
/// output bit.
struct Differential<'a> {
    def: rtriton::trace::KernelDef,
    constexprs: &'a [(&'static str, i64)],
    inputs: Vec<Data>,
    /// Output buffers as they start (filled with 0xAB bytes by [`untouched_f32`] and
    /// [`untouched_i32`], so untouched elements must agree too).
    outputs: Vec<Data>,
    scalars: Vec<rtriton::spec::ArgValue>,
    grid: u32,
}

/// Tensor names for the harness's reports, in parameter order.
const INPUTS: [&str; 4] = ["in0", "in1", "in2", "in3"];
const OUTPUTS: [&str; 4] = ["out0", "out1", "out2", "out3"];

/// `n` floats of 0xAB bytes: what an output holds before the kernel stores.
fn untouched_f32(n: usize) -> Data {
    Data::F32(vec![f32::from_bits(0xABAB_ABAB); n])
}

fn untouched_i32(n: usize) -> Data {
    Data::I32(vec![0xABAB_ABABu32 as i32; n])
}

impl Differential<'_> {
    /// The launch as a harness case with `num_warps` warps.
    fn case(&self, num_warps: u32) -> Case {
        let mut c = Case::new(self.def.name).grid([self.grid, 1, 1]).num_warps(num_warps);
        c.constexprs = self.constexprs.to_vec();
        for (data, name) in self.inputs.iter().zip(INPUTS) {
            c = c.input(name, data.clone(), View::contiguous(&[data.len()]));
        }
        for (data, name) in self.outputs.iter().zip(OUTPUTS) {
            c = c.output(name, data.clone(), View::contiguous(&[data.len()]));
        }
        for s in &self.scalars {
            c = match *s {
                rtriton::spec::ArgValue::Int(v) => c.int(v),
                rtriton::spec::ArgValue::F32(v) => c.f32(v),
                rtriton::spec::ArgValue::Ptr(_) => panic!("pointers are inputs or outputs, not scalars"),
            };
        }
        c
    }

    /// The program the PTX writer prints for this launch under `policy` with `num_warps`.
    fn lower(&self, policy: SpecPolicy, num_warps: u32) -> Program {
        let args = arg_values(&self.case(num_warps)).unwrap_or_else(|e| panic!("{e}"));
        lower_def(&self.def, self.constexprs, &args, policy, num_warps).unwrap()
    }

    /// Runs the comparison and returns the interpreter's outputs as bytes (the same under
    /// both policies), for tests that also check them against an independent expectation.
    fn check(&self) -> Vec<Vec<u8>> {
        let mut failures = Vec::new();
        let mut outputs = Vec::new();
        for policy in [SpecPolicy::Triton, SpecPolicy::Off] {
            let want = run_interpreter(&self.def, &self.case(4), policy).unwrap_or_else(|e| panic!("{e}"));
            for nw in NUM_WARPS {
                let outcome = run_simulator(&self.def, &self.case(nw), policy)
                    .map_err(|e| e.to_string())
                    .and_then(|got| first_difference(&got, &want));
                if let Err(e) = outcome {
                    failures.push(format!("{policy:?}, num_warps = {nw}: {e}"));
                }
            }
            outputs = want.buffers.iter().map(|(_, d)| d.to_le_bytes()).collect();
        }
        assert!(failures.is_empty(), "{} {:?}:\n{}", self.def.name, self.constexprs, failures.join("\n"));
        outputs
    }
}

/// `Ok` when every output has the same bits on both back ends; else the first difference.
fn first_difference(got: &Outputs, want: &Outputs) -> Result<(), String> {
    for ((name, g), (_, w)) in got.buffers.iter().zip(&want.buffers) {
        let (diffs, _) = differences(g, w, &Rule::BITS, 1);
        if let Some(d) = diffs.first() {
            return Err(format!("`{name}` differs first at element {}: got {}, expected {}", d.element, d.got, d.want));
        }
    }
    Ok(())
}

fn f32_bytes(v: &[f32]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}

fn i32_bytes(v: &[i32]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}

/// Vector loads and stores where Triton's rules prove them (4096 with 4 warps); a masked
/// tail not divisible by 16 and a replicated layout (BLOCK 16 on 128 threads, one element
/// per thread as in Triton's coalescing rule) are scalar. `y` is exactly `n` elements, so
/// a store past `n` is out of bounds on the simulator and a second store of an element a
/// conflict: every element is stored once.
#[rstest]
#[case::vector_4096(4096, 1024, 4)]
#[case::tail_1000(1000, 256, 1)]
#[case::block_smaller_than_cta(48, 16, 1)]
fn add_one_on_the_simulator_matches_the_interpreter(#[case] n: usize, #[case] block: i64, #[case] want_width: u32) {
    let x: Vec<f32> = (0..n).map(|i| i as f32 * 0.5 - 7.0).collect();
    let d = Differential {
        def: add_one(),
        constexprs: &[("BLOCK", block)],
        inputs: vec![x.clone().into()],
        outputs: vec![untouched_f32(n)],
        scalars: vec![rtriton::spec::ArgValue::Int(n as i64)],
        grid: n.div_ceil(block as usize) as u32,
    };
    let accesses = d.lower(SpecPolicy::Triton, 4).decisions.accesses;
    let widths: Vec<u32> = accesses.iter().map(|a| a.vector_width).collect();
    assert_eq!(widths, vec![want_width, want_width], "{accesses:?}");
    let y: Vec<f32> = x.iter().map(|v| v + 1.0).collect();
    assert_eq!(d.check(), vec![f32_bytes(&y)]);
}

#[rstest]
fn argmax_on_the_simulator_matches_the_interpreter(#[values(16, 256, 1024)] block: i64) {
    let n_cols = (block - 3).max(1) as usize;
    let rows: Vec<Vec<f32>> = vec![
        (0..n_cols).map(|c| ((c * 37) % 101) as f32).collect(), // ties: the first maximum wins
        vec![f32::NEG_INFINITY; n_cols],
        (0..n_cols).map(|c| if c % 2 == 0 { f32::NAN } else { -(c as f32) }).collect(),
        vec![f32::NAN; n_cols],
        (0..n_cols).map(|c| if c == n_cols - 1 { 5.0 } else { 1.0 }).collect(),
        (0..n_cols).map(|c| if c % 3 == 0 { -0.0 } else { 0.0 }).collect(),
    ];
    let got = Differential {
        def: row_argmax(),
        constexprs: &[("BLOCK", block)],
        inputs: vec![rows.concat().into()],
        outputs: vec![untouched_i32(rows.len())],
        scalars: vec![rtriton::spec::ArgValue::Int(n_cols as i64)],
        grid: rows.len() as u32,
    }
    .check();
    // The masked-off tail of the block is `-inf`: an all-NaN row's argmax is its first slot.
    let padded = |r: &Vec<f32>| [r.as_slice(), &vec![f32::NEG_INFINITY; block as usize - n_cols]].concat();
    let want: Vec<i32> = rows.iter().map(|r| cpu_argmax(&padded(r))).collect();
    assert_eq!(got, vec![i32_bytes(&want)]);
}

/// The first maximum of a row, NaN losing to every number and `-0.0` tying `+0.0`.
fn cpu_argmax(row: &[f32]) -> i32 {
    let mut best = 0;
    for (i, &v) in row.iter().enumerate() {
        let b = row[best];
        if (b.is_nan() && !v.is_nan()) || v > b {
            best = i;
        }
    }
    best as i32
}

#[rstest]
#[case::small_blocks(1000, 16)]
#[case::wide_blocks(1000, 256)]
#[case::one_block(200, 1024)]
fn mixed_ops_on_the_simulator_match_the_interpreter(#[case] n: usize, #[case] block: i64) {
    let x: Vec<f32> = rtriton_kernels::cases::random(5, n, -50.0, 50.0).iter().map(|v| v.round()).collect();
    let grid = n.div_ceil(block as usize);
    Differential {
        def: kernels::op_mix(),
        constexprs: &[("BLOCK", block)],
        inputs: vec![x.into()],
        outputs: vec![untouched_i32(n), untouched_f32(grid), untouched_i32(grid * 3)],
        scalars: vec![rtriton::spec::ArgValue::Int(n as i64)],
        grid: grid as u32,
    }
    .check();
}

kernel! {
    /// Counts the iterations of `for_range(lo, hi, step)`: the trip count is exact, so
    /// bounds near the ends of i32 neither wrap nor loop forever.
    fn count_iterations(y_ptr: Ptr<i32>, lo: i32, hi: i32, step: i32) {
        let zero = full::<i32>(&[], 0);
        let n = for_range(lo, hi, step, zero, |_, n| n + 1);
        store(y_ptr, n, None);
    }
}

#[rstest]
#[case::plain(0, 10, 3, 4)]
#[case::exact_multiple(0, 12, 3, 4)]
#[case::empty(5, 5, 1, 0)]
#[case::reversed(10, 0, 1, 0)]
#[case::near_i32_max(i32::MAX - 5, i32::MAX, 4, 2)]
#[case::whole_i32_range(i32::MIN, i32::MAX, 1 << 30, 4)]
fn loop_trip_count_is_exact(#[case] lo: i32, #[case] hi: i32, #[case] step: i32, #[case] want: i32) {
    use rtriton::spec::ArgValue::Int;
    let d = Differential {
        def: count_iterations(),
        constexprs: &[],
        inputs: vec![],
        outputs: vec![untouched_i32(1)],
        scalars: vec![Int(lo.into()), Int(hi.into()), Int(step.into())],
        grid: 1,
    };
    assert_eq!(d.check(), vec![i32_bytes(&[want])]);
    // Unspecialized, the step is a runtime value: the PTX checks it and traps.
    let text = rtriton::backend::ptx::write(&d.lower(SpecPolicy::Off, 1));
    assert!(text.contains("trap;"), "a runtime step is checked");
}

/// The unspecialized loop's PTX (its runtime step check included) assembles.
#[test]
#[cfg_attr(not(has_ptxas), ignore = "needs ptxas on PATH")]
fn loop_with_a_runtime_step_assembles() {
    use rtriton::spec::ArgValue::Int;
    let d = Differential {
        def: count_iterations(),
        constexprs: &[],
        inputs: vec![],
        outputs: vec![untouched_i32(1)],
        scalars: vec![Int(0), Int(10), Int(3)],
        grid: 1,
    };
    let text = rtriton::backend::ptx::write(&d.lower(SpecPolicy::Off, 1));
    let ptxas = ptx_common::ptxas("loop_with_a_runtime_step_assembles");
    let info =
        ptx_common::assemble(&ptxas, &text, "sm_86", "count_iterations").unwrap_or_else(|e| panic!("{e}\n{text}"));
    assert!(info.contains("entry function 'count_iterations'"), "{info}");
}

kernel! {
    /// Every comparison between masks, packed into one int per element.
    fn mask_compare(y_ptr: Ptr<i32>; const BLOCK: usize) {
        let i = arange(0, BLOCK);
        let a = (i & 1).eq(1);
        let b = (i & 2).eq(2);
        let r = a.lt(b).to::<i32>()
            + a.le(b).to::<i32>() * 2
            + a.gt(b).to::<i32>() * 4
            + a.ge(b).to::<i32>() * 8
            + a.eq(b).to::<i32>() * 16
            + a.ne(b).to::<i32>() * 32;
        store(y_ptr + i, r, None);
    }
}

/// One program of `mask_compare` over a block of 4.
fn mask_compare_launch() -> Differential<'static> {
    Differential {
        def: mask_compare(),
        constexprs: &[("BLOCK", 4)],
        inputs: vec![],
        outputs: vec![untouched_i32(4)],
        scalars: vec![],
        grid: 1,
    }
}

#[test]
fn masks_compare_as_zero_and_one() {
    let d = mask_compare_launch();
    let want: Vec<i32> = (0..4)
        .map(|i| {
            let (a, b) = (i & 1 == 1, i & 2 == 2);
            i32::from(!a & b)
                + i32::from(a <= b) * 2
                + i32::from(a & !b) * 4
                + i32::from(a >= b) * 8
                + i32::from(a == b) * 16
                + i32::from(a != b) * 32
        })
        .collect();
    assert_eq!(d.check(), vec![i32_bytes(&want)]);
}

/// The mask comparisons' PTX assembles.
#[test]
#[cfg_attr(not(has_ptxas), ignore = "needs ptxas on PATH")]
fn mask_compares_assemble() {
    let d = mask_compare_launch();
    let text = rtriton::backend::ptx::write(&d.lower(SpecPolicy::Triton, 1));
    let ptxas = ptx_common::ptxas("mask_compares_assemble");
    let info = ptx_common::assemble(&ptxas, &text, "sm_86", "mask_compare").unwrap_or_else(|e| panic!("{e}\n{text}"));
    assert!(info.contains("entry function 'mask_compare'"), "{info}");
}

/// The comparison catches what no simulator check can: a butterfly round that reads the
/// wrong lane (its own, `lane ^ 0`) is legal PTX, but the row maximum misses half a warp.
#[test]
fn a_broken_shuffle_round_gives_a_different_row_max() {
    let case = SHAPE_MATRIX
        .iter()
        .find(|c| c.n_rows >= 16 && c.n_cols >= 64 && matches!(c.fill, rtriton_kernels::cases::Fill::Random(_)))
        .expect("a random case of several rows wider than a warp");
    let case = RowMaxCase { n_rows: capped_rows(case.n_rows), ..*case };
    let mut mem = Memory::new();
    let launch = prepare(&mut mem, RowMaxVariant::RowMax, &case);
    let mut program = rtriton_tests::lower(&RowMaxVariant::RowMax.def(), &launch, SpecPolicy::Triton, 1).unwrap();
    let mut control = mem.clone();
    rtriton::sim::run(&program, launch.grid, &launch.args, &mut control).unwrap();
    let want = reference(&case, false);
    compare_bits(&control.read_f32(launch.y, case.n_rows).unwrap(), &want).unwrap();
    fn first_shfl(insts: &mut [Inst]) -> Option<&mut u32> {
        insts.iter_mut().find_map(|i| match i {
            Inst::Shfl { lane_mask, .. } => Some(lane_mask),
            Inst::Loop { body, .. } => first_shfl(body),
            _ => None,
        })
    }
    *first_shfl(&mut program.body).expect("row_max shuffles") = 0;
    rtriton::sim::run(&program, launch.grid, &launch.args, &mut mem).expect("a wrong lane is no check's business");
    let got = mem.read_f32(launch.y, case.n_rows).unwrap();
    assert!(compare_bits(&got, &want).is_err(), "{case}: a broken shuffle round must change some row's maximum");
}

#[test]
fn the_report_counts_what_ran() {
    use rtriton_kernels::cases::{Fill, ViewKind};
    let case =
        RowMaxCase { name: "report", n_rows: 3, n_cols: 1000, view: ViewKind::Contiguous, fill: Fill::Random(1) };
    let mut mem = Memory::new();
    let launch = prepare(&mut mem, RowMaxVariant::RowMax, &case);
    let program = rtriton_tests::lower(&RowMaxVariant::RowMax.def(), &launch, SpecPolicy::Triton, 4).unwrap();
    let r = rtriton::sim::run(&program, launch.grid, &launch.args, &mut mem).unwrap();
    // 3 programs of 4 warps: 5 butterfly rounds per warp, partials through shared memory
    // between 2 barriers, one thread stores each row.
    assert_eq!(r.programs, 3);
    assert_eq!(r.shuffles, 3 * 4 * 5);
    assert_eq!(r.barriers, 3 * 2);
    assert_eq!(r.global_stores, 3);
    assert_eq!(r.divergent_loops, 0);
    let width = program.decisions.accesses[0].vector_width as u64;
    // Loads run only where the mask holds (1000 of 1024 columns per row), one per vector.
    assert_eq!(r.global_loads, 3 * 1000 / width);
    assert!(r.instructions > 0);
}

/// The simulator's shuffle lanes against the GPU: `data/shfl_h200.txt` records, for 540
/// (mode, b, c) combinations of `shfl.sync` with a full member mask, the lane each lane
/// read on an H200 and the in-range predicate (`data/shfl_h200.py` made it).
#[test]
fn shuffle_lanes_match_the_gpu() {
    use rtriton::sim::shfl::{Mode, source_lane};
    let table = include_str!("data/shfl_h200.txt");
    let mut checked = 0;
    for line in table.lines().filter(|l| !l.starts_with('#')) {
        let f: Vec<&str> = line.split_whitespace().collect();
        let mode = match f[0] {
            "up" => Mode::Up,
            "down" => Mode::Down,
            "bfly" => Mode::Bfly,
            "idx" => Mode::Idx,
            m => panic!("unknown mode {m}"),
        };
        let b: u32 = f[1].parse().unwrap();
        let c = u32::from_str_radix(f[2].trim_start_matches("0x"), 16).unwrap();
        for (lane, cell) in f[3..].iter().enumerate() {
            let in_range = cell.ends_with('+');
            let src: u32 = cell.trim_end_matches('+').parse().unwrap();
            assert_eq!(source_lane(mode, lane as u32, b, c), (src, in_range), "{} b={b} c=0x{c:x} lane {lane}", f[0]);
        }
        checked += 1;
    }
    assert_eq!(checked, 540);
}

kernel! {
    /// `y = -x` in f32 and `z = -w` in i32: the first unary op, through every back end.
    fn negate(x_ptr: Ptr<f32>, w_ptr: Ptr<i32>, y_ptr: Ptr<f32>, z_ptr: Ptr<i32>, n: i32; const BLOCK: usize) {
        let offs = program_id(0) * BLOCK as i32 + arange(0, BLOCK);
        let mask = offs.lt(n);
        store(y_ptr + offs, -load(x_ptr + offs, Some(mask), None), Some(mask));
        store(z_ptr + offs, -load(w_ptr + offs, Some(mask), None), Some(mask));
    }
}

/// Unary minus flips the sign bit of every float (zeros, infinities, subnormals and NaN
/// payloads included) and wraps on ints (`-i32::MIN == i32::MIN`), the same on the
/// interpreter and the simulator, with a masked tail (`negation_assembles` runs ptxas).
#[rstest]
fn negation_flips_the_sign_bit_and_wraps(#[values(16, 128)] block: i64) {
    let x = [
        0.0,
        -0.0,
        1.5,
        -2.25,
        f32::INFINITY,
        f32::NEG_INFINITY,
        f32::from_bits(1),
        f32::from_bits(0x7FC0_1234),
        f32::from_bits(0xFFC0_0001),
        f32::MAX,
        f32::MIN_POSITIVE,
        3.0,
        4.0,
        5.0,
        6.0,
        7.0,
        8.0,
        9.0,
        10.0,
        11.0,
    ];
    let w: Vec<i32> = (0..x.len() as i32).map(|i| i * 1000 - 7000).chain([i32::MIN, i32::MAX, 0, -1]).collect();
    let n = x.len().min(w.len());
    let d = Differential {
        def: negate(),
        constexprs: &[("BLOCK", block)],
        inputs: vec![x[..n].to_vec().into(), w[..n].to_vec().into()],
        outputs: vec![untouched_f32(n), untouched_i32(n)],
        scalars: vec![rtriton::spec::ArgValue::Int(n as i64)],
        grid: n.div_ceil(block as usize) as u32,
    };
    let got = d.check();
    let want_y: Vec<f32> = x[..n].iter().map(|v| f32::from_bits(v.to_bits() ^ 0x8000_0000)).collect();
    let want_z: Vec<i32> = w[..n].iter().map(|v| v.wrapping_neg()).collect();
    assert_eq!(got, vec![f32_bytes(&want_y), i32_bytes(&want_z)]);
    let text = rtriton::backend::ptx::write(&d.lower(SpecPolicy::Triton, 4));
    assert!(text.contains("xor.b32") && text.contains("0x80000000") && text.contains("neg.s32"), "{text}");
}

/// ptxas assembles the `neg` the negation kernel prints, for sm_86 and sm_90.
#[test]
#[cfg_attr(not(has_ptxas), ignore = "needs ptxas on PATH")]
fn negation_assembles() {
    let d = Differential {
        def: negate(),
        constexprs: &[("BLOCK", 16)],
        inputs: vec![vec![1.0f32; 4].into(), vec![1i32; 4].into()],
        outputs: vec![untouched_f32(4), untouched_i32(4)],
        scalars: vec![rtriton::spec::ArgValue::Int(4)],
        grid: 1,
    };
    let text = rtriton::backend::ptx::write(&d.lower(SpecPolicy::Triton, 4));
    let ptxas = ptx_common::ptxas("negation_assembles");
    for arch in ["sm_86", "sm_90"] {
        let info = ptx_common::assemble(&ptxas, &text, arch, "negate").unwrap_or_else(|e| panic!("{e}\n{text}"));
        assert!(info.contains("entry function 'negate'"), "{info}");
    }
}
