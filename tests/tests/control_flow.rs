//! Runtime control flow (`if_`, `if_then`, `while_loop`, and both inside `for_range`) on
//! every back end: each kernel's cases run through the harness (`rtriton-testing`) on the
//! interpreter and on the simulator (which must agree bit for bit, with every simulator
//! check on) and, ignored here, on the GPU, all against a plain-Rust reference. The cases
//! cover programs that take different branches, while loops of 0, 1 and many iterations
//! whose trip count is loaded per program, conditions read from memory on every
//! iteration, conditions computed by a cross-warp reduction (a barrier inside the loop),
//! carried tensors and scalars of every dtype, an array of carried tensors, special values
//! and masked tails. ptxas
//! assembles every kernel's PTX for sm_86 and sm_90 without spills.

mod ptx_common;

use rstest::rstest;
use rtriton::backend::ptx::lir::Inst;
use rtriton::kernel;
use rtriton::prelude::*;
use rtriton::spec::SpecPolicy;
use rtriton::trace::KernelDef;
use rtriton_testing::fill::{ramp_f32, special_f32};
use rtriton_testing::suite::arg_values;
use rtriton_testing::{Case, Rule, Suite, View};
use rtriton_tests::lower_def;

/// Floats of 0xAB bytes: what an output holds where the kernel does not store.
const UNTOUCHED: f32 = f32::from_bits(0xABAB_ABAB);

fn contiguous(n: usize) -> View {
    View::contiguous(&[n])
}

// ---- if_ with else: each program takes its own branch --------------------------------

kernel! {
    /// Each program loads its flag and takes its own branch: doubled values and its id,
    /// or negated values and `-id - 1` (a block and a scalar yielded out of the `if_`).
    fn branch_per_program(x: Ptr<f32>, flags: Ptr<i32>, y: Ptr<f32>, tag: Ptr<i32>, n: i32; const BLOCK: usize) {
        let pid = program_id(0);
        let offs = pid * BLOCK as i32 + arange(0, BLOCK);
        let mask = offs.lt(n);
        let v = load(x + offs, Some(mask), Some(0.0));
        let flag = load(flags + pid, None, None);
        let (r, t) = if_(flag.gt(0), || (v * 2.0f32, pid), || (-v, pid * -1 - 1));
        store(y + offs, r, Some(mask));
        store(tag + pid, t, None);
    }
}

fn branch_case(name: &str, n: usize, block: usize, flags: Vec<i32>, num_warps: u32) -> Case {
    let programs = n.div_ceil(block);
    assert_eq!(flags.len(), programs, "{name}: one flag per program");
    Case::new(name)
        .input("x", special_f32(n), contiguous(n))
        .input("flags", flags, contiguous(programs))
        .output("y", vec![UNTOUCHED; n], contiguous(n))
        .output("tag", vec![0i32; programs], contiguous(programs))
        .int(n as i64)
        .constexpr("BLOCK", block as i64)
        .num_warps(num_warps)
        .grid([programs as u32, 1, 1])
}

fn branch_suite() -> Suite {
    Suite::new(branch_per_program())
        .cases([
            // 3 programs of 64, the last with a masked tail, taking then / else / then.
            branch_case("mixed_branches", 150, 64, vec![1, 0, 5], 4),
            branch_case("every_program_then", 100, 16, vec![1; 7], 1),
            branch_case("every_program_else", 100, 16, vec![0; 7], 8),
            branch_case("alternating_one_warp", 37, 8, vec![3, -1, 0, 9, 0], 1),
        ])
        .reference(|case| {
            let n = case.tensor("x").data.len();
            let block = case.constexprs[0].1 as usize;
            for i in 0..n {
                let (x, flag) = (case.tensor("x").f32_at(&[i]), case.tensor("flags").i32_at(&[i / block]));
                let y = if flag > 0 { x * 2.0 } else { f32::from_bits(x.to_bits() ^ 0x8000_0000) };
                case.tensor_mut("y").set_f32(&[i], y);
            }
            for p in 0..n.div_ceil(block) {
                let taken = case.tensor("flags").i32_at(&[p]) > 0;
                case.tensor_mut("tag").set_i32(&[p], if taken { p as i32 } else { -(p as i32) - 1 });
            }
        })
        // GPU multiplication returns the canonical NaN; the negation keeps payloads.
        .rule(Rule::BITS.any_nan())
}

rtriton_testing::backend_tests!(branch_suite => [
    mixed_branches,
    every_program_then,
    every_program_else,
    alternating_one_warp,
]);

