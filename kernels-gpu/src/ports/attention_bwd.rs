//! Fused attention, backward. After Triton's tutorial `python/tutorials/06-fused-attention.py`,
//! `_attn_bwd_preprocess`, `_attn_bwd_dkdv` and `_attn_bwd_dq`: with `S = q k^T sm_scale`,
//! `P = softmax(S)` recomputed from the forward's base-2 log-sum-exp (`P = 2^(S log2(e) -
//! lse)`), and `delta = rowsum(o * do)`:
//! - `dv = P^T do`, `dk = sm_scale dS^T q` per block of keys, looping over the query
//!   blocks (`attn_bwd_dkdv_*`);
//! - `dq = sm_scale dS k` per block of queries, looping over the key blocks
//!   (`attn_bwd_dq_*`);
//!
//! where `dS = P * (dP - delta[:, None])` and `dP = do v^T`. Every product runs on tensor
//! cores in `f32`: `P^T` and `dS^T` come from the accumulator of `k q^T` (the tutorial's
//! `qkT`), in registers; `q^T`, `k^T`, `v^T` and `do^T` are the tiles read transposed.
//!
//! Differences from the tutorial (`docs/ports.md`, "Fused attention, backward"): the
//! tutorial runs `dkdv` and `dq` as two phases of one kernel (`_attn_bwd`); here they are
//! two kernels, each one loop; the scale is applied to the scores (as in the forward),
//! not folded into `k` beforehand; sequence lengths need not be multiples of the blocks
//! (rows past `N_CTX` load 0, their log-sum-exp `+inf` so their `P` is 0, keys past it are
//! masked); tensors are `[Z, H, N_CTX, HEAD_DIM]` with any batch/head/row strides, the
//! same for every tensor (`q`, `k`, `v`, `o`, `do` and the gradients share one layout).

use half::{bf16, f16};
use rtriton::kernel;
use rtriton::prelude::*;

/// Where one (batch, head) of a `[Z, H, N_CTX, HEAD_DIM]` tensor starts and how its rows
/// go: the strides (batch, head, row) and the program's (batch, head).
#[derive(Clone, Copy, Debug)]
pub struct Heads {
    pub strides: [Tensor<i32>; 3],
    pub heads: Tensor<i32>,
    pub n_ctx: Tensor<i32>,
}

impl Heads {
    /// The offset of (batch, head) `off_hz` (`z * H + h`).
    fn base(self, off_hz: Tensor<i32>) -> Tensor<i64> {
        let [sz, sh, _] = self.strides;
        (off_hz / self.heads).to::<i64>() * sz + (off_hz % self.heads).to::<i64>() * sh
    }

    /// The `[rows, d]` tile's pointers at `rows` of the head at `base`.
    fn tile<T: ScalarMarker>(
        self,
        ptr: Tensor<Ptr<T>>,
        base: Tensor<i64>,
        rows: Tensor<i32>,
        d: usize,
    ) -> Tensor<Ptr<T>> {
        ptr + base + ((rows.to::<i64>() * self.strides[2]).expand_dims(1) + arange(0, d).to::<i64>().expand_dims(0))
    }
}

/// `delta = rowsum(o * do)` (`f32`, `[Z, H, N_CTX]` contiguous), one `block_m` block of
/// rows of one (batch, head) per program.
pub fn preprocess<T: ScalarMarker>(
    [o, d_o]: [Tensor<Ptr<T>>; 2],
    delta: Tensor<Ptr<f32>>,
    at: Heads,
    [block_m, head_dim]: [usize; 2],
    zero: T::Native,
) {
    let off_hz = program_id(1);
    let rows = program_id(0) * block_m as i32 + arange(0, block_m);
    let base = at.base(off_hz);
    let ok = rows.lt(at.n_ctx);
    let o = load(at.tile(o, base, rows, head_dim), Some(ok.expand_dims(1)), Some(zero)).to::<f32>();
    let d_o = load(at.tile(d_o, base, rows, head_dim), Some(ok.expand_dims(1)), Some(zero)).to::<f32>();
    store(delta + off_hz.to::<i64>() * at.n_ctx + rows, sum(o * d_o, 1), Some(ok));
}

/// The operand tensors of the two gradient kernels.
#[derive(Clone, Copy, Debug)]
pub struct Operands<T> {
    pub q: Tensor<Ptr<T>>,
    pub k: Tensor<Ptr<T>>,
    pub v: Tensor<Ptr<T>>,
    pub d_o: Tensor<Ptr<T>>,
    /// The forward's base-2 log-sum-exp and `delta`, `[Z, H, N_CTX]` `f32`.
    pub lse: Tensor<Ptr<f32>>,
    pub delta: Tensor<Ptr<f32>>,
    pub sm_scale: Tensor<f32>,
}

