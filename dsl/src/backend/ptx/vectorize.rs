//! Where the vector width of every load and store is decided.
//!
//! Triton's rule (`Coalesce.cpp`, `getMaskAlignment`, `getPtrAlignment`): along the dim of
//! the access that lies along the layout's fastest dim (`order[0]`, chosen by
//! [`super::coalesce`]: the last dim unless the pointer is more contiguous along another),
//!
//! ```text
//! width = min(16 bytes / element size,        // at most 128-bit accesses
//!             contiguity(ptr),                // consecutive addresses
//!             divisibility(ptr) / element size, // aligned to the vector size
//!             constancy(mask),                 // one predicate for the vector
//!             elements per thread along the dim) // the layout's chunk
//! ```
//!
//! rounded down to a power of two. All facts come from [`super::axis_info`]; nothing is
//! assumed: without a proof the access is scalar, so a vector access is never misaligned.
//! The widest provable load sets the kernel layout's `sizePerThread` along the fastest dim
//! (`coalesce.rs`); each access then gets `min(provable, chunk)` ([`decide`]).

use super::axis_info::{AxisInfoMap, MAX_DIVISOR};
use crate::ir::{Kernel, ScalarType, Value};

/// Widest access in bytes (`ld.global.v4.f32`).
pub const MAX_VECTOR_BYTES: u64 = 16;

/// Most registers of one access: PTX's `ld`/`st` vectors are `.v2` and `.v4` (so bytes go
/// at most 4 at a time).
pub const MAX_VECTOR_ELEMS: u64 = 4;

/// The widest vector of `elem_bytes`-byte elements: 16 bytes in at most four registers,
/// except that 16-bit floats held in 16-bit registers (`packs_pairs`) travel two to a
/// 32-bit word, so eight of them make one `ld.global.v4.b32` (as Triton loads f16).
fn max_elems(elem_bytes: u64, packs_pairs: bool) -> u64 {
    let per_register = if packs_pairs { 2 } else { 1 };
    (MAX_VECTOR_BYTES / elem_bytes).min(MAX_VECTOR_ELEMS * per_register)
}

/// Whether accesses of `dtype` elements may pack two into a 32-bit word: f16 and bf16,
/// which live in 16-bit registers (`i16` lives sign-extended in a 32-bit one).
pub fn packs_pairs(dtype: Option<ScalarType>) -> bool {
    matches!(dtype, Some(ScalarType::F16 | ScalarType::BF16))
}

/// What is known about one access along one of its dims (the one its vectors run along).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Facts {
    pub elem_bytes: u64,
    /// The elements may go two to a 32-bit word ([`packs_pairs`]).
    pub packs_pairs: bool,
    pub contiguity: u64,
    /// Bytes the first address of each contiguous run is a multiple of.
    pub align_bytes: u64,
    /// Runs of equal mask values (`None`: no mask).
    pub mask_constancy: Option<u64>,
    /// The access's extent along the dim.
    pub extent: u64,
}

impl Facts {
    /// The facts of a load or store through `ptr` with `mask` along the pointer's dim
    /// `dim` (scalars: width 1).
    pub fn of(k: &Kernel, ai: &AxisInfoMap, ptr: Value, mask: Option<Value>, dim: usize) -> Facts {
        let pointee = k.dtype(ptr).pointee();
        let elem_bytes = pointee.map_or(4, |s| s.size_bytes());
        let shape = k.shape(ptr).dims();
        let p = ai.get(ptr);
        let d = dim.min(p.contiguity.len() - 1);
        let scalar = shape.is_empty();
        Facts {
            elem_bytes,
            packs_pairs: packs_pairs(pointee),
            contiguity: if scalar { 1 } else { p.contiguity[d] },
            align_bytes: p.divisibility[d],
            mask_constancy: mask.map(|m| ai.get(m).constancy[d]),
            extent: shape.get(d).map_or(1, |&x| x as u64),
        }
    }

    /// The widest width these facts prove (before the layout's chunk).
    pub fn provable(&self) -> u64 {
        let w = max_elems(self.elem_bytes, self.packs_pairs)
            .min(self.contiguity)
            .min((self.align_bytes / self.elem_bytes).max(1))
            .min(self.mask_constancy.unwrap_or(MAX_DIVISOR))
            .min(self.extent)
            .max(1);
        1 << (63 - w.leading_zeros())
    }
}

