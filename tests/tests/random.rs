//! Triton's random numbers (`randint`, `randint4x`, `rand`, `randn`, `philox_impl`,
//! `uint_to_uniform_float`) and `umulhi`, on every back end:
//! - `philox_impl` against Random123's published known-answer vectors (`tests/kat_vectors`
//!   of github.com/DEShawResearch/random123: Philox4x32 and Philox4x64, 7 and 10 rounds);
//! - `randint`, `randint4x` and `rand` bit for bit against an independent model written
//!   here, a port of the NumPy reference of Triton's `test_random.py` (`CustomPhilox4x`),
//!   over Triton's seeds (with seeds past 2^32, two keys), i32 and i64 offsets (past 2^32,
//!   and negative), seeds as i64, i32 and constant arguments;
//! - Triton's statistical checks: `rand` in `[0, 1)` with a Kolmogorov-Smirnov distance
//!   under 0.01, `randn`'s mean and standard deviation within 0.01, and the limits of
//!   `uint_to_uniform_float` (the extreme ints map to one value just below 1.0);
//! - `umulhi` on i32, u32, i64 and u64 special values against 128-bit products;
//! - located errors for a float seed, float offsets and `umulhi` of a float or an i8;
//! - ptxas for sm_86 and sm_90 of a kernel drawing `rand`, `randn` and 64-bit Philox;
//! - the GPU (ignored here) against the same models.

mod ptx_common;

use rstest::rstest;
use rtriton::diag::{Code, HasDiagnostics};
use rtriton::kernel;
use rtriton::prelude::*;
use rtriton::trace::{KernelDef, trace_unspecialized};
use rtriton_testing::{Backend, Case, Data, Rule, Suite, View};

// ---------------------------------------------------------------------------------------
// The independent model: Triton's NumPy reference (`CustomPhilox4x`), in Rust.
// ---------------------------------------------------------------------------------------

/// One Philox configuration of Triton's `test_random.py` (`PhiloxConfig`).
struct Config {
    round_a: u64,
    round_b: u64,
    key_a: u64,
    key_b: u64,
    bits: u32,
}

const PHILOX_32: Config =
    Config { round_a: 0xD251_1F53, round_b: 0xCD9E_8D57, key_a: 0x9E37_79B9, key_b: 0xBB67_AE85, bits: 32 };
const PHILOX_64: Config = Config {
    round_a: 0xD2E7_470E_E14C_6C93,
    round_b: 0xCA5A_8263_9512_1157,
    key_a: 0x9E37_79B9_7F4A_7C15,
    key_b: 0xBB67_AE85_84CA_A73B,
    bits: 64,
};

impl Config {
    fn mask(&self) -> u128 {
        (1u128 << self.bits) - 1
    }

    /// `_multiply_low_high`: the low and high words of the double-width product.
    fn multiply_low_high(&self, a: u64, b: u64) -> (u64, u64) {
        let p = u128::from(a) * u128::from(b);
        ((p & self.mask()) as u64, (p >> self.bits) as u64)
    }

    /// `random_raw` without the advance: `rounds` rounds of `_single_round`, the key
    /// raised after each.
    fn philox(&self, counter: [u64; 4], key: [u64; 2], rounds: usize) -> [u64; 4] {
        let (mut c, mut k) = (counter, key);
        let m = self.mask() as u64;
        for _ in 0..rounds {
            let (lo0, hi0) = self.multiply_low_high(self.round_a, c[0]);
            let (lo1, hi1) = self.multiply_low_high(self.round_b, c[2]);
            c = [hi1 ^ c[1] ^ k[0], lo1, hi0 ^ c[3] ^ k[1], lo0];
            k = [k[0].wrapping_add(self.key_a) & m, k[1].wrapping_add(self.key_b) & m];
        }
        c
    }
}

/// Triton's `randint4x(seed, offset)` in the model: the key is the seed's two 32-bit
/// words (`_into_pieces`), the counter `(offset_lo, offset_hi, 0, 0)` from a 64-bit
/// offset (an i32 offset passes its bits zero-extended: it has no high word). A negative
/// seed is its 64-bit two's complement (the sign extension of Triton's
/// `seed.to(tl.uint64)`).
fn randint4x_ref(seed: i64, offset: i64) -> [u32; 4] {
    let (seed, offset) = (seed as u64, offset as u64);
    let key = [seed & 0xFFFF_FFFF, seed >> 32];
    let counter = [offset & 0xFFFF_FFFF, offset >> 32, 0, 0];
    PHILOX_32.philox(counter, key, 10).map(|w| w as u32)
}

/// The largest `f32` scale that keeps `(2^31 - 1) * scale` below 1.0 (Triton's
/// `uint_to_uniform_float` constant, a Python float rounded to `f32`).
const SCALE_32: f64 = 4.6566127342e-10;

/// Triton's `uint_to_uniform_float` of a 32-bit word.
fn uniform_ref(x: u32) -> f32 {
    let x = x as i32;
    let x = if x < 0 { x.wrapping_neg().wrapping_sub(1) } else { x };
    x as f32 * SCALE_32 as f32
}

