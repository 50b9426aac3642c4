//! The swizzled shared layout of a staging ring's 16-bit slots (Triton's
//! `#shared<vec = 8, perPhase, maxPhase>` for `mma` operands): rows are not padded;
//! instead the 16-byte chunk `c` of row `r` is stored at chunk `c ^ phase(r)`, with
//! `phase(r) = (r / per_phase) % max_phase`.
//!
//! With `n` chunks a row, `per_phase = max(1, 8 / n)` and `max_phase = min(n, 8)`, so any 8
//! consecutive rows (the rows one `ldmatrix` matrix reads, at one logical chunk) fall in 8
//! different groups of 4 banks, and so do the chunks a warp's `cp.async`s write, as
//! padding each row by 16 bytes does, without the padding's shared memory. The phase
//! repeats every 8 rows.
//!
//! Slots start at multiples of the row size (a power of two, at most [`SWIZZLE_ALIGN`],
//! the alignment the shared buffer is then declared with), so the chunk index of a byte
//! of the slot is the address's bits `4..4 + log2(n)`, and swizzling an address is one
//! `xor` of `phase(r) << 4` into it.

use super::Lowerer;
use crate::backend::ptx::lir::{BinOp, Operand, Reg, Ty};
use std::collections::HashMap;

/// Bytes of a chunk: what `cp.async.cg` copies and what an `ldmatrix` row reads.
const CHUNK: usize = 16;
/// Rows after which the phase repeats (`per_phase * max_phase`, for every row size).
const PERIOD_ROWS: usize = 8;
/// The alignment of a shared buffer holding swizzled slots, and so the longest row that
/// is swizzled (a longer one is padded).
pub(super) const SWIZZLE_ALIGN: u32 = 1024;

/// A swizzled slot layout: rows of `row_bytes`, chunks permuted per row.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Swizzle {
    pub row_bytes: usize,
    pub per_phase: usize,
    pub max_phase: usize,
}

impl Swizzle {
    /// The swizzle of rows of `row_bytes`: `None` unless they hold a power of two of whole
    /// 16-byte chunks, at least 2 (one chunk a row is conflict-free as it is) and at most
    /// [`SWIZZLE_ALIGN`] bytes.
    pub fn of(row_bytes: usize) -> Option<Swizzle> {
        let chunks = row_bytes / CHUNK;
        (row_bytes.is_multiple_of(CHUNK)
            && chunks.is_power_of_two()
            && chunks >= 2
            && row_bytes <= SWIZZLE_ALIGN as usize)
            .then(|| Swizzle { row_bytes, per_phase: (8 / chunks).max(1), max_phase: chunks.min(8) })
    }

    /// The byte offset of the byte `col_byte` of row `row` (the layout in numbers).
    #[cfg(test)]
    pub fn offset(&self, row: usize, col_byte: usize) -> usize {
        let phase = (row / self.per_phase) % self.max_phase;
        row * self.row_bytes + ((col_byte / CHUNK) ^ phase) * CHUNK + col_byte % CHUNK
    }

    /// The bytes of a row that the phase `xor` can change: a column offset that is a
    /// multiple of this moves a swizzled address by the same amount.
    pub fn span(&self) -> usize {
        self.max_phase * CHUNK
    }
}

impl std::fmt::Display for Swizzle {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "vec 16 bytes, perPhase {}, maxPhase {}", self.per_phase, self.max_phase)
    }
}

