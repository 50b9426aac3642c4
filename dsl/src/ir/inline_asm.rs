//! `inline_asm_elementwise` (Triton's `tl.inline_asm_elementwise`): the registers one
//! invocation of the asm reads and writes, its constraint string, its `$N` operands, its
//! CPU model and its typing rule. The front end, the verifier, the interpreter, the PTX
//! lowering and writer and the simulator all read the register plan from here, so the
//! packing of elements into registers is defined once.
//!
//! One invocation processes `pack` elements of every operand and result. Operands and
//! results are numbered as LLVM numbers an inline asm's: the output registers first
//! (`$0..`), result by result, then the input registers, argument by argument. An element
//! narrower than 32 bits is packed with its neighbours into one register of up to 32 bits
//! (`min(32 / bits, pack)` of them, the first in the low bits), as Triton's lowering packs
//! them (`ElementwiseInlineAsmOpConversion`); every other element has a register of its
//! own.

use std::fmt;

use super::typing::TypeCx;
use super::{DType, ScalarType, Value};

/// A CPU model of an asm: given the bits of every input register of one invocation
/// (`$n_out..`, zero-extended to 64 bits, in operand order), it writes the bits of every
/// output register (`$0..`; bits past a register's width are ignored). The interpreter
/// and the simulator run it where the GPU runs the asm.
pub type AsmModelFn = fn(inputs: &[u64], outputs: &mut [u64]);

/// The CPU model an `inline_asm_elementwise` is traced with: a name, which the IR text
/// prints (`model "rotl"`), and the function. IR text read back names the model without
/// its function (`run` is `None`); the interpreter and the simulator refuse such an op as
/// they refuse one with no model. Two models are the same model when their names are.
#[derive(Clone, Copy)]
pub struct AsmModel {
    pub name: &'static str,
    pub run: Option<AsmModelFn>,
}

impl AsmModel {
    /// The model `name` computed by `run`.
    pub const fn new(name: &'static str, run: AsmModelFn) -> AsmModel {
        AsmModel { name, run: Some(run) }
    }
}

impl PartialEq for AsmModel {
    fn eq(&self, other: &AsmModel) -> bool {
        self.name == other.name
    }
}

impl fmt::Debug for AsmModel {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let bound = if self.run.is_some() { "" } else { " (no function)" };
        write!(f, "AsmModel({:?}{bound})", self.name)
    }
}

/// The most elements one invocation may process (Triton puts no bound on `pack`; 16
/// covers every packing of 8-bit elements into 32-bit registers four times over).
pub const MAX_PACK: u32 = 16;

/// One register of an invocation: elements `first..first + elems` of the invocation's
/// group of `pack`, of value `value` (a result for outputs, an argument for inputs), each
/// `elem_bits` wide, the first in the low bits.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AsmReg {
    pub value: usize,
    pub first: u32,
    pub elems: u32,
    pub elem_bits: u32,
}

impl AsmReg {
    /// The register's width in bits (8, 16, 32 or 64).
    pub fn bits(&self) -> u32 {
        self.elems * self.elem_bits
    }

    /// The mask of its bits.
    pub fn mask(&self) -> u64 {
        if self.bits() >= 64 { u64::MAX } else { (1u64 << self.bits()) - 1 }
    }
}

/// The registers of one invocation: outputs (`$0..`) then inputs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AsmPlan {
    pub outputs: Vec<AsmReg>,
    pub inputs: Vec<AsmReg>,
}

impl AsmPlan {
    /// The plan for results of `result_bits`-bit elements and arguments of `arg_bits`-bit
    /// elements, `pack` (a power of two) elements an invocation.
    pub fn new(result_bits: &[u32], arg_bits: &[u32], pack: u32) -> AsmPlan {
        AsmPlan { outputs: registers(result_bits, pack), inputs: registers(arg_bits, pack) }
    }

