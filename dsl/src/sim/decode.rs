//! Decoding a [`Program`] once per launch: loops and branches flattened into one
//! instruction array (a loop's body follows it, `end` says where it stops; an if's then
//! and else bodies and a while's condition and body follow it likewise), immediates turned into register
//! bits of the instruction's type, parameters resolved to the launch's argument bits, and
//! every arithmetic instruction bound to the function that computes it. Executing then
//! never matches on types per thread.
//!
//! Register bits: `I32` and `F32` values are held zero-extended in a `u64`, `I64` as is,
//! `Pred` as `0` or `1`.

use super::error::{Check, SimFault};
use crate::backend::ptx::layout::MmaInput;
use crate::backend::ptx::lir::{
    AtomOp, BinOp, Cmp, Group, Guard, Inst, Operand, ParamTy, Program, Special, TmaOp, Ty, WgmmaA,
};
use crate::backend::ptx::tensor_map::{ResolvedMap, TensorMap};
use crate::ir::{PropagateNan, UnaryOp};
use crate::ir::{Scope, Sem};
use crate::semantics::bits::umulhi;
use crate::semantics::convert::{f32_to_bf16, f32_to_f16, f32_to_f64, f32_to_tf32_rna};
use crate::semantics::scalar::{
    f32_to_i32, f32_to_i64, max_f32, max_f64, min_f32, min_f64, unary_f32, unary_f64, unary_int,
};
use crate::spec::ArgValue;

/// An instruction input: a register number or the bits of an immediate.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Src {
    Reg(u32),
    Imm(u64),
}

/// `a op b` on register bits; `None` for an integer division by zero.
pub(crate) type BinFn = fn(u64, u64) -> Option<u64>;
pub(crate) type CmpFn = fn(u64, u64) -> bool;
pub(crate) type CvtFn = fn(u64) -> u64;

/// A `wgmma`'s `A`: each warp's fragment registers, or a descriptor's register.
#[derive(Clone, Copy, Debug)]
pub(crate) enum WgmmaOperand {
    Regs([u32; 4]),
    Desc(u32),
}

/// A tensor copy's map as this launch's arguments resolve it.
#[derive(Clone, Debug)]
pub(crate) struct LaunchMap {
    pub map: TensorMap,
    pub resolved: ResolvedMap,
}

