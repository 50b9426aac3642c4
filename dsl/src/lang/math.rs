//! The math functions of `triton.language` / `tl.math`: `exp`, `exp2`, `log`, `log2`,
//! `sqrt`, `rsqrt`, `abs`, `floor`, `ceil`, `fma`, `sin`, `cos`, `tanh`, `erf`, `sigmoid`,
//! `div_rn` and `fdiv`, as free functions and as tensor methods (`x.exp()`); `umulhi`
//! (`tl.math.umulhi`, on ints); `exp2_ftz`, `exp2` with subnormals flushed, which
//! Triton does not name; and libdevice's `trunc`, `rint`, `round`, `isnan`, `isinf`,
//! `signbit`, `copysign`, `fmod`, `log1p`, `expm1`, `pow` and `atan2` (methods too:
//! `x.log1p()`, `x.pow(y)`, `y.atan2(x)`).
//!
//! Functions PTX computes in one instruction are one op (`UnaryOp::Math`, `OpKind::Fma`,
//! `BinaryOp::FDiv`). The others are composed here from those ops, the way Triton lowers
//! them, so the interpreter, the simulator and the GPU run the same sequence of roundings:
//! - `exp(x) = exp2(x * log2(e))` and `log(x) = log2(x) * ln(2)` (Triton's `ex2.approx` /
//!   `lg2.approx` lowering, the product rounded to f32 once);
//! - `sigmoid(x) = 1 / (1 + exp(-x))` (Triton's `tl.sigmoid`);
//! - `erf` is a polynomial (PTX has no instruction; the coefficients were fitted for
//!   rtriton, see [`ERF_NEAR`] and [`ERF_FAR`]);
//! - `log1p`, `expm1`, `pow` and `atan2` use exact operations only (`+`, `*`, `fma`, the
//!   correctly rounded `/`, bit operations, rounding to integers, selects), not the
//!   approximate `ex2`/`lg2`: every back end, the GPU included, computes the same bits,
//!   within 1 ulp of the correctly rounded result (argument reduction by the float's bits,
//!   polynomials fitted for rtriton: [`EXPM1_POLY`], [`LOG_POLY`], [`ATAN_POLY`]).
//!
//! Every function but `abs` and `umulhi` takes floats only: an integer operand is a located
//! [`Code::TraceMathDType`] error that says to convert with `.to::<f32>()` (Triton refuses
//! `tl.exp` of an int tensor too). Precision per function: `docs/semantics.md`.

use crate::diag::Code;
use crate::ir::{
    BinaryOp, CmpPred, Constant, DType, MathFn, OpKind, PropagateNan, ScalarType, Shape, SourceLoc, UnaryOp, Value,
};
use crate::semantics::math::{LN2, LOG2E};
use crate::trace::{Builder, with_builder};

use super::dtype::NumericMarker;
use super::promotion::Promote;
use super::tensor::{Tensor, TensorOperand};

/// Where `erf` switches from the odd polynomial to `1 - exp(-Q(|x|))`.
const ERF_SPLIT: f32 = 0.875;

/// `erf(x) = x + x * P(x^2)` for `|x| < 0.875`: `P(s) ~ erf(sqrt s) / sqrt s - 1`, a
/// degree-5 Chebyshev fit on `[0, 0.875^2]` (mpmath `chebyfit`, error 8.9e-9), highest
/// coefficient first, rounded to f32.
pub const ERF_NEAR: [f32; 6] = [
    f32::from_bits(0xBA22_E960),
    f32::from_bits(0x3BA4_F75D),
    f32::from_bits(0xBCDB_7CE2),
    f32::from_bits(0x3DE7_10C7),
    f32::from_bits(0xBEC0_9387),
    f32::from_bits(0x3E03_75D3),
];

/// `erf(x) = sign(x) * (1 - exp(-Q(min(|x|, 4))))` for `|x| >= 0.875`: `Q(a) ~
/// -ln(erfc(a))`, a degree-9 Chebyshev fit on `[0.875, 4]` (error 1.7e-8), highest
/// coefficient first, rounded to f32. Past 4, `erf` rounds to +-1 in f32.
pub const ERF_FAR: [f32; 10] = [
    f32::from_bits(0x3317_C0A3),
    f32::from_bits(0xB61F_E678),
    f32::from_bits(0x385D_8BB5),
    f32::from_bits(0xBA25_7BBE),
    f32::from_bits(0x3B9F_81F5),
    f32::from_bits(0xBCDA_3543),
    f32::from_bits(0x3DE1_FF70),
    f32::from_bits(0x3F21_B205),
    f32::from_bits(0x3F90_AE2B),
    f32::from_bits(0xB9AE_98D1),
];

/// Whether `v` is a float; otherwise reports the located error for `name`.
fn check_float(b: &mut Builder, name: &str, v: Value, loc: SourceLoc) -> bool {
    let dtype = b.dtype(v);
    if b.refuse_fp8(&[v], &format!("`{name}`"), loc) {
        return false;
    }
    // f64: only the exact division; the math instructions are f32 (and f16/bf16 compute
    // in f32), and f64 functions would need libdevice's software versions.
    if dtype == DType::Scalar(ScalarType::F64) && name != "div_rn" {
        b.error_with(
            Code::TraceMathDType,
            loc,
            format!("`{name}` is not defined on f64 yet (PTX has f32 math instructions only)"),
            format!("compute in f32: `{name}(x.to::<f32>())`, or use `/` for an exact f64 division"),
        );
        return false;
    }
    if dtype.is_float() {
        return true;
    }
    b.error_with(
        Code::TraceMathDType,
        loc,
        format!("`{name}` is not defined on {dtype}"),
        format!("`{name}` takes floats: convert the operand first, e.g. `{name}(x.to::<f32>())`"),
    );
    false
}

/// Whether `v` is an f32 (for the functions on a float's bits: libdevice has them for f32
/// and f64 only, and rtriton holds no 16-bit float's bits as an int); otherwise reports the
/// located error for `name`.
fn check_f32(b: &mut Builder, name: &str, v: Value, loc: SourceLoc) -> bool {
    let dtype = b.dtype(v);
    if dtype == DType::F32 {
        return true;
    }
    if dtype.is_float() && dtype != DType::Scalar(ScalarType::F64) {
        b.error_with(
            Code::TraceMathDType,
            loc,
            format!("`{name}` is not defined on {dtype} (it works on an f32's bits, as libdevice's does)"),
            format!("convert the operands first: `{name}(x.to::<f32>(), ..)`"),
        );
        return false;
    }
    check_float(b, name, v, loc)
}

/// A scalar constant of `like`'s dtype (element-wise ops broadcast it).
fn constant(b: &mut Builder, like: Value, c: f32, loc: SourceLoc) -> Value {
    let dtype = b.dtype(like);
    b.constant_value(Constant::F32(c), dtype, Shape::scalar(), loc)
}

fn math(b: &mut Builder, f: MathFn, x: Value, loc: SourceLoc) -> Value {
    b.unary(UnaryOp::Math(f), x, loc)
}

/// `x * c` (`c` a constant of x's dtype).
fn scale(b: &mut Builder, x: Value, c: f32, loc: SourceLoc) -> Value {
    let c = constant(b, x, c, loc);
    b.binary(BinaryOp::Mul, x, c, loc)
}

/// `a * b + c` rounded once, operands broadcast to one shape.
fn fma_values(bl: &mut Builder, a: Value, b: Value, c: Value, loc: SourceLoc) -> Value {
    let (a, b) = bl.broadcast_pair(a, b, loc);
    let (a, c) = bl.broadcast_pair(a, c, loc);
    let (b, c) = bl.broadcast_pair(b, c, loc);
    let ty = bl.ty(c).clone();
    if bl.ty(a) != &ty || bl.ty(b) != &ty {
        bl.error_with(
            Code::TraceMathDType,
            loc,
            format!("`fma` operands must have one type, got {}, {} and {ty}", bl.ty(a), bl.ty(b)),
            "convert the operands to one float type with .to::<f32>()",
        );
        return a;
    }
    bl.push1(OpKind::Fma { a, b, c }, ty, loc)
}

/// Horner's rule with `fma`: `((c0 * x + c1) * x + c2) ...`, coefficients highest first.
fn horner(b: &mut Builder, x: Value, coefficients: &[f32], loc: SourceLoc) -> Value {
    let c0 = constant(b, x, coefficients[0], loc);
    let c1 = constant(b, x, coefficients[1], loc);
    let mut r = fma_values(b, x, c0, c1, loc);
    for &c in &coefficients[2..] {
        let c = constant(b, x, c, loc);
        r = fma_values(b, r, x, c, loc);
    }
    r
}

fn exp_value(b: &mut Builder, x: Value, loc: SourceLoc) -> Value {
    let t = scale(b, x, LOG2E, loc);
    math(b, MathFn::Exp2, t, loc)
}

