//! Scalars by name and rules per output: named arguments in any order launch what the
//! positional ones do; every way a named argument can miss the signature is an
//! `ArgError` of its own kind naming the kernel, the case and the argument; and a case
//! whose outputs need different tolerances passes only with a rule per output, a
//! failure naming the output and its rule.

use rtriton::interp::Memory;
use rtriton::prelude::*;
use rtriton::spec::SpecPolicy;
use rtriton_testing::fill::ramp_f32;
use rtriton_testing::run::{place, run_interpreter, run_simulator};
use rtriton_testing::{ArgErrorKind, Backend, Case, FailureKind, Rule, RunError, Suite, View};

rtriton::kernel! {
    /// `y = x * alpha + beta` and `z = offs + shift` (an i64 sum) for the first `n`
    /// elements: one parameter of each scalar kind.
    pub fn affine(x_ptr: Ptr<f32>, y_ptr: Ptr<f32>, z_ptr: Ptr<i64>, n: i32, shift: i64, alpha: f32, beta: f32;
                  const BLOCK: usize) {
        let offs = program_id(0) * BLOCK as i32 + arange(0, BLOCK);
        let mask = offs.lt(n);
        let x = load(x_ptr + offs, Some(mask), Some(0.0));
        store(y_ptr + offs, x * alpha + beta, Some(mask));
        store(z_ptr + offs, offs + shift, Some(mask));
    }
}

const N: usize = 37;
// Past i32, so only an i64 parameter holds it; alpha and beta differ, so a swap shows.
const SHIFT: i64 = 5_000_000_000;
const ALPHA: f32 = 2.5;
const BETA: f32 = -1.0;

/// The tensors of a case of `affine`: 37 elements in blocks of 16 (a masked tail).
fn tensors(name: &str) -> Case {
    Case::new(name)
        .input("x", ramp_f32(N, -3.0, 0.5), View::contiguous(&[N]))
        .output("y", vec![0.0f32; N], View::contiguous(&[N]))
        .output("z", vec![0i64; N], View::contiguous(&[N]))
        .constexpr("BLOCK", 16)
        .grid([3, 1, 1])
}

/// The scalars in parameter order, by position.
fn positional() -> Case {
    tensors("positional").int(N as i64).int(SHIFT).f32(ALPHA).f32(BETA)
}

