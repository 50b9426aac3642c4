//! Compiled-kernel caches: the key, PTX on disk (shared between processes) and loaded
//! modules in memory (one per key per runtime).
//!
//! **Architecture Invariant:** everything that changes the PTX is in [`CacheKey`]: the
//! kernel name, its constexprs, the specialization key, the PTX options, the trace
//! semantics and the identity of the compiler build.

mod disk;
mod key;
mod sealed;

pub use disk::{CACHE_DIR_ENV, Cleared, DiskCache, EntryInfo, EntryState, Listing, Other, cache_dir};
pub use key::{CacheKey, CompiledPtx, StableHasher, compiler_identity};
pub(crate) use sealed::{seal, unseal, write_atomically};
