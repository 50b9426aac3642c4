//! Runs every command of the tutorial (`docs/tutorial/*.md`, the results page
//! `docs/benchmarks.md` and `docs/performance.md`) and compares its output with the output printed
//! under it, so they cannot go stale.
//!
//! In the markdown, a ```` ```console ```` block holds commands and their outputs: a line
//! starting with `$ ` is a command (continued on the next line when it ends with ` \`),
//! and the lines up to the next command are its expected output. Commands run through
//! the CLI's own entry point (`rtriton_host::cli::run_captured`), in-process.
//!
//! Quoted source is checked too: a ```` ```rust ````, ```` ```cuda ````, ```` ```python ````
//! or ```` ```text ```` block whose first line is `// from <path>` or `# from <path>` must
//! appear verbatim (after that line) in that file.
//!
//! After an intended change, `RTRITON_BLESS=1 cargo test -p rtriton-tests --test
//! teach_tutorial` rewrites the outputs in the markdown; review the diff.

use std::fs;
use std::path::{Path, PathBuf};

fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().expect("tests/ is inside the repository").to_path_buf()
}

fn tutorial_files() -> Vec<PathBuf> {
    let dir = repo_root().join("docs/tutorial");
    let mut files: Vec<PathBuf> = fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.expect("readable entry").path())
        .filter(|p| p.extension().is_some_and(|x| x == "md"))
        .collect();
    files.sort();
    // Results and reference pages that show rtriton commands are checked the same way.
    files.push(repo_root().join("docs/benchmarks.md"));
    files.push(repo_root().join("docs/performance.md"));
    files
}

/// One command of a console block: the lines it spans in the file and its expected output.
struct Command {
    argv: Vec<String>,
    /// Line index of the first expected-output line, and how many lines it has.
    output_start: usize,
    output_len: usize,
}

fn run(argv: &[String]) -> String {
    let (_, out) = rtriton_host::cli::run_captured(argv);
    // Trailing spaces never matter in markdown; keep one final newline per output.
    let lines: Vec<&str> = out.lines().map(str::trim_end).collect();
    let mut text = lines.join("\n");
    while text.ends_with('\n') {
        text.pop();
    }
    text
}

/// Parses the console blocks of `lines`.
fn commands(lines: &[&str]) -> Vec<Command> {
    let mut out = Vec::new();
    let mut i = 0;
    while i < lines.len() {
        if lines[i].trim_end() != "```console" {
            i += 1;
            continue;
        }
        i += 1;
        while i < lines.len() && lines[i].trim_end() != "```" {
            let Some(first) = lines[i].strip_prefix("$ ") else {
                panic!("line {}: a console block must start with a `$ ` command line", i + 1);
            };
            let mut cmd = first.to_string();
            while cmd.ends_with('\\') {
                cmd.pop();
                i += 1;
                cmd.push(' ');
                cmd.push_str(lines[i].trim());
            }
            i += 1;
            let output_start = i;
            while i < lines.len() && !lines[i].starts_with("$ ") && lines[i].trim_end() != "```" {
                i += 1;
            }
            let argv: Vec<String> = cmd.split_whitespace().map(String::from).collect();
            assert_eq!(argv.first().map(String::as_str), Some("rtriton"), "commands start with `rtriton`: {cmd}");
            out.push(Command { argv, output_start, output_len: i - output_start });
        }
        i += 1;
    }
    out
}

/// Checks quoted source blocks (`// from <path>` on their first line).
fn check_quotes(file: &Path, lines: &[&str]) {
    let mut i = 0;
    while i < lines.len() {
        let fence = lines[i].trim_end();
        if ["```rust", "```cuda", "```text", "```python"].contains(&fence) {
            let start = i + 1;
            let mut end = start;
            while end < lines.len() && lines[end].trim_end() != "```" {
                end += 1;
            }
            let marker =
                lines.get(start).and_then(|l| l.strip_prefix("// from ").or_else(|| l.strip_prefix("# from ")));
            if let Some(path) = marker {
                let source = fs::read_to_string(repo_root().join(path.trim()))
                    .unwrap_or_else(|e| panic!("{}: quoted file {path}: {e}", file.display()));
                let quoted = lines[start + 1..end].join("\n");
                assert!(
                    source.contains(&quoted),
                    "{}:{}: the block quoted from {path} is not in that file any more:\n{quoted}",
                    file.display(),
                    start + 1
                );
            }
            i = end;
        }
        i += 1;
    }
}

#[test]
fn tutorial_commands_print_what_the_tutorial_shows() {
    let bless = std::env::var_os("RTRITON_BLESS").is_some();
    let mut failures = Vec::new();
    let mut ran = 0;
    for file in tutorial_files() {
        let text = fs::read_to_string(&file).expect("readable tutorial");
        let lines: Vec<&str> = text.lines().collect();
        check_quotes(&file, &lines);
        let cmds = commands(&lines);
        let mut rewritten: Vec<String> = Vec::new();
        let mut copied = 0;
        for c in &cmds {
            ran += 1;
            let actual = run(&c.argv);
            let expected = lines[c.output_start..c.output_start + c.output_len].join("\n");
            if actual != expected.trim_end() {
                failures.push(format!(
                    "{}:{}: `{}` printed\n{actual}\n--- but the tutorial shows ---\n{expected}",
                    file.display(),
                    c.output_start,
                    c.argv.join(" ")
                ));
            }
            rewritten.extend(lines[copied..c.output_start].iter().map(|l| l.to_string()));
            rewritten.extend(actual.lines().map(String::from));
            copied = c.output_start + c.output_len;
        }
        if bless {
            rewritten.extend(lines[copied..].iter().map(|l| l.to_string()));
            fs::write(&file, rewritten.join("\n") + "\n").expect("writable tutorial");
        }
    }
    assert!(ran >= 6, "the tutorial should run its commands (found {ran})");
    if !bless {
        assert!(failures.is_empty(), "{}", failures.join("\n\n"));
    }
}
