//! Element-wise ops on whole blocks: arithmetic, comparisons, casts, `where` and pointer
//! offsets. The typing rules are checked by the verifier; each function here only
//! defines what the elements become (see `docs/semantics.md`).

use crate::ir::{BinaryOp, CmpPred, DType, ScalarType, UnaryOp};

use super::convert::cast_data;
use super::value::{Data, Trap, unsupported};
use crate::semantics::bits::{shifts_arithmetically, shl, shr, umulhi};
use crate::semantics::scalar::{
    f32_to_i32, f32_to_i64, max_f32, max_f64, min_f32, min_f64, unary_f32, unary_f64, unary_int,
};

fn zip_map<T: Copy, U>(a: &[T], b: &[T], f: impl Fn(T, T) -> U) -> Vec<U> {
    a.iter().zip(b).map(|(&x, &y)| f(x, y)).collect()
}

macro_rules! int_binary {
    ($name:ident, $t:ty, $s:expr) => {
        /// Integers wrap (two's complement); division truncates toward zero and
        /// `MIN / -1` wraps to `MIN` (remainder 0), as PTX `div.s32`/`rem.s32` do;
        /// division by zero is an error.
        fn $name(op: BinaryOp, x: &[$t], y: &[$t]) -> Result<Vec<$t>, Trap> {
            let f: fn($t, $t) -> $t = match op {
                BinaryOp::Add => <$t>::wrapping_add,
                BinaryOp::Sub => <$t>::wrapping_sub,
                BinaryOp::Mul => <$t>::wrapping_mul,
                BinaryOp::Max(_) => Ord::max,
                BinaryOp::Min(_) => Ord::min,
                BinaryOp::And => |a, b| a & b,
                BinaryOp::Or => |a, b| a | b,
                BinaryOp::Xor => |a, b| a ^ b,
                // Float-only: the front end refuses it on ints; hand-built IR is refused.
                BinaryOp::FDiv => return unsupported(format!("`{}` on an integer", op.name())),
                // PTX's clamping of the unsigned amount (`interp/bits.rs`).
                // (`as i64` keeps every bit of a u64; `bits` re-reads them at the width.)
                BinaryOp::Shl => |a, b| shl(a as i64, b as i64, <$t>::BITS) as $t,
                BinaryOp::Shr => |a, b| shr(a as i64, b as i64, <$t>::BITS, shifts_arithmetically($s)) as $t,
                BinaryOp::UMulHi => |a, b| umulhi(a as i64, b as i64, <$t>::BITS) as $t,
                BinaryOp::Div | BinaryOp::Rem => {
                    if let Some(lane) = y.iter().position(|&d| d == 0) {
                        return Err(Trap::DivisionByZero { lane });
                    }
                    if op == BinaryOp::Div { <$t>::wrapping_div } else { <$t>::wrapping_rem }
                }
            };
            Ok(zip_map(x, y, f))
        }
    };
}
int_binary!(binary_i32, i32, ScalarType::I32);
int_binary!(binary_i64, i64, ScalarType::I64);
int_binary!(binary_u32, u32, ScalarType::U32);
int_binary!(binary_u64, u64, ScalarType::U64);

/// IEEE binary64 arithmetic, as [`binary_f32`] (max/min with [`max_f64`]'s NaN rule).
fn binary_f64(op: BinaryOp, x: &[f64], y: &[f64]) -> Result<Vec<f64>, Trap> {
    Ok(match op {
        BinaryOp::Add => zip_map(x, y, |a, b| a + b),
        BinaryOp::Sub => zip_map(x, y, |a, b| a - b),
        BinaryOp::Mul => zip_map(x, y, |a, b| a * b),
        BinaryOp::Div => zip_map(x, y, |a, b| a / b),
        BinaryOp::Rem => zip_map(x, y, |a, b| a % b),
        // `div.full` is f32 only: the PTX back end refuses it on f64 (use `/`).
        BinaryOp::FDiv => return unsupported("`fdiv` on f64 (div.full is f32 only; use `/`)"),
        BinaryOp::Max(nan) => zip_map(x, y, |a, b| max_f64(a, b, nan)),
        BinaryOp::Min(nan) => zip_map(x, y, |a, b| min_f64(a, b, nan)),
        BinaryOp::And | BinaryOp::Or | BinaryOp::Xor | BinaryOp::Shl | BinaryOp::Shr | BinaryOp::UMulHi => {
            return unsupported(format!("`{}` on f64", op.name()));
        }
    })
}

