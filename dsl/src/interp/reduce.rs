//! Reductions along one axis of a block.
//!
//! Max and min combine the elements themselves with PTX `max.f32`/`min.f32` (no identity
//! element is folded in): that operation is commutative and associative once NaN results
//! are canonical and `+0.0 > -0.0`, so the GPU's shuffle tree and this left-to-right fold
//! give the same bits, and a block that holds only NaN reduces to the canonical NaN as on
//! the GPU. `sum` fixes no order (`docs/semantics.md`): the interpreter adds a float line
//! pairwise, in the balanced tree `reduce` uses (`(0, 1), (2, 3), ...`, then those
//! results), so its error grows with `log2(n)`, not `n`; the GPU adds each thread's
//! elements in turn and then across threads in a tree, so float sums are not bit-exact
//! across back ends.
//!
//! An axis of exactly one element still applies the reduction's NaN rule: a float max
//! (min) of one element is `max.f32(-inf, x)` (`min.f32(+inf, x)`), as Triton's and
//! CUDA's `fmaxf(-inf, x)` give, so a lone NaN becomes `-inf` (`+inf`) under
//! `PropagateNan::None` and the canonical NaN under `All`; it never keeps its payload.

use crate::ir::ReduceOp;

use super::value::{Data, Trap, unsupported};
use crate::semantics::scalar::{max_f32, max_f64, min_f32, min_f64};

/// `dims` split around `axis`: (elements before, length of the axis, elements after).
fn split(dims: &[usize], axis: usize) -> (usize, usize, usize) {
    let outer = dims[..axis].iter().product();
    let inner = dims[axis + 1..].iter().product();
    (outer, dims[axis], inner)
}

/// Applies `f` to every line along the axis (each given as an iterator over its
/// elements); `f` gives `None` only for an empty line, which block shapes rule out.
fn lines<T: Copy, U>(
    v: &[T],
    dims: &[usize],
    axis: usize,
    f: impl Fn(&mut dyn Iterator<Item = T>) -> Option<U>,
) -> Result<Vec<U>, Trap> {
    let (outer, n, inner) = split(dims, axis);
    if v.len() != outer * n * inner {
        return unsupported(format!("a reduction of {} elements as shape {dims:?}", v.len()));
    }
    let mut out = Vec::with_capacity(outer * inner);
    for o in 0..outer {
        for i in 0..inner {
            let mut it = (0..n).map(|k| v[(o * n + k) * inner + i]);
            match f(&mut it) {
                Some(r) => out.push(r),
                None => return unsupported("a reduction along an empty axis"),
            }
        }
    }
    Ok(out)
}

/// The line combined pairwise: `(0, 1), (2, 3), ...`, then those results the same way
/// (an odd last element goes up a round unchanged); `None` for an empty line.
fn pairwise<T: Copy>(it: &mut dyn Iterator<Item = T>, f: impl Fn(T, T) -> T) -> Option<T> {
    let mut v: Vec<T> = it.collect();
    while v.len() > 1 {
        v = v.chunks(2).map(|p| if let [a, b] = p { f(*a, *b) } else { p[0] }).collect();
    }
    v.pop()
}

/// The index of the first maximum along a line, skipping NaN (`v > best` never holds
/// for NaN); ties, `-0.0` against `+0.0` included, keep the smallest index; a line of
/// only NaN gives 0.
fn argmax_line<T: PartialOrd + Copy>(it: &mut dyn Iterator<Item = T>) -> Option<i32> {
    arg_line(it, |v, best| v > best)
}

/// `argmax_line`'s mirror: the index of the first minimum, NaN skipped, all-NaN gives 0.
fn argmin_line<T: PartialOrd + Copy>(it: &mut dyn Iterator<Item = T>) -> Option<i32> {
    arg_line(it, |v, best| v < best)
}

/// The index of the first element no later element `beats`, NaN skipped.
fn arg_line<T: PartialOrd + Copy>(it: &mut dyn Iterator<Item = T>, beats: fn(T, T) -> bool) -> Option<i32> {
    let mut best: Option<(T, usize)> = None;
    for (k, v) in it.enumerate() {
        #[allow(clippy::eq_op, reason = "`v == v` is false exactly for NaN")]
        let is_nan = v != v;
        if is_nan {
            continue;
        }
        let better = match best {
            None => true,
            Some((b, _)) => beats(v, b),
        };
        if better {
            best = Some((v, k));
        }
    }
    Some(best.map_or(0, |(_, k)| k as i32))
}

macro_rules! int_reduce {
    ($v:expr, $dims:expr, $axis:expr, $op:expr, $variant:ident) => {{
        let (v, dims, axis) = ($v, $dims, $axis);
        match $op {
            ReduceOp::Max(_) => Data::$variant(lines(v, dims, axis, |it| it.reduce(Ord::max))?),
            ReduceOp::Min(_) => Data::$variant(lines(v, dims, axis, |it| it.reduce(Ord::min))?),
            ReduceOp::Sum => Data::$variant(lines(v, dims, axis, |it| it.reduce(|a, b| a.wrapping_add(b)))?),
            ReduceOp::Argmax => Data::I32(lines(v, dims, axis, argmax_line)?),
            ReduceOp::Argmin => Data::I32(lines(v, dims, axis, argmin_line)?),
            ReduceOp::XorSum => Data::$variant(lines(v, dims, axis, |it| it.reduce(|a, b| a ^ b))?),
        }
    }};
}

