//! Atomics on global memory, named as in `triton.language`: `atomic_add`, `atomic_max`,
//! `atomic_min`, `atomic_and`, `atomic_or`, `atomic_xor`, `atomic_xchg` (pointers, values,
//! an optional mask) and `atomic_cas` (pointers, compare values, new values). Each returns
//! the old values, as Triton's do. Triton's `sem` and `scope` default to `acq_rel` and
//! `gpu`; the `_with` forms take them ([`Sem`], [`Scope`]).
//!
//! The rules (which dtypes each op takes, how values convert and broadcast) are the
//! `impl Builder` below, next to the user-facing functions; the semantics of each op are
//! in `docs/semantics.md`, "Atomics".

use crate::ir::{AtomicOp, DType, OpKind, Shape, SourceLoc, TensorType, Value, cas_accepts};
use crate::trace::{Builder, with_builder};

pub use crate::ir::{Scope, Sem};

use super::dtype::{Ptr, ScalarMarker};
use super::promotion::Promote;
use super::semantic::broadcast_shapes;
use super::tensor::{Tensor, TensorOperand};

impl Builder {
    /// The element type of atomic pointers `ptr`, or a located error.
    fn atomic_elem(&mut self, name: &str, ptr: Value, loc: SourceLoc) -> Option<crate::ir::ScalarType> {
        let dtype = self.ty(ptr).dtype;
        let elem = dtype.pointee();
        if elem.is_none() {
            self.error(
                loc,
                format!("{name} expects pointers, got {dtype}"),
                format!("pass pointers to the elements to update: `{name}(x_ptr + offs, ...)`"),
            );
        }
        elem
    }

    /// `v` as elements of `elem`: the same dtype, or an integer that widens to it by the
    /// promotion rule (an `i32` literal for an `i64` pointer); anything else is a located
    /// error (nothing narrows implicitly).
    fn atomic_operand(&mut self, name: &str, v: Value, elem: crate::ir::ScalarType, loc: SourceLoc) -> Value {
        let got = self.ty(v).dtype;
        let want = DType::Scalar(elem);
        if got == want {
            return v;
        }
        if got == DType::I32 && want == DType::I64 {
            return self.cast(v, want, loc, false);
        }
        self.error(
            loc,
            format!("{name} of {got} values through pointers to {elem}"),
            format!("convert the values with .to::<{elem}>() or use pointers to {got}"),
        );
        v
    }

    /// Broadcasts `values` to their common shape, or reports the mismatch.
    fn atomic_broadcast(&mut self, values: &mut [Value], loc: SourceLoc) -> Shape {
        let mut shape = Shape::scalar();
        for v in values.iter() {
            let s = self.ty(*v).shape.clone();
            match broadcast_shapes(&shape, &s) {
                Some(b) => shape = b,
                None => {
                    self.error(
                        loc,
                        format!("shape mismatch: {shape} and {s} cannot be broadcast together"),
                        "make the pointers, values and mask one shape, or give the smaller ones dims of size 1",
                    );
                    return shape;
                }
            }
        }
        for v in values.iter_mut() {
            *v = self.broadcast_to(*v, &shape, loc);
        }
        shape
    }

