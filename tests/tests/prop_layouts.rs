//! Property test of the layout ops: random shapes (rank 1 to 3, power-of-two dims, up to
//! 1024 elements), every permutation of 3 dims, reshapes between any two shapes of one
//! element count, and 1 to 8 warps. Each launch runs on the interpreter (against a
//! plain-Rust model of row-major `permute`/`reshape`) and on the simulator (bit for bit
//! against the interpreter, every check on: shared-memory races, barriers, uninitialized
//! shared bytes). 48 cases per property (`PROPTEST_CASES` overrides).

use proptest::prelude::*;
use proptest::test_runner::Config;
use rtriton::diag::{Code, HasDiagnostics};
use rtriton::kernel;
use rtriton::prelude::*;
use rtriton_testing::{Backend, Case, FailureKind, Suite, View};

/// Row-major element offsets of a block of `shape` (any rank), built from one `arange`
/// per dim, each expanded to the full rank.
fn grid(shape: &[usize]) -> Tensor<i32> {
    let r = shape.len();
    let mut acc: Option<Tensor<i32>> = None;
    let mut stride = 1;
    for d in (0..r).rev() {
        let mut t = arange(0, shape[d]);
        for _ in 0..d {
            t = t.expand_dims(0);
        }
        for k in d + 1..r {
            t = t.expand_dims(k);
        }
        let term = t * stride as i32;
        acc = Some(match acc {
            None => term,
            Some(a) => a + term,
        });
        stride *= shape[d];
    }
    acc.expect("rank >= 1")
}

const PERMS: [[usize; 3]; 6] = [[0, 1, 2], [0, 2, 1], [1, 0, 2], [1, 2, 0], [2, 0, 1], [2, 1, 0]];

kernel! {
    /// y (row-major, the permuted shape) = permute(x, PERMS[P]) of x (A x B x C).
    fn permute_any(x_ptr: Ptr<f32>, y_ptr: Ptr<f32>; const A: usize, const B: usize, const C: usize, const P: usize) {
        let s = [A, B, C];
        let dims = PERMS[P];
        let x = load(x_ptr + grid(&s), None, None);
        store(y_ptr + grid(&dims.map(|d| s[d])), permute(x, &dims), None);
    }
}

/// A shape of rank `RANK` from three dims (only the first `RANK` are used).
fn shape(dims: [usize; 3], rank: usize) -> Vec<usize> {
    dims[..rank].to_vec()
}

kernel! {
    /// y = x, read in one shape (rank RX) and stored in another (rank RY) through `reshape`.
    fn reshape_any(x_ptr: Ptr<i32>, y_ptr: Ptr<i32>; const X0: usize, const X1: usize, const X2: usize, const RX: usize, const Y0: usize, const Y1: usize, const Y2: usize, const RY: usize) {
        let (sx, sy) = (shape([X0, X1, X2], RX), shape([Y0, Y1, Y2], RY));
        let x = load(x_ptr + grid(&sx), None, None);
        store(y_ptr + grid(&sy), reshape(x, &sy), None);
    }
}

/// 48 cases, or `PROPTEST_CASES` (an explicit `cases` would override the variable).
fn config() -> Config {
    let cases = std::env::var("PROPTEST_CASES").ok().and_then(|v| v.parse().ok()).unwrap_or(48);
    Config { cases, ..Config::default() }
}

/// Every split of `2^total` elements into three power-of-two dims.
fn splits(total: u32) -> Vec<[usize; 3]> {
    (0..=total).flat_map(|a| (0..=total - a).map(move |b| [1 << a, 1 << b, 1 << (total - a - b)])).collect()
}

fn warps() -> impl Strategy<Value = u32> {
    prop_oneof![Just(1u32), Just(2), Just(4), Just(8)]
}