// ---- if_then: a branch without else and without results ------------------------------

kernel! {
    /// Programs below `first_skipped` store `x + 1`; the others store nothing.
    fn store_below(x: Ptr<f32>, y: Ptr<f32>, n: i32, first_skipped: i32; const BLOCK: usize) {
        let pid = program_id(0);
        let offs = pid * BLOCK as i32 + arange(0, BLOCK);
        let mask = offs.lt(n);
        if_then(pid.lt(first_skipped), || {
            let v = load(x + offs, Some(mask), Some(0.0));
            store(y + offs, v + 1.0f32, Some(mask));
        });
    }
}

fn store_below_case(name: &str, n: usize, block: usize, first_skipped: i64) -> Case {
    Case::new(name)
        .input("x", ramp_f32(n, -4.0, 0.25), contiguous(n))
        .output("y", vec![UNTOUCHED; n], contiguous(n))
        .int(n as i64)
        .int(first_skipped)
        .constexpr("BLOCK", block as i64)
        .grid([n.div_ceil(block) as u32, 1, 1])
}

fn store_below_suite() -> Suite {
    Suite::new(store_below())
        .cases([
            store_below_case("some_programs_store", 200, 32, 3),
            store_below_case("no_program_stores", 200, 32, 0),
            store_below_case("every_program_stores", 200, 32, 100),
        ])
        .reference(|case| {
            let first_skipped = match case.args[3] {
                rtriton_testing::CaseArg::Int(v) => v,
                ref other => panic!("first_skipped is an int, got {other:?}"),
            };
            for i in 0..case.tensor("x").data.len() {
                if ((i / 32) as i64) < first_skipped {
                    let v = case.tensor("x").f32_at(&[i]) + 1.0;
                    case.tensor_mut("y").set_f32(&[i], v);
                }
            }
        })
        .rule(Rule::BITS)
}

rtriton_testing::backend_tests!(store_below_suite => [some_programs_store, no_program_stores, every_program_stores]);

// ---- nested ifs inside a for_range ------------------------------------------------------

kernel! {
    /// One row per program, in blocks: even blocks add, odd blocks before `limit` subtract,
    /// later odd blocks take the maximum (an if nested in the else branch of an if, inside
    /// a for loop, carrying the block accumulator through all three).
    fn nested_in_for(x: Ptr<f32>, y: Ptr<f32>, n: i32, limit: i32; const BLOCK: usize) {
        let pid = program_id(0);
        let row = x + pid * n;
        let cols = arange(0, BLOCK);
        let acc = full::<f32>(&[BLOCK], 0.0);
        let acc = for_range(0, n, BLOCK as i32, acc, |start, acc| {
            let c = start + cols;
            let v = load(row + c, Some(c.lt(n)), Some(0.0));
            let even = (start / BLOCK as i32 % 2).eq(0);
            if_(even, || acc + v, || if_(start.lt(limit), || acc - v, || maximum(acc, v)))
        });
        store(y + pid * BLOCK as i32 + cols, acc, None);
    }
}

fn nested_case(name: &str, rows: usize, n: usize, block: usize, limit: i64, num_warps: u32) -> Case {
    Case::new(name)
        .input("x", ramp_f32(rows * n, -20.0, 0.375), contiguous(rows * n))
        .output("y", vec![UNTOUCHED; rows * block], contiguous(rows * block))
        .int(n as i64)
        .int(limit)
        .constexpr("BLOCK", block as i64)
        .num_warps(num_warps)
        .grid([rows as u32, 1, 1])
}

fn nested_suite() -> Suite {
    Suite::new(nested_in_for())
        .cases([
            // 7 blocks of 16 (the last masked): add, sub, add, max, add, max, add.
            nested_case("four_kinds_of_block", 3, 100, 16, 20, 4),
            nested_case("one_block", 2, 10, 16, 0, 1),
            nested_case("every_odd_block_subtracts", 2, 130, 32, 1000, 8),
            nested_case("zero_columns", 2, 0, 16, 0, 4),
        ])
        .reference(|case| {
            let block = case.constexprs[0].1 as usize;
            let int = |i: usize| match case.args[i] {
                rtriton_testing::CaseArg::Int(v) => v as usize,
                ref other => panic!("an int argument, got {other:?}"),
            };
            let (n, limit) = (int(2), int(3));
            let rows = case.tensor("y").data.len() / block;
            for r in 0..rows {
                for lane in 0..block {
                    let mut acc = 0.0f32;
                    for start in (0..n).step_by(block) {
                        let c = start + lane;
                        let v = if c < n { case.tensor("x").f32_at(&[r * n + c]) } else { 0.0 };
                        acc = if (start / block).is_multiple_of(2) {
                            acc + v
                        } else if start < limit {
                            acc - v
                        } else {
                            acc.max(v) // no NaN or signed-zero tie in these ramps
                        };
                    }
                    case.tensor_mut("y").set_f32(&[r * block + lane], acc);
                }
            }
        })
        .rule(Rule::BITS)
}

