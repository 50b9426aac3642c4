//! CUDA event timing on the device's stream.

use cudarc::driver::CudaEvent;
use cudarc::driver::sys::CUevent_flags;

use super::Gpu;
use crate::error::HostError;

/// A pair of events around work on the stream: `start`, enqueue work, `stop`.
#[derive(Debug)]
pub struct Timer {
    start: CudaEvent,
    end: CudaEvent,
}

impl Timer {
    /// Records the start event.
    pub fn start(gpu: &Gpu) -> Result<Timer, HostError> {
        let flags = Some(CUevent_flags::CU_EVENT_DEFAULT);
        let start = gpu.ctx.new_event(flags).map_err(HostError::driver("cuEventCreate"))?;
        let end = gpu.ctx.new_event(flags).map_err(HostError::driver("cuEventCreate"))?;
        start.record(&gpu.stream).map_err(HostError::driver("cuEventRecord"))?;
        Ok(Timer { start, end })
    }

    /// Records the end event, waits for it and returns the milliseconds in between.
    pub fn stop(self, gpu: &Gpu) -> Result<f32, HostError> {
        self.end(gpu)?;
        self.elapsed_ms()
    }

    /// Records the end event without waiting (read it later with [`Timer::elapsed_ms`]),
    /// so many timed launches can be queued before the first result is read.
    pub fn end(&self, gpu: &Gpu) -> Result<(), HostError> {
        self.end.record(&gpu.stream).map_err(HostError::driver("cuEventRecord"))
    }

    /// Waits for both events and returns the milliseconds between them.
    pub fn elapsed_ms(&self) -> Result<f32, HostError> {
        self.start.elapsed_ms(&self.end).map_err(HostError::driver("cuEventElapsedTime"))
    }
}
