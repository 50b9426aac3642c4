//! Shapes and layouts: one `arange` feeding both dims of a tile (`offs[:, None]`,
//! `offs[None, :]`), `trans`, `permute`, `reshape`, `broadcast_to`, `join` and `split`.
//! Each kernel runs through the harness on the interpreter (against a plain-Rust
//! reference), on the simulator (every check on: shared-memory races, barriers,
//! uninitialized shared bytes; bit for bit against the interpreter) with 1, 4 and 8
//! warps, and on the GPU (ignored here). The lowering's conversions through shared memory
//! are checked where they must appear, the PTX is assembled by ptxas for sm_86 and sm_90
//! without spills, and bad shapes are located trace errors.

mod ptx_common;

use rstest::rstest;
use rtriton::backend::ptx::Arch;
use rtriton::kernel;
use rtriton::prelude::*;
use rtriton::spec::SpecPolicy;
use rtriton_testing::fill::{special_f32, special_i64};
use rtriton_testing::suite::arg_values;
use rtriton_testing::{Case, Rule, Suite, View};

kernel! {
    /// y = 2 x + row index over an m x n matrix, tile by tile. One `arange` gives both the
    /// rows and the columns (`rows[:, None]`, `cols[None, :]` share its layout class), so
    /// the lowering converts one of them; the edges are masked.
    fn tile_scale(x_ptr: Ptr<f32>, y_ptr: Ptr<f32>, m: i32, n: i32; const BLOCK: usize) {
        let offs = arange(0, BLOCK);
        let rows = program_id(0) * BLOCK as i32 + offs;
        let cols = program_id(1) * BLOCK as i32 + offs;
        let idx = rows.expand_dims(1) * n + cols.expand_dims(0);
        let mask = rows.expand_dims(1).lt(m) & cols.expand_dims(0).lt(n);
        let x = load(x_ptr + idx, Some(mask), Some(0.0));
        store(y_ptr + idx, x * 2.0 + rows.expand_dims(1).to::<f32>(), Some(mask));
    }
}

kernel! {
    /// Triton's idiom verbatim: `offs[:, None] * B + offs[None, :]` indexes a B x B tile.
    fn square_tile(x_ptr: Ptr<i32>, y_ptr: Ptr<i32>; const B: usize) {
        let offs = arange(0, B);
        let idx = offs.expand_dims(1) * B as i32 + offs.expand_dims(0);
        let x = load(x_ptr + idx, None, None);
        store(y_ptr + idx, x * 3 + idx, None);
    }
}

kernel! {
    /// y (n x m) = x (m x n) transposed, one BM x BN tile per program: the tile is loaded
    /// and the transposed tile stored with rows contiguous; `trans` moves the elements
    /// (and the mask) between threads through shared memory.
    fn transpose(x_ptr: Ptr<f32>, y_ptr: Ptr<f32>, m: i32, n: i32; const BM: usize, const BN: usize) {
        let rows = program_id(0) * BM as i32 + arange(0, BM);
        let cols = program_id(1) * BN as i32 + arange(0, BN);
        let mask = rows.expand_dims(1).lt(m) & cols.expand_dims(0).lt(n);
        let x = load(x_ptr + rows.expand_dims(1) * n + cols.expand_dims(0), Some(mask), Some(0.0));
        store(y_ptr + cols.expand_dims(1) * m + rows.expand_dims(0), trans(x), Some(trans(mask)));
    }
}

kernel! {
    /// The i64 transpose of a B x B matrix (8-byte elements through shared memory).
    fn transpose_i64(x_ptr: Ptr<i64>, y_ptr: Ptr<i64>; const B: usize) {
        let offs = arange(0, B);
        let x = load(x_ptr + offs.expand_dims(1) * B as i32 + offs.expand_dims(0), None, None);
        store(y_ptr + offs.expand_dims(1) * B as i32 + offs.expand_dims(0), x.trans(), None);
    }
}

kernel! {
    /// 1-D -> 2-D -> 1-D: `y` (R x C) = 3 x as a matrix, `s` its row sums, `z` = x + 1
    /// through the 2-D shape and back.
    fn reshape_rows(x_ptr: Ptr<i32>, y_ptr: Ptr<i32>, s_ptr: Ptr<i32>, z_ptr: Ptr<i32>; const R: usize, const C: usize) {
        let offs = arange(0, R * C);
        let x = load(x_ptr + offs, None, None);
        let m = reshape(x, &[R, C]);
        let (r, c) = (arange(0, R), arange(0, C));
        store(y_ptr + r.expand_dims(1) * C as i32 + c.expand_dims(0), m * 3, None);
        store(s_ptr + r, sum(m, 1), None);
        store(z_ptr + offs, (m + 1).reshape(&[R * C]), None);
    }
}

kernel! {
    /// y (C x A x B) = x (A x B x C) permuted by [2, 0, 1]: `y[k, i, j] = x[i, j, k]`.
    fn permute3(x_ptr: Ptr<f32>, y_ptr: Ptr<f32>; const A: usize, const B: usize, const C: usize) {
        let (a, b, c) = (arange(0, A), arange(0, B), arange(0, C));
        let ia = a.expand_dims(1).expand_dims(2);
        let ib = b.expand_dims(0).expand_dims(2);
        let ic = c.expand_dims(0).expand_dims(0);
        let x = load(x_ptr + ia * (B * C) as i32 + ib * C as i32 + ic, None, None);
        let oc = c.expand_dims(1).expand_dims(2);
        let oa = a.expand_dims(0).expand_dims(2);
        let ob = b.expand_dims(0).expand_dims(0);
        store(y_ptr + oc * (A * B) as i32 + oa * B as i32 + ob, permute(x, &[2, 0, 1]), None);
    }
}

