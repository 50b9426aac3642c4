//! The ports' PTX through the real ptxas: every case of every port's suite, under
//! each specialization the suite runs (Triton's and none, unless it says otherwise), compiled for `.target sm_86` and assembled with
//! `-arch=sm_86` and `-arch=sm_90` without spills; and the loads the reductions' and the
//! epilogue's performance rests on: 16-byte vector loads along contiguous rows, for
//! row-wise and column-wise tiles alike. Ignored without ptxas (`tests/build.rs`).

mod ptx_common;

use std::collections::BTreeMap;

use ptx_common::{assemble, compile_def, options, ptxas, sass_instructions, spill_stores};
use rtriton::backend::ptx::{self, Arch};
use rtriton::session::CompileSession;
use rtriton::spec::{ArgValue, SpecPolicy};
use rtriton::trace::{KernelDef, TraceOptions};
use rtriton_kernels::ports::epilogue as epilogue_kernels;
use rtriton_kernels::ports::reduce::{self as reduce_kernels, Direction};

fn compile(def: &KernelDef, constexprs: &[(&str, i64)], args: &[ArgValue], policy: SpecPolicy, warps: u32) -> String {
    compile_for(Arch::Sm86, def, constexprs, args, policy, warps)
}

fn compile_for(
    arch: Arch,
    def: &KernelDef,
    constexprs: &[(&str, i64)],
    args: &[ArgValue],
    policy: SpecPolicy,
    warps: u32,
) -> String {
    let verified = CompileSession::new()
        .front_end_for_args(def, constexprs, args, policy, &TraceOptions::default())
        .unwrap_or_else(|e| panic!("front end failed for {}: {e}", def.name));
    ptx::compile(&verified, &options(arch, warps)).unwrap_or_else(|e| panic!("{}: {e}", def.name)).text
}

/// The compute-bound ports (matmul, attention), every case compiled for the opt-in
/// `sm_90a` target: `.target sm_90a` at `.version 8.0`, assembled by ptxas for sm_90a
/// without spills (arch-specific PTX assembles for its own architecture only).
#[test]
#[cfg_attr(not(has_ptxas), ignore = "needs ptxas on PATH")]
fn the_compute_bound_ports_assemble_for_sm_90a_without_spills() {
    let ptxas = ptxas("the_compute_bound_ports_assemble_for_sm_90a_without_spills");
    let mut texts: BTreeMap<String, String> = BTreeMap::new();
    for port in rtriton_host::ports::all().into_iter().filter(|p| matches!(p.name, "matmul" | "attention")) {
        for suite in (port.suites)() {
            for case in &suite.cases {
                let args = rtriton_testing::suite::arg_values(case).expect("the case places");
                for &policy in &suite.policies {
                    let text = compile_for(Arch::Sm90a, &suite.def, &case.constexprs, &args, policy, case.num_warps);
                    texts.entry(text).or_insert_with(|| format!("{} case {} {policy:?}", suite.def.name, case.name));
                }
            }
        }
    }
    assert!(texts.len() > 20, "only {} distinct PTX texts", texts.len());
    for (text, what) in &texts {
        assert!(text.contains(".target sm_90a") && text.contains(".version 8.0"), "{what}:\n{text}");
        let info = assemble(&ptxas, text, "sm_90a", "port").unwrap_or_else(|e| panic!("{what}, -arch=sm_90a: {e}"));
        assert_eq!(spill_stores(&info), Some(0), "{what} spills on sm_90a:\n{info}");
        // ptxas serializes `wgmma`s whose accumulators other instructions touch while in
        // flight (and says so): the group left in flight across a loop must stay so.
        assert!(!info.contains("serialized"), "{what}: ptxas serializes its wgmma:\n{info}");
    }
}

#[test]
#[cfg_attr(not(has_ptxas), ignore = "needs ptxas on PATH")]
fn every_ports_case_assembles_for_sm_86_and_sm_90_without_spills() {
    let ptxas = ptxas("every_ports_case_assembles_for_sm_86_and_sm_90_without_spills");
    // Many cases share a specialization and blocks, hence a PTX text: assemble each once.
    let mut texts: BTreeMap<String, String> = BTreeMap::new();
    for port in rtriton_host::ports::all() {
        for suite in (port.suites)() {
            for case in &suite.cases {
                let args = rtriton_testing::suite::arg_values(case).expect("the case places");
                // The specializations the suite runs (a suite of vector rows runs Triton's
                // only: unspecialized, its plan would not launch them this way).
                for &policy in &suite.policies {
                    let text = compile(&suite.def, &case.constexprs, &args, policy, case.num_warps);
                    texts.entry(text).or_insert_with(|| format!("{} case {} {policy:?}", suite.def.name, case.name));
                }
            }
        }
    }
    assert!(texts.len() > 40, "only {} distinct PTX texts", texts.len());
    for (text, what) in &texts {
        for arch in ["sm_86", "sm_90"] {
            let info = assemble(&ptxas, text, arch, "port").unwrap_or_else(|e| panic!("{what}, -arch={arch}: {e}"));
            assert_eq!(spill_stores(&info), Some(0), "{what} spills on {arch}:\n{info}");
        }
    }
}

