//! Loads and stores through a block pointer (Triton's `tl.load(block_ptr,
//! boundary_check, padding_option)` and `tl.store(block_ptr, value, boundary_check)`),
//! written as ordinary masked loads and stores, as Triton's `RewriteTensorPointer` pass
//! writes them for targets without TMA:
//!
//! - element `[i_0, ..., i_{r-1}]` of the block is at `base + sum_d (offset_d + i_d) *
//!   stride_d`, the index computed in `i64` (the offset widened before the add);
//! - the mask is the AND over the dims of `boundary_check` of `0 <= offset_d + i_d <
//!   shape_d`; a dim not named is not checked (an access past it is the kernel's bug, as in
//!   Triton);
//! - a masked-off element of a load is `padding`: 0, NaN, or (`Padding::Undefined`,
//!   Triton's `""`) what a masked `load` without `other` gives.

use crate::ir::{BinaryOp, CmpPred, Constant, DType, ScalarType, Shape, SourceLoc, Value};
use crate::trace::{Builder, with_builder};

use super::block_ptr::{BlockPtr, Op, Parts};
use super::dtype::ScalarMarker;
use super::tensor::Tensor;

/// What a load through a block pointer gives where `boundary_check` masks an element off
/// (Triton's `padding_option`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Padding {
    /// Triton's `""`: undefined. The GPU leaves the element unspecified; the interpreter
    /// gives what a masked `load` without `other` gives (0).
    #[default]
    Undefined,
    /// Triton's `"zero"`: 0 (`false` for `bool`).
    Zero,
    /// Triton's `"nan"`: NaN; float element types only.
    Nan,
}

/// `tl.load(ptr, boundary_check=..., padding_option=...)`: the block `ptr` points to,
/// of shape `block_shape`. The elements outside the tensor along a dim listed in
/// `boundary_check` are not read and give `padding`; no other dim is checked, so a block
/// past the tensor along one is an out-of-bounds access (Triton's rule).
#[track_caller]
pub fn load_block<E: ScalarMarker>(ptr: &BlockPtr<E>, boundary_check: &[usize], padding: Padding) -> Tensor<E> {
    let loc = SourceLoc::caller();
    Tensor::from_value(with_builder(|b| b.load_block(LOAD, &ptr.parts, E::SCALAR, boundary_check, padding, loc)))
}

/// `tl.store(ptr, value, boundary_check=...)`: writes `value` (a block of `ptr`'s block
/// shape, or a scalar, broadcast) to the block `ptr` points to, but for the elements
/// outside the tensor along a dim listed in `boundary_check`.
#[track_caller]
pub fn store_block<E: ScalarMarker>(ptr: &BlockPtr<E>, value: Tensor<E>, boundary_check: &[usize]) {
    let loc = SourceLoc::caller();
    with_builder(|b| b.store_block(STORE, &ptr.parts, value.id(), boundary_check, loc));
}

const LOAD: Op = Op::block_ptr("load_block");
const STORE: Op = Op::block_ptr("store_block");

impl Builder {
    /// The load of `parts`'s block (see [`load_block`]); `op` names the function in errors.
    pub(super) fn load_block(
        &mut self,
        op: Op,
        parts: &Parts,
        elem: ScalarType,
        boundary_check: &[usize],
        padding: Padding,
        loc: SourceLoc,
    ) -> Value {
        let block = Shape(parts.block_shape.clone());
        if parts.broken {
            return self.constant_value(zero_of(elem), DType::Scalar(elem), block, loc);
        }
        let padding = if padding == Padding::Nan && !elem.is_float() {
            self.error_with(
                op.code,
                loc,
                format!("{} with Padding::Nan through a {} to {elem}: {elem} has no NaN", op.name, op.of),
                "pad integer and bool blocks with Padding::Zero (Triton refuses `nan` for them too)",
            );
            Padding::Zero
        } else {
            padding
        };
        let dims = self.boundary_dims(op, boundary_check, parts.block_shape.len(), loc);
        let (ptrs, index) = self.block_pointers(parts, loc);
        let mask = self.boundary_mask(parts, &index, &dims, loc);
        let other = mask.and(match padding {
            Padding::Undefined => None,
            Padding::Zero => Some(zero_of(elem)),
            Padding::Nan if elem == ScalarType::F64 => Some(Constant::F64(f64::NAN)),
            Padding::Nan => Some(Constant::F32(f32::NAN)),
        });
        // Checked along every dim, the block is a box of the tensor the parts describe:
        // the load carries them, so a back end may copy it with tensor copies (TMA).
        let desc = Self::desc_of(parts, &dims);
        self.load_with_desc(ptrs, mask, other, (false, desc), loc)
    }

