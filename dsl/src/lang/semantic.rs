//! Every typing, promotion, broadcasting and folding rule of the language, in one place
//! (Triton's `semantic.py`). The user-facing API in `tensor.rs` and `ops.rs` is thin and
//! calls these; they make every implicit conversion an explicit IR op, so later stages
//! see equal shapes and dtypes on both sides of every element-wise op.

use crate::diag::Code;
use crate::ir::{
    BinaryOp, CmpPred, Constant, DType, OpKind, ReduceOp, ScalarType, Shape, SourceLoc, TensorType, UnaryOp, Value,
};
use crate::semantics::bits::shifts_arithmetically;
use crate::trace::{Builder, Semantics};

pub use crate::ir::MAX_BLOCK_NUMEL;

/// Wraps an integer to the width of `ty` (two's complement), as the GPU computes (a
/// `u64` keeps its 64 bits in the `i64`).
pub fn wrap_int(v: i64, ty: ScalarType) -> i64 {
    match ty {
        ScalarType::Bool => v & 1,
        t if t.is_int() => crate::semantics::convert::wrap_to(i128::from(v), t) as i64,
        // floats never reach here (a scalar type, not an op kind)
        _ => v,
    }
}

/// The first line of Triton's error for `.to()` on an argument specialized to 1 (Triton
/// 3.x; older releases said `'constexpr' object` instead of `'int' object`).
pub const TRITON_TO_ERROR: &str = "AttributeError: 'int' object has no attribute 'to'";

/// Triton-semantics mode's error for `.to()` on argument `param` folded to 1: Triton's
/// text, then why it happens (message) and the portable fix (help). Shared with the
/// portability lint so both teach the same rule (triton-lang/triton#2939).
pub fn triton_to_error(param: &str) -> (String, String) {
    (
        format!(
            "{TRITON_TO_ERROR}\n  note: Triton specializes an integer argument equal to 1 into the constant 1 (a plain int, \
             key (\"constexpr\", 1)), so `{param}` is not a tensor here and has no `.to()`; this fails for every input where \
             `{param}` is 1 (a contiguous dimension's stride) and compiles only for other values"
        ),
        format!(
            "promote the index tensor instead of the scalar argument: `program_id(0).to::<i64>()` or \
             `offs.to::<i64>() * {param}`, and let `{param}` widen to i64 by promotion"
        ),
    )
}

impl Builder {
    /// A constant of `dtype` splat to `shape`.
    pub fn constant_value(&mut self, c: Constant, dtype: DType, shape: Shape, loc: SourceLoc) -> Value {
        self.push1(OpKind::Constant { value: c }, TensorType::new(dtype, shape), loc)
    }

    /// `v` broadcast to `shape` (scalars are splat; dims of size 1 repeat; missing leading
    /// dims are added). Reports an error and returns `v` when the shapes are incompatible.
    pub fn broadcast_to(&mut self, v: Value, shape: &Shape, loc: SourceLoc) -> Value {
        let from = self.ty(v).shape.clone();
        if &from == shape {
            return v;
        }
        let dtype = self.ty(v).dtype;
        if let Some(c) = self.constant(v)
            && broadcast_shapes(&from, shape).as_ref() == Some(shape)
        {
            return self.constant_value(c, dtype, shape.clone(), loc);
        }
        if from.is_scalar() {
            return self.push1(OpKind::Splat { value: v }, TensorType::new(dtype, shape.clone()), loc);
        }
        if broadcast_shapes(&from, shape).as_ref() != Some(shape) {
            self.error(
                loc,
                format!("cannot broadcast a block of shape {from} to shape {shape}"),
                "make the shapes equal, or give the smaller one dims of size 1 with expand_dims",
            );
            return v;
        }
        let mut v = v;
        let mut cur = from;
        while cur.rank() < shape.rank() {
            v = self.expand_dims(v, 0, loc);
            cur = self.ty(v).shape.clone();
        }
        if &cur == shape {
            return v;
        }
        self.push1(OpKind::Broadcast { value: v }, TensorType::new(dtype, shape.clone()), loc)
    }

