//! Generic kernels: `kernel!` with a type parameter (`fn rms_norm<T: Float>`), one
//! instance per dtype of the bound's list, the instance picked from the argument dtypes
//! as Triton's JIT specializes on pointer dtypes (`dsl/src/trace/generic.rs`,
//! `runtime/src/launch/instances.rs`):
//! - signatures, the dtype lists of the family bounds and of a named list;
//! - the instance an argument list picks, and `RT0702` naming the parameter when none
//!   does (a dtype outside the list, two tensors that disagree on `T`);
//! - each instance its own kernel: its own IR, and cases of every dtype through the
//!   testing crate on the interpreter and the simulator (and, asked for, the GPU, where
//!   the runtime picks the instance), against a plain-Rust reference;
//! - RMSNorm written once for every float dtype, as Triton writes it.

use half::{bf16, f16};
use rtriton::diag::{Code, HasDiagnostics};
use rtriton::ir::ScalarType;
use rtriton::kernel;
use rtriton::prelude::*;
use rtriton::session::CompileError;
use rtriton::trace::{KernelDef, trace_unspecialized};
use rtriton_testing::{Backend, Case, Data, Element, Rule, RunError, Suite, View};

kernel! {
    /// RMSNorm's forward, one program per row, for every float dtype: one definition of
    /// 8 lines of body (Triton's usual form has 9), where a kernel per dtype took a trait,
    /// a generic body and a wrapper each. The row's mean square and the weights in f32,
    /// the result rounded to the element type once, at the store.
    pub fn rms_norm<T: Float>(x_ptr: Ptr<T>, y_ptr: Ptr<T>, w_ptr: Ptr<T>, stride: i32, n: i32, eps: f32;
                              const BLOCK_SIZE: usize) {
        let row = program_id(0);
        let cols = arange(0, BLOCK_SIZE);
        let mask = cols.lt(n);
        let x = load(x_ptr + row * stride + cols, Some(mask), Some(T::lit(0.0))).to::<f32>();
        let mean_square = sum(x * x, 0) / n.to::<f32>();
        let rstd = 1.0 / sqrt(mean_square + eps);
        let w = load(w_ptr + cols, Some(mask), Some(T::lit(0.0))).to::<f32>();
        store(y_ptr + row * stride + cols, (x * rstd * w).to::<T>(), Some(mask));
    }
}

/// A bound of the kernel author's own, with its list named.
trait Scaled: ScalarMarker {
    /// The factor the kernel multiplies by (a power of two: exact in every dtype).
    const FACTOR: f32;
}
impl Scaled for f32 {
    const FACTOR: f32 = 2.0;
}
impl Scaled for f16 {
    const FACTOR: f32 = 4.0;
}

kernel! {
    /// `y = x * T::FACTOR`, with `T` from a list the bound names.
    fn scale<T: Scaled in [f32, f16]>(x_ptr: Ptr<T>, y_ptr: Ptr<T>, factor_ptr: Ptr<f32>; const N: usize) {
        let offs = arange(0, N);
        let x = load(x_ptr + offs, None, None).to::<f32>();
        store(y_ptr + offs, (x * T::FACTOR).to::<T>(), None);
        store(factor_ptr + arange(0, 1), full(&[1], T::FACTOR), None);
    }
}

kernel! {
    /// `y = x + 1` over the integers, wrapping as the dtype does.
    fn add_one<T: IntMarker>(x_ptr: Ptr<T>, y_ptr: Ptr<T>; const N: usize) {
        let offs = arange(0, N);
        let x = load(x_ptr + offs, None, None);
        store(y_ptr + offs, (x.to::<i64>() + 1).to::<T>(), None);
    }
}

// ---------------------------------------------------------------------------------------
// Signatures and instances

