//! The CPU reference for conversions, written independently of `rtriton::semantics::convert`
//! with Rust's `as` (which truncates and saturates float to int, NaN to 0, and rounds to
//! nearest even) and the `half` crate (round to nearest even), and the special values of
//! every dtype.

use half::{bf16, f16};
use rtriton::ir::ScalarType;

/// One value of a dtype, decoded from its bytes.
#[derive(Clone, Copy, Debug)]
pub enum V {
    I(i128),
    H(f16),
    B(bf16),
    F(f32),
    D(f64),
}

pub fn decode(t: ScalarType, b: &[u8]) -> V {
    let n = t.size_bytes() as usize;
    let mut w = [0u8; 8];
    w[..n].copy_from_slice(&b[..n]);
    let u = u64::from_le_bytes(w);
    match t {
        ScalarType::I8 => V::I((u as u8 as i8).into()),
        ScalarType::I16 => V::I((u as u16 as i16).into()),
        ScalarType::I32 => V::I((u as u32 as i32).into()),
        ScalarType::I64 => V::I((u as i64).into()),
        ScalarType::U8 | ScalarType::U32 | ScalarType::U64 | ScalarType::Bool => V::I(u.into()),
        ScalarType::F16 => V::H(f16::from_bits(u as u16)),
        ScalarType::BF16 => V::B(bf16::from_bits(u as u16)),
        ScalarType::F32 => V::F(f32::from_bits(u as u32)),
        ScalarType::F64 => V::D(f64::from_bits(u)),
        ScalarType::F8E4M3 | ScalarType::F8E5M2 => unreachable!("fp8 is not in this matrix: tests/tests/fp8 checks it"),
    }
}

/// The bytes of `v` converted to `to` (the documented rules: f16/bf16 go through f32;
/// narrowing float conversions give the canonical NaN).
pub fn convert(v: V, to: ScalarType) -> Vec<u8> {
    let f = match v {
        V::I(i) => return from_int(i, to),
        V::H(h) => h.to_f64(),
        V::B(b) => b.to_f64(),
        V::F(x) => f64::from(x),
        V::D(d) => d,
    };
    if let V::D(d) = v
        && matches!(to, ScalarType::F16 | ScalarType::BF16)
    {
        // through f32: two roundings
        return convert(V::F(if d.is_nan() { f32::NAN } else { d as f32 }), to);
    }
    match to {
        ScalarType::I8 => (f as i8).to_le_bytes().to_vec(),
        ScalarType::I16 => (f as i16).to_le_bytes().to_vec(),
        ScalarType::I32 => (f as i32).to_le_bytes().to_vec(),
        ScalarType::I64 => (f as i64).to_le_bytes().to_vec(),
        ScalarType::U8 => (f as u8).to_le_bytes().to_vec(),
        ScalarType::U32 => (f as u32).to_le_bytes().to_vec(),
        ScalarType::U64 => (f as u64).to_le_bytes().to_vec(),
        ScalarType::F16 if f.is_nan() => 0x7FFFu16.to_le_bytes().to_vec(),
        ScalarType::BF16 if f.is_nan() => 0x7FFFu16.to_le_bytes().to_vec(),
        ScalarType::F16 => f16::from_f32(f as f32).to_le_bytes().to_vec(),
        ScalarType::BF16 => bf16::from_f32(f as f32).to_le_bytes().to_vec(),
        ScalarType::F32 if f.is_nan() && matches!(v, V::D(_)) => 0x7FFF_FFFFu32.to_le_bytes().to_vec(),
        ScalarType::F32 => (f as f32).to_le_bytes().to_vec(),
        ScalarType::F64 => f.to_le_bytes().to_vec(),
        ScalarType::Bool => vec![u8::from(f != 0.0)],
        ScalarType::F8E4M3 | ScalarType::F8E5M2 => unreachable!("fp8 is not in this matrix: tests/tests/fp8 checks it"),
    }
}

fn from_int(i: i128, to: ScalarType) -> Vec<u8> {
    match to {
        ScalarType::I8 => (i as i8).to_le_bytes().to_vec(),
        ScalarType::I16 => (i as i16).to_le_bytes().to_vec(),
        ScalarType::I32 => (i as i32).to_le_bytes().to_vec(),
        ScalarType::I64 => (i as i64).to_le_bytes().to_vec(),
        ScalarType::U8 => (i as u8).to_le_bytes().to_vec(),
        ScalarType::U32 => (i as u32).to_le_bytes().to_vec(),
        ScalarType::U64 => (i as u64).to_le_bytes().to_vec(),
        ScalarType::F16 => f16::from_f32(i as f32).to_le_bytes().to_vec(),
        ScalarType::BF16 => bf16::from_f32(i as f32).to_le_bytes().to_vec(),
        ScalarType::F32 => (i as f32).to_le_bytes().to_vec(),
        ScalarType::F64 => (i as f64).to_le_bytes().to_vec(),
        ScalarType::Bool => vec![u8::from(i != 0)],
        ScalarType::F8E4M3 | ScalarType::F8E5M2 => unreachable!("fp8 is not in this matrix: tests/tests/fp8 checks it"),
    }
}

