//! Hand-built one-warp programs through the whole simulator (decode, execute, checks):
//! operands staged through shared memory, `ldmatrix`, `cvt.rna.tf32`, `mma.sync`, and the
//! checks an `ldmatrix` takes part in.

use half::f16;

use crate::backend::ptx::layout::MmaInput;
use crate::backend::ptx::lir::{BinOp, Cmp, Inst, Operand, Param, ParamTy, Program, Reg, Special, Ty};
use crate::interp::Memory;
use crate::semantics::convert::f32_to_tf32_rna;
use crate::sim::{Check, SimError, SimReport, run};
use crate::spec::ArgValue;

/// A one-warp program under construction.
#[derive(Default)]
struct Build {
    regs: Vec<Ty>,
    params: Vec<Param>,
    body: Vec<Inst>,
}

impl Build {
    fn reg(&mut self, ty: Ty) -> Reg {
        self.regs.push(ty);
        Reg(self.regs.len() as u32 - 1)
    }

    fn regs<const K: usize>(&mut self, ty: Ty) -> [Reg; K] {
        std::array::from_fn(|_| self.reg(ty))
    }

    fn push(&mut self, inst: Inst) {
        self.body.push(inst);
    }

    /// A pointer parameter, loaded.
    fn param(&mut self, name: &str) -> Reg {
        let dst = self.reg(Ty::I64);
        self.push(Inst::LdParam { dst, param: self.params.len() });
        self.params.push(Param { name: name.into(), kind: ParamTy::Ptr });
        dst
    }

    fn tid(&mut self) -> Reg {
        let dst = self.reg(Ty::I32);
        self.push(Inst::ReadSpecial { dst, sreg: Special::TidX });
        dst
    }

    fn bin(&mut self, op: BinOp, ty: Ty, a: impl Into<Operand>, b: impl Into<Operand>) -> Reg {
        let dst = self.reg(ty);
        self.push(Inst::Bin { op, ty, dst, a: a.into(), b: b.into() });
        dst
    }

    /// `a op b` in `I32` with an immediate `b`.
    fn imm(&mut self, op: BinOp, a: Reg, b: i64) -> Reg {
        self.bin(op, Ty::I32, a, Operand::Int(b))
    }

    /// The global address `base + off` of an `I32` byte offset.
    fn global(&mut self, base: Reg, off: Reg) -> Reg {
        let wide = self.reg(Ty::I64);
        self.push(Inst::MulWide { dst: wide, a: off.into(), b: Operand::Int(1) });
        self.bin(BinOp::Add, Ty::I64, base, wide)
    }

    fn ld_global(&mut self, ty: Ty, dsts: &[Reg], addr: Reg, offset: i64) {
        self.push(Inst::LdGlobal { guard: None, ty, dsts: dsts.to_vec(), addr, offset, non_coherent: false });
    }

    fn st_global(&mut self, ty: Ty, srcs: &[Reg], addr: Reg, offset: i64) {
        self.push(Inst::StGlobal { guard: None, ty, srcs: srcs.to_vec(), addr, offset });
    }

    fn st_shared(&mut self, src: Reg, addr: Reg, offset: u32) {
        self.push(Inst::StShared { guard: None, ty: Ty::U32, src, addr, offset });
    }

    fn ldmatrix(&mut self, trans: bool, dsts: &[Reg], addr: Reg, offset: u32) {
        self.push(Inst::Ldmatrix { trans, dsts: dsts.to_vec(), addr, offset });
    }

    fn program(self, shared_bytes: u32) -> Program {
        Program {
            entry: "tensor_core".into(),
            params: self.params,
            target: "sm_86".into(),
            ptx_version: (7, 8),
            threads_per_cta: 32,
            min_ctas_per_sm: 0,
            shared_bytes,
            shared_align: 16,
            shared_site: None,
            regs: self.regs,
            body: self.body,
            layouts: Vec::new(),
            header: Vec::new(),
            decisions: Default::default(),
            tensor_maps: Vec::new(),
        }
    }
}

/// A deterministic pseudo-random sequence in `[-1, 1)` with full f32 mantissas.
fn randoms(seed: u64, n: usize) -> Vec<f32> {
    let mut s = seed;
    (0..n)
        .map(|_| {
            s = s.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            (s >> 40) as f32 / (1u64 << 23) as f32 - 1.0
        })
        .collect()
}

