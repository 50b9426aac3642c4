//! Triton's `sort`, `topk` and `bitonic_merge`, which rtriton writes with other ops
//! (`dsl/src/lang/sort.rs`): over tables of dtypes, shapes, dims and orders against Rust's
//! sort on the interpreter and the simulator (and, asked for, the GPU), bit for bit; data
//! with NaNs and both zeros against a model of the network, itself checked against Rust's
//! sort and against Triton 3.6's compare-and-swap; their PTX through ptxas, a
//! 1024-element sort at 4 warps included; a bad dim, a scalar and a bad `k` refused with
//! located errors.

mod ptx_common;

use half::{bf16, f16};
use rtriton::backend::ptx::{self, Arch};
use rtriton::diag::{Code, Diagnostic, HasDiagnostics};
use rtriton::kernel;
use rtriton::prelude::*;
use rtriton::session::CompileSession;
use rtriton::spec::{ArgValue, SpecKey, SpecPolicy};
use rtriton::trace::{KernelDef, TraceOptions, trace_unspecialized};
use rtriton_testing::{Backend, Case, Data, Rule, Suite, View};

/// A deterministic scramble of `i` (a multiplicative hash, then a rotation by `seed`).
fn mix(seed: u32, i: usize) -> u32 {
    (i as u32 ^ seed.wrapping_mul(0x9E37_79B9)).wrapping_mul(2_654_435_761).rotate_left(seed % 32)
}

fn constexpr(case: &Case, name: &str) -> usize {
    case.constexprs.iter().find(|(n, _)| *n == name).map(|(_, v)| *v as usize).expect("the case sets the constexpr")
}

// ---------------------------------------------------------------------------------------
// The kernels: one body, the function chosen by the constexpr FN

const SORT: usize = 0;
const TOPK: usize = 1;
const TOPK_WITH: usize = 2;
const MERGE: usize = 3;

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

/// The axis a dim code names in a block of `rank` 1 or 2.
fn axis_of(code: usize, rank: usize) -> usize {
    match dim_of(code) {
        Some(d) if d < 0 => (d + rank as isize) as usize,
        Some(d) => d as usize,
        None => rank - 1,
    }
}

/// The result's `(rows, cols)`: `(r, c)` with `k` along the axis for a top-k.
fn out_dims(r: usize, c: usize, dim: usize, func: usize, k: usize) -> (usize, usize) {
    let rank = if r == 1 { 1 } else { 2 };
    match (func, axis_of(dim, rank)) {
        (TOPK | TOPK_WITH, 0) if rank == 2 => (k, c),
        (TOPK | TOPK_WITH, _) => (r, k),
        _ => (r, c),
    }
}

/// `y = f(x, ...)` of an `R x C` block (a `C` block when `R` is 1), `f` by `FN`.
#[allow(clippy::too_many_arguments)]
fn sort_body<T: NumericMarker>(
    x_ptr: Tensor<Ptr<T>>,
    y_ptr: Tensor<Ptr<T>>,
    r: usize,
    c: usize,
    dim: usize,
    func: usize,
    desc: usize,
    k: usize,
) {
    let offs = |rows: usize, cols: usize| {
        if r == 1 {
            arange(0, cols)
        } else {
            arange(0, rows).expand_dims(1) * cols as i32 + arange(0, cols).expand_dims(0)
        }
    };
    let x = load(x_ptr + offs(r, c), None, None);
    let (d, descending) = (dim_of(dim), desc == 1);
    let y = match func {
        SORT => sort(x, d, descending),
        TOPK => topk(x, k, d),
        TOPK_WITH => topk_with(x, k, d, descending),
        _ => bitonic_merge(x, d, descending),
    };
    let (yr, yc) = out_dims(r, c, dim, func, k);
    store(y_ptr + offs(yr, yc), y, None);
}

macro_rules! sort_kernels {
    ($($t:ty => $name:ident;)*) => {$(
        kernel! {
            /// [`sort_body`] in this dtype.
            fn $name(x_ptr: Ptr<$t>, y_ptr: Ptr<$t>;
                     const R: usize, const C: usize, const DIM: usize, const FN: usize, const DESC: usize, const K: usize) {
                sort_body(x_ptr, y_ptr, R, C, DIM, FN, DESC, K);
            }
        }
    )*};
}

sort_kernels! {
    i8 => sort_i8;
    u8 => sort_u8;
    i16 => sort_i16;
    i32 => sort_i32;
    u32 => sort_u32;
    i64 => sort_i64;
    u64 => sort_u64;
    f16 => sort_f16;
    bf16 => sort_bf16;
    f32 => sort_f32;
    f64 => sort_f64;
}

