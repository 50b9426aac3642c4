//! Reductions and scans with a combine function written in the DSL (Triton's `tl.reduce`
//! and `tl.associative_scan`), `cumsum`, `cumprod`, and the reductions `argmin` and `xor_sum`.
//!
//! The combine function is a Rust closure over scalar tensors: `reduce(x, 0, |a, b| a + b)`.
//! Tracing runs it once, with block arguments standing for the two sides, and records the
//! ops it makes as the combine *region* of the `reduce_with` / `scan` op (as Triton traces
//! its combine function into the region of `tt.reduce`). Several operands go as a tuple
//! (`reduce((v, i), 0, |(va, ia), (vb, ib)| ...)`); each back end then runs the region in
//! the order `docs/semantics.md` defines ("Combine order").
//!
//! Rules, each a located [`Code::TraceCombine`] error: the closure returns one scalar of
//! each operand's dtype; it holds element-wise ops only (arithmetic, comparisons, `where`,
//! casts, literals; no loads, stores, program ids, loops or nested reductions); it reads
//! nothing defined outside it (literals are fine).

use crate::diag::Code;
use crate::ir::{BinaryOp, DType, OpKind, ReduceOp, Shape, SourceLoc, TensorType, Value};
use crate::trace::{Builder, with_builder};

use super::dtype::NumericMarker;
use super::ops::Carry;
use super::tensor::Tensor;

/// `tl.argmin(x, axis)`: the first index of the minimum, as `i32` (NaN ignored).
#[track_caller]
pub fn argmin<T: NumericMarker>(x: Tensor<T>, axis: usize) -> Tensor<i32> {
    Tensor::from_value(x.reduce(ReduceOp::Argmin, axis).id())
}

/// `tl.xor_sum(x, axis)`: the bitwise xor of the elements along `axis` (integers only; a
/// float block is a located error).
#[track_caller]
pub fn xor_sum<T: NumericMarker>(x: Tensor<T>, axis: usize) -> Tensor<T> {
    x.reduce(ReduceOp::XorSum, axis)
}

impl<T: NumericMarker> Tensor<T> {
    /// Index of the first minimum along `axis`.
    #[track_caller]
    pub fn argmin(self, axis: usize) -> Tensor<i32> {
        Tensor::from_value(self.reduce(ReduceOp::Argmin, axis).id())
    }

    /// Bitwise xor along `axis` (integers only).
    #[track_caller]
    pub fn xor_sum(self, axis: usize) -> Tensor<T> {
        self.reduce(ReduceOp::XorSum, axis)
    }
}

/// `tl.reduce(x, axis, combine)`: reduces `x` (a tensor or a tuple of tensors of one
/// shape) along `axis` with `combine(left, right)`, which gets and returns one scalar per
/// operand. The combine order is a balanced tree over positions (`docs/semantics.md`), so
/// a combine that is not associative still gives the same bits on every back end.
#[track_caller]
pub fn reduce<C: Carry, R: Carry>(x: C, axis: usize, combine: impl FnOnce(C, C) -> R) -> C {
    traced(x, axis, combine, true, SourceLoc::caller())
}

/// [`reduce`] recorded at `loc`: what a function written with ops uses, so the reduction
/// carries its caller's line.
pub(super) fn reduce_at<C: Carry, R: Carry>(x: C, axis: usize, combine: impl FnOnce(C, C) -> R, loc: SourceLoc) -> C {
    traced(x, axis, combine, true, loc)
}

/// `tl.associative_scan(x, axis, combine)`: the inclusive scan of `x` (a tensor or a tuple
/// of tensors of one shape) along `axis`; `result[i] = x[0] ⊕ ... ⊕ x[i]`, combined in the
/// Hillis-Steele order of `docs/semantics.md`.
#[track_caller]
pub fn associative_scan<C: Carry, R: Carry>(x: C, axis: usize, combine: impl FnOnce(C, C) -> R) -> C {
    traced(x, axis, combine, false, SourceLoc::caller())
}

/// `tl.cumsum(x, axis)`: the inclusive running sum along `axis` (integers wrap; float sums
/// are added in the scan order, the same bits on every back end).
#[track_caller]
pub fn cumsum<T: NumericMarker>(x: Tensor<T>, axis: usize) -> Tensor<T> {
    x.scan_with(BinaryOp::Add, axis, SourceLoc::caller())
}

