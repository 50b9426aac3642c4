//! Fused attention, forward (`rtriton_kernels::ports::attention`, Triton's tutorial 06):
//! `o = softmax(q k^T sm_scale) v` and the base-2 log-sum-exp, `f16` and `bf16`, causal
//! and not, one suite per kernel and case.
//!
//! The cases: sequence lengths from 1 to 4099, most of them not multiples of the blocks;
//! head dims 64 and 128; several batches and heads; tensors laid out `[Z, H, N, D]` or
//! `[Z, N, H, D]` (torch's `(batch, seq, heads, dim)` seen through a transpose: other
//! strides). The cases of at most 130 keys run on every back end; the large ones on the
//! GPU only.
//!
//! The reference computes each row's scores in f64 from the operands, its softmax and
//! `P V` in f64, and rounds `o` once. The tolerances are at [`rules`].

use rtriton::backend::ptx::Arch;
use rtriton_kernels::ports::attention::{Config, attn_fwd_bf16, attn_fwd_f16, plan, plan_for};
use rtriton_testing::{Backend, Case, Rule, Suite, View};

use super::Port;
use super::bench::BenchPoint;
use super::dtype::{Dtype, mix, uniform};
use super::example::ExampleCase;

pub const PORT: Port = Port {
    name: "attention",
    about: "o = softmax(q k^T sm_scale) v and its gradients (tutorial 06's _attn_fwd, _attn_bwd_preprocess, _attn_bwd_dkdv, _attn_bwd_dq; causal or not), f16/bf16",
    kernels: || {
        let mut defs: Vec<rtriton::trace::KernelDef> = Kernel::ALL.iter().map(|k| k.def()).collect();
        defs.extend(super::attention_bwd::kernels());
        defs
    },
    suites: || {
        let mut all = suites();
        all.extend(super::attention_bwd::suites());
        all
    },
    bench: || {
        let mut points = bench_points();
        points.extend(super::attention_bwd::bench_points());
        points
    },
    example,
};

/// One attention kernel.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Kernel {
    F16,
    Bf16,
}

impl Kernel {
    pub const ALL: [Kernel; 2] = [Kernel::F16, Kernel::Bf16];

    pub fn def(self) -> rtriton::trace::KernelDef {
        match self {
            Kernel::F16 => attn_fwd_f16(),
            Kernel::Bf16 => attn_fwd_bf16(),
        }
    }

    pub fn dtype(self) -> Dtype {
        match self {
            Kernel::F16 => Dtype::F16,
            Kernel::Bf16 => Dtype::BF16,
        }
    }

    /// The unit roundoff of the dtype (half an ulp, relative).
    pub fn unit_roundoff(self) -> f64 {
        match self {
            Kernel::F16 => 2f64.powi(-11),
            Kernel::Bf16 => 2f64.powi(-8),
        }
    }
}

/// How `q`, `k`, `v` and `o` are laid out.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Layout {
    /// `[Z, H, N, D]`, contiguous.
    Heads,
    /// `[Z, N, H, D]` in memory, seen as `[Z, H, N, D]` (torch's `(batch, seq, heads, dim)`
    /// transposed): rows of one head `H * D` elements apart.
    Rows,
}

impl Layout {
    pub fn view(self, [z, h, n, d]: [usize; 4]) -> View {
        match self {
            Layout::Heads => View::contiguous(&[z, h, n, d]),
            Layout::Rows => View::contiguous(&[z, n, h, d]).transposed(1, 2),
        }
    }
}

/// One case.
#[derive(Clone, Copy, Debug)]
pub struct Spec {
    pub name: &'static str,
    pub z: usize,
    pub h: usize,
    pub n: usize,
    pub d: usize,
    pub causal: bool,
    /// A sliding window of that many keys (with `causal`), 0 for none.
    pub window: usize,
    pub layout: Layout,
    pub config: Config,
    /// Every (batch, head) holds the same values: the reference computes one and copies
    /// it (the bench's sizes; the validation cases give each head its own values).
    pub same_heads: bool,
    pub gpu_only: bool,
    /// The target the simulator and the GPU run (`sm_90a`: both products as `wgmma`).
    pub arch: Arch,
}

