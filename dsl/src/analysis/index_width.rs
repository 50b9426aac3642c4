//! Which pointer offsets are computed in i32, and from what.
//!
//! For every `ptr + offset` ([`OpKind::AddPtr`]) the analysis records the pointer
//! parameter at the base, the width the offset is computed in, what the offset is
//! computed from (program ids, index tensors, loop indices, runtime arguments) and every
//! multiplication of an index by a runtime argument in its computation, with the width
//! that multiplication runs in. An i32 product of an index and a runtime argument is
//! where offsets overflow past 2^31 elements (triton-lang/triton#832, #1058, #5022):
//! Triton, and rtriton, compute index math in the type of its operands, so `pid * stride`
//! with both i32 wraps before the 64-bit pointer add.

use std::collections::{BTreeSet, HashMap};
use std::fmt;

use crate::ir::{
    BinaryOp, DType, Effect, Kernel, OpFamily, OpId, OpKind, ParamKind, ScalarType, SourceLoc, Value, ValueDef,
};

/// What an integer value is computed from.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Sources {
    /// `program_id(axis)` / `num_programs(axis)`, by axis.
    pub program_ids: BTreeSet<u32>,
    /// An index tensor made by `arange`.
    pub arange: bool,
    /// The induction variable of a `for_range` loop.
    pub loop_index: bool,
    /// Values loaded from memory (indirect indices).
    pub loaded: bool,
    /// Runtime integer arguments, by parameter index.
    pub params: BTreeSet<usize>,
}

impl Sources {
    /// Whether the value varies with the program or the element (an index).
    pub fn is_index(&self) -> bool {
        !self.program_ids.is_empty() || self.arange || self.loop_index || self.loaded
    }

    /// Whether a runtime argument takes part.
    pub fn has_runtime(&self) -> bool {
        !self.params.is_empty()
    }

    fn union(&mut self, other: &Sources) {
        self.program_ids.extend(other.program_ids.iter().copied());
        self.arange |= other.arange;
        self.loop_index |= other.loop_index;
        self.loaded |= other.loaded;
        self.params.extend(other.params.iter().copied());
    }

    /// `program_id(0) and arange and `stride_col``: the sources in words, for messages.
    pub fn describe(&self, kernel: &Kernel) -> String {
        let mut parts: Vec<String> = self.program_ids.iter().map(|a| format!("program_id({a})")).collect();
        if self.arange {
            parts.push("an arange index tensor".into());
        }
        if self.loop_index {
            parts.push("the loop index".into());
        }
        if self.loaded {
            parts.push("loaded indices".into());
        }
        parts.extend(self.params.iter().map(|p| format!("`{}`", kernel.params[*p].name)));
        if parts.is_empty() { "constants".into() } else { parts.join(" and ") }
    }
}

/// A multiplication of an index by a runtime argument inside a pointer offset.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct IndexProduct {
    pub op: OpId,
    pub loc: SourceLoc,
    /// The width the product is computed in.
    pub width: ScalarType,
    /// The operand that is an index (program id, arange, loop index).
    pub index: Sources,
    /// The operand that carries the runtime argument(s).
    pub runtime: Sources,
}

/// One `ptr + offset`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PointerOffset {
    /// The `addptr` op.
    pub op: OpId,
    pub loc: SourceLoc,
    /// The pointer parameter at the base of `ptr`, if it comes from one.
    pub param: Option<usize>,
    /// The width the offset added here is computed in.
    pub width: ScalarType,
    /// What the offset is computed from.
    pub sources: Sources,
    /// Every index-by-runtime-argument product in the offset's computation, in op order.
    pub products: Vec<IndexProduct>,
    /// Every i32-to-i64 widening in the offset's computation, in op order: where the
    /// index math switches to i64, and what is widened there.
    pub widenings: Vec<Widening>,
}

/// An i32 value widened to i64 inside a pointer offset's computation.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Widening {
    pub op: OpId,
    pub loc: SourceLoc,
    /// What the widened value is computed from.
    pub sources: Sources,
}

impl PointerOffset {
    /// The products computed in i32 (where overflow past 2^31 happens).
    pub fn i32_products(&self) -> impl Iterator<Item = &IndexProduct> {
        self.products.iter().filter(|p| p.width == ScalarType::I32)
    }

    /// Whether any part of this offset is computed in i32: the offset itself, or a
    /// product of an index and a runtime argument that is widened only afterwards.
    pub fn computed_in_i32(&self) -> bool {
        self.width == ScalarType::I32 || self.i32_products().next().is_some()
    }
}

/// The analysis result: every pointer offset of a kernel, in op order.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct IndexWidths {
    pub offsets: Vec<PointerOffset>,
}

impl IndexWidths {
    /// The offsets added to pointers derived from parameter `param`.
    pub fn of_param(&self, param: usize) -> impl Iterator<Item = &PointerOffset> {
        self.offsets.iter().filter(move |o| o.param == Some(param))
    }
}

