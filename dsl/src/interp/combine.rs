//! `reduce(x, axis, combine)` and `associative_scan(x, axis, combine)`: reductions and
//! inclusive scans whose combine function is a region of the IR (traced from the user's
//! closure), in the order that defines them (`docs/semantics.md`, "Combine order"):
//!
//! - **reduce**: a balanced binary tree over positions along the axis. Round 1 combines
//!   positions `(0, 1), (2, 3), ...`, round 2 the results of `(0..2, 2..4), ...`, and so
//!   on: `combine(left, right)` with the lower positions on the left. An axis of one
//!   element gives that element (the combine never runs).
//! - **scan**: Hillis-Steele rounds with distance `d = 1, 2, 4, ... < n`: in each round
//!   every position `p >= d` becomes `combine(v[p - d], v[p])` of the previous round's
//!   values; positions `p < d` keep theirs.
//!
//! Both orders are functions of the positions only, never of a layout or `num_warps`,
//! so the PTX lowering (`backend/ptx/lower/combine.rs`, `lower/scan.rs`) follows them
//! exactly and a combine that is not associative (a float sum) gives the same bits on
//! every back end. Each round runs the region once on whole vectors of pairs.

use std::collections::HashMap;

use crate::ir::{Block, Kernel, OpKind, Value};

use super::elementwise;
use super::value::{Data, Trap, unsupported};

/// `dims` split around `axis`: (elements before, length of the axis, elements after).
fn split(dims: &[usize], axis: usize) -> (usize, usize, usize) {
    (dims[..axis].iter().product(), dims[axis], dims[axis + 1..].iter().product())
}

/// The elements of `a` followed by those of `b` (one dtype; every dtype a block holds).
fn concat(a: &Data, b: &Data) -> Result<Data, Trap> {
    fn cat<T: Copy>(x: &[T], y: &[T]) -> Vec<T> {
        x.iter().chain(y).copied().collect()
    }
    macro_rules! same {
        ($($v:ident),*) => {
            match (a, b) {
                $((Data::$v(x), Data::$v(y)) => Data::$v(cat(x, y)),)*
                (x, y) => return unsupported(format!("combine operands of {} and {}", x.kind(), y.kind())),
            }
        };
    }
    Ok(same!(Bool, I32, I64, F32, Ptr, I8, I16, U8, U32, U64, F16, BF16, F64))
}

/// Runs the combine `region` on `n` pairs at once: `lhs[i]` and `rhs[i]` hold operand
/// `i`'s left and right values (`n` elements each); gives the yielded values.
fn run_region(k: &Kernel, region: &Block, lhs: &[Data], rhs: &[Data]) -> Result<Vec<Data>, Trap> {
    let n = lhs.first().map_or(0, Data::len);
    let mut env: HashMap<Value, Data> = HashMap::new();
    for (arg, d) in region.args.iter().zip(lhs.iter().chain(rhs)) {
        env.insert(*arg, d.clone());
    }
    let get = |env: &HashMap<Value, Data>, v: &Value| -> Result<Data, Trap> {
        env.get(v)
            .cloned()
            .ok_or_else(|| Trap::Unsupported(format!("{v} read in a combine region that does not define it")))
    };
    for &id in &region.ops {
        let op = k.op(id);
        let data = match &op.kind {
            OpKind::Yield { values } => return values.iter().map(|v| get(&env, v)).collect(),
            OpKind::Constant { value } => match op.results.first() {
                Some(r) => Data::splat_constant(*value, k.dtype(*r), n)?,
                None => return unsupported("a constant without a result"),
            },
            OpKind::Unary { op: u, value } => elementwise::unary(*u, &get(&env, value)?)?,
            OpKind::Binary { op: b, lhs, rhs } => elementwise::binary(*b, &get(&env, lhs)?, &get(&env, rhs)?)?,
            OpKind::Compare { pred, lhs, rhs } => elementwise::compare(*pred, &get(&env, lhs)?, &get(&env, rhs)?)?,
            OpKind::Cast { value } => match op.results.first() {
                Some(r) => elementwise::cast(&get(&env, value)?, k.dtype(*r))?,
                None => return unsupported("a cast without a result"),
            },
            OpKind::Select { cond, on_true, on_false } => {
                elementwise::select(&get(&env, cond)?, &get(&env, on_true)?, &get(&env, on_false)?)?
            }
            OpKind::Fma { a, b, c } => super::math::fma(&get(&env, a)?, &get(&env, b)?, &get(&env, c)?)?,
            OpKind::Bitcast { value } => match op.results.first().and_then(|r| k.dtype(*r).scalar()) {
                Some(to) => super::bits::bitcast(&get(&env, value)?, to)?,
                None => return unsupported("a bitcast without a scalar result"),
            },
            // The front end lets only element-wise ops into a combine region (not
            // `multiple_of`: a promise about indices, which a combine does not compute; nor
            // an inline asm).
            OpKind::MultipleOf { .. }
            | OpKind::AxisHint { .. }
            | OpKind::InlineAsm { .. }
            | OpKind::Param { .. }
            | OpKind::ProgramId { .. }
            | OpKind::NumPrograms { .. }
            | OpKind::Arange { .. }
            | OpKind::Splat { .. }
            | OpKind::Broadcast { .. }
            | OpKind::ExpandDims { .. }
            | OpKind::Permute { .. }
            | OpKind::Reshape { .. }
            | OpKind::ConvertLayout { .. }
            | OpKind::Join { .. }
            | OpKind::Split { .. }
            | OpKind::AddPtr { .. }
            | OpKind::Load { .. }
            | OpKind::AsyncCopy { .. }
            | OpKind::RingRead { .. }
            | OpKind::Store { .. }
            | OpKind::DebugBarrier {}
            | OpKind::Assume { .. }
            | OpKind::DevicePrint { .. }
            | OpKind::DeviceAssert { .. }
            | OpKind::Dot { .. }
            | OpKind::AtomicRmw { .. }
            | OpKind::AtomicCas { .. }
            | OpKind::Reduce { .. }
            | OpKind::ReduceWith { .. }
            | OpKind::Scan { .. }
            | OpKind::For { .. }
            | OpKind::If { .. }
            | OpKind::While { .. } => return unsupported(format!("`{}` in a combine region", op.kind.name())),
        };
        match op.results.first() {
            Some(r) => env.insert(*r, data),
            None => return unsupported(format!("`{}` without a result", op.kind.name())),
        };
    }
    unsupported("a combine region without a yield")
}

