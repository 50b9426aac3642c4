//! [`Program`] to PTX text: one instruction per line; the structured loop becomes labels
//! and branches (uniform ifs and whiles in `writer/control.rs`), the debug-mode system
//! calls call sequences (`writer/syscall.rs`). Register names and type suffixes come from the small lookup functions
//! below, never from the lowering.

mod control;
mod rounding;
mod syscall;
mod tma;

use std::collections::HashSet;
use std::fmt::Write;

use super::layout::MmaInput;
use super::lir::{
    AsmOperand, AtomOp, BinOp, Cmp, Guard, Inst, Operand, ParamTy, Program, Reg, Special, TmaOp, Ty, WgmmaA,
};
use super::tensor_map::TensorMap;
use crate::ir::{Fp8Format, MathFn, PropagateNan, ScalarType, UnaryOp};
use crate::semantics::atomic::AtomKind;
use crate::semantics::convert::{f32_to_bf16, f32_to_f16, f32_to_f64};

/// The PTX text of `p`.
pub fn write(p: &Program) -> String {
    let mut w = Writer::new(p, String::with_capacity(4096));
    w.module();
    w.out
}

struct Writer<'a> {
    p: &'a Program,
    out: String,
    loops: u32,
    /// Ifs and whiles written so far (their labels' numbers).
    branches: u32,
    /// Registers no add can be fused with: an `f32` add of two of them (or immediates)
    /// prints without `.rn` (`writer/rounding.rs`).
    contraction_free: HashSet<Reg>,
    /// Guarded system calls written so far (their skip labels' numbers).
    calls: u32,
    /// The strings the system calls pass, `$str0`, `$str1`... (`writer/syscall.rs`).
    strings: Vec<Vec<u8>>,
}

/// The PTX line of one instruction as [`write`] prints it, for every instruction but a
/// loop, if or while (which becomes several lines and labels): `None` for those. Error
/// messages (the simulator's) quote instructions with it, so they can be found in the PTX.
pub(crate) fn inst_line(p: &Program, i: &Inst) -> Option<String> {
    let w = Writer::new(p, String::new());
    i.bodies().is_empty().then(|| w.single(i))
}

/// Register name prefix by type: `%p`, `%r` (every 32-bit integer, the extended 8- and
/// 16-bit ones included), `%rd` (64-bit integers), `%f`, `%fd` (f64), `%h` (the 16-bit
/// registers of f16 and bf16); never `%tid`/`%ctaid`.
pub(crate) fn prefix(ty: Ty) -> &'static str {
    match ty {
        Ty::Pred => "%p",
        Ty::I32 | Ty::U32 | Ty::S8 | Ty::U8 | Ty::S16 => "%r",
        Ty::I64 | Ty::U64 => "%rd",
        Ty::F32 => "%f",
        Ty::F64 => "%fd",
        Ty::F16 | Ty::BF16 => "%h",
    }
}

/// `.reg` declaration type of a register class (one per [`prefix`]).
fn reg_decl(ty: Ty) -> &'static str {
    match ty {
        Ty::Pred => ".pred",
        Ty::I32 | Ty::U32 | Ty::S8 | Ty::U8 | Ty::S16 => ".b32",
        Ty::I64 | Ty::U64 => ".b64",
        Ty::F32 => ".f32",
        Ty::F64 => ".f64",
        Ty::F16 | Ty::BF16 => ".b16",
    }
}

/// One type per register class, in the order the declarations are printed.
const REG_CLASSES: [Ty; 6] = [Ty::Pred, Ty::I32, Ty::I64, Ty::F32, Ty::F64, Ty::F16];

/// The PTX instruction of each block-IR unary op (the type suffix is added by the caller).
fn unary_name(op: UnaryOp) -> &'static str {
    match op {
        UnaryOp::Neg => "neg",
        UnaryOp::Abs => "abs",
        UnaryOp::Math(f) => math_name(f),
    }
}

/// The PTX instruction of each one-instruction math function, for `.f32` operands (the
/// caller appends `.f32`; `cvt` names its destination type here, so floor prints as
/// `cvt.rmi.f32.f32`). No `.ftz` (subnormals are kept, as Triton does for f32) but in
/// `exp2_ftz`, the function that asks for it.
fn math_name(f: MathFn) -> &'static str {
    match f {
        MathFn::Exp2 => "ex2.approx",
        MathFn::Exp2Ftz => "ex2.approx.ftz",
        MathFn::Log2 => "lg2.approx",
        MathFn::Sqrt => "sqrt.rn",
        MathFn::Rsqrt => "rsqrt.approx",
        MathFn::Floor => "cvt.rmi.f32",
        MathFn::Ceil => "cvt.rpi.f32",
        MathFn::Trunc => "cvt.rzi.f32",
        MathFn::Rint => "cvt.rni.f32",
        MathFn::Sin => "sin.approx",
        MathFn::Cos => "cos.approx",
        MathFn::Tanh => "tanh.approx",
    }
}