fn erf_value(b: &mut Builder, x: Value, loc: SourceLoc) -> Value {
    let a = b.unary(UnaryOp::Abs, x, loc);
    // |x| < 0.875: x + x * P(x^2).
    let s = b.binary(BinaryOp::Mul, x, x, loc);
    let p = horner(b, s, &ERF_NEAR, loc);
    let near = fma_values(b, p, x, x, loc);
    // |x| >= 0.875: 1 - exp(-Q(min(|x|, 4))), with x's sign. min ignores NaN, but a NaN
    // takes the near branch (the comparison below is false) and stays NaN.
    let four = constant(b, x, 4.0, loc);
    let a4 = b.binary(BinaryOp::Min(PropagateNan::None), a, four, loc);
    let q = horner(b, a4, &ERF_FAR, loc);
    // exp(-q) as 2^(q (-log2 e)) and -(1 - e) as e - 1: the same values (a product's and a
    // difference's magnitude do not depend on the operands' signs, and 1 - e is not 0
    // where the far branch is taken), without the two sign flips, each an instruction
    // that ptxas keeps (rtriton's float -x is an xor, docs/semantics.md). The power is
    // `exp2_ftz`'s, three instructions cheaper: Q is within [-0.0004, 18] on [0, 4], so
    // the power lies in [1.5e-8, 1.0004] and is never flushed (a subnormal q reads as 0,
    // and 2^0 = 1 is what 2^q rounds to).
    let t = scale(b, q, -LOG2E, loc);
    let e = math(b, MathFn::Exp2Ftz, t, loc);
    let one = constant(b, x, 1.0, loc);
    let far = b.binary(BinaryOp::Sub, one, e, loc);
    let minus_far = b.binary(BinaryOp::Sub, e, one, loc);
    let zero = constant(b, x, 0.0, loc);
    let negative = b.compare(CmpPred::Lt, x, zero, loc);
    let far = b.select(negative, minus_far, far, loc);
    let split = constant(b, x, ERF_SPLIT, loc);
    let is_far = b.compare(CmpPred::Ge, a, split, loc);
    b.select(is_far, far, near, loc)
}

/// The body of a float function of one operand: checks the dtype, then builds.
fn float_fn<T>(
    name: &str,
    x: Tensor<T>,
    loc: SourceLoc,
    build: fn(&mut Builder, Value, SourceLoc) -> Value,
) -> Tensor<T> {
    Tensor::from_value(with_builder(|b| {
        if !check_float(b, name, x.id(), loc) {
            return x.id();
        }
        // f16/bf16 compute the whole function in f32, constants included (Triton extends
        // them to f32 around its math ops), and round back to the storage type once.
        let stored = b.dtype(x.id());
        let wide = b.widen_to_compute_type(x.id(), loc);
        let y = build(b, wide, loc);
        if wide == x.id() { y } else { b.cast(y, stored, loc, false) }
    }))
}

