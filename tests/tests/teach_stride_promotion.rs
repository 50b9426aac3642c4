//! Promoting strides versus promoting index tensors: the stride-promoting port (scalar strides promoted with `.to()`) and
//! the index-promoting port (index tensors promoted), each under rtriton's default semantics
//! and Triton-semantics mode, over every case of the shape matrix.
//!
//! Expected: in default mode both trace everywhere; in Triton-semantics mode the
//! stride-promoting port fails with Triton's AttributeError for every input with a stride
//! equal to 1 (the column stride of every contiguous input, and the row stride of the
//! transposed view and of single-column inputs) and traces for the strided view whose
//! strides are both other than 1; the index-promoting port traces everywhere. Every kernel
//! that traces also runs on the CPU interpreter and must match `cpu_row_max` bit for bit.

use rstest::rstest;
use rstest_reuse::apply;
use rtriton::interp::{Memory, run};
use rtriton::spec::{ArgValue, SpecPolicy};
use rtriton::trace::{Semantics, TraceOptions};
use rtriton_kernels::RowMaxVariant;
use rtriton_kernels::cases::{RowMaxCase, SHAPE_MATRIX};
use rtriton_tests::fixtures::row_max_family;
use rtriton_tests::tables::every_case;
use rtriton_tests::{case, reference, row_max_args};

/// The front end for one launch's arguments, through a compile session.
fn specialize_and_trace(
    def: &rtriton::trace::KernelDef,
    constexprs: &[(&str, i64)],
    args: &[ArgValue],
    policy: SpecPolicy,
    options: &TraceOptions,
) -> Result<std::sync::Arc<rtriton::verify::VerifiedKernel>, rtriton::session::FrontEndError> {
    rtriton::session::CompileSession::new().front_end_for_args(def, constexprs, args, policy, options)
}

/// Where the test pretends the buffers live (16-byte aligned; the view offset is added).
const X_BASE: u64 = 0x7f00_0000_0000;
const Y_BASE: u64 = 0x7f00_4000_0000;

fn args(c: &RowMaxCase) -> Vec<ArgValue> {
    row_max_args(c, X_BASE, Y_BASE)
}

