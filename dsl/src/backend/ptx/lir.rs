//! `lir`: the lowered, thread-level form between the block IR and PTX text.
//!
//! The block IR says what a *program* computes on whole block tensors. `lir` says what
//! each *thread* of the CTA executes: scalar instructions on typed virtual registers. The
//! lowering ([`mod@super::lower`]) decides which thread owns which element of every block
//! tensor (the layouts in [`super::layout`]) and how wide every memory access is
//! ([`super::vectorize`]); the writer ([`super::writer`]) prints a [`Program`] as PTX
//! one instruction per line. The SIMT simulator executes a [`Program`] directly, so the
//! semantics below are normative: PTX and the simulator must agree on them.
//!
//! # Execution model
//! - A launch runs a grid of CTAs (`%ctaid.x` in `0..%nctaid.x`, `y`/`z` likewise). Every
//!   CTA runs [`Program::threads_per_cta`] threads (`num_warps * 32`), thread `t` (the value
//!   of [`Special::TidX`]) belongs to warp `t / 32` and is lane `t % 32` of it.
//! - Every thread executes [`Program::body`] from the first instruction to the last, in
//!   order. There is no early exit, no divergent branch and no recursion; the only control
//!   flow is structured: [`Inst::Loop`], [`Inst::If`] and [`Inst::While`], whose trip
//!   counts and conditions are the same for every thread of a CTA (they are computed from
//!   block-IR scalars, which every thread computes alike: **the uniformity invariant**), so
//!   every thread executes every [`Inst::BarSync`] and every [`Inst::Shfl`] the same number
//!   of times and the writer may use `bra.uni`. A simulator may therefore run the threads of
//!   a CTA in lock step, instruction by instruction (it checks the invariant: a condition
//!   that differs between the lanes of a warp is an error, a barrier some thread skips is
//!   another).
//! - Each thread has its own register file: one slot per [`Reg`], typed by
//!   [`Program::regs`]. Registers are *mutable* (not SSA): an instruction overwrites its
//!   destination; loop-carried values are registers that the loop body writes. Reading a
//!   register never written gives an unspecified value (the lowering never does it).
//! - Memory: global memory (byte addressed, 64-bit addresses, little endian) shared by the
//!   grid; one shared-memory buffer per CTA of [`Program::shared_bytes`] bytes (addresses
//!   `0..shared_bytes` relative to [`Inst::SharedBase`]).
//!
//! # Types and values
//! A register of type [`Ty::I32`] / [`Ty::I64`] holds a 32- / 64-bit two's complement bit
//! pattern (pointers are `I64` byte addresses); [`Ty::F32`] an IEEE binary32; [`Ty::Pred`]
//! a boolean. Integer arithmetic wraps. Instructions state how they interpret bits
//! (signed comparisons, signed division...).
//!
//! # What a block tensor became
//! Every block-IR value of shape `S` is, in each thread, a list of registers: the elements
//! that thread owns under the value's layout, in the order [`super::layout`] documents
//! (the thread's "element list"). Scalars are one register that every thread holds (all
//! threads compute the same value). Elements may be replicated (a 16-element block on a
//! 128-thread CTA): several threads hold copies; [`Inst::StGlobal`]s are guarded so that
//! exactly one thread writes each element. The lowering records each value's layout in
//! [`Program::layouts`] for readers; the instructions do not depend on it.

use std::fmt;

use crate::backend::ptx::layout::MmaInput;
use crate::ir::{AsmModel, Fp8Format, PropagateNan, Scope, Sem, SourceLoc, UnaryOp};
use crate::semantics::atomic::AtomKind;

/// A virtual register: an index into [`Program::regs`]. Printed `%r7` (I32), `%rd7`
/// (I64), `%f7` (F32) or `%p7` (Pred) with the same number.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Reg(pub u32);

impl Reg {
    pub fn index(self) -> usize {
        self.0 as usize
    }
}

/// The type of a register and of the values an instruction works on.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Ty {
    /// A predicate (boolean).
    Pred,
    /// 32 bits, integer (signedness given by the instruction; signed unless stated).
    I32,
    /// 64 bits, integer or global address.
    I64,
    /// IEEE binary32.
    F32,
    /// 32 bits, unsigned integer.
    U32,
    /// 64 bits, unsigned integer.
    U64,
    /// IEEE binary64.
    F64,
    /// The 16 bits of an IEEE binary16.
    F16,
    /// The 16 bits of a bfloat16.
    BF16,
    /// An `i8` sign-extended in a 32-bit register.
    S8,
    /// A `u8` zero-extended in a 32-bit register.
    U8,
    /// An `i16` sign-extended in a 32-bit register.
    S16,
}

impl Ty {
    /// Bytes a register of this type takes in a `vprintf` argument buffer ([`Inst::Printf`]):
    /// 4 for the 32-bit integer classes, 8 for the 64-bit ones.
    pub fn printf_bytes(self) -> u32 {
        self.size_bytes().max(4)
    }

    /// Size in bytes when stored to memory (`Pred` is never stored).
    pub fn size_bytes(self) -> u32 {
        match self {
            Ty::Pred | Ty::S8 | Ty::U8 => 1,
            Ty::F16 | Ty::BF16 | Ty::S16 => 2,
            Ty::I32 | Ty::U32 | Ty::F32 => 4,
            Ty::I64 | Ty::U64 | Ty::F64 => 8,
        }
    }

    /// The block-IR scalar type whose values a register of this type holds.
    pub fn scalar(self) -> crate::ir::ScalarType {
        use crate::ir::ScalarType as S;
        match self {
            Ty::Pred => S::Bool,
            Ty::I32 => S::I32,
            Ty::I64 => S::I64,
            Ty::F32 => S::F32,
            Ty::U32 => S::U32,
            Ty::U64 => S::U64,
            Ty::F64 => S::F64,
            Ty::F16 => S::F16,
            Ty::BF16 => S::BF16,
            Ty::S8 => S::I8,
            Ty::U8 => S::U8,
            Ty::S16 => S::I16,
        }
    }
}

/// An instruction input: a register or an immediate of the instruction's type.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Operand {
    Reg(Reg),
    /// An integer immediate (wrapped to the instruction's width) or a predicate (`0`/`1`).
    Int(i64),
    /// A float immediate (printed as `0fXXXXXXXX`, the exact bits; for an `F16`/`BF16`
    /// instruction it is rounded to nearest even and printed as its 16 bits).
    F32(f32),
    /// An f64 immediate (printed as `0dXXXXXXXXXXXXXXXX`).
    F64(f64),
}

impl From<Reg> for Operand {
    fn from(r: Reg) -> Self {
        Operand::Reg(r)
    }
}

/// Special registers a thread can read (all `u32`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Special {
    /// `%tid.x`: the thread's index in its CTA, `0..threads_per_cta`.
    TidX,
    /// `%ctaid.{x,y,z}`: the CTA's index in the grid along axis 0, 1, 2.
    CtaId(u32),
    /// `%nctaid.{x,y,z}`: the grid size along axis 0, 1, 2.
    NCtaId(u32),
}

