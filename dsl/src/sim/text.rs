//! The failing instruction as PTX for error messages (`@%p7 ld.global.v4.f32
//! {%f8, %f9, %f10, %f11}, [%rd6];`), printed by the PTX writer, so an error can be found
//! in the printed PTX.

use crate::backend::ptx::lir::{Inst, Operand, Program, Reg};
use crate::backend::ptx::writer;

/// The `pc`-th instruction of `p` in the simulator's flattened order (comments skipped, a
/// loop before its body, an if before its then and else bodies, a while before its
/// condition and body).
pub(crate) fn nth_inst(p: &Program, pc: usize) -> Option<&Inst> {
    fn go<'a>(insts: &'a [Inst], pc: usize, i: &mut usize) -> Option<&'a Inst> {
        for inst in insts {
            if matches!(inst, Inst::Group(_)) {
                continue;
            }
            if *i == pc {
                return Some(inst);
            }
            *i += 1;
            for body in inst.bodies() {
                if let Some(found) = go(body, pc, i) {
                    return Some(found);
                }
            }
        }
        None
    }
    go(&p.body, pc, &mut 0)
}

fn reg(p: &Program, r: Reg) -> String {
    let prefix = p.regs.get(r.index()).map_or("%?", |t| writer::prefix(*t));
    format!("{prefix}{}", r.0)
}

fn opnd(p: &Program, o: Operand) -> String {
    match o {
        Operand::Reg(r) => reg(p, r),
        Operand::Int(v) => v.to_string(),
        Operand::F32(x) => format!("0f{:08X}", x.to_bits()),
        Operand::F64(x) => format!("0d{:016X}", x.to_bits()),
    }
}

/// The instruction's text: its PTX line as the writer prints it; a loop (several lines in
/// the PTX) as its bounds.
pub(crate) fn inst_text(p: &Program, inst: &Inst) -> String {
    match inst {
        Inst::Loop { iv, lower, upper, step, .. } => {
            format!("loop {} = {} .. {} step {}", reg(p, *iv), opnd(p, *lower), opnd(p, *upper), opnd(p, *step))
        }
        Inst::If { cond, .. } => format!("if.uni {} (bra.uni)", reg(p, *cond)),
        Inst::While { cond, .. } => format!("while.uni {} (bra.uni)", reg(p, *cond)),
        other => writer::inst_line(p, other).unwrap_or_else(|| format!("{other:?}")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::backend::ptx::lir::{Group, Guard, Program, Ty};

    fn program(body: Vec<Inst>) -> Program {
        Program {
            entry: "k".into(),
            params: Vec::new(),
            target: "sm_86".into(),
            ptx_version: (7, 8),
            threads_per_cta: 32,
            min_ctas_per_sm: 0,
            shared_bytes: 0,
            shared_align: 16,
            shared_site: None,
            regs: vec![Ty::Pred, Ty::I64, Ty::F32, Ty::F32],
            body,
            layouts: Vec::new(),
            header: Vec::new(),
            decisions: Default::default(),
            tensor_maps: Vec::new(),
        }
    }

    #[test]
    fn memory_instructions_print_as_ptx_and_are_found_by_position() {
        let ld = Inst::LdGlobal {
            guard: Some(Guard { pred: Reg(0), negate: false }),
            ty: Ty::F32,
            dsts: vec![Reg(2), Reg(3)],
            addr: Reg(1),
            offset: 8,
            non_coherent: false,
        };
        let p = program(vec![
            Inst::Group(Group::synthetic("a")),
            Inst::Loop {
                ty: Ty::I64,
                iv: Reg(1),
                lower: Operand::Int(0),
                upper: Operand::Int(4),
                step: Operand::Int(1),
                body: vec![Inst::Group(Group::synthetic("b")), ld.clone()],
            },
            Inst::BarSync { id: 0 },
        ]);
        assert_eq!(inst_text(&p, nth_inst(&p, 1).unwrap()), "@%p0 ld.global.v2.f32 {%f2, %f3}, [%rd1+8];");
        assert_eq!(inst_text(&p, nth_inst(&p, 0).unwrap()), "loop %rd1 = 0 .. 4 step 1");
        assert_eq!(nth_inst(&p, 2), Some(&Inst::BarSync { id: 0 }));
        assert_eq!(nth_inst(&p, 3), None);
    }
}
