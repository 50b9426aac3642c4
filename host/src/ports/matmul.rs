//! Matrix multiplication (`rtriton_kernels::ports::matmul`, Triton's tutorial 03):
//! `C = A @ B` (and `leaky_relu(A @ B)`) in `f16`, `bf16` and `f32`-as-tf32, one suite per
//! kernel and case, since each case's tolerance depends on its `K` and its values.
//!
//! The cases: sizes from 1 to 4099 in every dimension, most of them not multiples of the
//! tile; `A` or `B` transposed (strides swapped), strided and offset views, a reversed
//! `A`, a transposed `C`; special values (infinities, NaN, zero rows); the fused
//! `leaky_relu`; grids whose row tiles are and are not a multiple of `GROUP_SIZE_M`. The
//! cases of at most about 100 per dimension run on every back end (`cargo test` runs them
//! on the interpreter and the simulator); the large ones, with the tutorial's large tiles,
//! on the GPU only (each is marked unsupported on the CPU back ends, which would take
//! minutes).
//!
//! The reference computes `acc = sum_k a[m, k] b[k, n]` in f64 from the operands as the
//! dot reads them (tf32-rounded, for the `f32` kernel), applies the activation and rounds
//! once to `C`'s dtype. The cases named `wgmma_*` are lowered for `sm_90a` (`Case::arch`):
//! their 16-bit products run as `wgmma` with `B` read through a shared-memory descriptor
//! (`lower/wgmma.rs`), on the simulator and on a GPU of compute capability 9.0 (another
//! GPU refuses their launch, `RT0721`); `f32` runs `mma.sync` there as everywhere.
//!
//! The tolerance ([`rule`], `docs/semantics.md`'s dot rule and
//! "Tolerances of the ports") is the dot rule for the `f32` accumulator plus the rounding
//! to `C`'s dtype.

use rtriton::backend::ptx::Arch;
use rtriton::spec::SpecPolicy;
use rtriton_kernels::ports::matmul::{
    Access, Config, LEAKY_RELU, NO_ACTIVATION, SM86_SHARED_BYTES, SM90_SHARED_BYTES, TUTORIAL_CONFIGS, WIDE_TILE,
    access, autotune_configs, matmul_kernel_bf16, matmul_kernel_descriptor_persistent_bf16,
    matmul_kernel_descriptor_persistent_f16, matmul_kernel_descriptor_persistent_tf32, matmul_kernel_f16,
    matmul_kernel_persistent_bf16, matmul_kernel_persistent_f16, matmul_kernel_persistent_tf32, matmul_kernel_tf32,
    plan,
};
use rtriton_testing::{Backend, Case, Rule, Suite, View};

use super::Port;
use super::bench::BenchPoint;
use super::dtype::{Dtype, mix, uniform};
use super::example::ExampleCase;

pub const PORT: Port = Port {
    name: "matmul",
    about: "C = A @ B (tutorial 03's matmul_kernel: grouped tile order, K loop of dot, optional leaky_relu), f16/bf16/tf32",
    kernels: || Kernel::ALL.iter().flat_map(|k| [k.def(), k.persistent_def(), k.descriptor_def()]).collect(),
    suites,
    bench: bench_points,
    example,
};

/// One matmul kernel.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Kernel {
    F16,
    Bf16,
    /// `f32` inputs multiplied as tf32, `f32` output.
    Tf32,
}

impl Kernel {
    pub const ALL: [Kernel; 3] = [Kernel::F16, Kernel::Bf16, Kernel::Tf32];

    pub fn def(self) -> rtriton::trace::KernelDef {
        match self {
            Kernel::F16 => matmul_kernel_f16(),
            Kernel::Bf16 => matmul_kernel_bf16(),
            Kernel::Tf32 => matmul_kernel_tf32(),
        }
    }

    /// The persistent form (tutorial 09's): `NUM_SMS` programs looping over the tiles.
    pub fn persistent_def(self) -> rtriton::trace::KernelDef {
        match self {
            Kernel::F16 => matmul_kernel_persistent_f16(),
            Kernel::Bf16 => matmul_kernel_persistent_bf16(),
            Kernel::Tf32 => matmul_kernel_persistent_tf32(),
        }
    }

    /// The persistent form through tensor descriptors (tutorial 09's
    /// `matmul_kernel_descriptor_persistent`; tensor copies on sm_90a).
    pub fn descriptor_def(self) -> rtriton::trace::KernelDef {
        match self {
            Kernel::F16 => matmul_kernel_descriptor_persistent_f16(),
            Kernel::Bf16 => matmul_kernel_descriptor_persistent_bf16(),
            Kernel::Tf32 => matmul_kernel_descriptor_persistent_tf32(),
        }
    }

    /// The element type of `A`, `B` and `C`.
    pub fn dtype(self) -> Dtype {
        match self {
            Kernel::F16 => Dtype::F16,
            Kernel::Bf16 => Dtype::BF16,
            Kernel::Tf32 => Dtype::F32,
        }
    }

