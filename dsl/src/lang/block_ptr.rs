//! Block pointers (Triton's `tl.make_block_ptr` and `tl.advance`): a pointer to a
//! `block_shape` tile of an N-D tensor given by its base pointer, shape and strides, at
//! `offsets`.
//!
//! A block pointer is no IR value: it lives at trace time, as the parts Triton's
//! `RewriteTensorPointer` pass expands a `!tt.ptr<tensor<...>>` into on targets without
//! TMA (the base, the shape and strides as `i64`, the offsets as `i32`, the block shape and
//! the order). `load_block` and `store_block` (`block_access.rs`) turn them into a block of
//! pointers and a mask, so every stage after tracing sees ordinary loads and stores. A loop
//! or branch carries the base and the offsets; the shape, the strides, the block shape and
//! the order are the same on every iteration, so they stay outside the carried list
//! (Triton's loop canonicalization drops them from the iteration arguments too).
//!
//! Every rule is a located [`Code::TraceBlockPointer`] error naming the function; after
//! one, the block pointer is marked broken and the accesses through it emit nothing more
//! (a load gives zeros), so tracing goes on without follow-on errors.

use std::marker::PhantomData;

use crate::diag::Code;
use crate::ir::{Constant, DType, MAX_BLOCK_NUMEL, OpKind, SourceLoc, Value};
use crate::trace::{Builder, with_builder};

use super::dtype::{Ptr, ScalarMarker};
use super::index_list::IndexList;
use super::ops::Carry;
use super::tensor::Tensor;

/// A pointer to a `block_shape` tile of a tensor (Triton's block pointer, the result of
/// [`make_block_ptr`]): read it with [`load_block`](super::load_block), write it with
/// [`store_block`](super::store_block), move it with [`advance`]. Loops and branches carry
/// it ([`Carry`]).
pub struct BlockPtr<E> {
    pub(super) parts: Parts,
    _elem: PhantomData<fn() -> E>,
}

impl<E> Clone for BlockPtr<E> {
    fn clone(&self) -> Self {
        BlockPtr { parts: self.parts.clone(), _elem: PhantomData }
    }
}

impl<E> std::fmt::Debug for BlockPtr<E> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("BlockPtr")
            .field("base", &self.parts.base)
            .field("offsets", &self.parts.offsets)
            .field("block_shape", &self.parts.block_shape)
            .finish_non_exhaustive()
    }
}

/// The function a rule is checked for, as its errors name it: Triton's name and the
/// diagnostic code of its family (block pointers or tensor descriptors).
#[derive(Clone, Copy, Debug)]
pub(super) struct Op {
    pub name: &'static str,
    pub code: Code,
    /// What the function takes or makes, as errors call it ("block pointer").
    pub of: &'static str,
}

impl Op {
    pub(super) const fn block_ptr(name: &'static str) -> Op {
        Op { name, code: Code::TraceBlockPointer, of: "block pointer" }
    }

    pub(super) const fn descriptor(name: &'static str) -> Op {
        Op { name, code: Code::TraceTensorDescriptor, of: "tensor descriptor" }
    }
}

/// What a block pointer is made of, whatever its element type.
#[derive(Clone, Debug)]
pub(super) struct Parts {
    /// The scalar pointer to element `[0, ..., 0]` of the tensor.
    pub base: Value,
    /// The tensor's size along each dim, `i64` scalars.
    pub shape: Vec<Value>,
    /// The distance in elements between neighbours along each dim, `i64` scalars.
    pub strides: Vec<Value>,
    /// The tile's first element along each dim, `i32` scalars.
    pub offsets: Vec<Value>,
    /// The tile's size along each dim, powers of two.
    pub block_shape: Vec<usize>,
    /// The dims from the fastest-varying in memory to the slowest (Triton's `order`):
    /// checked, then kept only to compare carried block pointers, as Triton reads it only
    /// for TMA descriptors.
    pub order: Vec<usize>,
    /// An error was reported while making it: accesses through it emit nothing more.
    pub broken: bool,
}

impl<E> BlockPtr<E> {
    fn from_parts(parts: Parts) -> Self {
        BlockPtr { parts, _elem: PhantomData }
    }

    /// Triton's `ptr.advance(offsets)`: this block pointer with `offsets` (one `i32` per
    /// dim) added to its offsets. See [`advance`].
    #[track_caller]
    pub fn advance(&self, offsets: impl IndexList) -> BlockPtr<E> {
        let loc = SourceLoc::caller();
        advance_at(self, offsets, loc)
    }
}

