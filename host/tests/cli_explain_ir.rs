//! `rtriton explain --ir layouts`: the kernel's IR with its layouts for one launch's
//! arguments, constexprs and warp count, and the errors of a bad command line.

use rstest::rstest;
use rtriton_host::cli::run_captured;

/// The matmul port's launch, every int given (the tile is a [`TILE_32`] or [`TILE_64`]).
const MATMUL_ARGS: &[&str] = &[
    "--const",
    "GROUP_SIZE_M=8",
    "--const",
    "ACTIVATION=0",
    "--const",
    "NUM_STAGES=3",
    "--arg",
    "M=128",
    "--arg",
    "N=128",
    "--arg",
    "K=128",
    "--arg",
    "stride_am=128",
    "--arg",
    "stride_ak=1",
    "--arg",
    "stride_bk=128",
    "--arg",
    "stride_bn=1",
    "--arg",
    "stride_cm=128",
    "--arg",
    "stride_cn=1",
];
const TILE_32: &[&str] = &["--const", "BLOCK_SIZE_M=32", "--const", "BLOCK_SIZE_N=32", "--const", "BLOCK_SIZE_K=32"];
/// A warpgroup's rows: on sm_90a the `dot` runs as `wgmma`.
const TILE_64: &[&str] = &["--const", "BLOCK_SIZE_M=64", "--const", "BLOCK_SIZE_N=64", "--const", "BLOCK_SIZE_K=64"];

/// The matmul port with 32 x 32 x 32 tiles and three stages.
const MATMUL: &[&[&str]] = &[&["matmul_kernel_f16"], TILE_32, MATMUL_ARGS];
/// The same with 64 x 64 x 64 tiles.
const MATMUL_64: &[&[&str]] = &[&["matmul_kernel_f16"], TILE_64, MATMUL_ARGS];

/// Row max over a 4 x 64 matrix, every int given.
const ROW_MAX: &[&[&str]] =
    &[&["row_max", "--arg", "n_rows=4", "--arg", "n_cols=64", "--arg", "stride_row=64", "--arg", "stride_col=1"]];

fn explain(kernel: &[&[&str]], extra: &[&str]) -> (u8, String) {
    let mut argv = vec!["rtriton", "explain"];
    argv.extend(kernel.iter().flat_map(|part| part.iter().copied()));
    argv.extend_from_slice(extra);
    run_captured(argv)
}

#[rstest]
#[case::matmul_staged(
    MATMUL, &["--ir", "layouts"],
    &[
        "#blocked = blocked{spt=[1, 8], tpw=[8, 4], wpc=[4, 1], order=[1, 0]}\n#mma = blocked{spt=[1, 2], tpw=[8, 4], wpc=[2, 2], order=[1, 0]}\nnum_warps = 4\nkernel @matmul_kernel_f16(",
        " : tensor<32x32xf16> #shared<ring 0, swizzled, vec 16 bytes, perPhase 2, maxPhase 4> (read in place)  loc(",
        " : tensor<32x32xf16> #shared<ring 1, swizzled, vec 16 bytes, perPhase 2, maxPhase 4> (read in place)  loc(",
        " : tensor<32x32xf32> #mma  loc(",
        // An index read along the other dim is recomputed there (the layout stage's copied
        // ops), not converted.
        " = arange 0..32 : tensor<32xi32> #slice<dims=[1], #blocked>  (recomputes %",
        " = expand_dims)  loc(",
    ]
)]
#[case::matmul_eight_warps(MATMUL, &["--ir", "layouts", "--num-warps", "8"], &["\nnum_warps = 8\n", "wpc=[2, 4]"])]
#[case::matmul_sm90a(
    MATMUL_64, &["--ir", "layouts", "--arch", "sm_90a"],
    &[
        "\nnum_warps = 4\ntarget = sm_90a\n",
        " = dot runs as wgmma.m64n64k16: ",
        "(operand 1 of %",
        " = dot: read by wgmma through a shared-memory descriptor, no registers)  loc(",
    ]
)]
#[case::matmul_dot_operands(
    MATMUL, &["--ir", "layouts"],
    &[
        " -> #dot_op<opIdx=0, parent=#mma, kWidth=2>  (operand 0 of %",
        " -> #dot_op<opIdx=1, parent=#mma, kWidth=2>  (operand 1 of %",
        " = dot: fragments read from the ring slot at each k-step)  loc(",
    ]
)]
#[case::row_max(
    ROW_MAX, &["--ir", "layouts"],
    &[
        "#blocked = blocked{spt=[4], tpw=[32], wpc=[4], order=[0]}\nnum_warps = 4\nkernel @row_max(",
        " : tensor<1024xf32> #blocked  loc(",
        ", axis 0 : f32  loc(",
    ]
)]
fn the_layouts_text_is_printed(#[case] kernel: &[&[&str]], #[case] extra: &[&str], #[case] present: &[&str]) {
    let (status, out) = explain(kernel, extra);
    assert_eq!(status, 0, "{out}");
    for want in present {
        assert!(out.contains(want), "missing {want:?} in\n{out}");
    }
    assert!(!out.contains("specialization (Triton's rules)"), "the report is not printed\n{out}");
}

#[rstest]
#[case::no_layout_for_three_warps(MATMUL, &["--ir", "layouts", "--num-warps", "3"], 1, "num_warps = 3 has no valid layout")]
#[case::unknown_stage(MATMUL, &["--ir", "ptx"], 2, "invalid value 'ptx' for '--ir <STAGE>'")]
#[case::with_sections(ROW_MAX, &["--ir", "layouts", "--only", "spec"], 2, "cannot be used with")]
#[case::unknown_arch(ROW_MAX, &["--ir", "layouts", "--arch", "sm_75"], 1, "unknown architecture `sm_75`")]
fn a_bad_command_line_is_refused(
    #[case] kernel: &[&[&str]],
    #[case] extra: &[&str],
    #[case] status: u8,
    #[case] error: &str,
) {
    let (got, out) = explain(kernel, extra);
    assert_eq!(got, status, "{out}");
    assert!(out.contains(error), "{out}");
}
