//! Triton's `histogram`, `flip` and `gather`, which rtriton writes with other ops
//! (`dsl/src/lang/indexing.rs`): each over a table of shapes, dtypes and masks against a
//! plain-Rust reference on the interpreter and the simulator (and, asked for, the GPU),
//! bit for bit; their PTX through ptxas; a one-hot block over the register budget refused.

mod ptx_common;

use rtriton::backend::ptx::Arch;
use rtriton::diag::{Code, HasDiagnostics};
use rtriton::kernel;
use rtriton::prelude::*;
use rtriton::spec::{ArgValue, SpecPolicy};
use rtriton::trace::KernelDef;
use rtriton_testing::run::run_simulator;
use rtriton_testing::{Backend, Case, Data, Rule, Suite, View};

/// A deterministic scramble of `i` (a multiplicative hash, then a rotation by `seed`).
fn mix(seed: u32, i: usize) -> u32 {
    (i as u32 ^ seed.wrapping_mul(0x9E37_79B9)).wrapping_mul(2_654_435_761).rotate_left(seed % 32)
}

fn constexpr(case: &Case, name: &str) -> i64 {
    case.constexprs.iter().find(|(n, _)| *n == name).map(|(_, v)| *v).expect("the case sets the constexpr")
}

// ---------------------------------------------------------------------------------------
// histogram

/// `y = histogram(x[..N], BINS)`, masked by `m[i] != 0` when `MASKED` is 1.
fn hist_body<T: IntMarker>(
    x_ptr: Tensor<Ptr<T>>,
    m_ptr: Tensor<Ptr<i32>>,
    y_ptr: Tensor<Ptr<i32>>,
    n: usize,
    bins: usize,
    masked: usize,
) {
    let offs = arange(0, n);
    let x = load(x_ptr + offs, None, None);
    let y = if masked == 1 {
        histogram_with(x, bins, Some(load(m_ptr + offs, None, None).ne(0)))
    } else {
        x.histogram(bins)
    };
    store(y_ptr + arange(0, bins), y, None);
}

kernel! {
    /// [`hist_body`] of `i32` values.
    fn hist_i32(x_ptr: Ptr<i32>, m_ptr: Ptr<i32>, y_ptr: Ptr<i32>; const N: usize, const BINS: usize, const MASKED: usize) {
        hist_body(x_ptr, m_ptr, y_ptr, N, BINS, MASKED);
    }
}

kernel! {
    /// [`hist_body`] of `i64` values.
    fn hist_i64(x_ptr: Ptr<i64>, m_ptr: Ptr<i32>, y_ptr: Ptr<i32>; const N: usize, const BINS: usize, const MASKED: usize) {
        hist_body(x_ptr, m_ptr, y_ptr, N, BINS, MASKED);
    }
}

kernel! {
    /// [`hist_body`] of `i8` values (negative ones must not wrap onto a bin).
    fn hist_i8(x_ptr: Ptr<i8>, m_ptr: Ptr<i32>, y_ptr: Ptr<i32>; const N: usize, const BINS: usize, const MASKED: usize) {
        hist_body(x_ptr, m_ptr, y_ptr, N, BINS, MASKED);
    }
}

/// Values spread over `[-4, bins + 4)` so that some fall below and above the bins, and the
/// dtype's extremes, which no bin counts.
fn hist_values(seed: u32, n: usize, bins: usize, lo: i64, hi: i64) -> Vec<i64> {
    (0..n)
        .map(|i| match i % 13 {
            2 => lo,
            5 => hi,
            _ => i64::from(mix(seed, i) % (bins as u32 + 8)) - 4,
        })
        .collect()
}

/// Counts of `x[i]` in `[0, bins)` where `mask[i] != 0` (all when not masked).
fn hist_ref(x: &[i64], mask: &[i32], masked: bool, bins: usize) -> Vec<i32> {
    let mut y = vec![0i32; bins];
    for (&v, &m) in x.iter().zip(mask) {
        if (!masked || m != 0) && (0..bins as i64).contains(&v) {
            y[v as usize] += 1;
        }
    }
    y
}

