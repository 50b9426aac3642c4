//! Fused softmax (`softmax_kernel_*`, `softmax_online_kernel_*`) in f32, f16 and bf16: a
//! shape matrix with widths that are not powers of two (masked tails), a width past the
//! single-block limit (the online kernel), strided, transposed, offset and reversed views,
//! rows of special values, and one CPU reference computed in f64 and rounded once to the
//! output dtype. The rules are [`rule`]: ULP bounds measured on the interpreter and
//! derived in `docs/semantics.md` ("Tolerances of the ports").

use rtriton::ir::ScalarType;
use rtriton::spec::SpecPolicy;
use rtriton_kernels::ports::softmax::{self, Dtype, Form, H200_SHARED_BYTES, Plan};
use rtriton_testing::half::{bf16, f16};
use rtriton_testing::{Case, Element, Float, Rule, Suite, View};

use super::Port;
use super::bench::{BenchPoint, DTYPES, Launches, SHAPES_2D, Target, elem_bytes};
use super::example::ExampleCase;

pub const PORT: Port = Port {
    name: "softmax",
    about: "Triton tutorial 02 (softmax_kernel): row softmax over strided views, one block per row or online, in f32, f16 and bf16",
    kernels,
    suites,
    example,
    bench: bench_points,
};

/// The kernel of every form in every dtype (the staged suite runs the prefetch kernel).
fn kernels() -> Vec<rtriton::trace::KernelDef> {
    let forms = [Form::SingleBlock, Form::Online, Form::Prefetch, Form::PrefetchRegisters];
    Dtype::ALL.iter().flat_map(|&d| forms.map(|f| softmax::kernel_def(f, d))).collect()
}

/// What `cargo run --example softmax [-- --dtype f32|f16|bf16]` runs, in the dtype asked
/// for: rows of 781 columns (the tutorial's width, one block of 1024 per row) and rows of
/// 16385 columns, wider than the single-block limit (the online kernel), each launched as
/// [`softmax::plan`] says.
pub fn example() -> Vec<ExampleCase> {
    let mut cases = Vec::new();
    for dtype in Dtype::ALL {
        for (n_cols, case) in [(781, "w781"), (16385, "w16385")] {
            cases.push(ExampleCase::new(
                dtype.name(),
                suite(softmax::plan(n_cols, dtype, n_cols.is_multiple_of(16), H200_SHARED_BYTES).form, dtype),
                case,
            ));
        }
    }
    cases
}

/// The peer script's `softmax` points: its 2-D shapes in f32, f16 and bf16, contiguous
/// logits, launched as [`softmax::plan`] and [`softmax::grid`] say for the device (the
/// prefetching kernel, the next row staged in shared memory, on one program per SM for
/// 16-bit rows of 32768 columns; one program per row below that); bytes:
/// the input read once and the output written once, as the script counts them (the
/// online kernel reads the input twice, the second time mostly from L2).
pub fn bench_points() -> Vec<BenchPoint> {
    let mut out = Vec::new();
    for dtype in DTYPES {
        for (rows, cols) in SHAPES_2D {
            let launches: Launches = Box::new(move |target| {
                // Contiguous rows of a multiple of 16 columns: 16-byte vectors. The plan takes
                // the H200's shared memory: `Target` carries only the SM count so far (a
                // device with less is refused at launch, RT0713, naming the staged load).
                let plan = softmax::plan(cols, dtype_named(dtype), cols.is_multiple_of(16), H200_SHARED_BYTES);
                let grid = softmax::grid(plan, rows, target.sm_count)[0] as usize;
                let shape = Shape::contiguous(rows, cols);
                let (suite, case) = match dtype {
                    "f32" => (kernel_suite::<f32>(plan.form), case::<f32>("bench", &shape, Fill::Logits, plan, grid)),
                    "f16" => (kernel_suite::<f16>(plan.form), case::<f16>("bench", &shape, Fill::Logits, plan, grid)),
                    _ => (kernel_suite::<bf16>(plan.form), case::<bf16>("bench", &shape, Fill::Logits, plan, grid)),
                };
                vec![(suite, case)]
            });
            let bytes = 2 * (rows * cols) as u64 * elem_bytes(dtype);
            out.push(BenchPoint {
                kernel: "softmax",
                variant: "",
                dtype,
                shape: vec![rows, cols],
                bytes,
                flops: 0,
                launches,
            });
            // The other form, timed beside the planned one (see `other_plan`), named by
            // its form.
            let plan = softmax::plan(cols, dtype_named(dtype), cols.is_multiple_of(16), H200_SHARED_BYTES);
            let Some(other) = other_plan(plan, dtype_named(dtype)) else { continue };
            let variant = match other.form {
                Form::PrefetchRegisters => "registers",
                Form::Prefetch => "staged",
                Form::Online => "online",
                Form::SingleBlock => "one row",
            };
            let launches: Launches = Box::new(move |target| match dtype {
                "f32" => other_form::<f32>(rows, cols, target),
                "f16" => other_form::<f16>(rows, cols, target),
                _ => other_form::<bf16>(rows, cols, target),
            });
            out.push(BenchPoint {
                kernel: "softmax",
                variant,
                dtype,
                shape: vec![rows, cols],
                bytes,
                flops: 0,
                launches,
            });
            // Triton's own configuration where the plan stages a 16-bit row on a
            // persistent grid (32768 columns): one program per row, the same block and
            // warps, no prefetch (106 registers by ptxas for sm_90, one program an SM). At
            // 16384 columns the plan launches them so (see `softmax::plan`).
            if dtype != "f32" && plan.persistent {
                let launches: Launches = Box::new(move |target| match dtype {
                    "f16" => one_row::<f16>(rows, cols, target),
                    _ => one_row::<bf16>(rows, cols, target),
                });
                out.push(BenchPoint {
                    kernel: "softmax",
                    variant: "one row",
                    dtype,
                    shape: vec![rows, cols],
                    bytes,
                    flops: 0,
                    launches,
                });
            }
        }
    }
    out
}

