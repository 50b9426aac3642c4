//! Element types and block shapes.
//!
//! Every IR value is a block tensor: a [`DType`] plus a compile-time [`Shape`]. A 0-d
//! shape (`[]`) is a scalar; kernel arguments, program ids and reduction results of
//! 1-d blocks are scalars.

use std::fmt;

/// Triton's limit on the number of elements of a block (`TRITON_MAX_TENSOR_NUMEL`): the
/// front end refuses a larger block and the interpreter never builds one.
pub const MAX_BLOCK_NUMEL: usize = 1 << 20;

/// A scalar element type that values and pointees can have.
///
/// The types after `F32` were added with the dtype table of `docs/semantics.md`
/// ("Dtypes"); they are appended so existing discriminants (and hashes of cache keys)
/// keep their values.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum ScalarType {
    /// `i1`: masks and comparison results.
    Bool,
    /// `i32`: Triton's default index type; arithmetic wraps on overflow.
    I32,
    /// `i64`: the type index math is widened to by explicit promotion.
    I64,
    /// `f32`.
    F32,
    /// `i8`: a storage type; arithmetic runs in `i32` (see [`ScalarType::compute_type`]).
    I8,
    /// `i16`: a storage type; arithmetic runs in `i32`.
    I16,
    /// `u8`: a storage type; arithmetic runs in `i32` (the values 0..=255 are exact there).
    U8,
    /// `u32`: unsigned arithmetic, comparisons and division.
    U32,
    /// `u64`.
    U64,
    /// IEEE binary16 (`half::f16`): a storage type; arithmetic runs in `f32`.
    F16,
    /// bfloat16 (`half::bf16`): a storage type; arithmetic runs in `f32`.
    BF16,
    /// IEEE binary64.
    F64,
    /// Triton's `float8e4nv` (e4m3fn, `lang::F8E4M3`): a storage type; arithmetic is
    /// refused until it is converted (`docs/semantics.md`, "fp8").
    F8E4M3,
    /// Triton's `float8e5` (e5m2, `lang::F8E5M2`): a storage type, as `F8E4M3`.
    F8E5M2,
}

/// What kind of number a scalar type holds (Triton's `dtype.kind()`, ordered as Triton
/// orders kinds for promotion: bool < unsigned < signed < float).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum ScalarKind {
    Bool,
    UnsignedInt,
    SignedInt,
    Float,
}

impl ScalarType {
    /// Every scalar type, in declaration order (for tables and tests).
    pub const ALL: [ScalarType; 14] = [
        ScalarType::Bool,
        ScalarType::I32,
        ScalarType::I64,
        ScalarType::F32,
        ScalarType::I8,
        ScalarType::I16,
        ScalarType::U8,
        ScalarType::U32,
        ScalarType::U64,
        ScalarType::F16,
        ScalarType::BF16,
        ScalarType::F64,
        ScalarType::F8E4M3,
        ScalarType::F8E5M2,
    ];

    /// Size in bytes when stored in memory (`bool` is stored as one byte).
    pub fn size_bytes(self) -> u64 {
        match self {
            ScalarType::Bool | ScalarType::I8 | ScalarType::U8 | ScalarType::F8E4M3 | ScalarType::F8E5M2 => 1,
            ScalarType::I16 | ScalarType::F16 | ScalarType::BF16 => 2,
            ScalarType::I32 | ScalarType::U32 | ScalarType::F32 => 4,
            ScalarType::I64 | ScalarType::U64 | ScalarType::F64 => 8,
        }
    }

    /// The kind of number (bool, unsigned, signed, float).
    pub fn kind(self) -> ScalarKind {
        match self {
            ScalarType::Bool => ScalarKind::Bool,
            ScalarType::U8 | ScalarType::U32 | ScalarType::U64 => ScalarKind::UnsignedInt,
            ScalarType::I8 | ScalarType::I16 | ScalarType::I32 | ScalarType::I64 => ScalarKind::SignedInt,
            ScalarType::F16
            | ScalarType::BF16
            | ScalarType::F32
            | ScalarType::F64
            | ScalarType::F8E4M3
            | ScalarType::F8E5M2 => ScalarKind::Float,
        }
    }

    /// Integer bit width, `None` for floats and bool.
    pub fn int_bits(self) -> Option<u32> {
        match self.kind() {
            ScalarKind::SignedInt | ScalarKind::UnsignedInt => Some(self.size_bytes() as u32 * 8),
            ScalarKind::Bool | ScalarKind::Float => None,
        }
    }

