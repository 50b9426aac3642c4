//! Arithmetic, comparisons and reductions per dtype: interpreter and simulator bit for
//! bit (`run::both`) and against values computed here (storage types in f32 / i32,
//! rounded or wrapped back).

use half::{bf16, f16};

use crate::kernels;
use crate::run::{BLOCK, Launch, both};

fn bytes<T: bytemuck_free::Le>(v: &[T]) -> Vec<u8> {
    v.iter().flat_map(|x| x.le()).collect()
}

/// Little-endian bytes without a bytemuck dependency in the test crate.
mod bytemuck_free {
    pub trait Le: Copy {
        fn le(self) -> Vec<u8>;
    }
    macro_rules! le {
        ($($t:ty),*) => {$(impl Le for $t { fn le(self) -> Vec<u8> { self.to_le_bytes().to_vec() } })*};
    }
    le!(i8, u8, i16, i32, u32, u64, f32, f64, half::f16, half::bf16);
}

fn f32s(b: &[u8]) -> Vec<f32> {
    b.chunks(4).map(|c| f32::from_le_bytes(c.try_into().unwrap())).collect()
}

#[test]
fn f16_computes_in_f32_and_rounds_back() {
    let x: Vec<f16> = [1.5f32, -2.0, 65504.0, 0.1, f32::NAN, 3.0, -0.0].map(f16::from_f32).to_vec();
    let y: Vec<f16> = [2.0f32, 0.5, 2.0, 0.2, 1.0, 0.0, 0.0].map(f16::from_f32).to_vec();
    let n = x.len();
    let out = both(&kernels::f16_ops(), &Launch::elementwise(vec![bytes(&x), bytes(&y)], n * 16, n));
    let got = f32s(&out[0]);
    for i in 0..n {
        let (a, b) = (x[i].to_f32(), y[i].to_f32());
        let fma_like = f16::from_f32(f16::from_f32(a * b).to_f32() + a).to_f32();
        let (g0, g1, g2, g3) = (got[4 * i], got[4 * i + 1], got[4 * i + 2], got[4 * i + 3]);
        assert!(g0 == fma_like || g0.is_nan() && fma_like.is_nan(), "x*y+x at {i}: {g0} vs {fma_like}");
        // PTX max: NaN ignored, +0 > -0.
        let m = if a.is_nan() {
            b
        } else if a == b {
            if a.is_sign_negative() { b } else { a }
        } else {
            a.max(b)
        };
        assert_eq!(g1.to_bits(), m.to_bits(), "max at {i}");
        let q = a / b;
        assert!(g2 == q || g2.is_nan() && q.is_nan(), "x / y is f32 at {i}: {g2} vs {q}");
        assert_eq!(g3, if a < b { 1.0 } else { 0.0 }, "x < y at {i}");
    }
    // 65504 * 2 overflows f16: the f32 product rounds back to inf.
    assert_eq!(got[8], f32::INFINITY);
    // 3 / 0 is inf in f32 (not an error).
    assert_eq!(got[4 * 5 + 2], f32::INFINITY);
}

#[test]
fn bf16_adds_in_f32_with_one_rounding() {
    let x: Vec<bf16> = [1.0f32, 256.0, -3.0, 1e38].map(bf16::from_f32).to_vec();
    let y: Vec<bf16> = [0.00390625f32, 1.0, 3.0, 1e38].map(bf16::from_f32).to_vec();
    let n = x.len();
    let out = both(&kernels::bf16_ops(), &Launch::elementwise(vec![bytes(&x), bytes(&y)], n * 4, n));
    let got: Vec<u16> = out[0].chunks(2).map(|c| u16::from_le_bytes([c[0], c[1]])).collect();
    for i in 0..n {
        let (a, b) = (x[i].to_f32(), y[i].to_f32());
        assert_eq!(got[2 * i], bf16::from_f32(a + b).to_bits(), "x + y at {i}");
        assert_eq!(got[2 * i + 1], bf16::from_f32(-(a * b)).to_bits(), "-(x * y) at {i}");
    }
    // 1 + 2^-8 is a tie in bf16: even is 1.
    assert_eq!(got[0], 0x3F80);
}

