//! How the layer-norm backward launches for a row width, an element size, a row count and
//! a device's SM count: which form ([`Form`]), its block and warps, how many programs
//! (for the persistent form, as many as the GPU holds at once), and how the second kernel
//! sums the partial rows ([`SumPlan`]). Pure data: the bench (`rtriton-host`'s
//! `ports::layer_norm::persistent`) launches what [`plan`] says, and
//! `tests/tests/ports_ptxas.rs` checks the register counts it assumes with ptxas.
//!
//! The rule:
//! - rows of at most [`MAX_PERSISTENT_BLOCK`] columns (after rounding up to a power of
//!   two) run the persistent form (`layer_norm_persistent`): a row in one block on
//!   `BLOCK_SIZE_N / 256` warps (8 elements per thread, 1 to 16 warps), and
//!   `G = min(rows, sm_count * CTAs per SM)` programs, where the CTAs per SM follow from
//!   the registers in [`PERSISTENT_REGISTERS`] ([`ctas_per_sm`]). Wider rows do not fit:
//!   the kernel holds `w`, the two `f32` partial sums and the prefetched `x` and `dy` of the
//!   next row besides the current row, about 12 registers per element, so 8192 columns on
//!   16 warps spill (ptxas: 128 registers, 76 bytes of spill stores in f32), and on 32
//!   warps (64 registers per thread at most) too;
//! - wider rows run the chunked form (`layer_norm_chunked`): the rows' `c1` and `c2` by
//!   [`ROW_SUMS_BLOCK`]-column blocks, one program per row, then `dx` and the partial
//!   rows by [`CHUNK_BLOCK`]-column chunks on `G x S` programs (`S` chunks a row, `G` row
//!   groups: together what the GPU holds at once by [`CHUNKED_REGISTERS`]), then the
//!   persistent form's sum of the `G` partial rows. Any width works.
//!
//! The tutorial's lock form (`layer_norm::bwd_config`, `group_size_m`, its dw/db sum in
//! `32 x 128` blocks) is no longer planned: it stays a validated port of the tutorial and
//! a bench variant (`layer_norm_bwd (lock)`) timed beside the planned form, where it ran
//! at 0.57x to 0.94x of the best of torch and Triton on rows of 16384 and 32768
//! (the H200 record of 2026-12-04 at `8e7ff3d`).

/// Registers per SM on sm_80 ... sm_90.
pub const REGISTERS_PER_SM: usize = 65536;
/// Resident threads per SM on sm_80 and sm_90 (sm_86 and sm_89 hold 1536 and 16 CTAs:
/// there a grid planned with these limits runs in more than one wave, correctly).
pub const THREADS_PER_SM: usize = 2048;
/// Resident CTAs per SM on sm_90 (32; sm_80 holds 32 as well).
pub const MAX_CTAS_PER_SM: usize = 32;
/// The unit the SM allocates registers per thread in (256 per warp).
pub const REGISTER_UNIT: u32 = 8;

/// The widest block the persistent form takes (see the module doc).
pub const MAX_PERSISTENT_BLOCK: usize = 4096;

/// Elements per thread of the persistent form's block: 8, the most whose registers stay
/// near 100 per thread (16 take about 190 in f32, so fewer threads but no more elements
/// per SM, and more spills past 4096 columns).
pub const PERSISTENT_ELEMENTS_PER_THREAD: usize = 8;

/// Registers per thread the plan assumes for `layer_norm_bwd_dx_persistent*` on
/// contiguous rows (unit column strides, 16-byte aligned rows: the bench's inputs), per
/// `BLOCK_SIZE_N` on the warps [`persistent_config`] gives: `(BLOCK_SIZE_N, 4-byte
/// elements, 2-byte elements)`. Each is the largest count `ptxas -v` (CUDA 12.9) reported
/// for `-arch=sm_86` and `-arch=sm_90` (and, for 2-byte elements, f16 and bf16), rounded
/// up to [`REGISTER_UNIT`], the allocation the SM makes. Strided views take more (an
/// address per element), so fewer of their programs fit at once than planned: they run
/// in more than one wave, correctly. `tests/tests/ports_ptxas.rs`
/// (`the_persistent_layer_norm_fits_the_registers_its_plan_assumes`) fails when ptxas
/// reports more or spills; re-measure and update the table then.
pub const PERSISTENT_REGISTERS: [(usize, u32, u32); 13] = [
    (1, 40, 40),
    (2, 40, 40),
    (4, 40, 40),
    (8, 40, 40),
    (16, 40, 40),
    (32, 40, 40),
    (64, 48, 48),
    (128, 64, 56),
    (256, 96, 88),
    (512, 96, 72),
    (1024, 96, 72),
    (2048, 96, 80),
    (4096, 104, 88),
];

