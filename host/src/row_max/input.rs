//! What the entry point accepts: `x` a 2-D view of any strides and offset, `y` one
//! contiguous element per row of `x`'s dtype, sharing no byte with `x`. Anything else is an `RT0760` diagnostic at
//! the caller's line, saying what to pass instead (a view outside its buffer or a size
//! past `i32` is left to the launch checks, which name it the same way for every kernel).

use rtriton::diag::{Code, Diagnostic};
use rtriton::ir::{ScalarType, SourceLoc};
use rtriton_kernels::row_max_plan::{UnsupportedDtype, kernel_for, vec_promise};

use crate::error::HostError;
use crate::launch::{TensorArg, view_bytes};

/// The kernel the entry point's errors name.
pub const ENTRY_KERNEL: &str = "row_max_split";

/// A checked input: the dtype, the shape and strides the kernel receives.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Input {
    pub dtype: ScalarType,
    pub n_rows: usize,
    pub n_cols: usize,
    pub stride_row: isize,
    pub stride_col: isize,
}

impl Input {
    /// The `VEC` this input promises the kernel (`row_max_plan::vec_promise`).
    pub fn vec_promise(&self) -> usize {
        vec_promise(self.dtype, self.n_cols, self.stride_row, self.stride_col)
    }
}

pub(crate) fn refuse(loc: SourceLoc, message: String, help: &str) -> HostError {
    HostError::Input(Box::new(Diagnostic::error(Code::EntryPointInput, ENTRY_KERNEL, loc, message, help)))
}

/// The refusal of a dtype with no kernel.
pub fn unsupported(e: &UnsupportedDtype, loc: SourceLoc) -> HostError {
    refuse(loc, e.to_string(), "convert x to one of the dtypes listed first")
}

/// Refuses a `y` that shares a byte with `x`'s extent (the same allocation, overlapping
/// byte ranges): the entry point writes `y` (and fills it with the identity first when the
/// plan can split rows), which would overwrite `x` before the kernel reads it. Checked
/// before anything is written.
pub fn check_no_overlap(x: &TensorArg<'_>, y: &TensorArg<'_>, loc: SourceLoc) -> Result<(), HostError> {
    let (Some(xb), Some(yb)) = (view_bytes(x), view_bytes(y)) else { return Ok(()) };
    if xb.0 < yb.1 && yb.0 < xb.1 {
        return Err(refuse(
            loc,
            format!(
                "the output y (bytes 0x{:x}..0x{:x}) overlaps the input x (bytes 0x{:x}..0x{:x}): row_max writes y \
                 (filling it with the identity first when rows are split), which would overwrite x before it is read",
                yb.0, yb.1, xb.0, xb.1
            ),
            "pass a y that shares no byte with x: a separate allocation, or a part of x's buffer outside x's view",
        ));
    }
    Ok(())
}

/// Checks `x` and `y` (see the module doc); `loc` is the caller's line.
pub fn check(x: &TensorArg<'_>, y: &TensorArg<'_>, loc: SourceLoc) -> Result<Input, HostError> {
    let dtype = x.buffer.elem;
    if x.shape.len() != 2 || x.strides.len() != 2 {
        return Err(refuse(
            loc,
            format!("row_max reduces the rows of a 2-D view; x has shape {:?} and strides {:?}", x.shape, x.strides),
            "pass a 2-D view (TensorArg::new(&buffer, &[rows, cols], &[stride_row, stride_col])); reshape other ranks first",
        ));
    }
    kernel_for(dtype).map_err(|e| unsupported(&e, loc))?;
    let n_rows = x.shape[0];
    let y_ok = y.shape == [n_rows] && y.strides.len() == 1 && (n_rows <= 1 || y.strides[0] == 1);
    if !y_ok {
        return Err(refuse(
            loc,
            format!(
                "y must hold one element per row of x ({n_rows}) contiguously; it has shape {:?} and strides {:?}",
                y.shape, y.strides
            ),
            "pass TensorArg::contiguous(&y, &[n_rows]) for a buffer of at least n_rows elements",
        ));
    }
    if y.buffer.elem != dtype {
        return Err(refuse(
            loc,
            format!("y holds {} elements, x holds {dtype}: the maxima are of x's dtype", y.buffer.elem),
            "allocate y with x's element type",
        ));
    }
    check_no_overlap(x, y, loc)?;
    Ok(Input { dtype, n_rows, n_cols: x.shape[1], stride_row: x.strides[0], stride_col: x.strides[1] })
}
