//! The math function table shared by `math.rs` (every back end, special values, ptxas,
//! GPU rows) and `math_sweep.rs` (dense ULP sweeps against the correctly rounded f64
//! function): one row per function with its DSL call, its CPU reference, its domain, its
//! GPU bound and the PTX instruction it lowers to, and the kernel `math_fn` that applies
//! row `FUNC` to three loaded operands; and the CPU references of the compositions
//! (`erf_ref`, `log1p_ref`, `expm1_ref`, `pow_ref`, `atan2_ref`), each the documented
//! sequence of roundings written with Rust's f32 operations.
#![allow(dead_code, reason = "each test crate uses part of the table")]

use rtriton::kernel;
use rtriton::prelude::*;
use rtriton_testing::Rule;

/// `log2(e)` and `ln(2)` as Triton rounds them to f32 (written as bits, independently of
/// the DSL's constants).
pub const LOG2E: f32 = f32::from_bits(0x3FB8_AA3B);
pub const LN2: f32 = f32::from_bits(0x3F31_7218);
pub const CANONICAL_NAN: f32 = f32::from_bits(0x7FFF_FFFF);
pub const PI: f32 = std::f32::consts::PI;

/// One function under test.
pub struct MathFn {
    pub name: &'static str,
    /// The DSL call on the kernel's three loaded operands.
    pub build: fn(Tensor<f32>, Tensor<f32>, Tensor<f32>) -> Tensor<f32>,
    /// The CPU reference on one element.
    pub reference: fn(f32, f32, f32) -> f32,
    /// Where ordinary inputs of the first operand come from (the ramp of the `domain` case).
    pub domain: (f32, f32),
    /// Inputs the GPU is compared on besides the domain (the approximate instructions
    /// are specified on a range only, so not every special value of the CPU case).
    pub gpu_specials: &'static [f32],
    /// The documented GPU bound against the reference.
    pub gpu_rule: Rule,
    /// A PTX instruction the function's lowering must contain.
    pub instruction: &'static str,
}

/// `x`, or the canonical NaN for any NaN. Tested on the bits: in a release build, LLVM
/// folded `x.sqrt().is_nan()` so that a NaN input's payload came through (the sqrt
/// reference failed the bit-exact comparison in `--release` only).
pub fn canonical(x: f32) -> f32 {
    if x.to_bits() & 0x7FFF_FFFF > 0x7F80_0000 { CANONICAL_NAN } else { x }
}

pub fn via_f64(x: f32, f: fn(f64) -> f64) -> f32 {
    canonical(f(f64::from(x)) as f32)
}

pub fn exp_ref(x: f32) -> f32 {
    via_f64(x * LOG2E, f64::exp2)
}

/// `erf` as `docs/semantics.md` states it, evaluated with Rust's `mul_add` (fma.rn).
pub fn erf_ref(x: f32) -> f32 {
    use rtriton::lang::math::{ERF_FAR, ERF_NEAR};
    let a = f32::from_bits(x.to_bits() & 0x7FFF_FFFF);
    let s = x * x;
    let p = ERF_NEAR[2..].iter().fold(s.mul_add(ERF_NEAR[0], ERF_NEAR[1]), |r, &c| r.mul_add(s, c));
    let near = p.mul_add(x, x);
    let a4 = if a.is_nan() { 4.0 } else { a.min(4.0) };
    let q = ERF_FAR[2..].iter().fold(a4.mul_add(ERF_FAR[0], ERF_FAR[1]), |r, &c| r.mul_add(a4, c));
    let far = 1.0 - exp_ref(-q);
    let far = if x < 0.0 { -far } else { far };
    canonical(if a >= 0.875 { far } else { near })
}

/// `ln(2)` in two parts, `pi` and `pi/2` and the rest of each, as `docs/semantics.md` gives
/// them (written as bits, independently of the DSL's constants).
pub const LN2_HI: f32 = f32::from_bits(0x3F31_7200);
pub const LN2_LO: f32 = f32::from_bits(0x35BF_BE8E);
const PI_LO: f32 = f32::from_bits(0xB3BB_BD2E);
const HALF_PI_LO: f32 = f32::from_bits(0xB33B_BD2E);