rtriton_testing::backend_tests!(nested_suite => [four_kinds_of_block, one_block, every_odd_block_subtracts, zero_columns]);

// ---- an array of tensors carried around a for_range ------------------------------------

kernel! {
    /// One row per program, in blocks of `BLOCK` columns: the loop carries `[running sum,
    /// running max, last block]`, an array (`[Tensor; 3]`), and writes each after the loop.
    fn carries_an_array(x: Ptr<f32>, y: Ptr<f32>, n: i32; const BLOCK: usize) {
        let pid = program_id(0);
        let row = x + pid * n;
        let cols = arange(0, BLOCK);
        let init: [Tensor<f32>; 3] = [
            full::<f32>(&[BLOCK], 0.0),
            full::<f32>(&[BLOCK], f32::NEG_INFINITY),
            full::<f32>(&[BLOCK], -1.0),
        ];
        let [total, top, last] = for_range(0, n, BLOCK as i32, init, |start, [total, top, _]| {
            let c = start + cols;
            let v = load(row + c, Some(c.lt(n)), Some(0.0));
            [total + v, maximum(top, v), v]
        });
        let out = y + pid * (3 * BLOCK) as i32 + cols;
        store(out, total, None);
        store(out + BLOCK as i32, top, None);
        store(out + (2 * BLOCK) as i32, last, None);
    }
}

fn array_case(name: &str, rows: usize, n: usize, block: usize, num_warps: u32) -> Case {
    Case::new(name)
        .input("x", ramp_f32(rows * n, -7.0, 0.25), contiguous(rows * n))
        .output("y", vec![UNTOUCHED; rows * 3 * block], contiguous(rows * 3 * block))
        .int(n as i64)
        .constexpr("BLOCK", block as i64)
        .num_warps(num_warps)
        .grid([rows as u32, 1, 1])
}

fn array_suite() -> Suite {
    Suite::new(carries_an_array())
        .cases([
            // 4 blocks of 16, the last masked (its lanes past the row add 0 and take max(top, 0)).
            array_case("four_blocks_masked_tail", 3, 57, 16, 2),
            array_case("zero_trips", 2, 0, 32, 1),
        ])
        .reference(|case| {
            let block = case.constexprs[0].1 as usize;
            let n = match case.args[2] {
                rtriton_testing::CaseArg::Int(v) => v as usize,
                ref other => panic!("an int argument, got {other:?}"),
            };
            let rows = case.tensor("y").data.len() / (3 * block);
            for r in 0..rows {
                for lane in 0..block {
                    let (mut total, mut top, mut last) = (0.0f32, f32::NEG_INFINITY, -1.0f32);
                    for start in (0..n).step_by(block) {
                        let c = start + lane;
                        let v = if c < n { case.tensor("x").f32_at(&[r * n + c]) } else { 0.0 };
                        (total, top, last) = (total + v, top.max(v), v);
                    }
                    let base = r * 3 * block + lane;
                    case.tensor_mut("y").set_f32(&[base], total);
                    case.tensor_mut("y").set_f32(&[base + block], top);
                    case.tensor_mut("y").set_f32(&[base + 2 * block], last);
                }
            }
        })
        // Quarter steps from -7: every sum is exact in f32, whatever the order.
        .rule(Rule::BITS)
}

rtriton_testing::backend_tests!(array_suite => [four_blocks_masked_tail, zero_trips]);

// ---- while_loop with a per-program trip count and carried values of every dtype ---------

