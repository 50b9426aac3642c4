//! The fp8 kernels' PTX assembles with ptxas for sm_86 (the software conversions), sm_89
//! and sm_90 (PTX's conversions), with no spills; which conversions each target gets.

use rstest::rstest;
use rtriton::backend::ptx::{Arch, PtxOptions};
use rtriton::spec::{ArgValue, SpecPolicy};

use crate::kernels;
use crate::ptx_common::{assembles_without_spills, compile_def, options, ptxas};
use crate::run::BLOCK;

#[rstest]
#[cfg_attr(not(has_ptxas), ignore = "needs ptxas on PATH")]
fn fp8_kernels_assemble_without_spills(#[values(Arch::Sm86, Arch::Sm89, Arch::Sm90)] arch: Arch) {
    let ptxas = ptxas("fp8_kernels_assemble_without_spills");
    let mut defs = kernels::every_cvt();
    defs.extend([kernels::fma_f8(), kernels::where_f8()]);
    let mut failures = Vec::new();
    for def in defs {
        let mut args: Vec<ArgValue> =
            (0..def.params.len() - 1).map(|i| ArgValue::Ptr(0x1_0000_0000 + i as u64 * 0x10000)).collect();
        args.push(ArgValue::Int(1024));
        let text = compile_def(&def, &[("BLOCK", BLOCK)], &args, SpecPolicy::Triton, &options(arch, 4))
            .unwrap_or_else(|e| panic!("{}: {e}", def.name))
            .text;
        if let Err(e) = assembles_without_spills(&ptxas, &text, arch, def.name) {
            failures.push(e);
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

/// From sm_89 on, an fp8 conversion is PTX's `cvt` of a pair (encode) or to a pair of
/// f16 (decode); sm_86 has neither and computes the codes with integer operations, as
/// sm_89 does below `.version 8.1`.
#[test]
fn sm89_and_newer_convert_with_the_fp8_cvt_instructions() {
    let args = [ArgValue::Ptr(0x1_0000_0000), ArgValue::Ptr(0x1_0001_0000), ArgValue::Int(1024)];
    let cases = [
        (kernels::f32_to_e4m3::cvt(), "cvt.rn.satfinite.e4m3x2.f32 %h"),
        (kernels::bf16_to_e5m2::cvt(), "cvt.rn.satfinite.e5m2x2.f32 %h"),
        (kernels::e4m3_to_f32::cvt(), "cvt.rn.f16x2.e4m3x2 %r"),
        (kernels::e5m2_to_f16::cvt(), "cvt.rn.f16x2.e5m2x2 %r"),
    ];
    for (def, instruction) in cases {
        for arch in Arch::ALL {
            let text = compile_def(&def, &[("BLOCK", BLOCK)], &args, SpecPolicy::Triton, &options(arch, 4))
                .unwrap_or_else(|e| panic!("{}: {e}", def.name))
                .text;
            let native = arch >= Arch::Sm89;
            assert_eq!(text.contains(instruction), native, "{} for {arch}:\n{text}", def.name);
            assert_eq!(text.contains("e4m3x2") || text.contains("e5m2x2"), native, "{} for {arch}", def.name);
        }
        let old = PtxOptions { ptx_version: (7, 8), ..options(Arch::Sm89, 4) };
        let text = compile_def(&def, &[("BLOCK", BLOCK)], &args, SpecPolicy::Triton, &old).expect("compiles").text;
        assert!(!text.contains("e4m3x2") && !text.contains("e5m2x2"), "{} for sm_89 at 7.8:\n{text}", def.name);
    }
}
