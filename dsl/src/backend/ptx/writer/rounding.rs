//! Which `f32` adds and subtractions print without `.rn`.
//!
//! rtriton's float `+`, `-`, `*` round once each, so the writer prints `add.rn.f32`,
//! `sub.rn.f32` and `mul.rn.f32`: an instruction with an explicit rounding mode is never
//! contracted. But ptxas also treats it as opaque in its value-range reasoning: for
//! `fdiv(v, 2^x + 1)`, the plain `add.f32` tells it the divisor is at least 1, and
//! `div.full.f32` drops the range check of a tiny divisor (a compare and two scalings, 3
//! of SiLU's 22 SASS instructions an element in f16: measured with ptxas 12.9 for sm_90).
//!
//! A plain `add.f32` rounds to nearest even like `add.rn.f32`: the only liberty PTX gives
//! ptxas is to fuse it with a multiply that produces an operand ("mul/add sequences with
//! no rounding modifiers may be optimized to use fused-multiply-add instructions"). So an
//! add prints plain only when neither operand can be such a product, by how its register
//! was defined ([`contraction_free`]): ptxas 12.9 fuses a plain add with a plain `mul.f32`
//! and with the last multiply of `div.full.f32`'s expansion, not with `mul.rn.f32` (every
//! rtriton multiply), `ex2.approx.f32` (with `.ftz` too) or `fma.rn.f32` (`tests/tests/ptxas.rs` keeps the
//! claims measured). Everything not listed below counts as a possible product.

use std::collections::{HashMap, HashSet};

use crate::backend::ptx::lir::{BinOp, Inst, Operand, Program, Reg, TmaOp, Ty};
use crate::ir::{MathFn, UnaryOp};

/// How one instruction defines a register, for [`contraction_free`].
#[derive(Clone, Copy)]
enum Def {
    /// Not the result of a multiply ptxas could fuse with a following add.
    NoProduct,
    /// Possibly such a product (or not known not to be).
    MaybeProduct,
    /// A copy of another register (a `mov`, a sign-bit operation, a `selp` arm).
    CopyOf(Reg),
}

/// The registers no add can be fused with: each instruction that writes one is not a
/// multiply, nor an expansion that may end in one, nor a copy of such a register.
pub(super) fn contraction_free(p: &Program) -> HashSet<Reg> {
    let mut defs: HashMap<Reg, Vec<Def>> = HashMap::new();
    for i in p.walk() {
        definitions(i, &mut |r, d| defs.entry(r).or_default().push(d));
    }
    // The largest set closed under copies: loop-carried values are copies of adds that
    // read them (`acc = mov next; next = add acc, e`), a cycle that holds no product.
    let mut free: HashSet<Reg> = defs.keys().copied().collect();
    loop {
        let before = free.len();
        let keep: Vec<Reg> = free
            .iter()
            .copied()
            .filter(|r| {
                defs[r].iter().all(|d| match d {
                    Def::NoProduct => true,
                    Def::MaybeProduct => false,
                    Def::CopyOf(s) => free.contains(s),
                })
            })
            .collect();
        free = keep.into_iter().collect();
        if free.len() == before {
            return free;
        }
    }
}

/// Whether an operand of an add can be fused into it: an immediate cannot.
pub(super) fn is_free(o: Operand, free: &HashSet<Reg>) -> bool {
    match o {
        Operand::Reg(r) => free.contains(&r),
        Operand::Int(_) | Operand::F32(_) | Operand::F64(_) => true,
    }
}