    /// What `bench --dtype` and the example's `--dtype` call it.
    pub fn name(self) -> &'static str {
        self.dtype().name()
    }

    /// The configurations autotuning tries for this kernel (the tutorial's that compile
    /// without spills), as `rtriton_runtime::autotune` takes them (`num_stages` has no
    /// knob there: rtriton does not pipeline the K loop), with the activation given.
    pub fn autotune_configs(self, activation: i64) -> Vec<rtriton_runtime::autotune::Config> {
        autotune_configs(self == Kernel::Tf32)
            .iter()
            .map(|c| rtriton_runtime::autotune::Config::new(&c.constexprs(activation)).num_warps(c.num_warps))
            .collect()
    }

    /// An operand element as the dot reads it: f16 and bf16 widen exactly; tf32 rounds the
    /// f32 value to 10 mantissa bits, to nearest with ties away from zero
    /// (`cvt.rna.tf32.f32`, `docs/semantics.md`).
    pub fn read(self, x: f64) -> f64 {
        match self {
            Kernel::Tf32 => f64::from(rtriton::semantics::convert::f32_to_tf32_rna(x as f32)),
            Kernel::F16 | Kernel::Bf16 => x,
        }
    }

    /// The unit roundoff of `C`'s dtype (half an ulp, relative).
    fn unit_roundoff(self) -> f64 {
        let p = self.dtype().float().map_or(24, |f| f.precision());
        2f64.powi(-(p as i32))
    }

    /// The smallest subnormal of `C`'s dtype: the absolute error of rounding a tiny result.
    fn smallest_subnormal(self) -> f64 {
        match self {
            Kernel::F16 => 2f64.powi(-24),
            Kernel::Bf16 => 2f64.powi(-133),
            Kernel::Tf32 => 2f64.powi(-149),
        }
    }
}

/// The rule of a case of `kernel` with inner size `k` whose finite operands bound every
/// result's `sum_k |a[m, k] b[k, n]|` by `magnitude`:
///
/// - the accumulator, in `f32` in any order, is within `e = (K + 1) 2^-23 magnitude` of
///   the exact sum (`docs/semantics.md`, "dot");
/// - `leaky_relu`'s `0.01 x` rounds once in `f32` (and scales `e` down), and storing
///   rounds once to `C`'s dtype, while the reference rounds the exact value once: with
///   `u` the dtype's unit roundoff plus `2^-24`, `|got - want| <= e + u (|got| + |want|)`
///   up to a subnormal step;
/// - a sum of two terms is at most twice the larger, so a result passes when it is within
///   `2 e` (plus the dtype's smallest subnormal) absolute or `4 u (1 + u)` relative.
pub fn rule(kernel: Kernel, k: usize, magnitude: f64) -> Rule {
    let e = (k as f64 + 1.0) * 2f64.powi(-23) * magnitude;
    let u = kernel.unit_roundoff() + 2f64.powi(-24);
    Rule::approx(2.0 * e + kernel.smallest_subnormal(), 4.0 * u * (1.0 + u))
}

/// How an operand or the result is laid out.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Layout {
    /// Row-major, contiguous.
    Rows,
    /// Column-major: the strides of `Rows` swapped (`A.T` of a contiguous `K x M`).
    Transposed,
    /// Rows padded by 5 elements, every other column, 3 elements into the buffer.
    Strided,
    /// Row-major with the rows in reverse order (a negative row stride).
    Reversed,
}

impl Layout {
    fn view(self, rows: usize, cols: usize) -> View {
        match self {
            Layout::Rows => View::contiguous(&[rows, cols]),
            Layout::Transposed => View::contiguous(&[cols, rows]).transposed(0, 1),
            Layout::Strided => View::strided(&[rows, cols], &[(2 * cols + 5) as isize, 2]).with_offset(3),
            Layout::Reversed => View::contiguous(&[rows, cols]).flipped(0),
        }
    }
}

/// What the operands hold.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Fill {
    /// Values in [-1, 1) with every mantissa bit of the dtype used.
    Ordinary,
    /// Ordinary values with an infinity in row 1 of `A`, a `-inf` in row 2 of `A` and a
    /// `+inf` in column 2 of `B` (so element (2, 2) sees `inf - inf`), a NaN in column 0 of
    /// `B`, and row 3 of `A` all zeros (signed).
    Specials,
}

/// One case: sizes, layouts, values, the configuration and the activation.
#[derive(Clone, Copy, Debug)]
pub struct Spec {
    pub name: &'static str,
    pub m: usize,
    pub n: usize,
    pub k: usize,
    pub a: Layout,
    pub b: Layout,
    pub c: Layout,
    pub fill: Fill,
    /// The configuration, or `None` for `plan`'s (from whether the operands are vectors).
    pub config: Option<Config>,
    pub activation: i64,
    /// Run on the GPU only (too large for the CPU back ends).
    pub gpu_only: bool,
    /// The target the simulator and the GPU run (`sm_90a`: `wgmma`).
    pub arch: Arch,
    /// The persistent kernel (tutorial 09's form) on this many programs (`NUM_SMS`), each
    /// looping over its tiles; `None`: one program a tile.
    pub persistent: Option<usize>,
    /// The persistent kernel's descriptor form (`persistent` must be set): every matrix
    /// read and written through a tensor descriptor, so each needs its rows contiguous.
    pub descriptors: bool,
}

impl Spec {
    const fn new(name: &'static str, [m, n, k]: [usize; 3], config: Option<Config>) -> Spec {
        Spec {
            name,
            m,
            n,
            k,
            a: Layout::Rows,
            b: Layout::Rows,
            c: Layout::Rows,
            fill: Fill::Ordinary,
            config,
            activation: NO_ACTIVATION,
            gpu_only: false,
            arch: Arch::Sm86,
            persistent: None,
            descriptors: false,
        }
    }

    /// The kernel this case launches: `kernel`'s one-program-a-tile form, or its
    /// persistent one.
    pub fn def(&self, kernel: Kernel) -> rtriton::trace::KernelDef {
        match self.persistent {
            Some(_) if self.descriptors => kernel.descriptor_def(),
            Some(_) => kernel.persistent_def(),
            None => kernel.def(),
        }
    }
}

