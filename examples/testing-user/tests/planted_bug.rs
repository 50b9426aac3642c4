//! The planted bug (`scaled_add_off_by_one`: `offs <= n`) is caught on the interpreter and
//! on the simulator, and the report names the element, the program and the line.

mod common;

use rtriton::diag::{Code, HasDiagnostics};
use rtriton_testing::{Backend, FailureKind, RunError};

/// Line of `let mask = offs.le(n);` in src/lib.rs (the op that lets element `n` through is
/// the load that uses the mask, two lines below).
fn bad_load_line() -> u32 {
    let src = include_str!("../src/lib.rs");
    let mask_line = src.lines().position(|l| l.contains("offs.le(n)")).expect("the planted mask") as u32 + 1;
    mask_line + 2
}

#[test]
fn the_interpreter_names_the_element_the_program_and_the_line() {
    let suite = common::suite_of(testing_user::scaled_add_off_by_one());
    let failures = suite.run("tail_1000", Backend::Interpreter).expect_err("the planted bug must be caught").0;
    assert_eq!(failures.len(), 2, "both specializations fail");
    for f in &failures {
        let FailureKind::Error(e @ RunError::Interpreter(_)) = &f.what else {
            panic!("an interpreter fault, got: {f}")
        };
        assert!(e.has_code(Code::InterpOutOfBounds), "{f}");
        let report = f.to_string();
        // 1000 elements in blocks of 128: the last program is 7 and reads element 1000.
        assert!(report.contains("program (7, 0, 0)"), "{report}");
        // The interpreter names the block element (lane 104); the harness adds which tensor
        // element that address is.
        assert!(report.contains("element [104]"), "{report}");
        assert!(report.contains("element 1000 of `x` (a buffer of 1000 f32), 1 past its last element"), "{report}");
        assert!(report.contains(&format!("lib.rs:{}", bad_load_line())), "{report}");
        assert!(report.contains("case `tail_1000`") && report.contains("specialization key"), "{report}");
    }
}

#[test]
fn the_simulator_names_the_instruction_the_program_and_the_line() {
    let suite = common::suite_of(testing_user::scaled_add_off_by_one());
    let failures = suite.run("tail_1000", Backend::Simulator).expect_err("the planted bug must be caught").0;
    assert_eq!(failures.len(), 2, "both specializations fail");
    for f in &failures {
        let FailureKind::Error(RunError::Simulator(e)) = &f.what else { panic!("a simulator finding, got: {f}") };
        assert!(e.has_code(Code::SimOutOfBounds), "{f}");
        assert_eq!(e.0.program, Some([7, 0, 0]), "{f}");
        let report = f.to_string();
        assert!(report.contains("ld.global"), "the failing PTX instruction: {report}");
        assert!(report.contains(&format!("lib.rs:{}", bad_load_line())), "{report}");
        assert!(report.contains("element 1000 of `x` (a buffer of 1000 f32), 1 past its last element"), "{report}");
    }
}

#[test]
fn the_correct_kernel_passes_the_same_case() {
    let suite = common::suite_of(testing_user::scaled_add());
    for backend in [Backend::Interpreter, Backend::Simulator] {
        if let Err(f) = suite.run("tail_1000", backend) {
            panic!("{f}");
        }
    }
}