fn def_of(dtype: &str) -> KernelDef {
    match dtype {
        "i8" => sort_i8(),
        "u8" => sort_u8(),
        "i16" => sort_i16(),
        "i32" => sort_i32(),
        "u32" => sort_u32(),
        "i64" => sort_i64(),
        "u64" => sort_u64(),
        "f16" => sort_f16(),
        "bf16" => sort_bf16(),
        "f32" => sort_f32(),
        _ => sort_f64(),
    }
}

const DTYPES: [&str; 11] = ["i8", "u8", "i16", "i32", "u32", "i64", "u64", "f16", "bf16", "f32", "f64"];
const FLOATS: [&str; 4] = ["f16", "bf16", "f32", "f64"];

// ---------------------------------------------------------------------------------------
// Elements as bit patterns, so one reference serves every dtype

fn width(dtype: &str) -> u32 {
    match dtype {
        "i8" | "u8" => 8,
        "i16" | "f16" | "bf16" => 16,
        "i32" | "u32" | "f32" => 32,
        _ => 64,
    }
}

fn data_of(dtype: &str, bits: &[u64]) -> Data {
    match dtype {
        "i8" => Data::I8(bits.iter().map(|&b| b as i8).collect()),
        "u8" => Data::U8(bits.iter().map(|&b| b as u8).collect()),
        "i16" => Data::I16(bits.iter().map(|&b| b as i16).collect()),
        "i32" => Data::I32(bits.iter().map(|&b| b as i32).collect()),
        "u32" => Data::U32(bits.iter().map(|&b| b as u32).collect()),
        "i64" => Data::I64(bits.iter().map(|&b| b as i64).collect()),
        "u64" => Data::U64(bits.to_vec()),
        "f16" => Data::F16(bits.iter().map(|&b| f16::from_bits(b as u16)).collect()),
        "bf16" => Data::BF16(bits.iter().map(|&b| bf16::from_bits(b as u16)).collect()),
        "f32" => Data::F32(bits.iter().map(|&b| f32::from_bits(b as u32)).collect()),
        _ => Data::F64(bits.iter().map(|&b| f64::from_bits(b)).collect()),
    }
}

fn bits_of(data: &Data) -> Vec<u64> {
    match data {
        Data::I8(v) => v.iter().map(|&x| u64::from(x as u8)).collect(),
        Data::U8(v) => v.iter().map(|&x| u64::from(x)).collect(),
        Data::I16(v) => v.iter().map(|&x| u64::from(x as u16)).collect(),
        Data::I32(v) => v.iter().map(|&x| u64::from(x as u32)).collect(),
        Data::U32(v) => v.iter().map(|&x| u64::from(x)).collect(),
        Data::I64(v) => v.iter().map(|&x| x as u64).collect(),
        Data::U64(v) => v.clone(),
        Data::F16(v) => v.iter().map(|x| u64::from(x.to_bits())).collect(),
        Data::BF16(v) => v.iter().map(|x| u64::from(x.to_bits())).collect(),
        Data::F32(v) => v.iter().map(|x| u64::from(x.to_bits())).collect(),
        Data::F64(v) => v.iter().map(|x| x.to_bits()).collect(),
    }
}

fn dtype_of(data: &Data) -> &'static str {
    match data {
        Data::I8(_) => "i8",
        Data::U8(_) => "u8",
        Data::I16(_) => "i16",
        Data::I32(_) => "i32",
        Data::U32(_) => "u32",
        Data::I64(_) => "i64",
        Data::U64(_) => "u64",
        Data::F16(_) => "f16",
        Data::BF16(_) => "bf16",
        Data::F32(_) => "f32",
        Data::F64(_) => "f64",
    }
}

/// The element's value as a float (`None` for an integer dtype).
fn float_value(dtype: &str, b: u64) -> Option<f64> {
    match dtype {
        "f16" => Some(f64::from(f16::from_bits(b as u16).to_f32())),
        "bf16" => Some(f64::from(bf16::from_bits(b as u16).to_f32())),
        "f32" => Some(f64::from(f32::from_bits(b as u32))),
        "f64" => Some(f64::from_bits(b)),
        _ => None,
    }
}

/// The element as an integer (`None` for a float dtype).
fn int_value(dtype: &str, b: u64) -> Option<i128> {
    Some(match dtype {
        "i8" => i128::from(b as i8),
        "u8" => i128::from(b as u8),
        "i16" => i128::from(b as i16),
        "i32" => i128::from(b as i32),
        "u32" => i128::from(b as u32),
        "i64" => i128::from(b as i64),
        "u64" => i128::from(b),
        _ => return None,
    })
}

/// Triton's `a > b`: by value, ordered for floats (false when either is NaN).
fn greater(dtype: &str, a: u64, b: u64) -> bool {
    match (float_value(dtype, a), float_value(dtype, b)) {
        (Some(x), Some(y)) => x > y,
        _ => int_value(dtype, a) > int_value(dtype, b),
    }
}

