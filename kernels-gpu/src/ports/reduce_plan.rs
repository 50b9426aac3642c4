//! How a column-wise reduction (`x.sum(dim=0)`, ...) is launched: one direct kernel, or
//! its rows split across programs, in one launch or two ([`SplitPlan::one_launch`]).
//!
//! A direct column kernel gives one program per `BLOCK_N` columns, each walking every
//! row: 1024 columns make 8 programs of 128 columns on a GPU of 132 SMs, far too few to
//! keep its memory busy (the H200 measured 64 programs at 0.25x to 0.94x torch). When the
//! columns alone give fewer programs than [`programs_wanted`], the rows are cut into
//! chunks of `rows_per_split` (a multiple of `BLOCK_M`): the partials kernel (grid
//! `[cdiv(n_cols, BLOCK_N), split]`) reduces each chunk of each column block into a
//! contiguous `[split, n_cols]` scratch buffer of the accumulator type, and the combine
//! kernel reduces those partials along the chunks into `y`. Both passes walk in a fixed
//! order, so a float `sum` gives the same bits run to run, and an arg reduction keeps the
//! lowest row of equal extremes (`ports::reduce`'s module doc). The one-launch kernel
//! runs both passes: the last chunk of each column block to finish combines its columns.
//!
//! Pure data, as `row_max_plan`: the SM count is an input (the device's on the GPU,
//! [`NOMINAL_SM_COUNT`] where there is none).
//!
//! Tiles ([`col_blocks`]): `BLOCK_N` spans one 16-byte load per thread across a warp (128
//! `f32`/`i32`, 256 `f16`/`bf16` columns, fewer for narrower inputs) so a warp reads whole
//! rows of contiguous columns with vector loads, and `BLOCK_M` fills the tile to 8 KiB
//! (2048 `f32`, 4096 `f16`: four 16-byte loads in flight per thread at 4 warps). A split
//! of 16-bit elements takes torch's geometry instead ([`split_tiles`]): tiles of 4 x 128,
//! one 8-byte vector a thread, 12 programs per SM. A split walks its chunk
//! [`SPLIT_UNROLL`] tiles a trip (value reductions; arg reductions one).

pub use crate::row_max_plan::NOMINAL_SM_COUNT;

use super::reduce::elems_per_thread;

/// Warps of every column reduction launch.
pub const NUM_WARPS: usize = 4;
/// Bytes a thread loads at once: one 16-byte vector.
const VECTOR_BYTES: usize = 16;
/// Bytes of loads an SM should have in flight, from which the programs wanted per SM
/// follow: twice H200 bandwidth x DRAM latency / SMs (4.8 TB/s x 0.9 us / 132 = 32 KiB),
/// about what the row-wise kernels that reach 3.6 TB/s there have (12 resident programs
/// of 8 KiB tiles per SM at 4096 x 16384).
pub const BYTES_IN_FLIGHT_PER_SM: usize = 64 << 10;
/// The fewest programs per SM a split aims at (the "about 4x the SM count").
pub const MIN_PROGRAMS_PER_SM: usize = 4;
/// A chunk holds at least this many tiles, so a program's setup and its reduction across
/// the tile are paid over several loads and the partials stay a small fraction of `x`.
pub const MIN_TILES_PER_SPLIT: usize = 2;
/// The most chunks: the combine then reads at most four tiles of 64 partials per program
/// (a wider split would make its 32 or so programs walk megabytes), and the grid's axis 1
/// (at most 65535) holds them.
pub const MAX_SPLIT: usize = 256;
/// Bytes of a partial (`f32` or `i32`: every accumulator type).
const PARTIAL_BYTES: usize = 4;

/// How to launch one column reduction.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ColPlan {
    /// The direct `col_{op}_{dtype}` kernel, grid `[cdiv(n_cols, BLOCK_N)]`.
    Direct { blocks: (usize, usize) },
    /// `col_{op}_fused_{dtype}`, or `col_{op}_partials_{dtype}` then
    /// `col_{op}_combine_{dtype}` ([`SplitPlan::one_launch`]).
    Split(SplitPlan),
}

