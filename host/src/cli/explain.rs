//! `rtriton explain <kernel> --arg NAME=V ... [--const NAME=V]`: what specialization does
//! to a kernel for one launch's arguments, and why. The report comes from
//! `rtriton::explain`; this file parses the command line and adds the unified diff of the
//! PTX with and without specialization. `--ir layouts` prints the kernel's IR with its
//! layouts instead (`explain_ir.rs`).

use std::fmt::Write;

use anyhow::{anyhow, bail};
use clap::ValueEnum;
use rtriton::backend::ptx::{Arch, PtxOptions};
use rtriton::explain::{ExplainInput, Explanation, Section, explain, render};
use rtriton::guard::TensorExtent;
use rtriton::ir::ParamKind;

use super::explain_ir::{self, IrStage};
use super::named;
use rtriton::spec::{ArgValue, SpecPolicy};
use rtriton::trace::Semantics;
use rtriton_kernels::RowMaxVariant;
use rtriton_kernels::cases::{HUGE_CASE, RowMaxCase, SHAPE_MATRIX};

/// Which language rules the trace follows.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum SemanticsArg {
    /// rtriton's: a folded argument is still a typed value.
    Rtriton,
    /// Triton's: `.to()` on an argument specialized to 1 is an AttributeError.
    Triton,
}

/// Specialization policy.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum SpecArg {
    /// Triton's rules: fold 1, hint multiples of 16 and aligned pointers.
    Triton,
    /// No specialization.
    Off,
}

#[derive(Debug, clap::Args)]
pub struct ExplainArgs {
    /// The kernel (see `rtriton list`).
    pub kernel: String,
    /// A runtime argument: integers in decimal or 0x hex, pointers as addresses, floats.
    #[arg(long = "arg", value_name = "NAME=V")]
    pub args: Vec<String>,
    /// A constexpr (defaults: the kernel's ahead-of-time values).
    #[arg(long = "const", value_name = "NAME=V")]
    pub consts: Vec<String>,
    /// Trace under rtriton's or Triton's rules.
    #[arg(long, value_enum, default_value_t = SemanticsArg::Rtriton)]
    pub semantics: SemanticsArg,
    /// Specialization policy.
    #[arg(long, value_enum, default_value_t = SpecArg::Triton)]
    pub spec: SpecArg,
    /// Take the row-max arguments, constexprs and tensor extents from a case of the shape
    /// matrix (`kernels-gpu/src/cases.rs`, e.g. `transposed`), or `huge` for the
    /// 2^31+-element case; `--arg`, `--const` and `--extent` override single values.
    #[arg(long, value_name = "CASE")]
    pub case: Option<String>,
    /// The element count of the tensor passed to a pointer parameter, for the overflow
    /// guard (a contiguous tensor: the largest offset is ELEMENTS - 1).
    #[arg(long = "extent", value_name = "NAME=ELEMENTS")]
    pub extents: Vec<String>,
    /// Do not run this lint rule (repeatable): to-on-specializable-arg, i32-index-product,
    /// unspecialized-unit-stride.
    #[arg(long = "allow", value_name = "RULE")]
    pub allow: Vec<String>,
    /// Report lint findings as errors (the exit status is then 1 when there are any).
    #[arg(long)]
    pub deny: bool,
    /// Only these sections, comma-separated: spec, trace, fold, index, vector, lint, guard,
    /// ir, ptx-diff (default: all but ir).
    #[arg(long, value_delimiter = ',')]
    pub only: Vec<String>,
    /// Print the kernel's IR at this stage of the PTX back end instead of the report:
    /// `layouts` is the IR after the layout assignment, as Triton prints TTGIR (the
    /// `#blocked`/`#mma` encodings, each value's layout, a `convert_layout` line where an
    /// op reads a value in another layout or a `dot` its operand as `#dot_op`, ring reads
    /// that stay in shared memory).
    #[arg(long, value_enum, value_name = "STAGE", conflicts_with = "only")]
    pub ir: Option<IrStage>,
    /// Warps per CTA, for the layouts and the PTX.
    #[arg(long, default_value_t = 4)]
    pub num_warps: u32,
    /// Target architecture, for the layouts and the PTX: sm_80, sm_86, sm_89, sm_90, or
    /// sm_90a (whose layouts text names the `dot`s that run as `wgmma` and the tensor
    /// copies).
    #[arg(long, default_value = "sm_86")]
    pub arch: String,
}

/// The sections the host adds after the library's report.
const PTX_DIFF: &str = "ptx-diff";

fn sections(only: &[String]) -> anyhow::Result<(Vec<Section>, bool)> {
    if only.is_empty() {
        return Ok((Section::DEFAULT.to_vec(), true));
    }
    let mut out = Vec::new();
    let mut diff = false;
    for name in only {
        if name == PTX_DIFF {
            diff = true;
        } else {
            out.push(Section::from_name(name).ok_or_else(|| {
                anyhow!("unknown section `{name}`; use spec, trace, fold, index, vector, lint, guard, ir, ptx-diff")
            })?);
        }
    }
    Ok((out, diff))
}

/// Where `--case` pretends the buffers live (256-byte aligned, as cudaMalloc returns).
const CASE_X: u64 = 0x7f00_0000_0000;
const CASE_Y: u64 = 0x7e00_0000_0000;

