//! Runs one program: walks the kernel's blocks in program order and evaluates each op on
//! whole blocks (see `value.rs`). Loops run their body once per iteration with the body's
//! arguments bound to the induction variable and the carried values.

use crate::ir::MAX_BLOCK_NUMEL;
use crate::ir::{Block, Effect, Kernel, OpId, OpKind, ParamKind, ScalarType, Value};
use crate::spec::ArgValue;

use super::access;
use super::atomic;
use super::bits;
use super::combine;
use super::elementwise;
use super::memory::Memory;
use super::reduce::reduce;
use super::shape;
use super::value::{Data, Trap, broadcast_indices, unsupported};

/// The state of one program instance.
pub(crate) struct ProgramRun<'k> {
    pub kernel: &'k Kernel,
    pub args: &'k [ArgValue],
    pub grid: [u32; 3],
    pub pid: [u32; 3],
    /// The current value of every IR value (indexed by value id); loop bodies overwrite
    /// theirs on every iteration.
    values: Vec<Option<Data>>,
    /// Ops whose result is the same in every program and every loop iteration (see
    /// [`invariant_ops`]): computed once, then reused.
    invariant: Vec<bool>,
    /// Loop iterations this program may still run (`RunOptions::step_budget`).
    budget: u64,
    /// The staging rings' slots (`async_copy`, `ring_read`): `(ring, slot)` to the block
    /// copied there last.
    rings: std::collections::HashMap<(u32, i64), Data>,
    /// Loop iterations this program has run.
    pub steps: u64,
}

/// Ops that depend on nothing but constants, arguments and the grid size: not loads, not
/// `program_id`, not loop-body arguments, and only reading other invariant ops. Their
/// values stay valid across programs, so each is evaluated once per launch: the `-inf`
/// fill and the splat of `n_cols` inside a loop body are not rebuilt for every iteration
/// of every program.
fn invariant_ops(k: &Kernel) -> Vec<bool> {
    let mut invariant_value = vec![false; k.values.len()];
    let mut invariant = vec![false; k.ops.len()];
    for id in k.walk() {
        let op = k.op(id);
        let pure = op.kind.effect() == Effect::Pure;
        let inputs = op.kind.operands().iter().all(|v| invariant_value.get(v.index()).copied().unwrap_or(false));
        if pure
            && inputs
            && let ([r], Some(slot)) = (op.results.as_slice(), invariant.get_mut(id.index()))
        {
            *slot = true;
            if let Some(v) = invariant_value.get_mut(r.index()) {
                *v = true;
            }
        }
    }
    invariant
}

/// A trap and the op it happened at (the innermost one, inside loops).
pub(crate) type OpTrap = (OpId, Trap);

impl<'k> ProgramRun<'k> {
    pub fn new(kernel: &'k Kernel, args: &'k [ArgValue], grid: [u32; 3], budget: u64) -> Self {
        ProgramRun {
            budget,
            rings: std::collections::HashMap::new(),
            steps: 0,
            kernel,
            args,
            grid,
            pid: [0; 3],
            values: vec![None; kernel.values.len()],
            invariant: invariant_ops(kernel),
        }
    }

    /// Runs the kernel body for this program.
    pub fn run(&mut self, mem: &mut Memory) -> Result<(), OpTrap> {
        let body = &self.kernel.body;
        // A program's rings are its own.
        self.rings.clear();
        self.block(body, mem).map(|_| ())
    }

    /// Counts one loop iteration; past the budget, the loop stops with
    /// [`Trap::StepBudget`] (the caller names the loop op, so the error names its line).
    pub(super) fn step(&mut self) -> Result<(), Trap> {
        self.steps += 1;
        if self.steps > self.budget {
            return Err(Trap::StepBudget(self.budget));
        }
        Ok(())
    }

    /// Whether `id` is invariant and was already evaluated in this launch.
    fn is_computed_invariant(&self, id: OpId) -> bool {
        self.invariant.get(id.index()).copied().unwrap_or(false)
            && self.kernel.op(id).results.first().is_some_and(|r| matches!(self.values.get(r.index()), Some(Some(_))))
    }

