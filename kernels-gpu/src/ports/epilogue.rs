//! A fused element-wise epilogue: `y = act(x * scale + bias)` over a 2-D view, with `act`
//! GELU in its tanh form or its erf form, or SiLU; `scale` a scalar, `bias` one value per
//! column. After the epilogue of Triton's `python/tutorials/03-matrix-multiplication.py`
//! (`matmul_kernel`'s `ACTIVATION` applied to the accumulator before the store) with the
//! activations of `torch.nn.functional.gelu(v, approximate="tanh" | "none")` and
//! `torch.nn.functional.silu(v)`, as a stand-alone kernel over any strides.
//!
//! Each program computes a `[BLOCK_M, BLOCK_N]` tile (column blocks along grid axis 0,
//! row blocks along axes 1 and 2: [`epilogue_body`]), in `f32` whatever the element type (`f16` and `bf16` are
//! widened after the load and rounded once before the store, as Triton computes them).
//! The formulas are the usual ones rearranged so that f32 does not cancel where the
//! result is small (`docs/ports.md`, "Epilogue"):
//!
//! - `v = fma(x, scale, bias)`: one rounding, so `x * scale` close to `-bias` keeps its
//!   digits;
//! - GELU (tanh form) `0.5 v (1 + tanh(sqrt(2/pi) (v + 0.044715 v^3)))` is the same function
//!   as `v / (1 + 2^-t)` with `t = v (C1 + C2 v^2)` (`0.5 (1 + tanh z) = 1 / (1 + e^-2z)`),
//!   the factors `2 sqrt(2/pi) log2(e)` folded into `C1`, `C2`: one `ex2.approx`, no `tanh`
//!   (whose PTX instruction is good to 2^-11 only), and for `t < 0` as `v 2^t / (1 + 2^t)`,
//!   which underflows gracefully where `1 + tanh` would cancel;
//! - GELU (erf form) `0.5 v (1 + erf(v / sqrt(2)))` as `fma(h, erf(v / sqrt(2)), h)` with
//!   `h = 0.5 v`: the sum `1 + erf` is never rounded on its own;
//! - SiLU `v * sigmoid(v)` as `v / (1 + 2^-t)` with `t = v log2(e)`, the same way: one
//!   rounding fewer than the product, and no `v / inf` for very negative `v`.
//!
//! Stored as `f16`, GELU-tanh and SiLU take the plain `fdiv(v, 1 + 2^-t)`, cheaper and as
//! good there; stored as `bf16`, the same with both terms scaled by `2^-16`
//! ([`over_one_plus_pow2`]'s doc).

use half::{bf16, f16};
use rtriton::ir::ScalarType;
use rtriton::kernel;
use rtriton::prelude::*;

/// `2 sqrt(2/pi) log2(e)` and `2 sqrt(2/pi) 0.044715 log2(e)`: GELU-tanh's exponent, in
/// powers of two (the f64 values rounded to f32).
pub const GELU_TANH_C1: f32 = (2.0 * 0.797_884_560_802_865_4 * std::f64::consts::LOG2_E) as f32;
pub const GELU_TANH_C2: f32 = (2.0 * 0.797_884_560_802_865_4 * 0.044_715 * std::f64::consts::LOG2_E) as f32;

/// An activation, computed in `f32` for a result stored as `out`.
pub trait Activation {
    fn apply(v: Tensor<f32>, out: ScalarType) -> Tensor<f32>;
}

/// GELU, tanh form (`approximate="tanh"`).
#[derive(Debug)]
pub struct GeluTanh;
/// GELU, erf form (`approximate="none"`).
#[derive(Debug)]
pub struct GeluErf;
/// SiLU (swish): `v * sigmoid(v)`.
#[derive(Debug)]
pub struct Silu;

/// `k` of the bf16 form of [`over_one_plus_pow2`]: numerator and divisor scaled by `2^-k`.
const BF16_SCALE_LOG2: f32 = 16.0;

/// An `f32` scalar constant (`fma` takes tensors of one dtype).
fn constant(v: f32) -> Tensor<f32> {
    full::<f32>(&[], v)
}