#[test]
fn i8_wraps_like_i8() {
    let x: Vec<i8> = vec![127, -128, -128, 100, -7, 0];
    let y: Vec<i8> = vec![1, -1, 1, 3, 2, 5];
    let n = x.len();
    let out = both(&kernels::i8_ops(), &Launch::elementwise(vec![bytes(&x), bytes(&y)], n * 4, n));
    let got: Vec<i8> = out[0].iter().map(|&b| b as i8).collect();
    for i in 0..n {
        assert_eq!(got[4 * i], x[i].wrapping_add(y[i]), "+ at {i}");
        assert_eq!(got[4 * i + 1], x[i].wrapping_mul(y[i]), "* at {i}");
        assert_eq!(got[4 * i + 2], x[i].wrapping_div(y[i]), "/ at {i}");
        assert_eq!(got[4 * i + 3], i8::from(x[i] < y[i]), "< at {i}");
    }
}

#[test]
fn u8_stays_u8_with_u8_and_widens_with_i32() {
    let x: Vec<u8> = vec![255, 200, 0, 128];
    let y: Vec<u8> = vec![1, 100, 255, 127];
    let n = x.len();
    let out = both(&kernels::u8_ops(), &Launch::elementwise(vec![bytes(&x), bytes(&y)], n * 12, n));
    let got: Vec<i32> = out[0].chunks(4).map(|c| i32::from_le_bytes(c.try_into().unwrap())).collect();
    for i in 0..n {
        assert_eq!(got[3 * i], i32::from(x[i].wrapping_add(y[i])), "u8 + u8 wraps at {i}");
        assert_eq!(got[3 * i + 1], i32::from(x[i]) + 1000, "u8 + i32 at {i}");
        assert_eq!(got[3 * i + 2], i32::from(x[i] > y[i]), "unsigned > at {i}");
    }
}

#[test]
fn u32_divides_and_compares_unsigned() {
    let x: Vec<u32> = vec![u32::MAX, 0x8000_0000, 7, 0, 3_000_000_000];
    let y: Vec<u32> = vec![2, 3, u32::MAX, 1, 7];
    let n = x.len();
    let out = both(&kernels::u32_ops(), &Launch::elementwise(vec![bytes(&x), bytes(&y)], n * 20, n));
    let got: Vec<u32> = out[0].chunks(4).map(|c| u32::from_le_bytes(c.try_into().unwrap())).collect();
    for i in 0..n {
        assert_eq!(got[5 * i], x[i] / y[i], "/ at {i}");
        assert_eq!(got[5 * i + 1], x[i] % y[i], "% at {i}");
        assert_eq!(got[5 * i + 2], x[i].max(y[i]), "maximum at {i}");
        assert_eq!(got[5 * i + 3], u32::from(x[i] < y[i]), "< at {i}");
        assert_eq!(got[5 * i + 4], x[i].wrapping_add(i as u32), "u32 + i32 is u32 at {i}");
    }
}

#[test]
fn u64_divides_and_compares_unsigned() {
    let x: Vec<u64> = vec![u64::MAX, 1 << 63, 5, 0];
    let y: Vec<u64> = vec![2, 3, u64::MAX, 1];
    let n = x.len();
    let out = both(&kernels::u64_ops(), &Launch::elementwise(vec![bytes(&x), bytes(&y)], n * 32, n));
    let got: Vec<u64> = out[0].chunks(8).map(|c| u64::from_le_bytes(c.try_into().unwrap())).collect();
    for i in 0..n {
        assert_eq!(got[4 * i], x[i] / y[i], "/ at {i}");
        assert_eq!(got[4 * i + 1], x[i].max(y[i]), "maximum at {i}");
        assert_eq!(got[4 * i + 2], u64::from(x[i] >= y[i]), ">= at {i}");
        assert_eq!(got[4 * i + 3], x[i].wrapping_add(y[i]), "+ wraps at {i}");
    }
}

