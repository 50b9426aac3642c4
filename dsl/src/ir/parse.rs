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
    AtomicOp, BinaryOp, Block, CmpPred, Constant, DType, Kernel, MathFn, Op, OpId, OpKind, ParamDecl, ParamKind,
    PropagateNan, ReduceOp, ScalarType, Scope, Sem, Shape, SourceLoc, TensorType, UnaryOp, Value, ValueData, ValueDef,
};
use crate::spec::{ArgSpec, SpecKey};

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
const BINARY: [BinaryOp; 15] = [
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

/// One line being read.
struct Cur<'a> {
    line: usize,
    text: &'a str,
    pos: usize,
}

impl<'a> Cur<'a> {
    fn new(line: usize, text: &'a str) -> Self {
        Cur { line, text, pos: 0 }
    }

    fn rest(&self) -> &'a str {
        &self.text[self.pos..]
    }

    fn ws(&mut self) {
        let r = self.rest();
        self.pos += r.len() - r.trim_start().len();
    }

    fn err(&mut self, expected: impl Into<String>) -> ParseError {
        self.ws();
        let found = match self.rest().split_whitespace().next() {
            None => "end of line".to_string(),
            Some(t) if t.chars().count() > 24 => format!("`{}...`", t.chars().take(24).collect::<String>()),
            Some(t) => format!("`{t}`"),
        };
        ParseError {
            line: self.line,
            column: self.text[..self.pos].chars().count() + 1,
            expected: expected.into(),
            found,
        }
    }

    fn peek(&mut self, s: &str) -> bool {
        self.ws();
        self.rest().starts_with(s)
    }

    fn eat(&mut self, s: &str) -> bool {
        let yes = self.peek(s);
        if yes {
            self.pos += s.len();
        }
        yes
    }

    fn expect(&mut self, s: &str) -> Result<(), ParseError> {
        if self.eat(s) { Ok(()) } else { Err(self.err(format!("`{s}`"))) }
    }

    /// A run of identifier characters (letters, digits, `_`, `.`), possibly empty.
    fn word(&mut self) -> &'a str {
        self.ws();
        let r = self.rest();
        let n = r.find(|c: char| !(c.is_alphanumeric() || c == '_' || c == '.')).unwrap_or(r.len());
        self.pos += n;
        &r[..n]
    }

    /// An identifier (a kernel, parameter or constexpr name).
    fn ident(&mut self, what: &str) -> Result<&'a str, ParseError> {
        self.ws();
        let r = self.rest();
        let n = r.find(|c: char| !(c.is_alphanumeric() || c == '_')).unwrap_or(r.len());
        if n == 0 || r.starts_with(|c: char| c.is_ascii_digit()) {
            return Err(self.err(what));
        }
        self.pos += n;
        Ok(&r[..n])
    }

    /// Eats the word `kw` if it comes next (a whole word, not a prefix of a longer one).
    fn keyword(&mut self, kw: &str) -> bool {
        let start = self.pos;
        if self.word() == kw {
            true
        } else {
            self.pos = start;
            false
        }
    }

    fn expect_keyword(&mut self, kw: &str) -> Result<(), ParseError> {
        if self.keyword(kw) { Ok(()) } else { Err(self.err(format!("`{kw}`"))) }
    }

    /// `, kw` if it comes next.
    fn comma_keyword(&mut self, kw: &str) -> bool {
        let start = self.pos;
        if self.eat(",") && self.keyword(kw) {
            true
        } else {
            self.pos = start;
            false
        }
    }

    /// An integer of type `T` (a leading `-` only where `T` is signed).
    fn number<T: std::str::FromStr>(&mut self, what: &str) -> Result<T, ParseError> {
        self.ws();
        let r = self.rest();
        let sign = usize::from(r.starts_with('-'));
        let n = sign + r[sign..].find(|c: char| !c.is_ascii_digit()).unwrap_or(r.len() - sign);
        match r[..n].parse::<T>() {
            Ok(v) if n > sign => {
                self.pos += n;
                Ok(v)
            }
            // not a number of this type (a parse result, not an op kind)
            _ => Err(self.err(what)),
        }
    }

    fn value(&mut self) -> Result<Value, ParseError> {
        if !self.peek("%") {
            return Err(self.err("a value such as `%3`"));
        }
        let start = self.pos;
        self.pos += 1;
        match self.rest().find(|c: char| !c.is_ascii_digit()).unwrap_or(self.rest().len()) {
            0 => {
                self.pos = start;
                Err(self.err("a value such as `%3`"))
            }
            n => match self.rest()[..n].parse::<u32>() {
                Ok(v) => {
                    self.pos += n;
                    Ok(Value(v))
                }
                Err(_) => {
                    self.pos = start;
                    Err(self.err("a value number that fits u32"))
                }
            },
        }
    }

    /// `%a, %b, ...` (possibly none); stops before a `,` not followed by a value.
    fn values(&mut self) -> Result<Vec<Value>, ParseError> {
        let mut out = Vec::new();
        while self.peek("%") {
            out.push(self.value()?);
            let before = self.pos;
            if !self.eat(",") {
                break;
            }
            if !self.peek("%") {
                self.pos = before;
                break;
            }
        }
        Ok(out)
    }

    /// `, v` (the separator of a fixed operand list).
    fn next_value(&mut self) -> Result<Value, ParseError> {
        self.expect(",")?;
        self.value()
    }

    fn scalar_type(&mut self) -> Result<ScalarType, ParseError> {
        let start = self.pos;
        let w = self.word();
        named(ScalarType::ALL, ScalarType::name, w).ok_or_else(|| {
            self.pos = start;
            self.err("an element type (i1, i8, i16, i32, i64, u8, u32, u64, f16, bf16, f32, f64)")
        })
    }

    fn dtype(&mut self) -> Result<DType, ParseError> {
        if self.keyword("ptr") {
            self.expect("<")?;
            let s = self.scalar_type()?;
            self.expect(">")?;
            Ok(DType::Ptr(s))
        } else {
            Ok(DType::Scalar(self.scalar_type()?))
        }
    }

    /// `i32`, `ptr<f32>`, `tensor<128x64xf32>`.
    fn tensor_type(&mut self) -> Result<TensorType, ParseError> {
        if !self.keyword("tensor") {
            return Ok(TensorType::scalar(self.dtype()?));
        }
        self.expect("<")?;
        let mut dims = Vec::new();
        while self.rest().trim_start().starts_with(|c: char| c.is_ascii_digit()) {
            dims.push(self.number::<usize>("a dimension")?);
            self.expect("x")?;
        }
        let dtype = self.dtype()?;
        self.expect(">")?;
        Ok(TensorType::new(dtype, Shape(dims)))
    }

    /// `loc(file:line)`.
    fn loc(&mut self) -> Result<SourceLoc, ParseError> {
        self.expect_keyword("loc")?;
        self.expect("(")?;
        let r = self.rest();
        let bad = |c: &mut Self| Err(c.err("a location `file:line)`"));
        let Some(close) = r.rfind(')') else { return bad(self) };
        let Some((file, line)) = r[..close].rsplit_once(':') else { return bad(self) };
        let Ok(line) = line.trim().parse::<u32>() else { return bad(self) };
        if file.trim().is_empty() {
            return bad(self);
        }
        self.pos += close + 1;
        Ok(SourceLoc { file: intern(file.trim()), line, column: 0 })
    }

    fn end(&mut self) -> Result<(), ParseError> {
        self.ws();
        if self.rest().is_empty() { Ok(()) } else { Err(self.err("end of line")) }
    }
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
                OpKind::Load { ptr, mask, other, staged: name == "load_staged" }
            }
            "store" => {
                let (ptr, value) = (c.value()?, c.next_value()?);
                let mask = if c.comma_keyword("mask") { Some(c.value()?) } else { None };
                OpKind::Store { ptr, value, mask }
            }
            "debug_barrier" => OpKind::DebugBarrier {},
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
                let (carried, init) = iter_args(c)?;
                let mut first_args = vec![(iv, ArgTy::Of(lower))];
                first_args.extend(carried.into_iter().zip(&init).map(|(a, i)| (a, ArgTy::Of(*i))));
                let kind = OpKind::For { lower, upper, step, init, body: Block::default(), unroll };
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
mod tests {
    use super::*;
    use crate::ir::print;
    use crate::prelude::*;
    use crate::trace::trace_unspecialized;

