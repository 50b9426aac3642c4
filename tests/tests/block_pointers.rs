//! Block pointers (Triton's `tl.make_block_ptr`, `tl.advance`, and `tl.load` / `tl.store`
//! through them with `boundary_check` and `padding_option`): tiles of a 37 x 53 tensor in
//! 16 x 16 blocks, row- and column-major, copied and multiplied on the interpreter and the
//! simulator against plain Rust, bit for bit; blocks hanging off every edge (the
//! simulator reports any access outside the tensor's buffer, so a pass proves the masked
//! elements were not read); every bad input a located `RT0111`; the PTX through ptxas.

mod ptx_common;

use half::f16;
use rstest::rstest;
use rtriton::backend::ptx::AccessKind;
use rtriton::diag::{Code, HasDiagnostics};
use rtriton::kernel;
use rtriton::prelude::*;
use rtriton::session::CompileSession;
use rtriton::spec::{ArgValue, SpecKey, SpecPolicy};
use rtriton::trace::{KernelDef, TraceOptions};
use rtriton_testing::run::gpu::{GpuOptions, run_gpu};
use rtriton_testing::run::{Outputs, run_interpreter, run_simulator};
use rtriton_testing::{Case, Data, View};

/// The tensor every test reads: 37 x 53, a multiple of 16 along neither dim.
const M: usize = 37;
const N: usize = 53;

// ---- the kernels ------------------------------------------------------------------------

kernel! {
    /// `y = x` tile by tile: program `(i, j)` copies the `BM x BN` tile at `(i * BM, j *
    /// BN)`, both dims boundary-checked. `x` has any strides (`ORDER_COL_MAJOR` says its
    /// `order`); `y` is row-major.
    fn tile_copy(x: Ptr<f32>, y: Ptr<f32>, m: i32, n: i32, stride_xm: i32, stride_xn: i32;
                 const BM: usize, const BN: usize, const ORDER_COL_MAJOR: usize) {
        let order = if ORDER_COL_MAJOR == 1 { [0, 1] } else { [1, 0] };
        let offsets = (program_id(0) * BM as i32, program_id(1) * BN as i32);
        let src = make_block_ptr(x, (m, n), (stride_xm, stride_xn), offsets, &[BM, BN], &order);
        let dst = make_block_ptr(y, (m, n), (n, 1), offsets, &[BM, BN], &[1, 0]);
        store_block(&dst, load_block(&src, &[0, 1], Padding::Zero), &[0, 1]);
    }
}

kernel! {
    /// The `BM x BN` block of `x` at `(row0, col0)`, anywhere (hanging off the tensor),
    /// loaded with padding `PAD` (0: undefined, 1: zero, 2: NaN), checked along both dims
    /// or (`ROWS_ONLY`) dim 0 only, stored whole into the row-major `BM x BN` `out`.
    fn window(x: Ptr<f32>, out: Ptr<f32>, m: i32, n: i32, stride_xm: i32, stride_xn: i32, row0: i32, col0: i32;
              const BM: usize, const BN: usize, const PAD: usize, const ROWS_ONLY: usize) {
        let src = make_block_ptr(x, (m, n), (stride_xm, stride_xn), (row0, col0), &[BM, BN], &[1, 0]);
        let padding = [Padding::Undefined, Padding::Zero, Padding::Nan][PAD];
        let check: &[usize] = if ROWS_ONLY == 1 { &[0] } else { &[0, 1] };
        let block = load_block(&src, check, padding);
        let dst = make_block_ptr(out, [BM as i64, BN as i64], [BN as i64, 1], [0, 0], &[BM, BN], &[1, 0]);
        store_block(&dst, block, &[]);
    }
}

