//! The op table: every block-IR op declared once.
//!
//! In the spirit of Cranelift's meta crate and MLIR's ODS, each op is one entry of
//! [`declare_ops!`] below: its fields (operands are the fields of type [`Value`],
//! `Option<Value>` or `Vec<Value>`; everything else is an attribute), its name in IR text,
//! its [`OpFamily`], its [`Effect`] and its typing rule (a function of [`super::typing`]).
//! From the table come the [`OpKind`] enum, [`OpKind::operands`], [`OpKind::map_operands`],
//! [`OpKind::name`], [`OpKind::family`], [`OpKind::effect`] and [`OpKind::check_types`]
//! (what the verifier runs). Every other place that handles op kinds (printer,
//! interpreter, lowering, analyses) matches [`OpKind`] exhaustively where it computes
//! something for each op, so adding an entry here makes the compiler list each place to
//! change (`docs/adding-an-op.md`); a place that only sorts ops into kinds (which ops may
//! be recomputed, which tie their operands' layouts) matches the op's family instead, so
//! a new op of an existing family needs no edit there.

use super::typing::{self, TypeCx};
use super::{
    AsmModel, AtomicOp, BinaryOp, Block, CmpPred, Constant, HintKind, InputPrecision, ReduceOp, Scope, Sem, UnaryOp,
    Value,
};

/// What running an op does besides computing its results.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Effect {
    /// A function of its operands and of launch-wide facts (arguments, grid size): the same
    /// in every program, so it may be computed once, and removed when unused.
    Pure,
    /// Pure, but depends on which program runs it (`program_id`).
    ProgramIndex,
    /// Reads global memory: removable when unused, not movable across stores.
    ReadsMemory,
    /// Writes global memory: never removed.
    WritesMemory,
    /// Reads and writes global memory in one step (an atomic): never removed, even when
    /// its result (the old values) is unused.
    ReadsWritesMemory,
    /// Reads global memory into a slot of one of the program's own staging rings
    /// (`async_copy`): never removed; no other program sees the ring.
    WritesRing,
    /// A promise about its operands (`assume`): the interpreter checks it, analyses rely on
    /// it, nothing runs on the GPU; never removed.
    Assumes,
    /// Prints or checks at run time (`device_print`, `device_assert`): never removed, so
    /// a print of an otherwise unused value stays. The interpreter always runs it; the PTX
    /// back end emits it only in debug mode (`PtxOptions::debug`).
    Debug,
    /// Holds a nested block (a loop): live when its body is.
    Region,
    /// Ends a block, handing values to the op that holds it.
    Terminator,
}

impl Effect {
    /// Whether an op of this effect stays when nothing reads its results (a store, an
    /// atomic, a copy into a ring, a promise): what dead-code removal and the lowering
    /// keep. A region is kept when its body is; a terminator goes with its region.
    pub fn kept_unused(self) -> bool {
        match self {
            Effect::WritesMemory | Effect::ReadsWritesMemory | Effect::WritesRing | Effect::Assumes | Effect::Debug => {
                true
            }
            Effect::Pure | Effect::ProgramIndex | Effect::ReadsMemory | Effect::Region | Effect::Terminator => false,
        }
    }
}

/// What kind of computation an op is. The passes that treat every op of a kind alike
/// classify ops by it (layout assignment, rematerialization, the index-width analysis),
/// and the PTX lowering of each family has a file of its own under
/// `backend/ptx/lower/`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum OpFamily {
    /// Values made from no block operand: kernel arguments, constants, the program's
    /// index, the grid size, `arange`.
    Source,
    /// Elements rearranged, none computed: `splat`, `broadcast`, `expand_dims`,
    /// `permute`, `reshape`, `join`, `split`. Each result element is an element of the
    /// (first) operand's, or of the second operand's for `join`.
    Shape,
    /// Result element `i` is a function of element `i` of every operand: operands and
    /// results have one shape, so they may share one layout, and the op may be computed
    /// in any layout.
    Elementwise,
    /// Global memory accesses (loads, stores, atomics) and the barrier that orders them.
    Memory,
    /// Reductions and scans along an axis.
    Reduction,
    /// Matrix products (`dot`): each result element combines a row of the first operand
    /// with a column of the second, so no operand shares the result's layout element by
    /// element.
    Dot,
    /// Regions (loops, `if`) and the terminator that ends their blocks.
    Control,
}