/// A decoded instruction (see [`Inst`] for the semantics of each).
#[derive(Clone, Debug)]
pub(crate) enum MicroOp {
    Nop,
    /// [`TmaOp::Init`], [`TmaOp::ArriveExpectTx`], [`TmaOp::Load`] (the map resolved),
    /// [`TmaOp::Wait`], [`TmaOp::MapAddr`] (a stand-in address: copies name the map).
    MbarrierInit {
        guard: Option<Guard>,
        bar: u32,
        count: u32,
    },
    MbarrierArrive {
        guard: Option<Guard>,
        bar: u32,
        bytes: u32,
    },
    TensorCopy {
        guard: Option<Guard>,
        dst: u32,
        map: std::sync::Arc<LaunchMap>,
        coords: Vec<Src>,
        bar: u32,
    },
    MbarrierWait {
        bar: u32,
        parity: u32,
    },
    /// [`TmaOp::Store`], [`TmaOp::StoreCommit`], [`TmaOp::StoreWaitRead`].
    TensorStore {
        guard: Option<Guard>,
        src: u32,
        map: std::sync::Arc<LaunchMap>,
        coords: Vec<Src>,
    },
    BulkCommit {
        guard: Option<Guard>,
    },
    BulkWaitRead {
        guard: Option<Guard>,
        pending: u32,
    },
    Mov {
        dst: u32,
        src: Src,
    },
    Special {
        dst: u32,
        sreg: Special,
    },
    Bin {
        f: BinFn,
        dst: u32,
        a: Src,
        b: Src,
    },
    /// Runs the interpreter's element function of `op` (shared, so the two agree bit for bit).
    Unary {
        op: UnaryOp,
        ty: Ty,
        dst: u32,
        src: u32,
    },
    /// `fma.rn.f32` with the interpreter's `semantics::math::fma_f32`.
    Fma {
        dst: u32,
        a: Src,
        b: Src,
        c: Src,
    },
    Not {
        dst: u32,
        src: u32,
    },
    Cvt {
        f: CvtFn,
        dst: u32,
        src: u32,
    },
    Setp {
        f: CmpFn,
        dst: u32,
        a: Src,
        b: Src,
    },
    Selp {
        dst: u32,
        a: Src,
        b: Src,
        cond: u32,
    },
    LdGlobal {
        guard: Option<Guard>,
        size: u32,
        /// Applied to the loaded (zero-extended) bits: sign-extends `S8`/`S16`.
        widen: CvtFn,
        dsts: Vec<u32>,
        addr: u32,
        offset: i64,
    },
    StGlobal {
        guard: Option<Guard>,
        size: u32,
        srcs: Vec<u32>,
        addr: u32,
        offset: i64,
    },
    /// One element of `size` bytes (4 or 8); `op`'s registers are read as bits.
    Atom {
        guard: Option<Guard>,
        op: AtomOp,
        size: u32,
        /// The memory order (what the atomic synchronizes between programs, `sync.rs`).
        sem: Sem,
        scope: Scope,
        dst: u32,
        addr: u32,
        src: u32,
    },
    LdShared {
        size: u32,
        /// Applied to the loaded (zero-extended) bits: sign-extends `S8`/`S16`, as
        /// `ld.shared.s8` does.
        widen: CvtFn,
        dst: u32,
        addr: u32,
        offset: u32,
    },
    StShared {
        guard: Option<Guard>,
        size: u32,
        src: u32,
        addr: u32,
        offset: u32,
    },
    /// `srcs.len()` elements of `size` bytes, the address aligned to their total.
    StSharedVec {
        guard: Option<Guard>,
        size: u32,
        srcs: Vec<u32>,
        addr: u32,
        offset: u32,
    },
    /// `dsts.len()` elements of `size` bytes, the address aligned to their total.
    LdSharedVec {
        size: u32,
        dsts: Vec<u32>,
        addr: u32,
        offset: u32,
    },
    /// 16 bytes from global `src` (the first `src_size`, 0 or 16) to shared `dst + offset`,
    /// in the threads whose guard holds.
    CpAsync {
        guard: Option<Guard>,
        dst: u32,
        offset: u32,
        src: u32,
        src_size: Src,
    },
    CpAsyncCommit,
    /// `__assertfail`: aborts where the guard holds in an active thread.
    AssertFail {
        guard: Guard,
        message: String,
    },
    /// `vprintf`: each thread where the guard holds prints `format` with its `args`
    /// (register, size in the buffer).
    Printf {
        guard: Option<Guard>,
        format: String,
        args: Vec<(u32, u32)>,
    },
    CpAsyncWait {
        pending: u32,
    },
    Shfl {
        dst: u32,
        src: u32,
        mode: super::shfl::Mode,
        b: u32,
        c: u32,
        member_mask: u32,
    },
    /// `ldmatrix` of `dsts.len()` (1, 2 or 4) 8x8 matrices, warp by warp
    /// (`tensor_core.rs`).
    Ldmatrix {
        trans: bool,
        dsts: Vec<u32>,
        addr: u32,
        offset: u32,
    },
    /// `mma.sync` `D = A B + C`, warp by warp (`tensor_core.rs`).
    Mma {
        input: MmaInput,
        d: [u32; 4],
        a: [u32; 4],
        b: [u32; 2],
        c: [u32; 4],
    },
    /// `wgmma.fence`: checked warpgroup-collective; orders nothing in lock step.
    WgmmaFence,
    /// `wgmma.mma_async` `D = A B + D`, warpgroup by warpgroup (`cta/wgmma.rs`).
    Wgmma {
        input: MmaInput,
        n: usize,
        d: Vec<u32>,
        a: WgmmaOperand,
        desc: u32,
        trans_b: bool,
    },
    WgmmaCommit,
    WgmmaWait {
        pending: u32,
    },
    /// `fence.proxy.async`: each active thread's shared writes so far are visible to
    /// `wgmma`'s operand reads (after a barrier).
    FenceProxyAsync,
    /// `lo = src & mask`, `hi = (src >> bits) & mask` with `mask = 2^bits - 1` (both
    /// writes from the value before): `Unpack64` (`bits` 32) and `Unpack` (16).
    Unpack {
        lo: u32,
        hi: u32,
        src: u32,
        bits: u32,
    },
    /// An inline asm's CPU model over each active thread's registers, `(register,
    /// mask of its bits)` in and out.
    InlineAsm {
        run: crate::ir::AsmModelFn,
        inputs: Vec<(u32, u64)>,
        outputs: Vec<(u32, u64)>,
    },
    BarSync {
        id: u32,
    },
    /// A uniform branch: the then body is `self + 1 .. else_start`, the else body
    /// `else_start .. end`.
    If {
        cond: u32,
        else_start: usize,
        end: usize,
    },
    /// A uniform loop: the condition block is `self + 1 .. after_start` (it writes `cond`),
    /// the body `after_start .. end`.
    While {
        cond: u32,
        after_start: usize,
        end: usize,
    },
    /// The body is `self + 1 .. end`.
    Loop {
        ty: Ty,
        iv: u32,
        lower: Src,
        upper: Src,
        step: Src,
        end: usize,
    },
}

/// The decoded program: instructions and, for each, the group marker above it.
#[derive(Debug)]
pub(crate) struct Decoded {
    pub ops: Vec<MicroOp>,
    /// Index into `groups` of every op's group marker (`u32::MAX`: none yet).
    pub group_of: Vec<u32>,
    pub groups: Vec<Group>,
    /// The type of every register (for messages: `%f12`).
    pub tys: Vec<Ty>,
}

impl Decoded {
    /// The register's PTX name, as the writer prints it (`%r3`, `%rd4`, `%f5`, `%p6`).
    pub fn reg_name(&self, r: u32) -> String {
        let prefix = self.tys.get(r as usize).map_or("%?", |t| crate::backend::ptx::writer::prefix(*t));
        format!("{prefix}{r}")
    }
}

/// Decodes `p` for a launch with `args` (already checked against the parameters).
pub(crate) fn decode(p: &Program, args: &[ArgValue]) -> Result<Decoded, SimFault> {
    let mut d = Decoded { ops: Vec::new(), group_of: Vec::new(), groups: Vec::new(), tys: p.regs.clone() };
    let mut group = u32::MAX;
    block(p, args, &p.body, &mut d, &mut group)?;
    Ok(d)
}

