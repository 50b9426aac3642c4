//! The layout ops on whole blocks (`permute`, `join`, `split`; `reshape` keeps the data):
//! every block is a row-major list of elements, so each op is a gather of that list.

use super::value::{Data, Trap, unsupported};

/// Row-major strides of `shape`.
fn strides(shape: &[usize]) -> Vec<usize> {
    let mut s = vec![1; shape.len()];
    for d in (0..shape.len().saturating_sub(1)).rev() {
        s[d] = s[d + 1] * shape[d + 1];
    }
    s
}

/// `result[i_0, ..] = x[j]` with `j_{dims[k]} = i_k`: result dim `k` is operand dim `dims[k]`.
pub(crate) fn permute(x: &Data, shape: &[usize], dims: &[usize]) -> Result<Data, Trap> {
    if dims.len() != shape.len() || x.len() != shape.iter().product::<usize>() {
        return unsupported(format!("permute of {shape:?} by {dims:?}"));
    }
    let src = strides(shape);
    let out_shape: Vec<usize> = dims.iter().map(|&d| shape[d]).collect();
    // The operand stride each result dim walks along.
    let walk: Vec<usize> = dims.iter().map(|&d| src[d]).collect();
    let mut idx = Vec::with_capacity(x.len());
    let mut at = vec![0usize; out_shape.len()];
    for _ in 0..x.len() {
        idx.push(at.iter().zip(&walk).map(|(i, s)| i * s).sum());
        // Row-major increment of the result index.
        for d in (0..at.len()).rev() {
            at[d] += 1;
            if at[d] < out_shape[d] {
                break;
            }
            at[d] = 0;
        }
    }
    Ok(x.gather(&idx))
}

/// `a` and `b` interleaved: `[a0, b0, a1, b1, ...]`, the row-major list of a new trailing
/// dim of size 2.
pub(crate) fn join(a: &Data, b: &Data) -> Result<Data, Trap> {
    fn interleave<T: Copy>(a: &[T], b: &[T]) -> Vec<T> {
        a.iter().zip(b).flat_map(|(x, y)| [*x, *y]).collect()
    }
    if a.len() != b.len() {
        return unsupported(format!("join of {} and {} elements", a.len(), b.len()));
    }
    Ok(match (a, b) {
        (Data::Bool(a), Data::Bool(b)) => Data::Bool(interleave(a, b)),
        (Data::I32(a), Data::I32(b)) => Data::I32(interleave(a, b)),
        (Data::I64(a), Data::I64(b)) => Data::I64(interleave(a, b)),
        (Data::F32(a), Data::F32(b)) => Data::F32(interleave(a, b)),
        (Data::Ptr(a), Data::Ptr(b)) => Data::Ptr(interleave(a, b)),
        (Data::I8(a), Data::I8(b)) => Data::I8(interleave(a, b)),
        (Data::I16(a), Data::I16(b)) => Data::I16(interleave(a, b)),
        (Data::U8(a), Data::U8(b)) => Data::U8(interleave(a, b)),
        (Data::U32(a), Data::U32(b)) => Data::U32(interleave(a, b)),
        (Data::U64(a), Data::U64(b)) => Data::U64(interleave(a, b)),
        (Data::F16(a), Data::F16(b)) => Data::F16(interleave(a, b)),
        (Data::BF16(a), Data::BF16(b)) => Data::BF16(interleave(a, b)),
        (Data::F64(a), Data::F64(b)) => Data::F64(interleave(a, b)),
        (Data::F8E4M3(a), Data::F8E4M3(b)) => Data::F8E4M3(interleave(a, b)),
        (Data::F8E5M2(a), Data::F8E5M2(b)) => Data::F8E5M2(interleave(a, b)),
        // operands of two element types, which the verifier refuses (pairs of `Data`
        // variants, not op kinds; a variant added to `Data` needs its arm above, or its
        // joins stop here with an error, never a wrong value)
        _ => return unsupported("join of two element types"),
    })
}

/// The even and the odd elements: `x[..., 0]` and `x[..., 1]`.
pub(crate) fn split(x: &Data) -> Result<[Data; 2], Trap> {
    if !x.len().is_multiple_of(2) {
        return unsupported(format!("split of {} elements", x.len()));
    }
    let half = |k: usize| x.gather(&(0..x.len() / 2).map(|i| 2 * i + k).collect::<Vec<_>>());
    Ok([half(0), half(1)])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn permute_is_a_transpose_in_2d_and_moves_dims_in_3d() {
        let x = Data::I32((0..6).collect());
        assert_eq!(permute(&x, &[2, 3], &[1, 0]).unwrap(), Data::I32(vec![0, 3, 1, 4, 2, 5]));
        assert_eq!(permute(&x, &[2, 3], &[0, 1]).unwrap(), x);
        // [2, 3, 4] -> dims [2, 0, 1]: result[k, i, j] = x[i, j, k] = 12 i + 4 j + k.
        let y = Data::I32((0..24).collect());
        let Data::I32(p) = permute(&y, &[2, 3, 4], &[2, 0, 1]).unwrap() else { unreachable!() };
        assert_eq!(&p[..7], &[0, 4, 8, 12, 16, 20, 1]);
    }

    #[test]
    fn join_interleaves_and_split_undoes_it() {
        let (h, g) = (Data::F16(vec![half::f16::ONE]), Data::F16(vec![half::f16::NEG_ZERO]));
        assert_eq!(join(&h, &g).unwrap(), Data::F16(vec![half::f16::ONE, half::f16::NEG_ZERO]));
        let (a, b) = (Data::F32(vec![1.0, -0.0, f32::NAN]), Data::F32(vec![2.0, 3.0, f32::INFINITY]));
        let j = join(&a, &b).unwrap();
        let Data::F32(v) = &j else { unreachable!() };
        assert_eq!(v.iter().map(|x| x.to_bits()).collect::<Vec<_>>()[..4], [1.0f32, 2.0, -0.0, 3.0].map(f32::to_bits));
        let [x, y] = split(&j).unwrap();
        assert_eq!((x.len(), y), (3, b));
        assert!(join(&a, &Data::I32(vec![1, 2, 3])).is_err());
    }
}