/// The launches of a split column reduction.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct SplitPlan {
    /// `(BLOCK_M, BLOCK_N)` of the partials kernel.
    pub blocks: (usize, usize),
    /// Rows per chunk: a multiple of `BLOCK_M`.
    pub rows_per_split: usize,
    /// Chunks: `cdiv(n_rows, rows_per_split)`, the partial rows.
    pub split: usize,
    /// `(BLOCK_M, BLOCK_N)` of the combine kernel (its `BLOCK_M` runs along the chunks).
    pub combine_blocks: (usize, usize),
    /// `UNROLL` of the value reductions' (`sum`, `max`, `min`) partials and one-launch
    /// kernels: tiles of a chunk whose loads are in flight together ([`split_unroll`];
    /// [`SplitPlan::new`] takes 1). Arg reductions take [`SplitPlan::unroll_of`].
    pub unroll: usize,
}

/// The chunk loop's unroll factor ([`SplitPlan::unroll`]) of a split value reduction:
/// four tiles' loads in flight a trip. Measured on the H200 with the plan's grids:
/// - `f32` (the H200 record of 2026-12-04 at `b8a5adc`): `sum` and `amax` 1.06x
///   to 1.08x faster at 2048 x 32768, 4096 x 4096 and 32768 x 1024 (at 2048 x 32768 from
///   0.97x to 1.04x of torch), the same at 4096 x 16384 and 1% slower at 4096 x 1024;
/// - `f16`/`bf16` with their 4 x 128 tiles ([`split_tiles`];
///   the H200 record of 2026-12-04 at `3dd6e02`): four tiles a trip are torch's four
///   rows a thread. (With the 8 KiB 16-bit tiles before them, 2 and 4 were up to 8% slower
///   than 1.)
pub const SPLIT_UNROLL: usize = 4;

impl SplitPlan {
    /// A split of `n_rows` in chunks of `rows_per_split` with the given tiles, the
    /// combine's tiles chosen for `n_cols` columns on `sm_count` SMs.
    pub fn new(blocks: (usize, usize), rows_per_split: usize, n_rows: usize, n_cols: usize, sm_count: usize) -> Self {
        let split = n_rows.max(1).div_ceil(rows_per_split.max(1));
        let combine_blocks = combine_blocks(split, n_cols, sm_count);
        SplitPlan { blocks, rows_per_split, split, combine_blocks, unroll: 1 }
    }

    /// `UNROLL` of the partials and one-launch kernels of a value reduction (`index`
    /// false) or an arg reduction: 1 for the latter. Four `f32` tiles in flight made the
    /// one-launch `argmax` 11% to 12% slower at 4096 x 1024, 4096 x 4096 and 32768 x 1024
    /// and no faster elsewhere, timed beside a tile a trip in one run
    /// (the H200 record of 2026-12-04 at `b8a5adc`, part 3; not profiled).
    pub fn unroll_of(&self, index: bool) -> usize {
        if index { 1 } else { self.unroll }
    }

    /// The partials kernel's grid.
    pub fn partials_grid(&self, n_cols: usize) -> [u32; 3] {
        [n_cols.div_ceil(self.blocks.1) as u32, self.split as u32, 1]
    }

    /// The combine kernel's grid.
    pub fn combine_grid(&self, n_cols: usize) -> [u32; 3] {
        [n_cols.div_ceil(self.combine_blocks.1) as u32, 1, 1]
    }

    /// Float roundings on the deepest path to a result (a line's `sum`): along a chunk's
    /// loop and its sum across the tile's rows, then along the combine's.
    pub fn sum_depth(&self) -> usize {
        col_sum_depth(self.rows_per_split, self.blocks.0) + col_sum_depth(self.split, self.combine_blocks.0)
    }

    /// `COMBINE_BLOCK_M` of the one-launch kernel (`col_{op}_fused_{dtype}`): the partial
    /// rows a step of the last chunk's combine takes. Its tile has the partials' `BLOCK_N`
    /// columns (the combining program owns those) and their `BLOCK_M` rows, at most the
    /// next power of two of the chunks: the partials' tile shape, so about their registers
    /// (ptxas, sm_90: 40 for `f32` sums, 64 for `f16` ones and `f32` argmax; 64 chunks of 256
    /// columns take 4 steps). A tile of 32 rows took 96 registers in `f32` argmax.
    pub fn fused_combine_block_m(&self) -> usize {
        fused_combine_block_m(self.blocks.0, self.split)
    }

    /// The steps of the one-launch combine: `split` partial rows,
    /// [`Self::fused_combine_block_m`] a step.
    pub fn fused_combine_steps(&self) -> usize {
        self.split.div_ceil(self.fused_combine_block_m())
    }

