//! `rtriton cache`: where the on-disk PTX cache is, what it holds, and `--clear`.

use std::process::ExitCode;

use clap::Args;

use crate::cache::{CACHE_DIR_ENV, DiskCache};

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
    for (file, kernel, bytes) in &entries {
        println!("{kernel:<24} {bytes:>8} B  {file}");
    }
    println!("{} entries", entries.len());
    Ok(ExitCode::SUCCESS)
}
