//! Tensor descriptors (Triton's `tl.make_tensor_descriptor`, `desc.load`, `desc.store`,
//! `tl.load_tensor_descriptor`, `tl.store_tensor_descriptor`): a strided tensor of 1 to 5
//! dims, its last dim contiguous, read and written in blocks of one `block_shape` at any
//! offsets.
//!
//! Triton lowers them to TMA on sm_90; what a kernel sees is the same as a block pointer
//! checked along every dim: a load gives the tensor's elements inside its shape and the
//! descriptor's padding (0 or NaN) outside, and a store writes only the elements inside.
//! So a descriptor is made of a block pointer's parts (`block_ptr.rs`, its offsets 0) and
//! each access is `load_block` / `store_block` at the given offsets with every dim in
//! `boundary_check`: the stages after tracing see ordinary masked loads and stores. The
//! atomics (`desc.atomic_add`, ..., Triton's TMA reductions) are masked relaxed atomics
//! over the same block.
//!
//! Triton's rules are checked where the descriptor is made, each a located
//! [`TraceTensorDescriptor`](crate::diag::Code::TraceTensorDescriptor) error: 1 to 5
//! dims, one shape, stride and block dim per dim, block dims that are powers of two, at least 16 bytes along the last dim, a last
//! stride of 1 known at compile time (a literal, or an argument specialized to 1), and a
//! padding of zero or NaN (NaN for floats only). After one, accesses give zeros and store
//! nothing, so tracing goes on without follow-on errors. Triton's alignment rules (a base
//! aligned to 16 bytes, other strides multiples of 16 bytes) are the hardware's for TMA:
//! the accesses here are correct without them.

use std::marker::PhantomData;

use crate::ir::{AtomicOp, Constant, DType, SourceLoc, Value};
use crate::trace::{Builder, with_builder};

use super::block_access::Padding;
use super::block_ptr::{Op, Parts};
use super::dtype::{Ptr, ScalarMarker};
use super::index_list::IndexList;
use super::ops::Carry;
use super::tensor::Tensor;

/// The most dims a descriptor has (TMA's limit, and Triton's).
pub const MAX_DESCRIPTOR_RANK: usize = 5;

/// The fewest bytes a block spans along its last dim (Triton's rule: TMA moves 16-byte
/// units).
pub const MIN_DESCRIPTOR_ROW_BYTES: usize = 16;

/// A strided tensor read and written in blocks of `block_shape` (Triton's
/// `tensor_descriptor`, made by [`make_tensor_descriptor`]): [`load`](Self::load) and
/// [`store`](Self::store) a block at any offsets; the elements outside the tensor load as
/// the padding and are not stored. Loops and branches carry it ([`Carry`]).
pub struct TensorDescriptor<E> {
    parts: Parts,
    padding: Padding,
    _elem: PhantomData<fn() -> E>,
}

impl<E> Clone for TensorDescriptor<E> {
    fn clone(&self) -> Self {
        TensorDescriptor { parts: self.parts.clone(), padding: self.padding, _elem: PhantomData }
    }
}

impl<E> std::fmt::Debug for TensorDescriptor<E> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TensorDescriptor")
            .field("base", &self.parts.base)
            .field("block_shape", &self.parts.block_shape)
            .field("padding", &self.padding)
            .finish_non_exhaustive()
    }
}

const MAKE: Op = Op::descriptor("make_tensor_descriptor");
const LOAD: Op = Op::descriptor("load_tensor_descriptor");
const STORE: Op = Op::descriptor("store_tensor_descriptor");

impl<E: ScalarMarker> TensorDescriptor<E> {
    /// Triton's `desc.load(offsets)`: the block at `offsets` (one `i32` scalar or Rust
    /// integer per dim), its elements outside the tensor the descriptor's padding.
    #[track_caller]
    pub fn load(&self, offsets: impl IndexList) -> Tensor<E> {
        load_tensor_descriptor(self, offsets)
    }

    /// Triton's `desc.store(offsets, value)`: `value` (a block of the descriptor's block
    /// shape, or a scalar, broadcast) written at `offsets`, but for the elements outside
    /// the tensor.
    #[track_caller]
    pub fn store(&self, offsets: impl IndexList, value: Tensor<E>) {
        store_tensor_descriptor(self, offsets, value)
    }

