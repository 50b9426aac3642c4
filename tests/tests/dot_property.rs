//! Property test: `dot` (Triton's `tl.dot`) on the interpreter and on the SIMT simulator,
//! which runs the lowered PTX program (`ldmatrix`, `mma.sync` and the CUDA-core `fma`
//! path alike), agree bit for bit over random launches (`docs/semantics.md`, "dot": the
//! interpreter defines the result and every back end that follows the documented order
//! must give its bits).
//!
//! A launch is one program computing `out = c + a @ b` in one `BM x BN x BK` tile:
//! - the dtype: `f16`, `bf16`, `f32` with `input_precision` `ieee` and `tf32`, `i8` into
//!   `i32`;
//! - the tile: `BM`, `BN` and `BK` each 16, 32 or 64, with 1, 2, 4 or 8 warps (4 most
//!   often);
//! - the sizes: `m`, `n` and `k` each from 1 to its tile (the tile itself often), so the
//!   masks cut rows, columns and the `k` tail;
//! - the layouts: `a` (`m x k`) and `b` (`k x n`) row-major or transposed (the strides
//!   swapped), with a leading dimension of the stored row length plus `0..40` elements
//!   of padding; `c` and `out` row-major with their own padding; each tensor `0..4`
//!   elements into its buffer;
//! - the specialization policy: Triton's (strides of 1 and multiples of 16 specialized)
//!   or none;
//! - the values, drawn from a seed: small integers (every sum exact), uniform floats in
//!   (-4, 4) (every mantissa bit used), floats of wide-ranging exponents (subnormal
//!   products, overflow to infinities), or any bit pattern mixed with the special values
//!   (NaN with payloads, infinities, signed zeros, subnormals, extremes); `i8` and the
//!   `i32` accumulator over their whole range (the sum wraps).
//!
//! Each launch also checks that the elements of `out`'s buffer outside its view (the row
//! padding, the offset, the masked tails) keep their initial values.
//!
//! 256 cases by default (`PROPTEST_CASES` overrides; `PROPTEST_RNG_SEED` replaces the
//! fixed seed); a failure prints the launch (dtype, tile, sizes, strides, offsets, warps,
//! policy, values) and the first differing elements of `out` by row and column.

use half::{bf16, f16};
use proptest::prelude::*;
use proptest::test_runner::{Config, RngSeed};
use rtriton::ir::ScalarType;
use rtriton::kernel;
use rtriton::prelude::*;
use rtriton::spec::SpecPolicy;
use rtriton::trace::KernelDef;
use rtriton_testing::fill::{SPECIAL_BF16, SPECIAL_F16, SPECIAL_F32, SPECIAL_I32};
use rtriton_testing::run::{run_interpreter, run_simulator};
use rtriton_testing::{Case, Data, Element, View};

// ---- the kernels ------------------------------------------------------------------------

/// `out = c + a @ b` in one `BM x BN x BK` tile, every operand through its strides:
/// `a[i, kk]` at `a_ptr + i * stride_am + kk * stride_ak`, `b[kk, j]` at
/// `b_ptr + kk * stride_bk + j * stride_bn`, `c` and `out` row-major with row strides
/// `stride_cm` and `stride_om`. Rows, columns and the `k` tail past `m`, `n` and `k` are
/// masked (`a` and `b` load 0 there, so they add nothing; `out` is not stored there).
#[allow(clippy::too_many_arguments, non_snake_case)]
fn strided_tile<A: ScalarMarker, C: ScalarMarker>(
    a_ptr: Tensor<Ptr<A>>,
    b_ptr: Tensor<Ptr<A>>,
    c_ptr: Tensor<Ptr<C>>,
    out_ptr: Tensor<Ptr<C>>,
    sizes: [Tensor<i32>; 3],
    strides: [Tensor<i32>; 6],
    zeros: (A::Native, C::Native),
    [BM, BN, BK]: [usize; 3],
    tf32: usize,
) {
    let [m, n, k] = sizes;
    let [stride_am, stride_ak, stride_bk, stride_bn, stride_cm, stride_om] = strides;
    let rm = expand_dims(arange(0, BM), 1);
    let rn = expand_dims(arange(0, BN), 0);
    let rk_col = expand_dims(arange(0, BK), 0);
    let rk_row = expand_dims(arange(0, BK), 1);
    let a = load(a_ptr + rm * stride_am + rk_col * stride_ak, Some(rm.lt(m) & rk_col.lt(k)), Some(zeros.0));
    let b = load(b_ptr + rk_row * stride_bk + rn * stride_bn, Some(rk_row.lt(k) & rn.lt(n)), Some(zeros.0));
    let out_mask = rm.lt(m) & rn.lt(n);
    let c = load(c_ptr + rm * stride_cm + rn, Some(out_mask), Some(zeros.1));
    let input_precision = if tf32 == 1 { InputPrecision::Tf32 } else { InputPrecision::Ieee };
    let d = dot_with(a, b, c, DotOptions { input_precision, out_dtype: None });
    store(out_ptr + rm * stride_om + rn, d, Some(out_mask));
}

