//! Tuning results on disk, next to the PTX cache (`<cache folder>/autotune/`, or
//! `$RTRITON_AUTOTUNE_DIR`), so a second process does not tune again. One file per kernel
//! and identity, `<kernel>-<hash>.json`, written with the PTX cache's scheme
//! (`crate::cache::sealed`): a header with the body's length and sha256, a unique
//! temporary file renamed over the entry. A missing, truncated or corrupt file, or one
//! written for another identity (a hash collision), is a miss: the kernel tunes again and
//! replaces it.
//!
//! The identity is everything the winner depends on: the kernel and where it is defined,
//! the tuning key, the configurations declared, the device, the compiler build, the
//! specialization policy and trace options (see `Autotuned::identity`).

use std::hash::Hasher;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::{Trial, TuneOutcome};
use crate::cache::{StableHasher, seal, unseal, write_atomically};

const MAGIC: &str = "rtriton-autotune v1";

/// One configuration's result as stored.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct StoredTrial {
    /// The configuration as printed (`BLOCK_M: 16, BLOCK_N: 64, num_warps: 4`).
    pub config: String,
    /// The median time, or `None` when it could not run.
    pub median_ms: Option<f64>,
    /// Why it could not run (empty when timed).
    pub note: String,
}

/// A stored tuning result.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct StoredChoice {
    /// The identity the result was tuned for (checked on read).
    pub identity: String,
    /// The winner as printed.
    pub best: String,
    pub trials: Vec<StoredTrial>,
}

impl StoredChoice {
    pub fn of(identity: &str, outcome: &TuneOutcome) -> StoredChoice {
        StoredChoice {
            identity: identity.to_string(),
            best: outcome.best_config().to_string(),
            trials: outcome
                .trials
                .iter()
                .map(|(c, t)| match t {
                    Trial::Timed(s) => {
                        StoredTrial { config: c.to_string(), median_ms: Some(s.median_ms), note: String::new() }
                    }
                    Trial::CannotRun(why) => StoredTrial { config: c.to_string(), median_ms: None, note: why.clone() },
                })
                .collect(),
        }
    }
}

/// The folder of stored tuning results.
#[derive(Clone, Debug)]
pub struct TuneStore {
    dir: PathBuf,
}

impl TuneStore {
    pub fn new(dir: impl Into<PathBuf>) -> TuneStore {
        TuneStore { dir: dir.into() }
    }

    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The file of `kernel`'s result for `identity`: `<kernel>-<stable 64-bit hash>.json`.
    pub fn path(&self, kernel: &str, identity: &str) -> PathBuf {
        let mut h = StableHasher::new();
        h.write(identity.as_bytes());
        self.dir.join(format!("{kernel}-{:016x}.json", h.finish()))
    }

    /// The stored result for `identity`, or `None` (missing, damaged, or another identity).
    pub fn get(&self, kernel: &str, identity: &str) -> Option<StoredChoice> {
        let bytes = std::fs::read(self.path(kernel, identity)).ok()?;
        let choice: StoredChoice = serde_json::from_slice(unseal(MAGIC, &bytes).ok()?).ok()?;
        (choice.identity == identity).then_some(choice)
    }

    /// Stores `choice` (atomically; any number of processes may store at once). The error
    /// is a sentence naming the file.
    pub fn put(&self, kernel: &str, choice: &StoredChoice) -> Result<PathBuf, String> {
        let path = self.path(kernel, &choice.identity);
        let body = serde_json::to_vec_pretty(choice).map_err(|e| e.to_string())?;
        write_atomically(&self.dir, &path, &seal(MAGIC, &body))
            .map_err(|e| format!("could not store the tuning result at {}: {e}", path.display()))?;
        Ok(path)
    }
}

#[cfg(test)]
mod tests {
    use rstest::rstest;

    use super::*;
    use crate::autotune::Config;
    use crate::timing::Summary;

    fn outcome() -> TuneOutcome {
        let s = |m: f64| Summary { samples: 10, median_ms: m, p10_ms: m, p90_ms: m, min_ms: m, max_ms: m };
        TuneOutcome {
            best: 1,
            trials: vec![
                (Config::new(&[("BLOCK", 64)]), Trial::Timed(s(0.5))),
                (Config::new(&[("BLOCK", 128)]).num_warps(8), Trial::Timed(s(0.25))),
                (Config::new(&[("BLOCK", 1 << 21)]), Trial::CannotRun("too large".into())),
            ],
            seconds: 1.0,
        }
    }

    #[test]
    fn a_stored_choice_round_trips_and_only_for_its_identity() {
        let dir = tempfile::tempdir().unwrap();
        let store = TuneStore::new(dir.path().join("autotune"));
        let choice = StoredChoice::of("k@a.rs:1 key(n=4)", &outcome());
        assert_eq!(choice.best, "BLOCK: 128, num_warps: 8");
        assert_eq!(
            choice.trials[2],
            StoredTrial { config: "BLOCK: 2097152, num_warps: 4".into(), median_ms: None, note: "too large".into() }
        );
        let path = store.put("k", &choice).unwrap();
        assert!(
            path.starts_with(dir.path().join("autotune"))
                && path.file_name().unwrap().to_string_lossy().starts_with("k-")
        );
        assert_eq!(store.get("k", "k@a.rs:1 key(n=4)"), Some(choice.clone()));
        assert_eq!(store.get("k", "k@a.rs:1 key(n=5)"), None);
        // An entry at the same path written for another identity (a hash collision) is a miss.
        let other = StoredChoice { identity: "another".into(), ..choice };
        std::fs::write(&path, seal(MAGIC, &serde_json::to_vec(&other).unwrap())).unwrap();
        assert_eq!(store.get("k", "k@a.rs:1 key(n=4)"), None);
    }

    /// A damaged file is a miss (each row damages a good one in one way), and the next
    /// store replaces it.
    #[rstest]
    #[case::empty(|_: &[u8]| Vec::new())]
    #[case::truncated(|b: &[u8]| b[..b.len() - 3].to_vec())]
    #[case::flipped_byte(|b: &[u8]| { let mut v = b.to_vec(); let n = v.len(); v[n - 5] ^= 1; v })]
    #[case::a_ptx_cache_entry(|b: &[u8]| { let body = &b[b.iter().position(|&c| c == b'\n').unwrap() + 1..]; seal("rtriton-ptx-cache v1", body) })]
    #[case::valid_seal_not_json(|_: &[u8]| seal(MAGIC, b"{not json"))]
    fn a_damaged_entry_is_a_miss(#[case] damage: fn(&[u8]) -> Vec<u8>) {
        let dir = tempfile::tempdir().unwrap();
        let store = TuneStore::new(dir.path());
        let choice = StoredChoice::of("id", &outcome());
        let path = store.put("k", &choice).unwrap();
        let good = std::fs::read(&path).unwrap();
        std::fs::write(&path, damage(&good)).unwrap();
        assert_eq!(store.get("k", "id"), None);
        store.put("k", &choice).unwrap();
        assert_eq!(store.get("k", "id"), Some(choice));
    }

    #[test]
    fn a_store_that_cannot_be_written_says_where() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("file");
        std::fs::write(&file, "not a folder").unwrap();
        let e = TuneStore::new(&file).put("k", &StoredChoice::of("id", &outcome())).unwrap_err();
        assert!(e.starts_with("could not store the tuning result at ") && e.contains("file"), "{e}");
    }
}
