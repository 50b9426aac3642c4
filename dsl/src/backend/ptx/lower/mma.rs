//! Lowering of `dot` on tensor cores: one `mma.sync` per 16x8 tile of the result and
//! k-step, with the accumulator in registers in the [`Blocked::mma`] layout.
//!
//! `a` (`[M, K]`) and `b` (`[K, N]`) are written once to shared memory by their owners
//! (row-major, each row padded by 16 bytes so the 8 rows an `ldmatrix` reads, or the 8
//! rows a warp's scalar fragment loads touch, fall in 8 different groups of 4 banks), then
//! a barrier. Each warp then reads its fragments from shared memory for every k-step:
//! - `f16`/`bf16` (`m16n8k16`): `ldmatrix.x4` for each 16-row tile of `a`, and
//!   `ldmatrix.x4.trans` (`.x2` for a single tile) for each pair of 8-column tiles of `b`,
//!   which is row-major `[K, N]`, so `.trans` hands out its columns;
//! - `tf32` (`m16n8k8`): one 32-bit `ld.shared` per fragment register, rounded by
//!   `cvt.rna.tf32.f32` as the interpreter rounds;
//! - `i8` (`m16n8k32`): one 32-bit `ld.shared` per fragment register (four `k`s); `b` is
//!   written transposed (`[N, K]`) so each register's four `k`s are adjacent.
//!
//! Which rows of the result form a 16-row tile is the accumulator layout's choice
//! (`Blocked::mma`): a thread's rows `r` and `r + 8 wm` are the tile's two halves, so
//! the fragment addresses below use the same rows. A barrier after the last read lets the
//! next exchange reuse the buffer.

use super::super::{DotOperandDecision, DotOperandSource, PtxError};
use super::Lowerer;
use super::exchange::{Place, Side};
use super::swizzle::Swizzle;
use crate::backend::ptx::layout::dot_operand::a_in_registers;
use crate::backend::ptx::layout::{Blocked, Geometry, MmaInput, tensor_core_input, transposed_operand};
use crate::backend::ptx::lir::{BinOp, Inst, Operand, Reg, Ty};
use crate::ir::{Op, Value};
use std::collections::HashMap;

/// Bytes of padding after each row in shared memory.
const ROW_PAD_BYTES: usize = 16;

/// A lane's part in an `ldmatrix.x4` ([`Lowerer::ldmatrix_lane`]).
struct LdmatrixLane {
    r: Operand,
    q1: Operand,
    q2: Operand,
    a_row: Operand,
    a_col: Operand,
}

/// A fragment's offset from its operand's base, as (row bytes, column bytes): a swizzled
/// slot moves the columns by `xor` ([`Lowerer::fragment_at`]).
type FragmentOffset = (u32, u32);

