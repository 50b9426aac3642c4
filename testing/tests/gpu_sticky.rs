//! On the GPU: a kernel that faults leaves a sticky error, and the harness refuses every
//! later GPU result in the process instead of reporting stale buffers. Its own test binary,
//! because the fault poisons the CUDA context of the whole process.

use rtriton::prelude::*;
use rtriton_testing::{Backend, Case, FailureKind, RunError, Suite, View};

rtriton::kernel! {
    /// Reads `x[offs * far]` unmasked: with a huge `far` the address leaves the buffer and
    /// the device faults (illegal address).
    pub fn wild_read(x_ptr: Ptr<f32>, y_ptr: Ptr<f32>, far: i32; const BLOCK: usize) {
        let offs = arange(0, BLOCK);
        let x = load(x_ptr + offs.to::<i64>() * far * 65536, None, None);
        store(y_ptr + offs, x, None);
    }
}

fn suite() -> Suite {
    Suite::new(wild_read())
        .case(
            Case::new("wild")
                .input("x", vec![1.0f32; 32], View::contiguous(&[32]))
                .output("y", vec![0.0f32; 32], View::contiguous(&[32]))
                .int(1 << 20)
                .constexpr("BLOCK", 32),
        )
        .case(
            Case::new("tame")
                .input("x", vec![1.0f32; 32], View::contiguous(&[32]))
                .output("y", vec![0.0f32; 32], View::contiguous(&[32]))
                .int(0)
                .constexpr("BLOCK", 32),
        )
        .reference(|case| {
            case.tensor_mut("y").data = vec![1.0f32; 32].into();
        })
}

#[test]
#[ignore = "needs a GPU"]
fn after_a_device_fault_gpu_results_are_refused() {
    let s = suite();
    // On the CPU the same fault is an out-of-bounds load.
    let cpu = s.run("wild", Backend::Interpreter).expect_err("the interpreter catches it").0;
    assert!(matches!(cpu[0].what, FailureKind::Error(RunError::Interpreter(_))), "{}", cpu[0]);
    s.check("tame", Backend::Gpu);
    let gpu = s.run("wild", Backend::Gpu).expect_err("the device faults").0;
    assert!(matches!(gpu[0].what, FailureKind::Error(RunError::StickyDriverError(_))), "{}", gpu[0]);
    // A correct kernel afterwards is refused, not reported as passing.
    let after = s.run("tame", Backend::Gpu).expect_err("refused after the fault").0;
    let report = after[0].to_string();
    assert!(report.contains("gpu results refused") && report.contains("an earlier launch"), "{report}");
}
