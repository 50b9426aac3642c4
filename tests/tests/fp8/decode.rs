//! Every one of the 256 codes of each format, loaded and converted to f32, f16 and bf16,
//! against the reference decoder.

use half::{bf16, f16};
use rstest::rstest;
use rtriton::trace::KernelDef;

use crate::both;
use crate::kernels;
use crate::reference::{Decoded, E4M3, E5M2, Format, decode, expected_f32_bits};
use crate::run::Launch;

fn all_codes() -> Vec<u8> {
    (0..=255).collect()
}

/// The 16-bit result the reference gives for `code` in f16 or bf16: the exact value, and
/// the canonical NaN `0x7FFF` for every NaN (the conversion goes through f32).
fn expected_16(f: Format, code: u8, to_bits: fn(f64) -> u16) -> u16 {
    match decode(f, code) {
        Decoded::Finite(v) => to_bits(v),
        Decoded::Inf(neg) => to_bits(if neg { f64::NEG_INFINITY } else { f64::INFINITY }),
        Decoded::Nan { .. } => 0x7FFF,
    }
}

fn f16_bits(v: f64) -> u16 {
    f16::from_f64(v).to_bits()
}

fn bf16_bits(v: f64) -> u16 {
    bf16::from_f64(v).to_bits()
}

#[rstest]
#[case::e4m3(E4M3, kernels::e4m3_to_f32::cvt())]
#[case::e5m2(E5M2, kernels::e5m2_to_f32::cvt())]
fn every_code_decodes_to_f32(#[case] f: Format, #[case] def: KernelDef) {
    let codes = all_codes();
    let out = both(&def, &Launch::elementwise(vec![codes.clone()], 4 * codes.len(), codes.len()));
    for (i, &code) in codes.iter().enumerate() {
        let got = u32::from_le_bytes(out[0][4 * i..4 * i + 4].try_into().unwrap());
        assert_eq!(got, expected_f32_bits(f, code), "{} code {code:#04x} to f32: got {got:#010x}", f.name);
    }
}

#[rstest]
#[case::e4m3_f16(E4M3, kernels::e4m3_to_f16::cvt(), f16_bits)]
#[case::e4m3_bf16(E4M3, kernels::e4m3_to_bf16::cvt(), bf16_bits)]
#[case::e5m2_f16(E5M2, kernels::e5m2_to_f16::cvt(), f16_bits)]
#[case::e5m2_bf16(E5M2, kernels::e5m2_to_bf16::cvt(), bf16_bits)]
fn every_code_decodes_to_16_bit_floats(#[case] f: Format, #[case] def: KernelDef, #[case] to_bits: fn(f64) -> u16) {
    let codes = all_codes();
    let out = both(&def, &Launch::elementwise(vec![codes.clone()], 2 * codes.len(), codes.len()));
    for (i, &code) in codes.iter().enumerate() {
        let got = u16::from_le_bytes([out[0][2 * i], out[0][2 * i + 1]]);
        assert_eq!(got, expected_16(f, code, to_bits), "{} code {code:#04x} in {}: got {got:#06x}", f.name, def.name);
    }
}

#[test]
fn the_host_type_decodes_as_the_reference() {
    for code in all_codes() {
        assert_eq!(rtriton::lang::F8E4M3::from_bits(code).to_f32().to_bits(), expected_f32_bits(E4M3, code));
        assert_eq!(rtriton::lang::F8E5M2::from_bits(code).to_f32().to_bits(), expected_f32_bits(E5M2, code));
    }
}
