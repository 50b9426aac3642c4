//! Triton's random numbers (`triton.language.random`, as of Triton 3.6): the Philox4x32
//! counter-based generator and its conversions to uniform and normal floats.
//!
//! Each function is written with the language's own ops and [`umulhi`](super::math::umulhi),
//! op for op as Triton writes it in `tl`, so a kernel draws the same bits as the same
//! Triton kernel: `randint`, `randint4x` and `rand` are bit-identical to Triton's (integer
//! ops, one int-to-float conversion and one `f32` product); `randn` is Triton's Box-Muller
//! transform over rtriton's `log`, `sqrt`, `sin` and `cos`, so it is bit-identical across
//! rtriton's back ends and within those functions' precision (`docs/semantics.md`) of
//! Triton's.
//!
//! Conventions (Triton's): the seed is an integer scalar converted to `u64` (a signed one
//! sign-extends) and split into two 32-bit keys, low word first; the offsets are an integer
//! block; each offset is one Philox counter `(offset_lo, offset_hi, 0, 0)`, `offset_hi`
//! being the high word of a 64-bit offset and 0 otherwise. Triton's `n_rounds` argument,
//! 10 by default, is the `_with` form's last argument.
//!
//! A seed or offsets that are not integers are the located [`Code::TraceRandomDType`]
//! error (Triton refuses a float seed at compile time too).

use crate::diag::Code;
use crate::ir::{BinaryOp, CmpPred, Constant, DType, ScalarType, Shape, SourceLoc, Value};
use crate::trace::{Builder, with_builder};

use super::dtype::{IntMarker, NumericMarker, ScalarMarker};
use super::math::{cos, log, sin, sqrt};
use super::ops::maximum;
use super::semantic::wrap_int;
use super::tensor::{Tensor, TensorOperand};

/// Philox rounds when none are given (Triton's `N_ROUNDS_DEFAULT`, Random123's
/// Philox4x32-10).
pub const N_ROUNDS_DEFAULT: usize = 10;

/// The Weyl increments of the key and the round multipliers of Philox4x32 (Random123's
/// `PHILOX_W32_0`, `PHILOX_W32_1`, `PHILOX_M4x32_0`, `PHILOX_M4x32_1`).
const PHILOX_32: PhiloxConstants =
    PhiloxConstants { key_a: 0x9E37_79B9, key_b: 0xBB67_AE85, round_a: 0xD251_1F53, round_b: 0xCD9E_8D57 };

/// The same for Philox4x64, which Triton runs on 64-bit counters.
const PHILOX_64: PhiloxConstants = PhiloxConstants {
    key_a: 0x9E37_79B9_7F4A_7C15,
    key_b: 0xBB67_AE85_84CA_A73B,
    round_a: 0xD2E7_470E_E14C_6C93,
    round_b: 0xCA5A_8263_9512_1157,
};

struct PhiloxConstants {
    key_a: u64,
    key_b: u64,
    round_a: u64,
    round_b: u64,
}

/// The dtypes Philox counters may have: Triton's 32- and 64-bit integers, which Philox
/// reads as the unsigned [`Word`](PhiloxCounter::Word) of their width (a bitcast).
pub trait PhiloxCounter: IntMarker {
    type Word: PhiloxCounter;
}
impl PhiloxCounter for i32 {
    type Word = u32;
}
impl PhiloxCounter for u32 {
    type Word = u32;
}
impl PhiloxCounter for i64 {
    type Word = u64;
}
impl PhiloxCounter for u64 {
    type Word = u64;
}

fn tensors<T, const N: usize>(values: [Value; N]) -> [Tensor<T>; N] {
    values.map(Tensor::from_value)
}

/// A scalar constant of the unsigned `dtype` holding `bits`.
fn word(b: &mut Builder, bits: u64, dtype: ScalarType, loc: SourceLoc) -> Value {
    b.constant_value(Constant::Int(wrap_int(bits as i64, dtype)), DType::Scalar(dtype), Shape::scalar(), loc)
}

