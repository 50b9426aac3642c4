//! The debugging ops on the GPU in debug mode: `device_print` through CUDA's `vprintf`,
//! `device_assert` through `__assertfail` (`docs/semantics.md`, "Debugging ops").
//!
//! Each test runs its kernel in a child process, this test binary run again with the
//! test's name, `--exact` and [`CHILD`] set: the driver writes `vprintf`'s lines to the
//! process's standard output when the host synchronizes, past the test harness's capture,
//! and prints a failed assertion on standard error and leaves the process's context
//! unusable. The parent reads the child's output; it needs no GPU itself, but both roles
//! are `#[ignore = "needs a GPU"]`: run them with `cargo test -p rtriton-tests --test
//! debug_ops_gpu -- --include-ignored` on a GPU machine.

use std::process::{Command, Output};

use rtriton::interp::Memory;
use rtriton::kernel;
use rtriton::prelude::*;
use rtriton::print_sink::capture_prints;
use rtriton::session::CompileSession;
use rtriton::spec::{ArgValue, SpecPolicy};
use rtriton_host::HostError;
use rtriton_host::driver::{DeviceBuffer, Gpu};
use rtriton_host::launch::{Arg, JitKernel, Runtime, TensorArg};

/// Set in the child process: the test launches its kernel instead of spawning a child.
const CHILD: &str = "RTRITON_DEBUG_OPS_GPU_CHILD";

/// The line of this file that holds `marker` (written once in a kernel, once in a test).
fn line_of(marker: &str) -> u32 {
    let src = include_str!("debug_ops_gpu.rs");
    let hits: Vec<usize> = src.lines().enumerate().filter(|(_, l)| l.contains(marker)).map(|(i, _)| i + 1).collect();
    assert!(hits.len() >= 2, "`{marker}` is written in a kernel and in a test");
    hits[0] as u32
}

/// Runs `test` of this binary in a child process with [`CHILD`] set.
fn child(test: &str) -> Output {
    let exe = std::env::current_exe().expect("the test binary's path");
    Command::new(exe)
        .args([test, "--exact", "--include-ignored", "--nocapture", "--test-threads=1"])
        .env(CHILD, "1")
        .output()
        .expect("the test binary runs again")
}

fn in_child() -> bool {
    std::env::var_os(CHILD).is_some()
}

/// A runtime on device 0 without the disk cache (the child's compile stays its own).
fn runtime() -> Runtime {
    let gpu = Gpu::open(0).unwrap_or_else(|e| panic!("this test needs a GPU (run it on the GPU machine): {e}"));
    Runtime::with_disk_cache(gpu, None)
}

/// The printed tile's shape.
const ROWS: usize = 4;
const COLS: usize = 16;

kernel! {
    /// Prints a tile of `x` as f32, f16, i32 and i1, and the program id.
    fn prints_a_tile(x_ptr: Ptr<f32>; const M: usize, const N: usize) {
        let r = arange(0, M).expand_dims(1);
        let c = arange(0, N).expand_dims(0);
        let offs = r * N as i32 + c;
        let x = load(x_ptr + offs, None, None);
        device_print("x", x);
        device_print("as", (x.to::<half::f16>(), x.to::<i32>(), x.gt(0.0)));
        device_print("pid", program_id(0));
    }
}

/// The tile: NaNs of both signs, infinities, signed zeros, large and small values.
fn tile() -> Vec<f32> {
    (0..ROWS * COLS)
        .map(|i| match i {
            0 => f32::NAN,
            1 => -f32::NAN,
            2 => f32::INFINITY,
            3 => f32::NEG_INFINITY,
            4 => -0.0,
            5 => 1e30,
            6 => 1e-30,
            i => (i as f32 - 20.0) * 0.37,
        })
        .collect()
}

/// The lines of every `vprintf` in `stdout` (the harness's own words may share a line
/// with the first).
fn printed_lines(stdout: &[u8]) -> Vec<String> {
    let text = String::from_utf8_lossy(stdout);
    let mut lines: Vec<String> = text.lines().filter_map(|l| l.find("pid (").map(|at| l[at..].to_string())).collect();
    lines.sort();
    lines
}

