//! Dead-instruction removal on the lowered form: the lowering computes every element's
//! address, but a vector access reads only its first one; instructions without effects
//! whose destination nothing reads are dropped (to a fixpoint). Memory accesses, shuffles,
//! barriers and the system calls (`vprintf`, `__assertfail`) always stay.

use std::collections::HashSet;

use crate::backend::ptx::lir::{AtomOp, Guard, Inst, Operand, Reg, TmaOp};

/// Removes effect-free instructions whose results are never read.
pub(super) fn eliminate_dead(body: &mut Vec<Inst>) {
    loop {
        let mut used = HashSet::new();
        collect_uses(body, &mut used);
        if !remove(body, &used) {
            break;
        }
    }
}

fn collect_uses(insts: &[Inst], used: &mut HashSet<Reg>) {
    let op = |o: &Operand, used: &mut HashSet<Reg>| {
        if let Operand::Reg(r) = o {
            used.insert(*r);
        }
    };
    let guard = |g: &Option<Guard>, used: &mut HashSet<Reg>| {
        if let Some(g) = g {
            used.insert(g.pred);
        }
    };
    for i in insts {
        match i {
            Inst::Group(_) | Inst::LdParam { .. } | Inst::ReadSpecial { .. } | Inst::SharedBase { .. } => {}
            Inst::BarSync { .. }
            | Inst::CpAsyncCommit
            | Inst::CpAsyncWait { .. }
            | Inst::WgmmaFence
            | Inst::WgmmaCommit
            | Inst::WgmmaWait { .. }
            | Inst::FenceProxyAsync => {}
            Inst::AssertFail { guard: g, .. } => {
                used.insert(g.pred);
            }
            Inst::Tma { guard: g, op } => {
                guard(g, used);
                used.extend(op.uses());
            }
            Inst::Printf { guard: g, args, .. } => {
                guard(g, used);
                used.extend(args.iter().copied());
            }
            Inst::LdSharedVec { addr, .. } | Inst::Ldmatrix { addr, .. } => {
                used.insert(*addr);
            }
            Inst::Mma { a, b, c, .. } => used.extend(a.iter().chain(b).chain(c).copied()),
            // `d` is read as the accumulator
            Inst::Wgmma { d, a, b_desc, .. } => {
                used.extend(d.iter().copied().chain(a.regs()));
                used.insert(*b_desc);
            }
            Inst::CvtTf32 { src, .. } => {
                used.insert(*src);
            }
            Inst::CpAsync { guard: g, dst, src, src_size, .. } => {
                guard(g, used);
                used.insert(*dst);
                used.insert(*src);
                op(src_size, used);
            }
            Inst::CvtaGlobal { src, .. } | Inst::Unary { src, .. } | Inst::Not { src, .. } | Inst::Cvt { src, .. } => {
                used.insert(*src);
            }
            Inst::Mov { src, .. } => op(src, used),
            Inst::Pack { lo, hi, .. } | Inst::CvtF32x2ToFp8x2 { hi, lo, .. } => {
                used.insert(*lo);
                used.insert(*hi);
            }
            Inst::CvtFp8x2ToF16x2 { src, .. } => {
                used.insert(*src);
            }
            Inst::Bin { a, b, .. } | Inst::MulWide { a, b, .. } | Inst::Setp { a, b, .. } => {
                op(a, used);
                op(b, used);
            }
            Inst::Fma { a, b, c, .. } => {
                op(a, used);
                op(b, used);
                op(c, used);
            }
            Inst::Selp { a, b, cond, .. } => {
                op(a, used);
                op(b, used);
                used.insert(*cond);
            }
            Inst::LdGlobal { guard: g, addr, .. } => {
                guard(g, used);
                used.insert(*addr);
            }
            Inst::LdShared { addr, .. } => {
                used.insert(*addr);
            }
            Inst::StGlobal { guard: g, srcs, addr, .. } => {
                guard(g, used);
                used.insert(*addr);
                used.extend(srcs.iter().copied());
            }
            Inst::Atom { guard: g, op, addr, src, .. } => {
                guard(g, used);
                used.insert(*addr);
                used.insert(*src);
                if let AtomOp::Cas { cmp } = op {
                    used.insert(*cmp);
                }
            }
            Inst::StSharedVec { guard: g, srcs, addr, .. } => {
                guard(g, used);
                used.insert(*addr);
                used.extend(srcs.iter().copied());
            }
            Inst::StShared { guard: g, src, addr, .. } => {
                guard(g, used);
                used.insert(*addr);
                used.insert(*src);
            }
            Inst::InlineAsm { inputs, .. } => used.extend(inputs.iter().map(|o| o.reg)),
            Inst::Shfl { src, .. } | Inst::Unpack64 { src, .. } | Inst::Unpack { src, .. } => {
                used.insert(*src);
            }
            Inst::Pack64 { lo, hi, .. } => {
                used.insert(*lo);
                used.insert(*hi);
            }
            Inst::Loop { iv, lower, upper, step, body, .. } => {
                used.insert(*iv);
                op(lower, used);
                op(upper, used);
                op(step, used);
                collect_uses(body, used);
            }
            Inst::If { cond, .. } | Inst::While { cond, .. } => {
                used.insert(*cond);
                for body in i.bodies() {
                    collect_uses(body, used);
                }
            }
        }
    }
}

