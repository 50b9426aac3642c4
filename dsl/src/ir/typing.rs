//! The typing rule of every op, referenced by its entry in the op table (`ir/ops.rs`).
//! Each function pushes what is wrong (lowercase, no trailing period) onto `out`; the
//! verifier prefixes the op and reports it at the op's location.

use super::{
    AtomicOp, BinaryOp, Block, DType, InputPrecision, Kernel, Op, ParamKind, ReduceOp, ScalarType, Shape, TensorType,
    UnaryOp, Value, cas_accepts, dot_acc_type, dot_shape_problem,
};

/// What a typing rule may look at: the kernel's types and the op's results.
#[derive(Clone, Copy, Debug)]
pub struct TypeCx<'k> {
    pub kernel: &'k Kernel,
    pub op: &'k Op,
}

impl<'k> TypeCx<'k> {
    pub(super) fn ty(&self, v: Value) -> &'k TensorType {
        self.kernel.ty(v)
    }

    fn result(&self, i: usize) -> Option<&'k TensorType> {
        self.op.results.get(i).map(|r| self.kernel.ty(*r))
    }
}

/// The op has exactly `n` results.
pub fn results(cx: &TypeCx<'_>, out: &mut Vec<String>, n: usize) {
    if cx.op.results.len() != n {
        out.push(format!("expects {n} results, has {}", cx.op.results.len()));
    }
}

pub fn param(cx: &TypeCx<'_>, out: &mut Vec<String>, index: usize) {
    results(cx, out, 1);
    match cx.kernel.params.get(index) {
        None => out.push(format!("parameter {index} does not exist")),
        Some(p) => {
            let want = match p.kind {
                ParamKind::Ptr(s) => DType::Ptr(s),
                ParamKind::Scalar(s) => DType::Scalar(s),
            };
            if cx.result(0).map(|t| t.dtype) != Some(want) || !cx.result(0).is_some_and(|t| t.shape.is_scalar()) {
                out.push(format!("result must be a {want} scalar"));
            }
        }
    }
}

pub fn arange(cx: &TypeCx<'_>, out: &mut Vec<String>, start: i64, end: i64) {
    results(cx, out, 1);
    let n = end.checked_sub(start).unwrap_or(0);
    if n <= 0 || (n as u64).count_ones() != 1 {
        out.push(format!("arange length {n} is not a power of two"));
    }
}

pub fn splat(cx: &TypeCx<'_>, out: &mut Vec<String>, value: Value) {
    if !cx.ty(value).shape.is_scalar() {
        out.push("splat operand must be a scalar".into());
    }
}

pub fn broadcast(cx: &TypeCx<'_>, out: &mut Vec<String>, value: Value) {
    if let Some(r) = cx.result(0)
        && r.shape.rank() != cx.ty(value).shape.rank()
    {
        out.push("broadcast keeps the rank".into());
    }
}

pub fn cast(_cx: &TypeCx<'_>, _out: &mut Vec<String>, _value: Value) {
    // Any dtype converts to any other (the semantics are on `OpKind::Cast`); the front end
    // keeps the shape.
}

pub fn multiple_of(cx: &TypeCx<'_>, out: &mut Vec<String>, value: Value, divisor: u64) {
    let t = cx.ty(value);
    if !t.dtype.is_int() {
        out.push(format!("multiple_of takes an int operand, got {t}"));
    }
    if divisor == 0 {
        out.push("multiple_of needs a divisor of at least 1".to_string());
    }
    if cx.result(0) != Some(t) {
        out.push(format!("operand and result must have one type, got {t}"));
    }
}

pub fn expand_dims(cx: &TypeCx<'_>, out: &mut Vec<String>, value: Value, axis: usize) {
    if axis > cx.ty(value).shape.rank() {
        out.push(format!("axis {axis} out of range"));
    }
}

/// Storage types (`f16`, `bf16`, `i8`, `u8`, `i16`) are never operands of arithmetic,
/// comparisons or reductions: the front end converts them to their computation type.
fn computes_in_its_type(out: &mut Vec<String>, dtype: DType) {
    if let Some(s) = dtype.scalar()
        && s.is_storage_only()
    {
        out.push(format!("{s} is a storage type; compute in {} (convert with a cast)", s.compute_type()));
    }
}