/// IEEE round-to-nearest arithmetic (the PTX back end must emit `.rn` forms so that no
/// `mul`/`add` pair is contracted into an `fma`); `%` is C's `fmodf`; max/min follow PTX.
fn binary_f32(op: BinaryOp, x: &[f32], y: &[f32]) -> Result<Vec<f32>, Trap> {
    Ok(match op {
        BinaryOp::Add => zip_map(x, y, |a, b| a + b),
        BinaryOp::Sub => zip_map(x, y, |a, b| a - b),
        BinaryOp::Mul => zip_map(x, y, |a, b| a * b),
        BinaryOp::Div => zip_map(x, y, |a, b| a / b),
        BinaryOp::FDiv => zip_map(x, y, crate::semantics::math::div_full_f32),
        BinaryOp::Rem => zip_map(x, y, |a, b| a % b),
        // The strict comparisons decide almost every pair inline (they are false for NaN
        // and for equal values, which go to the full PTX rule).
        BinaryOp::Max(nan) => zip_map(x, y, |a, b| {
            if a > b {
                a
            } else if b > a {
                b
            } else {
                max_f32(a, b, nan)
            }
        }),
        BinaryOp::Min(nan) => zip_map(x, y, |a, b| {
            if a < b {
                a
            } else if b < a {
                b
            } else {
                min_f32(a, b, nan)
            }
        }),
        BinaryOp::And | BinaryOp::Or | BinaryOp::Xor | BinaryOp::Shl | BinaryOp::Shr | BinaryOp::UMulHi => {
            return unsupported(format!("`{}` on f32", op.name()));
        }
    })
}

/// `i1` is a one-bit integer: `+`/`-` are xor, `*` and min are and, max is or.
fn binary_bool(op: BinaryOp, x: &[bool], y: &[bool]) -> Result<Vec<bool>, Trap> {
    Ok(match op {
        BinaryOp::And | BinaryOp::Mul | BinaryOp::Min(_) => zip_map(x, y, |a, b| a & b),
        BinaryOp::Or | BinaryOp::Max(_) => zip_map(x, y, |a, b| a | b),
        BinaryOp::Xor | BinaryOp::Add | BinaryOp::Sub => zip_map(x, y, |a, b| a ^ b),
        BinaryOp::FDiv => return unsupported("`fdiv` on i1"),
        BinaryOp::Shl | BinaryOp::Shr | BinaryOp::UMulHi => return unsupported(format!("`{}` on i1", op.name())),
        BinaryOp::Div | BinaryOp::Rem => {
            if let Some(lane) = y.iter().position(|&d| !d) {
                return Err(Trap::DivisionByZero { lane });
            }
            if op == BinaryOp::Div { x.to_vec() } else { vec![false; x.len()] }
        }
    })
}

/// `op x` element-wise, with the element semantics of [`crate::semantics::scalar::unary_f32`] and
/// [`crate::semantics::scalar::unary_int`] (which the simulator shares).
pub(crate) fn unary(op: UnaryOp, x: &Data) -> Result<Data, Trap> {
    let on_int = |v: i64| unary_int(op, v).map_or_else(|| unsupported(format!("`{}` on an integer", op.name())), Ok);
    Ok(match x {
        Data::I32(x) => Data::I32(x.iter().map(|&v| on_int(i64::from(v)).map(|r| r as i32)).collect::<Result<_, _>>()?),
        Data::I64(x) => Data::I64(x.iter().map(|&v| on_int(v)).collect::<Result<_, _>>()?),
        Data::F32(x) => Data::F32(x.iter().map(|&v| unary_f32(op, v)).collect()),
        Data::U32(x) => Data::U32(x.iter().map(|&v| on_int(i64::from(v)).map(|r| r as u32)).collect::<Result<_, _>>()?),
        Data::U64(x) => Data::U64(x.iter().map(|&v| on_int(v as i64).map(|r| r as u64)).collect::<Result<_, _>>()?),
        Data::F64(x) => Data::F64(x.iter().map(|&v| unary_f64(op, v)).collect()),
        a => return unsupported(format!("`{}` on {}", op.name(), a.kind())),
    })
}