kernel! {
    fn dot_strided_f16(a_ptr: Ptr<f16>, b_ptr: Ptr<f16>, c_ptr: Ptr<f32>, out_ptr: Ptr<f32>,
                       m: i32, n: i32, k: i32,
                       stride_am: i32, stride_ak: i32, stride_bk: i32, stride_bn: i32, stride_cm: i32, stride_om: i32;
                       const BM: usize, const BN: usize, const BK: usize, const TF32: usize) {
        let strides = [stride_am, stride_ak, stride_bk, stride_bn, stride_cm, stride_om];
        strided_tile(a_ptr, b_ptr, c_ptr, out_ptr, [m, n, k], strides, (f16::ZERO, 0.0), [BM, BN, BK], TF32);
    }
}

kernel! {
    fn dot_strided_bf16(a_ptr: Ptr<bf16>, b_ptr: Ptr<bf16>, c_ptr: Ptr<f32>, out_ptr: Ptr<f32>,
                        m: i32, n: i32, k: i32,
                        stride_am: i32, stride_ak: i32, stride_bk: i32, stride_bn: i32, stride_cm: i32, stride_om: i32;
                        const BM: usize, const BN: usize, const BK: usize, const TF32: usize) {
        let strides = [stride_am, stride_ak, stride_bk, stride_bn, stride_cm, stride_om];
        strided_tile(a_ptr, b_ptr, c_ptr, out_ptr, [m, n, k], strides, (bf16::ZERO, 0.0), [BM, BN, BK], TF32);
    }
}

kernel! {
    fn dot_strided_f32(a_ptr: Ptr<f32>, b_ptr: Ptr<f32>, c_ptr: Ptr<f32>, out_ptr: Ptr<f32>,
                       m: i32, n: i32, k: i32,
                       stride_am: i32, stride_ak: i32, stride_bk: i32, stride_bn: i32, stride_cm: i32, stride_om: i32;
                       const BM: usize, const BN: usize, const BK: usize, const TF32: usize) {
        let strides = [stride_am, stride_ak, stride_bk, stride_bn, stride_cm, stride_om];
        strided_tile(a_ptr, b_ptr, c_ptr, out_ptr, [m, n, k], strides, (0.0, 0.0), [BM, BN, BK], TF32);
    }
}

kernel! {
    fn dot_strided_i8(a_ptr: Ptr<i8>, b_ptr: Ptr<i8>, c_ptr: Ptr<i32>, out_ptr: Ptr<i32>,
                      m: i32, n: i32, k: i32,
                      stride_am: i32, stride_ak: i32, stride_bk: i32, stride_bn: i32, stride_cm: i32, stride_om: i32;
                      const BM: usize, const BN: usize, const BK: usize, const TF32: usize) {
        let strides = [stride_am, stride_ak, stride_bk, stride_bn, stride_cm, stride_om];
        strided_tile(a_ptr, b_ptr, c_ptr, out_ptr, [m, n, k], strides, (0, 0), [BM, BN, BK], TF32);
    }
}

// ---- a launch -----------------------------------------------------------------------------

/// The operand dtype, and for `f32` the input precision.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Kind {
    F16,
    Bf16,
    F32Ieee,
    F32Tf32,
    I8,
}

