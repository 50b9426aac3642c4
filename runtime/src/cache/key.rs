//! The compiled-kernel cache key and the cached artifact.

use std::fmt;
use std::hash::{Hash, Hasher};

use rtriton::backend::ptx::PtxOptions;
use rtriton::backend::ptx::tensor_map::{Extent, TensorMap};
use rtriton::ir::ScalarType;
use rtriton::session::StageKey;
use serde::{Deserialize, Serialize};

/// Everything that decides the PTX a kernel compiles to, as structured values: the
/// session's [`StageKey`] (kernel name, definition site, sorted constexprs, specialization
/// key, trace options), the PTX options and the compiler build.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct CacheKey {
    pub stage: StageKey,
    pub ptx_options: PtxOptions,
    /// The compiler build ([`compiler_identity`]), so a changed compiler does not reuse
    /// PTX an older build wrote to disk.
    pub compiler: String,
}

impl CacheKey {
    pub fn kernel(&self) -> &str {
        self.stage.kernel
    }

    /// A 64-bit hash of the structured key that is the same in every process and on every
    /// machine (it names files on disk): the derived `Hash` of the key's fields fed to
    /// [`StableHasher`], not the hash of its printed text.
    pub fn hash64(&self) -> u64 {
        let mut h = StableHasher::new();
        self.hash(&mut h);
        h.finish()
    }

    /// The file stem on disk: `row_max-0123456789abcdef`.
    pub fn file_stem(&self) -> String {
        format!("{}-{:016x}", self.kernel(), self.hash64())
    }
}

impl fmt::Display for CacheKey {
    /// The key for people (`rtriton cache`) and for checking a disk entry on read.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let s = &self.stage;
        let consts: Vec<String> = s.constexprs.iter().map(|(n, v)| format!("{n}={v}")).collect();
        let o = &self.ptx_options;
        write!(
            f,
            "{}@{}[{}] spec({}) ptx({} w{}{}{} {}.{}) semantics({:?}) compiler({})",
            s.kernel,
            s.site,
            consts.join(","),
            s.spec,
            o.arch.name(),
            o.num_warps,
            if o.min_ctas_per_sm > 0 { format!(" minctas{}", o.min_ctas_per_sm) } else { String::new() },
            if o.debug { " debug" } else { "" },
            o.ptx_version.0,
            o.ptx_version.1,
            s.options.semantics,
            self.compiler
        )
    }
}

/// FNV-1a (64 bit) as a [`Hasher`], with integers written little-endian so that the hash of
/// a derived `Hash` does not depend on the machine. Derived `Hash` feeds fields in
/// declaration order and enum discriminants as integers, so the hash changes only when the
/// key's types or values do.
#[derive(Clone, Copy, Debug)]
pub struct StableHasher(u64);

impl StableHasher {
    pub fn new() -> StableHasher {
        StableHasher(0xcbf2_9ce4_8422_2325)
    }
}

impl Default for StableHasher {
    fn default() -> Self {
        StableHasher::new()
    }
}

impl Hasher for StableHasher {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        for b in bytes {
            self.0 = (self.0 ^ u64::from(*b)).wrapping_mul(0x100_0000_01b3);
        }
    }

    fn write_u16(&mut self, i: u16) {
        self.write(&i.to_le_bytes());
    }
    fn write_u32(&mut self, i: u32) {
        self.write(&i.to_le_bytes());
    }
    fn write_u64(&mut self, i: u64) {
        self.write(&i.to_le_bytes());
    }
    fn write_u128(&mut self, i: u128) {
        self.write(&i.to_le_bytes());
    }
    fn write_usize(&mut self, i: usize) {
        // 64 bits on every host, so 32- and 64-bit machines agree.
        self.write(&(i as u64).to_le_bytes());
    }
    fn write_i16(&mut self, i: i16) {
        self.write_u16(i as u16);
    }
    fn write_i32(&mut self, i: i32) {
        self.write_u32(i as u32);
    }
    fn write_i64(&mut self, i: i64) {
        self.write_u64(i as u64);
    }
    fn write_i128(&mut self, i: i128) {
        self.write_u128(i as u128);
    }
    fn write_isize(&mut self, i: isize) {
        self.write_usize(i as usize);
    }
}