macro_rules! one_instruction {
    ($($(#[doc = $doc:literal])* $name:ident => $f:ident;)*) => {$(
        $(#[doc = $doc])*
        #[track_caller]
        pub fn $name<T: NumericMarker>(x: Tensor<T>) -> Tensor<T> {
            float_fn(MathFn::$f.name(), x, SourceLoc::caller(), |b, x, loc| math(b, MathFn::$f, x, loc))
        }
    )*};
}
one_instruction! {
    /// `2^x` (`tl.exp2`, PTX `ex2.approx.f32`).
    exp2 => Exp2;
    /// `2^x` with subnormals flushed (PTX `ex2.approx.ftz.f32`; CUDA's `exp2f` under
    /// `-ftz=true`, no `triton.language` name): a subnormal `x` is read as 0 and a result
    /// below 2^-126 is +0. Three SASS instructions fewer than [`exp2`] (no range check and
    /// rescaling for subnormal results), and the same value wherever a result under
    /// 2^-126 cannot matter: added to a number of 2^-100 or more, or stored as `f16`
    /// (whose smallest subnormal is 2^-24) after a product with a factor of at most 1.
    exp2_ftz => Exp2Ftz;
    /// `log2(x)` (`tl.log2`, PTX `lg2.approx.f32`).
    log2 => Log2;
    /// The correctly rounded square root (`tl.sqrt_rn`, PTX `sqrt.rn.f32`; rtriton's
    /// `tl.sqrt` is this one too, see `docs/semantics.md`).
    sqrt => Sqrt;
    /// `1 / sqrt(x)` (`tl.rsqrt`, PTX `rsqrt.approx.f32`).
    rsqrt => Rsqrt;
    /// Rounds toward -inf (`tl.floor`, PTX `cvt.rmi.f32.f32`).
    floor => Floor;
    /// Rounds toward +inf (`tl.ceil`, PTX `cvt.rpi.f32.f32`).
    ceil => Ceil;
    /// Rounds toward zero (`libdevice.trunc`, PTX `cvt.rzi.f32.f32`).
    trunc => Trunc;
    /// Rounds to the nearest integer, ties to even (`libdevice.rint`, PTX
    /// `cvt.rni.f32.f32`).
    rint => Rint;
    /// `sin(x)` (`tl.sin`, PTX `sin.approx.f32`: accurate on [-pi, pi]).
    sin => Sin;
    /// `cos(x)` (`tl.cos`, PTX `cos.approx.f32`: accurate on [-pi, pi]).
    cos => Cos;
    /// `tanh(x)` (`tl.math.tanh`, PTX `tanh.approx.f32`: relative error up to 2^-11).
    tanh => Tanh;
}

/// The correctly rounded square root (`tl.sqrt_rn`); the same op as [`sqrt`].
#[track_caller]
pub fn sqrt_rn<T: NumericMarker>(x: Tensor<T>) -> Tensor<T> {
    float_fn("sqrt_rn", x, SourceLoc::caller(), |b, x, loc| math(b, MathFn::Sqrt, x, loc))
}

/// Rounds to the nearest integer, ties away from zero (`libdevice.round`, C `roundf`):
/// `round(2.5) = 3`, `round(-0.5) = -1`, `round(0.49999997) = 0`. See [`round_value`].
#[track_caller]
pub fn round<T: NumericMarker>(x: Tensor<T>) -> Tensor<T> {
    float_fn("round", x, SourceLoc::caller(), round_value)
}

/// `round(x)` from exact steps (PTX has no round-half-away instruction): `t = trunc(x)`,
/// then `t + copysign(1, x)` where `|x - t| >= 0.5`. `x - t` is exact (the fraction of a
/// float is a float), and where it is at least 0.5, `|x| < 2^23`, so `t +- 1` is exact too.
/// The classic `trunc(x + 0.5)` is wrong twice: `0.49999997 + 0.5` rounds up to 1, and
/// past 2^23, `x + 0.5` rounds an odd integer to the even one above.
fn round_value(b: &mut Builder, x: Value, loc: SourceLoc) -> Value {
    let t = math(b, MathFn::Trunc, x, loc);
    let fraction = b.binary(BinaryOp::Sub, x, t, loc);
    let fraction = b.unary(UnaryOp::Abs, fraction, loc);
    let half = constant(b, x, 0.5, loc);
    // false for NaN and +-inf (whose fraction is NaN): they stay `t`, NaN and +-inf
    let away = b.compare(CmpPred::Ge, fraction, half, loc);
    let zero = constant(b, x, 0.0, loc);
    let negative = b.compare(CmpPred::Lt, x, zero, loc);
    let one = constant(b, x, 1.0, loc);
    let minus_one = constant(b, x, -1.0, loc);
    let step = b.select(negative, minus_one, one, loc);
    let stepped = b.binary(BinaryOp::Add, t, step, loc);
    b.select(away, stepped, t, loc)
}

/// The signed integer type of `dtype`'s width (f32: i32, f64: i64; 16-bit floats are
/// refused before, `check_f32`).
fn bits_type(dtype: DType) -> DType {
    match dtype.scalar().map(ScalarType::bit_width) {
        Some(64) => DType::I64,
        _ => DType::I32,
    }
}

/// `x`'s bits as the signed integer of its width; the sign bit is the integer's sign.
fn float_bits(b: &mut Builder, x: Value, loc: SourceLoc) -> Value {
    let int = bits_type(b.dtype(x));
    b.bitcast(x, int, loc)
}

/// The body of a predicate on floats (`isnan`, ...): checks the dtype, builds the `i1`
/// test on the operand as stored (no conversion, so a NaN's bits are never touched) and
/// gives it as libdevice does, an `i32` 0 or 1.
fn float_test(
    name: &str,
    x: Value,
    loc: SourceLoc,
    check: fn(&mut Builder, &str, Value, SourceLoc) -> bool,
    build: fn(&mut Builder, Value, SourceLoc) -> Value,
) -> Value {
    with_builder(|b| {
        if !check(b, name, x, loc) {
            let shape = b.ty(x).shape.clone();
            return b.constant_value(Constant::Int(0), DType::I32, shape, loc);
        }
        let test = build(b, x, loc);
        b.cast(test, DType::I32, loc, false)
    })
}

/// 1 where `x` is NaN, else 0, as `i32` (`libdevice.isnan`, which returns `int32`): the
/// unordered `x != x`, exact on every back end.
#[track_caller]
pub fn isnan<T: NumericMarker>(x: Tensor<T>) -> Tensor<i32> {
    Tensor::from_value(float_test("isnan", x.id(), SourceLoc::caller(), check_float, |b, x, loc| {
        b.compare(CmpPred::Ne, x, x, loc)
    }))
}

/// 1 where `x` is +inf or -inf, else 0, as `i32` (`libdevice.isinf`): `|x| == inf`.
#[track_caller]
pub fn isinf<T: NumericMarker>(x: Tensor<T>) -> Tensor<i32> {
    Tensor::from_value(float_test("isinf", x.id(), SourceLoc::caller(), check_float, |b, x, loc| {
        let a = b.unary(UnaryOp::Abs, x, loc);
        let inf = constant(b, a, f32::INFINITY, loc);
        b.compare(CmpPred::Eq, a, inf, loc)
    }))
}

/// 1 where `x`'s sign bit is set, else 0, as `i32` (`libdevice.signbit`): 1 for -0.0 and
/// for a NaN with the sign bit, which `x < 0` misses. A bit test on the stored bits; f32
/// only (f16/bf16 are a located error, as in libdevice).
#[track_caller]
pub fn signbit<T: NumericMarker>(x: Tensor<T>) -> Tensor<i32> {
    Tensor::from_value(float_test("signbit", x.id(), SourceLoc::caller(), check_f32, |b, x, loc| {
        let bits = float_bits(b, x, loc);
        let zero = b.constant_value(Constant::Int(0), b.dtype(bits), Shape::scalar(), loc);
        b.compare(CmpPred::Lt, bits, zero, loc)
    }))
}

/// `|x|` with the sign bit of `y` (`libdevice.copysign`, C `copysignf`): bit operations
/// on the stored bits, exact on every back end, NaN payloads kept; `y` broadcasts. f32
/// only (f16/bf16 are a located error, as in libdevice).
#[track_caller]
pub fn copysign<T: NumericMarker, Y: TensorOperand<DType = T>>(x: Tensor<T>, y: Y) -> Tensor<T> {
    let loc = SourceLoc::caller();
    let yv = y.value(loc);
    Tensor::from_value(with_builder(|b| {
        if !check_f32(b, "copysign", x.id(), loc) {
            return x.id();
        }
        let (xv, yv) = b.broadcast_pair(x.id(), yv, loc);
        with_sign_of(b, xv, yv, loc)
    }))
}

/// `|magnitude|`'s bits with `sign`'s sign bit, both of `sign`'s shape and dtype.
fn with_sign_of(b: &mut Builder, magnitude: Value, sign: Value, loc: SourceLoc) -> Value {
    let dtype = b.dtype(magnitude);
    let (bm, bs) = (float_bits(b, magnitude, loc), float_bits(b, sign, loc));
    let int = b.dtype(bm);
    let width = int.scalar().map_or(32, ScalarType::bit_width);
    // The sign bit as the int type's minimum; the other bits as its maximum.
    let sign_bit = b.constant_value(Constant::Int(-(1i64 << (width - 1))), int, Shape::scalar(), loc);
    let rest = b.constant_value(Constant::Int((1i64 << (width - 1)) - 1), int, Shape::scalar(), loc);
    let m = b.binary(BinaryOp::And, bm, rest, loc);
    let s = b.binary(BinaryOp::And, bs, sign_bit, loc);
    let r = b.binary(BinaryOp::Or, m, s, loc);
    b.bitcast(r, dtype, loc)
}

/// An `i32` constant.
fn int(b: &mut Builder, c: i64, loc: SourceLoc) -> Value {
    b.constant_value(Constant::Int(c), DType::I32, Shape::scalar(), loc)
}

/// The canonical NaN `0x7FFFFFFF` as an f32 (a bitcast, so no constant folding or text
/// form can change its bits).
fn canonical_nan(b: &mut Builder, loc: SourceLoc) -> Value {
    let bits = int(b, 0x7FFF_FFFF, loc);
    b.bitcast(bits, DType::F32, loc)
}

/// How many bits [`fmod_value`] shifts the remainder by per step: a remainder below
/// 2^24 shifted by 39 stays below 2^63, a positive i64.
const FMOD_STEP_BITS: i64 = 39;

/// How many steps [`fmod_value`] takes: enough for the largest exponent difference,
/// 254 - 1 = 253 (the largest finite exponent field against a subnormal's).
const FMOD_STEPS: i64 = 7;

/// `fmod(x, y)` (C `fmodf`): `x - n * y` with `n = trunc(x / y)`, computed exactly with
/// integer steps (PTX has no float remainder, and `x - trunc(x / y) * y` is wrong once the
/// quotient has more than 24 bits). With `x = mx 2^ex` and `y = my 2^ey` (integer
/// significands below 2^24), the result's significand is `(mx 2^(ex - ey)) mod my`,
/// reduced `FMOD_STEPS` times by at most `FMOD_STEP_BITS` bits: `r = (r << s) % my`.
fn fmod_value(b: &mut Builder, x: Value, y: Value, loc: SourceLoc) -> Value {
    let ax = b.unary(UnaryOp::Abs, x, loc);
    let ay = b.unary(UnaryOp::Abs, y, loc);
    let (bx, by) = (b.bitcast(ax, DType::I32, loc), b.bitcast(ay, DType::I32, loc));
    let (shift, fraction, implicit, one, zero) =
        (int(b, 23, loc), int(b, 0x7F_FFFF, loc), int(b, 0x80_0000, loc), int(b, 1, loc), int(b, 0, loc));
    // (significand, exponent) with `value = significand * 2^(exponent - 150)`; a
    // subnormal has no implicit bit and the exponent of the smallest normal.
    let mut parts = |bits: Value| {
        let field = b.binary(BinaryOp::Shr, bits, shift, loc);
        let f = b.binary(BinaryOp::And, bits, fraction, loc);
        let normal = b.compare(CmpPred::Ne, field, zero, loc);
        let lead = b.select(normal, implicit, zero, loc);
        let significand = b.binary(BinaryOp::Or, f, lead, loc);
        let exponent = b.binary(BinaryOp::Max(PropagateNan::None), field, one, loc);
        (significand, exponent)
    };
    let (mx, ex) = parts(bx);
    let (my, ey) = parts(by);
    // y = 0 (and lanes whose result is chosen below) must not divide by zero.
    let my_zero = b.compare(CmpPred::Eq, my, zero, loc);
    let my = b.select(my_zero, one, my, loc);
    let d = b.binary(BinaryOp::Sub, ex, ey, loc);
    let my64 = b.cast(my, DType::I64, loc, false);
    let mx64 = b.cast(mx, DType::I64, loc, false);
    let mut r = b.binary(BinaryOp::Rem, mx64, my64, loc);
    let step = int(b, FMOD_STEP_BITS, loc);
    for k in 0..FMOD_STEPS {
        // this step's shift: what is left of d, at most one step's bits
        let done = int(b, k * FMOD_STEP_BITS, loc);
        let left = b.binary(BinaryOp::Sub, d, done, loc);
        let left = b.binary(BinaryOp::Max(PropagateNan::None), left, zero, loc);
        let s = b.binary(BinaryOp::Min(PropagateNan::None), left, step, loc);
        let s = b.cast(s, DType::I64, loc, false);
        let shifted = b.binary(BinaryOp::Shl, r, s, loc);
        r = b.binary(BinaryOp::Rem, shifted, my64, loc);
    }
    // r * 2^(ey - 150), exact: r < 2^24 converts exactly, and the product is the result,
    // a float. The power is normal from ey = 24 on ((ey - 23) << 23), else the
    // subnormal 1 << (ey - 1).
    let r = b.cast(r, DType::I32, loc, false);
    let r = b.cast(r, DType::F32, loc, false);
    let normal_power = {
        let bias = int(b, 23, loc);
        let e = b.binary(BinaryOp::Sub, ey, bias, loc);
        b.binary(BinaryOp::Shl, e, shift, loc)
    };
    let subnormal_power = {
        let e = b.binary(BinaryOp::Sub, ey, one, loc);
        b.binary(BinaryOp::Shl, one, e, loc)
    };
    let smallest_normal = int(b, 24, loc);
    let normal = b.compare(CmpPred::Ge, ey, smallest_normal, loc);
    let power = b.select(normal, normal_power, subnormal_power, loc);
    let power = b.bitcast(power, DType::F32, loc);
    let magnitude = b.binary(BinaryOp::Mul, r, power, loc);
    let reduced = with_sign_of(b, magnitude, x, loc);
    // |x| < |y| (y = +-inf included): x itself, signed zeros kept.
    let small = b.compare(CmpPred::Lt, ax, ay, loc);
    let result = b.select(small, x, reduced, loc);
    // NaN for x infinite or NaN, y zero or NaN (comparisons with NaN are false).
    let inf = constant(b, x, f32::INFINITY, loc);
    let x_finite = b.compare(CmpPred::Lt, ax, inf, loc);
    let fzero = constant(b, x, 0.0, loc);
    let y_nonzero = b.compare(CmpPred::Gt, ay, fzero, loc);
    let defined = b.binary(BinaryOp::And, x_finite, y_nonzero, loc);
    let nan = canonical_nan(b, loc);
    b.select(defined, result, nan, loc)
}

/// The C remainder `fmod(x, y)` (`libdevice.fmod`): `x - trunc(x / y) * y` computed
/// exactly (the result is always a float), with `x`'s sign; `fmod(x, +-inf) = x` for finite
/// `x`; NaN for an infinite `x` or a zero `y`. `y` broadcasts. See [`fmod_value`].
#[track_caller]
pub fn fmod<T: NumericMarker, Y: TensorOperand<DType = T>>(x: Tensor<T>, y: Y) -> Tensor<T> {
    // f16/bf16 in f32: the remainder is exact there and a value of the stored type
    float_fn2("fmod", x, y, SourceLoc::caller(), fmod_value)
}

/// The body of a float function of two operands (`y` broadcast against `x`): checks `x`'s
/// dtype, then builds on both in the computation type, as [`float_fn`] does.
fn float_fn2<T, Y: TensorOperand<DType = T>>(
    name: &str,
    x: Tensor<T>,
    y: Y,
    loc: SourceLoc,
    build: fn(&mut Builder, Value, Value, SourceLoc) -> Value,
) -> Tensor<T> {
    let yv = y.value(loc);
    Tensor::from_value(with_builder(|b| {
        if !check_float(b, name, x.id(), loc) {
            return x.id();
        }
        let (xv, yv) = b.broadcast_pair(x.id(), yv, loc);
        let stored = b.dtype(xv);
        let (wx, wy) = (b.widen_to_compute_type(xv, loc), b.widen_to_compute_type(yv, loc));
        let r = build(b, wx, wy, loc);
        if wx == xv { r } else { b.cast(r, stored, loc, false) }
    }))
}

/// `x` clamped to `[lo, hi]` (`tl.clamp`, `propagate_nan=NONE`): `min(max(x, lo), hi)`
/// with the NaN-ignoring `max`/`min`, so a NaN `x` gives `lo`. Floats only, as in Triton;
/// `lo > hi` and a NaN bound are undefined in Triton (here: what the formula gives).
#[track_caller]
pub fn clamp<T: NumericMarker, L: TensorOperand<DType = T>, H: TensorOperand<DType = T>>(
    x: Tensor<T>,
    lo: L,
    hi: H,
) -> Tensor<T> {
    clamp_at(x, lo, hi, PropagateNan::None, SourceLoc::caller())
}

/// [`clamp`] with Triton's `propagate_nan`: with `PropagateNan::All` a NaN `x` is the
/// result, its bits kept (Triton's lowering selects `x` where `x != x`).
#[track_caller]
pub fn clamp_with<T: NumericMarker, L: TensorOperand<DType = T>, H: TensorOperand<DType = T>>(
    x: Tensor<T>,
    lo: L,
    hi: H,
    propagate_nan: PropagateNan,
) -> Tensor<T> {
    clamp_at(x, lo, hi, propagate_nan, SourceLoc::caller())
}

fn clamp_at<T: NumericMarker, L: TensorOperand<DType = T>, H: TensorOperand<DType = T>>(
    x: Tensor<T>,
    lo: L,
    hi: H,
    propagate_nan: PropagateNan,
    loc: SourceLoc,
) -> Tensor<T> {
    let (lo, hi) = (lo.value(loc), hi.value(loc));
    Tensor::from_value(with_builder(|b| {
        if !check_float(b, "clamp", x.id(), loc) {
            return x.id();
        }
        let low = b.binary(BinaryOp::Max(PropagateNan::None), x.id(), lo, loc);
        let r = b.binary(BinaryOp::Min(PropagateNan::None), low, hi, loc);
        match propagate_nan {
            PropagateNan::None => r,
            PropagateNan::All => {
                let (xv, r) = b.broadcast_pair(x.id(), r, loc);
                let nan = b.compare(CmpPred::Ne, xv, xv, loc);
                b.select(nan, xv, r, loc)
            }
        }
    }))
}

/// `e^x` (`tl.exp`): `exp2(x * log2(e))`, as Triton lowers it.
#[track_caller]
pub fn exp<T: NumericMarker>(x: Tensor<T>) -> Tensor<T> {
    float_fn("exp", x, SourceLoc::caller(), exp_value)
}

/// The natural logarithm (`tl.log`): `log2(x) * ln(2)`.
#[track_caller]
pub fn log<T: NumericMarker>(x: Tensor<T>) -> Tensor<T> {
    float_fn("log", x, SourceLoc::caller(), |b, x, loc| {
        let l = math(b, MathFn::Log2, x, loc);
        scale(b, l, LN2, loc)
    })
}

/// `1 / (1 + exp(-x))` (`tl.sigmoid`, composed as Triton does, with rtriton's correctly
/// rounded `/`: Triton's `/` is [`fdiv`]'s `div.full.f32`).
#[track_caller]
pub fn sigmoid<T: NumericMarker>(x: Tensor<T>) -> Tensor<T> {
    float_fn("sigmoid", x, SourceLoc::caller(), |b, x, loc| {
        // exp(-x) as 2^(x (-log2 e)): the same value without a sign flip (an instruction
        // ptxas keeps), and through `exp2_ftz`, three cheaper: a power below 2^-126 added
        // to 1 vanishes either way, and a subnormal exponent reads as 0, giving the 1 that
        // 2^(subnormal) rounds to.
        let t = scale(b, x, -LOG2E, loc);
        let e = math(b, MathFn::Exp2Ftz, t, loc);
        let one = constant(b, x, 1.0, loc);
        let d = b.binary(BinaryOp::Add, one, e, loc);
        b.binary(BinaryOp::Div, one, d, loc)
    })
}

/// The error function (`tl.erf`): a polynomial with one `exp` ([`ERF_NEAR`], [`ERF_FAR`]).
#[track_caller]
pub fn erf<T: NumericMarker>(x: Tensor<T>) -> Tensor<T> {
    float_fn("erf", x, SourceLoc::caller(), erf_value)
}

/// `ln(2)` as `LN2_HI + LN2_LO`: `LN2_HI` has 15 significant bits, so `k * LN2_HI` is exact
/// for every integer `|k| < 2^9` (the compositions below scale by at most 2^152).
const LN2_HI: f32 = f32::from_bits(0x3F31_7200);
const LN2_LO: f32 = f32::from_bits(0x35BF_BE8E);

/// `pi` and `pi / 2` as f32 plus the f32 nearest to the rest (`atan2`'s quadrants).
const PI_HI: f32 = f32::from_bits(0x4049_0FDB);
const PI_LO: f32 = f32::from_bits(0xB3BB_BD2E);
const HALF_PI_HI: f32 = f32::from_bits(0x3FC9_0FDB);
const HALF_PI_LO: f32 = f32::from_bits(0xB33B_BD2E);

/// The bits of `0.70710677`, the f32 below `sqrt(2)/2`: a positive normal float's bits less
/// these, shifted right by 23, are the `k` of `x = m 2^k` with `m` in `[sqrt(2)/2, sqrt(2))`.
const SQRT_HALF_BITS: i64 = 0x3F35_04F3;

/// Below this magnitude `log1p(x)` and `expm1(x)` round to `x` (`x^2 / 2` is under half an
/// ulp of `x`): 2^-24. It also keeps signed zeros and subnormals off the reductions.
const TINY: f32 = f32::from_bits(0x3380_0000);

/// `log1p` uses `1 + x` as `x` itself where `1 + x` lies in `[sqrt(2)/2, sqrt(2))`:
/// `[sqrt(2)/2 - 1, sqrt(2) - 1)` rounded to f32.
const LOG1P_NEAR: (f32, f32) = (f32::from_bits(0xBE95_F61A), f32::from_bits(0x3ED4_13CD));

/// `expm1` clamps its argument to this range first: below -30 every result rounds to -1,
/// above 89 every result overflows, and the power of two it scales by stays a float.
const EXPM1_RANGE: (f32, f32) = (-30.0, 89.0);

/// `pow`'s exponent `y ln|x|` past which the result is +-0 or +-inf: `e^-105` is under half
/// the smallest subnormal and `e^90` over `f32::MAX`; between them the scaling by `2^k`
/// (`k` in [-152, 130]) is two normal powers.
const POW_EXPONENT_RANGE: (f32, f32) = (-105.0, 90.0);

/// `e^f = 1 + f + f^2 P(f)` on `|f| <= ln(2) / 2` (`f` as the reductions give it, up to
/// 0.347): `P(f) ~ (expm1(f) - f) / f^2`, degree 5, highest coefficient first. A fit made for
/// rtriton with mpmath: near-minimax relative to `expm1(f)` (Lawson's weighted least
/// squares), each coefficient rounded to f32 from the constant term up with the others
/// refitted; relative error 4.4e-10 with the f32 coefficients.
pub const EXPM1_POLY: [f32; 6] = [
    f32::from_bits(0x394F_3E4E),
    f32::from_bits(0x3AB6_9D34),
    f32::from_bits(0x3C08_896A),
    f32::from_bits(0x3D2A_AA7C),
    f32::from_bits(0x3E2A_AAAA),
    f32::from_bits(0x3F00_0000),
];

/// `ln(m) = 2 atanh(s) = 2s + (2/3) s^3 + s^5 P(s^2)` with `s = (m - 1) / (m + 1)`, `m` in
/// `[sqrt(2)/2, sqrt(2))`, so `s^2 <= 0.02944` (fitted to 0.0295): `P(z) ~ (2 atanh(sqrt z) -
/// 2 sqrt z - (2/3) z^1.5) / z^2.5`, degree 2, highest coefficient first; fitted as
/// [`EXPM1_POLY`], relative error of `ln(m)` 8.6e-12 with the f32 coefficients.
pub const LOG_POLY: [f32; 3] = [f32::from_bits(0x3E6F_D2CE), f32::from_bits(0x3E92_2939), f32::from_bits(0x3ECC_CD00)];

/// `2/3` as `0.6666667 + -1.9868216e-8` (the `s^3` term of [`LOG_POLY`]'s series, summed
/// in two parts).
pub const LOG_TWO_THIRDS: (f32, f32) = (f32::from_bits(0x3F2A_AAAB), f32::from_bits(0xB2AA_AAAB));

/// `atan(a) = a + a^3 P(a^2)` on `[0, 1]`: `P(z) ~ (atan(sqrt z) - sqrt z) / z^1.5`, degree 9,
/// highest coefficient first; fitted as [`EXPM1_POLY`], relative error 4.5e-10 with the f32
/// coefficients.
pub const ATAN_POLY: [f32; 10] = [
    f32::from_bits(0x3A94_B42F),
    f32::from_bits(0xBBF3_506E),
    f32::from_bits(0x3CBA_981F),
    f32::from_bits(0xBD38_405D),
    f32::from_bits(0x3D8A_8500),
    f32::from_bits(0xBDB4_A9DE),
    f32::from_bits(0x3DE2_88B8),
    f32::from_bits(0xBE12_3B10),
    f32::from_bits(0x3E4C_CC0E),
    f32::from_bits(0xBEAA_AAA9),
];

/// The ops of one composition, each a method, so that `log1p`, `expm1`, `pow` and `atan2`
/// read as the formulas they compute. Float constants take the dtype of the value they are
/// used with (f32: the 16-bit types are widened before); integer constants are `i32`.
struct Ops<'a> {
    b: &'a mut Builder,
    loc: SourceLoc,
}

impl Ops<'_> {
    fn float(&mut self, like: Value, c: f32) -> Value {
        constant(self.b, like, c, self.loc)
    }
    fn int(&mut self, c: i64) -> Value {
        int(self.b, c, self.loc)
    }
    fn binary(&mut self, op: BinaryOp, x: Value, y: Value) -> Value {
        self.b.binary(op, x, y, self.loc)
    }
    fn add(&mut self, x: Value, y: Value) -> Value {
        self.binary(BinaryOp::Add, x, y)
    }
    fn sub(&mut self, x: Value, y: Value) -> Value {
        self.binary(BinaryOp::Sub, x, y)
    }
    fn mul(&mut self, x: Value, y: Value) -> Value {
        self.binary(BinaryOp::Mul, x, y)
    }
    /// `x * c` for a float constant `c`.
    fn mul_c(&mut self, x: Value, c: f32) -> Value {
        scale(self.b, x, c, self.loc)
    }
    /// The correctly rounded quotient (`div.rn`).
    fn div(&mut self, x: Value, y: Value) -> Value {
        self.binary(BinaryOp::Div, x, y)
    }
    fn fma(&mut self, a: Value, b: Value, c: Value) -> Value {
        fma_values(self.b, a, b, c, self.loc)
    }
    /// `a * c + d` for a float constant `c`.
    fn fma_c(&mut self, a: Value, c: f32, d: Value) -> Value {
        let c = self.float(a, c);
        self.fma(a, c, d)
    }
    /// The NaN-ignoring minimum and maximum (PTX `min`/`max`).
    fn min(&mut self, x: Value, y: Value) -> Value {
        self.binary(BinaryOp::Min(PropagateNan::None), x, y)
    }
    fn max(&mut self, x: Value, y: Value) -> Value {
        self.binary(BinaryOp::Max(PropagateNan::None), x, y)
    }
    fn and(&mut self, x: Value, y: Value) -> Value {
        self.binary(BinaryOp::And, x, y)
    }
    fn or(&mut self, x: Value, y: Value) -> Value {
        self.binary(BinaryOp::Or, x, y)
    }
    fn neg(&mut self, x: Value) -> Value {
        self.b.unary(UnaryOp::Neg, x, self.loc)
    }
    fn abs(&mut self, x: Value) -> Value {
        self.b.unary(UnaryOp::Abs, x, self.loc)
    }
    fn math(&mut self, f: MathFn, x: Value) -> Value {
        math(self.b, f, x, self.loc)
    }
    fn horner(&mut self, x: Value, coefficients: &[f32]) -> Value {
        horner(self.b, x, coefficients, self.loc)
    }
    fn cmp(&mut self, pred: CmpPred, x: Value, y: Value) -> Value {
        self.b.compare(pred, x, y, self.loc)
    }
    /// `x pred c` for a float constant `c`.
    fn cmp_c(&mut self, pred: CmpPred, x: Value, c: f32) -> Value {
        let c = self.float(x, c);
        self.cmp(pred, x, c)
    }
    fn select(&mut self, cond: Value, a: Value, b: Value) -> Value {
        self.b.select(cond, a, b, self.loc)
    }
    /// `cond ? c : x` for a float constant `c`.
    fn select_c(&mut self, cond: Value, c: f32, x: Value) -> Value {
        let c = self.float(x, c);
        self.select(cond, c, x)
    }
    /// `cond ? canonical NaN : x`.
    fn nan_where(&mut self, cond: Value, x: Value) -> Value {
        let nan = canonical_nan(self.b, self.loc);
        self.select(cond, nan, x)
    }
    /// `cond ? x : canonical NaN`.
    fn nan_unless(&mut self, cond: Value, x: Value) -> Value {
        let nan = canonical_nan(self.b, self.loc);
        self.select(cond, x, nan)
    }
    /// Whether `x` is NaN (`x != x`).
    fn is_nan(&mut self, x: Value) -> Value {
        self.cmp(CmpPred::Ne, x, x)
    }
    /// Whether `x`'s sign bit is set (also for -0.0).
    fn sign_bit(&mut self, x: Value) -> Value {
        let bits = self.b.bitcast(x, DType::I32, self.loc);
        let zero = self.int(0);
        self.cmp(CmpPred::Lt, bits, zero)
    }
    /// `(k, m)` with `x = m 2^k`, `m` in `[sqrt(2)/2, sqrt(2))` and `k` an `i32`, for a
    /// positive normal `x` (bit operations, exact).
    fn split_exponent(&mut self, x: Value) -> (Value, Value) {
        let bits = self.b.bitcast(x, DType::I32, self.loc);
        let (sqrt_half, shift) = (self.int(SQRT_HALF_BITS), self.int(23));
        let t = self.sub(bits, sqrt_half);
        let k = self.binary(BinaryOp::Shr, t, shift);
        let k_bits = self.binary(BinaryOp::Shl, k, shift);
        let m = self.sub(bits, k_bits);
        (k, self.b.bitcast(m, DType::F32, self.loc))
    }
    /// `2^k` for an `i32` `k` in [-126, 127]: the exponent field `(k + 127) << 23`.
    fn pow2(&mut self, k: Value) -> Value {
        let (bias, shift) = (self.int(127), self.int(23));
        let e = self.add(k, bias);
        let bits = self.binary(BinaryOp::Shl, e, shift);
        self.b.bitcast(bits, DType::F32, self.loc)
    }
    /// An integral float as an `i32` (the conversion truncates; exact here).
    fn convert_to_i32(&mut self, x: Value) -> Value {
        self.b.cast(x, DType::I32, self.loc, false)
    }
    /// An `i32` as an f32 (exact for the exponents converted here).
    fn convert_to_f32(&mut self, k: Value) -> Value {
        self.b.cast(k, DType::F32, self.loc, false)
    }
    /// `a + b` as `s + e` exactly (Knuth's TwoSum): `s` the rounded sum, `e` its error.
    fn two_sum(&mut self, a: Value, b: Value) -> (Value, Value) {
        let s = self.add(a, b);
        let b_part = self.sub(s, a);
        let a_part = self.sub(s, b_part);
        let a_err = self.sub(a, a_part);
        let b_err = self.sub(b, b_part);
        (s, self.add(a_err, b_err))
    }
    /// `a + b` as `s + e` exactly where `a`'s exponent is at least `b`'s (Dekker's
    /// Fast2Sum).
    fn fast_two_sum(&mut self, a: Value, b: Value) -> (Value, Value) {
        let s = self.add(a, b);
        let a_part = self.sub(s, a);
        (s, self.sub(b, a_part))
    }
}

