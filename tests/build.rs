//! Finds ptxas the way the PTX suites do (`PATH`, else the `nvidia-cuda-nvcc-cu12` wheel of
//! `python3`) and sets `cfg(has_ptxas)` when it is there. The tests that assemble PTX are
//! `#[cfg_attr(not(has_ptxas), ignore = "needs ptxas on PATH")]`, so without ptxas
//! `cargo test` lists them as ignored instead of counting a skip as a pass. Under CI
//! (`CI=true`, the value, as `.ci/run` exports it) a missing ptxas fails the build.

use std::path::PathBuf;
use std::process::Command;

fn find_ptxas() -> Option<PathBuf> {
    if Command::new("ptxas").arg("--version").output().is_ok_and(|o| o.status.success()) {
        return Some(PathBuf::from("ptxas"));
    }
    let py = "import nvidia.cuda_nvcc as m; print(list(m.__path__)[0])";
    let out = Command::new("python3").args(["-c", py]).output().ok().filter(|o| o.status.success())?;
    let p = PathBuf::from(String::from_utf8_lossy(&out.stdout).trim()).join("bin").join("ptxas");
    p.exists().then_some(p)
}

fn main() {
    println!("cargo::rustc-check-cfg=cfg(has_ptxas)");
    println!("cargo::rerun-if-env-changed=PATH");
    println!("cargo::rerun-if-env-changed=CI");
    println!("cargo::rerun-if-changed=build.rs");
    let ci = std::env::var("CI").is_ok_and(|v| v.eq_ignore_ascii_case("true"));
    match find_ptxas() {
        Some(_) => println!("cargo::rustc-cfg=has_ptxas"),
        None if ci => panic!(
            "CI=true but ptxas is not on PATH and python3 has no nvidia-cuda-nvcc-cu12 wheel: the ptxas tests would not run (pip install nvidia-cuda-nvcc-cu12==12.9.86)"
        ),
        None => println!(
            "cargo::warning=ptxas not found: the tests that assemble PTX are ignored (put ptxas on PATH to run them)"
        ),
    }
}