kernel! {
    /// Each program runs `steps[pid]` iterations (0, 1 or many), carrying a block of f32,
    /// an i32 counter, an i64 sum and an i1 parity through the loop.
    fn counted_while(x: Ptr<f32>, steps: Ptr<i32>, y: Ptr<f32>, total: Ptr<i64>, parity: Ptr<i32>; const BLOCK: usize) {
        let pid = program_id(0);
        let offs = pid * BLOCK as i32 + arange(0, BLOCK);
        let v = load(x + offs, None, None);
        let limit = load(steps + pid, None, None);
        let init = (v, full::<i32>(&[], 0), full::<i64>(&[], 0), full::<bool>(&[], false));
        let (v, _, sum, odd) = while_loop(
            init,
            |(_, i, _, _)| i.lt(limit),
            |(v, i, sum, odd)| (v * 0.5f32 + 1.0f32, i + 1, sum + i.to::<i64>() * 1_000_000_007i64, !odd),
        );
        store(y + offs, v, None);
        store(total + pid, sum, None);
        store(parity + pid, odd.to::<i32>(), None);
    }
}

fn counted_case(name: &str, block: usize, steps: Vec<i32>, num_warps: u32) -> Case {
    let programs = steps.len();
    let n = programs * block;
    Case::new(name)
        .input("x", special_f32(n), contiguous(n))
        .input("steps", steps, contiguous(programs))
        .output("y", vec![UNTOUCHED; n], contiguous(n))
        .output("total", vec![0i64; programs], contiguous(programs))
        .output("parity", vec![0i32; programs], contiguous(programs))
        .constexpr("BLOCK", block as i64)
        .num_warps(num_warps)
        .grid([programs as u32, 1, 1])
}

fn counted_suite() -> Suite {
    Suite::new(counted_while())
        .cases([
            counted_case("zero_one_and_many_iterations", 32, vec![0, 1, 7, 3], 4),
            counted_case("no_program_iterates", 16, vec![0, 0], 1),
            counted_case("negative_bound_runs_nothing", 64, vec![-5, 2], 8),
            counted_case("long_loop", 128, vec![40], 4),
        ])
        .reference(|case| {
            let block = case.constexprs[0].1 as usize;
            let programs = case.tensor("steps").data.len();
            for p in 0..programs {
                let steps = case.tensor("steps").i32_at(&[p]).max(0);
                for lane in 0..block {
                    let mut v = case.tensor("x").f32_at(&[p * block + lane]);
                    for _ in 0..steps {
                        v = v * 0.5 + 1.0;
                    }
                    case.tensor_mut("y").set_f32(&[p * block + lane], v);
                }
                let sum: i64 = (0..i64::from(steps)).map(|i| i * 1_000_000_007).sum();
                case.tensor_mut("total").data.as_i64_mut().unwrap()[p] = sum;
                case.tensor_mut("parity").set_i32(&[p], steps % 2);
            }
        })
        .rule(Rule::BITS.any_nan())
}

rtriton_testing::backend_tests!(counted_suite => [
    zero_one_and_many_iterations,
    no_program_iterates,
    negative_bound_runs_nothing,
    long_loop,
]);

// ---- while_loop whose condition reads memory on every iteration -------------------------

kernel! {
    /// The index of the first element of each row that is not `<= threshold` (`n` when
    /// there is none): a linear search whose condition loads the element it tests, masked
    /// at the row's end (NaN stops the search: `NaN <= t` is false).
    fn first_above(x: Ptr<f32>, out: Ptr<i32>, n: i32, threshold: f32) {
        let row = x + program_id(0) * n;
        let found = while_loop(
            full::<i32>(&[], 0),
            |i| {
                let inside = i.lt(n);
                let v = load(row + i, Some(inside), Some(f32::INFINITY));
                inside & v.le(threshold)
            },
            |i| i + 1,
        );
        store(out + program_id(0), found, None);
    }
}

fn search_case(name: &str, rows: Vec<Vec<f32>>, threshold: f32) -> Case {
    let n = rows[0].len();
    let flat: Vec<f32> = rows.concat();
    Case::new(name)
        .input("x", flat.clone(), contiguous(flat.len().max(1)))
        .output("out", vec![-1i32; rows.len()], contiguous(rows.len()))
        .int(n as i64)
        .f32(threshold)
        .num_warps(2)
        .grid([rows.len() as u32, 1, 1])
}

