//! Which values an op may read while tracing: those of the blocks that are still open.
//!
//! A kernel body is Rust, so a `Tensor` made inside a `for_range`, `if_` or `while_loop`
//! closure can be stored in a variable that outlives the closure and used after it. In the
//! IR that value exists only inside its region (`ir/mod.rs`), so such a use is the
//! author's mistake, reported here with both lines ([`Code::TraceEscapingValue`]) instead
//! of reaching the verifier as broken IR.

use crate::diag::Code;
use crate::ir::{OpKind, SourceLoc, Value};

use super::Builder;

/// One block opened while tracing: the kernel body (index 0) or a region.
#[derive(Clone, Copy, Debug)]
struct BlockInfo {
    /// What the region is, for messages: `a for_range body`.
    what: &'static str,
    /// The DSL call that opened it.
    loc: Option<SourceLoc>,
    open: bool,
}

/// The block every traced value belongs to, and which blocks are open.
#[derive(Debug)]
pub(crate) struct Scopes {
    blocks: Vec<BlockInfo>,
    /// The innermost open block first... last (indices into `blocks`).
    stack: Vec<usize>,
    /// Per value (by id), the block it was defined in.
    owner: Vec<usize>,
}

impl Default for Scopes {
    fn default() -> Self {
        Scopes {
            blocks: vec![BlockInfo { what: "the kernel body", loc: None, open: true }],
            stack: vec![0],
            owner: vec![],
        }
    }
}

impl Scopes {
    /// Records that `v` (the next value id) is defined in the innermost open block.
    pub fn define(&mut self, v: Value) {
        let current = self.stack.last().copied().unwrap_or(0);
        if self.owner.len() <= v.index() {
            self.owner.resize(v.index() + 1, 0);
        }
        self.owner[v.index()] = current;
    }

    pub fn open(&mut self, what: &'static str, loc: Option<SourceLoc>) {
        self.blocks.push(BlockInfo { what, loc, open: true });
        self.stack.push(self.blocks.len() - 1);
    }

    pub fn close(&mut self) {
        if self.stack.len() > 1
            && let Some(b) = self.stack.pop()
        {
            self.blocks[b].open = false;
        }
    }

    /// The closed region `v` was defined in, if it is not visible any more.
    fn closed_region_of(&self, v: Value) -> Option<BlockInfo> {
        let b = self.blocks.get(*self.owner.get(v.index())?)?;
        (!b.open).then_some(*b)
    }
}

impl Builder {
    /// Reports every operand of `kind` that was defined inside a region closed before
    /// `loc` (a value that escaped its loop or branch).
    pub(crate) fn check_operands_in_scope(&mut self, kind: &OpKind, loc: SourceLoc) {
        for v in kind.operands() {
            let Some(region) = self.scopes.closed_region_of(v) else { continue };
            let opened_at = region.loc.map_or_else(String::new, |l| format!(" (opened at {})", l.short()));
            let ty = self.ty(v).clone();
            let what = match self.kernel.def_op(v) {
                Some(op) => format!("the {ty} value made at {}, inside {}{opened_at},", op.loc.short(), region.what),
                None => format!("the {ty} argument of {}{opened_at}", region.what),
            };
            self.error_with(
                Code::TraceEscapingValue,
                loc,
                format!("{what} is used here, after that region ended"),
                "a value made inside a loop or an if exists only there: hand it out by returning it from the closure \
                 (carry it through the loop's carried values, or yield it from both branches of the if_) and use the result",
            );
        }
    }
}