/// `v / (1 + 2^-t)` for a `t` of `v`'s sign, given `-t` (`minus_t`), written so that no
/// step overflows: for `t < 0` it is `v 2^t / (1 + 2^t)` (the power underflows to 0
/// instead of overflowing to infinity, so a very negative `v` gives `v` times a tiny
/// number, not `v / inf`).
///
/// The callers compute `-t` with negated constants rather than negating `t`: rtriton's
/// float `-x` is a bit operation (`xor`, for NaN payloads), which ptxas does not fold into
/// the `ex2` that follows, one SASS instruction an element; `v * -c` rounds to exactly
/// `-(v * c)`, so the values are the same.
///
/// The division is [`fdiv`] (`div.full.f32`, within 2 ulp), what Triton's `/` and so its
/// `tl.sigmoid` compile to, not the correctly rounded `div.rn.f32` (rtriton's `/`), whose
/// Newton steps and range check cost about twice the instructions and take a slow path (a
/// subroutine, measured 2x slower for the whole GELU-tanh kernel on the H200) when the
/// dividend is subnormal, as `v 2^t` is for most `v < -3` in the tanh form. `div.full`
/// has no such path (a fixed sequence: scale a huge divisor, reciprocal, product), so the
/// numerator is divided directly: one rounding and one SASS instruction an element fewer
/// than the reciprocal times the numerator (until `2026-12-05`). At 2 bytes an element
/// the f16/bf16 kernels issue an instruction stream the memory system barely hides, and
/// 2 f32 ulps vanish when the result is rounded to 11 or 8 bits (f32's tolerances are
/// hundreds of ulps, for `ex2.approx`).
///
/// Stored as `f16`, whose exponent range is narrower than f32's, the plain
/// `fdiv(v, 1 + 2^-t)` (Triton's `x * tl.sigmoid(x)`, divided rather than multiplied) is
/// as good and three SASS instructions an element cheaper: where `2^-t` overflows or the
/// quotient turns subnormal (`t < -126`), the exact result is below `|v| 2^t`, which is
/// largest at that boundary (`t` falls at least as fast as `v`: `v` about -87 for SiLU, -10
/// for GELU) and about 1e-36 there, far under f16's smallest subnormal (`2^-24`), so both
/// forms store a zero of `v`'s sign. Elsewhere the steps are within a few f32 ulps, as in
/// the safe form.
///
/// `bf16` has f32's exponent range: the plain form would store zero where bf16 holds the
/// result. Its kernels divide both terms scaled by `2^-16`, `fdiv(v 2^-16, 2^(-t - 16) +
/// 2^-16)`, with the `- 16` folded into the `fma` that computes `-t`: the scalings are
/// exact, and `2^(-t - 16)` overflows only past `-t = 144`, where the exact result is below
/// half of bf16's smallest subnormal (SiLU: `v` about -100; GELU: -10.6). `v 2^-16` is an
/// f32 subnormal for `|v| < 2^-110` and still keeps the 8 bits bf16 stores down to `v`
/// about `2^-125`, below which bf16's own subnormals hold no more bits than it keeps.
/// Three SASS instructions an element fewer than the safe form, one more than the plain
/// one. f32, which needs 24 bits there, keeps the safe form.
///
/// `minus_t_over_v` is `-t / v`, so that the forms can fold a term into `-t`'s `fma`; it
/// is negative (or NaN) for every `v`, so `t` has `v`'s sign.
fn over_one_plus_pow2(v: Tensor<f32>, minus_t_over_v: Tensor<f32>, out: ScalarType) -> Tensor<f32> {
    // The 16-bit forms add the power to 1 or to 2^-16, where a power below 2^-126 vanishes
    // (under half an ulp of the sum): `exp2_ftz`, which flushes such powers to 0, gives the
    // same divisor, three SASS instructions an element cheaper (no rescaling for subnormal
    // results). A subnormal exponent reads as 0: 2^0 = 1, as 2^(subnormal) rounds to.
    if out == ScalarType::BF16 {
        let scale = (-BF16_SCALE_LOG2).exp2();
        return fdiv(v * scale, exp2_ftz(fma(v, minus_t_over_v, constant(-BF16_SCALE_LOG2))) + scale);
    }
    if out == ScalarType::F16 {
        return fdiv(v, exp2_ftz(v * minus_t_over_v) + 1.0);
    }
    // `-|t| = |v| (-t / v)`, bit for bit (`-t / v` is negative: a product's magnitude does
    // not depend on the signs), and `t >= 0` where `v >= 0` (NaN: neither): one sign flip
    // (an instruction) fewer than `exp2(-abs(minus_t))`.
    let e = exp2(abs(v) * minus_t_over_v);
    fdiv(where_(v.ge(0.0), v, v * e), e + 1.0)
}

