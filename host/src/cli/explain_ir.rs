//! `rtriton explain --ir STAGE <kernel> ...`: the kernel's IR at a stage of the PTX back
//! end, for one launch's arguments and constexprs, instead of the report. `layouts`: after
//! the layout assignment, every block value's layout and the conversions between them, as
//! Triton prints TTGIR (`rtriton::backend::ptx::layouts_text`).

use clap::ValueEnum;
use rtriton::backend::ptx::{PtxOptions, layouts_text};
use rtriton::session::{CompileSession, front_end_options};
use rtriton::spec::{ArgValue, SpecPolicy};
use rtriton::trace::{KernelDef, Semantics, TraceOptions};

/// A stage whose IR `explain --ir` prints.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum IrStage {
    /// After the layout assignment: `#blocked`/`#mma` encodings, each value's layout,
    /// `convert_layout` where an op reads a value in another layout (a tensor-core `dot`'s
    /// operands to `#dot_op`), and the staging rings' reads that stay in shared memory
    /// (`#shared`); on sm_90a the `dot`s that run as `wgmma` and the tensor copies.
    Layouts,
}

/// Writes the IR of `def` at `stage` for `args` and `consts` to `out`; the exit status is
/// 0 (a kernel that does not trace or has no layout is an error).
pub fn render(
    stage: IrStage,
    def: &KernelDef,
    (consts, args): (&[(&str, i64)], &[ArgValue]),
    (policy, semantics): (SpecPolicy, Semantics),
    options: &PtxOptions,
    out: &mut String,
) -> anyhow::Result<u8> {
    let mut session = CompileSession::new();
    // The front end the lowering for `options` runs (sm_90a's deeper rings included), so
    // the text shows the IR the PTX is built from.
    let trace = front_end_options(&TraceOptions { semantics, ..TraceOptions::default() }, options);
    let verified = session.front_end_for_args(def, consts, args, policy, &trace)?;
    match stage {
        IrStage::Layouts => out.push_str(&layouts_text(&verified, options)?),
    }
    Ok(0)
}
