//! `Tensor<T>`: the handle a kernel body computes with, and its operators.

use std::marker::PhantomData;
use std::ops::{Add, BitAnd, BitOr, BitXor, Div, Mul, Neg, Not, Rem, Shl, Shr, Sub};

use crate::ir::{BinaryOp, CmpPred, Constant, DType, ReduceOp, Shape, SourceLoc, UnaryOp, Value};
use crate::trace::with_builder;

use super::dtype::{DTypeMarker, IntMarker, NumericMarker, ScalarMarker};
use super::promotion::{AddOutput, Promote, PromoteDiv};
use super::scalars::{BoolScalar, FloatScalar, IntScalar};

/// A block tensor of `T` elements (a scalar when its shape is `[]`), being traced.
///
/// Handles are cheap `Copy` ids; all data lives in the IR being built.
pub struct Tensor<T> {
    value: Value,
    _dtype: PhantomData<fn() -> T>,
}

impl<T> Clone for Tensor<T> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<T> Copy for Tensor<T> {}

impl<T> std::fmt::Debug for Tensor<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Tensor({})", self.value)
    }
}

/// Anything that can stand next to a `Tensor` in an op: another tensor or a Rust value.
/// `DType` is what the promotion table ([`Promote`]) keys on: a tensor's dtype marker, or
/// for a Rust value Triton's scalar kind ([`IntScalar`] for `i32`, [`FloatScalar`] for
/// `f32`/`f64`, [`BoolScalar`] for `bool`), which adopts the tensor's dtype (`x_f32 * 2`
/// is `f32`, `x_i64 + 1` is `i64`); an `i64` value is typed `i64`.
pub trait TensorOperand: Copy {
    type DType;
    fn value(self, loc: SourceLoc) -> Value;
}

impl<T: DTypeMarker> TensorOperand for Tensor<T> {
    type DType = T;
    fn value(self, _loc: SourceLoc) -> Value {
        self.value
    }
}

fn literal(c: Constant, dtype: DType, loc: SourceLoc) -> Value {
    with_builder(|b| b.scalar_literal(c, dtype, loc))
}

impl TensorOperand for i32 {
    type DType = IntScalar;
    fn value(self, loc: SourceLoc) -> Value {
        literal(Constant::Int(self.into()), DType::I32, loc)
    }
}
impl TensorOperand for i64 {
    type DType = i64;
    fn value(self, loc: SourceLoc) -> Value {
        literal(Constant::Int(self), DType::I64, loc)
    }
}
impl TensorOperand for f32 {
    type DType = FloatScalar;
    fn value(self, loc: SourceLoc) -> Value {
        literal(Constant::F32(self), DType::F32, loc)
    }
}
/// Unsuffixed float literals default to `f64` in Rust; they are `f32` constants here.
impl TensorOperand for f64 {
    type DType = FloatScalar;
    fn value(self, loc: SourceLoc) -> Value {
        literal(Constant::F32(self as f32), DType::F32, loc)
    }
}
impl TensorOperand for bool {
    type DType = BoolScalar;
    fn value(self, loc: SourceLoc) -> Value {
        literal(Constant::Bool(self), DType::BOOL, loc)
    }
}

impl<T> Tensor<T> {
    /// Wraps an IR value (the caller guarantees its dtype is `T`).
    pub(crate) fn from_value(value: Value) -> Self {
        Tensor { value, _dtype: PhantomData }
    }

    /// The IR value this handle refers to.
    pub fn id(self) -> Value {
        self.value
    }

    /// The block shape (`[]` for scalars).
    pub fn shape(self) -> Vec<usize> {
        with_builder(|b| b.ty(self.value).shape.0.clone())
    }

    /// Inserts a dim of size 1 at `axis`: `x.expand_dims(1)` is Triton's `x[:, None]`.
    #[track_caller]
    pub fn expand_dims(self, axis: usize) -> Tensor<T> {
        let loc = SourceLoc::caller();
        Tensor::from_value(with_builder(|b| b.expand_dims(self.value, axis, loc)))
    }

    /// Broadcasts to `shape`.
    #[track_caller]
    pub fn broadcast_to(self, shape: &[usize]) -> Tensor<T> {
        let loc = SourceLoc::caller();
        Tensor::from_value(with_builder(|b| b.broadcast_to(self.value, &Shape(shape.to_vec()), loc)))
    }
}

