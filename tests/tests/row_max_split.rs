//! `row_max_split`, the row-max entry point's kernel, through `rtriton-testing` suites on
//! the interpreter, the simulator (every check: bounds, races, atomics against plain
//! accesses, duplicate stores) and the GPU (ignored here): the shape matrix under every
//! configuration the entry point's plan offers, the split-row cases and the other dtypes,
//! all bit for bit against the plain-Rust references (`rtriton_tests::split`).

mod ptx_common;

use half::{bf16, f16};
use ptx_common::{assemble, compile_def, options, ptxas, spill_stores};
use rtriton::backend::ptx::Arch;
use rtriton::ir::ScalarType;
use rtriton::spec::{ArgValue, SpecPolicy};
use rtriton_kernels::SplitConfig;
use rtriton_kernels::row_max_plan::{kernel_for, plan, vec_promise};
use rtriton_testing::{Backend, Case, Element};
use rtriton_tests::split::{cpu_row_max_of, dtype_cases, identity, matrix_cases, reference, split_cases, suite};

#[test]
fn the_generic_reference_is_cpu_row_max_on_f32() {
    let mut checked = 0;
    for case in matrix_cases(false).iter().chain(&split_cases()) {
        let x = case.tensor("x");
        let generic: Vec<u32> =
            reference(&x.data, &x.view, identity(ScalarType::F32)).into_iter().map(|v| (v as f32).to_bits()).collect();
        let cpu: Vec<u32> = cpu_row_max_of(case).into_iter().map(f32::to_bits).collect();
        assert_eq!(generic, cpu, "{}", case.name);
        checked += 1;
    }
    assert!(checked >= 100, "{checked} cases");
}

/// Every case of the shape matrix under every configuration of the entry point's plan for
/// it (what autotuning may choose), both specializations.
#[test]
fn the_matrix_under_every_planned_configuration_on_the_interpreter() {
    suite(ScalarType::F32, matrix_cases(false)).check_all(Backend::Interpreter);
}

#[test]
fn the_matrix_under_every_planned_configuration_on_the_simulator() {
    suite(ScalarType::F32, matrix_cases(true)).check_all(Backend::Simulator);
}

#[test]
fn split_rows_on_the_interpreter() {
    suite(ScalarType::F32, split_cases()).check_all(Backend::Interpreter);
}

#[test]
fn split_rows_on_the_simulator() {
    suite(ScalarType::F32, split_cases()).check_all(Backend::Simulator);
}

/// The split cases do split (several programs per row combining with atomics) and cover
/// what they are named for.
#[test]
fn the_split_cases_split_and_hit_the_nan_and_zero_rules() {
    let cases = split_cases();
    let splits = |c: &Case| c.constexprs.iter().find(|(n, _)| *n == "SPLIT").map_or(1, |(_, v)| *v);
    assert!(cases.iter().filter(|c| splits(c) > 1).count() >= 20);
    let want = |name: &str| {
        let c = cases.iter().find(|c| c.name.starts_with(name)).unwrap();
        let x = c.tensor("x");
        reference(&x.data, &x.view, f64::NEG_INFINITY).into_iter().map(|v| (v as f32).to_bits()).collect::<Vec<_>>()
    };
    // -0.0 alone, then +0.0 found in the last, first and a middle column block.
    assert_eq!(want("signed_zeros_across_programs"), [0x8000_0000, 0, 0, 0]);
    // An all-NaN row gives -inf; a NaN block leaves the rest's maximum.
    let nan = want("nan_block");
    assert_eq!(nan[1], 0xFF80_0000);
    assert!(!f32::from_bits(nan[0]).is_nan() && !f32::from_bits(nan[2]).is_nan());
}

