//! The verifier: checks every IR invariant documented in `ir/mod.rs` and collects all
//! violations (Cranelift's verifier habit) instead of stopping at the first.
//!
//! Front-end code keeps these invariants by construction, so a verifier error means a
//! bug in a pass or a hand-built kernel; tests re-verify after every pass.

use std::collections::HashSet;

use crate::diag::{Diagnostic, Diagnostics};
use crate::ir::{Block, DType, Kernel, OpKind, ParamKind, ReduceOp, SourceLoc, Value};

/// Facts the verifier established, handed to later stages.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct KernelInfo {
    /// How many ops read each value (index = value id).
    pub uses: Vec<u32>,
    /// Whether any op reads a runtime parameter (else the kernel has no runtime inputs).
    pub has_loops: bool,
}

/// Everything wrong with a kernel.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct VerifyError(pub Diagnostics);

/// Checks `kernel` and returns the facts later stages use.
pub fn verify(kernel: &Kernel) -> Result<KernelInfo, VerifyError> {
    let mut v = Verifier {
        k: kernel,
        errors: Vec::new(),
        info: KernelInfo { uses: vec![0; kernel.values.len()], has_loops: false },
    };
    let mut scope = HashSet::new();
    v.block(&kernel.body, &mut scope, false);
    if v.errors.is_empty() { Ok(v.info) } else { Err(VerifyError(Diagnostics(v.errors))) }
}

struct Verifier<'a> {
    k: &'a Kernel,
    errors: Vec<Diagnostic>,
    info: KernelInfo,
}

