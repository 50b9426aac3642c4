//! rtriton inside a cudarc program. The caller owns the context, the stream and the
//! buffers (as candle's and burn's CUDA back ends do, both built on cudarc); rtriton
//! launches on that stream and reads and writes those buffers in place:
//!
//! - [`Runtime::from_cudarc`] makes a runtime on the caller's context and stream;
//! - [`TensorArg::cuda`] / [`TensorArg::cuda_mut`] borrow a `CudaSlice` (or a view of one)
//!   as a kernel argument, taking part in cudarc's stream ordering;
//! - [`Runtime::capture`] records launches into a CUDA graph to replay.
//!
//! `src/main.rs` runs it; `tests/gpu.rs` checks it on a GPU.

use std::sync::Arc;

use cudarc::driver::{CudaSlice, CudaStream};
use rtriton::kernel;
use rtriton::prelude::*;
use rtriton_runtime::HostError;
use rtriton_runtime::launch::{Arg, JitKernel, LaunchGraph, Runtime, TensorArg};

/// Elements one program handles.
pub const PROGRAM_ELEMENTS: usize = 1024;

kernel! {
    /// `y[i] = alpha * x[i] + y[i]` for `i < n`, one program per `BLOCK` elements.
    pub fn axpy(x_ptr: Ptr<f32>, y_ptr: Ptr<f32>, n: i32, alpha: f32; const BLOCK: usize) {
        let offs = program_id(0) * BLOCK as i32 + arange(0, BLOCK);
        let mask = offs.lt(n);
        let x = load(x_ptr + offs, Some(mask), Some(0.0));
        let y = load(y_ptr + offs, Some(mask), Some(0.0));
        store(y_ptr + offs, x * alpha + y, Some(mask));
    }
}

/// The launch configuration for `n` elements: `y` is read and written by the same program
/// (declared in place, so the overlap check lets `y` be both).
pub fn axpy_kernel(n: usize) -> JitKernel {
    let programs = n.div_ceil(PROGRAM_ELEMENTS) as u64;
    JitKernel::new(axpy()).constexpr("BLOCK", PROGRAM_ELEMENTS as i64).in_place("y_ptr").grid(move |_| [programs, 1, 1])
}

/// `axpy`'s arguments: `x` read and `y` written, both whole slices, their uses ordered on
/// `stream`.
pub fn axpy_args<'a>(
    stream: &'a CudaStream,
    x: &'a CudaSlice<f32>,
    y: &'a mut CudaSlice<f32>,
    alpha: f32,
) -> [Arg<'a>; 4] {
    let n = x.len();
    [
        TensorArg::cuda(x, stream, &[n], &[1]).into(),
        TensorArg::cuda_mut(y, stream, &[n], &[1]).into(),
        Arg::Int(n as i64),
        Arg::F32(alpha),
    ]
}

/// `y = alpha * x + y` on the caller's slices, enqueued on `stream`.
pub fn axpy_on(
    rt: &mut Runtime,
    stream: &Arc<CudaStream>,
    x: &CudaSlice<f32>,
    y: &mut CudaSlice<f32>,
    alpha: f32,
) -> Result<(), HostError> {
    let args = axpy_args(stream, x, y, alpha);
    rt.launch_on(stream, &axpy_kernel(x.len()), &args)?;
    Ok(())
}

/// `times` launches of `y = alpha * x + y` captured into one graph on `stream` (not the
/// legacy default stream). The views are made before the capture and dropped after it:
/// cudarc's event waits and records for them then happen outside the capture, as they
/// must (an event recorded inside a capture cannot be waited on outside it).
pub fn axpy_graph(
    rt: &mut Runtime,
    stream: &Arc<CudaStream>,
    x: &CudaSlice<f32>,
    y: &mut CudaSlice<f32>,
    alpha: f32,
    times: usize,
) -> Result<LaunchGraph, HostError> {
    let kernel = axpy_kernel(x.len());
    let args = axpy_args(stream, x, y, alpha);
    // Compile and load before capturing, so the graph holds launches only.
    rt.prepare(&kernel, &args)?;
    let graph = rt.capture(stream, |rt, s| {
        for _ in 0..times {
            rt.launch_on(s, &kernel, &args)?;
        }
        Ok(())
    });
    drop(args);
    graph
}