/// Calls `def` for each register `i` writes (not for those of nested bodies).
fn definitions(i: &Inst, def: &mut impl FnMut(Reg, Def)) {
    let copy = |o: &Operand| match o {
        Operand::Reg(r) => Def::CopyOf(*r),
        Operand::Int(_) | Operand::F32(_) | Operand::F64(_) => Def::NoProduct,
    };
    match i {
        Inst::Bin { op, ty, dst, .. } => {
            let product =
                matches!(op, BinOp::Mul | BinOp::Div | BinOp::DivFull | BinOp::Rem) && matches!(ty, Ty::F32 | Ty::F64);
            def(*dst, if product { Def::MaybeProduct } else { Def::NoProduct });
        }
        Inst::Unary { op, dst, src, .. } => match op {
            // `xor`/`and` of the sign bit (the writer's float `-x`, `abs`): the value of
            // `src` as far as fusing goes.
            UnaryOp::Neg | UnaryOp::Abs => def(*dst, Def::CopyOf(*src)),
            UnaryOp::Math(MathFn::Exp2 | MathFn::Exp2Ftz) => def(*dst, Def::NoProduct),
            // not measured (their expansions may end in a multiply): kept apart
            UnaryOp::Math(
                MathFn::Log2
                | MathFn::Sqrt
                | MathFn::Rsqrt
                | MathFn::Floor
                | MathFn::Ceil
                | MathFn::Trunc
                | MathFn::Rint
                | MathFn::Sin
                | MathFn::Cos
                | MathFn::Tanh,
            ) => def(*dst, Def::MaybeProduct),
        },
        Inst::Mov { dst, src, .. } => def(*dst, copy(src)),
        Inst::Selp { dst, a, b, .. } => {
            def(*dst, copy(a));
            def(*dst, copy(b));
        }
        Inst::Fma { dst, .. }
        | Inst::LdParam { dst, .. }
        | Inst::CvtaGlobal { dst, .. }
        | Inst::ReadSpecial { dst, .. }
        | Inst::Not { dst, .. }
        | Inst::MulWide { dst, .. }
        | Inst::Cvt { dst, .. }
        | Inst::Pack { dst, .. }
        | Inst::CvtF32x2ToFp8x2 { dst, .. }
        | Inst::CvtFp8x2ToF16x2 { dst, .. }
        | Inst::Setp { dst, .. }
        | Inst::Atom { dst, .. }
        | Inst::SharedBase { dst }
        | Inst::LdShared { dst, .. }
        | Inst::Shfl { dst, .. }
        | Inst::Pack64 { dst, .. } => def(*dst, Def::NoProduct),
        Inst::LdGlobal { dsts, .. } | Inst::LdSharedVec { dsts, .. } | Inst::Ldmatrix { dsts, .. } => {
            dsts.iter().for_each(|d| def(*d, Def::NoProduct));
        }
        // what an asm computes is unknown: it may end in a `mul.f32`
        Inst::InlineAsm { outputs, .. } => outputs.iter().for_each(|o| def(o.reg, Def::MaybeProduct)),
        // a tensor-core result is no `mul.f32` that an `add` could fuse with
        Inst::Mma { d, .. } | Inst::Wgmma { d, .. } => d.iter().for_each(|r| def(*r, Def::NoProduct)),
        Inst::CvtTf32 { dst, .. } => def(*dst, Def::NoProduct),
        Inst::Unpack { lo, hi, .. } | Inst::Unpack64 { lo, hi, .. } => {
            def(*lo, Def::NoProduct);
            def(*hi, Def::NoProduct);
        }
        Inst::Loop { iv, .. } => def(*iv, Def::NoProduct),
        Inst::Group(_)
        | Inst::StGlobal { .. }
        | Inst::StShared { .. }
        | Inst::StSharedVec { .. }
        | Inst::CpAsync { .. }
        | Inst::CpAsyncCommit
        | Inst::AssertFail { .. }
        | Inst::Printf { .. }
        | Inst::CpAsyncWait { .. }
        | Inst::WgmmaFence
        | Inst::WgmmaCommit
        | Inst::WgmmaWait { .. }
        | Inst::FenceProxyAsync
        | Inst::BarSync { .. }
        | Inst::If { .. }
        | Inst::While { .. } => {}
        Inst::Tma { op, .. } => {
            if let TmaOp::MapAddr { dst, .. } = op {
                def(*dst, Def::NoProduct);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::backend::ptx::lir::Program;

    fn program(regs: Vec<Ty>, body: Vec<Inst>) -> Program {
        Program {
            entry: "k".into(),
            params: Vec::new(),
            target: "sm_86".into(),
            ptx_version: (7, 8),
            threads_per_cta: 32,
            min_ctas_per_sm: 0,
            shared_bytes: 0,
            shared_align: 16,
            shared_site: None,
            regs,
            body,
            layouts: Vec::new(),
            header: Vec::new(),
            decisions: Default::default(),
            tensor_maps: Vec::new(),
        }
    }

    #[test]
    fn products_and_their_copies_are_not_free_and_a_loop_of_adds_is() {
        let r = |i| Reg(i);
        let f = Ty::F32;
        let bin = |op, dst, a, b| Inst::Bin { op, ty: f, dst: r(dst), a: Operand::Reg(r(a)), b };
        let body = vec![
            Inst::LdParam { dst: r(0), param: 0 },
            Inst::Unary { op: UnaryOp::Math(MathFn::Exp2), ty: f, dst: r(1), src: r(0) },
            bin(BinOp::Mul, 2, 0, Operand::F32(2.0)),
            Inst::Unary { op: UnaryOp::Neg, ty: f, dst: r(3), src: r(2) },
            bin(BinOp::DivFull, 4, 0, Operand::Reg(r(1))),
            Inst::Mov { ty: f, dst: r(5), src: Operand::F32(0.0) },
            Inst::Loop {
                ty: Ty::I32,
                iv: r(6),
                lower: Operand::Int(0),
                upper: Operand::Int(4),
                step: Operand::Int(1),
                body: vec![
                    bin(BinOp::Add, 7, 5, Operand::Reg(r(1))),
                    Inst::Mov { ty: f, dst: r(5), src: Operand::Reg(r(7)) },
                ],
            },
            Inst::Unary { op: UnaryOp::Math(MathFn::Sqrt), ty: f, dst: r(8), src: r(0) },
            Inst::Selp { ty: f, dst: r(9), a: Operand::Reg(r(1)), b: Operand::Reg(r(2)), cond: r(10) },
        ];
        let p = program(vec![f, f, f, f, f, f, Ty::I32, f, f, f, Ty::Pred], body);
        let free = contraction_free(&p);
        // (register, free): a parameter, ex2, the loop's accumulator and its add are free;
        // a product, its negation, a div.full, sqrt and a select of a product are not.
        let table =
            [(0, true), (1, true), (2, false), (3, false), (4, false), (5, true), (7, true), (8, false), (9, false)];
        for (reg, want) in table {
            assert_eq!(free.contains(&r(reg)), want, "v{reg}");
        }
        assert!(is_free(Operand::F32(1.0), &free) && !is_free(Operand::Reg(r(4)), &free));
    }
}