/// `k ln(2) + ln(m)` as `hi + lo` (within 2^-32 relative: 1.3e-10 at worst on a dense sweep
/// of `ln(x)`, the rounding of `s^5`'s part dominating), given `m - 1 = f + f_lo` and
/// `m + 1 = d + d_lo` (each pair a float and a small correction) and `k` as a float:
/// `ln(m) = 2 atanh(s)` with `s = (m - 1) / (m + 1)` as `s + s_lo` (one division), then
/// `2s + (2/3) s^3 + s^5 P(s^2)` ([`LOG_POLY`]) with the large terms summed exactly.
fn log_reduced(o: &mut Ops, f: Value, f_lo: Option<Value>, d: Value, d_lo: Value, k: Value) -> (Value, Value) {
    // s + s_lo = (f + f_lo) / (d + d_lo): s = f (1 / d), then the remainder f - s d (one
    // rounding, in an fma) corrected by f_lo - s d_lo, times 1 / d.
    let one = o.float(f, 1.0);
    let r = o.div(one, d);
    let s = o.mul(f, r);
    let minus_s = o.neg(s);
    let e = o.fma(minus_s, d, f);
    let e = match f_lo {
        Some(f_lo) => o.add(e, f_lo),
        None => e,
    };
    let e = o.fma(minus_s, d_lo, e);
    let s_lo = o.mul(e, r);
    // s^3 as s3 + s3_lo: s^2 = z + z_lo and z s exactly (fma), plus 3 s^2 s_lo.
    let z = o.mul(s, s);
    let minus_z = o.neg(z);
    let z_lo = o.fma(s, s, minus_z);
    let s3 = o.mul(z, s);
    let minus_s3 = o.neg(s3);
    let s3_lo = o.fma(z, s, minus_s3);
    let s3_lo = o.fma(z_lo, s, s3_lo);
    let z3 = o.mul_c(z, 3.0);
    let s3_lo = o.fma(z3, s_lo, s3_lo);
    // (2/3) s^3 as t + t_lo, then the s^5 term into t_lo.
    let (c_hi, c_lo) = LOG_TWO_THIRDS;
    let t = o.mul_c(s3, c_hi);
    let minus_t = o.neg(t);
    let t_lo = o.fma_c(s3, c_hi, minus_t);
    let t_lo = o.fma_c(s3, c_lo, t_lo);
    let t_lo = o.fma_c(s3_lo, c_hi, t_lo);
    let p = o.horner(z, &LOG_POLY);
    let s5 = o.mul(s3, z);
    let t_lo = o.fma(s5, p, t_lo);
    // k LN2_HI + 2s + t summed exactly (each 2s and t may be the largest), the small
    // parts added to the errors.
    let k_hi = o.mul_c(k, LN2_HI);
    let two_s = o.add(s, s);
    let (h, e1) = o.two_sum(k_hi, two_s);
    let (h, e2) = o.two_sum(h, t);
    let two_s_lo = o.add(s_lo, s_lo);
    let small = o.add(t_lo, two_s_lo);
    let errors = o.add(e1, e2);
    let lo = o.add(errors, small);
    let lo = o.fma_c(k, LN2_LO, lo);
    o.fast_two_sum(h, lo)
}