fn launch(p: &Program, mem: &mut Memory, ptrs: &[u64]) -> Result<SimReport, SimError> {
    let args: Vec<ArgValue> = ptrs.iter().map(|&a| ArgValue::Ptr(a)).collect();
    run(p, [1, 1, 1], &args, mem)
}

/// `C + A B` by a triple loop, one `fma` per `k` in increasing order.
fn reference(a: &[f32], b: &[f32], c: &[f32], k: usize) -> Vec<u32> {
    let mut d = Vec::new();
    for m in 0..16 {
        for n in 0..8 {
            let mut acc = c[m * 8 + n];
            for kk in 0..k {
                acc = a[m * k + kk].mul_add(b[kk * 8 + n], acc);
            }
            d.push(acc.to_bits());
        }
    }
    d
}

/// The byte offset of `D`'s (and `C`'s) `(g, 2t)` in a row-major 16x8 f32 tile: `d[0]`,
/// `d[1]` there, `d[2]`, `d[3]` 8 rows (256 bytes) further.
fn acc_offset(k: &mut Build, tid: Reg) -> Reg {
    let g = k.imm(BinOp::ShrU, tid, 2);
    let t = k.imm(BinOp::And, tid, 3);
    let row = k.imm(BinOp::Shl, g, 5);
    let col = k.imm(BinOp::Shl, t, 3);
    k.bin(BinOp::Add, Ty::I32, row, col)
}

/// A (16x16, row-major) and B (16x8, row-major) f16 tiles staged to shared memory, A
/// read with `ldmatrix.x4`, B with `ldmatrix.x2.trans`, `D = A B + C` accumulated in
/// place into the registers `C` was loaded to.
#[test]
fn f16_tiles_through_ldmatrix_and_mma_match_the_k_ordered_reference() {
    let mut k = Build::default();
    let [pa, pb, pc, pd] = ["a", "b", "c", "d"].map(|n| k.param(n));
    let tid = k.tid();
    // A: 16 bytes a thread to shared 0..512; B: 8 bytes a thread to 512..768.
    let sa = k.imm(BinOp::Shl, tid, 4);
    let ga = k.global(pa, sa);
    let words: [Reg; 4] = k.regs(Ty::U32);
    k.ld_global(Ty::U32, &words, ga, 0);
    for (j, w) in words.iter().enumerate() {
        k.st_shared(*w, sa, 4 * j as u32);
    }
    let sb = k.imm(BinOp::Shl, tid, 3);
    let gb = k.global(pb, sb);
    let halves: [Reg; 2] = k.regs(Ty::U32);
    k.ld_global(Ty::U32, &halves, gb, 0);
    k.st_shared(halves[0], sb, 512);
    k.st_shared(halves[1], sb, 516);
    k.push(Inst::BarSync { id: 0 });
    // Lane 8 i + r gives row r + 8 (i % 2) of A from column 8 (i / 2): a[i]'s quarter.
    let r = k.imm(BinOp::And, tid, 7);
    let i = k.imm(BinOp::ShrU, tid, 3);
    let i_lo = k.imm(BinOp::And, i, 1);
    let i_hi = k.imm(BinOp::ShrU, i, 1);
    let eight = k.imm(BinOp::Shl, i_lo, 3);
    let row = k.bin(BinOp::Add, Ty::I32, r, eight);
    let row_bytes = k.imm(BinOp::Shl, row, 5);
    let col_bytes = k.imm(BinOp::Shl, i_hi, 4);
    let addr_a = k.bin(BinOp::Add, Ty::I32, row_bytes, col_bytes);
    let fa: [Reg; 4] = k.regs(Ty::U32);
    k.ldmatrix(false, &fa, addr_a, 0);
    // Lane l < 16 gives row k = l of B; lanes 16.. point past the buffer, which an .x2
    // never reads.
    let addr_b = k.imm(BinOp::Shl, tid, 4);
    let fb: [Reg; 2] = k.regs(Ty::U32);
    k.ldmatrix(true, &fb, addr_b, 512);
    let off = acc_offset(&mut k, tid);
    let gc = k.global(pc, off);
    let acc: [Reg; 4] = k.regs(Ty::F32);
    k.ld_global(Ty::F32, &acc[..2], gc, 0);
    k.ld_global(Ty::F32, &acc[2..], gc, 256);
    k.push(Inst::Mma { input: MmaInput::F16, d: acc.to_vec(), a: fa.to_vec(), b: fb.to_vec(), c: acc.to_vec() });
    let gd = k.global(pd, off);
    k.st_global(Ty::F32, &acc[..2], gd, 0);
    k.st_global(Ty::F32, &acc[2..], gd, 256);
    let p = k.program(768);

    let a: Vec<f16> = randoms(1, 256).iter().map(|x| f16::from_f32(4.0 * x)).collect();
    let b: Vec<f16> = randoms(2, 128).iter().map(|x| f16::from_f32(4.0 * x)).collect();
    let c: Vec<f32> = randoms(3, 128).iter().map(|x| 100.0 * x).collect();
    let bytes = |v: &[f16]| v.iter().flat_map(|x| x.to_le_bytes()).collect::<Vec<u8>>();
    let mut mem = Memory::new();
    let ptrs = [mem.alloc_bytes(&bytes(&a)), mem.alloc_bytes(&bytes(&b)), mem.alloc_f32(&c), mem.alloc(512)];
    let report = launch(&p, &mut mem, &ptrs).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!((report.ldmatrix, report.mma), (2, 1));
    let d: Vec<u32> = mem.read_f32(ptrs[3], 128).unwrap().iter().map(|x| x.to_bits()).collect();
    let widen = |v: &[f16]| v.iter().map(|x| x.to_f32()).collect::<Vec<f32>>();
    assert_eq!(d, reference(&widen(&a), &widen(&b), &c, 16));
}

