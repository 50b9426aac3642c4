//! The test kernels: one conversion kernel per (source, target) pair of the numeric
//! dtypes, and element-wise / reduction kernels per dtype.

use half::{bf16, f16};
use rtriton::ir::ScalarType;
use rtriton::kernel;
use rtriton::prelude::*;
use rtriton::trace::KernelDef;

/// `mod $dst { kernel cvt: y[i] = x[i].to::<$dst_ty>() }` for every target of one source.
macro_rules! cvt_targets {
    ($src:ty; [$($dst:ident: $dst_ty:ty),*]) => {
        $(
            pub mod $dst {
                use super::*;
                kernel! {
                    pub fn cvt(x_ptr: Ptr<$src>, y_ptr: Ptr<$dst_ty>, n: i32; const BLOCK: usize) {
                        let offs = program_id(0) * BLOCK as i32 + arange(0, BLOCK);
                        let mask = offs.lt(n);
                        let x = load(x_ptr + offs, Some(mask), None);
                        store(y_ptr + offs, x.to::<$dst_ty>(), Some(mask));
                    }
                }
                pub fn entry() -> (ScalarType, ScalarType, KernelDef) {
                    (<$src as ScalarMarker>::SCALAR, <$dst_ty as ScalarMarker>::SCALAR, cvt())
                }
            }
        )*
        pub fn entries() -> Vec<(ScalarType, ScalarType, KernelDef)> {
            vec![$($dst::entry()),*]
        }
    };
}

macro_rules! cvt_matrix {
    ($dsts:tt; $($src:ident: $src_ty:ty),*) => {
        $(
            pub mod $src {
                use super::*;
                cvt_targets!($src_ty; $dsts);
            }
        )*
        /// Every (source, target, kernel).
        pub fn conversions() -> Vec<(ScalarType, ScalarType, KernelDef)> {
            [$($src::entries()),*].concat()
        }
    };
}

pub mod cvt {
    use super::*;
    cvt_matrix! {
        [to_i8: i8, to_i16: i16, to_i32: i32, to_i64: i64, to_u8: u8, to_u32: u32, to_u64: u64,
         to_f16: half::f16, to_bf16: half::bf16, to_f32: f32, to_f64: f64];
        from_i8: i8, from_i16: i16, from_i32: i32, from_i64: i64, from_u8: u8, from_u32: u32, from_u64: u64,
        from_f16: half::f16, from_bf16: half::bf16, from_f32: f32, from_f64: f64
    }
}

kernel! {
    /// f16 arithmetic (computed in f32, rounded back): `x * y + x`, `max(x, y)`, and `x / y`
    /// (an f32 result, as Triton's `/` on f16).
    pub fn f16_ops(x_ptr: Ptr<f16>, y_ptr: Ptr<f16>, out_ptr: Ptr<f32>, n: i32; const BLOCK: usize) {
        let offs = program_id(0) * BLOCK as i32 + arange(0, BLOCK);
        let mask = offs.lt(n);
        let x = load(x_ptr + offs, Some(mask), Some(f16::ONE));
        let y = load(y_ptr + offs, Some(mask), Some(f16::ONE));
        let fma_like: Tensor<f16> = x * y + x;
        let m: Tensor<f16> = maximum(x, y);
        let q: Tensor<f32> = x / y;
        let base = offs * 4;
        store(out_ptr + base, fma_like.to::<f32>(), Some(mask));
        store(out_ptr + base + 1, m.to::<f32>(), Some(mask));
        store(out_ptr + base + 2, q, Some(mask));
        store(out_ptr + base + 3, x.lt(y).to::<f32>(), Some(mask));
    }
}

kernel! {
    /// bf16 arithmetic (in f32): `x + y`, and bf16 with f16 promoting to f16 (Triton).
    pub fn bf16_ops(x_ptr: Ptr<bf16>, y_ptr: Ptr<bf16>, out_ptr: Ptr<bf16>, n: i32; const BLOCK: usize) {
        let offs = program_id(0) * BLOCK as i32 + arange(0, BLOCK);
        let mask = offs.lt(n);
        let x = load(x_ptr + offs, Some(mask), None);
        let y = load(y_ptr + offs, Some(mask), None);
        store(out_ptr + offs * 2, x + y, Some(mask));
        store(out_ptr + offs * 2 + 1, -(x * y), Some(mask));
    }
}

