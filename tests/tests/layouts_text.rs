//! The layout stage as text (`rtriton::backend::ptx::layouts_text`, `rtriton explain --ir
//! layouts`): the encodings in the header, each block value's layout after its type, a
//! `convert_layout` op before each op that reads a value in another layout, and the
//! staging rings' reads that tensor-core `dot`s read in place marked `#shared`. Around
//! the annotations, and with each copy read as the value it copies, the text is the
//! kernel's IR text line for line. The stage's kernel itself is IR: it prints, parses
//! back and runs on the interpreter with the front end's bits.

use half::f16;
use rstest::rstest;
use rtriton::backend::ptx::{DotOperandSource, PtxOptions, layouts_text};
use rtriton::kernel;
use rtriton::prelude::*;
use rtriton::session::CompileSession;
use rtriton::spec::SpecKey;
use rtriton::trace::{KernelDef, TraceOptions};

kernel! {
    /// Softmax over the rows of an R x C tile: two row reductions, each expanded back
    /// along the dim it reduced, so no value is needed in two layouts.
    fn softmax_rows(x_ptr: Ptr<f32>, y_ptr: Ptr<f32>; const R: usize, const C: usize) {
        let idx = expand_dims(arange(0, R), 1) * C as i32 + expand_dims(arange(0, C), 0);
        let x = load(x_ptr + idx, None, None);
        let e = exp(x - expand_dims(max(x, 1), 1));
        store(y_ptr + idx, e / expand_dims(sum(e, 1), 1), None);
    }
}

kernel! {
    /// Each row sum of a B x B tile added down a column: the sums are read along the other
    /// dim, so `expand_dims` reads them converted.
    fn row_sums_down_columns(x_ptr: Ptr<i32>, y_ptr: Ptr<i32>; const B: usize) {
        let idx = expand_dims(arange(0, B), 1) * B as i32 + expand_dims(arange(0, B), 0);
        let x = load(x_ptr + idx, None, None);
        store(y_ptr + idx, x + expand_dims(sum(x, 1), 0), None);
    }
}

kernel! {
    /// One tensor-core tile: `out = a @ b` of f16 blocks, f32 accumulator.
    fn dot_tile(a_ptr: Ptr<f16>, b_ptr: Ptr<f16>, out_ptr: Ptr<f32>; const BM: usize, const BN: usize, const BK: usize) {
        let (rm, rn) = (expand_dims(arange(0, BM), 1), expand_dims(arange(0, BN), 0));
        let (rk_col, rk_row) = (expand_dims(arange(0, BK), 0), expand_dims(arange(0, BK), 1));
        let a = load(a_ptr + rm * BK as i32 + rk_col, None, None);
        let b = load(b_ptr + rk_row * BN as i32 + rn, None, None);
        store(out_ptr + rm * BN as i32 + rn, dot(a, b, zeros::<f32>(&[BM, BN])), None);
    }
}

kernel! {
    /// Two loop-invariant `a`s (`[BM, BK]`, as attention's `Q`) multiplied by a tile loaded
    /// in each iteration: their fragments are read before the loop while they fit in 32
    /// registers a thread, in program order.
    fn invariant_operands(q_ptr: Ptr<f16>, k_ptr: Ptr<f16>, out_ptr: Ptr<f32>, n: i32;
                          const BM: usize, const BN: usize, const BK: usize) {
        let (rm, rn) = (expand_dims(arange(0, BM), 1), expand_dims(arange(0, BN), 0));
        let (rk_col, rk_row) = (expand_dims(arange(0, BK), 0), expand_dims(arange(0, BK), 1));
        let q1 = load(q_ptr + rm * BK as i32 + rk_col, None, None);
        let q2 = load(q_ptr + (rm + BM as i32) * BK as i32 + rk_col, None, None);
        let acc = zeros::<f32>(&[BM, BN]);
        let (a1, a2) = for_range(0, n, 1, (acc, acc), |j, (a1, a2)| {
            let kt = load(k_ptr + j * (BK * BN) as i32 + rk_row * BN as i32 + rn, None, None);
            (dot(q1, kt, a1), dot(q2, kt, a2))
        });
        store(out_ptr + rm * BN as i32 + rn, a1 + a2, None);
    }
}