impl<T: ScalarMarker> Tensor<T> {
    /// Converts to `U`: int widening sign-extends, narrowing wraps, int to float rounds.
    #[track_caller]
    pub fn to<U: ScalarMarker>(self) -> Tensor<U> {
        let loc = SourceLoc::caller();
        Tensor::from_value(with_builder(|b| b.cast(self.value, U::DTYPE, loc, true)))
    }

    /// The same bits read as `U` (Triton's `x.to(dtype, bitcast=True)`): `U` must have
    /// `T`'s bit width (`f32` <-> `i32`); another width is a located error naming both.
    #[track_caller]
    pub fn to_bitcast<U: ScalarMarker>(self) -> Tensor<U> {
        let loc = SourceLoc::caller();
        Tensor::from_value(with_builder(|b| b.bitcast(self.value, U::DTYPE, loc)))
    }
}

macro_rules! comparisons {
    ($($name:ident => $pred:ident, $doc:literal;)*) => {
        impl<T: ScalarMarker> Tensor<T> {
            $(
                #[doc = $doc]
                #[track_caller]
                pub fn $name<R: TensorOperand>(self, rhs: R) -> Tensor<bool>
                where
                    T: Promote<R::DType>,
                {
                    let loc = SourceLoc::caller();
                    let rhs = rhs.value(loc);
                    Tensor::from_value(with_builder(|b| b.compare(CmpPred::$pred, self.value, rhs, loc)))
                }
            )*
        }
    };
}
comparisons! {
    lt => Lt, "`self < rhs` element-wise.";
    le => Le, "`self <= rhs` element-wise.";
    gt => Gt, "`self > rhs` element-wise.";
    ge => Ge, "`self >= rhs` element-wise.";
    eq => Eq, "`self == rhs` element-wise.";
    ne => Ne, "`self != rhs` element-wise.";
}

impl<T: NumericMarker> Tensor<T> {
    /// Maximum along `axis` (NaN ignored, like `tl.max`).
    #[track_caller]
    pub fn max(self, axis: usize) -> Tensor<T> {
        self.reduce(ReduceOp::Max(Default::default()), axis)
    }

    /// Minimum along `axis` (NaN ignored).
    #[track_caller]
    pub fn min(self, axis: usize) -> Tensor<T> {
        self.reduce(ReduceOp::Min(Default::default()), axis)
    }

    /// Sum along `axis` (`i8`/`i16` sum in `i32`, `u8` in `u32`, as Triton's `tl.sum`;
    /// `f16`/`bf16` accumulate in `f32`).
    #[track_caller]
    pub fn sum(self, axis: usize) -> Tensor<T::Sum> {
        Tensor::from_value(self.reduce(ReduceOp::Sum, axis).value)
    }

    /// Index of the first maximum along `axis`.
    #[track_caller]
    pub fn argmax(self, axis: usize) -> Tensor<i32> {
        Tensor::from_value(self.reduce(ReduceOp::Argmax, axis).value)
    }

    #[track_caller]
    pub(crate) fn reduce(self, op: ReduceOp, axis: usize) -> Tensor<T> {
        let loc = SourceLoc::caller();
        Tensor::from_value(with_builder(|b| b.reduce(op, self.value, axis, loc)))
    }
}

impl<T: IntMarker> Tensor<T> {
    /// `ceil(self / rhs)` for non-negative operands (Triton's `cdiv`).
    #[track_caller]
    pub fn cdiv<R: TensorOperand>(self, rhs: R) -> Tensor<<T as Promote<R::DType>>::Output>
    where
        T: Promote<R::DType>,
    {
        super::ops::cdiv(self, rhs)
    }
}

