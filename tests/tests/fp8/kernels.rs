//! The fp8 test kernels: one conversion kernel per (source, target) pair, and a kernel
//! that computes in f32 between an fp8 load and an fp8 store.

use half::{bf16, f16};
use rtriton::kernel;
use rtriton::prelude::*;
use rtriton::trace::KernelDef;

/// `mod $name { kernel cvt: y[i] = x[i].to::<$dst>() }`.
macro_rules! cvt_kernels {
    ($($name:ident: $src:ty => $dst:ty;)*) => {$(
        pub mod $name {
            use super::*;
            kernel! {
                pub fn cvt(x_ptr: Ptr<$src>, y_ptr: Ptr<$dst>, n: i32; const BLOCK: usize) {
                    let offs = program_id(0) * BLOCK as i32 + arange(0, BLOCK);
                    let mask = offs.lt(n);
                    let x = load(x_ptr + offs, Some(mask), None);
                    store(y_ptr + offs, x.to::<$dst>(), Some(mask));
                }
            }
        }
    )*
        /// Every conversion kernel.
        pub fn every_cvt() -> Vec<KernelDef> {
            vec![$($name::cvt()),*]
        }
    };
}

cvt_kernels! {
    e4m3_to_f32: F8E4M3 => f32;
    e4m3_to_f16: F8E4M3 => f16;
    e4m3_to_bf16: F8E4M3 => bf16;
    e5m2_to_f32: F8E5M2 => f32;
    e5m2_to_f16: F8E5M2 => f16;
    e5m2_to_bf16: F8E5M2 => bf16;
    f32_to_e4m3: f32 => F8E4M3;
    f16_to_e4m3: f16 => F8E4M3;
    bf16_to_e4m3: bf16 => F8E4M3;
    f32_to_e5m2: f32 => F8E5M2;
    f16_to_e5m2: f16 => F8E5M2;
    bf16_to_e5m2: bf16 => F8E5M2;
    e4m3_to_e5m2: F8E4M3 => F8E5M2;
    e5m2_to_e4m3: F8E5M2 => F8E4M3;
}

kernel! {
    /// `z = (x * y + 1)` computed in f32 from an e4m3 `x` and an e5m2 `y`, stored as e4m3.
    pub fn fma_f8(x_ptr: Ptr<F8E4M3>, y_ptr: Ptr<F8E5M2>, z_ptr: Ptr<F8E4M3>, n: i32; const BLOCK: usize) {
        let offs = program_id(0) * BLOCK as i32 + arange(0, BLOCK);
        let mask = offs.lt(n);
        let x = load(x_ptr + offs, Some(mask), None).to::<f32>();
        let y = load(y_ptr + offs, Some(mask), None).to::<f32>();
        store(z_ptr + offs, (x * y + 1.0).to::<F8E4M3>(), Some(mask));
    }
}

kernel! {
    /// A comparison of two fp8 blocks: refused with a located error.
    pub fn compare_f8(x_ptr: Ptr<F8E4M3>, y_ptr: Ptr<i8>, n: i32; const BLOCK: usize) {
        let offs = program_id(0) * BLOCK as i32 + arange(0, BLOCK);
        let mask = offs.lt(n);
        let x = load(x_ptr + offs, Some(mask), None);
        store(y_ptr + offs, x.lt(x).to::<i8>(), Some(mask));
    }
}

kernel! {
    /// `+` on fp8 blocks: it type-checks (Triton's promotion keeps an fp8 pair's type) and
    /// tracing refuses it with a located error.
    pub fn add_f8(x_ptr: Ptr<F8E5M2>, y_ptr: Ptr<F8E5M2>, n: i32; const BLOCK: usize) {
        let offs = program_id(0) * BLOCK as i32 + arange(0, BLOCK);
        let mask = offs.lt(n);
        let x = load(x_ptr + offs, Some(mask), None);
        store(y_ptr + offs, x + x, Some(mask));
    }
}

kernel! {
    /// `where` between two fp8 blocks: allowed (a select moves codes).
    pub fn where_f8(x_ptr: Ptr<F8E4M3>, y_ptr: Ptr<F8E4M3>, z_ptr: Ptr<F8E4M3>, n: i32; const BLOCK: usize) {
        let offs = program_id(0) * BLOCK as i32 + arange(0, BLOCK);
        let mask = offs.lt(n);
        let x = load(x_ptr + offs, Some(mask), None);
        let y = load(y_ptr + offs, Some(mask), None);
        store(z_ptr + offs, where_(offs.lt(n / 2), x, y), Some(mask));
    }
}