/// The compile-time parameters of a gradient kernel: the block of rows a program owns,
/// the block its loop steps through, the head dim, stages, causal, and the forward's
/// sliding window (with `causal`: row `i` sees keys `i - window + 1 ..= i`; 0 for none).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Meta {
    pub block_own: usize,
    pub block_step: usize,
    pub head_dim: usize,
    pub num_stages: usize,
    pub causal: bool,
    pub window: usize,
}

/// `dk` and `dv` for one `block_own` block of keys of one (batch, head), looping over the
/// query blocks (from the diagonal on, when causal): the tutorial's `_attn_bwd_dkdv`.
pub fn dkdv<T: ScalarMarker>(a: Operands<T>, [dk, dv]: [Tensor<Ptr<T>>; 2], at: Heads, zero: T::Native, meta: Meta) {
    let Meta { block_own: bn, block_step: bm, head_dim, num_stages, causal, window } = meta;
    let off_hz = program_id(1);
    let start_n = program_id(0) * bn as i32;
    let base = at.base(off_hz);
    let row_base = off_hz.to::<i64>() * at.n_ctx;
    let offs_n = start_n + arange(0, bn);
    let key_ok = offs_n.lt(at.n_ctx).expand_dims(1);
    let k = load(at.tile(a.k, base, offs_n, head_dim), Some(key_ok), Some(zero));
    let v = load(at.tile(a.v, base, offs_n, head_dim), Some(key_ok), Some(zero));
    let qk_scale = a.sm_scale * std::f32::consts::LOG2_E;
    let start = if causal { start_n / bm as i32 * bm as i32 } else { full::<i32>(&[], 0) };
    // With a window, the last query that sees this block's last key is `window - 1` after it.
    let end = if window > 0 { minimum(start_n + (bn + window - 1) as i32, at.n_ctx) } else { at.n_ctx };
    let zeros_d = || zeros::<f32>(&[bn, head_dim]);
    let (d_k, d_v) =
        for_range_staged(start, end, bm as i32, num_stages, (zeros_d(), zeros_d()), |start_m, (d_k, d_v)| {
            let offs_m = start_m + arange(0, bm);
            let row_ok = offs_m.lt(at.n_ctx);
            let q = load(at.tile(a.q, base, offs_m, head_dim), Some(row_ok.expand_dims(1)), Some(zero));
            // Rows past the sequence: `lse = +inf`, so their `P` is 0.
            let m = load(a.lse + row_base + offs_m, Some(row_ok), Some(f32::INFINITY));
            // `qk qk_scale - m` one `fma` per score, as the tutorial's compiled code.
            let qk_t = dot(k, trans(q), zeros::<f32>(&[bn, bm]));
            // `exp2_ftz` as the forward (`attention.rs`): `P <= 1`, and a power below 2^-126
            // moves no gradient by more than that times a bounded factor.
            let p_t = exp2_ftz(fma(qk_t, qk_scale, -m.expand_dims(0)));
            let p_t = if causal {
                let mut keep = offs_m.expand_dims(0).ge(offs_n.expand_dims(1));
                if window > 0 {
                    keep = keep & (offs_m.expand_dims(0) - offs_n.expand_dims(1)).lt(window as i32);
                }
                where_(keep, p_t, 0.0f32)
            } else {
                p_t
            };
            let d_o = load(at.tile(a.d_o, base, offs_m, head_dim), Some(row_ok.expand_dims(1)), Some(zero));
            let d_v = dot(p_t.to::<T>(), d_o, d_v);
            let delta = load(a.delta + row_base + offs_m, Some(row_ok), Some(0.0f32));
            let dp_t = dot(v, trans(d_o), zeros::<f32>(&[bn, bm]));
            let ds_t = p_t * (dp_t - delta.expand_dims(0));
            let d_k = dot(ds_t.to::<T>(), q, d_k);
            (d_k, d_v)
        });
    store(at.tile(dv, base, offs_n, head_dim), d_v.to::<T>(), Some(key_ok));
    store(at.tile(dk, base, offs_n, head_dim), (d_k * a.sm_scale).to::<T>(), Some(key_ok));
}