impl Activation for GeluTanh {
    fn apply(v: Tensor<f32>, out: ScalarType) -> Tensor<f32> {
        over_one_plus_pow2(v, fma(v * v, constant(-GELU_TANH_C2), constant(-GELU_TANH_C1)), out)
    }
}

impl Activation for GeluErf {
    fn apply(v: Tensor<f32>, _out: ScalarType) -> Tensor<f32> {
        let half = v * 0.5;
        fma(half, erf(v * std::f32::consts::FRAC_1_SQRT_2), half)
    }
}

impl Activation for Silu {
    fn apply(v: Tensor<f32>, out: ScalarType) -> Tensor<f32> {
        over_one_plus_pow2(v, constant(-std::f32::consts::LOG2_E), out)
    }
}

/// The launch arguments of every epilogue kernel: `x` and `y` are `n_rows x n_cols` views
/// with their own strides, `bias` a vector of `n_cols` at stride `stride_bias`.
#[derive(Clone, Copy, Debug)]
pub struct Args<E> {
    pub x_ptr: Tensor<Ptr<E>>,
    pub bias_ptr: Tensor<Ptr<E>>,
    pub y_ptr: Tensor<Ptr<E>>,
    pub n_rows: Tensor<i32>,
    pub n_cols: Tensor<i32>,
    pub stride_x_row: Tensor<i32>,
    pub stride_x_col: Tensor<i32>,
    pub stride_bias: Tensor<i32>,
    pub stride_y_row: Tensor<i32>,
    pub stride_y_col: Tensor<i32>,
    pub scale: Tensor<f32>,
    pub block_m: usize,
    pub block_n: usize,
}

/// `y = Act(x * scale + bias)` on this program's tile.
///
/// Tiles are numbered in row-major order: column blocks along axis 0, which the GPU
/// schedules first, so programs that run together read neighbouring tiles of one row band
/// (for a contiguous input, memory in order, as Triton's flat element-wise kernels walk
/// it) rather than one column band of every row. Row blocks are axis 1 plus axis 2 times
/// the programs along axis 1: axes 1 and 2 take at most 65535 programs each ([`grid`]).
pub fn epilogue_body<E: ScalarMarker, Act: Activation>(a: Args<E>) {
    // Rows in i64: the last grid slice along axis 2 can hold row blocks past the input,
    // whose first row can pass i32 (for a 4 GiB f16 column of 2^31 - 1 rows, 2048 a
    // tile, the grid's last block starts at row 2^31), and a wrapped row is negative,
    // below `n_rows`: it would be written.
    let row_block = program_id(1).to::<i64>() + program_id(2).to::<i64>() * num_programs(1).to::<i64>();
    let r = row_block * a.block_m as i64 + arange(0, a.block_m).to::<i64>();
    let cols = program_id(0) * a.block_n as i32 + arange(0, a.block_n);
    let col_mask = cols.lt(a.n_cols);
    let mask = r.lt(a.n_rows).expand_dims(1) & col_mask.expand_dims(0);
    let c = cols.to::<i64>();
    let x_offsets = (r * a.stride_x_row).expand_dims(1) + (c * a.stride_x_col).expand_dims(0);
    let x = load(a.x_ptr + x_offsets, Some(mask), None).to::<f32>();
    let bias = load(a.bias_ptr + c * a.stride_bias, Some(col_mask), None).to::<f32>();
    let y = Act::apply(fma(x, a.scale, bias.expand_dims(0)), E::SCALAR);
    let y_offsets = (r * a.stride_y_row).expand_dims(1) + (c * a.stride_y_col).expand_dims(0);
    store(a.y_ptr + y_offsets, y.to::<E>(), Some(mask));
}

/// One `kernel!` per row: `name => element type, activation`; and [`all`], every kernel.
macro_rules! epilogues {
    ($($name:ident => $e:ty, $act:ty;)*) => {
        $(
            kernel! {
                pub fn $name(x_ptr: Ptr<$e>, bias_ptr: Ptr<$e>, y_ptr: Ptr<$e>, n_rows: i32, n_cols: i32,
                             stride_x_row: i32, stride_x_col: i32, stride_bias: i32, stride_y_row: i32,
                             stride_y_col: i32, scale: f32; const BLOCK_M: usize, const BLOCK_N: usize) {
                    epilogue_body::<$e, $act>(Args { x_ptr, bias_ptr, y_ptr, n_rows, n_cols, stride_x_row, stride_x_col,
                                                     stride_bias, stride_y_row, stride_y_col, scale,
                                                     block_m: BLOCK_M, block_n: BLOCK_N });
                }
            }
        )*

        /// Every epilogue kernel, named `{activation}_{dtype}`.
        pub fn all() -> Vec<rtriton::trace::KernelDef> {
            vec![$($name()),*]
        }
    };
}

