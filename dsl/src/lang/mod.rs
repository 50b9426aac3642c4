//! The kernel language: what a kernel body calls (Triton's `triton.language`).
//!
//! `tensor.rs` and `ops.rs` are the thin user-facing API; `dtype.rs` holds the element
//! types, `promotion.rs` the promotion table; `semantic.rs` holds every typing,
//! broadcasting and folding rule, and `compute.rs` the conversions around ops on storage
//! types (`f16` computes in `f32`, `i8` in `i32`); `math.rs` the math functions (`tl.exp`,
//! `tl.math.div_rn`, ...); `scalars.rs` Triton's scalar rule (a Rust value next
//! to a tensor takes its dtype) and `bits.rs` (`!`, bitcasts, operator dtype errors). The shape ops (`reshape`, `trans`, `permute`, `join`, `split`,
//! ...) are `shape_ops.rs` (API) and `shape_semantic.rs` (rules); `dot.rs` the matrix product;
//! `random.rs` Triton's Philox random numbers (`tl.randint`, `tl.rand`, `tl.randn`, ...),
//! written with the language's ops; `sort.rs` Triton's bitonic `sort`, `topk` and
//! `bitonic_merge`, written with them too. Block pointers (`tl.make_block_ptr`,
//! `tl.advance`) are `block_ptr.rs`, a trace-time value of parts; loads and stores through
//! them `block_access.rs`, ordinary masked accesses; `index_list.rs` what their shapes,
//! strides and offsets are given as; tensor descriptors (`tl.make_tensor_descriptor`)
//! `tensor_descriptor.rs`, made of a block pointer's parts and accessed through them.

mod atomics;
mod axis_hints;
mod bits;
mod block_access;
mod block_ptr;
mod combine;
mod compute;
mod control;
mod debug;
mod dot;
mod dtype;
mod index_list;
mod indexing;
mod inline_asm;
pub mod math;
mod operators;
mod ops;
mod params;
pub mod promotion;
pub mod random;
mod scalars;
pub(crate) mod semantic;
mod shape_ops;
mod shape_semantic;
mod sort;
mod standard;
mod tensor;
mod tensor_descriptor;

pub use crate::ir::InputPrecision;
pub use crate::ir::{AsmModel, AsmModelFn};
pub use crate::semantics::fp8_types::{F8E4M3, F8E5M2};
pub use atomics::{
    Scope, Sem, atomic_add, atomic_add_with, atomic_and, atomic_and_with, atomic_cas, atomic_cas_with, atomic_max,
    atomic_max_with, atomic_min, atomic_min_with, atomic_or, atomic_or_with, atomic_xchg, atomic_xchg_with, atomic_xor,
    atomic_xor_with,
};
pub use axis_hints::{HintValues, max_constancy, max_contiguous};
pub use block_access::{Padding, load_block, store_block};
pub use block_ptr::{BlockPtr, advance, make_block_ptr};
pub use combine::{argmin, associative_scan, cumprod, cumsum, reduce, xor_sum};
pub use control::{if_, if_then, while_loop};
pub use debug::{PrintArgs, device_assert, device_print, static_assert, static_print};
pub use dot::{DotOptions, dot, dot_with};
pub use dtype::{DTypeMarker, Float, IntMarker, NumericMarker, Ptr, ScalarMarker};
pub use index_list::{IndexList, IndexOperand};
pub use indexing::{flip, gather, histogram, histogram_with};
pub use inline_asm::{AsmArgs, AsmDtypes, WithAsmModel, inline_asm_elementwise};
pub use math::{
    abs, atan2, ceil, clamp, clamp_with, copysign, cos, div_rn, erf, exp, exp2, exp2_ftz, expm1, fdiv, floor, fma,
    fmod, isinf, isnan, log, log1p, log2, pow, rint, round, rsqrt, sigmoid, signbit, sin, sqrt, sqrt_rn, tanh, trunc,
    umulhi,
};
pub use operators::{cast, eq, ge, gt, le, lt, ne};
pub use ops::{
    Carry, MAX_STAGES, MAX_UNROLL, arange, argmax, assume, cdiv, debug_barrier, for_range, for_range_staged,
    for_range_unrolled, full, load, load_staged, max, max_with, maximum, maximum_with, min, min_with, minimum,
    minimum_with, multiple_of, num_programs, program_id, store, sum, where_, zeros,
};
pub use promotion::{AddOutput, Promote, PromoteDiv};
pub use random::{
    N_ROUNDS_DEFAULT, PhiloxCounter, pair_uniform_to_normal, philox, philox_impl, philox_with, rand, rand_with, rand4x,
    rand4x_with, randint, randint_with, randint4x, randint4x_with, randn, randn_with, randn4x, randn4x_with,
    uint_to_uniform_float,
};
pub use scalars::{BoolScalar, FloatScalar, IntScalar};
pub use shape_ops::{broadcast_to, expand_dims, join, permute, reshape, split, trans};
pub use sort::{bitonic_merge, sort, topk, topk_with};
pub use standard::{interleave, ravel, reduce_or, softmax, softmax_with, swizzle2d, zeros_like};
pub use tensor::{Tensor, TensorOperand};
pub use tensor_descriptor::{
    MAX_DESCRIPTOR_RANK, MIN_DESCRIPTOR_ROW_BYTES, TensorDescriptor, load_tensor_descriptor, make_tensor_descriptor,
    make_tensor_descriptor_with, store_tensor_descriptor,
};