pub fn unary(cx: &TypeCx<'_>, out: &mut Vec<String>, op: UnaryOp, value: Value) {
    let t = cx.ty(value);
    computes_in_its_type(out, t.dtype);
    if cx.result(0) != Some(t) {
        out.push(format!("operand and result must have one type, got {t}"));
    }
    if !op.accepts(t.dtype) {
        out.push(format!("`{}` is not defined on {}", op.name(), t.dtype));
    }
}

pub fn binary(cx: &TypeCx<'_>, out: &mut Vec<String>, op: BinaryOp, lhs: Value, rhs: Value) {
    computes_in_its_type(out, cx.ty(lhs).dtype);
    if cx.ty(lhs) != cx.ty(rhs) || cx.result(0) != Some(cx.ty(lhs)) {
        out.push(format!("operands and result must have one type, got {} and {}", cx.ty(lhs), cx.ty(rhs)));
    }
    if !op.accepts(cx.ty(lhs).dtype) {
        out.push(format!("`{}` is not defined on {}", op.name(), cx.ty(lhs).dtype));
    }
}

pub fn bitcast(cx: &TypeCx<'_>, out: &mut Vec<String>, value: Value) {
    let from = cx.ty(value);
    let Some(to) = cx.result(0) else { return };
    let widths = (from.dtype.scalar().map(ScalarType::bit_width), to.dtype.scalar().map(ScalarType::bit_width));
    if from.shape != to.shape || widths.0.is_none() || widths.0 != widths.1 {
        out.push(format!("bitcast needs non-pointer dtypes of one width and one shape, got {from} to {to}"));
    }
}

pub fn fma(cx: &TypeCx<'_>, out: &mut Vec<String>, operands: [Value; 3]) {
    let t = cx.ty(operands[0]);
    if operands.iter().any(|v| cx.ty(*v) != t) || cx.result(0) != Some(t) {
        out.push(format!("operands and result must have one type, got {t}"));
    }
    if !t.dtype.is_float() {
        out.push(format!("`fma` is not defined on {}", t.dtype));
    }
}

pub fn compare(cx: &TypeCx<'_>, out: &mut Vec<String>, lhs: Value, rhs: Value) {
    computes_in_its_type(out, cx.ty(lhs).dtype);
    if cx.ty(lhs) != cx.ty(rhs) {
        out.push(format!("operands must have one type, got {} and {}", cx.ty(lhs), cx.ty(rhs)));
    }
    if cx.result(0).map(|t| t.dtype) != Some(DType::BOOL) {
        out.push("comparison result must be i1".into());
    }
}

pub fn select(cx: &TypeCx<'_>, out: &mut Vec<String>, cond: Value, on_true: Value, on_false: Value) {
    let (c, t, f) = (cx.ty(cond), cx.ty(on_true), cx.ty(on_false));
    if c.dtype != DType::BOOL || c.shape != t.shape || t != f {
        out.push("where needs an i1 condition and two operands of its shape and one type".into());
    }
}

pub fn add_ptr(cx: &TypeCx<'_>, out: &mut Vec<String>, ptr: Value, offset: Value) {
    let (p, o) = (cx.ty(ptr), cx.ty(offset));
    if !p.dtype.is_ptr() || !o.dtype.is_int() || p.shape != o.shape {
        out.push("addptr needs pointers and integer offsets of one shape".into());
    }
}

pub fn load(
    cx: &TypeCx<'_>,
    out: &mut Vec<String>,
    ptr: Value,
    mask: Option<Value>,
    other: Option<Value>,
    desc: &[Value],
) {
    super::desc::check(cx, out, "load", ptr, desc);
    let p = cx.ty(ptr);
    if !p.dtype.is_ptr() {
        out.push("load needs pointers".into());
    }
    if let Some(m) = mask
        && (cx.ty(m).dtype != DType::BOOL || cx.ty(m).shape != p.shape)
    {
        out.push("load mask must be i1 of the pointers' shape".into());
    }
    if let Some(o) = other
        && cx.result(0) != Some(cx.ty(o))
    {
        out.push("load other must have the result's type".into());
    }
}