    /// One line an element of each value, as the GPU's `vprintf` writes Triton's format
    /// (`super::print`), to the print sink (`crate::print_sink`).
    fn device_print(&self, prefix: &str, values: &[Value]) -> Result<(), Trap> {
        let data = values.iter().map(|v| self.get(*v).map(|d| (*v, d))).collect::<Result<Vec<_>, _>>()?;
        for line in super::print::lines(self.kernel, self.pid, prefix, &data)? {
            crate::print_sink::print_line(line);
        }
        Ok(())
    }

    pub(super) fn get(&self, v: Value) -> Result<&Data, Trap> {
        match self.values.get(v.index()) {
            Some(Some(d)) => Ok(d),
            // no slot or not yet written (not an op kind)
            _ => unsupported(format!("{v} is read before it is defined")),
        }
    }

    pub(super) fn set(&mut self, v: Value, d: Data) -> Result<(), Trap> {
        let numel = self.kernel.shape(v).numel();
        if d.len() != numel {
            return unsupported(format!("{v} has {} elements, its type says {numel}", d.len()));
        }
        match self.values.get_mut(v.index()) {
            Some(slot) => {
                *slot = Some(d);
                Ok(())
            }
            None => unsupported(format!("{v} does not exist")),
        }
    }

    /// Runs a block; returns the values of its `yield`, if it ends with one.
    pub(super) fn block(&mut self, block: &Block, mem: &mut Memory) -> Result<Option<Vec<Data>>, OpTrap> {
        for &id in &block.ops {
            let op = self.kernel.op(id);
            match &op.kind {
                OpKind::Yield { values: vs } => {
                    let out = vs.iter().map(|v| self.get(*v).cloned()).collect::<Result<_, _>>();
                    return out.map(Some).map_err(|t| (id, t));
                }
                // The unroll factor is the back end's: every trip runs in order here.
                OpKind::For { lower, upper, step, init, body, unroll: _, stages: _ } => {
                    self.for_loop(id, [*lower, *upper, *step], init, body, mem)?;
                }
                OpKind::ReduceWith { values, axis, combine } => {
                    self.combine_op(values, *axis, combine, true, &op.results).map_err(|t| (id, t))?;
                }
                OpKind::Scan { values, axis, combine } => {
                    self.combine_op(values, *axis, combine, false, &op.results).map_err(|t| (id, t))?;
                }
                OpKind::If { cond, then_body, else_body } => self.if_op(id, *cond, then_body, else_body, mem)?,
                OpKind::While { init, before, after } => self.while_loop(id, init, before, after, mem)?,
                OpKind::Param { .. }
                | OpKind::Constant { .. }
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
                | OpKind::Unary { .. }
                | OpKind::Binary { .. }
                | OpKind::Fma { .. }
                | OpKind::Compare { .. }
                | OpKind::Cast { .. }
                | OpKind::MultipleOf { .. }
                | OpKind::AxisHint { .. }
                | OpKind::InlineAsm { .. }
                | OpKind::Bitcast { .. }
                | OpKind::Select { .. }
                | OpKind::AddPtr { .. }
                | OpKind::Load { .. }
                | OpKind::AsyncCopy { .. }
                | OpKind::RingRead { .. }
                | OpKind::Store { .. }
                | OpKind::DebugBarrier {}
                | OpKind::Assume { .. }
                | OpKind::DevicePrint { .. }
                | OpKind::DeviceAssert { .. }
                | OpKind::AtomicRmw { .. }
                | OpKind::AtomicCas { .. }
                | OpKind::Reduce { .. }
                | OpKind::Dot { .. } => {
                    if !self.is_computed_invariant(id) {
                        self.op(id, mem).map_err(|t| (id, t))?;
                    }
                }
            }
        }
        Ok(None)
    }

