//! PTX on disk under the user's cache directory, so a second process does not recompile:
//! `$RTRITON_CACHE_DIR` if set, else `dirs::cache_dir()/rtriton` (`~/.cache/rtriton` on
//! Linux). Each entry is `ptx/<kernel>-<hash>.json`: one header line
//! `rtriton-ptx-cache v1 <body bytes> <sha256 of the body>`, then the JSON body holding the
//! full key (checked on read, so a hash collision is a miss, not a wrong kernel) and the
//! compiled PTX.
//!
//! **Safe under concurrent writers.** Each write goes to its own temporary file (the
//! `tempfile` crate: a unique name per write, not per process) in the same folder and is
//! renamed over the entry, which is atomic: a reader sees the old entry, the new one, or
//! none, never half of one. A truncated or corrupt entry (a crash mid-copy, a full disk, a
//! stray edit) fails the length or checksum check: `get` treats it as a miss and
//! `rtriton cache` lists it as corrupt.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::key::{CacheKey, CompiledPtx};
use super::sealed::{seal, unseal, write_atomically};
use crate::error::HostError;

/// The environment variable that overrides the cache directory.
pub const CACHE_DIR_ENV: &str = "RTRITON_CACHE_DIR";

/// The first word of every entry's header line, with the format version.
const MAGIC: &str = "rtriton-ptx-cache v1";

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

/// What a file in the cache holds.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum EntryState {
    /// Header, length, checksum and JSON all check out.
    Valid,
    /// Not a usable entry; the reason says why (it is a miss on read).
    Corrupt(String),
}

/// One file of the cache, as `rtriton cache` lists it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EntryInfo {
    pub file: String,
    pub kernel: String,
    pub bytes: u64,
    pub state: EntryState,
}

/// The bytes of an entry file: header line, then body.
fn encode(entry: &Entry) -> Result<Vec<u8>, serde_json::Error> {
    Ok(seal(MAGIC, &serde_json::to_vec(entry)?))
}

/// The entry in `bytes`, or why it is not one.
fn decode(bytes: &[u8]) -> Result<Entry, String> {
    serde_json::from_slice(unseal(MAGIC, bytes)?).map_err(|e| format!("the body is not an entry: {e}"))
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

    fn dir(&self) -> PathBuf {
        self.root.join("ptx")
    }

    fn path(&self, key: &CacheKey) -> PathBuf {
        self.dir().join(format!("{}.json", key.file_stem()))
    }

    /// The entries on disk, sorted by file name, each checked (temporary files of writes
    /// in progress are not entries and are not listed).
    pub fn entries(&self) -> Vec<EntryInfo> {
        let Ok(dir) = std::fs::read_dir(self.dir()) else { return Vec::new() };
        let mut out: Vec<_> = dir
            .filter_map(Result::ok)
            .filter(|e| {
                let name = e.file_name().to_string_lossy().into_owned();
                name.ends_with(".json") && !name.starts_with('.')
            })
            .map(|e| {
                let file = e.file_name().to_string_lossy().into_owned();
                let stem = file.trim_end_matches(".json");
                let kernel = stem.rsplit_once('-').map_or(stem.to_string(), |(k, _)| k.to_string());
                let state = match std::fs::read(e.path()) {
                    Ok(bytes) => decode(&bytes).map_or_else(EntryState::Corrupt, |_| EntryState::Valid),
                    Err(err) => EntryState::Corrupt(format!("unreadable: {err}")),
                };
                EntryInfo { file, kernel, bytes: e.metadata().map_or(0, |m| m.len()), state }
            })
            .collect();
        out.sort_by(|a, b| a.file.cmp(&b.file));
        out
    }

    /// Removes every entry; returns how many there were.
    pub fn clear(&self) -> Result<usize, HostError> {
        let n = self.entries().len();
        let dir = self.dir();
        match std::fs::remove_dir_all(&dir) {
            Ok(()) => Ok(n),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(0),
            Err(e) => Err(HostError::Cache { path: dir.display().to_string(), message: e.to_string() }),
        }
    }

    /// The cached PTX for `key`: present, intact and written for exactly this key, else
    /// `None` (a corrupt entry is a miss; the next `put` replaces it).
    pub fn get(&self, key: &CacheKey) -> Option<CompiledPtx> {
        let bytes = std::fs::read(self.path(key)).ok()?;
        let entry = decode(&bytes).ok()?;
        (entry.key == key.to_string()).then_some(entry.ptx)
    }

    /// Stores `ptx` for `key`: written to a temporary file of its own, then renamed over
    /// the entry (see the module doc), so any number of threads and processes may store
    /// the same key at once.
    pub fn put(&self, key: &CacheKey, ptx: &CompiledPtx) -> Result<(), HostError> {
        let path = self.path(key);
        let err = |e: std::io::Error| HostError::Cache { path: path.display().to_string(), message: e.to_string() };
        let bytes = encode(&Entry { key: key.to_string(), ptx: ptx.clone() }).map_err(|e| err(e.into()))?;
        write_atomically(&self.dir(), &path, &bytes).map_err(err)
    }
}

#[cfg(test)]
mod tests;