type Named = (&'static str, fn(Case) -> Case);

/// The same scalars by name, in several orders and Rust integer types.
const ORDERS: &[Named] = &[
    ("signature_order", |c| c.arg("n", N).arg("shift", SHIFT).arg("alpha", ALPHA).arg("beta", BETA)),
    ("reversed", |c| c.arg("beta", BETA).arg("alpha", ALPHA).arg("shift", SHIFT).arg("n", N as i32)),
    ("floats_first", |c| c.arg("alpha", ALPHA).arg("beta", BETA).arg("n", N as u32).arg("shift", SHIFT)),
    ("interleaved", |c| c.arg("shift", SHIFT).arg("n", N as i64).arg("beta", BETA).arg("alpha", ALPHA)),
];

fn reference(c: &mut Case) {
    // Read by name, which works for the named cases; the positional one is read by index.
    let (alpha, beta, shift) = if c.named.is_empty() {
        (ALPHA, BETA, SHIFT)
    } else {
        (c.f32_arg("alpha"), c.f32_arg("beta"), c.int_arg("shift"))
    };
    for i in 0..N {
        let x = c.tensor("x").f32_at(&[i]);
        c.tensor_mut("y").set_f32(&[i], x * alpha + beta);
        c.tensor_mut("z").set_i64(&[i], i as i64 + shift);
    }
}

#[test]
fn named_arguments_in_any_order_launch_what_positional_ones_do() {
    let def = affine();
    let want_args = rtriton_testing::suite::arg_values(&positional()).unwrap();
    let want = run_interpreter(&def, &positional(), SpecPolicy::Triton).unwrap();
    let mut suite = Suite::new(affine()).case(positional()).reference(reference);
    for (name, with) in ORDERS {
        let case = with(tensors(name));
        let bound = case.resolve(&def).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(rtriton_testing::suite::arg_values(&bound).unwrap(), want_args, "{name}");
        for policy in [SpecPolicy::Triton, SpecPolicy::Off] {
            let got = run_interpreter(&def, &case, policy).unwrap_or_else(|e| panic!("{name}: {e}"));
            assert_eq!(got.buffers, want.buffers, "{name} on the interpreter");
            let got = run_simulator(&def, &case, policy).unwrap_or_else(|e| panic!("{name}: {e}"));
            assert_eq!(got.buffers, want.buffers, "{name} on the simulator");
        }
        suite = suite.case(case);
    }
    // And against the reference, through the suite, on both CPU back ends.
    suite.check_all(Backend::Interpreter);
    suite.check_all(Backend::Simulator);
    // The report of a bound case names each scalar's parameter.
    let bound = ORDERS[1].1(tensors("reversed")).resolve(&def).unwrap().to_string();
    assert!(bound.contains("arg 4 `shift`: 5000000000") && bound.contains("arg 6 `beta`: -1.0"), "{bound}");
}

/// Each way a case's arguments can miss `affine`'s signature: the case, the error kind
/// and the argument the message must name.
type Bad = (&'static str, fn(Case) -> Case, ArgErrorKind, &'static str);

const BAD: &[Bad] = &[
    (
        "unknown",
        |c| c.arg("n", N).arg("shift", 0).arg("alpha", 1.0).arg("beta", 0.0).arg("gamma", 1.0),
        ArgErrorKind::Unknown,
        "gamma",
    ),
    (
        "constexpr_as_arg",
        |c| c.arg("n", N).arg("shift", 0).arg("alpha", 1.0).arg("beta", 0.0).arg("BLOCK", 16),
        ArgErrorKind::Unknown,
        "BLOCK",
    ),
    (
        "duplicate",
        |c| c.arg("n", N).arg("shift", 0).arg("alpha", 1.0).arg("beta", 0.0).arg("n", 36),
        ArgErrorKind::Duplicate,
        "n",
    ),
    ("missing_scalar", |c| c.arg("n", N).arg("shift", 0).arg("alpha", 1.0), ArgErrorKind::Missing, "beta"),
    (
        "int_for_f32",
        |c| c.arg("n", N).arg("shift", 0).arg("alpha", 2).arg("beta", 0.0),
        ArgErrorKind::WrongKind,
        "alpha",
    ),
    (
        "f32_for_int",
        |c| c.arg("n", 37.0).arg("shift", 0).arg("alpha", 1.0).arg("beta", 0.0),
        ArgErrorKind::WrongKind,
        "n",
    ),
    (
        "scalar_for_pointer",
        |c| c.arg("x_ptr", 0).arg("n", N).arg("shift", 0).arg("alpha", 1.0).arg("beta", 0.0),
        ArgErrorKind::WrongKind,
        "x_ptr",
    ),
    (
        "past_i32",
        |c| c.arg("n", 1i64 << 40).arg("shift", 0).arg("alpha", 1.0).arg("beta", 0.0),
        ArgErrorKind::OutOfRange,
        "n",
    ),
    ("mixed", |c| c.int(N as i64).arg("shift", 0).arg("alpha", 1.0).arg("beta", 0.0), ArgErrorKind::Mixed, "shift"),
];

/// Cases whose tensors do not fill the pointer parameters: built whole, since the
/// tensors are what is wrong.
fn bad_tensors() -> Vec<(Case, ArgErrorKind, &'static str)> {
    let scalars = |c: Case| c.arg("n", N).arg("shift", 0).arg("alpha", 1.0).arg("beta", 0.0).constexpr("BLOCK", 16);
    let x = || (ramp_f32(N, 0.0, 1.0), View::contiguous(&[N]));
    let (xd, xv) = x();
    let missing =
        scalars(Case::new("missing_tensor").input("x", xd, xv).output("y", vec![0.0f32; N], View::contiguous(&[N])));
    let (xd, xv) = x();
    let extra = scalars(
        Case::new("extra_tensor")
            .input("x", xd, xv)
            .output("y", vec![0.0f32; N], View::contiguous(&[N]))
            .output("z", vec![0i64; N], View::contiguous(&[N]))
            .output("w", vec![0.0f32; N], View::contiguous(&[N])),
    );
    let (xd, xv) = x();
    // Named like the parameters, declared in the wrong order: `y_ptr` lands on `x_ptr`.
    let swapped = scalars(
        Case::new("swapped_tensors")
            .output("y_ptr", vec![0.0f32; N], View::contiguous(&[N]))
            .input("x_ptr", xd, xv)
            .output("z_ptr", vec![0i64; N], View::contiguous(&[N])),
    );
    vec![
        (missing, ArgErrorKind::Missing, "z_ptr"),
        (extra, ArgErrorKind::ExtraTensor, "w"),
        (swapped, ArgErrorKind::TensorName, "y_ptr"),
    ]
}

fn bad_cases() -> Vec<(Case, ArgErrorKind, &'static str)> {
    let mut cases: Vec<_> = BAD.iter().map(|(name, with, kind, arg)| (with(tensors(name)), *kind, *arg)).collect();
    cases.extend(bad_tensors());
    cases
}

#[test]
fn each_bad_named_argument_is_its_own_error_naming_the_argument() {
    let def = affine();
    for (case, kind, arg) in bad_cases() {
        let e = case.resolve(&def).expect_err(&case.name);
        assert_eq!((e.kind, e.arg.as_str()), (kind, arg), "{}: {e}", case.name);
        let text = e.to_string();
        let named = ["kernel `affine`".to_string(), format!("case `{}`", case.name), format!("argument `{arg}`")];
        assert!(named.iter().all(|n| text.contains(n.as_str())), "{}: {text}", case.name);
        assert!(text.contains("signature: affine("), "{}: {text}", case.name);
        // Every back end refuses it the same way, before running anything.
        let ran = [run_interpreter(&def, &case, SpecPolicy::Triton), run_simulator(&def, &case, SpecPolicy::Triton)];
        for r in ran {
            let e = r.expect_err(&case.name);
            assert_eq!(e.arg_error().map(|e| e.kind), Some(kind), "{}: {e}", case.name);
        }
        // And a suite reports it as the case's failure, never a pass.
        let name = case.name.clone();
        let failures = Suite::new(affine()).case(case).run(&name, Backend::Interpreter).expect_err(&name).0;
        assert_eq!(failures.len(), 1, "{name}");
        match &failures[0].what {
            FailureKind::Error(RunError::Args(e)) => assert_eq!((e.kind, e.arg.as_str()), (kind, arg), "{name}"),
            other => panic!("{name}: {other:?}"),
        }
    }
}

#[test]
fn the_messages_say_what_to_do() {
    let def = affine();
    let table: &[(&str, &str)] = &[
        ("constexpr_as_arg", "set it with .constexpr(\"BLOCK\", 16)"),
        ("duplicate", "given twice (37, then 36)"),
        ("missing_scalar", "give it with .arg(\"beta\", value)"),
        ("int_for_f32", "an integer (2) for a parameter of type f32"),
        ("mixed", ".int(37) as argument 3"),
        ("missing_tensor", "pointer parameter `z_ptr` gets no tensor"),
        ("swapped_tensors", "fills `x_ptr`"),
    ];
    let cases = bad_cases();
    for (name, want) in table {
        let (case, ..) = cases.iter().find(|(c, ..)| c.name == *name).expect(name);
        let text = case.resolve(&def).expect_err(name).to_string();
        assert!(text.contains(want), "{name}: {text}");
    }
}

#[test]
fn a_named_case_placed_without_its_kernel_is_refused() {
    let case = ORDERS[0].1(tensors("unbound"));
    let e = place(&mut Memory::new(), &case).expect_err("names need the signature");
    let e = e.arg_error().expect("an argument error");
    assert_eq!((e.kind, e.arg.as_str(), e.case.as_str()), (ArgErrorKind::Unresolved, "n", "unbound"));
    // Bound, it places.
    place(&mut Memory::new(), &case.resolve(&affine()).unwrap()).unwrap();
}

// ---- a rule per output ----------------------------------------------------------------

rtriton::kernel! {
    /// Copies `x` to both `y` and `w`.
    pub fn copy_twice(x_ptr: Ptr<f32>, y_ptr: Ptr<f32>, w_ptr: Ptr<f32>, n: i32; const BLOCK: usize) {
        let offs = program_id(0) * BLOCK as i32 + arange(0, BLOCK);
        let mask = offs.lt(n);
        let x = load(x_ptr + offs, Some(mask), Some(0.0));
        store(y_ptr + offs, x, Some(mask));
        store(w_ptr + offs, x, Some(mask));
    }
}

/// `y`'s reference is 2 ulp off at 1e30 (relative 2.4e-7, absolute 2e23: an ulp rule
/// takes it, an absolute one does not); `w`'s is 1e-9 off at 0.0 (absolute 1e-9, a huge
/// number of ulps: an absolute rule takes it, an ulp rule does not).
fn copy_suite() -> Suite {
    let mut x = ramp_f32(20, 1.0, 1.0);
    x[3] = 1e30;
    x[5] = 0.0;
    Suite::new(copy_twice())
        .case(
            Case::new("two_tolerances")
                .input("x", x, View::contiguous(&[20]))
                .output("y", vec![0.0f32; 20], View::contiguous(&[20]))
                .output("w", vec![0.0f32; 20], View::contiguous(&[20]))
                .arg("n", 20)
                .constexpr("BLOCK", 16)
                .grid([2, 1, 1]),
        )
        .reference(|c| {
            for i in 0..20 {
                let x = c.tensor("x").f32_at(&[i]);
                c.tensor_mut("y").set_f32(&[i], x);
                c.tensor_mut("w").set_f32(&[i], x);
            }
            let y3 = c.tensor("y").f32_at(&[3]);
            c.tensor_mut("y").set_f32(&[3], f32::from_bits(y3.to_bits() + 2));
            c.tensor_mut("w").set_f32(&[5], 1e-9);
        })
}

#[test]
fn outputs_that_need_different_tolerances_pass_only_with_a_rule_each() {
    // (suite rule, per-output rules, the outputs that must fail, under which rule and
    // whether the report calls it the output's own)
    type Row = (Rule, &'static [(&'static str, fn() -> Rule)], &'static [(&'static str, fn() -> Rule, bool)]);
    let table: &[Row] = &[
        (Rule::ulps(2), &[], &[("w", || Rule::ulps(2), false)]),
        (Rule::approx(1e-6, 0.0), &[], &[("y", || Rule::approx(1e-6, 0.0), false)]),
        (Rule::BITS, &[("y", || Rule::ulps(2)), ("w", || Rule::approx(1e-6, 0.0))], &[]),
        (Rule::ulps(2), &[("w", || Rule::approx(1e-6, 0.0))], &[]),
        (Rule::approx(1e-6, 0.0), &[("y", || Rule::ulps(2))], &[]),
        // The rules swapped: both outputs fail, each named with its own rule.
        (
            Rule::BITS,
            &[("y", || Rule::approx(1e-6, 0.0)), ("w", || Rule::ulps(2))],
            &[("y", || Rule::approx(1e-6, 0.0), true), ("w", || Rule::ulps(2), true)],
        ),
        // One output's rule, the other failing under the suite's.
        (Rule::BITS, &[("w", || Rule::approx(1e-6, 0.0))], &[("y", || Rule::BITS, false)]),
    ];
    for (row, (rule, own, failing)) in table.iter().enumerate() {
        let suite = own.iter().fold(copy_suite().rule(*rule), |s, (name, r)| s.rule_for(name, r()));
        for backend in [Backend::Interpreter, Backend::Simulator] {
            let result = suite.run("two_tolerances", backend);
            if failing.is_empty() {
                assert!(result.is_ok(), "row {row} on the {backend}: {}", result.unwrap_err());
                continue;
            }
            let failures = result.expect_err("row fails").0;
            // Each failing output once per specialization, against the CPU reference.
            assert_eq!(failures.len(), failing.len() * 2, "row {row}: {}", rtriton_testing::Failures(failures));
            for f in &failures {
                let FailureKind::Mismatch { tensor, rule, own_rule, .. } = &f.what else { panic!("row {row}: {f}") };
                let (_, want_rule, want_own) = failing
                    .iter()
                    .find(|(n, ..)| n == tensor)
                    .unwrap_or_else(|| panic!("row {row}: `{tensor}` failed: {f}"));
                assert_eq!((*rule, *own_rule), (want_rule(), *want_own), "row {row}: {f}");
                let text = f.to_string();
                let whose = if *want_own { format!("the rule for `{tensor}`: ") } else { String::new() };
                let head = format!(
                    "disagrees with the CPU reference on `{tensor}` ({whose}{}): 1 element differs",
                    want_rule()
                );
                assert!(text.contains(&head), "row {row}: {text}");
            }
        }
    }
}

#[test]
fn a_rule_for_an_output_no_case_has_fails_the_run() {
    let failures =
        copy_suite().rule_for("out", Rule::ulps(1)).run("two_tolerances", Backend::Interpreter).unwrap_err().0;
    assert!(matches!(failures[0].what, FailureKind::Setup(_)), "{}", failures[0]);
    assert!(failures[0].to_string().contains("a rule for output `out`, which no case has"), "{}", failures[0]);
}

#[test]
#[should_panic(expected = "the rule for output `y` is set twice")]
fn a_rule_for_one_output_set_twice_is_refused() {
    let _ = copy_suite().rule_for("y", Rule::ulps(1)).rule_for("y", Rule::ulps(2));
}
