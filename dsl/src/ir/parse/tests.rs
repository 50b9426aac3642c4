//! The parser against the printer: every op kind, every spelling, traced kernels and
//! malformed text.

use super::*;
use crate::ir::print;
use crate::prelude::*;
use crate::trace::trace_unspecialized;

/// Every op kind and every spelling the printer has for one (hand-written: it need not
/// verify, only print back as it is).
const ZOO: &str = "\
kernel @zoo(p: *f32 [D16], n: i32 [-] do_not_specialize, m: i64 [=1] do_not_specialize_on_alignment) constexprs(BLOCK = 16, K = -2) loc(dsl/src/ir/parse.rs:1) {
  %0 = param 0 (p) : ptr<f32>  loc(a.rs:1)
  %1 = param 1 (n) : i32  loc(a.rs:2)
  %2 = constant true : i1  loc(a.rs:3)
  %3 = constant -7 : i64  loc(a.rs:3)
  %4 = constant -inf (0xFF800000) : tensor<16xf32>  loc(a.rs:3)
  %5 = constant 0.1 (0x3FB999999999999A) : f64  loc(a.rs:3)
  %6 = program_id 2 : i32  loc(a.rs:4)
  %7 = num_programs 0 : i32  loc(a.rs:4)
  %8 = arange -8..8 : tensor<16xi32>  loc(a.rs:5)
  %9 = splat %1 : tensor<16xi32>  loc(a.rs:6)
  %10 = broadcast %9 : tensor<16xi32>  loc(a.rs:6)
  %11 = cast %8 : tensor<16xf32>  loc(a.rs:6)
  %12 = bitcast %11 : tensor<16xi32>  loc(a.rs:6)
  %13 = expand_dims %8, axis 1 : tensor<16x1xi32>  loc(a.rs:7)
  %14 = multiple_of %1, 16 : i32  loc(a.rs:7)
  %15 = permute %13, dims [1, 0] : tensor<1x16xi32>  loc(a.rs:7)
  %16 = reshape %15 : tensor<16xi32>  loc(a.rs:7)
  %17 = join %8, %16 : tensor<16x2xi32>  loc(a.rs:8)
  %18, %19 = split %17 : tensor<16xi32>, tensor<16xi32>  loc(a.rs:8)
  %20 = neg %11 : tensor<16xf32>  loc(a.rs:9)
  %21 = exp2_ftz %20 : tensor<16xf32>  loc(a.rs:9)
  %22 = maximum.nan %20, %21 : tensor<16xf32>  loc(a.rs:9)
  %23 = fma %20, %21, %22 : tensor<16xf32>  loc(a.rs:9)
  %24 = cmp ge %8, %9 : tensor<16xi1>  loc(a.rs:9)
  %25 = where %24, %20, %4 : tensor<16xf32>  loc(a.rs:9)
  %26 = splat %0 : tensor<16xptr<f32>>  loc(a.rs:10)
  %27 = addptr %26, %8 : tensor<16xptr<f32>>  loc(a.rs:10)
  %28 = load %27 : tensor<16xf32>  loc(a.rs:10)
  %29 = load_staged %27, mask %24, other %4 : tensor<16xf32>  loc(a.rs:10)
  %30 = load %27, other %4 : tensor<16xf32>  loc(a.rs:10)
  store %27, %29, mask %24  loc(a.rs:10)
  store %27, %28  loc(a.rs:10)
  debug_barrier  loc(a.rs:11)
  %31 = atomic_add %27, %28, mask %24, sem relaxed, scope cta : tensor<16xf32>  loc(a.rs:12)
  %32 = atomic_xchg %27, %28, sem acq_rel, scope sys : tensor<16xf32>  loc(a.rs:12)
  %33 = atomic_cas %27, %28, %29, sem release, scope gpu : tensor<16xf32>  loc(a.rs:12)
  %34 = reduce argmax %28, axis 0 : i32  loc(a.rs:12)
  %35 = reduce max.nan %28, axis 0 : f32  loc(a.rs:12)
  %41, %42 = reduce_with %28, %8, axis 0 combine(%36, %37, %38, %39) : f32, i32  loc(a.rs:13) {
    %40 = maximum %36, %38 : f32  loc(a.rs:13)
    %43 = minimum %37, %39 : i32  loc(a.rs:13)
    yield %40, %43  loc(a.rs:13)
  }
  %47 = scan %28, axis 0 combine(%44, %45) : tensor<16xf32>  loc(a.rs:14) {
    %46 = add %44, %45 : f32  loc(a.rs:14)
    yield %46  loc(a.rs:14)
  }
  %48 = constant 0 : i32  loc(a.rs:15)
  %49 = constant 1 : i32  loc(a.rs:15)
  %53 = for %50 = %48 to %1 step %49 unroll 4 iter_args(%51 = %28) : tensor<16xf32>  loc(a.rs:15) {
    %52 = sub %51, %28 : tensor<16xf32>  loc(a.rs:15)
    yield %52  loc(a.rs:15)
  }
  for %54 = %48 to %1 step %49 iter_args()  loc(a.rs:16) {
    yield   loc(a.rs:16)
  }
  %55 = if %2 : i32  loc(a.rs:17) {
    yield %1  loc(a.rs:17)
  } else {
    yield %6  loc(a.rs:17)
  }
  if %2  loc(a.rs:18) {
    yield   loc(a.rs:18)
  } else {
    yield   loc(a.rs:18)
  }
  %60 = while iter_args(%56 = %1) : i32  loc(a.rs:19) {
    %57 = cmp lt %56, %7 : i1  loc(a.rs:19)
    yield %57  loc(a.rs:19)
  } do(%58) {
    %59 = add %58, %49 : i32  loc(a.rs:19)
    yield %59  loc(a.rs:19)
  }
  while iter_args()  loc(a.rs:20) {
    yield %2  loc(a.rs:20)
  } else {
    yield   loc(a.rs:20)
  }
  %61 = dot %13, %15, %4 : tensor<16x16xf32>  loc(a.rs:21)
  %62 = dot %13, %15, %61, input_precision tf32 : tensor<16x16xf32>  loc(a.rs:21)
  async_copy %27, ring 0 of 2, slot %49, mask %24  loc(a.rs:22)
  async_copy %27, ring 1 of 3, slot %48, mask %24, other %4  loc(a.rs:22)
  %63 = ring_read ring 0, slot %49, pending 1 : tensor<16xf32>  loc(a.rs:22)
  assume %24  loc(a.rs:23)
  device_print \"x = \\\"%\\\"\\n\", %3, %24  loc(a.rs:24)
  device_assert %24, \"offs in range \\u{1b}\"  loc(a.rs:25)
  %64, %65 = inline_asm \"{ .reg .b32 t; mov.b32 t, $2; mov.b32 $0, t; }\\n\", \"=r,=r,r,r\" (%8, %16) pure pack 1 model \"copy\" : tensor<16xi32>, tensor<16xi32>  loc(a.rs:26)
  %66 = inline_asm \"st.global.b32 [$1], $2;\", \"=r,l,r\" (%27, %8) impure pack 1 : tensor<16xi32>  loc(a.rs:27)
  %67 = max_contiguous %8, [16] : tensor<16xi32>  loc(a.rs:28)
  %68 = max_constancy %13, [4, 1] : tensor<16x1xi32>  loc(a.rs:28)
  %69 = convert_layout %8 : tensor<16xi32>  loc(a.rs:29)
}
";