/// Runs the analysis.
pub fn analyze(kernel: &Kernel) -> IndexWidths {
    let mut a = Analyzer::new(kernel);
    let mut offsets = Vec::new();
    for id in kernel.walk() {
        let op = kernel.op(id);
        let OpKind::AddPtr { ptr, offset } = op.kind else { continue };
        let width = kernel.dtype(offset).scalar().unwrap_or(ScalarType::I32);
        let sources = a.sources(offset);
        let mut slice = BTreeSet::new();
        a.slice(offset, &mut slice, &mut BTreeSet::new());
        let products = slice.iter().filter_map(|p| a.product(*p)).collect();
        let widenings = slice.iter().filter_map(|p| a.widening(*p)).collect();
        offsets.push(PointerOffset {
            op: id,
            loc: op.loc,
            param: a.base_param(ptr),
            width,
            sources,
            products,
            widenings,
        });
    }
    IndexWidths { offsets }
}

/// How a block argument is defined: a loop's induction variable, or a carried value with
/// its initial and yielded values.
#[derive(Clone, Copy)]
enum BlockArg {
    Induction,
    Carried { init: Value, next: Option<Value> },
}

struct Analyzer<'k> {
    k: &'k Kernel,
    block_args: HashMap<Value, BlockArg>,
    memo: HashMap<Value, Sources>,
}

impl<'k> Analyzer<'k> {
    fn new(k: &'k Kernel) -> Self {
        let mut block_args = HashMap::new();
        for id in k.walk() {
            if let OpKind::For { init, body, .. } = &k.op(id).kind {
                let yielded = k.yielded(body);
                if let Some(iv) = body.args.first() {
                    block_args.insert(*iv, BlockArg::Induction);
                }
                for (i, arg) in body.args.iter().skip(1).enumerate() {
                    if let Some(&init) = init.get(i) {
                        let next = yielded.as_ref().and_then(|y| y.get(i).copied());
                        block_args.insert(*arg, BlockArg::Carried { init, next });
                    }
                }
            }
            // A while's condition and body blocks both see the carried values.
            if let OpKind::While { init, before, after } = &k.op(id).kind {
                let yielded = k.yielded(after);
                for (i, &init) in init.iter().enumerate() {
                    let next = yielded.as_ref().and_then(|y| y.get(i).copied());
                    for arg in before.args.get(i).into_iter().chain(after.args.get(i)) {
                        block_args.insert(*arg, BlockArg::Carried { init, next });
                    }
                }
            }
        }
        Analyzer { k, block_args, memo: HashMap::new() }
    }

    /// The operands a value's definition reads (loop-carried arguments read their initial
    /// and yielded values).
    fn inputs(&self, v: Value) -> Vec<Value> {
        match self.k.values[v.index()].def {
            // An if's or while's result also reads what its regions yield in its place.
            ValueDef::Result { op, index } => {
                let kind = &self.k.op(op).kind;
                let mut inputs = kind.operands();
                if matches!(kind, OpKind::If { .. } | OpKind::While { .. }) {
                    for region in kind.regions() {
                        inputs.extend(self.k.yielded(region).and_then(|ys| ys.get(index)).copied());
                    }
                }
                inputs
            }
            ValueDef::BlockArg => match self.block_args.get(&v) {
                Some(BlockArg::Carried { init, next }) => std::iter::once(*init).chain(*next).collect(),
                // the induction variable and unknown arguments read nothing (not an op kind)
                _ => Vec::new(),
            },
        }
    }

    fn sources(&mut self, v: Value) -> Sources {
        if let Some(s) = self.memo.get(&v) {
            return s.clone();
        }
        // Cycle guard for loop-carried values: provisionally empty.
        self.memo.insert(v, Sources::default());
        let mut s = Sources::default();
        match self.k.values[v.index()].def {
            ValueDef::Result { op, .. } => match &self.k.op(op).kind {
                OpKind::Param { index } => {
                    if matches!(self.k.params[*index].kind, ParamKind::Scalar(t) if t.is_int()) {
                        s.params.insert(*index);
                    }
                }
                OpKind::ProgramId { axis } | OpKind::NumPrograms { axis } => {
                    s.program_ids.insert(*axis);
                }
                OpKind::Arange { .. } => s.arange = true,
                OpKind::Constant { .. } | OpKind::AddPtr { .. } => {}
                // Every other op by its effect (the op table's): what reads memory (a load,
                // and an atomic, whose old values come from memory like a load's) is loaded;
                // any other result (a reduction's or a loop's included) depends on its
                // inputs like any other op.
                kind => match kind.effect() {
                    Effect::ReadsMemory | Effect::ReadsWritesMemory => s.loaded = true,
                    Effect::Pure
                    | Effect::ProgramIndex
                    | Effect::WritesMemory
                    | Effect::WritesRing
                    | Effect::Assumes
                    | Effect::Debug
                    | Effect::Region
                    | Effect::Terminator => {
                        for i in self.inputs(v) {
                            let si = self.sources(i);
                            s.union(&si);
                        }
                    }
                },
            },
            ValueDef::BlockArg => match self.block_args.get(&v).copied() {
                Some(BlockArg::Induction) => s.loop_index = true,
                Some(BlockArg::Carried { .. }) => {
                    for i in self.inputs(v) {
                        let si = self.sources(i);
                        s.union(&si);
                    }
                }
                None => {}
            },
        }
        self.memo.insert(v, s.clone());
        s
    }

