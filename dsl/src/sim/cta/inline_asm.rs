//! An inline asm, run as its CPU model: each active thread's input registers (their low
//! bits) in, its output registers out, thread by thread.

use super::Cta;
use crate::ir::AsmModelFn;
use crate::sim::error::SimFault;

impl Cta {
    /// `run` over every active thread; `inputs` and `outputs` are `(register, mask)`.
    pub(super) fn inline_asm(
        &mut self,
        run: AsmModelFn,
        inputs: &[(u32, u64)],
        outputs: &[(u32, u64)],
    ) -> Result<(), SimFault> {
        for (r, _) in inputs {
            self.need_reg(*r)?;
        }
        let mut ins = vec![0u64; inputs.len()];
        let mut outs = vec![0u64; outputs.len()];
        for t in 0..self.t {
            if !self.active(t) {
                continue;
            }
            for (slot, (r, mask)) in ins.iter_mut().zip(inputs) {
                *slot = self.regs[*r as usize * self.t + t] & mask;
            }
            outs.fill(0);
            run(&ins, &mut outs);
            for (bits, (r, mask)) in outs.iter().zip(outputs) {
                self.set(*r, t, bits & mask);
            }
        }
        for (r, _) in outputs {
            self.wrote(*r);
        }
        Ok(())
    }
}