epilogues! {
    gelu_tanh_f32 => f32, GeluTanh;
    gelu_erf_f32 => f32, GeluErf;
    silu_f32 => f32, Silu;
    gelu_tanh_f16 => f16, GeluTanh;
    gelu_erf_f16 => f16, GeluErf;
    silu_f16 => f16, Silu;
    gelu_tanh_bf16 => bf16, GeluTanh;
    gelu_erf_bf16 => bf16, GeluErf;
    silu_bf16 => bf16, Silu;
}

/// Tile elements per thread: 16 at 4 warps or more where `x` and `y` are read and
/// written 16 bytes at a time (`vector_rows`: four 16-byte accesses of `f32`, two of
/// `f16`); 8 for other views and below 4 warps. Another view is read and written one
/// element at a time, each access with a 64-bit address of its own: with 16 of them for
/// `x`, the bias and `y`, ptxas's register target for a 128-thread CTA spilled 8 bytes in
/// the 16-bit transposed gathers (72 registers, sm_90) and 16 bytes in 16-bit GELU-erf on
/// rows of 45 elements (96 registers, sm_90: contiguous, but no row starts 16-byte
/// aligned). A CTA of one warp is capped at 72 registers for sm_90 as well (16 per thread
/// spilled 4 bytes in `gelu_tanh_f32`).
pub fn elems_per_thread(num_warps: usize, vector_rows: bool) -> usize {
    if num_warps >= 4 && vector_rows { 16 } else { 8 }
}

/// Whether rows of `elem_bytes`-byte elements at `(row, column)` strides `strides` (in
/// elements), starting `offset_bytes` into a 16-byte aligned allocation, are read and
/// written 16 bytes at a time: a column stride of 1, and every row starting 16-byte
/// aligned (what the PTX back end's vectorizer can prove from the specialization's
/// divisibility hints, `docs/semantics.md`).
pub fn vector_rows(strides: [i64; 2], offset_bytes: i64, elem_bytes: i64) -> bool {
    strides[1] == 1 && (strides[0] * elem_bytes).rem_euclid(16) == 0 && offset_bytes.rem_euclid(16) == 0
}

/// `(BLOCK_M, BLOCK_N)` for an `n_rows x n_cols` input launched with `num_warps` warps,
/// `vector_rows` when both `x` and `y` are ([`vector_rows`]): up to 512 columns, and as
/// many rows as fill a tile of [`elems_per_thread`] per thread (2048 elements at 4 warps
/// for vector rows).
pub fn blocks(n_rows: usize, n_cols: usize, num_warps: usize, vector_rows: bool) -> (usize, usize) {
    let pow2 = |n: usize| n.max(1).next_power_of_two();
    let tile = elems_per_thread(num_warps, vector_rows) * 32 * pow2(num_warps);
    let n = pow2(n_cols).min(512).min(tile);
    ((tile / n).min(pow2(n_rows)), n)
}

/// How an epilogue kernel is launched on an input: its tile, warps and register bound.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Plan {
    pub blocks: (usize, usize),
    pub num_warps: usize,
    /// `.minnctapersm` (0: none): CTAs of this launch an SM should hold, a register bound.
    pub min_ctas_per_sm: u32,
}

/// CTAs of 128 threads that fill an SM of sm_80 or sm_90 (2048 threads): 32 registers a
/// thread.
pub const FULL_OCCUPANCY_CTAS_OF_4_WARPS: u32 = 16;

