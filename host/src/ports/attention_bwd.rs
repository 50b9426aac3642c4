//! Fused attention, backward (`rtriton_kernels::ports::attention_bwd`, Triton's tutorial
//! 06): `delta = rowsum(o * do)`, then `dk`, `dv` and `dq`, `f16` and `bf16`, causal and
//! not. Each kernel has its suites, fed what the forward gives it: `o` and the base-2
//! log-sum-exp from the f64 forward (rounded as the forward stores them), `delta` as the
//! preprocess computes it.
//!
//! The reference recomputes `P = 2^(q k^T sm_scale log2(e) - lse)` in f64 from the given
//! `lse`, as the kernels do, then `dv = P^T do`, `dP = do v^T`, `dS = P (dP - delta)`,
//! `dk = sm_scale dS^T q`, `dq = sm_scale dS k` in f64. The rules are at [`grad_rule`].

use rtriton::backend::ptx::Arch;
use rtriton_kernels::ports::attention_bwd::{
    Config, attn_bwd_dkdv_bf16, attn_bwd_dkdv_f16, attn_bwd_dq_bf16, attn_bwd_dq_f16, attn_bwd_preprocess_bf16,
    attn_bwd_preprocess_f16,
};
use rtriton_testing::{Backend, Case, Data, Rule, Suite, View};

use super::attention::{Kernel, Layout, bound, one_head};
use super::bench::BenchPoint;
use super::dtype::{Dtype, mix, uniform};

/// One backward case.
#[derive(Clone, Copy, Debug)]
pub struct Spec {
    pub name: &'static str,
    pub z: usize,
    pub h: usize,
    pub n: usize,
    pub d: usize,
    pub causal: bool,
    /// The forward's sliding window of that many keys (with `causal`), 0 for none.
    pub window: usize,
    pub layout: Layout,
    pub config: Config,
    pub gpu_only: bool,
    /// The target the simulator and the GPU run (`sm_90a`: `wgmma` where a product's `B`
    /// is a ring slot).
    pub arch: Arch,
}

/// The small tiles the CPU cases launch: `dkdv` 64 keys a program, 32 queries a step;
/// `dq` 64 queries a program, 32 keys a step; 4 warps, 2 stages.
pub const SMALL: Config =
    Config { block_n1: 64, block_m1: 32, block_m2: 64, block_n2: 32, num_stages: 2, num_warps: 4 };

/// Head dim 128's wider tiles: `dkdv` 64 keys a program and `dq` 128 queries, 8 warps,
/// 3 stages (ptxas 12.9: 232 to 246 registers, no spills, sm_86 and sm_90a, f16 and bf16,
/// causal or not; not timed yet, `docs/benchmarks.md`).
pub const WIDE_D128: Config =
    Config { block_n1: 64, block_m1: 32, block_m2: 128, block_n2: 32, num_stages: 3, num_warps: 8 };

impl Spec {
    const fn new(name: &'static str, [z, h, n, d]: [usize; 4], causal: bool, config: Config) -> Spec {
        Spec { name, z, h, n, d, causal, window: 0, layout: Layout::Heads, config, gpu_only: false, arch: Arch::Sm86 }
    }
}

fn sm_scale(d: usize) -> f32 {
    1.0 / (d as f32).sqrt()
}

/// One head's inputs and what the forward gives the backward, in f64 (row-major `n x d`,
/// `lse` and `delta` per row), each already rounded as its kernel stores it.
struct Head {
    q: Vec<f64>,
    k: Vec<f64>,
    v: Vec<f64>,
    d_o: Vec<f64>,
    o: Vec<f64>,
    lse: Vec<f64>,
    delta: Vec<f64>,
}

/// The expected gradients of one head and the magnitudes their rules scale with.
struct Grads {
    dq: Vec<f64>,
    dk: Vec<f64>,
    dv: Vec<f64>,
    /// Per gradient (`dq`, `dk`, `dv`), the largest over its elements of `sum |term|` and
    /// of the part that scales with `dP`'s f32 error (see [`grad_rule`]).
    magnitude: [[f64; 2]; 3],
}

