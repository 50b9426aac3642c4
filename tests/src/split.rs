//! `row_max_split` (the entry point's kernel) as `rtriton-testing` suites: every case of the
//! shape matrix under every configuration the entry point's plan offers for it, the
//! split-row cases (few rows with huge width scaled down: NaN, signed zeros split across
//! programs, specials, more programs than column blocks, transposed and offset views), and
//! the other dtypes. Expected values are the plain-Rust references, compared bit for bit.
//!
//! A case of a configuration with `SPLIT > 1` starts `y` at the identity, as the entry
//! point fills it before the launch; others start it at a value no kernel computes
//! (`0xFF..`), so a row no program stores fails.

use rtriton::ir::ScalarType;
use rtriton_kernels::cases::{Fill, RowMaxCase, SHAPE_MATRIX, ViewKind, random};
use rtriton_kernels::row_max_plan::{NOMINAL_SM_COUNT, kernel_for, plan, vec_promise};
use rtriton_kernels::{SplitConfig, cpu_row_max};
use rtriton_testing::fill::special;
use rtriton_testing::{Case, Data, Element, Rule, Suite, View};

/// `f32`'s configuration `c` on `case` as a harness case named `<case>/<config>`.
pub fn f32_case(case: &RowMaxCase, c: SplitConfig) -> Case {
    let x = case.input();
    let l = case.layout();
    let view = View::strided(&[case.n_rows, case.n_cols], &[l.stride_row as isize, l.stride_col as isize])
        .with_offset(l.offset);
    launch(case.name, Data::F32(x), view, case.n_rows, case.n_cols, c)
}

/// The harness case of configuration `c` over `x` seen through `view` (`n_rows x n_cols`),
/// `y` started as the module doc says, with the `VEC` the view promises (as the entry point
/// sets it: `row_max_plan::vec_promise`), so every contiguous view of a stride and width
/// divisible by 2 or 4 runs the vector form.
pub fn launch(name: &str, x: Data, view: View, n_rows: usize, n_cols: usize, c: SplitConfig) -> Case {
    let dtype = x.dtype();
    let c = SplitConfig { vec: vec_promise(dtype, n_cols, view.strides[0], view.strides[1]), ..c };
    let mut y = Data::zeros(dtype, n_rows).expect("a dtype with buffers");
    let (_, identity) = kernel_for(dtype).expect("a dtype row_max_split has");
    for i in 0..n_rows {
        let bits = if c.split > 1 { u64::from(identity.expect("split only where atomic_max is")) } else { u64::MAX };
        set_bits(&mut y, i, bits);
    }
    let strides = view.strides.clone();
    let [gx, gy, gz] = c.grid(n_rows);
    let mut case = Case::new(format!("{name}/{c}"))
        .input("x", x, view)
        .output("y", y, View::contiguous(&[n_rows]))
        .int(n_rows as i64)
        .int(n_cols as i64)
        .int(strides[0] as i64)
        .int(strides[1] as i64)
        .num_warps(c.num_warps)
        .grid([gx as u32, gy as u32, gz as u32]);
    case.constexprs = c.constexprs().to_vec();
    case
}

/// Element `i` of `data` set to the low bits of `bits`.
fn set_bits(data: &mut Data, i: usize, bits: u64) {
    fn set<T: Element>(v: &mut [T], i: usize, bits: u64) {
        v[i] = T::from_bits64(bits);
    }
    match data {
        Data::F16(v) => set(v, i, bits),
        Data::BF16(v) => set(v, i, bits),
        Data::F32(v) => set(v, i, bits),
        Data::F64(v) => set(v, i, bits),
        Data::I8(v) => set(v, i, bits),
        Data::I16(v) => set(v, i, bits),
        Data::I32(v) => set(v, i, bits),
        Data::I64(v) => set(v, i, bits),
        Data::U8(v) => set(v, i, bits),
        Data::U32(v) => set(v, i, bits),
        Data::U64(v) => set(v, i, bits),
    }
}

