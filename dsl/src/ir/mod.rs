//! The block-level IR: what a traced kernel is.
//!
//! # Launch model
//! A kernel runs as a grid of *programs* (Triton's program instances, CUDA's CTAs). Each
//! program executes the kernel body once; `program_id(axis)` tells it which one it is.
//! There are no threads or warps at this level: every value is a *block tensor* whose
//! elements the program computes together. The PTX back end decides how the elements are
//! spread over threads; the interpreter computes them one after another.
//!
//! # Values
//! The IR is in SSA form. Every [`Value`] has a [`TensorType`] (element [`DType`] and
//! compile-time [`Shape`], `[]` for scalars) and is defined exactly once, by an op result
//! or as an argument of a [`Block`]. Ops that combine values require equal shapes and
//! equal dtypes: broadcasting and integer promotion are made explicit by the front end
//! (`lang::semantic`) with [`OpKind::Splat`], [`OpKind::Broadcast`] and [`OpKind::Cast`]
//! ops, so the verifier, interpreter and back end never guess.
//!
//! # Blocks and control flow
//! The kernel body is one [`Block`] of ops in program order. Control flow is structured:
//! the [`OpKind::For`] loop over a runtime range (its body block takes the induction
//! variable and the loop-carried values as arguments), the [`OpKind::If`] on a runtime
//! scalar condition and the [`OpKind::While`] loop with carried values. Every nested block
//! (a *region*, [`OpKind::regions`]) ends with [`OpKind::Yield`]; a value defined in a
//! region is visible only inside it (hand it out through the yield). Conditions and loop
//! bounds are scalars, the same for every thread of a program, so control flow never
//! diverges inside a CTA. Compile-time loops are plain Rust loops while tracing and leave
//! no trace in the IR.
//!
//! # Memory effects
//! Only [`OpKind::Load`] reads and [`OpKind::Store`] writes global memory, element by
//! element, for the lanes whose mask is true; masked-off lanes do not touch memory (a load
//! gives `other`). The atomics ([`OpKind::AtomicRmw`], [`OpKind::AtomicCas`]) read and
//! write each element in one indivisible step. Effects happen in program order within a program; the order between
//! programs is unspecified, as on the GPU.
//!
//! # Locations
//! Every op records the [`SourceLoc`] of the DSL call that created it, so every
//! diagnostic (verifier, interpreter, back end, lint) can name the author's file:line.

mod atomic;
pub mod axis_hint;
mod control_typing;
mod desc;
mod dot;
mod entities;
pub mod inline_asm;
mod location;
mod ops;
mod parse;
pub mod printer;
mod types;
mod typing;

pub use atomic::{AtomicOp, Scope, Sem, cas_accepts};
pub use axis_hint::HintKind;
pub use desc::{DescParts, desc_parts};
pub use dot::{DOT_MIN_DIM, InputPrecision, dot_acc_type, dot_shape_problem};
pub use entities::{OpId, Value};
pub use inline_asm::{AsmModel, AsmModelFn};
pub use location::SourceLoc;
pub use ops::{Effect, OpFamily, OpField, OpKind};
pub use parse::{ParseError, parse};
pub use printer::print;
pub use types::{DType, Fp8Format, MAX_BLOCK_NUMEL, ScalarKind, ScalarType, Shape, TensorType};
pub use typing::TypeCx;

use crate::spec::SpecKey;

/// A compile-time constant element; splat to the result's shape.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Constant {
    Bool(bool),
    /// An integer of the result's int type (i32 values are kept sign-extended).
    Int(i64),
    /// A float of an `f32`, `f16` or `bf16` result (the latter two hold the value the
    /// constant rounds to: the interpreter and the lowering convert it to nearest even).
    F32(f32),
    /// A float of an `f64` result.
    F64(f64),
}

impl Constant {
    pub fn as_int(self) -> Option<i64> {
        match self {
            Constant::Int(v) => Some(v),
            // bool and float constants are not ints (a constant, not an op kind)
            _ => None,
        }
    }
}