/// The values an op field holds, for the operand accessors the table generates. Fields of
/// other types are attributes and hold none.
pub trait OpField: Sized {
    /// Appends the values this field reads.
    fn collect(&self, out: &mut Vec<Value>);
    /// This field with every value `v` replaced by `f(v)`.
    fn remap(&self, f: &mut dyn FnMut(Value) -> Value) -> Self;
    /// Appends the nested blocks (regions) this field holds: only a [`Block`] has one.
    fn regions<'a>(&'a self, _out: &mut Vec<&'a Block>) {}
    /// As [`OpField::regions`], mutable (the IR text parser fills parsed blocks in).
    fn regions_mut<'a>(&'a mut self, _out: &mut Vec<&'a mut Block>) {}
}

impl OpField for Value {
    fn collect(&self, out: &mut Vec<Value>) {
        out.push(*self);
    }
    fn remap(&self, f: &mut dyn FnMut(Value) -> Value) -> Self {
        f(*self)
    }
}

impl OpField for Option<Value> {
    fn collect(&self, out: &mut Vec<Value>) {
        out.extend(self.iter().copied());
    }
    fn remap(&self, f: &mut dyn FnMut(Value) -> Value) -> Self {
        self.map(f)
    }
}

impl OpField for Vec<Value> {
    fn collect(&self, out: &mut Vec<Value>) {
        out.extend(self.iter().copied());
    }
    fn remap(&self, f: &mut dyn FnMut(Value) -> Value) -> Self {
        self.iter().map(|v| f(*v)).collect()
    }
}

/// Attribute fields: no operands; copied unchanged by [`OpKind::map_operands`].
macro_rules! attribute_fields {
    ($($t:ty),* $(,)?) => {$(
        impl OpField for $t {
            fn collect(&self, _: &mut Vec<Value>) {}
            fn remap(&self, _: &mut dyn FnMut(Value) -> Value) -> Self {
                self.clone()
            }
        }
    )*};
}

// A nested block is an attribute here: its values are not the op's operands, and passes
// rebuild bodies themselves, block by block.
attribute_fields!(
    bool,
    String,
    usize,
    u32,
    u64,
    i64,
    Constant,
    UnaryOp,
    BinaryOp,
    CmpPred,
    ReduceOp,
    AtomicOp,
    Sem,
    Scope,
    InputPrecision,
    Vec<usize>,
    Option<AsmModel>,
    HintKind,
    Vec<u64>
);

impl OpField for Block {
    fn collect(&self, _: &mut Vec<Value>) {}
    fn remap(&self, _: &mut dyn FnMut(Value) -> Value) -> Self {
        self.clone()
    }
    fn regions<'a>(&'a self, out: &mut Vec<&'a Block>) {
        out.push(self);
    }
    fn regions_mut<'a>(&'a mut self, out: &mut Vec<&'a mut Block>) {
        out.push(self);
    }
}

