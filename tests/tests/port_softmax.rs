//! The softmax port's PTX (`rtriton_kernels::ports::softmax`): every kernel (single-block
//! and online, f32, f16 and bf16) at the widths `plan` launches, assembled by ptxas for
//! sm_86 and sm_90 without spills, and the vector widths of its accesses on contiguous
//! rows. The suites (interpreter, simulator, GPU) are `rtriton-host`'s `ports::softmax`.

mod ptx_common;

use ptx_common::{assemble, compile_def, options, ptxas, registers_used, spill_stores};
use rstest::rstest;
use rtriton::backend::ptx::{AccessKind, Arch, Ptx, PtxOptions};
use rtriton::spec::{ArgValue, SpecPolicy};
use rtriton_kernels::ports::softmax::{self, Dtype, Form, H200_SHARED_BYTES, Plan};

/// The arguments of an `n_rows` x `n_cols` softmax with contiguous rows (`row_stride`
/// elements apart) at 16-byte aligned buffers.
fn args(n_cols: i64, row_stride: i64) -> Vec<ArgValue> {
    vec![
        ArgValue::Ptr(0x7f00_0000_0000),
        ArgValue::Ptr(0x7f00_1000_0000),
        ArgValue::Int(row_stride),
        ArgValue::Int(1),
        ArgValue::Int(row_stride),
        ArgValue::Int(1),
        ArgValue::Int(4096),
        ArgValue::Int(n_cols),
    ]
}

fn compile(dtype: Dtype, plan: Plan, args: &[ArgValue], policy: SpecPolicy, arch: Arch) -> Ptx {
    let def = plan.def(dtype);
    let options = PtxOptions { min_ctas_per_sm: plan.min_ctas_per_sm, ..options(arch, plan.num_warps) };
    compile_def(&def, &[("BLOCK_SIZE", plan.block_size as i64)], args, policy, &options)
        .unwrap_or_else(|e| panic!("{} {plan:?}: {e}", def.name))
}

/// Every kernel at every width class `plan` distinguishes (one warp, the tutorial's 4, 8
/// and 16 warps, the single-block limit, the online tile), specialized and not:
/// `.target sm_86` PTX assembles for sm_86 and sm_90 with no spill stores.
#[rstest]
#[cfg_attr(not(has_ptxas), ignore = "needs ptxas on PATH")]
fn every_kernel_assembles_without_spills(
    #[values(Dtype::F32, Dtype::F16, Dtype::Bf16)] dtype: Dtype,
    #[values(7, 781, 2048, 4097, 16384, 16385, 32768, 1 << 20)] n_cols: i64,
    #[values(SpecPolicy::Triton, SpecPolicy::Off)] policy: SpecPolicy,
) {
    // Vectors need specialization and a width (the row stride here) divisible by 16.
    let vectors = policy == SpecPolicy::Triton && n_cols % 16 == 0;
    let plan = softmax::plan(n_cols as usize, dtype, vectors, H200_SHARED_BYTES);
    let ptx = compile(dtype, plan, &args(n_cols, n_cols), policy, Arch::Sm86);
    let ptxas = ptxas("softmax");
    let name = format!("{}_{n_cols}_{policy:?}", plan.def(dtype).name);
    for arch in ["sm_86", "sm_90"] {
        let info = assemble(&ptxas, &ptx.text, arch, &name).unwrap_or_else(|e| panic!("{name} on {arch}:\n{e}"));
        assert_eq!(spill_stores(&info), Some(0), "{name} on {arch} spills:\n{info}");
    }
}

/// Assembles `ptx` (kernel `name`) for sm_86 and sm_90 and asserts ptxas spills nothing and
/// uses at most `max_registers` a thread (`why`: what allows that many; `what`: the
/// check, for the message when ptxas is missing).
fn fits_without_spills(ptx: &str, name: &str, max_registers: u32, why: &str, what: &str) {
    for arch in ["sm_86", "sm_90"] {
        let regs = registers_without_spills(ptx, name, arch, what);
        assert!(regs <= max_registers, "{name} on {arch}: {regs} registers, {why}");
    }
}