/// NaN rule of `maximum`/`minimum` and of the `max`/`min` reductions.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum PropagateNan {
    /// NaN is ignored: `max(NaN, x) = x` (Triton's default, CUDA `fmaxf`, PTX `max.f32`).
    #[default]
    None,
    /// Any NaN operand gives NaN (Triton's `PropagateNan.ALL`, PTX `max.NaN.f32`).
    All,
}

/// Element-wise unary operations. Operand and result have one dtype and shape.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum UnaryOp {
    /// `-x`: integers wrap (`-MIN == MIN`); floats flip the sign bit (IEEE `negate`, so
    /// `-(+0.0) == -0.0`; a NaN keeps its payload on the interpreter and the simulator).
    Neg,
    /// `|x|`: signed integers wrap (`|MIN| == MIN`); floats clear the sign bit.
    Abs,
    /// The math functions PTX computes in one instruction (floats only; their CPU models,
    /// PTX instructions and precision are in `interp/math.rs` and `docs/semantics.md`).
    /// `exp`, `log`, `sigmoid` and `erf` are compositions of these (`lang/math.rs`).
    Math(MathFn),
}

/// A one-instruction float function of PTX (operand and result of one float dtype).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum MathFn {
    /// `2^x`, `ex2.approx.f32`.
    Exp2,
    /// `2^x` with subnormals flushed, `ex2.approx.ftz.f32`: a subnormal `x` is read as 0
    /// and a result below 2^-126 is +0.
    Exp2Ftz,
    /// `log2(x)`, `lg2.approx.f32`.
    Log2,
    /// `sqrt(x)` correctly rounded, `sqrt.rn.f32`.
    Sqrt,
    /// `1 / sqrt(x)`, `rsqrt.approx.f32`.
    Rsqrt,
    /// Rounds toward -inf, `cvt.rmi.f32.f32`.
    Floor,
    /// Rounds toward +inf, `cvt.rpi.f32.f32`.
    Ceil,
    /// Rounds toward zero, `cvt.rzi.f32.f32`.
    Trunc,
    /// Rounds to the nearest integer, ties to even, `cvt.rni.f32.f32`.
    Rint,
    /// `sin.approx.f32`.
    Sin,
    /// `cos.approx.f32`.
    Cos,
    /// `tanh.approx.f32` (sm_75+).
    Tanh,
}

impl MathFn {
    /// Every function, for tables and tests.
    pub const ALL: [MathFn; 12] = [
        MathFn::Exp2,
        MathFn::Exp2Ftz,
        MathFn::Log2,
        MathFn::Sqrt,
        MathFn::Rsqrt,
        MathFn::Floor,
        MathFn::Ceil,
        MathFn::Trunc,
        MathFn::Rint,
        MathFn::Sin,
        MathFn::Cos,
        MathFn::Tanh,
    ];

    /// The name in IR text and in `triton.language`.
    pub fn name(self) -> &'static str {
        match self {
            MathFn::Exp2 => "exp2",
            MathFn::Exp2Ftz => "exp2_ftz",
            MathFn::Log2 => "log2",
            MathFn::Sqrt => "sqrt",
            MathFn::Rsqrt => "rsqrt",
            MathFn::Floor => "floor",
            MathFn::Ceil => "ceil",
            MathFn::Trunc => "trunc",
            MathFn::Rint => "rint",
            MathFn::Sin => "sin",
            MathFn::Cos => "cos",
            MathFn::Tanh => "tanh",
        }
    }
}

impl UnaryOp {
    pub fn name(self) -> &'static str {
        match self {
            UnaryOp::Neg => "neg",
            UnaryOp::Abs => "abs",
            UnaryOp::Math(f) => f.name(),
        }
    }

    /// Whether the op is defined on elements of `dtype`.
    pub fn accepts(self, dtype: DType) -> bool {
        match self {
            // Every computation type (storage types are negated in theirs by the front end).
            UnaryOp::Neg => dtype.scalar().is_some_and(|s| s != ScalarType::Bool && !s.is_storage_only()),
            // PTX `abs.f32/.f64/.s32/.s64` (f16/bf16 compute in f32, by the front end).
            UnaryOp::Abs => {
                matches!(dtype, DType::Scalar(ScalarType::F32 | ScalarType::F64 | ScalarType::I32 | ScalarType::I64))
            }
            // The math instructions are f32 (f16/bf16 compute in f32, by the front end);
            // f64 has none in PTX (libdevice computes it in software), so it is refused.
            UnaryOp::Math(_) => matches!(dtype, DType::Scalar(ScalarType::F32)),
        }
    }
}