/// Two-operand arithmetic and logic. With [`Inst::Bin`]'s `ty`:
///
/// `U32`/`U64` are as `I32`/`I64` with unsigned `Div`, `Rem`, `Max`, `Min`; `F64` is as
/// `F32` (`Max(All)`/`Min(All)` are not emitted for it: PTX has no `max.NaN.f64`).
///
/// | op | `I32`/`I64` | `F32` | `Pred` |
/// |----|-------------|-------|--------|
/// | `Add`, `Sub` | wrapping | IEEE, round to nearest even | - |
/// | `Mul` | low half of the product (wrapping) | IEEE rn | - |
/// | `Div` | signed, truncating toward zero (division by 0: unspecified) | IEEE rn (`div.rn`) | - |
/// | `DivFull` | - | fast division (`div.full`): `semantics::math::div_full_f32` | - |
/// | `Rem` | signed, sign of the dividend | - | - |
/// | `Max(n)`, `Min(n)` | signed max / min (`n` ignored) | `n = None`: a NaN operand is ignored, two NaNs give the canonical NaN `0x7FFFFFFF` (`max.f32`); `n = All`: any NaN gives `0x7FFFFFFF` (`max.NaN.f32`) | - |
/// | `And`, `Or`, `Xor` | bitwise | - | logical |
/// | `Shl` | shift left by `b` bits (`b >= width` gives 0) | - | - |
/// | `ShrU` | logical shift right by `b` bits (`b >= width` gives 0) | - | - |
/// | `ShrS` | arithmetic shift right by `b` bits (`b >= width` leaves the sign in every bit) | - | - |
///
/// Signed zeros: `+0.0 > -0.0` (`max(-0.0, +0.0) = +0.0`, `min` gives `-0.0`, in either
/// order), as measured on an H200 (docs/semantics.md). Float `Add`/`Sub`/`Mul`/`Div`
/// round once each (`.rn`: never contracted into an fma).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BinOp {
    Add,
    Sub,
    Mul,
    Div,
    Rem,
    Max(PropagateNan),
    Min(PropagateNan),
    And,
    Or,
    Xor,
    Shl,
    ShrU,
    DivFull,
    ShrS,
    /// The high half of the unsigned double-width product (`mul.hi.u32`/`mul.hi.u64`).
    MulHiU,
}

impl BinOp {
    /// `a op b == b op a`: the lowering may swap an immediate into the second operand.
    pub fn commutes(self) -> bool {
        match self {
            BinOp::Add
            | BinOp::Mul
            | BinOp::Max(_)
            | BinOp::Min(_)
            | BinOp::And
            | BinOp::Or
            | BinOp::Xor
            | BinOp::MulHiU => true,
            BinOp::Sub | BinOp::Div | BinOp::Rem | BinOp::Shl | BinOp::ShrU | BinOp::ShrS | BinOp::DivFull => false,
        }
    }

    /// The integer `id` with `x op id == x` (`x + 0`, `x * 1`, `x << 0`, ...), if any.
    pub fn right_identity(self) -> Option<i64> {
        match self {
            BinOp::Add | BinOp::Sub | BinOp::Shl | BinOp::ShrU | BinOp::ShrS | BinOp::Or | BinOp::Xor => Some(0),
            BinOp::Mul => Some(1),
            BinOp::Div | BinOp::Rem | BinOp::Max(_) | BinOp::Min(_) | BinOp::And | BinOp::DivFull | BinOp::MulHiU => {
                None
            }
        }
    }

    /// A shift: the second operand is a 32-bit amount whatever the shifted type (PTX's
    /// `shl.b64 %rd, %rd, %r`), as the writer prints and the simulator reads it.
    pub fn is_shift(self) -> bool {
        match self {
            BinOp::Shl | BinOp::ShrU | BinOp::ShrS => true,
            BinOp::Add
            | BinOp::Sub
            | BinOp::Mul
            | BinOp::Div
            | BinOp::Rem
            | BinOp::Max(_)
            | BinOp::Min(_)
            | BinOp::And
            | BinOp::Or
            | BinOp::Xor
            | BinOp::DivFull
            | BinOp::MulHiU => false,
        }
    }
}

/// Comparison predicates of [`Inst::Setp`]: signed for integers; for floats `Lt..Ge`,
/// `Eq` are ordered (false when an operand is NaN) and `Ne` is unordered (true when an
/// operand is NaN), like C and Triton.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Cmp {
    Lt,
    Le,
    Gt,
    Ge,
    Eq,
    Ne,
}

/// A guard on an instruction: it executes only when the predicate register is true
/// (or false, with `negate`). A guarded-off load leaves its destinations unchanged.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Guard {
    pub pred: Reg,
    pub negate: bool,
}

/// What an [`Inst::Tma`] does. Shared addresses are `I32` registers; an mbarrier is 8
/// bytes of shared memory, 8-aligned.
#[derive(Clone, Debug, PartialEq)]
pub enum TmaOp {
    /// `mbarrier.init.shared::cta.b64 [bar], count`: phase 0 begins, expecting `count`
    /// arrivals.
    Init { bar: Reg, count: u32 },
    /// `fence.mbarrier_init.release.cluster`: the inits before it are visible to the
    /// tensor copies' completions (then a barrier makes them visible to every thread).
    FenceInit,
    /// `mbarrier.arrive.expect_tx.shared::cta.b64 _, [bar], bytes`: one arrival, and the
    /// current phase also waits for `bytes` more bytes of copies to complete.
    ArriveExpectTx { bar: Reg, bytes: u32 },
    /// `cp.async.bulk.tensor.{n}d.shared::cluster.global.tile.mbarrier::complete_tx::bytes
    /// [dst], [map_addr, {coords}], [bar]`: copies the box of tensor map `map`
    /// ([`Program::tensor_maps`], whose parameter's generic address `map_addr` holds) at
    /// `coords` (`I32`, innermost dim first) to shared `dst`, swizzled as the map says,
    /// elements outside the tensor as zeros; its bytes complete on `bar`'s current phase.
    /// The shared bytes are undefined until a wait observes that phase.
    Load { dst: Reg, map: u32, map_addr: Reg, coords: Vec<Operand>, bar: Reg },
    /// Waits (a `mbarrier.try_wait.parity` loop) until the phase of `bar` with parity
    /// `parity` (an `I32` register, 0 or 1) has completed: the current phase if its parity
    /// is `parity`, else the one before it, which has.
    Wait { bar: Reg, parity: Reg },
    /// `cvta.param.u64 dst, <parameter of tensor map map>`: the map's generic address.
    MapAddr { dst: Reg, map: u32 },
    /// `cp.async.bulk.tensor.{n}d.global.shared::cta.bulk_group [map_addr, {coords}],
    /// [src]`: copies the box of tensor map `map` at `coords` (`I32`, innermost dim first)
    /// from shared `src` (swizzled as the map says) to global memory, writing nothing
    /// outside the tensor. It reads `src` until a [`TmaOp::StoreWaitRead`] of the issuing
    /// thread covers its bulk group, and the writers of `src` must have fenced their
    /// writes for the async proxy (`fence.proxy.async`) and synchronized with the issuer.
    Store { src: Reg, map: u32, map_addr: Reg, coords: Vec<Operand> },
    /// `cp.async.bulk.commit_group`: the thread's bulk stores since the last commit form
    /// a group.
    StoreCommit,
    /// `cp.async.bulk.wait_group.read pending`: waits until at most `pending` of the
    /// thread's bulk groups still read their shared memory.
    StoreWaitRead { pending: u32 },
}

