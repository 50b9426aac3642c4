//! Staging rings (`async_copy`, `ring_read`; `passes/pipeline.rs` writes them): the tiles
//! a pipelined loop's `dot`s read, copied global -> shared with `cp.async` several
//! iterations ahead, so no register holds them in flight and the copies overlap the
//! tensor-core work.
//!
//! A ring is `slots` tiles in shared memory, after the scratch and the staged loads'
//! buffers (`place_rings`). A tile `[R, C]` is row-major with each row padded by 16 bytes,
//! the layout `mma.rs` stages operands in, so the 8 rows an `ldmatrix` reads fall in 8
//! different groups of 4 banks and `mma.rs` reads a slot exactly as it reads its own
//! staging.
//!
//! - `async_copy`: each thread issues one `cp.async.cg` per 16-byte vector of the tile it
//!   holds (source size 0 for a masked-off vector: zero fill, the address is not read;
//!   where the layout replicates the tile, only the first copy's owner copies) and
//!   commits the group. Where the accesses are not 16-byte vectors along the rows or
//!   `other` is not the zero fill, the elements are loaded
//!   into registers and stored (`ld.global`, `st.shared`): the same bytes land, without
//!   the overlap. Either way the access decision says which.
//! - `ring_read`: `cp.async.wait_group pending` (the copies of the slot read are complete;
//!   the later ones may still be in flight) and `bar.sync` (every thread's copies are
//!   visible, and every warp has finished reading the slot the copies after this read
//!   overwrite), once per run of reads. A read whose every use is a tensor-core `dot`
//!   operand stays in shared memory (a view, `mma.rs` reads its fragments from it); any
//!   other is loaded into registers in its layout.

use super::exchange::{Place, Side, shared_ty};
use super::mma::tensor_core_input;
use super::{Lowerer, ty_of};
use crate::backend::ptx::layout::{Layout, MmaInput};
use crate::backend::ptx::lir::{BinOp, Guard, Inst, Operand, Reg, Ty};
use crate::backend::ptx::{AccessKind, PtxError};
use crate::ir::{DType, Kernel, Op, OpKind, Value};

/// Bytes of padding after each row of a slot (as `mma.rs` pads its staging).
const ROW_PAD_BYTES: usize = 16;
/// Bytes one `cp.async.cg` copies.
const COPY_BYTES: usize = 16;

/// One staging ring: where it is and what its slots hold.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct Ring {
    /// Byte offset from the rings' base.
    offset: u32,
    slot_bytes: u32,
    slots: u32,
    shape: Vec<usize>,
    ty: Ty,
    /// Elements from one row of a slot to the next (the row and its padding).
    pub row: usize,
}

/// A `ring_read` that stays in shared memory: its slot's address and row stride.
#[derive(Clone, Copy, Debug)]
pub(super) struct RingView {
    pub addr: Reg,
    pub row: usize,
}

