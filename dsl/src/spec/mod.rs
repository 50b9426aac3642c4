//! Argument specialization, Triton's rules (`python/triton/runtime/jit.py`).
//!
//! At launch every runtime argument is classified from its actual value:
//! - an integer equal to 1 is *folded*: the kernel is traced with the constant 1 in its
//!   place (this is what makes `cols * stride_col` contiguous and so vectorizable);
//! - an integer divisible by 16 gets a *divisibility hint* (`tt.divisibility = 16`);
//! - a pointer whose address is 16-byte aligned gets an *alignment hint*;
//! - floats and everything else stay plain.
//!
//! `do_not_specialize` on a parameter disables both folding and hints for it;
//! `do_not_specialize_on_alignment` keeps folding and drops the hints; the launch-wide
//! [`SpecPolicy::Off`] disables everything. The resulting [`SpecKey`] is printable and
//! hashable and is part of the compiled-kernel cache key.
//!
//! Unlike Triton, a folded argument stays a typed value: `.to::<i64>()` on it works
//! (see `TraceOptions::semantics` for the mode that reproduces Triton's AttributeError).

use std::fmt;

use crate::diag::{Code, Diagnostic, HasDiagnostics};
use crate::ir::{ParamDecl, ParamKind, ScalarType};

/// The alignment (bytes) and divisibility Triton's hints promise.
pub const HINT_DIVISIBILITY: u64 = 16;

/// An actual runtime argument value, as a launch passes it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum ArgValue {
    /// An integer argument (i32 or i64 parameter).
    Int(i64),
    /// A float argument.
    F32(f32),
    /// A device address (pointer parameter).
    Ptr(u64),
}

impl fmt::Display for ArgValue {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ArgValue::Int(v) => write!(f, "{v}"),
            ArgValue::F32(v) => write!(f, "{v:?}"),
            ArgValue::Ptr(a) => write!(f, "0x{a:x}"),
        }
    }
}

/// How one argument was specialized.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ArgSpec {
    /// Traced as the compile-time constant 1 (Triton: `("constexpr", 1)`).
    FoldedOne,
    /// Divisible by 16 (ints) or 16-byte aligned (pointers): Triton's `"D"` key.
    Divisible16,
    /// No specialization.
    Plain,
}

/// Launch-wide specialization policy.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum SpecPolicy {
    /// Triton's rules (the default).
    #[default]
    Triton,
    /// No folding and no hints for any argument.
    Off,
}

