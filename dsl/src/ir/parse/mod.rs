//! IR text in: the inverse of [`super::printer`].
//!
//! It exists so tests can feed IR in and compare IR out, as Cranelift's `.clif` filetests
//! and naga's `tests/in -> tests/out` do: `tests/ir/in/*.ir` run through one stage (DCE, the
//! verifier, the PTX back end's layouts, the thread-level program) and are compared with
//! `tests/ir/out/*.ir`, and every traced kernel prints, parses and prints to the same text
//! (`tests/tests/ir_roundtrip.rs`).
//!
//! The grammar is exactly what the printer writes, plus blank lines, whole-line `;`
//! comments and free spacing between tokens. What the text leaves out, the parser fills in
//! from what it provably determines:
//! - a block argument's type: a loop's induction variable has its lower bound's type, a
//!   carried value (`for`, `while`) its initial value's type, a combine region's argument
//!   the dtype of its operand as a scalar (the verifier's rules, so valid IR gets back the
//!   types it was printed from);
//! - op ids (never printed): ops are numbered in the order their text ends, a region op
//!   after the ops of its regions, as tracing numbers them;
//! - a location's column (the printer writes `file:line`, as diagnostics do): 0;
//! - a value number no line defines (hand-edited text may skip one): a scalar `i32` block
//!   argument of no block, so a use of it is reported by the verifier; a value number past
//!   every defined one stays undefined (the verifier's "uses undefined value").
//!
//! Parameter names and location files are `&'static str` in the IR (tracing takes them from
//! the Rust source); parsed ones are interned, each distinct string once per process.
//!
//! The per-op syntax (`operands` below) mirrors the printer's per-op match arm by arm: a
//! change to how one op prints changes both, and the round-trip tests catch a mismatch.

use std::collections::HashSet;
use std::sync::{Mutex, OnceLock, PoisonError};

use super::{
    AsmModel, AtomicOp, BinaryOp, Block, CmpPred, Constant, DType, HintKind, InputPrecision, Kernel, MathFn, Op, OpId,
    OpKind, ParamDecl, ParamKind, PropagateNan, ReduceOp, ScalarType, Scope, Sem, Shape, SourceLoc, TensorType,
    UnaryOp, Value, ValueData, ValueDef,
};
use crate::spec::{ArgSpec, SpecKey};

mod cursor;

use cursor::Cur;

/// Why IR text does not parse: where (1-based line and column, in characters) and what the
/// parser expected there.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("IR text line {line}, column {column}: expected {expected}, found {found}")]
pub struct ParseError {
    pub line: usize,
    pub column: usize,
    pub expected: String,
    pub found: String,
}

/// The most value numbers a text may define (the value arena is as long as the largest).
const MAX_VALUES: u32 = 1 << 20;
/// The deepest nesting of regions the parser follows.
const MAX_DEPTH: usize = 128;

/// Parses IR text as [`super::printer::print`] writes it back into the [`Kernel`] it was
/// printed from (up to what the module doc lists). The kernel is not verified: run
/// [`crate::verify::check`] on it, which is what lets tests feed invalid IR to the verifier.
pub fn parse(text: &str) -> Result<Kernel, ParseError> {
    let lines: Vec<(usize, &str)> = text
        .lines()
        .enumerate()
        .map(|(i, l)| (i + 1, l))
        .filter(|(_, l)| !l.trim().is_empty() && !l.trim_start().starts_with(';'))
        .collect();
    let mut p = Parser { lines, next: 0, values: Vec::new(), ops: Vec::new(), params: Vec::new(), last_line: 1 };
    p.last_line = text.lines().count().max(1);
    p.kernel()
}

/// `s` as a `&'static str`, leaked once per distinct string.
fn intern(s: &str) -> &'static str {
    static POOL: OnceLock<Mutex<HashSet<&'static str>>> = OnceLock::new();
    let mut pool = POOL.get_or_init(Default::default).lock().unwrap_or_else(PoisonError::into_inner);
    if let Some(&known) = pool.get(s) {
        return known;
    }
    let leaked: &'static str = Box::leak(s.to_owned().into_boxed_str());
    pool.insert(leaked);
    leaked
}

