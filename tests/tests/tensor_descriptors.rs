//! Tensor descriptors (Triton's `tl.make_tensor_descriptor`, `desc.load`, `desc.store`):
//! blocks of a 37 x 53 tensor (a multiple of 16 along neither dim) copied, read hanging
//! off every edge with zero and NaN padding, and multiplied in a staged K loop, on the
//! interpreter and the simulator against plain Rust, bit for bit (the simulator reports
//! any access outside a buffer, so a pass proves the padded elements were not read nor
//! the outside ones written); a 3-D descriptor; the last stride's rule under Triton's
//! specialization; the atomics; every bad input a located `RT0112`; the PTX through ptxas.

mod ptx_common;

use half::f16;
use rstest::rstest;
use rtriton::diag::{Code, HasDiagnostics};
use rtriton::kernel;
use rtriton::prelude::*;
use rtriton::session::CompileSession;
use rtriton::spec::{ArgValue, SpecKey, SpecPolicy};
use rtriton::trace::{KernelDef, TraceOptions};
use rtriton_testing::run::gpu::{GpuOptions, run_gpu};
use rtriton_testing::run::{Outputs, run_interpreter, run_simulator};
use rtriton_testing::{Case, Data, View};

const M: usize = 37;
const N: usize = 53;

// ---- the kernels ------------------------------------------------------------------------

kernel! {
    /// `y = 2 x` block by block through two descriptors: program `(i, j)` reads the `BM x
    /// BN` block of `x` at `(i BM, j BN)` and writes it, doubled, at the same place of `y`
    /// (row-major, 37 x 53 like `x`, whose rows are `stride_xm` apart).
    fn scale_blocks(x: Ptr<f32>, y: Ptr<f32>, m: i32, n: i32, stride_xm: i32, stride_xn: i32;
                    const BM: usize, const BN: usize) {
        let src = make_tensor_descriptor(x, (m, n), (stride_xm, stride_xn), &[BM, BN]);
        let dst = make_tensor_descriptor(y, (m, n), (n, 1), &[BM, BN]);
        let at = (program_id(0) * BM as i32, program_id(1) * BN as i32);
        dst.store(at, src.load(at) * 2.0);
    }
}

kernel! {
    /// The `BM x BN` block of `x` at `(row0, col0)`, anywhere, padded with zeros (`NAN` 0)
    /// or NaN (`NAN` 1), stored whole into the row-major `BM x BN` `out`.
    fn window(x: Ptr<f32>, out: Ptr<f32>, m: i32, n: i32, stride_xm: i32, row0: i32, col0: i32;
              const BM: usize, const BN: usize, const NAN: usize) {
        let padding = if NAN == 1 { Padding::Nan } else { Padding::Zero };
        let src = make_tensor_descriptor_with(x, (m, n), (stride_xm, 1), &[BM, BN], padding);
        let dst = make_tensor_descriptor(out, (BM as i32, BN as i32), (BN as i32, 1), &[BM, BN]);
        store_tensor_descriptor(&dst, (0, 0), load_tensor_descriptor(&src, (row0, col0)));
    }
}

kernel! {
    /// `y[b] = x[b]` for a `D0 x 37 x 53` tensor as one 3-D descriptor: program `(i, j, b)`
    /// copies block `(b, i BM, j BN)` of shape `[1, BM, BN]`.
    fn copy_3d(x: Ptr<f32>, y: Ptr<f32>, d0: i32, m: i32, n: i32; const BM: usize, const BN: usize) {
        let src = make_tensor_descriptor(x, (d0, m, n), (m * n, n, 1), &[1, BM, BN]);
        let dst = make_tensor_descriptor(y, (d0, m, n), (m * n, n, 1), &[1, BM, BN]);
        let at = (program_id(2), program_id(0) * BM as i32, program_id(1) * BN as i32);
        dst.store(at, src.load(at));
    }
}