/// The tutorial's configurations the cases launch (`TUTORIAL_CONFIGS`, with their stages:
/// the K loops go through shared-memory rings): the two of 2 warps keep the CPU back ends
/// fast; the GPU cases take `plan`'s, and one the K tile of 64.
pub const SMALL_M: Config = TUTORIAL_CONFIGS[6]; // 64 x 32 x 32, 2 warps, 5 stages
pub const SMALL_N: Config = TUTORIAL_CONFIGS[7]; // 32 x 64 x 32, 2 warps, 5 stages
pub const LARGE: Config = TUTORIAL_CONFIGS[3]; // 128 x 64 x 32, 4 warps, 4 stages
pub const WIDE_K: Config = TUTORIAL_CONFIGS[15]; // 128 x 32 x 64, 4 warps, 4 stages

/// `sm_90a`'s cases: one warpgroup, `B` in 128-byte rows (`m64n64k16`).
pub const WGMMA_SMALL: Config = Config::new(64, 64, 32, 3, 4);
/// One warpgroup, `B`'s 256-byte rows in two panels (`m64n128k16`).
pub const WGMMA_PANELS: Config = Config::new(64, 128, 32, 3, 4);
/// Two warpgroups along M.
pub const WGMMA_TWO_GROUPS: Config = Config::new(128, 64, 32, 3, 8);
/// The bench's tile on `sm_90a`: two warpgroups of `m64n128k16`, K tiles of 64.
pub const WGMMA_TILE: Config = Config::new(128, 128, 64, 3, 8);
/// Triton's largest 16-bit tile on sm_90: two warpgroups of `m64n256k16`.
pub const WGMMA_WIDE: Config = Config::new(128, 256, 64, 3, 8);

/// Configurations whose cases run under both specializations, with every operand element
/// at an address of its own when unspecialized: the 2-warp tiles and `plan`'s tile for
/// contiguous operands (`tests/tests/ports_ptxas.rs` assembles every case's launch without
/// spills). The others need 16-byte vector operands, so their suites run Triton's
/// specialization only (unspecialized, nothing is known to be a vector, and `plan` would
/// not choose them).
fn fits_any_operands(c: Config) -> bool {
    [SMALL_M, SMALL_N, plan(Access::Contiguous, Access::Contiguous)].contains(&c)
}

/// The configuration `spec` launches.
pub fn config_of(kernel: Kernel, spec: &Spec) -> Config {
    let elem = kernel.dtype().float().map_or(4, |f| f.width() / 8) as i64;
    // `A` wraps along M (its dimension 0), `B` along N (its dimension 1).
    let access = |view: View, wrapped_dim: usize| {
        let s = |d: usize| view.strides[d] as i64;
        let k_dim = 1 - wrapped_dim;
        access([s(wrapped_dim), s(k_dim)], view.shape[wrapped_dim] as i64, view.offset as i64 * elem)
    };
    let config = spec
        .config
        .unwrap_or_else(|| plan(access(spec.a.view(spec.m, spec.k), 0), access(spec.b.view(spec.k, spec.n), 1)));
    // A configuration keeps the stages whose rings fit its target's shared memory: sm_90's
    // for the 16-bit kernels on sm_90a (`wgmma`; the 128 x 256 x 64 tile keeps its 3),
    // sm_86's otherwise (tf32 runs `mma.sync` on every target, where more stages of the
    // wide tiles' 4-byte rings spill; 4-byte operands on sm_86 lose some).
    let shared = if spec.arch == Arch::Sm90a && elem == 2 { SM90_SHARED_BYTES } else { SM86_SHARED_BYTES };
    config.fitting(elem as usize, shared)
}

/// Operand element `[r, c]` of `which` (0: `A`, 1: `B`) as `dtype`'s bits.
fn operand_value(dtype: Dtype, fill: Fill, which: usize, r: usize, c: usize) -> u64 {
    let v = uniform(mix(r * 8191 + c, which + 17), -1.0, 1.0);
    if fill == Fill::Specials {
        let special = match (which, r, c) {
            (0, 1, 0) => Some(f64::INFINITY),
            (0, 2, 1) => Some(f64::NEG_INFINITY),
            (0, 3, c) => Some(if c % 2 == 0 { 0.0 } else { -0.0 }),
            (1, 1, 2) => Some(f64::INFINITY),
            (1, 0, 0) => Some(f64::NAN),
            _ => None,
        };
        if let Some(s) = special {
            return dtype.bits_of(s);
        }
    }
    dtype.bits_of(v)
}

/// The operands as the dot reads them (row-major `f64`), `B` transposed so that each
/// result reads two contiguous rows.
fn operands(kernel: Kernel, case: &Case, m: usize, n: usize, k: usize) -> (Vec<f64>, Vec<f64>) {
    let (a, b) = (case.tensor("a"), case.tensor("b"));
    let a: Vec<f64> = (0..m * k).map(|i| kernel.read(a.f64_at(&[i / k, i % k]))).collect();
    let bt: Vec<f64> = (0..n * k).map(|i| kernel.read(b.f64_at(&[i % k, i / k]))).collect();
    (a, bt)
}

/// The largest `sum_k |a[m, k] b[k, n]|` of the finite operands can reach: each row of
/// `|A|` times the largest `|B|` of each `k` (non-finite operands give non-finite results,
/// compared as such).
fn magnitude_bound(a: &[f64], bt: &[f64], m: usize, n: usize, k: usize) -> f64 {
    let finite = |x: f64| if x.is_finite() { x.abs() } else { 0.0 };
    let b_max: Vec<f64> = (0..k).map(|kk| (0..n).map(|j| finite(bt[j * k + kk])).fold(0.0, f64::max)).collect();
    (0..m).map(|i| (0..k).map(|kk| finite(a[i * k + kk]) * b_max[kk]).sum::<f64>()).fold(0.0, f64::max)
}