/// Arithmetic / comparison suffix (signed for `I32`/`I64`, unsigned for `U32`/`U64`;
/// the extended narrow ints compute as the 32-bit value their register holds).
fn sty(ty: Ty) -> &'static str {
    match ty {
        Ty::Pred => "pred",
        Ty::I32 | Ty::S8 | Ty::S16 => "s32",
        Ty::U32 | Ty::U8 => "u32",
        Ty::I64 => "s64",
        Ty::U64 => "u64",
        Ty::F32 => "f32",
        Ty::F64 => "f64",
        Ty::F16 => "f16",
        Ty::BF16 => "bf16",
    }
}

/// Untyped-bits suffix (`mov`, logic, shifts, `selp`, memory of ints).
fn bty(ty: Ty) -> &'static str {
    match ty {
        Ty::Pred => "pred",
        Ty::I32 | Ty::U32 | Ty::S8 | Ty::U8 | Ty::S16 => "b32",
        Ty::I64 | Ty::U64 => "b64",
        Ty::F32 => "f32",
        Ty::F64 => "f64",
        Ty::F16 | Ty::BF16 => "b16",
    }
}

/// The type a `cvt` names for a register type: the narrow ints by their own width (the
/// register is wider, which PTX allows for `cvt`: the source is cut to the width, the
/// destination extended from it).
fn cvt_ty(ty: Ty) -> &'static str {
    match ty {
        Ty::S8 => "s8",
        Ty::U8 => "u8",
        Ty::S16 => "s16",
        // every other type's suffix is its arithmetic one (a register type, not an op kind)
        t => sty(t),
    }
}

/// The packed pair type of an fp8 format in a `cvt`.
fn fp8x2(f: Fp8Format) -> &'static str {
    match f {
        Fp8Format::E4M3 => "e4m3x2",
        Fp8Format::E5M2 => "e5m2x2",
    }
}

fn param_ty(t: ParamTy) -> &'static str {
    match t {
        ParamTy::Ptr => "u64",
        ParamTy::I32 => "s32",
        ParamTy::I64 => "s64",
        ParamTy::F32 => "f32",
    }
}

fn cmp_name(c: Cmp, ty: Ty) -> &'static str {
    match (c, ty) {
        // Unsigned comparisons are `lo`, `ls`, `hi`, `hs` (PTX also takes `lt` with `.u32`,
        // but these say what they do).
        (Cmp::Lt, Ty::U32 | Ty::U64 | Ty::U8) => "lo",
        (Cmp::Le, Ty::U32 | Ty::U64 | Ty::U8) => "ls",
        (Cmp::Gt, Ty::U32 | Ty::U64 | Ty::U8) => "hi",
        (Cmp::Ge, Ty::U32 | Ty::U64 | Ty::U8) => "hs",
        (Cmp::Lt, _) => "lt",
        (Cmp::Le, _) => "le",
        (Cmp::Gt, _) => "gt",
        (Cmp::Ge, _) => "ge",
        (Cmp::Eq, _) => "eq",
        (Cmp::Ne, Ty::F32 | Ty::F64) => "neu",
        (Cmp::Ne, _) => "ne",
    }
}

fn special(s: Special) -> String {
    let axis = |a: u32| ["x", "y", "z"][a.min(2) as usize];
    match s {
        Special::TidX => "%tid.x".into(),
        Special::CtaId(a) => format!("%ctaid.{}", axis(a)),
        Special::NCtaId(a) => format!("%nctaid.{}", axis(a)),
    }
}

impl<'a> Writer<'a> {
    fn new(p: &'a Program, out: String) -> Self {
        Writer {
            p,
            out,
            loops: 0,
            branches: 0,
            contraction_free: rounding::contraction_free(p),
            calls: 0,
            strings: Vec::new(),
        }
    }

    fn reg(&self, r: Reg) -> String {
        format!("{}{}", prefix(self.p.ty(r)), r.0)
    }

    fn opnd(&self, o: Operand, ty: Ty) -> String {
        match o {
            Operand::Reg(r) => self.reg(r),
            Operand::F32(x) => match ty {
                Ty::F16 => format!("0x{:04X}", f32_to_f16(x).to_bits()),
                Ty::BF16 => format!("0x{:04X}", f32_to_bf16(x).to_bits()),
                Ty::F64 => format!("0d{:016X}", f32_to_f64(x).to_bits()),
                // a 32-bit register takes the float's bits (a register type, not an op kind)
                _ => format!("0f{:08X}", x.to_bits()),
            },
            Operand::F64(x) => format!("0d{:016X}", x.to_bits()),
            Operand::Int(v) => match ty {
                Ty::I32 => (v as i32).to_string(),
                Ty::U32 | Ty::S8 | Ty::U8 | Ty::S16 => (v as u32).to_string(),
                Ty::U64 => (v as u64).to_string(),
                Ty::F32 => format!("0f{:08X}", (v as f32).to_bits()),
                Ty::F64 => format!("0d{:016X}", (v as f64).to_bits()),
                Ty::F16 => format!("0x{:04X}", f32_to_f16(v as f32).to_bits()),
                Ty::BF16 => format!("0x{:04X}", f32_to_bf16(v as f32).to_bits()),
                Ty::I64 | Ty::Pred => v.to_string(),
            },
        }
    }