/// A contiguous `rows x cols` point launched as Triton's tutorial launches it: the plan's
/// block and warps, one program per row, nothing prefetched.
fn one_row<T: Element>(rows: usize, cols: usize, target: Target) -> Vec<(Suite, Case)> {
    let planned = softmax::plan(cols, dtype_of::<T>(), true, H200_SHARED_BYTES);
    let plan = Plan { form: Form::SingleBlock, persistent: false, min_ctas_per_sm: 0, ..planned };
    let grid = softmax::grid(plan, rows, target.sm_count)[0] as usize;
    let shape = Shape::contiguous(rows, cols);
    vec![(kernel_suite::<T>(plan.form), case::<T>("bench", &shape, Fill::Logits, plan, grid))]
}

/// The form the bench times beside `planned` (a plan for contiguous vector rows), where the
/// plan chose between two: for a single block of 16 warps, the prefetch on one program per
/// SM it replaced (the next row in registers up to [`softmax::MAX_SINGLE_BLOCK`] columns,
/// staged past it); where the plan stages the row, the online kernel (the plan without
/// shared memory). `None` for the other plans (no plan keeps the next row in registers
/// since one program a row ran faster; see [`softmax::plan`]).
fn other_plan(planned: Plan, dtype: Dtype) -> Option<Plan> {
    let prefetch = |form| Plan { form, persistent: true, min_ctas_per_sm: 0, ..planned };
    match planned.form {
        Form::SingleBlock if planned.num_warps != softmax::MAX_WARPS => None,
        Form::SingleBlock if planned.block_size > softmax::MAX_SINGLE_BLOCK => Some(prefetch(Form::Prefetch)),
        Form::SingleBlock => Some(prefetch(Form::PrefetchRegisters)),
        Form::Prefetch => Some(softmax::plan(planned.block_size, dtype, true, 0)),
        Form::PrefetchRegisters | Form::Online => None,
    }
}

/// The bench's second launch for a contiguous `rows x cols` point: [`other_plan`].
fn other_form<T: Element>(rows: usize, cols: usize, target: Target) -> Vec<(Suite, Case)> {
    let dtype = dtype_of::<T>();
    let shape = Shape::contiguous(rows, cols);
    let planned = softmax::plan(cols, dtype, true, H200_SHARED_BYTES);
    let Some(other) = other_plan(planned, dtype) else { return Vec::new() };
    let grid = softmax::grid(other, rows, target.sm_count)[0] as usize;
    vec![(kernel_suite::<T>(other.form), case::<T>("bench", &shape, Fill::Logits, other, grid))]
}

/// The comparison rule of the suites of `dtype`: ULPs of the dtype, any NaN matching any
/// NaN.
pub fn rule(dtype: Dtype) -> Rule {
    Rule::ulps(match dtype {
        Dtype::F32 => F32_ULPS,
        Dtype::F16 | Dtype::Bf16 => HALF_ULPS,
    })
}