/// Writes the expected `C` into `case`: the f64 sum (rows split over threads: the GPU-only
/// cases reach 10^9 products), the activation, one rounding to `C`'s dtype. The f64 sum's
/// own error, `K 2^-53` of the magnitude, is far below the rule's `(K + 1) 2^-23`.
fn reference(kernel: Kernel, activation: i64, case: &mut Case) {
    let [m, k] = [case.tensor("a").view.shape[0], case.tensor("a").view.shape[1]];
    let n = case.tensor("b").view.shape[1];
    let (a, bt) = operands(kernel, case, m, n, k);
    let mut out = vec![0.0f64; m * n];
    let threads = std::thread::available_parallelism().map_or(1, |t| t.get()).min(m.max(1));
    let rows_per = m.div_ceil(threads).max(1);
    std::thread::scope(|s| {
        for (t, chunk) in out.chunks_mut(rows_per * n).enumerate() {
            let (a, bt) = (&a, &bt);
            s.spawn(move || {
                for (r, row) in chunk.chunks_mut(n).enumerate() {
                    let i = t * rows_per + r;
                    let ai = &a[i * k..(i + 1) * k];
                    for (j, o) in row.iter_mut().enumerate() {
                        let bj = &bt[j * k..(j + 1) * k];
                        *o = ai.iter().zip(bj).map(|(x, y)| x * y).sum();
                    }
                }
            });
        }
    });
    // The kernel multiplies by the f32 constant 0.01.
    let slope = f64::from(0.01f32);
    let c = case.tensor_mut("c");
    for i in 0..m {
        for j in 0..n {
            let v = out[i * n + j];
            let v = if activation == LEAKY_RELU && v < 0.0 { v * slope } else { v };
            c.set_f64(&[i, j], v);
        }
    }
}

/// The case `spec` of `kernel`.
pub fn case(kernel: Kernel, spec: &Spec) -> Case {
    let dtype = kernel.dtype();
    let Spec { m, n, k, .. } = *spec;
    let config = config_of(kernel, spec);
    let (av, bv, cv) = (spec.a.view(m, k), spec.b.view(k, n), spec.c.view(m, n));
    let a = dtype.through_view(&av, |i| operand_value(dtype, spec.fill, 0, i[0], i[1]));
    let b = dtype.through_view(&bv, |i| operand_value(dtype, spec.fill, 1, i[0], i[1]));
    let (sa, sb, sc) = (av.strides.clone(), bv.strides.clone(), cv.strides.clone());
    let mut c = Case::new(spec.name)
        .input("a", a, av)
        .input("b", b, bv)
        .output("c", dtype.poisoned(&cv), cv)
        .int(m as i64)
        .int(n as i64)
        .int(k as i64);
    for s in [sa[0], sa[1], sb[0], sb[1], sc[0], sc[1]] {
        c = c.int(s as i64);
    }
    for (name, v) in config.constexprs(spec.activation) {
        c = c.constexpr(name, v);
    }
    let grid = match spec.persistent {
        Some(programs) => {
            c = c.constexpr("NUM_SMS", programs as i64);
            [programs as u32, 1, 1]
        }
        None => config.grid(m, n),
    };
    c = c.grid(grid).num_warps(config.num_warps).arch(spec.arch);
    if spec.gpu_only {
        let why = "too large for the CPU back ends (minutes); the GPU runs it";
        c = c.unsupported(Backend::Interpreter, why).unsupported(Backend::Simulator, why);
    }
    c
}

/// The suite of one case: the case, the reference and the case's rule.
pub fn suite(kernel: Kernel, spec: &Spec) -> Suite {
    let c = case(kernel, spec);
    let (a, bt) = operands(kernel, &c, spec.m, spec.n, spec.k);
    let magnitude = magnitude_bound(&a, &bt, spec.m, spec.n, spec.k);
    suite_of(kernel, c, spec, magnitude)
}

/// The suite of `c` (the case `spec` of `kernel`) whose operands bound each result's
/// `sum_k |a b|` by `magnitude`.
fn suite_of(kernel: Kernel, c: Case, spec: &Spec, magnitude: f64) -> Suite {
    let activation = spec.activation;
    let suite = Suite::new(spec.def(kernel))
        .case(c)
        .reference(move |case| reference(kernel, activation, case))
        .rule(rule(kernel, spec.k, magnitude));
    // The descriptor form compiles only where its last strides are specialized to 1, as
    // Triton's descriptors (unspecialized, it is refused with RT0112: tensor_descriptors.rs).
    if fits_any_operands(config_of(kernel, spec)) && !spec.descriptors {
        suite
    } else {
        suite.policies(&[SpecPolicy::Triton])
    }
}