/// `tl.make_block_ptr(base, shape, strides, offsets, block_shape, order)`: a pointer to
/// the `block_shape` tile at `offsets` of the tensor at `base` (a scalar pointer) with
/// `shape` and `strides` (in elements). `shape` and `strides` are integer scalars or Rust
/// integers, widened to `i64` (as Triton); `offsets` are `i32` scalars or Rust integers
/// that fit `i32`; `block_shape` holds powers of two; `order` is a permutation of the
/// dims, fastest-varying first (`[1, 0]` for a row-major tile); each has one entry per
/// dim. The lists are arrays, slices or tuples ([`IndexList`]):
///
/// ```
/// # use rtriton::prelude::*;
/// rtriton::kernel! {
///     fn copy_tile(x: Ptr<f32>, y: Ptr<f32>, m: i32, n: i32, stride_m: i32; const B: usize) {
///         let rows = program_id(0) * B as i32;
///         let src = make_block_ptr(x, (m, n), (stride_m, 1), (rows, 0), &[B, B], &[1, 0]);
///         let dst = make_block_ptr(y, (m, n), (n, 1), (rows, 0), &[B, B], &[1, 0]);
///         store_block(&dst, load_block(&src, &[0, 1], Padding::Zero), &[0, 1]);
///     }
/// }
/// # rtriton::trace::trace_unspecialized(&copy_tile(), &[("B", 16)]).unwrap();
/// ```
#[track_caller]
pub fn make_block_ptr<E: ScalarMarker>(
    base: Tensor<Ptr<E>>,
    shape: impl IndexList,
    strides: impl IndexList,
    offsets: impl IndexList,
    block_shape: &[usize],
    order: &[usize],
) -> BlockPtr<E> {
    let loc = SourceLoc::caller();
    let (shape, strides, offsets) = (shape.index_values(loc), strides.index_values(loc), offsets.index_values(loc));
    let parts = with_builder(|b| b.make_block_ptr(base.id(), [shape, strides, offsets], block_shape, order, loc));
    BlockPtr::from_parts(parts)
}

/// `tl.advance(ptr, offsets)`: `ptr` moved by `offsets` (one `i32` scalar or Rust
/// integer per dim, added to its offsets). Nothing is loaded or checked against the
/// tensor's bounds: a block past them is what `boundary_check` masks.
#[track_caller]
pub fn advance<E>(ptr: &BlockPtr<E>, offsets: impl IndexList) -> BlockPtr<E> {
    advance_at(ptr, offsets, SourceLoc::caller())
}

fn advance_at<E>(ptr: &BlockPtr<E>, offsets: impl IndexList, loc: SourceLoc) -> BlockPtr<E> {
    let deltas = offsets.index_values(loc);
    BlockPtr::from_parts(with_builder(|b| b.advance_block_ptr(&ptr.parts, deltas, loc)))
}

/// A loop or branch carries the base and the offsets; the rest is the template's and must
/// be the same in the next value (see the module doc).
impl<E> Carry for BlockPtr<E> {
    fn values(&self) -> Vec<Value> {
        std::iter::once(self.parts.base).chain(self.parts.offsets.iter().copied()).collect()
    }

    fn rebuild(&self, values: &mut dyn Iterator<Item = Value>) -> Self {
        let mut parts = self.parts.clone();
        parts.base = values.next().expect("a carried block pointer's base");
        for o in &mut parts.offsets {
            *o = values.next().expect("one carried offset per dim");
        }
        BlockPtr::from_parts(parts)
    }

    fn check_captured(&self, next: &Self, what: &str, loc: SourceLoc) {
        with_builder(|b| b.check_carried_block_ptr(&self.parts, &next.parts, what, loc));
    }
}

const MAKE: Op = Op::block_ptr("make_block_ptr");