/// `lhs op rhs` element-wise (operands of one type and shape).
pub(crate) fn binary(op: BinaryOp, lhs: &Data, rhs: &Data) -> Result<Data, Trap> {
    Ok(match (lhs, rhs) {
        (Data::I32(x), Data::I32(y)) => Data::I32(binary_i32(op, x, y)?),
        (Data::I64(x), Data::I64(y)) => Data::I64(binary_i64(op, x, y)?),
        (Data::F32(x), Data::F32(y)) => Data::F32(binary_f32(op, x, y)?),
        (Data::Bool(x), Data::Bool(y)) => Data::Bool(binary_bool(op, x, y)?),
        (Data::U32(x), Data::U32(y)) => Data::U32(binary_u32(op, x, y)?),
        (Data::U64(x), Data::U64(y)) => Data::U64(binary_u64(op, x, y)?),
        (Data::F64(x), Data::F64(y)) => Data::F64(binary_f64(op, x, y)?),
        (a, b) => return unsupported(format!("`{}` on {} and {}", op.name(), a.kind(), b.kind())),
    })
}

fn compare_ord<T: PartialOrd + Copy>(pred: CmpPred, x: &[T], y: &[T]) -> Vec<bool> {
    match pred {
        CmpPred::Lt => zip_map(x, y, |a, b| a < b),
        CmpPred::Le => zip_map(x, y, |a, b| a <= b),
        CmpPred::Gt => zip_map(x, y, |a, b| a > b),
        CmpPred::Ge => zip_map(x, y, |a, b| a >= b),
        CmpPred::Eq => zip_map(x, y, |a, b| a == b),
        CmpPred::Ne => zip_map(x, y, |a, b| a != b),
    }
}

/// Comparison into `i1`. On floats every predicate but `ne` is ordered (false when an
/// operand is NaN) and `ne` is unordered (true when an operand is NaN): Python's and
/// Triton's `!=` (PTX `setp.neu.f32`); `-0.0 == +0.0`. Pointers compare as addresses.
pub(crate) fn compare(pred: CmpPred, lhs: &Data, rhs: &Data) -> Result<Data, Trap> {
    Ok(Data::Bool(match (lhs, rhs) {
        (Data::I32(x), Data::I32(y)) => compare_ord(pred, x, y),
        (Data::I64(x), Data::I64(y)) => compare_ord(pred, x, y),
        (Data::F32(x), Data::F32(y)) => compare_ord(pred, x, y),
        (Data::Bool(x), Data::Bool(y)) => compare_ord(pred, x, y),
        (Data::Ptr(x), Data::Ptr(y)) => compare_ord(pred, x, y),
        (Data::U32(x), Data::U32(y)) => compare_ord(pred, x, y),
        (Data::U64(x), Data::U64(y)) => compare_ord(pred, x, y),
        (Data::F64(x), Data::F64(y)) => compare_ord(pred, x, y),
        (a, b) => return unsupported(format!("comparison of {} and {}", a.kind(), b.kind())),
    }))
}

/// Conversion to `to` (the rules of `OpKind::Cast`, see `convert.rs`): int widening
/// extends by the source's signedness, narrowing wraps, int to float rounds to nearest
/// even, float to int truncates toward zero with saturation and NaN to 0, anything to
/// `i1` is `!= 0` (NaN gives true), `i1` is 0 or 1. The pairs of the original four types
/// keep their direct (fast) arms; every other pair goes through `convert::cast_data`.
pub(crate) fn cast(v: &Data, to: DType) -> Result<Data, Trap> {
    let DType::Scalar(to) = to else { return unsupported(format!("cast of {} to a pointer", v.kind())) };
    fn map<T: Copy, U>(v: &[T], f: impl Fn(T) -> U) -> Vec<U> {
        v.iter().map(|&x| f(x)).collect()
    }
    Ok(match (v, to) {
        (Data::Bool(x), ScalarType::Bool) => Data::Bool(x.clone()),
        (Data::Bool(x), ScalarType::I32) => Data::I32(map(x, i32::from)),
        (Data::Bool(x), ScalarType::I64) => Data::I64(map(x, i64::from)),
        (Data::Bool(x), ScalarType::F32) => Data::F32(map(x, |b| if b { 1.0 } else { 0.0 })),
        (Data::I32(x), ScalarType::Bool) => Data::Bool(map(x, |i| i != 0)),
        (Data::I32(x), ScalarType::I32) => Data::I32(x.clone()),
        (Data::I32(x), ScalarType::I64) => Data::I64(map(x, i64::from)),
        (Data::I32(x), ScalarType::F32) => Data::F32(map(x, |i| i as f32)),
        (Data::I64(x), ScalarType::Bool) => Data::Bool(map(x, |i| i != 0)),
        (Data::I64(x), ScalarType::I32) => Data::I32(map(x, |i| i as i32)),
        (Data::I64(x), ScalarType::I64) => Data::I64(x.clone()),
        (Data::I64(x), ScalarType::F32) => Data::F32(map(x, |i| i as f32)),
        (Data::F32(x), ScalarType::Bool) => Data::Bool(map(x, |f| f != 0.0)),
        (Data::F32(x), ScalarType::I32) => Data::I32(map(x, f32_to_i32)),
        (Data::F32(x), ScalarType::I64) => Data::I64(map(x, f32_to_i64)),
        (Data::F32(x), ScalarType::F32) => Data::F32(x.clone()),
        (Data::Ptr(_), _) => return unsupported("cast of a pointer"),
        // a pair with one of the newer dtypes: the generic conversion (data and a type, not an op kind)
        (v, to) => cast_data(v, to)?,
    })
}