/// The shape table (module doc), the same for every kernel.
pub fn specs() -> Vec<Spec> {
    let s = |name, sizes, config| Spec::new(name, sizes, Some(config));
    let planned = |name, sizes| Spec::new(name, sizes, None);
    let mut out = vec![
        s("1x1x1", [1, 1, 1], SMALL_M),
        s("16x16x16", [16, 16, 16], SMALL_N),
        s("33x17x50", [33, 17, 50], SMALL_M),
        s("100x96x70", [100, 96, 70], SMALL_M),
        s("97x5x40", [97, 5, 40], SMALL_M),
        // 10 row tiles of 32 in groups of 8: a full group, then a group of 2.
        s("groups_300x130x16", [300, 130, 16], SMALL_N),
        s("k_tail_40x70x97", [40, 70, 97], SMALL_M),
        Spec { a: Layout::Transposed, ..s("a_transposed", [45, 38, 67], SMALL_M) },
        Spec { b: Layout::Transposed, ..s("b_transposed", [45, 38, 67], SMALL_N) },
        Spec {
            a: Layout::Transposed,
            b: Layout::Transposed,
            c: Layout::Transposed,
            // 32 x 64: ptxas spills 8 bytes of 64 x 32 x 32 here for sm_86 in bf16
            ..s("all_transposed", [70, 33, 41], SMALL_N)
        },
        Spec { a: Layout::Strided, b: Layout::Strided, c: Layout::Strided, ..s("strided", [37, 50, 45], SMALL_N) },
        Spec { a: Layout::Reversed, ..s("a_reversed", [29, 40, 33], SMALL_M) },
        Spec { fill: Fill::Specials, ..s("specials", [20, 24, 40], SMALL_M) },
        Spec { activation: LEAKY_RELU, ..s("leaky_relu", [50, 70, 60], SMALL_M) },
    ];
    // sm_90a: `wgmma` with one and two warpgroups, `B` in one row or in panels, `B`
    // transposed (copied through registers into the same slots), specials and the
    // activation.
    let wg = |spec: Spec| Spec { arch: Arch::Sm90a, ..spec };
    out.extend([
        wg(s("wgmma_130x70x100", [130, 70, 100], WGMMA_SMALL)),
        wg(s("wgmma_panels_70x160x96", [70, 160, 96], WGMMA_PANELS)),
        wg(Spec { b: Layout::Transposed, ..s("wgmma_b_transposed", [45, 70, 67], WGMMA_SMALL) }),
        wg(Spec {
            fill: Fill::Specials,
            activation: LEAKY_RELU,
            ..s("wgmma_two_groups_specials", [150, 64, 40], WGMMA_TWO_GROUPS)
        }),
    ]);
    // The persistent form: fewer programs than tiles (each loops over several, the last
    // ones fewer), more programs than tiles (some compute none), on both targets.
    out.extend([
        Spec { persistent: Some(3), ..s("persistent_300x130x40", [300, 130, 40], SMALL_N) },
        Spec { persistent: Some(8), ..s("persistent_idle_40x40x20", [40, 40, 20], SMALL_M) },
        wg(Spec {
            persistent: Some(5),
            activation: LEAKY_RELU,
            ..s("persistent_wgmma_150x200x70", [150, 200, 70], WGMMA_SMALL)
        }),
    ]);
    // The descriptor form: on sm_86 masked accesses; on sm_90a tensor copies (TMA) into
    // `wgmma`'s slots where the rows are multiples of 16 elements apart (tails in every
    // dimension, B in one row and in panels, two warpgroups), else `cp.async`.
    let desc = |programs: usize, spec: Spec| Spec { persistent: Some(programs), descriptors: true, ..spec };
    out.extend([
        desc(3, s("descriptors_100x80x80", [100, 80, 80], SMALL_M)),
        wg(desc(5, Spec { activation: LEAKY_RELU, ..s("descriptors_tma_150x208x80", [150, 208, 80], WGMMA_SMALL) })),
        wg(desc(4, s("descriptors_tma_panels_70x160x96", [70, 160, 96], WGMMA_PANELS))),
        wg(desc(
            3,
            Spec { fill: Fill::Specials, ..s("descriptors_tma_two_groups_150x64x48", [150, 64, 48], WGMMA_TWO_GROUPS) },
        )),
        wg(desc(5, s("descriptors_unaligned_150x200x70", [150, 200, 70], WGMMA_SMALL))),
    ]);
    let gpu = |spec: Spec| Spec { gpu_only: true, ..spec };
    out.extend([
        gpu(planned("4099x97x130", [4099, 97, 130])),
        gpu(planned("129x4099x65", [129, 4099, 65])),
        gpu(planned("77x61x4099", [77, 61, 4099])),
        gpu(planned("1025x1031x1027", [1025, 1031, 1027])),
        gpu(Spec {
            a: Layout::Transposed,
            b: Layout::Transposed,
            ..planned("transposed_513x771x1000", [513, 771, 1000])
        }),
        gpu(Spec { a: Layout::Strided, c: Layout::Transposed, ..planned("strided_600x500x700", [600, 500, 700]) }),
        // Vector operands: `plan`'s large tile, and the K tile of 64.
        gpu(Spec { activation: LEAKY_RELU, ..planned("leaky_relu_1000x1008x1040", [1000, 1008, 1040]) }),
        gpu(Spec { fill: Fill::Specials, ..s("specials_320x320x320", [320, 320, 320], WIDE_K) }),
        // The bench's staged tile (the next K tiles prefetched), sizes as the bench's.
        gpu(s("staged_1024x512x768", [1024, 512, 768], LARGE)),
        gpu(Spec { fill: Fill::Specials, ..s("staged_specials_256x256x4096", [256, 256, 4096], LARGE) }),
        // The large tiles take operands whose rows are 16-byte aligned (N and K multiples
        // of 16, as a model's are): other strides copy through registers, and these tiles
        // would spill there, on sm_86's `mma.sync` as on `wgmma`; M and the tiles' tails
        // are free.
        gpu(wg(s("wgmma_1025x1040x1056", [1025, 1040, 1056], WGMMA_TILE))),
        gpu(wg(Spec { activation: LEAKY_RELU, ..s("wgmma_wide_1000x1008x1040", [1000, 1008, 1040], WGMMA_WIDE) })),
        gpu(wg(Spec {
            a: Layout::Transposed,
            b: Layout::Transposed,
            ..s("wgmma_transposed_528x784x1008", [528, 784, 1008], WGMMA_TWO_GROUPS)
        })),
        gpu(wg(Spec { fill: Fill::Specials, ..s("wgmma_specials_256x256x4096", [256, 256, 4096], WGMMA_TILE) })),
        gpu(Spec { persistent: Some(132), ..planned("persistent_1025x1031x1027", [1025, 1031, 1027]) }),
        gpu(wg(Spec { persistent: Some(132), ..s("persistent_wgmma_2000x1504x1008", [2000, 1504, 1008], WGMMA_TILE) })),
        gpu(wg(desc(132, s("descriptors_tma_2000x1504x1008", [2000, 1504, 1008], WGMMA_TWO_GROUPS)))),
        gpu(wg(desc(
            132,
            Spec {
                fill: Fill::Specials,
                ..s("descriptors_tma_specials_1025x1040x4104", [1025, 1040, 4104], WGMMA_PANELS)
            },
        ))),
    ]);
    out
}

