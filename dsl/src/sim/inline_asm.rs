//! The simulator cannot run PTX: a program with an inline asm runs only when every asm
//! has a CPU model (`inline_asm_elementwise(...).with_model(...)`); otherwise the launch
//! is refused before any thread runs, naming the asm's op and line.

use super::error::{Check, SimError, SimErrorInfo};
use super::text;
use crate::backend::ptx::lir::{Group, Inst, Program};

/// `Ok` when every inline asm of `p` has a model to run; else the first one's error.
pub(super) fn refuse_unmodelled(p: &Program) -> Result<(), SimError> {
    fn go<'a>(insts: &'a [Inst], group: &mut Option<&'a Group>) -> Option<(&'a Inst, Option<&'a Group>)> {
        for i in insts {
            match i {
                Inst::Group(g) => *group = Some(g),
                Inst::InlineAsm { model, .. } if model.is_none_or(|m| m.run.is_none()) => return Some((i, *group)),
                // every other instruction: only the bodies of loops and branches hold more
                _ => {
                    for body in i.bodies() {
                        if let Some(found) = go(body, group) {
                            return Some(found);
                        }
                    }
                }
            }
        }
        None
    }
    let Some((inst, group)) = go(&p.body, &mut None) else { return Ok(()) };
    let named = match inst {
        Inst::InlineAsm { model: Some(m), .. } => Some(m.name),
        // an asm with no model at all (the only other kind `go` returns)
        _ => None,
    };
    let message = match named {
        Some(name) => format!(
            "the inline asm names the CPU model `{name}`, but its function is not part of this program (IR text read back names a model without its code), and the simulator cannot run PTX"
        ),
        None => "inline_asm_elementwise has no CPU model, and the simulator cannot run PTX".to_string(),
    };
    Err(SimError(Box::new(SimErrorInfo {
        check: Check::InlineAsmNoModel,
        kernel: p.entry.clone(),
        loc: group.and_then(|g| g.loc),
        op: group.map(|g| g.op.clone()),
        inst: Some(text::inst_text(p, inst)),
        program: None,
        thread: None,
        address: None,
        message,
        help: "give the asm a CPU model: `inline_asm_elementwise::<T>(...).with_model(AsmModel::new(\"name\", f))`, where `f(inputs, outputs)` computes the output registers from the input registers as the asm does; or run the kernel on the GPU".to_string(),
    })))
}
