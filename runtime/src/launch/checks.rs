//! Launch-time checks: everything about a launch's arguments and grid that can be wrong
//! is found here, before the driver sees it, with an error that names the kernel.

use rtriton::backend::ptx::Arch;
use rtriton::diag::{Code, Diagnostic, HasDiagnostics};
use rtriton::guard::{I32_MAX_OFFSET, OffsetWidths, TensorExtent};
use rtriton::ir::{ParamDecl, ParamKind};
use rtriton::spec::{ArgValue, SpecError, launch_diagnostic};

use super::args::{AddressOverflow, Arg};
use crate::cache::CompiledPtx;
use crate::driver::DeviceId;

/// Why a launch was refused. Each message names the kernel and says what to do.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum LaunchError {
    #[error(
        "kernel `{kernel}`: argument `{param}` points at 0x{ptr:x}, which this runtime did not allocate; pass a \
         buffer allocated on the same device and runtime, or a cudarc allocation of the runtime's context"
    )]
    ForeignPointer { kernel: String, param: String, ptr: u64 },
    #[error(
        "kernel `{kernel}`: argument `{param}` is a cudarc allocation whose use was ordered on stream 0x{bound:x}, but \
         the launch goes to stream 0x{launch:x}; make the view with the launch's stream (`TensorArg::cuda(&slice, \
         &stream, ..)`) or launch on its stream (`Runtime::launch_on`)"
    )]
    StreamMismatch { kernel: String, param: String, bound: usize, launch: usize },
    #[error("kernel `{kernel}`: {why}; use a stream of the runtime's context (`rt.gpu.context().new_stream()`)")]
    StreamContext { kernel: String, why: String },
    #[error(
        "kernel `{kernel}`: argument `{param}` has a shape of rank {shape_rank} but {strides_rank} strides; give one \
         stride per dimension"
    )]
    StrideRank { kernel: String, param: String, shape_rank: usize, strides_rank: usize },
    #[error(
        "kernel `{kernel}`: the view passed as `{param}` reaches elements {lo}..={hi} of a buffer of {len}; fix its \
         offset, shape or strides"
    )]
    ViewOutOfBounds { kernel: String, param: String, lo: i128, hi: i128, len: usize },
    #[error("kernel `{kernel}`: argument `{param}`: {source}; fix the view's offset")]
    AddressOverflow { kernel: String, param: String, source: AddressOverflow },
    #[error("kernel `{kernel}`: grid {grid:?} has a zero dimension; launch at least one program per axis")]
    GridZero { kernel: String, grid: [u64; 3] },
    #[error(
        "kernel `{kernel}`: grid {grid:?} exceeds the device limit {max:?}; use bigger blocks or loop inside the kernel"
    )]
    GridTooLarge { kernel: String, grid: [u64; 3], max: [u32; 3] },
    #[error(
        "kernel `{kernel}`: {threads} threads per program exceed the device limit {max}; lower num_warps (now {num_warps})"
    )]
    BlockTooLarge { kernel: String, threads: u32, max: u32, num_warps: u32 },
    #[error(
        "kernel `{kernel}`: {bytes} bytes of shared memory per program ({site}) exceed the device's limit of {max} bytes; stage fewer or smaller blocks (a smaller BLOCK, or plain `load` instead of `load_staged`)"
    )]
    SharedMemory { kernel: String, bytes: u32, max: u32, site: String },
    #[error(
        "kernel `{kernel}`: the driver's compile for this device spills {local_bytes} bytes per thread to local memory ({registers} registers per thread, num_warps = {num_warps}), which the kernel then reads back from memory; give each thread fewer values (a smaller BLOCK, fewer num_stages, or more warps), or launch it anyway with JitKernel::allow_spills(true)"
    )]
    RegisterSpill { kernel: String, local_bytes: u32, registers: u32, num_warps: u32 },
    #[error(
        "kernel `{kernel}`: compiled for {arch}, which needs compute capability {}.{}, but the device is sm_{}{}; launch with JitKernel::arch({}) or an older target (sm_86 runs on every supported GPU)",
        arch.compute_capability().0,
        arch.compute_capability().1,
        device.0,
        device.1,
        arch_for(*device)
    )]
    ArchTooNew { kernel: String, arch: Arch, device: (i32, i32) },
    #[error(
        "kernel `{kernel}`: compiled for {arch}, whose code runs only on compute capability {}.{} (sm_90a's features are sm_90's alone), but the device is sm_{}{}; launch with JitKernel::arch({})",
        arch.compute_capability().0,
        arch.compute_capability().1,
        device.0,
        device.1,
        arch_for(*device)
    )]
    ArchSpecific { kernel: String, arch: Arch, device: (i32, i32) },
    #[error("kernel `{kernel}`: the grid closure needs constexpr `{name}`, which the launch does not set; add it")]
    MissingConstexpr { kernel: String, name: String },
    #[error("kernel `{kernel}`: the grid closure failed: {message}; fix the closure given to `try_grid`")]
    GridClosure { kernel: String, message: String },
    #[error(
        "kernel `{kernel}`: output `{output}` (bytes 0x{out_lo:x}..0x{out_hi:x}) overlaps `{other}` (bytes \
         0x{other_lo:x}..0x{other_hi:x}): the kernel writes `{output}` while it may still read `{other}`, so it could \
         overwrite its own input before reading it; pass a separate output buffer, or declare a kernel meant to work in \
         place with JitKernel::in_place(\"{output}\")"
    )]
    OverlappingOutput {
        kernel: String,
        output: String,
        other: String,
        out_lo: u64,
        out_hi: u64,
        other_lo: u64,
        other_hi: u64,
    },
    /// The overflow guard ([`overflow_guard`]): the kernel computes an offset in i32 and
    /// a tensor passed to it extends past `i32::MAX` elements. The diagnostic names the
    /// kernel, the op's file:line, the tensor and its extent, and the fix.
    #[error("{0}")]
    IndexOverflow(Box<Diagnostic>),
    #[error(transparent)]
    Spec(#[from] SpecError),
}