fn value(dtype: Dtype, which: usize, head: usize, i: usize, x: usize) -> f64 {
    let v = uniform(mix(i * 131 + x, which * 1_000_003 + head + 11), -1.0, 1.0);
    dtype.float().expect("a float dtype").to_f64(dtype.bits_of(v))
}

fn round(dtype: Dtype, x: f64) -> f64 {
    dtype.float().expect("a float dtype").to_f64(dtype.bits_of(x))
}

/// One head's inputs (`head` picks the values) and its forward outputs: the forward's f64
/// reference, `o` rounded to the dtype and the log-sum-exp to f32 as the forward stores them.
fn head(kernel: Kernel, spec: &Spec, head: usize) -> Head {
    let (n, d) = (spec.n, spec.d);
    let dt = kernel.dtype();
    let values = |which| (0..n * d).map(|e| value(dt, which, head, e / d, e % d)).collect::<Vec<f64>>();
    let [q, k, v] = [0, 1, 2].map(values);
    let d_o = values(3);
    let scale = f64::from(sm_scale(d));
    let qkv = [q, k, v];
    let (o, lse) = one_head(&qkv, n, d, (spec.causal, spec.window), scale);
    let [q, k, v] = qkv;
    let o: Vec<f64> = o.into_iter().map(|x| round(dt, x)).collect();
    let lse = lse.into_iter().map(|x| f64::from(x as f32)).collect();
    let delta = (0..n).map(|i| f64::from(dot(&o[i * d..(i + 1) * d], &d_o[i * d..(i + 1) * d]) as f32)).collect();
    Head { q, k, v, d_o, o, lse, delta }
}

fn dot(a: &[f64], b: &[f64]) -> f64 {
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}

/// The gradients of one head in f64 from its inputs, `P` recomputed from the given `lse`;
/// its rows split over threads, each with its own `dk`, `dv` and magnitudes, summed.
fn grads(hd: &Head, n: usize, d: usize, mask: (bool, usize), scale: f64) -> Grads {
    let threads = std::thread::available_parallelism().map_or(1, |t| t.get());
    let per = n.div_ceil(threads).max(1);
    let parts: Vec<[Vec<f64>; 8]> = std::thread::scope(|s| {
        let handles: Vec<_> = (0..n)
            .step_by(per)
            .map(|first| s.spawn(move || grad_rows(hd, first..(first + per).min(n), (n, d), mask, scale)))
            .collect();
        handles.into_iter().map(|h| h.join().expect("a reference thread")).collect()
    });
    let mut total: [Vec<f64>; 8] = std::array::from_fn(|_| vec![0.0; n * d]);
    for part in &parts {
        for (t, p) in total.iter_mut().zip(part) {
            for (a, b) in t.iter_mut().zip(p) {
                *a += b;
            }
        }
    }
    let top = |m: &[f64]| m.iter().copied().fold(0.0, f64::max);
    let [dq, dk, dv, mq, eq, mk, ek, mv] = total;
    Grads { magnitude: [[top(&mq), top(&eq)], [top(&mk), top(&ek)], [top(&mv), 0.0]], dq, dk, dv }
}