    /// Whether the split runs as one launch (`col_{op}_fused_*`) rather than the partials
    /// and combine kernels: when the columns give at least [`ONE_LAUNCH_MIN_COLUMN_BLOCKS`]
    /// blocks. In one launch each column block's last chunk combines all the chunks'
    /// partials of its `BLOCK_N` columns, `split / BLOCK_M` steps in a row; with few
    /// column blocks few programs do that, and the launch's tail outlasts the second
    /// launch it saves (H200: `f16` 4096 x 1024, 4 blocks of 256 columns and 128 chunks,
    /// took 5% (`sum`) and 11% (`amax`) longer in one launch; every `f32` shape, 8 or more
    /// blocks, ran as fast or up to 16% faster).
    pub fn one_launch(&self, n_cols: usize) -> bool {
        n_cols.div_ceil(self.blocks.1.max(1)) >= ONE_LAUNCH_MIN_COLUMN_BLOCKS
    }

    /// [`Self::sum_depth`] of the one-launch kernel.
    pub fn fused_sum_depth(&self) -> usize {
        col_sum_depth(self.rows_per_split, self.blocks.0) + col_sum_depth(self.split, self.fused_combine_block_m())
    }
}

/// The fewest column blocks for which a split runs as one launch ([`SplitPlan::one_launch`]).
pub const ONE_LAUNCH_MIN_COLUMN_BLOCKS: usize = 8;

/// Float roundings on the deepest path of a column sum over `n` rows in tiles of `b`
/// rows: `ceil(n / b) - 1` additions along the loop, then the sum of the tile's `b`
/// accumulators: with `sum` (tiles of at most `SUM_ACROSS_ROWS_MAX` rows) in no fixed
/// order, up to `b - 1` deep; else the balanced tree, `log2(b)`.
pub fn col_sum_depth(n: usize, b: usize) -> usize {
    let tile = if b <= super::reduce::SUM_ACROSS_ROWS_MAX { b.saturating_sub(1) } else { b.ilog2() as usize };
    n.div_ceil(b) - 1 + tile
}

/// [`SplitPlan::fused_combine_block_m`] of partials tiles of `block_m` rows and `split`
/// chunks: the partials' rows, at most the chunks' next power of two.
fn fused_combine_block_m(block_m: usize, split: usize) -> usize {
    block_m.min(pow2(split)).max(1)
}

fn pow2(n: usize) -> usize {
    n.max(1).next_power_of_two()
}

/// `(BLOCK_M, BLOCK_N)` of a column reduction of `elem_bytes`-byte elements (module doc).
/// The tile is [`TILE_BYTES`] whatever the element size: 2048 `f32`, 4096 `f16`, so a
/// thread of a 16-bit tile has as many 16-byte loads in flight per step as one of an
/// `f32` tile (four), and a program as many bytes to read. With 2048 `f16` a tile (two
/// loads a thread, half the bytes a program), the H200 took longer over a 4096 x 4096
/// `f16` column sum than over the `f32` one of twice the bytes (43 us against 34 us,
/// the H200 record of 2026-12-04 at `aa60014`).
pub fn col_blocks(elem_bytes: usize, n_rows: usize, n_cols: usize) -> (usize, usize) {
    let tile = TILE_BYTES / elem_bytes.clamp(1, 4);
    let block_n = pow2(n_cols).min(32 * VECTOR_BYTES / elem_bytes.max(1)).min(tile);
    ((tile / block_n).min(pow2(n_rows)), block_n)
}

/// Bytes of a column reduction's tile: the `f32` tile of [`elems_per_thread`] elements a
/// thread at [`NUM_WARPS`] warps (8 KiB).
pub const TILE_BYTES: usize = 4 * 16 * 32 * NUM_WARPS;

/// Programs that keep [`BYTES_IN_FLIGHT_PER_SM`] of `tile_bytes`-byte tiles in flight on
/// each of `sm_count` SMs, and at least [`MIN_PROGRAMS_PER_SM`] per SM.
pub fn programs_wanted(tile_bytes: usize, sm_count: usize) -> usize {
    sm_count.max(1) * BYTES_IN_FLIGHT_PER_SM.div_ceil(tile_bytes.max(1)).max(MIN_PROGRAMS_PER_SM)
}

