//! Staged loads (`load_staged`): the same results as `load` on every back end, and the
//! `cp.async` lowering behind them. The kernels' cases run through the harness on the
//! interpreter and the simulator (bit for bit, both specializations: with Triton's the
//! 16-byte vectors are staged, without it every access is a plain load) and, ignored here,
//! on the GPU: masked tails whose vectors are all off (zero fill, then `other`), a non-zero
//! `other`, f32 and f16, a loop carrying the next row's staged load (the prefetch idiom)
//! through a cross-warp reduction, an unrolled loop, and a 64 KiB buffer (dynamic shared
//! memory). The simulator must catch a missing `cp.async.wait_group` and a staged source
//! written before the wait; ptxas assembles the PTX for sm_86 and sm_90; a launch past the
//! device's shared memory is refused by the runtime.

mod ptx_common;

use half::f16;
use ptx_common::{assemble, compile_def, options, ptxas, spill_stores};
use rtriton::backend::ptx::Arch;
use rtriton::backend::ptx::lir::{Inst, Program};
use rtriton::interp::Memory;
use rtriton::kernel;
use rtriton::prelude::*;
use rtriton::sim::{self, Check};
use rtriton::spec::{ArgValue, SpecPolicy};
use rtriton_host::HostError;
use rtriton_host::cache::CompiledPtx;
use rtriton_host::driver::{DeviceBuffer, Gpu};
use rtriton_host::launch::{Arg, JitKernel, LaunchError, Runtime, TensorArg, check_shared};
use rtriton_testing::fill::ramp_f32;
use rtriton_testing::{Case, Rule, Suite, View};
use rtriton_tests::lower_def;

const OTHER: f32 = -2.5;

kernel! {
    /// Each program stages its block of `x` (masked past `n`, `other` -2.5) and stores
    /// twice it unmasked into `y`, which is padded to whole blocks: where the mask is
    /// false `y` shows `other`.
    fn staged_scale(x: Ptr<f32>, y: Ptr<f32>, n: i32; const BLOCK: usize) {
        let offs = program_id(0) * BLOCK as i32 + arange(0, BLOCK);
        let v = load_staged(x + offs, Some(offs.lt(n)), Some(OTHER));
        store(y + offs, v * 2.0f32, None);
    }
}

kernel! {
    /// [`staged_scale`] in f16 without arithmetic: eight elements per 16-byte vector.
    fn staged_copy_f16(x: Ptr<f16>, y: Ptr<f16>, n: i32; const BLOCK: usize) {
        let offs = program_id(0) * BLOCK as i32 + arange(0, BLOCK);
        let v = load_staged(x + offs, Some(offs.lt(n)), Some(f16::from_f32(OTHER)));
        store(y + offs, v, None);
    }
}

kernel! {
    /// Each program walks rows `pid, pid + P, ...` of an `n_rows` x `n_cols` matrix (rows
    /// `n_cols` apart) and stores each row's maximum. The next row's load is staged at the
    /// top of the loop body and carried to the next iteration, so its copies are in flight
    /// during this row's cross-warp maximum (shared scratch and barriers).
    fn staged_row_max(x: Ptr<f32>, y: Ptr<f32>, n_rows: i32, n_cols: i32; const BLOCK: usize) {
        let pid = program_id(0);
        let step = num_programs(0);
        let cols = arange(0, BLOCK);
        let in_row = cols.lt(n_cols);
        let load_row = |row: Tensor<i32>| {
            load_staged(x + row * n_cols + cols, Some(in_row & row.lt(n_rows)), Some(f32::NEG_INFINITY))
        };
        let first = load_row(pid);
        for_range(pid, n_rows, step, first, |row, current| {
            let next = load_row(row + step);
            store(y + row, max(current, 0), None);
            next
        });
    }
}

kernel! {
    /// Each program folds its row's maximum over tiles of `BLOCK` columns in a loop
    /// unrolled twice, each tile a staged load used in the same iteration: the body is
    /// lowered twice per trip, each copy waiting for its own copies.
    fn staged_unrolled_row_max(x: Ptr<f32>, y: Ptr<f32>, n_cols: i32; const BLOCK: usize) {
        let row = program_id(0);
        let cols = arange(0, BLOCK);
        let m = for_range_unrolled(0, n_cols, BLOCK as i32, 2, full(&[1], f32::NEG_INFINITY), |start, m| {
            let c = start + cols;
            let tile = load_staged(x + row * n_cols + c, Some(c.lt(n_cols)), Some(f32::NEG_INFINITY));
            maximum(m, expand_dims(max(tile, 0), 0))
        });
        store(y + row + arange(0, 1), m, None);
    }
}

