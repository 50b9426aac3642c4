//! Atomics on every back end: each op x dtype with special values and a mask (masked-off
//! elements untouched, their result 0), many programs updating one address (exact sums,
//! order-free max), the lock pattern's pieces (`atomic_cas` / `atomic_xchg`), scalar
//! atomics whose old value every thread uses (the broadcast through shared memory), the
//! interpreter with shuffled program order, the simulator's atomic race checks, ptxas for
//! sm_86 and sm_90, located trace errors, and GPU runs against the CPU reference (ignored
//! here). The expected values are computed by this file's own model of each op, written
//! independently of `semantics::atomic`.

mod ptx_common;

use rstest::rstest;
use rtriton::backend::ptx::Arch;
use rtriton::diag::{Code, HasDiagnostics};
use rtriton::interp::{self, Memory, ProgramOrder, RunOptions};
use rtriton::kernel;
use rtriton::prelude::*;
use rtriton::session::CompileSession;
use rtriton::sim::Check;
use rtriton::spec::{ArgValue, SpecPolicy};
use rtriton::trace::{KernelDef, TraceOptions};
use rtriton_testing::run::run_simulator;
use rtriton_testing::{Backend, Case, Data, Rule, RunError, Suite, View};

// ---- the op x dtype table ----

macro_rules! rmw_kernel {
    ($name:ident, $f:ident, $t:ty) => {
        kernel! {
            /// `old = op(p, v)` where `on != 0`, for the first `n` elements.
            fn $name(p_ptr: Ptr<$t>, v_ptr: Ptr<$t>, on_ptr: Ptr<i32>, old_ptr: Ptr<$t>, n: i32; const BLOCK: usize) {
                let offs = program_id(0) * BLOCK as i32 + arange(0, BLOCK);
                let inside = offs.lt(n);
                let on = load(on_ptr + offs, Some(inside), Some(0)).ne(0) & inside;
                let v = load(v_ptr + offs, Some(inside), None);
                let old = $f(p_ptr + offs, v, Some(on));
                store(old_ptr + offs, old, Some(inside));
            }
        }
    };
}

rmw_kernel!(add_i32, atomic_add, i32);
rmw_kernel!(add_i64, atomic_add, i64);
rmw_kernel!(add_f32, atomic_add, f32);
rmw_kernel!(max_i32, atomic_max, i32);
rmw_kernel!(max_i64, atomic_max, i64);
rmw_kernel!(max_f32, atomic_max, f32);
rmw_kernel!(min_i32, atomic_min, i32);
rmw_kernel!(min_i64, atomic_min, i64);
rmw_kernel!(min_f32, atomic_min, f32);
rmw_kernel!(and_i32, atomic_and, i32);
rmw_kernel!(and_i64, atomic_and, i64);
rmw_kernel!(or_i32, atomic_or, i32);
rmw_kernel!(or_i64, atomic_or, i64);
rmw_kernel!(xor_i32, atomic_xor, i32);
rmw_kernel!(xor_i64, atomic_xor, i64);
rmw_kernel!(xchg_i32, atomic_xchg, i32);
rmw_kernel!(xchg_i64, atomic_xchg, i64);
rmw_kernel!(xchg_f32, atomic_xchg, f32);

/// Which operation a table row tests, for the model below.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Op {
    Add,
    Max,
    Min,
    And,
    Or,
    Xor,
    Xchg,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Ty {
    I32,
    I64,
    F32,
}

const I32_SPECIALS: [i32; 9] = [0, 1, -1, i32::MIN, i32::MAX, 7, -7, 0x5555_5555, 123_456_789];
const I64_SPECIALS: [i64; 9] = [0, 1, -1, i64::MIN, i64::MAX, 1 << 40, -(1 << 33), 0x5555_5555_5555_5555, 42];
/// Zeros of both signs, infinities, NaNs (quiet, with a payload, negative, signalling),
/// subnormals, the extremes, a tie for rounding.
const F32_SPECIALS: [u32; 17] = [
    0x0000_0000,
    0x8000_0000,
    0x3F80_0000,
    0xBF80_0000,
    0x7F80_0000,
    0xFF80_0000,
    0x7FC0_0000,
    0x7FC0_1234,
    0xFFC0_0001,
    0x7F80_0001,
    0x0000_0001,
    0x8000_0003,
    0x0080_0000,
    0x7F7F_FFFF,
    0xFF7F_FFFF,
    0x4B80_0000, // 2^24: adding 1.0 ties to even
    0x4020_0000,
];