/// The plan of an `n_rows x n_cols` column reduction of `elem_bytes`-byte elements on a
/// GPU of `sm_count` SMs (module doc): split when the column blocks are fewer than
/// [`programs_wanted`] and the rows hold at least two chunks of [`MIN_TILES_PER_SPLIT`]
/// tiles. Chunks take as many tiles as leave at most the wanted programs (so the last
/// chunk may be short).
pub fn col_plan(elem_bytes: usize, n_rows: usize, n_cols: usize, sm_count: usize) -> ColPlan {
    let direct = ColPlan::Direct { blocks: col_blocks(elem_bytes, n_rows, n_cols) };
    let (blocks, wanted) = split_tiles(elem_bytes, n_rows, n_cols, sm_count);
    let (block_m, block_n) = blocks;
    let column_programs = n_cols.max(1).div_ceil(block_n);
    if column_programs >= wanted {
        return direct;
    }
    let row_tiles = n_rows.max(1).div_ceil(block_m);
    if row_tiles < 2 * MIN_TILES_PER_SPLIT {
        return direct;
    }
    // Rounded down, as the chunks' tiles below are rounded up: at most the wanted programs,
    // which are what an SM holds at once (`split_tiles`: 8 of 4 warps at up to 64 registers
    // for 4-byte elements, 12 at up to 40 for 16-bit ones), so they run in one wave.
    let splits_wanted = (wanted / column_programs).max(1);
    // Rounded up, so the chunks give at most the wanted programs: rounded down, f16 4096 x
    // 4096 took 86 chunks of 3 tiles, 1376 programs where its 56 registers let an H200 hold
    // 1188, and a second wave of 188 programs nearly doubled the partials kernel's time
    // (26.4 us against 20.5 for f32 at twice the bytes, the H200 record of 2026-12-04 at `af83889`).
    let tiles_per_split = row_tiles.div_ceil(splits_wanted).max(MIN_TILES_PER_SPLIT).max(row_tiles.div_ceil(MAX_SPLIT));
    let tiles_per_split = if column_programs >= ONE_LAUNCH_MIN_COLUMN_BLOCKS {
        tiles_for_the_combine(tiles_per_split, row_tiles, block_m)
    } else {
        tiles_per_split
    };
    let rows_per_split = tiles_per_split * block_m;
    if rows_per_split >= n_rows {
        return direct;
    }
    let plan = SplitPlan::new(blocks, rows_per_split, n_rows, n_cols, sm_count);
    ColPlan::Split(SplitPlan { unroll: SPLIT_UNROLL, ..plan })
}

/// Elements of a 16-bit split tile: four a thread at [`NUM_WARPS`] warps, so the layout
/// gives each thread one 8-byte vector (`coalesce.rs` caps the vector at the elements the
/// tile gives a thread).
pub const HALF_SPLIT_TILE: usize = 4 * 32 * NUM_WARPS;
/// Columns of a 16-bit split tile: a warp's 32 threads x 4.
pub const HALF_SPLIT_BLOCK_N: usize = 128;
/// Programs per SM a 16-bit split wants: 12 of 4 warps, the 48 warps an sm_86 SM holds
/// (an H200's holds 64). Their kernels take 32 to 39 registers (ptxas, sm_90; `argmax` the
/// most), which leave room for 12 programs per SM. On the H200 12 ran the `f16`
/// sums 3% faster than 16 (2.82 against 2.73 TB/s at 4096 x 16384), and 8 fell 8% behind
/// 16 in `amax`.
pub const HALF_SPLIT_PROGRAMS_PER_SM: usize = 12;