    fn guard(&self, g: Option<Guard>) -> String {
        match g {
            None => String::new(),
            Some(g) => format!("@{}{} ", if g.negate { "!" } else { "" }, self.reg(g.pred)),
        }
    }

    fn line(&mut self, depth: usize, s: &str) {
        let _ = writeln!(self.out, "{}{s}", "\t".repeat(depth));
    }

    fn module(&mut self) {
        let p = self.p;
        for h in &p.header {
            let _ = writeln!(self.out, "// {h}");
        }
        let _ = writeln!(
            self.out,
            "\n.version {}.{}\n.target {}\n.address_size 64\n",
            p.ptx_version.0, p.ptx_version.1, p.target
        );
        self.strings = syscall::strings(p);
        self.syscall_declarations();
        if super::dynamic_shared_bytes(p.shared_bytes) > 0 {
            // Past 48 KiB only dynamic shared memory is allowed, declared at module scope;
            // the launch passes its size.
            let _ = writeln!(self.out, "// {} bytes of dynamic shared memory", p.shared_bytes);
            let _ = writeln!(self.out, ".extern .shared .align {} .b8 smem[];\n", p.shared_align);
        }
        let _ = writeln!(self.out, ".visible .entry {}(", p.entry);
        let n = p.params.len() + p.tensor_maps.len();
        for (i, prm) in p.params.iter().enumerate() {
            let sep = if i + 1 < n { "," } else { "" };
            let _ = writeln!(self.out, "\t.param .{} {}{sep}", param_ty(prm.kind), prm.name);
        }
        // The tensor maps, after every parameter of the kernel: 128 bytes each, 64-aligned,
        // encoded by the host (`tensor_map.rs`).
        for i in 0..p.tensor_maps.len() {
            let sep = if p.params.len() + i + 1 < n { "," } else { "" };
            let _ = writeln!(self.out, "\t.param .align 64 .b8 {}[128]{sep}", TensorMap::param_name(&p.entry, i));
        }
        let _ = writeln!(self.out, ")\n.maxntid {}, 1, 1", p.threads_per_cta);
        if p.min_ctas_per_sm > 0 {
            let _ = writeln!(self.out, ".minnctapersm {}", p.min_ctas_per_sm);
        }
        let _ = writeln!(self.out, "{{");
        for ty in REG_CLASSES {
            let class = prefix(ty);
            let max = p.regs.iter().enumerate().filter(|(_, t)| prefix(**t) == class).map(|(i, _)| i + 1).max();
            if let Some(n) = max {
                let _ = writeln!(self.out, "\t.reg {} {}<{n}>;", reg_decl(ty), prefix(ty));
            }
        }
        let loops = count_loops(&p.body);
        if loops > 0 {
            let _ = writeln!(self.out, "\t.reg .pred %lp<{loops}>;");
            // Each loop's distance to its bound, in its width (`lp`).
            let _ = writeln!(self.out, "\t.reg .b64 %ldw<{loops}>;");
            let _ = writeln!(self.out, "\t.reg .b32 %ldn<{loops}>;");
        }
        if p.shared_bytes > 0 && super::dynamic_shared_bytes(p.shared_bytes) == 0 {
            let _ = writeln!(self.out, "\t.shared .align {} .b8 smem[{}];", p.shared_align, p.shared_bytes);
        }
        self.syscall_registers();
        self.out.push('\n');
        self.insts(&p.body, 1);
        self.line(1, "ret;");
        self.out.push_str("}\n");
    }

    fn insts(&mut self, insts: &[Inst], depth: usize) {
        for i in insts {
            self.inst(i, depth);
        }
    }

    fn inst(&mut self, i: &Inst, d: usize) {
        if let Inst::Loop { .. } = i {
            self.lp(i, d);
        } else if let Inst::If { cond, then_body, else_body } = i {
            self.if_uni(*cond, then_body, else_body, d);
        } else if let Inst::While { before, cond, after } = i {
            self.while_uni(before, *cond, after, d);
        } else if let Inst::Tma { guard, op: op @ TmaOp::Wait { .. } } = i {
            self.tma_wait(*guard, op, d);
        } else if let Inst::Printf { guard, format, args } = i {
            self.printf(*guard, format, args, d);
        } else if let Inst::AssertFail { guard, message, file, line, function } = i {
            self.assertfail(*guard, [message, file, function], *line, d);
        } else if let Inst::InlineAsm { asm, outputs, inputs, .. } = i {
            // In a scope of its own (the asm may declare registers), one line of the asm a
            // line, so a `//` comment in it ends with its line.
            self.line(d, "{");
            for l in self.asm_text(asm, outputs, inputs).lines().map(str::trim).filter(|l| !l.is_empty()) {
                self.line(d + 1, l);
            }
            self.line(d, "}");
        } else {
            let s = self.single(i);
            self.line(d, &s);
        }
    }