impl Kind {
    fn def(self) -> KernelDef {
        match self {
            Kind::F16 => dot_strided_f16(),
            Kind::Bf16 => dot_strided_bf16(),
            Kind::F32Ieee | Kind::F32Tf32 => dot_strided_f32(),
            Kind::I8 => dot_strided_i8(),
        }
    }

    /// A buffer of `len` operands.
    fn operands(self, fill: Fill, rng: &mut Rng, len: usize) -> Data {
        match self {
            Kind::F16 => f16::wrap(fill.values(rng, len, &SPECIAL_F16)),
            Kind::Bf16 => bf16::wrap(fill.values(rng, len, &SPECIAL_BF16)),
            Kind::F32Ieee | Kind::F32Tf32 => f32::wrap(fill.values(rng, len, &SPECIAL_F32)),
            Kind::I8 => i8::wrap(fill.values(rng, len, &[i8::MIN, i8::MIN + 1, -1, 0, 1, i8::MAX])),
        }
    }

    /// A buffer of `len` accumulators (`c`, and `out`'s initial content).
    fn accumulators(self, fill: Fill, rng: &mut Rng, len: usize) -> Data {
        match self {
            Kind::I8 => i32::wrap(fill.values(rng, len, &SPECIAL_I32)),
            _ => f32::wrap(fill.values(rng, len, &SPECIAL_F32)),
        }
    }
}

/// How the buffers are filled.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Fill {
    /// Whole numbers in `-8..=8` (`-100..=100` for the `i32` accumulator): every float
    /// sum is exact.
    SmallInts,
    /// Floats in (-4, 4) rounded to the dtype (integers over their whole range).
    Uniform,
    /// `+-(1 + f) * 2^e` rounded to the dtype, `e` in `-25..=15` for `f16` (its
    /// subnormals up to its largest binade) and in `-75..=64` for `bf16` and `f32` (so
    /// products reach `f32`'s subnormals and, rarely, overflow): sums across many binades
    /// (integers over their whole range).
    Wide,
    /// A uniform float half the time, any bit pattern (NaN, infinities and huge values
    /// among them for floats) seven times in sixteen, a special value of the dtype once
    /// in sixteen.
    Bits,
}

impl Fill {
    fn values<T: Element + Copy>(self, rng: &mut Rng, len: usize, specials: &[T]) -> Vec<T> {
        (0..len).map(|_| self.value(rng, specials)).collect()
    }

    fn value<T: Element + Copy>(self, rng: &mut Rng, specials: &[T]) -> T {
        let float = T::SCALAR.is_float();
        let any_bits = |rng: &mut Rng| T::from_bits64(rng.next());
        let uniform = |rng: &mut Rng| {
            if float {
                T::round_from_f64(rng.unit() * 8.0 - 4.0).expect("a float dtype takes every f64")
            } else {
                any_bits(rng)
            }
        };
        match self {
            Fill::SmallInts => {
                let bound = if T::SCALAR == ScalarType::I32 { 100 } else { 8 };
                let v = (rng.next() % (2 * bound + 1)) as f64 - bound as f64;
                T::round_from_f64(v).expect("small integers fit every dtype")
            }
            Fill::Uniform => uniform(rng),
            Fill::Wide if float => {
                let sign = if rng.next() & 1 == 0 { 1.0 } else { -1.0 };
                let (lo, hi) = if T::SCALAR == ScalarType::F16 { (-25, 15) } else { (-75, 64) };
                let exponent = lo + (rng.next() % (hi - lo + 1) as u64) as i32;
                let v = sign * (1.0 + rng.unit()) * 2f64.powi(exponent);
                T::round_from_f64(v).expect("a float dtype takes every f64")
            }
            Fill::Wide => any_bits(rng),
            Fill::Bits => match rng.next() % 16 {
                0 => specials[(rng.next() % specials.len() as u64) as usize],
                1..=7 => any_bits(rng),
                _ => uniform(rng),
            },
        }
    }
}

/// SplitMix64: the values of a launch from its seed, the same everywhere.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in [0, 1).
    fn unit(&mut self) -> f64 {
        (self.next() >> 11) as f64 / (1u64 << 53) as f64
    }
}