    /// The plan of an op whose results and arguments have these dtypes (`None` when one
    /// has no register form: `i1`).
    pub fn of(results: &[DType], args: &[DType], pack: u32) -> Option<AsmPlan> {
        let bits = |ds: &[DType]| ds.iter().map(|d| elem_bits(*d)).collect::<Option<Vec<u32>>>();
        Some(AsmPlan::new(&bits(results)?, &bits(args)?, pack))
    }

    /// Every register, `$0` first.
    pub fn all(&self) -> impl Iterator<Item = &AsmReg> {
        self.outputs.iter().chain(&self.inputs)
    }
}

fn registers(bits: &[u32], pack: u32) -> Vec<AsmReg> {
    let mut out = Vec::new();
    for (value, &b) in bits.iter().enumerate() {
        let per_reg = if b < 32 { (32 / b).min(pack) } else { 1 };
        for r in 0..pack / per_reg {
            out.push(AsmReg { value, first: r * per_reg, elems: per_reg, elem_bits: b });
        }
    }
    out
}

/// The width of one element of `d` in an asm register: its bits, 64 for an address;
/// `None` for `i1`, which has no register form an asm could read.
pub fn elem_bits(d: DType) -> Option<u32> {
    match d {
        DType::Ptr(_) => Some(64),
        DType::Scalar(ScalarType::Bool) => None,
        DType::Scalar(s) => Some(s.bit_width()),
    }
}

/// One constraint: an output (`=r`, `=&r`) or an input (`r`), and its register letter.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Constraint {
    pub output: bool,
    pub letter: char,
}

/// The register width each constraint letter names, as LLVM's NVPTX back end maps them:
/// `c` an 8-bit value (in a 16-bit register), `h` 16 bits, `r` 32-bit integer, `f` f32,
/// `l` 64-bit integer, `d` f64.
pub fn letter_bits(letter: char) -> Option<u32> {
    match letter {
        'c' => Some(8),
        'h' => Some(16),
        'r' | 'f' => Some(32),
        'l' | 'd' => Some(64),
        _ => None,
    }
}

/// `constraints` split at commas: `=X` and `=&X` (an early clobber changes nothing here:
/// no output shares a register with an input) are outputs, `X` inputs.
pub fn parse_constraints(constraints: &str) -> Result<Vec<Constraint>, String> {
    if constraints.trim().is_empty() {
        return Ok(Vec::new());
    }
    constraints
        .split(',')
        .map(|c| {
            let c = c.trim();
            let (output, rest) = match c.strip_prefix('=') {
                Some(r) => (true, r.strip_prefix('&').unwrap_or(r)),
                None => (false, c),
            };
            let mut chars = rest.chars();
            match (chars.next(), chars.next()) {
                (Some(letter), None) if letter_bits(letter).is_some() => Ok(Constraint { output, letter }),
                _ => Err(format!(
                    "constraint `{c}` is not one rtriton takes: outputs `=c`, `=h`, `=r`, `=f`, `=l`, `=d` (or `=&`), inputs `c`, `h`, `r`, `f`, `l`, `d` (tied and memory operands are not supported)"
                )),
            }
        })
        .collect()
}

/// A piece of asm text: literal text, or operand `$N`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum AsmPiece<'a> {
    Text(&'a str),
    Operand(usize),
}

/// `asm` cut into text and `$N` operands (`$$` is a literal `$`).
pub fn pieces(asm: &str) -> Result<Vec<AsmPiece<'_>>, String> {
    let mut out = Vec::new();
    let mut rest = asm;
    while let Some(at) = rest.find('$') {
        if at > 0 {
            out.push(AsmPiece::Text(&rest[..at]));
        }
        let after = &rest[at + 1..];
        if let Some(tail) = after.strip_prefix('$') {
            out.push(AsmPiece::Text("$"));
            rest = tail;
            continue;
        }
        let digits = after.len() - after.trim_start_matches(|c: char| c.is_ascii_digit()).len();
        if digits == 0 {
            let byte = asm.len() - rest.len() + at;
            return Err(format!(
                "`$` at byte {byte} of the asm is not followed by an operand number (`$0`; `$$` for a `$`)"
            ));
        }
        let n =
            after[..digits].parse::<usize>().map_err(|_| format!("operand `${}` is out of range", &after[..digits]))?;
        out.push(AsmPiece::Operand(n));
        rest = &after[digits..];
    }
    if !rest.is_empty() {
        out.push(AsmPiece::Text(rest));
    }
    Ok(out)
}

