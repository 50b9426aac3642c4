//! Golden PTX: every row-max variant x {specialized (stride_col == 1, 16-byte aligned
//! pointers, n_cols and stride_row divisible by 16), specialization off} x {sm_86, sm_90}.
//! Review changes with `cargo insta review` (or regenerate with `INSTA_UPDATE=always`).

mod ptx_common;

use ptx_common::{compile, options};
use rstest::rstest;
use rstest_reuse::apply;
use rtriton::backend::ptx::Arch;
use rtriton::spec::SpecPolicy;
use rtriton_kernels::RowMaxVariant;
use rtriton_tests::tables::every_variant;
use rtriton_tests::{contiguous_args, lower_def};

#[apply(every_variant)]
fn golden_ptx(
    variant: RowMaxVariant,
    #[values(SpecPolicy::Triton, SpecPolicy::Off)] policy: SpecPolicy,
    #[values(Arch::Sm86, Arch::Sm90)] arch: Arch,
) {
    let ptx = compile(variant, &contiguous_args(), policy, &options(arch, 4)).expect("compiles");
    let spec = if policy == SpecPolicy::Triton { "spec" } else { "nospec" };
    let name = format!("{}_{spec}_{arch}", variant.name());
    insta::assert_snapshot!(name, ptx.text);
}

/// The lowered form itself (what the SIMT simulator executes), for two variants.
#[rstest]
fn golden_lir(#[values(RowMaxVariant::RowMax, RowMaxVariant::RowMax2d)] variant: RowMaxVariant) {
    let p = lower_def(&variant.def(), &variant.default_constexprs(), &contiguous_args(), SpecPolicy::Triton, 4)
        .expect("lowers");
    insta::assert_snapshot!(format!("lir_{}", variant.name()), p.to_string());
}