/// Whether `v` is an integer; otherwise records the located error for `what`.
fn check_int(b: &mut Builder, v: Value, what: &str, function: &str, loc: SourceLoc) -> bool {
    let dtype = b.dtype(v);
    if dtype.is_int() {
        return true;
    }
    b.error_with(
        Code::TraceRandomDType,
        loc,
        format!("the {what} of `{function}` must be an integer, not {dtype}"),
        format!("pass an integer {what} (Triton's rule): convert it with `.to::<i64>()` or use an integer literal"),
    );
    false
}

/// `n_rounds` Philox rounds on counters `c` (all `u32` or all `u64`) with key `k`
/// (Triton's `philox_impl`): the key is raised after every round.
fn philox_rounds(b: &mut Builder, c: [Value; 4], k: [Value; 2], n_rounds: usize, loc: SourceLoc) -> [Value; 4] {
    let dtype = b.dtype(c[0]).scalar().unwrap_or(ScalarType::U32);
    let constants = if dtype == ScalarType::U64 { PHILOX_64 } else { PHILOX_32 };
    let [key_a, key_b, a, bm] =
        [constants.key_a, constants.key_b, constants.round_a, constants.round_b].map(|x| word(b, x, dtype, loc));
    let [mut c0, mut c1, mut c2, mut c3] = c;
    let [mut k0, mut k1] = k;
    for _ in 0..n_rounds {
        let (old_c0, old_c2) = (c0, c2);
        let hi = b.binary(BinaryOp::UMulHi, bm, old_c2, loc);
        let x = b.binary(BinaryOp::Xor, hi, c1, loc);
        c0 = b.binary(BinaryOp::Xor, x, k0, loc);
        let hi = b.binary(BinaryOp::UMulHi, a, old_c0, loc);
        let x = b.binary(BinaryOp::Xor, hi, c3, loc);
        c2 = b.binary(BinaryOp::Xor, x, k1, loc);
        c1 = b.binary(BinaryOp::Mul, bm, old_c2, loc);
        c3 = b.binary(BinaryOp::Mul, a, old_c0, loc);
        k0 = b.binary(BinaryOp::Add, k0, key_a, loc);
        k1 = b.binary(BinaryOp::Add, k1, key_b, loc);
    }
    [c0, c1, c2, c3]
}

/// Triton's `philox`: the seed as `u64`, split into two 32-bit keys (low word first) for
/// 32-bit counters, or the whole key word (and 0) for 64-bit ones; the counters are read
/// as the unsigned type of their width. `None` after recording the error of a non-integer
/// seed.
fn philox_values(
    b: &mut Builder,
    seed: Value,
    c: [Value; 4],
    n_rounds: usize,
    function: &str,
    loc: SourceLoc,
) -> Option<[Value; 4]> {
    if !check_int(b, seed, "seed", function, loc) {
        return None;
    }
    // Not an explicit `.to()`: Triton converts the seed after `tl.to_tensor`, so a seed
    // argument specialized to 1 converts too.
    let seed = b.cast(seed, DType::Scalar(ScalarType::U64), loc, false);
    let wide = b.dtype(c[0]).scalar().is_some_and(|s| s.bit_width() == 64);
    let (word_type, k) = if wide {
        (ScalarType::U64, [seed, word(b, 0, ScalarType::U64, loc)])
    } else {
        let low_bits = word(b, 0xFFFF_FFFF, ScalarType::U64, loc);
        let thirty_two = word(b, 32, ScalarType::U64, loc);
        let shifted = b.binary(BinaryOp::Shr, seed, thirty_two, loc);
        let hi = b.binary(BinaryOp::And, shifted, low_bits, loc);
        let lo = b.binary(BinaryOp::And, seed, low_bits, loc);
        let u32_type = DType::Scalar(ScalarType::U32);
        (ScalarType::U32, [b.cast(lo, u32_type, loc, false), b.cast(hi, u32_type, loc, false)])
    };
    let c = c.map(|v| b.bitcast(v, DType::Scalar(word_type), loc));
    Some(philox_rounds(b, c, k, n_rounds, loc))
}

