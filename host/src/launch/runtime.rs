//! The runtime: a device plus the compiled-kernel caches, through which launches go.

use std::collections::HashMap;
use std::sync::Arc;

use rtriton::ir::{ParamKind, ScalarType};
use rtriton::spec::SpecKey;

use super::{Arg, JitKernel, LaunchError, check_args, check_block, check_grid, compile_kernel, ptx_options};
use crate::cache::{CacheKey, CompiledPtx, DiskCache};
use crate::driver::{Gpu, LoadedModule, RawParam};
use crate::error::HostError;

/// Where a launch's kernel came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct CacheStats {
    pub memory_hits: u64,
    pub disk_hits: u64,
    pub compiles: u64,
}

/// What one launch did (for tables and tests).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LaunchRecord {
    pub spec: SpecKey,
    pub key: CacheKey,
    pub grid: [u32; 3],
    pub threads_per_cta: u32,
}

struct Loaded {
    ptx: CompiledPtx,
    module: LoadedModule,
}

/// A device plus the compiled-kernel caches: what launches go through.
pub struct Runtime {
    pub gpu: Gpu,
    disk: Option<DiskCache>,
    modules: HashMap<CacheKey, Arc<Loaded>>,
    compiler: String,
    pub stats: CacheStats,
}

impl std::fmt::Debug for Runtime {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Runtime")
            .field("gpu", &self.gpu.info)
            .field("disk", &self.disk)
            .field("modules", &self.modules.len())
            .field("stats", &self.stats)
            .finish()
    }
}

impl Runtime {
    /// Opens device 0 with the disk cache at `cache_dir()` (see [`crate::cache::cache_dir`]).
    pub fn new() -> Result<Runtime, HostError> {
        Ok(Runtime::with_disk_cache(Gpu::open(0)?, DiskCache::from_env()))
    }

    pub fn with_disk_cache(gpu: Gpu, disk: Option<DiskCache>) -> Runtime {
        Runtime {
            gpu,
            disk,
            modules: HashMap::new(),
            compiler: crate::cache::compiler_identity(),
            stats: CacheStats::default(),
        }
    }