fn find_case(name: &str) -> anyhow::Result<RowMaxCase> {
    if name == "huge" || name == HUGE_CASE.name {
        return Ok(HUGE_CASE);
    }
    SHAPE_MATRIX.iter().find(|c| c.name == name).copied().ok_or_else(|| {
        let names: Vec<&str> = SHAPE_MATRIX.iter().map(|c| c.name).collect();
        anyhow!("unknown case `{name}`; the cases are: {}, huge", names.join(", "))
    })
}

/// The arguments, constexprs and extents of a launch of `variant` on case `c` (`--arg`,
/// `--const` and `--extent` override them).
type CaseLaunch = (Vec<Option<ArgValue>>, Vec<(&'static str, i64)>, Vec<TensorExtent>);

fn case_launch(c: &RowMaxCase, variant: RowMaxVariant) -> CaseLaunch {
    let l = c.layout();
    let args = vec![
        Some(ArgValue::Ptr(CASE_X + 4 * l.offset as u64)),
        Some(ArgValue::Ptr(CASE_Y)),
        Some(ArgValue::Int(c.n_rows as i64)),
        Some(ArgValue::Int(c.n_cols as i64)),
        Some(ArgValue::Int(l.stride_row as i64)),
        Some(ArgValue::Int(l.stride_col as i64)),
    ];
    let (rows, cols) = (c.n_rows as u64, c.n_cols as u64);
    let extents = vec![
        // The pointer passed is the view's first element, so the view offset is 0 here.
        TensorExtent::of_view("x_ptr", 0, &[rows, cols], &[l.stride_row as i64, l.stride_col as i64]),
        TensorExtent::of_view("y_ptr", 0, &[rows], &[1]),
    ];
    (args, variant.constexprs_for(c.n_rows, c.n_cols), extents)
}

/// Runs the command, writing the report to `out`; returns the exit status (1 when the
/// launch would not go ahead: the trace fails, the guard refuses, or `--deny` and the
/// lint found something).
pub fn run(a: &ExplainArgs, kernels: &super::kernels::KernelSet, out: &mut String) -> anyhow::Result<u8> {
    let def = kernels.find(&a.kernel)?;
    let lint = super::lint_options(a.deny, &a.allow)?;
    let variant = kernels.row_max_variant(&def);
    let case = match &a.case {
        None => None,
        Some(name) => Some(find_case(name)?),
    };
    let (preset, defaults, mut extents) = match (case, variant) {
        (Some(c), Some(v)) => case_launch(&c, v),
        (Some(_), None) => bail!("--case fills the row-max family's arguments; `{}` is not one of them", def.name),
        (None, _) => (Vec::new(), variant.map(|v| v.default_constexprs()).unwrap_or_default(), Vec::new()),
    };
    let args = named::launch_args(&def, &a.args, &preset)?;
    let consts = named::constexprs(&def, &a.consts, defaults)?;
    for (name, v) in named::assignments("--extent", &a.extents)? {
        if !def.params.iter().any(|p| p.name == name && matches!(p.kind, ParamKind::Ptr(_))) {
            bail!(
                "--extent {name}: kernel `{}` has no pointer parameter `{name}`; give extents of its pointers",
                def.name
            );
        }
        let n = named::parse_u64("--extent", name, v, "an element count")?;
        extents.retain(|e: &TensorExtent| e.param != name);
        extents.push(TensorExtent { param: name.to_string(), numel: n, max_offset_elems: n.saturating_sub(1) });
    }
    let policy = match a.spec {
        SpecArg::Triton => SpecPolicy::Triton,
        SpecArg::Off => SpecPolicy::Off,
    };
    let semantics = match a.semantics {
        SemanticsArg::Rtriton => Semantics::Rtriton,
        SemanticsArg::Triton => Semantics::Triton,
    };
    let arch: Arch = a.arch.parse().map_err(|e: String| anyhow!(e))?;
    let ptx = PtxOptions { num_warps: a.num_warps, ..PtxOptions::for_arch(arch) };
    if let Some(stage) = a.ir {
        return explain_ir::render(stage, &def, (&consts, &args), (policy, semantics), &ptx, out);
    }
    let (sections, diff) = sections(&a.only)?;
    let input = ExplainInput {
        def: &def,
        constexprs: &consts,
        args: &args,
        policy,
        semantics,
        extents: &extents,
        ptx,
        lint: &lint,
    };
    let e = explain(&input)?;
    out.push_str(&render(&e, &sections));
    if diff {
        out.push('\n');
        ptx_diff(&e, out);
    }
    Ok(if e.ok() { 0 } else { 1 })
}

/// The unified diff of the PTX without (`---`) and with (`+++`) specialization.
fn ptx_diff(e: &Explanation, out: &mut String) {
    match (&e.ptx_unspecialized, &e.ptx_specialized) {
        (Some(Ok(plain)), Some(Ok(spec))) => {
            let diff = similar::TextDiff::from_lines(&plain.text, &spec.text);
            let _ = writeln!(out, "PTX diff (unspecialized -> specialized):");
            let _ =
                write!(out, "{}", diff.unified_diff().context_radius(2).header("unspecialized.ptx", "specialized.ptx"));
        }
        (Some(Err(err)), _) | (_, Some(Err(err))) => {
            let _ = writeln!(out, "PTX diff: the PTX back end could not compile the kernel\n{err}");
        }
        _ => {
            let _ = writeln!(out, "PTX diff: not shown (the kernel does not trace)");
        }
    }
}
