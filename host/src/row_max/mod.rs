//! The row-max entry point: `y[r] = max_c x[r, c]` for any 2-D view of a
//! device buffer (shape, strides of any sign, offset), choosing the kernel configuration
//! by autotuning.
//!
//! ```no_run
//! use rtriton_host::driver::DeviceBuffer;
//! use rtriton_host::launch::{Runtime, TensorArg};
//! use rtriton_host::row_max::RowMax;
//!
//! # fn main() -> Result<(), rtriton_host::HostError> {
//! let mut rt = Runtime::new()?;
//! let x = DeviceBuffer::from_host(&rt.gpu, &vec![1.0f32; 64 * 4096])?;
//! let mut row_max = RowMax::new();
//! // The transposed view of a 64 x 4096 buffer: 4096 rows of 64.
//! let y: DeviceBuffer<f32> = row_max.row_max(&mut rt, &TensorArg::new(&x, &[4096, 64], &[1, 4096]))?;
//! # Ok(())
//! # }
//! ```
//!
//! How a call runs:
//! 1. the input is checked ([`input`]: a 2-D view, `y` one contiguous element per row of
//!    `x`'s dtype, a dtype with a kernel), else an `RT0760` diagnostic at the caller's line;
//! 2. the plan for the shape's class (`rtriton_kernels::row_max_plan`) names the
//!    `row_max_split` kernel of the dtype and the configurations to choose among: several
//!    rows a program for narrow rows, row tiles for the rest, and for few wide rows the
//!    same tiles with `SPLIT` programs per row combined by `atomic_max`;
//! 3. one [`Autotuned`] per dtype and configuration list, keyed by the power-of-two
//!    classes of `n_rows, n_cols, stride_row, stride_col` (plus the dtypes and the
//!    specialization, as every tuning key), so the first call of a class times the
//!    configurations (each checked bit for bit against the first) and later calls of the
//!    class reuse the winner, from memory or from the tuning store on disk;
//! 4. when a configuration of the plan splits rows and the winner is not known yet to
//!    be unsplit, `y` is filled with the identity (`-inf`, an integer type's minimum) first,
//!    with one `cuMemsetD32Async`; tuning restores that filled `y` before each configuration;
//! 5. the chosen configuration is launched on the caller's buffers.
//!
//! The result is bit for bit `cpu_row_max`'s (NaN ignored, a row of only NaN gives `-inf`,
//! `+0.0 > -0.0`), whichever configuration runs (`docs/autotuning.md`, "The row-max entry
//! point"). That is [`NanMode::Ignore`], the default (`fmaxf`, the CUDA reference and every
//! row-max variant); [`NanMode::Propagate`] (torch.amax: a row holding a NaN gives the
//! canonical NaN) runs on the interpreter path ([`RowMax::run_interp`]) and is refused on
//! the GPU path for now.
//!
//! `y` must share no byte with `x` (checked before anything is written: a split plan fills
//! `y` first, which would overwrite `x`).
//!
//! [`RowMax::run_interp`] runs the same plan on the CPU interpreter, on buffers of an
//! `interp::Memory` (no GPU needed): the same input checks, the same fill, one
//! configuration of the plan (the first, or the one [`RowMax::interp_config`] names).

pub mod input;

use std::collections::HashMap;

use rtriton::ir::{ScalarType, SourceLoc};
use rtriton::session::CompileSession;
use rtriton::spec::{ArgValue, SpecKey, SpecPolicy};
use rtriton::trace::TraceOptions;
use rtriton_kernels::row_max_plan::{Plan, ShapeClass, SplitConfig, plan};
use rtriton_runtime::autotune::{Autotuned, Choice, Config, Decision, Settings, Site, TuneOutcome};

use crate::driver::{DeviceBuffer, Element, fill_raw32};
use crate::error::HostError;
use crate::launch::{Arg, JitKernel, LaunchError, LaunchRecord, Runtime, TensorArg};

pub use input::{ENTRY_KERNEL, Input};

/// The name of the entry point in `validate` and `bench` tables and on the command line.
pub const ENTRY_NAME: &str = "row_max_entry";

/// The key of every tuner: the kernel's integer arguments, each by its power-of-two class.
const KEY: [&str; 4] = ["n_rows", "n_cols", "stride_row", "stride_col"];

/// What the maximum of a row holding a NaN is.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum NanMode {
    /// NaN is ignored (`fmaxf`, PTX `max.f32`, Triton's `tl.max`): a row with some NaN
    /// gives the maximum of the rest, a row of only NaN gives `-inf`.
    #[default]
    Ignore,
    /// Any NaN in a row gives the canonical NaN `0x7FFF_FFFF` (`torch.amax`; PTX
    /// `max.NaN.f32`). `f32` only; the interpreter path only, for now.
    Propagate,
}