/// Element-wise binary operations. Operands and result have one dtype and shape.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BinaryOp {
    /// Integers wrap on overflow (two's complement), floats follow IEEE.
    Add,
    Sub,
    Mul,
    /// Integer division truncates toward zero (C and Triton semantics); division by zero
    /// is an error in the interpreter and undefined on the GPU.
    Div,
    /// Remainder with the sign of the dividend (C semantics).
    Rem,
    Max(PropagateNan),
    Min(PropagateNan),
    /// Bitwise on integers, logical on `i1`.
    And,
    Or,
    Xor,
    /// Floats only: fast division (`tl.fdiv`, PTX `div.full.f32`, at most 2 ulp from the
    /// correctly rounded quotient on the GPU; the CPU model rounds correctly).
    FDiv,
    /// `lhs << rhs` on integers; the amount is read as unsigned and an amount of at least
    /// the width gives 0 (PTX `shl` clamps it; `ir::bits` in `interp/bits.rs`).
    Shl,
    /// `lhs >> rhs` on integers: arithmetic (sign-filling) for signed types, logical for
    /// unsigned ones; an amount of at least the width fills every bit (PTX `shr` clamps).
    Shr,
    /// The high half of the double-width product of the operands' bits read as unsigned
    /// (`tl.math.umulhi`, PTX `mul.hi.u32`/`mul.hi.u64`), on 32- and 64-bit ints: signed
    /// operands are multiplied as their unsigned bits, as Triton does.
    UMulHi,
}

impl BinaryOp {
    pub fn name(self) -> &'static str {
        match self {
            BinaryOp::Add => "add",
            BinaryOp::Sub => "sub",
            BinaryOp::Mul => "mul",
            BinaryOp::Div => "div",
            BinaryOp::Rem => "rem",
            BinaryOp::Max(PropagateNan::None) => "maximum",
            BinaryOp::Max(PropagateNan::All) => "maximum.nan",
            BinaryOp::Min(PropagateNan::None) => "minimum",
            BinaryOp::Min(PropagateNan::All) => "minimum.nan",
            BinaryOp::And => "and",
            BinaryOp::Or => "or",
            BinaryOp::Xor => "xor",
            BinaryOp::FDiv => "fdiv",
            BinaryOp::Shl => "shl",
            BinaryOp::Shr => "shr",
            BinaryOp::UMulHi => "umulhi",
        }
    }

    /// Whether the op is defined on elements of `dtype` (the verifier's typing rule; the
    /// front end refuses other dtypes with a located error): arithmetic on numbers and
    /// `i1` (one-bit: `+` is xor), division and remainder on numbers, bitwise ops on ints
    /// and `i1`, shifts on ints, fast division on floats, `umulhi` on 32- and 64-bit ints.
    pub fn accepts(self, dtype: DType) -> bool {
        let Some(s) = dtype.scalar() else { return false };
        match self {
            BinaryOp::Add | BinaryOp::Sub | BinaryOp::Mul | BinaryOp::Max(_) | BinaryOp::Min(_) => true,
            BinaryOp::Div | BinaryOp::Rem => s.is_int() || s.is_float(),
            BinaryOp::And | BinaryOp::Or | BinaryOp::Xor => s.is_int() || s == ScalarType::Bool,
            BinaryOp::Shl | BinaryOp::Shr => s.is_int(),
            BinaryOp::FDiv => s.is_float(),
            BinaryOp::UMulHi => {
                matches!(s, ScalarType::I32 | ScalarType::I64 | ScalarType::U32 | ScalarType::U64)
            }
        }
    }
}