fn block(p: &Program, args: &[ArgValue], insts: &[Inst], d: &mut Decoded, group: &mut u32) -> Result<(), SimFault> {
    for inst in insts {
        if let Inst::Group(g) = inst {
            d.groups.push(g.clone());
            *group = d.groups.len() as u32 - 1;
            continue;
        }
        let at = d.ops.len();
        d.ops.push(MicroOp::Nop);
        d.group_of.push(*group);
        let op = match inst {
            Inst::Group(_) => unreachable!("handled above"),
            Inst::Ldmatrix { trans, dsts, addr, offset } => {
                if !matches!(dsts.len(), 1 | 2 | 4) {
                    return Err(unsupported(format!("ldmatrix of {} matrices (x1, x2 or x4 exist)", dsts.len())));
                }
                MicroOp::Ldmatrix {
                    trans: *trans,
                    dsts: dsts.iter().map(|r| r.0).collect(),
                    addr: addr.0,
                    offset: *offset,
                }
            }
            Inst::Mma { input, d, a, b, c } => MicroOp::Mma {
                input: *input,
                d: fragment(d, "d")?,
                a: fragment(a, "a")?,
                b: fragment(b, "b")?,
                c: fragment(c, "c")?,
            },
            Inst::WgmmaFence => MicroOp::WgmmaFence,
            Inst::Wgmma { input, n, d, a, b_desc, trans_b } => {
                if !matches!(input, MmaInput::F16 | MmaInput::BF16) || d.len() != *n as usize / 2 || *n % 8 != 0 {
                    return Err(unsupported(format!(
                        "a wgmma of {} inputs, n = {n}, with {} accumulators (16-bit inputs, n a multiple of 8, n / 2 accumulators)",
                        input.ptx(),
                        d.len()
                    )));
                }
                MicroOp::Wgmma {
                    input: *input,
                    n: *n as usize,
                    d: d.iter().map(|r| r.0).collect(),
                    a: match a {
                        WgmmaA::Regs(a) => WgmmaOperand::Regs(fragment(a, "a")?),
                        WgmmaA::Desc(a) => WgmmaOperand::Desc(a.0),
                    },
                    desc: b_desc.0,
                    trans_b: *trans_b,
                }
            }
            Inst::WgmmaCommit => MicroOp::WgmmaCommit,
            Inst::WgmmaWait { pending } => MicroOp::WgmmaWait { pending: *pending },
            Inst::FenceProxyAsync => MicroOp::FenceProxyAsync,
            Inst::Tma { guard, op } => tma(p, args, *guard, op)?,
            Inst::CvtTf32 { dst, src } => {
                let f: CvtFn = |x| from_f32(f32_to_tf32_rna(f32_of(x)));
                MicroOp::Cvt { f, dst: dst.0, src: src.0 }
            }
            Inst::LdParam { dst, param } => {
                let prm =
                    p.params.get(*param).ok_or_else(|| unsupported(format!("parameter {param} does not exist")))?;
                let bits = match (prm.kind, args[*param]) {
                    (ParamTy::Ptr, ArgValue::Ptr(a)) => a,
                    (ParamTy::I32, ArgValue::Int(v)) => u64::from(v as i32 as u32),
                    (ParamTy::I64, ArgValue::Int(v)) => v as u64,
                    (ParamTy::F32, ArgValue::F32(x)) => u64::from(x.to_bits()),
                    // any other (parameter, argument) pair does not fit (not an op kind)
                    _ => return Err(unsupported(format!("argument {param} does not fit its parameter"))),
                };
                MicroOp::Mov { dst: dst.0, src: Src::Imm(bits) }
            }
            Inst::CvtaGlobal { dst, src } => MicroOp::Mov { dst: dst.0, src: Src::Reg(src.0) },
            Inst::ReadSpecial { dst, sreg } => MicroOp::Special { dst: dst.0, sreg: *sreg },
            Inst::Mov { ty, dst, src } => MicroOp::Mov { dst: dst.0, src: src_of(*src, *ty) },
            Inst::Bin { op, ty, dst, a, b } => {
                // Shift amounts are 32-bit whatever the shifted type (as the writer prints).
                let bty = if op.is_shift() { Ty::I32 } else { *ty };
                MicroOp::Bin { f: bin_fn(*op, *ty)?, dst: dst.0, a: src_of(*a, *ty), b: src_of(*b, bty) }
            }
            Inst::Unary { op, ty, dst, src } => MicroOp::Unary { op: *op, ty: *ty, dst: dst.0, src: src.0 },
            Inst::Fma { ty, dst, a, b, c } => {
                if *ty != Ty::F32 {
                    return Err(unsupported(format!("fma on {ty:?}")));
                }
                MicroOp::Fma { dst: dst.0, a: src_of(*a, *ty), b: src_of(*b, *ty), c: src_of(*c, *ty) }
            }
            Inst::Not { dst, src } => MicroOp::Not { dst: dst.0, src: src.0 },
            Inst::MulWide { dst, a, b } => {
                let f: BinFn = |a, b| Some((i64::from(a as u32 as i32) * i64::from(b as u32 as i32)) as u64);
                MicroOp::Bin { f, dst: dst.0, a: src_of(*a, Ty::I32), b: src_of(*b, Ty::I32) }
            }
            Inst::Cvt { dst, to, src, from } => MicroOp::Cvt { f: cvt_fn(*from, *to)?, dst: dst.0, src: src.0 },
            Inst::Pack { dst, lo, hi } => {
                let f: BinFn = |lo, hi| Some((hi & 0xFFFF) << 16 | (lo & 0xFFFF));
                MicroOp::Bin { f, dst: dst.0, a: Src::Reg(lo.0), b: Src::Reg(hi.0) }
            }
            Inst::CvtF32x2ToFp8x2 { format, dst, hi, lo } => {
                let f = super::convert::fp8x2_encode_fn(*format);
                MicroOp::Bin { f, dst: dst.0, a: Src::Reg(hi.0), b: Src::Reg(lo.0) }
            }
            Inst::CvtFp8x2ToF16x2 { format, dst, src } => {
                MicroOp::Cvt { f: super::convert::fp8x2_decode_fn(*format), dst: dst.0, src: src.0 }
            }
            Inst::Setp { cmp, ty, dst, a, b } => {
                MicroOp::Setp { f: cmp_fn(*cmp, *ty)?, dst: dst.0, a: src_of(*a, *ty), b: src_of(*b, *ty) }
            }
            Inst::Selp { ty, dst, a, b, cond } => {
                MicroOp::Selp { dst: dst.0, a: src_of(*a, *ty), b: src_of(*b, *ty), cond: cond.0 }
            }
            Inst::LdGlobal { guard, ty, dsts, addr, offset, .. } => MicroOp::LdGlobal {
                guard: *guard,
                size: mem_size(*ty)?,
                widen: super::convert::load_widen(*ty),
                dsts: regs(dsts)?,
                addr: addr.0,
                offset: *offset,
            },
            Inst::StGlobal { guard, ty, srcs, addr, offset } => MicroOp::StGlobal {
                guard: *guard,
                size: mem_size(*ty)?,
                srcs: regs(srcs)?,
                addr: addr.0,
                offset: *offset,
            },
            Inst::Atom { guard, op, ty, sem, scope, dst, addr, src } => MicroOp::Atom {
                guard: *guard,
                op: *op,
                size: mem_size(*ty)?,
                sem: *sem,
                scope: *scope,
                dst: dst.0,
                addr: addr.0,
                src: src.0,
            },
            Inst::SharedBase { dst } => MicroOp::Mov { dst: dst.0, src: Src::Imm(0) },
            Inst::LdShared { ty, dst, addr, offset } => {
                let widen = super::convert::load_widen(*ty);
                MicroOp::LdShared { size: mem_size(*ty)?, widen, dst: dst.0, addr: addr.0, offset: *offset }
            }
            Inst::StShared { guard, ty, src, addr, offset } => {
                MicroOp::StShared { guard: *guard, size: mem_size(*ty)?, src: src.0, addr: addr.0, offset: *offset }
            }
            Inst::StSharedVec { guard, ty, srcs, addr, offset } => MicroOp::StSharedVec {
                guard: *guard,
                size: mem_size(*ty)?,
                srcs: regs(srcs)?,
                addr: addr.0,
                offset: *offset,
            },
            Inst::LdSharedVec { ty, dsts, addr, offset } => {
                MicroOp::LdSharedVec { size: mem_size(*ty)?, dsts: regs(dsts)?, addr: addr.0, offset: *offset }
            }
            Inst::CpAsync { guard, dst, offset, src, src_size } => MicroOp::CpAsync {
                guard: *guard,
                dst: dst.0,
                offset: *offset,
                src: src.0,
                src_size: src_of(*src_size, Ty::I32),
            },
            Inst::CpAsyncCommit => MicroOp::CpAsyncCommit,
            Inst::AssertFail { guard, message, .. } => MicroOp::AssertFail { guard: *guard, message: message.clone() },
            Inst::Printf { guard, format, args } => MicroOp::Printf {
                guard: *guard,
                format: format.clone(),
                args: args.iter().map(|r| (r.0, p.ty(*r).printf_bytes())).collect(),
            },
            Inst::CpAsyncWait { pending } => MicroOp::CpAsyncWait { pending: *pending },
            // `shfl.sync.b32` moves 32-bit registers only: ptxas refuses an f16/bf16
            // (`.b16`), 64-bit or predicate register, so the simulator does too, rather
            // than run a program the driver would not load.
            Inst::Shfl { ty, .. } if !matches!(ty, Ty::I32 | Ty::U32 | Ty::F32 | Ty::S8 | Ty::U8 | Ty::S16) => {
                return Err(unsupported(format!("shfl.sync.b32 of a {ty:?} register (shuffle 32-bit words)")));
            }
            Inst::Shfl { dst, src, lane_mask, clamp, member_mask, .. } => MicroOp::Shfl {
                dst: dst.0,
                src: src.0,
                mode: super::shfl::Mode::Bfly,
                b: *lane_mask,
                c: *clamp,
                member_mask: *member_mask,
            },
            Inst::Unpack64 { lo, hi, src, .. } => MicroOp::Unpack { lo: lo.0, hi: hi.0, src: src.0, bits: 32 },
            Inst::Unpack { lo, hi, src } => MicroOp::Unpack { lo: lo.0, hi: hi.0, src: src.0, bits: 16 },
            Inst::Pack64 { dst, lo, hi, .. } => {
                let f: BinFn = |lo, hi| Some((lo & 0xFFFF_FFFF) | (hi << 32));
                MicroOp::Bin { f, dst: dst.0, a: Src::Reg(lo.0), b: Src::Reg(hi.0) }
            }
            Inst::BarSync { id } => MicroOp::BarSync { id: *id },
            Inst::InlineAsm { outputs, inputs, model, .. } => {
                // `refuse_unmodelled` reported an asm without a model before decoding.
                let run = model
                    .and_then(|m| m.run)
                    .ok_or_else(|| unsupported("an inline asm without a CPU model".to_string()))?;
                let regs = |os: &[crate::backend::ptx::lir::AsmOperand]| {
                    os.iter().map(|o| (o.reg.0, if o.bits >= 64 { u64::MAX } else { (1u64 << o.bits) - 1 })).collect()
                };
                MicroOp::InlineAsm { run, inputs: regs(inputs), outputs: regs(outputs) }
            }
            Inst::Loop { ty, iv, lower, upper, step, body } => {
                if !matches!(ty, Ty::I32 | Ty::I64) {
                    return Err(unsupported(format!("a loop over {ty:?}")));
                }
                let (lower, upper, step) = (src_of(*lower, *ty), src_of(*upper, *ty), src_of(*step, *ty));
                block(p, args, body, d, group)?;
                MicroOp::Loop { ty: *ty, iv: iv.0, lower, upper, step, end: d.ops.len() }
            }
            Inst::If { cond, then_body, else_body } => {
                block(p, args, then_body, d, group)?;
                let else_start = d.ops.len();
                block(p, args, else_body, d, group)?;
                MicroOp::If { cond: cond.0, else_start, end: d.ops.len() }
            }
            Inst::While { before, cond, after } => {
                block(p, args, before, d, group)?;
                let after_start = d.ops.len();
                block(p, args, after, d, group)?;
                MicroOp::While { cond: cond.0, after_start, end: d.ops.len() }
            }
        };
        d.ops[at] = op;
    }
    Ok(())
}

