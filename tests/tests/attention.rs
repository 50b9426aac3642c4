//! Chained tensor-core products: the forward core of Triton's fused attention (tutorial
//! 06, `_attn_fwd_inner`: online softmax in base 2, `K` read transposed, `P = softmax(Q
//! K^T)` feeding `P V`). What it checks of the back end:
//! - the results on the interpreter and the simulator against an f64 reference, within
//!   the tolerance stated at [`within`];
//! - the layouts: both products put every warp along M (Triton's rule for chained dots),
//!   the row statistics (`m_i`, `l_i`, `alpha`) stay in the accumulator's layout, `P`
//!   feeds the second product from registers, `K^T` is read from `K`'s tile without a
//!   copy and `Q`'s fragments are read once before the loop, so the loop converts and
//!   stages nothing;
//! - ptxas assembles the tutorial's tiles without spills.

mod ptx_common;

use half::f16;
use rstest::rstest;
use rtriton::backend::ptx::{Arch, DotOperandSource};
use rtriton::kernel;
use rtriton::prelude::*;
use rtriton::session::CompileSession;
use rtriton::spec::{ArgValue, SpecPolicy};
use rtriton::trace::TraceOptions;
use rtriton_testing::run::{run_interpreter, run_simulator};
use rtriton_testing::{Case, Data, View};

kernel! {
    /// One `BLOCK_M` block of query rows of one head: `o = softmax(q k^T sm_scale) v`,
    /// `q`, `k`, `v`, `o` contiguous `[heads, n_ctx, HEAD_DIM]`; `CAUSAL` masks keys past
    /// the query (`n_ctx` a multiple of the blocks).
    fn attn_fwd(q_ptr: Ptr<f16>, k_ptr: Ptr<f16>, v_ptr: Ptr<f16>, o_ptr: Ptr<f16>, n_ctx: i32, sm_scale: f32;
                const BLOCK_M: usize, const BLOCK_N: usize, const HEAD_DIM: usize, const STAGES: usize,
                const CAUSAL: usize) {
        let start_m = program_id(0);
        let head = program_id(1);
        let base = (head * n_ctx).to::<i64>() * HEAD_DIM as i64;
        let offs_m = start_m * BLOCK_M as i32 + arange(0, BLOCK_M);
        let offs_n = arange(0, BLOCK_N);
        let offs_d = arange(0, HEAD_DIM);
        let tile = |rows: Tensor<i32>| rows.expand_dims(1) * HEAD_DIM as i32 + offs_d.expand_dims(0);
        let q = load(q_ptr + base + tile(offs_m), None, None);
        let qk_scale = sm_scale * std::f32::consts::LOG2_E;
        let m_i = full::<f32>(&[BLOCK_M], f32::NEG_INFINITY);
        let l_i = full::<f32>(&[BLOCK_M], 1.0);
        let acc = zeros::<f32>(&[BLOCK_M, HEAD_DIM]);
        let hi = if CAUSAL == 1 { minimum((start_m + 1) * BLOCK_M as i32, n_ctx) } else { n_ctx };
        let (acc, l_i, _) = for_range_staged(0, hi, BLOCK_N as i32, STAGES, (acc, l_i, m_i), |start_n, (acc, l_i, m_i)| {
            let k = load(k_ptr + base + tile(start_n + offs_n), None, None);
            let qk = dot(q, trans(k), zeros::<f32>(&[BLOCK_M, BLOCK_N]));
            let qk = if CAUSAL == 1 {
                let keep = offs_m.expand_dims(1).ge((start_n + offs_n).expand_dims(0));
                qk + where_(keep, full::<f32>(&[BLOCK_M, BLOCK_N], 0.0), -1.0e6f32)
            } else {
                qk
            };
            let m_ij = maximum(m_i, max(qk, 1) * qk_scale);
            let p = exp2(qk * qk_scale - m_ij.expand_dims(1));
            let alpha = exp2(m_i - m_ij);
            let l_ij = sum(p, 1);
            let acc = acc * alpha.expand_dims(1);
            let v = load(v_ptr + base + tile(start_n + offs_n), None, None);
            let acc = dot(p.to::<f16>(), v, acc);
            (acc, l_i * alpha + l_ij, m_ij)
        });
        let o = acc / l_i.expand_dims(1);
        store(o_ptr + base + tile(offs_m), o.to::<f16>(), None);
    }
}