/// `asm` with every `$N` written as `names[N]` (the caller checked the operands).
pub fn substitute(asm: &str, names: &[String]) -> String {
    let Ok(pieces) = pieces(asm) else { return asm.to_string() };
    pieces
        .iter()
        .map(|p| match p {
            AsmPiece::Text(t) => (*t).to_string(),
            AsmPiece::Operand(n) => names.get(*n).cloned().unwrap_or_else(|| format!("${n}")),
        })
        .collect()
}

/// What is wrong with an asm of these result and argument dtypes: `pack`, the dtypes, the
/// constraints against the register plan and the `$N` operands. Shared by the front end
/// (located trace errors) and the verifier.
pub fn problems(asm: &str, constraints: &str, results: &[DType], args: &[DType], pack: u32) -> Vec<String> {
    let mut out = Vec::new();
    if results.is_empty() {
        out.push("inline_asm_elementwise needs at least one result dtype".to_string());
    }
    if pack == 0 || !pack.is_power_of_two() || pack > MAX_PACK {
        out.push(format!("pack {pack} is not a power of two from 1 to {MAX_PACK}"));
        return out;
    }
    for (i, d) in results.iter().enumerate() {
        if d.is_ptr() {
            out.push(format!("result {i} is {d}: an asm computes numbers, not pointers (give it an integer dtype)"));
        }
    }
    for (what, ds) in [("result", results), ("argument", args)] {
        for (i, d) in ds.iter().enumerate() {
            if elem_bits(*d).is_none() {
                out.push(format!("{what} {i} is {d}, which no asm register holds (cast it to i8 or i32)"));
            }
        }
    }
    let Some(plan) = AsmPlan::of(results, args, pack) else { return out };
    let parsed = match parse_constraints(constraints) {
        Ok(c) => c,
        Err(e) => {
            out.push(e);
            return out;
        }
    };
    let n_out = parsed.iter().take_while(|c| c.output).count();
    if parsed[n_out..].iter().any(|c| c.output) {
        out.push("the output constraints (`=...`) must all come before the inputs".to_string());
        return out;
    }
    if n_out != plan.outputs.len() || parsed.len() - n_out != plan.inputs.len() {
        out.push(format!(
            "constraints `{constraints}` name {n_out} outputs and {} inputs; with pack {pack} the results take {} output registers and the arguments {} input registers ({})",
            parsed.len() - n_out,
            plan.outputs.len(),
            plan.inputs.len(),
            describe(&plan)
        ));
        return out;
    }
    for (k, (c, reg)) in parsed.iter().zip(plan.all()).enumerate() {
        let want = reg.bits();
        if letter_bits(c.letter) != Some(want) {
            out.push(format!(
                "operand ${k} is a {want}-bit register ({} element(s) of {} bits), but its constraint `{}` names a {}-bit one (use {})",
                reg.elems,
                reg.elem_bits,
                c.letter,
                letter_bits(c.letter).unwrap_or(0),
                letters_of(want)
            ));
        }
    }
    match pieces(asm) {
        Err(e) => out.push(e),
        Ok(ps) => {
            let n = parsed.len();
            for p in ps {
                if let AsmPiece::Operand(k) = p
                    && k >= n
                {
                    out.push(format!(
                        "the asm reads `${k}`, but the constraints name only {n} operands ($0..${})",
                        n.max(1) - 1
                    ));
                }
            }
        }
    }
    out
}

fn letters_of(bits: u32) -> &'static str {
    match bits {
        8 => "`c`",
        16 => "`h`",
        32 => "`r` or `f`",
        _ => "`l` or `d`",
    }
}

