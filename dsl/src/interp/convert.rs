//! Block-level casts: every element through [`convert`], the one conversion rule the
//! simulator's `cvt` runs too.

use half::{bf16, f16};

use crate::ir::{Fp8Format, ScalarType};
use crate::semantics::convert::{Elem, convert};
use crate::semantics::fp8_types::{F8E4M3, F8E5M2};

use super::value::{Data, Trap, on_data, unsupported};

impl Data {
    /// Element `i` as a conversion reads it (`None` for pointers).
    fn elem(&self, i: usize) -> Option<Elem> {
        Some(match self {
            Data::Bool(v) => Elem::Bool(v[i]),
            Data::I8(v) => Elem::Int(v[i].into()),
            Data::I16(v) => Elem::Int(v[i].into()),
            Data::I32(v) => Elem::Int(v[i].into()),
            Data::I64(v) => Elem::Int(v[i].into()),
            Data::U8(v) => Elem::Int(v[i].into()),
            Data::U32(v) => Elem::Int(v[i].into()),
            Data::U64(v) => Elem::Int(v[i].into()),
            Data::F16(v) => Elem::F16(v[i]),
            Data::BF16(v) => Elem::BF16(v[i]),
            Data::F32(v) => Elem::F32(v[i]),
            Data::F64(v) => Elem::F64(v[i]),
            Data::F8E4M3(v) => Elem::Fp8(Fp8Format::E4M3, v[i].to_bits()),
            Data::F8E5M2(v) => Elem::Fp8(Fp8Format::E5M2, v[i].to_bits()),
            Data::Ptr(_) => return None,
        })
    }
}

/// The code of an fp8 element (0 for any other, which `convert` never gives for an fp8
/// target).
fn fp8_code(x: Elem) -> u8 {
    if let Elem::Fp8(_, c) = x { c } else { 0 }
}

/// A block of `to` from converted elements (each already of `to`'s kind).
fn collect(to: ScalarType, elems: impl Iterator<Item = Elem>) -> Data {
    fn ints<T>(e: impl Iterator<Item = Elem>, f: impl Fn(i128) -> T) -> Vec<T> {
        e.map(|x| if let Elem::Int(i) = x { f(i) } else { f(0) }).collect()
    }
    match to {
        ScalarType::Bool => Data::Bool(elems.map(|x| matches!(x, Elem::Bool(true))).collect()),
        ScalarType::I8 => Data::I8(ints(elems, |i| i as i8)),
        ScalarType::I16 => Data::I16(ints(elems, |i| i as i16)),
        ScalarType::I32 => Data::I32(ints(elems, |i| i as i32)),
        ScalarType::I64 => Data::I64(ints(elems, |i| i as i64)),
        ScalarType::U8 => Data::U8(ints(elems, |i| i as u8)),
        ScalarType::U32 => Data::U32(ints(elems, |i| i as u32)),
        ScalarType::U64 => Data::U64(ints(elems, |i| i as u64)),
        ScalarType::F16 => Data::F16(elems.map(|x| if let Elem::F16(f) = x { f } else { f16::ZERO }).collect()),
        ScalarType::BF16 => Data::BF16(elems.map(|x| if let Elem::BF16(f) = x { f } else { bf16::ZERO }).collect()),
        ScalarType::F32 => Data::F32(elems.map(|x| if let Elem::F32(f) = x { f } else { 0.0 }).collect()),
        ScalarType::F64 => Data::F64(elems.map(|x| if let Elem::F64(f) = x { f } else { 0.0 }).collect()),
        ScalarType::F8E4M3 => Data::F8E4M3(elems.map(|x| F8E4M3::from_bits(fp8_code(x))).collect()),
        ScalarType::F8E5M2 => Data::F8E5M2(elems.map(|x| F8E5M2::from_bits(fp8_code(x))).collect()),
    }
}

/// Converts every element of `v` to `to`.
pub(crate) fn cast_data(v: &Data, to: ScalarType) -> Result<Data, Trap> {
    if matches!(v, Data::Ptr(_)) {
        return unsupported("cast of a pointer");
    }
    let n = on_data!(v, x => x.len());
    Ok(collect(to, (0..n).filter_map(|i| v.elem(i)).map(|e| convert(e, to))))
}
