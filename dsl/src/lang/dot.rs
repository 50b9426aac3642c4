//! `dot` (Triton's `tl.dot`): the matrix product of two 2-D blocks added to an
//! accumulator. The shape and dtype rules are `ir/dot.rs`'s (the verifier checks the same
//! ones); what a `dot` computes, and in which order, is `interp/dot.rs` and
//! `docs/semantics.md` ("dot"). A bad shape is a located [`Code::TraceDotShape`], a bad
//! dtype a [`Code::TraceDotDType`], each naming the shapes or dtypes and the fix; after
//! one, `dot` returns the accumulator so tracing goes on and reports every error.

use crate::diag::Code;
use crate::ir::{DType, InputPrecision, OpKind, Shape, SourceLoc, TensorType, Value, dot_acc_type, dot_shape_problem};
use crate::trace::{Builder, with_builder};

use super::dtype::ScalarMarker;
use super::tensor::Tensor;

/// The options of [`dot_with`] (Triton's `tl.dot` keyword arguments).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct DotOptions {
    /// How `f32` operands are multiplied: `Ieee` (exact products, Triton's `"ieee"`) or
    /// `Tf32` (operands rounded to tf32 first, Triton's `"tf32"`). The default is `Ieee`
    /// (Triton's default is `"tf32"` on GPUs that have it: ask for it by name). Other
    /// operand dtypes ignore `Ieee`; `Tf32` on them is an error.
    pub input_precision: InputPrecision,
    /// The result's dtype (Triton's `out_dtype`). It must be the accumulator's, which is
    /// `f32` for float operands and `i32` for `i8` ones: `None` means that one.
    pub out_dtype: Option<DType>,
}

/// `tl.dot(a, b, acc)`: `acc + a @ b` for `a` of shape `[M, K]` and `b` of shape
/// `[K, N]`, `acc` and the result `[M, N]`; `M`, `N`, `K` powers of two of at least 16.
/// `f16 x f16` and `bf16 x bf16` accumulate in `f32`, `f32 x f32` in `f32` (exact products,
/// `input_precision` `ieee`), `i8 x i8` in `i32`, and two fp8 blocks (`F8E4M3` or
/// `F8E5M2`, the two may differ) in `f32`, widened to `f16` first (exactly). For each
/// element, `k` runs from 0 up with one rounding per step (`docs/semantics.md`, "dot").
#[track_caller]
pub fn dot<A: ScalarMarker, B: ScalarMarker, C: ScalarMarker>(a: Tensor<A>, b: Tensor<B>, acc: Tensor<C>) -> Tensor<C> {
    let loc = SourceLoc::caller();
    Tensor::from_value(with_builder(|bl| bl.dot(a.id(), b.id(), acc.id(), DotOptions::default(), loc)))
}

/// [`dot`] with Triton's keyword arguments ([`DotOptions`]): `dot_with(a, b, acc,
/// DotOptions { input_precision: InputPrecision::Tf32, ..Default::default() })`.
#[track_caller]
pub fn dot_with<A: ScalarMarker, B: ScalarMarker, C: ScalarMarker>(
    a: Tensor<A>,
    b: Tensor<B>,
    acc: Tensor<C>,
    options: DotOptions,
) -> Tensor<C> {
    let loc = SourceLoc::caller();
    Tensor::from_value(with_builder(|bl| bl.dot(a.id(), b.id(), acc.id(), options, loc)))
}

