//! `docs/triton-api.md` maps every public name of Triton 3.6's `triton.language`, and every
//! member of its `tensor` class, to rtriton. These tests keep the page in step with both:
//! - its Triton column is exactly the snapshot below (no name missing, none invented);
//! - every rtriton name it claims exists: a name `rtriton::prelude` exports (read from the
//!   `pub use` lists of `dsl/src/lib.rs` and `dsl/src/lang/mod.rs`), or a method, element
//!   type, operator, macro or path in [`compiled_claims`], each of which this file
//!   compiles a use of;
//! - conversely every prelude export, every `pub fn` of an `impl Tensor` block in
//!   `dsl/src/lang/` and every compiled claim appears on the page, so a new function
//!   cannot be added without its row (or its line in "Not in `triton.language`");
//! - every row without a name says `not yet`, `not applicable` or `host-side` with a
//!   reason, and the page's counts are the rows'.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use rtriton::prelude::*;

/// `__all__` of `python/triton/language/__init__.py` in triton-lang/triton, branch
/// `release/3.6.x` at commit 7c56a5e40f7fd928dfd5c72902d5def0097db73a (`__version__` 3.6.0),
/// in its order.
const TRITON_ALL: [&str; 140] = [
    "PropagateNan",
    "TRITON_MAX_TENSOR_NUMEL",
    "load_tensor_descriptor",
    "store_tensor_descriptor",
    "make_tensor_descriptor",
    "tensor_descriptor",
    "abs",
    "add",
    "advance",
    "arange",
    "argmax",
    "argmin",
    "associative_scan",
    "assume",
    "atomic_add",
    "atomic_and",
    "atomic_cas",
    "atomic_max",
    "atomic_min",
    "atomic_or",
    "atomic_xchg",
    "atomic_xor",
    "bfloat16",
    "bitonic_merge",
    "block_type",
    "broadcast",
    "broadcast_to",
    "cat",
    "cast",
    "cdiv",
    "ceil",
    "clamp",
    "condition",
    "const",
    "constexpr",
    "constexpr_type",
    "cos",
    "cumprod",
    "cumsum",
    "debug_barrier",
    "device_assert",
    "device_print",
    "div_rn",
    "dot",
    "dot_scaled",
    "dtype",
    "erf",
    "exp",
    "exp2",
    "expand_dims",
    "extra",
    "fdiv",
    "flip",
    "float16",
    "float32",
    "float64",
    "float8e4b15",
    "float8e4nv",
    "float8e4b8",
    "float8e5",
    "float8e5b16",
    "floor",
    "fma",
    "full",
    "gather",
    "histogram",
    "inline_asm_elementwise",
    "interleave",
    "int1",
    "int16",
    "int32",
    "int64",
    "int8",
    "join",
    "load",
    "log",
    "log2",
    "make_block_ptr",
    "map_elementwise",
    "math",
    "max",
    "max_constancy",
    "max_contiguous",
    "maximum",
    "min",
    "minimum",
    "mul",
    "multiple_of",
    "num_programs",
    "pair_uniform_to_normal",
    "permute",
    "philox",
    "philox_impl",
    "pi32_t",
    "pointer_type",
    "program_id",
    "rand",
    "rand4x",
    "randint",
    "randint4x",
    "randn",
    "randn4x",
    "range",
    "ravel",
    "reduce",
    "reduce_or",
    "reshape",
    "rsqrt",
    "slice",
    "sigmoid",
    "sin",
    "softmax",
    "sort",
    "split",
    "sqrt",
    "sqrt_rn",
    "static_assert",
    "static_print",
    "static_range",
    "store",
    "sub",
    "sum",
    "swizzle2d",
    "target_info",
    "tensor",
    "topk",
    "trans",
    "tuple",
    "uint16",
    "uint32",
    "uint64",
    "uint8",
    "uint_to_uniform_float",
    "umulhi",
    "view",
    "void",
    "where",
    "xor_sum",
    "zeros",
    "zeros_like",
];