/// `n_rounds` rounds of Philox on the counters `(c0, c1, c2, c3)` with the key `(k0, k1)`
/// (Triton's `tl.random.philox_impl`): Philox4x32 on `u32`, Philox4x64 on `u64`.
#[track_caller]
pub fn philox_impl<U: PhiloxCounter<Word = U>>(
    c0: Tensor<U>,
    c1: Tensor<U>,
    c2: Tensor<U>,
    c3: Tensor<U>,
    k0: Tensor<U>,
    k1: Tensor<U>,
    n_rounds: usize,
) -> [Tensor<U>; 4] {
    let loc = SourceLoc::caller();
    let c = [c0, c1, c2, c3].map(Tensor::id);
    tensors(with_builder(|b| philox_rounds(b, c, [k0.id(), k1.id()], n_rounds, loc)))
}

/// Philox with `seed` on the counters `(c0, c1, c2, c3)` (Triton's `tl.random.philox`,
/// 10 rounds): 32-bit counters give Philox4x32 keyed by the seed's two 32-bit words (low
/// first), 64-bit ones Philox4x64 keyed by `(seed, 0)`. The counters are read as unsigned
/// (a bitcast). `seed` is any integer (a signed one sign-extends to 64 bits).
#[track_caller]
pub fn philox<S: TensorOperand, C: PhiloxCounter>(
    seed: S,
    c0: Tensor<C>,
    c1: Tensor<C>,
    c2: Tensor<C>,
    c3: Tensor<C>,
) -> [Tensor<C::Word>; 4] {
    philox_with(seed, c0, c1, c2, c3, N_ROUNDS_DEFAULT)
}

/// [`philox`] with `n_rounds` rounds.
#[track_caller]
pub fn philox_with<S: TensorOperand, C: PhiloxCounter>(
    seed: S,
    c0: Tensor<C>,
    c1: Tensor<C>,
    c2: Tensor<C>,
    c3: Tensor<C>,
    n_rounds: usize,
) -> [Tensor<C::Word>; 4] {
    let loc = SourceLoc::caller();
    let seed = seed.value(loc);
    let c = [c0, c1, c2, c3].map(Tensor::id);
    tensors(with_builder(|b| {
        philox_values(b, seed, c, n_rounds, "philox", loc)
            .unwrap_or_else(|| c.map(|v| b.bitcast(v, DType::Scalar(C::Word::SCALAR), loc)))
    }))
}

/// Four blocks of random `u32` for `seed` and the integer block `offset` (Triton's
/// `tl.randint4x`, 10 rounds): Philox4x32 of the counter `(offset_lo, offset_hi, 0, 0)`.
#[track_caller]
pub fn randint4x<S: TensorOperand, O: NumericMarker>(seed: S, offset: Tensor<O>) -> [Tensor<u32>; 4] {
    randint4x_with(seed, offset, N_ROUNDS_DEFAULT)
}

/// [`randint4x`] with `n_rounds` Philox rounds.
#[track_caller]
pub fn randint4x_with<S: TensorOperand, O: NumericMarker>(
    seed: S,
    offset: Tensor<O>,
    n_rounds: usize,
) -> [Tensor<u32>; 4] {
    let loc = SourceLoc::caller();
    let seed = seed.value(loc);
    tensors(with_builder(|b| randint4x_values(b, seed, offset.id(), n_rounds, "randint", loc)))
}

fn randint4x_values(
    b: &mut Builder,
    seed: Value,
    offset: Value,
    n_rounds: usize,
    function: &str,
    loc: SourceLoc,
) -> [Value; 4] {
    let u32_type = DType::Scalar(ScalarType::U32);
    let shape = b.ty(offset).shape.clone();
    let zero = b.full(&shape.0, Constant::Int(0), u32_type, loc);
    if !check_int(b, offset, "offset", function, loc) {
        return [zero; 4];
    }
    // A conversion, not a bitcast: offsets narrower than 32 bits extend by their sign,
    // 64-bit ones keep their low word (Triton's `offset.to(tl.uint32)`).
    let lo = b.cast(offset, u32_type, loc, false);
    let wide = b.dtype(offset).scalar().is_some_and(|s| s.bit_width() > 32);
    let hi = if wide {
        let thirty_two = b.constant_value(Constant::Int(32), b.dtype(offset), Shape::scalar(), loc);
        let shifted = b.binary(BinaryOp::Shr, offset, thirty_two, loc);
        b.cast(shifted, u32_type, loc, false)
    } else {
        zero
    };
    philox_values(b, seed, [lo, hi, zero, zero], n_rounds, function, loc).unwrap_or([zero; 4])
}