/// `n` elements of `ty` cycling through its specials from `start` in steps of `step`, as
/// raw bits.
fn specials(ty: Ty, n: usize, start: usize, step: usize) -> Vec<u64> {
    (0..n)
        .map(|i| {
            let k = start + i * step;
            match ty {
                Ty::I32 => u64::from(I32_SPECIALS[k % I32_SPECIALS.len()] as u32),
                Ty::I64 => I64_SPECIALS[k % I64_SPECIALS.len()] as u64,
                Ty::F32 => u64::from(F32_SPECIALS[k % F32_SPECIALS.len()]),
            }
        })
        .collect()
}

fn data(ty: Ty, bits: &[u64]) -> Data {
    match ty {
        Ty::I32 => Data::I32(bits.iter().map(|b| *b as u32 as i32).collect()),
        Ty::I64 => Data::I64(bits.iter().map(|b| *b as i64).collect()),
        Ty::F32 => Data::F32(bits.iter().map(|b| f32::from_bits(*b as u32)).collect()),
    }
}

fn bits_of(d: &Data) -> Vec<u64> {
    (0..d.len()).map(|i| d.bits(i)).collect()
}

/// `x` with a subnormal replaced by a zero of its sign.
fn flush(x: f32) -> f32 {
    if x.is_subnormal() { f32::from_bits(x.to_bits() & 0x8000_0000) } else { x }
}

/// The model: the new contents of an element holding `old` after `op` with `v`.
fn model(op: Op, ty: Ty, old: u64, v: u64) -> u64 {
    match ty {
        Ty::F32 => {
            let (a, b) = (f32::from_bits(old as u32), f32::from_bits(v as u32));
            let r = match op {
                // atom.add.f32: flush-to-zero, round to nearest even, canonical NaN.
                Op::Add => {
                    let s = flush(a) + flush(b);
                    if s.is_nan() { f32::from_bits(0x7FFF_FFFF) } else { flush(s) }
                }
                // IEEE 754 totalOrder.
                Op::Max => {
                    if a.total_cmp(&b).is_ge() {
                        a
                    } else {
                        b
                    }
                }
                Op::Min => {
                    if a.total_cmp(&b).is_le() {
                        a
                    } else {
                        b
                    }
                }
                Op::Xchg => b,
                Op::And | Op::Or | Op::Xor => unreachable!("no float bitwise atomics"),
            };
            u64::from(r.to_bits())
        }
        Ty::I32 => {
            let (a, b) = (old as u32 as i32, v as u32 as i32);
            let r = match op {
                Op::Add => a.wrapping_add(b),
                Op::Max => a.max(b),
                Op::Min => a.min(b),
                Op::And => a & b,
                Op::Or => a | b,
                Op::Xor => a ^ b,
                Op::Xchg => b,
            };
            u64::from(r as u32)
        }
        Ty::I64 => {
            let (a, b) = (old as i64, v as i64);
            let r = match op {
                Op::Add => a.wrapping_add(b),
                Op::Max => a.max(b),
                Op::Min => a.min(b),
                Op::And => a & b,
                Op::Or => a | b,
                Op::Xor => a ^ b,
                Op::Xchg => b,
            };
            r as u64
        }
    }
}

/// The table: one row per (op, dtype) Triton accepts.
fn rmw_rows() -> Vec<(KernelDef, Op, Ty)> {
    vec![
        (add_i32(), Op::Add, Ty::I32),
        (add_i64(), Op::Add, Ty::I64),
        (add_f32(), Op::Add, Ty::F32),
        (max_i32(), Op::Max, Ty::I32),
        (max_i64(), Op::Max, Ty::I64),
        (max_f32(), Op::Max, Ty::F32),
        (min_i32(), Op::Min, Ty::I32),
        (min_i64(), Op::Min, Ty::I64),
        (min_f32(), Op::Min, Ty::F32),
        (and_i32(), Op::And, Ty::I32),
        (and_i64(), Op::And, Ty::I64),
        (or_i32(), Op::Or, Ty::I32),
        (or_i64(), Op::Or, Ty::I64),
        (xor_i32(), Op::Xor, Ty::I32),
        (xor_i64(), Op::Xor, Ty::I64),
        (xchg_i32(), Op::Xchg, Ty::I32),
        (xchg_i64(), Op::Xchg, Ty::I64),
        (xchg_f32(), Op::Xchg, Ty::F32),
    ]
}