    pub fn is_int(self) -> bool {
        self.int_bits().is_some()
    }

    /// Bits of one element's value (`i1` is 1, though memory stores it in a byte): what a
    /// bitcast keeps.
    pub fn bit_width(self) -> u32 {
        match self {
            ScalarType::Bool => 1,
            // every other type uses all the bits it is stored in (a dtype, not an op kind)
            _ => self.size_bytes() as u32 * 8,
        }
    }

    pub fn is_float(self) -> bool {
        self.kind() == ScalarKind::Float
    }

    pub fn is_signed_int(self) -> bool {
        self.kind() == ScalarKind::SignedInt
    }

    pub fn is_unsigned_int(self) -> bool {
        self.kind() == ScalarKind::UnsignedInt
    }

    /// The type arithmetic on this type runs in. Storage types compute in a wider type and
    /// convert back, as Triton does for `f16`/`bf16` (in `f32`): `i8`, `i16` and `u8` in
    /// `i32`, whose results truncated to the storage width are the storage type's
    /// wrapping results; `f16` and `bf16` in `f32`, whose `+ - * /` rounded once more to
    /// the storage type are correctly rounded (f32 has more than twice their precision
    /// plus two bits). Other types compute in themselves.
    pub fn compute_type(self) -> ScalarType {
        match self {
            ScalarType::I8 | ScalarType::I16 | ScalarType::U8 => ScalarType::I32,
            // fp8 never reaches arithmetic (the front end refuses it), but the verifier's
            // message for hand-written IR names f32 as where to compute.
            ScalarType::F16 | ScalarType::BF16 | ScalarType::F8E4M3 | ScalarType::F8E5M2 => ScalarType::F32,
            ScalarType::Bool
            | ScalarType::I32
            | ScalarType::I64
            | ScalarType::U32
            | ScalarType::U64
            | ScalarType::F32
            | ScalarType::F64 => self,
        }
    }

    /// A storage type: loaded, stored, converted and selected, but never an operand of
    /// arithmetic, comparisons or reductions in the IR (the front end computes in
    /// [`ScalarType::compute_type`]; the verifier checks it).
    pub fn is_storage_only(self) -> bool {
        self.compute_type() != self
    }

    /// The 8-bit float formats, whose arithmetic the front end refuses instead of
    /// computing it in [`ScalarType::compute_type`].
    pub fn fp8_format(self) -> Option<Fp8Format> {
        match self {
            ScalarType::F8E4M3 => Some(Fp8Format::E4M3),
            ScalarType::F8E5M2 => Some(Fp8Format::E5M2),
            ScalarType::Bool
            | ScalarType::I8
            | ScalarType::I16
            | ScalarType::I32
            | ScalarType::I64
            | ScalarType::U8
            | ScalarType::U32
            | ScalarType::U64
            | ScalarType::F16
            | ScalarType::BF16
            | ScalarType::F32
            | ScalarType::F64 => None,
        }
    }

    /// Triton's spelling (`i1`, `i32`, `i64`, `f32`, `bf16`, `u8`, ...).
    pub fn name(self) -> &'static str {
        match self {
            ScalarType::Bool => "i1",
            ScalarType::I8 => "i8",
            ScalarType::I16 => "i16",
            ScalarType::I32 => "i32",
            ScalarType::I64 => "i64",
            ScalarType::U8 => "u8",
            ScalarType::U32 => "u32",
            ScalarType::U64 => "u64",
            ScalarType::F16 => "f16",
            ScalarType::BF16 => "bf16",
            ScalarType::F32 => "f32",
            ScalarType::F64 => "f64",
            ScalarType::F8E4M3 => "fp8e4nv",
            ScalarType::F8E5M2 => "fp8e5",
        }
    }
}

impl fmt::Display for ScalarType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// One of the two 8-bit float formats.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Fp8Format {
    /// `float8e4nv`: e4m3, finite only (`S.1111.111` is NaN).
    E4M3,
    /// `float8e5`: e5m2, with infinities.
    E5M2,
}

impl Fp8Format {
    /// Mantissa (fraction) bits.
    pub const fn mantissa_bits(self) -> u32 {
        match self {
            Fp8Format::E4M3 => 3,
            Fp8Format::E5M2 => 2,
        }
    }

