//! `dot` (Triton's `tl.dot`): the front end's rules (every bad shape, rank and dtype mix
//! is a located, coded diagnostic with the fix), the interpreter against an f64 reference
//! within the tolerance `docs/semantics.md` ("dot") states for any back end, and what the
//! PTX back end does with it.

mod ptx_common;

use half::{bf16, f16};
use rstest::rstest;
use rtriton::diag::{Code, HasDiagnostics};
use rtriton::kernel;
use rtriton::prelude::*;
use rtriton::session::CompileSession;
use rtriton::spec::SpecPolicy;
use rtriton::trace::{KernelDef, TraceOptions};
use rtriton_testing::run::gpu::{GpuOptions, run_gpu};
use rtriton_testing::run::{run_interpreter, run_simulator};
use rtriton_testing::{Case, Data, View};

// ---- the kernels ------------------------------------------------------------------------

/// `out = c + a @ b` for row-major `a` (`m x k`), `b` (`k x n`), `c` and `out` (`m x n`),
/// one `BM x BN x BK` tile (`BK` covers the whole `k`): rows, columns and the `k` tail
/// past the sizes are masked (`a` and `b` load 0 there, so they add nothing).
#[allow(clippy::too_many_arguments, non_snake_case)]
fn tile<A: ScalarMarker, C: ScalarMarker>(
    a_ptr: Tensor<Ptr<A>>,
    b_ptr: Tensor<Ptr<A>>,
    c_ptr: Tensor<Ptr<C>>,
    out_ptr: Tensor<Ptr<C>>,
    sizes: [Tensor<i32>; 3],
    zeros: (A::Native, C::Native),
    [BM, BN, BK]: [usize; 3],
    options: DotOptions,
) {
    let [m, n, k] = sizes;
    let rm = expand_dims(arange(0, BM), 1);
    let rn = expand_dims(arange(0, BN), 0);
    let rk_col = expand_dims(arange(0, BK), 0);
    let rk_row = expand_dims(arange(0, BK), 1);
    let a = load(a_ptr + rm * k + rk_col, Some(rm.lt(m) & rk_col.lt(k)), Some(zeros.0));
    let b = load(b_ptr + rk_row * n + rn, Some(rk_row.lt(k) & rn.lt(n)), Some(zeros.0));
    let out_mask = rm.lt(m) & rn.lt(n);
    let c = load(c_ptr + rm * n + rn, Some(out_mask), Some(zeros.1));
    let d = dot_with(a, b, c, options);
    store(out_ptr + rm * n + rn, d, Some(out_mask));
}

fn options(tf32: usize) -> DotOptions {
    let input_precision = if tf32 == 1 { InputPrecision::Tf32 } else { InputPrecision::Ieee };
    DotOptions { input_precision, out_dtype: None }
}

kernel! {
    fn dot_f16(a_ptr: Ptr<f16>, b_ptr: Ptr<f16>, c_ptr: Ptr<f32>, out_ptr: Ptr<f32>, m: i32, n: i32, k: i32;
               const BM: usize, const BN: usize, const BK: usize, const TF32: usize) {
        tile(a_ptr, b_ptr, c_ptr, out_ptr, [m, n, k], (f16::ZERO, 0.0), [BM, BN, BK], options(TF32));
    }
}

kernel! {
    fn dot_bf16(a_ptr: Ptr<bf16>, b_ptr: Ptr<bf16>, c_ptr: Ptr<f32>, out_ptr: Ptr<f32>, m: i32, n: i32, k: i32;
                const BM: usize, const BN: usize, const BK: usize, const TF32: usize) {
        tile(a_ptr, b_ptr, c_ptr, out_ptr, [m, n, k], (bf16::ZERO, 0.0), [BM, BN, BK], options(TF32));
    }
}

kernel! {
    fn dot_f32(a_ptr: Ptr<f32>, b_ptr: Ptr<f32>, c_ptr: Ptr<f32>, out_ptr: Ptr<f32>, m: i32, n: i32, k: i32;
               const BM: usize, const BN: usize, const BK: usize, const TF32: usize) {
        tile(a_ptr, b_ptr, c_ptr, out_ptr, [m, n, k], (0.0, 0.0), [BM, BN, BK], options(TF32));
    }
}

kernel! {
    fn dot_i8(a_ptr: Ptr<i8>, b_ptr: Ptr<i8>, c_ptr: Ptr<i32>, out_ptr: Ptr<i32>, m: i32, n: i32, k: i32;
              const BM: usize, const BN: usize, const BK: usize, const TF32: usize) {
        tile(a_ptr, b_ptr, c_ptr, out_ptr, [m, n, k], (0, 0), [BM, BN, BK], options(TF32));
    }
}

