//! Every PTX the PTX suites produce, assembled by the real ptxas: `.target sm_86` PTX with
//! `-arch=sm_86` and `-arch=sm_90` (JIT forward compatibility), `.target sm_90` PTX with
//! `-arch=sm_90`; `-v` parsed for spills. Every test here is ignored when `tests/build.rs` found
//! no ptxas (`cargo test` lists them as ignored); under `CI=true` a missing ptxas fails the
//! build instead.

mod ptx_common;

use ptx_common::{SASS_FFMA, assemble, compile, compile_plain, front, options, ptxas, sass_opcodes, spill_stores};
use rstest::rstest;
use rstest_reuse::apply;
use rtriton::backend::ptx::{self, Arch};
use rtriton::spec::{ArgValue, SpecPolicy};
use rtriton_kernels::RowMaxVariant;
use rtriton_tests::tables::every_variant;
use rtriton_tests::{contiguous_args, kernels};

/// Assembles `text` for every arch that runs it; one `(arch, ptxas -v output)` per arch,
/// each checked to report its resource usage (so a silent ptxas cannot pass).
fn assemble_all_arches(text: &str, arch: Arch, name: &str) -> Vec<(String, String)> {
    let ptxas = ptxas(name);
    let arches: &[&str] = if arch == Arch::Sm90 { &["sm_90"] } else { &[arch.name(), "sm_90"] };
    let mut infos = Vec::new();
    for a in arches {
        match assemble(&ptxas, text, a, &format!("{name}_{a}")) {
            Ok(info) => {
                assert!(spill_stores(&info).is_some(), "ptxas -v -arch={a} reported no spill line for {name}:\n{info}");
                infos.push((a.to_string(), info));
            }
            Err(e) => panic!("ptxas -arch={a} rejected {name}:\n{e}\n--- PTX ---\n{text}"),
        }
    }
    assert_eq!(infos.len(), arches.len(), "{name}: one ptxas run per arch");
    infos
}

/// The golden matrix, plus: 0 bytes of spill stores at the default config (num_warps 4).
#[apply(every_variant)]
#[cfg_attr(not(has_ptxas), ignore = "needs ptxas on PATH")]
fn golden_matrix_assembles_without_spills(
    variant: RowMaxVariant,
    #[values(SpecPolicy::Triton, SpecPolicy::Off)] policy: SpecPolicy,
    #[values(Arch::Sm86, Arch::Sm90)] arch: Arch,
) {
    let ptx = compile(variant, &contiguous_args(), policy, &options(arch, 4)).expect("compiles");
    let name = format!("{}_{policy:?}_{arch}", variant.name());
    for (a, info) in assemble_all_arches(&ptx.text, arch, &name) {
        assert_eq!(spill_stores(&info), Some(0), "{name} on {a} spills:\n{info}");
    }
}

/// Other launch shapes: narrow rows (blocks smaller than the CTA, replication), odd
/// strides and misaligned bases (scalar paths), every num_warps.
#[rstest]
#[case::narrow_8(8, 7, 1, 0)]
#[case::narrow_32(32, 30, 1, 0)]
#[case::strided(256, 200, 2, 0)]
#[case::misaligned_base(128, 100, 1, 4)]
#[case::wide(4096, 4096, 1, 0)]
#[cfg_attr(not(has_ptxas), ignore = "needs ptxas on PATH")]
fn other_shapes_assemble(
    #[case] block: i64,
    #[case] n_cols: i64,
    #[case] stride_col: i64,
    #[case] base_offset: u64,
    #[values(1, 2, 4, 8)] num_warps: u32,
    #[values(RowMaxVariant::RowMax, RowMaxVariant::RowMaxLoop, RowMaxVariant::RowMax2d, RowMaxVariant::RowMaxI32)]
    variant: RowMaxVariant,
) {
    let args = vec![
        ArgValue::Ptr(0x7f00_0000_0000 + base_offset),
        ArgValue::Ptr(0x7f00_0010_0000),
        ArgValue::Int(100),
        ArgValue::Int(n_cols),
        ArgValue::Int(n_cols * stride_col),
        ArgValue::Int(stride_col),
    ];
    let constexprs = if variant == RowMaxVariant::RowMax2d {
        vec![("BLOCK_M", 8), ("BLOCK_N", block.min(256))]
    } else {
        vec![("BLOCK", block)]
    };
    let verified = front(variant, &args, SpecPolicy::Triton, Some(constexprs));
    let ptx = ptx::compile(&verified, &options(Arch::Sm86, num_warps)).expect("compiles");
    let name = format!("{}_b{block}_n{n_cols}_s{stride_col}_o{base_offset}_w{num_warps}", variant.name());
    for (a, info) in assemble_all_arches(&ptx.text, Arch::Sm86, &name) {
        let entry = format!("entry function '{}'", variant.def().name);
        assert!(info.contains(&entry), "{name} on {a}: ptxas compiled no {entry}:\n{info}");
    }
}

