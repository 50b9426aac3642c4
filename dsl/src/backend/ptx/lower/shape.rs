//! The shape ops that keep every element in the registers it is in: `splat` (a scalar in
//! every element), `expand_dims` (a new dim of size 1: the layouts share one parent
//! shape) and `broadcast` (an element repeated along the dims of size 1). The shape ops
//! that move elements between threads (`permute`, `reshape`, `join`, `split`) are in
//! `layout_ops.rs`.

use super::Lowerer;
use crate::backend::ptx::PtxError;
use crate::ir::{Op, Value};

impl Lowerer<'_> {
    pub(super) fn splat(&mut self, op: &Op, v: Value) -> Result<(), PtxError> {
        let r = self.result(op)?;
        let s = self.first(v)?;
        let n = self.count(r);
        self.set(r, vec![s; n]);
        Ok(())
    }

    pub(super) fn expand_dims(&mut self, op: &Op, value: Value) -> Result<(), PtxError> {
        let r = self.result(op)?;
        let src = self.val(value)?;
        let n = self.count(r);
        // A scalar becomes a block of one element per thread; a block keeps its
        // registers (the layouts share one parent shape).
        let elems = if src.len() == n { src } else { vec![self.first(value)?; n] };
        self.set(r, elems);
        Ok(())
    }

    pub(super) fn broadcast(&mut self, op: &Op, v: Value) -> Result<(), PtxError> {
        let r = self.result(op)?;
        let (gs, gd) = (self.block_geometry(op, v)?, self.block_geometry(op, r)?);
        let src = self.val(v)?;
        let elems = (0..gd.num_regs())
            .map(|i| {
                let mut kk = gd.multi(i);
                for (d, kd) in kk.iter_mut().enumerate() {
                    if gs.parent[d] != gd.parent[d] {
                        *kd = 0;
                    }
                }
                src[gs.index(&kk)]
            })
            .collect();
        self.set(r, elems);
        Ok(())
    }
}