/// What one entry-point call launched.
#[derive(Clone, Debug, PartialEq)]
pub struct RowMaxLaunch {
    pub class: ShapeClass,
    pub config: SplitConfig,
    pub decision: Decision,
    /// Whether `y` was filled with the identity before the launch.
    pub filled: bool,
    pub record: LaunchRecord,
}

/// What [`RowMax::run`] decided for one input: the kernel with its configuration and grid,
/// so a later call with the same input launches it without planning or asking the tuner
/// (a call's host time is then the launch's).
#[derive(Clone, Debug)]
struct Decided {
    kernel: JitKernel,
    class: ShapeClass,
    config: SplitConfig,
    /// How the first call decided: `First` stays `First`; a tuned or stored choice is
    /// `Memory` for the calls after it, as the tuner itself would say.
    decision: Decision,
    fill: Option<u32>,
}

/// The inputs one decision holds for: the exact input, whether `x` and `y` start on 16
/// bytes (their specialization classes; every other argument's class follows from the
/// input), and the device's `Gpu` id.
type DecidedKey = (Input, bool, bool, u64);

/// The entry point: keeps one autotuner per dtype and configuration list, so each shape
/// class is tuned once per process (and once per machine, through the tuning store).
#[derive(Debug)]
pub struct RowMax {
    tuners: HashMap<(ScalarType, Vec<SplitConfig>), Autotuned>,
    decided: HashMap<DecidedKey, Decided>,
    settings: Option<Settings>,
    policy: SpecPolicy,
    nan: NanMode,
    /// The configuration (index into the plan's) the interpreter path runs.
    interp_config: usize,
}

impl Default for RowMax {
    fn default() -> Self {
        RowMax::new()
    }
}

/// Whether a configuration splits rows over several programs (so `y` starts at the
/// identity).
fn config_splits(c: &Config) -> bool {
    c.get("SPLIT").is_some_and(|s| s > 1)
}

/// A configuration of the plan as the autotuner's.
pub fn to_config(c: &SplitConfig) -> Config {
    Config::new(&c.constexprs()).num_warps(c.num_warps)
}

impl RowMax {
    /// Tuning settings from the environment (`RTRITON_AUTOTUNE`...), Triton's
    /// specialization rules.
    pub fn new() -> RowMax {
        RowMax {
            tuners: HashMap::new(),
            decided: HashMap::new(),
            settings: None,
            policy: SpecPolicy::Triton,
            nan: NanMode::Ignore,
            interp_config: 0,
        }
    }

    /// The NaN rule ([`NanMode`]; `Ignore` by default).
    pub fn nan(mut self, nan: NanMode) -> RowMax {
        self.nan = nan;
        self
    }

    /// Which configuration of the plan [`RowMax::run_interp`] runs (an index into
    /// `Plan::configs`, taken modulo their count; 0 by default). The interpreter has no
    /// timing to tune by; every configuration gives the same bits.
    pub fn interp_config(mut self, index: usize) -> RowMax {
        self.interp_config = index;
        self
    }

    /// The GPU path runs the NaN-ignoring kernels only.
    fn gpu_nan(&self, loc: SourceLoc) -> Result<(), HostError> {
        match self.nan {
            NanMode::Ignore => Ok(()),
            NanMode::Propagate => Err(input::refuse(
                loc,
                "nan: NanMode::Propagate (torch.amax's rule) is not available on the GPU path yet: its kernels ignore \
                 NaN (fmaxf's rule), and a result under the other rule would be wrong"
                    .into(),
                "use NanMode::Ignore on the GPU, or RowMax::run_interp for NanMode::Propagate",
            )),
        }
    }

    /// Replaces the settings read from the environment, for every tuner made after.
    pub fn settings(mut self, settings: Settings) -> RowMax {
        self.settings = Some(settings);
        self
    }

    /// The specialization policy of the launches (`validate` runs both).
    pub fn spec_policy(mut self, policy: SpecPolicy) -> RowMax {
        self.policy = policy;
        self
    }