/// The pointers to `a`, `b` and `c` of [`staged`].
type Operands<A, C> = (Tensor<Ptr<A>>, Tensor<Ptr<A>>, Tensor<Ptr<C>>);

/// A K loop of `dot`s over `STAGES` stages, `k` a multiple of `BK`: its tiles go through
/// staging rings.
#[allow(non_snake_case)]
fn staged<A: ScalarMarker, C: ScalarMarker>(
    (a_ptr, b_ptr, c_ptr): Operands<A, C>,
    k: Tensor<i32>,
    [BM, BN, BK, STAGES]: [usize; 4],
) {
    let (rm, rn) = (expand_dims(arange(0, BM), 1), expand_dims(arange(0, BN), 0));
    let rk = arange(0, BK);
    let a_ptrs = a_ptr + rm * k + expand_dims(rk, 0);
    let b_ptrs = b_ptr + expand_dims(rk, 1) * BN as i32 + rn;
    let acc = zeros::<C>(&[BM, BN]);
    let (acc, _, _) = for_range_staged(0, k, BK as i32, STAGES, (acc, a_ptrs, b_ptrs), |_, (acc, a_ptrs, b_ptrs)| {
        let acc = dot(load(a_ptrs, None, None), load(b_ptrs, None, None), acc);
        (acc, a_ptrs + BK as i32, b_ptrs + (BK * BN) as i32)
    });
    store(c_ptr + rm * BN as i32 + rn, acc, None);
}

kernel! {
    fn staged_f16(a_ptr: Ptr<f16>, b_ptr: Ptr<f16>, c_ptr: Ptr<f32>, k: i32;
                  const BM: usize, const BN: usize, const BK: usize, const STAGES: usize) {
        staged((a_ptr, b_ptr, c_ptr), k, [BM, BN, BK, STAGES]);
    }
}

kernel! {
    /// An `i8` `b` is staged transposed for the tensor cores, so its ring is read into
    /// registers; `a` is read in place.
    fn staged_i8(a_ptr: Ptr<i8>, b_ptr: Ptr<i8>, c_ptr: Ptr<i32>, k: i32;
                 const BM: usize, const BN: usize, const BK: usize, const STAGES: usize) {
        staged((a_ptr, b_ptr, c_ptr), k, [BM, BN, BK, STAGES]);
    }
}

/// The kernel through the front end and the passes (plain specialization).
fn verified(def: &KernelDef, constexprs: &[(&str, i64)]) -> std::sync::Arc<rtriton::verify::VerifiedKernel> {
    let spec = SpecKey::plain(&def.params);
    CompileSession::new().front_end(def, constexprs, &spec, &TraceOptions::default()).expect("the kernel traces")
}

fn text(def: &KernelDef, constexprs: &[(&str, i64)], num_warps: u32) -> String {
    let options = PtxOptions { num_warps, ..PtxOptions::default() };
    layouts_text(&verified(def, constexprs), &options).expect("the kernel has layouts")
}

const STAGED: &[(&str, i64)] = &[("BM", 32), ("BN", 32), ("BK", 32), ("STAGES", 3)];