    /// Broadcasts two values to their common shape (numpy / Triton rules).
    pub fn broadcast_pair(&mut self, a: Value, b: Value, loc: SourceLoc) -> (Value, Value) {
        let (sa, sb) = (self.ty(a).shape.clone(), self.ty(b).shape.clone());
        if sa == sb {
            return (a, b);
        }
        match broadcast_shapes(&sa, &sb) {
            Some(shape) => (self.broadcast_to(a, &shape, loc), self.broadcast_to(b, &shape, loc)),
            None => {
                self.error(
                    loc,
                    format!("shape mismatch: {sa} and {sb} cannot be broadcast together"),
                    "make the shapes equal, or use expand_dims so that one has size 1 where they differ",
                );
                (a, b)
            }
        }
    }

    /// Inserts a dim of size 1 at `axis`.
    pub fn expand_dims(&mut self, v: Value, axis: usize, loc: SourceLoc) -> Value {
        let ty = self.ty(v).clone();
        if axis > ty.shape.rank() {
            self.error(
                loc,
                format!("expand_dims axis {axis} is out of range for a block of rank {}", ty.shape.rank()),
                format!("use an axis in 0..={}", ty.shape.rank()),
            );
            return v;
        }
        let mut dims = ty.shape.0.clone();
        dims.insert(axis, 1);
        let shape = Shape(dims);
        if let Some(c) = self.constant(v) {
            return self.constant_value(c, ty.dtype, shape, loc);
        }
        self.push1(OpKind::ExpandDims { value: v, axis }, TensorType::new(ty.dtype, shape), loc)
    }

    /// Converts `v` to `to`. Folds constants. In Triton-semantics mode, `.to()` on an
    /// argument folded to 1 is Triton's AttributeError.
    pub fn cast(&mut self, v: Value, to: DType, loc: SourceLoc, explicit: bool) -> Value {
        if explicit
            && self.semantics() == Semantics::Triton
            && let Some(&index) = self.folded_params.get(&v)
        {
            let name = self.kernel.params[index].name;
            let (message, help) = triton_to_error(name);
            self.error_with(Code::TraceTritonConstexprTo, loc, message, help);
            return v;
        }
        let ty = self.ty(v).clone();
        if ty.dtype == to {
            return v;
        }
        if ty.dtype.is_ptr() || to.is_ptr() {
            self.error(
                loc,
                format!("cannot cast {} to {to}", ty.dtype),
                "pointers only change by adding integer offsets",
            );
            return v;
        }
        // f16 and bf16 convert to and from f32 only (`semantics::convert`'s rule).
        if let (Some(from_s), Some(to_s)) = (ty.dtype.scalar(), to.scalar())
            && from_s != ScalarType::F32
            && to_s != ScalarType::F32
            && [from_s, to_s].iter().any(|t| matches!(t, ScalarType::F16 | ScalarType::BF16))
        {
            let mid = self.cast(v, DType::F32, loc, false);
            return self.cast(mid, to, loc, false);
        }
        if let (Some(c), Some(to_s)) = (self.constant(v), to.scalar())
            && let Some(folded) = fold_cast(c, ty.dtype.scalar(), to_s)
        {
            let result = self.constant_value(folded, to, ty.shape, loc);
            // An implicit widening of a folded argument is still a Triton constexpr int.
            self.inherit_constexpr(result, &[v]);
            return result;
        }
        self.push1(OpKind::Cast { value: v }, TensorType::new(to, ty.shape), loc)
    }

    /// Marks scalar constant `result`, computed from `inputs`, as standing for a folded
    /// argument when one of the inputs does: in Triton, arithmetic between a constexpr
    /// int and Python ints stays a constexpr int, which has no `.to()` either.
    fn inherit_constexpr(&mut self, result: Value, inputs: &[Value]) {
        if !self.ty(result).shape.is_scalar() {
            return;
        }
        if let Some(index) = inputs.iter().find_map(|i| self.folded_params.get(i).copied()) {
            self.folded_params.insert(result, index);
        }
    }

