//! Block IR to [`super::lir`]: every block value becomes, in each thread, the registers of
//! the elements that thread owns ([`super::layout`]); every op becomes the per-element
//! instructions over those lists. This file holds the lowering's state, its entry point
//! and the dispatch ([`Lowerer::op`]); each op family is lowered in a file of its own under
//! `lower/`: values from nothing (`values.rs`), shape ops that keep registers (`shape.rs`)
//! or move elements through shared memory (`layout_ops.rs`, `exchange.rs`), element-wise
//! ops (`elementwise.rs`, `bits.rs`, `convert.rs`, `math.rs`, `wide_mul.rs`, `inline_asm.rs`), loads and
//! stores (`memory.rs`, `address.rs`, `staged.rs`), atomics (`atomics.rs`), reductions and
//! scans (`reduce.rs`, `combine.rs`, `scan.rs`), control flow (`control.rs`,
//! `unroll.rs`), the debugging ops (`debug.rs`); the thread's position in the layout is
//! `threads.rs`.
//!
//! **Invariant:** the lowering never emits an instruction it cannot prove valid: ops or
//! types it does not handle, layouts it cannot build and blocks over the register budget
//! are [`PtxError`]s naming the kernel and the op's line. A broken IR invariant that the
//! verifier should have caught (an op without its result, a value read before it is
//! lowered, a block without a layout) is an internal [`PtxError`] ([`Lowerer::invariant`]),
//! never a panic.

mod address;
mod atomics;
mod bits;
mod combine;
mod control;
mod convert;
mod dce;
mod debug;
mod dot;
mod elementwise;
mod exchange;
mod fp8;
mod inline_asm;
mod insts;
mod layout_ops;
mod math;
mod memory;
mod mma;
mod reduce;
mod ring;
mod scan;
mod shape;
mod staged;
mod swizzle;
mod threads;
mod tma;
mod tma_store;
mod unroll;
mod values;
mod wgmma;
mod wide;
mod wide_mul;

pub(super) use exchange::{MAX_SHARED_BYTES, fits_one_exchange};
pub(super) use ring::{SlotLayout, read_in_place, slot_layout};
pub(super) use tma::{TmaPlan, plan as tma_plan};
pub(super) use wgmma::{WgmmaPlan, plan};

use insts::ty_of;

use std::collections::HashMap;

use super::axis_info::AxisInfoMap;
use super::encodings::{self, Encodings};
use super::layout::remat::Recomputed;
use super::layout::{Blocked, Geometry, Layout, MAX_REGS_PER_VALUE};
use super::layout::{operand_reads, transposed_operand};
use super::lir::{Group, Inst, LayoutNote, Operand, Param, ParamTy, Program, Reg, Special, Ty};
use super::{Decisions, PtxError, PtxOptions};
use crate::diag::Code;
use crate::ir::{Block, Effect, Kernel, Op, OpId, OpKind, ParamKind, ScalarType, SourceLoc, Value};
use crate::verify::KernelInfo;

