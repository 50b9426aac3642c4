//! Staging rings (`async_copy`, `ring_read`; `passes/pipeline.rs` writes them): the tiles
//! a pipelined loop's `dot`s read, copied global -> shared with `cp.async` several
//! iterations ahead, so no register holds them in flight and the copies overlap the
//! tensor-core work.
//!
//! A ring is `slots` tiles in shared memory (`place_rings`): from the buffer's start,
//! sharing it with the scratch, where no exchange, reduction or scan uses the scratch
//! while rings are in use (from the first copy to the wait and barrier after the loop;
//! the epilogue's conversion of a `dot` accumulator for a coalesced store then takes no
//! shared memory of its own), else after the scratch and the staged loads' buffers.
//!
//! A tile `[R, C]` is row-major in one of two layouts ([`SlotLayout`]), both placing the 8
//! rows an `ldmatrix` reads (and the chunks a warp's copies write) in 8 different groups
//! of 4 banks:
//! - 16-bit tiles whose rows are 2 to 64 chunks of 16 bytes are swizzled (`swizzle.rs`):
//!   no padding, so a stage takes only the tiles' bytes;
//! - other tiles pad each row by 16 bytes, the layout `mma.rs` stages its own operands in.
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
use super::swizzle::{SWIZZLE_ALIGN, Swizzle};
use super::wgmma::WgmmaPlan;
use super::{Lowerer, ty_of};
use crate::backend::ptx::layout::{Layout, MmaInput};
use crate::backend::ptx::layout::{dot_input, operand_reads, transposed_operand};
use crate::backend::ptx::lir::{BinOp, Guard, Inst, Operand, Reg, Ty};
use crate::backend::ptx::{AccessKind, PtxError};
use crate::ir::{DType, Kernel, Op, OpKind, Value};

/// Bytes of padding after each row of a slot (as `mma.rs` pads its staging).
const ROW_PAD_BYTES: usize = 16;
/// Bytes one `cp.async.cg` copies.
const COPY_BYTES: usize = 16;

/// How a slot lays out a tile's rows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum SlotLayout {
    /// Rows `row` elements apart: the tile's row and 16 bytes of padding.
    Padded { row: usize },
    /// Rows exactly the tile's width apart, their 16-byte chunks swizzled.
    Swizzled(Swizzle),
    /// The layout a `wgmma` descriptor reads (`wgmma.rs`): a 16-bit tile of `rows` rows
    /// cut into columns (panels) of `row_bytes` (32, 64 or 128; a narrower tile is one
    /// panel), each panel `rows` swizzled rows, one after the other. Where `rotate > 0`
    /// the 8-row groups are permuted: the low `rotate` bits of a row's group index are
    /// rotated left by one (the rows of `mma`'s layout each warpgroup's `A` takes, made
    /// one run of 64 rows: `wgmma.rs`).
    Panels { rows: usize, row_bytes: usize, rotate: u32 },
}

impl SlotLayout {
    /// The layout of a slot holding `[R, C]` tiles of `ty`.
    pub(crate) fn of(shape: &[usize], ty: Ty) -> SlotLayout {
        let eb = ty.size_bytes() as usize;
        match Swizzle::of(shape[1] * eb) {
            Some(sw) if eb == 2 => SlotLayout::Swizzled(sw),
            _ => SlotLayout::Padded { row: shape[1] + ROW_PAD_BYTES / eb },
        }
    }

    /// Elements from one row to the next.
    pub(super) fn row(self, eb: usize) -> usize {
        match self {
            SlotLayout::Padded { row } => row,
            SlotLayout::Swizzled(sw) => sw.row_bytes / eb,
            SlotLayout::Panels { row_bytes, .. } => row_bytes / eb,
        }
    }

    /// The swizzle, if the rows are swizzled.
    pub(super) fn swizzle(self) -> Option<Swizzle> {
        match self {
            SlotLayout::Swizzled(sw) => Some(sw),
            SlotLayout::Panels { row_bytes, .. } => Swizzle::of(row_bytes),
            SlotLayout::Padded { .. } => None,
        }
    }