#[test]
fn every_op_prints_back_as_it_was_read() {
    let k = parse(ZOO).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(print(&k), ZOO);
    // Block arguments get the types the verifier's rules give them.
    assert_eq!(k.ty(Value(36)), &TensorType::scalar(DType::F32));
    assert_eq!(k.ty(Value(37)), &TensorType::scalar(DType::I32));
    assert_eq!(k.ty(Value(50)), &TensorType::scalar(DType::I32));
    assert_eq!(k.ty(Value(51)).to_string(), "tensor<16xf32>");
    assert_eq!(k.ty(Value(58)), &TensorType::scalar(DType::I32));
    // A region op is numbered after the ops of its regions, as tracing numbers it.
    assert_eq!(k.values[41].def, ValueDef::Result { op: OpId(41), index: 0 });
    assert_eq!(k.ops.len(), k.walk().len());
    assert!(k.params[1].do_not_specialize && k.params[2].do_not_specialize_on_alignment);
    assert_eq!(k.constexpr("K"), Some(-2));
}

/// Every op kind is in [`ZOO`]: a new op fails to compile here until it is added to the
/// parser (`Parser::operands`) and to the zoo.
#[test]
fn the_zoo_has_every_op_kind() {
    fn variant(kind: &OpKind) -> usize {
        match kind {
            OpKind::Param { .. } => 0,
            OpKind::Constant { .. } => 1,
            OpKind::ProgramId { .. } => 2,
            OpKind::NumPrograms { .. } => 3,
            OpKind::Arange { .. } => 4,
            OpKind::Splat { .. } => 5,
            OpKind::Broadcast { .. } => 6,
            OpKind::ExpandDims { .. } => 7,
            OpKind::Permute { .. } => 8,
            OpKind::Reshape { .. } => 9,
            OpKind::Join { .. } => 10,
            OpKind::Split { .. } => 11,
            OpKind::Unary { .. } => 12,
            OpKind::Binary { .. } => 13,
            OpKind::Fma { .. } => 14,
            OpKind::Compare { .. } => 15,
            OpKind::Cast { .. } => 16,
            OpKind::MultipleOf { .. } => 17,
            OpKind::Bitcast { .. } => 18,
            OpKind::Select { .. } => 19,
            OpKind::AddPtr { .. } => 20,
            OpKind::Load { .. } => 21,
            OpKind::Store { .. } => 22,
            OpKind::AtomicRmw { .. } => 23,
            OpKind::AtomicCas { .. } => 24,
            OpKind::DebugBarrier {} => 25,
            OpKind::Reduce { .. } => 26,
            OpKind::ReduceWith { .. } => 27,
            OpKind::Scan { .. } => 28,
            OpKind::For { .. } => 29,
            OpKind::If { .. } => 30,
            OpKind::While { .. } => 31,
            OpKind::Yield { .. } => 32,
            OpKind::Dot { .. } => 33,
            OpKind::AsyncCopy { .. } => 34,
            OpKind::RingRead { .. } => 35,
            OpKind::Assume { .. } => 36,
            OpKind::DevicePrint { .. } => 37,
            OpKind::DeviceAssert { .. } => 38,
            OpKind::InlineAsm { .. } => 39,
            OpKind::AxisHint { .. } => 40,
            OpKind::ConvertLayout { .. } => 41,
        }
    }
    let k = parse(ZOO).unwrap_or_else(|e| panic!("{e}"));
    let seen: HashSet<usize> = k.ops.iter().map(|op| variant(&op.kind)).collect();
    assert_eq!(seen.len(), 42, "{seen:?}");
}

