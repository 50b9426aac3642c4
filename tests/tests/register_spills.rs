//! A configuration whose compile spills registers is refused at launch (`RT0719`), as
//! Triton's autotuner prunes one that runs out of resources: the driver's compile of the
//! PTX reports the local memory it used, and PTX without `.local` arrays of its own uses
//! local memory only for spilled registers.
//!
//! The kernel keeps twelve blocks live until its last line (every pairwise product is
//! summed), 768 values a thread on one warp: ptxas spills it (checked here), the launch
//! refuses it naming the figures, and with `allow_spills(true)` it runs and gives the
//! sums.

mod ptx_common;

use rtriton::backend::ptx::Arch;
use rtriton::kernel;
use rtriton::prelude::*;

/// Blocks the kernel keeps live at once.
const LIVE: usize = 12;

kernel! {
    /// `y = sum over i, j of x_i * x_j`, the `x_i` being `LIVE` rows of `N`.
    fn all_pairs(x_ptr: Ptr<f32>, y_ptr: Ptr<f32>; const N: usize) {
        let offs = arange(0, N);
        let xs: Vec<Tensor<f32>> = (0..LIVE).map(|i| load(x_ptr + offs + (i * N) as i32, None, None)).collect();
        let mut acc = zeros::<f32>(&[N]);
        for a in &xs {
            for b in &xs {
                acc = acc + *a * *b;
            }
        }
        store(y_ptr + offs, acc, None);
    }
}

/// The row length: 64 values a thread on one warp, under the per-value register budget.
const ROW: usize = 2048;

/// The premise: ptxas spills this kernel on one warp for the targets rtriton emits.
#[test]
#[cfg_attr(not(has_ptxas), ignore = "needs ptxas on PATH")]
fn the_kernel_spills_under_ptxas() {
    let ptxas = ptx_common::ptxas("the_kernel_spills_under_ptxas");
    for (arch, name) in [(Arch::Sm86, "sm_86"), (Arch::Sm90, "sm_90")] {
        let ptx = ptx_common::compile_plain(&all_pairs(), &[("N", ROW as i64)], &ptx_common::options(arch, 1)).unwrap();
        assert!(!ptx.text.contains(".local"), "the PTX declares no local arrays of its own");
        let info = ptx_common::assemble(&ptxas, &ptx.text, name, "all_pairs").unwrap();
        assert!(ptx_common::spill_stores(&info).is_some_and(|b| b > 0), "{name}: {info}");
    }
}

/// On the GPU: refused with `RT0719` before any launch; allowed, it runs and matches the
/// same sums on the CPU.
#[test]
#[ignore = "needs a GPU"]
fn a_spilling_configuration_is_refused_unless_allowed() {
    use rtriton::diag::{Code, HasDiagnostics};
    use rtriton_host::driver::{DeviceBuffer, Gpu};
    use rtriton_host::launch::{Arg, JitKernel, Runtime, TensorArg};

    let gpu = Gpu::open(0).unwrap_or_else(|e| panic!("this test needs a GPU: {e}"));
    let x: Vec<f32> = (0..LIVE * ROW).map(|i| ((i * 7) % 13) as f32 / 8.0 - 0.75).collect();
    let xd = DeviceBuffer::from_host(&gpu, &x).unwrap();
    let yd = DeviceBuffer::<f32>::zeros(&gpu, ROW).unwrap();
    let mut rt = Runtime::with_disk_cache(gpu, None);
    let k = JitKernel::new(all_pairs()).constexpr("N", ROW as i64).num_warps(1);
    let args = || {
        vec![Arg::Tensor(TensorArg::contiguous(&xd, &[LIVE * ROW])), Arg::Tensor(TensorArg::contiguous(&yd, &[ROW]))]
    };
    let e = rt.launch(&k, &args()).expect_err("spills");
    assert_eq!(e.diagnostics()[0].code, Code::LaunchRegisterSpill, "{e}");
    assert!(e.to_string().contains("spills") && e.to_string().contains("allow_spills(true)"), "{e}");
    assert_eq!(rt.launch_count(), 0);

    rt.launch(&k.clone().allow_spills(true), &args()).unwrap();
    let y = yd.to_host(&rt.gpu).unwrap();
    for (c, got) in y.iter().enumerate() {
        let mut acc = 0.0f32;
        for i in 0..LIVE {
            for j in 0..LIVE {
                acc += x[i * ROW + c] * x[j * ROW + c];
            }
        }
        // The back end may contract a product and its sum into one `fma` where the
        // interpreter's rule allows it: within a few f32 ulps of the 144-term sum.
        assert!((got - acc).abs() <= 1e-5 * acc.abs().max(1.0), "column {c}: {got} vs {acc}");
    }
}
