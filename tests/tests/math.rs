//! The math functions (`exp`, `exp2`, `log`, `log2`, `sqrt`, `rsqrt`, `abs`, `floor`,
//! `ceil`, `trunc`, `rint`, `round`, `isnan`, `isinf`, `signbit`, `copysign`, `clamp`,
//! `fmod`, `sin`, `cos`, `tanh`, `erf`, `sigmoid`, `fma`, `div_rn`, `fdiv`, `exp2_ftz`,
//! `log1p`, `expm1`, `pow`, `atan2`) on every back end, one table row per function:
//! - the interpreter and the simulator against an independent CPU reference written here
//!   (the f64 function rounded once, or the documented composition), bit for bit, on the
//!   special values (NaN payloads, infinities, signed zeros, subnormals, extremes, ties)
//!   and a ramp over the function's domain, with masked tails (the simulator is also
//!   compared with the interpreter, bit for bit);
//! - accuracy of the CPU models against known values (`erf`, `exp`);
//! - ptxas for sm_86 and sm_90, no spills, the PTX instruction the function lowers to;
//! - a located error for `exp` of an i32;
//! - the GPU (ignored here) against the same reference under the function's documented
//!   bound (`docs/semantics.md`); the dense ULP sweep is `math_gpu_sweep.rs`.

mod math_common;
mod ptx_common;

use math_common::{
    LOG2E, NAMES, atan2_ref, erf_ref, exp_ref, expm1_ref, function, functions, log1p_ref, math_fn, pow_ref,
};

use rstest::rstest;
use rstest_reuse::{self, apply, template};
use rtriton::diag::{Code, HasDiagnostics};
use rtriton::kernel;
use rtriton::prelude::*;
use rtriton::trace::{KernelDef, trace_unspecialized};
use rtriton_testing::fill::SPECIAL_F32;
use rtriton_testing::{Backend, Case, Data, Rule, Suite, View};

kernel! {
    /// `exp` of an i32 block: a located error.
    fn exp_of_int(x_ptr: Ptr<i32>, y_ptr: Ptr<i32>; const BLOCK: usize) {
        let offs = arange(0, BLOCK);
        let x = load(x_ptr + offs, None, None);
        let y = exp(x); // exp of an i32
        store(y_ptr + offs, y, None);
    }
}

/// Special values of the second and third operands: they meet every special value of
/// the first (and themselves) at some element.
const SECOND: [f32; 7] = [1.0, -0.0, f32::INFINITY, 3.0, f32::from_bits(1), -2.5, 0.0];
const THIRD: [f32; 5] = [-1.0, f32::NAN, 0.0, f32::MAX, -f32::from_bits(0x0080_0000)];

/// `n` evenly spaced values over `[lo, hi]`.
fn ramp(n: usize, (lo, hi): (f32, f32)) -> Vec<f32> {
    (0..n).map(|i| lo + (hi - lo) * (i as f32 / (n - 1) as f32)).collect()
}

/// A case of `math_fn` for the function at `index` on first operands `a`.
fn case(name: &str, index: usize, a: Vec<f32>, block: i64) -> Case {
    let n = a.len();
    let b: Vec<f32> = (0..n).map(|i| SECOND[i % SECOND.len()]).collect();
    let c: Vec<f32> = (0..n).map(|i| THIRD[i % THIRD.len()]).collect();
    Case::new(name)
        .input("a", a, View::contiguous(&[n]))
        .input("b", b, View::contiguous(&[n]))
        .input("c", c, View::contiguous(&[n]))
        .output("y", vec![f32::from_bits(0xABAB_ABAB); n], View::contiguous(&[n]))
        .int(n as i64)
        .constexpr("BLOCK", block)
        .constexpr("FUNC", index as i64)
        .num_warps(4)
        .grid([n.div_ceil(block as usize) as u32, 1, 1])
}