/// The specialization of every runtime argument, in parameter order.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Default)]
pub struct SpecKey {
    pub args: Vec<(&'static str, ParamKind, ArgSpec)>,
}

/// Why an argument list cannot be specialized (bad launch input).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum SpecError {
    #[error("kernel `{kernel}` takes {expected} runtime arguments ({names}), got {got}")]
    ArgCount { kernel: String, expected: usize, got: usize, names: String },
    #[error(
        "kernel `{kernel}`: argument `{param}` is declared {expected}, got {got}; pass a value of the declared type"
    )]
    ArgType { kernel: String, param: &'static str, expected: String, got: String },
    #[error(
        "kernel `{kernel}`: argument `{param}` = {value} does not fit i32; declare the parameter i64 or pass a smaller value"
    )]
    IntRange { kernel: String, param: &'static str, value: i64 },
    #[error("kernel `{kernel}`: argument `{param}` is a null pointer; pass a device allocation")]
    NullPtr { kernel: String, param: &'static str },
}

impl SpecError {
    pub fn code(&self) -> Code {
        match self {
            SpecError::ArgCount { .. } => Code::LaunchArgCount,
            SpecError::ArgType { .. } => Code::LaunchArgType,
            SpecError::IntRange { .. } => Code::LaunchIntRange,
            SpecError::NullPtr { .. } => Code::LaunchNullPointer,
        }
    }

    fn kernel(&self) -> &str {
        match self {
            SpecError::ArgCount { kernel, .. }
            | SpecError::ArgType { kernel, .. }
            | SpecError::IntRange { kernel, .. }
            | SpecError::NullPtr { kernel, .. } => kernel,
        }
    }
}

impl HasDiagnostics for SpecError {
    /// The error as a diagnostic with no source location (an argument, not an op, is
    /// wrong); the message is the text after the kernel's name.
    fn diagnostics(&self) -> Vec<Diagnostic> {
        vec![launch_diagnostic(self.code(), self.kernel(), &self.to_string())]
    }
}

/// A launch-argument problem as a [`Diagnostic`]: `text` is the error's one-line rendering
/// (`kernel `k`: what; fix`), split into message and help at the first `; `.
pub fn launch_diagnostic(code: Code, kernel: &str, text: &str) -> Diagnostic {
    let prefix = format!("kernel `{kernel}`: ");
    let body = text.strip_prefix(&prefix).unwrap_or(text);
    let (message, help) = body.split_once("; ").unwrap_or((body, ""));
    Diagnostic::error(code, kernel, None, message, help)
}

impl SpecKey {
    /// Classifies every argument by Triton's rules and checks count and types.
    pub fn from_args(
        kernel: &str,
        params: &[ParamDecl],
        args: &[ArgValue],
        policy: SpecPolicy,
    ) -> Result<SpecKey, SpecError> {
        if params.len() != args.len() {
            return Err(SpecError::ArgCount {
                kernel: kernel.to_string(),
                expected: params.len(),
                got: args.len(),
                names: params.iter().map(|p| p.name).collect::<Vec<_>>().join(", "),
            });
        }
        let mut out = Vec::with_capacity(params.len());
        for (p, a) in params.iter().zip(args) {
            let type_error = || SpecError::ArgType {
                kernel: kernel.to_string(),
                param: p.name,
                expected: p.kind.to_string(),
                got: match a {
                    ArgValue::Int(_) => "an integer".into(),
                    ArgValue::F32(_) => "a float".into(),
                    ArgValue::Ptr(_) => "a pointer".into(),
                },
            };
            let spec = match (p.kind, *a) {
                (ParamKind::Scalar(ScalarType::I32), ArgValue::Int(v)) if i32::try_from(v).is_err() => {
                    return Err(SpecError::IntRange { kernel: kernel.to_string(), param: p.name, value: v });
                }
                (ParamKind::Ptr(_), ArgValue::Ptr(0)) => {
                    return Err(SpecError::NullPtr { kernel: kernel.to_string(), param: p.name });
                }
                // any other (parameter kind, argument) pair is a type error (not an op kind)
                _ => classify(p, *a, policy).ok_or_else(type_error)?,
            };
            out.push((p.name, p.kind, spec));
        }
        Ok(SpecKey { args: out })
    }

    /// A key with no specialization at all (what `SpecPolicy::Off` gives for any values).
    pub fn plain(params: &[ParamDecl]) -> SpecKey {
        SpecKey { args: params.iter().map(|p| (p.name, p.kind, ArgSpec::Plain)).collect() }
    }

    pub fn get(&self, name: &str) -> Option<ArgSpec> {
        self.args.iter().find(|(n, _, _)| *n == name).map(|(_, _, s)| *s)
    }
}

/// How one argument is specialized under `policy`, or `None` when the argument does not
/// fit the parameter (a type mismatch, an i32 value out of range, a null pointer): the
/// per-argument step of [`SpecKey::from_args`], which says what is wrong. It allocates
/// nothing, so a launch can classify its arguments on every call and compare them with a
/// cached key.
pub fn classify(p: &ParamDecl, value: ArgValue, policy: SpecPolicy) -> Option<ArgSpec> {
    match (p.kind, value) {
        (ParamKind::Scalar(ScalarType::I32), ArgValue::Int(v)) if i32::try_from(v).is_err() => None,
        (ParamKind::Scalar(s), ArgValue::Int(v)) if s.is_int() => Some(classify_int(v, p, policy)),
        (ParamKind::Scalar(ScalarType::F32), ArgValue::F32(_)) => Some(ArgSpec::Plain),
        (ParamKind::Ptr(_), ArgValue::Ptr(0)) => None,
        (ParamKind::Ptr(_), ArgValue::Ptr(addr)) => Some(classify_ptr(addr, p, policy)),
        _ => None,
    }
}

fn classify_int(v: i64, p: &ParamDecl, policy: SpecPolicy) -> ArgSpec {
    if policy == SpecPolicy::Off || p.do_not_specialize {
        ArgSpec::Plain
    } else if v == 1 {
        ArgSpec::FoldedOne
    } else if v % HINT_DIVISIBILITY as i64 == 0 && !p.do_not_specialize_on_alignment {
        ArgSpec::Divisible16
    } else {
        ArgSpec::Plain
    }
}

fn classify_ptr(addr: u64, p: &ParamDecl, policy: SpecPolicy) -> ArgSpec {
    if policy == SpecPolicy::Off || p.do_not_specialize || p.do_not_specialize_on_alignment {
        ArgSpec::Plain
    } else if addr.is_multiple_of(HINT_DIVISIBILITY) {
        ArgSpec::Divisible16
    } else {
        ArgSpec::Plain
    }
}

impl fmt::Display for ArgSpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            ArgSpec::FoldedOne => "=1",
            ArgSpec::Divisible16 => "D16",
            ArgSpec::Plain => "-",
        })
    }
}

impl fmt::Display for SpecKey {
    /// `x_ptr:*f32:D16, n_cols:i32:-, stride_col:i32:=1`
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, (name, kind, spec)) in self.args.iter().enumerate() {
            if i > 0 {
                f.write_str(", ")?;
            }
            write!(f, "{name}:{kind}:{spec}")?;
        }
        Ok(())
    }
}