/// `tl.cumprod(x, axis)`: the inclusive running product along `axis` (integers wrap;
/// float products are multiplied in the scan order, the same bits on every back end).
#[track_caller]
pub fn cumprod<T: NumericMarker>(x: Tensor<T>, axis: usize) -> Tensor<T> {
    x.scan_with(BinaryOp::Mul, axis, SourceLoc::caller())
}

/// `cumsum` and `cumprod` as methods.
impl<T: NumericMarker> Tensor<T> {
    /// `tl.cumprod(self, axis)`.
    #[track_caller]
    pub fn cumprod(self, axis: usize) -> Tensor<T> {
        self.scan_with(BinaryOp::Mul, axis, SourceLoc::caller())
    }

    /// The inclusive scan of `self` along `axis` with the element-wise `op`.
    fn scan_with(self, op: BinaryOp, axis: usize, loc: SourceLoc) -> Tensor<T> {
        traced(
            self,
            axis,
            |a: Tensor<T>, b: Tensor<T>| Tensor::<T>::from_value(with_builder(|bl| bl.binary(op, a.id(), b.id(), loc))),
            false,
            loc,
        )
    }

    /// `tl.cumsum(self, axis)`.
    #[track_caller]
    pub fn cumsum(self, axis: usize) -> Tensor<T> {
        self.scan_with(BinaryOp::Add, axis, SourceLoc::caller())
    }
}

fn traced<C: Carry, R: Carry>(x: C, axis: usize, combine: impl FnOnce(C, C) -> R, reduce: bool, loc: SourceLoc) -> C {
    let values = x.values();
    let Some(arg_types) = with_builder(|b| b.combine_operands(&values, axis, reduce, loc)) else {
        return x;
    };
    let what = if reduce { "the combine function of reduce" } else { "the combine function of associative_scan" };
    let args = with_builder(|b| b.open_region(what, Some(loc), arg_types));
    let (lhs, rhs) = args.split_at(values.len());
    let out = combine(x.rebuild(&mut lhs.iter().copied()), x.rebuild(&mut rhs.iter().copied())).values();
    let results = with_builder(|b| b.finish_combine(&values, axis, &out, reduce, loc));
    x.rebuild(&mut results.into_iter())
}

impl Builder {
    /// Checks the operands of a reduce or scan; gives the combine region's argument types
    /// (one scalar per operand, twice), or `None` after reporting what is wrong.
    fn combine_operands(
        &mut self,
        values: &[Value],
        axis: usize,
        reduce: bool,
        loc: SourceLoc,
    ) -> Option<Vec<TensorType>> {
        let what = if reduce { "reduce" } else { "associative_scan" };
        let Some(first) = values.first() else {
            self.error_with(
                Code::TraceCombine,
                loc,
                format!("{what} of no operand"),
                "pass a tensor or a tuple of tensors",
            );
            return None;
        };
        let shape = self.ty(*first).shape.clone();
        if let Some(v) = values.iter().find(|v| self.ty(**v).shape != shape) {
            let other = self.ty(*v).shape.clone();
            self.error_with(
                Code::TraceCombine,
                loc,
                format!("{what} operands have shapes {shape} and {other}"),
                "give every operand one shape (broadcast_to)",
            );
            return None;
        }
        if axis >= shape.rank() {
            self.error(
                loc,
                format!("{what} along axis {axis} of a block of shape {shape} (rank {})", shape.rank()),
                if shape.rank() == 0 {
                    "a scalar has no axis".to_string()
                } else {
                    format!("use an axis in 0..{}", shape.rank())
                },
            );
            return None;
        }
        let dtypes: Vec<DType> = values.iter().map(|v| self.dtype(*v)).collect();
        if let Some(d) = dtypes.iter().find(|d| d.is_ptr() || d.is_bool()) {
            self.error(loc, format!("cannot {what} a block of {d}"), "use integer or float operands");
            return None;
        }
        Some(dtypes.iter().chain(&dtypes).map(|d| TensorType::scalar(*d)).collect())
    }