kernel! {
    /// Stages `x`, then overwrites it before the staged value's first use: what
    /// `load_staged` forbids (the copy may happen any time before the wait).
    fn staged_then_overwritten(x: Ptr<f32>, y: Ptr<f32>; const BLOCK: usize) {
        let offs = arange(0, BLOCK);
        let v = load_staged(x + offs, None, None);
        store(x + offs, zeros::<f32>(&[BLOCK]), None);
        store(y + offs, v, None);
    }
}

fn contiguous(n: usize) -> View {
    View::contiguous(&[n])
}

/// `n` elements in programs of `block` (the last padded): `y` starts at a sentinel.
fn scale_case(name: &str, n: usize, block: usize, num_warps: u32) -> Case {
    let padded = n.div_ceil(block) * block;
    Case::new(name)
        .input("x", ramp_f32(n, -3.0, 0.125), contiguous(n))
        .output("y", vec![f32::from_bits(0xABAB_ABAB); padded], contiguous(padded))
        .int(n as i64)
        .constexpr("BLOCK", block as i64)
        .num_warps(num_warps)
        .grid([(padded / block) as u32, 1, 1])
}

fn scale_suite() -> Suite {
    Suite::new(staged_scale())
        .cases([
            // 160 = 128 + 32: the second program's vectors past 32 are all masked off.
            scale_case("masked_tail_vectors", 160, 128, 1),
            scale_case("exact_blocks", 512, 256, 2),
            scale_case("two_vectors_per_thread", 1040, 1024, 4),
            // 150 is not a multiple of 4: the mask is not constant per vector, so the load
            // is element by element (a plain load) with Triton's specialization too.
            scale_case("unaligned_width", 150, 64, 1),
            // 16384 f32 per program: a 64 KiB staged buffer, past the 48 KiB a kernel can
            // declare statically: dynamic shared memory (on the GPU: the attribute and the
            // launch's bytes).
            scale_case("dynamic_shared_memory", 16384 + 16, 16384, 8),
        ])
        .reference(|case| {
            let n = case.tensor("x").data.len();
            for i in 0..case.tensor("y").data.len() {
                let y = if i < n { case.tensor("x").f32_at(&[i]) * 2.0 } else { OTHER * 2.0 };
                case.tensor_mut("y").set_f32(&[i], y);
            }
        })
        .rule(Rule::BITS)
}

rtriton_testing::backend_tests!(scale_suite => [
    masked_tail_vectors,
    exact_blocks,
    two_vectors_per_thread,
    unaligned_width,
    dynamic_shared_memory,
]);

fn f16_case(name: &str, n: usize, block: usize, num_warps: u32) -> Case {
    let padded = n.div_ceil(block) * block;
    let x: Vec<f16> = ramp_f32(n, -7.0, 0.0625).into_iter().map(f16::from_f32).collect();
    Case::new(name)
        .input("x", x, contiguous(n))
        .output("y", vec![f16::from_bits(0xABAB); padded], contiguous(padded))
        .int(n as i64)
        .constexpr("BLOCK", block as i64)
        .num_warps(num_warps)
        .grid([(padded / block) as u32, 1, 1])
}

fn f16_suite() -> Suite {
    Suite::new(staged_copy_f16())
        .cases([f16_case("f16_masked_tail", 272, 256, 1), f16_case("f16_two_warps", 2048 + 16, 2048, 2)])
        .reference(|case| {
            let n = case.tensor("x").data.len();
            for i in 0..case.tensor("y").data.len() {
                let y = if i < n { case.tensor("x").f64_at(&[i]) } else { f64::from(OTHER) };
                case.tensor_mut("y").set_f64(&[i], y);
            }
        })
        .rule(Rule::BITS)
}

rtriton_testing::backend_tests!(f16_suite => [f16_masked_tail, f16_two_warps]);