/// The suite of one function: `specials` (every special value of the harness and the
/// function's own, 2 programs of 64 with a tail), `domain` (a ramp of 1000 values over
/// the domain, 8 programs of 128 with a tail of 104) and `gpu_specials`.
fn suite(name: &str, rule: Option<Rule>) -> Suite {
    let index = functions().iter().position(|f| f.name == name).expect("a function of the table");
    let f = function(name);
    let mut specials: Vec<f32> = SPECIAL_F32.to_vec();
    specials.extend(f.gpu_specials);
    specials.extend([f32::MAX, -f32::MAX, 1e30, -1e30, 0.5, -0.5, 1.5, -1.5, 100.0, -100.0]);
    specials.extend(ramp(77 - specials.len().min(77), f.domain));
    let reference = f.reference;
    Suite::new(math_fn())
        .case(case("specials", index, specials, 64))
        .case(case("domain", index, ramp(1000, f.domain), 128))
        .case(case("gpu_specials", index, f.gpu_specials.to_vec(), 16))
        .reference(move |case| {
            let n = case.tensor("a").data.len();
            for i in 0..n {
                let (a, b, c) =
                    (case.tensor("a").f32_at(&[i]), case.tensor("b").f32_at(&[i]), case.tensor("c").f32_at(&[i]));
                case.tensor_mut("y").set_f32(&[i], reference(a, b, c));
            }
        })
        .rule(rule.unwrap_or(f.gpu_rule))
}

/// Every function of the table by name, as the parameter `name` (`NAMES`, in its order:
/// rstest needs the values written out, so they are written once, here).
#[template]
#[rstest]
fn every_function(
    #[values(
        "exp",
        "exp2",
        "log",
        "log2",
        "sqrt",
        "rsqrt",
        "abs",
        "floor",
        "ceil",
        "trunc",
        "rint",
        "round",
        "isnan",
        "isinf",
        "signbit",
        "copysign",
        "clamp",
        "clamp_nan",
        "fmod",
        "sin",
        "cos",
        "tanh",
        "erf",
        "sigmoid",
        "fma",
        "div_rn",
        "fdiv",
        "exp2_ftz",
        "log1p",
        "expm1",
        "pow",
        "atan2"
    )]
    name: &str,
) {
}

#[test]
fn the_table_lists_every_function_once() {
    let names: Vec<&str> = functions().iter().map(|f| f.name).collect();
    assert_eq!(names, NAMES);
}

/// Interpreter and simulator: bit for bit with the reference (NaN bits included: every
/// NaN result is the canonical NaN) and with each other, on both specializations.
#[apply(every_function)]
fn cpu_back_ends_match_the_reference_bit_for_bit(
    name: &str,
    #[values("specials", "domain")] case: &str,
    #[values(Backend::Interpreter, Backend::Simulator)] backend: Backend,
) {
    suite(name, Some(Rule::BITS)).check(case, backend);
}

/// The GPU under each function's documented bound (`docs/semantics.md`).
#[apply(every_function)]
#[ignore = "needs a GPU"]
fn gpu_matches_the_reference_within_the_documented_bound(name: &str, #[values("domain", "gpu_specials")] case: &str) {
    suite(name, None).check(case, Backend::Gpu);
}

/// Values of `erf` (Python's `math.erf` of each f32 input, an f64 result): the CPU model is
/// within 2 ulp of each (the fit is good to about 1.2 ulp, see docs/semantics.md).
#[test]
fn erf_is_within_two_ulp_of_known_values() {
    const KNOWN: [(f32, f64); 10] = [
        (1e-30, 1.128_379_170_673_689_6e-30),
        (0.001, 0.001_128_378_844_564_317_3),
        (0.1, 0.112_462_917_682_970_51),
        (0.5, 0.520_499_877_813_046_5),
        (0.874_999_9, 0.784_074_998_505_369_1),
        (0.875, 0.784_075_061_059_859_7),
        (1.0, 0.842_700_792_949_714_9),
        (2.0, 0.995_322_265_018_952_7),
        (3.5, 0.999_999_256_901_627_6),
        (-1.5, -0.966_105_146_475_310_8),
    ];
    for (x, want) in KNOWN {
        let got = erf_ref(x);
        let want = want as f32;
        let ulps = (got.to_bits() as i64 - want.to_bits() as i64).abs();
        assert!(ulps <= 2, "erf({x}) = {got:e}, expected {want:e}: {ulps} ulp");
    }
}

