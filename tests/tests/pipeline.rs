//! The pipelining of a `dot`'s loads in a loop (`dsl/src/passes/pipeline/`): the tiles go
//! through staging rings, copied `num_stages - 1` iterations ahead (or, where a masked-off
//! element is not 0, the loop carries the next tiles in registers), the result is the same
//! on every back end, and what does not qualify is left alone.

mod ptx_common;

use half::f16;
use rtriton::diag::{Code, HasDiagnostics};
use rtriton::kernel;
use rtriton::prelude::*;
use rtriton::session::CompileSession;
use rtriton::spec::{SpecKey, SpecPolicy};
use rtriton::trace::{KernelDef, TraceOptions};
use rtriton_testing::run::{run_interpreter, run_simulator};
use rtriton_testing::{Case, Data, View};

/// Tutorial 03's loop: pointers carried and advanced, the `k` tail masked.
#[allow(non_snake_case)]
fn matmul(
    a_ptr: Tensor<Ptr<f16>>,
    b_ptr: Tensor<Ptr<f16>>,
    c_ptr: Tensor<Ptr<f32>>,
    k: Tensor<i32>,
    [BM, BN, BK, STAGES]: [usize; 4],
    other: f16,
) {
    let rm = expand_dims(arange(0, BM), 1);
    let rn = expand_dims(arange(0, BN), 0);
    let rk = arange(0, BK);
    let a_ptrs = a_ptr + rm * k + expand_dims(rk, 0);
    let b_ptrs = b_ptr + expand_dims(rk, 1) * BN as i32 + rn;
    let acc = zeros::<f32>(&[BM, BN]);
    let (acc, _, _) = for_range_staged(0, k, BK as i32, STAGES, (acc, a_ptrs, b_ptrs), |k0, (acc, a_ptrs, b_ptrs)| {
        let left = expand_dims(rk, 0).lt(k - k0);
        let a = load(a_ptrs, Some(left), Some(other));
        let b = load(b_ptrs, Some(expand_dims(rk, 1).lt(k - k0)), Some(other));
        let acc = dot(a, b, acc);
        (acc, a_ptrs + BK as i32, b_ptrs + (BK * BN) as i32)
    });
    store(c_ptr + rm * BN as i32 + rn, acc, None);
}

kernel! {
    fn pipelined(a_ptr: Ptr<f16>, b_ptr: Ptr<f16>, c_ptr: Ptr<f32>, k: i32;
                 const BM: usize, const BN: usize, const BK: usize, const STAGES: usize) {
        matmul(a_ptr, b_ptr, c_ptr, k, [BM, BN, BK, STAGES], f16::ZERO);
    }
}

kernel! {
    /// Masked-off elements of 1 (not a copy's zero fill): the next tiles are carried in
    /// registers.
    fn prefetched(a_ptr: Ptr<f16>, b_ptr: Ptr<f16>, c_ptr: Ptr<f32>, k: i32;
                  const BM: usize, const BN: usize, const BK: usize, const STAGES: usize) {
        matmul(a_ptr, b_ptr, c_ptr, k, [BM, BN, BK, STAGES], f16::ONE);
    }
}

kernel! {
    /// The same loop with one stage (`for_range_staged(.., 1, ..)`, as `for_range`): run as
    /// written.
    fn one_stage(a_ptr: Ptr<f16>, b_ptr: Ptr<f16>, c_ptr: Ptr<f32>, k: i32; const BM: usize, const BN: usize, const BK: usize) {
        matmul(a_ptr, b_ptr, c_ptr, k, [BM, BN, BK, 1], f16::ZERO);
    }
}

kernel! {
    /// The same loop with a store in its body: a store may feed a later load, so nothing
    /// is pipelined.
    fn with_a_store(a_ptr: Ptr<f16>, b_ptr: Ptr<f16>, c_ptr: Ptr<f32>, k: i32; const BM: usize, const BN: usize, const BK: usize) {
        let rm = expand_dims(arange(0, BM), 1);
        let rn = expand_dims(arange(0, BN), 0);
        let rk = arange(0, BK);
        let acc = zeros::<f32>(&[BM, BN]);
        let acc = for_range_staged(0, k, BK as i32, 2, acc, |k0, acc| {
            let a = load(a_ptr + rm * k + expand_dims(rk, 0) + k0, None, None);
            let b = load(b_ptr + (expand_dims(rk, 1) + k0) * BN as i32 + rn, None, None);
            let acc = dot(a, b, acc);
            store(c_ptr + rm * BN as i32 + rn, acc, None);
            acc
        });
        store(c_ptr + rm * BN as i32 + rn, acc, None);
    }
}