/// Launch shapes: (name, n, BLOCK, num_warps). `BLOCK = 16` on 4 warps replicates every
/// element 8 times (only one copy may issue the atomic); 37 and 300 leave masked tails.
const SHAPES: [(&str, usize, i64, u32); 3] =
    [("replicated", 37, 16, 4), ("one_warp", 37, 32, 1), ("tail", 300, 128, 4)];

/// Elements past `n` in `p` and `old`, which nothing may touch.
const PAST_END: usize = 3;

/// The suite of one row: every shape, the mask on for two elements in three.
fn rmw_suite(def: KernelDef, op: Op, ty: Ty) -> Suite {
    let cases = SHAPES.map(|(name, n, block, nw)| {
        let p = specials(ty, n + PAST_END, 0, 1);
        let v = specials(ty, n, 3, 5);
        let on: Vec<i32> = (0..n).map(|i| i32::from(i % 3 != 2)).collect();
        let untouched = vec![0xABAB_ABAB_ABAB_ABABu64; n + PAST_END];
        Case::new(name)
            .output("p", data(ty, &p), View::contiguous(&[n + PAST_END]))
            .input("v", data(ty, &v), View::contiguous(&[n]))
            .input("on", on, View::contiguous(&[n]))
            .output("old", data(ty, &untouched), View::contiguous(&[n + PAST_END]))
            .int(n as i64)
            .constexpr("BLOCK", block)
            .num_warps(nw)
            .grid([n.div_ceil(block as usize) as u32, 1, 1])
    });
    Suite::new(def)
        .cases(cases)
        .reference(move |case| {
            let n = case.tensor("v").data.len();
            let (mut p, v) = (bits_of(&case.tensor("p").data), bits_of(&case.tensor("v").data));
            let on = case.tensor("on").data.as_i32().unwrap().to_vec();
            let mut old = bits_of(&case.tensor("old").data);
            for i in 0..n {
                if on[i] != 0 {
                    old[i] = p[i];
                    p[i] = model(op, ty, p[i], v[i]);
                } else {
                    old[i] = 0;
                }
            }
            case.tensor_mut("p").data = data(ty, &p);
            case.tensor_mut("old").data = data(ty, &old);
        })
        // Bits everywhere; a NaN of `atom.add.f32` may come back with another payload on
        // the GPU (unmeasured), so NaN matches NaN there.
        .rule(if op == Op::Add && ty == Ty::F32 { Rule::BITS.any_nan() } else { Rule::BITS })
}

#[rstest]
fn every_op_and_dtype_with_specials_and_a_mask(
    #[values(Backend::Interpreter, Backend::Simulator)] backend: Backend,
    #[values("replicated", "one_warp", "tail")] shape: &str,
) {
    for (def, op, ty) in rmw_rows() {
        rmw_suite(def, op, ty).check(shape, backend);
    }
}

#[rstest]
#[ignore = "needs a GPU"]
fn every_op_and_dtype_on_the_gpu(#[values("replicated", "one_warp", "tail")] shape: &str) {
    for (def, op, ty) in rmw_rows() {
        rmw_suite(def, op, ty).check(shape, Backend::Gpu);
    }
}

// ---- contention: many programs, one address ----

kernel! {
    /// Every element adds into `total[0]`, maxes into `total[1]` and mins into `total[2]`
    /// (a scalar pointer against a block of values).
    fn contend_i64(total_ptr: Ptr<i64>, v_ptr: Ptr<i64>, n: i32; const BLOCK: usize) {
        let offs = program_id(0) * BLOCK as i32 + arange(0, BLOCK);
        let inside = offs.lt(n);
        let v = load(v_ptr + offs, Some(inside), None);
        atomic_add(total_ptr, v, Some(inside));
        atomic_max(total_ptr + 1, v, Some(inside));
        atomic_min(total_ptr + 2, v, Some(inside));
    }
}

