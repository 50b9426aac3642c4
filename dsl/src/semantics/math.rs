//! The math functions' element semantics: one CPU model per PTX instruction that
//! `tl.exp2`, `tl.sqrt`, `tl.fma`, `tl.fdiv`, ... lower to. The interpreter and the SIMT
//! simulator both call these (through `scalar::unary_f32` and the simulator's decoder), so
//! the simulator differential stays bit-exact whatever the model is. The GPU matches them
//! bit for bit where PTX rounds correctly (`sqrt.rn`, `fma.rn`, `cvt.rmi`/`cvt.rpi`, `abs`)
//! and within the bound `docs/semantics.md` states per function where PTX approximates
//! (`ex2.approx`, `lg2.approx`, `rsqrt.approx`, `sin.approx`, `cos.approx`,
//! `tanh.approx`, `div.full`): there the model is the exact function computed in `f64`
//! and rounded once to `f32`, the best an approximation can hope to return.
//!
//! Every NaN result is the canonical NaN `0x7FFF_FFFF` (what the GPU's arithmetic
//! returns), except `abs`, which only clears the sign bit (IEEE `abs`). Subnormal inputs
//! and results are kept (no flush to zero: rtriton emits no `.ftz`, like Triton for f32).

use crate::ir::MathFn;

use super::nan::canonical_nan;

/// `log2(e)` rounded to f32 (`0x3FB8AA3B`): `exp(x)` is `exp2(x * LOG2E)`, as Triton
/// lowers it (the product rounds once, to f32).
pub const LOG2E: f32 = std::f32::consts::LOG2_E;

/// `ln(2)` rounded to f32 (`0x3F317218`): `log(x)` is `log2(x) * LN2`.
pub const LN2: f32 = std::f32::consts::LN_2;

/// `r`, with any NaN replaced by the canonical NaN. Tested on the bits rather than with
/// `is_nan`: in a release build LLVM folded `x.sqrt().is_nan()` so that a NaN argument's
/// payload came through (seen in the tests' copy of this function, `math_common`).
fn canonical(r: f32) -> f32 {
    if r.to_bits() & 0x7FFF_FFFF > 0x7F80_0000 { canonical_nan() } else { r }
}

/// The exact `f(x)` computed in `f64` and rounded to nearest `f32` (the CPU model of an
/// approximate PTX instruction). The `f64` functions come from the platform's libm, whose
/// error (under one f64 ulp) changes the f32 result only when the exact value lies within
/// about 2^-29 f32 ulp of a rounding midpoint.
fn via_f64(x: f32, f: fn(f64) -> f64) -> f32 {
    canonical(f(f64::from(x)) as f32)
}

/// The CPU model of one [`MathFn`] on an f32 element.
pub fn math_f32(f: MathFn, x: f32) -> f32 {
    match f {
        // ex2.approx.f32: 2^-inf = +0, 2^+inf = +inf; subnormal results kept.
        MathFn::Exp2 => via_f64(x, f64::exp2),
        // ex2.approx.ftz.f32: a subnormal x is read as zero (2^x = 1) and a subnormal
        // result is flushed to +0 (2^x is never negative).
        MathFn::Exp2Ftz => {
            let r = via_f64(if x.is_subnormal() { 0.0 } else { x }, f64::exp2);
            if r.is_subnormal() { 0.0 } else { r }
        }
        // lg2.approx.f32: log2(+-0) = -inf, log2(x < 0) = NaN, log2(+inf) = +inf.
        MathFn::Log2 => via_f64(x, f64::log2),
        // sqrt.rn.f32 rounds correctly, as Rust's sqrt: sqrt(-0) = -0, sqrt(x < 0) = NaN.
        MathFn::Sqrt => canonical(x.sqrt()),
        // rsqrt.approx.f32: rsqrt(+0) = +inf, rsqrt(-0) = -inf, rsqrt(+inf) = +0.
        MathFn::Rsqrt => via_f64(x, |v| 1.0 / v.sqrt()),
        // cvt.rmi / cvt.rpi.f32.f32: exact; the sign of zero is kept (ceil(-0.5) = -0).
        MathFn::Floor => canonical(x.floor()),
        MathFn::Ceil => canonical(x.ceil()),
        // cvt.rzi / cvt.rni.f32.f32: exact, signed zeros kept (trunc(-0.5) = rint(-0.5) = -0).
        MathFn::Trunc => canonical(x.trunc()),
        MathFn::Rint => canonical(x.round_ties_even()),
        // sin/cos.approx.f32: sin(+-inf) = NaN; the model is exact at every argument
        // (the GPU's error grows outside [-pi, pi], see docs/semantics.md).
        MathFn::Sin => via_f64(x, f64::sin),
        MathFn::Cos => via_f64(x, f64::cos),
        // tanh.approx.f32: tanh(+-inf) = +-1, tanh(-0) = -0.
        MathFn::Tanh => via_f64(x, f64::tanh),
    }
}