/// The arguments of a reduction over a contiguous `rows x cols` input at 256-byte aligned
/// addresses (what a torch tensor gets).
fn reduction_args(rows: usize, cols: usize) -> Vec<ArgValue> {
    vec![
        ArgValue::Ptr(0x7f00_0000_0000),
        ArgValue::Ptr(0x7f10_0000_0000),
        ArgValue::Int(rows as i64),
        ArgValue::Int(cols as i64),
        ArgValue::Int(cols as i64),
        ArgValue::Int(1),
        ArgValue::Int(1),
    ]
}

/// Every reduction kernel on a contiguous 4096 x 4096 input with the launcher's blocks:
/// each load of a tile is a 16-byte `ld.global.v4`, in both directions.
#[test]
#[cfg_attr(not(has_ptxas), ignore = "needs ptxas on PATH")]
fn reductions_load_contiguous_rows_sixteen_bytes_at_a_time() {
    let ptxas = ptxas("reductions_load_contiguous_rows_sixteen_bytes_at_a_time");
    let kernels: [(fn() -> KernelDef, Direction); 6] = [
        (reduce_kernels::row_sum_f32, Direction::Rows),
        (reduce_kernels::row_argmax_f32, Direction::Rows),
        (reduce_kernels::row_min_i32, Direction::Rows),
        (reduce_kernels::col_sum_f32, Direction::Cols),
        (reduce_kernels::col_argmin_f32, Direction::Cols),
        (reduce_kernels::col_max_i32, Direction::Cols),
    ];
    for (def, direction) in kernels {
        let def = def();
        let (m, n) = reduce_kernels::blocks(direction, 4096, 4096, 4);
        let text = compile(
            &def,
            &[("BLOCK_M", m as i64), ("BLOCK_N", n as i64)],
            &reduction_args(4096, 4096),
            SpecPolicy::Triton,
            4,
        );
        let loads: Vec<&str> = text.lines().filter(|l| l.contains("ld.global")).collect();
        assert!(!loads.is_empty(), "{}: no global load", def.name);
        assert!(
            loads.iter().all(|l| l.contains("ld.global.v4.")),
            "{}: loads not all 16 bytes wide:\n{}",
            def.name,
            loads.join("\n")
        );
        let info = assemble(&ptxas, &text, "sm_90", def.name).unwrap_or_else(|e| panic!("{}: {e}", def.name));
        assert_eq!(spill_stores(&info), Some(0), "{} spills:\n{info}", def.name);
    }
}

/// The bytes one `ld.global` line of PTX moves per thread: its vector length times its
/// element type's size (`ld.global.v4.b16` 8, `ld.global.v4.f32` 16, `ld.global.f32` 4).
fn load_bytes(line: &str) -> usize {
    let op = line.split_whitespace().find(|w| w.starts_with("ld.global")).expect("an ld.global line");
    let parts: Vec<&str> = op.split('.').collect();
    let lanes = parts.iter().find_map(|p| p.strip_prefix('v').and_then(|n| n.parse::<usize>().ok())).unwrap_or(1);
    let bits: usize = parts.last().and_then(|t| t[1..].parse().ok()).expect("a typed load");
    lanes * bits / 8
}