fn search_suite() -> Suite {
    let nan = f32::from_bits(0x7FC0_1234);
    Suite::new(first_above())
        .cases([
            search_case(
                "stops_at_first_above_nan_or_end",
                vec![
                    vec![0.0, 1.0, 9.0, 2.0, 10.0],
                    vec![5.0, 0.0, 0.0, 0.0, 0.0],
                    vec![-1.0, -0.0, 0.0, 1.0, 2.0],
                    vec![0.0, nan, 0.0, 7.0, 0.0],
                    vec![f32::NEG_INFINITY, 3.0, f32::INFINITY, 0.0, 0.0],
                ],
                3.0,
            ),
            search_case("one_element_rows", vec![vec![4.0], vec![-4.0], vec![f32::from_bits(1)]], 0.0),
        ])
        .reference(|case| {
            let rows = case.tensor("out").data.len();
            let n = case.tensor("x").data.len() / rows;
            let t = match case.args[3] {
                rtriton_testing::CaseArg::F32(v) => v,
                ref other => panic!("threshold is an f32, got {other:?}"),
            };
            for r in 0..rows {
                // The search goes on while `x <= t` holds (false for NaN, as in the kernel).
                let goes_on =
                    |x: f32| matches!(x.partial_cmp(&t), Some(std::cmp::Ordering::Less | std::cmp::Ordering::Equal));
                let i = (0..n).find(|&i| !goes_on(case.tensor("x").f32_at(&[r * n + i]))).unwrap_or(n);
                case.tensor_mut("out").set_i32(&[r], i as i32);
            }
        })
        .rule(Rule::BITS)
}

rtriton_testing::backend_tests!(search_suite => [stops_at_first_above_nan_or_end, one_element_rows]);

// ---- reductions (barriers) inside a while condition and inside if branches --------------

kernel! {
    /// Halves a block until its maximum (a cross-warp reduction, so shared memory and
    /// `bar.sync` in the loop's condition) is at most `limit`, then stores the block, the
    /// number of halvings, and its sum or minimum depending on the count's parity (a
    /// reduction in each branch of an if).
    fn shrink_block(x: Ptr<f32>, y: Ptr<f32>, count: Ptr<i32>, last: Ptr<f32>, limit: f32; const BLOCK: usize) {
        let pid = program_id(0);
        let offs = pid * BLOCK as i32 + arange(0, BLOCK);
        let v = load(x + offs, None, None);
        let (v, k) = while_loop((v, full::<i32>(&[], 0)), |(v, _)| max(v, 0).gt(limit), |(v, k)| (v * 0.5f32, k + 1));
        let r = if_((k % 2).eq(0), || max(v, 0), || min(v, 0));
        store(y + offs, v, None);
        store(count + pid, k, None);
        store(last + pid, r, None);
    }
}

fn shrink_case(name: &str, block: usize, programs: usize, num_warps: u32) -> Case {
    let n = block * programs;
    // Program p's block reaches up to 2^(p + 1), so the programs halve 0, 1, 2... times
    // more than each other (and a NaN is ignored by `max`).
    let x: Vec<f32> = (0..n)
        .map(|i| {
            let p = i / block;
            if i % block == 5 {
                f32::from_bits(0x7FC0_0001)
            } else {
                (i % block) as f32 / block as f32 * (1 << (p + 1)) as f32
            }
        })
        .collect();
    Case::new(name)
        .input("x", x, contiguous(n))
        .output("y", vec![UNTOUCHED; n], contiguous(n))
        .output("count", vec![-1i32; programs], contiguous(programs))
        .output("last", vec![UNTOUCHED; programs], contiguous(programs))
        .f32(1.0)
        .constexpr("BLOCK", block as i64)
        .num_warps(num_warps)
        .grid([programs as u32, 1, 1])
}

fn shrink_suite() -> Suite {
    Suite::new(shrink_block())
        .cases([
            shrink_case("across_warps", 256, 4, 4),
            shrink_case("eight_warps", 1024, 3, 8),
            shrink_case("one_warp", 32, 3, 1),
        ])
        .reference(|case| {
            let block = case.constexprs[0].1 as usize;
            let programs = case.tensor("count").data.len();
            let nan_max = |v: &[f32]| v.iter().copied().filter(|x| !x.is_nan()).fold(f32::NEG_INFINITY, f32::max);
            for p in 0..programs {
                let mut v: Vec<f32> = (0..block).map(|l| case.tensor("x").f32_at(&[p * block + l])).collect();
                let mut k = 0;
                while nan_max(&v) > 1.0 {
                    v.iter_mut().for_each(|x| *x *= 0.5);
                    k += 1;
                }
                let r = if k % 2 == 0 {
                    nan_max(&v)
                } else {
                    v.iter().copied().filter(|x| !x.is_nan()).fold(f32::INFINITY, f32::min)
                };
                for (l, x) in v.iter().enumerate() {
                    case.tensor_mut("y").set_f32(&[p * block + l], *x);
                }
                case.tensor_mut("count").set_i32(&[p], k);
                case.tensor_mut("last").set_f32(&[p], r);
            }
        })
        .rule(Rule::BITS.any_nan())
}