kernel! {
    /// `c = a @ b` (`f16` in, `f32` out) in `BM x BN` tiles, `k` in steps of `BK`, the
    /// descriptors made once and loaded at moving offsets in a two-stage loop.
    fn matmul_f16(a: Ptr<f16>, b: Ptr<f16>, c: Ptr<f32>, m: i32, n: i32, k: i32,
                  stride_am: i32, stride_bk: i32; const BM: usize, const BN: usize, const BK: usize) {
        let (row0, col0) = (program_id(0) * BM as i32, program_id(1) * BN as i32);
        let a_desc = make_tensor_descriptor(a, (m, k), (stride_am, 1), &[BM, BK]);
        let b_desc = make_tensor_descriptor(b, (k, n), (stride_bk, 1), &[BK, BN]);
        let acc = for_range_staged(0, cdiv(k, BK as i32), 1, 2, zeros::<f32>(&[BM, BN]), |i, acc| {
            let kk = i * BK as i32;
            dot(a_desc.load((row0, kk)), b_desc.load((kk, col0)), acc)
        });
        let c_desc = make_tensor_descriptor(c, (m, n), (n, 1), &[BM, BN]);
        c_desc.store((row0, col0), acc);
    }
}

// ---- data and references ----------------------------------------------------------------

/// A seeded sequence in (-4, 4) with every mantissa bit used (a 64-bit LCG).
fn seeded(seed: u64, len: usize) -> Vec<f64> {
    let mut s = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    (0..len)
        .map(|_| {
            s = s.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
            ((s >> 11) as f64 / (1u64 << 53) as f64) * 8.0 - 4.0
        })
        .collect()
}

fn f32s(values: &[f64]) -> Vec<f32> {
    values.iter().map(|&v| v as f32).collect()
}

fn output<'a>(outputs: &'a Outputs, name: &str) -> &'a [f32] {
    match outputs.buffers.iter().find(|(n, _)| *n == name) {
        Some((_, Data::F32(v))) => v,
        other => panic!("no f32 output {name}: {other:?}"),
    }
}

/// Runs `case` on the interpreter and the simulator; both must succeed and give the
/// same bits in every output.
fn run_both(def: &KernelDef, case: &Case) -> Outputs {
    let want = run_interpreter(def, case, SpecPolicy::Triton).unwrap_or_else(|e| panic!("interpreter: {e}"));
    let got = run_simulator(def, case, SpecPolicy::Triton).unwrap_or_else(|e| panic!("simulator: {e}"));
    for ((name, w), (_, g)) in want.buffers.iter().zip(&got.buffers) {
        assert_eq!(g.to_le_bytes(), w.to_le_bytes(), "{name}: the simulator differs from the interpreter");
    }
    want
}

/// `x` with its rows `row_stride >= N` apart (the gaps hold -7.0, never read).
fn padded_rows(values: &[f32], row_stride: usize) -> (Data, View) {
    let mut buf = vec![-7.0f32; (M - 1) * row_stride + N];
    for i in 0..M {
        buf[i * row_stride..i * row_stride + N].copy_from_slice(&values[i * N..(i + 1) * N]);
    }
    (Data::F32(buf), View::strided(&[M, N], &[row_stride as isize, 1]))
}

// ---- copies and windows -----------------------------------------------------------------

fn scale_case(x: &[f32], row_stride: usize, [bm, bn]: [usize; 2]) -> Case {
    let (data, view) = padded_rows(x, row_stride);
    Case::new("scale_blocks")
        .grid([M.div_ceil(bm) as u32, N.div_ceil(bn) as u32, 1])
        .constexpr("BM", bm as i64)
        .constexpr("BN", bn as i64)
        .input("x", data, view)
        .output("y", Data::F32(vec![-1.0; M * N]), View::contiguous(&[M, N]))
        .arg("m", M as i64)
        .arg("n", N as i64)
        .arg("stride_xm", row_stride as i64)
        .arg("stride_xn", 1)
}

