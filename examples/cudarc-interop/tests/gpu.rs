//! The example on a GPU: rtriton computes on cudarc's slices in place, on the caller's
//! stream, bit for bit what the same arithmetic gives on the host; a graph replay equals
//! the direct launches it captured; misuse is refused with its code.

use cudarc::driver::CudaContext;
use cudarc_interop::{axpy_graph, axpy_kernel, axpy_on};
use rtriton::diag::Code;
use rtriton_runtime::HostError;
use rtriton_runtime::launch::{Arg, Runtime, TensorArg};

/// Small integers times 2 plus small integers: every intermediate is exact in f32, so the
/// expected values do not depend on whether the kernel fuses the multiply and add.
fn inputs(n: usize) -> (Vec<f32>, Vec<f32>) {
    ((0..n).map(|i| (i % 1000) as f32).collect(), (0..n).map(|i| (i % 7) as f32).collect())
}

#[test]
#[ignore = "needs a GPU"]
fn rtriton_computes_in_place_on_a_cudarc_slice_on_the_callers_stream() {
    let ctx = CudaContext::new(0).unwrap();
    let stream = ctx.new_stream().unwrap();
    let n = 5000; // not a multiple of PROGRAM_ELEMENTS: the last program is masked
    let (hx, hy) = inputs(n);
    let x = stream.clone_htod(&hx).unwrap();
    let mut y = stream.clone_htod(&hy).unwrap();
    let mut rt = Runtime::from_cudarc(ctx, stream.clone()).unwrap();
    axpy_on(&mut rt, &stream, &x, &mut y, 2.0).unwrap();
    axpy_on(&mut rt, &stream, &x, &mut y, 2.0).unwrap();
    let got = stream.clone_dtoh(&y).unwrap();
    let want: Vec<f32> = hx.iter().zip(&hy).map(|(x, y)| y + 4.0 * x).collect();
    assert_eq!(
        got.iter().map(|v| v.to_bits()).collect::<Vec<_>>(),
        want.iter().map(|v| v.to_bits()).collect::<Vec<_>>()
    );
    // The second launch took the fast path: one compile, one prepared launch reused.
    assert_eq!(rt.stats.compiles + rt.stats.disk_hits, 1, "{:?}", rt.stats);
    assert!(rt.stats.memory_hits >= 1, "{:?}", rt.stats);
}

#[test]
#[ignore = "needs a GPU"]
fn a_graph_replay_equals_the_direct_launches_it_captured() {
    let ctx = CudaContext::new(0).unwrap();
    let stream = ctx.new_stream().unwrap();
    let n = 3000;
    let (hx, hy) = inputs(n);
    let x = stream.clone_htod(&hx).unwrap();
    let mut direct = stream.clone_htod(&hy).unwrap();
    let mut replayed = stream.clone_htod(&hy).unwrap();
    let mut rt = Runtime::from_cudarc(ctx, stream.clone()).unwrap();
    for _ in 0..20 {
        axpy_on(&mut rt, &stream, &x, &mut direct, 2.0).unwrap();
    }
    // 10 launches a graph, replayed twice: 20 launches' worth.
    let graph = axpy_graph(&mut rt, &stream, &x, &mut replayed, 2.0, 10).unwrap();
    assert_eq!(graph.launches(), 10);
    graph.replay().unwrap();
    graph.replay().unwrap();
    graph.synchronize().unwrap();
    let (d, r) = (stream.clone_dtoh(&direct).unwrap(), stream.clone_dtoh(&replayed).unwrap());
    let want: Vec<f32> = hx.iter().zip(&hy).map(|(x, y)| y + 40.0 * x).collect();
    assert_eq!(d, want);
    assert_eq!(r.iter().map(|v| v.to_bits()).collect::<Vec<_>>(), d.iter().map(|v| v.to_bits()).collect::<Vec<_>>());
}

#[test]
#[ignore = "needs a GPU"]
fn misuse_is_refused_with_its_code() {
    let ctx = CudaContext::new(0).unwrap();
    let stream = ctx.new_stream().unwrap();
    let other = ctx.new_stream().unwrap();
    let x = stream.clone_htod(&[1.0f32; 64]).unwrap();
    let mut y = stream.clone_htod(&[0.0f32; 64]).unwrap();
    let mut rt = Runtime::from_cudarc(ctx.clone(), stream.clone()).unwrap();
    let code = |e: HostError| match e {
        HostError::Launch(l) => l.code(),
        e => panic!("not a launch refusal: {e}"),
    };
    // A view bound to one stream, launched on another.
    let args = [
        TensorArg::cuda(&x, &stream, &[64], &[1]).into(),
        TensorArg::cuda_mut(&mut y, &stream, &[64], &[1]).into(),
        Arg::Int(64),
        Arg::F32(1.0),
    ];
    let e = rt.launch_on(&other, &axpy_kernel(64), &args).unwrap_err();
    assert!(e.to_string().contains("whose use was ordered on stream"), "{e}");
    assert_eq!(code(e), Code::LaunchStreamMismatch);
    drop(args);
    // A view past the end of the slice.
    let args = [
        TensorArg::cuda(&x, &stream, &[65], &[1]).into(),
        TensorArg::cuda_mut(&mut y, &stream, &[64], &[1]).into(),
        Arg::Int(64),
        Arg::F32(1.0),
    ];
    let e = rt.launch_on(&stream, &axpy_kernel(64), &args).unwrap_err();
    assert_eq!(code(e), Code::LaunchViewOutOfBounds);
    drop(args);
    // The legacy default stream cannot be captured.
    let legacy = ctx.default_stream();
    let e = rt.capture(&legacy, |_, _| Ok(())).unwrap_err();
    assert_eq!(code(e), Code::LaunchStreamContext);
    // A capture that records nothing says so.
    let e = rt.capture(&stream, |_, _| Ok(())).unwrap_err();
    assert!(e.to_string().contains("the capture recorded no launch"), "{e}");
    // A raw pointer the caller vouches for, checked against its byte length.
    let (ptr, _sync) = cudarc::driver::DevicePtr::device_ptr(&x, &stream);
    // SAFETY: `x` is 64 f32 of this context, alive until the end of the test; the launch
    // is refused before it reads anything.
    let raw = unsafe { TensorArg::from_device_ptr::<f32>(ptr, 64 * 4, &[128], &[1]) };
    let args = [raw.into(), TensorArg::cuda_mut(&mut y, &stream, &[64], &[1]).into(), Arg::Int(64), Arg::F32(1.0)];
    let e = rt.launch_on(&stream, &axpy_kernel(64), &args).unwrap_err();
    assert_eq!(code(e), Code::LaunchViewOutOfBounds);
}
