//! `scaled_add` on every case, one test per case and back end:
//! `cargo test -p testing-user` runs the interpreter and simulator tests and lists the GPU
//! tests as ignored; `cargo test -p testing-user -- --include-ignored` runs them too.

mod common;

use proptest::prelude::*;
use rtriton_testing::strategy::{f32_buffer, view_1d};
use rtriton_testing::table::{sizes_around, views_1d};
use rtriton_testing::{Backend, Suite, View};

fn suite() -> Suite {
    common::suite_of(testing_user::scaled_add())
}

rtriton_testing::backend_tests!(suite => [
    tail_1000,
    below_one_block,
    reversed_offset_strided,
    broadcast_x,
    special_values,
    one_warp,
]);

#[test]
fn the_macro_lists_every_case_of_the_table() {
    let names: Vec<String> = common::cases().into_iter().map(|c| c.name).collect();
    let listed =
        ["tail_1000", "below_one_block", "reversed_offset_strided", "broadcast_x", "special_values", "one_warp"];
    assert_eq!(names, listed);
}

/// The ready-made view table (contiguous, strided, reversed, offset, broadcast) crossed
/// with sizes around the block (1, 33, 63, 65, 214): `x` through each view, on both CPU
/// back ends.
#[test]
fn every_view_kind_at_every_size_around_the_block() {
    let mut cases = Vec::new();
    for n in sizes_around(64) {
        for (kind, view) in views_1d(n) {
            let x = common::filled(view, |i| i as f32 * 0.5 - 9.0);
            let y = common::filled(View::contiguous(&[n]), |i| i as f32);
            cases.push(common::case(&format!("{kind}_{n}"), n, 64, x, y, 1.25));
        }
    }
    assert_eq!(cases.len(), 25);
    let mut suite = suite();
    suite.cases = cases;
    suite.check_all(Backend::Interpreter);
    suite.check_all(Backend::Simulator);
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, ..ProptestConfig::default() })]

    /// Random lengths, strides (negative and broadcast included), offsets and values: the
    /// interpreter and the simulator agree with the reference; a failure shrinks to the
    /// smallest view.
    #[test]
    fn random_views_agree_on_the_interpreter_and_the_simulator(
        x_view in view_1d(300, true),
        // Enough for the largest view: 300 elements at stride 3 after an offset of 7.
        values in f32_buffer(3 * 300 + 8),
        y_stride in 1isize..3,
    ) {
        let n = x_view.shape[0];
        let x_len = x_view.min_buffer_len();
        let y_view = View::strided(&[n], &[y_stride]);
        let y_len = y_view.min_buffer_len();
        let case = common::case(
            "random",
            n,
            64,
            (x_view, values[..x_len].to_vec()),
            (y_view, rtriton_testing::fill::ramp_f32(y_len, 1.0, -0.25)),
            -0.75,
        );
        let suite = suite().cases(std::iter::empty()).case(case);
        for backend in [Backend::Interpreter, Backend::Simulator] {
            if let Err(f) = suite.run("random", backend) {
                prop_assert!(false, "{f}");
            }
        }
    }
}