    /// `for iv in lower..upper step step`: the trip count is computed exactly (no
    /// wraparound of the induction variable), the body sees `[iv, carried...]`.
    fn for_loop(
        &mut self,
        id: OpId,
        [lower, upper, step]: [Value; 3],
        init: &[Value],
        body: &Block,
        mem: &mut Memory,
    ) -> Result<(), OpTrap> {
        let at = |t| (id, t);
        let lo = self.get(lower).and_then(Data::int_scalar).map_err(at)?;
        let hi = self.get(upper).and_then(Data::int_scalar).map_err(at)?;
        let st = self.get(step).and_then(Data::int_scalar).map_err(at)?;
        if st <= 0 {
            return Err((id, Trap::NonPositiveStep(st)));
        }
        let iv_type = self.kernel.dtype(lower).scalar();
        let results = self.kernel.op(id).results.clone();
        if body.args.len() != init.len() + 1 || results.len() != init.len() {
            return Err((id, Trap::Unsupported("a loop whose arguments do not match its carried values".into())));
        }
        let mut carried: Vec<Data> =
            init.iter().map(|v| self.get(*v).cloned()).collect::<Result<_, _>>().map_err(at)?;
        let trips = if hi > lo { (i128::from(hi) - i128::from(lo) - 1) / i128::from(st) + 1 } else { 0 };
        for k in 0..trips {
            self.step().map_err(at)?;
            let iv = (i128::from(lo) + k * i128::from(st)) as i64;
            let iv = match iv_type {
                Some(ScalarType::I32) => Data::I32(vec![iv as i32]),
                // the verifier allows only i32 and i64 induction variables (a scalar type, not an op kind)
                _ => Data::I64(vec![iv]),
            };
            self.set(body.args[0], iv).map_err(at)?;
            for (arg, value) in body.args[1..].iter().zip(carried) {
                self.set(*arg, value).map_err(at)?;
            }
            carried = match self.block(body, mem)? {
                Some(next) if next.len() == init.len() => next,
                // a body without a final yield of the right arity (not an op kind)
                _ => return Err((id, Trap::Unsupported("a loop body that does not yield its carried values".into()))),
            };
        }
        for (r, value) in results.iter().zip(carried) {
            self.set(*r, value).map_err(at)?;
        }
        Ok(())
    }

    /// `ReduceWith` (`reduce`) or `Scan`: runs the combine region in the order of
    /// `combine.rs` and stores one result per operand.
    fn combine_op(
        &mut self,
        values: &[Value],
        axis: usize,
        region: &Block,
        reduce: bool,
        results: &[Value],
    ) -> Result<(), Trap> {
        let Some(first) = values.first() else { return unsupported("a combine op without operands") };
        let dims = self.kernel.shape(*first).dims().to_vec();
        let inputs = values.iter().map(|v| self.get(*v).cloned()).collect::<Result<Vec<_>, _>>()?;
        let out = if reduce {
            combine::reduce_with(self.kernel, region, inputs, &dims, axis)?
        } else {
            combine::scan(self.kernel, region, inputs, &dims, axis)?
        };
        if out.len() != results.len() {
            return unsupported("a combine region that yields another number of values than the op has results");
        }
        for (r, d) in results.iter().zip(out) {
            self.set(*r, d)?;
        }
        Ok(())
    }

