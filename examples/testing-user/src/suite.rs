//! The example's suite: the cases as data and the plain-Rust reference, shared by its
//! test files (`tests/`) and its command line (`src/main.rs`, `validate`).

use crate::grid;
use rtriton::trace::KernelDef;
use rtriton_testing::fill::{ramp_f32, special_f32};
use rtriton_testing::{Case, Rule, Suite, View};

/// One case: `n` elements, `x` and `y` seen through `x_view` / `y_view` in buffers of
/// their smallest length (so one element too far is out of bounds).
pub fn case(name: &str, n: usize, block: usize, x: (View, Vec<f32>), y: (View, Vec<f32>), alpha: f32) -> Case {
    let stride = |v: &View| v.strides[0] as i64;
    let (sx, sy) = (stride(&x.0), stride(&y.0));
    Case::new(name)
        .input("x", x.1, x.0)
        .input("y", y.1, y.0)
        .output("out", vec![0.0f32; n], View::contiguous(&[n]))
        // Scalars by name, checked against the kernel's signature when the case runs.
        .arg("n", n)
        .arg("alpha", alpha)
        .arg("stride_x", sx)
        .arg("stride_y", sy)
        .constexpr("BLOCK", block as i64)
        .grid(grid(n, block))
}

/// `x` filled with `values` through `view` (the buffer is the view's smallest).
pub fn filled(view: View, values: impl Fn(usize) -> f32) -> (View, Vec<f32>) {
    let buffer = (0..view.min_buffer_len()).map(values).collect();
    (view, buffer)
}

/// The cases: a masked tail (1000 = 7 * 128 + 104), a size below one block, a reversed
/// and offset `x` with a strided `y`, a broadcast `x` (stride 0), special values
/// (NaN payloads, infinities, signed zeros, subnormals, extremes) and one warp.
pub fn cases() -> Vec<Case> {
    let ramp = |n| move |i: usize| ramp_f32(n, -3.0, 0.5)[i];
    let specials = |n| move |i: usize| special_f32(n)[i];
    vec![
        case(
            "tail_1000",
            1000,
            128,
            filled(View::contiguous(&[1000]), ramp(1000)),
            filled(View::contiguous(&[1000]), ramp(1000)),
            2.0,
        ),
        case(
            "below_one_block",
            37,
            64,
            filled(View::contiguous(&[37]), ramp(37)),
            filled(View::contiguous(&[37]), ramp(37)),
            -0.5,
        ),
        case(
            "reversed_offset_strided",
            300,
            64,
            filled(View::contiguous(&[300]).flipped(0).with_offset(305), ramp(306)),
            filled(View::strided(&[300], &[3]).with_offset(2), ramp(900)),
            0.25,
        ),
        case(
            "broadcast_x",
            200,
            64,
            filled(View::contiguous(&[1]).broadcast(0, 200), |_| 1.5),
            filled(View::contiguous(&[200]), ramp(200)),
            3.0,
        ),
        case(
            "special_values",
            130,
            64,
            filled(View::contiguous(&[130]), specials(130)),
            filled(View::contiguous(&[130]).flipped(0), ramp(130)),
            -1.5,
        ),
        case(
            "one_warp",
            100,
            32,
            filled(View::contiguous(&[100]), ramp(100)),
            filled(View::contiguous(&[100]), ramp(100)),
            1.0,
        )
        .num_warps(1),
    ]
}

/// What `scaled_add` computes, in plain Rust (a product then a sum, each rounded, as the
/// kernel's `mul.rn` and `add.rn` do).
pub fn reference(case: &mut Case) {
    let n = case.tensor("out").view.shape[0];
    let alpha = case.f32_arg("alpha");
    for i in 0..n {
        let v = case.tensor("x").f32_at(&[i]) * alpha + case.tensor("y").f32_at(&[i]);
        case.tensor_mut("out").set_f32(&[i], v);
    }
}

/// `def` on every case, bit-exact except that any NaN matches any NaN (the GPU's
/// arithmetic returns the canonical NaN, not the input's payload).
pub fn suite_of(def: KernelDef) -> Suite {
    Suite::new(def).cases(cases()).reference(reference).rule(Rule::BITS.any_nan())
}

/// `scaled_add`'s suite, for the command line's `validate`.
pub fn scaled_add() -> Suite {
    suite_of(crate::scaled_add())
}

/// The planted bug's suite: `validate` must fail on it.
pub fn scaled_add_off_by_one() -> Suite {
    suite_of(crate::scaled_add_off_by_one())
}
