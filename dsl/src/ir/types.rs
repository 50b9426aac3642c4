//! Element types and block shapes.
//!
//! Every IR value is a block tensor: a [`DType`] plus a compile-time [`Shape`]. A 0-d
//! shape (`[]`) is a scalar; kernel arguments, program ids and reduction results of
//! 1-d blocks are scalars.

use std::fmt;

/// A scalar element type that values and pointees can have.
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
}

impl ScalarType {
    /// Size in bytes when stored in memory (`bool` is stored as one byte).
    pub fn size_bytes(self) -> u64 {
        match self {
            ScalarType::Bool => 1,
            ScalarType::I32 | ScalarType::F32 => 4,
            ScalarType::I64 => 8,
        }
    }

    /// Integer bit width, `None` for floats and bool.
    pub fn int_bits(self) -> Option<u32> {
        match self {
            ScalarType::I32 => Some(32),
            ScalarType::I64 => Some(64),
            // bool and floats have no integer width (a scalar type, not an op kind)
            _ => None,
        }
    }

    pub fn is_int(self) -> bool {
        self.int_bits().is_some()
    }

    pub fn is_float(self) -> bool {
        matches!(self, ScalarType::F32)
    }

    /// Triton's spelling (`i1`, `i32`, `i64`, `f32`).
    pub fn name(self) -> &'static str {
        match self {
            ScalarType::Bool => "i1",
            ScalarType::I32 => "i32",
            ScalarType::I64 => "i64",
            ScalarType::F32 => "f32",
        }
    }
}

impl fmt::Display for ScalarType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
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