fn row_max_case(name: &str, n_rows: usize, n_cols: usize, block: usize, num_warps: u32, programs: u32) -> Case {
    Case::new(name)
        .input("x", ramp_f32(n_rows * n_cols, 5.0, -0.03125), contiguous(n_rows * n_cols))
        .output("y", vec![0.0f32; n_rows], contiguous(n_rows))
        .int(n_rows as i64)
        .int(n_cols as i64)
        .constexpr("BLOCK", block as i64)
        .num_warps(num_warps)
        .grid([programs, 1, 1])
}

fn row_max_suite() -> Suite {
    Suite::new(staged_row_max())
        .cases([
            // 3 programs over 7 rows: 3, 2 and 2 iterations, the last prefetch masked off.
            row_max_case("loop_carried_rows", 7, 256, 256, 2, 3),
            // Rows narrower than the block: a masked tail in every row, -inf `other`.
            row_max_case("loop_carried_masked_tail", 5, 48, 64, 1, 2),
            // One program per row: every prefetch is masked off.
            row_max_case("loop_one_row_each", 4, 512, 512, 4, 4),
        ])
        .reference(|case| {
            let n_rows = case.tensor("y").data.len();
            let n_cols = case.tensor("x").data.len() / n_rows;
            for r in 0..n_rows {
                let m =
                    (0..n_cols).map(|c| case.tensor("x").f32_at(&[r * n_cols + c])).fold(f32::NEG_INFINITY, f32::max);
                case.tensor_mut("y").set_f32(&[r], m);
            }
        })
        .rule(Rule::BITS)
}

rtriton_testing::backend_tests!(row_max_suite => [loop_carried_rows, loop_carried_masked_tail, loop_one_row_each]);

fn unrolled_case(name: &str, n_rows: usize, n_cols: usize, block: usize) -> Case {
    Case::new(name)
        .input("x", ramp_f32(n_rows * n_cols, -9.0, 0.0625), contiguous(n_rows * n_cols))
        .output("y", vec![0.0f32; n_rows], contiguous(n_rows))
        .int(n_cols as i64)
        .constexpr("BLOCK", block as i64)
        .num_warps(1)
        .grid([n_rows as u32, 1, 1])
}

fn unrolled_suite() -> Suite {
    Suite::new(staged_unrolled_row_max())
        .cases([
            // 5 tiles: two trips of the unrolled main loop and a remainder of one.
            unrolled_case("unrolled_five_tiles", 3, 640, 128),
            // 2.5 tiles: one trip, and a remainder whose tile is half masked.
            unrolled_case("unrolled_masked_last_tile", 2, 320, 128),
        ])
        .reference(|case| {
            let n_rows = case.tensor("y").data.len();
            let n_cols = case.tensor("x").data.len() / n_rows;
            for r in 0..n_rows {
                let m =
                    (0..n_cols).map(|c| case.tensor("x").f32_at(&[r * n_cols + c])).fold(f32::NEG_INFINITY, f32::max);
                case.tensor_mut("y").set_f32(&[r], m);
            }
        })
        .rule(Rule::BITS)
}

rtriton_testing::backend_tests!(unrolled_suite => [unrolled_five_tiles, unrolled_masked_last_tile]);

/// Memory a staged load read and the kernel wrote before the wait: the copy may see
/// either value on the GPU, so the simulator reports the race where the interpreter (which
/// reads at the op) gives the old values.
#[test]
fn the_simulator_reports_a_staged_source_written_before_the_wait() {
    let mut mem = Memory::new();
    let x = mem.alloc_f32(&ramp_f32(128, 1.0, 1.0));
    let y = mem.alloc_f32(&[0.0; 128]);
    let args = [ArgValue::Ptr(x), ArgValue::Ptr(y)];
    let program = lower_def(&staged_then_overwritten(), &[("BLOCK", 128)], &args, SpecPolicy::Triton, 1)
        .expect("staged_then_overwritten lowers");
    assert!(program.walk().iter().any(|i| matches!(i, Inst::CpAsync { .. })), "the load is staged");
    let err = sim::run(&program, [1, 1, 1], &args, &mut mem).expect_err("the overwrite must be reported");
    assert_eq!(err.check, Check::GlobalRace, "{err}");
    assert!(err.message.contains("written between the cp.async that reads them and its wait"), "{}", err.message);
}