/// The contributions of query rows `rows` to `dq`, `dk`, `dv` and their magnitudes
/// (`mq`, `eq`, `mk`, `ek`, `mv`, see [`grad_rule`]), each `n x d`; `mask`: causal, and
/// a sliding window of that many keys (0: none).
fn grad_rows(
    hd: &Head,
    rows: std::ops::Range<usize>,
    (n, d): (usize, usize),
    (causal, window): (bool, usize),
    scale: f64,
) -> [Vec<f64>; 8] {
    let mut out: [Vec<f64>; 8] = std::array::from_fn(|_| vec![0.0; n * d]);
    let [dq, dk, dv, mq, eq, mk, ek, mv] = &mut out;
    // Rows are borrowed, not copied: the inner loop runs `n^2` times (`n` = 16384 rows in
    // the bench), two allocations a pair before.
    fn row(t: &[f64], i: usize, d: usize) -> &[f64] {
        &t[i * d..(i + 1) * d]
    }
    for i in rows {
        let (qi, doi) = (row(&hd.q, i, d), row(&hd.d_o, i, d));
        let lo = if window > 0 { (i + 1).saturating_sub(window) } else { 0 };
        for j in lo..if causal { i + 1 } else { n } {
            let (kj, vj) = (row(&hd.k, j, d), row(&hd.v, j, d));
            let p = (dot(qi, kj) * scale * std::f64::consts::LOG2_E - hd.lse[i]).exp2();
            let dp = dot(doi, vj);
            let ds = p * (dp - hd.delta[i]);
            let ds_mag = p * (dp.abs() + hd.delta[i].abs());
            // The f32 `dP`'s error scales with `sum |do v|`.
            let dp_mag = p * doi.iter().zip(vj).map(|(a, b)| (a * b).abs()).sum::<f64>();
            for x in 0..d {
                dv[j * d + x] += p * doi[x];
                mv[j * d + x] += (p * doi[x]).abs();
                dk[j * d + x] += ds * qi[x] * scale;
                mk[j * d + x] += ds_mag * qi[x].abs() * scale;
                ek[j * d + x] += dp_mag * qi[x].abs() * scale;
                dq[i * d + x] += ds * kj[x] * scale;
                mq[i * d + x] += ds_mag * kj[x].abs() * scale;
                eq[i * d + x] += dp_mag * kj[x].abs() * scale;
            }
        }
    }
    out
}

/// The rule of a gradient of head dim `d` over a loop of `steps` rows or keys whose
/// elements' `sum |term|` is at most `m` (for `dq`/`dk`, `sm_scale sum |P| (|dP| +
/// |delta|) |q or k|`) and whose `dP`-error part is at most `e` (`sm_scale sum |P| sum |do
/// v| |q or k|`; 0 for `dv`): `P` is within `u / 2` (the scores' f32 error for `|q|, |k|
/// <= 1` and `D <= 128`, then `ex2.approx`) and rounds to the dtype before its product
/// (`u`), `dS` likewise (`u`), `dP` is an f32 dot (within `(D + 1) 2^-23 sum |do v|`), the
/// tensor cores accumulate `steps` terms in f32 (`(steps + 1) 2^-23`), the result rounds
/// once (`u`): within `(4 u + (steps + 1) 2^-23) m + (D + 1) 2^-23 e` absolute (plus
/// `2^-24`), or `4 u` relative.
pub fn grad_rule(kernel: Kernel, steps: usize, d: usize, [m, e]: [f64; 2]) -> Rule {
    let u = kernel.unit_roundoff();
    let abs = (4.0 * u + (steps as f64 + 1.0) * 2f64.powi(-23)) * m + (d as f64 + 1.0) * 2f64.powi(-23) * e;
    Rule::approx(abs + 2f64.powi(-24), 4.0 * u)
}

/// `delta`'s rule: `D` products of two values of the dtype summed in f32 (exact products,
/// `D` roundings of partial sums bounded by `D` max|o do|), then the reference rounds to
/// f32 too: within `(D + 1) 2^-24 D` absolute for `|o|, |do| <= 1`.
pub fn delta_rule(d: usize) -> Rule {
    Rule::approx((d as f64 + 1.0) * 2f64.powi(-24) * d as f64, 0.0)
}

/// The three kernels of one dtype.
pub fn defs(kernel: Kernel) -> [rtriton::trace::KernelDef; 3] {
    match kernel {
        Kernel::F16 => [attn_bwd_preprocess_f16(), attn_bwd_dkdv_f16(), attn_bwd_dq_f16()],
        Kernel::Bf16 => [attn_bwd_preprocess_bf16(), attn_bwd_dkdv_bf16(), attn_bwd_dq_bf16()],
    }
}