/// Every block of the tensor, the last row and column of blocks partial, read and
/// written through descriptors: `y` is `2 x` exactly, nothing outside either tensor read
/// or written (rows of `x` 53 or 64 elements apart; blocks of 4 floats, the fewest 16
/// bytes allow, to 64 x 64).
#[rstest]
fn blocks_through_descriptors_are_exact(
    #[values(53, 64)] row_stride: usize,
    #[values([16, 16], [8, 4], [64, 64])] block: [usize; 2],
) {
    let x = f32s(&seeded(1, M * N));
    let out = run_both(&scale_blocks(), &scale_case(&x, row_stride, block));
    let y = output(&out, "y");
    for e in 0..M * N {
        assert_eq!(y[e].to_bits(), (x[e] * 2.0).to_bits(), "({}, {}) {block:?}", e / N, e % N);
    }
}

fn window_case(x: &[f32], [row0, col0]: [i64; 2], [bm, bn]: [usize; 2], nan: bool) -> Case {
    Case::new("window")
        .constexpr("BM", bm as i64)
        .constexpr("BN", bn as i64)
        .constexpr("NAN", i64::from(nan))
        .input("x", Data::F32(x.to_vec()), View::contiguous(&[M, N]))
        .output("out", Data::F32(vec![-1.0; bm * bn]), View::contiguous(&[bm, bn]))
        .arg("m", M as i64)
        .arg("n", N as i64)
        .arg("stride_xm", N as i64)
        .arg("row0", row0)
        .arg("col0", col0)
}

/// Blocks at negative offsets and past the far edges: the elements inside are the
/// tensor's, the others the padding (0, or NaN), on both back ends.
#[rstest]
#[case([-5, -3], [64, 64])]
#[case([30, 40], [16, 32])]
#[case([-20, 50], [32, 8])]
#[case([40, 60], [16, 16])]
fn a_block_off_the_tensor_is_padded(
    #[case] origin: [i64; 2],
    #[case] block: [usize; 2],
    #[values(false, true)] nan: bool,
) {
    let x = f32s(&seeded(2, M * N));
    let out = run_both(&window(), &window_case(&x, origin, block, nan));
    let out = output(&out, "out");
    for bi in 0..block[0] {
        for bj in 0..block[1] {
            let (i, j) = (origin[0] + bi as i64, origin[1] + bj as i64);
            let got = out[bi * block[1] + bj];
            if (0..M as i64).contains(&i) && (0..N as i64).contains(&j) {
                assert_eq!(got.to_bits(), x[i as usize * N + j as usize].to_bits(), "({i}, {j})");
            } else if nan {
                assert!(got.is_nan(), "({i}, {j}): {got}");
            } else {
                assert_eq!(got.to_bits(), 0, "({i}, {j})");
            }
        }
    }
}

/// A 3 x 37 x 53 tensor copied through 3-D descriptors with blocks of one matrix.
#[test]
fn a_three_dimensional_descriptor_copies_exactly() {
    let x = f32s(&seeded(3, 3 * M * N));
    let case = Case::new("copy_3d")
        .grid([M.div_ceil(16) as u32, N.div_ceil(16) as u32, 3])
        .constexpr("BM", 16)
        .constexpr("BN", 16)
        .input("x", Data::F32(x.clone()), View::contiguous(&[3, M, N]))
        .output("y", Data::F32(vec![-1.0; 3 * M * N]), View::contiguous(&[3, M, N]))
        .arg("d0", 3)
        .arg("m", M as i64)
        .arg("n", N as i64);
    let out = run_both(&copy_3d(), &case);
    assert_eq!(output(&out, "y"), &x[..]);
}

// ---- atomics ----------------------------------------------------------------------------