/// A tensor copy or mbarrier instruction, its map resolved with the launch's arguments
/// (a map the hardware could not encode is the launch's error, as on the GPU).
fn tma(p: &Program, args: &[ArgValue], guard: Option<Guard>, op: &TmaOp) -> Result<MicroOp, SimFault> {
    Ok(match op {
        TmaOp::Init { bar, count } => MicroOp::MbarrierInit { guard, bar: bar.0, count: *count },
        TmaOp::FenceInit => MicroOp::Nop,
        TmaOp::ArriveExpectTx { bar, bytes } => MicroOp::MbarrierArrive { guard, bar: bar.0, bytes: *bytes },
        TmaOp::Load { dst, map, coords, bar, .. } => {
            let map = launch_map(p, args, *map)?;
            let coords = coords.iter().map(|c| src_of(*c, Ty::I32)).collect();
            MicroOp::TensorCopy { guard, dst: dst.0, map, coords, bar: bar.0 }
        }
        TmaOp::Store { src, map, coords, .. } => {
            let map = launch_map(p, args, *map)?;
            let coords = coords.iter().map(|c| src_of(*c, Ty::I32)).collect();
            MicroOp::TensorStore { guard, src: src.0, map, coords }
        }
        TmaOp::StoreCommit => MicroOp::BulkCommit { guard },
        TmaOp::StoreWaitRead { pending } => MicroOp::BulkWaitRead { guard, pending: *pending },
        TmaOp::Wait { bar, parity } => MicroOp::MbarrierWait { bar: bar.0, parity: parity.0 },
        TmaOp::MapAddr { dst, map } => {
            MicroOp::Mov { dst: dst.0, src: Src::Imm(TENSOR_MAP_STAND_IN + u64::from(*map) * 128) }
        }
    })
}

