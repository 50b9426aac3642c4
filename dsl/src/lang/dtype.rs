//! Element types in the Rust type system: `Tensor<f32>`, `Tensor<half::f16>`,
//! `Tensor<u8>`, `Tensor<Ptr<f32>>`.
//!
//! The promotion rule between two element types (Triton's) lives in `promotion.rs`,
//! with its table; `docs/semantics.md` ("Dtypes") lists it. Promotion only widens as
//! that table says: `i64` to `i32` needs `.to::<i32>()`. Rust values next to a tensor
//! (`x * 2`, `1.0 / x`) follow Triton's scalar rule instead (`scalars.rs`): they take the
//! tensor's dtype unless their kind is higher.

use std::marker::PhantomData;

use half::{bf16, f16};

use crate::semantics::fp8_types::{F8E4M3, F8E5M2};

use crate::ir::{Constant, DType, ScalarType};

/// A Rust type standing for an element dtype.
pub trait DTypeMarker: Copy + 'static {
    const DTYPE: DType;
}

/// Marker for "pointer to `E` in global memory".
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Ptr<E>(PhantomData<E>);

impl<E: ScalarMarker> DTypeMarker for E {
    const DTYPE: DType = DType::Scalar(E::SCALAR);
}
impl<E: ScalarMarker> DTypeMarker for Ptr<E> {
    const DTYPE: DType = DType::Ptr(E::SCALAR);
}

/// Scalar element types (what memory holds and literals can be).
pub trait ScalarMarker: Copy + 'static {
    const SCALAR: ScalarType;
    /// The Rust type of a literal of this dtype.
    type Native: Copy;
    fn constant(v: Self::Native) -> Constant;
}

impl ScalarMarker for f32 {
    const SCALAR: ScalarType = ScalarType::F32;
    type Native = f32;
    fn constant(v: f32) -> Constant {
        Constant::F32(v)
    }
}
impl ScalarMarker for i32 {
    const SCALAR: ScalarType = ScalarType::I32;
    type Native = i32;
    fn constant(v: i32) -> Constant {
        Constant::Int(v.into())
    }
}
impl ScalarMarker for i64 {
    const SCALAR: ScalarType = ScalarType::I64;
    type Native = i64;
    fn constant(v: i64) -> Constant {
        Constant::Int(v)
    }
}
impl ScalarMarker for bool {
    const SCALAR: ScalarType = ScalarType::Bool;
    type Native = bool;
    fn constant(v: bool) -> Constant {
        Constant::Bool(v)
    }
}

/// The integer types and the floats beyond `f32`: a literal is its own value.
macro_rules! scalar_markers {
    ($($t:ty => $s:ident, $c:expr;)*) => {$(
        impl ScalarMarker for $t {
            const SCALAR: ScalarType = ScalarType::$s;
            type Native = $t;
            fn constant(v: $t) -> Constant {
                #[allow(clippy::redundant_closure_call, reason = "one conversion per type, written as a closure")]
                ($c)(v)
            }
        }
    )*};
}
scalar_markers! {
    i8 => I8, |v: i8| Constant::Int(v.into());
    i16 => I16, |v: i16| Constant::Int(v.into());
    u8 => U8, |v: u8| Constant::Int(v.into());
    u32 => U32, |v: u32| Constant::Int(v.into());
    // u64 values past i64::MAX keep their bits (the constant is wrapped to u64 when used).
    u64 => U64, |v: u64| Constant::Int(v as i64);
    f64 => F64, Constant::F64;
    // f16 / bf16 values are exact in f32.
    f16 => F16, |v: f16| Constant::F32(v.to_f32());
    bf16 => BF16, |v: bf16| Constant::F32(v.to_f32());
    // fp8 values are exact in f32 (a NaN is the NaN code 0x7F again).
    F8E4M3 => F8E4M3, |v: F8E4M3| Constant::F32(v.to_f32());
    F8E5M2 => F8E5M2, |v: F8E5M2| Constant::F32(v.to_f32());
}

/// Integer element types.
pub trait IntMarker: NumericMarker {}
impl IntMarker for i8 {}
impl IntMarker for i16 {}
impl IntMarker for i32 {}
impl IntMarker for i64 {}
impl IntMarker for u8 {}
impl IntMarker for u32 {}
impl IntMarker for u64 {}

/// Numeric element types that arithmetic works on.
pub trait NumericMarker: ScalarMarker {
    /// The dtype `sum` gives (Triton's `_pick_sum_dtype`): `i8` and `i16` sum in `i32`,
    /// `u8` in `u32`; every other type in itself.
    type Sum: NumericMarker;
}
macro_rules! numeric {
    ($($t:ty => $sum:ty),*) => {$(
        impl NumericMarker for $t {
            type Sum = $sum;
        }
    )*};
}
numeric!(i8 => i32, i16 => i32, i32 => i32, i64 => i64, u8 => u32, u32 => u32, u64 => u64);
numeric!(f16 => f16, bf16 => bf16, f32 => f32, f64 => f64);

/// The float element types a generic kernel can be written over (`fn f<T: Float>`, see
/// `kernel!`): f32, f16, bf16 and f64. `T::lit(0.0)` is a literal of the type (what a
/// masked `load` gives); arithmetic on `T` goes through `.to::<f32>()` and back, as
/// Triton computes 16-bit floats in f32.
pub trait Float: NumericMarker {
    /// `v` rounded to nearest even in this type.
    fn lit(v: f64) -> Self::Native;
}
impl Float for f32 {
    fn lit(v: f64) -> f32 {
        v as f32
    }
}
impl Float for f64 {
    fn lit(v: f64) -> f64 {
        v
    }
}
impl Float for f16 {
    fn lit(v: f64) -> f16 {
        f16::from_f64(v)
    }
}
impl Float for bf16 {
    fn lit(v: f64) -> bf16 {
        bf16::from_f64(v)
    }
}
