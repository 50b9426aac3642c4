//! Simulated device memory: buffers at fake 64-bit device addresses.
//!
//! Addresses start above 4 GiB, so an address that was truncated to 32 bits somewhere
//! never lands in a buffer by accident. Every buffer starts 256-byte aligned (what
//! `cudaMalloc` promises) and is followed by an unmapped gap, so running off the end of
//! one buffer faults instead of reading the next one. Bytes are little-endian, as on the
//! GPU.

use std::collections::BTreeMap;

/// Where the first buffer is placed: above 4 GiB (see the module doc).
const FIRST_ADDRESS: u64 = 0x1_0000_0000;
/// Alignment of every buffer's base address (as `cudaMalloc`).
pub const BUFFER_ALIGN: u64 = 256;
/// Unmapped bytes after every buffer (at least), so overruns fault.
const GAP: u64 = 4096;

/// Why a host-side or kernel-side access to simulated memory failed.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum MemoryError {
    #[error("{bytes}-byte access at 0x{addr:x} is {}", describe_outside(*addr, *bytes, *nearest))]
    OutOfBounds {
        addr: u64,
        bytes: u64,
        /// The buffer nearest below the address (base, length in bytes), if any.
        nearest: Option<(u64, usize)>,
    },
    #[error("{bytes}-byte access at 0x{addr:x} is not aligned to {bytes} bytes")]
    Misaligned { addr: u64, bytes: u64 },
}

/// `past the end of the 400-byte buffer at 0x100000000 (byte offset 404)`, or `below
/// every buffer`.
fn describe_outside(addr: u64, bytes: u64, nearest: Option<(u64, usize)>) -> String {
    match nearest {
        Some((base, len)) => {
            let end = base + len as u64;
            let how = if addr >= end { "past the end of" } else { "partly past the end of" };
            format!("{how} the {len}-byte buffer at 0x{base:x} (byte offset {})", addr - base)
        }
        None if bytes == 0 => "outside every buffer".to_string(),
        None => "below every buffer (no allocation contains it)".to_string(),
    }
}

/// Simulated device memory (see the module doc).
#[derive(Clone, Debug, Default)]
pub struct Memory {
    buffers: BTreeMap<u64, Vec<u8>>,
    next: u64,
    /// Writes that changed a byte so far (see [`Memory::changes`]).
    changes: u64,
}

impl Memory {
    pub fn new() -> Memory {
        Memory { buffers: BTreeMap::new(), next: FIRST_ADDRESS, changes: 0 }
    }

    /// Allocates `bytes` zeroed bytes and returns the buffer's device address.
    pub fn alloc(&mut self, bytes: usize) -> u64 {
        if self.next == 0 {
            // `Memory::default()` starts at 0; keep address 0 (null) unmapped.
            self.next = FIRST_ADDRESS;
        }
        let base = self.next;
        self.buffers.insert(base, vec![0; bytes]);
        self.next = (base + bytes as u64 + GAP).next_multiple_of(BUFFER_ALIGN);
        base
    }

    /// Allocates a buffer holding `data`.
    pub fn alloc_bytes(&mut self, data: &[u8]) -> u64 {
        let base = self.alloc(data.len());
        self.buffers.get_mut(&base).expect("just allocated").copy_from_slice(data);
        base
    }

    /// Allocates a buffer holding `data`.
    pub fn alloc_f32(&mut self, data: &[f32]) -> u64 {
        self.alloc_bytes(bytemuck::cast_slice(data))
    }

    /// Allocates a buffer holding `data`.
    pub fn alloc_i32(&mut self, data: &[i32]) -> u64 {
        self.alloc_bytes(bytemuck::cast_slice(data))
    }

    /// Allocates a buffer holding `data`.
    pub fn alloc_i64(&mut self, data: &[i64]) -> u64 {
        self.alloc_bytes(bytemuck::cast_slice(data))
    }

    /// The buffer containing `addr`: its base address and length in bytes.
    pub fn buffer_of(&self, addr: u64) -> Option<(u64, usize)> {
        let (&base, data) = self.buffers.range(..=addr).next_back()?;
        (addr < base + data.len() as u64).then_some((base, data.len()))
    }

    /// The bytes `addr..addr + n`, which must lie inside one buffer.
    pub fn read_bytes(&self, addr: u64, n: usize) -> Result<&[u8], MemoryError> {
        let (base, data) = self.locate(addr, n as u64)?;
        let start = (addr - base) as usize;
        Ok(&data[start..start + n])
    }

    /// Overwrites the bytes at `addr` with `data` (inside one buffer).
    pub fn write_bytes(&mut self, addr: u64, data: &[u8]) -> Result<(), MemoryError> {
        let dst = self.bytes_mut(addr, data.len() as u64)?;
        if dst != data {
            dst.copy_from_slice(data);
            self.changes += 1;
        }
        Ok(())
    }

    /// How many writes changed memory so far (a write of the bytes already there does
    /// not count). A `while` iteration after which the count and the loop's carried values
    /// are what they were will repeat forever: the interpreter and the simulator report it.
    pub fn changes(&self) -> u64 {
        self.changes
    }

    /// `n` floats at `addr` (4-byte aligned, inside one buffer).
    pub fn read_f32(&self, addr: u64, n: usize) -> Result<Vec<f32>, MemoryError> {
        check_align(addr, 4)?;
        Ok(decode(self.read_bytes(addr, n * 4)?))
    }

