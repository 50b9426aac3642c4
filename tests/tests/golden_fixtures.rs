//! The golden and whole-text suites trace fixture copies of the row-max family
//! (`tests/src/fixtures/`), not the production kernels, so that editing
//! `kernels-gpu/src/row_max.rs` rewrites no snapshot. These tests keep that honest: each
//! fixture traces to the same IR and PTX as its production kernel once locations are
//! masked, and no snapshot or expected text in the workspace names a line of `row_max.rs`.

mod ptx_common;

use std::path::{Path, PathBuf};

use ptx_common::{compile_def, options};
use rstest::rstest;
use rstest_reuse::apply;
use rtriton::backend::ptx::Arch;
use rtriton::session::CompileSession;
use rtriton::spec::SpecPolicy;
use rtriton::trace::{KernelDef, TraceOptions};
use rtriton_kernels::RowMaxVariant;
use rtriton_tests::contiguous_args;
use rtriton_tests::fixtures::row_max_family;
use rtriton_tests::tables::every_variant;

/// The file `def`'s ops are recorded in, as diagnostics and snapshots print it.
fn file_of(def: &KernelDef) -> String {
    let loc = def.loc.short();
    loc.rsplit_once(':').map_or(loc.clone(), |(file, _)| file.to_string())
}

/// `text` with every `file:LINE` of `file` replaced by `<loc>`.
fn mask_locations(text: &str, file: &str) -> String {
    let needle = format!("{file}:");
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find(&needle) {
        out.push_str(&rest[..at]);
        let after = &rest[at + needle.len()..];
        let digits = after.len() - after.trim_start_matches(|c: char| c.is_ascii_digit()).len();
        out.push_str(if digits > 0 { "<loc>" } else { &needle });
        rest = &after[digits..];
    }
    out.push_str(rest);
    out
}

/// The IR text and sm_86 PTX of `def` for the contiguous launch under `policy`, with its
/// locations masked; panics unless the unmasked texts name `def`'s file (so the mask did
/// something).
fn ir_and_ptx(def: &KernelDef, variant: RowMaxVariant, policy: SpecPolicy) -> (String, String) {
    let constexprs = variant.default_constexprs();
    let verified = CompileSession::new()
        .front_end_for_args(def, &constexprs, &contiguous_args(), policy, &TraceOptions::default())
        .unwrap_or_else(|e| panic!("{} does not trace: {e}", def.name));
    let ptx = compile_def(def, &constexprs, &contiguous_args(), policy, &options(Arch::Sm86, 4))
        .unwrap_or_else(|e| panic!("{} does not compile: {e}", def.name))
        .text;
    let (ir, file) = (verified.kernel().to_string(), file_of(def));
    assert!(ir.contains(&format!("{file}:")) && ptx.contains(&format!("{file}:")), "{file}:\n{ir}\n{ptx}");
    (mask_locations(&ir, &file), mask_locations(&ptx, &file))
}

#[apply(every_variant)]
fn each_fixture_is_its_production_kernel_but_for_locations(
    variant: RowMaxVariant,
    #[values(SpecPolicy::Triton, SpecPolicy::Off)] policy: SpecPolicy,
) {
    let (real, fixture) = (variant.def(), row_max_family::def(variant));
    assert_ne!(file_of(&real), file_of(&fixture));
    assert_eq!(fixture.signature(), real.signature());
    let (real_ir, real_ptx) = ir_and_ptx(&real, variant, policy);
    let (fixture_ir, fixture_ptx) = ir_and_ptx(&fixture, variant, policy);
    let hint = "tests/src/fixtures/row_max_family.rs no longer copies kernels-gpu/src/row_max.rs: copy the change over \
                and review the snapshot diffs";
    assert_eq!(fixture_ir, real_ir, "{hint}");
    assert_eq!(fixture_ptx, real_ptx, "{hint}");
}