/// The histogram table: (dtype, N, BINS). Every row runs masked and unmasked.
const HIST_TABLE: &[(&str, usize, usize)] = &[
    ("i32", 16, 8),
    ("i32", 64, 32),
    ("i32", 128, 4),
    ("i64", 32, 16),
    ("i64", 8, 64),
    // 256 bins of i8 values: -128 must not count in bin 128.
    ("i8", 64, 256),
    ("i8", 32, 8),
];

fn hist_suite(dtype: &str) -> Suite {
    let def = match dtype {
        "i32" => hist_i32(),
        "i64" => hist_i64(),
        _ => hist_i8(),
    };
    let (lo, hi) = match dtype {
        "i32" => (i64::from(i32::MIN), i64::from(i32::MAX)),
        "i64" => (i64::MIN, i64::MAX),
        _ => (i64::from(i8::MIN), i64::from(i8::MAX)),
    };
    let cases = HIST_TABLE.iter().filter(|r| r.0 == dtype).flat_map(|&(_, n, bins)| {
        [0, 1].map(move |masked| {
            let x = hist_values(n as u32 + bins as u32, n, bins, lo, hi);
            let data = match dtype {
                "i32" => Data::I32(x.iter().map(|&v| v as i32).collect()),
                "i64" => Data::I64(x),
                _ => Data::I8(x.iter().map(|&v| v as i8).collect()),
            };
            let mask: Vec<i32> = (0..n).map(|i| i32::from(!mix(7, i).is_multiple_of(3))).collect();
            // A [bins, n] one-hot block: past 8192 elements, 8 warps keep it in registers
            // (on 4, 256 bins of 64 values spill and the runtime refuses the launch).
            let num_warps = if n * bins > 8192 { 8 } else { 4 };
            Case::new(format!("{dtype} n={n} bins={bins} masked={masked}"))
                .num_warps(num_warps)
                .input("x", data, View::contiguous(&[n]))
                .input("m", mask, View::contiguous(&[n]))
                .output("y", vec![-1i32; bins], View::contiguous(&[bins]))
                .constexpr("N", n as i64)
                .constexpr("BINS", bins as i64)
                .constexpr("MASKED", masked)
        })
    });
    Suite::new(def)
        .cases(cases)
        .reference(|case| {
            let x: Vec<i64> = match &case.tensor("x").data {
                Data::I32(v) => v.iter().map(|&e| i64::from(e)).collect(),
                Data::I64(v) => v.clone(),
                Data::I8(v) => v.iter().map(|&e| i64::from(e)).collect(),
                other => unreachable!("{other:?}"),
            };
            let Data::I32(mask) = &case.tensor("m").data else { unreachable!() };
            let masked = constexpr(case, "MASKED") == 1;
            let bins = constexpr(case, "BINS") as usize;
            case.tensor_mut("y").data = Data::I32(hist_ref(&x, mask, masked, bins));
        })
        .rule(Rule::BITS)
}

// ---------------------------------------------------------------------------------------
// flip and gather: data as bit patterns, so one reference serves every dtype

/// The dtypes the flip and gather tables run.
const DTYPES: [&str; 4] = ["f32", "f16", "i32", "i64"];

/// `n` element bit patterns of `dtype`: scrambled bits (every float class turns up, NaNs
/// with payloads among them), with `-0.0`, both infinities, a quiet NaN with a payload, a
/// signalling NaN and a negative NaN planted at every seventh position of a float.
fn bits_for(dtype: &str, seed: u32, n: usize) -> Vec<u64> {
    let specials: &[u64] = match dtype {
        "f32" => &[0x8000_0000, 0x7F80_0000, 0xFF80_0000, 0x7FC0_1234, 0x7F80_0001, 0xFFC0_0042],
        "f16" => &[0x8000, 0x7C00, 0xFC00, 0x7E12, 0x7C01, 0xFE42],
        _ => &[],
    };
    (0..n)
        .map(|i| {
            let wide = (u64::from(mix(seed, i)) << 32) | u64::from(mix(seed ^ 0x55, i));
            if i % 7 == 3 && !specials.is_empty() { specials[(i / 7) % specials.len()] } else { wide }
        })
        .collect()
}