kernel! {
    /// `y op= x` block by block through descriptors (`OP` 0: `atomic_add`, 1: `atomic_max`,
    /// 2: `atomic_xor`, 3: `atomic_min`, 4: `atomic_and`, 5: `atomic_or`): program `(i, j,
    /// r)` applies the block at `(i BM, j BN)`, so the `R` programs of one block update the
    /// same elements.
    fn update_blocks(x: Ptr<i32>, y: Ptr<i32>, m: i32, n: i32; const BM: usize, const BN: usize, const OP: usize) {
        let src = make_tensor_descriptor(x, (m, n), (n, 1), &[BM, BN]);
        let dst = make_tensor_descriptor(y, (m, n), (n, 1), &[BM, BN]);
        let at = (program_id(0) * BM as i32, program_id(1) * BN as i32);
        let v = src.load(at);
        match OP {
            0 => dst.atomic_add(at, v),
            1 => dst.atomic_max(at, v),
            2 => dst.atomic_xor(at, v),
            3 => dst.atomic_min(at, v),
            4 => dst.atomic_and(at, v),
            _ => dst.atomic_or(at, v),
        }
    }
}

/// Every block of a 37 x 53 `i32` tensor updated by 3 programs at once through a
/// descriptor's atomics (the blocks of the last row and column partial): `y` is `y0 op x
/// op x op x` exactly, on the interpreter and the simulator (which reports any access
/// outside `y`, so the elements past the tensor were not touched).
#[rstest]
fn descriptor_atomics_update_only_the_tensor(#[values(0, 1, 2, 3, 4, 5)] op: i64) {
    let ints = |seed: u64| -> Vec<i32> { seeded(seed, M * N).iter().map(|v| (v * 1000.0) as i32).collect() };
    let (x, y0) = (ints(6), ints(7));
    let (bm, bn) = (16usize, 32usize);
    let case = Case::new("update_blocks")
        .grid([M.div_ceil(bm) as u32, N.div_ceil(bn) as u32, 3])
        .constexpr("BM", bm as i64)
        .constexpr("BN", bn as i64)
        .constexpr("OP", op)
        .input("x", Data::I32(x.clone()), View::contiguous(&[M, N]))
        .output("y", Data::I32(y0.clone()), View::contiguous(&[M, N]))
        .arg("m", M as i64)
        .arg("n", N as i64);
    let out = run_both(&update_blocks(), &case);
    let Some((_, Data::I32(y))) = out.buffers.iter().find(|(name, _)| *name == "y") else { panic!("no y") };
    for e in 0..M * N {
        let f = |acc: i32, v: i32| match op {
            0 => acc.wrapping_add(v),
            1 => acc.max(v),
            2 => acc ^ v,
            3 => acc.min(v),
            4 => acc & v,
            _ => acc | v,
        };
        let want = (0..3).fold(y0[e], |acc, _| f(acc, x[e]));
        assert_eq!(y[e], want, "op {op} at ({}, {})", e / N, e % N);
    }
}

// ---- a staged K loop --------------------------------------------------------------------

const K: usize = 45;

fn matmul_case(a: &[f16], b: &[f16]) -> Case {
    Case::new("matmul_f16")
        .grid([M.div_ceil(16) as u32, N.div_ceil(16) as u32, 1])
        .constexpr("BM", 16)
        .constexpr("BN", 16)
        .constexpr("BK", 16)
        .input("a", Data::F16(a.to_vec()), View::contiguous(&[M, K]))
        .input("b", Data::F16(b.to_vec()), View::contiguous(&[K, N]))
        .output("c", Data::F32(vec![0.0; M * N]), View::contiguous(&[M, N]))
        .arg("m", M as i64)
        .arg("n", N as i64)
        .arg("k", K as i64)
        .arg("stride_am", K as i64)
        .arg("stride_bk", N as i64)
}