#[test]
fn f64_is_ieee_binary64() {
    let x: Vec<f64> = vec![0.1, -0.0, 1e308, f64::NAN, 3.0];
    let y: Vec<f64> = vec![0.2, 0.0, 10.0, 1.0, f64::NAN];
    let n = x.len();
    let out = both(&kernels::f64_ops(), &Launch::elementwise(vec![bytes(&x), bytes(&y)], n * 32, n));
    let got: Vec<f64> = out[0].chunks(8).map(|c| f64::from_le_bytes(c.try_into().unwrap())).collect();
    for i in 0..n {
        let same = |g: f64, w: f64| g.to_bits() == w.to_bits() || g.is_nan() && w.is_nan();
        assert!(same(got[4 * i], x[i] * y[i] + x[i]), "x*y+x at {i}");
        assert!(same(got[4 * i + 1], x[i] / y[i]), "/ at {i}");
        assert_eq!(got[4 * i + 3].to_bits(), (-x[i]).to_bits(), "neg flips the sign bit at {i}");
    }
    // Two roundings (`mul.rn.f64`, `add.rn.f64`), never a contracted fma.
    assert_eq!(got[0].to_bits(), (0.1f64 * 0.2 + 0.1).to_bits(), "0.1 * 0.2 + 0.1 in f64");
    assert_eq!(got[4 * 3 + 2], 1.0, "maximum ignores NaN");
    assert_eq!(got[4 * 4 + 2], 3.0, "maximum ignores NaN");
    assert_eq!(got[4 + 2].to_bits(), 0, "maximum(-0, +0) is +0");
}

/// Rows of `BLOCK` elements: max, min, sum (f16/bf16 accumulated in f32), argmax.
#[test]
fn reductions_of_the_new_dtypes() {
    let b = BLOCK as usize;
    let rows = 3;
    // f16: 1/3 repeated sums exactly in f32 (rounded once at the end).
    let xs: Vec<f16> = (0..rows * b).map(|i| f16::from_f32(((i * 7) % 11) as f32 / 3.0 - 1.0)).collect();
    let launch = |x: Vec<u8>, elem: usize, sum: usize| Launch {
        inputs: vec![x],
        outs: vec![rows * 2 * elem, rows * sum, rows * 4],
        n: BLOCK,
        programs: rows as u32,
        block: BLOCK,
        num_warps: crate::run::NUM_WARPS,
    };
    let out = both(&kernels::reduce_f16(), &launch(bytes(&xs), 2, 2));
    for r in 0..rows {
        let row: Vec<f32> = xs[r * b..(r + 1) * b].iter().map(|h| h.to_f32()).collect();
        let max = row.iter().copied().fold(f32::NEG_INFINITY, f32::max);
        let min = row.iter().copied().fold(f32::INFINITY, f32::min);
        let got = |buf: &[u8], k: usize| f16::from_le_bytes([buf[2 * k], buf[2 * k + 1]]).to_f32();
        assert_eq!(got(&out[0], 2 * r), max);
        assert_eq!(got(&out[0], 2 * r + 1), min);
        let sum = f16::from_f32(row.iter().sum::<f32>()).to_f32();
        assert!((got(&out[1], r) - sum).abs() <= sum.abs() * 1e-3, "f16 sum accumulates in f32");
        let arg = i32::from_le_bytes(out[2][4 * r..4 * r + 4].try_into().unwrap());
        assert_eq!(row[arg as usize], max);
        assert!(row[..arg as usize].iter().all(|v| *v < max), "first maximum");
    }
    // i8 sums in i32 (Triton's tl.sum): 64 * 127 does not wrap.
    let xs: Vec<i8> = vec![127; rows * b];
    let out = both(&kernels::reduce_i8(), &launch(bytes(&xs), 1, 4));
    assert_eq!(i32::from_le_bytes(out[1][..4].try_into().unwrap()), 127 * BLOCK as i32);
    // u8 sums in u32; u8 max is unsigned.
    let xs: Vec<u8> = (0..rows * b).map(|i| (i * 37 % 256) as u8).collect();
    let out = both(&kernels::reduce_u8(), &launch(bytes(&xs), 1, 4));
    for r in 0..rows {
        let row = &xs[r * b..(r + 1) * b];
        assert_eq!(out[0][2 * r], *row.iter().max().unwrap());
        assert_eq!(out[0][2 * r + 1], *row.iter().min().unwrap());
        let sum: u32 = row.iter().map(|&v| u32::from(v)).sum();
        assert_eq!(u32::from_le_bytes(out[1][4 * r..4 * r + 4].try_into().unwrap()), sum);
    }
    // u32 max is unsigned: 0x8000_0000 beats 1.
    let xs: Vec<u32> = (0..rows * b).map(|i| if i % b == 5 { 0x8000_0000 } else { i as u32 }).collect();
    let out = both(&kernels::reduce_u32(), &launch(bytes(&xs), 4, 4));
    assert_eq!(u32::from_le_bytes(out[0][..4].try_into().unwrap()), 0x8000_0000);
    assert_eq!(i32::from_le_bytes(out[2][..4].try_into().unwrap()), 5);
    // bf16: max of a row holding a NaN ignores it.
    let mut xs: Vec<bf16> = (0..rows * b).map(|i| bf16::from_f32(i as f32)).collect();
    xs[3] = bf16::NAN;
    let out = both(&kernels::reduce_bf16(), &launch(bytes(&xs), 2, 2));
    assert_eq!(bf16::from_le_bytes([out[0][0], out[0][1]]).to_f32(), (b - 1) as f32);
}

