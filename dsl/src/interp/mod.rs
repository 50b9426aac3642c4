//! The CPU interpreter: the semantic reference of rtriton.
//!
//! [`run`] executes a traced kernel for every program of a grid over simulated device
//! memory ([`Memory`]), one program after another (x fastest, then y, then z; [`run_with`]
//! can shuffle the order, `order.rs`). What it
//! computes is what a kernel *means*; the GPU back end must produce the same bits (float
//! sums excepted, see `reduce.rs`). The rules are in `docs/semantics.md`.
//!
//! Code map: `memory.rs` (buffers and bounds), `value.rs` (block values), `eval.rs` (one
//! program, op by op), `elementwise.rs`, `reduce.rs`, `access.rs` (loads and stores),
//! `scalar.rs` (PTX float max/min and casts), `atomic.rs` (atomics, their element functions
//! shared with the simulator), `order.rs` (program order), `bits.rs` (shifts with PTX's
//! clamped amounts, bitcasts), `print.rs` (`device_print`'s lines), `error.rs`.
//!
//! Bad input never panics: arguments that do not fit the kernel, an unmasked
//! out-of-bounds or misaligned access, an integer division by zero and a loop with a
//! non-positive step are errors that name the kernel, the op's file:line, the program id
//! and the element.

mod access;
mod atomic;
mod bits;
mod combine;
mod control;
mod convert;
mod dot;
mod elementwise;
mod error;
mod eval;
mod inline_asm;
mod math;
mod memory;
mod order;
mod print;
mod reduce;
mod shape;
mod value;

pub use error::{Access, Fault, InterpError, InterpRunError, ProgramId};
pub use memory::{BUFFER_ALIGN, Memory, MemoryError};
pub use order::{ProgramOrder, RunOptions};

use crate::diag::{Code, Diagnostic};
use crate::ir::{Kernel, OpId, OpKind, ParamKind, ScalarType};
use crate::spec::{ArgSpec, ArgValue, HINT_DIVISIBILITY};
use crate::verify::VerifiedKernel;

use error::element_text;
use value::{Trap, unflatten};

/// Runs `kernel` for every program of `grid` with runtime `args` (one per parameter;
/// pointers are addresses from `mem`, possibly offset into a buffer for views).
///
/// A grid with a zero dimension runs no program (Triton's launcher does the same).
pub fn run(verified: &VerifiedKernel, grid: [u32; 3], args: &[ArgValue], mem: &mut Memory) -> Result<(), InterpError> {
    run_with(verified, grid, args, mem, &RunOptions::default())
}

/// [`run`] with options: [`ProgramOrder::Shuffled`] runs the programs in a seeded random
/// order, to test that a kernel's result does not depend on it.
pub fn run_with(
    verified: &VerifiedKernel,
    grid: [u32; 3],
    args: &[ArgValue],
    mem: &mut Memory,
    options: &RunOptions,
) -> Result<(), InterpError> {
    let kernel = verified.kernel();
    check_args(kernel, args)?;
    let budget = match options.step_budget {
        Some(b) => b,
        None => crate::budget::step_budget_from_env()
            .map_err(|e| launch_error(kernel, e.to_string(), crate::budget::ENV_HELP))?,
    };
    let mut program = eval::ProgramRun::new(kernel, args, grid, budget);
    order::for_each_program(grid, options.order, |pid| {
        program.pid = pid;
        program.steps = 0;
        program.run(mem).map_err(|(op, trap)| fault(kernel, op, ProgramId(pid), trap))
    })
}

fn launch_error(kernel: &Kernel, message: String, help: impl Into<String>) -> InterpError {
    InterpError::Launch(Box::new(Diagnostic::error(Code::InterpLaunch, &kernel.name, kernel.loc, message, help)))
}

