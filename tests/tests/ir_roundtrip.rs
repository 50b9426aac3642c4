//! IR text round trip: every kernel the project traces prints, parses
//! (`rtriton::ir::parse`) and prints to the same text, and the parsed kernel verifies as
//! the traced one does. The kernels are one table: the row-max family of the golden IR
//! tests (with specialization on and off), the kernels several suites share
//! (`tests/src/kernels.rs`), the split row max, and every case of every port's suite
//! (`rtriton_host::ports::all()`) under each specialization the suite runs; each both as
//! traced and after the front end (DCE, verification).

use std::collections::BTreeMap;

use rtriton::ir::{Constant, Kernel, OpKind, parse, print};
use rtriton::session::CompileSession;
use rtriton::spec::{ArgValue, SpecKey, SpecPolicy};
use rtriton::trace::{KernelDef, TraceOptions, trace};
use rtriton::verify::check;
use rtriton_kernels::RowMaxVariant;
use rtriton_tests::fixtures::row_max_family;
use rtriton_tests::kernels;

/// Row-major 37 x 100 at aligned addresses: `stride_col` folds, the pointers get hints.
const ROW_MAX_ARGS: [ArgValue; 6] = [
    ArgValue::Ptr(0x1_0000_0000),
    ArgValue::Ptr(0x1_0001_0000),
    ArgValue::Int(37),
    ArgValue::Int(100),
    ArgValue::Int(100),
    ArgValue::Int(1),
];