/// The small tile the CPU cases launch: 64 query rows, 32 keys a step, 4 warps, 2 stages.
pub const SMALL: Config = Config { block_m: 64, block_n: 32, num_stages: 2, num_warps: 4 };

/// `sm_scale`: the usual `1 / sqrt(D)`.
fn sm_scale(d: usize) -> f32 {
    1.0 / (d as f32).sqrt()
}

impl Spec {
    const fn new(name: &'static str, [z, h, n, d]: [usize; 4], causal: bool, config: Config) -> Spec {
        Spec {
            name,
            z,
            h,
            n,
            d,
            causal,
            window: 0,
            layout: Layout::Heads,
            config,
            same_heads: false,
            gpu_only: false,
            arch: Arch::Sm86,
        }
    }
}

/// Element `[z, h, i, x]` of operand `which` (0 `q`, 1 `k`, 2 `v`): in [-1, 1).
fn operand_value(dtype: Dtype, which: usize, head: usize, i: usize, x: usize) -> u64 {
    dtype.bits_of(uniform(mix(i * 257 + x, which * 1_000_003 + head + 7), -1.0, 1.0))
}

/// The case `spec` of `kernel`.
pub fn case(kernel: Kernel, spec: &Spec) -> Case {
    let dtype = kernel.dtype();
    let Spec { z, h, n, d, .. } = *spec;
    let view = spec.layout.view([z, h, n, d]);
    let head_of = |i: &[usize]| if spec.same_heads { 0 } else { i[0] * h + i[1] };
    let operand = |which| dtype.through_view(&view, |i| operand_value(dtype, which, head_of(i), i[2], i[3]));
    let lse_view = View::contiguous(&[z * h * n]);
    let mut c = Case::new(spec.name)
        .input("q", operand(0), view.clone())
        .input("k", operand(1), view.clone())
        .input("v", operand(2), view.clone())
        .output("o", dtype.poisoned(&view), view.clone())
        .output("lse", Dtype::F32.poisoned(&lse_view), lse_view)
        .arg("sm_scale", sm_scale(d));
    let s = |d: usize| view.strides[d] as i64;
    for t in ["q", "k", "v", "o"] {
        let names: [&'static str; 3] = match t {
            "q" => ["stride_qz", "stride_qh", "stride_qm"],
            "k" => ["stride_kz", "stride_kh", "stride_kn"],
            "v" => ["stride_vz", "stride_vh", "stride_vn"],
            _ => ["stride_oz", "stride_oh", "stride_om"],
        };
        for (dim, name) in names.into_iter().enumerate() {
            c = c.arg(name, s(dim) as i32);
        }
    }
    c = c.arg("H", h as i32).arg("N_CTX", n as i32);
    for (name, v) in spec.config.constexprs(d, spec.causal, spec.window) {
        c = c.constexpr(name, v);
    }
    c = c.grid(spec.config.grid(z, h, n)).num_warps(spec.config.num_warps).arch(spec.arch);
    if spec.gpu_only {
        let why = "too large for the CPU back ends (minutes); the GPU runs it";
        c = c.unsupported(Backend::Interpreter, why).unsupported(Backend::Simulator, why);
    }
    c
}

/// Writes the expected `o` and `lse` into `case`: per row, the scores `q k^T sm_scale` in
/// f64 (keys up to the row's own for a causal case), their softmax and `P V` in f64, and
/// the log-sum-exp in base 2, `log2(sum_j e^s_j)`; each head's rows split over threads.
fn reference(spec: Spec, case: &mut Case) {
    let Spec { z, h, n, d, causal, window, .. } = spec;
    let scale = f64::from(sm_scale(d));
    let read = |name: &str, head: usize| -> Vec<f64> {
        let t = case.tensor(name);
        (0..n * d).map(|e| t.f64_at(&[head / h, head % h, e / d, e % d])).collect()
    };
    let heads = if spec.same_heads { 1 } else { z * h };
    let inputs: Vec<[Vec<f64>; 3]> = (0..heads).map(|hd| [read("q", hd), read("k", hd), read("v", hd)]).collect();
    let results: Vec<(Vec<f64>, Vec<f64>)> =
        inputs.iter().map(|x| one_head(x, n, d, (causal, window), scale)).collect();
    for hd in 0..z * h {
        let (o, lse) = &results[if spec.same_heads { 0 } else { hd }];
        let out = case.tensor_mut("o");
        for (e, x) in o.iter().enumerate() {
            out.set_f64(&[hd / h, hd % h, e / d, e % d], *x);
        }
        let l = case.tensor_mut("lse");
        for (i, x) in lse.iter().enumerate() {
            l.set_f64(&[hd * n + i], *x);
        }
    }
}