/// The arguments must match the parameters in number and kind, and agree with the
/// specialization the kernel was traced under (a kernel traced with `stride_col` folded
/// to 1 computes garbage for any other stride).
fn check_args(kernel: &Kernel, args: &[ArgValue]) -> Result<(), InterpError> {
    if args.len() != kernel.params.len() {
        let names: Vec<&str> = kernel.params.iter().map(|p| p.name).collect();
        return Err(launch_error(
            kernel,
            format!("{} runtime arguments given, the kernel takes {}", args.len(), kernel.params.len()),
            format!("pass one value per parameter, in order: {}", names.join(", ")),
        ));
    }
    for (i, (p, a)) in kernel.params.iter().zip(args).enumerate() {
        let fits = match (p.kind, *a) {
            (ParamKind::Ptr(_), ArgValue::Ptr(_)) => true,
            (ParamKind::Scalar(ScalarType::I32), ArgValue::Int(v)) => i32::try_from(v).is_ok(),
            (ParamKind::Scalar(ScalarType::I64), ArgValue::Int(_)) => true,
            (ParamKind::Scalar(ScalarType::F32), ArgValue::F32(_)) => true,
            // any other (parameter, argument) pair does not fit (not an op kind)
            _ => false,
        };
        if !fits {
            return Err(launch_error(
                kernel,
                format!("argument `{}` is declared {}, got {a}", p.name, p.kind),
                "pass a value of the declared type (pointers as device addresses from Memory)",
            ));
        }
        let spec = kernel.spec.args.get(i).map_or(ArgSpec::Plain, |s| s.2);
        let agrees = match (spec, *a) {
            (ArgSpec::FoldedOne, ArgValue::Int(v)) => v == 1,
            (ArgSpec::Divisible16, ArgValue::Int(v)) => v % HINT_DIVISIBILITY as i64 == 0,
            (ArgSpec::Divisible16, ArgValue::Ptr(addr)) => addr.is_multiple_of(HINT_DIVISIBILITY),
            // no hint to check for this argument (not an op kind)
            _ => true,
        };
        if !agrees {
            return Err(launch_error(
                kernel,
                format!(
                    "argument `{}` = {a} does not fit the specialization the kernel was traced for ({})",
                    p.name, spec
                ),
                "specialize again for these arguments (SpecKey::from_args) or trace with SpecPolicy::Off",
            ));
        }
    }
    Ok(())
}

