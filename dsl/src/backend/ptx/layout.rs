//! Layouts: which thread owns which element of a block tensor.
//!
//! # Blocked layout
//! A [`Blocked`] layout of rank `R` (Triton's `#blocked`) tiles a shape with
//! `sizePerThread x threadsPerWarp x warpsPerCTA` along every dim; `order` lists the dims
//! from fastest to slowest (row-major blocks: `[R-1, ..., 0]`; `coalesce.rs` puts first
//! the dim the loads are contiguous along). Lane and warp indices are
//! split over the dims in that order: the lowest lane bits go to `order[0]`, so
//! consecutive lanes own consecutive chunks of `sizePerThread` elements along the
//! contiguous axis (coalesced accesses; vector loads of `sizePerThread` elements).
//!
//! For a block of shape `P` (rank `R`), per dim `d`:
//! - the thread's chunk `s_d = min(spt_d, P_d)`, its position
//!   `t_d = warp_d * tpw_d + lane_d` in `0..T_d` with `T_d = tpw_d * wpc_d`;
//! - the CTA tile `tile_d = s_d * T_d` and `reps_d = max(1, P_d / tile_d)`;
//! - the thread holds `regs_d = s_d * reps_d` elements along `d`: register `k_d`
//!   (`k_d = rep * s_d + j`) holds coordinate `(rep * tile_d + t_d * s_d + j) mod P_d`.
//!
//! When `P_d < tile_d` the `mod` wraps: threads `t_d` and `t_d + P_d / s_d` hold the same
//! elements (*replication*, a block smaller than the CTA). The *owner* of an element is
//! its first copy (`t_d < P_d / s_d` in every replicated dim); stores are guarded so only
//! owners write.
//!
//! A thread's element list is the product of its registers over all dims, `order[0]`
//! varying fastest: its `s` consecutive elements along the contiguous dim are
//! consecutive registers, which is what a vector access loads.
//!
//! # Slice layouts
//! A value of rank `r < R` (a 1-D block that `expand_dims` turns into a row or column of
//! a 2-D one, or the result of a reduction) uses the kernel's blocked layout with an
//! *embedding*: its dim `i` is parent dim `embed[i]`, and the other parent dims have size 1
//! (Triton's `#slice<dim, parent>`). A thread then owns the elements the parent layout
//! gives it in a block with those dims of size 1, so `expand_dims` and `broadcast` move
//! no data between threads. Scalars have no layout: every thread holds the value.
//!
//! An embedding need not be increasing: `embed = [1, 0]` is a 2-D value whose dim 0 runs
//! along the parent's dim 1 (the result of `trans`, or a block shaped like the anchor
//! transposed, which the identity would spread over too few threads).
//!
//! One blocked layout per kernel (from its largest block, the "anchor", with the order
//! and `sizePerThread` `coalesce.rs` chooses); every value's
//! embedding follows from the ops that connect it to others, and where two uses disagree
//! one of them reads a converted copy ([`assign`], `assign.rs`; the conversion itself is in
//! `lower/convert.rs`).

mod assign;
pub(crate) mod dot_operand;
mod mma;
pub(crate) mod operand_reads;
pub(crate) mod remat;
pub(crate) mod stage;

use std::fmt;
use std::sync::Arc;

pub use assign::{Assignment, assign};
pub use mma::{
    MMA_TILE, MmaInput, WARPGROUP_ROWS, WARPGROUP_WARPS, chained_warps, mma_encodings, mma_warps, wgmma_warps,
};
pub(crate) use mma::{dot_input, tensor_core_input, transposed_operand};

/// Registers per thread one block value may take (the register budget).
pub const MAX_REGS_PER_VALUE: usize = 128;

/// Triton's `BlockedEncodingAttr`.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Blocked {
    pub size_per_thread: Vec<usize>,
    pub threads_per_warp: Vec<usize>,
    pub warps_per_cta: Vec<usize>,
    /// Dims from fastest to slowest.
    pub order: Vec<usize>,
}