    /// The one line of an instruction other than a loop.
    fn single(&self, i: &Inst) -> String {
        match i {
            Inst::Group(g) => format!("// {g}"),
            Inst::LdParam { dst, param } => {
                let prm = &self.p.params[*param];
                format!("ld.param.{} {}, [{}];", param_ty(prm.kind), self.reg(*dst), prm.name)
            }
            Inst::CvtaGlobal { dst, src } => format!("cvta.to.global.u64 {}, {};", self.reg(*dst), self.reg(*src)),
            Inst::ReadSpecial { dst, sreg } => format!("mov.u32 {}, {};", self.reg(*dst), special(*sreg)),
            Inst::Mov { ty, dst, src } => format!("mov.{} {}, {};", bty(*ty), self.reg(*dst), self.opnd(*src, *ty)),
            Inst::Bin { op, ty, dst, a, b } => {
                let free = |o| rounding::is_free(o, &self.contraction_free);
                let name = if matches!(op, BinOp::Add | BinOp::Sub) && *ty == Ty::F32 && free(*a) && free(*b) {
                    // no multiply to fuse with: the same rounding, and ptxas may use the
                    // result's range (`writer/rounding.rs`)
                    format!("{}.f32", if *op == BinOp::Add { "add" } else { "sub" })
                } else {
                    bin_name(*op, *ty)
                };
                let bt = if op.is_shift() { Ty::I32 } else { *ty };
                format!("{name} {}, {}, {};", self.reg(*dst), self.opnd(*a, *ty), self.opnd(*b, bt))
            }
            // Float `-x` and `abs(x)` only flip or clear the sign bit (docs/semantics.md):
            // the H200's `neg.f32` returns the canonical NaN for a NaN with a payload
            // (the H200 record of 2026-12-03 at `e02f4e1`), so they are bit operations here, one
            // instruction as `neg`/`abs` are.
            Inst::Unary { op: op @ (UnaryOp::Neg | UnaryOp::Abs), ty: ty @ (Ty::F32 | Ty::F64), dst, src } => {
                let (bits, sign) = if *ty == Ty::F32 { (32, 0x8000_0000u64) } else { (64, 0x8000_0000_0000_0000) };
                let (name, mask) = if *op == UnaryOp::Neg { ("xor", sign) } else { ("and", sign - 1) };
                format!("{name}.b{bits} {}, {}, 0x{mask:X};", self.reg(*dst), self.reg(*src))
            }
            Inst::Unary { op, ty, dst, src } => {
                // PTX has no `neg.u32`: two's-complement negation is the same bits signed.
                let suffix = match (op, ty) {
                    (UnaryOp::Neg, Ty::U32) => "s32",
                    (UnaryOp::Neg, Ty::U64) => "s64",
                    _ => sty(*ty),
                };
                format!("{}.{suffix} {}, {};", unary_name(*op), self.reg(*dst), self.reg(*src))
            }
            Inst::Fma { ty, dst, a, b, c } => format!(
                "fma.rn.{} {}, {}, {}, {};",
                sty(*ty),
                self.reg(*dst),
                self.opnd(*a, *ty),
                self.opnd(*b, *ty),
                self.opnd(*c, *ty)
            ),
            Inst::Not { dst, src } => format!("not.pred {}, {};", self.reg(*dst), self.reg(*src)),
            Inst::MulWide { dst, a, b } => {
                format!("mul.wide.s32 {}, {}, {};", self.reg(*dst), self.opnd(*a, Ty::I32), self.opnd(*b, Ty::I32))
            }
            Inst::Cvt { dst, to, src, from } => {
                let (f, t) = (from.scalar(), to.scalar());
                let mode = if f.is_int() && t.is_float() || f == ScalarType::F64 && t == ScalarType::F32 {
                    ".rn"
                } else if f.is_float() && t.is_int() {
                    ".rzi"
                } else if t == ScalarType::F16 || t == ScalarType::BF16 {
                    // f32 to a 16-bit float rounds (the only source the lowering converts)
                    ".rn"
                } else {
                    ""
                };
                let (t, f) = match (from, to) {
                    (Ty::I64 | Ty::U64, Ty::I32 | Ty::U32) => ("u32", "u64"),
                    // a narrow int target: cut the 32-bit source to the width, extend it back
                    (_, Ty::S8 | Ty::U8 | Ty::S16) if f.is_int() => narrow_int_cvt(*to),
                    // the other conversions name both types (register types, not an op kind)
                    _ => (cvt_ty(*to), cvt_src_ty(*from, *to)),
                };
                format!("cvt{mode}.{t}.{f} {}, {};", self.reg(*dst), self.reg(*src))
            }
            Inst::Pack { dst, lo, hi } => {
                format!("mov.b32 {}, {{{}, {}}};", self.reg(*dst), self.reg(*lo), self.reg(*hi))
            }
            Inst::CvtF32x2ToFp8x2 { format, dst, hi, lo } => format!(
                "cvt.rn.satfinite.{}.f32 {}, {}, {};",
                fp8x2(*format),
                self.reg(*dst),
                self.reg(*hi),
                self.reg(*lo)
            ),
            Inst::CvtFp8x2ToF16x2 { format, dst, src } => {
                format!("cvt.rn.f16x2.{} {}, {};", fp8x2(*format), self.reg(*dst), self.reg(*src))
            }
            Inst::Setp { cmp, ty, dst, a, b } => format!(
                "setp.{}.{} {}, {}, {};",
                cmp_name(*cmp, *ty),
                sty(*ty),
                self.reg(*dst),
                self.opnd(*a, *ty),
                self.opnd(*b, *ty)
            ),
            Inst::Selp { ty, dst, a, b, cond } => format!(
                "selp.{} {}, {}, {}, {};",
                bty(*ty),
                self.reg(*dst),
                self.opnd(*a, *ty),
                self.opnd(*b, *ty),
                self.reg(*cond)
            ),
            Inst::LdGlobal { guard, ty, dsts, addr, offset, non_coherent } => {
                let nc = if *non_coherent { ".nc" } else { "" };
                format!(
                    "{}ld.global{nc}{}.{} {}, {};",
                    self.guard(*guard),
                    vec_suffix(dsts.len()),
                    mem_ty(*ty),
                    self.reg_list(dsts),
                    self.addr(*addr, *offset)
                )
            }
            Inst::StGlobal { guard, ty, srcs, addr, offset } => format!(
                "{}st.global{}.{} {}, {};",
                self.guard(*guard),
                vec_suffix(srcs.len()),
                mem_ty(*ty),
                self.addr(*addr, *offset),
                self.reg_list(srcs)
            ),
            Inst::Atom { guard, op, ty, sem, scope, dst, addr, src } => {
                let cmp = match op {
                    AtomOp::Rmw(_) => String::new(),
                    AtomOp::Cas { cmp } => format!("{}, ", self.reg(*cmp)),
                };
                format!(
                    "{}atom.{sem}.{scope}.global.{} {}, {}, {cmp}{};",
                    self.guard(*guard),
                    atom_name(*op, *ty),
                    self.reg(*dst),
                    self.addr(*addr, 0),
                    self.reg(*src)
                )
            }
            Inst::SharedBase { dst } => format!("mov.u32 {}, smem;", self.reg(*dst)),
            Inst::LdShared { ty, dst, addr, offset } => {
                format!("ld.shared.{} {}, {};", mem_ty(*ty), self.reg(*dst), self.addr(*addr, i64::from(*offset)))
            }
            Inst::StShared { guard, ty, src, addr, offset } => format!(
                "{}st.shared.{} {}, {};",
                self.guard(*guard),
                mem_ty(*ty),
                self.addr(*addr, i64::from(*offset)),
                self.reg(*src)
            ),
            Inst::StSharedVec { guard, ty, srcs, addr, offset } => format!(
                "{}st.shared{}.{} {}, {};",
                self.guard(*guard),
                vec_suffix(srcs.len()),
                mem_ty(*ty),
                self.addr(*addr, i64::from(*offset)),
                self.reg_list(srcs)
            ),
            Inst::LdSharedVec { ty, dsts, addr, offset } => format!(
                "ld.shared{}.{} {}, {};",
                vec_suffix(dsts.len()),
                mem_ty(*ty),
                self.reg_list(dsts),
                self.addr(*addr, i64::from(*offset))
            ),
            Inst::Ldmatrix { trans, dsts, addr, offset } => {
                // braces even around one register: the operand is a vector
                let regs = dsts.iter().map(|r| self.reg(*r)).collect::<Vec<_>>().join(", ");
                format!(
                    "ldmatrix.sync.aligned.m8n8.x{}{}.shared.b16 {{{regs}}}, {};",
                    dsts.len(),
                    if *trans { ".trans" } else { "" },
                    self.addr(*addr, i64::from(*offset))
                )
            }
            Inst::Mma { input, d, a, b, c } => {
                let (shape, acc) = match input {
                    MmaInput::F16 | MmaInput::BF16 => ("m16n8k16", "f32"),
                    MmaInput::Tf32 => ("m16n8k8", "f32"),
                    MmaInput::S8 => ("m16n8k32", "s32"),
                };
                let x = input.ptx();
                format!(
                    "mma.sync.aligned.{shape}.row.col.{acc}.{x}.{x}.{acc} {}, {}, {}, {};",
                    self.reg_list(d),
                    self.reg_list(a),
                    self.reg_list(b),
                    self.reg_list(c)
                )
            }
            Inst::WgmmaFence => "wgmma.fence.sync.aligned;".to_string(),
            Inst::Wgmma { input, n, d, a, b_desc, trans_b } => {
                let x = input.ptx();
                format!(
                    "wgmma.mma_async.sync.aligned.m64n{n}k16.f32.{x}.{x} {}, {}, {}, 1, 1, 1, {};",
                    self.reg_list(d),
                    match a {
                        WgmmaA::Regs(a) => self.reg_list(a),
                        WgmmaA::Desc(a) => self.reg(*a),
                    },
                    self.reg(*b_desc),
                    // With `A` in shared memory, `imm-trans-a` comes first: 0, `K`-major.
                    match a {
                        WgmmaA::Regs(_) => u8::from(*trans_b).to_string(),
                        WgmmaA::Desc(_) => format!("0, {}", u8::from(*trans_b)),
                    }
                )
            }
            Inst::WgmmaCommit => "wgmma.commit_group.sync.aligned;".to_string(),
            Inst::WgmmaWait { pending } => format!("wgmma.wait_group.sync.aligned {pending};"),
            Inst::FenceProxyAsync => "fence.proxy.async.shared::cta;".to_string(),
            Inst::CvtTf32 { dst, src } => format!("cvt.rna.tf32.f32 {}, {};", self.reg(*dst), self.reg(*src)),
            // On one line (for messages; `inst` prints the asm a line a line).
            Inst::InlineAsm { asm, outputs, inputs, .. } => {
                let text = self.asm_text(asm, outputs, inputs);
                format!("{{ {} }}", text.lines().map(str::trim).filter(|l| !l.is_empty()).collect::<Vec<_>>().join(" "))
            }
            // `.cg` caches in L2 only (the data goes to shared memory, not L1); it is the
            // only cache mode of a 16-byte copy besides `.ca`, which Triton uses for
            // smaller ones.
            Inst::CpAsync { guard, dst, offset, src, src_size } => format!(
                "{}cp.async.cg.shared.global {}, {}, 16, {};",
                self.guard(*guard),
                self.addr(*dst, i64::from(*offset)),
                self.addr(*src, 0),
                self.opnd(*src_size, Ty::I32)
            ),
            Inst::CpAsyncCommit => "cp.async.commit_group;".to_string(),
            Inst::Tma { guard, op } => self.tma_line(*guard, op),
            Inst::AssertFail { .. } | Inst::Printf { .. } => syscall::call_line(i),
            Inst::CpAsyncWait { pending } => format!("cp.async.wait_group {pending};"),
            Inst::Shfl { dst, src, lane_mask, clamp, member_mask, .. } => format!(
                "shfl.sync.bfly.b32 {}, {}, {lane_mask}, {clamp}, 0x{member_mask:08x};",
                self.reg(*dst),
                self.reg(*src)
            ),
            Inst::Unpack64 { lo, hi, src, .. } => {
                format!("mov.b64 {{{}, {}}}, {};", self.reg(*lo), self.reg(*hi), self.reg(*src))
            }
            Inst::Unpack { lo, hi, src } => {
                format!("mov.b32 {{{}, {}}}, {};", self.reg(*lo), self.reg(*hi), self.reg(*src))
            }
            Inst::Pack64 { dst, lo, hi, .. } => {
                format!("mov.b64 {}, {{{}, {}}};", self.reg(*dst), self.reg(*lo), self.reg(*hi))
            }
            Inst::BarSync { id } => format!("bar.sync {id};"),
            Inst::Loop { .. } | Inst::If { .. } | Inst::While { .. } => {
                unreachable!("loops and branches are written by `inst`")
            }
        }
    }

