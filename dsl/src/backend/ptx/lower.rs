//! Block IR to [`super::lir`]: every block value becomes, in each thread, the registers of
//! the elements that thread owns ([`super::layout`]); every op becomes the per-element
//! instructions over those lists. Reductions (in-thread, shuffles, shared memory) are in
//! `lower/reduce.rs`; loads and stores (vector width, masks, owners) in `lower/memory.rs`.
//!
//! **Invariant:** the lowering never emits an instruction it cannot prove valid: ops or
//! types it does not handle, layouts it cannot build and blocks over the register budget
//! are [`PtxError`]s naming the kernel and the op's line.

mod address;
mod atomics;
mod bits;
mod combine;
mod control;
mod convert;
mod dce;
mod exchange;
mod layout_ops;
mod math;
mod memory;
mod reduce;
mod remat;
mod scan;
mod staged;
mod unroll;
mod wide;
mod wide_mul;

use std::collections::HashMap;

use super::axis_info::AxisInfoMap;
use super::layout::{self, Blocked, Geometry, Layout, MAX_REGS_PER_VALUE};
use super::lir::{BinOp, Cmp, Group, Inst, LayoutNote, Operand, Param, ParamTy, Program, Reg, Special, Ty};
use super::{Decisions, PtxError, PtxOptions, coalesce};
use crate::diag::Code;
use crate::ir::{
    BinaryOp, Block, CmpPred, Constant, DType, Effect, Kernel, Op, OpId, OpKind, ParamKind, PropagateNan, ScalarType,
    SourceLoc, Value,
};
use crate::semantics::bits::shifts_arithmetically;
use crate::verify::KernelInfo;

pub(super) fn lower_kernel(k: &Kernel, info: &KernelInfo, options: &PtxOptions) -> Result<Program, PtxError> {
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
    if options.ptx_version < options.arch.min_ptx_version() {
        let (a, b) = options.arch.min_ptx_version();
        return Err(PtxError::new(
            Code::PtxUnsupported,
            &k.name,
            k.loc,
            format!("PTX version {}.{} cannot target {}", options.ptx_version.0, options.ptx_version.1, options.arch),
            format!("use .version {a}.{b} or later (7.8 works for every supported target)"),
        ));
    }
    let threads = nw as usize * 32;
    let ai = AxisInfoMap::compute(k);
    let rank = k.values.iter().map(|v| v.ty.shape.rank()).max().unwrap_or(0).max(1);
    let anchor = k
        .values
        .iter()
        .filter(|v| v.ty.shape.rank() == rank)
        .map(|v| v.ty.shape.dims().to_vec())
        .max_by_key(|s| s.iter().product::<usize>())
        .unwrap_or_else(|| vec![1; rank]);
    let (enc, layout_decision) = coalesce::coalesced_layout(k, &ai, &anchor, nw as usize);
    let assignment = layout::assign(k, &enc, &anchor);
    let layouts = &assignment.layouts;

    let mut notes = Vec::new();
    for (i, vd) in k.values.iter().enumerate() {
        let Some(l) = &layouts[i] else { continue };
        let geo = l.geometry(&enc, vd.ty.shape.dims());
        let n = geo.num_regs();
        if n > MAX_REGS_PER_VALUE {
            let loc = k.def_op(Value(i as u32)).map_or(k.loc, |o| o.loc);
            return Err(PtxError::new(
                Code::PtxRegisterBudget,
                &k.name,
                loc,
                format!(
                    "block {} needs {n} registers per thread with num_warps = {nw} (the budget is {MAX_REGS_PER_VALUE} per value)",
                    vd.ty
                ),
                "use a smaller block (loop over the row in blocks) or more warps",
            ));
        }
        if info.uses(Value(i as u32)) > 0 {
            notes.push(LayoutNote {
                value: Value(i as u32).to_string(),
                ty: vd.ty.to_string(),
                layout: l.describe(&enc),
                regs_per_thread: n,
            });
        }
    }

    let mut header = vec![format!("rtriton PTX for kernel `{}`", k.name)];
    header.push(format!("specialization: {}", k.spec));
    if !k.constexprs.is_empty() {
        let cs: Vec<String> = k.constexprs.iter().map(|(n, v)| format!("{n} = {v}")).collect();
        header.push(format!("constexprs: {}", cs.join(", ")));
    }
    header.push(format!("num_warps = {nw}; #blocked = {enc}"));

    let mut l = Lowerer {
        k,
        info,
        ai: &ai,
        enc: &enc,
        layouts,
        conversions: &assignment.conversions,
        overrides: HashMap::new(),
        converted: HashMap::new(),
        regs: Vec::new(),
        prologue: Vec::new(),
        out: Vec::new(),
        vals: vec![None; k.values.len()],
        tid: None,
        lane: None,
        warp: None,
        tpos: HashMap::new(),
        bases: HashMap::new(),
        owners: HashMap::new(),
        fields: HashMap::new(),
        smem_base: None,
        shared_bytes: 0,
        pending: HashMap::new(),
        stage_bytes: 0,
        stage_site: None,
        stage_base: None,
        sign_extended: HashMap::new(),
        decisions: Decisions { layout: Some(layout_decision), ..Decisions::default() },
    };
    l.block(&k.body)?;
    l.place_staging();
    let mut body = std::mem::take(&mut l.prologue);
    body.append(&mut l.out);
    dce::eliminate_dead(&mut body);
    Ok(Program {
        entry: k.name.clone(),
        params: k
            .params
            .iter()
            .map(|p| Param {
                name: p.name.to_string(),
                kind: match p.kind {
                    ParamKind::Ptr(_) => ParamTy::Ptr,
                    ParamKind::Scalar(ScalarType::I64) => ParamTy::I64,
                    ParamKind::Scalar(ScalarType::F32) => ParamTy::F32,
                    ParamKind::Scalar(_) => ParamTy::I32,
                },
            })
            .collect(),
        target: options.arch.to_string(),
        ptx_version: options.ptx_version,
        threads_per_cta: threads as u32,
        min_ctas_per_sm: options.min_ctas_per_sm,
        shared_bytes: l.shared_bytes,
        shared_site: l.stage_site,
        regs: l.regs,
        body,
        layouts: notes,
        header,
        decisions: l.decisions,
    })
}