impl TmaOp {
    /// The registers the instruction reads.
    pub fn uses(&self) -> Vec<Reg> {
        let ops = |o: &[Operand]| -> Vec<Reg> {
            o.iter().filter_map(|o| if let Operand::Reg(r) = o { Some(*r) } else { None }).collect()
        };
        match self {
            TmaOp::Init { bar, .. } | TmaOp::ArriveExpectTx { bar, .. } => vec![*bar],
            TmaOp::FenceInit | TmaOp::MapAddr { .. } | TmaOp::StoreCommit | TmaOp::StoreWaitRead { .. } => Vec::new(),
            TmaOp::Store { src, map_addr, coords, .. } => {
                let mut v = vec![*src, *map_addr];
                v.extend(ops(coords));
                v
            }
            TmaOp::Load { dst, map_addr, coords, bar, .. } => {
                let mut v = vec![*dst, *map_addr, *bar];
                v.extend(ops(coords));
                v
            }
            TmaOp::Wait { bar, parity } => vec![*bar, *parity],
        }
    }
}

/// Where a [`Inst::Wgmma`]'s `A` is.
#[derive(Clone, Debug, PartialEq)]
pub enum WgmmaA {
    /// Each warp's `m16n8k16` fragment of its 16 rows (4 `U32`), as [`Inst::Mma`]'s `a`.
    Regs(Vec<Reg>),
    /// Shared memory, through a matrix descriptor (`I64`) of the 64 x 16 tile held
    /// `K`-major (`[64, 16]` rows), as `B`'s.
    Desc(Reg),
}

impl WgmmaA {
    /// The registers the instruction reads for `A`.
    pub fn regs(&self) -> Vec<Reg> {
        match self {
            WgmmaA::Regs(a) => a.clone(),
            WgmmaA::Desc(a) => vec![*a],
        }
    }
}