// ---------------------------------------------------------------------------------------
// Kernels
// ---------------------------------------------------------------------------------------

kernel! {
    /// `philox_impl` with `ROUNDS` rounds on counters and keys loaded per element
    /// (4 counter words and 2 key words an element).
    fn philox32_block(c_ptr: Ptr<u32>, k_ptr: Ptr<u32>, y_ptr: Ptr<u32>, n: i32; const BLOCK: usize, const ROUNDS: usize) {
        let i = program_id(0) * BLOCK as i32 + arange(0, BLOCK);
        let mask = i.lt(n);
        let [c0, c1, c2, c3] = [0, 1, 2, 3].map(|j| load(c_ptr + i * 4 + j, Some(mask), None));
        let [k0, k1] = [0, 1].map(|j| load(k_ptr + i * 2 + j, Some(mask), None));
        let y = philox_impl(c0, c1, c2, c3, k0, k1, ROUNDS);
        for (j, w) in y.into_iter().enumerate() {
            store(y_ptr + i * 4 + j as i32, w, Some(mask));
        }
    }
}

kernel! {
    /// [`philox32_block`] on 64-bit words (Philox4x64).
    fn philox64_block(c_ptr: Ptr<u64>, k_ptr: Ptr<u64>, y_ptr: Ptr<u64>, n: i32; const BLOCK: usize, const ROUNDS: usize) {
        let i = program_id(0) * BLOCK as i32 + arange(0, BLOCK);
        let mask = i.lt(n);
        let [c0, c1, c2, c3] = [0, 1, 2, 3].map(|j| load(c_ptr + i * 4 + j, Some(mask), None));
        let [k0, k1] = [0, 1].map(|j| load(k_ptr + i * 2 + j, Some(mask), None));
        let y = philox_impl(c0, c1, c2, c3, k0, k1, ROUNDS);
        for (j, w) in y.into_iter().enumerate() {
            store(y_ptr + i * 4 + j as i32, w, Some(mask));
        }
    }
}

kernel! {
    /// Triton's `test_randint` kernel with i32 offsets starting at `base`.
    fn randint_i32(y_ptr: Ptr<u32>, n: i32, seed: i64, base: i32; const BLOCK: usize) {
        let i = program_id(0) * BLOCK as i32 + arange(0, BLOCK);
        store(y_ptr + i, randint(seed, i + base), Some(i.lt(n)));
    }
}

kernel! {
    /// Triton's `test_randint` kernel with i64 offsets starting at `base`.
    fn randint_i64(y_ptr: Ptr<u32>, n: i32, seed: i64, base: i64; const BLOCK: usize) {
        let i = program_id(0) * BLOCK as i32 + arange(0, BLOCK);
        store(y_ptr + i, randint(seed, i.to::<i64>() + base), Some(i.lt(n)));
    }
}

kernel! {
    /// `randint` with an i32 seed (sign-extended to 64 bits) and i32 offsets.
    fn randint_seed_i32(y_ptr: Ptr<u32>, n: i32, seed: i32; const BLOCK: usize) {
        let i = program_id(0) * BLOCK as i32 + arange(0, BLOCK);
        store(y_ptr + i, randint(seed, i), Some(i.lt(n)));
    }
}

/// The constant seed of [`randint4x_const_seed`]: past 2^32, so both keys are non-zero
/// (one of the seeds of Triton's `test_randint`).
const CONST_SEED: i64 = 0x0000_000f_cafe_b0ba;

kernel! {
    /// All four words of `randint4x` for a constant seed (Triton's `const_seed` case):
    /// word `j` of offset `i` at `y[4 i + j]`.
    fn randint4x_const_seed(y_ptr: Ptr<u32>, n: i32; const BLOCK: usize) {
        let i = program_id(0) * BLOCK as i32 + arange(0, BLOCK);
        let words = randint4x(CONST_SEED, i);
        for (j, w) in words.into_iter().enumerate() {
            store(y_ptr + i * 4 + j as i32, w, Some(i.lt(n)));
        }
    }
}

kernel! {
    /// Triton's `test_rand` kernel (i32 offsets).
    fn rand_kernel(y_ptr: Ptr<f32>, n: i32, seed: i64; const BLOCK: usize) {
        let i = program_id(0) * BLOCK as i32 + arange(0, BLOCK);
        store(y_ptr + i, rand(seed, i), Some(i.lt(n)));
    }
}

kernel! {
    /// Triton's `test_randn` kernel (i64 offsets).
    fn randn_kernel(y_ptr: Ptr<f32>, n: i32, seed: i64; const BLOCK: usize) {
        let i = program_id(0) * BLOCK as i32 + arange(0, BLOCK);
        store(y_ptr + i, randn(seed, i.to::<i64>()), Some(i.lt(n)));
    }
}

