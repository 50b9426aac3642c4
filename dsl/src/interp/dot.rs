//! `dot` (Triton's `tl.dot`) on whole blocks: the semantics every back end is held to
//! (`docs/semantics.md`, "dot").
//!
//! For each result element `(m, n)` the accumulator starts at `acc[m, n]` and takes one
//! step per `k = 0, 1, ..., K - 1`, in that order:
//! - float operands (`f16`, `bf16`, `f32`; `f16`/`bf16` widened to `f32` exactly):
//!   `acc = fma(a[m, k], b[k, n], acc)` in `f32`, one rounding per step (the product itself
//!   is never rounded; for `f16` it is exact in `f32` anyway). With `input_precision`
//!   `tf32`, `f32` operands are first rounded to tf32 ([`f32_to_tf32_rna`]).
//! - `i8` operands: `acc = acc + a[m, k] * b[k, n]` in `i32`, wrapping (the product is
//!   exact).

use crate::ir::InputPrecision;
use crate::semantics::convert::f32_to_tf32_rna;
use crate::semantics::math::fma_f32;

use super::value::{Data, Trap, unsupported};

/// `acc + a @ b` of `a` (`[M, K]`, row-major), `b` (`[K, N]`) and `acc` (`[M, N]`), with
/// `dims = [M, N, K]`.
pub(crate) fn dot(a: &Data, b: &Data, acc: &Data, dims: [usize; 3], precision: InputPrecision) -> Result<Data, Trap> {
    let [m, n, k] = dims;
    let sizes_fit = a.len() == m * k && b.len() == k * n && acc.len() == m * n;
    if !sizes_fit {
        return unsupported(format!("`dot` of blocks whose sizes do not fit [{m}, {k}] x [{k}, {n}]"));
    }
    match (a, b, acc) {
        (Data::F16(a), Data::F16(b), Data::F32(c)) => {
            let (a, b): (Vec<f32>, Vec<f32>) =
                (a.iter().map(|x| x.to_f32()).collect(), b.iter().map(|x| x.to_f32()).collect());
            Ok(Data::F32(float_dot(&a, &b, c, dims)))
        }
        (Data::BF16(a), Data::BF16(b), Data::F32(c)) => {
            let (a, b): (Vec<f32>, Vec<f32>) =
                (a.iter().map(|x| x.to_f32()).collect(), b.iter().map(|x| x.to_f32()).collect());
            Ok(Data::F32(float_dot(&a, &b, c, dims)))
        }
        (Data::F32(a), Data::F32(b), Data::F32(c)) => match precision {
            InputPrecision::Ieee => Ok(Data::F32(float_dot(a, b, c, dims))),
            InputPrecision::Tf32 => {
                let round = |v: &Vec<f32>| v.iter().map(|&x| f32_to_tf32_rna(x)).collect::<Vec<f32>>();
                Ok(Data::F32(float_dot(&round(a), &round(b), c, dims)))
            }
        },
        (Data::I8(a), Data::I8(b), Data::I32(c)) => {
            let mut out = c.clone();
            for (i, o) in out.iter_mut().enumerate() {
                let (row, col) = (i / n, i % n);
                for kk in 0..k {
                    *o = o.wrapping_add(i32::from(a[row * k + kk]) * i32::from(b[kk * n + col]));
                }
            }
            Ok(Data::I32(out))
        }
        (a, b, c) => unsupported(format!("`dot` of {} by {} into {}", a.kind(), b.kind(), c.kind())),
    }
}

