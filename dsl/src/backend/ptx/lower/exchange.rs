//! Moving elements between threads through shared memory (Triton's `convert_layout`):
//! every writer stores the elements it owns at their place in a shared array, `bar.sync`,
//! every reader loads the elements its layout gives it, `bar.sync` again (so the next
//! exchange or reduction may reuse the array; the same buffer at `smem` as the
//! reductions, sized by the largest user).
//!
//! A *place* maps an element to its index in the array, linear in the element's
//! coordinates (`offset + sum c_i * strides_i`), so each thread computes one base address
//! and every element is that base plus an immediate offset. A conversion between two
//! layouts of one shape writes and reads with the same strides; `permute`, `reshape`,
//! `join` and `split` (`layout_ops.rs`) pair different places on the two sides.
//!
//! Writers are only the owners of each element (the first copy where a layout replicates),
//! so no byte is written twice between barriers; readers may read an element from several
//! threads. Rows of a 2-D or higher array are padded by one element (`padded`), so a warp
//! reading down a column (a transpose) hits 32 different banks instead of one. A layout
//! conversion chooses its rows' padding (none, one element, or 16 bytes) by the bank
//! conflicts its two sides would meet (`bank_cost`), and moves 16-bit and 32-bit elements
//! 8 or 16 bytes at a time where a thread's elements sit in consecutive aligned slots (an
//! `mma` accumulator read as the blocked layout of its store: rows padded by 16 bytes,
//! pairs stored as words, rows read as vectors). `i1` travels as a 32-bit 0 or 1.

use super::{Lowerer, ty_of};
use crate::backend::ptx::PtxError;
use crate::backend::ptx::layout::remat::Recomputed;
use crate::backend::ptx::layout::{Layout, MAX_REGS_PER_VALUE};
use crate::backend::ptx::lir::{BinOp, Group, Guard, Inst, Operand, Reg, Ty};
use crate::diag::Code;
use crate::ir::{DType, Op, Value};

/// The most shared memory one exchange may hold: what a CTA may have on sm_86, the PTX
/// target (99 KiB; past 48 KiB the buffer is dynamic shared memory and the launch opts
/// in, `MAX_STATIC_SHARED_BYTES`). A launch on a device with less is refused by the
/// runtime with the kernel's shared-memory site.
pub const MAX_SHARED_BYTES: usize = 99 * 1024;

/// Where the elements of one side of an exchange go in the shared array: the element at
/// coordinates `c` is at index `offset + sum c_i * strides_i`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct Place {
    pub strides: Vec<usize>,
    pub offset: usize,
}

/// Row-major strides of `shape` and the array length they span.
pub(super) fn row_major(shape: &[usize]) -> (Vec<usize>, usize) {
    let mut s = vec![1; shape.len()];
    for d in (0..shape.len().saturating_sub(1)).rev() {
        s[d] = s[d + 1] * shape[d + 1];
    }
    (s, shape.iter().product())
}

/// Row-major strides with each row (the last dim) padded by one element when there are
/// rows to pad (rank >= 2, rows longer than 1): consecutive rows start in different banks.
pub(super) fn padded(shape: &[usize]) -> (Vec<usize>, usize) {
    if shape.len() < 2 || shape[shape.len() - 1] < 2 { row_major(shape) } else { padded_by(shape, 1) }
}

/// Row-major strides with each row (the last dim) padded by `pad` elements (row-major
/// below rank 2).
fn padded_by(shape: &[usize], pad: usize) -> (Vec<usize>, usize) {
    let r = shape.len();
    if r < 2 {
        return row_major(shape);
    }
    let mut s = vec![1; r];
    s[r - 2] = shape[r - 1] + pad;
    for d in (0..r - 2).rev() {
        s[d] = s[d + 1] * shape[d + 1];
    }
    (s.clone(), shape[0] * s[0])
}