/// `dq` for one `block_own` block of queries of one (batch, head), looping over the key
/// blocks (up to the diagonal, when causal): the tutorial's `_attn_bwd_dq`.
pub fn dq<T: ScalarMarker>(a: Operands<T>, dq: Tensor<Ptr<T>>, at: Heads, zero: T::Native, meta: Meta) {
    let Meta { block_own: bm, block_step: bn, head_dim, num_stages, causal, window } = meta;
    let off_hz = program_id(1);
    let start_m = program_id(0) * bm as i32;
    let base = at.base(off_hz);
    let row_base = off_hz.to::<i64>() * at.n_ctx;
    let offs_m = start_m + arange(0, bm);
    let row_ok = offs_m.lt(at.n_ctx);
    let q = load(at.tile(a.q, base, offs_m, head_dim), Some(row_ok.expand_dims(1)), Some(zero));
    let d_o = load(at.tile(a.d_o, base, offs_m, head_dim), Some(row_ok.expand_dims(1)), Some(zero));
    let m = load(a.lse + row_base + offs_m, Some(row_ok), Some(f32::INFINITY));
    let delta = load(a.delta + row_base + offs_m, Some(row_ok), Some(0.0f32));
    let qk_scale = a.sm_scale * std::f32::consts::LOG2_E;
    let end = if causal { minimum(start_m + bm as i32, at.n_ctx) } else { at.n_ctx };
    // With a window, the first key block holding a key the program's first row sees.
    let begin =
        if window > 0 { maximum(start_m - window as i32 + 1, 0) / bn as i32 * bn as i32 } else { full::<i32>(&[], 0) };
    let d_q = for_range_staged(begin, end, bn as i32, num_stages, zeros::<f32>(&[bm, head_dim]), |start_n, d_q| {
        let offs_n = start_n + arange(0, bn);
        let key_ok = offs_n.lt(at.n_ctx);
        let k = load(at.tile(a.k, base, offs_n, head_dim), Some(key_ok.expand_dims(1)), Some(zero));
        let v = load(at.tile(a.v, base, offs_n, head_dim), Some(key_ok.expand_dims(1)), Some(zero));
        let qk = dot(q, trans(k), zeros::<f32>(&[bm, bn]));
        let p = exp2_ftz(fma(qk, qk_scale, -m.expand_dims(1)));
        let mut keep = key_ok.expand_dims(0).broadcast_to(&[bm, bn]);
        if causal {
            keep = keep & offs_m.expand_dims(1).ge(offs_n.expand_dims(0));
        }
        if window > 0 {
            keep = keep & (offs_m.expand_dims(1) - offs_n.expand_dims(0)).lt(window as i32);
        }
        let p = where_(keep, p, 0.0f32);
        let dp = dot(d_o, trans(v), zeros::<f32>(&[bm, bn]));
        let ds = p * (dp - delta.expand_dims(1));
        dot(ds.to::<T>(), k, d_q)
    });
    store(at.tile(dq, base, offs_m, head_dim), (d_q * a.sm_scale).to::<T>(), Some(row_ok.expand_dims(1)));
}

/// The three `kernel!`s of one dtype: `preprocess, dkdv, dq => element type, zero`.
macro_rules! backward_kernels {
    ($($pre:ident, $dkdv:ident, $dq:ident => $t:ty, $zero:expr;)*) => {
        $(
            kernel! {
                /// [`preprocess`]: `delta = rowsum(o * do)`.
                pub fn $pre(o_ptr: Ptr<$t>, do_ptr: Ptr<$t>, delta_ptr: Ptr<f32>,
                            stride_z: i32, stride_h: i32, stride_m: i32, H: i32, N_CTX: i32;
                            const BLOCK_M: usize, const HEAD_DIM: usize) {
                    let at = Heads { strides: [stride_z, stride_h, stride_m], heads: H, n_ctx: N_CTX };
                    preprocess::<$t>([o_ptr, do_ptr], delta_ptr, at, [BLOCK_M, HEAD_DIM], $zero);
                }
            }
            kernel! {
                /// [`dkdv`]: `dk` and `dv` of one block of keys.
                pub fn $dkdv(q_ptr: Ptr<$t>, k_ptr: Ptr<$t>, v_ptr: Ptr<$t>, do_ptr: Ptr<$t>,
                             dk_ptr: Ptr<$t>, dv_ptr: Ptr<$t>, lse_ptr: Ptr<f32>, delta_ptr: Ptr<f32>,
                             sm_scale: f32, stride_z: i32, stride_h: i32, stride_m: i32, H: i32, N_CTX: i32;
                             const BLOCK_M1: usize, const BLOCK_N1: usize, const HEAD_DIM: usize,
                             const NUM_STAGES: usize, const CAUSAL: usize, const WINDOW: usize) {
                    let a = Operands { q: q_ptr, k: k_ptr, v: v_ptr, d_o: do_ptr, lse: lse_ptr, delta: delta_ptr, sm_scale };
                    let at = Heads { strides: [stride_z, stride_h, stride_m], heads: H, n_ctx: N_CTX };
                    let meta = Meta { block_own: BLOCK_N1, block_step: BLOCK_M1, head_dim: HEAD_DIM,
                                      num_stages: NUM_STAGES, causal: CAUSAL == 1, window: WINDOW };
                    dkdv::<$t>(a, [dk_ptr, dv_ptr], at, $zero, meta);
                }
            }
            kernel! {
                /// [`dq`]: `dq` of one block of queries.
                pub fn $dq(q_ptr: Ptr<$t>, k_ptr: Ptr<$t>, v_ptr: Ptr<$t>, do_ptr: Ptr<$t>,
                           dq_ptr: Ptr<$t>, lse_ptr: Ptr<f32>, delta_ptr: Ptr<f32>,
                           sm_scale: f32, stride_z: i32, stride_h: i32, stride_m: i32, H: i32, N_CTX: i32;
                           const BLOCK_M2: usize, const BLOCK_N2: usize, const HEAD_DIM: usize,
                           const NUM_STAGES: usize, const CAUSAL: usize, const WINDOW: usize) {
                    let a = Operands { q: q_ptr, k: k_ptr, v: v_ptr, d_o: do_ptr, lse: lse_ptr, delta: delta_ptr, sm_scale };
                    let at = Heads { strides: [stride_z, stride_h, stride_m], heads: H, n_ctx: N_CTX };
                    let meta = Meta { block_own: BLOCK_M2, block_step: BLOCK_N2, head_dim: HEAD_DIM,
                                      num_stages: NUM_STAGES, causal: CAUSAL == 1, window: WINDOW };
                    dq::<$t>(a, dq_ptr, at, $zero, meta);
                }
            }
        )*
    };
}