/// Horner's rule with `mul_add` (fma.rn), coefficients highest first.
fn horner(x: f32, c: &[f32]) -> f32 {
    c[2..].iter().fold(x.mul_add(c[0], c[1]), |r, &k| r.mul_add(x, k))
}

/// `a + b` as the rounded sum and its exact error (TwoSum).
fn two_sum(a: f32, b: f32) -> (f32, f32) {
    let s = a + b;
    let b_part = s - a;
    let a_part = s - b_part;
    (s, (a - a_part) + (b - b_part))
}

/// `a + b` as the rounded sum and its exact error, `a`'s exponent at least `b`'s (Fast2Sum).
fn fast_two_sum(a: f32, b: f32) -> (f32, f32) {
    let s = a + b;
    (s, b - (s - a))
}

/// `2^k` from its exponent field.
fn pow2(k: i32) -> f32 {
    f32::from_bits(((k + 127) << 23) as u32)
}

/// `(k, m)` with `x = m 2^k`, `m` in `[sqrt(2)/2, sqrt(2))`, for a positive normal `x`.
fn split_exponent(x: f32) -> (i32, f32) {
    let bits = x.to_bits() as i32;
    let k = bits.wrapping_sub(0x3F35_04F3) >> 23;
    (k, f32::from_bits(bits.wrapping_sub(k << 23) as u32))
}

/// `k ln(2) + ln(m)` as a sum of two floats, from `m - 1 = f + f_lo` and `m + 1 = d + d_lo`
/// (`lang::math::log_reduced`, step for step).
fn log_reduced(f: f32, f_lo: Option<f32>, d: f32, d_lo: f32, k: f32) -> (f32, f32) {
    use rtriton::lang::math::{LOG_POLY, LOG_TWO_THIRDS};
    let r = 1.0 / d;
    let s = f * r;
    let e = (-s).mul_add(d, f);
    let e = f_lo.map_or(e, |l| e + l);
    let e = (-s).mul_add(d_lo, e);
    let s_lo = e * r;
    let z = s * s;
    let z_lo = s.mul_add(s, -z);
    let s3 = z * s;
    let s3_lo = z.mul_add(s, -s3);
    let s3_lo = z_lo.mul_add(s, s3_lo);
    let s3_lo = (z * 3.0).mul_add(s_lo, s3_lo);
    let (c_hi, c_lo) = LOG_TWO_THIRDS;
    let t = s3 * c_hi;
    let t_lo = s3.mul_add(c_hi, -t);
    let t_lo = s3.mul_add(c_lo, t_lo);
    let t_lo = s3_lo.mul_add(c_hi, t_lo);
    let t_lo = (s3 * z).mul_add(horner(z, &LOG_POLY), t_lo);
    let (h, e1) = two_sum(k * LN2_HI, s + s);
    let (h, e2) = two_sum(h, t);
    let lo = k.mul_add(LN2_LO, (e1 + e2) + (t_lo + (s_lo + s_lo)));
    fast_two_sum(h, lo)
}

/// `v` with `e^(f + f_lo) = 1 + f + v` (`lang::math::exp_reduced`).
fn exp_reduced(f: f32, f_lo: f32) -> f32 {
    let q = (f * f) * horner(f, &rtriton::lang::math::EXPM1_POLY);
    f_lo.mul_add((1.0 + f) + q, q)
}