kernel! {
    /// y (R x C) = x[j] - x[i]: a row of x and a column of x broadcast to the tile.
    fn outer_difference(x_ptr: Ptr<f32>, y_ptr: Ptr<f32>; const R: usize, const C: usize) {
        let (r, c) = (arange(0, R), arange(0, C));
        let across = broadcast_to(load(x_ptr + c, None, None), &[R, C]);
        let down = broadcast_to(expand_dims(load(x_ptr + r, None, None), 1), &[R, C]);
        store(y_ptr + r.expand_dims(1) * C as i32 + c.expand_dims(0), across - down, None);
    }
}

kernel! {
    /// `j` = a and b interleaved (`join`), `s0`/`s1` = the halves of `join(a, b)` split
    /// again, `e`/`o` = the even and odd elements of `a` (`split` of a loaded n/2 x 2
    /// tile, -1 past the end); masked tails everywhere.
    fn join_split(a_ptr: Ptr<f32>, b_ptr: Ptr<f32>, j_ptr: Ptr<f32>, s0_ptr: Ptr<f32>, s1_ptr: Ptr<f32>, e_ptr: Ptr<f32>, o_ptr: Ptr<f32>, n: i32; const BLOCK: usize) {
        let offs = program_id(0) * BLOCK as i32 + arange(0, BLOCK);
        let mask = offs.lt(n);
        let a = load(a_ptr + offs, Some(mask), Some(0.0));
        let b = load(b_ptr + offs, Some(mask), Some(0.0));
        let j = join(a, b);
        let pair = arange(0, 2).expand_dims(0);
        store(j_ptr + offs.expand_dims(1) * 2 + pair, j, Some(mask.expand_dims(1)));
        let (s0, s1) = split(j);
        store(s0_ptr + offs, s0, Some(mask));
        store(s1_ptr + offs, s1, Some(mask));
        let idx2 = offs.expand_dims(1) * 2 + pair;
        let (even, odd) = load(a_ptr + idx2, Some(idx2.lt(n)), Some(-1.0)).split();
        store(e_ptr + offs, even, Some(mask));
        store(o_ptr + offs, odd, Some(mask));
    }
}

kernel! {
    /// y[i, j] = x[i] x[j] + s[j] with s = the row sums of that product (ints, so sums are
    /// exact): a loaded vector in both roles and a row sum read along the other dim. Neither
    /// is cheap to recompute, so both go through shared memory.
    fn outer_product(x_ptr: Ptr<i32>, y_ptr: Ptr<i32>, n: i32; const B: usize) {
        let offs = arange(0, B);
        let x = load(x_ptr + offs, Some(offs.lt(n)), Some(0));
        let p = x.expand_dims(1) * x.expand_dims(0);
        let y = p + sum(p, 1).expand_dims(0);
        let mask = offs.expand_dims(1).lt(n) & offs.expand_dims(0).lt(n);
        store(y_ptr + offs.expand_dims(1) * n + offs.expand_dims(0), y, Some(mask));
    }
}

kernel! {
    /// y = sum over the rows r of x (steps x B) of the outer product r r^T: a conversion
    /// through shared memory inside a loop body, every iteration.
    fn loop_outer(x_ptr: Ptr<i32>, y_ptr: Ptr<i32>, steps: i32; const B: usize) {
        let offs = arange(0, B);
        let acc = for_range(0, steps, 1, zeros::<i32>(&[B, B]), |i, acc| {
            let x = load(x_ptr + i * B as i32 + offs, None, None);
            acc + x.expand_dims(1) * x.expand_dims(0)
        });
        store(y_ptr + offs.expand_dims(1) * B as i32 + offs.expand_dims(0), acc, None);
    }
}

kernel! {
    /// y[i] = the sum of row i of x (B x B), stored through the column index: the row sums
    /// and the columns share a layout class, and the columns are the ones converted.
    fn row_sums_by_column(x_ptr: Ptr<i32>, y_ptr: Ptr<i32>; const B: usize) {
        let (r, c) = (arange(0, B), arange(0, B));
        let x = load(x_ptr + r.expand_dims(1) * B as i32 + c.expand_dims(0), None, None);
        store(y_ptr + c, sum(x, 1), None);
    }
}

kernel! {
    /// y[i] = (sum of row i) + (sum of column i) of x (B x B): two reductions of one tile
    /// added, so one of them reads the tile converted to a transposed layout.
    fn row_plus_column_sums(x_ptr: Ptr<i32>, y_ptr: Ptr<i32>; const B: usize) {
        let (r, c) = (arange(0, B), arange(0, B));
        let x = load(x_ptr + r.expand_dims(1) * B as i32 + c.expand_dims(0), None, None);
        store(y_ptr + r, sum(x, 1) + sum(x, 0), None);
    }
}