/// `v` with `e^(f + f_lo) = 1 + f + v`, for `|f| <= 0.347` and a small `f_lo`:
/// `q = f^2 P(f)` ([`EXPM1_POLY`]) and `v = q + f_lo e^f`.
fn exp_reduced(o: &mut Ops, f: Value, f_lo: Value) -> Value {
    let f2 = o.mul(f, f);
    let p = o.horner(f, &EXPM1_POLY);
    let q = o.mul(f2, p);
    let one = o.float(f, 1.0);
    let one_f = o.add(one, f);
    let e = o.add(one_f, q);
    o.fma(f_lo, e, q)
}

/// `log1p(x) = ln(1 + x)` from exact steps and one division, within 1 ulp of the correctly
/// rounded result (`docs/semantics.md`). Where `1 + x` lies in `[sqrt(2)/2, sqrt(2))` the
/// reduced argument is `x` itself (`m - 1 = x`, no rounding); elsewhere `u = 1 + x` rounded,
/// its rounding error `c = x - (u - 1)` (exact) kept, and `u = m 2^k` split by bit operations:
/// `ln(1 + x) = k ln(2) + ln(m + c 2^-k)` ([`log_reduced`]).
fn log1p_value(b: &mut Builder, x: Value, loc: SourceLoc) -> Value {
    let o = &mut Ops { b, loc };
    let (one, two, zero) = (o.float(x, 1.0), o.float(x, 2.0), o.float(x, 0.0));
    // near: m - 1 = x, m + 1 = 2 + x as d + d_lo (Fast2Sum, |x| < 2)
    let (d_near, d_near_lo) = o.fast_two_sum(two, x);
    // far: u = 1 + x, c its rounding error (exact while u - 1 is, u in [0.5, 2^24]; beyond,
    // c is negligible next to ln(u) >= 16)
    let u = o.add(one, x);
    let u_less_one = o.sub(u, one);
    let c = o.sub(x, u_less_one);
    let (k, m) = o.split_exponent(u);
    // c 2^-k (k <= 126 keeps the power a float; c is 0 where k is larger)
    let k_max = o.int(126);
    let k_capped = o.min(k, k_max);
    let minus_k = o.neg(k_capped);
    let scale = o.pow2(minus_k);
    let m_lo = o.mul(c, scale);
    let f_far = o.sub(m, one);
    let (d_far, d_far_lo) = o.fast_two_sum(one, m);
    let d_far_lo = o.add(d_far_lo, m_lo);
    let k_far = o.convert_to_f32(k);
    let above = o.cmp_c(CmpPred::Ge, x, LOG1P_NEAR.0);
    let below = o.cmp_c(CmpPred::Lt, x, LOG1P_NEAR.1);
    let near = o.and(above, below);
    let f = o.select(near, x, f_far);
    let f_lo = o.select(near, zero, m_lo);
    let d = o.select(near, d_near, d_far);
    let d_lo = o.select(near, d_near_lo, d_far_lo);
    let k = o.select(near, zero, k_far);
    let (r, _) = log_reduced(o, f, Some(f_lo), d, d_lo, k);
    // |x| < 2^-24 (signed zeros, subnormals): x; +inf: +inf; -1: -inf; below -1 and NaN:
    // NaN (the comparison is false for NaN)
    let a = o.abs(x);
    let tiny = o.cmp_c(CmpPred::Lt, a, TINY);
    let r = o.select(tiny, x, r);
    let inf = o.cmp_c(CmpPred::Eq, x, f32::INFINITY);
    let r = o.select(inf, x, r);
    let minus_one = o.cmp_c(CmpPred::Eq, x, -1.0);
    let r = o.select_c(minus_one, f32::NEG_INFINITY, r);
    let defined = o.cmp_c(CmpPred::Ge, x, -1.0);
    o.nan_unless(defined, r)
}

