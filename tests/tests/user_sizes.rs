//! Sizes, shapes and offsets from the user never panic or wrap, in debug and release
//! builds alike (`cargo test --release -p rtriton-tests --test user_sizes`): each is a
//! located diagnostic through the trace's error collection, or the guard's refusal.
//! The kernels are defined in this file, so the file:line they name is part of the
//! expected text.

use rtriton::guard::{I32_MAX_OFFSET, TensorExtent};
use rtriton::kernel;
use rtriton::prelude::*;
use rtriton::session::CompileSession;
use rtriton::spec::{ArgValue, SpecPolicy};
use rtriton::trace::{KernelDef, TraceOptions};

/// Traces `def` (one pointer argument) and returns the rendered error.
fn trace_error(def: &KernelDef) -> String {
    let args = [ArgValue::Ptr(0x1_0000_0000)];
    match CompileSession::new().front_end_for_args(def, &[], &args, SpecPolicy::Triton, &TraceOptions::default()) {
        Ok(v) => panic!("expected an error, the kernel traced:\n{}", v.kernel()),
        Err(e) => e.to_string(),
    }
}

kernel! {
    fn arange_past_i64(y_ptr: Ptr<i32>) {
        let i = arange(1 << 63, 0);
        store(y_ptr + i, i, None);
    }
}

kernel! {
    fn arange_from_usize_max(y_ptr: Ptr<i32>) {
        let i = arange(usize::MAX, 0);
        store(y_ptr + i, i, None);
    }
}

kernel! {
    fn full_past_usize(y_ptr: Ptr<f32>) {
        let x = full::<f32>(&[1 << 32, 1 << 32], 0.0);
        store(y_ptr, max(max(x, 1), 0), None);
    }
}

kernel! {
    fn arange_across_i64(y_ptr: Ptr<i32>) {
        let i = arange(1 << 62, 1 << 63);
        store(y_ptr + i, i, None);
    }
}

#[test]
fn an_arange_bound_past_i64_is_an_error_not_a_wrap() {
    assert_eq!(
        trace_error(&arange_past_i64()),
        "\
error[RT0101]: kernel `arange_past_i64` at tests/tests/user_sizes.rs:25: arange(9223372036854775808, 0) does not fit i32
  help: keep arange bounds in i32 and add a scalar offset"
    );
}

#[test]
fn arange_from_usize_max_is_not_read_as_minus_one() {
    assert_eq!(
        trace_error(&arange_from_usize_max()),
        "\
error[RT0101]: kernel `arange_from_usize_max` at tests/tests/user_sizes.rs:32: arange(18446744073709551615, 0) does not fit i32
  help: keep arange bounds in i32 and add a scalar offset"
    );
}

#[test]
fn an_arange_whose_length_overflows_i64_is_an_error() {
    assert_eq!(
        trace_error(&arange_across_i64()),
        "\
error[RT0101]: kernel `arange_across_i64` at tests/tests/user_sizes.rs:46: arange(4611686018427387904, 9223372036854775808) does not fit i32
  help: keep arange bounds in i32 and add a scalar offset"
    );
}

#[test]
fn a_block_whose_element_count_overflows_is_an_error() {
    assert_eq!(
        trace_error(&full_past_usize()),
        "\
error[RT0101]: kernel `full_past_usize` at tests/tests/user_sizes.rs:39: block shape [4294967296, 4294967296] is not made of powers of two or has more than 1048576 elements
  help: use power-of-two block dims and mask the tail"
    );
}

/// A `[2^40, 2^40]` view has 2^80 elements: the extent saturates at `u64::MAX` instead
/// of wrapping, so it stays past i32 and the guard refuses it.
#[test]
fn the_guard_extent_of_a_view_past_u64_saturates() {
    let e = TensorExtent::of_view("x_ptr", u64::MAX - 1, &[1 << 40, 1 << 40], &[1 << 40, -1]);
    assert_eq!((e.numel, e.max_offset_elems), (u64::MAX, u64::MAX));
    assert!(e.max_offset_elems > I32_MAX_OFFSET);
    let small = TensorExtent::of_view("x_ptr", 3, &[4, 5], &[5, -1]);
    assert_eq!((small.numel, small.max_offset_elems), (20, 3 + 15 + 4));
}

/// A DSL op run as plain Rust has no trace to record an error in and no tensor to
/// return: it panics, naming the call's file:line and the fix.
#[test]
#[should_panic(
    expected = "rtriton DSL op at tests/tests/user_sizes.rs:109 called outside a kernel trace: call it from a kernel! body and run the kernel through rtriton::trace (or a launch)"
)]
fn a_dsl_op_outside_a_trace_panics_naming_the_fix() {
    let _ = arange(0, 16);
}
