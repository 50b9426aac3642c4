//! Triton's `tl.inline_asm_elementwise`: PTX written by the kernel's author, run element
//! by element, and the CPU model that stands in for it off the GPU (`.with_model`).

use crate::ir::inline_asm::problems;
use crate::ir::{AsmModel, DType, OpKind, Shape, SourceLoc, TensorType, Value, ValueDef};
use crate::trace::with_builder;

use super::dtype::ScalarMarker;
use super::semantic::broadcast_shapes;
use super::tensor::Tensor;

/// The result dtypes of an asm: one dtype marker (`i32`) gives one tensor, a tuple of
/// markers (`(i32, f32)`) a tuple of tensors (Triton's `dtype` or tuple of dtypes).
pub trait AsmDtypes {
    /// What the call returns.
    type Out;
    /// The dtypes, in result order.
    fn asm_dtypes() -> Vec<DType>;
    /// The results as tensors.
    fn asm_results(values: &[Value]) -> Self::Out;
}

macro_rules! asm_dtype {
    ($($t:ty),*) => {$(
        impl AsmDtypes for $t {
            type Out = Tensor<$t>;
            fn asm_dtypes() -> Vec<DType> {
                vec![DType::Scalar(<$t as ScalarMarker>::SCALAR)]
            }
            fn asm_results(values: &[Value]) -> Tensor<$t> {
                Tensor::from_value(values[0])
            }
        }
    )*};
}
asm_dtype!(
    bool,
    i8,
    i16,
    i32,
    i64,
    u8,
    u32,
    u64,
    f32,
    f64,
    half::f16,
    half::bf16,
    crate::semantics::fp8_types::F8E4M3,
    crate::semantics::fp8_types::F8E5M2
);

macro_rules! asm_dtype_tuple {
    ($($t:ident $i:tt),+) => {
        impl<$($t: ScalarMarker),+> AsmDtypes for ($($t,)+) {
            type Out = ($(Tensor<$t>,)+);
            fn asm_dtypes() -> Vec<DType> {
                vec![$(DType::Scalar($t::SCALAR)),+]
            }
            fn asm_results(values: &[Value]) -> Self::Out {
                ($(Tensor::from_value(values[$i]),)+)
            }
        }
    };
}
asm_dtype_tuple!(A 0, B 1);
asm_dtype_tuple!(A 0, B 1, C 2);
asm_dtype_tuple!(A 0, B 1, C 2, D 3);

/// The arguments of an asm: nothing (`()`), one tensor, or a tuple of up to six tensors of
/// any dtypes, pointers included (Triton's `args`).
pub trait AsmArgs {
    /// The values, in order.
    fn asm_args(&self) -> Vec<Value>;
}

impl AsmArgs for () {
    fn asm_args(&self) -> Vec<Value> {
        Vec::new()
    }
}

impl<T> AsmArgs for Tensor<T> {
    fn asm_args(&self) -> Vec<Value> {
        vec![self.id()]
    }
}

macro_rules! asm_args_tuple {
    ($($t:ident $i:tt),+) => {
        impl<$($t),+> AsmArgs for ($(Tensor<$t>,)+) {
            fn asm_args(&self) -> Vec<Value> {
                vec![$(self.$i.id()),+]
            }
        }
    };
}
asm_args_tuple!(A 0);
asm_args_tuple!(A 0, B 1);
asm_args_tuple!(A 0, B 1, C 2);
asm_args_tuple!(A 0, B 1, C 2, D 3);
asm_args_tuple!(A 0, B 1, C 2, D 3, E 4);
asm_args_tuple!(A 0, B 1, C 2, D 3, E 4, F 5);