/// `expm1(x) = e^x - 1` from exact steps, within 1 ulp of the correctly rounded result
/// (`docs/semantics.md`): `k = rint(x log2(e))`, `f = x - k LN2_HI` (exact in an fma),
/// `f_lo = -k LN2_LO`, and `2^k (1 + f + v) - 1` ([`exp_reduced`]) summed as
/// `2^k v + (2^k f + (2^k - 1))`, where `2^k f` and `2^k - 1` are exact for the `k` that
/// matter: no cancellation is left to the rounding.
fn expm1_value(b: &mut Builder, x: Value, loc: SourceLoc) -> Value {
    let o = &mut Ops { b, loc };
    // NaN-ignoring clamp: a NaN becomes a bound here and is restored below
    let (lo, hi) = (o.float(x, EXPM1_RANGE.0), o.float(x, EXPM1_RANGE.1));
    let xc = o.max(x, lo);
    let xc = o.min(xc, hi);
    let t = o.mul_c(xc, LOG2E);
    let kf = o.math(MathFn::Rint, t);
    let minus_k = o.neg(kf);
    let f = o.fma_c(minus_k, LN2_HI, xc);
    let f_lo = o.mul_c(kf, -LN2_LO);
    let v = exp_reduced(o, f, f_lo);
    // k = 128 (x above 88.38) scales by 2^127, then doubles: the -1 does not matter there,
    // and the doubling overflows where e^x does
    let k = o.convert_to_i32(kf);
    let k_max = o.int(127);
    let k_capped = o.min(k, k_max);
    let s = o.pow2(k_capped);
    let one = o.float(x, 1.0);
    let s_less_one = o.sub(s, one);
    let a = o.fma(s, f, s_less_one);
    let y = o.fma(s, v, a);
    let doubled = o.cmp(CmpPred::Gt, k, k_max);
    let y2 = o.mul_c(y, 2.0);
    let y = o.select(doubled, y2, y);
    // |x| < 2^-24 (signed zeros, subnormals): x; +-inf come out of the clamp as +inf, -1
    let a = o.abs(x);
    let tiny = o.cmp_c(CmpPred::Lt, a, TINY);
    let y = o.select(tiny, x, y);
    let nan = o.is_nan(x);
    o.nan_where(nan, y)
}

/// `pow(x, y) = x^y` from exact steps and one division, within 1 ulp of the correctly
/// rounded result (`docs/semantics.md`): `ln|x|` as `l + l_lo` ([`log_reduced`], a
/// subnormal `x` scaled by 2^24 first), `y ln|x|` as `p + p_lo` (the product's error exact
/// in an fma), then `e^(p + p_lo) = 2^k (1 + g + v)` ([`exp_reduced`]) scaled by two normal
/// powers, `2^(k >> 1)` and `2^(k - (k >> 1))`, so that only the last product can round a
/// subnormal result. The special cases are C's `powf` (`libdevice.pow`), selected last.
fn pow_value(b: &mut Builder, x: Value, y: Value, loc: SourceLoc) -> Value {
    let o = &mut Ops { b, loc };
    let ax = o.abs(x);
    let subnormal = o.cmp_c(CmpPred::Lt, ax, f32::MIN_POSITIVE);
    let scaled = o.mul_c(ax, 16_777_216.0);
    let normal = o.select(subnormal, scaled, ax);
    let (k, m) = o.split_exponent(normal);
    let (shift, no_shift) = (o.int(24), o.int(0));
    let shift = o.select(subnormal, shift, no_shift);
    let k = o.sub(k, shift);
    let k = o.convert_to_f32(k);
    let one = o.float(x, 1.0);
    let f = o.sub(m, one);
    let (d, d_lo) = o.fast_two_sum(one, m);
    let (l, l_lo) = log_reduced(o, f, None, d, d_lo, k);
    // y ln|x| = p + p_lo
    let t = o.mul(l, y);
    let minus_t = o.neg(t);
    let t_lo = o.fma(l, y, minus_t);
    let t_lo = o.fma(l_lo, y, t_lo);
    let (p, p_lo) = o.fast_two_sum(t, t_lo);
    // e^(p + p_lo); the clamp (NaN-ignoring) keeps the lanes selected away below finite
    let (lo, hi) = (o.float(x, POW_EXPONENT_RANGE.0), o.float(x, POW_EXPONENT_RANGE.1));
    let pc = o.max(p, lo);
    let pc = o.min(pc, hi);
    let scaled = o.mul_c(pc, LOG2E);
    let kf = o.math(MathFn::Rint, scaled);
    let minus_k = o.neg(kf);
    let g = o.fma_c(minus_k, LN2_HI, pc);
    let g_lo = o.fma_c(minus_k, LN2_LO, p_lo);
    let v = exp_reduced(o, g, g_lo);
    // 2^k1 (1 + g + v) rounded once (1 + g split exactly), then times 2^k2
    let (a, a_lo) = o.fast_two_sum(one, g);
    let w = o.add(a_lo, v);
    let k = o.convert_to_i32(kf);
    let one_bit = o.int(1);
    let k1 = o.binary(BinaryOp::Shr, k, one_bit);
    let k2 = o.sub(k, k1);
    let (s1, s2) = (o.pow2(k1), o.pow2(k2));
    let s1a = o.mul(s1, a);
    let r = o.fma(s1, w, s1a);
    let r = o.mul(r, s2);
    let over = o.cmp(CmpPred::Gt, t, hi);
    let r = o.select_c(over, f32::INFINITY, r);
    let under = o.cmp(CmpPred::Lt, t, lo);
    let r = o.select_c(under, 0.0, r);
    // a negative x (-0 included) to an odd integer power is negative
    let y_int = o.math(MathFn::Trunc, y);
    let integral = o.cmp(CmpPred::Eq, y_int, y);
    let not_integral = o.cmp(CmpPred::Ne, y_int, y);
    let half = o.mul_c(y, 0.5);
    let half_int = o.math(MathFn::Trunc, half);
    let half_fraction = o.cmp(CmpPred::Ne, half_int, half);
    let odd = o.and(integral, half_fraction);
    let x_sign = o.sign_bit(x);
    let negative = o.and(x_sign, odd);
    let minus_r = o.neg(r);
    let r = o.select(negative, minus_r, r);
    // x < 0 and y not an integer: NaN
    let x_negative = o.cmp_c(CmpPred::Lt, x, 0.0);
    let no_real_power = o.and(x_negative, not_integral);
    let r = o.nan_where(no_real_power, r);
    // x = +-0 or +-inf: inf where |x| = inf and y > 0 or |x| = 0 and y < 0, else 0,
    // negative for the odd powers of a negative x
    let x_zero = o.cmp_c(CmpPred::Eq, ax, 0.0);
    let x_inf = o.cmp_c(CmpPred::Eq, ax, f32::INFINITY);
    let x_edge = o.or(x_zero, x_inf);
    let minus_y = o.neg(y);
    let toward_inf = o.select(x_inf, y, minus_y);
    let big = o.cmp_c(CmpPred::Gt, toward_inf, 0.0);
    let (inf, zero) = (o.float(x, f32::INFINITY), o.float(x, 0.0));
    let edge = o.select(big, inf, zero);
    let minus_edge = o.neg(edge);
    let edge = o.select(negative, minus_edge, edge);
    let r = o.select(x_edge, edge, r);
    let x_nan = o.is_nan(x);
    let y_nan = o.is_nan(y);
    let any_nan = o.or(x_nan, y_nan);
    let r = o.nan_where(any_nan, r);
    // 1 for x = 1 and for y = +-0 (NaN operands included), and for x = -1, y = +-inf
    let ay = o.abs(y);
    let x_unit = o.cmp_c(CmpPred::Eq, ax, 1.0);
    let y_inf = o.cmp_c(CmpPred::Eq, ay, f32::INFINITY);
    let unit_inf = o.and(x_unit, y_inf);
    let x_one = o.cmp_c(CmpPred::Eq, x, 1.0);
    let y_zero = o.cmp_c(CmpPred::Eq, y, 0.0);
    let one_result = o.or(x_one, y_zero);
    let one_result = o.or(one_result, unit_inf);
    o.select(one_result, one, r)
}

