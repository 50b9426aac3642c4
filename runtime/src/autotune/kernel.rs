//! An autotuned kernel (Triton's `@triton.autotune(configs=..., key=...)` on a
//! `@triton.jit` function): a [`JitKernel`] whose grid closure reads the constexprs, the
//! configurations to choose from, the key arguments and the outputs, and what it chose
//! per key.

use std::collections::HashMap;

use rtriton::diag::{Code, Diagnostic};
use rtriton::ir::{ParamKind, SourceLoc};

use super::gpu::{GpuTrials, zero_user_outputs};
use super::settings::{Mode, Settings};
use super::store::{StoredChoice, TuneStore};
use super::tuner::{Agreement, Site, TuneOutcome, tune, tuning_report};
use super::{Config, TuneKey};
use crate::error::HostError;
use crate::launch::{Arg, JitKernel, LaunchRecord, Meta, Runtime};

/// A fill of an output that the caller performs before every call of some configurations
/// (an accumulator's identity: `row_max_split` combines its programs with `atomic_max` into
/// `y` filled with `-inf`). Tuning does the fill inside each timed launch of those
/// configurations, as Triton's autotuner times a config's `pre_hook` with its kernel, so a
/// configuration is charged for the fill its calls need.
#[derive(Clone, Copy, Debug)]
pub struct CallFill {
    pub param: &'static str,
    /// The 32-bit pattern written to every element of the output's (dense) view.
    pub bits: u32,
    /// The configurations whose calls need the fill.
    pub when: fn(&Config) -> bool,
}

/// What happens to an output buffer between configurations (see `GpuTrials`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OutputReset {
    /// Restored to its contents before tuning (Triton's `restore_value`).
    Restore,
    /// Zeroed before every launch while tuning and before the winner's (Triton's `reset_to_zero`).
    Zero,
}

/// How a launch's configuration was decided.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Decision {
    /// Timed every configuration now (the first launch of this key).
    Tuned,
    /// Chosen earlier in this process for the same key.
    Memory,
    /// Read from the on-disk store (tuned by an earlier process).
    Store,
    /// The launch named its configuration.
    Explicit,
    /// Only one configuration, or tuning turned off (`RTRITON_AUTOTUNE=0`): the first.
    First,
}

/// The configuration chosen for a launch, and how.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Choice {
    pub index: Option<usize>,
    pub config: Config,
    pub decision: Decision,
}

/// How often each way of deciding was taken (for tests and tools).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TuneStats {
    pub tunings: u64,
    pub memory_hits: u64,
    pub store_hits: u64,
    pub explicit: u64,
    pub first: u64,
}

