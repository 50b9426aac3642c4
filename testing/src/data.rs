//! Buffer contents, typed by the element types a kernel's pointers take.

use rtriton::ir::ScalarType;

/// A whole buffer (not only the elements a view sees: bytes outside it must come back
/// untouched, which is how stray stores show).
#[derive(Clone, Debug, PartialEq)]
pub enum Data {
    F32(Vec<f32>),
    I32(Vec<i32>),
    I64(Vec<i64>),
}

impl Data {
    pub fn len(&self) -> usize {
        match self {
            Data::F32(v) => v.len(),
            Data::I32(v) => v.len(),
            Data::I64(v) => v.len(),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    pub fn dtype(&self) -> ScalarType {
        match self {
            Data::F32(_) => ScalarType::F32,
            Data::I32(_) => ScalarType::I32,
            Data::I64(_) => ScalarType::I64,
        }
    }

    /// Element `i` as its bit pattern (zero-extended).
    pub fn bits(&self, i: usize) -> u64 {
        match self {
            Data::F32(v) => u64::from(v[i].to_bits()),
            Data::I32(v) => u64::from(v[i] as u32),
            Data::I64(v) => v[i] as u64,
        }
    }

    /// Element `i` as a person reads it, with its bit pattern.
    pub fn describe(&self, i: usize) -> String {
        match self {
            Data::F32(v) => format!("{:?} (0x{:08X})", v[i], v[i].to_bits()),
            Data::I32(v) => format!("{} (0x{:08X})", v[i], v[i] as u32),
            Data::I64(v) => format!("{} (0x{:016X})", v[i], v[i] as u64),
        }
    }

    /// The buffer as little-endian bytes (as device memory holds it).
    pub fn to_le_bytes(&self) -> Vec<u8> {
        match self {
            Data::F32(v) => v.iter().flat_map(|x| x.to_le_bytes()).collect(),
            Data::I32(v) => v.iter().flat_map(|x| x.to_le_bytes()).collect(),
            Data::I64(v) => v.iter().flat_map(|x| x.to_le_bytes()).collect(),
        }
    }

    /// A buffer of the same type and length, all zero.
    pub fn zeros_like(&self) -> Data {
        match self {
            Data::F32(v) => Data::F32(vec![0.0; v.len()]),
            Data::I32(v) => Data::I32(vec![0; v.len()]),
            Data::I64(v) => Data::I64(vec![0; v.len()]),
        }
    }

    pub fn as_f32(&self) -> Option<&[f32]> {
        if let Data::F32(v) = self { Some(v) } else { None }
    }

    pub fn as_f32_mut(&mut self) -> Option<&mut [f32]> {
        if let Data::F32(v) = self { Some(v) } else { None }
    }

    pub fn as_i32(&self) -> Option<&[i32]> {
        if let Data::I32(v) = self { Some(v) } else { None }
    }

    pub fn as_i32_mut(&mut self) -> Option<&mut [i32]> {
        if let Data::I32(v) = self { Some(v) } else { None }
    }

    pub fn as_i64(&self) -> Option<&[i64]> {
        if let Data::I64(v) = self { Some(v) } else { None }
    }

    pub fn as_i64_mut(&mut self) -> Option<&mut [i64]> {
        if let Data::I64(v) = self { Some(v) } else { None }
    }
}

impl From<Vec<f32>> for Data {
    fn from(v: Vec<f32>) -> Data {
        Data::F32(v)
    }
}

impl From<Vec<i32>> for Data {
    fn from(v: Vec<i32>) -> Data {
        Data::I32(v)
    }
}

impl From<Vec<i64>> for Data {
    fn from(v: Vec<i64>) -> Data {
        Data::I64(v)
    }
}
