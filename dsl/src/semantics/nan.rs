//! The canonical NaNs: the one NaN the GPU's arithmetic returns for each float width.
//! Every element function that can produce a NaN returns these bits.

/// The NaN every NVIDIA GPU produces for an f32 NaN result (`max.NaN.f32`, `max.f32` of
/// two NaNs, `0.0 / 0.0`): all exponent and mantissa bits set, sign clear. Measured on an
/// H200 (sm_90); the PTX ISA calls it "canonical NaN".
pub const CANONICAL_NAN_BITS: u32 = 0x7FFF_FFFF;

/// The canonical NaN as an `f32` (see [`CANONICAL_NAN_BITS`]).
pub fn canonical_nan() -> f32 {
    f32::from_bits(CANONICAL_NAN_BITS)
}

/// The canonical f16 / bf16 NaN (`convert`'s narrowing rule).
pub const CANONICAL_NAN16_BITS: u16 = 0x7FFF;
/// The canonical f64 NaN (by analogy with f32's; not yet measured on a GPU).
pub const CANONICAL_NAN64_BITS: u64 = 0x7FFF_FFFF_FFFF_FFFF;