/// `atan2(y, x)`, the angle of the point `(x, y)` in `[-pi, pi]`, within 1 ulp of the
/// correctly rounded result (`docs/semantics.md`): `a = min(|x|, |y|) / max(|x|, |y|)`
/// (one division; `0/0` and `inf/inf` taken as 0 and 1), `atan(a) = a + a^3 P(a^2)`
/// ([`ATAN_POLY`]), then the octant: `pi/2 - atan(a)` where `|y| > |x|`, `pi - ..` where
/// `x`'s sign bit is set (so `atan2(+-0, -0) = +-pi`), with `y`'s sign. `pi` and `pi/2` are
/// added in two parts, the small one first.
fn atan2_value(b: &mut Builder, y: Value, x: Value, loc: SourceLoc) -> Value {
    let o = &mut Ops { b, loc };
    let (ax, ay) = (o.abs(x), o.abs(y));
    let big = o.max(ax, ay);
    let small = o.min(ax, ay);
    let a = o.div(small, big);
    let x_inf = o.cmp_c(CmpPred::Eq, ax, f32::INFINITY);
    let y_inf = o.cmp_c(CmpPred::Eq, ay, f32::INFINITY);
    let both_inf = o.and(x_inf, y_inf);
    let a = o.select_c(both_inf, 1.0, a);
    let both_zero = o.cmp_c(CmpPred::Eq, big, 0.0);
    let a = o.select_c(both_zero, 0.0, a);
    let z = o.mul(a, a);
    let p = o.horner(z, &ATAN_POLY);
    let a3 = o.mul(a, z);
    let r = o.fma(a3, p, a);
    // (c_hi + c_lo) +- r: +r, pi/2 - r, pi/2 + r, pi - r
    let swap = o.cmp(CmpPred::Gt, ay, ax);
    let x_sign = o.sign_bit(x);
    let (zero, pi, pi_lo) = (o.float(x, 0.0), o.float(x, PI_HI), o.float(x, PI_LO));
    let (half_pi, half_pi_lo) = (o.float(x, HALF_PI_HI), o.float(x, HALF_PI_LO));
    let c = o.select(x_sign, pi, zero);
    let c = o.select(swap, half_pi, c);
    let c_lo = o.select(x_sign, pi_lo, zero);
    let c_lo = o.select(swap, half_pi_lo, c_lo);
    let subtract = o.binary(BinaryOp::Xor, swap, x_sign);
    let minus_r = o.neg(r);
    let r = o.select(subtract, minus_r, r);
    let r = o.add(r, c_lo);
    let r = o.add(r, c);
    let r = with_sign_of(o.b, r, y, loc);
    let x_nan = o.is_nan(x);
    let y_nan = o.is_nan(y);
    let any_nan = o.or(x_nan, y_nan);
    o.nan_where(any_nan, r)
}

/// `ln(1 + x)` (`libdevice.log1p`, `tl.math.log1p` in Triton 2), accurate also where `x` is
/// tiny: within 1 ulp of the correctly rounded result, computed with exact operations and
/// one division, so every back end gives the same bits (`docs/semantics.md`).
/// `log1p(-1) = -inf`, NaN below -1. f16/bf16 compute in f32 and round once.
#[track_caller]
pub fn log1p<T: NumericMarker>(x: Tensor<T>) -> Tensor<T> {
    float_fn("log1p", x, SourceLoc::caller(), log1p_value)
}

/// `e^x - 1` (`libdevice.expm1`), accurate also where `x` is tiny: within 1 ulp of the
/// correctly rounded result, computed with exact operations, so every back end gives the
/// same bits (`docs/semantics.md`). f16/bf16 compute in f32 and round once.
#[track_caller]
pub fn expm1<T: NumericMarker>(x: Tensor<T>) -> Tensor<T> {
    float_fn("expm1", x, SourceLoc::caller(), expm1_value)
}

/// `x^y` (`libdevice.pow`, C `powf`): within 1 ulp of the correctly rounded result,
/// computed with exact operations and one division, so every back end gives the same bits
/// (`docs/semantics.md`), with C's special cases: `pow(x, +-0) = 1` and `pow(1, y) = 1` even
/// for a NaN operand, NaN for a finite negative `x` and a finite non-integer `y`, a negative
/// result for a negative `x` (-0 and -inf included) and an odd integer `y`. `y` is a tensor
/// of `x`'s dtype and broadcasts; f16/bf16 compute in f32 and round once.
#[track_caller]
pub fn pow<T: NumericMarker, Y: TensorOperand<DType = T>>(x: Tensor<T>, y: Y) -> Tensor<T> {
    float_fn2("pow", x, y, SourceLoc::caller(), pow_value)
}

/// The angle of the point `(x, y)`, in `[-pi, pi]` (`libdevice.atan2`, C `atan2f`; `y`
/// first, as there): within 1 ulp of the correctly rounded result, computed with exact
/// operations and one division, so every back end gives the same bits
/// (`docs/semantics.md`), with C's signed zeros and infinities (`atan2(+-0, -0) = +-pi`,
/// `atan2(+-inf, -inf) = +-3pi/4`). `x` is a tensor of `y`'s dtype and broadcasts;
/// f16/bf16 compute in f32 and round once.
#[track_caller]
pub fn atan2<T: NumericMarker, X: TensorOperand<DType = T>>(y: Tensor<T>, x: X) -> Tensor<T> {
    float_fn2("atan2", y, x, SourceLoc::caller(), atan2_value)
}

/// `|x|` (`tl.abs`): floats clear the sign bit; ints wrap (`abs(i32::MIN) == i32::MIN`).
#[track_caller]
pub fn abs<T: NumericMarker>(x: Tensor<T>) -> Tensor<T> {
    let loc = SourceLoc::caller();
    Tensor::from_value(with_builder(|b| {
        let dtype = b.dtype(x.id());
        if !UnaryOp::Abs.accepts(dtype) {
            b.error_with(
                Code::TraceMathDType,
                loc,
                format!("`abs` is not defined on {dtype}"),
                "use abs on ints or floats",
            );
            return x.id();
        }
        b.unary(UnaryOp::Abs, x.id(), loc)
    }))
}

/// `a * b + c` rounded once (`tl.fma`, PTX `fma.rn.f32`); `b` and `c` broadcast.
#[track_caller]
pub fn fma<T: NumericMarker, B: TensorOperand<DType = T>, C: TensorOperand<DType = T>>(
    a: Tensor<T>,
    b: B,
    c: C,
) -> Tensor<T> {
    let loc = SourceLoc::caller();
    let (bv, cv) = (b.value(loc), c.value(loc));
    Tensor::from_value(with_builder(|bl| {
        if !check_float(bl, "fma", a.id(), loc) {
            return a.id();
        }
        // f16/bf16: the fused multiply-add in f32, rounded back once (as `float_fn`).
        let stored = bl.dtype(a.id());
        let [wa, wb, wc] = [a.id(), bv, cv].map(|v| bl.widen_to_compute_type(v, loc));
        let y = fma_values(bl, wa, wb, wc, loc);
        if wa == a.id() { y } else { bl.cast(y, stored, loc, false) }
    }))
}

/// The high half of the double-width product of `a` and `b` read as unsigned
/// (`tl.math.umulhi`, PTX `mul.hi.u32` / `mul.hi.u64`): `umulhi(x, y)` is
/// `(x as u64 * y as u64) >> 32` on 32-bit ints. Signed operands are multiplied as their
/// unsigned bits, as Triton does (`umulhi(-1, 2) == 1` on i32); `b` promotes with `a` as
/// an arithmetic operand would. It takes i32, u32, i64 and u64 (Triton's list); any other
/// dtype is a located [`Code::TraceMathDType`] error.
#[track_caller]
pub fn umulhi<T: NumericMarker, R: TensorOperand>(a: Tensor<T>, b: R) -> Tensor<<T as Promote<R::DType>>::Output>
where
    T: Promote<R::DType>,
{
    let loc = SourceLoc::caller();
    let bv = b.value(loc);
    Tensor::from_value(with_builder(|bl| {
        // Both operands are checked before promotion: an i8 would otherwise be widened
        // to i32 (its computation type), and the high half of an i32 product is not the
        // high half of an i8 one.
        for v in [a.id(), bv] {
            let dtype = bl.dtype(v);
            if !BinaryOp::UMulHi.accepts(dtype) {
                bl.error_with(
                    Code::TraceMathDType,
                    loc,
                    format!("`umulhi` is not defined on {dtype}"),
                    "`umulhi` takes i32, u32, i64 or u64: convert with `.to::<u32>()`, or bitcast a float's bits with `.to_bitcast::<u32>()`",
                );
                return a.id();
            }
        }
        bl.binary(BinaryOp::UMulHi, a.id(), bv, loc)
    }))
}