/// The chunked form's `BLOCK_SIZE_N` (columns a program of `layer_norm_bwd_dx_chunked*`
/// takes of each of its rows) and warps: 8 elements per thread, as the persistent form.
pub const CHUNK_BLOCK: usize = 2048;
pub const CHUNK_WARPS: u32 = 8;

/// The block and warps of `layer_norm_bwd_row_sums*`, which loops over a row in blocks.
pub const ROW_SUMS_BLOCK: usize = 2048;
pub const ROW_SUMS_WARPS: u32 = 8;

/// Registers per thread the plan assumes for `layer_norm_bwd_dx_chunked*` at
/// [`CHUNK_BLOCK`] on [`CHUNK_WARPS`] warps on contiguous rows: `(4-byte elements, 2-byte
/// elements)`, the largest `ptxas -v` (CUDA 12.9) count for `-arch=sm_86` and `sm_90`
/// rounded up to [`REGISTER_UNIT`]. `tests/tests/ports_ptxas.rs`
/// (`the_chunked_layer_norm_fits_the_registers_its_plan_assumes`) fails when ptxas
/// reports more or spills.
pub const CHUNKED_REGISTERS: (u32, u32) = (64, 64);

/// Which backward runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Form {
    /// `layer_norm_bwd_dx_persistent*` then `layer_norm_bwd_dwdb_from_f32*`.
    Persistent,
    /// `layer_norm_bwd_row_sums*`, `layer_norm_bwd_dx_chunked*`, then
    /// `layer_norm_bwd_dwdb_from_f32*`.
    Chunked,
}

/// How the second kernel sums `m` partial rows: `cdiv(n, block_size_n)` programs, each
/// `block_size_m` partial rows at a time.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct SumPlan {
    pub block_size_m: usize,
    pub block_size_n: usize,
    pub num_warps: u32,
}

/// Elements of the sum's `[BLOCK_SIZE_M, BLOCK_SIZE_N]` tile: 16 per thread of 4 warps,
/// four 16-byte loads of `f32` partials per tensor.
pub const SUM_TILE: usize = 2048;

/// The narrowest `BLOCK_SIZE_N` of the sum: 8 `f32` columns are one 32-byte sector per
/// partial row, so narrower tiles would waste part of every sector.
pub const SUM_MIN_BLOCK_N: usize = 8;

/// The widest `BLOCK_SIZE_N` of the sum (the tutorial's).
pub const SUM_MAX_BLOCK_N: usize = 128;

/// The whole backward of `n_rows` rows of `n_cols` elements of `elem_bytes` bytes on a
/// device of `sm_count` SMs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct BwdPlan {
    pub form: Form,
    /// The dx kernel's `BLOCK_SIZE_N` (the row in one block) and warps.
    pub block_size_n: usize,
    pub num_warps: u32,
    /// Row groups of the dx kernel, `G`: its programs along axis 0, each taking rows `p,
    /// p + G, ...`, and the `f32` partial rows of dw and db it writes and the sum reads.
    pub programs: usize,
    /// Column chunks of a row along the dx kernel's axis 1, `S`: 1 for the persistent
    /// form (a row is one block), `cdiv(n_cols, CHUNK_BLOCK)` for the chunked one.
    pub chunks: usize,
    pub sum: SumPlan,
}

