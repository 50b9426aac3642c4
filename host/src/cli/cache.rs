//! `rtriton cache`: where the on-disk PTX cache is, what it holds (each entry checked:
//! valid or corrupt, with the reason), and `--clear`.

use std::process::ExitCode;

use clap::Args;

use crate::cache::{CACHE_DIR_ENV, DiskCache, EntryState};

#[derive(Debug, Args)]
pub struct CacheArgs {
    /// Remove every cached PTX entry.
    #[arg(long)]
    pub clear: bool,
}

pub fn run(args: &CacheArgs) -> anyhow::Result<ExitCode> {
    let Some(cache) = DiskCache::from_env() else {
        println!("no cache directory: set {CACHE_DIR_ENV} to enable the on-disk PTX cache");
        return Ok(ExitCode::SUCCESS);
    };
    println!("{} (set {CACHE_DIR_ENV} to move it)", cache.root().display());
    if args.clear {
        println!("removed {} entries", cache.clear()?);
        return Ok(ExitCode::SUCCESS);
    }
    let entries = cache.entries();
    let mut corrupt = 0;
    for e in &entries {
        let state = match &e.state {
            EntryState::Valid => "valid".to_string(),
            EntryState::Corrupt(why) => {
                corrupt += 1;
                format!("CORRUPT ({why}; a miss, replaced on the next compile)")
            }
        };
        println!("{:<24} {:>8} B  {}  {state}", e.kernel, e.bytes, e.file);
    }
    println!("{} entries ({} valid, {corrupt} corrupt)", entries.len(), entries.len() - corrupt);
    Ok(ExitCode::SUCCESS)
}