fn ir(def: &KernelDef) -> String {
    with_constexprs(def, &[("BM", 16), ("BN", 16), ("BK", 16)])
}

fn ir_staged(def: &KernelDef, stages: i64) -> String {
    with_constexprs(def, &[("BM", 16), ("BN", 16), ("BK", 16), ("STAGES", stages)])
}

fn with_constexprs(def: &KernelDef, constexprs: &[(&str, i64)]) -> String {
    let spec = SpecKey::plain(&def.params);
    let k = CompileSession::new().front_end(def, constexprs, &spec, &TraceOptions::default()).unwrap();
    k.kernel().to_string()
}

/// With `num_stages = S`, the prologue copies the tiles of the first `S - 1` iterations
/// into slots 0, 1, ... of two rings of `S` slots; the body reads its slot (waiting for
/// all but the `(S - 2) * 2` latest copies), copies the tiles `S - 1` iterations ahead, then
/// runs its `dot`; no load is left.
#[test]
fn the_tiles_of_a_dot_go_through_rings_stages_minus_one_iterations_ahead() {
    for stages in [2u32, 3, 4] {
        let text = ir_staged(&pipelined(), stages.into());
        let (before, rest) = text.split_once(" for ").expect("a loop");
        assert_eq!(before.matches("async_copy ").count(), 2 * (stages as usize - 1), "{text}");
        assert!(
            before.contains(&format!("ring 0 of {stages}")) && before.contains(&format!("ring 1 of {stages}")),
            "{text}"
        );
        let (body, after) = rest.split_once("dot").expect("a dot in the loop");
        let pending = format!("pending {}", 2 * (stages - 2));
        assert_eq!(body.matches("ring_read ring ").count(), 2, "{text}");
        assert_eq!(body.matches(&pending).count(), 2, "{pending}\n{text}");
        assert_eq!(body.matches("async_copy ").count(), 2, "the next copies go before the dot\n{text}");
        assert!(!text.contains("= load "), "{text}");
        assert!(!after.contains("async_copy "), "{text}");
    }
}

/// Where a masked-off element is not 0, the loop carries the two tiles: its body loads
/// twice, both before the `dot`, and the prologue loads twice before the loop.
#[test]
fn the_loads_of_a_dot_move_one_iteration_ahead() {
    let text = ir_staged(&prefetched(), 2);
    let (before, rest) = text.split_once(" for ").expect("a loop");
    assert_eq!(before.matches("= load ").count(), 2, "{text}");
    let body = rest.split_once("dot").expect("a dot in the loop").0;
    assert_eq!(body.matches("= load ").count(), 2, "the next tiles load before the dot\n{text}");
    assert!(!rest.split_once("dot").unwrap().1.contains("= load "), "{text}");
}

#[test]
fn a_loop_of_one_stage_is_left_alone() {
    let text = ir(&one_stage());
    let (before, _) = text.split_once(" for ").expect("a loop");
    assert_eq!(before.matches("= load ").count(), 0, "{text}");
    assert!(ir_staged(&pipelined(), 2).contains(" stages 2 iter_args"), "the loop prints its stages");
}

#[test]
fn a_loop_that_stores_is_left_alone() {
    let text = ir(&with_a_store());
    let (before, _) = text.split_once(" for ").expect("a loop");
    assert_eq!(before.matches("= load ").count(), 0, "{text}");
}

