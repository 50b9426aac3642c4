//! Element semantics that are not plain Rust operators: the float `max`/`min` of PTX and
//! the casts. Public so that CPU references and other back ends' tests can use the same
//! definitions (see `docs/semantics.md` for the rules and where they come from).

use crate::ir::{PropagateNan, UnaryOp};

pub use super::nan::{CANONICAL_NAN_BITS, canonical_nan};

/// PTX `max.f32` (`PropagateNan::None`) or `max.NaN.f32` (`PropagateNan::All`), bit for
/// bit:
/// - `None`: a NaN operand is ignored; two NaNs give the canonical NaN;
/// - `All`: any NaN operand gives the canonical NaN;
/// - `+0.0 > -0.0`, so `max(-0.0, +0.0) = +0.0` in either order.
pub fn max_f32(a: f32, b: f32, nan: PropagateNan) -> f32 {
    with_nan_rule(a, b, nan, |a, b| if a > b || (a == b && b.is_sign_negative()) { a } else { b })
}

/// PTX `min.f32` / `min.NaN.f32`: as [`max_f32`] with `-0.0 < +0.0`, so
/// `min(-0.0, +0.0) = -0.0` in either order.
pub fn min_f32(a: f32, b: f32, nan: PropagateNan) -> f32 {
    with_nan_rule(a, b, nan, |a, b| if a < b || (a == b && a.is_sign_negative()) { a } else { b })
}

/// The NaN rule shared by `max.f32` and `min.f32` (see [`max_f32`]); `pick` chooses
/// between two numbers.
fn with_nan_rule(a: f32, b: f32, nan: PropagateNan, pick: impl FnOnce(f32, f32) -> f32) -> f32 {
    match (a.is_nan(), b.is_nan()) {
        (true, true) => canonical_nan(),
        (true, false) | (false, true) if nan == PropagateNan::All => canonical_nan(),
        (true, false) => b,
        (false, true) => a,
        (false, false) => pick(a, b),
    }
}

/// `f32` to a signed integer: truncates toward zero, saturates at the type's range, NaN
/// gives 0 (PTX `cvt.rzi.s32.f32` / `cvt.rzi.s64.f32`, which Rust's `as` matches).
pub fn f32_to_i64(x: f32) -> i64 {
    x as i64
}

/// See [`f32_to_i64`].
pub fn f32_to_i32(x: f32) -> i32 {
    x as i32
}

/// The element semantics of every [`UnaryOp`] on f32, shared by the interpreter and the
/// simulator so that the simulator differential stays bit-exact.
pub fn unary_f32(op: UnaryOp, x: f32) -> f32 {
    match op {
        // IEEE `negate`: the sign bit flips, NaN payloads included.
        UnaryOp::Neg => f32::from_bits(x.to_bits() ^ 0x8000_0000),
        UnaryOp::Abs => super::math::abs_f32(x),
        UnaryOp::Math(f) => super::math::math_f32(f, x),
    }
}

/// The element semantics of every [`UnaryOp`] on f64 (see [`unary_f32`]).
pub fn unary_f64(op: UnaryOp, x: f64) -> f64 {
    match op {
        UnaryOp::Neg => f64::from_bits(x.to_bits() ^ (1 << 63)),
        // PTX `abs.f64`: clears the sign bit, NaN payloads included.
        UnaryOp::Abs => f64::from_bits(x.to_bits() & !(1 << 63)),
        // `UnaryOp::accepts` refuses math functions on f64 (the PTX back end has no f64
        // math yet), so verified IR never gets here; the exact function is the natural
        // value should that change.
        UnaryOp::Math(f) => super::math::math_f64(f, x),
    }
}

/// The f64 NaN rule of `max`/`min`, as [`max_f32`]'s with the canonical f64 NaN
/// `0x7FFF_FFFF_FFFF_FFFF` (PTX `max.f64`; by analogy with f32, not yet measured).
/// `PropagateNan::All` gives the canonical NaN for any NaN operand (the PTX back end
/// emits it as `max.f64` and a NaN test; PTX has no `max.NaN.f64`).
pub fn max_f64(a: f64, b: f64, nan: PropagateNan) -> f64 {
    with_nan_rule_f64(a, b, nan, |a, b| if a > b || (a == b && b.is_sign_negative()) { a } else { b })
}