kernel! {
    /// i8 arithmetic (in i32, wrapped back): `x + y`, `x * y`, `x / y` and `x < y`.
    pub fn i8_ops(x_ptr: Ptr<i8>, y_ptr: Ptr<i8>, out_ptr: Ptr<i8>, n: i32; const BLOCK: usize) {
        let offs = program_id(0) * BLOCK as i32 + arange(0, BLOCK);
        let mask = offs.lt(n);
        let x = load(x_ptr + offs, Some(mask), Some(1));
        let y = load(y_ptr + offs, Some(mask), Some(1));
        let base = offs * 4;
        store(out_ptr + base, x + y, Some(mask));
        store(out_ptr + base + 1, x * y, Some(mask));
        store(out_ptr + base + 2, x / y, Some(mask));
        store(out_ptr + base + 3, where_(x.lt(y), full::<i8>(&[BLOCK], 1), full::<i8>(&[BLOCK], 0)), Some(mask));
    }
}

kernel! {
    /// u8 with u8 stays u8 (wraps); u8 with i32 is i32.
    pub fn u8_ops(x_ptr: Ptr<u8>, y_ptr: Ptr<u8>, out_ptr: Ptr<i32>, n: i32; const BLOCK: usize) {
        let offs = program_id(0) * BLOCK as i32 + arange(0, BLOCK);
        let mask = offs.lt(n);
        let x = load(x_ptr + offs, Some(mask), None);
        let y = load(y_ptr + offs, Some(mask), None);
        let wrapped: Tensor<u8> = x + y;
        let wide: Tensor<i32> = x + full::<i32>(&[BLOCK], 1000);
        store(out_ptr + offs * 3, wrapped.to::<i32>(), Some(mask));
        store(out_ptr + offs * 3 + 1, wide, Some(mask));
        store(out_ptr + offs * 3 + 2, x.gt(y).to::<i32>(), Some(mask));
    }
}

kernel! {
    /// u32: unsigned division, remainder, maximum and comparison; i32 with u32 is u32.
    pub fn u32_ops(x_ptr: Ptr<u32>, y_ptr: Ptr<u32>, out_ptr: Ptr<u32>, n: i32; const BLOCK: usize) {
        let offs = program_id(0) * BLOCK as i32 + arange(0, BLOCK);
        let mask = offs.lt(n);
        let x = load(x_ptr + offs, Some(mask), Some(1));
        let y = load(y_ptr + offs, Some(mask), Some(1));
        let base = offs * 5;
        store(out_ptr + base, x / y, Some(mask));
        store(out_ptr + base + 1, x % y, Some(mask));
        store(out_ptr + base + 2, maximum(x, y), Some(mask));
        store(out_ptr + base + 3, x.lt(y).to::<u32>(), Some(mask));
        store(out_ptr + base + 4, x + offs, Some(mask));
    }
}

kernel! {
    /// u64: unsigned division, maximum, comparison and wrapping add.
    pub fn u64_ops(x_ptr: Ptr<u64>, y_ptr: Ptr<u64>, out_ptr: Ptr<u64>, n: i32; const BLOCK: usize) {
        let offs = program_id(0) * BLOCK as i32 + arange(0, BLOCK);
        let mask = offs.lt(n);
        let x = load(x_ptr + offs, Some(mask), Some(1));
        let y = load(y_ptr + offs, Some(mask), Some(1));
        let base = offs * 4;
        store(out_ptr + base, x / y, Some(mask));
        store(out_ptr + base + 1, maximum(x, y), Some(mask));
        store(out_ptr + base + 2, x.ge(y).to::<u64>(), Some(mask));
        store(out_ptr + base + 3, x + y, Some(mask));
    }
}

