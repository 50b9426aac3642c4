//! Dead-code elimination.
//!
//! Tracing leaves ops nobody reads: the constant 1 a folded argument is bound to when
//! the body multiplies it away, parameters the body never uses, literals that folding
//! replaced. An op is *live* when it has a side effect (a store), when a live op reads
//! one of its results, or when it is a loop that holds a live op (then its `yield` is
//! live too, and so are all its carried values). A live reduction or scan keeps its
//! combine region's `yield` and what it reads. Everything else is removed, and the
//! kernel's arenas are renumbered in program order so the IR text stays dense
//! (`%0, %1, ...`). Loads have no side effect: an unused load is removed, as GPU
//! compilers do.

use std::collections::{HashMap, HashSet};

use crate::ir::{Block, Kernel, Op, OpId, OpKind, Value, ValueData, ValueDef};

/// Removes dead ops from `kernel`; returns how many were removed.
pub fn run(kernel: &mut Kernel) -> usize {
    let live = live_ops(kernel);
    let total = kernel.walk().len();
    let removed = total - live.len();
    if removed == 0 && kernel.ops.len() == total {
        return 0;
    }
    match compact(kernel, &live) {
        Some((ops, values, body)) => {
            kernel.ops = ops;
            kernel.values = values;
            kernel.body = body;
            removed
        }
        // A live op reads a value with no live definition: the IR is malformed and the
        // verifier will say where; leave it untouched.
        None => 0,
    }
}

/// Every live op (see the module doc).
fn live_ops(k: &Kernel) -> HashSet<OpId> {
    // The region op (loop, if, while) each op sits in, and the one each block argument
    // belongs to.
    let mut parent: HashMap<OpId, OpId> = HashMap::new();
    let mut arg_owner: HashMap<Value, OpId> = HashMap::new();
    for id in k.walk() {
        for body in k.op(id).kind.regions() {
            for &inner in &body.ops {
                parent.insert(inner, id);
            }
            for &a in &body.args {
                arg_owner.insert(a, id);
            }
        }
    }
    let mut live = HashSet::new();
    let mut work: Vec<OpId> = k.walk().into_iter().filter(|id| k.op(*id).kind.effect().kept_unused()).collect();
    while let Some(id) = work.pop() {
        if !live.insert(id) {
            continue;
        }
        let op = k.op(id);
        for v in op.kind.operands() {
            match k.values.get(v.index()).map(|d| d.def) {
                Some(ValueDef::Result { op: def, .. }) => work.push(def),
                Some(ValueDef::BlockArg) => work.extend(arg_owner.get(&v)),
                None => {}
            }
        }
        work.extend(parent.get(&id));
        // A live region op keeps the yield of each of its regions (and so what it yields).
        for body in op.kind.regions() {
            work.extend(body.ops.last());
        }
    }
    live
}

/// The arenas and body rebuilt with only `live` ops, numbered in program order.
struct Compactor<'k> {
    k: &'k Kernel,
    live: &'k HashSet<OpId>,
    ops: Vec<Op>,
    values: Vec<ValueData>,
    map: Vec<Option<Value>>,
}

fn compact(k: &Kernel, live: &HashSet<OpId>) -> Option<(Vec<Op>, Vec<ValueData>, Block)> {
    let mut c = Compactor { k, live, ops: Vec::new(), values: Vec::new(), map: vec![None; k.values.len()] };
    let body = c.block(&k.body)?;
    Some((c.ops, c.values, body))
}