/// The destination of an effect-free instruction (`None` for effects and collectives).
fn pure_dst(i: &Inst) -> Option<Reg> {
    match i {
        Inst::LdParam { dst, .. }
        | Inst::CvtaGlobal { dst, .. }
        | Inst::ReadSpecial { dst, .. }
        | Inst::Mov { dst, .. }
        | Inst::Bin { dst, .. }
        | Inst::Unary { dst, .. }
        | Inst::Fma { dst, .. }
        | Inst::Not { dst, .. }
        | Inst::MulWide { dst, .. }
        | Inst::Cvt { dst, .. }
        | Inst::Pack { dst, .. }
        | Inst::CvtF32x2ToFp8x2 { dst, .. }
        | Inst::CvtFp8x2ToF16x2 { dst, .. }
        | Inst::Setp { dst, .. }
        | Inst::Selp { dst, .. }
        | Inst::Pack64 { dst, .. }
        | Inst::CvtTf32 { dst, .. }
        | Inst::SharedBase { dst } => Some(*dst),
        Inst::Tma { op: TmaOp::MapAddr { dst, .. }, .. } => Some(*dst),
        Inst::Tma { .. } => None,
        // A pure asm with one output goes when that output is unused.
        Inst::InlineAsm { outputs, pure: true, .. } if outputs.len() == 1 => Some(outputs[0].reg),
        // an impure asm, or one with several outputs: kept
        Inst::InlineAsm { .. } => None,
        Inst::Group(_)
        | Inst::LdGlobal { .. }
        | Inst::StGlobal { .. }
        | Inst::Atom { .. }
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
        // two destinations: kept (the lowering unpacks only what it shuffles)
        | Inst::Unpack64 { .. }
        | Inst::Unpack { .. }
        // warp-collective: every lane takes part, whatever it uses
        | Inst::Ldmatrix { .. }
        | Inst::Mma { .. }
        | Inst::WgmmaFence
        | Inst::Wgmma { .. }
        | Inst::WgmmaCommit
        | Inst::WgmmaWait { .. }
        | Inst::FenceProxyAsync
        | Inst::BarSync { .. }
        | Inst::Loop { .. }
        | Inst::If { .. }
        | Inst::While { .. } => None,
    }
}

fn remove(insts: &mut Vec<Inst>, used: &HashSet<Reg>) -> bool {
    let before = insts.len();
    insts.retain(|i| pure_dst(i).is_none_or(|d| used.contains(&d)));
    let mut changed = insts.len() != before;
    for i in insts.iter_mut() {
        for body in i.bodies_mut() {
            changed |= remove(body, used);
        }
    }
    changed
}