/// A 37 x 45 by 45 x 53 product of `f16` through descriptor loads in a two-stage loop:
/// the loads are copied into staging rings (no plain load left), and the result is
/// `dot`'s documented order (`acc = fma(a, b, acc)` for `k = 0, 1, ...` in `f32`) bit for
/// bit on the interpreter and the simulator; the K tail is padded with zeros.
#[test]
fn a_staged_k_loop_of_descriptor_loads_multiplies_exactly() {
    let a: Vec<f16> = seeded(4, M * K).into_iter().map(f16::from_f64).collect();
    let b: Vec<f16> = seeded(5, K * N).into_iter().map(f16::from_f64).collect();
    let out = run_both(&matmul_f16(), &matmul_case(&a, &b));
    let c = output(&out, "c");
    for i in 0..M {
        for j in 0..N {
            let want = (0..K).fold(0f32, |acc, kk| a[i * K + kk].to_f32().mul_add(b[kk * N + j].to_f32(), acc));
            assert_eq!(c[i * N + j].to_bits(), want.to_bits(), "({i}, {j})");
        }
    }
    let def = matmul_f16();
    let ir = CompileSession::new()
        .front_end(&def, &[("BM", 16), ("BN", 16), ("BK", 16)], &SpecKey::plain(&def.params), &TraceOptions::default())
        .unwrap_or_else(|e| panic!("{e}"))
        .kernel()
        .to_string();
    assert!(ir.contains("async_copy ") && ir.contains("ring_read "), "{ir}");
    assert!(!ir.contains("= load "), "{ir}");
}

// ---- the last stride and specialization ------------------------------------------------

/// Triton's rule that the last stride is 1 when the kernel is compiled: `stride_xn`, 1
/// at launch, is folded to the constant 1 under Triton's specialization and the kernel
/// traces; with specialization off it is a run-time value and the descriptor is refused
/// with `RT0112`, located at the `make_tensor_descriptor` call.
#[test]
fn the_last_stride_must_be_one_when_the_kernel_is_compiled() {
    let def = scale_blocks();
    let args = [
        ArgValue::Ptr(0x7f00_0000_0000),
        ArgValue::Ptr(0x7f10_0000_0000),
        ArgValue::Int(M as i64),
        ArgValue::Int(N as i64),
        ArgValue::Int(64),
        ArgValue::Int(1),
    ];
    let front_end = |policy| {
        let key = SpecKey::from_args(def.name, &def.params, &args, policy).unwrap_or_else(|e| panic!("{e}"));
        CompileSession::new().front_end(&def, &[("BM", 16), ("BN", 16)], &key, &TraceOptions::default()).map(|_| ())
    };
    front_end(SpecPolicy::Triton).unwrap_or_else(|e| panic!("the folded unit stride is refused: {e}"));
    let err = front_end(SpecPolicy::Off).expect_err("a run-time last stride must be refused");
    let d = &err.diagnostics()[0];
    assert_eq!(d.code, Code::TraceTensorDescriptor, "{d:#}");
    assert!(d.message.contains("known only at run time"), "{d:#}");
    assert!(d.help.contains("specializes when it is 1"), "{d:#}");
    let src = include_str!("tensor_descriptors.rs");
    let line =
        src.lines().position(|l| l.contains("let src = make_tensor_descriptor(x, (m, n), (stride_xm, stride_xn)"));
    assert_eq!(d.loc.map(|l| l.line as usize), line.map(|i| i + 1), "{d:#}");
}

// ---- bad input: located diagnostics -----------------------------------------------------

