//! Rule `i32-index-product` (triton-lang/triton#832, #1058, #5022, #6748; maintainers:
//! upcasting is the kernel author's job, and no option for 64-bit program ids was merged,
//! PR #8199).
//!
//! Index math runs in the type of its operands: `program_id(0) * stride_row` with both
//! i32 wraps once the product passes 2^31 - 1, before the 64-bit pointer add, and the
//! kernel reads or writes the wrong memory. The rule flags every i32 product of an index
//! (program id, arange, loop index) and a runtime argument that feeds a pointer offset.
//! The launch guard (`crate::guard`) refuses such kernels on tensors that large.

use std::collections::BTreeSet;

use crate::analysis::index_width::IndexWidths;
use crate::diag::Diagnostic;
use crate::ir::Kernel;

use super::{Rule, finding};

pub(super) fn check(kernel: &Kernel, widths: &IndexWidths) -> Vec<Diagnostic> {
    let mut seen = BTreeSet::new();
    let mut out = Vec::new();
    for offset in &widths.offsets {
        let tensor = offset.param.map_or_else(|| "a pointer".to_string(), |p| format!("`{}`", kernel.params[p].name));
        for product in offset.i32_products() {
            if !seen.insert(product.op) {
                continue;
            }
            out.push(finding(
                Rule::I32IndexProduct,
                kernel,
                product.loc,
                format!(
                    "the offset into {tensor} multiplies {} by {} in i32: it wraps past 2^31 - 1 elements and \
                     addresses the wrong memory on large tensors",
                    product.index.describe(kernel),
                    product.runtime.describe(kernel),
                ),
                "promote the index tensor before multiplying: `program_id(0).to::<i64>()` or `offs.to::<i64>()`, \
                 so the product runs in i64"
                    .to_string(),
            ));
        }
    }
    out
}