/// The fill is what makes a split launch right: the same all-negative case with `y` at
/// `+0.0` instead of `-inf` gives `+0.0` for every row, and the suite says so.
#[test]
fn a_split_launch_without_the_identity_fill_fails_the_suite() {
    let mut case = split_cases().into_iter().find(|c| c.name.starts_with("few_rows_negative")).unwrap();
    assert!(case.constexprs.contains(&("SPLIT", 5)));
    let y = case.tensor_mut("y").data.as_f32_mut().unwrap();
    y.fill(0.0);
    let name = case.name.clone();
    let failures = suite(ScalarType::F32, vec![case]).run(&name, Backend::Interpreter).unwrap_err();
    let report = failures.to_string();
    assert!(report.contains("0.0 (0x00000000)"), "{report}");
}

fn check_dtype<T: Element>(backend: Backend) {
    let cases = dtype_cases::<T>();
    assert!(cases.len() >= 7, "{}: {} cases", T::SCALAR, cases.len());
    suite(T::SCALAR, cases).check_all(backend);
}

macro_rules! dtype_tests {
    ($($name:ident: $t:ty;)*) => {$(
        mod $name {
            use super::*;

            #[test]
            fn interpreter() {
                check_dtype::<$t>(Backend::Interpreter);
            }

            #[test]
            fn simulator() {
                check_dtype::<$t>(Backend::Simulator);
            }

            #[test]
            #[ignore = "needs a GPU"]
            fn gpu() {
                check_dtype::<$t>(Backend::Gpu);
            }
        }
    )*};
}

dtype_tests! {
    dtype_f16: f16;
    dtype_bf16: bf16;
    dtype_i32: i32;
    dtype_u32: u32;
    dtype_i16: i16;
    dtype_i8: i8;
    dtype_u8: u8;
}

/// The GPU runs the full matrix (no capped rows) and the split cases, both specializations.
#[test]
#[ignore = "needs a GPU"]
fn the_matrix_and_the_split_rows_on_the_gpu() {
    let cases: Vec<Case> = matrix_cases(false).into_iter().chain(split_cases()).collect();
    suite(ScalarType::F32, cases).policies(&[SpecPolicy::Triton, SpecPolicy::Off]).check_all(Backend::Gpu);
}

/// Every configuration the entry point's plan offers for the shapes (H200's 132
/// SMs) assembles with ptxas for sm_86 and sm_90 without spills, and on contiguous rows
/// whose length and stride are multiples of 16 its tile loads are 128-bit
/// (`ld.global.v4`), the split ones combining with `atom` (Triton's sign split: two kinds).
#[rstest::rstest]
#[case::large(32768, 32768, [32768, 1], true)]
#[case::huge(65537, 32768, [32768, 1], true)]
#[case::narrow(1048576, 32, [32, 1], true)]
#[case::few_wide_rows(64, 4194304, [4194304, 1], true)]
#[case::one_column(1000, 1, [1, 1], false)]
#[case::tiny(3, 7, [7, 1], false)]
#[case::transposed(8192, 16384, [1, 8192], false)]
#[case::strided(8192, 8192, [16384, 2], false)]
// Rows 400 bytes apart: vectors only through the launch's `VEC = 4` promise.
#[case::rows_of_100(131072, 100, [100, 1], true)]
#[cfg_attr(not(has_ptxas), ignore = "needs ptxas on PATH")]
fn planned_configurations_assemble_without_spills_and_load_128_bits(
    #[case] rows: i64,
    #[case] cols: i64,
    #[case] strides: [i64; 2],
    #[case] vector_loads: bool,
) {
    let ptxas = ptxas("row_max_split");
    let p = plan(ScalarType::F32, rows as usize, cols as usize, 132).unwrap();
    let args = [
        ArgValue::Ptr(0x7f00_0000_0000),
        ArgValue::Ptr(0x7f10_0000_0000),
        ArgValue::Int(rows),
        ArgValue::Int(cols),
        ArgValue::Int(strides[0]),
        ArgValue::Int(strides[1]),
    ];
    // The promise the entry point adds to every configuration.
    let vec = vec_promise(ScalarType::F32, cols as usize, strides[0] as isize, strides[1] as isize);
    for c in &p.configs {
        let c = &SplitConfig { vec, ..*c };
        for arch in [Arch::Sm86, Arch::Sm90] {
            let ptx = compile_def(&p.kernel, &c.constexprs(), &args, SpecPolicy::Triton, &options(arch, c.num_warps))
                .unwrap_or_else(|e| panic!("{c}: {e}"));
            let info = assemble(&ptxas, &ptx.text, arch.name(), "row_max_split")
                .unwrap_or_else(|e| panic!("ptxas rejected {c} for {arch}:\n{e}"));
            assert_eq!(spill_stores(&info), Some(0), "{c} on {arch} spills:\n{info}");
            if vector_loads && c.block_n >= 4 {
                assert!(ptx.text.contains("ld.global.v4.f32"), "{c}: no 128-bit load");
                assert!(!ptx.text.contains("ld.global.f32"), "{c}: a scalar load");
            }
            let atoms = ["atom.acq_rel.gpu.global.max.s32", "atom.acq_rel.gpu.global.min.u32"];
            assert_eq!(atoms.map(|a| ptx.text.contains(a)), [c.split > 1; 2], "{c}: the split's atomics");
        }
    }
}

