//! `rtriton cache`: where the on-disk PTX cache is, what it holds (each entry checked:
//! valid or corrupt, with the reason; anything else in the folder listed as not rtriton's),
//! and `--clear`, which removes rtriton's own files only and says what it left.

use std::process::ExitCode;

use anyhow::Context;
use clap::Args;

use super::out::outln;
use crate::cache::{CACHE_DIR_ENV, DiskCache, EntryState};

#[derive(Debug, Args)]
pub struct CacheArgs {
    /// Remove every cached PTX entry (files rtriton wrote; anything else in the folder stays).
    #[arg(long)]
    pub clear: bool,
}

pub fn run(args: &CacheArgs) -> anyhow::Result<ExitCode> {
    let Some(cache) = DiskCache::from_env() else {
        outln!("no cache directory: set {CACHE_DIR_ENV} to enable the on-disk PTX cache")?;
        return Ok(ExitCode::SUCCESS);
    };
    let cannot = || format!("rtriton cache: cannot read the cache (set {CACHE_DIR_ENV} to a folder rtriton can read)");
    // Checked before anything prints, so an unusable folder is an error, never "0 entries".
    let listing = cache.listing().with_context(cannot)?;
    outln!("{} (set {CACHE_DIR_ENV} to move it)", cache.root().display())?;
    if args.clear {
        let cleared = cache.clear().with_context(cannot)?;
        outln!("removed {} entries", cleared.removed)?;
        if !cleared.left.is_empty() {
            outln!(
                "left {} files that rtriton did not write (remove them yourself if you mean to):",
                cleared.left.len()
            )?;
            for o in &cleared.left {
                outln!("  {}  ({})", o.file, o.why)?;
            }
        }
        return Ok(ExitCode::SUCCESS);
    }
    let entries = &listing.entries;
    let mut corrupt = 0;
    for e in entries {
        let state = match &e.state {
            EntryState::Valid => "valid".to_string(),
            EntryState::Corrupt(why) => {
                corrupt += 1;
                format!("CORRUPT ({why}; a miss, replaced on the next compile)")
            }
        };
        outln!("{:<24} {:>8} B  {}  {state}", e.kernel, e.bytes, e.file)?;
    }
    for o in &listing.others {
        outln!("{:<24} {:>8}    {}  not rtriton's ({}; never read or removed)", "-", "", o.file, o.why)?;
    }
    let others =
        if listing.others.is_empty() { String::new() } else { format!("; {} other files", listing.others.len()) };
    outln!("{} entries ({} valid, {corrupt} corrupt){others}", entries.len(), entries.len() - corrupt)?;
    Ok(ExitCode::SUCCESS)
}