/// Declares [`OpKind`] and everything derived from the table. Each entry:
///
/// ```text
/// /// docs (the typing rule, in words)
/// Name { field: Type, ... } => name: <expr, fields in scope>, family: OpFamily::X,
///     effect: Effect::X, typing: |cx, out| <expr calling super::typing, fields in scope>;
/// ```
macro_rules! declare_ops {
    ($(
        $(#[doc = $doc:literal])*
        $op:ident { $($field:ident : $fty:ty),* $(,)? }
            => name: $name:expr, family: $family:expr, effect: $effect:expr,
               typing: |$cx:ident, $out:ident| $typing:expr;
    )*) => {
        /// What an op does. The typing rule of each op is on its variant; the table in
        /// `ir/ops.rs` is the one place ops are declared.
        #[derive(Clone, Debug, PartialEq)]
        pub enum OpKind {
            $( $(#[doc = $doc])* $op { $($field: $fty),* }, )*
        }

        impl OpKind {
            /// The values this op reads (not those of nested blocks), in field order.
            pub fn operands(&self) -> Vec<Value> {
                let mut out = Vec::new();
                match self {
                    $( OpKind::$op { $($field),* } => { $( OpField::collect($field, &mut out); )* } )*
                }
                out
            }

            /// This op with every operand `v` replaced by `f(v)`; a nested body is copied
            /// unchanged.
            pub fn map_operands(&self, mut f: impl FnMut(Value) -> Value) -> OpKind {
                match self {
                    $( OpKind::$op { $($field),* } => OpKind::$op { $($field: OpField::remap($field, &mut f)),* }, )*
                }
            }

            /// The nested blocks (regions) of the op, in field order: a `for`'s body, an
            /// `if`'s then and else blocks, a `while`'s condition and body blocks.
            pub fn regions(&self) -> Vec<&Block> {
                let mut out = Vec::new();
                match self {
                    $( OpKind::$op { $($field),* } => { $( OpField::regions($field, &mut out); )* } )*
                }
                out
            }

            /// The nested blocks, mutable, in the order of [`OpKind::regions`].
            pub fn regions_mut(&mut self) -> Vec<&mut Block> {
                let mut out = Vec::new();
                match self {
                    $( OpKind::$op { $($field),* } => { $( OpField::regions_mut($field, &mut out); )* } )*
                }
                out
            }

            /// The op's name in IR text.
            #[allow(unused_variables, reason = "a name is a function of some fields only")]
            pub fn name(&self) -> &'static str {
                match self {
                    $( OpKind::$op { $($field),* } => $name, )*
                }
            }

            /// The kind of computation the op is.
            #[allow(unused_variables, reason = "the family of an op does not depend on fields")]
            pub fn family(&self) -> OpFamily {
                match self {
                    $( OpKind::$op { $($field),* } => $family, )*
                }
            }

            /// What running the op does besides computing its results.
            #[allow(unused_variables, reason = "the effect of most ops does not depend on fields")]
            pub fn effect(&self) -> Effect {
                match self {
                    $( OpKind::$op { $($field),* } => $effect, )*
                }
            }

            /// The op's typing rule: what is wrong with its operand and result types
            /// (empty when it type-checks). The verifier reports each with the op's location.
            #[allow(unused_variables, reason = "a typing rule reads the fields it needs")]
            pub fn check_types(&self, cx: &TypeCx<'_>) -> Vec<String> {
                let mut problems = Vec::new();
                match self {
                    $( OpKind::$op { $($field),* } => {
                        let ($cx, $out) = (cx, &mut problems);
                        $typing
                    } )*
                }
                problems
            }
        }
    };
}

declare_ops! {
    /// The runtime kernel argument `index` (a scalar of the parameter's dtype). Arguments
    /// folded by specialization never appear as `Param`: they are `Constant`s.
    Param { index: usize }
        => name: "param", family: OpFamily::Source, effect: Effect::Pure,
           typing: |cx, out| typing::param(cx, out, *index);
    /// A constant splat to the result's shape and dtype.
    Constant { value: Constant }
        => name: "constant", family: OpFamily::Source, effect: Effect::Pure,
           typing: |cx, out| typing::results(cx, out, 1);
    /// Scalar `i32`: this program's index along `axis` (0..3).
    ProgramId { axis: u32 }
        => name: "program_id", family: OpFamily::Source, effect: Effect::ProgramIndex,
           typing: |cx, out| typing::results(cx, out, 1);
    /// Scalar `i32`: the grid size along `axis`.
    NumPrograms { axis: u32 }
        => name: "num_programs", family: OpFamily::Source, effect: Effect::Pure,
           typing: |cx, out| typing::results(cx, out, 1);
    /// `tensor<Nxi32>` with `N = end - start` (a power of two): `start, start + 1, ...`.
    Arange { start: i64, end: i64 }
        => name: "arange", family: OpFamily::Source, effect: Effect::Pure,
           typing: |cx, out| typing::arange(cx, out, *start, *end);
    /// Scalar to block: every element equals the operand.
    Splat { value: Value }
        => name: "splat", family: OpFamily::Shape, effect: Effect::Pure,
           typing: |cx, out| typing::splat(cx, out, *value);
    /// Dims of size 1 in the operand are repeated to the result's shape (same rank).
    Broadcast { value: Value }
        => name: "broadcast", family: OpFamily::Shape, effect: Effect::Pure,
           typing: |cx, out| typing::broadcast(cx, out, *value);
    /// Inserts a dim of size 1 at `axis` (Triton's `x[:, None]` / `x[None, :]`).
    ExpandDims { value: Value, axis: usize }
        => name: "expand_dims", family: OpFamily::Shape, effect: Effect::Pure,
           typing: |cx, out| typing::expand_dims(cx, out, *value, *axis);
    /// Result dim `i` is operand dim `dims[i]` (`dims` a permutation of `0..rank`); one
    /// dtype (Triton's `permute`, and `trans` for 2-D).
    Permute { value: Value, dims: Vec<usize> }
        => name: "permute", family: OpFamily::Shape, effect: Effect::Pure,
           typing: |cx, out| typing::permute(cx, out, *value, dims);
    /// The operand's elements in row-major order, read into the result's shape (same
    /// element count and dtype; Triton's `reshape` with `can_reorder=False`).
    Reshape { value: Value }
        => name: "reshape", family: OpFamily::Shape, effect: Effect::Pure,
           typing: |cx, out| typing::reshape(cx, out, *value);
    /// Stacks `lhs` and `rhs` (one type) along a new trailing dim of size 2:
    /// `result[..., 0] = lhs`, `result[..., 1] = rhs` (Triton's `join`).
    Join { lhs: Value, rhs: Value }
        => name: "join", family: OpFamily::Shape, effect: Effect::Pure,
           typing: |cx, out| typing::join(cx, out, *lhs, *rhs);
    /// The operand unchanged, held in another layout (Triton's `ttg.convert_layout`). The
    /// front end never writes it: the PTX back end's layout stage
    /// (`backend/ptx/layout/stage.rs`) inserts one where an op reads a value in another
    /// layout than the value's own, and the lowering moves the elements (recomputing the
    /// value where that is cheap, else through shared memory). One type on both sides.
    ConvertLayout { value: Value }
        => name: "convert_layout", family: OpFamily::Shape, effect: Effect::Pure,
           typing: |cx, out| typing::same_type(cx, out, *value);
    /// The inverse of `join`: two results, `value[..., 0]` and `value[..., 1]`, of a
    /// value whose last dim has size 2 (Triton's `split`).
    Split { value: Value }
        => name: "split", family: OpFamily::Shape, effect: Effect::Pure,
           typing: |cx, out| typing::split(cx, out, *value);
    /// Element-wise `op value`; operand and result have one dtype and shape, and the
    /// dtype is one the op accepts ([`UnaryOp::accepts`]).
    Unary { op: UnaryOp, value: Value }
        => name: op.name(), family: OpFamily::Elementwise, effect: Effect::Pure,
           typing: |cx, out| typing::unary(cx, out, *op, *value);
    /// Element-wise `lhs op rhs`; same dtype and shape on both sides and the result, a
    /// dtype the op accepts ([`BinaryOp::accepts`]).
    Binary { op: BinaryOp, lhs: Value, rhs: Value }
        => name: op.name(), family: OpFamily::Elementwise, effect: Effect::Pure,
           typing: |cx, out| typing::binary(cx, out, *op, *lhs, *rhs);
    /// Element-wise `a * b + c` rounded once (`tl.fma`, PTX `fma.rn`): three operands and
    /// the result of one float dtype and shape.
    Fma { a: Value, b: Value, c: Value }
        => name: "fma", family: OpFamily::Elementwise, effect: Effect::Pure,
           typing: |cx, out| typing::fma(cx, out, [*a, *b, *c]);
    /// Element-wise comparison into `i1`.
    Compare { pred: CmpPred, lhs: Value, rhs: Value }
        => name: "cmp", family: OpFamily::Elementwise, effect: Effect::Pure,
           typing: |cx, out| typing::compare(cx, out, *lhs, *rhs);
    /// Element-wise conversion to the result's dtype: int widening sign-extends, int
    /// narrowing wraps, int to float rounds to nearest, float to int truncates.
    Cast { value: Value }
        => name: "cast", family: OpFamily::Elementwise, effect: Effect::Pure,
           typing: |cx, out| typing::cast(cx, out, *value);
    /// The operand unchanged, with the author's promise that every element is a multiple of
    /// `divisor` (at least 1; Triton's `tl.multiple_of`). Analyses may assume it (AxisInfo's
    /// divisibility, so loads whose offsets use it can be vectors); the interpreter checks it
    /// and stops with a located error where an element breaks it. Int operand, result of
    /// the operand's type.
    MultipleOf { value: Value, divisor: u64 }
        => name: "multiple_of", family: OpFamily::Elementwise, effect: Effect::Pure,
           typing: |cx, out| typing::multiple_of(cx, out, *value, *divisor);
    /// Element-wise inline PTX (Triton's `tl.inline_asm_elementwise`): every result element
    /// is what `asm` computes from the arguments' elements at its position, `pack` elements
    /// an invocation, through the registers `constraints` names (`ir/inline_asm.rs`: the
    /// register plan, the typing rule). Arguments and results share one shape; at least
    /// one result; no `i1`. Pure (`is_pure`) asm may be removed when unused; impure asm is
    /// kept and ordered like a store. `model`, when given, is the CPU function the
    /// interpreter and the simulator run in its place (the IR text prints its name).
    InlineAsm { asm: String, constraints: String, args: Vec<Value>, is_pure: bool, pack: u32, model: Option<AsmModel> }
        => name: "inline_asm", family: OpFamily::Elementwise,
           effect: if *is_pure { Effect::Pure } else { Effect::WritesMemory },
           typing: |cx, out| super::inline_asm::typing(cx, out, asm, constraints, args, *pack);
    /// The operand unchanged, with the author's promise about its runs along each dim
    /// (Triton's `tl.max_contiguous` / `tl.max_constancy`, `ir/axis_hint.rs`): one value per
    /// dim, each at least 1. AxisInfo takes the larger of what it proves and the promise,
    /// so loads and stores through it can be vectors; nothing is computed or checked (a
    /// broken promise can make vector accesses touch the wrong elements on the GPU).
    AxisHint { value: Value, hint: HintKind, values: Vec<u64> }
        => name: hint.name(), family: OpFamily::Elementwise, effect: Effect::Pure,
           typing: |cx, out| super::axis_hint::typing(cx, out, *hint, *value, values);
    /// The operand's bits reinterpreted as the result's dtype (Triton's
    /// `cast(x, dtype, bitcast=True)`): two non-pointer dtypes of one bit width, one shape.
    Bitcast { value: Value }
        => name: "bitcast", family: OpFamily::Elementwise, effect: Effect::Pure,
           typing: |cx, out| typing::bitcast(cx, out, *value);
    /// `cond ? on_true : on_false` element-wise (Triton's `where`).
    Select { cond: Value, on_true: Value, on_false: Value }
        => name: "where", family: OpFamily::Elementwise, effect: Effect::Pure,
           typing: |cx, out| typing::select(cx, out, *cond, *on_true, *on_false);
    /// Pointer arithmetic: `ptr + offset` elements (the offset is an int tensor of the
    /// same shape; the byte offset is `offset * sizeof(pointee)` in 64 bits).
    AddPtr { ptr: Value, offset: Value }
        => name: "addptr", family: OpFamily::Elementwise, effect: Effect::Pure,
           typing: |cx, out| typing::add_ptr(cx, out, *ptr, *offset);
    /// Reads the pointee of every element of `ptr` whose `mask` is true; the others give
    /// `other` (a value of the result's type) or an unspecified value when there is none.
    /// `staged` (`load_staged` in IR text, `lang::load_staged`) changes no result: it lets
    /// the back end move the data through shared memory asynchronously (`cp.async`), so no
    /// register holds it while it is in flight. It is an attribute of `load`, not an op of
    /// its own, because every rule of `load` (typing, masks, `other`, effects, analyses)
    /// holds for it unchanged; only the PTX lowering reads it (`lower/staged.rs`), as
    /// Triton's back end alone reads a `tt.load`'s cache modifier.
    /// `desc` (empty, or `[base, dims.., strides.., offsets..]`, `ir::desc_parts`) is the
    /// tensor descriptor or block pointer whose block this is, bounds-checked along every
    /// dim: `ptr` and `mask` are then exactly its elements' pointers and bounds, so it
    /// changes no result; a back end may copy the block with tensor copies (TMA) instead.
    Load { ptr: Value, mask: Option<Value>, other: Option<Value>, staged: bool, desc: Vec<Value> }
        => name: if *staged { "load_staged" } else { "load" }, family: OpFamily::Memory, effect: Effect::ReadsMemory,
           typing: |cx, out| typing::load(cx, out, *ptr, *mask, *other, desc);
    /// Copies the block `ptr` points to into slot `slot` (an `i32` scalar in `0..slots`) of
    /// staging ring `ring` of this program (every copy into a ring names its `slots`): the elements whose `mask` is false are `other`, or 0 when
    /// there is none. No results; `ring_read` reads the slot back. Written by the pipelining
    /// pass (`passes/pipeline.rs`): the PTX back end copies with `cp.async` into shared
    /// memory, so a loop's next tiles are in flight while it computes on this one.
    /// `desc` is the copied load's (see `Load`); with it, `when` is the scalar the mask's
    /// every element is also ANDed with (the copy's iteration exists), so a back end that
    /// copies the box through the descriptor knows whether to copy at all.
    AsyncCopy { ptr: Value, mask: Option<Value>, other: Option<Value>, ring: u32, slots: u32, slot: Value, desc: Vec<Value>, when: Option<Value> }
        => name: "async_copy", family: OpFamily::Memory, effect: Effect::WritesRing,
           typing: |cx, out| typing::async_copy(cx, out, *ptr, *mask, *other, *slot, (desc, *when));
    /// The block in slot `slot` of staging ring `ring`, as the last `async_copy` into that
    /// slot left it (of the copied pointers' shape and pointee type). `pending` is the
    /// back end's: how many of the program's most recent copies may still be in flight
    /// when this read waits (`cp.async.wait_group`); it changes no result.
    RingRead { ring: u32, slot: Value, pending: u32 }
        => name: "ring_read", family: OpFamily::Memory, effect: Effect::ReadsMemory,
           typing: |cx, out| typing::ring_read(cx, out, *slot);
    /// Writes `value` to every element of `ptr` whose `mask` is true. No results. `desc`
    /// is as `Load`'s: the parts of the tensor descriptor or block pointer whose block this
    /// is, so a back end may write the block with tensor copies (TMA) instead.
    Store { ptr: Value, value: Value, mask: Option<Value>, desc: Vec<Value> }
        => name: "store", family: OpFamily::Memory, effect: Effect::WritesMemory,
           typing: |cx, out| typing::store(cx, out, *ptr, *value, *mask, desc);
    /// For every element of `ptr` whose `mask` is true, atomically `old = *p; *p = old op
    /// value`; the result (of the pointee type and the pointers' shape) is `old`, 0 where the
    /// mask is false. `value` has the pointee type and the pointers' shape, and the pointee
    /// type is one `op` accepts ([`AtomicOp::accepts`]).
    AtomicRmw { op: AtomicOp, ptr: Value, value: Value, mask: Option<Value>, sem: Sem, scope: Scope }
        => name: op.name(), family: OpFamily::Memory, effect: Effect::ReadsWritesMemory,
           typing: |cx, out| typing::atomic_rmw(cx, out, *op, *ptr, *value, *mask);
    /// For every element of `ptr`, atomically `old = *p; if old == cmp { *p = value }`
    /// (bitwise equality); the result is `old`. `cmp` and `value` have the pointee type and
    /// the pointers' shape.
    AtomicCas { ptr: Value, cmp: Value, value: Value, sem: Sem, scope: Scope }
        => name: "atomic_cas", family: OpFamily::Memory, effect: Effect::ReadsWritesMemory,
           typing: |cx, out| typing::atomic_cas(cx, out, *ptr, *cmp, *value);
    /// Every thread of the program waits here until all have arrived, and the memory
    /// accesses each made before it are visible to all of them after it (Triton's
    /// `tl.debug_barrier()`, PTX `bar.sync 0`). No operands, no results. Its effect is
    /// `WritesMemory` so that no pass removes it or moves a memory access across it.
    /// The author's promise that every element of `cond` (an `i1` scalar or block) is true
    /// (Triton's `tl.assume`). No results, nothing computed. Analyses may rely on it: at
    /// the kernel's top level, `assume(x >= c)` with `c >= 0` (or `x > c` with `c >= -1`)
    /// makes `x` non-negative for AxisInfo, so `(x + arange) % n` keeps its contiguity
    /// (`backend/ptx/axis_info.rs`). The interpreter checks it and stops with a located
    /// `RT0410` error where it is false: on the GPU a broken promise can make vector loads
    /// read the wrong elements.
    Assume { cond: Value }
        => name: "assume", family: OpFamily::Control, effect: Effect::Assumes,
           typing: |cx, out| typing::assume(cx, out, *cond);
    DebugBarrier {}
        => name: "debug_barrier", family: OpFamily::Memory, effect: Effect::WritesMemory,
           typing: |cx, out| typing::results(cx, out, 0);
    /// Prints every element of each of `values` (blocks or scalars of any dtype), one line
    /// an element, headed by the program's index, the element's index and `prefix`
    /// (Triton's `tl.device_print`). No results. The interpreter prints to its print sink;
    /// the PTX back end emits it only in debug mode, as `vprintf` calls
    /// (`docs/semantics.md`, "Debugging ops").
    DevicePrint { prefix: String, values: Vec<Value> }
        => name: "device_print", family: OpFamily::Control, effect: Effect::Debug,
           typing: |cx, out| typing::device_print(cx, out, values);
    /// Stops the launch where an element of `cond` (an `i1` scalar or block) is false,
    /// reporting `msg` (Triton's `tl.device_assert`). No results. The interpreter always
    /// checks it (a located `RT0411`); the PTX back end emits it only in debug mode, as an
    /// `__assertfail` call where an element is false (the simulator's located `RT0525`).
    DeviceAssert { cond: Value, msg: String }
        => name: "device_assert", family: OpFamily::Control, effect: Effect::Debug,
           typing: |cx, out| typing::device_assert(cx, out, *cond);
    /// Reduces `value` along `axis`; the result drops that dim.
    Reduce { op: ReduceOp, value: Value, axis: usize }
        => name: "reduce", family: OpFamily::Reduction, effect: Effect::Pure,
           typing: |cx, out| typing::reduce(cx, out, *op, *value, *axis);
    /// Reduces the blocks `values` (one or more, of one shape) along `axis` with the
    /// `combine` region (Triton's `tl.reduce`): the region's arguments are
    /// `[a_0.., b_0..]`, one scalar per operand twice, and it ends with `Yield` of one
    /// scalar per operand of the operand's dtype; the results drop `axis`. The combine
    /// order is the balanced tree over positions (`docs/semantics.md`, Reductions).
    ReduceWith { values: Vec<Value>, axis: usize, combine: Block }
        => name: "reduce_with", family: OpFamily::Reduction, effect: Effect::Pure,
           typing: |cx, out| typing::combine_op(cx, out, values, *axis, combine, true);
    /// Inclusive scan of the blocks `values` along `axis` with the `combine` region
    /// (Triton's `tl.associative_scan`); region as for `ReduceWith`, results of the
    /// operands' types. Combine order: the Hillis-Steele rounds (`docs/semantics.md`).
    Scan { values: Vec<Value>, axis: usize, combine: Block }
        => name: "scan", family: OpFamily::Reduction, effect: Effect::Pure,
           typing: |cx, out| typing::combine_op(cx, out, values, *axis, combine, false);
    /// `acc + a @ b` (Triton's `tl.dot`): `a` is `[M, K]`, `b` is `[K, N]`, `acc` and the
    /// result `[M, N]`, each of `M`, `N`, `K` a power of two of at least 16. Operand dtypes
    /// and the accumulator's: `f16 x f16` and `bf16 x bf16` into `f32`, `f32 x f32` into
    /// `f32` (`input_precision` `ieee` or `tf32`), `i8 x i8` into `i32`. The order of the
    /// accumulation is the interpreter's (`interp/dot.rs`, `docs/semantics.md`).
    Dot { a: Value, b: Value, acc: Value, input_precision: InputPrecision }
        => name: "dot", family: OpFamily::Dot, effect: Effect::Pure,
           typing: |cx, out| typing::dot(cx, out, *a, *b, *acc, *input_precision);
    /// `for iv in (lower..upper).step_by(step)` with loop-carried values: the body's
    /// arguments are `[iv, carried...]`, it ends with `Yield(next carried...)`, and the
    /// op's results are the carried values after the last iteration (`init` when the range
    /// is empty). Bounds and step are scalars of one int type; `step` must be positive.
    /// `unroll` (at least 1; Triton's `loop_unroll_factor`) asks the back end for that many
    /// copies of the body per trip of its main loop: it changes no result.
    For { lower: Value, upper: Value, step: Value, init: Vec<Value>, body: Block, unroll: u32, stages: u32 }
        => name: "for", family: OpFamily::Control, effect: Effect::Region,
           typing: |cx, out| typing::for_loop(cx, out, [*lower, *upper, *step], init, body, *unroll);
    /// `if cond { then_body } else { else_body }` on a runtime scalar `i1` (one value per
    /// program, so the branch is uniform across the CTA). Both blocks take no arguments
    /// and end with `Yield` of one value per result, of the results' types; a block that
    /// yields nothing is an `if` without results (an `if` without `else` has an else block
    /// that only yields). Values defined in a block are not visible after the `if`.
    If { cond: Value, then_body: Block, else_body: Block }
        => name: "if", family: OpFamily::Control, effect: Effect::Region,
           typing: |cx, out| super::control_typing::if_op(cx, out, *cond, then_body, else_body);
    /// `while before(carried) { carried = after(carried) }` (Triton's `scf.while`): both
    /// blocks take the carried values as arguments; `before` ends with `Yield(cond)` (a
    /// scalar `i1`), `after` with `Yield(next carried...)`. The op's results are the
    /// carried values the first time `cond` is false (`init` when it is false at once).
    While { init: Vec<Value>, before: Block, after: Block }
        => name: "while", family: OpFamily::Control, effect: Effect::Region,
           typing: |cx, out| super::control_typing::while_loop(cx, out, init, before, after);
    /// Ends a region (a loop body, an `if` branch, a `while` block) with the values it
    /// hands to the op that holds it.
    Yield { values: Vec<Value> }
        => name: "yield", family: OpFamily::Control, effect: Effect::Terminator,
           typing: |cx, out| { let _ = (cx, out, values); };
}