/// The f32 bound in ULPs. Where it comes from (`docs/semantics.md`, "Tolerances of the
/// ports"): `exp(x - m)` is `ex2.approx(fl(fl(x - m) * log2(e)))`, whose two roundings of
/// the argument cost up to `2.22 * |x - m|` ULPs; the sum (`sum`: pairwise on the
/// interpreter, a thread's elements then a tree on the GPU) adds up to `log2(width)` on
/// the interpreter and `width / threads + log2(threads)` on the GPU, and the reciprocal
/// of the sum and the product one ULP. The largest error measured on the
/// interpreter over every case is asserted in this module's tests
/// (`measured_error_is_within_the_bound`).
pub const F32_ULPS: u32 = 64;

/// The f16 and bf16 bound: the kernel computes in f32 (within [`F32_ULPS`] f32 ULPs,
/// under 4e-6 relative) and rounds once to the dtype, whose ULP is 2^-10 (f16) or 2^-7
/// (bf16) relative or more: the result is the correctly rounded one or its neighbour
/// when the exact value lies that close to a rounding midpoint.
pub const HALF_ULPS: u32 = 1;

/// The input and output of one case: a `rows` x `cols` matrix through two views.
#[derive(Clone, Debug)]
pub struct Shape {
    pub input: View,
    pub output: View,
}

impl Shape {
    /// Both contiguous.
    pub fn contiguous(rows: usize, cols: usize) -> Shape {
        Shape { input: View::contiguous(&[rows, cols]), output: View::contiguous(&[rows, cols]) }
    }

    pub fn input(mut self, view: View) -> Shape {
        self.input = view;
        self
    }

    pub fn output(mut self, view: View) -> Shape {
        self.output = view;
        self
    }

    fn rows(&self) -> usize {
        self.input.shape[0]
    }

    /// Whether the rows load and store as 16-byte vectors under Triton's specialization
    /// (what [`softmax::plan`] asks): contiguous columns, and the width, the row strides
    /// and the offsets multiples of 16 elements.
    fn vectors(&self) -> bool {
        let by_16 = |v: &View| v.strides[1] == 1 && v.strides[0] % 16 == 0 && v.offset.is_multiple_of(16);
        self.cols().is_multiple_of(16) && by_16(&self.input) && by_16(&self.output)
    }

    fn cols(&self) -> usize {
        self.input.shape[1]
    }
}

/// What the input rows hold.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Fill {
    /// Logits in [-8, 8) from a fixed hash of the element's position.
    Logits,
    /// Row by row, cycling: all `-inf`; one `+inf`; one NaN; values in [80, 120) (a
    /// naive `exp` overflows); values up to +-0.9 of the dtype's largest (in f32 `x - max`
    /// overflows to `-inf`); logits with every third `-inf`; signed zeros, subnormals and
    /// the smallest normal; leading `-inf`s then logits.
    Specials,
    /// `x = c * step`: the maximum is the last column, so an online pass rescales its
    /// running sum at every tile.
    Rising { step: f64 },
}

/// A value in [0, 1) from `i` and `seed` (SplitMix64: the same on every machine).
fn unit(seed: u64, i: usize) -> f64 {
    let mut z = seed.wrapping_add((i as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15));
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^= z >> 31;
    (z >> 40) as f64 / (1u64 << 24) as f64
}

/// Element `(r, c)` of a `cols`-wide matrix of `format` filled with `fill` (before
/// rounding to the dtype).
pub fn value(fill: Fill, format: Float, r: usize, c: usize, cols: usize) -> f64 {
    let logit = unit(11, r * cols + c) * 16.0 - 8.0;
    let min_normal = 2f64.powi(format.min_exponent());
    let min_subnormal = 2f64.powi(format.min_exponent() - format.mantissa_bits() as i32);
    let max = (2.0 - 2f64.powi(-(format.mantissa_bits() as i32))) * 2f64.powi(1 - format.min_exponent());
    match fill {
        Fill::Logits => logit,
        Fill::Rising { step } => c as f64 * step,
        Fill::Specials => match r % 8 {
            0 => f64::NEG_INFINITY,
            1 if c == cols / 2 => f64::INFINITY,
            2 if c == cols / 3 => f64::NAN,
            3 => 80.0 + unit(12, r * cols + c) * 40.0,
            4 => [0.9 * max, -0.9 * max, 0.3 * max, -1.0][c % 4],
            5 if c % 3 == 1 => f64::NEG_INFINITY,
            6 => [0.0, -0.0, min_subnormal, -3.0 * min_subnormal, min_normal][c % 5],
            7 if c < cols / 2 + cols % 2 => f64::NEG_INFINITY,
            _ => logit,
        },
    }
}

/// Output elements outside the view keep this value: a stray store shows as a mismatch
/// (softmax values are in [0, 1] or NaN).
const CANARY: f64 = 7.0;

/// `x` rounded to `T` (every float dtype takes every f64).
fn round<T: Element>(x: f64) -> T {
    T::round_from_f64(x).expect("a float dtype")
}

