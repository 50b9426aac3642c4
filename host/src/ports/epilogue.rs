//! The epilogue (`rtriton_kernels::ports::epilogue`): `y = act(x * scale + bias)` with GELU
//! (tanh and erf forms) and SiLU in `f32`, `f16` and `bf16`, one suite per kernel, all from
//! one case table and one f64 reference.
//!
//! The cases: shapes that are not powers of two (1 x 1, 3 x 7, 1000 x 1, 257 x 1000, blocks
//! with tails in both dimensions, more row blocks than grid axis 1 takes), every 2-D view of `rtriton_testing::table::views_2d` for
//! `x`, an output through a transposed view, a strided and a broadcast bias, special values
//! (NaN, infinities, signed zeros with a `-0.0` bias, subnormals, the extremes), a sweep of
//! `v` over [-20, 20], and `x * scale` cancelling `bias` (which `fma` keeps exact).
//!
//! The reference computes `v = x * scale + bias` and the activation in f64 (GELU-erf through
//! `libm::erfc`, which does not cancel) and rounds once. Tolerances ([`Kernel::rule`],
//! `docs/semantics.md`'s tolerance table) are about twice the largest error the CPU back
//! ends show over the cases (`measured_errors_are_the_documented_ones` measures it by range
//! of `v`), for the GPU's `ex2.approx`: for `v >= 0` it is 2 or 3 ulps; for negative `v` it
//! grows with the functions' condition number, rounding `v` and the exponent to f32 before a
//! power of two whose exponent reaches -126 (hundreds of ulps where the result is about
//! 1e-36), and GELU-erf's `1 + erf(v / sqrt(2))` cancels for `v < -1` (as in Triton's and
//! torch's f32 formula), hence its absolute floor.

use rtriton_kernels::ports::epilogue::{self as kernels, blocks, grid, plan, vector_rows};
use rtriton_testing::table::views_2d;
use rtriton_testing::{Case, Rule, Suite, View};

use super::Port;
use super::bench::{BenchPoint, SHAPES_2D, elem_bytes};
use super::dtype::{Dtype, mix, uniform};
use super::example::ExampleCase;

pub const PORT: Port = Port {
    name: "epilogue",
    about: "y = gelu(x * scale + bias) (tanh and erf forms) and silu, a fused element-wise epilogue over strided views, f32/f16/bf16",
    kernels: || Kernel::all().into_iter().map(Kernel::def).collect(),
    suites,
    bench: bench_points,
    example,
};

/// The peer script's epilogue points (`gelu_tanh`, `gelu_erf`, `silu` on its 2-D shapes,
/// `scale = 1.25`, bias -0.5): contiguous `x` and `y`, the bias a vector of -0.5 (the
/// script's is a scalar). Bytes as the script counts them: `x` read and `y` written (the
/// bias vector, one row's worth, is left out).
pub fn bench_points() -> Vec<BenchPoint> {
    let mut out = Vec::new();
    for act in Activation::ALL {
        for dtype in Kernel::DTYPES {
            for (rows, cols) in SHAPES_2D {
                let kernel = Kernel { act, dtype };
                out.push(BenchPoint {
                    kernel: act.name(),
                    variant: "",
                    dtype: dtype.name(),
                    shape: vec![rows, cols],
                    bytes: 2 * (rows * cols) as u64 * elem_bytes(dtype.name()),
                    flops: 0,
                    launches: Box::new(move |_| {
                        let layout = Layout { bias_value: |_| -0.5, ..Layout::plain(rows, cols, 1.25) };
                        vec![(kernel.suite(), case(kernel, "bench", layout, Fill::Ordinary))]
                    }),
                });
            }
        }
    }
    out
}