    /// `op value` element-wise; a dtype the op is not defined on is a located error.
    pub fn unary(&mut self, op: UnaryOp, value: Value, loc: SourceLoc) -> Value {
        if self.refuse_fp8(&[value], &format!("`{}`", op.name()), loc) {
            return value;
        }
        // A storage type computes in its computation type and converts back (compute.rs).
        if self.storage_compute_type(value).is_some() {
            let dtype = self.dtype(value);
            let wide = self.widen_to_compute_type(value, loc);
            let r = self.unary(op, wide, loc);
            return if self.dtype(r) == self.dtype(wide) { self.cast(r, dtype, loc, false) } else { r };
        }
        let ty = self.ty(value).clone();
        if !op.accepts(ty.dtype) {
            self.error(
                loc,
                format!("`{}` is not defined on {}", op.name(), ty.dtype),
                "convert the operand with .to::<T>() to a type the op takes",
            );
            return value;
        }
        self.push1(OpKind::Unary { op, value }, ty, loc)
    }

    /// `lhs op rhs` with promotion, broadcasting and constant folding.
    pub fn binary(&mut self, op: BinaryOp, lhs: Value, rhs: Value, loc: SourceLoc) -> Value {
        if self.refuse_fp8(&[lhs, rhs], &format!("`{}`", op.name()), loc) {
            return lhs;
        }
        let (lhs, rhs) = self.promote_operands(lhs, rhs, matches!(op, BinaryOp::Div | BinaryOp::Rem), loc);
        // A storage type computes in its computation type and converts back (compute.rs).
        if self.storage_compute_type(lhs).is_some() && self.dtype(lhs) == self.dtype(rhs) {
            let dtype = self.dtype(lhs);
            let (l, r) = (self.widen_to_compute_type(lhs, loc), self.widen_to_compute_type(rhs, loc));
            let v = self.binary(op, l, r, loc);
            return self.cast(v, dtype, loc, false);
        }
        let (lhs, rhs) = self.broadcast_pair(lhs, rhs, loc);
        let ty = self.ty(lhs).clone();
        if ty.dtype.is_ptr() {
            self.error(loc, format!("`{}` is not defined on pointers", op.name()), "add integer offsets to pointers");
            return lhs;
        }
        if !op.accepts(ty.dtype) {
            self.operator_dtype_error(op, ty.dtype, loc);
            return lhs;
        }
        let scalar = ty.dtype.scalar().unwrap_or(ScalarType::I32);
        let (cl, cr) = (self.constant(lhs), self.constant(rhs));
        if matches!(op, BinaryOp::Div | BinaryOp::Rem) && scalar.is_int() && cr == Some(Constant::Int(0)) {
            self.error(loc, "integer division by the constant zero", "divide by a non-zero value");
            return lhs;
        }
        if let (Some(a), Some(b)) = (cl, cr)
            && let Some(c) = fold_binary(op, a, b, scalar)
        {
            let result = self.constant_value(c, ty.dtype, ty.shape, loc);
            // `stride * 2` with `stride` folded is still a constexpr int in Triton.
            self.inherit_constexpr(result, &[lhs, rhs]);
            return result;
        }
        // Integer identities: this is what makes `cols * stride_col` with stride_col folded
        // to 1 plain `cols`, and so contiguous for the vectorizer.
        if scalar.is_int() {
            let one = Some(Constant::Int(1));
            let zero = Some(Constant::Int(0));
            match op {
                BinaryOp::Mul if cr == one => return lhs,
                BinaryOp::Mul if cl == one => return rhs,
                BinaryOp::Add if cr == zero => return lhs,
                BinaryOp::Add if cl == zero => return rhs,
                BinaryOp::Sub if cr == zero => return lhs,
                BinaryOp::Div if cr == one => return lhs,
                BinaryOp::Shl | BinaryOp::Shr if cr == zero => return lhs,
                // No identity operand: keep the op.
                BinaryOp::Add
                | BinaryOp::Sub
                | BinaryOp::Mul
                | BinaryOp::Div
                | BinaryOp::Rem
                | BinaryOp::Max(_)
                | BinaryOp::Min(_)
                | BinaryOp::And
                | BinaryOp::Or
                | BinaryOp::Xor
                | BinaryOp::FDiv
                | BinaryOp::Shl
                | BinaryOp::Shr
                | BinaryOp::UMulHi => {}
            }
        }
        self.push1(OpKind::Binary { op, lhs, rhs }, ty, loc)
    }

