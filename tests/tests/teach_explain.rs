//! `rtriton explain` through the CLI's entry point: argument errors and the index-width
//! analysis on a kernel whose pointer is carried around a loop, as whole text.

use rtriton::analysis::index_width::analyze;
use rtriton::guard::{TensorExtent, check_offsets};
use rtriton::prelude::*;
use rtriton::trace::trace_unspecialized;
use rtriton_host::cli::run_captured;

rtriton::kernel! {
    /// Sums a row by advancing a block of pointers `BLOCK` elements per iteration, with
    /// the row offset left in i32 (as Triton's matmul tutorial advances `a_ptrs`).
    pub fn row_sum_carried_ptrs(x_ptr: Ptr<f32>, y_ptr: Ptr<f32>, n_cols: i32, stride_row: i32; const BLOCK: usize) {
        let row = program_id(0);
        let ptrs = x_ptr + row * stride_row + arange(0, BLOCK);
        let acc = zeros::<f32>(&[BLOCK]);
        let (acc, _) = for_range(0, n_cols, BLOCK as i32, (acc, ptrs), |_, (acc, ptrs)| {
            (acc + load(ptrs, None, None), ptrs + BLOCK as i32)
        });
        store(y_ptr + row, sum(acc, 0), None);
    }
}

fn explain(args: &[&str]) -> (u8, String) {
    run_captured(["rtriton", "explain"].iter().chain(args))
}

/// Where `row_max_i32` loads `x`, the line its findings name. The CLI knows only the
/// production kernels, so the line is found in their source rather than written down.
fn row_max_i32_load() -> String {
    rtriton_kernels::source::line_of(rtriton_kernels::RowMaxVariant::RowMaxI32, "let x = load(")
        .expect("row_max_i32 loads x")
}

/// The error lists the row-max family, then every other kernel of the ports in
/// `ports::all()`'s order (the built-in set `ptx`, `explain` and `lint` know), then the hint.
#[test]
fn unknown_kernel() {
    let family = [
        "row_max",
        "row_max_loop",
        "row_max_2d",
        "row_max_i64_strides",
        "row_max_i64_index",
        "row_max_i32",
        "row_max_split",
        "row_max_split_f16",
        "row_max_split_bf16",
        "row_max_split_i32",
        "row_max_split_u32",
        "row_max_split_i16",
        "row_max_split_i8",
        "row_max_split_u8",
    ];
    let mut known: Vec<&str> = family.to_vec();
    for port in rtriton_host::ports::all() {
        for suite in (port.suites)() {
            // The reductions' `row_max_i32` has the row-max family's name: listed once.
            if !known.contains(&suite.def.name) {
                known.push(suite.def.name);
            }
        }
    }
    assert!(known.contains(&"col_argmin_combine_bf16"), "the reductions' split kernels are port kernels");
    assert_eq!(
        explain(&["no_such_kernel"]),
        (
            1,
            format!(
                "unknown kernel `no_such_kernel`; known kernels: {} (`list` shows their parameters)\n",
                known.join(", ")
            )
        )
    );
}

#[test]
fn missing_and_unknown_arguments() {
    assert_eq!(
        explain(&["row_max", "--arg", "x_ptr=0x1000"]),
        // The same defaults as `rtriton ptx`: pointers default, ints must be given.
        (
            1,
            "missing --arg n_rows=<i32>: integer and float arguments drive specialization, give every one \
             (pointers default to 0x7f0000000000)\n"
                .to_string()
        )
    );
    assert_eq!(
        explain(&["row_max", "--arg", "stride=1"]),
        (
            1,
            "--arg stride: kernel `row_max` has no parameter `stride`; its parameters are: x_ptr, y_ptr, n_rows, \
             n_cols, stride_row, stride_col\n"
                .to_string()
        )
    );
}

#[test]
fn bad_argument_values() {
    let args = [
        "row_max",
        "--arg",
        "x_ptr=0",
        "--arg",
        "y_ptr=0x100",
        "--arg",
        "n_rows=1",
        "--arg",
        "n_cols=1",
        "--arg",
        "stride_row=1",
        "--arg",
        "stride_col=1",
    ];
    assert_eq!(
        explain(&args),
        (1, "kernel `row_max`: argument `x_ptr` is a null pointer; pass a device allocation\n".to_string())
    );
}