/// `Ok` when every element of the int block `x` is a multiple of `divisor` (the promise
/// of a `multiple_of`), else the first lane that is not.
pub(crate) fn check_multiple_of(x: &Data, divisor: u64) -> Result<(), Trap> {
    fn first_off<T: Copy + Into<i128>>(v: &[T], divisor: u64) -> Result<(), Trap> {
        let d = i128::from(divisor.max(1));
        match v.iter().position(|&e| e.into() % d != 0) {
            Some(lane) => Err(Trap::NotAMultiple { lane, value: v[lane].into(), divisor }),
            None => Ok(()),
        }
    }
    match x {
        Data::I32(v) => first_off(v, divisor),
        Data::I64(v) => first_off(v, divisor),
        Data::I8(v) => first_off(v, divisor),
        Data::I16(v) => first_off(v, divisor),
        Data::U8(v) => first_off(v, divisor),
        Data::U32(v) => first_off(v, divisor),
        Data::U64(v) => first_off(v, divisor),
        other => unsupported(format!("multiple_of of a {} block", other.kind())),
    }
}

/// A `device_assert`'s condition: every element true.
pub(crate) fn check_device_assert(cond: &Data) -> Result<(), Trap> {
    let Data::Bool(c) = cond else {
        return unsupported(format!("device_assert of a {} condition", cond.kind()));
    };
    match c.iter().position(|&b| !b) {
        Some(lane) => Err(Trap::FailedDeviceAssert { lane }),
        None => Ok(()),
    }
}

/// An `assume`'s condition: every element true.
pub(crate) fn check_assume(cond: &Data) -> Result<(), Trap> {
    let Data::Bool(c) = cond else { return unsupported(format!("assume of a {} condition", cond.kind())) };
    match c.iter().position(|&x| !x) {
        Some(lane) => Err(Trap::BrokenAssume { lane }),
        None => Ok(()),
    }
}

/// `cond ? a : b` element-wise.
pub(crate) fn select(cond: &Data, a: &Data, b: &Data) -> Result<Data, Trap> {
    let Data::Bool(c) = cond else { return unsupported(format!("where with a {} condition", cond.kind())) };
    fn pick<T: Copy>(c: &[bool], a: &[T], b: &[T]) -> Vec<T> {
        c.iter().zip(a.iter().zip(b)).map(|(&c, (&x, &y))| if c { x } else { y }).collect()
    }
    Ok(match (a, b) {
        (Data::Bool(x), Data::Bool(y)) => Data::Bool(pick(c, x, y)),
        (Data::I32(x), Data::I32(y)) => Data::I32(pick(c, x, y)),
        (Data::I64(x), Data::I64(y)) => Data::I64(pick(c, x, y)),
        (Data::F32(x), Data::F32(y)) => Data::F32(pick(c, x, y)),
        (Data::Ptr(x), Data::Ptr(y)) => Data::Ptr(pick(c, x, y)),
        (Data::I8(x), Data::I8(y)) => Data::I8(pick(c, x, y)),
        (Data::I16(x), Data::I16(y)) => Data::I16(pick(c, x, y)),
        (Data::U8(x), Data::U8(y)) => Data::U8(pick(c, x, y)),
        (Data::U32(x), Data::U32(y)) => Data::U32(pick(c, x, y)),
        (Data::U64(x), Data::U64(y)) => Data::U64(pick(c, x, y)),
        (Data::F16(x), Data::F16(y)) => Data::F16(pick(c, x, y)),
        (Data::BF16(x), Data::BF16(y)) => Data::BF16(pick(c, x, y)),
        (Data::F64(x), Data::F64(y)) => Data::F64(pick(c, x, y)),
        (Data::F8E4M3(x), Data::F8E4M3(y)) => Data::F8E4M3(pick(c, x, y)),
        (Data::F8E5M2(x), Data::F8E5M2(y)) => Data::F8E5M2(pick(c, x, y)),
        (x, y) => return unsupported(format!("where between {} and {}", x.kind(), y.kind())),
    })
}

