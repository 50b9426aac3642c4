//! Which `dot`s run on tensor cores, and the accumulator layout each gets.
//!
//! A `dot` of `f16`, `bf16` or `i8` blocks, or of `f32` blocks with `input_precision`
//! `tf32`, is one `mma.sync` per 16x8 output tile and k-step (`lower/mma.rs`). Its
//! accumulator and result are in [`Blocked::mma`] with the warps Triton's
//! `warpsPerTileV2` chooses. An `f32` `dot` under `ieee` stays on CUDA cores (`fma`, the
//! interpreter's order) in the kernel's blocked layout.

use super::Blocked;
use crate::ir::{InputPrecision, Kernel, Op, OpKind, ScalarType};

/// The rows and columns one `mma.sync` result tile has (`m16n8`).
pub const MMA_TILE: [usize; 2] = [16, 8];

/// The operand element type of a `dot` that runs on tensor cores.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum MmaInput {
    /// `m16n8k16`, f32 accumulator.
    F16,
    /// `m16n8k16`, f32 accumulator.
    BF16,
    /// `m16n8k8` on operands rounded to tf32, f32 accumulator.
    Tf32,
    /// `m16n8k32`, s32 accumulator.
    S8,
}

impl MmaInput {
    /// The k of one instruction.
    pub fn k(self) -> usize {
        match self {
            MmaInput::F16 | MmaInput::BF16 => 16,
            MmaInput::Tf32 => 8,
            MmaInput::S8 => 32,
        }
    }

    /// The operand type's name in the PTX instruction.
    pub fn ptx(self) -> &'static str {
        match self {
            MmaInput::F16 => "f16",
            MmaInput::BF16 => "bf16",
            MmaInput::Tf32 => "tf32",
            MmaInput::S8 => "s8",
        }
    }

    /// The `dot` operand element type this instruction takes, `None` when it runs on CUDA
    /// cores.
    pub fn of(elem: ScalarType, precision: InputPrecision) -> Option<MmaInput> {
        match (elem, precision) {
            (ScalarType::F16, _) => Some(MmaInput::F16),
            (ScalarType::BF16, _) => Some(MmaInput::BF16),
            (ScalarType::I8, _) => Some(MmaInput::S8),
            (ScalarType::F32, InputPrecision::Tf32) => Some(MmaInput::Tf32),
            _ => None,
        }
    }
}

/// The tensor-core instruction and the accumulator layout of `op` when it is a `dot`
/// that runs on tensor cores.
pub fn mma_of(k: &Kernel, op: &Op, num_warps: usize) -> Option<(MmaInput, Blocked)> {
    let OpKind::Dot { a, input_precision, .. } = &op.kind else { return None };
    let input = MmaInput::of(k.dtype(*a).scalar()?, *input_precision)?;
    let shape = k.shape(op.results[0]).dims().to_vec();
    let [m, n] = shape[..] else { return None };
    Some((input, Blocked::mma(mma_warps(m, n, num_warps))))
}

/// Triton's `warpsPerTileV2`: warps go along M while each keeps at least as many 16-row
/// tiles as it has pairs of 8-column tiles, else along N; M never gets more warps than
/// it has 16-row tiles. Warps past `N / 8` along N replicate columns.
pub fn mma_warps(m: usize, n: usize, num_warps: usize) -> [usize; 2] {
    let mut w = [1usize, 1];
    while w[0] * w[1] < num_warps {
        if m / MMA_TILE[0] / w[0] >= n / (MMA_TILE[1] * 2) / w[1] {
            if w[0] < m / MMA_TILE[0] {
                w[0] *= 2;
            } else {
                w[1] *= 2;
            }
        } else {
            w[1] *= 2;
        }
    }
    w
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn warps_follow_tritons_rule() {
        assert_eq!(mma_warps(128, 128, 4), [2, 2]);
        assert_eq!(mma_warps(128, 256, 8), [2, 4]);
        assert_eq!(mma_warps(64, 64, 4), [2, 2]);
        assert_eq!(mma_warps(16, 16, 4), [1, 4]);
        assert_eq!(mma_warps(128, 32, 4), [4, 1]);
        assert_eq!(mma_warps(32, 32, 1), [1, 1]);
    }
}
