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

#[test]
fn the_parser_finds_list_items_only() {
    let doc = "text `dsl/src/x.rs`\n- `dsl/src/ir/mod.rs`\n- `docs/semantics.md` (not code)\n- plain item\n";
    assert_eq!(listed_files(doc), ["dsl/src/ir/mod.rs", "docs/semantics.md"]);
}