impl Verifier<'_> {
    fn err(&mut self, loc: SourceLoc, msg: String) {
        self.errors.push(Diagnostic::error(
            &self.k.name,
            loc,
            msg,
            "this is an rtriton compiler bug or a hand-built IR error; please report it with the kernel's IR text",
        ));
    }

    fn block(&mut self, block: &Block, scope: &mut HashSet<Value>, in_loop: bool) {
        let outer = scope.clone();
        scope.extend(block.args.iter().copied());
        for (pos, &id) in block.ops.iter().enumerate() {
            let op = self.k.op(id);
            for v in op.kind.operands() {
                if v.index() >= self.k.values.len() {
                    self.err(op.loc, format!("{id} uses undefined value {v}"));
                    continue;
                }
                self.info.uses[v.index()] += 1;
                if !scope.contains(&v) {
                    self.err(op.loc, format!("{id} ({}) uses {v} outside the block that defines it", op.kind.name()));
                }
            }
            if let OpKind::Yield(_) = op.kind
                && (!in_loop || pos + 1 != block.ops.len())
            {
                self.err(op.loc, format!("{id}: yield must be the last op of a loop body"));
            }
            self.typing(id);
            if let OpKind::For { body, .. } = &op.kind {
                self.info.has_loops = true;
                if body.ops.last().map(|l| matches!(self.k.op(*l).kind, OpKind::Yield(_))) != Some(true) {
                    self.err(op.loc, format!("{id}: loop body does not end with yield"));
                }
                let mut inner = scope.clone();
                self.block(body, &mut inner, true);
            }
            scope.extend(op.results.iter().copied());
        }
        if in_loop {
            // Values of a loop body are not visible after it.
            *scope = outer;
        }
    }

    /// The typing rule of each op (documented on `OpKind`).
    fn typing(&mut self, id: crate::ir::OpId) {
        let k = self.k;
        let op = k.op(id);
        let ty = |v: Value| k.ty(v);
        let res = |i: usize| op.results.get(i).map(|r| k.ty(*r));
        let mut problems: Vec<String> = Vec::new();
        let expect_results = |n: usize, problems: &mut Vec<String>| {
            if op.results.len() != n {
                problems.push(format!("expects {n} results, has {}", op.results.len()));
            }
        };
        match &op.kind {
            OpKind::Param { index } => {
                expect_results(1, &mut problems);
                match k.params.get(*index) {
                    None => problems.push(format!("parameter {index} does not exist")),
                    Some(p) => {
                        let want = match p.kind {
                            ParamKind::Ptr(s) => DType::Ptr(s),
                            ParamKind::Scalar(s) => DType::Scalar(s),
                        };
                        if res(0).map(|t| t.dtype) != Some(want) || !res(0).is_some_and(|t| t.shape.is_scalar()) {
                            problems.push(format!("result must be a {want} scalar"));
                        }
                    }
                }
            }
            OpKind::Constant(_) | OpKind::ProgramId { .. } | OpKind::NumPrograms { .. } => {
                expect_results(1, &mut problems)
            }
            OpKind::Arange { start, end } => {
                expect_results(1, &mut problems);
                let n = end - start;
                if n <= 0 || (n as u64).count_ones() != 1 {
                    problems.push(format!("arange length {n} is not a power of two"));
                }
            }
            OpKind::Splat(v) => {
                if !ty(*v).shape.is_scalar() {
                    problems.push("splat operand must be a scalar".into());
                }
            }
            OpKind::Broadcast(v) | OpKind::Cast(v) => {
                if let (Some(r), OpKind::Broadcast(_)) = (res(0), &op.kind)
                    && r.shape.rank() != ty(*v).shape.rank()
                {
                    problems.push("broadcast keeps the rank".into());
                }
            }
            OpKind::ExpandDims { value, axis } => {
                if *axis > ty(*value).shape.rank() {
                    problems.push(format!("axis {axis} out of range"));
                }
            }
            OpKind::Binary { lhs, rhs, .. } => {
                if ty(*lhs) != ty(*rhs) || res(0) != Some(ty(*lhs)) {
                    problems.push(format!("operands and result must have one type, got {} and {}", ty(*lhs), ty(*rhs)));
                }
            }
            OpKind::Compare { lhs, rhs, .. } => {
                if ty(*lhs) != ty(*rhs) {
                    problems.push(format!("operands must have one type, got {} and {}", ty(*lhs), ty(*rhs)));
                }
                if res(0).map(|t| t.dtype) != Some(DType::BOOL) {
                    problems.push("comparison result must be i1".into());
                }
            }
            OpKind::Select { cond, on_true, on_false } => {
                if ty(*cond).dtype != DType::BOOL
                    || ty(*cond).shape != ty(*on_true).shape
                    || ty(*on_true) != ty(*on_false)
                {
                    problems.push("where needs an i1 condition and two operands of its shape and one type".into());
                }
            }
            OpKind::AddPtr { ptr, offset } => {
                if !ty(*ptr).dtype.is_ptr() || !ty(*offset).dtype.is_int() || ty(*ptr).shape != ty(*offset).shape {
                    problems.push("addptr needs pointers and integer offsets of one shape".into());
                }
            }
            OpKind::Load { ptr, mask, other } => {
                let p = ty(*ptr);
                if !p.dtype.is_ptr() {
                    problems.push("load needs pointers".into());
                }
                if let Some(m) = mask
                    && (ty(*m).dtype != DType::BOOL || ty(*m).shape != p.shape)
                {
                    problems.push("load mask must be i1 of the pointers' shape".into());
                }
                if let Some(o) = other
                    && res(0) != Some(ty(*o))
                {
                    problems.push("load other must have the result's type".into());
                }
            }
            OpKind::Store { ptr, value, mask } => {
                let p = ty(*ptr);
                if p.dtype.pointee().map(DType::Scalar) != Some(ty(*value).dtype) || p.shape != ty(*value).shape {
                    problems.push("store value must match the pointee type and the pointers' shape".into());
                }
                if let Some(m) = mask
                    && (ty(*m).dtype != DType::BOOL || ty(*m).shape != p.shape)
                {
                    problems.push("store mask must be i1 of the pointers' shape".into());
                }
            }
            OpKind::Reduce { op: rop, value, axis } => {
                let t = ty(*value);
                if *axis >= t.shape.rank() {
                    problems.push(format!("reduction axis {axis} out of range for rank {}", t.shape.rank()));
                } else if let Some(r) = res(0) {
                    let mut dims = t.shape.0.clone();
                    dims.remove(*axis);
                    let want = if *rop == ReduceOp::Argmax { DType::I32 } else { t.dtype };
                    if r.shape.0 != dims || r.dtype != want {
                        problems.push("reduction result has the wrong type".into());
                    }
                }
            }
            OpKind::For { lower, upper, step, init, body } => {
                let iv = ty(*lower);
                if !iv.dtype.is_int() || !iv.shape.is_scalar() || iv != ty(*upper) || iv != ty(*step) {
                    problems.push("loop bounds and step must be scalars of one integer type".into());
                }
                if body.args.len() != init.len() + 1 || op.results.len() != init.len() {
                    problems.push("loop needs one body argument per carried value plus the induction variable".into());
                } else {
                    for (i, v) in init.iter().enumerate() {
                        if ty(*v) != ty(body.args[i + 1]) || ty(*v) != ty(op.results[i]) {
                            problems.push(format!("carried value {i} changes type"));
                        }
                    }
                    if let Some(OpKind::Yield(ys)) = body.ops.last().map(|l| &k.op(*l).kind)
                        && (ys.len() != init.len() || ys.iter().zip(init).any(|(y, i)| ty(*y) != ty(*i)))
                    {
                        problems.push("yield must give one value of each carried type".into());
                    }
                }
            }
            OpKind::Yield(_) => {}
        }
        for p in problems {
            self.err(op.loc, format!("{id} ({}): {p}", op.kind.name()));
        }
    }
}