#[test]
fn a_generic_signature_names_its_type_parameter_and_each_instance_its_dtype() {
    let def = rms_norm();
    assert!(def.is_generic());
    assert_eq!(
        def.signature(),
        "rms_norm<T: Float>(x_ptr: *T, y_ptr: *T, w_ptr: *T, stride: i32, n: i32, eps: f32, const BLOCK_SIZE)"
    );
    let bf = def.instance(ScalarType::BF16).expect("bf16 is a Float");
    assert!(!bf.is_generic());
    assert_eq!(
        bf.signature(),
        "rms_norm(x_ptr: *bf16, y_ptr: *bf16, w_ptr: *bf16, stride: i32, n: i32, eps: f32, const BLOCK_SIZE)"
    );
    // Tables name an instance with its dtype; the instances share the kernel's name.
    assert_eq!((def.label(), bf.label(), bf.name), ("rms_norm".into(), "rms_norm<bf16>".into(), "rms_norm"));
    // A parameter of a fixed type stays itself, even in the instance of that type.
    assert_eq!(scale().signature(), "scale<T: Scaled>(x_ptr: *T, y_ptr: *T, factor_ptr: *f32, const N)");
}

/// The dtype lists: the family bounds' and a named one, in order (the first is what a
/// tool that takes one kernel traces).
#[test]
fn each_bound_is_instantiated_for_its_list() {
    let dtypes = |def: &KernelDef| def.generic.as_ref().unwrap().instances.iter().map(|i| i.dtype).collect::<Vec<_>>();
    use ScalarType::*;
    assert_eq!(dtypes(&rms_norm()), [F32, F16, BF16, F64]);
    assert_eq!(dtypes(&add_one()), [I32, I64, I8, I16, U8, U32, U64]);
    assert_eq!(dtypes(&scale()), [F32, F16]);
    assert_eq!(rms_norm().params, rms_norm().instance(F32).unwrap().params);
    assert!(rms_norm().instance(I32).is_none() && scale().instance(BF16).is_none());
}

/// Every instance traces to its own kernel: loads and stores of its dtype.
#[test]
fn each_instance_traces_its_own_dtype() {
    for (dtype, text) in [(ScalarType::F16, "f16"), (ScalarType::BF16, "bf16"), (ScalarType::F64, "f64")] {
        let def = rms_norm().instance(dtype).unwrap();
        let ir = trace_unspecialized(&def, &[("BLOCK_SIZE", 64)]).expect("traces").to_string();
        assert!(ir.contains(&format!("!tt.ptr<{text}>")) || ir.contains(&format!("*{text}")), "{dtype}: {ir}");
        let other = rms_norm().instance(ScalarType::F32).unwrap();
        assert_ne!(ir, trace_unspecialized(&other, &[("BLOCK_SIZE", 64)]).unwrap().to_string());
    }
}

#[test]
fn the_arguments_pick_the_instance() {
    use ScalarType::*;
    let pick = |dtypes: &[Option<ScalarType>]| rms_norm().instance_for(dtypes).map(|d| d.params[0].kind.to_string());
    assert_eq!(pick(&[Some(F16), Some(F16), Some(F16), None, None, None]).unwrap(), "*f16");
    assert_eq!(pick(&[Some(BF16), Some(BF16), Some(BF16), None, None, None]).unwrap(), "*bf16");
    assert_eq!(pick(&[Some(F64), Some(F64), Some(F64), None, None, None]).unwrap(), "*f64");
    // A kernel that is not generic is its own instance.
    let plain = rms_norm().instance(F32).unwrap();
    assert_eq!(plain.instance_for(&[Some(I8)]).unwrap().params, plain.params);
}

