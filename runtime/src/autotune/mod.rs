//! Autotuning in the spirit of `triton.autotune`: a kernel declares configurations
//! (constexprs and `num_warps`) and a key (argument names); the first launch for a new key
//! times every configuration and keeps the fastest, in memory and on disk; later launches
//! reuse it. Read `docs/autotuning.md` for the rules.
//!
//! ```no_run
//! use rtriton_runtime::autotune::{Autotuned, Config};
//! use rtriton_runtime::driver::DeviceBuffer;
//! use rtriton_runtime::launch::{Arg, JitKernel, Runtime, TensorArg};
//!
//! # fn main() -> Result<(), rtriton_runtime::HostError> {
//! let mut rt = Runtime::new()?;
//! let (rows, cols) = (4096usize, 1000usize);
//! let x = DeviceBuffer::from_host(&rt.gpu, &vec![1.0f32; rows * cols])?;
//! let y = DeviceBuffer::<f32>::zeros(&rt.gpu, rows)?;
//! let base = JitKernel::new(rtriton_kernels::row_max_2d())
//!     .try_grid(move |m| Ok([(rows as u64).div_ceil(m.get("BLOCK_M").ok_or("BLOCK_M")? as u64), 1, 1]));
//! let mut k = Autotuned::new(
//!     base,
//!     vec![
//!         Config::new(&[("BLOCK_M", 16), ("BLOCK_N", 64)]),
//!         Config::new(&[("BLOCK_M", 4), ("BLOCK_N", 256)]).num_warps(8),
//!     ],
//!     &["n_rows", "n_cols", "stride_row", "stride_col"],
//! )
//! .restore_value(&["y_ptr"]);
//! let args = [
//!     TensorArg::contiguous(&x, &[rows, cols]).into(),
//!     TensorArg::contiguous(&y, &[rows]).into(),
//!     Arg::Int(rows as i64),
//!     Arg::Int(cols as i64),
//!     Arg::Int(cols as i64),
//!     Arg::Int(1),
//! ];
//! let (choice, _record) = k.launch(&mut rt, &args)?; // tunes (RTRITON_PRINT_AUTOTUNING=1 prints)
//! let (again, _) = k.launch(&mut rt, &args)?; // the same key: no tuning
//! assert_eq!(choice.config, again.config);
//! # Ok(())
//! # }
//! ```
//!
//! Files: [`config`](Config) (one configuration), [`key`](TuneKey) (what selects one),
//! `tuner.rs` (the tuning loop over the [`Trials`] trait, the print format), `gpu.rs`
//! ([`GpuTrials`]: trials on the GPU, what happens to the user's buffers), `store.rs`
//! (results on disk), `settings.rs` (environment variables), `kernel.rs` ([`Autotuned`]).

mod config;
mod gpu;
mod kernel;
mod key;
mod settings;
mod store;
mod tuner;

pub use config::Config;
pub use gpu::{GpuTrials, zero_user_outputs};
pub use kernel::{Autotuned, CallFill, Choice, Decision, OutputReset, TuneStats, device_identity};
pub use key::{KeyValue, TuneKey, pow2_class};
pub use settings::{AUTOTUNE_DIR_ENV, AUTOTUNE_ENV, Mode, PRINT_AUTOTUNING_ENV, Settings};
pub use store::{StoredChoice, StoredTrial, TuneStore};
pub use tuner::{Agreement, OutputBytes, Site, Trial, Trials, TuneOutcome, config_cannot_run, tune, tuning_report};