fn data_of(dtype: &str, bits: &[u64]) -> Data {
    match dtype {
        "f32" => Data::F32(bits.iter().map(|&b| f32::from_bits(b as u32)).collect()),
        "f16" => Data::F16(bits.iter().map(|&b| half::f16::from_bits(b as u16)).collect()),
        "i32" => Data::I32(bits.iter().map(|&b| b as i32).collect()),
        _ => Data::I64(bits.iter().map(|&b| b as i64).collect()),
    }
}

fn bits_of(data: &Data) -> Vec<u64> {
    match data {
        Data::F32(v) => v.iter().map(|x| u64::from(x.to_bits())).collect(),
        Data::F16(v) => v.iter().map(|x| u64::from(x.to_bits())).collect(),
        Data::I32(v) => v.iter().map(|&x| u64::from(x as u32)).collect(),
        Data::I64(v) => v.iter().map(|&x| x as u64).collect(),
        other => unreachable!("{other:?}"),
    }
}

fn dtype_of(data: &Data) -> &'static str {
    match data {
        Data::F32(_) => "f32",
        Data::F16(_) => "f16",
        Data::I32(_) => "i32",
        _ => "i64",
    }
}

/// A dim code of the tables: 0 and 1 are those dims, 2 is `None` (Triton's default, the
/// last dim), 3 is `-1`.
fn dim_of(code: usize) -> Option<isize> {
    match code {
        0 => Some(0),
        1 => Some(1),
        2 => None,
        _ => Some(-1),
    }
}

/// `y = flip(x, dim_of(DIM))` of an `R x C` block, or of a `C` block when `R` is 1.
fn flip_body<T: ScalarMarker>(x_ptr: Tensor<Ptr<T>>, y_ptr: Tensor<Ptr<T>>, r: usize, c: usize, dim: usize) {
    let offs = if r == 1 { arange(0, c) } else { arange(0, r).expand_dims(1) * c as i32 + arange(0, c).expand_dims(0) };
    let x = load(x_ptr + offs, None, None);
    let y = if dim == 2 { x.flip(None) } else { flip(x, dim_of(dim)) };
    store(y_ptr + offs, y, None);
}

/// `y = gather(src, idx, dim_of(AXIS))`: `src` is `SR x SC` and `idx` `IR x IC` (1-D `SC`
/// and `IC` when `SR` is 1).
#[allow(clippy::too_many_arguments)]
fn gather_body<T: ScalarMarker, I: IntMarker>(
    src_ptr: Tensor<Ptr<T>>,
    idx_ptr: Tensor<Ptr<I>>,
    y_ptr: Tensor<Ptr<T>>,
    sr: usize,
    sc: usize,
    ir: usize,
    ic: usize,
    axis: usize,
) {
    let offs = |r: usize, c: usize| {
        if sr == 1 { arange(0, c) } else { arange(0, r).expand_dims(1) * c as i32 + arange(0, c).expand_dims(0) }
    };
    let src = load(src_ptr + offs(sr, sc), None, None);
    let idx = load(idx_ptr + offs(ir, ic), None, None);
    let axis = dim_of(axis).expect("gather takes an axis");
    let y = if axis == 0 { gather(src, idx, axis) } else { src.gather(idx, axis) };
    store(y_ptr + offs(ir, ic), y, None);
}

macro_rules! flip_and_gather_kernels {
    ($($t:ty => $flip:ident, $gather:ident;)*) => {$(
        kernel! {
            /// [`flip_body`] in this dtype.
            fn $flip(x_ptr: Ptr<$t>, y_ptr: Ptr<$t>; const R: usize, const C: usize, const DIM: usize) {
                flip_body(x_ptr, y_ptr, R, C, DIM);
            }
        }
        kernel! {
            /// [`gather_body`] in this dtype with `i32` indices.
            fn $gather(src_ptr: Ptr<$t>, idx_ptr: Ptr<i32>, y_ptr: Ptr<$t>;
                       const SR: usize, const SC: usize, const IR: usize, const IC: usize, const AXIS: usize) {
                gather_body(src_ptr, idx_ptr, y_ptr, SR, SC, IR, IC, AXIS);
            }
        }
    )*};
}