    /// Collects the `mul` and `cast` ops in `v`'s computation (through broadcasts and
    /// loops; loads and pointer adds start new addresses, analysed on their own).
    fn slice(&self, v: Value, out: &mut BTreeSet<OpId>, seen: &mut BTreeSet<Value>) {
        if !seen.insert(v) {
            return;
        }
        if let ValueDef::Result { op, .. } = self.k.values[v.index()].def {
            let kind = &self.k.op(op).kind;
            if matches!(kind, OpKind::Binary { op: BinaryOp::Mul, .. } | OpKind::Cast { .. }) {
                out.insert(op);
            }
            if matches!(kind, OpKind::Load { .. } | OpKind::RingRead { .. } | OpKind::AddPtr { .. }) {
                return;
            }
        }
        for i in self.inputs(v) {
            self.slice(i, out, seen);
        }
    }

    /// The cast `op` if it widens an i32 to i64.
    fn widening(&mut self, op: OpId) -> Option<Widening> {
        let o = self.k.op(op);
        let OpKind::Cast { value: v } = o.kind else { return None };
        let from = self.k.dtype(v).scalar()?;
        let to = self.k.dtype(*o.results.first()?).scalar()?;
        if (from, to) != (ScalarType::I32, ScalarType::I64) {
            return None;
        }
        Some(Widening { op, loc: o.loc, sources: self.sources(v) })
    }

    /// The product `op` if it multiplies an index by a runtime argument.
    fn product(&mut self, op: OpId) -> Option<IndexProduct> {
        let o = self.k.op(op);
        let OpKind::Binary { op: BinaryOp::Mul, lhs, rhs } = o.kind else { return None };
        let (l, r) = (self.sources(lhs), self.sources(rhs));
        let (index, runtime) = if l.is_index() && r.has_runtime() {
            (l, r)
        } else if r.is_index() && l.has_runtime() {
            (r, l)
        } else {
            return None;
        };
        let width = self.k.dtype(lhs).scalar()?;
        Some(IndexProduct { op, loc: o.loc, width, index, runtime })
    }

    /// The pointer parameter `ptr` is derived from.
    fn base_param(&self, ptr: Value) -> Option<usize> {
        let mut v = ptr;
        for _ in 0..self.k.values.len() {
            match self.k.values[v.index()].def {
                ValueDef::Result { op, .. } => match &self.k.op(op).kind {
                    OpKind::Param { index } => {
                        return matches!(self.k.dtype(v), DType::Ptr(_)).then_some(*index);
                    }
                    OpKind::AddPtr { ptr, .. } => v = *ptr,
                    OpKind::Select { on_true, .. } => v = *on_true,
                    OpKind::For { init, .. } | OpKind::While { init, .. } => {
                        let index = self.k.op(op).results.iter().position(|r| *r == v)?;
                        v = *init.get(index)?;
                    }
                    // A pointer chosen by an if: the then branch's (both lead to
                    // parameters in any kernel this analysis reports on).
                    OpKind::If { then_body, .. } => {
                        let index = self.k.op(op).results.iter().position(|r| *r == v)?;
                        v = *self.k.yielded(then_body)?.get(index)?;
                    }
                    // Every other op by its family (the op table's): a shape op's result
                    // elements are its operand's, so its pointers are (both halves of a join
                    // come from pointers; the first names the parameter); any other op's
                    // result is not a pointer that leads back to a parameter.
                    kind => match kind.family() {
                        OpFamily::Shape => v = *kind.operands().first()?,
                        OpFamily::Source
                        | OpFamily::Elementwise
                        | OpFamily::Memory
                        | OpFamily::Reduction
                        | OpFamily::Dot
                        | OpFamily::Control => return None,
                    },
                },
                ValueDef::BlockArg => match self.block_args.get(&v) {
                    Some(BlockArg::Carried { init, .. }) => v = *init,
                    // the induction variable is not a pointer (not an op kind)
                    _ => return None,
                },
            }
        }
        None
    }
}

impl fmt::Display for IndexProduct {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} mul at {}", self.width, self.loc.short())
    }
}
