//! How well a warp's global accesses coalesce: the 32-byte sectors one warp-wide load or
//! store touches (what Nsight Compute counts as sectors per request). A warp whose lanes
//! read 16 consecutive bytes each touches 16 sectors for its 512 bytes; one whose lanes
//! each read 4 bytes a row apart touches 32 sectors for 128 bytes.

/// Bytes of one sector: the unit DRAM and L2 move.
pub const SECTOR_BYTES: u64 = 32;

/// The lanes' accesses of one warp-wide instruction, collected as the threads execute it.
#[derive(Default)]
pub(crate) struct WarpAccesses {
    /// `(warp, first sector, last sector)` of each executing thread's access.
    spans: Vec<(usize, u64, u64)>,
}

impl WarpAccesses {
    /// Thread `t` accessed `bytes` bytes at `addr`.
    pub fn add(&mut self, t: usize, addr: u64, bytes: u32) {
        let last = addr + u64::from(bytes.max(1)) - 1;
        self.spans.push((t / 32, addr / SECTOR_BYTES, last / SECTOR_BYTES));
    }

    /// `(requests, sectors)`: warps that executed the access, and the distinct sectors each
    /// touched, summed over those warps.
    pub fn count(&mut self) -> (u64, u64) {
        let mut sectors: Vec<(usize, u64)> =
            self.spans.iter().flat_map(|&(w, first, last)| (first..=last).map(move |s| (w, s))).collect();
        sectors.sort_unstable();
        sectors.dedup();
        let mut warps: Vec<usize> = sectors.iter().map(|&(w, _)| w).collect();
        warps.dedup();
        self.spans.clear();
        (warps.len() as u64, sectors.len() as u64)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `(thread, address, bytes)` of each lane's access.
    type Lanes = [(usize, u64, u32)];

    fn count(accesses: &Lanes) -> (u64, u64) {
        let mut w = WarpAccesses::default();
        for &(t, a, b) in accesses {
            w.add(t, a, b);
        }
        w.count()
    }

    #[test]
    fn sectors_are_counted_per_warp() {
        let v4: Vec<(usize, u64, u32)> = (0..32).map(|t| (t, 16 * t as u64, 16)).collect();
        let strided: Vec<(usize, u64, u32)> = (0..32).map(|t| (t, 4096 * t as u64, 4)).collect();
        let two_warps: Vec<(usize, u64, u32)> = (0..64).map(|t| (t, 4 * (t as u64 % 32), 4)).collect();
        let table: [(&Lanes, (u64, u64)); 5] = [
            (&v4, (1, 16)),
            (&strided, (1, 32)),
            // Both warps read the same 128 bytes: each counts its own 4 sectors.
            (&two_warps, (2, 8)),
            // A 4-byte access across a sector boundary touches two.
            (&[(0, 30, 4)], (1, 2)),
            (&[], (0, 0)),
        ];
        for (accesses, want) in table {
            assert_eq!(count(accesses), want, "{accesses:?}");
        }
    }
}