    /// A loop: labels and branches around the body, tested on the distance left to the
    /// upper bound.
    ///
    /// After each trip, another starts iff `iv + step < upper`, tested as `step < upper -
    /// iv` with the difference taken unsigned in the loop's width: exact, since `iv <
    /// upper` holds inside the body (the difference lies in `[1, 2^w - 1]`), so no bound,
    /// sum or count can overflow, and nothing but `iv` is carried across the body. Only the
    /// `iv` after the last trip may wrap, and nothing reads it. A non-positive runtime step
    /// aborts the launch (`trap`).
    ///
    /// Until 2026-12-06 the writer computed the trip count `(upper - lower - 1) / step + 1`
    /// in 64 bits and counted it down: with a runtime step that is a `div.u64`, a
    /// subroutine of some 70 SASS instructions that every program ran before its first
    /// load, as in the tutorials' `for row in range(pid, n_rows, num_programs)` launched
    /// with a program per row, where Triton's loop (`iv < upper`) divides nothing.
    fn lp(&mut self, i: &Inst, d: usize) {
        let Inst::Loop { ty, iv, lower, upper, step, body } = i else { unreachable!("`inst` passes loops only") };
        let n = self.loops;
        self.loops += 1;
        let ivn = self.reg(*iv);
        let (st, hi, signed) = (self.opnd(*step, *ty), self.opnd(*upper, *ty), sty(*ty));
        let (dist, unsigned) =
            if matches!(ty, Ty::I64 | Ty::U64) { (format!("%ldw{n}"), "u64") } else { (format!("%ldn{n}"), "u32") };
        self.line(d, &format!("mov.{} {ivn}, {};", bty(*ty), self.opnd(*lower, *ty)));
        if !matches!(step, Operand::Int(c) if *c > 0) {
            self.line(d, &format!("setp.le.{signed} %lp{n}, {st}, 0;"));
            self.line(d, &format!("@%lp{n} trap;"));
        }
        self.line(d, &format!("setp.ge.{signed} %lp{n}, {ivn}, {hi};"));
        self.line(d, &format!("@%lp{n} bra.uni LOOP{n}_END;"));
        let _ = writeln!(self.out, "LOOP{n}_HEAD:");
        self.insts(body, d + 1);
        self.line(d, &format!("mov.{} {dist}, {hi};", bty(*ty)));
        self.line(d, &format!("sub.{unsigned} {dist}, {dist}, {ivn};"));
        self.line(d, &format!("setp.gt.{unsigned} %lp{n}, {dist}, {st};"));
        self.line(d, &format!("add.{signed} {ivn}, {ivn}, {st};"));
        self.line(d, &format!("@%lp{n} bra.uni LOOP{n}_HEAD;"));
        let _ = writeln!(self.out, "LOOP{n}_END:");
    }

