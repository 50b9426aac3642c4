//! Atomics. [`AtomKind`] and [`rmw_bits`] / [`cas_bits`] are the element operation of one
//! hardware atomic on raw bits: the PTX back end emits one `atom` per element with a kind
//! from [`AtomKind::of`], and the simulator runs it with these same functions, so the two
//! agree bit for bit (an architecture invariant). The interpreter's block atomics
//! (`semantics::atomic`) apply them lane by lane.

use crate::ir::{AtomicOp, ScalarType};

use super::nan::canonical_nan;

/// The element operation of one PTX `atom` (`new = old op value`, the result is `old`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum AtomKind {
    /// `atom.add.u32` / `.u64`: wrapping (the same bits for signed and unsigned).
    Add,
    /// `atom.add.f32`: one IEEE add rounding to nearest even, subnormal inputs and results
    /// flushed to zero of the same sign (the PTX ISA's rule for `atom.add.f32` on global
    /// memory), a NaN result is the canonical NaN.
    AddF32,
    /// `atom.max.s32` / `.s64`.
    MaxS,
    /// `atom.max.u32` / `.u64`.
    MaxU,
    /// `atom.min.s32` / `.s64`.
    MinS,
    /// `atom.min.u32` / `.u64`.
    MinU,
    /// `atom.and.b32` / `.b64`.
    And,
    /// `atom.or.b32` / `.b64`.
    Or,
    /// `atom.xor.b32` / `.b64`.
    Xor,
    /// `atom.exch.b32` / `.b64`: `new = value`.
    Exch,
}

/// Whether integer elements of `elem` compare signed (`max`/`min`); written as a match
/// over every dtype so a new one must say.
fn signed(elem: ScalarType) -> bool {
    match elem {
        ScalarType::I32 | ScalarType::I64 | ScalarType::I8 | ScalarType::I16 => true,
        ScalarType::U32
        | ScalarType::U64
        | ScalarType::U8
        | ScalarType::Bool
        | ScalarType::F32
        | ScalarType::F16
        | ScalarType::BF16
        | ScalarType::F64
        | ScalarType::F8E4M3
        | ScalarType::F8E5M2 => false,
    }
}

impl AtomKind {
    /// The hardware atomics of the block-level `op` on pointees of type `elem`, `None` where
    /// the op is not defined ([`AtomicOp::accepts`]): `(kind for operands whose sign bit is
    /// clear, kind for operands whose sign bit is set)`. The two differ only for float
    /// max/min, which PTX has no instruction for on sm_86: Triton's sign-split encoding
    /// (`atom.max.s32` for non-negative operands, `atom.min.u32` for negative ones) orders
    /// floats by their sign-magnitude bits, IEEE 754 `totalOrder`, for any value in memory.
    pub fn of(op: AtomicOp, elem: ScalarType) -> Option<(AtomKind, AtomKind)> {
        if !op.accepts(elem) {
            return None;
        }
        let float = elem.is_float();
        let one = |k| Some((k, k));
        match op {
            AtomicOp::Add if float => one(AtomKind::AddF32),
            AtomicOp::Add => one(AtomKind::Add),
            AtomicOp::Max if float => Some((AtomKind::MaxS, AtomKind::MinU)),
            AtomicOp::Min if float => Some((AtomKind::MinS, AtomKind::MaxU)),
            AtomicOp::Max if signed(elem) => one(AtomKind::MaxS),
            AtomicOp::Max => one(AtomKind::MaxU),
            AtomicOp::Min if signed(elem) => one(AtomKind::MinS),
            AtomicOp::Min => one(AtomKind::MinU),
            AtomicOp::And => one(AtomKind::And),
            AtomicOp::Or => one(AtomKind::Or),
            AtomicOp::Xor => one(AtomKind::Xor),
            AtomicOp::Xchg => one(AtomKind::Exch),
        }
    }
}

/// `x` with subnormals replaced by a zero of the same sign.
fn flush(x: f32) -> f32 {
    if x.is_subnormal() { f32::from_bits(x.to_bits() & 0x8000_0000) } else { x }
}

/// `atom.add.f32`'s sum (see [`AtomKind::AddF32`]).
pub fn add_f32_ftz(a: f32, b: f32) -> f32 {
    let sum = flush(a) + flush(b);
    if sum.is_nan() { canonical_nan() } else { flush(sum) }
}

/// The new contents of an element of `width` bits (32 or 64) holding `old` after an atomic
/// of `kind` with operand `val`. Bits above `width` are ignored and the result is
/// zero-extended (the simulator's register convention).
pub fn rmw_bits(kind: AtomKind, width: u32, old: u64, val: u64) -> u64 {
    let mask = if width == 64 { u64::MAX } else { (1u64 << width) - 1 };
    let (o, v) = (old & mask, val & mask);
    // Sign-extended views for the signed comparisons.
    let shift = 64 - width;
    let (so, sv) = (((o << shift) as i64) >> shift, ((v << shift) as i64) >> shift);
    let new = match kind {
        AtomKind::Add => o.wrapping_add(v),
        AtomKind::AddF32 => u64::from(add_f32_ftz(f32::from_bits(o as u32), f32::from_bits(v as u32)).to_bits()),
        AtomKind::MaxS => so.max(sv) as u64,
        AtomKind::MinS => so.min(sv) as u64,
        AtomKind::MaxU => o.max(v),
        AtomKind::MinU => o.min(v),
        AtomKind::And => o & v,
        AtomKind::Or => o | v,
        AtomKind::Xor => o ^ v,
        AtomKind::Exch => v,
    };
    new & mask
}

