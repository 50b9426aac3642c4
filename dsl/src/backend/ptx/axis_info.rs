//! AxisInfo: what the compiler can prove about the integer and pointer values of a block,
//! per axis (Triton's `lib/Analysis/AxisInfo.cpp`, simplified to the ops rtriton has).
//!
//! For each dim `d` of a value:
//! - **contiguity** `c`: along `d` the values come in runs of `c` consecutive integers
//!   (`x, x+1, ..., x+c-1`; for pointers, consecutive elements), runs starting at
//!   indices that are multiples of `c`;
//! - **divisibility** `v`: the first value of every run is a multiple of `v` (pointers:
//!   the byte address is); for `c = 1` that is every value;
//! - **constancy** `k`: along `d` the values come in runs of `k` equal values.
//!
//! Scalars are treated as blocks of shape `[1]`. All three are powers of two. A fourth,
//! per value, is whether every element is **non-negative** ([`non_negative`]), which the
//! remainder's contiguity needs. The facts
//! come from the specialization ([`crate::spec::ArgSpec::Divisible16`] gives divisibility
//! 16, an argument folded to 1 is the constant 1), from `arange` (contiguous), constants
//! and the author's promises (`multiple_of`, `max_contiguous`, `max_constancy`, `assume`),
//! and flow through the rules below. The vector width of a load or store is
//! decided from them in [`super::vectorize`].

use std::collections::HashMap;

use crate::ir::{BinaryOp, Block, CmpPred, Constant, DType, HintKind, Kernel, OpId, OpKind, Value};
use crate::spec::ArgSpec;

/// Triton's `kMaxDivisor`: the divisibility of the constant 0.
pub const MAX_DIVISOR: u64 = 1 << 62;

/// The facts about one value.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AxisInfo {
    pub contiguity: Vec<u64>,
    pub divisibility: Vec<u64>,
    pub constancy: Vec<u64>,
    /// The value every element has, when known (ints only).
    pub constant: Option<i64>,
}

impl AxisInfo {
    /// Nothing known about a block of `shape` (scalars: `[1]`).
    pub fn unknown(shape: &[usize]) -> AxisInfo {
        let n = shape.len().max(1);
        AxisInfo { contiguity: vec![1; n], divisibility: vec![1; n], constancy: vec![1; n], constant: None }
    }

    /// Every element equal, each a multiple of `div`.
    fn uniform(shape: &[usize], div: u64, constant: Option<i64>) -> AxisInfo {
        let dims = dims_of(shape);
        AxisInfo {
            contiguity: vec![1; dims.len()],
            divisibility: vec![div; dims.len()],
            constancy: dims.iter().map(|&d| d as u64).collect(),
            constant,
        }
    }
}

fn dims_of(shape: &[usize]) -> Vec<usize> {
    if shape.is_empty() { vec![1] } else { shape.to_vec() }
}

fn gcd(a: u64, b: u64) -> u64 {
    if b == 0 { a } else { gcd(b, a % b) }
}

/// The largest power of two dividing `v` (`MAX_DIVISOR` for 0).
pub fn pow2_divisor(v: i64) -> u64 {
    if v == 0 { MAX_DIVISOR } else { (1u64 << v.trailing_zeros()).min(MAX_DIVISOR) }
}

fn mul_div(a: u64, b: u64) -> u64 {
    a.saturating_mul(b).min(MAX_DIVISOR)
}

/// AxisInfo of every value of a kernel, indexed by value id.
#[derive(Clone, Debug)]
pub struct AxisInfoMap {
    pub infos: Vec<AxisInfo>,
}

impl AxisInfoMap {
    pub fn get(&self, v: Value) -> &AxisInfo {
        &self.infos[v.index()]
    }

