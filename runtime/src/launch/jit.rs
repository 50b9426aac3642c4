//! A kernel with its launch configuration: what `kernel[grid]` binds before the arguments.

use std::sync::Arc;

use rtriton::backend::ptx::Arch;
use rtriton::lint::LintOptions;
use rtriton::spec::SpecPolicy;
use rtriton::trace::{KernelDef, TraceOptions};

use super::LaunchError;

/// The constexprs of a launch, as the grid closure sees them (`meta["BLOCK_M"]`).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Meta(pub Vec<(&'static str, i64)>);

impl Meta {
    pub fn get(&self, name: &str) -> Option<i64> {
        self.0.iter().find(|(n, _)| *n == name).map(|(_, v)| *v)
    }
}

type GridFn = Arc<dyn Fn(&Meta) -> Result<[u64; 3], String> + Send + Sync>;

/// A kernel with its launch configuration: constexprs, `num_warps`, the grid closure,
/// the specialization policy and trace options.
#[derive(Clone)]
pub struct JitKernel {
    pub def: KernelDef,
    pub meta: Meta,
    pub num_warps: u32,
    /// CTAs an SM should hold at once (`.minnctapersm`; 0: no bound), see
    /// `rtriton::backend::ptx::PtxOptions::min_ctas_per_sm`.
    pub min_ctas_per_sm: u32,
    pub spec_policy: SpecPolicy,
    pub trace_options: TraceOptions,
    /// The portability lint run on the first compile of each constexpr set: `Some`
    /// (the default) prints its findings as warnings once per process, or refuses the
    /// launch when `deny` is set; `None` skips it.
    pub lint: Option<LintOptions>,
    /// Pointer parameters the kernel is meant to update in place ([`JitKernel::in_place`]):
    /// the launch lets them overlap other tensor arguments.
    pub in_place: Vec<&'static str>,
    /// Debug mode (Triton's `debug=True`): `device_print` and `device_assert` are compiled
    /// in (`rtriton::backend::ptx::PtxOptions::debug`). Also on for every kernel when the
    /// environment has `TRITON_DEBUG=1`, as in Triton.
    pub debug: bool,
    /// Launch even when the driver's compile spills registers to local memory (refused
    /// with `RT0719` otherwise, as a configuration that runs out of resources).
    pub allow_spills: bool,
    /// The architecture the PTX targets ([`JitKernel::arch`]; sm_86 by default).
    pub arch: Arch,
    grid: GridFn,
}

impl std::fmt::Debug for JitKernel {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("JitKernel")
            .field("kernel", &self.def.name)
            .field("meta", &self.meta)
            .field("num_warps", &self.num_warps)
            .field("min_ctas_per_sm", &self.min_ctas_per_sm)
            .field("spec_policy", &self.spec_policy)
            .field("arch", &self.arch)
            .finish_non_exhaustive()
    }
}

impl JitKernel {
    /// `def` with no constexprs, 4 warps, Triton's specialization and a 1x1x1 grid.
    pub fn new(def: KernelDef) -> JitKernel {
        JitKernel {
            def,
            meta: Meta::default(),
            num_warps: 4,
            min_ctas_per_sm: 0,
            spec_policy: SpecPolicy::Triton,
            trace_options: TraceOptions::default(),
            lint: Some(LintOptions::default()),
            in_place: Vec::new(),
            debug: false,
            allow_spills: false,
            arch: Arch::default(),
            grid: Arc::new(|_| Ok([1, 1, 1])),
        }
    }

    /// This launch configuration with another definition (a generic kernel's instance).
    pub(crate) fn with_def(&self, def: KernelDef) -> JitKernel {
        JitKernel { def, ..self.clone() }
    }

    pub fn constexpr(mut self, name: &'static str, value: i64) -> JitKernel {
        self.meta.0.retain(|(n, _)| *n != name);
        self.meta.0.push((name, value));
        self
    }

    pub fn constexprs(self, values: &[(&'static str, i64)]) -> JitKernel {
        values.iter().fold(self, |k, (n, v)| k.constexpr(n, *v))
    }

    pub fn num_warps(mut self, num_warps: u32) -> JitKernel {
        self.num_warps = num_warps;
        self
    }

    /// Asks ptxas to fit `n` CTAs per SM (`.minnctapersm n`; 0: no bound).
    pub fn min_ctas_per_sm(mut self, n: u32) -> JitKernel {
        self.min_ctas_per_sm = n;
        self
    }

    /// Compiles `device_print` and `device_assert` in (Triton's `debug=True`).
    pub fn debug(mut self, on: bool) -> JitKernel {
        self.debug = on;
        self
    }

    /// See [`JitKernel::allow_spills`](JitKernel#structfield.allow_spills).
    pub fn allow_spills(mut self, on: bool) -> JitKernel {
        self.allow_spills = on;
        self
    }

    /// Compiles for `arch` (`.target`; the default is sm_86, which every supported GPU
    /// runs). A newer target may use instructions sm_86 lacks (the fp8 conversions of
    /// sm_89 and sm_90); a launch on a device of a lower compute capability is refused
    /// (`RT0720`).
    pub fn arch(mut self, arch: Arch) -> JitKernel {
        self.arch = arch;
        self
    }

    pub fn spec_policy(mut self, policy: SpecPolicy) -> JitKernel {
        self.spec_policy = policy;
        self
    }

    pub fn trace_options(mut self, options: TraceOptions) -> JitKernel {
        self.trace_options = options;
        self
    }

    /// How the portability lint runs at compile time (`None`: not at all).
    pub fn lint(mut self, lint: Option<LintOptions>) -> JitKernel {
        self.lint = lint;
        self
    }

    /// Declares that the kernel works in place on pointer parameter `param` (it reads and
    /// writes the same elements, `x[i] = f(x[i])`, each program before any other touches
    /// them): a tensor passed there may overlap the other tensor arguments. Without it, a
    /// launch whose output overlaps another tensor argument is refused (`RT0714`).
    pub fn in_place(mut self, param: &'static str) -> JitKernel {
        if !self.in_place.contains(&param) {
            self.in_place.push(param);
        }
        self
    }

    /// The grid from the constexprs (Triton's `grid = lambda meta: (...)`).
    pub fn grid(mut self, f: impl Fn(&Meta) -> [u64; 3] + Send + Sync + 'static) -> JitKernel {
        self.grid = Arc::new(move |m| Ok(f(m)));
        self
    }

    /// A grid closure that reads constexprs by name and may miss one (reported as
    /// [`LaunchError::MissingConstexpr`]); `Err(name)` names the missing constexpr.
    pub fn try_grid(mut self, f: impl Fn(&Meta) -> Result<[u64; 3], String> + Send + Sync + 'static) -> JitKernel {
        self.grid = Arc::new(f);
        self
    }

    /// Evaluates the grid closure. Its `Err` is the name of a missing constexpr when it is
    /// an identifier the launch does not set (what `m.get("BLOCK_M").ok_or("BLOCK_M")?`
    /// returns); any other text is the closure's own failure, reported as it is.
    pub fn grid_for_launch(&self) -> Result<[u64; 3], LaunchError> {
        (self.grid)(&self.meta).map_err(|message| {
            let kernel = self.def.name.to_string();
            let identifier = !message.is_empty()
                && message.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
                && !message.starts_with(|c: char| c.is_ascii_digit());
            if identifier && self.meta.get(&message).is_none() {
                LaunchError::MissingConstexpr { kernel, name: message }
            } else {
                LaunchError::GridClosure { kernel, message }
            }
        })
    }
}