/// No instance takes these dtypes: `RT0702`, naming the parameter and what it takes.
#[test]
fn arguments_no_instance_takes_are_refused_naming_the_parameter() {
    use ScalarType::*;
    /// The argument dtypes, the parameter the error names, words the message has.
    type Refusal = (&'static [Option<ScalarType>], &'static str, &'static [&'static str]);
    let cases: &[Refusal] = &[
        // A dtype outside the list.
        (&[Some(I32), Some(I32), Some(I32), None, None, None], "x_ptr", &["T: Float", "f32, f16, bf16, f64", "i32"]),
        // Two tensors that disagree on `T`: the second is named, with the type `T` fixed.
        (&[Some(F16), Some(F32), Some(F16), None, None, None], "y_ptr", &["*f16", "T = f16, from `x_ptr`", "f32"]),
        (&[Some(BF16), Some(BF16), Some(F16), None, None, None], "w_ptr", &["*bf16", "T = bf16", "f16"]),
    ];
    for &(dtypes, param, words) in cases {
        let err = rms_norm().instance_for(dtypes).expect_err("refused");
        let d = &err.diagnostics()[0];
        assert_eq!(d.code, Code::LaunchArgType, "{d}");
        let text = d.to_string();
        assert!(text.contains("rms_norm") && text.contains(&format!("`{param}`")), "{text}");
        for w in words {
            assert!(text.contains(w), "{w:?} missing from: {text}");
        }
    }
}

// ---------------------------------------------------------------------------------------
// Running the instances

/// Triton's RMSNorm in f64: `x * rsqrt(mean(x^2) + eps) * w`, per row.
fn rms_norm_reference(x: &[f64], w: &[f64], n: usize, eps: f64) -> Vec<f64> {
    x.chunks(n)
        .flat_map(|row| {
            let ms = row.iter().map(|v| v * v).sum::<f64>() / n as f64;
            let rstd = 1.0 / (ms + eps).sqrt();
            row.iter().zip(w).map(move |(v, w)| v * rstd * w)
        })
        .collect()
}

/// A case of `rows` rows of `n` values of `T` (deterministic, both signs).
fn rms_case<T: Element>(name: &str, rows: usize, n: usize, convert: fn(f64) -> T) -> Case {
    let value = |i: usize, seed: usize| ((i * 37 + seed * 11) % 23) as f64 / 8.0 - 1.4;
    let x: Vec<T> = (0..rows * n).map(|i| convert(value(i, 1))).collect();
    let w: Vec<T> = (0..n).map(|i| convert(value(i, 5) + 2.0)).collect();
    let y: Vec<T> = vec![convert(0.0); rows * n];
    Case::new(name)
        .input("x_ptr", x, View::contiguous(&[rows, n]))
        .output("y_ptr", y, View::contiguous(&[rows, n]))
        .input("w_ptr", w, View::contiguous(&[n]))
        .arg("stride", n as i64)
        .arg("n", n as i64)
        .arg("eps", 1e-6f32)
        .constexpr("BLOCK_SIZE", n.next_power_of_two() as i64)
        .grid([rows as u32, 1, 1])
}

/// One suite of the generic kernel with cases of every float dtype: the testing crate
/// runs each case's instance.
fn rms_suite() -> Suite {
    Suite::new(rms_norm())
        .cases([
            rms_case::<f32>("f32", 3, 100, |v| v as f32),
            rms_case::<f16>("f16", 2, 64, f16::from_f64),
            rms_case::<bf16>("bf16", 2, 130, bf16::from_f64),
            rms_case::<f64>("f64", 2, 33, |v| v),
        ])
        .reference(|case| {
            let (x, w) = (case.tensor("x_ptr"), case.tensor("w_ptr"));
            let n = w.view.shape[0];
            let xs: Vec<f64> = (0..x.data.len()).map(|i| x.f64_at(&[i / n, i % n])).collect();
            let ws: Vec<f64> = (0..n).map(|i| w.f64_at(&[i])).collect();
            let y = rms_norm_reference(&xs, &ws, n, 1e-6);
            for (i, v) in y.into_iter().enumerate() {
                case.tensor_mut("y_ptr").set_f64(&[i / n, i % n], v);
            }
        })
        // The sum of squares in f32 (a tree on the GPU, pairwise on the interpreter) and
        // f32 math: a few f32 ulps; f16 and bf16 results are that rounded once more.
        .rule(Rule::approx(1e-5, 1e-5))
        .rule_for("y_ptr", Rule::approx(1e-5, 8e-3))
}

