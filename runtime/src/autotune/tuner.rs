//! The tuning loop, over a [`Trials`] trait so that it is tested without a GPU: run each
//! configuration once and check its outputs bit for bit against the first configuration
//! that ran, time the ones that agree, keep the fastest median.
//!
//! A configuration that cannot run on these arguments (the front end refuses its block, the
//! PTX back end runs out of registers, a launch check refuses its grid or block) is
//! reported and skipped, as Triton skips one that runs out of resources. Two
//! configurations that write different outputs stop tuning with an error: the kernel has
//! a bug (or a result that depends on the block shape) that choosing one would hide.

use std::time::Instant;

use rtriton::diag::{Code, Diagnostic};
use rtriton::ir::{ScalarType, SourceLoc};

use super::Config;
use crate::error::HostError;
use crate::timing::Summary;

/// What one output buffer held after a configuration ran.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OutputBytes {
    pub param: &'static str,
    pub elem: ScalarType,
    pub bytes: Vec<u8>,
}

/// What the tuning loop needs from a device (the GPU one is `GpuTrials`; tests use fakes).
pub trait Trials {
    /// Runs `config` once on pristine outputs (restored or zeroed first) and returns each
    /// output's bytes.
    fn run(&mut self, config: &Config) -> Result<Vec<OutputBytes>, HostError>;
    /// Launches `config` `warmup` times untimed, then `reps` times each timed alone, and
    /// returns the milliseconds of the timed launches.
    fn time(&mut self, config: &Config, warmup: usize, reps: usize) -> Result<Vec<f32>, HostError>;
}

/// How one configuration fared.
#[derive(Clone, Debug, PartialEq)]
pub enum Trial {
    /// Checked against the first configuration, then timed.
    Timed(Summary),
    /// It could not run on these arguments; why.
    CannotRun(String),
}

/// The result of tuning one key.
#[derive(Clone, Debug, PartialEq)]
pub struct TuneOutcome {
    /// Index of the winner in `trials` (and in the declared configurations).
    pub best: usize,
    pub trials: Vec<(Config, Trial)>,
    /// Wall-clock seconds the tuning took (compiles included).
    pub seconds: f64,
}

impl TuneOutcome {
    pub fn best_config(&self) -> &Config {
        &self.trials[self.best].0
    }
}

/// Whether `e` means "this configuration cannot run on these arguments" (skip it) rather
/// than a failure of the device or the host (stop tuning). Exhaustive on purpose: a new
/// error kind must be sorted here.
pub fn config_cannot_run(e: &HostError) -> bool {
    match e {
        HostError::FrontEnd { .. } | HostError::Ptx { .. } | HostError::LintDenied(_) | HostError::Launch(_) => true,
        HostError::NoDriver(_)
        | HostError::NoNvrtc(_)
        | HostError::NoDevice(_)
        | HostError::Driver { .. }
        | HostError::ContextPoisoned { .. }
        | HostError::DeviceAssert { .. }
        | HostError::Nvrtc { .. }
        | HostError::Cache { .. }
        | HostError::Autotune(_)
        | HostError::Input(_) => false,
    }
}

/// Where the tuned kernel is, for the diagnostics, and how its configurations' outputs
/// must agree.
#[derive(Clone, Copy, Debug)]
pub struct Site<'a> {
    pub kernel: &'a str,
    /// Where the autotuner was declared.
    pub loc: SourceLoc,
    pub agreement: Agreement,
}

/// How every configuration's outputs must agree with the first's.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub enum Agreement {
    /// The same bytes (the default: a tile that changes a max or a sum of integers is a bug).
    #[default]
    Bits,
    /// Float elements within `abs` or `rel` times the first's magnitude (NaN matches NaN,
    /// an infinity only itself); other elements the same bytes. For kernels whose tiles
    /// change the order of float sums (a `dot` over another K step, an online softmax over
    /// another block of keys): their results differ in the last bits.
    Within { abs: f64, rel: f64 },
}

impl Agreement {
    /// Whether element bytes `got` agree with `want` of type `elem`.
    fn agrees(self, elem: ScalarType, want: &[u8], got: &[u8]) -> bool {
        if want == got {
            return true;
        }
        let Agreement::Within { abs, rel } = self else { return false };
        let value = |b: &[u8]| -> Option<f64> {
            match elem {
                ScalarType::F32 => Some(f64::from(f32::from_le_bytes(b.try_into().ok()?))),
                ScalarType::F16 => Some(f64::from(half::f16::from_le_bytes(b.try_into().ok()?).to_f32())),
                ScalarType::BF16 => Some(f64::from(half::bf16::from_le_bytes(b.try_into().ok()?).to_f32())),
                // every other type compares by its bytes (not a rounding order)
                _ => None,
            }
        };
        match (value(want), value(got)) {
            (Some(w), Some(g)) if w.is_nan() || g.is_nan() => w.is_nan() && g.is_nan(),
            (Some(w), Some(g)) if w.is_infinite() || g.is_infinite() => w == g,
            (Some(w), Some(g)) => (w - g).abs() <= abs.max(rel * w.abs()),
            _ => false,
        }
    }
}