/// The maxima of `x` through `view`, any dtype, as the kernels define them
/// (`docs/semantics.md`): folded from the identity (`-inf`, an integer type's minimum);
/// NaN ignored, so a row of only NaN gives `-inf`; `+0.0 > -0.0`. Computed on exact `f64`
/// values and written back exactly (every value of these dtypes is an `f64`).
pub fn reference(x: &Data, view: &View, identity: f64) -> Vec<f64> {
    let (rows, cols) = (view.shape[0], view.shape[1]);
    (0..rows)
        .map(|r| {
            (0..cols).fold(identity, |acc, c| {
                let v = x.f64_at(view.element(&[r, c])).expect("32-bit values are exact in f64");
                match (acc.is_nan(), v.is_nan()) {
                    (_, true) => acc,
                    (true, false) => v,
                    (false, false) if acc == v => {
                        if acc.is_sign_negative() {
                            v
                        } else {
                            acc
                        }
                    }
                    (false, false) => acc.max(v),
                }
            })
        })
        .collect()
}

/// The identity of `dtype` as `f64` (what an empty row gives).
pub fn identity(dtype: ScalarType) -> f64 {
    match dtype {
        // fp8 has no row max (`kernel_for` refuses it); its identity would be -max finite or -inf
        ScalarType::F16
        | ScalarType::BF16
        | ScalarType::F32
        | ScalarType::F64
        | ScalarType::F8E4M3
        | ScalarType::F8E5M2 => f64::NEG_INFINITY,
        ScalarType::I8 => f64::from(i8::MIN),
        ScalarType::I16 => f64::from(i16::MIN),
        ScalarType::I32 => f64::from(i32::MIN),
        ScalarType::I64 => i64::MIN as f64,
        ScalarType::U8 | ScalarType::U32 | ScalarType::U64 | ScalarType::Bool => 0.0,
    }
}

/// The suite of `dtype`'s `row_max_split` kernel over `cases`, against [`reference`],
/// bit for bit (for `f32`, [`reference`] equals `cpu_row_max`, which
/// `the_generic_reference_is_cpu_row_max_on_f32` checks).
pub fn suite(dtype: ScalarType, cases: Vec<Case>) -> Suite {
    let (def, _) = kernel_for(dtype).expect("a dtype row_max_split has");
    Suite::new(def)
        .cases(cases)
        .reference(move |c| {
            let x = c.tensor("x");
            let want = reference(&x.data, &x.view, identity(dtype));
            let y = &mut c.tensor_mut("y").data;
            for (i, v) in want.into_iter().enumerate() {
                y.set_f64(i, v).expect("a maximum is a value of the dtype");
            }
        })
        .rule(Rule::BITS)
}

/// Rows above 80 become `64 + n_rows % 16` (as the simulator's row-max matrix caps them),
/// keeping each program's columns, strides and offsets; `cap = false` keeps the matrix.
pub fn matrix_cases(cap: bool) -> Vec<Case> {
    SHAPE_MATRIX
        .iter()
        .map(|c| if cap && c.n_rows > 80 { RowMaxCase { n_rows: 64 + c.n_rows % 16, ..*c } } else { *c })
        .flat_map(|case| {
            let p = plan(ScalarType::F32, case.n_rows, case.n_cols, NOMINAL_SM_COUNT).expect("f32 has a plan");
            p.configs.into_iter().map(move |c| f32_case(&case, c))
        })
        .collect()
}

const fn cfg(block_m: usize, block_n: usize, split: usize, num_warps: u32) -> SplitConfig {
    SplitConfig::new(block_m, block_n, split, num_warps)
}

/// [`cfg`] with the column loop unrolled `unroll` times.
const fn unrolled(block_m: usize, block_n: usize, split: usize, unroll: usize, num_warps: u32) -> SplitConfig {
    SplitConfig { unroll, ..cfg(block_m, block_n, split, num_warps) }
}