    /// Element-wise comparison into `i1`.
    pub fn compare(&mut self, pred: CmpPred, lhs: Value, rhs: Value, loc: SourceLoc) -> Value {
        if self.refuse_fp8(&[lhs, rhs], "a comparison", loc) {
            // an i1 block of the operand's shape, so tracing goes on to find other errors
            let shape = self.ty(lhs).shape.clone();
            return self.constant_value(Constant::Bool(false), DType::BOOL, shape, loc);
        }
        let (lhs, rhs) = self.promote_operands(lhs, rhs, false, loc);
        // Storage types compare in their computation type (exact).
        let (lhs, rhs) = (self.widen_to_compute_type(lhs, loc), self.widen_to_compute_type(rhs, loc));
        let (lhs, rhs) = self.broadcast_pair(lhs, rhs, loc);
        let shape = self.ty(lhs).shape.clone();
        self.push1(OpKind::Compare { pred, lhs, rhs }, TensorType::new(DType::BOOL, shape), loc)
    }

    /// Triton's `where(cond, a, b)`.
    pub fn select(&mut self, cond: Value, a: Value, b: Value, loc: SourceLoc) -> Value {
        let (a, b) = self.promote_operands(a, b, false, loc);
        let (a, b) = self.broadcast_pair(a, b, loc);
        let (cond, a) = self.broadcast_pair(cond, a, loc);
        let (cond, b) = self.broadcast_pair(cond, b, loc);
        if let Some(Constant::Bool(c)) = self.constant(cond) {
            return if c { a } else { b };
        }
        let ty = self.ty(a).clone();
        self.push1(OpKind::Select { cond, on_true: a, on_false: b }, ty, loc)
    }

    /// `ptr + offset` (offset in elements).
    pub fn add_ptr(&mut self, ptr: Value, offset: Value, loc: SourceLoc) -> Value {
        if !self.is_int(offset) {
            self.error(loc, "pointer offsets must be integers", "convert the offset with .to::<i32>() or .to::<i64>()");
            return ptr;
        }
        // Offsets of the other integer types widen to i64 (by their signedness: a u32
        // offset of 3e9 stays positive).
        let offset = if matches!(self.dtype(offset), DType::I32 | DType::I64) {
            offset
        } else {
            self.cast(offset, DType::I64, loc, false)
        };
        let (ptr, offset) = self.broadcast_pair(ptr, offset, loc);
        if self.constant(offset) == Some(Constant::Int(0)) {
            return ptr;
        }
        let ty = self.ty(ptr).clone();
        self.push1(OpKind::AddPtr { ptr, offset }, ty, loc)
    }

    /// `load(ptr, mask, other)`, or `load_staged` when `staged` (the same rules: staging
    /// only tells the back end how to move the data).
    pub fn load(
        &mut self,
        ptr: Value,
        mask: Option<Value>,
        other: Option<Constant>,
        staged: bool,
        loc: SourceLoc,
    ) -> Value {
        self.load_with_desc(ptr, mask, other, (staged, Vec::new()), loc)
    }

