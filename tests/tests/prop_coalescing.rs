//! Property test of coalesced layouts: random tiles read from views contiguous along dim 0
//! (a transposed view: the layout then runs down the columns), along dim 1, or along
//! neither, with padded strides and base offsets (so alignment and vector widths vary),
//! random tile shapes, 1 to 8 warps and both specialization policies. Each tile is copied
//! out and reduced along both dims; the simulator (every check on) must agree with the
//! interpreter bit for bit, and the copy with the input. 64 cases (`PROPTEST_CASES`
//! overrides).

use proptest::prelude::*;
use proptest::test_runner::Config;
use rtriton::kernel;
use rtriton::prelude::*;
use rtriton::spec::SpecPolicy;
use rtriton_kernels::cases::SPECIAL_VALUES;
use rtriton_testing::run::{run_interpreter, run_simulator};
use rtriton_testing::{Case, Data, View};

kernel! {
    /// A BM x BN tile of x (rows from the program id, every column: BN >= n_cols) copied to
    /// `copy` (row-major), its row maxima to `rmax`, its column maxima to `cmax` (one row
    /// of BN per program).
    fn tile_reduce(x_ptr: Ptr<f32>, copy_ptr: Ptr<f32>, rmax_ptr: Ptr<f32>, cmax_ptr: Ptr<f32>,
                   n_rows: i32, n_cols: i32, sxr: i32, sxc: i32; const BM: usize, const BN: usize) {
        let rows = program_id(0) * BM as i32 + arange(0, BM);
        let cols = arange(0, BN);
        let (r2, c2) = (rows.expand_dims(1), cols.expand_dims(0));
        let mask = r2.lt(n_rows) & c2.lt(n_cols);
        let x = load(x_ptr + r2 * sxr + c2 * sxc, Some(mask), Some(f32::NEG_INFINITY));
        store(copy_ptr + r2 * n_cols + c2, x, Some(mask));
        store(rmax_ptr + rows, max(x, 1), Some(rows.lt(n_rows)));
        store(cmax_ptr + program_id(0) * BN as i32 + cols, max(x, 0), None);
    }
}

/// Which dim of the view is contiguous.
#[derive(Clone, Copy, Debug)]
enum Contiguous {
    Rows,
    Columns,
    Neither,
}

#[derive(Clone, Debug)]
struct Tile {
    rows: usize,
    cols: usize,
    contiguous: Contiguous,
    /// Added to the stride between rows (or columns): 0 keeps it a multiple of the tile.
    pad: usize,
    offset: usize,
    bm_log2: u32,
    bn_extra_log2: u32,
    num_warps: u32,
    policy: SpecPolicy,
    values: Vec<u32>,
}

impl Tile {
    fn strides(&self) -> (usize, usize) {
        match self.contiguous {
            Contiguous::Rows => (self.cols + self.pad, 1),
            Contiguous::Columns => (1, self.rows + self.pad),
            Contiguous::Neither => (2 * (self.cols + self.pad), 2),
        }
    }

    fn buffer_len(&self) -> usize {
        let (sr, sc) = self.strides();
        self.offset + (self.rows - 1) * sr + (self.cols - 1) * sc + 1
    }

    /// BN covers the row; BM keeps the tile within 64 elements per thread.
    fn blocks(&self) -> (usize, usize) {
        let bn = self.cols.next_power_of_two() << self.bn_extra_log2;
        let most = (64 * 32 * self.num_warps as usize / bn).max(1);
        ((1usize << self.bm_log2).min(most), bn)
    }
}

fn tile() -> impl Strategy<Value = Tile> {
    // Dims of 16 and 32 often: with no padding and no offset they prove 16-byte vectors.
    let dim = || prop_oneof![3 => 1usize..40, 1 => Just(16usize), 1 => Just(32usize)];
    (
        dim(),
        dim(),
        prop_oneof![Just(Contiguous::Rows), Just(Contiguous::Columns), Just(Contiguous::Neither)],
        prop_oneof![2 => Just(0usize), 1 => 1usize..4],
        prop_oneof![2 => Just(0usize), 1 => 1usize..5],
        0u32..6,
        0u32..2,
        proptest::sample::select(vec![1u32, 2, 4, 8]),
        proptest::sample::select(vec![SpecPolicy::Triton, SpecPolicy::Off]),
        proptest::collection::vec(
            prop_oneof![3 => (-1000.0f32..1000.0).prop_map(f32::to_bits), 1 => proptest::sample::select(SPECIAL_VALUES.to_vec())],
            1..64,
        ),
    )
        .prop_map(|(rows, cols, contiguous, pad, offset, bm_log2, bn_extra_log2, num_warps, policy, values)| Tile {
            rows,
            cols,
            contiguous,
            pad,
            offset,
            bm_log2,
            bn_extra_log2,
            num_warps,
            policy,
            values,
        })
}

fn check(t: &Tile) -> Result<(), TestCaseError> {
    let (sr, sc) = t.strides();
    let (bm, bn) = t.blocks();
    let programs = t.rows.div_ceil(bm);
    let x: Vec<f32> = (0..t.buffer_len()).map(|i| f32::from_bits(t.values[i % t.values.len()])).collect();
    let view = View::strided(&[t.rows, t.cols], &[sr as isize, sc as isize]).with_offset(t.offset);
    let case = Case::new("tile")
        .input("x", x.clone(), view)
        .output("copy", vec![0.0f32; t.rows * t.cols], View::contiguous(&[t.rows, t.cols]))
        .output("rmax", vec![0.0f32; t.rows], View::contiguous(&[t.rows]))
        .output("cmax", vec![0.0f32; programs * bn], View::contiguous(&[programs * bn]))
        .int(t.rows as i64)
        .int(t.cols as i64)
        .int(sr as i64)
        .int(sc as i64)
        .constexpr("BM", bm as i64)
        .constexpr("BN", bn as i64)
        .num_warps(t.num_warps)
        .grid([programs as u32, 1, 1]);
    let bits = |d: &Data| d.as_f32().expect("f32 outputs").iter().map(|v| v.to_bits()).collect::<Vec<u32>>();
    let interp = run_interpreter(&tile_reduce(), &case, t.policy)
        .map_err(|e| TestCaseError::fail(format!("interpreter: {e}")))?;
    let sim =
        run_simulator(&tile_reduce(), &case, t.policy).map_err(|e| TestCaseError::fail(format!("simulator: {e}")))?;
    for ((name, a), (_, b)) in interp.buffers.iter().zip(&sim.buffers) {
        prop_assert_eq!(bits(a), bits(b), "{}: the simulator differs from the interpreter", name);
    }
    let want: Vec<u32> =
        (0..t.rows * t.cols).map(|i| x[t.offset + (i / t.cols) * sr + (i % t.cols) * sc].to_bits()).collect();
    prop_assert_eq!(bits(&interp.buffers[0].1), want, "the copy differs from x");
    Ok(())
}

/// 64 cases, or `PROPTEST_CASES` (an explicit `cases` would override the variable).
fn config() -> Config {
    let cases = std::env::var("PROPTEST_CASES").ok().and_then(|v| v.parse().ok()).unwrap_or(64);
    Config { cases, ..Config::default() }
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn coalesced_layouts_agree_with_the_interpreter(t in tile()) {
        check(&t)?;
    }
}