/// Few rows with huge width scaled down, in `f32`: each (case, configurations) splits the
/// rows across programs in several ways, including more programs than column blocks
/// (programs with no columns combine the identity) and a column block that is all NaN
/// (its program's partial maximum is `-inf`).
pub fn split_cases() -> Vec<Case> {
    let c = |name, n_rows, n_cols, view, fill| RowMaxCase { name, n_rows, n_cols, view, fill };
    let table: Vec<(RowMaxCase, Vec<SplitConfig>)> = vec![
        (
            c("few_wide_rows", 3, 5000, ViewKind::Contiguous, Fill::Random(21)),
            vec![cfg(1, 256, 1, 4), cfg(1, 256, 2, 4), cfg(1, 256, 3, 4), cfg(1, 256, 7, 4), cfg(1, 1024, 5, 8)],
        ),
        (
            c("few_rows_nan", 8, 3000, ViewKind::Contiguous, Fill::SomeNaN(22)),
            vec![cfg(1, 256, 4, 4), cfg(2, 512, 3, 4)],
        ),
        (
            c("few_rows_specials", 5, 1100, ViewKind::Contiguous, Fill::Specials),
            vec![cfg(1, 128, 6, 4), cfg(4, 64, 3, 4)],
        ),
        (c("few_rows_neg_inf", 2, 700, ViewKind::Contiguous, Fill::AllNegInf), vec![cfg(1, 128, 3, 4)]),
        (c("few_rows_negative", 4, 900, ViewKind::Contiguous, Fill::AllNegative(23)), vec![cfg(1, 64, 5, 4)]),
        (
            c("one_row_split", 1, 1000, ViewKind::Contiguous, Fill::Random(24)),
            vec![cfg(1, 128, 3, 4), cfg(1, 32, 16, 1)],
        ),
        (c("more_programs_than_blocks", 2, 300, ViewKind::Contiguous, Fill::Random(25)), vec![cfg(1, 64, 8, 4)]),
        (
            c("few_rows_transposed", 4, 3000, ViewKind::Transposed, Fill::Random(26)),
            vec![cfg(4, 128, 6, 4), cfg(1, 256, 3, 4)],
        ),
        (c("few_rows_offset", 3, 2049, ViewKind::Offset(1), Fill::Random(27)), vec![cfg(1, 256, 4, 4)]),
        (c("few_rows_every_other", 3, 1500, ViewKind::EveryOtherColumn, Fill::Random(28)), vec![cfg(2, 128, 5, 4)]),
        (c("one_column_split", 100, 1, ViewKind::Contiguous, Fill::Specials), vec![cfg(32, 1, 2, 4)]),
        // Unrolled column loops: trips that the unroll factor divides, that leave a
        // remainder (the remainder loop), fewer trips than copies (only the remainder
        // loop runs), split programs whose trips differ by one, a strided view.
        (
            c("unrolled_rows", 5, 1000, ViewKind::Contiguous, Fill::SomeNaN(29)),
            vec![
                unrolled(1, 64, 1, 4, 4),
                unrolled(1, 128, 1, 4, 4),
                unrolled(2, 256, 1, 2, 4),
                unrolled(1, 512, 1, 4, 4),
                unrolled(1, 64, 3, 4, 4),
                unrolled(1, 32, 5, 2, 1),
            ],
        ),
        (
            c("unrolled_every_other", 9, 700, ViewKind::EveryOtherColumn, Fill::Specials),
            vec![unrolled(4, 32, 1, 4, 4), unrolled(8, 64, 2, 2, 4)],
        ),
    ];
    let mut cases: Vec<Case> =
        table.iter().flat_map(|(case, configs)| configs.iter().map(move |&k| f32_case(case, k))).collect();
    cases.extend(signed_zero_cases());
    cases.extend(nan_block_cases());
    cases
}

