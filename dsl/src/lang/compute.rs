//! Operand conversions around ops, in one place: Triton's promotion of an operand pair
//! (`promotion::computation_type`) and the computation type of storage types. An op on
//! `f16`/`bf16` runs in `f32` and an op on `i8`/`u8`/`i16` in `i32`; the result is
//! converted back to the storage type (Triton computes `f16` arithmetic in `f32` the same
//! way where PTX has no `f16` instruction). Every op that goes through
//! `Builder::{unary, binary, compare, reduce}` gets this, so an op added later works on
//! every dtype without code of its own. See `docs/semantics.md`, "Dtypes".

use super::promotion::computation_type;
use crate::ir::{DType, ReduceOp, ScalarType, SourceLoc, Value};
use crate::trace::Builder;

impl Builder {
    /// Converts `a` and `b` to their promoted dtype (Triton's `binary_op_type_checking_impl`;
    /// `div_or_mod` for `/` and `%`). Pairs that are not two scalar types (a pointer) and
    /// pairs with no promotion are reported and returned unchanged.
    pub(crate) fn promote_operands(&mut self, a: Value, b: Value, div_or_mod: bool, loc: SourceLoc) -> (Value, Value) {
        // A Rust value next to a tensor takes the tensor's dtype (scalars.rs).
        if let Some(pair) = self.promote_scalar(a, b, div_or_mod, loc) {
            return pair;
        }
        let (da, db) = (self.dtype(a), self.dtype(b));
        // Equal types keep their type, but `/` and `%` of f16 / bf16 give f32.
        if da == db && !(div_or_mod && matches!(da.scalar(), Some(ScalarType::F16 | ScalarType::BF16))) {
            return (a, b);
        }
        // fp8 next to another dtype is not promoted (Triton's rule would widen it).
        if self.refuse_fp8(&[a, b], &format!("combining {da} and {db}"), loc) {
            return (a, b);
        }
        let (Some(sa), Some(sb)) = (da.scalar(), db.scalar()) else {
            self.error(
                loc,
                format!("operands of types {da} and {db} cannot be combined"),
                "convert one operand with .to::<T>() so both have the same type",
            );
            return (a, b);
        };
        match computation_type(sa, sb, div_or_mod) {
            Ok(t) => (self.cast(a, DType::Scalar(t), loc, false), self.cast(b, DType::Scalar(t), loc, false)),
            Err(why) => {
                self.error(loc, why, "convert one operand with .to::<T>() so both have the same signedness");
                (a, b)
            }
        }
    }

    /// Refuses `what` (an arithmetic op, comparison, reduction or math function) on an fp8
    /// operand with a located error: fp8 is a storage type with no arithmetic, as in
    /// Triton, where most ops need the operand converted first. Returns whether it did.
    pub(crate) fn refuse_fp8(&mut self, values: &[Value], what: &str, loc: SourceLoc) -> bool {
        let fp8 = values.iter().filter_map(|&v| self.dtype(v).scalar()).find(|s| s.fp8_format().is_some());
        let Some(s) = fp8 else { return false };
        self.error(
            loc,
            format!("{what} on {s}: fp8 is a storage type (load, store, select and convert it), it has no arithmetic"),
            "convert to f16 or f32 first with .to::<f32>(), compute there, and convert back with .to::<F8E4M3>() or .to::<F8E5M2>() to store",
        );
        true
    }

    /// The computation type of `v`'s dtype when it is a storage type (`f16` -> `f32`,
    /// `i8` -> `i32`), `None` otherwise.
    pub(crate) fn storage_compute_type(&self, v: Value) -> Option<ScalarType> {
        self.dtype(v).scalar().filter(|s| s.is_storage_only()).map(ScalarType::compute_type)
    }

    /// `v` converted to its computation type (unchanged when it computes in its own).
    pub(crate) fn widen_to_compute_type(&mut self, v: Value, loc: SourceLoc) -> Value {
        match self.storage_compute_type(v) {
            Some(c) => self.cast(v, DType::Scalar(c), loc, false),
            None => v,
        }
    }

    /// The dtype a reduction of a block of `dtype` gives (Triton's `tl.sum` sums `i8` and
    /// `i16` in `i32` and `u8` in `u32`; everything else keeps its dtype; `argmax` and
    /// `argmin` are `i32`).
    pub(crate) fn reduce_result_dtype(op: ReduceOp, dtype: DType) -> DType {
        match (op, dtype) {
            (op, _) if op.gives_index() => DType::I32,
            (ReduceOp::Sum, DType::Scalar(ScalarType::I8 | ScalarType::I16)) => DType::I32,
            (ReduceOp::Sum, DType::Scalar(ScalarType::U8)) => DType::Scalar(ScalarType::U32),
            // max, min and float sums keep the dtype (an op and a dtype, not an op kind)
            _ => dtype,
        }
    }
}