/// `exp` rounds `x * log2(e)` to f32 first (as Triton's lowering does): at large
/// arguments that costs accuracy, which is part of the semantics, not an error of a back
/// end. exp(88) is about 18 ulp from the correctly rounded e^88.
#[test]
fn exp_rounds_the_scaled_argument_first() {
    let x = 88.0f32;
    let composed = exp_ref(x);
    let exact = (88.0f64).exp() as f32;
    let ulps = (composed.to_bits() as i64 - exact.to_bits() as i64).abs();
    assert!((1..=64).contains(&ulps), "exp(88): composed {composed:e}, exact {exact:e}, {ulps} ulp");
    assert_eq!(exp_ref(1.0), (f64::from(LOG2E)).exp2() as f32);
}

kernel! {
    /// `abs` on ints wraps, as `abs.s32`/`abs.s64` do (`|MIN| == MIN`).
    fn abs_int(x_ptr: Ptr<i32>, w_ptr: Ptr<i64>, y_ptr: Ptr<i32>, z_ptr: Ptr<i64>, n: i32; const BLOCK: usize) {
        let offs = program_id(0) * BLOCK as i32 + arange(0, BLOCK);
        let mask = offs.lt(n);
        store(y_ptr + offs, abs(load(x_ptr + offs, Some(mask), None)), Some(mask));
        store(z_ptr + offs, load(w_ptr + offs, Some(mask), None).abs(), Some(mask));
    }
}

fn abs_int_suite() -> Suite {
    let x = vec![i32::MIN, i32::MIN + 1, -1, 0, 1, i32::MAX, -7, 12, -100_000];
    let w = vec![i64::MIN, i64::MIN + 1, -1, 0, 1, i64::MAX, -7, 12, -(1 << 40)];
    let n = x.len();
    let case = Case::new("extremes")
        .input("x", x, View::contiguous(&[n]))
        .input("w", w, View::contiguous(&[n]))
        .output("y", vec![0i32; n], View::contiguous(&[n]))
        .output("z", vec![0i64; n], View::contiguous(&[n]))
        .int(n as i64)
        .constexpr("BLOCK", 8)
        .num_warps(1)
        .grid([2, 1, 1]);
    Suite::new(abs_int()).case(case).reference(|c| {
        for i in 0..9 {
            let x = c.tensor("x").i32_at(&[i]);
            c.tensor_mut("y").set_i32(&[i], x.wrapping_abs());
        }
        let w = match &c.tensor("w").data {
            Data::I64(w) => w.clone(),
            other => panic!("w holds {other:?}"),
        };
        c.tensor_mut("z").data = Data::I64(w.iter().map(|v| v.wrapping_abs()).collect());
    })
}

rtriton_testing::backend_tests!(abs_int_suite => [extremes]);