    /// The asm with every `$k` replaced by its register's name.
    fn asm_text(&self, asm: &str, outputs: &[AsmOperand], inputs: &[AsmOperand]) -> String {
        let names: Vec<String> = outputs.iter().chain(inputs).map(|o| self.reg(o.reg)).collect();
        crate::ir::inline_asm::substitute(asm, &names)
    }

    fn reg_list(&self, rs: &[Reg]) -> String {
        if rs.len() == 1 {
            self.reg(rs[0])
        } else {
            format!("{{{}}}", rs.iter().map(|r| self.reg(*r)).collect::<Vec<_>>().join(", "))
        }
    }

    fn addr(&self, r: Reg, offset: i64) -> String {
        if offset == 0 { format!("[{}]", self.reg(r)) } else { format!("[{}+{offset}]", self.reg(r)) }
    }
}

fn count_loops(insts: &[Inst]) -> usize {
    insts
        .iter()
        .map(|i| match i {
            Inst::Loop { body, .. } => 1 + count_loops(body),
            Inst::If { .. } | Inst::While { .. } => i.bodies().into_iter().map(|b| count_loops(b)).sum(),
            // Only loops and branches nest.
            Inst::Group(_)
            | Inst::LdParam { .. }
            | Inst::CvtaGlobal { .. }
            | Inst::ReadSpecial { .. }
            | Inst::Mov { .. }
            | Inst::Bin { .. }
            | Inst::Unary { .. }
            | Inst::Fma { .. }
            | Inst::Not { .. }
            | Inst::MulWide { .. }
            | Inst::Cvt { .. }
            | Inst::Pack { .. }
            | Inst::Setp { .. }
            | Inst::Selp { .. }
            | Inst::LdGlobal { .. }
            | Inst::StGlobal { .. }
            | Inst::Atom { .. }
            | Inst::SharedBase { .. }
            | Inst::LdShared { .. }
            | Inst::StShared { .. }
            | Inst::LdSharedVec { .. }
            | Inst::StSharedVec { .. }
            | Inst::CpAsync { .. }
            | Inst::CpAsyncCommit
            | Inst::AssertFail { .. }
            | Inst::Printf { .. }
            | Inst::CpAsyncWait { .. }
            | Inst::Shfl { .. }
            | Inst::Unpack64 { .. }
            | Inst::Unpack { .. }
            | Inst::Pack64 { .. }
            | Inst::Ldmatrix { .. }
            | Inst::Mma { .. }
            | Inst::WgmmaFence
            | Inst::Wgmma { .. }
            | Inst::WgmmaCommit
            | Inst::WgmmaWait { .. }
            | Inst::FenceProxyAsync
            | Inst::CvtTf32 { .. }
            | Inst::InlineAsm { .. }
            | Inst::CvtF32x2ToFp8x2 { .. }
            | Inst::CvtFp8x2ToF16x2 { .. }
            | Inst::Tma { .. }
            | Inst::BarSync { .. } => 0,
        })
        .sum()
}

