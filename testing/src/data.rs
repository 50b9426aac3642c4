//! Buffer contents, typed by the element types a kernel's pointers take: one variant per
//! dtype the language loads and stores (`i1` has no buffers: Triton stores masks as `i8`).

use rtriton::ir::ScalarType;

use crate::element::Element;

/// A whole buffer (not only the elements a view sees: bytes outside it must come back
/// untouched, which is how stray stores show).
#[derive(Clone, Debug, PartialEq)]
pub enum Data {
    F16(Vec<half::f16>),
    BF16(Vec<half::bf16>),
    F32(Vec<f32>),
    F64(Vec<f64>),
    I8(Vec<i8>),
    I16(Vec<i16>),
    I32(Vec<i32>),
    I64(Vec<i64>),
    U8(Vec<u8>),
    U32(Vec<u32>),
    U64(Vec<u64>),
}

/// `$body` for whichever variant `$data` is, with `$v` bound to its vector: an
/// exhaustive match written once for code that is the same for every element type.
macro_rules! each_data {
    ($data:expr, $v:ident => $body:expr) => {
        match $data {
            Data::F16($v) => $body,
            Data::BF16($v) => $body,
            Data::F32($v) => $body,
            Data::F64($v) => $body,
            Data::I8($v) => $body,
            Data::I16($v) => $body,
            Data::I32($v) => $body,
            Data::I64($v) => $body,
            Data::U8($v) => $body,
            Data::U32($v) => $body,
            Data::U64($v) => $body,
        }
    };
}
pub(crate) use each_data;

impl Data {
    /// An all-zero buffer of `n` elements of `dtype` (`None` for `i1` and the fp8 types,
    /// which have none).
    pub fn zeros(dtype: ScalarType, n: usize) -> Option<Data> {
        Some(match dtype {
            ScalarType::F16 => Data::F16(vec![half::f16::ZERO; n]),
            ScalarType::BF16 => Data::BF16(vec![half::bf16::ZERO; n]),
            ScalarType::F32 => Data::F32(vec![0.0; n]),
            ScalarType::F64 => Data::F64(vec![0.0; n]),
            ScalarType::I8 => Data::I8(vec![0; n]),
            ScalarType::I16 => Data::I16(vec![0; n]),
            ScalarType::I32 => Data::I32(vec![0; n]),
            ScalarType::I64 => Data::I64(vec![0; n]),
            ScalarType::U8 => Data::U8(vec![0; n]),
            ScalarType::U32 => Data::U32(vec![0; n]),
            ScalarType::U64 => Data::U64(vec![0; n]),
            // No harness buffer holds fp8 yet: a device element needs cudarc's traits,
            // which only the crate defining the type may implement (the fp8 suite uses
            // raw bytes).
            ScalarType::Bool | ScalarType::F8E4M3 | ScalarType::F8E5M2 => return None,
        })
    }

    pub fn len(&self) -> usize {
        each_data!(self, v => v.len())
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    pub fn dtype(&self) -> ScalarType {
        fn of<T: Element>(_: &[T]) -> ScalarType {
            T::SCALAR
        }
        each_data!(self, v => of(v))
    }

    /// Element `i` as its bit pattern (zero-extended).
    pub fn bits(&self, i: usize) -> u64 {
        each_data!(self, v => Element::bits(v[i]))
    }

    /// Element `i` as a person reads it, with its bit pattern.
    pub fn describe(&self, i: usize) -> String {
        each_data!(self, v => Element::describe(v[i]))
    }

    /// Element `i` as `f64`, `None` for an integer not exact there (past 2^53).
    pub fn f64_at(&self, i: usize) -> Option<f64> {
        each_data!(self, v => Element::to_f64_exact(v[i]))
    }

    /// Sets element `i` to `value` rounded to the buffer's dtype ([`Element::round_from_f64`]:
    /// round to nearest even for floats); `Err` names the value an integer buffer cannot
    /// hold.
    pub fn set_f64(&mut self, i: usize, value: f64) -> Result<(), String> {
        fn set<T: Element>(v: &mut [T], i: usize, value: f64) -> Result<(), String> {
            v[i] = T::round_from_f64(value)
                .ok_or_else(|| format!("{value:?} is not a whole number in the range of {}", T::SCALAR))?;
            Ok(())
        }
        each_data!(self, v => set(v, i, value))
    }

    /// The buffer as little-endian bytes (as device memory holds it).
    pub fn to_le_bytes(&self) -> Vec<u8> {
        // Every target rtriton runs on (x86-64, aarch64) is little-endian, as the GPU is.
        each_data!(self, v => bytemuck::cast_slice(v).to_vec())
    }

    /// A buffer of the same type from little-endian bytes (the length rounded down to
    /// whole elements): how a back end reads an output back.
    pub fn from_le_bytes_like(&self, bytes: &[u8]) -> Data {
        fn decode<T: Element>(_: &[T], bytes: &[u8]) -> Data {
            T::wrap(bytes.chunks_exact(std::mem::size_of::<T>()).map(bytemuck::pod_read_unaligned).collect())
        }
        each_data!(self, v => decode(v, bytes))
    }

    /// A buffer of the same type and length, all zero.
    pub fn zeros_like(&self) -> Data {
        fn zeros<T: Element>(v: &[T]) -> Data {
            T::wrap(vec![T::default(); v.len()])
        }
        each_data!(self, v => zeros(v))
    }

    /// The elements, if the buffer holds `T`s.
    pub fn as_slice<T: Element>(&self) -> Option<&[T]> {
        T::slice(self)
    }

    pub fn as_slice_mut<T: Element>(&mut self) -> Option<&mut [T]> {
        T::slice_mut(self)
    }

    pub fn as_f32(&self) -> Option<&[f32]> {
        self.as_slice()
    }

    pub fn as_f32_mut(&mut self) -> Option<&mut [f32]> {
        self.as_slice_mut()
    }

    pub fn as_i32(&self) -> Option<&[i32]> {
        self.as_slice()
    }

    pub fn as_i32_mut(&mut self) -> Option<&mut [i32]> {
        self.as_slice_mut()
    }

    pub fn as_i64(&self) -> Option<&[i64]> {
        self.as_slice()
    }

    pub fn as_i64_mut(&mut self) -> Option<&mut [i64]> {
        self.as_slice_mut()
    }
}

impl<T: Element> From<Vec<T>> for Data {
    fn from(v: Vec<T>) -> Data {
        T::wrap(v)
    }
}

#[cfg(test)]
mod tests {
    use half::{bf16, f16};