/// See [`max_f64`] and [`min_f32`].
pub fn min_f64(a: f64, b: f64, nan: PropagateNan) -> f64 {
    with_nan_rule_f64(a, b, nan, |a, b| if a < b || (a == b && a.is_sign_negative()) { a } else { b })
}

fn with_nan_rule_f64(a: f64, b: f64, nan: PropagateNan, pick: impl FnOnce(f64, f64) -> f64) -> f64 {
    let canonical = f64::from_bits(super::nan::CANONICAL_NAN64_BITS);
    match (a.is_nan(), b.is_nan()) {
        (true, true) => canonical,
        (true, false) | (false, true) if nan == PropagateNan::All => canonical,
        (true, false) => b,
        (false, true) => a,
        (false, false) => pick(a, b),
    }
}

/// The element semantics of every [`UnaryOp`] on integers (i32 values sign-extended into
/// i64; the caller truncates to the width). `None` for an op not defined on integers
/// (`UnaryOp::accepts`: the verifier refuses it, the simulator reports it).
pub fn unary_int(op: UnaryOp, x: i64) -> Option<i64> {
    match op {
        UnaryOp::Neg => Some(x.wrapping_neg()),
        // |i32::MIN| (sign-extended) is 2^31, which the caller truncates back to i32::MIN.
        UnaryOp::Abs => Some(x.wrapping_abs()),
        UnaryOp::Math(_) => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const NONE: PropagateNan = PropagateNan::None;
    const ALL: PropagateNan = PropagateNan::All;

    /// The bit patterns an H200 returned for `max.f32` / `max.NaN.f32` / `min.f32` /
    /// `min.NaN.f32` (inline PTX, sm_90), one row per operand pair.
    const MEASURED: &[(u32, u32, [u32; 4])] = &[
        (0x8000_0000, 0x0000_0000, [0x0000_0000, 0x0000_0000, 0x8000_0000, 0x8000_0000]),
        (0x0000_0000, 0x8000_0000, [0x0000_0000, 0x0000_0000, 0x8000_0000, 0x8000_0000]),
        (0x7FC0_0001, 0x3F80_0000, [0x3F80_0000, 0x7FFF_FFFF, 0x3F80_0000, 0x7FFF_FFFF]),
        (0x3F80_0000, 0x7FC0_0002, [0x3F80_0000, 0x7FFF_FFFF, 0x3F80_0000, 0x7FFF_FFFF]),
        (0x7FC0_0001, 0xFFC0_0002, [0x7FFF_FFFF, 0x7FFF_FFFF, 0x7FFF_FFFF, 0x7FFF_FFFF]),
        (0xFFC0_0123, 0x3F80_0000, [0x3F80_0000, 0x7FFF_FFFF, 0x3F80_0000, 0x7FFF_FFFF]),
        (0x7F80_0001, 0x8000_0000, [0x8000_0000, 0x7FFF_FFFF, 0x8000_0000, 0x7FFF_FFFF]),
        (0x8000_0000, 0x8000_0000, [0x8000_0000, 0x8000_0000, 0x8000_0000, 0x8000_0000]),
    ];

    #[test]
    fn max_and_min_match_the_gpu_bit_for_bit() {
        for &(a, b, want) in MEASURED {
            let (x, y) = (f32::from_bits(a), f32::from_bits(b));
            let got =
                [max_f32(x, y, NONE), max_f32(x, y, ALL), min_f32(x, y, NONE), min_f32(x, y, ALL)].map(f32::to_bits);
            assert_eq!(got, want, "operands {a:08x}, {b:08x}");
        }
    }

    #[test]
    fn ordinary_values_and_infinities() {
        assert_eq!(max_f32(1.0, 2.0, NONE), 2.0);
        assert_eq!(max_f32(f32::NEG_INFINITY, -3.0, ALL), -3.0);
        assert_eq!(min_f32(f32::INFINITY, -3.0, NONE), -3.0);
    }

    #[test]
    fn float_to_int_truncates_saturates_and_maps_nan_to_zero() {
        // Measured on the H200: cvt.rzi.s32.f32 of NaN is 0, of 3e10 is i32::MAX.
        assert_eq!(f32_to_i32(f32::NAN), 0);
        assert_eq!(f32_to_i32(3e10), i32::MAX);
        assert_eq!(f32_to_i32(-2.9), -2);
        assert_eq!(f32_to_i64(-1e30), i64::MIN);
    }
}
