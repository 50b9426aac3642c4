//! Combine regions on every dtype: `cumsum`, `cumprod`, `associative_scan` and `reduce` with a DSL
//! closure on f16, bf16, f32, f64, i8, i16, i32, i64, u8, u32 and u64 run on the
//! interpreter (which once refused every 8- and 16-bit operand: "the interpreter cannot
//! run combine operands of bf16 and bf16") and on the SIMT simulator, which must agree
//! bit for bit (any NaN matching any NaN: float arithmetic promises no NaN bits). Storage
//! dtypes compute each op of the closure in f32 / i32 and round back after it
//! (`docs/semantics.md`, "reduce, associative_scan and cumsum").

use half::{bf16, f16};
use proptest::prelude::*;
use rtriton::kernel;
use rtriton::prelude::*;
use rtriton::spec::SpecPolicy;
use rtriton::trace::KernelDef;
use rtriton_testing::compare::differences;
use rtriton_testing::run::{run_interpreter, run_simulator};
use rtriton_testing::{Case, Data, Rule, View};

/// `OP`: 0 `cumsum`, 1 `associative_scan(|a, b| a - b)`, 2 `reduce(|a, b| a + b)`,
/// 3 `reduce(|a, b| a * b + a)` (two roundings per combine for storage dtypes),
/// 4 `reduce((x, x), |(a0, a1), (b0, b1)| (maximum(a0, b0), a1 - b1))`, 5 `cumprod`.
const OPS: i64 = 6;

macro_rules! combine_kernel {
    ($name:ident, $t:ty, $zero:expr) => {
        kernel! {
            fn $name(x_ptr: Ptr<$t>, y_ptr: Ptr<$t>, z_ptr: Ptr<$t>, n: i32; const BLOCK: usize, const OP: usize) {
                let cols = arange(0, BLOCK);
                let mask = cols.lt(n);
                let x = load(x_ptr + cols, Some(mask), Some($zero));
                match OP {
                    0 => store(z_ptr + cols, cumsum(x, 0), Some(mask)),
                    1 => store(z_ptr + cols, associative_scan(x, 0, |a, b| a - b), Some(mask)),
                    2 => store(y_ptr, reduce(x, 0, |a, b| a + b), None),
                    3 => store(y_ptr, reduce(x, 0, |a, b| a * b + a), None),
                    5 => store(z_ptr + cols, cumprod(x, 0), Some(mask)),
                    _ => {
                        let (m, d) = reduce((x, x), 0, |(a0, a1): (Tensor<$t>, Tensor<$t>), (b0, b1)| {
                            (maximum(a0, b0), a1 - b1)
                        });
                        store(y_ptr, m, None);
                        store(y_ptr + 1, d, None);
                    }
                }
            }
        }
    };
}

combine_kernel!(combine_f16, f16, f16::ZERO);
combine_kernel!(combine_bf16, bf16, bf16::ZERO);
combine_kernel!(combine_f32, f32, 0.0f32);
combine_kernel!(combine_f64, f64, 0.0f64);
combine_kernel!(combine_i8, i8, 0i8);
combine_kernel!(combine_i16, i16, 0i16);
combine_kernel!(combine_i32, i32, 0i32);
combine_kernel!(combine_i64, i64, 0i64);
combine_kernel!(combine_u8, u8, 0u8);
combine_kernel!(combine_u32, u32, 0u32);
combine_kernel!(combine_u64, u64, 0u64);