impl Lowerer<'_> {
    /// Whether `op`'s `dot` runs on tensor cores: its result is in the `mma` layout and `K`
    /// is a multiple of the instruction's k.
    pub(super) fn mma_input(&self, result: Value, a: Value, input: Option<MmaInput>) -> Option<MmaInput> {
        tensor_core_input(self.k, self.layout(result), a, input)
    }

    /// `acc + a @ b` on tensor cores, in the result's `mma` layout (`geo`, whose register
    /// budget `dot` checked).
    pub(super) fn dot_mma(
        &mut self,
        op: &Op,
        [a, b, acc]: [Value; 3],
        input: MmaInput,
        geo: Geometry,
    ) -> Result<Vec<Operand>, PtxError> {
        let result = self.result(op)?;
        let enc: Blocked = (*geo.enc).clone();
        let (wm, wn) = (enc.warps_per_cta[0], enc.warps_per_cta[1]);
        let (a_shape, b_shape) = (self.k.shape(a).dims().to_vec(), self.k.shape(b).dims().to_vec());
        let (m, kk, n) = (a_shape[0], a_shape[1], b_shape[1]);
        let ty_in = super::ty_of(self.k.dtype(a));
        let elem = ty_in.size_bytes() as usize;
        let pad = ROW_PAD_BYTES / elem;
        // An operand read from a staging ring (`ring.rs`) is already in shared memory, in
        // its slot's layout; the others are staged here, `a` first, in rows padded by 16
        // bytes. Row strides in elements: `a` `[M, K + pad]`; `b` `[K, N + pad]`, or for
        // `i8` `[N, K + pad]` (transposed).
        // `b` is held `[N, K]` (each row a column) when it is `i8` (staged transposed) or
        // the transpose of a block staged as it is (`transposed_operand`).
        let b_source = transposed_operand(self.k, self.layouts, b);
        let b_transposed = input == MmaInput::S8 || b_source.is_some();
        let a_view = self.ring_views.get(&a).copied();
        let b_view = match b_source {
            Some(x) => self.ring_views.get(&x).copied(),
            None => self.ring_views.get(&b).copied().filter(|_| !b_transposed),
        };
        let hoisted = self.hoisted_a.get(&result).cloned();
        // On sm_90a, `b` may be read by `wgmma` through a descriptor (`wgmma.rs`), and `a`
        // too; otherwise `a`'s fragments come as below.
        let wg = self.wgmma.dots.get(&result).copied();
        let a_by_descriptor = wg.is_some_and(|d| d.a.is_some());
        let a_regs = matches!(input, MmaInput::F16 | MmaInput::BF16)
            && a_view.is_none()
            && (hoisted.is_some() || a_in_registers(self.layout(a), &enc));
        let sa = a_view.map_or(kk + pad, |v| v.layout.row(elem));
        let sb = match b_view {
            Some(v) => v.layout.row(elem),
            None if b_transposed => kk + pad,
            None => n + pad,
        };
        if (sa < kk && !a_by_descriptor) || (wg.is_none() && sb < if b_transposed { kk } else { n }) {
            return Err(self.invariant(op, "reads a ring slot whose rows are narrower than its tile"));
        }
        let a_sw = a_view.and_then(|v| v.layout.swizzle());
        let b_sw = b_view.and_then(|v| v.layout.swizzle());
        if (a_sw.is_some() || b_sw.is_some()) && !matches!(input, MmaInput::F16 | MmaInput::BF16) {
            return Err(self.invariant(op, "reads swizzled slots with scalar fragment loads"));
        }
        let b_len = if wg.is_some() {
            0
        } else if b_transposed {
            n * sb
        } else {
            kk * sb
        };
        let a_len = if a_view.is_some() || a_regs { 0 } else { m * sa };
        let mut writes = Vec::new();
        if a_view.is_none() && !a_regs {
            let place = Place { strides: vec![sa, 1], offset: 0 };
            writes.push((Side { shape: a_shape, layout: self.layout(a).cloned(), place }, self.val(a)?));
        }
        if b_view.is_none() && wg.is_none() {
            // `b` itself, or for `i8` `b` placed transposed, or the block `b` transposes
            // placed as it is.
            let (src, strides) = match b_source {
                Some(x) => (x, vec![sb, 1]),
                None if b_transposed => (b, vec![1, sb]),
                None => (b, vec![sb, 1]),
            };
            let place = Place { strides, offset: a_len };
            let side = Side { shape: self.k.shape(src).dims().to_vec(), layout: self.layout(src).cloned(), place };
            writes.push((side, self.val(src)?));
        }
        // How each operand reaches the tensor cores (its conversion to the dot-operand
        // layout), for `explain`.
        let a_source = if a_by_descriptor {
            DotOperandSource::Descriptor
        } else if a_view.is_some() {
            DotOperandSource::RingSlot
        } else if hoisted.is_some() {
            DotOperandSource::Hoisted
        } else if a_regs {
            DotOperandSource::Registers
        } else {
            DotOperandSource::Staged
        };
        let b_source = match (wg, b_view) {
            (Some(_), _) => DotOperandSource::Descriptor,
            (None, Some(_)) => DotOperandSource::RingSlot,
            (None, None) => DotOperandSource::Staged,
        };
        for (operand, source) in [("a", a_source), ("b", b_source)] {
            self.decisions.dot_operands.push(DotOperandDecision { loc: op.loc, operand, source });
        }
        let staged = !writes.is_empty();
        if staged {
            let len = a_len + if b_view.is_some() { 0 } else { b_len };
            self.stage_with(op, self.k.dtype(a), len, writes, true)?;
        }

        // The tiles a warp computes: rows `(2i + h) 8 wm + 8 w_m + (0..8)` for half `h` of
        // tile `i`; columns `j 8 wn + 8 w_n + (0..8)`. Warps past `N / 8` along N repeat
        // the columns of the first `N / 8` (the layout replicates them).
        let tiles_m = m / (16 * wm);
        let tiles_n = (n / (8 * wn)).max(1);
        let distinct_wn = wn.min(n / 8);
        let lane = self.lane();
        let w_m = self.warp_pos(&enc, 0);
        let w_n = match self.warp_pos(&enc, 1) {
            w if distinct_wn < wn => self.bin(BinOp::And, Ty::I32, w, Operand::Int(distinct_wn as i64 - 1)),
            w => w,
        };
        let smem = self.smem_base();
        let a_tile = a_view.map_or(smem, |v| v.addr);
        let (b_tile, b_at) = match b_view {
            Some(v) => (v.addr, 0),
            None => (smem, a_len as i64),
        };
        let row0 = self.scaled(w_m, 8);
        let col0 = self.scaled(w_n, 8);
        let row_step = 8 * wm; // between the halves of a tile, and between tiles: 2 row_step
        let col_step = 8 * wn;
        let e = elem as i64;
        let (a_base, b_base, a_offs, b_offs): (Reg, Reg, Vec<Vec<FragmentOffset>>, Vec<Vec<FragmentOffset>>);
        let k_steps = kk / input.k();
        match input {
            MmaInput::F16 | MmaInput::BF16 => {
                // ldmatrix: lane `8q + r` gives row `r` of matrix `q`. For `a`, matrices
                // 0..4 are (half 0, k 0..8), (half 1, k 0..8), (half 0, k 8..16), (half 1,
                // k 8..16); for `b` (trans), (k 0..8, tile j), (k 8..16, tile j), then the
                // same for tile j + 1.
                let LdmatrixLane { r, q1, q2, a_row, a_col } = self.ldmatrix_lane(lane, row0, row_step);
                // A swizzled slot's lane address is `xor`ed with its row's phase once; the
                // lane's chunk (`q2`, or `w_n + q2 wn` for `b`) and the chunks the k-steps
                // and tiles add share no bit, so each of those moves is one more `xor`.
                let lane_a = self.shared_addr(a_tile, &[(a_row, sa as i64 * e), (a_col, e)], 0);
                a_base = self.swizzled_base(a_sw, lane_a, a_row);
                // `b`'s k and n of the lane's row: held `[K, N]`, the row is a k and `.trans`
                // hands out columns; held `[N, K]`, the row is an n.
                let k8 = self.scaled(q1, 8);
                let (b_row, b_col) = if b_transposed {
                    let t = self.scaled(q2, col_step as i64);
                    (self.sum(&[col0, t, r]), k8)
                } else {
                    let row = self.sum(&[r, k8]);
                    let t = self.scaled(q2, col_step as i64);
                    (row, self.sum(&[col0, t]))
                };
                let lane_b = self.shared_addr(b_tile, &[(b_row, sb as i64 * e), (b_col, e)], b_at * e);
                b_base = self.swizzled_base(b_sw, lane_b, b_row);
                a_offs = (0..k_steps)
                    .map(|ks| {
                        (0..tiles_m).map(|i| ((2 * i * row_step * sa * elem) as u32, (ks * 16 * elem) as u32)).collect()
                    })
                    .collect();
                b_offs = (0..k_steps)
                    .map(|ks| {
                        (0..tiles_n)
                            .step_by(2)
                            .map(|j| {
                                let (k_at, n_at) = (ks * 16, j * col_step);
                                let (row, col) = if b_transposed { (n_at, k_at) } else { (k_at, n_at) };
                                ((row * sb * elem) as u32, (col * elem) as u32)
                            })
                            .collect()
                    })
                    .collect();
            }
            MmaInput::Tf32 | MmaInput::S8 => {
                // One 32-bit load a register: lane `4g + t`.
                let g = self.bin(BinOp::ShrU, Ty::I32, lane.into(), Operand::Int(2));
                let t = self.bin(BinOp::And, Ty::I32, lane.into(), Operand::Int(3));
                let per_t = if input == MmaInput::S8 { 4 } else { 1 };
                let a_row = self.sum(&[row0, g]);
                a_base = self.shared_addr(a_tile, &[(a_row, sa as i64 * e), (t, per_t * e)], 0);
                let b_col = self.sum(&[col0, g]);
                b_base = if b_transposed {
                    self.shared_addr(b_tile, &[(b_col, sb as i64 * e), (t, per_t * e)], b_at * e)
                } else {
                    self.shared_addr(b_tile, &[(t, sb as i64 * e), (b_col, e)], b_at * e)
                };
                // Register order (h, c): (0, 0), (1, 0), (0, 1), (1, 1); `c` steps k by 4
                // (tf32) or 16 (i8).
                let kc = if input == MmaInput::S8 { 16 } else { 4 };
                let kstep = input.k();
                a_offs = (0..k_steps)
                    .map(|ks| {
                        (0..tiles_m)
                            .flat_map(|i| {
                                [(0, 0), (1, 0), (0, 1), (1, 1)].map(|(h, c)| {
                                    ((((2 * i + h) * row_step * sa + ks * kstep + c * kc) * elem) as u32, 0)
                                })
                            })
                            .collect()
                    })
                    .collect();
                b_offs = (0..k_steps)
                    .map(|ks| {
                        (0..tiles_n)
                            .flat_map(|j| {
                                [0, 1].map(|c| {
                                    let k = ks * kstep + c * kc;
                                    let at = if b_transposed { j * col_step * sb + k } else { k * sb + j * col_step };
                                    ((at * elem) as u32, 0)
                                })
                            })
                            .collect()
                    })
                    .collect();
            }
        }

        let acc_ty = super::ty_of(self.k.dtype(result));
        let mut accs: Vec<Reg> = Vec::with_capacity(geo.num_regs());
        for x in self.val(acc)? {
            accs.push(self.reg(x, acc_ty));
        }
        if accs.len() != geo.num_regs() {
            return Err(self.invariant(op, "reads an accumulator in another layout than its result"));
        }
        // The `xor`ed bases of swizzled fragments, by operand and column bits moved.
        let mut moved: HashMap<(bool, u32), Reg> = HashMap::new();
        let a_values = if a_regs && hoisted.is_none() { Some(self.val(a)?) } else { None };
        // A `wgmma` dot's `a` fragments, per k-step, issued after all are read.
        let mut wg_frags: Vec<Vec<Vec<Reg>>> = Vec::new();
        for ks in 0..k_steps {
            let (a_frags, b_frags) = match input {
                MmaInput::F16 | MmaInput::BF16 => {
                    let mut a_frags: Vec<Vec<Reg>> = Vec::with_capacity(tiles_m);
                    if a_by_descriptor {
                        continue;
                    }
                    match &a_values {
                        _ if let Some(h) = &hoisted => a_frags.clone_from(&h[ks]),
                        Some(values) => {
                            let geo_a = self.geometry(a).ok_or_else(|| self.invariant(op, "has a scalar `a`"))?;
                            for i in 0..tiles_m {
                                a_frags.push(self.packed_fragment(values, &geo_a, i, ks, ty_in));
                            }
                        }
                        None => {
                            for &off in &a_offs[ks] {
                                let (base, at) = self.fragment_at(&mut moved, (false, a_sw), a_base, off);
                                a_frags.push(self.ldmatrix(false, 4, base, at));
                            }
                        }
                    }
                    if wg.is_some() {
                        wg_frags.push(a_frags);
                        continue;
                    }
                    let mut b_frags: Vec<Vec<Reg>> = Vec::with_capacity(tiles_n);
                    for &off in &b_offs[ks] {
                        let count = if tiles_n == 1 { 2 } else { 4 };
                        let (base, at) = self.fragment_at(&mut moved, (true, b_sw), b_base, off);
                        let regs = self.ldmatrix(!b_transposed, count, base, at);
                        b_frags.extend(regs.chunks(2).map(|c| c.to_vec()));
                    }
                    (a_frags, b_frags)
                }
                MmaInput::Tf32 | MmaInput::S8 => {
                    let a_regs: Vec<Reg> =
                        a_offs[ks].iter().map(|&(r, c)| self.fragment(input, a_base, r + c)).collect();
                    let b_regs: Vec<Reg> =
                        b_offs[ks].iter().map(|&(r, c)| self.fragment(input, b_base, r + c)).collect();
                    (a_regs.chunks(4).map(|c| c.to_vec()).collect(), b_regs.chunks(2).map(|c| c.to_vec()).collect())
                }
            };
            for (i, af) in a_frags.iter().enumerate() {
                for (j, bf) in b_frags.iter().enumerate() {
                    let idx = [
                        geo.index(&[2 * i, 2 * j]),
                        geo.index(&[2 * i, 2 * j + 1]),
                        geo.index(&[2 * i + 1, 2 * j]),
                        geo.index(&[2 * i + 1, 2 * j + 1]),
                    ];
                    let c: Vec<Reg> = idx.iter().map(|&x| accs[x]).collect();
                    let d: Vec<Reg> = (0..4).map(|_| self.new_reg(acc_ty)).collect();
                    self.emit(Inst::Mma { input, d: d.clone(), a: af.clone(), b: bf.clone(), c });
                    for (x, r) in idx.iter().zip(d) {
                        accs[*x] = r;
                    }
                }
            }
        }
        if let Some(wb) = wg {
            // Tile `i`'s accumulators in `wgmma`'s order: per 8-column tile `j`, `mma`'s four.
            let idx: Vec<Vec<usize>> = (0..tiles_m)
                .map(|i| {
                    (0..n / 8)
                        .flat_map(|j| {
                            [
                                geo.index(&[2 * i, 2 * j]),
                                geo.index(&[2 * i, 2 * j + 1]),
                                geo.index(&[2 * i + 1, 2 * j]),
                                geo.index(&[2 * i + 1, 2 * j + 1]),
                            ]
                        })
                        .collect()
                })
                .collect();
            let tiles: Vec<Vec<Reg>> = idx.iter().map(|t| t.iter().map(|&x| accs[x]).collect()).collect();
            let out = self.wgmma(op, input, (wb, n, wm), &wg_frags, tiles)?;
            for (t, regs) in idx.iter().zip(out) {
                for (&x, r) in t.iter().zip(regs) {
                    accs[x] = r;
                }
            }
        }
        // The next exchange may reuse the staging buffer once every warp has read it; a
        // ring slot is released by the next `ring_read`'s barrier.
        if staged {
            self.emit(Inst::BarSync { id: 0 });
        }
        Ok(accs.into_iter().map(Operand::Reg).collect())
    }

    /// `a` (`[M, K]`, 16-bit) staged in rows padded by 16 bytes and read as the `a`
    /// fragments of the accumulator layout `enc`, per k-step and 16-row tile, at the
    /// addresses `dot_mma` reads staged fragments from; a barrier after the last read frees
    /// the buffer.
    pub(super) fn staged_a_fragments(
        &mut self,
        op: &Op,
        a: Value,
        enc: &Blocked,
    ) -> Result<Vec<Vec<Vec<Reg>>>, PtxError> {
        let shape = self.k.shape(a).dims().to_vec();
        let (m, kk) = (shape[0], shape[1]);
        let elem = super::ty_of(self.k.dtype(a)).size_bytes() as usize;
        let sa = kk + ROW_PAD_BYTES / elem;
        let place = Place { strides: vec![sa, 1], offset: 0 };
        let writes = vec![(Side { shape, layout: self.layout(a).cloned(), place }, self.val(a)?)];
        self.stage_with(op, self.k.dtype(a), m * sa, writes, true)?;
        let wm = enc.warps_per_cta[0];
        let row_step = 8 * wm;
        let lane = self.lane();
        let w_m = self.warp_pos(enc, 0);
        let row0 = self.scaled(w_m, 8);
        let LdmatrixLane { a_row, a_col, .. } = self.ldmatrix_lane(lane, row0, row_step);
        let smem = self.smem_base();
        let e = elem as i64;
        let base = self.shared_addr(smem, &[(a_row, sa as i64 * e), (a_col, e)], 0);
        let mut frags = Vec::with_capacity(kk / 16);
        for ks in 0..kk / 16 {
            let tiles: Vec<Vec<Reg>> = (0..m / (16 * wm))
                .map(|i| self.ldmatrix(false, 4, base, ((2 * i * row_step * sa + ks * 16) * elem) as u32))
                .collect();
            frags.push(tiles);
        }
        self.emit(Inst::BarSync { id: 0 });
        Ok(frags)
    }

    /// What lane `lane` addresses in an `ldmatrix.x4`: row `r` of matrix `q = 2 q2 + q1`,
    /// and for `a` (matrices (half 0, k 0..8), (half 1, k 0..8), (half 0, k 8..16), (half
    /// 1, k 8..16)) the row and column of that row in the warp's first 16-row tile, whose
    /// halves are `row_step` rows apart from `row0`.
    fn ldmatrix_lane(&mut self, lane: Reg, row0: Operand, row_step: usize) -> LdmatrixLane {
        let r = self.bin(BinOp::And, Ty::I32, lane.into(), Operand::Int(7));
        let q1 = self.bit(lane, 3);
        let q2 = self.bit(lane, 4);
        let half = self.scaled(q1, row_step as i64);
        let a_row = self.sum(&[row0, r, half]);
        let a_col = self.scaled(q2, 8);
        LdmatrixLane { r, q1, q2, a_row, a_col }
    }

    /// The `a` fragment of 16-row tile `i` and k-step `ks` from `a`'s own registers in the
    /// accumulator layout (`a_in_registers`): registers (row half, 8-column tile) (0, 2ks),
    /// (1, 2ks), (0, 2ks + 1), (1, 2ks + 1), each the thread's two adjacent columns packed
    /// low then high, as the PTX ISA's `m16n8k16` `a` fragment orders them.
    fn packed_fragment(&mut self, values: &[Operand], geo: &Geometry, i: usize, ks: usize, ty: Ty) -> Vec<Reg> {
        [(0, 0), (1, 0), (0, 1), (1, 1)]
            .into_iter()
            .map(|(h, j)| {
                let col = 2 * (2 * ks + j);
                let lo = self.reg(values[geo.index(&[2 * i + h, col])], ty);
                let hi = self.reg(values[geo.index(&[2 * i + h, col + 1])], ty);
                let dst = self.new_reg(Ty::U32);
                self.emit(Inst::Pack { dst, lo, hi });
                dst
            })
            .collect()
    }

    /// A lane's fragment base register in an operand's shared tile: `lane` unswizzled, or
    /// `xor`ed with its row's phase (`swizzle.rs`).
    fn swizzled_base(&mut self, sw: Option<Swizzle>, lane: Reg, row: Operand) -> Reg {
        let Some(sw) = sw else { return lane };
        let bits = self.phase_bits(sw, row);
        let x = self.int_op(BinOp::Xor, Operand::Reg(lane), bits);
        self.reg(x, Ty::I32)
    }

    /// The address (a register and an immediate) of a fragment at `(row bytes, column
    /// bytes)` from its operand's `base` (`swizzled_base`). Unswizzled, the sum. Swizzled,
    /// the row offset is whole periods of 8 rows, and the column bits below the swizzle's
    /// span move by `xor` (the lane's own chunk shares none of them), kept per value in
    /// `moved`; the rest of the columns stays an immediate.
    fn fragment_at(
        &mut self,
        moved: &mut HashMap<(bool, u32), Reg>,
        (is_b, sw): (bool, Option<Swizzle>),
        base: Reg,
        (row, col): (u32, u32),
    ) -> (Reg, u32) {
        let Some(sw) = sw else { return (base, row + col) };
        let low = col % sw.span() as u32;
        if low == 0 {
            return (base, row + col);
        }
        let reg = match moved.get(&(is_b, low)) {
            Some(&r) => r,
            None => {
                let x = self.int_op(BinOp::Xor, Operand::Reg(base), Operand::Int(low.into()));
                let r = self.reg(x, Ty::I32);
                moved.insert((is_b, low), r);
                r
            }
        };
        (reg, row + col - low)
    }

    /// `count` 8x8 matrices through `ldmatrix` from `base + offset`.
    fn ldmatrix(&mut self, trans: bool, count: usize, base: Reg, offset: u32) -> Vec<Reg> {
        let dsts: Vec<Reg> = (0..count).map(|_| self.new_reg(Ty::U32)).collect();
        self.emit(Inst::Ldmatrix { trans, dsts: dsts.clone(), addr: base, offset });
        dsts
    }

    /// One 32-bit fragment register from `base + offset`: four `i8`s, or one `f32`
    /// rounded to tf32.
    fn fragment(&mut self, input: MmaInput, base: Reg, offset: u32) -> Reg {
        if input == MmaInput::Tf32 {
            let x = self.new_reg(Ty::F32);
            self.emit(Inst::LdShared { ty: Ty::F32, dst: x, addr: base, offset });
            let dst = self.new_reg(Ty::U32);
            self.emit(Inst::CvtTf32 { dst, src: x });
            dst
        } else {
            let dst = self.new_reg(Ty::U32);
            self.emit(Inst::LdShared { ty: Ty::U32, dst, addr: base, offset });
            dst
        }
    }

    /// Bit `bit` of `x` (0 or 1).
    fn bit(&mut self, x: Reg, bit: i64) -> Operand {
        let s = self.bin(BinOp::ShrU, Ty::I32, x.into(), Operand::Int(bit));
        self.bin(BinOp::And, Ty::I32, s, Operand::Int(1))
    }

    /// `x * k` (`x` an `I32` operand).
    fn scaled(&mut self, x: Operand, k: i64) -> Operand {
        match x {
            Operand::Int(v) => Operand::Int(v * k),
            x if k == 1 => x,
            x if k.count_ones() == 1 => self.bin(BinOp::Shl, Ty::I32, x, Operand::Int(k.trailing_zeros().into())),
            x => self.bin(BinOp::Mul, Ty::I32, x, Operand::Int(k)),
        }
    }

    /// The sum of `I32` operands.
    fn sum(&mut self, xs: &[Operand]) -> Operand {
        let mut acc = Operand::Int(0);
        for &x in xs {
            acc = match (acc, x) {
                (Operand::Int(a), Operand::Int(b)) => Operand::Int(a + b),
                (Operand::Int(0), x) | (x, Operand::Int(0)) => x,
                (a, b) => self.bin(BinOp::Add, Ty::I32, a, b),
            };
        }
        acc
    }

    /// `smem + fixed + sum x * scale` as a register.
    fn shared_addr(&mut self, smem: Reg, terms: &[(Operand, i64)], fixed: i64) -> Reg {
        let mut parts = vec![Operand::Reg(smem), Operand::Int(fixed)];
        for &(x, k) in terms {
            parts.push(self.scaled(x, k));
        }
        let s = self.sum(&parts);
        self.reg(s, Ty::I32)
    }
}