/// `log1p` as `docs/semantics.md` states it.
pub fn log1p_ref(x: f32) -> f32 {
    let (d_near, d_near_lo) = fast_two_sum(2.0, x);
    let u = 1.0 + x;
    let c = x - (u - 1.0);
    let (k, m) = split_exponent(u);
    let m_lo = c * pow2(-k.min(126));
    let (d_far, d_far_lo) = fast_two_sum(1.0, m);
    // 1 + x in [sqrt(2)/2, sqrt(2)): the reduced argument is x itself
    let near = (f32::from_bits(0xBE95_F61A)..f32::from_bits(0x3ED4_13CD)).contains(&x);
    let (h, _) = if near {
        log_reduced(x, Some(0.0), d_near, d_near_lo, 0.0)
    } else {
        log_reduced(m - 1.0, Some(m_lo), d_far, d_far_lo + m_lo, k as f32)
    };
    canonical(if x.abs() < f32::from_bits(0x3380_0000) || x == f32::INFINITY {
        x
    } else if x == -1.0 {
        f32::NEG_INFINITY
    } else if x >= -1.0 {
        h
    } else {
        CANONICAL_NAN
    })
}

/// `expm1` as `docs/semantics.md` states it.
pub fn expm1_ref(x: f32) -> f32 {
    let xc = x.clamp(-30.0, 89.0);
    let kf = (xc * LOG2E).round_ties_even();
    let f = (-kf).mul_add(LN2_HI, xc);
    let v = exp_reduced(f, kf * -LN2_LO);
    let k = kf as i32;
    let s = pow2(k.min(127));
    let y = s.mul_add(v, s.mul_add(f, s - 1.0));
    let y = if k > 127 { y * 2.0 } else { y };
    canonical(if x.abs() < f32::from_bits(0x3380_0000) || x.is_nan() { x } else { y })
}

/// `pow` as `docs/semantics.md` states it, C's special cases included.
pub fn pow_ref(x: f32, y: f32) -> f32 {
    let ax = x.abs();
    let subnormal = ax < f32::MIN_POSITIVE;
    let (k, m) = split_exponent(if subnormal { ax * 16_777_216.0 } else { ax });
    let k = if subnormal { k - 24 } else { k };
    let (d, d_lo) = fast_two_sum(1.0, m);
    let (l, l_lo) = log_reduced(m - 1.0, None, d, d_lo, k as f32);
    let t = l * y;
    let t_lo = l_lo.mul_add(y, l.mul_add(y, -t));
    let (p, p_lo) = fast_two_sum(t, t_lo);
    let pc = p.clamp(-105.0, 90.0);
    let kf = (pc * LOG2E).round_ties_even();
    let g = (-kf).mul_add(LN2_HI, pc);
    let v = exp_reduced(g, (-kf).mul_add(LN2_LO, p_lo));
    let (a, a_lo) = fast_two_sum(1.0, g);
    let k = kf as i32;
    let s1 = pow2(k >> 1);
    let mut r = s1.mul_add(a_lo + v, s1 * a) * pow2(k - (k >> 1));
    if t > 90.0 {
        r = f32::INFINITY;
    }
    if t < -105.0 {
        r = 0.0;
    }
    let odd = y.trunc() == y && (y * 0.5).trunc() != y * 0.5;
    let negative = x.is_sign_negative() && odd;
    if ax == 0.0 || ax == f32::INFINITY {
        r = if (ax == f32::INFINITY) == (y > 0.0) { f32::INFINITY } else { 0.0 };
    }
    if negative {
        r = -r;
    }
    if x < 0.0 && x.is_finite() && y.is_finite() && y.trunc() != y {
        r = CANONICAL_NAN;
    }
    if x.is_nan() || y.is_nan() {
        r = CANONICAL_NAN;
    }
    if x == 1.0 || y == 0.0 || (ax == 1.0 && y.is_infinite()) {
        r = 1.0;
    }
    r
}