kernel! {
    /// Scalars through `join`, `split` and `reshape`; a block of pointers reshaped and split
    /// (the even and odd elements of x subtracted).
    fn scalar_and_pointer_shapes(x_ptr: Ptr<i32>, y_ptr: Ptr<i32>, z_ptr: Ptr<i32>; const B: usize) {
        let (a, b) = (load(x_ptr, None, None), load(x_ptr + 1, None, None));
        let j = join(a, b);
        store(y_ptr + arange(0, 2), j, None);
        let (p, q) = split(j);
        store(y_ptr + 2, p * 10 + q, None);
        store(y_ptr + 3 + arange(0, 1), reshape(a, &[1]), None);
        let (even, odd) = split(reshape(x_ptr + arange(0, B), &[B / 2, 2]));
        store(z_ptr + arange(0, B / 2), load(even, None, None) - load(odd, None, None), None);
    }
}

kernel! {
    /// A 2-D transpose in a 3-D kernel (the tile is a slice of the 3-D layout), and the tile
    /// broadcast into two planes of `w`.
    fn trans_in_3d(x_ptr: Ptr<i32>, y_ptr: Ptr<i32>, w_ptr: Ptr<i32>; const B: usize) {
        let offs = arange(0, B);
        let t = offs.expand_dims(1) * B as i32 + offs.expand_dims(0);
        let x = load(x_ptr + t, None, None);
        store(y_ptr + t, trans(x), None);
        let planes = arange(0, 2).expand_dims(1).expand_dims(2) * (B * B) as i32;
        store(w_ptr + planes + t.expand_dims(0), broadcast_to(x.expand_dims(0), &[2, B, B]), None);
    }
}

kernel! {
    /// acc = trans(acc) + 1, n times, from a B x B tile: `trans` of a loop-carried value.
    fn trans_loop(x_ptr: Ptr<i32>, y_ptr: Ptr<i32>, n: i32; const B: usize) {
        let offs = arange(0, B);
        let idx = offs.expand_dims(1) * B as i32 + offs.expand_dims(0);
        let x = load(x_ptr + idx, None, None);
        let r = for_range(0, n, 1, x, |_, acc| trans(acc) + 1);
        store(y_ptr + idx, r, None);
    }
}

kernel! {
    /// y = trans(x) + 1 in the programs where `flip` is set, x otherwise: the exchange (and
    /// its barriers) inside a runtime `if`, which every thread of a program takes alike.
    fn trans_if(x_ptr: Ptr<i32>, y_ptr: Ptr<i32>, flip: i32; const B: usize) {
        let offs = arange(0, B);
        let idx = offs.expand_dims(1) * B as i32 + offs.expand_dims(0);
        let x = load(x_ptr + idx, None, None);
        let y = if_(flip.ne(0), || trans(x) + 1, || x);
        store(y_ptr + idx, y, None);
    }
}

// ---- suites ---------------------------------------------------------------------------

fn tile_scale_case(name: &str, m: usize, n: usize, block: usize, warps: u32) -> Case {
    let x = special_f32(m * n);
    Case::new(name)
        .input("x", x, View::contiguous(&[m, n]))
        .output("y", vec![0.0f32; m * n], View::contiguous(&[m, n]))
        .int(m as i64)
        .int(n as i64)
        .constexpr("BLOCK", block as i64)
        .num_warps(warps)
        .grid([m.div_ceil(block) as u32, n.div_ceil(block) as u32, 1])
}

fn tile_scale_suite() -> Suite {
    Suite::new(tile_scale())
        .cases([
            tile_scale_case("tile_37x45_w1", 37, 45, 16, 1),
            tile_scale_case("tile_37x45_w4", 37, 45, 16, 4),
            tile_scale_case("tile_100x70_w8", 100, 70, 32, 8),
            tile_scale_case("tile_5x3_w4", 5, 3, 8, 4),
        ])
        .reference(|c| {
            let [m, n] = [c.tensor("x").view.shape[0], c.tensor("x").view.shape[1]];
            for i in 0..m {
                for j in 0..n {
                    let v = c.tensor("x").f32_at(&[i, j]) * 2.0 + i as f32;
                    c.tensor_mut("y").set_f32(&[i, j], v);
                }
            }
        })
        .rule(Rule::BITS.any_nan())
}

rtriton_testing::backend_tests!(tile_scale_suite => [tile_37x45_w1, tile_37x45_w4, tile_100x70_w8, tile_5x3_w4]);

fn square_tile_case(name: &str, b: usize, warps: u32) -> Case {
    let x: Vec<i32> = (0..b * b).map(|i| (i as i32).wrapping_mul(7919) ^ i32::MIN).collect();
    Case::new(name)
        .input("x", x, View::contiguous(&[b * b]))
        .output("y", vec![0i32; b * b], View::contiguous(&[b * b]))
        .constexpr("B", b as i64)
        .num_warps(warps)
        .grid([1, 1, 1])
}

fn square_tile_suite() -> Suite {
    Suite::new(square_tile())
        .cases([
            square_tile_case("square_4_w1", 4, 1),
            square_tile_case("square_16_w4", 16, 4),
            square_tile_case("square_64_w8", 64, 8),
        ])
        .reference(|c| {
            for i in 0..c.tensor("x").view.shape[0] {
                let v = c.tensor("x").i32_at(&[i]).wrapping_mul(3).wrapping_add(i as i32);
                c.tensor_mut("y").set_i32(&[i], v);
            }
        })
}

rtriton_testing::backend_tests!(square_tile_suite => [square_4_w1, square_16_w4, square_64_w8]);