impl Builder {
    /// `make_block_ptr`'s checks and conversions (see [`make_block_ptr`]).
    fn make_block_ptr(
        &mut self,
        base: Value,
        [shape, strides, offsets]: [Vec<Value>; 3],
        block_shape: &[usize],
        order: &[usize],
        loc: SourceLoc,
    ) -> Parts {
        let errors_before = self.errors.len();
        let rank = block_shape.len();
        self.check_scalar_base(MAKE, base, "the tile's position as offsets", loc);
        let lens = [shape.len(), strides.len(), offsets.len(), order.len()];
        if rank == 0 || lens.iter().any(|&l| l != rank) {
            self.error_with(
                Code::TraceBlockPointer,
                loc,
                format!(
                    "make_block_ptr with {} shape dims, {} strides, {} offsets, {} order dims and a block_shape of \
                     rank {rank}: every list has one entry per dim",
                    lens[0], lens[1], lens[2], lens[3]
                ),
                "give shape, strides, offsets, block_shape and order one entry per dim of the tensor (at least one)",
            );
        }
        let block_shape = self.checked_block_shape(MAKE, block_shape, loc);
        let rank_ok = lens.iter().all(|&l| l == rank);
        if rank_ok && !is_permutation(order) {
            self.error_with(
                Code::TraceBlockPointer,
                loc,
                format!("make_block_ptr with order {order:?}: not a permutation of the dims 0..{rank}"),
                "list every dim once, the fastest-varying in memory first (`[1, 0]` for a row-major tile)",
            );
        }
        let shape = self.index_scalars(MAKE, "shape", &shape, DType::I64, rank, loc);
        let strides = self.index_scalars(MAKE, "stride", &strides, DType::I64, rank, loc);
        let offsets = self.index_scalars(MAKE, "offset", &offsets, DType::I32, rank, loc);
        let order = if rank_ok && is_permutation(order) { order.to_vec() } else { (0..rank).rev().collect() };
        let broken = self.errors.len() > errors_before;
        Parts { base, shape, strides, offsets, block_shape, order, broken }
    }

    /// `op`'s base must be one scalar pointer (`then`: what the position is given as).
    pub(super) fn check_scalar_base(&mut self, op: Op, base: Value, then: &str, loc: SourceLoc) {
        let base_ty = self.ty(base).clone();
        if !base_ty.shape.is_scalar() {
            self.error_with(
                op.code,
                loc,
                format!("{} of a base of type {base_ty}: the base is one scalar pointer", op.name),
                format!("pass the tensor's pointer argument as the base and {then}"),
            );
        }
    }

    /// The block shape; after reporting what is wrong with it, a shape of powers of two
    /// within the limit, so the accesses through the block pointer trace on.
    pub(super) fn checked_block_shape(&mut self, op: Op, block_shape: &[usize], loc: SourceLoc) -> Vec<usize> {
        if let Some(d) = block_shape.iter().position(|d| !d.is_power_of_two()) {
            self.error_with(
                op.code,
                loc,
                format!(
                    "{} with block_shape {block_shape:?}: dim {d} is {}, not a power of two",
                    op.name, block_shape[d]
                ),
                "make every block dim a power of two and let boundary_check mask the tensor's edges",
            );
            return block_shape.iter().map(|_| 1).collect();
        }
        let numel = block_shape.iter().try_fold(1usize, |n, &d| n.checked_mul(d));
        if numel.is_none_or(|n| n > MAX_BLOCK_NUMEL) {
            self.error_with(
                op.code,
                loc,
                format!("{} with block_shape {block_shape:?}: more than {MAX_BLOCK_NUMEL} elements", op.name),
                match op.code {
                    Code::TraceBlockPointer => {
                        format!(
                            "use a tile of at most {MAX_BLOCK_NUMEL} elements and move it over the rest with advance"
                        )
                    }
                    _ => {
                        format!("use a tile of at most {MAX_BLOCK_NUMEL} elements and access the rest at other offsets")
                    }
                },
            );
            return block_shape.iter().map(|_| 1).collect();
        }
        block_shape.to_vec()
    }

    /// `values` as `rank` scalars of `dtype` (`what` names an entry in errors); a
    /// missing or bad entry is a constant 0 after its error is reported. `dtype` is `i64`
    /// for a shape or stride (any integer widens) and `i32` for an offset (Triton refuses
    /// other widths; a constant that fits is converted).
    pub(super) fn index_scalars(
        &mut self,
        op: Op,
        what: &str,
        values: &[Value],
        dtype: DType,
        rank: usize,
        loc: SourceLoc,
    ) -> Vec<Value> {
        (0..rank)
            .map(|d| match values.get(d) {
                Some(&v) => self.index_scalar(op, what, d, v, dtype, loc),
                None => self.scalar_literal(Constant::Int(0), dtype, loc),
            })
            .collect()
    }

