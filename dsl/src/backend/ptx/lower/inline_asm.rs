//! `inline_asm_elementwise`: each thread runs the asm once per `pack` of its elements (in
//! its element-list order, the last group padded with zeros), with the registers of
//! `ir/inline_asm.rs`'s plan: narrow elements packed into one register, the first in the
//! low bits, then moved into a register of the class the constraint names; results
//! unpacked from the output registers the same way, sign- or zero-extended into the
//! element registers of their dtype.

use super::{Lowerer, ty_of};
use crate::backend::ptx::PtxError;
use crate::backend::ptx::lir::{AsmOperand, BinOp, Inst, Operand, Reg, Ty};
use crate::ir::inline_asm::{AsmPlan, AsmReg, parse_constraints};
use crate::ir::{AsmModel, Op, Value};

/// The register class of a constraint letter (`c` holds its 8 bits in a 16-bit register).
fn class(letter: char) -> Ty {
    match letter {
        'c' | 'h' => Ty::F16,
        'f' => Ty::F32,
        'l' => Ty::U64,
        'd' => Ty::F64,
        // `r`, and any letter the verifier let through as 32 bits
        _ => Ty::U32,
    }
}

impl Lowerer<'_> {
    pub(super) fn inline_asm(
        &mut self,
        op: &Op,
        (asm, constraints): (&str, &str),
        args: &[Value],
        (pure, pack): (bool, u32),
        model: Option<AsmModel>,
    ) -> Result<(), PtxError> {
        let k = self.k;
        let results: Vec<_> = op.results.iter().map(|r| k.dtype(*r)).collect();
        let arg_types: Vec<_> = args.iter().map(|a| k.dtype(*a)).collect();
        let plan = AsmPlan::of(&results, &arg_types, pack).ok_or_else(|| self.invariant(op, "has an i1 operand"))?;
        let letters = parse_constraints(constraints).map_err(|e| self.invariant(op, e))?;
        let (out_letters, in_letters) = letters.split_at(plan.outputs.len().min(letters.len()));
        let elems: Vec<Vec<Operand>> = args.iter().map(|a| self.val(*a)).collect::<Result<_, _>>()?;
        // Arguments and results share one layout (an element-wise op), so one count; an
        // asm with no arguments has scalar results.
        let n = elems.first().map_or(1, Vec::len);
        let mut outs: Vec<Vec<Operand>> = vec![Vec::with_capacity(n); results.len()];
        for start in (0..n).step_by(pack as usize) {
            let mut inputs = Vec::with_capacity(plan.inputs.len());
            for (reg, c) in plan.inputs.iter().zip(in_letters) {
                let ety = ty_of(arg_types[reg.value]);
                let group: Vec<Option<Operand>> =
                    (0..reg.elems).map(|e| elems[reg.value].get(start + (reg.first + e) as usize).copied()).collect();
                let r = self.asm_input(reg, class(c.letter), &group, ety);
                inputs.push(AsmOperand { reg: r, bits: reg.bits() });
            }
            let outputs: Vec<AsmOperand> = plan
                .outputs
                .iter()
                .zip(out_letters)
                .map(|(reg, c)| AsmOperand { reg: self.new_reg(class(c.letter)), bits: reg.bits() })
                .collect();
            self.emit(Inst::InlineAsm { asm: asm.to_string(), outputs: outputs.clone(), inputs, pure, model });
            for (reg, (o, c)) in plan.outputs.iter().zip(outputs.iter().zip(out_letters)) {
                let ety = ty_of(results[reg.value]);
                for e in 0..reg.elems {
                    if start + ((reg.first + e) as usize) < n {
                        let x = self.asm_output(reg, class(c.letter), o.reg, e, ety);
                        outs[reg.value].push(x);
                    }
                }
            }
        }
        for (r, e) in op.results.iter().zip(outs) {
            self.set(*r, e);
        }
        Ok(())
    }

    /// The input register `reg` (of class `class`) holding `group`'s elements (`None`:
    /// padding, zero bits), each in a register of type `ety`.
    fn asm_input(&mut self, reg: &AsmReg, class: Ty, group: &[Option<Operand>], ety: Ty) -> Reg {
        if reg.elems == 1 && (reg.elem_bits >= 32 || matches!(ety, Ty::F16 | Ty::BF16) && reg.elem_bits == 16) {
            // One element filling the register: its bits moved into the class.
            let x = match group[0] {
                Some(x) => self.bitcast(x, ety, class),
                None => Operand::Int(0),
            };
            return self.reg(x, class);
        }
        // Narrow elements: their bits side by side in a 32-bit word.
        let mask = (1i64 << reg.elem_bits) - 1;
        let mut word = Operand::Int(0);
        for (e, x) in group.iter().enumerate() {
            let Some(x) = x else { continue };
            let bits = match ety {
                Ty::F16 | Ty::BF16 => {
                    let h = self.reg(*x, ety);
                    let dst = self.new_reg(Ty::U32);
                    self.emit(Inst::Pack { dst, lo: h, hi: h });
                    dst.into()
                }
                // the 8- and 16-bit ints and fp8 codes, extended in 32-bit registers
                _ => self.bitcast(*x, ety, Ty::U32),
            };
            let bits = self.bin(BinOp::And, Ty::U32, bits, Operand::Int(mask));
            let placed = self.bin(BinOp::Shl, Ty::U32, bits, Operand::Int(i64::from(e as u32 * reg.elem_bits)));
            word = if word == Operand::Int(0) { placed } else { self.bin(BinOp::Or, Ty::U32, word, placed) };
        }
        match class {
            Ty::F16 => {
                let w = self.reg(word, Ty::U32);
                let (lo, hi) = (self.new_reg(Ty::F16), self.new_reg(Ty::F16));
                self.emit(Inst::Unpack { lo, hi, src: w });
                lo
            }
            _ => {
                let x = self.bitcast(word, Ty::U32, class);
                self.reg(x, class)
            }
        }
    }

    /// Element `e` of output register `out` (of class `class`, laid out as `reg`), as an
    /// element of type `ety`.
    fn asm_output(&mut self, reg: &AsmReg, class: Ty, out: Reg, e: u32, ety: Ty) -> Operand {
        let w = reg.elem_bits;
        if reg.elems == 1 && (w >= 32 || matches!(ety, Ty::F16 | Ty::BF16) && w == 16) {
            return self.bitcast(out.into(), class, ety);
        }
        let word = match class {
            Ty::F16 => {
                let dst = self.new_reg(Ty::U32);
                self.emit(Inst::Pack { dst, lo: out, hi: out });
                dst.into()
            }
            _ => self.bitcast(out.into(), class, Ty::U32),
        };
        match ety {
            Ty::F16 | Ty::BF16 => {
                let src = self.reg(word, Ty::U32);
                let (lo, hi) = (self.new_reg(ety), self.new_reg(ety));
                self.emit(Inst::Unpack { lo, hi, src });
                if e == 0 { lo.into() } else { hi.into() }
            }
            // i8 and i16: shift the element to the top, back down with its sign
            Ty::S8 | Ty::S16 => {
                let up = self.bin(BinOp::Shl, Ty::I32, word, Operand::Int(i64::from(32 - (e + 1) * w)));
                let x = self.bin(BinOp::ShrS, Ty::I32, up, Operand::Int(i64::from(32 - w)));
                self.bitcast(x, Ty::I32, ety)
            }
            // u8 and the fp8 codes: shift down, keep the element's bits
            _ => {
                let down = self.bin(BinOp::ShrU, Ty::U32, word, Operand::Int(i64::from(e * w)));
                let x = self.bin(BinOp::And, Ty::U32, down, Operand::Int((1i64 << w) - 1));
                self.bitcast(x, Ty::U32, ety)
            }
        }
    }
}