/// One head's `o` (`n x d`, row-major) and base-2 log-sum-exp (`n`), in f64, its rows
/// split over threads.
pub(super) fn one_head(
    qkv: &[Vec<f64>; 3],
    n: usize,
    d: usize,
    mask: (bool, usize),
    scale: f64,
) -> (Vec<f64>, Vec<f64>) {
    let mut o = vec![0.0; n * d];
    let mut lse = vec![0.0; n];
    let threads = std::thread::available_parallelism().map_or(1, |t| t.get());
    let per = n.div_ceil(threads).max(1);
    std::thread::scope(|s| {
        for (t, (o, lse)) in o.chunks_mut(per * d).zip(lse.chunks_mut(per)).enumerate() {
            s.spawn(move || rows(qkv, t * per, (o, lse), (n, d), mask, scale));
        }
    });
    (o, lse)
}

/// Rows `first..` of one head (as many as `lse` holds) into `o` and `lse`; `mask`:
/// causal, and a sliding window of that many keys (0: none).
fn rows(
    [q, k, v]: &[Vec<f64>; 3],
    first: usize,
    (o, lse): (&mut [f64], &mut [f64]),
    (n, d): (usize, usize),
    (causal, window): (bool, usize),
    scale: f64,
) {
    let mut scores = vec![0.0; n];
    for (r, l) in lse.iter_mut().enumerate() {
        let i = first + r;
        // The keys row `i` sees: `lo..lo + keys`.
        let lo = if window > 0 { (i + 1).saturating_sub(window) } else { 0 };
        let keys = if causal { i + 1 } else { n } - lo;
        let qi = &q[i * d..(i + 1) * d];
        for (j, s) in scores[..keys].iter_mut().enumerate() {
            let j = lo + j;
            *s = qi.iter().zip(&k[j * d..(j + 1) * d]).map(|(a, b)| a * b).sum::<f64>() * scale;
        }
        let top = scores[..keys].iter().copied().fold(f64::NEG_INFINITY, f64::max);
        let mut total = 0.0;
        for s in &mut scores[..keys] {
            *s = (*s - top).exp();
            total += *s;
        }
        let oi = &mut o[r * d..(r + 1) * d];
        for (j, p) in scores[..keys].iter().enumerate() {
            for (x, ox) in oi.iter_mut().enumerate() {
                *ox += p * v[(lo + j) * d + x];
            }
        }
        for ox in oi.iter_mut() {
            *ox /= total;
        }
        *l = (top + total.ln()) / std::f64::consts::LN_2;
    }
}

