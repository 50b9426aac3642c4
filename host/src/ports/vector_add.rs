//! Vector add (`add_kernel`): exact in f32 (one correctly rounded addition, which the f64
//! reference rounded to f32 equals), so the rule is bit for bit, any NaN matching any NaN
//! (the GPU's `add.f32` returns the canonical NaN).

use rtriton_kernels::ports::vector_add::{add_kernel, grid};
use rtriton_testing::fill::{ramp_f32, special_f32};
use rtriton_testing::{Case, Rule, Suite, View};

use super::Port;

pub const PORT: Port = Port {
    name: "vector_add",
    about: "Triton tutorial 01 (add_kernel): out = x + y over strided views",
    suites: || vec![suite()],
};

/// `n` elements of `x` at stride `sx` after `offset`, `y` at stride `sy`, `out` at stride 1.
pub fn case(name: &str, n: usize, block: usize, sx: usize, sy: usize, offset: usize, specials: bool) -> Case {
    let xv = View::strided(&[n], &[sx as isize]).with_offset(offset);
    let yv = View::strided(&[n], &[sy as isize]);
    let x = if specials { special_f32(xv.min_buffer_len()) } else { ramp_f32(xv.min_buffer_len(), -7.25, 0.37) };
    let y = ramp_f32(yv.min_buffer_len(), 3.5, -0.11);
    Case::new(name)
        .input("x", x, xv)
        .input("y", y, yv)
        .output("out", vec![0.0f32; n], View::contiguous(&[n]))
        .int(n as i64)
        .int(sx as i64)
        .int(sy as i64)
        .int(1)
        .constexpr("BLOCK_SIZE", block as i64)
        .grid(grid(n, block))
}

/// The cases: a masked tail (98_432 = 96 blocks + 128), one element, below one block, a
/// strided and offset `x` with a strided `y`, special values, one warp.
pub fn cases() -> Vec<Case> {
    vec![
        case("tail_98432", 98_432, 1024, 1, 1, 0, false),
        case("one_element", 1, 1024, 1, 1, 0, false),
        case("below_one_block", 1000, 1024, 1, 1, 0, false),
        case("strided_offset", 3001, 256, 3, 2, 5, false),
        case("special_values", 4099, 1024, 1, 1, 0, true),
        case("one_warp", 100, 32, 1, 1, 0, false).num_warps(1),
    ]
}

/// `out[i] = x[i] + y[i]` in f64, rounded to f32.
pub fn reference(case: &mut Case) {
    let n = case.tensor("out").view.shape[0];
    for i in 0..n {
        let v = f64::from(case.tensor("x").f32_at(&[i])) + f64::from(case.tensor("y").f32_at(&[i]));
        case.tensor_mut("out").set_f32(&[i], v as f32);
    }
}

pub fn suite() -> Suite {
    Suite::new(add_kernel()).cases(cases()).reference(reference).rule(Rule::BITS.any_nan())
}

#[cfg(test)]
mod tests {
    use rtriton_testing::Backend;

    use super::*;

    #[test]
    fn every_case_passes_on_the_interpreter_and_the_simulator() {
        let s = suite();
        s.check_all(Backend::Interpreter);
        s.check_all(Backend::Simulator);
    }
}