/// Triton's `tl.inline_asm_elementwise(asm, constraints, args, dtype, is_pure, pack)`, the
/// dtype as the type parameter: `inline_asm_elementwise::<i32>(asm, "=r,r,r", (x, y),
/// true, 1)` returns a `Tensor<i32>`, `::<(i32, f32)>` a tuple. The arguments are
/// broadcast to one shape (their dtypes are kept); every result has it.
///
/// `asm` is PTX run once per `pack` elements of each thread. Its operands are `$0..`:
/// first the output registers, result by result, then the input registers, argument by
/// argument; `constraints` names each register's class in LLVM's letters (`=r,r,r`:
/// `c` 8 bits, `h` 16, `r` or `f` 32, `l` or `d` 64). An element narrower than 32 bits is
/// packed with its neighbours, `min(32 / bits, pack)` to a register, the first in the
/// low bits (four `u8`s in one `r` with `pack = 4`). The PTX writer prints the asm inside
/// `{ }` with the operands replaced by registers, so it may declare registers of its own.
/// `is_pure`: the asm has no side effect, so it may be removed when its results are
/// unused; impure asm is always kept and stays in order with loads and stores. Which
/// elements share an invocation is unspecified (Triton's rule): the asm should compute
/// each result element from the argument elements at its position.
///
/// The interpreter and the simulator cannot run PTX: they stop with a located `RT0412` /
/// `RT0526` unless the results are given a CPU model with [`WithAsmModel::with_model`].
/// Errors in the call (a constraint that does not fit the register plan, an `$N` past the
/// operands, a `pack` that is not a power of two up to 16, an `i1` operand) are located
/// trace errors.
#[track_caller]
pub fn inline_asm_elementwise<D: AsmDtypes>(
    asm: &str,
    constraints: &str,
    args: impl AsmArgs,
    is_pure: bool,
    pack: u32,
) -> D::Out {
    let loc = SourceLoc::caller();
    let values = with_builder(|b| {
        let mut args = args.asm_args();
        let mut shape = Shape::scalar();
        for a in &args {
            match broadcast_shapes(&shape, &b.ty(*a).shape) {
                Some(s) => shape = s,
                None => {
                    b.error(
                        loc,
                        format!(
                            "inline_asm_elementwise arguments of shapes {shape} and {} cannot be broadcast together",
                            b.ty(*a).shape
                        ),
                        "make the shapes equal, or use expand_dims so that one has size 1 where they differ",
                    );
                }
            }
        }
        for a in &mut args {
            *a = b.broadcast_to(*a, &shape, loc);
        }
        let dtypes = D::asm_dtypes();
        let arg_types: Vec<DType> = args.iter().map(|a| b.dtype(*a)).collect();
        for problem in problems(asm, constraints, &dtypes, &arg_types, pack) {
            b.error(
                loc,
                problem,
                "write one constraint per asm register, outputs first: see `inline_asm_elementwise`'s documentation for the register plan",
            );
        }
        let types = dtypes.iter().map(|d| TensorType::new(*d, shape.clone())).collect();
        let kind = OpKind::InlineAsm {
            asm: asm.to_string(),
            constraints: constraints.to_string(),
            args,
            is_pure,
            pack,
            model: None,
        };
        b.push(kind, types, loc)
    });
    D::asm_results(&values)
}

/// The CPU model of an asm's results: `inline_asm_elementwise::<i32>(...).with_model(m)`
/// (or `(a, b).with_model(m)` for several results). The interpreter and the simulator
/// then run `m` where the GPU runs the asm, and the IR text names it.
pub trait WithAsmModel: Sized {
    /// These results, their asm computed by `model` off the GPU.
    #[track_caller]
    fn with_model(self, model: AsmModel) -> Self;
}

/// Gives the asm op that defined `v` the model `model` (a located error when `v` is not
/// an asm's result).
#[track_caller]
fn attach_model(v: Value, model: AsmModel) {
    let loc = SourceLoc::caller();
    with_builder(|b| {
        let def = match b.kernel.values.get(v.index()).map(|d| d.def) {
            Some(ValueDef::Result { op, .. }) => Some(op),
            _ => None,
        };
        if let Some(OpKind::InlineAsm { model: slot, .. }) =
            def.and_then(|op| b.kernel.ops.get_mut(op.index())).map(|op| &mut op.kind)
        {
            *slot = Some(model);
            return;
        }
        b.error(
            loc,
            format!("with_model(\"{}\") on a value inline_asm_elementwise did not compute", model.name),
            "call with_model on the result of inline_asm_elementwise itself",
        );
    });
}

impl<T> WithAsmModel for Tensor<T> {
    #[track_caller]
    fn with_model(self, model: AsmModel) -> Self {
        attach_model(self.id(), model);
        self
    }
}

macro_rules! with_model_tuple {
    ($($t:ident),+) => {
        impl<$($t),+> WithAsmModel for ($(Tensor<$t>,)+) {
            #[track_caller]
            fn with_model(self, model: AsmModel) -> Self {
                attach_model(self.0.id(), model);
                self
            }
        }
    };
}
with_model_tuple!(A, B);
with_model_tuple!(A, B, C);
with_model_tuple!(A, B, C, D);