/// The registers a thread of `ptx` (kernel `name`) takes on `arch`, asserting ptxas
/// spills nothing there.
fn registers_without_spills(ptx: &str, name: &str, arch: &str, what: &str) -> u32 {
    let info = assemble(&ptxas(what), ptx, arch, name).unwrap_or_else(|e| panic!("{name} on {arch}:\n{e}"));
    assert_eq!(spill_stores(&info), Some(0), "{name} on {arch} spills:\n{info}");
    registers_used(&info).unwrap_or_else(|| panic!("{name} on {arch}: no register count in\n{info}"))
}

/// The widths of the kernel's loads and stores, in program order.
fn widths(ptx: &Ptx) -> Vec<(AccessKind, u32)> {
    ptx.decisions.accesses.iter().map(|a| (a.kind, a.vector_width)).collect()
}

/// Contiguous rows whose width and row stride are multiples of 16 load and store 16 bytes
/// at a time in every form (the online kernel in both passes; the prefetching kernel
/// through shared memory, `cp.async` then `ld.shared`): four f32 (`.v4.f32`), or eight
/// f16 / bf16 as four 32-bit words (`.v4.b32`, unpacked two to a word).
#[rstest]
fn contiguous_rows_load_and_store_vectors(
    #[values(Dtype::F32, Dtype::F16, Dtype::Bf16)] dtype: Dtype,
    #[values(1024, 4096, 16384, 32768)] n_cols: i64,
) {
    use AccessKind::{Load, Store};
    let plan = softmax::plan(n_cols as usize, dtype, true, H200_SHARED_BYTES);
    let ptx = compile(dtype, plan, &args(n_cols, n_cols), SpecPolicy::Triton, Arch::Sm86);
    let w = if dtype == Dtype::F32 { 4 } else { 8 };
    let want = match plan.form {
        Form::SingleBlock => vec![(Load, w), (Store, w)],
        // The prefetching kernel loads the first row, then the next row in its loop; the
        // online kernel does that with tiles in each of its two passes, and its second
        // pass stores the last tile (from registers) before its loop's stores.
        Form::Prefetch | Form::PrefetchRegisters => vec![(Load, w), (Load, w), (Store, w)],
        Form::Online => vec![(Load, w), (Load, w), (Load, w), (Store, w), (Load, w), (Store, w)],
    };
    assert_eq!(widths(&ptx), want, "{:#?}", ptx.decisions.accesses);
    let suffix = if dtype == Dtype::F32 { "v4.f32" } else { "v4.b32" };
    // The prefetching kernel stages its rows: 16 bytes per `cp.async`, read back from
    // shared memory 16 bytes at a time.
    let load = if plan.form == Form::Prefetch { format!("ld.shared.{suffix}") } else { format!("ld.global.{suffix}") };
    assert!(ptx.text.contains(&load), "{}", ptx.text);
    assert_eq!(plan.form == Form::Prefetch, ptx.text.contains("cp.async.cg.shared.global"), "{}", ptx.text);
    assert!(ptx.text.contains(&format!("st.global.{suffix}")), "{}", ptx.text);
}

/// Where vectors cannot be proved, the accesses are scalar (never a misaligned vector):
/// a width not divisible by 16 (the mask may change inside a vector), a column stride
/// other than 1 (a strided or transposed view), or specialization off.
#[rstest]
#[case::width_781(args(781, 781), SpecPolicy::Triton)]
#[case::column_stride_2(vec![ArgValue::Ptr(0x7f00_0000_0000), ArgValue::Ptr(0x7f00_1000_0000), ArgValue::Int(2048), ArgValue::Int(2), ArgValue::Int(1024), ArgValue::Int(1), ArgValue::Int(64), ArgValue::Int(1024)], SpecPolicy::Triton)]
#[case::specialization_off(args(1024, 1024), SpecPolicy::Off)]
fn unprovable_accesses_are_scalar(#[case] args: Vec<ArgValue>, #[case] policy: SpecPolicy) {
    let plan = softmax::plan(1024, Dtype::F32, false, H200_SHARED_BYTES);
    let ptx = compile(Dtype::F32, plan, &args, policy, Arch::Sm86);
    let load = ptx.decisions.accesses.iter().find(|a| a.kind == AccessKind::Load).expect("a load");
    assert_eq!(load.vector_width, 1, "{}", load.reason);
}

