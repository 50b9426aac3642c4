//! Rule `unspecialized-unit-stride` (triton-lang/triton#9834: since Triton 3.4 a bare
//! `stride: int` annotation skips the ==1 folding and cost vectorized stores, 6.5x on an
//! fp8 transpose; pytorch/helion#2426: turning on `do_not_specialize` everywhere cost up
//! to 50% on memory-bound kernels).
//!
//! Folding a stride equal to 1 is what makes `offs * stride` contiguous and so
//! vectorizable (`ld.global.v4.f32`). A `#[do_not_specialize]` integer argument that
//! multiplies an element index in a pointer offset can never be folded, so that access
//! stays scalar even on contiguous inputs.

use std::collections::BTreeSet;

use crate::analysis::index_width::IndexWidths;
use crate::diag::Diagnostic;
use crate::ir::Kernel;

use super::{Rule, finding};

pub(super) fn check(kernel: &Kernel, widths: &IndexWidths) -> Vec<Diagnostic> {
    let mut seen = BTreeSet::new();
    let mut out = Vec::new();
    for offset in &widths.offsets {
        for product in &offset.products {
            if !(product.index.arange || product.index.loop_index) {
                continue;
            }
            for &p in &product.runtime.params {
                let param = &kernel.params[p];
                if !param.do_not_specialize || !seen.insert((product.op, p)) {
                    continue;
                }
                out.push(finding(
                    Rule::UnspecializedUnitStride,
                    kernel,
                    product.loc,
                    format!(
                        "`{0}` is #[do_not_specialize] and multiplies an element index in a pointer offset: it is \
                         never folded to 1, so this access is not known to be contiguous and is not vectorized \
                         even when `{0}` is 1",
                        param.name
                    ),
                    format!(
                        "drop #[do_not_specialize] from `{}` (use #[do_not_specialize_on_alignment] to keep the \
                         folding and drop only the hint); in Triton, also leave the stride unannotated",
                        param.name
                    ),
                ));
            }
        }
    }
    out
}