/// Tensor map `map` of `p` resolved with the launch's arguments.
fn launch_map(p: &Program, args: &[ArgValue], map: u32) -> Result<std::sync::Arc<LaunchMap>, SimFault> {
    let m = p.tensor_maps.get(map as usize).ok_or_else(|| unsupported(format!("tensor map {map}")))?;
    let resolved = m.resolve(args).map_err(|e| {
        SimFault::new(
            Check::TensorCopyBox,
            None,
            format!("tensor map {map} cannot be encoded for these arguments: {e}"),
            "pass a tensor the hardware's tensor copies can describe, or compile for a target without them",
        )
    })?;
    Ok(std::sync::Arc::new(LaunchMap { map: m.clone(), resolved }))
}

/// The address a tensor map's parameter stands at in the simulator (copies name the map).
const TENSOR_MAP_STAND_IN: u64 = 0x7e00_0000_0000;

fn unsupported(what: String) -> SimFault {
    SimFault::new(
        Check::Unsupported,
        None,
        format!("the simulator cannot execute {what}"),
        "the lowered program is malformed; report it with its PTX text",
    )
}

fn regs(rs: &[crate::backend::ptx::lir::Reg]) -> Result<Vec<u32>, SimFault> {
    if !matches!(rs.len(), 1 | 2 | 4) {
        return Err(unsupported(format!("a vector access of {} elements", rs.len())));
    }
    Ok(rs.iter().map(|r| r.0).collect())
}

/// The registers of one `mma` operand: 4 for `a`, `c` and `d`, 2 for `b` (every shape).
fn fragment<const N: usize>(rs: &[crate::backend::ptx::lir::Reg], what: &str) -> Result<[u32; N], SimFault> {
    let regs: Vec<u32> = rs.iter().map(|r| r.0).collect();
    regs.try_into().map_err(|regs: Vec<u32>| {
        unsupported(format!("an mma.sync whose `{what}` operand has {} registers (it takes {N})", regs.len()))
    })
}

fn mem_size(ty: Ty) -> Result<u32, SimFault> {
    match ty {
        Ty::Pred => Err(unsupported("a memory access of type pred".into())),
        t => Ok(t.size_bytes()),
    }
}

/// The bits of operand `o` read as type `ty`.
pub(crate) fn src_of(o: Operand, ty: Ty) -> Src {
    match o {
        Operand::Reg(r) => Src::Reg(r.0),
        Operand::Int(v) => Src::Imm(match ty {
            Ty::Pred => u64::from(v != 0),
            Ty::I32 | Ty::U32 | Ty::S8 | Ty::U8 | Ty::S16 => u64::from(v as i32 as u32),
            Ty::I64 | Ty::U64 => v as u64,
            Ty::F32 => u64::from((v as f32).to_bits()),
            Ty::F64 => (v as f64).to_bits(),
            Ty::F16 => u64::from(f32_to_f16(v as f32).to_bits()),
            Ty::BF16 => u64::from(f32_to_bf16(v as f32).to_bits()),
        }),
        Operand::F32(x) => Src::Imm(match ty {
            Ty::I64 => x.to_bits() as i32 as i64 as u64,
            Ty::F64 => f32_to_f64(x).to_bits(),
            Ty::F16 => u64::from(f32_to_f16(x).to_bits()),
            Ty::BF16 => u64::from(f32_to_bf16(x).to_bits()),
            // 32-bit registers take the float's bits (a register type, not an op kind)
            _ => u64::from(x.to_bits()),
        }),
        Operand::F64(x) => Src::Imm(x.to_bits()),
    }
}

