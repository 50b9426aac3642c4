//! Runtime scalar arguments given by name (`.arg("n_cols", 4096)`) and their binding to
//! the kernel's signature.
//!
//! A case either passes its scalars by position (`.int`, `.f32`, in parameter order,
//! interleaved with the tensors as the parameters are) or by name (`.arg`), never both:
//! with a named argument in the case, its tensors fill the pointer parameters in the order
//! they were declared and every scalar parameter takes the named value, so the order of
//! the `.arg` calls does not matter. Binding checks every name against the signature and
//! reports an [`ArgError`] naming the kernel, the case and the argument.

use std::fmt;

use rtriton::ir::{ParamKind, ScalarType};
use rtriton::trace::KernelDef;

/// The value of a named scalar argument.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum ScalarValue {
    /// For `i32`, `i64` (and `i1`) parameters.
    Int(i64),
    /// For `f32` parameters.
    F32(f32),
}

impl ScalarValue {
    fn kind(self) -> &'static str {
        match self {
            ScalarValue::Int(_) => "an integer",
            ScalarValue::F32(_) => "an f32",
        }
    }
}

impl fmt::Display for ScalarValue {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ScalarValue::Int(v) => write!(f, "{v}"),
            ScalarValue::F32(v) => write!(f, "{v:?}"),
        }
    }
}

/// The Rust values `.arg(name, value)` takes: the integer types a size or stride comes in
/// and `f32` (kernels take `i32`, `i64` and `f32` scalars). There is no `f64`: an `f32`
/// parameter gets an `f32`, so a literal like `0.5` is an `f32` here.
pub trait IntoScalar {
    fn into_scalar(self) -> ScalarValue;
}

macro_rules! int_scalar {
    ($($t:ty),*) => {$(
        impl IntoScalar for $t {
            fn into_scalar(self) -> ScalarValue {
                // Values past i64 (a usize or u64 above 2^63) saturate; every kernel
                // integer parameter is at most 64 bits signed, so the range check at
                // binding refuses them for i32 and they are wrong for i64 anyway.
                ScalarValue::Int(i64::try_from(self).unwrap_or(i64::MAX))
            }
        }
    )*};
}

int_scalar!(i8, i16, i32, i64, u8, u16, u32, u64, usize, isize);

impl IntoScalar for f32 {
    fn into_scalar(self) -> ScalarValue {
        ScalarValue::F32(self)
    }
}

impl IntoScalar for ScalarValue {
    fn into_scalar(self) -> ScalarValue {
        self
    }
}

/// What is wrong with a case's arguments, for tests to branch on.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ArgErrorKind {
    /// A named argument the kernel has no scalar parameter for (or a constexpr's name).
    Unknown,
    /// A named argument given twice.
    Duplicate,
    /// A parameter that gets no value: a scalar with no named argument, or a pointer with
    /// no tensor left for it.
    Missing,
    /// A named value of the wrong kind: an `f32` for an integer parameter, an integer for
    /// an `f32` one, a scalar for a pointer.
    WrongKind,
    /// An integer that does not fit its `i32` (or `i1`) parameter.
    OutOfRange,
    /// Positional scalars (`.int`, `.f32`) in a case that also has named ones: which
    /// parameter would each take?
    Mixed,
    /// More tensors than the kernel has pointer parameters.
    ExtraTensor,
    /// A tensor named like a parameter of the kernel other than the pointer it fills.
    TensorName,
    /// A case with named arguments placed without the kernel's signature
    /// ([`crate::run::place`]); bind it first with [`crate::Case::resolve`].
    Unresolved,
}

/// A case's arguments do not fit the kernel's signature.
#[derive(Clone, Debug, PartialEq)]
pub struct ArgError {
    pub kind: ArgErrorKind,
    pub kernel: &'static str,
    pub case: String,
    /// The argument (or parameter) at fault.
    pub arg: String,
    /// What is wrong and what to do.
    pub detail: String,
    /// The kernel's signature, so the fix can be read off the message.
    pub signature: String,
}

impl fmt::Display for ArgError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "kernel `{}`, case `{}`, argument `{}`: {}", self.kernel, self.case, self.arg, self.detail)?;
        if !self.signature.is_empty() {
            write!(f, "\n  the kernel's signature: {}", self.signature)?;
        }
        Ok(())
    }
}

impl std::error::Error for ArgError {}