pub fn async_copy(
    cx: &TypeCx<'_>,
    out: &mut Vec<String>,
    ptr: Value,
    mask: Option<Value>,
    other: Option<Value>,
    slot: Value,
    (desc, when): (&[Value], Option<Value>),
) {
    super::desc::check(cx, out, "async_copy", ptr, desc);
    if desc.is_empty() != when.is_none() {
        out.push("async_copy has a desc and its `when`, or neither".into());
    }
    if let Some(w) = when
        && (cx.ty(w).dtype != DType::BOOL || !cx.ty(w).shape.is_scalar())
    {
        out.push("async_copy when must be an i1 scalar".into());
    }
    let p = cx.ty(ptr);
    if !p.dtype.is_ptr() {
        out.push("async_copy needs pointers".into());
    }
    if let Some(m) = mask
        && (cx.ty(m).dtype != DType::BOOL || cx.ty(m).shape != p.shape)
    {
        out.push("async_copy mask must be i1 of the pointers' shape".into());
    }
    if let Some(o) = other
        && (p.dtype.pointee().map(DType::Scalar) != Some(cx.ty(o).dtype) || cx.ty(o).shape != p.shape)
    {
        out.push("async_copy other must have the pointee type and the pointers' shape".into());
    }
    ring_slot(cx, out, slot);
}

pub fn assume(cx: &TypeCx<'_>, out: &mut Vec<String>, cond: Value) {
    if cx.ty(cond).dtype != DType::BOOL {
        out.push("assume needs an i1 condition".into());
    }
    results(cx, out, 0);
}

pub fn device_assert(cx: &TypeCx<'_>, out: &mut Vec<String>, cond: Value) {
    if cx.ty(cond).dtype != DType::BOOL {
        out.push("device_assert needs an i1 condition".into());
    }
    results(cx, out, 0);
}

pub fn device_print(cx: &TypeCx<'_>, out: &mut Vec<String>, values: &[Value]) {
    if values.is_empty() {
        out.push("device_print needs at least one value".into());
    }
    results(cx, out, 0);
}

pub fn ring_read(cx: &TypeCx<'_>, out: &mut Vec<String>, slot: Value) {
    ring_slot(cx, out, slot);
    if cx.result(0).is_none_or(|r| r.dtype.is_ptr() || r.shape.rank() == 0) {
        out.push("ring_read gives a block of a non-pointer dtype".into());
    }
}

fn ring_slot(cx: &TypeCx<'_>, out: &mut Vec<String>, slot: Value) {
    let s = cx.ty(slot);
    if s.dtype != DType::I32 || s.shape.rank() != 0 {
        out.push("a ring slot is an i32 scalar".into());
    }
}

pub fn store(cx: &TypeCx<'_>, out: &mut Vec<String>, ptr: Value, value: Value, mask: Option<Value>, desc: &[Value]) {
    super::desc::check(cx, out, "store", ptr, desc);
    let p = cx.ty(ptr);
    if p.dtype.pointee().map(DType::Scalar) != Some(cx.ty(value).dtype) || p.shape != cx.ty(value).shape {
        out.push("store value must match the pointee type and the pointers' shape".into());
    }
    if let Some(m) = mask
        && (cx.ty(m).dtype != DType::BOOL || cx.ty(m).shape != p.shape)
    {
        out.push("store mask must be i1 of the pointers' shape".into());
    }
}

/// The operands of an atomic: pointers, operands of the pointee type and the pointers'
/// shape, one result of that type and shape.
fn atomic_operands(cx: &TypeCx<'_>, out: &mut Vec<String>, name: &str, ptr: Value, operands: &[Value]) -> Option<()> {
    results(cx, out, 1);
    let p = cx.ty(ptr);
    let Some(elem) = p.dtype.pointee() else {
        out.push(format!("{name} needs pointers, got {}", p.dtype));
        return None;
    };
    let want = TensorType::new(DType::Scalar(elem), p.shape.clone());
    if operands.iter().any(|v| *cx.ty(*v) != want) || cx.result(0).is_some_and(|r| *r != want) {
        out.push(format!("{name} operands and result must be {want}"));
    }
    Some(())
}

pub fn atomic_rmw(cx: &TypeCx<'_>, out: &mut Vec<String>, op: AtomicOp, ptr: Value, value: Value, mask: Option<Value>) {
    if atomic_operands(cx, out, op.name(), ptr, &[value]).is_none() {
        return;
    }
    let p = cx.ty(ptr);
    if let Some(elem) = p.dtype.pointee()
        && !op.accepts(elem)
    {
        out.push(format!("`{}` is not defined on {elem}", op.name()));
    }
    if let Some(m) = mask
        && (cx.ty(m).dtype != DType::BOOL || cx.ty(m).shape != p.shape)
    {
        out.push(format!("{} mask must be i1 of the pointers' shape", op.name()));
    }
}