    /// [`Builder::load`] of a descriptor's block, carrying its parts (`OpKind::Load`'s
    /// `desc`; empty for none).
    pub(super) fn load_with_desc(
        &mut self,
        ptr: Value,
        mask: Option<Value>,
        other: Option<Constant>,
        (staged, desc): (bool, Vec<Value>),
        loc: SourceLoc,
    ) -> Value {
        let ty = self.ty(ptr).clone();
        let Some(elem) = ty.dtype.pointee() else {
            self.error(loc, format!("load expects pointers, got {}", ty.dtype), "load from a pointer block");
            return ptr;
        };
        let result_ty = TensorType::new(DType::Scalar(elem), ty.shape.clone());
        let mask = mask.map(|m| self.broadcast_to(m, &ty.shape, loc));
        if other.is_some() && mask.is_none() {
            self.error(loc, "load has `other` but no mask", "pass a mask, or drop `other`");
        }
        let other = other.map(|c| self.constant_value(c, DType::Scalar(elem), ty.shape.clone(), loc));
        self.push1(OpKind::Load { ptr, mask, other, staged, desc }, result_ty, loc)
    }

    /// `store(ptr, value, mask)`.
    pub fn store(&mut self, ptr: Value, value: Value, mask: Option<Value>, loc: SourceLoc) {
        self.store_with_desc(ptr, value, mask, Vec::new(), loc);
    }

    /// [`Builder::store`] of a tensor descriptor's (or a fully bounds-checked block
    /// pointer's) block, carrying its parts (`OpKind::Store`'s `desc`).
    pub(super) fn store_with_desc(
        &mut self,
        ptr: Value,
        value: Value,
        mask: Option<Value>,
        desc: Vec<Value>,
        loc: SourceLoc,
    ) {
        let ty = self.ty(ptr).clone();
        let Some(elem) = ty.dtype.pointee() else {
            self.error(loc, format!("store expects pointers, got {}", ty.dtype), "store through a pointer block");
            return;
        };
        if self.dtype(value) != DType::Scalar(elem) {
            let got = self.dtype(value);
            self.error(
                loc,
                format!("store of {got} values through pointers to {elem}"),
                format!("convert the value with .to::<{elem}>() or store through a pointer to {got}"),
            );
            return;
        }
        let (ptr, value) = self.broadcast_pair(ptr, value, loc);
        let shape = self.ty(ptr).shape.clone();
        let mask = mask.map(|m| self.broadcast_to(m, &shape, loc));
        self.push(OpKind::Store { ptr, value, mask, desc }, vec![], loc);
    }

    /// `tl.arange(start, end)`.
    pub fn arange(&mut self, start: i64, end: i64, loc: SourceLoc) -> Value {
        let Some(n) = end.checked_sub(start) else {
            self.error(
                loc,
                format!("arange({start}, {end}) does not fit i32"),
                "keep arange bounds in i32 and add a scalar offset",
            );
            return self.push1(OpKind::Arange { start: 0, end: 1 }, TensorType::new(DType::I32, Shape(vec![1])), loc);
        };
        if n <= 0 || (n as u64).count_ones() != 1 || n as usize > MAX_BLOCK_NUMEL {
            self.error(
                loc,
                format!("arange({start}, {end}) has {n} elements; block sizes must be a power of two between 1 and {MAX_BLOCK_NUMEL}"),
                "choose a power-of-two BLOCK (for example 128, 256, 1024) and mask the tail",
            );
            let size = if n > 0 { (n as u64).next_power_of_two().min(MAX_BLOCK_NUMEL as u64) as usize } else { 1 };
            // `start` may sit near i64::MAX; past the error only the shape matters.
            let (start, end) = start.checked_add(size as i64).map_or((0, size as i64), |end| (start, end));
            return self.push1(OpKind::Arange { start, end }, TensorType::new(DType::I32, Shape(vec![size])), loc);
        }
        if end > i64::from(i32::MAX) || start < i64::from(i32::MIN) {
            self.error(
                loc,
                format!("arange({start}, {end}) does not fit i32"),
                "keep arange bounds in i32 and add a scalar offset",
            );
        }
        self.push1(OpKind::Arange { start, end }, TensorType::new(DType::I32, Shape(vec![n as usize])), loc)
    }

