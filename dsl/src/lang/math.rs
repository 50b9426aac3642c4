//! The math functions of `triton.language` / `tl.math`: `exp`, `exp2`, `log`, `log2`,
//! `sqrt`, `rsqrt`, `abs`, `floor`, `ceil`, `fma`, `sin`, `cos`, `tanh`, `erf`, `sigmoid`,
//! `div_rn` and `fdiv`, as free functions and as tensor methods (`x.exp()`); `umulhi`
//! (`tl.math.umulhi`, on ints); and `exp2_ftz`, `exp2` with subnormals flushed, which
//! Triton does not name.
//!
//! Functions PTX computes in one instruction are one op (`UnaryOp::Math`, `OpKind::Fma`,
//! `BinaryOp::FDiv`). The others are composed here from those ops, the way Triton lowers
//! them, so the interpreter, the simulator and the GPU run the same sequence of roundings:
//! - `exp(x) = exp2(x * log2(e))` and `log(x) = log2(x) * ln(2)` (Triton's `ex2.approx` /
//!   `lg2.approx` lowering, the product rounded to f32 once);
//! - `sigmoid(x) = 1 / (1 + exp(-x))` (Triton's `tl.sigmoid`);
//! - `erf` is a polynomial (PTX has no instruction; the coefficients were fitted for
//!   rtriton, see [`ERF_NEAR`] and [`ERF_FAR`]).
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
    let loc = SourceLoc::caller();
    let yv = y.value(loc);
    Tensor::from_value(with_builder(|b| {
        if !check_float(b, "fmod", x.id(), loc) {
            return x.id();
        }
        let (xv, yv) = b.broadcast_pair(x.id(), yv, loc);
        // f16/bf16 in f32: the remainder is exact there and a value of the stored type
        let stored = b.dtype(xv);
        let (wx, wy) = (b.widen_to_compute_type(xv, loc), b.widen_to_compute_type(yv, loc));
        let r = fmod_value(b, wx, wy, loc);
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
    sigmoid
);

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
}