#[test]
fn loop_carried_pointers_keep_their_base_parameter() {
    let k = trace_unspecialized(&row_sum_carried_ptrs(), &[("BLOCK", 64)]).expect("traces");
    let w = analyze(&k);
    let summary: Vec<String> = w
        .offsets
        .iter()
        .map(|o| {
            format!(
                "{} {} {} i32:{}",
                o.param.map_or("?", |p| k.params[p].name),
                o.loc.short(),
                o.width,
                o.computed_in_i32()
            )
        })
        .collect();
    assert_eq!(
        summary,
        [
            "x_ptr tests/tests/teach_explain.rs:15 i32 i32:true",
            "x_ptr tests/tests/teach_explain.rs:15 i32 i32:true",
            "x_ptr tests/tests/teach_explain.rs:18 i32 i32:true",
            "y_ptr tests/tests/teach_explain.rs:20 i32 i32:true",
        ]
    );
    let huge = TensorExtent { param: "x_ptr".into(), numel: 3 << 30, max_offset_elems: (3 << 30) - 1 };
    assert_eq!(
        check_offsets(&k, &[huge]).expect_err("refused").to_string(),
        "\
error[RT0601]: kernel `row_sum_carried_ptrs` at tests/tests/teach_explain.rs:15: launch refused: tensor `x_ptr` has 3221225472 elements and a maximum element offset of 3221225471, past i32::MAX = 2147483647, but program_id(0) times `stride_row` is computed in i32 here and would wrap
  help: promote the index tensors to i64 before the index math (`program_id(0).to::<i64>()`, `offs.to::<i64>()`), or launch an i64-indexing variant"
    );
}

#[test]
fn ptx_diff_is_a_unified_diff_of_unspecialized_against_specialized() {
    let (code, out) = explain(&[
        "row_max",
        "--only",
        "ptx-diff",
        "--arg",
        "x_ptr=0x7f0000000000",
        "--arg",
        "y_ptr=0x7f0400000000",
        "--arg",
        "n_rows=256",
        "--arg",
        "n_cols=1024",
        "--arg",
        "stride_row=1024",
        "--arg",
        "stride_col=1",
    ]);
    assert_eq!(code, 0, "{out}");
    let lines: Vec<&str> = out.lines().collect();
    let start = lines.iter().position(|l| *l == "PTX diff (unspecialized -> specialized):").expect("diff header");
    assert_eq!(&lines[start + 1..start + 3], ["--- unspecialized.ptx", "+++ specialized.ptx"]);
    // The specialization comment at the top of the PTX is the first change.
    assert!(lines.contains(
        &"-// specialization: x_ptr:*f32:-, y_ptr:*f32:-, n_rows:i32:-, n_cols:i32:-, stride_row:i32:-, stride_col:i32:-"
    ));
    assert!(lines.contains(
        &"+// specialization: x_ptr:*f32:D16, y_ptr:*f32:D16, n_rows:i32:D16, n_cols:i32:D16, stride_row:i32:D16, stride_col:i32:=1"
    ));
    // Folding the stride gives vector loads.
    assert!(lines.iter().any(|l| l.starts_with('+') && l.contains("ld.global.v4.f32")), "{out}");
}

