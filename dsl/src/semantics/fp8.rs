//! The two 8-bit float storage formats, Triton's `float8e4nv` and `float8e5`, one code at
//! a time: decoding to `f16`/`f32` and encoding from `f32`. The interpreter converts
//! with these; the PTX back end computes the same bits with integer ops
//! (`backend/ptx/lower/fp8.rs`) and the simulator runs those, so a disagreement shows in
//! the simulator differential. The rules and where they come from are in
//! `docs/semantics.md`, "fp8".
//!
//! - `float8e4nv` (e4m3fn): 1 sign, 4 exponent bits (bias 7), 3 mantissa bits; no
//!   infinities; `S.1111.111` is NaN; largest finite 448 (`0x7E`).
//! - `float8e5` (e5m2): 1 sign, 5 exponent bits (bias 15), 2 mantissa bits, IEEE-like:
//!   `S.11111.00` is infinity, `S.11111.{01,10,11}` NaN; largest finite 57344 (`0x7B`).
//!
//! Decoding is exact. e5m2 is the high byte of an f16, so an e5m2 decodes to f16 by a
//! shift and keeps a NaN's sign and payload; an e4m3 NaN decodes to the canonical f16 NaN
//! `0x7FFF` (CUDA's `__nv_cvt_fp8_to_halfraw` rule). `f32` is the f16 widened (a NaN
//! keeps its sign and payload and becomes quiet).
//!
//! Encoding from `f32` rounds to nearest even once and saturates (PTX's
//! `cvt.rn.satfinite.{e4m3x2,e5m2x2}.f32`, which Triton emits on sm_90): a magnitude
//! that rounds past the largest finite, and an infinity, give the largest finite with
//! the sign kept; a NaN gives `0x7F` (sign clear); results below the smallest subnormal
//! round to a zero of the input's sign.

use half::f16;

pub use crate::ir::Fp8Format;

/// The code every NaN encodes to (all exponent and mantissa bits set, sign clear).
pub const FP8_NAN_CODE: u8 = 0x7F;

/// `code` decoded to the bits of an `f16` (exact; see the module doc for NaNs).
pub fn decode_to_f16_bits(format: Fp8Format, code: u8) -> u16 {
    match format {
        Fp8Format::E5M2 => u16::from(code) << 8,
        Fp8Format::E4M3 => {
            let mag = code & 0x7F;
            if format.is_nan_magnitude(mag) {
                return super::nan::CANONICAL_NAN16_BITS;
            }
            let (exp, man) = (i32::from(mag >> 3), f32::from(mag & 7));
            // value = 0.man * 2^(1 - bias) for exp 0, 1.man * 2^(exp - bias) otherwise,
            // every one exact in f16 (the smallest, 2^-9, is an f16 normal).
            let magnitude = if exp == 0 { man / 8.0 * 2f32.powi(-6) } else { (1.0 + man / 8.0) * 2f32.powi(exp - 7) };
            let bits = f16::from_f32(magnitude).to_bits();
            bits | u16::from(code & 0x80) << 8
        }
    }
}

/// `code` decoded to `f32` (exact; a NaN as the f16 of [`decode_to_f16_bits`] widened).
pub fn decode_to_f32(format: Fp8Format, code: u8) -> f32 {
    f16::from_bits(decode_to_f16_bits(format, code)).to_f32()
}

/// `x` encoded, rounded to nearest even, saturating (see the module doc).
pub fn encode_f32(format: Fp8Format, x: f32) -> u8 {
    if x.is_nan() {
        return FP8_NAN_CODE;
    }
    let sign = ((x.to_bits() >> 24) & 0x80) as u8;
    let max = format.max_finite_code();
    if x.is_infinite() {
        return sign | max;
    }
    let (m, bias) = (format.mantissa_bits() as i32, format.bias());
    let a = f64::from(x.abs());
    // The spacing of the format's values at `a`: 2^(e - m) for a normal of exponent e,
    // 2^(1 - bias - m) (the subnormal step) below the smallest normal.
    let e = if a == 0.0 { 1 - bias } else { (a.log2().floor() as i32).max(1 - bias) };
    let step = 2f64.powi(e - m);
    // `a / step` is exact in f64; round it to the nearest integer, ties to even.
    let q = a / step;
    let mut n = q.floor();
    let frac = q - n;
    if frac > 0.5 || (frac == 0.5 && n % 2.0 == 1.0) {
        n += 1.0;
    }
    let rounded = n * step;
    // Re-encode the rounded magnitude: subnormals are n steps of 2^(1 - bias - m).
    let min_normal = 2f64.powi(1 - bias);
    let code = if rounded < min_normal {
        (rounded / 2f64.powi(1 - bias - m)) as u32
    } else {
        let e = rounded.log2().floor() as i32;
        let man = (rounded / 2f64.powi(e) - 1.0) * f64::from(1u32 << m);
        (((e + bias) as u32) << m) + man as u32
    };
    sign | code.min(u32::from(max)) as u8
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_largest_finite_values_are_448_and_57344() {
        assert_eq!(decode_to_f32(Fp8Format::E4M3, 0x7E), 448.0);
        assert_eq!(decode_to_f32(Fp8Format::E5M2, 0x7B), 57344.0);
        assert_eq!(decode_to_f32(Fp8Format::E4M3, 0x01), 2f32.powi(-9));
        assert_eq!(decode_to_f32(Fp8Format::E5M2, 0x01), 2f32.powi(-16));
    }

    #[test]
    fn encoding_saturates_and_maps_nan_to_0x7f() {
        assert_eq!(encode_f32(Fp8Format::E4M3, 464.0), 0x7E);
        assert_eq!(encode_f32(Fp8Format::E4M3, f32::NEG_INFINITY), 0xFE);
        assert_eq!(encode_f32(Fp8Format::E5M2, 1e9), 0x7B);
        assert_eq!(encode_f32(Fp8Format::E5M2, -f32::NAN), 0x7F);
        assert_eq!(encode_f32(Fp8Format::E4M3, -0.0), 0x80);
    }
}