/// The members of `class tensor` at the same commit that kernels use: the attributes
/// `tensor.__init__` sets (but the IR `handle`), the method and property of the class body
/// (`to`, `T`, `logical_and`, `logical_or`; operators left out), and the functions
/// `_tensor_member_fn` attaches, in the order of `core.py`, `standard.py`, `math.py`.
const TENSOR_MEMBERS: [&str; 58] = [
    "shape",
    "dtype",
    "numel",
    "type",
    "to",
    "T",
    "logical_and",
    "logical_or",
    // core.py
    "broadcast_to",
    "trans",
    "permute",
    "split",
    "view",
    "item",
    "reshape",
    "expand_dims",
    "cast",
    "store",
    "advance",
    "atomic_cas",
    "atomic_xchg",
    "atomic_add",
    "atomic_max",
    "atomic_min",
    "atomic_and",
    "atomic_or",
    "atomic_xor",
    "reduce",
    "associative_scan",
    "histogram",
    "gather",
    // standard.py
    "cdiv",
    "sigmoid",
    "softmax",
    "ravel",
    "max",
    "argmax",
    "min",
    "argmin",
    "sum",
    "xor_sum",
    "reduce_or",
    "cumsum",
    "cumprod",
    "flip",
    // math.py
    "exp",
    "exp2",
    "log",
    "log2",
    "cos",
    "sin",
    "sqrt",
    "sqrt_rn",
    "rsqrt",
    "abs",
    "erf",
    "floor",
    "ceil",
];

/// Each claim of the page that is not a prelude name, with a use of it that compiles only
/// if the claim names something real: a method call, an element type where a dtype is
/// required, an operator, a macro invocation, a path. The closures are never called.
macro_rules! compiled {
    ($($claim:literal => $use:expr;)*) => {{
        $( let _ = $use; )*
        [$($claim),*]
    }};
}