#[test]
fn rms_norm_matches_its_reference_for_every_dtype_on_the_interpreter() {
    rms_suite().check_all(Backend::Interpreter);
}

#[test]
fn rms_norm_matches_its_reference_for_every_dtype_on_the_simulator() {
    rms_suite().check_all(Backend::Simulator);
}

/// On the GPU the runtime picks each case's instance from its buffers' dtypes.
#[test]
#[ignore = "needs a GPU"]
fn rms_norm_matches_its_reference_for_every_dtype_on_the_gpu() {
    rms_suite().check_all(Backend::Gpu);
}

/// A bound of the author's own: each instance sees its own `T::FACTOR`; integers wrap
/// as their dtype does.
fn exact_suites() -> Vec<Suite> {
    let scale_case = |name: &str, x: Data, y: Data, factor: f32| {
        Case::new(name)
            .input("x_ptr", x, View::contiguous(&[8]))
            .output("y_ptr", y, View::contiguous(&[8]))
            .output("factor_ptr", vec![factor], View::contiguous(&[1]))
            .constexpr("N", 8)
    };
    let xs: Vec<f32> = (0..8).map(|i| i as f32 - 3.5).collect();
    let scale = Suite::new(scale())
        .case(scale_case("f32", xs.clone().into(), xs.iter().map(|v| v * 2.0).collect::<Vec<_>>().into(), 2.0))
        .case(scale_case(
            "f16",
            xs.iter().map(|&v| f16::from_f32(v)).collect::<Vec<_>>().into(),
            xs.iter().map(|&v| f16::from_f32(v * 4.0)).collect::<Vec<_>>().into(),
            4.0,
        ))
        .rule(Rule::BITS);
    let int_case = |name: &str, x: Data, y: Data| {
        Case::new(name)
            .input("x_ptr", x, View::contiguous(&[4]))
            .output("y_ptr", y, View::contiguous(&[4]))
            .constexpr("N", 4)
    };
    let add = Suite::new(add_one())
        .case(int_case("i8", vec![1i8, -1, 126, 127].into(), vec![2i8, 0, 127, -128].into()))
        .case(int_case("u8", vec![0u8, 7, 254, 255].into(), vec![1u8, 8, 255, 0].into()))
        .case(int_case("i64", vec![0i64, -1, i64::MAX - 1, 5].into(), vec![1i64, 0, i64::MAX, 6].into()))
        .case(int_case("u32", vec![0u32, 1, u32::MAX, 9].into(), vec![1u32, 2, 0, 10].into()))
        .rule(Rule::BITS);
    vec![scale, add]
}

#[test]
fn instances_of_a_named_list_and_of_the_integers_are_exact_on_the_interpreter_and_the_simulator() {
    for suite in exact_suites() {
        suite.check_all(Backend::Interpreter);
        suite.check_all(Backend::Simulator);
    }
}

#[test]
#[ignore = "needs a GPU"]
fn instances_of_a_named_list_and_of_the_integers_are_exact_on_the_gpu() {
    for suite in exact_suites() {
        suite.check_all(Backend::Gpu);
    }
}

/// A case whose tensors no instance takes is refused before anything runs, naming the
/// parameter.
#[test]
fn a_case_no_instance_takes_is_refused() {
    let case = Case::new("i32")
        .input("x_ptr", vec![1i32; 8], View::contiguous(&[8]))
        .output("y_ptr", vec![0i32; 8], View::contiguous(&[8]))
        .output("factor_ptr", vec![0f32], View::contiguous(&[1]))
        .constexpr("N", 8);
    let err = rtriton_testing::run::run_interpreter(&scale(), &case, Default::default()).expect_err("refused");
    let text = err.to_string();
    assert!(text.contains("`scale`") && text.contains("`x_ptr`") && text.contains("(f32, f16)"), "{text}");
    let RunError::Compile(CompileError::FrontEnd(e)) = err else { panic!("not a front-end error: {text}") };
    assert_eq!(e.diagnostics()[0].code, Code::LaunchArgType);
}
