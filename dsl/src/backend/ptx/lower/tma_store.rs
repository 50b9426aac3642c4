//! Stores that tensor copies write (sm_90's TMA; `tensor_copies.rs` chooses them): every
//! thread writes its elements of the tile into the shared scratch, laid out as the tensor
//! map's boxes (columns of `swizzle`-byte rows, each row's 16-byte chunks swizzled as the
//! copies read them), straight from the value's own layout (an `mma` accumulator needs no
//! conversion first), and fences its writes for the async proxy; after a barrier thread 0
//! copies each box to global memory with `cp.async.bulk.tensor` (the hardware writes
//! nothing outside the tensor: exactly the store's mask), commits the bulk group and waits
//! until the copies have read shared memory (`.read`: the global writes themselves may
//! still be in flight, and are complete when the grid is); a barrier then frees the
//! scratch for the next user.

use super::exchange::{Place, Side};
use super::swizzle::SWIZZLE_ALIGN;
use super::tma::TmaStorePlan;
use super::{Lowerer, ty_of};
use crate::backend::ptx::lir::{BinOp, Group, Guard, Inst, Operand, TmaOp, Ty};
use crate::backend::ptx::{AccessDecision, AccessKind, PtxError};
use crate::ir::{Op, OpKind, desc_parts};

impl Lowerer<'_> {
    /// The store `op` (planned as `plan`) written by tensor copies.
    pub(super) fn tma_store(&mut self, op: &Op, plan: TmaStorePlan) -> Result<(), PtxError> {
        let OpKind::Store { value, desc, .. } = &op.kind else {
            return Err(self.invariant(op, "is planned as a tensor store but is no store"));
        };
        let value = *value;
        let parts = desc_parts(desc).ok_or_else(|| self.invariant(op, "is a tensor store without descriptor parts"))?;
        let map = self.tma.plan.maps[plan.map].clone();
        let shape = self.k.shape(value).dims().to_vec();
        let ty = ty_of(self.k.dtype(value));
        let eb = ty.size_bytes() as usize;
        let (rows, box_cols, panel_bytes) = (shape[0], map.box_dims[1], map.swizzle as usize);
        let Some(layout) = self.layout(value).cloned() else {
            return Err(self.invariant(op, "stores a block without a layout"));
        };
        self.emit(Inst::Group(Group::at(
            format!(
                "store {value} ({}) by tensor copies (TMA): {} box{} of {rows} x {box_cols}, {panel_bytes}-byte swizzle, tensor map {}",
                self.k.ty(value),
                plan.panels,
                if plan.panels == 1 { "" } else { "es" },
                plan.map
            ),
            op.loc,
        )));
        self.decisions.accesses.push(AccessDecision {
            loc: op.loc,
            kind: AccessKind::Store,
            vector_width: 0,
            reason: format!(
                "written by tensor copies (TMA) from shared memory: {} box{} of {rows} x {box_cols} through tensor map {}, the hardware skipping what lies outside the tensor",
                plan.panels,
                if plan.panels == 1 { "" } else { "es" },
                plan.map
            ),
        });
        // The tile sits at the scratch's start, which the swizzle's 8-row pattern aligns.
        let tile_bytes = (rows * shape[1] * eb) as u32;
        self.use_scratch(tile_bytes);
        self.shared_align = self.shared_align.max((8 * panel_bytes as u32).min(SWIZZLE_ALIGN));
        let elems = self.val(value)?;
        let geo = layout.geometry(&shape);
        let side = Side {
            shape: shape.clone(),
            layout: Some(layout.clone()),
            place: Place { strides: vec![panel_bytes / eb, 1], offset: 0 },
        };
        let at = self.panel_addresses(&side, eb, (rows, panel_bytes, 0), Operand::Int(0), 1);
        let guard = self.owner(&geo, None).map(|pred| Guard { pred, negate: false });
        // Each register's coordinates within the thread's own (row, column).
        let (dr, dc) = (layout.embed[0], layout.embed[1]);
        let coords: Vec<(usize, usize)> = (0..geo.num_regs())
            .map(|i| {
                let kk = geo.multi(i);
                (geo.static_offset(dr, kk[dr]) % geo.parent[dr], geo.static_offset(dc, kk[dc]) % geo.parent[dc])
            })
            .collect();
        // What the thread's first column is a multiple of, in bytes (at most 16): a run of
        // the thread's elements along a row is one access where its first byte is aligned
        // to the run (the swizzle moves whole 16-byte chunks, so a run within one stays
        // contiguous).
        let col_align = match self.coord_base(&geo, dc) {
            Operand::Int(0) => 16,
            Operand::Int(c) => (c as usize * eb) & (c as usize * eb).wrapping_neg(),
            _ => geo.chunk[dc] * eb,
        }
        .clamp(1, 16);
        let mut i = 0;
        while i < elems.len() {
            let (r, c) = coords[i];
            let fits = |bytes: usize| {
                let m = bytes / eb;
                i + m <= elems.len()
                    && col_align.is_multiple_of(bytes)
                    && (c * eb).is_multiple_of(bytes)
                    && (1..m).all(|j| coords[i + j] == (r, c + j))
            };
            let bytes = [16, 8, 4].into_iter().find(|&b| b > eb && fits(b)).unwrap_or(eb);
            let m = bytes / eb;
            let (addr, offset) = at[i];
            self.st_shared_run(guard, ty, &elems[i..i + m], addr, offset);
            i += m;
        }
        self.emit(Inst::FenceProxyAsync);
        self.emit(Inst::BarSync { id: 0 });
        let issue = Some(Guard { pred: self.scalar_owner(), negate: false });
        let map_addr = self.map_addr(plan.map);
        let smem = self.smem_base();
        let outer = self.first(parts.offsets[0])?;
        let inner = self.first(parts.offsets[1])?;
        for p in 0..plan.panels {
            let src =
                self.bin(BinOp::Add, Ty::I32, smem.into(), Operand::Int(i64::from(p) * (rows * panel_bytes) as i64));
            let src = self.reg(src, Ty::I32);
            let col = self.bin(BinOp::Add, Ty::I32, inner, Operand::Int(i64::from(p * box_cols)));
            let store = TmaOp::Store { src, map: plan.map as u32, map_addr, coords: vec![col, outer] };
            self.emit(Inst::Tma { guard: issue, op: store });
        }
        self.emit(Inst::Tma { guard: issue, op: TmaOp::StoreCommit });
        self.emit(Inst::Tma { guard: issue, op: TmaOp::StoreWaitRead { pending: 0 } });
        self.emit(Inst::BarSync { id: 0 });
        Ok(())
    }
}