/// A block of random `u32` for `seed` and the integer block `offset` (Triton's
/// `tl.randint`, 10 rounds): the first word of [`randint4x`].
#[track_caller]
pub fn randint<S: TensorOperand, O: NumericMarker>(seed: S, offset: Tensor<O>) -> Tensor<u32> {
    randint_with(seed, offset, N_ROUNDS_DEFAULT)
}

/// [`randint`] with `n_rounds` Philox rounds.
#[track_caller]
pub fn randint_with<S: TensorOperand, O: NumericMarker>(seed: S, offset: Tensor<O>, n_rounds: usize) -> Tensor<u32> {
    randint4x_with(seed, offset, n_rounds)[0]
}

/// A random integer as a float in `[0, 1)` (Triton's `tl.random.uint_to_uniform_float`):
/// the 32-bit (64-bit) word read as `i32` (`i64`), a negative `x` replaced by `-x - 1`
/// (so both halves of the range map onto `[0, 2^31 - 1]`), converted to `f32` and
/// multiplied by `4.6566127342e-10` (`1.0842020432385337e-19`), the largest `f32` scale for
/// which the largest value stays below 1.0. A dtype other than a 32- or 64-bit integer
/// is a located [`Code::TraceRandomDType`] error.
#[track_caller]
pub fn uint_to_uniform_float<T: NumericMarker>(x: Tensor<T>) -> Tensor<f32> {
    let loc = SourceLoc::caller();
    Tensor::from_value(with_builder(|b| uniform_values(b, x.id(), loc)))
}

fn uniform_values(b: &mut Builder, x: Value, loc: SourceLoc) -> Value {
    let dtype = b.dtype(x);
    let (signed, scale) = match dtype.scalar() {
        Some(ScalarType::I32 | ScalarType::U32) => (ScalarType::I32, 4.656_612_734_2e-10_f64),
        Some(ScalarType::I64 | ScalarType::U64) => (ScalarType::I64, 1.084_202_043_238_533_7e-19_f64),
        // Every other dtype (a dtype, not an op kind).
        _ => {
            b.error_with(
                Code::TraceRandomDType,
                loc,
                format!("`uint_to_uniform_float` takes 32- or 64-bit integers, not {dtype}"),
                "pass the output of randint (u32), or convert to u32 first",
            );
            let shape = b.ty(x).shape.clone();
            return b.full(&shape.0, Constant::F32(0.0), DType::F32, loc);
        }
    };
    let x = b.bitcast(x, DType::Scalar(signed), loc);
    let zero = b.constant_value(Constant::Int(0), DType::Scalar(signed), Shape::scalar(), loc);
    let one = b.constant_value(Constant::Int(1), DType::Scalar(signed), Shape::scalar(), loc);
    let negative = b.compare(CmpPred::Lt, x, zero, loc);
    let minus = b.binary(BinaryOp::Sub, zero, x, loc);
    let flipped = b.binary(BinaryOp::Sub, minus, one, loc);
    let x = b.select(negative, flipped, x, loc);
    let x = b.cast(x, DType::F32, loc, false);
    // Triton's scale is a Python float, rounded once to f32 when it meets the f32 value.
    let scale = b.constant_value(Constant::F32(scale as f32), DType::F32, Shape::scalar(), loc);
    b.binary(BinaryOp::Mul, x, scale, loc)
}

/// A block of random `f32` in `[0, 1)` for `seed` and the integer block `offset` (Triton's
/// `tl.rand`, 10 rounds): [`uint_to_uniform_float`] of [`randint`].
#[track_caller]
pub fn rand<S: TensorOperand, O: NumericMarker>(seed: S, offset: Tensor<O>) -> Tensor<f32> {
    rand_with(seed, offset, N_ROUNDS_DEFAULT)
}