fn transpose_case(name: &str, m: usize, n: usize, bm: usize, bn: usize, warps: u32) -> Case {
    Case::new(name)
        .input("x", special_f32(m * n), View::contiguous(&[m, n]))
        .output("y", vec![0.5f32; m * n], View::contiguous(&[n, m]))
        .int(m as i64)
        .int(n as i64)
        .constexpr("BM", bm as i64)
        .constexpr("BN", bn as i64)
        .num_warps(warps)
        .grid([m.div_ceil(bm) as u32, n.div_ceil(bn) as u32, 1])
}

fn transpose_suite() -> Suite {
    Suite::new(transpose())
        .cases([
            transpose_case("t_37x45_16x32_w1", 37, 45, 16, 32, 1),
            transpose_case("t_37x45_16x32_w4", 37, 45, 16, 32, 4),
            transpose_case("t_70x33_32x16_w8", 70, 33, 32, 16, 8),
            transpose_case("t_130x3_64x4_w4", 130, 3, 64, 4, 4),
            transpose_case("t_1x1_8x8_w1", 1, 1, 8, 8, 1),
            // 64 elements on 256 threads: both layouts replicate, only owners write.
            transpose_case("t_5x7_8x8_w8", 5, 7, 8, 8, 8),
        ])
        .reference(|c| {
            let [m, n] = [c.tensor("x").view.shape[0], c.tensor("x").view.shape[1]];
            for i in 0..m {
                for j in 0..n {
                    let v = c.tensor("x").f32_at(&[i, j]);
                    c.tensor_mut("y").set_f32(&[j, i], v);
                }
            }
        })
}

rtriton_testing::backend_tests!(transpose_suite => [t_37x45_16x32_w1, t_37x45_16x32_w4, t_70x33_32x16_w8, t_130x3_64x4_w4, t_1x1_8x8_w1, t_5x7_8x8_w8]);

fn transpose_i64_suite() -> Suite {
    let case = |name: &str, b: usize, warps: u32| {
        Case::new(name)
            .input("x", special_i64(b * b), View::contiguous(&[b, b]))
            .output("y", vec![0i64; b * b], View::contiguous(&[b, b]))
            .constexpr("B", b as i64)
            .num_warps(warps)
            .grid([1, 1, 1])
    };
    Suite::new(transpose_i64())
        .cases([case("t64_8_w1", 8, 1), case("t64_32_w4", 32, 4), case("t64_32_w8", 32, 8)])
        .reference(|c| {
            let b = c.tensor("x").view.shape[0];
            let x = c.tensor("x").data.as_i64().expect("i64").to_vec();
            let y = c.tensor_mut("y").data.as_i64_mut().expect("i64");
            for i in 0..b {
                for j in 0..b {
                    y[j * b + i] = x[i * b + j];
                }
            }
        })
}

rtriton_testing::backend_tests!(transpose_i64_suite => [t64_8_w1, t64_32_w4, t64_32_w8]);

fn reshape_suite() -> Suite {
    let case = |name: &str, r: usize, c: usize, warps: u32| {
        let x: Vec<i32> = (0..r * c).map(|i| (i as i32 * 37) % 101 - 50).collect();
        Case::new(name)
            .input("x", x, View::contiguous(&[r * c]))
            .output("y", vec![0i32; r * c], View::contiguous(&[r, c]))
            .output("s", vec![0i32; r], View::contiguous(&[r]))
            .output("z", vec![0i32; r * c], View::contiguous(&[r * c]))
            .constexpr("R", r as i64)
            .constexpr("C", c as i64)
            .num_warps(warps)
            .grid([1, 1, 1])
    };
    Suite::new(reshape_rows())
        .cases([
            case("r_4x8_w1", 4, 8, 1),
            case("r_16x32_w4", 16, 32, 4),
            case("r_64x2_w8", 64, 2, 8),
            case("r_2x4_w8", 2, 4, 8),
        ])
        .reference(|c| {
            let [r, cols] = [c.tensor("y").view.shape[0], c.tensor("y").view.shape[1]];
            let x: Vec<i32> = (0..r * cols).map(|i| c.tensor("x").i32_at(&[i])).collect();
            for i in 0..r {
                let mut s = 0i32;
                for j in 0..cols {
                    let v = x[i * cols + j];
                    c.tensor_mut("y").set_i32(&[i, j], v * 3);
                    s = s.wrapping_add(v);
                }
                c.tensor_mut("s").set_i32(&[i], s);
            }
            for (i, v) in x.iter().enumerate() {
                c.tensor_mut("z").set_i32(&[i], v + 1);
            }
        })
}

rtriton_testing::backend_tests!(reshape_suite => [r_4x8_w1, r_16x32_w4, r_64x2_w8, r_2x4_w8]);

fn permute3_suite() -> Suite {
    let case = |name: &str, [a, b, c]: [usize; 3], warps: u32| {
        Case::new(name)
            .input("x", special_f32(a * b * c), View::contiguous(&[a, b, c]))
            .output("y", vec![0.0f32; a * b * c], View::contiguous(&[c, a, b]))
            .constexpr("A", a as i64)
            .constexpr("B", b as i64)
            .constexpr("C", c as i64)
            .num_warps(warps)
            .grid([1, 1, 1])
    };
    Suite::new(permute3())
        .cases([
            case("p_2x4x8_w1", [2, 4, 8], 1),
            case("p_4x8x16_w4", [4, 8, 16], 4),
            case("p_8x2x32_w8", [8, 2, 32], 8),
        ])
        .reference(|c| {
            let s = c.tensor("x").view.shape.clone();
            for i in 0..s[0] {
                for j in 0..s[1] {
                    for k in 0..s[2] {
                        let v = c.tensor("x").f32_at(&[i, j, k]);
                        c.tensor_mut("y").set_f32(&[k, i, j], v);
                    }
                }
            }
        })
}

