//! IR text: one op per line, `%id = name operands : type  loc(file:line)`.
//!
//! The format is what golden tests compare; it prints without context because values and
//! ops are typed ids. [`super::parse`] reads it back (what it cannot hold is listed there).
//! A later stage may print the same text with what it adds ([`Annotations`]: the PTX back
//! end's layouts, `backend::ptx::layouts_text`), which the parser does not read.

use std::fmt::{self, Write};

use super::{Block, Constant, InputPrecision, Kernel, OpId, OpKind, Value};

/// What a later stage prints alongside the IR; [`print`] adds nothing.
pub trait Annotations {
    /// Text after the type of result `v` (its layout, say).
    fn after_type(&self, _v: Value) -> Option<String> {
        None
    }
    /// Lines printed before op `id`, at its indentation (what a back end does with it).
    fn before(&self, _id: OpId) -> Vec<String> {
        Vec::new()
    }
}

/// The plain IR text.
struct Plain;

impl Annotations for Plain {}

impl fmt::Display for Kernel {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&print(self))
    }
}

/// The kernel as IR text.
pub fn print(k: &Kernel) -> String {
    print_annotated(k, &Plain)
}

/// The kernel as IR text with what `a` adds.
pub fn print_annotated(k: &Kernel, a: &dyn Annotations) -> String {
    let mut out = String::new();
    let params: Vec<String> = k
        .params
        .iter()
        .zip(&k.spec.args)
        .map(|(p, (_, _, spec))| {
            let mut s = format!("{}: {} [{spec}]", p.name, p.kind);
            // Printed only when set, so the text of other kernels is unchanged.
            if p.do_not_specialize {
                s.push_str(" do_not_specialize");
            }
            if p.do_not_specialize_on_alignment {
                s.push_str(" do_not_specialize_on_alignment");
            }
            s
        })
        .collect();
    let _ = write!(out, "kernel @{}({})", k.name, params.join(", "));
    if !k.constexprs.is_empty() {
        let cs: Vec<String> = k.constexprs.iter().map(|(n, v)| format!("{n} = {v}")).collect();
        let _ = write!(out, " constexprs({})", cs.join(", "));
    }
    let _ = writeln!(out, " loc({}) {{", k.loc.short());
    print_block(k, &k.body, 1, a, &mut out);
    out.push_str("}\n");
    out
}

fn list(vs: &[super::Value]) -> String {
    vs.iter().map(|v| v.to_string()).collect::<Vec<_>>().join(", ")
}