/// `c = a @ b` in `BM x BN` tiles, `k` in steps of `BK`: the block pointers of `a` and `b`
/// are carried through the loop and advanced, the loads padded with zeros (which add
/// nothing), the store boundary-checked. `stages` of 1 is `for_range`; more pipelines
/// the loads (`for_range_staged`).
#[allow(clippy::too_many_arguments, non_snake_case)]
fn block_matmul<A: ScalarMarker>(
    [a_ptr, b_ptr]: [Tensor<Ptr<A>>; 2],
    c_ptr: Tensor<Ptr<f32>>,
    [m, n, k]: [Tensor<i32>; 3],
    [stride_am, stride_ak, stride_bk, stride_bn]: [Tensor<i32>; 4],
    [BM, BN, BK]: [usize; 3],
    a_col_major: bool,
    stages: usize,
) {
    let (row0, col0) = (program_id(0) * BM as i32, program_id(1) * BN as i32);
    let a_order = if a_col_major { [0, 1] } else { [1, 0] };
    let a = make_block_ptr(a_ptr, (m, k), (stride_am, stride_ak), (row0, 0), &[BM, BK], &a_order);
    let b = make_block_ptr(b_ptr, (k, n), (stride_bk, stride_bn), (0, col0), &[BK, BN], &[1, 0]);
    let step = |_: Tensor<i32>, (acc, a, b): (Tensor<f32>, BlockPtr<A>, BlockPtr<A>)| {
        let x = load_block(&a, &[0, 1], Padding::Zero);
        let y = load_block(&b, &[0, 1], Padding::Zero);
        (dot(x, y, acc), a.advance((0, BK as i32)), advance(&b, [BK as i32, 0]))
    };
    let init = (zeros::<f32>(&[BM, BN]), a, b);
    let trips = cdiv(k, BK as i32);
    let (acc, _, _) = if stages == 1 {
        for_range(0, trips, 1, init, step)
    } else {
        for_range_staged(0, trips, 1, stages, init, step)
    };
    let c = make_block_ptr(c_ptr, (m, n), (n, 1), (row0, col0), &[BM, BN], &[1, 0]);
    store_block(&c, acc, &[0, 1]);
}

kernel! {
    fn matmul_f32(a: Ptr<f32>, b: Ptr<f32>, c: Ptr<f32>, m: i32, n: i32, k: i32,
                  stride_am: i32, stride_ak: i32, stride_bk: i32, stride_bn: i32;
                  const BM: usize, const BN: usize, const BK: usize, const A_COL_MAJOR: usize) {
        let strides = [stride_am, stride_ak, stride_bk, stride_bn];
        block_matmul([a, b], c, [m, n, k], strides, [BM, BN, BK], A_COL_MAJOR == 1, 1);
    }
}