/// One random launch (its `Debug` is what a failure prints).
#[derive(Clone, Debug)]
struct Launch {
    kind: Kind,
    /// `[BM, BN, BK]`.
    tiles: [usize; 3],
    /// `[m, n, k]`, each in `1..=` its tile.
    sizes: [usize; 3],
    num_warps: u32,
    /// `a` stored `k x m` (column-major `m x k`) rather than `m x k`.
    a_transposed: bool,
    /// `b` stored `n x k` rather than `k x n`.
    b_transposed: bool,
    /// Elements past the stored row length in each stored row of `a`, `b`, `c`, `out`.
    pads: [usize; 4],
    /// Elements before each tensor's first element in its buffer: `a`, `b`, `c`, `out`.
    offsets: [usize; 4],
    policy: SpecPolicy,
    fill: Fill,
    seed: u64,
}

impl Launch {
    /// The views of `a` (`m x k`), `b` (`k x n`), `c` and `out` (`m x n`).
    fn views(&self) -> [View; 4] {
        let [m, n, k] = self.sizes;
        let [pa, pb, pc, po] = self.pads;
        let [oa, ob, oc, oo] = self.offsets;
        // A `rows x cols` matrix stored row-major with `pad` elements after each row, or
        // stored transposed (`cols x rows`, row-major, padded) and viewed as `rows x cols`.
        let matrix = |rows: usize, cols: usize, pad: usize, transposed: bool, offset: usize| {
            let view = if transposed {
                View::strided(&[cols, rows], &[(rows + pad) as isize, 1]).transposed(0, 1)
            } else {
                View::strided(&[rows, cols], &[(cols + pad) as isize, 1])
            };
            view.with_offset(offset)
        };
        [
            matrix(m, k, pa, self.a_transposed, oa),
            matrix(k, n, pb, self.b_transposed, ob),
            matrix(m, n, pc, false, oc),
            matrix(m, n, po, false, oo),
        ]
    }

    /// The launch as a harness case; the buffers hold `0..3` elements past each view.
    fn case(&self) -> Case {
        let [bm, bn, bk] = self.tiles;
        let [m, n, k] = self.sizes;
        let [va, vb, vc, vo] = self.views();
        let mut rng = Rng(self.seed);
        let tail = |v: &View, rng: &mut Rng| v.min_buffer_len() + (rng.next() % 3) as usize;
        let (la, lb, lc, lo) = (tail(&va, &mut rng), tail(&vb, &mut rng), tail(&vc, &mut rng), tail(&vo, &mut rng));
        let a = self.kind.operands(self.fill, &mut rng, la);
        let b = self.kind.operands(self.fill, &mut rng, lb);
        let c = self.kind.accumulators(self.fill, &mut rng, lc);
        let out = self.kind.accumulators(Fill::Bits, &mut rng, lo);
        let (sa, sb, sc, so) = (va.strides.clone(), vb.strides.clone(), vc.strides[0], vo.strides[0]);
        let mut case = Case::new(self.kind.def().name)
            .grid([1, 1, 1])
            .num_warps(self.num_warps)
            .input("a", a, va)
            .input("b", b, vb)
            .input("c", c, vc)
            .output("out", out, vo)
            .int(m as i64)
            .int(n as i64)
            .int(k as i64);
        for s in [sa[0], sa[1], sb[0], sb[1], sc, so] {
            case = case.int(s as i64);
        }
        case.constexprs = vec![
            ("BM", bm as i64),
            ("BN", bn as i64),
            ("BK", bk as i64),
            ("TF32", i64::from(self.kind == Kind::F32Tf32)),
        ];
        case
    }
}

// ---- the generator ------------------------------------------------------------------------

/// A size from 1 to `tile`: the whole tile a quarter of the time (no mask cuts it).
fn size(tile: usize) -> impl Strategy<Value = usize> {
    prop_oneof![1 => Just(tile), 3 => 1..=tile]
}

/// Row padding: none (dense rows) often, a few elements, or a wide gap.
fn pad() -> impl Strategy<Value = usize> {
    prop_oneof![2 => Just(0usize), 2 => 1usize..8, 1 => 8usize..40]
}

