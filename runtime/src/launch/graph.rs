//! CUDA graphs of rtriton launches: a sequence of launches captured on a stream
//! (`cuStreamBeginCapture` ... `cuStreamEndCapture`, `cuGraphInstantiate`) and replayed
//! with one `cuGraphLaunch`, which costs the host less per kernel than launching each.
//!
//! What a replay may change: nothing. The graph holds each launch as it was captured: the
//! kernel, grid, and every argument's value (tensor addresses, integers, floats). A replay
//! reads and writes the same memory, so new inputs are written into the captured buffers
//! before a replay, and the buffers must stay allocated while the graph lives. For other
//! arguments (another shape, another buffer), capture again: the captured launches went
//! through the runtime's usual checks, a re-capture checks the new ones the same way
//! (patching kernel nodes in place with `cuGraphExecKernelNodeSetParams` would skip
//! them).
//!
//! Views of cudarc allocations ([`TensorArg::cuda`](super::TensorArg::cuda)) are made
//! before the capture and dropped after it: making one waits on cudarc's events and
//! dropping it records one, and an event recorded inside a capture cannot be waited on
//! outside it (`CUDA_ERROR_CAPTURED_EVENT` on the slice's next use). The events do not
//! cover later replays: order a buffer's next use after a replay yourself
//! ([`LaunchGraph::synchronize`], or `stream.join(graph.stream())` in cudarc).

use std::sync::Arc;

use cudarc::driver::sys::{CUgraphInstantiate_flags, CUstreamCaptureMode};
use cudarc::driver::{CudaGraph, CudaStream};

use super::{LaunchError, Runtime};
use crate::error::HostError;

/// An instantiated CUDA graph of captured launches.
pub struct LaunchGraph {
    graph: CudaGraph,
    stream: Arc<CudaStream>,
    launches: u64,
}

impl std::fmt::Debug for LaunchGraph {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LaunchGraph").field("launches", &self.launches).finish_non_exhaustive()
    }
}

impl LaunchGraph {
    /// Enqueues one replay of every captured launch on the capture stream. Does not wait.
    pub fn replay(&self) -> Result<(), HostError> {
        self.graph.launch().map_err(HostError::driver("cuGraphLaunch"))
    }

    /// Uploads the graph to the device, so that the first replay costs no more than later ones.
    pub fn upload(&self) -> Result<(), HostError> {
        self.graph.upload().map_err(HostError::driver("cuGraphUpload"))
    }

    /// How many launches the graph holds.
    pub fn launches(&self) -> u64 {
        self.launches
    }

    /// The stream replays go to.
    pub fn stream(&self) -> &Arc<CudaStream> {
        &self.stream
    }

    /// Waits for every replay enqueued so far; surfaces faults.
    pub fn synchronize(&self) -> Result<(), HostError> {
        self.stream.synchronize().map_err(HostError::driver("cuStreamSynchronize"))
    }
}

impl Runtime {
    /// Captures the launches `launches` makes (through [`Runtime::launch_on`] with the
    /// stream it is given) into a CUDA graph, replayed on `stream` by
    /// [`LaunchGraph::replay`].
    ///
    /// `stream` must be a stream of the runtime's context other than the legacy default
    /// stream, which cannot be captured (`rt.gpu.context().new_stream()` makes one). Each
    /// launch is checked as a direct one would be; its first launch may compile and load
    /// the kernel, which the capture allows (relaxed mode), but [`Runtime::prepare`]
    /// before capturing keeps compile time out of it. The capture ends even when a launch
    /// fails, and the failure is returned.
    pub fn capture(
        &mut self,
        stream: &Arc<CudaStream>,
        launches: impl FnOnce(&mut Runtime, &Arc<CudaStream>) -> Result<(), HostError>,
    ) -> Result<LaunchGraph, HostError> {
        const WHO: &str = "(graph capture)";
        self.check_stream(WHO, stream)?;
        if stream.cu_stream().is_null() {
            return Err(LaunchError::StreamContext {
                kernel: WHO.into(),
                why: "the legacy default stream cannot be captured into a graph".into(),
            }
            .into());
        }
        let before = self.launch_count();
        stream
            .begin_capture(CUstreamCaptureMode::CU_STREAM_CAPTURE_MODE_RELAXED)
            .map_err(HostError::driver("cuStreamBeginCapture"))?;
        let recorded = launches(self, stream);
        let ended = stream.end_capture(CUgraphInstantiate_flags(0));
        recorded?;
        let graph = ended.map_err(HostError::driver("cuStreamEndCapture"))?;
        let launches = self.launch_count() - before;
        match graph {
            Some(graph) if launches > 0 => Ok(LaunchGraph { graph, stream: stream.clone(), launches }),
            _ => Err(HostError::Driver {
                op: "cuStreamEndCapture",
                message: "the capture recorded no launch; launch at least one kernel (`rt.launch_on(s, ..)` with the \
                          stream the closure is given)"
                    .into(),
            }),
        }
    }
}