/// The split column reductions as the plan launches them on the peer script's shapes
/// (an H200's SM count): the partials kernel loads the input a whole vector at a time,
/// 16 bytes for 4-byte elements and 8 for 16-bit ones (the four elements a thread of their
/// 4 x 128 tiles holds, `reduce_plan::split_tiles`), the combine kernel the partials 16
/// bytes at a time, and both assemble without spills.
#[test]
#[cfg_attr(not(has_ptxas), ignore = "needs ptxas on PATH")]
fn split_column_reductions_load_whole_vectors() {
    use rtriton_kernels::ports::reduce_plan::{ColPlan, NOMINAL_SM_COUNT, col_plan};
    let ptxas = ptxas("split_column_reductions_load_whole_vectors");
    let mut checked = 0;
    for (partials, combine) in reduce_kernels::all_split() {
        // `f16` and `bf16` (both names end so) are 2 bytes, `f32` and `i32` 4.
        let elem_bytes = if partials.name.ends_with("f16") { 2 } else { 4 };
        let index = partials.name.contains("arg");
        for (rows, cols) in rtriton_host::ports::bench::SHAPES_2D {
            let ColPlan::Split(plan) = col_plan(elem_bytes, rows, cols, NOMINAL_SM_COUNT) else {
                panic!("{rows}x{cols}: the plan does not split")
            };
            let ptr = |i: u64| ArgValue::Ptr(0x7f00_0000_0000 + (i << 40));
            let mut partials_args = vec![ptr(0), ptr(1)];
            let mut combine_args = vec![ptr(1)];
            if index {
                partials_args.push(ptr(2));
                combine_args.push(ptr(2));
            }
            let ints = |v: &[usize]| v.iter().map(|&v| ArgValue::Int(v as i64)).collect::<Vec<_>>();
            partials_args.extend(ints(&[rows, cols, cols, 1, plan.rows_per_split]));
            combine_args.push(ptr(3));
            combine_args.extend(ints(&[plan.split, cols, 1]));
            for (def, blocks, unroll, args, width) in [
                (&partials, plan.blocks, Some(plan.unroll_of(index)), partials_args, 4 * elem_bytes.max(2)),
                (&combine, plan.combine_blocks, None, combine_args, 16),
            ] {
                let mut consts = vec![("BLOCK_M", blocks.0 as i64), ("BLOCK_N", blocks.1 as i64)];
                consts.extend(unroll.map(|u| ("UNROLL", u as i64)));
                let text = compile(def, &consts, &args, SpecPolicy::Triton, 4);
                let loads: Vec<&str> = text.lines().filter(|l| l.contains("ld.global")).collect();
                assert!(!loads.is_empty(), "{}: no global load", def.name);
                assert!(
                    loads.iter().all(|l| load_bytes(l) == width),
                    "{} {rows}x{cols}: loads not all {width} bytes wide:\n{}",
                    def.name,
                    loads.join("\n")
                );
                let info = assemble(&ptxas, &text, "sm_90", def.name).unwrap_or_else(|e| panic!("{}: {e}", def.name));
                assert_eq!(spill_stores(&info), Some(0), "{} {rows}x{cols} spills:\n{info}", def.name);
                checked += 1;
            }
        }
    }
    assert_eq!(checked, 20 * 5 * 2);
}