/// `staged_scale` over 160 elements in blocks of 128, on 16-byte aligned buffers.
fn scale_launch(mem: &mut Memory) -> (Vec<ArgValue>, u64) {
    let x = mem.alloc_f32(&ramp_f32(160, -3.0, 0.125));
    let y = mem.alloc_f32(&[0.0; 256]);
    assert_eq!((x % 16, y % 16), (0, 0), "the simulator's buffers are 16-byte aligned");
    (vec![ArgValue::Ptr(x), ArgValue::Ptr(y), ArgValue::Int(160)], y)
}

fn lowered_scale(args: &[ArgValue]) -> Program {
    lower_def(&staged_scale(), &[("BLOCK", 128)], args, SpecPolicy::Triton, 1).expect("staged_scale lowers")
}

fn remove_waits(insts: &mut Vec<Inst>) -> usize {
    let before = insts.len();
    insts.retain(|i| !matches!(i, Inst::CpAsyncWait { .. }));
    let mut removed = before - insts.len();
    for i in insts.iter_mut() {
        if let Inst::Loop { body, .. } = i {
            removed += remove_waits(body);
        }
    }
    removed
}

/// Without its `cp.async.wait_group`, the read-back of a staged slot is reported: the
/// copy may not have landed yet on the GPU.
#[test]
fn the_simulator_reports_a_missing_wait() {
    let mut mem = Memory::new();
    let (args, y) = scale_launch(&mut mem);
    let program = lowered_scale(&args);
    let count = |p: &Program, f: fn(&Inst) -> bool| p.walk().into_iter().filter(|i| f(i)).count();
    assert_eq!(count(&program, |i| matches!(i, Inst::CpAsync { .. })), 1, "one vector per thread");
    // The intact program runs and stores twice x, then twice `other` past 160.
    let mut ok = mem.clone();
    sim::run(&program, [2, 1, 1], &args, &mut ok).unwrap();
    let got = ok.read_f32(y, 256).unwrap();
    assert_eq!(got[159], (-3.0 + 159.0 * 0.125) * 2.0);
    assert_eq!(got[160], OTHER * 2.0);
    let mut broken = program.clone();
    assert_eq!(remove_waits(&mut broken.body), 1);
    let err = sim::run(&broken, [2, 1, 1], &args, &mut mem).expect_err("the missing wait must be reported");
    assert_eq!(err.check, Check::AsyncCopyPending, "{err}");
    assert!(err.message.contains("cp.async"), "{}", err.message);
    // The error names the staged load's line (its read-back group carries the op's location).
    let loc = err.loc.expect("the op's location");
    assert_eq!((loc.file.ends_with("staged_loads.rs"), loc.line), (true, staged_scale_line()), "{err}");
}