    /// The plan for `input` on a device of `sm_count` SMs and its tuner (made on first use).
    fn tuner(&mut self, input: &Input, sm_count: usize, loc: SourceLoc) -> Result<(Plan, &mut Autotuned), HostError> {
        let mut plan =
            plan(input.dtype, input.n_rows, input.n_cols, sm_count).map_err(|e| input::unsupported(&e, loc))?;
        // What the input promises (`VEC`): a fact of this input, part of every
        // configuration, so inputs that promise differently get their own tuner and store
        // entry (the configurations are in both keys) and never share a winner.
        let vec = input.vec_promise();
        for c in &mut plan.configs {
            c.vec = vec;
        }
        let (policy, settings) = (self.policy, self.settings.clone());
        let configs = plan.configs.clone();
        let kernel = plan.kernel.clone();
        let fill = plan.fill;
        let tuner = self.tuners.entry((input.dtype, configs.clone())).or_insert_with(|| {
            let base = JitKernel::new(kernel).spec_policy(policy);
            let t = Autotuned::new(base, configs.iter().map(to_config).collect(), &KEY)
                .key_classes(&KEY)
                .restore_value(&["y_ptr"]);
            // A split configuration's every call fills `y` first (`run`): tuning charges it
            // the fill, or a split within a few percent of an unsplit tile would win the
            // tuning and lose on every call (8192 x 8192 on the H200: 0.92x the best peer).
            let t = match fill {
                Some(bits) => t.fill_before_call("y_ptr", bits, config_splits),
                None => t,
            };
            match settings {
                Some(s) => t.settings(s),
                None => t,
            }
        });
        let n_rows = input.n_rows as u64;
        tuner.set_grid(move |m| {
            let block_m = m.get("BLOCK_M").ok_or("BLOCK_M")?.max(1) as u64;
            Ok([n_rows.div_ceil(block_m), m.get("SPLIT").ok_or("SPLIT")?.max(1) as u64, 1])
        });
        Ok((plan, tuner))
    }