/// Comparison predicates; the result is `i1` of the operands' shape.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CmpPred {
    Lt,
    Le,
    Gt,
    Ge,
    Eq,
    Ne,
}

impl CmpPred {
    pub fn name(self) -> &'static str {
        match self {
            CmpPred::Lt => "lt",
            CmpPred::Le => "le",
            CmpPred::Gt => "gt",
            CmpPred::Ge => "ge",
            CmpPred::Eq => "eq",
            CmpPred::Ne => "ne",
        }
    }
}

/// Reductions along one axis.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ReduceOp {
    /// Combines the elements with `maximum` (identity `-inf` for floats, the type's
    /// minimum for ints; no identity is mixed in, so a block of only NaN gives the
    /// canonical NaN, see `docs/semantics.md`).
    Max(PropagateNan),
    /// As `Max` with `minimum` (identity `+inf` or the type's maximum).
    Min(PropagateNan),
    /// Identity 0; float sums are not bit-exact across back ends (reduction order).
    Sum,
    /// Index (`i32`) of the first maximum; NaN is ignored like `Max(None)`; ties give the
    /// smallest index (`-0.0` ties with `+0.0`); an all-`-inf` or all-NaN row gives 0.
    Argmax,
    /// Index (`i32`) of the first minimum, the mirror of `Argmax`: NaN is ignored (it never
    /// compares less), ties give the smallest index, an all-NaN row gives 0.
    Argmin,
    /// Bitwise xor of the elements (integers only; identity 0).
    XorSum,
}

impl ReduceOp {
    pub fn name(self) -> &'static str {
        match self {
            ReduceOp::Max(PropagateNan::None) => "max",
            ReduceOp::Max(PropagateNan::All) => "max.nan",
            ReduceOp::Min(PropagateNan::None) => "min",
            ReduceOp::Min(PropagateNan::All) => "min.nan",
            ReduceOp::Sum => "sum",
            ReduceOp::Argmax => "argmax",
            ReduceOp::Argmin => "argmin",
            ReduceOp::XorSum => "xor_sum",
        }
    }

    /// Whether the result is the `i32` index of an element rather than a combined value.
    pub fn gives_index(self) -> bool {
        match self {
            ReduceOp::Argmax | ReduceOp::Argmin => true,
            ReduceOp::Max(_) | ReduceOp::Min(_) | ReduceOp::Sum | ReduceOp::XorSum => false,
        }
    }
}

/// One operation: what it does, the values it defines and where the author wrote it.
#[derive(Clone, Debug, PartialEq)]
pub struct Op {
    pub kind: OpKind,
    pub results: Vec<Value>,
    pub loc: SourceLoc,
}

/// A straight-line list of ops with block arguments (loop bodies take `[iv, carried...]`).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Block {
    pub args: Vec<Value>,
    pub ops: Vec<OpId>,
}

/// How a value is defined.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ValueDef {
    /// Result number `index` of `op`.
    Result { op: OpId, index: usize },
    /// A block argument (loop induction variable or carried value).
    BlockArg,
}

/// Per-value data in the kernel's value arena.
#[derive(Clone, Debug, PartialEq)]
pub struct ValueData {
    pub ty: TensorType,
    pub def: ValueDef,
}

/// What kind of runtime argument a kernel parameter takes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ParamKind {
    /// A pointer to global memory holding elements of this type.
    Ptr(ScalarType),
    /// A scalar integer (`i32` or `i64`) or float (`f32`).
    Scalar(ScalarType),
}

impl ParamKind {
    pub fn dtype(self) -> DType {
        match self {
            ParamKind::Ptr(s) => DType::Ptr(s),
            ParamKind::Scalar(s) => DType::Scalar(s),
        }
    }
}

impl std::fmt::Display for ParamKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ParamKind::Ptr(s) => write!(f, "*{s}"),
            ParamKind::Scalar(s) => write!(f, "{s}"),
        }
    }
}

