//! The kernel-parameter types: which `lang` types a `kernel!` signature may name, and the
//! handle the body sees for each ([`ParamType`]).

use crate::ir::{ParamKind, ScalarType};
use crate::trace::ParamType;

use super::{DTypeMarker, Ptr, Tensor};

macro_rules! scalar_param {
    ($t:ty, $s:expr) => {
        impl ParamType for $t {
            type Handle = Tensor<$t>;
            const KIND: ParamKind = ParamKind::Scalar($s);
            fn handle(value: crate::ir::Value) -> Tensor<$t> {
                Tensor::from_value(value)
            }
        }
    };
}
scalar_param!(i32, ScalarType::I32);
scalar_param!(i64, ScalarType::I64);
scalar_param!(f32, ScalarType::F32);

impl<E: DTypeMarker> ParamType for Ptr<E> {
    type Handle = Tensor<Ptr<E>>;
    const KIND: ParamKind = ParamKind::Ptr(match E::DTYPE {
        crate::ir::DType::Scalar(s) => s,
        // Pointers to pointers are not kernel parameters; `DTypeMarker` for `Ptr<Ptr<_>>`
        // does not exist, so this arm is unreachable by construction.
        crate::ir::DType::Ptr(s) => s,
    });
    fn handle(value: crate::ir::Value) -> Tensor<Ptr<E>> {
        Tensor::from_value(value)
    }
}