/// A thread-level instruction. Each variant documents its exact semantics.
#[derive(Clone, Debug, PartialEq)]
pub enum Inst {
    /// No effect: heads the instructions lowered from one block-IR op (see [`Group`]); the
    /// writer prints it as a `//` comment.
    Group(Group),
    /// `dst = argument number param` of the launch (the raw bits: an address for pointer
    /// parameters, the value for ints and floats). `dst`'s type is the parameter's.
    LdParam { dst: Reg, param: usize },
    /// `dst = src`: converts a generic address to a global one (`cvta.to.global.u64`);
    /// identity on the simulator's flat address space. Both `I64`.
    CvtaGlobal { dst: Reg, src: Reg },
    /// `dst = ` the special register, zero-extended into the `I32` register `dst`.
    ReadSpecial { dst: Reg, sreg: Special },
    /// `dst = src` (type `ty`). `dst` and a register `src` may be of two classes of one
    /// size (`I32` and `F32`): the bits are copied (`mov.b32 %r1, %f1`).
    Mov { ty: Ty, dst: Reg, src: Operand },
    /// `dst = a op b` in type `ty` (see [`BinOp`]).
    Bin { op: BinOp, ty: Ty, dst: Reg, a: Operand, b: Operand },
    /// `dst = op src` in type `ty`, element by element with the semantics of the block-IR
    /// [`UnaryOp`] (`crate::semantics::scalar::unary_f32` / `unary_int`, which the simulator
    /// runs too).
    Unary { op: UnaryOp, ty: Ty, dst: Reg, src: Reg },
    /// `dst = a * b + c` rounded once (`fma.rn`), `ty` `F32`:
    /// `crate::semantics::math::fma_f32`.
    Fma { ty: Ty, dst: Reg, a: Operand, b: Operand, c: Operand },
    /// `dst = !src` on predicates.
    Not { dst: Reg, src: Reg },
    /// `dst (I64) = sext(a) * sext(b)` of two `I32` operands: the full 64-bit product
    /// (`mul.wide.s32`).
    MulWide { dst: Reg, a: Operand, b: Operand },
    /// Conversion `from -> to` of the values the registers hold, with the rules of
    /// `crate::semantics::convert::convert` (the simulator calls it): int to int wraps to
    /// the target and extends by the source's signedness; int to float rounds to nearest
    /// even; float to int truncates toward zero, saturates at the target's range, NaN
    /// gives 0; float to float rounds to nearest even (NaN: see `convert`). `BF16 -> F32`
    /// is never emitted (it is a [`Inst::Pack`]), nor `F16`/`BF16` with anything but `F32`.
    Cvt { dst: Reg, to: Ty, src: Reg, from: Ty },
    /// `dst (32 bits) = hi << 16 | lo` of two 16-bit registers (`mov.b32 d, {lo, hi}`):
    /// how a `BF16` becomes an `F32` on every target (`cvt.f32.bf16` needs sm_90).
    Pack { dst: Reg, lo: Reg, hi: Reg },
    /// `cvt.rn.satfinite.{e4m3x2,e5m2x2}.f32 dst, hi, lo` (sm_89): the `F32` registers `hi` and
    /// `lo` encoded in `format` (`crate::semantics::fp8::encode_f32`: round to nearest even,
    /// saturate to the largest finite, NaN to `0x7F`), `hi`'s code in the high byte of the
    /// 16-bit register `dst`, `lo`'s in the low byte.
    CvtF32x2ToFp8x2 { format: Fp8Format, dst: Reg, hi: Reg, lo: Reg },
    /// `cvt.rn.f16x2.{e4m3x2,e5m2x2} dst, src` (sm_89): the two codes of the 16-bit register
    /// `src` decoded to f16 (`crate::semantics::fp8::decode_to_f16_bits`, exact), the low
    /// byte's into the low half of the 32-bit register `dst`, the high byte's into the high
    /// half.
    CvtFp8x2ToF16x2 { format: Fp8Format, dst: Reg, src: Reg },
    /// `{lo, hi} = src`: the low and the high 16 bits of the 32-bit register `src` into two
    /// 16-bit registers (`mov.b32 {lo, hi}, src`), [`Inst::Pack`]'s inverse: how eight
    /// `F16`/`BF16` elements come out of one 16-byte load of four 32-bit words.
    Unpack { lo: Reg, hi: Reg, src: Reg },
    /// `dst (Pred) = a cmp b` in type `ty` (see [`Cmp`]).
    Setp { cmp: Cmp, ty: Ty, dst: Reg, a: Operand, b: Operand },
    /// `dst = cond ? a : b` in type `ty` (`cond` a predicate register).
    Selp { ty: Ty, dst: Reg, a: Operand, b: Operand, cond: Reg },
    /// Global load of `dsts.len()` (1, 2 or 4) consecutive elements of type `ty` from byte
    /// address `addr + offset`: `dsts[i] = mem[addr + offset + i * size(ty)]`. The address
    /// is aligned to `dsts.len() * size(ty)` bytes (the lowering proves it; a simulator
    /// should report a misaligned access as an error, the GPU may fault). When `guard`
    /// is false nothing is read and `dsts` keep their values (the lowering sets them to the
    /// load's `other` first). `non_coherent`: the read-only path (`ld.global.nc`), same
    /// result.
    LdGlobal { guard: Option<Guard>, ty: Ty, dsts: Vec<Reg>, addr: Reg, offset: i64, non_coherent: bool },
    /// Global store of `srcs.len()` (1, 2 or 4) consecutive elements, alignment as for
    /// [`Inst::LdGlobal`]; nothing is written when `guard` is false. Visible to other
    /// threads after the kernel ends (no ordering with other threads during it).
    StGlobal { guard: Option<Guard>, ty: Ty, srcs: Vec<Reg>, addr: Reg, offset: i64 },
    /// Global atomic (`atom{.sem}{.scope}.global.op.type`): when `guard` holds, in one
    /// indivisible step `dst = mem[addr]` and `mem[addr] = ` the new value
    /// ([`crate::semantics::atomic::rmw_bits`] of the kind and `src`, or for [`AtomOp::Cas`]
    /// `src` when the old bits equal `cmp`'s, [`crate::semantics::atomic::cas_bits`]). One
    /// element of `size(ty)` bytes, aligned to it. When `guard` is false nothing is
    /// accessed and `dst` keeps its value. `ty` is the register class of `dst`, `src` and
    /// `cmp`: `I32` or `F32` for 32-bit elements (integer kinds take `I32` registers), `I64`.
    /// `sem` orders the thread's other accesses around it; `scope` says which threads it is
    /// atomic with (`cta`: only its own CTA's).
    Atom { guard: Option<Guard>, op: AtomOp, ty: Ty, sem: Sem, scope: Scope, dst: Reg, addr: Reg, src: Reg },
    /// `dst (I32) = ` the address of the CTA's shared buffer (0 on the simulator).
    SharedBase { dst: Reg },
    /// `dst = shared[addr + offset]` (`addr` an `I32` byte address in the shared window,
    /// aligned to `size(ty)`).
    LdShared { ty: Ty, dst: Reg, addr: Reg, offset: u32 },
    /// `shared[addr + offset] = src` when `guard` holds. Other threads see it after the
    /// next [`Inst::BarSync`].
    StShared { guard: Option<Guard>, ty: Ty, src: Reg, addr: Reg, offset: u32 },
    /// `shared[addr + offset + i * size(ty)] = srcs[i]` for `srcs.len()` (2 or 4)
    /// consecutive elements (`st.shared.v4`) when `guard` holds, the address aligned to
    /// `srcs.len() * size(ty)`: the vector form of [`Inst::StShared`] (a `dot`'s operands
    /// are staged 16 bytes at a time).
    StSharedVec { guard: Option<Guard>, ty: Ty, srcs: Vec<Reg>, addr: Reg, offset: u32 },
    /// `dsts[i] = shared[addr + offset + i * size(ty)]` for `dsts.len()` (2 or 4)
    /// consecutive elements (`ld.shared.v4`), the address aligned to `dsts.len() *
    /// size(ty)`: how a staged load's 16-byte slot is read back.
    LdSharedVec { ty: Ty, dsts: Vec<Reg>, addr: Reg, offset: u32 },
    /// `cp.async.cg.shared.global [dst + offset], [src], 16, src_size`: starts this
    /// thread's asynchronous copy of 16 bytes into the shared window at `dst + offset` (an
    /// `I32` address) from the global address `src` (`I64`), both 16-byte aligned. The
    /// first `src_size` bytes (an `I32` operand, 0 or 16) come from global memory and the
    /// rest are zeros: with 0 nothing is read, so a masked-off vector's address is never
    /// accessed. The copy belongs to the thread's open group (closed by
    /// [`Inst::CpAsyncCommit`]); the 16 shared bytes are undefined, and must not be read or
    /// written by any thread, until a [`Inst::CpAsyncWait`] of this thread covers that
    /// group (the simulator reports an access before it). Only threads whose `guard` holds
    /// copy (a staging ring's tile in a layout that replicates it is copied by its
    /// owners). Needs sm_80.
    CpAsync { guard: Option<Guard>, dst: Reg, offset: u32, src: Reg, src_size: Operand },
    /// `cp.async.commit_group`: closes this thread's open group of [`Inst::CpAsync`]s.
    CpAsyncCommit,
    /// `cp.async.wait_group pending`: waits until at most `pending` of this thread's most
    /// recently committed groups are unfinished. The copies of every older group have then
    /// written shared memory, and the writes are visible to this thread (to others after a
    /// [`Inst::BarSync`]).
    CpAsyncWait { pending: u32 },
    /// Butterfly shuffle within a warp (`shfl.sync.bfly.b32 dst, src, lane_mask, clamp,
    /// member_mask`): every lane `l` of the warp gets `dst = src` *of lane*
    /// `l ^ lane_mask`, the value that lane had before the instruction. `clamp` is `0x1f`
    /// and `member_mask` is `0xffffffff`: all 32 lanes take part, and all 32 execute it
    /// together. `ty` is `F32` or `I32` (32-bit payload).
    Shfl { ty: Ty, dst: Reg, src: Reg, lane_mask: u32, clamp: u32, member_mask: u32 },
    /// `{lo, hi} = src`: the low and the high 32 bits of the 64-bit register `src` (of type
    /// `ty`, `I64` or a 64-bit float) into two `I32` registers (`mov.b64 {lo, hi}, src`).
    /// How a 64-bit value crosses a 32-bit shuffle.
    Unpack64 { ty: Ty, lo: Reg, hi: Reg, src: Reg },
    /// `dst = hi << 32 | lo` (`mov.b64 dst, {lo, hi}`): [`Inst::Unpack64`]'s inverse.
    Pack64 { ty: Ty, dst: Reg, lo: Reg, hi: Reg },
    /// `ldmatrix.sync.aligned.m8n8.x{n}{.trans}.shared.b16` with `n = dsts.len()` (1, 2 or
    /// 4): a warp-collective load of `n` 8x8 matrices of 16-bit elements from shared memory.
    /// Lane `8 i + r` gives, in `addr + offset` (an `I32` shared address, 16-byte aligned),
    /// the address of row `r` of matrix `i`: 8 consecutive elements (lanes past `8 n` give
    /// none). Every lane `l` receives in `dsts[i]` (a `U32` register, first element in the
    /// low half) elements `(l / 4, 2 (l % 4))` and `(l / 4, 2 (l % 4) + 1)` of matrix `i`,
    /// or with `trans` elements `(2 (l % 4), l / 4)` and `(2 (l % 4) + 1, l / 4)`. All 32
    /// lanes execute it together; the rows must have been written before (a barrier after
    /// other threads' stores). Needs sm_75.
    Ldmatrix { trans: bool, dsts: Vec<Reg>, addr: Reg, offset: u32 },
    /// `mma.sync.aligned.{m16n8k16|m16n8k8|m16n8k32}.row.col.{f32|s32}.{in}.{in}.{f32|s32}
    /// d, a, b, c`: a warp-collective `D = A B + C` of a 16 x k tile `A` by a k x 8 tile `B`
    /// on tensor cores, `in` and the shape given by `input`. Every lane holds its fragments
    /// as the PTX ISA's tables for the shape place them ("Matrix Fragments for mma.m16n8k16",
    /// "... m16n8k8", "... m16n8k32"), with `g = lane / 4`, `t = lane % 4`:
    /// - `c` and `d` (4 `F32`, or `I32` for `S8`): `(g, 2t)`, `(g, 2t + 1)`, `(g + 8, 2t)`,
    ///   `(g + 8, 2t + 1)`;
    /// - `a` (4 `U32`) and `b` (2 `U32`), packed little-end first:
    ///   - `F16`/`BF16` (k = 16): `a[0]` = row `g`, cols `2t, 2t + 1`; `a[1]` row `g + 8`;
    ///     `a[2]`, `a[3]` the same at cols `+ 8`; `b[0]` = rows `2t, 2t + 1`, col `g`;
    ///     `b[1]` rows `+ 8`;
    ///   - `Tf32` (k = 8, one element a register, already rounded by [`Inst::CvtTf32`]):
    ///     `a` = `(g, t)`, `(g + 8, t)`, `(g, t + 4)`, `(g + 8, t + 4)`; `b` = `(t, g)`,
    ///     `(t + 4, g)`;
    ///   - `S8` (k = 32, four elements a register): `a[0]` = row `g`, cols `4t..4t + 4`;
    ///     `a[1]` row `g + 8`; `a[2]`, `a[3]` the same at cols `+ 16`; `b[0]` = rows
    ///     `4t..4t + 4`, col `g`; `b[1]` rows `+ 16`.
    ///
    /// Products are exact; how the sums round is the hardware's (`docs/semantics.md`,
    /// "dot": the simulator adds them in `k` order with one rounding each, as the
    /// interpreter does). All 32 lanes execute it together. Needs sm_80.
    Mma { input: MmaInput, d: Vec<Reg>, a: Vec<Reg>, b: Vec<Reg>, c: Vec<Reg> },
    /// `wgmma.fence.sync.aligned`: orders this warpgroup's earlier register writes (of
    /// the accumulators and of `a`'s fragments) before the [`Inst::Wgmma`]s after it read
    /// them. All 128 threads of the warpgroup execute it together. Needs sm_90a.
    WgmmaFence,
    /// `wgmma.mma_async.sync.aligned.m64n{n}k16.f32.{in}.{in} {d}, {a}, b_desc, 1, 1, 1,
    /// [0,] trans_b`: a warpgroup-collective `D = A B + D` of a 64 x 16 tile `A` by a 16 x
    /// `n` tile `B`, issued asynchronously. Warp `w % 4` of the warpgroup holds rows `16 (w
    /// % 4) ..` of `D`, per 8-column tile `j` as [`Inst::Mma`]'s `m16n8k16` places its
    /// `c`/`d` (`d[4 j .. 4 j + 4]`, `F32`); `A` is in registers the same way or in shared
    /// memory ([`WgmmaA`]). `B` is read from shared memory through the matrix descriptor
    /// `b_desc` (`I64`: the PTX ISA's "Matrix Descriptor Format": start address, leading
    /// and stride byte offsets, swizzle mode), `K`-major (`trans_b` false, the tile held
    /// `[n, 16]`) or `N`-major (true, held `[16, n]`). `d` is undefined until a
    /// [`Inst::WgmmaWait`] covers the group the instruction is committed in, and the shared
    /// bytes it reads must not be written until then. Needs sm_90a.
    Wgmma { input: MmaInput, n: u32, d: Vec<Reg>, a: WgmmaA, b_desc: Reg, trans_b: bool },
    /// `wgmma.commit_group.sync.aligned`: closes the warpgroup's open group of
    /// [`Inst::Wgmma`]s.
    WgmmaCommit,
    /// `wgmma.wait_group.sync.aligned pending`: waits until at most `pending` of the
    /// warpgroup's most recently committed groups are unfinished; the older groups'
    /// accumulators are then written and their shared reads done.
    WgmmaWait { pending: u32 },
    /// `fence.proxy.async.shared::cta`: this thread's earlier writes to shared memory
    /// (stores and completed `cp.async` copies, the generic proxy) are ordered before
    /// later reads of the async proxy (`wgmma`'s operands), once a barrier has passed
    /// them to the warpgroup. Needs sm_90.
    FenceProxyAsync,
    /// `cvt.rna.tf32.f32 dst, src`: `src` (`F32`) rounded to tf32, nearest with ties away
    /// from zero (`crate::semantics::convert::f32_to_tf32_rna`), into the `U32` register
    /// `dst` as the f32 bit pattern with the low 13 bits zero.
    CvtTf32 { dst: Reg, src: Reg },
    /// CUDA's assert system call, `__assertfail(message, file, line, function, 1)`, in
    /// the threads where `guard` holds: the driver prints `file:line: function: block:
    /// [x,y,z], thread: [x,y,z] Assertion `message` failed.` on standard error and the
    /// launch fails (`CUDA_ERROR_ASSERT`, the context is lost); on the simulator a located
    /// error. What a `device_assert` compiled in debug mode lowers to, `guard` true where
    /// an element of its condition the thread holds is false.
    AssertFail { guard: Guard, message: String, file: String, line: u32, function: String },
    /// CUDA's printf system call, `vprintf(format, buffer)`, in the threads where `guard`
    /// holds: the thread packs `args` into a local buffer by the CUDA printf ABI
    /// ([`crate::semantics::printf::pack`]; a 32-bit integer register as 4 bytes, an `I64`,
    /// `U64` or `F64` one as 8, each at a multiple of its size) and the driver prints
    /// `format` with them and a newline on the process's standard output when the host
    /// next synchronizes ([`crate::semantics::printf::format`], which the simulator runs
    /// and prints through [`crate::print_sink`]). `format` holds no newline and its
    /// conversions match `args` one for one. What a `device_print` compiled in debug mode
    /// lowers to, one call an element.
    Printf { guard: Option<Guard>, format: String, args: Vec<Reg> },
    /// Inline PTX (`inline_asm_elementwise`): the writer prints `asm` inside `{ }` with
    /// every `$k` replaced by `outputs[k]` (`k < outputs.len()`), else by
    /// `inputs[k - outputs.len()]`, registers of the classes the constraints name (`c` and
    /// `h` 16-bit, `r` `U32`, `f` `F32`, `l` `U64`, `d` `F64`). Its semantics are the
    /// author's; the simulator runs `model` instead (a thread's input registers' low
    /// `bits` bits in, its output registers' low `bits` bits out, the rest zero) and
    /// refuses an asm without one. `pure`: no effect but its outputs, so an unused one may
    /// be dropped; an impure one is kept where it is.
    InlineAsm { asm: String, outputs: Vec<AsmOperand>, inputs: Vec<AsmOperand>, pure: bool, model: Option<AsmModel> },
    /// `bar.sync id`: waits until every thread of the CTA reached it; shared-memory
    /// writes before it are visible to every thread after it.
    BarSync { id: u32 },
    /// A tensor copy (TMA) or mbarrier instruction ([`TmaOp`]), by the threads whose
    /// `guard` holds (one thread issues a copy; every thread waits). Needs sm_90.
    Tma { guard: Option<Guard>, op: TmaOp },
    /// A counted loop with uniform bounds (type `ty`, `I32` or `I64`, signed). It runs
    /// the body for `iv = lower, lower + step, ...` while `iv < upper`, with the trip count
    /// computed exactly, so `iv` never wraps:
    /// ```text
    /// if step <= 0 { abort the launch }             // PTX `trap`; an error on the simulator
    /// trips = upper > lower ? (upper - lower - 1) / step + 1 : 0   // exact (64-bit unsigned)
    /// iv = lower
    /// repeat trips times { body; iv = iv + step }
    /// ```
    /// `lower`, `upper`, `step` are read once, before the first iteration. Loop-carried
    /// values are registers initialised before the loop and overwritten by `body` (the
    /// body ends with `Mov`s of the next values); after the loop they hold the last values.
    Loop { ty: Ty, iv: Reg, lower: Operand, upper: Operand, step: Operand, body: Vec<Inst> },
    /// A uniform two-way branch: `if cond { then_body } else { else_body }`. `cond` is a
    /// `Pred` register with one value in every thread of the CTA (the uniformity invariant
    /// above), so the writer branches with `bra.uni`. Values the branch hands out are
    /// registers both bodies write (each ends with `Mov`s into them).
    If { cond: Reg, then_body: Vec<Inst>, else_body: Vec<Inst> },
    /// A uniform loop with its test at the top: `loop { before; if !cond { break } after }`.
    /// `cond` (a `Pred` register `before` writes) is uniform across the CTA. Carried values
    /// are registers written before the loop and by `after` (as for [`Inst::Loop`]); the
    /// condition reads them in `before`. A loop that never ends does not end.
    While { before: Vec<Inst>, cond: Reg, after: Vec<Inst> },
}

