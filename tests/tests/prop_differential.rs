//! Property test: random row-max launches (shapes, strides negative, zero and positive,
//! base offsets, BLOCK sizes, num_warps, both specialization policies, values with NaN
//! payloads, signed zeros, infinities and subnormals) traced and run on the interpreter,
//! lowered and run on the SIMT simulator, and computed by a plain-Rust model of the block
//! rules in `docs/semantics.md` (below): all three agree bit for bit. The model in turn
//! equals `cpu_row_max` on every row, rows of only NaN included: such a row gives `-inf`
//! whatever BLOCK is (the single-block kernels combine the block's maximum with `-inf`
//! once, as `fmaxf` does; before, a block of exactly the row's `n_cols >= 2` NaN
//! reduced to the canonical NaN). Rows of only NaN are drawn often (`launch`).
//!
//! 256 cases (`PROPTEST_CASES` overrides): about 2 s in a debug build on the 2-core
//! shared CI-like machine (2000 cases took 16 s there); regressions proptest finds are
//! kept in `prop_differential.proptest-regressions` next to this file.

use proptest::prelude::*;
use proptest::test_runner::Config;
use rtriton::spec::SpecPolicy;
use rtriton_kernels::cases::SPECIAL_VALUES;
use rtriton_kernels::{RowMaxVariant, cpu_row_max};
use rtriton_testing::run::{run_interpreter, run_simulator};
use rtriton_testing::{Case, View};
use rtriton_tests::compare_bits;

/// One random launch.
#[derive(Clone, Debug)]
struct Launch {
    variant: RowMaxVariant,
    n_rows: usize,
    n_cols: usize,
    stride_row: i64,
    stride_col: i64,
    /// Elements before the view's lowest address.
    offset: usize,
    /// `BLOCK` is `2^block_log2` for the looping variant, the row rounded up to a power
    /// of two times `2^(block_log2 % 3)` for the single-block ones.
    block_log2: u32,
    num_warps: u32,
    policy: SpecPolicy,
    values: Vec<u32>,
}

impl Launch {
    /// The index of the view's first element in the buffer: past the offset, and past
    /// every element that a negative stride reaches below it.
    fn base(&self) -> usize {
        let below = |n: usize, s: i64| if s < 0 { (n - 1) * s.unsigned_abs() as usize } else { 0 };
        self.offset + below(self.n_rows, self.stride_row) + below(self.n_cols, self.stride_col)
    }

    fn buffer_len(&self) -> usize {
        let span = |n: usize, s: i64| (n - 1) * s.unsigned_abs() as usize;
        self.offset + span(self.n_rows, self.stride_row) + span(self.n_cols, self.stride_col) + 1
    }

    fn input(&self) -> Vec<f32> {
        (0..self.buffer_len()).map(|i| f32::from_bits(self.values[i % self.values.len()])).collect()
    }

    fn constexprs(&self) -> Vec<(&'static str, i64)> {
        let block = match self.variant {
            RowMaxVariant::RowMaxLoop => 1i64 << self.block_log2,
            _ => (self.n_cols.next_power_of_two() as i64) << (self.block_log2 % 3),
        };
        vec![("BLOCK", block)]
    }
}

/// A value: mostly ordinary floats, often one of the special values.
fn value() -> impl Strategy<Value = u32> {
    prop_oneof![
        3 => (-1000.0f32..1000.0).prop_map(f32::to_bits),
        1 => proptest::sample::select(SPECIAL_VALUES.to_vec()),
    ]
}

/// A buffer of only NaN (payloads, signs, quiet and signalling): every row is all NaN.
fn all_nan() -> impl Strategy<Value = Vec<u32>> {
    let nans: Vec<u32> = SPECIAL_VALUES.iter().copied().filter(|b| f32::from_bits(*b).is_nan()).collect();
    proptest::collection::vec(proptest::sample::select(nans), 1..8)
}

fn launch() -> impl Strategy<Value = Launch> {
    (
        proptest::sample::select(vec![RowMaxVariant::RowMax, RowMaxVariant::RowMaxLoop, RowMaxVariant::RowMaxI32]),
        1usize..12,
        // One column often: the reduction of one element has its own NaN rule.
        // Powers of two often: BLOCK == n_cols leaves no `-inf` lane.
        prop_oneof![1 => Just(1usize), 3 => 1usize..70, 2 => (1u32..7).prop_map(|k| 1usize << k)],
        -80i64..80,
        -3i64..4,
        0usize..5,
        0u32..7,
        proptest::sample::select(vec![1u32, 2, 4, 8]),
        proptest::sample::select(vec![SpecPolicy::Triton, SpecPolicy::Off]),
        prop_oneof![4 => proptest::collection::vec(value(), 1..64), 1 => all_nan()],
    )
        .prop_map(
            |(variant, n_rows, n_cols, stride_row, stride_col, offset, block_log2, num_warps, policy, values)| Launch {
                variant,
                n_rows,
                n_cols,
                stride_row,
                stride_col,
                offset,
                block_log2,
                num_warps,
                policy,
                values,
            },
        )
}

