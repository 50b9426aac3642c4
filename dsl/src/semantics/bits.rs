//! Element semantics of the bit-level operators: shifts, bitcasts and the high half of
//! a product (`umulhi`). The interpreter and
//! the front end's constant folding call these, and the PTX lowering clamps constant
//! amounts with [`shift_amount`], so a shift by an out-of-range amount means one thing
//! everywhere (`docs/semantics.md`, "Operators"); the simulator runs the clamped `lir`
//! shifts, whose amounts the lowering keeps within the width.
//!
//! Values travel as `i64` with the width beside them (an `i32` sign-extended, as
//! everywhere in the interpreter); the result is sign-extended back from `bits`.

use crate::ir::{ScalarKind, ScalarType};

/// The shift amount as PTX reads it: the amount operand's bits of width `bits`, taken as
/// unsigned (a negative `i32` amount is a huge one), clamped to `bits`. PTX `shl`/`shr`
/// clamp "shift amounts greater than the register width N" to N, which is what makes
/// every amount of at least the width shift every bit out.
pub fn shift_amount(amount: i64, bits: u32) -> u32 {
    let unsigned = if bits >= 64 { amount as u64 } else { (amount as u64) & ((1u64 << bits) - 1) };
    unsigned.min(u64::from(bits)) as u32
}

/// Sign-extends the low `bits` bits of `v`.
fn sext(v: u64, bits: u32) -> i64 {
    if bits >= 64 { v as i64 } else { ((v << (64 - bits)) as i64) >> (64 - bits) }
}

/// `x << amount` on a `bits`-wide integer (PTX `shl.b{bits}`): 0 once the (unsigned,
/// clamped) amount reaches the width.
pub fn shl(x: i64, amount: i64, bits: u32) -> i64 {
    let s = shift_amount(amount, bits);
    if s >= bits { 0 } else { sext((x as u64) << s, bits) }
}

/// `x >> amount` on a `bits`-wide integer: arithmetic (`shr.s{bits}`, fills with the sign
/// bit) when `signed`, logical (`shr.u{bits}`, fills with zeros) otherwise; an amount of
/// at least the width leaves only fill bits (-1 or 0 for a negative signed `x`, else 0).
pub fn shr(x: i64, amount: i64, bits: u32, signed: bool) -> i64 {
    let s = shift_amount(amount, bits);
    if signed {
        // x is sign-extended already; shifting by 63 at most keeps the sign fill.
        x >> s.min(63)
    } else {
        let mask = if bits >= 64 { u64::MAX } else { (1u64 << bits) - 1 };
        let u = (x as u64) & mask;
        if s >= bits { 0 } else { sext(u >> s, bits) }
    }
}

/// The high `bits` bits of the `2 * bits`-bit product of the low `bits` bits of `x` and
/// `y` read as unsigned (PTX `mul.hi.u{bits}`, Triton's `umulhi`, which multiplies signed
/// operands as their unsigned bits too), sign-extended back from `bits`.
pub fn umulhi(x: i64, y: i64, bits: u32) -> i64 {
    let mask = if bits >= 64 { u64::MAX } else { (1u64 << bits) - 1 };
    let product = u128::from(x as u64 & mask) * u128::from(y as u64 & mask);
    sext((product >> bits) as u64, bits)
}

/// Which dtypes shift right arithmetically (`shr.s`): the signed integers. Unsigned ones
/// shift logically (`shr.u`); `i1` and floats are not shifted (`BinaryOp::accepts`).
pub fn shifts_arithmetically(s: ScalarType) -> bool {
    match s.kind() {
        ScalarKind::SignedInt => true,
        ScalarKind::UnsignedInt | ScalarKind::Bool | ScalarKind::Float => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// (x, amount, bits, shl, shr signed, shr unsigned) with PTX's clamping.
    const SHIFTS: &[(i64, i64, u32, i64, i64, i64)] = &[
        (1, 0, 32, 1, 1, 1),
        (1, 31, 32, i32::MIN as i64, 0, 0),
        (1, 32, 32, 0, 0, 0),
        (1, 33, 32, 0, 0, 0),
        (-1, 1, 32, -2, -1, 0x7FFF_FFFF),
        (-1, 31, 32, i32::MIN as i64, -1, 1),
        (-1, 32, 32, 0, -1, 0),
        (-8, -1, 32, 0, -1, 0),
        (i32::MIN as i64, 31, 32, 0, -1, 1),
        (i32::MAX as i64, 30, 32, (i32::MAX << 30) as i64, 1, 1),
        (1, 63, 64, i64::MIN, 0, 0),
        (1, 64, 64, 0, 0, 0),
        (-1, 63, 64, i64::MIN, -1, 1),
        (-1, 64, 64, 0, -1, 0),
        (-1, -1, 64, 0, -1, 0),
        (1 << 40, 1 << 32, 64, 0, 0, 0),
    ];

    #[test]
    fn shifts_clamp_the_unsigned_amount_to_the_width() {
        for &(x, a, bits, l, rs, ru) in SHIFTS {
            assert_eq!(shl(x, a, bits), l, "{x} << {a} ({bits} bits)");
            assert_eq!(shr(x, a, bits, true), rs, "{x} >> {a} signed ({bits} bits)");
            assert_eq!(shr(x, a, bits, false), ru, "{x} >> {a} unsigned ({bits} bits)");
        }
    }

    #[test]
    fn an_amount_reads_only_its_own_width() {
        // An i32 amount of -1 is 0xFFFF_FFFF: clamped to 32.
        assert_eq!(shift_amount(-1, 32), 32);
        // An i64 amount of 2^32 is not 0 once truncated: it is past the width.
        assert_eq!(shift_amount(1 << 32, 64), 64);
        assert_eq!(shift_amount(5, 64), 5);
    }
}