#[test]
fn the_mask_replaces_locations_of_one_file_only() {
    let text = "a  x/f.rs:12\nb  x/f.rs:7 x/g.rs:3 x/f.rs:";
    assert_eq!(mask_locations(text, "x/f.rs"), "a  <loc>\nb  <loc> x/g.rs:3 x/f.rs:");
}

/// Every file under `dir` (recursively), skipping build output, hidden folders and `docs/`
/// (the tutorial quotes the real kernels and is re-run by `teach_tutorial`; `bench/results/`
/// are historical records).
fn workspace_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display())) {
        let path = entry.expect("a directory entry").path();
        let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
        if path.is_dir() {
            // `docs` and `bench/results` hold what ran (records and their output), not expectations.
            let records = name == "results" && path.parent().is_some_and(|p| p.ends_with("bench"));
            if !(name.starts_with('.') || name == "target" || name == "docs" || records) {
                workspace_files(&path, out);
            }
        } else {
            out.push(path);
        }
    }
}

/// `path:line` of each line of `text` that names a line of `file` (`file:` then a digit).
fn lines_naming(path: &Path, text: &str, file: &str) -> Vec<String> {
    let needle = format!("{file}:");
    text.lines()
        .enumerate()
        .filter(|(_, l)| {
            l.match_indices(&needle).any(|(at, _)| l[at + needle.len()..].starts_with(|c: char| c.is_ascii_digit()))
        })
        .map(|(i, _)| format!("{}:{}", path.display(), i + 1))
        .collect()
}

/// Adding a line to `row_max.rs` must change no snapshot and no expected text: the
/// snapshots name the fixture's lines (traced here), and nothing outside `docs/` writes
/// down a line number of `row_max.rs` (tests that must run the production kernels derive
/// it with `rtriton_kernels::source::line_of`).
#[test]
fn no_snapshot_or_expected_text_names_a_line_of_row_max_rs() {
    let real = file_of(&RowMaxVariant::RowMax.def());
    // The store ends the kernel (the op arena holds only reachable ops, in trace order).
    let constexprs = RowMaxVariant::RowMax.default_constexprs();
    let verified = CompileSession::new()
        .front_end_for_args(
            &row_max_family::def(RowMaxVariant::RowMax),
            &constexprs,
            &contiguous_args(),
            SpecPolicy::Triton,
            &TraceOptions::default(),
        )
        .expect("the fixture traces");
    let store_loc = verified.kernel().ops.last().expect("the kernel has ops").loc.short();

    let snapshots = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests").join("snapshots");
    let mut snaps = Vec::new();
    workspace_files(&snapshots, &mut snaps);
    let texts: Vec<(PathBuf, String)> =
        snaps.into_iter().filter_map(|p| std::fs::read_to_string(&p).ok().map(|t| (p, t))).collect();
    assert!(texts.len() >= 20, "the golden snapshots are in {}", snapshots.display());
    assert!(
        texts.iter().any(|(_, t)| t.contains(&format!("{store_loc}\n")) || t.contains(&format!("{store_loc})"))),
        "a snapshot shows the fixture's `{store_loc}`"
    );
    let naming_real: Vec<&Path> = texts.iter().filter(|(_, t)| t.contains(&real)).map(|(p, _)| p.as_path()).collect();
    assert!(naming_real.is_empty(), "snapshots of the production kernels in {real}: {naming_real:?}");

    let root = Path::new(env!("CARGO_MANIFEST_DIR")).parent().expect("the workspace root");
    let mut files = Vec::new();
    workspace_files(root, &mut files);
    let offenders: Vec<String> = files
        .iter()
        .filter_map(|p| std::fs::read_to_string(p).ok().map(|t| lines_naming(p, &t, &real)))
        .flatten()
        .collect();
    assert!(
        offenders.is_empty(),
        "these lines write down a line of {real}, which changes whenever a line is added there; trace a fixture \
         kernel or use rtriton_kernels::source::line_of:\n{}",
        offenders.join("\n")
    );
}