/// Every function's PTX: ptxas accepts it for sm_86 and sm_90 with no spills, and it
/// holds the instruction the function lowers to.
#[apply(every_function)]
#[cfg_attr(not(has_ptxas), ignore = "needs ptxas on PATH")]
fn every_function_assembles_without_spills(name: &str) {
    let index = NAMES.iter().position(|n| *n == name).unwrap();
    let constexprs = [("BLOCK", 1024), ("FUNC", index as i64)];
    let ptxas = ptx_common::ptxas("every_function_assembles_without_spills");
    for arch in [rtriton::backend::ptx::Arch::Sm86, rtriton::backend::ptx::Arch::Sm90] {
        let ptx = ptx_common::compile_plain(&math_fn(), &constexprs, &ptx_common::options(arch, 4))
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        let text = &ptx.text;
        assert!(text.contains(function(name).instruction), "{name}: no {}\n{text}", function(name).instruction);
        // `.ftz` only where the function asks for it: `exp2_ftz`; `erf`, whose power is
        // never subnormal (`lang::math::erf_value`); `sigmoid`, which adds its power to 1;
        // never by default
        let asked = name.ends_with("_ftz") || name == "erf" || name == "sigmoid";
        assert_eq!(
            text.contains(".ftz"),
            asked,
            "{name}: rtriton emits .ftz only where a function asks for it\n{text}"
        );
        let info = ptx_common::assemble(&ptxas, text, &arch.to_string(), "math_fn")
            .unwrap_or_else(|e| panic!("{name} on {arch}: {e}\n{text}"));
        assert_eq!(ptx_common::spill_stores(&info), Some(0), "{name} on {arch}: {info}");
    }
}

/// `exp` of an i32 is a located error naming the kernel, the line and the fix.
#[test]
fn exp_of_an_int_is_a_located_error() {
    let e = trace_unspecialized(&exp_of_int(), &[("BLOCK", 16)]).expect_err("exp of an i32 must not trace");
    let d = e.diagnostics();
    assert_eq!(d.len(), 1, "{e}");
    assert_eq!(d[0].code, Code::TraceMathDType);
    let line = include_str!("math.rs").lines().position(|l| l.ends_with("// exp of an i32")).unwrap() + 1;
    let text = e.to_string();
    assert!(text.contains(&format!("kernel `exp_of_int` at tests/tests/math.rs:{line}:")), "{text}");
    assert!(text.contains("`exp` is not defined on i32"), "{text}");
    assert!(text.contains("exp(x.to::<f32>())"), "{text}");
}

/// The other float-only functions refuse ints with the same code; `abs` takes them.
#[test]
fn every_float_only_function_refuses_ints() {
    fn traced(def: KernelDef) -> Vec<Code> {
        match trace_unspecialized(&def, &[("BLOCK", 16)]) {
            Ok(_) => vec![],
            Err(e) => e.diagnostics().iter().map(|d| d.code).collect(),
        }
    }
    kernel! {
        fn all_on_ints(x_ptr: Ptr<i32>, y_ptr: Ptr<i32>; const BLOCK: usize) {
            let x = load(x_ptr + arange(0, BLOCK), None, None);
            let y = exp2(x) + log(x) + log2(x) + sqrt(x) + sqrt_rn(x) + rsqrt(x) + floor(x) + ceil(x) + sin(x);
            let y = y + cos(x) + tanh(x) + erf(x) + sigmoid(x) + fma(x, x, x) + div_rn(x, x) + fdiv(x, 2) + abs(x);
            let y = y + trunc(x) + rint(x) + round(x) + isnan(x) + isinf(x) + signbit(x) + copysign(x, x);
            let y = y + clamp(x, x, x) + fmod(x, x) + log1p(x) + expm1(x) + pow(x, x) + atan2(x, x);
            store(y_ptr + arange(0, BLOCK), y, None);
        }
    }
    assert_eq!(traced(all_on_ints()), vec![Code::TraceMathDType; 29]);
}

