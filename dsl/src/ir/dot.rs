//! The rules of `dot` (Triton's `tl.dot`) that the front end and the verifier share: which
//! operand dtypes go with which accumulator, which shapes are allowed, and the
//! `input_precision` attribute. The semantics are in `interp/dot.rs` and
//! `docs/semantics.md` ("dot").

use std::fmt;

use super::{DType, ScalarType, Shape};

/// How `f32` operands of a `dot` are multiplied (Triton's `input_precision`). Operands of
/// other dtypes ignore it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum InputPrecision {
    /// Each product exact, accumulated with one `fma` per `k` (CUDA cores).
    #[default]
    Ieee,
    /// Both operands first rounded to tf32 (10 mantissa bits, `cvt.rna.tf32.f32`), then
    /// as `Ieee` (what tensor cores compute, up to the accumulation order).
    Tf32,
}

impl InputPrecision {
    /// Triton's spelling.
    pub fn name(self) -> &'static str {
        match self {
            InputPrecision::Ieee => "ieee",
            InputPrecision::Tf32 => "tf32",
        }
    }

    /// Every value, for the IR text parser.
    pub const ALL: [InputPrecision; 2] = [InputPrecision::Ieee, InputPrecision::Tf32];
}

impl fmt::Display for InputPrecision {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// The smallest size of each of `M`, `N` and `K` (Triton's minimum, the tensor cores'
/// smallest tile side).
pub const DOT_MIN_DIM: usize = 16;

/// The accumulator (and result) dtype of a `dot` of `a` by `b`, or why the pair is not
/// one `dot` takes: `f16 x f16` and `bf16 x bf16` accumulate in `f32`, `f32 x f32` in
/// `f32`, `i8 x i8` in `i32`.
pub fn dot_acc_type(a: DType, b: DType) -> Result<ScalarType, String> {
    use ScalarType as S;
    let (Some(sa), Some(sb)) = (a.scalar(), b.scalar()) else {
        return Err(format!("dot takes blocks of numbers, got {a} and {b}"));
    };
    match (sa, sb) {
        (S::F16, S::F16) | (S::BF16, S::BF16) | (S::F32, S::F32) => Ok(S::F32),
        (S::I8, S::I8) => Ok(S::I32),
        // any other pair of scalar dtypes: two different ones, or one `dot` does not take
        _ if sa != sb => Err(format!("dot operands of two dtypes, {sa} and {sb}")),
        _ => Err(format!("dot is not defined on {sa} (it takes f16, bf16, f32 or i8)")),
    }
}

/// What is wrong with the shapes of a `dot` of `a` by `b` (`[M, K]` by `[K, N]`, each of
/// `M`, `N`, `K` a power of two of at least [`DOT_MIN_DIM`]); `None` when they fit. The
/// result is `[M, N]`.
pub fn dot_shape_problem(a: &Shape, b: &Shape) -> Option<String> {
    if a.rank() != 2 || b.rank() != 2 {
        return Some(format!("dot takes 2-D blocks, got shapes {a} and {b}"));
    }
    let (m, k, k2, n) = (a.dims()[0], a.dims()[1], b.dims()[0], b.dims()[1]);
    if k != k2 {
        return Some(format!("dot of shapes {a} and {b}: the inner dims differ ({k} and {k2})"));
    }
    for (name, d) in [("M", m), ("N", n), ("K", k)] {
        if d < DOT_MIN_DIM || !d.is_power_of_two() {
            return Some(format!(
                "dot of shapes {a} and {b}: {name} = {d} is not a power of two of at least {DOT_MIN_DIM}"
            ));
        }
    }
    None
}