/// `atan2(y, x)` as `docs/semantics.md` states it.
pub fn atan2_ref(y: f32, x: f32) -> f32 {
    let (ax, ay) = (x.abs(), y.abs());
    let a = if ax.max(ay) == 0.0 {
        0.0
    } else if ax.is_infinite() && ay.is_infinite() {
        1.0
    } else {
        ax.min(ay) / ax.max(ay)
    };
    let z = a * a;
    let r = (a * z).mul_add(horner(z, &rtriton::lang::math::ATAN_POLY), a);
    let (c, c_lo, subtract) = match (ay > ax, x.is_sign_negative()) {
        (false, false) => (0.0, 0.0, false),
        (true, false) => (std::f32::consts::FRAC_PI_2, HALF_PI_LO, true),
        (true, true) => (std::f32::consts::FRAC_PI_2, HALF_PI_LO, false),
        (false, true) => (PI, PI_LO, true),
    };
    let r = ((if subtract { -r } else { r }) + c_lo) + c;
    if x.is_nan() || y.is_nan() { CANONICAL_NAN } else { r.copysign(y) }
}

pub const NAN_INF_ZERO: &[f32] = &[0.0, -0.0, f32::INFINITY, f32::NEG_INFINITY, f32::NAN];

/// The edge cases of the rounding functions: ties (even and odd neighbours, both signs),
/// the largest float below 0.5 (where `trunc(x + 0.5)` goes wrong), the last halves below
/// 2^23, odd integers above it, subnormals, signed zeros.
pub const ROUNDING_SPECIALS: &[f32] = &[
    0.0,
    -0.0,
    f32::INFINITY,
    f32::NEG_INFINITY,
    f32::NAN,
    0.5,
    -0.5,
    1.5,
    -1.5,
    2.5,
    -2.5,
    0.499_999_97,
    -0.499_999_97,
    0.500_000_06,
    8_388_607.5,
    -8_388_607.5,
    8_388_608.0,
    8_388_609.0,
    -8_388_609.0,
    16_777_215.0,
    4_194_303.5,
    1e-45,
    -1e-45,
    f32::MIN_POSITIVE,
    f32::MAX,
    -f32::MAX,
];

/// PTX `max.f32` written out: a NaN operand is ignored, two NaNs give the canonical
/// NaN, `+0 > -0`.
pub fn ptx_max(a: f32, b: f32) -> f32 {
    match (a.is_nan(), b.is_nan()) {
        (true, true) => CANONICAL_NAN,
        (true, false) => b,
        (false, true) => a,
        (false, false) => {
            if a > b || (a == b && b.is_sign_negative()) {
                a
            } else {
                b
            }
        }
    }
}

/// PTX `min.f32` written out (see [`ptx_max`]), `-0 < +0`.
pub fn ptx_min(a: f32, b: f32) -> f32 {
    match (a.is_nan(), b.is_nan()) {
        (true, true) => CANONICAL_NAN,
        (true, false) => b,
        (false, true) => a,
        (false, false) => {
            if a < b || (a == b && a.is_sign_negative()) {
                a
            } else {
                b
            }
        }
    }
}

/// 1.0 where `t`, else 0.0 (the `i32` predicates `isnan`, ... converted to f32).
pub fn flag(t: bool) -> f32 {
    if t { 1.0 } else { 0.0 }
}