/// [`tile`] of fp8 operands `A` and `B` held as their codes in byte buffers (the harness
/// has no fp8 buffers): loaded as `u8` (masked-off codes 0, which is +0 in both formats),
/// reinterpreted with `to_bitcast`.
#[allow(clippy::too_many_arguments, non_snake_case)]
fn tile_f8<A: ScalarMarker, B: ScalarMarker>(
    a_ptr: Tensor<Ptr<u8>>,
    b_ptr: Tensor<Ptr<u8>>,
    c_ptr: Tensor<Ptr<f32>>,
    out_ptr: Tensor<Ptr<f32>>,
    sizes: [Tensor<i32>; 3],
    [BM, BN, BK]: [usize; 3],
) {
    let [m, n, k] = sizes;
    let rm = expand_dims(arange(0, BM), 1);
    let rn = expand_dims(arange(0, BN), 0);
    let rk_col = expand_dims(arange(0, BK), 0);
    let rk_row = expand_dims(arange(0, BK), 1);
    let a = load(a_ptr + rm * k + rk_col, Some(rm.lt(m) & rk_col.lt(k)), Some(0u8)).to_bitcast::<A>();
    let b = load(b_ptr + rk_row * n + rn, Some(rk_row.lt(k) & rn.lt(n)), Some(0u8)).to_bitcast::<B>();
    let out_mask = rm.lt(m) & rn.lt(n);
    let c = load(c_ptr + rm * n + rn, Some(out_mask), Some(0.0));
    store(out_ptr + rm * n + rn, dot(a, b, c), Some(out_mask));
}

/// The fp8 kernels: `a` and `b` in e4m3, in e5m2, and `a` e4m3 by `b` e5m2.
macro_rules! dot_f8_kernels {
    ($($name:ident: $a:ty, $b:ty;)*) => {$(
        kernel! {
            fn $name(a_ptr: Ptr<u8>, b_ptr: Ptr<u8>, c_ptr: Ptr<f32>, out_ptr: Ptr<f32>, m: i32, n: i32, k: i32;
                     const BM: usize, const BN: usize, const BK: usize, const TF32: usize) {
                let _ = TF32;
                tile_f8::<$a, $b>(a_ptr, b_ptr, c_ptr, out_ptr, [m, n, k], [BM, BN, BK]);
            }
        }
    )*};
}

dot_f8_kernels! {
    dot_e4m3: F8E4M3, F8E4M3;
    dot_e5m2: F8E5M2, F8E5M2;
    dot_e4m3_e5m2: F8E4M3, F8E5M2;
}

/// The operand dtypes a test runs, with the kernel for each.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Kind {
    F16,
    Bf16,
    F32,
    Tf32,
    I8,
    /// fp8 operands: both e4m3, both e5m2, `a` e4m3 by `b` e5m2.
    E4m3,
    E5m2,
    E4m3E5m2,
}

/// Every kind, for the tests that run them all.
const KINDS: [Kind; 8] =
    [Kind::F16, Kind::Bf16, Kind::F32, Kind::Tf32, Kind::I8, Kind::E4m3, Kind::E5m2, Kind::E4m3E5m2];

impl Kind {
    fn def(self) -> KernelDef {
        match self {
            Kind::F16 => dot_f16(),
            Kind::Bf16 => dot_bf16(),
            Kind::F32 | Kind::Tf32 => dot_f32(),
            Kind::I8 => dot_i8(),
            Kind::E4m3 => dot_e4m3(),
            Kind::E5m2 => dot_e5m2(),
            Kind::E4m3E5m2 => dot_e4m3_e5m2(),
        }
    }

    /// The fp8 format of operand `which` (0: `a`, 1: `b`), if the kind has fp8 operands.
    fn fp8(self, which: usize) -> Option<Fp8> {
        match (self, which) {
            (Kind::E4m3, _) | (Kind::E4m3E5m2, 0) => Some(Fp8::E4m3),
            (Kind::E5m2, _) | (Kind::E4m3E5m2, _) => Some(Fp8::E5m2),
            _ => None,
        }
    }

    /// Operand `which` (0: `a`, 1: `b`) of a seeded sequence, as the kernel's input dtype:
    /// floats in (-4, 4) with every mantissa bit used (so f32 products are not exact),
    /// `i8` over its range, fp8 as the nearest codes.
    fn operand(self, which: usize, xs: Vec<f64>) -> Data {
        if let Some(format) = self.fp8(which) {
            return Data::U8(xs.iter().map(|&x| format.encode(x as f32)).collect());
        }
        match self {
            Kind::F16 => Data::F16(xs.iter().map(|&x| f16::from_f64(x)).collect()),
            Kind::Bf16 => Data::BF16(xs.iter().map(|&x| bf16::from_f64(x)).collect()),
            Kind::F32 | Kind::Tf32 => Data::F32(xs.iter().map(|&x| x as f32).collect()),
            Kind::I8 => Data::I8(xs.iter().map(|&x| (x * 32.0) as i8).collect()),
            Kind::E4m3 | Kind::E5m2 | Kind::E4m3E5m2 => unreachable!("fp8 kinds have fp8 operands"),
        }
    }

    fn acc(self, xs: Vec<f64>) -> Data {
        match self {
            Kind::I8 => Data::I32(xs.iter().map(|&x| (x * 1000.0) as i32).collect()),
            _ => Data::F32(xs.iter().map(|&x| x as f32).collect()),
        }
    }
}

/// An fp8 format: the codes the harness's byte buffers hold.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Fp8 {
    E4m3,
    E5m2,
}