impl LaunchError {
    /// The diagnostic code of this refusal.
    pub fn code(&self) -> Code {
        match self {
            LaunchError::ForeignPointer { .. } => Code::LaunchForeignPointer,
            LaunchError::StreamMismatch { .. } => Code::LaunchStreamMismatch,
            LaunchError::StreamContext { .. } => Code::LaunchStreamContext,
            LaunchError::StrideRank { .. } => Code::LaunchStrideRank,
            LaunchError::ViewOutOfBounds { .. } => Code::LaunchViewOutOfBounds,
            LaunchError::GridZero { .. } => Code::LaunchGridZero,
            LaunchError::GridTooLarge { .. } => Code::LaunchGridTooLarge,
            LaunchError::BlockTooLarge { .. } => Code::LaunchBlockTooLarge,
            LaunchError::SharedMemory { .. } => Code::LaunchSharedMemory,
            LaunchError::RegisterSpill { .. } => Code::LaunchRegisterSpill,
            LaunchError::MissingConstexpr { .. } => Code::LaunchMissingConstexpr,
            LaunchError::ArchTooNew { .. } => Code::LaunchArchTooNew,
            LaunchError::ArchSpecific { .. } => Code::LaunchArchSpecific,
            LaunchError::GridClosure { .. } => Code::LaunchGridClosure,
            LaunchError::OverlappingOutput { .. } => Code::LaunchOverlappingOutput,
            LaunchError::AddressOverflow { .. } => Code::LaunchAddressOverflow,
            LaunchError::IndexOverflow(d) => d.code,
            LaunchError::Spec(e) => e.code(),
        }
    }
}

impl HasDiagnostics for LaunchError {
    fn diagnostics(&self) -> Vec<Diagnostic> {
        let kernel = match self {
            LaunchError::ForeignPointer { kernel, .. }
            | LaunchError::StreamMismatch { kernel, .. }
            | LaunchError::StreamContext { kernel, .. }
            | LaunchError::StrideRank { kernel, .. }
            | LaunchError::ViewOutOfBounds { kernel, .. }
            | LaunchError::GridZero { kernel, .. }
            | LaunchError::GridTooLarge { kernel, .. }
            | LaunchError::BlockTooLarge { kernel, .. }
            | LaunchError::SharedMemory { kernel, .. }
            | LaunchError::RegisterSpill { kernel, .. }
            | LaunchError::MissingConstexpr { kernel, .. }
            | LaunchError::ArchTooNew { kernel, .. }
            | LaunchError::ArchSpecific { kernel, .. }
            | LaunchError::GridClosure { kernel, .. }
            | LaunchError::OverlappingOutput { kernel, .. }
            | LaunchError::AddressOverflow { kernel, .. } => kernel,
            LaunchError::IndexOverflow(d) => return vec![(**d).clone()],
            LaunchError::Spec(e) => return e.diagnostics(),
        };
        vec![launch_diagnostic(self.code(), kernel, &self.to_string())]
    }
}