// The names of the attribute enums in IR text, each enum's `name()` being the one spelling.
const CMP: [CmpPred; 6] = [CmpPred::Lt, CmpPred::Le, CmpPred::Gt, CmpPred::Ge, CmpPred::Eq, CmpPred::Ne];
const BINARY: [BinaryOp; 16] = [
    BinaryOp::Add,
    BinaryOp::Sub,
    BinaryOp::Mul,
    BinaryOp::Div,
    BinaryOp::Rem,
    BinaryOp::Max(PropagateNan::None),
    BinaryOp::Max(PropagateNan::All),
    BinaryOp::Min(PropagateNan::None),
    BinaryOp::Min(PropagateNan::All),
    BinaryOp::And,
    BinaryOp::Or,
    BinaryOp::Xor,
    BinaryOp::FDiv,
    BinaryOp::Shl,
    BinaryOp::Shr,
    BinaryOp::UMulHi,
];
const REDUCE: [ReduceOp; 8] = [
    ReduceOp::Max(PropagateNan::None),
    ReduceOp::Max(PropagateNan::All),
    ReduceOp::Min(PropagateNan::None),
    ReduceOp::Min(PropagateNan::All),
    ReduceOp::Sum,
    ReduceOp::Argmax,
    ReduceOp::Argmin,
    ReduceOp::XorSum,
];
const ATOMIC: [AtomicOp; 7] =
    [AtomicOp::Add, AtomicOp::Max, AtomicOp::Min, AtomicOp::And, AtomicOp::Or, AtomicOp::Xor, AtomicOp::Xchg];
const SEM: [Sem; 4] = [Sem::Relaxed, Sem::Acquire, Sem::Release, Sem::AcqRel];
const SCOPE: [Scope; 3] = [Scope::Cta, Scope::Gpu, Scope::Sys];

fn unary_ops() -> impl Iterator<Item = UnaryOp> {
    [UnaryOp::Neg, UnaryOp::Abs].into_iter().chain(MathFn::ALL.into_iter().map(UnaryOp::Math))
}

fn named<T: Copy>(all: impl IntoIterator<Item = T>, name: impl Fn(T) -> &'static str, word: &str) -> Option<T> {
    all.into_iter().find(|t| name(*t) == word)
}

/// How a region's block argument gets its type (see the module doc).
#[derive(Clone, Copy)]
enum ArgTy {
    /// The type of this value.
    Of(Value),
    /// A scalar of this value's dtype.
    ScalarOf(Value),
}

/// An op's kind as its line gives it, with the arguments of its first region and the types
/// of later regions' arguments (a `while`'s body takes the carried values).
struct Syntax {
    kind: OpKind,
    first_args: Vec<(Value, ArgTy)>,
    later_arg_types: Vec<ArgTy>,
}

impl Syntax {
    fn plain(kind: OpKind) -> Self {
        Syntax { kind, first_args: Vec::new(), later_arg_types: Vec::new() }
    }
}

/// How a region's text ends.
enum End {
    /// `}`
    Close,
    /// `} else {`
    Else,
    /// `} do(%a, ...) {`
    Do(Vec<Value>),
}

struct Parser<'a> {
    lines: Vec<(usize, &'a str)>,
    next: usize,
    values: Vec<Option<ValueData>>,
    ops: Vec<Op>,
    params: Vec<ParamDecl>,
    last_line: usize,
}