/// Rust's order of two elements of data without NaNs.
fn order(dtype: &str, a: u64, b: u64) -> std::cmp::Ordering {
    match (float_value(dtype, a), float_value(dtype, b)) {
        (Some(x), Some(y)) => x.partial_cmp(&y).expect("value data holds no NaN"),
        _ => int_value(dtype, a).cmp(&int_value(dtype, b)),
    }
}

fn is_nan(dtype: &str, b: u64) -> bool {
    float_value(dtype, b).is_some_and(f64::is_nan)
}

fn sign_bit(dtype: &str) -> u64 {
    1 << (width(dtype) - 1)
}

/// `n` elements of `dtype` with no NaN and no `+0.0` (so that equal values have equal
/// bits and every order of ties is the same bits): scrambled bits (every other float
/// class, both signs, subnormals), the dtype's extremes or infinities, `-0.0`, and a
/// pool of four values repeated at every third position (ties).
fn values(dtype: &str, seed: u32, n: usize) -> Vec<u64> {
    let w = width(dtype);
    let mask = if w == 64 { u64::MAX } else { (1 << w) - 1 };
    let wide = |i: usize| ((u64::from(mix(seed, i)) << 32) | u64::from(mix(seed ^ 0x55, i))) & mask;
    let (lo, hi) = match float_value(dtype, 0) {
        // -inf and +inf: all exponent bits set, mantissa clear.
        Some(_) => {
            let inf = match dtype {
                "f16" => 0x7C00,
                "bf16" => 0x7F80,
                "f32" => 0x7F80_0000,
                _ => 0x7FF0_0000_0000_0000,
            };
            (inf | sign_bit(dtype), inf)
        }
        // The minimum and maximum: for a signed type the sign bit alone and the rest.
        None if dtype.starts_with('i') => (sign_bit(dtype), mask ^ sign_bit(dtype)),
        None => (0, mask),
    };
    (0..n)
        .map(|i| {
            let b = match i % 11 {
                1 => lo,
                4 => hi,
                7 if float_value(dtype, 0).is_some() => sign_bit(dtype),
                _ if i % 3 == 0 => wide(1000 + i % 4),
                _ => wide(i),
            };
            if is_nan(dtype, b) {
                // Clearing the top exponent bit leaves a finite number.
                b ^ (sign_bit(dtype) >> 1)
            } else if float_value(dtype, b) == Some(0.0) {
                b | sign_bit(dtype)
            } else {
                b
            }
        })
        .collect()
}

/// `n` elements of `dtype`: scrambled bits (NaNs among them) with `+0.0`, `-0.0`, a quiet
/// NaN with a payload, a negative NaN and an infinity planted at every fifth position of
/// a float.
fn specials(dtype: &str, seed: u32, n: usize) -> Vec<u64> {
    let planted: &[u64] = match dtype {
        "f16" => &[0x0000, 0x8000, 0x7E12, 0xFE42, 0x7C00],
        "bf16" => &[0x0000, 0x8000, 0x7FC3, 0xFFC1, 0xFF80],
        "f32" => &[0x0000_0000, 0x8000_0000, 0x7FC0_1234, 0xFFC0_0042, 0x7F80_0000],
        "f64" => &[0, 0x8000_0000_0000_0000, 0x7FF8_0000_0000_1234, 0xFFF8_0000_0000_0042, 0xFFF0_0000_0000_0000],
        _ => &[],
    };
    let mut v = values(dtype, seed, n);
    for (i, b) in v.iter_mut().enumerate() {
        if i % 5 == 2 && !planted.is_empty() {
            *b = planted[(i / 5) % planted.len()];
        }
    }
    v
}

// ---------------------------------------------------------------------------------------
// Lines along the axis, and the two references

/// The flat indices of each line of an `r x c` block along `axis` (`r = 1`: 1-D).
fn lines(r: usize, c: usize, axis: usize) -> Vec<Vec<usize>> {
    if r == 1 || axis == 1 {
        (0..r).map(|i| (0..c).map(|j| i * c + j).collect()).collect()
    } else {
        (0..c).map(|j| (0..r).map(|i| i * c + j).collect()).collect()
    }
}

/// `f` applied to every line of `x` (an `r x c` block) along the case's axis, written
/// into the result's lines.
fn per_line(case: &Case, x: &[u64], f: impl Fn(&[u64]) -> Vec<u64>) -> Vec<u64> {
    let [r, c, dim, func, _, k] = ["R", "C", "DIM", "FN", "DESC", "K"].map(|n| constexpr(case, n));
    let axis = axis_of(dim, if r == 1 { 1 } else { 2 });
    let (yr, yc) = out_dims(r, c, dim, func, k);
    let mut y = vec![0; yr * yc];
    for (xs, ys) in lines(r, c, axis).into_iter().zip(lines(yr, yc, axis)) {
        let line: Vec<u64> = xs.iter().map(|&i| x[i]).collect();
        for (&at, v) in ys.iter().zip(f(&line)) {
            y[at] = v;
        }
    }
    y
}