flip_and_gather_kernels! {
    f32 => flip_f32, gather_f32;
    half::f16 => flip_f16, gather_f16;
    i32 => flip_i32, gather_i32;
    i64 => flip_i64, gather_i64;
}

kernel! {
    /// [`gather_body`] of `f32` with `i64` indices.
    fn gather_f32_i64(src_ptr: Ptr<f32>, idx_ptr: Ptr<i64>, y_ptr: Ptr<f32>;
                      const SR: usize, const SC: usize, const IR: usize, const IC: usize, const AXIS: usize) {
        gather_body(src_ptr, idx_ptr, y_ptr, SR, SC, IR, IC, AXIS);
    }
}

/// The flip table: (R, C, dim code); `R = 1` is a 1-D block of `C`.
const FLIP_TABLE: &[(usize, usize, usize)] = &[
    (1, 16, 0),
    (1, 32, 2),
    (1, 8, 3),
    (1, 1, 2),
    (4, 16, 0),
    (4, 16, 1),
    (8, 4, 2),
    (2, 32, 3),
    (16, 2, 0),
    // Long rows, 1-D and 2-D, at 4 warps.
    (1, 1024, 2),
    (2, 512, 1),
];

/// `flip` of the row-major `r x c` block `x` along `dim` (`r = 1`: 1-D, dim 0 is the only
/// dim), from the definition: the index along `dim` runs backwards.
fn flip_ref(x: &[u64], r: usize, c: usize, dim: Option<isize>) -> Vec<u64> {
    let rank = if r == 1 { 1 } else { 2 };
    let d = match dim {
        None => rank - 1,
        Some(k) if k < 0 => (k + rank as isize) as usize,
        Some(k) => k as usize,
    };
    let flip_rows = rank == 2 && d == 0;
    (0..r * c)
        .map(|k| {
            let (i, j) = (k / c, k % c);
            if flip_rows { x[(r - 1 - i) * c + j] } else { x[i * c + (c - 1 - j)] }
        })
        .collect()
}

fn flip_def(dtype: &str) -> KernelDef {
    match dtype {
        "f32" => flip_f32(),
        "f16" => flip_f16(),
        "i32" => flip_i32(),
        _ => flip_i64(),
    }
}

fn flip_suite(dtype: &'static str) -> Suite {
    let cases = FLIP_TABLE.iter().map(|&(r, c, dim)| {
        let n = r * c;
        Case::new(format!("{dtype} {r}x{c} dim={dim:?}", dim = dim_of(dim)))
            .input("x", data_of(dtype, &bits_for(dtype, (r * 31 + c) as u32, n)), View::contiguous(&[n]))
            .output("y", data_of(dtype, &vec![0x5A5A_5A5A_5A5A_5A5A; n]), View::contiguous(&[n]))
            .constexpr("R", r as i64)
            .constexpr("C", c as i64)
            .constexpr("DIM", dim as i64)
    });
    Suite::new(flip_def(dtype))
        .cases(cases)
        .reference(|case| {
            let (r, c) = (constexpr(case, "R") as usize, constexpr(case, "C") as usize);
            let dim = dim_of(constexpr(case, "DIM") as usize);
            let x = &case.tensor("x").data;
            let y = data_of(dtype_of(x), &flip_ref(&bits_of(x), r, c, dim));
            case.tensor_mut("y").data = y;
        })
        .rule(Rule::BITS)
}

/// The gather table: (SR, SC, IR, IC, axis code, out-of-range indices); `SR = 1` is 1-D.
/// The index may be shorter or longer than the source along the axis.
const GATHER_TABLE: &[(usize, usize, usize, usize, usize, bool)] = &[
    (1, 16, 1, 16, 0, false),
    (1, 8, 1, 32, 3, false),
    (1, 32, 1, 4, 0, true),
    (4, 16, 4, 16, 1, false),
    (4, 16, 8, 16, 0, false),
    (8, 4, 2, 4, 0, true),
    (4, 8, 4, 32, 3, true),
    (2, 16, 2, 8, 1, false),
];

