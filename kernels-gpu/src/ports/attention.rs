//! Fused attention, forward. After Triton's tutorial `python/tutorials/06-fused-attention.py`,
//! `_attn_fwd` and `_attn_fwd_inner`: for one `BLOCK_M` block of query rows of one
//! (batch, head), `o = softmax(q k^T sm_scale) v` with the online softmax in base 2 (the
//! running row maximum `m_i` and sum `l_i`, the accumulator rescaled by `alpha = 2^(m_i -
//! m_ij)`), `k` read transposed, both products on tensor cores in `f32`, and the
//! log-sum-exp `m_i + log2(l_i)` (base 2) stored for the backward.
//!
//! One body, [`attention`], serves both dtypes (`attn_fwd_f16`, `attn_fwd_bf16`).
//!
//! Differences from the tutorial (`docs/ports.md`, "Fused attention"): tensors are
//! `[Z, H, N_CTX, HEAD_DIM]` with any strides for the first three dims and a contiguous
//! last dim (the tutorial builds tensor descriptors with the same requirement); sequence
//! lengths need not be a multiple of the blocks: rows and keys past `N_CTX` load 0 and a
//! key past `N_CTX` gets the score `-inf`, in the loop's last block only; `CAUSAL` is a
//! constexpr integer; `WINDOW` (with `CAUSAL`) restricts each row to the `WINDOW` keys
//! ending at its own (sliding-window, local attention: the variant the language is shown
//! to be enough for), all its blocks masked. As in the tutorial, a causal program runs the key blocks left of its
//! diagonal block without a mask and the diagonal block with one; a non-causal program
//! runs the full key blocks without a mask. Offsets into the tensors are `i64`.

use half::{bf16, f16};
use rtriton::kernel;
use rtriton::prelude::*;

/// The launch arguments of every `attn_fwd_*`: the tensors, their strides (batch, head,
/// row; the last dim is contiguous) and the sizes.
#[derive(Clone, Copy, Debug)]
pub struct Args<T> {
    pub q: Tensor<Ptr<T>>,
    pub k: Tensor<Ptr<T>>,
    pub v: Tensor<Ptr<T>>,
    pub o: Tensor<Ptr<T>>,
    /// `[Z, H, N_CTX]` `f32`, contiguous: the log-sum-exp of each row's scores times
    /// `sm_scale`, in base 2.
    pub lse: Tensor<Ptr<f32>>,
    /// The scores' scale, positive (as in the tutorial, the row maximum is taken before
    /// scaling).
    pub sm_scale: Tensor<f32>,
    /// `[q, k, v, o]`, each `(batch, head, row)`.
    pub strides: [[Tensor<i32>; 3]; 4],
    pub heads: Tensor<i32>,
    pub n_ctx: Tensor<i32>,
}

/// The compile-time parameters.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Meta {
    pub block_m: usize,
    pub block_n: usize,
    pub head_dim: usize,
    /// `num_stages` of the key loops (`for_range_staged`).
    pub num_stages: usize,
    pub causal: bool,
    /// A sliding window (local attention, with `causal`): row `i` sees keys `i - window +
    /// 1 ..= i`; 0 for none.
    pub window: usize,
}

/// The loop-carried state: the online softmax's accumulator, `l_i` and `m_i`, and the
/// block pointers of the next `K` and `V` blocks.
type State<T> = ((Tensor<f32>, Tensor<f32>, Tensor<f32>), (BlockPtr<T>, BlockPtr<T>));