impl Lowerer<'_> {
    pub(super) fn async_copy(
        &mut self,
        op: &Op,
        [ptr, slot]: [Value; 2],
        [mask, other]: [Option<Value>; 2],
        (ring, slots): (u32, u32),
    ) -> Result<(), PtxError> {
        let shape = self.k.shape(ptr).dims().to_vec();
        let Some(elem) = self.k.dtype(ptr).pointee() else {
            return Err(self.invariant(op, "copies from a non-pointer"));
        };
        let ty = ty_of(DType::Scalar(elem));
        if shape.len() != 2 || ty == Ty::Pred {
            return Err(self.err(
                op.loc,
                format!("async_copy stages 2-D tiles of numbers; this one is {}", self.k.ty(ptr)),
                "copy a 2-D tile (the pipelining pass copies the operands of a `dot`)",
            ));
        }
        let r = self.ring(op, ring, slots, &shape, ty)?;
        let slot_off = self.slot_offset(&r, slot)?;
        let width = self.access_width(op, AccessKind::Load, ptr, mask);
        let eb = ty.size_bytes() as usize;
        let layout = self.layout(ptr).cloned();
        let along_rows = layout.as_ref().is_some_and(|l| l.embed.get(1) == Some(&l.enc.order[0]));
        let side = Side { shape, layout, place: Place { strides: vec![r.row, 1], offset: 0 } };
        let owner = match side.layout.as_ref().map(|l| l.geometry(&side.shape)) {
            Some(g) => self.owner(&g, None),
            None => Some(self.scalar_owner()),
        };
        let (tbase, offsets) = self.addresses(&side, eb);
        let dst = self.bin(BinOp::Add, Ty::I32, tbase.into(), slot_off);
        let dst = self.reg(dst, Ty::I32);
        let guard = owner.map(|pred| Guard { pred, negate: false });
        let asynchronous = width * eb == COPY_BYTES && along_rows && other.is_none();
        if asynchronous {
            self.note_access(format!("async_copy: cp.async of {} x 16 bytes per thread", offsets.len() / width));
            let ptrs = self.val(ptr)?;
            let masks = mask.map(|m| self.val(m)).transpose()?;
            for c in (0..ptrs.len()).step_by(width) {
                let src = self.reg(ptrs[c], Ty::I64);
                // The mask is constant across the vector (`vectorize` proved it).
                let src_size = match &masks {
                    Some(m) => {
                        let pred = self.reg(m[c], Ty::Pred);
                        let size = self.new_reg(Ty::I32);
                        self.emit(Inst::Selp {
                            ty: Ty::I32,
                            dst: size,
                            a: Operand::Int(COPY_BYTES as i64),
                            b: Operand::Int(0),
                            cond: pred,
                        });
                        Operand::Reg(size)
                    }
                    None => Operand::Int(COPY_BYTES as i64),
                };
                self.emit(Inst::CpAsync { guard, dst, offset: offsets[c], src, src_size });
            }
        } else {
            let why = if other.is_some() {
                "`other` is not the zero fill"
            } else {
                "its accesses are not 16-byte vectors along the rows"
            };
            self.note_access(format!("async_copy: loaded and stored through registers ({why})"));
            let elems = self.load_elems(ty, (ptr, mask, other), width)?;
            let sty = shared_ty(ty);
            for (x, off) in elems.into_iter().zip(offsets) {
                let src = self.reg(x, sty);
                self.emit(Inst::StShared { guard, ty: sty, src, addr: dst, offset: off });
            }
        }
        self.emit(Inst::CpAsyncCommit);
        self.ring_synced = false;
        Ok(())
    }

    pub(super) fn ring_read(&mut self, op: &Op, ring: u32, slot: Value, pending: u32) -> Result<(), PtxError> {
        let res = op.results[0];
        let shape = self.k.shape(res).dims().to_vec();
        let ty = ty_of(self.k.dtype(res));
        let Some(r) = self.rings.get(&ring).cloned() else {
            return Err(self.err(
                op.loc,
                format!("ring_read reads ring {ring} before any async_copy into it"),
                "copy into a ring before reading it",
            ));
        };
        if r.shape != shape || r.ty != ty {
            return Err(self.err(
                op.loc,
                format!(
                    "ring_read reads ring {ring} as {}, but its copies hold {:?} tiles of {:?}",
                    self.k.ty(res),
                    r.shape,
                    r.ty
                ),
                "read a ring as the type it is copied as",
            ));
        }
        if !self.ring_synced {
            self.emit(Inst::CpAsyncWait { pending });
            self.emit(Inst::BarSync { id: 0 });
            self.ring_synced = true;
        }
        let slot_off = self.slot_offset(&r, slot)?;
        let smem = self.smem_base();
        let addr = self.bin(BinOp::Add, Ty::I32, smem.into(), slot_off);
        let addr = self.reg(addr, Ty::I32);
        if read_in_place(self.k, self.layouts, res) {
            self.ring_views.insert(res, RingView { addr, row: r.row });
            return Ok(());
        }
        let eb = ty.size_bytes() as usize;
        let side =
            Side { shape, layout: self.layout(res).cloned(), place: Place { strides: vec![r.row, 1], offset: 0 } };
        let (tbase, offsets) = self.addresses(&side, eb);
        let base = self.bin(BinOp::Add, Ty::I32, tbase.into(), slot_off);
        let base = self.reg(base, Ty::I32);
        let sty = shared_ty(ty);
        let mut elems = Vec::with_capacity(offsets.len());
        for offset in offsets {
            let dst = self.new_reg(sty);
            self.emit(Inst::LdShared { ty: sty, dst, addr: base, offset });
            elems.push(Operand::Reg(dst));
        }
        self.set(res, elems);
        Ok(())
    }

    /// The ring `ring`, made on its first copy; a later copy must agree with it.
    fn ring(&mut self, op: &Op, ring: u32, slots: u32, shape: &[usize], ty: Ty) -> Result<Ring, PtxError> {
        let eb = ty.size_bytes() as usize;
        let row = row_elems(shape, ty);
        if let Some(r) = self.rings.get(&ring) {
            if r.slots != slots || r.shape != shape || r.ty != ty {
                return Err(self.err(
                    op.loc,
                    format!(
                        "async_copy into ring {ring} as {slots} slots of {shape:?} {ty:?}, but an earlier copy made it {} slots of {:?} {:?}",
                        r.slots, r.shape, r.ty
                    ),
                    "copy into each ring with one tile type and one slot count",
                ));
            }
            return Ok(r.clone());
        }
        let slot_bytes = ((shape[0] * row * eb).next_multiple_of(16)) as u32;
        let r = Ring { offset: self.ring_bytes, slot_bytes, slots, shape: shape.to_vec(), ty, row };
        self.ring_site.get_or_insert(op.loc);
        self.ring_bytes += slot_bytes * slots;
        self.rings.insert(ring, r.clone());
        Ok(r)
    }

    /// The byte offset of slot `slot` of `r` from `smem`: the rings' base (patched when
    /// the lowering ends) plus the ring's offset plus `slot * slot_bytes`.
    fn slot_offset(&mut self, r: &Ring, slot: Value) -> Result<Operand, PtxError> {
        let base = self.rings_base();
        let s = self.first(slot)?;
        let at = match s {
            Operand::Int(i) => Operand::Int(i64::from(r.offset) + i * i64::from(r.slot_bytes)),
            s => {
                let scaled = self.bin(BinOp::Mul, Ty::I32, s, Operand::Int(r.slot_bytes.into()));
                self.bin(BinOp::Add, Ty::I32, scaled, Operand::Int(r.offset.into()))
            }
        };
        Ok(self.bin(BinOp::Add, Ty::I32, base.into(), at))
    }

    /// The rings' base offset from `smem` (prologue): the scratch and staged buffers'
    /// size, known only when the lowering ends, so the `mov`'s immediate is patched then
    /// ([`Lowerer::place_rings`]).
    fn rings_base(&mut self) -> Reg {
        if let Some((r, _)) = self.rings_base {
            return r;
        }
        let r = self.new_reg(Ty::I32);
        let at = self.prologue.len();
        self.emit_pro(Inst::Mov { ty: Ty::I32, dst: r, src: Operand::Int(0) });
        self.rings_base = Some((r, at));
        r
    }

    /// At the end of the lowering (after the staged buffers are placed): the rings go
    /// last, and the program's shared memory covers them.
    pub(super) fn place_rings(&mut self) {
        let Some((_, at)) = self.rings_base else { return };
        // The rings raise the program's shared memory last.
        self.stage_site = self.ring_site.or(self.stage_site);
        let base = self.shared_bytes.next_multiple_of(16);
        if let Inst::Mov { src, .. } = &mut self.prologue[at] {
            *src = Operand::Int(i64::from(base));
        }
        self.shared_bytes = base + self.ring_bytes;
    }
}

