//! The functions of Triton's `standard.py` that rtriton writes with other ops
//! (`zeros_like`, `ravel`, `interleave`, `swizzle2d`, `softmax`, `reduce_or`), each
//! against a reference computed here, on the interpreter and the simulator, and their
//! PTX through ptxas.

mod ptx_common;

use rstest::rstest;
use rtriton::backend::ptx::Arch;
use rtriton::kernel;
use rtriton::prelude::*;
use rtriton::spec::{ArgValue, SpecPolicy};
use rtriton::trace::KernelDef;
use rtriton_testing::{Backend, Case, Data, Rule, Suite, View};

const R: usize = 4;
const C: usize = 16;

kernel! {
    /// `y = ravel(x + zeros_like(x))` of an `R x C` block: `x`'s elements in row-major order.
    fn ravel_zeros(x_ptr: Ptr<f32>, y_ptr: Ptr<f32>) {
        let offs = arange(0, R).expand_dims(1) * C as i32 + arange(0, C).expand_dims(0);
        let x = load(x_ptr + offs, None, None);
        store(y_ptr + arange(0, R * C), ravel(x + zeros_like(x)), None);
    }
}

kernel! {
    /// `y = interleave(a, b)`: `R x 2C`, `y[r, 2c] = a[r, c]`, `y[r, 2c + 1] = b[r, c]`.
    fn interleaved(a_ptr: Ptr<i32>, b_ptr: Ptr<i32>, y_ptr: Ptr<i32>) {
        let rows = arange(0, R).expand_dims(1);
        let offs = rows * C as i32 + arange(0, C).expand_dims(0);
        let y = interleave(load(a_ptr + offs, None, None), load(b_ptr + offs, None, None));
        store(y_ptr + rows * (2 * C) as i32 + arange(0, 2 * C).expand_dims(0), y, None);
    }
}

kernel! {
    /// `swizzle2d` of every `(i, j)` of an `R x C` grid in groups of `g` rows.
    fn swizzled(yi_ptr: Ptr<i32>, yj_ptr: Ptr<i32>, g: i32) {
        let i = arange(0, R).expand_dims(1).broadcast_to(&[R, C]);
        let j = arange(0, C).expand_dims(0).broadcast_to(&[R, C]);
        let (ni, nj) = swizzle2d(i, j, full::<i32>(&[], R as i32), full::<i32>(&[], C as i32), g);
        let offs = i * C as i32 + j;
        store(yi_ptr + offs, ni, None);
        store(yj_ptr + offs, nj, None);
    }
}

kernel! {
    /// `softmax` of an `R x C` block along `DIM`, `fdiv` or `div_rn` (`IEEE` 1).
    fn softmaxed(x_ptr: Ptr<f32>, y_ptr: Ptr<f32>; const DIM: usize, const IEEE: usize) {
        let offs = arange(0, R).expand_dims(1) * C as i32 + arange(0, C).expand_dims(0);
        let x = load(x_ptr + offs, None, None);
        store(y_ptr + offs, softmax_with(x, DIM, IEEE == 1), None);
    }
}

kernel! {
    /// `y[r] = reduce_or(x[r, :])`.
    fn ored(x_ptr: Ptr<i32>, y_ptr: Ptr<i32>) {
        let offs = arange(0, R).expand_dims(1) * C as i32 + arange(0, C).expand_dims(0);
        store(y_ptr + arange(0, R), load(x_ptr + offs, None, None).reduce_or(1), None);
    }
}

fn f32s(seed: u32, n: usize) -> Vec<f32> {
    (0..n).map(|i| (((i as u32).wrapping_mul(2_654_435_761) ^ seed) % 2001) as f32 / 250.0 - 4.0).collect()
}

fn i32s(seed: u32, n: usize) -> Vec<i32> {
    (0..n).map(|i| (i as u32).wrapping_mul(2_246_822_519).rotate_left(seed) as i32).collect()
}

fn suites() -> Vec<(Suite, Rule)> {
    let n = R * C;
    let x = f32s(7, n);
    let ravel = Suite::new(ravel_zeros())
        .case(Case::new("ravel").input("x", x.clone(), View::contiguous(&[n])).output(
            "y",
            vec![f32::NAN; n],
            View::contiguous(&[n]),
        ))
        .reference(|case| {
            let x = case.tensor("x").data.clone();
            case.tensor_mut("y").data = x;
        });
    let (a, b) = (i32s(3, n), i32s(11, n));
    let interleave = Suite::new(interleaved())
        .case(
            Case::new("interleave").input("a", a, View::contiguous(&[n])).input("b", b, View::contiguous(&[n])).output(
                "y",
                vec![0i32; 2 * n],
                View::contiguous(&[2 * n]),
            ),
        )
        .reference(|case| {
            let (Data::I32(a), Data::I32(b)) = (&case.tensor("a").data, &case.tensor("b").data) else { unreachable!() };
            let y: Vec<i32> = (0..R * C).flat_map(|e| [a[e], b[e]]).collect();
            case.tensor_mut("y").data = Data::I32(y);
        });
    let swizzle = Suite::new(swizzled())
        .cases([1, 3, 4].map(|g| {
            Case::new(format!("g={g}"))
                .output("yi", vec![-1i32; n], View::contiguous(&[n]))
                .output("yj", vec![-1i32; n], View::contiguous(&[n]))
                .int(g)
        }))
        .reference(|case| {
            let g = case.name.trim_start_matches("g=").parse::<usize>().unwrap();
            let (yi, yj) = swizzle_ref(g);
            case.tensor_mut("yi").data = Data::I32(yi);
            case.tensor_mut("yj").data = Data::I32(yj);
        });
    let or = Suite::new(ored())
        .case(
            Case::new("or")
                .input(
                    "x",
                    i32s(5, n).into_iter().map(|v| v & (1 << (v as u32 % 31))).collect::<Vec<_>>(),
                    View::contiguous(&[n]),
                )
                .output("y", vec![0i32; R], View::contiguous(&[R])),
        )
        .reference(|case| {
            let Data::I32(x) = &case.tensor("x").data else { unreachable!() };
            let y: Vec<i32> = x.chunks(C).map(|row| row.iter().fold(0, |a, &v| a | v)).collect();
            case.tensor_mut("y").data = Data::I32(y);
        });
    let softmax = Suite::new(softmaxed())
        .cases([(0, 0), (1, 0), (1, 1)].map(|(dim, ieee)| {
            Case::new(format!("dim={dim} ieee={ieee}"))
                .input("x", x.clone(), View::contiguous(&[n]))
                .output("y", vec![f32::NAN; n], View::contiguous(&[n]))
                .constexpr("DIM", dim)
                .constexpr("IEEE", ieee)
        }))
        .reference(|case| {
            let dim = usize::from(case.name.starts_with("dim=1"));
            let Data::F32(x) = &case.tensor("x").data else { unreachable!() };
            case.tensor_mut("y").data = Data::F32(softmax_ref(x, dim));
        });
    // The exponentials are PTX's `ex2.approx` (2 ulp), the division `div.full` or `div.rn`:
    // an absolute 1e-6 on values in [0, 1] holds either way.
    vec![
        (ravel, Rule::BITS),
        (interleave, Rule::BITS),
        (swizzle, Rule::BITS),
        (or, Rule::BITS),
        (softmax, Rule::approx(1e-6, 0.0)),
    ]
}