    /// Runs the analysis over every op in program order. A `for` loop's carried values
    /// hold, at every iteration, either their initial value or a value the body yielded,
    /// so their facts are the meet of both: the analysis starts from the initial values'
    /// facts and reruns until no carried value's facts shrink (each rerun only lowers
    /// powers of two, so it ends; past `MAX_ROUNDS` the carried values are unknown).
    /// `while` loops' carried values and `if` results stay unknown.
    pub fn compute(k: &Kernel) -> AxisInfoMap {
        const MAX_ROUNDS: usize = 16;
        let nonneg = non_negative(k);
        let mut carried: HashMap<Value, AxisInfo> = HashMap::new();
        for _ in 0..MAX_ROUNDS {
            let infos = pass(k, &nonneg, &carried);
            let mut changed = false;
            for id in k.walk() {
                let OpKind::For { init, body, .. } = &k.op(id).kind else { continue };
                let Some(yields) = k.yielded(body) else { continue };
                for (i, (v, y)) in init.iter().zip(yields).enumerate() {
                    let arg = body.args[i + 1];
                    let now = carried.get(&arg).unwrap_or(&infos[v.index()]);
                    let next = meet(&meet(now, &infos[v.index()]), &infos[y.index()]);
                    if carried.get(&arg) != Some(&next) {
                        changed = true;
                        carried.insert(arg, next);
                    }
                }
            }
            if !changed {
                return AxisInfoMap { infos };
            }
        }
        let unknown = carried.keys().map(|&a| (a, AxisInfo::unknown(k.shape(a).dims()))).collect();
        AxisInfoMap { infos: pass(k, &nonneg, &unknown) }
    }
}

/// What holds of both `a` and `b` (a value that is one or the other).
fn meet(a: &AxisInfo, b: &AxisInfo) -> AxisInfo {
    let g = |x: &[u64], y: &[u64]| x.iter().zip(y).map(|(p, q)| gcd(*p, *q)).collect();
    AxisInfo {
        contiguity: g(&a.contiguity, &b.contiguity),
        divisibility: g(&a.divisibility, &b.divisibility),
        constancy: g(&a.constancy, &b.constancy),
        constant: if a.constant == b.constant { a.constant } else { None },
    }
}

