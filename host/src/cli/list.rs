//! `rtriton list`

use std::process::ExitCode;

use super::out::outln;

pub fn run(kernels: &super::kernels::KernelSet) -> anyhow::Result<ExitCode> {
    for def in kernels.defs() {
        outln!("{}", def.signature())?;
    }
    Ok(ExitCode::SUCCESS)
}
