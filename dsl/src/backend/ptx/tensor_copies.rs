//! Which accesses sm_90's tensor copies (TMA) can make: the tensor map of a descriptor's
//! parts (`ir::desc_parts`), and the stores of a descriptor's block written from shared
//! memory by tensor copies (`lower/tma.rs` lowers both; the layout stage leaves such a
//! store's value in its own layout, since no thread writes global memory).
//!
//! A map's numbers are read from the launch's arguments (`tensor_map.rs`), so each part
//! must be a kernel parameter (through widenings that keep its value) or a constant; the
//! base 16-byte aligned and the strides multiples of 16 bytes by the specialization
//! (Triton's own rule for host descriptors), the last stride 1.

use std::collections::HashMap;

use super::Arch;
use super::axis_info::AxisInfoMap;
use super::lower::MAX_SHARED_BYTES;
use super::tensor_map::{Extent, TensorMap};
use crate::ir::{DType, Kernel, OpId, OpKind, ParamKind, ScalarType, Value, desc_parts};

/// The largest box dim a tensor copy takes.
pub(crate) const MAX_BOX: usize = 256;
/// The address and stride alignment tensor copies need, in bytes.
const TMA_ALIGN: u64 = 16;
/// The widest swizzle span: a box row of shared memory is at most this many bytes.
const PANEL_BYTES: usize = 128;

/// How a store is written by tensor copies: its tile goes to shared memory as `panels`
/// columns of `map.box_dims` (rows of `map.swizzle` bytes, swizzled), one copy a panel.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct TensorStore {
    pub map: TensorMap,
    pub panels: u32,
}

/// The stores of `k` tensor copies write, by op: on sm_90, a 2-D block of `f16`, `bf16` or
/// `f32` through a descriptor whose map the hardware takes, at most 256 rows (a multiple of
/// 8, the swizzle's period) of at least 32 bytes, whose tile fits the shared scratch.
pub(crate) fn tensor_stores(k: &Kernel, ai: &AxisInfoMap, arch: Arch) -> HashMap<OpId, TensorStore> {
    let mut out = HashMap::new();
    if !matches!(arch, Arch::Sm90 | Arch::Sm90a) {
        return out;
    }
    for id in k.walk() {
        let OpKind::Store { ptr, desc, .. } = &k.op(id).kind else { continue };
        let Some(elem) = k.dtype(*ptr).pointee() else { continue };
        if !matches!(elem, ScalarType::F16 | ScalarType::BF16 | ScalarType::F32) {
            continue;
        }
        let shape = k.shape(*ptr).dims();
        let eb = elem.size_bytes() as usize;
        let [rows, cols] = shape[..] else { continue };
        let row_bytes = cols * eb;
        let panel = row_bytes.min(PANEL_BYTES);
        if rows > MAX_BOX
            || !rows.is_multiple_of(8)
            || !matches!(panel, 32 | 64 | 128)
            || !row_bytes.is_multiple_of(panel)
            || rows * row_bytes > MAX_SHARED_BYTES
        {
            continue;
        }
        let box_dims = vec![rows as u32, (panel / eb) as u32];
        if let Some(map) = map_of(k, ai, elem, desc, box_dims, panel as u32) {
            out.insert(id, TensorStore { map, panels: (row_bytes / panel) as u32 });
        }
    }
    out
}

/// The tensor map of the 2-D descriptor `desc` of `elem`s with box `box_dims` and
/// `swizzle`, where the hardware takes one (see the module's rules).
pub(crate) fn map_of(
    k: &Kernel,
    ai: &AxisInfoMap,
    elem: ScalarType,
    desc: &[Value],
    box_dims: Vec<u32>,
    swizzle: u32,
) -> Option<TensorMap> {
    let parts = desc_parts(desc).filter(|p| p.dims.len() == 2)?;
    let eb = elem.size_bytes() as usize;
    let base = param_of(k, parts.base)?;
    if !matches!(k.params[base].kind, ParamKind::Ptr(_))
        || !ai.get(parts.base).divisibility[0].is_multiple_of(TMA_ALIGN)
    {
        return None;
    }
    let dims = parts.dims.iter().map(|&d| extent(k, ai, d)).collect::<Option<Vec<_>>>()?;
    let mut strides = Vec::new();
    for (i, &s) in parts.strides.iter().enumerate() {
        let e = extent(k, ai, s)?;
        let last = i + 1 == parts.strides.len();
        let aligned = match e {
            Extent::Const(c) if last => c == 1,
            Extent::Const(c) => c > 0 && (c as u64 * eb as u64).is_multiple_of(TMA_ALIGN),
            Extent::Param(_) if last => false,
            Extent::Param(_) => (ai.get(s).divisibility[0].saturating_mul(eb as u64)).is_multiple_of(TMA_ALIGN),
        };
        if !aligned {
            return None;
        }
        strides.push(e);
    }
    Some(TensorMap { elem, base, dims, strides, box_dims, swizzle })
}

/// The parameter `v` is (through integer widenings, which keep its value), if it is one.
fn param_of(k: &Kernel, v: Value) -> Option<usize> {
    match &k.def_op(v)?.kind {
        OpKind::Param { index } => Some(*index),
        OpKind::Cast { value } if widens(k.dtype(*value), k.dtype(v)) => param_of(k, *value),
        _ => None,
    }
}

/// Whether a cast from `from` to `to` keeps every integer's value: a signed integer to a
/// signed one at least as wide, an unsigned one to any integer wider (or as wide and
/// unsigned).
fn widens(from: DType, to: DType) -> bool {
    let (DType::Scalar(f), DType::Scalar(t)) = (from, to) else { return false };
    if !f.is_int() || !t.is_int() || f == ScalarType::Bool || t == ScalarType::Bool {
        return false;
    }
    let (fb, tb) = (f.size_bytes(), t.size_bytes());
    match (f.is_signed_int(), t.is_signed_int()) {
        (true, true) | (false, false) => fb <= tb,
        (false, true) => fb < tb,
        (true, false) => false,
    }
}

/// Where the integer scalar `v` comes from at a launch: a parameter (widened, its value
/// unchanged) or a constant.
fn extent(k: &Kernel, ai: &AxisInfoMap, v: Value) -> Option<Extent> {
    if let Some(c) = ai.get(v).constant {
        return Some(Extent::Const(c));
    }
    let p = param_of(k, v)?;
    matches!(k.params[p].kind, ParamKind::Scalar(s) if s.is_int()).then_some(Extent::Param(p))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_casts_that_keep_every_value_lead_back_to_a_parameter() {
        use ScalarType::*;
        let table = [
            (I32, I64, true),
            (I32, I32, true),
            (U32, I64, true),
            (U32, U64, true),
            (U32, I32, false),
            (I64, I32, false),
            (I32, U64, false),
            (Bool, I32, false),
            (I32, F32, false),
        ];
        for (from, to, want) in table {
            assert_eq!(widens(DType::Scalar(from), DType::Scalar(to)), want, "{from} -> {to}");
        }
    }
}
