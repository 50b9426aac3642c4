//! What `ldmatrix` and `mma.sync` compute for one warp, apart from the CTA's registers and
//! checks (`cta/tensor_core.rs` gathers the operands and runs the checks).
//!
//! The fragment tables of `mma` are one function, [`frag_elem`], read both when the
//! lanes' registers are gathered into tiles and when `D` is scattered back, so the layout
//! is written once. The arithmetic is the interpreter's `dot` (`interp/dot.rs`,
//! `docs/semantics.md` "dot"): per output element the accumulator starts at `C` and takes
//! one `fma` per `k` in increasing order (float inputs, whose products are exact in
//! `f32`), or one wrapping `i32` add of the exact product (`s8`).

use half::{bf16, f16};

use crate::backend::ptx::layout::MmaInput;
use crate::semantics::convert::{bf16_to_f32, f16_to_f32};
use crate::semantics::math::fma_f32;

/// Lanes of a warp.
pub(crate) const LANES: usize = 32;
/// Rows of `A`, `C` and `D`.
pub(crate) const M: usize = 16;
/// Columns of `B`, `C` and `D`.
pub(crate) const N: usize = 8;

/// An operand of `mma`; `C` also describes `D`, which has the same layout.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Frag {
    A,
    B,
    C,
}

impl Frag {
    /// The registers each lane holds of this operand.
    pub fn regs(self) -> usize {
        match self {
            Frag::A | Frag::C => 4,
            Frag::B => 2,
        }
    }
}

/// Elements one register of `frag` holds: `A` and `B` pack 32 bits of 16-bit, tf32 or
/// 8-bit elements; `C` and `D` hold one 32-bit element a register.
pub(crate) fn per_reg(input: MmaInput, frag: Frag) -> usize {
    match (frag, input) {
        (Frag::C, _) | (Frag::A | Frag::B, MmaInput::Tf32) => 1,
        (Frag::A | Frag::B, MmaInput::F16 | MmaInput::BF16) => 2,
        (Frag::A | Frag::B, MmaInput::S8) => 4,
    }
}

/// Where an element of a fragment sits in its tile: `(row, col)` is `(m, k)` for `A`,
/// `(k, n)` for `B`, `(m, n)` for `C`/`D`.
pub(crate) type Mapping = fn(MmaInput, Frag, usize, usize, usize) -> (usize, usize);

/// The tile element that element `part` (counted from the low bits) of register `reg` of
/// lane `lane` holds: the PTX ISA's "Matrix Fragments for mma.m16n8k16 / m16n8k8 /
/// m16n8k32" tables, with `g = lane / 4` and `t = lane % 4`.
pub(crate) fn frag_elem(input: MmaInput, frag: Frag, lane: usize, reg: usize, part: usize) -> (usize, usize) {
    elem_at(input, frag, lane / 4, lane % 4, reg, part)
}

/// [`frag_elem`] for the lane of group `g` and thread-in-group `t`. The three shapes
/// share one pattern: a lane's `e` packed elements run along `k` from `e * t`, and the
/// registers step by 8 rows (`A`'s odd registers) and by half of `k` (`A`'s registers
/// 2 and 3, `B`'s register 1).
pub(crate) fn elem_at(input: MmaInput, frag: Frag, g: usize, t: usize, reg: usize, part: usize) -> (usize, usize) {
    let e = per_reg(input, frag);
    let half_k = input.k() / 2;
    match frag {
        Frag::A => (g + 8 * (reg % 2), e * t + part + half_k * (reg / 2)),
        Frag::B => (e * t + part + half_k * reg, g),
        Frag::C => (g + 8 * (reg / 2), 2 * t + reg % 2),
    }
}

/// One warp's `mma` operands: each lane's `a`, `b` and `c` registers (32-bit patterns).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct WarpFrags {
    pub a: [[u32; 4]; LANES],
    pub b: [[u32; 2]; LANES],
    pub c: [[u32; 4]; LANES],
}

