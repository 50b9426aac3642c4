//! Which pointer parameters a kernel writes through: the parameters a `store`, an atomic
//! read-modify-write or a compare-and-swap can address. The launch uses it to tell outputs
//! from inputs when two tensor arguments overlap (`RT0714`).
//!
//! A pointer's roots are found by following pointer-typed operands back to `Param` ops
//! (through `AddPtr`, splats, broadcasts, reshapes, `where_`, ...). A loop-carried or
//! branch-yielded pointer (a block argument) stands for every pointer its op takes in or
//! yields, so the answer is never smaller than the truth (a parameter may be listed that a
//! particular run does not write; none that it writes is left out).

use std::collections::{BTreeSet, HashMap, HashSet};

use crate::ir::{Kernel, OpKind, Value, ValueDef};

/// The indices (in `kernel.params`) of the pointer parameters a store or an atomic may
/// write through, ascending.
pub fn written_params(kernel: &Kernel) -> Vec<usize> {
    let is_ptr = |v: &Value| kernel.dtype(*v).is_ptr();
    // Block arguments: the pointers of the op that owns the region (its operands and
    // what its regions yield).
    let mut block_args: HashMap<Value, Vec<Value>> = HashMap::new();
    for id in kernel.walk() {
        let kind = &kernel.op(id).kind;
        let regions = kind.regions();
        if regions.is_empty() {
            continue;
        }
        let mut sources: Vec<Value> = kind.operands().into_iter().filter(is_ptr).collect();
        for r in &regions {
            if let Some(y) = kernel.yielded(r) {
                sources.extend(y.iter().copied().filter(is_ptr));
            }
        }
        for r in regions {
            for a in &r.args {
                block_args.entry(*a).or_default().extend(sources.iter().copied());
            }
        }
    }
    let mut written = BTreeSet::new();
    for id in kernel.walk() {
        let ptr = match &kernel.op(id).kind {
            OpKind::Store { ptr, .. } | OpKind::AtomicRmw { ptr, .. } | OpKind::AtomicCas { ptr, .. } => *ptr,
            _ => continue,
        };
        let (mut stack, mut seen) = (vec![ptr], HashSet::new());
        while let Some(v) = stack.pop() {
            if !seen.insert(v) {
                continue;
            }
            match kernel.values[v.index()].def {
                ValueDef::Result { op, .. } => match &kernel.op(op).kind {
                    OpKind::Param { index } => {
                        written.insert(*index);
                    }
                    kind => stack.extend(kind.operands().into_iter().filter(is_ptr)),
                },
                ValueDef::BlockArg => stack.extend(block_args.get(&v).into_iter().flatten().copied()),
            }
        }
    }
    written.into_iter().collect()
}