/// Rows of zeros where the `+0.0` lies in one program's columns only, so the programs'
/// partial maxima are `-0.0` and `+0.0` and the atomic must keep `+0.0`; a row of only
/// `-0.0` stays `-0.0`.
fn signed_zero_cases() -> Vec<Case> {
    let (rows, cols) = (4, 2000);
    let mut x = vec![-0.0f32; rows * cols];
    x[cols + cols - 1] = 0.0; // row 1: the last column
    x[2 * cols] = 0.0; // row 2: the first column
    x[3 * cols + 777] = 0.0; // row 3: a middle block
    x[3 * cols + 5] = f32::NEG_INFINITY;
    [cfg(1, 128, 4, 4), cfg(1, 256, 8, 4), cfg(4, 64, 3, 4)]
        .into_iter()
        .map(|k| {
            launch("signed_zeros_across_programs", Data::F32(x.clone()), View::contiguous(&[rows, cols]), rows, cols, k)
        })
        .collect()
}

/// A row whose first column block is all NaN and a row of only NaN, split: the first
/// block's program combines `-inf`, and the all-NaN row gives `-inf`.
fn nan_block_cases() -> Vec<Case> {
    let (rows, cols) = (3, 1024);
    let mut x = random(29, rows * cols, -1000.0, 1000.0);
    x[..256].fill(f32::NAN);
    x[cols..2 * cols].fill(f32::from_bits(0xFFC0_0001));
    x[2 * cols + 1000] = f32::from_bits(0x7F80_0001);
    [cfg(1, 256, 4, 4), cfg(1, 256, 2, 4), cfg(1, 256, 1, 4)]
        .into_iter()
        .map(|k| launch("nan_block", Data::F32(x.clone()), View::contiguous(&[rows, cols]), rows, cols, k))
        .collect()
}

/// Cases of another dtype: special values and a ramp, contiguous, narrow, transposed and
/// offset views, with `SPLIT > 1` where the dtype has `atomic_max`.
pub fn dtype_cases<T: Element>() -> Vec<Case> {
    let dtype = T::SCALAR;
    let splits = kernel_for(dtype).expect("a dtype row_max_split has").1.is_some();
    let data = |n: usize| -> Data {
        let s = special::<T>(n);
        T::wrap((0..n).map(|i| s[(i * 7919) % n]).collect())
    };
    let mut cases = Vec::new();
    let mut add = |name: &str, rows: usize, cols: usize, view: View, len: usize, configs: &[SplitConfig]| {
        for &k in configs {
            if k.split > 1 && !splits {
                continue;
            }
            cases.push(launch(name, data(len), view.clone(), rows, cols, k));
        }
    };
    add("rows", 5, 300, View::contiguous(&[5, 300]), 1500, &[cfg(1, 128, 1, 4), cfg(2, 64, 1, 4), cfg(1, 64, 3, 4)]);
    add("narrow", 64, 7, View::contiguous(&[64, 7]), 448, &[cfg(16, 8, 1, 4), cfg(64, 8, 1, 8)]);
    add("transposed", 16, 40, View::contiguous(&[40, 16]).transposed(0, 1), 640, &[cfg(8, 16, 1, 4), cfg(4, 16, 2, 4)]);
    add("offset", 3, 2000, View::contiguous(&[3, 2000]).with_offset(3), 6003, &[cfg(1, 256, 1, 4), cfg(1, 256, 5, 4)]);
    add("one_column", 50, 1, View::contiguous(&[50, 1]), 50, &[cfg(32, 1, 1, 4)]);
    cases
}

/// `f32`'s cases in `f32`'s reference, `cpu_row_max`, for the check that the generic
/// reference agrees with it.
pub fn cpu_row_max_of(case: &Case) -> Vec<f32> {
    let x = case.tensor("x");
    let v = &x.view;
    cpu_row_max(
        x.data.as_f32().expect("an f32 case"),
        v.offset,
        v.shape[0],
        v.shape[1],
        v.strides[0],
        v.strides[1],
        false,
    )
}