    /// Closes the combine region with `out` (what the closure returned), checks it and
    /// pushes the op; gives its results (one per operand).
    fn finish_combine(
        &mut self,
        values: &[Value],
        axis: usize,
        out: &[Value],
        reduce: bool,
        loc: SourceLoc,
    ) -> Vec<Value> {
        let want: Vec<TensorType> = values.iter().map(|v| TensorType::scalar(self.dtype(*v))).collect();
        let got: Vec<TensorType> = out.iter().map(|v| self.ty(*v).clone()).collect();
        if got != want {
            let list = |ts: &[TensorType]| ts.iter().map(|t| t.to_string()).collect::<Vec<_>>().join(", ");
            self.error_with(
                Code::TraceCombine,
                loc,
                format!("the combine function returns ({}) but must return ({})", list(&got), list(&want)),
                "return one scalar of each operand's dtype, the combination of the two sides (e.g. `|a, b| a + b`)",
            );
        }
        self.push(OpKind::Yield { values: out.to_vec() }, vec![], loc);
        let region = self.close_block();
        self.check_region_ops(&region);
        let mut dims = self.ty(values[0]).shape.0.clone();
        if reduce {
            dims.remove(axis);
        }
        let types = values.iter().map(|v| TensorType::new(self.dtype(*v), Shape(dims.clone()))).collect();
        let (values, combine) = (values.to_vec(), region);
        let kind =
            if reduce { OpKind::ReduceWith { values, axis, combine } } else { OpKind::Scan { values, axis, combine } };
        self.push(kind, types, loc)
    }

    /// The region holds element-wise ops over its own values only.
    fn check_region_ops(&mut self, region: &crate::ir::Block) {
        let mut defined: std::collections::HashSet<Value> = region.args.iter().copied().collect();
        for &id in &region.ops {
            let op = self.kernel.op(id).clone();
            let element_wise = match &op.kind {
                OpKind::Constant { .. }
                | OpKind::Unary { .. }
                | OpKind::Binary { .. }
                | OpKind::Compare { .. }
                | OpKind::Cast { .. }
                | OpKind::Select { .. }
                | OpKind::Fma { .. }
                | OpKind::Bitcast { .. }
                | OpKind::Yield { .. } => true,
                // A promise about indices: a combine function computes none.
                OpKind::MultipleOf { .. }
                | OpKind::AxisHint { .. }
                // An asm runs on the registers of whole blocks, never inside a combine step.
                | OpKind::InlineAsm { .. }
                | OpKind::Param { .. }
                | OpKind::ProgramId { .. }
                | OpKind::NumPrograms { .. }
                | OpKind::Arange { .. }
                | OpKind::Splat { .. }
                | OpKind::Broadcast { .. }
                | OpKind::ExpandDims { .. }
                | OpKind::Permute { .. }
                | OpKind::ConvertLayout { .. }
                | OpKind::Reshape { .. }
                | OpKind::Join { .. }
                | OpKind::Split { .. }
                | OpKind::AddPtr { .. }
                | OpKind::Load { .. }
                | OpKind::AsyncCopy { .. }
                | OpKind::RingRead { .. }
                | OpKind::Store { .. }
                | OpKind::DebugBarrier {}
                | OpKind::Assume { .. }
                | OpKind::DevicePrint { .. }
                | OpKind::DeviceAssert { .. }
                | OpKind::Dot { .. }
                | OpKind::AtomicRmw { .. }
                | OpKind::AtomicCas { .. }
                | OpKind::Reduce { .. }
                | OpKind::ReduceWith { .. }
                | OpKind::Scan { .. }
                | OpKind::For { .. }
                | OpKind::If { .. }
                | OpKind::While { .. } => false,
            };
            if !element_wise {
                self.error_with(
                    Code::TraceCombine,
                    op.loc,
                    format!(
                        "a combine function holds `{}`; only element-wise ops may combine two elements",
                        op.kind.name()
                    ),
                    "compute it outside the combine function and pass it in as another operand",
                );
            }
            if let Some(v) = op.kind.operands().into_iter().find(|v| !defined.contains(v)) {
                let ty = self.ty(v).clone();
                self.error_with(
                    Code::TraceCombine,
                    op.loc,
                    format!("the combine function reads {v} ({ty}), a value from outside it"),
                    "combine only the two sides it is given (and literals); pass other values in as operands",
                );
            }
            defined.extend(op.results.iter().copied());
        }
    }
}