/// The online kernel reads each row's last tile once: the first pass carries it out of
/// its loop loaded and the second pass writes it from registers, reloading only the
/// tiles before it. On the simulator, which counts the bytes every load moves: rows of
/// `w` f32 in tiles of `t` read `w + (T - 1) * t` elements each (`T` tiles), where
/// reading every tile twice would be `2 * w`; one tile is read once.
#[rstest]
#[case::one_tile(300, 512)]
#[case::two_tiles(1000, 512)]
#[case::exact_tiles(1024, 256)]
#[case::many_tiles(1000, 64)]
fn the_online_kernel_reads_the_last_tile_once(#[case] width: usize, #[case] tile: usize) {
    use rtriton::interp::Memory;
    use rtriton::session::CompileSession;
    use rtriton::trace::TraceOptions;
    use rtriton_host::ports::softmax::{Fill, Shape, case};
    use rtriton_testing::run::place;
    let rows = 3;
    let plan = Plan { form: Form::Online, block_size: tile, num_warps: 2, persistent: false, min_ctas_per_sm: 0 };
    let case = case::<f32>("reads", &Shape::contiguous(rows, width), Fill::Logits, plan, rows);
    let def = softmax::kernel_def(Form::Online, Dtype::F32);
    let mut mem = Memory::new();
    let placed = place(&mut mem, &case).unwrap();
    let spec = CompileSession::specialize(&def, &placed.args, SpecPolicy::Triton).unwrap();
    let options = rtriton::backend::ptx::PtxOptions { num_warps: case.num_warps, ..Default::default() };
    let program =
        CompileSession::new().lower(&def, &case.constexprs, &spec, &TraceOptions::default(), &options).unwrap();
    let report = rtriton::sim::run(&program, case.grid, &placed.args, &mut mem).unwrap();
    let tiles = width.div_ceil(tile);
    let per_row = width + (tiles - 1) * tile;
    assert_eq!(report.global_load_bytes, (rows * per_row * 4) as u64, "{width} in tiles of {tile}");
    assert_eq!(report.global_store_bytes, (rows * width * 4) as u64);
}

/// The register-prefetching kernel as the bench times it beside the plan's one program a
/// row (vector rows of 8192 and 16384 in f32, 16384 in f16 and bf16: 16 warps, one
/// program per SM): the next row in registers fits the 128 a thread of one 512-thread
/// program may hold, without spills, on sm_86 and sm_90.
#[rstest]
#[cfg_attr(not(has_ptxas), ignore = "needs ptxas on PATH")]
fn the_register_prefetch_fits_one_program_per_sm(
    #[values((Dtype::F32, 8192), (Dtype::F32, 16384), (Dtype::F16, 16384), (Dtype::Bf16, 16384))] point: (Dtype, i64),
) {
    let (dtype, n_cols) = point;
    let planned = softmax::plan(n_cols as usize, dtype, true, H200_SHARED_BYTES);
    // These rows are planned one program per row (below); their register prefetch is
    // the bench's other form.
    let plan = Plan { form: Form::PrefetchRegisters, persistent: true, min_ctas_per_sm: 0, ..planned };
    assert_eq!((planned.form, plan.num_warps), (Form::SingleBlock, 16), "{n_cols} {dtype:?}");
    let ptx = compile(dtype, plan, &args(n_cols, n_cols), SpecPolicy::Triton, Arch::Sm86);
    let name = format!("{}_{n_cols}", plan.def(dtype).name);
    assert!(!ptx.text.contains("cp.async"), "{name}: nothing is staged");
    fits_without_spills(&ptx.text, &name, 128, "one program per SM allows 128", "softmax register prefetch");
}