/// Reduces `v` (of shape `dims`) along `axis`; the result drops that dim.
pub(crate) fn reduce(op: ReduceOp, v: &Data, dims: &[usize], axis: usize) -> Result<Data, Trap> {
    if axis >= dims.len() {
        return unsupported(format!("a reduction along axis {axis} of shape {dims:?}"));
    }
    let single = dims[axis] == 1;
    Ok(match v {
        Data::F32(x) if single => match op {
            ReduceOp::Max(nan) => Data::F32(x.iter().map(|&a| max_f32(f32::NEG_INFINITY, a, nan)).collect()),
            ReduceOp::Min(nan) => Data::F32(x.iter().map(|&a| min_f32(f32::INFINITY, a, nan)).collect()),
            ReduceOp::Sum => Data::F32(x.clone()),
            ReduceOp::Argmax | ReduceOp::Argmin => Data::I32(vec![0; x.len()]),
            ReduceOp::XorSum => return unsupported("xor_sum of f32 (the verifier refuses it)"),
        },
        Data::F32(x) => match op {
            ReduceOp::Max(nan) => Data::F32(lines(x, dims, axis, |it| it.reduce(|a, b| max_f32(a, b, nan)))?),
            ReduceOp::Min(nan) => Data::F32(lines(x, dims, axis, |it| it.reduce(|a, b| min_f32(a, b, nan)))?),
            ReduceOp::Sum => Data::F32(lines(x, dims, axis, |it| pairwise(it, |a, b| a + b))?),
            ReduceOp::Argmax => Data::I32(lines(x, dims, axis, argmax_line)?),
            ReduceOp::Argmin => Data::I32(lines(x, dims, axis, argmin_line)?),
            ReduceOp::XorSum => return unsupported("xor_sum of f32 (the verifier refuses it)"),
        },
        Data::I32(x) => int_reduce!(x, dims, axis, op, I32),
        Data::I64(x) => int_reduce!(x, dims, axis, op, I64),
        Data::U32(x) => int_reduce!(x, dims, axis, op, U32),
        Data::U64(x) => int_reduce!(x, dims, axis, op, U64),
        // f64 as f32 (an axis of one element applies the NaN rule with the identity).
        Data::F64(x) if single => match op {
            ReduceOp::Max(nan) => Data::F64(x.iter().map(|&a| max_f64(f64::NEG_INFINITY, a, nan)).collect()),
            ReduceOp::Min(nan) => Data::F64(x.iter().map(|&a| min_f64(f64::INFINITY, a, nan)).collect()),
            ReduceOp::Sum => Data::F64(x.clone()),
            ReduceOp::Argmax | ReduceOp::Argmin => Data::I32(vec![0; x.len()]),
            ReduceOp::XorSum => return unsupported("xor_sum of f64 (the verifier refuses it)"),
        },
        Data::F64(x) => match op {
            ReduceOp::Max(nan) => Data::F64(lines(x, dims, axis, |it| it.reduce(|a, b| max_f64(a, b, nan)))?),
            ReduceOp::Min(nan) => Data::F64(lines(x, dims, axis, |it| it.reduce(|a, b| min_f64(a, b, nan)))?),
            ReduceOp::Sum => Data::F64(lines(x, dims, axis, |it| pairwise(it, |a, b| a + b))?),
            ReduceOp::Argmax => Data::I32(lines(x, dims, axis, argmax_line)?),
            ReduceOp::Argmin => Data::I32(lines(x, dims, axis, argmin_line)?),
            ReduceOp::XorSum => return unsupported("xor_sum of f64 (the verifier refuses it)"),
        },
        // storage types (f16, i8, ...) are reduced in their computation type by the
        // front end; pointers and masks are not reduced (data, not an op kind)
        other => return unsupported(format!("a reduction of {}", other.kind())),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::PropagateNan;
    use crate::semantics::scalar::CANONICAL_NAN_BITS;

    fn bits(d: Data) -> Vec<u32> {
        match d {
            Data::F32(v) => v.into_iter().map(f32::to_bits).collect(),
            other => panic!("expected f32, got {other:?}"),
        }
    }

    #[test]
    fn reduces_rows_and_columns_of_a_2d_block() {
        let v = Data::I32(vec![1, 5, 2, 7, 0, 3]); // [[1, 5, 2], [7, 0, 3]]
        assert_eq!(reduce(ReduceOp::Max(PropagateNan::None), &v, &[2, 3], 1).unwrap(), Data::I32(vec![5, 7]));
        assert_eq!(reduce(ReduceOp::Sum, &v, &[2, 3], 0).unwrap(), Data::I32(vec![8, 5, 5]));
        assert_eq!(reduce(ReduceOp::Argmax, &v, &[2, 3], 0).unwrap(), Data::I32(vec![1, 0, 1]));
    }

    #[test]
    fn float_max_nan_and_signed_zero_rules() {
        let none = ReduceOp::Max(PropagateNan::None);
        let all = ReduceOp::Max(PropagateNan::All);
        let nan = f32::NAN;
        let v = Data::F32(vec![nan, 1.0, -0.0, 0.0, nan, nan, nan, nan]);
        assert_eq!(bits(reduce(none, &v, &[2, 4], 1).unwrap()), vec![0x3F80_0000, CANONICAL_NAN_BITS]);
        assert_eq!(bits(reduce(all, &v, &[2, 4], 1).unwrap()), vec![CANONICAL_NAN_BITS, CANONICAL_NAN_BITS]);
        let v = Data::F32(vec![-0.0, 0.0, -0.0, -0.0]);
        assert_eq!(bits(reduce(none, &v, &[2, 2], 1).unwrap()), vec![0x0000_0000, 0x8000_0000]);
        let min = ReduceOp::Min(PropagateNan::None);
        assert_eq!(bits(reduce(min, &v, &[2, 2], 1).unwrap()), vec![0x8000_0000, 0x8000_0000]);
    }

    #[test]
    fn an_axis_of_one_element_applies_the_nan_rule() {
        let payload = f32::from_bits(0x7FC0_1234);
        let v = Data::F32(vec![payload, -0.0, f32::INFINITY, f32::from_bits(1)]);
        let none = ReduceOp::Max(PropagateNan::None);
        let all = ReduceOp::Max(PropagateNan::All);
        let inf = f32::INFINITY.to_bits();
        let ninf = f32::NEG_INFINITY.to_bits();
        assert_eq!(bits(reduce(none, &v, &[4, 1], 1).unwrap()), vec![ninf, 0x8000_0000, inf, 1]);
        assert_eq!(bits(reduce(all, &v, &[4, 1], 1).unwrap()), vec![CANONICAL_NAN_BITS, 0x8000_0000, inf, 1]);
        let min = ReduceOp::Min(PropagateNan::None);
        assert_eq!(bits(reduce(min, &v, &[1, 4], 0).unwrap()), vec![inf, 0x8000_0000, inf, 1]);
        assert_eq!(reduce(ReduceOp::Argmax, &v, &[4, 1], 1).unwrap(), Data::I32(vec![0; 4]));
        assert_eq!(bits(reduce(ReduceOp::Sum, &v, &[4, 1], 1).unwrap()), vec![0x7FC0_1234, 0x8000_0000, inf, 1]);
    }

    #[test]
    fn argmax_takes_the_first_maximum_and_ignores_nan() {
        let nan = f32::NAN;
        let v = Data::F32(vec![nan, 2.0, 2.0, 1.0, -0.0, 0.0, nan, nan]);
        assert_eq!(reduce(ReduceOp::Argmax, &v, &[2, 4], 1).unwrap(), Data::I32(vec![1, 0]));
        let v = Data::F32(vec![f32::NEG_INFINITY; 4]);
        assert_eq!(reduce(ReduceOp::Argmax, &v, &[4], 0).unwrap(), Data::I32(vec![0]));
    }

    #[test]
    fn argmin_takes_the_first_minimum_and_ignores_nan() {
        let nan = f32::NAN;
        let v = Data::F32(vec![nan, 2.0, 1.0, 1.0, 0.0, -0.0, nan, nan]);
        assert_eq!(reduce(ReduceOp::Argmin, &v, &[2, 4], 1).unwrap(), Data::I32(vec![2, 0]));
        let v = Data::I64(vec![3, i64::MIN, 7, i64::MIN]);
        assert_eq!(reduce(ReduceOp::Argmin, &v, &[4], 0).unwrap(), Data::I32(vec![1]));
    }

    #[test]
    fn float_sums_add_pairwise() {
        // Left to right, 1e8 + 1 rounds to 1e8 and the line sums to 1; pairwise,
        // (1e8 + 1) + (-1e8 + 1) is 1e8 + -1e8 = 0.
        let v = Data::F32(vec![1e8, 1.0, -1e8, 1.0, 2.0, 3.0, 4.0]);
        assert_eq!(reduce(ReduceOp::Sum, &v, &[7], 0).unwrap(), Data::F32(vec![9.0]));
        let v = Data::F32(vec![1e8, 1.0, -1e8, 1.0]);
        assert_eq!(reduce(ReduceOp::Sum, &v, &[4], 0).unwrap(), Data::F32(vec![0.0]));
    }

    #[test]
    fn xor_sum_folds_bits() {
        let v = Data::I64(vec![i64::MIN, 1, -1, 6]);
        assert_eq!(reduce(ReduceOp::XorSum, &v, &[2, 2], 1).unwrap(), Data::I64(vec![i64::MIN | 1, -7]));
        assert!(reduce(ReduceOp::XorSum, &Data::F32(vec![1.0, 2.0]), &[2], 0).is_err());
    }

    #[test]
    fn integer_sums_wrap() {
        let v = Data::I32(vec![i32::MAX, 1]);
        assert_eq!(reduce(ReduceOp::Sum, &v, &[2], 0).unwrap(), Data::I32(vec![i32::MIN]));
    }
}