impl Inst {
    /// The instruction lists nested in this one, in program order: a loop's body, an if's
    /// then and else bodies, a while's condition and body (empty for the others).
    pub fn bodies(&self) -> Vec<&Vec<Inst>> {
        match self {
            Inst::Loop { body, .. } => vec![body],
            Inst::If { then_body, else_body, .. } => vec![then_body, else_body],
            Inst::While { before, after, .. } => vec![before, after],
            Inst::Group(_)
            | Inst::LdParam { .. }
            | Inst::CvtaGlobal { .. }
            | Inst::ReadSpecial { .. }
            | Inst::Mov { .. }
            | Inst::Bin { .. }
            | Inst::Fma { .. }
            | Inst::Unary { .. }
            | Inst::Not { .. }
            | Inst::MulWide { .. }
            | Inst::Cvt { .. }
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
            | Inst::Pack64 { .. }
            | Inst::Pack { .. }
            | Inst::Unpack { .. }
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
            | Inst::BarSync { .. } => Vec::new(),
        }
    }

    /// [`Inst::bodies`], mutably.
    pub fn bodies_mut(&mut self) -> Vec<&mut Vec<Inst>> {
        match self {
            Inst::Loop { body, .. } => vec![body],
            Inst::If { then_body, else_body, .. } => vec![then_body, else_body],
            Inst::While { before, after, .. } => vec![before, after],
            Inst::Group(_)
            | Inst::LdParam { .. }
            | Inst::CvtaGlobal { .. }
            | Inst::ReadSpecial { .. }
            | Inst::Mov { .. }
            | Inst::Bin { .. }
            | Inst::Fma { .. }
            | Inst::Unary { .. }
            | Inst::Not { .. }
            | Inst::MulWide { .. }
            | Inst::Cvt { .. }
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
            | Inst::Pack64 { .. }
            | Inst::Pack { .. }
            | Inst::Unpack { .. }
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
            | Inst::BarSync { .. } => Vec::new(),
        }
    }
}