const STRIDE_ROW_ERROR: &str = "\
error[RT0102]: kernel `row_max_i64_strides` at tests/src/fixtures/row_max_family.rs:71: AttributeError: 'int' object has no attribute 'to'
  note: Triton specializes an integer argument equal to 1 into the constant 1 (a plain int, key (\"constexpr\", 1)), so `stride_row` is not a tensor here and has no `.to()`; this fails for every input where `stride_row` is 1 (a contiguous dimension's stride) and compiles only for other values
  help: promote the index tensor instead of the scalar argument: `program_id(0).to::<i64>()` or `offs.to::<i64>() * stride_row`, and let `stride_row` widen to i64 by promotion";

const STRIDE_COL_ERROR: &str = "\
error[RT0102]: kernel `row_max_i64_strides` at tests/src/fixtures/row_max_family.rs:72: AttributeError: 'int' object has no attribute 'to'
  note: Triton specializes an integer argument equal to 1 into the constant 1 (a plain int, key (\"constexpr\", 1)), so `stride_col` is not a tensor here and has no `.to()`; this fails for every input where `stride_col` is 1 (a contiguous dimension's stride) and compiles only for other values
  help: promote the index tensor instead of the scalar argument: `program_id(0).to::<i64>()` or `offs.to::<i64>() * stride_col`, and let `stride_col` widen to i64 by promotion";

/// The whole error text Triton-semantics mode gives the stride-promoting port for a case,
/// `None` when it traces.
fn expected_i64_strides_error(c: &RowMaxCase) -> Option<String> {
    let l = c.layout();
    let mut errors = Vec::new();
    if l.stride_row == 1 {
        errors.push(STRIDE_ROW_ERROR);
    }
    if l.stride_col == 1 {
        errors.push(STRIDE_COL_ERROR);
    }
    (!errors.is_empty()).then(|| errors.join("\n"))
}

#[apply(every_case)]
fn seed_scenario(
    #[values(RowMaxVariant::I64Strides, RowMaxVariant::I64Index)] variant: RowMaxVariant,
    #[values(Semantics::Rtriton, Semantics::Triton)] semantics: Semantics,
    name: &str,
) {
    let c = case(name);
    // The fixture copy: the expected errors name its lines.
    let def = row_max_family::def(variant);
    let consts = variant.constexprs_for(c.n_rows, c.n_cols);
    let mut mem = Memory::new();
    let input = c.input();
    let (x, y) = (mem.alloc_f32(&input), mem.alloc(4 * c.n_rows));
    let args = row_max_args(&c, x, y);
    let result = specialize_and_trace(
        &def,
        &consts,
        &args,
        SpecPolicy::Triton,
        &TraceOptions { semantics, ..TraceOptions::default() },
    );
    let expected = match (variant, semantics) {
        (RowMaxVariant::I64Strides, Semantics::Triton) => expected_i64_strides_error(&c),
        _ => None,
    };
    match (result, expected) {
        (Ok(kernel), None) => {
            let got = run_on_interpreter(&kernel, variant, &c, &args, &mut mem, y);
            let want = reference(&c, false);
            assert_eq!(bits(&got), bits(&want), "{c}: interpreter result differs from cpu_row_max");
        }
        (Err(e), Some(text)) => assert_eq!(e.to_string(), text, "{c}"),
        (Ok(_), Some(text)) => panic!("{c}: expected the trace to fail with\n{text}"),
        (Err(e), None) => panic!("{c}: expected the trace to succeed, got\n{e}"),
    }
}

fn run_on_interpreter(
    kernel: &rtriton::verify::VerifiedKernel,
    variant: RowMaxVariant,
    c: &RowMaxCase,
    args: &[ArgValue],
    mem: &mut Memory,
    y: u64,
) -> Vec<f32> {
    let grid = variant.grid(c.n_rows, &variant.constexprs_for(c.n_rows, c.n_cols)) as u32;
    run(kernel, [grid, 1, 1], args, mem).unwrap_or_else(|e| panic!("{c}: {e}"));
    mem.read_f32(y, c.n_rows).expect("y is allocated")
}

/// Bit patterns, with every NaN made one pattern (NaN payloads are not part of the rule).
fn bits(v: &[f32]) -> Vec<u32> {
    v.iter().map(|x| if x.is_nan() { f32::NAN.to_bits() } else { x.to_bits() }).collect()
}

#[test]
fn in_triton_mode_the_i64_strides_compiles_only_for_the_strided_view() {
    let def = RowMaxVariant::I64Strides.def();
    let traced: Vec<&str> = SHAPE_MATRIX
        .iter()
        .filter(|c| {
            let consts = RowMaxVariant::I64Strides.constexprs_for(c.n_rows, c.n_cols);
            let options = TraceOptions { semantics: Semantics::Triton, ..TraceOptions::default() };
            specialize_and_trace(&def, &consts, &args(c), SpecPolicy::Triton, &options).is_ok()
        })
        .map(|c| c.name)
        .collect();
    assert_eq!(traced, ["every_other_column"]);
}

#[test]
fn without_specialization_triton_mode_has_nothing_to_reject() {
    // Like Triton's interpreter (TRITON_INTERPRET=1), which does not specialize: the
    // stride-promoting port passes there and fails only when compiled.
    let def = RowMaxVariant::I64Strides.def();
    for c in SHAPE_MATRIX {
        let consts = RowMaxVariant::I64Strides.constexprs_for(c.n_rows, c.n_cols);
        let options = TraceOptions { semantics: Semantics::Triton, ..TraceOptions::default() };
        let r = specialize_and_trace(&def, &consts, &args(c), SpecPolicy::Off, &options);
        assert!(r.is_ok(), "{c}: {}", r.unwrap_err());
    }
}

/// Triton itself, on an H200 (Triton 3.6.0, `tests/tests/data/triton_i64_strides.py`):
/// Triton-semantics mode must fail and succeed on exactly the same cases, with the same
/// error, for both ports.
#[test]
fn triton_mode_agrees_with_triton_3_6_on_every_case() {
    let recorded = include_str!("data/triton_i64_strides_h200.txt");
    let lines: Vec<&str> =
        recorded.lines().filter(|l| l.split(' ').next().is_some_and(|w| w.parse::<usize>().is_ok())).collect();
    // The recording covers the matrix's first 16 cases; the one-column special-value
    // cases came later and change nothing about tracing (their shapes repeat `1x1`'s).
    let recorded_cases = &SHAPE_MATRIX[..16];
    assert_eq!(lines.len(), 2 * recorded_cases.len(), "one line per case and port");
    for (i, c) in recorded_cases.iter().enumerate() {
        for (line, variant) in lines[2 * i..2 * i + 2].iter().zip([RowMaxVariant::I64Strides, RowMaxVariant::I64Index])
        {
            let fields: Vec<&str> = line.splitn(7, ' ').collect();
            let l = c.layout();
            let shape = [c.n_rows, c.n_cols, l.stride_row, l.stride_col].map(|v| v.to_string());
            assert_eq!(
                [fields[0], fields[1], fields[3], fields[4]],
                shape.each_ref().map(String::as_str),
                "{c}: {line}"
            );
            let port = if variant == RowMaxVariant::I64Strides { "skill" } else { "fixed" };
            assert_eq!(fields[5], port, "{line}");
            let triton_ok = match fields[6] {
                "ok" => true,
                "CompilationError: AttributeError(\"'int' object has no attribute 'to'\")" => false,
                other => panic!("{c}: unexpected Triton outcome `{other}`"),
            };
            let consts = variant.constexprs_for(c.n_rows, c.n_cols);
            let options = TraceOptions { semantics: Semantics::Triton, ..TraceOptions::default() };
            let ours = specialize_and_trace(&variant.def(), &consts, &args(c), SpecPolicy::Triton, &options);
            match ours {
                Ok(_) => assert!(triton_ok, "{c}: {port} fails in Triton but traces in Triton-semantics mode"),
                Err(e) => {
                    assert!(!triton_ok, "{c}: {port} compiles in Triton but fails in Triton-semantics mode:\n{e}");
                    let text = e.to_string();
                    assert!(text.contains(": AttributeError: 'int' object has no attribute 'to'\n"), "{text}");
                }
            }
        }
    }
    // Where both strides are 1, Triton stops at the first `.to` (the row stride, line 3
    // of its kernel); Triton-semantics mode reports every one.
    assert!(recorded.contains("at 3:31:\n"), "the first error points at `stride_row.to`");
}
