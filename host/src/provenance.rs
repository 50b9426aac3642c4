//! Which build produced a result: the git commit (from `build.rs`, `unknown` without git,
//! overridden by `RTRITON_GIT_COMMIT` at build time), whether tracked files differed from
//! it, and the cargo profile. `rtriton --version` prints it, and the `validate` and
//! `bench` reports carry it in their header and JSON.

use serde::Serialize;

/// The commit hash, or `unknown`.
pub const GIT_COMMIT: &str = env!("RTRITON_GIT_COMMIT");
/// `true`, `false`, or `unknown` (no git, or the commit came from `RTRITON_GIT_COMMIT`).
pub const GIT_DIRTY: &str = env!("RTRITON_GIT_DIRTY");
/// Where [`GIT_COMMIT`] came from: `git`, `env` (`RTRITON_GIT_COMMIT`) or `none`.
pub const GIT_COMMIT_SOURCE: &str = env!("RTRITON_GIT_COMMIT_SOURCE");
/// `debug` or `release` (cargo's `PROFILE`: `release` for every optimized profile).
pub const BUILD_PROFILE: &str = env!("RTRITON_BUILD_PROFILE");

/// What `rtriton --version` prints after the name.
pub const LONG_VERSION: &str = concat!(
    env!("CARGO_PKG_VERSION"),
    " (commit ",
    env!("RTRITON_GIT_COMMIT"),
    ", dirty: ",
    env!("RTRITON_GIT_DIRTY"),
    ", ",
    env!("RTRITON_BUILD_PROFILE"),
    " build)"
);

/// The build, as the reports serialize it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Provenance {
    pub version: &'static str,
    pub commit: &'static str,
    pub dirty: &'static str,
    pub profile: &'static str,
}

impl Provenance {
    pub fn current() -> Provenance {
        Provenance { version: env!("CARGO_PKG_VERSION"), commit: GIT_COMMIT, dirty: GIT_DIRTY, profile: BUILD_PROFILE }
    }

    /// The header line of `validate` and `bench`.
    pub fn line(&self) -> String {
        format!("rtriton {} (commit {}, dirty: {}, {} build)", self.version, self.commit, self.dirty, self.profile)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_commit_is_a_hash_or_unknown_and_the_line_says_it() {
        let p = Provenance::current();
        let hash = p.commit.len() == 40 && p.commit.chars().all(|c| c.is_ascii_hexdigit());
        match GIT_COMMIT_SOURCE {
            "git" => assert!(hash, "{p:?}"),
            "env" => assert!(!p.commit.is_empty()),
            other => assert_eq!((other, p.commit), ("none", "unknown")),
        }
        assert!(["true", "false", "unknown"].contains(&p.dirty), "{p:?}");
        assert_eq!(p.profile, if cfg!(debug_assertions) { "debug" } else { "release" });
        assert_eq!(
            p.line(),
            format!("rtriton {} (commit {}, dirty: {}, {} build)", p.version, p.commit, p.dirty, p.profile)
        );
        assert_eq!(LONG_VERSION, &p.line()["rtriton ".len()..]);
    }
}