/// The pipelined loop computes what the loop as written computes: the interpreter gives
/// the documented `dot` order's bits for `k` of 1, 16, 40 (a tail), 80 and 0 iterations,
/// with rings of 2, 3 and 4 slots and with the tiles carried in registers, and the
/// simulator (which reports a read of a slot whose copy is still in flight, and races on
/// it) the interpreter's bits.
#[rstest::rstest]
fn the_pipelined_loop_gives_the_same_bits_on_the_interpreter_and_the_simulator(
    #[values(2, 3, 4)] stages: i64,
    #[values(false, true)] registers: bool,
) {
    let (def, other) = if registers { (prefetched(), 1.0f32) } else { (pipelined(), 0.0) };
    // 16 x 16 tiles are copied 4 bytes a thread (through registers), 32 x 32 ones with
    // 16-byte `cp.async`s.
    for (k, tile) in [0usize, 1, 16, 40, 80].into_iter().flat_map(|k| [(k, 16usize), (k, 32)]) {
        let (bm, bn, bk) = (tile, tile, tile);
        let kp = k.max(1);
        let a: Vec<f16> = (0..bm * kp).map(|i| f16::from_f32(((i * 7 % 13) as f32 - 6.0) / 4.0)).collect();
        let b: Vec<f16> =
            (0..kp.next_multiple_of(bk) * bn).map(|i| f16::from_f32(((i * 5 % 11) as f32 - 5.0) / 8.0)).collect();
        let mut c = Case::new("pipelined").grid([1, 1, 1]).num_warps(4);
        c.constexprs = vec![("BM", bm as i64), ("BN", bn as i64), ("BK", bk as i64), ("STAGES", stages)];
        let c = c
            .input("a", Data::F16(a.clone()), View::contiguous(&[a.len()]))
            .input("b", Data::F16(b.clone()), View::contiguous(&[b.len()]))
            .output("c", Data::F32(vec![0.0; bm * bn]), View::contiguous(&[bm * bn]))
            .int(k as i64);
        let want = run_interpreter(&def, &c, SpecPolicy::Triton).unwrap_or_else(|e| panic!("k {k}, tile {tile}: {e}"));
        // the documented order: one fma per k, k increasing
        let out = &want.buffers[0].1;
        for i in 0..bm {
            for j in 0..bn {
                let mut s = 0f32;
                // the tail tile's masked-off elements are `other`
                for kk in 0..k.next_multiple_of(bk) {
                    let (x, y) =
                        if kk < k { (a[i * k + kk].to_f32(), b[kk * bn + j].to_f32()) } else { (other, other) };
                    s = x.mul_add(y, s);
                }
                assert_eq!(out.f64_at(i * bn + j).unwrap() as f32, s, "k {k}, tile {tile} at ({i}, {j})");
            }
        }
        let got = run_simulator(&def, &c, SpecPolicy::Triton).unwrap_or_else(|e| panic!("k {k}, tile {tile}: {e}"));
        assert_eq!(got.buffers[0].1.to_le_bytes(), out.to_le_bytes(), "k {k}, tile {tile}");
    }
}

kernel! {
    fn stages_out_of_range(y_ptr: Ptr<i32>; const STAGES: usize) {
        let h = for_range_staged(0, full::<i32>(&[], 8), 1, STAGES, zeros::<i32>(&[4]), |_, h| h + 1); // @stages
        store(y_ptr + arange(0, 4), h, None);
    }
}

#[test]
fn a_stage_count_out_of_range_is_a_located_error() {
    let line = include_str!("pipeline.rs").lines().position(|l| l.contains("// @stages")).unwrap() as u32 + 1;
    for (stages, what) in [(0, "num_stages 0 is out of range"), (9, "num_stages 9 is out of range")] {
        let def = stages_out_of_range();
        let spec = SpecKey::plain(&def.params);
        let e = CompileSession::new()
            .front_end(&def, &[("STAGES", stages)], &spec, &TraceOptions::default())
            .expect_err("out of range");
        let ds = e.diagnostics();
        assert_eq!(ds.len(), 1, "{e}");
        assert_eq!((ds[0].code, ds[0].message.as_str()), (Code::TraceRule, what));
        assert_eq!(ds[0].loc.map(|l| l.line), Some(line), "{e}");
        assert!(ds[0].help.contains("between 1 (no pipelining) and 8 stages"), "{e}");
    }
}

kernel! {
    /// The matmul port's loop form: the tiles' pointers computed from the induction
    /// variable, not carried (`pipelined` carries them, as the tutorial does).
    fn ring_tiles(a_ptr: Ptr<f16>, b_ptr: Ptr<f16>, c_ptr: Ptr<f32>, k: i32;
                  const BM: usize, const BN: usize, const BK: usize, const STAGES: usize) {
        let rm = expand_dims(arange(0, BM), 1);
        let rn = expand_dims(arange(0, BN), 0);
        let rk = arange(0, BK);
        let acc = for_range_staged(0, k, BK as i32, STAGES, zeros::<f32>(&[BM, BN]), |k0, acc| {
            let a = load(a_ptr + rm * k + expand_dims(rk, 0) + k0, Some(expand_dims(rk, 0).lt(k - k0)), Some(f16::ZERO));
            let b = load(b_ptr + (expand_dims(rk, 1) + k0) * BN as i32 + rn, Some(expand_dims(rk, 1).lt(k - k0)), Some(f16::ZERO));
            dot(a, b, acc)
        });
        store(c_ptr + rm * BN as i32 + rn, acc, None);
    }
}