impl<'a> Parser<'a> {
    fn next_line(&mut self, expected: &str) -> Result<Cur<'a>, ParseError> {
        let Some(&(line, text)) = self.lines.get(self.next) else {
            return Err(ParseError {
                line: self.last_line,
                column: 1,
                expected: expected.to_string(),
                found: "end of text".to_string(),
            });
        };
        self.next += 1;
        Ok(Cur::new(line, text))
    }

    fn kernel(&mut self) -> Result<Kernel, ParseError> {
        let mut c = self.next_line("`kernel @name(...) {`")?;
        c.expect_keyword("kernel")?;
        c.expect("@")?;
        let name = c.ident("the kernel's name")?.to_string();
        c.expect("(")?;
        let mut spec = SpecKey::default();
        if !c.eat(")") {
            loop {
                let pname = intern(c.ident("a parameter name")?);
                c.expect(":")?;
                let kind =
                    if c.eat("*") { ParamKind::Ptr(c.scalar_type()?) } else { ParamKind::Scalar(c.scalar_type()?) };
                c.expect("[")?;
                let s = if c.eat("D16") {
                    ArgSpec::Divisible16
                } else if c.eat("=1") {
                    ArgSpec::FoldedOne
                } else if c.eat("-") {
                    ArgSpec::Plain
                } else {
                    return Err(c.err("a specialization `D16`, `=1` or `-`"));
                };
                c.expect("]")?;
                let mut decl =
                    ParamDecl { name: pname, kind, do_not_specialize: false, do_not_specialize_on_alignment: false };
                decl.do_not_specialize = c.keyword("do_not_specialize");
                decl.do_not_specialize_on_alignment = c.keyword("do_not_specialize_on_alignment");
                self.params.push(decl);
                spec.args.push((pname, kind, s));
                if c.eat(")") {
                    break;
                }
                c.expect(",")?;
            }
        }
        let mut constexprs = Vec::new();
        if c.keyword("constexprs") {
            c.expect("(")?;
            loop {
                let n = c.ident("a constexpr name")?.to_string();
                c.expect("=")?;
                constexprs.push((n, c.number::<i64>("an integer")?));
                if c.eat(")") {
                    break;
                }
                c.expect(",")?;
            }
        }
        let loc = c.loc()?;
        c.expect("{")?;
        c.end()?;
        let (ops, end) = self.block(1)?;
        if !matches!(end.0, End::Close) {
            return Err(end.1);
        }
        if let Some(&(line, text)) = self.lines.get(self.next) {
            return Err(Cur::new(line, text).err("end of text after the kernel's `}`"));
        }
        let values = std::mem::take(&mut self.values)
            .into_iter()
            .map(|v| v.unwrap_or(ValueData { ty: TensorType::scalar(DType::I32), def: ValueDef::BlockArg }))
            .collect();
        Ok(Kernel {
            name,
            params: std::mem::take(&mut self.params),
            constexprs,
            spec,
            loc,
            values,
            ops: std::mem::take(&mut self.ops),
            body: Block { args: Vec::new(), ops },
        })
    }

    /// The ops of a block up to its closing line; the error is the one to report when the
    /// end is not the one the caller expects.
    fn block(&mut self, depth: usize) -> Result<(Vec<OpId>, (End, ParseError)), ParseError> {
        let mut ops = Vec::new();
        loop {
            let mut c = self.next_line("an op or `}`")?;
            if c.eat("}") {
                if c.rest().trim().is_empty() {
                    let e = c.err("`} else {` or `} do(...) {` (the op has another region)");
                    return Ok((ops, (End::Close, e)));
                }
                let at = c.pos;
                let end = if c.keyword("else") {
                    End::Else
                } else if c.keyword("do") {
                    c.expect("(")?;
                    let vs = c.values()?;
                    c.expect(")")?;
                    End::Do(vs)
                } else {
                    return Err(c.err("`else {`, `do(...) {` or end of line"));
                };
                c.expect("{")?;
                c.end()?;
                c.pos = at;
                let e = c.err("end of line (the op has no further region)");
                return Ok((ops, (end, e)));
            }
            ops.push(self.op(&mut c, depth)?);
        }
    }

    fn define(&mut self, c: &mut Cur<'_>, v: Value, ty: TensorType, def: ValueDef) -> Result<(), ParseError> {
        if v.0 >= MAX_VALUES {
            return Err(c.err(format!("a value number below {MAX_VALUES}, found {v}")));
        }
        if self.values.len() <= v.index() {
            self.values.resize(v.index() + 1, None);
        }
        if self.values[v.index()].is_some() {
            return Err(c.err(format!("a value defined once ({v} is defined twice)")));
        }
        self.values[v.index()] = Some(ValueData { ty, def });
        Ok(())
    }

    fn arg_type(&self, c: &mut Cur<'_>, t: ArgTy) -> Result<TensorType, ParseError> {
        let (ArgTy::Of(v) | ArgTy::ScalarOf(v)) = t;
        let Some(Some(data)) = self.values.get(v.index()) else {
            return Err(c.err(format!("{v} defined above this op (its type is a block argument's type)")));
        };
        Ok(match t {
            ArgTy::Of(_) => data.ty.clone(),
            ArgTy::ScalarOf(_) => TensorType::scalar(data.ty.dtype),
        })
    }

    fn define_args(&mut self, c: &mut Cur<'_>, args: &[(Value, ArgTy)]) -> Result<Vec<Value>, ParseError> {
        let mut out = Vec::new();
        for &(v, t) in args {
            let ty = self.arg_type(c, t)?;
            self.define(c, v, ty, ValueDef::BlockArg)?;
            out.push(v);
        }
        Ok(out)
    }

    /// One op line, and the lines of its regions: `[%r, ... =] name operands [: types]
    /// loc(file:line) [{]`.
    fn op(&mut self, c: &mut Cur<'a>, depth: usize) -> Result<OpId, ParseError> {
        if depth > MAX_DEPTH {
            return Err(c.err(format!("at most {MAX_DEPTH} nested regions")));
        }
        let mut results = Vec::new();
        c.ws();
        let results_at = c.pos;
        if c.peek("%") {
            results = c.values()?;
            c.expect("=")?;
        }
        let name_at = c.pos;
        let Syntax { mut kind, first_args, later_arg_types } = self.operands(c)?;
        let mut types = Vec::new();
        if c.eat(":") {
            loop {
                types.push(c.tensor_type()?);
                if !c.eat(",") {
                    break;
                }
            }
        }
        if types.len() != results.len() {
            return Err(c.err(format!("{} result type(s) after `:`, one per result", results.len())));
        }
        let loc = c.loc()?;
        let regions = kind.regions().len();
        if regions > 0 && !c.eat("{") {
            return Err(c.err(format!("`{{` (`{}` has a region)", kind.name())));
        }
        c.end()?;
        let mut blocks = Vec::new();
        if regions > 0 {
            let mut args = {
                let mut at = Cur { pos: name_at, ..*c };
                self.define_args(&mut at, &first_args)?
            };
            for i in 0..regions {
                let (ops, (end, mismatch)) = self.block(depth + 1)?;
                blocks.push(Block { args: std::mem::take(&mut args), ops });
                let last = i + 1 == regions;
                match end {
                    End::Close if last => {}
                    End::Else if !last => {}
                    End::Do(vs) if !last => {
                        if vs.len() != later_arg_types.len() {
                            return Err(ParseError {
                                expected: format!("{} region argument(s)", later_arg_types.len()),
                                ..mismatch
                            });
                        }
                        let typed: Vec<(Value, ArgTy)> = vs.into_iter().zip(later_arg_types.iter().copied()).collect();
                        let mut at = Cur { pos: name_at, ..*c };
                        args = self.define_args(&mut at, &typed)?;
                    }
                    // the end does not fit the region (an `End`, not an op kind)
                    _ => return Err(mismatch),
                }
            }
        }
        for (slot, block) in kind.regions_mut().into_iter().zip(blocks) {
            *slot = block;
        }
        let id = OpId(self.ops.len() as u32);
        let mut at = Cur { pos: results_at, ..*c };
        for (index, (r, ty)) in results.iter().zip(types).enumerate() {
            self.define(&mut at, *r, ty, ValueDef::Result { op: id, index })?;
        }
        self.ops.push(Op { kind, results, loc });
        Ok(id)
    }

    /// What follows an op's name, per op: the inverse of the printer's per-op match
    /// (`printer.rs`, `print_block`), in its order.
    fn operands(&mut self, c: &mut Cur<'a>) -> Result<Syntax, ParseError> {
        let name_at = c.pos;
        let name = c.word();
        let kind = match name {
            "param" => {
                let index = c.number::<usize>("a parameter index")?;
                c.expect("(")?;
                let pname = c.ident("the parameter's name")?;
                c.expect(")")?;
                if self.params.get(index).map(|p| p.name) != Some(pname) {
                    let header: Vec<String> =
                        self.params.iter().enumerate().map(|(i, p)| format!("{i} ({})", p.name)).collect();
                    c.pos = name_at;
                    return Err(c.err(format!("a parameter of the kernel's header: {}", header.join(", "))));
                }
                OpKind::Param { index }
            }
            "constant" => OpKind::Constant { value: constant(c)? },
            "program_id" => OpKind::ProgramId { axis: c.number("an axis")? },
            "num_programs" => OpKind::NumPrograms { axis: c.number("an axis")? },
            "arange" => {
                let start = c.number("the start")?;
                c.expect("..")?;
                OpKind::Arange { start, end: c.number("the end")? }
            }
            "splat" => OpKind::Splat { value: c.value()? },
            "broadcast" => OpKind::Broadcast { value: c.value()? },
            "cast" => OpKind::Cast { value: c.value()? },
            "bitcast" => OpKind::Bitcast { value: c.value()? },
            "expand_dims" => {
                let value = c.value()?;
                c.expect(",")?;
                c.expect_keyword("axis")?;
                OpKind::ExpandDims { value, axis: c.number("an axis")? }
            }
            "multiple_of" => {
                let value = c.value()?;
                c.expect(",")?;
                OpKind::MultipleOf { value, divisor: c.number("a divisor")? }
            }
            "max_contiguous" | "max_constancy" => {
                let value = c.value()?;
                c.expect(",")?;
                c.expect("[")?;
                let mut values = Vec::new();
                if !c.eat("]") {
                    loop {
                        values.push(c.number("a run length")?);
                        if c.eat("]") {
                            break;
                        }
                        c.expect(",")?;
                    }
                }
                let hint = if name == "max_contiguous" { HintKind::Contiguity } else { HintKind::Constancy };
                OpKind::AxisHint { value, hint, values }
            }
            "permute" => {
                let value = c.value()?;
                c.expect(",")?;
                c.expect_keyword("dims")?;
                c.expect("[")?;
                let mut dims = Vec::new();
                if !c.eat("]") {
                    loop {
                        dims.push(c.number("a dim")?);
                        if c.eat("]") {
                            break;
                        }
                        c.expect(",")?;
                    }
                }
                OpKind::Permute { value, dims }
            }
            "reshape" => OpKind::Reshape { value: c.value()? },
            "convert_layout" => OpKind::ConvertLayout { value: c.value()? },
            "split" => OpKind::Split { value: c.value()? },
            "join" => OpKind::Join { lhs: c.value()?, rhs: c.next_value()? },
            "fma" => OpKind::Fma { a: c.value()?, b: c.next_value()?, c: c.next_value()? },
            "cmp" => {
                let at = c.pos;
                let pred = named(CMP, CmpPred::name, c.word()).ok_or_else(|| {
                    c.pos = at;
                    c.err("a predicate (lt, le, gt, ge, eq, ne)")
                })?;
                OpKind::Compare { pred, lhs: c.value()?, rhs: c.next_value()? }
            }
            "where" => OpKind::Select { cond: c.value()?, on_true: c.next_value()?, on_false: c.next_value()? },
            "addptr" => OpKind::AddPtr { ptr: c.value()?, offset: c.next_value()? },
            "load" | "load_staged" => {
                let ptr = c.value()?;
                let mask = if c.comma_keyword("mask") { Some(c.value()?) } else { None };
                let other = if c.comma_keyword("other") { Some(c.value()?) } else { None };
                let desc = desc_list(c)?;
                OpKind::Load { ptr, mask, other, staged: name == "load_staged", desc }
            }
            "async_copy" => {
                let ptr = c.value()?;
                c.expect(",")?;
                c.expect_keyword("ring")?;
                let ring = c.number("a ring")?;
                c.expect_keyword("of")?;
                let slots = c.number("a slot count")?;
                c.expect(",")?;
                c.expect_keyword("slot")?;
                let slot = c.value()?;
                let mask = if c.comma_keyword("mask") { Some(c.value()?) } else { None };
                let other = if c.comma_keyword("other") { Some(c.value()?) } else { None };
                let desc = desc_list(c)?;
                let when = if c.comma_keyword("when") { Some(c.value()?) } else { None };
                OpKind::AsyncCopy { ptr, mask, other, ring, slots, slot, desc, when }
            }
            "ring_read" => {
                c.expect_keyword("ring")?;
                let ring = c.number("a ring")?;
                c.expect(",")?;
                c.expect_keyword("slot")?;
                let slot = c.value()?;
                c.expect(",")?;
                c.expect_keyword("pending")?;
                OpKind::RingRead { ring, slot, pending: c.number("a count")? }
            }
            "store" => {
                let (ptr, value) = (c.value()?, c.next_value()?);
                let mask = if c.comma_keyword("mask") { Some(c.value()?) } else { None };
                OpKind::Store { ptr, value, mask, desc: desc_list(c)? }
            }
            "debug_barrier" => OpKind::DebugBarrier {},
            "assume" => OpKind::Assume { cond: c.value()? },
            "device_print" => {
                let prefix = c.string()?;
                let mut values = Vec::new();
                while c.eat(",") {
                    values.push(c.value()?);
                }
                OpKind::DevicePrint { prefix, values }
            }
            "inline_asm" => {
                let asm = c.string()?;
                c.expect(",")?;
                let constraints = c.string()?;
                c.expect("(")?;
                let args = c.values()?;
                c.expect(")")?;
                let is_pure = if c.keyword("pure") {
                    true
                } else {
                    c.expect_keyword("impure")?;
                    false
                };
                c.expect_keyword("pack")?;
                let pack = c.number("elements an invocation")?;
                // The text names the model; its function is the traced kernel's alone.
                let model =
                    if c.keyword("model") { Some(AsmModel { name: intern(&c.string()?), run: None }) } else { None };
                OpKind::InlineAsm { asm, constraints, args, is_pure, pack, model }
            }
            "device_assert" => {
                let cond = c.value()?;
                c.expect(",")?;
                OpKind::DeviceAssert { cond, msg: c.string()? }
            }
            "atomic_cas" => {
                let (ptr, cmp, value) = (c.value()?, c.next_value()?, c.next_value()?);
                let (sem, scope) = sem_scope(c)?;
                OpKind::AtomicCas { ptr, cmp, value, sem, scope }
            }
            "reduce" => {
                let at = c.pos;
                let op = named(REDUCE, ReduceOp::name, c.word()).ok_or_else(|| {
                    c.pos = at;
                    c.err("a reduction (max, max.nan, min, min.nan, sum, argmax, argmin, xor_sum)")
                })?;
                let value = c.value()?;
                c.expect(",")?;
                c.expect_keyword("axis")?;
                OpKind::Reduce { op, value, axis: c.number("an axis")? }
            }
            "dot" => {
                let (a, b, acc) = (c.value()?, c.next_value()?, c.next_value()?);
                let input_precision = if c.comma_keyword("input_precision") {
                    let at = c.pos;
                    named(InputPrecision::ALL, InputPrecision::name, c.word()).ok_or_else(|| {
                        c.pos = at;
                        c.err("an input precision (ieee, tf32)")
                    })?
                } else {
                    InputPrecision::Ieee
                };
                OpKind::Dot { a, b, acc, input_precision }
            }
            "reduce_with" | "scan" => {
                let values = c.values()?;
                c.expect(",")?;
                c.expect_keyword("axis")?;
                let axis = c.number("an axis")?;
                c.expect_keyword("combine")?;
                c.expect("(")?;
                let args = c.values()?;
                c.expect(")")?;
                if args.len() != 2 * values.len() {
                    return Err(c.err(format!("{} combine arguments, two per operand", 2 * values.len())));
                }
                let first_args =
                    args.into_iter().zip(values.iter().chain(&values)).map(|(a, v)| (a, ArgTy::ScalarOf(*v))).collect();
                let combine = Block::default();
                let kind = if name == "scan" {
                    OpKind::Scan { values, axis, combine }
                } else {
                    OpKind::ReduceWith { values, axis, combine }
                };
                return Ok(Syntax { kind, first_args, later_arg_types: Vec::new() });
            }
            "for" => {
                let iv = c.value()?;
                c.expect("=")?;
                let lower = c.value()?;
                c.expect_keyword("to")?;
                let upper = c.value()?;
                c.expect_keyword("step")?;
                let step = c.value()?;
                let unroll = if c.keyword("unroll") { c.number("an unroll factor")? } else { 1 };
                let stages = if c.keyword("stages") { c.number("a count of pipeline stages")? } else { 1 };
                let (carried, init) = iter_args(c)?;
                let mut first_args = vec![(iv, ArgTy::Of(lower))];
                first_args.extend(carried.into_iter().zip(&init).map(|(a, i)| (a, ArgTy::Of(*i))));
                let kind = OpKind::For { lower, upper, step, init, body: Block::default(), unroll, stages };
                return Ok(Syntax { kind, first_args, later_arg_types: Vec::new() });
            }
            "if" => OpKind::If { cond: c.value()?, then_body: Block::default(), else_body: Block::default() },
            "while" => {
                let (carried, init) = iter_args(c)?;
                let types: Vec<ArgTy> = init.iter().map(|i| ArgTy::Of(*i)).collect();
                let first_args = carried.into_iter().zip(types.iter().copied()).collect();
                let kind = OpKind::While { init, before: Block::default(), after: Block::default() };
                return Ok(Syntax { kind, first_args, later_arg_types: types });
            }
            "yield" => OpKind::Yield { values: c.values()? },
            other => {
                if let Some(op) = named(unary_ops(), UnaryOp::name, other) {
                    OpKind::Unary { op, value: c.value()? }
                } else if let Some(op) = named(BINARY, BinaryOp::name, other) {
                    OpKind::Binary { op, lhs: c.value()?, rhs: c.next_value()? }
                } else if let Some(op) = named(ATOMIC, AtomicOp::name, other) {
                    let (ptr, value) = (c.value()?, c.next_value()?);
                    let mask = if c.comma_keyword("mask") { Some(c.value()?) } else { None };
                    let (sem, scope) = sem_scope(c)?;
                    OpKind::AtomicRmw { op, ptr, value, mask, sem, scope }
                } else {
                    c.pos = name_at;
                    return Err(c.err("an op name"));
                }
            }
        };
        Ok(Syntax::plain(kind))
    }
}