/// [`rand`] with `n_rounds` Philox rounds.
#[track_caller]
pub fn rand_with<S: TensorOperand, O: NumericMarker>(seed: S, offset: Tensor<O>, n_rounds: usize) -> Tensor<f32> {
    uint_to_uniform_float(randint_with(seed, offset, n_rounds))
}

/// Four blocks of random `f32` in `[0, 1)` (Triton's `tl.rand4x`, 10 rounds): each word of
/// [`randint4x`] through [`uint_to_uniform_float`].
#[track_caller]
pub fn rand4x<S: TensorOperand, O: NumericMarker>(seed: S, offset: Tensor<O>) -> [Tensor<f32>; 4] {
    rand4x_with(seed, offset, N_ROUNDS_DEFAULT)
}

/// [`rand4x`] with `n_rounds` Philox rounds.
#[track_caller]
pub fn rand4x_with<S: TensorOperand, O: NumericMarker>(
    seed: S,
    offset: Tensor<O>,
    n_rounds: usize,
) -> [Tensor<f32>; 4] {
    let [i1, i2, i3, i4] = randint4x_with(seed, offset, n_rounds);
    [uint_to_uniform_float(i1), uint_to_uniform_float(i2), uint_to_uniform_float(i3), uint_to_uniform_float(i4)]
}

/// Two independent standard normal blocks from two uniform ones (Triton's
/// `tl.random.pair_uniform_to_normal`, the Box-Muller transform): with
/// `u1 = max(1e-7, u1)`, `r = sqrt(-2 log u1)` and `th = 2 pi u2`, `(r cos th, r sin th)`.
#[track_caller]
pub fn pair_uniform_to_normal(u1: Tensor<f32>, u2: Tensor<f32>) -> (Tensor<f32>, Tensor<f32>) {
    // Triton's constants are Python floats: each rounds once to f32, as `f64` literals do
    // here. Triton writes 2 pi as `6.283185307179586`, which is the f64 `TAU`.
    let u1 = maximum(u1, 1.0e-7_f64);
    let th = std::f64::consts::TAU * u2;
    let r = sqrt(-2.0_f64 * log(u1));
    (r * cos(th), r * sin(th))
}

/// A block of random `f32` from the standard normal distribution (Triton's `tl.randn`, 10
/// rounds): the first output of [`pair_uniform_to_normal`] on the first two words of
/// [`randint4x`].
#[track_caller]
pub fn randn<S: TensorOperand, O: NumericMarker>(seed: S, offset: Tensor<O>) -> Tensor<f32> {
    randn_with(seed, offset, N_ROUNDS_DEFAULT)
}

/// [`randn`] with `n_rounds` Philox rounds.
#[track_caller]
pub fn randn_with<S: TensorOperand, O: NumericMarker>(seed: S, offset: Tensor<O>, n_rounds: usize) -> Tensor<f32> {
    let [i1, i2, _, _] = randint4x_with(seed, offset, n_rounds);
    pair_uniform_to_normal(uint_to_uniform_float(i1), uint_to_uniform_float(i2)).0
}

/// Four blocks of standard normal `f32` (Triton's `tl.randn4x`, 10 rounds): the pairs of
/// [`rand4x`] through [`pair_uniform_to_normal`].
#[track_caller]
pub fn randn4x<S: TensorOperand, O: NumericMarker>(seed: S, offset: Tensor<O>) -> [Tensor<f32>; 4] {
    randn4x_with(seed, offset, N_ROUNDS_DEFAULT)
}

/// [`randn4x`] with `n_rounds` Philox rounds.
#[track_caller]
pub fn randn4x_with<S: TensorOperand, O: NumericMarker>(
    seed: S,
    offset: Tensor<O>,
    n_rounds: usize,
) -> [Tensor<f32>; 4] {
    let [u1, u2, u3, u4] = rand4x_with(seed, offset, n_rounds);
    let (n1, n2) = pair_uniform_to_normal(u1, u2);
    let (n3, n4) = pair_uniform_to_normal(u3, u4);
    [n1, n2, n3, n4]
}
