//! [`Trials`] on the GPU: each configuration launched through the [`Runtime`] on the
//! user's arguments, its outputs made pristine before each run, times from CUDA events
//! around each launch alone after an L2 flush (as `rtriton bench` times).
//!
//! **What happens to the user's buffers.** The outputs are the buffers the autotuner
//! names (`restore_value`, `reset_to_zero`); every other tensor is taken to be read only.
//! - An output whose buffer no other argument uses: the configurations run on the user's
//!   buffer. It is saved once to a scratch copy, restored from it before each
//!   configuration's checked run, and restored once more when tuning ends, so the only
//!   visible effect of a tuning launch is the final launch of the winner.
//! - An output whose buffer another argument also uses (an in-place kernel): the
//!   configurations run on a scratch clone of that buffer (every argument on it points
//!   into the clone, at the same offsets, so alignment and specialization are unchanged)
//!   and the user's buffer is not written until the winner's final launch.
//! - A `reset_to_zero` output is also zeroed before every launch (checked, warm-up and
//!   timed; the memset is outside the timed events), as Triton's `reset_to_zero` does for
//!   kernels that accumulate into their output. Only the view's elements are zeroed, so
//!   the view must be dense (a strided one is refused); other data in its buffer stays.
//! - A [`super::CallFill`] output is filled with its pattern before every launch of the
//!   configurations that need it (checked, warm-up and timed), and in the timed launches
//!   *between* the CUDA events: the fill is part of what such a configuration costs a
//!   caller, as Triton times a config's `pre_hook`. A dense view, as for `reset_to_zero`.

use rtriton::diag::{Code, Diagnostic};
use rtriton::ir::ParamKind;

use super::tuner::{OutputBytes, Trials};
use super::{CallFill, Config, OutputReset};
use crate::driver::{RawBuffer, ScratchBuffer, Timer, copy_raw, fill_raw32, read_raw, zero_raw};
use crate::error::HostError;
use crate::launch::{Arg, JitKernel, Runtime, TensorArg, check_args};
use crate::timing::{L2Flush, flush_bytes};

/// One output buffer during tuning.
#[derive(Debug)]
struct Slot {
    param: &'static str,
    /// What the configurations write (the user's buffer or a clone of it).
    working: RawBuffer,
    /// The contents every configuration starts from (a saved copy, or the user's buffer).
    pristine: RawBuffer,
    /// The user's buffer is `working` and must be restored from `pristine` at the end.
    restore_at_end: bool,
    /// For a `reset_to_zero` output: the elements its view spans (first, count).
    zero: Option<(usize, usize)>,
}

/// Configurations of one kernel on one launch's arguments, on the GPU.
pub struct GpuTrials<'r, 'a> {
    rt: &'r mut Runtime,
    base: &'r JitKernel,
    args: Vec<Arg<'a>>,
    slots: Vec<Slot>,
    flush: L2Flush,
    /// The fills some configurations' calls need: the working buffer, the view's span, the
    /// pattern and which configurations.
    fills: Vec<(RawBuffer, (usize, usize), CallFill)>,
    /// The saved copies and clones the slots and arguments point into: kept alive here.
    _scratch: Vec<ScratchBuffer>,
}

impl std::fmt::Debug for GpuTrials<'_, '_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("GpuTrials").field("kernel", &self.base.def.name).field("slots", &self.slots).finish()
    }
}

