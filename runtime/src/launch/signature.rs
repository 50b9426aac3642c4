//! The launch fast path: launches the runtime has prepared before, found by their
//! signature without building a cache key.
//!
//! A launch's compiled kernel depends on the kernel, its launch configuration (constexprs,
//! warps, policy, trace and debug options) and each argument's specialization class (Triton's
//! "=1" and "D16"). The first launch of a signature goes the full way (specialize, build the
//! [`CacheKey`](crate::cache::CacheKey), guard, lint, compile or load) and leaves a
//! [`Prepared`] entry here. Later launches of the signature hash the same inputs (a few
//! dozen bytes through `FxHasher`), compare them field by field with the entry (so a hash
//! collision costs a lookup, never a wrong kernel) and reuse the entry's kernel and launch
//! record. Nothing on that path allocates.
//!
//! What is checked on every launch all the same, because it depends on the values and not
//! on the signature: argument count, types, owners and view bounds (`check_args`), the
//! grid, and the two conditions under which a launch needs the traced kernel again (two
//! tensors that overlap, a view past `i32::MAX` elements); those take the full path.

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hash, Hasher};
use std::sync::Arc;

use rtriton::backend::ptx::Arch;
use rtriton::ir::SourceLoc;
use rtriton::lint::LintOptions;
use rtriton::spec::{ArgSpec, SpecPolicy, classify};
use rtriton::trace::TraceOptions;
use rustc_hash::FxHasher;
use smallvec::SmallVec;

use rtriton::ir::{ParamDecl, ParamKind, ScalarType};
use rtriton::trace::KernelDef;

use super::{
    Arg, JitKernel, LaunchError, LaunchRecord, any_overlap, any_past_i32, check_args, check_grid, check_streams,
    debug_mode,
};
use crate::driver::{DeviceId, RawParam};
use crate::error::HostError;

/// The specialization class of each argument (kernels of up to 16 arguments keep them inline).
pub type Classes = SmallVec<[ArgSpec; 16]>;

/// The launch configuration of a [`JitKernel`] as the fast path compares it: everything
/// but the grid closure (evaluated per launch) decides the compiled kernel or the checks.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct KernelIdentity {
    name: &'static str,
    loc: SourceLoc,
    /// Kernels a macro generates share a name and a site: their parameters (pointer
    /// dtypes) and bodies tell them apart.
    params: Vec<ParamDecl>,
    body: usize,
    meta: Vec<(&'static str, i64)>,
    num_warps: u32,
    min_ctas_per_sm: u32,
    spec_policy: SpecPolicy,
    trace_options: TraceOptions,
    debug: bool,
    allow_spills: bool,
    lint: Option<LintOptions>,
    in_place: Vec<&'static str>,
    arch: Arch,
}

impl KernelIdentity {
    pub(crate) fn of(k: &JitKernel, debug: bool) -> KernelIdentity {
        KernelIdentity {
            name: k.def.name,
            loc: k.def.loc,
            params: k.def.params.clone(),
            body: k.def.body as usize,
            meta: k.meta.0.clone(),
            num_warps: k.num_warps,
            min_ctas_per_sm: k.min_ctas_per_sm,
            spec_policy: k.spec_policy,
            trace_options: k.trace_options,
            debug,
            allow_spills: k.allow_spills,
            lint: k.lint.clone(),
            in_place: k.in_place.clone(),
            arch: k.arch,
        }
    }

    /// Field by field, without building an identity for `k` (no allocation).
    pub(crate) fn matches(&self, k: &JitKernel, debug: bool) -> bool {
        self.name == k.def.name
            && self.loc == k.def.loc
            && self.params == k.def.params
            && self.body == k.def.body as usize
            && self.meta == k.meta.0
            && self.num_warps == k.num_warps
            && self.min_ctas_per_sm == k.min_ctas_per_sm
            && self.spec_policy == k.spec_policy
            && self.trace_options == k.trace_options
            && self.debug == debug
            && self.allow_spills == k.allow_spills
            && self.lint == k.lint
            && self.in_place == k.in_place
            && self.arch == k.arch
    }
}

/// A prepared launch: what the full path found for one signature.
#[derive(Debug)]
pub struct Prepared<M> {
    identity: KernelIdentity,
    classes: Classes,
    /// The record every launch of the signature returns (its grid replaced per launch).
    pub record: LaunchRecord,
    /// What the launch needs of the compiled kernel (the loaded module on a device).
    pub payload: M,
}

/// A hasher for keys that are hashes already.
#[derive(Default)]
struct Prehashed(u64);

impl Hasher for Prehashed {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0 << 8) | u64::from(b);
        }
    }
    fn write_u64(&mut self, v: u64) {
        self.0 = v;
    }
}

