//! Bad input gives a clear error and never a panic. Every rendered diagnostic is compared
//! as whole text: the kernels are defined in this file, so the file:line they name is
//! part of the expectation (moving a kernel means updating its expected text).

use rtriton::interp::{self, Memory};
use rtriton::ir::{
    Block, DType, Kernel, Op, OpId, OpKind, ParamDecl, ParamKind, ScalarType, Shape, SourceLoc, TensorType, Value,
    ValueData, ValueDef,
};
use rtriton::kernel;
use rtriton::prelude::*;
use rtriton::session::CompileSession;
use rtriton::spec::{ArgValue, SpecKey, SpecPolicy};
use rtriton::trace::{KernelDef, TraceOptions};
use rtriton::verify::verify;

/// Specializes and traces `def` for `args` and returns the rendered error.
fn front_end_error(def: &KernelDef, constexprs: &[(&str, i64)], args: &[ArgValue]) -> String {
    match CompileSession::new().front_end_for_args(def, constexprs, args, SpecPolicy::Triton, &TraceOptions::default())
    {
        Ok(v) => panic!("expected an error, the kernel traced:\n{}", v.kernel()),
        Err(e) => e.to_string(),
    }
}

/// Two pointers and a size: what most kernels here take.
fn args2(mem: &mut Memory, n: usize) -> Vec<ArgValue> {
    let x = mem.alloc_f32(&vec![1.0; n]);
    let y = mem.alloc(n * 4);
    vec![ArgValue::Ptr(x), ArgValue::Ptr(y), ArgValue::Int(n as i64)]
}

kernel! {
    fn add_mismatched(x_ptr: Ptr<f32>, y_ptr: Ptr<f32>, n: i32) {
        let a = arange(0, 4);
        let b = arange(0, 8);
        store(y_ptr + a, (a + b).to::<f32>(), None);
    }
}

#[test]
fn shape_mismatch_in_broadcasting() {
    let text = front_end_error(&add_mismatched(), &[], &args2(&mut Memory::new(), 8));
    assert_eq!(text, SHAPE_MISMATCH);
}

kernel! {
    fn not_pow2(x_ptr: Ptr<f32>, y_ptr: Ptr<f32>, n: i32; const BLOCK: usize) {
        let offs = arange(0, BLOCK);
        let x = load(x_ptr + offs, Some(offs.lt(n)), Some(0.0));
        store(y_ptr + offs, x, Some(offs.lt(n)));
    }
}

#[test]
fn a_block_that_is_not_a_power_of_two() {
    let text = front_end_error(&not_pow2(), &[("BLOCK", 100)], &args2(&mut Memory::new(), 100));
    assert_eq!(text, NOT_POW2);
}

kernel! {
    fn reduce_missing_axis(x_ptr: Ptr<f32>, y_ptr: Ptr<f32>, n: i32) {
        let x = load(x_ptr + arange(0, 16), None, None);
        store(y_ptr, max(x, 1), None);
    }
}

#[test]
fn a_reduction_along_a_missing_axis() {
    let text = front_end_error(&reduce_missing_axis(), &[], &args2(&mut Memory::new(), 16));
    assert_eq!(text, MISSING_AXIS);
}

#[test]
fn wrong_argument_count_at_specialization() {
    let mut mem = Memory::new();
    let mut args = args2(&mut mem, 16);
    args.pop();
    let text = front_end_error(&reduce_missing_axis(), &[], &args);
    assert_eq!(text, ARG_COUNT);
}

#[test]
fn wrong_argument_type_at_specialization() {
    let mut mem = Memory::new();
    let mut args = args2(&mut mem, 16);
    args[2] = ArgValue::F32(16.0);
    let text = front_end_error(&reduce_missing_axis(), &[], &args);
    assert_eq!(text, ARG_TYPE);
}