/// The PTX of the 32 x 32 x 32 tile with 3 stages under Triton's specialization (16-byte
/// aligned operands, `k` divisible by 16): the prologue's two `cp.async` groups per
/// operand, the body's `cp.async.wait_group 2` and barrier before the `ldmatrix`s, the
/// `cp.async`s of the tiles two steps ahead into the slot read last, and the `wait_group
/// 0` after the loop. A review of a change to the rings sees it here (regenerate with
/// `INSTA_UPDATE=always`); ptxas assembles it for sm_86 and sm_90 without spills.
fn ring_ptx() -> String {
    ring_ptx_of(&ring_tiles())
}

fn ring_ptx_of(def: &KernelDef) -> String {
    ring_ptx_for(def, [32, 32, 32], rtriton::backend::ptx::Arch::Sm86)
}

/// `def`'s PTX for `[BM, BN, BK]` tiles with 3 stages on 4 warps for `arch`, under Triton's
/// specialization of 16-byte aligned operands and `k = 64`.
fn ring_ptx_for(def: &KernelDef, [bm, bn, bk]: [i64; 3], arch: rtriton::backend::ptx::Arch) -> String {
    use rtriton::spec::ArgValue;
    let args = [
        ArgValue::Ptr(0x7f00_0000_0000),
        ArgValue::Ptr(0x7f10_0000_0000),
        ArgValue::Ptr(0x7f20_0000_0000),
        ArgValue::Int(64),
    ];
    let constexprs = [("BM", bm), ("BN", bn), ("BK", bk), ("STAGES", 3)];
    ptx_common::compile_def(def, &constexprs, &args, SpecPolicy::Triton, &ptx_common::options(arch, 4))
        .unwrap_or_else(|e| panic!("{e}"))
        .text
}

#[test]
fn golden_ptx_of_a_three_stage_ring() {
    let text = ring_ptx();
    assert_eq!(text.matches("cp.async.wait_group 2;").count(), 1, "{text}");
    assert_eq!(text.matches("cp.async.wait_group 0;").count(), 1, "{text}");
    // two copies per operand before the loop, one per operand in it
    assert_eq!(text.matches("cp.async.cg.shared.global").count(), 6, "{text}");
    assert!(text.contains("ldmatrix.sync.aligned.m8n8.x4.shared.b16"), "{text}");
    insta::assert_snapshot!("ring_f16_32x32x32_3_stages_sm_86", text);
}

/// The same ring loop lowered for sm_90a with a 64 x 64 x 32 tile on 4 warps (one
/// warpgroup): each K step reads `b` through a matrix descriptor of its slot (64-byte rows,
/// the 64-byte swizzle) with two `wgmma.m64n64k16`, `a` with `ldmatrix`; the ring's wait
/// has a `fence.proxy.async` before its barrier. Regenerate with `INSTA_UPDATE=always`;
/// ptxas assembles it for sm_90a without spills.
fn wgmma_ring_ptx() -> String {
    ring_ptx_for(&ring_tiles(), [64, 64, 32], rtriton::backend::ptx::Arch::Sm90a)
}

#[test]
fn golden_ptx_of_a_wgmma_ring() {
    let text = wgmma_ring_ptx();
    assert!(text.contains(".target sm_90a"), "{text}");
    assert_eq!(text.matches("wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16").count(), 2, "{text}");
    assert_eq!(text.matches("wgmma.fence.sync.aligned;").count(), 1, "{text}");
    assert_eq!(text.matches("wgmma.wait_group.sync.aligned 0;").count(), 1, "{text}");
    assert_eq!(text.matches("fence.proxy.async.shared::cta;").count(), 1, "{text}");
    assert!(!text.contains("mma.sync"), "{text}");
    insta::assert_snapshot!("ring_f16_64x64x32_3_stages_wgmma_sm_90a", text);
}

#[test]
#[cfg_attr(not(has_ptxas), ignore = "needs ptxas on PATH")]
fn the_wgmma_ring_assembles_for_sm_90a_without_spills() {
    let ptxas = ptx_common::ptxas("the_wgmma_ring_assembles_for_sm_90a_without_spills");
    let info =
        ptx_common::assemble(&ptxas, &wgmma_ring_ptx(), "sm_90a", "ring_tiles").unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(ptx_common::spill_stores(&info), Some(0), "{info}");
}