    /// The bytes a slot's start is aligned to: a swizzled slot's whole pattern of 8 rows
    /// (a `wgmma` descriptor's swizzle starts there), at most [`SWIZZLE_ALIGN`].
    fn align(self) -> u32 {
        match self {
            SlotLayout::Padded { .. } => 16,
            SlotLayout::Swizzled(sw) => (8 * sw.row_bytes as u32).min(SWIZZLE_ALIGN),
            SlotLayout::Panels { row_bytes, .. } => (8 * row_bytes as u32).min(SWIZZLE_ALIGN),
        }
    }
}

impl std::fmt::Display for SlotLayout {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            SlotLayout::Padded { row } => write!(f, "row {row}"),
            SlotLayout::Swizzled(sw) => write!(f, "swizzled, {sw}"),
            SlotLayout::Panels { row_bytes, rotate, .. } => {
                match Swizzle::of(*row_bytes) {
                    Some(sw) => write!(f, "{row_bytes}-byte panels, swizzled, {sw}")?,
                    None => write!(f, "{row_bytes}-byte panels")?,
                }
                if *rotate > 0 {
                    write!(f, ", 8-row groups permuted (low {rotate} bits of the group rotated left by 1)")?;
                }
                Ok(())
            }
        }
    }
}

/// One staging ring: where it is and what its slots hold.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct Ring {
    /// Byte offset from the rings' base.
    offset: u32,
    slot_bytes: u32,
    slots: u32,
    shape: Vec<usize>,
    ty: Ty,
    layout: SlotLayout,
}

/// A `ring_read` that stays in shared memory: its slot's address and layout.
#[derive(Clone, Copy, Debug)]
pub(super) struct RingView {
    pub addr: Reg,
    pub layout: SlotLayout,
}