/// What a launch needs from a compiled kernel (what is cached on disk).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct CompiledPtx {
    pub text: String,
    pub entry: String,
    pub threads_per_cta: u32,
    /// Shared memory the kernel uses: declared statically up to 48 KiB, dynamic past it
    /// ([`CompiledPtx::dynamic_shared_bytes`], what a launch passes).
    pub shared_bytes: u32,
    /// `file:line` of the op whose shared buffer raised `shared_bytes` last (a staged
    /// load), for the refusal of a launch the device's shared memory cannot hold.
    #[serde(default)]
    pub shared_site: Option<String>,
    /// The tensor maps each launch encodes and passes after the kernel's parameters (the
    /// kernel's tensor copies, sm_90; `rtriton::backend::ptx::tensor_map`).
    #[serde(default)]
    pub tensor_maps: Vec<CachedTensorMap>,
}

/// A [`TensorMap`] as the disk cache stores it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct CachedTensorMap {
    pub elem: String,
    pub base: usize,
    pub dims: Vec<CachedExtent>,
    pub strides: Vec<CachedExtent>,
    pub box_dims: Vec<u32>,
    pub swizzle: u32,
}

/// An [`Extent`] as the disk cache stores it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum CachedExtent {
    Param(usize),
    Const(i64),
}

impl From<&TensorMap> for CachedTensorMap {
    fn from(m: &TensorMap) -> CachedTensorMap {
        let ext = |e: &Extent| match *e {
            Extent::Param(i) => CachedExtent::Param(i),
            Extent::Const(c) => CachedExtent::Const(c),
        };
        CachedTensorMap {
            elem: m.elem.name().to_string(),
            base: m.base,
            dims: m.dims.iter().map(ext).collect(),
            strides: m.strides.iter().map(ext).collect(),
            box_dims: m.box_dims.clone(),
            swizzle: m.swizzle,
        }
    }
}

impl CachedTensorMap {
    /// The map, or `None` for an element type this build does not know (a corrupt entry).
    pub fn to_map(&self) -> Option<TensorMap> {
        let elem = [ScalarType::F16, ScalarType::BF16, ScalarType::F32].into_iter().find(|s| s.name() == self.elem)?;
        let ext = |e: &CachedExtent| match *e {
            CachedExtent::Param(i) => Extent::Param(i),
            CachedExtent::Const(c) => Extent::Const(c),
        };
        Some(TensorMap {
            elem,
            base: self.base,
            dims: self.dims.iter().map(ext).collect(),
            strides: self.strides.iter().map(ext).collect(),
            box_dims: self.box_dims.clone(),
            swizzle: self.swizzle,
        })
    }
}

impl CompiledPtx {
    /// The dynamic shared memory a launch passes (0: the declaration is static).
    pub fn dynamic_shared_bytes(&self) -> u32 {
        rtriton::backend::ptx::dynamic_shared_bytes(self.shared_bytes)
    }
}

/// The identity of this compiler build: the DSL crate's version plus a hash of its source
/// files, computed by `runtime/build.rs` when the runtime is built (so it does not depend on
/// the executable's path or modification time, and changes when the compiler does).
pub fn compiler_identity() -> String {
    format!("rtriton {} src {}", env!("CARGO_PKG_VERSION"), env!("RTRITON_COMPILER_SOURCE_HASH"))
}

/// A fixed key for tests of the cache (row_max, BLOCK=1024, `stride_col` = 1).
#[cfg(test)]
pub(crate) fn test_key() -> CacheKey {
    tests::key()
}

#[cfg(test)]
mod tensor_map_tests {
    use super::*;

    /// A tensor map goes into the cache and comes back the same; an element type this build
    /// does not know (a corrupt or foreign entry) gives no map, which the load refuses.
    #[test]
    fn a_cached_tensor_map_comes_back_or_is_refused() {
        let map = TensorMap {
            elem: ScalarType::BF16,
            base: 1,
            dims: vec![Extent::Param(5), Extent::Param(4)],
            strides: vec![Extent::Param(8), Extent::Const(1)],
            box_dims: vec![64, 64],
            swizzle: 128,
        };
        let cached = CachedTensorMap::from(&map);
        assert_eq!(cached.to_map(), Some(map));
        assert_eq!(CachedTensorMap { elem: "i8".into(), ..cached }.to_map(), None);
    }
}