#[rstest]
#[cfg_attr(not(has_ptxas), ignore = "needs ptxas on PATH")]
fn op_mix_assembles(#[values(1, 4)] num_warps: u32, #[values(16, 256)] block: i64) {
    let ptx =
        compile_plain(&kernels::op_mix(), &[("BLOCK", block)], &options(Arch::Sm86, num_warps)).expect("compiles");
    for (a, info) in assemble_all_arches(&ptx.text, Arch::Sm86, &format!("op_mix_w{num_warps}_b{block}")) {
        assert!(info.contains("entry function 'op_mix'"), "op_mix on {a}: ptxas compiled no `op_mix`:\n{info}");
    }
}

#[test]
fn op_mix_text_uses_the_expected_instructions() {
    let text = compile_plain(&kernels::op_mix(), &[("BLOCK", 256)], &options(Arch::Sm86, 4)).expect("compiles").text;
    for needle in [
        "selp.f32",
        "selp.b32",
        "div.s32",
        "rem.s32",
        "cvt.rn.f32.s32",
        "cvt.rzi.s32.f32",
        "min.f32",
        "add.rn.f32",
        "mul.rn.f32",
        "%nctaid.x",
    ] {
        assert!(text.contains(needle), "missing {needle}:\n{text}");
    }
}

/// The writer prints an `f32` add without `.rn` only where no operand can be a product
/// (`dsl/src/backend/ptx/writer/rounding.rs`), because ptxas fuses a plain add with some
/// producers and not others. This measures which, per producer of the add's first operand
/// (`FFMA`s in the SASS of `y = op(x...) + c`): ptxas may change with its version, and the
/// writer's list must follow it.
#[rstest]
#[case::plain_mul("mul.f32 %f4, %f1, %f2;", true)]
#[case::div_full("div.full.f32 %f4, %f1, %f2;", true)]
#[case::mul_rn("mul.rn.f32 %f4, %f1, %f2;", false)]
#[case::ex2_approx("ex2.approx.f32 %f4, %f1;", false)]
#[case::ex2_approx_ftz("ex2.approx.ftz.f32 %f4, %f1;", false)]
#[case::fma_rn("fma.rn.f32 %f4, %f1, %f2, %f3;", false)]
#[case::add_plain("add.f32 %f4, %f1, %f2;", false)]
#[case::cvt_from_f16("cvt.rn.f16.f32 %h1, %f1; cvt.f32.f16 %f4, %h1;", false)]
#[cfg_attr(not(has_ptxas), ignore = "needs ptxas on PATH")]
fn a_plain_add_fuses_only_with_the_producers_the_writer_keeps_it_from(#[case] producer: &str, #[case] fuses: bool) {
    let ptxas = ptxas("a_plain_add_fuses_only_with_the_producers_the_writer_keeps_it_from");
    let kernel = |add: &str| {
        format!(
            ".version 7.8\n.target sm_86\n.address_size 64\n.visible .entry k(.param .u64 p, .param .f32 c)\n{{\n\
             .reg .f32 %f<8>; .reg .b64 %rd<2>; .reg .b16 %h<2>;\n\
             ld.param.u64 %rd1, [p]; ld.param.f32 %f3, [c];\nld.global.v2.f32 {{%f1, %f2}}, [%rd1];\n\
             {producer}\n{add} %f5, %f4, %f3;\nst.global.f32 [%rd1], %f5;\nret;\n}}\n"
        )
    };
    // FFMAs the producer brings itself: those with the add kept apart by `.rn`.
    for arch in ["sm_86", "sm_90"] {
        let ffmas = |add: &str| {
            let ops = sass_opcodes(&ptxas, &kernel(add), arch, "k").unwrap_or_else(|e| panic!("{producer}: {e}"));
            ops.iter().filter(|&&op| op & 0x1ff == SASS_FFMA).count()
        };
        let (kept_apart, plain) = (ffmas("add.rn.f32"), ffmas("add.f32"));
        assert_eq!(
            plain > kept_apart,
            fuses,
            "`{producer}` then a plain add on {arch}: {plain} FFMAs, {kept_apart} with add.rn"
        );
    }
}