/// One register operand of an [`Inst::InlineAsm`]: the register and how many of its low
/// bits carry the operand (8 for a `c` operand in a 16-bit register).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AsmOperand {
    pub reg: Reg,
    pub bits: u32,
}

/// What an [`Inst::Atom`] does with the old element.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum AtomOp {
    /// A read-modify-write of this kind.
    Rmw(AtomKind),
    /// Compare and swap: store `src` when the old bits equal `cmp`'s.
    Cas { cmp: Reg },
}

/// The marker above each group of instructions the lowering emits for one block-IR op:
/// what the op is and where its author wrote it. Errors about an instruction (the
/// simulator's) name the group's op and location; the writers print it as
/// `op  file:line` (two spaces before the location).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Group {
    /// The op, its type and layout: `%9 = load : tensor<16xf32> #blocked (1 per thread)`,
    /// or what the group does when the lowering adds it (`thread position: ...`).
    pub op: String,
    /// The op's source location; `None` for groups the lowering adds itself.
    pub loc: Option<SourceLoc>,
}

impl Group {
    /// A group of instructions lowered from the op written at `loc`.
    pub fn at(op: impl Into<String>, loc: SourceLoc) -> Group {
        Group { op: op.into(), loc: Some(loc) }
    }

    /// A group the lowering adds with no op of its own.
    pub fn synthetic(op: impl Into<String>) -> Group {
        Group { op: op.into(), loc: None }
    }
}

impl fmt::Display for Group {
    /// `op  file:line`, or `op` without a location.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.op)?;
        if let Some(loc) = &self.loc {
            write!(f, "  {}", loc.short())?;
        }
        Ok(())
    }
}

/// A runtime parameter of the entry, in declaration order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Param {
    pub name: String,
    pub kind: ParamTy,
}

