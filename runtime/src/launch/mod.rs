//! Launching DSL kernels in the spirit of Triton's `kernel[grid](args...)`:
//!
//! ```no_run
//! use rtriton_runtime::driver::DeviceBuffer;
//! use rtriton_runtime::launch::{Arg, JitKernel, Runtime, TensorArg};
//!
//! # fn main() -> Result<(), rtriton_runtime::HostError> {
//! let mut rt = Runtime::new()?; // device 0, PTX cache under RTRITON_CACHE_DIR or ~/.cache/rtriton
//! let (n_rows, n_cols) = (4usize, 8usize);
//! let x = DeviceBuffer::from_host(&rt.gpu, &vec![1.0f32; n_rows * n_cols])?;
//! let y = DeviceBuffer::<f32>::zeros(&rt.gpu, n_rows)?;
//! // row_max[grid](x, y, n_rows, n_cols, stride_row, stride_col, BLOCK=8)
//! let k = JitKernel::new(rtriton_kernels::row_max())
//!     .constexpr("BLOCK", 8)
//!     .num_warps(4)
//!     .grid(move |_meta| [n_rows as u64, 1, 1]);
//! let args = [
//!     TensorArg::contiguous(&x, &[n_rows, n_cols]).into(),
//!     TensorArg::contiguous(&y, &[n_rows]).into(),
//!     Arg::Int(n_rows as i64),
//!     Arg::Int(n_cols as i64),
//!     Arg::Int(n_cols as i64),
//!     Arg::Int(1),
//! ];
//! let launched = rt.launch(&k, &args)?;
//! println!("spec {}", launched.spec);
//! let maxima = y.to_host(&rt.gpu)?;
//! # let _ = maxima;
//! # Ok(())
//! # }
//! ```
//!
//! At each launch the arguments are checked ([`check_args`], [`check_grid`]; an output
//! overlapping another tensor argument is refused unless declared with
//! [`JitKernel::in_place`]: [`check_overlap`]), specialized from their actual
//! values (value 1 folded, divisibility by 16, alignment of the actual address including
//! the view offset), checked by the overflow guard ([`guard_launch`]: a kernel whose
//! offsets are computed in i32 is refused on a tensor past `i32::MAX` elements), and the
//! kernel is looked up by the full [`CacheKey`](crate::cache::CacheKey): in memory
//! (loaded module), then on disk (PTX), then compiled. A later launch of the same
//! signature takes the fast path ([`host_path`]): the value checks again, then the
//! prepared kernel, with nothing rebuilt or allocated. Tensors may also be cudarc
//! allocations ([`TensorArg::cuda`]), launches may go to a stream the caller names
//! ([`Runtime::launch_on`]), and a sequence of launches may be captured as a CUDA graph
//! ([`Runtime::capture`]); `docs/runtime.md` is the guide.

mod args;
mod checks;
mod compile;
mod foreign;
mod graph;
mod instances;
mod jit;
mod runtime;
mod signature;

pub use args::{AddressOverflow, Arg, TensorArg, contiguous_strides};
pub use checks::{
    LaunchError, any_overlap, any_past_i32, arg_values, check_arch, check_args, check_block, check_grid, check_overlap,
    check_shared, check_streams, needs_overflow_guard, overflow_guard, overlapping_tensors, tensor_extents, view_bytes,
};
pub use compile::{compile_kernel, debug_mode, front_end, host_error, ptx_options};
pub use graph::LaunchGraph;
pub use jit::{JitKernel, Meta};
pub use runtime::{CacheStats, LaunchRecord, Runtime, cache_key, guard_launch};
pub use signature::{Classes, Device, LaunchCache, Prepared, Ready, host_path, raw_params, signature};
