//! Vector add (`add_kernel`, `add_kernel_f16`, `add_kernel_bf16`): one case table and
//! one f64 reference for the three dtypes, compared bit for bit, any NaN matching any
//! NaN (the GPU's `add.f32` returns the canonical NaN).
//!
//! Why bit for bit in every dtype. The reference adds in f64 and rounds the sum once to
//! the dtype ([`rtriton_testing::Tensor::set_f64`], round to nearest even): that is the
//! correctly rounded sum, because rounding an exact result first to a format of `p'`
//! bits and then to one of `p` bits gives the correctly rounded result whenever
//! `p' >= 2p + 2` (Figueroa, "When is double rounding innocuous?", 1995; it holds for
//! `+ - * /` and `sqrt`), and f64 (`p' = 53`) is wide enough for f32 (`p = 24`), f16
//! (11) and bf16 (8). The kernel, like Triton, computes a half-precision sum in f32 and
//! rounds it to f16 or bf16 once: f32's 24 bits are `>= 2p + 2` for f16 (24) and bf16
//! (18), so that double rounding is innocuous too and the kernel's sum is the correctly
//! rounded one as well. The rule is checked on its own below
//! (`f32_sums_rounded_once_are_the_correctly_rounded_half_sums`).

use rtriton::trace::KernelDef;
use rtriton_kernels::ports::vector_add::{add_kernel, add_kernel_bf16, add_kernel_f16, grid};
use rtriton_testing::fill::{ramp, special};
use rtriton_testing::half::{bf16, f16};
use rtriton_testing::{Case, Element, Rule, Suite, View};

use super::Port;
use super::bench::{BenchPoint, DTYPES, Launches, SIZES_1D, elem_bytes};
use super::example::ExampleCase;

pub const PORT: Port = Port {
    name: "vector_add",
    about: "Triton tutorial 01 (add_kernel): out = x + y over strided views, in f32, f16 and bf16",
    kernels: || vec![add_kernel(), add_kernel_f16(), add_kernel_bf16()],
    suites: || vec![suite(), suite_f16(), suite_bf16()],
    bench: bench_points,
    example,
};

/// The peer script's `add` points: 2^24 and 2^28 elements in f32, f16 and bf16, blocks of
/// 1024 as the tutorial launches them; bytes: two inputs read, one output written.
pub fn bench_points() -> Vec<BenchPoint> {
    let mut out = Vec::new();
    for dtype in DTYPES {
        for n in SIZES_1D {
            let launches: Launches = match dtype {
                "f32" => Box::new(move |_| {
                    vec![(suite_of::<f32>(add_kernel()), case::<f32>("bench", n, 1024, 1, 1, 0, false))]
                }),
                "f16" => Box::new(move |_| {
                    vec![(suite_of::<f16>(add_kernel_f16()), case::<f16>("bench", n, 1024, 1, 1, 0, false))]
                }),
                _ => Box::new(move |_| {
                    vec![(suite_of::<bf16>(add_kernel_bf16()), case::<bf16>("bench", n, 1024, 1, 1, 0, false))]
                }),
            };
            out.push(BenchPoint {
                kernel: "add",
                variant: "",
                dtype,
                shape: vec![n],
                bytes: 3 * n as u64 * elem_bytes(dtype),
                flops: 0,
                launches,
            });
        }
    }
    out
}

/// What `cargo run --example vector_add [-- --dtype f32|f16|bf16]` runs: the masked tail,
/// 98 432 elements in blocks of 1024, in the dtype asked for.
pub fn example() -> Vec<ExampleCase> {
    vec![
        ExampleCase::new("f32", suite(), "tail_98432"),
        ExampleCase::new("f16", suite_f16(), "tail_98432"),
        ExampleCase::new("bf16", suite_bf16(), "tail_98432"),
    ]
}

/// `n` elements of `x` at stride `sx` after `offset`, `y` at stride `sy`, `out` at stride
/// 1, all of element type `T`.
pub fn case<T: Element>(
    name: &str,
    n: usize,
    block: usize,
    sx: usize,
    sy: usize,
    offset: usize,
    specials: bool,
) -> Case {
    let xv = View::strided(&[n], &[sx as isize]).with_offset(offset);
    let yv = View::strided(&[n], &[sy as isize]);
    let x = if specials { special::<T>(xv.min_buffer_len()) } else { ramp::<T>(xv.min_buffer_len(), -7.25, 0.37) };
    let y = ramp::<T>(yv.min_buffer_len(), 3.5, -0.11);
    Case::new(name)
        .input("x", x, xv)
        .input("y", y, yv)
        .output("out", vec![T::default(); n], View::contiguous(&[n]))
        .int(n as i64)
        .int(sx as i64)
        .int(sy as i64)
        .int(1)
        .constexpr("BLOCK_SIZE", block as i64)
        .grid(grid(n, block))
}

