//! The promotion table: the result dtype of a binary op, comparison or `where` between
//! two dtypes, after Triton's `computation_type_impl` and `integer_promote_impl`
//! (`python/triton/language/semantic.py`). One rule, three forms that tests keep equal:
//!
//! - [`computation_type`], the rule as code, which the front end (`semantic.rs`) applies
//!   to every operand pair;
//! - the Rust trait impls [`Promote`] (every op but `/` and `%`) and [`PromoteDiv`] (`/`
//!   and `%`), which give `Tensor<L> op Tensor<R>` its type at compile time, generated
//!   from the two tables below;
//! - [`PROMOTE_TABLE`] / [`PROMOTE_DIV_TABLE`], the same tables as data, and the table in
//!   `docs/semantics.md` ("Promotion").
//!
//! The rule, in order: `f64` with anything is `f64`; else `f32` with anything is `f32`;
//! else `f16` with anything is `f16` (`f32` for `/` and `%`); else `bf16` with `bf16` is
//! `bf16` and `bf16` with anything else `f32` (`f32` for `/` and `%`); else both are
//! integers (`i1` is an unsigned 1-bit integer): the same signedness gives the wider; a
//! signed and an unsigned give the unsigned one when it is at least as wide, else the
//! signed one; `/` and `%` between different signedness are refused (Triton's
//! `TypeError`). Triton's rule 0 (a Python scalar of a lower kind does not take part) is
//! in `scalars.rs`: a Rust value next to a tensor (`1`, `2.0`, `true`) takes its dtype.

use half::{bf16, f16};

use super::dtype::{DTypeMarker, ScalarMarker};
use crate::ir::{ScalarKind, ScalarType};

/// The result dtype of an arithmetic op, comparison or `where` between `Self` and `R`
/// (every op but `/` and `%`; see the module doc).
pub trait Promote<R> {
    type Output: DTypeMarker;
}

/// The result dtype of `/` and `%` between `Self` and `R`: as [`Promote`], but `f16` and
/// `bf16` give `f32`, and integers of different signedness have none.
pub trait PromoteDiv<R> {
    type Output: DTypeMarker;
}

/// The result of `Self + R`: numeric pairs promote as [`Promote`]; a pointer plus an
/// integer offset of any width is a pointer.
pub trait AddOutput<R> {
    type Output: DTypeMarker;
}

/// Triton's `integer_promote_impl` on two integer types (`i1` counts as unsigned).
fn integer_promote(a: ScalarType, b: ScalarType) -> ScalarType {
    let bits = |t: ScalarType| t.int_bits().unwrap_or(1);
    let signed = |t: ScalarType| t.kind() == ScalarKind::SignedInt;
    match (signed(a), signed(b)) {
        (x, y) if x == y => {
            if bits(a) > bits(b) {
                a
            } else {
                b
            }
        }
        (false, _) => {
            if bits(a) >= bits(b) {
                a
            } else {
                b
            }
        }
        (true, _) => {
            if bits(b) >= bits(a) {
                b
            } else {
                a
            }
        }
    }
}

/// Triton's `computation_type_impl`: the dtype both operands of a binary op are converted
/// to (`div_or_mod` for `/` and `%`). `Err` names why there is none.
pub fn computation_type(a: ScalarType, b: ScalarType, div_or_mod: bool) -> Result<ScalarType, String> {
    use ScalarType::{BF16, F16, F32, F64};
    let either = |t: ScalarType| a == t || b == t;
    if either(F64) {
        return Ok(F64);
    }
    if either(F32) {
        return Ok(F32);
    }
    if either(F16) {
        return Ok(if div_or_mod { F32 } else { F16 });
    }
    if either(BF16) {
        return Ok(if !div_or_mod && a == b { BF16 } else { F32 });
    }
    let signed = |t: ScalarType| t.kind() == ScalarKind::SignedInt;
    if div_or_mod && signed(a) != signed(b) {
        return Err(format!(
            "`/` and `%` between {a} and {b} (different signedness) are refused, as in Triton: the result is unlikely to be useful"
        ));
    }
    Ok(integer_promote(a, b))
}