fn print_block(k: &Kernel, block: &Block, depth: usize, a: &dyn Annotations, out: &mut String) {
    let pad = "  ".repeat(depth);
    for &id in &block.ops {
        let op = k.op(id);
        for before in a.before(id) {
            let _ = writeln!(out, "{pad}{before}");
        }
        let mut line = pad.clone();
        if !op.results.is_empty() && !matches!(op.kind, OpKind::For { .. }) {
            let _ = write!(line, "{} = ", list(&op.results));
        }
        // The op's name comes from the op table; what follows it is printed per op, and
        // `parse.rs` (`Parser::operands`) reads each arm back: change the two together.
        let name = op.kind.name();
        let body = match &op.kind {
            OpKind::Param { index } => format!("{name} {index} ({})", k.params[*index].name),
            OpKind::Constant { value: c } => match c {
                Constant::Bool(b) => format!("{name} {b}"),
                Constant::Int(i) => format!("{name} {i}"),
                Constant::F32(x) => format!("{name} {x:?} (0x{:08X})", x.to_bits()),
                Constant::F64(x) => format!("{name} {x:?} (0x{:016X})", x.to_bits()),
            },
            OpKind::ProgramId { axis } | OpKind::NumPrograms { axis } => format!("{name} {axis}"),
            OpKind::Arange { start, end } => format!("{name} {start}..{end}"),
            OpKind::Splat { value }
            | OpKind::Broadcast { value }
            | OpKind::Cast { value }
            | OpKind::Bitcast { value } => {
                format!("{name} {value}")
            }
            OpKind::ExpandDims { value, axis } => format!("{name} {value}, axis {axis}"),
            OpKind::MultipleOf { value, divisor } => format!("{name} {value}, {divisor}"),
            OpKind::AxisHint { value, values, .. } => format!("{name} {value}, {values:?}"),
            OpKind::Permute { value, dims } => format!("{name} {value}, dims {dims:?}"),
            OpKind::Reshape { value } | OpKind::Split { value } | OpKind::ConvertLayout { value } => {
                format!("{name} {value}")
            }
            OpKind::Join { lhs, rhs } => format!("{name} {lhs}, {rhs}"),
            OpKind::Unary { value, .. } => format!("{name} {value}"),
            OpKind::Binary { lhs, rhs, .. } => format!("{name} {lhs}, {rhs}"),
            OpKind::Fma { a, b, c } => format!("{name} {a}, {b}, {c}"),
            OpKind::Compare { pred, lhs, rhs } => format!("{name} {} {lhs}, {rhs}", pred.name()),
            OpKind::Select { cond, on_true, on_false } => format!("{name} {cond}, {on_true}, {on_false}"),
            OpKind::AddPtr { ptr, offset } => format!("{name} {ptr}, {offset}"),
            OpKind::Load { ptr, mask, other, desc, .. } => {
                let mut s = format!("{name} {ptr}");
                if let Some(m) = mask {
                    let _ = write!(s, ", mask {m}");
                }
                if let Some(o) = other {
                    let _ = write!(s, ", other {o}");
                }
                if !desc.is_empty() {
                    let _ = write!(s, ", desc ({})", list(desc));
                }
                s
            }
            OpKind::AsyncCopy { ptr, mask, other, ring, slots, slot, desc, when } => {
                let mut s = format!("{name} {ptr}, ring {ring} of {slots}, slot {slot}");
                if let Some(m) = mask {
                    let _ = write!(s, ", mask {m}");
                }
                if let Some(o) = other {
                    let _ = write!(s, ", other {o}");
                }
                if !desc.is_empty() {
                    let _ = write!(s, ", desc ({})", list(desc));
                }
                if let Some(w) = when {
                    let _ = write!(s, ", when {w}");
                }
                s
            }
            OpKind::RingRead { ring, slot, pending } => format!("{name} ring {ring}, slot {slot}, pending {pending}"),
            OpKind::Store { ptr, value, mask, desc } => {
                let mut s = format!("{name} {ptr}, {value}");
                if let Some(m) = mask {
                    let _ = write!(s, ", mask {m}");
                }
                if !desc.is_empty() {
                    let _ = write!(s, ", desc ({})", list(desc));
                }
                s
            }
            OpKind::DebugBarrier {} => name.to_string(),
            OpKind::Assume { cond } => format!("{name} {cond}"),
            // Strings as Rust writes them (`{:?}`): quoted, escaped, read back by the parser.
            OpKind::DevicePrint { prefix, values } => {
                let mut s = format!("{name} {prefix:?}");
                for v in values {
                    let _ = write!(s, ", {v}");
                }
                s
            }
            OpKind::DeviceAssert { cond, msg } => format!("{name} {cond}, {msg:?}"),
            OpKind::InlineAsm { asm, constraints, args, is_pure, pack, model } => {
                let purity = if *is_pure { "pure" } else { "impure" };
                let model = model.map(|m| format!(" model {:?}", m.name)).unwrap_or_default();
                format!("{name} {asm:?}, {constraints:?} ({}) {purity} pack {pack}{model}", list(args))
            }
            OpKind::AtomicRmw { ptr, value, mask, sem, scope, .. } => {
                let mut s = format!("{name} {ptr}, {value}");
                if let Some(m) = mask {
                    let _ = write!(s, ", mask {m}");
                }
                let _ = write!(s, ", sem {sem}, scope {scope}");
                s
            }
            OpKind::AtomicCas { ptr, cmp, value, sem, scope } => {
                format!("{name} {ptr}, {cmp}, {value}, sem {sem}, scope {scope}")
            }
            OpKind::Reduce { op, value, axis } => format!("{name} {} {value}, axis {axis}", op.name()),
            OpKind::ReduceWith { values, axis, combine } | OpKind::Scan { values, axis, combine } => {
                format!("{name} {}, axis {axis} combine({})", list(values), list(&combine.args))
            }
            OpKind::Dot { a, b, acc, input_precision } => {
                // The precision is printed only when it is not the default, so f16 and
                // ieee dots read as Triton's `tt.dot` does.
                match input_precision {
                    InputPrecision::Ieee => format!("{name} {a}, {b}, {acc}"),
                    InputPrecision::Tf32 => format!("{name} {a}, {b}, {acc}, input_precision {input_precision}"),
                }
            }
            OpKind::For { lower, upper, step, init, body, unroll, stages } => {
                let iters: Vec<String> = body.args[1..].iter().zip(init).map(|(a, i)| format!("{a} = {i}")).collect();
                let results = if op.results.is_empty() { String::new() } else { format!("{} = ", list(&op.results)) };
                // Printed only when asked for, so the text of plain loops is unchanged.
                let unroll = if *unroll == 1 { String::new() } else { format!(" unroll {unroll}") };
                let stages = if *stages == 1 { String::new() } else { format!(" stages {stages}") };
                format!(
                    "{results}{name} {} = {lower} to {upper} step {step}{unroll}{stages} iter_args({})",
                    body.args[0],
                    iters.join(", ")
                )
            }
            OpKind::If { cond, .. } => format!("{name} {cond}"),
            OpKind::While { init, before, .. } => {
                let iters: Vec<String> = before.args.iter().zip(init).map(|(a, i)| format!("{a} = {i}")).collect();
                format!("{name} iter_args({})", iters.join(", "))
            }
            OpKind::Yield { values } => format!("{name} {}", list(values)),
        };
        line.push_str(&body);
        let types: Vec<String> = op
            .results
            .iter()
            .map(|r| match a.after_type(*r) {
                Some(extra) => format!("{} {extra}", k.ty(*r)),
                None => k.ty(*r).to_string(),
            })
            .collect();
        if !types.is_empty() {
            let _ = write!(line, " : {}", types.join(", "));
        }
        let _ = writeln!(line, "  loc({})", op.loc.short());
        let regions = op.kind.regions();
        if regions.is_empty() {
            out.push_str(&line);
        } else {
            // Open the first region on the same line as the op; later ones follow `}`:
            // `} else {` for an if, `} do(%args) {` for a while's body.
            line.truncate(line.trim_end().len());
            line.push_str(" {\n");
            out.push_str(&line);
            for (i, region) in regions.iter().enumerate() {
                if i > 0 {
                    let args =
                        if region.args.is_empty() { "else".to_string() } else { format!("do({})", list(&region.args)) };
                    let _ = writeln!(out, "{pad}}} {args} {{");
                }
                print_block(k, region, depth + 1, a, out);
            }
            let _ = writeln!(out, "{pad}}}");
        }
    }
}