pub(super) fn lower_kernel(k: &Kernel, options: &PtxOptions) -> Result<Program, PtxError> {
    let nw = options.num_warps;
    let Encodings { ai, enc, decision: layout_decision, stage, tensor_stores } = Encodings::compute(k, options)?;
    // From here on the kernel is the layout stage's: the input with its conversions.
    let (k, info) = (stage.kernel.kernel(), stage.kernel.info());
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
    let layouts = &stage.layouts;
    let wgmma = wgmma::plan(k, layouts, options.arch);

    // Over the budget: the value that needs the most registers, and of those the largest
    // block (the first on a tie), the one to shrink. A smaller value laid out as a slice
    // of it (a `[32, 32, 1]` operand of a `[32, 32, 32]` broadcast product, replicated
    // along the last dim) may need as many and is not the cause.
    // (A `dot` operand's fragments are read a k-step at a time: the `dot` checks them.)
    let over = (0..k.values.len())
        .filter_map(|i| layouts[i].as_ref().filter(|l| l.operand.is_none()).map(|l| (i, l)))
        .map(|(i, l)| (i, l.geometry(k.values[i].ty.shape.dims()).num_regs()))
        .filter(|&(_, n)| n > MAX_REGS_PER_VALUE)
        .max_by_key(|&(i, n)| (n, k.values[i].ty.shape.numel(), std::cmp::Reverse(i)));
    if let Some((worst, n)) = over {
        let loc = k.def_op(Value(worst as u32)).map_or(k.loc, |o| o.loc);
        return Err(PtxError::new(
            Code::PtxRegisterBudget,
            &k.name,
            loc,
            format!(
                "block {} needs {n} registers per thread with num_warps = {nw} (the budget is {MAX_REGS_PER_VALUE} per value)",
                k.values[worst].ty
            ),
            "use a smaller block (loop over the row in blocks) or more warps",
        ));
    }
    let mut notes = Vec::new();
    for (i, vd) in k.values.iter().enumerate() {
        let Some(l) = &layouts[i] else { continue };
        let n = l.elements_per_thread(vd.ty.shape.dims());
        if info.uses(Value(i as u32)) > 0 {
            notes.push(LayoutNote {
                value: Value(i as u32).to_string(),
                ty: vd.ty.to_string(),
                layout: l.describe(),
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
    header.extend(encodings::mma_lines(layouts));

    let mut l = Lowerer {
        k,
        info,
        ai: &ai,
        enc: &enc,
        layouts,
        readers: &stage.reader,
        recomputed: &stage.recomputed,
        hoisted: &stage.hoisted,
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
        rings: HashMap::new(),
        ring_bytes: 0,
        rings_base: None,
        ring_views: HashMap::new(),
        hoisted_a: HashMap::new(),
        tma: tma::TmaState::new(tma::plan(k, &ai, &wgmma, options.arch, &tensor_stores)),
        wgmma,
        ring_synced: false,
        ring_site: None,
        rings_swizzled: false,
        rings_open: false,
        scratch_in_rings: false,
        shared_align: 16,
        sign_extended: HashMap::new(),
        debug: options.debug,
        fp8_native: options.fp8_conversions(),
        decisions: Decisions { layout: Some(layout_decision), ..Decisions::default() },
    };
    l.block(&k.body)?;
    l.place_staging();
    l.place_rings();
    l.place_mbarriers();
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
        // Without a bound, ptxas caps the registers of a 128-thread CTA for occupancy (80
        // on sm_86) and spills a tensor-core tile's fragments; one CTA per SM lifts the cap
        // to what the kernel needs (still `.maxntid`-bounded).
        min_ctas_per_sm: match options.min_ctas_per_sm {
            0 if layouts.iter().flatten().any(|l| l.enc.is_mma()) => 1,
            n => n,
        },
        shared_bytes: l.shared_bytes,
        shared_align: l.shared_align,
        shared_site: l.stage_site,
        regs: l.regs,
        body,
        layouts: notes,
        header,
        decisions: l.decisions,
        tensor_maps: l.tma.plan.maps,
    })
}

/// The key of an owner predicate (`Lowerer::owner`): the layout, the parent shape and the
/// dim left out.
type OwnerKey = (Option<Blocked>, Vec<usize>, Option<usize>);

pub(super) struct Lowerer<'a> {
    pub k: &'a Kernel,
    info: &'a KernelInfo,
    pub ai: &'a AxisInfoMap,
    /// The kernel's blocked layout (a `dot` on tensor cores has its own, in its values'
    /// [`Layout`]s).
    pub enc: &'a std::sync::Arc<Blocked>,
    layouts: &'a [Option<Layout>],
    /// Each `convert_layout`'s result -> the op it was written for (`layout/stage.rs`).
    readers: &'a HashMap<Value, OpId>,
    /// The conversions the stage replaced by recomputing, by their first copied op
    /// (`layout/remat.rs`): where the lowering says so.
    recomputed: &'a HashMap<OpId, Recomputed>,
    /// The `#dot_op` conversions hoisted before their `dot`'s loop (`layout/dot_operand.rs`).
    hoisted: &'a std::collections::HashSet<Value>,
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
    tpos: HashMap<(Blocked, usize), Reg>,
    /// The thread's coordinate base per (parent dim, block size along it).
    bases: HashMap<(Blocked, usize, usize), Operand>,
    /// Bit fields of tid already extracted: (source, shift, n).
    fields: HashMap<(Reg, u32, usize), Operand>,
    /// Owner predicates per (parent shape, excluded dim).
    owners: HashMap<OwnerKey, Option<Reg>>,
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
    /// The staging rings by number (`lower/ring.rs`), their bytes, and the register of
    /// their base offset with the prologue index of the `mov` patched when the lowering
    /// ends.
    rings: HashMap<u32, ring::Ring>,
    ring_bytes: u32,
    rings_base: Option<(Reg, usize)>,
    /// `ring_read`s that stay in shared memory, read there by the `dot`s that use them.
    ring_views: HashMap<Value, ring::RingView>,
    /// By a loop's `dot` result: its loop-invariant `a`'s fragments, per k-step and 16-row
    /// tile, read before the loop (`mma.rs`, `hoist_invariant_a`).
    hoisted_a: HashMap<Value, Vec<Vec<Vec<Reg>>>>,
    /// The `dot`s that run as `wgmma` (sm_90a) and the layouts of the rings they read.
    wgmma: wgmma::WgmmaPlan,
    /// The rings tensor copies fill (sm_90) and their mbarriers (`lower/tma.rs`).
    tma: tma::TmaState,
    /// Whether no copy into a ring was issued since the last `ring_read` waited.
    ring_synced: bool,
    /// The first `async_copy`'s source line (where a ring's shared memory comes from).
    ring_site: Option<SourceLoc>,
    /// Whether a ring's slots are swizzled (`lower/swizzle.rs`): the rings then start at
    /// a multiple of `SWIZZLE_ALIGN`.
    rings_swizzled: bool,
    /// Whether a ring copy was issued and the loop's end has not yet waited for every
    /// copy and synchronized (the rings' shared memory is in use).
    rings_open: bool,
    /// Whether the scratch was used while the rings were open: then the two cannot share
    /// shared memory (`place_rings`).
    scratch_in_rings: bool,
    /// The alignment the shared buffer is declared with.
    shared_align: u32,
    pub decisions: Decisions,
    /// `cvt.s64.s32` results: 64-bit register -> the 32-bit register it extends
    /// (`lower/wide_mul.rs`).
    sign_extended: HashMap<Reg, Reg>,
    /// Debug mode ([`PtxOptions::debug`]): whether `device_print` and `device_assert` are
    /// compiled in.
    debug: bool,
    /// The target converts fp8 in hardware (`PtxOptions::fp8_conversions`, `lower/fp8.rs`).
    fp8_native: bool,
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

    /// A broken IR invariant the verifier guarantees (an rtriton bug, not the user's):
    /// an internal error at `op`, naming it.
    pub fn invariant(&self, op: &Op, what: impl std::fmt::Display) -> PtxError {
        PtxError::new(
            Code::PtxUnsupported,
            &self.k.name,
            op.loc,
            format!("internal: `{}` {what}; this is an rtriton bug", op.kind.name()),
            "please report it with the kernel's IR text",
        )
    }

    /// [`Self::invariant`] about value `v`, at the op that defines it (the kernel when
    /// `v` is a block argument).
    fn value_invariant(&self, v: Value, what: &str) -> PtxError {
        match self.k.def_op(v) {
            Some(op) => self.invariant(op, format_args!("defines {v}, which {what}")),
            None => PtxError::new(
                Code::PtxUnsupported,
                &self.k.name,
                self.k.loc,
                format!("internal: block argument {v} {what}; this is an rtriton bug"),
                "please report it with the kernel's IR text",
            ),
        }
    }

    /// Value `v`'s elements: one operand per element the thread holds.
    pub fn val(&self, v: Value) -> Result<Vec<Operand>, PtxError> {
        // Operands are lowered before their uses (SSA order, checked by the verifier).
        self.vals
            .get(v.index())
            .cloned()
            .flatten()
            .ok_or_else(|| self.value_invariant(v, "is read before it is lowered"))
    }

    /// The first element of `v`: a scalar's one operand.
    pub fn first(&self, v: Value) -> Result<Operand, PtxError> {
        self.val(v)?.first().copied().ok_or_else(|| self.value_invariant(v, "is read with no elements"))
    }

    fn set(&mut self, v: Value, elems: Vec<Operand>) {
        self.vals[v.index()] = Some(elems);
    }

    /// `op`'s first result (every op lowered with [`Self::define`] has one).
    pub fn result(&self, op: &Op) -> Result<Value, PtxError> {
        op.results.first().copied().ok_or_else(|| self.invariant(op, "has no result"))
    }

    /// Sets `op`'s result to `elems`.
    fn define(&mut self, op: &Op, elems: Vec<Operand>) -> Result<(), PtxError> {
        let r = self.result(op)?;
        self.set(r, elems);
        Ok(())
    }

    /// The geometry of `v`, which `op` needs to be a block (the layout assignment gives
    /// every block a layout).
    pub fn block_geometry(&self, op: &Op, v: Value) -> Result<Geometry, PtxError> {
        self.geometry(v).ok_or_else(|| self.invariant(op, format_args!("needs {v} to be a block with a layout")))
    }

    /// The parent dim that dim `dim` of block `v` lies along, for `op`.
    pub fn embed(&self, op: &Op, v: Value, dim: usize) -> Result<usize, PtxError> {
        self.layout(v)
            .and_then(|l| l.embed.get(dim).copied())
            .ok_or_else(|| self.invariant(op, format_args!("needs dim {dim} of {v} in its layout")))
    }

    /// The geometry of value `v` (`None` for scalars).
    pub fn geometry(&self, v: Value) -> Option<Geometry> {
        self.layout(v).map(|l| l.geometry(self.k.shape(v).dims()))
    }

    /// `v`'s layout.
    pub fn layout(&self, v: Value) -> Option<&Layout> {
        self.layouts[v.index()].as_ref()
    }

    /// What `v` converts when it is a `dot` operand's `#dot_op` conversion, else `v`.
    pub(super) fn operand_source(&self, v: Value) -> Value {
        operand_reads::source(self.k, self.layouts, v)
    }

    /// Number of elements a thread holds of `v`.
    fn count(&self, v: Value) -> usize {
        self.geometry(v).map_or(1, |g| g.num_regs())
    }

    // ---- ops ----

    fn block(&mut self, block: &Block) -> Result<(), PtxError> {
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
                Effect::Region => false,
                e => !e.kept_unused(),
            };
            if removable && op.results.iter().all(|r| self.info.uses(*r) == 0) {
                continue;
            }
            // A transpose that tensor-core `dot`s read through (`mma.rs`) moves nothing.
            if matches!(op.kind, OpKind::Permute { .. })
                && transposed_operand(self.k, self.layouts, op.results[0]).is_some()
            {
                continue;
            }
            self.materialize_reads(op);
            if let Some(r) = self.recomputed.get(&id) {
                self.say_recomputed(r);
            }
            // A conversion's own group says what it moves (`exchange.rs`).
            if !matches!(op.kind, OpKind::ConvertLayout { .. }) {
                self.comment(op);
            }
            match self.tma.plan.stores.get(&id).copied() {
                Some(plan) => self.tma_store(op, plan)?,
                None => self.op(op)?,
            }
        }
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
            .and_then(|v| self.layout(*v).map(|l| (l.describe(), self.count(*v))))
            .map_or(String::new(), |(l, n)| format!(" {l} ({n} per thread)"));
        let name = match &op.kind {
            OpKind::Reduce { op: r, axis, .. } => format!("reduce {} axis {axis}", r.name()),
            OpKind::Compare { pred, .. } => format!("cmp {}", pred.name()),
            k => k.name().to_string(),
        };
        self.emit(Inst::Group(Group::at(format!("{lhs}{name}{ty}{lay}"), op.loc)));
    }

    /// Lowers one op: each arm calls the lowering of its family, in the file of that family
    /// (`values.rs`, `shape.rs`, `layout_ops.rs`, `elementwise.rs`, `math.rs`, `memory.rs`,
    /// `staged.rs`, `atomics.rs`, `reduce.rs`, `combine.rs`, `scan.rs`, `control.rs`,
    /// `unroll.rs`, `dot.rs`).
    fn op(&mut self, op: &Op) -> Result<(), PtxError> {
        match &op.kind {
            OpKind::Param { index } => self.param(op, *index),
            OpKind::Constant { value } => self.constant(op, value),
            OpKind::ProgramId { axis } => self.special(op, Special::CtaId(*axis)),
            OpKind::NumPrograms { axis } => self.special(op, Special::NCtaId(*axis)),
            OpKind::Arange { start, .. } => self.arange(op, *start),
            OpKind::Splat { value } => self.splat(op, *value),
            OpKind::ExpandDims { value, .. } => self.expand_dims(op, *value),
            OpKind::Broadcast { value } => self.broadcast(op, *value),
            OpKind::Permute { value, .. } => self.permute(*value).and_then(|e| self.define(op, e)),
            OpKind::Reshape { value } => self.reshape(op, *value).and_then(|e| self.define(op, e)),
            OpKind::ConvertLayout { value } => self.convert_layout_op(op, *value),
            OpKind::Join { lhs, rhs } => self.join(op, *lhs, *rhs).and_then(|e| self.define(op, e)),
            OpKind::Split { value } => self.split(op, *value),
            OpKind::Unary { op: uop, value } => self.unary(op, *uop, *value),
            OpKind::Binary { op: bop, lhs, rhs } => self.binary(op, *bop, *lhs, *rhs),
            OpKind::Fma { a, b, c } => self.fma(op, [*a, *b, *c]).and_then(|e| self.define(op, e)),
            OpKind::Compare { pred, lhs, rhs } => self.compare(op, *pred, *lhs, *rhs),
            OpKind::Cast { value } => self.cast_op(op, *value),
            OpKind::MultipleOf { value, .. } | OpKind::AxisHint { value, .. } => self.promise(op, *value),
            OpKind::Bitcast { value } => self.bitcast_op(op, *value),
            OpKind::Select { cond, on_true, on_false } => self.select(op, [*cond, *on_true, *on_false]),
            OpKind::AddPtr { ptr, offset } => self.add_ptr(op, *ptr, *offset),
            OpKind::Load { ptr, mask, other, staged: false, .. } => {
                self.load(op, *ptr, *mask, *other).and_then(|e| self.define(op, e))
            }
            OpKind::Load { ptr, mask, other, staged: true, .. } => self.load_staged(op, *ptr, *mask, *other),
            OpKind::AsyncCopy { ptr, mask, other, ring, slots, slot, desc, when } => {
                self.async_copy(op, [*ptr, *slot], [*mask, *other], (*ring, *slots), (desc, *when))
            }
            OpKind::RingRead { ring, slot, pending } => self.ring_read(op, *ring, *slot, *pending),
            OpKind::Store { ptr, value, mask, .. } => self.store(op, *ptr, *value, *mask),
            OpKind::DebugBarrier {} => self.debug_barrier(),
            // A promise: the analyses used it; nothing runs.
            OpKind::Assume { .. } => Ok(()),
            // Debug mode only (`debug.rs`); otherwise nothing runs.
            OpKind::DeviceAssert { cond, msg } => {
                if self.debug {
                    self.device_assert(op, *cond, msg)
                } else {
                    Ok(())
                }
            }
            OpKind::DevicePrint { prefix, values } => {
                if self.debug {
                    self.device_print(prefix, values)
                } else {
                    Ok(())
                }
            }
            OpKind::InlineAsm { asm, constraints, args, is_pure, pack, model } => {
                self.inline_asm(op, (asm, constraints), args, (*is_pure, *pack), *model)
            }
            OpKind::AtomicRmw { op: aop, ptr, value, mask, sem, scope } => {
                self.atomic_rmw(op, *aop, *ptr, *value, *mask, (*sem, *scope)).and_then(|e| self.define(op, e))
            }
            OpKind::AtomicCas { ptr, cmp, value, sem, scope } => {
                self.atomic_cas(op, *ptr, *cmp, *value, (*sem, *scope)).and_then(|e| self.define(op, e))
            }
            OpKind::Reduce { op: rop, value, axis } => {
                self.reduce(op, *rop, *value, *axis).and_then(|e| self.define(op, e))
            }
            OpKind::ReduceWith { values, axis, combine } => self.reduce_with(op, values, *axis, combine),
            OpKind::Scan { values, axis, combine } => self.scan(op, values, *axis, combine),
            OpKind::For { lower, upper, step, init, body, unroll, .. } => {
                self.for_op(op, [*lower, *upper, *step], init, body, *unroll)
            }
            OpKind::If { cond, then_body, else_body } => self.if_op(op, *cond, then_body, else_body),
            OpKind::While { init, before, after } => self.while_loop(op, init, before, after),
            OpKind::Dot { a, b, acc, input_precision } => {
                self.dot(op, [*a, *b, *acc], *input_precision).and_then(|e| self.define(op, e))
            }
            // Lowered by the op that holds it (`for_loop`, `region`, `while_loop`).
            OpKind::Yield { .. } => Ok(()),
        }
    }
}