/// One element of [`MicroOp::Unary`]: the interpreter's own element function on the bits of
/// a register of type `ty`.
pub(crate) fn unary_bits(op: UnaryOp, ty: Ty, x: u64) -> Result<u64, SimFault> {
    let on_int = |v: i64| unary_int(op, v).ok_or_else(|| unsupported(format!("`{}` on {ty:?}", op.name())));
    Ok(match ty {
        Ty::I32 => from_i32(on_int(i64::from(i32_of(x)))? as i32),
        Ty::I64 => on_int(x as i64)? as u64,
        Ty::F32 => from_f32(unary_f32(op, f32_of(x))),
        Ty::U32 => u64::from(on_int(i64::from(x as u32))? as u32),
        Ty::U64 => on_int(x as i64)? as u64,
        Ty::F64 => unary_f64(op, f64::from_bits(x)).to_bits(),
        Ty::Pred | Ty::F16 | Ty::BF16 | Ty::S8 | Ty::U8 | Ty::S16 => {
            return Err(unsupported(format!("`{}` on {ty:?}", op.name())));
        }
    })
}

/// One element of [`MicroOp::Fma`] on f32 register bits.
pub(crate) fn fma_bits(a: u64, b: u64, c: u64) -> u64 {
    from_f32(crate::semantics::math::fma_f32(f32_of(a), f32_of(b), f32_of(c)))
}

fn i32_of(x: u64) -> i32 {
    x as u32 as i32
}

fn f32_of(x: u64) -> f32 {
    f32::from_bits(x as u32)
}

fn from_i32(x: i32) -> u64 {
    u64::from(x as u32)
}

fn from_f32(x: f32) -> u64 {
    u64::from(x.to_bits())
}

fn bin_fn(op: BinOp, ty: Ty) -> Result<BinFn, SimFault> {
    use PropagateNan::{All, None as Ign};
    let f: BinFn = match (op, ty) {
        (BinOp::Add, Ty::I32) => |a, b| Some(from_i32(i32_of(a).wrapping_add(i32_of(b)))),
        (BinOp::Sub, Ty::I32) => |a, b| Some(from_i32(i32_of(a).wrapping_sub(i32_of(b)))),
        (BinOp::Mul, Ty::I32) => |a, b| Some(from_i32(i32_of(a).wrapping_mul(i32_of(b)))),
        (BinOp::Div, Ty::I32) => |a, b| (i32_of(b) != 0).then(|| from_i32(i32_of(a).wrapping_div(i32_of(b)))),
        (BinOp::Rem, Ty::I32) => |a, b| (i32_of(b) != 0).then(|| from_i32(i32_of(a).wrapping_rem(i32_of(b)))),
        (BinOp::Max(_), Ty::I32) => |a, b| Some(from_i32(i32_of(a).max(i32_of(b)))),
        (BinOp::Min(_), Ty::I32) => |a, b| Some(from_i32(i32_of(a).min(i32_of(b)))),
        (BinOp::Add, Ty::I64) => |a, b| Some(a.wrapping_add(b)),
        (BinOp::Sub, Ty::I64) => |a, b| Some(a.wrapping_sub(b)),
        (BinOp::Mul, Ty::I64) => |a, b| Some(a.wrapping_mul(b)),
        (BinOp::Div, Ty::I64) => |a, b| (b != 0).then(|| (a as i64).wrapping_div(b as i64) as u64),
        (BinOp::Rem, Ty::I64) => |a, b| (b != 0).then(|| (a as i64).wrapping_rem(b as i64) as u64),
        (BinOp::Max(_), Ty::I64) => |a, b| Some((a as i64).max(b as i64) as u64),
        (BinOp::Min(_), Ty::I64) => |a, b| Some((a as i64).min(b as i64) as u64),
        (BinOp::And, Ty::I32 | Ty::I64 | Ty::Pred) => |a, b| Some(a & b),
        (BinOp::Or, Ty::I32 | Ty::I64 | Ty::Pred) => |a, b| Some(a | b),
        (BinOp::Xor, Ty::I32 | Ty::I64 | Ty::Pred) => |a, b| Some(a ^ b),
        (BinOp::Shl, Ty::I32) => |a, b| Some(if (b as u32) >= 32 { 0 } else { u64::from((a as u32) << b as u32) }),
        (BinOp::ShrU, Ty::I32) => |a, b| Some(if (b as u32) >= 32 { 0 } else { u64::from((a as u32) >> b as u32) }),
        (BinOp::Shl, Ty::I64) => |a, b| Some(if (b as u32) >= 64 { 0 } else { a << b as u32 }),
        (BinOp::ShrU, Ty::I64) => |a, b| Some(if (b as u32) >= 64 { 0 } else { a >> b as u32 }),
        (BinOp::ShrS, Ty::I32) => |a, b| Some(from_i32(i32_of(a) >> (b as u32).min(31))),
        (BinOp::ShrS, Ty::I64) => |a, b| Some(((a as i64) >> (b as u32).min(63)) as u64),
        (BinOp::MulHiU, Ty::I32 | Ty::U32) => |a, b| Some(u64::from(umulhi(a as i64, b as i64, 32) as u32)),
        (BinOp::MulHiU, Ty::I64 | Ty::U64) => |a, b| Some(umulhi(a as i64, b as i64, 64) as u64),
        (BinOp::Add, Ty::F32) => |a, b| Some(from_f32(f32_of(a) + f32_of(b))),
        (BinOp::Sub, Ty::F32) => |a, b| Some(from_f32(f32_of(a) - f32_of(b))),
        (BinOp::Mul, Ty::F32) => |a, b| Some(from_f32(f32_of(a) * f32_of(b))),
        (BinOp::Div, Ty::F32) => |a, b| Some(from_f32(f32_of(a) / f32_of(b))),
        (BinOp::DivFull, Ty::F32) => |a, b| Some(from_f32(crate::semantics::math::div_full_f32(f32_of(a), f32_of(b)))),
        (BinOp::Max(Ign), Ty::F32) => |a, b| Some(from_f32(max_f32(f32_of(a), f32_of(b), Ign))),
        (BinOp::Max(All), Ty::F32) => |a, b| Some(from_f32(max_f32(f32_of(a), f32_of(b), All))),
        (BinOp::Min(Ign), Ty::F32) => |a, b| Some(from_f32(min_f32(f32_of(a), f32_of(b), Ign))),
        (BinOp::Min(All), Ty::F32) => |a, b| Some(from_f32(min_f32(f32_of(a), f32_of(b), All))),
        (BinOp::Add, Ty::U32) => |a, b| Some(u64::from((a as u32).wrapping_add(b as u32))),
        (BinOp::Sub, Ty::U32) => |a, b| Some(u64::from((a as u32).wrapping_sub(b as u32))),
        (BinOp::Mul, Ty::U32) => |a, b| Some(u64::from((a as u32).wrapping_mul(b as u32))),
        (BinOp::Div, Ty::U32) => |a, b| (b as u32 != 0).then(|| u64::from(a as u32 / b as u32)),
        (BinOp::Rem, Ty::U32) => |a, b| (b as u32 != 0).then(|| u64::from(a as u32 % b as u32)),
        (BinOp::Max(_), Ty::U32) => |a, b| Some(u64::from((a as u32).max(b as u32))),
        (BinOp::Min(_), Ty::U32) => |a, b| Some(u64::from((a as u32).min(b as u32))),
        (BinOp::And, Ty::U32 | Ty::U64) => |a, b| Some(a & b),
        (BinOp::Or, Ty::U32 | Ty::U64) => |a, b| Some(a | b),
        (BinOp::Xor, Ty::U32 | Ty::U64) => |a, b| Some(a ^ b),
        (BinOp::Shl, Ty::U32) => |a, b| Some(if (b as u32) >= 32 { 0 } else { u64::from((a as u32) << b as u32) }),
        (BinOp::ShrU, Ty::U32) => |a, b| Some(if (b as u32) >= 32 { 0 } else { u64::from((a as u32) >> b as u32) }),
        (BinOp::Add, Ty::U64) => |a, b| Some(a.wrapping_add(b)),
        (BinOp::Sub, Ty::U64) => |a, b| Some(a.wrapping_sub(b)),
        (BinOp::Mul, Ty::U64) => |a, b| Some(a.wrapping_mul(b)),
        (BinOp::Div, Ty::U64) => |a, b| (b != 0).then(|| a / b),
        (BinOp::Rem, Ty::U64) => |a, b| (b != 0).then(|| a % b),
        (BinOp::Max(_), Ty::U64) => |a, b| Some(a.max(b)),
        (BinOp::Min(_), Ty::U64) => |a, b| Some(a.min(b)),
        (BinOp::Shl, Ty::U64) => |a, b| Some(if (b as u32) >= 64 { 0 } else { a << b as u32 }),
        (BinOp::ShrU, Ty::U64) => |a, b| Some(if (b as u32) >= 64 { 0 } else { a >> b as u32 }),
        (BinOp::Add, Ty::F64) => |a, b| Some((f64::from_bits(a) + f64::from_bits(b)).to_bits()),
        (BinOp::Sub, Ty::F64) => |a, b| Some((f64::from_bits(a) - f64::from_bits(b)).to_bits()),
        (BinOp::Mul, Ty::F64) => |a, b| Some((f64::from_bits(a) * f64::from_bits(b)).to_bits()),
        (BinOp::Div, Ty::F64) => |a, b| Some((f64::from_bits(a) / f64::from_bits(b)).to_bits()),
        (BinOp::Max(Ign), Ty::F64) => |a, b| Some(max_f64(f64::from_bits(a), f64::from_bits(b), Ign).to_bits()),
        (BinOp::Min(Ign), Ty::F64) => |a, b| Some(min_f64(f64::from_bits(a), f64::from_bits(b), Ign).to_bits()),
        (op, ty) => return Err(unsupported(format!("{op:?} on {ty:?}"))),
    };
    Ok(f)
}

