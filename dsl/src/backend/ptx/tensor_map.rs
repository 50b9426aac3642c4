//! The tensor maps of sm_90's tensor copies (TMA): what the host encodes before a launch
//! (`cuTensorMapEncodeTiled`) and passes as a 128-byte kernel parameter, one per staging
//! ring copied through a tensor descriptor (`lower/tma.rs`) and one per store tensor
//! copies write (`lower/tma_store.rs`).
//!
//! A [`TensorMap`] is the recipe: which kernel parameters hold the tensor's base, sizes
//! and strides (or the constants specialization made of them), the element type, the box
//! one copy moves and its shared-memory swizzle. [`TensorMap::resolve`] applies it to a
//! launch's arguments, checking the hardware's rules, so the runtime's encoding and the
//! simulator's model of the copies read the same numbers.

use crate::ir::ScalarType;
use crate::spec::ArgValue;

/// Where one of a tensor map's numbers comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Extent {
    /// The integer kernel parameter of this index.
    Param(usize),
    /// A constant of the compiled kernel (a literal, or an argument specialized to 1).
    Const(i64),
}

/// One tensor map of a compiled kernel: the parameters it is encoded from, dims listed
/// outermost first as the language lists them (the driver's order is the reverse).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct TensorMap {
    /// The element type (`f16` and `bf16` for a ring's copies; `f32` too for a store's).
    pub elem: ScalarType,
    /// The pointer parameter holding the tensor's element `[0, ..]`.
    pub base: usize,
    /// The tensor's size along each dim.
    pub dims: Vec<Extent>,
    /// Elements between neighbours along each dim (the last is 1).
    pub strides: Vec<Extent>,
    /// The box one copy moves, each dim at most 256; the innermost is `swizzle` bytes.
    pub box_dims: Vec<u32>,
    /// The shared-memory swizzle span in bytes (32, 64 or 128): 16-byte chunk `c` of the
    /// box's row `r` lands at chunk `c ^ ((r * row_bytes / 128) % (swizzle / 16))`, as
    /// `wgmma`'s swizzled layouts read it.
    pub swizzle: u32,
}

/// A tensor map applied to a launch's arguments: what `cuTensorMapEncodeTiled` takes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ResolvedMap {
    pub address: u64,
    /// Sizes, outermost first.
    pub dims: Vec<u64>,
    /// Byte strides of every dim but the innermost, outermost first.
    pub byte_strides: Vec<u64>,
    pub elem_bytes: u64,
}

/// The largest size of a dim and the largest byte stride the hardware takes.
const MAX_DIM: u64 = 1 << 32;
const MAX_BYTE_STRIDE: u64 = 1 << 40;

impl TensorMap {
    /// The map's numbers for one launch. An error (naming the rule) where the tensor cannot
    /// be described to the hardware: a size below 1, a base or byte stride that is not a
    /// multiple of 16, or a number past the hardware's range.
    pub fn resolve(&self, args: &[ArgValue]) -> Result<ResolvedMap, String> {
        let int = |e: &Extent, what: &str| -> Result<i64, String> {
            match *e {
                Extent::Const(v) => Ok(v),
                Extent::Param(i) => match args.get(i) {
                    Some(ArgValue::Int(v)) => Ok(*v),
                    _ => Err(format!("the {what} is parameter {i}, which is not an integer argument")),
                },
            }
        };
        let address = match args.get(self.base) {
            Some(ArgValue::Ptr(a)) => *a,
            _ => return Err(format!("the base is parameter {}, which is not a pointer argument", self.base)),
        };
        if !address.is_multiple_of(16) {
            return Err(format!("the base address 0x{address:x} is not a multiple of 16 bytes"));
        }
        let elem_bytes = self.elem.size_bytes();
        let mut dims = Vec::with_capacity(self.dims.len());
        for (d, e) in self.dims.iter().enumerate() {
            let v = int(e, "size")?;
            if v < 1 || v as u64 > MAX_DIM {
                return Err(format!("the size along dim {d} is {v}; a tensor copy needs 1 to 2^32"));
            }
            dims.push(v as u64);
        }
        let mut byte_strides = Vec::with_capacity(self.strides.len().saturating_sub(1));
        let last = self.strides.len() - 1;
        for (d, e) in self.strides.iter().enumerate() {
            let v = int(e, "stride")?;
            if d == last {
                if v != 1 {
                    return Err(format!("the stride along the last dim is {v}; a tensor copy needs 1"));
                }
                continue;
            }
            let bytes = (v as u64).wrapping_mul(elem_bytes);
            if v < 1 || !bytes.is_multiple_of(16) || bytes >= MAX_BYTE_STRIDE {
                return Err(format!(
                    "the stride along dim {d} is {v} elements ({} bytes); a tensor copy needs a positive multiple of 16 bytes below 2^40",
                    v.saturating_mul(elem_bytes as i64)
                ));
            }
            byte_strides.push(bytes);
        }
        Ok(ResolvedMap { address, dims, byte_strides, elem_bytes })
    }