    use super::*;

    /// One buffer per dtype, each `[1, 2]` in its own type.
    fn one_of_each() -> Vec<Data> {
        vec![
            vec![f16::from_f32(1.0), f16::from_f32(2.0)].into(),
            vec![bf16::from_f32(1.0), bf16::from_f32(2.0)].into(),
            vec![1.0f32, 2.0].into(),
            vec![1.0f64, 2.0].into(),
            vec![1i8, 2].into(),
            vec![1i16, 2].into(),
            vec![1i32, 2].into(),
            vec![1i64, 2].into(),
            vec![1u8, 2].into(),
            vec![1u32, 2].into(),
            vec![1u64, 2].into(),
        ]
    }

    #[test]
    fn every_dtype_round_trips_through_bytes_zeros_and_f64() {
        for d in one_of_each() {
            let dtype = d.dtype();
            let size = dtype.size_bytes() as usize;
            assert_eq!(d.len(), 2, "{dtype}");
            let bytes = d.to_le_bytes();
            assert_eq!(bytes.len(), 2 * size, "{dtype}");
            assert_eq!(d.from_le_bytes_like(&bytes), d, "{dtype}");
            assert_eq!(d.zeros_like(), Data::zeros(dtype, 2).unwrap(), "{dtype}");
            assert_eq!(d.zeros_like().dtype(), dtype);
            assert_eq!((d.f64_at(0), d.f64_at(1)), (Some(1.0), Some(2.0)), "{dtype}");
            let mut e = d.zeros_like();
            e.set_f64(0, 1.0).unwrap();
            e.set_f64(1, 2.0).unwrap();
            assert_eq!(e, d, "{dtype}");
            // 1.0 has bits 1 in integer types; in float types it is the format's 1.0.
            assert_eq!(
                d.bits(0),
                if dtype.is_float() { crate::float::Float::of(dtype).unwrap().round_from_f64(1.0) } else { 1 }
            );
        }
        assert_eq!(Data::zeros(ScalarType::Bool, 3), None);
    }

    #[test]
    fn set_f64_rounds_floats_and_refuses_what_an_integer_cannot_hold() {
        let mut h = Data::zeros(ScalarType::F16, 1).unwrap();
        h.set_f64(0, 1.0 + 2f64.powi(-11)).unwrap();
        assert_eq!(h.bits(0), 0x3C00, "a tie goes to even");
        let mut b = Data::zeros(ScalarType::BF16, 1).unwrap();
        b.set_f64(0, 1.0 + 3.0 * 2f64.powi(-8)).unwrap();
        assert_eq!(b.bits(0), 0x3F82, "a tie goes to even");
        let mut u = Data::zeros(ScalarType::U8, 1).unwrap();
        let err = u.set_f64(0, 256.0).unwrap_err();
        assert!(err.contains("256.0") && err.contains("u8"), "{err}");
        assert!(u.set_f64(0, 2.5).is_err());
    }

    #[test]
    fn typed_accessors_see_only_their_own_type() {
        let mut d: Data = vec![f16::from_f32(3.0)].into();
        assert_eq!(d.as_slice::<f16>(), Some(&[f16::from_f32(3.0)][..]));
        assert_eq!(d.as_slice::<bf16>(), None);
        assert_eq!(d.as_f32(), None);
        d.as_slice_mut::<f16>().unwrap()[0] = f16::from_f32(4.0);
        assert_eq!(d.describe(0), "4.0 (0x4400)");
        assert_eq!(Data::from(vec![-1i16]).describe(0), "-1 (0xFFFF)");
    }
}
