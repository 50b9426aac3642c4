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

/// What the cache folder holds: rtriton's entries, and everything else.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Listing {
    pub entries: Vec<EntryInfo>,
    pub others: Vec<Other>,
}

/// A thing in the cache folder that is not an entry: its name and why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Other {
    pub file: String,
    pub why: String,
}

/// What [`DiskCache::clear`] did: entries removed, and what it left (not rtriton's).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Cleared {
    pub removed: usize,
    pub left: Vec<Other>,
}

/// Whether `file` is named as an entry: `<kernel>-<16 hex digits>.json`, the kernel an
/// identifier ([`CacheKey::file_stem`]).
fn is_entry_name(file: &str) -> bool {
    let Some(stem) = file.strip_suffix(".json") else { return false };
    let Some((kernel, hash)) = stem.rsplit_once('-') else { return false };
    let ident = !kernel.is_empty()
        && kernel.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
        && !kernel.starts_with(|c: char| c.is_ascii_digit());
    ident && hash.len() == 16 && hash.chars().all(|c| c.is_ascii_hexdigit() && !c.is_ascii_uppercase())
}

/// Whether `file` is named as a write in progress ([`super::write_atomically`]'s
/// temporary files: `.`, random letters and digits, `.tmp`).
fn is_temp_name(file: &str) -> bool {
    file.strip_prefix('.')
        .and_then(|f| f.strip_suffix(".tmp"))
        .is_some_and(|r| !r.is_empty() && r.chars().all(|c| c.is_ascii_alphanumeric()))
}

/// How old a temporary file must be to count as the leftover of an interrupted write.
const STALE_TEMP: std::time::Duration = std::time::Duration::from_secs(60);

/// Whether the file at `path` was last written more than [`STALE_TEMP`] ago.
fn is_stale(path: &Path) -> bool {
    std::fs::metadata(path).and_then(|m| m.modified()).is_ok_and(|t| t.elapsed().is_ok_and(|age| age > STALE_TEMP))
}

/// Whether the regular file at `path` starts with an entry's header (`MAGIC` and a
/// space); only the first bytes are read.
fn starts_with_header(path: &Path) -> bool {
    use std::io::Read;
    let want = format!("{MAGIC} ");
    let mut head = Vec::with_capacity(want.len());
    std::fs::File::open(path)
        .and_then(|f| f.take(want.len() as u64).read_to_end(&mut head))
        .is_ok_and(|_| head == want.as_bytes())
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
    /// in progress are not entries and are not listed), and the names of the other things
    /// in the folder (not rtriton's, or not regular files: never opened, so a FIFO cannot
    /// block). No folder yet is an empty cache; a folder that cannot be read (no
    /// permission, the root is a file) is an error naming it.
    pub fn listing(&self) -> Result<Listing, HostError> {
        let dir = self.dir();
        let err = |e: std::io::Error| HostError::Cache { path: dir.display().to_string(), message: e.to_string() };
        if let Ok(meta) = std::fs::metadata(&self.root)
            && !meta.is_dir()
        {
            return Err(HostError::Cache {
                path: self.root.display().to_string(),
                message: "this is a file, not a folder".into(),
            });
        }
        let read = match std::fs::read_dir(&dir) {
            Ok(read) => read,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Listing::default()),
            Err(e) => return Err(err(e)),
        };
        let mut listing = Listing::default();
        for e in read {
            let e = e.map_err(err)?;
            let file = e.file_name().to_string_lossy().into_owned();
            // `DirEntry::file_type` does not follow links: a link is not an entry.
            let regular = e.file_type().map(|t| t.is_file()).unwrap_or(false);
            if !regular {
                listing.others.push(Other { file, why: "not a regular file".into() });
                continue;
            }
            if !is_entry_name(&file) {
                if !is_temp_name(&file) {
                    listing.others.push(Other { file, why: "not named as an rtriton entry".into() });
                }
                continue;
            }
            let kernel = file.trim_end_matches(".json").rsplit_once('-').map_or(String::new(), |(k, _)| k.to_string());
            let state = match std::fs::read(e.path()) {
                Ok(bytes) => decode(&bytes).map_or_else(EntryState::Corrupt, |_| EntryState::Valid),
                Err(err) => EntryState::Corrupt(format!("unreadable: {err}")),
            };
            listing.entries.push(EntryInfo { file, kernel, bytes: e.metadata().map_or(0, |m| m.len()), state });
        }
        listing.entries.sort_by(|a, b| a.file.cmp(&b.file));
        listing.others.sort_by(|a, b| a.file.cmp(&b.file));
        Ok(listing)
    }

    /// The entries of [`DiskCache::listing`] (an unreadable folder lists none).
    pub fn entries(&self) -> Vec<EntryInfo> {
        self.listing().map(|l| l.entries).unwrap_or_default()
    }

    /// Removes the files rtriton wrote: entries (named `<kernel>-<16 hex digits>.json`)
    /// and leftovers of interrupted writes (`.<random>.tmp`, older than a minute: a
    /// younger one may be a write in progress), each only if it starts with
    /// the cache's header, so a file rtriton did not write is never deleted, whatever its
    /// name. Everything else stays, and is listed in the result; the `ptx` folder is
    /// removed only when nothing is left in it.
    pub fn clear(&self) -> Result<Cleared, HostError> {
        let dir = self.dir();
        let err = |path: &Path, e: std::io::Error| HostError::Cache {
            path: path.display().to_string(),
            message: e.to_string(),
        };
        let listing = self.listing()?;
        let mut cleared = Cleared { removed: 0, left: listing.others };
        let read = match std::fs::read_dir(&dir) {
            Ok(read) => read,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(cleared),
            Err(e) => return Err(err(&dir, e)),
        };
        for e in read {
            let e = e.map_err(|x| err(&dir, x))?;
            let file = e.file_name().to_string_lossy().into_owned();
            let regular = e.file_type().map(|t| t.is_file()).unwrap_or(false);
            if !regular || !(is_entry_name(&file) || is_temp_name(&file)) {
                continue; // listed in `left` already (or a temporary file of another name)
            }
            // A temporary file younger than a minute may be another process's write in
            // progress, about to be renamed over its entry: left alone, silently.
            if is_temp_name(&file) && !is_stale(&e.path()) {
                continue;
            }
            if !starts_with_header(&e.path()) {
                cleared.left.push(Other { file, why: "named as rtriton's but without its header".into() });
                continue;
            }
            match std::fs::remove_file(e.path()) {
                Ok(()) => cleared.removed += 1,
                // Another process removed or replaced it meanwhile.
                Err(x) if x.kind() == std::io::ErrorKind::NotFound => {}
                Err(x) => return Err(err(&e.path(), x)),
            }
        }
        cleared.left.sort_by(|a, b| a.file.cmp(&b.file));
        if cleared.left.is_empty() {
            // Fails harmlessly when another process wrote an entry meanwhile.
            let _ = std::fs::remove_dir(&dir);
        }
        Ok(cleared)
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