/// A dtype's name, its kernel, and a buffer of it from raw bits.
type DtypeRow = (&'static str, fn() -> KernelDef, fn(&[u64]) -> Data);

/// Every dtype's kernel and a buffer of `n` elements of it from raw bits.
fn dtypes() -> Vec<DtypeRow> {
    vec![
        ("f16", combine_f16, |b| Data::F16(b.iter().map(|&v| f16::from_bits(v as u16)).collect())),
        ("bf16", combine_bf16, |b| Data::BF16(b.iter().map(|&v| bf16::from_bits(v as u16)).collect())),
        ("f32", combine_f32, |b| Data::F32(b.iter().map(|&v| f32::from_bits(v as u32)).collect())),
        ("f64", combine_f64, |b| Data::F64(b.iter().map(|&v| f64::from_bits(v)).collect())),
        ("i8", combine_i8, |b| Data::I8(b.iter().map(|&v| v as i8).collect())),
        ("i16", combine_i16, |b| Data::I16(b.iter().map(|&v| v as i16).collect())),
        ("i32", combine_i32, |b| Data::I32(b.iter().map(|&v| v as i32).collect())),
        ("i64", combine_i64, |b| Data::I64(b.iter().map(|&v| v as i64).collect())),
        ("u8", combine_u8, |b| Data::U8(b.iter().map(|&v| v as u8).collect())),
        ("u32", combine_u32, |b| Data::U32(b.iter().map(|&v| v as u32).collect())),
        ("u64", combine_u64, |b| Data::U64(b.to_vec())),
    ]
}

/// Small values (so float sums stay finite and exercise rounding) mixed with raw bits
/// (NaN, infinities, subnormals, integer extremes).
fn element() -> impl Strategy<Value = u64> {
    prop_oneof![
        3 => any::<u64>(),
        // small floats of each width and small integers
        2 => (-40i32..40).prop_map(|i| (f32::from(i as i16) * 0.375).to_bits() as u64 | 1 << 63),
        2 => (-100i64..100).prop_map(|i| i as u64),
    ]
}

/// Turns the strategy's word into a value of `dtype`'s width: small floats above are
/// stored as f32 bits with a tag bit; this rescales them per float dtype.
fn bits_for(dtype: &str, w: u64) -> u64 {
    if w >> 63 == 1 && w >> 32 == 1 << 31 {
        let v = f32::from_bits(w as u32);
        return match dtype {
            "f16" => u64::from(f16::from_f32(v).to_bits()),
            "bf16" => u64::from(bf16::from_f32(v).to_bits()),
            "f32" => u64::from(v.to_bits()),
            "f64" => f64::from(v).to_bits(),
            _ => v as i64 as u64,
        };
    }
    w
}

fn case(x: Data, op: i64, block: usize, n: usize, num_warps: u32) -> Case {
    let len = x.len();
    let zeros = x.zeros_like();
    // two results for the two-operand reduce
    let y = Data::zeros(x.dtype(), 2).expect("a dtype with buffers");
    let ny = y.len();
    let mut c = Case::new("combine")
        .input("x", x, View::contiguous(&[len]))
        .output("y", y, View::contiguous(&[ny]))
        .output("z", zeros, View::contiguous(&[len]))
        .int(n as i64)
        .num_warps(num_warps)
        .grid([1, 1, 1]);
    c.constexprs = vec![("BLOCK", block as i64), ("OP", op)];
    c
}

/// The interpreter and the simulator on one launch; `Err` names the first difference.
fn agree(def: &KernelDef, c: &Case) -> Result<(), String> {
    let want = run_interpreter(def, c, SpecPolicy::Triton).map_err(|e| format!("interpreter: {e}"))?;
    let got = run_simulator(def, c, SpecPolicy::Triton).map_err(|e| format!("simulator: {e}"))?;
    for ((name, g), (_, w)) in got.buffers.iter().zip(&want.buffers) {
        let (diffs, _) = differences(g, w, &Rule::BITS.any_nan(), 1);
        if let Some(d) = diffs.first() {
            return Err(format!("`{name}` differs at {}: simulator {}, interpreter {}", d.element, d.got, d.want));
        }
    }
    Ok(())
}

/// The case the issue names: `cumsum` of bf16 ran on the simulator but stopped the
/// interpreter. Every op runs on every dtype, and the bf16 sum rounds after each round.
#[test]
fn every_combine_runs_on_every_dtype_on_the_interpreter() {
    for (name, def, data) in dtypes() {
        let def = def();
        for op in 0..OPS {
            let bits: Vec<u64> =
                (0..16).map(|i| bits_for(name, (f32::from(i as i16) * 0.25).to_bits() as u64 | 1 << 63)).collect();
            let c = case(data(&bits), op, 16, 13, 4);
            if let Err(e) = agree(&def, &c) {
                panic!("{name}, op {op}: {e}");
            }
        }
    }
    // bf16 cumsum of 1.0 and 2^-8 four times: rounded to bf16 at each round.
    let x = [1.0f32, 0.00390625, 0.00390625, 0.00390625];
    let c = case(Data::BF16(x.iter().map(|&v| bf16::from_f32(v)).collect()), 0, 4, 4, 1);
    let out = run_interpreter(&combine_bf16(), &c, SpecPolicy::Triton).expect("bf16 cumsum runs");
    let z = out.buffers.iter().find(|(n, _)| *n == "z").map(|(_, d)| d.clone()).expect("z");
    // round 1: [1, 1+2^-8 -> 1, 2^-7, 2^-7]; round 2: [1, 1, 1+2^-7, 1+2^-7 -> 1.0078125]
    let Data::BF16(z) = z else { panic!("bf16 out") };
    assert_eq!(z.iter().map(|v| v.to_f32()).collect::<Vec<_>>(), vec![1.0, 1.0, 1.0078125, 1.0078125]);
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

    /// Random blocks (1 to 64 elements, masked tails, 1 or 4 warps) of every dtype: the
    /// interpreter and the simulator give the same bits for every scan and reduction.
    #[test]
    fn scans_and_reductions_agree_on_every_dtype(
        words in proptest::collection::vec(element(), 64),
        block_log in 0u32..7,
        tail in 0usize..64,
        op in 0..OPS,
        warps in prop_oneof![Just(1u32), Just(4u32)],
        which in 0usize..11,
    ) {
        let (name, def, data) = dtypes()[which];
        let block = 1usize << block_log;
        let n = 1 + tail % block;
        let bits: Vec<u64> = words[..block].iter().map(|&w| bits_for(name, w)).collect();
        let c = case(data(&bits), op, block, n, warps);
        prop_assert!(agree(&def(), &c).is_ok(), "{name}, op {op}, block {block}, n {n}, warps {warps}: {:?}", agree(&def(), &c));
    }
}

/// `cumprod` against the running product in index order, on inputs where the scan order
/// cannot change a result: i32 (wrapping products are associative) and f32 powers of two
/// and small integers (every partial product is exact, in any grouping), with a masked
/// tail and an infinity.
#[test]
fn cumprod_is_the_running_product() {
    let ints: Vec<i32> = vec![3, -7, 1 << 20, 5, -1, 1 << 16, 9, 0, 4, -3, 11, 2, 13];
    let floats: Vec<f32> = vec![2.0, -0.5, 3.0, 0.25, -4.0, -1.0, 8.0, -2.0, 1.5, 6.0, f32::INFINITY, -0.25, 0.5];
    let n = ints.len();
    let want_i: Vec<i32> = ints
        .iter()
        .scan(1i32, |p, &v| {
            *p = p.wrapping_mul(v);
            Some(*p)
        })
        .collect();
    let want_f: Vec<f32> = floats
        .iter()
        .scan(1.0f32, |p, &v| {
            *p *= v;
            Some(*p)
        })
        .collect();
    for (name, def, data, want) in [
        ("i32", combine_i32 as fn() -> KernelDef, Data::I32(ints.clone()), Data::I32(want_i)),
        ("f32", combine_f32, Data::F32(floats.clone()), Data::F32(want_f)),
    ] {
        let c = case(data, 5, 16, n, 4);
        agree(&def(), &c).unwrap_or_else(|e| panic!("{name}: {e}"));
        let out = run_interpreter(&def(), &c, SpecPolicy::Triton).expect("cumprod runs");
        let z = out.buffers.iter().find(|(b, _)| *b == "z").map(|(_, d)| d.clone()).expect("z");
        let (diffs, _) = differences(&z, &want, &Rule::BITS, 1);
        assert!(diffs.is_empty(), "{name}: {:?}", diffs.first());
    }
}