fn cmp_fn(cmp: Cmp, ty: Ty) -> Result<CmpFn, SimFault> {
    let f: CmpFn = match (cmp, ty) {
        (Cmp::Lt, Ty::I32) => |a, b| i32_of(a) < i32_of(b),
        (Cmp::Le, Ty::I32) => |a, b| i32_of(a) <= i32_of(b),
        (Cmp::Gt, Ty::I32) => |a, b| i32_of(a) > i32_of(b),
        (Cmp::Ge, Ty::I32) => |a, b| i32_of(a) >= i32_of(b),
        (Cmp::Lt, Ty::I64) => |a, b| (a as i64) < (b as i64),
        (Cmp::Le, Ty::I64) => |a, b| (a as i64) <= (b as i64),
        (Cmp::Gt, Ty::I64) => |a, b| (a as i64) > (b as i64),
        (Cmp::Ge, Ty::I64) => |a, b| (a as i64) >= (b as i64),
        (Cmp::Eq, Ty::I32 | Ty::I64 | Ty::Pred) => |a, b| a == b,
        (Cmp::Ne, Ty::I32 | Ty::I64 | Ty::Pred) => |a, b| a != b,
        (Cmp::Lt, Ty::F32) => |a, b| f32_of(a) < f32_of(b),
        (Cmp::Le, Ty::F32) => |a, b| f32_of(a) <= f32_of(b),
        (Cmp::Gt, Ty::F32) => |a, b| f32_of(a) > f32_of(b),
        (Cmp::Ge, Ty::F32) => |a, b| f32_of(a) >= f32_of(b),
        (Cmp::Eq, Ty::F32) => |a, b| f32_of(a) == f32_of(b),
        // Unordered: true when an operand is NaN (`setp.neu`).
        (Cmp::Ne, Ty::F32) => |a, b| f32_of(a) != f32_of(b),
        (Cmp::Lt, Ty::U32 | Ty::U64) => |a, b| a < b,
        (Cmp::Le, Ty::U32 | Ty::U64) => |a, b| a <= b,
        (Cmp::Gt, Ty::U32 | Ty::U64) => |a, b| a > b,
        (Cmp::Ge, Ty::U32 | Ty::U64) => |a, b| a >= b,
        (Cmp::Eq, Ty::U32 | Ty::U64) => |a, b| a == b,
        (Cmp::Ne, Ty::U32 | Ty::U64) => |a, b| a != b,
        (Cmp::Lt, Ty::F64) => |a, b| f64::from_bits(a) < f64::from_bits(b),
        (Cmp::Le, Ty::F64) => |a, b| f64::from_bits(a) <= f64::from_bits(b),
        (Cmp::Gt, Ty::F64) => |a, b| f64::from_bits(a) > f64::from_bits(b),
        (Cmp::Ge, Ty::F64) => |a, b| f64::from_bits(a) >= f64::from_bits(b),
        (Cmp::Eq, Ty::F64) => |a, b| f64::from_bits(a) == f64::from_bits(b),
        (Cmp::Ne, Ty::F64) => |a, b| f64::from_bits(a) != f64::from_bits(b),
        (cmp, ty) => return Err(unsupported(format!("setp {cmp:?} on {ty:?}"))),
    };
    Ok(f)
}