/// One pass over the ops in program order, a loop's carried values (its body's arguments
/// and its results) taking their facts from `carried`, or from their initial values where
/// `carried` has none (the first pass).
fn pass(k: &Kernel, nonneg: &[bool], carried: &HashMap<Value, AxisInfo>) -> Vec<AxisInfo> {
    {
        let mut infos: Vec<AxisInfo> = k.values.iter().map(|v| AxisInfo::unknown(v.ty.shape.dims())).collect();
        for id in k.walk() {
            let op = k.op(id);
            // The induction variable first: a loop without carried values has no results,
            // and its body still indexes with the variable.
            if let OpKind::For { lower, step, body, init, .. } = &op.kind {
                // lower, lower + step, ... (scalar).
                let div = gcd(infos[lower.index()].divisibility[0], infos[step.index()].divisibility[0]);
                infos[body.args[0].index()] = AxisInfo::uniform(&[], div, None);
                for (i, v) in init.iter().enumerate() {
                    let arg = body.args[i + 1];
                    let facts = carried.get(&arg).cloned().unwrap_or_else(|| infos[v.index()].clone());
                    if let Some(r) = op.results.get(i) {
                        infos[r.index()] = facts.clone();
                    }
                    infos[arg.index()] = facts;
                }
                continue;
            }
            let Some(&res) = op.results.first() else { continue };
            let shape = k.shape(res).dims().to_vec();
            let get = |v: Value, infos: &Vec<AxisInfo>| infos[v.index()].clone();
            let info = match &op.kind {
                OpKind::Param { index } => {
                    let spec = k.spec.args.get(*index).map_or(ArgSpec::Plain, |a| a.2);
                    // Only the divisibility hint says anything about a runtime argument.
                    let div = if matches!(spec, ArgSpec::Divisible16) { crate::spec::HINT_DIVISIBILITY } else { 1 };
                    AxisInfo::uniform(&shape, div, None)
                }
                OpKind::Constant { value: Constant::Int(v) } => AxisInfo::uniform(&shape, pow2_divisor(*v), Some(*v)),
                OpKind::Constant { value: Constant::Bool(b) } => AxisInfo::uniform(&shape, 1, Some(i64::from(*b))),
                OpKind::Constant { value: Constant::F32(_) | Constant::F64(_) } => AxisInfo::uniform(&shape, 1, None),
                OpKind::ProgramId { .. } | OpKind::NumPrograms { .. } => AxisInfo::uniform(&shape, 1, None),
                OpKind::Arange { start, end } => AxisInfo {
                    contiguity: vec![(end - start) as u64],
                    divisibility: vec![pow2_divisor(*start)],
                    constancy: vec![1],
                    constant: None,
                },
                OpKind::Splat { value: v } => {
                    let s = get(*v, &infos);
                    AxisInfo::uniform(&shape, s.divisibility[0], s.constant)
                }
                OpKind::Broadcast { value: v } => {
                    let s = get(*v, &infos);
                    let from = k.shape(*v).dims().to_vec();
                    let mut out = s.clone();
                    for d in 0..shape.len() {
                        if from[d] == 1 && shape[d] > 1 {
                            out.contiguity[d] = 1;
                            out.constancy[d] = shape[d] as u64;
                        }
                    }
                    out
                }
                OpKind::ExpandDims { value, axis } => {
                    let s = get(*value, &infos);
                    let operand_rank = k.shape(*value).rank();
                    // Along the new dim of size 1 every element is its own run: its
                    // divisibility is that of every element of the operand.
                    let every = if operand_rank == 0 || s.contiguity.iter().all(|&c| c == 1) {
                        s.divisibility.iter().copied().min().unwrap_or(1)
                    } else {
                        1
                    };
                    let mut out = if operand_rank == 0 { AxisInfo::unknown(&[]) } else { s.clone() };
                    if operand_rank == 0 {
                        out.divisibility[0] = every;
                    } else {
                        out.contiguity.insert(*axis, 1);
                        out.divisibility.insert(*axis, every);
                        out.constancy.insert(*axis, 1);
                    }
                    out
                }
                // A value held in another layout keeps its facts.
                OpKind::ConvertLayout { value } => get(*value, &infos),
                // A permutation moves each dim's facts with the dim.
                OpKind::Permute { value, dims } => {
                    let s = get(*value, &infos);
                    let pick = |v: &Vec<u64>| dims.iter().map(|&d| v[d]).collect();
                    AxisInfo {
                        contiguity: pick(&s.contiguity),
                        divisibility: pick(&s.divisibility),
                        constancy: pick(&s.constancy),
                        constant: s.constant,
                    }
                }
                // Reshaping, joining and splitting regroup elements: nothing is known; nor of
                // what an asm computes.
                OpKind::Reshape { .. } | OpKind::Join { .. } | OpKind::Split { .. } | OpKind::InlineAsm { .. } => {
                    AxisInfo::unknown(&shape)
                }
                // Element-wise functions keep runs of equal elements, nothing else (a
                // bitcast is one: equal bits stay equal, their value is another).
                OpKind::Unary { value, .. } | OpKind::Bitcast { value } => {
                    let s = get(*value, &infos);
                    let n = s.constancy.len();
                    AxisInfo { contiguity: vec![1; n], divisibility: vec![1; n], constant: None, ..s }
                }
                OpKind::Binary { op: bop, lhs, rhs } => {
                    let l = get(*lhs, &infos);
                    binary(*bop, (&l, nonneg[lhs.index()]), &get(*rhs, &infos), k.dtype(res))
                }
                OpKind::Compare { pred, lhs, rhs } => compare(*pred, &get(*lhs, &infos), &get(*rhs, &infos), &shape),
                // A float result: only runs of equal elements survive (floats never index).
                OpKind::Fma { a, b, c } => {
                    let (a, b, c) = (get(*a, &infos), get(*b, &infos), get(*c, &infos));
                    let n = a.constancy.len();
                    AxisInfo {
                        contiguity: vec![1; n],
                        divisibility: vec![1; n],
                        constancy: (0..n).map(|d| gcd(a.constancy[d], gcd(b.constancy[d], c.constancy[d]))).collect(),
                        constant: None,
                    }
                }
                // The author's promise: every element a multiple of `divisor`, so every
                // run's first element is one of its largest power-of-two factor (Triton's
                // `tt.divisibility` from `tl.multiple_of`). Nothing else changes.
                OpKind::MultipleOf { value, divisor } => {
                    let s = get(*value, &infos);
                    let promised = 1u64 << divisor.max(&1).trailing_zeros().min(MAX_DIVISOR.trailing_zeros());
                    AxisInfo { divisibility: s.divisibility.iter().map(|&d| d.max(promised)).collect(), ..s }
                }
                // The author's promise of runs of consecutive or of equal values (Triton's
                // `tt.contiguity` / `tt.constancy` from `tl.max_contiguous` /
                // `tl.max_constancy`): the larger of it, as a power of two no larger than
                // the dim, and what is proven. A run of `n` holds runs of each divisor of
                // `n` too, so the power of two is promised as well.
                OpKind::AxisHint { value, hint, values } => {
                    let mut s = get(*value, &infos);
                    let dims = dims_of(&shape);
                    let facts = match hint {
                        HintKind::Contiguity => &mut s.contiguity,
                        HintKind::Constancy => &mut s.constancy,
                    };
                    for (d, fact) in facts.iter_mut().enumerate() {
                        let promised = values.get(d).map_or(1, |&n| 1u64 << n.max(1).trailing_zeros());
                        *fact = (*fact).max(promised.min(dims[d] as u64));
                    }
                    s
                }
                OpKind::Cast { value: v } => {
                    let s = get(*v, &infos);
                    // Int casts keep the facts; a cast to an 8- or 16-bit int wraps long
                    // before offsets do, so it keeps none.
                    let wide = k.dtype(res).scalar().and_then(|t| t.int_bits()).is_some_and(|b| b >= 32);
                    if k.dtype(*v).is_int() && wide {
                        s
                    } else {
                        AxisInfo {
                            constant: None,
                            contiguity: vec![1; s.contiguity.len()],
                            divisibility: vec![1; s.divisibility.len()],
                            ..s
                        }
                    }
                }
                OpKind::Select { cond, on_true, on_false } => {
                    let (c, t, f) = (get(*cond, &infos), get(*on_true, &infos), get(*on_false, &infos));
                    let n = c.constancy.len();
                    AxisInfo {
                        contiguity: vec![1; n],
                        divisibility: (0..n).map(|d| gcd(t.divisibility[d], f.divisibility[d])).collect(),
                        constancy: (0..n).map(|d| gcd(c.constancy[d], gcd(t.constancy[d], f.constancy[d]))).collect(),
                        constant: None,
                    }
                }
                OpKind::AddPtr { ptr, offset } => {
                    let elem = k.dtype(*ptr).pointee().map_or(1, |s| s.size_bytes());
                    let (p, o) = (get(*ptr, &infos), get(*offset, &infos));
                    let n = p.contiguity.len();
                    AxisInfo {
                        contiguity: (0..n)
                            .map(|d| gcd(p.contiguity[d], o.constancy[d]).max(gcd(p.constancy[d], o.contiguity[d])))
                            .collect(),
                        divisibility: (0..n)
                            .map(|d| gcd(p.divisibility[d], mul_div(o.divisibility[d], elem)))
                            .collect(),
                        constancy: (0..n).map(|d| gcd(p.constancy[d], o.constancy[d])).collect(),
                        constant: None,
                    }
                }
                // Handled above (its induction variable); its results are the carried values,
                // whose facts stay unknown.
                OpKind::For { .. } => continue,
                // An if's or a while's results (and a while's carried arguments) keep the
                // unknown facts they start with: conservative, so no access through them
                // is widened on a guess.
                OpKind::If { .. } | OpKind::While { .. } => continue,
                OpKind::Load { .. }
                | OpKind::AsyncCopy { .. }
                | OpKind::RingRead { .. }
                | OpKind::Dot { .. }
                | OpKind::Reduce { .. }
                | OpKind::ReduceWith { .. }
                | OpKind::Scan { .. }
                | OpKind::Store { .. }
                | OpKind::DebugBarrier {}
                | OpKind::Assume { .. }
                | OpKind::DevicePrint { .. }
                | OpKind::DeviceAssert { .. }
                | OpKind::AtomicRmw { .. }
                | OpKind::AtomicCas { .. }
                | OpKind::Yield { .. } => continue,
            };
            infos[res.index()] = info;
        }
        infos
    }
}