kernel! {
    fn bad_descriptors(x: Ptr<f32>, q: Ptr<i8>, m: i32, n: i32; const CASE: usize) {
        let good = make_tensor_descriptor(x, (m, n), (n, 1), &[16, 16]);
        let d = match CASE {
            0 => make_tensor_descriptor(x, (m, n), (n, 1, 1), &[16, 16]), // bad: three strides
            1 => make_tensor_descriptor(x, [m, m, m, m, m, n], [n, n, n, n, n, n], &[1, 1, 1, 1, 16, 16]), // bad: six dims
            2 => make_tensor_descriptor(x, (m, n), (n, 1), &[16, 12]), // bad: block dim 12
            3 => make_tensor_descriptor(x, (m, n), (n, 1), &[16, 2]), // bad: eight bytes a row
            4 => make_tensor_descriptor(x, (m, n), (1, m), &[16, 16]), // bad: last stride m
            5 => make_tensor_descriptor(x, (m, n), (n, 2), &[16, 16]), // bad: last stride 2
            6 => make_tensor_descriptor_with(x, (m, n), (n, 1), &[16, 16], Padding::Undefined), // bad: undefined padding
            7 => make_tensor_descriptor(x + arange(0, 16), (m, n), (n, 1), &[16, 16]), // bad: block base
            8 => for_range(0, m, 1, good.clone(), |_, _| make_tensor_descriptor(x, (m, n), (n, 1), &[32, 16])), // bad: loop changes block
            9 => if_(m.gt(n), || good.clone(), || make_tensor_descriptor(x, (m, n), (m, 1), &[16, 16])), // bad: branches differ
            _ => good.clone(),
        };
        let block = match CASE {
            10 => d.load((0, 0, 0)), // bad: three offsets
            11 => d.load((program_id(0).to::<i64>(), 0)), // bad: i64 offset
            _ => d.load((0, 0)),
        };
        match CASE {
            12 => make_tensor_descriptor_with(q, (m, n), (n, 1), &[16, 16], Padding::Nan).store((0, 0), zeros::<i8>(&[16, 16])), // bad: nan of i8
            13 => d.store((0, 0), zeros::<f32>(&[16])), // bad: store of a row
            14 => d.atomic_add((0, 0), zeros::<f32>(&[16])), // bad: atomic of a row
            15 => make_tensor_descriptor_with(q, (m, n), (n, 1), &[16, 16], Padding::Zero).atomic_add((0, 0), zeros::<i8>(&[16, 16])), // bad: atomic of i8
            _ => d.store((0, 16), block),
        }
    }
}

/// The line of this file that ends with `marker` (so the expectations follow edits).
fn line_of(marker: &str) -> u32 {
    let src = include_str!("tensor_descriptors.rs");
    let hits: Vec<usize> = src.lines().enumerate().filter(|(_, l)| l.ends_with(marker)).map(|(i, _)| i + 1).collect();
    assert_eq!(hits.len(), 1, "one line ends with {marker:?}");
    hits[0] as u32
}

