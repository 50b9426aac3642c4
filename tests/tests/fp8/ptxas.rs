//! The fp8 kernels' PTX assembles with ptxas for sm_86 (the software conversions) and
//! sm_90, with no spills.

use rstest::rstest;
use rtriton::backend::ptx::Arch;
use rtriton::spec::{ArgValue, SpecPolicy};

use crate::kernels;
use crate::ptx_common::{assembles_without_spills, compile_def, options, ptxas};
use crate::run::BLOCK;

#[rstest]
#[cfg_attr(not(has_ptxas), ignore = "needs ptxas on PATH")]
fn fp8_kernels_assemble_without_spills(#[values(Arch::Sm86, Arch::Sm90)] arch: Arch) {
    let ptxas = ptxas("fp8_kernels_assemble_without_spills");
    let mut defs = kernels::every_cvt();
    defs.extend([kernels::fma_f8(), kernels::where_f8()]);
    let mut failures = Vec::new();
    for def in defs {
        let mut args: Vec<ArgValue> =
            (0..def.params.len() - 1).map(|i| ArgValue::Ptr(0x1_0000_0000 + i as u64 * 0x10000)).collect();
        args.push(ArgValue::Int(1024));
        let text = compile_def(&def, &[("BLOCK", BLOCK)], &args, SpecPolicy::Triton, &options(arch, 4))
            .unwrap_or_else(|e| panic!("{}: {e}", def.name))
            .text;
        if let Err(e) = assembles_without_spills(&ptxas, &text, arch, def.name) {
            failures.push(e);
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}
