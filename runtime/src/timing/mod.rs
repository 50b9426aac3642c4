//! What timing a kernel on the GPU needs, shared by `rtriton bench` (in `rtriton-host`) and
//! the autotuner ([`crate::autotune`]): the L2 flush written before each timed launch
//! ([`flush`]) and the summary of the times ([`stats`]: median, percentiles). The CUDA
//! event pair itself is [`crate::driver::Timer`].

mod flush;
mod stats;

pub use flush::{L2Flush, MIN_FLUSH_BYTES, flush_bytes};
pub use stats::{Summary, gb_per_s, percentile};
