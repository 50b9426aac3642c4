//! mbarriers and the tensor copies (TMA) that complete on them.
//!
//! A tensor copy reads global memory when it is issued and lands in shared memory only
//! when a wait needs the phase it completes: the latest moment the GPU may write it. Until
//! then its bytes are in flight (`async_copy.rs`), so a wait that observes an older phase
//! (the wrong parity) and reads the slot is reported, rather than passing as a lucky read.
//! A wait for a phase that can never complete (arrivals missing, or `expect_tx` bytes the
//! copies never bring) is reported too: one program runs at a time, so nothing else would
//! arrive, and the GPU would hang.

use std::collections::HashMap;

/// Where each element a tensor copy read from global memory lies in its bytes: (global
/// address, offset, length).
pub(crate) type Sources = Vec<(u64, u32, u32)>;

/// One tensor copy waiting on its mbarrier: where it lands, its bytes, and their sources.
#[derive(Clone, Debug)]
pub(crate) struct BulkCopy {
    pub shared: u32,
    pub bytes: Vec<u8>,
    pub sources: Sources,
}

#[derive(Clone, Debug)]
struct Mbarrier {
    /// Arrivals a phase expects (the init's count).
    expected: u32,
    /// Arrivals the current phase still expects.
    arrivals_left: u32,
    /// Bytes the current phase's `expect_tx` announced.
    tx: u64,
    /// Phases completed since the init.
    completed: u64,
    /// The current phase's copies, not landed yet.
    copies: Vec<BulkCopy>,
}

/// Every initialized mbarrier of the program, by shared address.
#[derive(Debug, Default)]
pub(crate) struct Mbarriers {
    bars: HashMap<u32, Mbarrier>,
}

impl Mbarriers {
    /// A new program: no mbarrier.
    pub fn start_program(&mut self) {
        self.bars.clear();
    }

    /// `mbarrier.init`: phase 0 begins, expecting `count` arrivals.
    pub fn init(&mut self, addr: u32, count: u32) {
        let b = Mbarrier { expected: count, arrivals_left: count, tx: 0, completed: 0, copies: Vec::new() };
        self.bars.insert(addr, b);
    }

    fn get(&mut self, addr: u32) -> Result<&mut Mbarrier, String> {
        self.bars.get_mut(&addr).ok_or_else(|| format!("the mbarrier at shared byte {addr} was never initialized"))
    }

    /// `mbarrier.arrive.expect_tx`: one arrival, `bytes` more for the phase.
    pub fn arrive_expect_tx(&mut self, addr: u32, bytes: u32) -> Result<(), String> {
        let b = self.get(addr)?;
        if b.arrivals_left == 0 {
            return Err(format!(
                "an arrival on the mbarrier at shared byte {addr} whose phase {} expects no more (its copies have not landed: no wait observed the phase)",
                b.completed
            ));
        }
        b.arrivals_left -= 1;
        b.tx += u64::from(bytes);
        Ok(())
    }

    /// A tensor copy completing on `addr`'s current phase.
    pub fn add_copy(&mut self, addr: u32, copy: BulkCopy) -> Result<(), String> {
        self.get(addr)?.copies.push(copy);
        Ok(())
    }

    /// A wait for the phase of parity `parity`: the copies that land for it (none when the
    /// phase had completed), or why it never completes.
    pub fn wait(&mut self, addr: u32, parity: u64) -> Result<Vec<BulkCopy>, String> {
        let b = self.get(addr)?;
        if b.completed & 1 != parity & 1 {
            // The phase of that parity is the one before the current: completed (at the
            // init, the phase before phase 0 counts as completed).
            return Ok(Vec::new());
        }
        let brought: u64 = b.copies.iter().map(|c| c.bytes.len() as u64).sum();
        if b.arrivals_left > 0 || brought != b.tx {
            return Err(format!(
                "a wait for phase {} of the mbarrier at shared byte {addr}, which still expects {} of {} arrivals and has tensor copies of {brought} of the {} bytes its expect_tx announced: it never completes",
                b.completed, b.arrivals_left, b.expected, b.tx
            ));
        }
        b.completed += 1;
        b.arrivals_left = b.expected;
        b.tx = 0;
        Ok(std::mem::take(&mut b.copies))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn copy(n: usize) -> BulkCopy {
        BulkCopy { shared: 64, bytes: vec![1; n], sources: Vec::new() }
    }

    #[test]
    fn a_phase_completes_when_its_arrival_and_its_bytes_are_in() {
        let mut m = Mbarriers::default();
        m.init(0, 1);
        // Before any copy, parity 1 names the phase before phase 0: it has completed.
        assert!(m.wait(0, 1).unwrap().is_empty());
        m.arrive_expect_tx(0, 32).unwrap();
        m.add_copy(0, copy(16)).unwrap();
        m.add_copy(0, copy(16)).unwrap();
        assert_eq!(m.wait(0, 0).unwrap().len(), 2);
        // Phase 0 done: waiting for it again returns at once, with nothing to land.
        assert!(m.wait(0, 0).unwrap().is_empty());
        // Phase 1 has no arrival yet: it never completes.
        let e = m.wait(0, 1).unwrap_err();
        assert!(e.contains("phase 1") && e.contains("expects 1 of 1 arrivals"), "{e}");
    }

    #[test]
    fn an_expect_tx_past_the_copies_bytes_never_completes() {
        let mut m = Mbarriers::default();
        m.init(8, 1);
        m.arrive_expect_tx(8, 64).unwrap();
        m.add_copy(8, copy(32)).unwrap();
        let e = m.wait(8, 0).unwrap_err();
        assert!(e.contains("tensor copies of 32 of the 64 bytes"), "{e}");
        assert!(m.wait(16, 0).unwrap_err().contains("never initialized"));
    }
}
