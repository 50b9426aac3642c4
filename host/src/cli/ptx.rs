//! `rtriton ptx <kernel> [--arch sm_86] [--num-warps N] [--const NAME=V]... [--arg NAME=V]...
//! [--no-specialize] [--decisions | --lir]`
//!
//! Prints the PTX of one specialization. The `--arg` values drive specialization exactly
//! as a launch's arguments would (Triton's rules: an int equal to 1 is folded, one
//! divisible by 16 and a 16-byte aligned pointer get the divisibility hint). Pointers are
//! addresses (`--arg x_ptr=0x7f0000000004`). Arguments and constexprs are parsed by
//! [`super::named`], the parser `explain` and `lint` share: a pointer not given defaults
//! to a 256-byte-aligned address, every int must be given, constexprs not given take the
//! kernel's defaults.

use std::process::ExitCode;

use anyhow::anyhow;
use clap::Args;
use rtriton::backend::ptx::{Arch, PtxOptions};
use rtriton::session::CompileSession;
use rtriton::spec::SpecPolicy;
use rtriton::trace::TraceOptions;

use std::fmt::Write;

use super::kernels::KernelSet;
use super::named;

#[derive(Debug, Args)]
pub struct PtxArgs {
    /// Kernel name (see `rtriton list`).
    pub kernel: String,
    /// Target architecture: sm_80, sm_86, sm_89, sm_90, or sm_90a (sm_90 only, `.version` 8.0).
    #[arg(long, default_value = "sm_86")]
    pub arch: String,
    /// Warps per CTA.
    #[arg(long, default_value_t = 4)]
    pub num_warps: u32,
    /// A constexpr value, `NAME=V` (repeatable).
    #[arg(long = "const", value_name = "NAME=V")]
    pub consts: Vec<String>,
    /// A runtime argument, `NAME=V`: ints by value, pointers as addresses (repeatable).
    #[arg(long = "arg", value_name = "NAME=V")]
    pub args: Vec<String>,
    /// Turn specialization off (no folding of 1, no divisibility hints).
    #[arg(long)]
    pub no_specialize: bool,
    /// Print the vectorization and reduction decisions instead of the PTX.
    #[arg(long)]
    pub decisions: bool,
    /// Print the lowered thread-level form (`lir`) instead of the PTX.
    #[arg(long)]
    pub lir: bool,
}

pub fn run(a: &PtxArgs, kernels: &KernelSet) -> anyhow::Result<ExitCode> {
    let mut out = String::new();
    let code = render(a, kernels, &mut out)?;
    super::out::print(&out)?;
    Ok(ExitCode::from(code))
}

/// The PTX (or `--lir`, `--decisions`) written to `out`; returns the exit status. Lint
/// findings go to stderr, so `out` is the PTX alone.
pub fn render(a: &PtxArgs, kernels: &KernelSet, out: &mut String) -> anyhow::Result<u8> {
    let def = kernels.find(&a.kernel)?;
    let arch: Arch = a.arch.parse().map_err(|e: String| anyhow!(e))?;
    let consts = named::constexprs(&def, &a.consts, kernels.default_constexprs(&def))?;
    let args = named::launch_args(&def, &a.args, &[])?;
    let policy = if a.no_specialize { SpecPolicy::Off } else { SpecPolicy::Triton };
    // The portability lint runs at compile time; its findings are warnings on stderr, so
    // the PTX on stdout stays clean (`rtriton lint --deny` makes them errors).
    let mut session = CompileSession::new();
    let trace = TraceOptions::default();
    let checked = session.checked(&def, &consts, &args, policy, &trace, Some(&Default::default()))?;
    for finding in &checked.lints {
        eprintln!("{finding}");
    }
    let spec = checked.verified.kernel().spec.clone();
    let options = PtxOptions { num_warps: a.num_warps, ..PtxOptions::for_arch(arch) };
    if a.lir {
        let _ = write!(out, "{}", session.lower(&def, &consts, &spec, &trace, &options)?);
        return Ok(0);
    }
    let ptx = session.ptx(&def, &consts, &spec, &trace, &options)?;
    if a.decisions {
        for d in &ptx.decisions.accesses {
            let _ = writeln!(out, "{:?} at {}: {}", d.kind, d.loc.short(), d.reason);
        }
        for r in &ptx.decisions.reductions {
            let _ = writeln!(out, "reduce at {}: {}", r.loc.short(), r.reason);
        }
    } else {
        out.push_str(&ptx.text);
    }
    Ok(0)
}

#[cfg(test)]
mod tests {
    use rtriton::spec::ArgValue;

    use super::named::DEFAULT_PTR;
    use rtriton::trace::KernelDef;

    use super::*;

    fn row_max() -> KernelDef {
        rtriton_kernels::RowMaxVariant::RowMax.def()
    }

    fn strings(v: &[&str]) -> Vec<String> {
        v.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn args_drive_specialization_like_a_launch() {
        let a = named::launch_args(
            &row_max(),
            &strings(&["x_ptr=0x7f0000000004", "n_rows=10", "n_cols=1024", "stride_row=1024", "stride_col=1"]),
            &[],
        )
        .unwrap();
        assert_eq!(
            a,
            vec![
                ArgValue::Ptr(0x7f00_0000_0004),
                ArgValue::Ptr(DEFAULT_PTR),
                ArgValue::Int(10),
                ArgValue::Int(1024),
                ArgValue::Int(1024),
                ArgValue::Int(1)
            ]
        );
        let def = row_max();
        let key = rtriton::spec::SpecKey::from_args(def.name, &def.params, &a, SpecPolicy::Triton).unwrap();
        assert_eq!(
            key.to_string(),
            "x_ptr:*f32:-, y_ptr:*f32:D16, n_rows:i32:-, n_cols:i32:D16, stride_row:i32:D16, stride_col:i32:=1"
        );
    }

    #[test]
    fn run_compiles_with_options() {
        let a = PtxArgs {
            kernel: "row_max_2d".into(),
            arch: "sm_90".into(),
            num_warps: 8,
            consts: strings(&["BLOCK_N=128"]),
            args: strings(&["n_rows=100", "n_cols=100", "stride_row=100", "stride_col=1"]),
            no_specialize: false,
            decisions: true,
            lir: false,
        };
        assert_eq!(run(&a, &KernelSet::builtin()).unwrap(), ExitCode::SUCCESS);
        let lir = PtxArgs {
            lir: true,
            consts: a.consts.clone(),
            args: a.args.clone(),
            kernel: a.kernel.clone(),
            arch: a.arch.clone(),
            ..a
        };
        assert_eq!(run(&lir, &KernelSet::builtin()).unwrap(), ExitCode::SUCCESS);
        let a = PtxArgs { lir: false, ..lir };
        let bad = PtxArgs { arch: "sm_75".into(), ..a };
        assert!(run(&bad, &KernelSet::builtin()).unwrap_err().to_string().contains("unknown architecture `sm_75`"));
    }
}