#[cfg(test)]
mod tests {
    use rtriton::ir::{ParamDecl, ParamKind, ScalarType, SourceLoc};
    use rtriton::spec::{ArgValue, SpecKey, SpecPolicy};
    use rtriton::trace::{Semantics, TraceOptions};

    use super::*;

    pub(crate) fn key() -> CacheKey {
        let params = [
            ParamDecl {
                name: "x_ptr",
                kind: ParamKind::Ptr(ScalarType::F32),
                do_not_specialize: false,
                do_not_specialize_on_alignment: false,
            },
            ParamDecl {
                name: "stride_col",
                kind: ParamKind::Scalar(ScalarType::I32),
                do_not_specialize: false,
                do_not_specialize_on_alignment: false,
            },
        ];
        let spec =
            SpecKey::from_args("row_max", &params, &[ArgValue::Ptr(0x1000), ArgValue::Int(1)], SpecPolicy::Triton)
                .unwrap();
        CacheKey {
            stage: StageKey {
                kernel: "row_max",
                site: SourceLoc { file: "kernels/src/row_max.rs", line: 13, column: 1 },
                constexprs: vec![("BLOCK".into(), 1024)],
                spec,
                options: TraceOptions::default(),
            },
            ptx_options: PtxOptions::default(),
            compiler: "c".into(),
        }
    }

    #[test]
    fn the_key_prints_every_component() {
        assert_eq!(
            key().to_string(),
            "row_max@kernels/src/row_max.rs:13:1[BLOCK=1024] spec(x_ptr:*f32:D16, stride_col:i32:=1) ptx(sm_86 w4 7.8) \
             semantics(Rtriton) compiler(c)"
        );
        assert!(key().file_stem().starts_with("row_max-"));
    }

    /// The hash names files that other processes, later runs and other machines read, so
    /// it must not vary between runs (std's `DefaultHasher` is seeded per process). The
    /// expected value is FNV-1a over the derived `Hash` of this fixed key; it changes only
    /// if the key's types change, and then every old entry is a miss, never a wrong hit.
    #[test]
    fn the_hash_is_the_same_in_every_run() {
        assert_eq!(key().hash64(), key().clone().hash64());
        let mut h = StableHasher::new();
        h.write(b"a");
        assert_eq!(h.finish(), 0xaf63_dc4c_8601_ec8c, "FNV-1a of \"a\"");
        assert_eq!(format!("{:016x}", key().hash64()), EXPECTED_KEY_HASH);
    }

    /// See `the_hash_is_the_same_in_every_run` (changed when `PtxOptions` gained `debug`,
    /// and when `TraceOptions` gained `deeper_rings`).
    const EXPECTED_KEY_HASH: &str = "48f3fea2b6b6aa88";

    #[test]
    fn every_component_changes_the_hash() {
        let base = key();
        let mut variants = Vec::new();
        let mut k = base.clone();
        k.stage.kernel = "row_max_2d";
        variants.push(k);
        let mut k = base.clone();
        k.stage.site.line = 14;
        variants.push(k);
        let mut k = base.clone();
        k.stage.constexprs[0].1 = 512;
        variants.push(k);
        let mut k = base.clone();
        k.stage.spec = SpecKey::plain(&[]);
        variants.push(k);
        let mut k = base.clone();
        k.stage.options.semantics = Semantics::Triton;
        variants.push(k);
        let mut k = base.clone();
        k.ptx_options.num_warps = 8;
        variants.push(k);
        let mut k = base.clone();
        k.ptx_options.min_ctas_per_sm = 2;
        variants.push(k);
        let mut k = base.clone();
        k.ptx_options.debug = true;
        variants.push(k);
        let mut k = base.clone();
        k.compiler = "other".into();
        variants.push(k);
        for v in &variants {
            assert_ne!(v.hash64(), base.hash64(), "{v}");
            assert_ne!(v.to_string(), base.to_string());
        }
    }

    #[test]
    fn the_compiler_identity_names_the_source_hash_not_the_executable() {
        let id = compiler_identity();
        assert!(id.starts_with(&format!("rtriton {} src ", env!("CARGO_PKG_VERSION"))), "{id}");
        assert_eq!(id, compiler_identity());
        assert!(!id.contains("exe"), "{id}");
    }
}