kernel! {
    fn matmul_f16_staged(a: Ptr<f16>, b: Ptr<f16>, c: Ptr<f32>, m: i32, n: i32, k: i32,
                         stride_am: i32, stride_ak: i32, stride_bk: i32, stride_bn: i32;
                         const BM: usize, const BN: usize, const BK: usize, const A_COL_MAJOR: usize) {
        let strides = [stride_am, stride_ak, stride_bk, stride_bn];
        block_matmul([a, b], c, [m, n, k], strides, [BM, BN, BK], A_COL_MAJOR == 1, 2);
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

/// A `rows x cols` matrix of seeded values as a buffer laid out row- or column-major,
/// its view, and its strides `(row, col)` in elements.
struct Matrix {
    values: Vec<f64>,
    rows: usize,
    cols: usize,
    col_major: bool,
}

impl Matrix {
    fn seeded(seed: u64, rows: usize, cols: usize, col_major: bool) -> Matrix {
        Matrix { values: seeded(seed, rows * cols), rows, cols, col_major }
    }

    /// Element `(i, j)`'s position in the buffer.
    fn at(&self, i: usize, j: usize) -> usize {
        if self.col_major { i + j * self.rows } else { i * self.cols + j }
    }

    /// Element `(i, j)`.
    fn get(&self, i: usize, j: usize) -> f64 {
        self.values[self.at(i, j)]
    }

    fn strides(&self) -> (i64, i64) {
        if self.col_major { (1, self.rows as i64) } else { (self.cols as i64, 1) }
    }

    fn view(&self) -> View {
        let (sr, sc) = self.strides();
        View::strided(&[self.rows, self.cols], &[sr as isize, sc as isize])
    }

    fn f32s(&self) -> Data {
        Data::F32(self.values.iter().map(|&v| v as f32).collect())
    }

    fn f16s(&self) -> Data {
        Data::F16(self.values.iter().map(|&v| f16::from_f64(v)).collect())
    }
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

// ---- copies -----------------------------------------------------------------------------

fn copy_case(x: &Matrix, [bm, bn]: [usize; 2]) -> Case {
    let (sr, sc) = x.strides();
    let grid = [M.div_ceil(bm) as u32, N.div_ceil(bn) as u32, 1];
    Case::new("tile_copy")
        .grid(grid)
        .constexpr("BM", bm as i64)
        .constexpr("BN", bn as i64)
        .constexpr("ORDER_COL_MAJOR", i64::from(x.col_major))
        .input("x", x.f32s(), x.view())
        .output("y", Data::F32(vec![-1.0; M * N]), View::contiguous(&[M, N]))
        .arg("m", M as i64)
        .arg("n", N as i64)
        .arg("stride_xm", sr)
        .arg("stride_xn", sc)
}

/// Every tile of a 37 x 53 tensor, the last row and column of tiles partial, copied
/// through block pointers: `y` is `x`, each element written once, nothing read or written
/// outside either buffer; for `x` row-major and column-major (`order` `[0, 1]`).
#[rstest]
fn a_tiled_copy_through_block_pointers_is_exact(
    #[values(false, true)] col_major: bool,
    #[values([16, 16], [8, 32], [64, 64])] block: [usize; 2],
) {
    let x = Matrix::seeded(1, M, N, col_major);
    let out = run_both(&tile_copy(), &copy_case(&x, block));
    let y = output(&out, "y");
    for i in 0..M {
        for j in 0..N {
            assert_eq!(y[i * N + j].to_bits(), (x.get(i, j) as f32).to_bits(), "({i}, {j}) {block:?}");
        }
    }
}

// ---- windows hanging off the edges ------------------------------------------------------

fn window_case(x: &Matrix, [row0, col0]: [i64; 2], [bm, bn]: [usize; 2], pad: i64, rows_only: bool) -> Case {
    let (sr, sc) = x.strides();
    Case::new("window")
        .constexpr("BM", bm as i64)
        .constexpr("BN", bn as i64)
        .constexpr("PAD", pad)
        .constexpr("ROWS_ONLY", i64::from(rows_only))
        .input("x", x.f32s(), x.view())
        .output("out", Data::F32(vec![-1.0; bm * bn]), View::contiguous(&[bm, bn]))
        .arg("m", M as i64)
        .arg("n", N as i64)
        .arg("stride_xm", sr)
        .arg("stride_xn", sc)
        .arg("row0", row0)
        .arg("col0", col0)
}

const UNDEFINED: i64 = 0;
const ZERO: i64 = 1;
const NAN: i64 = 2;

/// A 64 x 64 block at (-5, -3) of the 37 x 53 tensor hangs off all four edges; with both
/// dims checked, the elements inside are the tensor's and the others the padding: 0, NaN,
/// or for undefined padding whatever a masked `load` without `other` gives (0 on the
/// interpreter; the simulator's are not compared). The simulator refuses any access
/// outside `x`'s buffer, so passing proves the padded elements were never read.
#[rstest]
fn a_block_hanging_off_every_edge_reads_only_the_tensor(
    #[values(UNDEFINED, ZERO, NAN)] pad: i64,
    #[values(false, true)] col_major: bool,
) {
    let x = Matrix::seeded(2, M, N, col_major);
    let (origin, block) = ([-5i64, -3], [64usize, 64]);
    let case = window_case(&x, origin, block, pad, false);
    let want = run_interpreter(&window(), &case, SpecPolicy::Triton).unwrap_or_else(|e| panic!("interpreter: {e}"));
    let got = run_simulator(&window(), &case, SpecPolicy::Triton).unwrap_or_else(|e| panic!("simulator: {e}"));
    let (want, got) = (output(&want, "out"), output(&got, "out"));
    let mut padded = 0;
    for bi in 0..block[0] {
        for bj in 0..block[1] {
            let (i, j) = (origin[0] + bi as i64, origin[1] + bj as i64);
            let e = bi * block[1] + bj;
            let inside = (0..M as i64).contains(&i) && (0..N as i64).contains(&j);
            if inside {
                let x_ij = x.get(i as usize, j as usize) as f32;
                assert_eq!(want[e].to_bits(), x_ij.to_bits(), "interpreter at ({i}, {j})");
                assert_eq!(got[e].to_bits(), x_ij.to_bits(), "simulator at ({i}, {j})");
                continue;
            }
            padded += 1;
            match pad {
                ZERO => {
                    assert_eq!(want[e].to_bits(), 0, "interpreter at ({i}, {j})");
                    assert_eq!(got[e].to_bits(), 0, "simulator at ({i}, {j})");
                }
                NAN => {
                    assert!(want[e].is_nan(), "interpreter at ({i}, {j}): {}", want[e]);
                    assert_eq!(got[e].to_bits(), want[e].to_bits(), "simulator at ({i}, {j})");
                }
                _ => assert_eq!(want[e].to_bits(), 0, "interpreter at ({i}, {j})"),
            }
        }
    }
    assert_eq!(padded, 64 * 64 - M * N, "the block covers the whole tensor");
}

/// With `boundary_check` on dim 0 only, rows past either end are padded while the
/// columns, in bounds here, are read as they are.
#[test]
fn only_the_checked_dims_are_masked() {
    let x = Matrix::seeded(3, M, N, false);
    let (origin, block) = ([-5i64, 8], [64usize, 32]);
    let out = run_both(&window(), &window_case(&x, origin, block, ZERO, true));
    let out = output(&out, "out");
    for bi in 0..block[0] {
        for bj in 0..block[1] {
            let (i, j) = (origin[0] + bi as i64, origin[1] + bj as i64);
            let want = if (0..M as i64).contains(&i) { x.get(i as usize, j as usize) as f32 } else { 0.0 };
            assert_eq!(out[bi * block[1] + bj].to_bits(), want.to_bits(), "({i}, {j})");
        }
    }
}

/// A dim left out of `boundary_check` is not masked (Triton's rule): columns 40..72 of
/// the last rows run past the buffer, and both back ends report the access.
#[test]
fn an_unchecked_dim_past_the_tensor_is_an_out_of_bounds_access() {
    let x = Matrix::seeded(4, M, N, false);
    let case = window_case(&x, [21, 40], [16, 32], ZERO, true);
    let e = run_interpreter(&window(), &case, SpecPolicy::Triton).expect_err("past the buffer");
    assert!(e.has_code(Code::InterpOutOfBounds), "{e}");
    let e = run_simulator(&window(), &case, SpecPolicy::Triton).expect_err("past the buffer");
    assert!(e.has_code(Code::SimOutOfBounds), "{e}");
}

// ---- a K loop of dot: block pointers carried and advanced -------------------------------

/// `k` of 45: two full steps of 16 and a tail of 13.
const K: usize = 45;

fn matmul_case(def: &KernelDef, a: &Matrix, b: &Matrix, data: fn(&Matrix) -> Data) -> Case {
    let ((sam, sak), (sbk, sbn)) = (a.strides(), b.strides());
    Case::new(def.name)
        .grid([M.div_ceil(16) as u32, N.div_ceil(16) as u32, 1])
        .constexpr("BM", 16)
        .constexpr("BN", 16)
        .constexpr("BK", 16)
        .constexpr("A_COL_MAJOR", i64::from(a.col_major))
        .input("a", data(a), a.view())
        .input("b", data(b), b.view())
        .output("c", Data::F32(vec![0.0; M * N]), View::contiguous(&[M, N]))
        .arg("m", M as i64)
        .arg("n", N as i64)
        .arg("k", K as i64)
        .arg("stride_am", sam)
        .arg("stride_ak", sak)
        .arg("stride_bk", sbk)
        .arg("stride_bn", sbn)
}

/// `c = a @ b` in `dot`'s documented order (`docs/semantics.md`): for each element,
/// `acc = fma(a, b, acc)` for `k = 0, 1, ...` in `f32`, from `a` and `b` as the kernel
/// reads them (`read`).
fn reference(a: &Matrix, b: &Matrix, read: fn(f64) -> f32) -> Vec<f32> {
    let mut c = vec![0f32; M * N];
    for i in 0..M {
        for j in 0..N {
            c[i * N + j] = (0..K).fold(0f32, |acc, kk| read(a.get(i, kk)).mul_add(read(b.get(kk, j)), acc));
        }
    }
    c
}

/// A 37 x 45 by 45 x 53 product in 16 x 16 x 16 steps, `a` row- or column-major: the
/// block pointers carried through a `for_range` and moved by `advance` give the
/// documented order's bits on the interpreter and the simulator.
#[rstest]
fn a_k_loop_advancing_block_pointers_multiplies_exactly(#[values(false, true)] a_col_major: bool) {
    let (a, b) = (Matrix::seeded(5, M, K, a_col_major), Matrix::seeded(6, K, N, false));
    let out = run_both(&matmul_f32(), &matmul_case(&matmul_f32(), &a, &b, Matrix::f32s));
    let want = reference(&a, &b, |v| v as f32);
    let got = output(&out, "c");
    for e in 0..M * N {
        assert_eq!(got[e].to_bits(), want[e].to_bits(), "({}, {})", e / N, e % N);
    }
}

/// The same product of `f16` matrices in a loop of two stages: the loads through the
/// block pointers qualify for the pipeline (copied into staging rings one iteration
/// ahead: no plain load is left), and the result is the documented order's bits on the
/// interpreter and the simulator.
#[rstest]
fn a_staged_dot_of_block_pointer_loads_is_exact(#[values(false, true)] a_col_major: bool) {
    let (a, b) = (Matrix::seeded(7, M, K, a_col_major), Matrix::seeded(8, K, N, false));
    let def = matmul_f16_staged();
    let out = run_both(&def, &matmul_case(&def, &a, &b, Matrix::f16s));
    let want = reference(&a, &b, |v| f16::from_f64(v).to_f32());
    let got = output(&out, "c");
    for e in 0..M * N {
        assert_eq!(got[e].to_bits(), want[e].to_bits(), "({}, {})", e / N, e % N);
    }
    let constexprs = [("BM", 16), ("BN", 16), ("BK", 16), ("A_COL_MAJOR", i64::from(a_col_major))];
    let ir = CompileSession::new()
        .front_end(&def, &constexprs, &SpecKey::plain(&def.params), &TraceOptions::default())
        .unwrap_or_else(|e| panic!("{e}"))
        .kernel()
        .to_string();
    assert!(ir.contains("async_copy ") && ir.contains("ring_read "), "{ir}");
    assert!(!ir.contains("= load "), "{ir}");
}

// ---- bad input: located diagnostics -----------------------------------------------------

kernel! {
    fn bad_block_ptrs(x: Ptr<f32>, q: Ptr<i32>, m: i32, n: i32; const CASE: usize) {
        let good = make_block_ptr(x, (m, n), (n, 1), (0, 0), &[16, 16], &[1, 0]);
        let ints = make_block_ptr(q, (m, n), (n, 1), (0, 0), &[16, 16], &[1, 0]);
        let p = match CASE {
            0 => make_block_ptr(x, (m, n), (n, 1, 1), (0, 0), &[16, 16], &[1, 0]), // bad: three strides
            1 => make_block_ptr(x, [0i32; 0], [0i32; 0], [0i32; 0], &[], &[]), // bad: no dims
            2 => make_block_ptr(x, (m, n), (n, 1), (0, 0), &[16, 12], &[1, 0]), // bad: block dim 12
            3 => make_block_ptr(x, (m, n), (n, 1), (0, 0), &[2048, 1024], &[1, 0]), // bad: block too large
            4 => make_block_ptr(x, (m, n), (n, 1), (0, 0), &[16, 16], &[0, 0]), // bad: order repeats
            5 => make_block_ptr(x + arange(0, 16), (m, n), (n, 1), (0, 0), &[16, 16], &[1, 0]), // bad: block base
            6 => make_block_ptr(x, (m + arange(0, 16), n), (n, 1), (0, 0), &[16, 16], &[1, 0]), // bad: block shape entry
            7 => make_block_ptr(x, (m, n), (n, 1), (program_id(0).to::<i64>(), 0), &[16, 16], &[1, 0]), // bad: i64 offset
            8 => good.advance((0, 16, 0)), // bad: advance by three
            9 => good.advance((num_programs(0).to::<i64>(), 0)), // bad: advance by i64
            10 => for_range(0, m, 1, good.clone(), |_, _| make_block_ptr(x, (m, n), (1, m), (0, 0), &[16, 16], &[1, 0])), // bad: loop changes strides
            11 => if_(m.gt(n), || good.clone(), || make_block_ptr(x, (m, n), (n, 1), (0, 0), &[32, 16], &[1, 0])), // bad: branches differ
            _ => good.clone(),
        };
        let block = match CASE {
            12 => load_block(&p, &[0, 2], Padding::Zero), // bad: boundary dim 2
            13 => load_block(&p, &[1, 1], Padding::Zero), // bad: boundary dim twice
            14 => load_block(&ints, &[0], Padding::Nan).to::<f32>(), // bad: nan of i32
            _ => load_block(&p, &[0, 1], Padding::Zero),
        };
        match CASE {
            15 => store_block(&p, zeros::<f32>(&[16]), &[0, 1]), // bad: store of a row
            16 => store_block(&p, block, &[2]), // bad: store boundary dim 2
            _ => store_block(&p, block, &[0, 1]),
        }
    }
}

/// The line of this file that ends with `marker` (so the expectations follow edits).
fn line_of(marker: &str) -> u32 {
    let src = include_str!("block_pointers.rs");
    let hits: Vec<usize> = src.lines().enumerate().filter(|(_, l)| l.ends_with(marker)).map(|(i, _)| i + 1).collect();
    assert_eq!(hits.len(), 1, "one line ends with {marker:?}");
    hits[0] as u32
}

/// One row per bad input: the case, the marker ending its line, the start of the message
/// (which names the function) and a piece of the help.
#[rstest]
#[case(0, "// bad: three strides", "make_block_ptr with 2 shape dims, 3 strides, 2 offsets", "one entry per dim")]
#[case(1, "// bad: no dims", "make_block_ptr with 0 shape dims", "at least one")]
#[case(2, "// bad: block dim 12", "make_block_ptr with block_shape [16, 12]: dim 1 is 12", "power of two")]
#[case(3, "// bad: block too large", "make_block_ptr with block_shape [2048, 1024]: more than", "advance")]
#[case(4, "// bad: order repeats", "make_block_ptr with order [0, 0]: not a permutation", "every dim once")]
#[case(5, "// bad: block base", "make_block_ptr of a base of type", "pointer argument")]
#[case(6, "// bad: block shape entry", "make_block_ptr: shape 0 is a", "scalar")]
#[case(7, "// bad: i64 offset", "make_block_ptr: offset 0 is i64; block pointer offsets are i32", ".to::<i32>()")]
#[case(8, "// bad: advance by three", "advance by 3 offsets of a block pointer of rank 2", "one offset per dim")]
#[case(9, "// bad: advance by i64", "advance: offset 0 is i64", ".to::<i32>()")]
#[case(
    10,
    "// bad: loop changes strides",
    "a block pointer carried through a for_range changes: its strides are",
    "advance"
)]
#[case(
    11,
    "// bad: branches differ",
    "a block pointer carried through an if_ changes: block_shape [16, 16] becomes [32, 16]",
    "advance"
)]
#[case(
    12,
    "// bad: boundary dim 2",
    "load_block with boundary_check [0, 2]: a block pointer of rank 2 has no dim 2",
    "0..2"
)]
#[case(13, "// bad: boundary dim twice", "load_block with boundary_check [1, 1]: dim 1 is named twice", "once")]
#[case(14, "// bad: nan of i32", "load_block with Padding::Nan through a block pointer to i32", "Padding::Zero")]
#[case(
    15,
    "// bad: store of a row",
    "store_block of a tensor<16xf32> through a block pointer of block_shape [16, 16]",
    "[16, 16]"
)]
#[case(
    16,
    "// bad: store boundary dim 2",
    "store_block with boundary_check [2]: a block pointer of rank 2 has no dim 2",
    "0..2"
)]
fn bad_block_pointers_are_located_errors(
    #[case] case: i64,
    #[case] marker: &str,
    #[case] message: &str,
    #[case] help: &str,
) {
    let def = bad_block_ptrs();
    let err = CompileSession::new()
        .front_end(&def, &[("CASE", case)], &SpecKey::plain(&def.params), &TraceOptions::default())
        .expect_err("the kernel must be refused");
    let ds = err.diagnostics();
    assert_eq!(ds.len(), 1, "one diagnostic: {err}");
    let d = &ds[0];
    assert_eq!(d.code, Code::TraceBlockPointer, "{d:#}");
    let loc = d.loc.expect("located");
    assert_eq!((loc.file.ends_with("tests/tests/block_pointers.rs"), loc.line), (true, line_of(marker)), "{d:#}");
    assert!(d.message.starts_with(message), "{d:#}");
    assert!(d.help.contains(help), "{d:#}");
    assert_eq!(d.kernel, "bad_block_ptrs");
}

