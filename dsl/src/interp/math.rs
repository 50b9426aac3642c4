//! Math on whole blocks where an op takes several operands (`fma`); the element models
//! are [`crate::semantics::math`]'s.

use crate::semantics::math::fma_f32;

use super::value::{Data, Trap, unsupported};

/// `fma(a, b, c)` element-wise on three blocks of one float dtype and shape.
pub(crate) fn fma(a: &Data, b: &Data, c: &Data) -> Result<Data, Trap> {
    match (a, b, c) {
        (Data::F32(a), Data::F32(b), Data::F32(c)) => {
            Ok(Data::F32(a.iter().zip(b).zip(c).map(|((&a, &b), &c)| fma_f32(a, b, c)).collect()))
        }
        (a, b, c) => unsupported(format!("`fma` on {}, {} and {}", a.kind(), b.kind(), c.kind())),
    }
}