/// One row per bad input: the case, the marker ending its line, the start of the message
/// (which names the function) and a piece of the help.
#[rstest]
#[case(0, "// bad: three strides", "make_tensor_descriptor with 2 shape dims, 3 strides", "one entry per dim")]
#[case(1, "// bad: six dims", "make_tensor_descriptor with 6 shape dims", "1 to 5 dims")]
#[case(2, "// bad: block dim 12", "make_tensor_descriptor with block_shape [16, 12]: dim 1 is 12", "power of two")]
#[case(3, "// bad: eight bytes a row", "make_tensor_descriptor with block_shape [16, 2] of f32: 8 bytes", "at least 4")]
#[case(4, "// bad: last stride m", "make_tensor_descriptor with a last stride known only at run time", "block pointer")]
#[case(5, "// bad: last stride 2", "make_tensor_descriptor with a last stride of 2", "contiguous")]
#[case(6, "// bad: undefined padding", "make_tensor_descriptor_with Padding::Undefined", "Padding::Zero")]
#[case(7, "// bad: block base", "make_tensor_descriptor of a base of type", "pointer argument")]
#[case(
    8,
    "// bad: loop changes block",
    "a tensor descriptor carried through a for_range changes: block_shape",
    "carry"
)]
#[case(9, "// bad: branches differ", "a tensor descriptor carried through an if_ changes: its strides", "carry")]
#[case(
    10,
    "// bad: three offsets",
    "load_tensor_descriptor at 3 offsets of a tensor descriptor of rank 2",
    "one offset"
)]
#[case(11, "// bad: i64 offset", "load_tensor_descriptor: offset 0 is i64; tensor descriptor offsets are i32", "i32")]
#[case(12, "// bad: nan of i8", "make_tensor_descriptor_with Padding::Nan of i8 elements", "Padding::Zero")]
#[case(
    13,
    "// bad: store of a row",
    "store_tensor_descriptor of a tensor<16xf32> through a tensor descriptor",
    "[16, 16]"
)]
#[case(
    14,
    "// bad: atomic of a row",
    "TensorDescriptor::atomic_add of a tensor<16xf32> through a tensor descriptor",
    "[16, 16]"
)]
#[case(15, "// bad: atomic of i8", "TensorDescriptor::atomic_add of i8 elements", "32- or 64-bit")]
fn bad_descriptors_are_located_errors(
    #[case] case: i64,
    #[case] marker: &str,
    #[case] message: &str,
    #[case] help: &str,
) {
    let def = bad_descriptors();
    let err = CompileSession::new()
        .front_end(&def, &[("CASE", case)], &SpecKey::plain(&def.params), &TraceOptions::default())
        .expect_err("the kernel must be refused");
    let ds = err.diagnostics();
    assert_eq!(ds.len(), 1, "one diagnostic: {err}");
    let d = &ds[0];
    assert_eq!(d.code, Code::TraceTensorDescriptor, "{d:#}");
    let loc = d.loc.expect("located");
    assert_eq!((loc.file.ends_with("tests/tests/tensor_descriptors.rs"), loc.line), (true, line_of(marker)), "{d:#}");
    assert!(d.message.starts_with(message), "{d:#}");
    assert!(d.help.contains(help), "{d:#}");
    assert_eq!(d.kernel, "bad_descriptors");
}

/// The well-formed case of `bad_descriptors` traces (so each bad case is refused for its
/// own reason, not for the kernel around it).
#[test]
fn the_good_case_of_the_table_traces() {
    let def = bad_descriptors();
    CompileSession::new()
        .front_end(&def, &[("CASE", 100)], &SpecKey::plain(&def.params), &TraceOptions::default())
        .unwrap_or_else(|e| panic!("{e}"));
}

// ---- the PTX back end and the GPU --------------------------------------------------------

/// A kernel's constexprs, by name.
type Constexprs = &'static [(&'static str, i64)];

/// The kernels assemble for sm_86 and sm_90 with no spills (the K loop through `cp.async`
/// and tensor cores).
#[test]
#[cfg_attr(not(has_ptxas), ignore = "needs ptxas on PATH")]
fn descriptor_kernels_assemble_without_spills() {
    let ptxas = ptx_common::ptxas("descriptor_kernels_assemble_without_spills");
    let kernels: [(KernelDef, Constexprs, &[&str]); 3] = [
        (copy_3d(), &[("BM", 16), ("BN", 16)], &["ld.global", "st.global"]),
        (window(), &[("BM", 64), ("BN", 64), ("NAN", 1)], &["ld.global", "st.global"]),
        (matmul_f16(), &[("BM", 32), ("BN", 32), ("BK", 16)], &["cp.async", "mma.sync.aligned.m16n8k16"]),
    ];
    for (def, constexprs, insts) in kernels {
        for arch in [rtriton::backend::ptx::Arch::Sm86, rtriton::backend::ptx::Arch::Sm90] {
            let ptx = ptx_common::compile_plain(&def, constexprs, &ptx_common::options(arch, 4))
                .unwrap_or_else(|e| panic!("{}: {e}", def.name));
            for inst in insts {
                assert!(ptx.text.contains(inst), "{}: no {inst}\n{}", def.name, ptx.text);
            }
            ptx_common::assembles_without_spills(&ptxas, &ptx.text, arch, def.name).unwrap_or_else(|e| panic!("{e}"));
        }
    }
}