kernel! {
    /// The split-row max: every program maxes its part of `x` into `m[0]` (f32, through the
    /// sign-split encoding), and counts its elements into `m[1]` with an exact f32 add.
    fn contend_f32(m_ptr: Ptr<f32>, x_ptr: Ptr<f32>, n: i32; const BLOCK: usize) {
        let offs = program_id(0) * BLOCK as i32 + arange(0, BLOCK);
        let inside = offs.lt(n);
        let x = load(x_ptr + offs, Some(inside), None);
        atomic_max(m_ptr, x, Some(inside));
        atomic_add(m_ptr + 1, full::<f32>(&[BLOCK], 1.0), Some(inside));
    }
}

fn contention_suite_i64() -> Suite {
    let n = 1000;
    let v: Vec<i64> = (0..n as i64).map(|i| (i * 7919 % 2003 - 1001) * (1 << 40)).collect();
    let cases = [(16, 4), (128, 4), (256, 8)].map(|(block, nw)| {
        Case::new(format!("block_{block}"))
            .output("total", vec![i64::MAX - 5, i64::MIN, i64::MAX], View::contiguous(&[3]))
            .input("v", v.clone(), View::contiguous(&[n]))
            .int(n as i64)
            .constexpr("BLOCK", block)
            .num_warps(nw)
            .grid([n.div_ceil(block as usize) as u32, 1, 1])
    });
    Suite::new(contend_i64()).cases(cases).reference(|case| {
        let v = case.tensor("v").data.as_i64().unwrap().to_vec();
        let t = case.tensor_mut("total").data.as_i64_mut().unwrap();
        t[0] = v.iter().fold(t[0], |a, b| a.wrapping_add(*b));
        t[1] = v.iter().copied().fold(t[1], i64::max);
        t[2] = v.iter().copied().fold(t[2], i64::min);
    })
}

fn contention_suite_f32() -> Suite {
    let n = 777;
    // Negative values, both zeros and the largest value in a middle program: the max must
    // not depend on the order the programs arrive in.
    let mut x: Vec<f32> = (0..n).map(|i| -1000.0 + (i * 37 % 911) as f32).collect();
    x[5] = -0.0;
    x[400] = 0.0;
    x[401] = 1.0e9;
    let cases = [(16, 4), (128, 4)].map(|(block, nw)| {
        Case::new(format!("block_{block}"))
            .output("m", vec![f32::NEG_INFINITY, 0.0], View::contiguous(&[2]))
            .input("x", x.clone(), View::contiguous(&[n]))
            .int(n as i64)
            .constexpr("BLOCK", block)
            .num_warps(nw)
            .grid([n.div_ceil(block as usize) as u32, 1, 1])
    });
    Suite::new(contend_f32()).cases(cases).reference(|case| {
        let x = case.tensor("x").data.as_f32().unwrap().to_vec();
        let m = case.tensor_mut("m").data.as_f32_mut().unwrap();
        m[0] = x.iter().copied().fold(m[0], |a, b| if a.total_cmp(&b).is_ge() { a } else { b });
        m[1] = x.len() as f32;
    })
}

#[rstest]
fn many_programs_update_one_address_exactly(
    #[values(Backend::Interpreter, Backend::Simulator)] backend: Backend,
    #[values("block_16", "block_128")] name: &str,
) {
    contention_suite_i64().check(name, backend);
    contention_suite_f32().check(name, backend);
}

#[rstest]
#[ignore = "needs a GPU"]
fn many_programs_update_one_address_on_the_gpu(#[values("block_16", "block_128")] name: &str) {
    contention_suite_i64().check(name, Backend::Gpu);
    contention_suite_f32().check(name, Backend::Gpu);
}

// ---- the lock's pieces, scalar atomics, tickets ----

kernel! {
    /// The tutorial lock without its spin loop: take it (`cas 0 -> 1` gives 0), fail to
    /// take it again (gives 1), release it (`xchg 0` gives 1). Scalar atomics.
    fn lock_steps(lock_ptr: Ptr<i32>, out_ptr: Ptr<i32>) {
        let first = atomic_cas(lock_ptr, 0, 1);
        let second = atomic_cas(lock_ptr, 0, 1);
        let released = atomic_xchg(lock_ptr, 0, None);
        store(out_ptr, first, None);
        store(out_ptr + 1, second, None);
        store(out_ptr + 2, released, None);
    }
}

