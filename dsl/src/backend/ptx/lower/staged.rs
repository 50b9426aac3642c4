//! Staged loads (`load` with `staged`, `lang::load_staged`): the data moves through shared
//! memory asynchronously, so no register holds it while it is in flight.
//!
//! At the op, each thread issues one `cp.async.cg.shared.global` per 16-byte vector it
//! loads (source size 0 for a masked-off vector: zero fill, nothing read) and commits the
//! group. The value is *pending*: [`Lowerer::materialize_reads`] makes it registers right
//! before the first op that reads it (the `yield` of a loop body included, which is how a
//! prefetch carried to the next iteration gets its wait after this iteration's work):
//! `cp.async.wait_group 0`, an `ld.shared.v4` per vector, then `other` where the mask is
//! false (the zero fill already is a zero `other`).
//!
//! Slots: vector `k` of thread `t` is at byte `(k * threads + t) * 16` of the op's buffer,
//! so a warp's `ld.shared.v4` reads 512 consecutive bytes (no bank conflict). Every thread
//! reads back only the slots it wrote, and `cp.async.wait_group` makes a thread's own
//! copies visible to it (PTX ISA, cp.async.wait_group): no barrier is needed. Each op has
//! its own buffer while it is pending (a buffer is reused once its value is read back),
//! placed after the scratch the other lowerings share (`smem`'s first `shared_bytes`),
//! because it stays live while reductions use that scratch. Accesses that are not 16-byte vectors (strided, unaligned, narrower types)
//! are plain loads, and say so in the access decision.

use super::{Lowerer, ty_of};
use crate::backend::ptx::lir::{BinOp, Group, Inst, Operand, Reg, Ty};
use crate::backend::ptx::{AccessKind, PtxError};
use crate::ir::{Block, Kernel, Op, Value};

/// Bytes one `cp.async` copies (the only size `.cg` takes).
const STAGE_BYTES: usize = 16;

/// A staged value whose copies are in flight: what its materialization needs.
#[derive(Clone, Debug)]
pub(super) struct Pending {
    op: Op,
    ty: Ty,
    /// Elements per 16-byte vector.
    width: usize,
    /// Byte offset of the thread's vector 0 from the thread's staging base; vector `k` is
    /// `k * threads * 16` further.
    offset: u32,
    /// The buffer's size (all threads' vectors).
    bytes: u32,
    vectors: usize,
    /// Per vector, the mask's predicate, when `other` must replace the zero fill.
    guards: Option<Vec<Reg>>,
    others: Vec<Operand>,
}