impl Builder {
    /// `acc + a @ b`, checked; on an error, `acc` itself.
    pub fn dot(&mut self, a: Value, b: Value, acc: Value, options: DotOptions, loc: SourceLoc) -> Value {
        let (ta, tb, tc) = (self.ty(a).clone(), self.ty(b).clone(), self.ty(acc).clone());
        if let Some(problem) = dot_shape_problem(&ta.shape, &tb.shape) {
            let help = if ta.shape.rank() != 2 || tb.shape.rank() != 2 {
                "give dot two 2-D blocks, e.g. a row vector as `expand_dims(x, 0)` (shape [1, K]) is too small: \
                 pad it to a [16, K] block and mask the extra rows"
                    .to_string()
            } else if ta.shape.dims()[1] != tb.shape.dims()[0] {
                format!(
                    "a [M, K] block times a [K, N] block: the columns of the first ({}) must equal the rows of the \
                     second ({}); `trans(b)` if b is stored transposed",
                    ta.shape.dims()[1],
                    tb.shape.dims()[0]
                )
            } else {
                "use power-of-two tiles of at least 16 along every dim and mask the tails (Triton's rule)".to_string()
            };
            self.error_with(Code::TraceDotShape, loc, problem, help);
            return acc;
        }
        let want_shape = Shape(vec![ta.shape.dims()[0], tb.shape.dims()[1]]);
        // fp8 operands (either format, mixed too, as Triton takes them) are widened to f16,
        // which holds every e4m3 and e5m2 value exactly: the products and the order are then
        // those of an f16 `dot` (Triton does the same on targets without fp8 tensor cores).
        let f16 = DType::Scalar(crate::ir::ScalarType::F16);
        let (a, b) = if is_fp8(ta.dtype) && is_fp8(tb.dtype) {
            (self.cast(a, f16, loc, false), self.cast(b, f16, loc, false))
        } else {
            (a, b)
        };
        let (ca, cb) = (self.ty(a).dtype, self.ty(b).dtype);
        let acc_dtype = match dot_acc_type(ca, cb) {
            Ok(s) => DType::Scalar(s),
            Err(problem) => {
                let help = if ta.dtype != tb.dtype {
                    "convert one operand to the other's dtype first (`b.to::<half::f16>()`), or both to f32; only \
                     two fp8 formats mix"
                } else {
                    "dot takes f16, bf16, f32, i8 or fp8 operands: convert them first (`x.to::<f32>()`)"
                };
                let problem = if is_fp8(ta.dtype) || is_fp8(tb.dtype) {
                    format!("dot operands of two dtypes, {} and {}", ta.dtype, tb.dtype)
                } else {
                    problem
                };
                self.error_with(Code::TraceDotDType, loc, problem, help);
                return acc;
            }
        };
        let want = TensorType::new(acc_dtype, want_shape);
        if tc.shape != want.shape {
            self.error_with(
                Code::TraceDotShape,
                loc,
                format!(
                    "dot of shapes {} and {} with an accumulator of shape {}: the result is {}",
                    ta.shape, tb.shape, tc.shape, want.shape
                ),
                format!("make the accumulator a {} block, e.g. `zeros::<f32>(&{:?})`", want.shape, want.shape.dims()),
            );
            return acc;
        }
        if tc.dtype != acc_dtype {
            self.error_with(
                Code::TraceDotDType,
                loc,
                format!(
                    "dot of {} by {} accumulates in {acc_dtype}, got an accumulator of {}",
                    ta.dtype, tb.dtype, tc.dtype
                ),
                format!("make the accumulator {acc_dtype} and convert the result afterwards (`.to::<...>()`)"),
            );
            return acc;
        }
        if let Some(out) = options.out_dtype
            && out != acc_dtype
        {
            self.error_with(
                Code::TraceDotDType,
                loc,
                format!("dot of {} by {} with out_dtype {out}: it accumulates in {acc_dtype}", ta.dtype, tb.dtype),
                format!("leave out_dtype unset (or {acc_dtype}) and convert the result afterwards"),
            );
            return acc;
        }
        if options.input_precision == InputPrecision::Tf32 && ta.dtype != DType::F32 {
            self.error_with(
                Code::TraceDotDType,
                loc,
                format!("dot with input_precision tf32 of {} operands: tf32 rounds f32 operands only", ta.dtype),
                "leave input_precision at its default for non-f32 operands",
            );
            return acc;
        }
        self.push1(OpKind::Dot { a, b, acc, input_precision: options.input_precision }, want, loc)
    }
}

/// Whether `d` is one of the fp8 storage dtypes.
fn is_fp8(d: DType) -> bool {
    matches!(d.scalar(), Some(crate::ir::ScalarType::F8E4M3 | crate::ir::ScalarType::F8E5M2))
}