/// `ptr + offset * elem_bytes` in 64-bit arithmetic (an i32 offset is sign-extended
/// first; the address wraps like the GPU's 64-bit add).
pub(crate) fn add_ptr(ptr: &Data, offset: &Data, elem_bytes: u64) -> Result<Data, Trap> {
    let Data::Ptr(p) = ptr else { return unsupported(format!("addptr on {}", ptr.kind())) };
    let step = |a: u64, o: i64| a.wrapping_add(o.wrapping_mul(elem_bytes as i64) as u64);
    Ok(Data::Ptr(match offset {
        Data::I32(o) => p.iter().zip(o).map(|(&a, &o)| step(a, i64::from(o))).collect(),
        Data::I64(o) => p.iter().zip(o).map(|(&a, &o)| step(a, o)).collect(),
        other => return unsupported(format!("addptr with {} offsets", other.kind())),
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn i32_arithmetic_wraps_like_the_gpu() {
        let r = binary(BinaryOp::Add, &Data::I32(vec![i32::MAX]), &Data::I32(vec![1])).unwrap();
        assert_eq!(r, Data::I32(vec![i32::MIN]));
        let r = binary(BinaryOp::Mul, &Data::I32(vec![65536]), &Data::I32(vec![65536])).unwrap();
        assert_eq!(r, Data::I32(vec![0]));
        // Measured on an H200: div.s32 INT_MIN / -1 = INT_MIN, rem.s32 = 0.
        let r = binary(BinaryOp::Div, &Data::I32(vec![i32::MIN, -7]), &Data::I32(vec![-1, 2])).unwrap();
        assert_eq!(r, Data::I32(vec![i32::MIN, -3]));
        let r = binary(BinaryOp::Rem, &Data::I32(vec![i32::MIN, -7]), &Data::I32(vec![-1, 2])).unwrap();
        assert_eq!(r, Data::I32(vec![0, -1]));
    }

    #[test]
    fn integer_division_by_zero_names_the_lane() {
        let r = binary(BinaryOp::Div, &Data::I64(vec![1, 2, 3]), &Data::I64(vec![1, 0, 0]));
        assert_eq!(r, Err(Trap::DivisionByZero { lane: 1 }));
    }

    #[test]
    fn float_ne_is_unordered_and_the_rest_ordered() {
        let (n, one) = (Data::F32(vec![f32::NAN]), Data::F32(vec![1.0]));
        assert_eq!(compare(CmpPred::Ne, &n, &one).unwrap(), Data::Bool(vec![true]));
        assert_eq!(compare(CmpPred::Lt, &n, &one).unwrap(), Data::Bool(vec![false]));
        assert_eq!(
            compare(CmpPred::Eq, &Data::F32(vec![-0.0]), &Data::F32(vec![0.0])).unwrap(),
            Data::Bool(vec![true])
        );
    }

    #[test]
    fn casts_follow_the_documented_rules() {
        assert_eq!(cast(&Data::I64(vec![1 << 32 | 5, -1]), DType::I32).unwrap(), Data::I32(vec![5, -1]));
        assert_eq!(cast(&Data::I32(vec![-2]), DType::I64).unwrap(), Data::I64(vec![-2]));
        assert_eq!(cast(&Data::I32(vec![16_777_217]), DType::F32).unwrap(), Data::F32(vec![16_777_216.0]));
        assert_eq!(cast(&Data::F32(vec![f32::NAN, -1.5]), DType::BOOL).unwrap(), Data::Bool(vec![true, true]));
        assert!(cast(&Data::Ptr(vec![0]), DType::I64).is_err());
    }

    #[test]
    fn pointer_offsets_are_scaled_in_64_bits() {
        let r = add_ptr(&Data::Ptr(vec![0x1_0000_0000]), &Data::I32(vec![-1]), 4).unwrap();
        assert_eq!(r, Data::Ptr(vec![0xFFFF_FFFC]));
        let r = add_ptr(&Data::Ptr(vec![0]), &Data::I64(vec![1 << 40]), 4).unwrap();
        assert_eq!(r, Data::Ptr(vec![1 << 42]));
    }
}