/// Every kernel's suites, one per case.
pub fn suites() -> Vec<Suite> {
    Kernel::ALL.iter().flat_map(|&k| specs().iter().map(|s| suite(k, s)).collect::<Vec<_>>()).collect()
}

/// The suites of `kernel` for the cases the CPU back ends run.
pub fn cpu_suites(kernel: Kernel) -> Vec<Suite> {
    specs().iter().filter(|s| !s.gpu_only).map(|s| suite(kernel, s)).collect()
}

/// The bench's sizes: square `n x n x n` products.
pub const BENCH_SIZES: [usize; 4] = [1024, 2048, 4096, 8192];

/// The configuration the bench launches for 16-bit operands (the tutorial autotunes over
/// `TUTORIAL_CONFIGS`; rtriton's bench times one: the fastest measured of
/// `autotune_configs`, 128 x 128 x 64 on 4 warps with 2 stages).
pub const BENCH_CONFIG: Config = WIDE_TILE;

/// The configuration the bench launches on sm_90a (`wgmma`), 16-bit only: 128 x 256 x 64
/// on two warpgroups with 3 stages, the fastest measured at 4096^3 and 8192^3 (with both
/// operands through descriptors and a group in flight; `docs/performance.md`).
pub const BENCH_CONFIG_SM90A: Config = WGMMA_WIDE;

/// The configuration the bench launches for `f32` as tf32: 128 x 64 x 32 on 4 warps with
/// the 3 stages whose rings of 4-byte elements fit sm_86 (`config_of` fits them).
pub const BENCH_CONFIG_TF32: Config = LARGE;

/// The configuration the bench launches for `kernel`.
pub fn bench_config(kernel: Kernel) -> Config {
    if kernel == Kernel::Tf32 { BENCH_CONFIG_TF32 } else { BENCH_CONFIG }
}

/// `rtriton bench --kernel matmul`: `n^3` products in every dtype, counting `2 n^3`
/// flops and the bytes of `A`, `B` and `C` once each.
pub fn bench_points() -> Vec<BenchPoint> {
    let mut out = Vec::new();
    for kernel in Kernel::ALL {
        for n in BENCH_SIZES {
            let elem = kernel.dtype().float().map_or(4, |f| f.width() / 8) as u64;
            let spec = Spec { gpu_only: true, ..Spec::new("bench", [n, n, n], Some(bench_config(kernel))) };
            out.push(BenchPoint {
                kernel: "matmul",
                variant: "",
                dtype: kernel.name(),
                shape: vec![n, n, n],
                bytes: 3 * (n * n) as u64 * elem,
                flops: 2 * (n as u64).pow(3),
                // Ordinary operands lie in [-1, 1]: `sum_k |a b| <= K` bounds every result
                // without a pass over 2^26-element operands.
                launches: Box::new(move |_| {
                    let c = case(kernel, &spec);
                    vec![(suite_of(kernel, c.clone(), &spec, spec.k as f64), c)]
                }),
            });
        }
    }
    // sm_90a's `wgmma` path, 16-bit only, at the sizes (a device of compute
    // capability 9.0 runs them; the peers are the same points' `torch` and `triton`), one
    // program a tile and persistent (one program an SM).
    for (variant, persistent, descriptors) in
        [("sm_90a", false, false), ("persistent sm_90a", true, false), ("persistent tma sm_90a", true, true)]
    {
        for kernel in [Kernel::F16, Kernel::Bf16] {
            for n in [4096, 8192] {
                let spec = Spec {
                    gpu_only: true,
                    arch: Arch::Sm90a,
                    ..Spec::new("bench_sm_90a", [n, n, n], Some(BENCH_CONFIG_SM90A))
                };
                out.push(BenchPoint {
                    kernel: "matmul",
                    variant,
                    dtype: kernel.name(),
                    shape: vec![n, n, n],
                    bytes: 3 * (n * n) as u64 * 2,
                    flops: 2 * (n as u64).pow(3),
                    launches: Box::new(move |target| {
                        let spec = Spec { persistent: persistent.then_some(target.sm_count), descriptors, ..spec };
                        let c = case(kernel, &spec);
                        vec![(suite_of(kernel, c.clone(), &spec, spec.k as f64), c)]
                    }),
                });
            }
        }
    }
    out
}

/// What `cargo run --example matmul [-- --dtype f16|bf16|f32]` runs: a product with
/// tails in every dimension, a transposed `B`, and the fused `leaky_relu`.
pub fn example() -> Vec<ExampleCase> {
    let mut cases = Vec::new();
    for kernel in Kernel::ALL {
        for (name, what) in [
            ("100x96x70", "C = A @ B, 100 x 70 by 70 x 96: tiles of 64 x 32, K in steps of 32"),
            ("b_transposed", "B given transposed (its strides swapped)"),
            ("leaky_relu", "leaky_relu(A @ B) fused before the store"),
        ] {
            let spec = specs().into_iter().find(|s| s.name == name).expect("the example's case is in the table");
            cases.push(ExampleCase::new(kernel.name(), suite(kernel, &spec), name).saying(what));
        }
    }
    cases
}