/// Values in [-1, 1) from a fixed sequence.
fn values(seed: u64, len: usize) -> Vec<f16> {
    let mut x = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    (0..len)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            f16::from_f64((x >> 11) as f64 / (1u64 << 53) as f64 * 2.0 - 1.0)
        })
        .collect()
}

struct Shape {
    heads: usize,
    n_ctx: usize,
    d: usize,
}

fn case(s: &Shape, [bm, bn, stages]: [usize; 3], num_warps: u32, causal: bool, sm_scale: f32) -> Case {
    let len = s.heads * s.n_ctx * s.d;
    let view = View::contiguous(&[len]);
    Case::new("attn_fwd")
        .grid([(s.n_ctx / bm) as u32, s.heads as u32, 1])
        .num_warps(num_warps)
        .input("q", Data::F16(values(1, len)), view.clone())
        .input("k", Data::F16(values(2, len)), view.clone())
        .input("v", Data::F16(values(3, len)), view.clone())
        .output("o", Data::F16(vec![f16::ZERO; len]), view)
        .arg("n_ctx", s.n_ctx as i32)
        .arg("sm_scale", sm_scale)
        .constexpr("BLOCK_M", bm as i64)
        .constexpr("BLOCK_N", bn as i64)
        .constexpr("HEAD_DIM", s.d as i64)
        .constexpr("STAGES", stages as i64)
        .constexpr("CAUSAL", i64::from(causal))
}

/// `softmax(q k^T sm_scale) v` in f64 from the f16 inputs, row by row.
fn reference(c: &Case, s: &Shape, causal: bool, sm_scale: f64) -> Vec<f64> {
    let [q, k, v] = ["q", "k", "v"].map(|n| c.tensor(n).data.clone());
    let at = |d: &Data, i: usize| d.f64_at(i).expect("an f16 element");
    let mut out = vec![0.0; s.heads * s.n_ctx * s.d];
    for h in 0..s.heads {
        let row = |r: usize| (h * s.n_ctx + r) * s.d;
        for i in 0..s.n_ctx {
            let keys = if causal { i + 1 } else { s.n_ctx };
            let scores: Vec<f64> = (0..keys)
                .map(|j| (0..s.d).map(|x| at(&q, row(i) + x) * at(&k, row(j) + x)).sum::<f64>() * sm_scale)
                .collect();
            let top = scores.iter().copied().fold(f64::NEG_INFINITY, f64::max);
            let p: Vec<f64> = scores.iter().map(|x| (x - top).exp()).collect();
            let total: f64 = p.iter().sum();
            for x in 0..s.d {
                out[row(i) + x] = (0..keys).map(|j| p[j] * at(&v, row(j) + x)).sum::<f64>() / total;
            }
        }
    }
    out
}

/// The tolerance: `P` is rounded to f16 before `P V` (relative 2^-11 each, and the
/// weights sum to 1, so at most 2^-11 max|v| in all) while `l_i` sums the unrounded `P`
/// (another 2^-11 relative), `exp2` is `ex2.approx` (2 ulp of f32), the tensor cores and
/// the row sums add in their own order (f32), and `o` rounds once to f16 (2^-11
/// relative): `|got - want| <= 2^-9 max|v| + 2^-10 |want|` covers them with room to spare
/// (`max|v| <= 1` here).
fn within(got: &Data, want: &[f64], what: &str) {
    for (i, w) in want.iter().enumerate() {
        let g = got.f64_at(i).expect("an f16 element");
        assert!((g - w).abs() <= 2f64.powi(-9) + 2f64.powi(-10) * w.abs(), "{what}: o[{i}] = {g}, want {w}");
    }
}