/// A kernel built by hand (as a pass or a tool could) that stores `i32` values through
/// an `f32` pointer: in the DSL this is a Rust type error (see the `compile_fail`
/// example in `rtriton_tests`), so only hand-built IR reaches the verifier with it.
fn store_i32_through_f32_pointer() -> Kernel {
    let params = vec![ParamDecl {
        name: "y_ptr",
        kind: ParamKind::Ptr(ScalarType::F32),
        do_not_specialize: false,
        do_not_specialize_on_alignment: false,
    }];
    let loc = SourceLoc { file: "tests/tests/diagnostics.rs", line: 999, column: 1 };
    let scalar = |dtype, op| ValueData {
        ty: TensorType::new(dtype, Shape::scalar()),
        def: ValueDef::Result { op: OpId(op), index: 0 },
    };
    Kernel {
        name: "store_i32_through_f32".into(),
        spec: SpecKey::plain(&params),
        params,
        constexprs: vec![],
        loc,
        values: vec![scalar(DType::Ptr(ScalarType::F32), 0), scalar(DType::I32, 1)],
        ops: vec![
            Op { kind: OpKind::Param { index: 0 }, results: vec![Value(0)], loc },
            Op { kind: OpKind::ProgramId { axis: 0 }, results: vec![Value(1)], loc },
            store_op(Value(0), Value(1), loc),
        ],
        body: Block { args: vec![], ops: vec![OpId(0), OpId(1), OpId(2)] },
    }
}

#[test]
fn dtype_mismatch_in_hand_built_ir_is_a_verifier_error() {
    // The interpreter and the back ends take only a `VerifiedKernel`, which `verify` alone
    // makes: this kernel cannot reach them (a compile-time guarantee, not a runtime check).
    let verifier = verify(store_i32_through_f32_pointer()).unwrap_err().to_string();
    assert_eq!(verifier, HAND_BUILT_DTYPE);
}

kernel! {
    fn copy_unmasked(x_ptr: Ptr<f32>, y_ptr: Ptr<f32>, n: i32; const BLOCK: usize) {
        let offs = program_id(0) * BLOCK as i32 + arange(0, BLOCK);
        let x = load(x_ptr + offs, None, None);
        store(y_ptr + offs, x, Some(offs.lt(n)));
    }
}

#[test]
fn an_unmasked_out_of_bounds_load_in_the_interpreter() {
    let mut mem = Memory::new();
    let args = args2(&mut mem, 20);
    let err = rtriton::session::CompileSession::new()
        .interpret(&copy_unmasked(), &[("BLOCK", 16)], &args, SpecPolicy::Triton, [2, 1, 1], &mut mem)
        .unwrap_err();
    assert_eq!(err.to_string(), OOB_LOAD);
}

kernel! {
    fn store_past_end(x_ptr: Ptr<f32>, y_ptr: Ptr<f32>, n: i32; const BLOCK_M: usize, const BLOCK_N: usize) {
        let rows = arange(0, BLOCK_M).expand_dims(1);
        let cols = arange(0, BLOCK_N).expand_dims(0);
        store(y_ptr + rows * n + cols, full::<f32>(&[BLOCK_M, BLOCK_N], 1.0), Some(rows.lt(n)));
    }
}

#[test]
fn a_masked_in_out_of_bounds_store_in_a_2d_block_names_the_element() {
    let mut mem = Memory::new();
    let args = args2(&mut mem, 3);
    let consts = [("BLOCK_M", 4), ("BLOCK_N", 2)];
    let err = rtriton::session::CompileSession::new()
        .interpret(&store_past_end(), &consts, &args, SpecPolicy::Triton, [1, 1, 1], &mut mem)
        .unwrap_err();
    assert_eq!(err.to_string(), OOB_STORE_2D);
}