impl Fp8 {
    fn encode(self, x: f32) -> u8 {
        match self {
            Fp8::E4m3 => F8E4M3::from_f32(x).to_bits(),
            Fp8::E5m2 => F8E5M2::from_f32(x).to_bits(),
        }
    }

    fn decode(self, code: u8) -> f64 {
        f64::from(match self {
            Fp8::E4m3 => F8E4M3::from_bits(code).to_f32(),
            Fp8::E5m2 => F8E5M2::from_bits(code).to_f32(),
        })
    }
}

/// A seeded sequence in (-4, 4) (a 64-bit LCG: no dependency, the same everywhere).
fn seeded(seed: u64, n: usize) -> Vec<f64> {
    let mut s = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    (0..n)
        .map(|_| {
            s = s.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
            ((s >> 11) as f64 / (1u64 << 53) as f64) * 8.0 - 4.0
        })
        .collect()
}

/// One launch: sizes `[m, n, k]` in tiles `[BM, BN, BK]` (one program).
fn case(kind: Kind, sizes: [usize; 3], tiles: [usize; 3], seed: u64) -> Case {
    let [m, n, k] = sizes;
    let [bm, bn, bk] = tiles;
    let mut c = Case::new(kind.def().name).grid([1, 1, 1]).num_warps(4);
    c.constexprs =
        vec![("BM", bm as i64), ("BN", bn as i64), ("BK", bk as i64), ("TF32", i64::from(kind == Kind::Tf32))];
    let acc = kind.acc(seeded(seed + 2, m * n));
    let zeros = Data::zeros(acc.dtype(), m * n).unwrap();
    c.input("a", kind.operand(0, seeded(seed, m * k)), View::contiguous(&[m * k]))
        .input("b", kind.operand(1, seeded(seed + 1, k * n)), View::contiguous(&[k * n]))
        .input("c", acc, View::contiguous(&[m * n]))
        .output("out", zeros, View::contiguous(&[m * n]))
        .int(m as i64)
        .int(n as i64)
        .int(k as i64)
}

/// Operand `which`'s element `i` as the dot reads it: f16/bf16/i8/fp8 widen exactly; tf32
/// rounds f32 to 10 mantissa bits, ties away from zero (`cvt.rna.tf32.f32`).
fn read(kind: Kind, which: usize, d: &Data, i: usize) -> f64 {
    if let Some(format) = kind.fp8(which) {
        return format.decode(d.bits(i) as u8);
    }
    let x = d.f64_at(i).unwrap();
    if kind == Kind::Tf32 {
        let bits = (x as f32).to_bits();
        f64::from(f32::from_bits((bits + 0x1000) & !0x1FFF))
    } else {
        x
    }
}

// ---- the interpreter against f64 -----------------------------------------------------

/// `docs/semantics.md`'s rule: any order of accumulation is within
/// `(K + 1) * 2^-23 * (|acc| + sum_k |a_mk b_kn|)` of the exact value; the interpreter's
/// order meets it; `i8` is exact.
#[rstest]
fn the_interpreter_is_within_the_stated_tolerance_of_f64(
    #[values(Kind::F16, Kind::Bf16, Kind::F32, Kind::Tf32, Kind::I8, Kind::E4m3, Kind::E5m2, Kind::E4m3E5m2)]
    kind: Kind,
    #[values([16, 16, 16], [32, 16, 64], [64, 64, 32], [13, 29, 40])] sizes: [usize; 3],
) {
    let tiles = sizes.map(|d| d.next_power_of_two().max(16));
    let c = case(kind, sizes, tiles, 7);
    let got = run_interpreter(&kind.def(), &c, SpecPolicy::Triton).unwrap_or_else(|e| panic!("{e}"));
    within_the_rule(kind, &c, sizes, &got.buffers[0].1).unwrap_or_else(|e| panic!("{e}"));
}

/// Whether `out` (the `m x n` result of `case`) is within `docs/semantics.md`'s rule of
/// the exact value; `i8` must be exact. The first element that is not, as an error.
/// A case without a `c` accumulates from zero.
fn within_the_rule(kind: Kind, case: &Case, sizes: [usize; 3], out: &Data) -> Result<(), String> {
    let (a, b) = (&case.tensor("a").data, &case.tensor("b").data);
    let acc = case.tensors().find(|t| t.name == "c").map(|t| &t.data);
    let [m, n, k] = sizes;
    for i in 0..m {
        for j in 0..n {
            let e = i * n + j;
            let mut exact = acc.map_or(0.0, |acc| acc.f64_at(e).unwrap());
            let mut magnitude = exact.abs();
            for kk in 0..k {
                let p = read(kind, 0, a, i * k + kk) * read(kind, 1, b, kk * n + j);
                exact += p;
                magnitude += p.abs();
            }
            let g = out.f64_at(e).unwrap();
            let tol = if kind == Kind::I8 { 0.0 } else { (k as f64 + 1.0) * 2f64.powi(-23) * magnitude };
            if (g - exact).abs() > tol || g.is_nan() {
                return Err(format!("{kind:?} {sizes:?} at ({i}, {j}): {g} vs {exact} (tolerance {tol})"));
            }
        }
    }
    Ok(())
}