/// Reduces `inputs` (one block per operand, shape `dims`) along `axis` in the balanced
/// tree order (module doc); one result per operand, `axis` dropped.
pub(crate) fn reduce_with(
    k: &Kernel,
    region: &Block,
    inputs: Vec<Data>,
    dims: &[usize],
    axis: usize,
) -> Result<Vec<Data>, Trap> {
    let (outer, n, inner) = split(dims, axis);
    let mut cur = inputs;
    let mut m = n;
    while m > 1 {
        let pairs = m / 2;
        let at = |o: usize, j: usize, i: usize| (o * m + j) * inner + i;
        let (mut left, mut right) = (Vec::new(), Vec::new());
        for o in 0..outer {
            for j in 0..pairs {
                for i in 0..inner {
                    left.push(at(o, 2 * j, i));
                    right.push(at(o, 2 * j + 1, i));
                }
            }
        }
        let lhs: Vec<Data> = cur.iter().map(|d| d.gather(&left)).collect();
        let rhs: Vec<Data> = cur.iter().map(|d| d.gather(&right)).collect();
        let combined = run_region(k, region, &lhs, &rhs)?;
        let next_m = pairs + m % 2;
        // A line of odd length carries its last element up a round unchanged.
        let mut pick = Vec::with_capacity(outer * next_m * inner);
        let base = outer * pairs * inner;
        for o in 0..outer {
            for j in 0..next_m {
                for i in 0..inner {
                    pick.push(if j < pairs { (o * pairs + j) * inner + i } else { base + at(o, m - 1, i) });
                }
            }
        }
        cur = combined
            .iter()
            .zip(&cur)
            .map(|(c, old)| concat(c, old).map(|all| all.gather(&pick)))
            .collect::<Result<_, _>>()?;
        m = next_m;
    }
    Ok(cur)
}

/// The inclusive scan of `inputs` along `axis` in Hillis-Steele rounds (module doc); one
/// result per operand, of the operand's shape.
pub(crate) fn scan(
    k: &Kernel,
    region: &Block,
    inputs: Vec<Data>,
    dims: &[usize],
    axis: usize,
) -> Result<Vec<Data>, Trap> {
    let (outer, n, inner) = split(dims, axis);
    let at = |o: usize, p: usize, i: usize| (o * n + p) * inner + i;
    let mut cur = inputs;
    let mut d = 1;
    while d < n {
        let (mut left, mut right) = (Vec::new(), Vec::new());
        for o in 0..outer {
            for p in d..n {
                for i in 0..inner {
                    left.push(at(o, p - d, i));
                    right.push(at(o, p, i));
                }
            }
        }
        let lhs: Vec<Data> = cur.iter().map(|x| x.gather(&left)).collect();
        let rhs: Vec<Data> = cur.iter().map(|x| x.gather(&right)).collect();
        let combined = run_region(k, region, &lhs, &rhs)?;
        let total = outer * n * inner;
        let mut pick = Vec::with_capacity(total);
        for o in 0..outer {
            for p in 0..n {
                for i in 0..inner {
                    pick.push(if p < d { at(o, p, i) } else { total + (o * (n - d) + p - d) * inner + i });
                }
            }
        }
        cur = cur
            .iter()
            .zip(&combined)
            .map(|(old, c)| concat(old, c).map(|all| all.gather(&pick)))
            .collect::<Result<_, _>>()?;
        d *= 2;
    }
    Ok(cur)
}