/// Rust's sort of a line of value data, as the case's function defines the result.
fn rust_sorted(dtype: &str, line: &[u64], func: usize, desc: bool, k: usize) -> Vec<u64> {
    let mut v = line.to_vec();
    let desc = match func {
        TOPK => true,
        _ => desc,
    };
    v.sort_by(|&a, &b| if desc { order(dtype, b, a) } else { order(dtype, a, b) });
    if matches!(func, TOPK | TOPK_WITH) {
        v.truncate(k);
    }
    v
}

/// The direction a merge stage leaves the runs in (the model's copy of `sort.rs`'s).
#[derive(Clone, Copy, PartialEq)]
enum Order {
    Ascending,
    Descending,
    Alternating,
}

fn fixed(desc: bool) -> Order {
    if desc { Order::Descending } else { Order::Ascending }
}

/// How a compare-and-swap decides a pair `(left, right)`, `descending` or not: the new
/// left and right elements.
type Pair = fn(&str, u64, u64, bool) -> (u64, u64);

/// rtriton's decision: exchange both when the pair is out of order under `>`.
fn rtriton_pair(dtype: &str, l: u64, r: u64, desc: bool) -> (u64, u64) {
    let swap = if desc { greater(dtype, r, l) } else { greater(dtype, l, r) };
    if swap { (r, l) } else { (l, r) }
}

/// Triton 3.6's `_compare_and_swap`: each side decides on its own,
/// `where((x > y) != (flip ^ is_right), y, x)`.
fn triton_3_6_pair(dtype: &str, l: u64, r: u64, desc: bool) -> (u64, u64) {
    let left = if greater(dtype, l, r) != desc { r } else { l };
    // The right place: `x` is the right element, `y` the left, `is_right` is 1, so it
    // takes the left one when `(r > l) != !desc`.
    let right = if greater(dtype, r, l) == desc { l } else { r };
    (left, right)
}

/// Compare-and-swaps on bits `stage - 1` down to 0.
fn model_merge(dtype: &str, v: &mut [u64], stage: u32, order: Order, pair: Pair) {
    for bit in (0..stage).rev() {
        for i in (0..v.len()).filter(|i| i & (1 << bit) == 0) {
            let j = i | 1 << bit;
            let desc = match order {
                Order::Ascending => false,
                Order::Descending => true,
                Order::Alternating => i >> stage & 1 == 1,
            };
            (v[i], v[j]) = pair(dtype, v[i], v[j], desc);
        }
    }
}

/// The network of `sort.rs` on one line, written over a slice: Triton's bitonic sort and
/// top-k with `pair` deciding each compare-and-swap.
fn model(dtype: &str, line: &[u64], func: usize, desc: bool, k: usize, pair: Pair) -> Vec<u64> {
    let mut v = line.to_vec();
    let log_n = v.len().trailing_zeros();
    if func == MERGE {
        model_merge(dtype, &mut v, log_n, fixed(desc), pair);
        return v;
    }
    let desc = func == TOPK || desc;
    let log_k = if func == SORT { log_n } else { k.trailing_zeros() };
    let last = |stage: u32| if stage < log_n { Order::Alternating } else { fixed(desc) };
    for stage in 1..=log_k {
        model_merge(dtype, &mut v, stage, last(stage), pair);
    }
    for round in log_k + 1..=log_n {
        // The pairwise best of neighbouring runs of k: the greater (the right one unless
        // the left is greater) or the smaller (the left one unless the right is smaller).
        let k = 1 << log_k;
        v = (0..v.len())
            .filter(|i| i & k == 0)
            .map(|i| {
                let (l, r) = (v[i], v[i | k]);
                if greater(dtype, l, r) == desc { l } else { r }
            })
            .collect();
        model_merge(dtype, &mut v, log_k, last(round), pair);
    }
    v
}

// ---------------------------------------------------------------------------------------
// The tables

/// A row: (R, C, dim code, FN, DESC, K); `R = 1` is a 1-D block of `C`.
type Row = (usize, usize, usize, usize, usize, usize);

/// Every dtype runs these, with value data against Rust's sort. The `MERGE` rows get
/// bitonic lines (the first half ascending, the second descending).
const VALUE_TABLE: &[Row] = &[
    (1, 1, 2, SORT, 0, 0),
    (1, 2, 2, SORT, 1, 0),
    (1, 16, 2, SORT, 0, 0),
    (1, 32, 3, SORT, 1, 0),
    (1, 128, 0, SORT, 0, 0),
    (4, 16, 1, SORT, 0, 0),
    (4, 16, 0, SORT, 1, 0),
    (16, 4, 2, SORT, 1, 0),
    (8, 8, 3, SORT, 0, 0),
    (2, 32, 0, SORT, 0, 0),
    (1, 32, 2, TOPK, 0, 4),
    (1, 16, 2, TOPK, 0, 1),
    (1, 16, 0, TOPK, 0, 16),
    (4, 16, 1, TOPK, 0, 2),
    (16, 4, 0, TOPK, 0, 8),
    (1, 64, 2, TOPK_WITH, 0, 8),
    (8, 8, 0, TOPK_WITH, 1, 4),
    (1, 32, 2, MERGE, 0, 0),
    (1, 32, 2, MERGE, 1, 0),
    (4, 16, 1, MERGE, 1, 0),
    (16, 4, 0, MERGE, 0, 0),
];