/// One row of the table: a kernel definition, its constexprs and its launch arguments.
struct Row {
    what: String,
    def: KernelDef,
    constexprs: Vec<(&'static str, i64)>,
    args: Vec<ArgValue>,
    policies: Vec<SpecPolicy>,
}

fn row(what: &str, def: KernelDef, constexprs: &[(&'static str, i64)], args: &[ArgValue]) -> Row {
    Row {
        what: what.to_string(),
        def,
        constexprs: constexprs.to_vec(),
        args: args.to_vec(),
        policies: vec![SpecPolicy::Triton, SpecPolicy::Off],
    }
}

fn table() -> Vec<Row> {
    let mut rows = Vec::new();
    for v in RowMaxVariant::ALL {
        rows.push(row(v.name(), row_max_family::def(v), &v.default_constexprs(), &ROW_MAX_ARGS));
        rows.push(row(v.name(), v.def(), &v.default_constexprs(), &ROW_MAX_ARGS));
    }
    rows.push(row("row_max_nan", kernels::row_max_nan(), &[("BLOCK", 128)], &ROW_MAX_ARGS));
    rows.push(row("row_max_loop_nan", kernels::row_max_loop_nan(), &[("BLOCK", 128)], &ROW_MAX_ARGS));
    let op_mix_args = [
        ArgValue::Ptr(0x1_0000),
        ArgValue::Ptr(0x2_0000),
        ArgValue::Ptr(0x3_0000),
        ArgValue::Ptr(0x4_0000),
        ArgValue::Int(100),
    ];
    rows.push(row("op_mix", kernels::op_mix(), &[("BLOCK", 256)], &op_mix_args));
    let random_args = [ArgValue::Ptr(0x1_0000), ArgValue::Ptr(0x2_0000), ArgValue::Int(100), ArgValue::Int(42)];
    rows.push(row("random_mix", kernels::random_mix(), &[("BLOCK", 128)], &random_args));
    // SPLIT > 1 combines the parts with atomics, which only the f32 kernel has.
    for (i, def) in rtriton_kernels::split_kernels().into_iter().enumerate() {
        let split = [("BLOCK_M", 4), ("BLOCK_N", 64), ("SPLIT", if i == 0 { 2 } else { 1 }), ("UNROLL", 2), ("VEC", 4)];
        rows.push(row(def.name, def, &split, &ROW_MAX_ARGS));
    }
    for port in rtriton_host::ports::all() {
        for suite in (port.suites)() {
            for case in &suite.cases {
                // Buffers at 256-byte aligned addresses, as the interpreter's memory places
                // them (without copying the case's data there).
                let buffers: Vec<u64> = (1..=case.tensors().count() as u64).map(|i| i << 32).collect();
                let args = case.arg_values(&buffers);
                rows.push(Row {
                    what: format!("{} case {}", suite.def.name, case.name),
                    def: suite.def.clone(),
                    constexprs: case.constexprs.clone(),
                    args,
                    policies: suite.policies.clone(),
                });
            }
        }
    }
    rows
}

/// What is wrong with the round trip of `k`, if anything.
fn round_trip(k: &Kernel) -> Result<(), String> {
    let text = print(k);
    let back = parse(&text).map_err(|e| format!("does not parse: {e}\n{text}"))?;
    let again = print(&back);
    if again != text {
        let line = text.lines().zip(again.lines()).find(|(a, b)| a != b);
        return Err(format!("prints back differently, first at {line:?}\n{text}"));
    }
    if check(k).is_ok() != check(&back).is_ok() {
        return Err(format!("verifies differently after parsing\n{text}"));
    }
    // Everything but the columns of locations (the text has none) comes back. NaN
    // constants are unequal to themselves: the texts above compared their bits.
    let comparable = |k: &Kernel| {
        let mut k = k.clone();
        k.loc.column = 0;
        for op in &mut k.ops {
            op.loc.column = 0;
            if let OpKind::Constant { value } = &mut op.kind
                && matches!(value, Constant::F32(x) if x.is_nan()) | matches!(value, Constant::F64(x) if x.is_nan())
            {
                *value = Constant::Bool(false);
            }
        }
        k
    };
    let (back, columnless) = (comparable(&back), comparable(k));
    if back != columnless {
        let op = back.ops.iter().zip(&columnless.ops).position(|(a, b)| a != b);
        let value = back.values.iter().zip(&columnless.values).position(|(a, b)| a != b);
        return Err(format!(
            "parses to another kernel: first other op {op:?} ({:?} vs {:?}), value {value:?}, body {}\n{text}",
            op.map(|i| &back.ops[i]),
            op.map(|i| &columnless.ops[i]),
            back.body == columnless.body
        ));
    }
    Ok(())
}

#[test]
fn every_traced_kernel_prints_parses_and_prints_the_same() {
    let mut texts: BTreeMap<String, String> = BTreeMap::new();
    let mut failures = Vec::new();
    let rows = table();
    // Cases that share constexprs and a specialization trace the same kernel.
    let mut traced = std::collections::HashSet::new();
    for r in &rows {
        for &policy in &r.policies {
            let spec = SpecKey::from_args(r.def.name, &r.def.params, &r.args, policy)
                .unwrap_or_else(|e| panic!("{}: {e}", r.what));
            if !traced.insert((r.def.name, r.def.params.len(), format!("{:?} {spec}", r.constexprs))) {
                continue;
            }
            let raw = trace(&r.def, &r.constexprs, &spec, &TraceOptions::default())
                .unwrap_or_else(|e| panic!("{} does not trace: {e}", r.what));
            let front = CompileSession::new()
                .front_end(&r.def, &r.constexprs, &spec, &TraceOptions::default())
                .unwrap_or_else(|e| panic!("{}: {e}", r.what));
            for (stage, k) in [("traced", &raw), ("front end", front.kernel())] {
                let text = print(k);
                if texts.contains_key(&text) {
                    continue;
                }
                texts.insert(text, format!("{} {policy:?} {stage}", r.what));
                if let Err(e) = round_trip(k) {
                    failures.push(format!("{} {policy:?} {stage}: {e}", r.what));
                }
            }
        }
    }
    assert!(failures.is_empty(), "{} of {} kernels:\n{}", failures.len(), texts.len(), failures.join("\n\n"));
    // The table reaches every port and the row-max family: many distinct kernels.
    assert!(texts.len() > 1000, "only {} distinct kernels from {} rows", texts.len(), rows.len());
    let names: std::collections::BTreeSet<&str> = rows.iter().map(|r| r.def.name).collect();
    assert!(names.len() > 40, "{names:?}");
    for name in ["add_kernel", "row_max_loop", "op_mix", "random_mix", "row_max_split"] {
        assert!(texts.values().any(|w| w.contains(name)), "no kernel of {name} in {:?}", texts.values());
    }
}