/// `device_print` in debug mode prints, on the GPU, exactly the interpreter's lines (in
/// another order): Triton's format, each element once, floats as C's `%f` prints them.
#[test]
#[ignore = "needs a GPU"]
fn device_print_prints_the_interpreters_lines_on_the_gpu() {
    let xs = tile();
    let kernel = || JitKernel::new(prints_a_tile()).constexpr("M", ROWS as i64).constexpr("N", COLS as i64);
    if in_child() {
        let mut rt = runtime();
        let x = DeviceBuffer::from_host(&rt.gpu, &xs).unwrap();
        let k = kernel().debug(true).grid(|_| [2, 1, 1]);
        rt.launch(&k, &[Arg::Tensor(TensorArg::contiguous(&x, &[ROWS * COLS]))]).unwrap_or_else(|e| panic!("{e}"));
        rt.gpu.synchronize().unwrap_or_else(|e| panic!("{e}"));
        // Without debug mode the same launch prints nothing.
        rt.launch(&kernel().grid(|_| [2, 1, 1]), &[Arg::Tensor(TensorArg::contiguous(&x, &[ROWS * COLS]))]).unwrap();
        rt.gpu.synchronize().unwrap();
        return;
    }
    let out = child("device_print_prints_the_interpreters_lines_on_the_gpu");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "the child failed:\n{stderr}");
    let gpu = printed_lines(&out.stdout);

    let mut mem = Memory::new();
    let args = [ArgValue::Ptr(mem.alloc_f32(&xs))];
    let (r, mut interp) = capture_prints(|| {
        CompileSession::new().interpret(
            &prints_a_tile(),
            &[("M", ROWS as i64), ("N", COLS as i64)],
            &args,
            SpecPolicy::Triton,
            [2, 1, 1],
            &mut mem,
        )
    });
    r.unwrap_or_else(|e| panic!("{e}"));
    interp.sort();
    assert_eq!(interp.len(), 2 * (4 * ROWS * COLS + 1));
    assert!(interp.contains(&"pid (0, 0, 0) idx (0,  1) x: -nan".to_string()), "{interp:#?}");
    assert_eq!(gpu, interp, "the GPU's lines (left) differ from the interpreter's (right)");
}

kernel! {
    /// Copies `x` to `y`, asserting each element is below `limit`.
    fn asserts_below(x_ptr: Ptr<i32>, y_ptr: Ptr<i32>, limit: i32; const BLOCK: usize) {
        let offs = program_id(0) * BLOCK as i32 + arange(0, BLOCK);
        let x = load(x_ptr + offs, None, None);
        device_assert(x.lt(limit), "x below limit"); // @device_assert
        store(y_ptr + offs, x, None);
    }
}

/// A `device_assert` that fails on the GPU: the driver prints the assertion's file:line,
/// kernel and message on standard error, and the runtime's error is `RT0718`, sticky.
#[test]
#[ignore = "needs a GPU"]
fn a_failed_device_assert_names_its_line_on_the_gpu() {
    const BLOCK: usize = 128;
    if in_child() {
        let mut rt = runtime();
        // One element is not below the limit: element 37 of program 1, held by thread 37.
        let mut xs = vec![0i32; 2 * BLOCK];
        xs[BLOCK + 37] = 100;
        let x = DeviceBuffer::from_host(&rt.gpu, &xs).unwrap();
        let y = DeviceBuffer::<i32>::zeros(&rt.gpu, 2 * BLOCK).unwrap();
        let k = JitKernel::new(asserts_below()).constexpr("BLOCK", BLOCK as i64).debug(true).grid(|_| [2, 1, 1]);
        let args = [
            Arg::Tensor(TensorArg::contiguous(&x, &[2 * BLOCK])),
            Arg::Tensor(TensorArg::contiguous(&y, &[2 * BLOCK])),
            Arg::Int(100),
        ];
        let launched = rt.launch(&k, &args).and_then(|_| rt.gpu.synchronize());
        let e = launched.expect_err("the assertion fails");
        assert!(matches!(e, HostError::DeviceAssert { .. }), "{e}");
        assert!(e.is_context_poisoned());
        eprintln!("host error: {e}");
        return;
    }
    let out = child("a_failed_device_assert_names_its_line_on_the_gpu");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "the child failed:\n{stderr}");
    let line = line_of("@device_assert");
    let driver = format!(
        "tests/tests/debug_ops_gpu.rs:{line}: asserts_below: block: [1,0,0], thread: [37,0,0] Assertion `x below limit` failed."
    );
    assert!(stderr.contains(&driver), "{driver:?} not on the child's stderr:\n{stderr}");
    assert!(stderr.contains("host error: a device_assert failed on the GPU"), "{stderr}");
    assert!(stderr.contains("CUDA_ERROR_ASSERT (RT0718)"), "{stderr}");
}