/// The exact function on f64 (platform libm); see [`super::scalar::unary_f64`].
pub fn math_f64(f: MathFn, x: f64) -> f64 {
    match f {
        MathFn::Exp2 => x.exp2(),
        // never traced on f64 (the math functions are f32 only); f64's own subnormals
        MathFn::Exp2Ftz => {
            let r = if x.is_subnormal() { 1.0 } else { x.exp2() };
            if r.is_subnormal() { 0.0 } else { r }
        }
        MathFn::Log2 => x.log2(),
        MathFn::Sqrt => x.sqrt(),
        MathFn::Rsqrt => 1.0 / x.sqrt(),
        MathFn::Floor => x.floor(),
        MathFn::Ceil => x.ceil(),
        MathFn::Trunc => x.trunc(),
        MathFn::Rint => x.round_ties_even(),
        MathFn::Sin => x.sin(),
        MathFn::Cos => x.cos(),
        MathFn::Tanh => x.tanh(),
    }
}

/// IEEE `abs` on f32: clears the sign bit (a NaN keeps its payload), PTX `abs.f32`.
pub fn abs_f32(x: f32) -> f32 {
    f32::from_bits(x.to_bits() & 0x7FFF_FFFF)
}

/// `a * b + c` rounded once (PTX `fma.rn.f32`, Rust's `mul_add`); NaN is canonical.
pub fn fma_f32(a: f32, b: f32, c: f32) -> f32 {
    canonical(a.mul_add(b, c))
}