pub fn atomic_cas(cx: &TypeCx<'_>, out: &mut Vec<String>, ptr: Value, cmp: Value, value: Value) {
    if atomic_operands(cx, out, "atomic_cas", ptr, &[cmp, value]).is_none() {
        return;
    }
    if let Some(elem) = cx.ty(ptr).dtype.pointee()
        && !cas_accepts(elem)
    {
        out.push(format!("`atomic_cas` is not defined on {elem}"));
    }
}

pub fn reduce(cx: &TypeCx<'_>, out: &mut Vec<String>, op: ReduceOp, value: Value, axis: usize) {
    let t = cx.ty(value);
    computes_in_its_type(out, t.dtype);
    if axis >= t.shape.rank() {
        out.push(format!("reduction axis {axis} out of range for rank {}", t.shape.rank()));
    } else if let Some(r) = cx.result(0) {
        let mut dims = t.shape.0.clone();
        dims.remove(axis);
        let want = if op.gives_index() { DType::I32 } else { t.dtype };
        if op == ReduceOp::XorSum && !t.dtype.is_int() {
            out.push(format!("xor_sum needs integers, got {}", t.dtype));
        }
        if r.shape.0 != dims || r.dtype != want {
            out.push("reduction result has the wrong type".into());
        }
    }
}

pub fn dot(cx: &TypeCx<'_>, out: &mut Vec<String>, a: Value, b: Value, acc: Value, precision: InputPrecision) {
    results(cx, out, 1);
    let (ta, tb, tc) = (cx.ty(a), cx.ty(b), cx.ty(acc));
    if let Some(p) = dot_shape_problem(&ta.shape, &tb.shape) {
        out.push(p);
        return;
    }
    let want_shape = Shape(vec![ta.shape.dims()[0], tb.shape.dims()[1]]);
    match dot_acc_type(ta.dtype, tb.dtype) {
        Err(p) => out.push(p),
        Ok(acc_dtype) => {
            let want = TensorType::new(DType::Scalar(acc_dtype), want_shape);
            if *tc != want {
                out.push(format!("dot accumulator must be {want}, got {tc}"));
            }
            if cx.result(0) != Some(&want) {
                out.push(format!("dot result must be {want}"));
            }
            if precision == InputPrecision::Tf32 && ta.dtype != DType::F32 {
                out.push(format!("input_precision tf32 is for f32 operands, got {}", ta.dtype));
            }
        }
    }
}

pub fn for_loop(
    cx: &TypeCx<'_>,
    out: &mut Vec<String>,
    [lower, upper, step]: [Value; 3],
    init: &[Value],
    body: &Block,
    unroll: u32,
) {
    if unroll == 0 {
        out.push("a loop's unroll factor must be at least 1".into());
    }
    let iv = cx.ty(lower);
    if !iv.dtype.is_int() || !iv.shape.is_scalar() || iv != cx.ty(upper) || iv != cx.ty(step) {
        out.push("loop bounds and step must be scalars of one integer type".into());
    }
    if body.args.len() != init.len() + 1 || cx.op.results.len() != init.len() {
        out.push("loop needs one body argument per carried value plus the induction variable".into());
        return;
    }
    for (i, v) in init.iter().enumerate() {
        if cx.ty(*v) != cx.ty(body.args[i + 1]) || cx.ty(*v) != cx.ty(cx.op.results[i]) {
            out.push(format!("carried value {i} changes type"));
        }
    }
    if let Some(values) = cx.kernel.yielded(body)
        && (values.len() != init.len() || values.iter().zip(init).any(|(y, i)| cx.ty(*y) != cx.ty(*i)))
    {
        out.push("yield must give one value of each carried type".into());
    }
}