/// A staged load's PTX: one `cp.async` per 16-byte vector with the source size from the
/// mask, one commit, and the wait then `ld.shared.v4` before the first use; ptxas
/// assembles it for sm_86 and sm_90 without spills.
#[test]
#[cfg_attr(not(has_ptxas), ignore = "needs ptxas on PATH")]
fn staged_loads_assemble() {
    let ptxas = ptxas("staged_loads");
    let args = |n: i64| vec![ArgValue::Ptr(0x7f00_0000_0000), ArgValue::Ptr(0x7f00_1000_0000), ArgValue::Int(n)];
    let rows = vec![
        ArgValue::Ptr(0x7f00_0000_0000),
        ArgValue::Ptr(0x7f00_1000_0000),
        ArgValue::Int(4096),
        ArgValue::Int(1024),
    ];
    let kernels = [
        (staged_scale(), 1024, args(4096), 4),
        (staged_copy_f16(), 2048, args(4096), 2),
        (staged_row_max(), 1024, rows, 4),
        (staged_unrolled_row_max(), 512, args(4096), 1),
    ];
    for (def, block, args, warps) in kernels {
        let ptx = compile_def(&def, &[("BLOCK", block)], &args, SpecPolicy::Triton, &options(Arch::Sm86, warps))
            .unwrap_or_else(|e| panic!("{}: {e}", def.name));
        for want in ["cp.async.cg.shared.global [", ", 16, %r", "cp.async.commit_group;", "cp.async.wait_group 0;"] {
            assert!(ptx.text.contains(want), "{}: no `{want}` in\n{}", def.name, ptx.text);
        }
        assert!(ptx.text.contains("ld.shared.v4."), "{}: no ld.shared.v4 in\n{}", def.name, ptx.text);
        for arch in ["sm_86", "sm_90"] {
            let info =
                assemble(&ptxas, &ptx.text, arch, def.name).unwrap_or_else(|e| panic!("{} on {arch}:\n{e}", def.name));
            assert_eq!(spill_stores(&info), Some(0), "{} on {arch} spills:\n{info}", def.name);
        }
    }
}
/// The prefetch idiom: in the loop body the next row's copies are issued first and waited
/// for after this row's maximum and store (at the end of the body, before the yield), and
/// the loop's buffer is the one the first row's load used (read back before the loop), so
/// the kernel's shared memory is the reduction's scratch and one row.
#[test]
fn the_prefetch_waits_after_the_row_is_done_and_reuses_one_buffer() {
    let args = vec![
        ArgValue::Ptr(0x7f00_0000_0000),
        ArgValue::Ptr(0x7f00_1000_0000),
        ArgValue::Int(4096),
        ArgValue::Int(1024),
    ];
    let ptx = compile_def(&staged_row_max(), &[("BLOCK", 1024)], &args, SpecPolicy::Triton, &options(Arch::Sm86, 4))
        .expect("staged_row_max compiles");
    let body = &ptx.text[ptx.text.find("LOOP0_HEAD:").expect("the row loop")..];
    let at = |s: &str| body.find(s).unwrap_or_else(|| panic!("no `{s}` in the loop:\n{body}"));
    assert!(at("cp.async.cg.shared.global") < at("max.f32"), "the copies are issued before the maximum:\n{body}");
    assert!(at("st.global") < at("cp.async.wait_group 0;"), "the wait comes after the row's store:\n{body}");
    assert!(at("cp.async.wait_group 0;") < at("ld.shared.v4.f32"), "{body}");
    // 4 warps' partial maxima (16 bytes) and one row of 1024 f32.
    assert_eq!(ptx.shared_bytes, 16 + 1024 * 4, "{}", ptx.text);
}

/// The line of `staged_scale`'s staged load in this file.
fn staged_scale_line() -> u32 {
    let at = include_str!("staged_loads.rs")
        .lines()
        .position(|l| l.contains("let v = load_staged(x + offs, Some(offs.lt(n)), Some(OTHER));"))
        .expect("the kernel's load line");
    at as u32 + 1
}

fn scale_ptx(block: i64, num_warps: u32) -> rtriton::backend::ptx::Ptx {
    let args = vec![ArgValue::Ptr(0x7f00_0000_0000), ArgValue::Ptr(0x7f00_1000_0000), ArgValue::Int(1 << 20)];
    compile_def(&staged_scale(), &[("BLOCK", block)], &args, SpecPolicy::Triton, &options(Arch::Sm86, num_warps))
        .expect("staged_scale compiles")
}

/// Past 48 KiB the kernel declares `smem` as dynamic shared memory and records the bytes
/// a launch passes and the staged load that needs them; ptxas assembles it.
#[test]
#[cfg_attr(not(has_ptxas), ignore = "needs ptxas on PATH")]
fn past_48_kib_the_shared_memory_is_dynamic() {
    let small = scale_ptx(4096, 8);
    assert_eq!((small.shared_bytes, small.dynamic_shared_bytes()), (16384, 0));
    assert!(small.text.contains(".shared .align 16 .b8 smem[16384];"), "{}", small.text);
    let ptx = scale_ptx(16384, 8);
    assert_eq!((ptx.shared_bytes, ptx.dynamic_shared_bytes()), (65536, 65536));
    assert!(ptx.text.contains(".extern .shared .align 16 .b8 smem[];"), "{}", ptx.text);
    assert!(!ptx.text.contains("smem[65536]"), "{}", ptx.text);
    assert_eq!(ptx.shared_site.map(|l| l.line), Some(staged_scale_line()));
    let ptxas = ptxas("staged_loads");
    for arch in ["sm_86", "sm_90"] {
        assemble(&ptxas, &ptx.text, arch, "staged_scale_dynamic").unwrap_or_else(|e| panic!("{arch}:\n{e}"));
    }
}

