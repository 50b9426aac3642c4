//! IR filetests (Cranelift's `.clif` filetests, naga's `tests/in -> tests/out`): every
//! `tests/ir/in/NAME.ir` is parsed (`rtriton::ir::parse`), run through the stage its first
//! line names, and the result is compared with `tests/ir/out/NAME.ir`.
//!
//! The first line is `; run: STAGE [num_warps=N]`:
//! - `dce`: dead-code elimination; the output is the IR after it;
//! - `verify`: the verifier; the output is `ok` or its diagnostics, one after another;
//! - `layouts`: the PTX back end's layout decisions (the kernel's blocked layout and why,
//!   each block value's layout, vector widths, reductions, conversions, unrolled loops);
//! - `lir`: the thread-level program the PTX back end lowers the kernel to, as text;
//! - `stage`: the layout stage (`rtriton explain --ir layouts`): the kernel with each
//!   value's layout and each conversion as an op (a `convert_layout`, or the ops copied to
//!   recompute an index in another layout).
//!
//! `RTRITON_BLESS=1 cargo test -p rtriton-tests --test ir_filetests` rewrites every `out`
//! file from what the stages print now; review the diff (`tests/ir/README.md`).

use std::fmt::Write;
use std::fs;
use std::path::{Path, PathBuf};

use rtriton::backend::ptx::{self, AccessKind, PtxOptions};
use rtriton::ir::{Kernel, parse, print};
use rtriton::passes::dce;
use rtriton::verify::{check, verify};

fn dir(which: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("ir").join(which)
}

/// The stage a file's header names and its options.
fn header(text: &str) -> Result<(String, PtxOptions), String> {
    let first = text.lines().next().unwrap_or_default();
    let Some(run) = first.strip_prefix("; run:") else {
        return Err(format!("the first line must be `; run: STAGE`, found {first:?}"));
    };
    let mut words = run.split_whitespace();
    let stage = words.next().ok_or("`; run:` names no stage")?.to_string();
    let mut options = PtxOptions::default();
    for w in words {
        match w.split_once('=') {
            Some(("num_warps", n)) => options.num_warps = n.parse().map_err(|e| format!("num_warps: {e}"))?,
            // one option is known (a header word, not an op kind)
            _ => return Err(format!("unknown option `{w}` (known: num_warps=N)")),
        }
    }
    Ok((stage, options))
}

/// What running `stage` on `kernel` prints.
fn run(stage: &str, mut kernel: Kernel, options: &PtxOptions) -> Result<String, String> {
    match stage {
        "dce" => {
            let removed = dce::run(&mut kernel);
            Ok(format!("; dce removed {removed} ops\n{}", print(&kernel)))
        }
        "verify" => Ok(match check(&kernel) {
            Ok(_) => "ok\n".to_string(),
            Err(e) => format!("{e:#}\n"),
        }),
        "stage" => {
            let verified = verify(kernel).map_err(|e| format!("does not verify:\n{e:#}"))?;
            Ok(ptx::layouts_text(&verified, options).unwrap_or_else(|e| format!("{e:#}\n")))
        }
        "layouts" | "lir" => {
            let verified = verify(kernel).map_err(|e| format!("does not verify:\n{e:#}"))?;
            let program = match ptx::lower(&verified, options) {
                Ok(p) => p,
                Err(e) => return Ok(format!("{e:#}\n")),
            };
            if stage == "lir" {
                return Ok(program.to_string());
            }
            let d = &program.decisions;
            let mut out = String::new();
            if let Some(l) = &d.layout {
                let _ = writeln!(out, "layout {}: {}", l.blocked, l.reason);
            }
            for n in &program.layouts {
                let _ = writeln!(out, "value {} {}: {} ({} per thread)", n.value, n.ty, n.layout, n.regs_per_thread);
            }
            for a in &d.accesses {
                let kind = match a.kind {
                    AccessKind::Load => "load",
                    AccessKind::Store => "store",
                };
                let _ = writeln!(out, "{kind} at {}: v{}: {}", a.loc.short(), a.vector_width, a.reason);
            }
            for r in &d.reductions {
                let _ = writeln!(
                    out,
                    "reduce at {}: shuffles {}, shared memory {}: {}",
                    r.loc.short(),
                    r.uses_shuffles,
                    r.uses_shared_memory,
                    r.reason
                );
            }
            for c in &d.conversions {
                let how = if c.through_shared_memory { "through shared memory" } else { "recomputed" };
                let _ = writeln!(out, "conversion at {}: {how}: {}", c.loc.short(), c.reason);
            }
            for l in &d.loops {
                let _ = writeln!(out, "loop at {}: unrolled {}x: {}", l.loc.short(), l.unroll, l.reason);
            }
            for o in &d.dot_operands {
                let _ = writeln!(out, "dot operand at {}: `{}` {}", o.loc.short(), o.operand, o.source);
            }
            Ok(out)
        }
        // the five stages are named above (a header word, not an op kind)
        _ => Err(format!("unknown stage `{stage}` (known: dce, verify, layouts, lir, stage)")),
    }
}

