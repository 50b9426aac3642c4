//! Runtime block values: one typed `Vec` per IR value, elements in row-major order of
//! the value's shape (a scalar has one element). Evaluating whole blocks at once keeps
//! the interpreter fast even in debug builds.

use half::{bf16, f16};

use crate::ir::{Constant, DType, ScalarType};
use crate::semantics::fp8_types::{F8E4M3, F8E5M2};

use super::error::Access;
use super::memory::MemoryError;

/// The elements of one block value.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Data {
    Bool(Vec<bool>),
    I32(Vec<i32>),
    I64(Vec<i64>),
    F32(Vec<f32>),
    /// Device addresses.
    Ptr(Vec<u64>),
    I8(Vec<i8>),
    I16(Vec<i16>),
    U8(Vec<u8>),
    U32(Vec<u32>),
    U64(Vec<u64>),
    F16(Vec<f16>),
    BF16(Vec<bf16>),
    F64(Vec<f64>),
    F8E4M3(Vec<F8E4M3>),
    F8E5M2(Vec<F8E5M2>),
}

/// `match data { Data::X(v) => body, ... }` over every variant, `v` bound to the vector
/// (the body must type-check for every element type).
macro_rules! on_data {
    ($data:expr, $v:ident => $body:expr) => {
        match $data {
            Data::Bool($v) => $body,
            Data::I32($v) => $body,
            Data::I64($v) => $body,
            Data::F32($v) => $body,
            Data::Ptr($v) => $body,
            Data::I8($v) => $body,
            Data::I16($v) => $body,
            Data::U8($v) => $body,
            Data::U32($v) => $body,
            Data::U64($v) => $body,
            Data::F16($v) => $body,
            Data::BF16($v) => $body,
            Data::F64($v) => $body,
            Data::F8E4M3($v) => $body,
            Data::F8E5M2($v) => $body,
        }
    };
}

/// As [`on_data`], wrapping the body's vector back into the same variant.
macro_rules! map_data {
    ($data:expr, $v:ident => $body:expr) => {
        match $data {
            Data::Bool($v) => Data::Bool($body),
            Data::I32($v) => Data::I32($body),
            Data::I64($v) => Data::I64($body),
            Data::F32($v) => Data::F32($body),
            Data::Ptr($v) => Data::Ptr($body),
            Data::I8($v) => Data::I8($body),
            Data::I16($v) => Data::I16($body),
            Data::U8($v) => Data::U8($body),
            Data::U32($v) => Data::U32($body),
            Data::U64($v) => Data::U64($body),
            Data::F16($v) => Data::F16($body),
            Data::BF16($v) => Data::BF16($body),
            Data::F64($v) => Data::F64($body),
            Data::F8E4M3($v) => Data::F8E4M3($body),
            Data::F8E5M2($v) => Data::F8E5M2($body),
        }
    };
}
pub(crate) use on_data;

/// Why evaluating one op failed, before the op's location and the program id are added.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Trap {
    Memory {
        access: Access,
        lane: usize,
        error: MemoryError,
    },
    DivisionByZero {
        lane: usize,
    },
    NonPositiveStep(i64),
    /// Lane `lane` holds `value`, which is not a multiple of the `divisor` a `multiple_of`
    /// promised.
    NotAMultiple {
        lane: usize,
        value: i128,
        divisor: u64,
    },
    /// Lane `lane` of a `device_assert`'s condition is false.
    FailedDeviceAssert {
        lane: usize,
    },
    /// Lane `lane` of an `assume`'s condition is false.
    BrokenAssume {
        lane: usize,
    },
    /// A `while` loop back in a state it was in, memory unchanged (see `control.rs`).
    NoProgress,
    /// The program ran more loop iterations than its step budget allows.
    StepBudget(u64),
    /// An `inline_asm_elementwise` with no CPU model to run (`named`: the model the IR
    /// text names without its function).
    NoAsmModel {
        named: Option<&'static str>,
    },
    /// IR the interpreter cannot run (never produced by the front end).
    Unsupported(String),
}

pub(crate) fn unsupported<T>(what: impl Into<String>) -> Result<T, Trap> {
    Err(Trap::Unsupported(what.into()))
}

impl Data {
    /// Whether `self` and `other` hold the same bits (floats by their bits, so a NaN equals
    /// itself): for telling that a loop is back in a state it was in.
    pub fn same_bits(&self, other: &Data) -> bool {
        match (self, other) {
            (Data::F32(a), Data::F32(b)) => a.iter().map(|x| x.to_bits()).eq(b.iter().map(|x| x.to_bits())),
            (Data::F64(a), Data::F64(b)) => a.iter().map(|x| x.to_bits()).eq(b.iter().map(|x| x.to_bits())),
            (Data::F16(a), Data::F16(b)) => a.iter().map(|x| x.to_bits()).eq(b.iter().map(|x| x.to_bits())),
            (Data::BF16(a), Data::BF16(b)) => a.iter().map(|x| x.to_bits()).eq(b.iter().map(|x| x.to_bits())),
            (Data::F8E4M3(a), Data::F8E4M3(b)) => a == b,
            (Data::F8E5M2(a), Data::F8E5M2(b)) => a == b,
            // integers, booleans and pointers compare as values (variants, not op kinds)
            _ => self == other,
        }
    }

    pub fn len(&self) -> usize {
        on_data!(self, v => v.len())
    }