/// Tunes `configs` (at least one) on `trials`; see the module doc.
pub fn tune(
    site: Site<'_>,
    configs: &[Config],
    trials: &mut dyn Trials,
    warmup: usize,
    reps: usize,
) -> Result<TuneOutcome, HostError> {
    let started = Instant::now();
    let mut first: Option<(usize, Vec<OutputBytes>)> = None;
    let mut out = Vec::with_capacity(configs.len());
    for (i, config) in configs.iter().enumerate() {
        let outputs = match trials.run(config) {
            Ok(o) => o,
            Err(e) if config_cannot_run(&e) => {
                out.push((config.clone(), Trial::CannotRun(e.to_string())));
                continue;
            }
            Err(e) => return Err(e),
        };
        match &first {
            None => first = Some((i, outputs)),
            Some((j, want)) => {
                if let Some(d) = first_difference(site.agreement, want, &outputs) {
                    return Err(differ(site, &configs[*j], config, &d));
                }
            }
        }
        let times = trials.time(config, warmup, reps)?;
        out.push((
            config.clone(),
            match Summary::of(&times) {
                Some(s) if reps > 0 => Trial::Timed(s),
                _ => Trial::CannotRun(format!("no usable times: {times:?}")),
            },
        ));
    }
    let best = out
        .iter()
        .enumerate()
        .filter_map(|(i, (_, t))| match t {
            Trial::Timed(s) => Some((i, s.median_ms)),
            Trial::CannotRun(_) => None,
        })
        // The first of equal medians wins: the declared order breaks ties.
        .min_by(|a, b| a.1.total_cmp(&b.1).then(a.0.cmp(&b.0)))
        .map(|(i, _)| i);
    let Some(best) = best else {
        let mut d = Diagnostic::error(
            Code::AutotuneNoConfigRuns,
            site.kernel,
            site.loc,
            format!("none of the {} configurations could run on these arguments", configs.len()),
            "add a configuration that fits these arguments (a smaller block, fewer warps), or launch one explicitly",
        );
        for (c, t) in &out {
            if let Trial::CannotRun(why) = t {
                d = d.note(format!("{c}: {}", why.replace('\n', "\n    ")));
            }
        }
        return Err(HostError::Autotune(Box::new(d)));
    };
    Ok(TuneOutcome { best, trials: out, seconds: started.elapsed().as_secs_f64() })
}

/// The first place two runs' outputs differ: output param, element type, element index.
struct Difference {
    param: &'static str,
    elem: ScalarType,
    index: usize,
    want: Vec<u8>,
    got: Vec<u8>,
}

fn first_difference(agreement: Agreement, want: &[OutputBytes], got: &[OutputBytes]) -> Option<Difference> {
    want.iter().zip(got).find_map(|(w, g)| {
        let size = (w.elem.size_bytes() as usize).max(1);
        let at = w
            .bytes
            .chunks(size)
            .zip(g.bytes.chunks(size))
            .position(|(a, b)| !agreement.agrees(w.elem, a, b))
            .map(|i| i * size)
            .or_else(|| {
                // Same prefix, different lengths: the first byte past the shorter one.
                (w.bytes.len() != g.bytes.len()).then(|| w.bytes.len().min(g.bytes.len()))
            })?;
        let index = at / size;
        let elem = |b: &[u8]| b.get(index * size..(index + 1) * size).unwrap_or_default().to_vec();
        Some(Difference { param: w.param, elem: w.elem, index, want: elem(&w.bytes), got: elem(&g.bytes) })
    })
}

/// An element's bytes as the value and its bits (little-endian, as the device stores it).
fn show(elem: ScalarType, bytes: &[u8]) -> String {
    let bits = bytes.iter().rev().map(|b| format!("{b:02x}")).collect::<String>();
    match (elem, <[u8; 4]>::try_from(bytes)) {
        (ScalarType::F32, Ok(b)) => format!("{:?} (0x{bits})", f32::from_le_bytes(b)),
        _ => format!("0x{bits}"),
    }
}

fn differ(site: Site<'_>, first: &Config, other: &Config, d: &Difference) -> HostError {
    HostError::Autotune(Box::new(Diagnostic::error(
        Code::AutotuneOutputsDiffer,
        site.kernel,
        site.loc,
        format!(
            "configurations `{first}` and `{other}` wrote different outputs: `{}` element {} is {} with the first and {} with the other",
            d.param,
            d.index,
            show(d.elem, &d.want),
            show(d.elem, &d.got)
        ),
        "the kernel's result depends on its configuration: fix the kernel (a mask, a tail), or remove the configurations that disagree",
    )))
}

/// What `RTRITON_PRINT_AUTOTUNING=1` prints after tuning, in Triton's words, then one
/// line per configuration.
pub fn tuning_report(kernel: &str, key: &str, outcome: &TuneOutcome) -> String {
    let mut s = format!(
        "rtriton autotuning for kernel {kernel},\nwith key as ({key}),\nfinished after {:.2}s,\nbest config selected: {};\n",
        outcome.seconds,
        outcome.best_config()
    );
    for (i, (c, t)) in outcome.trials.iter().enumerate() {
        let what = match t {
            Trial::Timed(s) => format!("{:.4} ms (median of {})", s.median_ms, s.samples),
            Trial::CannotRun(why) => format!("cannot run: {}", why.lines().next().unwrap_or_default()),
        };
        let mark = if i == outcome.best { "  <- best" } else { "" };
        s.push_str(&format!("  {c}: {what}{mark}\n"));
    }
    s
}

#[cfg(test)]
mod tests;
