//! Free-function DSL ops, named as in `triton.language`.

use crate::ir::{BinaryOp, DType, OpKind, PropagateNan, ReduceOp, SourceLoc, TensorType, Value};
use crate::trace::with_builder;

use super::dtype::{DTypeMarker, IntMarker, NumericMarker, Ptr, ScalarMarker};
use super::promotion::Promote;
use super::tensor::{Tensor, TensorOperand};

/// This program's index along `axis` (0, 1 or 2), an `i32` scalar.
#[track_caller]
pub fn program_id(axis: u32) -> Tensor<i32> {
    let loc = SourceLoc::caller();
    Tensor::from_value(with_builder(|b| {
        if axis > 2 {
            b.error(loc, format!("program_id axis {axis} does not exist"), "use axis 0, 1 or 2");
        }
        b.push1(OpKind::ProgramId { axis: axis.min(2) }, TensorType::scalar(DType::I32), loc)
    }))
}

/// `value`, with the promise that every element is a multiple of `divisor` (Triton's
/// `tl.multiple_of`). The compiler may then assume it: AxisInfo gives the result the
/// divisibility of `divisor`'s largest power-of-two factor, so a row stride promised to be
/// a multiple of 4 `f32`s lets a tile's rows start on 16-byte boundaries and load as
/// vectors. Nothing is computed: a broken promise on the GPU can load the wrong elements,
/// so the host must check it (`row_max_split`'s entry point does) and the interpreter
/// stops with a located `RT0408` error at the first element that breaks it. `divisor` must
/// be at least 1 (1 promises nothing). Ints only.
#[track_caller]
pub fn multiple_of<T: IntMarker>(value: Tensor<T>, divisor: u32) -> Tensor<T> {
    let loc = SourceLoc::caller();
    Tensor::from_value(with_builder(|b| {
        if divisor == 0 {
            b.error(loc, "multiple_of(x, 0): no value is a multiple of 0", "promise a divisor of at least 1");
            return value.id();
        }
        if divisor == 1 {
            return value.id();
        }
        if let Some(crate::ir::Constant::Int(c)) = b.constant(value.id())
            && c % i64::from(divisor) != 0
        {
            b.error(
                loc,
                format!("multiple_of({c}, {divisor}): the constant {c} is not a multiple of {divisor}"),
                "promise a divisor the value has, or drop the promise",
            );
            return value.id();
        }
        let ty = b.ty(value.id()).clone();
        b.push1(OpKind::MultipleOf { value: value.id(), divisor: u64::from(divisor) }, ty, loc)
    }))
}

/// The promise that every element of `cond` is true (Triton's `tl.assume`): nothing is
/// computed. The back end may rely on it: `assume(pid_n.ge(0))` at the kernel's top level
/// lets AxisInfo treat `pid_n` as non-negative, so the tutorial's `(pid_n * BLOCK_N +
/// arange(0, BLOCK_N)) % N` stays contiguous and its loads stay vectors. On the GPU a
/// broken promise can load the wrong elements; the interpreter stops with a located
/// `RT0410` error at the first element that breaks it.
#[track_caller]
pub fn assume(cond: Tensor<bool>) {
    let loc = SourceLoc::caller();
    with_builder(|b| {
        b.push(OpKind::Assume { cond: cond.id() }, vec![], loc);
    });
}

/// The number of programs along `axis`, an `i32` scalar.
#[track_caller]
pub fn num_programs(axis: u32) -> Tensor<i32> {
    let loc = SourceLoc::caller();
    Tensor::from_value(with_builder(|b| {
        if axis > 2 {
            b.error(loc, format!("num_programs axis {axis} does not exist"), "use axis 0, 1 or 2");
        }
        b.push1(OpKind::NumPrograms { axis: axis.min(2) }, TensorType::scalar(DType::I32), loc)
    }))
}

/// `[start, start + 1, ..., end - 1]` as `i32`; `end - start` must be a power of two.
#[track_caller]
pub fn arange(start: usize, end: usize) -> Tensor<i32> {
    let loc = SourceLoc::caller();
    // A bound past i64::MAX must not wrap to a negative one (`arange(usize::MAX, 0)` read
    // as `arange(-1, 0)`).
    Tensor::from_value(with_builder(|b| match (i64::try_from(start), i64::try_from(end)) {
        (Ok(start), Ok(end)) => b.arange(start, end, loc),
        // a bound past i64::MAX (a pair of conversions, not an op kind)
        _ => {
            b.error(
                loc,
                format!("arange({start}, {end}) does not fit i32"),
                "keep arange bounds in i32 and add a scalar offset",
            );
            b.arange(0, 1, loc)
        }
    }))
}