/// A case of element type `T` and `shape` filled with `fill`, launched as `plan` says on
/// `grid` programs.
pub fn case<T: Element>(name: &str, shape: &Shape, fill: Fill, plan: Plan, grid: usize) -> Case {
    let format = Float::of(T::SCALAR).expect("softmax takes float dtypes");
    let (rows, cols) = (shape.rows(), shape.cols());
    let mut input = vec![round::<T>(-1.0); shape.input.min_buffer_len()];
    for r in 0..rows {
        for c in 0..cols {
            input[shape.input.element(&[r, c])] = round(value(fill, format, r, c, cols));
        }
    }
    let output = vec![round::<T>(CANARY); shape.output.min_buffer_len()];
    let stride = |v: &View, d: usize| v.strides[d] as i64;
    Case::new(name)
        .output("output", output, shape.output.clone())
        .input("input", input, shape.input.clone())
        .int(stride(&shape.input, 0))
        .int(stride(&shape.input, 1))
        .int(stride(&shape.output, 0))
        .int(stride(&shape.output, 1))
        .int(rows as i64)
        .int(cols as i64)
        .constexpr("BLOCK_SIZE", plan.block_size as i64)
        .num_warps(plan.num_warps)
        .min_ctas_per_sm(plan.min_ctas_per_sm)
        .grid([grid as u32, 1, 1])
}

/// The kernels' dtype of element type `T`.
fn dtype_of<T: Element>() -> Dtype {
    match T::SCALAR {
        ScalarType::F16 => Dtype::F16,
        ScalarType::BF16 => Dtype::Bf16,
        // f32; the kernels exist in three dtypes only (not an op kind)
        _ => Dtype::F32,
    }
}

/// The kernels' dtype of the peer script's dtype name.
fn dtype_named(name: &str) -> Dtype {
    Dtype::ALL.into_iter().find(|d| d.name() == name).unwrap_or(Dtype::F32)
}

/// A case with the block and warps [`softmax::plan`] gives its width, one program per row.
fn planned<T: Element>(name: &str, shape: Shape, fill: Fill) -> Case {
    let plan = softmax::plan(shape.cols(), dtype_of::<T>(), shape.vectors(), H200_SHARED_BYTES);
    case::<T>(name, &shape, fill, plan, shape.rows())
}

/// The online kernel with tiles of `tile` columns (narrower than the row, so the loop,
/// its masked last tile and the rescaling run on small widths too).
fn tiled<T: Element>(name: &str, shape: Shape, fill: Fill, tile: usize) -> Case {
    let plan = Plan {
        form: Form::Online,
        block_size: tile,
        num_warps: softmax::num_warps(tile, dtype_of::<T>()),
        persistent: false,
        min_ctas_per_sm: 0,
    };
    case::<T>(name, &shape, fill, plan, shape.rows())
}

/// The single-block kernel's cases: every width of the matrix whose plan is one block.
pub fn single_block_cases<T: Element>() -> Vec<Case> {
    let c = Shape::contiguous;
    let transposed = |rows, cols| View::contiguous(&[cols, rows]).transposed(0, 1);
    vec![
        planned::<T>("w1", c(5, 1), Fill::Logits),
        planned::<T>("w7", c(9, 7), Fill::Logits),
        planned::<T>("w781", c(6, 781), Fill::Logits),
        planned::<T>("w1000", c(4, 1000), Fill::Logits),
        planned::<T>("w1024", c(4, 1024), Fill::Logits),
        planned::<T>("w4097", c(3, 4097), Fill::Logits),
        planned::<T>("w781_padded_rows", c(5, 781).input(View::strided(&[5, 781], &[800, 1])), Fill::Logits),
        planned::<T>("w1000_col_stride_2", c(3, 1000).input(View::strided(&[3, 1000], &[2001, 2])), Fill::Logits),
        planned::<T>("w130_transposed_in", c(6, 130).input(transposed(6, 130)), Fill::Logits),
        planned::<T>("w130_transposed_out", c(6, 130).output(transposed(6, 130)), Fill::Logits),
        planned::<T>(
            "w300_offset_cols_reversed",
            c(4, 300).input(View::contiguous(&[4, 300]).with_offset(9).flipped(1)),
            Fill::Logits,
        ),
        planned::<T>(
            "w96_padded_out",
            c(5, 96).output(View::strided(&[5, 96], &[100, 1]).with_offset(3)),
            Fill::Logits,
        ),
        planned::<T>("w781_specials", c(8, 781), Fill::Specials),
        planned::<T>("w1024_specials", c(8, 1024), Fill::Specials),
        planned::<T>("w1_specials", c(8, 1), Fill::Specials),
        planned::<T>("w520_rising", c(2, 520), Fill::Rising { step: 0.125 }),
        case::<T>(
            "w1024_one_warp",
            &c(3, 1024),
            Fill::Logits,
            Plan { num_warps: 1, ..softmax::plan(1024, dtype_of::<T>(), true, H200_SHARED_BYTES) },
            3,
        ),
        case::<T>(
            "w200_rows_loop",
            &c(10, 200),
            Fill::Logits,
            softmax::plan(200, dtype_of::<T>(), false, H200_SHARED_BYTES),
            3,
        ),
    ]
}