/// Every name of the attribute enums parses back to its value (a new variant fails to
/// compile in `index` until it is added to the parser's list).
#[test]
fn attribute_names_are_listed_once() {
    fn index_binary(op: BinaryOp) -> usize {
        match op {
            BinaryOp::Add => 0,
            BinaryOp::Sub => 1,
            BinaryOp::Mul => 2,
            BinaryOp::Div => 3,
            BinaryOp::Rem => 4,
            BinaryOp::Max(PropagateNan::None) => 5,
            BinaryOp::Max(PropagateNan::All) => 6,
            BinaryOp::Min(PropagateNan::None) => 7,
            BinaryOp::Min(PropagateNan::All) => 8,
            BinaryOp::And => 9,
            BinaryOp::Or => 10,
            BinaryOp::Xor => 11,
            BinaryOp::FDiv => 12,
            BinaryOp::Shl => 13,
            BinaryOp::Shr => 14,
            BinaryOp::UMulHi => 15,
        }
    }
    fn index_reduce(op: ReduceOp) -> usize {
        match op {
            ReduceOp::Max(PropagateNan::None) => 0,
            ReduceOp::Max(PropagateNan::All) => 1,
            ReduceOp::Min(PropagateNan::None) => 2,
            ReduceOp::Min(PropagateNan::All) => 3,
            ReduceOp::Sum => 4,
            ReduceOp::Argmax => 5,
            ReduceOp::Argmin => 6,
            ReduceOp::XorSum => 7,
        }
    }
    fn index_unary(op: UnaryOp) -> usize {
        match op {
            UnaryOp::Neg => 0,
            UnaryOp::Abs => 1,
            UnaryOp::Math(f) => 2 + MathFn::ALL.iter().position(|g| *g == f).unwrap_or(usize::MAX - 2),
        }
    }
    fn index_atomic(op: AtomicOp) -> usize {
        match op {
            AtomicOp::Add => 0,
            AtomicOp::Max => 1,
            AtomicOp::Min => 2,
            AtomicOp::And => 3,
            AtomicOp::Or => 4,
            AtomicOp::Xor => 5,
            AtomicOp::Xchg => 6,
        }
    }
    fn index_cmp(p: CmpPred) -> usize {
        match p {
            CmpPred::Lt => 0,
            CmpPred::Le => 1,
            CmpPred::Gt => 2,
            CmpPred::Ge => 3,
            CmpPred::Eq => 4,
            CmpPred::Ne => 5,
        }
    }
    fn index_sem(s: Sem) -> usize {
        match s {
            Sem::Relaxed => 0,
            Sem::Acquire => 1,
            Sem::Release => 2,
            Sem::AcqRel => 3,
        }
    }
    fn index_scope(s: Scope) -> usize {
        match s {
            Scope::Cta => 0,
            Scope::Gpu => 1,
            Scope::Sys => 2,
        }
    }
    for (i, op) in BINARY.into_iter().enumerate() {
        assert_eq!(index_binary(op), i);
        assert_eq!(named(BINARY, BinaryOp::name, op.name()), Some(op));
    }
    for (i, op) in REDUCE.into_iter().enumerate() {
        assert_eq!(index_reduce(op), i);
        assert_eq!(named(REDUCE, ReduceOp::name, op.name()), Some(op));
    }
    for (i, op) in unary_ops().enumerate() {
        assert_eq!(index_unary(op), i);
        assert_eq!(named(unary_ops(), UnaryOp::name, op.name()), Some(op));
    }
    for (i, op) in ATOMIC.into_iter().enumerate() {
        assert_eq!(index_atomic(op), i);
        assert_eq!(named(ATOMIC, AtomicOp::name, op.name()), Some(op));
    }
    for (i, p) in CMP.into_iter().enumerate() {
        assert_eq!(index_cmp(p), i);
    }
    for (i, s) in SEM.into_iter().enumerate() {
        assert_eq!(index_sem(s), i);
    }
    for (i, s) in SCOPE.into_iter().enumerate() {
        assert_eq!(index_scope(s), i);
    }
    // No op name is two ops.
    let mut names: Vec<&str> = unary_ops().map(UnaryOp::name).collect();
    names.extend(BINARY.map(BinaryOp::name));
    names.extend(ATOMIC.map(AtomicOp::name));
    let distinct: HashSet<&str> = names.iter().copied().collect();
    assert_eq!(distinct.len(), names.len(), "{names:?}");
}

