//! What the row-max entry point may launch for a shape: the `row_max_split` kernel of the
//! input's dtype and the configurations autotuning chooses among, by *shape class*.
//!
//! Pure data (no GPU, no runtime): the host's entry point turns a plan into an autotuned
//! launch, `validate` runs every configuration of a plan on the interpreter, and tests
//! check the classes. Classes are functions of the power-of-two classes of the row count
//! and the row length (the next power of two at or above each), the same classes the
//! entry point's tuning key uses, so two shapes that share a key share a plan.
//!
//! | class | when | configurations |
//! |---|---|---|
//! | narrow rows | rows of at most 64 (class) elements | `BLOCK_N` = the row class, `BLOCK_M` for 1024 to 8192 elements a tile: several rows per program, 128-bit loads |
//! | few wide rows | at most 4x the SM count rows (class), rows of more than 4096, a dtype with `atomic_max` | row tiles x `SPLIT` programs per row aiming at 2, 4 and 8 programs per SM, and `SPLIT = 1` |
//! | rows | everything else | tiles from one row of 4096 (16 or 8 warps) to 128 x 32; a tall tile that leaves fewer than 4x the SM count programs (a transposed view's tiles) also split as above, when the dtype has `atomic_max` and rows of more than 4096 |
//!
//! Tiles are capped to the classes (no `BLOCK_N` beyond the row class, no `BLOCK_M` beyond
//! the row-count class), keeping their element count where the cap allows, so a
//! configuration never masks off most of its tile by construction.

use std::fmt;

use rtriton::ir::ScalarType;
use rtriton::trace::KernelDef;

use crate::row_max_split::{
    row_max_split, row_max_split_bf16, row_max_split_f16, row_max_split_i8, row_max_split_i16, row_max_split_i32,
    row_max_split_u8, row_max_split_u32,
};

/// Rows of at most this many elements (class) are narrow.
pub const NARROW_MAX_COLS: usize = 64;
/// Rows of more than this many elements can be worth splitting.
pub const SPLIT_MIN_COLS: usize = 4096;
/// Few rows: at most this many times the SM count (the "about 4x the SM count").
pub const FEW_ROWS_PER_SM: usize = 4;
/// Programs per SM the split configurations aim at.
pub const SPLIT_PROGRAMS_PER_SM: [usize; 3] = [2, 4, 8];
/// The largest grid along axis 1 (CUDA's limit), so the largest `SPLIT`.
pub const MAX_SPLIT: usize = 65535;
/// The SM count planned for where there is no device (the interpreter): an H200's.
pub const NOMINAL_SM_COUNT: usize = 132;
/// The most copies of the column loop's body a configuration asks for (`UNROLL`).
pub const MAX_UNROLL: usize = 4;

/// One launch configuration of `row_max_split`: its constexprs and warps.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct SplitConfig {
    pub block_m: usize,
    pub block_n: usize,
    pub split: usize,
    /// Copies of the column loop's body per trip of its main loop (1: not unrolled), so
    /// that many tiles' loads are in flight together.
    pub unroll: usize,
    /// The launcher's promise that `stride_row` and `n_cols` are multiples of it (the
    /// kernel's `VEC`, through `multiple_of`): not a tuning choice but a fact of the
    /// input, which the entry point sets on every configuration ([`vec_promise`]); plans
    /// give 1, which promises nothing.
    pub vec: usize,
    pub num_warps: u32,
}

impl SplitConfig {
    /// A configuration whose column loop is not unrolled.
    pub const fn new(block_m: usize, block_n: usize, split: usize, num_warps: u32) -> SplitConfig {
        SplitConfig { block_m, block_n, split, unroll: 1, vec: 1, num_warps }
    }

