//! The L2 flush before each timed launch: a memset of a buffer several times larger than
//! the L2 cache (as Triton's `do_bench` zeroes a 256 MB buffer), so every launch reads its
//! input from HBM rather than from what the previous launch left in L2.

use crate::driver::{DeviceBuffer, Gpu};
use crate::error::HostError;

/// The smallest flush: 256 MiB (Triton's `do_bench` default).
pub const MIN_FLUSH_BYTES: usize = 256 << 20;

/// How many bytes to write to flush an L2 of `l2_bytes`: at least four times the L2 and at
/// least [`MIN_FLUSH_BYTES`], in whole MiB (an H200's 60 MiB L2 gives 256 MiB).
pub fn flush_bytes(l2_bytes: usize) -> usize {
    let four_l2 = l2_bytes.saturating_mul(4).div_ceil(1 << 20) << 20;
    four_l2.max(MIN_FLUSH_BYTES)
}

/// A device buffer written over before each timed launch.
#[derive(Debug)]
pub struct L2Flush {
    buffer: DeviceBuffer<i32>,
}

impl L2Flush {
    /// Allocates `bytes` (rounded up to 4) on `gpu`.
    pub fn new(gpu: &Gpu, bytes: usize) -> Result<L2Flush, HostError> {
        Ok(L2Flush { buffer: DeviceBuffer::zeros(gpu, bytes.div_ceil(4))? })
    }

    pub fn bytes(&self) -> usize {
        self.buffer.len() * 4
    }

    /// Enqueues the memset (does not wait).
    pub fn run(&mut self, gpu: &Gpu) -> Result<(), HostError> {
        self.buffer.fill_bytes(gpu, 0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_flush_is_four_l2s_and_at_least_256_mib() {
        // H200: 60 MiB of L2 -> 240 MiB -> the 256 MiB floor.
        assert_eq!(flush_bytes(60 << 20), 256 << 20);
        // A (hypothetical) 96 MiB L2 -> 384 MiB; an odd size rounds up to whole MiB.
        assert_eq!(flush_bytes(96 << 20), 384 << 20);
        assert_eq!(flush_bytes((100 << 20) + 1), 401 << 20);
        // No L2 reported: the floor.
        assert_eq!(flush_bytes(0), 256 << 20);
    }
}
