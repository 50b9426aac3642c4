//! Records the git commit the binary is built from, so `rtriton --version` and the
//! `validate`/`bench` reports say which code produced them. `RTRITON_GIT_COMMIT` overrides
//! it (a build from a tarball, or a CI that knows the commit); without git it is `unknown`.

use std::path::Path;
use std::process::Command;

fn git(dir: &Path, args: &[&str]) -> Option<String> {
    let out = Command::new("git").arg("-C").arg(dir).args(args).output().ok()?;
    out.status.success().then(|| String::from_utf8_lossy(&out.stdout).trim().to_string())
}

fn main() {
    println!("cargo:rerun-if-env-changed=RTRITON_GIT_COMMIT");
    let manifest = std::env::var("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR");
    let dir = Path::new(&manifest);
    let (commit, dirty, source) = match std::env::var("RTRITON_GIT_COMMIT") {
        Ok(c) if !c.is_empty() => (c, "unknown".to_string(), "env"),
        _ => match git(dir, &["rev-parse", "HEAD"]) {
            Some(c) => {
                // Tracked files only: a build leaves untracked files around that change nothing.
                let dirty = git(dir, &["status", "--porcelain", "--untracked-files=no"])
                    .map_or("unknown".to_string(), |s| (!s.is_empty()).to_string());
                (c, dirty, "git")
            }
            None => ("unknown".to_string(), "unknown".to_string(), "none"),
        },
    };
    // Rerun when HEAD moves (a commit, a checkout) or the index changes (staging, which
    // also refreshes the dirty flag); edits not yet staged show at the next such event.
    if let Some(git_dir) = git(dir, &["rev-parse", "--absolute-git-dir"]) {
        for f in ["HEAD", "index", "logs/HEAD"] {
            let p = Path::new(&git_dir).join(f);
            if p.exists() {
                println!("cargo:rerun-if-changed={}", p.display());
            }
        }
    }
    println!("cargo:rustc-env=RTRITON_GIT_COMMIT={commit}");
    println!("cargo:rustc-env=RTRITON_GIT_DIRTY={dirty}");
    println!("cargo:rustc-env=RTRITON_GIT_COMMIT_SOURCE={source}");
    let profile = std::env::var("PROFILE").unwrap_or_else(|_| "unknown".into());
    println!("cargo:rustc-env=RTRITON_BUILD_PROFILE={profile}");
}