    /// `BLOCK_M`, `BLOCK_N`, `SPLIT`, `UNROLL` and `VEC`, as the kernel names them.
    pub fn constexprs(&self) -> [(&'static str, i64); 5] {
        [
            ("BLOCK_M", self.block_m as i64),
            ("BLOCK_N", self.block_n as i64),
            ("SPLIT", self.split as i64),
            ("UNROLL", self.unroll as i64),
            ("VEC", self.vec as i64),
        ]
    }

    /// The trips a program of this configuration makes through the columns of a row of
    /// `cols` elements (its column blocks `s, s + SPLIT, ...`), at most.
    pub fn trips(&self, cols: usize) -> usize {
        cols.div_ceil(self.block_n.max(1)).div_ceil(self.split.max(1))
    }

    /// The grid for `n_rows` rows: `[cdiv(n_rows, BLOCK_M), SPLIT, 1]`.
    pub fn grid(&self, n_rows: usize) -> [u64; 3] {
        [n_rows.div_ceil(self.block_m.max(1)) as u64, self.split as u64, 1]
    }
}

impl fmt::Display for SplitConfig {
    /// `BLOCK_M=16 BLOCK_N=256 SPLIT=8 warps=4`, with `UNROLL=4` before the warps when the
    /// loop is unrolled and `VEC=4` when the launch promises it.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "BLOCK_M={} BLOCK_N={} SPLIT={}", self.block_m, self.block_n, self.split)?;
        if self.unroll > 1 {
            write!(f, " UNROLL={}", self.unroll)?;
        }
        if self.vec > 1 {
            write!(f, " VEC={}", self.vec)?;
        }
        write!(f, " warps={}", self.num_warps)
    }
}

/// The `VEC` an input of `dtype` elements can promise (`SplitConfig::vec`): the
/// largest power of two dividing both `stride_row` and `n_cols`, at most one 16-byte
/// vector, when the rows are contiguous (`stride_col == 1`); else 1. Measured on the H200
/// (the H200 record of 2026-12-04 at `8be1702`): 131072 x 100 `f32` rows, whose
/// stride of 100 specialization cannot align, load 16 bytes at a time with `VEC = 4`, and
/// the entry point went from 0.90x to 1.21x of Triton's autotuned kernel there (65536 x
/// 200 1.27x, 100000 x 36 1.16x, 4096 x 1000 1.04x).
pub fn vec_promise(dtype: ScalarType, n_cols: usize, stride_row: isize, stride_col: isize) -> usize {
    if stride_col != 1 || n_cols == 0 {
        return 1;
    }
    let elem_bytes = dtype.bit_width().div_ceil(8) as usize;
    let widest = (16 / elem_bytes.max(1)).max(1);
    let common = n_cols | stride_row.unsigned_abs();
    // `common`'s lowest set bit is the largest power of two dividing both (a stride of 0
    // divides by anything: `n_cols` alone decides).
    (1usize << common.trailing_zeros()).min(widest)
}

/// Which kind of shape a plan is for (see the module doc).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ShapeClass {
    NarrowRows,
    FewWideRows,
    Rows,
}

impl ShapeClass {
    pub fn name(self) -> &'static str {
        match self {
            ShapeClass::NarrowRows => "narrow rows",
            ShapeClass::FewWideRows => "few wide rows (split)",
            ShapeClass::Rows => "rows",
        }
    }
}

/// What the entry point may launch for one shape and dtype.
#[derive(Clone, Debug)]
pub struct Plan {
    pub class: ShapeClass,
    pub dtype: ScalarType,
    /// The `row_max_split` kernel of `dtype`.
    pub kernel: KernelDef,
    /// The configurations to choose among (at least one, none twice).
    pub configs: Vec<SplitConfig>,
    /// The bits `y` must hold before a launch: some configuration splits rows (their
    /// programs combine with `atomic_max`), so `y` starts at the identity; `None` when no
    /// configuration splits.
    pub fill: Option<u32>,
}

/// Why there is no plan for a dtype.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UnsupportedDtype(pub ScalarType);