/// The online kernel's cases: the width past the single-block limit as [`softmax::plan`]
/// launches it, and the matrix's widths in small tiles.
pub fn online_cases<T: Element>() -> Vec<Case> {
    let c = Shape::contiguous;
    let wide = softmax::MAX_SINGLE_BLOCK + 1;
    vec![
        planned::<T>("w16385", c(2, wide), Fill::Logits),
        planned::<T>("w16385_specials", c(8, wide), Fill::Specials),
        tiled::<T>("w1_tile1", c(5, 1), Fill::Logits, 1),
        tiled::<T>("w7_tile4", c(9, 7), Fill::Logits, 4),
        tiled::<T>("w781_tile256", c(6, 781), Fill::Logits, 256),
        tiled::<T>("w1000_tile128", c(4, 1000), Fill::Logits, 128),
        tiled::<T>("w1024_tile256", c(4, 1024), Fill::Logits, 256),
        tiled::<T>("w4097_tile1024", c(3, 4097), Fill::Logits, 1024),
        tiled::<T>("w781_tile128_specials", c(8, 781), Fill::Specials, 128),
        tiled::<T>("w1000_tile64_rising", c(2, 1000), Fill::Rising { step: 0.125 }, 64),
        tiled::<T>("w1000_tile64_falling", c(2, 1000), Fill::Rising { step: -0.125 }, 64),
        tiled::<T>(
            "w500_tile64_transposed_in",
            c(6, 500).input(View::contiguous(&[500, 6]).transposed(0, 1)),
            Fill::Logits,
            64,
        ),
        tiled::<T>(
            "w500_tile64_strided_both",
            c(3, 500)
                .input(View::strided(&[3, 500], &[1003, 2]))
                .output(View::contiguous(&[3, 500]).with_offset(4).flipped(1)),
            Fill::Logits,
            64,
        ),
        case::<T>(
            "w300_tile64_rows_loop",
            &c(10, 300),
            Fill::Logits,
            Plan { form: Form::Online, block_size: 64, num_warps: 1, persistent: false, min_ctas_per_sm: 0 },
            4,
        ),
    ]
}

/// The prefetching kernel's cases: the single-block cases launched on the prefetching
/// kernel, then persistent grids (programs looping over rows, so the prefetched row is
/// used), down to one program for every row.
pub fn prefetch_cases<T: Element>() -> Vec<Case> {
    let c = Shape::contiguous;
    let prefetch = |cols: usize| Plan {
        form: Form::Prefetch,
        persistent: true,
        ..softmax::plan(cols, dtype_of::<T>(), false, H200_SHARED_BYTES)
    };
    // The single-block cases (the suite's kernel is what makes them prefetch) at the warps
    // of element-wise rows, up to blocks of 4096: the suites also run unspecialized,
    // where the prefetched row takes an address register per element, and a block of
    // 8192 (or one warp on 1024) spills there; `plan` prefetches only vector rows, whose
    // widest blocks `tests/tests/port_softmax.rs` assembles and the bench checks on the GPU.
    let mut cases: Vec<Case> = single_block_cases::<T>()
        .into_iter()
        .filter(|case| case.name != "w1024_one_warp" && case.constexprs[0].1 <= 4096)
        .map(|mut case| {
            let cols = case.tensor("input").view.shape[1];
            case.num_warps = softmax::plan(cols, dtype_of::<T>(), false, H200_SHARED_BYTES).num_warps;
            case
        })
        .collect();
    cases.extend([
        case::<T>("w781_persistent_3_of_10", &c(10, 781), Fill::Logits, prefetch(781), 3),
        case::<T>("w1000_persistent_1_of_7", &c(7, 1000), Fill::Logits, prefetch(1000), 1),
        case::<T>("w3001_persistent_2_of_5_specials", &c(5, 3001), Fill::Specials, prefetch(3001), 2),
        case::<T>(
            "w130_persistent_transposed_in",
            &c(9, 130).input(View::contiguous(&[130, 9]).transposed(0, 1)),
            Fill::Logits,
            prefetch(130),
            4,
        ),
        case::<T>("w520_persistent_rising", &c(6, 520), Fill::Rising { step: 0.125 }, prefetch(520), 5),
    ]);
    cases
}