fn inputs() -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = fs::read_dir(dir("in"))
        .expect("tests/ir/in")
        .map(|e| e.expect("a directory entry").path())
        .filter(|p| p.extension().is_some_and(|x| x == "ir"))
        .collect();
    files.sort();
    files
}

#[test]
fn every_input_gives_its_expected_output() {
    let bless = std::env::var_os("RTRITON_BLESS").is_some_and(|v| v == "1");
    let files = inputs();
    let mut failures = Vec::new();
    let mut stages = std::collections::BTreeMap::<String, usize>::new();
    for input in &files {
        let name = input.file_name().expect("a file name").to_string_lossy().to_string();
        let text = fs::read_to_string(input).expect("readable input");
        let got = header(&text).and_then(|(stage, options)| {
            *stages.entry(stage.clone()).or_default() += 1;
            let kernel = parse(&text).map_err(|e| format!("does not parse: {e}"))?;
            run(&stage, kernel, &options)
        });
        let got = match got {
            Ok(g) => g,
            Err(e) => {
                failures.push(format!("{name}: {e}"));
                continue;
            }
        };
        let out = dir("out").join(&name);
        if bless {
            fs::write(&out, &got).expect("writable tests/ir/out");
            continue;
        }
        match fs::read_to_string(&out) {
            Ok(want) if want == got => {}
            Ok(want) => {
                let line = want.lines().zip(got.lines()).position(|(a, b)| a != b).map_or(0, |i| i + 1);
                failures.push(format!("{name}: differs from tests/ir/out/{name} (first at line {line}):\n{got}"));
            }
            Err(_) => failures.push(format!("{name}: no tests/ir/out/{name}; bless it:\n{got}")),
        }
    }
    assert!(
        failures.is_empty(),
        "{}\n\nAfter an intended change: RTRITON_BLESS=1 cargo test -p rtriton-tests --test ir_filetests",
        failures.join("\n\n")
    );
    // At least two inputs per stage.
    for stage in ["dce", "verify", "layouts", "lir"] {
        assert!(stages.get(stage).copied().unwrap_or(0) >= 2, "fewer than 2 `{stage}` inputs: {stages:?}");
    }
}

/// Every output has its input (a renamed or removed input leaves no stale output).
#[test]
fn every_output_has_an_input() {
    let ins: Vec<_> = inputs().iter().filter_map(|p| p.file_name().map(|n| n.to_owned())).collect();
    for e in fs::read_dir(dir("out")).expect("tests/ir/out") {
        let name = e.expect("a directory entry").file_name();
        assert!(ins.contains(&name), "tests/ir/out/{} has no input in tests/ir/in", name.to_string_lossy());
    }
}

/// The header names a stage; a malformed one is refused with what is known.
#[test]
fn headers_name_a_known_stage() {
    let cases: [(&str, Result<&str, &str>); 5] = [
        ("; run: dce\n", Ok("dce")),
        ("; run: lir num_warps=1\n", Ok("lir")),
        ("kernel @k() loc(a.rs:1) {\n}\n", Err("the first line must be")),
        ("; run:\n", Err("names no stage")),
        ("; run: lir warps=2\n", Err("unknown option")),
    ];
    for (text, want) in cases {
        match (header(text), want) {
            (Ok((stage, _)), Ok(w)) => assert_eq!(stage, w),
            (Err(e), Err(w)) => assert!(e.contains(w), "{e}"),
            (got, _) => panic!("{text:?}: {got:?}"),
        }
    }
    assert_eq!(header("; run: lir num_warps=1\n").map(|(_, o)| o.num_warps), Ok(1));
}