impl fmt::Display for UnsupportedDtype {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "row_max has no kernel for {} elements: the PTX back end reduces 32-bit payloads (f32, i32, u32) and the \
             types that compute in them (f16, bf16, i8, u8, i16); convert the input first",
            self.0
        )
    }
}

impl std::error::Error for UnsupportedDtype {}

/// The `row_max_split` kernel for `dtype` and the identity bits of its `atomic_max`
/// (`None`: no `atomic_max` on that type, so no configuration splits).
pub fn kernel_for(dtype: ScalarType) -> Result<(KernelDef, Option<u32>), UnsupportedDtype> {
    match dtype {
        ScalarType::F32 => Ok((row_max_split(), Some(f32::NEG_INFINITY.to_bits()))),
        ScalarType::I32 => Ok((row_max_split_i32(), Some(i32::MIN as u32))),
        ScalarType::U32 => Ok((row_max_split_u32(), Some(0))),
        ScalarType::F16 => Ok((row_max_split_f16(), None)),
        ScalarType::BF16 => Ok((row_max_split_bf16(), None)),
        ScalarType::I16 => Ok((row_max_split_i16(), None)),
        ScalarType::I8 => Ok((row_max_split_i8(), None)),
        ScalarType::U8 => Ok((row_max_split_u8(), None)),
        // fp8 has no comparisons: a row max of fp8 needs a conversion first
        ScalarType::I64
        | ScalarType::U64
        | ScalarType::F64
        | ScalarType::Bool
        | ScalarType::F8E4M3
        | ScalarType::F8E5M2 => Err(UnsupportedDtype(dtype)),
    }
}

/// The power-of-two class of a count: the smallest power of two at or above it (1 for 0).
pub fn pow2_class(n: usize) -> usize {
    n.max(1).next_power_of_two()
}

/// The plan for an `n_rows x n_cols` input of `dtype` on a device with `sm_count` SMs.
pub fn plan(dtype: ScalarType, n_rows: usize, n_cols: usize, sm_count: usize) -> Result<Plan, UnsupportedDtype> {
    let (kernel, identity) = kernel_for(dtype)?;
    let (rows, cols) = (pow2_class(n_rows), pow2_class(n_cols));
    let few_rows = rows <= FEW_ROWS_PER_SM * sm_count.max(1);
    let class = if cols <= NARROW_MAX_COLS {
        ShapeClass::NarrowRows
    } else if few_rows && cols > SPLIT_MIN_COLS && identity.is_some() {
        ShapeClass::FewWideRows
    } else {
        ShapeClass::Rows
    };
    let configs = with_unrolled(
        match class {
            ShapeClass::NarrowRows => narrow_configs(rows, cols),
            ShapeClass::FewWideRows => split_configs(rows, cols, sm_count.max(1)),
            ShapeClass::Rows => row_configs(rows, cols, sm_count.max(1), identity.is_some()),
        },
        cols,
    );
    let fill = identity.filter(|_| configs.iter().any(|c| c.split > 1));
    Ok(Plan { class, dtype, kernel, configs, fill })
}

/// `[BLOCK_M, BLOCK_N]` tiles with warps, before capping to the classes.
type Tile = (usize, usize, u32);

/// Tiles for rows of more than 64 elements: one long row slice per program down to tall
/// tiles (for transposed views, whose contiguous dim is the rows). At most 16 elements a
/// thread in the tall tiles: their loads are not vectorized today, and a pointer per
/// element costs registers (ptxas -v: 128 registers for 16, 254 for 32).
const ROW_TILES: [Tile; 10] = [
    (1, 4096, 16),
    (1, 4096, 8),
    (1, 2048, 8),
    (1, 1024, 4),
    (4, 512, 4),
    (8, 256, 4),
    (8, 128, 4),
    (16, 128, 4),
    (64, 64, 8),
    (128, 32, 8),
];

/// Tiles split configurations start from: one row slice per program, and taller tiles for
/// few wide rows seen transposed.
const SPLIT_TILES: [Tile; 4] = [(1, 4096, 8), (1, 2048, 4), (16, 256, 8), (64, 64, 8)];

