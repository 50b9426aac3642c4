//! The layout stage as text, as Triton prints TTGIR: the stage's kernel (the front end's
//! IR with each conversion the assignment asks for as a `convert_layout` op before the op
//! that reads the copy, or as the ops copied to recompute a cheap index, `layout/stage.rs`
//! and `layout/remat.rs`), with the encodings in a header (`#blocked = ...`, `#mma =
//! ...`), each block value's type followed by the layout the lowering gives it (a
//! conversion's `from -> to` and the operand of the op it was made for; a copied op's
//! `recomputes %N for ...`), the staging rings' reads that stay in shared memory marked
//! `#shared`, each tensor-core `dot` operand's conversion to `#dot_op` with where its
//! fragments come from, and the copies and stores tensor copies (TMA) make named above
//! their ops.
//!
//! Everything comes from the lowering's own computation ([`Encodings`], and `ring.rs`'s
//! choice of the reads that stay in place), so the text is what the PTX is built from.

use std::collections::{HashMap, HashSet};
use std::fmt::Write;

use super::encodings::{Encodings, mma_lines};
use super::layout::Layout;
use super::layout::dot_operand::a_in_registers;
use super::layout::transposed_operand;
use super::lower::{SlotLayout, TmaPlan, WgmmaPlan, plan, read_in_place, slot_layout, tma_plan};
use super::{Arch, PtxError, PtxOptions};
use crate::ir::printer::{Annotations, print_annotated};
use crate::ir::{Kernel, OpId, OpKind, Value};
use crate::verify::VerifiedKernel;

/// The layout stage's kernel of `kernel` under `options`: its IR with the conversions as
/// ops (`convert_layout`, or the ops copied to recompute a cheap index), verified: what
/// the PTX is lowered from, without the layouts ([`layouts_text`] prints both).
pub fn layout_stage_kernel(kernel: &VerifiedKernel, options: &PtxOptions) -> Result<VerifiedKernel, PtxError> {
    Ok(Encodings::compute(kernel.kernel(), options)?.stage.kernel)
}

/// The layouts text of `kernel` under `options` (its warps and its target: on `sm_90a`
/// a `dot`'s warps form warpgroups). Errors where the lowering would find no layout.
pub fn layouts_text(kernel: &VerifiedKernel, options: &PtxOptions) -> Result<String, PtxError> {
    let e = Encodings::compute(kernel.kernel(), options)?;
    let k = e.stage.kernel.kernel();
    let mut out = String::new();
    let _ = writeln!(out, "#blocked = {}", e.enc);
    for line in mma_lines(&e.stage.layouts) {
        let _ = writeln!(out, "{line}");
    }
    let _ = writeln!(out, "num_warps = {}", options.num_warps);
    if options.arch == Arch::Sm90a {
        let _ = writeln!(out, "target = {}", options.arch);
    }
    out.push_str(&print_annotated(k, &Notes::new(k, &e, options.arch)));
    Ok(out)
}

/// The annotations of one kernel.
struct Notes<'a> {
    k: &'a Kernel,
    layouts: &'a [Option<Layout>],
    /// Each `convert_layout`'s result -> its operand, the op it was made for and which of
    /// that op's operands it is.
    copies: HashMap<Value, (Value, OpId, usize)>,
    /// Each op copied to recompute a value in another layout (`layout/remat.rs`): its
    /// result -> the value it copies and the op the copy is for.
    recomputes: HashMap<Value, (Value, OpId)>,
    /// `ring_read`s that stay in shared memory: their ring and its slots' layout.
    in_place: HashMap<Value, (u32, SlotLayout)>,
    /// Transposes that tensor-core `dot`s read through (`transposed_operand`): no copy.
    read_through: HashSet<Value>,
    /// The `dot`s that run as `wgmma` and their rings' layouts (`lower/wgmma.rs`).
    wgmma: WgmmaPlan,
    /// The rings tensor copies fill (`lower/tma.rs`).
    tma: TmaPlan,
    /// The `#dot_op` conversions that go before their loop (`layout/dot_operand.rs`).
    hoisted: &'a HashSet<Value>,
}