kernel! {
    /// Triton's `test_rand_limits` kernel on i32 values.
    fn uniform_i32(x_ptr: Ptr<i32>, y_ptr: Ptr<f32>; const BLOCK: usize) {
        let i = arange(0, BLOCK);
        store(y_ptr + i, uint_to_uniform_float(load(x_ptr + i, None, None)), None);
    }
}

kernel! {
    /// Triton's `test_rand_limits` kernel on i64 values.
    fn uniform_i64(x_ptr: Ptr<i64>, y_ptr: Ptr<f32>; const BLOCK: usize) {
        let i = arange(0, BLOCK);
        store(y_ptr + i, uint_to_uniform_float(load(x_ptr + i, None, None)), None);
    }
}

macro_rules! umulhi_kernel {
    ($name:ident, $t:ty) => {
        kernel! {
            /// `y = umulhi(a, b)` element-wise.
            fn $name(a_ptr: Ptr<$t>, b_ptr: Ptr<$t>, y_ptr: Ptr<$t>, n: i32; const BLOCK: usize) {
                let i = program_id(0) * BLOCK as i32 + arange(0, BLOCK);
                let mask = i.lt(n);
                let y = umulhi(load(a_ptr + i, Some(mask), None), load(b_ptr + i, Some(mask), None));
                store(y_ptr + i, y, Some(mask));
            }
        }
    };
}
umulhi_kernel!(umulhi_i32, i32);
umulhi_kernel!(umulhi_u32, u32);
umulhi_kernel!(umulhi_i64, i64);
umulhi_kernel!(umulhi_u64, u64);

// ---------------------------------------------------------------------------------------
// Known-answer vectors
// ---------------------------------------------------------------------------------------

/// One known-answer line: rounds, counter (4 words), key (2 words), expected output (4 words).
type Kat32 = (usize, [u32; 4], [u32; 2], [u32; 4]);

/// Random123's `tests/kat_vectors`, the `philox4x32` lines.
const KAT_4X32: [Kat32; 6] = [
    (7, [0, 0, 0, 0], [0, 0], [0x5f6fb709, 0x0d893f64, 0x4f121f81, 0x4f730a48]),
    (7, [0xffffffff; 4], [0xffffffff; 2], [0x5207ddc2, 0x45165e59, 0x4d8ee751, 0x8c52f662]),
    (
        7,
        [0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344],
        [0xa4093822, 0x299f31d0],
        [0x4dfccaba, 0x190a87f0, 0xc47362ba, 0xb6b5242a],
    ),
    (10, [0, 0, 0, 0], [0, 0], [0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8]),
    (10, [0xffffffff; 4], [0xffffffff; 2], [0x408f276d, 0x41c83b0e, 0xa20bc7c6, 0x6d5451fd]),
    (
        10,
        [0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344],
        [0xa4093822, 0x299f31d0],
        [0xd16cfe09, 0x94fdcceb, 0x5001e420, 0x24126ea1],
    ),
];

/// Random123's `tests/kat_vectors`, the `philox4x64 10` lines.
const KAT_4X64: [([u64; 4], [u64; 2], [u64; 4]); 3] = [
    ([0; 4], [0; 2], [0x16554d9eca36314c, 0xdb20fe9d672d0fdc, 0xd7e772cee186176b, 0x7e68b68aec7ba23b]),
    (
        [0xffffffffffffffff; 4],
        [0xffffffffffffffff; 2],
        [0x87b092c3013fe90b, 0x438c3c67be8d0224, 0x9cc7d7c69cd777b6, 0xa09caebf594f0ba0],
    ),
    (
        [0x243f6a8885a308d3, 0x13198a2e03707344, 0xa4093822299f31d0, 0x082efa98ec4e6c89],
        [0x452821e638d01377, 0xbe5466cf34e90c6c],
        [0xa528f45403e61d95, 0x38c72dbd566e9788, 0xa5a1610e72fd18b5, 0x57bd43b5e52b7fe6],
    ),
];

/// The model itself reproduces the published vectors (so the comparisons below hold the
/// kernels to Random123's Philox, not only to the model).
#[test]
fn the_model_gives_the_published_vectors() {
    for (rounds, c, k, want) in KAT_4X32 {
        let got = PHILOX_32.philox(c.map(u64::from), k.map(u64::from), rounds);
        assert_eq!(got, want.map(u64::from), "philox4x32-{rounds} {c:x?} {k:x?}");
    }
    for (c, k, want) in KAT_4X64 {
        assert_eq!(PHILOX_64.philox(c, k, 10), want, "philox4x64-10 {c:x?} {k:x?}");
    }
}