/// The source type a `cvt` names: a narrow int register holds its value extended to 32
/// bits, so an int or float target reads it as `s32`/`u32`.
fn cvt_src_ty(from: Ty, to: Ty) -> &'static str {
    match from {
        Ty::S8 | Ty::S16 => "s32",
        Ty::U8 => "u32",
        Ty::U32 if matches!(to, Ty::I64 | Ty::U64) => "u32",
        Ty::I32 if matches!(to, Ty::U64) => "s32",
        // every other source names its own type (a register type, not an op kind)
        f => cvt_ty(f),
    }
}

/// `cvt.s32.s8 d, a`: `a` cut to the narrow width, then extended back to 32 bits by the
/// target's signedness (the wrap of an int to `i8`/`u8`/`i16`).
fn narrow_int_cvt(to: Ty) -> (&'static str, &'static str) {
    match to {
        Ty::S8 => ("s32", "s8"),
        Ty::U8 => ("u32", "u8"),
        // i16, the remaining narrow type (a register type, not an op kind)
        _ => ("s32", "s16"),
    }
}

fn vec_suffix(n: usize) -> &'static str {
    match n {
        1 => "",
        2 => ".v2",
        // 4 is the widest access the vectorizer emits (a width, not an op kind)
        _ => ".v4",
    }
}