/// The register type of a block-IR element type (pointers are 64-bit addresses).
pub(super) fn ty_of(d: DType) -> Ty {
    match d {
        DType::Ptr(_) => Ty::I64,
        DType::Scalar(ScalarType::Bool) => Ty::Pred,
        DType::Scalar(ScalarType::I32) => Ty::I32,
        DType::Scalar(ScalarType::I64) => Ty::I64,
        DType::Scalar(ScalarType::F32) => Ty::F32,
        DType::Scalar(ScalarType::U32) => Ty::U32,
        DType::Scalar(ScalarType::U64) => Ty::U64,
        DType::Scalar(ScalarType::F64) => Ty::F64,
        DType::Scalar(ScalarType::F16) => Ty::F16,
        DType::Scalar(ScalarType::BF16) => Ty::BF16,
        DType::Scalar(ScalarType::I8) => Ty::S8,
        DType::Scalar(ScalarType::U8) => Ty::U8,
        DType::Scalar(ScalarType::I16) => Ty::S16,
    }
}

pub(super) struct Lowerer<'a> {
    pub k: &'a Kernel,
    info: &'a KernelInfo,
    pub ai: &'a AxisInfoMap,
    pub enc: &'a Blocked,
    layouts: &'a [Option<Layout>],
    /// Operands an op reads in another layout than their own (`layout::assign`).
    conversions: &'a HashMap<(OpId, Value), Layout>,
    /// While one op is lowered: its operands read converted, in the layout it needs.
    overrides: HashMap<Value, (Layout, Vec<Operand>)>,
    /// Conversions already made in the current block (or an enclosing one): (value,
    /// embedding) -> elements. Dropped at the end of a loop body, whose registers are not
    /// written when the loop runs no iteration.
    converted: HashMap<(Value, Vec<usize>), Vec<Operand>>,
    regs: Vec<Ty>,
    /// Thread-position math and other values every later instruction may use; runs first
    /// so nothing defined in a loop body is read after a loop that ran zero times.
    prologue: Vec<Inst>,
    out: Vec<Inst>,
    /// Each value's element list (one operand per element the thread owns).
    vals: Vec<Option<Vec<Operand>>>,
    tid: Option<Reg>,
    lane: Option<Reg>,
    warp: Option<Reg>,
    /// `t_d` per parent dim.
    tpos: HashMap<usize, Reg>,
    /// The thread's coordinate base per (parent dim, block size along it).
    bases: HashMap<(usize, usize), Operand>,
    /// Bit fields of tid already extracted: (source, shift, n).
    fields: HashMap<(Reg, u32, usize), Operand>,
    /// Owner predicates per (parent shape, excluded dim).
    owners: HashMap<(Vec<usize>, Option<usize>), Option<Reg>>,
    smem_base: Option<Reg>,
    /// Shared scratch bytes of the exchanges and reductions (reused op after op); the
    /// staged loads' buffers follow it (`lower/staged.rs`).
    pub shared_bytes: u32,
    /// Staged loads whose copies are in flight, materialized before their first use.
    pending: HashMap<Value, staged::Pending>,
    /// Bytes of the staged buffers (their high-water mark).
    stage_bytes: u32,
    /// The staged load that raised `stage_bytes` last.
    stage_site: Option<SourceLoc>,
    /// The thread's staging base register and the prologue index of the add whose
    /// immediate (the scratch size) is patched when the lowering ends.
    stage_base: Option<(Reg, usize)>,
    pub decisions: Decisions,
    /// `cvt.s64.s32` results: 64-bit register -> the 32-bit register it extends
    /// (`lower/wide_mul.rs`).
    sign_extended: HashMap<Reg, Reg>,
}