impl Blocked {
    /// The layout for an `anchor` block whose dims go from fastest to slowest in `order`,
    /// with `fast_spt` elements per thread along `order[0]` and `num_warps` warps, Triton's
    /// `BlockedEncodingAttr::get` rule: lanes then warps fill the dims in order, as far as
    /// the shape goes, and what is left goes to the slowest dim (replication). Which order
    /// and how many per thread is `coalesce.rs`'s choice.
    pub fn new(anchor: &[usize], order: Vec<usize>, fast_spt: usize, num_warps: usize) -> Blocked {
        let rank = anchor.len().max(1);
        let anchor: Vec<usize> = if anchor.is_empty() { vec![1] } else { anchor.to_vec() };
        debug_assert!(order.len() == rank && (0..rank).all(|d| order.contains(&d)), "order is a permutation");
        let mut spt = vec![1; rank];
        spt[order[0]] = fast_spt.clamp(1, anchor[order[0]]);
        let mut tpw = vec![1; rank];
        let mut wpc = vec![1; rank];
        let (mut lanes, mut warps) = (32usize, num_warps);
        for &d in &order {
            let mut max_threads = (anchor[d] / spt[d]).max(1);
            tpw[d] = lanes.min(max_threads);
            max_threads = (max_threads / tpw[d]).max(1);
            wpc[d] = warps.min(max_threads);
            lanes /= tpw[d];
            warps /= wpc[d];
        }
        let slowest = order[rank - 1];
        tpw[slowest] *= lanes;
        wpc[slowest] *= warps;
        Blocked { size_per_thread: spt, threads_per_warp: tpw, warps_per_cta: wpc, order }
    }

    /// [`Blocked::new`] with the default order, the last dim fastest (row-major blocks).
    pub fn row_major(anchor: &[usize], fast_spt: usize, num_warps: usize) -> Blocked {
        Blocked::new(anchor, (0..anchor.len().max(1)).rev().collect(), fast_spt, num_warps)
    }

    pub fn rank(&self) -> usize {
        self.order.len()
    }

    /// The accumulator layout of `mma.sync.m16n8k*` (PTX ISA, "Matrix Fragments for
    /// mma.m16n8k16"): in each 16x8 tile of the result, lane `l` holds row `l / 4` and
    /// row `l / 4 + 8`, columns `2 (l % 4)` and `2 (l % 4) + 1`. As a blocked layout that is
    /// two elements a thread along N, lanes 8 x 4, and `warps = [wm, wn]`: a thread's rows
    /// `j * 8 wm + 8 w_m + l / 4` pair up as the two halves of one 16-row tile (registers
    /// `2i` and `2i + 1` along M) and its columns `j * 8 wn + 8 w_n + 2 (l % 4) + {0, 1}`
    /// are one 8-column tile. Which rows form a tile does not matter to the hardware: the
    /// operand fragments are read for the same rows and columns (`lower/mma.rs`).
    pub fn mma(warps: [usize; 2]) -> Blocked {
        Blocked {
            size_per_thread: vec![1, 2],
            threads_per_warp: vec![8, 4],
            warps_per_cta: warps.to_vec(),
            order: vec![1, 0],
        }
    }

    /// Whether this is a [`Blocked::mma`] layout.
    pub fn is_mma(&self) -> bool {
        self.size_per_thread == [1, 2] && self.threads_per_warp == [8, 4] && self.order == [1, 0]
    }

    fn position(&self, d: usize) -> usize {
        self.order.iter().position(|&x| x == d).expect("dim in order")
    }

    /// log2 of the lane stride of dim `d`: lane bits `[shift, shift + log2 tpw_d)` are `d`'s.
    pub fn lane_shift(&self, d: usize) -> u32 {
        self.order[..self.position(d)].iter().map(|&x| self.threads_per_warp[x]).product::<usize>().trailing_zeros()
    }

    /// log2 of the warp stride of dim `d`.
    pub fn warp_shift(&self, d: usize) -> u32 {
        self.order[..self.position(d)].iter().map(|&x| self.warps_per_cta[x]).product::<usize>().trailing_zeros()
    }

    /// Thread positions along `d` (`tpw_d * wpc_d`).
    pub fn threads_along(&self, d: usize) -> usize {
        self.threads_per_warp[d] * self.warps_per_cta[d]
    }
}

impl fmt::Display for Blocked {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "blocked{{spt={:?}, tpw={:?}, wpc={:?}, order={:?}}}",
            self.size_per_thread, self.threads_per_warp, self.warps_per_cta, self.order
        )
    }
}