/// The rows' paddings a conversion of a block of `shape` with `elem`-byte slots may take:
/// one element (the default), none, and 16 bytes where rows are whole 16-byte chunks (so
/// every row starts 16-byte aligned and vectors stay aligned).
fn paddings(shape: &[usize], elem: usize) -> Vec<usize> {
    let r = shape.len();
    if r < 2 || shape[r - 1] < 2 {
        return vec![0];
    }
    let mut out = vec![1, 0];
    if elem < 16 && (shape[r - 1] * elem).is_multiple_of(16) {
        out.push(16 / elem);
    }
    out
}

/// The runs a thread moves as one access: `(first register, bytes)`, 16, 8 or (a pair of
/// 16-bit elements) 4 bytes where consecutive elements have consecutive slots aligned to
/// that size (from a base that is a multiple of `align`), one element elsewhere.
fn vector_runs(offsets: &[u32], elem: usize, align: usize, vectors: bool) -> Vec<(usize, usize)> {
    let mut runs = Vec::new();
    let mut r = 0;
    while r < offsets.len() {
        let fits = |bytes: usize| {
            let m = bytes / elem;
            r + m <= offsets.len()
                && align.is_multiple_of(bytes)
                && (offsets[r] as usize).is_multiple_of(bytes)
                && (1..m).all(|j| offsets[r + j] == offsets[r] + (j * elem) as u32)
        };
        let bytes =
            if vectors && matches!(elem, 2 | 4) { [16, 8, 4].into_iter().find(|&b| b > elem && fits(b)) } else { None };
        let bytes = bytes.unwrap_or(elem);
        runs.push((r, bytes));
        r += bytes / elem;
    }
    runs
}

/// Shared-memory wavefronts of one warp access: the lanes' requests go in phases of 128
/// bytes (32 lanes of words, 16 of 8-byte, 8 of 16-byte vectors); a phase takes as many
/// wavefronts as the most distinct words one bank holds (lanes of one word share it).
fn wavefronts(lanes: &[Option<u32>], bytes: usize) -> usize {
    let words = bytes.div_ceil(4);
    let per_phase = (32 / words).max(1);
    lanes
        .chunks(per_phase)
        .map(|phase| {
            let mut banks: Vec<Vec<u32>> = vec![Vec::new(); 32];
            for addr in phase.iter().flatten() {
                for w in 0..words as u32 {
                    let word = addr / 4 + w;
                    let bank = &mut banks[(word % 32) as usize];
                    if !bank.contains(&word) {
                        bank.push(word);
                    }
                }
            }
            banks.iter().map(Vec::len).max().unwrap_or(0)
        })
        .sum()
}

/// One side of an exchange: a value's shape, the layout its elements are in (`None`: a
/// scalar, every thread holds it) and its place in the array.
pub(super) struct Side {
    pub shape: Vec<usize>,
    pub layout: Option<Layout>,
    pub place: Place,
}

/// Whether `convert_layout` can move a block of `shape` and `dtype` between layouts in
/// one exchange (its padded array within [`MAX_SHARED_BYTES`]).
pub(crate) fn fits_one_exchange(shape: &[usize], dtype: DType) -> bool {
    padded(shape).1 * shared_elem_bytes(ty_of(dtype)) <= MAX_SHARED_BYTES
}

/// The size of an element's slot in the shared array.
pub(super) fn shared_elem_bytes(ty: Ty) -> usize {
    shared_ty(ty).size_bytes() as usize
}

/// The shared-memory type of an element (predicates travel as 32-bit integers).
pub(super) fn shared_ty(ty: Ty) -> Ty {
    if ty == Ty::Pred { Ty::I32 } else { ty }
}