/// Binds the tensors (in declaration order, to the pointer parameters) and the named
/// scalars to `def`'s parameters: the launch arguments in signature order, as indices
/// into `tensors` or values. `positional` is the number of positional scalars the case
/// also holds (an error when there are named ones).
pub(crate) fn bind(
    def: &KernelDef,
    case: &str,
    tensors: &[&'static str],
    named: &[(&'static str, ScalarValue)],
    positional: &[String],
) -> Result<Vec<Bound>, ArgError> {
    let err = |kind, arg: &str, detail: String| ArgError {
        kind,
        kernel: def.name,
        case: case.to_string(),
        arg: arg.to_string(),
        detail,
        signature: def.signature(),
    };
    if let (Some((first, _)), Some(p)) = (named.first(), positional.first()) {
        return Err(err(
            ArgErrorKind::Mixed,
            first,
            format!(
                "the case passes scalars both by name (`{first}`) and by position ({p}); which parameter would the \
                 positional one take? Pass every scalar with .arg(name, value)"
            ),
        ));
    }
    for (i, (name, v)) in named.iter().enumerate() {
        if let Some((_, w)) = named[i + 1..].iter().find(|(n, _)| n == name) {
            return Err(err(
                ArgErrorKind::Duplicate,
                name,
                format!("given twice ({v}, then {w}); give each argument once"),
            ));
        }
        match def.param(name) {
            None if def.constexprs.contains(name) => {
                return Err(err(
                    ArgErrorKind::Unknown,
                    name,
                    format!("`{name}` is a constexpr, not a runtime argument: set it with .constexpr(\"{name}\", {v})"),
                ));
            }
            None => {
                return Err(err(ArgErrorKind::Unknown, name, format!("the kernel has no parameter `{name}`")));
            }
            Some((_, p)) => check_kind(p.kind, *v).map_err(|(kind, why)| err(kind, name, why))?,
        }
    }
    let mut left = tensors.iter().enumerate();
    let mut bound = Vec::with_capacity(def.params.len());
    for p in &def.params {
        match p.kind {
            ParamKind::Ptr(_) => {
                let Some((i, t)) = left.next() else {
                    return Err(err(
                        ArgErrorKind::Missing,
                        p.name,
                        format!(
                            "pointer parameter `{}` gets no tensor: the case has {} tensor(s) and the kernel takes \
                             more; add it with .input or .output (tensors fill the pointer parameters in order)",
                            p.name,
                            tensors.len()
                        ),
                    ));
                };
                if *t != p.name && def.param(t).is_some() {
                    return Err(err(
                        ArgErrorKind::TensorName,
                        t,
                        format!(
                            "tensor `{t}` is named like the kernel's parameter `{t}` but fills `{}` (tensors fill \
                             the pointer parameters in the order they are declared): declare the tensors in \
                             parameter order",
                            p.name
                        ),
                    ));
                }
                bound.push(Bound::Tensor(i));
            }
            ParamKind::Scalar(_) => match named.iter().find(|(n, _)| *n == p.name) {
                Some((_, v)) => bound.push(Bound::Scalar(*v)),
                None => {
                    return Err(err(
                        ArgErrorKind::Missing,
                        p.name,
                        format!(
                            "no value for parameter `{}: {}`; give it with .arg(\"{}\", value)",
                            p.name, p.kind, p.name
                        ),
                    ));
                }
            },
        }
    }
    if let Some((_, t)) = left.next() {
        return Err(err(
            ArgErrorKind::ExtraTensor,
            t,
            format!("tensor `{t}` fills no parameter: the kernel takes fewer pointers than the case has tensors"),
        ));
    }
    Ok(bound)
}

/// One launch argument after binding.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum Bound {
    /// The case's tensor at this index (declaration order).
    Tensor(usize),
    Scalar(ScalarValue),
}

/// Whether `value` can be passed to a parameter of `kind`.
fn check_kind(kind: ParamKind, value: ScalarValue) -> Result<(), (ArgErrorKind, String)> {
    let wrong = |want: &str| {
        Err((
            ArgErrorKind::WrongKind,
            format!("{} ({value}) for a parameter of type {kind}; it takes {want}", value.kind()),
        ))
    };
    match (kind, value) {
        (ParamKind::Ptr(_), _) => Err((
            ArgErrorKind::WrongKind,
            format!("a scalar ({value}) for pointer parameter of type {kind}; pass a tensor with .input or .output"),
        )),
        (ParamKind::Scalar(ScalarType::F32), ScalarValue::F32(_)) => Ok(()),
        (ParamKind::Scalar(ScalarType::F32), ScalarValue::Int(_)) => wrong("an f32 (write the literal as `2.0`)"),
        (ParamKind::Scalar(s), ScalarValue::Int(v)) if s.is_int() || s == ScalarType::Bool => {
            let fits = match s {
                ScalarType::Bool => (0..=1).contains(&v),
                ScalarType::I32 => i32::try_from(v).is_ok(),
                _ => true,
            };
            if fits {
                Ok(())
            } else {
                Err((ArgErrorKind::OutOfRange, format!("{v} does not fit its parameter of type {kind}")))
            }
        }
        (ParamKind::Scalar(s), ScalarValue::F32(_)) if s.is_int() || s == ScalarType::Bool => wrong("an integer"),
        (ParamKind::Scalar(_), _) => wrong("a value no case argument holds"),
    }
}
