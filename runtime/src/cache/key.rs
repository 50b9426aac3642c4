//! The compiled-kernel cache key and the cached artifact.

use std::fmt;

use serde::{Deserialize, Serialize};

/// Everything that decides the PTX a kernel compiles to.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct CacheKey {
    pub kernel: String,
    /// Where the kernel is defined (`file:line:col`): two kernels with the same name
    /// defined in different places do not share entries.
    pub source: String,
    pub constexprs: Vec<(String, i64)>,
    /// The specialization key, printed (`x_ptr:*f32:D16, n_cols:i32:-, ...`).
    pub spec: String,
    /// The PTX options, printed.
    pub ptx_options: String,
    /// The trace semantics, printed.
    pub semantics: String,
    /// The compiler build ([`compiler_identity`]), so a rebuilt compiler does not reuse
    /// PTX an older build wrote to disk.
    pub compiler: String,
}

impl CacheKey {
    /// A stable 64-bit FNV-1a hash of the printed key (names files on disk).
    pub fn hash64(&self) -> u64 {
        self.to_string().bytes().fold(0xcbf2_9ce4_8422_2325u64, |h, b| (h ^ b as u64).wrapping_mul(0x100_0000_01b3))
    }

    /// The file stem on disk: `row_max-0123456789abcdef`.
    pub fn file_stem(&self) -> String {
        format!("{}-{:016x}", self.kernel, self.hash64())
    }
}

impl fmt::Display for CacheKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let consts: Vec<String> = self.constexprs.iter().map(|(n, v)| format!("{n}={v}")).collect();
        write!(
            f,
            "{}@{}[{}] spec({}) ptx({}) semantics({}) compiler({})",
            self.kernel,
            self.source,
            consts.join(","),
            self.spec,
            self.ptx_options,
            self.semantics,
            self.compiler
        )
    }
}

/// What a launch needs from a compiled kernel (what is cached on disk).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct CompiledPtx {
    pub text: String,
    pub entry: String,
    pub threads_per_cta: u32,
    pub shared_bytes: u32,
}

impl CompiledPtx {
    /// Dynamic shared memory to pass at launch: the PTX's `.extern .shared` needs it,
    /// statically declared `.shared` arrays do not.
    pub fn dynamic_shared_bytes(&self) -> u32 {
        if self.text.contains(".extern .shared") { self.shared_bytes } else { 0 }
    }
}

/// The identity of this compiler build: the crate version plus the size and modification
/// time of the running executable (a rebuild changes them).
pub fn compiler_identity() -> String {
    let exe = std::env::current_exe().ok().and_then(|p| std::fs::metadata(p).ok()).map(|m| {
        let mtime = m.modified().ok().and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok());
        format!("{}:{}", m.len(), mtime.map_or(0, |d| d.as_secs()))
    });
    format!("rtriton-host {} exe {}", env!("CARGO_PKG_VERSION"), exe.unwrap_or_else(|| "unknown".into()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key() -> CacheKey {
        CacheKey {
            kernel: "row_max".into(),
            source: "kernels-gpu/src/row_max.rs:13:1".into(),
            constexprs: vec![("BLOCK".into(), 1024)],
            spec: "x_ptr:*f32:D16, stride_col:i32:=1".into(),
            ptx_options: "sm_86 w4 7.8".into(),
            semantics: "Rtriton".into(),
            compiler: "test".into(),
        }
    }

    #[test]
    fn the_key_prints_every_part_and_hashes_stably() {
        assert_eq!(
            key().to_string(),
            "row_max@kernels-gpu/src/row_max.rs:13:1[BLOCK=1024] spec(x_ptr:*f32:D16, stride_col:i32:=1) ptx(sm_86 w4 7.8) semantics(Rtriton) \
             compiler(test)"
        );
        assert_eq!(key().hash64(), key().hash64());
        assert!(key().file_stem().starts_with("row_max-"));
    }

    #[test]
    fn every_part_changes_the_hash() {
        let base = key().hash64();
        let variants = [
            CacheKey { source: "tests/tests/gpu.rs:10:1".into(), ..key() },
            CacheKey { constexprs: vec![("BLOCK".into(), 512)], ..key() },
            CacheKey { spec: "x_ptr:*f32:-, stride_col:i32:=1".into(), ..key() },
            CacheKey { ptx_options: "sm_86 w8 7.8".into(), ..key() },
            CacheKey { semantics: "Triton".into(), ..key() },
            CacheKey { compiler: "other".into(), ..key() },
        ];
        for v in variants {
            assert_ne!(v.hash64(), base, "{v}");
        }
    }
}