#[rstest]
#[case::small_tiles_unpipelined([64, 32, 1], 4, false)]
#[case::two_stages([64, 64, 2], 4, false)]
#[case::causal_two_stages([64, 32, 2], 4, true)]
#[case::eight_warps_three_stages([128, 64, 3], 8, false)]
fn the_forward_core_matches_the_reference(#[case] tiles: [usize; 3], #[case] num_warps: u32, #[case] causal: bool) {
    let s = Shape { heads: 2, n_ctx: 128, d: 64 };
    let sm_scale = 0.125f32;
    let c = case(&s, tiles, num_warps, causal, sm_scale);
    let want = reference(&c, &s, causal, f64::from(sm_scale));
    let interp = run_interpreter(&attn_fwd(), &c, SpecPolicy::Triton).unwrap_or_else(|e| panic!("{e}"));
    within(&interp.buffers[0].1, &want, "interpreter");
    let sim = run_simulator(&attn_fwd(), &c, SpecPolicy::Triton).unwrap_or_else(|e| panic!("{e}"));
    within(&sim.buffers[0].1, &want, "simulator");
}

/// The layouts text of the tutorial's tile (128 x 64, head dim 64, 4 warps, 2 stages).
fn layouts(num_warps: u32) -> String {
    let c = [("BLOCK_M", 128), ("BLOCK_N", 64), ("HEAD_DIM", 64), ("STAGES", 2), ("CAUSAL", 0)];
    let def = attn_fwd();
    let spec = rtriton::spec::SpecKey::plain(&def.params);
    let v = CompileSession::new().front_end(&def, &c, &spec, &TraceOptions::default()).expect("traces");
    rtriton::backend::ptx::layouts_text(&v, &ptx_common::options(Arch::Sm90, num_warps)).expect("lowers")
}

#[test]
fn the_chained_products_convert_nothing_in_the_loop() {
    let text = layouts(4);
    assert!(text.contains("#mma = blocked{spt=[1, 2], tpw=[8, 4], wpc=[4, 1], order=[1, 0]}"), "{text}");
    let body: Vec<&str> =
        text.lines().skip_while(|l| !l.contains(" = for ")).take_while(|l| !l.starts_with("  }")).collect();
    assert!(body.len() > 20, "{text}");
    // The loop's conversions are the products' operands, none through shared memory:
    // `K^T` and `V` from their ring slots, `P` from the first product's registers. `Q`'s
    // goes before the loop.
    let converted: Vec<&&str> = body.iter().filter(|l| l.contains("convert_layout")).collect();
    let moves: Vec<&&&str> = converted.iter().filter(|l| !l.contains("-> #dot_op") || l.contains("staged")).collect();
    assert!(moves.is_empty(), "the loop converts {moves:#?}");
    assert_eq!(converted.len(), 3, "{converted:#?}");
    assert!(
        converted.iter().any(|l| l.contains("#mma -> #dot_op<opIdx=0") && l.contains("registers repacked")),
        "{converted:#?}"
    );
    let before: Vec<&str> = text.lines().take_while(|l| !l.contains(" = for ")).collect();
    assert!(before.iter().any(|l| l.contains("-> #dot_op<opIdx=0") && l.contains("once, before the loop")), "{text}");
    assert!(body.iter().any(|l| l.contains("permute") && l.contains("no copy")), "{text}");
    assert!(body.iter().any(|l| l.contains("expand_dims") && l.contains("tensor<128x1xf32> #mma")), "{text}");
}

/// How each operand of the two products reaches the tensor cores (`Decisions::dot_operands`,
/// what `explain` prints): `Q`'s fragments read once before the loop, `K` and `V` from their
/// rings' slots (through descriptors for `wgmma`), and `P` from its registers: the
/// accumulator-to-operand conversion moves nothing through shared memory.
#[rstest]
#[case::mma_sync(Arch::Sm90, [DotOperandSource::Hoisted, DotOperandSource::RingSlot, DotOperandSource::Registers, DotOperandSource::RingSlot])]
#[case::wgmma(Arch::Sm90a, [DotOperandSource::Hoisted, DotOperandSource::Descriptor, DotOperandSource::Registers, DotOperandSource::Descriptor])]
fn p_reaches_the_second_product_from_its_registers(#[case] arch: Arch, #[case] want: [DotOperandSource; 4]) {
    let c = [("BLOCK_M", 128), ("BLOCK_N", 64), ("HEAD_DIM", 64), ("STAGES", 2), ("CAUSAL", 0)];
    let p = |i: u64| ArgValue::Ptr(0x7f00_0000_0000 + (i << 24));
    let args = [p(0), p(1), p(2), p(3), ArgValue::Int(4096), ArgValue::F32(0.125)];
    let warps = if arch == Arch::Sm90a { 8 } else { 4 };
    let ptx = ptx_common::compile_def(&attn_fwd(), &c, &args, SpecPolicy::Triton, &ptx_common::options(arch, warps))
        .expect("compiles");
    let got: Vec<(&str, DotOperandSource)> = ptx.decisions.dot_operands.iter().map(|d| (d.operand, d.source)).collect();
    assert_eq!(
        got,
        [("a", want[0]), ("b", want[1]), ("a", want[2]), ("b", want[3])],
        "{:#?}",
        ptx.decisions.dot_operands
    );
}