/// How a parameter is passed (`.param` type).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ParamTy {
    /// `.u64`: a global-memory address (register type `I64`).
    Ptr,
    /// `.s32` (register type `I32`).
    I32,
    /// `.s64` (register type `I64`).
    I64,
    /// `.f32` (register type `F32`).
    F32,
}

/// A human-readable record of one block value's layout (for readers and golden files).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LayoutNote {
    /// The block-IR value, `%12`.
    pub value: String,
    /// Its type, `tensor<1024xf32>`.
    pub ty: String,
    /// The layout, e.g. `blocked{spt=[4], tpw=[32], wpc=[4], order=[0]}` or
    /// `slice{dim=1, parent=...}`, and how many registers each thread holds.
    pub layout: String,
    pub regs_per_thread: usize,
}

/// One lowered kernel: everything the writer prints and the simulator runs.
#[derive(Clone, Debug, PartialEq)]
pub struct Program {
    /// The entry name (the kernel's name).
    pub entry: String,
    /// Every runtime parameter, folded ones included (the host passes every argument;
    /// unlike Triton, whose compiled signature drops arguments specialized to constants).
    pub params: Vec<Param>,
    /// `.target` (`sm_86`...).
    pub target: String,
    /// `.version` (major, minor).
    pub ptx_version: (u32, u32),
    /// `num_warps * 32`, printed as `.maxntid`.
    pub threads_per_cta: u32,
    /// [`super::PtxOptions::min_ctas_per_sm`], printed as `.minnctapersm` when not 0.
    pub min_ctas_per_sm: u32,
    /// Bytes of the CTA's shared buffer (0: none is declared). 16-byte aligned. Past
    /// [`super::MAX_STATIC_SHARED_BYTES`] the writer declares it dynamic.
    pub shared_bytes: u32,
    /// The shared buffer's alignment in bytes: 16, or 1024 where swizzled ring slots rely
    /// on their addresses' bits (`lower/swizzle.rs`).
    pub shared_align: u32,
    /// The op whose shared buffer raised [`Program::shared_bytes`] last (a staged load;
    /// `None` when only the shared scratch is used).
    pub shared_site: Option<SourceLoc>,
    /// The type of every register, indexed by [`Reg`].
    pub regs: Vec<Ty>,
    pub body: Vec<Inst>,
    /// Where each tensor value's elements live (documentation; see [`LayoutNote`]).
    pub layouts: Vec<LayoutNote>,
    /// Lines the writer prints as comments above the entry (kernel, specialization,
    /// the blocked layout).
    pub header: Vec<String>,
    /// The vectorization and reduction decisions the lowering made.
    pub decisions: super::Decisions,
    /// The tensor maps its tensor copies read ([`TmaOp::Load`]), passed after `params`
    /// as 128-byte parameters the host encodes (`tensor_map.rs`).
    pub tensor_maps: Vec<super::tensor_map::TensorMap>,
}

impl Program {
    pub fn ty(&self, r: Reg) -> Ty {
        self.regs[r.index()]
    }

    /// Every instruction, nested bodies included, in program order (for tests and tools).
    pub fn walk(&self) -> Vec<&Inst> {
        fn go<'a>(insts: &'a [Inst], out: &mut Vec<&'a Inst>) {
            for i in insts {
                out.push(i);
                for body in i.bodies() {
                    go(body, out);
                }
            }
        }
        let mut out = Vec::new();
        go(&self.body, &mut out);
        out
    }
}

impl fmt::Display for Reg {
    /// `v7`: the register's number only (the writer prints `%r7`, `%f7`... by type).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "v{}", self.0)
    }
}

impl fmt::Display for Ty {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Ty::Pred => "pred",
            Ty::I32 => "i32",
            Ty::I64 => "i64",
            Ty::F32 => "f32",
            Ty::U32 => "u32",
            Ty::U64 => "u64",
            Ty::F64 => "f64",
            Ty::F16 => "f16",
            Ty::BF16 => "bf16",
            Ty::S8 => "s8",
            Ty::U8 => "u8",
            Ty::S16 => "s16",
        })
    }
}

impl fmt::Display for Operand {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Operand::Reg(r) => write!(f, "{r}"),
            Operand::Int(v) => write!(f, "{v}"),
            Operand::F32(x) => write!(f, "{x:?}f32"),
            Operand::F64(x) => write!(f, "{x:?}f64"),
        }
    }
}

impl fmt::Display for Program {
    /// The lowered form as text, one instruction per line, loops as indented blocks:
    /// `v12:i32 = add v10, 4`, `@v7 v20:f32 x4 = ld.global [v30+0]`. For reading and
    /// debugging; the PTX writer is the one that is checked by ptxas.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let params: Vec<String> = self.params.iter().map(|p| format!("{}: {:?}", p.name, p.kind)).collect();
        writeln!(
            f,
            "lir {}({}) threads={} shared={}B target={}",
            self.entry,
            params.join(", "),
            self.threads_per_cta,
            self.shared_bytes,
            self.target
        )?;
        for n in &self.layouts {
            writeln!(f, "  ; {} {} {} ({} per thread)", n.value, n.ty, n.layout, n.regs_per_thread)?;
        }
        self.print_insts(f, &self.body, 1)
    }
}

impl Program {
    fn def(&self, r: Reg) -> String {
        format!("{r}:{}", self.ty(r))
    }