    /// Decides the configuration for `x` into `y` on a device named `device` with
    /// `sm_count` SMs, calling `tune_now` only when nothing decided it before (what
    /// [`RowMax::run`] does before launching; tests pass a fake tuning, no GPU needed).
    #[track_caller]
    pub fn choose(
        &mut self,
        device: &str,
        sm_count: usize,
        x: &TensorArg<'_>,
        y: &TensorArg<'_>,
        tune_now: impl FnOnce(Site<'_>, &[Config], &Settings) -> Result<TuneOutcome, HostError>,
    ) -> Result<(Plan, Choice), HostError> {
        let loc = SourceLoc::caller();
        let input = input::check(x, y, loc)?;
        self.gpu_nan(loc)?;
        let args = args(x, y, &input);
        let (plan, tuner) = self.tuner(&input, sm_count, loc)?;
        let choice = tuner.choose(device, &args, None, tune_now)?;
        Ok((plan, choice))
    }

    /// `y[r] = max_c x[r, c]`: `x` a 2-D view, `y` `n_rows` contiguous elements of `x`'s
    /// dtype. Tunes on the first call of a shape class (see the module doc). `None` when
    /// `x` has no rows (nothing to launch).
    #[track_caller]
    pub fn run(
        &mut self,
        rt: &mut Runtime,
        x: &TensorArg<'_>,
        y: &TensorArg<'_>,
    ) -> Result<Option<RowMaxLaunch>, HostError> {
        let loc = SourceLoc::caller();
        let input = input::check(x, y, loc)?;
        self.gpu_nan(loc)?;
        if input.n_rows == 0 {
            return Ok(None);
        }
        let args = args(x, y, &input);
        let aligned = |t: &TensorArg<'_>| t.address().is_ok_and(|a| a.is_multiple_of(16));
        let key = (input, aligned(x), aligned(y), rt.gpu.id());
        if let Some(d) = self.decided.get(&key) {
            if let Some(bits) = d.fill {
                fill_raw32(&rt.gpu, &y.buffer, y.offset_elems, input.n_rows, bits)?;
            }
            let record = rt.launch(&d.kernel, &args)?;
            let (class, config, decision, filled) = (d.class, d.config, d.decision, d.fill.is_some());
            return Ok(Some(RowMaxLaunch { class, config, decision, filled, record }));
        }
        let (plan, tuner) = self.tuner(&input, rt.gpu.info.multiprocessor_count, loc)?;
        // A winner already known to be unsplit stores every row: no fill needed.
        let fill = plan.fill.filter(|_| tuner.decided(&args).is_none_or(config_splits));
        if let Some(bits) = fill {
            fill_raw32(&rt.gpu, &y.buffer, y.offset_elems, input.n_rows, bits)?;
        }
        let (choice, record) = tuner.launch(rt, &args)?;
        let config = choice.index.map(|i| plan.configs[i]).ok_or_else(|| HostError::Driver {
            op: "row_max",
            message: format!("the tuner launched `{}`, which the plan does not declare", choice.config),
        })?;
        let decided = Decided {
            kernel: tuner.kernel_for(&choice.config),
            class: plan.class,
            config,
            decision: if choice.decision == Decision::First { Decision::First } else { Decision::Memory },
            fill: plan.fill.filter(|_| config_splits(&choice.config)),
        };
        self.decided.insert(key, decided);
        Ok(Some(RowMaxLaunch { class: plan.class, config, decision: choice.decision, filled: fill.is_some(), record }))
    }

    /// [`RowMax::run`] into a new buffer of `x`'s rows: the maxima, on the device.
    #[track_caller]
    pub fn row_max<T: Element>(&mut self, rt: &mut Runtime, x: &TensorArg<'_>) -> Result<DeviceBuffer<T>, HostError> {
        let n_rows = x.shape.first().copied().unwrap_or(0);
        let y = DeviceBuffer::<T>::zeros(&rt.gpu, n_rows)?;
        // `run` checks the view and names this function's caller (`#[track_caller]` on both).
        self.run(rt, x, &TensorArg::contiguous(&y, &[n_rows]))?;
        Ok(y)
    }
}

impl RowMax {
    /// [`RowMax::run`] on the CPU interpreter: `x` and `y` are views of buffers of `mem`
    /// (`TensorArg::from_raw(RawBuffer::unowned(addr, len, dtype), shape, strides)`, `addr`
    /// from `Memory::alloc_*`). The same checks as the GPU path (an overlapping `y` is
    /// refused before anything is written), the plan for a nominal device, `y` filled
    /// with the identity when the configuration splits rows, then one configuration
    /// ([`RowMax::interp_config`]) interpreted. Supports [`NanMode::Propagate`] (`f32`).
    /// Gives the configuration run, `None` when `x` has no rows.
    #[track_caller]
    pub fn run_interp(
        &mut self,
        mem: &mut rtriton::interp::Memory,
        x: &TensorArg<'_>,
        y: &TensorArg<'_>,
    ) -> Result<Option<SplitConfig>, HostError> {
        let loc = SourceLoc::caller();
        let input = input::check(x, y, loc)?;
        if input.n_rows == 0 {
            return Ok(None);
        }
        let mut plan = plan(input.dtype, input.n_rows, input.n_cols, rtriton_kernels::row_max_plan::NOMINAL_SM_COUNT)
            .map_err(|e| input::unsupported(&e, loc))?;
        if self.nan == NanMode::Propagate {
            if input.dtype != ScalarType::F32 {
                return Err(input::refuse(
                    loc,
                    format!("nan: NanMode::Propagate is implemented for f32 only; x holds {}", input.dtype),
                    "convert x to f32, or use NanMode::Ignore",
                ));
            }
            plan.kernel = rtriton_kernels::row_max_split::row_max_split_propagate_nan();
        }
        let c = SplitConfig { vec: input.vec_promise(), ..plan.configs[self.interp_config % plan.configs.len()] };
        let overflow = |e: crate::launch::AddressOverflow| {
            HostError::Launch(LaunchError::AddressOverflow {
                kernel: plan.kernel.name.into(),
                param: "y_ptr".into(),
                source: e,
            })
        };
        if let Some(bits) = plan.fill.filter(|_| c.split > 1) {
            let size = input.dtype.size_bytes() as usize;
            let bytes: Vec<u8> = (0..input.n_rows * size).map(|i| bits.to_le_bytes()[i % 4]).collect();
            let at = y.address().map_err(overflow)?;
            mem.write_bytes(at, &bytes).map_err(|e| {
                input::refuse(
                    loc,
                    format!("y is not a buffer of this interpreter memory: {e}"),
                    "allocate y in the Memory passed",
                )
            })?;
        }
        let values: Vec<ArgValue> =
            args(x, y, &input).iter().map(|a| a.value().map_err(overflow)).collect::<Result<_, _>>()?;
        let def = &plan.kernel;
        let spec = SpecKey::from_args(def.name, &def.params, &values, self.policy).map_err(LaunchError::from)?;
        let verified = CompileSession::new()
            .front_end(def, &c.constexprs(), &spec, &TraceOptions::default())
            .map_err(|e| HostError::FrontEnd { kernel: def.name.into(), source: Box::new(e) })?;
        let [gx, gy, gz] = c.grid(input.n_rows);
        rtriton::interp::run(&verified, [gx as u32, gy as u32, gz as u32], &values, mem)
            .map_err(|e| HostError::Input(Box::new(e.diagnostic().clone())))?;
        Ok(Some(c))
    }
}

/// The kernel's arguments: `x_ptr, y_ptr, n_rows, n_cols, stride_row, stride_col`.
fn args<'a>(x: &TensorArg<'a>, y: &TensorArg<'a>, input: &Input) -> [Arg<'a>; 6] {
    [
        Arg::Tensor(x.clone()),
        Arg::Tensor(y.clone()),
        Arg::Int(input.n_rows as i64),
        Arg::Int(input.n_cols as i64),
        Arg::Int(input.stride_row as i64),
        Arg::Int(input.stride_col as i64),
    ]
}

#[cfg(test)]
mod tests;