#[test]
fn the_loop_reads_k_and_v_fragments_and_nothing_else_from_shared_memory() {
    let c = [("BLOCK_M", 128), ("BLOCK_N", 64), ("HEAD_DIM", 64), ("STAGES", 2), ("CAUSAL", 0)];
    // A launch's arguments: 16-byte aligned tensors and a sequence length that is a
    // multiple of 16, so the tiles copy as 16-byte vectors.
    let p = |i: u64| ArgValue::Ptr(0x7f00_0000_0000 + (i << 24));
    let args = [p(0), p(1), p(2), p(3), ArgValue::Int(4096), ArgValue::F32(0.125)];
    let ptx = ptx_common::compile_def(&attn_fwd(), &c, &args, SpecPolicy::Triton, &ptx_common::options(Arch::Sm90, 4))
        .expect("compiles");
    let body: Vec<&str> = ptx
        .text
        .lines()
        .skip_while(|l| !l.starts_with("LOOP0_HEAD"))
        .take_while(|l| !l.starts_with("LOOP0_END"))
        .collect();
    let count = |what: &str| body.iter().filter(|l| l.trim_start().starts_with(what)).count();
    // Q K^T: 128 x 64 x 64 on 4 warps along M, 32 rows a warp: 2 x 8 tiles x 4 k-steps;
    // P V the same.
    assert_eq!(count("mma.sync"), 2 * 2 * 8 * 4);
    // K's fragments without `.trans` (its rows are K^T's columns), V's with it; Q's are
    // read once before the loop and P's come from registers: the loop stages nothing.
    assert_eq!(count("ldmatrix.sync.aligned.m8n8.x4.trans"), 4 * 4, "V: 4 k-steps x 4 pairs of columns");
    assert_eq!(count("ldmatrix.sync.aligned.m8n8.x4.shared"), 4 * 4, "K: 4 k-steps x 4 pairs of columns");
    assert_eq!(count("ld.shared") + count("st.shared"), 0);
    let before: Vec<&str> = ptx.text.lines().take_while(|l| !l.starts_with("LOOP0_HEAD")).collect();
    let q = before.iter().filter(|l| l.trim_start().starts_with("ldmatrix.sync.aligned.m8n8.x4.shared")).count();
    assert_eq!(q, 4 * 2, "Q: 4 k-steps x 2 tiles, before the loop");
}

#[cfg_attr(not(has_ptxas), ignore = "needs ptxas on PATH")]
#[rstest]
#[case::tutorial_d64([128, 64, 64, 2], 4)]
#[case::tutorial_d128([128, 64, 128, 2], 8)]
fn ptxas_assembles_the_tutorial_tiles_without_spills(#[case] tiles: [usize; 4], #[case] num_warps: u32) {
    let [bm, bn, d, stages] = tiles;
    let c = [
        ("BLOCK_M", bm as i64),
        ("BLOCK_N", bn as i64),
        ("HEAD_DIM", d as i64),
        ("STAGES", stages as i64),
        ("CAUSAL", 1),
    ];
    let ptx =
        ptx_common::compile_plain(&attn_fwd(), &c, &ptx_common::options(Arch::Sm90, num_warps)).expect("compiles");
    let ptxas = ptx_common::ptxas("attention");
    ptx_common::assembles_without_spills(&ptxas, &ptx.text, Arch::Sm90, "attn_fwd").unwrap_or_else(|e| panic!("{e}"));
}