fn compiled_claims() -> BTreeSet<&'static str> {
    let claims = compiled! {
        // methods
        "Tensor::shape" => |x: Tensor<f32>| x.shape();
        "Tensor::id" => |x: Tensor<f32>| x.id();
        "Tensor::to" => |x: Tensor<f32>| x.to::<i32>();
        "Tensor::to_bitcast" => |x: Tensor<f32>| x.to_bitcast::<i32>();
        "Tensor::broadcast_to" => |x: Tensor<f32>| x.broadcast_to(&[2, 2]);
        "Tensor::expand_dims" => |x: Tensor<f32>| x.expand_dims(0);
        "Tensor::permute" => |x: Tensor<f32>| x.permute(&[1, 0]);
        "Tensor::reshape" => |x: Tensor<f32>| x.reshape(&[4]);
        "Tensor::split" => |x: Tensor<f32>| x.split();
        "Tensor::trans" => |x: Tensor<f32>| x.trans();
        "Tensor::join" => |x: Tensor<f32>| x.join(x);
        "Tensor::max" => |x: Tensor<f32>| x.max(0);
        "Tensor::min" => |x: Tensor<f32>| x.min(0);
        "Tensor::sum" => |x: Tensor<f32>| x.sum(0);
        "Tensor::argmax" => |x: Tensor<f32>| x.argmax(0);
        "Tensor::argmin" => |x: Tensor<f32>| x.argmin(0);
        "Tensor::ravel" => |x: Tensor<f32>| x.ravel();
        "Tensor::numel" => |x: Tensor<f32>| x.numel();
        "Tensor::softmax" => |x: Tensor<f32>| x.softmax(0);
        "Tensor::reduce_or" => |x: Tensor<i32>| x.reduce_or(0);
        "Tensor::histogram" => |x: Tensor<i32>| x.histogram(8);
        "Tensor::histogram_with" => |x: Tensor<i32>| x.histogram_with(8, None);
        "Tensor::flip" => |x: Tensor<f32>| x.flip(None);
        "Tensor::gather" => |x: Tensor<f32>, i: Tensor<i32>| x.gather(i, 0);
        "Tensor::xor_sum" => |x: Tensor<i32>| x.xor_sum(0);
        "Tensor::cumsum" => |x: Tensor<f32>| x.cumsum(0);
        "Tensor::cumprod" => |x: Tensor<f32>| x.cumprod(0);
        "Tensor::cdiv" => |x: Tensor<i32>| x.cdiv(x);
        "Tensor::exp" => |x: Tensor<f32>| x.exp();
        "Tensor::exp2" => |x: Tensor<f32>| x.exp2();
        "Tensor::exp2_ftz" => |x: Tensor<f32>| x.exp2_ftz();
        "Tensor::log" => |x: Tensor<f32>| x.log();
        "Tensor::log2" => |x: Tensor<f32>| x.log2();
        "Tensor::cos" => |x: Tensor<f32>| x.cos();
        "Tensor::sin" => |x: Tensor<f32>| x.sin();
        "Tensor::tanh" => |x: Tensor<f32>| x.tanh();
        "Tensor::sqrt" => |x: Tensor<f32>| x.sqrt();
        "Tensor::sqrt_rn" => |x: Tensor<f32>| x.sqrt_rn();
        "Tensor::rsqrt" => |x: Tensor<f32>| x.rsqrt();
        "Tensor::abs" => |x: Tensor<f32>| x.abs();
        "Tensor::erf" => |x: Tensor<f32>| x.erf();
        "Tensor::floor" => |x: Tensor<f32>| x.floor();
        "Tensor::ceil" => |x: Tensor<f32>| x.ceil();
        "Tensor::trunc" => |x: Tensor<f32>| x.trunc();
        "Tensor::rint" => |x: Tensor<f32>| x.rint();
        "Tensor::round" => |x: Tensor<f32>| x.round();
        "Tensor::sigmoid" => |x: Tensor<f32>| x.sigmoid();
        "Tensor::log1p" => |x: Tensor<f32>| x.log1p();
        "Tensor::expm1" => |x: Tensor<f32>| x.expm1();
        "Tensor::pow" => |x: Tensor<f32>| x.pow(x);
        "Tensor::atan2" => |y: Tensor<f32>| y.atan2(y);
        "Tensor::eq" => |x: Tensor<f32>| x.eq(x);
        "Tensor::ne" => |x: Tensor<f32>| x.ne(x);
        "Tensor::lt" => |x: Tensor<f32>| x.lt(x);
        "Tensor::le" => |x: Tensor<f32>| x.le(x);
        "Tensor::gt" => |x: Tensor<f32>| x.gt(x);
        "Tensor::ge" => |x: Tensor<f32>| x.ge(x);
        "BlockPtr::advance" => |p: BlockPtr<f32>| p.advance((0, 16));
        "TensorDescriptor::load" => |d: TensorDescriptor<f32>| d.load((0, 16));
        "TensorDescriptor::store" => |d: TensorDescriptor<f32>, x: Tensor<f32>| d.store((0, 16), x);
        "TensorDescriptor::block_shape" => |d: TensorDescriptor<f32>| d.block_shape().len();
        // operators
        "+" => |a: Tensor<i32>, b: Tensor<i32>| a + b;
        "-" => |a: Tensor<i32>, b: Tensor<i32>| a - b;
        "*" => |a: Tensor<i32>, b: Tensor<i32>| a * b;
        "&" => |a: Tensor<bool>, b: Tensor<bool>| a & b;
        "|" => |a: Tensor<bool>, b: Tensor<bool>| a | b;
        // element types: `zeros::<T>` needs `T: ScalarMarker`
        "bool" => zeros::<bool>;
        "i8" => zeros::<i8>;
        "i16" => zeros::<i16>;
        "i32" => zeros::<i32>;
        "i64" => zeros::<i64>;
        "u8" => zeros::<u8>;
        "u32" => zeros::<u32>;
        "u64" => zeros::<u64>;
        "f16" => zeros::<half::f16>;
        "bf16" => zeros::<half::bf16>;
        "f32" => zeros::<f32>;
        "f64" => zeros::<f64>;
        "F8E4M3" => zeros::<F8E4M3>;
        "F8E5M2" => zeros::<F8E5M2>;
        // a macro and a path outside the prelude
        "kernel!" => {
            rtriton::kernel! { fn claimed(x: Ptr<f32>; const N: usize) {} }
            claimed
        };
        "rtriton::ir::MAX_BLOCK_NUMEL" => rtriton::ir::MAX_BLOCK_NUMEL;
    };
    let set: BTreeSet<&str> = claims.into_iter().collect();
    assert_eq!(set.len(), claims.len(), "a compiled claim is listed twice");
    set
}

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn read(path: &str) -> String {
    std::fs::read_to_string(root().join(path)).unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// A table row of the page: its `## ` section, 1-based line, and cells (`\|` unescaped).
#[derive(Debug)]
struct Row {
    section: String,
    line: usize,
    cells: Vec<String>,
}

/// The body rows of every table on the page (header and `|---|` lines dropped).
fn rows(doc: &str) -> Vec<Row> {
    let mut section = String::new();
    let mut out = Vec::new();
    let mut header_next = true;
    for (i, line) in doc.lines().enumerate() {
        if let Some(title) = line.strip_prefix("## ") {
            section = title.to_string();
        }
        if !line.starts_with('|') {
            header_next = true;
            continue;
        }
        if header_next || line.starts_with("|---") {
            header_next = false;
            continue;
        }
        out.push(Row { section: section.clone(), line: i + 1, cells: cells(line) });
    }
    out
}

/// The cells of a table line, split at every `|` not escaped as `\|`.
fn cells(line: &str) -> Vec<String> {
    let inner = line.trim().strip_prefix('|').and_then(|l| l.strip_suffix('|')).unwrap_or_else(|| panic!("{line}"));
    let mut out = vec![String::new()];
    let mut chars = inner.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\\' if chars.peek() == Some(&'|') => {
                out.last_mut().unwrap().push('|');
                chars.next();
            }
            '|' => out.push(String::new()),
            _ => out.last_mut().unwrap().push(c),
        }
    }
    out.into_iter().map(|c| c.trim().to_string()).collect()
}

