//! Bad shapes given to the shape ops are located trace errors (kernel, file:line, what to
//! do), never panics; and the one layout error the PTX back end can still give (a block
//! too large to move through shared memory) names the op's line. The kernels are defined
//! in this file, so the lines they name are part of the expected text.

mod ptx_common;

use rstest::rstest;
use rtriton::diag::{Code, HasDiagnostics};
use rtriton::kernel;
use rtriton::prelude::*;
use rtriton::session::CompileSession;
use rtriton::spec::{ArgValue, SpecPolicy};
use rtriton::trace::{KernelDef, TraceOptions};

kernel! {
    fn reshape_wrong_count(y_ptr: Ptr<i32>) {
        let x = arange(0, 32);
        store(y_ptr + arange(0, 32), reshape(x, &[4, 4]).reshape(&[32]), None);
    }
}

kernel! {
    fn permute_not_a_permutation(y_ptr: Ptr<i32>) {
        let x = arange(0, 8).expand_dims(1) + arange(0, 4).expand_dims(0);
        store(y_ptr + x, permute(x, &[0, 0]), None);
    }
}

kernel! {
    fn trans_of_a_vector(y_ptr: Ptr<i32>) {
        let x = arange(0, 8);
        store(y_ptr + x, trans(x), None);
    }
}

kernel! {
    fn broadcast_to_incompatible(y_ptr: Ptr<i32>) {
        let x = arange(0, 8);
        let b = broadcast_to(x, &[8, 4]);
        store(y_ptr + b, b, None);
    }
}

kernel! {
    fn split_without_a_pair(y_ptr: Ptr<i32>) {
        let x = arange(0, 8);
        let (a, b) = split(x);
        store(y_ptr + x, a + b, None);
    }
}

kernel! {
    fn join_incompatible(y_ptr: Ptr<i32>) {
        let j = join(arange(0, 8), arange(0, 4));
        store(y_ptr, sum(sum(j, 1), 0), None);
    }
}

kernel! {
    fn reshape_to_no_elements(y_ptr: Ptr<i32>) {
        let x = arange(0, 4);
        store(y_ptr + x, reshape(x, &[usize::MAX, 2]).reshape(&[4]), None);
    }
}

/// Traces `def` (one pointer argument) and returns the rendered error.
fn trace_error(def: &KernelDef) -> String {
    let args = [ArgValue::Ptr(0x1_0000_0000)];
    match CompileSession::new().front_end_for_args(def, &[], &args, SpecPolicy::Triton, &TraceOptions::default()) {
        Ok(v) => panic!("expected an error, the kernel traced:\n{}", v.kernel()),
        Err(e) => {
            assert!(e.has_code(Code::TraceRule), "{e}");
            e.to_string()
        }
    }
}

#[rstest]
#[case::reshape_wrong_count(reshape_wrong_count(), "\
error[RT0101]: kernel `reshape_wrong_count` at tests/tests/layout_errors.rs:19: reshape of a block of shape [32] (32 elements) to shape [4, 4] (16 elements)
  help: give a shape with 32 elements (reshape keeps every element)")]
#[case::permute_not_a_permutation(permute_not_a_permutation(), "\
error[RT0101]: kernel `permute_not_a_permutation` at tests/tests/layout_errors.rs:26: permute dims [0, 0] are not a permutation of the dims of a block of shape [8, 4]
  help: list each of the 2 dims once, e.g. [1, 0]")]
#[case::trans_of_a_vector(trans_of_a_vector(), "\
error[RT0101]: kernel `trans_of_a_vector` at tests/tests/layout_errors.rs:33: trans swaps the dims of a 2-D block, got a block of shape [8] (rank 1)
  help: use permute(x, dims) to reorder the dims of other ranks")]
#[case::broadcast_to_incompatible(broadcast_to_incompatible(), "\
error[RT0101]: kernel `broadcast_to_incompatible` at tests/tests/layout_errors.rs:40: cannot broadcast a block of shape [8] to shape [8, 4]
  help: make the shapes equal, or give the smaller one dims of size 1 with expand_dims")]
#[case::split_without_a_pair(split_without_a_pair(), "\
error[RT0101]: kernel `split_without_a_pair` at tests/tests/layout_errors.rs:48: split needs a block whose last dim has size 2, got shape [8]
  help: split the result of join, or reshape so that the last dim is 2")]
#[case::join_incompatible(join_incompatible(), "\
error[RT0101]: kernel `join_incompatible` at tests/tests/layout_errors.rs:55: shape mismatch: [8] and [4] cannot be broadcast together
  help: make the shapes equal, or use expand_dims so that one has size 1 where they differ")]