/// The new contents after `atom.cas`: `val` when the element's bits equal `cmp`'s.
pub fn cas_bits(width: u32, old: u64, cmp: u64, val: u64) -> u64 {
    let mask = if width == 64 { u64::MAX } else { (1u64 << width) - 1 };
    if old & mask == cmp & mask { val & mask } else { old & mask }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `atomic_max` / `atomic_min` on f32 through the sign-split kinds, element by element.
    fn float_minmax(op: AtomicOp, mem: f32, val: f32) -> f32 {
        let (clear, set) = AtomKind::of(op, ScalarType::F32).unwrap();
        let kind = if val.is_sign_negative() { set } else { clear };
        f32::from_bits(rmw_bits(kind, 32, u64::from(mem.to_bits()), u64::from(val.to_bits())) as u32)
    }

    /// IEEE 754 totalOrder on the bits: what the sign-split encoding computes.
    fn total_max(a: f32, b: f32) -> f32 {
        if a.total_cmp(&b).is_ge() { a } else { b }
    }

    #[test]
    fn float_max_and_min_follow_total_order_for_every_pair_of_specials() {
        let specials = [
            0.0,
            -0.0,
            1.0,
            -1.0,
            f32::MIN_POSITIVE,
            -f32::MIN_POSITIVE,
            f32::from_bits(1),
            f32::from_bits(0x8000_0001),
            f32::MAX,
            f32::MIN,
            f32::INFINITY,
            f32::NEG_INFINITY,
            f32::from_bits(0x7FC0_0000),
            f32::from_bits(0x7FC0_0001),
            f32::from_bits(0xFFC0_0000),
            f32::from_bits(0x7F80_0001),
        ];
        for a in specials {
            for b in specials {
                let max = float_minmax(AtomicOp::Max, a, b);
                assert_eq!(max.to_bits(), total_max(a, b).to_bits(), "max({a:?}, {b:?})");
                let min = float_minmax(AtomicOp::Min, a, b);
                let want = if a.total_cmp(&b).is_le() { a } else { b };
                assert_eq!(min.to_bits(), want.to_bits(), "min({a:?}, {b:?})");
            }
        }
        // The consequences docs/semantics.md states.
        assert_eq!(float_minmax(AtomicOp::Max, -0.0, 0.0).to_bits(), 0);
        assert_eq!(float_minmax(AtomicOp::Max, f32::INFINITY, f32::NAN).to_bits(), f32::NAN.to_bits());
        assert_eq!(float_minmax(AtomicOp::Max, 5.0, -f32::NAN).to_bits(), 5.0f32.to_bits());
    }

    #[test]
    fn integer_kinds_wrap_and_compare_by_signedness() {
        assert_eq!(rmw_bits(AtomKind::Add, 32, 0xFFFF_FFFF, 1), 0);
        assert_eq!(rmw_bits(AtomKind::Add, 64, u64::MAX, 2), 1);
        assert_eq!(rmw_bits(AtomKind::MaxS, 32, 0xFFFF_FFFF, 0), 0);
        assert_eq!(rmw_bits(AtomKind::MaxU, 32, 0xFFFF_FFFF, 0), 0xFFFF_FFFF);
        assert_eq!(rmw_bits(AtomKind::MinS, 64, 5, (-3i64) as u64), (-3i64) as u64);
        assert_eq!(rmw_bits(AtomKind::Xor, 32, 0b1100, 0b1010), 0b0110);
        assert_eq!(rmw_bits(AtomKind::Exch, 32, 7, 0x1_0000_0009), 9);
        assert_eq!(cas_bits(32, 0, 0, 1), 1);
        assert_eq!(cas_bits(32, 1, 0, 1), 1);
        assert_eq!(cas_bits(32, 2, 0, 1), 2);
        // Bitwise: NaN equals its own bits, -0.0 does not equal +0.0.
        let nan = u64::from(f32::NAN.to_bits());
        assert_eq!(cas_bits(32, nan, nan, 3), 3);
        assert_eq!(cas_bits(32, 0x8000_0000, 0, 3), 0x8000_0000);
    }

    #[test]
    fn float_add_flushes_subnormals_and_rounds_to_nearest_even() {
        let tiny = f32::from_bits(1);
        assert_eq!(add_f32_ftz(1.0, tiny), 1.0);
        assert_eq!(add_f32_ftz(tiny, tiny).to_bits(), 0);
        assert_eq!(add_f32_ftz(-tiny, -0.0).to_bits(), 0x8000_0000);
        // A normal sum in the subnormal range flushes too.
        let a = f32::MIN_POSITIVE * 1.5;
        assert_eq!(add_f32_ftz(a, -f32::MIN_POSITIVE).to_bits(), 0);
        // Ties to even: 2^24 + 1 is not representable.
        assert_eq!(add_f32_ftz(16_777_216.0, 1.0), 16_777_216.0);
        assert_eq!(add_f32_ftz(f32::INFINITY, f32::NEG_INFINITY).to_bits(), canonical_nan().to_bits());
    }
}
