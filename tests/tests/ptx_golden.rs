//! Golden PTX: every row-max variant x {specialized (stride_col == 1, 16-byte aligned
//! pointers, n_cols and stride_row divisible by 16), specialization off}, for sm_86, traced
//! from the fixture copies in `tests/src/fixtures/` (so the snapshots name that file, not
//! `row_max.rs`). sm_90 has no snapshots of its own: its PTX must differ from sm_86's in
//! the `.target` line only. Review changes with `cargo insta review` (or regenerate with
//! `INSTA_UPDATE=always`).

mod ptx_common;

use ptx_common::{compile_def, options};
use rstest::rstest;
use rstest_reuse::apply;
use rtriton::backend::ptx::Arch;
use rtriton::spec::SpecPolicy;
use rtriton_kernels::RowMaxVariant;
use rtriton_tests::fixtures::row_max_family;
use rtriton_tests::tables::every_variant;
use rtriton_tests::{contiguous_args, lower_def, transposed_args};

fn ptx(variant: RowMaxVariant, policy: SpecPolicy, arch: Arch) -> String {
    let def = row_max_family::def(variant);
    compile_def(&def, &variant.default_constexprs(), &contiguous_args(), policy, &options(arch, 4))
        .expect("compiles")
        .text
}

#[apply(every_variant)]
fn golden_ptx(variant: RowMaxVariant, #[values(SpecPolicy::Triton, SpecPolicy::Off)] policy: SpecPolicy) {
    let spec = if policy == SpecPolicy::Triton { "spec" } else { "nospec" };
    let name = format!("{}_{spec}_{}", variant.name(), Arch::Sm86);
    insta::assert_snapshot!(name, ptx(variant, policy, Arch::Sm86));
}

/// The PTX for sm_90 is the sm_86 PTX with the one `.target` line changed: nothing else in
/// the back end depends on the architecture, so one set of snapshots covers both.
#[apply(every_variant)]
fn sm_90_differs_from_sm_86_only_in_the_target(
    variant: RowMaxVariant,
    #[values(SpecPolicy::Triton, SpecPolicy::Off)] policy: SpecPolicy,
) {
    let sm86 = ptx(variant, policy, Arch::Sm86);
    let sm90 = ptx(variant, policy, Arch::Sm90);
    assert_eq!(sm86.lines().count(), sm90.lines().count(), "{sm86}\n{sm90}");
    let differing: Vec<(&str, &str)> = sm86.lines().zip(sm90.lines()).filter(|(a, b)| a != b).collect();
    assert_eq!(differing, [(".target sm_86", ".target sm_90")]);
}

/// The lowered form itself (what the SIMT simulator executes), for two variants.
#[rstest]
fn golden_lir(#[values(RowMaxVariant::RowMax, RowMaxVariant::RowMax2d)] variant: RowMaxVariant) {
    let def = row_max_family::def(variant);
    let p = lower_def(&def, &variant.default_constexprs(), &contiguous_args(), SpecPolicy::Triton, 4).expect("lowers");
    insta::assert_snapshot!(format!("lir_{}", variant.name()), p.to_string());
}

/// A `[64, 16]` tile of a transposed view (the row-max target `(16384 x 8192).T`: `stride_row`
/// specialized to the constant 1, `stride_col = 8192`, 16-byte aligned pointers): the
/// layout runs along dim 0 (`order=[0, 1]`, coalesce.rs), so each thread reads 4
/// consecutive rows of a column with one `ld.global.v4.f32` and stores 4 row maxima with
/// one `st.global.v4.f32`; the reduction over the strided dim 1 stays in registers and
/// shuffles.
#[test]
fn golden_ptx_transposed_tile() {
    let def = row_max_family::def(RowMaxVariant::RowMax2d);
    let p = compile_def(
        &def,
        &[("BLOCK_M", 64), ("BLOCK_N", 16)],
        &transposed_args(),
        SpecPolicy::Triton,
        &options(Arch::Sm86, 4),
    )
    .expect("compiles");
    assert!(p.text.contains("order=[0, 1]"), "{}", p.text);
    assert!(p.text.contains("ld.global.v4.f32") && p.text.contains("st.global.v4.f32"), "{}", p.text);
    insta::assert_snapshot!("row_max_2d_transposed_spec_sm_86", p.text);
}