/// The rules, for `|q|, |k|, |v| <= 1` (every case's values):
/// - `o`: `P` is rounded to the input dtype before `P V` (relative `u`, the dtype's unit
///   roundoff, on weights summing to 1: at most `u max|v|`) while `l_i` sums the unrounded
///   `P` (another `u`), `o` rounds once to the dtype (`u`), and the scores' own error (the
///   dot rule, `(D + 1) 2^-23 D sm_scale` at most, then `ex2.approx`) stays below `u / 2`
///   for these head dims: within `4 u` absolute or relative;
/// - `lse` (`f32`): the scores' error in base 2, `(D + 1) 2^-23 D sm_scale log2(e)`, plus
///   `exp2`/`log2` approximations and the f32 row sum (`2^-20` relative of `l_i`'s `log2`
///   covers a few thousand keys): within twice that plus `2^-16`.
pub fn rules(kernel: Kernel, d: usize) -> [(&'static str, Rule); 2] {
    let u = kernel.unit_roundoff();
    let scores = (d as f64 + 1.0) * 2f64.powi(-23) * d as f64 * f64::from(sm_scale(d)) * std::f64::consts::LOG2_E;
    [("o", Rule::approx(4.0 * u, 4.0 * u)), ("lse", Rule::approx(2.0 * scores + 2f64.powi(-16), 2f64.powi(-20)))]
}

/// `c` with its named arguments bound to `def`'s signature (the suites' harnesses place
/// cases positionally).
pub fn bound(c: Case, def: &rtriton::trace::KernelDef) -> Case {
    c.resolve(def).unwrap_or_else(|e| panic!("{e}")).into_owned()
}

/// The suite of one case.
pub fn suite(kernel: Kernel, spec: &Spec) -> Suite {
    let spec = *spec;
    let mut s =
        Suite::new(kernel.def()).case(bound(case(kernel, &spec), &kernel.def())).reference(move |c| reference(spec, c));
    for (output, rule) in rules(kernel, spec.d) {
        s = s.rule_for(output, rule);
    }
    // The tutorial's tiles (`plan`) and head dim 128 need 16-byte vector copies (Triton's
    // specialization of aligned tensors); unspecialized, their copies through registers
    // spill. The small tile at head dim 64 runs under both.
    if spec.config == SMALL && spec.d <= 64 { s } else { s.policies(&[rtriton::spec::SpecPolicy::Triton]) }
}

/// The shape table (module doc), the same for every kernel.
pub fn specs() -> Vec<Spec> {
    let s = |name, shape, causal| Spec::new(name, shape, causal, SMALL);
    let gpu = |name, [z, h, n, d]: [usize; 4], causal| Spec {
        gpu_only: true,
        ..Spec::new(name, [z, h, n, d], causal, plan(d))
    };
    vec![
        s("one_key", [1, 1, 1, 64], false),
        s("one_key_causal", [1, 1, 1, 64], true),
        s("n37_causal", [1, 2, 37, 64], true),
        s("n64", [2, 1, 64, 64], false),
        Spec { layout: Layout::Rows, ..s("rows_n100", [2, 3, 100, 64], false) },
        Spec { layout: Layout::Rows, ..s("rows_n70_causal", [1, 2, 70, 64], true) },
        s("d128_n130_causal", [1, 1, 130, 128], true),
        s("d128_n96", [1, 2, 96, 128], false),
        // Sliding windows (local attention): 16 keys, shorter than a block; 40, across two.
        Spec { window: 16, ..s("window16_n100_causal", [1, 2, 100, 64], true) },
        Spec { window: 40, layout: Layout::Rows, ..s("window40_n130_causal", [1, 1, 130, 64], true) },
        gpu("n1000_causal", [2, 3, 1000, 64], true),
        gpu("n4099_d128", [1, 2, 4099, 128], false),
        Spec { layout: Layout::Rows, ..gpu("rows_n2048_d128_causal", [2, 2, 2048, 128], true) },
        gpu("n1537_d64", [1, 4, 1537, 64], false),
        Spec { window: 256, ..gpu("window256_n1000_causal", [1, 2, 1000, 128], true) },
        // sm_90a: `Q K^T` reads `K` `K`-major and `P V` reads `V` `N`-major through `wgmma`
        // descriptors; at head dim 128 both in 128-byte panels.
        Spec { arch: Arch::Sm90a, ..s("wgmma_n100_causal", [1, 2, 100, 64], true) },
        Spec { arch: Arch::Sm90a, ..s("wgmma_d128_n130", [1, 1, 130, 128], false) },
        Spec {
            arch: Arch::Sm90a,
            config: plan_for(64, Arch::Sm90a),
            ..gpu("wgmma_n1000_causal", [2, 3, 1000, 64], true)
        },
        Spec {
            arch: Arch::Sm90a,
            config: plan_for(64, Arch::Sm90a),
            layout: Layout::Rows,
            ..gpu("wgmma_rows_n1537_d64", [1, 4, 1537, 64], false)
        },
        Spec { arch: Arch::Sm90a, window: 256, ..gpu("wgmma_window256_n1000_d128", [1, 2, 1000, 128], true) },
        Spec { arch: Arch::Sm90a, layout: Layout::Rows, ..gpu("wgmma_rows_n4099_d128", [1, 2, 4099, 128], false) },
    ]
}

/// Every kernel's suites, one per case.
pub fn suites() -> Vec<Suite> {
    Kernel::ALL.iter().flat_map(|&k| specs().iter().map(|s| suite(k, s)).collect::<Vec<_>>()).collect()
}

/// The suites of `kernel` for the cases the CPU back ends run.
pub fn cpu_suites(kernel: Kernel) -> Vec<Suite> {
    specs().iter().filter(|s| !s.gpu_only).map(|s| suite(kernel, s)).collect()
}

/// The bench's shapes `[Z, H, N, D]` (the points the torch figures are for).
pub const BENCH_SHAPES: [[usize; 4]; 3] = [[4, 32, 4096, 64], [4, 32, 4096, 128], [1, 16, 16384, 128]];

/// A bench point's variant: `causal` and the backward's `bwd` as the peers name them,
/// `sm_90a` after them for the points of that target (compared with the same peers).
pub fn bench_variant(causal: bool, bwd: bool, arch: Arch) -> &'static str {
    match (causal, bwd, arch == Arch::Sm90a) {
        (false, false, false) => "",
        (true, false, false) => "causal",
        (false, false, true) => "sm_90a",
        (true, false, true) => "causal sm_90a",
        (false, true, false) => "bwd",
        (true, true, false) => "causal_bwd",
        (false, true, true) => "bwd sm_90a",
        (true, true, true) => "causal_bwd sm_90a",
    }
}

