//! `vprintf` in the lock-step CTA: each active thread whose guard holds packs its argument
//! registers as the CUDA printf ABI does and prints the formatted line
//! (`semantics::printf`, the driver's formatting) through the print sink, thread after
//! thread. On the GPU the lines of different threads come in no defined order.

use super::Cta;
use crate::backend::ptx::lir::Guard;
use crate::semantics::printf::{self, PrintfArg};
use crate::sim::decode::Src;
use crate::sim::error::SimFault;

impl Cta {
    /// One `vprintf` of `format` with `args` (register, bytes in the buffer: 4 or 8).
    pub(super) fn printf(&mut self, guard: Option<Guard>, format: &str, args: &[(u32, u32)]) -> Result<(), SimFault> {
        self.need_guard(guard)?;
        for t in 0..self.t {
            if !self.active(t) || !self.guard_holds(guard, t) {
                continue;
            }
            let mut packed = Vec::with_capacity(args.len());
            for &(r, size) in args {
                self.need_reg_of(r, t)?;
                let bits = self.get(Src::Reg(r), t);
                packed.push(if size == 4 { PrintfArg::B32(bits as u32) } else { PrintfArg::B64(bits) });
            }
            crate::print_sink::print_line(printf::line(format, &packed));
        }
        Ok(())
    }
}
