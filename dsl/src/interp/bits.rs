//! Bitcasts of whole blocks: the same bits read as another dtype of the same width.

use crate::ir::ScalarType;

use super::value::{Data, Trap, unsupported};

/// The raw bits of every element (`i1` as 0 or 1) and their width.
pub(crate) fn raw_bits(v: &Data) -> Result<(Vec<u64>, u32), Trap> {
    Ok(match v {
        Data::Bool(x) => (x.iter().map(|&b| u64::from(b)).collect(), 1),
        Data::I32(x) => (x.iter().map(|&i| u64::from(i as u32)).collect(), 32),
        Data::I64(x) => (x.iter().map(|&i| i as u64).collect(), 64),
        Data::F32(x) => (x.iter().map(|&f| u64::from(f.to_bits())).collect(), 32),
        Data::I8(x) => (x.iter().map(|&i| u64::from(i as u8)).collect(), 8),
        Data::I16(x) => (x.iter().map(|&i| u64::from(i as u16)).collect(), 16),
        Data::U8(x) => (x.iter().map(|&i| u64::from(i)).collect(), 8),
        Data::U32(x) => (x.iter().map(|&i| u64::from(i)).collect(), 32),
        Data::U64(x) => (x.clone(), 64),
        Data::F16(x) => (x.iter().map(|&f| u64::from(f.to_bits())).collect(), 16),
        Data::BF16(x) => (x.iter().map(|&f| u64::from(f.to_bits())).collect(), 16),
        Data::F64(x) => (x.iter().map(|&f| f.to_bits()).collect(), 64),
        Data::F8E4M3(x) => (x.iter().map(|&f| u64::from(f.to_bits())).collect(), 8),
        Data::F8E5M2(x) => (x.iter().map(|&f| u64::from(f.to_bits())).collect(), 8),
        Data::Ptr(_) => return unsupported("bitcast of a pointer"),
    })
}

/// The same bits read as `to` (Triton's `cast(x, to, bitcast=True)`): every bit is kept,
/// NaN payloads and signed zeros included. The widths must agree (the verifier checks).
pub(crate) fn bitcast(v: &Data, to: ScalarType) -> Result<Data, Trap> {
    let (bits, width) = raw_bits(v)?;
    if width != to.bit_width() {
        return unsupported(format!("bitcast of {} ({width} bits) to {to}", v.kind()));
    }
    Ok(from_bits(bits, to))
}

/// Elements of `to` from their raw bits (the low `to.bit_width()` bits of each).
pub(crate) fn from_bits(bits: Vec<u64>, to: ScalarType) -> Data {
    match to {
        ScalarType::Bool => Data::Bool(bits.iter().map(|&b| b != 0).collect()),
        ScalarType::I32 => Data::I32(bits.iter().map(|&b| b as u32 as i32).collect()),
        ScalarType::I64 => Data::I64(bits.iter().map(|&b| b as i64).collect()),
        ScalarType::F32 => Data::F32(bits.iter().map(|&b| f32::from_bits(b as u32)).collect()),
        ScalarType::I8 => Data::I8(bits.iter().map(|&b| b as u8 as i8).collect()),
        ScalarType::I16 => Data::I16(bits.iter().map(|&b| b as u16 as i16).collect()),
        ScalarType::U8 => Data::U8(bits.iter().map(|&b| b as u8).collect()),
        ScalarType::U32 => Data::U32(bits.iter().map(|&b| b as u32).collect()),
        ScalarType::U64 => Data::U64(bits),
        ScalarType::F16 => Data::F16(bits.iter().map(|&b| half::f16::from_bits(b as u16)).collect()),
        ScalarType::BF16 => Data::BF16(bits.iter().map(|&b| half::bf16::from_bits(b as u16)).collect()),
        ScalarType::F64 => Data::F64(bits.iter().map(|&b| f64::from_bits(b)).collect()),
        ScalarType::F8E4M3 => {
            Data::F8E4M3(bits.iter().map(|&b| crate::semantics::fp8_types::F8E4M3::from_bits(b as u8)).collect())
        }
        ScalarType::F8E5M2 => {
            Data::F8E5M2(bits.iter().map(|&b| crate::semantics::fp8_types::F8E5M2::from_bits(b as u8)).collect())
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bitcast_keeps_every_bit() {
        let x = Data::F32(vec![-0.0, f32::from_bits(0x7FC0_1234), f32::NEG_INFINITY, f32::from_bits(1)]);
        let i = bitcast(&x, ScalarType::I32).unwrap();
        assert_eq!(i, Data::I32(vec![i32::MIN, 0x7FC0_1234, 0xFF80_0000u32 as i32, 1]));
        let back = bitcast(&i, ScalarType::F32).unwrap();
        let Data::F32(b) = back else { panic!("f32 expected") };
        assert_eq!(b.iter().map(|f| f.to_bits()).collect::<Vec<_>>(), [0x8000_0000, 0x7FC0_1234, 0xFF80_0000, 1]);
        assert!(bitcast(&Data::I64(vec![1]), ScalarType::F32).is_err());
    }
}
