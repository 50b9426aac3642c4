//! The dtypes beyond `f32`/`i32`/`i64` (`f16`, `bf16`, `f64`, `i8`, `u8`, `i16`, `u32`,
//! `u64`): conversions between every pair (load, `.to::<B>()`, store: so loads, stores
//! and round trips of each dtype are the `A -> A` row) with special values, against an
//! independent CPU reference written with Rust's `as` and the `half` crate, on the
//! interpreter and the simulator; arithmetic, comparisons and reductions of each dtype
//! (storage types computed in f32 / i32), interpreter vs simulator bit for bit and
//! against hand-computed values; the promotion table; ptxas for sm_86 and sm_90; GPU
//! tests (ignored here) against the same references. See `docs/semantics.md`, "Dtypes".
//!
//! These tests place buffers and call the stages themselves: `rtriton-testing`'s typed
//! buffers hold f32/i32/i64 only so far (listed as unfinished in the dtypes report).

#[path = "../ptx_common/mod.rs"]
mod ptx_common;

mod kernels;
mod reference;
mod run;

mod arithmetic;
mod conversions;
mod gpu;
mod packed;
mod promotion;
mod ptxas;