    /// Evaluates one straight-line op and stores its result.
    fn op(&mut self, id: OpId, mem: &mut Memory) -> Result<(), Trap> {
        let k = self.kernel;
        let op = k.op(id);
        let result = op.results.first().copied();
        let numel = result.map_or(0, |r| k.shape(r).numel());
        if numel > MAX_BLOCK_NUMEL {
            return unsupported(format!("a block of {numel} elements (at most {MAX_BLOCK_NUMEL})"));
        }
        let data = match &op.kind {
            OpKind::Param { index } => self.param(*index)?,
            OpKind::Constant { value: c } => match result {
                Some(r) => Data::splat_constant(*c, k.dtype(r), numel)?,
                None => return unsupported("a constant without a result"),
            },
            OpKind::ProgramId { axis } => Data::I32(vec![self.pid.get(*axis as usize).copied().unwrap_or(0) as i32]),
            OpKind::NumPrograms { axis } => Data::I32(vec![self.grid.get(*axis as usize).copied().unwrap_or(1) as i32]),
            OpKind::Arange { start, end } => Data::I32((*start..*end).map(|i| i as i32).collect()),
            OpKind::Splat { value: v } => self.get(*v)?.splat(numel)?,
            OpKind::Broadcast { value: v } => {
                let to = result.map(|r| k.shape(r).dims().to_vec()).unwrap_or_default();
                let idx = broadcast_indices(k.shape(*v).dims(), &to)?;
                self.get(*v)?.gather(&idx)
            }
            OpKind::ExpandDims { value, .. } | OpKind::Reshape { value } | OpKind::ConvertLayout { value } => {
                self.get(*value)?.clone()
            }
            OpKind::Permute { value, dims } => shape::permute(self.get(*value)?, k.shape(*value).dims(), dims)?,
            OpKind::Join { lhs, rhs } => shape::join(self.get(*lhs)?, self.get(*rhs)?)?,
            OpKind::Split { value } => {
                let halves = shape::split(self.get(*value)?)?;
                if op.results.len() != halves.len() {
                    return unsupported("a split without two results");
                }
                for (r, half) in op.results.iter().zip(halves) {
                    self.set(*r, half)?;
                }
                return Ok(());
            }
            OpKind::Unary { op, value } => elementwise::unary(*op, self.get(*value)?)?,
            OpKind::Binary { op, lhs, rhs } => elementwise::binary(*op, self.get(*lhs)?, self.get(*rhs)?)?,
            OpKind::Fma { a, b, c } => super::math::fma(self.get(*a)?, self.get(*b)?, self.get(*c)?)?,
            OpKind::Compare { pred, lhs, rhs } => elementwise::compare(*pred, self.get(*lhs)?, self.get(*rhs)?)?,
            OpKind::Cast { value: v } => match result {
                Some(r) => elementwise::cast(self.get(*v)?, k.dtype(r))?,
                None => return unsupported("a cast without a result"),
            },
            OpKind::Bitcast { value: v } => match result.and_then(|r| k.dtype(r).scalar()) {
                Some(to) => bits::bitcast(self.get(*v)?, to)?,
                None => return unsupported("a bitcast without a scalar result"),
            },
            OpKind::MultipleOf { value: v, divisor } => {
                let data = self.get(*v)?;
                elementwise::check_multiple_of(data, *divisor)?;
                data.clone()
            }
            // Not checked: Triton kernels promise runs that wrap at a masked tail (`offs % M`
            // in its matmul tutorial), where the elements that break the promise are masked
            // off, so a check would refuse kernels that are right (`docs/semantics.md`).
            OpKind::AxisHint { value, .. } => self.get(*value)?.clone(),
            OpKind::InlineAsm { args, pack, model, .. } => {
                let data = args.iter().map(|a| self.get(*a)).collect::<Result<Vec<_>, _>>()?;
                let arg_types: Vec<_> = args.iter().map(|a| k.dtype(*a)).collect();
                let results: Vec<_> = op.results.iter().map(|r| k.dtype(*r)).collect();
                let out = super::inline_asm::run(model.as_ref(), &data, &arg_types, &results, numel, *pack)?;
                for (r, d) in op.results.iter().zip(out) {
                    self.set(*r, d)?;
                }
                return Ok(());
            }
            OpKind::Select { cond, on_true, on_false } => {
                elementwise::select(self.get(*cond)?, self.get(*on_true)?, self.get(*on_false)?)?
            }
            OpKind::AddPtr { ptr, offset } => {
                let Some(elem) = k.dtype(*ptr).pointee() else { return unsupported("addptr on a non-pointer") };
                elementwise::add_ptr(self.get(*ptr)?, self.get(*offset)?, elem.size_bytes())?
            }
            // A staged load reads the same elements at the same point: staging only changes
            // where the back end keeps the data while it is in flight.
            OpKind::Load { ptr, mask, other, .. } => {
                let Some(elem) = k.dtype(*ptr).pointee() else { return unsupported("load from a non-pointer") };
                let mask = mask.map(|m| self.get(m)).transpose()?;
                let other = other.map(|o| self.get(o)).transpose()?;
                access::load(mem, self.get(*ptr)?, mask, other, elem)?
            }
            // The copy lands at once: the interpreter has no copies in flight, so `pending`
            // changes nothing here (the simulator checks the back end's waits).
            OpKind::AsyncCopy { ptr, mask, other, ring, slots, slot, .. } => {
                let Some(elem) = k.dtype(*ptr).pointee() else { return unsupported("async_copy from a non-pointer") };
                let mask = mask.map(|m| self.get(m)).transpose()?;
                let other = other.map(|o| self.get(o)).transpose()?;
                let data = access::load(mem, self.get(*ptr)?, mask, other, elem)?;
                let slot = self.get(*slot)?.int_scalar()?;
                if !(0..i64::from(*slots)).contains(&slot) {
                    return unsupported(format!("a copy into slot {slot} of ring {ring}, which has {slots} slots"));
                }
                self.rings.insert((*ring, slot), data);
                return Ok(());
            }
            OpKind::RingRead { ring, slot, .. } => {
                let slot = self.get(*slot)?.int_scalar()?;
                match self.rings.get(&(*ring, slot)) {
                    Some(d) => d.clone(),
                    None => return unsupported(format!("ring {ring} slot {slot} is read before any copy into it")),
                }
            }
            OpKind::Store { ptr, value, mask, .. } => {
                let mask = mask.map(|m| self.get(m)).transpose()?;
                return access::store(mem, self.get(*ptr)?, self.get(*value)?, mask);
            }
            // A program's ops run one after another over all its lanes at once, so every
            // access before the barrier is complete and visible after it: nothing to do.
            OpKind::DebugBarrier {} => return Ok(()),
            OpKind::Assume { cond } => return elementwise::check_assume(self.get(*cond)?),
            OpKind::DevicePrint { prefix, values } => return self.device_print(prefix, values),
            OpKind::DeviceAssert { cond, .. } => return elementwise::check_device_assert(self.get(*cond)?),
            OpKind::AtomicRmw { op, ptr, value, mask, .. } => {
                let mask = mask.map(|m| self.get(m)).transpose()?;
                atomic::rmw(mem, *op, self.get(*ptr)?, self.get(*value)?, mask)?
            }
            OpKind::AtomicCas { ptr, cmp, value, .. } => {
                atomic::cas(mem, self.get(*ptr)?, self.get(*cmp)?, self.get(*value)?)?
            }
            OpKind::Reduce { op, value, axis } => reduce(*op, self.get(*value)?, k.shape(*value).dims(), *axis)?,
            OpKind::Dot { a, b, acc, input_precision } => {
                let (m, kk) = (k.shape(*a).dims()[0], k.shape(*a).dims()[1]);
                let n = k.shape(*b).dims()[1];
                super::dot::dot(self.get(*a)?, self.get(*b)?, self.get(*acc)?, [m, n, kk], *input_precision)?
            }
            OpKind::For { .. }
            | OpKind::If { .. }
            | OpKind::While { .. }
            | OpKind::Yield { .. }
            | OpKind::ReduceWith { .. }
            | OpKind::Scan { .. } => {
                return unsupported("an op with a region outside a block walk");
            }
        };
        match result {
            Some(r) => self.set(r, data),
            None => unsupported(format!("`{}` without a result", op.kind.name())),
        }
    }

    /// The runtime argument `index` as a scalar block (checked against the parameter's
    /// kind before the launch).
    fn param(&self, index: usize) -> Result<Data, Trap> {
        let (Some(p), Some(a)) = (self.kernel.params.get(index), self.args.get(index)) else {
            return unsupported(format!("parameter {index} has no argument"));
        };
        Ok(match (p.kind, *a) {
            (ParamKind::Ptr(_), ArgValue::Ptr(addr)) => Data::Ptr(vec![addr]),
            (ParamKind::Scalar(ScalarType::I32), ArgValue::Int(v)) => Data::I32(vec![v as i32]),
            (ParamKind::Scalar(ScalarType::I64), ArgValue::Int(v)) => Data::I64(vec![v]),
            (ParamKind::Scalar(ScalarType::F32), ArgValue::F32(v)) => Data::F32(vec![v]),
            (ParamKind::Scalar(ScalarType::Bool), ArgValue::Int(v)) => Data::Bool(vec![v != 0]),
            (kind, arg) => return unsupported(format!("argument {arg} for a {kind} parameter")),
        })
    }
}