    /// `n` i32 values at `addr` (4-byte aligned, inside one buffer).
    pub fn read_i32(&self, addr: u64, n: usize) -> Result<Vec<i32>, MemoryError> {
        check_align(addr, 4)?;
        Ok(decode(self.read_bytes(addr, n * 4)?))
    }

    /// `n` i64 values at `addr` (8-byte aligned, inside one buffer).
    pub fn read_i64(&self, addr: u64, n: usize) -> Result<Vec<i64>, MemoryError> {
        check_align(addr, 8)?;
        Ok(decode(self.read_bytes(addr, n * 8)?))
    }

    /// Writes floats at `addr` (4-byte aligned, inside one buffer).
    pub fn write_f32(&mut self, addr: u64, data: &[f32]) -> Result<(), MemoryError> {
        check_align(addr, 4)?;
        self.write_bytes(addr, bytemuck::cast_slice(data))
    }

    /// Writes i32 values at `addr` (4-byte aligned, inside one buffer).
    pub fn write_i32(&mut self, addr: u64, data: &[i32]) -> Result<(), MemoryError> {
        check_align(addr, 4)?;
        self.write_bytes(addr, bytemuck::cast_slice(data))
    }

    /// The buffer holding `addr..addr + bytes`, as its base and contents.
    pub(crate) fn locate(&self, addr: u64, bytes: u64) -> Result<(u64, &[u8]), MemoryError> {
        let found = self.buffers.range(..=addr).next_back();
        match found {
            Some((&base, data)) if addr.checked_add(bytes).is_some_and(|end| end <= base + data.len() as u64) => {
                Ok((base, data))
            }
            // no allocation, or the access runs past its end (not an op kind)
            _ => Err(self.out_of_bounds(addr, bytes)),
        }
    }

    /// Like [`Memory::locate`], mutable, as the slice `addr..addr + bytes`.
    pub(crate) fn bytes_mut(&mut self, addr: u64, bytes: u64) -> Result<&mut [u8], MemoryError> {
        let err = self.out_of_bounds(addr, bytes);
        match self.buffers.range_mut(..=addr).next_back() {
            Some((&base, data)) if addr.checked_add(bytes).is_some_and(|end| end <= base + data.len() as u64) => {
                let start = (addr - base) as usize;
                Ok(&mut data[start..start + bytes as usize])
            }
            // no allocation, or the access runs past its end (not an op kind)
            _ => Err(err),
        }
    }

    fn out_of_bounds(&self, addr: u64, bytes: u64) -> MemoryError {
        let nearest = self.buffers.range(..=addr).next_back().map(|(&b, d)| (b, d.len()));
        MemoryError::OutOfBounds { addr, bytes, nearest }
    }
}

/// Copies bytes into a vector of `T` (the bytes need not be aligned for `T`).
fn decode<T: bytemuck::Pod>(bytes: &[u8]) -> Vec<T> {
    bytes.chunks_exact(size_of::<T>()).map(bytemuck::pod_read_unaligned).collect()
}

/// Device loads and stores need natural alignment (a misaligned `ld.global.f32` faults).
pub(crate) fn check_align(addr: u64, bytes: u64) -> Result<(), MemoryError> {
    if bytes > 1 && !addr.is_multiple_of(bytes) {
        return Err(MemoryError::Misaligned { addr, bytes });
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn buffers_are_aligned_separated_and_zeroed() {
        let mut m = Memory::new();
        let a = m.alloc(10);
        let b = m.alloc(3);
        assert_eq!(a % BUFFER_ALIGN, 0);
        assert_eq!(b % BUFFER_ALIGN, 0);
        assert!(b >= a + 10 + GAP);
        assert_eq!(m.read_bytes(a, 10).unwrap(), &[0; 10]);
        assert_eq!(m.buffer_of(a + 9), Some((a, 10)));
        assert_eq!(m.buffer_of(a + 10), None);
    }

    #[test]
    fn reads_and_writes_round_trip_and_views_work() {
        let mut m = Memory::new();
        let a = m.alloc_f32(&[1.0, 2.0, 3.0]);
        assert_eq!(m.read_f32(a + 4, 2).unwrap(), vec![2.0, 3.0]);
        m.write_f32(a + 8, &[-0.0]).unwrap();
        assert_eq!(m.read_f32(a, 3).unwrap()[2].to_bits(), 0x8000_0000);
    }

    #[test]
    fn out_of_bounds_and_misaligned_accesses_are_errors() {
        let mut m = Memory::new();
        let a = m.alloc_f32(&[1.0; 4]);
        let e = m.read_f32(a + 12, 2).unwrap_err().to_string();
        let want = format!(
            "8-byte access at 0x{:x} is partly past the end of the 16-byte buffer at 0x{a:x} (byte offset 12)",
            a + 12
        );
        assert_eq!(e, want);
        let e = m.read_f32(a + 20, 1).unwrap_err().to_string();
        let want = format!(
            "4-byte access at 0x{:x} is past the end of the 16-byte buffer at 0x{a:x} (byte offset 20)",
            a + 20
        );
        assert_eq!(e, want);
        assert!(matches!(m.read_f32(a + 2, 1), Err(MemoryError::Misaligned { .. })));
        assert!(matches!(m.read_f32(8, 1), Err(MemoryError::OutOfBounds { nearest: None, .. })));
        assert!(m.write_f32(u64::MAX - 1, &[1.0]).is_err());
    }
}