impl Lowerer<'_> {
    /// An op or dtype this back end does not lower ([`Code::PtxUnsupported`]).
    pub fn err(&self, loc: SourceLoc, msg: impl Into<String>, help: impl Into<String>) -> PtxError {
        PtxError::new(Code::PtxUnsupported, &self.k.name, loc, msg, help)
    }

    pub fn new_reg(&mut self, ty: Ty) -> Reg {
        self.regs.push(ty);
        Reg(self.regs.len() as u32 - 1)
    }

    pub fn emit(&mut self, i: Inst) {
        self.out.push(i);
    }

    fn emit_pro(&mut self, i: Inst) {
        self.prologue.push(i);
    }

    pub fn val(&self, v: Value) -> Vec<Operand> {
        if let Some((_, elems)) = self.overrides.get(&v) {
            return elems.clone();
        }
        self.vals[v.index()].clone().expect("operands are lowered before their uses (SSA order)")
    }

    fn set(&mut self, v: Value, elems: Vec<Operand>) {
        self.vals[v.index()] = Some(elems);
    }

    /// The geometry of value `v` (`None` for scalars).
    pub fn geometry(&self, v: Value) -> Option<Geometry> {
        self.layout(v).map(|l| l.geometry(self.enc, self.k.shape(v).dims()))
    }

    /// `v`'s layout (the converted one while an op that reads it converted is lowered).
    pub fn layout(&self, v: Value) -> Option<&Layout> {
        match self.overrides.get(&v) {
            Some((l, _)) => Some(l),
            None => self.layouts[v.index()].as_ref(),
        }
    }

    /// Number of elements a thread holds of `v`.
    fn count(&self, v: Value) -> usize {
        self.geometry(v).map_or(1, |g| g.num_regs())
    }

    /// `op` in a register of type `ty` (immediates are moved into a new one).
    pub fn reg(&mut self, op: Operand, ty: Ty) -> Reg {
        match op {
            Operand::Reg(r) => r,
            imm => {
                let dst = self.new_reg(ty);
                self.emit(Inst::Mov { ty, dst, src: imm });
                dst
            }
        }
    }

    pub fn bin(&mut self, op: BinOp, ty: Ty, a: Operand, b: Operand) -> Operand {
        let commutes = op.commutes();
        // Identities: x + 0, x - 0, x * 1, x << 0, x >> 0 (and 0 + x, 1 * x when `op` commutes).
        if let Some(id) = op.right_identity()
            && ty != Ty::F32
            && ty != Ty::F64
            && ty != Ty::Pred
        {
            if b == Operand::Int(id) {
                return a;
            }
            if a == Operand::Int(id) && commutes {
                return b;
            }
        }
        let (a, b) = match (a, b) {
            (Operand::Reg(_), _) => (a, b),
            (_, Operand::Reg(_)) if commutes => (b, a),
            // two immediates: materialize the first (operands, not an op kind)
            _ => (Operand::Reg(self.reg(a, ty)), b),
        };
        let dst = self.new_reg(ty);
        self.emit(Inst::Bin { op, ty, dst, a, b });
        Operand::Reg(dst)
    }

    pub fn setp(&mut self, cmp: Cmp, ty: Ty, a: Operand, b: Operand) -> Reg {
        let a = Operand::Reg(self.reg(a, ty));
        let dst = self.new_reg(Ty::Pred);
        self.emit(Inst::Setp { cmp, ty, dst, a, b });
        dst
    }

    pub fn and_pred(&mut self, a: Option<Reg>, b: Option<Reg>) -> Option<Reg> {
        match (a, b) {
            (Some(x), Some(y)) => {
                let dst = self.new_reg(Ty::Pred);
                self.emit(Inst::Bin { op: BinOp::And, ty: Ty::Pred, dst, a: x.into(), b: y.into() });
                Some(dst)
            }
            (x, None) => x,
            (None, y) => y,
        }
    }

    // ---- thread positions (all in the prologue) ----

    fn tid(&mut self) -> Reg {
        if let Some(r) = self.tid {
            return r;
        }
        let r = self.new_reg(Ty::I32);
        self.emit_pro(Inst::Group(Group::synthetic("thread position: tid, lane = tid % 32, warp = tid / 32")));
        self.emit_pro(Inst::ReadSpecial { dst: r, sreg: Special::TidX });
        self.tid = Some(r);
        r
    }

    pub fn lane(&mut self) -> Reg {
        if let Some(r) = self.lane {
            return r;
        }
        let tid = self.tid();
        let r = self.pro_i32(BinOp::And, tid, 31);
        self.lane = Some(r);
        r
    }

    pub fn warp(&mut self) -> Reg {
        if let Some(r) = self.warp {
            return r;
        }
        let tid = self.tid();
        let r = self.pro_i32(BinOp::ShrU, tid, 5);
        self.warp = Some(r);
        r
    }

    /// A new `I32` register holding `a op b`, computed in the prologue.
    fn pro_i32(&mut self, op: BinOp, a: Reg, b: i64) -> Reg {
        let r = self.new_reg(Ty::I32);
        self.emit_pro(Inst::Bin { op, ty: Ty::I32, dst: r, a: a.into(), b: Operand::Int(b) });
        r
    }

    /// `(src >> shift) & (n - 1)` in the prologue (n a power of two); `0` when `n == 1`.
    fn field(&mut self, src: Reg, shift: u32, n: usize) -> Operand {
        if n == 1 {
            return Operand::Int(0);
        }
        if let Some(f) = self.fields.get(&(src, shift, n)) {
            return *f;
        }
        // The field reaches the top of the source (lane: 5 bits; warp: log2 num_warps).
        let top = if Some(src) == self.lane { 32 } else { self.enc.warps_per_cta.iter().product::<usize>() };
        let mut cur = src;
        if shift > 0 {
            cur = self.pro_i32(BinOp::ShrU, cur, shift.into());
        }
        if (n << shift) < top {
            cur = self.pro_i32(BinOp::And, cur, n as i64 - 1);
        }
        self.fields.insert((src, shift, n), Operand::Reg(cur));
        Operand::Reg(cur)
    }

    /// The lane's position along parent dim `d` (`0..tpw_d`).
    pub fn lane_pos(&mut self, d: usize) -> Operand {
        let lane = self.lane();
        let (s, n) = (self.enc.lane_shift(d), self.enc.threads_per_warp[d]);
        self.field(lane, s, n)
    }

    /// The warp's position along parent dim `d` (`0..wpc_d`).
    pub fn warp_pos(&mut self, d: usize) -> Operand {
        let warp = self.warp();
        let (s, n) = (self.enc.warp_shift(d), self.enc.warps_per_cta[d]);
        self.field(warp, s, n)
    }

    /// `t_d = warp_d * tpw_d + lane_d`.
    fn thread_pos(&mut self, d: usize) -> Operand {
        if let Some(r) = self.tpos.get(&d) {
            return Operand::Reg(*r);
        }
        let l = self.lane_pos(d);
        let w = self.warp_pos(d);
        let tpw = self.enc.threads_per_warp[d] as i64;
        let t = match (w, l) {
            (Operand::Int(0), l) => l,
            (w, Operand::Int(0)) if tpw == 1 => w,
            (Operand::Reg(w), l) => {
                let r = self.new_reg(Ty::I32);
                let shift = tpw.trailing_zeros() as i64;
                self.emit_pro(Inst::Bin { op: BinOp::Shl, ty: Ty::I32, dst: r, a: w.into(), b: Operand::Int(shift) });
                if l == Operand::Int(0) {
                    Operand::Reg(r)
                } else {
                    let s = self.new_reg(Ty::I32);
                    self.emit_pro(Inst::Bin { op: BinOp::Or, ty: Ty::I32, dst: s, a: r.into(), b: l });
                    Operand::Reg(s)
                }
            }
            (w, _) => w,
        };
        if let Operand::Reg(r) = t {
            self.tpos.insert(d, r);
        }
        t
    }

    /// The thread's first coordinate along parent dim `d` for a block of `geo`:
    /// `(t_d mod distinct) * s_d` (see [`layout`]).
    fn coord_base(&mut self, geo: &Geometry, d: usize) -> Operand {
        let key = (d, geo.parent[d]);
        if let Some(b) = self.bases.get(&key) {
            return *b;
        }
        let t = self.thread_pos(d);
        let distinct = geo.distinct_threads(d, self.enc);
        let b = match t {
            Operand::Reg(t) if distinct > 1 => {
                let mut cur = t;
                if distinct < self.enc.threads_along(d) {
                    let r = self.new_reg(Ty::I32);
                    self.emit_pro(Inst::Bin {
                        op: BinOp::And,
                        ty: Ty::I32,
                        dst: r,
                        a: cur.into(),
                        b: Operand::Int(distinct as i64 - 1),
                    });
                    cur = r;
                }
                if geo.chunk[d] > 1 {
                    let r = self.new_reg(Ty::I32);
                    self.emit_pro(Inst::Bin {
                        op: BinOp::Shl,
                        ty: Ty::I32,
                        dst: r,
                        a: cur.into(),
                        b: Operand::Int(geo.chunk[d].trailing_zeros().into()),
                    });
                    cur = r;
                }
                Operand::Reg(cur)
            }
            // a dim with no thread or warp split starts at 0 (not an op kind)
            _ => Operand::Int(0),
        };
        self.bases.insert(key, b);
        b
    }

    /// The coordinate along parent dim `d` of register index `k_d` (an `I32` operand).
    pub fn coord(&mut self, geo: &Geometry, d: usize, k_d: usize) -> Operand {
        let base = self.coord_base(geo, d);
        let off = (geo.static_offset(d, k_d) % geo.parent[d]) as i64;
        match base {
            Operand::Int(b) => Operand::Int(b + off),
            b if off == 0 => b,
            b => self.bin(BinOp::Add, Ty::I32, b, Operand::Int(off)),
        }
    }

    /// True in the threads that hold the first copy of their elements of a block of `geo`
    /// (all dims but `skip`); `None` when every thread does.
    pub fn owner(&mut self, geo: &Geometry, skip: Option<usize>) -> Option<Reg> {
        let key = (geo.parent.clone(), skip);
        if let Some(o) = self.owners.get(&key) {
            return *o;
        }
        let mut pred = None;
        for d in 0..geo.parent.len() {
            if Some(d) == skip {
                continue;
            }
            let distinct = geo.distinct_threads(d, self.enc);
            if distinct < self.enc.threads_along(d) {
                let t = self.thread_pos(d);
                let Operand::Reg(t) = t else { continue };
                let p = self.new_reg(Ty::Pred);
                self.emit_pro(Inst::Setp {
                    cmp: Cmp::Lt,
                    ty: Ty::I32,
                    dst: p,
                    a: t.into(),
                    b: Operand::Int(distinct as i64),
                });
                pred = match pred {
                    None => Some(p),
                    Some(q) => {
                        let r = self.new_reg(Ty::Pred);
                        self.emit_pro(Inst::Bin { op: BinOp::And, ty: Ty::Pred, dst: r, a: q.into(), b: p.into() });
                        Some(r)
                    }
                };
            }
        }
        self.owners.insert(key, pred);
        pred
    }

    /// `tid == 0`: the one thread that writes a scalar.
    pub fn scalar_owner(&mut self) -> Reg {
        let key = (Vec::new(), None);
        if let Some(Some(o)) = self.owners.get(&key) {
            return *o;
        }
        let tid = self.tid();
        let p = self.new_reg(Ty::Pred);
        self.emit_pro(Inst::Setp { cmp: Cmp::Eq, ty: Ty::I32, dst: p, a: tid.into(), b: Operand::Int(0) });
        self.owners.insert(key, Some(p));
        p
    }

    /// The shared buffer's address (prologue).
    pub fn smem_base(&mut self) -> Reg {
        if let Some(r) = self.smem_base {
            return r;
        }
        let r = self.new_reg(Ty::I32);
        self.emit_pro(Inst::SharedBase { dst: r });
        self.smem_base = Some(r);
        r
    }

    // ---- ops ----

    fn block(&mut self, block: &Block) -> Result<(), PtxError> {
        let outer_conversions = self.converted.clone();
        for &id in &block.ops {
            let op = self.k.op(id);
            // The op table's effect says what may be skipped when its results are unused.
            let removable = match op.kind.effect() {
                // a `yield` is lowered by its loop (`for_loop`); what it hands out must be
                // registers by then
                Effect::Terminator => {
                    self.materialize_reads(op);
                    continue;
                }
                Effect::Pure | Effect::ProgramIndex | Effect::ReadsMemory => true,
                Effect::WritesMemory | Effect::ReadsWritesMemory | Effect::Region => false,
            };
            if removable && op.results.iter().all(|r| self.info.uses(*r) == 0) {
                continue;
            }
            self.materialize_reads(op);
            self.comment(op);
            self.convert_operands(id, op)?;
            self.op(op)?;
            self.overrides.clear();
        }
        self.converted = outer_conversions;
        Ok(())
    }

    fn comment(&mut self, op: &Op) {
        let results: Vec<String> = op.results.iter().map(|r| r.to_string()).collect();
        let lhs = if results.is_empty() { String::new() } else { format!("{} = ", results.join(", ")) };
        let ty = op.results.first().map_or_else(
            || op.kind.operands().first().map_or(String::new(), |v| format!(" {}", self.k.ty(*v))),
            |r| format!(" : {}", self.k.ty(*r)),
        );
        let lay = op
            .results
            .first()
            .or(op.kind.operands().first())
            .and_then(|v| self.layout(*v).map(|l| (l.describe(self.enc), self.count(*v))))
            .map_or(String::new(), |(l, n)| format!(" {l} ({n} per thread)"));
        let name = match &op.kind {
            OpKind::Reduce { op: r, axis, .. } => format!("reduce {} axis {axis}", r.name()),
            OpKind::Compare { pred, .. } => format!("cmp {}", pred.name()),
            k => k.name().to_string(),
        };
        self.emit(Inst::Group(Group::at(format!("{lhs}{name}{ty}{lay}"), op.loc)));
    }

    fn op(&mut self, op: &Op) -> Result<(), PtxError> {
        let k = self.k;
        let res = op.results.first().copied();
        match &op.kind {
            OpKind::Param { index } => {
                let ty = ty_of(k.params[*index].kind.dtype());
                let dst = self.new_reg(ty);
                self.emit(Inst::LdParam { dst, param: *index });
                let v = if k.params[*index].kind.dtype().is_ptr() {
                    let g = self.new_reg(Ty::I64);
                    self.emit(Inst::CvtaGlobal { dst: g, src: dst });
                    g
                } else {
                    dst
                };
                self.set(res.unwrap(), vec![v.into()]);
            }
            OpKind::Constant { value: c } => {
                let r = res.unwrap();
                let imm = match c {
                    Constant::Bool(b) => Operand::Int(i64::from(*b)),
                    Constant::Int(v) => Operand::Int(*v),
                    Constant::F32(x) => Operand::F32(*x),
                    Constant::F64(x) => Operand::F64(*x),
                };
                let n = self.count(r);
                self.set(r, vec![imm; n]);
            }
            OpKind::ProgramId { axis } | OpKind::NumPrograms { axis } => {
                let dst = self.new_reg(Ty::I32);
                let sreg = if matches!(op.kind, OpKind::ProgramId { .. }) {
                    Special::CtaId(*axis)
                } else {
                    Special::NCtaId(*axis)
                };
                self.emit(Inst::ReadSpecial { dst, sreg });
                self.set(res.unwrap(), vec![dst.into()]);
            }
            OpKind::Arange { start, .. } => {
                let r = res.unwrap();
                let geo = self.geometry(r).expect("arange is a block");
                let d = self.layout(r).unwrap().embed[0];
                let mut elems = Vec::with_capacity(geo.num_regs());
                for i in 0..geo.num_regs() {
                    let kd = geo.multi(i)[d];
                    let c = self.coord(&geo, d, kd);
                    elems.push(match c {
                        Operand::Int(x) => Operand::Int(x + start),
                        c if *start == 0 => c,
                        c => self.bin(BinOp::Add, Ty::I32, c, Operand::Int(*start)),
                    });
                }
                self.set(r, elems);
            }
            OpKind::Splat { value: v } => {
                let r = res.unwrap();
                let s = self.val(*v)[0];
                let n = self.count(r);
                self.set(r, vec![s; n]);
            }
            OpKind::ExpandDims { value, .. } => {
                let r = res.unwrap();
                let src = self.val(*value);
                let n = self.count(r);
                // A scalar becomes a block of one element per thread; a block keeps its
                // registers (the layouts share one parent shape).
                self.set(r, if src.len() == n { src } else { vec![src[0]; n] });
            }
            OpKind::Broadcast { value: v } => {
                let r = res.unwrap();
                let (gs, gd) = (self.geometry(*v).unwrap(), self.geometry(r).unwrap());
                let src = self.val(*v);
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
            }
            OpKind::Permute { value, .. } => {
                let elems = self.permute(*value);
                self.set(res.unwrap(), elems);
            }
            OpKind::Reshape { value } => {
                let elems = self.reshape(op, *value)?;
                self.set(res.unwrap(), elems);
            }
            OpKind::Join { lhs, rhs } => {
                let elems = self.join(op, *lhs, *rhs)?;
                self.set(res.unwrap(), elems);
            }
            OpKind::Split { value } => {
                let halves = self.split(op, *value)?;
                for (r, elems) in op.results.iter().zip(halves) {
                    self.set(*r, elems);
                }
            }
            OpKind::Unary { op: uop, value } => {
                let r = res.unwrap();
                let ty = ty_of(k.dtype(r));
                self.check_unary_type(op, *uop, ty)?;
                let elems = self
                    .val(*value)
                    .into_iter()
                    .map(|x| {
                        let src = self.reg(x, ty);
                        let dst = self.new_reg(ty);
                        self.emit(Inst::Unary { op: *uop, ty, dst, src });
                        Operand::Reg(dst)
                    })
                    .collect();
                self.set(r, elems);
            }
            OpKind::Binary { op: bop, lhs, rhs } => {
                let r = res.unwrap();
                let ty = ty_of(k.dtype(r));
                if let (BinaryOp::Shl | BinaryOp::Shr, Ty::I32 | Ty::I64 | Ty::U32 | Ty::U64) = (bop, ty) {
                    let arithmetic = k.dtype(r).scalar().is_some_and(shifts_arithmetically);
                    let (a, b) = (self.val(*lhs), self.val(*rhs));
                    let left = *bop == BinaryOp::Shl;
                    let elems = a.iter().zip(&b).map(|(x, y)| self.shift(left, arithmetic, ty, *x, *y)).collect();
                    self.set(r, elems);
                    return Ok(());
                }
                let bin = match (bop, ty) {
                    (BinaryOp::Add, Ty::I32 | Ty::I64 | Ty::F32 | Ty::U32 | Ty::U64 | Ty::F64) => BinOp::Add,
                    (BinaryOp::Sub, Ty::I32 | Ty::I64 | Ty::F32 | Ty::U32 | Ty::U64 | Ty::F64) => BinOp::Sub,
                    (BinaryOp::Mul, Ty::I32 | Ty::I64 | Ty::F32 | Ty::U32 | Ty::U64 | Ty::F64) => BinOp::Mul,
                    (BinaryOp::Div, Ty::I32 | Ty::I64 | Ty::F32 | Ty::U32 | Ty::U64 | Ty::F64) => BinOp::Div,
                    (BinaryOp::Rem, Ty::I32 | Ty::I64 | Ty::U32 | Ty::U64) => BinOp::Rem,
                    (BinaryOp::Max(n), Ty::I32 | Ty::I64 | Ty::F32 | Ty::U32 | Ty::U64) => BinOp::Max(*n),
                    (BinaryOp::Min(n), Ty::I32 | Ty::I64 | Ty::F32 | Ty::U32 | Ty::U64) => BinOp::Min(*n),
                    (BinaryOp::Max(PropagateNan::None), Ty::F64) => BinOp::Max(PropagateNan::None),
                    (BinaryOp::Min(PropagateNan::None), Ty::F64) => BinOp::Min(PropagateNan::None),
                    // i1 arithmetic is one-bit: + and - are xor, * is and.
                    (BinaryOp::Add | BinaryOp::Sub, Ty::Pred) => BinOp::Xor,
                    (BinaryOp::Mul, Ty::Pred) => BinOp::And,
                    (BinaryOp::And, Ty::I32 | Ty::I64 | Ty::Pred | Ty::U32 | Ty::U64) => BinOp::And,
                    (BinaryOp::Or, Ty::I32 | Ty::I64 | Ty::Pred | Ty::U32 | Ty::U64) => BinOp::Or,
                    (BinaryOp::Xor, Ty::I32 | Ty::I64 | Ty::Pred | Ty::U32 | Ty::U64) => BinOp::Xor,
                    (BinaryOp::FDiv, Ty::F32) => BinOp::DivFull,
                    // `div.full` is f32 only (`div_rn` / `/` divide f64 exactly).
                    (BinaryOp::FDiv, Ty::I32 | Ty::I64 | Ty::Pred | Ty::U32 | Ty::U64 | Ty::F64)
                    | (BinaryOp::Rem, Ty::F32 | Ty::F64 | Ty::Pred)
                    | (BinaryOp::Max(PropagateNan::All) | BinaryOp::Min(PropagateNan::All), Ty::F64)
                    | (BinaryOp::Div | BinaryOp::Max(_) | BinaryOp::Min(_), Ty::Pred)
                    | (BinaryOp::And | BinaryOp::Or | BinaryOp::Xor, Ty::F32 | Ty::F64)
                    // Int shifts returned above; i1 and float shifts are refused by the verifier.
                    | (BinaryOp::Shl | BinaryOp::Shr, _) => {
                        return Err(self.err(
                            op.loc,
                            format!("`{}` on {} is not supported by the PTX back end", bop.name(), k.dtype(r)),
                            "compute it with supported ops (float remainder: x - trunc(x / y) * y)",
                        ));
                    }
                    // Storage types never reach arithmetic: the front end computes in their
                    // computation type and the verifier checks it.
                    (_, Ty::F16 | Ty::BF16 | Ty::S8 | Ty::U8 | Ty::S16) => {
                        return Err(self.err(
                            op.loc,
                            format!("`{}` on the storage type {}", bop.name(), k.dtype(r)),
                            "convert to its computation type first (f16/bf16 compute in f32, i8/u8/i16 in i32)",
                        ));
                    }
                };
                let (a, b) = (self.val(*lhs), self.val(*rhs));
                // Scalar i64 products may be one `mul.wide.s32` (`lower/wide_mul.rs` says why
                // tensors of products are not).
                if bin == BinOp::Mul
                    && ty == Ty::I64
                    && k.shape(r).is_scalar()
                    && let Some(w) = self.mul_wide(a[0], b[0])
                {
                    self.set(r, vec![w]);
                    return Ok(());
                }
                let elems = a.iter().zip(&b).map(|(x, y)| self.bin(bin, ty, *x, *y)).collect();
                self.set(r, elems);
            }
            OpKind::Fma { a, b, c } => {
                let elems = self.fma(op, [*a, *b, *c])?;
                self.set(res.unwrap(), elems);
            }
            OpKind::Compare { pred, lhs, rhs } => {
                let ty = ty_of(k.dtype(*lhs));
                if ty == Ty::Pred {
                    // i1 compares as 0 < 1: eq = !(a ^ b), ne = a ^ b, lt = !a & b, ...
                    let (a, b) = (self.val(*lhs), self.val(*rhs));
                    let elems = a.iter().zip(&b).map(|(x, y)| self.compare_pred(*pred, *x, *y)).collect();
                    self.set(res.unwrap(), elems);
                    return Ok(());
                }
                let cmp = match pred {
                    CmpPred::Lt => Cmp::Lt,
                    CmpPred::Le => Cmp::Le,
                    CmpPred::Gt => Cmp::Gt,
                    CmpPred::Ge => Cmp::Ge,
                    CmpPred::Eq => Cmp::Eq,
                    CmpPred::Ne => Cmp::Ne,
                };
                let (a, b) = (self.val(*lhs), self.val(*rhs));
                let elems = a.iter().zip(&b).map(|(x, y)| Operand::Reg(self.setp(cmp, ty, *x, *y))).collect();
                self.set(res.unwrap(), elems);
            }
            OpKind::Cast { value: v } => {
                let r = res.unwrap();
                let (from, to) = (ty_of(k.dtype(*v)), ty_of(k.dtype(r)));
                let src = self.val(*v);
                let elems = src.into_iter().map(|x| self.cast(x, from, to)).collect();
                self.set(r, elems);
            }
            // A promise for the analyses (AxisInfo): no instruction, the result is the
            // operand's registers.
            OpKind::MultipleOf { value: v, .. } => {
                let r = res.unwrap();
                let src = self.val(*v);
                self.set(r, src);
            }
            OpKind::Bitcast { value: v } => {
                let r = res.unwrap();
                let (from, to) = (ty_of(k.dtype(*v)), ty_of(k.dtype(r)));
                let src = self.val(*v);
                let elems = src.into_iter().map(|x| self.bitcast(x, from, to)).collect();
                self.set(r, elems);
            }
            OpKind::Select { cond, on_true, on_false } => {
                let r = res.unwrap();
                let ty = ty_of(k.dtype(r));
                let (c, t, f) = (self.val(*cond), self.val(*on_true), self.val(*on_false));
                let mut elems = Vec::with_capacity(c.len());
                for i in 0..c.len() {
                    let cr = self.reg(c[i], Ty::Pred);
                    if ty == Ty::Pred {
                        // (c & t) | (!c & f)
                        let nc = self.new_reg(Ty::Pred);
                        self.emit(Inst::Not { dst: nc, src: cr });
                        let x = self.bin(BinOp::And, Ty::Pred, cr.into(), t[i]);
                        let y = self.bin(BinOp::And, Ty::Pred, nc.into(), f[i]);
                        elems.push(self.bin(BinOp::Or, Ty::Pred, x, y));
                    } else {
                        let dst = self.new_reg(ty);
                        self.emit(Inst::Selp { ty, dst, a: t[i], b: f[i], cond: cr });
                        elems.push(dst.into());
                    }
                }
                self.set(r, elems);
            }
            OpKind::AddPtr { ptr, offset } => {
                let r = res.unwrap();
                let elem = k.dtype(*ptr).pointee().map_or(1, |s| s.size_bytes()) as i64;
                let oty = ty_of(k.dtype(*offset));
                let (p, o) = (self.val(*ptr), self.val(*offset));
                let mut elems = Vec::with_capacity(p.len());
                for (pp, oo) in p.iter().zip(&o) {
                    let bytes = match (*oo, oty) {
                        (Operand::Int(c), _) => Operand::Int(c.wrapping_mul(elem)),
                        (Operand::Reg(x), Ty::I32) => {
                            let dst = self.new_reg(Ty::I64);
                            self.emit(Inst::MulWide { dst, a: x.into(), b: Operand::Int(elem) });
                            dst.into()
                        }
                        (x, _) => self.bin(BinOp::Shl, Ty::I64, x, Operand::Int(elem.trailing_zeros().into())),
                    };
                    elems.push(match bytes {
                        Operand::Int(0) => *pp,
                        b => self.bin(BinOp::Add, Ty::I64, *pp, b),
                    });
                }
                self.set(r, elems);
            }
            OpKind::Load { ptr, mask, other, staged: false } => {
                let elems = self.load(op, *ptr, *mask, *other)?;
                self.set(res.unwrap(), elems);
            }
            OpKind::Load { ptr, mask, other, staged: true } => self.load_staged(op, *ptr, *mask, *other)?,
            OpKind::Store { ptr, value, mask } => self.store(op, *ptr, *value, *mask)?,
            // `bar.sync` waits for the CTA and makes its earlier accesses visible to every
            // thread of it (Triton's `gpu.barrier`).
            OpKind::DebugBarrier {} => self.emit(Inst::BarSync { id: 0 }),
            OpKind::AtomicRmw { op: aop, ptr, value, mask, sem, scope } => {
                let elems = self.atomic_rmw(op, *aop, *ptr, *value, *mask, (*sem, *scope))?;
                self.set(res.unwrap(), elems);
            }
            OpKind::AtomicCas { ptr, cmp, value, sem, scope } => {
                let elems = self.atomic_cas(op, *ptr, *cmp, *value, (*sem, *scope))?;
                self.set(res.unwrap(), elems);
            }
            OpKind::Reduce { op: rop, value, axis } => {
                let elems = self.reduce(op, *rop, *value, *axis)?;
                self.set(res.unwrap(), elems);
            }
            OpKind::ReduceWith { values, axis, combine } => self.reduce_with(op, values, *axis, combine)?,
            OpKind::Scan { values, axis, combine } => self.scan(op, values, *axis, combine)?,
            OpKind::For { lower, upper, step, init, body, unroll } => {
                if *unroll > 1 {
                    self.unrolled_loop(op, [*lower, *upper, *step], init, body, *unroll)?
                } else {
                    self.for_loop(op, *lower, *upper, *step, init, body)?
                }
            }
            OpKind::If { cond, then_body, else_body } => self.if_op(op, *cond, then_body, else_body)?,
            OpKind::While { init, before, after } => self.while_loop(op, init, before, after)?,
            OpKind::Yield { .. } => {}
        }
        Ok(())
    }

    fn not(&mut self, x: Operand) -> Operand {
        let src = self.reg(x, Ty::Pred);
        let dst = self.new_reg(Ty::Pred);
        self.emit(Inst::Not { dst, src });
        dst.into()
    }

    fn compare_pred(&mut self, pred: CmpPred, a: Operand, b: Operand) -> Operand {
        let p = Ty::Pred;
        match pred {
            CmpPred::Ne => self.bin(BinOp::Xor, p, a, b),
            CmpPred::Eq => {
                let x = self.bin(BinOp::Xor, p, a, b);
                self.not(x)
            }
            CmpPred::Lt | CmpPred::Ge => {
                let na = self.not(a);
                let lt = self.bin(BinOp::And, p, na, b);
                if pred == CmpPred::Lt { lt } else { self.not(lt) }
            }
            CmpPred::Gt | CmpPred::Le => {
                let nb = self.not(b);
                let gt = self.bin(BinOp::And, p, a, nb);
                if pred == CmpPred::Gt { gt } else { self.not(gt) }
            }
        }
    }

    fn cast(&mut self, x: Operand, from: Ty, to: Ty) -> Operand {
        if from == to {
            return x;
        }
        let original = |t: Ty| matches!(t, Ty::Pred | Ty::I32 | Ty::I64 | Ty::F32);
        if !original(from) || !original(to) {
            return self.convert(x, from, to);
        }
        match (x, from, to) {
            (Operand::Int(c), Ty::I32 | Ty::I64, Ty::I64) => return Operand::Int(c),
            (Operand::Int(c), Ty::I64, Ty::I32) => return Operand::Int(i64::from(c as i32)),
            (Operand::Int(c), Ty::I32 | Ty::I64, Ty::F32) => return Operand::F32(c as f32),
            // not a foldable immediate (operand and register types, not an op kind)
            _ => {}
        }
        match (from, to) {
            (Ty::Pred, _) => {
                let c = self.reg(x, Ty::Pred);
                let dst = self.new_reg(to);
                let (one, zero) = if to == Ty::F32 {
                    (Operand::F32(1.0), Operand::F32(0.0))
                } else {
                    (Operand::Int(1), Operand::Int(0))
                };
                self.emit(Inst::Selp { ty: to, dst, a: one, b: zero, cond: c });
                dst.into()
            }
            (_, Ty::Pred) => {
                let zero = if from == Ty::F32 { Operand::F32(0.0) } else { Operand::Int(0) };
                Operand::Reg(self.setp(Cmp::Ne, from, x, zero))
            }
            // number to number: one cvt and the NaN rule (register types, not an op kind)
            _ => self.cvt(x, from, to),
        }
    }

    fn for_loop(
        &mut self,
        op: &Op,
        lower: Value,
        upper: Value,
        step: Value,
        init: &[Value],
        body: &Block,
    ) -> Result<(), PtxError> {
        let ty = ty_of(self.k.dtype(lower));
        let (lo, hi, st) = (self.val(lower)[0], self.val(upper)[0], self.val(step)[0]);
        let iv = self.new_reg(ty);
        self.set(body.args[0], vec![iv.into()]);
        let carried = self.carried_registers(init);
        for (arg, regs) in body.args[1..].iter().zip(&carried) {
            self.set(*arg, regs.iter().map(|r| (*r).into()).collect());
        }
        let outer = std::mem::take(&mut self.out);
        self.block(body)?;
        // The yield: next carried values into the carried registers (a parallel move).
        if let Some(OpKind::Yield { values: ys }) = body.ops.last().map(|l| &self.k.op(*l).kind) {
            self.yield_into(&carried, ys);
        }
        let inner = std::mem::replace(&mut self.out, outer);
        self.emit(Inst::Loop { ty, iv, lower: lo, upper: hi, step: st, body: inner });
        self.emit(Inst::Group(Group::at("end for", op.loc)));
        for (i, r) in op.results.iter().enumerate() {
            self.set(*r, carried[i].iter().map(|x| (*x).into()).collect());
        }
        Ok(())
    }
}