/// The f32 single-block plan of 16 warps (vector rows of 8192 and 16384): two programs
/// per SM (`.minnctapersm 2` in the PTX), so ptxas keeps a thread within 64 registers;
/// it must do so without spilling, on sm_86 and sm_90.
#[rstest]
#[cfg_attr(not(has_ptxas), ignore = "needs ptxas on PATH")]
fn the_f32_single_block_of_16_warps_fits_two_programs_per_sm(#[values(8192, 16384)] n_cols: i64) {
    let plan = softmax::plan(n_cols as usize, Dtype::F32, true, H200_SHARED_BYTES);
    assert_eq!((plan.form, plan.num_warps, plan.min_ctas_per_sm), (Form::SingleBlock, 16, 2), "{n_cols}");
    let ptx = compile(Dtype::F32, plan, &args(n_cols, n_cols), SpecPolicy::Triton, Arch::Sm86);
    assert!(ptx.text.contains(".minnctapersm 2"), "the PTX asks for two CTAs per SM");
    let name = format!("{}_{n_cols}", plan.def(Dtype::F32).name);
    fits_without_spills(&ptx.text, &name, 64, "two 512-thread programs per SM allow 64", "softmax two programs per SM");
}

/// The 16-bit single-block plan of 16 warps (vector rows of 16384 in f16 and bf16, one
/// program per row as Triton launches them, no `.minnctapersm`): ptxas fits a thread in
/// 64 registers without spills (62 for sm_90, 57 for sm_86 with ptxas 12.9), so two
/// 512-thread programs share an SM, which is what made it faster than the register
/// prefetch on one program per SM (the H200 record of 2026-12-06 at `9ab1c55`,
/// the H100 record of 2026-12-06 at `bfb9661`).
#[rstest]
#[cfg_attr(not(has_ptxas), ignore = "needs ptxas on PATH")]
fn the_16_bit_single_block_of_16384_fits_two_programs_per_sm(#[values(Dtype::F16, Dtype::Bf16)] dtype: Dtype) {
    let n_cols = 16384;
    let plan = softmax::plan(n_cols as usize, dtype, true, H200_SHARED_BYTES);
    assert_eq!((plan.form, plan.num_warps, plan.min_ctas_per_sm, plan.persistent), (Form::SingleBlock, 16, 0, false));
    let ptx = compile(dtype, plan, &args(n_cols, n_cols), SpecPolicy::Triton, Arch::Sm86);
    assert!(!ptx.text.contains(".minnctapersm") && !ptx.text.contains("cp.async"), "no bound, no staging");
    let name = format!("{}_{n_cols}", plan.def(dtype).name);
    fits_without_spills(&ptx.text, &name, 64, "two 512-thread programs per SM allow 64", "softmax 16-bit one row");
}

/// The single-block kernel at 16384 f32 columns on 16 warps without `.minnctapersm`,
/// specialized as Triton would: ptxas fits a thread in 70 registers without spills (sm_90). It
/// took 79 while each of a thread's 8 vectors kept its own 64-bit address across the row
/// loop; one address per access (`lower/address.rs`, `tests/tests/address_offsets.rs`)
/// frees 9. The rest to 64 (what `TWO_PROGRAMS_PER_SM` asks ptxas for) is the loop's 64-bit
/// trip count carried through the body: testing the induction variable instead gives 64
/// but moved other kernels' registers both ways (branch `regs-both`). Triton's takes 57.
#[test]
#[cfg_attr(not(has_ptxas), ignore = "needs ptxas on PATH")]
fn the_f32_single_block_of_16384_fits_70_registers_unbounded() {
    let n_cols = 16384;
    let planned = softmax::plan(n_cols as usize, Dtype::F32, true, H200_SHARED_BYTES);
    let plan = Plan { min_ctas_per_sm: 0, ..planned };
    assert_eq!((plan.form, plan.num_warps), (Form::SingleBlock, 16));
    let ptx = compile(Dtype::F32, plan, &args(n_cols, n_cols), SpecPolicy::Triton, Arch::Sm86);
    assert!(!ptx.text.contains(".minnctapersm"), "the bound holds without asking ptxas for it");
    let name = format!("{}_{n_cols}", plan.def(Dtype::F32).name);
    // ptxas 12.9 counts 70 for sm_90 (74 for sm_86).
    let regs = registers_without_spills(&ptx.text, &name, "sm_90", "softmax at 70 registers");
    assert!(regs <= 70, "{name} on sm_90: {regs} registers, more than the 70 one address per access gave");
}

