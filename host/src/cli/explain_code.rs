//! `rtriton explain-code RT0104`: what a diagnostic code means, from `docs/diagnostics.md`
//! (embedded in the binary, so it works from any folder), as `rustc --explain` does.

use std::process::ExitCode;

use anyhow::bail;
use clap::Args;
use rtriton::diag::Code;

use super::out::outln;

/// The code table, as the docs show it.
const DOC: &str = include_str!("../../../docs/diagnostics.md");

#[derive(Debug, Args)]
pub struct ExplainCodeArgs {
    /// The code, as an error prints it (`RT0104`; case does not matter).
    #[arg(required_unless_present = "list")]
    pub code: Option<String>,
    /// List every code with its one-line meaning.
    #[arg(long, conflicts_with = "code")]
    pub list: bool,
}

/// The text `explain-code` prints for `code`, or an error saying how to see the codes.
pub fn explain(code: &str) -> anyhow::Result<String> {
    let id = code.trim().to_ascii_uppercase();
    let Some(c) = Code::from_id(&id) else {
        bail!(
            "unknown diagnostic code `{code}`: codes are RT and four digits, as an error prints them \
             (`error[RT0104]: ...`); `rtriton explain-code --list` lists every code"
        );
    };
    // The code's row of the table: | `RT0104` | `TraceMathDType` | trace | meaning |
    let row = DOC.lines().find(|l| l.starts_with(&format!("| `{id}` |")));
    let (stage, meaning) = match row.map(|r| r.split(" | ").collect::<Vec<_>>()) {
        Some(cells) if cells.len() >= 4 => {
            (cells[2].to_string(), cells[3..].join(" | ").trim_end_matches('|').trim().to_string())
        }
        _ => (format!("{:?}", c.stage()), c.summary().to_string()),
    };
    let intro: Vec<&str> = DOC.lines().skip(2).take_while(|l| !l.starts_with("| code |")).collect();
    Ok(format!(
        "{id} ({:?}), from the {stage} stage:\n  {meaning}\n\nWhat every diagnostic carries (docs/diagnostics.md):\n{}\n",
        c,
        intro.join("\n").trim_end()
    ))
}

pub fn run(args: &ExplainCodeArgs) -> anyhow::Result<ExitCode> {
    if args.list {
        for c in Code::ALL {
            outln!("{}  {}", c.id(), c.summary())?;
        }
        return Ok(ExitCode::SUCCESS);
    }
    let code = args.code.as_deref().unwrap_or_default();
    super::out::print(&explain(code)?)?;
    Ok(ExitCode::SUCCESS)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_code_has_its_row_in_the_embedded_doc() {
        for c in Code::ALL {
            let text = explain(&c.id().to_lowercase()).unwrap();
            assert!(text.starts_with(&format!("{} ({c:?}), from the ", c.id())), "{text}");
            // The meaning comes from the doc's row (which a doc test keeps equal to the summary).
            assert!(text.contains(c.summary()), "{text}");
            assert!(text.contains("The hundreds digit is the stage"), "{text}");
        }
        let t = explain("RT0104").unwrap();
        assert!(
            t.starts_with(
                "RT0104 (TraceMathDType), from the trace stage:\n  a math function applied to a dtype it is not \
                 defined on (`exp` of an i32)\n"
            ),
            "{t}"
        );
    }

    #[test]
    fn an_unknown_code_says_how_to_list_the_codes() {
        for bad in ["RT9999", "E0308", ""] {
            let e = explain(bad).unwrap_err().to_string();
            assert_eq!(
                e,
                format!(
                    "unknown diagnostic code `{bad}`: codes are RT and four digits, as an error prints them \
                     (`error[RT0104]: ...`); `rtriton explain-code --list` lists every code"
                )
            );
        }
    }
}