/// The interpreter's result bit for bit against the documented order computed here in
/// plain Rust: for each element, `acc = fma(a, b, acc)` for `k = 0, 1, ..., K - 1`.
#[rstest]
fn the_interpreter_follows_the_documented_order_bit_for_bit(
    #[values(Kind::F16, Kind::Bf16, Kind::F32, Kind::Tf32, Kind::E4m3, Kind::E5m2, Kind::E4m3E5m2)] kind: Kind,
) {
    let sizes = [16, 32, 64];
    let c = case(kind, sizes, sizes, 11);
    let got = run_interpreter(&kind.def(), &c, SpecPolicy::Triton).unwrap_or_else(|e| panic!("{e}"));
    let out = &got.buffers[0].1;
    let (a, b, acc) = (&c.tensor("a").data, &c.tensor("b").data, &c.tensor("c").data);
    let [m, n, k] = sizes;
    for i in 0..m {
        for j in 0..n {
            let mut s = acc.f64_at(i * n + j).unwrap() as f32;
            for kk in 0..k {
                s = (read(kind, 0, a, i * k + kk) as f32).mul_add(read(kind, 1, b, kk * n + j) as f32, s);
            }
            assert_eq!(out.f64_at(i * n + j).unwrap() as f32, s, "{kind:?} at ({i}, {j})");
        }
    }
}

// ---- bad input: located diagnostics ---------------------------------------------------

kernel! {
    fn bad_dots(x_ptr: Ptr<f32>, h_ptr: Ptr<f16>, g_ptr: Ptr<bf16>, q_ptr: Ptr<i8>, i_ptr: Ptr<i32>;
                const CASE: usize) {
        let r16 = arange(0, 16);
        let r32 = arange(0, 32);
        let r8 = arange(0, 8);
        let sq = expand_dims(r16, 1) * 16 + expand_dims(r16, 0); // [16, 16]
        let wide = expand_dims(r16, 1) * 32 + expand_dims(r32, 0); // [16, 32]
        let small = expand_dims(r8, 1) * 16 + expand_dims(r16, 0); // [8, 16]
        let f = load(x_ptr + sq, None, None);
        let acc = zeros::<f32>(&[16, 16]);
        let out = match CASE {
            0 => dot(load(x_ptr + wide, None, None), load(x_ptr + wide, None, None), zeros::<f32>(&[16, 32])), // bad: K mismatch
            1 => dot(load(x_ptr + small, None, None), f, zeros::<f32>(&[8, 16])), // bad: M of 8
            2 => dot(load(h_ptr + sq, None, None), load(g_ptr + sq, None, None), acc), // bad: f16 with bf16
            3 => dot(load(x_ptr + r16, None, None), f, acc), // bad: a 1-D operand
            4 => dot(f, f, zeros::<f32>(&[16, 32])), // bad: accumulator shape
            5 => dot(load(h_ptr + sq, None, None), load(h_ptr + sq, None, None), load(h_ptr + sq, None, None).to::<f32>().to::<f64>()).to::<f32>(), // bad: f64 accumulator
            6 => dot(load(q_ptr + sq, None, None), load(q_ptr + sq, None, None), zeros::<f32>(&[16, 16])), // bad: i8 into f32
            7 => dot(load(i_ptr + sq, None, None), load(i_ptr + sq, None, None), zeros::<i32>(&[16, 16])).to::<f32>(), // bad: i32 operands
            8 => dot_with(load(h_ptr + sq, None, None), load(h_ptr + sq, None, None), acc, DotOptions { input_precision: InputPrecision::Tf32, out_dtype: None }), // bad: tf32 of f16
            9 => dot_with(f, f, acc, DotOptions { out_dtype: Some(rtriton::ir::DType::Scalar(rtriton::ir::ScalarType::F16)), ..Default::default() }), // bad: out_dtype f16
            10 => dot(load(h_ptr + sq, None, None).to::<F8E4M3>(), load(h_ptr + sq, None, None), acc), // bad: fp8 with f16
            11 => dot(load(h_ptr + sq, None, None).to::<F8E5M2>(), load(h_ptr + sq, None, None).to::<F8E4M3>(), zeros::<i32>(&[16, 16])).to::<f32>(), // bad: fp8 into i32
            _ => dot(f, f, acc),
        };
        // A scalar, so the store fits whatever shape an erroneous dot hands back.
        store(x_ptr, sum(sum(out, 1), 0), None);
    }
}

/// The line of this file that ends with `marker` (so the expectations follow edits).
fn line_of(marker: &str) -> u32 {
    let src = include_str!("dot.rs");
    let hits: Vec<usize> = src.lines().enumerate().filter(|(_, l)| l.ends_with(marker)).map(|(i, _)| i + 1).collect();
    assert_eq!(hits.len(), 1, "one line ends with {marker:?}");
    hits[0] as u32
}

