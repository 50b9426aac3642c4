//! How the layer norm forward launches for a row width and an element type: the whole
//! row in one block (`layer_norm_rows`, `x` read once) while a row fits one, the
//! tutorial's loop (`layer_norm::fwd_fused`, `x` read three times) past that. Pure data:
//! the bench launches what [`plan`] says, `tests/tests/ports_ptxas.rs` checks with ptxas
//! that the planned kernels fit their registers without spilling.
//!
//! The rule follows the softmax's (`softmax::plan`), whose kernels hold a row the same
//! way: a block of the next power of two of the width, [`ELEMENTS_PER_THREAD`] elements
//! a thread (1 to 16 warps). Up to 8 warps, one program per row: several programs share
//! an SM and overlap each other's loads. At 16 warps (and for 16-bit rows of 4096 on 8
//! warps, [`MAX_EIGHT_WARP_PREFETCH_BYTES`]) a persistent grid ([`programs_per_sm`])
//! whose programs load the next row while they work on this one: in registers up to
//! [`MAX_REGISTER_PREFETCH_BLOCK`] columns, staged in shared memory past that, up to
//! [`MAX_STAGED_BLOCK`] columns when the staged row fits the device's shared memory.
//! Rows loaded element by element (a column stride other than 1, or rows not proven
//! 16-byte aligned) take an address register per element: they are never prefetched,
//! and one block holds at most [`MAX_SCALAR_BLOCK`] of them.

/// Which forward kernel a launch uses.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Form {
    /// `layer_norm_fwd_fused*`: the tutorial's three loops over the row.
    Loop,
    /// `layer_norm_fwd_rows*`: a row per block, one program per row.
    Rows,
    /// `layer_norm_fwd_prefetch_registers*`: persistent, the next row in registers.
    PrefetchRegisters,
    /// `layer_norm_fwd_prefetch_staged*`: persistent, the next row in shared memory.
    PrefetchStaged,
}

/// A forward launch: the kernel, its `BLOCK_SIZE` and warps, and whether the grid is
/// persistent (one program per SM, each looping over rows) or one program per row.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Plan {
    pub form: Form,
    pub block_size: usize,
    pub num_warps: u32,
    pub persistent: bool,
}

/// The widest block whose next row a program keeps in registers (see [`plan`]): 16384
/// columns on 16 warps are 32 `f32` registers a thread for this row and up to 32 for the
/// next; ptxas fits `f32` in 128 registers without spills, and spilled 56 to 76 bytes a
/// thread for 16-bit rows of 32768 (64 registers of this row in `f32`, 32 of the next).
pub const MAX_REGISTER_PREFETCH_BLOCK: usize = 16384;

/// The widest row, in bytes, an 8-warp block prefetches (in registers): 8 KiB, 16-bit
/// rows of 4096, where ptxas fits the kernel in 64 registers (so four programs share an
/// SM) and the H200 ran 4096 x 4096 1.31x (f16) and 1.32x (bf16) faster than one program
/// per row; `f32` rows of 4096 take 80 registers and ran 0.92x as fast persistent, so they
/// keep one program per row (the H200 record of 2026-12-04 at `6b30b97`).
pub const MAX_EIGHT_WARP_PREFETCH_BYTES: usize = 8 << 10;

/// The widest block of the whole-row kernels: 32768 columns on 16 warps, 64 elements of
/// row per thread; the next row is staged, not held.
pub const MAX_STAGED_BLOCK: usize = 32768;

/// The widest block of the whole-row kernel on rows loaded element by element: 8192 on
/// 16 warps, 16 addresses and values a thread, fit 128 registers without spills (ptxas,
/// sm_90, every dtype; `tests/tests/ports_ptxas.rs` checks); 16384 spilled 28 bytes a
/// thread in f32.
pub const MAX_SCALAR_BLOCK: usize = 8192;

/// Elements of row each thread holds, until a block reaches 16 warps: 16, measured on the H200 (the H200 record of 2026-12-04 at `6b30b97`):
/// f16 rows of 1024 ran 1.13x (4096 rows) and 1.10x (32768 rows) faster at 16 a thread
/// than at 32 (the softmax's 2 KiB a warp), and 1.06x and 1.26x faster than at 8; f16 rows
/// of 4096 1.05x faster at 16 than at 32. `f32` rows take 16 as under the softmax's rule.
pub const ELEMENTS_PER_THREAD: usize = 16;

/// The most warps a block takes.
pub const MAX_WARPS: u32 = 16;

/// The reductions' shared scratch of a block (one partial per warp, two reductions): an
/// upper bound, as the softmax's.
const SCRATCH_BYTES: usize = 1024;

/// Shared memory a staged program of `block_size` elements of `elem_bytes` bytes uses.
pub fn staged_shared_bytes(block_size: usize, elem_bytes: usize) -> usize {
    block_size * elem_bytes + SCRATCH_BYTES
}

