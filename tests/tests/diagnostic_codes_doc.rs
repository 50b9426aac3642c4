//! `docs/diagnostics.md` lists every diagnostic code with its name, stage and meaning
//! exactly as `declare_codes!` declares them, and nothing else.

use rtriton::diag::Code;

#[test]
fn the_code_table_in_the_docs_matches_the_declarations() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let doc = std::fs::read_to_string(root.join("docs/diagnostics.md")).expect("docs/diagnostics.md");
    let rows: Vec<&str> = doc.lines().filter(|l| l.starts_with("| `RT")).collect();
    assert_eq!(rows.len(), Code::ALL.len(), "one row per code");
    for (row, code) in rows.iter().zip(Code::ALL) {
        let cells: Vec<&str> = row.split('|').map(str::trim).collect();
        assert_eq!(cells[1], format!("`{}`", code.id()), "{row}");
        assert_eq!(cells[2], format!("`{code:?}`"), "{row}");
        assert_eq!(cells[4], code.summary(), "{row}");
    }
}