/// The suites of `spec` (preprocess, dkdv, dq), with every (batch, head) its own values
/// unless `same_heads` (the bench: one head's reference, copied).
pub fn suites_of(kernel: Kernel, spec: &Spec, same_heads: bool) -> [Suite; 3] {
    let Spec { z, h, n, d, causal, window, .. } = *spec;
    let dt = kernel.dtype();
    let scale = f64::from(sm_scale(d));
    let heads: Vec<Head> = (0..if same_heads { 1 } else { z * h }).map(|hd| head(kernel, spec, hd)).collect();
    let grads: Vec<Grads> = heads.iter().map(|hd| grads(hd, n, d, (causal, window), scale)).collect();
    let view = spec.layout.view([z, h, n, d]);
    let rows = View::contiguous(&[z * h * n]);
    let of = |hd: usize| if same_heads { 0 } else { hd };
    // A `[Z, H, N, D]` tensor from each head's row-major values (each rounded to the dtype
    // once, however many heads share it); a per-row f32 one.
    let tensor = |per_head: Vec<&Vec<f64>>| -> Data {
        let bits: Vec<Vec<u64>> = per_head.iter().map(|x| x.iter().map(|&v| dt.bits_of(v)).collect()).collect();
        dt.through_view(&view, |i| bits[of(i[0] * h + i[1])][i[2] * d + i[3]])
    };
    let per_row = |per_head: Vec<&Vec<f64>>| -> Data {
        Dtype::F32.data((0..z * h * n).map(|e| Dtype::F32.bits_of(per_head[of(e / n)][e % n])))
    };
    let q = tensor(heads.iter().map(|x| &x.q).collect());
    let k = tensor(heads.iter().map(|x| &x.k).collect());
    let v = tensor(heads.iter().map(|x| &x.v).collect());
    let d_o = tensor(heads.iter().map(|x| &x.d_o).collect());
    let o = tensor(heads.iter().map(|x| &x.o).collect());
    let lse = per_row(heads.iter().map(|x| &x.lse).collect());
    let delta = per_row(heads.iter().map(|x| &x.delta).collect());
    let want_dq = tensor(grads.iter().map(|x| &x.dq).collect());
    let want_dk = tensor(grads.iter().map(|x| &x.dk).collect());
    let want_dv = tensor(grads.iter().map(|x| &x.dv).collect());
    let magnitude =
        [0, 1, 2].map(|g| [0, 1].map(|part| grads.iter().map(|gr| gr.magnitude[g][part]).fold(0.0, f64::max)));
    let strides = |c: Case| {
        c.arg("stride_z", view.strides[0] as i32)
            .arg("stride_h", view.strides[1] as i32)
            .arg("stride_m", view.strides[2] as i32)
            .arg("H", h as i32)
            .arg("N_CTX", n as i32)
    };
    let gpu = |c: Case| {
        let c = c.arch(spec.arch);
        if spec.gpu_only {
            let why = "too large for the CPU back ends (minutes); the GPU runs it";
            c.unsupported(Backend::Interpreter, why).unsupported(Backend::Simulator, why)
        } else {
            c
        }
    };
    let cfg = spec.config;
    let [pre_def, dkdv_def, dq_def] = defs(kernel);

    let pre = Case::new(spec.name).input("o", o, view.clone()).input("do", d_o.clone(), view.clone()).output(
        "delta",
        Dtype::F32.poisoned(&rows),
        rows.clone(),
    );
    let pre = strides(pre).constexpr("BLOCK_M", 64).constexpr("HEAD_DIM", d as i64);
    let pre = gpu(pre.grid([n.div_ceil(64) as u32, (z * h) as u32, 1]).num_warps(4));
    let want_delta = delta.clone();
    let pre = bound(pre, &pre_def);
    let pre = Suite::new(pre_def)
        .case(pre)
        .reference(move |c| c.tensor_mut("delta").data = want_delta.clone())
        .rule(delta_rule(d));

    let operands = |c: Case| {
        c.input("q", q.clone(), view.clone())
            .input("k", k.clone(), view.clone())
            .input("v", v.clone(), view.clone())
            .input("do", d_o.clone(), view.clone())
    };
    let dkdv = operands(Case::new(spec.name))
        .output("dk", dt.poisoned(&view), view.clone())
        .output("dv", dt.poisoned(&view), view.clone())
        .input("lse", lse.clone(), rows.clone())
        .input("delta", delta.clone(), rows.clone())
        .arg("sm_scale", sm_scale(d));
    let mut dkdv = strides(dkdv);
    for (name, x) in cfg.dkdv_constexprs(d, causal, window) {
        dkdv = dkdv.constexpr(name, x);
    }
    let dkdv = gpu(dkdv.grid([n.div_ceil(cfg.block_n1) as u32, (z * h) as u32, 1]).num_warps(cfg.num_warps));
    let (dk_want, dv_want) = (want_dk, want_dv);
    let dkdv = bound(dkdv, &dkdv_def);
    let dkdv = Suite::new(dkdv_def)
        .case(dkdv)
        .reference(move |c| {
            c.tensor_mut("dk").data = dk_want.clone();
            c.tensor_mut("dv").data = dv_want.clone();
        })
        .rule_for("dk", grad_rule(kernel, n, d, magnitude[1]))
        .rule_for("dv", grad_rule(kernel, n, d, magnitude[2]));
    // The gradient kernels keep one or two f32 accumulators and the fragments of four
    // products through their loop: with the tiles copied as 16-byte vectors (Triton's
    // specialization of aligned tensors) they fit; unspecialized, the copies through
    // registers spill (16 to 500 bytes, sm_86 and sm_90), so their suites run Triton's
    // specialization only, as the matmul port's vector-only tiles do.
    let dkdv = dkdv.policies(&[rtriton::spec::SpecPolicy::Triton]);

    let dq = operands(Case::new(spec.name))
        .output("dq", dt.poisoned(&view), view.clone())
        .input("lse", lse, rows.clone())
        .input("delta", delta, rows)
        .arg("sm_scale", sm_scale(d));
    let mut dq = strides(dq);
    for (name, x) in cfg.dq_constexprs(d, causal, window) {
        dq = dq.constexpr(name, x);
    }
    let dq = gpu(dq.grid([n.div_ceil(cfg.block_m2) as u32, (z * h) as u32, 1]).num_warps(cfg.num_warps));
    let dq = bound(dq, &dq_def);
    let dq = Suite::new(dq_def)
        .case(dq)
        .reference(move |c| c.tensor_mut("dq").data = want_dq.clone())
        .rule_for("dq", grad_rule(kernel, n, d, magnitude[0]));
    let dq = dq.policies(&[rtriton::spec::SpecPolicy::Triton]);
    [pre, dkdv, dq]
}