/// What the text of each kernel must and must not hold, and how many `convert_layout`
/// lines it has (conversions the stage recomputes instead are ops copied in the other
/// layout, marked `(recomputes %N for ...)`).
#[rstest]
#[case::softmax(
    softmax_rows(), &[("R", 16), ("C", 64)], 4,
    &[
        "#blocked = blocked{spt=[1, 1], tpw=[1, 32], wpc=[2, 2], order=[1, 0]}\nnum_warps = 4\nkernel @softmax_rows(",
        "= load %",
        " : tensor<16x64xf32> #blocked  loc(",
        "= reduce max %",
        " : tensor<16xf32> #slice<dims=[1], #blocked>  loc(",
        " : tensor<16x1xf32> #blocked  loc(",
    ],
    &["#mma", "#shared"],
    0
)]
#[case::row_sums_down_columns(
    row_sums_down_columns(), &[("B", 32)], 4,
    &[
        " = reduce sum %",
        " = convert_layout %",
        " : tensor<32xi32> #slice<dims=[1], #blocked> -> #slice<dims=[0], #blocked>  (operand 0 of %",
        " = expand_dims)  loc(",
    ],
    &["#mma", "#shared"],
    1
)]
#[case::dot_on_tensor_cores(
    dot_tile(), &[("BM", 32), ("BN", 32), ("BK", 16)], 4,
    &[
        "\n#mma = blocked{spt=[1, 2], tpw=[8, 4], wpc=[2, 2], order=[1, 0]}\nnum_warps = 4\n",
        " : tensor<32x32xf32> #mma  loc(",
        " : tensor<32x16xf16> #blocked  loc(",
        // The accumulator converts to the coalesced layout for its store.
        " : tensor<32x32xf32> #mma -> #blocked  (operand 1 of store)",
        // Each operand reads its fragments through its `#dot_op` layout, staged first.
        " : tensor<32x16xf16> #blocked -> #dot_op<opIdx=0, parent=#mma, kWidth=2>  (operand 0 of %",
        " : tensor<16x32xf16> #blocked -> #dot_op<opIdx=1, parent=#mma, kWidth=2>  (operand 1 of %",
        " = dot: staged through shared memory, then read as fragments)  loc(",
    ],
    &["#shared", "ring_read"],
    3
)]
#[case::dot_with_one_warp(
    dot_tile(), &[("BM", 32), ("BN", 32), ("BK", 16)], 1,
    &["\n#mma = blocked{spt=[1, 2], tpw=[8, 4], wpc=[1, 1], order=[1, 0]}\nnum_warps = 1\n"],
    &[],
    3
)]
#[case::pipelined_f16(
    staged_f16(), STAGED, 4,
    &[
        "#mma = ",
        " stages 3 iter_args(",
        " = ring_read ring 0, slot %",
        ", pending 2 : tensor<32x32xf16> #shared<ring 0, swizzled, vec 16 bytes, perPhase 2, maxPhase 4> (read in place)  loc(",
        ", pending 2 : tensor<32x32xf16> #shared<ring 1, swizzled, vec 16 bytes, perPhase 2, maxPhase 4> (read in place)  loc(",
        " = dot %",
        " : tensor<32x32xf32> #mma -> #blocked  (operand 1 of store)",
        // `b`'s row index, read along the other dim, is recomputed there: no conversion.
        " = arange 0..32 : tensor<32xi32> #slice<dims=[1], #blocked>  (recomputes %",
        // The `dot` reads its fragments from the slots.
        "#shared<ring 0, swizzled, vec 16 bytes, perPhase 2, maxPhase 4> -> #dot_op<opIdx=0, parent=#mma, kWidth=2>  (operand 0 of %",
        "#shared<ring 1, swizzled, vec 16 bytes, perPhase 2, maxPhase 4> -> #dot_op<opIdx=1, parent=#mma, kWidth=2>  (operand 1 of %",
        " = dot: fragments read from the ring slot at each k-step)  loc(",
    ],
    &["staged through shared memory"],
    3
)]
#[case::pipelined_i8(
    staged_i8(), STAGED, 4,
    &[
        ": tensor<32x32xi8> #shared<ring 0, row 48> (read in place)  loc(",
        ": tensor<32x32xi8> #blocked  loc(",
        " : tensor<32x32xi32> #mma  loc(",
        " : tensor<32x32xi32> #mma -> #blocked  (operand 1 of store)",
        "(recomputes %",
        // `a` from its slot; `b` staged transposed, which a slot's layout is not.
        "#shared<ring 0, row 48> -> #dot_op<opIdx=0, parent=#mma, kWidth=4>  (operand 0 of %",
        " : tensor<32x32xi8> #blocked -> #dot_op<opIdx=1, parent=#mma, kWidth=4>  (operand 1 of %",
    ],
    &["#shared<ring 1"],
    3
)]
fn the_text_shows_encodings_layouts_conversions_and_rings(
    #[case] def: KernelDef,
    #[case] constexprs: &[(&str, i64)],
    #[case] num_warps: u32,
    #[case] present: &[&str],
    #[case] absent: &[&str],
    #[case] conversions: usize,
) {
    let text = text(&def, constexprs, num_warps);
    for want in present {
        assert!(text.contains(want), "missing {want:?} in\n{text}");
    }
    for unwanted in absent {
        assert!(!text.contains(unwanted), "unexpected {unwanted:?} in\n{text}");
    }
    assert_eq!(text.matches(" = convert_layout ").count(), conversions, "{text}");
}