/// The tutorial's form, pointers carried and advanced by `BLOCK_K` each step: AxisInfo
/// derives a carried value's facts (the meet of its initial value's and the yielded
/// one's), so the body's copies are 16-byte `cp.async`s too.
#[test]
fn carried_pointers_copy_with_cp_async_too() {
    let text = ring_ptx_of(&pipelined());
    assert_eq!(text.matches("cp.async.cg.shared.global").count(), 6, "{text}");
}

#[test]
#[cfg_attr(not(has_ptxas), ignore = "needs ptxas on PATH")]
fn the_ring_assembles_without_spills() {
    let ptxas = ptx_common::ptxas("the_ring_assembles_without_spills");
    let text = ring_ptx();
    for arch in ["sm_86", "sm_90"] {
        let info = ptx_common::assemble(&ptxas, &text, arch, "ring_tiles").unwrap_or_else(|e| panic!("{arch}: {e}"));
        assert_eq!(ptx_common::spill_stores(&info), Some(0), "{arch}: {info}");
    }
}

/// The rings with `cp.async` in the body too (`ring_tiles`: pointers from the induction
/// variable), 64 x 64 x 32 tiles on 4 warps and on 8 (where the layout holds each `a` tile
/// twice, so only each element's first owner copies it: guarded `cp.async`s): the simulator
/// gives the interpreter's bits, which are the documented `dot` order's, for 0, 1, 16, 40
/// and 96 iterations.
#[rstest::rstest]
fn rings_copied_by_cp_async_give_the_interpreters_bits(#[values(2, 3)] stages: i64, #[values(4, 8)] warps: u32) {
    let (bm, bn, bk) = (64usize, 64usize, 32usize);
    let constexprs = [("BM", bm as i64), ("BN", bn as i64), ("BK", bk as i64), ("STAGES", stages)];
    let args = [
        rtriton::spec::ArgValue::Ptr(0x7f00_0000_0000),
        rtriton::spec::ArgValue::Ptr(0x7f10_0000_0000),
        rtriton::spec::ArgValue::Ptr(0x7f20_0000_0000),
        rtriton::spec::ArgValue::Int(64),
    ];
    let options = ptx_common::options(rtriton::backend::ptx::Arch::Sm86, warps);
    let text = ptx_common::compile_def(&ring_tiles(), &constexprs, &args, SpecPolicy::Triton, &options)
        .unwrap_or_else(|e| panic!("{e}"))
        .text;
    assert!(text.contains("cp.async.cg.shared.global"), "the rings copy with cp.async\n{text}");
    if warps == 8 {
        assert!(text.lines().any(|l| l.trim_start().starts_with('@') && l.contains("cp.async.cg")), "{text}");
    }
    for k in [0usize, 1, 16, 40, 96] {
        let kp = k.max(1);
        let a: Vec<f16> = (0..bm * kp).map(|i| f16::from_f32(((i * 7 % 13) as f32 - 6.0) / 4.0)).collect();
        let b: Vec<f16> =
            (0..kp.next_multiple_of(bk) * bn).map(|i| f16::from_f32(((i * 5 % 11) as f32 - 5.0) / 8.0)).collect();
        let mut c = Case::new("ring_tiles").grid([1, 1, 1]).num_warps(warps);
        c.constexprs = constexprs.to_vec();
        let c = c
            .input("a", Data::F16(a.clone()), View::contiguous(&[a.len()]))
            .input("b", Data::F16(b.clone()), View::contiguous(&[b.len()]))
            .output("c", Data::F32(vec![0.0; bm * bn]), View::contiguous(&[bm * bn]))
            .int(k as i64);
        let want = run_interpreter(&ring_tiles(), &c, SpecPolicy::Triton).unwrap_or_else(|e| panic!("k {k}: {e}"));
        let out = &want.buffers[0].1;
        for i in 0..bm {
            for j in 0..bn {
                let s = (0..k).fold(0f32, |s, kk| a[i * k + kk].to_f32().mul_add(b[kk * bn + j].to_f32(), s));
                assert_eq!(out.f64_at(i * bn + j).unwrap() as f32, s, "k {k} at ({i}, {j})");
            }
        }
        let got = run_simulator(&ring_tiles(), &c, SpecPolicy::Triton).unwrap_or_else(|e| panic!("k {k}: {e}"));
        assert_eq!(got.buffers[0].1.to_le_bytes(), out.to_le_bytes(), "k {k}, {warps} warps, {stages} stages");
    }
}