/// Which values are non-negative in every element, assuming no integer wraparound (the
/// index-width analysis guards that): program ids and counts, `arange`s from 0 up,
/// non-negative constants, unsigned values, values an `assume(x >= c)` (`c >= 0`) or
/// `assume(x > c)` (`c >= -1`) promises in the block that defines `x` (at the kernel's top
/// level, any value), a `for` loop's induction variable from a non-negative start (its
/// step is positive), and what sums, products, quotients, remainders, minima and maxima,
/// shape ops and widening casts make of them.
pub fn non_negative(k: &Kernel) -> Vec<bool> {
    let mut nn = vec![false; k.values.len()];
    let constant = |v: Value| match k.def_op(v).map(|o| &o.kind) {
        Some(OpKind::Constant { value: Constant::Int(c) }) => Some(*c),
        _ => None,
    };
    // Promises first: an SSA value keeps its value, so one promise covers every use. A
    // promise in a nested block (a loop body, a branch) covers the values that block
    // defines: each of their instances is followed by the promise, in every execution.
    // Each op with the block it is in (`None`: the kernel's top level, where a promise
    // covers any value).
    let mut promises: Vec<(OpId, Option<&Block>)> = k.body.ops.iter().map(|&id| (id, None)).collect();
    for id in k.walk() {
        for region in k.op(id).kind.regions() {
            promises.extend(region.ops.iter().map(|&a| (a, Some(region))));
        }
    }
    for (id, block) in promises {
        let OpKind::Assume { cond } = &k.op(id).kind else { continue };
        if let Some(OpKind::Compare { pred, lhs, rhs }) = k.def_op(*cond).map(|o| &o.kind) {
            let promised = match (pred, constant(*rhs), constant(*lhs)) {
                (CmpPred::Ge, Some(c), _) if c >= 0 => Some(*lhs),
                (CmpPred::Gt, Some(c), _) if c >= -1 => Some(*lhs),
                (CmpPred::Le, _, Some(c)) if c >= 0 => Some(*rhs),
                (CmpPred::Lt, _, Some(c)) if c >= -1 => Some(*rhs),
                _ => None,
            };
            if let Some(x) = promised
                && block.is_none_or(|b| b.ops.iter().any(|&d| k.op(d).results.contains(&x)))
            {
                nn[x.index()] = true;
            }
        }
    }
    for id in k.walk() {
        let op = k.op(id);
        if let OpKind::For { lower, body, .. } = &op.kind
            && let Some(&iv) = body.args.first()
        {
            nn[iv.index()] = nn[lower.index()];
        }
        let Some(&res) = op.results.first() else { continue };
        let dtype = k.dtype(res);
        let of = |v: &Value| nn[v.index()];
        let is = match &op.kind {
            _ if dtype.scalar().is_some_and(|s| s.is_unsigned_int()) => true,
            OpKind::ProgramId { .. } | OpKind::NumPrograms { .. } => true,
            OpKind::Arange { start, .. } => *start >= 0,
            OpKind::Constant { value: Constant::Int(c) } => *c >= 0,
            OpKind::Splat { value }
            | OpKind::Broadcast { value }
            | OpKind::ExpandDims { value, .. }
            | OpKind::Permute { value, .. }
            | OpKind::Reshape { value }
            | OpKind::ConvertLayout { value }
            | OpKind::MultipleOf { value, .. }
            | OpKind::AxisHint { value, .. } => of(value),
            // Widening keeps the value; a narrowing cast may wrap.
            OpKind::Cast { value } => {
                let from = k.dtype(*value).scalar().map_or(0, |s| s.size_bytes());
                of(value) && dtype.is_int() && dtype.scalar().is_some_and(|s| s.size_bytes() >= from)
            }
            OpKind::Select { on_true, on_false, .. } => of(on_true) && of(on_false),
            OpKind::Binary { op: bop, lhs, rhs } => match bop {
                BinaryOp::Add | BinaryOp::Mul | BinaryOp::Div | BinaryOp::Or | BinaryOp::Xor => of(lhs) && of(rhs),
                BinaryOp::Min(_) => of(lhs) && of(rhs),
                BinaryOp::Max(_) | BinaryOp::And => of(lhs) || of(rhs),
                // The remainder has the dividend's sign; a right shift keeps it.
                BinaryOp::Rem | BinaryOp::Shr => of(lhs),
                // The high half of a product can have its top bit set (0xffffffff^2).
                BinaryOp::Sub | BinaryOp::FDiv | BinaryOp::Shl | BinaryOp::UMulHi => false,
            },
            _ => false,
        };
        if is {
            nn[res.index()] = true;
        }
    }
    nn
}

