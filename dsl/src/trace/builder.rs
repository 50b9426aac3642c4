//! The trace-time IR builder, installed in a thread-local while a body runs.

use std::cell::RefCell;
use std::collections::{HashMap, HashSet};

use crate::diag::{Code, Diagnostic, Diagnostics};
use crate::ir::{Block, Constant, DType, Kernel, Op, OpId, OpKind, SourceLoc, TensorType, Value, ValueData, ValueDef};
use crate::spec::{ArgSpec, SpecKey};

use super::kernel_def::{ArgBinder, ConstexprValue, KernelDef};
use super::{Semantics, TraceError, TraceOptions};

thread_local! {
    static CURRENT: RefCell<Option<Builder>> = const { RefCell::new(None) };
}

/// Builds one kernel's IR while its body runs.
#[derive(Debug)]
pub struct Builder {
    pub(crate) kernel: Kernel,
    /// Blocks being filled; the last is where new ops go (loop bodies nest).
    blocks: Vec<Block>,
    pub(crate) errors: Vec<Diagnostic>,
    /// Values that stand for a runtime argument folded to the constant 1, with the
    /// parameter's index (Triton-semantics mode forbids `.to()` on them).
    pub(crate) folded_params: HashMap<Value, usize>,
    /// Constants made from Rust values next to a tensor (`2 * x`): Triton's scalars, which
    /// take the tensor's dtype (`lang/scalars.rs`).
    pub(crate) triton_scalars: HashSet<Value>,
    pub(crate) options: TraceOptions,
    /// Which block each value belongs to, to report values used after their region.
    pub(crate) scopes: super::scope::Scopes,
}

/// Runs `body` with `builder` installed, restoring whatever was installed before (traces
/// may nest) even if the body panics.
pub(super) fn run(builder: Builder, body: impl FnOnce(&mut ArgBinder)) -> Builder {
    struct Restore(Option<Builder>, bool);
    impl Drop for Restore {
        fn drop(&mut self) {
            if self.1 {
                let previous = self.0.take();
                CURRENT.with(|c| *c.borrow_mut() = previous);
            }
        }
    }
    let previous = CURRENT.with(|c| c.borrow_mut().replace(builder));
    let mut guard = Restore(previous, true);
    body(&mut ArgBinder { _private: () });
    let built = CURRENT.with(|c| c.borrow_mut().take()).expect("builder installed for the trace");
    guard.1 = false;
    let previous = guard.0.take();
    CURRENT.with(|c| *c.borrow_mut() = previous);
    built
}

/// Calls `f` with the builder of the trace in progress.
///
/// # Panics
/// When no trace is in progress: DSL ops only make sense inside a kernel body being
/// traced (a programming error in Rust code, not bad kernel input).
///
/// # Panics
///
/// Called outside a trace (a DSL op run as plain Rust, not from a `kernel!` body that
/// `trace` or a launch runs), where there is no builder to record an error in and no
/// `Tensor` to return: the panic names the op's file:line (the DSL ops are
/// `#[track_caller]`) and the fix.
#[track_caller]
pub(crate) fn with_builder<R>(f: impl FnOnce(&mut Builder) -> R) -> R {
    let at = std::panic::Location::caller();
    CURRENT.with(|c| {
        let mut slot = c.borrow_mut();
        let Some(b) = slot.as_mut() else {
            panic!(
                "rtriton DSL op at {}:{} called outside a kernel trace: call it from a kernel! body and run the kernel through rtriton::trace (or a launch)",
                at.file(),
                at.line()
            )
        };
        f(b)
    })
}

impl Builder {
    pub(super) fn new(def: &KernelDef, constexprs: &[(&str, i64)], spec: &SpecKey, options: TraceOptions) -> Self {
        let constexprs = def
            .constexprs
            .iter()
            .filter_map(|name| constexprs.iter().find(|(n, _)| n == name).map(|(n, v)| (n.to_string(), *v)))
            .collect();
        let mut b = Builder {
            kernel: Kernel {
                name: def.name.to_string(),
                params: def.params.clone(),
                constexprs,
                spec: spec.clone(),
                loc: def.loc,
                values: Vec::new(),
                ops: Vec::new(),
                body: Block::default(),
            },
            blocks: vec![Block::default()],
            errors: Vec::new(),
            folded_params: HashMap::new(),
            triton_scalars: HashSet::new(),
            options,
            scopes: Default::default(),
        };
        for name in &def.constexprs {
            if b.kernel.constexpr(name).is_none() {
                b.errors.push(Diagnostic::error(
                    Code::TraceRule,
                    def.name,
                    def.loc,
                    format!("constexpr `{name}` has no value"),
                    format!("pass a value for it (CLI: --const {name}=V)"),
                ));
            }
        }
        b
    }