impl Compactor<'_> {
    fn define(&mut self, old: Value, def: ValueDef) -> Option<Value> {
        let ty = self.k.values.get(old.index())?.ty.clone();
        let new = Value(self.values.len() as u32);
        self.values.push(ValueData { ty, def });
        *self.map.get_mut(old.index())? = Some(new);
        Some(new)
    }

    fn lookup(&self, v: Value) -> Option<Value> {
        self.map.get(v.index()).copied().flatten()
    }

    /// Rebuilds a block: its arguments, then its live ops (a loop's body before the loop
    /// op itself, as the tracer numbers them).
    fn block(&mut self, block: &Block) -> Option<Block> {
        let args = block.args.iter().map(|a| self.define(*a, ValueDef::BlockArg)).collect::<Option<Vec<_>>>()?;
        let mut ops = Vec::new();
        for &id in &block.ops {
            if !self.live.contains(&id) {
                continue;
            }
            let old = self.k.op(id);
            let kind = match &old.kind {
                OpKind::For { lower, upper, step, init, body, unroll, stages } => {
                    let (lower, upper, step) = (self.lookup(*lower)?, self.lookup(*upper)?, self.lookup(*step)?);
                    let init = init.iter().map(|v| self.lookup(*v)).collect::<Option<Vec<_>>>()?;
                    let body = self.block(body)?;
                    OpKind::For { lower, upper, step, init, body, unroll: *unroll, stages: *stages }
                }
                OpKind::ReduceWith { values, axis, combine } => {
                    let values = values.iter().map(|v| self.lookup(*v)).collect::<Option<Vec<_>>>()?;
                    OpKind::ReduceWith { values, axis: *axis, combine: self.block(combine)? }
                }
                OpKind::Scan { values, axis, combine } => {
                    let values = values.iter().map(|v| self.lookup(*v)).collect::<Option<Vec<_>>>()?;
                    OpKind::Scan { values, axis: *axis, combine: self.block(combine)? }
                }
                OpKind::If { cond, then_body, else_body } => {
                    let cond = self.lookup(*cond)?;
                    let then_body = self.block(then_body)?;
                    let else_body = self.block(else_body)?;
                    OpKind::If { cond, then_body, else_body }
                }
                OpKind::While { init, before, after } => {
                    let init = init.iter().map(|v| self.lookup(*v)).collect::<Option<Vec<_>>>()?;
                    let before = self.block(before)?;
                    let after = self.block(after)?;
                    OpKind::While { init, before, after }
                }
                kind => {
                    let mut missing = false;
                    // The op table generates the operand rewriting (`OpKind::map_operands`).
                    let kind = kind.map_operands(|v| {
                        self.lookup(v).unwrap_or_else(|| {
                            missing = true;
                            v
                        })
                    });
                    if missing {
                        return None;
                    }
                    kind
                }
            };
            let new_id = OpId(self.ops.len() as u32);
            let results = old
                .results
                .iter()
                .enumerate()
                .map(|(index, r)| self.define(*r, ValueDef::Result { op: new_id, index }))
                .collect::<Option<Vec<_>>>()?;
            self.ops.push(Op { kind, results, loc: old.loc });
            ops.push(new_id);
        }
        Some(Block { args, ops })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::{Constant, DType, ParamDecl, ParamKind, ScalarType, Shape, SourceLoc, TensorType};
    use crate::prelude::*;
    use crate::spec::SpecKey;
    use crate::verify::check;

    /// A tiny hand-built kernel: `%0 = param 0`, then whatever `build` appends.
    fn kernel(build: impl FnOnce(&mut Kernel)) -> Kernel {
        let params = vec![ParamDecl {
            name: "p",
            kind: ParamKind::Ptr(ScalarType::I32),
            do_not_specialize: false,
            do_not_specialize_on_alignment: false,
        }];
        let mut k = Kernel {
            name: "k".into(),
            spec: SpecKey::plain(&params),
            params,
            constexprs: vec![],
            loc: SourceLoc::synthetic(),
            values: vec![],
            ops: vec![],
            body: Block::default(),
        };
        push(&mut k, OpKind::Param { index: 0 }, Some(DType::Ptr(ScalarType::I32)));
        build(&mut k);
        k
    }

    fn push(k: &mut Kernel, kind: OpKind, ty: Option<DType>) -> Value {
        let id = OpId(k.ops.len() as u32);
        let v = Value(k.values.len() as u32);
        let results = match ty {
            Some(dtype) => {
                k.values.push(ValueData {
                    ty: TensorType::new(dtype, Shape::scalar()),
                    def: ValueDef::Result { op: id, index: 0 },
                });
                vec![v]
            }
            None => vec![],
        };
        k.ops.push(Op { kind, results, loc: SourceLoc::synthetic() });
        k.body.ops.push(id);
        v
    }

    #[test]
    fn removes_unused_constants_and_keeps_stores_with_their_inputs() {
        let mut k = kernel(|k| {
            push(k, OpKind::Constant { value: Constant::Int(1) }, Some(DType::I32)); // dead
            let seven = push(k, OpKind::Constant { value: Constant::Int(7) }, Some(DType::I32));
            push(k, OpKind::Store { ptr: Value(0), value: seven, mask: None, desc: Vec::new() }, None);
        });
        assert_eq!(run(&mut k), 1);
        check(&k).unwrap();
        assert_eq!(k.ops.len(), 3);
        let text = k.to_string();
        assert!(text.contains("%1 = constant 7"), "{text}");
        assert!(!text.contains("constant 1 "), "{text}");
    }

    #[test]
    fn a_kernel_without_side_effects_becomes_empty() {
        let mut k = kernel(|k| {
            push(k, OpKind::Constant { value: Constant::Int(3) }, Some(DType::I32));
        });
        assert_eq!(run(&mut k), 2);
        check(&k).unwrap();
        assert!(k.body.ops.is_empty() && k.ops.is_empty() && k.values.is_empty());
    }

    crate::kernel! {
        /// A loop whose result nobody uses, a dead load, and a loop that only stores.
        fn loops(p: Ptr<i32>, n: i32) {
            let _unused = for_range(0, n, 1, zeros::<i32>(&[4]), |i, acc| acc + i);
            let _dead_load = load(p + arange(0, 4), None, None);
            for_range(0, n, 1, (), |i, ()| store(p + i, i, None));
        }
    }

    #[test]
    fn dead_loops_and_loads_go_and_loops_that_store_stay() {
        use crate::trace::trace_unspecialized;
        let mut k = trace_unspecialized(&loops(), &[]).unwrap();
        let loops_before = k.walk().iter().filter(|id| matches!(k.op(**id).kind, OpKind::For { .. })).count();
        assert_eq!(loops_before, 2);
        assert!(run(&mut k) > 0);
        check(&k).unwrap();
        let text = k.to_string();
        assert_eq!(text.matches(" for ").count(), 1, "{text}");
        assert!(!text.contains("load"), "{text}");
        assert!(text.contains("store"), "{text}");
    }

    #[test]
    fn running_twice_changes_nothing_the_second_time() {
        let mut k = kernel(|k| {
            let c = push(k, OpKind::Constant { value: Constant::Int(7) }, Some(DType::I32));
            push(k, OpKind::Constant { value: Constant::Int(1) }, Some(DType::I32));
            push(k, OpKind::Store { ptr: Value(0), value: c, mask: None, desc: Vec::new() }, None);
        });
        assert_eq!(run(&mut k), 1);
        let once = k.clone();
        assert_eq!(run(&mut k), 0);
        assert_eq!(k, once);
    }
}
