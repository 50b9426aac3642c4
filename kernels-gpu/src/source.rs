//! Where a line of a row-max kernel is, found in the kernel's own source text: tests that
//! must name a production kernel's line (the CLI and the GPU runtime know only these
//! kernels) derive it here instead of writing the number down, so adding a line to
//! `row_max.rs` changes no expected output.

use rtriton::ir::SourceLoc;

use crate::RowMaxVariant;

/// The text the row-max family's locations point into.
const ROW_MAX_SOURCE: &str = include_str!("row_max.rs");

/// `file:line` (as diagnostics print it) of the first line of `variant`'s kernel that
/// contains `snippet`, searching from the `kernel!` that defines it; `None` when no line
/// of that kernel has it.
pub fn line_of(variant: RowMaxVariant, snippet: &str) -> Option<String> {
    let def = variant.def();
    // The recorded file is `row_max.rs` as rustc names it; refuse any other file rather
    // than search the wrong text.
    if !def.loc.file.ends_with("row_max.rs") {
        return None;
    }
    let start = (def.loc.line as usize).saturating_sub(1);
    let mut lines = ROW_MAX_SOURCE.lines().enumerate().skip(start);
    // The kernel ends at the next `kernel!`; stop there so a snippet of a later kernel
    // is not taken for this one's.
    let first = lines.next()?;
    std::iter::once(first)
        .chain(lines.take_while(|(_, l)| !l.starts_with("kernel!")))
        .find(|(_, l)| l.contains(snippet))
        .map(|(i, _)| SourceLoc { line: i as u32 + 1, ..def.loc }.short())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_a_line_of_the_kernel_and_only_of_it() {
        let loc = line_of(RowMaxVariant::RowMaxI32, "let x = load(").expect("row_max_i32 loads x");
        let line: usize = loc.rsplit_once(':').unwrap().1.parse().unwrap();
        assert!(ROW_MAX_SOURCE.lines().nth(line - 1).unwrap().contains("let x = load(x_ptr + row * stride_row + cols"));
        assert!(loc.starts_with("kernels-gpu/src/row_max.rs:"), "{loc}");
        // `for_range` is in row_max_loop, not in row_max (defined just above it).
        assert_eq!(line_of(RowMaxVariant::RowMax, "for_range"), None);
        assert!(line_of(RowMaxVariant::RowMaxLoop, "for_range").is_some());
    }
}