impl Lowerer<'_> {
    pub(super) fn load_staged(
        &mut self,
        op: &Op,
        ptr: Value,
        mask: Option<Value>,
        other: Option<Value>,
    ) -> Result<(), PtxError> {
        let res = op.results[0];
        let ty = ty_of(self.k.dtype(res));
        if ty == Ty::Pred {
            return Err(self.err(op.loc, "loads of i1 are not supported by the PTX back end", "load i32 and compare"));
        }
        let width = self.access_width(op, AccessKind::Load, ptr, mask);
        let vector_bytes = width * ty.size_bytes() as usize;
        if vector_bytes != STAGE_BYTES {
            self.note_access(format!(
                "not staged: {vector_bytes}-byte vectors (cp.async copies 16), loaded into registers"
            ));
            let elems = self.load_width(op, (ptr, mask, other), width)?;
            self.set(res, elems);
            return Ok(());
        }
        let ptrs = self.val(ptr)?;
        let vectors = ptrs.len() / width;
        let threads = self.num_threads();
        let bytes = vectors * threads * STAGE_BYTES;
        let buffer = self.stage_buffer(bytes);
        if buffer + bytes as u32 > self.stage_bytes {
            self.stage_bytes = buffer + bytes as u32;
            self.stage_site = Some(op.loc);
        }
        let base = self.stage_thread_base();
        self.note_access(format!(
            "staged: cp.async of {vectors} x 16 bytes per thread into a {bytes}-byte shared buffer"
        ));
        let masks = mask.map(|m| self.val(m)).transpose()?;
        let mut preds = Vec::with_capacity(vectors);
        for k in 0..vectors {
            let c = k * width;
            let src = self.reg(ptrs[c], Ty::I64);
            // The mask is constant across the vector (`vectorize` proved it): a false one
            // copies 0 bytes, so the slot is zeros and the address is never read.
            let src_size = match &masks {
                Some(m) => {
                    let pred = self.reg(m[c], Ty::Pred);
                    preds.push(pred);
                    let size = self.new_reg(Ty::I32);
                    self.emit(Inst::Selp {
                        ty: Ty::I32,
                        dst: size,
                        a: Operand::Int(STAGE_BYTES as i64),
                        b: Operand::Int(0),
                        cond: pred,
                    });
                    Operand::Reg(size)
                }
                None => Operand::Int(STAGE_BYTES as i64),
            };
            let offset = buffer + (k * threads * STAGE_BYTES) as u32;
            self.emit(Inst::CpAsync { guard: None, dst: base, offset, src, src_size });
        }
        self.emit(Inst::CpAsyncCommit);
        let others = other.map(|o| self.val(o)).transpose()?.unwrap_or_default();
        // The zero fill is the value of a masked-off element unless `other` says otherwise.
        let guards = (mask.is_some() && others.iter().any(|o| !is_zero_bits(*o))).then_some(preds);
        self.pending.insert(
            res,
            Pending { op: op.clone(), ty, width, offset: buffer, bytes: bytes as u32, vectors, guards, others },
        );
        Ok(())
    }

    /// Materializes the pending staged values `op` reads, itself or in its regions, with
    /// one wait for all of them.
    pub(super) fn materialize_reads(&mut self, op: &Op) {
        if self.pending.is_empty() {
            return;
        }
        let mut reads = Vec::new();
        collect_reads(self.k, op, &mut reads);
        let mut due: Vec<Value> = reads.into_iter().filter(|v| self.pending.contains_key(v)).collect();
        due.sort();
        due.dedup();
        if due.is_empty() {
            return;
        }
        self.emit(Inst::CpAsyncWait { pending: 0 });
        for v in due {
            // `due` holds pending values only.
            let Some(p) = self.pending.remove(&v) else { continue };
            self.emit(Inst::Group(Group::at(
                format!("{v} = {} (read back from shared memory)", p.op.kind.name()),
                p.op.loc,
            )));
            let elems = self.read_back(&p);
            self.set(v, elems);
        }
    }

    fn read_back(&mut self, p: &Pending) -> Vec<Operand> {
        let base = self.stage_thread_base();
        let threads = self.num_threads();
        let mut out = Vec::with_capacity(p.vectors * p.width);
        for k in 0..p.vectors {
            let offset = p.offset + (k * threads * STAGE_BYTES) as u32;
            let mut elems: Vec<Operand> = Vec::with_capacity(p.width);
            if matches!(p.ty, Ty::F16 | Ty::BF16) {
                // Eight 16-bit elements as four words, each unpacked (low half first).
                let words: Vec<Reg> = (0..4).map(|_| self.new_reg(Ty::U32)).collect();
                self.emit(Inst::LdSharedVec { ty: Ty::U32, dsts: words.clone(), addr: base, offset });
                for w in words {
                    let (lo, hi) = (self.new_reg(p.ty), self.new_reg(p.ty));
                    self.emit(Inst::Unpack { lo, hi, src: w });
                    elems.extend([Operand::Reg(lo), Operand::Reg(hi)]);
                }
            } else {
                let dsts: Vec<Reg> = (0..p.width).map(|_| self.new_reg(p.ty)).collect();
                self.emit(Inst::LdSharedVec { ty: p.ty, dsts: dsts.clone(), addr: base, offset });
                elems.extend(dsts.into_iter().map(Operand::Reg));
            }
            if let Some(guards) = &p.guards {
                for (j, e) in elems.iter_mut().enumerate() {
                    let dst = self.new_reg(p.ty);
                    let b = p.others[k * p.width + j];
                    self.emit(Inst::Selp { ty: p.ty, dst, a: *e, b, cond: guards[k] });
                    *e = Operand::Reg(dst);
                }
            }
            out.extend(elems);
        }
        out
    }

    /// The byte offset from the staging base of a new buffer of `bytes`: the lowest one
    /// clear of the buffers of the staged values still pending. A value's buffer is free
    /// once it is read back, which comes before any later op in program order, so a loop's
    /// prefetch reuses the buffer of the load that filled the loop's first carried value.
    fn stage_buffer(&self, bytes: usize) -> u32 {
        let mut live: Vec<(u32, u32)> = self.pending.values().map(|p| (p.offset, p.offset + p.bytes)).collect();
        live.sort_unstable();
        let mut at = 0;
        for (start, end) in live {
            if at + bytes as u32 <= start {
                break;
            }
            at = at.max(end);
        }
        at
    }

    /// `smem + scratch + tid * 16` (prologue): the scratch size is known only when the
    /// lowering ends, so the add's immediate is patched then ([`Lowerer::place_staging`]).
    fn stage_thread_base(&mut self) -> Reg {
        if let Some((r, _)) = self.stage_base {
            return r;
        }
        let smem = self.smem_base();
        let tid = self.tid();
        let t16 = self.new_reg(Ty::I32);
        self.emit_pro(Inst::Bin { op: BinOp::Shl, ty: Ty::I32, dst: t16, a: tid.into(), b: Operand::Int(4) });
        let base = self.new_reg(Ty::I32);
        self.emit_pro(Inst::Bin { op: BinOp::Add, ty: Ty::I32, dst: base, a: smem.into(), b: t16.into() });
        let at = self.prologue.len();
        let r = self.new_reg(Ty::I32);
        self.emit_pro(Inst::Bin { op: BinOp::Add, ty: Ty::I32, dst: r, a: base.into(), b: Operand::Int(0) });
        self.stage_base = Some((r, at));
        r
    }

    /// At the end of the lowering: the staged buffers go after the scratch, and the
    /// program's shared memory is both.
    pub(super) fn place_staging(&mut self) {
        let Some((_, at)) = self.stage_base else { return };
        // Rings that share the scratch's memory (`ring.rs`) extend it.
        let rings = if self.rings_share_scratch() { self.ring_bytes } else { 0 };
        let scratch = self.shared_bytes.max(rings).next_multiple_of(16);
        if let Inst::Bin { b, .. } = &mut self.prologue[at] {
            *b = Operand::Int(i64::from(scratch));
        }
        self.shared_bytes = scratch + self.stage_bytes;
    }

    /// Adds `what` to the reason of the access decision just recorded (a staged load's or
    /// a ring copy's way through shared memory).
    pub(super) fn note_access(&mut self, what: String) {
        if let Some(d) = self.decisions.accesses.last_mut() {
            d.reason = format!("{}; {what}", d.reason);
        }
    }
}

/// The values `op` reads, its regions' ops included.
fn collect_reads(k: &Kernel, op: &Op, out: &mut Vec<Value>) {
    out.extend(op.kind.operands());
    for block in op.kind.regions() {
        collect_block_reads(k, block, out);
    }
}

fn collect_block_reads(k: &Kernel, block: &Block, out: &mut Vec<Value>) {
    for &id in &block.ops {
        collect_reads(k, k.op(id), out);
    }
}

/// Whether an immediate `other` equals the zero fill (all bits 0); a register never does.
fn is_zero_bits(o: Operand) -> bool {
    match o {
        Operand::Int(v) => v == 0,
        Operand::F32(x) => x.to_bits() == 0,
        Operand::F64(x) => x.to_bits() == 0,
        Operand::Reg(_) => false,
    }
}