macro_rules! sixteen_bit_kernel {
    ($name:ident, $t:ty) => {
        kernel! {
            /// The functions that take a 16-bit float and give the same bits on every back
            /// end (computed in f32, rounded once to the type): the exact `round`, `trunc`,
            /// `fmod`, `isnan`, `isinf`, and the compositions of exact operations `log1p`,
            /// `expm1`, `pow` and `atan2` (the last three as methods).
            fn $name(
                x_ptr: Ptr<$t>, y_ptr: Ptr<$t>, c_ptr: Ptr<$t>, r_ptr: Ptr<$t>, m_ptr: Ptr<$t>,
                p_ptr: Ptr<i32>, l_ptr: Ptr<$t>, e_ptr: Ptr<$t>, w_ptr: Ptr<$t>, a_ptr: Ptr<$t>,
                n: i32; const BLOCK: usize
            ) {
                let offs = arange(0, BLOCK);
                let mask = offs.lt(n);
                let x = load(x_ptr + offs, Some(mask), None);
                let y = load(y_ptr + offs, Some(mask), None);
                store(c_ptr + offs, trunc(x), Some(mask));
                store(r_ptr + offs, round(x), Some(mask));
                store(m_ptr + offs, fmod(x, y), Some(mask));
                let flags = isnan(x) + isinf(x) * 2;
                store(p_ptr + offs, flags, Some(mask));
                store(l_ptr + offs, log1p(x), Some(mask));
                store(e_ptr + offs, x.expm1(), Some(mask));
                store(w_ptr + offs, x.pow(y), Some(mask));
                store(a_ptr + offs, x.atan2(y), Some(mask));
            }
        }
    };
}
sixteen_bit_kernel!(sixteen_bit_f16, half::f16);
sixteen_bit_kernel!(sixteen_bit_bf16, half::bf16);

/// A 16-bit float type's values as f32 and back (`half`'s conversions, exact for every
/// value of the type; NaN payloads are not compared).
trait Half: Copy + Send + Sync + 'static {
    fn to_f32(self) -> f32;
    fn from_f32(v: f32) -> Self;
}

macro_rules! half_impl {
    ($t:ty) => {
        impl Half for $t {
            fn to_f32(self) -> f32 {
                <$t>::to_f32(self)
            }
            fn from_f32(v: f32) -> Self {
                <$t>::from_f32(v)
            }
        }
    };
}
half_impl!(half::f16);
half_impl!(half::bf16);

/// Ties, signed zeros, NaNs with payloads and signs, infinities, subnormals, extremes.
fn sixteen_bit_suite<T: Half>(def: KernelDef, specials: &[T]) -> Suite
where
    Vec<T>: Into<Data>,
{
    let extra = [0.5f32, -0.5, 2.5, -2.5, 1.5, -3.5, 1023.5, 3.0, -7.25, 0.375, 100.0, -0.0];
    let x: Vec<T> = specials.iter().copied().chain(extra.iter().map(|&v| T::from_f32(v))).collect();
    let n = x.len();
    // y: the same values rotated, so each x meets several signs and magnitudes
    let y: Vec<T> = (0..n).map(|i| x[(i * 5 + 3) % n]).collect();
    let (xs, ys) = (x.clone(), y.clone());
    let case = Case::new("specials")
        .input("x", x, View::contiguous(&[n]))
        .input("y", y, View::contiguous(&[n]))
        .output("c", vec![T::from_f32(0.0); n], View::contiguous(&[n]))
        .output("r", vec![T::from_f32(0.0); n], View::contiguous(&[n]))
        .output("m", vec![T::from_f32(0.0); n], View::contiguous(&[n]))
        .output("p", vec![0i32; n], View::contiguous(&[n]))
        .output("l", vec![T::from_f32(0.0); n], View::contiguous(&[n]))
        .output("e", vec![T::from_f32(0.0); n], View::contiguous(&[n]))
        .output("w", vec![T::from_f32(0.0); n], View::contiguous(&[n]))
        .output("a", vec![T::from_f32(0.0); n], View::contiguous(&[n]))
        .int(n as i64)
        .constexpr("BLOCK", 32)
        .num_warps(1)
        .grid([1, 1, 1]);
    Suite::new(def)
        .case(case)
        .reference(move |c| {
            // trunc, round and fmod of a 16-bit value are 16-bit values: computed in f32 exactly
            let truncated: Vec<T> = xs.iter().map(|x| T::from_f32(x.to_f32().trunc())).collect();
            let rounded: Vec<T> = xs.iter().map(|x| T::from_f32(x.to_f32().round())).collect();
            let rems: Vec<T> = xs.iter().zip(&ys).map(|(x, y)| T::from_f32(x.to_f32() % y.to_f32())).collect();
            let flags: Vec<i32> = xs
                .iter()
                .map(|x| {
                    let v = x.to_f32();
                    i32::from(v.is_nan()) + 2 * i32::from(v.is_infinite())
                })
                .collect();
            c.tensor_mut("c").data = truncated.into();
            c.tensor_mut("r").data = rounded.into();
            c.tensor_mut("m").data = rems.into();
            c.tensor_mut("p").data = Data::I32(flags);
            // the compositions: their f32 result (the CPU reference, step for step) rounded once
            let unary = |f: fn(f32) -> f32| -> Vec<T> { xs.iter().map(|x| T::from_f32(f(x.to_f32()))).collect() };
            let binary = |f: fn(f32, f32) -> f32| -> Vec<T> {
                xs.iter().zip(&ys).map(|(x, y)| T::from_f32(f(x.to_f32(), y.to_f32()))).collect()
            };
            c.tensor_mut("l").data = unary(log1p_ref).into();
            c.tensor_mut("e").data = unary(expm1_ref).into();
            c.tensor_mut("w").data = binary(pow_ref).into();
            c.tensor_mut("a").data = binary(atan2_ref).into();
        })
        .rule(Rule::BITS.any_nan())
}