    /// `op` on every element of `ptr` whose mask is true; the old values.
    #[allow(clippy::too_many_arguments, reason = "Triton's signature: pointers, values, mask, sem, scope")]
    pub fn atomic_rmw(
        &mut self,
        op: AtomicOp,
        ptr: Value,
        value: Value,
        mask: Option<Value>,
        sem: Sem,
        scope: Scope,
        loc: SourceLoc,
    ) -> Value {
        let name = op.name();
        let Some(elem) = self.atomic_elem(name, ptr, loc) else { return value };
        if !op.accepts(elem) {
            let help = match op {
                AtomicOp::And | AtomicOp::Or | AtomicOp::Xor => {
                    format!(
                        "{name} takes pointers to 32- or 64-bit integers; to update a float's bits use atomic_xchg or atomic_cas"
                    )
                }
                AtomicOp::Add | AtomicOp::Max | AtomicOp::Min | AtomicOp::Xchg => {
                    format!("{name} takes pointers to 32- or 64-bit integers or to f32")
                }
            };
            self.error(loc, format!("`{name}` is not defined on {elem}"), help);
            return value;
        }
        let value = self.atomic_operand(name, value, elem, loc);
        let mut vs = vec![ptr, value];
        vs.extend(mask);
        let shape = self.atomic_broadcast(&mut vs, loc);
        let mask = mask.map(|_| vs[2]);
        let kind = OpKind::AtomicRmw { op, ptr: vs[0], value: vs[1], mask, sem, scope };
        self.push1(kind, TensorType::new(DType::Scalar(elem), shape), loc)
    }

    /// Compare and swap on every element of `ptr`; the old values.
    pub fn atomic_cas(
        &mut self,
        ptr: Value,
        cmp: Value,
        value: Value,
        sem: Sem,
        scope: Scope,
        loc: SourceLoc,
    ) -> Value {
        let name = "atomic_cas";
        let Some(elem) = self.atomic_elem(name, ptr, loc) else { return value };
        if !cas_accepts(elem) {
            self.error(
                loc,
                format!("`{name}` is not defined on {elem}"),
                "atomic_cas takes pointers to 32- or 64-bit elements",
            );
            return value;
        }
        let cmp = self.atomic_operand(name, cmp, elem, loc);
        let value = self.atomic_operand(name, value, elem, loc);
        let mut vs = vec![ptr, cmp, value];
        let shape = self.atomic_broadcast(&mut vs, loc);
        let kind = OpKind::AtomicCas { ptr: vs[0], cmp: vs[1], value: vs[2], sem, scope };
        self.push1(kind, TensorType::new(DType::Scalar(elem), shape), loc)
    }
}

fn rmw<E: ScalarMarker, V: TensorOperand>(
    op: AtomicOp,
    ptr: Tensor<Ptr<E>>,
    value: V,
    mask: Option<Tensor<bool>>,
    sem: Sem,
    scope: Scope,
    loc: SourceLoc,
) -> Tensor<E> {
    let v = value.value(loc);
    Tensor::from_value(with_builder(|b| b.atomic_rmw(op, ptr.id(), v, mask.map(Tensor::id), sem, scope, loc)))
}

macro_rules! atomic_fns {
    ($($op:ident, $name:ident, $with:ident, $doc:literal;)*) => {$(
        #[doc = concat!("`tl.", stringify!($name), "(ptr, val, mask)`: ", $doc, " for every element whose mask")]
        /// is true, in one indivisible step per element, with Triton's defaults (`sem =
        /// acq_rel`, `scope = gpu`). Returns the old values (0 where the mask is false).
        #[track_caller]
        pub fn $name<E, V>(ptr: Tensor<Ptr<E>>, val: V, mask: Option<Tensor<bool>>) -> Tensor<E>
        where
            E: ScalarMarker + Promote<V::DType, Output = E>,
            V: TensorOperand,
        {
            rmw(AtomicOp::$op, ptr, val, mask, Sem::default(), Scope::default(), SourceLoc::caller())
        }

        #[doc = concat!("[`", stringify!($name), "`] with an explicit memory order and scope.")]
        #[track_caller]
        pub fn $with<E, V>(ptr: Tensor<Ptr<E>>, val: V, mask: Option<Tensor<bool>>, sem: Sem, scope: Scope) -> Tensor<E>
        where
            E: ScalarMarker + Promote<V::DType, Output = E>,
            V: TensorOperand,
        {
            rmw(AtomicOp::$op, ptr, val, mask, sem, scope, SourceLoc::caller())
        }
    )*};
}