crate::kernel! {
    /// A loop, a branch, a reduction and masked memory: the shapes of traced IR.
    fn traced(x: Ptr<f32>, y: Ptr<f32>, n: i32) {
        let pid = program_id(0);
        let offs = arange(0, 64);
        let acc = for_range(0, n, 64, zeros::<f32>(&[64]), |start, acc| {
            let c = start + offs;
            acc + load(x + c, Some(c.lt(n)), Some(0.0f32))
        });
        let s = if_(pid.eq(0), || sum(acc, 0), || max(acc, 0));
        store(y + pid, s, None);
    }
}

#[test]
fn a_traced_kernel_prints_back_as_it_was_traced() {
    let k = trace_unspecialized(&traced(), &[]).unwrap_or_else(|e| panic!("{e}"));
    let text = print(&k);
    let back = parse(&text).unwrap_or_else(|e| panic!("{e}\n{text}"));
    assert_eq!(print(&back), text);
    // Up to the columns of locations (the text has none), the kernel is the traced one.
    let mut k = k;
    let zero = |op: &mut Op| op.loc.column = 0;
    k.ops.iter_mut().for_each(zero);
    k.loc.column = 0;
    assert_eq!(back.values, k.values);
    assert_eq!(back.body, k.body);
    assert_eq!(back.ops, k.ops);
    assert_eq!(back, k);
    crate::verify::check(&back).unwrap_or_else(|e| panic!("{e}"));
}