/// The launch for rows of `n` elements of `elem_bytes` bytes; `vectors` says whether the
/// rows load as 16-byte vectors (contiguous columns, the width, row strides and offsets
/// multiples of 16 elements, as Triton's specialization proves); `shared_bytes` is the
/// most shared memory a program may use on the device. See the module doc for the rule.
pub fn plan(n: usize, elem_bytes: usize, vectors: bool, shared_bytes: usize) -> Plan {
    let block = n.max(1).next_power_of_two();
    let num_warps = (block / (32 * ELEMENTS_PER_THREAD)).clamp(1, MAX_WARPS as usize) as u32;
    let whole_row = Plan { form: Form::Rows, block_size: block, num_warps, persistent: false };
    if !vectors {
        if block <= MAX_SCALAR_BLOCK {
            return whole_row;
        }
    } else if num_warps == 8 && block * elem_bytes <= MAX_EIGHT_WARP_PREFETCH_BYTES {
        return Plan { form: Form::PrefetchRegisters, persistent: true, ..whole_row };
    } else if num_warps < MAX_WARPS {
        return whole_row;
    } else if block <= MAX_REGISTER_PREFETCH_BLOCK {
        return Plan { form: Form::PrefetchRegisters, persistent: true, ..whole_row };
    } else if block <= MAX_STAGED_BLOCK && staged_shared_bytes(block, elem_bytes) <= shared_bytes {
        return Plan { form: Form::PrefetchStaged, persistent: true, ..whole_row };
    }
    let (block_size, num_warps) = super::layer_norm::fwd_config(n, elem_bytes);
    Plan { form: Form::Loop, block_size, num_warps, persistent: false }
}

/// The programs of a launch of `plan` over `n_rows` rows on a device of `sm_count` SMs:
/// one per row, or for a persistent plan [`programs_per_sm`] per SM (fewer when there are
/// fewer rows).
pub fn grid(plan: Plan, n_rows: usize, sm_count: usize) -> [u32; 3] {
    let programs = if plan.persistent { n_rows.min(sm_count.max(1) * programs_per_sm(plan)) } else { n_rows };
    [programs.max(1) as u32, 1, 1]
}

/// The persistent programs of `plan` an SM holds at once, by the registers
/// [`persistent_registers`] allows them: one of 16 warps (128 registers), four of 8 (64).
pub fn programs_per_sm(plan: Plan) -> usize {
    let num_warps = plan.num_warps.max(1);
    super::layer_norm_plan::ctas_per_sm(persistent_registers(num_warps), num_warps)
}

/// The most registers a thread of a persistent program of `num_warps` warps may take
/// for [`programs_per_sm`] to hold (`tests/tests/ports_ptxas.rs` checks the planned
/// kernels against it): 128 on 16 warps, 64 on fewer.
pub fn persistent_registers(num_warps: u32) -> u32 {
    if num_warps >= MAX_WARPS { 128 } else { 64 }
}

#[cfg(test)]
mod tests {
    use super::*;

    const H200: usize = 227 * 1024;

    #[test]
    fn the_plan_holds_a_row_in_one_block_while_one_fits() {
        use Form::{Loop, PrefetchRegisters, PrefetchStaged, Rows};
        // (width, element bytes, 16-byte vectors, shared bytes, form, block, warps)
        let table = [
            (1, 4, false, H200, Rows, 1, 1),
            (7, 4, true, H200, Rows, 8, 1),
            (1024, 4, true, H200, Rows, 1024, 2),
            (1024, 2, true, H200, Rows, 1024, 2),
            (1151, 2, false, H200, Rows, 2048, 4),
            (4096, 4, true, H200, Rows, 4096, 8),
            (4096, 2, true, H200, PrefetchRegisters, 4096, 8),
            (2048, 2, true, H200, Rows, 2048, 4),
            (4096, 2, false, H200, Rows, 4096, 8),
            (8192, 4, true, H200, PrefetchRegisters, 8192, 16),
            (8192, 2, true, H200, PrefetchRegisters, 8192, 16),
            (16384, 4, true, H200, PrefetchRegisters, 16384, 16),
            (16384, 2, true, H200, PrefetchRegisters, 16384, 16),
            (16400, 2, true, H200, PrefetchStaged, 32768, 16),
            (8192, 4, false, H200, Rows, 8192, 16),
            (8193, 2, false, H200, Loop, 4096, 8),
            (16384, 4, false, H200, Loop, 4096, 8),
            (32768, 4, true, H200, PrefetchStaged, 32768, 16),
            (16400, 4, true, H200, PrefetchStaged, 32768, 16),
            (32768, 2, true, H200, PrefetchStaged, 32768, 16),
            // 128 KiB of staged row does not fit sm_86's 99 KiB: the tutorial's loop.
            (32768, 4, true, 99 * 1024, Loop, 16384, 8),
            (16385, 4, false, H200, Loop, 16384, 8),
            (32769, 2, true, H200, Loop, 16384, 8),
            (1 << 20, 4, true, H200, Loop, 16384, 8),
        ];
        for (n, bytes, vectors, shared, form, block_size, num_warps) in table {
            let persistent = matches!(form, PrefetchRegisters | PrefetchStaged);
            let want = Plan { form, block_size, num_warps, persistent };
            assert_eq!(plan(n, bytes, vectors, shared), want, "{n} x {bytes} bytes, vectors {vectors}, {shared}");
        }
    }

    #[test]
    fn a_persistent_grid_fills_the_sms_registers_or_takes_one_program_per_row_when_fewer() {
        let (wide, narrow) = (plan(32768, 4, true, H200), plan(1024, 4, true, H200));
        let eight_warps = plan(4096, 2, true, H200);
        assert_eq!((eight_warps.form, eight_warps.num_warps), (Form::PrefetchRegisters, 8));
        let table = [(wide, 2048, 132), (wide, 100, 100), (wide, 0, 1), (narrow, 4096, 4096), (eight_warps, 4096, 528)];
        for (p, rows, programs) in table {
            assert_eq!(grid(p, rows, 132), [programs, 1, 1], "{p:?} {rows} rows");
        }
    }
}