/// Triton's `swizzle2d` by its description, not its arithmetic: walk the grid in groups of
/// `g` rows (the last may have fewer), each group column by column, and give the `k`-th
/// row-major index the `k`-th position of that walk.
fn swizzle_ref(g: usize) -> (Vec<i32>, Vec<i32>) {
    let mut walk = Vec::with_capacity(R * C);
    for first in (0..R).step_by(g) {
        let rows = g.min(R - first);
        for j in 0..C {
            for i in first..first + rows {
                walk.push((i as i32, j as i32));
            }
        }
    }
    walk.into_iter().unzip()
}

fn softmax_ref(x: &[f32], dim: usize) -> Vec<f32> {
    let at = |r: usize, c: usize| f64::from(x[r * C + c]);
    let mut y = vec![0f32; R * C];
    let (outer, inner) = if dim == 1 { (R, C) } else { (C, R) };
    for o in 0..outer {
        let idx = |k: usize| if dim == 1 { (o, k) } else { (k, o) };
        let m = (0..inner).map(|k| at(idx(k).0, idx(k).1)).fold(f64::NEG_INFINITY, f64::max);
        let s: f64 = (0..inner).map(|k| (at(idx(k).0, idx(k).1) - m).exp()).sum();
        for k in 0..inner {
            let (r, c) = idx(k);
            y[r * C + c] = ((at(r, c) - m).exp() / s) as f32;
        }
    }
    y
}

#[rstest]
fn each_function_matches_its_reference(#[values(Backend::Interpreter, Backend::Simulator)] backend: Backend) {
    for (suite, rule) in suites() {
        let suite = suite.rule(rule);
        let names: Vec<String> = suite.cases.iter().map(|c| c.name.clone()).collect();
        for name in names {
            suite.check(&name, backend);
        }
    }
}

/// The walk `swizzle_ref` describes is a permutation of the grid, so the check above
/// compares against a mapping that loses no index.
#[test]
fn the_reference_swizzle_is_a_permutation() {
    for g in 1..=R {
        let (i, j) = swizzle_ref(g);
        let mut seen: Vec<(i32, i32)> = i.into_iter().zip(j).collect();
        seen.sort_unstable();
        seen.dedup();
        assert_eq!(seen.len(), R * C, "g = {g}");
    }
}

/// A kernel with the arguments and constexprs it is compiled for.
type Launch = (KernelDef, Vec<ArgValue>, Vec<(&'static str, i64)>);

#[test]
#[cfg_attr(not(has_ptxas), ignore = "needs ptxas on PATH")]
fn their_ptx_assembles_without_spills() {
    let ptxas = ptx_common::ptxas("standard_lib");
    let ptr = |i: u64| ArgValue::Ptr(0x7f00_0000_0000 + (i << 32));
    let kernels: Vec<Launch> = vec![
        (ravel_zeros(), vec![ptr(0), ptr(1)], vec![]),
        (interleaved(), vec![ptr(0), ptr(1), ptr(2)], vec![]),
        (swizzled(), vec![ptr(0), ptr(1), ArgValue::Int(3)], vec![]),
        (softmaxed(), vec![ptr(0), ptr(1)], vec![("DIM", 1), ("IEEE", 0)]),
        (ored(), vec![ptr(0), ptr(1)], vec![]),
    ];
    for (def, args, constexprs) in kernels {
        for arch in [Arch::Sm86, Arch::Sm90] {
            let p =
                ptx_common::compile_def(&def, &constexprs, &args, SpecPolicy::Triton, &ptx_common::options(arch, 4))
                    .unwrap_or_else(|e| panic!("{}: {e}", def.name));
            let info = ptx_common::assemble(&ptxas, &p.text, arch.name(), def.name)
                .unwrap_or_else(|e| panic!("{} {arch}: {e}", def.name));
            assert_eq!(ptx_common::spill_stores(&info), Some(0), "{} {arch}", def.name);
        }
    }
}