/// What `cargo run --example epilogue [-- --dtype f32|f16|bf16]` runs: each activation on
/// a 257 x 1000 tensor with a per-column bias, in the dtype asked for.
pub fn example() -> Vec<ExampleCase> {
    let mut cases = Vec::new();
    for dtype in Kernel::DTYPES {
        for act in Activation::ALL {
            cases.push(ExampleCase::new(dtype.name(), Kernel { act, dtype }.suite(), "257x1000"));
        }
    }
    cases
}

/// The activations.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Activation {
    GeluTanh,
    GeluErf,
    Silu,
}

impl Activation {
    pub const ALL: [Activation; 3] = [Activation::GeluTanh, Activation::GeluErf, Activation::Silu];

    pub fn name(self) -> &'static str {
        match self {
            Activation::GeluTanh => "gelu_tanh",
            Activation::GeluErf => "gelu_erf",
            Activation::Silu => "silu",
        }
    }

    /// Whether the activation's 16-bit kernels fit 32 registers a thread (16 CTAs of 4
    /// warps an SM) without spilling, so the plan may ask for `.minnctapersm 16`: none
    /// does everywhere. ptxas 12.9 fits GELU-tanh and SiLU there for sm_86 and sm_90 under
    /// Triton's specialization, but the driver's compile for an H100 (CUDA 13.0) spilled 16
    /// to 48 bytes a thread for both unspecialized, and for GELU-tanh in bf16 specialized
    /// too (`bench/results/h100/gpu-tests/2026-12-07-661d099`), and a launch that spills is
    /// refused; GELU-erf's polynomial spills 4 bytes even in ptxas.
    pub fn fits_full_occupancy(self) -> bool {
        false
    }

    /// The activation in f64.
    pub fn exact(self, v: f64) -> f64 {
        match self {
            Activation::GeluTanh => {
                let z = (2.0 / std::f64::consts::PI).sqrt() * (v + 0.044_715 * v * v * v);
                v / (1.0 + (-2.0 * z).exp())
            }
            Activation::GeluErf => 0.5 * v * libm::erfc(-v * std::f64::consts::FRAC_1_SQRT_2),
            Activation::Silu => v / (1.0 + (-v).exp()),
        }
    }
}

/// GELU-tanh in `f32`, in ulps: about twice the CPU back ends' largest error over the cases
/// (273 ulps, near `v = -10` where the result is about 1e-36), for the GPU's `ex2.approx`.
pub const GELU_TANH_ULPS: u32 = 512;
/// GELU-erf in `f32`: relative, in units of `2^-23` (2 measured for `v >= 0`; the GPU's
/// `erf` is allowed 3), or absolute, for `v < 0` where `1 + erf` cancels: 8.3e-8 measured;
/// the GPU's 3-ulp `erf` times `|v| / 2 <= 3` (below `v = -6` the f32 result is 0) gives
/// 5.4e-7.
pub const GELU_ERF_ULPS: u32 = 4;
pub const GELU_ERF_ABS: f64 = 1.0 / 1_048_576.0;
/// SiLU in `f32`, in ulps: about twice the CPU back ends' largest (109 ulps, where the
/// result is subnormal, `v` below -87).
pub const SILU_ULPS: u32 = 256;

/// One epilogue kernel: an activation in a dtype.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Kernel {
    pub act: Activation,
    pub dtype: Dtype,
}

impl Kernel {
    pub const DTYPES: [Dtype; 3] = [Dtype::F32, Dtype::F16, Dtype::BF16];

    pub fn all() -> Vec<Kernel> {
        Kernel::DTYPES.iter().flat_map(|&dtype| Activation::ALL.map(|act| Kernel { act, dtype })).collect()
    }

    /// `gelu_tanh_f32`, ...: the kernel's name in `rtriton_kernels::ports::epilogue`.
    pub fn name(self) -> String {
        format!("{}_{}", self.act.name(), self.dtype.name())
    }

    pub fn def(self) -> rtriton::trace::KernelDef {
        let name = self.name();
        // Every (activation, dtype) has a kernel: `every_kernel_exists` checks the table.
        kernels::all().into_iter().find(|d| d.name == name).unwrap_or_else(|| panic!("no epilogue kernel `{name}`"))
    }