/// Whether the bytes of `t` hold a NaN.
pub fn is_nan(t: ScalarType, b: &[u8]) -> bool {
    match decode(t, b) {
        V::H(h) => h.is_nan(),
        V::B(x) => x.is_nan(),
        V::F(x) => x.is_nan(),
        V::D(x) => x.is_nan(),
        V::I(_) => false,
    }
}

/// The integers every integer dtype is tested with (each wrapped to the dtype): zero,
/// ±1, the extremes of every width, values one past them, ties of no kind.
const INTS: [i128; 26] = [
    0,
    1,
    -1,
    2,
    127,
    128,
    -128,
    -129,
    255,
    256,
    300,
    -300,
    32767,
    32768,
    -32769,
    65535,
    2049,
    16_777_217,
    i32::MAX as i128,
    i32::MIN as i128,
    u32::MAX as i128,
    (1 << 40) | 3,
    (1 << 53) | 1,
    i64::MAX as i128,
    i64::MIN as i128,
    u64::MAX as i128,
];

/// f32 bit patterns: signed zeros, ±1, halves (ties for float to int truncation), the
/// f16 and bf16 rounding ties (1 + 2^-11, 1 + 3 * 2^-11, 1 + 2^-8, 1 + 3 * 2^-8), the f16
/// overflow threshold (65504, 65519.996, 65520), f16 subnormals (2^-24, 2^-25, 3 * 2^-26),
/// an f32 subnormal, values past every integer range, infinities, NaNs with payloads and
/// a signalling NaN, the extremes.
pub const F32_BITS: [u32; 34] = [
    0x0000_0000,
    0x8000_0000,
    0x3F80_0000,
    0xBF80_0000,
    0x4020_0000, // 2.5
    0xC020_0000, // -2.5
    0x3F00_0000, // 0.5
    0x3F80_1000, // 1 + 2^-11
    0x3F80_3000, // 1 + 3 * 2^-11
    0x3F80_8000, // 1 + 2^-8
    0x3F81_8000, // 1 + 3 * 2^-8
    0x477F_E000, // 65504
    0x477F_EFFF, // just under 65520
    0x477F_F000, // 65520
    0x3380_0000, // 2^-24
    0x3300_0000, // 2^-25
    0x3340_0000, // 3 * 2^-26
    0x0000_0001, // smallest f32 subnormal
    0x4F80_0000, // 2^32
    0x5EFF_FFFF, // near 2^63 (9.22e18)
    0x5F80_0000, // 2^64
    0xCF00_0000, // -2^31
    0x4396_5999, // 300.7
    0xC301_0000, // -129
    0x437F_8000, // 255.5
    0x7F80_0000,
    0xFF80_0000,
    0x7FC0_0000,
    0xFFC0_1234,
    0x7F80_0001,
    0x7F7F_FFFF,
    0xFF7F_FFFF,
    0x4B80_0001, // 16777218: 2^24 + 2
    0x4EFF_FFFF, // just under 2^31
];

/// The test values of `t`, as bytes: the integers wrapped to the type; the f32 patterns
/// for f32; for f64 those values widened plus f64-only ones (an f32 rounding tie, values
/// past f32's range, an f64 NaN payload); for f16 and bf16 their own special patterns.
pub fn values(t: ScalarType) -> Vec<Vec<u8>> {
    match t {
        ScalarType::F32 => F32_BITS.iter().map(|b| b.to_le_bytes().to_vec()).collect(),
        ScalarType::F64 => {
            let mut v: Vec<f64> = F32_BITS.iter().map(|&b| f64::from(f32::from_bits(b))).collect();
            v.extend([1.0 + 2f64.powi(-24), 1.0 + 3.0 * 2f64.powi(-24), 1e300, -1e300, 5e-324, 1e-40]);
            let mut out: Vec<Vec<u8>> = v.iter().filter(|x| !x.is_nan()).map(|x| x.to_le_bytes().to_vec()).collect();
            out.push(0x7FF8_0000_0000_1234u64.to_le_bytes().to_vec());
            out.push(0xFFF0_0000_0000_0001u64.to_le_bytes().to_vec());
            out
        }
        ScalarType::F16 => [
            0x0000u16, 0x8000, 0x0001, 0x03FF, 0x0400, 0x3C00, 0xBC00, 0x3C01, 0x4100, 0xC100, 0x7BFF, 0xFBFF, 0x5BF8,
            0xD800, 0x7C00, 0xFC00, 0x7E00, 0x7C01, 0xFE12, 0x3555,
        ]
        .iter()
        .map(|b| b.to_le_bytes().to_vec())
        .collect(),
        ScalarType::BF16 => [
            0x0000u16, 0x8000, 0x0001, 0x007F, 0x3F80, 0xBF80, 0x3F81, 0x4020, 0xC020, 0x7F7F, 0xFF7F, 0x437F, 0xC300,
            0x4F00, 0x5F80, 0x7F80, 0xFF80, 0x7FC0, 0x7F81, 0xFFC1,
        ]
        .iter()
        .map(|b| b.to_le_bytes().to_vec())
        .collect(),
        // integer types: every value of INTS, wrapped
        t => INTS.iter().map(|&i| from_int(i, t)).collect(),
    }
}