/// The geometry of one block shape under a blocked layout (see the module doc).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Geometry {
    /// The block's shape in the parent's rank (embedded dims; others 1).
    pub parent: Vec<usize>,
    /// `s_d`: consecutive elements of a thread's chunk.
    pub chunk: Vec<usize>,
    pub tile: Vec<usize>,
    pub reps: Vec<usize>,
    /// `regs_d = s_d * reps_d`.
    pub regs: Vec<usize>,
    pub order: Vec<usize>,
    /// The encoding the geometry is of.
    pub enc: Arc<Blocked>,
}

impl Geometry {
    pub fn new(enc: &Arc<Blocked>, parent: Vec<usize>) -> Geometry {
        let r = enc.rank();
        let chunk: Vec<usize> = (0..r).map(|d| enc.size_per_thread[d].min(parent[d])).collect();
        let tile: Vec<usize> = (0..r).map(|d| chunk[d] * enc.threads_along(d)).collect();
        let reps: Vec<usize> = (0..r).map(|d| (parent[d] / tile[d]).max(1)).collect();
        let regs = (0..r).map(|d| chunk[d] * reps[d]).collect();
        Geometry { parent, chunk, tile, reps, regs, order: enc.order.clone(), enc: enc.clone() }
    }

    pub fn num_regs(&self) -> usize {
        self.regs.iter().product()
    }

    /// Whether threads along `d` hold copies of each other's elements.
    pub fn replicated(&self, d: usize) -> bool {
        self.parent[d] < self.tile[d]
    }

    /// Distinct thread positions along `d`: `P_d / s_d` when replicated, else all.
    pub fn distinct_threads(&self, d: usize) -> usize {
        if self.replicated(d) { self.parent[d] / self.chunk[d] } else { self.enc.threads_along(d) }
    }

    /// The per-dim register indices of register number `i` of the element list.
    pub fn multi(&self, mut i: usize) -> Vec<usize> {
        let mut k = vec![0; self.parent.len()];
        for &d in &self.order {
            k[d] = i % self.regs[d];
            i /= self.regs[d];
        }
        k
    }

    /// The element-list index of per-dim register indices `k`.
    pub fn index(&self, k: &[usize]) -> usize {
        let mut i = 0;
        for &d in self.order.iter().rev() {
            i = i * self.regs[d] + k[d];
        }
        i
    }

    /// `rep * tile_d + j` of register index `k_d`: the coordinate minus the thread's part.
    pub fn static_offset(&self, d: usize, k_d: usize) -> usize {
        (k_d / self.chunk[d]) * self.tile[d] + k_d % self.chunk[d]
    }
}

/// A value's layout: a blocked encoding (the kernel's, or the `dot` accumulator's,
/// [`Blocked::mma`]) and where the value's dims sit in it; or, for the operand of a
/// tensor-core `dot`, that operand's fragments of the accumulator layout `enc`
/// ([`DotOperand`]).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Layout {
    pub enc: Arc<Blocked>,
    /// `embed[i]`: the parent dim of the value's dim `i` (strictly increasing).
    pub embed: Vec<usize>,
    /// `Some` for a `dot` operand's layout (`layout/dot_operand.rs`): `enc` is then the
    /// `dot`'s accumulator layout, the operand's parent, not where its elements are.
    pub operand: Option<DotOperand>,
}

/// Triton's `#dot_op<{opIdx, parent, kWidth}>`: the registers of a tensor-core `dot`'s
/// `a` (`index` 0) or `b` (1) as its instruction reads them, in the fragment tables of the
/// PTX ISA for the parent accumulator layout; `k_width` elements along K share one 32-bit
/// register (2 for 16-bit inputs, 1 for tf32, 4 for `i8`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct DotOperand {
    pub index: u8,
    pub k_width: u8,
}

impl Layout {
    /// A blocked (or `mma`) layout with `embed`.
    pub fn new(enc: Arc<Blocked>, embed: Vec<usize>) -> Layout {
        Layout { enc, embed, operand: None }
    }