    /// The comparison rule of its suite (module doc; measured by
    /// `measured_errors_are_the_documented_ones`). `f16` and `bf16` round an f32 result
    /// once: within one of their ulps (GELU-erf: one ulp's relative size, `2^-10` or
    /// `2^-7`, and its absolute floor for the cancelling tail).
    pub fn rule(self) -> Rule {
        let ulp = match self.dtype {
            Dtype::F16 => 1.0 / 1024.0,
            Dtype::BF16 => 1.0 / 128.0,
            Dtype::F32 | Dtype::I32 => 0.0,
        };
        match (self.act, self.dtype) {
            (Activation::GeluTanh, Dtype::F32) => Rule::ulps(GELU_TANH_ULPS),
            (Activation::Silu, Dtype::F32) => Rule::ulps(SILU_ULPS),
            (Activation::GeluErf, Dtype::F32) => {
                Rule::approx(GELU_ERF_ABS, f64::from(GELU_ERF_ULPS) * f64::from(f32::EPSILON))
            }
            (Activation::GeluErf, _) => Rule::approx(GELU_ERF_ABS, ulp),
            (Activation::GeluTanh | Activation::Silu, _) => Rule::ulps(1),
        }
    }

    pub fn suite(self) -> Suite {
        Suite::new(self.def()).cases(cases(self)).reference(move |case| reference(self.act, case)).rule(self.rule())
    }
}

pub fn suites() -> Vec<Suite> {
    Kernel::all().into_iter().map(Kernel::suite).collect()
}

/// What `x` holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Fill {
    /// Ordinary values in [-8, 8).
    Ordinary,
    /// The dtype's special values cycled with ordinary ones.
    Specials,
    /// An even ramp over [-20, 20].
    Sweep,
    /// An even ramp over [-100, 100] (SiLU's tail reaches the subnormals near -100).
    SweepWide,
    /// `3 + k q` (`q` the dtype's ulp at 3), which `scale = 1/3` and `bias = -1` bring close
    /// to zero.
    NearThree,
}

/// `x` element `[r, c]` of an `n_rows x n_cols` case, as `dtype`'s bits.
fn x_value(dtype: Dtype, fill: Fill, r: usize, c: usize, n_rows: usize, n_cols: usize) -> u64 {
    let k = r * n_cols + c;
    let ramp = |lo: f64, hi: f64| dtype.bits_of(lo + (hi - lo) * k as f64 / (n_rows * n_cols - 1).max(1) as f64);
    match fill {
        Fill::Ordinary => dtype.bits_of(uniform(mix(k, 0), -8.0, 8.0)),
        Fill::Specials => {
            let specials = dtype.specials();
            if k % 3 == 2 {
                dtype.bits_of(k as f64 * 0.37 - 11.0)
            } else {
                specials[(k / 3 * 2 + k % 3) % specials.len()]
            }
        }
        Fill::Sweep => ramp(-20.0, 20.0),
        Fill::SweepWide => ramp(-100.0, 100.0),
        Fill::NearThree => {
            let p = dtype.float().map_or(24, |f| f.precision());
            dtype.bits_of(3.0 + (k as f64 - 500.0) * 2f64.powi(2 - p as i32))
        }
    }
}

/// How a case is laid out and scaled.
#[derive(Clone, Debug)]
struct Layout {
    x: View,
    y: View,
    /// The bias view (1-D, `n_cols` elements).
    bias: View,
    /// Bias element `c` (rounded to the dtype).
    bias_value: fn(usize) -> f64,
    scale: f32,
    blocks: Option<(usize, usize)>,
}