    /// Every op kind and every spelling the printer has for one (hand-written: it need not
    /// verify, only print back as it is).
    const ZOO: &str = "\
kernel @zoo(p: *f32 [D16], n: i32 [-] do_not_specialize, m: i64 [=1] do_not_specialize_on_alignment) constexprs(BLOCK = 16, K = -2) loc(dsl/src/ir/parse.rs:1) {
  %0 = param 0 (p) : ptr<f32>  loc(a.rs:1)
  %1 = param 1 (n) : i32  loc(a.rs:2)
  %2 = constant true : i1  loc(a.rs:3)
  %3 = constant -7 : i64  loc(a.rs:3)
  %4 = constant -inf (0xFF800000) : tensor<16xf32>  loc(a.rs:3)
  %5 = constant 0.1 (0x3FB999999999999A) : f64  loc(a.rs:3)
  %6 = program_id 2 : i32  loc(a.rs:4)
  %7 = num_programs 0 : i32  loc(a.rs:4)
  %8 = arange -8..8 : tensor<16xi32>  loc(a.rs:5)
  %9 = splat %1 : tensor<16xi32>  loc(a.rs:6)
  %10 = broadcast %9 : tensor<16xi32>  loc(a.rs:6)
  %11 = cast %8 : tensor<16xf32>  loc(a.rs:6)
  %12 = bitcast %11 : tensor<16xi32>  loc(a.rs:6)
  %13 = expand_dims %8, axis 1 : tensor<16x1xi32>  loc(a.rs:7)
  %14 = multiple_of %1, 16 : i32  loc(a.rs:7)
  %15 = permute %13, dims [1, 0] : tensor<1x16xi32>  loc(a.rs:7)
  %16 = reshape %15 : tensor<16xi32>  loc(a.rs:7)
  %17 = join %8, %16 : tensor<16x2xi32>  loc(a.rs:8)
  %18, %19 = split %17 : tensor<16xi32>, tensor<16xi32>  loc(a.rs:8)
  %20 = neg %11 : tensor<16xf32>  loc(a.rs:9)
  %21 = exp2_ftz %20 : tensor<16xf32>  loc(a.rs:9)
  %22 = maximum.nan %20, %21 : tensor<16xf32>  loc(a.rs:9)
  %23 = fma %20, %21, %22 : tensor<16xf32>  loc(a.rs:9)
  %24 = cmp ge %8, %9 : tensor<16xi1>  loc(a.rs:9)
  %25 = where %24, %20, %4 : tensor<16xf32>  loc(a.rs:9)
  %26 = splat %0 : tensor<16xptr<f32>>  loc(a.rs:10)
  %27 = addptr %26, %8 : tensor<16xptr<f32>>  loc(a.rs:10)
  %28 = load %27 : tensor<16xf32>  loc(a.rs:10)
  %29 = load_staged %27, mask %24, other %4 : tensor<16xf32>  loc(a.rs:10)
  %30 = load %27, other %4 : tensor<16xf32>  loc(a.rs:10)
  store %27, %29, mask %24  loc(a.rs:10)
  store %27, %28  loc(a.rs:10)
  debug_barrier  loc(a.rs:11)
  %31 = atomic_add %27, %28, mask %24, sem relaxed, scope cta : tensor<16xf32>  loc(a.rs:12)
  %32 = atomic_xchg %27, %28, sem acq_rel, scope sys : tensor<16xf32>  loc(a.rs:12)
  %33 = atomic_cas %27, %28, %29, sem release, scope gpu : tensor<16xf32>  loc(a.rs:12)
  %34 = reduce argmax %28, axis 0 : i32  loc(a.rs:12)
  %35 = reduce max.nan %28, axis 0 : f32  loc(a.rs:12)
  %41, %42 = reduce_with %28, %8, axis 0 combine(%36, %37, %38, %39) : f32, i32  loc(a.rs:13) {
    %40 = maximum %36, %38 : f32  loc(a.rs:13)
    %43 = minimum %37, %39 : i32  loc(a.rs:13)
    yield %40, %43  loc(a.rs:13)
  }
  %47 = scan %28, axis 0 combine(%44, %45) : tensor<16xf32>  loc(a.rs:14) {
    %46 = add %44, %45 : f32  loc(a.rs:14)
    yield %46  loc(a.rs:14)
  }
  %48 = constant 0 : i32  loc(a.rs:15)
  %49 = constant 1 : i32  loc(a.rs:15)
  %53 = for %50 = %48 to %1 step %49 unroll 4 iter_args(%51 = %28) : tensor<16xf32>  loc(a.rs:15) {
    %52 = sub %51, %28 : tensor<16xf32>  loc(a.rs:15)
    yield %52  loc(a.rs:15)
  }
  for %54 = %48 to %1 step %49 iter_args()  loc(a.rs:16) {
    yield   loc(a.rs:16)
  }
  %55 = if %2 : i32  loc(a.rs:17) {
    yield %1  loc(a.rs:17)
  } else {
    yield %6  loc(a.rs:17)
  }
  if %2  loc(a.rs:18) {
    yield   loc(a.rs:18)
  } else {
    yield   loc(a.rs:18)
  }
  %60 = while iter_args(%56 = %1) : i32  loc(a.rs:19) {
    %57 = cmp lt %56, %7 : i1  loc(a.rs:19)
    yield %57  loc(a.rs:19)
  } do(%58) {
    %59 = add %58, %49 : i32  loc(a.rs:19)
    yield %59  loc(a.rs:19)
  }
  while iter_args()  loc(a.rs:20) {
    yield %2  loc(a.rs:20)
  } else {
    yield   loc(a.rs:20)
  }
}
";

    #[test]
    fn every_op_prints_back_as_it_was_read() {
        let k = parse(ZOO).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(print(&k), ZOO);
        // Block arguments get the types the verifier's rules give them.
        assert_eq!(k.ty(Value(36)), &TensorType::scalar(DType::F32));
        assert_eq!(k.ty(Value(37)), &TensorType::scalar(DType::I32));
        assert_eq!(k.ty(Value(50)), &TensorType::scalar(DType::I32));
        assert_eq!(k.ty(Value(51)).to_string(), "tensor<16xf32>");
        assert_eq!(k.ty(Value(58)), &TensorType::scalar(DType::I32));
        // A region op is numbered after the ops of its regions, as tracing numbers it.
        assert_eq!(k.values[41].def, ValueDef::Result { op: OpId(41), index: 0 });
        assert_eq!(k.ops.len(), k.walk().len());
        assert!(k.params[1].do_not_specialize && k.params[2].do_not_specialize_on_alignment);
        assert_eq!(k.constexpr("K"), Some(-2));
    }

    /// Every op kind is in [`ZOO`]: a new op fails to compile here until it is added to the
    /// parser (`Parser::operands`) and to the zoo.
    #[test]
    fn the_zoo_has_every_op_kind() {
        fn variant(kind: &OpKind) -> usize {
            match kind {
                OpKind::Param { .. } => 0,
                OpKind::Constant { .. } => 1,
                OpKind::ProgramId { .. } => 2,
                OpKind::NumPrograms { .. } => 3,
                OpKind::Arange { .. } => 4,
                OpKind::Splat { .. } => 5,
                OpKind::Broadcast { .. } => 6,
                OpKind::ExpandDims { .. } => 7,
                OpKind::Permute { .. } => 8,
                OpKind::Reshape { .. } => 9,
                OpKind::Join { .. } => 10,
                OpKind::Split { .. } => 11,
                OpKind::Unary { .. } => 12,
                OpKind::Binary { .. } => 13,
                OpKind::Fma { .. } => 14,
                OpKind::Compare { .. } => 15,
                OpKind::Cast { .. } => 16,
                OpKind::MultipleOf { .. } => 17,
                OpKind::Bitcast { .. } => 18,
                OpKind::Select { .. } => 19,
                OpKind::AddPtr { .. } => 20,
                OpKind::Load { .. } => 21,
                OpKind::Store { .. } => 22,
                OpKind::AtomicRmw { .. } => 23,
                OpKind::AtomicCas { .. } => 24,
                OpKind::DebugBarrier {} => 25,
                OpKind::Reduce { .. } => 26,
                OpKind::ReduceWith { .. } => 27,
                OpKind::Scan { .. } => 28,
                OpKind::For { .. } => 29,
                OpKind::If { .. } => 30,
                OpKind::While { .. } => 31,
                OpKind::Yield { .. } => 32,
            }
        }
        let k = parse(ZOO).unwrap_or_else(|e| panic!("{e}"));
        let seen: HashSet<usize> = k.ops.iter().map(|op| variant(&op.kind)).collect();
        assert_eq!(seen.len(), 33, "{seen:?}");
    }

    /// Every name of the attribute enums parses back to its value (a new variant fails to
    /// compile in `index` until it is added to the parser's list).
    #[test]
    fn attribute_names_are_listed_once() {
        fn index_binary(op: BinaryOp) -> usize {
            match op {
                BinaryOp::Add => 0,
                BinaryOp::Sub => 1,
                BinaryOp::Mul => 2,
                BinaryOp::Div => 3,
                BinaryOp::Rem => 4,
                BinaryOp::Max(PropagateNan::None) => 5,
                BinaryOp::Max(PropagateNan::All) => 6,
                BinaryOp::Min(PropagateNan::None) => 7,
                BinaryOp::Min(PropagateNan::All) => 8,
                BinaryOp::And => 9,
                BinaryOp::Or => 10,
                BinaryOp::Xor => 11,
                BinaryOp::FDiv => 12,
                BinaryOp::Shl => 13,
                BinaryOp::Shr => 14,
            }
        }
        fn index_reduce(op: ReduceOp) -> usize {
            match op {
                ReduceOp::Max(PropagateNan::None) => 0,
                ReduceOp::Max(PropagateNan::All) => 1,
                ReduceOp::Min(PropagateNan::None) => 2,
                ReduceOp::Min(PropagateNan::All) => 3,
                ReduceOp::Sum => 4,
                ReduceOp::Argmax => 5,
                ReduceOp::Argmin => 6,
                ReduceOp::XorSum => 7,
            }
        }
        fn index_unary(op: UnaryOp) -> usize {
            match op {
                UnaryOp::Neg => 0,
                UnaryOp::Abs => 1,
                UnaryOp::Math(f) => 2 + MathFn::ALL.iter().position(|g| *g == f).unwrap_or(usize::MAX - 2),
            }
        }
        fn index_atomic(op: AtomicOp) -> usize {
            match op {
                AtomicOp::Add => 0,
                AtomicOp::Max => 1,
                AtomicOp::Min => 2,
                AtomicOp::And => 3,
                AtomicOp::Or => 4,
                AtomicOp::Xor => 5,
                AtomicOp::Xchg => 6,
            }
        }
        fn index_cmp(p: CmpPred) -> usize {
            match p {
                CmpPred::Lt => 0,
                CmpPred::Le => 1,
                CmpPred::Gt => 2,
                CmpPred::Ge => 3,
                CmpPred::Eq => 4,
                CmpPred::Ne => 5,
            }
        }
        fn index_sem(s: Sem) -> usize {
            match s {
                Sem::Relaxed => 0,
                Sem::Acquire => 1,
                Sem::Release => 2,
                Sem::AcqRel => 3,
            }
        }
        fn index_scope(s: Scope) -> usize {
            match s {
                Scope::Cta => 0,
                Scope::Gpu => 1,
                Scope::Sys => 2,
            }
        }
        for (i, op) in BINARY.into_iter().enumerate() {
            assert_eq!(index_binary(op), i);
            assert_eq!(named(BINARY, BinaryOp::name, op.name()), Some(op));
        }
        for (i, op) in REDUCE.into_iter().enumerate() {
            assert_eq!(index_reduce(op), i);
            assert_eq!(named(REDUCE, ReduceOp::name, op.name()), Some(op));
        }
        for (i, op) in unary_ops().enumerate() {
            assert_eq!(index_unary(op), i);
            assert_eq!(named(unary_ops(), UnaryOp::name, op.name()), Some(op));
        }
        for (i, op) in ATOMIC.into_iter().enumerate() {
            assert_eq!(index_atomic(op), i);
            assert_eq!(named(ATOMIC, AtomicOp::name, op.name()), Some(op));
        }
        for (i, p) in CMP.into_iter().enumerate() {
            assert_eq!(index_cmp(p), i);
        }
        for (i, s) in SEM.into_iter().enumerate() {
            assert_eq!(index_sem(s), i);
        }
        for (i, s) in SCOPE.into_iter().enumerate() {
            assert_eq!(index_scope(s), i);
        }
        // No op name is two ops.
        let mut names: Vec<&str> = unary_ops().map(UnaryOp::name).collect();
        names.extend(BINARY.map(BinaryOp::name));
        names.extend(ATOMIC.map(AtomicOp::name));
        let distinct: HashSet<&str> = names.iter().copied().collect();
        assert_eq!(distinct.len(), names.len(), "{names:?}");
    }

    crate::kernel! {
        /// A loop, a branch, a reduction and masked memory: the shapes of traced IR.
        fn traced(x: Ptr<f32>, y: Ptr<f32>, n: i32) {
            let pid = program_id(0);
            let offs = arange(0, 64);
            let acc = for_range(0, n, 64, zeros::<f32>(&[64]), |start, acc| {
                let c = start + offs;
                acc + load(x + c, Some(c.lt(n)), Some(0.0f32))
            });
            let s = if_(pid.eq(0), || sum(acc, 0), || max(acc, 0));
            store(y + pid, s, None);
        }
    }

    #[test]
    fn a_traced_kernel_prints_back_as_it_was_traced() {
        let k = trace_unspecialized(&traced(), &[]).unwrap_or_else(|e| panic!("{e}"));
        let text = print(&k);
        let back = parse(&text).unwrap_or_else(|e| panic!("{e}\n{text}"));
        assert_eq!(print(&back), text);
        // Up to the columns of locations (the text has none), the kernel is the traced one.
        let mut k = k;
        let zero = |op: &mut Op| op.loc.column = 0;
        k.ops.iter_mut().for_each(zero);
        k.loc.column = 0;
        assert_eq!(back.values, k.values);
        assert_eq!(back.body, k.body);
        assert_eq!(back.ops, k.ops);
        assert_eq!(back, k);
        crate::verify::check(&back).unwrap_or_else(|e| panic!("{e}"));
    }

    /// Malformed text: an error at the right line and column, never a panic.
    #[test]
    fn malformed_text_is_located() {
        let head = "kernel @k(p: *i32 [-]) loc(a.rs:1) {\n";
        let op = "  %0 = param 0 (p) : ptr<i32>  loc(a.rs:2)\n";
        let cases: Vec<(String, usize, usize, &str)> = vec![
            (String::new(), 1, 1, "`kernel @name(...) {`"),
            ("kernel k() {\n}\n".into(), 1, 8, "`@`"),
            ("kernel @k(p: *i33 [-]) loc(a.rs:1) {\n}\n".into(), 1, 15, "an element type"),
            ("kernel @k(p: *i32 [D8]) loc(a.rs:1) {\n}\n".into(), 1, 20, "a specialization"),
            ("kernel @k() {\n}\n".into(), 1, 13, "`loc`"),
            ("kernel @k() loc(a.rs) {\n}\n".into(), 1, 17, "a location"),
            (head.to_string(), 1, 1, "an op or `}`"),
            (format!("{head}}}\n}}\n"), 3, 1, "end of text"),
            (format!("{head}  %0 = frobnicate %1 : i32  loc(a.rs:2)\n}}\n"), 2, 8, "an op name"),
            (
                format!("{head}  %0 = param 1 (p) : ptr<i32>  loc(a.rs:2)\n}}\n"),
                2,
                8,
                "a parameter of the kernel's header: 0 (p)",
            ),
            (format!("{head}  %0 = param 0 (p)  loc(a.rs:2)\n}}\n"), 2, 21, "1 result type(s)"),
            (format!("{head}{op}  %0 = splat %0 : tensor<4xptr<i32>>  loc(a.rs:3)\n}}\n"), 3, 3, "defined twice"),
            (
                format!("{head}  %0 = constant 1.5 (0x3F800000) : f32  loc(a.rs:2)\n}}\n"),
                2,
                17,
                "`1.0`, the value of bits 0x3F800000",
            ),
            (format!("{head}  %0 = constant 1.0 (0x3F80) : f32  loc(a.rs:2)\n}}\n"), 2, 24, "8 hex digits"),
            (format!("{head}  %0 = constant 99999999999999999999 : i64  loc(a.rs:2)\n}}\n"), 2, 17, "a constant"),
            (format!("{head}  %0 = arange 0..16 : tensor<16xi32  loc(a.rs:2)\n}}\n"), 2, 38, "`>`"),
            (
                format!("{head}  %99999999999 = program_id 0 : i32  loc(a.rs:2)\n}}\n"),
                2,
                3,
                "a value number that fits u32",
            ),
            (format!("{head}  %4000000 = program_id 0 : i32  loc(a.rs:2)\n}}\n"), 2, 3, "a value number below"),
            (format!("{head}  %0 = program_id 0 : i32  loc(a.rs:2) {{\n}}\n"), 2, 0, "end of line"),
            (
                format!("{head}{op}  %1 = if %0 : i32  loc(a.rs:3) {{\n    yield %0  loc(a.rs:3)\n  }}\n}}\n"),
                5,
                4,
                "`} else {`",
            ),
            (format!("{head}{op}  %1 = if %0 : i32  loc(a.rs:3)\n}}\n"), 3, 32, "`{` (`if` has a region)"),
            (
                format!("{head}{op}  %1 = reduce_with %0, axis 0 combine(%2) : i32  loc(a.rs:3) {{\n  }}\n}}\n"),
                3,
                43,
                "2 combine arguments",
            ),
            (
                format!("{head}  for %1 = %9 to %9 step %9 iter_args()  loc(a.rs:2) {{\n  }}\n}}\n"),
                2,
                3,
                "%9 defined above this op",
            ),
            (
                format!(
                    "{head}{op}  %1 = while iter_args(%2 = %0) : ptr<i32>  loc(a.rs:3) {{\n  }} do(%3, %4) {{\n  }}\n}}\n"
                ),
                4,
                5,
                "1 region argument(s)",
            ),
            (
                format!("{head}{op}  for %1 = %0 to %0 step %0 iter_args()  loc(a.rs:3) {{\n  }} else {{\n  }}\n}}\n"),
                4,
                5,
                "the op has no further region",
            ),
            (
                "kernel @k() loc(a.rs:1) {\n".to_string() + &"  if %0  loc(a.rs:2) {\n".repeat(200),
                130,
                3,
                "at most 128 nested regions",
            ),
        ];
        let mut wrong = Vec::new();
        for (text, line, column, expected) in cases {
            match parse(&text) {
                Ok(k) => wrong.push(format!("parsed:\n{text}\nas\n{k}")),
                Err(e) if !e.expected.contains(expected) || e.line != line || column > 0 && e.column != column => {
                    wrong.push(format!("want line {line}, column {column}: {expected}\ngot {e}\nin\n{text}"));
                }
                Err(_) => {}
            }
        }
        assert!(wrong.is_empty(), "{}", wrong.join("\n\n"));
    }

    /// Comments and blank lines are skipped; spacing between tokens is free.
    #[test]
    fn comments_blank_lines_and_spacing() {
        let text = "; run: verify\n\nkernel @k(p:*i32[-])   loc(a.rs:1){\n  ; a comment\n  %0=param 0(p):ptr<i32> loc(a.rs:2)\n}\n";
        let k = parse(text).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(print(&k), "kernel @k(p: *i32 [-]) loc(a.rs:1) {\n  %0 = param 0 (p) : ptr<i32>  loc(a.rs:2)\n}\n");
    }

    /// A value number no line defines is a placeholder; one past them all stays undefined,
    /// and the verifier reports both uses.
    #[test]
    fn gaps_and_undefined_values_reach_the_verifier() {
        let text = "kernel @k(p: *i32 [-]) loc(a.rs:1) {\n  %0 = param 0 (p) : ptr<i32>  loc(a.rs:2)\n  \
                    %2 = program_id 0 : i32  loc(a.rs:3)\n  store %0, %1  loc(a.rs:4)\n  store %0, %7  loc(a.rs:5)\n}\n";
        let k = parse(text).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(k.values.len(), 3);
        let e = crate::verify::check(&k).expect_err("invalid").to_string();
        assert!(e.contains("uses %1 outside the block that defines it"), "{e}");
        assert!(e.contains("uses undefined value %7"), "{e}");
    }
}