fn binary(op: BinaryOp, (l, l_non_negative): (&AxisInfo, bool), r: &AxisInfo, dtype: DType) -> AxisInfo {
    let n = l.contiguity.len();
    let constancy: Vec<u64> = (0..n).map(|d| gcd(l.constancy[d], r.constancy[d])).collect();
    let constant = match (l.constant, r.constant, op) {
        (Some(a), Some(b), BinaryOp::Add) => Some(a.wrapping_add(b)),
        (Some(a), Some(b), BinaryOp::Sub) => Some(a.wrapping_sub(b)),
        (Some(a), Some(b), BinaryOp::Mul) => Some(a.wrapping_mul(b)),
        // Other ops, or an operand that is not a known constant: not folded here.
        (
            _,
            _,
            BinaryOp::Add
            | BinaryOp::Sub
            | BinaryOp::Mul
            | BinaryOp::Div
            | BinaryOp::Rem
            | BinaryOp::Max(_)
            | BinaryOp::Min(_)
            | BinaryOp::And
            | BinaryOp::Or
            | BinaryOp::Xor
            | BinaryOp::FDiv
            | BinaryOp::Shl
            | BinaryOp::Shr
            | BinaryOp::UMulHi,
        ) => None,
    };
    if !dtype.is_int() {
        return AxisInfo { contiguity: vec![1; n], divisibility: vec![1; n], constancy, constant: None };
    }
    let (contiguity, divisibility): (Vec<u64>, Vec<u64>) = (0..n)
        .map(|d| match op {
            // [x, x+1, ...] + [y, y, ...] stays contiguous over the shorter run.
            BinaryOp::Add => (
                gcd(l.contiguity[d], r.constancy[d]).max(gcd(l.constancy[d], r.contiguity[d])),
                gcd(l.divisibility[d], r.divisibility[d]),
            ),
            BinaryOp::Sub => (gcd(l.contiguity[d], r.constancy[d]), gcd(l.divisibility[d], r.divisibility[d])),
            BinaryOp::Mul => {
                // Multiplying by the constant 1 keeps contiguity (why ==1 specialization
                // matters); by anything else it is lost. The first value of a run of a
                // contiguous operand says nothing about the others, so its divisibility
                // counts as 1 unless the other side is 1.
                let contiguity = if r.constant == Some(1) {
                    l.contiguity[d]
                } else if l.constant == Some(1) {
                    r.contiguity[d]
                } else {
                    1
                };
                let ld = if l.contiguity[d] > 1 && r.constant != Some(1) { 1 } else { l.divisibility[d] };
                let rd = if r.contiguity[d] > 1 && l.constant != Some(1) { 1 } else { r.divisibility[d] };
                (contiguity, mul_div(ld, rd))
            }
            // `x % y` (`y` constant along the run, a multiple of `v_y`): a run of `x`
            // (consecutive from a multiple of `v_x`) that crosses no multiple of `y` stays
            // consecutive. Multiples of `y` are multiples of `g = gcd(v_x, v_y)`, so runs
            // of `g` aligned at multiples of `g` cross none, provided every `x` is
            // non-negative (a negative dividend's remainder jumps right after a multiple
            // of `y`: `-8 % 4, -7 % 4 = 0, -3`). Their first values, `x - q y`, are
            // multiples of `g`. Without runs (`c_x = 1`) every value is a multiple of
            // `gcd(v_x, v_y)`, whatever the signs. (Triton's rule, with the sign it
            // leaves out.)
            BinaryOp::Rem => {
                let g = gcd(gcd(l.contiguity[d], l.divisibility[d]), gcd(r.divisibility[d], r.constancy[d]));
                match l.contiguity[d] {
                    1 => (1, gcd(l.divisibility[d], r.divisibility[d])),
                    _ if l_non_negative && g > 1 => (g, g),
                    _ => (1, 1),
                }
            }
            BinaryOp::Div
            | BinaryOp::Max(_)
            | BinaryOp::Min(_)
            | BinaryOp::And
            | BinaryOp::Or
            | BinaryOp::Xor
            | BinaryOp::FDiv
            | BinaryOp::Shl
            | BinaryOp::Shr
            | BinaryOp::UMulHi => (1, 1),
        })
        .unzip();
    AxisInfo { contiguity, divisibility, constancy, constant }
}