    /// A block of `value` with `shape`.
    pub fn full(&mut self, shape: &[usize], c: Constant, dtype: DType, loc: SourceLoc) -> Value {
        self.check_block_shape(shape, loc);
        self.constant_value(c, dtype, Shape(shape.to_vec()), loc)
    }

    /// Block shapes must be powers of two (Triton's rule, which the layouts rely on).
    pub fn check_block_shape(&mut self, shape: &[usize], loc: SourceLoc) {
        let numel = Shape(shape.to_vec()).numel();
        if shape.iter().any(|d| !d.is_power_of_two()) || numel > MAX_BLOCK_NUMEL {
            self.error(
                loc,
                format!(
                    "block shape {} is not made of powers of two or has more than {MAX_BLOCK_NUMEL} elements",
                    Shape(shape.to_vec())
                ),
                "use power-of-two block dims and mask the tail",
            );
        }
    }

    /// Reduces `v` along `axis`.
    pub fn reduce(&mut self, op: ReduceOp, v: Value, axis: usize, loc: SourceLoc) -> Value {
        if self.refuse_fp8(&[v], &format!("`{}`", op.name()), loc) {
            return v;
        }
        let ty = self.ty(v).clone();
        if axis >= ty.shape.rank() {
            self.error(
                loc,
                format!("reduction along axis {axis} of a block of shape {} (rank {})", ty.shape, ty.shape.rank()),
                if ty.shape.rank() == 0 {
                    "a scalar has nothing to reduce; drop the reduction".to_string()
                } else {
                    format!("use an axis in 0..{}", ty.shape.rank())
                },
            );
            return v;
        }
        if ty.dtype.is_ptr() || ty.dtype.is_bool() {
            self.error(loc, format!("cannot reduce a block of {}", ty.dtype), "reduce numeric blocks");
            return v;
        }
        if op == ReduceOp::XorSum && !ty.dtype.is_int() {
            self.error(
                loc,
                format!("xor_sum of a block of {}: xor is defined on integers only", ty.dtype),
                "reduce an integer block (bitcast floats to integers first), or use sum",
            );
            return v;
        }
        if ty.dtype.scalar().is_some_and(ScalarType::is_storage_only) {
            // Reduced in the computation type (f16 accumulates in f32), then given the
            // reduction's dtype (compute.rs).
            let want = Builder::reduce_result_dtype(op, ty.dtype);
            let wide = self.widen_to_compute_type(v, loc);
            let r = self.reduce(op, wide, axis, loc);
            return if self.dtype(r) == want { r } else { self.cast(r, want, loc, false) };
        }
        let mut dims = ty.shape.0.clone();
        dims.remove(axis);
        let dtype = Builder::reduce_result_dtype(op, ty.dtype);
        self.push1(OpKind::Reduce { op, value: v, axis }, TensorType::new(dtype, Shape(dims)), loc)
    }

    /// Checks a loop bound or step: a scalar integer.
    pub fn check_loop_scalar(&mut self, v: Value, what: &str, loc: SourceLoc) {
        let ty = self.ty(v).clone();
        if !ty.shape.is_scalar() || !matches!(ty.dtype, DType::I32 | DType::I64) {
            self.error(loc, format!("loop {what} must be a scalar i32 or i64, got {ty}"), "pass a scalar i32 or i64");
        }
        if what == "step"
            && let Some(Constant::Int(s)) = self.constant(v)
            && s <= 0
        {
            self.error(loc, format!("loop step {s} is not positive"), "use a positive step");
        }
    }
}

/// The common shape of two broadcast operands, `None` if incompatible.
pub fn broadcast_shapes(a: &Shape, b: &Shape) -> Option<Shape> {
    let rank = a.rank().max(b.rank());
    let pad = |s: &Shape| {
        let mut d = vec![1; rank - s.rank()];
        d.extend_from_slice(&s.0);
        d
    };
    let (da, db) = (pad(a), pad(b));
    let mut out = Vec::with_capacity(rank);
    for (x, y) in da.iter().zip(&db) {
        out.push(match (x, y) {
            (x, y) if x == y => *x,
            (1, y) => *y,
            (x, 1) => *x,
            // dims that are neither equal nor 1 do not broadcast (not an op kind)
            _ => return None,
        });
    }
    Some(Shape(out))
}

