//! Encoding: f32, f16 and bf16 to both formats, on the interpreter and the simulator.
//! Hand-written rows (worked out from the formats' definitions) for ties, subnormals,
//! the largest finite value, saturation, infinities and NaN; then every midpoint between
//! neighbouring codes and its f32 neighbours against the reference encoder.

use half::{bf16, f16};
use rtriton::trace::KernelDef;

use crate::both;
use crate::kernels;
use crate::reference::{Decoded, E4M3, E5M2, Format, decode, encode};
use crate::run::Launch;

/// `(input, e4m3 code, e5m2 code)`.
#[rustfmt::skip]
#[allow(clippy::excessive_precision, reason = "each small power of two written as its exact decimal")]
const F32_ROWS: &[(f32, u8, u8)] = &[
    (1.0, 0x38, 0x3C),
    // 1 + 1/16: an e4m3 tie between 1 and 1.125, to the even 1; nearest 1 in e5m2
    (1.0625, 0x38, 0x3C),
    // 1 + 3/16: an e4m3 tie between 1.125 and 1.25, to the even 1.25; e5m2 nearest 1.25
    (1.1875, 0x3A, 0x3D),
    // e5m2 ties: 1.125 between 1 and 1.25 (to 1), 1.375 between 1.25 and 1.5 (to 1.5)
    (1.125, 0x39, 0x3C),
    (1.375, 0x3B, 0x3E),
    (-1.375, 0xBB, 0xBE),
    // the largest e4m3; 464 is the tie between 448 and 480 (saturates to 448)
    (448.0, 0x7E, 0x5F),
    (464.0, 0x7E, 0x5F),
    // 480 is past e4m3's range (saturates); an e5m2 tie between 448 and 512, to 512
    (480.0, 0x7E, 0x60),
    (-1.0e6, 0xFE, 0xFB),
    // the largest e5m2; 61440 is the tie between 57344 and 65536 (saturates)
    (57344.0, 0x7E, 0x7B),
    (61440.0, 0x7E, 0x7B),
    (-61440.0, 0xFE, 0xFB),
    (f32::MAX, 0x7E, 0x7B),
    (f32::INFINITY, 0x7E, 0x7B),
    (f32::NEG_INFINITY, 0xFE, 0xFB),
    (0.0, 0x00, 0x00),
    (-0.0, 0x80, 0x80),
    // 2^-9, the smallest e4m3 subnormal; 2^-10 ties to 0; 3 * 2^-10 ties to 2 * 2^-9
    (0.001953125, 0x01, 0x18),
    (0.0009765625, 0x00, 0x14),
    (-0.0009765625, 0x80, 0x94),
    (0.0029296875, 0x02, 0x1A),
    // 7 * 2^-9 the largest e4m3 subnormal, 2^-6 the smallest normal; 15 * 2^-10 ties up
    (0.013671875, 0x07, 0x23),
    (0.015625, 0x08, 0x24),
    (0.0146484375, 0x08, 0x24),
    // 2^-16, the smallest e5m2 subnormal; 2^-17 ties to 0; 3 * 2^-17 ties to 2 * 2^-16
    (1.52587890625e-5, 0x00, 0x01),
    (7.62939453125e-6, 0x00, 0x00),
    (2.288818359375e-5, 0x00, 0x02),
    // 3 * 2^-16 the largest e5m2 subnormal, 2^-14 the smallest normal
    (4.57763671875e-5, 0x00, 0x03),
    (6.103515625e-5, 0x00, 0x04),
    // an f32 subnormal keeps only its sign
    (-1.0e-45, 0x80, 0x80),
];

/// A few NaNs: every one encodes to 0x7F (sign dropped).
const NANS: [u32; 4] = [0x7FC0_0000, 0xFFC0_0000, 0x7F80_0001, 0xFFFF_FFFF];

fn run_codes(def: &KernelDef, bytes: Vec<u8>, n: usize) -> Vec<u8> {
    both(def, &Launch::elementwise(vec![bytes], n, n)).remove(0)
}

fn f32_bytes(xs: &[f32]) -> Vec<u8> {
    xs.iter().flat_map(|x| x.to_le_bytes()).collect()
}

#[test]
fn f32_rows_encode_as_the_table_says() {
    let mut xs: Vec<f32> = F32_ROWS.iter().map(|r| r.0).collect();
    xs.extend(NANS.iter().map(|&b| f32::from_bits(b)));
    for (def, column) in [(kernels::f32_to_e4m3::cvt(), 0), (kernels::f32_to_e5m2::cvt(), 1)] {
        let got = run_codes(&def, f32_bytes(&xs), xs.len());
        for (i, x) in xs.iter().enumerate() {
            let want = F32_ROWS.get(i).map_or(0x7F, |r| if column == 0 { r.1 } else { r.2 });
            assert_eq!(got[i], want, "{}: {x:e} ({:#010x}) gave {:#04x}", def.name, x.to_bits(), got[i]);
        }
    }
}

#[test]
fn the_table_agrees_with_the_reference_encoder() {
    for &(x, e4, e5) in F32_ROWS {
        assert_eq!(encode(E4M3, f64::from(x)), e4, "{x:e} e4m3");
        assert_eq!(encode(E5M2, f64::from(x)), e5, "{x:e} e5m2");
    }
}

