//! Kernel definitions: the signature and the body a `kernel!` macro produces.

use crate::ir::{ParamDecl, ParamKind, SourceLoc};

/// A kernel as the author defined it: name, runtime parameters, constexpr names and the
/// Rust body that builds its IR. Tracing it with constexpr values and a specialization
/// gives one [`crate::ir::Kernel`].
#[derive(Clone, Debug)]
pub struct KernelDef {
    pub name: &'static str,
    pub params: Vec<ParamDecl>,
    pub constexprs: Vec<&'static str>,
    pub body: fn(&mut ArgBinder),
    pub loc: SourceLoc,
}

impl KernelDef {
    pub fn param(&self, name: &str) -> Option<(usize, &ParamDecl)> {
        self.params.iter().enumerate().find(|(_, p)| p.name == name)
    }

    /// `row_max(x_ptr: *f32, y_ptr: *f32, n_cols: i32, ...; BLOCK)`: name, then parameters.
    pub fn signature(&self) -> String {
        let params: Vec<String> = self
            .params
            .iter()
            .map(|p| {
                let mut s = format!("{}: {}", p.name, p.kind);
                if p.do_not_specialize {
                    s.push_str(" [do_not_specialize]");
                }
                if p.do_not_specialize_on_alignment {
                    s.push_str(" [do_not_specialize_on_alignment]");
                }
                s
            })
            .collect();
        let consts: Vec<String> = self.constexprs.iter().map(|c| format!("const {c}")).collect();
        let mut all = params;
        all.extend(consts);
        format!("{}({})", self.name, all.join(", "))
    }
}

/// Rust types that can be kernel parameters: `Ptr<f32>`, `i32`, `i64`, `f32` (the
/// implementations live in `lang/params.rs`, beside the types).
pub trait ParamType {
    /// The handle the body sees (always a scalar tensor).
    type Handle;
    const KIND: ParamKind;
    fn handle(value: crate::ir::Value) -> Self::Handle;
}

impl ParamDecl {
    /// A parameter of Rust type `P` (used by the `kernel!` macro).
    pub fn new<P: ParamType>(name: &'static str) -> ParamDecl {
        ParamDecl { name, kind: P::KIND, do_not_specialize: false, do_not_specialize_on_alignment: false }
    }

    /// Triton's `do_not_specialize`: written `#[do_not_specialize]` before the parameter.
    pub fn do_not_specialize(mut self) -> ParamDecl {
        self.do_not_specialize = true;
        self
    }

    /// Triton's `do_not_specialize_on_alignment`.
    pub fn do_not_specialize_on_alignment(mut self) -> ParamDecl {
        self.do_not_specialize_on_alignment = true;
        self
    }
}

/// Rust types a constexpr can be bound to in the body.
pub trait ConstexprValue: Sized {
    fn from_i64(v: i64) -> Option<Self>;
    const TYPE_NAME: &'static str;
}

macro_rules! constexpr_value {
    ($($t:ty),*) => {$(
        impl ConstexprValue for $t {
            fn from_i64(v: i64) -> Option<Self> {
                <$t>::try_from(v).ok()
            }
            const TYPE_NAME: &'static str = stringify!($t);
        }
    )*};
}
constexpr_value!(usize, u32, i32, i64, u64);

impl ConstexprValue for bool {
    fn from_i64(v: i64) -> Option<Self> {
        match v {
            0 => Some(false),
            1 => Some(true),
            // bool constexprs are 0 or 1 (an integer, not an op kind)
            _ => None,
        }
    }
    const TYPE_NAME: &'static str = "bool";
}

/// Hands the body its parameters and constexprs while tracing (used by `kernel!`).
#[derive(Debug)]
pub struct ArgBinder {
    pub(crate) _private: (),
}

impl ArgBinder {
    /// The handle of runtime parameter `name` (a `Param` op, or the constant 1 when the
    /// specialization folded it).
    pub fn param<P: ParamType>(&mut self, name: &'static str) -> P::Handle {
        let value = crate::trace::with_builder(|b| b.bind_param(name));
        P::handle(value)
    }

    /// The value of constexpr `name` converted to `C`.
    pub fn constexpr<C: ConstexprValue + Default>(&mut self, name: &'static str) -> C {
        crate::trace::with_builder(|b| b.bind_constexpr::<C>(name))
    }
}

/// Defines a kernel: a function returning its [`KernelDef`].
///
/// ```
/// use rtriton::prelude::*;
///
/// rtriton::kernel! {
///     /// y[i] = x[i] + 1 for a block of BLOCK elements.
///     pub fn add_one(x_ptr: Ptr<f32>, y_ptr: Ptr<f32>, n: i32; const BLOCK: usize) {
///         let offs = program_id(0) * BLOCK as i32 + arange(0, BLOCK);
///         let mask = offs.lt(n);
///         let x = load(x_ptr + offs, Some(mask), Some(0.0));
///         store(y_ptr + offs, x + 1.0, Some(mask));
///     }
/// }
/// let def = add_one();
/// assert_eq!(def.signature(), "add_one(x_ptr: *f32, y_ptr: *f32, n: i32, const BLOCK)");
/// ```
///
/// Parameters may carry `#[do_not_specialize]` or `#[do_not_specialize_on_alignment]`.
/// Constexprs follow a `;` as `const NAME: type`.
#[macro_export]
macro_rules! kernel {
    (
        $(#[$meta:meta])*
        $vis:vis fn $name:ident (
            $( $(#[$pattr:ident])* $pname:ident : $pty:ty ),* $(,)?
            $( ; $( const $cname:ident : $cty:ty ),* $(,)? )?
        ) $body:block
    ) => {
        $(#[$meta])*
        $vis fn $name() -> $crate::trace::KernelDef {
            #[allow(non_snake_case, unused_variables, clippy::unused_unit)]
            fn __rtriton_body(__binder: &mut $crate::trace::ArgBinder) {
                $( let $pname = __binder.param::<$pty>(stringify!($pname)); )*
                $($( let $cname: $cty = __binder.constexpr::<$cty>(stringify!($cname)); )*)?
                $body
            }
            $crate::trace::KernelDef {
                name: stringify!($name),
                params: vec![$( $crate::ir::ParamDecl::new::<$pty>(stringify!($pname)) $( .$pattr() )* ),*],
                constexprs: vec![$($(stringify!($cname)),*)?],
                body: __rtriton_body,
                loc: $crate::ir::SourceLoc { file: file!(), line: line!(), column: column!() },
            }
        }
    };
}