/// The prepared launches of one signature hash (one, unless hashes collide).
type Bucket<M> = SmallVec<[Arc<Prepared<M>>; 1]>;

/// The prepared launches by signature hash.
#[derive(Debug)]
pub struct LaunchCache<M> {
    entries: HashMap<u64, Bucket<M>, BuildHasherDefault<Prehashed>>,
}

impl<M> Default for LaunchCache<M> {
    fn default() -> Self {
        LaunchCache { entries: HashMap::default() }
    }
}

/// The signature of one launch: its hash and argument classes, or `None` when an argument
/// does not fit its parameter (the full path reports it).
pub fn signature(kernel: &JitKernel, args: &[Arg<'_>], debug: bool) -> Option<(u64, Classes)> {
    let params = &kernel.def.params;
    if params.len() != args.len() {
        return None;
    }
    let mut classes = Classes::new();
    for (p, a) in params.iter().zip(args) {
        classes.push(classify(p, a.value().ok()?, kernel.spec_policy)?);
    }
    let mut h = FxHasher::default();
    kernel.def.name.hash(&mut h);
    kernel.def.loc.hash(&mut h);
    kernel.def.params.hash(&mut h);
    kernel.meta.0.hash(&mut h);
    (kernel.num_warps, kernel.min_ctas_per_sm, kernel.spec_policy, kernel.trace_options, debug, kernel.arch)
        .hash(&mut h);
    classes.hash(&mut h);
    Some((h.finish(), classes))
}

impl<M> LaunchCache<M> {
    /// The prepared launch of this signature, if the full path left one.
    pub fn get(&self, kernel: &JitKernel, hash: u64, classes: &Classes, debug: bool) -> Option<&Arc<Prepared<M>>> {
        self.entries.get(&hash)?.iter().find(|e| e.classes == *classes && e.identity.matches(kernel, debug))
    }

    /// Keeps what the full path found for this signature.
    pub fn insert(
        &mut self,
        kernel: &JitKernel,
        (hash, classes): (u64, Classes),
        debug: bool,
        record: LaunchRecord,
        payload: M,
    ) -> Arc<Prepared<M>> {
        let entry = Arc::new(Prepared { identity: KernelIdentity::of(kernel, debug), classes, record, payload });
        let bucket = self.entries.entry(hash).or_default();
        bucket.retain(|e| !(e.classes == entry.classes && e.identity == entry.identity));
        bucket.push(entry.clone());
        entry
    }

    /// Forgets every prepared launch (their kernels were loaded on a context now gone).
    pub fn clear(&mut self) {
        self.entries.clear();
    }

    pub fn len(&self) -> usize {
        self.entries.values().map(|b| b.len()).sum()
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }
}

/// What the host path needs of the device: whose buffers it accepts and its grid limits.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Device {
    pub id: DeviceId,
    pub max_grid: [u32; 3],
}

/// A launch ready for the driver: its record, the prepared payload (the loaded module) and
/// the parameters in PTX order.
pub type Ready<M> = (LaunchRecord, M, SmallVec<[RawParam; 16]>);

