//! `docs/adding-an-op.md` lists the files to change for a new op, reduction and dtype:
//! every listed file must exist, and each counted list must name every `dsl/src` file
//! that handles an existing member of its kind (the section's witness, such as
//! `UnaryOp::Abs`): the places a new member must be added are the places the old ones
//! are. So the guide cannot drift from the tree unnoticed.

use std::path::Path;

/// Every `` - `path` `` list item of the guide.
fn listed_files(doc: &str) -> Vec<&str> {
    doc.lines()
        .filter_map(|l| l.strip_prefix("- `"))
        .filter_map(|l| l.split('`').next())
        .filter(|p| p.contains('/'))
        .collect()
}

#[test]
fn every_file_the_guide_lists_exists() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let doc = std::fs::read_to_string(root.join("docs/adding-an-op.md")).expect("docs/adding-an-op.md");
    let files = listed_files(&doc);
    // The three lists: a unary op, a reduction, a dtype.
    assert!(files.len() >= 15, "the guide lists only {} files: {files:?}", files.len());
    let missing: Vec<&&str> = files.iter().filter(|f| !root.join(f).is_file()).collect();
    assert!(missing.is_empty(), "docs/adding-an-op.md lists files that do not exist: {missing:?}");
}

/// For each `## ` section that states "**N files in `dsl/src`**": N, and the section's
/// listed `dsl/src` files that every such op needs (items marked "(only ...)" are
/// conditional and not counted).
fn stated_counts(doc: &str) -> Vec<(String, usize, usize)> {
    let mut out = Vec::new();
    for section in doc.split("\n## ").skip(1) {
        let title = section.lines().next().unwrap_or_default().to_string();
        let Some(stated) = section.split("**").nth(1).and_then(|b| b.strip_suffix(" files in `dsl/src`")) else {
            continue;
        };
        let stated: usize = stated.parse().unwrap_or_else(|_| panic!("section {title:?}: count {stated:?}"));
        let listed = section.lines().filter(|l| l.starts_with("- `dsl/src/") && !l.contains("(only")).count();
        out.push((title, stated, listed));
    }
    out
}

#[test]
fn the_stated_file_counts_match_the_lists() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let doc = std::fs::read_to_string(root.join("docs/adding-an-op.md")).expect("docs/adding-an-op.md");
    let counts = stated_counts(&doc);
    // The unary op, the reduction and the dtype state their counts this way.
    assert_eq!(counts.len(), 3, "{counts:?}");
    for (title, stated, listed) in counts {
        assert_eq!(stated, listed, "section {title:?} says {stated} files in dsl/src but lists {listed}");
    }
}

#[test]
fn stated_counts_skip_conditional_items() {
    let doc = "intro\n## A\n**2 files in `dsl/src`**\n- `dsl/src/a.rs`\n- `dsl/src/b.rs`\n\
               - `dsl/src/c.rs` (only sometimes)\n- `docs/x.md`\n## B\nno count\n- `dsl/src/d.rs`\n";
    assert_eq!(stated_counts(doc), [("A".to_string(), 2, 2)]);
}

#[test]
fn the_parser_finds_list_items_only() {
    let doc = "text `dsl/src/x.rs`\n- `dsl/src/ir/mod.rs`\n- `docs/semantics.md` (not code)\n- plain item\n";
    assert_eq!(listed_files(doc), ["dsl/src/ir/mod.rs", "docs/semantics.md"]);
}

/// Every `dsl/src` file (relative to the repository root) whose text contains `needle`.
fn files_containing(root: &Path, needle: &str) -> Vec<String> {
    fn walk(dir: &Path, out: &mut Vec<std::path::PathBuf>) {
        for entry in std::fs::read_dir(dir).expect("readable dsl/src").flatten() {
            let path = entry.path();
            if path.is_dir() {
                walk(&path, out);
            } else if path.extension().is_some_and(|e| e == "rs") {
                out.push(path);
            }
        }
    }
    let mut paths = Vec::new();
    walk(&root.join("dsl/src"), &mut paths);
    let mut found: Vec<String> = paths
        .iter()
        .filter(|p| std::fs::read_to_string(p).is_ok_and(|text| text.contains(needle)))
        .map(|p| p.strip_prefix(root).expect("under the root").to_string_lossy().replace('\\', "/"))
        .collect();
    found.sort();
    found
}

/// For each `## ` section with a line "Witness: `NEEDLE`": the needle, and the section's
/// listed `dsl/src` files (conditional items, marked "(only ...)", included).
fn witnessed_lists(doc: &str) -> Vec<(String, String, Vec<String>)> {
    let mut out = Vec::new();
    for section in doc.split("\n## ").skip(1) {
        let title = section.lines().next().unwrap_or_default().to_string();
        let Some(needle) = section.lines().find_map(|l| l.strip_prefix("Witness: `")).and_then(|l| l.split('`').next())
        else {
            continue;
        };
        let listed = section
            .lines()
            .filter_map(|l| l.strip_prefix("- `"))
            .filter_map(|l| l.split('`').next())
            .filter(|p| p.starts_with("dsl/src/"))
            .map(str::to_string)
            .collect();
        out.push((title, needle.to_string(), listed));
    }
    out
}

#[test]
fn every_file_that_handles_the_witness_is_listed() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let root = root.canonicalize().expect("the repository root");
    let doc = std::fs::read_to_string(root.join("docs/adding-an-op.md")).expect("docs/adding-an-op.md");
    let lists = witnessed_lists(&doc);
    assert_eq!(lists.len(), 3, "the unary op, the reduction and the dtype each name a witness: {lists:?}");
    for (title, needle, listed) in lists {
        let found = files_containing(&root, &needle);
        assert!(!found.is_empty(), "section {title:?}: no dsl/src file contains its witness `{needle}`");
        let unlisted: Vec<&String> = found.iter().filter(|f| !listed.contains(f)).collect();
        assert!(
            unlisted.is_empty(),
            "section {title:?}: these files handle `{needle}` but the guide does not list them: {unlisted:?}"
        );
    }
}

#[test]
fn witnessed_lists_read_the_needle_and_the_dsl_files() {
    let doc = "intro\n## A\nWitness: `Op::X`\n- `dsl/src/a.rs`\n- `dsl/src/b.rs` (only sometimes)\n- `docs/x.md`\n## B\n- `dsl/src/c.rs`\n";
    assert_eq!(
        witnessed_lists(doc),
        [("A".to_string(), "Op::X".to_string(), vec!["dsl/src/a.rs".to_string(), "dsl/src/b.rs".to_string()])]
    );
}