/// Each `convert_layout` line names a copy the next line reads, and converts between two
/// different layouts of its value's type.
#[rstest]
#[case::row_sums_down_columns(row_sums_down_columns(), &[("B", 32)])]
#[case::dot_epilogue(dot_tile(), &[("BM", 32), ("BN", 32), ("BK", 16)])]
#[case::pipelined(staged_f16(), STAGED)]
fn each_conversion_is_read_by_the_next_op(#[case] def: KernelDef, #[case] constexprs: &[(&str, i64)]) {
    let text = text(&def, constexprs, 4);
    let lines: Vec<&str> = text.lines().collect();
    let mut seen = 0;
    for (i, line) in lines.iter().enumerate() {
        let Some((copy, rest)) = line.trim_start().split_once(" = convert_layout ") else { continue };
        seen += 1;
        let (_, layouts) = rest.split_once(" #").expect("a type, then the layouts");
        let (from, to) = layouts.split_once(" -> ").expect("from -> to");
        let to = to.split("  (operand ").next().unwrap();
        assert_ne!(format!("#{from}"), to, "{line}");
        let reader = lines[i + 1..].iter().find(|l| !l.contains(" = convert_layout ")).expect("the reading op");
        assert!(reader.contains(&format!("{copy},")) || reader.contains(&format!("{copy} ")), "{line}\n{reader}");
    }
    assert!(seen > 0, "{text}");
}

/// Without the header, the conversions (`convert_layout` ops, and the ops copied to
/// recompute a value in another layout) and the layouts after the types, and with each
/// copy read as the value it copies, the text is the kernel's IR text: the layout stage
/// adds conversions and changes nothing else.
#[rstest]
#[case::softmax(softmax_rows(), &[("R", 16), ("C", 64)])]
#[case::row_sums_down_columns(row_sums_down_columns(), &[("B", 32)])]
#[case::pipelined(staged_f16(), STAGED)]
#[case::pipelined_i8(staged_i8(), STAGED)]
fn around_the_annotations_the_text_is_the_ir(#[case] def: KernelDef, #[case] constexprs: &[(&str, i64)]) {
    let plain = verified(&def, constexprs).kernel().to_string();
    let text = text(&def, constexprs, 4);
    let body = &text[text.find("kernel @").expect("the kernel line")..];
    // `%c = convert_layout %v : ...` and `%c = ... (recomputes %v for ...)` -> (`%c`, `%v`)
    let copied = |l: &&str| l.contains(" = convert_layout ") || l.contains("(recomputes %");
    let copies: Vec<(&str, &str)> = body
        .lines()
        .filter(copied)
        .map(|l| {
            let (copy, rest) = l.trim_start().split_once(" = ").unwrap();
            let of = match rest.split_once("(recomputes ") {
                Some((_, r)) => r.split(' ').next().unwrap(),
                None => rest.split(' ').nth(1).unwrap(),
            };
            (copy, of)
        })
        .collect();
    let annotated: Vec<&str> = body.lines().filter(|l| !copied(l)).collect();
    let plain: Vec<&str> = plain.lines().collect();
    assert_eq!(annotated.len(), plain.len(), "{text}");
    for (a, p) in annotated.iter().zip(&plain) {
        let a = copies.iter().fold(a.to_string(), |a, (copy, v)| read_as(&a, copy, v));
        let (a_op, p_op) = (a.split(" : ").next().unwrap(), p.split(" : ").next().unwrap());
        assert_eq!(a_op, p_op);
        let loc = |l: &str| l.rfind("  loc(").map(|at| l[at..].to_string());
        assert_eq!(loc(&a), loc(p), "{a}\n{p}");
    }
}