/// Indices along the gathered axis of length `n`: in range, or with every fifth one out
/// of range (below 0, at `n`, far above) when `oob`.
fn gather_indices(seed: u32, count: usize, n: usize, oob: bool) -> Vec<i64> {
    (0..count)
        .map(|i| match (oob, i % 5) {
            (true, 1) => -1,
            (true, 2) => n as i64,
            (true, 3) => 1 << 40,
            _ => i64::from(mix(seed, i) % n as u32),
        })
        .collect()
}

/// `gather` from the definition; an index outside `[0, n)` gives zero bits (rtriton's
/// documented choice where Triton's result is undefined).
fn gather_ref(src: &[u64], idx: &[i64], (sr, sc, ir, ic): (usize, usize, usize, usize), axis: usize) -> Vec<u64> {
    let one_d = sr == 1;
    (0..ir * ic)
        .map(|k| {
            let (i, j) = (k / ic, k % ic);
            let n = if one_d || axis == 1 { sc } else { sr };
            let at = idx[k];
            if !(0..n as i64).contains(&at) {
                return 0;
            }
            let at = at as usize;
            if one_d || axis == 1 { src[i * sc + at] } else { src[at * sc + j] }
        })
        .collect()
}

fn gather_suite(dtype: &'static str, wide_index: bool) -> Suite {
    let def = match (dtype, wide_index) {
        (_, true) => gather_f32_i64(),
        ("f32", _) => gather_f32(),
        ("f16", _) => gather_f16(),
        ("i32", _) => gather_i32(),
        _ => gather_i64(),
    };
    let cases = GATHER_TABLE.iter().map(move |&(sr, sc, ir, ic, axis, oob)| {
        let rank = if sr == 1 { 1 } else { 2 };
        let a = if axis == 3 { rank - 1 } else { axis };
        let n = if rank == 1 || a == 1 { sc } else { sr };
        let idx = gather_indices((sr * 7 + sc + ir * 3 + ic) as u32, ir * ic, n, oob);
        // Out-of-range indices far above i32 only fit an i64 index; an i32 one keeps the rest.
        let idx_data: Data = if wide_index {
            Data::I64(idx)
        } else {
            Data::I32(idx.iter().map(|&v| v.clamp(-1, n as i64) as i32).collect())
        };
        Case::new(format!("{dtype} src {sr}x{sc} index {ir}x{ic} axis={:?} oob={oob}", dim_of(axis)))
            .input(
                "src",
                data_of(dtype, &bits_for(dtype, (sr * 13 + sc) as u32, sr * sc)),
                View::contiguous(&[sr * sc]),
            )
            .input("idx", idx_data, View::contiguous(&[ir * ic]))
            .output("y", data_of(dtype, &vec![0x5A5A_5A5A_5A5A_5A5A; ir * ic]), View::contiguous(&[ir * ic]))
            .constexpr("SR", sr as i64)
            .constexpr("SC", sc as i64)
            .constexpr("IR", ir as i64)
            .constexpr("IC", ic as i64)
            .constexpr("AXIS", axis as i64)
    });
    Suite::new(def)
        .cases(cases)
        .reference(|case| {
            let dims = ["SR", "SC", "IR", "IC"].map(|n| constexpr(case, n) as usize);
            let rank = if dims[0] == 1 { 1 } else { 2 };
            let axis = match dim_of(constexpr(case, "AXIS") as usize) {
                Some(k) if k < 0 => (k + rank as isize) as usize,
                Some(k) => k as usize,
                None => unreachable!("gather takes an axis"),
            };
            let idx: Vec<i64> = match &case.tensor("idx").data {
                Data::I32(v) => v.iter().map(|&e| i64::from(e)).collect(),
                Data::I64(v) => v.clone(),
                other => unreachable!("{other:?}"),
            };
            let src = &case.tensor("src").data;
            let y = gather_ref(&bits_of(src), &idx, (dims[0], dims[1], dims[2], dims[3]), axis);
            case.tensor_mut("y").data = data_of(dtype_of(src), &y);
        })
        .rule(Rule::BITS)
}

