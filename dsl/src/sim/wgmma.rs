//! What `wgmma.mma_async` computes for one warpgroup, apart from the CTA's registers and
//! checks (`cta/wgmma.rs` gathers the operands, runs the checks and holds the results
//! until `wgmma.wait_group`).
//!
//! `B` is read through its shared-memory matrix descriptor (PTX ISA, "Matrix Descriptor
//! Format" and "Shared Memory Matrix Layout"): the start address, the leading and stride
//! byte offsets and the swizzle mode give each element's address in the canonical layouts
//! (16-bit elements, `T = 8` a 16-byte chunk):
//! - `K`-major (`[n, k]` rows): `((8, m), (T, 2k)) : ((row, SBO), (1, T))`, rows of the
//!   swizzle's width (32, 64 or 128 bytes);
//! - `N`-major (`[k, n]` rows): `((T, row / 16, m), (8, k)) : ((1, T, LBO), (row, SBO))`;
//!
//! then the swizzle (`Swizzle<b, 4, 3>`, `b = log2(row / 16)`: bits `4..4 + b` of the
//! address `xor` bits `7..7 + b`). The arithmetic is the interpreter's `dot`: per output
//! element one `fma` per `k` in increasing order, from the accumulator's value.

use half::{bf16, f16};

use crate::backend::ptx::layout::MmaInput;
use crate::semantics::convert::{bf16_to_f32, f16_to_f32};
use crate::semantics::math::fma_f32;

/// Rows of `A` and `D` one `wgmma` computes.
pub(crate) const ROWS: usize = 64;
/// `k` of one 16-bit `wgmma`.
pub(crate) const K: usize = 16;

/// A decoded shared-memory matrix descriptor.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Descriptor {
    pub start: u32,
    pub leading: u32,
    pub stride: u32,
    /// Bytes of a swizzled row: 128, 64 or 32.
    pub row_bytes: u32,
}

impl Descriptor {
    /// The fields of `desc`, or why the simulator does not model it (no swizzle, a base
    /// offset).
    pub fn decode(desc: u64) -> Result<Descriptor, String> {
        let field = |at: u32| (((desc >> at) & 0x3fff) as u32) << 4;
        let row_bytes = match desc >> 62 {
            1 => 128,
            2 => 64,
            3 => 32,
            _ => return Err("a wgmma descriptor without a swizzle mode (interleaved layouts)".to_string()),
        };
        if (desc >> 49) & 0x7 != 0 {
            return Err("a wgmma descriptor with a matrix base offset".to_string());
        }
        Ok(Descriptor { start: field(0), leading: field(16), stride: field(32), row_bytes })
    }

    /// The shared byte address of 16-bit element `(k, n)` of `B`, held `N`-major
    /// (`trans_b`) or `K`-major.
    pub fn b_elem(&self, trans_b: bool, k: usize, n: usize) -> u32 {
        let (k, n) = (k as u32, n as u32);
        let row = self.row_bytes;
        let at = if trans_b {
            let per_row = row / 2;
            self.start + (n % per_row) * 2 + (n / per_row) * self.leading + (k % 8) * row + (k / 8) * self.stride
        } else {
            self.start + (n % 8) * row + (n / 8) * self.stride + k * 2
        };
        swizzle(at, row)
    }
}

/// `Swizzle<b, 4, 3>` of a byte address for rows of `row_bytes`.
pub(crate) fn swizzle(at: u32, row_bytes: u32) -> u32 {
    let bits = (row_bytes / 16).trailing_zeros();
    let mask = (1 << bits) - 1;
    at ^ (((at >> 7) & mask) << 4)
}

/// `D = A B + C` of one warpgroup's tiles, row-major: `a` (`[64, 16]`), `b` (`[16, n]`)
/// element bits, `c` (`[64, n]`) f32 bits.
pub(crate) fn product(input: MmaInput, a: &[u32], b: &[u32], c: &[u32], n: usize) -> Vec<u32> {
    let widen: fn(u32) -> f32 = match input {
        MmaInput::BF16 => |x| bf16_to_f32(bf16::from_bits(x as u16)),
        _ => |x| f16_to_f32(f16::from_bits(x as u16)),
    };
    (0..ROWS * n)
        .map(|i| {
            let (row, col) = (i / n, i % n);
            let mut acc = f32::from_bits(c[i]);
            for k in 0..K {
                acc = fma_f32(widen(a[row * K + k]), widen(b[k * n + col]), acc);
            }
            acc.to_bits()
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn desc(start: u32, leading: u32, stride: u32, mode: u64) -> u64 {
        u64::from(start >> 4) | u64::from(leading >> 4) << 16 | u64::from(stride >> 4) << 32 | mode << 62
    }

    #[test]
    fn descriptors_decode_their_fields() {
        let d = Descriptor::decode(desc(1024, 8192, 1024, 1)).unwrap();
        assert_eq!(d, Descriptor { start: 1024, leading: 8192, stride: 1024, row_bytes: 128 });
        assert_eq!(Descriptor::decode(desc(0, 16, 512, 2)).unwrap().row_bytes, 64);
        assert!(Descriptor::decode(desc(0, 16, 512, 0)).is_err(), "no swizzle");
        assert!(Descriptor::decode(desc(0, 16, 512, 1) | 1 << 49).is_err(), "a base offset");
    }

    /// The 128-byte swizzle is Triton's `perPhase 1, maxPhase 8` for 128-byte rows (the
    /// layout `lower/swizzle.rs` gives ring slots): chunk `c` of row `r` at `c ^ (r % 8)`.
    #[test]
    fn the_swizzle_moves_chunks_by_the_row_phase() {
        for row in 0..16u32 {
            for chunk in 0..8u32 {
                assert_eq!(swizzle(row * 128 + chunk * 16, 128), row * 128 + (chunk ^ (row % 8)) * 16);
                assert_eq!(swizzle(row * 64 + (chunk % 4) * 16, 64), row * 64 + ((chunk % 4) ^ ((row / 2) % 4)) * 16);
                assert_eq!(swizzle(row * 32 + (chunk % 2) * 16, 32), row * 32 + ((chunk % 2) ^ ((row / 4) % 2)) * 16);
            }
        }
    }

    /// `N`-major: 64-element panels `leading` bytes apart, groups of 8 `k` rows `stride`
    /// apart; `K`-major: `n` rows of 128 bytes, groups of 8 `stride` apart.
    #[test]
    fn elements_sit_where_the_canonical_layouts_put_them() {
        let d = Descriptor::decode(desc(0, 8192, 1024, 1)).unwrap();
        assert_eq!(d.b_elem(true, 0, 0), 0);
        assert_eq!(d.b_elem(true, 0, 65), 8192 + 2);
        assert_eq!(d.b_elem(true, 9, 0), 1024 + 128 + 16, "row 9: phase 1 moves chunk 0 to 1");
        let d = Descriptor::decode(desc(32, 1, 1024, 1)).unwrap();
        assert_eq!(d.b_elem(false, 0, 0), 32);
        assert_eq!(d.b_elem(false, 3, 9), 1024 + 128 + (2 ^ 1) * 16 + 6);
    }

    #[test]
    fn the_product_adds_in_k_order_from_the_accumulator() {
        let one = u32::from(f16::from_f32(1.0).to_bits());
        let a = vec![one; ROWS * K];
        let b = vec![one; K * 8];
        let c = vec![0.5f32.to_bits(); ROWS * 8];
        let d = product(MmaInput::F16, &a, &b, &c, 8);
        assert!(d.iter().all(|&x| f32::from_bits(x) == 16.5));
    }
}