kernel! {
    /// f64: IEEE binary64 arithmetic and the NaN-ignoring maximum.
    pub fn f64_ops(x_ptr: Ptr<f64>, y_ptr: Ptr<f64>, out_ptr: Ptr<f64>, n: i32; const BLOCK: usize) {
        let offs = program_id(0) * BLOCK as i32 + arange(0, BLOCK);
        let mask = offs.lt(n);
        let x = load(x_ptr + offs, Some(mask), Some(1.0));
        let y = load(y_ptr + offs, Some(mask), Some(1.0));
        let base = offs * 4;
        store(out_ptr + base, x * y + x, Some(mask));
        store(out_ptr + base + 1, x / y, Some(mask));
        store(out_ptr + base + 2, maximum(x, y), Some(mask));
        store(out_ptr + base + 3, -x, Some(mask));
    }
}

macro_rules! row_reductions {
    ($name:ident, $t:ty, $sum:ty, $other:expr) => {
        kernel! {
            /// Per row of `BLOCK` columns: max, min, sum (in the sum dtype) and argmax.
            pub fn $name(x_ptr: Ptr<$t>, y_ptr: Ptr<$t>, s_ptr: Ptr<$sum>, a_ptr: Ptr<i32>, n_cols: i32; const BLOCK: usize) {
                let row = program_id(0);
                let cols = arange(0, BLOCK);
                let mask = cols.lt(n_cols);
                let x = load(x_ptr + row * n_cols + cols, Some(mask), Some($other));
                store(y_ptr + row * 2, max(x, 0), None);
                store(y_ptr + row * 2 + 1, min(x, 0), None);
                store(s_ptr + row, sum(x, 0), None);
                store(a_ptr + row, argmax(x, 0), None);
            }
        }
    };
}
row_reductions!(reduce_f16, f16, f16, f16::ZERO);
row_reductions!(reduce_bf16, bf16, bf16, bf16::ZERO);
row_reductions!(reduce_i8, i8, i32, 0);
row_reductions!(reduce_u8, u8, u32, 0);
row_reductions!(reduce_u32, u32, u32, 0);

kernel! {
    /// Math on storage types: `exp`, `sqrt` and `erf` of an f16 and a bf16 block, computed
    /// in f32 (constants included) and rounded back once.
    pub fn half_math(x_ptr: Ptr<f16>, y_ptr: Ptr<bf16>, out_ptr: Ptr<f16>, out2_ptr: Ptr<bf16>, n: i32; const BLOCK: usize) {
        let offs = program_id(0) * BLOCK as i32 + arange(0, BLOCK);
        let mask = offs.lt(n);
        let x = load(x_ptr + offs, Some(mask), None);
        let y = load(y_ptr + offs, Some(mask), None);
        store(out_ptr + offs * 3, exp(x), Some(mask));
        store(out_ptr + offs * 3 + 1, sqrt(x), Some(mask));
        store(out_ptr + offs * 3 + 2, erf(fma(x, x, x)), Some(mask));
        store(out2_ptr + offs * 3, exp(y), Some(mask));
        store(out2_ptr + offs * 3 + 1, sqrt(y), Some(mask));
        store(out2_ptr + offs * 3 + 2, erf(y), Some(mask));
    }
}

kernel! {
    /// The f32 composition `half_math` must equal after one rounding.
    pub fn f32_math(x_ptr: Ptr<f32>, out_ptr: Ptr<f32>, n: i32; const BLOCK: usize) {
        let offs = program_id(0) * BLOCK as i32 + arange(0, BLOCK);
        let mask = offs.lt(n);
        let x = load(x_ptr + offs, Some(mask), None);
        store(out_ptr + offs * 3, exp(x), Some(mask));
        store(out_ptr + offs * 3 + 1, sqrt(x), Some(mask));
        store(out_ptr + offs * 3 + 2, erf(x), Some(mask));
    }
}

kernel! {
    /// `erf(fma(x, x, x))` in f32 then rounded to f16, as `half_math` must compute it.
    pub fn f32_fma_erf(x_ptr: Ptr<f32>, out_ptr: Ptr<f16>, n: i32; const BLOCK: usize) {
        let offs = program_id(0) * BLOCK as i32 + arange(0, BLOCK);
        let mask = offs.lt(n);
        let x = load(x_ptr + offs, Some(mask), None);
        store(out_ptr + offs, erf(fma(x, x, x).to::<f16>().to::<f32>()).to::<f16>(), Some(mask));
    }
}