impl Default for WarpFrags {
    fn default() -> Self {
        WarpFrags { a: [[0; 4]; LANES], b: [[0; 2]; LANES], c: [[0; 4]; LANES] }
    }
}

/// Each lane's `d` registers of `D = A B + C` for one warp's operands.
pub(crate) fn mma(input: MmaInput, f: &WarpFrags) -> [[u32; 4]; LANES] {
    mma_with(input, f, frag_elem)
}

/// [`mma`] with the fragment layout `at` (the tests run a wrong one to show that the
/// layout decides the result).
pub(crate) fn mma_with(input: MmaInput, f: &WarpFrags, at: Mapping) -> [[u32; 4]; LANES] {
    let k = input.k();
    // Element bits (zero-extended) of the 16 x k, k x 8 and 16 x 8 tiles, row-major.
    let mut a = vec![0u32; M * k];
    let mut b = vec![0u32; k * N];
    let mut c = [0u32; M * N];
    for lane in 0..LANES {
        for reg in 0..Frag::A.regs() {
            for part in 0..per_reg(input, Frag::A) {
                let (row, col) = at(input, Frag::A, lane, reg, part);
                a[row * k + col] = unpack(input, f.a[lane][reg], part);
            }
        }
        for reg in 0..Frag::B.regs() {
            for part in 0..per_reg(input, Frag::B) {
                let (row, col) = at(input, Frag::B, lane, reg, part);
                b[row * N + col] = unpack(input, f.b[lane][reg], part);
            }
        }
        for reg in 0..Frag::C.regs() {
            let (row, col) = at(input, Frag::C, lane, reg, 0);
            c[row * N + col] = f.c[lane][reg];
        }
    }
    let d = match input {
        MmaInput::F16 => float_dot(&a, &b, &c, k, |x| f16_to_f32(f16::from_bits(x as u16))),
        MmaInput::BF16 => float_dot(&a, &b, &c, k, |x| bf16_to_f32(bf16::from_bits(x as u16))),
        // tf32 elements are held as the f32 bits of the rounded value
        MmaInput::Tf32 => float_dot(&a, &b, &c, k, f32::from_bits),
        MmaInput::S8 => int_dot(&a, &b, &c, k),
    };
    let mut out = [[0u32; 4]; LANES];
    for (lane, regs) in out.iter_mut().enumerate() {
        for (reg, v) in regs.iter_mut().enumerate() {
            let (row, col) = at(input, Frag::C, lane, reg, 0);
            *v = d[row * N + col];
        }
    }
    out
}

/// Element `part` of a packed `A`/`B` register, zero-extended.
fn unpack(input: MmaInput, reg: u32, part: usize) -> u32 {
    let bits = 32 / per_reg(input, Frag::A) as u32;
    if bits == 32 { reg } else { (reg >> (bits * part as u32)) & ((1 << bits) - 1) }
}

/// `D` of float tiles: from `C`, one `fma` of the widened (exact) elements per `k`, in
/// increasing `k`, rounded each step.
fn float_dot(a: &[u32], b: &[u32], c: &[u32; M * N], k: usize, widen: fn(u32) -> f32) -> [u32; M * N] {
    let mut d = [0u32; M * N];
    for (i, out) in d.iter_mut().enumerate() {
        let (row, col) = (i / N, i % N);
        let mut acc = f32::from_bits(c[i]);
        for kk in 0..k {
            acc = fma_f32(widen(a[row * k + kk]), widen(b[kk * N + col]), acc);
        }
        *out = acc.to_bits();
    }
    d
}

/// `D` of s8 tiles: from `C`, the exact products added in increasing `k`, wrapping in `i32`.
fn int_dot(a: &[u32], b: &[u32], c: &[u32; M * N], k: usize) -> [u32; M * N] {
    let s8 = |x: u32| i32::from(x as u8 as i8);
    let mut d = [0u32; M * N];
    for (i, out) in d.iter_mut().enumerate() {
        let (row, col) = (i / N, i % N);
        let mut acc = c[i] as i32;
        for kk in 0..k {
            acc = acc.wrapping_add(s8(a[row * k + kk]) * s8(b[kk * N + col]));
        }
        *out = acc as u32;
    }
    d
}