/// A case of `philox32_block` with `rounds` rounds: every vector of that round count,
/// repeated over 40 elements (2 programs of 32, a masked tail), output poisoned.
fn kat32_case(rounds: usize) -> Case {
    let rows: Vec<_> = KAT_4X32.iter().filter(|v| v.0 == rounds).collect();
    let n = 40;
    let c: Vec<u32> = (0..n).flat_map(|i| rows[i % rows.len()].1).collect();
    let k: Vec<u32> = (0..n).flat_map(|i| rows[i % rows.len()].2).collect();
    Case::new(if rounds == 7 { "rounds7" } else { "rounds10" })
        .input("c", c, View::contiguous(&[4 * n]))
        .input("k", k, View::contiguous(&[2 * n]))
        .output("y", vec![0xABAB_ABABu32; 4 * n], View::contiguous(&[4 * n]))
        .int(n as i64)
        .constexpr("BLOCK", 32)
        .constexpr("ROUNDS", rounds as i64)
        .grid([2, 1, 1])
}

/// Expected outputs straight from the published table (not from the model).
fn kat32_suite() -> Suite {
    Suite::new(philox32_block()).case(kat32_case(7)).case(kat32_case(10)).reference(|case| {
        let rounds = case.constexprs.iter().find(|(n, _)| *n == "ROUNDS").unwrap().1 as usize;
        let rows: Vec<_> = KAT_4X32.iter().filter(|v| v.0 == rounds).collect();
        let n = case.tensor("y").data.len() / 4;
        let want: Vec<u32> = (0..n).flat_map(|i| rows[i % rows.len()].3).collect();
        case.tensor_mut("y").data = Data::U32(want);
    })
}

fn kat64_suite() -> Suite {
    let n = 24;
    let c: Vec<u64> = (0..n).flat_map(|i| KAT_4X64[i % 3].0).collect();
    let k: Vec<u64> = (0..n).flat_map(|i| KAT_4X64[i % 3].1).collect();
    let case = Case::new("rounds10")
        .input("c", c, View::contiguous(&[4 * n]))
        .input("k", k, View::contiguous(&[2 * n]))
        .output("y", vec![0xABAB_ABAB_ABAB_ABABu64; 4 * n], View::contiguous(&[4 * n]))
        .int(n as i64)
        .constexpr("BLOCK", 16)
        .constexpr("ROUNDS", 10)
        .grid([2, 1, 1]);
    Suite::new(philox64_block()).case(case).reference(move |case| {
        let want: Vec<u64> = (0..n).flat_map(|i| KAT_4X64[i % 3].2).collect();
        case.tensor_mut("y").data = Data::U64(want);
    })
}

#[rstest]
fn philox4x32_gives_random123s_known_answers(
    #[values("rounds7", "rounds10")] case: &str,
    #[values(Backend::Interpreter, Backend::Simulator)] backend: Backend,
) {
    kat32_suite().check(case, backend);
}

#[rstest]
fn philox4x64_gives_random123s_known_answers(#[values(Backend::Interpreter, Backend::Simulator)] backend: Backend) {
    kat64_suite().check("rounds10", backend);
}

// ---------------------------------------------------------------------------------------
// randint, randint4x, rand: bit for bit with the model
// ---------------------------------------------------------------------------------------

/// Triton's `test_randint` seeds, and negative ones (two's complement keys).
const SEEDS: [i64; 8] = [0, 42, 124, 54, 0xffffffff, 0x0000000fcafeb0ba, -1, -0x1234_5678_9abc];

/// `n` elements of `def`'s output `y` (`u32`), 2 programs and a tail at `BLOCK` 64 unless
/// `n` says otherwise, with the integer arguments `ints` after `n`.
fn u32_case(name: String, n: usize, ints: &[i64]) -> Case {
    let mut c = Case::new(name).output("y", vec![0xABAB_ABABu32; n], View::contiguous(&[n])).int(n as i64);
    for &v in ints {
        c = c.int(v);
    }
    c.constexpr("BLOCK", 64).grid([n.div_ceil(64) as u32, 1, 1])
}

/// The seed and base of a case named `seed=S base=B`.
fn seed_and_base(case: &Case) -> (i64, i64) {
    let mut it = case.name.split(' ').map(|kv| kv.split('=').nth(1).unwrap().parse::<i64>().unwrap());
    (it.next().unwrap(), it.next().unwrap_or(0))
}

/// Offset bases: 0, just below 2^31 (i32 offsets wrap past it), negative; for i64 offsets
/// also past 2^32 (a high word) and far negative.
const BASES_I32: [i64; 3] = [0, i32::MAX as i64 - 70, -100];
const BASES_I64: [i64; 5] = [0, i32::MAX as i64 - 70, -100, (1 << 32) - 30, -(5 << 40) - 7];

fn randint_suite(def: KernelDef, bases: &[i64], offset_bits: u32) -> Suite {
    let n = 150;
    let cases =
        SEEDS.iter().flat_map(|&s| bases.iter().map(move |&b| u32_case(format!("seed={s} base={b}"), n, &[s, b])));
    Suite::new(def).cases(cases).reference(move |case| {
        let (seed, base) = seed_and_base(case);
        let want: Vec<u32> = (0..n as i64)
            .map(|i| {
                // i32 offsets wrap as the kernel's i32 addition does, and have no high word
                // (their bits are the low word, Triton's `offset.to(tl.uint32)`).
                let offset =
                    if offset_bits == 32 { i64::from((base as i32).wrapping_add(i as i32) as u32) } else { base + i };
                randint4x_ref(seed, offset)[0]
            })
            .collect();
        case.tensor_mut("y").data = Data::U32(want);
    })
}

