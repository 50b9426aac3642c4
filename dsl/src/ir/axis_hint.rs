//! The analysis hints `max_contiguous` and `max_constancy` (Triton's `tl.max_contiguous`,
//! `tl.max_constancy`): which fact each promises, and their typing rule. `multiple_of`,
//! which the interpreter checks, is an op of its own.

use std::fmt;

use super::Value;
use super::typing::TypeCx;

/// What an `AxisHint` op promises about its operand along each dim.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum HintKind {
    /// `max_contiguous`: the values come in runs of `n` consecutive integers (pointers:
    /// consecutive elements), runs starting at indices that are multiples of `n`.
    Contiguity,
    /// `max_constancy`: the values come in runs of `n` equal values, runs starting at
    /// indices that are multiples of `n`.
    Constancy,
}

impl HintKind {
    pub const ALL: [HintKind; 2] = [HintKind::Contiguity, HintKind::Constancy];

    /// The op's name in IR text and the function's in the language.
    pub fn name(self) -> &'static str {
        match self {
            HintKind::Contiguity => "max_contiguous",
            HintKind::Constancy => "max_constancy",
        }
    }
}

impl fmt::Display for HintKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// One value per dim of the operand (a scalar counts as one dim), each at least 1; the
/// result has the operand's type.
pub fn typing(cx: &TypeCx<'_>, out: &mut Vec<String>, hint: HintKind, value: Value, values: &[u64]) {
    let t = cx.kernel.ty(value);
    let dims = t.shape.rank().max(1);
    if values.len() != dims {
        out.push(format!("{hint} of a {t} takes {dims} value(s), one per dim, got {}", values.len()));
    }
    if values.contains(&0) {
        out.push(format!("{hint} values must be at least 1, got {values:?}"));
    }
    if cx.op.results.len() != 1 || cx.op.results.first().map(|r| cx.kernel.ty(*r)) != Some(t) {
        out.push(format!("{hint} has one result, of its operand's type {t}"));
    }
}
