//! `inline_asm_elementwise` (Triton's `tl.inline_asm_elementwise`): asms over every
//! register class and packing (32-bit words, four bytes or two halves packed in one
//! register, 16- and 8-bit registers, 64-bit ones, several results) run with their CPU
//! models on the interpreter and the simulator against plain-Rust expectations (and,
//! asked for, on the GPU against both); the IR text round trip; the located refusals of
//! an asm without a model; the trace errors; dead-code removal of pure and impure asm;
//! the PTX through ptxas for sm_86 and sm_90.

mod ptx_common;

use half::f16;
use rtriton::backend::ptx::Arch;
use rtriton::diag::{Code, HasDiagnostics};
use rtriton::interp::Memory;
use rtriton::ir::{OpKind, parse, print};
use rtriton::kernel;
use rtriton::prelude::*;
use rtriton::session::CompileSession;
use rtriton::spec::{ArgValue, SpecKey, SpecPolicy};
use rtriton::trace::{KernelDef, TraceOptions};
use rtriton_testing::{Backend, Case, Rule, Suite, View};

// ---------------------------------------------------------------------------------------
// The CPU models: what each asm computes, on its registers.

/// `shf.l.wrap.b32 d, x, x, s`: `x` rotated left by `s & 31`.
fn rotl(ins: &[u64], outs: &mut [u64]) {
    outs[0] = u64::from((ins[0] as u32).rotate_left(ins[1] as u32 & 31));
}
const ROTL: AsmModel = AsmModel::new("rotl", rotl);

/// `not.b32` of four packed bytes.
fn not32(ins: &[u64], outs: &mut [u64]) {
    outs[0] = !ins[0] & 0xFFFF_FFFF;
}
const NOT32: AsmModel = AsmModel::new("not32", not32);

/// `and.b32 d, x, 0x7FFF7FFF`: two f16 sign bits cleared.
fn abs_f16x2(ins: &[u64], outs: &mut [u64]) {
    outs[0] = ins[0] & 0x7FFF_7FFF;
}
const ABS_F16X2: AsmModel = AsmModel::new("abs_f16x2", abs_f16x2);

/// Triton's documentation example with `pack = 4`: `$8` holds four `u8`s, `$9..$12` four
/// `f32`s; `$0..$3` get the bytes as `i32`s, `$4..$7` the max of each as `f32` and its `f32`.
fn widen_max(ins: &[u64], outs: &mut [u64]) {
    for k in 0..4 {
        let a = (ins[0] >> (8 * k)) & 0xFF;
        outs[k] = a;
        let m = (a as f32).max(f32::from_bits(ins[1 + k] as u32));
        outs[4 + k] = u64::from(m.to_bits());
    }
}
const WIDEN_MAX: AsmModel = AsmModel::new("widen_max", widen_max);

/// `mul.lo.s16` of two 16-bit registers.
fn mul16(ins: &[u64], outs: &mut [u64]) {
    outs[0] = u64::from((ins[0] as u16).wrapping_mul(ins[1] as u16));
}
const MUL16: AsmModel = AsmModel::new("mul16", mul16);

/// `and.b16 d, x, 0x000F` of one byte in a 16-bit register (`c`).
fn low_nibble(ins: &[u64], outs: &mut [u64]) {
    outs[0] = ins[0] & 0xF;
}
const LOW_NIBBLE: AsmModel = AsmModel::new("low_nibble", low_nibble);

/// `mul.hi.u64`.
fn mulhi64(ins: &[u64], outs: &mut [u64]) {
    outs[0] = ((u128::from(ins[0]) * u128::from(ins[1])) >> 64) as u64;
}
const MULHI64: AsmModel = AsmModel::new("mulhi64", mulhi64);

// ---------------------------------------------------------------------------------------
// The kernels.