/// Every dtype's kernel assembles, unsplit and (where it has `atomic_max`) split.
#[rstest::rstest]
#[cfg_attr(not(has_ptxas), ignore = "needs ptxas on PATH")]
fn every_dtype_kernel_assembles(
    #[values(
        ScalarType::F32,
        ScalarType::F16,
        ScalarType::BF16,
        ScalarType::I32,
        ScalarType::U32,
        ScalarType::I16,
        ScalarType::I8,
        ScalarType::U8
    )]
    dtype: ScalarType,
) {
    let ptxas = ptxas("row_max_split dtypes");
    let (def, identity) = kernel_for(dtype).unwrap();
    let args = [
        ArgValue::Ptr(0x7f00_0000_0000),
        ArgValue::Ptr(0x7f10_0000_0000),
        ArgValue::Int(4096),
        ArgValue::Int(4096),
        ArgValue::Int(4096),
        ArgValue::Int(1),
    ];
    let splits: &[i64] = if identity.is_some() { &[1, 8] } else { &[1] };
    for &split in splits {
        let constexprs = [("BLOCK_M", 2), ("BLOCK_N", 1024), ("SPLIT", split), ("UNROLL", 2), ("VEC", 1)];
        let ptx = compile_def(&def, &constexprs, &args, SpecPolicy::Triton, &options(Arch::Sm86, 4))
            .unwrap_or_else(|e| panic!("{dtype} SPLIT={split}: {e}"));
        let info = assemble(&ptxas, &ptx.text, "sm_86", def.name).unwrap_or_else(|e| panic!("{dtype}: {e}"));
        assert_eq!(spill_stores(&info), Some(0), "{dtype} spills:\n{info}");
    }
}

/// `SPLIT > 1` on a dtype without `atomic_max` stops the trace with a located error at the
/// kernel's atomic, saying which types it takes (the plan never offers it; a hand-made
/// launch learns why).
#[test]
fn a_split_of_a_dtype_without_atomic_max_is_a_located_trace_error() {
    let (def, identity) = kernel_for(ScalarType::F16).unwrap();
    assert_eq!(identity, None);
    let spec = rtriton::spec::SpecKey::plain(&def.params);
    let e = rtriton::session::CompileSession::new()
        .front_end(
            &def,
            &[("BLOCK_M", 1), ("BLOCK_N", 64), ("SPLIT", 2), ("UNROLL", 1), ("VEC", 1)],
            &spec,
            &Default::default(),
        )
        .unwrap_err();
    let text = e.to_string();
    assert!(text.contains("`atomic_max` is not defined on f16"), "{text}");
    assert!(text.contains("kernels-gpu/src/row_max_split.rs:"), "{text}");
}