pub fn functions() -> Vec<MathFn> {
    let bits = Rule::BITS.any_nan();
    vec![
        MathFn {
            name: "exp",
            build: |a, _, _| exp(a),
            reference: |a, _, _| exp_ref(a),
            domain: (-104.0, 89.0),
            gpu_specials: &[0.0, -0.0, f32::INFINITY, f32::NEG_INFINITY, f32::NAN, 88.7, -87.3, -103.0, 1e-30],
            gpu_rule: Rule::ulps(2),
            instruction: "ex2.approx.f32",
        },
        MathFn {
            name: "exp2",
            build: |a, _, _| exp2(a),
            reference: |a, _, _| via_f64(a, f64::exp2),
            domain: (-150.0, 128.0),
            gpu_specials: &[0.0, -0.0, f32::INFINITY, f32::NEG_INFINITY, f32::NAN, 127.99, -126.0, -149.0, 1e-30],
            gpu_rule: Rule::ulps(2),
            instruction: "ex2.approx.f32",
        },
        MathFn {
            name: "log",
            build: |a, _, _| log(a),
            reference: |a, _, _| canonical(via_f64(a, f64::log2) * LN2),
            domain: (0.0, 1000.0),
            gpu_specials: &[0.0, -0.0, f32::INFINITY, -1.0, f32::NAN, 1.0, f32::MAX, f32::MIN_POSITIVE],
            gpu_rule: Rule::approx(2.4e-7, 2.4e-7),
            instruction: "lg2.approx.f32",
        },
        MathFn {
            name: "log2",
            build: |a, _, _| log2(a),
            reference: |a, _, _| via_f64(a, f64::log2),
            domain: (0.0, 1000.0),
            gpu_specials: &[0.0, -0.0, f32::INFINITY, -1.0, f32::NAN, 1.0, f32::MAX, f32::MIN_POSITIVE],
            gpu_rule: Rule::approx(2.4e-7, 2.4e-7),
            instruction: "lg2.approx.f32",
        },
        MathFn {
            name: "sqrt",
            build: |a, _, _| sqrt(a),
            reference: |a, _, _| canonical(a.sqrt()),
            domain: (-1.0, 1e6),
            gpu_specials: &[0.0, -0.0, f32::INFINITY, -1.0, f32::NAN, f32::MAX, 1e-45, 2.0],
            gpu_rule: bits,
            instruction: "sqrt.rn.f32",
        },
        MathFn {
            name: "rsqrt",
            build: |a, _, _| rsqrt(a),
            reference: |a, _, _| via_f64(a, |v| 1.0 / v.sqrt()),
            domain: (-1.0, 1e6),
            gpu_specials: &[0.0, -0.0, f32::INFINITY, -1.0, f32::NAN, f32::MAX, f32::MIN_POSITIVE, 2.0],
            gpu_rule: Rule::ulps(2),
            instruction: "rsqrt.approx.f32",
        },
        MathFn {
            name: "abs",
            build: |a, _, _| abs(a),
            reference: |a, _, _| f32::from_bits(a.to_bits() & 0x7FFF_FFFF),
            domain: (-10.0, 10.0),
            gpu_specials: &[0.0, -0.0, f32::INFINITY, f32::NEG_INFINITY, f32::NAN, -f32::MAX, -1e-45],
            gpu_rule: bits,
            instruction: "and.b32",
        },
        MathFn {
            name: "floor",
            build: |a, _, _| floor(a),
            reference: |a, _, _| canonical(a.floor()),
            domain: (-100.0, 100.0),
            gpu_specials: &[0.0, -0.0, f32::INFINITY, f32::NEG_INFINITY, f32::NAN, -0.5, 0.5, -1e-45, 8388607.5],
            gpu_rule: bits,
            instruction: "cvt.rmi.f32.f32",
        },
        MathFn {
            name: "ceil",
            build: |a, _, _| ceil(a),
            reference: |a, _, _| canonical(a.ceil()),
            domain: (-100.0, 100.0),
            gpu_specials: &[0.0, -0.0, f32::INFINITY, f32::NEG_INFINITY, f32::NAN, -0.5, 0.5, 1e-45, -8388607.5],
            gpu_rule: bits,
            instruction: "cvt.rpi.f32.f32",
        },
        MathFn {
            name: "trunc",
            build: |a, _, _| trunc(a),
            reference: |a, _, _| canonical(a.trunc()),
            domain: (-100.0, 100.0),
            gpu_specials: ROUNDING_SPECIALS,
            gpu_rule: bits,
            instruction: "cvt.rzi.f32.f32",
        },
        MathFn {
            name: "rint",
            build: |a, _, _| rint(a),
            reference: |a, _, _| canonical(a.round_ties_even()),
            domain: (-100.0, 100.0),
            gpu_specials: ROUNDING_SPECIALS,
            gpu_rule: bits,
            instruction: "cvt.rni.f32.f32",
        },
        MathFn {
            name: "round",
            build: |a, _, _| round(a),
            // Rust's `round` is C's `roundf`: ties away from zero
            reference: |a, _, _| canonical(a.round()),
            domain: (-100.0, 100.0),
            gpu_specials: ROUNDING_SPECIALS,
            gpu_rule: bits,
            instruction: "cvt.rzi.f32.f32",
        },
        MathFn {
            name: "isnan",
            build: |a, _, _| isnan(a).to::<f32>(),
            reference: |a, _, _| flag(a.is_nan()),
            domain: (-10.0, 10.0),
            gpu_specials: ROUNDING_SPECIALS,
            gpu_rule: bits,
            instruction: "setp.neu.f32",
        },
        MathFn {
            name: "isinf",
            build: |a, _, _| isinf(a).to::<f32>(),
            reference: |a, _, _| flag(a.is_infinite()),
            domain: (-10.0, 10.0),
            gpu_specials: ROUNDING_SPECIALS,
            gpu_rule: bits,
            instruction: "setp.eq.f32",
        },
        MathFn {
            name: "signbit",
            build: |a, _, _| signbit(a).to::<f32>(),
            // the sign bit itself: set for -0.0 and for NaNs with it
            reference: |a, _, _| flag(a.to_bits() >> 31 == 1),
            domain: (-10.0, 10.0),
            gpu_specials: ROUNDING_SPECIALS,
            gpu_rule: bits,
            instruction: "setp.lt.s32",
        },
        MathFn {
            name: "copysign",
            build: |a, b, _| copysign(a, b),
            reference: |a, b, _| f32::from_bits((a.to_bits() & 0x7FFF_FFFF) | (b.to_bits() & 0x8000_0000)),
            domain: (-10.0, 10.0),
            gpu_specials: ROUNDING_SPECIALS,
            gpu_rule: Rule::BITS,
            instruction: "or.b32",
        },
        MathFn {
            name: "clamp",
            build: |a, b, c| clamp(a, b, c),
            reference: |a, b, c| ptx_min(ptx_max(a, b), c),
            domain: (-10.0, 10.0),
            gpu_specials: ROUNDING_SPECIALS,
            gpu_rule: Rule::BITS,
            instruction: "max.f32",
        },
        MathFn {
            name: "clamp_nan",
            build: |a, b, c| clamp_with(a, b, c, PropagateNan::All),
            // Triton's lowering: `x` itself where `x` is NaN
            reference: |a, b, c| if a.is_nan() { a } else { ptx_min(ptx_max(a, b), c) },
            domain: (-10.0, 10.0),
            gpu_specials: ROUNDING_SPECIALS,
            gpu_rule: Rule::BITS,
            instruction: "setp.neu.f32",
        },
        MathFn {
            name: "fmod",
            build: |a, b, _| fmod(a, b),
            // Rust's `%` on floats is C's fmod (exact)
            reference: |a, b, _| canonical(a % b),
            domain: (-100.0, 100.0),
            gpu_specials: &[
                0.0,
                -0.0,
                f32::INFINITY,
                f32::NEG_INFINITY,
                f32::NAN,
                f32::MAX,
                -f32::MAX,
                1e-45,
                -1e-40,
                7.5,
                -7.5,
                1e30,
                16_777_217.0,
            ],
            gpu_rule: bits,
            instruction: "rem.s64",
        },
        MathFn {
            name: "sin",
            build: |a, _, _| sin(a),
            reference: |a, _, _| via_f64(a, f64::sin),
            domain: (-PI, PI),
            gpu_specials: NAN_INF_ZERO,
            gpu_rule: Rule::approx(6.0e-7, 0.0),
            instruction: "sin.approx.f32",
        },
        MathFn {
            name: "cos",
            build: |a, _, _| cos(a),
            reference: |a, _, _| via_f64(a, f64::cos),
            domain: (-PI, PI),
            gpu_specials: NAN_INF_ZERO,
            gpu_rule: Rule::approx(6.0e-7, 0.0),
            instruction: "cos.approx.f32",
        },
        MathFn {
            name: "tanh",
            build: |a, _, _| tanh(a),
            reference: |a, _, _| via_f64(a, f64::tanh),
            domain: (-10.0, 10.0),
            gpu_specials: &[0.0, -0.0, f32::INFINITY, f32::NEG_INFINITY, f32::NAN, 1e-20, 100.0],
            gpu_rule: Rule::approx(f32::MIN_POSITIVE, 5.0e-4),
            instruction: "tanh.approx.f32",
        },
        MathFn {
            name: "erf",
            build: |a, _, _| erf(a),
            reference: |a, _, _| erf_ref(a),
            domain: (-5.0, 5.0),
            gpu_specials: &[0.0, -0.0, f32::INFINITY, f32::NEG_INFINITY, f32::NAN, 0.875, -0.875, 1e-30, 4.0],
            gpu_rule: Rule::ulps(2),
            // its power is never subnormal, so it takes the flushing form
            instruction: "ex2.approx.ftz.f32",
        },
        MathFn {
            name: "sigmoid",
            build: |a, _, _| sigmoid(a),
            reference: |a, _, _| canonical(1.0 / (1.0 + exp_ref(-a))),
            domain: (-110.0, 90.0),
            gpu_specials: &[0.0, -0.0, f32::INFINITY, f32::NEG_INFINITY, f32::NAN, -88.0, 17.0],
            gpu_rule: Rule::ulps(4),
            instruction: "div.rn.f32",
        },
        MathFn {
            name: "fma",
            build: |a, b, c| fma(a, b, c),
            reference: |a, b, c| canonical(a.mul_add(b, c)),
            domain: (-3.0, 3.0),
            gpu_specials: NAN_INF_ZERO,
            gpu_rule: bits,
            instruction: "fma.rn.f32",
        },
        MathFn {
            name: "div_rn",
            build: |a, b, _| div_rn(a, b),
            reference: |a, b, _| a / b,
            domain: (-3.0, 3.0),
            gpu_specials: NAN_INF_ZERO,
            gpu_rule: bits,
            instruction: "div.rn.f32",
        },
        MathFn {
            name: "fdiv",
            build: |a, b, _| fdiv(a, b),
            reference: |a, b, _| canonical(a / b),
            domain: (-3.0, 3.0),
            gpu_specials: NAN_INF_ZERO,
            gpu_rule: Rule::ulps(2),
            instruction: "div.full.f32",
        },
        MathFn {
            name: "exp2_ftz",
            build: |a, _, _| exp2_ftz(a),
            reference: |a, _, _| {
                let r = via_f64(if a.is_subnormal() { 0.0 } else { a }, f64::exp2);
                if r.is_subnormal() { 0.0 } else { r }
            },
            // The ramp stays above the flush boundary (2^-126), where a result within the
            // GPU's 2 ulps of it could land on either side; the specials cross it.
            domain: (-125.0, 128.0),
            gpu_specials: &[
                0.0,
                -0.0,
                f32::INFINITY,
                f32::NEG_INFINITY,
                f32::NAN,
                127.99,
                -125.5,
                -127.0,
                -149.0,
                -200.0,
                1e-40,
                -1e-40,
            ],
            gpu_rule: Rule::ulps(2),
            instruction: "ex2.approx.ftz.f32",
        },
        // log1p, expm1, pow and atan2 are compositions of exact operations: the GPU
        // computes the reference's bits
        MathFn {
            name: "log1p",
            build: |a, _, _| log1p(a),
            reference: |a, _, _| log1p_ref(a),
            domain: (-1.0, 100.0),
            gpu_specials: &[
                0.0,
                -0.0,
                f32::INFINITY,
                f32::NEG_INFINITY,
                f32::NAN,
                -1.0,
                -1.5,
                -0.999_999_94,
                1e-45,
                -1e-40,
                5.960_464_5e-8,
                -5.960_464_5e-8,
                5.960_465e-8,
                -0.292_893_23,
                0.414_213_57,
                0.414_213_54,
                16_777_216.0,
                1e30,
                f32::MAX,
            ],
            gpu_rule: bits,
            instruction: "div.rn.f32",
        },
        MathFn {
            name: "expm1",
            build: |a, _, _| expm1(a),
            reference: |a, _, _| expm1_ref(a),
            domain: (-40.0, 90.0),
            gpu_specials: &[
                0.0,
                -0.0,
                f32::INFINITY,
                f32::NEG_INFINITY,
                f32::NAN,
                1e-45,
                -1e-40,
                5.960_464_5e-8,
                -5.960_465e-8,
                0.346_573_6,
                -0.346_573_6,
                -17.328_68,
                -30.5,
                88.38,
                88.722_83,
                88.722_84,
                f32::MAX,
                -f32::MAX,
            ],
            gpu_rule: bits,
            instruction: "cvt.rni.f32.f32",
        },
        MathFn {
            name: "pow",
            build: |a, b, _| pow(a, b),
            reference: |a, b, _| pow_ref(a, b),
            domain: (-4.0, 4.0),
            gpu_specials: &[
                0.0,
                -0.0,
                f32::INFINITY,
                f32::NEG_INFINITY,
                f32::NAN,
                1.0,
                -1.0,
                0.5,
                -0.5,
                2.0,
                -2.0,
                1e-45,
                -1e-40,
                f32::MAX,
                -f32::MAX,
            ],
            gpu_rule: bits,
            instruction: "div.rn.f32",
        },
        MathFn {
            name: "atan2",
            build: |a, b, _| atan2(a, b),
            reference: |a, b, _| atan2_ref(a, b),
            domain: (-10.0, 10.0),
            gpu_specials: &[
                0.0,
                -0.0,
                f32::INFINITY,
                f32::NEG_INFINITY,
                f32::NAN,
                1.0,
                -1.0,
                3.0,
                -2.5,
                1e-45,
                -1e-45,
                f32::MAX,
                -f32::MAX,
            ],
            gpu_rule: bits,
            instruction: "div.rn.f32",
        },
    ]
}