impl Lowerer<'_> {
    /// A `convert_layout` (`layout/stage.rs`) the stage did not replace by recomputing
    /// (`layout/remat.rs`): `v` moved through shared memory. Messages and decisions name
    /// the op the copy is for, which is what the author wrote.
    pub(super) fn convert_layout_op(&mut self, copy: &Op, v: Value) -> Result<(), PtxError> {
        let Some(&result) = copy.results.first() else { return Err(self.invariant(copy, "has no result")) };
        let Some(to) = self.layout(result).cloned() else {
            return Err(self.invariant(copy, format_args!("gives {result} no layout")));
        };
        let reader = self.readers.get(&result).map_or(copy, |&id| self.k.op(id));
        // A `dot` operand's fragments are read by the `dot` itself, k-step by k-step
        // (`layout/dot_operand.rs`): nothing moves here, unless the conversion was hoisted
        // before the `dot`'s loop, where it reads them all, once.
        if to.operand.is_some() {
            if self.hoisted.contains(&result) {
                let frags = self.staged_a_fragments(reader, v, &to.enc)?;
                self.hoisted_a.insert(self.result(reader)?, frags);
            }
            return Ok(());
        }
        let regs = to.geometry(self.k.shape(v).dims()).num_regs();
        if regs > MAX_REGS_PER_VALUE {
            return Err(PtxError::new(
                Code::PtxRegisterBudget,
                &self.k.name,
                reader.loc,
                format!(
                    "`{}` reads {} as {}, which needs {regs} registers per thread (the budget is {MAX_REGS_PER_VALUE} per value)",
                    reader.kind.name(),
                    self.value_origin(v),
                    to.describe()
                ),
                "use a smaller block or more warps",
            ));
        }
        let elems = self.convert_layout(reader, v, &to)?;
        self.define(copy, elems)
    }

    /// Where the stage recomputes a value in another layout (`layout/remat.rs`): a group
    /// saying so before the copied ops, and the decision `explain` prints.
    pub(super) fn say_recomputed(&mut self, r: &Recomputed) {
        let reader = self.k.op(r.reader);
        self.emit(Inst::Group(Group::at(
            format!("recompute {} ({}) as {} (no data movement)", r.value, self.k.ty(r.value), r.to.describe()),
            reader.loc,
        )));
        self.decisions.conversions.push(crate::backend::ptx::ConversionDecision {
            loc: reader.loc,
            through_shared_memory: false,
            reason: format!(
                "{} recomputed as {} for `{}` ({} ops)",
                self.value_origin(r.value),
                r.to.describe(),
                reader.kind.name(),
                r.copies.len()
            ),
        });
    }

    /// `v`'s elements in layout `to` (same shape), through shared memory.
    fn convert_layout(&mut self, op: &Op, v: Value, to: &Layout) -> Result<Vec<Operand>, PtxError> {
        let shape = self.k.shape(v).dims().to_vec();
        let from = self.layout(v).cloned();
        self.emit(Inst::Group(Group::at(
            format!(
                "convert {v} ({}) from {} to {} through shared memory",
                self.k.ty(v),
                from.as_ref().map_or("a scalar".into(), |l| l.describe()),
                to.describe()
            ),
            op.loc,
        )));
        let elem = shared_elem_bytes(ty_of(self.k.dtype(v)));
        // The padding whose writes and reads meet the fewest bank conflicts (the first, one
        // element, on a tie), within the exchange's budget.
        let (strides, len) = paddings(&shape, elem)
            .into_iter()
            .map(|pad| padded_by(&shape, pad))
            .filter(|(_, len)| len * elem <= MAX_SHARED_BYTES)
            .min_by_key(|(strides, _)| {
                let place = Place { strides: strides.clone(), offset: 0 };
                let write = Side { shape: shape.clone(), layout: from.clone(), place: place.clone() };
                let read = Side { shape: shape.clone(), layout: Some(to.clone()), place };
                bank_cost(&write, elem, true) + bank_cost(&read, elem, false)
            })
            .unwrap_or_else(|| padded(&shape));
        let place = Place { strides, offset: 0 };
        let write = Side { shape: shape.clone(), layout: from, place: place.clone() };
        let read = Side { shape, layout: Some(to.clone()), place };
        let elems = self.val(v)?;
        let mut out = self.exchange(op, self.k.dtype(v), len, vec![(write, elems)], vec![read], true)?;
        self.decisions.conversions.push(crate::backend::ptx::ConversionDecision {
            loc: op.loc,
            through_shared_memory: true,
            reason: format!("{} read as {} by `{}`", self.value_origin(v), to.describe(), op.kind.name()),
        });
        Ok(out.remove(0))
    }

    /// Writes each `(side, elements)`, synchronizes, reads each side of `reads`, and
    /// synchronizes again; returns the elements read, per read side. `len` is the array's
    /// length in elements. With `vectors`, 16-bit and 32-bit elements are written and read
    /// 4, 8 or 16 bytes at a time where a thread's slots allow ([`vector_runs`]).
    pub(super) fn exchange(
        &mut self,
        op: &Op,
        dtype: DType,
        len: usize,
        writes: Vec<(Side, Vec<Operand>)>,
        reads: Vec<Side>,
        vectors: bool,
    ) -> Result<Vec<Vec<Operand>>, PtxError> {
        self.stage_with(op, dtype, len, writes, vectors)?;
        let ty = ty_of(dtype);
        let sty = shared_ty(ty);
        let elem = shared_elem_bytes(ty);
        let mut out = Vec::with_capacity(reads.len());
        for side in reads {
            if let Some(g) = self.side_geometry(&side)
                && g.num_regs() > MAX_REGS_PER_VALUE
            {
                return Err(PtxError::new(
                    Code::PtxRegisterBudget,
                    &self.k.name,
                    op.loc,
                    format!(
                        "`{}` reads a block of {} elements in a layout that needs {} registers per thread (the budget is {MAX_REGS_PER_VALUE} per value)",
                        op.kind.name(),
                        side.shape.iter().product::<usize>(),
                        g.num_regs()
                    ),
                    "use a smaller block or more warps",
                ));
            }
            let (base, offsets) = self.addresses(&side, elem);
            let align = base_alignment(&side, elem);
            let mut elems = Vec::with_capacity(offsets.len());
            for (r, bytes) in vector_runs(&offsets, elem, align, vectors && ty != Ty::Pred) {
                if bytes == elem {
                    let dst = self.new_reg(sty);
                    self.emit(Inst::LdShared { ty: sty, dst, addr: base, offset: offsets[r] });
                    elems.push(if ty == Ty::Pred { self.cast(dst.into(), Ty::I32, Ty::Pred) } else { dst.into() });
                    continue;
                }
                // 32-bit elements are the vector's words; 16-bit ones come in pairs.
                let wty = if elem == 4 { sty } else { Ty::U32 };
                let words: Vec<Reg> = (0..bytes / 4).map(|_| self.new_reg(wty)).collect();
                if let [dst] = words[..] {
                    self.emit(Inst::LdShared { ty: wty, dst, addr: base, offset: offsets[r] });
                } else {
                    self.emit(Inst::LdSharedVec { ty: wty, dsts: words.clone(), addr: base, offset: offsets[r] });
                }
                for w in words {
                    if elem == 4 {
                        elems.push(w.into());
                    } else {
                        let (lo, hi) = (self.new_reg(sty), self.new_reg(sty));
                        self.emit(Inst::Unpack { lo, hi, src: w });
                        elems.extend([Operand::Reg(lo), Operand::Reg(hi)]);
                    }
                }
            }
            out.push(elems);
        }
        self.emit(Inst::BarSync { id: 0 });
        Ok(out)
    }

    /// The first half of [`Self::exchange`]: writes each `(side, elements)` (by the
    /// owners of each element, into an array of `len` elements) and synchronizes, so every
    /// thread may read any of them. The caller synchronizes again after its last read
    /// (`dot.rs` reads with addresses of its own).
    pub(super) fn stage(
        &mut self,
        op: &Op,
        dtype: DType,
        len: usize,
        writes: Vec<(Side, Vec<Operand>)>,
    ) -> Result<(), PtxError> {
        self.stage_with(op, dtype, len, writes, false)
    }

    /// [`Self::stage`], with `vectors`: a thread's consecutive 16-bit or 32-bit elements
    /// that land in consecutive, aligned slots are written 8 or 16 bytes at a time
    /// (`st.shared.v2`/`.v4`; 16-bit pairs packed into 32-bit words).
    pub(super) fn stage_with(
        &mut self,
        op: &Op,
        dtype: DType,
        len: usize,
        writes: Vec<(Side, Vec<Operand>)>,
        vectors: bool,
    ) -> Result<(), PtxError> {
        let ty = ty_of(dtype);
        let sty = shared_ty(ty);
        // One slot per element, of the element's own size (so dtypes added later, 2 or 8
        // bytes wide, keep their slots apart and aligned).
        let elem = shared_elem_bytes(ty);
        let bytes = len * elem;
        if bytes > MAX_SHARED_BYTES {
            return Err(PtxError::new(
                Code::PtxLayoutConflict,
                &self.k.name,
                op.loc,
                format!(
                    "`{}` moves {len} elements of {dtype} between threads through shared memory: {bytes} bytes, more than the {MAX_SHARED_BYTES} a CTA has on sm_86",
                    op.kind.name()
                ),
                "use smaller blocks here (the exchange holds the whole block), or keep each value in one role so no conversion is needed",
            ));
        }
        self.use_scratch(bytes as u32);
        for (side, elems) in writes {
            let (base, offsets) = self.addresses(&side, elem);
            let owner = match self.side_geometry(&side) {
                Some(g) => self.owner(&g, None),
                None => Some(self.scalar_owner()),
            };
            let guard = owner.map(|pred| Guard { pred, negate: false });
            if vectors && ty != Ty::Pred && matches!(sty.size_bytes(), 2 | 4) {
                let align = base_alignment(&side, elem);
                self.store_vectors(sty, guard, base, &offsets, &elems, align);
                continue;
            }
            for (x, off) in elems.into_iter().zip(offsets) {
                let x = if ty == Ty::Pred { self.cast(x, Ty::Pred, Ty::I32) } else { x };
                let src = self.reg(x, sty);
                self.emit(Inst::StShared { guard, ty: sty, src, addr: base, offset: off });
            }
        }
        self.emit(Inst::BarSync { id: 0 });
        Ok(())
    }

    /// `v` as its author knows it: its type and the op and line that made it (the IR name
    /// `%3` means nothing in a kernel's source).
    pub(super) fn value_origin(&self, v: Value) -> String {
        match self.k.def_op(v) {
            Some(d) => format!("the {} from `{}` at {}", self.k.ty(v), d.kind.name(), d.loc.short()),
            None => format!("the loop-carried {}", self.k.ty(v)),
        }
    }

    /// Writes `elems` (of the 16- or 32-bit type `sty`) at `base + offsets[i]`, 16 or 8
    /// bytes at a time where consecutive elements have consecutive, aligned slots, one
    /// at a time elsewhere.
    fn store_vectors(
        &mut self,
        sty: Ty,
        guard: Option<Guard>,
        base: Reg,
        offsets: &[u32],
        elems: &[Operand],
        align: usize,
    ) {
        let elem = sty.size_bytes() as usize;
        for (r, bytes) in vector_runs(offsets, elem, align, true) {
            self.st_shared_run(guard, sty, &elems[r..r + bytes / elem], base, offsets[r]);
        }
    }

    /// Writes `elems` (of the 16- or 32-bit type `sty`, consecutive in shared memory from
    /// `addr + offset`, which is aligned to their bytes) as one access: 32-bit elements as
    /// the vector's words, 16-bit ones packed in pairs (one element alone as it is).
    pub(super) fn st_shared_run(&mut self, guard: Option<Guard>, sty: Ty, elems: &[Operand], addr: Reg, offset: u32) {
        let (ty, srcs): (Ty, Vec<Reg>) = if sty.size_bytes() == 2 && elems.len() > 1 {
            let words = elems
                .chunks(2)
                .map(|pair| {
                    let (lo, hi) = (self.reg(pair[0], sty), self.reg(pair[1], sty));
                    let dst = self.new_reg(Ty::U32);
                    self.emit(Inst::Pack { dst, lo, hi });
                    dst
                })
                .collect();
            (Ty::U32, words)
        } else {
            (sty, elems.iter().map(|&x| self.reg(x, sty)).collect())
        };
        if let [src] = srcs[..] {
            self.emit(Inst::StShared { guard, ty, src, addr, offset });
        } else {
            self.emit(Inst::StSharedVec { guard, ty, srcs, addr, offset });
        }
    }

    fn side_geometry(&self, side: &Side) -> Option<crate::backend::ptx::layout::Geometry> {
        side.layout.as_ref().map(|l| l.geometry(&side.shape))
    }

    /// The thread's base address for `side` (a register) and each element's byte offset
    /// from it, in the element order of the side's layout.
    pub(super) fn addresses(&mut self, side: &Side, elem: usize) -> (crate::backend::ptx::lir::Reg, Vec<u32>) {
        let smem = self.smem_base();
        let Some(layout) = &side.layout else {
            return (smem, vec![(side.place.offset * elem) as u32]);
        };
        let geo = layout.geometry(&side.shape);
        // base = smem + sum (thread's first coordinate along dim i) * stride_i, in bytes.
        let mut base = Operand::Reg(smem);
        let mut fixed = side.place.offset;
        for (i, &d) in layout.embed.iter().enumerate() {
            let step = side.place.strides[i] * elem;
            // A dim the place does not move along (`dot.rs` reads a row of `a` for every
            // column of the result) adds nothing.
            if step == 0 {
                continue;
            }
            match self.coord_base(&geo, d) {
                Operand::Int(c) => fixed += c as usize * side.place.strides[i],
                c => {
                    let scaled = self.bin(BinOp::Mul, Ty::I32, c, Operand::Int(step as i64));
                    base = self.bin(BinOp::Add, Ty::I32, base, scaled);
                }
            }
        }
        let base = self.reg(base, Ty::I32);
        (base, element_offsets(side, &geo, fixed, elem))
    }
}