/// The tiles `(BLOCK_M, BLOCK_N)` of a split `n_rows x n_cols` column reduction of
/// `elem_bytes`-byte elements, and the programs it wants on `sm_count` SMs (the columns
/// alone giving that many keep it direct):
/// - 4-byte elements: the direct kernel's 8 KiB tiles ([`col_blocks`]), [`programs_wanted`]
///   of them (8 per SM);
/// - 16-bit elements: torch's geometry (its `reduce_kernel` for `x.sum(0)`: four columns a
///   thread, four rows in flight): tiles of 4 x [`HALF_SPLIT_BLOCK_N`], one 8-byte vector a
///   thread, walked [`SPLIT_UNROLL`] tiles a trip, [`HALF_SPLIT_PROGRAMS_PER_SM`] programs
///   per SM. Measured on the H200 (the H200 record of 2026-12-04 at `3dd6e02`):
///   against the 8 KiB tiles (16 x 256, 16-byte vectors, 8 per SM) in one run (part 1,
///   at 16 per SM), `sum` and `amax` of `f16` and `bf16` 3% to 33% faster on every shape of
///   the peer script; as landed (part 5), `sum` at 1.06x to 1.34x of torch (it was at 0.83x
///   to 0.94x at 4096 x 1024, 4096 x 16384 and 2048 x 32768) and `amax` at 1.11x to 1.65x.
///   ncu at `f16` 4096 x 16384 (part 3): 0.73 warps eligible per scheduler to torch's 0.49
///   and the old tiles' 0.29, 73% of DRAM bandwidth to torch's 66%. The 8 KiB tiles had
///   been tried with more or fewer programs, narrower blocks of 16-byte vectors and more
///   tiles a trip: none was faster.
pub fn split_tiles(elem_bytes: usize, n_rows: usize, n_cols: usize, sm_count: usize) -> ((usize, usize), usize) {
    if elem_bytes == 2 {
        let block_n = pow2(n_cols).min(HALF_SPLIT_BLOCK_N);
        let blocks = ((HALF_SPLIT_TILE / block_n).min(pow2(n_rows)), block_n);
        (blocks, sm_count.max(1) * HALF_SPLIT_PROGRAMS_PER_SM)
    } else {
        let (block_m, block_n) = col_blocks(elem_bytes, n_rows, n_cols);
        ((block_m, block_n), programs_wanted(block_m * block_n * elem_bytes, sm_count))
    }
}

/// How a row-wise reduction (`x.sum(dim=1)`, ...) is launched: `(BLOCK_M, BLOCK_N)` and
/// warps.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RowLaunch {
    pub blocks: (usize, usize),
    pub num_warps: usize,
}

/// The fewest programs per SM a row-wise reduction whose rows loop (more than 1024
/// columns) keeps before it takes one row per program ([`row_launch`]).
pub const ROW_PROGRAMS_PER_SM: usize = 8;
/// Columns a program of one wide row reads a trip, at [`WIDE_ROW_WARPS`] warps.
pub const WIDE_ROW_BLOCK_N: usize = 2048;
/// Warps of a program that owns one wide row.
pub const WIDE_ROW_WARPS: usize = 8;

/// The launch of an `n_rows x n_cols` row-wise reduction on `sm_count` SMs: the direct
/// kernel's blocks at 4 warps ([`super::reduce::blocks`]: rows of up to 1024 columns a
/// trip, as many rows as fill the 2048-element tile), unless the rows loop and two of them
/// a program leave fewer than [`ROW_PROGRAMS_PER_SM`] programs per SM: then one row per
/// program, [`WIDE_ROW_BLOCK_N`] columns a trip at [`WIDE_ROW_WARPS`] warps. Measured on the
/// H200 at 2048 x 32768 (1024 programs of two rows, 7.8 per SM;
/// the H200 record of 2026-12-04 at `3dd6e02`): `sum` 16% to 18%
/// faster in `f16`/`bf16` and 6% in `f32`, `amax` 5% to 18%, `argmax` 2% slower; as landed
/// (part 5) `sum` at 1.07x to 1.09x of torch (16-bit was at 0.93x), `amax` 1.08x to 1.33x,
/// `argmax` 1.15x. Of the forms tried there, a row of 4096 columns a trip at 4 warps came
/// close in 16-bit and was 4% slower in `f32`.
pub fn row_launch(n_rows: usize, n_cols: usize, sm_count: usize) -> RowLaunch {
    use super::reduce::{Direction, blocks};
    let direct = RowLaunch { blocks: blocks(Direction::Rows, n_rows, n_cols, NUM_WARPS), num_warps: NUM_WARPS };
    let programs = n_rows.max(1).div_ceil(direct.blocks.0);
    if n_cols <= 1024 || programs >= ROW_PROGRAMS_PER_SM * sm_count.max(1) {
        return direct;
    }
    RowLaunch { blocks: (1, pow2(n_cols).min(WIDE_ROW_BLOCK_N)), num_warps: WIDE_ROW_WARPS }
}

/// Tiles a chunk walks for every step of the one-launch combine, at least
/// ([`tiles_for_the_combine`]).
pub const TILES_PER_COMBINE_STEP: usize = 4;