#[cfg(test)]
mod tests {
    use std::collections::HashMap;

    use rtriton::spec::SpecPolicy;
    use rtriton_testing::run::{run_interpreter, run_simulator};

    use super::*;

    /// Every CPU case of each kernel on the interpreter and the simulator (the GPU runs
    /// all of them, `rtriton validate --kernel matmul`).
    macro_rules! cpu_tests {
        ($($name:ident: $kernel:expr;)*) => {$(
            #[test]
            fn $name() {
                for s in cpu_suites($kernel) {
                    s.check_all(Backend::Interpreter);
                    s.check_all(Backend::Simulator);
                }
            }
        )*};
    }

    cpu_tests! {
        cpu_f16: Kernel::F16;
        cpu_bf16: Kernel::Bf16;
        cpu_tf32: Kernel::Tf32;
    }

    /// Every size from 1 to 4099 in each dimension, tails everywhere, every layout, the
    /// specials and the activation; the large cases run on the GPU only.
    #[test]
    fn the_table_covers_what_the_port_promises() {
        let specs = specs();
        for dim in 0..3 {
            let sizes: Vec<usize> = specs.iter().map(|s| [s.m, s.n, s.k][dim]).collect();
            assert!(sizes.contains(&1) && sizes.contains(&4099), "dim {dim}: {sizes:?}");
        }
        for layout in [Layout::Transposed, Layout::Strided, Layout::Reversed] {
            assert!(specs.iter().any(|s| !s.gpu_only && (s.a == layout || s.b == layout || s.c == layout)));
        }
        assert!(specs.iter().any(|s| !s.gpu_only && s.fill == Fill::Specials));
        assert!(specs.iter().any(|s| !s.gpu_only && s.activation == LEAKY_RELU));
        for s in specs.iter().filter(|s| !s.gpu_only) {
            assert!(s.m.max(s.n).max(s.k) <= 300, "{}: too large for the CPU back ends", s.name);
        }
    }

    /// The rule is the dot rule plus the output rounding: a result off by one term of
    /// the sum fails it, one off by an ulp of `C` passes.
    #[test]
    fn the_rule_catches_a_missing_term_and_passes_a_rounding() {
        let spec = specs().into_iter().find(|s| s.name == "100x96x70").unwrap();
        for kernel in Kernel::ALL {
            let s = suite(kernel, &spec);
            let c = &s.cases[0];
            let want = s.expected(c);
            let w = &want.buffers[0].1;
            let dtype = kernel.dtype();
            let (a, b) = (c.tensor("a"), c.tensor("b"));
            let view = &c.tensor("c").view;
            for (i, j) in [(0, 0), (17, 40), (99, 95)] {
                let e = view.element(&[i, j]);
                let exact = w.f64_at(e).unwrap();
                let term = kernel.read(a.f64_at(&[i, 69])) * kernel.read(b.f64_at(&[69, j]));
                let missing = dtype.bits_of(exact - term);
                let format = dtype.float().unwrap();
                let next = format.round_from_f64(exact) + 1;
                assert!(!s.rule.matches(format.dtype(), missing, w.bits(e)), "{kernel:?} ({i}, {j}) without a term");
                assert!(s.rule.matches(format.dtype(), next, w.bits(e)), "{kernel:?} ({i}, {j}) one ulp off");
            }
        }
    }

    /// The grouped order on the kernel itself: for grids of several shapes (row tiles a
    /// multiple of `GROUP_SIZE_M` or not, one column of tiles or several), the simulator
    /// records which program wrote each element of `C`: every element is written once
    /// (the simulator refuses duplicate stores), every tile by one program, and that
    /// program is the one `tile_of` maps to it.
    #[test]
    fn every_tile_is_written_once_by_the_program_the_grouped_order_gives_it() {
        use rtriton_kernels::ports::matmul::tile_of;
        for (m, n, group) in [(300, 130, 8), (260, 64, 8), (70, 200, 2), (33, 33, 1), (512, 40, 4)] {
            let config = Config { group_m: group, ..SMALL_N };
            let spec = Spec::new("grid", [m, n, 16], Some(config));
            let c = case(Kernel::F16, &spec);
            let got = run_simulator(&Kernel::F16.def(), &c, SpecPolicy::Triton).unwrap_or_else(|e| panic!("{e}"));
            let writers = got.writers.as_ref().expect("the simulator records writers");
            let view = &c.tensor("c").view;
            let (num_pid_m, num_pid_n) = (m.div_ceil(config.block_m), n.div_ceil(config.block_n));
            for i in 0..m {
                for j in 0..n {
                    let writer = writers[0][view.element(&[i, j])].unwrap_or_else(|| panic!("({i}, {j}) unwritten"));
                    let (pm, pn) = tile_of(writer.0[0] as usize, num_pid_m, num_pid_n, group);
                    assert_eq!((pm, pn), (i / config.block_m, j / config.block_n), "{m}x{n} group {group}: ({i}, {j})");
                }
            }
            // And the result is the product (the interpreter agrees with the reference).
            let interp = run_interpreter(&Kernel::F16.def(), &c, SpecPolicy::Triton).unwrap();
            assert_eq!(interp.buffers[0].1.to_le_bytes(), got.buffers[0].1.to_le_bytes());
        }
    }

