//! Fills with the values kernels get wrong: NaN with payloads and either sign, infinities,
//! signed zeros, subnormals, the extremes, and ties (equal values an argmax or a max must
//! break the same way on every back end).

/// The special `f32` values, each with why it is there.
pub const SPECIAL_F32: [f32; 14] = [
    f32::NAN,
    // A NaN with a payload and the sign bit set: back ends must not canonicalize a NaN
    // they only move.
    f32::from_bits(0xFFC0_1234),
    f32::from_bits(0x7F80_0001), // a signalling NaN
    f32::INFINITY,
    f32::NEG_INFINITY,
    0.0,
    -0.0,
    f32::from_bits(1),            // the smallest subnormal
    -f32::from_bits(0x007F_FFFF), // the largest negative subnormal
    f32::MIN_POSITIVE,
    f32::MAX,
    f32::MIN,
    1.5, // ties: appears twice so reductions meet equal values
    1.5,
];

/// The special `i32` values: the extremes, around zero, and a tie.
pub const SPECIAL_I32: [i32; 7] = [i32::MIN, i32::MIN + 1, -1, 0, 1, i32::MAX, i32::MAX];

/// The special `i64` values.
pub const SPECIAL_I64: [i64; 7] = [i64::MIN, i64::MIN + 1, -1, 0, 1, i64::MAX, i64::MAX];

/// `n` floats counting up from `start` in steps of `step` (distinct, exact, easy to read
/// in a report).
pub fn ramp_f32(n: usize, start: f32, step: f32) -> Vec<f32> {
    (0..n).map(|i| start + i as f32 * step).collect()
}

/// `n` floats that cycle through [`SPECIAL_F32`] mixed with ordinary values, so every
/// special value meets ordinary neighbours at every lane position.
pub fn special_f32(n: usize) -> Vec<f32> {
    (0..n)
        .map(|i| if i % 3 == 2 { i as f32 * 0.25 - 7.0 } else { SPECIAL_F32[(i / 3 * 2 + i % 3) % SPECIAL_F32.len()] })
        .collect()
}

/// `n` integers cycling through [`SPECIAL_I32`] mixed with ordinary values.
pub fn special_i32(n: usize) -> Vec<i32> {
    (0..n).map(|i| if i % 2 == 1 { i as i32 - 50 } else { SPECIAL_I32[(i / 2) % SPECIAL_I32.len()] }).collect()
}

/// `n` integers cycling through [`SPECIAL_I64`] mixed with ordinary values.
pub fn special_i64(n: usize) -> Vec<i64> {
    (0..n).map(|i| if i % 2 == 1 { i as i64 - 50 } else { SPECIAL_I64[(i / 2) % SPECIAL_I64.len()] }).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn special_fills_hold_every_special_value() {
        let f = special_f32(64);
        for s in SPECIAL_F32 {
            assert!(f.iter().any(|v| v.to_bits() == s.to_bits()), "{s:?} (0x{:08X}) missing", s.to_bits());
        }
        let i = special_i32(32);
        assert!(SPECIAL_I32.iter().all(|s| i.contains(s)));
        let l = special_i64(32);
        assert!(SPECIAL_I64.iter().all(|s| l.contains(s)));
    }
}