    fn index_scalar(&mut self, op: Op, what: &str, d: usize, v: Value, dtype: DType, loc: SourceLoc) -> Value {
        let ty = self.ty(v).clone();
        if !ty.shape.is_scalar() {
            self.error_with(
                op.code,
                loc,
                format!("{}: {what} {d} is a {ty}; each {what} is one integer scalar", op.name),
                "reduce the block to a scalar, or pass a scalar argument or a Rust integer",
            );
            return self.scalar_literal(Constant::Int(0), dtype, loc);
        }
        if ty.dtype == dtype || dtype == DType::I64 {
            return self.cast(v, dtype, loc, false);
        }
        match self.constant(v).and_then(Constant::as_int) {
            Some(c) if i32::try_from(c).is_ok() => self.scalar_literal(Constant::Int(c), dtype, loc),
            _ => {
                self.error_with(
                    op.code,
                    loc,
                    format!("{}: {what} {d} is {}; {} offsets are i32 (Triton's rule)", op.name, ty.dtype, op.of),
                    "convert it with .to::<i32>(), or index with a block of pointers for 64-bit offsets",
                );
                self.scalar_literal(Constant::Int(0), dtype, loc)
            }
        }
    }

    /// `advance`: `deltas` added to the offsets of `parts`.
    fn advance_block_ptr(&mut self, parts: &Parts, deltas: Vec<Value>, loc: SourceLoc) -> Parts {
        let rank = parts.offsets.len();
        let mut next = parts.clone();
        if deltas.len() != rank {
            self.error_with(
                Code::TraceBlockPointer,
                loc,
                format!("advance by {} offsets of a block pointer of rank {rank}", deltas.len()),
                "give advance one offset per dim of the block pointer (0 for a dim that stays)",
            );
            next.broken = true;
            return next;
        }
        let errors_before = self.errors.len();
        let deltas = self.index_scalars(Op::block_ptr("advance"), "offset", &deltas, DType::I32, rank, loc);
        next.broken |= self.errors.len() > errors_before;
        for (o, d) in next.offsets.iter_mut().zip(deltas) {
            *o = self.binary(crate::ir::BinaryOp::Add, *o, d, loc);
        }
        next
    }

    /// A block pointer a loop or branch yields where `template` was carried: the parts it
    /// does not carry must be the same (equal values, or equal constants).
    fn check_carried_block_ptr(&mut self, template: &Parts, next: &Parts, what: &str, loc: SourceLoc) {
        if template.broken || next.broken {
            return;
        }
        if let Some(change) = self.template_change(template, next) {
            self.error_with(
                Code::TraceBlockPointer,
                loc,
                format!("a block pointer carried through {what} changes: {change}"),
                "keep a carried block pointer's shape, strides, block_shape and order; move it with advance, or \
                 make another block pointer outside the loop or branch",
            );
        }
    }
}

impl Builder {
    /// What differs between the parts a loop or branch does not carry of `template` and
    /// `next` (block shape, order, shape, strides), in words; `None` when nothing does.
    pub(super) fn template_change(&self, template: &Parts, next: &Parts) -> Option<String> {
        let same = |x: &[Value], y: &[Value]| {
            x.len() == y.len() && x.iter().zip(y).all(|(&p, &q)| self.same_index_scalar(p, q))
        };
        if template.block_shape != next.block_shape {
            Some(format!("block_shape {:?} becomes {:?}", template.block_shape, next.block_shape))
        } else if template.order != next.order {
            Some(format!("order {:?} becomes {:?}", template.order, next.order))
        } else if !same(&template.shape, &next.shape) {
            Some("its shape is other values".to_string())
        } else if !same(&template.strides, &next.strides) {
            Some("its strides are other values".to_string())
        } else {
            None
        }
    }

    /// Whether the `i64` index scalars `p` and `q` are the same value: one value, equal
    /// constants, or widenings of one value (each `make_block_ptr` widens its shape and
    /// strides anew, so a block pointer made again from the same arguments has new values).
    fn same_index_scalar(&self, p: Value, q: Value) -> bool {
        let source = |v: Value| {
            if let Some(OpKind::Cast { value }) = self.kernel.def_op(v).map(|op| &op.kind) { *value } else { v }
        };
        let (p, q) = (source(p), source(q));
        p == q || self.constant(p).is_some_and(|c| self.constant(q) == Some(c))
    }
}

/// Whether `order` lists each of `0..order.len()` once.
fn is_permutation(order: &[usize]) -> bool {
    let mut seen = vec![false; order.len()];
    order.iter().all(|&d| d < seen.len() && !std::mem::replace(&mut seen[d], true))
}