/// A 1024-element block (the largest Triton tutorial sort) and a 2-D one of 1024, for a
/// float and an integer dtype.
const LARGE_TABLE: &[Row] = &[(1, 1024, 2, SORT, 0, 0), (1, 1024, 2, TOPK, 0, 16), (8, 128, 1, SORT, 1, 0)];
const LARGE_DTYPES: [&str; 2] = ["f32", "i32"];

/// Float dtypes run these with NaNs and both zeros, against the model; `MERGE` lines are
/// not bitonic, so they show what the network does to any input.
const SPECIAL_TABLE: &[Row] = &[
    (1, 64, 2, SORT, 0, 0),
    (1, 64, 2, SORT, 1, 0),
    (4, 16, 0, SORT, 0, 0),
    (1, 64, 2, TOPK, 0, 8),
    (1, 32, 2, TOPK_WITH, 0, 4),
    (1, 32, 2, MERGE, 1, 0),
    (8, 8, 1, MERGE, 0, 0),
];

fn row_name(dtype: &str, &(r, c, dim, func, desc, k): &Row, data: &str) -> String {
    let f = ["sort", "topk", "topk_with", "bitonic_merge"][func];
    format!("{dtype} {data} {r}x{c} {f} dim={:?} desc={desc} k={k}", dim_of(dim))
}

fn case(dtype: &str, row: &Row, x: Vec<u64>, data: &str) -> Case {
    let &(r, c, dim, func, desc, k) = row;
    let (yr, yc) = out_dims(r, c, dim, func, k);
    Case::new(row_name(dtype, row, data))
        .input("x", data_of(dtype, &x), View::contiguous(&[r * c]))
        .output("y", data_of(dtype, &vec![0x5A5A_5A5A_5A5A_5A5A; yr * yc]), View::contiguous(&[yr * yc]))
        .constexpr("R", r as i64)
        .constexpr("C", c as i64)
        .constexpr("DIM", dim as i64)
        .constexpr("FN", func as i64)
        .constexpr("DESC", desc as i64)
        .constexpr("K", k as i64)
}

/// Value data for `row`: bitonic lines for a merge.
fn value_input(dtype: &str, row: &Row) -> Vec<u64> {
    let &(r, c, dim, func, ..) = row;
    let mut x = values(dtype, (r * 31 + c * 7 + func) as u32, r * c);
    if func == MERGE {
        for line in lines(r, c, axis_of(dim, if r == 1 { 1 } else { 2 })) {
            let half = line.len() / 2;
            let mut v: Vec<u64> = line.iter().map(|&i| x[i]).collect();
            v[..half].sort_by(|&a, &b| order(dtype, a, b));
            v[half..].sort_by(|&a, &b| order(dtype, b, a));
            for (&i, b) in line.iter().zip(v) {
                x[i] = b;
            }
        }
    }
    x
}

fn value_suite(dtype: &'static str, table: &'static [Row]) -> Suite {
    let cases = table.iter().map(move |row| case(dtype, row, value_input(dtype, row), "values"));
    Suite::new(def_of(dtype))
        .cases(cases)
        .reference(|case| {
            let x = &case.tensor("x").data;
            let (dtype, bits) = (dtype_of(x), bits_of(x));
            let (func, desc, k) = (constexpr(case, "FN"), constexpr(case, "DESC") == 1, constexpr(case, "K"));
            let y = per_line(case, &bits, |line| rust_sorted(dtype, line, func, desc, k));
            case.tensor_mut("y").data = data_of(dtype, &y);
        })
        .rule(Rule::BITS)
}

fn special_suite(dtype: &'static str) -> Suite {
    let cases = SPECIAL_TABLE.iter().map(move |row| {
        let &(r, c, ..) = row;
        case(dtype, row, specials(dtype, (r * 13 + c) as u32, r * c), "specials")
    });
    Suite::new(def_of(dtype))
        .cases(cases)
        .reference(|case| {
            let x = &case.tensor("x").data;
            let (dtype, bits) = (dtype_of(x), bits_of(x));
            let (func, desc, k) = (constexpr(case, "FN"), constexpr(case, "DESC") == 1, constexpr(case, "K"));
            let y = per_line(case, &bits, |line| model(dtype, line, func, desc, k, rtriton_pair));
            case.tensor_mut("y").data = data_of(dtype, &y);
        })
        .rule(Rule::BITS)
}

