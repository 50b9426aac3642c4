//! `rtriton lint <kernel> [--const NAME=V] [--deny] [--allow RULE]`: the portability lint
//! on its own. It needs no launch arguments: it lints the unspecialized kernel, so what it
//! finds holds for every input.

use std::fmt::Write;

use rtriton::session::CompileSession;

#[derive(Debug, clap::Args)]
pub struct LintArgs {
    /// The kernel (see `rtriton list`).
    pub kernel: String,
    /// A constexpr (defaults: the kernel's ahead-of-time values).
    #[arg(long = "const", value_name = "NAME=V")]
    pub consts: Vec<String>,
    /// Do not run this rule (repeatable): to-on-specializable-arg, i32-index-product,
    /// unspecialized-unit-stride.
    #[arg(long = "allow", value_name = "RULE")]
    pub allow: Vec<String>,
    /// Report findings as errors and exit with status 1 when there are any.
    #[arg(long)]
    pub deny: bool,
}

/// Runs the lint, writing the findings to `out`; returns the exit status.
pub fn run(a: &LintArgs, kernels: &super::kernels::KernelSet, out: &mut String) -> anyhow::Result<u8> {
    let def = kernels.find(&a.kernel)?;
    let options = super::lint_options(a.deny, &a.allow)?;
    let consts = super::named::constexprs(&def, &a.consts, kernels.default_constexprs(&def))?;
    let found = CompileSession::new().lint(&def, &consts, &options)?;
    if found.is_empty() {
        let _ = writeln!(out, "{}: no findings", def.name);
        return Ok(0);
    }
    for d in &found {
        let _ = writeln!(out, "{d}");
    }
    let _ = writeln!(out, "{}: {} finding{}", def.name, found.len(), if found.len() == 1 { "" } else { "s" });
    Ok(if options.deny { 1 } else { 0 })
}