macro_rules! arith {
    ($($trait:ident :: $method:ident => $op:expr, $out:ident;)*) => {$(
        impl<L: DTypeMarker, R: TensorOperand> $trait<R> for Tensor<L>
        where
            L: $out<R::DType>,
        {
            type Output = Tensor<<L as $out<R::DType>>::Output>;
            #[track_caller]
            fn $method(self, rhs: R) -> Self::Output {
                let loc = SourceLoc::caller();
                let rhs = rhs.value(loc);
                Tensor::from_value(with_builder(|b| {
                    if b.dtype(self.value).is_ptr() {
                        b.add_ptr(self.value, rhs, loc)
                    } else {
                        b.binary($op, self.value, rhs, loc)
                    }
                }))
            }
        }
    )*};
}
arith! {
    Add::add => BinaryOp::Add, AddOutput;
    Sub::sub => BinaryOp::Sub, Promote;
    Mul::mul => BinaryOp::Mul, Promote;
    Div::div => BinaryOp::Div, PromoteDiv;
    Rem::rem => BinaryOp::Rem, PromoteDiv;
    BitAnd::bitand => BinaryOp::And, Promote;
    BitOr::bitor => BinaryOp::Or, Promote;
    BitXor::bitxor => BinaryOp::Xor, Promote;
    Shl::shl => BinaryOp::Shl, Promote;
    Shr::shr => BinaryOp::Shr, Promote;
}

/// Rust values on the left: `2 * x`, `1.0 / x`, `n - offs`, `1 << x`; the scalar rule
/// of [`TensorOperand`] gives the dtype, as on the right.
macro_rules! arith_literal_lhs {
    ($($lit:ty => $($trait:ident :: $method:ident => $op:expr),*;)*) => {$($(
        impl<R: DTypeMarker> $trait<Tensor<R>> for $lit
        where
            <$lit as TensorOperand>::DType: Promote<R>,
        {
            type Output = Tensor<<<$lit as TensorOperand>::DType as Promote<R>>::Output>;
            #[track_caller]
            fn $method(self, rhs: Tensor<R>) -> Self::Output {
                let loc = SourceLoc::caller();
                let lhs = self.value(loc);
                Tensor::from_value(with_builder(|b| b.binary($op, lhs, rhs.value, loc)))
            }
        }
    )*)*};
}
arith_literal_lhs! {
    i32 => Add::add => BinaryOp::Add, Sub::sub => BinaryOp::Sub, Mul::mul => BinaryOp::Mul, Div::div => BinaryOp::Div,
        Rem::rem => BinaryOp::Rem, BitAnd::bitand => BinaryOp::And, BitOr::bitor => BinaryOp::Or,
        BitXor::bitxor => BinaryOp::Xor, Shl::shl => BinaryOp::Shl, Shr::shr => BinaryOp::Shr;
    i64 => Add::add => BinaryOp::Add, Sub::sub => BinaryOp::Sub, Mul::mul => BinaryOp::Mul, Div::div => BinaryOp::Div,
        Rem::rem => BinaryOp::Rem, BitAnd::bitand => BinaryOp::And, BitOr::bitor => BinaryOp::Or,
        BitXor::bitxor => BinaryOp::Xor, Shl::shl => BinaryOp::Shl, Shr::shr => BinaryOp::Shr;
    f32 => Add::add => BinaryOp::Add, Sub::sub => BinaryOp::Sub, Mul::mul => BinaryOp::Mul, Div::div => BinaryOp::Div,
        Rem::rem => BinaryOp::Rem;
    f64 => Add::add => BinaryOp::Add, Sub::sub => BinaryOp::Sub, Mul::mul => BinaryOp::Mul, Div::div => BinaryOp::Div,
        Rem::rem => BinaryOp::Rem;
    bool => BitAnd::bitand => BinaryOp::And, BitOr::bitor => BinaryOp::Or, BitXor::bitxor => BinaryOp::Xor;
}

/// `-x` (unary minus) on ints and floats: ints wrap, floats flip the sign bit.
impl<T: NumericMarker> Neg for Tensor<T> {
    type Output = Tensor<T>;
    #[track_caller]
    fn neg(self) -> Tensor<T> {
        let loc = SourceLoc::caller();
        Tensor::from_value(with_builder(|b| b.unary(UnaryOp::Neg, self.value, loc)))
    }
}

/// `!x`: logical not on `i1`, bitwise not on ints (Triton's `~x`); a located error on
/// floats.
impl<T: ScalarMarker> Not for Tensor<T> {
    type Output = Tensor<T>;
    #[track_caller]
    fn not(self) -> Tensor<T> {
        let loc = SourceLoc::caller();
        Tensor::from_value(with_builder(|b| b.invert(self.value, loc)))
    }
}