fn mem_ty(ty: Ty) -> &'static str {
    match ty {
        Ty::F32 => "f32",
        Ty::I32 | Ty::U32 => "b32",
        Ty::I64 | Ty::U64 => "b64",
        Ty::Pred => "b8",
        Ty::F64 => "f64",
        Ty::F16 | Ty::BF16 => "b16",
        // the narrow ints load sign- or zero-extended into their 32-bit register
        Ty::S8 => "s8",
        Ty::U8 => "u8",
        Ty::S16 => "s16",
    }
}

fn bin_name(op: BinOp, ty: Ty) -> String {
    let (s, b) = (sty(ty), bty(ty));
    match op {
        // `.rn` keeps ptxas from contracting a mul and an add into an fma (`single` prints
        // an f32 add without it where no operand can be a product).
        BinOp::Add if ty == Ty::F32 => "add.rn.f32".into(),
        BinOp::Sub if ty == Ty::F32 => "sub.rn.f32".into(),
        BinOp::Add if ty == Ty::F64 => "add.rn.f64".into(),
        BinOp::Sub if ty == Ty::F64 => "sub.rn.f64".into(),
        BinOp::Mul if ty == Ty::F64 => "mul.rn.f64".into(),
        BinOp::Div if ty == Ty::F64 => "div.rn.f64".into(),
        BinOp::Add => format!("add.{s}"),
        BinOp::Sub => format!("sub.{s}"),
        BinOp::Mul if ty == Ty::F32 => "mul.rn.f32".into(),
        BinOp::Mul => format!("mul.lo.{s}"),
        BinOp::Div if ty == Ty::F32 => "div.rn.f32".into(),
        BinOp::Div => format!("div.{s}"),
        BinOp::Rem => format!("rem.{s}"),
        BinOp::Max(PropagateNan::All) if ty == Ty::F32 => "max.NaN.f32".into(),
        BinOp::Min(PropagateNan::All) if ty == Ty::F32 => "min.NaN.f32".into(),
        BinOp::Max(_) => format!("max.{s}"),
        BinOp::Min(_) => format!("min.{s}"),
        BinOp::And => format!("and.{b}"),
        BinOp::Or => format!("or.{b}"),
        BinOp::Xor => format!("xor.{b}"),
        BinOp::Shl => format!("shl.{b}"),
        BinOp::ShrU if matches!(ty, Ty::I64 | Ty::U64) => "shr.u64".into(),
        BinOp::ShrU => "shr.u32".into(),
        BinOp::DivFull => format!("div.full.{s}"),
        BinOp::ShrS => format!("shr.{s}"),
        // Unsigned whatever the register's signedness: `umulhi` reads the bits as unsigned.
        BinOp::MulHiU if matches!(ty, Ty::I64 | Ty::U64) => "mul.hi.u64".into(),
        BinOp::MulHiU => "mul.hi.u32".into(),
    }
}

/// `op.type` of an `atom` on elements held in registers of class `ty` (32 bits for `I32`
/// and `F32`, 64 for `I64`).
fn atom_name(op: AtomOp, ty: Ty) -> String {
    let bits = if ty == Ty::I64 { 64 } else { 32 };
    let (name, class) = match op {
        AtomOp::Rmw(AtomKind::Add) => ("add", "u"),
        AtomOp::Rmw(AtomKind::AddF32) => ("add", "f"),
        AtomOp::Rmw(AtomKind::MaxS) => ("max", "s"),
        AtomOp::Rmw(AtomKind::MaxU) => ("max", "u"),
        AtomOp::Rmw(AtomKind::MinS) => ("min", "s"),
        AtomOp::Rmw(AtomKind::MinU) => ("min", "u"),
        AtomOp::Rmw(AtomKind::And) => ("and", "b"),
        AtomOp::Rmw(AtomKind::Or) => ("or", "b"),
        AtomOp::Rmw(AtomKind::Xor) => ("xor", "b"),
        AtomOp::Rmw(AtomKind::Exch) => ("exch", "b"),
        AtomOp::Cas { .. } => ("cas", "b"),
    };
    format!("{name}.{class}{bits}")
}