    /// Bytes one copy of the box writes to shared memory.
    pub fn box_bytes(&self) -> u32 {
        self.box_dims.iter().product::<u32>() * self.elem.size_bytes() as u32
    }

    /// The name of map `i`'s parameter in the entry `entry`'s signature.
    pub fn param_name(entry: &str, i: usize) -> String {
        format!("{entry}_tensor_map_{i}")
    }
}

impl ResolvedMap {
    /// The byte offset from the base of element `index` (outermost first), or `None` when
    /// it lies outside the tensor (a copy fills it with zeros).
    pub fn offset_of(&self, index: &[i64]) -> Option<u64> {
        let mut off = 0u64;
        for (d, (&i, &n)) in index.iter().zip(&self.dims).enumerate() {
            if i < 0 || i as u64 >= n {
                return None;
            }
            let stride = self.byte_strides.get(d).copied().unwrap_or(self.elem_bytes);
            off += i as u64 * stride;
        }
        Some(off)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn map() -> TensorMap {
        TensorMap {
            elem: ScalarType::F16,
            base: 0,
            dims: vec![Extent::Param(1), Extent::Param(2)],
            strides: vec![Extent::Param(3), Extent::Const(1)],
            box_dims: vec![64, 64],
            swizzle: 128,
        }
    }

    fn args(base: u64, rows: i64, cols: i64, stride: i64) -> Vec<ArgValue> {
        vec![ArgValue::Ptr(base), ArgValue::Int(rows), ArgValue::Int(cols), ArgValue::Int(stride)]
    }

    #[test]
    fn a_map_reads_its_numbers_from_the_arguments() {
        let r = map().resolve(&args(0x1000, 37, 53, 64)).unwrap();
        assert_eq!(r, ResolvedMap { address: 0x1000, dims: vec![37, 53], byte_strides: vec![128], elem_bytes: 2 });
        assert_eq!(r.offset_of(&[2, 3]), Some(2 * 128 + 6));
        assert_eq!(r.offset_of(&[37, 0]), None);
        assert_eq!(r.offset_of(&[0, -1]), None);
        assert_eq!(map().box_bytes(), 64 * 64 * 2);
    }

    #[test]
    fn what_the_hardware_cannot_copy_is_an_error_naming_the_rule() {
        let cases: [(Vec<ArgValue>, &str); 5] = [
            (args(0x1008, 37, 53, 64), "not a multiple of 16 bytes"),
            (args(0x1000, 0, 53, 64), "size along dim 0 is 0"),
            (args(0x1000, 37, 53, 60), "stride along dim 0 is 60 elements (120 bytes)"),
            (args(0x1000, 37, 53, -64), "stride along dim 0 is -64"),
            (vec![ArgValue::Int(3)], "not a pointer argument"),
        ];
        for (a, want) in cases {
            let e = map().resolve(&a).unwrap_err();
            assert!(e.contains(want), "{e} should say {want}");
        }
    }
}