/// The launch for an `n_rows x n_cols` input of `elem_bytes`-byte elements (H200, 2026-12-05,
/// the H200 record of 2026-12-05 at `6bf5b8e`, each plan against the others in
/// one run):
///
/// - `f32` vector rows ([`vector_rows`]): 8 warps over the 2048-element tile, 8 elements a
///   thread (two 16-byte accesses each of `x` and `y`): 1% to 3% faster than 4 warps of 16
///   on 4 of the bench's 5 shapes for each activation (GELU-tanh 4096x4096 3.57 -> 3.68
///   TB/s, 32768x1024 3.74 -> 3.83), 2% to 4% slower on the smallest (4096x1024, 16 MiB,
///   where launch and tail weigh most); in 16 bits the same change lost 3% to 8%;
/// - 16-bit vector rows: 4 warps of 16 elements (2048 a program), or of 8 (1024, half the
///   rows of the tile, Triton's tutorial block) on inputs of at least
///   [`HALF_TILE_MIN_ELEMENTS`], and where `fits_full_occupancy` (the activation's kernel
///   fits 32 registers without spilling, ptxas for sm_90), `.minnctapersm 16`: ptxas gave
///   SiLU f16 34 registers, 12 CTAs an SM instead of 16, and the bound took it from 3.59 to
///   3.85 TB/s at 4096x16384 (GELU-tanh, already at 32, did not move). The tile, measured
///   on the H200 (the H200 record of 2026-12-05 at `5dc29d8` parts T and U, SiLU and
///   GELU-tanh): 1024 elements ran 1.02x (f16) and 1.05x (bf16) of 2048 at 32768x1024, where
///   2048 stayed 2% to 8% under Triton's kernel timed beside it (part P; ncu, part E: same
///   registers and occupancy, the tile the difference), 0.99x to 1.02x at 4096x16384 and
///   2048x32768 and 0.99x to 1.01x at 4096x4096, and 0.94x to 0.96x at 4096x1024 (2^22
///   elements: 2048 programs of 2048 fill one wave of 16 CTAs on 132 SMs, 4096 of 1024
///   take two);
/// - other views: 4 warps of 8 elements ([`elems_per_thread`]).
pub fn plan(n_rows: usize, n_cols: usize, elem_bytes: usize, vector_rows: bool, fits_full_occupancy: bool) -> Plan {
    // The tile of 4 warps in every case; f32 vector rows run it on 8.
    let blocks = blocks(n_rows, n_cols, 4, vector_rows);
    if vector_rows && elem_bytes == 4 {
        return Plan { blocks, num_warps: 8, min_ctas_per_sm: 0 };
    }
    let vector_16 = vector_rows && elem_bytes == 2;
    let large = n_rows.saturating_mul(n_cols) >= HALF_TILE_MIN_ELEMENTS;
    let blocks = if vector_16 && large && blocks.0 >= 2 { (blocks.0 / 2, blocks.1) } else { blocks };
    let bound = vector_16 && fits_full_occupancy;
    Plan { blocks, num_warps: 4, min_ctas_per_sm: if bound { FULL_OCCUPANCY_CTAS_OF_4_WARPS } else { 0 } }
}

/// 16-bit vector-row inputs of at least this many elements run tiles of 1024 elements
/// rather than 2048 ([`plan`]).
pub const HALF_TILE_MIN_ELEMENTS: usize = 1 << 24;

/// The most programs along grid axes 1 and 2 (CUDA's limit).
pub const MAX_GRID_YZ: usize = 65535;

/// The grid: column blocks along axis 0, row blocks along axes 1 and 2 ([`epilogue_body`]:
/// row block `y + z * grid_y`; the last `z` may have row blocks past the input, whose
/// rows are all masked off). More column blocks than `u32::MAX` saturate, which the
/// launcher refuses with the device's limit rather than running a wrapped grid.
pub fn grid(n_rows: usize, n_cols: usize, (block_m, block_n): (usize, usize)) -> [u32; 3] {
    let row_blocks = n_rows.div_ceil(block_m).max(1);
    let (y, z) = (row_blocks.min(MAX_GRID_YZ), row_blocks.div_ceil(MAX_GRID_YZ));
    let u32_of = |n: usize| u32::try_from(n).unwrap_or(u32::MAX);
    [u32_of(n_cols.div_ceil(block_n)), u32_of(y), u32_of(z)]
}

#[cfg(test)]
mod tests {
    use super::*;
    use rtriton::ir::MathFn;
    use rtriton::semantics::math::{div_full_f32, fma_f32, math_f32};