/// The body of every `attn_fwd_*`: the tutorial's `_attn_fwd` line by line.
pub fn attention<T: ScalarMarker>(a: Args<T>, meta: Meta) {
    let Meta { block_m, block_n, head_dim, num_stages, causal, window } = meta;
    let start_m = program_id(0);
    let off_hz = program_id(1);
    let (off_z, off_h) = (off_hz / a.heads, off_hz % a.heads);
    let base = |[sz, sh, _]: [Tensor<i32>; 3]| off_z.to::<i64>() * sz + off_h.to::<i64>() * sh;
    let offs_m = start_m * block_m as i32 + arange(0, block_m);
    let offs_n = arange(0, block_n);
    // As the tutorial's block-pointer form: each tensor of this (batch, head) is an
    // `[N_CTX, HEAD_DIM]` matrix with a contiguous last dim; rows past `N_CTX` are
    // boundary-checked (zeros in, nothing out).
    let head = |ptr: Tensor<Ptr<T>>, s: [Tensor<i32>; 3], row: Tensor<i32>, rows: usize| {
        make_block_ptr(ptr + base(s), (a.n_ctx, head_dim as i32), (s[2], 1), (row, 0), &[rows, head_dim], &[1, 0])
    };
    let [sq, sk, sv, so] = a.strides;
    let q = load_block(&head(a.q, sq, start_m * block_m as i32, block_m), &[0], Padding::Zero);
    // `exp(x sm_scale) = 2^(x sm_scale log2(e))`.
    let qk_scale = a.sm_scale * std::f32::consts::LOG2_E;

    // One key block: the scores (masked where `mask` says), the online softmax's update of
    // `m_i`, `l_i` and the accumulator, and `P V`.
    let step = |start_n: Tensor<i32>, ((acc, l_i, m_i), (k_blk, v_blk)): State<T>, masked: bool| -> State<T> {
        let keys = start_n + offs_n;
        // Only the masked blocks can hold keys past `N_CTX`.
        let check: &[usize] = if masked { &[0] } else { &[] };
        let k = load_block(&k_blk, check, Padding::Zero);
        let qk = dot(q, trans(k), zeros::<f32>(&[block_m, block_n]));
        let qk = if masked {
            let mut keep = keys.lt(a.n_ctx).expand_dims(0).broadcast_to(&[block_m, block_n]);
            if causal {
                keep = keep & offs_m.expand_dims(1).ge(keys.expand_dims(0));
            }
            if window > 0 {
                keep = keep & (offs_m.expand_dims(1) - keys.expand_dims(0)).lt(window as i32);
            }
            where_(keep, qk, f32::NEG_INFINITY)
        } else {
            qk
        };
        // As the tutorial: the row maximum scaled once (scaling by `qk_scale > 0` keeps the
        // maximum), and `qk qk_scale - m_ij` one `fma` per score.
        let m_ij = maximum(m_i, max(qk, 1) * qk_scale);
        // A row whose keys so far are all masked (a window's first block) has `m_ij =
        // -inf`: subtract 0 instead, so its `p` and `alpha` are 0, not `-inf - -inf`.
        let m_sub = if masked { where_(m_ij.ne(f32::NEG_INFINITY), m_ij, 0.0f32) } else { m_ij };
        // `exp2_ftz`, as the tutorial's compiled code (Triton's `exp2` on f32 is libdevice's
        // under its flush-to-zero reflection, `ex2.approx.ftz.f32`): one SASS instruction
        // where `exp2` is four. Both powers are at most 1, and one below 2^-126 is lost
        // either way: `p` rounds to the input dtype or adds to a row sum of at least 1,
        // `alpha` scales contributions 2^126 times smaller than the new maximum's.
        let p = exp2_ftz(fma(qk, qk_scale, -m_sub.expand_dims(1)));
        let alpha = exp2_ftz(m_i - m_sub);
        let l_ij = sum(p, 1);
        let acc = acc * alpha.expand_dims(1);
        let v = load_block(&v_blk, check, Padding::Zero);
        let acc = dot(p.to::<T>(), v, acc);
        let next = [block_n as i32, 0];
        ((acc, l_i * alpha + l_ij, m_ij), (k_blk.advance(next), v_blk.advance(next)))
    };
    // Key blocks without a mask: left of the diagonal block (causal), or every full block;
    // none with a window, whose blocks all run masked from the first one a row sees.
    let (bm, bn) = (block_m as i32, block_n as i32);
    let begin = if window > 0 { maximum(start_m * bm - window as i32 + 1, 0) / bn * bn } else { full::<i32>(&[], 0) };
    let state: State<T> = (
        (zeros::<f32>(&[block_m, head_dim]), full::<f32>(&[block_m], 1.0), full::<f32>(&[block_m], f32::NEG_INFINITY)),
        (head(a.k, sk, begin, block_n), head(a.v, sv, begin, block_n)),
    );
    let unmasked_end = match (window > 0, causal) {
        (true, _) => begin,
        (false, true) => start_m * bm,
        (false, false) => a.n_ctx / bn * bn,
    };
    let state = for_range_staged(begin, unmasked_end, bn, num_stages, state, |start_n, s| step(start_n, s, false));
    // The rest, masked: the diagonal block (causal, `BLOCK_M == BLOCK_N`), or the partial
    // last block.
    let masked_end = if causal { minimum((start_m + 1) * bm, a.n_ctx) } else { a.n_ctx };
    let ((acc, l_i, m_i), _) =
        for_range_staged(unmasked_end, masked_end, block_n as i32, num_stages, state, |start_n, s| {
            step(start_n, s, true)
        });

    let lse_ptrs = a.lse + off_hz.to::<i64>() * a.n_ctx + offs_m;
    store(lse_ptrs, m_i + log2(l_i), Some(offs_m.lt(a.n_ctx)));
    let o = acc / l_i.expand_dims(1);
    store_block(&head(a.o, so, start_m * block_m as i32, block_m), o.to::<T>(), &[0]);
}