fn compare(pred: CmpPred, l: &AxisInfo, r: &AxisInfo, shape: &[usize]) -> AxisInfo {
    let dims = dims_of(shape);
    let n = dims.len();
    let constancy = (0..n)
        .map(|d| {
            // Both sides constant in runs: so is the comparison.
            let both = gcd(l.constancy[d], r.constancy[d]);
            // Triton's case 2: a contiguous range against a value constant along the dim,
            // `[x, x+1, ..., x+c-1] < [y, ...]` with x and y multiples of v: the result
            // can change only at multiples of v, so it is constant in runs of
            // gcd(c, v_x, v_y). This is what lets `cols < n_cols` keep a vector load
            // when n_cols is divisible by 16.
            // Only `<` and `>=` with the range on the left (`>` and `<=` with it on the
            // right) switch exactly at `x + i == y`; the others switch one later.
            let uniform = |a: &AxisInfo| a.constancy[d] == dims[d] as u64;
            let run = |a: &AxisInfo, b: &AxisInfo| gcd(a.contiguity[d], gcd(a.divisibility[d], b.divisibility[d]));
            let range = match pred {
                CmpPred::Lt | CmpPred::Ge if l.contiguity[d] > 1 && uniform(r) => run(l, r),
                CmpPred::Gt | CmpPred::Le if r.contiguity[d] > 1 && uniform(l) => run(r, l),
                CmpPred::Lt | CmpPred::Ge | CmpPred::Gt | CmpPred::Le | CmpPred::Eq | CmpPred::Ne => 1,
            };
            both.max(range)
        })
        .collect();
    AxisInfo { contiguity: vec![1; n], divisibility: vec![1; n], constancy, constant: None }
}