rtriton_testing::backend_tests!(permute3_suite => [p_2x4x8_w1, p_4x8x16_w4, p_8x2x32_w8]);

fn outer_difference_suite() -> Suite {
    let case = |name: &str, r: usize, c: usize, warps: u32| {
        Case::new(name)
            .input("x", special_f32(r.max(c)), View::contiguous(&[r.max(c)]))
            .output("y", vec![0.0f32; r * c], View::contiguous(&[r, c]))
            .constexpr("R", r as i64)
            .constexpr("C", c as i64)
            .num_warps(warps)
            .grid([1, 1, 1])
    };
    Suite::new(outer_difference())
        .cases([case("o_8x4_w1", 8, 4, 1), case("o_16x64_w4", 16, 64, 4), case("o_128x8_w8", 128, 8, 8)])
        .reference(|c| {
            let [r, cols] = [c.tensor("y").view.shape[0], c.tensor("y").view.shape[1]];
            for i in 0..r {
                for j in 0..cols {
                    let v = c.tensor("x").f32_at(&[j]) - c.tensor("x").f32_at(&[i]);
                    c.tensor_mut("y").set_f32(&[i, j], v);
                }
            }
        })
        .rule(Rule::BITS.any_nan())
}

rtriton_testing::backend_tests!(outer_difference_suite => [o_8x4_w1, o_16x64_w4, o_128x8_w8]);

fn join_split_case(name: &str, n: usize, block: usize, warps: u32) -> Case {
    let b: Vec<f32> = special_f32(n).into_iter().rev().collect();
    Case::new(name)
        .input("a", special_f32(n), View::contiguous(&[n]))
        .input("b", b, View::contiguous(&[n]))
        .output("j", vec![0.25f32; 2 * n], View::contiguous(&[2 * n]))
        .output("s0", vec![0.25f32; n], View::contiguous(&[n]))
        .output("s1", vec![0.25f32; n], View::contiguous(&[n]))
        .output("e", vec![0.25f32; n], View::contiguous(&[n]))
        .output("o", vec![0.25f32; n], View::contiguous(&[n]))
        .int(n as i64)
        .constexpr("BLOCK", block as i64)
        .num_warps(warps)
        .grid([n.div_ceil(block) as u32, 1, 1])
}

/// Bits move untouched through `join` and `split` (NaN payloads, -0.0, subnormals).
fn join_split_suite() -> Suite {
    Suite::new(join_split())
        .cases([
            join_split_case("js_37_w1", 37, 16, 1),
            join_split_case("js_300_w4", 300, 128, 4),
            join_split_case("js_1000_w8", 1000, 256, 8),
        ])
        .reference(|c| {
            let n = c.tensor("a").view.shape[0];
            let a: Vec<f32> = (0..n).map(|i| c.tensor("a").f32_at(&[i])).collect();
            let b: Vec<f32> = (0..n).map(|i| c.tensor("b").f32_at(&[i])).collect();
            for i in 0..n {
                c.tensor_mut("j").set_f32(&[2 * i], a[i]);
                c.tensor_mut("j").set_f32(&[2 * i + 1], b[i]);
                c.tensor_mut("s0").set_f32(&[i], a[i]);
                c.tensor_mut("s1").set_f32(&[i], b[i]);
                c.tensor_mut("e").set_f32(&[i], a.get(2 * i).copied().unwrap_or(-1.0));
                c.tensor_mut("o").set_f32(&[i], a.get(2 * i + 1).copied().unwrap_or(-1.0));
            }
        })
}

rtriton_testing::backend_tests!(join_split_suite => [js_37_w1, js_300_w4, js_1000_w8]);

fn outer_product_suite() -> Suite {
    let case = |name: &str, n: usize, b: usize, warps: u32| {
        let x: Vec<i32> = (0..n).map(|i| (i as i32 * 7919) % 2001 - 1000).collect();
        Case::new(name)
            .input("x", x, View::contiguous(&[n]))
            .output("y", vec![7i32; n * n], View::contiguous(&[n, n]))
            .int(n as i64)
            .constexpr("B", b as i64)
            .num_warps(warps)
            .grid([1, 1, 1])
    };
    Suite::new(outer_product())
        .cases([case("op_5_w1", 5, 8, 1), case("op_29_w4", 29, 32, 4), case("op_100_w8", 100, 128, 8)])
        .reference(|c| {
            let n = c.tensor("x").view.shape[0];
            let x: Vec<i32> = (0..n).map(|i| c.tensor("x").i32_at(&[i])).collect();
            let s: Vec<i32> =
                x.iter().map(|a| x.iter().fold(0i32, |acc, b| acc.wrapping_add(a.wrapping_mul(*b)))).collect();
            for i in 0..n {
                for j in 0..n {
                    c.tensor_mut("y").set_i32(&[i, j], x[i].wrapping_mul(x[j]).wrapping_add(s[j]));
                }
            }
        })
}

rtriton_testing::backend_tests!(outer_product_suite => [op_5_w1, op_29_w4, op_100_w8]);