    /// Triton's `desc.atomic_add(offsets, value)`: `*p += value` for every element of the
    /// block at `offsets` inside the tensor, atomically (Triton's TMA reduction; relaxed,
    /// with the launch's scope). Nothing is returned. The element types are
    /// [`atomic_add`](super::atomic_add)'s.
    #[track_caller]
    pub fn atomic_add(&self, offsets: impl IndexList, value: Tensor<E>) {
        self.atomic(AtomicOp::Add, "TensorDescriptor::atomic_add", offsets, value, SourceLoc::caller())
    }

    /// Triton's `desc.atomic_min(offsets, value)`: as [`Self::atomic_add`] with `min`.
    #[track_caller]
    pub fn atomic_min(&self, offsets: impl IndexList, value: Tensor<E>) {
        self.atomic(AtomicOp::Min, "TensorDescriptor::atomic_min", offsets, value, SourceLoc::caller())
    }

    /// Triton's `desc.atomic_max(offsets, value)`: as [`Self::atomic_add`] with `max`.
    #[track_caller]
    pub fn atomic_max(&self, offsets: impl IndexList, value: Tensor<E>) {
        self.atomic(AtomicOp::Max, "TensorDescriptor::atomic_max", offsets, value, SourceLoc::caller())
    }

    /// Triton's `desc.atomic_and(offsets, value)`: as [`Self::atomic_add`] with `&`.
    #[track_caller]
    pub fn atomic_and(&self, offsets: impl IndexList, value: Tensor<E>) {
        self.atomic(AtomicOp::And, "TensorDescriptor::atomic_and", offsets, value, SourceLoc::caller())
    }

    /// Triton's `desc.atomic_or(offsets, value)`: as [`Self::atomic_add`] with `|`.
    #[track_caller]
    pub fn atomic_or(&self, offsets: impl IndexList, value: Tensor<E>) {
        self.atomic(AtomicOp::Or, "TensorDescriptor::atomic_or", offsets, value, SourceLoc::caller())
    }

    /// Triton's `desc.atomic_xor(offsets, value)`: as [`Self::atomic_add`] with `^`.
    #[track_caller]
    pub fn atomic_xor(&self, offsets: impl IndexList, value: Tensor<E>) {
        self.atomic(AtomicOp::Xor, "TensorDescriptor::atomic_xor", offsets, value, SourceLoc::caller())
    }

    /// `op` into the block at `offsets`; `name` is the method, as errors call it.
    fn atomic(&self, op: AtomicOp, name: &'static str, offsets: impl IndexList, value: Tensor<E>, loc: SourceLoc) {
        let offsets = offsets.index_values(loc);
        let at = Op::descriptor(name);
        with_builder(|b| {
            let parts = b.descriptor_block(at, &self.parts, &offsets, loc);
            b.atomic_block(at, op, &parts, value.id(), loc);
        });
    }

    /// The shape of the blocks it loads and stores (Triton's `desc.block_shape`).
    pub fn block_shape(&self) -> &[usize] {
        &self.parts.block_shape
    }
}

/// `tl.make_tensor_descriptor(base, shape, strides, block_shape)`: the tensor at `base` (a
/// scalar pointer) of `shape` and `strides` (in elements, integer scalars or Rust
/// integers; the last stride 1), read and written in blocks of `block_shape` (powers of
/// two, at least 16 bytes along the last dim); elements outside the tensor load as 0.
///
/// ```
/// # use rtriton::prelude::*;
/// rtriton::kernel! {
///     fn inplace_abs(x: Ptr<f32>, m: i32, n: i32; const BM: usize, const BN: usize) {
///         let desc = make_tensor_descriptor(x, (m, n), (n, 1), &[BM, BN]);
///         let at = (program_id(0) * BM as i32, program_id(1) * BN as i32);
///         desc.store(at, abs(desc.load(at)));
///     }
/// }
/// # rtriton::trace::trace_unspecialized(&inplace_abs(), &[("BM", 16), ("BN", 16)]).unwrap();
/// ```
#[track_caller]
pub fn make_tensor_descriptor<E: ScalarMarker>(
    base: Tensor<Ptr<E>>,
    shape: impl IndexList,
    strides: impl IndexList,
    block_shape: &[usize],
) -> TensorDescriptor<E> {
    make_at(base, shape, strides, block_shape, Padding::Zero, SourceLoc::caller())
}