fn launch() -> impl Strategy<Value = Launch> {
    let tile = || proptest::sample::select(vec![16usize, 32, 64]);
    let kind = proptest::sample::select(vec![Kind::F16, Kind::Bf16, Kind::F32Ieee, Kind::F32Tf32, Kind::I8]);
    let fill = proptest::sample::select(vec![Fill::SmallInts, Fill::Uniform, Fill::Wide, Fill::Bits]);
    let num_warps = prop_oneof![1 => Just(1u32), 1 => Just(2u32), 3 => Just(4u32), 1 => Just(8u32)];
    (tile(), tile(), tile())
        .prop_flat_map(move |(bm, bn, bk)| {
            (
                Just([bm, bn, bk]),
                (size(bm), size(bn), size(bk)),
                kind.clone(),
                num_warps.clone(),
                (any::<bool>(), any::<bool>()),
                [pad(), pad(), pad(), pad()],
                [0usize..4, 0usize..4, 0usize..4, 0usize..4],
                proptest::sample::select(vec![SpecPolicy::Triton, SpecPolicy::Off]),
                fill.clone(),
                any::<u64>(),
            )
        })
        .prop_map(
            |(tiles, (m, n, k), kind, num_warps, (a_transposed, b_transposed), pads, offsets, policy, fill, seed)| {
                Launch {
                    kind,
                    tiles,
                    sizes: [m, n, k],
                    num_warps,
                    a_transposed,
                    b_transposed,
                    pads,
                    offsets,
                    policy,
                    fill,
                    seed,
                }
            },
        )
}

// ---- the property -----------------------------------------------------------------------

/// Runs `l` on the interpreter and on the simulator: `out`'s whole buffer must be the
/// same bits on both, and unchanged outside `out`'s view.
fn check(l: &Launch) -> Result<(), String> {
    let def = l.kind.def();
    let case = l.case();
    let want = run_interpreter(&def, &case, l.policy).map_err(|e| format!("the interpreter refused: {e}"))?;
    let got = run_simulator(&def, &case, l.policy).map_err(|e| format!("the simulator refused: {e}"))?;
    let (want, got) = (&want.buffers[0].1, &got.buffers[0].1);
    let out = case.tensor("out");
    let at = |e: usize| match out.view.index_of(e) {
        Some(ix) => format!("out[{}, {}] (buffer element {e})", ix[0], ix[1]),
        None => format!("buffer element {e}, outside the view"),
    };
    let differing: Vec<usize> = (0..want.len()).filter(|&e| got.bits(e) != want.bits(e)).collect();
    if !differing.is_empty() {
        let shown: Vec<String> = differing
            .iter()
            .take(8)
            .map(|&e| format!("{}: simulator {}, interpreter {}", at(e), got.describe(e), want.describe(e)))
            .collect();
        return Err(format!(
            "{} of {} elements of out differ between the simulator and the interpreter:\n{}",
            differing.len(),
            want.len(),
            shown.join("\n")
        ));
    }
    let inside: std::collections::HashSet<usize> = out.view.indices().map(|ix| out.view.element(&ix)).collect();
    if let Some(e) = (0..want.len()).find(|e| !inside.contains(e) && want.bits(*e) != out.data.bits(*e)) {
        return Err(format!("{} changed: {}, was {}", at(e), want.describe(e), out.data.describe(e)));
    }
    Ok(())
}

/// The default number of cases, and the seed unless `PROPTEST_RNG_SEED` gives one.
const CASES: u32 = 256;
const SEED: u64 = 0x00D0_7000_0000_0001;

fn config() -> Config {
    let default = Config::default();
    let cases = if std::env::var_os("PROPTEST_CASES").is_some() { default.cases } else { CASES };
    let rng_seed = match default.rng_seed {
        RngSeed::Random => RngSeed::Fixed(SEED),
        fixed => fixed,
    };
    Config { cases, rng_seed, ..default }
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn the_interpreter_and_the_simulator_agree_bit_for_bit(l in launch()) {
        let views = l.views();
        check(&l).map_err(|e| {
            TestCaseError::fail(format!(
                "{:?} tiles {:?} sizes [m, n, k] {:?}, {} warps, {:?}, {:?} fill (seed {:#x});\n\
                 a {}\nb {}\nc {}\nout {}\n{e}",
                l.kind, l.tiles, l.sizes, l.num_warps, l.policy, l.fill, l.seed, views[0], views[1], views[2], views[3]
            ))
        })?;
    }
}