impl<'r, 'a> GpuTrials<'r, 'a> {
    /// Checks the arguments, then saves or clones each output (see the module doc).
    pub fn new(
        rt: &'r mut Runtime,
        base: &'r JitKernel,
        args: &[Arg<'a>],
        outputs: &[(&'static str, OutputReset)],
    ) -> Result<GpuTrials<'r, 'a>, HostError> {
        let def = &base.def;
        check_args(def.name, &def.params, args, rt.gpu.device_id())?;
        let mut args = args.to_vec();
        let mut slots = Vec::new();
        let mut scratch = Vec::new();
        for &(param, reset) in outputs {
            let Some(i) = def.params.iter().position(|p| p.name == param && matches!(p.kind, ParamKind::Ptr(_))) else {
                continue; // the declaration check names it before any launch
            };
            let Arg::Tensor(t) = &args[i] else { continue };
            let user = t.buffer;
            let zero = match reset {
                OutputReset::Zero => zero_span(def.name, param, t)?,
                OutputReset::Restore => None,
            };
            if let Some(s) = slots.iter_mut().find(|s: &&mut Slot| s.pristine == user || s.working == user) {
                s.zero = s.zero.or(zero); // a buffer named twice is one output
                continue;
            }
            let shared =
                args.iter().enumerate().any(|(j, a)| j != i && matches!(a, Arg::Tensor(o) if o.buffer == user));
            let copy = ScratchBuffer::like(&rt.gpu, &user)?;
            let copy_raw_buf = copy.raw(&rt.gpu);
            copy_raw(&rt.gpu, &copy_raw_buf, &user)?;
            scratch.push(copy);
            if shared {
                // Every argument on the user's buffer moves to the clone, same view.
                for a in &mut args {
                    if let Arg::Tensor(t) = a
                        && t.buffer == user
                    {
                        *t = TensorArg::from_raw(copy_raw_buf, &t.shape, &t.strides).with_offset(t.offset_elems);
                    }
                }
                slots.push(Slot { param, working: copy_raw_buf, pristine: user, restore_at_end: false, zero });
            } else {
                slots.push(Slot { param, working: user, pristine: copy_raw_buf, restore_at_end: true, zero });
            }
        }
        let flush = L2Flush::new(&rt.gpu, flush_bytes(rt.gpu.info.l2_cache_bytes))?;
        Ok(GpuTrials { rt, base, args, slots, flush, fills: Vec::new(), _scratch: scratch })
    }

    /// Adds the fills that some configurations' calls need (see the module doc); each
    /// names an output, whose working buffer (the user's or its clone) it fills.
    pub fn with_fills(mut self, fills: &[CallFill]) -> Result<Self, HostError> {
        let def = &self.base.def;
        for f in fills {
            let Some(i) = def.params.iter().position(|p| p.name == f.param) else { continue };
            let Arg::Tensor(t) = &self.args[i] else { continue };
            let Some(span) = zero_span(def.name, f.param, t)? else { continue };
            self.fills.push((t.buffer, span, *f));
        }
        Ok(self)
    }

    fn fill_outputs(&self, config: &Config) -> Result<(), HostError> {
        for (buffer, (first, count), f) in &self.fills {
            if (f.when)(config) {
                fill_raw32(&self.rt.gpu, buffer, *first, *count, f.bits)?;
            }
        }
        Ok(())
    }

    /// Puts back the user's output buffers that the configurations wrote (call it whether
    /// tuning succeeded or not), and waits for it.
    pub fn finish(self) -> Result<(), HostError> {
        for s in self.slots.iter().filter(|s| s.restore_at_end) {
            copy_raw(&self.rt.gpu, &s.working, &s.pristine)?;
        }
        self.rt.gpu.synchronize()
    }

    fn zero_outputs(&mut self) -> Result<(), HostError> {
        for s in &self.slots {
            if let Some((first, count)) = s.zero {
                zero_raw(&self.rt.gpu, &s.working, first, count)?;
            }
        }
        Ok(())
    }
}

impl Trials for GpuTrials<'_, '_> {
    fn run(&mut self, config: &Config) -> Result<Vec<OutputBytes>, HostError> {
        for s in &self.slots {
            copy_raw(&self.rt.gpu, &s.working, &s.pristine)?;
        }
        self.zero_outputs()?;
        self.fill_outputs(config)?;
        self.rt.launch(&config.apply(self.base), &self.args)?;
        self.slots
            .iter()
            .map(|s| {
                Ok(OutputBytes { param: s.param, elem: s.working.elem, bytes: read_raw(&self.rt.gpu, &s.working)? })
            })
            .collect()
    }

    fn time(&mut self, config: &Config, warmup: usize, reps: usize) -> Result<Vec<f32>, HostError> {
        let kernel = config.apply(self.base);
        for _ in 0..warmup {
            self.zero_outputs()?;
            self.fill_outputs(config)?;
            self.rt.launch(&kernel, &self.args)?;
        }
        self.rt.gpu.synchronize()?;
        let mut timers = Vec::with_capacity(reps);
        for _ in 0..reps {
            self.zero_outputs()?;
            self.flush.run(&self.rt.gpu)?;
            let timer = Timer::start(&self.rt.gpu)?;
            self.fill_outputs(config)?;
            self.rt.launch(&kernel, &self.args)?;
            timer.end(&self.rt.gpu)?;
            timers.push(timer);
        }
        timers.iter().map(Timer::elapsed_ms).collect()
    }
}

/// The elements a `reset_to_zero` output's view covers, as (first, count) from its
/// buffer's start (`None` for an empty view). Only a dense view (no gaps between its
/// elements, in any order) can be zeroed with one memset without touching other data in
/// its buffer; a strided one is refused.
fn zero_span(kernel: &str, param: &str, t: &TensorArg<'_>) -> Result<Option<(usize, usize)>, HostError> {
    let Some((lo, hi)) = t.reach() else { return Ok(None) };
    let numel: i128 = t.shape.iter().map(|&n| n as i128).product();
    if hi - lo + 1 != numel {
        return Err(HostError::Autotune(Box::new(Diagnostic::error(
            Code::AutotuneDeclaration,
            kernel,
            None,
            format!(
                "the reset_to_zero output `{param}` is a view with gaps (shape {:?}, strides {:?}): zeroing it would \
                 write the elements between",
                t.shape, t.strides
            ),
            "pass a dense output view, or name it in restore_value instead",
        ))));
    }
    Ok(Some((lo as usize, numel as usize)))
}

/// Zeroes the `reset_to_zero` outputs of a launch on the user's buffers (before the
/// winner's launch after tuning, as Triton does).
pub fn zero_user_outputs(
    rt: &Runtime,
    kernel: &JitKernel,
    args: &[Arg<'_>],
    outputs: &[(&'static str, OutputReset)],
) -> Result<(), HostError> {
    for &(param, reset) in outputs {
        if reset != OutputReset::Zero {
            continue;
        }
        if let Some(Arg::Tensor(t)) = kernel.def.params.iter().position(|p| p.name == param).and_then(|i| args.get(i))
            && let Some((first, count)) = zero_span(kernel.def.name, param, t)?
        {
            zero_raw(&rt.gpu, &t.buffer, first, count)?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use rtriton::diag::HasDiagnostics;
    use rtriton::ir::ScalarType;

    use super::*;

    fn view(shape: &[usize], strides: &[isize], offset: usize) -> TensorArg<'static> {
        TensorArg::from_raw(RawBuffer::unowned(0x1000, 1 << 16, ScalarType::F32), shape, strides).with_offset(offset)
    }

    /// What a `reset_to_zero` output zeroes: the elements of a dense view (in any order),
    /// nothing for an empty one; a view with gaps is refused, since one memset would zero
    /// the data between its elements (an input sharing the buffer, say).
    #[rstest::rstest]
    #[case::contiguous(view(&[100], &[1], 0), Ok(Some((0, 100))))]
    #[case::after_other_data(view(&[100], &[1], 600), Ok(Some((600, 100))))]
    #[case::transposed_is_dense(view(&[8, 4], &[1, 8], 5), Ok(Some((5, 32))))]
    #[case::reversed_is_dense(view(&[10], &[-1], 9), Ok(Some((0, 10))))]
    #[case::empty(view(&[0, 4], &[4, 1], 0), Ok(None))]
    #[case::strided(view(&[10], &[2], 0), Err(()))]
    fn a_reset_to_zero_output_zeroes_exactly_its_dense_view(
        #[case] t: TensorArg<'static>,
        #[case] want: Result<Option<(usize, usize)>, ()>,
    ) {
        match (zero_span("k", "y_ptr", &t), want) {
            (Ok(got), Ok(want)) => assert_eq!(got, want),
            (Err(e), Err(())) => {
                assert!(e.has_code(Code::AutotuneDeclaration), "{e}");
                assert!(e.to_string().contains("the reset_to_zero output `y_ptr` is a view with gaps"), "{e}");
            }
            (got, want) => panic!("{got:?} vs {want:?}"),
        }
    }
}