/// `tile` with `BLOCK_N` capped to the row class and `BLOCK_M` raised to keep the element
/// count, then capped to the row-count class.
fn cap(tile: Tile, rows: usize, cols: usize) -> SplitConfig {
    let (m, n, w) = tile;
    let block_n = n.min(cols);
    let block_m = (m * (n / block_n)).min(rows);
    SplitConfig::new(block_m, block_n, 1, w)
}

fn dedup(configs: impl IntoIterator<Item = SplitConfig>) -> Vec<SplitConfig> {
    let mut out: Vec<SplitConfig> = Vec::new();
    for c in configs {
        if !out.contains(&c) {
            out.push(c);
        }
    }
    out
}

/// Narrow rows: the whole row in `BLOCK_N`, 1024 to 8192 elements a tile.
fn narrow_configs(rows: usize, cols: usize) -> Vec<SplitConfig> {
    dedup(
        [(1024, 4), (2048, 4), (4096, 8), (8192, 8)]
            .into_iter()
            .map(|(elems, w)| cap((elems / cols, cols, w), rows, cols)),
    )
}

/// Each row tile unsplit; a tile that leaves fewer than [`FEW_ROWS_PER_SM`] x the SM
/// count programs on rows long enough to split (a tall tile of a transposed view: 8192
/// rows in tiles of 64 are 128 programs on 132 SMs) also with the splits of
/// [`splits_of`], where the dtype can combine them.
fn row_configs(rows: usize, cols: usize, sm_count: usize, can_split: bool) -> Vec<SplitConfig> {
    dedup(ROW_TILES.into_iter().flat_map(|t| {
        let base = cap(t, rows, cols);
        let few = rows.div_ceil(base.block_m) < FEW_ROWS_PER_SM * sm_count;
        if can_split && few && cols > SPLIT_MIN_COLS { splits_of(base, rows, cols, sm_count) } else { vec![base] }
    }))
}

/// Each split tile with `SPLIT = 1` and with the splits of [`splits_of`].
fn split_configs(rows: usize, cols: usize, sm_count: usize) -> Vec<SplitConfig> {
    dedup(SPLIT_TILES.into_iter().flat_map(|t| splits_of(cap(t, rows, cols), rows, cols, sm_count)))
}

/// `base` with `SPLIT = 1` and with the `SPLIT` that gives about 2, 4 and 8 programs per
/// SM, no more than the row has column blocks.
fn splits_of(base: SplitConfig, rows: usize, cols: usize, sm_count: usize) -> Vec<SplitConfig> {
    let row_tiles = rows.div_ceil(base.block_m);
    let most = cols.div_ceil(base.block_n).min(MAX_SPLIT);
    std::iter::once(1)
        .chain(SPLIT_PROGRAMS_PER_SM.into_iter().map(|p| (p * sm_count).div_ceil(row_tiles).clamp(1, most)))
        .map(|split| SplitConfig { split, ..base })
        .collect()
}