rtriton_testing::backend_tests!(shrink_suite => [across_warps, eight_warps, one_warp]);

// ---- what the lowering emits, and ptxas ---------------------------------------------------

/// Every kernel of this file with one case to lower it for.
fn every_kernel() -> Vec<(KernelDef, Case)> {
    let first = |s: Suite| {
        let case = s.cases[0].clone();
        (s.def, case)
    };
    vec![
        first(branch_suite()),
        first(store_below_suite()),
        first(nested_suite()),
        first(counted_suite()),
        first(search_suite()),
        first(shrink_suite()),
    ]
}

fn lowered(def: &KernelDef, case: &Case, num_warps: u32) -> rtriton::backend::ptx::lir::Program {
    let args = arg_values(case).unwrap_or_else(|e| panic!("{e}"));
    lower_def(def, &case.constexprs, &args, SpecPolicy::Triton, num_warps).unwrap_or_else(|e| panic!("{e}"))
}

/// Branches are uniform (`bra.uni`), both the if's skip and the while's back edge; the
/// kernels that branch print labels, and every structured instruction is in the lir.
#[test]
fn branches_are_uniform_and_structured() {
    for (def, case) in every_kernel() {
        let program = lowered(&def, &case, 4);
        let text = rtriton::backend::ptx::write(&program);
        let branches: Vec<&str> = text
            .lines()
            .filter(|l| {
                !l.trim_start().starts_with("//") && l.split_whitespace().any(|w| w == "bra" || w.starts_with("bra."))
            })
            .collect();
        assert!(!branches.is_empty(), "{}: no branch\n{text}", def.name);
        let divergent: Vec<&&str> = branches.iter().filter(|l| !l.contains("bra.uni")).collect();
        assert!(divergent.is_empty(), "{}: branches that are not uniform: {divergent:?}\n{text}", def.name);
        let structured = program.walk().iter().filter(|i| matches!(i, Inst::If { .. } | Inst::While { .. })).count();
        assert!(structured > 0, "{}: no if or while in the lir", def.name);
    }
    let text = rtriton::backend::ptx::write(&lowered(&store_below(), &store_below_suite().cases[0], 4));
    assert!(text.contains("IF0_END:") && !text.contains("IF0_ELSE:"), "an if without else jumps to its end\n{text}");
    let text = rtriton::backend::ptx::write(&lowered(&counted_while(), &counted_suite().cases[0], 4));
    assert!(text.contains("WHILE0_HEAD:") && text.contains("bra.uni WHILE0_HEAD;"), "a while jumps back\n{text}");
}

/// ptxas assembles every kernel's PTX for sm_86 and sm_90 with no spills.
#[rstest]
#[cfg_attr(not(has_ptxas), ignore = "needs ptxas on PATH")]
fn every_kernel_assembles_without_spills(#[values(1, 4, 8)] num_warps: u32) {
    let ptxas = ptx_common::ptxas("every_kernel_assembles_without_spills");
    for (def, case) in every_kernel() {
        let text = rtriton::backend::ptx::write(&lowered(&def, &case, num_warps));
        for arch in ["sm_86", "sm_90"] {
            let info = ptx_common::assemble(&ptxas, &text, arch, def.name).unwrap_or_else(|e| panic!("{e}\n{text}"));
            assert!(info.contains(&format!("entry function '{}'", def.name)), "{info}");
            assert_eq!(ptx_common::spill_stores(&info), Some(0), "{} spills on {arch}:\n{info}", def.name);
        }
    }
}

/// The simulator counts no divergent loop in these kernels (every thread of a CTA takes
/// the same path), and every case runs on one to eight warps.
#[test]
fn no_case_diverges_inside_a_cta() {
    for (def, case) in every_kernel() {
        for nw in [1, 2, 4, 8] {
            let mut c = case.clone();
            c.num_warps = nw;
            let program = lowered(&def, &c, nw);
            let mut mem = rtriton::interp::Memory::new();
            let placed = rtriton_testing::run::place(&mut mem, &c).unwrap_or_else(|e| panic!("{e}"));
            let report = rtriton::sim::run(&program, c.grid, &placed.args, &mut mem)
                .unwrap_or_else(|e| panic!("{} on {nw} warps: {e}", def.name));
            assert_eq!(report.divergent_loops, 0, "{}", def.name);
        }
    }
}
