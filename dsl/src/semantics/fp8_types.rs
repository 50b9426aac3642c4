//! The 8-bit float element types, Triton's `tl.float8e4nv` ([`F8E4M3`]) and
//! `tl.float8e5` ([`F8E5M2`]), exported by `rtriton::lang` and the prelude: one byte each
//! (`bytemuck::Pod`), usable as `Ptr<F8E4M3>` and `.to::<F8E5M2>()` in kernels. They are
//! storage types: a kernel loads, stores, selects, converts and `dot`s them (widened to
//! `f16`); other arithmetic needs a conversion to `f16` or `f32` first (the front end
//! refuses it with a located error).
//! They live here, under the interpreter, which holds blocks of them; the conversions
//! are `semantics/fp8.rs`'s.

use crate::semantics::fp8::{Fp8Format, decode_to_f16_bits, decode_to_f32, encode_f32};

macro_rules! fp8_type {
    ($(#[$doc:meta])* $name:ident, $format:expr) => {
        $(#[$doc])*
        #[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord, bytemuck::Pod, bytemuck::Zeroable)]
        #[repr(transparent)]
        pub struct $name(u8);

        impl $name {
            /// The format of this type's codes.
            pub const FORMAT: Fp8Format = $format;
            /// The code `0x7F`, the NaN every encoding of a NaN gives.
            pub const NAN: $name = $name(crate::semantics::fp8::FP8_NAN_CODE);
            /// The largest finite value (448 for e4m3, 57344 for e5m2).
            pub const MAX: $name = $name($format.max_finite_code());

            pub const fn from_bits(bits: u8) -> $name {
                $name(bits)
            }

            pub const fn to_bits(self) -> u8 {
                self.0
            }

            /// Exact (a NaN as described in `docs/semantics.md`, "fp8").
            pub fn to_f32(self) -> f32 {
                decode_to_f32($format, self.0)
            }

            /// Exact (a NaN as described in `docs/semantics.md`, "fp8").
            pub fn to_f16(self) -> half::f16 {
                half::f16::from_bits(decode_to_f16_bits($format, self.0))
            }

            /// Rounded to nearest even, saturating at the largest finite value; NaN gives
            /// [`Self::NAN`].
            pub fn from_f32(x: f32) -> $name {
                $name(encode_f32($format, x))
            }

            pub fn is_nan(self) -> bool {
                $format.is_nan_magnitude(self.0 & 0x7F)
            }
        }

        /// The decoded value, as `f32` prints it.
        impl std::fmt::Display for $name {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                std::fmt::Display::fmt(&self.to_f32(), f)
            }
        }
    };
}

fp8_type!(
    /// Triton's `float8e4nv` (e4m3fn): bias 7, no infinities, NaN `S.1111.111`, largest
    /// finite 448.
    F8E4M3,
    Fp8Format::E4M3
);
fp8_type!(
    /// Triton's `float8e5` (e5m2): bias 15, IEEE-like infinities and NaNs, largest finite
    /// 57344.
    F8E5M2,
    Fp8Format::E5M2
);