/// Malformed text: an error at the right line and column, never a panic.
#[test]
fn malformed_text_is_located() {
    let head = "kernel @k(p: *i32 [-]) loc(a.rs:1) {\n";
    let op = "  %0 = param 0 (p) : ptr<i32>  loc(a.rs:2)\n";
    let cases: Vec<(String, usize, usize, &str)> = vec![
        (String::new(), 1, 1, "`kernel @name(...) {`"),
        ("kernel k() {\n}\n".into(), 1, 8, "`@`"),
        ("kernel @k(p: *i33 [-]) loc(a.rs:1) {\n}\n".into(), 1, 15, "an element type"),
        ("kernel @k(p: *i32 [D8]) loc(a.rs:1) {\n}\n".into(), 1, 20, "a specialization"),
        ("kernel @k() {\n}\n".into(), 1, 13, "`loc`"),
        ("kernel @k() loc(a.rs) {\n}\n".into(), 1, 17, "a location"),
        (head.to_string(), 1, 1, "an op or `}`"),
        (format!("{head}}}\n}}\n"), 3, 1, "end of text"),
        (format!("{head}  %0 = frobnicate %1 : i32  loc(a.rs:2)\n}}\n"), 2, 8, "an op name"),
        (
            format!("{head}  %0 = param 1 (p) : ptr<i32>  loc(a.rs:2)\n}}\n"),
            2,
            8,
            "a parameter of the kernel's header: 0 (p)",
        ),
        (format!("{head}  %0 = param 0 (p)  loc(a.rs:2)\n}}\n"), 2, 21, "1 result type(s)"),
        (format!("{head}{op}  %0 = splat %0 : tensor<4xptr<i32>>  loc(a.rs:3)\n}}\n"), 3, 3, "defined twice"),
        (
            format!("{head}  %0 = constant 1.5 (0x3F800000) : f32  loc(a.rs:2)\n}}\n"),
            2,
            17,
            "`1.0`, the value of bits 0x3F800000",
        ),
        (format!("{head}  %0 = constant 1.0 (0x3F80) : f32  loc(a.rs:2)\n}}\n"), 2, 24, "8 hex digits"),
        (format!("{head}  %0 = constant 99999999999999999999 : i64  loc(a.rs:2)\n}}\n"), 2, 17, "a constant"),
        (format!("{head}  %0 = arange 0..16 : tensor<16xi32  loc(a.rs:2)\n}}\n"), 2, 38, "`>`"),
        (format!("{head}  %99999999999 = program_id 0 : i32  loc(a.rs:2)\n}}\n"), 2, 3, "a value number that fits u32"),
        (format!("{head}  %4000000 = program_id 0 : i32  loc(a.rs:2)\n}}\n"), 2, 3, "a value number below"),
        (format!("{head}  %0 = program_id 0 : i32  loc(a.rs:2) {{\n}}\n"), 2, 0, "end of line"),
        (
            format!("{head}{op}  %1 = if %0 : i32  loc(a.rs:3) {{\n    yield %0  loc(a.rs:3)\n  }}\n}}\n"),
            5,
            4,
            "`} else {`",
        ),
        (format!("{head}{op}  %1 = if %0 : i32  loc(a.rs:3)\n}}\n"), 3, 32, "`{` (`if` has a region)"),
        (
            format!("{head}{op}  %1 = reduce_with %0, axis 0 combine(%2) : i32  loc(a.rs:3) {{\n  }}\n}}\n"),
            3,
            43,
            "2 combine arguments",
        ),
        (
            format!("{head}  for %1 = %9 to %9 step %9 iter_args()  loc(a.rs:2) {{\n  }}\n}}\n"),
            2,
            3,
            "%9 defined above this op",
        ),
        (
            format!(
                "{head}{op}  %1 = while iter_args(%2 = %0) : ptr<i32>  loc(a.rs:3) {{\n  }} do(%3, %4) {{\n  }}\n}}\n"
            ),
            4,
            5,
            "1 region argument(s)",
        ),
        (
            format!("{head}{op}  for %1 = %0 to %0 step %0 iter_args()  loc(a.rs:3) {{\n  }} else {{\n  }}\n}}\n"),
            4,
            5,
            "the op has no further region",
        ),
        (
            "kernel @k() loc(a.rs:1) {\n".to_string() + &"  if %0  loc(a.rs:2) {\n".repeat(200),
            130,
            3,
            "at most 128 nested regions",
        ),
    ];
    let mut wrong = Vec::new();
    for (text, line, column, expected) in cases {
        match parse(&text) {
            Ok(k) => wrong.push(format!("parsed:\n{text}\nas\n{k}")),
            Err(e) if !e.expected.contains(expected) || e.line != line || column > 0 && e.column != column => {
                wrong.push(format!("want line {line}, column {column}: {expected}\ngot {e}\nin\n{text}"));
            }
            Err(_) => {}
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n\n"));
}

/// Comments and blank lines are skipped; spacing between tokens is free.
#[test]
fn comments_blank_lines_and_spacing() {
    let text = "; run: verify\n\nkernel @k(p:*i32[-])   loc(a.rs:1){\n  ; a comment\n  %0=param 0(p):ptr<i32> loc(a.rs:2)\n}\n";
    let k = parse(text).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(print(&k), "kernel @k(p: *i32 [-]) loc(a.rs:1) {\n  %0 = param 0 (p) : ptr<i32>  loc(a.rs:2)\n}\n");
}

/// A value number no line defines is a placeholder; one past them all stays undefined,
/// and the verifier reports both uses.
#[test]
fn gaps_and_undefined_values_reach_the_verifier() {
    let text = "kernel @k(p: *i32 [-]) loc(a.rs:1) {\n  %0 = param 0 (p) : ptr<i32>  loc(a.rs:2)\n  \
                    %2 = program_id 0 : i32  loc(a.rs:3)\n  store %0, %1  loc(a.rs:4)\n  store %0, %7  loc(a.rs:5)\n}\n";
    let k = parse(text).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(k.values.len(), 3);
    let e = crate::verify::check(&k).expect_err("invalid").to_string();
    assert!(e.contains("uses %1 outside the block that defines it"), "{e}");
    assert!(e.contains("uses undefined value %7"), "{e}");
}
