//! The launch-time overflow guard: refuses a launch whose pointer offsets are computed in
//! i32 when a tensor passed to it extends past what i32 can index.
//!
//! Index math in i32 wraps silently past 2^31 - 1 (triton-lang/triton#832, #1058): the
//! kernel then reads or writes the wrong memory instead of failing. The guard turns that
//! into an error before launch, naming the kernel, the op's file:line, the tensor and its
//! extent, and the fix. Kernels that promote their index tensors to i64 pass on any
//! tensor.

use crate::analysis::index_width::analyze;
use crate::diag::{Code, Diagnostic};
use crate::ir::{Kernel, ParamKind, SourceLoc};

/// The largest element offset an i32 index can reach.
pub const I32_MAX_OFFSET: u64 = i32::MAX as u64;

/// The extent of the tensor passed to one pointer parameter.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TensorExtent {
    /// The pointer parameter's name.
    pub param: String,
    /// The tensor's number of elements.
    pub numel: u64,
    /// The largest element offset an access can reach from the pointer passed:
    /// `view_offset + sum over dims of (size - 1) * |stride|` (see [`TensorExtent::of_view`]).
    pub max_offset_elems: u64,
}

impl TensorExtent {
    /// The extent of a strided view: `shape` and `strides` in elements, starting
    /// `view_offset` elements after the pointer passed (0 when the pointer passed is the
    /// view's first element).
    /// Every sum and product saturates at `u64::MAX`: the sizes come from the user, and
    /// a saturated extent is still past i32, so the guard refuses it instead of wrapping
    /// (a shape of `[2^40, 2^40]` has more than `u64::MAX` elements).
    pub fn of_view(param: &str, view_offset: u64, shape: &[u64], strides: &[i64]) -> TensorExtent {
        let numel = shape.iter().fold(1u64, |a, &n| a.saturating_mul(n));
        let span = view_span(shape.iter().zip(strides).map(|(&n, s)| (n, s.unsigned_abs())));
        TensorExtent { param: param.to_string(), numel, max_offset_elems: view_offset.saturating_add(span) }
    }
}

/// The largest element offset from a view's first element, `sum of (size - 1) * |stride|`
/// over its `(size, |stride|)` dimensions (saturating), 0 for an empty view: what the guard
/// compares with [`I32_MAX_OFFSET`].
pub fn view_span(dims: impl Iterator<Item = (u64, u64)> + Clone) -> u64 {
    if dims.clone().any(|(n, _)| n == 0) {
        return 0;
    }
    dims.fold(0u64, |a, (n, s)| a.saturating_add((n - 1).saturating_mul(s)))
}

/// What the guard needs from a traced kernel: per pointer parameter, the first place an
/// offset into it is computed in i32. Small and `Clone`, so a launcher can keep it with
/// the compiled kernel in its cache and check every launch without the IR.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OffsetWidths {
    kernel: String,
    loc: SourceLoc,
    /// Pointer parameters in declaration order, with the op and what is computed in i32
    /// there (`None`: every offset into it is computed in i64).
    pointers: Vec<(&'static str, Option<(SourceLoc, String)>)>,
}

impl OffsetWidths {
    /// Summarizes `kernel` (as traced for the launch: specialization can fold a product
    /// away).
    pub fn of(kernel: &Kernel) -> OffsetWidths {
        let widths = analyze(kernel);
        let pointers = kernel
            .params
            .iter()
            .enumerate()
            .filter(|(_, p)| matches!(p.kind, ParamKind::Ptr(_)))
            .map(|(index, p)| {
                let narrow = widths.of_param(index).find(|o| o.computed_in_i32()).map(|offset| {
                    match offset.i32_products().next() {
                        Some(prod) => (
                            prod.loc,
                            format!(
                                "{} times {} is computed in i32",
                                prod.index.describe(kernel),
                                prod.runtime.describe(kernel)
                            ),
                        ),
                        None => {
                            (offset.loc, format!("the offset ({}) is computed in i32", offset.sources.describe(kernel)))
                        }
                    }
                });
                (p.name, narrow)
            })
            .collect();
        OffsetWidths { kernel: kernel.name.clone(), loc: kernel.loc, pointers }
    }

    /// Whether any offset into pointer parameter `param` is computed in i32.
    pub fn narrow(&self, param: &str) -> bool {
        self.pointers.iter().any(|(p, n)| *p == param && n.is_some())
    }

    /// The guard's verdict for one launch (see [`check_offsets`]).
    pub fn check(&self, extents: &[TensorExtent]) -> Result<(), Diagnostic> {
        for extent in extents {
            let Some((_, narrow)) = self.pointers.iter().find(|(p, _)| *p == extent.param) else {
                let names: Vec<&str> = self.pointers.iter().map(|(p, _)| *p).collect();
                return Err(Diagnostic::error(
                    Code::GuardIndexOverflow,
                    &self.kernel,
                    self.loc,
                    format!(
                        "the overflow guard got an extent for `{}`, which is not a pointer parameter",
                        extent.param
                    ),
                    format!("pass extents for the pointer parameters: {}", names.join(", ")),
                ));
            };
            let (Some((loc, what)), true) = (narrow, extent.max_offset_elems > I32_MAX_OFFSET) else { continue };
            return Err(Diagnostic::error(
                Code::GuardIndexOverflow,
                &self.kernel,
                *loc,
                format!(
                    "launch refused: tensor `{}` has {} elements and a maximum element offset of {}, past i32::MAX = {}, \
                     but {what} here and would wrap",
                    extent.param, extent.numel, extent.max_offset_elems, I32_MAX_OFFSET
                ),
                "promote the index tensors to i64 before the index math (`program_id(0).to::<i64>()`, \
                 `offs.to::<i64>()`), or launch an i64-indexing variant",
            ));
        }
        Ok(())
    }
}

/// Checks `kernel` (as traced for the launch) against the extents of the tensors passed
/// to its pointer parameters. Refuses, with an error naming the kernel, the op's
/// file:line, the tensor and its extent and the fix, when a tensor's maximum element
/// offset exceeds `i32::MAX` and any offset into it is computed in i32 (the offset added
/// to the pointer, or an index-times-argument product widened only afterwards).
/// Parameters without an extent are not checked; an extent naming no pointer parameter
/// is an error (a caller bug worth hearing about).
///
/// A launcher with a compiled-kernel cache can keep [`OffsetWidths::of`] with each
/// entry and call [`OffsetWidths::check`] per launch instead.
pub fn check_offsets(kernel: &Kernel, extents: &[TensorExtent]) -> Result<(), Diagnostic> {
    OffsetWidths::of(kernel).check(extents)
}