impl Lowerer<'_> {
    pub(super) fn async_copy(
        &mut self,
        op: &Op,
        [ptr, slot]: [Value; 2],
        [mask, other]: [Option<Value>; 2],
        (ring, slots): (u32, u32),
        (desc, when): (&[Value], Option<Value>),
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
        // The rings are in use from here to the wait and barrier after their loop.
        self.rings_open = true;
        let slot_off = self.slot_offset(&r, slot)?;
        let width = self.access_width(op, AccessKind::Load, ptr, mask);
        if self.tma.fills(ring) {
            self.note_access("async_copy: tensor copies (TMA) by one thread, an mbarrier a slot".to_string());
            self.tma_copy(op, (ring, slots, slot), (slot_off, r.slot_bytes), desc, when)?;
            self.ring_synced = false;
            return Ok(());
        }
        let eb = ty.size_bytes() as usize;
        let layout = self.layout(ptr).cloned();
        let along_rows = layout.as_ref().is_some_and(|l| l.embed.get(1) == Some(&l.enc.order[0]));
        let side = Side { shape, layout, place: Place { strides: vec![r.layout.row(eb), 1], offset: 0 } };
        let owner = match side.layout.as_ref().map(|l| l.geometry(&side.shape)) {
            Some(g) => self.owner(&g, None),
            None => Some(self.scalar_owner()),
        };
        let guard = owner.map(|pred| Guard { pred, negate: false });
        let asynchronous = width * eb == COPY_BYTES && along_rows && other.is_none();
        if asynchronous {
            let at = self.slot_addresses(&side, eb, r.layout, slot_off, width);
            self.note_access(format!("async_copy: cp.async of {} x 16 bytes per thread", at.len()));
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
                let (dst, offset) = at[c / width];
                self.emit(Inst::CpAsync { guard, dst, offset, src, src_size });
            }
        } else {
            let why = if other.is_some() {
                "`other` is not the zero fill"
            } else {
                "its accesses are not 16-byte vectors along the rows"
            };
            self.note_access(format!("async_copy: loaded and stored through registers ({why})"));
            let elems = self.load_elems(ty, (ptr, mask, other), width)?;
            let at = self.slot_addresses(&side, eb, r.layout, slot_off, 1);
            let sty = shared_ty(ty);
            for (x, (addr, offset)) in elems.into_iter().zip(at) {
                let src = self.reg(x, sty);
                self.emit(Inst::StShared { guard, ty: sty, src, addr, offset });
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
        if self.tma.fills(ring) {
            self.tma_wait(ring, r.slots, slot)?;
        }
        if !self.ring_synced {
            self.emit(Inst::CpAsyncWait { pending });
            if !self.wgmma.rings.is_empty() {
                self.emit(Inst::FenceProxyAsync);
            }
            self.emit(Inst::BarSync { id: 0 });
            self.ring_synced = true;
        }
        let slot_off = self.slot_offset(&r, slot)?;
        if read_in_place(self.k, self.layouts, res) {
            let smem = self.smem_base();
            let addr = self.bin(BinOp::Add, Ty::I32, smem.into(), slot_off);
            let addr = self.reg(addr, Ty::I32);
            self.ring_views.insert(res, RingView { addr, layout: r.layout });
            return Ok(());
        }
        if matches!(r.layout, SlotLayout::Panels { .. }) {
            return Err(self.invariant(op, "loads a ring read from panels that only wgmma reads"));
        }
        let eb = ty.size_bytes() as usize;
        let side = Side {
            shape,
            layout: self.layout(res).cloned(),
            place: Place { strides: vec![r.layout.row(eb), 1], offset: 0 },
        };
        let at = self.slot_addresses(&side, eb, r.layout, slot_off, 1);
        let sty = shared_ty(ty);
        let mut elems = Vec::with_capacity(at.len());
        for (addr, offset) in at {
            let dst = self.new_reg(sty);
            self.emit(Inst::LdShared { ty: sty, dst, addr, offset });
            elems.push(Operand::Reg(dst));
        }
        self.set(res, elems);
        Ok(())
    }

    /// The address (a register and an immediate) of every `step`-th of the thread's
    /// `eb`-byte elements of `side` (the first of each vector) in the slot at `slot_off`
    /// from `smem`, laid out as `layout`.
    fn slot_addresses(
        &mut self,
        side: &Side,
        eb: usize,
        layout: SlotLayout,
        slot_off: Operand,
        step: usize,
    ) -> Vec<(Reg, u32)> {
        if let SlotLayout::Panels { rows, row_bytes, rotate } = layout {
            return self.panel_addresses(side, eb, (rows, row_bytes, rotate), slot_off, step);
        }
        let (tbase, offsets) = self.addresses(side, eb);
        let offsets: Vec<u32> = offsets.into_iter().step_by(step).collect();
        let base = self.bin(BinOp::Add, Ty::I32, tbase.into(), slot_off);
        let base = self.reg(base, Ty::I32);
        let Some(sw) = layout.swizzle() else {
            return offsets.into_iter().map(|o| (base, o)).collect();
        };
        // The thread's first row, where `addresses` kept it out of the offsets.
        let row = match &side.layout {
            Some(l) => {
                let geo = l.geometry(&side.shape);
                match self.coord_base(&geo, l.embed[0]) {
                    Operand::Int(_) => Operand::Int(0),
                    r => r,
                }
            }
            None => Operand::Int(0),
        };
        self.swizzled_elems(sw, base, row, &offsets)
    }

    /// [`Lowerer::slot_addresses`] in [`SlotLayout::Panels`]: element `(r, c)` at `(c /
    /// per) * panel + rot(r) * row_bytes + (c % per) * eb` (`per` elements a panel row,
    /// `rot` the group permutation), swizzled by its row. The thread's first coordinates
    /// `(r0, c0)` go into its base; an element's own `(dr, dc)` into the immediate, which
    /// is exact for power-of-two chunks and thread counts: a thread's chunk never straddles
    /// a panel unless it starts one, and `r0` and `dr` have no bit in common, so `rot(r0 +
    /// dr) = rot(r0) + rot(dr)`.
    pub(super) fn panel_addresses(
        &mut self,
        side: &Side,
        eb: usize,
        (rows, row_bytes, rotate): (usize, usize, u32),
        slot_off: Operand,
        step: usize,
    ) -> Vec<(Reg, u32)> {
        let per = row_bytes / eb;
        let panel = rows * row_bytes;
        let smem = self.smem_base();
        let at = self.bin(BinOp::Add, Ty::I32, smem.into(), slot_off);
        let Some(layout) = side.layout.clone() else {
            return vec![(self.reg(at, Ty::I32), 0)];
        };
        let geo = layout.geometry(&side.shape);
        let (dr, dc) = (layout.embed[0], layout.embed[1]);
        let r0 = self.coord_base(&geo, dr);
        let c0 = self.coord_base(&geo, dc);
        let r0_at = self.rotate_groups(r0, rotate);
        let row_part = self.int_op(BinOp::Mul, r0_at, Operand::Int(row_bytes as i64));
        let col_in = self.int_op(BinOp::And, c0, Operand::Int(per as i64 - 1));
        let col_in = self.int_op(BinOp::Mul, col_in, Operand::Int(eb as i64));
        let col_panel = self.int_op(BinOp::ShrU, c0, Operand::Int(i64::from(per.trailing_zeros())));
        let col_panel = self.int_op(BinOp::Mul, col_panel, Operand::Int(panel as i64));
        let mut base = at;
        for part in [row_part, col_in, col_panel] {
            base = self.int_op(BinOp::Add, base, part);
        }
        let base = self.reg(base, Ty::I32);
        let offsets: Vec<u32> = (0..geo.num_regs())
            .step_by(step)
            .map(|i| {
                let kk = geo.multi(i);
                let r = geo.static_offset(dr, kk[dr]) % geo.parent[dr];
                let c = geo.static_offset(dc, kk[dc]) % geo.parent[dc];
                (rotate_groups(r, rotate) * row_bytes + (c / per) * panel + (c % per) * eb) as u32
            })
            .collect();
        let sw = Swizzle::of(row_bytes).expect("panel rows are swizzled");
        let row = match r0 {
            Operand::Int(_) => Operand::Int(0),
            r => r,
        };
        self.swizzled_elems(sw, base, row, &offsets)
    }

    /// [`rotate_groups`] of a row in a register.
    fn rotate_groups(&mut self, row: Operand, rotate: u32) -> Operand {
        if rotate == 0 {
            return row;
        }
        if let Operand::Int(r) = row {
            return Operand::Int(rotate_groups(r as usize, rotate) as i64);
        }
        let mask = ((1i64 << rotate) - 1) << 3;
        let low = self.int_op(BinOp::And, row, Operand::Int(mask));
        let rest = self.int_op(BinOp::Xor, row, low);
        let up = self.int_op(BinOp::Shl, low, Operand::Int(1));
        let up = self.int_op(BinOp::And, up, Operand::Int(mask));
        let down = self.int_op(BinOp::ShrU, low, Operand::Int(i64::from(rotate) - 1));
        let down = self.int_op(BinOp::And, down, Operand::Int(8));
        let moved = self.int_op(BinOp::Or, up, down);
        self.int_op(BinOp::Or, rest, moved)
    }

    /// The ring `ring`, made on its first copy; a later copy must agree with it.
    fn ring(&mut self, op: &Op, ring: u32, slots: u32, shape: &[usize], ty: Ty) -> Result<Ring, PtxError> {
        let eb = ty.size_bytes() as usize;
        let layout = ring_slot_layout(&self.wgmma, ring, shape, ty);
        let row = layout.row(eb);
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
        let slot_bytes = match layout {
            SlotLayout::Panels { rows, .. } => (rows * shape[1] * eb) as u32,
            _ => ((shape[0] * row * eb).next_multiple_of(16)) as u32,
        };
        // A swizzled slot starts at a multiple of its row size (`swizzle.rs`); the rings'
        // base is then aligned to `SWIZZLE_ALIGN` (`place_rings`).
        let offset = match layout {
            SlotLayout::Swizzled(_) | SlotLayout::Panels { .. } => {
                self.rings_swizzled = true;
                self.ring_bytes.next_multiple_of(layout.align())
            }
            SlotLayout::Padded { .. } => self.ring_bytes,
        };
        let r = Ring { offset, slot_bytes, slots, shape: shape.to_vec(), ty, layout };
        self.ring_site.get_or_insert(op.loc);
        self.ring_bytes = offset + slot_bytes * slots;
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

    /// Marks the scratch (the exchanges', reductions' and scans' array at the buffer's
    /// start) as used for `bytes`. Every such use ends with a barrier after its last read,
    /// so a ring copy issued after it cannot overwrite what a slower warp still reads.
    pub(super) fn use_scratch(&mut self, bytes: u32) {
        self.shared_bytes = self.shared_bytes.max(bytes.next_multiple_of(16));
        self.scratch_in_rings |= self.rings_open;
    }

    /// After a loop that copies into rings: every thread's copies have landed (the last
    /// iterations' copies of tiles past the end are zero fills still in flight) and, after
    /// the barrier, every warp has read its last slot, so the rings' memory is free.
    pub(super) fn close_rings(&mut self) {
        self.emit(Inst::CpAsyncWait { pending: 0 });
        self.emit(Inst::BarSync { id: 0 });
        self.rings_open = false;
    }

    /// Whether the rings share the buffer's start with the scratch: there are rings, and
    /// no scratch use fell while they were in use.
    pub(super) fn rings_share_scratch(&self) -> bool {
        self.rings_base.is_some() && !self.scratch_in_rings
    }

    /// At the end of the lowering (after the staged buffers are placed): the rings go at
    /// the buffer's start (sharing it with the scratch, `place_staging` then left room
    /// for them) or last, and the program's shared memory covers them.
    pub(super) fn place_rings(&mut self) {
        let Some((_, at)) = self.rings_base else { return };
        // The rings raise the program's shared memory last.
        self.stage_site = self.ring_site.or(self.stage_site);
        let align = if self.rings_swizzled { SWIZZLE_ALIGN } else { 16 };
        self.shared_align = self.shared_align.max(align);
        let base = if self.rings_share_scratch() { 0 } else { self.shared_bytes.next_multiple_of(align) };
        if let Inst::Mov { src, .. } = &mut self.prologue[at] {
            *src = Operand::Int(i64::from(base));
        }
        self.shared_bytes = self.shared_bytes.max(base + self.ring_bytes);
    }
}

/// Whether every use of `v` (a `ring_read`) is an operand of a tensor-core `dot` that can
/// read its fragments from the slot (`a`, or `b` for 16-bit and tf32 inputs: an `i8` `b`
/// is staged transposed), or a transpose such `dot`s read through (`transposed_operand`).
/// A function of the layouts alone, so the layouts text shows the lowering's choice.
pub(crate) fn read_in_place(k: &Kernel, layouts: &[Option<Layout>], v: Value) -> bool {
    let mut uses = 0;
    for (id, x) in operand_reads::readers(k, layouts, v) {
        let op = k.op(id);
        if matches!(op.kind, OpKind::Permute { .. }) && transposed_operand(k, layouts, op.results[0]).is_some() {
            uses += 1;
            continue;
        }
        let OpKind::Dot { a, b, acc, .. } = &op.kind else { return false };
        let fits = match dot_input(k, layouts, op) {
            Some(MmaInput::S8) => *a == x && *b != x,
            Some(_) => true,
            None => false,
        };
        if !fits || *acc == x {
            return false;
        }
        uses += 1;
    }
    uses > 0
}

/// How the slots of ring `ring`, holding `shape` tiles of `ty`, lay out their rows: as the
/// `wgmma` plan has it for a ring a `wgmma` reads (in panels where only `wgmma`s read it,
/// `wgmma.rs`), else swizzled or padded. The lowering and the layouts text both ask here.
pub(crate) fn ring_slot_layout(wgmma: &WgmmaPlan, ring: u32, shape: &[usize], ty: Ty) -> SlotLayout {
    wgmma.rings.get(&ring).copied().unwrap_or_else(|| SlotLayout::of(shape, ty))
}

/// [`ring_slot_layout`] of the ring the `ring_read` `v` reads.
pub(crate) fn slot_layout(k: &Kernel, wgmma: &WgmmaPlan, v: Value) -> SlotLayout {
    let shape = k.shape(v).dims();
    match k.def_op(v).map(|o| &o.kind) {
        Some(OpKind::RingRead { ring, .. }) => ring_slot_layout(wgmma, *ring, shape, ty_of(k.dtype(v))),
        _ => SlotLayout::of(shape, ty_of(k.dtype(v))),
    }
}

/// Row `row` with the low `rotate` bits of its 8-row group index rotated left by one
/// ([`SlotLayout::Panels`]).
pub(crate) fn rotate_groups(row: usize, rotate: u32) -> usize {
    if rotate == 0 {
        return row;
    }
    let mask = (1 << rotate) - 1;
    let g = row >> 3;
    let low = g & mask;
    let moved = ((low << 1) | (low >> (rotate - 1))) & mask;
    (((g & !mask) | moved) << 3) | (row & 7)
}