kernel! {
    /// `y = rotl(x, s)` element by element, one 32-bit register each.
    fn asm_rotl(x_ptr: Ptr<i32>, s_ptr: Ptr<i32>, y_ptr: Ptr<i32>, n: i32; const BLOCK: usize) {
        let offs = program_id(0) * BLOCK as i32 + arange(0, BLOCK);
        let mask = offs.lt(n);
        let x = load(x_ptr + offs, Some(mask), Some(0));
        let s = load(s_ptr + offs, Some(mask), Some(0));
        let y = inline_asm_elementwise::<i32>("shf.l.wrap.b32 $0, $1, $1, $2;", "=r,r,r", (x, s), true, 1)
            .with_model(ROTL);
        store(y_ptr + offs, y, Some(mask));
    }
}

kernel! {
    /// `y = !x` on `i8`s, four to a register (`pack = 4`): the results sign-extended.
    fn asm_not_i8(x_ptr: Ptr<i8>, y_ptr: Ptr<i8>, n: i32; const BLOCK: usize) {
        let offs = program_id(0) * BLOCK as i32 + arange(0, BLOCK);
        let mask = offs.lt(n);
        let x = load(x_ptr + offs, Some(mask), Some(0));
        let y = inline_asm_elementwise::<i8>("not.b32 $0, $1;", "=r,r", x, true, 4).with_model(NOT32);
        store(y_ptr + offs, y, Some(mask));
    }
}

kernel! {
    /// `|x|` of `f16`s as a bit operation, two to a register (`pack = 2`).
    fn asm_abs_f16(x_ptr: Ptr<f16>, y_ptr: Ptr<f16>, n: i32; const BLOCK: usize) {
        let offs = program_id(0) * BLOCK as i32 + arange(0, BLOCK);
        let mask = offs.lt(n);
        let x = load(x_ptr + offs, Some(mask), None);
        let y = inline_asm_elementwise::<f16>("and.b32 $0, $1, 0x7FFF7FFF;", "=r,r", x, true, 2).with_model(ABS_F16X2);
        store(y_ptr + offs, y, Some(mask));
    }
}

/// Triton's `inline_asm_elementwise` documentation example, as written there.
const WIDEN_MAX_ASM: &str = "
{
    // Unpack `a` into `ai`.
    .reg .b8 tmp<4>;
    mov.b32 {tmp0, tmp1, tmp2, tmp3}, $8;
    cvt.u32.u8 $0, tmp0;
    cvt.u32.u8 $1, tmp1;
    cvt.u32.u8 $2, tmp2;
    cvt.u32.u8 $3, tmp3;
}
// Convert `ai` to float.
cvt.rn.f32.s32 $4, $0;
cvt.rn.f32.s32 $5, $1;
cvt.rn.f32.s32 $6, $2;
cvt.rn.f32.s32 $7, $3;
// Take max of `ai` and `b`.
max.f32 $4, $4, $9;
max.f32 $5, $5, $10;
max.f32 $6, $6, $11;
max.f32 $7, $7, $12;
";

kernel! {
    /// Two results of two dtypes from a `u8` and an `f32` argument, four elements a call.
    fn asm_widen_max(a_ptr: Ptr<u8>, b_ptr: Ptr<f32>, c_ptr: Ptr<i32>, d_ptr: Ptr<f32>, n: i32; const BLOCK: usize) {
        let offs = program_id(0) * BLOCK as i32 + arange(0, BLOCK);
        let mask = offs.lt(n);
        let a = load(a_ptr + offs, Some(mask), Some(0));
        let b = load(b_ptr + offs, Some(mask), Some(0.0));
        let (c, d) = inline_asm_elementwise::<(i32, f32)>(
            WIDEN_MAX_ASM,
            "=r,=r,=r,=r,=r,=r,=r,=r,r,r,r,r,r",
            (a, b),
            true,
            4,
        )
        .with_model(WIDEN_MAX);
        store(c_ptr + offs, c, Some(mask));
        store(d_ptr + offs, d, Some(mask));
    }
}

kernel! {
    /// `i16` products in 16-bit registers (`h`, `pack = 1`): the results sign-extended.
    fn asm_mul_i16(x_ptr: Ptr<i16>, y_ptr: Ptr<i16>, z_ptr: Ptr<i16>, n: i32; const BLOCK: usize) {
        let offs = program_id(0) * BLOCK as i32 + arange(0, BLOCK);
        let mask = offs.lt(n);
        let x = load(x_ptr + offs, Some(mask), Some(0));
        let y = load(y_ptr + offs, Some(mask), Some(0));
        let z = inline_asm_elementwise::<i16>("mul.lo.s16 $0, $1, $2;", "=h,h,h", (x, y), true, 1).with_model(MUL16);
        store(z_ptr + offs, z, Some(mask));
    }
}

