//! Triton's rule for an operator between a tensor and a *scalar* (rule 0 of Triton's
//! `computation_type_impl`): a Rust value next to a tensor (`x * 2`, `1.0 / x`, `lt(0, x)`)
//! is a Python `int`, `float` or `bool`, and does not widen the tensor. Kinds are ordered
//! `bool < int < float` (signed and unsigned ints are one kind):
//!
//! - a scalar of the tensor's kind or a lower one takes the tensor's dtype (`/` and `%` of
//!   an `f16` or `bf16` tensor compute in `f32`, as between tensors);
//! - a scalar of a higher kind takes part in the ordinary promotion (`promotion.rs`) with
//!   its default dtype: `i32` for an int, `f32` for a float (`x_i32 * 0.5` is `f32`,
//!   `mask & 1` is `i32`).
//!
//! An `i64` Rust value is not a scalar: written as an `i64` on purpose, it promotes like an
//! `i64` tensor. Nor are `full(&[], v)` or an argument folded to a constant: their Rust
//! type is a tensor's, and the IR must give the dtype the Rust types give.
//!
//! The same rule in two forms: the Rust types ([`IntScalar`], [`FloatScalar`],
//! [`BoolScalar`] and their `Promote` / `PromoteDiv` rows below, one per dtype) and the
//! IR ([`Builder::promote_scalar`], which `compute.rs` runs first on every operand pair).
//! `docs/semantics.md` ("Scalars next to tensors") has the table.

use half::{bf16, f16};

use super::promotion::{AddOutput, Promote, PromoteDiv};
use crate::ir::{Constant, DType, ScalarKind, ScalarType, Shape, SourceLoc, Value};
use crate::trace::Builder;

/// A Rust integer value (`i32`, the type of an unsuffixed literal) next to a tensor:
/// Triton's Python `int`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct IntScalar;
/// A Rust float value (`f32` or `f64`) next to a tensor: Triton's Python `float`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct FloatScalar;
/// A Rust `bool` next to a tensor: Triton's Python `bool`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct BoolScalar;

/// `tensor => [int, int for / and %], [float, ...], [bool, ...]`: the result dtype of an
/// op between a tensor of `tensor` and each scalar (`-`: refused, as in Triton). Both
/// orders get impls, and `+` follows `Promote`.
macro_rules! scalar_promote {
    ($($t:ty => [$ip:tt, $id:tt], [$fp:tt, $fd:tt], [$bp:tt, $bd:tt];)*) => {$(
        scalar_cell!(Promote, $t, IntScalar, $ip);
        scalar_cell!(PromoteDiv, $t, IntScalar, $id);
        scalar_cell!(Promote, $t, FloatScalar, $fp);
        scalar_cell!(PromoteDiv, $t, FloatScalar, $fd);
        scalar_cell!(Promote, $t, BoolScalar, $bp);
        scalar_cell!(PromoteDiv, $t, BoolScalar, $bd);
        impl AddOutput<IntScalar> for $t {
            type Output = <$t as Promote<IntScalar>>::Output;
        }
        impl AddOutput<FloatScalar> for $t {
            type Output = <$t as Promote<FloatScalar>>::Output;
        }
        impl AddOutput<BoolScalar> for $t {
            type Output = <$t as Promote<BoolScalar>>::Output;
        }
    )*};
}
macro_rules! scalar_cell {
    ($tr:ident, $t:ty, $s:ty, -) => {};
    ($tr:ident, $t:ty, $s:ty, $o:ty) => {
        impl $tr<$s> for $t {
            type Output = $o;
        }
        impl $tr<$t> for $s {
            type Output = $o;
        }
    };
}

#[rustfmt::skip]
scalar_promote! {
    // tensor   int           float         bool
    bool => [i32,  -   ], [f32,  f32 ], [bool, bool];
    i8   => [i8,   i8  ], [f32,  f32 ], [i8,   i8  ];
    i16  => [i16,  i16 ], [f32,  f32 ], [i16,  i16 ];
    i32  => [i32,  i32 ], [f32,  f32 ], [i32,  i32 ];
    i64  => [i64,  i64 ], [f32,  f32 ], [i64,  i64 ];
    u8   => [u8,   u8  ], [f32,  f32 ], [u8,   u8  ];
    u32  => [u32,  u32 ], [f32,  f32 ], [u32,  u32 ];
    u64  => [u64,  u64 ], [f32,  f32 ], [u64,  u64 ];
    f16  => [f16,  f32 ], [f16,  f32 ], [f16,  f32 ];
    bf16 => [bf16, f32 ], [bf16, f32 ], [bf16, f32 ];
    f32  => [f32,  f32 ], [f32,  f32 ], [f32,  f32 ];
    f64  => [f64,  f64 ], [f64,  f64 ], [f64,  f64 ];
}

/// A pointer plus a Rust integer is a pointer.
impl<E: super::dtype::ScalarMarker> AddOutput<IntScalar> for super::dtype::Ptr<E> {
    type Output = super::dtype::Ptr<E>;
}

/// Triton's kinds, lowest first: `{bool} < {integers} < {floats}`.
fn kind(s: ScalarType) -> u8 {
    match s.kind() {
        ScalarKind::Bool => 0,
        ScalarKind::UnsignedInt | ScalarKind::SignedInt => 1,
        ScalarKind::Float => 2,
    }
}

impl Builder {
    /// The constant for a Rust value of `dtype` next to a tensor (`i32` for an integer,
    /// `f32` for a float, `i1` for a `bool`), marked as a Triton scalar; an `i64` value is
    /// not one (see the module doc).
    pub fn scalar_literal(&mut self, c: Constant, dtype: DType, loc: SourceLoc) -> Value {
        let v = self.constant_value(c, dtype, Shape::scalar(), loc);
        if dtype != DType::I64 {
            self.triton_scalars.insert(v);
        }
        v
    }

    /// The operands of `a op b` converted by the scalar rule, `None` when it does not apply
    /// (no scalar or two, a pointer, or a scalar of a higher kind than the tensor, which
    /// the ordinary promotion handles): the scalar takes the tensor's dtype, `f32` for `/`
    /// and `%` (`div_or_mod`) of an `f16` or `bf16` tensor.
    pub(crate) fn promote_scalar(
        &mut self,
        a: Value,
        b: Value,
        div_or_mod: bool,
        loc: SourceLoc,
    ) -> Option<(Value, Value)> {
        let (sa, sb) = (self.triton_scalars.contains(&a), self.triton_scalars.contains(&b));
        if sa == sb {
            return None;
        }
        let (da, db) = (self.dtype(a).scalar()?, self.dtype(b).scalar()?);
        let (scalar, tensor) = if sa { (da, db) } else { (db, da) };
        if kind(scalar) > kind(tensor) {
            return None;
        }
        let to = match tensor {
            ScalarType::F16 | ScalarType::BF16 if div_or_mod => ScalarType::F32,
            t => t,
        };
        Some((self.cast(a, DType::Scalar(to), loc, false), self.cast(b, DType::Scalar(to), loc, false)))
    }
}