#[test]
fn a_launch_with_arguments_the_kernel_does_not_take() {
    let def = copy_unmasked();
    let mut mem = Memory::new();
    let args = args2(&mut mem, 16);
    let kernel = CompileSession::new()
        .front_end_for_args(&def, &[("BLOCK", 16)], &args, SpecPolicy::Off, &TraceOptions::default())
        .unwrap();
    let err = interp::run(&kernel, [1, 1, 1], &args[..2], &mut mem).unwrap_err();
    assert_eq!(err.to_string(), LAUNCH_ARG_COUNT);
    let mut wrong = args.clone();
    wrong[0] = ArgValue::Int(7);
    let err = interp::run(&kernel, [1, 1, 1], &wrong, &mut mem).unwrap_err();
    assert_eq!(err.to_string(), LAUNCH_ARG_TYPE);
}

// ---- expected texts (at the end of the file, so editing them moves no kernel) --------

const SHAPE_MISMATCH: &str = "\
error[RT0101]: kernel `add_mismatched` at tests/tests/diagnostics.rs:37: shape mismatch: [4] and [8] cannot be broadcast together
  help: make the shapes equal, or use expand_dims so that one has size 1 where they differ";

const NOT_POW2: &str = "\
error[RT0101]: kernel `not_pow2` at tests/tests/diagnostics.rs:49: arange(0, 100) has 100 elements; block sizes must be a power of two between 1 and 1048576
  help: choose a power-of-two BLOCK (for example 128, 256, 1024) and mask the tail";

const MISSING_AXIS: &str = "\
error[RT0101]: kernel `reduce_missing_axis` at tests/tests/diagnostics.rs:64: reduction along axis 1 of a block of shape [16] (rank 1)
  help: use an axis in 0..1";

const ARG_COUNT: &str = "kernel `reduce_missing_axis` takes 3 runtime arguments (x_ptr, y_ptr, n), got 2";

const ARG_TYPE: &str =
    "kernel `reduce_missing_axis`: argument `n` is declared i32, got a float; pass a value of the declared type";

const HAND_BUILT_DTYPE: &str = "\
error[RT0201]: kernel `store_i32_through_f32` at tests/tests/diagnostics.rs:999: op2 (store): store value must match the pointee type and the pointers' shape
  help: this is an rtriton compiler bug or a hand-built IR error; please report it with the kernel's IR text";

const OOB_LOAD: &str = "\
error[RT0402]: kernel `copy_unmasked` at tests/tests/diagnostics.rs:134: out-of-bounds load in program (1, 0, 0), element [4]: 4-byte access at 0x100000050 is past the end of the 80-byte buffer at 0x100000000 (byte offset 80)
  help: mask the load so that lanes outside the tensor do not touch memory (`load(ptrs, Some(offs.lt(n)), Some(other))`), or check the grid and the sizes and strides passed to the kernel";

const OOB_STORE_2D: &str = "\
error[RT0402]: kernel `store_past_end` at tests/tests/diagnostics.rs:153: out-of-bounds store in program (0, 0, 0), element [1, 0]: 4-byte access at 0x10000110c is past the end of the 12-byte buffer at 0x100001100 (byte offset 12)
  help: mask the store so that lanes outside the tensor do not touch memory (`store(ptrs, values, Some(offs.lt(n)))`), or check the grid and the sizes and strides passed to the kernel";

const LAUNCH_ARG_COUNT: &str = "\
error[RT0401]: kernel `copy_unmasked` at tests/tests/diagnostics.rs:131: 2 runtime arguments given, the kernel takes 3
  help: pass one value per parameter, in order: x_ptr, y_ptr, n";

const LAUNCH_ARG_TYPE: &str = "\
error[RT0401]: kernel `copy_unmasked` at tests/tests/diagnostics.rs:131: argument `x_ptr` is declared *f32, got 7
  help: pass a value of the declared type (pointers as device addresses from Memory)";