impl Layout {
    fn plain(n_rows: usize, n_cols: usize, scale: f32) -> Layout {
        Layout {
            x: View::contiguous(&[n_rows, n_cols]),
            y: View::contiguous(&[n_rows, n_cols]),
            bias: View::contiguous(&[n_cols]),
            bias_value: |c| (c % 17) as f64 * 0.125 - 1.0,
            scale,
            blocks: None,
        }
    }
}

/// A case of `kernel`: the launch is the plan's (`kernels::plan`) unless the layout names
/// its blocks (then 4 warps, or what the caller sets).
fn case(kernel: Kernel, name: &str, layout: Layout, fill: Fill) -> Case {
    let dtype = kernel.dtype;
    let (n_rows, n_cols) = (layout.x.shape[0], layout.x.shape[1]);
    let x = dtype.through_view(&layout.x, |i| x_value(dtype, fill, i[0], i[1], n_rows, n_cols));
    let bias = dtype.through_view(&layout.bias, |i| dtype.bits_of((layout.bias_value)(i[0])));
    let elem_bytes = elem_bytes(dtype.name()) as usize;
    let vectors = |v: &View| {
        let bytes = elem_bytes as i64;
        vector_rows([v.strides[0] as i64, v.strides[1] as i64], v.offset as i64 * bytes, bytes)
    };
    let planned =
        plan(n_rows, n_cols, elem_bytes, vectors(&layout.x) && vectors(&layout.y), kernel.act.fits_full_occupancy());
    let (b, num_warps, min_ctas) = match layout.blocks {
        Some(b) => (b, 4, 0),
        None => (planned.blocks, planned.num_warps as u32, planned.min_ctas_per_sm),
    };
    let (xs, ys, bs) = (layout.x.strides.clone(), layout.y.strides.clone(), layout.bias.strides[0]);
    Case::new(name)
        .input("x", x, layout.x)
        .input("bias", bias, layout.bias)
        .output("y", dtype.poisoned(&layout.y), layout.y)
        .int(n_rows as i64)
        .int(n_cols as i64)
        .int(xs[0] as i64)
        .int(xs[1] as i64)
        .int(bs as i64)
        .int(ys[0] as i64)
        .int(ys[1] as i64)
        .f32(layout.scale)
        .constexpr("BLOCK_M", b.0 as i64)
        .constexpr("BLOCK_N", b.1 as i64)
        .grid(grid(n_rows, n_cols, b))
        .num_warps(num_warps)
        .min_ctas_per_sm(min_ctas)
}

/// The cases (module doc) of `kernel`; every activation and dtype has the same shapes and
/// views (the launches differ where the plan does).
pub fn cases(kernel: Kernel) -> Vec<Case> {
    let case = |name: &str, layout: Layout, fill: Fill| case(kernel, name, layout, fill);
    let mut cases = vec![
        case("1x1", Layout::plain(1, 1, 1.5), Fill::Ordinary),
        case("3x7", Layout::plain(3, 7, 0.75), Fill::Ordinary),
        case("1000x1", Layout::plain(1000, 1, -1.25), Fill::Ordinary),
        case("257x1000", Layout::plain(257, 1000, 1.25), Fill::Ordinary),
        case("small_blocks", Layout { blocks: Some((4, 16)), ..Layout::plain(37, 45, 0.5) }, Fill::Ordinary),
        case(
            "one_warp",
            Layout { blocks: Some(blocks(21, 70, 1, true)), ..Layout::plain(21, 70, 2.0) },
            Fill::Ordinary,
        )
        .num_warps(1),
        // More row blocks than grid axis 1 takes (65535): the last ones on axis 2.
        case("rows_past_grid_axis_1", Layout { blocks: Some((1, 4)), ..Layout::plain(65537, 3, 0.5) }, Fill::Ordinary)
            .num_warps(1),
        case(
            "specials",
            Layout { bias_value: |c| if c % 2 == 0 { 0.0 } else { -0.0 }, ..Layout::plain(29, 31, 1.0) },
            Fill::Specials,
        ),
        case("sweep", Layout { bias_value: |_| 0.0, ..Layout::plain(64, 257, 1.0) }, Fill::Sweep),
        case("sweep_wide", Layout { bias_value: |_| 0.0, ..Layout::plain(64, 257, 1.0) }, Fill::SweepWide),
        case(
            "scale_cancels_bias",
            Layout { bias_value: |_| -1.0, ..Layout::plain(8, 125, 1.0 / 3.0) },
            Fill::NearThree,
        ),
        case(
            "y_transposed_bias_strided",
            Layout {
                y: View::contiguous(&[45, 37]).transposed(0, 1),
                bias: View::strided(&[45], &[3]).with_offset(2),
                ..Layout::plain(37, 45, 0.9)
            },
            Fill::Ordinary,
        ),
        case(
            "bias_broadcast",
            Layout {
                bias: View::contiguous(&[1]).broadcast(0, 45),
                bias_value: |_| 0.625,
                ..Layout::plain(37, 45, 1.0)
            },
            Fill::Ordinary,
        ),
    ];
    for (name, view) in views_2d(37, 45) {
        cases.push(case(&format!("x_{name}"), Layout { x: view, ..Layout::plain(37, 45, 1.1) }, Fill::Ordinary));
    }
    cases
}

