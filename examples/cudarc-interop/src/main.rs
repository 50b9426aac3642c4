//! `cargo run -p cudarc-interop`: plain cudarc allocates and fills two vectors on its own
//! stream; rtriton computes `y = 2x + y` on them in place, then replays the same launch
//! ten times as a CUDA graph; cudarc reads the result back.

use std::process::ExitCode;

use cudarc::driver::CudaContext;
use cudarc_interop::{axpy_graph, axpy_on};
use rtriton_runtime::driver::driver_present;
use rtriton_runtime::launch::Runtime;

fn main() -> ExitCode {
    if let Err(e) = driver_present() {
        eprintln!("{e}");
        return ExitCode::from(2);
    }
    match run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    }
}

fn run() -> Result<(), Box<dyn std::error::Error>> {
    // The caller's cudarc world: a context, a stream of its own, two buffers.
    let ctx = CudaContext::new(0)?;
    let stream = ctx.new_stream()?;
    let n = 3000;
    let x = stream.clone_htod(&(0..n).map(|i| i as f32).collect::<Vec<_>>())?;
    let mut y = stream.clone_htod(&vec![1.0f32; n])?;

    // rtriton on the same context and stream: no copy of x or y.
    let mut rt = Runtime::from_cudarc(ctx, stream.clone())?;
    axpy_on(&mut rt, &stream, &x, &mut y, 2.0)?;
    let graph_stream = rt.gpu.context().new_stream()?;
    graph_stream.join(&stream)?;
    let graph = axpy_graph(&mut rt, &graph_stream, &x, &mut y, 2.0, 10)?;
    graph.replay()?;
    stream.join(&graph_stream)?;
    let y = stream.clone_dtoh(&y)?;
    println!("y[0..4] = {:?} (expected 1 + 22 * i: [1.0, 23.0, 45.0, 67.0])", &y[..4]);
    Ok(())
}