/// Folds a cast of constant `c` (of type `from`) to `to` where the result is exact and
/// needs no float rounding rule beyond Rust's (int to int, int to f32 / f64).
fn fold_cast(c: Constant, from: Option<ScalarType>, to: ScalarType) -> Option<Constant> {
    // A u64 constant holds its bits in the i64; its value is the unsigned one.
    let int_value = |v: i64| if from == Some(ScalarType::U64) { i128::from(v as u64) } else { i128::from(v) };
    Some(match (c, to) {
        (Constant::Int(v), t) if t.is_int() => {
            Constant::Int(crate::semantics::convert::wrap_to(int_value(v), t) as i64)
        }
        (Constant::Int(v), ScalarType::F32) => Constant::F32(int_value(v) as f32),
        (Constant::Int(v), ScalarType::F64) => Constant::F64(int_value(v) as f64),
        (Constant::Bool(b), t) if t.is_int() => Constant::Int(i64::from(b)),
        (Constant::Bool(b), ScalarType::F32) => Constant::F32(f32::from(u8::from(b))),
        (Constant::F32(f), ScalarType::F32) => Constant::F32(f),
        // no exact fold for this constant and type (not an op kind)
        _ => return None,
    })
}

/// Folds `a op b` on constants with the GPU's semantics, `None` where it would not be exact
/// (float ops other than max/min are left to run time so results match bit for bit).
fn fold_binary(op: BinaryOp, a: Constant, b: Constant, ty: ScalarType) -> Option<Constant> {
    // u64 constants hold their bits in an i64: only the ops that wrap alike fold.
    if ty == ScalarType::U64 && matches!(op, BinaryOp::Div | BinaryOp::Rem | BinaryOp::Max(_) | BinaryOp::Min(_)) {
        return None;
    }
    match (a, b) {
        (Constant::Int(x), Constant::Int(y)) => {
            let v = match op {
                BinaryOp::Add => x.wrapping_add(y),
                BinaryOp::Sub => x.wrapping_sub(y),
                BinaryOp::Mul => x.wrapping_mul(y),
                BinaryOp::Div => x.checked_div(y)?,
                BinaryOp::Rem => x.checked_rem(y)?,
                BinaryOp::Max(_) => x.max(y),
                BinaryOp::Min(_) => x.min(y),
                BinaryOp::And => x & y,
                BinaryOp::Or => x | y,
                BinaryOp::Xor => x ^ y,
                BinaryOp::Shl => crate::semantics::bits::shl(x, y, ty.int_bits()?),
                BinaryOp::Shr => crate::semantics::bits::shr(x, y, ty.int_bits()?, shifts_arithmetically(ty)),
                BinaryOp::UMulHi => crate::semantics::bits::umulhi(x, y, ty.int_bits()?),
                // Float-only (`lang::fdiv` refuses ints): never folded on ints.
                BinaryOp::FDiv => return None,
            };
            Some(Constant::Int(wrap_int(v, ty)))
        }
        (Constant::Bool(x), Constant::Bool(y)) => match op {
            BinaryOp::And => Some(Constant::Bool(x & y)),
            BinaryOp::Or => Some(Constant::Bool(x | y)),
            BinaryOp::Xor => Some(Constant::Bool(x ^ y)),
            // Left to run time (i1 arithmetic is folded by the back ends' one-bit rules).
            BinaryOp::Add
            | BinaryOp::Sub
            | BinaryOp::Mul
            | BinaryOp::Div
            | BinaryOp::Rem
            | BinaryOp::Max(_)
            | BinaryOp::Min(_)
            | BinaryOp::FDiv
            | BinaryOp::Shl
            | BinaryOp::Shr
            | BinaryOp::UMulHi => None,
        },
        // constants of different or float kinds are not folded (not an op kind)
        _ => None,
    }
}
