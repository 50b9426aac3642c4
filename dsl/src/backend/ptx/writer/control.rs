//! Uniform ifs and whiles as labels and `bra.uni` branches. Their conditions are the same
//! in every thread of the CTA (`lir`'s uniformity invariant), which is what `bra.uni`
//! requires: no warp ever diverges at these branches.

use std::fmt::Write;

use super::Writer;
use crate::backend::ptx::lir::{Inst, Reg};

impl Writer<'_> {
    /// `if cond { then } else { else }`: skip to the else part (or the end) when `cond`
    /// is false.
    pub(super) fn if_uni(&mut self, cond: Reg, then_body: &[Inst], else_body: &[Inst], d: usize) {
        let n = self.branches;
        self.branches += 1;
        let p = self.reg(cond);
        if else_body.is_empty() {
            self.line(d, &format!("@!{p} bra.uni IF{n}_END;"));
            self.insts(then_body, d + 1);
        } else {
            self.line(d, &format!("@!{p} bra.uni IF{n}_ELSE;"));
            self.insts(then_body, d + 1);
            self.line(d + 1, &format!("bra.uni IF{n}_END;"));
            let _ = writeln!(self.out, "IF{n}_ELSE:");
            self.insts(else_body, d + 1);
        }
        let _ = writeln!(self.out, "IF{n}_END:");
    }

    /// `loop { before; if !cond break; after }`: the test at the top, a jump back at the
    /// bottom.
    pub(super) fn while_uni(&mut self, before: &[Inst], cond: Reg, after: &[Inst], d: usize) {
        let n = self.branches;
        self.branches += 1;
        let _ = writeln!(self.out, "WHILE{n}_HEAD:");
        self.insts(before, d + 1);
        self.line(d + 1, &format!("@!{} bra.uni WHILE{n}_END;", self.reg(cond)));
        self.insts(after, d + 1);
        self.line(d + 1, &format!("bra.uni WHILE{n}_HEAD;"));
        let _ = writeln!(self.out, "WHILE{n}_END:");
    }
}