    fn print_insts(&self, f: &mut fmt::Formatter<'_>, insts: &[Inst], depth: usize) -> fmt::Result {
        let pad = "  ".repeat(depth);
        let guard = |g: &Option<Guard>| match g {
            Some(g) => format!("@{}{} ", if g.negate { "!" } else { "" }, g.pred),
            None => String::new(),
        };
        let list = |rs: &[Reg]| rs.iter().map(|r| r.to_string()).collect::<Vec<_>>().join(", ");
        for i in insts {
            let line = match i {
                Inst::Group(g) => format!("; {g}"),
                Inst::Tma { guard: g, op } => format!("{}tma {op:?}", guard(g)),
                Inst::LdParam { dst, param } => format!("{} = param {}", self.def(*dst), self.params[*param].name),
                Inst::CvtaGlobal { dst, src } => format!("{} = cvta.global {src}", self.def(*dst)),
                Inst::ReadSpecial { dst, sreg } => format!("{} = special {sreg:?}", self.def(*dst)),
                Inst::Mov { dst, src, .. } => format!("{} = {src}", self.def(*dst)),
                Inst::Bin { op, dst, a, b, .. } => format!("{} = {op:?} {a}, {b}", self.def(*dst)),
                Inst::Unary { op, dst, src, .. } => format!("{} = {} {src}", self.def(*dst), op.name()),
                Inst::Fma { dst, a, b, c, .. } => format!("{} = fma {a}, {b}, {c}", self.def(*dst)),
                Inst::Not { dst, src } => format!("{} = not {src}", self.def(*dst)),
                Inst::MulWide { dst, a, b } => format!("{} = mul.wide {a}, {b}", self.def(*dst)),
                Inst::Cvt { dst, src, from, .. } => format!("{} = cvt {src}:{from}", self.def(*dst)),
                Inst::Pack { dst, lo, hi } => format!("{} = pack {lo}, {hi}", self.def(*dst)),
                Inst::CvtF32x2ToFp8x2 { format, dst, hi, lo } => {
                    format!("{} = cvt.{format:?}x2 {hi}, {lo}", self.def(*dst))
                }
                Inst::CvtFp8x2ToF16x2 { format, dst, src } => {
                    format!("{} = cvt.f16x2.{format:?}x2 {src}", self.def(*dst))
                }
                Inst::Unpack { lo, hi, src } => format!("{}, {} = unpack {src}", self.def(*lo), self.def(*hi)),
                Inst::Setp { cmp, ty, dst, a, b } => format!("{} = setp.{cmp:?}.{ty} {a}, {b}", self.def(*dst)),
                Inst::Selp { dst, a, b, cond, .. } => format!("{} = selp {cond} ? {a} : {b}", self.def(*dst)),
                Inst::LdGlobal { guard: g, ty, dsts, addr, offset, .. } => {
                    format!("{}{{{}}}:{ty} = ld.global x{} [{addr}+{offset}]", guard(g), list(dsts), dsts.len())
                }
                Inst::StGlobal { guard: g, ty, srcs, addr, offset } => {
                    format!("{}st.global x{} [{addr}+{offset}] <- {{{}}}:{ty}", guard(g), srcs.len(), list(srcs))
                }
                Inst::Atom { guard: g, op, ty, sem, scope, dst, addr, src } => {
                    let op = match op {
                        AtomOp::Rmw(k) => format!("{k:?} {src}"),
                        AtomOp::Cas { cmp } => format!("cas {cmp}, {src}"),
                    };
                    format!("{}{}:{ty} = atom.{sem}.{scope} [{addr}] {op}", guard(g), self.def(*dst))
                }
                Inst::SharedBase { dst } => format!("{} = shared.base", self.def(*dst)),
                Inst::LdShared { dst, addr, offset, .. } => format!("{} = ld.shared [{addr}+{offset}]", self.def(*dst)),
                Inst::StShared { guard: g, src, addr, offset, .. } => {
                    format!("{}st.shared [{addr}+{offset}] <- {src}", guard(g))
                }
                Inst::LdSharedVec { ty, dsts, addr, offset } => {
                    format!("{{{}}}:{ty} = ld.shared x{} [{addr}+{offset}]", list(dsts), dsts.len())
                }
                Inst::StSharedVec { guard: g, ty, srcs, addr, offset } => {
                    format!("{}st.shared x{} [{addr}+{offset}] <- {{{}}}:{ty}", guard(g), srcs.len(), list(srcs))
                }
                Inst::CpAsync { guard: g, dst, offset, src, src_size } => {
                    format!("{}cp.async [{dst}+{offset}] <- [{src}] 16, {src_size}", guard(g))
                }
                Inst::CpAsyncCommit => "cp.async.commit".to_string(),
                Inst::AssertFail { guard: g, message, file, line, function } => {
                    format!("{}assertfail {message:?} at {file}:{line} in {function}", guard(&Some(*g)))
                }
                Inst::Printf { guard: g, format, args } => format!("{}printf {format:?}, {}", guard(g), list(args)),
                Inst::Ldmatrix { trans, dsts, addr, offset } => {
                    let t = if *trans { ".trans" } else { "" };
                    format!("{{{}}} = ldmatrix x{}{t} [{addr}+{offset}]", list(dsts), dsts.len())
                }
                Inst::Mma { input, d, a, b, c } => {
                    format!("{{{}}} = mma.{} {{{}}}, {{{}}}, {{{}}}", list(d), input.ptx(), list(a), list(b), list(c))
                }
                Inst::WgmmaFence => "wgmma.fence".to_string(),
                Inst::Wgmma { input, n, d, a, b_desc, trans_b } => {
                    let major = if *trans_b { "n-major" } else { "k-major" };
                    let a = match a {
                        WgmmaA::Regs(a) => format!("{{{}}}", list(a)),
                        WgmmaA::Desc(a) => format!("[{a}] k-major"),
                    };
                    format!("{{{}}} += wgmma.m64n{n}k16.{} {a}, [{b_desc}] {major}", list(d), input.ptx())
                }
                Inst::WgmmaCommit => "wgmma.commit".to_string(),
                Inst::WgmmaWait { pending } => format!("wgmma.wait {pending}"),
                Inst::FenceProxyAsync => "fence.proxy.async.shared::cta".to_string(),
                Inst::CvtTf32 { dst, src } => format!("{} = cvt.rna.tf32 {src}", self.def(*dst)),
                Inst::CpAsyncWait { pending } => format!("cp.async.wait {pending}"),
                Inst::InlineAsm { asm, outputs, inputs, .. } => {
                    let regs = |os: &[AsmOperand]| os.iter().map(|o| self.def(o.reg)).collect::<Vec<_>>().join(", ");
                    format!("{{{}}} = asm {:?} ({})", regs(outputs), asm, regs(inputs))
                }
                Inst::Shfl { dst, src, lane_mask, .. } => {
                    format!("{} = shfl.bfly {src}, lane ^ {lane_mask}", self.def(*dst))
                }
                Inst::Unpack64 { lo, hi, src, .. } => format!("{}, {} = unpack64 {src}", self.def(*lo), self.def(*hi)),
                Inst::Pack64 { dst, lo, hi, .. } => format!("{} = pack64 {lo}, {hi}", self.def(*dst)),
                Inst::BarSync { id } => format!("bar.sync {id}"),
                Inst::Loop { iv, lower, upper, step, body, .. } => {
                    writeln!(f, "{pad}loop {} = {lower} .. {upper} step {step} {{", self.def(*iv))?;
                    self.print_insts(f, body, depth + 1)?;
                    writeln!(f, "{pad}}}")?;
                    continue;
                }
                Inst::If { cond, then_body, else_body } => {
                    writeln!(f, "{pad}if.uni {cond} {{")?;
                    self.print_insts(f, then_body, depth + 1)?;
                    writeln!(f, "{pad}}} else {{")?;
                    self.print_insts(f, else_body, depth + 1)?;
                    writeln!(f, "{pad}}}")?;
                    continue;
                }
                Inst::While { before, cond, after } => {
                    writeln!(f, "{pad}while.uni {{")?;
                    self.print_insts(f, before, depth + 1)?;
                    writeln!(f, "{pad}}} {cond} do {{")?;
                    self.print_insts(f, after, depth + 1)?;
                    writeln!(f, "{pad}}}")?;
                    continue;
                }
            };
            writeln!(f, "{pad}{line}")?;
        }
        Ok(())
    }
}
