//! The tensor-descriptor parts a `load` of a descriptor's (or a fully bounds-checked block
//! pointer's) block carries, and an `async_copy` of it keeps: `[base, dims.., strides..,
//! offsets..]`, one of each a dim. They change no result (the load's pointers and mask are
//! exactly the block's elements and bounds); they let a back end copy the block with the
//! hardware's tensor copies (sm_90's TMA), which read a box of a tensor described by these
//! parts and fill what falls outside it with zeros.

use super::{DType, TypeCx, Value};

/// A `desc` operand list read as its parts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DescParts<'a> {
    /// The scalar pointer to element `[0, ..]` of the tensor.
    pub base: Value,
    /// The tensor's size along each dim (`i64` scalars).
    pub dims: &'a [Value],
    /// Elements between neighbours along each dim (`i64` scalars).
    pub strides: &'a [Value],
    /// The block's first element along each dim (`i32` scalars).
    pub offsets: &'a [Value],
}

/// `desc` as its parts: `None` when it is empty or not `1 + 3 * rank` values long.
pub fn desc_parts(desc: &[Value]) -> Option<DescParts<'_>> {
    let rest = desc.get(1..)?;
    if rest.is_empty() || !rest.len().is_multiple_of(3) {
        return None;
    }
    let r = rest.len() / 3;
    Some(DescParts { base: desc[0], dims: &rest[..r], strides: &rest[r..2 * r], offsets: &rest[2 * r..] })
}

/// The typing rule of a `desc` list on an access of `ptr` (named `what`): empty, or the
/// parts of a tensor of `ptr`'s pointee with one of each per dim of `ptr`.
pub(super) fn check(cx: &TypeCx<'_>, out: &mut Vec<String>, what: &str, ptr: Value, desc: &[Value]) {
    if desc.is_empty() {
        return;
    }
    let p = cx.ty(ptr);
    let rank = p.shape.rank();
    let Some(parts) = desc_parts(desc).filter(|d| d.dims.len() == rank) else {
        out.push(format!("{what} desc must be a base, then {rank} dims, {rank} strides and {rank} offsets"));
        return;
    };
    let base = cx.ty(parts.base);
    if !base.shape.is_scalar() || base.dtype != p.dtype {
        out.push(format!("{what} desc base must be one pointer of the pointers' type"));
    }
    let scalars =
        |vs: &[Value], dtype: DType| vs.iter().all(|&v| cx.ty(v).shape.is_scalar() && cx.ty(v).dtype == dtype);
    if !scalars(parts.dims, DType::I64) || !scalars(parts.strides, DType::I64) {
        out.push(format!("{what} desc dims and strides must be i64 scalars"));
    }
    if !scalars(parts.offsets, DType::I32) {
        out.push(format!("{what} desc offsets must be i32 scalars"));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_desc_list_splits_into_one_part_of_each_kind_a_dim() {
        let v: Vec<Value> = (0..7).map(Value).collect();
        let d = desc_parts(&v).unwrap();
        assert_eq!((d.base, d.dims, d.strides, d.offsets), (Value(0), &v[1..3], &v[3..5], &v[5..7]));
        assert_eq!(desc_parts(&v[..6]), None);
        assert_eq!(desc_parts(&v[..1]), None);
        assert_eq!(desc_parts(&[]), None);
    }
}