/// The plan in words: `$0 = r (result 0, 4 x 8 bits)`, ...
fn describe(plan: &AsmPlan) -> String {
    let one = |k: usize, r: &AsmReg, what: &str| {
        format!("${k}: {what} {}, {} x {} bits, {}", r.value, r.elems, r.elem_bits, letters_of(r.bits()))
    };
    let n = plan.outputs.len();
    plan.outputs
        .iter()
        .enumerate()
        .map(|(k, r)| one(k, r, "result"))
        .chain(plan.inputs.iter().enumerate().map(|(k, r)| one(n + k, r, "argument")))
        .collect::<Vec<_>>()
        .join("; ")
}

/// The verifier's typing rule: the arguments share the results' shape, and the asm
/// checks out against its dtypes ([`problems`]).
pub fn typing(cx: &TypeCx<'_>, out: &mut Vec<String>, asm: &str, constraints: &str, args: &[Value], pack: u32) {
    let k = cx.kernel;
    let results: Vec<DType> = cx.op.results.iter().map(|r| k.ty(*r).dtype).collect();
    let arg_types: Vec<DType> = args.iter().map(|a| k.ty(*a).dtype).collect();
    if let Some(first) = cx.op.results.first() {
        let shape = &k.ty(*first).shape;
        for r in &cx.op.results {
            if &k.ty(*r).shape != shape {
                out.push(format!("results of shapes {shape} and {} (one shape for all)", k.ty(*r).shape));
            }
        }
        for a in args {
            if &k.ty(*a).shape != shape {
                out.push(format!(
                    "argument {a} has shape {}, the results {shape} (broadcast it first)",
                    k.ty(*a).shape
                ));
            }
        }
    }
    out.extend(problems(asm, constraints, &results, &arg_types, pack));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn narrow_elements_pack_into_32_bit_registers() {
        // Triton's doc example: u8 and f32 in, i32 and f32 out, four elements a call.
        let plan = AsmPlan::new(&[32, 32], &[8, 32], 4);
        assert_eq!(plan.outputs.len(), 8);
        assert_eq!(plan.inputs.len(), 5);
        assert_eq!(plan.inputs[0], AsmReg { value: 0, first: 0, elems: 4, elem_bits: 8 });
        assert_eq!(plan.inputs[4], AsmReg { value: 1, first: 3, elems: 1, elem_bits: 32 });
        let halves = AsmPlan::new(&[16], &[8], 2);
        assert_eq!(halves.outputs, vec![AsmReg { value: 0, first: 0, elems: 2, elem_bits: 16 }]);
        assert_eq!(halves.inputs[0].bits(), 16);
    }

    #[test]
    fn constraints_are_checked_against_the_plan() {
        let i32s = [DType::I32];
        assert!(problems("shf.l.wrap.b32 $0, $1, $1, $2;", "=r,r,r", &i32s, &[DType::I32, DType::I32], 1).is_empty());
        let p = problems("mov.b32 $0, $1;", "=r,h", &i32s, &i32s, 1);
        assert!(p[0].contains("operand $1 is a 32-bit register"), "{p:?}");
        let p = problems("mov.b32 $0, $2;", "=r,r", &i32s, &i32s, 1);
        assert!(p[0].contains("reads `$2`"), "{p:?}");
        let p = problems("mov.b32 $0, $1;", "=r,r", &i32s, &i32s, 3);
        assert!(p[0].contains("pack 3"), "{p:?}");
        let p = problems("", "=r,r,=r", &i32s, &i32s, 1);
        assert!(p[0].contains("must all come before"), "{p:?}");
        let p = problems("", "=r,0", &i32s, &i32s, 1);
        assert!(p[0].contains("tied and memory operands"), "{p:?}");
    }

    #[test]
    fn operands_are_substituted_and_dollars_escape() {
        let names = vec!["%r1".to_string(), "%r2".to_string()];
        assert_eq!(substitute("add.s32 $0, $1, $$x; // $1", &names), "add.s32 %r1, %r2, $x; // %r2");
        assert!(pieces("mov $a").is_err());
    }
}
