//! Atomics: one `atom` per element, issued by the element's owner only (as stores are:
//! a replicated element must be updated once), masked through the guard. The old values
//! reach the threads that hold copies of an element through shared memory, when the
//! result is used. Float max/min use Triton's sign-split encoding
//! ([`AtomKind::of`]): two guarded integer atomics, one of which runs.

use super::{Lowerer, ty_of};
use crate::backend::ptx::PtxError;
use crate::backend::ptx::lir::{AtomOp, BinOp, Cmp, Guard, Inst, Operand, Reg, Ty};
use crate::ir::{AtomicOp, Op, Scope, Sem, Value, cas_accepts};
use crate::semantics::atomic::AtomKind;

/// The most shared memory the old-value broadcast may take (the static limit per CTA).
const MAX_BROADCAST_BYTES: usize = 48 * 1024;

impl Lowerer<'_> {
    pub(super) fn atomic_rmw(
        &mut self,
        op: &Op,
        aop: AtomicOp,
        ptr: Value,
        value: Value,
        mask: Option<Value>,
        (sem, scope): (Sem, Scope),
    ) -> Result<Vec<Operand>, PtxError> {
        let elem = self.k.dtype(value).scalar();
        let Some((clear, set)) = elem.and_then(|e| AtomKind::of(aop, e)) else {
            return Err(self.err(
                op.loc,
                format!("`{}` on {} is not supported by the PTX back end", aop.name(), self.k.dtype(value)),
                "use a 32- or 64-bit integer (or f32 for add, max, min, xchg)",
            ));
        };
        let ty = ty_of(self.k.dtype(value));
        let owner = self.atomic_owner(ptr);
        let (ptrs, vals) = (self.val(ptr)?, self.val(value)?);
        let masks = mask.map(|m| self.val(m)).transpose()?;
        let mut olds = Vec::with_capacity(ptrs.len());
        for i in 0..ptrs.len() {
            let m = masks.as_ref().map(|m| self.reg(m[i], Ty::Pred));
            let guard = self.and_pred(m, owner);
            let addr = self.reg(ptrs[i], Ty::I64);
            let old = if clear == set {
                let src = self.reg(vals[i], ty);
                self.atom(guard, AtomOp::Rmw(clear), ty, (sem, scope), addr, src)
            } else {
                self.float_minmax(guard, (clear, set), (sem, scope), addr, vals[i])
            };
            olds.push(old);
        }
        self.broadcast_old(op, ptr, owner, ty, olds)
    }

    pub(super) fn atomic_cas(
        &mut self,
        op: &Op,
        ptr: Value,
        cmp: Value,
        value: Value,
        order: (Sem, Scope),
    ) -> Result<Vec<Operand>, PtxError> {
        if !self.k.dtype(value).scalar().is_some_and(cas_accepts) {
            return Err(self.err(
                op.loc,
                format!("`atomic_cas` on {} is not supported by the PTX back end", self.k.dtype(value)),
                "use 32- or 64-bit elements",
            ));
        }
        let ty = ty_of(self.k.dtype(value));
        let owner = self.atomic_owner(ptr);
        let (ptrs, cmps, vals) = (self.val(ptr)?, self.val(cmp)?, self.val(value)?);
        let mut olds = Vec::with_capacity(ptrs.len());
        for i in 0..ptrs.len() {
            let addr = self.reg(ptrs[i], Ty::I64);
            let cmp = self.reg(cmps[i], ty);
            let src = self.reg(vals[i], ty);
            olds.push(self.atom(owner, AtomOp::Cas { cmp }, ty, order, addr, src));
        }
        self.broadcast_old(op, ptr, owner, ty, olds)
    }

    /// The threads that issue the atomics on `ptr`'s elements: the owners of their first
    /// copies (`tid == 0` for a scalar); `None` when every thread owns its elements.
    fn atomic_owner(&mut self, ptr: Value) -> Option<Reg> {
        match self.geometry(ptr) {
            Some(g) => self.owner(&g, None),
            None => Some(self.scalar_owner()),
        }
    }

    /// One guarded `atom` into a new register; where the guard is false the register holds
    /// 0 (the interpreter's value for lanes that issue nothing).
    fn atom(&mut self, guard: Option<Reg>, op: AtomOp, ty: Ty, (sem, scope): (Sem, Scope), addr: Reg, src: Reg) -> Reg {
        let dst = self.new_reg(ty);
        if guard.is_some() {
            let zero = if ty == Ty::F32 { Operand::F32(0.0) } else { Operand::Int(0) };
            self.emit(Inst::Mov { ty, dst, src: zero });
        }
        let guard = guard.map(|pred| Guard { pred, negate: false });
        self.emit(Inst::Atom { guard, op, ty, sem, scope, dst, addr, src });
        dst
    }

    /// Float max/min on the bits: `clear` for an operand whose sign bit is clear, `set` for
    /// one whose sign bit is set (integer atomics on `I32` registers); the old bits move back
    /// to an `F32` register.
    fn float_minmax(
        &mut self,
        guard: Option<Reg>,
        (clear, set): (AtomKind, AtomKind),
        order: (Sem, Scope),
        addr: Reg,
        value: Operand,
    ) -> Reg {
        let f = self.reg(value, Ty::F32);
        let bits = self.new_reg(Ty::I32);
        self.emit(Inst::Mov { ty: Ty::I32, dst: bits, src: f.into() });
        let negative = self.setp(Cmp::Lt, Ty::I32, bits.into(), Operand::Int(0));
        let positive = self.new_reg(Ty::Pred);
        self.emit(Inst::Not { dst: positive, src: negative });
        let (g_clear, g_set) = (self.and_pred(guard, Some(positive)), self.and_pred(guard, Some(negative)));
        // One of the two runs where the guard holds; both write the same register.
        let old = self.new_reg(Ty::I32);
        self.emit(Inst::Mov { ty: Ty::I32, dst: old, src: Operand::Int(0) });
        let (sem, scope) = order;
        for (g, kind) in [(g_clear, clear), (g_set, set)] {
            let guard = g.map(|pred| Guard { pred, negate: false });
            self.emit(Inst::Atom { guard, op: AtomOp::Rmw(kind), ty: Ty::I32, sem, scope, dst: old, addr, src: bits });
        }
        let out = self.new_reg(Ty::F32);
        self.emit(Inst::Mov { ty: Ty::I32, dst: out, src: old.into() });
        out
    }

    /// The old values in every thread that holds an element: when only owners issued the
    /// atomics and the result is used, each owner writes its old value to the element's
    /// shared slot (row-major index x element size), `bar.sync`, every thread reads its
    /// elements' slots, `bar.sync` (the buffer is reused by later ops).
    fn broadcast_old(
        &mut self,
        op: &Op,
        ptr: Value,
        owner: Option<Reg>,
        ty: Ty,
        olds: Vec<Reg>,
    ) -> Result<Vec<Operand>, PtxError> {
        let used = op.results.iter().any(|r| self.info.uses(*r) > 0);
        let Some(writer) = owner.filter(|_| used) else {
            return Ok(olds.into_iter().map(Operand::Reg).collect());
        };
        let size = self.k.dtype(op.results[0]).scalar().map_or(4, |s| s.size_bytes() as usize);
        let numel = self.k.shape(ptr).numel();
        let bytes = numel * size;
        if bytes > MAX_BROADCAST_BYTES {
            return Err(self.err(
                op.loc,
                format!("the old values of this atomic ({bytes} bytes) do not fit the {MAX_BROADCAST_BYTES} bytes of shared memory that hand them to every thread"),
                "use a smaller block, or do not use the atomic's result",
            ));
        }
        self.use_scratch(bytes as u32);
        let base = self.smem_base();
        let slots: Vec<Reg> = (0..olds.len()).map(|i| self.slot_of(ptr, i, size, base)).collect();
        let guard = Some(Guard { pred: writer, negate: false });
        for (old, slot) in olds.iter().zip(&slots) {
            self.emit(Inst::StShared { guard, ty, src: *old, addr: *slot, offset: 0 });
        }
        self.emit(Inst::BarSync { id: 0 });
        let mut out = Vec::with_capacity(olds.len());
        for slot in slots {
            let dst = self.new_reg(ty);
            self.emit(Inst::LdShared { ty, dst, addr: slot, offset: 0 });
            out.push(dst.into());
        }
        self.emit(Inst::BarSync { id: 0 });
        Ok(out)
    }

    /// The shared address of register `i`'s element of `ptr`: `base + row-major index *
    /// size` (`base` for a scalar).
    fn slot_of(&mut self, ptr: Value, i: usize, size: usize, base: Reg) -> Reg {
        let mut index = Operand::Int(0);
        if let Some(geo) = self.geometry(ptr) {
            for (d, k_d) in geo.multi(i).into_iter().enumerate() {
                if geo.parent[d] == 1 {
                    continue;
                }
                let stride: usize = geo.parent[d + 1..].iter().product();
                let c = self.coord(&geo, d, k_d);
                let term = match c {
                    Operand::Int(x) => Operand::Int(x * stride as i64),
                    c => self.bin(BinOp::Mul, Ty::I32, c, Operand::Int(stride as i64)),
                };
                index = match (index, term) {
                    (Operand::Int(a), Operand::Int(b)) => Operand::Int(a + b),
                    (a, b) => self.bin(BinOp::Add, Ty::I32, a, b),
                };
            }
        }
        let offset = match index {
            Operand::Int(x) => Operand::Int(x * size as i64),
            x => self.bin(BinOp::Mul, Ty::I32, x, Operand::Int(size as i64)),
        };
        let addr = self.bin(BinOp::Add, Ty::I32, base.into(), offset);
        self.reg(addr, Ty::I32)
    }
}