impl Lowerer<'_> {
    /// `phase(row) << 4`: what a swizzled address of row `row` is `xor`ed with.
    pub(super) fn phase_bits(&mut self, sw: Swizzle, row: Operand) -> Operand {
        let p = self.int_op(BinOp::ShrU, row, Operand::Int(sw.per_phase.trailing_zeros().into()));
        let p = self.int_op(BinOp::And, p, Operand::Int(sw.max_phase as i64 - 1));
        self.int_op(BinOp::Shl, p, Operand::Int(4))
    }

    /// The swizzled addresses of a thread's elements of a tile in a slot: `base` is the
    /// thread's unswizzled address (slot start + its first row `row` * row bytes + its
    /// first column's bytes; `row` is `Int(0)` where the offsets hold the row), `offsets`
    /// each element's unswizzled byte offset from it. Elements whose offsets agree in
    /// their row modulo 8 and their column modulo [`Swizzle::span`] share a swizzled base
    /// (one `add` and one `xor`); the rest of the offset stays an immediate, since moving
    /// by whole periods of rows and whole spans of columns commutes with the `xor`.
    pub(super) fn swizzled_elems(&mut self, sw: Swizzle, base: Reg, row: Operand, offsets: &[u32]) -> Vec<(Reg, u32)> {
        let mut groups: HashMap<(usize, usize), Reg> = HashMap::new();
        offsets
            .iter()
            .map(|&off| {
                let off = off as usize;
                let (r, c) = (off / sw.row_bytes, off % sw.row_bytes);
                let key = (r % PERIOD_ROWS, c % sw.span());
                let lead = key.0 * sw.row_bytes + key.1;
                let g = match groups.get(&key) {
                    Some(&g) => g,
                    None => {
                        let at = self.int_op(BinOp::Add, Operand::Reg(base), Operand::Int(lead as i64));
                        let r_row = self.int_op(BinOp::Add, row, Operand::Int(key.0 as i64));
                        let bits = self.phase_bits(sw, r_row);
                        let g = self.int_op(BinOp::Xor, at, bits);
                        let g = self.reg(g, Ty::I32);
                        groups.insert(key, g);
                        g
                    }
                };
                (g, (off - lead) as u32)
            })
            .collect()
    }

    /// `a op b` on `I32` operands, folded when both are immediates.
    pub(super) fn int_op(&mut self, op: BinOp, a: Operand, b: Operand) -> Operand {
        if let (Operand::Int(x), Operand::Int(y)) = (a, b) {
            let v = match op {
                BinOp::Add => Some(x + y),
                BinOp::Mul => Some(x * y),
                BinOp::And => Some(x & y),
                BinOp::Xor => Some(x ^ y),
                BinOp::Shl => Some(x << y),
                BinOp::ShrU => Some(((x as u32) >> y) as i64),
                _ => None,
            };
            if let Some(v) = v {
                return Operand::Int(v);
            }
        }
        if op == BinOp::Xor && b == Operand::Int(0) {
            return a;
        }
        self.bin(op, Ty::I32, a, b)
    }
}

#[cfg(test)]
mod tests {
    use super::Swizzle;

    /// Every 8 consecutive rows at one logical chunk fall in 8 different 16-byte bank
    /// groups, and each row's chunks are a permutation of the row's, for rows of 2 to 64
    /// chunks.
    #[test]
    fn eight_rows_at_one_chunk_hit_eight_bank_groups() {
        for chunks in [2usize, 4, 8, 16, 32, 64] {
            let sw = Swizzle::of(chunks * 16).unwrap();
            for first in (0..64).step_by(8) {
                for c in 0..chunks {
                    let mut groups: Vec<usize> = (first..first + 8).map(|r| (sw.offset(r, c * 16) / 16) % 8).collect();
                    groups.sort_unstable();
                    groups.dedup();
                    assert_eq!(groups.len(), 8, "{chunks} chunks, rows {first}.., chunk {c}");
                }
                for r in first..first + 8 {
                    let mut seen: Vec<usize> = (0..chunks).map(|c| sw.offset(r, c * 16) - r * chunks * 16).collect();
                    seen.sort_unstable();
                    assert_eq!(seen, (0..chunks).map(|c| c * 16).collect::<Vec<_>>());
                }
            }
        }
        assert_eq!(Swizzle::of(48), None);
        assert_eq!(Swizzle::of(16), None);
        assert_eq!(Swizzle::of(2048), None);
    }

    /// The rule `swizzled_elems` relies on: with the slot aligned to the row size,
    /// swizzling is `xor`ing `phase << 4` into the address, and moving by whole periods
    /// of rows and whole spans of columns commutes with it.
    #[test]
    fn the_swizzle_is_an_xor_that_commutes_with_whole_periods_and_spans() {
        for chunks in [2usize, 4, 8, 16, 32] {
            let sw = Swizzle::of(chunks * 16).unwrap();
            let slot = 3 * 64 * sw.row_bytes;
            for row in 0..24 {
                for col in (0..sw.row_bytes).step_by(2) {
                    let lin = slot + row * sw.row_bytes + col;
                    let phase = (row / sw.per_phase) % sw.max_phase;
                    assert_eq!(lin ^ (phase << 4), slot + sw.offset(row, col));
                    for (dr, dc) in [(8, 0), (16, 0), (0, sw.span()), (8, sw.span())] {
                        if col + dc < sw.row_bytes {
                            let moved = slot + (row + dr) * sw.row_bytes + col + dc;
                            assert_eq!((lin ^ (phase << 4)) + dr * sw.row_bytes + dc, moved ^ (phase << 4));
                        }
                    }
                }
            }
        }
    }
}