/// The well-formed case of `bad_block_ptrs` traces and verifies (so each bad case is
/// refused for its own reason, not for the kernel around it).
#[test]
fn the_good_case_of_the_table_traces() {
    let def = bad_block_ptrs();
    CompileSession::new()
        .front_end(&def, &[("CASE", 100)], &SpecKey::plain(&def.params), &TraceOptions::default())
        .unwrap_or_else(|e| panic!("{e}"));
}

// ---- the PTX back end -------------------------------------------------------------------

/// Under Triton's specialization (the unit stride folded to 1, sizes, strides and
/// pointers divisible by 16), the accesses through block pointers are 16-byte vectors:
/// the offsets' contiguity and divisibility survive the desugaring, masks included.
#[test]
fn block_pointer_accesses_are_vectors_under_specialization() {
    let (x, y) = (ArgValue::Ptr(0x7f00_0000_0000), ArgValue::Ptr(0x7f10_0000_0000));
    let args = [x, y, ArgValue::Int(64), ArgValue::Int(64), ArgValue::Int(64), ArgValue::Int(1)];
    let constexprs = [("BM", 32), ("BN", 32), ("ORDER_COL_MAJOR", 0)];
    let options = ptx_common::options(rtriton::backend::ptx::Arch::Sm86, 4);
    let ptx = ptx_common::compile_def(&tile_copy(), &constexprs, &args, SpecPolicy::Triton, &options)
        .unwrap_or_else(|e| panic!("{e}"));
    let widths: Vec<(AccessKind, u32)> = ptx.decisions.accesses.iter().map(|d| (d.kind, d.vector_width)).collect();
    assert_eq!(widths, [(AccessKind::Load, 4), (AccessKind::Store, 4)]);
}