/// `line` with every `%N` that is `copy` (not the start of a longer id) written as `value`.
fn read_as(line: &str, copy: &str, value: &str) -> String {
    let mut out = String::new();
    let mut rest = line;
    while let Some(at) = rest.find(copy) {
        let after = &rest[at + copy.len()..];
        out.push_str(&rest[..at]);
        out.push_str(if after.starts_with(|c: char| c.is_ascii_digit()) { copy } else { value });
        rest = after;
    }
    out + rest
}

/// Where the lowering finds no layout, so does the text: the same error.
#[test]
fn a_warp_count_without_a_layout_is_the_lowerings_error() {
    let k = verified(&softmax_rows(), &[("R", 16), ("C", 64)]);
    let options = PtxOptions { num_warps: 3, ..PtxOptions::default() };
    let lowered = rtriton::backend::ptx::lower(&k, &options).unwrap_err();
    assert_eq!(layouts_text(&k, &options).unwrap_err(), lowered);
    assert!(lowered.to_string().contains("num_warps = 3 has no valid layout"), "{lowered}");
}

/// The text's layouts are the ones the PTX is built from: the PTX header names the same
/// encodings.
#[rstest]
#[case::softmax(softmax_rows(), &[("R", 16), ("C", 64)])]
#[case::pipelined(staged_f16(), STAGED)]
fn the_header_is_the_ptxs(#[case] def: KernelDef, #[case] constexprs: &[(&str, i64)]) {
    let k = verified(&def, constexprs);
    let text = layouts_text(&k, &PtxOptions::default()).unwrap();
    let ptx = rtriton::backend::ptx::compile(&k, &PtxOptions::default()).unwrap().text;
    for line in text.lines().take_while(|l| l.starts_with('#')) {
        assert!(ptx.contains(line), "{line} not in the PTX header\n{ptx}");
    }
}

/// On sm_90a a pipelined 16-bit `dot` runs as `wgmma`: the text names the target, says
/// which `dot`, how its operands are read and that it stays in flight, shows `a`'s ring
/// with its 8-row groups permuted and `b`'s in 128-byte panels (a row of 128 `f16` is 256
/// bytes); the same kernel for sm_86 has none of it.
#[test]
fn the_text_says_which_dots_run_as_wgmma_on_sm_90a() {
    let constexprs: &[(&str, i64)] = &[("BM", 64), ("BN", 128), ("BK", 32), ("STAGES", 3)];
    let k = verified(&staged_f16(), constexprs);
    let sm90a = PtxOptions { num_warps: 4, ..PtxOptions::for_arch(rtriton::backend::ptx::Arch::Sm90a) };
    let text = layouts_text(&k, &sm90a).expect("the kernel has layouts");
    for want in [
        "\ntarget = sm_90a\n",
        " runs as wgmma.m64n128k16: A through a descriptor of %",
        " (K-major), B through a descriptor of %",
        " (N-major); one group in flight across the loop's iterations (wait_group 1, a barrier, then the loop's copies)",
        "#mma = blocked{spt=[1, 2], tpw=[8, 4], wpc=[4, 1], order=[1, 0]}",
        ": tensor<64x32xf16> #shared<ring 0, 64-byte panels, swizzled, vec 16 bytes, perPhase 2, maxPhase 4, 8-row groups permuted (low 3 bits of the group rotated left by 1)> (read in place)",
        ": tensor<32x128xf16> #shared<ring 1, 128-byte panels, swizzled, vec 16 bytes, perPhase 1, maxPhase 8> (read in place)",
    ] {
        assert!(text.contains(want), "missing `{want}` in:\n{text}");
    }
    let sm86 = text_of(&k, 4);
    assert!(!sm86.contains("wgmma") && !sm86.contains("panels") && !sm86.contains("target ="), "{sm86}");
}