/// A block of `shape` filled with `value`.
#[track_caller]
pub fn full<T: ScalarMarker>(shape: &[usize], value: T::Native) -> Tensor<T> {
    let loc = SourceLoc::caller();
    Tensor::from_value(with_builder(|b| b.full(shape, T::constant(value), T::DTYPE, loc)))
}

/// A block of `shape` filled with zeros.
#[track_caller]
pub fn zeros<T: ScalarMarker>(shape: &[usize]) -> Tensor<T> {
    let loc = SourceLoc::caller();
    let zero = match T::DTYPE {
        DType::F32 => crate::ir::Constant::F32(0.0),
        DType::BOOL => crate::ir::Constant::Bool(false),
        // every integer type's zero (a dtype, not an op kind)
        _ => crate::ir::Constant::Int(0),
    };
    Tensor::from_value(with_builder(|b| b.full(shape, zero, T::DTYPE, loc)))
}

/// Reads `*ptr` element-wise; where `mask` is false the result is `other` and memory is
/// not touched.
#[track_caller]
pub fn load<E: ScalarMarker>(ptr: Tensor<Ptr<E>>, mask: Option<Tensor<bool>>, other: Option<E::Native>) -> Tensor<E> {
    let loc = SourceLoc::caller();
    Tensor::from_value(with_builder(|b| b.load(ptr.id(), mask.map(Tensor::id), other.map(E::constant), false, loc)))
}

/// [`load`] whose data the back end may stage through shared memory: the same result,
/// masks and `other`, but the PTX back end copies each 16-byte vector with `cp.async` and
/// reads it back into registers only where the value is first used (or at the end of a
/// loop body that yields it), so no register holds it while it is in flight. For a
/// prefetch: the next row's load at the top of a loop body, carried to the next iteration.
/// The memory it reads must not be written by the kernel between the load and the value's
/// first use (`docs/semantics.md`, Staged loads); accesses that are not 16-byte vectors
/// are plain loads.
#[track_caller]
pub fn load_staged<E: ScalarMarker>(
    ptr: Tensor<Ptr<E>>,
    mask: Option<Tensor<bool>>,
    other: Option<E::Native>,
) -> Tensor<E> {
    let loc = SourceLoc::caller();
    Tensor::from_value(with_builder(|b| b.load(ptr.id(), mask.map(Tensor::id), other.map(E::constant), true, loc)))
}

/// Writes `value` to `*ptr` element-wise where `mask` is true.
#[track_caller]
pub fn store<E: ScalarMarker>(ptr: Tensor<Ptr<E>>, value: Tensor<E>, mask: Option<Tensor<bool>>) {
    let loc = SourceLoc::caller();
    with_builder(|b| b.store(ptr.id(), value.id(), mask.map(Tensor::id), loc));
}

/// Triton's `tl.debug_barrier()`: every thread of the program waits until all have
/// arrived, and the memory accesses made before it are visible to the whole program after
/// it (PTX `bar.sync 0`). The lock of Triton's layer-norm backward needs it: every thread's
/// stores must be done before one thread releases the lock.
#[track_caller]
pub fn debug_barrier() {
    let loc = SourceLoc::caller();
    with_builder(|b| b.push(OpKind::DebugBarrier {}, vec![], loc));
}

/// Triton's `where(cond, a, b)` (`where` is a Rust keyword).
#[track_caller]
pub fn where_<T: DTypeMarker, R: TensorOperand>(
    cond: Tensor<bool>,
    a: Tensor<T>,
    b: R,
) -> Tensor<<T as Promote<R::DType>>::Output>
where
    T: Promote<R::DType>,
{
    let loc = SourceLoc::caller();
    let bv = b.value(loc);
    Tensor::from_value(with_builder(|bl| bl.select(cond.id(), a.id(), bv, loc)))
}

fn binary<T, R: TensorOperand>(
    op: BinaryOp,
    a: Tensor<T>,
    b: R,
    loc: SourceLoc,
) -> Tensor<<T as Promote<R::DType>>::Output>
where
    T: Promote<R::DType>,
{
    let bv = b.value(loc);
    Tensor::from_value(with_builder(|bl| bl.binary(op, a.id(), bv, loc)))
}