/// The cases, the same for every dtype: a masked tail (98_432 = 96 blocks + 128), one
/// element, below one block, a strided and offset `x` with a strided `y`, special values
/// (NaNs, infinities, signed zeros, subnormals, the largest finite values), one warp.
pub fn cases<T: Element>() -> Vec<Case> {
    vec![
        case::<T>("tail_98432", 98_432, 1024, 1, 1, 0, false),
        case::<T>("one_element", 1, 1024, 1, 1, 0, false),
        case::<T>("below_one_block", 1000, 1024, 1, 1, 0, false),
        case::<T>("strided_offset", 3001, 256, 3, 2, 5, false),
        case::<T>("special_values", 4099, 1024, 1, 1, 0, true),
        case::<T>("one_warp", 100, 32, 1, 1, 0, false).num_warps(1),
    ]
}

/// `out[i] = x[i] + y[i]` in f64, rounded once to the output's dtype (the correctly
/// rounded sum: see the module doc).
pub fn reference(case: &mut Case) {
    let n = case.tensor("out").view.shape[0];
    for i in 0..n {
        let v = case.tensor("x").f64_at(&[i]) + case.tensor("y").f64_at(&[i]);
        case.tensor_mut("out").set_f64(&[i], v);
    }
}

fn suite_of<T: Element>(def: KernelDef) -> Suite {
    Suite::new(def).cases(cases::<T>()).reference(reference).rule(Rule::BITS.any_nan())
}

/// `add_kernel` in f32.
pub fn suite() -> Suite {
    suite_of::<f32>(add_kernel())
}

/// `add_kernel_f16`.
pub fn suite_f16() -> Suite {
    suite_of::<f16>(add_kernel_f16())
}

/// `add_kernel_bf16`.
pub fn suite_bf16() -> Suite {
    suite_of::<bf16>(add_kernel_bf16())
}

#[cfg(test)]
mod tests {
    use rtriton_testing::{Backend, Float};

    use super::*;

    #[test]
    fn every_case_of_every_dtype_passes_on_the_interpreter_and_the_simulator() {
        for s in (PORT.suites)() {
            s.check_all(Backend::Interpreter);
            s.check_all(Backend::Simulator);
        }
    }

    /// The rule the suites rely on: for f16 and bf16 inputs, the f32 sum rounded to the
    /// dtype (what the kernel computes) equals the f64 sum rounded once (the reference),
    /// on every pair of special values and on pseudo-random bit patterns, NaNs aside
    /// (both are NaN then, and the rule lets any NaN match).
    #[test]
    fn f32_sums_rounded_once_are_the_correctly_rounded_half_sums() {
        fn check<T: Element>(format: Float, to_f32: fn(u64) -> f32, from_f32: fn(f32) -> u64) {
            let mut pairs: Vec<(u64, u64)> = Vec::new();
            let specials: Vec<u64> = special::<T>(64).into_iter().map(Element::bits).collect();
            for &a in &specials {
                pairs.extend(specials.iter().map(|&b| (a, b)));
            }
            let mut s = 0x9E37_79B9_7F4A_7C15u64;
            for _ in 0..200_000 {
                s ^= s << 13;
                s ^= s >> 7;
                s ^= s << 17;
                // Every other pair close in magnitude, where cancellation and ties happen.
                let b = if s & 1 == 0 { (s >> 16) & 0xFFFF } else { (s ^ (s >> 40)) & 0xFF0F };
                pairs.push((s & 0xFFFF, b));
            }
            for (a, b) in pairs {
                let kernel = from_f32(to_f32(a) + to_f32(b));
                let reference = format.round_from_f64(format.to_f64(a) + format.to_f64(b));
                if format.is_nan(kernel) && format.is_nan(reference) {
                    continue;
                }
                assert_eq!(kernel, reference, "{format:?}: 0x{a:04X} + 0x{b:04X}");
            }
        }
        check::<f16>(
            Float::F16,
            |b| f16::from_bits(b as u16).to_f32(),
            |x| u64::from(rtriton::semantics::convert::f32_to_f16(x).to_bits()),
        );
        check::<bf16>(
            Float::BF16,
            |b| bf16::from_bits(b as u16).to_f32(),
            |x| u64::from(rtriton::semantics::convert::f32_to_bf16(x).to_bits()),
        );
    }
}