/// A kernel with configurations to choose from by timing them.
#[derive(Debug)]
pub struct Autotuned {
    base: JitKernel,
    configs: Vec<Config>,
    key: Vec<&'static str>,
    /// Key arguments keyed by their power-of-two class rather than their value.
    classes: Vec<&'static str>,
    outputs: Vec<(&'static str, OutputReset)>,
    fills: Vec<CallFill>,
    settings: Result<Settings, Diagnostic>,
    /// Where the autotuner was declared (its errors point here).
    loc: SourceLoc,
    chosen: HashMap<TuneKey, usize>,
    store_failed: bool,
    pub stats: TuneStats,
    /// The last tuning report (what `RTRITON_PRINT_AUTOTUNING=1` printed, or would have).
    pub last_report: Option<String>,
    /// How the configurations' outputs must agree (bit for bit unless `agree_within`).
    agreement: Agreement,
}

impl Autotuned {
    /// `base` (its grid closure reads the constexprs the configurations set) tuned over
    /// `configs`, selecting by the arguments named in `key`. Settings come from the
    /// environment (`RTRITON_AUTOTUNE`...). Name the outputs with [`Autotuned::restore_value`]
    /// or [`Autotuned::reset_to_zero`]. Mistakes are reported, at this call's location, by
    /// the first launch (or [`Autotuned::check`]).
    #[track_caller]
    pub fn new(base: JitKernel, configs: Vec<Config>, key: &[&'static str]) -> Autotuned {
        let settings = Settings::from_env(base.def.name);
        Autotuned {
            base,
            configs,
            key: key.to_vec(),
            classes: Vec::new(),
            outputs: Vec::new(),
            fills: Vec::new(),
            settings,
            loc: SourceLoc::caller(),
            chosen: HashMap::new(),
            store_failed: false,
            stats: TuneStats::default(),
            last_report: None,
            agreement: Agreement::Bits,
        }
    }

    /// Lets the configurations' float outputs agree within `abs` or `rel` of the first's
    /// instead of bit for bit ([`Agreement::Within`]): for a kernel whose tiles change the
    /// order of its float sums.
    pub fn agree_within(mut self, abs: f64, rel: f64) -> Autotuned {
        self.agreement = Agreement::Within { abs, rel };
        self
    }

    /// Key the integer arguments `params` (named in the key) by their power-of-two class
    /// instead of their value ([`super::KeyValue::Pow2Class`]): launches whose values share
    /// a class share a choice, so similar shapes are tuned once.
    pub fn key_classes(mut self, params: &[&'static str]) -> Autotuned {
        self.classes.extend(params);
        self
    }

    /// Outputs restored to their contents between configurations and after tuning.
    pub fn restore_value(mut self, params: &[&'static str]) -> Autotuned {
        self.outputs.extend(params.iter().map(|p| (*p, OutputReset::Restore)));
        self
    }

    /// Outputs zeroed before every launch while tuning and before the winner's launch.
    pub fn reset_to_zero(mut self, params: &[&'static str]) -> Autotuned {
        self.outputs.extend(params.iter().map(|p| (*p, OutputReset::Zero)));
        self
    }

    /// An output the caller fills with the 32-bit pattern `bits` before each call of the
    /// configurations `when` selects ([`CallFill`]); tuning times that fill with their
    /// launches. The output must also be named in `restore_value` or `reset_to_zero`.
    pub fn fill_before_call(mut self, param: &'static str, bits: u32, when: fn(&Config) -> bool) -> Autotuned {
        self.fills.push(CallFill { param, bits, when });
        self
    }

    /// Replaces the settings read from the environment.
    pub fn settings(mut self, settings: Settings) -> Autotuned {
        self.settings = Ok(settings);
        self
    }

    pub fn configs(&self) -> &[Config] {
        &self.configs
    }

    pub fn base(&self) -> &JitKernel {
        &self.base
    }

    /// Replaces the grid closure of later launches. Triton's grid lambda reads the launch's
    /// arguments (`triton.cdiv(n_rows, META["BLOCK_M"])`); here the closure sees the
    /// constexprs only, so a caller that launches one autotuner on several shapes (a key
    /// by class) sets the grid for each launch's arguments first. The grid is not part of
    /// a choice's identity: configurations are chosen per key, whatever the grid.
    pub fn set_grid(&mut self, f: impl Fn(&Meta) -> Result<[u64; 3], String> + Send + Sync + 'static) {
        self.base = self.base.clone().try_grid(f);
    }

    /// The kernel a launch with `config` runs: the base kernel (with its grid) under the
    /// configuration's constexprs and warps.
    pub fn kernel_for(&self, config: &Config) -> JitKernel {
        config.apply(&self.base)
    }

    /// The configuration this autotuner already chose in this process for the key of
    /// `args`, if any (a later launch with these arguments reuses it, `Decision::Memory`);
    /// `None` before the key is tuned, or when the arguments give no key. Reads nothing
    /// from the store and decides nothing.
    pub fn decided(&self, args: &[Arg<'_>]) -> Option<&Config> {
        let key = TuneKey::of_classes(&self.base, &self.key, &self.classes, args).ok()?;
        self.chosen.get(&key).map(|&i| &self.configs[i])
    }

    fn declaration_error(&self, message: String, help: &str) -> HostError {
        HostError::Autotune(Box::new(Diagnostic::error(
            Code::AutotuneDeclaration,
            self.base.def.name,
            self.loc,
            message,
            help,
        )))
    }

    /// Checks the declaration: at least one configuration, none twice, key and output
    /// names that are parameters (outputs: pointers), outputs named when there is a
    /// choice to check, and the environment's settings.
    pub fn check(&self) -> Result<&Settings, HostError> {
        let def = &self.base.def;
        let settings = self.settings.as_ref().map_err(|d| HostError::Autotune(Box::new(d.clone())))?;
        if self.configs.is_empty() {
            return Err(self.declaration_error("no configurations to choose from".into(), "give at least one Config"));
        }
        if let Some((i, c)) = self.configs.iter().enumerate().find(|(i, c)| self.configs[..*i].contains(c)) {
            return Err(
                self.declaration_error(format!("configuration {i} (`{c}`) is declared twice"), "remove the duplicate")
            );
        }
        let names = || def.params.iter().map(|p| p.name).collect::<Vec<_>>().join(", ");
        if let Some(k) = self.key.iter().find(|k| def.param(k).is_none()) {
            return Err(self.declaration_error(
                format!("the key names `{k}`, which is not a parameter of `{}`", def.name),
                &format!("name parameters among: {}", names()),
            ));
        }
        if let Some(c) = self.classes.iter().find(|c| {
            !self.key.contains(c)
                || !matches!(def.param(c), Some((_, p)) if matches!(p.kind, ParamKind::Scalar(t) if t.is_int()))
        }) {
            return Err(self.declaration_error(
                format!("`{c}` is keyed by class, but it is not an integer parameter named in the key"),
                &format!("key by class only integer parameters the key names, among: {}", self.key.join(", ")),
            ));
        }
        if let Some((o, _)) = self
            .outputs
            .iter()
            .find(|(o, _)| !matches!(def.param(o), Some((_, p)) if matches!(p.kind, ParamKind::Ptr(_))))
        {
            return Err(self.declaration_error(
                format!("the output `{o}` is not a pointer parameter of `{}`", def.name),
                &format!("name the pointer parameters the kernel stores to, among: {}", names()),
            ));
        }
        if let Some(f) = self.fills.iter().find(|f| !self.outputs.iter().any(|(o, _)| *o == f.param)) {
            return Err(self.declaration_error(
                format!("`{}` is filled before calls, but it is not a named output", f.param),
                "name it in restore_value (or reset_to_zero) too, so tuning keeps your buffer",
            ));
        }
        if self.outputs.is_empty() && self.configs.len() > 1 && settings.mode != Mode::Off {
            return Err(self.declaration_error(
                "no outputs named: tuning could neither check the configurations' results nor keep your buffers".into(),
                "name the pointer parameters the kernel stores to with .restore_value(&[...]) (or .reset_to_zero(&[...]) for accumulators)",
            ));
        }
        Ok(settings)
    }

    /// The identity a stored choice is for (see the store's doc): the kernel and its
    /// definition site, the key, the configurations, `device`, the compiler build and what
    /// else changes the PTX or the timing.
    pub fn identity(&self, device: &str, key: &TuneKey, settings: &Settings) -> String {
        let def = &self.base.def;
        let configs: Vec<String> = self.configs.iter().map(Config::to_string).collect();
        format!(
            "{}@{} key({key}) configs[{}] device({device}) compiler({}) policy({:?}) trace({:?}) timing(warmup {}, reps {})",
            def.name,
            def.loc.short(),
            configs.join("; "),
            crate::cache::compiler_identity(),
            self.base.spec_policy,
            self.base.trace_options,
            settings.warmup,
            settings.reps,
        )
    }

    /// Decides the configuration of a launch with `args` on `device`, calling `tune_now`
    /// (which times the configurations on the device) only when nothing decided it before.
    /// No GPU needed: [`Autotuned::launch`] passes the real tuning, tests a fake.
    pub fn choose(
        &mut self,
        device: &str,
        args: &[Arg<'_>],
        explicit: Option<&Config>,
        tune_now: impl FnOnce(Site<'_>, &[Config], &Settings) -> Result<TuneOutcome, HostError>,
    ) -> Result<Choice, HostError> {
        if let Some(c) = explicit {
            self.stats.explicit += 1;
            let index = self.configs.iter().position(|d| d == c);
            return Ok(Choice { index, config: c.clone(), decision: Decision::Explicit });
        }
        let settings = self.check()?.clone();
        let first = |s: &mut Self| {
            s.stats.first += 1;
            Ok(Choice { index: Some(0), config: s.configs[0].clone(), decision: Decision::First })
        };
        if self.configs.len() == 1 || settings.mode == Mode::Off {
            return first(self);
        }
        let key = TuneKey::of_classes(&self.base, &self.key, &self.classes, args)?;
        if let Some(&i) = self.chosen.get(&key) {
            self.stats.memory_hits += 1;
            return Ok(Choice { index: Some(i), config: self.configs[i].clone(), decision: Decision::Memory });
        }
        let kernel = self.base.def.name;
        let identity = self.identity(device, &key, &settings);
        let store = settings.store_dir.as_ref().filter(|_| !self.store_failed).map(TuneStore::new);
        if let Some(stored) = store.as_ref().and_then(|s| s.get(kernel, &identity))
            && let Some(i) = self.configs.iter().position(|c| c.to_string() == stored.best)
        {
            self.stats.store_hits += 1;
            self.chosen.insert(key.clone(), i);
            let path = store.as_ref().map(|s| s.path(kernel, &identity).display().to_string()).unwrap_or_default();
            self.report(&settings, format!(
                "rtriton autotuning for kernel {kernel},\nwith key as ({key}),\nread from {path},\nbest config selected: {};\n",
                self.configs[i]
            ));
            return Ok(Choice { index: Some(i), config: self.configs[i].clone(), decision: Decision::Store });
        }
        let site = Site { kernel, loc: self.loc, agreement: self.agreement };
        let outcome = tune_now(site, &self.configs, &settings)?;
        self.stats.tunings += 1;
        self.chosen.insert(key.clone(), outcome.best);
        if let Some(store) = &store
            && let Err(e) = store.put(kernel, &StoredChoice::of(&identity, &outcome))
        {
            // A store that cannot be written costs tunings in later processes, not this
            // launch: say so once and go on in memory.
            eprintln!("warning: {e}; autotuning results are kept in memory only");
            self.store_failed = true;
        }
        self.report(&settings, tuning_report(kernel, &key.to_string(), &outcome));
        Ok(Choice { index: Some(outcome.best), config: outcome.best_config().clone(), decision: Decision::Tuned })
    }

    fn report(&mut self, settings: &Settings, text: String) {
        if settings.print {
            eprint!("{text}");
        }
        self.last_report = Some(text);
    }

    /// `kernel[grid](args)` with the configuration tuned for these arguments: the first
    /// launch of a new key times every configuration (see [`super::GpuTrials`] for what
    /// happens to the buffers), later launches of the key reuse the winner.
    pub fn launch(&mut self, rt: &mut Runtime, args: &[Arg<'_>]) -> Result<(Choice, LaunchRecord), HostError> {
        let device = device_identity(rt);
        let base = self.base.clone();
        let outputs = self.outputs.clone();
        let fills = self.fills.clone();
        let choice = self.choose(&device, args, None, |site, configs, settings| {
            let mut trials = GpuTrials::new(rt, &base, args, &outputs)?.with_fills(&fills)?;
            let tuned = tune(site, configs, &mut trials, settings.warmup, settings.reps);
            let restored = trials.finish();
            let outcome = tuned?;
            restored?;
            Ok(outcome)
        })?;
        if choice.decision == Decision::Tuned {
            zero_user_outputs(rt, &self.base, args, &self.outputs)?;
        }
        let record = rt.launch(&choice.config.apply(&self.base), args)?;
        Ok((choice, record))
    }

    /// `kernel[grid](args)` with `config`, whatever was tuned: no tuning, no timing.
    pub fn launch_config(
        &mut self,
        rt: &mut Runtime,
        config: &Config,
        args: &[Arg<'_>],
    ) -> Result<(Choice, LaunchRecord), HostError> {
        let choice =
            self.choose("", args, Some(config), |_, _, _| unreachable!("an explicit configuration is not tuned"))?;
        let record = rt.launch(&config.apply(&self.base), args)?;
        Ok((choice, record))
    }
}

/// The device as the store's identity names it: name, compute capability, driver.
pub fn device_identity(rt: &Runtime) -> String {
    let i = &rt.gpu.info;
    format!("{} sm_{}{} driver {}", i.name, i.compute_capability.0, i.compute_capability.1, i.driver_version)
}

#[cfg(test)]
mod tests;