fn case_names(suite: &Suite) -> Vec<String> {
    suite.cases.iter().map(|c| c.name.clone()).collect()
}

#[rstest]
fn randint_matches_tritons_reference_bit_for_bit(
    #[values("i32", "i64")] offsets: &str,
    #[values(Backend::Interpreter, Backend::Simulator)] backend: Backend,
) {
    let suite = match offsets {
        "i32" => randint_suite(randint_i32(), &BASES_I32, 32),
        _ => randint_suite(randint_i64(), &BASES_I64, 64),
    };
    let names = case_names(&suite);
    assert_eq!(names.len(), SEEDS.len() * if offsets == "i32" { BASES_I32.len() } else { BASES_I64.len() });
    for name in names {
        suite.check(&name, backend);
    }
}

/// An i32 seed converts to 64 bits by its sign (`-1` keys both words with `0xffffffff`).
fn seed_i32_suite() -> Suite {
    let n = 100;
    let seeds = [0i64, 7, -1, i64::from(i32::MIN), i64::from(i32::MAX)];
    Suite::new(randint_seed_i32()).cases(seeds.map(|s| u32_case(format!("seed={s}"), n, &[s]))).reference(move |case| {
        let (seed, _) = seed_and_base(case);
        let want: Vec<u32> = (0..n as i64).map(|i| randint4x_ref(seed, i)[0]).collect();
        case.tensor_mut("y").data = Data::U32(want);
    })
}

#[rstest]
fn an_i32_seed_extends_by_its_sign(#[values(Backend::Interpreter, Backend::Simulator)] backend: Backend) {
    let suite = seed_i32_suite();
    for name in case_names(&suite) {
        suite.check(&name, backend);
    }
}

fn randint4x_suite() -> Suite {
    let n = 90;
    let case = Case::new("const_seed")
        .output("y", vec![0xABAB_ABABu32; 4 * n], View::contiguous(&[4 * n]))
        .int(n as i64)
        .constexpr("BLOCK", 64)
        .grid([2, 1, 1]);
    Suite::new(randint4x_const_seed()).case(case).reference(move |case| {
        let want: Vec<u32> = (0..n as i64).flat_map(|i| randint4x_ref(CONST_SEED, i)).collect();
        case.tensor_mut("y").data = Data::U32(want);
    })
}

#[rstest]
fn randint4x_with_a_constant_seed_gives_all_four_words(
    #[values(Backend::Interpreter, Backend::Simulator)] backend: Backend,
) {
    randint4x_suite().check("const_seed", backend);
}

fn rand_suite(n: usize, seeds: &[i64]) -> Suite {
    let cases = seeds.iter().map(|&s| {
        Case::new(format!("seed={s}"))
            .output("y", vec![f32::from_bits(0xABAB_ABAB); n], View::contiguous(&[n]))
            .int(n as i64)
            .int(s)
            .constexpr("BLOCK", 1024)
            .grid([n.div_ceil(1024) as u32, 1, 1])
    });
    Suite::new(rand_kernel()).cases(cases.collect::<Vec<_>>()).reference(move |case| {
        let (seed, _) = seed_and_base(case);
        let want: Vec<f32> = (0..n as i64).map(|i| uniform_ref(randint4x_ref(seed, i)[0])).collect();
        case.tensor_mut("y").data = Data::F32(want);
    })
}

#[rstest]
fn rand_matches_tritons_reference_bit_for_bit(#[values(Backend::Interpreter, Backend::Simulator)] backend: Backend) {
    let suite = rand_suite(3000, &SEEDS);
    for name in case_names(&suite) {
        suite.check(&name, backend);
    }
}

/// The output `y` (`f32`) of case `name` of `suite` on `backend` (a CPU one).
fn run_f32(suite: &Suite, name: &str, backend: Backend) -> Vec<f32> {
    let case = suite.find(name).unwrap();
    let policy = rtriton::spec::SpecPolicy::Triton;
    let out = match backend {
        Backend::Simulator => rtriton_testing::run::run_simulator(&suite.def, case, policy),
        _ => rtriton_testing::run::run_interpreter(&suite.def, case, policy),
    }
    .unwrap_or_else(|e| panic!("{e}"));
    match out.buffers.iter().find(|(n, _)| *n == "y") {
        Some((_, Data::F32(v))) => v.clone(),
        other => panic!("no f32 output y: {other:?}"),
    }
}

/// [`run_f32`] on the interpreter.
fn interpreted_f32(suite: &Suite, name: &str) -> Vec<f32> {
    run_f32(suite, name, Backend::Interpreter)
}