/// A float division of `a` by `b` after the dtype check.
fn divide<T, R: TensorOperand>(
    name: &str,
    op: BinaryOp,
    a: Tensor<T>,
    b: R,
    loc: SourceLoc,
) -> Tensor<<T as Promote<R::DType>>::Output>
where
    T: Promote<R::DType>,
{
    let bv = b.value(loc);
    Tensor::from_value(with_builder(|bl| {
        if check_float(bl, name, a.id(), loc) { bl.binary(op, a.id(), bv, loc) } else { a.id() }
    }))
}

/// The correctly rounded quotient (`tl.math.div_rn`, PTX `div.rn.f32`): the same as `a / b`
/// on floats, refused on ints.
#[track_caller]
pub fn div_rn<T: NumericMarker, R: TensorOperand>(a: Tensor<T>, b: R) -> Tensor<<T as Promote<R::DType>>::Output>
where
    T: Promote<R::DType>,
{
    divide("div_rn", BinaryOp::Div, a, b, SourceLoc::caller())
}

/// Fast division (`tl.fdiv(a, b)`, `ieee_rounding=False`: PTX `div.full.f32`, within 2 ulp
/// of the correctly rounded quotient on the GPU; [`div_rn`] is `ieee_rounding=True`).
#[track_caller]
pub fn fdiv<T: NumericMarker, R: TensorOperand>(a: Tensor<T>, b: R) -> Tensor<<T as Promote<R::DType>>::Output>
where
    T: Promote<R::DType>,
{
    divide("fdiv", BinaryOp::FDiv, a, b, SourceLoc::caller())
}

macro_rules! methods {
    ($($name:ident),*) => {
        /// The math functions as methods: `x.exp()` is `exp(x)`.
        impl<T: NumericMarker> Tensor<T> {
            $(
                #[doc = concat!("`", stringify!($name), "(self)`, see [`", stringify!($name), "`](fn@", stringify!($name), ").")]
                #[track_caller]
                pub fn $name(self) -> Tensor<T> {
                    $name(self)
                }
            )*
        }
    };
}
methods!(
    exp, exp2, exp2_ftz, log, log2, sqrt, sqrt_rn, rsqrt, abs, floor, ceil, trunc, rint, round, sin, cos, tanh, erf,
    sigmoid, log1p, expm1
);

/// The math functions of two operands as methods: `x.pow(y)` is `pow(x, y)`, `y.atan2(x)`
/// is `atan2(y, x)` (as Rust's `f32::powf` and `f32::atan2` take theirs).
impl<T: NumericMarker> Tensor<T> {
    /// `pow(self, y)`, see [`pow`](fn@pow).
    #[track_caller]
    pub fn pow<Y: TensorOperand<DType = T>>(self, y: Y) -> Tensor<T> {
        pow(self, y)
    }

    /// `atan2(self, x)`, see [`atan2`](fn@atan2).
    #[track_caller]
    pub fn atan2<X: TensorOperand<DType = T>>(self, x: X) -> Tensor<T> {
        atan2(self, x)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The near and far pieces of `erf` meet at the split without a jump larger than the
    /// fits' error (both evaluated in f64 with the f32 coefficients).
    #[test]
    fn erf_pieces_agree_at_the_split() {
        let x = f64::from(ERF_SPLIT);
        let p = ERF_NEAR.iter().fold(0.0, |r, &c| r * x * x + f64::from(c));
        let q = ERF_FAR.iter().fold(0.0, |r, &c| r * x + f64::from(c));
        let (near, far) = (x + x * p, 1.0 - (-q).exp());
        assert!((near - far).abs() < 1e-7, "near {near}, far {far}");
        // erf(0.875) = 0.7840750...
        assert!((near - 0.784_075_0).abs() < 1e-6, "{near}");
    }

    /// `erf`'s far power `2^(Q(a) (-log2 e))` is never flushed by `exp2_ftz` (`erf_value`):
    /// `Q` evaluated as the kernel does (Horner with f32 `fma`) on every f32 of [0, 4]
    /// above 2^-20 and a sweep below keeps the exponent within (-126, 1).
    #[test]
    fn erf_far_power_is_never_subnormal() {
        let q_of = |a: f32| ERF_FAR[2..].iter().fold(a.mul_add(ERF_FAR[0], ERF_FAR[1]), |r, &c| r.mul_add(a, c));
        let (lo, hi) = (2.0f32.powi(-20).to_bits(), 4.0f32.to_bits());
        let tiny = (0..1u32 << 16).map(|i| f32::from_bits(i * (lo >> 16)));
        for a in (lo..=hi).step_by(7).map(f32::from_bits).chain(tiny).chain([0.0, 4.0]) {
            let t = q_of(a) * -LOG2E;
            assert!(t > -126.0 && t < 1.0, "a = {a:e}: exponent {t}");
        }
    }

    /// `n + 1` evenly spaced points of `[lo, hi]`.
    fn grid(lo: f64, hi: f64, n: usize) -> impl Iterator<Item = f64> {
        (0..=n).map(move |i| lo + (hi - lo) * i as f64 / n as f64)
    }

    /// The polynomial with f32 `coefficients` (highest first) at `x`, in f64.
    fn poly(coefficients: &[f32], x: f64) -> f64 {
        coefficients.iter().fold(0.0, |r, &c| r * x + f64::from(c))
    }

    /// The fits are as good as their docs say (the relative errors `docs/semantics.md`
    /// states), evaluated in f64 with the f32 coefficients over their whole ranges: a
    /// coefficient typed in wrong shows here before any kernel runs.
    #[test]
    fn the_fits_meet_their_stated_errors() {
        let mut worst = [0.0f64; 3];
        for f in grid(-0.347, 0.347, 200_000).filter(|f| *f != 0.0) {
            let exact = f.exp_m1();
            let fit = f + f * f * poly(&EXPM1_POLY, f);
            worst[0] = worst[0].max(((fit - exact) / exact).abs());
        }
        let (c_hi, c_lo) = LOG_TWO_THIRDS;
        let two_thirds = f64::from(c_hi) + f64::from(c_lo);
        for s in grid(-0.1716, 0.1716, 200_000).filter(|s| *s != 0.0) {
            let exact = 2.0 * s.atanh();
            let fit = 2.0 * s + two_thirds * s.powi(3) + s.powi(5) * poly(&LOG_POLY, s * s);
            worst[1] = worst[1].max(((fit - exact) / exact).abs());
        }
        for a in grid(0.0, 1.0, 200_000).skip(1) {
            let exact = a.atan();
            let fit = a + a.powi(3) * poly(&ATAN_POLY, a * a);
            worst[2] = worst[2].max(((fit - exact) / exact).abs());
        }
        assert!(worst[0] < 4.5e-10 && worst[1] < 9e-12 && worst[2] < 4.6e-10, "{worst:?}");
        // 2/3 in two parts is 2/3 to f64 precision
        assert!((two_thirds - 2.0 / 3.0).abs() < 1e-15, "{two_thirds}");
    }

    /// The reductions keep the polynomials' arguments inside the ranges they were fitted on:
    /// `s^2 <= 0.0295` for every `m` that the bit split gives and at `log1p`'s near-path
    /// bounds (with `s` rounded as the kernel computes it, `f * (1 / d)`), and `|f| <= 0.347`
    /// for every `x` that `expm1` and `pow` reduce (their clamps' ranges, sampled
    /// densely, with `k` and `f` computed as in `expm1_value`).
    #[test]
    fn the_reductions_stay_in_the_fitted_ranges() {
        let m_lo = f32::from_bits(SQRT_HALF_BITS as u32);
        let m_hi = f32::from_bits((SQRT_HALF_BITS + (1 << 23) - 1) as u32);
        assert!(f64::from(m_lo) < std::f64::consts::FRAC_1_SQRT_2 && f64::from(m_hi) < std::f64::consts::SQRT_2);
        let reduced = |f: f32, d: f32| f * (1.0 / d);
        for s in [
            reduced(m_lo - 1.0, m_lo + 1.0),
            reduced(m_hi - 1.0, m_hi + 1.0),
            reduced(LOG1P_NEAR.0, 2.0 + LOG1P_NEAR.0),
            reduced(LOG1P_NEAR.1, 2.0 + LOG1P_NEAR.1),
        ] {
            assert!(s * s <= 0.0295, "s = {s}");
        }
        let (lo, hi) = (POW_EXPONENT_RANGE.0.min(EXPM1_RANGE.0), POW_EXPONENT_RANGE.1.max(EXPM1_RANGE.1));
        let (a, b) = (lo.to_bits(), hi.to_bits());
        // every 7th f32 of [lo, 0) and of [0, hi]
        let negative = (0..a - 0x8000_0000).step_by(7).map(|i| f32::from_bits(a - i));
        let positive = (0..=b).step_by(7).map(f32::from_bits);
        for x in negative.chain(positive).chain([lo, hi]) {
            let k = (x * LOG2E).round_ties_even();
            let f = (-k).mul_add(LN2_HI, x);
            assert!(f.abs() <= 0.347, "x = {x:e}: f = {f}");
            // and k LN2_HI is exact, so f is x - k LN2_HI exactly
            assert_eq!(f64::from(k * LN2_HI), f64::from(k) * f64::from(LN2_HI), "x = {x:e}");
        }
    }
}
