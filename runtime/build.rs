//! Computes the compiler identity the PTX cache keys carry: a hash of the DSL crate's
//! sources (`../dsl/src`, the compiler) so a changed compiler never reuses PTX an older
//! build wrote to disk, without depending on the executable's path or mtime.

use std::path::{Path, PathBuf};

fn files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    for e in entries.flatten() {
        let p = e.path();
        if p.is_dir() {
            files(&p, out);
        } else {
            out.push(p);
        }
    }
}

fn main() {
    let dsl = Path::new(env!("CARGO_MANIFEST_DIR")).join("../dsl/src");
    println!("cargo:rerun-if-changed={}", dsl.display());
    let mut all = Vec::new();
    files(&dsl, &mut all);
    all.sort();
    // FNV-1a over each file's path (relative to dsl/src) and contents.
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    let mut feed = |bytes: &[u8]| {
        for b in bytes {
            h = (h ^ u64::from(*b)).wrapping_mul(0x100_0000_01b3);
        }
    };
    for f in &all {
        feed(f.strip_prefix(&dsl).unwrap_or(f).to_string_lossy().as_bytes());
        feed(&std::fs::read(f).unwrap_or_default());
    }
    // Outside this workspace (a published crate) there are no DSL sources to read: the
    // DSL's version, part of the identity too, is then what tells builds apart.
    let id = if all.is_empty() { "unknown".to_string() } else { format!("{h:016x}") };
    println!("cargo:rustc-env=RTRITON_COMPILER_SOURCE_HASH={id}");
}