/// What the thread's base address of `side` (see [`Lowerer::addresses`]) is a multiple
/// of, in bytes (at most 16, the shared buffer's alignment): each dim split over threads
/// adds a multiple of its chunk times its stride.
fn base_alignment(side: &Side, elem: usize) -> usize {
    let Some(layout) = &side.layout else { return 16 };
    let geo = layout.geometry(&side.shape);
    let mut align = 16usize;
    for (i, &d) in layout.embed.iter().enumerate() {
        let step = side.place.strides[i] * elem;
        if step == 0 || geo.distinct_threads(d) <= 1 {
            continue;
        }
        align = gcd(align, geo.chunk[d] * step);
    }
    align
}

/// The wavefronts warp 0's accesses to `side` take (writes: only the owners of each
/// element, as [`Lowerer::stage_with`] guards them), with vectors as the exchange moves
/// them: the cost a padding is chosen by.
fn bank_cost(side: &Side, elem: usize, write: bool) -> usize {
    let Some(layout) = &side.layout else { return 1 };
    let geo = layout.geometry(&side.shape);
    let enc = &geo.enc;
    // Lane `l`'s first coordinate along each parent dim (warp 0), or `None` where a
    // writer does not own its elements.
    let lane_base = |l: usize| -> Option<usize> {
        let mut at = 0;
        for (i, &d) in layout.embed.iter().enumerate() {
            let t = (l >> enc.lane_shift(d)) & (enc.threads_per_warp[d] - 1);
            let distinct = geo.distinct_threads(d);
            if write && t >= distinct {
                return None;
            }
            at += (t % distinct) * geo.chunk[d] * side.place.strides[i];
        }
        Some(at * elem)
    };
    let bases: Vec<Option<usize>> = (0..32).map(lane_base).collect();
    let offsets = element_offsets(side, &geo, side.place.offset, elem);
    let align = base_alignment(side, elem);
    vector_runs(&offsets, elem, align, true)
        .into_iter()
        .map(|(r, bytes)| {
            let lanes: Vec<Option<u32>> = bases.iter().map(|b| b.map(|b| b as u32 + offsets[r])).collect();
            wavefronts(&lanes, bytes)
        })
        .sum()
}