/// `rtriton bench --kernel attention`: each shape causal and not, in both dtypes, counting
/// `4 Z H N^2 D` flops (halved for causal) and the bytes of `q`, `k`, `v`, `o` once each.
pub fn bench_points() -> Vec<BenchPoint> {
    let mut out = Vec::new();
    for kernel in Kernel::ALL {
        for [z, h, n, d] in BENCH_SHAPES {
            for causal in [false, true] {
                for arch in [Arch::Sm86, Arch::Sm90a] {
                    let spec = Spec {
                        same_heads: true,
                        gpu_only: true,
                        arch,
                        ..Spec::new("bench", [z, h, n, d], causal, plan_for(d, arch))
                    };
                    let flops = 4 * (z * h * n * n * d) as u64 / if causal { 2 } else { 1 };
                    let variant = bench_variant(causal, false, arch);
                    out.push(BenchPoint {
                        kernel: "attention",
                        variant,
                        dtype: kernel.dtype().name(),
                        shape: vec![z, h, n, d],
                        bytes: 4 * (z * h * n * d) as u64 * 2,
                        flops,
                        launches: Box::new(move |_| {
                            let s = suite(kernel, &spec);
                            let c = s.cases[0].clone();
                            vec![(s, c)]
                        }),
                    });
                }
            }
        }
    }
    out
}

/// The forward of `spec`'s shape autotuned over `autotune_configs` (Triton tutorial 06's
/// configurations and prunes) for `spec`'s target, keyed by `N_CTX` as the tutorial's
/// `triton.autotune` is (its other key members, `HEAD_DIM` and the causal stage, are
/// constexprs here, fixed per tuner): the grid follows each configuration's `BLOCK_M`;
/// `o` and `lse` are restored between configurations, which must agree within twice the
/// outputs' rule (their sums run in another order).
pub fn autotuned(kernel: Kernel, spec: &Spec) -> rtriton_runtime::autotune::Autotuned {
    use rtriton_runtime::autotune::{Autotuned, Config as Tune};
    let (z, h, n) = (spec.z, spec.h, spec.n);
    let configs = rtriton_kernels::ports::attention::autotune_configs(spec.causal, spec.arch)
        .into_iter()
        .map(|c| Tune::new(&c.constexprs(spec.d, spec.causal, spec.window)).num_warps(c.num_warps))
        .collect();
    let base = rtriton_runtime::launch::JitKernel::new(kernel.def()).arch(spec.arch).try_grid(move |m| {
        let block_m = m.get("BLOCK_M").ok_or("BLOCK_M")?.max(1) as u64;
        Ok([(n as u64).div_ceil(block_m), (z * h) as u64, 1])
    });
    // Tiles change the online softmax's order of sums: the configurations agree within
    // twice the outputs' own rule (`rules`: 4 unit roundoffs of the dtype).
    let u = kernel.unit_roundoff();
    Autotuned::new(base, configs, &["N_CTX"]).restore_value(&["o_ptr", "lse_ptr"]).agree_within(8.0 * u, 8.0 * u)
}