#[rstest]
#[case::k_mismatch(
    0,
    Code::TraceDotShape,
    "// bad: K mismatch",
    "dot of shapes [16, 32] and [16, 32]: the inner dims differ (32 and 16)",
    "the columns of the first"
)]
#[case::m_of_8(
    1,
    Code::TraceDotShape,
    "// bad: M of 8",
    "dot of shapes [8, 16] and [16, 16]: M = 8 is not a power of two of at least 16",
    "at least 16"
)]
#[case::f16_with_bf16(
    2,
    Code::TraceDotDType,
    "// bad: f16 with bf16",
    "dot operands of two dtypes, f16 and bf16",
    "convert one operand"
)]
#[case::one_d_operand(
    3,
    Code::TraceDotShape,
    "// bad: a 1-D operand",
    "dot takes 2-D blocks, got shapes [16] and [16, 16]",
    "2-D blocks"
)]
#[case::accumulator_shape(
    4,
    Code::TraceDotShape,
    "// bad: accumulator shape",
    "dot of shapes [16, 16] and [16, 16] with an accumulator of shape [16, 32]",
    "[16, 16]"
)]
#[case::f64_accumulator(
    5,
    Code::TraceDotDType,
    "// bad: f64 accumulator",
    "dot of f16 by f16 accumulates in f32, got an accumulator of f64",
    "make the accumulator f32"
)]
#[case::i8_into_f32(
    6,
    Code::TraceDotDType,
    "// bad: i8 into f32",
    "dot of i8 by i8 accumulates in i32, got an accumulator of f32",
    "make the accumulator i32"
)]
#[case::i32_operands(7, Code::TraceDotDType, "// bad: i32 operands", "dot is not defined on i32", "convert them")]
#[case::tf32_of_f16(
    8,
    Code::TraceDotDType,
    "// bad: tf32 of f16",
    "dot with input_precision tf32 of f16 operands",
    "default"
)]
#[case::out_dtype_f16(
    9,
    Code::TraceDotDType,
    "// bad: out_dtype f16",
    "dot of f32 by f32 with out_dtype f16: it accumulates in f32",
    "leave out_dtype unset"
)]
#[case::fp8_with_f16(
    10,
    Code::TraceDotDType,
    "// bad: fp8 with f16",
    "dot operands of two dtypes, fp8e4nv and f16",
    "only two fp8 formats mix"
)]
#[case::fp8_into_i32(
    11,
    Code::TraceDotDType,
    "// bad: fp8 into i32",
    "dot of fp8e5 by fp8e4nv accumulates in f32, got an accumulator of i32",
    "make the accumulator f32"
)]
fn bad_dots_are_located_errors(
    #[case] case: i64,
    #[case] code: Code,
    #[case] marker: &str,
    #[case] message: &str,
    #[case] help: &str,
) {
    let def = bad_dots();
    let err = CompileSession::new()
        .front_end(&def, &[("CASE", case)], &rtriton::spec::SpecKey::plain(&def.params), &TraceOptions::default())
        .expect_err("the kernel must be refused");
    let ds = err.diagnostics();
    assert_eq!(ds.len(), 1, "one diagnostic: {err}");
    let d = &ds[0];
    assert_eq!(d.code, code, "{d:#}");
    let loc = d.loc.expect("located");
    assert_eq!((loc.file.ends_with("tests/tests/dot.rs"), loc.line), (true, line_of(marker)), "{d:#}");
    assert!(d.message.starts_with(message), "{d:#}");
    assert!(d.help.contains(help), "{d:#}");
    assert_eq!(d.kernel, "bad_dots");
}

/// The well-formed case of `bad_dots` traces and verifies (so each bad case is refused
/// for its own reason, not for the kernel around it).
#[test]
fn the_good_case_of_the_table_traces() {
    let def = bad_dots();
    CompileSession::new()
        .front_end(&def, &[("CASE", 100)], &rtriton::spec::SpecKey::plain(&def.params), &TraceOptions::default())
        .unwrap_or_else(|e| panic!("{e}"));
}

// ---- the PTX back end -----------------------------------------------------------------

/// Every dtype, shapes 16 to 64 per dim, masked tails: the simulator runs the lowered
/// program and must give the interpreter's bits (the lowering accumulates in the
/// documented order), with every simulator check on.
#[rstest]
fn the_simulator_matches_the_interpreter_bit_for_bit(
    #[values(Kind::F16, Kind::Bf16, Kind::F32, Kind::Tf32, Kind::I8, Kind::E4m3, Kind::E5m2, Kind::E4m3E5m2)]
    kind: Kind,
    #[values([16, 16, 16], [64, 16, 32], [16, 64, 64], [29, 13, 40])] sizes: [usize; 3],
    #[values(1, 4)] num_warps: u32,
) {
    let tiles = sizes.map(|d| d.next_power_of_two().max(16));
    let c = case(kind, sizes, tiles, 3).num_warps(num_warps);
    let want = run_interpreter(&kind.def(), &c, SpecPolicy::Triton).unwrap_or_else(|e| panic!("{e}"));
    let got = run_simulator(&kind.def(), &c, SpecPolicy::Triton)
        .unwrap_or_else(|e| panic!("{kind:?} {sizes:?} num_warps {num_warps}: {e}"));
    assert_eq!(
        got.buffers[0].1.to_le_bytes(),
        want.buffers[0].1.to_le_bytes(),
        "{kind:?} {sizes:?} num_warps {num_warps}"
    );
}