/// Element-wise maximum; NaN is ignored (`tl.maximum` with `propagate_nan=NONE`).
#[track_caller]
pub fn maximum<T: NumericMarker, R: TensorOperand>(a: Tensor<T>, b: R) -> Tensor<<T as Promote<R::DType>>::Output>
where
    T: Promote<R::DType>,
{
    binary(BinaryOp::Max(PropagateNan::None), a, b, SourceLoc::caller())
}

/// Element-wise maximum with an explicit NaN rule.
#[track_caller]
pub fn maximum_with<T: NumericMarker, R: TensorOperand>(
    a: Tensor<T>,
    b: R,
    propagate_nan: PropagateNan,
) -> Tensor<<T as Promote<R::DType>>::Output>
where
    T: Promote<R::DType>,
{
    binary(BinaryOp::Max(propagate_nan), a, b, SourceLoc::caller())
}

/// Element-wise minimum; NaN is ignored.
#[track_caller]
pub fn minimum<T: NumericMarker, R: TensorOperand>(a: Tensor<T>, b: R) -> Tensor<<T as Promote<R::DType>>::Output>
where
    T: Promote<R::DType>,
{
    binary(BinaryOp::Min(PropagateNan::None), a, b, SourceLoc::caller())
}

/// Element-wise minimum with an explicit NaN rule.
#[track_caller]
pub fn minimum_with<T: NumericMarker, R: TensorOperand>(
    a: Tensor<T>,
    b: R,
    propagate_nan: PropagateNan,
) -> Tensor<<T as Promote<R::DType>>::Output>
where
    T: Promote<R::DType>,
{
    binary(BinaryOp::Min(propagate_nan), a, b, SourceLoc::caller())
}

/// `tl.max(x, axis)`: NaN ignored.
#[track_caller]
pub fn max<T: NumericMarker>(x: Tensor<T>, axis: usize) -> Tensor<T> {
    x.reduce(ReduceOp::Max(PropagateNan::None), axis)
}

/// `tl.max` with an explicit NaN rule.
#[track_caller]
pub fn max_with<T: NumericMarker>(x: Tensor<T>, axis: usize, propagate_nan: PropagateNan) -> Tensor<T> {
    x.reduce(ReduceOp::Max(propagate_nan), axis)
}

/// `tl.min(x, axis)`: NaN ignored.
#[track_caller]
pub fn min<T: NumericMarker>(x: Tensor<T>, axis: usize) -> Tensor<T> {
    x.reduce(ReduceOp::Min(PropagateNan::None), axis)
}

/// `tl.min` with an explicit NaN rule.
#[track_caller]
pub fn min_with<T: NumericMarker>(x: Tensor<T>, axis: usize, propagate_nan: PropagateNan) -> Tensor<T> {
    x.reduce(ReduceOp::Min(propagate_nan), axis)
}

/// `tl.sum(x, axis)` (`i8`/`i16` sum in `i32`, `u8` in `u32`; `f16`/`bf16` accumulate
/// in `f32`).
#[track_caller]
pub fn sum<T: NumericMarker>(x: Tensor<T>, axis: usize) -> Tensor<T::Sum> {
    x.sum(axis)
}

/// `tl.argmax(x, axis)`: the first index of the maximum, as `i32`.
#[track_caller]
pub fn argmax<T: NumericMarker>(x: Tensor<T>, axis: usize) -> Tensor<i32> {
    x.argmax(axis)
}

/// `ceil(a / b)` for non-negative integers (`tl.cdiv`).
#[track_caller]
pub fn cdiv<T: IntMarker, R: TensorOperand>(a: Tensor<T>, b: R) -> Tensor<<T as Promote<R::DType>>::Output>
where
    T: Promote<R::DType>,
{
    let loc = SourceLoc::caller();
    let bv = b.value(loc);
    Tensor::from_value(with_builder(|bl| {
        let one = bl.constant_value(crate::ir::Constant::Int(1), DType::I32, Default::default(), loc);
        let sum = bl.binary(BinaryOp::Add, a.id(), bv, loc);
        let num = bl.binary(BinaryOp::Sub, sum, one, loc);
        bl.binary(BinaryOp::Div, num, bv, loc)
    }))
}

/// Values carried around a [`for_range`] loop: a tensor, `()`, a tuple of up to four, an
/// array of carried values, or a [`BlockPtr`](super::BlockPtr).
///
/// A carried value is rebuilt from the loop's block arguments in the form of a template
/// (the initial value, or an `if_`'s then branch), so a value may keep parts that are not
/// IR values (a block pointer's block shape) or that the loop does not change (its shape
/// and strides) outside the carried list; `check_captured` refuses a next value whose
/// kept parts differ from the template's.
pub trait Carry: Sized {
    /// The IR values carried, in order.
    fn values(&self) -> Vec<Value>;
    /// `values` put in `self`'s form (what is not carried comes from `self`).
    fn rebuild(&self, values: &mut dyn Iterator<Item = Value>) -> Self;
    /// Reports, at `loc`, a part of `next` that is not carried and differs from `self`'s
    /// (`what` names the loop or branch). Values with no such part have nothing to check.
    fn check_captured(&self, _next: &Self, _what: &str, _loc: SourceLoc) {}
}