/// What `cargo run --example attention [-- --dtype f16|bf16]` runs.
pub fn example() -> Vec<ExampleCase> {
    let mut cases = Vec::new();
    for kernel in Kernel::ALL {
        for (name, what) in [
            ("rows_n100", "2 x 3 heads of 100 rows, head dim 64, (batch, seq, heads, dim) strides"),
            ("n37_causal", "causal, 37 rows: the diagonal block masked, the tail masked"),
            ("d128_n96", "head dim 128"),
        ] {
            let spec = specs().into_iter().find(|s| s.name == name).expect("the example's case is in the table");
            cases.push(ExampleCase::new(kernel.dtype().name(), suite(kernel, &spec), name).saying(what));
        }
    }
    cases
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every CPU case of each kernel on the interpreter and the simulator (the GPU runs
    /// all of them, `rtriton validate --kernel attention`).
    #[test]
    fn cpu_f16() {
        for s in cpu_suites(Kernel::F16) {
            s.check_all(Backend::Interpreter);
            s.check_all(Backend::Simulator);
        }
    }

    #[test]
    fn cpu_bf16() {
        for s in cpu_suites(Kernel::Bf16) {
            s.check_all(Backend::Interpreter);
            s.check_all(Backend::Simulator);
        }
    }

    /// The rule for `o` catches an error of one key's share of 16 (`max|v| / 16`: a wrong
    /// weight or a missing key in a short row) and passes a rounding.
    #[test]
    fn the_rule_catches_a_wrong_weight_and_passes_a_rounding() {
        let spec = specs().into_iter().find(|s| s.name == "n64").unwrap();
        for kernel in Kernel::ALL {
            let s = suite(kernel, &spec);
            let want = s.expected(&s.cases[0]);
            let o = &want.buffers.iter().find(|(n, _)| *n == "o").unwrap().1;
            let (_, rule) = rules(kernel, spec.d)[0];
            let format = kernel.dtype().float().unwrap();
            let w = o.f64_at(0).unwrap();
            let off = w + 1.0 / 16.0;
            assert!(!rule.matches(format.dtype(), kernel.dtype().bits_of(off), o.bits(0)), "{kernel:?}");
            let next = format.round_from_f64(w) + 1;
            assert!(rule.matches(format.dtype(), next, o.bits(0)), "{kernel:?}");
        }
    }

    /// The window is not vacuous: rows past the window see fewer keys than causal alone
    /// gives them, and their expected `o` differs; rows inside it are the same.
    #[test]
    fn the_sliding_window_changes_the_rows_past_it() {
        let spec = specs().into_iter().find(|s| s.name == "window16_n100_causal").unwrap();
        let windowed = suite(Kernel::F16, &spec);
        let plain = suite(Kernel::F16, &Spec { window: 0, ..spec });
        let o = |s: &Suite| s.expected(&s.cases[0]).buffers.iter().find(|(n, _)| *n == "o").unwrap().1.clone();
        let (w, p) = (o(&windowed), o(&plain));
        let view = &windowed.cases[0].tensor("o").view;
        let at = |d: &rtriton_testing::Data, i: usize| d.f64_at(view.element(&[0, 0, i, 0])).unwrap();
        for i in 0..16 {
            assert_eq!(at(&w, i), at(&p, i), "row {i} sees all its keys");
        }
        assert!((16..100).filter(|&i| at(&w, i) != at(&p, i)).count() > 70);
    }

    /// The tutorial's 36 configurations less its prunes: on sm_90a no tile under 128 x 128
    /// on 8 warps, causal none with `BLOCK_M < BLOCK_N`; every one declared compiles on the
    /// interpreter's front end and the tuner's declaration checks pass.
    #[test]
    fn autotuning_tries_the_tutorials_configurations_less_its_prunes() {
        use rtriton_kernels::ports::attention::{autotune_configs, tutorial_configs};
        assert_eq!(tutorial_configs().len(), 36);
        assert_eq!(autotune_configs(false, Arch::Sm86).len(), 36);
        assert_eq!(autotune_configs(true, Arch::Sm86).len(), 30, "BLOCK_M 64 with BLOCK_N 128 pruned");
        let hopper = autotune_configs(false, Arch::Sm90a);
        assert_eq!(hopper.len(), 36 - 15, "5 tiles under 128 x 128, 3 stage counts, on 8 warps");
        assert!(hopper.iter().all(|c| c.num_warps == 4 || c.block_m * c.block_n >= 128 * 128));
        let spec = specs().into_iter().find(|s| s.name == "wgmma_n1000_causal").unwrap();
        let k = autotuned(Kernel::F16, &spec).settings(rtriton_runtime::autotune::Settings::in_memory());
        k.check().unwrap();
        assert_eq!(k.configs().len(), autotune_configs(true, Arch::Sm90a).len());
        let one = k.configs()[0].apply(k.base());
        assert_eq!(one.grid_for_launch().unwrap(), [1000u64.div_ceil(64), 6, 1]);
    }

    /// On the GPU, the forward autotuned for sm_86 and, on compute capability 9.0, for
    /// sm_90a: every configuration is tried (those whose compile spills are skipped with
    /// their reason), the fastest is kept, and its outputs meet the case's rules against
    /// the f64 reference.
    #[test]
    #[ignore = "needs a GPU"]
    fn the_autotuned_forward_meets_the_reference_on_the_gpu() {
        use rtriton_testing::compare::differences;
        use rtriton_testing::run::gpu::GpuCase;
        let mut rt = rtriton_runtime::launch::Runtime::new().expect("a GPU");
        let (major, minor) = rt.gpu.info.compute_capability;
        let cc = (major as u32, minor as u32);
        for name in ["n1000_causal", "wgmma_n1000_causal"] {
            let spec = specs().into_iter().find(|s| s.name == name).unwrap();
            if !spec.arch.runs_on(cc) {
                continue;
            }
            for kernel in Kernel::ALL {
                let s = suite(kernel, &spec);
                let c = &s.cases[0];
                let want = s.expected(c);
                let dev = GpuCase::upload(&mut rt, &s.def, c, rtriton::spec::SpecPolicy::Triton).unwrap();
                let mut k = autotuned(kernel, &spec).settings(rtriton_runtime::autotune::Settings::in_memory());
                let (choice, _) = k.launch(&mut rt, &dev.args()).unwrap_or_else(|e| panic!("{name}: {e}"));
                let got = dev.read_outputs(&rt).unwrap();
                for ((out, g), (_, w)) in got.buffers.iter().zip(&want.buffers) {
                    let (rule, _) = s.rule_of(out);
                    let (diffs, total) = differences(g, w, &rule, 3);
                    assert_eq!(total, 0, "{name} {kernel:?} with {}: `{out}` differs: {diffs:?}", choice.config);
                }
                eprintln!("{name} {kernel:?}: chose {}", choice.config);
            }
        }
    }

    #[test]
    fn bench_points_count_four_z_h_n2_d_flops() {
        let points = bench_points();
        // causal and not, for sm_86 and sm_90a
        assert_eq!(points.len(), Kernel::ALL.len() * BENCH_SHAPES.len() * 4);
        let p = points.iter().find(|p| p.label() == "attention f16 4x32x4096x64").unwrap();
        assert_eq!(p.flops, 4 * 4 * 32 * 4096 * 4096 * 64);
        let c = points.iter().find(|p| p.label() == "attention (causal) f16 4x32x4096x64").unwrap();
        assert_eq!(c.flops, p.flops / 2);
        let w = points.iter().find(|p| p.label() == "attention (causal sm_90a) f16 4x32x4096x64").unwrap();
        assert_eq!(w.flops, c.flops);
    }
}