/// `true`, `-3`, `-inf (0xFF800000)`: a float prints as Rust's `{:?}` and its bits, 8 hex
/// digits for `F32`, 16 for `F64`; the bits are the value, the text must agree with them.
fn constant(c: &mut Cur<'_>) -> Result<Constant, ParseError> {
    if c.keyword("true") {
        return Ok(Constant::Bool(true));
    }
    if c.keyword("false") {
        return Ok(Constant::Bool(false));
    }
    c.ws();
    let start = c.pos;
    let token = c.rest().split(|ch: char| ch.is_whitespace()).next().unwrap_or_default();
    c.pos += token.len();
    if !c.eat("(0x") {
        c.pos = start;
        return c.number::<i64>("a constant: `true`, `false`, an integer or a float `x (0xBITS)`").map(Constant::Int);
    }
    let hex_at = c.pos;
    let digits = c.rest().find(|ch: char| !ch.is_ascii_hexdigit()).unwrap_or(c.rest().len());
    let hex = &c.rest()[..digits];
    c.pos += digits;
    let value = match (hex.len(), u64::from_str_radix(hex, 16)) {
        (8, Ok(bits)) => Constant::F32(f32::from_bits(bits as u32)),
        (16, Ok(bits)) => Constant::F64(f64::from_bits(bits)),
        // any other digit count is not a float constant (a parse result, not an op kind)
        _ => {
            c.pos = hex_at;
            return Err(c.err("8 hex digits (f32) or 16 (f64)"));
        }
    };
    c.expect(")")?;
    let printed = match value {
        Constant::F32(x) => format!("{x:?}"),
        Constant::F64(x) => format!("{x:?}"),
        // only floats have bits (a constant, not an op kind)
        _ => String::new(),
    };
    if printed != token {
        c.pos = start;
        return Err(c.err(format!("`{printed}`, the value of bits 0x{hex}")));
    }
    Ok(value)
}