/// [`make_tensor_descriptor`] with Triton's `padding_option`: `Padding::Zero` (`"zero"`)
/// or `Padding::Nan` (`"nan"`, float elements only).
#[track_caller]
pub fn make_tensor_descriptor_with<E: ScalarMarker>(
    base: Tensor<Ptr<E>>,
    shape: impl IndexList,
    strides: impl IndexList,
    block_shape: &[usize],
    padding: Padding,
) -> TensorDescriptor<E> {
    make_at(base, shape, strides, block_shape, padding, SourceLoc::caller())
}

fn make_at<E: ScalarMarker>(
    base: Tensor<Ptr<E>>,
    shape: impl IndexList,
    strides: impl IndexList,
    block_shape: &[usize],
    padding: Padding,
    loc: SourceLoc,
) -> TensorDescriptor<E> {
    let (shape, strides) = (shape.index_values(loc), strides.index_values(loc));
    let parts = with_builder(|b| b.make_descriptor(base.id(), E::SCALAR, [shape, strides], block_shape, padding, loc));
    TensorDescriptor { parts, padding, _elem: PhantomData }
}

/// `tl.load_tensor_descriptor(desc, offsets)`: [`TensorDescriptor::load`].
#[track_caller]
pub fn load_tensor_descriptor<E: ScalarMarker>(desc: &TensorDescriptor<E>, offsets: impl IndexList) -> Tensor<E> {
    let loc = SourceLoc::caller();
    let offsets = offsets.index_values(loc);
    Tensor::from_value(with_builder(|b| {
        let parts = b.descriptor_block(LOAD, &desc.parts, &offsets, loc);
        let all: Vec<usize> = (0..parts.block_shape.len()).collect();
        b.load_block(LOAD, &parts, E::SCALAR, &all, desc.padding, loc)
    }))
}

/// `tl.store_tensor_descriptor(desc, offsets, value)`: [`TensorDescriptor::store`].
#[track_caller]
pub fn store_tensor_descriptor<E: ScalarMarker>(desc: &TensorDescriptor<E>, offsets: impl IndexList, value: Tensor<E>) {
    let loc = SourceLoc::caller();
    let offsets = offsets.index_values(loc);
    with_builder(|b| {
        let parts = b.descriptor_block(STORE, &desc.parts, &offsets, loc);
        let all: Vec<usize> = (0..parts.block_shape.len()).collect();
        b.store_block(STORE, &parts, value.id(), &all, loc)
    });
}

/// A loop or branch carries the base; the shape, strides, block shape and padding must be
/// the same in the next value.
impl<E> Carry for TensorDescriptor<E> {
    fn values(&self) -> Vec<Value> {
        vec![self.parts.base]
    }

    fn rebuild(&self, values: &mut dyn Iterator<Item = Value>) -> Self {
        let mut next = self.clone();
        next.parts.base = values.next().expect("a carried tensor descriptor's base");
        next
    }

    fn check_captured(&self, next: &Self, what: &str, loc: SourceLoc) {
        with_builder(|b| {
            b.check_carried_descriptor((&self.parts, self.padding), (&next.parts, next.padding), what, loc)
        });
    }
}

