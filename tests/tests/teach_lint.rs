//! The portability lint: rendered findings compared as whole text.

use rtriton::lint::{LintOptions, lint};
use rtriton_kernels::RowMaxVariant;

fn render(variant: RowMaxVariant) -> String {
    let def = variant.def();
    let found = lint(&def, &variant.default_constexprs(), &LintOptions::default()).expect("traces");
    found.iter().map(|d| format!("{d}\n")).collect()
}

#[test]
fn scratch() {
    for v in RowMaxVariant::ALL {
        println!("=== {}\n{}", v.name(), render(v));
    }
    panic!();
}