impl<'a> Notes<'a> {
    fn new(k: &'a Kernel, e: &'a Encodings, arch: Arch) -> Notes<'a> {
        let layouts = &e.stage.layouts;
        let wgmma = plan(k, layouts, arch);
        let mut copies = HashMap::new();
        let mut in_place = HashMap::new();
        let mut read_through = HashSet::new();
        for id in k.walk() {
            let op = k.op(id);
            if matches!(op.kind, OpKind::Permute { .. }) && transposed_operand(k, layouts, op.results[0]).is_some() {
                read_through.insert(op.results[0]);
                continue;
            }
            if let OpKind::RingRead { ring, .. } = op.kind
                && let Some(&v) = op.results.first()
                && read_in_place(k, layouts, v)
            {
                in_place.insert(v, (ring, slot_layout(k, &wgmma, v)));
            }
            if let OpKind::ConvertLayout { value } = op.kind
                && let Some(&copy) = op.results.first()
                && let Some(&reader) = e.stage.reader.get(&copy)
            {
                let operand = k.op(reader).kind.operands().iter().position(|&o| o == copy).unwrap_or(0);
                copies.insert(copy, (value, reader, operand));
            }
        }
        let recomputes = e
            .stage
            .recomputed
            .values()
            .flat_map(|r| r.copies.iter().map(move |&(copy, original)| (copy, (original, r.reader))))
            .collect();
        let tma = tma_plan(k, &e.ai, &wgmma, arch, &e.tensor_stores);
        Notes { k, layouts, copies, recomputes, in_place, read_through, wgmma, tma, hoisted: &e.stage.hoisted }
    }

    fn layout(&self, v: Value) -> Option<&Layout> {
        self.layouts.get(v.index()).and_then(Option::as_ref)
    }

    /// `v`'s layout as the text shows it: a ring read that stays in shared memory is
    /// `#shared`, and so is (transposed) a transpose its `dot`s read through.
    fn shown(&self, v: Value) -> String {
        if let Some((ring, slot)) = self.in_place.get(&v) {
            return format!("#shared<ring {ring}, {slot}>");
        }
        if self.read_through.contains(&v)
            && let Some(OpKind::Permute { value, .. }) = self.k.def_op(v).map(|o| &o.kind)
        {
            return format!("{} transposed", self.shown(*value));
        }
        self.layout(v).map_or_else(|| "(scalar)".to_string(), Layout::describe)
    }

    /// Where the `dot` `reader`'s fragments of `operand` come from (`lower/mma.rs`,
    /// `lower/wgmma.rs`): what its `#dot_op` conversion `copy` does.
    fn fragments(&self, copy: Value, operand: Value, reader: OpId) -> &'static str {
        let dot = self.k.op(reader).results.first().and_then(|r| self.wgmma.dots.get(r));
        let base = match self.k.def_op(operand).map(|o| &o.kind) {
            Some(OpKind::Permute { value, .. }) if self.read_through.contains(&operand) => *value,
            _ => operand,
        };
        if dot.is_some_and(|d| d.source == base || d.a == Some(base)) {
            "read by wgmma through a shared-memory descriptor, no registers"
        } else if self.in_place.contains_key(&base) {
            "fragments read from the ring slot at each k-step"
        } else if self
            .layout(self.k.op(reader).results[0])
            .is_some_and(|acc| a_in_registers(self.layout(operand), &acc.enc))
        {
            "the accumulator's registers repacked, no shared memory"
        } else if self.hoisted.contains(&copy) {
            "staged through shared memory and read as fragments once, before the loop"
        } else {
            "staged through shared memory, then read as fragments"
        }
    }

    /// `%r = name` of op `id` (its name alone without results).
    fn reader(&self, id: OpId) -> String {
        let op = self.k.op(id);
        let results: Vec<String> = op.results.iter().map(|r| r.to_string()).collect();
        if results.is_empty() {
            op.kind.name().to_string()
        } else {
            format!("{} = {}", results.join(", "), op.kind.name())
        }
    }
}

impl Annotations for Notes<'_> {
    fn after_type(&self, v: Value) -> Option<String> {
        if let Some((ring, slot)) = self.in_place.get(&v) {
            return Some(format!("#shared<ring {ring}, {slot}> (read in place)"));
        }
        if self.read_through.contains(&v) {
            return Some("(read by its dots from the tile it transposes, no copy)".to_string());
        }
        if let Some(&(original, reader)) = self.recomputes.get(&v) {
            let to = self.layout(v).map_or_else(|| "(scalar)".to_string(), Layout::describe);
            return Some(format!("{to}  (recomputes {original} for {})", self.reader(reader)));
        }
        if let Some(&(operand, reader, i)) = self.copies.get(&v) {
            let from = self.shown(operand);
            let to = self.layout(v).map_or_else(|| "(scalar)".to_string(), Layout::describe);
            let how = match self.layout(v).and_then(|l| l.operand) {
                Some(_) => format!(": {}", self.fragments(v, operand, reader)),
                None => String::new(),
            };
            return Some(format!("{from} -> {to}  (operand {i} of {}{how})", self.reader(reader)));
        }
        self.layout(v).map(Layout::describe)
    }

    fn before(&self, id: OpId) -> Vec<String> {
        let op = self.k.op(id);
        let results: Vec<String> = op.results.iter().map(|r| r.to_string()).collect();
        let reader = if results.is_empty() {
            op.kind.name().to_string()
        } else {
            format!("{} = {}", results.join(", "), op.kind.name())
        };
        let mut lines = Vec::new();
        if let OpKind::AsyncCopy { ring, .. } = op.kind
            && let Some(r) = self.tma.rings.get(&ring)
        {
            let m = &self.tma.maps[r.map];
            lines.push(format!(
                "{reader} fills ring {ring} by tensor copies (TMA): a {} x {} box a panel, {}-byte swizzle, tensor map {} (the kernel's parameters), an mbarrier a slot",
                m.box_dims[0], m.box_dims[1], m.swizzle, r.map
            ));
        }
        if let Some(s) = self.tma.stores.get(&id) {
            let m = &self.tma.maps[s.map];
            lines.push(format!(
                "{reader} is written by tensor copies (TMA) from shared memory: its value stored there in its own layout, {} box{} of {} x {} ({}-byte swizzle), tensor map {} (the kernel's parameters)",
                s.panels,
                if s.panels == 1 { "" } else { "es" },
                m.box_dims[0],
                m.box_dims[1],
                m.swizzle,
                s.map
            ));
        }
        if let Some(d) = op.results.first().and_then(|r| self.wgmma.dots.get(r)) {
            let major = if d.n_major { "N-major" } else { "K-major" };
            let a = match d.a {
                Some(a) => format!("A through a descriptor of {a} (K-major)"),
                None => "A from registers".to_string(),
            };
            let flight = if d.in_flight {
                "; one group in flight across the loop's iterations (wait_group 1, a barrier, then the loop's copies)"
            } else {
                ""
            };
            lines.push(format!(
                "{reader} runs as wgmma.m64n{}k16: {a}, B through a descriptor of {} ({major}){flight}",
                self.k.shape(op.results[0]).dims()[1],
                d.source
            ));
        }
        lines
    }
}