const CANONICAL_NAN: u32 = 0x7FFF_FFFF;

/// PTX `max.f32` (NaN ignored), written out from the table in `docs/semantics.md`.
fn max_f32(a: f32, b: f32) -> f32 {
    match (a.is_nan(), b.is_nan()) {
        (true, true) => f32::from_bits(CANONICAL_NAN),
        (true, false) => b,
        (false, true) => a,
        // `+0.0 > -0.0`.
        (false, false) if a == b => {
            if a.is_sign_negative() {
                b
            } else {
                a
            }
        }
        (false, false) => {
            if a > b {
                a
            } else {
                b
            }
        }
    }
}

/// What `l`'s kernel computes per row, from the block rules: the looping variant keeps a
/// block of running maxima that start at `-inf`; the single-block variants reduce the
/// row's elements and `BLOCK - n_cols` lanes of `-inf` padding (masked `other`), a block
/// of one lane still combines with `-inf`, and the kernel combines the block's maximum
/// with `-inf` once more (`maximum(max(x, 0), -inf)`).
fn model(l: &Launch, input: &[f32], block: usize) -> Vec<f32> {
    (0..l.n_rows)
        .map(|r| {
            let row = (0..l.n_cols).map(|c| {
                let i = l.base() as i64 + r as i64 * l.stride_row + c as i64 * l.stride_col;
                input[i as usize]
            });
            match l.variant {
                RowMaxVariant::RowMaxLoop => row.fold(f32::NEG_INFINITY, max_f32),
                _ => {
                    let lanes: Vec<f32> = row.chain(std::iter::repeat_n(f32::NEG_INFINITY, block - l.n_cols)).collect();
                    let folded = lanes[1..].iter().fold(lanes[0], |a, &b| max_f32(a, b));
                    let m = if lanes.len() == 1 { max_f32(f32::NEG_INFINITY, folded) } else { folded };
                    max_f32(m, f32::NEG_INFINITY)
                }
            }
        })
        .collect()
}

/// Runs `l` on the interpreter, the simulator and the CPU reference.
fn check(l: &Launch) -> Result<(), TestCaseError> {
    let def = l.variant.def();
    let constexprs = l.constexprs();
    let grid = [l.variant.grid(l.n_rows, &constexprs) as u32, 1, 1];
    let input = l.input();
    // The launch as a harness case: placing, lowering and running are rtriton-testing's.
    let x = View::strided(&[l.n_rows, l.n_cols], &[l.stride_row as isize, l.stride_col as isize]).with_offset(l.base());
    let mut case = Case::new("random")
        .input("x", input.clone(), x)
        .output("y", vec![0.0f32; l.n_rows], View::contiguous(&[l.n_rows]))
        .int(l.n_rows as i64)
        .int(l.n_cols as i64)
        .int(l.stride_row)
        .int(l.stride_col)
        .num_warps(l.num_warps)
        .grid(grid);
    case.constexprs = constexprs.clone();
    let run = |sim: bool| -> Result<Vec<f32>, String> {
        let out = if sim { run_simulator(&def, &case, l.policy) } else { run_interpreter(&def, &case, l.policy) }
            .map_err(|e| e.to_string())?;
        Ok(out.buffers[0].1.as_f32().expect("y is f32").to_vec())
    };
    let block = constexprs[0].1 as usize;
    let want = model(l, &input, block);
    let cpu = cpu_row_max(&input, l.base(), l.n_rows, l.n_cols, l.stride_row as isize, l.stride_col as isize, false);
    for (r, (m, c)) in want.iter().zip(&cpu).enumerate() {
        prop_assert_eq!(m.to_bits(), c.to_bits(), "row {}: the model and cpu_row_max differ", r);
    }
    let interp = run(false).map_err(|e| TestCaseError::fail(format!("interpreter: {e}")))?;
    compare_bits(&interp, &want).map_err(|e| TestCaseError::fail(format!("interpreter vs the model:\n{e}")))?;
    let sim = run(true).map_err(|e| TestCaseError::fail(format!("simulator: {e}")))?;
    compare_bits(&sim, &want).map_err(|e| TestCaseError::fail(format!("simulator vs the model:\n{e}")))?;
    Ok(())
}

proptest! {
    #![proptest_config(Config { cases: 256, ..Config::default() })]

    #[test]
    fn interpreter_simulator_and_reference_agree_bit_for_bit(l in launch()) {
        check(&l)?;
    }
}