/// `tiles` a chunk, or more: the fewest from there that walk at least
/// [`TILES_PER_COMBINE_STEP`] tiles for each step of the one-launch combine (which reads the
/// `split` partial rows of its column block [`SplitPlan::fused_combine_block_m`] at a time),
/// or all the rows (then the plan is direct: an input of 4 tiles in one launch, which split
/// into 2 chunks of 2 before). That combine runs in the last chunk of each column block after its own
/// walk, and nothing of that block is left to overlap it. Measured on the H200
/// (the H200 record of 2026-12-04 at `b5e4538`, parts 7 and 8), against the
/// chunks chosen without this bound:
/// - `f16`/`bf16` 4096 x 4096, 32 chunks of 8 tiles (2 steps, 512 programs) instead of 64
///   of 4 (4 steps, 1024 programs): 8% to 12% faster (a bound of 2 tiles a step, 43 chunks
///   of 6, gained 4% to 7%);
/// - `f32` 4096 x 1024, 32 chunks of 8 tiles instead of 128 of 2 (8 steps): 2% to 12% faster;
/// - `f32` 32768 x 1024, 86 chunks of 24 tiles (6 steps) instead of 128 of 16 (8 steps): 2%
///   to 5% slower, still 1.35x torch's `sum` and `amax`.
pub fn tiles_for_the_combine(tiles: usize, row_tiles: usize, block_m: usize) -> usize {
    let mut t = tiles.max(1);
    loop {
        let split = row_tiles.div_ceil(t);
        let steps = split.div_ceil(fused_combine_block_m(block_m, split));
        if t >= TILES_PER_COMBINE_STEP * steps || t >= row_tiles {
            return t;
        }
        t += 1;
    }
}