kernel! {
    /// `docs/semantics.md`'s way to sort NaNs last: replace them with `+inf` first.
    fn sort_nans_last(x_ptr: Ptr<f32>, y_ptr: Ptr<f32>; const C: usize) {
        let offs = arange(0, C);
        let x = load(x_ptr + offs, None, None);
        store(y_ptr + offs, sort(where_(isnan(x).eq(0), x, f32::INFINITY), None, false), None);
    }
}

fn nans_last_suite() -> Suite {
    let c = 64;
    let x = specials("f32", 21, c);
    let case = Case::new("f32 specials 1x64 nans last")
        .input("x", data_of("f32", &x), View::contiguous(&[c]))
        .output("y", vec![0f32; c], View::contiguous(&[c]))
        .constexpr("C", c as i64);
    Suite::new(sort_nans_last())
        .case(case)
        .reference(|case| {
            let x = bits_of(&case.tensor("x").data);
            let inf = u64::from(f32::INFINITY.to_bits());
            let mut y: Vec<u64> = x.iter().map(|&b| if is_nan("f32", b) { inf } else { b }).collect();
            // Only the zeros' signs are the network's: the model places them.
            y = model("f32", &y, SORT, false, 0, rtriton_pair);
            assert!(y.windows(2).all(|w| !greater("f32", w[0], w[1])) && y.last() == Some(&inf));
            case.tensor_mut("y").data = data_of("f32", &y);
        })
        .rule(Rule::BITS)
}