    /// `n` copies of constant `c` as `dtype`.
    pub fn splat_constant(c: Constant, dtype: DType, n: usize) -> Result<Data, Trap> {
        Ok(match (dtype, c) {
            (DType::Scalar(ScalarType::Bool), Constant::Bool(b)) => Data::Bool(vec![b; n]),
            (DType::Scalar(ScalarType::Bool), Constant::Int(i)) => Data::Bool(vec![i & 1 != 0; n]),
            (DType::Scalar(ScalarType::I32), Constant::Int(i)) => Data::I32(vec![i as i32; n]),
            (DType::Scalar(ScalarType::I32), Constant::Bool(b)) => Data::I32(vec![i32::from(b); n]),
            (DType::Scalar(ScalarType::I64), Constant::Int(i)) => Data::I64(vec![i; n]),
            (DType::Scalar(ScalarType::I64), Constant::Bool(b)) => Data::I64(vec![i64::from(b); n]),
            (DType::Scalar(ScalarType::F32), Constant::F32(x)) => Data::F32(vec![x; n]),
            (DType::Scalar(ScalarType::F32), Constant::Int(i)) => Data::F32(vec![i as f32; n]),
            (DType::Scalar(ScalarType::F64), Constant::F64(x)) => Data::F64(vec![x; n]),
            // Every other (type, constant) pair converts the constant's value with the
            // cast rules (an `f32` constant of an `f16` block rounds to nearest even).
            (DType::Scalar(to), c) => {
                let one = match c {
                    Constant::Bool(b) => Data::Bool(vec![b]),
                    Constant::Int(i) => Data::I64(vec![i]),
                    Constant::F32(x) => Data::F32(vec![x]),
                    Constant::F64(x) => Data::F64(vec![x]),
                };
                super::convert::cast_data(&one, to)?.splat(n)?
            }
            (dtype, c) => return unsupported(format!("a constant {c:?} of type {dtype}")),
        })
    }

    /// Every element repeated from a one-element value.
    pub fn splat(&self, n: usize) -> Result<Data, Trap> {
        if self.len() != 1 {
            return unsupported(format!("splat of a value with {} elements", self.len()));
        }
        Ok(map_data!(self, v => vec![v[0]; n]))
    }

    /// The elements at `indices`, in that order.
    pub fn gather(&self, indices: &[usize]) -> Data {
        fn pick<T: Copy>(v: &[T], idx: &[usize]) -> Vec<T> {
            idx.iter().map(|&i| v[i]).collect()
        }
        map_data!(self, v => pick(v, indices))
    }

    /// The single element of an integer scalar, sign-extended.
    pub fn int_scalar(&self) -> Result<i64, Trap> {
        match self {
            Data::I32(v) if v.len() == 1 => Ok(i64::from(v[0])),
            Data::I64(v) if v.len() == 1 => Ok(v[0]),
            Data::U32(v) if v.len() == 1 => Ok(i64::from(v[0])),
            // a float, a mask or a block (data, not an op kind)
            _ => unsupported("a loop bound or step that is not an integer scalar"),
        }
    }

    /// Shape-independent name of the element type, for messages.
    pub fn kind(&self) -> &'static str {
        match self {
            Data::Bool(_) => "i1",
            Data::I32(_) => "i32",
            Data::I64(_) => "i64",
            Data::F32(_) => "f32",
            Data::Ptr(_) => "ptr",
            Data::I8(_) => "i8",
            Data::I16(_) => "i16",
            Data::U8(_) => "u8",
            Data::U32(_) => "u32",
            Data::U64(_) => "u64",
            Data::F16(_) => "f16",
            Data::BF16(_) => "bf16",
            Data::F64(_) => "f64",
            Data::F8E4M3(_) => "fp8e4nv",
            Data::F8E5M2(_) => "fp8e5",
        }
    }
}

/// For a broadcast from `from` to `to` (same rank; dims of `from` are 1 or equal), the
/// source index of every destination element.
pub(crate) fn broadcast_indices(from: &[usize], to: &[usize]) -> Result<Vec<usize>, Trap> {
    if from.len() != to.len() || from.iter().zip(to).any(|(f, t)| *f != 1 && f != t) {
        return unsupported(format!("broadcast from {from:?} to {to:?}"));
    }
    // Source strides, with 0 where the dim is repeated.
    let mut strides = vec![0usize; from.len()];
    let mut acc = 1;
    for d in (0..from.len()).rev() {
        strides[d] = if from[d] == 1 { 0 } else { acc };
        acc *= from[d];
    }
    let n: usize = to.iter().product();
    let mut out = Vec::with_capacity(n);
    let mut idx = vec![0usize; to.len()];
    for _ in 0..n {
        out.push(idx.iter().zip(&strides).map(|(i, s)| i * s).sum());
        // Advance the row-major multi-index.
        for d in (0..to.len()).rev() {
            idx[d] += 1;
            if idx[d] < to[d] {
                break;
            }
            idx[d] = 0;
        }
    }
    Ok(out)
}

/// The multi-index of flat element `lane` in a block of shape `dims` (`[]` for a scalar).
pub(crate) fn unflatten(mut lane: usize, dims: &[usize]) -> Vec<usize> {
    let mut idx = vec![0; dims.len()];
    for d in (0..dims.len()).rev() {
        let n = dims[d].max(1);
        idx[d] = lane % n;
        lane /= n;
    }
    idx
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn broadcast_repeats_unit_dims() {
        assert_eq!(broadcast_indices(&[2, 1], &[2, 3]).unwrap(), vec![0, 0, 0, 1, 1, 1]);
        assert_eq!(broadcast_indices(&[1, 3], &[2, 3]).unwrap(), vec![0, 1, 2, 0, 1, 2]);
        assert!(broadcast_indices(&[2, 2], &[2, 3]).is_err());
    }

    #[test]
    fn unflatten_is_row_major() {
        assert_eq!(unflatten(7, &[2, 4]), vec![1, 3]);
        assert_eq!(unflatten(0, &[]), Vec::<usize>::new());
    }
}