impl<T> Carry for Tensor<T> {
    fn values(&self) -> Vec<Value> {
        vec![self.id()]
    }
    fn rebuild(&self, values: &mut dyn Iterator<Item = Value>) -> Self {
        Tensor::from_value(values.next().expect("one value per carried tensor"))
    }
}

impl Carry for () {
    fn values(&self) -> Vec<Value> {
        Vec::new()
    }
    fn rebuild(&self, _: &mut dyn Iterator<Item = Value>) -> Self {}
}

macro_rules! carry_tuple {
    ($($name:ident $next:ident),*) => {
        impl<$($name: Carry),*> Carry for ($($name,)*) {
            fn values(&self) -> Vec<Value> {
                #[allow(non_snake_case)]
                let ($($name,)*) = self;
                let mut v = Vec::new();
                $(v.extend($name.values());)*
                v
            }
            fn rebuild(&self, values: &mut dyn Iterator<Item = Value>) -> Self {
                #[allow(non_snake_case)]
                let ($($name,)*) = self;
                ($($name.rebuild(values),)*)
            }
            fn check_captured(&self, next: &Self, what: &str, loc: SourceLoc) {
                #[allow(non_snake_case)]
                let ($($name,)*) = self;
                let ($($next,)*) = next;
                $($name.check_captured($next, what, loc);)*
            }
        }
    };
}
/// An array of carried values: a loop may carry a row held as several column pieces.
impl<T: Carry, const N: usize> Carry for [T; N] {
    fn values(&self) -> Vec<Value> {
        self.iter().flat_map(Carry::values).collect()
    }
    fn rebuild(&self, values: &mut dyn Iterator<Item = Value>) -> Self {
        std::array::from_fn(|i| self[i].rebuild(values))
    }
    fn check_captured(&self, next: &Self, what: &str, loc: SourceLoc) {
        for (t, n) in self.iter().zip(next) {
            t.check_captured(n, what, loc);
        }
    }
}

carry_tuple!(A a);
carry_tuple!(A a, B b);
carry_tuple!(A a, B b, C c);
carry_tuple!(A a, B b, C c, D d);

/// A loop over the runtime range `lower..upper` by `step` (positive) with loop-carried
/// values: `body(iv, carried) -> next carried`; returns the carried values after the last
/// iteration (Triton's `for i in range(lower, upper, step)` with values reassigned in the
/// loop). The induction variable has `upper`'s integer type.
#[track_caller]
pub fn for_range<I, L, S, C>(lower: L, upper: Tensor<I>, step: S, init: C, body: impl FnOnce(Tensor<I>, C) -> C) -> C
where
    I: IntMarker + Promote<L::DType, Output = I> + Promote<S::DType, Output = I>,
    L: TensorOperand,
    S: TensorOperand,
    C: Carry,
{
    for_range_at(SourceLoc::caller(), lower, upper, step, [1, 1], init, body)
}

/// The most copies of a loop body [`for_range_unrolled`] accepts.
pub const MAX_UNROLL: usize = 16;

/// [`for_range`] whose body the PTX back end copies `unroll` times per trip of its main
/// loop (Triton's `tl.range(lower, upper, step, loop_unroll_factor=unroll)`), so the loads
/// of `unroll` iterations are in flight together; a remainder loop runs the last
/// `trips % unroll` iterations. The results are those of [`for_range`] (every back end
/// runs the iterations in order). `unroll` is a Rust value, typically a constexpr an
/// autotuning configuration sets (`UNROLL`); it must be between 1 and [`MAX_UNROLL`].
#[track_caller]
pub fn for_range_unrolled<I, L, S, C>(
    lower: L,
    upper: Tensor<I>,
    step: S,
    unroll: usize,
    init: C,
    body: impl FnOnce(Tensor<I>, C) -> C,
) -> C
where
    I: IntMarker + Promote<L::DType, Output = I> + Promote<S::DType, Output = I>,
    L: TensorOperand,
    S: TensorOperand,
    C: Carry,
{
    let loc = SourceLoc::caller();
    let unroll =
        loop_count(loc, unroll, MAX_UNROLL, "unroll factor", "unroll a loop between 1 (no unrolling) and {} times");
    for_range_at(loc, lower, upper, step, [unroll, 1], init, body)
}

