//! `rtriton list`

use std::process::ExitCode;

pub fn run(kernels: &super::kernels::KernelSet) -> anyhow::Result<ExitCode> {
    for def in kernels.defs() {
        println!("{}", def.signature());
    }
    Ok(ExitCode::SUCCESS)
}