    /// Checks the arguments and grid, specializes, and compiles or loads the kernel for
    /// them, without launching (so a timed launch afterwards is the kernel only).
    pub fn prepare(&mut self, kernel: &JitKernel, args: &[Arg<'_>]) -> Result<LaunchRecord, HostError> {
        self.prepare_loaded(kernel, args).map(|(record, _)| record)
    }

    fn prepare_loaded(
        &mut self,
        kernel: &JitKernel,
        args: &[Arg<'_>],
    ) -> Result<(LaunchRecord, Arc<Loaded>), HostError> {
        let def = &kernel.def;
        check_args(def.name, &def.params, args, self.gpu.id)?;
        let values: Vec<_> = args.iter().map(Arg::value).collect();
        let spec = SpecKey::from_args(def.name, &def.params, &values, kernel.spec_policy).map_err(LaunchError::from)?;
        let grid = check_grid(def.name, kernel.grid_for_launch()?, self.gpu.info.max_grid)?;
        let key = self.key(kernel, &spec);
        let loaded = self.load(kernel, &spec, &key)?;
        check_block(def.name, loaded.ptx.threads_per_cta, self.gpu.info.max_threads_per_block, kernel.num_warps)?;
        Ok((LaunchRecord { spec, key, grid, threads_per_cta: loaded.ptx.threads_per_cta }, loaded))
    }

    /// Checks, specializes, compiles (or finds in a cache) and enqueues one launch.
    /// Does not wait: call `rt.gpu.synchronize()` (or copy results back) to see faults.
    pub fn launch(&mut self, kernel: &JitKernel, args: &[Arg<'_>]) -> Result<LaunchRecord, HostError> {
        let (record, loaded) = self.prepare_loaded(kernel, args)?;
        let params = raw_params(&kernel.def.params, args);
        // SAFETY: `check_args` matched count and types to the declaration, the PTX
        // signature has every runtime parameter in declaration order with these types
        // (back-end invariant), every pointer is a live buffer of this device whose view
        // lies inside it, and the buffers are borrowed by `args` for this call. What the
        // kernel does with its scalars is its own business, as in Triton: a kernel told a
        // wider row than its view reads outside it, which the device reports as an
        // illegal-address error on the next synchronization (it cannot touch host memory).
        unsafe {
            loaded.module.launch(
                &self.gpu,
                record.grid,
                [loaded.ptx.threads_per_cta, 1, 1],
                loaded.ptx.dynamic_shared_bytes(),
                &params,
            )?;
        }
        Ok(record)
    }

    /// The full cache key of `kernel` under `spec` (see [`cache_key`]).
    pub fn key(&self, kernel: &JitKernel, spec: &SpecKey) -> CacheKey {
        cache_key(kernel, spec, &self.compiler)
    }

    fn load(&mut self, kernel: &JitKernel, spec: &SpecKey, key: &CacheKey) -> Result<Arc<Loaded>, HostError> {
        if let Some(l) = self.modules.get(key) {
            self.stats.memory_hits += 1;
            return Ok(l.clone());
        }
        let ptx = match self.disk.as_ref().and_then(|d| d.get(key)) {
            Some(ptx) => {
                self.stats.disk_hits += 1;
                ptx
            }
            None => {
                let ptx = compile_kernel(kernel, spec)?;
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
        let module = LoadedModule::load(&self.gpu, &ptx.text, &ptx.entry)?;
        let loaded = Arc::new(Loaded { ptx, module });
        self.modules.insert(key.clone(), loaded.clone());
        Ok(loaded)
    }
}

/// The full cache key of `kernel` under `spec` for the compiler build `compiler`: name,
/// definition site, constexprs (sorted), specialization, PTX options and semantics.
pub fn cache_key(kernel: &JitKernel, spec: &SpecKey, compiler: &str) -> CacheKey {
    let mut constexprs: Vec<_> = kernel.meta.0.iter().map(|(n, v)| (n.to_string(), *v)).collect();
    constexprs.sort();
    CacheKey {
        kernel: kernel.def.name.to_string(),
        source: kernel.def.loc.to_string(),
        constexprs,
        spec: spec.to_string(),
        ptx_options: format!("{:?}", ptx_options(kernel.num_warps)),
        semantics: format!("{:?}", kernel.trace_options.semantics),
        compiler: compiler.to_string(),
    }
}

/// The parameters in PTX order: every runtime parameter, folded ones included.
fn raw_params(params: &[rtriton::ir::ParamDecl], args: &[Arg<'_>]) -> Vec<RawParam> {
    params
        .iter()
        .zip(args)
        .map(|(p, a)| match (p.kind, a) {
            (ParamKind::Ptr(_), Arg::Tensor(t)) => RawParam::Ptr(t.address()),
            (ParamKind::Scalar(ScalarType::I64), Arg::Int(v)) => RawParam::I64(*v),
            // In range: SpecKey::from_args refused i32 arguments that do not fit.
            (ParamKind::Scalar(_), Arg::Int(v)) => RawParam::I32(*v as i32),
            (_, Arg::F32(v)) => RawParam::F32(*v),
            _ => unreachable!("check_args matched argument kinds to parameters"),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use rtriton::spec::{ArgValue, SpecPolicy};
    use rtriton_kernels::RowMaxVariant;

    use super::*;

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

    #[test]
    fn the_key_follows_everything_that_changes_the_ptx() {
        let k = JitKernel::new(RowMaxVariant::RowMax2d.def()).constexpr("BLOCK_M", 16).constexpr("BLOCK_N", 64);
        let base = cache_key(&k, &spec(&k, 0x1000, 1), "c");
        assert!(base.source.starts_with("kernels-gpu/src/row_max.rs:"), "{}", base.source);
        assert_eq!(base.constexprs, [("BLOCK_M".to_string(), 16), ("BLOCK_N".to_string(), 64)]);
        // Constexpr order does not matter.
        let swapped = JitKernel::new(RowMaxVariant::RowMax2d.def()).constexpr("BLOCK_N", 64).constexpr("BLOCK_M", 16);
        assert_eq!(cache_key(&swapped, &spec(&swapped, 0x1000, 1), "c"), base);
        // The actual address's alignment, a stride of 1, warps, policy and the compiler do.
        assert_ne!(cache_key(&k, &spec(&k, 0x1004, 1), "c"), base);
        assert_ne!(cache_key(&k, &spec(&k, 0x1000, 2), "c"), base);
        let k8 = k.clone().num_warps(8);
        assert_ne!(cache_key(&k8, &spec(&k8, 0x1000, 1), "c"), base);
        let off = k.clone().spec_policy(SpecPolicy::Off);
        assert_ne!(cache_key(&off, &spec(&off, 0x1000, 1), "c"), base);
        assert_ne!(cache_key(&k, &spec(&k, 0x1000, 1), "other build"), base);
        // Another kernel of the same name elsewhere does not share entries.
        let mut elsewhere = k.clone();
        elsewhere.def.loc.line += 1;
        assert_ne!(cache_key(&elsewhere, &spec(&elsewhere, 0x1000, 1), "c"), base);
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
}
