//! `inline_asm_elementwise` on the CPU: the interpreter cannot run PTX, so it runs the
//! op's CPU model ([`AsmModel`]) once per group of `pack` elements, on the registers the
//! asm would read (`ir/inline_asm.rs`'s plan: narrow elements packed, the first in the
//! low bits). Groups are consecutive elements in row-major order; the last one is
//! padded with zeros, whose results are dropped. The GPU groups a thread's elements
//! instead, which Triton leaves unspecified: an asm whose result element depends only on
//! the argument elements at its position gives the same bits either way.

use crate::ir::inline_asm::AsmPlan;
use crate::ir::{AsmModel, DType};

use super::bits::{from_bits, raw_bits};
use super::value::{Data, Trap, unsupported};

/// The results of the asm over `args` (one shape, `numel` elements), with `model`.
pub(crate) fn run(
    model: Option<&AsmModel>,
    args: &[&Data],
    arg_types: &[DType],
    results: &[DType],
    numel: usize,
    pack: u32,
) -> Result<Vec<Data>, Trap> {
    let Some(run) = model.and_then(|m| m.run) else {
        return Err(Trap::NoAsmModel { named: model.map(|m| m.name) });
    };
    let Some(plan) = AsmPlan::of(results, arg_types, pack) else {
        return unsupported("an inline asm with an i1 operand");
    };
    let arg_bits: Vec<Vec<u64>> = args.iter().map(|d| element_bits(d)).collect::<Result<_, _>>()?;
    if arg_bits.iter().any(|b| b.len() != numel) {
        return unsupported("an inline asm whose arguments do not all have the results' shape");
    }
    let mut out_bits = vec![vec![0u64; numel]; results.len()];
    let (mut inputs, mut outputs) = (vec![0u64; plan.inputs.len()], vec![0u64; plan.outputs.len()]);
    let pack = pack as usize;
    for start in (0..numel).step_by(pack) {
        for (slot, reg) in inputs.iter_mut().zip(&plan.inputs) {
            let mask = elem_mask(reg.elem_bits);
            *slot = (0..reg.elems)
                .map(|e| {
                    let x = arg_bits[reg.value].get(start + (reg.first + e) as usize).copied().unwrap_or(0);
                    (x & mask) << (e * reg.elem_bits)
                })
                .fold(0, |a, b| a | b);
        }
        outputs.fill(0);
        run(&inputs, &mut outputs);
        for (bits, reg) in outputs.iter().zip(&plan.outputs) {
            let mask = elem_mask(reg.elem_bits);
            for e in 0..reg.elems {
                if let Some(slot) = out_bits[reg.value].get_mut(start + (reg.first + e) as usize) {
                    *slot = (bits >> (e * reg.elem_bits)) & mask;
                }
            }
        }
    }
    results
        .iter()
        .zip(out_bits)
        .map(|(d, bits)| match d.scalar() {
            Some(s) => Ok(from_bits(bits, s)),
            None => unsupported("an inline asm with a pointer result"),
        })
        .collect()
}

/// The bits of every element as an asm register reads them (an address for a pointer).
fn element_bits(d: &Data) -> Result<Vec<u64>, Trap> {
    match d {
        Data::Ptr(addrs) => Ok(addrs.clone()),
        other => raw_bits(other).map(|(bits, _)| bits),
    }
}

fn elem_mask(bits: u32) -> u64 {
    if bits >= 64 { u64::MAX } else { (1u64 << bits) - 1 }
}