/// f32 fragments loaded straight from global memory, rounded by `cvt.rna.tf32.f32`, into
/// an `m16n8k8` tf32 `mma` with a separate `d`.
#[test]
fn tf32_operands_are_rounded_by_cvt_and_multiplied_by_mma() {
    let mut k = Build::default();
    let [pa, pb, pd] = ["a", "b", "d"].map(|n| k.param(n));
    let tid = k.tid();
    let g = k.imm(BinOp::ShrU, tid, 2);
    let t = k.imm(BinOp::And, tid, 3);
    // A (16x8): (g, t), (g + 8, t), (g, t + 4), (g + 8, t + 4); B (8x8): (t, g), (t + 4, g).
    let (g32, t4) = (k.imm(BinOp::Shl, g, 5), k.imm(BinOp::Shl, t, 2));
    let off_a = k.bin(BinOp::Add, Ty::I32, g32, t4);
    let (t32, g4) = (k.imm(BinOp::Shl, t, 5), k.imm(BinOp::Shl, g, 2));
    let off_b = k.bin(BinOp::Add, Ty::I32, t32, g4);
    let (ga, gb) = (k.global(pa, off_a), k.global(pb, off_b));
    let af: [Reg; 4] = k.regs(Ty::F32);
    for (r, off) in af.iter().zip([0, 256, 16, 272]) {
        k.ld_global(Ty::F32, &[*r], ga, off);
    }
    let bf: [Reg; 2] = k.regs(Ty::F32);
    for (r, off) in bf.iter().zip([0, 128]) {
        k.ld_global(Ty::F32, &[*r], gb, off);
    }
    let au: [Reg; 4] = k.regs(Ty::U32);
    let bu: [Reg; 2] = k.regs(Ty::U32);
    for (dst, src) in au.iter().zip(&af).chain(bu.iter().zip(&bf)) {
        k.push(Inst::CvtTf32 { dst: *dst, src: *src });
    }
    let c: [Reg; 4] = k.regs(Ty::F32);
    for r in c {
        k.push(Inst::Mov { ty: Ty::F32, dst: r, src: Operand::F32(0.25) });
    }
    let d: [Reg; 4] = k.regs(Ty::F32);
    k.push(Inst::Mma { input: MmaInput::Tf32, d: d.to_vec(), a: au.to_vec(), b: bu.to_vec(), c: c.to_vec() });
    let off = acc_offset(&mut k, tid);
    let gd = k.global(pd, off);
    k.st_global(Ty::F32, &d[..2], gd, 0);
    k.st_global(Ty::F32, &d[2..], gd, 256);
    let p = k.program(0);

    let a = randoms(4, 128);
    let b = randoms(5, 64);
    let mut mem = Memory::new();
    let ptrs = [mem.alloc_f32(&a), mem.alloc_f32(&b), mem.alloc(512)];
    let report = launch(&p, &mut mem, &ptrs).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(report.mma, 1);
    let got: Vec<u32> = mem.read_f32(ptrs[2], 128).unwrap().iter().map(|x| x.to_bits()).collect();
    let round = |v: &[f32]| v.iter().map(|&x| f32_to_tf32_rna(x)).collect::<Vec<f32>>();
    let want = reference(&round(&a), &round(&b), &[0.25; 128], 8);
    assert_eq!(got, want);
    // The rounding shows: the unrounded operands give another result.
    assert_ne!(got, reference(&a, &b, &[0.25; 128], 8));
}