/// The plan (see the module doc); `None` only for element sizes other than 4 and 2 bytes.
pub fn plan(n_cols: usize, n_rows: usize, elem_bytes: usize, sm_count: usize) -> Option<BwdPlan> {
    if let Some((block_size_n, num_warps)) = persistent_config(n_cols) {
        let registers = assumed_registers(block_size_n, elem_bytes)?;
        let programs = persistent_programs(n_rows, sm_count, ctas_per_sm(registers, num_warps));
        return Some(BwdPlan {
            form: Form::Persistent,
            block_size_n,
            num_warps,
            programs,
            chunks: 1,
            sum: sum_plan(n_cols, programs, sm_count),
        });
    }
    let registers = match elem_bytes {
        4 => CHUNKED_REGISTERS.0,
        2 => CHUNKED_REGISTERS.1,
        _ => return None,
    };
    let chunks = n_cols.div_ceil(CHUNK_BLOCK);
    let resident = sm_count.max(1) * ctas_per_sm(registers, CHUNK_WARPS);
    let programs = chunked_row_groups(n_rows, chunks, resident);
    Some(BwdPlan {
        form: Form::Chunked,
        block_size_n: CHUNK_BLOCK,
        num_warps: CHUNK_WARPS,
        programs,
        chunks,
        sum: sum_plan(n_cols, programs, sm_count),
    })
}

/// The chunked form's row groups `G`: as many as fill the `resident` programs the GPU
/// holds once each takes its `chunks` chunks (`G x S` programs in all), at least 1 and at
/// most `n_rows` (a group without rows would store a zero partial row for nothing).
pub fn chunked_row_groups(n_rows: usize, chunks: usize, resident: usize) -> usize {
    (resident / chunks.max(1)).clamp(1, n_rows.max(1))
}

/// The persistent form's `(BLOCK_SIZE_N, num_warps)` for rows of `n_cols` elements, or
/// `None` when the row is wider than [`MAX_PERSISTENT_BLOCK`].
pub fn persistent_config(n_cols: usize) -> Option<(usize, u32)> {
    let block = n_cols.max(1).next_power_of_two();
    let warps = (block / (32 * PERSISTENT_ELEMENTS_PER_THREAD)).clamp(1, 16);
    (block <= MAX_PERSISTENT_BLOCK).then_some((block, warps as u32))
}

/// The registers [`PERSISTENT_REGISTERS`] assumes for `block` and elements of
/// `elem_bytes` (4 or 2) bytes.
pub fn assumed_registers(block: usize, elem_bytes: usize) -> Option<u32> {
    let &(_, four, two) = PERSISTENT_REGISTERS.iter().find(|(b, _, _)| *b == block)?;
    match elem_bytes {
        4 => Some(four),
        2 => Some(two),
        _ => None,
    }
}

/// CTAs of `num_warps` warps using `registers` per thread that one SM holds at once: the
/// fewest of what its registers, its threads and its CTA slots allow (at least 1: a CTA
/// the register file cannot hold does not launch, which ptxas's `.maxntid` bound rules
/// out).
pub fn ctas_per_sm(registers: u32, num_warps: u32) -> usize {
    let threads = 32 * num_warps as usize;
    let allocated = registers.div_ceil(REGISTER_UNIT) * REGISTER_UNIT;
    let by_registers = REGISTERS_PER_SM / (allocated as usize * threads);
    let by_threads = THREADS_PER_SM / threads;
    by_registers.min(by_threads).clamp(1, MAX_CTAS_PER_SM)
}

/// `G = min(rows, sm_count * ctas)`, at least 1 (with no rows, program 0 stores zero
/// partial rows and the sum gives zero gradients).
pub fn persistent_programs(n_rows: usize, sm_count: usize, ctas: usize) -> usize {
    n_rows.min(sm_count.max(1) * ctas).max(1)
}