/// Turns a trap at `op` in `program` into an error naming the op's source line.
fn fault(kernel: &Kernel, op: OpId, program: ProgramId, trap: Trap) -> InterpError {
    let o = kernel.op(op);
    let shape_of = |v: Option<crate::ir::Value>| v.map(|v| kernel.shape(v).dims().to_vec()).unwrap_or_default();
    let (fault, message, help) = match trap {
        Trap::Memory { access, lane, error } => {
            let element = unflatten(lane, &shape_of(o.kind.operands().first().copied()));
            let (addr, misaligned) = match error {
                MemoryError::OutOfBounds { addr, .. } => (addr, false),
                MemoryError::Misaligned { addr, .. } => (addr, true),
            };
            let message = format!(
                "{} {access} in program {program}, element {}: {error}",
                if misaligned { "misaligned" } else { "out-of-bounds" },
                element_text(&element)
            );
            let help = if misaligned {
                "offset pointers by whole elements from an aligned base".to_string()
            } else {
                let call = match access {
                    Access::Load => "load(ptrs, Some(offs.lt(n)), Some(other))",
                    Access::Store => "store(ptrs, values, Some(offs.lt(n)))",
                    Access::Atomic => "atomic_add(ptrs, values, Some(offs.lt(n)))",
                };
                format!(
                    "mask the {access} so that lanes outside the tensor do not touch memory (`{call}`), or check the grid and the sizes and strides passed to the kernel"
                )
            };
            let fault = if misaligned {
                Fault::Misaligned { access, program, element, addr }
            } else {
                Fault::OutOfBounds { access, program, element, addr }
            };
            (fault, message, help)
        }
        Trap::DivisionByZero { lane } => {
            let element = unflatten(lane, &shape_of(o.results.first().copied()));
            let message = format!("integer division by zero in program {program}, element {}", element_text(&element));
            (
                Fault::DivisionByZero { program, element },
                message,
                "guard the divisor (for example `where_(d.eq(0), 1, d)`) or make sure it is never zero".to_string(),
            )
        }
        Trap::NotAMultiple { lane, value, divisor } => {
            let element = unflatten(lane, &shape_of(o.results.first().copied()));
            let message = format!(
                "multiple_of promised multiples of {divisor}, but element {} is {value} in program {program}",
                element_text(&element)
            );
            (
                Fault::NotAMultiple { program, element, value, divisor },
                message,
                format!(
                    "pass a value that is a multiple of {divisor} (check it on the host before the launch), or promise a smaller divisor; on the GPU a broken promise can make vector loads read the wrong elements"
                ),
            )
        }
        Trap::FailedDeviceAssert { lane } => {
            let shape = o.kind.operands().first().map(|c| kernel.shape(*c).dims().to_vec()).unwrap_or_default();
            let element = unflatten(lane, &shape);
            let msg = if let OpKind::DeviceAssert { msg, .. } = &o.kind { msg.clone() } else { String::new() };
            (
                Fault::DeviceAssert { program, element: element.clone(), message: msg.clone() },
                format!(
                    "device_assert failed: {msg} (program {program}, element {} is false)",
                    element_text(&element)
                ),
                "the condition does not hold for these arguments: print the values with device_print, or fix the kernel or its inputs".to_string(),
            )
        }
        Trap::BrokenAssume { lane } => {
            let shape = o.kind.operands().first().map(|c| kernel.shape(*c).dims().to_vec()).unwrap_or_default();
            let element = unflatten(lane, &shape);
            (
                Fault::BrokenAssume { program, element: element.clone() },
                format!("assume promised a true condition, but element {} is false in program {program}", element_text(&element)),
                "pass arguments that keep the promise (check them on the host before the launch), or drop the assume; on the GPU a broken promise can make vector loads read the wrong elements".to_string(),
            )
        }
        Trap::NonPositiveStep(step) => (
            Fault::NonPositiveStep { program, step },
            format!("loop step {step} is not positive in program {program}"),
            "pass a positive step; a loop counts upwards from its lower bound".to_string(),
        ),
        Trap::NoProgress => (
            Fault::NoProgress { program },
            format!(
                "program {program} spins in a while loop that can never end: an iteration left its carried values and memory as they were, and the interpreter runs one program at a time, so no other program can change them"
            ),
            "a program that waits (a lock, a flag) must wait for an earlier program, never a later one: release every lock the program takes; on the GPU a wait for another program also needs both to be resident at once".to_string(),
        ),
        Trap::StepBudget(budget) => (
            Fault::StepBudget { program, budget },
            format!(
                "program {program} ran past its step budget of {budget} loop iterations in this loop; a loop whose condition never turns false (or a far bound) would run forever"
            ),
            format!(
                "check the loop's condition and bounds; if the kernel really needs more iterations, raise the budget with RunOptions::step_budget or {}=N",
                crate::budget::STEP_BUDGET_ENV
            ),
        ),
        Trap::NoAsmModel { named } => (
            Fault::NoAsmModel { program },
            match named {
                Some(name) => format!(
                    "the inline asm names the CPU model `{name}`, but its function is not part of this kernel (IR text read back names a model without its code), so the interpreter cannot run it in program {program}"
                ),
                None => format!(
                    "inline_asm_elementwise has no CPU model, and the interpreter cannot run PTX (program {program})"
                ),
            },
            "give the asm a CPU model: `inline_asm_elementwise::<T>(...).with_model(AsmModel::new(\"name\", f))`, where `f(inputs, outputs)` computes the output registers from the input registers as the asm does; or run the kernel on the GPU".to_string(),
        ),
        Trap::Unsupported(what) => (
            Fault::Unsupported { program },
            format!("the interpreter cannot run {what} (op {op}, `{}`) in program {program}", o.kind.name()),
            "this is an rtriton bug or a hand-built IR error; please report it with the kernel's IR text".to_string(),
        ),
    };
    let code = match fault {
        Fault::OutOfBounds { .. } => Code::InterpOutOfBounds,
        Fault::Misaligned { .. } => Code::InterpMisaligned,
        Fault::DivisionByZero { .. } => Code::InterpDivisionByZero,
        Fault::NonPositiveStep { .. } => Code::InterpNonPositiveStep,
        Fault::NotAMultiple { .. } => Code::InterpBrokenMultipleOf,
        Fault::BrokenAssume { .. } => Code::InterpBrokenAssume,
        Fault::DeviceAssert { .. } => Code::InterpDeviceAssert,
        Fault::NoProgress { .. } => Code::InterpNoProgress,
        Fault::StepBudget { .. } => Code::InterpStepBudget,
        Fault::NoAsmModel { .. } => Code::InterpInlineAsmNoModel,
        Fault::Unsupported { .. } => Code::InterpUnsupported,
    };
    InterpError::Fault { fault, diagnostic: Box::new(Diagnostic::error(code, &kernel.name, o.loc, message, help)) }
}