fn text_of(k: &rtriton::verify::VerifiedKernel, num_warps: u32) -> String {
    layouts_text(k, &PtxOptions { num_warps, ..PtxOptions::default() }).expect("the kernel has layouts")
}

/// The stage's kernel is IR like any other: its text parses back to the same text, the
/// verifier accepts it, and it computes the front end's bits on the interpreter (a
/// `convert_layout` changes where elements sit, never what they are). `buffers` are the
/// bytes of each pointer parameter, filled with a pattern.
#[rstest]
#[case::row_sums_down_columns(row_sums_down_columns(), &[("B", 32)], &[32 * 32 * 4, 32 * 32 * 4], 1)]
#[case::dot_epilogue(dot_tile(), &[("BM", 32), ("BN", 32), ("BK", 16)], &[32 * 16 * 2, 16 * 32 * 2, 32 * 32 * 4], 3)]
#[case::pipelined(staged_f16(), STAGED, &[32 * 64 * 2, 64 * 32 * 2, 32 * 32 * 4], 3)]
fn the_stage_is_ir_that_computes_the_same(
    #[case] def: KernelDef,
    #[case] constexprs: &[(&str, i64)],
    #[case] buffers: &[usize],
    #[case] converts: usize,
) {
    use rtriton::backend::ptx::layout_stage_kernel;
    use rtriton::interp::{Memory, run};
    use rtriton::ir::{OpKind, parse, print};
    use rtriton::spec::ArgValue;

    let front = verified(&def, constexprs);
    let stage = layout_stage_kernel(&front, &PtxOptions::default()).expect("the kernel has layouts");
    let k = stage.kernel();
    let made = k.walk().iter().filter(|&&id| matches!(k.op(id).kind, OpKind::ConvertLayout { .. })).count();
    assert_eq!(made, converts, "{k}");
    let text = print(k);
    let back = parse(&text).unwrap_or_else(|e| panic!("{e}\n{text}"));
    assert_eq!(print(&back), text);
    rtriton::verify::check(&back).unwrap_or_else(|e| panic!("{e}\n{text}"));

    let outputs = |kernel: &rtriton::verify::VerifiedKernel| {
        let mut mem = Memory::new();
        let mut args: Vec<ArgValue> = Vec::new();
        let mut ptrs = Vec::new();
        for (i, &bytes) in buffers.iter().enumerate() {
            // Small values of every element size: no product or sum leaves the exact range.
            let data: Vec<u8> = (0..bytes).map(|b| if b % 2 == 0 { ((b * 7 + i) % 5) as u8 } else { 0 }).collect();
            let p = mem.alloc_bytes(&data);
            ptrs.push((p, bytes));
            args.push(ArgValue::Ptr(p));
        }
        // The scalar parameters (`staged`'s `k`).
        args.extend(kernel.kernel().params.iter().skip(buffers.len()).map(|_| ArgValue::Int(64)));
        run(kernel, [1, 1, 1], &args, &mut mem).unwrap_or_else(|e| panic!("{e}"));
        ptrs.iter().map(|&(p, n)| mem.read_bytes(p, n).unwrap().to_vec()).collect::<Vec<_>>()
    };
    assert_eq!(outputs(&stage), outputs(&front));
}