kernel! {
    /// Every program tries the lock once (`cas 0 -> pid + 1`): exactly one gets 0.
    fn try_lock(lock_ptr: Ptr<i32>, got_ptr: Ptr<i32>) {
        let pid = program_id(0);
        let got = atomic_cas_with(lock_ptr, 0, pid + 1, Sem::Acquire, Scope::Gpu);
        store(got_ptr + pid, got, None);
    }
}

kernel! {
    /// Dynamic work assignment: each program takes a ticket (a scalar atomic whose old
    /// value every thread then uses to address its row) and copies row `ticket` of `x`.
    fn ticket_copy(counter_ptr: Ptr<i32>, x_ptr: Ptr<f32>, y_ptr: Ptr<f32>; const BLOCK: usize) {
        let ticket = atomic_add_with(counter_ptr, 1, None, Sem::Relaxed, Scope::Gpu);
        let cols = arange(0, BLOCK);
        let row = load(x_ptr + ticket * BLOCK as i32 + cols, None, None);
        store(y_ptr + program_id(0) * BLOCK as i32 + cols, row, None);
    }
}

fn lock_suite() -> Suite {
    let steps = Case::new("steps")
        .output("lock", vec![0i32], View::contiguous(&[1]))
        .output("out", vec![-5i32; 3], View::contiguous(&[3]))
        .num_warps(4);
    Suite::new(lock_steps()).case(steps).reference(|case| {
        case.tensor_mut("out").data = Data::I32(vec![0, 1, 1]);
    })
}

fn ticket_suite(programs: u32) -> Suite {
    let block = 128usize;
    let x: Vec<f32> = (0..programs as usize * block).map(|i| i as f32 * 0.5 - 7.0).collect();
    let case = Case::new("in_order")
        .output("counter", vec![0i32], View::contiguous(&[1]))
        .input("x", x.clone(), View::contiguous(&[x.len()]))
        .output("y", vec![0.0f32; x.len()], View::contiguous(&[x.len()]))
        .constexpr("BLOCK", block as i64)
        .num_warps(4)
        .grid([programs, 1, 1]);
    Suite::new(ticket_copy()).case(case).reference(move |case| {
        // In program order program p takes ticket p.
        case.tensor_mut("counter").data = Data::I32(vec![programs as i32]);
        case.tensor_mut("y").data = Data::F32(x.clone());
    })
}

#[rstest]
fn the_lock_pieces_and_tickets_on_the_cpu_back_ends(
    #[values(Backend::Interpreter, Backend::Simulator)] backend: Backend,
) {
    lock_suite().check("steps", backend);
    ticket_suite(5).check("in_order", backend);
}

#[test]
#[ignore = "needs a GPU"]
fn the_lock_pieces_on_the_gpu() {
    lock_suite().check("steps", Backend::Gpu);
}

/// Which program took which ticket is up to the GPU; every row is copied exactly once.
#[test]
#[ignore = "needs a GPU"]
fn tickets_on_the_gpu_copy_every_row_once() {
    let programs = 64;
    let suite = ticket_suite(programs);
    let case = suite.find("in_order").unwrap();
    let got = rtriton_testing::run::gpu::run_gpu(&ticket_copy(), case, SpecPolicy::Triton, Default::default())
        .unwrap_or_else(|e| panic!("{e}"));
    let y = rtriton_testing::suite::output(&got, "y").and_then(Data::as_f32).unwrap();
    let mut rows: Vec<i64> = y.chunks(128).map(|r| ((r[0] + 7.0) * 2.0) as i64 / 128).collect();
    rows.sort();
    assert_eq!(rows, (0..i64::from(programs)).collect::<Vec<_>>());
}

/// The old values of a scalar atomic reach every thread through shared memory (two
/// barriers); an atomic whose result is unused, or whose elements no thread shares, needs
/// none.
#[test]
fn old_values_are_broadcast_only_when_used_and_replicated() {
    let count = |def: KernelDef, constexprs: &[(&str, i64)], args: &[ArgValue]| {
        let program = rtriton_tests::lower_def(&def, constexprs, args, SpecPolicy::Off, 4).unwrap();
        let walk = program.walk();
        let atoms = walk.iter().filter(|i| matches!(i, rtriton::backend::ptx::lir::Inst::Atom { .. })).count();
        let bars = walk.iter().filter(|i| matches!(i, rtriton::backend::ptx::lir::Inst::BarSync { .. })).count();
        (atoms, bars)
    };
    let p = ArgValue::Ptr(0x1_0000_0000);
    assert_eq!(count(ticket_copy(), &[("BLOCK", 128)], &[p, p, p]), (1, 2));
    // One element per thread: one atom per op.
    assert_eq!(count(contend_i64(), &[("BLOCK", 128)], &[p, p, ArgValue::Int(1000)]), (3, 0));
    // Float max: two guarded atomics per element (the sign picks one).
    assert_eq!(count(max_f32(), &[("BLOCK", 128)], &[p, p, p, p, ArgValue::Int(100)]), (2, 0));
    assert_eq!(count(max_f32(), &[("BLOCK", 16)], &[p, p, p, p, ArgValue::Int(100)]), (2, 2));
}