    /// The store of `value` to `parts`'s block (see [`store_block`]).
    pub(super) fn store_block(
        &mut self,
        op: Op,
        parts: &Parts,
        value: Value,
        boundary_check: &[usize],
        loc: SourceLoc,
    ) {
        if parts.broken {
            return;
        }
        let Some(value) = self.block_value(op, parts, value, loc) else { return };
        let dims = self.boundary_dims(op, boundary_check, parts.block_shape.len(), loc);
        let (ptrs, index) = self.block_pointers(parts, loc);
        let mask = self.boundary_mask(parts, &index, &dims, loc);
        let desc = Self::desc_of(parts, &dims);
        self.store_with_desc(ptrs, value, mask, desc, loc);
    }

    /// Checked along every dim (`dims`), the block is a box of the tensor the parts
    /// describe: its access carries them (`ir::desc_parts`), so a back end may move it with
    /// tensor copies (TMA). Empty otherwise.
    fn desc_of(parts: &Parts, dims: &[usize]) -> Vec<Value> {
        if dims.len() != parts.block_shape.len() {
            return Vec::new();
        }
        let mut d = vec![parts.base];
        d.extend(parts.shape.iter().chain(&parts.strides).chain(&parts.offsets));
        d
    }

    /// `op` (relaxed, the launch's scope) of `value` into every element of `parts`'s block
    /// inside the tensor along every dim; the old values are dropped (a tensor
    /// descriptor's atomics, Triton's TMA reductions).
    pub(super) fn atomic_block(
        &mut self,
        what: Op,
        op: crate::ir::AtomicOp,
        parts: &Parts,
        value: Value,
        loc: SourceLoc,
    ) {
        if parts.broken {
            return;
        }
        let Some(value) = self.block_value(what, parts, value, loc) else { return };
        if let DType::Ptr(elem) = self.ty(parts.base).dtype
            && !op.accepts(elem)
        {
            let takes = match op {
                crate::ir::AtomicOp::And | crate::ir::AtomicOp::Or | crate::ir::AtomicOp::Xor => {
                    "32- or 64-bit integers"
                }
                _ => "32- or 64-bit integers or f32",
            };
            self.error_with(
                what.code,
                loc,
                format!("{} of {elem} elements: it takes {takes}", what.name),
                format!("make the descriptor's tensor {takes} (accumulate in i32 or f32 and convert afterwards)"),
            );
            return;
        }
        let all: Vec<usize> = (0..parts.block_shape.len()).collect();
        let (ptrs, index) = self.block_pointers(parts, loc);
        let mask = self.boundary_mask(parts, &index, &all, loc);
        self.atomic_rmw(op, ptrs, value, mask, crate::ir::Sem::Relaxed, crate::ir::Scope::Gpu, loc);
    }

    /// `value` as a block of `parts`'s block shape: a scalar broadcast, a block of that
    /// shape as it is; any other shape is reported (`None`).
    fn block_value(&mut self, op: Op, parts: &Parts, value: Value, loc: SourceLoc) -> Option<Value> {
        let block = Shape(parts.block_shape.clone());
        let value_ty = self.ty(value).clone();
        if value_ty.shape.is_scalar() {
            return Some(self.broadcast_to(value, &block, loc));
        }
        if value_ty.shape != block {
            self.error_with(
                op.code,
                loc,
                format!("{} of a {value_ty} through a {} of block_shape {block}", op.name, op.of),
                format!("pass a block of shape {block} (Triton's rule), or a scalar to fill it"),
            );
            return None;
        }
        Some(value)
    }