/// Math functions (and `fma`) on f16/bf16 compute in f32 from start to end (the `log2(e)` scale of
/// `exp` and `erf`'s coefficients stay f32) and round to the storage type once: the result
/// is the f32 function of the widened input, rounded (as Triton extends f16 around its
/// math ops).
#[test]
fn math_on_half_types_is_the_f32_function_rounded_once() {
    let xs: Vec<f32> = vec![-3.5, -1.0, -0.0, 0.0, 0.5, 1.0, 2.25, 7.0, 10.75, f32::INFINITY, 1e-3, 0.3];
    let n = xs.len();
    let h: Vec<f16> = xs.iter().map(|&v| f16::from_f32(v)).collect();
    let b: Vec<bf16> = xs.iter().map(|&v| bf16::from_f32(v)).collect();
    let half = both(
        &kernels::half_math(),
        &Launch {
            inputs: vec![bytes(&h), bytes(&b)],
            outs: vec![n * 3 * 2, n * 3 * 2],
            n: n as i64,
            programs: 1,
            block: BLOCK,
            num_warps: crate::run::NUM_WARPS,
        },
    );
    let widened =
        |v: Vec<f32>| f32s(&both(&kernels::f32_math(), &Launch::elementwise(vec![bytes(&v)], n * 3 * 4, n))[0]);
    let from_h = widened(h.iter().map(|v| v.to_f32()).collect());
    let from_b = widened(b.iter().map(|v| v.to_f32()).collect());
    let halves = |b: &[u8]| b.chunks(2).map(|c| u16::from_le_bytes([c[0], c[1]])).collect::<Vec<u16>>();
    let (got_h, got_b) = (halves(&half[0]), halves(&half[1]));
    // f16's third output is `erf(fma(x, x, x))`: the fma rounded to f16 once, then erf.
    let fma_erf = halves(
        &both(
            &kernels::f32_fma_erf(),
            &Launch::elementwise(vec![bytes(&h.iter().map(|v| v.to_f32()).collect::<Vec<f32>>())], n * 2, n),
        )[0],
    );
    for i in 0..n * 3 {
        let want_h = if i % 3 == 2 { fma_erf[i / 3] } else { f16::from_f32(from_h[i]).to_bits() };
        assert_eq!(got_h[i], want_h, "f16 element {i} (x = {})", xs[i / 3]);
        assert_eq!(got_b[i], bf16::from_f32(from_b[i]).to_bits(), "bf16 element {i} (x = {})", xs[i / 3]);
    }
}