atomic_fns! {
    Add, atomic_add, atomic_add_with, "`*ptr += val`";
    Max, atomic_max, atomic_max_with, "`*ptr = max(*ptr, val)` (floats by IEEE totalOrder)";
    Min, atomic_min, atomic_min_with, "`*ptr = min(*ptr, val)` (floats by IEEE totalOrder)";
    And, atomic_and, atomic_and_with, "`*ptr &= val` (integers)";
    Or, atomic_or, atomic_or_with, "`*ptr |= val` (integers)";
    Xor, atomic_xor, atomic_xor_with, "`*ptr ^= val` (integers)";
    Xchg, atomic_xchg, atomic_xchg_with, "`*ptr = val`";
}

/// `tl.atomic_cas(ptr, cmp, val)`: for every element, `*ptr = val` if `*ptr == cmp` (bit
/// for bit), in one indivisible step, with `sem = acq_rel`, `scope = gpu`. Returns the old
/// values: the swap happened where the old value equals `cmp`.
///
/// A non-pointer first argument does not compile:
///
/// ```compile_fail
/// use rtriton::prelude::*;
/// fn body(x: Tensor<i32>) {
///     let _ = atomic_cas(x, 0, 1);
/// }
/// ```
#[track_caller]
pub fn atomic_cas<E, C, V>(ptr: Tensor<Ptr<E>>, cmp: C, val: V) -> Tensor<E>
where
    E: ScalarMarker + Promote<C::DType, Output = E> + Promote<V::DType, Output = E>,
    C: TensorOperand,
    V: TensorOperand,
{
    cas(ptr, cmp, val, Sem::default(), Scope::default(), SourceLoc::caller())
}

/// [`atomic_cas`] with an explicit memory order and scope.
#[track_caller]
pub fn atomic_cas_with<E, C, V>(ptr: Tensor<Ptr<E>>, cmp: C, val: V, sem: Sem, scope: Scope) -> Tensor<E>
where
    E: ScalarMarker + Promote<C::DType, Output = E> + Promote<V::DType, Output = E>,
    C: TensorOperand,
    V: TensorOperand,
{
    cas(ptr, cmp, val, sem, scope, SourceLoc::caller())
}

fn cas<E: ScalarMarker, C: TensorOperand, V: TensorOperand>(
    ptr: Tensor<Ptr<E>>,
    cmp: C,
    val: V,
    sem: Sem,
    scope: Scope,
    loc: SourceLoc,
) -> Tensor<E> {
    let (c, v) = (cmp.value(loc), val.value(loc));
    Tensor::from_value(with_builder(|b| b.atomic_cas(ptr.id(), c, v, sem, scope, loc)))
}

#[cfg(test)]
mod tests {
    use crate::diag::Code;
    use crate::ir::{AtomicOp, ParamKind, ScalarType, Scope, Sem};
    use crate::kernel;
    use crate::prelude::*;
    use crate::trace::{trace_unspecialized, with_builder};

    kernel! {
        fn atomic_on_a_float_value(x_ptr: Ptr<f32>, n: i32) {
            let x = load(x_ptr + arange(0, 4), None, None);
            with_builder(|b| b.atomic_rmw(AtomicOp::Add, x.id(), x.id(), None, Sem::AcqRel, Scope::Gpu, crate::ir::SourceLoc::caller()));
        }
    }

    #[test]
    fn an_atomic_on_a_non_pointer_is_a_located_error() {
        // The Rust API only takes pointer tensors; the rule below it refuses anything else
        // (IR built by other front ends).
        let err = trace_unspecialized(&atomic_on_a_float_value(), &[]).unwrap_err();
        let d = &err.0.0[0];
        assert_eq!(d.code, Code::TraceRule);
        assert!(d.message.contains("atomic_add expects pointers, got f32"), "{}", d.message);
        assert!(d.loc.is_some_and(|l| l.file.ends_with("lang/atomics.rs")), "{:?}", d.loc);
        assert_eq!(atomic_on_a_float_value().params[0].kind, ParamKind::Ptr(ScalarType::F32));
    }
}