/// Triton's `test_rand`: every value in `[0, 1)`, and the Kolmogorov-Smirnov distance to
/// the uniform distribution under 0.01 (over 2^17 values; Triton draws 10^5).
#[test]
fn rand_is_uniform_on_zero_one() {
    let n = 1 << 17;
    for seed in [0, 42, 124, 54] {
        let suite = rand_suite(n, &[seed]);
        let mut x = interpreted_f32(&suite, &format!("seed={seed}"));
        assert_eq!(x.len(), n);
        assert!(x.iter().all(|&v| (0.0..1.0).contains(&v)), "seed {seed}: a value outside [0, 1)");
        x.sort_by(f32::total_cmp);
        let d = x
            .iter()
            .enumerate()
            .map(|(i, &v)| {
                let v = f64::from(v);
                (v - i as f64 / n as f64).abs().max(((i + 1) as f64 / n as f64 - v).abs())
            })
            .fold(0.0, f64::max);
        assert!(d < 0.01, "seed {seed}: KS distance {d}");
    }
}

/// Triton's `test_rand_limits`: the extreme ints of each width map to one value in
/// `[1 - eps, 1)` (the scale is the largest that keeps it below 1).
#[test]
fn uniform_limits_stay_below_one() {
    let run = |def: KernelDef, x: Data| {
        let case = Case::new("limits")
            .input("x", x, View::contiguous(&[2]))
            .output("y", vec![0.0f32; 2], View::contiguous(&[2]))
            .constexpr("BLOCK", 2)
            .grid([1, 1, 1]);
        let suite = Suite::new(def).case(case);
        interpreted_f32(&suite, "limits")
    };
    for y in [
        run(uniform_i32(), Data::I32(vec![i32::MIN, i32::MAX])),
        run(uniform_i64(), Data::I64(vec![i64::MIN, i64::MAX])),
    ] {
        assert_eq!(y[0].to_bits(), y[1].to_bits(), "{y:?}");
        assert!(1.0 - f32::EPSILON <= y[0] && y[0] < 1.0, "{y:?}");
    }
}

// ---------------------------------------------------------------------------------------
// randn
// ---------------------------------------------------------------------------------------

/// The Box-Muller transform of Triton's `pair_uniform_to_normal` in `f64` on the model's
/// uniform values (the first output).
fn randn_ref(seed: i64, offset: i64) -> f32 {
    let w = randint4x_ref(seed, offset);
    let (u1, u2) = (f64::from(uniform_ref(w[0]).max(1.0e-7)), f64::from(uniform_ref(w[1])));
    let th = f64::from(std::f64::consts::TAU as f32 * u2 as f32);
    ((-2.0 * u1.ln()).sqrt() * th.cos()) as f32
}

/// `randn` against the `f64` transform: rtriton's `log`, `sqrt`, `sin` and `cos` are the
/// approximate PTX instructions (`docs/semantics.md`); the largest error is where `u1`
/// is near 1 and `r = sqrt(-2 ln u1)` near 0, an absolute one.
fn randn_suite(n: usize, seeds: &[i64]) -> Suite {
    let cases = seeds.iter().map(|&s| {
        Case::new(format!("seed={s}"))
            .output("y", vec![f32::from_bits(0xABAB_ABAB); n], View::contiguous(&[n]))
            .int(n as i64)
            .int(s)
            .constexpr("BLOCK", 1024)
            .grid([n.div_ceil(1024) as u32, 1, 1])
    });
    Suite::new(randn_kernel())
        .cases(cases.collect::<Vec<_>>())
        .reference(move |case| {
            let (seed, _) = seed_and_base(case);
            let want: Vec<f32> = (0..n as i64).map(|i| randn_ref(seed, i)).collect();
            case.tensor_mut("y").data = Data::F32(want);
        })
        .rule(Rule::approx(1e-3, 1e-4))
}

#[rstest]
fn randn_is_the_box_muller_transform_of_the_model(
    #[values(Backend::Interpreter, Backend::Simulator)] backend: Backend,
) {
    let suite = randn_suite(3000, &SEEDS);
    for name in case_names(&suite) {
        suite.check(&name, backend);
    }
}

/// The simulator draws the interpreter's `randn` bits (the math functions' CPU models are
/// shared).
#[test]
fn randn_is_bit_identical_on_the_cpu_back_ends() {
    let suite = randn_suite(2000, &[42]);
    let interp = interpreted_f32(&suite, "seed=42");
    let sim = run_f32(&suite, "seed=42", Backend::Simulator);
    assert_eq!(interp.len(), 2000);
    assert_eq!(
        interp.iter().map(|v| v.to_bits()).collect::<Vec<_>>(),
        sim.iter().map(|v| v.to_bits()).collect::<Vec<_>>()
    );
}

/// Triton's `test_randn`: mean within 0.01 of 0 and standard deviation within 0.01 of 1.
#[test]
fn randn_has_unit_moments() {
    let n = 1 << 17;
    for seed in [0, 42, 124, 54] {
        let x = interpreted_f32(&randn_suite(n, &[seed]), &format!("seed={seed}"));
        let mean = x.iter().map(|&v| f64::from(v)).sum::<f64>() / n as f64;
        let var = x.iter().map(|&v| (f64::from(v) - mean).powi(2)).sum::<f64>() / n as f64;
        assert!(mean.abs() < 1e-2, "seed {seed}: mean {mean}");
        assert!((var.sqrt() - 1.0).abs() < 1e-2, "seed {seed}: std {}", var.sqrt());
    }
}