/// How a tensor-core `dot`'s operands reach it (`Decisions::dot_operands`): a tile loaded
/// into registers is written to shared memory by the `dot` and read as fragments (a
/// conversion through shared memory); a staging ring's slot is read in place.
#[rstest]
#[case::loaded_tiles(dot_tile(), &[("BM", 32), ("BN", 32), ("BK", 16)], DotOperandSource::Staged)]
#[case::ring_slots(staged_f16(), STAGED, DotOperandSource::RingSlot)]
fn each_dot_operand_says_where_it_comes_from(
    #[case] def: KernelDef,
    #[case] constexprs: &[(&str, i64)],
    #[case] source: DotOperandSource,
) {
    let ptx = rtriton::backend::ptx::compile(&verified(&def, constexprs), &PtxOptions::default()).expect("compiles");
    let got: Vec<(&str, DotOperandSource)> = ptx.decisions.dot_operands.iter().map(|d| (d.operand, d.source)).collect();
    assert_eq!(got, [("a", source), ("b", source)]);
}

/// A loop-invariant `a`'s `#dot_op` conversion goes before the loop, where its fragments
/// are read once, while the loop's hoisted fragments fit in 32 registers a thread: with
/// head dim 64 both `a`s fit (16 each), with 128 only the first (32 each); the other
/// converts in the loop, staged at each iteration. The lowering does as the stage says.
#[rstest]
#[case::both_fit(64, [true, true])]
#[case::one_fits(128, [true, false])]
fn loop_invariant_operands_convert_before_the_loop_within_the_budget(#[case] bk: i64, #[case] hoisted: [bool; 2]) {
    let c = [("BM", 64), ("BN", 32), ("BK", bk)];
    let text = text(&invariant_operands(), &c, 4);
    let before: Vec<&str> = text.lines().take_while(|l| !l.contains(" = for ")).collect();
    let a_conversions = |lines: &[&str]| lines.iter().filter(|l| l.contains("-> #dot_op<opIdx=0")).count();
    let want_before = hoisted.iter().filter(|h| **h).count();
    assert_eq!(a_conversions(&before), want_before, "{text}");
    let all: Vec<&str> = text.lines().collect();
    assert_eq!(a_conversions(&all), 2, "{text}");
    assert_eq!(text.matches("read as fragments once, before the loop").count(), want_before, "{text}");
    let ptx =
        rtriton::backend::ptx::compile(&verified(&invariant_operands(), &c), &PtxOptions::default()).expect("compiles");
    let a_sources: Vec<DotOperandSource> =
        ptx.decisions.dot_operands.iter().filter(|d| d.operand == "a").map(|d| d.source).collect();
    let want: Vec<DotOperandSource> =
        hoisted.iter().map(|&h| if h { DotOperandSource::Hoisted } else { DotOperandSource::Staged }).collect();
    assert_eq!(a_sources, want);
}

/// `rtriton explain` says where each operand of a tensor-core `dot` comes from.
#[test]
fn explain_names_each_dot_operands_source() {
    use rtriton::explain::{ExplainInput, Section, explain, render};
    let def = dot_tile();
    let p = |i: u64| rtriton::spec::ArgValue::Ptr(0x7f00_0000_0000 + (i << 24));
    let args = [p(0), p(1), p(2)];
    let input = ExplainInput {
        def: &def,
        constexprs: &[("BM", 32), ("BN", 32), ("BK", 16)],
        args: &args,
        policy: rtriton::spec::SpecPolicy::Triton,
        semantics: rtriton::trace::Semantics::Rtriton,
        extents: &[],
        ptx: Default::default(),
        lint: &Default::default(),
    };
    let text = render(&explain(&input).expect("arguments fit"), &[Section::Vector]);
    let lines: Vec<&str> = text.lines().filter(|l| l.contains("dot operand at ")).collect();
    assert_eq!(lines.len(), 2, "{text}");
    for (line, operand) in lines.iter().zip(["a", "b"]) {
        assert!(line.contains(&format!("`{operand}` through shared memory: written by the dot")), "{text}");
    }
}
