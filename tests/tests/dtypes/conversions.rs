//! Every conversion between the numeric dtypes (the `A -> A` row is a load and a store:
//! the round trip must keep every bit, NaN payloads included), on the interpreter and
//! the simulator, against the independent reference.

use rstest::rstest;
use rtriton::ir::ScalarType;

use crate::kernels::cvt::conversions;
use crate::reference::{convert, decode, is_nan, values};
use crate::run::{Launch, both};

/// Checks `got` (the output buffer of `to`) against the reference for `inputs` of `from`.
pub fn check(from: ScalarType, to: ScalarType, inputs: &[Vec<u8>], got: &[u8]) -> Result<(), String> {
    let w = to.size_bytes() as usize;
    for (i, x) in inputs.iter().enumerate() {
        let g = &got[i * w..(i + 1) * w];
        let want = if from == to { x.clone() } else { convert(decode(from, x), to) };
        let nan_ok = is_nan(to, &want) && is_nan(to, g);
        // Narrowing float conversions give the canonical NaN: bits must match; widening
        // ones keep the payload (checked bit for bit in the unit tests): any NaN here.
        let widening_nan = nan_ok && to.size_bytes() > from.size_bytes() && from.is_float();
        if g != want.as_slice() && !widening_nan {
            return Err(format!(
                "{from} -> {to}, element {i} ({:?}): got {g:02x?} ({:?}), want {want:02x?} ({:?})",
                decode(from, x),
                decode(to, g),
                decode(to, &want)
            ));
        }
    }
    Ok(())
}

#[rstest]
fn conversions_from_each_dtype_match_the_reference(
    #[values(
        ScalarType::I8,
        ScalarType::I16,
        ScalarType::I32,
        ScalarType::I64,
        ScalarType::U8,
        ScalarType::U32,
        ScalarType::U64,
        ScalarType::F16,
        ScalarType::BF16,
        ScalarType::F32,
        ScalarType::F64
    )]
    from: ScalarType,
) {
    let inputs = values(from);
    let bytes: Vec<u8> = inputs.concat();
    let mut failures = Vec::new();
    let mut checked = 0;
    for (_, to, def) in conversions().into_iter().filter(|(f, _, _)| *f == from) {
        let n = inputs.len();
        let out = both(&def, &Launch::elementwise(vec![bytes.clone()], n * to.size_bytes() as usize, n));
        if let Err(e) = check(from, to, &inputs, &out[0]) {
            failures.push(e);
        }
        checked += 1;
    }
    assert_eq!(checked, 11, "one conversion kernel per target dtype");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// The documented rules on single values, as a table: (from, value bits, to, result bits).
#[rstest]
#[case::f32_to_f16_tie_to_even(ScalarType::F32, 0x3F80_1000, ScalarType::F16, 0x3C00)]
#[case::f32_to_f16_tie_up_to_even(ScalarType::F32, 0x3F80_3000, ScalarType::F16, 0x3C02)]
#[case::f32_to_f16_overflow(ScalarType::F32, 0x477F_F000, ScalarType::F16, 0x7C00)]
#[case::f32_to_f16_under_overflow(ScalarType::F32, 0x477F_EFFF, ScalarType::F16, 0x7BFF)]
#[case::f32_to_f16_smallest_subnormal(ScalarType::F32, 0x3380_0000, ScalarType::F16, 0x0001)]
#[case::f32_to_f16_half_of_it_ties_to_zero(ScalarType::F32, 0x3300_0000, ScalarType::F16, 0x0000)]
#[case::f32_nan_to_f16_is_canonical(ScalarType::F32, 0xFFC0_1234, ScalarType::F16, 0x7FFF)]
#[case::f32_to_bf16_tie_to_even(ScalarType::F32, 0x3F80_8000, ScalarType::BF16, 0x3F80)]
#[case::f32_to_bf16_tie_up(ScalarType::F32, 0x3F81_8000, ScalarType::BF16, 0x3F82)]
#[case::f32_nan_to_bf16_is_canonical(ScalarType::F32, 0x7F80_0001, ScalarType::BF16, 0x7FFF)]
#[case::bf16_snan_to_f32_keeps_bits(ScalarType::BF16, 0xFF81, ScalarType::F32, 0xFF81_0000)]
#[case::f16_subnormal_to_f32(ScalarType::F16, 0x0001, ScalarType::F32, 0x3380_0000)]
#[case::f32_to_u8_saturates(ScalarType::F32, 0x4396_5999, ScalarType::U8, 255)]
#[case::negative_f32_to_u32_is_zero(ScalarType::F32, 0xC020_0000, ScalarType::U32, 0)]
#[case::f32_nan_to_i8_is_zero(ScalarType::F32, 0x7FC0_0000, ScalarType::I8, 0)]
#[case::i8_min_to_u64_sign_extends(ScalarType::I8, 0x80, ScalarType::U64, 0xFFFF_FFFF_FFFF_FF80)]
#[case::u8_max_to_i32_zero_extends(ScalarType::U8, 0xFF, ScalarType::I32, 255)]
#[case::u32_max_to_i64_zero_extends(ScalarType::U32, 0xFFFF_FFFF, ScalarType::I64, 0xFFFF_FFFF)]
#[case::u64_max_to_f32_rounds(ScalarType::U64, u64::MAX, ScalarType::F32, 0x5F80_0000)]
#[case::i32_to_i16_wraps(ScalarType::I32, 0x0001_8000, ScalarType::I16, 0x8000)]
#[case::f64_tie_to_f32_even(ScalarType::F64, 0x3FF0_0000_1000_0000, ScalarType::F32, 0x3F80_0000)]
fn single_conversions(#[case] from: ScalarType, #[case] bits: u64, #[case] to: ScalarType, #[case] want: u64) {
    let def = conversions().into_iter().find(|(f, t, _)| *f == from && *t == to).expect("a kernel").2;
    let input = bits.to_le_bytes()[..from.size_bytes() as usize].to_vec();
    let out = both(&def, &Launch::elementwise(vec![input], to.size_bytes() as usize, 1));
    assert_eq!(out[0], want.to_le_bytes()[..to.size_bytes() as usize].to_vec(), "{from} 0x{bits:x} -> {to}");
}