/// The prefetching kernel on vector rows past the single-block limit, as [`softmax::plan`]
/// launches them on the H200 (one block of 32768, the next row staged in shared memory
/// with `cp.async`): only under Triton's specialization, which proves the 16-byte vectors;
/// unspecialized, the rows load element by element and the plan takes the online kernel.
pub fn staged_cases<T: Element>() -> Vec<Case> {
    let c = Shape::contiguous;
    let planned_on = |cols: usize| softmax::plan(cols, dtype_of::<T>(), true, H200_SHARED_BYTES);
    vec![
        case::<T>("w32768_persistent_2_of_3", &c(3, 32768), Fill::Logits, planned_on(32768), 2),
        // 16400 columns in a block of 32768: the staged vectors past the row are masked off
        // (zero fill, then -inf).
        case::<T>("w16400_persistent_2_of_5_specials", &c(5, 16400), Fill::Specials, planned_on(16400), 2),
    ]
}

/// The suite of [`staged_cases`] in element type `T` (Triton's specialization only).
pub fn staged_suite_of<T: Element>() -> Suite {
    kernel_suite::<T>(Form::Prefetch).cases(staged_cases::<T>()).policies(&[SpecPolicy::Triton])
}

/// [`staged_suite_of`] for `dtype`.
pub fn staged_suite(dtype: Dtype) -> Suite {
    match dtype {
        Dtype::F32 => staged_suite_of::<f32>(),
        Dtype::F16 => staged_suite_of::<f16>(),
        Dtype::Bf16 => staged_suite_of::<bf16>(),
    }
}

/// `output[r, c] = exp(x[r, c] - m) / sum_c' exp(x[r, c'] - m)` in f64 with `m` the row's
/// maximum (NaN ignored, as the kernel's `max`), rounded once to the output's dtype. A
/// row holding NaN or `+inf`, or only `-inf`, is NaN throughout, as on every back end
/// (and in torch).
pub fn reference(case: &mut Case) {
    let shape = &case.tensor("input").view.shape;
    let (rows, cols) = (shape[0], shape[1]);
    for r in 0..rows {
        let x: Vec<f64> = (0..cols).map(|c| case.tensor("input").f64_at(&[r, c])).collect();
        let m = x.iter().copied().filter(|v| !v.is_nan()).fold(f64::NEG_INFINITY, f64::max);
        let e: Vec<f64> = x.iter().map(|v| (v - m).exp()).collect();
        let s: f64 = e.iter().sum();
        for (c, e) in e.iter().enumerate() {
            case.tensor_mut("output").set_f64(&[r, c], e / s);
        }
    }
}

/// The kernel of `form` in element type `T` with its reference and rule, no cases yet
/// (the bench adds its own).
fn kernel_suite<T: Element>(form: Form) -> Suite {
    let dtype = dtype_of::<T>();
    Suite::new(softmax::kernel_def(form, dtype)).reference(reference).rule(rule(dtype))
}

/// The suite of the kernel of `form` in element type `T`.
pub fn suite_of<T: Element>(form: Form) -> Suite {
    let cases = match form {
        Form::SingleBlock => single_block_cases::<T>(),
        Form::Online => online_cases::<T>(),
        Form::Prefetch | Form::PrefetchRegisters => prefetch_cases::<T>(),
    };
    kernel_suite::<T>(form).cases(cases)
}

/// The suite of the kernel of `form` for `dtype`.
pub fn suite(form: Form, dtype: Dtype) -> Suite {
    match dtype {
        Dtype::F32 => suite_of::<f32>(form),
        Dtype::F16 => suite_of::<f16>(form),
        Dtype::Bf16 => suite_of::<bf16>(form),
    }
}