kernel! {
    /// One `u8` in an 8-bit operand (`c`, held in a 16-bit register).
    fn asm_nibble_u8(x_ptr: Ptr<u8>, y_ptr: Ptr<u8>, n: i32; const BLOCK: usize) {
        let offs = program_id(0) * BLOCK as i32 + arange(0, BLOCK);
        let mask = offs.lt(n);
        let x = load(x_ptr + offs, Some(mask), Some(0));
        let y = inline_asm_elementwise::<u8>("and.b16 $0, $1, 0x000F;", "=c,c", x, true, 1).with_model(LOW_NIBBLE);
        store(y_ptr + offs, y, Some(mask));
    }
}

kernel! {
    /// The high half of 64-bit products by a scalar argument (broadcast), in `l` registers.
    fn asm_mulhi_u64(x_ptr: Ptr<u64>, y_ptr: Ptr<u64>, m: i64, n: i32; const BLOCK: usize) {
        let offs = program_id(0) * BLOCK as i32 + arange(0, BLOCK);
        let mask = offs.lt(n);
        let x = load(x_ptr + offs, Some(mask), Some(0));
        let y = inline_asm_elementwise::<u64>("mul.hi.u64 $0, $1, $2;", "=l,l,l", (x, m.to::<u64>()), true, 1)
            .with_model(MULHI64);
        store(y_ptr + offs, y, Some(mask));
    }
}

kernel! {
    /// [`asm_rotl`] without a model: what the interpreter and the simulator refuse.
    fn asm_unmodelled(x_ptr: Ptr<i32>, y_ptr: Ptr<i32>; const BLOCK: usize) {
        let offs = arange(0, BLOCK);
        let x = load(x_ptr + offs, None, None);
        let y = inline_asm_elementwise::<i32>("shf.l.wrap.b32 $0, $1, $1, 7;", "=r,r", x, true, 1);
        store(y_ptr + offs, y, None);
    }
}

// ---------------------------------------------------------------------------------------
// Cases and expectations.

/// A deterministic scramble of `i`.
fn mix(seed: u64, i: usize) -> u64 {
    let x = (i as u64 ^ seed.wrapping_mul(0x9E37_79B9_7F4A_7C15)).wrapping_mul(0xD6E8_FEB8_6659_FD93);
    x ^ (x >> 29)
}

const N: usize = 1000;
/// 64 elements on 4 warps: one element a thread, so a `pack` of 2 or 4 runs padded; 1024:
/// eight a thread, a whole number of packs.
const BLOCKS: [i64; 2] = [64, 1024];
/// What the masked-off tail keeps (each output starts filled with it).
const SENTINEL: u64 = 0x5A5A_5A5A_5A5A_5A5A;

fn view() -> View {
    View::contiguous(&[N])
}

/// One case a block size over `N` elements; `tensors` adds the kernel's tensors.
fn cases(tensors: impl Fn(Case) -> Case) -> Vec<Case> {
    BLOCKS
        .into_iter()
        .map(|block| {
            let programs = (N as u64).div_ceil(block as u64) as u32;
            tensors(Case::new(format!("BLOCK={block}")).constexpr("BLOCK", block).grid([programs, 1, 1]))
        })
        .collect()
}

fn rotl_suite() -> Suite {
    let xs: Vec<i32> = (0..N).map(|i| mix(1, i) as i32).collect();
    let ss: Vec<i32> = (0..N).map(|i| (mix(2, i) % 80) as i32 - 8).collect();
    Suite::new(asm_rotl())
        .cases(cases(|c| {
            c.input("x", xs.clone(), view())
                .input("s", ss.clone(), view())
                .output("y", vec![SENTINEL as i32; N], view())
                .int(N as i64)
        }))
        .reference(|c| {
            let (x, s) = (c.tensor("x").data.as_i32().unwrap().to_vec(), c.tensor("s").data.as_i32().unwrap().to_vec());
            let y = c.tensor_mut("y").data.as_i32_mut().unwrap();
            for i in 0..N {
                y[i] = x[i].rotate_left(s[i] as u32 & 31);
            }
        })
        .rule(Rule::BITS)
}