/// The f32 one-row plan past 16384 columns (vector rows of 32768 on 16 warps, one program
/// per SM, no `.minnctapersm`): 64 elements a thread fit the 128 registers a thread of a
/// 512-thread program may hold, without spills, on sm_86 and sm_90, and nothing is staged.
#[test]
#[cfg_attr(not(has_ptxas), ignore = "needs ptxas on PATH")]
fn the_f32_single_block_of_32768_fits_one_program_per_sm() {
    let n_cols = 32768;
    let plan = softmax::plan(n_cols as usize, Dtype::F32, true, H200_SHARED_BYTES);
    assert_eq!((plan.form, plan.num_warps, plan.min_ctas_per_sm, plan.persistent), (Form::SingleBlock, 16, 0, false));
    let ptx = compile(Dtype::F32, plan, &args(n_cols, n_cols), SpecPolicy::Triton, Arch::Sm86);
    assert!(!ptx.text.contains(".minnctapersm") && !ptx.text.contains("cp.async"), "one program per SM, no staging");
    let name = format!("{}_{n_cols}", plan.def(Dtype::F32).name);
    fits_without_spills(
        &ptx.text,
        &name,
        128,
        "one 512-thread program per SM allows 128",
        "softmax one-row f32 at 32768",
    );
}

/// The prefetching kernel as the plan launches it on vector rows of 16384 and 32768
/// columns: the next row is staged in shared memory (`cp.async`, no second row in
/// registers), ptxas fits a thread in the registers that one 512-thread program per SM
/// allows (65536 / 512 = 128) without spills on sm_86 and sm_90, and the kernel's shared
/// memory is within what the plan counts for it (`prefetch_shared_bytes`), which the H200
/// holds.
#[rstest]
#[cfg_attr(not(has_ptxas), ignore = "needs ptxas on PATH")]
fn the_staged_prefetch_fits_the_registers_and_shared_memory_the_plan_assumes(
    #[values(Dtype::F32, Dtype::F16, Dtype::Bf16)] dtype: Dtype,
    #[values(16384, 32768)] n_cols: i64,
) {
    // 16384 columns run one program per row in the plan; the staged kernel is checked at
    // that width too, as a launch may name it.
    let planned = softmax::plan(n_cols as usize, dtype, true, H200_SHARED_BYTES);
    let plan = Plan { form: Form::Prefetch, persistent: true, min_ctas_per_sm: 0, ..planned };
    assert_eq!((plan.num_warps, plan.persistent), (16, true), "{n_cols} {dtype:?}");
    let ptx = compile(dtype, plan, &args(n_cols, n_cols), SpecPolicy::Triton, Arch::Sm86);
    let name = format!("{}_{n_cols}", plan.def(dtype).name);
    assert!(ptx.text.contains("cp.async.cg.shared.global"), "{name}: the next row is not staged");
    let planned = softmax::prefetch_shared_bytes(plan.block_size, dtype);
    assert!(
        ptx.shared_bytes as usize <= planned,
        "{name}: {} bytes of shared memory, planned {planned}",
        ptx.shared_bytes
    );
    assert!(planned <= H200_SHARED_BYTES);
    let budget = 65536 / (plan.num_warps * 32);
    fits_without_spills(
        &ptx.text,
        &name,
        budget,
        &format!("one program per SM allows {budget}"),
        "softmax staged prefetch",
    );
}