    /// Exponent bias.
    pub const fn bias(self) -> i32 {
        match self {
            Fp8Format::E4M3 => 7,
            Fp8Format::E5M2 => 15,
        }
    }

    /// The code of the largest finite magnitude (448 and 57344).
    pub const fn max_finite_code(self) -> u8 {
        match self {
            Fp8Format::E4M3 => 0x7E,
            Fp8Format::E5M2 => 0x7B,
        }
    }

    /// Whether the magnitude bits `mag` (the code without its sign) are a NaN.
    pub const fn is_nan_magnitude(self, mag: u8) -> bool {
        match self {
            Fp8Format::E4M3 => mag == 0x7F,
            Fp8Format::E5M2 => mag > 0x7C,
        }
    }
}

/// The element type of a block tensor: a scalar or a pointer to global memory.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum DType {
    Scalar(ScalarType),
    /// A 64-bit global-memory address of an element of the given type.
    Ptr(ScalarType),
}

impl DType {
    pub const BOOL: DType = DType::Scalar(ScalarType::Bool);
    pub const I32: DType = DType::Scalar(ScalarType::I32);
    pub const I64: DType = DType::Scalar(ScalarType::I64);
    pub const F32: DType = DType::Scalar(ScalarType::F32);

    pub fn scalar(self) -> Option<ScalarType> {
        match self {
            DType::Scalar(s) => Some(s),
            DType::Ptr(_) => None,
        }
    }

    pub fn pointee(self) -> Option<ScalarType> {
        match self {
            DType::Ptr(s) => Some(s),
            DType::Scalar(_) => None,
        }
    }

    pub fn is_int(self) -> bool {
        self.scalar().is_some_and(ScalarType::is_int)
    }

    pub fn is_float(self) -> bool {
        self.scalar().is_some_and(ScalarType::is_float)
    }

    pub fn is_bool(self) -> bool {
        self == DType::BOOL
    }

    pub fn is_ptr(self) -> bool {
        matches!(self, DType::Ptr(_))
    }
}

impl fmt::Display for DType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            DType::Scalar(s) => write!(f, "{s}"),
            DType::Ptr(s) => write!(f, "ptr<{s}>"),
        }
    }
}

/// A compile-time block shape; `[]` is a scalar.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Default)]
pub struct Shape(pub Vec<usize>);

impl Shape {
    pub fn scalar() -> Shape {
        Shape(Vec::new())
    }

    pub fn rank(&self) -> usize {
        self.0.len()
    }

    /// Number of elements (1 for a scalar).
    /// Saturates at `usize::MAX` (shapes come from the user, `full(&[1 << 32, 1 << 32])`),
    /// so a size check against a block limit refuses it instead of seeing a wrapped count.
    pub fn numel(&self) -> usize {
        self.0.iter().fold(1usize, |a, &d| a.saturating_mul(d))
    }

    pub fn dims(&self) -> &[usize] {
        &self.0
    }

    pub fn is_scalar(&self) -> bool {
        self.0.is_empty()
    }

    /// Row-major strides in elements.
    pub fn strides(&self) -> Vec<usize> {
        let mut strides = vec![1; self.rank()];
        for d in (0..self.rank().saturating_sub(1)).rev() {
            strides[d] = strides[d + 1] * self.0[d + 1];
        }
        strides
    }
}

impl fmt::Display for Shape {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("[")?;
        for (i, d) in self.0.iter().enumerate() {
            if i > 0 {
                f.write_str(", ")?;
            }
            write!(f, "{d}")?;
        }
        f.write_str("]")
    }
}

/// The type of an IR value: element type and block shape.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct TensorType {
    pub dtype: DType,
    pub shape: Shape,
}

impl TensorType {
    pub fn new(dtype: DType, shape: Shape) -> Self {
        TensorType { dtype, shape }
    }

    pub fn scalar(dtype: DType) -> Self {
        TensorType { dtype, shape: Shape::scalar() }
    }
}

impl fmt::Display for TensorType {
    /// `i32` for scalars, `tensor<128x64xf32>` for blocks (MLIR's spelling, as Triton prints).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.shape.is_scalar() {
            return write!(f, "{}", self.dtype);
        }
        f.write_str("tensor<")?;
        for d in &self.shape.0 {
            write!(f, "{d}x")?;
        }
        write!(f, "{}>", self.dtype)
    }
}