/// Every midpoint between neighbouring finite codes, the f32 values either side of it,
/// each code's value, values past the largest finite one, with both signs.
fn sweep(f: Format) -> Vec<f32> {
    let mut values: Vec<f64> =
        (0u8..0x80).filter_map(|c| if let Decoded::Finite(v) = decode(f, c) { Some(v) } else { None }).collect();
    values.sort_by(f64::total_cmp);
    let mut xs = Vec::new();
    for w in values.windows(2) {
        let mid = ((w[0] + w[1]) / 2.0) as f32;
        xs.extend([w[0] as f32, mid, f32::from_bits(mid.to_bits() - 1), f32::from_bits(mid.to_bits() + 1)]);
    }
    let top = *values.last().unwrap();
    xs.extend([top * 1.03, top * 1.0625, top * 1.07, top * 4.0].map(|v| v as f32));
    let negatives: Vec<f32> = xs.iter().map(|x| -x).collect();
    xs.extend(negatives);
    xs
}

#[test]
fn midpoints_and_their_neighbours_encode_as_the_reference() {
    for (f, def) in [(E4M3, kernels::f32_to_e4m3::cvt()), (E5M2, kernels::f32_to_e5m2::cvt())] {
        let xs = sweep(f);
        let got = run_codes(&def, f32_bytes(&xs), xs.len());
        for (i, x) in xs.iter().enumerate() {
            let want = encode(f, f64::from(*x));
            assert_eq!(
                got[i],
                want,
                "{}: {x:e} ({:#010x}) gave {:#04x}, want {want:#04x}",
                f.name,
                x.to_bits(),
                got[i]
            );
        }
    }
}

/// `(input, e4m3 code, e5m2 code)` from f16: one rounding from the f16 value.
#[rustfmt::skip]
const F16_ROWS: &[(u16, u8, u8)] = &[
    (0x3C40, 0x38, 0x3C), // 1.0625
    (0x3CC0, 0x3A, 0x3D), // 1.1875
    (0x7BFF, 0x7E, 0x7B), // 65504, the largest f16: saturates in both
    (0x5F00, 0x7E, 0x5F), // 448
    (0x7C00, 0x7E, 0x7B), // +inf
    (0xFC00, 0xFE, 0xFB), // -inf
    (0x7E00, 0x7F, 0x7F), // NaN
    (0xFD01, 0x7F, 0x7F), // a negative signalling NaN
    (0x0100, 0x00, 0x01), // 2^-16
    (0x0001, 0x00, 0x00), // 2^-24, the smallest f16 subnormal
    (0x8001, 0x80, 0x80),
    (0x1400, 0x00, 0x14), // 2^-10
    (0x1A00, 0x02, 0x1A), // 3 * 2^-10
];

/// `(input, e4m3 code, e5m2 code)` from bf16.
#[rustfmt::skip]
const BF16_ROWS: &[(u16, u8, u8)] = &[
    (0x3F88, 0x38, 0x3C), // 1.0625
    (0x3F98, 0x3A, 0x3D), // 1.1875
    (0x43E0, 0x7E, 0x5F), // 448
    (0x43F0, 0x7E, 0x60), // 480
    (0x7F7F, 0x7E, 0x7B), // the largest bf16
    (0xFF80, 0xFE, 0xFB), // -inf
    (0x7FC0, 0x7F, 0x7F), // NaN
    (0x3A80, 0x00, 0x14), // 2^-10
    (0x8000, 0x80, 0x80), // -0
];

#[test]
fn f16_and_bf16_rows_encode_as_the_tables_say() {
    let cases = [
        (kernels::f16_to_e4m3::cvt(), F16_ROWS, 0),
        (kernels::f16_to_e5m2::cvt(), F16_ROWS, 1),
        (kernels::bf16_to_e4m3::cvt(), BF16_ROWS, 0),
        (kernels::bf16_to_e5m2::cvt(), BF16_ROWS, 1),
    ];
    for (def, rows, column) in cases {
        let bytes: Vec<u8> = rows.iter().flat_map(|r| r.0.to_le_bytes()).collect();
        let got = run_codes(&def, bytes, rows.len());
        for (i, &(bits, e4, e5)) in rows.iter().enumerate() {
            let want = if column == 0 { e4 } else { e5 };
            assert_eq!(got[i], want, "{}: input {bits:#06x} gave {:#04x}", def.name, got[i]);
        }
    }
}

#[test]
fn the_16_bit_tables_agree_with_the_reference_encoder() {
    for &(bits, e4, e5) in F16_ROWS {
        let x = f16::from_bits(bits).to_f64();
        assert_eq!((encode(E4M3, x), encode(E5M2, x)), (e4, e5), "f16 {bits:#06x}");
    }
    for &(bits, e4, e5) in BF16_ROWS {
        let x = bf16::from_bits(bits).to_f64();
        assert_eq!((encode(E4M3, x), encode(E5M2, x)), (e4, e5), "bf16 {bits:#06x}");
    }
}

#[test]
fn fp8_to_fp8_goes_through_f32() {
    let codes: Vec<u8> = (0..=255).collect();
    for (from, to, def) in [(E4M3, E5M2, kernels::e4m3_to_e5m2::cvt()), (E5M2, E4M3, kernels::e5m2_to_e4m3::cvt())] {
        let got = run_codes(&def, codes.clone(), codes.len());
        for &c in &codes {
            let want = match decode(from, c) {
                Decoded::Finite(v) => encode(to, v),
                Decoded::Inf(neg) => encode(to, if neg { f64::NEG_INFINITY } else { f64::INFINITY }),
                Decoded::Nan { .. } => 0x7F,
            };
            assert_eq!(got[usize::from(c)], want, "{}: code {c:#04x}", def.name);
        }
    }
}
