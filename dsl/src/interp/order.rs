//! The order the interpreter runs a grid's programs in. By default program ids in order,
//! x fastest, then y, then z; [`ProgramOrder::Shuffled`] runs them in a pseudo-random
//! permutation fixed by a seed, so a test can show that a kernel's result does not depend
//! on the order (the GPU runs programs in any order, concurrently). Within a program ops
//! run in program order and the lanes of a block in row-major order either way.

/// Which order [`crate::interp::run_with`] runs the programs of a grid in.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum ProgramOrder {
    /// x fastest, then y, then z (what [`crate::interp::run`] does).
    #[default]
    InOrder,
    /// A permutation of the program ids drawn from `seed` (SplitMix64 and Fisher-Yates):
    /// the same seed gives the same order on every machine.
    Shuffled { seed: u64 },
}

/// Options of an interpreter run.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub struct RunOptions {
    pub order: ProgramOrder,
    /// The most loop iterations (`for` and `while`, nested ones counted each) one program
    /// may run before the run stops with `RT0409`; `None`: `RTRITON_STEP_BUDGET` when set,
    /// else [`crate::budget::DEFAULT_STEP_BUDGET`].
    pub step_budget: Option<u64>,
}

impl RunOptions {
    /// These options with a step budget of `budget` loop iterations per program.
    pub fn step_budget(mut self, budget: u64) -> RunOptions {
        self.step_budget = Some(budget);
        self
    }
}

/// SplitMix64 (Steele, Lea and Flood), a small generator with a full 64-bit period.
struct SplitMix64(u64);

impl SplitMix64 {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// A value in `0..n` (n > 0); the modulo bias is irrelevant for test orders.
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

/// The program id of the `i`-th program in id order (x fastest).
fn id_of(i: u64, grid: [u32; 3]) -> [u32; 3] {
    let (gx, gy) = (u64::from(grid[0]), u64::from(grid[1]));
    [(i % gx) as u32, ((i / gx) % gy) as u32, (i / (gx * gy)) as u32]
}

/// Calls `f` with every program id of `grid` in `order`, stopping at the first error.
pub(crate) fn for_each_program<E>(
    grid: [u32; 3],
    order: ProgramOrder,
    mut f: impl FnMut([u32; 3]) -> Result<(), E>,
) -> Result<(), E> {
    let total = grid.iter().map(|&g| u64::from(g)).product::<u64>();
    match order {
        ProgramOrder::InOrder => (0..total).try_for_each(|i| f(id_of(i, grid))),
        ProgramOrder::Shuffled { seed } => {
            let mut ids: Vec<u64> = (0..total).collect();
            let mut rng = SplitMix64(seed);
            for i in (1..ids.len()).rev() {
                let j = rng.below(i as u64 + 1) as usize;
                ids.swap(i, j);
            }
            ids.into_iter().try_for_each(|i| f(id_of(i, grid)))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn order(grid: [u32; 3], order: ProgramOrder) -> Vec<[u32; 3]> {
        let mut out = Vec::new();
        for_each_program::<()>(grid, order, |p| {
            out.push(p);
            Ok(())
        })
        .unwrap();
        out
    }

    #[test]
    fn in_order_is_x_fastest_and_a_zero_dimension_runs_nothing() {
        assert_eq!(order([2, 2, 1], ProgramOrder::InOrder), vec![[0, 0, 0], [1, 0, 0], [0, 1, 0], [1, 1, 0]]);
        assert!(order([3, 0, 2], ProgramOrder::InOrder).is_empty());
    }

    #[test]
    fn a_shuffle_is_a_permutation_fixed_by_its_seed() {
        let grid = [5, 3, 2];
        let mut sorted = order(grid, ProgramOrder::Shuffled { seed: 7 });
        assert_ne!(sorted, order(grid, ProgramOrder::InOrder), "seed 7 happens to keep the order");
        assert_eq!(sorted, order(grid, ProgramOrder::Shuffled { seed: 7 }));
        assert_ne!(sorted, order(grid, ProgramOrder::Shuffled { seed: 8 }));
        sorted.sort_by_key(|p| (p[2], p[1], p[0]));
        assert_eq!(sorted, order(grid, ProgramOrder::InOrder));
    }
}