/// The scale a case passes.
fn scale(case: &Case) -> f64 {
    let scale = case.args.iter().find_map(|a| if let rtriton_testing::CaseArg::F32(s) = a { Some(*s) } else { None });
    f64::from(scale.unwrap_or_else(|| panic!("case `{}` passes no scale", case.name)))
}

/// `y[r, c] = act(x[r, c] * scale + bias[c])` in f64, rounded once to the dtype.
pub fn reference(act: Activation, case: &mut Case) {
    let scale = scale(case);
    let x = case.tensor("x").clone();
    let bias = case.tensor("bias").clone();
    let y = case.tensor_mut("y");
    for index in x.view.indices() {
        let v = x.f64_at(&index) * scale + bias.f64_at(&index[1..]);
        y.set_f64(&index, act.exact(v));
    }
}

#[cfg(test)]
mod tests {
    use rtriton::spec::SpecPolicy;
    use rtriton_testing::Backend;

    use super::*;

    #[test]
    fn every_kernel_exists_and_the_table_has_no_other() {
        let names: Vec<String> = Kernel::all().into_iter().map(Kernel::name).collect();
        let defs: Vec<&str> = kernels::all().iter().map(|d| d.name).collect();
        assert_eq!(names.len(), defs.len());
        for n in &names {
            assert!(defs.contains(&n.as_str()), "no kernel `{n}`");
        }
    }

    fn check(act: Activation, dtype: Dtype) {
        let s = Kernel { act, dtype }.suite();
        s.check_all(Backend::Interpreter);
        s.check_all(Backend::Simulator);
    }

    macro_rules! every_kernel {
        ($($name:ident => $act:ident, $dtype:ident;)*) => {$(
            #[test]
            fn $name() {
                check(Activation::$act, Dtype::$dtype);
            }
        )*};
    }

    every_kernel! {
        gelu_tanh_f32 => GeluTanh, F32;
        gelu_erf_f32 => GeluErf, F32;
        silu_f32 => Silu, F32;
        gelu_tanh_f16 => GeluTanh, F16;
        gelu_erf_f16 => GeluErf, F16;
        silu_f16 => Silu, F16;
        gelu_tanh_bf16 => GeluTanh, BF16;
        gelu_erf_bf16 => GeluErf, BF16;
        silu_bf16 => Silu, BF16;
    }