/// `promote_impls!(Trait, TABLE; [columns]; lhs => [results]; ...)`: one impl of `Trait`
/// per cell (`-`: none), and the same table as data.
macro_rules! promote_impls {
    ($tr:ident, $table:ident; $cols:tt; $($lhs:ty => $row:tt;)*) => {
        $( promote_row!($tr; $lhs; $cols; $row); )*
        #[doc = concat!("[`", stringify!($tr), "`] as data: `", stringify!($table), "[i][j]` for the types of [`TABLE_ORDER`] (`None`: no result).")]
        pub const $table: [[Option<ScalarType>; 12]; 12] = [$( promote_entries!($cols; $row) ),*];
    };
}
macro_rules! promote_row {
    ($tr:ident; $lhs:ty; [$($col:ty),*]; [$($out:tt),*]) => {
        $( promote_cell!($tr; $lhs; $col; $out); )*
    };
}
macro_rules! promote_cell {
    ($tr:ident; $lhs:ty; $col:ty; -) => {};
    ($tr:ident; $lhs:ty; $col:ty; $out:ty) => {
        impl $tr<$col> for $lhs {
            type Output = $out;
        }
    };
}
macro_rules! promote_entries {
    ([$($col:ty),*]; [$($out:tt),*]) => { [$( promote_entry!($out) ),*] };
}
macro_rules! promote_entry {
    (-) => {
        None
    };
    ($out:ty) => {
        Some(<$out as ScalarMarker>::SCALAR)
    };
}

/// The order of the rows and columns of [`PROMOTE_TABLE`] and [`PROMOTE_DIV_TABLE`].
pub const TABLE_ORDER: [ScalarType; 12] = [
    ScalarType::Bool,
    ScalarType::I8,
    ScalarType::I16,
    ScalarType::I32,
    ScalarType::I64,
    ScalarType::U8,
    ScalarType::U32,
    ScalarType::U64,
    ScalarType::F16,
    ScalarType::BF16,
    ScalarType::F32,
    ScalarType::F64,
];

#[rustfmt::skip]
promote_impls! { Promote, PROMOTE_TABLE;
    //       bool  i8    i16   i32   i64   u8    u32   u64   f16   bf16  f32   f64
            [bool, i8,   i16,  i32,  i64,  u8,   u32,  u64,  f16,  bf16, f32,  f64];
    bool => [bool, i8,   i16,  i32,  i64,  u8,   u32,  u64,  f16,  f32,  f32,  f64];
    i8   => [i8,   i8,   i16,  i32,  i64,  u8,   u32,  u64,  f16,  f32,  f32,  f64];
    i16  => [i16,  i16,  i16,  i32,  i64,  i16,  u32,  u64,  f16,  f32,  f32,  f64];
    i32  => [i32,  i32,  i32,  i32,  i64,  i32,  u32,  u64,  f16,  f32,  f32,  f64];
    i64  => [i64,  i64,  i64,  i64,  i64,  i64,  i64,  u64,  f16,  f32,  f32,  f64];
    u8   => [u8,   u8,   i16,  i32,  i64,  u8,   u32,  u64,  f16,  f32,  f32,  f64];
    u32  => [u32,  u32,  u32,  u32,  i64,  u32,  u32,  u64,  f16,  f32,  f32,  f64];
    u64  => [u64,  u64,  u64,  u64,  u64,  u64,  u64,  u64,  f16,  f32,  f32,  f64];
    f16  => [f16,  f16,  f16,  f16,  f16,  f16,  f16,  f16,  f16,  f16,  f32,  f64];
    bf16 => [f32,  f32,  f32,  f32,  f32,  f32,  f32,  f32,  f16,  bf16, f32,  f64];
    f32  => [f32,  f32,  f32,  f32,  f32,  f32,  f32,  f32,  f32,  f32,  f32,  f64];
    f64  => [f64,  f64,  f64,  f64,  f64,  f64,  f64,  f64,  f64,  f64,  f64,  f64];
}

