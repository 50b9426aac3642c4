//! Which `dot`s run on tensor cores, and the accumulator layout each gets.
//!
//! A `dot` of `f16`, `bf16` or `i8` blocks, or of `f32` blocks with `input_precision`
//! `tf32`, is one `mma.sync` per 16x8 output tile and k-step (`lower/mma.rs`). Its
//! accumulator and result are in [`Blocked::mma`] with the warps Triton's
//! `warpsPerTileV2` chooses, including its rule for chained products: `dot`s connected
//! through the ops of one block (attention's `P = softmax(Q K^T)` feeding `P V`) put every
//! warp along the longer dim of the first, and the others follow it, so a row reduction of
//! the product stays within a warp and its accumulator can feed the next product's `a`
//! from registers (`lower/mma.rs`). An `f32` `dot` under `ieee` stays on CUDA cores
//! (`fma`, the interpreter's order) in the kernel's blocked layout.
//!
//! On `sm_90a` a 16-bit `dot` of at least 64 rows takes Triton's `warpsPerTileV3`
//! instead: warps in whole warpgroups along M, so that one `wgmma` of a warpgroup covers
//! its 64 rows and every column (`lower/wgmma.rs`).

use std::collections::HashMap;

use super::assign::Uf;
use super::{Blocked, Layout};
use crate::backend::ptx::Arch;
use crate::ir::{Block, InputPrecision, Kernel, Op, OpId, OpKind, ScalarType, Value, ValueDef};

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

/// The tensor-core instruction of `op` when it is a `dot` that runs on tensor cores.
fn mma_input_of(k: &Kernel, op: &Op) -> Option<MmaInput> {
    let OpKind::Dot { a, input_precision, .. } = &op.kind else { return None };
    let [_, _] = k.shape(op.results[0]).dims()[..] else { return None };
    MmaInput::of(k.dtype(*a).scalar()?, *input_precision)
}

/// The tensor-core instruction and the accumulator layout of every `dot` of `k` that runs
/// on tensor cores, for `num_warps` warps on `arch` (see the module doc for chained
/// products and for `sm_90a`).
pub fn mma_encodings(k: &Kernel, num_warps: usize, arch: Arch) -> HashMap<OpId, (MmaInput, Blocked)> {
    let mut out = HashMap::new();
    let mut blocks = vec![&k.body];
    for id in k.walk() {
        blocks.extend(k.op(id).kind.regions());
    }
    for block in blocks {
        let chains = chains(k, block);
        let mut chain_warps: HashMap<usize, [usize; 2]> = HashMap::new();
        for (i, &id) in block.ops.iter().enumerate() {
            let op = k.op(id);
            let Some(input) = mma_input_of(k, op) else { continue };
            let [m, n] = k.shape(op.results[0]).dims()[..] else { continue };
            let chained = block
                .ops
                .iter()
                .enumerate()
                .any(|(j, &other)| j != i && chains[j] == chains[i] && mma_input_of(k, k.op(other)).is_some());
            let warpgroups = arch == Arch::Sm90a
                && matches!(input, MmaInput::F16 | MmaInput::BF16)
                && m.is_multiple_of(WARPGROUP_ROWS)
                && num_warps.is_multiple_of(WARPGROUP_WARPS);
            let warps = if chained {
                *chain_warps.entry(chains[i]).or_insert_with(|| chained_warps(m, n, num_warps))
            } else if warpgroups {
                wgmma_warps(m, num_warps)
            } else {
                mma_warps(m, n, num_warps)
            };
            out.insert(id, (input, Blocked::mma(warps)));
        }
    }
    out
}

/// For each op of `block` (by position), the component it is in when ops are joined to
/// the ops of the same block whose results they read (Triton's slice of a `dot`, both
/// ways, within its region).
fn chains(k: &Kernel, block: &Block) -> Vec<usize> {
    let at: HashMap<OpId, usize> = block.ops.iter().enumerate().map(|(i, &id)| (id, i)).collect();
    let mut uf = Uf::new(block.ops.len());
    for (i, &id) in block.ops.iter().enumerate() {
        for v in k.op(id).kind.operands() {
            if let ValueDef::Result { op, .. } = k.values[v.index()].def
                && let Some(&j) = at.get(&op)
            {
                uf.union(i, j);
            }
        }
    }
    (0..block.ops.len()).map(|i| uf.find(i)).collect()
}