fn not_suite() -> Suite {
    let xs: Vec<i8> = (0..N).map(|i| mix(3, i) as i8).collect();
    Suite::new(asm_not_i8())
        .cases(cases(|c| c.input("x", xs.clone(), view()).output("y", vec![SENTINEL as i8; N], view()).int(N as i64)))
        .reference(|c| {
            let x: Vec<i8> = c.tensor("x").data.as_slice::<i8>().unwrap().to_vec();
            let y = c.tensor_mut("y").data.as_slice_mut::<i8>().unwrap();
            for i in 0..N {
                y[i] = !x[i];
            }
        })
        .rule(Rule::BITS)
}

fn abs_suite() -> Suite {
    // Every sign and NaN payload survives as bits: the asm clears the sign bit only.
    let xs: Vec<f16> = (0..N).map(|i| f16::from_bits(mix(4, i) as u16)).collect();
    Suite::new(asm_abs_f16())
        .cases(cases(|c| {
            c.input("x", xs.clone(), view()).output("y", vec![f16::from_bits(SENTINEL as u16); N], view()).int(N as i64)
        }))
        .reference(|c| {
            let x: Vec<f16> = c.tensor("x").data.as_slice::<f16>().unwrap().to_vec();
            let y = c.tensor_mut("y").data.as_slice_mut::<f16>().unwrap();
            for i in 0..N {
                y[i] = f16::from_bits(x[i].to_bits() & 0x7FFF);
            }
        })
        .rule(Rule::BITS)
}

fn widen_max_suite() -> Suite {
    let a: Vec<u8> = (0..N).map(|i| mix(5, i) as u8).collect();
    // Values around the bytes' range, infinities and NaNs (`max.f32` ignores a NaN).
    let b: Vec<f32> = (0..N)
        .map(|i| match i % 17 {
            3 => f32::NAN,
            7 => f32::NEG_INFINITY,
            11 => f32::INFINITY,
            _ => (mix(6, i) % 600) as f32 * 0.5 - 20.0 + 0.25,
        })
        .collect();
    Suite::new(asm_widen_max())
        .cases(cases(|c| {
            c.input("a", a.clone(), view())
                .input("b", b.clone(), view())
                .output("c", vec![SENTINEL as i32; N], view())
                .output("d", vec![f32::from_bits(SENTINEL as u32); N], view())
                .int(N as i64)
        }))
        .reference(|c| {
            let a: Vec<u8> = c.tensor("a").data.as_slice::<u8>().unwrap().to_vec();
            let b = c.tensor("b").data.as_f32().unwrap().to_vec();
            for i in 0..N {
                c.tensor_mut("c").data.as_i32_mut().unwrap()[i] = i32::from(a[i]);
                let m = if b[i].is_nan() { f32::from(a[i]) } else { f32::from(a[i]).max(b[i]) };
                c.tensor_mut("d").data.as_f32_mut().unwrap()[i] = m;
            }
        })
        .rule(Rule::BITS)
}

fn mul_i16_suite() -> Suite {
    let xs: Vec<i16> = (0..N).map(|i| mix(7, i) as i16).collect();
    let ys: Vec<i16> = (0..N).map(|i| mix(8, i) as i16).collect();
    Suite::new(asm_mul_i16())
        .cases(cases(|c| {
            c.input("x", xs.clone(), view())
                .input("y", ys.clone(), view())
                .output("z", vec![SENTINEL as i16; N], view())
                .int(N as i64)
        }))
        .reference(|c| {
            let x: Vec<i16> = c.tensor("x").data.as_slice::<i16>().unwrap().to_vec();
            let y: Vec<i16> = c.tensor("y").data.as_slice::<i16>().unwrap().to_vec();
            let z = c.tensor_mut("z").data.as_slice_mut::<i16>().unwrap();
            for i in 0..N {
                z[i] = x[i].wrapping_mul(y[i]);
            }
        })
        .rule(Rule::BITS)
}

