//! A suite cannot pass without checking: a case with no output, a suite with no policy, a
//! case name used twice, a constexpr set twice and an unknown case name are errors with
//! a clear message; a simulator result that could not be compared with the interpreter
//! (the interpreter could not run the case) fails, unless the case declares the
//! interpreter unsupported, with a reason.

use rtriton::prelude::*;
use rtriton::spec::SpecPolicy;
use rtriton_testing::{Backend, Case, FailureKind, Suite, View};

rtriton::kernel! {
    pub fn double(x_ptr: Ptr<f32>, y_ptr: Ptr<f32>, n: i32; const BLOCK: usize) {
        let offs = program_id(0) * BLOCK as i32 + arange(0, BLOCK);
        let mask = offs.lt(n);
        let x = load(x_ptr + offs, Some(mask), Some(0.0));
        store(y_ptr + offs, x + x, Some(mask));
    }
}

rtriton::kernel! {
    /// `double` with a promise (`n` a multiple of 16) that the cases below break: the
    /// interpreter checks the promise and stops (`RT0408`), the simulator does not and
    /// computes the right values.
    pub fn promised(x_ptr: Ptr<f32>, y_ptr: Ptr<f32>, n: i32; const BLOCK: usize) {
        let n = multiple_of(n, 16);
        let offs = program_id(0) * BLOCK as i32 + arange(0, BLOCK);
        let mask = offs.lt(n);
        let x = load(x_ptr + offs, Some(mask), Some(0.0));
        store(y_ptr + offs, x + x, Some(mask));
    }
}

fn case(name: &str) -> Case {
    Case::new(name)
        .input("x", rtriton_testing::fill::ramp_f32(40, 1.0, 1.0), View::contiguous(&[40]))
        .output("y", vec![0.0f32; 40], View::contiguous(&[40]))
        .int(40)
        .constexpr("BLOCK", 16)
        .grid([3, 1, 1])
}

fn reference(c: &mut Case) {
    let x = c.tensor("x").data.as_f32().unwrap().to_vec();
    let y = c.tensor_mut("y").data.as_f32_mut().unwrap();
    for (i, v) in x.iter().enumerate() {
        y[i] = v + v;
    }
}

#[test]
#[should_panic(expected = "case `no_output` has no output tensor, so nothing would be checked")]
fn a_case_without_an_output_is_refused() {
    let c = Case::new("no_output").input("x", vec![0.0f32; 40], View::contiguous(&[40])).int(40).constexpr("BLOCK", 16);
    let _ = Suite::new(double()).case(c);
}

#[test]
#[should_panic(expected = ".policies(&[]) would run no case at all and pass")]
fn a_suite_without_a_policy_is_refused() {
    let _ = Suite::new(double()).case(case("a")).policies(&[]);
}

#[test]
#[should_panic(expected = "case name `twice` is used twice; only the first would ever run")]
fn a_case_name_used_twice_is_refused() {
    let _ = Suite::new(double()).cases([case("twice"), case("twice").num_warps(8)]);
}

#[test]
#[should_panic(expected = "case `c`: constexpr `BLOCK` is set twice (16, then 64)")]
fn a_constexpr_set_twice_is_refused() {
    let _ = case("c").constexpr("BLOCK", 64);
}

/// The same when the constexprs are written directly (the field is public).
#[test]
fn a_constexpr_list_with_a_repeat_fails_the_case() {
    let mut c = case("direct");
    c.constexprs.push(("BLOCK", 64));
    let mut suite = Suite::new(double()).reference(reference);
    suite.cases.push(c);
    let f = suite.run("direct", Backend::Interpreter).expect_err("BLOCK is set twice").to_string();
    assert!(f.contains("constexpr `BLOCK` is set twice (16, then 64)"), "{f}");
    // A case without an output pushed the same way fails instead of passing.
    let mut suite = Suite::new(double()).reference(reference);
    suite.cases.push(Case::new("bare").input("x", vec![0.0f32; 4], View::contiguous(&[4])).int(4));
    let f = suite.run("bare", Backend::Simulator).expect_err("nothing to check").to_string();
    assert!(f.contains("has no output tensor"), "{f}");
}

/// A tensor named like another would be found instead of it by the reference.
#[test]
fn two_tensors_of_one_name_are_refused() {
    let c = case("same_name").output("x", vec![0.0f32; 4], View::contiguous(&[4]));
    assert!(c.check().unwrap_err().contains("two tensors are named `x`"));
}

#[test]
fn an_unknown_case_is_an_error_naming_the_choices() {
    let suite = Suite::new(double()).cases([case("first"), case("second")]).reference(reference);
    let f = suite.run("nosuch", Backend::Simulator).expect_err("no such case");
    assert!(matches!(f.0[0].what, FailureKind::Setup(_)), "{f}");
    assert_eq!(
        f.to_string().trim(),
        "kernel `double`, case `nosuch` on the simulator: the suite has no case `nosuch`; its cases are: first, second"
    );
    suite.check_all(Backend::Interpreter);
}

/// The simulator agrees with the reference, but the interpreter cannot run the case:
/// once a silent pass, now a failure saying so, unless the case declares it.
#[test]
fn a_simulator_result_the_interpreter_could_not_check_fails_unless_declared() {
    let suite = Suite::new(promised()).case(case("broken_promise")).reference(reference).policies(&[SpecPolicy::Off]);
    let f = suite.run("broken_promise", Backend::Simulator).expect_err("the interpreter could not run it");
    let FailureKind::Unchecked { against, why } = &f.0[0].what else { panic!("{f}") };
    assert_eq!(*against, "the interpreter");
    assert!(why.contains("multiple_of promised multiples of 16"), "{why}");
    assert!(f.to_string().contains("Case::unsupported(Backend::Interpreter, reason)"), "{f}");
    // The interpreter's own run fails too (it cannot run the case).
    assert!(suite.run("broken_promise", Backend::Interpreter).is_err());
    let declared = Suite::new(promised())
        .case(
            case("broken_promise")
                .unsupported(Backend::Interpreter, "the case breaks the multiple_of promise on purpose"),
        )
        .reference(reference)
        .policies(&[SpecPolicy::Off]);
    declared.check("broken_promise", Backend::Simulator);
    declared.check("broken_promise", Backend::Interpreter);
}