// ---- program order ----

/// Runs `suite`'s case `name` on the interpreter with the programs in `order`; returns the
/// outputs' bits.
fn run_in_order(def: &KernelDef, case: &Case, order: ProgramOrder) -> Vec<Vec<u64>> {
    let mut mem = Memory::new();
    let placed = rtriton_testing::run::place(&mut mem, case).unwrap();
    let verified = CompileSession::new()
        .front_end_for_args(def, &case.constexprs, &placed.args, SpecPolicy::Triton, &TraceOptions::default())
        .unwrap();
    interp::run_with(&verified, case.grid, &placed.args, &mut mem, &RunOptions { order, ..RunOptions::default() })
        .unwrap();
    let out = rtriton_testing::run::read_outputs(&mem, case, &placed).unwrap();
    out.buffers.iter().map(|(_, d)| bits_of(d)).collect()
}

#[rstest]
fn results_of_order_free_kernels_do_not_depend_on_program_order(#[values(1, 2, 3, 99)] seed: u64) {
    for suite in [contention_suite_i64(), contention_suite_f32()] {
        let case = suite.find("block_16").unwrap();
        let in_order = run_in_order(&suite.def, case, ProgramOrder::InOrder);
        assert_eq!(run_in_order(&suite.def, case, ProgramOrder::Shuffled { seed }), in_order, "seed {seed}");
    }
    // A lock: whatever the order, exactly one program takes it, and the lock names it.
    let programs = 40;
    let case = Case::new("try")
        .output("lock", vec![0i32], View::contiguous(&[1]))
        .output("got", vec![-1i32; programs], View::contiguous(&[programs]))
        .grid([programs as u32, 1, 1]);
    let out = run_in_order(&try_lock(), &case, ProgramOrder::Shuffled { seed });
    let (lock, got) = (out[0][0] as i32, &out[1]);
    let winners: Vec<usize> = (0..programs).filter(|&p| got[p] == 0).collect();
    assert_eq!(winners.len(), 1, "{got:?}");
    assert_eq!(lock, winners[0] as i32 + 1);
    assert!(got.iter().all(|&g| g == 0 || g as i32 == lock));
}

/// The shuffle does change the order: a kernel whose result depends on it (which program
/// takes the lock) gives different winners for different seeds.
#[test]
fn shuffled_orders_differ_between_seeds() {
    let programs = 40;
    let case = Case::new("try")
        .output("lock", vec![0i32], View::contiguous(&[1]))
        .output("got", vec![-1i32; programs], View::contiguous(&[programs]))
        .grid([programs as u32, 1, 1]);
    let winner = |order| run_in_order(&try_lock(), &case, order)[0][0];
    assert_eq!(winner(ProgramOrder::InOrder), 1);
    let winners: std::collections::BTreeSet<u64> = (0..8).map(|s| winner(ProgramOrder::Shuffled { seed: s })).collect();
    assert!(winners.len() > 1, "{winners:?}");
}

// ---- the simulator's race checks ----

kernel! {
    /// Program 1 also stores the counter plainly: a race with the other programs' atomics.
    fn planted_plain_store(counter_ptr: Ptr<i32>) {
        atomic_add(counter_ptr, 1, None); // PLANTED_ADD
        let pid = program_id(0);
        store(counter_ptr, pid, Some(pid.eq(1)));
    }
}

kernel! {
    /// Reads the counter plainly while other programs add to it.
    fn planted_plain_load(counter_ptr: Ptr<i32>, out_ptr: Ptr<i32>) {
        let pid = program_id(0);
        store(out_ptr + pid, load(counter_ptr, None, None), None);
        atomic_add(counter_ptr, 1, None);
    }
}