/// Runs `suite`'s one case on the interpreter and the simulator. The lowering may refuse
/// a block over the register budget (a vector of 1024 in a 3-D kernel has the threads of
/// one dim only); that refusal, with its code, is the one other outcome allowed.
fn check(suite: &Suite) -> Result<(), TestCaseError> {
    let name = suite.cases[0].name.clone();
    suite.run(&name, Backend::Interpreter).map_err(|f| TestCaseError::fail(f.to_string()))?;
    match suite.run(&name, Backend::Simulator) {
        Ok(()) => Ok(()),
        Err(f)
            if f.0.iter().all(|x| matches!(&x.what, FailureKind::Error(e) if e.has_code(Code::PtxRegisterBudget))) =>
        {
            Ok(())
        }
        Err(f) => Err(TestCaseError::fail(f.to_string())),
    }
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn permute_matches_the_row_major_model(total in 0u32..=10, pick in any::<prop::sample::Index>(), p in 0usize..6, nw in warps(), seed in any::<u32>()) {
        let all = splits(total);
        let [a, b, c] = all[pick.index(all.len())];
        let n = a * b * c;
        let x: Vec<f32> = (0..n).map(|i| f32::from_bits((i as u32).wrapping_mul(2_654_435_761) ^ seed)).collect();
        let case = Case::new("permute")
            .input("x", x, View::contiguous(&[n]))
            .output("y", vec![0.0f32; n], View::contiguous(&[n]))
            .constexpr("A", a as i64).constexpr("B", b as i64).constexpr("C", c as i64).constexpr("P", p as i64)
            .num_warps(nw)
            .grid([1, 1, 1]);
        let suite = Suite::new(permute_any()).case(case).reference(move |c| {
            let s = [a, b, c_dim(c)];
            let dims = PERMS[p];
            let out = dims.map(|d| s[d]);
            for i in 0..s[0] { for j in 0..s[1] { for k in 0..s[2] {
                let src = [i, j, k];
                let dst = dims.map(|d| src[d]);
                let v = c.tensor("x").f32_at(&[(i * s[1] + j) * s[2] + k]);
                c.tensor_mut("y").set_f32(&[(dst[0] * out[1] + dst[1]) * out[2] + dst[2]], v);
            }}}
        });
        check(&suite)?;
    }

    #[test]
    fn reshape_keeps_the_row_major_order(total in 0u32..=10, sx in any::<prop::sample::Index>(), sy in any::<prop::sample::Index>(), rx in 1usize..=3, ry in 1usize..=3, nw in warps()) {
        // A shape of rank r and 2^total elements: the dims past r are folded into the last.
        let fold = |d: [usize; 3], r: usize| { let mut s = d[..r].to_vec(); s[r - 1] *= d[r..].iter().product::<usize>(); s };
        let all = splits(total);
        let (dx, dy) = (fold(all[sx.index(all.len())], rx), fold(all[sy.index(all.len())], ry));
        let n = 1usize << total;
        let x: Vec<i32> = (0..n as i32).map(|i| i.wrapping_mul(-1_640_531_535)).collect();
        let pad = |s: &[usize]| [s[0], *s.get(1).unwrap_or(&1), *s.get(2).unwrap_or(&1)];
        let (px, py) = (pad(&dx), pad(&dy));
        let case = Case::new("reshape")
            .input("x", x, View::contiguous(&[n]))
            .output("y", vec![0i32; n], View::contiguous(&[n]))
            .constexpr("X0", px[0] as i64).constexpr("X1", px[1] as i64).constexpr("X2", px[2] as i64).constexpr("RX", rx as i64)
            .constexpr("Y0", py[0] as i64).constexpr("Y1", py[1] as i64).constexpr("Y2", py[2] as i64).constexpr("RY", ry as i64)
            .num_warps(nw)
            .grid([1, 1, 1]);
        // Row-major in and out: y is x.
        let suite = Suite::new(reshape_any()).case(case).reference(|c| {
            let x = c.tensor("x").data.clone();
            c.tensor_mut("y").data = x;
        });
        check(&suite)?;
    }
}

/// The third dim of the permute case (the product of the shape is the buffer's length).
fn c_dim(c: &Case) -> usize {
    let dims: Vec<i64> =
        ["A", "B", "C"].iter().map(|n| c.constexprs.iter().find(|(k, _)| k == n).expect("dim").1).collect();
    dims[2] as usize
}