/// The names a cell claims: a comma-separated list of backticked names, nothing else.
fn claims(cell: &str, row: &Row) -> Vec<String> {
    cell.split(", ")
        .map(|item| {
            let name = item.strip_prefix('`').and_then(|i| i.strip_suffix('`'));
            match name {
                Some(n) if !n.is_empty() && !n.contains('`') => n.to_string(),
                _ => panic!("line {}: {cell:?} is neither a list of `names` nor a status with a reason", row.line),
            }
        })
        .collect()
}

/// Where rtriton has no name, the cell says why.
const STATUSES: [&str; 3] = ["not yet", "not applicable", "host-side"];

/// The status of a cell that claims no name, or `None` for a cell of claims.
fn status(cell: &str, row: &Row) -> Option<&'static str> {
    let status = STATUSES.into_iter().find(|s| cell.starts_with(s))?;
    let reason = cell[status.len()..].strip_prefix(": ").map(str::trim).unwrap_or_default();
    assert!(!reason.is_empty(), "line {}: {cell:?} gives no reason (write `{status}: why`)", row.line);
    Some(status)
}

/// The rows of the Triton tables and those of "Not in `triton.language`".
fn split_rows(doc: &str) -> (Vec<Row>, Vec<Row>) {
    rows(doc).into_iter().partition(|r| r.section != "Not in `triton.language`")
}

/// The Triton name of a row: its first cell without the backticks.
fn triton_name(row: &Row) -> String {
    let cell = &row.cells[0];
    cell.strip_prefix('`')
        .and_then(|c| c.strip_suffix('`'))
        .unwrap_or_else(|| panic!("line {}: the Triton name {cell:?} is not in backticks", row.line))
        .to_string()
}

