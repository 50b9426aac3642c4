//! Every dtype kernel of this suite assembles with ptxas for sm_86 and sm_90 with no
//! spills, under Triton's specialization (16-byte aligned pointers, so 16-bit and 8-bit
//! elements get vector accesses) and without it (scalar accesses).

use rstest::rstest;
use rtriton::backend::ptx::Arch;
use rtriton::spec::{ArgValue, SpecPolicy};
use rtriton::trace::KernelDef;

use crate::kernels;
use crate::ptx_common::{assembles_without_spills, compile_def, options, ptxas};
use crate::run::BLOCK;

fn every_kernel() -> Vec<KernelDef> {
    let mut defs: Vec<KernelDef> = kernels::cvt::conversions().into_iter().map(|(_, _, d)| d).collect();
    defs.extend([
        kernels::f16_ops(),
        kernels::bf16_ops(),
        kernels::i8_ops(),
        kernels::u8_ops(),
        kernels::u32_ops(),
        kernels::u64_ops(),
        kernels::f64_ops(),
        kernels::reduce_f16(),
        kernels::reduce_bf16(),
        kernels::reduce_i8(),
        kernels::reduce_u8(),
        kernels::reduce_u32(),
    ]);
    defs
}

#[rstest]
#[cfg_attr(not(has_ptxas), ignore = "needs ptxas on PATH")]
fn dtype_kernels_assemble_without_spills(
    #[values(Arch::Sm86, Arch::Sm90)] arch: Arch,
    #[values(SpecPolicy::Triton, SpecPolicy::Off)] policy: SpecPolicy,
) {
    let ptxas = ptxas("dtype_kernels_assemble_without_spills");
    let mut failures = Vec::new();
    for def in every_kernel() {
        // Every pointer 256-byte aligned (divisible by 16), n = 1024 (divisible by 16).
        let mut args: Vec<ArgValue> =
            (0..def.params.len() - 1).map(|i| ArgValue::Ptr(0x1_0000_0000 + i as u64 * 0x10000)).collect();
        args.push(ArgValue::Int(1024));
        let text = compile_def(&def, &[("BLOCK", BLOCK)], &args, policy, &options(arch, 4))
            .unwrap_or_else(|e| panic!("{}: {e}", def.name))
            .text;
        if let Err(e) = assembles_without_spills(&ptxas, &text, arch, def.name) {
            failures.push(e);
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}