/// The two elements `(row, col)` of an 8x8 matrix that `ldmatrix` gives lane `lane`, the
/// first in the low half of its register: `(l / 4, 2 (l % 4))` and the next column, or the
/// transpose with `trans`.
pub(crate) fn ldmatrix_elems(lane: usize, trans: bool) -> [(usize, usize); 2] {
    let (r, c) = (lane / 4, 2 * (lane % 4));
    if trans { [(c, r), (c + 1, r)] } else { [(r, c), (r, c + 1)] }
}

/// Every lane's registers after an `ldmatrix` of `rows.len() / 8` matrices (1, 2 or 4)
/// from `shared`: `rows[8 i + r]` is the byte address of row `r` of matrix `i` (checked
/// by the caller: 16-byte aligned, 16 bytes in bounds). Registers past the matrix count
/// stay 0.
pub(crate) fn ldmatrix(shared: &[u8], rows: &[u32], trans: bool) -> [[u32; 4]; LANES] {
    let elem = |row_addr: u32, col: usize| {
        let at = row_addr as usize + 2 * col;
        u32::from(u16::from_le_bytes([shared[at], shared[at + 1]]))
    };
    let mut out = [[0u32; 4]; LANES];
    for (lane, regs) in out.iter_mut().enumerate() {
        for (i, v) in regs.iter_mut().enumerate().take(rows.len() / 8) {
            let [(r0, c0), (r1, c1)] = ldmatrix_elems(lane, trans);
            *v = elem(rows[8 * i + r0], c0) | elem(rows[8 * i + r1], c1) << 16;
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    const INPUTS: [MmaInput; 4] = [MmaInput::F16, MmaInput::BF16, MmaInput::Tf32, MmaInput::S8];

    /// A deterministic pseudo-random sequence (Knuth's MMIX LCG, high bits).
    struct Lcg(u64);

    impl Lcg {
        fn next(&mut self) -> u32 {
            self.0 = self.0.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            (self.0 >> 33) as u32
        }

        /// A small integer in `-range..=range`.
        fn small(&mut self, range: i32) -> i32 {
            (self.next() % (2 * range as u32 + 1)) as i32 - range
        }
    }

    /// The tiles of one test: element bits of `A` (16 x k), `B` (k x 8) and `C` (16 x 8).
    struct Tiles {
        a: Vec<u32>,
        b: Vec<u32>,
        c: Vec<u32>,
    }

    /// Random operand bits: floats with fractions, so the rounding of each step shows.
    fn random_elem(input: MmaInput, rng: &mut Lcg) -> u32 {
        let x = rng.small(64) as f32 / 8.0 + rng.small(1000) as f32 / 4096.0;
        match input {
            MmaInput::F16 => u32::from(f16::from_f32(x).to_bits()),
            MmaInput::BF16 => u32::from(bf16::from_f32(x).to_bits()),
            MmaInput::Tf32 => crate::semantics::convert::f32_to_tf32_rna(x).to_bits(),
            MmaInput::S8 => rng.small(128).clamp(-128, 127) as i8 as u8 as u32,
        }
    }

    fn random_acc(input: MmaInput, rng: &mut Lcg) -> u32 {
        match input {
            MmaInput::S8 => rng.small(1 << 20) as u32,
            MmaInput::F16 | MmaInput::BF16 | MmaInput::Tf32 => {
                (rng.small(1 << 12) as f32 / 64.0 + rng.small(100) as f32 * 1e-5).to_bits()
            }
        }
    }

    fn random_tiles(input: MmaInput, seed: u64) -> Tiles {
        let mut rng = Lcg(seed);
        let k = input.k();
        Tiles {
            a: (0..M * k).map(|_| random_elem(input, &mut rng)).collect(),
            b: (0..k * N).map(|_| random_elem(input, &mut rng)).collect(),
            c: (0..M * N).map(|_| random_acc(input, &mut rng)).collect(),
        }
    }

    /// `(lane, reg, part)` holding `A[m][k]`, written from the PTX tables' formulas
    /// (inverting them by hand, apart from [`elem_at`]).
    fn a_slot(input: MmaInput, m: usize, k: usize) -> (usize, usize, usize) {
        let g = m % 8;
        let (reg, t, part) = match input {
            // (g, 2t), (g, 2t + 1) in a[0]; a[1] rows + 8; a[2], a[3] cols + 8
            MmaInput::F16 | MmaInput::BF16 => (m / 8 + 2 * (k / 8), (k % 8) / 2, k % 2),
            // (g, t) a[0], (g + 8, t) a[1], (g, t + 4) a[2], (g + 8, t + 4) a[3]
            MmaInput::Tf32 => (m / 8 + 2 * (k / 4), k % 4, 0),
            // row g cols 4t..4t + 3 in a[0]; a[1] rows + 8; a[2], a[3] cols + 16
            MmaInput::S8 => (m / 8 + 2 * (k / 16), (k % 16) / 4, k % 4),
        };
        (4 * g + t, reg, part)
    }

    /// `(lane, reg, part)` holding `B[k][n]`.
    fn b_slot(input: MmaInput, k: usize, n: usize) -> (usize, usize, usize) {
        let (reg, t, part) = match input {
            MmaInput::F16 | MmaInput::BF16 => (k / 8, (k % 8) / 2, k % 2),
            MmaInput::Tf32 => (k / 4, k % 4, 0),
            MmaInput::S8 => (k / 16, (k % 16) / 4, k % 4),
        };
        (4 * n + t, reg, part)
    }

    /// `(lane, reg)` holding `C[m][n]` (and `D[m][n]`).
    fn c_slot(m: usize, n: usize) -> (usize, usize) {
        (4 * (m % 8) + n / 2, 2 * (m / 8) + n % 2)
    }

    /// The lanes' registers for `tiles`, placed with the hand-written inverse tables.
    fn distribute(input: MmaInput, tiles: &Tiles) -> WarpFrags {
        let k = input.k();
        let bits = 32 / per_reg(input, Frag::A);
        let mut f = WarpFrags::default();
        for m in 0..M {
            for kk in 0..k {
                let (lane, reg, part) = a_slot(input, m, kk);
                f.a[lane][reg] |= tiles.a[m * k + kk] << (bits * part);
            }
        }
        for kk in 0..k {
            for n in 0..N {
                let (lane, reg, part) = b_slot(input, kk, n);
                f.b[lane][reg] |= tiles.b[kk * N + n] << (bits * part);
            }
        }
        for m in 0..M {
            for n in 0..N {
                let (lane, reg) = c_slot(m, n);
                f.c[lane][reg] = tiles.c[m * N + n];
            }
        }
        f
    }

    /// `D` read back from the lanes' `d` registers with the inverse table.
    fn collect(d: &[[u32; 4]; LANES]) -> Vec<u32> {
        let mut out = vec![0; M * N];
        for m in 0..M {
            for n in 0..N {
                let (lane, reg) = c_slot(m, n);
                out[m * N + n] = d[lane][reg];
            }
        }
        out
    }

    /// `A B + C` by a triple loop: per element, one fused multiply-add per `k` in
    /// increasing order from `C` (float), or wrapping `i32` sums (s8).
    fn reference(input: MmaInput, tiles: &Tiles) -> Vec<u32> {
        let k = input.k();
        let float = |x: u32| match input {
            MmaInput::F16 => f16::from_bits(x as u16).to_f32(),
            MmaInput::BF16 => bf16::from_bits(x as u16).to_f32(),
            MmaInput::Tf32 => f32::from_bits(x),
            MmaInput::S8 => unreachable!("s8 tiles are summed as integers"),
        };
        let mut d = vec![0u32; M * N];
        for m in 0..M {
            for n in 0..N {
                d[m * N + n] = if input == MmaInput::S8 {
                    let mut acc = tiles.c[m * N + n] as i32;
                    for kk in 0..k {
                        let x = i32::from(tiles.a[m * k + kk] as u8 as i8);
                        let y = i32::from(tiles.b[kk * N + n] as u8 as i8);
                        acc = acc.wrapping_add(x * y);
                    }
                    acc as u32
                } else {
                    let mut acc = f32::from_bits(tiles.c[m * N + n]);
                    for kk in 0..k {
                        acc = float(tiles.a[m * k + kk]).mul_add(float(tiles.b[kk * N + n]), acc);
                    }
                    acc.to_bits()
                };
            }
        }
        d
    }

    #[test]
    fn every_tile_element_has_exactly_one_fragment_slot() {
        for input in INPUTS {
            let k = input.k();
            for (frag, rows, cols) in [(Frag::A, M, k), (Frag::B, k, N), (Frag::C, M, N)] {
                let mut hits = vec![0; rows * cols];
                for lane in 0..LANES {
                    for reg in 0..frag.regs() {
                        for part in 0..per_reg(input, frag) {
                            let (r, c) = frag_elem(input, frag, lane, reg, part);
                            assert!(r < rows && c < cols, "{input:?} {frag:?} lane {lane} reg {reg} part {part}");
                            hits[r * cols + c] += 1;
                        }
                    }
                }
                assert!(hits.iter().all(|&h| h == 1), "{input:?} {frag:?}: {hits:?}");
            }
        }
    }

    #[test]
    fn the_fragment_tables_agree_with_the_hand_written_inverse() {
        for input in INPUTS {
            let k = input.k();
            for m in 0..M {
                for kk in 0..k {
                    let (lane, reg, part) = a_slot(input, m, kk);
                    assert_eq!(frag_elem(input, Frag::A, lane, reg, part), (m, kk), "{input:?} A");
                }
            }
            for kk in 0..k {
                for n in 0..N {
                    let (lane, reg, part) = b_slot(input, kk, n);
                    assert_eq!(frag_elem(input, Frag::B, lane, reg, part), (kk, n), "{input:?} B");
                }
            }
        }
        for m in 0..M {
            for n in 0..N {
                let (lane, reg) = c_slot(m, n);
                assert_eq!(frag_elem(MmaInput::F16, Frag::C, lane, reg, 0), (m, n));
            }
        }
        // Spot checks straight from the PTX ISA's figures: lane 5 is g = 1, t = 1.
        assert_eq!(frag_elem(MmaInput::F16, Frag::A, 5, 3, 1), (9, 11));
        assert_eq!(frag_elem(MmaInput::Tf32, Frag::B, 5, 1, 0), (5, 1));
        assert_eq!(frag_elem(MmaInput::S8, Frag::A, 5, 2, 3), (1, 23));
        assert_eq!(frag_elem(MmaInput::S8, Frag::C, 5, 3, 0), (9, 3));
    }

    #[test]
    fn mma_computes_a_times_b_plus_c_in_k_order_for_every_input() {
        for input in INPUTS {
            for seed in [1, 2, 3] {
                let tiles = random_tiles(input, seed);
                let d = mma(input, &distribute(input, &tiles));
                assert_eq!(collect(&d), reference(input, &tiles), "{input:?} seed {seed}");
            }
        }
    }

    /// The accumulation is one rounding per `k` starting from `C`: `C = 2^24` plus eight
    /// products of 1 stays `2^24` (each `+1` rounds away), where a sum of the products
    /// first would give `2^24 + 8`.
    #[test]
    fn mma_rounds_once_per_k_step_from_c() {
        let k = MmaInput::F16.k();
        let one = u32::from(f16::from_f32(1.0).to_bits());
        let mut tiles = Tiles { a: vec![0; M * k], b: vec![0; k * N], c: vec![0; M * N] };
        for kk in 0..8 {
            tiles.a[kk] = one;
            tiles.b[kk * N] = one;
        }
        tiles.c[0] = 16_777_216f32.to_bits();
        let d = collect(&mma(MmaInput::F16, &distribute(MmaInput::F16, &tiles)));
        assert_eq!(f32::from_bits(d[0]), 16_777_216.0);
        assert_eq!(d, reference(MmaInput::F16, &tiles));
    }

    /// The test above can fail: a layout with `g` and `t` taken from the wrong bits of the
    /// lane (`g = lane % 8`, `t = lane / 8`, a column-major lane order) gives another `D`.
    #[test]
    fn a_wrong_fragment_layout_gives_another_result() {
        let wrong: Mapping = |input, frag, lane, reg, part| elem_at(input, frag, lane % 8, lane / 8, reg, part);
        for input in INPUTS {
            let tiles = random_tiles(input, 7);
            let frags = distribute(input, &tiles);
            assert_eq!(collect(&mma_with(input, &frags, frag_elem)), reference(input, &tiles));
            assert_ne!(collect(&mma_with(input, &frags, wrong)), reference(input, &tiles), "{input:?}");
        }
    }

    /// A shared buffer with four 8x8 matrices of distinct 16-bit values `0x1000 i + 16 r + c`,
    /// rows scattered (row `r` of matrix `i` at a 16-byte slot of its own, in no order), and
    /// the row addresses in lane order.
    fn scattered_matrices() -> (Vec<u8>, Vec<u32>) {
        let mut shared = vec![0xEEu8; 64 * 16];
        let mut rows = Vec::new();
        for i in 0..4u32 {
            for r in 0..8u32 {
                let slot = (37 * (8 * i + r) + 11) % 64;
                let addr = slot * 16;
                for c in 0..8u32 {
                    let v = (0x1000 * i + 16 * r + c) as u16;
                    shared[(addr + 2 * c) as usize..(addr + 2 * c + 2) as usize].copy_from_slice(&v.to_le_bytes());
                }
                rows.push(addr);
            }
        }
        (shared, rows)
    }

    #[test]
    fn ldmatrix_gives_each_lane_its_two_elements_of_every_matrix() {
        let (shared, rows) = scattered_matrices();
        for n in [1usize, 2, 4] {
            for trans in [false, true] {
                let out = ldmatrix(&shared, &rows[..8 * n], trans);
                for (l, regs) in out.iter().enumerate() {
                    for (i, got) in regs.iter().enumerate() {
                        // Read straight from memory: M_i[row][col] is the u16 at row's address + 2 col.
                        let m = |row: usize, col: usize| {
                            let at = rows[8 * i + row] as usize + 2 * col;
                            u32::from(u16::from_le_bytes([shared[at], shared[at + 1]]))
                        };
                        let want = if i >= n {
                            0
                        } else if trans {
                            m(2 * (l % 4), l / 4) | m(2 * (l % 4) + 1, l / 4) << 16
                        } else {
                            m(l / 4, 2 * (l % 4)) | m(l / 4, 2 * (l % 4) + 1) << 16
                        };
                        assert_eq!(*got, want, "x{n} trans {trans} lane {l} matrix {i}");
                    }
                }
            }
        }
        // The values name their place: lane 6 gets row 1, cols 4 and 5 (transposed: rows 4
        // and 5 of col 1) of each matrix.
        let out = ldmatrix(&shared, &rows, false);
        assert_eq!(out[6], [0x0015_0014, 0x1015_1014, 0x2015_2014, 0x3015_3014]);
        let out = ldmatrix(&shared, &rows, true);
        assert_eq!(out[6], [0x0051_0041, 0x1051_1041, 0x2051_2041, 0x3051_3041]);
    }
}