/// The combine's tiles: `BLOCK_N` of 32 to 128 columns (four partials per thread, one
/// 16-byte load), narrow enough that the columns give a program per SM where they can,
/// and `BLOCK_M` along the chunks filling the tile.
fn combine_blocks(split: usize, n_cols: usize, sm_count: usize) -> (usize, usize) {
    let tile = elems_per_thread(NUM_WARPS) * 32 * NUM_WARPS;
    let per_sm = (n_cols / sm_count.max(1)).max(1);
    let widest = 32 * VECTOR_BYTES / PARTIAL_BYTES;
    let block_n = pow2(n_cols).min((1 << per_sm.ilog2()).clamp(32, widest));
    ((tile / block_n).min(pow2(split)), block_n)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `(elem bytes, n_rows, n_cols)` -> the plan on an H200 (132 SMs): the peer script's
    /// shapes all split (their column blocks are 8 to 256, far below the 1056 (`f32`) or
    /// 1584 (16-bit) programs wanted), with chunks of whole tiles and at most the wanted
    /// programs where the rows and the chunk cap allow; wide-enough inputs stay direct.
    #[test]
    fn plans_on_an_h200() {
        let split = |blocks: (usize, usize), rows_per_split, split, combine_blocks| {
            ColPlan::Split(SplitPlan { blocks, rows_per_split, split, combine_blocks, unroll: SPLIT_UNROLL })
        };
        let table = [
            // One launch: chunks of 8 tiles, so the last chunk's combine (2 steps of 16 of
            // the 32 partial rows) is short beside its walk (`tiles_for_the_combine`; 128
            // chunks of 2 tiles took 8 steps).
            ((4, 4096, 1024), split((16, 128), 128, 32, (32, 32))),
            ((4, 4096, 4096), split((16, 128), 128, 32, (32, 32))),
            ((4, 4096, 16384), split((16, 128), 512, 8, (8, 64))),
            ((4, 2048, 32768), split((16, 128), 512, 4, (4, 128))),
            // 86 chunks of 24 tiles (6 combine steps): 128 chunks of 16 would take 8.
            ((4, 32768, 1024), split((16, 128), 384, 86, (64, 32))),
            // 16-bit: tiles of 4 x 128 (`split_tiles`). 8 column blocks: one launch, whose
            // combine takes 4 partial rows a step, so 32 chunks of 32 tiles (8 steps).
            ((2, 4096, 1024), split((4, 128), 128, 32, (32, 32))),
            ((2, 4096, 4096), split((4, 128), 128, 32, (32, 32))),
            // 12 chunks of 86 tiles: 128 column blocks x 12 = 1536 programs, at most the
            // 1584 wanted.
            ((2, 4096, 16384), split((4, 128), 344, 12, (16, 64))),
            ((2, 2048, 32768), split((4, 128), 344, 6, (8, 128))),
            // 90 chunks of 92 tiles, 23 combine steps: the 198 chunks wanted would make
            // 50 steps beside a walk of 42 tiles.
            ((2, 32768, 1024), split((4, 128), 368, 90, (64, 32))),
            // Columns enough for the programs wanted: direct, with the direct kernel's
            // 8 KiB tiles (16-bit: 2048 blocks of 128 columns against 1584 wanted).
            ((4, 64, 1 << 18), ColPlan::Direct { blocks: (16, 128) }),
            ((2, 64, 1 << 18), ColPlan::Direct { blocks: (16, 256) }),
            // Few 16-bit columns: the split tile keeps four elements a thread.
            ((2, 1000, 3), split((128, 4), 256, 4, (4, 4))),
            // Too few rows for two chunks of two tiles: direct.
            ((4, 40, 1024), ColPlan::Direct { blocks: (16, 128) }),
            // Four tiles in one launch: one chunk walking 4 tiles per combine step is all
            // the rows, so direct (2 chunks of 2 before `tiles_for_the_combine`).
            ((4, 64, 1024), ColPlan::Direct { blocks: (16, 128) }),
            // Five: 2 chunks of 4 tiles, one combine step.
            ((4, 80, 1024), split((16, 128), 64, 2, (2, 32))),
            ((4, 1000, 3), ColPlan::Direct { blocks: (512, 4) }),
        ];
        for ((bytes, rows, cols), want) in table {
            assert_eq!(col_plan(bytes, rows, cols, 132), want, "{rows}x{cols} of {bytes}-byte elements");
        }
    }

    /// Every split: chunks of whole tiles and at least two of them, every row in exactly
    /// one chunk, at most `MAX_SPLIT` chunks, and at most the wanted programs, at least
    /// half of them unless the rows or the cap run out.
    /// Direct tiles of 8 KiB for every element size; a 16-bit thread loads four 16-byte
    /// vectors a step, as an `f32` one does.
    #[test]
    fn tiles_hold_the_same_bytes_for_every_element_size() {
        assert_eq!(TILE_BYTES, 4 * elems_per_thread(NUM_WARPS) * 32 * NUM_WARPS);
        for (bytes, blocks) in [(4, (16, 128)), (2, (16, 256)), (1, (16, 512))] {
            assert_eq!(col_blocks(bytes, 4096, 4096), blocks);
            let per_thread_bytes = blocks.0 * blocks.1 * bytes / (32 * NUM_WARPS);
            assert_eq!(per_thread_bytes, 4 * VECTOR_BYTES);
        }
        // Few rows or columns cap the tile.
        assert_eq!(col_blocks(2, 3, 4096), (4, 256));
        assert_eq!(col_blocks(2, 4096, 3), (1024, 4));
    }

    #[test]
    fn splits_with_few_column_blocks_keep_two_launches() {
        // (elem bytes, rows, cols, one launch): 512 columns are 4 blocks of 128.
        for (bytes, rows, cols, one) in
            [(2, 4096, 512, false), (4, 32768, 512, false), (4, 4096, 1024, true), (2, 4096, 1024, true)]
        {
            let ColPlan::Split(p) = col_plan(bytes, rows, cols, 132) else { panic!("{rows}x{cols} does not split") };
            assert_eq!(p.one_launch(cols), one, "{rows}x{cols} of {bytes}-byte elements");
        }
    }

    #[test]
    fn the_fused_combine_takes_the_partials_tile() {
        // (blocks, split, combine block m): the partials' rows, at most the chunks' next
        // power of two.
        for (blocks, split, want) in [((16, 128), 32, 16), ((16, 256), 64, 16), ((16, 128), 5, 8), ((512, 4), 3, 4)] {
            let p = SplitPlan::new(blocks, 16, 16 * split, 1024, 132);
            assert_eq!(p.fused_combine_block_m(), want, "{blocks:?} in {split} chunks");
        }
    }

    #[test]
    fn every_split_covers_the_rows_once() {
        for bytes in [2, 4] {
            for sm_count in [1, 46, 132] {
                for rows in [1, 2, 17, 100, 1000, 4096, 32768, 1 << 22] {
                    for cols in [1, 3, 64, 1000, 1024, 16384, 1 << 17] {
                        let ColPlan::Split(p) = col_plan(bytes, rows, cols, sm_count) else { continue };
                        let (block_m, block_n) = p.blocks;
                        assert_eq!(p.rows_per_split % block_m, 0);
                        assert!(p.rows_per_split >= MIN_TILES_PER_SPLIT * block_m);
                        assert!(p.split >= 2 && p.split <= MAX_SPLIT);
                        assert!((p.split - 1) * p.rows_per_split < rows && p.split * p.rows_per_split >= rows);
                        let column_programs = cols.div_ceil(block_n);
                        let (_, wanted) = split_tiles(bytes, rows, cols, sm_count);
                        let splits_wanted = (wanted / column_programs).max(1);
                        let rows_ran_out = p.rows_per_split == MIN_TILES_PER_SPLIT * block_m;
                        let capped = p.rows_per_split == rows.div_ceil(block_m).div_ceil(MAX_SPLIT) * block_m;
                        // In one launch, a chunk walks TILES_PER_COMBINE_STEP tiles per
                        // step of the last chunk's combine (or is as long as the rows).
                        let tiles = p.rows_per_split / block_m;
                        let row_tiles = rows.div_ceil(block_m);
                        let unbounded = row_tiles
                            .div_ceil(splits_wanted)
                            .max(MIN_TILES_PER_SPLIT)
                            .max(row_tiles.div_ceil(MAX_SPLIT));
                        let combine_bound = p.one_launch(cols) && tiles > unbounded;
                        if p.one_launch(cols) {
                            let steps = p.fused_combine_steps();
                            assert!(tiles >= TILES_PER_COMBINE_STEP * steps || tiles >= row_tiles, "{rows}x{cols}");
                        }
                        // Never more chunks than wanted (a second wave of programs costs
                        // about as much as the first), and at least half as many unless
                        // the rows or the cap run out, or the one-launch combine bounds them.
                        assert!(p.split <= splits_wanted, "{rows}x{cols}: {} chunks > {splits_wanted}", p.split);
                        assert!(
                            2 * p.split >= splits_wanted || rows_ran_out || capped || combine_bound,
                            "{rows}x{cols}: {} chunks of {splits_wanted} wanted",
                            p.split
                        );
                        assert!(p.combine_blocks.0 <= pow2(p.split));
                    }
                }
            }
        }
    }

    /// A 16-bit split tile gives each thread four elements (one 8-byte vector) whatever
    /// the columns; 4-byte splits keep the direct tiles.
    #[test]
    fn sixteen_bit_split_tiles_are_one_8_byte_vector_a_thread() {
        for cols in [3, 64, 100, 1024, 1 << 20] {
            let ((block_m, block_n), wanted) = split_tiles(2, 1 << 20, cols, 132);
            assert_eq!(block_m * block_n, HALF_SPLIT_TILE, "{cols} columns");
            assert_eq!(HALF_SPLIT_TILE * 2 / (32 * NUM_WARPS), 8);
            assert_eq!(block_n, cols.next_power_of_two().min(HALF_SPLIT_BLOCK_N));
            assert_eq!(wanted, 132 * HALF_SPLIT_PROGRAMS_PER_SM);
        }
        assert_eq!(split_tiles(2, 3, 1024, 132).0, (4, 128));
        assert_eq!(split_tiles(4, 4096, 1024, 132), (col_blocks(4, 4096, 1024), programs_wanted(8 << 10, 132)));
    }

    #[test]
    fn few_wide_rows_take_a_program_each() {
        // (rows, cols) -> launch on 132 SMs: the peer script's shapes keep the direct
        // blocks but 2048 x 32768 (1024 programs of two rows, fewer than 8 per SM).
        let direct = |m, n| RowLaunch { blocks: (m, n), num_warps: 4 };
        let wide = RowLaunch { blocks: (1, 2048), num_warps: 8 };
        for ((rows, cols), want) in [
            ((4096, 1024), direct(2, 1024)),
            ((4096, 16384), direct(2, 1024)),
            ((2048, 32768), wide),
            ((32768, 1024), direct(2, 1024)),
            ((64, 4096), wide),
            ((3, 1500), wide),
            ((1000, 1000), direct(2, 1024)),
        ] {
            assert_eq!(row_launch(rows, cols, 132), want, "{rows}x{cols}");
        }
    }
}