kernel! {
    /// cta-scoped atomics: fine within one program, a race across programs.
    fn cta_scoped_counter(counter_ptr: Ptr<i32>; const BLOCK: usize) {
        atomic_add_with(counter_ptr, full::<i32>(&[BLOCK], 1), None, Sem::Relaxed, Scope::Cta);
    }
}

fn sim_error(def: KernelDef, case: Case) -> rtriton::sim::SimError {
    match run_simulator(&def, &case, SpecPolicy::Off) {
        Err(RunError::Simulator(e)) => e,
        other => panic!("expected a simulator finding, got {other:?}"),
    }
}

#[test]
fn a_plain_access_of_an_atomically_updated_element_is_a_race() {
    let case =
        |n: usize| Case::new("race").output("counter", vec![0i32], View::contiguous(&[1])).grid([n as u32, 1, 1]);
    // In the simulator's order, program 1's `acq_rel` add reads what program 0's released,
    // so its plain store comes after program 0's add (acquire/release orders programs, as a
    // lock does). Program 2's add does not come after that store (a plain store ends the
    // word's release sequence): the race is reported there, at the add.
    let e = sim_error(planted_plain_store(), case(3));
    assert_eq!((e.check, e.program), (Check::AtomicRace, Some([2, 0, 0])), "{e}");
    assert!(e.diagnostics()[0].code == Code::SimAtomicRace);
    assert!(e.message.contains("a plain access racing with an atomic"), "{}", e.message);
    assert_eq!(e.loc.map(|l| l.line), Some(line_of("// PLANTED_ADD")), "{e}");

    let loads = Case::new("race")
        .output("counter", vec![0i32], View::contiguous(&[1]))
        .output("out", vec![0i32; 3], View::contiguous(&[3]))
        .grid([3, 1, 1]);
    let e = sim_error(planted_plain_load(), loads);
    assert_eq!(e.check, Check::AtomicRace, "{e}");
    // The interpreter has no race check: it runs the programs one after another.
    rtriton_testing::run::run_interpreter(
        &planted_plain_load(),
        &case(1).output("out", vec![0i32; 1], View::contiguous(&[1])),
        SpecPolicy::Off,
    )
    .unwrap();
}

#[test]
fn cta_scoped_atomics_race_across_programs_only() {
    let case = |programs: u32| {
        Case::new("cta")
            .output("counter", vec![0i32], View::contiguous(&[1]))
            .constexpr("BLOCK", 64)
            .grid([programs, 1, 1])
    };
    let one = run_simulator(&cta_scoped_counter(), &case(1), SpecPolicy::Off).unwrap();
    assert_eq!(rtriton_testing::suite::output(&one, "counter").and_then(Data::as_i32), Some(&[64][..]));
    let e = sim_error(cta_scoped_counter(), case(2));
    assert_eq!((e.check, e.diagnostics()[0].code), (Check::AtomicScope, Code::SimAtomicScope), "{e}");
}

// ---- PTX ----