/// A kernel's constexprs, by name.
type Constexprs = &'static [(&'static str, i64)];

/// The copy, the window and the staged `f16` K loop assemble for sm_86 and sm_90 with no
/// spills (the staged loop through `cp.async` and tensor cores).
#[test]
#[cfg_attr(not(has_ptxas), ignore = "needs ptxas on PATH")]
fn block_pointer_kernels_assemble_without_spills() {
    let ptxas = ptx_common::ptxas("block_pointer_kernels_assemble_without_spills");
    let kernels: [(KernelDef, Constexprs, &[&str]); 3] = [
        (tile_copy(), &[("BM", 16), ("BN", 16), ("ORDER_COL_MAJOR", 0)], &["ld.global", "st.global"]),
        (window(), &[("BM", 64), ("BN", 64), ("PAD", NAN), ("ROWS_ONLY", 0)], &["ld.global", "st.global"]),
        (
            matmul_f16_staged(),
            &[("BM", 32), ("BN", 32), ("BK", 16), ("A_COL_MAJOR", 0)],
            &["cp.async", "mma.sync.aligned.m16n8k16"],
        ),
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

// ---- the GPU ----------------------------------------------------------------------------

/// On the GPU: the copies, the windows and the `f32` K loop (CUDA cores, `fma` in the
/// documented order) give the interpreter's bits; padded elements of an undefined padding
/// are not compared.
#[test]
#[ignore = "needs a GPU"]
fn the_gpu_matches_the_interpreter() {
    let gpu = |def: &KernelDef, case: &Case| {
        let want = run_interpreter(def, case, SpecPolicy::Triton).unwrap_or_else(|e| panic!("{e}"));
        let got = run_gpu(def, case, SpecPolicy::Triton, GpuOptions::default()).unwrap_or_else(|e| panic!("{e}"));
        (want, got)
    };
    let mut failures = Vec::new();
    for col_major in [false, true] {
        let x = Matrix::seeded(11, M, N, col_major);
        let (want, got) = gpu(&tile_copy(), &copy_case(&x, [16, 16]));
        if output(&want, "y") != output(&got, "y") {
            failures.push(format!("tile_copy, col_major {col_major}"));
        }
        for pad in [ZERO, NAN] {
            let (want, got) = gpu(&window(), &window_case(&x, [-5, -3], [64, 64], pad, false));
            let bits = |v: &[f32]| v.iter().map(|f| f.to_bits()).collect::<Vec<_>>();
            if bits(output(&want, "out")) != bits(output(&got, "out")) {
                failures.push(format!("window, pad {pad}, col_major {col_major}"));
            }
        }
        let (a, b) = (Matrix::seeded(12, M, K, col_major), Matrix::seeded(13, K, N, false));
        let (want, got) = gpu(&matmul_f32(), &matmul_case(&matmul_f32(), &a, &b, Matrix::f32s));
        if output(&want, "c") != output(&got, "c") {
            failures.push(format!("matmul_f32, col_major {col_major}"));
        }
    }
    assert!(failures.is_empty(), "the GPU differs from the interpreter: {failures:?}");
}