fn loop_outer_suite() -> Suite {
    let case = |name: &str, steps: usize, b: usize, warps: u32| {
        let x: Vec<i32> = (0..steps * b).map(|i| (i as i32 * 31) % 17 - 8).collect();
        Case::new(name)
            .input("x", x, View::contiguous(&[steps, b]))
            .output("y", vec![0i32; b * b], View::contiguous(&[b, b]))
            .int(steps as i64)
            .constexpr("B", b as i64)
            .num_warps(warps)
            .grid([1, 1, 1])
    };
    Suite::new(loop_outer())
        .cases([case("lo_0_w4", 0, 16, 4), case("lo_3_w1", 3, 8, 1), case("lo_5_w8", 5, 32, 8)])
        .reference(|c| {
            let [steps, b] = [c.tensor("x").view.shape[0], c.tensor("x").view.shape[1]];
            for i in 0..b {
                for j in 0..b {
                    let v = (0..steps).map(|r| c.tensor("x").i32_at(&[r, i]) * c.tensor("x").i32_at(&[r, j])).sum();
                    c.tensor_mut("y").set_i32(&[i, j], v);
                }
            }
        })
}

rtriton_testing::backend_tests!(loop_outer_suite => [lo_0_w4, lo_3_w1, lo_5_w8]);

fn row_sums_suite() -> Suite {
    let case = |name: &str, b: usize, warps: u32| {
        let x: Vec<i32> = (0..b * b).map(|i| (i as i32 * 7919) ^ 0x5555).collect();
        Case::new(name)
            .input("x", x, View::contiguous(&[b, b]))
            .output("y", vec![0i32; b], View::contiguous(&[b]))
            .constexpr("B", b as i64)
            .num_warps(warps)
            .grid([1, 1, 1])
    };
    Suite::new(row_sums_by_column())
        .cases([case("rs_8_w1", 8, 1), case("rs_32_w4", 32, 4), case("rs_64_w8", 64, 8)])
        .reference(|c| {
            let b = c.tensor("y").view.shape[0];
            for i in 0..b {
                let s = (0..b).fold(0i32, |acc, j| acc.wrapping_add(c.tensor("x").i32_at(&[i, j])));
                c.tensor_mut("y").set_i32(&[i], s);
            }
        })
}

rtriton_testing::backend_tests!(row_sums_suite => [rs_8_w1, rs_32_w4, rs_64_w8]);

fn row_plus_column_suite() -> Suite {
    let case = |name: &str, b: usize, warps: u32| {
        let x: Vec<i32> = (0..b * b).map(|i| (i as i32 * 7919) ^ 0x5555).collect();
        Case::new(name)
            .input("x", x, View::contiguous(&[b, b]))
            .output("y", vec![0i32; b], View::contiguous(&[b]))
            .constexpr("B", b as i64)
            .num_warps(warps)
            .grid([1, 1, 1])
    };
    Suite::new(row_plus_column_sums())
        .cases([case("rc_8_w1", 8, 1), case("rc_32_w4", 32, 4), case("rc_64_w8", 64, 8)])
        .reference(|c| {
            let b = c.tensor("y").view.shape[0];
            let x = |i: usize, j: usize| c.tensor("x").i32_at(&[i, j]);
            let y: Vec<i32> =
                (0..b).map(|i| (0..b).fold(0i32, |acc, j| acc.wrapping_add(x(i, j)).wrapping_add(x(j, i)))).collect();
            for (i, v) in y.into_iter().enumerate() {
                c.tensor_mut("y").set_i32(&[i], v);
            }
        })
}

rtriton_testing::backend_tests!(row_plus_column_suite => [rc_8_w1, rc_32_w4, rc_64_w8]);

fn scalar_and_pointer_suite() -> Suite {
    let case = |name: &str, b: usize, warps: u32| {
        let x: Vec<i32> = (0..b).map(|i| (i as i32 * 37) % 23 - 11).collect();
        Case::new(name)
            .input("x", x, View::contiguous(&[b]))
            .output("y", vec![0i32; 4], View::contiguous(&[4]))
            .output("z", vec![0i32; b / 2], View::contiguous(&[b / 2]))
            .constexpr("B", b as i64)
            .num_warps(warps)
            .grid([1, 1, 1])
    };
    Suite::new(scalar_and_pointer_shapes())
        .cases([case("sp_4_w1", 4, 1), case("sp_64_w4", 64, 4), case("sp_256_w8", 256, 8)])
        .reference(|c| {
            let x: Vec<i32> = (0..c.tensor("x").view.shape[0]).map(|i| c.tensor("x").i32_at(&[i])).collect();
            for (i, v) in [x[0], x[1], x[0] * 10 + x[1], x[0]].into_iter().enumerate() {
                c.tensor_mut("y").set_i32(&[i], v);
            }
            for i in 0..x.len() / 2 {
                c.tensor_mut("z").set_i32(&[i], x[2 * i] - x[2 * i + 1]);
            }
        })
}

rtriton_testing::backend_tests!(scalar_and_pointer_suite => [sp_4_w1, sp_64_w4, sp_256_w8]);