/// The most pipeline stages [`for_range_staged`] accepts.
pub const MAX_STAGES: usize = 8;

/// [`for_range`] with Triton's `num_stages` (`tl.range(lower, upper, step,
/// num_stages=stages)`): with 2 or more, the loads that feed a `dot` in the body are copied
/// into shared-memory rings of `stages` slots, `stages - 1` iterations ahead (or, where a
/// masked-off element is not 0, loaded one iteration ahead into registers), so the next
/// tiles load while this iteration's product runs (`passes/pipeline/`). 1 runs the loop as
/// written. The results are those of [`for_range`]. `stages` is a Rust value, typically a
/// constexpr an autotuning configuration sets (`NUM_STAGES`), between 1 and
/// [`MAX_STAGES`].
#[track_caller]
pub fn for_range_staged<I, L, S, C>(
    lower: L,
    upper: Tensor<I>,
    step: S,
    stages: usize,
    init: C,
    body: impl FnOnce(Tensor<I>, C) -> C,
) -> C
where
    I: IntMarker + Promote<L::DType, Output = I> + Promote<S::DType, Output = I>,
    L: TensorOperand,
    S: TensorOperand,
    C: Carry,
{
    let loc = SourceLoc::caller();
    let stages =
        loop_count(loc, stages, MAX_STAGES, "num_stages", "give a loop between 1 (no pipelining) and {} stages");
    for_range_at(loc, lower, upper, step, [1, stages], init, body)
}

/// `count` (an unroll factor or a number of stages, `what`) within `1..=max`; outside, a
/// trace error at `loc` whose help is `help` with `max` in place of `{}`, and the nearest
/// count in range, so tracing goes on.
fn loop_count(loc: SourceLoc, count: usize, max: usize, what: &str, help: &str) -> u32 {
    if count == 0 || count > max {
        with_builder(|b| b.error(loc, format!("{what} {count} is out of range"), help.replace("{}", &max.to_string())));
    }
    count.clamp(1, max) as u32
}

fn for_range_at<I, L, S, C>(
    loc: SourceLoc,
    lower: L,
    upper: Tensor<I>,
    step: S,
    [unroll, stages]: [u32; 2],
    init: C,
    body: impl FnOnce(Tensor<I>, C) -> C,
) -> C
where
    I: IntMarker + Promote<L::DType, Output = I> + Promote<S::DType, Output = I>,
    L: TensorOperand,
    S: TensorOperand,
    C: Carry,
{
    let lower = lower.value(loc);
    let step = step.value(loc);
    let (lower, step, init_values, arg_types) = with_builder(|b| {
        let lower = b.cast(lower, I::DTYPE, loc, false);
        let step = b.cast(step, I::DTYPE, loc, false);
        b.check_loop_scalar(lower, "lower bound", loc);
        b.check_loop_scalar(upper.id(), "upper bound", loc);
        b.check_loop_scalar(step, "step", loc);
        let init_values = init.values();
        let mut arg_types = vec![TensorType::scalar(I::DTYPE)];
        arg_types.extend(init_values.iter().map(|v| b.ty(*v).clone()));
        (lower, step, init_values, arg_types)
    });
    let args = with_builder(|b| b.open_region("a for_range body", Some(loc), arg_types.clone()));
    let iv = Tensor::<I>::from_value(args[0]);
    let carried = init.rebuild(&mut args[1..].iter().copied());
    let next_carried = body(iv, carried);
    init.check_captured(&next_carried, "a for_range", loc);
    let next = next_carried.values();
    let results = with_builder(|b| {
        for (i, (n, t)) in next.iter().zip(&arg_types[1..]).enumerate() {
            if b.ty(*n) != t {
                let got = b.ty(*n).clone();
                b.error(
                    loc,
                    format!("loop-carried value {i} starts as {t} but the body yields {got}"),
                    "keep each carried value's shape and type the same across iterations (broadcast the initial value)",
                );
            }
        }
        b.push(OpKind::Yield { values: next.clone() }, vec![], loc);
        let body_block = b.close_block();
        b.push(
            OpKind::For { lower, upper: upper.id(), step, init: init_values, body: body_block, unroll, stages },
            arg_types[1..].to_vec(),
            loc,
        )
    });
    init.rebuild(&mut results.into_iter())
}