/// A kernel and the constexprs to compile it with.
type Compiled = (KernelDef, Vec<(&'static str, i64)>);

/// Every kernel of this file, with constexprs to compile it for (`BLOCK = 16` replicates
/// elements on 4 warps; 512 gives each thread several).
fn every_kernel() -> Vec<Compiled> {
    let mut out: Vec<Compiled> = rmw_rows().into_iter().map(|(d, _, _)| (d, vec![("BLOCK", 16)])).collect();
    out.extend(rmw_rows().into_iter().map(|(d, _, _)| (d, vec![("BLOCK", 512)])));
    out.push((contend_i64(), vec![("BLOCK", 128)]));
    out.push((contend_f32(), vec![("BLOCK", 128)]));
    out.push((lock_steps(), vec![]));
    out.push((try_lock(), vec![]));
    out.push((ticket_copy(), vec![("BLOCK", 128)]));
    out.push((cta_scoped_counter(), vec![("BLOCK", 64)]));
    out
}

fn ptx_of(def: &KernelDef, constexprs: &[(&str, i64)], arch: Arch) -> String {
    let options = ptx_common::options(arch, 4);
    ptx_common::compile_plain(def, constexprs, &options).unwrap_or_else(|e| panic!("{}: {e}", def.name)).text
}

#[test]
fn atoms_print_the_order_scope_and_type() {
    let text = |def| ptx_of(&def, &[("BLOCK", 128)], Arch::Sm86);
    assert!(text(add_i32()).contains("atom.acq_rel.gpu.global.add.u32 %r"), "{}", text(add_i32()));
    assert!(text(add_i64()).contains("atom.acq_rel.gpu.global.add.u64 %rd"));
    assert!(text(add_f32()).contains("atom.acq_rel.gpu.global.add.f32 %f"));
    assert!(text(min_i64()).contains(".global.min.s64"));
    let max = text(max_f32());
    assert!(max.contains(".global.max.s32") && max.contains(".global.min.u32"), "{max}");
    assert!(text(xchg_f32()).contains(".global.exch.b32 %f"));
    assert!(text(xor_i64()).contains(".global.xor.b64"));
    let lock = ptx_of(&try_lock(), &[], Arch::Sm86);
    assert!(lock.contains("atom.acquire.gpu.global.cas.b32"), "{lock}");
    let cta = ptx_of(&cta_scoped_counter(), &[("BLOCK", 64)], Arch::Sm86);
    assert!(cta.contains("atom.relaxed.cta.global.add.u32"), "{cta}");
}

/// ptxas accepts every kernel of this file for sm_86 and sm_90, with no spills.
#[test]
#[cfg_attr(not(has_ptxas), ignore = "needs ptxas on PATH")]
fn every_atomic_kernel_assembles_for_sm86_and_sm90() {
    let ptxas = ptx_common::ptxas("every_atomic_kernel_assembles_for_sm86_and_sm90");
    for (def, constexprs) in every_kernel() {
        for (arch, name) in [(Arch::Sm86, "sm_86"), (Arch::Sm90, "sm_90")] {
            let text = ptx_of(&def, &constexprs, arch);
            let info = ptx_common::assemble(&ptxas, &text, name, def.name).unwrap_or_else(|e| panic!("{e}\n{text}"));
            assert!(info.contains(&format!("entry function '{}'", def.name)), "{info}");
            assert_eq!(ptx_common::spill_stores(&info), Some(0), "{}: {info}", def.name);
        }
    }
}

// ---- located errors ----

kernel! {
    fn and_on_floats(x_ptr: Ptr<f32>) {
        atomic_and(x_ptr + arange(0, 16), 1.0, None); // ATOMIC_AND_ON_F32
    }
}

kernel! {
    fn add_on_bools(x_ptr: Ptr<bool>) {
        atomic_add(x_ptr + arange(0, 16), true, None); // ATOMIC_ADD_ON_I1
    }
}

kernel! {
    fn cas_shapes_disagree(x_ptr: Ptr<i32>) {
        atomic_cas(x_ptr + arange(0, 16), arange(0, 8), 1); // ATOMIC_CAS_SHAPES
    }
}

/// The line of this file holding `marker`.
fn line_of(marker: &str) -> u32 {
    let src = include_str!("atomics.rs");
    let hits: Vec<usize> = src.lines().enumerate().filter(|(_, l)| l.contains(marker)).map(|(i, _)| i).collect();
    // The marker's first line is in the kernel; later ones are in the tests naming it.
    hits[0] as u32 + 1
}

#[rstest]
#[case::and_on_f32(and_on_floats(), "ATOMIC_AND_ON_F32", "`atomic_and` is not defined on f32")]
#[case::add_on_i1(add_on_bools(), "ATOMIC_ADD_ON_I1", "`atomic_add` is not defined on i1")]
#[case::cas_shapes(cas_shapes_disagree(), "ATOMIC_CAS_SHAPES", "shape mismatch: [16] and [8]")]
fn bad_atomics_are_located_errors(#[case] def: KernelDef, #[case] marker: &str, #[case] message: &str) {
    let err = rtriton::trace::trace_unspecialized(&def, &[]).unwrap_err();
    let d = &err.diagnostics()[0];
    assert_eq!(d.code, Code::TraceRule);
    assert!(d.message.contains(message), "{}", d.message);
    let loc = d.loc.expect("located");
    assert!(loc.file.ends_with("tests/tests/atomics.rs"), "{}", loc.file);
    assert_eq!(loc.line, line_of(marker), "{err}");
    assert!(!d.help.is_empty());
}