/// How the persistent form's `m` partial rows of `n_cols` columns are summed on a device
/// of `sm_count` SMs: `BLOCK_SIZE_N` the widest power of two from [`SUM_MIN_BLOCK_N`] to
/// [`SUM_MAX_BLOCK_N`] that still gives every SM a program (`cdiv(n_cols, BLOCK_SIZE_N) >=
/// sm_count`; [`SUM_MIN_BLOCK_N`] when none does: 1024 columns on 132 SMs get 128
/// programs of 8 columns, where the tutorial's 128 columns gave 8 programs, each reading
/// 1/8 of every partial row); `BLOCK_SIZE_M` fills a [`SUM_TILE`]-element tile but at most
/// the next power of two of `m`; one warp per 512 elements of the tile, 1 to 4.
pub fn sum_plan(n_cols: usize, m: usize, sm_count: usize) -> SumPlan {
    let mut block_n = SUM_MAX_BLOCK_N;
    while block_n > SUM_MIN_BLOCK_N && n_cols.div_ceil(block_n) < sm_count {
        block_n /= 2;
    }
    let block_m = (SUM_TILE / block_n).min(m.max(1).next_power_of_two());
    let num_warps = (block_m * block_n / 512).clamp(1, 4) as u32;
    SumPlan { block_size_m: block_m, block_size_n: block_n, num_warps }
}