/// Every suite of this file.
fn suites() -> Vec<Suite> {
    let mut all: Vec<Suite> = DTYPES.iter().map(|&d| value_suite(d, VALUE_TABLE)).collect();
    all.extend(LARGE_DTYPES.map(|d| value_suite(d, LARGE_TABLE)));
    all.extend(FLOATS.map(special_suite));
    all.push(nans_last_suite());
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

// ---------------------------------------------------------------------------------------
// The references themselves

/// The model of the network is Rust's sort on value data, for every dtype and row, and
/// on special data it is a permutation of its input (a sort or a merge) whose values,
/// NaNs aside, are Rust's order (`-0.0 == +0.0`).
#[test]
fn the_model_is_rusts_sort_where_values_order_and_a_permutation_elsewhere() {
    for dtype in DTYPES {
        for row in VALUE_TABLE.iter().chain(LARGE_TABLE) {
            let &(r, c, dim, func, desc, k) = row;
            let x = value_input(dtype, row);
            for line in lines(r, c, axis_of(dim, if r == 1 { 1 } else { 2 })) {
                let line: Vec<u64> = line.iter().map(|&i| x[i]).collect();
                assert_eq!(
                    model(dtype, &line, func, desc == 1, k, rtriton_pair),
                    rust_sorted(dtype, &line, func, desc == 1, k),
                    "{}",
                    row_name(dtype, row, "values")
                );
            }
        }
    }
    for dtype in FLOATS {
        for desc in [false, true] {
            let line = specials(dtype, 9, 64);
            let got = model(dtype, &line, SORT, desc, 0, rtriton_pair);
            let (mut a, mut b) = (got.clone(), line.clone());
            a.sort_unstable();
            b.sort_unstable();
            assert_eq!(a, b, "{dtype} desc={desc}: a permutation of the input");
            // The NaNs replaced by `+0.0`: numbers only, both zeros among them.
            let numbers: Vec<u64> = line.iter().map(|&x| if is_nan(dtype, x) { 0 } else { x }).collect();
            let got_numbers: Vec<f64> = model(dtype, &numbers, SORT, desc, 0, rtriton_pair)
                .iter()
                .map(|&x| float_value(dtype, x).unwrap())
                .collect();
            let mut want: Vec<f64> = numbers.iter().map(|&x| float_value(dtype, x).unwrap()).collect();
            want.sort_by(|a, b| if desc { b.total_cmp(a) } else { a.total_cmp(b) });
            // Compared as numbers: the zeros' signs are the network's.
            assert!(got_numbers.iter().zip(&want).all(|(g, w)| g == w), "{dtype} desc={desc}: {got_numbers:?}");
        }
    }
}

/// Triton 3.6's compare-and-swap gives the same bits as rtriton's on value data, and two
/// copies of one element where a pair holds a NaN or both zeros (the difference
/// `docs/semantics.md` states).
#[test]
fn the_pair_decision_agrees_with_triton_3_6_except_on_unordered_pairs() {
    for dtype in DTYPES {
        for row in VALUE_TABLE {
            let &(r, c, dim, func, desc, k) = row;
            let x = value_input(dtype, row);
            for line in lines(r, c, axis_of(dim, if r == 1 { 1 } else { 2 })) {
                let line: Vec<u64> = line.iter().map(|&i| x[i]).collect();
                assert_eq!(
                    model(dtype, &line, func, desc == 1, k, triton_3_6_pair),
                    model(dtype, &line, func, desc == 1, k, rtriton_pair),
                    "{}",
                    row_name(dtype, row, "values")
                );
            }
        }
    }
    for (l, r) in [(0x7FC0_1234u64, 0x3F80_0000u64), (0x8000_0000, 0)] {
        for desc in [false, true] {
            let (a, b) = triton_3_6_pair("f32", l, r, desc);
            assert_eq!(a, b, "{l:#x} {r:#x} desc={desc}: Triton 3.6 keeps one of the two twice");
            assert_eq!(rtriton_pair("f32", l, r, desc), (l, r), "rtriton leaves an unordered pair as it is");
        }
    }
}

/// The tables exercise what they claim: value data holds ties, `-0.0`, infinities or the
/// extremes and no NaN or `+0.0`; special data holds NaNs with payloads and both zeros.
#[test]
fn the_tables_hold_ties_extremes_and_special_values() {
    for dtype in DTYPES {
        let v = values(dtype, 3, 64);
        let mut distinct = v.clone();
        distinct.sort_unstable();
        distinct.dedup();
        assert!(distinct.len() < v.len(), "{dtype}: ties");
        assert!(v.iter().all(|&b| !is_nan(dtype, b)), "{dtype}: no NaN");
        assert!(float_value(dtype, 0).is_none() || !v.contains(&0), "{dtype}: no +0.0");
        if float_value(dtype, 0).is_some() {
            assert!(v.contains(&sign_bit(dtype)), "{dtype}: -0.0");
            assert!(v.iter().any(|&b| float_value(dtype, b).is_some_and(f64::is_infinite)), "{dtype}: infinities");
        } else {
            let ints: Vec<i128> = v.iter().map(|&b| int_value(dtype, b).unwrap()).collect();
            assert!(ints.iter().any(|&x| x > i128::from(i8::MAX)) || dtype.ends_with('8'), "{dtype}: large values");
            assert!(ints.contains(ints.iter().min().unwrap()) && ints.iter().min() != ints.iter().max(), "{dtype}");
        }
    }
    for dtype in FLOATS {
        let v = specials(dtype, 5, 64);
        assert!(v.contains(&0) && v.contains(&sign_bit(dtype)), "{dtype}: both zeros");
        assert!(v.iter().filter(|&&b| is_nan(dtype, b)).count() >= 2, "{dtype}: NaNs");
        assert!(v.iter().any(|&b| is_nan(dtype, b) && b & sign_bit(dtype) != 0), "{dtype}: a negative NaN");
    }
}

// ---------------------------------------------------------------------------------------
// PTX and the register budget

fn ptr(i: u64) -> ArgValue {
    ArgValue::Ptr(0x7f00_0000_0000 + (i << 32))
}

/// The constexprs of a row.
fn constexprs(&(r, c, dim, func, desc, k): &Row) -> Vec<(&'static str, i64)> {
    [("R", r), ("C", c), ("DIM", dim), ("FN", func), ("DESC", desc), ("K", k)].map(|(n, v)| (n, v as i64)).to_vec()
}

/// A sort of 1024 `f32` elements at 4 warps fits the register budget (8 elements a
/// thread in every block of the network), compiles to PTX and, with ptxas, assembles
/// without spills; so do a 2-D sort of 1024 and a top-k of 1024.
#[test]
fn a_1024_element_sort_compiles_at_4_warps() {
    for row in LARGE_TABLE {
        let verified = CompileSession::new()
            .front_end(&sort_f32(), &constexprs(row), &SpecKey::plain(&sort_f32().params), &TraceOptions::default())
            .unwrap_or_else(|e| panic!("{}: {e}", row_name("f32", row, "")));
        ptx::compile(&verified, &ptx_common::options(Arch::Sm90, 4))
            .unwrap_or_else(|e| panic!("{}: {e}", row_name("f32", row, "")));
    }
}

#[test]
#[cfg_attr(not(has_ptxas), ignore = "needs ptxas on PATH")]
fn their_ptx_assembles_without_spills() {
    let ptxas = ptx_common::ptxas("standard_sort");
    let kernels: Vec<(&str, Row)> = vec![
        ("f32", (1, 1024, 2, SORT, 0, 0)),
        ("f32", (8, 128, 1, SORT, 1, 0)),
        ("i32", (1, 1024, 2, TOPK, 0, 16)),
        ("f16", (4, 16, 0, SORT, 0, 0)),
        ("bf16", (1, 64, 2, MERGE, 1, 0)),
        ("i64", (1, 64, 2, TOPK_WITH, 0, 8)),
        ("u8", (16, 4, 0, SORT, 1, 0)),
        ("f64", (8, 8, 3, SORT, 0, 0)),
    ];
    for (dtype, row) in kernels {
        let def = def_of(dtype);
        for arch in [Arch::Sm86, Arch::Sm90] {
            let name = row_name(dtype, &row, "");
            let p = ptx_common::compile_def(
                &def,
                &constexprs(&row),
                &[ptr(0), ptr(1)],
                SpecPolicy::Triton,
                &ptx_common::options(arch, 4),
            )
            .unwrap_or_else(|e| panic!("{name}: {e}"));
            ptx_common::assembles_without_spills(&ptxas, &p.text, arch, def.name)
                .unwrap_or_else(|e| panic!("{name} {arch}: {e}"));
        }
    }
}

// ---------------------------------------------------------------------------------------
// Refused inputs

kernel! {
    fn sort_past_the_last_dim(x_ptr: Ptr<f32>, y_ptr: Ptr<f32>; const BLOCK: usize) {
        let offs = arange(0, 4).expand_dims(1) * BLOCK as i32 + arange(0, BLOCK).expand_dims(0);
        let y = sort(load(x_ptr + offs, None, None), Some(2), false); // @sort_dim
        store(y_ptr + offs, y, None);
    }
}

kernel! {
    fn merge_below_the_first_dim(x_ptr: Ptr<i32>, y_ptr: Ptr<i32>; const BLOCK: usize) {
        let offs = arange(0, BLOCK);
        let y = bitonic_merge(load(x_ptr + offs, None, None), Some(-2), true); // @merge_dim
        store(y_ptr + offs, y, None);
    }
}

kernel! {
    fn sort_of_a_scalar(x_ptr: Ptr<f32>, y_ptr: Ptr<f32>; const BLOCK: usize) {
        let y = sort(load(x_ptr, None, None), None, false); // @sort_scalar
        store(y_ptr, y, None);
    }
}

kernel! {
    fn topk_of_three(x_ptr: Ptr<f32>, y_ptr: Ptr<f32>; const BLOCK: usize) {
        let offs = arange(0, BLOCK);
        let y = topk(load(x_ptr + offs, None, None), 3, None); // @topk_three
        store(y_ptr + arange(0, 4), y, None);
    }
}

kernel! {
    fn topk_past_the_length(x_ptr: Ptr<f32>, y_ptr: Ptr<f32>; const BLOCK: usize) {
        let offs = arange(0, BLOCK);
        let y = topk_with(load(x_ptr + offs, None, None), 2 * BLOCK, Some(0), false); // @topk_long
        store(y_ptr + offs, y, None);
    }
}

kernel! {
    fn topk_of_none(x_ptr: Ptr<f32>, y_ptr: Ptr<f32>; const BLOCK: usize) {
        let offs = arange(0, BLOCK);
        let y = topk(load(x_ptr + offs, None, None), 0, None); // @topk_zero
        store(y_ptr + offs, y, None);
    }
}

/// The line of this file that holds `marker` in a kernel (written once there, once in
/// the table).
fn line_of(marker: &str) -> u32 {
    let src = include_str!("standard_sort.rs");
    let hits: Vec<usize> = src.lines().enumerate().filter(|(_, l)| l.contains(marker)).map(|(i, _)| i + 1).collect();
    assert_eq!(hits.len(), 2, "`{marker}` is written once in a kernel and once in the table");
    hits[0] as u32
}

/// Tracing `def` fails; its first diagnostic (a wrong result shape may add a second at
/// the store).
fn first_error(def: &KernelDef) -> Diagnostic {
    let e = trace_unspecialized(def, &[("BLOCK", 16)]).expect_err("the trace must fail");
    e.diagnostics()[0].clone()
}

/// Each refusal is a located `RT0101` naming the function, what is wrong and what to do.
#[test]
fn a_bad_dim_a_scalar_and_a_bad_k_are_located_errors() {
    let table: [(KernelDef, &str, &[&str]); 6] = [
        (sort_past_the_last_dim(), "@sort_dim", &["sort along dim 2", "[4, 16]", "-2..2"]),
        (merge_below_the_first_dim(), "@merge_dim", &["bitonic_merge along dim -2", "[16]", "-1..1"]),
        (sort_of_a_scalar(), "@sort_scalar", &["sort along dim -1", "a scalar has no dim"]),
        (topk_of_three(), "@topk_three", &["topk of k = 3", "power of two from 1 to 16", "choose k in"]),
        (topk_past_the_length(), "@topk_long", &["topk of k = 32", "from 1 to 16"]),
        (topk_of_none(), "@topk_zero", &["topk of k = 0"]),
    ];
    for (def, marker, words) in table {
        let d = first_error(&def);
        assert_eq!(d.code, Code::TraceRule, "{d}");
        assert_eq!(d.loc.map(|l| l.line), Some(line_of(marker)), "{d}");
        let text = format!("{} {}", d.message, d.help);
        for w in words {
            assert!(text.contains(w), "{}: `{w}` in {text}", def.name);
        }
        assert!(d.loc.is_some_and(|l| l.file.ends_with("standard_sort.rs")), "{d}");
    }
}