/// A tile whose accumulators need more registers per thread than the budget is refused
/// with the register-budget diagnostic before anything runs, never spilled.
#[test]
fn an_accumulator_over_the_register_budget_is_refused() {
    // 128 x 128 f32 accumulators on one warp: 512 a thread.
    let c = case(Kind::F16, [128, 128, 16], [128, 128, 16], 5).num_warps(1);
    let e = run_simulator(&Kind::F16.def(), &c, SpecPolicy::Triton).expect_err("over the budget");
    assert!(e.has_code(Code::PtxRegisterBudget), "{e}");
}

/// The PTX of every lowered dtype, tiles 16 to 64, assembles for sm_86 and sm_90 with no
/// spills. `f16`, `bf16` and `tf32` run on tensor cores (`mma.sync`, the 16-bit operands
/// through `ldmatrix`), as does `i8` where `K` is a multiple of 32; `ieee` `f32` is
/// `fma.rn.f32` (and `i8` with `K = 16` `mul.lo.s32`); the operands come from shared
/// memory after a barrier.
#[test]
#[cfg_attr(not(has_ptxas), ignore = "needs ptxas on PATH")]
fn dot_kernels_assemble_without_spills() {
    let ptxas = ptx_common::ptxas("dot_kernels_assemble_without_spills");
    for kind in KINDS {
        for (tiles, num_warps) in [([16, 16, 16], 1), ([64, 64, 32], 4), ([32, 64, 64], 4), ([64, 64, 64], 8)] {
            let [bm, bn, bk] = tiles;
            let tf32 = i64::from(kind == Kind::Tf32);
            let constexprs = [("BM", bm as i64), ("BN", bn as i64), ("BK", bk as i64), ("TF32", tf32)];
            for arch in [rtriton::backend::ptx::Arch::Sm86, rtriton::backend::ptx::Arch::Sm90] {
                let def = kind.def();
                let ptx = ptx_common::compile_plain(&def, &constexprs, &ptx_common::options(arch, num_warps))
                    .unwrap_or_else(|e| panic!("{kind:?} {tiles:?}: {e}"));
                let text = &ptx.text;
                let insts: &[&str] = match kind {
                    Kind::F16 | Kind::Bf16 => {
                        &["mma.sync.aligned.m16n8k16", "ldmatrix.sync.aligned.m8n8.x4.shared.b16"]
                    }
                    // widened to f16 in registers, multiplied as f16
                    Kind::E4m3 | Kind::E5m2 | Kind::E4m3E5m2 => &["mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32"],
                    Kind::Tf32 => &["mma.sync.aligned.m16n8k8", "cvt.rna.tf32.f32"],
                    Kind::I8 if bk % 32 == 0 => &["mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32"],
                    Kind::I8 => &["mul.lo.s32"],
                    Kind::F32 => &["fma.rn.f32"],
                };
                for inst in insts {
                    assert!(text.contains(inst), "{kind:?} {tiles:?}: no {inst}\n{text}");
                }
                let reads = text.contains("ld.shared") || text.contains("ldmatrix");
                assert!(reads && text.contains("bar.sync"), "{kind:?}\n{text}");
                let info = ptx_common::assemble(&ptxas, text, &arch.to_string(), def.name)
                    .unwrap_or_else(|e| panic!("{kind:?} {tiles:?} on {arch}: {e}\n{text}"));
                assert_eq!(ptx_common::spill_stores(&info), Some(0), "{kind:?} {tiles:?} on {arch}: {info}");
            }
        }
    }
}

// ---- a tiled matmul: dot in a K loop, the accumulator carried -------------------------

/// Triton tutorial 03's shape without its grouping: program `(pid_m, pid_n)` computes a
/// `BM x BN` tile of `out = a @ b`, `k` in steps of `BK` with the accumulator carried
/// through the loop; every edge masked.
#[allow(clippy::too_many_arguments, non_snake_case)]
fn matmul<A: ScalarMarker, C: ScalarMarker>(
    a_ptr: Tensor<Ptr<A>>,
    b_ptr: Tensor<Ptr<A>>,
    out_ptr: Tensor<Ptr<C>>,
    sizes: [Tensor<i32>; 3],
    zero: A::Native,
    [BM, BN, BK]: [usize; 3],
) {
    let [m, n, k] = sizes;
    let rm = expand_dims(program_id(0) * BM as i32 + arange(0, BM), 1);
    let rn = expand_dims(program_id(1) * BN as i32 + arange(0, BN), 0);
    let rk_col = expand_dims(arange(0, BK), 0);
    let rk_row = expand_dims(arange(0, BK), 1);
    let acc = zeros::<C>(&[BM, BN]);
    let acc = for_range(0, k, BK as i32, acc, |k0, acc| {
        let ka = k0 + rk_col;
        let kb = k0 + rk_row;
        let a = load(a_ptr + rm * k + ka, Some(rm.lt(m) & ka.lt(k)), Some(zero));
        let b = load(b_ptr + kb * n + rn, Some(kb.lt(k) & rn.lt(n)), Some(zero));
        dot(a, b, acc)
    });
    store(out_ptr + rm * n + rn, acc, Some(rm.lt(m) & rn.lt(n)));
}