fn trans_in_3d_suite() -> Suite {
    let case = |name: &str, b: usize, warps: u32| {
        let x: Vec<i32> = (0..b * b).map(|i| i as i32 * 3 - 100).collect();
        Case::new(name)
            .input("x", x, View::contiguous(&[b, b]))
            .output("y", vec![0i32; b * b], View::contiguous(&[b, b]))
            .output("w", vec![0i32; 2 * b * b], View::contiguous(&[2, b, b]))
            .constexpr("B", b as i64)
            .num_warps(warps)
            .grid([1, 1, 1])
    };
    Suite::new(trans_in_3d())
        .cases([case("t3_4_w1", 4, 1), case("t3_16_w4", 16, 4), case("t3_32_w8", 32, 8)])
        .reference(|c| {
            let b = c.tensor("x").view.shape[0];
            for i in 0..b {
                for j in 0..b {
                    let v = c.tensor("x").i32_at(&[i, j]);
                    c.tensor_mut("y").set_i32(&[j, i], v);
                    c.tensor_mut("w").set_i32(&[0, i, j], v);
                    c.tensor_mut("w").set_i32(&[1, i, j], v);
                }
            }
        })
}

rtriton_testing::backend_tests!(trans_in_3d_suite => [t3_4_w1, t3_16_w4, t3_32_w8]);

fn trans_loop_suite() -> Suite {
    let case = |name: &str, n: usize, b: usize, warps: u32| {
        let x: Vec<i32> = (0..b * b).map(|i| i as i32 * 5).collect();
        Case::new(name)
            .input("x", x, View::contiguous(&[b, b]))
            .output("y", vec![0i32; b * b], View::contiguous(&[b, b]))
            .int(n as i64)
            .constexpr("B", b as i64)
            .num_warps(warps)
            .grid([1, 1, 1])
    };
    Suite::new(trans_loop())
        .cases([case("tl_0_w4", 0, 16, 4), case("tl_3_w1", 3, 8, 1), case("tl_4_w8", 4, 32, 8)])
        .reference(|c| {
            let b = c.tensor("x").view.shape[0];
            let n = match c.args[2] {
                rtriton_testing::CaseArg::Int(n) => n as usize,
                ref other => panic!("n is an int, got {other:?}"),
            };
            for i in 0..b {
                for j in 0..b {
                    let (si, sj) = if n % 2 == 1 { (j, i) } else { (i, j) };
                    let v = c.tensor("x").i32_at(&[si, sj]) + n as i32;
                    c.tensor_mut("y").set_i32(&[i, j], v);
                }
            }
        })
}

rtriton_testing::backend_tests!(trans_loop_suite => [tl_0_w4, tl_3_w1, tl_4_w8]);

fn trans_if_suite() -> Suite {
    let case = |name: &str, flip: i64, b: usize, warps: u32| {
        let x: Vec<i32> = (0..b * b).map(|i| i as i32 * 7 - 300).collect();
        Case::new(name)
            .input("x", x, View::contiguous(&[b, b]))
            .output("y", vec![0i32; b * b], View::contiguous(&[b, b]))
            .int(flip)
            .constexpr("B", b as i64)
            .num_warps(warps)
            .grid([1, 1, 1])
    };
    Suite::new(trans_if())
        .cases([case("ti_flip_w4", 1, 16, 4), case("ti_keep_w4", 0, 16, 4), case("ti_flip_w8", 1, 32, 8)])
        .reference(|c| {
            let b = c.tensor("x").view.shape[0];
            let flip = matches!(c.args[2], rtriton_testing::CaseArg::Int(f) if f != 0);
            for i in 0..b {
                for j in 0..b {
                    let v = if flip { c.tensor("x").i32_at(&[j, i]) + 1 } else { c.tensor("x").i32_at(&[i, j]) };
                    c.tensor_mut("y").set_i32(&[i, j], v);
                }
            }
        })
}

rtriton_testing::backend_tests!(trans_if_suite => [ti_flip_w4, ti_keep_w4, ti_flip_w8]);

// ---- what the lowering does -------------------------------------------------------------

/// Every suite of this file, for the tables below.
fn suites() -> Vec<Suite> {
    vec![
        tile_scale_suite(),
        square_tile_suite(),
        transpose_suite(),
        transpose_i64_suite(),
        reshape_suite(),
        permute3_suite(),
        outer_difference_suite(),
        join_split_suite(),
        outer_product_suite(),
        loop_outer_suite(),
        row_sums_suite(),
        row_plus_column_suite(),
        scalar_and_pointer_suite(),
        trans_in_3d_suite(),
        trans_loop_suite(),
        trans_if_suite(),
    ]
}

fn suite(name: &str) -> Suite {
    suites().into_iter().find(|s| s.def.name == name).unwrap_or_else(|| panic!("no suite for `{name}`"))
}

/// The program of case `case` of kernel `kernel`'s suite, under Triton's specialization.
fn lowered(kernel: &str, case: usize) -> rtriton::backend::ptx::lir::Program {
    let s = suite(kernel);
    let c = &s.cases[case];
    let args = arg_values(c).unwrap_or_else(|e| panic!("{e}"));
    rtriton_tests::lower_def(&s.def, &c.constexprs, &args, SpecPolicy::Triton, c.num_warps).unwrap()
}