/// The shape table: as the forward's, the backward's tiles.
pub fn specs() -> Vec<Spec> {
    let s = |name, shape, causal| Spec::new(name, shape, causal, SMALL);
    let gpu = |name, [z, h, n, d]: [usize; 4], causal| Spec {
        gpu_only: true,
        ..Spec::new(name, [z, h, n, d], causal, Config::plan(d))
    };
    vec![
        s("bwd_one_key", [1, 1, 1, 64], false),
        s("bwd_n37_causal", [1, 2, 37, 64], true),
        Spec { layout: Layout::Rows, ..s("bwd_rows_n100", [2, 2, 100, 64], false) },
        // Head dim 128: 32 keys a `dkdv` program, as `Config::plan` has it; and the wider
        // tiles on 8 warps `docs/benchmarks.md` lists as not yet measured (`dkdv` 64 keys,
        // `dq` 128 queries a program).
        Spec::new("bwd_d128_n70_causal", [1, 1, 70, 128], true, Config { block_n1: 32, ..SMALL }),
        Spec::new("bwd_d128_wide_n150_causal", [1, 1, 150, 128], true, WIDE_D128),
        gpu("bwd_n1000_causal", [1, 3, 1000, 64], true),
        // A sliding window of 40 keys: some query blocks of a `dkdv` program and key blocks
        // of a `dq` program see none of the other's rows; 256 on the GPU.
        Spec { window: 40, ..s("bwd_window40_n150", [1, 2, 150, 64], true) },
        Spec { window: 256, ..gpu("bwd_window256_n1000_d128", [1, 2, 1000, 128], true) },
        Spec { layout: Layout::Rows, ..gpu("bwd_rows_n777_d128", [2, 2, 777, 128], false) },
        // sm_90a: the products whose `B` is a ring slot run as `wgmma`.
        Spec { arch: Arch::Sm90a, ..s("bwd_wgmma_n100_causal", [1, 2, 100, 64], true) },
        Spec {
            arch: Arch::Sm90a,
            ..Spec::new("bwd_wgmma_d128_n70", [1, 1, 70, 128], false, Config { block_n1: 32, ..SMALL })
        },
        Spec {
            arch: Arch::Sm90a,
            config: Config::plan_for(64, Arch::Sm90a),
            ..gpu("bwd_wgmma_n1000_causal", [1, 3, 1000, 64], true)
        },
        Spec {
            arch: Arch::Sm90a,
            config: Config::plan_for(64, Arch::Sm90a),
            layout: Layout::Rows,
            ..gpu("bwd_wgmma_rows_n777_d64", [2, 2, 777, 64], false)
        },
        Spec { arch: Arch::Sm90a, layout: Layout::Rows, ..gpu("bwd_wgmma_rows_n777_d128", [2, 2, 777, 128], false) },
    ]
}

