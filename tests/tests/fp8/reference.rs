//! An independent CPU model of the two formats, written from their definitions (sign,
//! exponent, mantissa, bias) with f64 arithmetic and a search over the codes: it shares
//! nothing with `rtriton::semantics::fp8`, whose bit tricks it checks.

/// One format's parameters.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Format {
    pub name: &'static str,
    pub exp_bits: u32,
    pub man_bits: u32,
    pub bias: i32,
    /// e5m2 has IEEE infinities and NaNs at exponent all ones; e4m3fn has only the NaN
    /// `S.1111.111`.
    pub ieee_specials: bool,
}

pub const E4M3: Format = Format { name: "float8e4nv", exp_bits: 4, man_bits: 3, bias: 7, ieee_specials: false };
pub const E5M2: Format = Format { name: "float8e5", exp_bits: 5, man_bits: 2, bias: 15, ieee_specials: true };

/// What a code means.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Decoded {
    Finite(f64),
    Inf(bool),
    /// A NaN: its sign bit and mantissa bits.
    Nan {
        negative: bool,
        mantissa: u32,
    },
}

pub fn decode(f: Format, code: u8) -> Decoded {
    let negative = code & 0x80 != 0;
    let exp = u32::from(code >> f.man_bits) & ((1 << f.exp_bits) - 1);
    let man = u32::from(code) & ((1 << f.man_bits) - 1);
    let exp_max = (1 << f.exp_bits) - 1;
    if f.ieee_specials && exp == exp_max {
        return if man == 0 { Decoded::Inf(negative) } else { Decoded::Nan { negative, mantissa: man } };
    }
    if !f.ieee_specials && exp == exp_max && man == (1 << f.man_bits) - 1 {
        return Decoded::Nan { negative, mantissa: man };
    }
    let frac = f64::from(man) / f64::from(1u32 << f.man_bits);
    let magnitude = if exp == 0 { frac * 2f64.powi(1 - f.bias) } else { (1.0 + frac) * 2f64.powi(exp as i32 - f.bias) };
    Decoded::Finite(if negative { -magnitude } else { magnitude })
}

/// The f32 bits rtriton documents for a decoded code (`docs/semantics.md`, "fp8"): exact
/// for numbers; an e4m3 NaN is the canonical f16 NaN widened, `0x7FFFE000`; an e5m2 NaN
/// keeps its sign and mantissa, quiet bit set.
pub fn expected_f32_bits(f: Format, code: u8) -> u32 {
    match decode(f, code) {
        Decoded::Finite(v) => (v as f32).to_bits(),
        Decoded::Inf(neg) => if neg { f32::NEG_INFINITY } else { f32::INFINITY }.to_bits(),
        Decoded::Nan { negative, mantissa } => {
            if f.ieee_specials {
                (u32::from(negative) << 31) | 0x7FC0_0000 | mantissa << (23 - f.man_bits)
            } else {
                0x7FFF_E000
            }
        }
    }
}

/// `x` encoded: NaN is `0x7F`; otherwise the finite code nearest to `x` (ties to the code
/// with an even mantissa), which saturates everything past the largest finite value,
/// infinities included; the sign bit is `x`'s.
pub fn encode(f: Format, x: f64) -> u8 {
    if x.is_nan() {
        return 0x7F;
    }
    let sign = if x.is_sign_negative() { 0x80 } else { 0 };
    let a = x.abs();
    // Saturation, said outright: far past the range every code is equally far in f64.
    if a >= max_finite(f) {
        let max = (0u8..0x80).find(|&c| decode(f, c) == Decoded::Finite(max_finite(f))).expect("the largest code");
        return sign | max;
    }
    let mut best: Option<(u8, f64)> = None;
    for code in 0u8..0x80 {
        let Decoded::Finite(v) = decode(f, code) else { continue };
        let d = (v - a).abs();
        best = match best {
            Some((c, bd)) if bd < d || (bd == d && c % 2 == 0) => Some((c, bd)),
            _ => Some((code, d)),
        };
    }
    sign | best.expect("a finite code").0
}

/// The largest finite value.
pub fn max_finite(f: Format) -> f64 {
    (0u8..0x80).filter_map(|c| if let Decoded::Finite(v) = decode(f, c) { Some(v) } else { None }).fold(0.0, f64::max)
}