    /// The dims of `boundary_check`, sorted; a dim that does not exist or comes twice is
    /// reported and left out.
    fn boundary_dims(&mut self, op: Op, boundary_check: &[usize], rank: usize, loc: SourceLoc) -> Vec<usize> {
        let mut dims: Vec<usize> = Vec::new();
        for &d in boundary_check {
            if d >= rank {
                self.error_with(
                    op.code,
                    loc,
                    format!(
                        "{} with boundary_check {boundary_check:?}: a {} of rank {rank} has no dim {d}",
                        op.name, op.of
                    ),
                    format!("name dims in 0..{rank}"),
                );
            } else if dims.contains(&d) {
                self.error_with(
                    op.code,
                    loc,
                    format!("{} with boundary_check {boundary_check:?}: dim {d} is named twice", op.name),
                    "name each dim once",
                );
            } else {
                dims.push(d);
            }
        }
        dims.sort_unstable();
        dims
    }

    /// The block of pointers, and each dim's element index `offset_d + i_d` (`i64`, of
    /// shape `[1, .., block_d, .., 1]`).
    fn block_pointers(&mut self, parts: &Parts, loc: SourceLoc) -> (Value, Vec<Value>) {
        let rank = parts.block_shape.len();
        let mut index = Vec::with_capacity(rank);
        let mut offset: Option<Value> = None;
        for d in 0..rank {
            let range = self.arange(0, parts.block_shape[d] as i64, loc);
            let range = self.cast(range, DType::I64, loc, false);
            let start = self.cast(parts.offsets[d], DType::I64, loc, false);
            let along = self.binary(BinaryOp::Add, start, range, loc);
            let along = self.on_dim(along, d, rank, loc);
            let term = self.binary(BinaryOp::Mul, along, parts.strides[d], loc);
            offset = Some(match offset {
                None => term,
                Some(sum) => self.binary(BinaryOp::Add, sum, term, loc),
            });
            index.push(along);
        }
        let offset = offset.expect("a block pointer has at least one dim");
        (self.add_ptr(parts.base, offset, loc), index)
    }

    /// The 1-D block `v` as dim `d` of a rank-`rank` block (size 1 along the others).
    fn on_dim(&mut self, v: Value, d: usize, rank: usize, loc: SourceLoc) -> Value {
        let mut v = v;
        for _ in 0..d {
            v = self.expand_dims(v, 0, loc);
        }
        for axis in d + 1..rank {
            v = self.expand_dims(v, axis, loc);
        }
        v
    }

    /// The AND over `dims` of `0 <= index_d < shape_d`; `None` for no dims.
    fn boundary_mask(&mut self, parts: &Parts, index: &[Value], dims: &[usize], loc: SourceLoc) -> Option<Value> {
        if dims.is_empty() {
            return None;
        }
        let zero = self.constant_value(Constant::Int(0), DType::I64, Shape::scalar(), loc);
        let mut mask: Option<Value> = None;
        for &d in dims {
            let above = self.compare(CmpPred::Ge, index[d], zero, loc);
            let below = self.compare(CmpPred::Lt, index[d], parts.shape[d], loc);
            let inside = self.binary(BinaryOp::And, above, below, loc);
            mask = Some(match mask {
                None => inside,
                Some(m) => self.binary(BinaryOp::And, m, inside, loc),
            });
        }
        mask
    }
}

/// The zero of `elem` as a constant (`false` for `bool`).
fn zero_of(elem: ScalarType) -> Constant {
    match elem {
        ScalarType::Bool => Constant::Bool(false),
        ScalarType::F64 => Constant::F64(0.0),
        t if t.is_float() => Constant::F32(0.0),
        // every integer type
        _ => Constant::Int(0),
    }
}