#[case::reshape_to_no_elements(reshape_to_no_elements(), "\
error[RT0101]: kernel `reshape_to_no_elements` at tests/tests/layout_errors.rs:63: reshape of a block of shape [4] (4 elements) to shape [18446744073709551615, 2] (18446744073709551615 elements)
  help: give a shape with 4 elements (reshape keeps every element)")]
fn bad_shapes_are_located_errors(#[case] def: KernelDef, #[case] want: &str) {
    assert_eq!(trace_error(&def), want);
}

kernel! {
    /// An M x N f32 transpose: at 128 x 256, 129 KiB through shared memory, more than a CTA
    /// has on sm_86.
    fn transpose_too_large(x_ptr: Ptr<f32>, y_ptr: Ptr<f32>; const M: usize, const N: usize) {
        let rows = arange(0, M);
        let cols = arange(0, N);
        let x = load(x_ptr + rows.expand_dims(1) * N as i32 + cols.expand_dims(0), None, None);
        store(y_ptr + cols.expand_dims(1) * M as i32 + rows.expand_dims(0), trans(x), None);
    }
}

#[test]
fn an_exchange_past_the_shared_memory_of_a_cta_names_the_line() {
    let options = ptx_common::options(rtriton::backend::ptx::Arch::Sm86, 8);
    let e = ptx_common::compile_plain(&transpose_too_large(), &[("M", 128), ("N", 256)], &options).unwrap_err();
    assert!(e.has_code(Code::PtxLayoutConflict), "{e}");
    assert_eq!(
        e.to_string(),
        "error[RT0803]: kernel `transpose_too_large` at tests/tests/layout_errors.rs:112: `permute` moves 32896 elements of f32 between threads through shared memory: 131584 bytes, more than the 101376 a CTA has on sm_86\n  help: use smaller blocks here (the exchange holds the whole block), or keep each value in one role so no conversion is needed"
    );
    // Half the block fits (66 KiB: dynamic shared memory).
    assert!(ptx_common::compile_plain(&transpose_too_large(), &[("M", 128), ("N", 128)], &options).is_ok());
}

kernel! {
    /// Every layout op once, for the verifier table below.
    fn every_layout_op(y_ptr: Ptr<i32>) {
        let x = arange(0, 8).expand_dims(1) + arange(0, 4).expand_dims(0);
        let (a, b) = split(join(permute(x, &[1, 0]), reshape(x, &[4, 8])));
        store(y_ptr + reshape(a + b, &[32]), arange(0, 32), None);
    }
}

/// Applies `edit` to the first op named `name` of a traced `every_layout_op` and returns
/// the verifier's refusal of the result.
fn verifier_error(name: &str, edit: impl FnOnce(&mut rtriton::ir::Kernel, usize)) -> String {
    use rtriton::verify::verify;
    let args = [ArgValue::Ptr(0x1_0000_0000)];
    let traced = CompileSession::new()
        .front_end_for_args(&every_layout_op(), &[], &args, SpecPolicy::Triton, &TraceOptions::default())
        .unwrap_or_else(|e| panic!("{e}"));
    let mut k = traced.kernel().clone();
    let i = k.ops.iter().position(|o| o.kind.name() == name).unwrap_or_else(|| panic!("no `{name}` op"));
    edit(&mut k, i);
    let e = verify(k).expect_err("the edited kernel must not verify");
    assert!(e.has_code(Code::InvalidIr), "{e}");
    e.to_string()
}

/// The typing rules of the op table refuse layout ops that break them (hand-edited IR: the
/// front end never makes them).
#[rstest]
#[case::permute_dims_repeat("permute", "dims [0, 0] are not a permutation of the 2 dims")]
#[case::permute_result_shape("permute", "is not the operand's [8, 4] permuted by [1, 0]")]
#[case::reshape_count("reshape", "changes the element count")]
#[case::join_types("join", "join operands must have one type")]
#[case::split_results("split", "split result 1 has shape [8], not the operand's without its last dim")]
fn hand_edited_layout_ops_are_verifier_errors(#[case] name: &str, #[case] want: &str) {
    use rtriton::ir::{OpKind, Shape};
    let text = verifier_error(name, |k, i| {
        let results = k.ops[i].results.clone();
        match (&mut k.ops[i].kind, want) {
            (OpKind::Permute { dims, .. }, w) if w.starts_with("dims") => *dims = vec![0, 0],
            (OpKind::Permute { .. }, _) | (OpKind::Reshape { .. }, _) => {
                k.values[results[0].index()].ty.shape = Shape(vec![8, 8]);
            }
            (OpKind::Join { rhs, .. }, _) => *rhs = results[0],
            (OpKind::Split { .. }, _) => k.values[results[1].index()].ty.shape = Shape(vec![8]),
            (other, _) => panic!("not a layout op: {other:?}"),
        }
    });
    assert!(text.contains(want), "{text}");
}