/// `ReduceWith` (`reduce` true) and `Scan`: operands of one shape, `axis` in range, a
/// combine region taking two scalars per operand and yielding one of each operand's dtype,
/// results one per operand (the shape without `axis` for a reduction, the same for a scan).
pub fn combine_op(
    cx: &TypeCx<'_>,
    out: &mut Vec<String>,
    values: &[Value],
    axis: usize,
    combine: &Block,
    reduce: bool,
) {
    let Some(first) = values.first() else {
        out.push("needs at least one operand".into());
        return;
    };
    let shape = &cx.ty(*first).shape;
    if values.iter().any(|v| &cx.ty(*v).shape != shape) {
        out.push("operands must have one shape".into());
    }
    if axis >= shape.rank() {
        out.push(format!("axis {axis} out of range for rank {}", shape.rank()));
        return;
    }
    if cx.op.results.len() != values.len() {
        out.push(format!("expects {} results, has {}", values.len(), cx.op.results.len()));
        return;
    }
    let mut dims = shape.0.clone();
    if reduce {
        dims.remove(axis);
    }
    for (v, r) in values.iter().zip(&cx.op.results) {
        if cx.ty(*r) != &TensorType::new(cx.ty(*v).dtype, super::Shape(dims.clone())) {
            out.push(format!("result {r} must be {} of shape {:?}", cx.ty(*v).dtype, dims));
        }
    }
    let scalar = |v: &Value| TensorType::scalar(cx.ty(*v).dtype);
    let want: Vec<TensorType> = values.iter().chain(values).map(scalar).collect();
    if combine.args.len() != want.len() || combine.args.iter().zip(&want).any(|(a, w)| cx.ty(*a) != w) {
        out.push("the combine region takes two scalars of each operand's dtype".into());
    }
    match cx.kernel.yielded(combine) {
        Some(ys) if ys.len() == values.len() && ys.iter().zip(values).all(|(y, v)| cx.ty(*y) == &scalar(v)) => {}
        // a missing yield, or one of another count or type (not an op kind)
        _ => out.push("the combine region must yield one scalar of each operand's dtype".into()),
    }
}

/// Layout ops (`permute`, `reshape`, `join`, `split`) keep the operand's dtype.
fn same_dtype(cx: &TypeCx<'_>, out: &mut Vec<String>, value: Value, result: &TensorType) {
    if result.dtype != cx.ty(value).dtype {
        out.push(format!("result dtype {} differs from the operand's {}", result.dtype, cx.ty(value).dtype));
    }
}

pub fn permute(cx: &TypeCx<'_>, out: &mut Vec<String>, value: Value, dims: &[usize]) {
    results(cx, out, 1);
    let t = cx.ty(value);
    let mut sorted = dims.to_vec();
    sorted.sort_unstable();
    if sorted != (0..t.shape.rank()).collect::<Vec<_>>() {
        out.push(format!("dims {dims:?} are not a permutation of the {} dims of {t}", t.shape.rank()));
        return;
    }
    if let Some(r) = cx.result(0) {
        same_dtype(cx, out, value, r);
        let want: Vec<usize> = dims.iter().map(|&d| t.shape.dims()[d]).collect();
        if r.shape.dims() != want.as_slice() {
            out.push(format!("result shape {} is not the operand's {} permuted by {dims:?}", r.shape, t.shape));
        }
    }
}

/// One result of the operand's type (`convert_layout`).
pub fn same_type(cx: &TypeCx<'_>, out: &mut Vec<String>, value: Value) {
    results(cx, out, 1);
    if let Some(r) = cx.result(0)
        && r != cx.ty(value)
    {
        out.push(format!("operand and result must have one type, got {} and {r}", cx.ty(value)));
    }
}

pub fn reshape(cx: &TypeCx<'_>, out: &mut Vec<String>, value: Value) {
    results(cx, out, 1);
    if let Some(r) = cx.result(0) {
        same_dtype(cx, out, value, r);
        if r.shape.numel() != cx.ty(value).shape.numel() {
            out.push(format!("reshape of {} to {} changes the element count", cx.ty(value).shape, r.shape));
        }
    }
}

pub fn join(cx: &TypeCx<'_>, out: &mut Vec<String>, lhs: Value, rhs: Value) {
    results(cx, out, 1);
    if cx.ty(lhs) != cx.ty(rhs) {
        out.push(format!("join operands must have one type, got {} and {}", cx.ty(lhs), cx.ty(rhs)));
    }
    if let Some(r) = cx.result(0) {
        same_dtype(cx, out, lhs, r);
        let mut want = cx.ty(lhs).shape.dims().to_vec();
        want.push(2);
        if r.shape.dims() != want.as_slice() {
            out.push(format!("join result shape {} is not the operands' shape and a trailing 2", r.shape));
        }
    }
}

pub fn split(cx: &TypeCx<'_>, out: &mut Vec<String>, value: Value) {
    results(cx, out, 2);
    let t = cx.ty(value);
    let Some((&2, rest)) = t.shape.dims().split_last() else {
        out.push(format!("split needs a last dim of size 2, got {t}"));
        return;
    };
    for i in 0..cx.op.results.len() {
        if let Some(r) = cx.result(i) {
            same_dtype(cx, out, value, r);
            if r.shape.dims() != rest {
                out.push(format!("split result {i} has shape {}, not the operand's without its last dim", r.shape));
            }
        }
    }
}