/// Each element's byte offset from its thread's first element (`fixed`: the part of that
/// first element's index that is the same for every thread), in the element order of
/// `side`'s layout, whose geometry is `geo`.
fn element_offsets(side: &Side, geo: &crate::backend::ptx::layout::Geometry, fixed: usize, elem: usize) -> Vec<u32> {
    let embed = side.layout.as_ref().map_or(&[][..], |l| &l.embed[..]);
    (0..geo.num_regs())
        .map(|r| {
            let k = geo.multi(r);
            let within: usize = embed
                .iter()
                .enumerate()
                .map(|(i, &d)| (geo.static_offset(d, k[d]) % geo.parent[d]) * side.place.strides[i])
                .sum();
            ((fixed + within) * elem) as u32
        })
        .collect()
}

fn gcd(a: usize, b: usize) -> usize {
    if b == 0 { a } else { gcd(b, a % b) }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wavefronts_count_the_words_one_bank_holds() {
        let words = |stride: u32| (0..32).map(|l| Some(l * stride)).collect::<Vec<_>>();
        assert_eq!(wavefronts(&words(4), 4), 1, "consecutive words");
        assert_eq!(wavefronts(&words(0), 4), 1, "one word, broadcast");
        assert_eq!(wavefronts(&words(128), 4), 32, "one bank, 32 words");
        assert_eq!(wavefronts(&words(132), 4), 1, "rows padded by one word");
        assert_eq!(wavefronts(&words(136), 4), 2, "by two words: lanes 16 apart share a bank");
        assert_eq!(wavefronts(&words(16), 16), 4, "16-byte vectors: four phases of 8 lanes");
        assert_eq!(wavefronts(&words(2), 2), 1, "16-bit pairs share words");
    }

    /// The accumulator of `mma.sync` stored through shared memory as a row-major blocked
    /// tile (the matmul's epilogue): 16-byte row padding makes the pairs' word stores and
    /// the rows' 16-byte reads conflict-free; one element of padding leaves the stores
    /// 16-bit and conflicting.
    #[test]
    fn the_accumulator_conversion_pads_rows_by_16_bytes() {
        use crate::backend::ptx::layout::{Blocked, Layout};
        use std::sync::Arc;
        let shape = [128, 128];
        let mma = Layout::new(Arc::new(Blocked::mma([2, 2])), vec![0, 1]);
        let blocked = Layout::new(Arc::new(Blocked::row_major(&shape, 8, 4)), vec![0, 1]);
        let cost = |pad: usize| {
            let (strides, _) = padded_by(&shape, pad);
            let place = Place { strides, offset: 0 };
            let w = Side { shape: shape.to_vec(), layout: Some(mma.clone()), place: place.clone() };
            let r = Side { shape: shape.to_vec(), layout: Some(blocked.clone()), place };
            (bank_cost(&w, 2, true), bank_cost(&r, 2, false))
        };
        assert_eq!(paddings(&shape, 2), [1, 0, 8]);
        // 64 pair stores and 16 row vectors a thread (4 wavefronts each), no conflicts.
        assert_eq!(cost(8), (64, 16 * 4));
        let (w1, _) = cost(1);
        let (w0, _) = cost(0);
        assert!(w1 > 64 && w0 > 64, "{w1} {w0}");
    }

    #[test]
    fn rows_are_padded_by_one_element_from_rank_two() {
        assert_eq!(row_major(&[4, 8]), (vec![8, 1], 32));
        assert_eq!(padded(&[4, 8]), (vec![9, 1], 36));
        assert_eq!(padded(&[2, 4, 8]), (vec![36, 9, 1], 72));
        assert_eq!(padded(&[64]), (vec![1], 64));
        assert_eq!(padded(&[8, 1]), (vec![1, 1], 8));
    }
}
