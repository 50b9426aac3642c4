//! PTX on disk under the user's cache directory, so a second process does not recompile:
//! `$RTRITON_CACHE_DIR` if set, else `dirs::cache_dir()/rtriton` (`~/.cache/rtriton` on
//! Linux). Each entry is `ptx/<kernel>-<hash>.json` holding the full key (checked on read,
//! so a hash collision is a miss, not a wrong kernel) and the compiled PTX.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::key::{CacheKey, CompiledPtx};
use crate::error::HostError;

/// The environment variable that overrides the cache directory.
pub const CACHE_DIR_ENV: &str = "RTRITON_CACHE_DIR";

/// The cache directory, or `None` when neither the variable nor a user cache dir exists.
pub fn cache_dir() -> Option<PathBuf> {
    match std::env::var_os(CACHE_DIR_ENV) {
        Some(dir) if !dir.is_empty() => Some(PathBuf::from(dir)),
        _ => dirs::cache_dir().map(|d| d.join("rtriton")),
    }
}

#[derive(Serialize, Deserialize)]
struct Entry {
    /// The full key as printed: an entry is used only for exactly this key.
    key: String,
    ptx: CompiledPtx,
}

/// The on-disk PTX cache rooted at one directory.
#[derive(Clone, Debug)]
pub struct DiskCache {
    root: PathBuf,
}

impl DiskCache {
    pub fn new(root: impl Into<PathBuf>) -> DiskCache {
        DiskCache { root: root.into() }
    }

    /// The cache at [`cache_dir`], if there is one.
    pub fn from_env() -> Option<DiskCache> {
        cache_dir().map(DiskCache::new)
    }

    pub fn root(&self) -> &Path {
        &self.root
    }

    fn path(&self, key: &CacheKey) -> PathBuf {
        self.root.join("ptx").join(format!("{}.json", key.file_stem()))
    }

    /// The entries on disk: `(file name, kernel name, bytes)`, sorted by file name.
    pub fn entries(&self) -> Vec<(String, String, u64)> {
        let Ok(dir) = std::fs::read_dir(self.root.join("ptx")) else { return Vec::new() };
        let mut out: Vec<_> = dir
            .filter_map(Result::ok)
            .filter(|e| e.file_name().to_string_lossy().ends_with(".json"))
            .map(|e| {
                let name = e.file_name().to_string_lossy().into_owned();
                let kernel = name.rsplit_once('-').map_or(name.clone(), |(k, _)| k.to_string());
                (name, kernel, e.metadata().map_or(0, |m| m.len()))
            })
            .collect();
        out.sort();
        out
    }

    /// Removes every entry; returns how many there were.
    pub fn clear(&self) -> Result<usize, HostError> {
        let n = self.entries().len();
        let dir = self.root.join("ptx");
        match std::fs::remove_dir_all(&dir) {
            Ok(()) => Ok(n),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(0),
            Err(e) => Err(HostError::Cache { path: dir.display().to_string(), message: e.to_string() }),
        }
    }

    /// The cached PTX for `key`, if present and written for exactly this key.
    pub fn get(&self, key: &CacheKey) -> Option<CompiledPtx> {
        let text = std::fs::read_to_string(self.path(key)).ok()?;
        let entry: Entry = serde_json::from_str(&text).ok()?;
        (entry.key == key.to_string()).then_some(entry.ptx)
    }

    /// Stores `ptx` for `key` (write to a temporary file, then rename: readers in other
    /// processes never see half a file).
    pub fn put(&self, key: &CacheKey, ptx: &CompiledPtx) -> Result<(), HostError> {
        let path = self.path(key);
        let err = |e: std::io::Error| HostError::Cache { path: path.display().to_string(), message: e.to_string() };
        let dir = path.parent().expect("cache entries live in a folder");
        std::fs::create_dir_all(dir).map_err(err)?;
        let json = serde_json::to_string(&Entry { key: key.to_string(), ptx: ptx.clone() }).expect("entries serialize");
        let tmp = dir.join(format!(".{}.{}.tmp", key.file_stem(), std::process::id()));
        std::fs::write(&tmp, json).map_err(err)?;
        std::fs::rename(&tmp, &path).map_err(err)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(kernel: &'static str) -> CacheKey {
        let mut k = super::super::key::test_key();
        k.stage.kernel = kernel;
        k
    }

    fn ptx() -> CompiledPtx {
        CompiledPtx { text: ".version 7.8\n".into(), entry: "k".into(), threads_per_cta: 128, shared_bytes: 16 }
    }

    fn temp_root(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("rtriton-cache-test-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        dir
    }

    #[test]
    fn put_then_get_round_trips_and_other_keys_miss() {
        let cache = DiskCache::new(temp_root("roundtrip"));
        assert_eq!(cache.get(&key("a")), None);
        cache.put(&key("a"), &ptx()).unwrap();
        assert_eq!(cache.get(&key("a")), Some(ptx()));
        assert_eq!(cache.get(&key("b")), None);
        // A second cache object on the same folder (another process) sees the entry.
        assert_eq!(DiskCache::new(cache.root()).get(&key("a")), Some(ptx()));
        let entries = cache.entries();
        assert_eq!(entries.len(), 1);
        assert_eq!(entries[0].1, "a");
        assert_eq!(cache.clear().unwrap(), 1);
        assert_eq!((cache.entries().len(), cache.get(&key("a"))), (0, None));
        assert_eq!(cache.clear().unwrap(), 0);
        std::fs::remove_dir_all(cache.root()).unwrap();
    }

    #[test]
    fn an_entry_for_another_key_under_the_same_name_is_a_miss() {
        let cache = DiskCache::new(temp_root("collision"));
        cache.put(&key("a"), &ptx()).unwrap();
        let path = cache.path(&key("a"));
        let other = CacheKey { compiler: "other".into(), ..key("a") };
        std::fs::copy(&path, cache.path(&other)).unwrap();
        assert_eq!(cache.get(&other), None);
        std::fs::remove_dir_all(cache.root()).unwrap();
    }

    #[test]
    fn an_unwritable_root_is_a_clear_error() {
        let file = temp_root("file");
        std::fs::write(&file, "not a folder").unwrap();
        let e = DiskCache::new(&file).put(&key("a"), &ptx()).unwrap_err();
        assert!(e.to_string().contains("set RTRITON_CACHE_DIR to a writable folder"), "{e}");
        std::fs::remove_file(&file).unwrap();
    }
}