/// The flip and gather tables exercise what they claim: float data holds NaNs with
/// payloads, `-0.0` and infinities; out-of-range rows hold indices on both sides.
#[test]
fn the_tables_cover_special_values_and_out_of_range_indices() {
    for dtype in ["f32", "f16"] {
        let bits = bits_for(dtype, 3, 64);
        let neg_zero = if dtype == "f32" { 0x8000_0000 } else { 0x8000 };
        assert!(bits.contains(&neg_zero), "{dtype}");
        if let Data::F32(f) = data_of(dtype, &bits) {
            assert!(f.iter().any(|x| x.is_nan() && x.to_bits() != 0x7FC0_0000) && f.iter().any(|x| x.is_infinite()));
        }
    }
    let idx = gather_indices(1, 20, 8, true);
    assert!(idx.iter().any(|&v| v < 0) && idx.iter().any(|&v| v >= 8) && idx.iter().any(|&v| (0..8).contains(&v)));
}

/// Every suite of this file, by function and dtype.
fn suites() -> Vec<Suite> {
    let mut all = vec![hist_suite("i32"), hist_suite("i64"), hist_suite("i8")];
    all.extend(DTYPES.map(flip_suite));
    all.extend(DTYPES.map(|d| gather_suite(d, false)));
    all.push(gather_suite("f32", true));
    all
}

fn check_every_case(backend: Backend) {
    for suite in suites() {
        suite.check_all(backend);
    }
}

#[test]
fn every_function_matches_its_reference_on_the_interpreter() {
    check_every_case(Backend::Interpreter);
}

#[test]
fn every_function_matches_its_reference_on_the_simulator() {
    check_every_case(Backend::Simulator);
}

/// The GPU's bits against the reference and the interpreter's (`Suite::run` compares
/// with both), every case.
#[test]
#[ignore = "needs a GPU"]
fn every_function_matches_the_interpreter_on_the_gpu() {
    check_every_case(Backend::Gpu);
}

/// The reference histogram is not vacuous: the table's data puts values below, inside and
/// above the bins, and the mask removes some that would count.
#[test]
fn the_histogram_table_covers_ignored_and_masked_values() {
    for &(_, n, bins) in HIST_TABLE {
        let x = hist_values(n as u32 + bins as u32, n, bins, -1000, 1000);
        let mask: Vec<i32> = (0..n).map(|i| i32::from(!mix(7, i).is_multiple_of(3))).collect();
        let all = hist_ref(&x, &mask, false, bins).iter().sum::<i32>();
        let kept = hist_ref(&x, &mask, true, bins).iter().sum::<i32>();
        assert!(x.iter().any(|&v| v < 0) && x.iter().any(|&v| v >= bins as i64), "n={n} bins={bins}");
        assert!(0 < kept && kept < all && all < n as i32, "n={n} bins={bins}: {kept} {all}");
    }
}

// ---------------------------------------------------------------------------------------
// PTX and the register budget