#[test]
fn deny_turns_lint_findings_into_a_failing_status() {
    let args = [
        "row_max_i32",
        "--only",
        "lint",
        "--deny",
        "--allow",
        "to-on-specializable-arg",
        "--arg",
        "x_ptr=0x7f0000000000",
        "--arg",
        "y_ptr=0x7f0400000000",
        "--arg",
        "n_rows=4",
        "--arg",
        "n_cols=10",
        "--arg",
        "stride_row=10",
        "--arg",
        "stride_col=1",
    ];
    let (code, out) = explain(&args);
    assert_eq!(code, 1);
    let at = row_max_i32_load();
    assert_eq!(
        out,
        format!(
            "\
kernel row_max_i32(x_ptr: *f32, y_ptr: *f32, n_rows: i32, n_cols: i32, stride_row: i32, stride_col: i32, const BLOCK)
constexprs: BLOCK = 1024

lint: 2 findings
error[RT0302]: kernel `row_max_i32` at {at}: the offset into `x_ptr` multiplies program_id(0) by `stride_row` in i32: it wraps past 2^31 - 1 elements and addresses the wrong memory on large tensors
  help: promote the index tensor before multiplying: `program_id(0).to::<i64>()` or `offs.to::<i64>()`, so the product runs in i64 [i32-index-product, from triton-lang/triton#832]
error[RT0302]: kernel `row_max_i32` at {at}: the offset into `x_ptr` multiplies an arange index tensor by `stride_col` in i32: it wraps past 2^31 - 1 elements and addresses the wrong memory on large tensors
  help: promote the index tensor before multiplying: `program_id(0).to::<i64>()` or `offs.to::<i64>()`, so the product runs in i64 [i32-index-product, from triton-lang/triton#832]
"
        )
    );
    let (code, out) = explain(&["row_max", "--allow", "no-such-rule"]);
    assert_eq!(
        (code, out.as_str()),
        (
            1,
            "unknown lint rule `no-such-rule`; the rules are: to-on-specializable-arg, i32-index-product, unspecialized-unit-stride\n"
        )
    );
}

rtriton::kernel! {
    /// Parameters with every specialization opt-out, to explain each reason.
    pub fn opt_outs(x_ptr: Ptr<f32>, #[do_not_specialize_on_alignment] y_ptr: Ptr<f32>, n: i32,
                    #[do_not_specialize] a: i32, #[do_not_specialize_on_alignment] b: i32, scale: f32;
                    const BLOCK: usize) {
        let offs = arange(0, BLOCK);
        let mask = offs.lt(n);
        let x = load(x_ptr + offs * a + b, Some(mask), Some(0.0));
        store(y_ptr + offs, x * scale, Some(mask));
    }
}

/// `explain` of `opt_outs` for a launch with ints `ints` (an unaligned `x_ptr`).
fn explain_opt_outs(policy: rtriton::spec::SpecPolicy, ints: [i64; 3]) -> rtriton::explain::Explanation {
    use rtriton::explain::{ExplainInput, explain};
    let def = opt_outs();
    let args = [
        rtriton::spec::ArgValue::Ptr(0x7f00_0000_0004),
        rtriton::spec::ArgValue::Ptr(0x7f00_0000_1000),
        rtriton::spec::ArgValue::Int(ints[0]),
        rtriton::spec::ArgValue::Int(ints[1]),
        rtriton::spec::ArgValue::Int(ints[2]),
        rtriton::spec::ArgValue::F32(2.0),
    ];
    let input = ExplainInput {
        def: &def,
        constexprs: &[("BLOCK", 64)],
        args: &args,
        policy,
        semantics: rtriton::trace::Semantics::Rtriton,
        extents: &[],
        ptx: Default::default(),
        lint: &Default::default(),
    };
    explain(&input).expect("arguments fit")
}

fn spec_section(policy: rtriton::spec::SpecPolicy, ints: [i64; 3]) -> String {
    use rtriton::explain::{Section, render};
    render(&explain_opt_outs(policy, ints), &[Section::Spec])
}

#[test]
fn every_specialization_reason() {
    assert_eq!(
        spec_section(rtriton::spec::SpecPolicy::Triton, [1, 1, 32]),
        "\
kernel opt_outs(x_ptr: *f32, y_ptr: *f32 [do_not_specialize_on_alignment], n: i32, a: i32 [do_not_specialize], b: i32 [do_not_specialize_on_alignment], scale: f32, const BLOCK)
constexprs: BLOCK = 64

specialization (Triton's rules): x_ptr:*f32:-, y_ptr:*f32:-, n:i32:=1, a:i32:-, b:i32:-, scale:f32:-
  x_ptr = 0x7f0000000004  plain   0x7f0000000004 is not 16-byte aligned
  y_ptr = 0x7f0000001000  plain   #[do_not_specialize_on_alignment]
  n     = 1               folded  equals 1: traced as the constant 1 (Triton's (\"constexpr\", 1))
  a     = 1               plain   #[do_not_specialize]
  b     = 32              plain   32 is a multiple of 16 but the parameter is #[do_not_specialize_on_alignment]
  scale = 2.0             plain   floats are never specialized
"
    );
    assert_eq!(
        spec_section(rtriton::spec::SpecPolicy::Off, [1, 16, 7]).lines().nth(3),
        Some("specialization (off): x_ptr:*f32:-, y_ptr:*f32:-, n:i32:-, a:i32:-, b:i32:-, scale:f32:-")
    );
    assert!(
        spec_section(rtriton::spec::SpecPolicy::Off, [1, 16, 7])
            .contains("n     = 1               plain   specialization is off for this launch")
    );
}

#[test]
fn every_case_of_the_matrix_through_the_cli() {
    // The CLI agrees with the stride-promotion table: in Triton-semantics mode the stride-promoting port
    // fails exactly where a stride is 1, the corrected port nowhere.
    for c in rtriton_kernels::cases::SHAPE_MATRIX {
        let l = c.layout();
        let expected = if l.stride_row == 1 || l.stride_col == 1 { 1 } else { 0 };
        let (code, out) =
            explain(&["row_max_i64_strides", "--semantics", "triton", "--only", "trace", "--case", c.name]);
        assert_eq!(code, expected, "{c}\n{out}");
        let (code, out) = explain(&["row_max_i64_index", "--semantics", "triton", "--only", "trace", "--case", c.name]);
        assert_eq!(code, 0, "{c}\n{out}");
    }
}

#[test]
fn case_errors() {
    let (code, out) = explain(&["row_max", "--case", "nope"]);
    assert_eq!(code, 1);
    assert_eq!(
        out,
        "unknown case `nope`; the cases are: 1x1, single_row, single_column, non_pow2, narrower_than_warp, \
         wider_than_block, every_other_column, transposed, offset_base, aligned_pow2, odd_small, tall_narrow, \
         all_negative, all_neg_inf, nan_rows, signed_zeros, one_column_specials, one_column_specials_offset, all_nan_pow2, all_nan_non_pow2, \
         all_nan_pow2_transposed, all_nan_two_columns, huge\n"
    );
    let (code, out) = explain(&["row_max", "--case", "transposed", "--const", "NOPE=3"]);
    assert_eq!(
        (code, out.as_str()),
        (1, "--const NOPE: kernel `row_max` has no constexpr `NOPE`; its constexprs are: BLOCK\n")
    );
}

#[test]
fn lint_subcommand() {
    assert_eq!(run_captured(["rtriton", "lint", "row_max_i64_index"]), (0, "row_max_i64_index: no findings\n".into()));
    let (code, out) = run_captured(["rtriton", "lint", "row_max_i32", "--deny"]);
    assert_eq!(code, 1);
    assert!(out.starts_with(&format!("error[RT0302]: kernel `row_max_i32` at {}: ", row_max_i32_load())), "{out}");
    assert!(out.ends_with("\nrow_max_i32: 2 findings\n"), "{out}");
    let (code, out) = run_captured(["rtriton", "lint", "row_max_i32", "--allow", "i32-index-product", "--deny"]);
    assert_eq!((code, out.as_str()), (0, "row_max_i32: no findings\n"));
}

/// `explain` runs every stage through one compile session: the unspecialized trace serves
/// the folding section, the lint and the baseline PTX, so each of the two kernels it shows
/// is traced once (the lint used to trace the unspecialized kernel a second time), and
/// with specialization off the two are one.
#[test]
fn explain_traces_each_kernel_once() {
    for (policy, traces) in [(rtriton::spec::SpecPolicy::Triton, 2), (rtriton::spec::SpecPolicy::Off, 1)] {
        let e = explain_opt_outs(policy, [64, 1, 16]);
        assert_eq!((e.stages.traces, e.stages.lints, e.stages.lowerings), (traces, 1, traces), "{policy:?}");
    }
}