/// The width of one access whose thread chunk along the last dim is `chunk` elements,
/// and the reason in words (which fact bound it).
pub fn decide(f: &Facts, chunk: u64) -> (u32, String) {
    let width = f.provable().min(chunk.max(1));
    let width = 1u64 << (63 - width.leading_zeros());
    let mask = match f.mask_constancy {
        None => "no mask".to_string(),
        Some(c) if c >= MAX_DIVISOR => "mask uniform".to_string(),
        Some(c) => format!("mask constant in runs of {c}"),
    };
    let align = if f.align_bytes >= MAX_DIVISOR { "any".to_string() } else { format!("{} B", f.align_bytes) };
    let facts = format!(
        "contiguity {}, alignment {align}, {mask}, {chunk} per thread, {} B elements",
        f.contiguity, f.elem_bytes
    );
    let max = max_elems(f.elem_bytes, f.packs_pairs);
    let mut limits = Vec::new();
    if width < max {
        if f.contiguity < max {
            limits.push(if f.contiguity == 1 {
                "addresses not provably consecutive (offsets multiplied by a runtime stride; a stride specialized to 1 keeps them contiguous)".to_string()
            } else {
                format!("only {} consecutive addresses", f.contiguity)
            });
        }
        if f.align_bytes < MAX_VECTOR_BYTES.min(max * f.elem_bytes) {
            limits.push(format!(
                "base alignment only {} B provable (16-byte alignment hints on the pointer and a row stride divisible by 16 give 16 B)",
                f.align_bytes
            ));
        }
        if let Some(c) = f.mask_constancy
            && c < max
        {
            limits.push(format!(
                "the mask may change every {c} elements (a bound divisible by 16 keeps it constant per vector)"
            ));
        }
        if chunk < max {
            limits.push(format!("the layout gives each thread {chunk} consecutive element(s)"));
        }
        if f.extent < max {
            limits.push(format!("the block is {} elements wide", f.extent));
        }
    }
    if f.extent == 1 && f.contiguity == 1 {
        return (1, "scalar: a single element per access (a scalar or a block 1 wide)".to_string());
    }
    let verdict = if width == 1 { "scalar".to_string() } else { format!("v{width}") };
    let reason = if limits.is_empty() {
        format!("{verdict}: {facts}")
    } else {
        format!("{verdict}: {facts}; limited by: {}", limits.join("; "))
    };
    (width as u32, reason)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn facts(contiguity: u64, align_bytes: u64, mask_constancy: Option<u64>) -> Facts {
        Facts { elem_bytes: 4, packs_pairs: false, contiguity, align_bytes, mask_constancy, extent: 1024 }
    }

    #[test]
    fn width_is_the_tightest_bound() {
        let table = [
            (facts(1024, 16, Some(16)), 4, 4),
            (facts(1024, 16, None), 8, 4),
            (facts(1024, 8, Some(16)), 4, 2),
            (facts(1024, 4, Some(16)), 4, 1),
            (facts(1, 16, Some(16)), 4, 1),
            (facts(1024, 16, Some(1)), 4, 1),
            (facts(1024, 16, Some(2)), 4, 2),
            (facts(1024, 16, Some(16)), 1, 1),
        ];
        for (f, chunk, want) in table {
            assert_eq!(decide(&f, chunk).0, want, "{f:?} chunk {chunk}");
        }
    }

    /// 16 bytes of 16-bit floats are eight elements in four 32-bit words; 16-bit ints
    /// (in 32-bit registers) and bytes stop at four registers.
    #[test]
    fn sixteen_bit_floats_go_eight_at_a_time() {
        let with = |elem_bytes, packs_pairs| Facts { elem_bytes, packs_pairs, ..facts(1024, 16, Some(16)) };
        let table = [(with(2, true), 8, 8), (with(2, true), 4, 4), (with(2, false), 8, 4), (with(1, false), 16, 4)];
        for (f, chunk, want) in table {
            assert_eq!(decide(&f, chunk).0, want, "{f:?} chunk {chunk}");
        }
        assert!(packs_pairs(Some(ScalarType::F16)) && packs_pairs(Some(ScalarType::BF16)));
        assert!(!packs_pairs(Some(ScalarType::I16)) && !packs_pairs(Some(ScalarType::F32)) && !packs_pairs(None));
    }
}