kernel! {
    fn matmul_f16(a_ptr: Ptr<f16>, b_ptr: Ptr<f16>, out_ptr: Ptr<f32>, m: i32, n: i32, k: i32;
                  const BM: usize, const BN: usize, const BK: usize) {
        matmul(a_ptr, b_ptr, out_ptr, [m, n, k], f16::ZERO, [BM, BN, BK]);
    }
}

kernel! {
    fn matmul_f32(a_ptr: Ptr<f32>, b_ptr: Ptr<f32>, out_ptr: Ptr<f32>, m: i32, n: i32, k: i32;
                  const BM: usize, const BN: usize, const BK: usize) {
        matmul(a_ptr, b_ptr, out_ptr, [m, n, k], 0.0, [BM, BN, BK]);
    }
}

kernel! {
    fn matmul_i8(a_ptr: Ptr<i8>, b_ptr: Ptr<i8>, out_ptr: Ptr<i32>, m: i32, n: i32, k: i32;
                 const BM: usize, const BN: usize, const BK: usize) {
        matmul(a_ptr, b_ptr, out_ptr, [m, n, k], 0, [BM, BN, BK]);
    }
}

/// The tiled matmul on several programs and K steps: the simulator gives the
/// interpreter's bits, and the interpreter is within the stated tolerance of f64.
#[rstest]
fn a_tiled_matmul_with_a_carried_accumulator_matches(
    #[values(Kind::F16, Kind::F32, Kind::I8)] kind: Kind,
    #[values(([40, 48, 72], [32, 16, 16]), ([16, 64, 64], [16, 32, 32]), ([33, 17, 50], [16, 16, 32]))] shape: (
        [usize; 3],
        [usize; 3],
    ),
    #[values(1, 4)] num_warps: u32,
) {
    let ([m, n, k], [bm, bn, bk]) = shape;
    let def = match kind {
        Kind::F16 => matmul_f16(),
        Kind::I8 => matmul_i8(),
        _ => matmul_f32(),
    };
    let grid = [m.div_ceil(bm) as u32, n.div_ceil(bn) as u32, 1];
    let acc = kind.acc(vec![0.0; m * n]);
    let mut c = Case::new(def.name).grid(grid).num_warps(num_warps);
    c.constexprs = vec![("BM", bm as i64), ("BN", bn as i64), ("BK", bk as i64)];
    let c = c
        .input("a", kind.operand(0, seeded(21, m * k)), View::contiguous(&[m * k]))
        .input("b", kind.operand(1, seeded(22, k * n)), View::contiguous(&[k * n]))
        .output("out", acc, View::contiguous(&[m * n]))
        .int(m as i64)
        .int(n as i64)
        .int(k as i64);
    let want = run_interpreter(&def, &c, SpecPolicy::Triton).unwrap_or_else(|e| panic!("{e}"));
    let got = run_simulator(&def, &c, SpecPolicy::Triton).unwrap_or_else(|e| panic!("{kind:?} {shape:?}: {e}"));
    assert_eq!(got.buffers[0].1.to_le_bytes(), want.buffers[0].1.to_le_bytes(), "{kind:?} {shape:?}");
    let (a, b, out) = (&c.tensor("a").data, &c.tensor("b").data, &want.buffers[0].1);
    for i in 0..m {
        for j in 0..n {
            let (mut exact, mut magnitude) = (0.0f64, 0.0f64);
            for kk in 0..k {
                let p = read(kind, 0, a, i * k + kk) * read(kind, 1, b, kk * n + j);
                exact += p;
                magnitude += p.abs();
            }
            let tol = (k as f64 + 1.0) * 2f64.powi(-23) * magnitude;
            let g = out.f64_at(i * n + j).unwrap();
            assert!((g - exact).abs() <= tol, "{kind:?} at ({i}, {j}): {g} vs {exact}");
        }
    }
}

/// With the accumulator a constant, the loop-carried `128 x 128` block is still refused
/// (every block's registers are checked before lowering), naming the count.
#[test]
fn a_constant_accumulator_over_the_budget_is_refused_too() {
    let (m, n, k) = (128usize, 128usize, 16usize);
    let mut c = Case::new("matmul_f16").grid([1, 1, 1]).num_warps(1);
    c.constexprs = vec![("BM", 128), ("BN", 128), ("BK", 16)];
    let c = c
        .input("a", Kind::F16.operand(0, seeded(1, m * k)), View::contiguous(&[m * k]))
        .input("b", Kind::F16.operand(1, seeded(2, k * n)), View::contiguous(&[k * n]))
        .output("out", Data::F32(vec![0.0; m * n]), View::contiguous(&[m * n]))
        .int(m as i64)
        .int(n as i64)
        .int(k as i64);
    let e = run_simulator(&matmul_f16(), &c, SpecPolicy::Triton).expect_err("over the budget");
    assert!(e.has_code(Code::PtxRegisterBudget), "{e}");
    assert!(e.to_string().contains("tensor<128x128xf32> needs 512 registers per thread"), "{e}");
}

