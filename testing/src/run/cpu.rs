//! The two CPU back ends: the interpreter and the SIMT simulator, over the interpreter's
//! simulated device memory.

use rtriton::interp::{self, Memory};
use rtriton::session::{CompileError, CompileSession};
use rtriton::spec::{ArgValue, SpecPolicy};
use rtriton::trace::{KernelDef, TraceOptions};

use super::{Outputs, RunError, lower_with};
use crate::case::Case;
use rtriton::backend::ptx::PtxOptions;

/// A case placed in [`Memory`]: the runtime arguments (a tensor is the address of its
/// view's first element) and each tensor's buffer address, in case order.
#[derive(Clone, Debug, PartialEq)]
pub struct Placed {
    pub args: Vec<ArgValue>,
    pub buffers: Vec<u64>,
}

/// Allocates every tensor's whole buffer in `mem` (exactly its length: one element past
/// it is out of bounds) and returns the launch arguments. A case with named arguments
/// must be bound to its kernel first ([`Case::resolve`]).
pub fn place(mem: &mut Memory, case: &Case) -> Result<Placed, RunError> {
    if case.needs_binding() {
        return Err(RunError::Args(Box::new(case.unresolved())));
    }
    case.check().map_err(RunError::Case)?;
    // Byte-level, so every dtype is placed the same way (device memory is little-endian).
    let buffers: Vec<u64> = case.tensors().map(|t| mem.alloc_bytes(&t.data.to_le_bytes())).collect();
    Ok(Placed { args: case.arg_values(&buffers), buffers })
}

/// Reads every output tensor's buffer back from `mem`.
pub fn read_outputs(mem: &Memory, case: &Case, placed: &Placed) -> Result<Outputs, RunError> {
    let mut buffers = Vec::new();
    for (t, &base) in case.tensors().zip(&placed.buffers) {
        if !t.output {
            continue;
        }
        let bytes = t.data.len() * t.data.dtype().size_bytes() as usize;
        let data = mem.read_bytes(base, bytes).map_err(|e| RunError::Memory(e.to_string()))?;
        buffers.push((t.name, t.data.from_le_bytes_like(data)));
    }
    Ok(Outputs { buffers, writers: None })
}

/// Runs `case` on the CPU interpreter under `policy`.
pub fn run_interpreter(def: &KernelDef, case: &Case, policy: SpecPolicy) -> Result<Outputs, RunError> {
    let case = &*case.resolve(def).map_err(|e| RunError::Args(Box::new(e)))?;
    let def = &*super::instance_for_case(def, case)?;
    let mut mem = Memory::new();
    let placed = place(&mut mem, case)?;
    let verified = CompileSession::new()
        .front_end_for_args(def, &case.constexprs, &placed.args, policy, &TraceOptions::default())
        .map_err(|e| RunError::Compile(CompileError::FrontEnd(e)))?;
    interp::run(&verified, case.grid, &placed.args, &mut mem).map_err(RunError::Interpreter)?;
    read_outputs(&mem, case, &placed)
}

/// Lowers `case`'s kernel under `policy` with `case.num_warps` and runs it on the SIMT
/// simulator with every check on; the outputs carry who stored each element.
pub fn run_simulator(def: &KernelDef, case: &Case, policy: SpecPolicy) -> Result<Outputs, RunError> {
    let case = &*case.resolve(def).map_err(|e| RunError::Args(Box::new(e)))?;
    let def = &*super::instance_for_case(def, case)?;
    let mut mem = Memory::new();
    let placed = place(&mut mem, case)?;
    let options = PtxOptions { num_warps: case.num_warps, ..PtxOptions::for_arch(case.arch) };
    let program = lower_with(&mut CompileSession::new(), def, &case.constexprs, &placed.args, policy, &options)
        .map_err(RunError::Compile)?;
    let (_, writers) =
        rtriton::sim::run_with_writers(&program, case.grid, &placed.args, &mut mem).map_err(RunError::Simulator)?;
    let mut outputs = read_outputs(&mem, case, &placed)?;
    let by_element = case
        .tensors()
        .zip(&placed.buffers)
        .filter(|(t, _)| t.output)
        .map(|(t, &base)| {
            let elem = t.data.dtype().size_bytes();
            (0..t.data.len() as u64).map(|i| writers.writer_of(base + i * elem)).collect()
        })
        .collect();
    outputs.writers = Some(by_element);
    Ok(outputs)
}