/// One `kernel!` per dtype: `name => element type`.
macro_rules! attention_kernels {
    ($($(#[$doc:meta])* $name:ident => $t:ty;)*) => {
        $(
            kernel! {
                $(#[$doc])*
                pub fn $name(q_ptr: Ptr<$t>, k_ptr: Ptr<$t>, v_ptr: Ptr<$t>, o_ptr: Ptr<$t>, lse_ptr: Ptr<f32>,
                             sm_scale: f32,
                             stride_qz: i32, stride_qh: i32, stride_qm: i32,
                             stride_kz: i32, stride_kh: i32, stride_kn: i32,
                             stride_vz: i32, stride_vh: i32, stride_vn: i32,
                             stride_oz: i32, stride_oh: i32, stride_om: i32,
                             H: i32, N_CTX: i32;
                             const BLOCK_M: usize, const BLOCK_N: usize, const HEAD_DIM: usize,
                             const NUM_STAGES: usize, const CAUSAL: usize, const WINDOW: usize) {
                    let args = Args {
                        q: q_ptr, k: k_ptr, v: v_ptr, o: o_ptr, lse: lse_ptr, sm_scale,
                        strides: [[stride_qz, stride_qh, stride_qm], [stride_kz, stride_kh, stride_kn],
                                  [stride_vz, stride_vh, stride_vn], [stride_oz, stride_oh, stride_om]],
                        heads: H, n_ctx: N_CTX,
                    };
                    let meta = Meta { block_m: BLOCK_M, block_n: BLOCK_N, head_dim: HEAD_DIM,
                                      num_stages: NUM_STAGES, causal: CAUSAL == 1, window: WINDOW };
                    attention::<$t>(args, meta);
                }
            }
        )*
    };
}

attention_kernels! {
    /// [`attention`] of `f16` tensors.
    attn_fwd_f16 => f16;
    /// [`attention`] of `bf16` tensors.
    attn_fwd_bf16 => bf16;
}

/// One configuration: the tutorial's `triton.Config` fields of `_attn_fwd`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Config {
    pub block_m: usize,
    pub block_n: usize,
    pub num_stages: u32,
    pub num_warps: u32,
}

impl Config {
    /// The constexprs of a launch of this configuration.
    /// `window`: a sliding window of that many keys (with `causal`), 0 for none.
    pub fn constexprs(self, head_dim: usize, causal: bool, window: usize) -> Vec<(&'static str, i64)> {
        vec![
            ("BLOCK_M", self.block_m as i64),
            ("BLOCK_N", self.block_n as i64),
            ("HEAD_DIM", head_dim as i64),
            ("NUM_STAGES", i64::from(self.num_stages)),
            ("CAUSAL", i64::from(causal)),
            ("WINDOW", window as i64),
        ]
    }

    /// The grid: one program per `BLOCK_M` rows of each (batch, head).
    pub fn grid(self, z: usize, h: usize, n_ctx: usize) -> [u32; 3] {
        [n_ctx.div_ceil(self.block_m) as u32, (z * h) as u32, 1]
    }
}

/// The configuration the port launches: the tutorial's tile (128 query rows, 64 keys a
/// step), 8 warps (16 rows each: on 4, head dim 64 in bf16 spills 80 bytes on sm_86), 3
/// stages. A causal launch needs `BLOCK_M` a multiple of `BLOCK_N` (the diagonal block is
/// one masked block of keys per `BLOCK_N`).
pub fn plan(_head_dim: usize) -> Config {
    Config { block_m: 128, block_n: 64, num_stages: 3, num_warps: 8 }
}

/// Triton tutorial 06's configurations for `_attn_fwd` (`BLOCK_M` in 64, 128; `BLOCK_N`
/// in 32, 64, 128; `num_stages` in 2, 3, 4; `num_warps` in 4, 8), in its order.
pub fn tutorial_configs() -> Vec<Config> {
    let mut out = Vec::new();
    for block_m in [64, 128] {
        for block_n in [32, 64, 128] {
            for num_stages in [2, 3, 4] {
                for num_warps in [4, 8] {
                    out.push(Config { block_m, block_n, num_stages, num_warps });
                }
            }
        }
    }
    out
}

/// What autotuning tries for a launch on `arch`: [`tutorial_configs`] with the tutorial's
/// own prunes, `keep` (on compute capability 9.0, which an sm_90a launch has, no tile of
/// fewer than 128 x 128 on 8 warps) and `prune_invalid_configs` (causal: `BLOCK_M >=
/// BLOCK_N`, which the causal diagonal block needs here too). A configuration whose compile
/// spills on the device is skipped by the autotuner when it is tried (`RT0719`), as Triton
/// skips one that runs out of resources.
pub fn autotune_configs(causal: bool, arch: rtriton::backend::ptx::Arch) -> Vec<Config> {
    let hopper = arch == rtriton::backend::ptx::Arch::Sm90a;
    tutorial_configs()
        .into_iter()
        .filter(|c| !(hopper && c.block_m * c.block_n < 128 * 128 && c.num_warps == 8))
        .filter(|c| !causal || c.block_m >= c.block_n)
        .collect()
}

/// The configuration for `arch`: [`plan`]'s, but on sm_90a (`wgmma`) head dim 64 takes 128
/// keys a step with 2 stages: `Q K^T` is one `m64n128k16` a warpgroup and k-step, where 64
/// keys leave the tensor cores waiting on the step's barrier (measured on an H100, f16
/// 4x32x4096x64: 270.6 TFLOPS with 64 keys and 3 stages, 330.1 with 128 and 2; 248
/// registers, no spills). Head dim 128 keeps 64 keys (128 spills).
pub fn plan_for(head_dim: usize, arch: rtriton::backend::ptx::Arch) -> Config {
    if arch == rtriton::backend::ptx::Arch::Sm90a && head_dim <= 64 {
        Config { block_m: 128, block_n: 128, num_stages: 2, num_warps: 8 }
    } else {
        plan(head_dim)
    }
}