/// `configs`, then each configuration whose programs loop more than once over a row of
/// the class `cols` again with its loop unrolled (`UNROLL` = 2 for 2 or 3 trips, else
/// [`MAX_UNROLL`]): several tiles' loads in flight per thread, the loop pipelining
/// knob (Triton gets the same from `num_stages`, its software pipeliner). The unrolled
/// twins come after every plain configuration, so the first configuration, which the
/// others are checked against and which runs when tuning is off, stays a plain loop.
fn with_unrolled(configs: Vec<SplitConfig>, cols: usize) -> Vec<SplitConfig> {
    let unrolled: Vec<SplitConfig> = configs
        .iter()
        .filter(|c| c.trips(cols) >= 2)
        .map(|c| SplitConfig { unroll: if c.trips(cols) >= MAX_UNROLL { MAX_UNROLL } else { 2 }, ..*c })
        .collect();
    dedup(configs.into_iter().chain(unrolled))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn configs(p: &Plan) -> Vec<String> {
        p.configs.iter().map(ToString::to_string).collect()
    }

    /// The classes of the shapes, as a table: shape, class, whether `y` is filled.
    #[rstest::rstest]
    #[case::narrow(1048576, 32, ShapeClass::NarrowRows, false)]
    #[case::one_column(1000, 1, ShapeClass::NarrowRows, false)]
    #[case::tiny(3, 7, ShapeClass::NarrowRows, false)]
    #[case::few_wide_rows(64, 4194304, ShapeClass::FewWideRows, true)]
    #[case::one_wide_row(1, 1 << 20, ShapeClass::FewWideRows, true)]
    #[case::few_rows_not_wide(64, 4096, ShapeClass::Rows, false)]
    #[case::many_wide_rows(8192, 8192, ShapeClass::Rows, true)]
    #[case::many_rows(1 << 17, 8192, ShapeClass::Rows, false)]
    #[case::rows_at_the_few_limit(512, 1 << 16, ShapeClass::FewWideRows, true)]
    #[case::rows_past_the_few_limit(600, 1 << 16, ShapeClass::Rows, true)]
    #[case::square(4096, 1000, ShapeClass::Rows, false)]
    fn shapes_fall_in_their_class(
        #[case] rows: usize,
        #[case] cols: usize,
        #[case] class: ShapeClass,
        #[case] fills: bool,
    ) {
        let p = plan(ScalarType::F32, rows, cols, NOMINAL_SM_COUNT).unwrap();
        assert_eq!((p.class, p.fill.is_some()), (class, fills), "{rows}x{cols}: {:?}", configs(&p));
        assert!(!p.configs.is_empty());
        assert_eq!(dedup(p.configs.clone()), p.configs, "no configuration twice");
        assert_eq!(p.fill.is_some(), p.configs.iter().any(|c| c.split > 1));
    }

    #[test]
    fn narrow_rows_take_whole_rows_and_several_rows_a_program() {
        let p = plan(ScalarType::F32, 1048576, 32, NOMINAL_SM_COUNT).unwrap();
        assert_eq!(
            configs(&p),
            [
                "BLOCK_M=32 BLOCK_N=32 SPLIT=1 warps=4",
                "BLOCK_M=64 BLOCK_N=32 SPLIT=1 warps=4",
                "BLOCK_M=128 BLOCK_N=32 SPLIT=1 warps=8",
                "BLOCK_M=256 BLOCK_N=32 SPLIT=1 warps=8"
            ]
        );
        // One element: the tiles collapse to one row, with 4 and 8 warps.
        let tiny = plan(ScalarType::F32, 1, 1, NOMINAL_SM_COUNT).unwrap();
        assert_eq!(configs(&tiny), ["BLOCK_M=1 BLOCK_N=1 SPLIT=1 warps=4", "BLOCK_M=1 BLOCK_N=1 SPLIT=1 warps=8"]);
    }

    /// 64 rows of 2^22 on 132 SMs: one-row tiles split to 5, 9 and 17 programs per row
    /// (2, 4 and 8 programs per SM), taller tiles to more; all also unsplit.
    #[test]
    fn few_wide_rows_split_to_fill_the_sms() {
        let p = plan(ScalarType::F32, 64, 1 << 22, 132).unwrap();
        assert_eq!(p.fill, Some(0xFF80_0000));
        let splits = |bm: usize, bn: usize| -> Vec<usize> {
            p.configs.iter().filter(|c| (c.block_m, c.block_n, c.unroll) == (bm, bn, 1)).map(|c| c.split).collect()
        };
        assert_eq!(splits(1, 4096), [1, 5, 9, 17]);
        assert_eq!(splits(16, 256), [1, 66, 132, 264]);
        assert_eq!(splits(64, 64), [1, 264, 528, 1056]);
        // One row of 8192: at most as many programs as the row has column blocks.
        let one = plan(ScalarType::F32, 1, 8192, 132).unwrap();
        assert!(
            one.configs.iter().all(|c| c.split <= 8192usize.div_ceil(c.block_n) && c.block_m == 1),
            "{:?}",
            configs(&one)
        );
    }

    /// A transposed view's rows (8192 of 16384 on 132 SMs): the tall tiles, which leave
    /// 128 (64 x 64) to 1024 (8 x 128) programs, also split; one-row tiles do not.
    #[test]
    fn tall_row_tiles_split_when_they_leave_few_programs() {
        let p = plan(ScalarType::F32, 8192, 16384, 132).unwrap();
        assert_eq!((p.class, p.fill), (ShapeClass::Rows, Some(0xFF80_0000)));
        let splits = |bm: usize, bn: usize| -> Vec<usize> {
            p.configs.iter().filter(|c| (c.block_m, c.block_n, c.unroll) == (bm, bn, 1)).map(|c| c.split).collect()
        };
        assert_eq!(splits(1, 4096), [1, 1], "16 and 8 warps, neither split");
        assert_eq!(splits(8, 256), [1]);
        assert_eq!(splits(16, 128), [1, 2, 3]);
        assert_eq!(splits(64, 64), [1, 3, 5, 9]);
        // Rows of at most 4096 never split.
        assert!(plan(ScalarType::F32, 8192, 4096, 132).unwrap().configs.iter().all(|c| c.split == 1));
    }

    #[test]
    fn dtypes_without_atomic_max_never_split_and_64_bit_ones_have_no_kernel() {
        for dtype in [ScalarType::F16, ScalarType::BF16, ScalarType::I8, ScalarType::U8, ScalarType::I16] {
            let p = plan(dtype, 64, 1 << 22, 132).unwrap();
            assert_eq!((p.class, p.fill), (ShapeClass::Rows, None), "{dtype}");
        }
        for dtype in [ScalarType::I32, ScalarType::U32] {
            assert_eq!(plan(dtype, 64, 1 << 22, 132).unwrap().class, ShapeClass::FewWideRows, "{dtype}");
        }
        assert_eq!(plan(ScalarType::I32, 2, 1 << 13, 132).unwrap().fill, Some(0x8000_0000));
        let e = plan(ScalarType::F64, 4, 4, 132).unwrap_err();
        assert!(e.to_string().starts_with("row_max has no kernel for f64 elements"), "{e}");
    }

    /// Shapes of one key class (the entry point's tuning key) get one plan.
    #[test]
    fn a_plan_depends_on_the_classes_only() {
        for (a, b) in [((1000, 1000), (1024, 513)), ((64, 4000000), (33, 1 << 22)), ((1000000, 20), (1 << 20, 17))] {
            let (pa, pb) =
                (plan(ScalarType::F32, a.0, a.1, 132).unwrap(), plan(ScalarType::F32, b.0, b.1, 132).unwrap());
            assert_eq!(
                (pa.class, pa.kernel.name, &pa.configs, pa.fill),
                (pb.class, pb.kernel.name, &pb.configs, pb.fill)
            );
        }
    }

    /// Every configuration whose programs loop over a row more than once has an unrolled
    /// twin after all the plain ones (4 copies from 4 trips, 2 for 2 or 3); a single trip
    /// has none, so narrow rows have no unrolled configuration.
    #[rstest::rstest]
    #[case::rows_of_100(131072, 100)]
    #[case::transposed(8192, 16384)]
    #[case::few_wide_rows(64, 4194304)]
    #[case::narrow(1048576, 32)]
    #[case::square(4096, 1000)]
    fn configurations_that_loop_have_an_unrolled_twin(#[case] rows: usize, #[case] cols: usize) {
        let p = plan(ScalarType::F32, rows, cols, NOMINAL_SM_COUNT).unwrap();
        let cols = pow2_class(cols);
        let plain: Vec<&SplitConfig> = p.configs.iter().filter(|c| c.unroll == 1).collect();
        let first_unrolled = p.configs.iter().position(|c| c.unroll > 1).unwrap_or(p.configs.len());
        assert_eq!(first_unrolled, plain.len(), "plain configurations first: {:?}", configs(&p));
        for c in &plain {
            let twin = p.configs.iter().find(|u| u.unroll > 1 && SplitConfig { unroll: 1, ..**u } == **c);
            match (c.trips(cols), twin) {
                (1, None) => {}
                (2 | 3, Some(u)) => assert_eq!(u.unroll, 2, "{c}"),
                (t, Some(u)) if t >= 4 => assert_eq!(u.unroll, MAX_UNROLL, "{c}"),
                (t, twin) => panic!("{c}: {t} trips, twin {twin:?}"),
            }
        }
        assert_eq!(p.configs.len(), plain.len() + plain.iter().filter(|c| c.trips(cols) >= 2).count());
        if cols <= NARROW_MAX_COLS {
            assert_eq!(first_unrolled, p.configs.len());
        }
    }

    #[test]
    fn the_grid_covers_the_rows_and_the_split() {
        let c = SplitConfig::new(16, 256, 8, 4);
        assert_eq!(c.grid(1000), [63, 8, 1]);
        assert_eq!(c.constexprs(), [("BLOCK_M", 16), ("BLOCK_N", 256), ("SPLIT", 8), ("UNROLL", 1), ("VEC", 1)]);
        assert_eq!(c.to_string(), "BLOCK_M=16 BLOCK_N=256 SPLIT=8 warps=4");
        let u = SplitConfig { unroll: 4, ..c };
        assert_eq!(u.to_string(), "BLOCK_M=16 BLOCK_N=256 SPLIT=8 UNROLL=4 warps=4");
        let v = SplitConfig { vec: 4, ..u };
        assert_eq!(v.to_string(), "BLOCK_M=16 BLOCK_N=256 SPLIT=8 UNROLL=4 VEC=4 warps=4");
        // 1000 columns in blocks of 256 are 4 blocks; 8 programs a row take at most one each.
        assert_eq!((c.trips(1000), SplitConfig::new(16, 256, 1, 4).trips(1000)), (1, 4));
    }

    /// `(dtype, n_cols, stride_row, stride_col)` -> the promise: the largest power of
    /// two dividing both, at most a 16-byte vector, and only for contiguous rows.
    #[rstest::rstest]
    #[case::rows_of_100_f32((ScalarType::F32, 100, 100, 1), 4)]
    #[case::rows_of_100_f16((ScalarType::F16, 100, 100, 1), 4)]
    #[case::rows_of_104_f16((ScalarType::F16, 104, 104, 1), 8)]
    #[case::aligned_rows_capped((ScalarType::F32, 4096, 4096, 1), 4)]
    #[case::odd_columns((ScalarType::F32, 101, 104, 1), 1)]
    #[case::odd_stride((ScalarType::F32, 100, 101, 1), 1)]
    #[case::padded_rows((ScalarType::F32, 100, 128, 1), 4)]
    #[case::negative_stride((ScalarType::F32, 100, -100, 1), 4)]
    #[case::zero_stride((ScalarType::F32, 8, 0, 1), 4)]
    #[case::strided_columns((ScalarType::F32, 100, 200, 2), 1)]
    #[case::transposed((ScalarType::F32, 100, 1, 100), 1)]
    #[case::no_columns((ScalarType::F32, 0, 0, 1), 1)]
    fn the_vec_promise_divides_the_stride_and_the_row(
        #[case] input: (ScalarType, usize, isize, isize),
        #[case] want: usize,
    ) {
        let (dtype, n_cols, stride_row, stride_col) = input;
        let vec = vec_promise(dtype, n_cols, stride_row, stride_col);
        assert_eq!(vec, want);
        assert!(n_cols % vec == 0 && stride_row.unsigned_abs() % vec == 0);
    }
}