/// Where one value is needed in two layouts the lowering converts it: an index made from
/// an `arange` is recomputed in the other layout (no shared memory), anything else (a
/// loaded vector, a row sum) goes through shared memory. The layout ops always do.
#[rstest]
#[case::one_arange_for_rows_and_columns("tile_scale", 0, 1, 0)]
#[case::tritons_idiom("square_tile", 1, 1, 0)]
#[case::transpose_indices_and_tiles("transpose", 1, 2, 2)]
#[case::loaded_vector_and_row_sum("outer_product", 1, 1, 2)]
#[case::inside_a_loop("loop_outer", 1, 1, 1)]
#[case::no_conflict("reshape_rows", 1, 0, 0)]
#[case::reduction_before_expand_dims("row_sums_by_column", 1, 1, 0)]
#[case::two_reductions_of_one_tile("row_plus_column_sums", 1, 0, 1)]
fn conversions_are_recomputed_or_go_through_shared_memory(
    #[case] kernel: &str,
    #[case] case: usize,
    #[case] recomputed: usize,
    #[case] through_shared: usize,
) {
    let p = lowered(kernel, case);
    let count = |shared: bool| p.decisions.conversions.iter().filter(|d| d.through_shared_memory == shared).count();
    assert_eq!((count(false), count(true)), (recomputed, through_shared), "{:#?}", p.decisions.conversions);
}

/// Barriers come in pairs around every exchange (write, `bar.sync`, read, `bar.sync`), and
/// a kernel with no exchange and no cross-warp reduction uses no shared memory. A
/// `permute` whose result can take the operand's layout with the dims renamed moves
/// nothing (`permute3`: the 4 x 8 x 16 block and its 16 x 4 x 8 permutation).
#[rstest]
#[case::square_tile("square_tile", 0)]
#[case::permute3("permute3", 0)]
#[case::reshape_rows("reshape_rows", 4)]
#[case::transpose_tile_and_mask("transpose", 4)]
#[case::join_split("join_split", 6)]
fn exchanges_synchronize_twice(#[case] kernel: &str, #[case] barriers: usize) {
    let text = rtriton::backend::ptx::write(&lowered(kernel, 1));
    assert_eq!(text.matches("bar.sync 0;").count(), barriers, "{text}");
    assert_eq!(text.contains(".shared"), barriers > 0, "{text}");
}

/// The PTX of every case of every suite assembles for sm_86 and sm_90 without spills.
#[test]
#[cfg_attr(not(has_ptxas), ignore = "needs ptxas on PATH")]
fn layout_kernels_assemble_without_spills() {
    let ptxas = ptx_common::ptxas("layout_kernels_assemble_without_spills");
    let mut checked = 0;
    for s in suites() {
        for c in &s.cases {
            let args = arg_values(c).unwrap_or_else(|e| panic!("{e}"));
            for arch in [Arch::Sm86, Arch::Sm90] {
                let ptx = ptx_common::compile_def(
                    &s.def,
                    &c.constexprs,
                    &args,
                    SpecPolicy::Triton,
                    &ptx_common::options(arch, c.num_warps),
                )
                .unwrap_or_else(|e| panic!("{}: {e}", c.name));
                let info = ptx_common::assemble(&ptxas, &ptx.text, arch.name(), &c.name)
                    .unwrap_or_else(|e| panic!("ptxas rejected {} for {arch}:\n{e}\n{}", c.name, ptx.text));
                assert_eq!(ptx_common::spill_stores(&info), Some(0), "{} on {arch} spills:\n{info}", c.name);
                checked += 1;
            }
        }
    }
    assert_eq!(checked, 2 * suites().iter().map(|s| s.cases.len()).sum::<usize>());
}

/// `rtriton explain` lists each conversion with its line and how it is made.
#[test]
fn explain_lists_the_conversions() {
    use rtriton::explain::{ExplainInput, Section, explain, render};
    let s = suite("outer_product");
    let c = &s.cases[1];
    let args = arg_values(c).unwrap_or_else(|e| panic!("{e}"));
    let input = ExplainInput {
        def: &s.def,
        constexprs: &c.constexprs,
        args: &args,
        policy: SpecPolicy::Triton,
        semantics: rtriton::trace::Semantics::Rtriton,
        extents: &[],
        ptx: Default::default(),
        lint: &Default::default(),
    };
    let text = render(&explain(&input).expect("arguments fit"), &[Section::Vector]);
    let lines: Vec<&str> = text.lines().filter(|l| l.contains("layout conversion at")).collect();
    let line_of = |needle: &str| {
        include_str!("layouts.rs").lines().position(|l| l.contains(needle)).expect("the kernel line") + 1
    };
    let p = line_of("let p = x.expand_dims(1) * x.expand_dims(0);");
    let y = line_of("let y = p + sum(p, 1).expand_dims(0);");
    let mask = line_of("let mask = offs.expand_dims(1).lt(n) & offs.expand_dims(0).lt(n);");
    let at = |line: usize, how: &str| format!("layout conversion at tests/tests/layouts.rs:{line}: {how}: ");
    assert_eq!(lines.len(), 3, "{text}");
    assert!(lines[0].trim_start().starts_with(&at(p, "through shared memory")), "{text}");
    assert!(lines[1].trim_start().starts_with(&at(y, "through shared memory")), "{text}");
    assert!(lines[2].trim_start().starts_with(&at(mask, "recomputed")), "{text}");
    // The converted value is named by where the author made it, not by its IR name.
    let x = line_of("let x = load(x_ptr + offs, Some(offs.lt(n)), Some(0));");
    let origin = format!("the tensor<32xi32> from `load` at tests/tests/layouts.rs:{x} read as");
    assert!(lines[0].contains(&origin), "{text}");
    assert!(!text.contains('%'), "{text}");
}
