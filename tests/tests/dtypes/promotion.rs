//! The promotion table as data: (lhs, rhs) -> result, for every op but `/` and `%` and
//! for them, checked against Triton's rule (`computation_type`) and against the Rust
//! types `Tensor<L> + Tensor<R>` and `Tensor<L> / Tensor<R>` get.

use half::{bf16, f16};
use rstest::rstest;
use rtriton::ir::ScalarType as S;
use rtriton::lang::promotion::computation_type;
use rtriton::prelude::*;

#[rstest]
#[case::f16_f16(S::F16, S::F16, Some(S::F16), Some(S::F32))]
#[case::f16_bf16_is_f16_as_in_triton(S::F16, S::BF16, Some(S::F16), Some(S::F32))]
#[case::bf16_bf16(S::BF16, S::BF16, Some(S::BF16), Some(S::F32))]
#[case::bf16_i32(S::BF16, S::I32, Some(S::F32), Some(S::F32))]
#[case::f16_i64(S::F16, S::I64, Some(S::F16), Some(S::F32))]
#[case::f32_f64(S::F32, S::F64, Some(S::F64), Some(S::F64))]
#[case::f16_f64(S::F16, S::F64, Some(S::F64), Some(S::F64))]
#[case::i32_f32(S::I32, S::F32, Some(S::F32), Some(S::F32))]
#[case::u64_f16(S::U64, S::F16, Some(S::F16), Some(S::F32))]
#[case::i32_u32_is_unsigned(S::I32, S::U32, Some(S::U32), None)]
#[case::i64_u32_is_signed(S::I64, S::U32, Some(S::I64), None)]
#[case::i64_u64(S::I64, S::U64, Some(S::U64), None)]
#[case::i8_u8(S::I8, S::U8, Some(S::U8), None)]
#[case::i16_u8(S::I16, S::U8, Some(S::I16), None)]
#[case::i8_i16(S::I8, S::I16, Some(S::I16), Some(S::I16))]
#[case::i32_i64(S::I32, S::I64, Some(S::I64), Some(S::I64))]
#[case::bool_i8(S::Bool, S::I8, Some(S::I8), None)]
#[case::bool_u8(S::Bool, S::U8, Some(S::U8), Some(S::U8))]
#[case::bool_bool(S::Bool, S::Bool, Some(S::Bool), Some(S::Bool))]
fn promotion_table(#[case] a: S, #[case] b: S, #[case] op: Option<S>, #[case] div: Option<S>) {
    assert_eq!(computation_type(a, b, false).ok(), op, "{a} op {b}");
    assert_eq!(computation_type(b, a, false).ok(), op, "{b} op {a}");
    assert_eq!(computation_type(a, b, true).ok(), div, "{a} / {b}");
}

fn add_type<L: Promote<R>, R>() -> DType {
    <<L as Promote<R>>::Output as DTypeMarker>::DTYPE
}

fn div_type<L: PromoteDiv<R>, R>() -> DType {
    <<L as PromoteDiv<R>>::Output as DTypeMarker>::DTYPE
}

#[test]
fn rust_types_follow_the_table() {
    assert_eq!(add_type::<f16, f16>(), DType::Scalar(S::F16));
    assert_eq!(div_type::<f16, f16>(), DType::F32);
    assert_eq!(add_type::<f16, bf16>(), DType::Scalar(S::F16));
    assert_eq!(add_type::<bf16, i32>(), DType::F32);
    assert_eq!(add_type::<i32, u32>(), DType::Scalar(S::U32));
    assert_eq!(add_type::<u8, i32>(), DType::I32);
    assert_eq!(add_type::<f32, f64>(), DType::Scalar(S::F64));
    assert_eq!(div_type::<u32, u32>(), DType::Scalar(S::U32));
}

use rtriton::ir::DType;