backward_kernels! {
    attn_bwd_preprocess_f16, attn_bwd_dkdv_f16, attn_bwd_dq_f16 => f16, f16::ZERO;
    attn_bwd_preprocess_bf16, attn_bwd_dkdv_bf16, attn_bwd_dq_bf16 => bf16, bf16::ZERO;
}

/// The backward's tiles (the tutorial's `BLOCK_M1 = 32, BLOCK_N1 = 128, BLOCK_M2 = 128,
/// BLOCK_N2 = 32`) and launch knobs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Config {
    /// `dkdv`: keys a program owns, queries a step.
    pub block_n1: usize,
    pub block_m1: usize,
    /// `dq`: queries a program owns, keys a step.
    pub block_m2: usize,
    pub block_n2: usize,
    pub num_stages: u32,
    pub num_warps: u32,
}

impl Config {
    /// 64 queries a `dq` program and 32 keys a step; `dkdv` 64 keys a program for head dim
    /// 64 and 32 for 128, 32 queries a step; 4 warps, 3 stages. The tutorial's 128 keys a
    /// program spill here: `dkdv` holds two `BLOCK_N1 x HEAD_DIM` f32 accumulators
    /// through its loop (at head dim 128, 64 keys on 4 warps still spill 56 bytes in bf16 on
    /// sm_86; on 8 warps they fit, not yet timed: `docs/benchmarks.md`).
    pub fn plan(head_dim: usize) -> Config {
        let block_n1 = if head_dim > 64 { 32 } else { 64 };
        Config { block_n1, block_m1: 32, block_m2: 64, block_n2: 32, num_stages: 3, num_warps: 4 }
    }

    /// [`Config::plan`] for `arch`: on sm_90a (`wgmma`) at head dim 64, `dkdv` takes 64
    /// queries a step, so its products are `m64n64k16` (measured on an H100, f16
    /// 4x32x4096x64 backward: 189.9 to 215.0 TFLOPS, causal 170.2 to 185.7; 219 registers,
    /// no spills).
    pub fn plan_for(head_dim: usize, arch: rtriton::backend::ptx::Arch) -> Config {
        let plan = Config::plan(head_dim);
        if arch == rtriton::backend::ptx::Arch::Sm90a && head_dim <= 64 {
            Config { block_m1: 64, ..plan }
        } else {
            plan
        }
    }

    /// `window`: the forward's sliding window (with `causal`), 0 for none.
    pub fn dkdv_constexprs(self, head_dim: usize, causal: bool, window: usize) -> Vec<(&'static str, i64)> {
        vec![
            ("BLOCK_M1", self.block_m1 as i64),
            ("BLOCK_N1", self.block_n1 as i64),
            ("HEAD_DIM", head_dim as i64),
            ("NUM_STAGES", i64::from(self.num_stages)),
            ("CAUSAL", i64::from(causal)),
            ("WINDOW", window as i64),
        ]
    }

    /// `window`: the forward's sliding window (with `causal`), 0 for none.
    pub fn dq_constexprs(self, head_dim: usize, causal: bool, window: usize) -> Vec<(&'static str, i64)> {
        vec![
            ("BLOCK_M2", self.block_m2 as i64),
            ("BLOCK_N2", self.block_n2 as i64),
            ("HEAD_DIM", head_dim as i64),
            ("NUM_STAGES", i64::from(self.num_stages)),
            ("CAUSAL", i64::from(causal)),
            ("WINDOW", window as i64),
        ]
    }
}