fn nibble_suite() -> Suite {
    let xs: Vec<u8> = (0..N).map(|i| mix(9, i) as u8).collect();
    Suite::new(asm_nibble_u8())
        .cases(cases(|c| c.input("x", xs.clone(), view()).output("y", vec![SENTINEL as u8; N], view()).int(N as i64)))
        .reference(|c| {
            let x: Vec<u8> = c.tensor("x").data.as_slice::<u8>().unwrap().to_vec();
            let y = c.tensor_mut("y").data.as_slice_mut::<u8>().unwrap();
            for i in 0..N {
                y[i] = x[i] & 0xF;
            }
        })
        .rule(Rule::BITS)
}

const M: i64 = 0x7654_3210_FEDC_BA98;

fn mulhi_suite() -> Suite {
    let xs: Vec<u64> = (0..N).map(|i| mix(10, i)).collect();
    Suite::new(asm_mulhi_u64())
        .cases(cases(|c| c.input("x", xs.clone(), view()).output("y", vec![SENTINEL; N], view()).int(M).int(N as i64)))
        .reference(|c| {
            let x: Vec<u64> = c.tensor("x").data.as_slice::<u64>().unwrap().to_vec();
            let y = c.tensor_mut("y").data.as_slice_mut::<u64>().unwrap();
            for i in 0..N {
                y[i] = ((u128::from(x[i]) * u128::from(M as u64)) >> 64) as u64;
            }
        })
        .rule(Rule::BITS)
}

fn suites() -> Vec<Suite> {
    vec![rotl_suite(), not_suite(), abs_suite(), widen_max_suite(), mul_i16_suite(), nibble_suite(), mulhi_suite()]
}

#[test]
fn every_asm_matches_its_expectation_on_the_interpreter() {
    for suite in suites() {
        suite.check_all(Backend::Interpreter);
    }
}

/// The simulator runs the models on the registers the lowering packed, so this checks
/// the packing and unpacking against the interpreter's (`Suite::run` compares with both).
#[test]
fn every_asm_matches_its_expectation_and_the_interpreter_on_the_simulator() {
    for suite in suites() {
        suite.check_all(Backend::Simulator);
    }
}

/// The real asm on the GPU against the expectations and the interpreter's models, bit
/// for bit, every case.
#[test]
#[ignore = "needs a GPU"]
fn every_asm_matches_its_model_on_the_gpu() {
    for suite in suites() {
        suite.check_all(Backend::Gpu);
    }
}

/// The expectations are not vacuous: the data reaches every byte value's sign, NaNs and
/// infinities where the asm must keep or ignore them, and shift amounts past 31.
#[test]
fn the_inputs_cover_signs_specials_and_wrapping_shifts() {
    let bytes: Vec<i8> = (0..N).map(|i| mix(3, i) as i8).collect();
    assert!(bytes.iter().any(|&b| b < 0) && bytes.iter().any(|&b| b > 0));
    let halves: Vec<u16> = (0..N).map(|i| mix(4, i) as u16).collect();
    assert!(halves.iter().any(|&h| h & 0x7C00 == 0x7C00 && h & 0x3FF != 0 && h & 0x8000 != 0), "a negative NaN");
    let shifts: Vec<i32> = (0..N).map(|i| (mix(2, i) % 80) as i32 - 8).collect();
    assert!(shifts.iter().any(|&s| s < 0) && shifts.iter().any(|&s| s > 31));
}

// ---------------------------------------------------------------------------------------
// IR text, refusals, trace errors, dead code.

fn plain(def: &KernelDef, constexprs: &[(&str, i64)]) -> rtriton::ir::Kernel {
    let spec = SpecKey::plain(&def.params);
    CompileSession::new()
        .front_end(def, constexprs, &spec, &TraceOptions::default())
        .unwrap_or_else(|e| panic!("{}: {e}", def.name))
        .kernel()
        .clone()
}