    pub(super) fn finish(mut self) -> Result<Kernel, TraceError> {
        debug_assert_eq!(self.blocks.len(), 1, "loop bodies are closed before the trace ends");
        self.kernel.body = self.blocks.pop().unwrap_or_default();
        if self.errors.is_empty() { Ok(self.kernel) } else { Err(TraceError(Diagnostics(self.errors))) }
    }

    pub fn semantics(&self) -> Semantics {
        self.options.semantics
    }

    pub fn ty(&self, v: Value) -> &TensorType {
        self.kernel.ty(v)
    }

    pub fn constant(&self, v: Value) -> Option<Constant> {
        self.kernel.constant(v)
    }

    /// Records an error at `loc` (a language rule: [`Code::TraceRule`]).
    pub fn error(&mut self, loc: SourceLoc, message: impl Into<String>, help: impl Into<String>) {
        self.error_with(Code::TraceRule, loc, message, help);
    }

    /// Records an error with a specific code at `loc`.
    pub fn error_with(&mut self, code: Code, loc: SourceLoc, message: impl Into<String>, help: impl Into<String>) {
        let d = Diagnostic::error(code, &self.kernel.name, loc, message, help);
        self.errors.push(d);
    }

    fn new_value(&mut self, ty: TensorType, def: ValueDef) -> Value {
        let v = Value(self.kernel.values.len() as u32);
        self.kernel.values.push(ValueData { ty, def });
        self.scopes.define(v);
        v
    }

    /// Appends an op to the current block and returns its results.
    pub fn push(&mut self, kind: OpKind, result_types: Vec<TensorType>, loc: SourceLoc) -> Vec<Value> {
        self.check_operands_in_scope(&kind, loc);
        let id = OpId(self.kernel.ops.len() as u32);
        let results: Vec<Value> = result_types
            .into_iter()
            .enumerate()
            .map(|(index, ty)| self.new_value(ty, ValueDef::Result { op: id, index }))
            .collect();
        self.kernel.ops.push(Op { kind, results: results.clone(), loc });
        self.blocks.last_mut().expect("a block is open").ops.push(id);
        results
    }

    /// Appends a single-result op.
    pub fn push1(&mut self, kind: OpKind, ty: TensorType, loc: SourceLoc) -> Value {
        self.push(kind, vec![ty], loc)[0]
    }

    /// Opens a region (`what` and the call's `loc` name it in errors about values that
    /// escape it) with arguments of the given types.
    pub(crate) fn open_region(
        &mut self,
        what: &'static str,
        loc: Option<SourceLoc>,
        arg_types: Vec<TensorType>,
    ) -> Vec<Value> {
        self.scopes.open(what, loc);
        let args: Vec<Value> = arg_types.into_iter().map(|t| self.new_value(t, ValueDef::BlockArg)).collect();
        self.blocks.push(Block { args: args.clone(), ops: Vec::new() });
        args
    }

    pub(crate) fn close_block(&mut self) -> Block {
        self.scopes.close();
        self.blocks.pop().expect("a loop body block is open")
    }

    /// Binds the next runtime parameter: `Param`, or the constant 1 when folded.
    pub(crate) fn bind_param(&mut self, name: &'static str) -> Value {
        let Some(index) = self.kernel.params.iter().position(|p| p.name == name) else {
            // The kernel! macro binds exactly the declared parameters.
            unreachable!("parameter `{name}` is declared by the kernel! macro");
        };
        let kind = self.kernel.params[index].kind;
        let loc = self.kernel.loc;
        let ty = TensorType::scalar(kind.dtype());
        if self.kernel.spec.args.get(index).map(|a| a.2) == Some(ArgSpec::FoldedOne) {
            let v = self.push1(OpKind::Constant { value: Constant::Int(1) }, ty, loc);
            self.folded_params.insert(v, index);
            v
        } else {
            self.push1(OpKind::Param { index }, ty, loc)
        }
    }

    pub(crate) fn bind_constexpr<C: ConstexprValue + Default>(&mut self, name: &'static str) -> C {
        let Some(v) = self.kernel.constexpr(name) else {
            // Reported once by `Builder::new`; the body still runs to find other errors.
            return Self::placeholder();
        };
        match C::from_i64(v) {
            Some(c) => c,
            None => {
                let loc = self.kernel.loc;
                self.error(
                    loc,
                    format!("constexpr `{name}` = {v} does not fit its declared type {}", C::TYPE_NAME),
                    "pass a value in range for the type",
                );
                Self::placeholder()
            }
        }
    }

    /// The value a constexpr that has no usable value traces with, after its error: 1,
    /// valid wherever a block size or a count is expected, so the rest of the body reports
    /// its own errors only (0 added a misleading "arange(0, 0) has 0 elements").
    fn placeholder<C: ConstexprValue + Default>() -> C {
        C::from_i64(1).unwrap_or_default()
    }

    /// True if `v` is an integer type value.
    pub fn is_int(&self, v: Value) -> bool {
        self.ty(v).dtype.is_int()
    }

    pub fn dtype(&self, v: Value) -> DType {
        self.ty(v).dtype
    }
}