fn sixteen_bit_f16_suite() -> Suite {
    sixteen_bit_suite(sixteen_bit_f16(), &rtriton_testing::fill::SPECIAL_F16)
}

fn sixteen_bit_bf16_suite() -> Suite {
    sixteen_bit_suite(sixteen_bit_bf16(), &rtriton_testing::fill::SPECIAL_BF16)
}

mod f16_bits {
    use super::*;
    rtriton_testing::backend_tests!(sixteen_bit_f16_suite => [specials]);
}

mod bf16_bits {
    use super::*;
    rtriton_testing::backend_tests!(sixteen_bit_bf16_suite => [specials]);
}

/// `signbit` and `copysign` work on an f32's bits: f16 and bf16 are the located
/// `RT0104` naming the function, with the conversion to make (libdevice has no 16-bit
/// forms either).
#[test]
fn bit_functions_refuse_sixteen_bit_floats() {
    kernel! {
        fn bits_of_f16(x_ptr: Ptr<half::f16>, y_ptr: Ptr<i32>, z_ptr: Ptr<half::bf16>; const BLOCK: usize) {
            let x = load(x_ptr + arange(0, BLOCK), None, None);
            store(y_ptr + arange(0, BLOCK), signbit(x), None); // signbit of an f16
            let z = load(z_ptr + arange(0, BLOCK), None, None);
            store(z_ptr + arange(0, BLOCK), copysign(z, z), None); // copysign of a bf16
        }
    }
    let e = trace_unspecialized(&bits_of_f16(), &[("BLOCK", 16)]).expect_err("16-bit bit functions must not trace");
    let d = e.diagnostics();
    assert_eq!(d.iter().map(|d| d.code).collect::<Vec<_>>(), vec![Code::TraceMathDType; 2], "{e}");
    let text = e.to_string();
    for (marker, message) in [
        ("// signbit of an f16", "`signbit` is not defined on f16"),
        ("// copysign of a bf16", "`copysign` is not defined on bf16"),
    ] {
        let line = include_str!("math.rs").lines().position(|l| l.ends_with(marker)).unwrap() + 1;
        assert!(text.contains(&format!("tests/tests/math.rs:{line}:")), "{marker}: {text}");
        assert!(text.contains(message), "{text}");
    }
    assert!(text.contains("x.to::<f32>()"), "{text}");
}