/// A runtime parameter as the kernel declares it.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct ParamDecl {
    pub name: &'static str,
    pub kind: ParamKind,
    /// Triton's `do_not_specialize`: no folding of 1 and no divisibility hint.
    pub do_not_specialize: bool,
    /// Triton's `do_not_specialize_on_alignment`: folding of 1 kept, hints dropped.
    pub do_not_specialize_on_alignment: bool,
}

/// A traced kernel: one specialization of a kernel definition.
#[derive(Clone, Debug, PartialEq)]
pub struct Kernel {
    pub name: String,
    pub params: Vec<ParamDecl>,
    /// The constexpr values this kernel was traced with, in declaration order.
    pub constexprs: Vec<(String, i64)>,
    /// The specialization the kernel was traced under.
    pub spec: SpecKey,
    /// Where the kernel function was defined.
    pub loc: SourceLoc,
    pub values: Vec<ValueData>,
    pub ops: Vec<Op>,
    pub body: Block,
}

impl Kernel {
    pub fn op(&self, id: OpId) -> &Op {
        &self.ops[id.index()]
    }

    pub fn ty(&self, v: Value) -> &TensorType {
        &self.values[v.index()].ty
    }

    pub fn dtype(&self, v: Value) -> DType {
        self.values[v.index()].ty.dtype
    }

    pub fn shape(&self, v: Value) -> &Shape {
        &self.values[v.index()].ty.shape
    }

    /// The op defining `v`, `None` for block arguments.
    pub fn def_op(&self, v: Value) -> Option<&Op> {
        match self.values[v.index()].def {
            ValueDef::Result { op, .. } => Some(self.op(op)),
            ValueDef::BlockArg => None,
        }
    }

    /// The constant `v` is defined as, if any.
    pub fn constant(&self, v: Value) -> Option<Constant> {
        if let OpKind::Constant { value } = self.def_op(v)?.kind { Some(value) } else { None }
    }

    /// The values a loop body hands to the next iteration: the operands of its final
    /// `yield` (`None` when the body does not end with one; the verifier reports that).
    pub fn yielded<'a>(&'a self, body: &Block) -> Option<&'a [Value]> {
        let last = self.op(*body.ops.last()?);
        if let OpKind::Yield { values } = &last.kind { Some(values) } else { None }
    }

    /// How many operands of the kernel's ops (nested regions included) are `v`.
    pub fn use_count(&self, v: Value) -> usize {
        self.walk().into_iter().map(|id| self.op(id).kind.operands().iter().filter(|&&x| x == v).count()).sum()
    }

    /// Whether `dot`, an op of `body` (a loop's), accumulates into one of the loop's carried
    /// values that nothing else reads, and its result is that value's next one, yielded at
    /// the same place and read by nothing else: the accumulator goes around the loop
    /// through this `dot` alone (the pipeliner gives its operands deeper rings on sm_90a,
    /// and the `wgmma` lowering keeps it in flight across iterations).
    pub fn accumulates_carried(&self, body: &Block, dot: OpId) -> bool {
        let OpKind::Dot { acc, .. } = self.op(dot).kind else { return false };
        let Some(&result) = self.op(dot).results.first() else { return false };
        let Some(OpKind::Yield { values }) = body.ops.last().map(|&y| &self.op(y).kind) else { return false };
        let Some(c) = body.args.iter().skip(1).position(|&a| a == acc) else { return false };
        body.ops.contains(&dot)
            && values.get(c) == Some(&result)
            && self.use_count(acc) == 1
            && self.use_count(result) == 1
    }

    /// Every op of the kernel, nested regions included, in program order.
    pub fn walk(&self) -> Vec<OpId> {
        let mut out = Vec::new();
        self.walk_block(&self.body, &mut out);
        out
    }

    fn walk_block(&self, block: &Block, out: &mut Vec<OpId>) {
        for &id in &block.ops {
            out.push(id);
            for region in self.op(id).kind.regions() {
                self.walk_block(region, out);
            }
        }
    }

    /// The value of a constexpr by name.
    pub fn constexpr(&self, name: &str) -> Option<i64> {
        self.constexprs.iter().find(|(n, _)| n == name).map(|(_, v)| *v)
    }
}