/// `, sem acq_rel, scope gpu`.
fn sem_scope(c: &mut Cur<'_>) -> Result<(Sem, Scope), ParseError> {
    c.expect(",")?;
    c.expect_keyword("sem")?;
    let at = c.pos;
    let sem = named(SEM, Sem::name, c.word()).ok_or_else(|| {
        c.pos = at;
        c.err("a memory order (relaxed, acquire, release, acq_rel)")
    })?;
    c.expect(",")?;
    c.expect_keyword("scope")?;
    let at = c.pos;
    let scope = named(SCOPE, Scope::name, c.word()).ok_or_else(|| {
        c.pos = at;
        c.err("a scope (cta, gpu, sys)")
    })?;
    Ok((sem, scope))
}

/// `iter_args(%a = %init, ...)`: the block arguments and the initial values.
fn iter_args(c: &mut Cur<'_>) -> Result<(Vec<Value>, Vec<Value>), ParseError> {
    c.expect_keyword("iter_args")?;
    c.expect("(")?;
    let (mut args, mut init) = (Vec::new(), Vec::new());
    if !c.eat(")") {
        loop {
            args.push(c.value()?);
            c.expect("=")?;
            init.push(c.value()?);
            if c.eat(")") {
                break;
            }
            c.expect(",")?;
        }
    }
    Ok((args, init))
}

#[cfg(test)]
mod tests;

/// `, desc (%a, %b, ...)` after an access, or nothing (an empty list).
fn desc_list(c: &mut Cur<'_>) -> Result<Vec<Value>, ParseError> {
    if !c.comma_keyword("desc") {
        return Ok(Vec::new());
    }
    c.expect("(")?;
    let desc = c.values()?;
    c.expect(")")?;
    Ok(desc)
}
