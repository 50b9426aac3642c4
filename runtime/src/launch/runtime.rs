//! The runtime: a device plus the compiled-kernel caches, through which launches go.

use std::collections::{HashMap, HashSet};
use std::sync::Arc;

use cudarc::driver::{CudaContext, CudaStream};

use rtriton::analysis::writes::written_params;
use rtriton::diag::{Diagnostic, Diagnostics};
use rtriton::guard::OffsetWidths;
use rtriton::spec::SpecKey;

use rtriton::session::{CompileSession, SessionStats, StageKey};

use super::instances::Instances;
use super::signature::{Device, LaunchCache, host_path, raw_params, signature};
use super::{
    Arg, JitKernel, LaunchError, arg_values, check_arch, check_args, check_block, check_grid, check_overlap,
    check_shared, compile_kernel, debug_mode, front_end, needs_overflow_guard, overflow_guard, ptx_options,
    tensor_extents,
};
use crate::cache::{CacheKey, CompiledPtx, DiskCache};
use crate::driver::{Gpu, LoadedModule};
use crate::error::HostError;

/// Where a launch's kernel came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct CacheStats {
    pub memory_hits: u64,
    pub disk_hits: u64,
    pub compiles: u64,
}

/// What one launch did (for tables and tests). Cheap to clone: every launch of a
/// prepared signature returns the same key and specialization.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LaunchRecord {
    pub spec: Arc<SpecKey>,
    pub key: Arc<CacheKey>,
    pub grid: [u32; 3],
    pub threads_per_cta: u32,
}

#[derive(Debug)]
struct Loaded {
    ptx: CompiledPtx,
    module: LoadedModule,
}