fn cvt_fn(from: Ty, to: Ty) -> Result<CvtFn, SimFault> {
    let f: CvtFn = match (from, to) {
        (a, b) if a == b => |x| x,
        (Ty::I32, Ty::I64) => |x| i64::from(i32_of(x)) as u64,
        (Ty::I64, Ty::I32) => |x| x & 0xFFFF_FFFF,
        (Ty::I32, Ty::F32) => |x| from_f32(i32_of(x) as f32),
        (Ty::I64, Ty::F32) => |x| from_f32(x as i64 as f32),
        (Ty::F32, Ty::I32) => |x| from_i32(f32_to_i32(f32_of(x))),
        (Ty::F32, Ty::I64) => |x| f32_to_i64(f32_of(x)) as u64,
        // a pair with a newer type: the interpreter's conversion on the register bits
        (Ty::Pred, _) | (_, Ty::Pred) => return Err(unsupported(format!("cvt from {from:?} to {to:?}"))),
        (from, to) => super::convert::cvt_fn(from, to),
    };
    Ok(f)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn immediates_take_the_instruction_type() {
        assert_eq!(src_of(Operand::Int(-1), Ty::I32), Src::Imm(0xFFFF_FFFF));
        assert_eq!(src_of(Operand::Int(-1), Ty::I64), Src::Imm(u64::MAX));
        assert_eq!(src_of(Operand::Int(2), Ty::F32), Src::Imm(0x4000_0000));
        assert_eq!(src_of(Operand::F32(f32::NEG_INFINITY), Ty::F32), Src::Imm(0xFF80_0000));
        assert_eq!(src_of(Operand::Int(7), Ty::Pred), Src::Imm(1));
    }

    #[test]
    fn integer_ops_wrap_and_shifts_saturate() {
        let add = bin_fn(BinOp::Add, Ty::I32).unwrap();
        assert_eq!(add(from_i32(i32::MAX), 1), Some(from_i32(i32::MIN)));
        let div = bin_fn(BinOp::Div, Ty::I32).unwrap();
        assert_eq!(div(from_i32(i32::MIN), from_i32(-1)), Some(from_i32(i32::MIN)));
        assert_eq!(div(5, 0), None);
        let rem = bin_fn(BinOp::Rem, Ty::I64).unwrap();
        assert_eq!(rem((-7i64) as u64, 2), Some((-1i64) as u64));
        let shl = bin_fn(BinOp::Shl, Ty::I32).unwrap();
        assert_eq!(shl(1, 31), Some(0x8000_0000));
        assert_eq!(shl(1, 32), Some(0));
        let shr = bin_fn(BinOp::ShrU, Ty::I64).unwrap();
        assert_eq!(shr(u64::MAX, 63), Some(1));
        assert_eq!(shr(u64::MAX, 64), Some(0));
    }

    #[test]
    fn float_max_follows_ptx_and_conversions_saturate() {
        let max = bin_fn(BinOp::Max(PropagateNan::None), Ty::F32).unwrap();
        assert_eq!(max(from_f32(f32::NAN), from_f32(1.0)), Some(from_f32(1.0)));
        assert_eq!(max(from_f32(-0.0), from_f32(0.0)), Some(0));
        let maxn = bin_fn(BinOp::Max(PropagateNan::All), Ty::F32).unwrap();
        assert_eq!(maxn(from_f32(f32::NAN), from_f32(1.0)), Some(0x7FFF_FFFF));
        let ne = cmp_fn(Cmp::Ne, Ty::F32).unwrap();
        assert!(ne(from_f32(f32::NAN), from_f32(f32::NAN)));
        let lt = cmp_fn(Cmp::Lt, Ty::I32).unwrap();
        assert!(lt(from_i32(-1), 0));
        assert_eq!(cvt_fn(Ty::I32, Ty::I64).unwrap()(from_i32(-2)), (-2i64) as u64);
        assert_eq!(cvt_fn(Ty::F32, Ty::I32).unwrap()(from_f32(3e10)), from_i32(i32::MAX));
        assert_eq!(cvt_fn(Ty::I64, Ty::I32).unwrap()(0x1_0000_0005), 5);
    }
}