/// Every stage's errors carry a code of that stage's family, so callers branch on codes:
/// one bad input per stage.
#[test]
fn every_stage_reports_with_its_own_codes() {
    use rtriton::diag::{Code, HasDiagnostics, Stage};
    use rtriton::session::CompileSession;
    let mut found: Vec<(Vec<Code>, Code, Stage)> = Vec::new();
    let mut mem = Memory::new();
    let args = args2(&mut mem, 20);
    let opts = TraceOptions::default();
    // Trace: a shape mismatch.
    let e = CompileSession::new().front_end_for_args(&add_mismatched(), &[], &args, SpecPolicy::Triton, &opts);
    found.push((codes(e.unwrap_err().diagnostics()), Code::TraceRule, Stage::Trace));
    // Specialization (a launch check): one argument too few.
    let e = CompileSession::new().front_end_for_args(
        &copy_unmasked(),
        &[("BLOCK", 16)],
        &args[..2],
        SpecPolicy::Triton,
        &opts,
    );
    found.push((codes(e.unwrap_err().diagnostics()), Code::LaunchArgCount, Stage::Launch));
    // Verifier: hand-built IR.
    found.push((
        codes(verify(store_i32_through_f32_pointer()).unwrap_err().diagnostics()),
        Code::InvalidIr,
        Stage::Verify,
    ));
    // Interpreter: an out-of-bounds load.
    let e = rtriton::session::CompileSession::new().interpret(
        &copy_unmasked(),
        &[("BLOCK", 16)],
        &args,
        SpecPolicy::Triton,
        [2, 1, 1],
        &mut mem,
    );
    found.push((codes(e.unwrap_err().diagnostics()), Code::InterpOutOfBounds, Stage::Interpreter));
    // PTX back end: a block over the register budget.
    let spec = CompileSession::specialize(&copy_unmasked(), &args, SpecPolicy::Triton).unwrap();
    let e = CompileSession::new().ptx(&copy_unmasked(), &[("BLOCK", 65536)], &spec, &opts, &Default::default());
    found.push((codes(e.unwrap_err().diagnostics()), Code::PtxRegisterBudget, Stage::PtxBackEnd));
    // Simulator: a launch with too few arguments.
    let program = rtriton_tests::lower_def(&copy_unmasked(), &[("BLOCK", 16)], &args, SpecPolicy::Triton, 4).unwrap();
    let e = rtriton::sim::run(&program, [1, 1, 1], &args[..2], &mut mem);
    found.push((codes(e.unwrap_err().diagnostics()), Code::SimLaunch, Stage::Simulator));
    for (got, want, stage) in found {
        assert_eq!(got, [want], "{want:?}");
        assert_eq!(want.stage(), stage);
    }
}

fn codes(ds: Vec<rtriton::diag::Diagnostic>) -> Vec<rtriton::diag::Code> {
    ds.iter().map(|d| d.code).collect()
}

/// Hand-built IR whose store names values that do not exist: the verifier reports each
/// undefined operand instead of panicking on it (it used to type-check the op anyway and
/// index past the value table).
#[test]
fn undefined_operands_in_hand_built_ir_are_verifier_errors() {
    let mut kernel = store_i32_through_f32_pointer();
    let loc = kernel.loc;
    kernel.ops.push(store_op(Value(7), Value(8), loc));
    kernel.body.ops.push(OpId(3));
    let err = verify(kernel).unwrap_err();
    let rendered: Vec<String> = err.0.0.iter().map(|d| format!("{d:#}")).collect();
    assert_eq!(rendered[0], format!("{:#}", verify(store_i32_through_f32_pointer()).unwrap_err().0.0[0]));
    assert_eq!(
        rendered[1..],
        [
            "error[RT0201]: kernel `store_i32_through_f32` at tests/tests/diagnostics.rs:999: op3 uses undefined value %7\n  help: this is an rtriton compiler bug or a hand-built IR error; please report it with the kernel's IR text",
            "error[RT0201]: kernel `store_i32_through_f32` at tests/tests/diagnostics.rs:999: op3 uses undefined value %8\n  help: this is an rtriton compiler bug or a hand-built IR error; please report it with the kernel's IR text",
        ]
    );
}

/// A hand-built unmasked `store` of `value` through `ptr`.
fn store_op(ptr: Value, value: Value, loc: SourceLoc) -> Op {
    Op { kind: OpKind::Store { ptr, value, mask: None, desc: Vec::new() }, results: vec![], loc }
}