    /// The persistent form on the simulator: program `p` writes exactly the tiles `p`, `p +
    /// NUM_SMS`, ... of the grouped order, every element once, with fewer programs than
    /// tiles and more, on both targets.
    #[test]
    fn persistent_programs_write_every_tile_of_their_stride() {
        use rtriton_kernels::ports::matmul::tile_of;
        let persistent: Vec<Spec> = specs().into_iter().filter(|s| s.persistent.is_some() && !s.gpu_only).collect();
        assert!(persistent.len() >= 3 && persistent.iter().any(|s| s.arch == Arch::Sm90a));
        for spec in persistent {
            let programs = spec.persistent.unwrap();
            let config = config_of(Kernel::F16, &spec);
            let c = case(Kernel::F16, &spec);
            let def = spec.def(Kernel::F16);
            let got = run_simulator(&def, &c, SpecPolicy::Triton).unwrap_or_else(|e| panic!("{}: {e}", spec.name));
            let writers = got.writers.as_ref().expect("the simulator records writers");
            let view = &c.tensor("c").view;
            let (num_pid_m, num_pid_n) = (spec.m.div_ceil(config.block_m), spec.n.div_ceil(config.block_n));
            let tile_id: HashMap<(usize, usize), usize> =
                (0..num_pid_m * num_pid_n).map(|t| (tile_of(t, num_pid_m, num_pid_n, config.group_m), t)).collect();
            for i in 0..spec.m {
                for j in 0..spec.n {
                    let w = writers[0][view.element(&[i, j])].unwrap_or_else(|| panic!("{}: ({i}, {j})", spec.name));
                    let t = tile_id[&(i / config.block_m, j / config.block_n)];
                    assert_eq!(w.0[0] as usize, t % programs, "{}: ({i}, {j}) in tile {t}", spec.name);
                }
            }
        }
    }

    /// Stages are fitted to the target's shared memory: the bench's sm_90a tile keeps its 3
    /// stages (147 KiB of rings, more than sm_86's 99 KiB), the same tile for sm_86 keeps 2.
    #[test]
    fn stages_fit_the_targets_shared_memory() {
        let spec = Spec { arch: Arch::Sm90a, ..Spec::new("wide", [4096, 4096, 4096], Some(BENCH_CONFIG_SM90A)) };
        assert_eq!(BENCH_CONFIG_SM90A.num_stages, 3);
        assert_eq!(config_of(Kernel::F16, &spec), BENCH_CONFIG_SM90A);
        assert_eq!(config_of(Kernel::F16, &Spec { arch: Arch::Sm86, ..spec }).num_stages, 2);
    }

    /// The runtime's configurations are the kernel module's kept list, constexprs and warps.
    #[test]
    fn autotune_configs_are_the_kept_tutorial_configs() {
        let f16 = Kernel::F16.autotune_configs(NO_ACTIVATION);
        assert_eq!(f16.len(), 18);
        assert_eq!(Kernel::Tf32.autotune_configs(LEAKY_RELU).len(), 8);
        let first = &f16[0];
        assert_eq!(first.num_warps, 4);
        assert_eq!(
            first.constexprs,
            [
                ("BLOCK_SIZE_M", 128),
                ("BLOCK_SIZE_N", 128),
                ("BLOCK_SIZE_K", 64),
                ("GROUP_SIZE_M", 8),
                ("ACTIVATION", 0),
                ("NUM_STAGES", 2)
            ]
        );
        assert!(autotune_configs(false).contains(&bench_config(Kernel::F16)));
        assert!(autotune_configs(true).contains(&bench_config(Kernel::Tf32).fitting(4, SM86_SHARED_BYTES)));
        assert_eq!(BENCH_CONFIG_TF32, plan(Access::Vectors, Access::Vectors), "the bench's operands are vectors");
        assert_eq!(BENCH_CONFIG.constexprs(NO_ACTIVATION).last(), Some(&("NUM_STAGES", 2)), "the bench pipelines");
        // tf32 keeps some tiles with fewer stages, so the tile is what must be kept there
        let tf32_tiles: Vec<Config> = autotune_configs(true).iter().map(|c| c.unstaged()).collect();
        for config in [SMALL_M, SMALL_N, LARGE, WIDE_K, plan(Access::Contiguous, Access::Contiguous)] {
            assert!(tf32_tiles.contains(&config.unstaged()), "{config:?}: the suites launch kept tiles");
        }
    }

    #[test]
    fn bench_points_count_two_mnk_flops() {
        let points = bench_points();
        // and sm_90a's 16-bit points at 4096 and 8192, one program a tile, persistent and
        // persistent through descriptors (tensor copies)
        assert_eq!(points.len(), Kernel::ALL.len() * BENCH_SIZES.len() + 3 * 2 * 2);
        assert!(points.iter().any(|p| p.label() == "matmul (persistent sm_90a) bf16 8192x8192x8192"));
        assert!(points.iter().any(|p| p.label() == "matmul (persistent tma sm_90a) f16 4096x4096x4096"));
        let p = points.iter().find(|p| p.label() == "matmul f16 4096x4096x4096").unwrap();
        let w = points.iter().find(|p| p.label() == "matmul (sm_90a) f16 4096x4096x4096").unwrap();
        assert_eq!((w.flops, w.bytes), (p.flops, p.bytes));
        assert_eq!(p.flops, 2 * 4096u64.pow(3));
        assert_eq!(p.bytes, 3 * 4096 * 4096 * 2);
        assert!(points.iter().any(|p| p.label() == "matmul bf16 8192x8192x8192"));
        assert!(points.iter().any(|p| p.label() == "matmul f32 8192x8192x8192"));
    }
}