/// The float accumulation: one `fma` per `k`, in increasing `k`.
fn float_dot(a: &[f32], b: &[f32], c: &[f32], [_, n, k]: [usize; 3]) -> Vec<f32> {
    let mut out = c.to_vec();
    for (i, o) in out.iter_mut().enumerate() {
        let (row, col) = (i / n, i % n);
        for kk in 0..k {
            *o = fma_f32(a[row * k + kk], b[kk * n + col], *o);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use half::{bf16, f16};

    use super::*;

    const ONE_K: [usize; 3] = [16, 16, 16];

    /// A 16x16 block of zeros with `cells` set (row-major `(row, col, value)`).
    fn block<T: Copy>(zero: T, cells: &[(usize, usize, T)]) -> Vec<T> {
        let mut v = vec![zero; 256];
        for &(r, c, x) in cells {
            v[r * 16 + c] = x;
        }
        v
    }

    fn f32_out(d: Data) -> Vec<f32> {
        match d {
            Data::F32(v) => v,
            other => panic!("an f32 result, got {}", other.kind()),
        }
    }

    /// `k` runs from 0 up: `1 + 2^24` rounds to `2^24` (ties to even), so
    /// `((0 + 1) + 2^24) - 2^24` is 0 where the exact sum (and the reverse order) is 1.
    #[test]
    fn the_accumulation_runs_in_increasing_k() {
        let big = 16_777_216.0f32;
        let a = block(0.0, &[(0, 0, 1.0), (0, 1, big), (0, 2, -big)]);
        let b = block(0.0, &[(0, 0, 1.0), (1, 0, 1.0), (2, 0, 1.0)]);
        let out = f32_out(
            dot(&Data::F32(a), &Data::F32(b), &Data::F32(vec![0.0; 256]), ONE_K, InputPrecision::Ieee).unwrap(),
        );
        assert_eq!(out[0].to_bits(), 0.0f32.to_bits());
        assert!(out[1..].iter().all(|&x| x == 0.0));
    }

    /// `f32` "ieee": one `fma` per step, the product never rounded on its own:
    /// `(1 + 2^-12)^2 - 1` is `2^-11 + 2^-24` (a rounded product would give `2^-11`).
    #[test]
    fn ieee_products_are_fused_into_the_accumulator() {
        let x = 1.0 + 2f32.powi(-12);
        let a = block(0.0, &[(0, 0, x)]);
        let b = block(0.0, &[(0, 0, x)]);
        let mut acc = vec![0.0f32; 256];
        acc[0] = -1.0;
        let ieee = f32_out(
            dot(&Data::F32(a.clone()), &Data::F32(b.clone()), &Data::F32(acc.clone()), ONE_K, InputPrecision::Ieee)
                .unwrap(),
        );
        assert_eq!(ieee[0], 2f32.powi(-11) + 2f32.powi(-24));
        // tf32 keeps 10 mantissa bits: 1 + 2^-12 rounds to 1 first.
        let tf32 = f32_out(dot(&Data::F32(a), &Data::F32(b), &Data::F32(acc), ONE_K, InputPrecision::Tf32).unwrap());
        assert_eq!(tf32[0], 0.0);
    }

    /// f16 and bf16 operands widen exactly; the products accumulate in f32.
    #[test]
    fn half_operands_accumulate_in_f32() {
        let h = |x: f32| f16::from_f32(x);
        let a = block(h(0.0), &[(3, 0, h(0.5)), (3, 15, h(-3.0))]);
        let b = block(h(0.0), &[(0, 7, h(2048.0)), (15, 7, h(0.25))]);
        let out = f32_out(
            dot(&Data::F16(a), &Data::F16(b), &Data::F32(vec![1.0; 256]), ONE_K, InputPrecision::Ieee).unwrap(),
        );
        assert_eq!(out[3 * 16 + 7], 1.0 + 1024.0 - 0.75);
        assert_eq!(out[0], 1.0);
        let bh = |x: f32| bf16::from_f32(x);
        let a = block(bh(0.0), &[(0, 0, bh(3.0e38))]);
        let b = block(bh(0.0), &[(0, 0, bh(2.0))]);
        let out = f32_out(
            dot(&Data::BF16(a), &Data::BF16(b), &Data::F32(vec![0.0; 256]), ONE_K, InputPrecision::Ieee).unwrap(),
        );
        assert_eq!(out[0], f32::INFINITY, "a bf16 product past f32's range overflows");
    }

    /// `i8` products sum in `i32`, wrapping.
    #[test]
    fn i8_dots_wrap_in_i32() {
        let a = block(0i8, &[(0, 0, -128), (0, 1, 1)]);
        let b = block(0i8, &[(0, 0, -128), (1, 0, 1)]);
        let mut acc = vec![0i32; 256];
        acc[0] = i32::MAX - 16384;
        match dot(&Data::I8(a), &Data::I8(b), &Data::I32(acc), ONE_K, InputPrecision::Ieee).unwrap() {
            Data::I32(v) => assert_eq!(v[0], i32::MIN),
            other => panic!("an i32 result, got {}", other.kind()),
        }
    }

    #[test]
    fn mismatched_blocks_are_refused_not_indexed_out_of_range() {
        let r = dot(
            &Data::F32(vec![0.0; 16]),
            &Data::F32(vec![0.0; 256]),
            &Data::F32(vec![0.0; 256]),
            ONE_K,
            InputPrecision::Ieee,
        );
        assert!(matches!(r, Err(Trap::Unsupported(_))));
    }
}