/// A kernel with the arguments and constexprs it is compiled for.
type Launch = (KernelDef, Vec<ArgValue>, Vec<(&'static str, i64)>);

fn ptr(i: u64) -> ArgValue {
    ArgValue::Ptr(0x7f00_0000_0000 + (i << 32))
}

#[test]
#[cfg_attr(not(has_ptxas), ignore = "needs ptxas on PATH")]
fn their_ptx_assembles_without_spills() {
    let ptxas = ptx_common::ptxas("standard_indexing");
    let kernels: Vec<Launch> = vec![
        (hist_i32(), vec![ptr(0), ptr(1), ptr(2)], vec![("N", 64), ("BINS", 32), ("MASKED", 1)]),
        (hist_i64(), vec![ptr(0), ptr(1), ptr(2)], vec![("N", 32), ("BINS", 16), ("MASKED", 0)]),
        // 256 bins of 64 values fill the register budget exactly and spill; 64 do not.
        (hist_i8(), vec![ptr(0), ptr(1), ptr(2)], vec![("N", 64), ("BINS", 64), ("MASKED", 1)]),
        (flip_f32(), vec![ptr(0), ptr(1)], vec![("R", 4), ("C", 16), ("DIM", 1)]),
        (flip_f16(), vec![ptr(0), ptr(1)], vec![("R", 4), ("C", 16), ("DIM", 0)]),
        (flip_i64(), vec![ptr(0), ptr(1)], vec![("R", 1), ("C", 32), ("DIM", 2)]),
        // A 1-D block of 1024 at 4 warps: each step reshapes the axis only, so the layout's
        // rank stays low (the whole axis in dims of 2 needed 512 registers a value).
        (flip_f32(), vec![ptr(0), ptr(1)], vec![("R", 1), ("C", 1024), ("DIM", 2)]),
        (gather_f32(), vec![ptr(0), ptr(1), ptr(2)], vec![("SR", 4), ("SC", 16), ("IR", 4), ("IC", 16), ("AXIS", 1)]),
        (gather_f16(), vec![ptr(0), ptr(1), ptr(2)], vec![("SR", 4), ("SC", 16), ("IR", 8), ("IC", 16), ("AXIS", 0)]),
        (gather_i64(), vec![ptr(0), ptr(1), ptr(2)], vec![("SR", 1), ("SC", 32), ("IR", 1), ("IC", 32), ("AXIS", 0)]),
    ];
    // The GPU table's largest histogram, on the 8 warps its case launches with.
    let wide = (hist_i8(), vec![ptr(0), ptr(1), ptr(2)], vec![("N", 64), ("BINS", 256), ("MASKED", 1)]);
    let launches = kernels.into_iter().map(|k| (k, 4)).chain([(wide, 8)]);
    for ((def, args, constexprs), num_warps) in launches {
        for arch in [Arch::Sm86, Arch::Sm90] {
            let p = ptx_common::compile_def(
                &def,
                &constexprs,
                &args,
                SpecPolicy::Triton,
                &ptx_common::options(arch, num_warps),
            )
            .unwrap_or_else(|e| panic!("{}: {e}", def.name));
            let info = ptx_common::assemble(&ptxas, &p.text, arch.name(), def.name)
                .unwrap_or_else(|e| panic!("{} {arch}: {e}", def.name));
            assert_eq!(ptx_common::spill_stores(&info), Some(0), "{} {arch}", def.name);
        }
    }
}

/// A one-hot block past the register budget is refused with the budget's diagnostic
/// before anything runs, never compiled to spilling code.
#[test]
fn a_one_hot_block_over_the_register_budget_is_refused() {
    // 1024 bins of 256 values: a [1024, 256] block, 2048 registers a thread on 4 warps.
    let (n, bins) = (256usize, 1024usize);
    let case = Case::new("too large")
        .input("x", vec![0i32; n], View::contiguous(&[n]))
        .input("m", vec![1i32; n], View::contiguous(&[n]))
        .output("y", vec![0i32; bins], View::contiguous(&[bins]))
        .constexpr("N", n as i64)
        .constexpr("BINS", bins as i64)
        .constexpr("MASKED", 0);
    let e = run_simulator(&hist_i32(), &case, SpecPolicy::Triton).expect_err("over the budget");
    assert!(e.has_code(Code::PtxRegisterBudget), "histogram: {e}");

    // A 256-element gather from 256 positions: a [256, 256] one-hot block.
    let n = 256usize;
    let case = Case::new("too large")
        .input("src", vec![0f32; n], View::contiguous(&[n]))
        .input("idx", vec![0i32; n], View::contiguous(&[n]))
        .output("y", vec![0f32; n], View::contiguous(&[n]))
        .constexpr("SR", 1)
        .constexpr("SC", n as i64)
        .constexpr("IR", 1)
        .constexpr("IC", n as i64)
        .constexpr("AXIS", 0);
    let e = run_simulator(&gather_f32(), &case, SpecPolicy::Triton).expect_err("over the budget");
    assert!(e.has_code(Code::PtxRegisterBudget), "gather: {e}");
}

/// Every op `gather` expands to carries the caller's line (its selecting `reduce` among
/// them), so a diagnostic or `explain` about any of them points at the user's call.
#[test]
fn every_op_of_a_gather_carries_the_callers_line() {
    let constexprs = [("SR", 4), ("SC", 16), ("IR", 4), ("IC", 16), ("AXIS", 1)];
    let ir = rtriton::trace::trace_unspecialized(&gather_f32(), &constexprs).expect("traces").to_string();
    assert!(ir.contains(" reduce"), "{ir}");
    assert!(!ir.contains("lang/indexing.rs"), "an op located in the library, not at the call:\n{ir}");
}
