//! Element types in the Rust type system: `Tensor<f32>`, `Tensor<i64>`, `Tensor<Ptr<f32>>`.
//!
//! Mixing floats and ints is a Rust compile error because [`Promote`] has no impl for
//! such pairs. The integer promotion rule lives here and only here:
//!
//! | lhs   | rhs   | result | note                                   |
//! |-------|-------|--------|----------------------------------------|
//! | `i32` | `i32` | `i32`  | wraps on overflow, as written          |
//! | `i32` | `i64` | `i64`  | the `i32` operand is sign-extended     |
//! | `i64` | `i32` | `i64`  | the `i32` operand is sign-extended     |
//! | `i64` | `i64` | `i64`  |                                        |
//! | `f32` | `f32` | `f32`  |                                        |
//! | `bool`| `bool`| `bool` | only `&`, `|`, `^` and comparisons     |
//!
//! Nothing narrows implicitly: `i64` to `i32` needs `.to::<i32>()`. Rust literals are
//! operands too: an integer literal is an `i32` (so `Tensor<i64> + 1` is `i64`), a float
//! literal is an `f32`.

use std::marker::PhantomData;

use crate::ir::{Constant, DType, ScalarType};

/// A Rust type standing for an element dtype.
pub trait DTypeMarker: Copy + 'static {
    const DTYPE: DType;
}

/// Marker for "pointer to `E` in global memory".
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Ptr<E>(PhantomData<E>);

impl DTypeMarker for f32 {
    const DTYPE: DType = DType::F32;
}
impl DTypeMarker for i32 {
    const DTYPE: DType = DType::I32;
}
impl DTypeMarker for i64 {
    const DTYPE: DType = DType::I64;
}
impl DTypeMarker for bool {
    const DTYPE: DType = DType::BOOL;
}
impl<E: ScalarMarker> DTypeMarker for Ptr<E> {
    const DTYPE: DType = DType::Ptr(E::SCALAR);
}

/// Scalar element types (what memory holds and literals can be).
pub trait ScalarMarker: DTypeMarker {
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

/// Integer element types (`i32`, `i64`).
pub trait IntMarker: ScalarMarker {}
impl IntMarker for i32 {}
impl IntMarker for i64 {}

/// Numeric element types that arithmetic works on.
pub trait NumericMarker: ScalarMarker {}
impl NumericMarker for i32 {}
impl NumericMarker for i64 {}
impl NumericMarker for f32 {}

/// The result dtype of an arithmetic or comparison op between `Self` and `R` (the table
/// in the module doc).
pub trait Promote<R> {
    type Output: DTypeMarker;
}

macro_rules! promote {
    ($($l:ty, $r:ty => $o:ty;)*) => {$(
        impl Promote<$r> for $l {
            type Output = $o;
        }
    )*};
}
promote! {
    i32, i32 => i32;
    i32, i64 => i64;
    i64, i32 => i64;
    i64, i64 => i64;
    f32, f32 => f32;
    bool, bool => bool;
}

/// The result of `Self + R`: numeric pairs promote as [`Promote`]; a pointer plus an
/// integer offset of either width is a pointer.
pub trait AddOutput<R> {
    type Output: DTypeMarker;
}
macro_rules! add_numeric {
    ($($l:ty, $r:ty;)*) => {$(
        impl AddOutput<$r> for $l {
            type Output = <$l as Promote<$r>>::Output;
        }
    )*};
}
add_numeric! { i32, i32; i32, i64; i64, i32; i64, i64; f32, f32; }
impl<E: ScalarMarker> AddOutput<i32> for Ptr<E> {
    type Output = Ptr<E>;
}
impl<E: ScalarMarker> AddOutput<i64> for Ptr<E> {
    type Output = Ptr<E>;
}
