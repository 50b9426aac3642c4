//! The attributes of the atomic ops ([`super::OpKind::AtomicRmw`],
//! [`super::OpKind::AtomicCas`]): which read-modify-write, and Triton's memory-order
//! (`sem`) and scope arguments. The element semantics are in `docs/semantics.md`
//! ("Atomics") and `interp/atomic.rs`.

use std::fmt;

use super::ScalarType;

/// The read-modify-write an [`super::OpKind::AtomicRmw`] applies to each element:
/// `old = *p; *p = old op value; result = old`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum AtomicOp {
    /// Integers wrap; `f32` adds once, rounding to nearest even with subnormal inputs and
    /// results flushed to zero (PTX `atom.global.add.f32`).
    Add,
    /// Signed or unsigned by the dtype; `f32` compares by IEEE 754 `totalOrder`.
    Max,
    /// As [`AtomicOp::Max`], the smaller.
    Min,
    /// Bitwise, integers only.
    And,
    Or,
    Xor,
    /// Stores `value` (any dtype, bit for bit).
    Xchg,
}

impl AtomicOp {
    /// Triton's name of the op (`atomic_add`...), also its name in IR text.
    pub fn name(self) -> &'static str {
        match self {
            AtomicOp::Add => "atomic_add",
            AtomicOp::Max => "atomic_max",
            AtomicOp::Min => "atomic_min",
            AtomicOp::And => "atomic_and",
            AtomicOp::Or => "atomic_or",
            AtomicOp::Xor => "atomic_xor",
            AtomicOp::Xchg => "atomic_xchg",
        }
    }

    /// Whether the op is defined on pointees of type `elem`: 32- and 64-bit integers for
    /// every op, 32-bit floats for add, max, min and xchg (PTX has no float bitwise atomics,
    /// and `i1` is a byte in memory, which no atomic addresses).
    pub fn accepts(self, elem: ScalarType) -> bool {
        let int = elem.int_bits().is_some_and(|b| b == 32 || b == 64);
        let f32 = elem == ScalarType::F32;
        match self {
            AtomicOp::Add | AtomicOp::Max | AtomicOp::Min | AtomicOp::Xchg => int || f32,
            AtomicOp::And | AtomicOp::Or | AtomicOp::Xor => int,
        }
    }
}

/// Whether [`super::OpKind::AtomicCas`] is defined on pointees of type `elem`: 32- and
/// 64-bit elements, compared bit for bit.
pub fn cas_accepts(elem: ScalarType) -> bool {
    elem.is_float() && elem.size_bytes() == 4 || elem.int_bits().is_some_and(|b| b == 32 || b == 64)
}

/// Triton's `sem`: how an atomic orders the program's other memory accesses (PTX
/// `.relaxed`, `.acquire`, `.release`, `.acq_rel`). Every value is valid for every atomic.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum Sem {
    /// Atomic, no ordering of other accesses.
    Relaxed,
    /// Later accesses of this thread stay after it.
    Acquire,
    /// Earlier accesses of this thread stay before it.
    Release,
    /// Both (Triton's default).
    #[default]
    AcqRel,
}

impl Sem {
    /// Triton's spelling, also the PTX qualifier without its dot.
    pub fn name(self) -> &'static str {
        match self {
            Sem::Relaxed => "relaxed",
            Sem::Acquire => "acquire",
            Sem::Release => "release",
            Sem::AcqRel => "acq_rel",
        }
    }
}

/// Triton's `scope`: which threads the atomic is atomic with (PTX `.cta`, `.gpu`, `.sys`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum Scope {
    /// Atomic only with the threads of the same program (CTA): two programs updating one
    /// element with `cta` atomics race.
    Cta,
    /// Atomic with every thread of the launch (Triton's default).
    #[default]
    Gpu,
    /// Atomic with the host and other devices too.
    Sys,
}

impl Scope {
    /// Triton's spelling, also the PTX qualifier without its dot.
    pub fn name(self) -> &'static str {
        match self {
            Scope::Cta => "cta",
            Scope::Gpu => "gpu",
            Scope::Sys => "sys",
        }
    }
}

impl fmt::Display for Sem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl fmt::Display for Scope {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}