/// Checks count, types and pointers of `args` against `params`. `device` is the
/// runtime's device: a tensor whose buffer another device, runtime or context owns is
/// foreign. Allocates nothing unless it refuses (every launch runs it).
pub fn check_args(kernel: &str, params: &[ParamDecl], args: &[Arg<'_>], device: DeviceId) -> Result<(), LaunchError> {
    if params.len() != args.len() {
        return Err(SpecError::ArgCount {
            kernel: kernel.into(),
            expected: params.len(),
            got: args.len(),
            names: params.iter().map(|p| p.name).collect::<Vec<_>>().join(", "),
        }
        .into());
    }
    for (p, a) in params.iter().zip(args) {
        let ok = match (p.kind, a) {
            (ParamKind::Ptr(elem), Arg::Tensor(t)) => t.buffer.elem == elem,
            (ParamKind::Scalar(s), Arg::Int(_)) => s.is_int(),
            (ParamKind::Scalar(s), Arg::F32(_)) => s.is_float(),
            _ => false,
        };
        if !ok {
            return Err(SpecError::ArgType {
                kernel: kernel.into(),
                param: p.name,
                expected: p.kind.to_string(),
                got: a.describe(),
            }
            .into());
        }
        if let Arg::Tensor(t) = a {
            let param = || p.name.to_string();
            if t.buffer.ptr == 0 {
                return Err(SpecError::NullPtr { kernel: kernel.into(), param: p.name }.into());
            }
            if !device.owns(t.buffer.owner) {
                return Err(LaunchError::ForeignPointer { kernel: kernel.into(), param: param(), ptr: t.buffer.ptr });
            }
            t.address().map_err(|source| LaunchError::AddressOverflow {
                kernel: kernel.into(),
                param: param(),
                source,
            })?;
            if t.shape.len() != t.strides.len() {
                return Err(LaunchError::StrideRank {
                    kernel: kernel.into(),
                    param: param(),
                    shape_rank: t.shape.len(),
                    strides_rank: t.strides.len(),
                });
            }
            if let Some((lo, hi)) = t.reach()
                && (lo < 0 || hi >= t.buffer.len as i128)
            {
                return Err(LaunchError::ViewOutOfBounds {
                    kernel: kernel.into(),
                    param: param(),
                    lo,
                    hi,
                    len: t.buffer.len,
                });
            }
        }
    }
    Ok(())
}

/// Refuses a cudarc view whose use was ordered on another stream than `stream` (the
/// launch's `CUstream` address): cudarc's events would order the wrong stream.
pub fn check_streams(kernel: &str, params: &[ParamDecl], args: &[Arg<'_>], stream: usize) -> Result<(), LaunchError> {
    for (p, a) in params.iter().zip(args) {
        if let Arg::Tensor(t) = a
            && let Some(bound) = t.bound_stream()
            && bound != stream
        {
            return Err(LaunchError::StreamMismatch {
                kernel: kernel.into(),
                param: p.name.into(),
                bound,
                launch: stream,
            });
        }
    }
    Ok(())
}

/// Whether two tensor arguments share a byte, without allocating: only then does a launch
/// need [`check_overlap`] (and the traced kernel behind it).
pub fn any_overlap(args: &[Arg<'_>]) -> bool {
    let spans = || {
        args.iter().filter_map(|a| match a {
            Arg::Tensor(t) => view_bytes(t),
            Arg::Int(_) | Arg::F32(_) => None,
        })
    };
    spans().enumerate().any(|(i, a)| spans().skip(i + 1).any(|b| a.0 < b.1 && b.0 < a.1))
}

/// Whether a tensor argument's view reaches past an i32 offset, without allocating: only
/// then does a launch need the overflow guard ([`needs_overflow_guard`] on
/// [`tensor_extents`] says the same, allocating).
pub fn any_past_i32(args: &[Arg<'_>]) -> bool {
    args.iter().any(|a| match a {
        Arg::Tensor(t) if t.shape.len() == t.strides.len() => {
            let dims = t.shape.iter().zip(&t.strides).map(|(&n, s)| (n as u64, s.unsigned_abs() as u64));
            rtriton::guard::view_span(dims) > I32_MAX_OFFSET
        }
        _ => false,
    })
}

/// The bytes `[lo, hi)` a tensor view's extent spans (from its lowest to its highest
/// element), `None` for an empty view or one past the address space.
pub fn view_bytes(t: &super::TensorArg<'_>) -> Option<(u64, u64)> {
    let (lo, hi) = t.reach()?;
    let size = i128::from(t.buffer.elem.size_bytes());
    let base = i128::from(t.buffer.ptr);
    let lo = u64::try_from(base + lo * size).ok()?;
    let hi = u64::try_from(base + (hi + 1) * size).ok()?;
    Some((lo, hi))
}

/// A tensor argument's index and the bytes `[lo, hi)` its view spans.
pub type Span = (usize, (u64, u64));

/// The pairs `(i, j)`, `i < j`, of tensor arguments whose extents share a byte (the same
/// allocation, overlapping ranges), with their byte ranges.
pub fn overlapping_tensors(args: &[Arg<'_>]) -> Vec<(Span, Span)> {
    let spans: Vec<Span> = args
        .iter()
        .enumerate()
        .filter_map(|(i, a)| match a {
            Arg::Tensor(t) => view_bytes(t).map(|b| (i, b)),
            Arg::Int(_) | Arg::F32(_) => None,
        })
        .collect();
    let mut pairs = Vec::new();
    for (k, &(i, a)) in spans.iter().enumerate() {
        for &(j, b) in &spans[k + 1..] {
            if a.0 < b.1 && b.0 < a.1 {
                pairs.push(((i, a), (j, b)));
            }
        }
    }
    pairs
}

/// Refuses an output that overlaps another tensor argument ([`LaunchError::OverlappingOutput`]):
/// `written` gives the indices of the parameters the kernel writes through (called only
/// when two tensors overlap, since it needs the traced kernel:
/// `rtriton::analysis::writes::written_params`); a pair is allowed when either side is a
/// parameter declared `in_place`, or when neither is written (two inputs may share memory).
pub fn check_overlap<E>(
    kernel: &str,
    params: &[ParamDecl],
    args: &[Arg<'_>],
    in_place: &[&str],
    written: impl FnOnce() -> Result<Vec<usize>, E>,
) -> Result<Result<(), LaunchError>, E> {
    let pairs = overlapping_tensors(args);
    if pairs.is_empty() {
        return Ok(Ok(()));
    }
    let written = written()?;
    let declared = |i: usize| params.get(i).is_some_and(|p| in_place.contains(&p.name));
    for ((i, a), (j, b)) in pairs {
        if declared(i) || declared(j) {
            continue;
        }
        let ((o, ob), (n, nb)) = if written.contains(&i) {
            ((i, a), (j, b))
        } else if written.contains(&j) {
            ((j, b), (i, a))
        } else {
            continue;
        };
        let name = |k: usize| params.get(k).map_or_else(|| format!("argument {k}"), |p| p.name.to_string());
        return Ok(Err(LaunchError::OverlappingOutput {
            kernel: kernel.into(),
            output: name(o),
            other: name(n),
            out_lo: ob.0,
            out_hi: ob.1,
            other_lo: nb.0,
            other_hi: nb.1,
        }));
    }
    Ok(Ok(()))
}

/// The values specialization sees, in parameter order (a tensor is its address, checked).
pub fn arg_values(kernel: &str, params: &[ParamDecl], args: &[Arg<'_>]) -> Result<Vec<ArgValue>, LaunchError> {
    params
        .iter()
        .zip(args)
        .map(|(p, a)| {
            a.value().map_err(|source| LaunchError::AddressOverflow {
                kernel: kernel.into(),
                param: p.name.into(),
                source,
            })
        })
        .collect()
}

/// Checks a grid against zero and the device's per-axis limits; returns it as `u32`s.
pub fn check_grid(kernel: &str, grid: [u64; 3], max: [u32; 3]) -> Result<[u32; 3], LaunchError> {
    if grid.contains(&0) {
        return Err(LaunchError::GridZero { kernel: kernel.into(), grid });
    }
    if grid.iter().zip(max).any(|(&g, m)| g > m as u64) {
        return Err(LaunchError::GridTooLarge { kernel: kernel.into(), grid, max });
    }
    Ok(grid.map(|g| g as u32))
}

/// Checks that a device of compute capability `device` runs code for `arch` (a device
/// JIT-compiles PTX for its own or an older target, never for a newer one).
pub fn check_arch(kernel: &str, arch: Arch, device: (i32, i32)) -> Result<(), LaunchError> {
    let (major, minor) = arch.compute_capability();
    if (major as i32, minor as i32) > device {
        return Err(LaunchError::ArchTooNew { kernel: kernel.into(), arch, device });
    }
    if arch.arch_specific() && (major as i32, minor as i32) != device {
        return Err(LaunchError::ArchSpecific { kernel: kernel.into(), arch, device });
    }
    Ok(())
}

/// The newest target a device of compute capability `device` runs (for the refusal's
/// advice).
fn arch_for(device: (i32, i32)) -> String {
    // Architecture-specific targets are opted into, never advised.
    let newest = Arch::ALL.into_iter().rev().find(|a| {
        let (major, minor) = a.compute_capability();
        !a.arch_specific() && (major as i32, minor as i32) <= device
    });
    newest.map_or("Arch::Sm80".to_string(), |a| format!("Arch::{a:?}"))
}

/// Checks the threads per program against the device limit.
pub fn check_block(kernel: &str, threads: u32, max: u32, num_warps: u32) -> Result<(), LaunchError> {
    if threads == 0 || threads > max {
        return Err(LaunchError::BlockTooLarge { kernel: kernel.into(), threads, max, num_warps });
    }
    Ok(())
}

/// Checks the shared memory a program of `ptx` uses against the most a program may use on
/// the device when its kernel opts in (`max_optin`, `CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN`):
/// a kernel past it is refused here, naming the op whose buffer raised it, before the
/// driver would refuse the function attribute or the launch.
pub fn check_shared(kernel: &str, ptx: &CompiledPtx, max_optin: u32) -> Result<(), LaunchError> {
    if ptx.shared_bytes > max_optin {
        let site = match &ptx.shared_site {
            Some(loc) => format!("the staged load or pipelined copy at {loc} raised it last"),
            None => "the shared scratch of its reductions and exchanges".to_string(),
        };
        return Err(LaunchError::SharedMemory { kernel: kernel.into(), bytes: ptx.shared_bytes, max: max_optin, site });
    }
    Ok(())
}

/// The extents of the tensors passed to pointer parameters, as the overflow guard sees
/// them: the kernel receives the address of the view's first element (see
/// [`TensorArg::address`](super::TensorArg::address)), so the largest offset it can reach
/// is the view's span, `sum over dims of (size - 1) * |stride|`. Arguments that are not
/// tensors (and tensors of a malformed rank, which [`check_args`] refuses) give none.
pub fn tensor_extents(params: &[ParamDecl], args: &[Arg<'_>]) -> Vec<TensorExtent> {
    params
        .iter()
        .zip(args)
        .filter_map(|(p, a)| match (p.kind, a) {
            (ParamKind::Ptr(_), Arg::Tensor(t)) if t.shape.len() == t.strides.len() => {
                let shape: Vec<u64> = t.shape.iter().map(|&n| n as u64).collect();
                let strides: Vec<i64> = t.strides.iter().map(|&s| s as i64).collect();
                Some(TensorExtent::of_view(p.name, 0, &shape, &strides))
            }
            _ => None,
        })
        .collect()
}

/// Whether any extent passes what an i32 index reaches: only then does the guard need
/// the traced kernel (a launch on smaller tensors is accepted whatever its index math).
pub fn needs_overflow_guard(extents: &[TensorExtent]) -> bool {
    extents.iter().any(|e| e.max_offset_elems > I32_MAX_OFFSET)
}

/// The launch-time overflow guard: refuses a launch when a tensor's largest offset passes
/// `i32::MAX` and an offset into it is computed in i32, given `widths`, the summary of the
/// kernel as traced for this launch's specialization (`OffsetWidths::of`, which a runtime
/// keeps per compiled kernel). Pure: no device, no allocation; the extents may describe
/// tensors that do not exist.
pub fn overflow_guard(widths: &OffsetWidths, extents: &[TensorExtent]) -> Result<(), LaunchError> {
    if !needs_overflow_guard(extents) {
        return Ok(());
    }
    widths.check(extents).map_err(|d| LaunchError::IndexOverflow(Box::new(d)))
}

#[cfg(test)]
mod tests {
    use rtriton::ir::ScalarType;
    use rtriton_kernels::RowMaxVariant;

    use super::*;
    use crate::driver::{Owner, RawBuffer};
    use crate::launch::args::TensorArg;

    const OWNER: u64 = 7;
    const DEVICE: DeviceId = DeviceId { gpu: OWNER, context: 0x5000 };

    fn owned(ptr: u64, len: usize) -> RawBuffer {
        RawBuffer { owner: Owner::Gpu(OWNER), ..RawBuffer::unowned(ptr, len, ScalarType::F32) }
    }

    fn row_max_args<'a>(x: TensorArg<'a>, y: TensorArg<'a>) -> Vec<Arg<'a>> {
        vec![Arg::Tensor(x), Arg::Tensor(y), Arg::Int(4), Arg::Int(8), Arg::Int(8), Arg::Int(1)]
    }

    fn check(args: &[Arg<'_>]) -> Result<(), LaunchError> {
        let def = RowMaxVariant::RowMax.def();
        check_args(def.name, &def.params, args, DEVICE)
    }

    fn x() -> TensorArg<'static> {
        TensorArg::from_raw(owned(0x1000, 32), &[4, 8], &[8, 1])
    }

    fn y() -> TensorArg<'static> {
        TensorArg::from_raw(owned(0x2000, 4), &[4], &[1])
    }

    fn no_trace() -> Result<Vec<usize>, ()> {
        panic!("disjoint tensors need no trace")
    }

    /// An output that shares bytes with an input is refused before the launch, naming both;
    /// disjoint views of one buffer, two overlapping inputs, and a declared in-place
    /// parameter pass.
    #[test]
    fn an_output_overlapping_an_input_is_refused_unless_declared_in_place() {
        let def = RowMaxVariant::RowMax.def();
        fn check(args: &[Arg<'_>], in_place: &[&str], written: Vec<usize>) -> Result<(), LaunchError> {
            let def = RowMaxVariant::RowMax.def();
            check_overlap(def.name, &def.params, args, in_place, || Ok::<_, ()>(written)).unwrap()
        }
        // y inside x's buffer, over x's first row.
        let y_in_x = TensorArg::from_raw(owned(0x1000, 32), &[4], &[1]);
        let e = check(&row_max_args(x(), y_in_x.clone()), &[], vec![1]).unwrap_err();
        assert_eq!(e.code(), Code::LaunchOverlappingOutput);
        assert_eq!(
            e.to_string(),
            "kernel `row_max`: output `y_ptr` (bytes 0x1000..0x1010) overlaps `x_ptr` (bytes 0x1000..0x1080): the \
             kernel writes `y_ptr` while it may still read `x_ptr`, so it could overwrite its own input before reading \
             it; pass a separate output buffer, or declare a kernel meant to work in place with \
             JitKernel::in_place(\"y_ptr\")"
        );
        assert_eq!(check(&row_max_args(x(), y_in_x.clone()), &["y_ptr"], vec![1]), Ok(()));
        assert_eq!(check(&row_max_args(x(), y_in_x), &[], vec![]), Ok(()), "two inputs may share bytes");
        // y in the same buffer past x's last element: no shared byte.
        let x_half = TensorArg::from_raw(owned(0x1000, 64), &[4, 8], &[8, 1]);
        let y_after = TensorArg::from_raw(owned(0x1000, 64), &[4], &[1]).with_offset(32);
        let args = row_max_args(x_half, y_after);
        assert_eq!(check_overlap(def.name, &def.params, &args, &[], no_trace).unwrap(), Ok(()));
        assert_eq!(check_overlap(def.name, &def.params, &row_max_args(x(), y()), &[], no_trace).unwrap(), Ok(()));
    }

    /// The written parameters come from the traced kernel: row_max writes `y_ptr` only.
    #[test]
    fn the_written_parameters_are_the_stored_ones() {
        let def = RowMaxVariant::RowMaxLoop.def();
        let k = rtriton::trace::trace_unspecialized(&def, &[("BLOCK", 16)]).unwrap();
        assert_eq!(rtriton::analysis::writes::written_params(&k), vec![1]);
    }

    #[test]
    fn a_correct_launch_passes() {
        assert_eq!(check(&row_max_args(x(), y())), Ok(()));
    }

    #[test]
    fn wrong_count_names_the_kernel_and_parameters() {
        let e = check(&row_max_args(x(), y())[..3]).unwrap_err();
        assert_eq!(
            e.to_string(),
            "kernel `row_max` takes 6 runtime arguments (x_ptr, y_ptr, n_rows, n_cols, stride_row, stride_col), got 3"
        );
    }

    #[test]
    fn a_float_for_an_int_is_a_type_error() {
        let mut args = row_max_args(x(), y());
        args[3] = Arg::F32(8.0);
        let e = check(&args).unwrap_err();
        assert_eq!(
            e.to_string(),
            "kernel `row_max`: argument `n_cols` is declared i32, got a float; pass a value of the declared type"
        );
    }

    #[test]
    fn a_buffer_of_the_wrong_element_type_is_a_type_error() {
        let ints = RawBuffer { elem: ScalarType::I32, ..owned(0x1000, 32) };
        let e = check(&row_max_args(TensorArg::from_raw(ints, &[4, 8], &[8, 1]), y())).unwrap_err();
        assert!(matches!(e, LaunchError::Spec(SpecError::ArgType { param: "x_ptr", .. })), "{e}");
    }

    #[test]
    fn null_and_foreign_pointers_are_refused() {
        let null = TensorArg::from_raw(owned(0, 32), &[4, 8], &[8, 1]);
        assert!(matches!(check(&row_max_args(null, y())), Err(LaunchError::Spec(SpecError::NullPtr { .. }))));
        let foreign = TensorArg::from_raw(RawBuffer::unowned(0x1000, 32, ScalarType::F32), &[4, 8], &[8, 1]);
        let e = check(&row_max_args(foreign, y())).unwrap_err();
        assert!(e.to_string().contains("which this runtime did not allocate"), "{e}");
    }

    #[test]
    fn an_offset_past_the_address_space_is_refused_by_name() {
        let e = check(&row_max_args(x().with_offset(usize::MAX / 2), y())).unwrap_err();
        assert_eq!(
            e.to_string(),
            format!(
                "kernel `row_max`: argument `x_ptr`: an offset of {} elements of 4 bytes from 0x1000 passes the end of \
                 the 64-bit address space; fix the view's offset",
                usize::MAX / 2
            )
        );
        let def = RowMaxVariant::RowMax.def();
        let args = row_max_args(x().with_offset(usize::MAX / 2), y());
        assert_eq!(arg_values(def.name, &def.params, &args), Err(e));
    }

    #[test]
    fn views_reaching_outside_their_buffer_are_refused() {
        // x[1:] of a 4x8 buffer seen as 4x8: one element too far.
        let e = check(&row_max_args(x().with_offset(1), y())).unwrap_err();
        assert_eq!(
            e.to_string(),
            "kernel `row_max`: the view passed as `x_ptr` reaches elements 1..=32 of a buffer of 32; fix its offset, \
             shape or strides"
        );
        // A transposed view fits; a negative stride reaching before the start does not.
        assert_eq!(check(&row_max_args(TensorArg::from_raw(owned(0x1000, 32), &[8, 4], &[1, 8]), y())), Ok(()));
        let neg = TensorArg::from_raw(owned(0x1000, 32), &[4, 8], &[8, -1]);
        assert!(matches!(check(&row_max_args(neg, y())), Err(LaunchError::ViewOutOfBounds { lo: -7, .. })));
        // Empty views touch nothing.
        assert_eq!(check(&row_max_args(TensorArg::from_raw(owned(0x1000, 0), &[0, 8], &[8, 1]), y())), Ok(()));
    }

    #[test]
    fn grids_of_zero_or_beyond_the_device_are_refused() {
        let max = [2_147_483_647, 65535, 65535];
        assert_eq!(check_grid("k", [10, 1, 1], max), Ok([10, 1, 1]));
        assert!(matches!(check_grid("k", [0, 1, 1], max), Err(LaunchError::GridZero { .. })));
        let e = check_grid("k", [1, 70000, 1], max).unwrap_err();
        assert!(e.to_string().starts_with("kernel `k`: grid [1, 70000, 1] exceeds the device limit"), "{e}");
        assert!(check_block("k", 2048, 1024, 64).is_err());
    }

    /// Who may pass a buffer: the runtime's own buffers, cudarc allocations of its
    /// context, and raw pointers the caller vouched for; not another runtime's buffers,
    /// another context's allocations or an unowned address.
    #[test]
    fn owners_a_launch_accepts() {
        let table = [
            (Owner::Gpu(OWNER), true),
            (Owner::Gpu(OWNER + 1), false),
            (Owner::Context(0x5000), true),
            (Owner::Context(0x6000), false),
            (Owner::Caller, true),
            (Owner::Nobody, false),
        ];
        for (owner, ok) in table {
            assert_eq!(DEVICE.owns(owner), ok, "{owner:?}");
            let x = TensorArg::from_raw(RawBuffer { owner, ..owned(0x1000, 32) }, &[4, 8], &[8, 1]);
            let r = check(&row_max_args(x, y()));
            assert_eq!(r.is_ok(), ok, "{owner:?}: {r:?}");
            if !ok {
                assert_eq!(r.unwrap_err().code(), Code::LaunchForeignPointer);
            }
        }
        // A device with no context (tests) accepts no context-owned buffer.
        let no_ctx = DeviceId { gpu: OWNER, context: 0 };
        assert!(!no_ctx.owns(Owner::Context(0)));
    }

    /// The fast path's allocation-free tests agree with the checks they stand in for:
    /// `any_overlap` with `overlapping_tensors`, `any_past_i32` with the guard's extents.
    #[test]
    fn the_allocation_free_tests_agree_with_the_full_checks() {
        let views = [
            TensorArg::from_raw(owned(0x1000, 64), &[4, 8], &[8, 1]),
            TensorArg::from_raw(owned(0x1000, 64), &[4], &[1]).with_offset(32),
            TensorArg::from_raw(owned(0x1000, 64), &[4], &[1]).with_offset(31),
            TensorArg::from_raw(owned(0x1000, 64), &[8], &[-1]).with_offset(63),
            TensorArg::from_raw(owned(0x1000, 64), &[0, 8], &[8, 1]),
            TensorArg::from_raw(owned(0x1040, 16), &[16], &[1]),
            TensorArg::from_raw(owned(0x1000, 1 << 33), &[1 << 16, 1 << 15], &[1 << 15, 1]),
            TensorArg::from_raw(owned(0x1000, 1 << 33), &[2, 1 << 31], &[1, 2]),
            TensorArg::from_raw(owned(0x1000, 1 << 31), &[1 << 16, 1 << 15], &[1 << 15, 1]),
        ];
        let def = RowMaxVariant::RowMax.def();
        for a in &views {
            for b in &views {
                let args = row_max_args(a.clone(), b.clone());
                assert_eq!(any_overlap(&args), !overlapping_tensors(&args).is_empty(), "{a:?} {b:?}");
                let extents = tensor_extents(&def.params, &args);
                assert_eq!(any_past_i32(&args), needs_overflow_guard(&extents), "{a:?} {b:?}");
            }
        }
    }

    /// A cudarc view's stream must be the launch's.
    #[test]
    fn a_view_is_launched_on_no_other_stream_than_the_one_it_was_bound_to() {
        let def = RowMaxVariant::RowMax.def();
        let plain = row_max_args(x(), y());
        assert_eq!(check_streams(def.name, &def.params, &plain, 0x77), Ok(()), "rtriton's buffers bind no stream");
        // SAFETY: never launched; only the argument's description is checked.
        let raw = unsafe { TensorArg::from_device_ptr::<f32>(0x1000, 130, &[4, 8], &[8, 1]) };
        assert_eq!((raw.buffer.len, raw.buffer.owner, raw.bound_stream()), (32, Owner::Caller, None));
    }

    /// A device runs code for its own target and older ones; a newer target is refused
    /// with `RT0720`, naming the target, the device and the newest target it runs.
    #[test]
    fn a_target_newer_than_the_device_is_refused() {
        assert!(check_arch("k", Arch::Sm86, (9, 0)).is_ok());
        assert!(check_arch("k", Arch::Sm89, (8, 9)).is_ok());
        assert!(check_arch("k", Arch::Sm90, (9, 0)).is_ok());
        assert!(check_arch("k", Arch::Sm90, (10, 0)).is_ok());
        let e = check_arch("k", Arch::Sm90, (8, 6)).unwrap_err();
        assert_eq!(e.code(), Code::LaunchArchTooNew);
        let text = e.to_string();
        assert!(
            text.contains("compiled for sm_90, which needs compute capability 9.0, but the device is sm_86"),
            "{text}"
        );
        assert!(text.contains("JitKernel::arch(Arch::Sm86)"), "{text}");
        assert_eq!(e.diagnostics()[0].code, Code::LaunchArchTooNew);
        let e = check_arch("k", Arch::Sm89, (8, 0)).unwrap_err();
        assert!(e.to_string().contains("JitKernel::arch(Arch::Sm80)"), "{e}");
    }

    /// sm_90a code runs on compute capability 9.0 alone: a later device refuses it with
    /// `RT0721` and the advice of a portable target, an older one as too new (`RT0720`).
    #[test]
    fn an_architecture_specific_target_runs_on_its_own_device_only() {
        assert!(check_arch("k", Arch::Sm90a, (9, 0)).is_ok());
        let e = check_arch("k", Arch::Sm90a, (10, 0)).unwrap_err();
        assert_eq!(e.code(), Code::LaunchArchSpecific);
        let text = e.to_string();
        assert!(text.contains("compiled for sm_90a, whose code runs only on compute capability 9.0"), "{text}");
        assert!(text.contains("the device is sm_100; launch with JitKernel::arch(Arch::Sm90)"), "{text}");
        assert_eq!(check_arch("k", Arch::Sm90a, (8, 6)).unwrap_err().code(), Code::LaunchArchTooNew);
        assert!(Arch::Sm90a.runs_on((9, 0)) && !Arch::Sm90a.runs_on((10, 0)) && Arch::Sm90.runs_on((10, 0)));
        assert_eq!("sm_90a".parse::<Arch>(), Ok(Arch::Sm90a));
    }

    /// The automatic choice: sm_90a only on compute capability 9.0 and only when asked for;
    /// otherwise the newest portable target the device runs.
    #[test]
    fn the_newest_target_takes_sm_90a_only_when_opted_into_on_its_own_device() {
        let table = [
            ((9, 0), true, Some(Arch::Sm90a)),
            ((9, 0), false, Some(Arch::Sm90)),
            ((10, 0), true, Some(Arch::Sm90)),
            ((8, 9), true, Some(Arch::Sm89)),
            ((8, 6), false, Some(Arch::Sm86)),
            ((8, 0), true, Some(Arch::Sm80)),
            ((7, 5), true, None),
        ];
        for (device, opt_in, want) in table {
            assert_eq!(Arch::newest_for(device, opt_in), want, "{device:?}, opted in: {opt_in}");
        }
    }
}