/// Golden PTX of the smallest tile (`f16`, 16 x 16 x 16, 4 warps, sm_86): the staging of
/// `a` and `b` through shared memory, the barriers and the `k` order of the `fma`s are
/// what a review of a change here should see. Regenerate with `INSTA_UPDATE=always`.
#[test]
fn golden_ptx_of_a_16x16x16_f16_dot() {
    let constexprs = [("BM", 16), ("BN", 16), ("BK", 16), ("TF32", 0)];
    let ptx =
        ptx_common::compile_plain(&dot_f16(), &constexprs, &ptx_common::options(rtriton::backend::ptx::Arch::Sm86, 4))
            .unwrap_or_else(|e| panic!("{e}"));
    insta::assert_snapshot!("dot_f16_16x16x16_sm_86", ptx.text);
}

// ---- the GPU ----------------------------------------------------------------------------

/// On the GPU: `ieee` `f32` on CUDA cores and `i8` give the interpreter's bits; `f16`,
/// `bf16` and `tf32` on tensor cores (whose adders round in their own order) are within
/// `docs/semantics.md`'s rule of the exact result (one tile with masked tails; a tiled
/// matmul over several programs).
#[test]
#[ignore = "needs a GPU"]
fn the_gpu_matches_the_interpreter_or_the_rule() {
    let mut failures = Vec::new();
    for kind in KINDS {
        for (sizes, num_warps) in [([16, 16, 16], 1), ([64, 64, 64], 4), ([29, 13, 40], 4), ([64, 32, 16], 8)] {
            let tiles = sizes.map(|d: usize| d.next_power_of_two().max(16));
            let c = case(kind, sizes, tiles, 9).num_warps(num_warps);
            let want = run_interpreter(&kind.def(), &c, SpecPolicy::Triton).unwrap_or_else(|e| panic!("{e}"));
            let got = run_gpu(&kind.def(), &c, SpecPolicy::Triton, GpuOptions::default())
                .unwrap_or_else(|e| panic!("{kind:?} {sizes:?}: {e}"));
            let out = &got.buffers[0].1;
            if matches!(kind, Kind::F32 | Kind::I8) {
                if out.to_le_bytes() != want.buffers[0].1.to_le_bytes() {
                    failures.push(format!("{kind:?} {sizes:?} num_warps {num_warps}: not the interpreter's bits"));
                }
            } else if let Err(e) = within_the_rule(kind, &c, sizes, out) {
                failures.push(format!("num_warps {num_warps}: {e}"));
            }
        }
    }
    for (kind, def) in [(Kind::F16, matmul_f16()), (Kind::F32, matmul_f32()), (Kind::I8, matmul_i8())] {
        let ([m, n, k], [bm, bn, bk]) = ([200usize, 136usize, 300usize], [64usize, 32usize, 32usize]);
        let mut c = Case::new(def.name).grid([m.div_ceil(bm) as u32, n.div_ceil(bn) as u32, 1]).num_warps(4);
        c.constexprs = vec![("BM", bm as i64), ("BN", bn as i64), ("BK", bk as i64)];
        let c = c
            .input("a", kind.operand(0, seeded(31, m * k)), View::contiguous(&[m * k]))
            .input("b", kind.operand(1, seeded(32, k * n)), View::contiguous(&[k * n]))
            .output("out", kind.acc(vec![0.0; m * n]), View::contiguous(&[m * n]))
            .int(m as i64)
            .int(n as i64)
            .int(k as i64);
        let want = run_interpreter(&def, &c, SpecPolicy::Triton).unwrap_or_else(|e| panic!("{e}"));
        let got = run_gpu(&def, &c, SpecPolicy::Triton, GpuOptions::default()).unwrap_or_else(|e| panic!("{e}"));
        let out = &got.buffers[0].1;
        if kind == Kind::F16 {
            if let Err(e) = within_the_rule(kind, &c, [m, n, k], out) {
                failures.push(format!("matmul: {e}"));
            }
        } else if out.to_le_bytes() != want.buffers[0].1.to_le_bytes() {
            failures.push(format!("matmul {kind:?}: not the interpreter's bits"));
        }
    }
    assert!(failures.is_empty(), "the GPU differs from the interpreter: {failures:?}");
}

/// Operands that do not fit the CTA's shared memory on sm_86 together (`f32` `128 x 128`
/// and `128 x 128`, padded: 132 KB, past 99 KiB) are refused before anything runs.
#[test]
fn operands_past_the_shared_memory_are_refused() {
    let c = case(Kind::F32, [128, 128, 128], [128, 128, 128], 4).num_warps(8);
    let e = run_simulator(&Kind::F32.def(), &c, SpecPolicy::Triton).expect_err("past the shared memory");
    assert!(e.has_code(Code::PtxLayoutConflict), "{e}");
    assert!(e.to_string().contains("`dot` moves"), "{e}");
}