/// Every softmax suite: every form in each dtype, and the staged wide rows.
pub fn suites() -> Vec<Suite> {
    Dtype::ALL
        .iter()
        .flat_map(|&d| {
            [
                suite(Form::SingleBlock, d),
                suite(Form::Online, d),
                suite(Form::Prefetch, d),
                staged_suite(d),
                suite(Form::PrefetchRegisters, d),
            ]
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use rtriton_testing::Backend;
    use rtriton_testing::run::run_interpreter;

    use super::*;

    /// For each suite, `cpu`: every case on the interpreter and the simulator (the GPU
    /// runs them in `host/tests/ports_gpu.rs`).
    macro_rules! suite_tests {
        ($($name:ident: $form:expr, $dtype:expr;)*) => {$(
            mod $name {
                use super::*;

                #[test]
                fn cpu() {
                    let s = suite($form, $dtype);
                    s.check_all(Backend::Interpreter);
                    s.check_all(Backend::Simulator);
                }
            }
        )*};
    }

    suite_tests! {
        single_block_f32: Form::SingleBlock, Dtype::F32;
        single_block_f16: Form::SingleBlock, Dtype::F16;
        single_block_bf16: Form::SingleBlock, Dtype::Bf16;
        prefetch_f32: Form::Prefetch, Dtype::F32;
        prefetch_f16: Form::Prefetch, Dtype::F16;
        prefetch_bf16: Form::Prefetch, Dtype::Bf16;
        prefetch_registers_f32: Form::PrefetchRegisters, Dtype::F32;
        prefetch_registers_f16: Form::PrefetchRegisters, Dtype::F16;
        prefetch_registers_bf16: Form::PrefetchRegisters, Dtype::Bf16;
        online_f32: Form::Online, Dtype::F32;
        online_f16: Form::Online, Dtype::F16;
        online_bf16: Form::Online, Dtype::Bf16;
    }

    /// The staged wide rows on the interpreter and the simulator (which checks every
    /// `cp.async` slot is waited for before it is read back).
    #[test]
    fn staged_wide_rows_cpu() {
        for dtype in Dtype::ALL {
            let s = staged_suite(dtype);
            assert_eq!(s.policies, [SpecPolicy::Triton]);
            s.check_all(Backend::Interpreter);
            s.check_all(Backend::Simulator);
        }
    }

    /// The bench measures the peer script's shapes in every dtype, counting the bytes as
    /// it does, each launched as `plan` says.
    #[test]
    fn bench_points_are_the_peer_scripts_launched_as_planned() {
        let all = bench_points();
        let points: Vec<&BenchPoint> = all.iter().filter(|p| p.variant.is_empty()).collect();
        assert_eq!(points.len(), DTYPES.len() * SHAPES_2D.len());
        let labels: Vec<String> = points.iter().map(|p| p.label()).collect();
        assert!(labels.contains(&"softmax f16 4096x1024".to_string()), "{labels:?}");
        let p = points.iter().find(|p| p.label() == "softmax bf16 4096x1024").unwrap();
        assert_eq!(p.bytes, 2 * 4096 * 1024 * 2);
        let launches = (p.launches)(Target::H200);
        let (suite, case) = &launches[0];
        assert_eq!(suite.def.name, "softmax_kernel_bf16");
        assert_eq!((case.constexprs.clone(), case.num_warps, case.grid), (vec![("BLOCK_SIZE", 1024)], 1, [4096, 1, 1]));
        let p = points.iter().find(|p| p.label() == "softmax f16 4096x16384").unwrap();
        let (suite, case) = &(p.launches)(Target::H200)[0];
        assert_eq!(suite.def.name, "softmax_kernel_f16", "16-bit rows of 16384: one program per row");
        assert_eq!((case.num_warps, case.grid, case.min_ctas_per_sm), (16, [4096, 1, 1], 0), "no bound");
        let p = points.iter().find(|p| p.label() == "softmax f16 2048x32768").unwrap();
        let (_, case) = &(p.launches)(Target { sm_count: 100 })[0];
        assert_eq!(case.grid, [100, 1, 1], "a persistent grid: one program per SM of the target");
        let p = points.iter().find(|p| p.label() == "softmax f32 4096x16384").unwrap();
        let (suite, case) = &(p.launches)(Target::H200)[0];
        assert_eq!(suite.def.name, "softmax_kernel_f32", "f32 rows of 16384: one program per row");
        assert_eq!((case.num_warps, case.grid, case.min_ctas_per_sm), (16, [4096, 1, 1], 2), "two per SM");
        let p = points.iter().find(|p| p.label() == "softmax f32 2048x32768").unwrap();
        let (suite, case) = &(p.launches)(Target::H200)[0];
        assert_eq!(suite.def.name, "softmax_kernel_f32", "f32 rows of 32768: one program per row");
        assert_eq!(
            (case.constexprs.clone(), case.num_warps, case.grid, case.min_ctas_per_sm),
            (vec![("BLOCK_SIZE", 32768)], 16, [2048, 1, 1], 0)
        );
        let p = points.iter().find(|p| p.label() == "softmax f16 2048x32768").unwrap();
        let (suite, case) = &(p.launches)(Target::H200)[0];
        assert_eq!(suite.def.name, "softmax_prefetch_kernel_f16", "16-bit rows of 32768 stage the next row");
        assert_eq!(
            (case.constexprs.clone(), case.num_warps, case.grid),
            (vec![("BLOCK_SIZE", 32768)], 16, [132, 1, 1])
        );
        // Beside every point of 16 warps, the other form: the register prefetch beside rows
        // of 16384 run one per program, the staged prefetch beside f32 rows of 32768, the
        // online kernel where the plan stages the row; and beside those (16-bit rows of
        // 32768), Triton's launch: one program a row.
        let variants: Vec<String> = all.iter().filter(|p| !p.variant.is_empty()).map(BenchPoint::label).collect();
        assert_eq!(variants.len(), 2 * DTYPES.len() + 2, "{variants:?}");
        let find = |label: &str| all.iter().find(|p| p.label() == label).unwrap_or_else(|| panic!("no {label}"));
        let (suite, case) = &(find("softmax (registers) f32 4096x16384").launches)(Target::H200)[0];
        assert_eq!(suite.def.name, "softmax_prefetch_registers_kernel_f32");
        assert_eq!((case.num_warps, case.grid, case.min_ctas_per_sm), (16, [132, 1, 1], 0));
        let (suite, case) = &(find("softmax (staged) f32 2048x32768").launches)(Target::H200)[0];
        assert_eq!(suite.def.name, "softmax_prefetch_kernel_f32");
        assert_eq!((case.num_warps, case.grid), (16, [132, 1, 1]));
        let (suite, _) = &(find("softmax (online) bf16 2048x32768").launches)(Target::H200)[0];
        assert_eq!(suite.def.name, "softmax_online_kernel_bf16");
        let (suite, case) = &(find("softmax (registers) f16 4096x16384").launches)(Target::H200)[0];
        assert_eq!(suite.def.name, "softmax_prefetch_registers_kernel_f16");
        assert_eq!((case.num_warps, case.grid, case.min_ctas_per_sm), (16, [132, 1, 1], 0));
        let (suite, case) = &(find("softmax (one row) bf16 2048x32768").launches)(Target::H200)[0];
        assert_eq!(suite.def.name, "softmax_kernel_bf16");
        assert_eq!((case.constexprs.clone(), case.grid), (vec![("BLOCK_SIZE", 32768)], [2048, 1, 1]));
    }

    #[test]
    fn suites_cover_every_form_in_every_dtype() {
        let names: Vec<&str> = suites().iter().map(|s| s.def.name).collect();
        assert_eq!(
            names,
            [
                "softmax_kernel_f32",
                "softmax_online_kernel_f32",
                "softmax_prefetch_kernel_f32",
                "softmax_prefetch_kernel_f32",
                "softmax_prefetch_registers_kernel_f32",
                "softmax_kernel_f16",
                "softmax_online_kernel_f16",
                "softmax_prefetch_kernel_f16",
                "softmax_prefetch_kernel_f16",
                "softmax_prefetch_registers_kernel_f16",
                "softmax_kernel_bf16",
                "softmax_online_kernel_bf16",
                "softmax_prefetch_kernel_bf16",
                "softmax_prefetch_kernel_bf16",
                "softmax_prefetch_registers_kernel_bf16"
            ]
        );
    }

    /// The largest error of the interpreter against the f64 reference over every case of
    /// each dtype, in ULPs of the dtype, is within the rule (the values the docs quote).
    #[test]
    fn measured_error_is_within_the_bound() {
        for dtype in Dtype::ALL {
            let mut worst = (0, String::new());
            for s in [
                suite(Form::SingleBlock, dtype),
                suite(Form::Online, dtype),
                suite(Form::Prefetch, dtype),
                suite(Form::PrefetchRegisters, dtype),
            ] {
                for c in &s.cases {
                    let want = s.expected(c);
                    let got = run_interpreter(&s.def, c, SpecPolicy::Triton).unwrap();
                    let (w, g) = (&want.buffers[0].1, &got.buffers[0].1);
                    let format = Float::of(w.dtype()).unwrap();
                    for i in 0..w.len() {
                        if let Some(d) = format.ulp_distance(g.bits(i), w.bits(i))
                            && d > worst.0
                        {
                            let at = format!(
                                "{} / {}: element {i}: want {}, got {}",
                                s.def.name,
                                c.name,
                                w.describe(i),
                                g.describe(i)
                            );
                            worst = (d, at);
                        }
                    }
                }
            }
            eprintln!("{}: largest error {} ulp ({})", dtype.name(), worst.0, worst.1);
            let Rule { tolerance: rtriton_testing::Tolerance::Ulps(bound), .. } = rule(dtype) else {
                panic!("softmax rules are ULP bounds")
            };
            assert!(worst.0 <= u64::from(bound), "{}: {} ulp at {}", dtype.name(), worst.0, worst.1);
        }
    }
}