    /// The largest error of the interpreter over every case of the suite, by range of
    /// `v = x * scale + bias` (below -3, in [-3, 0), at least 0): in ulps of the dtype, and
    /// absolute. Elements whose result is not finite are left out (they match bit for bit
    /// or as NaN).
    fn measured_errors(kernel: Kernel) -> [(u64, f64); 3] {
        let format = kernel.dtype.float().expect("a float dtype");
        let s = kernel.suite();
        let mut worst = [(0u64, 0.0f64); 3];
        for case in &s.cases {
            let got = rtriton_testing::run::run_interpreter(&s.def, case, SpecPolicy::Triton).expect("runs");
            let got = rtriton_testing::suite::output(&got, "y").expect("an output y").clone();
            let scale = scale(case);
            let (x, bias, y) = (case.tensor("x"), case.tensor("bias"), case.tensor("y"));
            for index in x.view.indices() {
                let v = x.f64_at(&index) * scale + bias.f64_at(&index[1..]);
                let want = kernel.act.exact(v);
                let g = got.bits(y.view.element(&index));
                let g_value = format.to_f64(g);
                if !want.is_finite() || !g_value.is_finite() {
                    continue;
                }
                let range = if v < -3.0 {
                    0
                } else if v < 0.0 {
                    1
                } else {
                    2
                };
                let ulps = format.ulp_distance(g, format.round_from_f64(want)).expect("finite");
                worst[range].0 = worst[range].0.max(ulps);
                worst[range].1 = worst[range].1.max((g_value - want).abs());
            }
        }
        worst
    }

    /// The errors `docs/ports.md` states, measured on the CPU back ends (deterministic, so
    /// the ulps are stated exactly): per range of `v` (below -3, [-3, 0), at least 0), the
    /// most ulps and a bound on the absolute error. GELU-erf's ulps below -3 are not stated
    /// for f32 and bf16: the cancellation makes them unbounded (a tiny result computed as
    /// 0), its absolute error is. (That the rule covers each element, the suites' own tests
    /// check: they compare these very outputs with the reference under it.)
    #[test]
    fn measured_errors_are_the_documented_ones() {
        use Activation::{GeluErf, GeluTanh, Silu};
        use Dtype::{BF16, F16, F32};
        type Stated = [(Option<u64>, f64); 3];
        let table: [(Activation, Dtype, Stated); 9] = [
            (GeluTanh, F32, [(Some(295), 4e-9), (Some(15), 5e-8), (Some(3), 1e-6)]),
            (GeluErf, F32, [(None, 9e-8), (Some(106), 7e-8), (Some(2), 1e-6)]),
            (Silu, F32, [(Some(109), 6e-8), (Some(5), 7e-8), (Some(3), 2e-6)]),
            (GeluTanh, F16, [(Some(0), 1e-6), (Some(1), 7e-5), (Some(1), 8e-3)]),
            (GeluErf, F16, [(Some(2), 2e-6), (Some(1), 7e-5), (Some(1), 8e-3)]),
            (Silu, F16, [(Some(1), 7e-5), (Some(1), 2e-4), (Some(1), 8e-3)]),
            (GeluTanh, BF16, [(Some(1), 8e-6), (Some(0), 5e-4), (Some(1), 7e-2)]),
            (GeluErf, BF16, [(None, 2e-5), (Some(0), 5e-4), (Some(1), 7e-2)]),
            (Silu, BF16, [(Some(0), 5e-4), (Some(0), 1e-3), (Some(0), 7e-2)]),
        ];
        for (act, dtype, stated) in table {
            let kernel = Kernel { act, dtype };
            let measured = measured_errors(kernel);
            eprintln!("MEASURED {} {:?}", kernel.name(), measured);
            for (range, ((ulps, abs), (got_ulps, got_abs))) in stated.iter().zip(measured).enumerate() {
                let name = kernel.name();
                if let Some(ulps) = ulps {
                    assert_eq!(got_ulps, *ulps, "{name}, range {range}: ulps changed; update docs/ports.md");
                }
                assert!(got_abs <= *abs, "{name}, range {range}: absolute error {got_abs:e} above {abs:e}");
            }
        }
    }
}