    /// The 16-bit forms' divisor takes `exp2_ftz` (`over_one_plus_pow2`): on the CPU model
    /// every stored result equals the one `exp2` gives, for both activations' exponents and
    /// `v` swept over every f16 value (and as many bf16 ones) plus subnormal and huge ones.
    #[test]
    fn flushing_the_power_changes_no_16_bit_result() {
        let silu = |_: f32| -std::f32::consts::LOG2_E;
        let gelu = |v: f32| fma_f32(v * v, -GELU_TANH_C2, -GELU_TANH_C1);
        let scale = (-BF16_SCALE_LOG2).exp2();
        let mut vs: Vec<f32> = (0..=u16::MAX).map(|b| f16::from_bits(b).to_f32()).collect();
        vs.extend((0..=u16::MAX).map(|b| bf16::from_bits(b).to_f32()));
        vs.extend([f32::from_bits(1), -f32::from_bits(1), 1e-30, -1e-30, -150.0, -1e6, f32::MIN, f32::MAX]);
        let mut checked = 0;
        for minus_t_over_v in [silu as fn(f32) -> f32, gelu] {
            for &v in vs.iter().filter(|v| !v.is_nan()) {
                let k = minus_t_over_v(v);
                let f16_form = |f: MathFn| f16::from_f32(div_full_f32(v, math_f32(f, v * k) + 1.0)).to_bits();
                let bf16_form = |f: MathFn| {
                    let power = math_f32(f, fma_f32(v, k, -BF16_SCALE_LOG2));
                    bf16::from_f32(div_full_f32(v * scale, power + scale)).to_bits()
                };
                assert_eq!(f16_form(MathFn::Exp2Ftz), f16_form(MathFn::Exp2), "f16, v = {v:e}");
                assert_eq!(bf16_form(MathFn::Exp2Ftz), bf16_form(MathFn::Exp2), "bf16, v = {v:e}");
                checked += 1;
            }
        }
        assert!(checked > 250_000, "{checked} values");
    }

    /// The tile of each kind of input (`plan`'s doc has the measurements).
    #[test]
    fn the_plan_halves_the_16_bit_vector_tile_on_large_inputs() {
        // (rows, cols, element bytes, vector rows, fits 32 registers) -> (blocks, warps, min CTAs)
        let table = [
            ((4096, 1024, 2, true, true), ((4, 512), 4, 16)),
            ((32768, 1024, 2, true, true), ((2, 512), 4, 16)),
            ((4096, 4096, 2, true, false), ((2, 512), 4, 0)),
            ((4096, 16384, 2, true, true), ((2, 512), 4, 16)),
            ((1 << 22, 4, 2, true, true), ((256, 4), 4, 16)),
            ((1, 1 << 24, 2, true, true), ((1, 512), 4, 16)),
            ((4096, 4095, 2, true, true), ((4, 512), 4, 16)),
            ((32768, 1024, 2, false, true), ((2, 512), 4, 0)),
            ((32768, 1024, 4, true, true), ((4, 512), 8, 0)),
        ];
        for ((rows, cols, bytes, vectors, fits), (blocks, warps, min_ctas)) in table {
            let p = plan(rows, cols, bytes, vectors, fits);
            assert_eq!(
                (p.blocks, p.num_warps, p.min_ctas_per_sm),
                (blocks, warps, min_ctas),
                "{rows} x {cols}, {bytes} bytes"
            );
        }
    }

    #[test]
    fn the_grid_puts_column_blocks_first_and_spreads_row_blocks_over_two_axes() {
        // (rows, cols, blocks, grid)
        let table = [
            (4096, 16384, (4, 512), [32, 1024, 1]),
            (1, 1, (1, 1), [1, 1, 1]),
            (65535, 3, (1, 4), [1, 65535, 1]),
            (65536, 3, (1, 4), [1, 65535, 2]),
            (70000, 1000, (4, 512), [2, 17500, 1]),
            (65535 * 65535, 1, (1, 1), [1, 65535, 65535]),
        ];
        for (rows, cols, b, want) in table {
            assert_eq!(grid(rows, cols, b), want, "{rows} x {cols} in {b:?} tiles");
        }
        // A 4 GiB f16 column of 2^31 - 1 rows in tiles of 2048: 17 slices along axis 2,
        // whose last row blocks start past i32 (`epilogue_body` computes rows in i64).
        let [_, y, z] = grid(i32::MAX as usize, 1, (2048, 1));
        assert_eq!((y, z), (65535, 17));
        assert!((u64::from(y) * u64::from(z) - 1) * 2048 > i32::MAX as u64);
        // Past u32, the count saturates so that the launcher's limit check refuses it.
        assert_eq!(grid(1, 1 << 40, (1, 1))[0], u32::MAX);
    }
}