/// Every name the page claims for rtriton, in both kinds of table.
fn claimed_names(doc: &str) -> BTreeSet<String> {
    let (triton, extra) = split_rows(doc);
    let mut names = BTreeSet::new();
    for row in &triton {
        if status(&row.cells[1], row).is_none() {
            names.extend(claims(&row.cells[1], row));
        }
    }
    for row in &extra {
        names.extend(claims(&row.cells[0], row));
    }
    names
}

/// The `pub use` statements (up to their `;`) and `pub mod` names of a Rust file's text.
fn pub_items(text: &str) -> (Vec<String>, Vec<String>) {
    let mut uses = Vec::new();
    let mut mods = Vec::new();
    let mut rest = text;
    while let Some(at) = rest.find("pub use ") {
        let stmt = &rest[at + "pub use ".len()..];
        let end = stmt.find(';').expect("a `pub use` ends with `;`");
        uses.push(stmt[..end].split_whitespace().collect::<Vec<_>>().join(" "));
        rest = &stmt[end..];
    }
    for line in text.lines() {
        if let Some(name) = line.trim().strip_prefix("pub mod ").and_then(|l| l.strip_suffix(';')) {
            mods.push(name.to_string());
        }
    }
    (uses, mods)
}

/// The names one `pub use` brings in: `a::b::C`, `a::{B, c}`, `a::B as C`. A glob is the
/// caller's to expand.
fn use_names(stmt: &str) -> Vec<String> {
    let leaf = |item: &str| -> String {
        let item = item.trim();
        let item = item.rsplit(" as ").next().unwrap();
        item.rsplit("::").next().unwrap().trim().to_string()
    };
    match stmt.split_once('{') {
        Some((_, list)) => {
            let list = list.strip_suffix('}').unwrap_or_else(|| panic!("nested braces in `pub use {stmt}`"));
            list.split(',').filter(|i| !i.trim().is_empty()).map(leaf).collect()
        }
        None => vec![leaf(stmt)],
    }
}

/// What `rtriton::prelude` exports: the prelude's own `pub use`s, with `crate::lang::*`
/// expanded to `lang/mod.rs`'s `pub use` names and `pub mod`s.
fn prelude_exports() -> BTreeSet<String> {
    let lib = read("dsl/src/lib.rs");
    let start = lib.find("pub mod prelude {").expect("dsl/src/lib.rs has `pub mod prelude {`");
    let body = &lib[start..start + lib[start..].find('}').expect("the prelude's closing brace")];
    let (prelude_uses, _) = pub_items(body);
    let mut names = BTreeSet::new();
    for stmt in prelude_uses {
        if stmt == "crate::lang::*" {
            let (uses, mods) = pub_items(&read("dsl/src/lang/mod.rs"));
            for stmt in uses {
                assert!(!stmt.ends_with('*'), "`pub use {stmt}` in lang/mod.rs: expand this glob here");
                names.extend(use_names(&stmt));
            }
            names.extend(mods);
        } else {
            assert!(!stmt.ends_with('*'), "`pub use {stmt}` in the prelude: expand this glob here");
            names.extend(use_names(&stmt));
        }
    }
    names
}

/// The `pub fn`s of the `impl ... Tensor<...>` blocks (not trait impls) of `dsl/src/lang/`,
/// as `Tensor::name`. Methods a `macro_rules!` writes (`$name`) are not read here; the page
/// claims them through [`compiled_claims`].
fn tensor_methods_in_source() -> BTreeSet<String> {
    let mut names = BTreeSet::new();
    let dir = root().join("dsl/src/lang");
    for entry in std::fs::read_dir(&dir).expect("dsl/src/lang") {
        let text = std::fs::read_to_string(entry.expect("an entry").path()).expect("a source file");
        let mut depth: Option<i32> = None;
        for line in text.lines() {
            let code = line.trim();
            if code.starts_with("//") {
                continue;
            }
            if depth.is_none() && code.starts_with("impl") && code.contains(" Tensor<") && !code.contains(" for ") {
                depth = Some(0);
            }
            let Some(d) = depth.as_mut() else { continue };
            if let Some(rest) = code.strip_prefix("pub fn ") {
                let name: String = rest.chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect();
                // empty for a macro's `pub fn $name`
                if !name.is_empty() {
                    names.insert(format!("Tensor::{name}"));
                }
            }
            *d += code.matches('{').count() as i32 - code.matches('}').count() as i32;
            if *d <= 0 && code.contains('}') {
                depth = None;
            }
        }
    }
    names
}

