//! The kernel's encodings and its layout stage: the one computation the lowering
//! (`lower.rs`) and the layouts text (`layouts_text.rs`) share, so the text shows exactly
//! the layouts and conversions the PTX is built from. The passes run in order: the axis
//! facts, the blocked encoding (`coalesce.rs`), the tensor-core encodings
//! (`layout/mma.rs`), the stores tensor copies write (`tensor_copies.rs`, sm_90), every
//! value's layout (`layout/assign.rs`), the conversions as ops
//! (`layout/stage.rs`), and the axis facts again over the stage's kernel.

use std::collections::HashMap;
use std::sync::Arc;

use super::axis_info::AxisInfoMap;
use super::layout::stage::{self, LayoutStage};
use super::layout::{self, Blocked, Layout};
use super::tensor_copies::{self, TensorStore};
use super::{LayoutDecision, PtxError, PtxOptions, coalesce};
use crate::diag::Code;
use crate::ir::{Kernel, OpId};

/// The kernel's blocked encoding, why it is what it is, and the layout stage over it
/// (the `dot` accumulators' `mma` encodings included).
pub(crate) struct Encodings {
    /// The axis facts of the stage's kernel.
    pub ai: AxisInfoMap,
    pub enc: Arc<Blocked>,
    pub decision: LayoutDecision,
    pub stage: LayoutStage,
    /// The stores tensor copies write (by op id, which the stage keeps).
    pub tensor_stores: HashMap<OpId, TensorStore>,
}

impl Encodings {
    /// The encodings of `k` for `options`' warps and target (a `dot`'s warps depend on
    /// it, `layout/mma.rs`); an error when no layout has that many warps.
    pub fn compute(k: &Kernel, options: &PtxOptions) -> Result<Encodings, PtxError> {
        let nw = options.num_warps;
        if nw == 0 || !nw.is_power_of_two() || nw > 32 {
            return Err(PtxError::new(
                Code::PtxUnsupported,
                &k.name,
                k.loc,
                format!("num_warps = {nw} has no valid layout"),
                "use a power of two between 1 and 32 (the CTA has num_warps * 32 <= 1024 threads)",
            ));
        }
        let ai = AxisInfoMap::compute(k);
        let rank = k.values.iter().map(|v| v.ty.shape.rank()).max().unwrap_or(0).max(1);
        let anchor = k
            .values
            .iter()
            .filter(|v| v.ty.shape.rank() == rank)
            .map(|v| v.ty.shape.dims().to_vec())
            .max_by_key(|s| s.iter().product::<usize>())
            .unwrap_or_else(|| vec![1; rank]);
        let (enc, decision) = coalesce::coalesced_layout(k, &ai, &anchor, nw as usize);
        let enc = Arc::new(enc);
        let mmas = layout::mma_encodings(k, nw as usize, options.arch);
        let mma = |id: OpId| mmas.get(&id).map(|(_, m)| m.clone());
        let tensor_stores = tensor_copies::tensor_stores(k, &ai, options.arch);
        let from_shared = |id: OpId| tensor_stores.contains_key(&id);
        let stage = stage::materialize(k, layout::assign(k, &enc, &anchor, &mma, &from_shared))?;
        // The conversions' results keep their operands' facts; the `dot`s and rings are
        // keyed by ids the stage keeps.
        let ai = AxisInfoMap::compute(stage.kernel.kernel());
        Ok(Encodings { ai, enc, decision, stage, tensor_stores })
    }
}

/// `#mma = ...`, once per run of values in one tensor-core encoding (none without a
/// tensor-core `dot`): the header lines of the PTX and of the layouts text.
pub(crate) fn mma_lines(layouts: &[Option<Layout>]) -> Vec<String> {
    let mut lines: Vec<String> = layouts
        .iter()
        .flatten()
        .filter(|l| l.enc.is_mma() && l.operand.is_none())
        .map(|l| format!("#mma = {}", l.enc))
        .collect();
    lines.dedup();
    lines
}