#[rustfmt::skip]
promote_impls! { PromoteDiv, PROMOTE_DIV_TABLE;
    //       bool  i8    i16   i32   i64   u8    u32   u64   f16   bf16  f32   f64
            [bool, i8,   i16,  i32,  i64,  u8,   u32,  u64,  f16,  bf16, f32,  f64];
    bool => [bool, -,    -,    -,    -,    u8,   u32,  u64,  f32,  f32,  f32,  f64];
    i8   => [-,    i8,   i16,  i32,  i64,  -,    -,    -,    f32,  f32,  f32,  f64];
    i16  => [-,    i16,  i16,  i32,  i64,  -,    -,    -,    f32,  f32,  f32,  f64];
    i32  => [-,    i32,  i32,  i32,  i64,  -,    -,    -,    f32,  f32,  f32,  f64];
    i64  => [-,    i64,  i64,  i64,  i64,  -,    -,    -,    f32,  f32,  f32,  f64];
    u8   => [u8,   -,    -,    -,    -,    u8,   u32,  u64,  f32,  f32,  f32,  f64];
    u32  => [u32,  -,    -,    -,    -,    u32,  u32,  u64,  f32,  f32,  f32,  f64];
    u64  => [u64,  -,    -,    -,    -,    u64,  u64,  u64,  f32,  f32,  f32,  f64];
    f16  => [f32,  f32,  f32,  f32,  f32,  f32,  f32,  f32,  f32,  f32,  f32,  f64];
    bf16 => [f32,  f32,  f32,  f32,  f32,  f32,  f32,  f32,  f32,  f32,  f32,  f64];
    f32  => [f32,  f32,  f32,  f32,  f32,  f32,  f32,  f32,  f32,  f32,  f32,  f64];
    f64  => [f64,  f64,  f64,  f64,  f64,  f64,  f64,  f64,  f64,  f64,  f64,  f64];
}

/// An fp8 pair of one format keeps its type, as in Triton's `computation_type_impl`, so
/// `x + y` on two `Tensor<F8E4M3>` type-checks; tracing then refuses the arithmetic with
/// a located error that says to convert first (`compute.rs`). No other pair with an fp8
/// side has a result: the Rust compiler refuses those.
macro_rules! fp8_same_type {
    ($($t:ty),*) => {$(
        impl Promote<$t> for $t {
            type Output = $t;
        }
        impl PromoteDiv<$t> for $t {
            type Output = $t;
        }
    )*};
}
fp8_same_type!(crate::semantics::fp8_types::F8E4M3, crate::semantics::fp8_types::F8E5M2);

/// `L + R` between numbers is `Promote`'s result.
impl<L: Promote<R>, R: DTypeMarker> AddOutput<R> for L {
    type Output = <L as Promote<R>>::Output;
}

macro_rules! ptr_offsets {
    ($($t:ty),*) => {$(
        impl<E: ScalarMarker> AddOutput<$t> for super::dtype::Ptr<E> {
            type Output = super::dtype::Ptr<E>;
        }
    )*};
}
ptr_offsets!(i8, i16, i32, i64, u8, u32, u64);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_tables_are_tritons_rule() {
        for (i, &a) in TABLE_ORDER.iter().enumerate() {
            for (j, &b) in TABLE_ORDER.iter().enumerate() {
                assert_eq!(PROMOTE_TABLE[i][j], computation_type(a, b, false).ok(), "{a} op {b}");
                assert_eq!(PROMOTE_DIV_TABLE[i][j], computation_type(a, b, true).ok(), "{a} / {b}");
            }
        }
    }

    #[test]
    fn the_table_is_symmetric() {
        for i in 0..12 {
            for j in 0..12 {
                assert_eq!(PROMOTE_TABLE[i][j], PROMOTE_TABLE[j][i]);
                assert_eq!(PROMOTE_DIV_TABLE[i][j], PROMOTE_DIV_TABLE[j][i]);
            }
        }
    }
}