impl Builder {
    /// `make_tensor_descriptor`'s checks and conversions (see the module doc).
    fn make_descriptor(
        &mut self,
        base: Value,
        elem: crate::ir::ScalarType,
        [shape, strides]: [Vec<Value>; 2],
        block_shape: &[usize],
        padding: Padding,
        loc: SourceLoc,
    ) -> Parts {
        let errors_before = self.errors.len();
        let rank = block_shape.len();
        self.check_scalar_base(MAKE, base, "the block's position to load and store", loc);
        if !(1..=MAX_DESCRIPTOR_RANK).contains(&rank) || shape.len() != rank || strides.len() != rank {
            self.error_with(
                MAKE.code,
                loc,
                format!(
                    "make_tensor_descriptor with {} shape dims, {} strides and a block_shape of rank {rank}: a \
                     descriptor has 1 to {MAX_DESCRIPTOR_RANK} dims, each with one shape, stride and block dim",
                    shape.len(),
                    strides.len()
                ),
                "give shape, strides and block_shape one entry per dim of the tensor (1 to 5 dims)",
            );
        }
        let block_shape = self.checked_block_shape(MAKE, block_shape, loc);
        let shape = self.index_scalars(MAKE, "shape", &shape, DType::I64, rank, loc);
        let last_stride = strides.last().copied();
        let strides = self.index_scalars(MAKE, "stride", &strides, DType::I64, rank, loc);
        if let (Some(v), true) = (last_stride, self.errors.len() == errors_before) {
            self.check_unit_last_stride(v, loc);
        }
        let elem_bytes = elem.size_bytes() as usize;
        let row_bytes = block_shape.last().map_or(0, |&d| d * elem_bytes);
        if self.errors.len() == errors_before && row_bytes < MIN_DESCRIPTOR_ROW_BYTES {
            self.error_with(
                MAKE.code,
                loc,
                format!(
                    "make_tensor_descriptor with block_shape {block_shape:?} of {elem}: {row_bytes} bytes along the \
                     last dim, fewer than {MIN_DESCRIPTOR_ROW_BYTES}"
                ),
                format!(
                    "make the last block dim at least {} elements of {elem} (TMA moves 16-byte units), or load through \
                     a block pointer",
                    MIN_DESCRIPTOR_ROW_BYTES.div_ceil(elem_bytes)
                ),
            );
        }
        match padding {
            Padding::Undefined => self.error_with(
                MAKE.code,
                loc,
                "make_tensor_descriptor_with Padding::Undefined: a descriptor's padding is zero or NaN",
                "pass Padding::Zero (Triton's \"zero\", the default) or Padding::Nan (\"nan\")",
            ),
            Padding::Nan if !elem.is_float() => self.error_with(
                MAKE.code,
                loc,
                format!("make_tensor_descriptor_with Padding::Nan of {elem} elements: {elem} has no NaN"),
                "pad integer and bool tensors with Padding::Zero (Triton refuses `nan` for them too)",
            ),
            _ => {}
        }
        let offsets = (0..rank).map(|_| self.scalar_literal(Constant::Int(0), DType::I32, loc)).collect();
        let order = (0..rank).rev().collect();
        let broken = self.errors.len() > errors_before;
        Parts { base, shape, strides, offsets, block_shape, order, broken }
    }

    /// Triton's rule: the last dim is contiguous, its stride 1 when the kernel is
    /// compiled (TMA addresses the last dim in elements, the others by their strides).
    fn check_unit_last_stride(&mut self, stride: Value, loc: SourceLoc) {
        match self.constant(stride).and_then(Constant::as_int) {
            Some(1) => {}
            Some(c) => self.error_with(
                MAKE.code,
                loc,
                format!("make_tensor_descriptor with a last stride of {c}: the last dim must be contiguous"),
                "make the tensor's last dim the contiguous one (stride 1), permuting shape and strides, or load \
                 through a block pointer, which takes any strides",
            ),
            None => self.error_with(
                MAKE.code,
                loc,
                "make_tensor_descriptor with a last stride known only at run time: it must be 1 when the kernel is \
                 compiled (Triton's rule)",
                "pass the literal 1, or an argument Triton specializes when it is 1 (not do_not_specialize); for a \
                 stride that may be other than 1, load through a block pointer",
            ),
        }
    }

    /// The descriptor's block at `offsets`, as a block pointer's parts (broken, so the
    /// access emits nothing, after an error).
    fn descriptor_block(&mut self, op: Op, parts: &Parts, offsets: &[Value], loc: SourceLoc) -> Parts {
        let rank = parts.block_shape.len();
        let mut block = parts.clone();
        if block.broken {
            return block;
        }
        if offsets.len() != rank {
            self.error_with(
                op.code,
                loc,
                format!("{} at {} offsets of a tensor descriptor of rank {rank}", op.name, offsets.len()),
                "give one offset per dim of the descriptor",
            );
            block.broken = true;
            return block;
        }
        let errors_before = self.errors.len();
        block.offsets = self.index_scalars(op, "offset", offsets, DType::I32, rank, loc);
        block.broken |= self.errors.len() > errors_before;
        block
    }

    /// A descriptor a loop or branch yields where `template` was carried: the parts it
    /// does not carry must be the same.
    fn check_carried_descriptor(
        &mut self,
        (template, pad): (&Parts, Padding),
        (next, next_pad): (&Parts, Padding),
        what: &str,
        loc: SourceLoc,
    ) {
        if template.broken || next.broken {
            return;
        }
        let change = if pad != next_pad {
            Some(format!("padding {pad:?} becomes {next_pad:?}"))
        } else {
            self.template_change(template, next)
        };
        if let Some(change) = change {
            self.error_with(
                MAKE.code,
                loc,
                format!("a tensor descriptor carried through {what} changes: {change}"),
                "carry one descriptor unchanged and load at other offsets, or make another descriptor outside the loop \
                 or branch",
            );
        }
    }
}
