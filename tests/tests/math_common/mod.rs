//! The math function table shared by `math.rs` (every back end, special values, ptxas,
//! GPU rows) and `math_sweep.rs` (dense ULP sweeps against the correctly rounded f64
//! function): one row per function with its DSL call, its CPU reference, its domain, its
//! GPU bound and the PTX instruction it lowers to, and the kernel `math_fn` that applies
//! row `FUNC` to three loaded operands.
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

pub const NAMES: [&str; 28] = [
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
];
