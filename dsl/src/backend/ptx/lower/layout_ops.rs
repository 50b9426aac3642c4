//! The layout ops. `permute` moves nothing: the layout assignment gives its result the
//! operand's layout with the dims renamed (`layout/assign.rs`), converting the operand
//! first where the result's layout is fixed otherwise, so every thread already holds
//! the elements it needs in the same registers. `reshape`, `join` and `split` move their
//! elements through shared memory (`exchange.rs`) from the operand's layout to the
//! result's, with the place of an element on each side chosen so that an element lands
//! where the op's row-major meaning says (docs/semantics.md, "Shapes and layouts"):
//!
//! - `reshape`: the array is the row-major element list; each side indexes it with its own
//!   shape's row-major strides (no padding: rows of the two shapes differ).
//! - `join`: the array is the result (`[..., 2]`, row-major); `lhs` fills offset 0 of each
//!   pair and `rhs` offset 1.
//! - `split`: the array is the operand (`[..., 2]`); result `k` reads offset `k` of each pair.
//!
//! Each of these three costs a shared-memory round trip and two `bar.sync`, even where
//! the two layouts happen to hold the same elements in the same threads.

use super::Lowerer;
use super::exchange::{Place, Side, row_major};
use crate::backend::ptx::PtxError;
use crate::backend::ptx::lir::{Group, Inst, Operand};
use crate::ir::{Op, Value};

impl Lowerer<'_> {
    /// The side of value `v` in its own layout.
    fn side(&self, v: Value, place: Place) -> Side {
        Side { shape: self.k.shape(v).dims().to_vec(), layout: self.layout(v).cloned(), place }
    }

    fn note(&mut self, op: &Op, what: &str) {
        self.emit(Inst::Group(Group::at(format!("{what} through shared memory"), op.loc)));
    }

    /// The operand's registers: its layout (converted if needed) is the result's with the
    /// dims renamed, so register `k` holds the same element in both.
    pub(super) fn permute(&mut self, value: Value) -> Result<Vec<Operand>, PtxError> {
        self.val(value)
    }

    pub(super) fn reshape(&mut self, op: &Op, value: Value) -> Result<Vec<Operand>, PtxError> {
        self.note(op, "reshape");
        let (ws, len) = row_major(self.k.shape(value).dims());
        let (rs, _) = row_major(self.k.shape(op.results[0]).dims());
        let write = self.side(value, Place { strides: ws, offset: 0 });
        let read = self.side(op.results[0], Place { strides: rs, offset: 0 });
        let elems = self.val(value)?;
        let mut out = self.exchange(op, self.k.dtype(value), len, vec![(write, elems)], vec![read], false)?;
        self.only(op, &mut out)
    }

    pub(super) fn join(&mut self, op: &Op, lhs: Value, rhs: Value) -> Result<Vec<Operand>, PtxError> {
        self.note(op, "join");
        let (strides, len) = row_major(self.k.shape(op.results[0]).dims());
        let halves = &strides[..strides.len() - 1];
        let a = self.side(lhs, Place { strides: halves.to_vec(), offset: 0 });
        let b = self.side(rhs, Place { strides: halves.to_vec(), offset: 1 });
        let read = self.side(op.results[0], Place { strides, offset: 0 });
        let (ea, eb) = (self.val(lhs)?, self.val(rhs)?);
        let mut out = self.exchange(op, self.k.dtype(lhs), len, vec![(a, ea), (b, eb)], vec![read], false)?;
        self.only(op, &mut out)
    }

    /// The two halves, into the op's two results.
    pub(super) fn split(&mut self, op: &Op, value: Value) -> Result<(), PtxError> {
        self.note(op, "split");
        let [lo, hi] = op.results[..] else { return Err(self.invariant(op, "does not have two results")) };
        let (strides, len) = row_major(self.k.shape(value).dims());
        let halves = &strides[..strides.len() - 1];
        let write = self.side(value, Place { strides: strides.clone(), offset: 0 });
        let reads = [lo, hi]
            .iter()
            .enumerate()
            .map(|(k, r)| self.side(*r, Place { strides: halves.to_vec(), offset: k }))
            .collect();
        let elems = self.val(value)?;
        let out = self.exchange(op, self.k.dtype(value), len, vec![(write, elems)], reads, false)?;
        for (r, elems) in [lo, hi].into_iter().zip(out) {
            self.set(r, elems);
        }
        Ok(())
    }

    /// The one element list an exchange with one reading side returns.
    fn only(&self, op: &Op, out: &mut Vec<Vec<Operand>>) -> Result<Vec<Operand>, PtxError> {
        out.pop().filter(|_| out.is_empty()).ok_or_else(|| self.invariant(op, "read back no single result"))
    }
}