    /// Elements a thread holds of a `shape` value in this layout. A `dot` operand's
    /// fragments: each warp holds its rows of `a` (its columns of `b`) along all of K,
    /// so `M K / (32 wm)` (`K N / (32 wn)`), though the lowering reads them a k-step at a
    /// time.
    pub fn elements_per_thread(&self, shape: &[usize]) -> usize {
        match self.operand {
            Some(o) => {
                let along = self.enc.warps_per_cta[usize::from(o.index)];
                shape.iter().product::<usize>() / (32 * along)
            }
            None => self.geometry(shape).num_regs(),
        }
    }

    /// The geometry of a `shape` value in this blocked layout (a `dot` operand's layout
    /// has none: its fragments are the instruction's, `lower/mma.rs`).
    pub fn geometry(&self, shape: &[usize]) -> Geometry {
        let mut parent = vec![1; self.enc.rank()];
        for (i, &d) in self.embed.iter().enumerate() {
            parent[d] = shape[i];
        }
        Geometry::new(&self.enc, parent)
    }

    /// `blocked` (or `mma`) for a full-rank value, `slice{dims=[..]}` for an embedded one,
    /// and the embedding itself when it is not increasing (a transposed slice).
    pub fn describe(&self) -> String {
        let enc = &self.enc;
        let name = if enc.is_mma() { "#mma" } else { "#blocked" };
        if let Some(o) = self.operand {
            return format!("#dot_op<opIdx={}, parent={name}, kWidth={}>", o.index, o.k_width);
        }
        let base = if self.embed.len() == enc.rank() {
            name.to_string()
        } else {
            let sliced: Vec<usize> = (0..enc.rank()).filter(|d| !self.embed.contains(d)).collect();
            format!("#slice<dims={sliced:?}, {name}>")
        };
        if self.embed.windows(2).all(|w| w[0] < w[1]) { base } else { format!("{base} along dims {:?}", self.embed) }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row_major(anchor: &[usize], spt: usize, warps: usize) -> Arc<Blocked> {
        Arc::new(Blocked::row_major(anchor, spt, warps))
    }

    fn check(anchor: &[usize], spt: usize, warps: usize, want: &str) {
        assert_eq!(Blocked::row_major(anchor, spt, warps).to_string(), want, "{anchor:?} spt {spt} warps {warps}");
    }

    #[test]
    fn default_blocked_layouts() {
        check(&[1024], 4, 4, "blocked{spt=[4], tpw=[32], wpc=[4], order=[0]}");
        check(&[1024], 1, 4, "blocked{spt=[1], tpw=[32], wpc=[4], order=[0]}");
        // Smaller than the CTA: what is left of lanes and warps replicates.
        check(&[16], 1, 4, "blocked{spt=[1], tpw=[32], wpc=[4], order=[0]}");
        check(&[16, 64], 4, 4, "blocked{spt=[1, 4], tpw=[2, 16], wpc=[4, 1], order=[1, 0]}");
        check(&[16, 64], 1, 4, "blocked{spt=[1, 1], tpw=[1, 32], wpc=[2, 2], order=[1, 0]}");
        check(&[4, 8], 1, 1, "blocked{spt=[1, 1], tpw=[4, 8], wpc=[1, 1], order=[1, 0]}");
    }

    #[test]
    fn geometry_of_replicated_and_repeated_blocks() {
        let enc = row_major(&[1024], 4, 4);
        let g = Geometry::new(&enc, vec![1024]);
        assert_eq!((g.chunk[0], g.tile[0], g.reps[0], g.num_regs()), (4, 512, 2, 8));
        assert!(!g.replicated(0));
        // Register 5 = second repetition, element 1: coordinate 512 + 4 t + 1.
        assert_eq!(g.static_offset(0, 5), 513);
        let small = Geometry::new(&enc, vec![16]);
        assert_eq!((small.chunk[0], small.num_regs(), small.distinct_threads(0)), (4, 4, 4));
        assert!(small.replicated(0));
    }

    #[test]
    fn register_order_is_fastest_dim_first() {
        let enc = row_major(&[16, 64], 4, 4);
        let g = Geometry::new(&enc, vec![16, 64]);
        assert_eq!(g.regs, vec![2, 4]);
        assert_eq!(g.multi(5), vec![1, 1]);
        assert_eq!(g.index(&[1, 1]), 5);
    }
}