// ---------------------------------------------------------------------------------------
// umulhi
// ---------------------------------------------------------------------------------------

/// Operand pairs of `bits`-bit words: zeros, ones, the extremes of both signednesses,
/// powers of two, the Philox multipliers, and a spread of others.
fn umulhi_operands(bits: u32) -> (Vec<u64>, Vec<u64>) {
    let m = if bits == 64 { u64::MAX } else { (1u64 << bits) - 1 };
    let mut special = vec![0, 1, 2, 3, m, m - 1, m >> 1, (m >> 1) + 1, 1 << (bits / 2), 0xD251_1F53, 0xCD9E_8D57];
    special.extend((1..20u64).map(|i| i.wrapping_mul(0x9E37_79B9_7F4A_7C15) & m));
    let a: Vec<u64> = special.iter().flat_map(|&x| special.iter().map(move |_| x)).collect();
    let b: Vec<u64> = special.iter().flat_map(|_| special.iter().copied()).collect();
    (a, b)
}

fn umulhi_suite(bits: u32, signed: bool) -> Suite {
    let (a, b) = umulhi_operands(bits);
    let n = a.len();
    let (def, data): (KernelDef, fn(&[u64]) -> Data) = match (bits, signed) {
        (32, true) => (umulhi_i32(), |v| Data::I32(v.iter().map(|&x| x as u32 as i32).collect())),
        (32, false) => (umulhi_u32(), |v| Data::U32(v.iter().map(|&x| x as u32).collect())),
        (64, true) => (umulhi_i64(), |v| Data::I64(v.iter().map(|&x| x as i64).collect())),
        _ => (umulhi_u64(), |v| Data::U64(v.to_vec())),
    };
    let want: Vec<u64> = a.iter().zip(&b).map(|(&x, &y)| ((u128::from(x) * u128::from(y)) >> bits) as u64).collect();
    let case = Case::new("specials")
        .input("a", data(&a), View::contiguous(&[n]))
        .input("b", data(&b), View::contiguous(&[n]))
        .output("y", data(&vec![0xABAB_ABAB_ABAB_ABAB; n]), View::contiguous(&[n]))
        .int(n as i64)
        .constexpr("BLOCK", 128)
        .grid([n.div_ceil(128) as u32, 1, 1]);
    Suite::new(def).case(case).reference(move |case| case.tensor_mut("y").data = data(&want))
}

/// The high word of the unsigned product, whatever the signedness of the dtype.
#[rstest]
fn umulhi_is_the_high_half_of_the_unsigned_product(
    #[values((32, true), (32, false), (64, true), (64, false))] dtype: (u32, bool),
    #[values(Backend::Interpreter, Backend::Simulator)] backend: Backend,
) {
    umulhi_suite(dtype.0, dtype.1).check("specials", backend);
}

// ---------------------------------------------------------------------------------------
// Errors
// ---------------------------------------------------------------------------------------

kernel! {
    fn umulhi_of_f32(x_ptr: Ptr<f32>, y_ptr: Ptr<f32>; const BLOCK: usize) {
        let x = load(x_ptr + arange(0, BLOCK), None, None);
        store(y_ptr + arange(0, BLOCK), umulhi(x, x), None); // umulhi of f32
    }
}

kernel! {
    fn umulhi_of_i8(x_ptr: Ptr<i8>, y_ptr: Ptr<i8>; const BLOCK: usize) {
        let x = load(x_ptr + arange(0, BLOCK), None, None);
        store(y_ptr + arange(0, BLOCK), umulhi(x, x), None); // umulhi of i8
    }
}

kernel! {
    fn rand_of_float_seed(y_ptr: Ptr<f32>; const BLOCK: usize) {
        let i = arange(0, BLOCK);
        store(y_ptr + i, rand(2.3, i), None); // rand with a float seed
    }
}

kernel! {
    fn rand_of_float_seed_arg(y_ptr: Ptr<f32>, seed: f32; const BLOCK: usize) {
        let i = arange(0, BLOCK);
        store(y_ptr + i, rand(seed, i), None); // rand with a float seed argument
    }
}

kernel! {
    fn randint_of_float_offsets(y_ptr: Ptr<u32>; const BLOCK: usize) {
        let i = arange(0, BLOCK);
        store(y_ptr + i, randint(7, i.to::<f32>()), None); // randint of float offsets
    }
}

kernel! {
    fn uniform_of_f32(y_ptr: Ptr<f32>; const BLOCK: usize) {
        let i = arange(0, BLOCK);
        store(y_ptr + i, uint_to_uniform_float(i.to::<f32>()), None); // uniform of f32
    }
}