/// The longest chain of additions the sum of `m` partial rows in blocks of `block_m`
/// rows can make (`ceil(m / block_m)` blocks added per lane, then the block's `block_m`
/// rows folded left to right, longer than the interpreter's pairwise `sum` and the
/// GPU's tree): what its tolerance grows with.
pub fn sum_depth(m: usize, block_m: usize) -> usize {
    m.div_ceil(block_m.max(1)) + block_m - 1
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The H200's SM count.
    const SMS: usize = 132;

    #[test]
    fn rows_up_to_4096_columns_run_the_persistent_form_wider_ones_the_chunked_form() {
        // (columns, element bytes, form, block, warps)
        let table = [
            (1, 4, Form::Persistent, 1, 1),
            (37, 2, Form::Persistent, 64, 1),
            (300, 4, Form::Persistent, 512, 2),
            (1024, 4, Form::Persistent, 1024, 4),
            (1151, 2, Form::Persistent, 2048, 8),
            (4096, 4, Form::Persistent, 4096, 16),
            (4096, 2, Form::Persistent, 4096, 16),
            (4097, 4, Form::Chunked, CHUNK_BLOCK, CHUNK_WARPS),
            (16384, 2, Form::Chunked, CHUNK_BLOCK, CHUNK_WARPS),
            (32768, 4, Form::Chunked, CHUNK_BLOCK, CHUNK_WARPS),
            (1 << 20, 2, Form::Chunked, CHUNK_BLOCK, CHUNK_WARPS),
        ];
        for (cols, bytes, form, block, warps) in table {
            let p = plan(cols, 4096, bytes, SMS).unwrap_or_else(|| panic!("{cols} x {bytes} bytes: no plan"));
            assert_eq!((p.form, p.block_size_n, p.num_warps), (form, block, warps), "{cols} columns of {bytes} bytes");
        }
        assert_eq!(plan(8192, 4096, 8, SMS), None, "no kernel of 8-byte elements");
    }

    #[test]
    fn ctas_per_sm_is_the_tightest_of_registers_threads_and_slots() {
        // (registers, warps, CTAs): 96 x 128 threads = 12288 registers, 5 per 65536;
        // 104 x 512 = 53248, one; 40 registers on one warp: 51 by registers, 64 by
        // threads, 32 slots; 16 warps of 32 registers: 4 by both threads and registers;
        // 90 registers are allocated as 96.
        let table = [(96, 4, 5), (104, 16, 1), (40, 1, 32), (32, 16, 4), (90, 4, 5), (72, 4, 7), (255, 16, 1)];
        for (registers, warps, ctas) in table {
            assert_eq!(ctas_per_sm(registers, warps), ctas, "{registers} registers on {warps} warps");
        }
    }

    #[test]
    fn the_persistent_grid_is_what_the_gpu_holds_or_one_program_per_row() {
        // f32 rows of 1024: 96 registers on 4 warps, 5 CTAs per SM.
        let p = plan(1024, 4096, 4, SMS).unwrap();
        assert_eq!((p.programs, p.chunks), (5 * SMS, 1));
        // f16 rows of 1024: 72 registers, 7 per SM.
        assert_eq!(plan(1024, 32768, 2, SMS).unwrap().programs, 7 * SMS);
        // f32 rows of 4096: one CTA of 16 warps per SM.
        assert_eq!(plan(4096, 4096, 4, SMS).unwrap().programs, SMS);
        assert_eq!(plan(4096, 4096, 4, 100).unwrap().programs, 100, "the device's SM count");
        // Fewer rows than the GPU holds: one program per row; no rows: one program.
        assert_eq!(plan(1024, 50, 4, SMS).unwrap().programs, 50);
        assert_eq!(plan(1024, 0, 4, SMS).unwrap().programs, 1);
    }

    #[test]
    fn the_chunked_form_cuts_rows_into_chunks_and_fills_the_gpu_with_row_groups() {
        // 64 registers on 8 warps: 4 CTAs per SM, 528 resident on 132 SMs.
        assert_eq!(ctas_per_sm(CHUNKED_REGISTERS.1, CHUNK_WARPS), 4);
        // (columns, rows, element bytes, SMs, chunks, row groups)
        let table = [
            (32768, 2048, 2, SMS, 16, 528 / 16),
            (16384, 4096, 2, SMS, 8, 528 / 8),
            (16384, 4096, 4, SMS, 8, 528 / 8),
            (5000, 4096, 4, SMS, 3, 528 / 3),
            (32768, 10, 2, SMS, 16, 10),
            (1 << 21, 64, 2, SMS, 1024, 1),
            (32768, 0, 2, SMS, 16, 1),
            (32768, 2048, 2, 4, 16, 1),
        ];
        for (cols, rows, bytes, sms, chunks, groups) in table {
            let p = plan(cols, rows, bytes, sms).unwrap();
            assert_eq!((p.form, p.chunks, p.programs), (Form::Chunked, chunks, groups), "{rows}x{cols}, {bytes} bytes");
            assert_eq!(p.sum, sum_plan(cols, groups, sms), "the sum of the G partial rows");
        }
        assert_eq!(chunked_row_groups(100, 3, 0), 1, "at least one group");
    }

    #[test]
    fn every_persistent_block_has_its_registers_in_the_table() {
        for k in 0..=MAX_PERSISTENT_BLOCK.trailing_zeros() {
            let block = 1 << k;
            assert_eq!(persistent_config(block).map(|c| c.0), Some(block));
            for bytes in [4, 2] {
                let r = assumed_registers(block, bytes).unwrap_or_else(|| panic!("block {block}: no registers"));
                assert_eq!(r % REGISTER_UNIT, 0, "block {block}: {r} is not what the SM allocates");
            }
        }
        assert_eq!(assumed_registers(1024, 8), None);
    }

    #[test]
    fn the_sum_gives_every_sm_a_program_for_narrow_rows() {
        // (columns, partial rows, SMs, block m, block n, warps, programs)
        let table = [
            (1024, 660, SMS, 256, 8, 4, 128),
            (4096, 132, SMS, 128, 16, 4, 256),
            (16384, 132, SMS, 32, 64, 4, 256),
            (32768, 132, SMS, 16, 128, 4, 256),
            (1024, 3, SMS, 4, 8, 1, 128),
            (100, 20, SMS, 32, 8, 1, 13),
            (4096, 660, 16, 16, 128, 4, 32),
        ];
        for (n, m, sms, block_m, block_n, warps, programs) in table {
            let s = sum_plan(n, m, sms);
            assert_eq!(
                (s.block_size_m, s.block_size_n, s.num_warps, n.div_ceil(s.block_size_n)),
                (block_m, block_n, warps, programs),
                "{n} columns, {m} partial rows, {sms} SMs"
            );
        }
    }

    #[test]
    fn the_sum_depth_counts_blocks_then_the_fold() {
        assert_eq!(sum_depth(256, 32), 8 + 31);
        assert_eq!(sum_depth(660, 256), 3 + 255);
        assert_eq!(sum_depth(1, 1), 1);
    }
}