#[test]
fn the_triton_column_is_the_snapshot() {
    let doc = read("docs/triton-api.md");
    let (triton, _) = split_rows(&doc);
    let on_page: Vec<String> = triton.iter().map(triton_name).collect();
    let expected: BTreeSet<String> =
        TRITON_ALL.iter().map(|n| n.to_string()).chain(TENSOR_MEMBERS.iter().map(|m| format!("tensor.{m}"))).collect();
    assert_eq!(expected.len(), TRITON_ALL.len() + TENSOR_MEMBERS.len(), "the snapshot repeats a name");
    let page: BTreeSet<String> = on_page.iter().cloned().collect();
    assert_eq!(page.len(), on_page.len(), "a Triton name has two rows");
    let missing: Vec<&String> = expected.difference(&page).collect();
    let invented: Vec<&String> = page.difference(&expected).collect();
    assert!(
        missing.is_empty() && invented.is_empty(),
        "rows missing: {missing:?}; rows for no Triton 3.6 name: {invented:?}"
    );
}

#[test]
fn every_claimed_name_exists() {
    let doc = read("docs/triton-api.md");
    let exports = prelude_exports();
    let compiled = compiled_claims();
    let unknown: Vec<String> =
        claimed_names(&doc).into_iter().filter(|n| !exports.contains(n) && !compiled.contains(n.as_str())).collect();
    assert!(
        unknown.is_empty(),
        "docs/triton-api.md claims names that are neither prelude exports nor compiled claims: {unknown:?}"
    );
}

#[test]
fn every_export_and_method_is_on_the_page() {
    let doc = read("docs/triton-api.md");
    let claimed = claimed_names(&doc);
    let exports = prelude_exports();
    // The parse must have found the prelude: these are exported since the first ops.
    for name in ["program_id", "load", "store", "Tensor", "PropagateNan", "math"] {
        assert!(exports.contains(name), "prelude_exports() missed `{name}`: {exports:?}");
    }
    let methods = tensor_methods_in_source();
    assert!(methods.contains("Tensor::reshape") && methods.contains("Tensor::to"), "{methods:?}");
    let compiled: BTreeSet<String> = compiled_claims().into_iter().map(String::from).collect();
    let absent: Vec<&String> =
        exports.iter().chain(&methods).chain(&compiled).filter(|n| !claimed.contains(*n)).collect();
    assert!(
        absent.is_empty(),
        "not on docs/triton-api.md (give each a Triton row or a line in \"Not in `triton.language`\"): {absent:?}"
    );
}

#[test]
fn every_row_says_what_rtriton_has_and_the_counts_agree() {
    let doc = read("docs/triton-api.md");
    let (triton, _) = split_rows(&doc);
    let mut counts = [0usize; 4];
    for row in &triton {
        assert_eq!(row.cells.len(), 3, "line {} ({}): three cells", row.line, row.section);
        match status(&row.cells[1], row) {
            None => {
                claims(&row.cells[1], row);
                counts[0] += 1;
            }
            Some(s) => {
                counts[1 + STATUSES.iter().position(|x| *x == s).unwrap()] += 1;
                assert!(row.cells[2].is_empty(), "line {}: the reason goes in the rtriton cell", row.line);
            }
        }
    }
    let stated = format!(
        "Counts: {} rows; {} with an rtriton name, {} `not yet`, {} `not applicable`, {} `host-side`.",
        triton.len(),
        counts[0],
        counts[1],
        counts[2],
        counts[3]
    );
    assert!(doc.lines().any(|l| l == stated), "docs/triton-api.md must state the counts as: {stated}");
}