/// The op prints its asm, constraints, operands, purity, pack and model name, and reads
/// back to the same text; read back, it names the model without its function.
#[test]
fn the_ir_text_round_trips_and_names_the_model() {
    let k = plain(&asm_widen_max(), &[("BLOCK", 64)]);
    let text = print(&k);
    assert!(text.contains(r#"= inline_asm "\n{\n    // Unpack `a` into `ai`."#), "{text}");
    assert!(text.contains(r#"", "=r,=r,=r,=r,=r,=r,=r,=r,r,r,r,r,r" (%"#), "{text}");
    assert!(text.contains(
        r#") pure pack 4 model "widen_max" : tensor<64xi32>, tensor<64xf32>  loc(tests/tests/inline_asm.rs:"#
    ));
    let parsed = parse(&text).unwrap_or_else(|e| panic!("{e}\n{text}"));
    assert_eq!(print(&parsed), text);
    let model = parsed.ops.iter().find_map(|op| match &op.kind {
        OpKind::InlineAsm { model, .. } => Some(model.expect("the model's name")),
        _ => None,
    });
    let model = model.expect("an inline_asm op");
    assert_eq!(model.name, "widen_max");
    assert!(model.run.is_none());
    rtriton::verify::check(&parsed).unwrap_or_else(|e| panic!("{e}"));
}

/// Where the asm is, in this file.
fn asm_line(needle: &str) -> String {
    let src = include_str!("inline_asm.rs");
    let line = src.lines().position(|l| l.contains(needle)).expect("the asm's line") + 1;
    format!("tests/tests/inline_asm.rs:{line}")
}

fn unmodelled_args(mem: &mut Memory) -> Vec<ArgValue> {
    let x = mem.alloc_bytes(&[1u8; 256]);
    let y = mem.alloc_bytes(&[0u8; 256]);
    vec![ArgValue::Ptr(x), ArgValue::Ptr(y)]
}

#[test]
fn the_interpreter_refuses_an_asm_without_a_model_at_its_line() {
    let mut mem = Memory::new();
    let args = unmodelled_args(&mut mem);
    let err = CompileSession::new()
        .interpret(&asm_unmodelled(), &[("BLOCK", 64)], &args, SpecPolicy::Triton, [1, 1, 1], &mut mem)
        .expect_err("no model");
    let d = &err.diagnostics()[0];
    assert_eq!(d.code, Code::InterpInlineAsmNoModel);
    let text = d.to_string();
    assert!(text.contains("asm_unmodelled") && text.contains(&asm_line("$1, $1, 7;")), "{text}");
    assert!(text.contains("has no CPU model") && text.contains(".with_model(AsmModel::new("), "{text}");
}

#[test]
fn the_simulator_refuses_an_asm_without_a_model_at_its_line() {
    let mut mem = Memory::new();
    let args = unmodelled_args(&mut mem);
    let program = rtriton_testing::run::lower(
        &mut CompileSession::new(),
        &asm_unmodelled(),
        &[("BLOCK", 64)],
        &args,
        SpecPolicy::Triton,
        4,
    )
    .expect("lowers");
    let err = rtriton::sim::run(&program, [1, 1, 1], &args, &mut mem).expect_err("no model");
    let d = err.diagnostic();
    assert_eq!(d.code, Code::SimInlineAsmNoModel);
    let text = d.to_string();
    assert!(text.contains("asm_unmodelled") && text.contains(&asm_line("$1, $1, 7;")), "{text}");
    assert!(text.contains("has no CPU model") && text.contains("shf.l.wrap.b32 %r"), "{text}");
}

/// IR text read back names the model but cannot carry its function: the interpreter says
/// so, naming the model.
#[test]
fn a_model_named_by_ir_text_alone_is_refused_by_name() {
    let k = plain(&asm_rotl(), &[("BLOCK", 64)]);
    let verified = rtriton::verify::verify(parse(&print(&k)).expect("parses")).expect("verifies");
    let mut mem = Memory::new();
    let bufs: Vec<u64> = (0..3).map(|_| mem.alloc_bytes(&[0u8; 256])).collect();
    let mut args: Vec<ArgValue> = bufs.into_iter().map(ArgValue::Ptr).collect();
    args.push(ArgValue::Int(64));
    let err = rtriton::interp::run(&verified, [1, 1, 1], &args, &mut mem).expect_err("no function");
    assert_eq!(err.diagnostic().code, Code::InterpInlineAsmNoModel);
    assert!(err.to_string().contains("names the CPU model `rotl`"), "{err}");
}

kernel! {
    /// Each asm call in a body broken one way (`WHICH` picks it).
    fn asm_broken(x_ptr: Ptr<i32>, y_ptr: Ptr<i32>; const WHICH: usize) {
        let offs = arange(0, 16);
        let x = load(x_ptr + offs, None, None);
        let y = match WHICH {
            0 => inline_asm_elementwise::<i32>("mov.b32 $0, $1;", "=r", x, true, 1),
            1 => inline_asm_elementwise::<i32>("mov.b32 $0, $1;", "=r,h", x, true, 1),
            2 => inline_asm_elementwise::<i32>("mov.b32 $0, $2;", "=r,r", x, true, 1),
            3 => inline_asm_elementwise::<i32>("mov.b32 $0, $1;", "=r,r", x, true, 3),
            4 => inline_asm_elementwise::<i32>("mov.b32 $0, $1;", "=r,r", x.lt(0), true, 1),
            5 => inline_asm_elementwise::<i32>("mov.b32 $0, $1;", "=r,0", x, true, 1),
            6 => inline_asm_elementwise::<i32>("mov.b32 $0, $x;", "=r,r", x, true, 1),
            _ => (x + 1).with_model(ROTL),
        };
        store(y_ptr + offs, y, None);
    }
}

/// Each mistake is a located trace error that says what is wrong.
#[test]
fn mistakes_in_the_call_are_located_trace_errors() {
    let expected = [
        "constraints `=r` name 1 outputs and 0 inputs; with pack 1 the results take 1 output registers and the arguments 1 input registers",
        "operand $1 is a 32-bit register (1 element(s) of 32 bits), but its constraint `h` names a 16-bit one (use `r` or `f`)",
        "the asm reads `$2`, but the constraints name only 2 operands",
        "pack 3 is not a power of two from 1 to 16",
        "argument 0 is i1, which no asm register holds",
        "constraint `0` is not one rtriton takes",
        "`$` at byte 12 of the asm is not followed by an operand number",
        "with_model(\"rotl\") on a value inline_asm_elementwise did not compute",
    ];
    for (which, want) in expected.iter().enumerate() {
        let spec = SpecKey::plain(&asm_broken().params);
        let err = CompileSession::new()
            .front_end(&asm_broken(), &[("WHICH", which as i64)], &spec, &TraceOptions::default())
            .expect_err("a broken call");
        let d = &err.diagnostics()[0];
        let text = d.to_string();
        assert_eq!(d.code, Code::TraceRule, "{text}");
        assert!(text.contains(want), "WHICH={which}: {text}");
        let arm = if which == 7 { "_ => (x + 1)".to_string() } else { format!("{which} => inline_asm") };
        let line = include_str!("inline_asm.rs").lines().position(|l| l.contains(&arm)).unwrap() + 1;
        assert!(text.contains(&format!("tests/tests/inline_asm.rs:{line}")), "WHICH={which}: {text}");
    }
}

kernel! {
    /// An unused pure asm and an unused impure one (reading `%clock`).
    fn asm_unused(x_ptr: Ptr<i32>, y_ptr: Ptr<i32>; const BLOCK: usize) {
        let offs = arange(0, BLOCK);
        let x = load(x_ptr + offs, None, None);
        let _pure = inline_asm_elementwise::<i32>("add.s32 $0, $1, 1;", "=r,r", x, true, 1);
        let _clock = inline_asm_elementwise::<i32>("mov.u32 $0, %clock;", "=r", (), false, 1);
        store(y_ptr + offs, x, None);
    }
}

/// Dead-code removal drops a pure asm nobody reads and keeps an impure one, which then
/// reaches the PTX.
#[test]
fn an_unused_pure_asm_is_removed_and_an_impure_one_kept() {
    let k = plain(&asm_unused(), &[("BLOCK", 64)]);
    let text = print(&k);
    assert!(!text.contains("add.s32"), "{text}");
    assert!(text.contains(r#"inline_asm "mov.u32 $0, %clock;", "=r" () impure pack 1 : i32"#), "{text}");
    let ptx = ptx_common::compile_plain(&asm_unused(), &[("BLOCK", 64)], &ptx_common::options(Arch::Sm86, 4))
        .expect("compiles")
        .text;
    assert!(ptx.contains("mov.u32 %r") && ptx.contains(", %clock;"), "{ptx}");
}

// ---------------------------------------------------------------------------------------
// PTX.

fn ptr(i: u64) -> ArgValue {
    ArgValue::Ptr(0x7f00_0000_0000 + (i << 32))
}

kernel! {
    /// An asm that reads memory through a pointer argument (`l`): a load the compiler
    /// cannot see.
    fn asm_ld_nc(x_ptr: Ptr<f32>, y_ptr: Ptr<f32>; const BLOCK: usize) {
        let offs = arange(0, BLOCK);
        let y = inline_asm_elementwise::<f32>("ld.global.nc.f32 $0, [$1];", "=f,l", x_ptr + offs, false, 1);
        store(y_ptr + offs, y, None);
    }
}

/// Every kernel of this file assembles for sm_86 and sm_90 without spills, the asm
/// inside its own `{ }` with the operands replaced by registers.
#[test]
#[cfg_attr(not(has_ptxas), ignore = "needs ptxas on PATH")]
fn the_asm_kernels_assemble_for_sm86_and_sm90() {
    let ptxas = ptx_common::ptxas("inline_asm");
    let n = ArgValue::Int(N as i64);
    let kernels: Vec<(KernelDef, Vec<ArgValue>)> = vec![
        (asm_rotl(), vec![ptr(0), ptr(1), ptr(2), n]),
        (asm_not_i8(), vec![ptr(0), ptr(1), n]),
        (asm_abs_f16(), vec![ptr(0), ptr(1), n]),
        (asm_widen_max(), vec![ptr(0), ptr(1), ptr(2), ptr(3), n]),
        (asm_mul_i16(), vec![ptr(0), ptr(1), ptr(2), n]),
        (asm_nibble_u8(), vec![ptr(0), ptr(1), n]),
        (asm_mulhi_u64(), vec![ptr(0), ptr(1), ArgValue::Int(M), n]),
        (asm_unmodelled(), vec![ptr(0), ptr(1)]),
        (asm_ld_nc(), vec![ptr(0), ptr(1)]),
    ];
    let mut failures = Vec::new();
    for (def, args) in kernels {
        for block in BLOCKS {
            for arch in [Arch::Sm86, Arch::Sm90] {
                let text = ptx_common::compile_def(
                    &def,
                    &[("BLOCK", block)],
                    &args,
                    SpecPolicy::Triton,
                    &ptx_common::options(arch, 4),
                )
                .unwrap_or_else(|e| panic!("{}: {e}", def.name))
                .text;
                if let Err(e) = ptx_common::assembles_without_spills(&ptxas, &text, arch, def.name) {
                    failures.push(e);
                }
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

/// The writer's text: the asm in a scope of its own, one asm line a line, `$N` replaced.
#[test]
fn the_asm_is_printed_in_braces_with_its_operands_replaced() {
    let args = [ptr(0), ptr(1), ptr(2), ptr(3), ArgValue::Int(N as i64)];
    let ptx = ptx_common::compile_def(
        &asm_widen_max(),
        &[("BLOCK", 1024)],
        &args,
        SpecPolicy::Triton,
        &ptx_common::options(Arch::Sm86, 4),
    )
    .expect("compiles")
    .text;
    let at = ptx.find("mov.b32 {tmp0, tmp1, tmp2, tmp3}, %r").unwrap_or_else(|| panic!("{ptx}"));
    let before = &ptx[..at];
    assert!(before.trim_end().ends_with(".reg .b8 tmp<4>;"), "{ptx}");
    assert!(ptx.contains("\t\t// Convert `ai` to float.\n"), "{ptx}");
    // `r` operands are `.b32` registers, which `max.f32` takes as they are.
    assert!(ptx.contains("max.f32 %r") && !ptx.contains('$'), "{ptx}");
    // Eight elements a thread, four a call: two calls each thread.
    assert_eq!(ptx.matches("// Unpack `a` into `ai`.").count(), 2, "{ptx}");
}