/// Everything a launch does on the host before the driver call, when its signature was
/// prepared before: the per-launch checks (arguments, owners, view bounds, the stream of
/// cudarc views, the grid), the signature lookup and the parameters. `Ok(None)`: the launch
/// needs the full path (a new signature, overlapping tensors, a view past `i32::MAX`
/// elements). `stream` is the launch's `CUstream` address. Allocates nothing.
pub fn host_path<M: Clone>(
    cache: &LaunchCache<M>,
    kernel: &JitKernel,
    args: &[Arg<'_>],
    device: Device,
    stream: usize,
) -> Result<Option<Ready<M>>, HostError> {
    let def = &kernel.def;
    check_args(def.name, &def.params, args, device.id)?;
    check_streams(def.name, &def.params, args, stream)?;
    let debug = debug_mode(kernel);
    let Some((hash, classes)) = signature(kernel, args, debug) else { return Ok(None) };
    let Some(entry) = cache.get(kernel, hash, &classes, debug) else { return Ok(None) };
    if any_overlap(args) || any_past_i32(args) {
        return Ok(None);
    }
    let grid = check_grid(def.name, kernel.grid_for_launch()?, device.max_grid)?;
    let record = LaunchRecord { grid, ..entry.record.clone() };
    Ok(Some((record, entry.payload.clone(), raw_params(def, args)?)))
}

/// The parameters in PTX order: every runtime parameter, folded ones included (inline for
/// kernels of up to 16 parameters: no allocation).
pub fn raw_params(def: &KernelDef, args: &[Arg<'_>]) -> Result<SmallVec<[RawParam; 16]>, LaunchError> {
    def.params
        .iter()
        .zip(args)
        .map(|(p, a)| {
            Ok(match (p.kind, a) {
                (ParamKind::Ptr(_), Arg::Tensor(t)) => RawParam::Ptr(t.address().map_err(|source| {
                    LaunchError::AddressOverflow { kernel: def.name.into(), param: p.name.into(), source }
                })?),
                (ParamKind::Scalar(ScalarType::I64), Arg::Int(v)) => RawParam::I64(*v),
                // In range: SpecKey::from_args refused i32 arguments that do not fit.
                (ParamKind::Scalar(_), Arg::Int(v)) => RawParam::I32(*v as i32),
                (_, Arg::F32(v)) => RawParam::F32(*v),
                _ => unreachable!("check_args matched argument kinds to parameters"),
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use rtriton::ir::ScalarType;
    use rtriton::spec::SpecKey;
    use rtriton_kernels::RowMaxVariant;

    use super::*;
    use crate::driver::{Owner, RawBuffer};
    use crate::launch::{TensorArg, arg_values, cache_key};

    const DEVICE: Device = Device { id: DeviceId { gpu: 3, context: 0x9000 }, max_grid: [1 << 31, 65535, 65535] };

    fn buffer(ptr: u64, len: usize) -> RawBuffer {
        RawBuffer { owner: Owner::Gpu(3), ..RawBuffer::unowned(ptr, len, ScalarType::F32) }
    }

    /// row_max's arguments: x (4 x 8 at `x_addr`, row stride 8) and y (4).
    fn args(x_addr: u64, y_addr: u64, stride_col: i64) -> Vec<Arg<'static>> {
        let x = TensorArg::from_raw(buffer(x_addr, 64), &[4, 8], &[8, stride_col as isize]);
        let y = TensorArg::from_raw(buffer(y_addr, 4), &[4], &[1]);
        vec![x.into(), y.into(), Arg::Int(4), Arg::Int(8), Arg::Int(8), Arg::Int(stride_col)]
    }

    fn kernel() -> JitKernel {
        let v = RowMaxVariant::RowMax;
        JitKernel::new(v.def()).constexprs(&v.constexprs_for(4, 8)).grid(|_| [4, 1, 1])
    }

    /// Prepares `args` as the full path would (the record from the real specialization and
    /// cache key), with `tag` standing for the loaded module.
    fn prepare(cache: &mut LaunchCache<u32>, k: &JitKernel, args: &[Arg<'_>], tag: u32) {
        let values = arg_values(k.def.name, &k.def.params, args).unwrap();
        let spec = SpecKey::from_args(k.def.name, &k.def.params, &values, k.spec_policy).unwrap();
        let key = cache_key(k, &spec, "test");
        let record = LaunchRecord { spec: Arc::new(spec), key: Arc::new(key), grid: [0; 3], threads_per_cta: 128 };
        cache.insert(k, signature(k, args, false).unwrap(), false, record, tag);
    }

    fn hit(cache: &LaunchCache<u32>, k: &JitKernel, args: &[Arg<'_>]) -> Option<u32> {
        host_path(cache, k, args, DEVICE, 0).unwrap().map(|(_, tag, _)| tag)
    }

    /// A launch reuses a prepared one only when everything that decides the compiled
    /// kernel is the same: the specialization classes of the values, the constexprs, the
    /// warps, the policy; addresses and values of the same classes share it.
    #[test]
    fn a_prepared_launch_is_reused_exactly_when_its_signature_matches() {
        let mut cache = LaunchCache::default();
        let k = kernel();
        let base = args(0x1000, 0x2000, 1);
        assert_eq!(hit(&cache, &k, &base), None, "nothing prepared yet");
        prepare(&mut cache, &k, &base, 7);
        let (record, tag, params) = host_path(&cache, &k, &base, DEVICE, 0).unwrap().unwrap();
        assert_eq!((tag, record.grid, record.threads_per_cta), (7, [4, 1, 1], 128));
        assert_eq!(params.as_slice(), raw_params(&k.def, &base).unwrap().as_slice());
        assert_eq!(params[0], RawParam::Ptr(0x1000));
        // Other 16-byte-aligned buffers: the same classes.
        assert_eq!(hit(&cache, &k, &args(0x3000, 0x4010, 1)), Some(7));
        // A misaligned x, a column stride that is not 1: other classes, other kernels.
        assert_eq!(hit(&cache, &k, &args(0x1004, 0x2000, 1)), None);
        assert_eq!(hit(&cache, &k, &args(0x1000, 0x2000, 2)), None);
        // Another launch configuration.
        assert_eq!(hit(&cache, &k.clone().num_warps(8), &base), None);
        assert_eq!(hit(&cache, &k.clone().constexpr("BLOCK", 64), &base), None);
        assert_eq!(hit(&cache, &k.clone().spec_policy(SpecPolicy::Off), &base), None);
        assert_eq!(hit(&cache, &k.clone().debug(true), &base), None);
        assert_eq!(hit(&cache, &k.clone().arch(Arch::Sm90), &base), None);
        assert_eq!(hit(&cache, &k.clone().in_place("y_ptr"), &base), None);
        // Another kernel under the same name and site (as a macro generates them): other
        // parameters, another body.
        let mut twin = k.clone();
        twin.def.params[2].kind = ParamKind::Scalar(ScalarType::I64);
        assert_eq!(hit(&cache, &twin, &base), None);
        let mut other_body = k.clone();
        other_body.def.body = RowMaxVariant::RowMaxLoop.def().body;
        assert_eq!(hit(&cache, &other_body, &base), None);
        // Preparing the variant keeps both.
        prepare(&mut cache, &k.clone().num_warps(8), &base, 8);
        assert_eq!((hit(&cache, &k, &base), hit(&cache, &k.clone().num_warps(8), &base)), (Some(7), Some(8)));
        assert_eq!(cache.len(), 2);
    }

    /// Two signatures under one hash (a collision) never share an entry: the lookup
    /// compares the kernel's configuration and the classes field by field.
    #[test]
    fn a_hash_collision_finds_nothing_rather_than_another_kernel() {
        let mut cache = LaunchCache::default();
        let k = kernel();
        let base = args(0x1000, 0x2000, 1);
        let (hash, classes) = signature(&k, &base, false).unwrap();
        let record = || {
            let spec = SpecKey::plain(&k.def.params);
            LaunchRecord {
                key: Arc::new(cache_key(&k, &spec, "t")),
                spec: Arc::new(spec),
                grid: [1; 3],
                threads_per_cta: 1,
            }
        };
        cache.insert(&k, (hash, classes.clone()), false, record(), 1);
        let other = k.clone().num_warps(2);
        assert!(cache.get(&other, hash, &classes, false).is_none());
        let mut other_classes = classes.clone();
        other_classes[5] = ArgSpec::Plain;
        assert!(cache.get(&k, hash, &other_classes, false).is_none());
        assert!(cache.get(&k, hash, &classes, false).is_some());
        assert!(cache.get(&k, hash, &classes, true).is_none(), "debug mode is part of the signature");
    }

    /// The per-launch checks run on the fast path too: a bad view, a foreign buffer or a
    /// bad grid is refused, not launched from the cache; launches that need the traced
    /// kernel (overlapping tensors, a view past i32) and values the full path refuses (an
    /// i32 out of range) go to the full path.
    #[test]
    fn the_fast_path_checks_every_launch_and_leaves_the_rest_to_the_full_path() {
        let mut cache = LaunchCache::default();
        let k = kernel();
        let base = args(0x1000, 0x2000, 1);
        prepare(&mut cache, &k, &base, 7);
        let mut past_end = base.clone();
        past_end[1] = TensorArg::from_raw(buffer(0x2000, 3), &[4], &[1]).into();
        let e = host_path(&cache, &k, &past_end, DEVICE, 0).unwrap_err();
        assert!(e.to_string().contains("reaches elements 0..=3 of a buffer of 3"), "{e}");
        let mut foreign = base.clone();
        foreign[1] = TensorArg::from_raw(RawBuffer { owner: Owner::Gpu(4), ..buffer(0x2000, 4) }, &[4], &[1]).into();
        let e = host_path(&cache, &k, &foreign, DEVICE, 0).unwrap_err();
        assert!(e.to_string().contains("which this runtime did not allocate"), "{e}");
        let e = host_path(&cache, &k.clone().grid(|_| [0, 1, 1]), &base, DEVICE, 0).unwrap_err();
        assert!(e.to_string().contains("has a zero dimension"), "{e}");
        let mut overlapping = base.clone();
        overlapping[1] = TensorArg::from_raw(buffer(0x1000, 64), &[4], &[1]).into();
        assert_eq!(hit(&cache, &k, &overlapping), None);
        let mut huge = base.clone();
        huge[0] = TensorArg::from_raw(buffer(0x1000, 1 << 32), &[1 << 16, 1 << 16], &[1 << 16, 1]).into();
        assert_eq!(hit(&cache, &k, &huge), None);
        let mut wide = base.clone();
        wide[2] = Arg::Int(1 << 40);
        assert_eq!(hit(&cache, &k, &wide), None);
        assert_eq!(hit(&cache, &k, &base), Some(7));
    }
}
