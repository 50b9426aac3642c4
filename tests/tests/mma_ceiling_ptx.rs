//! The `mma.sync` ceiling kernel (`host/src/bench/mma_ceiling.rs`) is PTX written by hand:
//! ptxas must take it for sm_86 and sm_90, with no spills (a spill would put memory
//! traffic into a measurement of the tensor cores alone).

mod ptx_common;

use rtriton_host::bench::mma_ceiling::{ENTRY, Operand16, ptx};

#[test]
#[cfg_attr(not(has_ptxas), ignore = "needs ptxas on PATH")]
fn the_ceiling_kernel_assembles_without_spills() {
    let ptxas = ptx_common::ptxas("the_ceiling_kernel_assembles_without_spills");
    for op in [Operand16::F16, Operand16::BF16] {
        let text = ptx(op);
        for arch in ["sm_86", "sm_90"] {
            let info = ptx_common::assemble(&ptxas, &text, arch, ENTRY)
                .unwrap_or_else(|e| panic!("{} on {arch}: {e}\n{text}", op.name()));
            assert_eq!(ptx_common::spill_stores(&info), Some(0), "{} on {arch}: {info}", op.name());
        }
    }
}
