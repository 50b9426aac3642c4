//! `rtriton list`

use std::process::ExitCode;

pub fn run() -> anyhow::Result<ExitCode> {
    for def in super::known_kernels() {
        println!("{}", def.signature());
    }
    Ok(ExitCode::SUCCESS)
}
