//! The verifier: checks every IR invariant documented in `ir/mod.rs` and collects all
//! violations (Cranelift's verifier habit) instead of stopping at the first.
//!
//! Front-end code keeps these invariants by construction, so a verifier error means a
//! bug in a pass or a hand-built kernel; tests re-verify after every pass.

use std::collections::HashSet;

use crate::diag::{Code, Diagnostic, Diagnostics};
use crate::ir::{Block, Kernel, OpKind, SourceLoc, TypeCx, Value};

/// Facts the verifier established, handed to later stages with the kernel.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct KernelInfo {
    /// How many ops read each value (index = value id).
    uses: Vec<u32>,
}

impl KernelInfo {
    /// How many ops read `v` (0 for a value nothing reads).
    pub fn uses(&self, v: Value) -> u32 {
        self.uses.get(v.index()).copied().unwrap_or(0)
    }
}

/// A kernel the verifier accepted, with what it established. Only [`verify`] makes one
/// (the fields are private), so every stage that takes a `VerifiedKernel` (the
/// interpreter, the PTX back end, the compile session) runs on verified IR by type, not by
/// convention.
///
/// An unverified kernel does not type-check where a verified one is needed:
///
/// ```compile_fail,E0308
/// # use rtriton::interp::{Memory, run};
/// # use rtriton::prelude::*;
/// # rtriton::kernel! { fn k(p: Ptr<i32>) { store(p, program_id(0), None); } }
/// let kernel = rtriton::trace::trace_unspecialized(&k(), &[]).unwrap();
/// run(&kernel, [1, 1, 1], &[], &mut Memory::new()); // a `Kernel`, not a `VerifiedKernel`
/// ```
///
/// and outside the verifier a `VerifiedKernel` cannot be built by hand:
///
/// ```compile_fail,E0451
/// # use rtriton::prelude::*;
/// # rtriton::kernel! { fn k(p: Ptr<i32>) { store(p, program_id(0), None); } }
/// let kernel = rtriton::trace::trace_unspecialized(&k(), &[]).unwrap();
/// let info = rtriton::verify::verify(kernel.clone()).unwrap().info().clone();
/// let forged = rtriton::verify::VerifiedKernel { kernel, info };
/// ```
///
/// while the verifier's own output runs:
///
/// ```
/// # use rtriton::interp::{Memory, run};
/// # use rtriton::prelude::*;
/// # rtriton::kernel! { fn k(p: Ptr<i32>) { store(p, program_id(0), None); } }
/// let kernel = rtriton::trace::trace_unspecialized(&k(), &[]).unwrap();
/// let mut mem = Memory::new();
/// let p = mem.alloc(4);
/// let verified = rtriton::verify::verify(kernel).unwrap();
/// run(&verified, [1, 1, 1], &[rtriton::spec::ArgValue::Ptr(p)], &mut mem).unwrap();
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct VerifiedKernel {
    kernel: Kernel,
    info: KernelInfo,
}

impl VerifiedKernel {
    pub fn kernel(&self) -> &Kernel {
        &self.kernel
    }

    pub fn info(&self) -> &KernelInfo {
        &self.info
    }

    /// The IR, to transform it (the result must be verified again to reach a back end).
    pub fn into_kernel(self) -> Kernel {
        self.kernel
    }
}

/// Everything wrong with a kernel.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct VerifyError(pub Diagnostics);

impl crate::diag::HasDiagnostics for VerifyError {
    fn diagnostics(&self) -> Vec<Diagnostic> {
        self.0.0.clone()
    }
}

/// Checks `kernel` and hands it on as verified, or reports every violation.
pub fn verify(kernel: Kernel) -> Result<VerifiedKernel, VerifyError> {
    let info = check(&kernel)?;
    Ok(VerifiedKernel { kernel, info })
}