fn compiled(ptx: &rtriton::backend::ptx::Ptx) -> CompiledPtx {
    CompiledPtx {
        text: ptx.text.clone(),
        entry: ptx.entry.clone(),
        threads_per_cta: ptx.threads_per_cta,
        shared_bytes: ptx.shared_bytes,
        shared_site: ptx.shared_site.map(|l| l.short()),
        tensor_maps: ptx.tensor_maps.iter().map(Into::into).collect(),
    }
}

/// A program whose shared memory exceeds the device's opt-in limit is refused before the
/// driver sees it, naming the kernel and the staged load: 256 KiB of staged row against
/// the H200's 227 KiB and sm_86's 99 KiB; 64 KiB fits both.
#[test]
fn a_program_past_the_devices_shared_memory_is_refused() {
    const H200_OPTIN: u32 = 227 * 1024;
    const SM86_OPTIN: u32 = 99 * 1024;
    let big = compiled(&scale_ptx(65536, 32));
    assert_eq!(big.shared_bytes, 256 * 1024);
    for max in [H200_OPTIN, SM86_OPTIN] {
        let e = check_shared("staged_scale", &big, max).expect_err("256 KiB does not fit");
        assert!(matches!(e, LaunchError::SharedMemory { .. }), "{e}");
        assert_eq!(e.code(), rtriton::diag::Code::LaunchSharedMemory);
        let text = e.to_string();
        assert!(text.starts_with("kernel `staged_scale`: 262144 bytes of shared memory per program"), "{text}");
        assert!(text.contains(&format!("staged_loads.rs:{}", staged_scale_line())), "{text}");
        assert!(text.contains(&format!("limit of {max} bytes")), "{text}");
    }
    let fits = compiled(&scale_ptx(16384, 8));
    check_shared("staged_scale", &fits, SM86_OPTIN).expect("64 KiB fits sm_86's 99 KiB");
}

/// The GPU. Its callers are ignored tests that run only when asked for, so a missing GPU
/// is a failure here, never a skip.
fn gpu() -> Gpu {
    Gpu::open(0).unwrap_or_else(|e| panic!("this test needs a GPU (run it on the GPU machine): {e}"))
}

/// On the device: a 64 KiB staged buffer (dynamic shared memory) computes the reference,
/// and a 256 KiB one is refused by the runtime with `RT0713`, not by the driver.
#[test]
#[ignore = "needs a GPU"]
fn dynamic_shared_memory_on_the_device() {
    let gpu = gpu();
    assert!(gpu.info.max_shared_bytes_optin >= 64 * 1024, "{:?}", gpu.info);
    let n = 16384 * 2 - 16;
    let x_host = ramp_f32(n, -3.0, 0.125);
    let x = DeviceBuffer::from_host(&gpu, &x_host).unwrap();
    let y = DeviceBuffer::<f32>::zeros(&gpu, 16384 * 2).unwrap();
    let mut rt = Runtime::with_disk_cache(gpu, None);
    let launch = |block: u64, warps: u32| {
        JitKernel::new(staged_scale())
            .constexpr("BLOCK", block as i64)
            .num_warps(warps)
            .grid(move |_| [32768u64.div_ceil(block), 1, 1])
    };
    let args = || {
        vec![
            Arg::Tensor(TensorArg::contiguous(&x, &[n])),
            Arg::Tensor(TensorArg::contiguous(&y, &[32768])),
            Arg::Int(n as i64),
        ]
    };
    rt.launch(&launch(16384, 8), &args()).expect("64 KiB of dynamic shared memory launches");
    let got = y.to_host(&rt.gpu).unwrap();
    for (i, g) in got.iter().enumerate() {
        let want = if i < n { x_host[i] * 2.0 } else { OTHER * 2.0 };
        assert_eq!(g.to_bits(), want.to_bits(), "y[{i}]");
    }
    match rt.launch(&launch(65536, 32), &args()) {
        Err(HostError::Launch(e)) => {
            assert_eq!(e.code(), rtriton::diag::Code::LaunchSharedMemory, "{e}");
            assert!(e.to_string().contains("staged_loads.rs:"), "{e}");
        }
        other => panic!("256 KiB of shared memory must be refused by the runtime, got {other:?}"),
    }
}