/// Every thread stores its id at `4 tid`, then (after a barrier, or without one) the warp
/// reads the 128 bytes as one 8x8 matrix, stores what each lane got to `out`, and with
/// `store_after` every thread overwrites its neighbour's word with no barrier after the
/// `ldmatrix`.
fn shared_matrix_program(barrier: bool, store_after: bool) -> Program {
    let mut k = Build::default();
    let out = k.param("out");
    let tid = k.tid();
    let slot = k.imm(BinOp::Shl, tid, 2);
    k.st_shared(tid, slot, 0);
    if barrier {
        k.push(Inst::BarSync { id: 0 });
    }
    let r = k.imm(BinOp::And, tid, 7);
    let row = k.imm(BinOp::Shl, r, 4);
    let [got] = k.regs(Ty::U32);
    k.ldmatrix(false, &[got], row, 0);
    if store_after {
        let next = k.imm(BinOp::Add, tid, 1);
        let next = k.imm(BinOp::And, next, 31);
        let next_slot = k.imm(BinOp::Shl, next, 2);
        k.st_shared(tid, next_slot, 0);
    }
    let g = k.global(out, slot);
    k.st_global(Ty::U32, &[got], g, 0);
    k.program(128)
}

#[test]
fn ldmatrix_after_the_barrier_reads_what_the_threads_stored() {
    let mut mem = Memory::new();
    let out = mem.alloc(128);
    launch(&shared_matrix_program(true, false), &mut mem, &[out]).unwrap_or_else(|e| panic!("{e}"));
    // Lane l gets row l / 4, columns 2 (l % 4) and the next: the halves of word l, which
    // thread l stored (its id in the low half, 0 in the high one).
    assert_eq!(mem.read_i32(out, 32).unwrap(), (0..32).collect::<Vec<i32>>());
}

#[test]
fn ldmatrix_of_another_threads_store_without_a_barrier_is_a_shared_race() {
    let mut mem = Memory::new();
    let out = mem.alloc(128);
    let e = launch(&shared_matrix_program(false, false), &mut mem, &[out]).unwrap_err();
    assert_eq!(e.check, Check::SharedRace, "{e}");
    // Lane 0 gives row 0, bytes 0..16; bytes 4.. are thread 1's.
    assert_eq!(e.thread, Some(0), "{e}");
    assert!(e.message.contains("thread 0 reads shared byte 4 that thread 1 wrote"), "{e}");
    assert!(e.inst.as_deref().is_some_and(|i| i.starts_with("ldmatrix.sync.aligned.m8n8.x1")), "{e}");
}

#[test]
fn a_store_over_bytes_an_ldmatrix_read_without_a_barrier_is_a_shared_race() {
    let mut mem = Memory::new();
    let out = mem.alloc(128);
    let e = launch(&shared_matrix_program(true, true), &mut mem, &[out]).unwrap_err();
    assert_eq!(e.check, Check::SharedRace, "{e}");
    assert!(e.message.contains("thread 0 writes shared byte 4 that thread"), "{e}");
}

/// Each thread copies 16 bytes of `src` to shared `16 tid` with `cp.async`, then the warp
/// reads rows 0..8 with `ldmatrix.x1.trans`, with or without waiting for the copies first.
fn async_copy_program(wait: bool) -> Program {
    let mut k = Build::default();
    let (src, out) = (k.param("src"), k.param("out"));
    let tid = k.tid();
    let slot = k.imm(BinOp::Shl, tid, 4);
    let from = k.global(src, slot);
    k.push(Inst::CpAsync { guard: None, dst: slot, offset: 0, src: from, src_size: Operand::Int(16) });
    k.push(Inst::CpAsyncCommit);
    if wait {
        k.push(Inst::CpAsyncWait { pending: 0 });
        k.push(Inst::BarSync { id: 0 });
    }
    let r = k.imm(BinOp::And, tid, 7);
    let row = k.imm(BinOp::Shl, r, 4);
    let [got] = k.regs(Ty::U32);
    k.ldmatrix(true, &[got], row, 0);
    let word = k.imm(BinOp::Shl, tid, 2);
    let g = k.global(out, word);
    k.st_global(Ty::U32, &[got], g, 0);
    k.program(512)
}