/// Every suite of the backward, both dtypes.
pub fn suites() -> Vec<Suite> {
    Kernel::ALL.iter().flat_map(|&k| specs().iter().flat_map(|s| suites_of(k, s, false)).collect::<Vec<_>>()).collect()
}

/// The kernels in the order the suites first use them.
pub fn kernels() -> Vec<rtriton::trace::KernelDef> {
    Kernel::ALL.iter().flat_map(|&k| defs(k)).collect()
}

/// `rtriton bench --kernel attention`'s backward points: the forward's shapes, the three
/// kernels timed together, counting 2.5 times the forward's flops (the tutorial's count:
/// five products of the forward's two, `dq`'s recomputed `q k^T` included) and the bytes
/// of `q`, `k`, `v`, `o`, `do` read and `dq`, `dk`, `dv` written.
pub fn bench_points() -> Vec<BenchPoint> {
    let mut out = Vec::new();
    for kernel in Kernel::ALL {
        for [z, h, n, d] in super::attention::BENCH_SHAPES {
            for causal in [false, true] {
                for arch in [Arch::Sm86, Arch::Sm90a] {
                    let spec = Spec {
                        gpu_only: true,
                        arch,
                        ..Spec::new("bench", [z, h, n, d], causal, Config::plan_for(d, arch))
                    };
                    let fwd = 4 * (z * h * n * n * d) as u64 / if causal { 2 } else { 1 };
                    let variant = super::attention::bench_variant(causal, true, arch);
                    out.push(BenchPoint {
                        kernel: "attention",
                        variant,
                        dtype: kernel.dtype().name(),
                        shape: vec![z, h, n, d],
                        bytes: 8 * (z * h * n * d) as u64 * 2,
                        flops: fwd * 5 / 2,
                        launches: Box::new(move |_| {
                            suites_of(kernel, &spec, true)
                                .into_iter()
                                .map(|s| {
                                    let c = s.cases[0].clone();
                                    (s, c)
                                })
                                .collect()
                        }),
                    });
                }
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every CPU case's three kernels on the interpreter and the simulator.
    #[test]
    fn cpu_cases() {
        for kernel in Kernel::ALL {
            for spec in specs().iter().filter(|s| !s.gpu_only) {
                for s in suites_of(kernel, spec, false) {
                    s.check_all(Backend::Interpreter);
                    s.check_all(Backend::Simulator);
                }
            }
        }
    }

    /// The gradient rule catches an error of a tenth of the magnitude and passes a rounding.
    #[test]
    fn the_gradient_rule_catches_a_tenth_of_the_magnitude() {
        for kernel in Kernel::ALL {
            let r = grad_rule(kernel, 100, 64, [4.0, 16.0]);
            let f = kernel.dtype().float().unwrap();
            let (want, off) = (kernel.dtype().bits_of(1.0), kernel.dtype().bits_of(1.4));
            assert!(!r.matches(f.dtype(), off, want), "{kernel:?}");
            assert!(r.matches(f.dtype(), f.round_from_f64(1.0) + 1, want), "{kernel:?}");
        }
    }
}