/// A kernel (name and body: a generic kernel's instances share the name) and its constexprs.
type LintId = (String, usize, Vec<(&'static str, i64)>);

/// A device plus the compiled-kernel caches: what launches go through.
pub struct Runtime {
    pub gpu: Gpu,
    disk: Option<DiskCache>,
    modules: HashMap<CacheKey, Arc<Loaded>>,
    /// The stage driver: the guard, the lint and the compile of one kernel share its
    /// traces, so a launch traces each kernel once.
    session: CompileSession,
    /// The overflow guard's summary per kernel, computed on the first launch that needs
    /// it (a tensor past `i32::MAX` elements) from the session's trace.
    offset_widths: HashMap<CacheKey, OffsetWidths>,
    /// Lint findings per kernel and constexpr set, computed on the first compile.
    lint_findings: HashMap<LintId, Vec<Diagnostic>>,
    /// Findings already printed: the same finding under another constexpr set (another
    /// BLOCK) is printed once per process.
    lint_printed: HashSet<Diagnostic>,
    compiler: String,
    /// The fast path: prepared launches by signature.
    prepared: LaunchCache<Arc<Loaded>>,
    /// Launches enqueued so far (what a graph capture counts).
    launches: u64,
    /// The instances of generic kernels launched so far.
    instances: Instances,
    pub stats: CacheStats,
}

impl std::fmt::Debug for Runtime {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Runtime")
            .field("gpu", &self.gpu.info)
            .field("disk", &self.disk)
            .field("modules", &self.modules.len())
            .field("prepared", &self.prepared.len())
            .field("stats", &self.stats)
            .finish()
    }
}

impl Runtime {
    /// Opens device 0 with the disk cache at `cache_dir()` (see [`crate::cache::cache_dir`]).
    pub fn new() -> Result<Runtime, HostError> {
        Ok(Runtime::with_disk_cache(Gpu::open(0)?, DiskCache::from_env()))
    }

    /// A runtime on a context and stream the caller already has (see [`Gpu::from_cudarc`]),
    /// with the disk cache at `cache_dir()`: launches go to `stream` unless
    /// [`Runtime::launch_on`] names another, and cudarc allocations of `ctx` are launch
    /// arguments without copies ([`TensorArg::cuda`](super::TensorArg::cuda)).
    pub fn from_cudarc(ctx: Arc<CudaContext>, stream: Arc<CudaStream>) -> Result<Runtime, HostError> {
        Ok(Runtime::with_disk_cache(Gpu::from_cudarc(ctx, stream)?, DiskCache::from_env()))
    }

    /// The newest target this device runs, for [`JitKernel::arch`]: `arch_specific` opts
    /// into `sm_90a` (`wgmma`) on a device of compute capability 9.0 (H100, H200), whose
    /// code no other device runs; without it, or on another device, the newest portable
    /// target (`Arch::newest_for`).
    pub fn newest_arch(&self, arch_specific: bool) -> rtriton::backend::ptx::Arch {
        let (major, minor) = self.gpu.info.compute_capability;
        rtriton::backend::ptx::Arch::newest_for((major.max(0) as u32, minor.max(0) as u32), arch_specific)
            .unwrap_or(rtriton::backend::ptx::Arch::Sm80)
    }

    pub fn with_disk_cache(gpu: Gpu, disk: Option<DiskCache>) -> Runtime {
        Runtime {
            gpu,
            disk,
            modules: HashMap::new(),
            session: CompileSession::new(),
            offset_widths: HashMap::new(),
            lint_findings: HashMap::new(),
            lint_printed: HashSet::new(),
            compiler: crate::cache::compiler_identity(),
            prepared: LaunchCache::default(),
            launches: 0,
            instances: Instances::default(),
            stats: CacheStats::default(),
        }
    }

    /// The same runtime on a freshly reset device context, after a sticky error
    /// ([`HostError::ContextPoisoned`]): loaded modules are dropped (they lived in the old
    /// context) and are compiled again, or read from the disk cache, on the next launch; the
    /// disk cache, the lint and guard state and the statistics are kept. Buffers allocated on the old
    /// context are gone: drop them before calling, allocate again after.
    pub fn recover(mut self) -> Result<Runtime, HostError> {
        self.modules.clear();
        self.prepared.clear();
        self.instances.clear();
        let disk = self.disk.take();
        let Runtime { gpu, session, offset_widths, lint_findings, lint_printed, compiler, stats, .. } = self;
        let mut rt = Runtime::with_disk_cache(gpu.reset()?, disk);
        (rt.session, rt.offset_widths, rt.lint_findings, rt.lint_printed, rt.compiler, rt.stats) =
            (session, offset_widths, lint_findings, lint_printed, compiler, stats);
        Ok(rt)
    }

    /// Checks the arguments and grid, specializes, runs the overflow guard, and compiles or
    /// loads the kernel for them, without launching (so a timed launch afterwards is the
    /// kernel only).
    pub fn prepare(&mut self, kernel: &JitKernel, args: &[Arg<'_>]) -> Result<LaunchRecord, HostError> {
        if kernel.def.is_generic() {
            let instance = self.instances.resolve(kernel, args)?;
            return self.prepare(&instance, args);
        }
        self.prepare_loaded(kernel, args).map(|(record, _)| record)
    }

    /// The full path: every check, the specialization and the cache key built, the guard,
    /// the lint, the kernel compiled or found; the result kept for the fast path.
    fn prepare_loaded(
        &mut self,
        kernel: &JitKernel,
        args: &[Arg<'_>],
    ) -> Result<(LaunchRecord, Arc<Loaded>), HostError> {
        let def = &kernel.def;
        check_args(def.name, &def.params, args, self.gpu.device_id())?;
        let values = arg_values(def.name, &def.params, args)?;
        let spec = SpecKey::from_args(def.name, &def.params, &values, kernel.spec_policy).map_err(LaunchError::from)?;
        let grid = check_grid(def.name, kernel.grid_for_launch()?, self.gpu.info.max_grid)?;
        check_arch(def.name, kernel.arch, self.gpu.info.compute_capability)?;
        check_overlap(def.name, &def.params, args, &kernel.in_place, || {
            front_end(&mut self.session, kernel, &spec).map(|v| written_params(v.kernel()))
        })??;
        let key = self.key(kernel, &spec);
        self.guard(kernel, &spec, &key, args)?;
        self.lint(kernel)?;
        let loaded = self.load(kernel, &spec, &key)?;
        check_block(def.name, loaded.ptx.threads_per_cta, self.gpu.info.max_threads_per_block, kernel.num_warps)?;
        let record = LaunchRecord {
            spec: Arc::new(spec),
            key: Arc::new(key),
            grid,
            threads_per_cta: loaded.ptx.threads_per_cta,
        };
        let debug = debug_mode(kernel);
        if let Some(sig) = signature(kernel, args, debug) {
            self.prepared.insert(kernel, sig, debug, record.clone(), loaded.clone());
        }
        Ok((record, loaded))
    }

    /// Checks, specializes, compiles (or finds in a cache) and enqueues one launch on the
    /// runtime's stream. Does not wait: call `rt.gpu.synchronize()` (or copy results back)
    /// to see faults.
    pub fn launch(&mut self, kernel: &JitKernel, args: &[Arg<'_>]) -> Result<LaunchRecord, HostError> {
        let stream = self.gpu.stream.clone();
        self.launch_on(&stream, kernel, args)
    }

    /// [`Runtime::launch`] on `stream`, a stream of the runtime's context the caller chose
    /// (a cudarc stream, or the one candle or burn computes on). Work on `stream` is
    /// ordered with it; buffers made by [`DeviceBuffer`](crate::driver::DeviceBuffer) copy
    /// on the runtime's own stream, so synchronize `stream` before reading them back.
    pub fn launch_on(
        &mut self,
        stream: &CudaStream,
        kernel: &JitKernel,
        args: &[Arg<'_>],
    ) -> Result<LaunchRecord, HostError> {
        self.check_stream(kernel.def.name, stream)?;
        if kernel.def.is_generic() {
            let instance = self.instances.resolve(kernel, args)?;
            return self.launch_on(stream, &instance, args);
        }
        let device = Device { id: self.gpu.device_id(), max_grid: self.gpu.info.max_grid };
        let (record, loaded, params) =
            match host_path(&self.prepared, kernel, args, device, stream.cu_stream() as usize)? {
                Some(hit) => {
                    self.stats.memory_hits += 1;
                    hit
                }
                None => {
                    let (record, loaded) = self.prepare_loaded(kernel, args)?;
                    (record, loaded, raw_params(&kernel.def, args)?)
                }
            };
        // SAFETY: `check_args` matched count and types to the declaration, the PTX
        // signature has every runtime parameter in declaration order with these types
        // (back-end invariant), every pointer is a live buffer of this device's context
        // whose view lies inside it, and the buffers are borrowed by `args` for this call;
        // `stream` belongs to the context the module was loaded in (`check_stream`). What
        // the kernel does with its scalars is its own business, as in Triton: a kernel told
        // a wider row than its view reads outside it, which the device reports as an
        // illegal-address error on the next synchronization (it cannot touch host memory).
        unsafe {
            loaded.module.launch_on(stream, record.grid, [loaded.ptx.threads_per_cta, 1, 1], &params)?;
        }
        self.launches += 1;
        Ok(record)
    }

    /// Launches enqueued through this runtime so far.
    pub fn launch_count(&self) -> u64 {
        self.launches
    }

    /// Refuses a stream of another context than the runtime's (`RT0717`).
    pub(crate) fn check_stream(&self, kernel: &str, stream: &CudaStream) -> Result<(), LaunchError> {
        if stream.context().cu_ctx() == self.gpu.ctx.cu_ctx() {
            Ok(())
        } else {
            Err(LaunchError::StreamContext {
                kernel: kernel.into(),
                why: "the stream belongs to another context than the runtime's".into(),
            })
        }
    }

    /// Runs the portability lint once per kernel and constexpr set (the lint traces the
    /// kernel unspecialized, so one run covers every specialization): findings are printed
    /// to stderr as warnings, or refuse the launch when the kernel asks to deny them.
    fn lint(&mut self, kernel: &JitKernel) -> Result<(), HostError> {
        let Some(options) = &kernel.lint else { return Ok(()) };
        let id = (kernel.def.name.to_string(), kernel.def.body as usize, kernel.meta.0.clone());
        if !self.lint_findings.contains_key(&id) {
            // The lint reads the unspecialized trace. A kernel that traces only under its
            // specialization (a tensor descriptor whose last stride is an argument folded to
            // 1) has nothing to lint there; what the kernel itself gets wrong, the
            // specialized compile reports.
            let findings = self.session.lint(&kernel.def, &kernel.meta.0, options).unwrap_or_default();
            if !options.deny {
                for f in &findings {
                    if self.lint_printed.insert(f.clone()) {
                        eprintln!("{f}");
                    }
                }
            }
            self.lint_findings.insert(id.clone(), findings);
        }
        let findings = &self.lint_findings[&id];
        if options.deny && !findings.is_empty() {
            return Err(HostError::LintDenied(Diagnostics(findings.clone())));
        }
        Ok(())
    }

    /// How often the runtime's compile session ran each stage (each kernel is traced once
    /// per specialization, whatever the guard, the lint and the compile need).
    pub fn compile_stats(&self) -> SessionStats {
        self.session.stats()
    }

    /// The lint findings of every kernel compiled so far (warnings already printed).
    pub fn lint_findings(&self) -> impl Iterator<Item = &Diagnostic> {
        self.lint_findings.values().flatten()
    }

    /// [`guard_launch`] on the session's trace, with the kernel's offset summary kept per
    /// cache key.
    fn guard(&mut self, kernel: &JitKernel, spec: &SpecKey, key: &CacheKey, args: &[Arg<'_>]) -> Result<(), HostError> {
        let extents = tensor_extents(&kernel.def.params, args);
        if !needs_overflow_guard(&extents) {
            return Ok(());
        }
        if !self.offset_widths.contains_key(key) {
            let verified = front_end(&mut self.session, kernel, spec)?;
            self.offset_widths.insert(key.clone(), OffsetWidths::of(verified.kernel()));
        }
        Ok(overflow_guard(&self.offset_widths[key], &extents)?)
    }

    /// The full cache key of `kernel` under `spec` (see [`cache_key`]).
    pub fn key(&self, kernel: &JitKernel, spec: &SpecKey) -> CacheKey {
        cache_key(kernel, spec, &self.compiler)
    }

    fn load(&mut self, kernel: &JitKernel, spec: &SpecKey, key: &CacheKey) -> Result<Arc<Loaded>, HostError> {
        if let Some(l) = self.modules.get(key) {
            self.stats.memory_hits += 1;
            spill_check(kernel, &l.ptx.text, l.module.registers, l.module.local_bytes)?;
            return Ok(l.clone());
        }
        let ptx = match self.disk.as_ref().and_then(|d| d.get(key)) {
            Some(ptx) => {
                self.stats.disk_hits += 1;
                ptx
            }
            None => {
                let ptx = compile_kernel(&mut self.session, kernel, spec)?;
                self.stats.compiles += 1;
                // A cache that cannot be written costs recompiles, not the launch: say so
                // once and go on without it.
                if let Some(Err(e)) = self.disk.as_ref().map(|d| d.put(key, &ptx)) {
                    eprintln!("warning: {e}; continuing without the on-disk PTX cache");
                    self.disk = None;
                }
                ptx
            }
        };
        check_shared(kernel.def.name, &ptx, self.gpu.info.max_shared_bytes_optin)?;
        let mut module = LoadedModule::load_with_shared(&self.gpu, &ptx.text, &ptx.entry, ptx.dynamic_shared_bytes())?;
        module.tensor_maps =
            ptx.tensor_maps.iter().map(|m| m.to_map()).collect::<Option<Vec<_>>>().ok_or_else(|| {
                HostError::Driver {
                    op: "cuModuleLoadData",
                    message: format!("kernel `{}`: a cached tensor map names an unknown element type", ptx.entry),
                }
            })?;
        let loaded = Arc::new(Loaded { ptx, module });
        self.modules.insert(key.clone(), loaded.clone());
        spill_check(kernel, &loaded.ptx.text, loaded.module.registers, loaded.module.local_bytes)?;
        Ok(loaded)
    }
}

/// Refuses a kernel whose compile for the device spilled registers (`RT0719`) unless it
/// allows spills: a spilling configuration reads its values back from memory in the
/// inner loop, the "out of resources" Triton's autotuner prunes. Only PTX without `.local`
/// arrays of its own is judged (debug mode's `vprintf` buffers are local), so what the
/// driver reports as local memory is spilled registers.
pub(crate) fn spill_check(kernel: &JitKernel, ptx: &str, registers: u32, local_bytes: u32) -> Result<(), LaunchError> {
    if kernel.allow_spills || local_bytes == 0 || ptx.contains(".local") {
        return Ok(());
    }
    Err(LaunchError::RegisterSpill {
        kernel: kernel.def.name.into(),
        local_bytes,
        registers,
        num_warps: kernel.num_warps,
    })
}

/// The launch-time overflow guard for one launch of `kernel` under `spec` (what
/// [`Runtime::prepare`] and [`Runtime::launch`] run before compiling, loading or
/// launching): when a tensor argument's view reaches past `i32::MAX` elements, traces the
/// kernel for this specialization and refuses with [`LaunchError::IndexOverflow`] if an
/// offset into that tensor is computed in i32. Launches on smaller tensors cost nothing
/// (no trace); the runtime keeps each kernel's summary, so it traces once per kernel.
/// Pure: no device and no allocation, so it runs on fake views of any size.
pub fn guard_launch(
    session: &mut CompileSession,
    kernel: &JitKernel,
    spec: &SpecKey,
    args: &[Arg<'_>],
) -> Result<(), HostError> {
    let extents = tensor_extents(&kernel.def.params, args);
    if !needs_overflow_guard(&extents) {
        return Ok(());
    }
    let verified = front_end(session, kernel, spec)?;
    Ok(overflow_guard(&OffsetWidths::of(verified.kernel()), &extents)?)
}

/// The full cache key of `kernel` under `spec` for the compiler build `compiler`: the
/// session's stage key (name, definition site, sorted constexprs, specialization, trace
/// options) and the PTX options.
pub fn cache_key(kernel: &JitKernel, spec: &SpecKey, compiler: &str) -> CacheKey {
    CacheKey {
        stage: StageKey::new(&kernel.def, &kernel.meta.0, spec, &kernel.trace_options),
        ptx_options: ptx_options(kernel),
        compiler: compiler.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use rtriton::diag::{Code, HasDiagnostics};
    use rtriton::ir::ScalarType;
    use rtriton::spec::{ArgValue, SpecPolicy};
    use rtriton_kernels::RowMaxVariant;

    use super::*;
    use crate::driver::RawBuffer;
    use crate::launch::TensorArg;

    fn spec(kernel: &JitKernel, x_addr: u64, stride_col: i64) -> SpecKey {
        let args = [
            ArgValue::Ptr(x_addr),
            ArgValue::Ptr(0x2000),
            ArgValue::Int(4),
            ArgValue::Int(64),
            ArgValue::Int(64),
            ArgValue::Int(stride_col),
        ];
        SpecKey::from_args(kernel.def.name, &kernel.def.params, &args, kernel.spec_policy).unwrap()
    }

    /// A spilling compile is refused with `RT0719`, naming the figures and the way out;
    /// allowed spills, debug mode's own `.local` buffers and a compile with no local
    /// memory pass.
    #[test]
    fn a_compile_that_spills_is_refused_unless_allowed() {
        let k = JitKernel::new(RowMaxVariant::RowMax2d.def()).num_warps(8);
        let e = spill_check(&k, ".entry row_max_2d()", 255, 48).unwrap_err();
        assert_eq!(e.diagnostics()[0].code, Code::LaunchRegisterSpill);
        let text = e.to_string();
        for words in [
            "kernel `row_max_2d`",
            "spills 48 bytes per thread",
            "255 registers",
            "num_warps = 8",
            "allow_spills(true)",
        ] {
            assert!(text.contains(words), "{words:?}: {text}");
        }
        assert!(spill_check(&k.clone().allow_spills(true), ".entry row_max_2d()", 255, 48).is_ok());
        assert!(spill_check(&k, ".local .align 8 .b8 print_args[16];", 40, 16).is_ok());
        assert!(spill_check(&k, ".entry row_max_2d()", 40, 0).is_ok());
    }

    #[test]
    fn the_key_follows_everything_that_changes_the_ptx() {
        let k = JitKernel::new(RowMaxVariant::RowMax2d.def()).constexpr("BLOCK_M", 16).constexpr("BLOCK_N", 64);
        let base = cache_key(&k, &spec(&k, 0x1000, 1), "c");
        assert_eq!(base.stage.site, k.def.loc);
        assert_eq!(base.stage.constexprs, [("BLOCK_M".to_string(), 16), ("BLOCK_N".to_string(), 64)]);
        // Constexpr order does not matter.
        let swapped = JitKernel::new(RowMaxVariant::RowMax2d.def()).constexpr("BLOCK_N", 64).constexpr("BLOCK_M", 16);
        assert_eq!(cache_key(&swapped, &spec(&swapped, 0x1000, 1), "c"), base);
        // The actual address's alignment, a stride of 1, warps, policy and the compiler do.
        assert_ne!(cache_key(&k, &spec(&k, 0x1004, 1), "c"), base);
        assert_ne!(cache_key(&k, &spec(&k, 0x1000, 2), "c"), base);
        let k8 = k.clone().num_warps(8);
        assert_ne!(cache_key(&k8, &spec(&k8, 0x1000, 1), "c"), base);
        // The target, with the `.version` it needs.
        let sm89 = k.clone().arch(rtriton::backend::ptx::Arch::Sm89);
        let key89 = cache_key(&sm89, &spec(&sm89, 0x1000, 1), "c");
        assert_ne!(key89, base);
        assert_eq!((key89.ptx_options.arch.name(), key89.ptx_options.ptx_version), ("sm_89", (8, 1)));
        assert!(key89.to_string().contains("ptx(sm_89 w4 8.1)"), "{key89}");
        let off = k.clone().spec_policy(SpecPolicy::Off);
        assert_ne!(cache_key(&off, &spec(&off, 0x1000, 1), "c"), base);
        assert_ne!(cache_key(&k, &spec(&k, 0x1000, 1), "other build"), base);
        // Another kernel of the same name elsewhere does not share entries.
        let mut elsewhere = k.clone();
        elsewhere.def.loc.line += 1;
        assert_ne!(cache_key(&elsewhere, &spec(&elsewhere, 0x1000, 1), "c"), base);
    }

    /// A launch of `variant` on a fake `n_rows x n_cols` view with strides
    /// `(stride_row, stride_col)`: the buffer is an address and a length, nothing is
    /// allocated, so views past 2^31 elements cost nothing.
    fn guard(
        variant: RowMaxVariant,
        policy: SpecPolicy,
        shape: [usize; 2],
        strides: [isize; 2],
    ) -> Result<(), HostError> {
        let [n_rows, n_cols] = shape;
        let len = (n_rows - 1) * strides[0] as usize + (n_cols - 1) * strides[1] as usize + 1;
        let x = RawBuffer::unowned(0x7f00_0000_0000, len, ScalarType::F32);
        let y = RawBuffer::unowned(0x7e00_0000_0000, n_rows, ScalarType::F32);
        let args = [
            Arg::Tensor(TensorArg::from_raw(x, &shape, &strides)),
            Arg::Tensor(TensorArg::from_raw(y, &[n_rows], &[1])),
            Arg::Int(n_rows as i64),
            Arg::Int(n_cols as i64),
            Arg::Int(strides[0] as i64),
            Arg::Int(strides[1] as i64),
        ];
        let kernel =
            JitKernel::new(variant.def()).constexprs(&variant.constexprs_for(n_rows, n_cols)).spec_policy(policy);
        let values = arg_values(kernel.def.name, &kernel.def.params, &args).unwrap();
        let spec = SpecKey::from_args(kernel.def.name, &kernel.def.params, &values, policy).unwrap();
        guard_launch(&mut CompileSession::new(), &kernel, &spec, &args)
    }

    /// The guard, the lint and the compile of one launch share the session's trace: a
    /// launch past 2^31 elements traces its kernel once (it used to trace it twice).
    #[test]
    fn a_guarded_launch_traces_its_kernel_once() {
        let (shape, strides) = HUGE;
        let len = (shape[0] - 1) * strides[0] as usize + (shape[1] - 1) * strides[1] as usize + 1;
        let x = RawBuffer::unowned(0x7f00_0000_0000, len, ScalarType::F32);
        let y = RawBuffer::unowned(0x7e00_0000_0000, shape[0], ScalarType::F32);
        let args = [
            Arg::Tensor(TensorArg::from_raw(x, &shape, &strides)),
            Arg::Tensor(TensorArg::from_raw(y, &[shape[0]], &[1])),
            Arg::Int(shape[0] as i64),
            Arg::Int(shape[1] as i64),
            Arg::Int(strides[0] as i64),
            Arg::Int(strides[1] as i64),
        ];
        let v = RowMaxVariant::RowMax;
        // Specialization off: the launch's key is the unspecialized one the lint reads.
        let kernel = JitKernel::new(v.def()).constexprs(&v.constexprs_for(64, 1024)).spec_policy(SpecPolicy::Off);
        let values = arg_values(kernel.def.name, &kernel.def.params, &args).unwrap();
        let spec = SpecKey::from_args(kernel.def.name, &kernel.def.params, &values, SpecPolicy::Off).unwrap();
        let mut session = CompileSession::new();
        guard_launch(&mut session, &kernel, &spec, &args).unwrap();
        session.lint(&kernel.def, &kernel.meta.0, &Default::default()).unwrap();
        let ptx = compile_kernel(&mut session, &kernel, &spec).unwrap();
        assert!(ptx.text.contains(".entry row_max"));
        let stats = session.stats();
        assert_eq!((stats.traces, stats.lowerings, stats.lints), (1, 1, 1), "{stats:?}");
        // Asking again costs nothing.
        compile_kernel(&mut session, &kernel, &spec).unwrap();
        assert_eq!(session.stats(), stats);
    }

    /// 65537 x 32768 contiguous: 2^31 + 32768 elements, the largest offset 2147516415.
    const HUGE: ([usize; 2], [isize; 2]) = ([65537, 32768], [32768, 1]);

    #[test]
    fn the_overflow_guard_refuses_row_max_i32_on_a_view_past_2_pow_31() {
        // Where row_max_i32 loads `x`, found in its source so no line number is written down.
        let at =
            rtriton_kernels::source::line_of(RowMaxVariant::RowMaxI32, "let x = load(").expect("row_max_i32 loads x");
        for policy in [SpecPolicy::Triton, SpecPolicy::Off] {
            let e = guard(RowMaxVariant::RowMaxI32, policy, HUGE.0, HUGE.1).unwrap_err();
            assert!(matches!(e, HostError::Launch(LaunchError::IndexOverflow(_))), "{e:?}");
            assert!(e.has_code(rtriton::diag::Code::GuardIndexOverflow), "{e:?}");
            assert_eq!(
                e.to_string(),
                format!(
                    "\
error[RT0601]: kernel `row_max_i32` at {at}: launch refused: tensor `x_ptr` has 2147516416 elements and a maximum element offset of 2147516415, past i32::MAX = 2147483647, but program_id(0) times `stride_row` is computed in i32 here and would wrap
  help: promote the index tensors to i64 before the index math (`program_id(0).to::<i64>()`, `offs.to::<i64>()`), or launch an i64-indexing variant"
                )
            );
        }
    }

    #[test]
    fn the_overflow_guard_refuses_row_max_i32_on_a_transposed_view_past_2_pow_31() {
        // The transpose of a 32768 x 65537 buffer: stride_row 1 (folded), stride_col 65537.
        // The guard refuses on the extent alone: the kernel's first i32 offset into `x_ptr`
        // is `program_id(0)` (its `* stride_row` folded away), which it names.
        let e = guard(RowMaxVariant::RowMaxI32, SpecPolicy::Triton, [65537, 32768], [1, 65537]).unwrap_err();
        assert!(matches!(e, HostError::Launch(LaunchError::IndexOverflow(_))), "{e:?}");
    }

    #[test]
    fn the_overflow_guard_accepts_the_int64_variants_on_the_same_view() {
        for variant in RowMaxVariant::ALL.into_iter().filter(|v| v.promotes_to_i64()) {
            for policy in [SpecPolicy::Triton, SpecPolicy::Off] {
                assert!(guard(variant, policy, HUGE.0, HUGE.1).is_ok(), "{} {policy:?}", variant.name());
                assert!(guard(variant, policy, [65537, 32768], [1, 65537]).is_ok(), "{} {policy:?}", variant.name());
            }
        }
    }

    #[test]
    fn the_overflow_guard_accepts_row_max_i32_up_to_i32_max() {
        // 65536 x 32768 = 2^31 elements: the largest offset is exactly i32::MAX.
        assert!(guard(RowMaxVariant::RowMaxI32, SpecPolicy::Triton, [65536, 32768], [32768, 1]).is_ok());
        assert!(guard(RowMaxVariant::RowMaxI32, SpecPolicy::Triton, [4, 8], [8, 1]).is_ok());
    }

    #[test]
    fn tensor_extents_are_the_views_spans_from_the_address_passed() {
        let x = RawBuffer::unowned(0x1000, 64, ScalarType::F32);
        let args = [
            Arg::Tensor(TensorArg::from_raw(x, &[7, 8], &[8, 1]).with_offset(3)),
            Arg::Tensor(TensorArg::from_raw(x, &[4], &[-2]).with_offset(9)),
            Arg::Int(7),
        ];
        let def = RowMaxVariant::RowMax.def();
        let e = tensor_extents(&def.params, &args);
        assert_eq!(
            e,
            [
                rtriton::guard::TensorExtent { param: "x_ptr".into(), numel: 56, max_offset_elems: 6 * 8 + 7 },
                rtriton::guard::TensorExtent { param: "y_ptr".into(), numel: 4, max_offset_elems: 6 },
            ]
        );
        assert!(!needs_overflow_guard(&e));
    }

    #[test]
    fn a_grid_closure_reads_the_constexprs() {
        let k = JitKernel::new(RowMaxVariant::RowMax2d.def())
            .constexpr("BLOCK_M", 16)
            .try_grid(|m| Ok([100u64.div_ceil(m.get("BLOCK_M").ok_or("BLOCK_M")? as u64), 1, 1]));
        assert_eq!(k.grid_for_launch(), Ok([7, 1, 1]));
        let missing = k.try_grid(|m| Ok([m.get("BLOCK_K").ok_or("BLOCK_K")? as u64, 1, 1]));
        let e = missing.grid_for_launch().unwrap_err();
        assert_eq!(
            e.to_string(),
            "kernel `row_max_2d`: the grid closure needs constexpr `BLOCK_K`, which the launch does not set; add it"
        );
    }

    /// A closure's own failure is reported as it is, not as a missing constexpr: a
    /// message that is no identifier, or the name of a constexpr the launch does set.
    #[test]
    fn a_grid_closure_failure_is_reported_as_its_own_message() {
        let k = JitKernel::new(RowMaxVariant::RowMax2d.def()).constexpr("BLOCK_M", 16);
        let failing = k.clone().try_grid(|_| Err("the grid needs n_rows > 0".to_string()));
        let e = failing.grid_for_launch().unwrap_err();
        assert_eq!(e.code(), Code::LaunchGridClosure);
        assert_eq!(
            e.to_string(),
            "kernel `row_max_2d`: the grid closure failed: the grid needs n_rows > 0; fix the closure given to `try_grid`"
        );
        let set = k.try_grid(|_| Err("BLOCK_M".to_string()));
        assert_eq!(set.grid_for_launch().unwrap_err().code(), Code::LaunchGridClosure);
    }
}
