//! Free-function forms of the operators, for what Rust's operator traits cannot say: a
//! comparison with a Rust value on the left (`lt(0, x)`: Rust's `<` must return `bool`),
//! and Triton's `cast(x, dtype, bitcast=True)`.

use crate::ir::{CmpPred, SourceLoc};
use crate::trace::with_builder;

use super::dtype::ScalarMarker;
use super::promotion::Promote;
use super::tensor::{Tensor, TensorOperand};

macro_rules! comparisons {
    ($($name:ident => $pred:ident, $doc:literal;)*) => {$(
        #[doc = $doc]
        /// Either side may be a tensor or a Rust value (Triton's scalar rule gives the
        /// dtype the two are compared in; see [`super::Tensor::lt`]).
        #[track_caller]
        pub fn $name<A: TensorOperand, B: TensorOperand>(a: A, b: B) -> Tensor<bool>
        where
            A::DType: Promote<B::DType>,
        {
            let loc = SourceLoc::caller();
            let (a, b) = (a.value(loc), b.value(loc));
            Tensor::from_value(with_builder(|bl| bl.compare(CmpPred::$pred, a, b, loc)))
        }
    )*};
}
comparisons! {
    lt => Lt, "`a < b` element-wise (ordered on floats: false when either is NaN).";
    le => Le, "`a <= b` element-wise (ordered).";
    gt => Gt, "`a > b` element-wise (ordered).";
    ge => Ge, "`a >= b` element-wise (ordered).";
    eq => Eq, "`a == b` element-wise (ordered; `-0.0 == +0.0`).";
    ne => Ne, "`a != b` element-wise (unordered: true when either is NaN).";
}

/// Triton's `tl.cast(x, dtype, bitcast=...)`: with `bitcast` the bits of `x` read as `U`
/// ([`Tensor::to_bitcast`], same bit width or a located error), else a value conversion
/// ([`Tensor::to`]).
#[track_caller]
pub fn cast<U: ScalarMarker, T: ScalarMarker>(x: Tensor<T>, bitcast: bool) -> Tensor<U> {
    if bitcast { x.to_bitcast::<U>() } else { x.to::<U>() }
}