/// Triton's warps for a chained product: all along M when `M >= N`, else all along N,
/// as far as that dim has 16-row (8-column) tiles; the rest go along the other dim.
pub fn chained_warps(m: usize, n: usize, num_warps: usize) -> [usize; 2] {
    if m >= n {
        let along = num_warps.min((m / MMA_TILE[0]).max(1));
        [along, num_warps / along]
    } else {
        let along = num_warps.min((n / MMA_TILE[1]).max(1));
        [num_warps / along, along]
    }
}

/// Warps of a warpgroup (`wgmma` is issued by 4 warps together).
pub const WARPGROUP_WARPS: usize = 4;
/// Rows one `wgmma` computes (`m64`): 16 a warp of the warpgroup.
pub const WARPGROUP_ROWS: usize = 64;

/// Triton's `warpsPerTileV3` for a product not chained to another: one warpgroup along M,
/// doubled along M while M has rows for more (16 a warp), the rest along N.
pub fn wgmma_warps(m: usize, num_warps: usize) -> [usize; 2] {
    let mut w = [WARPGROUP_WARPS, 1];
    while w[0] * w[1] < num_warps {
        if m > MMA_TILE[0] * w[0] {
            w[0] *= 2;
        } else {
            w[1] *= 2;
        }
    }
    w
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

/// The tensor-core input of a `dot` (`lower/mma.rs`'s `mma_input`) whose result is in `result` and whose `a` is `a`, out
/// of the lowering, for the decisions made before it (`ring.rs`'s reads in place).
pub(crate) fn tensor_core_input(
    k: &Kernel,
    result: Option<&Layout>,
    a: Value,
    input: Option<MmaInput>,
) -> Option<MmaInput> {
    let input = input?;
    let on_mma = result.is_some_and(|l| l.enc.is_mma() && l.embed == [0, 1]);
    let k = k.shape(a).dims()[1];
    (on_mma && k.is_multiple_of(input.k())).then_some(input)
}

/// [`tensor_core_input`] of the `dot` `op` (`None` for any other op), from the layouts.
pub(crate) fn dot_input(k: &Kernel, layouts: &[Option<Layout>], op: &Op) -> Option<MmaInput> {
    let OpKind::Dot { a, input_precision, .. } = &op.kind else { return None };
    let elem = k.dtype(*a).scalar()?;
    tensor_core_input(k, layouts[op.results[0].index()].as_ref(), *a, MmaInput::of(elem, *input_precision))
}

/// The block `v` transposes (`trans(x)`, a `permute` with dims `[1, 0]`) when every use of
/// `v` is the `b` of a tensor-core `dot` of 16-bit inputs (directly, or through its
/// `#dot_op` conversion): such a `dot` stages `x` as it is
/// (`[N, K]`, each row one column of `b`) and reads `b`'s fragments with `ldmatrix` without
/// `.trans`, so the transpose moves no element (Triton's dot operand of a transposed
/// shared layout). A function of the layouts alone, so the layouts text shows it.
pub(crate) fn transposed_operand(k: &Kernel, layouts: &[Option<Layout>], v: Value) -> Option<Value> {
    let Some(OpKind::Permute { value, dims }) = k.def_op(v).map(|op| &op.kind) else { return None };
    if dims[..] != [1, 0] {
        return None;
    }
    let mut uses = 0;
    for (id, x) in super::operand_reads::readers(k, layouts, v) {
        let op = k.op(id);
        let OpKind::Dot { a, b, acc, .. } = &op.kind else { return None };
        if !matches!(dot_input(k, layouts, op), Some(MmaInput::F16 | MmaInput::BF16)) || *b != x || *a == x || *acc == x
        {
            return None;
        }
        uses += 1;
    }
    (uses > 0).then_some(*value)
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

    #[test]
    fn warpgroups_go_along_m_while_it_has_rows() {
        assert_eq!(wgmma_warps(128, 8), [8, 1]);
        assert_eq!(wgmma_warps(256, 8), [8, 1]);
        assert_eq!(wgmma_warps(64, 8), [4, 2]);
        assert_eq!(wgmma_warps(64, 4), [4, 1]);
        assert_eq!(wgmma_warps(128, 4), [4, 1]);
    }

    #[test]
    fn chained_products_put_every_warp_along_the_longer_dim() {
        assert_eq!(chained_warps(128, 64, 4), [4, 1]);
        assert_eq!(chained_warps(128, 128, 8), [8, 1]);
        assert_eq!(chained_warps(64, 128, 4), [1, 4]);
        // Past the 16-row tiles the rest go along N.
        assert_eq!(chained_warps(64, 64, 8), [4, 2]);
        assert_eq!(chained_warps(16, 16, 4), [1, 4]);
    }
}