/// Whether every use of `v` (a `ring_read`) is an operand of a tensor-core `dot` that can
/// read its fragments from the slot (`a`, or `b` for 16-bit and tf32 inputs: an `i8` `b`
/// is staged transposed). A function of the layouts alone, so the layouts text shows the
/// lowering's choice.
pub(crate) fn read_in_place(k: &Kernel, layouts: &[Option<Layout>], v: Value) -> bool {
    let mut uses = 0;
    for id in k.walk() {
        let op = k.op(id);
        let n = op.kind.operands().iter().filter(|&&x| x == v).count();
        if n == 0 {
            continue;
        }
        let OpKind::Dot { a, b, acc, input_precision } = &op.kind else { return false };
        let Some(elem) = k.dtype(*a).scalar() else { return false };
        let result = layouts[op.results[0].index()].as_ref();
        let input = tensor_core_input(k, result, *a, MmaInput::of(elem, *input_precision));
        let fits = match input {
            Some(MmaInput::S8) => *a == v && *b != v,
            Some(_) => true,
            None => false,
        };
        if !fits || *acc == v {
            return false;
        }
        uses += n;
    }
    uses > 0
}

/// Elements from one row of a slot of the ring `v` (a `ring_read`) reads to the next: the
/// row and its padding.
pub(crate) fn slot_row(k: &Kernel, v: Value) -> usize {
    row_elems(k.shape(v).dims(), ty_of(k.dtype(v)))
}

fn row_elems(shape: &[usize], ty: Ty) -> usize {
    shape[1] + ROW_PAD_BYTES / ty.size_bytes() as usize
}