/// Fast division (`tl.fdiv`, PTX `div.full.f32`): the CPU model is the correctly rounded
/// quotient; the GPU is within 2 ulp of it (PTX ISA), see `docs/semantics.md`.
pub fn div_full_f32(a: f32, b: f32) -> f32 {
    canonical(a / b)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::semantics::nan::CANONICAL_NAN_BITS;

    const INF: f32 = f32::INFINITY;
    const SUB: f32 = f32::from_bits(1); // the smallest subnormal

    /// (function, input, expected bits): the special values of each function, from the
    /// PTX ISA's tables for the approximate instructions and IEEE 754 for the others.
    const SPECIALS: &[(MathFn, f32, u32)] = &[
        (MathFn::Exp2, 0.0, 0x3F80_0000),
        (MathFn::Exp2, -0.0, 0x3F80_0000),
        (MathFn::Exp2, 1.0, 0x4000_0000),
        (MathFn::Exp2, -INF, 0x0000_0000),
        (MathFn::Exp2, INF, 0x7F80_0000),
        (MathFn::Exp2, 128.0, 0x7F80_0000),
        (MathFn::Exp2, -149.0, 0x0000_0001),
        (MathFn::Exp2, -126.0, 0x0080_0000),
        (MathFn::Exp2, -151.0, 0x0000_0000),
        // ftz: subnormal results become +0, a subnormal argument reads as 0.
        (MathFn::Exp2Ftz, -126.0, 0x0080_0000),
        (MathFn::Exp2Ftz, -127.0, 0x0000_0000),
        (MathFn::Exp2Ftz, -149.0, 0x0000_0000),
        (MathFn::Exp2Ftz, -SUB, 0x3F80_0000),
        (MathFn::Exp2Ftz, 1.0, 0x4000_0000),
        (MathFn::Exp2Ftz, -INF, 0x0000_0000),
        (MathFn::Exp2Ftz, INF, 0x7F80_0000),
        (MathFn::Log2, 0.0, 0xFF80_0000),
        (MathFn::Log2, -0.0, 0xFF80_0000),
        (MathFn::Log2, 1.0, 0x0000_0000),
        (MathFn::Log2, 8.0, 0x4040_0000),
        (MathFn::Log2, SUB, 0xC315_0000),
        (MathFn::Log2, INF, 0x7F80_0000),
        (MathFn::Log2, -1.0, CANONICAL_NAN_BITS),
        (MathFn::Log2, -INF, CANONICAL_NAN_BITS),
        (MathFn::Sqrt, 0.0, 0x0000_0000),
        (MathFn::Sqrt, -0.0, 0x8000_0000),
        (MathFn::Sqrt, 4.0, 0x4000_0000),
        (MathFn::Sqrt, 2.0, 0x3FB5_04F3),
        (MathFn::Sqrt, SUB, 0x1A35_04F3),
        (MathFn::Sqrt, INF, 0x7F80_0000),
        (MathFn::Sqrt, -1.0, CANONICAL_NAN_BITS),
        (MathFn::Sqrt, -INF, CANONICAL_NAN_BITS),
        (MathFn::Rsqrt, 0.0, 0x7F80_0000),
        (MathFn::Rsqrt, -0.0, 0xFF80_0000),
        (MathFn::Rsqrt, 4.0, 0x3F00_0000),
        (MathFn::Rsqrt, INF, 0x0000_0000),
        (MathFn::Rsqrt, -1.0, CANONICAL_NAN_BITS),
        (MathFn::Floor, -0.5, 0xBF80_0000),
        (MathFn::Floor, 0.5, 0x0000_0000),
        (MathFn::Floor, -0.0, 0x8000_0000),
        (MathFn::Floor, 2.5, 0x4000_0000),
        (MathFn::Floor, -SUB, 0xBF80_0000),
        (MathFn::Floor, 16_777_215.0, 0x4B7F_FFFF),
        (MathFn::Floor, -INF, 0xFF80_0000),
        (MathFn::Ceil, -0.5, 0x8000_0000),
        (MathFn::Ceil, 0.5, 0x3F80_0000),
        (MathFn::Ceil, SUB, 0x3F80_0000),
        (MathFn::Ceil, -2.5, 0xC000_0000),
        (MathFn::Ceil, INF, 0x7F80_0000),
        (MathFn::Trunc, -0.5, 0x8000_0000),
        (MathFn::Trunc, 2.9, 0x4000_0000),
        (MathFn::Trunc, -2.9, 0xC000_0000),
        (MathFn::Trunc, -SUB, 0x8000_0000),
        (MathFn::Trunc, 8_388_607.5, 0x4AFF_FFFE),
        (MathFn::Trunc, -INF, 0xFF80_0000),
        // ties go to the even neighbour
        (MathFn::Rint, 0.5, 0x0000_0000),
        (MathFn::Rint, -0.5, 0x8000_0000),
        (MathFn::Rint, 1.5, 0x4000_0000),
        (MathFn::Rint, 2.5, 0x4000_0000),
        (MathFn::Rint, -2.5, 0xC000_0000),
        (MathFn::Rint, 0.499_999_97, 0x0000_0000),
        (MathFn::Rint, 8_388_607.5, 0x4B00_0000),
        (MathFn::Rint, 8_388_609.0, 0x4B00_0001),
        (MathFn::Rint, INF, 0x7F80_0000),
        (MathFn::Sin, 0.0, 0x0000_0000),
        (MathFn::Sin, -0.0, 0x8000_0000),
        (MathFn::Sin, SUB, 0x0000_0001),
        (MathFn::Sin, INF, CANONICAL_NAN_BITS),
        (MathFn::Sin, -INF, CANONICAL_NAN_BITS),
        (MathFn::Cos, 0.0, 0x3F80_0000),
        (MathFn::Cos, -0.0, 0x3F80_0000),
        (MathFn::Cos, INF, CANONICAL_NAN_BITS),
        (MathFn::Tanh, 0.0, 0x0000_0000),
        (MathFn::Tanh, -0.0, 0x8000_0000),
        (MathFn::Tanh, INF, 0x3F80_0000),
        (MathFn::Tanh, -INF, 0xBF80_0000),
        (MathFn::Tanh, 20.0, 0x3F80_0000),
        (MathFn::Tanh, SUB, 0x0000_0001),
    ];

    #[test]
    fn special_values_follow_the_ptx_and_ieee_tables() {
        for &(f, x, want) in SPECIALS {
            let got = math_f32(f, x).to_bits();
            assert_eq!(got, want, "{}({x:e} = {:08x}): got {got:08x}, expected {want:08x}", f.name(), x.to_bits());
        }
    }

    #[test]
    fn every_function_gives_the_canonical_nan_for_nan() {
        for f in MathFn::ALL {
            for nan in [0x7FC0_0000, 0xFFC0_1234, 0x7F80_0001] {
                assert_eq!(math_f32(f, f32::from_bits(nan)).to_bits(), CANONICAL_NAN_BITS, "{}({nan:08x})", f.name());
            }
        }
        assert_eq!(fma_f32(f32::NAN, 1.0, 1.0).to_bits(), CANONICAL_NAN_BITS);
        assert_eq!(fma_f32(INF, 0.0, 1.0).to_bits(), CANONICAL_NAN_BITS);
        assert_eq!(div_full_f32(0.0, 0.0).to_bits(), CANONICAL_NAN_BITS);
    }

    #[test]
    fn abs_clears_only_the_sign_bit() {
        for (x, want) in
            [(-0.0f32, 0x0000_0000u32), (-SUB, 1), (-INF, 0x7F80_0000), (f32::from_bits(0xFFC0_1234), 0x7FC0_1234)]
        {
            assert_eq!(abs_f32(x).to_bits(), want);
        }
    }

    #[test]
    fn fma_rounds_once() {
        // (1 + 2^-23)^2 = 1 + 2^-22 + 2^-46: the 2^-46 term survives only without the
        // intermediate rounding of the product.
        let a = 1.0 + f32::EPSILON;
        assert_eq!(fma_f32(a, a, -1.0), 2.0 * f32::EPSILON + f32::EPSILON * f32::EPSILON);
        assert_eq!(a * a - 1.0, 2.0 * f32::EPSILON);
        assert_eq!(fma_f32(-0.0, 1.0, -0.0).to_bits(), 0x8000_0000);
    }

    #[test]
    fn approximations_are_the_f64_function_rounded_once() {
        // exp2(0.5) = sqrt(2) and sin(pi/6) = 0.5 rounded to nearest f32.
        assert_eq!(math_f32(MathFn::Exp2, 0.5), std::f32::consts::SQRT_2);
        assert_eq!(math_f32(MathFn::Sin, (std::f64::consts::FRAC_PI_6) as f32).to_bits(), 0x3F00_0000);
        assert_eq!(math_f32(MathFn::Rsqrt, 2.0), std::f32::consts::FRAC_1_SQRT_2);
        assert_eq!(LOG2E.to_bits(), 0x3FB8_AA3B);
        assert_eq!(LN2.to_bits(), 0x3F31_7218);
    }
}
