//! `docs/adding-an-op.md` lists the files to change for a new op, reduction and dtype:
//! every listed file must exist, so the guide cannot drift from the tree unnoticed.

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
