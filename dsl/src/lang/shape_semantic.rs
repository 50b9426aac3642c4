//! The shape rules of the layout ops (`reshape`, `permute`/`trans`, `join`, `split`): what
//! `semantic.rs` is for the other ops. Bad shapes are located trace errors naming what to
//! do; after one, the op returns a value of a plausible type so tracing goes on and
//! reports every error.

use crate::ir::{OpKind, Shape, SourceLoc, TensorType, Value};
use crate::trace::Builder;

impl Builder {
    /// `v`'s elements in row-major order, read as `shape` (Triton's `reshape`,
    /// `can_reorder=False`).
    pub fn reshape(&mut self, v: Value, shape: &[usize], loc: SourceLoc) -> Value {
        let ty = self.ty(v).clone();
        let to = Shape(shape.to_vec());
        if to.numel() != ty.shape.numel() {
            self.error(
                loc,
                format!(
                    "reshape of a block of shape {} ({} elements) to shape {to} ({} elements)",
                    ty.shape,
                    ty.shape.numel(),
                    to.numel()
                ),
                format!("give a shape with {} elements (reshape keeps every element)", ty.shape.numel()),
            );
            return v;
        }
        self.check_block_shape(shape, loc);
        if to == ty.shape {
            return v;
        }
        if let Some(c) = self.constant(v) {
            return self.constant_value(c, ty.dtype, to, loc);
        }
        self.push1(OpKind::Reshape { value: v }, TensorType::new(ty.dtype, to), loc)
    }

    /// Result dim `i` is `v`'s dim `dims[i]` (Triton's `permute`).
    pub fn permute(&mut self, v: Value, dims: &[usize], loc: SourceLoc) -> Value {
        let ty = self.ty(v).clone();
        let rank = ty.shape.rank();
        let mut sorted = dims.to_vec();
        sorted.sort_unstable();
        if sorted != (0..rank).collect::<Vec<_>>() {
            let example: Vec<usize> = (0..rank).rev().collect();
            self.error(
                loc,
                format!("permute dims {dims:?} are not a permutation of the dims of a block of shape {}", ty.shape),
                format!("list each of the {rank} dims once, e.g. {example:?}"),
            );
            return v;
        }
        if sorted == dims {
            return v;
        }
        let to = Shape(dims.iter().map(|&d| ty.shape.dims()[d]).collect());
        if let Some(c) = self.constant(v) {
            return self.constant_value(c, ty.dtype, to, loc);
        }
        self.push1(OpKind::Permute { value: v, dims: dims.to_vec() }, TensorType::new(ty.dtype, to), loc)
    }

    /// Triton's `trans(x)` without dims: the two dims of a 2-D block swapped.
    pub fn trans(&mut self, v: Value, loc: SourceLoc) -> Value {
        let shape = self.ty(v).shape.clone();
        if shape.rank() != 2 {
            self.error(
                loc,
                format!("trans swaps the dims of a 2-D block, got a block of shape {shape} (rank {})", shape.rank()),
                "use permute(x, dims) to reorder the dims of other ranks",
            );
            return v;
        }
        self.permute(v, &[1, 0], loc)
    }

    /// `a` and `b` (broadcast to one shape) stacked along a new trailing dim of size 2.
    pub fn join(&mut self, a: Value, b: Value, loc: SourceLoc) -> Value {
        let (a, mut b) = self.broadcast_pair(a, b, loc);
        let ty = self.ty(a).clone();
        if self.ty(b) != &ty {
            // Shapes that do not broadcast were reported by broadcast_pair; join `a` with
            // itself so later ops see the result type they expect and add no errors.
            b = a;
        }
        let mut dims = ty.shape.0.clone();
        dims.push(2);
        self.check_block_shape(&dims, loc);
        let to = Shape(dims);
        if let (Some(x), Some(y)) = (self.constant(a), self.constant(b))
            && x == y
        {
            return self.constant_value(x, ty.dtype, to, loc);
        }
        self.push1(OpKind::Join { lhs: a, rhs: b }, TensorType::new(ty.dtype, to), loc)
    }

    /// `v[..., 0]` and `v[..., 1]` of a block whose last dim has size 2.
    pub fn split(&mut self, v: Value, loc: SourceLoc) -> (Value, Value) {
        let ty = self.ty(v).clone();
        let Some((&2, rest)) = ty.shape.dims().split_last() else {
            self.error(
                loc,
                format!("split needs a block whose last dim has size 2, got shape {}", ty.shape),
                "split the result of join, or reshape so that the last dim is 2",
            );
            return (v, v);
        };
        let half = TensorType::new(ty.dtype, Shape(rest.to_vec()));
        if let Some(c) = self.constant(v) {
            let x = self.constant_value(c, ty.dtype, half.shape.clone(), loc);
            return (x, x);
        }
        let r = self.push(OpKind::Split { value: v }, vec![half.clone(), half], loc);
        (r[0], r[1])
    }
}