/// Each bad input is one located error with its code, at the line that wrote it, with a
/// message naming what was wrong.
#[rstest]
#[case::umulhi_f32(umulhi_of_f32(), Code::TraceMathDType, "// umulhi of f32", "`umulhi` is not defined on f32")]
#[case::umulhi_i8(umulhi_of_i8(), Code::TraceMathDType, "// umulhi of i8", "`umulhi` is not defined on i8")]
#[case::float_seed(
    rand_of_float_seed(),
    Code::TraceRandomDType,
    "// rand with a float seed",
    "the seed of `randint` must be an integer, not f32"
)]
#[case::float_seed_arg(
    rand_of_float_seed_arg(),
    Code::TraceRandomDType,
    "// rand with a float seed argument",
    "the seed of `randint` must be an integer, not f32"
)]
#[case::float_offsets(
    randint_of_float_offsets(),
    Code::TraceRandomDType,
    "// randint of float offsets",
    "the offset of `randint` must be an integer, not f32"
)]
#[case::uniform_f32(
    uniform_of_f32(),
    Code::TraceRandomDType,
    "// uniform of f32",
    "takes 32- or 64-bit integers, not f32"
)]
fn bad_inputs_are_located_errors(
    #[case] def: KernelDef,
    #[case] code: Code,
    #[case] marker: &str,
    #[case] message: &str,
) {
    let name = def.name;
    let e = trace_unspecialized(&def, &[("BLOCK", 16)]).expect_err("a bad input must not trace");
    let d = e.diagnostics();
    assert_eq!(d.len(), 1, "{e}");
    assert_eq!(d[0].code, code, "{e}");
    let line = include_str!("random.rs").lines().position(|l| l.ends_with(marker)).unwrap() + 1;
    let text = e.to_string();
    assert!(text.contains(&format!("kernel `{name}` at tests/tests/random.rs:{line}:")), "{text}");
    assert!(text.contains(message), "{text}");
}

// ---------------------------------------------------------------------------------------
// ptxas and the GPU
// ---------------------------------------------------------------------------------------

/// The PTX of `rand`, `randn`, `randint` with i64 offsets and 64-bit Philox assembles for
/// sm_86 and sm_90, with `mul.hi.u32` (`mul.hi.u64`) for `umulhi`.
#[rstest]
#[cfg_attr(not(has_ptxas), ignore = "needs ptxas on PATH")]
fn random_kernels_assemble(#[values("rand", "randn", "randint_i64", "philox64")] which: &str) {
    let (def, constexprs, hi): (KernelDef, Vec<(&str, i64)>, &str) = match which {
        "rand" => (rand_kernel(), vec![("BLOCK", 1024)], "mul.hi.u32"),
        "randn" => (randn_kernel(), vec![("BLOCK", 1024)], "mul.hi.u32"),
        "randint_i64" => (randint_i64(), vec![("BLOCK", 256)], "mul.hi.u32"),
        _ => (philox64_block(), vec![("BLOCK", 128), ("ROUNDS", 10)], "mul.hi.u64"),
    };
    let options = ptx_common::options(rtriton::backend::ptx::Arch::Sm86, 4);
    let ptx = ptx_common::compile_plain(&def, &constexprs, &options).unwrap_or_else(|e| panic!("{e}"));
    let text = &ptx.text;
    assert!(text.contains(hi), "{text}");
    let ptxas = ptx_common::ptxas("random_kernels_assemble");
    for arch in ["sm_86", "sm_90"] {
        let info = ptx_common::assemble(&ptxas, text, arch, &format!("{which}_{arch}"))
            .unwrap_or_else(|e| panic!("{e}\n{text}"));
        assert_eq!(ptx_common::spill_stores(&info), Some(0), "{which} on {arch}: {info}");
    }
}

/// The GPU draws the model's bits for `randint`, `randint4x`, `rand` and the known
/// answers, and `randn` within the transform's tolerance.
#[rstest]
#[ignore = "needs a GPU"]
fn gpu_draws_the_same_numbers(
    #[values("kat32", "kat64", "randint_i32", "randint_i64", "seed_i32", "randint4x", "rand", "randn", "umulhi")]
    which: &str,
) {
    let check_all = |suite: Suite| {
        for name in case_names(&suite) {
            suite.check(&name, Backend::Gpu);
        }
    };
    match which {
        "kat32" => check_all(kat32_suite()),
        "kat64" => check_all(kat64_suite()),
        "randint_i32" => check_all(randint_suite(randint_i32(), &BASES_I32, 32)),
        "randint_i64" => check_all(randint_suite(randint_i64(), &BASES_I64, 64)),
        "seed_i32" => check_all(seed_i32_suite()),
        "randint4x" => check_all(randint4x_suite()),
        "rand" => check_all(rand_suite(100_000, &SEEDS)),
        "randn" => check_all(randn_suite(100_000, &SEEDS)),
        _ => {
            for (bits, signed) in [(32, true), (32, false), (64, true), (64, false)] {
                check_all(umulhi_suite(bits, signed));
            }
        }
    }
}