/// On the GPU: the blocks, the padded windows and the atomics (three programs a block) give
/// the interpreter's bits; the staged `f16` K loop is within `dot`'s rule.
#[test]
#[ignore = "needs a GPU"]
fn the_gpu_matches_the_interpreter() {
    let bits = |v: &[f32]| v.iter().map(|f| f.to_bits()).collect::<Vec<_>>();
    let mut failures = Vec::new();
    let mut check = |def: &KernelDef, case: &Case, out: &str, what: String| {
        let want = run_interpreter(def, case, SpecPolicy::Triton).unwrap_or_else(|e| panic!("{e}"));
        let got = run_gpu(def, case, SpecPolicy::Triton, GpuOptions::default()).unwrap_or_else(|e| panic!("{e}"));
        if bits(output(&want, out)) != bits(output(&got, out)) {
            failures.push(what);
        }
    };
    let x = f32s(&seeded(11, M * N));
    for row_stride in [53, 64] {
        check(&scale_blocks(), &scale_case(&x, row_stride, [16, 16]), "y", format!("scale_blocks {row_stride}"));
    }
    for nan in [false, true] {
        check(&window(), &window_case(&x, [-5, -3], [64, 64], nan), "out", format!("window nan {nan}"));
    }
    // The product runs on tensor cores, whose accumulation order is the hardware's: it is
    // held to `dot`'s rule (`docs/semantics.md`), |got - exact| <= (K + 1) 2^-23 sum|a b|,
    // against the exact f64 sum, as every GPU `dot` is.
    let a: Vec<f16> = seeded(12, M * K).into_iter().map(f16::from_f64).collect();
    let b: Vec<f16> = seeded(13, K * N).into_iter().map(f16::from_f64).collect();
    let got = run_gpu(&matmul_f16(), &matmul_case(&a, &b), SpecPolicy::Triton, GpuOptions::default())
        .unwrap_or_else(|e| panic!("{e}"));
    let c = output(&got, "c");
    for i in 0..M {
        for j in 0..N {
            let products = (0..K).map(|kk| a[i * K + kk].to_f64() * b[kk * N + j].to_f64());
            let (exact, magnitude) = products.fold((0.0, 0.0), |(s, m), p| (s + p, m + p.abs()));
            let tol = (K as f64 + 1.0) * 2f64.powi(-23) * magnitude;
            if (f64::from(c[i * N + j]) - exact).abs() > tol {
                failures.push(format!("matmul_f16 ({i}, {j}): {} vs {exact} (tolerance {tol})", c[i * N + j]));
            }
        }
    }
    for op in [0, 1, 2] {
        let ints = |seed: u64| -> Vec<i32> { seeded(seed, M * N).iter().map(|v| (v * 1000.0) as i32).collect() };
        let case = Case::new("update_blocks")
            .grid([M.div_ceil(16) as u32, N.div_ceil(32) as u32, 3])
            .constexpr("BM", 16)
            .constexpr("BN", 32)
            .constexpr("OP", op)
            .input("x", Data::I32(ints(14)), View::contiguous(&[M, N]))
            .output("y", Data::I32(ints(15)), View::contiguous(&[M, N]))
            .arg("m", M as i64)
            .arg("n", N as i64);
        let want = run_interpreter(&update_blocks(), &case, SpecPolicy::Triton).unwrap_or_else(|e| panic!("{e}"));
        let got = run_gpu(&update_blocks(), &case, SpecPolicy::Triton, GpuOptions::default())
            .unwrap_or_else(|e| panic!("{e}"));
        if want.buffers != got.buffers {
            failures.push(format!("update_blocks op {op}"));
        }
    }
    assert!(failures.is_empty(), "the GPU differs from the interpreter: {failures:?}");
}