#[test]
fn ldmatrix_of_rows_whose_cp_async_is_not_waited_for_is_reported() {
    let src: Vec<u8> = (0..512u32).map(|b| (b * 7 % 251) as u8).collect();
    let mut mem = Memory::new();
    let ptrs = [mem.alloc_bytes(&src), mem.alloc(128)];
    let e = launch(&async_copy_program(false), &mut mem, &ptrs).unwrap_err();
    assert_eq!(e.check, Check::AsyncCopyPending, "{e}");
    assert!(e.message.contains("thread 0 reads (by ldmatrix) shared byte 0"), "{e}");

    let mut mem = Memory::new();
    let ptrs = [mem.alloc_bytes(&src), mem.alloc(128)];
    launch(&async_copy_program(true), &mut mem, &ptrs).unwrap_or_else(|e| panic!("{e}"));
    // Transposed: lane l gets M[2 (l % 4)][l / 4] and M[2 (l % 4) + 1][l / 4], M[r][c]
    // the u16 at byte 16 r + 2 c.
    let m = |r: usize, c: usize| u32::from(u16::from_le_bytes([src[16 * r + 2 * c], src[16 * r + 2 * c + 1]]));
    let want: Vec<i32> = (0..32).map(|l| (m(2 * (l % 4), l / 4) | m(2 * (l % 4) + 1, l / 4) << 16) as i32).collect();
    assert_eq!(mem.read_i32(ptrs[1], 32).unwrap(), want);
}

#[test]
fn an_mma_that_half_the_warp_skips_is_reported() {
    let mut k = Build::default();
    let tid = k.tid();
    let low = k.reg(Ty::Pred);
    k.push(Inst::Setp { cmp: Cmp::Lt, ty: Ty::I32, dst: low, a: tid.into(), b: Operand::Int(16) });
    let trips = k.reg(Ty::I32);
    k.push(Inst::Selp { ty: Ty::I32, dst: trips, a: Operand::Int(1), b: Operand::Int(0), cond: low });
    let ab: [Reg; 6] = k.regs(Ty::U32);
    let c: [Reg; 4] = k.regs(Ty::F32);
    for r in ab.iter().chain(&c) {
        k.push(Inst::Mov { ty: Ty::U32, dst: *r, src: Operand::Int(0) });
    }
    let iv = k.reg(Ty::I32);
    let mma =
        Inst::Mma { input: MmaInput::BF16, d: c.to_vec(), a: ab[..4].to_vec(), b: ab[4..].to_vec(), c: c.to_vec() };
    k.push(Inst::Loop {
        ty: Ty::I32,
        iv,
        lower: Operand::Int(0),
        upper: trips.into(),
        step: Operand::Int(1),
        body: vec![mma],
    });
    let e = launch(&k.program(0), &mut Memory::new(), &[]).unwrap_err();
    assert_eq!(e.check, Check::WarpCollective, "{e}");
    assert_eq!(e.thread, Some(16), "{e}");
    assert!(e.message.contains("mma.sync is executed by 16 of the 32 lanes of warp 0"), "{e}");
}

/// Rows `16 (tid % 8) + offset` of a 128-byte buffer every thread wrote.
fn ldmatrix_at(offset: u32) -> Program {
    let mut k = Build::default();
    let tid = k.tid();
    let slot = k.imm(BinOp::Shl, tid, 2);
    k.st_shared(tid, slot, 0);
    k.push(Inst::BarSync { id: 0 });
    let r = k.imm(BinOp::And, tid, 7);
    let row = k.imm(BinOp::Shl, r, 4);
    let [got] = k.regs(Ty::U32);
    k.ldmatrix(false, &[got], row, offset);
    k.program(128)
}

#[test]
fn ldmatrix_rows_must_be_aligned_and_inside_the_buffer() {
    launch(&ldmatrix_at(0), &mut Memory::new(), &[]).unwrap_or_else(|e| panic!("{e}"));
    let e = launch(&ldmatrix_at(8), &mut Memory::new(), &[]).unwrap_err();
    assert_eq!((e.check, e.thread), (Check::Misaligned, Some(0)), "{e}");
    assert!(e.message.contains("ldmatrix row 0 of matrix 0 (the address lane 0 gives) is at shared offset 8"), "{e}");
    let e = launch(&ldmatrix_at(16), &mut Memory::new(), &[]).unwrap_err();
    assert_eq!((e.check, e.thread), (Check::SharedOutOfBounds, Some(7)), "{e}");
    assert!(e.message.contains("is shared bytes 128..144, outside the CTA's 128-byte buffer"), "{e}");
}