pub fn function(name: &str) -> MathFn {
    functions().into_iter().find(|f| f.name == name).unwrap_or_else(|| panic!("no function `{name}`"))
}

/// The function numbered `FUNC` in [`functions`], at trace time.
pub fn apply(func: usize, a: Tensor<f32>, b: Tensor<f32>, c: Tensor<f32>) -> Tensor<f32> {
    (functions()[func].build)(a, b, c)
}

kernel! {
    /// `y = F(a, b, c)` for the function numbered `FUNC`, with a masked tail.
    pub fn math_fn(a_ptr: Ptr<f32>, b_ptr: Ptr<f32>, c_ptr: Ptr<f32>, y_ptr: Ptr<f32>, n: i32; const BLOCK: usize, const FUNC: usize) {
        let offs = program_id(0) * BLOCK as i32 + arange(0, BLOCK);
        let mask = offs.lt(n);
        let a = load(a_ptr + offs, Some(mask), None);
        let b = load(b_ptr + offs, Some(mask), None);
        let c = load(c_ptr + offs, Some(mask), None);
        store(y_ptr + offs, apply(FUNC, a, b, c), Some(mask));
    }
}

pub const NAMES: [&str; 32] = [
    "exp",
    "exp2",
    "log",
    "log2",
    "sqrt",
    "rsqrt",
    "abs",
    "floor",
    "ceil",
    "trunc",
    "rint",
    "round",
    "isnan",
    "isinf",
    "signbit",
    "copysign",
    "clamp",
    "clamp_nan",
    "fmod",
    "sin",
    "cos",
    "tanh",
    "erf",
    "sigmoid",
    "fma",
    "div_rn",
    "fdiv",
    "exp2_ftz",
    "log1p",
    "expm1",
    "pow",
    "atan2",
];