/// Checks `kernel` without taking it (tests re-verify after each pass with this).
pub fn check(kernel: &Kernel) -> Result<KernelInfo, VerifyError> {
    let mut v = Verifier { k: kernel, errors: Vec::new(), info: KernelInfo { uses: vec![0; kernel.values.len()] } };
    let mut scope = HashSet::new();
    let mut seen = HashSet::new();
    v.block(&kernel.body, &mut scope, &mut seen, false);
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
            Code::InvalidIr,
            &self.k.name,
            loc,
            msg,
            "this is an rtriton compiler bug or a hand-built IR error; please report it with the kernel's IR text",
        ));
    }

    /// Checks `block` with the values of `scope` visible; `seen` collects every value
    /// defined so far anywhere (so a use of one that is out of scope is told apart from a
    /// use before any definition). `in_region`: the block is a region of an op (it must end
    /// with `yield`, and its values are not visible after it).
    fn block(&mut self, block: &Block, scope: &mut HashSet<Value>, seen: &mut HashSet<Value>, in_region: bool) {
        let outer = scope.clone();
        scope.extend(block.args.iter().copied());
        seen.extend(block.args.iter().copied());
        for (pos, &id) in block.ops.iter().enumerate() {
            let op = self.k.op(id);
            let mut all_defined = true;
            for v in op.kind.operands() {
                if v.index() >= self.k.values.len() {
                    self.err(op.loc, format!("{id} uses undefined value {v}"));
                    all_defined = false;
                    continue;
                }
                self.info.uses[v.index()] += 1;
                if !scope.contains(&v) && seen.contains(&v) {
                    self.escaped(op.loc, id, v);
                } else if !scope.contains(&v) {
                    self.err(op.loc, format!("{id} ({}) uses {v} outside the block that defines it", op.kind.name()));
                }
            }
            if let OpKind::Yield { .. } = op.kind
                && (!in_region || pos + 1 != block.ops.len())
            {
                self.err(op.loc, format!("{id}: yield must be the last op of a region (a loop body, an if branch)"));
            }
            // Typing reads the operands' types: an undefined one is already reported and
            // has no type to read.
            if all_defined {
                self.typing(id);
            }
            for region in op.kind.regions() {
                if region.ops.last().map(|l| matches!(self.k.op(*l).kind, OpKind::Yield { .. })) != Some(true) {
                    self.err(op.loc, format!("{id}: {} region does not end with yield", op.kind.name()));
                }
                if matches!(op.kind, OpKind::ReduceWith { .. } | OpKind::Scan { .. }) {
                    // A combine region (reduce, scan) sees its own arguments and values
                    // only: it is isolated from above, as MLIR says.
                    self.block(region, &mut HashSet::new(), &mut HashSet::new(), true);
                } else {
                    // A loop body or a branch sees the enclosing scope.
                    let mut inner = scope.clone();
                    self.block(region, &mut inner, seen, true);
                }
            }
            scope.extend(op.results.iter().copied());
            seen.extend(op.results.iter().copied());
        }
        if in_region {
            // Values of a region are not visible after it.
            *scope = outer;
        }
    }

    /// `v`, defined inside a region that has ended, is read by op `id` after it: the
    /// author's mistake in hand-built IR (the tracer reports it first for traced kernels).
    fn escaped(&mut self, loc: SourceLoc, id: crate::ir::OpId, v: Value) {
        let defined_at = self.k.def_op(v).map_or_else(|| "a region's argument".to_string(), |d| d.loc.short());
        self.errors.push(Diagnostic::error(
            Code::InvalidIr,
            &self.k.name,
            loc,
            format!(
                "{id} ({}) reads {v}, defined at {defined_at} inside a loop or if region that has ended",
                self.k.op(id).kind.name()
            ),
            "a value made inside a region exists only there: yield it from the region (a carried value or an if result) and use the op's result",
        ));
    }

    /// The typing rule of the op, from its entry in the op table (`ir/ops.rs`).
    fn typing(&mut self, id: crate::ir::OpId) {
        let op = self.k.op(id);
        for p in op.kind.check_types(&TypeCx { kernel: self.k, op }) {
            self.err(op.loc, format!("{id} ({}): {p}", op.kind.name()));
        }
    }
}
