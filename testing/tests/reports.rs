//! What a failure report says: a reference that disagrees with the kernel on one element
//! shows the element's view index, both values with their bits, the ULP distance and (on
//! the simulator) the program and thread that stored it; a GPU run without a GPU fails.

use rtriton::prelude::*;
use rtriton_testing::{Backend, Case, FailureKind, Rule, RunError, Suite, View};

rtriton::kernel! {
    pub fn double(x_ptr: Ptr<f32>, y_ptr: Ptr<f32>, n: i32; const BLOCK: usize) {
        let offs = program_id(0) * BLOCK as i32 + arange(0, BLOCK);
        let mask = offs.lt(n);
        let x = load(x_ptr + offs, Some(mask), Some(0.0));
        store(y_ptr + offs, x + x, Some(mask));
    }
}

/// 40 elements in blocks of 16 (three programs), `y` seen transposed as 8 x 5 so view
/// indices differ from buffer elements; the reference is wrong at element 37 on purpose.
fn suite(rule: Rule) -> Suite {
    Suite::new(double())
        .case(
            Case::new("off_at_37")
                .input("x", rtriton_testing::fill::ramp_f32(40, 1.0, 1.0), View::contiguous(&[40]))
                .output("y", vec![0.0f32; 40], View::contiguous(&[5, 8]).transposed(0, 1))
                .int(40)
                .constexpr("BLOCK", 16)
                .grid([3, 1, 1]),
        )
        .reference(|case| {
            let x = case.tensor("x").data.as_f32().unwrap().to_vec();
            let y = case.tensor_mut("y").data.as_f32_mut().unwrap();
            for (i, v) in x.iter().enumerate() {
                y[i] = v + v;
            }
            y[37] = f32::from_bits(y[37].to_bits() + 3);
        })
        .rule(rule)
}

#[test]
fn a_mismatch_names_the_index_the_bits_the_ulps_and_the_writer() {
    let failures = suite(Rule::BITS).run("off_at_37", Backend::Simulator).expect_err("element 37 differs").0;
    assert_eq!(failures.len(), 2, "both specializations");
    let report = failures[0].to_string();
    // Buffer element 37 of the transposed 8 x 5 view of a 5 x 8 buffer is y[5][4].
    let want = "  y[5, 4] (buffer element 37): got 76.0 (0x42980000), expected 76.00002 (0x42980003), 3 ulp apart, stored by program (2, 0, 0) thread 5";
    assert!(report.contains(want), "{report}");
    assert!(
        report.contains("disagrees with the CPU reference on `y` (bit-exact, NaN bits must match): 1 element differs"),
        "{report}"
    );
    assert!(report.contains("kernel `double` on the simulator (specialization on)"), "{report}");
    assert!(report.contains("specialization key: x_ptr:*f32:D16"), "{report}");
    assert!(failures[1].to_string().contains("(specialization off)"));
}

#[test]
fn an_ulp_bound_accepts_what_it_should_and_no_more() {
    suite(Rule::ulps(3)).check("off_at_37", Backend::Interpreter);
    let failures = suite(Rule::ulps(2)).run("off_at_37", Backend::Interpreter).expect_err("3 ulp > 2").0;
    let report = failures[0].to_string();
    assert!(report.contains("within 2 ulp") && report.contains("3 ulp apart"), "{report}");
    // The interpreter keeps no writer map; the harness asks the simulator who stores it.
    assert!(report.contains("stored by program (2, 0, 0) thread 5"), "{report}");
}

#[test]
fn a_view_outside_its_buffer_is_refused_with_the_tensor_named() {
    let suite = Suite::new(double()).case(
        Case::new("short")
            .input("x", vec![0.0f32; 10], View::contiguous(&[10]).with_offset(1))
            .output("y", vec![0.0f32; 10], View::contiguous(&[10]))
            .int(10)
            .constexpr("BLOCK", 16),
    );
    let failures = suite.run("short", Backend::Interpreter).expect_err("x reaches element 10").0;
    let FailureKind::Error(RunError::Case(e)) = &failures[0].what else { panic!("{}", failures[0]) };
    assert!(e.contains("tensor `x`") && e.contains("allocate at least 11"), "{e}");
}

#[test]
fn a_gpu_run_without_a_gpu_fails_instead_of_passing() {
    let suite = suite(Rule::ulps(3));
    match suite.run("off_at_37", Backend::Gpu) {
        Ok(()) => assert!(rtriton_runtime::driver::Gpu::open(0).is_ok(), "passed without a GPU"),
        Err(f) => {
            let FailureKind::Error(RunError::Gpu(e)) = &f.0[0].what else { panic!("{f}") };
            assert!(e.is_no_gpu(), "{e}");
        }
    }
}