/// The one-launch split column reductions as the bench launches them on the peer script's
/// shapes (an H200's SM count), for `-arch=sm_90`: no spills, and few enough registers per
/// thread that the programs per SM the plan counts on (`reduce_plan::split_tiles`: 8 of 4
/// warps for 4-byte elements, 12 for 16-bit ones) are resident at once, so the launch runs
/// in one wave: 64 and 40 registers (a warp's registers are allocated 256 at a time).
/// 4-byte arg reductions other than `f32` are not bench points and hold more (68 to 96
/// registers: they run in more than one wave, correctly).
#[test]
#[cfg_attr(not(has_ptxas), ignore = "needs ptxas on PATH")]
fn one_launch_column_reductions_fit_one_wave() {
    use rtriton_kernels::ports::reduce_plan::{ColPlan, NOMINAL_SM_COUNT, NUM_WARPS, col_plan, split_tiles};
    let ptxas = ptxas("one_launch_column_reductions_fit_one_wave");
    let mut problems = Vec::new();
    let mut checked = 0;
    for def in reduce_kernels::all_fused() {
        let elem_bytes = if def.name.ends_with("f16") { 2 } else { 4 };
        let index = def.name.contains("arg");
        if index && elem_bytes == 4 && !def.name.ends_with("f32") {
            continue;
        }
        for (rows, cols) in rtriton_host::ports::bench::SHAPES_2D {
            let ColPlan::Split(plan) = col_plan(elem_bytes, rows, cols, NOMINAL_SM_COUNT) else {
                panic!("{rows}x{cols}: the plan does not split")
            };
            let programs = cols.div_ceil(plan.blocks.1) * plan.split;
            let (_, wanted) = split_tiles(elem_bytes, rows, cols, NOMINAL_SM_COUNT);
            assert!(programs <= wanted, "{} {rows}x{cols}: {programs} programs, {wanted} wanted", def.name);
            // 65536 registers per SM, allocated 256 per warp.
            let per_sm = wanted / NOMINAL_SM_COUNT;
            let most = (65536 / (per_sm * NUM_WARPS) / 256) * 256 / 32;
            let ptr = |i: u64| ArgValue::Ptr(0x7f00_0000_0000 + (i << 40));
            let mut args = vec![ptr(0), ptr(1)];
            if index {
                args.push(ptr(2));
            }
            args.extend([ptr(3), ptr(4)]);
            let ints = |v: &[usize]| v.iter().map(|&v| ArgValue::Int(v as i64)).collect::<Vec<_>>();
            args.extend(ints(&[rows, cols, cols, 1, 1, plan.rows_per_split]));
            let consts = [
                ("BLOCK_M", plan.blocks.0 as i64),
                ("BLOCK_N", plan.blocks.1 as i64),
                ("COMBINE_BLOCK_M", plan.fused_combine_block_m() as i64),
                ("UNROLL", plan.unroll_of(index) as i64),
            ];
            let text = compile(&def, &consts, &args, SpecPolicy::Triton, 4);
            let info = assemble(&ptxas, &text, "sm_90", def.name).unwrap_or_else(|e| panic!("{}: {e}", def.name));
            let used = ptx_common::registers_used(&info).unwrap_or_else(|| panic!("{}: no register count", def.name));
            if used as usize > most || spill_stores(&info) != Some(0) {
                problems
                    .push(format!("{} {rows}x{cols}: {used} registers ({most} at most) or spills:\n{info}", def.name));
            }
            checked += 1;
        }
    }
    // 12 value kernels, the 2 arg kernels of f32 and the 4 of f16 and bf16, on the 5 shapes.
    assert_eq!(checked, 18 * 5);
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

/// The persistent layer-norm backward at every block its plan takes, in every dtype, on
/// contiguous rows (`BLOCK_SIZE_N` columns, 16-byte aligned: what the bench launches):
/// ptxas reports at most the registers `layer_norm_plan::PERSISTENT_REGISTERS` assumes
/// (its grid, the programs the GPU holds at once, follows from them) and no spill, for
/// sm_86 and sm_90.
#[test]
#[cfg_attr(not(has_ptxas), ignore = "needs ptxas on PATH")]
fn the_persistent_layer_norm_fits_the_registers_its_plan_assumes() {
    use rtriton_host::ports::layer_norm::persistent::{dx_case, kernels};
    use rtriton_host::ports::layer_norm::{Layout, Values};
    use rtriton_kernels::ports::layer_norm_plan::{PERSISTENT_REGISTERS, assumed_registers, persistent_config};
    use rtriton_testing::Element;
    use rtriton_testing::half::{bf16, f16};

    fn check<T: Element>(ptxas: &std::path::PathBuf, problems: &mut Vec<String>) -> usize {
        let def = kernels::<T>().0;
        let bytes = T::SCALAR.size_bytes() as usize;
        let mut checked = 0;
        for (block, _, _) in PERSISTENT_REGISTERS {
            let (block_n, warps) = persistent_config(block).expect("every block of the table is planned");
            assert_eq!(block_n, block);
            let assumed = assumed_registers(block, bytes).expect("4- and 2-byte elements");
            let case =
                dx_case::<T>("ptx", (16, block), (4, block), (block, warps), Layout::Contiguous, Values::Ordinary);
            let args = rtriton_testing::suite::arg_values(&case).expect("the case places");
            let text = compile(&def, &case.constexprs, &args, SpecPolicy::Triton, warps);
            for arch in ["sm_86", "sm_90"] {
                let what = format!("{} BLOCK_SIZE_N={block} on {warps} warps, -arch={arch}", def.name);
                let info = assemble(ptxas, &text, arch, def.name).unwrap_or_else(|e| panic!("{what}: {e}"));
                let used =
                    ptx_common::registers_used(&info).unwrap_or_else(|| panic!("{what}: no register count:\n{info}"));
                if used > assumed || spill_stores(&info) != Some(0) {
                    problems.push(format!(
                        "{what}: {used} registers where the plan assumes {assumed}, or spills (re-measure and update \
                         PERSISTENT_REGISTERS in kernels-gpu/src/ports/layer_norm_plan.rs):\n{info}"
                    ));
                }
                checked += 1;
            }
        }
        checked
    }
    let ptxas = ptxas("the_persistent_layer_norm_fits_the_registers_its_plan_assumes");
    let mut problems = Vec::new();
    let checked = check::<f32>(&ptxas, &mut problems)
        + check::<f16>(&ptxas, &mut problems)
        + check::<bf16>(&ptxas, &mut problems);
    assert_eq!(checked, 3 * PERSISTENT_REGISTERS.len() * 2);
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

/// The lock-free layer-norm backwards' sum of their partial rows at the blocks the plan
/// gives for the peer script's shapes on an H200 (132 SMs), persistent and chunked forms
/// alike: the `f32` partial rows load 16 bytes at a time and nothing spills.
#[test]
#[cfg_attr(not(has_ptxas), ignore = "needs ptxas on PATH")]
fn the_layer_norm_partial_row_sum_loads_sixteen_bytes_at_a_time() {
    use rtriton_host::ports::layer_norm::persistent::kernels;
    use rtriton_kernels::ports::layer_norm_plan::plan;
    use rtriton_testing::Element;
    use rtriton_testing::half::{bf16, f16};

    /// Each peer-script shape in `T`; the number checked.
    fn check<T: Element>(ptxas: &std::path::PathBuf) -> usize {
        let def = kernels::<T>().1;
        let mut checked = 0;
        for (rows, cols) in rtriton_host::ports::bench::SHAPES_2D {
            let bytes = T::SCALAR.size_bytes() as usize;
            let p = plan(cols, rows, bytes, 132).expect("4- and 2-byte elements");
            let s = p.sum;
            let case = rtriton_host::ports::layer_norm::backward_dwdb_case_of::<f32, T>(
                "ptx",
                (p.programs, cols),
                (cols, 1),
                (s.block_size_m, s.block_size_n, s.num_warps),
            );
            let args = rtriton_testing::suite::arg_values(&case).expect("the case places");
            let text = compile(&def, &case.constexprs, &args, SpecPolicy::Triton, s.num_warps);
            let loads: Vec<&str> = text.lines().filter(|l| l.contains("ld.global")).collect();
            assert!(
                !loads.is_empty() && loads.iter().all(|l| l.contains("ld.global.v4.")),
                "{} {rows}x{cols} {s:?}: loads not all 16 bytes wide:\n{}",
                def.name,
                loads.join("\n")
            );
            let info = assemble(ptxas, &text, "sm_90", def.name).unwrap_or_else(|e| panic!("{}: {e}", def.name));
            assert_eq!(spill_stores(&info), Some(0), "{} {rows}x{cols} spills:\n{info}", def.name);
            checked += 1;
        }
        checked
    }
    let ptxas = ptxas("the_layer_norm_partial_row_sum_loads_sixteen_bytes_at_a_time");
    let checked = check::<f32>(&ptxas) + check::<f16>(&ptxas) + check::<bf16>(&ptxas);
    assert_eq!(checked, 3 * rtriton_host::ports::bench::SHAPES_2D.len());
}

/// The chunked layer-norm backward (rows past 4096 columns) at the plan's blocks, in every
/// dtype, for `-arch=sm_86` and `-arch=sm_90`: the dx kernel within the registers
/// `CHUNKED_REGISTERS` assumes (the plan's grid rests on them), the row sums within 64;
/// neither spills, and both load contiguous rows 16 bytes at a time.
#[test]
#[cfg_attr(not(has_ptxas), ignore = "needs ptxas on PATH")]
fn the_chunked_layer_norm_fits_the_registers_its_plan_assumes() {
    use rtriton_host::ports::layer_norm::chunked::{dx_case, kernels, row_sums_case};
    use rtriton_host::ports::layer_norm::{Layout, Values};
    use rtriton_kernels::ports::layer_norm_plan::{
        CHUNK_BLOCK, CHUNK_WARPS, CHUNKED_REGISTERS, ROW_SUMS_BLOCK, ROW_SUMS_WARPS,
    };
    use rtriton_testing::Element;
    use rtriton_testing::half::{bf16, f16};

    fn check<T: Element>(ptxas: &std::path::PathBuf, problems: &mut Vec<String>) -> usize {
        let (sums_def, dx_def) = kernels::<T>();
        let assumed = if T::SCALAR.size_bytes() == 4 { CHUNKED_REGISTERS.0 } else { CHUNKED_REGISTERS.1 };
        let shape = (4, 2 * CHUNK_BLOCK + 64);
        let dx =
            dx_case::<T>("ptx", shape, (2, shape.1), (CHUNK_BLOCK, CHUNK_WARPS), Layout::Contiguous, Values::Ordinary);
        let sums =
            row_sums_case::<T>("ptx", shape, (ROW_SUMS_BLOCK, ROW_SUMS_WARPS), Layout::Contiguous, Values::Ordinary);
        let mut checked = 0;
        // The scalar loads: a row's mean and rstd (and c1, c2 for dx); every other load is
        // of a row or of `w`, and must be a 16-byte vector.
        for (def, case, limit, scalars) in [(&dx_def, &dx, assumed, 4), (&sums_def, &sums, 64, 2)] {
            let args = rtriton_testing::suite::arg_values(case).expect("the case places");
            let text = compile(def, &case.constexprs, &args, SpecPolicy::Triton, case.num_warps);
            let loads: Vec<&str> = text.lines().filter(|l| l.contains("ld.global")).collect();
            let narrow = loads.iter().filter(|l| !l.contains(".v4.")).count();
            if narrow != scalars || loads.len() == narrow {
                problems.push(format!(
                    "{}: {narrow} loads narrower than 16 bytes where the {scalars} per-row scalars are:\n{}",
                    def.name,
                    loads.join("\n")
                ));
            }
            for arch in ["sm_86", "sm_90"] {
                let what = format!(
                    "{} BLOCK_SIZE_N={} on {} warps, -arch={arch}",
                    def.name, case.constexprs[0].1, case.num_warps
                );
                let info = assemble(ptxas, &text, arch, def.name).unwrap_or_else(|e| panic!("{what}: {e}"));
                let used =
                    ptx_common::registers_used(&info).unwrap_or_else(|| panic!("{what}: no register count:\n{info}"));
                if used > limit || spill_stores(&info) != Some(0) {
                    problems.push(format!(
                        "{what}: {used} registers where {limit} are assumed, or spills (re-measure and update \
                         CHUNKED_REGISTERS in kernels-gpu/src/ports/layer_norm_plan.rs):\n{info}"
                    ));
                }
                checked += 1;
            }
        }
        checked
    }
    let ptxas = ptxas("the_chunked_layer_norm_fits_the_registers_its_plan_assumes");
    let mut problems = Vec::new();
    let checked = check::<f32>(&ptxas, &mut problems)
        + check::<f16>(&ptxas, &mut problems)
        + check::<bf16>(&ptxas, &mut problems);
    assert_eq!(checked, 3 * 2 * 2);
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

/// The whole-row layer norm forward as `layer_norm_fwd_plan` launches it on the peer
/// script's shapes (and the other forms the bench times beside the planned one), in every
/// dtype, for `-arch=sm_86` and `-arch=sm_90`: no spills, the
/// row, `w` and `b` loaded 16 bytes at a time, and a planned persistent program within
/// the registers its grid assumes (`layer_norm_fwd_plan::persistent_registers`); and the
/// widest block planned for rows loaded element by element, without spills.
#[test]
#[cfg_attr(not(has_ptxas), ignore = "needs ptxas on PATH")]
fn the_whole_row_layer_norm_forward_fits_without_spills() {
    use rtriton_host::ports::bench::SHAPES_2D;
    use rtriton_host::ports::layer_norm::rows::{form_launch, other_form, planned_launch};
    use rtriton_kernels::ports::layer_norm_fwd_plan::{self, persistent_registers};
    use rtriton_kernels::ports::softmax::H200_SHARED_BYTES;
    use rtriton_testing::Element;
    use rtriton_testing::half::{bf16, f16};

    fn check<T: Element>(ptxas: &std::path::PathBuf, problems: &mut Vec<String>) -> usize {
        let mut checked = 0;
        let launches = SHAPES_2D.iter().flat_map(|&(rows, cols)| {
            let rows = rows.min(4);
            let bytes = T::SCALAR.size_bytes() as usize;
            let planned = layer_norm_fwd_plan::plan(cols, bytes, true, H200_SHARED_BYTES);
            let limit = planned.persistent.then(|| persistent_registers(planned.num_warps));
            let other = other_form(planned, bytes).map(|(_, plan)| (form_launch::<T>(plan, rows, cols, 132), None));
            [Some((planned_launch::<T>(rows, cols, 132), limit)), other]
        });
        for ((suite, case), limit) in launches.flatten() {
            let cols = case.tensor("x").view.shape[1];
            let args = rtriton_testing::suite::arg_values(&case).expect("the case places");
            let text = compile(&suite.def, &case.constexprs, &args, SpecPolicy::Triton, case.num_warps);
            let loads: Vec<&str> = text.lines().filter(|l| l.contains("ld.global")).collect();
            if loads.iter().any(|l| !l.contains(".v4.")) {
                problems.push(format!(
                    "{} at {cols} columns: a load narrower than 16 bytes:\n{}",
                    suite.def.name,
                    loads.join("\n")
                ));
            }
            // A planned persistent grid holds as many programs per SM as these registers
            // allow; the other forms the bench times need only assemble without spills.
            let limit = limit.unwrap_or(255);
            for arch in ["sm_86", "sm_90"] {
                let what = format!(
                    "{} BLOCK_SIZE={} on {} warps, -arch={arch}",
                    suite.def.name, case.constexprs[0].1, case.num_warps
                );
                let info = assemble(ptxas, &text, arch, suite.def.name).unwrap_or_else(|e| panic!("{what}: {e}"));
                let used =
                    ptx_common::registers_used(&info).unwrap_or_else(|| panic!("{what}: no register count:\n{info}"));
                if used > limit || spill_stores(&info) != Some(0) {
                    problems.push(format!("{what}: {used} registers (at most {limit}) or spills:\n{info}"));
                }
                checked += 1;
            }
        }
        checked
    }
    /// The widest block the plan gives rows loaded element by element (a strided view,
    /// under Triton's specialization), which must not spill either.
    fn check_scalar<T: Element>(ptxas: &std::path::PathBuf, problems: &mut Vec<String>) -> usize {
        use rtriton_host::ports::layer_norm::rows::case;
        use rtriton_host::ports::layer_norm::{Layout, Values};
        use rtriton_kernels::ports::layer_norm_fwd_plan::{Form, MAX_SCALAR_BLOCK};
        let cols = MAX_SCALAR_BLOCK;
        let plan = layer_norm_fwd_plan::plan(cols, T::SCALAR.size_bytes() as usize, false, H200_SHARED_BYTES);
        assert_eq!((plan.form, plan.block_size), (Form::Rows, cols));
        let def = rtriton_host::ports::layer_norm::rows::kernel::<T>(Form::Rows);
        let case = case::<T>("ptx", (2, cols), plan, 2, Layout::Strided, Values::Ordinary);
        let args = rtriton_testing::suite::arg_values(&case).expect("the case places");
        let text = compile(&def, &case.constexprs, &args, SpecPolicy::Triton, case.num_warps);
        assert!(
            text.lines().any(|l| l.contains("ld.global")) && !text.contains("ld.global.v"),
            "{}: element-wise loads",
            def.name
        );
        for arch in ["sm_86", "sm_90"] {
            let info = assemble(ptxas, &text, arch, def.name).unwrap_or_else(|e| panic!("{}: {e}", def.name));
            if spill_stores(&info) != Some(0) {
                problems.push(format!(
                    "{} element-wise at {cols} on {} warps, -arch={arch}: spills:\n{info}",
                    def.name, case.num_warps
                ));
            }
        }
        2
    }
    let ptxas = ptxas("the_whole_row_layer_norm_forward_fits_without_spills");
    let mut problems = Vec::new();
    let checked = check::<f32>(&ptxas, &mut problems)
        + check::<f16>(&ptxas, &mut problems)
        + check::<bf16>(&ptxas, &mut problems);
    let scalar = check_scalar::<f32>(&ptxas, &mut problems)
        + check_scalar::<f16>(&ptxas, &mut problems)
        + check_scalar::<bf16>(&ptxas, &mut problems);
    // Every shape planned, and the other form the bench times on six (`other_form`).
    assert_eq!((checked, scalar), (2 * (3 * SHAPES_2D.len() + 6), 6));
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

/// The arguments of an epilogue kernel on a contiguous `rows x cols` input: `x`, `bias`
/// and `y` pointers, the sizes and strides (`bias` contiguous), `scale = 1.25`.
fn epilogue_args(rows: usize, cols: usize) -> Vec<ArgValue> {
    let mut args =
        vec![ArgValue::Ptr(0x7f00_0000_0000), ArgValue::Ptr(0x7f10_0000_0000), ArgValue::Ptr(0x7f20_0000_0000)];
    args.extend([rows, cols, cols, 1, 1, cols, 1].map(|v| ArgValue::Int(v as i64)));
    args.push(ArgValue::F32(1.25));
    args
}

/// The epilogue's SASS instructions per element (sm_86, `NOP` padding left out) on
/// contiguous 4096 x 1024 and 4096 x 16384 inputs with the plan's launch
/// (`epilogue::plan`: in 16 bits a tile of 2048 elements, 16 a thread, on the first and of
/// 1024, 8 a thread, on the second; in f32 8 a thread at 8 warps on both), at most:
/// measured at 16 a thread 18.25 / 35.3 / 16.2 for GELU-tanh / GELU-erf / SiLU in f16 (its
/// plain form, `epilogue.rs`) and 19.25 / 35.3 / 17.25 in bf16 (its scaled form), at 8 a
/// thread 21.25 / 38.5 / 19.1 in f16 and 22.25 / 38.5 / 20.25 in bf16 (the per-thread
/// addressing spread over half as many elements), and 27.5 / 38.75 / 25.4 in f32, each
/// with under one to spare. `1 + 2^-t` is a plain `add.f32`
/// (`writer/rounding.rs`), from which ptxas knows the divisor is at least 1: 3 an element
/// fewer than with `add.rn.f32` for GELU-tanh and SiLU; in 16 bits the power is
/// `exp2_ftz`, 3 fewer again. An element-wise kernel in f16 has
/// about 33 instruction issues per element to spend at the H200's 4.8 TB/s (132 SMs x 4
/// schedulers x 1.98 GHz x 32 lanes, 4 bytes an element), f32 about twice that, so past
/// that it is bound by issue, not by memory: with `div.rn.f32` in its reciprocal
/// GELU-tanh and SiLU took 41.5 and 39.5 (f16) and ran at 0.84x to 0.93x of Triton's
/// kernel in f16 (the H200 record of 2026-12-04 at `2ab94c2`). Triton's own kernel, 8 elements a
/// thread, takes 25.5 and 18.4 in f16, 26 and 18.9 in bf16 (ptxas for sm_90a on its PTX,
/// rtriton's for sm_90 at 16 a thread: 18.5, 16.4, 19.6, 17.5).
#[test]
#[cfg_attr(not(has_ptxas), ignore = "needs ptxas on PATH")]
fn the_epilogue_stays_within_its_instruction_budget() {
    let ptxas = ptxas("the_epilogue_stays_within_its_instruction_budget");
    // (activation, dtype, elements a thread) -> SASS instructions an element, at most
    let budget = |name: &str, per_thread: usize| match (name.rsplit_once('_'), per_thread) {
        (Some(("gelu_tanh", "f16")), 16) => 19.0,
        (Some(("gelu_tanh", "bf16")), 16) => 20.0,
        (Some(("silu", "f16")), 16) => 17.0,
        (Some(("silu", "bf16")), 16) => 18.0,
        (Some(("gelu_erf", "f16" | "bf16")), 16) => 36.0,
        (Some(("gelu_tanh", "f16")), 8) => 22.0,
        (Some(("gelu_tanh", "bf16")), 8) => 23.0,
        (Some(("silu", "f16")), 8) => 20.0,
        (Some(("silu", "bf16")), 8) => 21.0,
        (Some(("gelu_erf", "f16" | "bf16")), 8) => 39.0,
        (Some(("gelu_tanh", "f32")), 8) => 28.5,
        (Some(("silu", "f32")), 8) => 26.5,
        (Some(("gelu_erf", "f32")), 8) => 39.5,
        _ => panic!("no budget for `{name}` at {per_thread} elements a thread"),
    };
    let defs = epilogue_kernels::all();
    assert_eq!(defs.len(), 9, "three activations in three dtypes");
    let mut over = Vec::new();
    for (rows, cols) in [(4096usize, 1024usize), (4096, 16384)] {
        let args = epilogue_args(rows, cols);
        for def in &defs {
            let elem_bytes = if def.name.ends_with("_f32") { 4 } else { 2 };
            let plan = epilogue_kernels::plan(rows, cols, elem_bytes, true, false);
            let ((block_m, block_n), warps) = (plan.blocks, plan.num_warps as u32);
            let per_thread = block_m * block_n / (warps as usize * 32);
            let constexprs = [("BLOCK_M", block_m as i64), ("BLOCK_N", block_n as i64)];
            let text = compile(def, &constexprs, &args, SpecPolicy::Triton, warps);
            let count =
                sass_instructions(&ptxas, &text, "sm_86", def.name).unwrap_or_else(|e| panic!("{}: {e}", def.name));
            let per_element = count as f64 / per_thread as f64;
            if per_element > budget(def.name, per_thread) {
                over.push(format!(
                    "{} at {rows} x {cols}: {count} SASS instructions for {per_thread} elements a thread, \
                     {per_element:.2} an element (budget {})",
                    def.name,
                    budget(def.name, per_thread)
                ));
            }
        }
    }
    assert!(over.is_empty(), "{}", over.join("\n"));
}

/// The 16-bit epilogue's planned launches keep the register bound they ask for: where
/// `fits_full_occupancy` (GELU-tanh, SiLU) the plan sets `.minnctapersm 16` (32 registers
/// a thread for 16 CTAs of 4 warps), and ptxas must meet it without spilling, for sm_86
/// and sm_90, on both tiles the plan takes: 2048 elements (16 a thread, 4096 x 1024) and
/// 1024 (8 a thread, 4096 x 16384, an input of at least `HALF_TILE_MIN_ELEMENTS`).
/// GELU-erf runs unbounded (it would spill 4 bytes) and must not spill either.
#[test]
#[cfg_attr(not(has_ptxas), ignore = "needs ptxas on PATH")]
fn the_16_bit_epilogue_plans_fit_their_register_bound() {
    use rtriton_host::ports::epilogue::Activation;
    let ptxas = ptxas("the_16_bit_epilogue_plans_fit_their_register_bound");
    let mut problems = Vec::new();
    let mut checked = 0;
    for (rows, cols, per_thread) in [(4096usize, 1024usize, 16), (4096, 16384, 8)] {
        let args = epilogue_args(rows, cols);
        for def in epilogue_kernels::all().iter().filter(|d| !d.name.ends_with("_f32")) {
            let act = Activation::ALL.into_iter().find(|a| def.name.starts_with(a.name())).expect("an activation");
            let plan = epilogue_kernels::plan(rows, cols, 2, true, act.fits_full_occupancy());
            let ((block_m, block_n), warps) = (plan.blocks, plan.num_warps as u32);
            assert_eq!(block_m * block_n / (warps as usize * 32), per_thread, "{} at {rows} x {cols}", def.name);
            let constexprs = [("BLOCK_M", block_m as i64), ("BLOCK_N", block_n as i64)];
            let opts = ptx::PtxOptions { min_ctas_per_sm: plan.min_ctas_per_sm, ..options(Arch::Sm86, warps) };
            let text = compile_def(def, &constexprs, &args, SpecPolicy::Triton, &opts)
                .unwrap_or_else(|e| panic!("{}: {e}", def.name))
                .text;
            assert_eq!(text.contains(".minnctapersm 16"), act.fits_full_occupancy(), "{}", def.name);
            for arch in ["sm_86", "sm_90"] {
                let info = assemble(&ptxas, &text, arch, def.name).unwrap_or_else(|e| panic!("{}: {e}", def.name));
                if spill_stores(&info) != Some(0) {
                    problems.push(format!("{} at {rows} x {cols}, -arch={arch}: spills:\n{info}", def.name));
                }
                checked += 1;
            }
        }
    }
    assert_eq!(checked, 2 * 6 * 2);
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}
