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
    /// Set on a generic kernel's definition: its type parameter and its instances (this
    /// definition is the first of them; see `trace/generic.rs`).
    pub generic: Option<super::generic::Generic>,
    /// Set on each instance of a generic kernel: the dtype its type parameter took.
    pub instance_of: Option<crate::ir::ScalarType>,
}

impl KernelDef {
    pub fn param(&self, name: &str) -> Option<(usize, &ParamDecl)> {
        self.params.iter().enumerate().find(|(_, p)| p.name == name)
    }

    /// The kernel's name in tables and reports: the name, with the dtype of an instance of
    /// a generic kernel (`rms_norm<f16>`), whose instances share the name.
    pub fn label(&self) -> std::borrow::Cow<'static, str> {
        match (&self.generic, self.instance_of) {
            (None, Some(dtype)) => format!("{}<{dtype}>", self.name).into(),
            _ => self.name.into(),
        }
    }

    /// `row_max(x_ptr: *f32, y_ptr: *f32, n_cols: i32, ...; BLOCK)`: name, then parameters;
    /// a generic kernel's as written, `rms_norm<T: Float>(x_ptr: *T, ...)`.
    pub fn signature(&self) -> String {
        let generic_texts = self.generic_param_texts();
        let params: Vec<String> = self
            .params
            .iter()
            .enumerate()
            .map(|(i, p)| {
                let kind = generic_texts.as_ref().and_then(|t| t[i].clone()).unwrap_or_else(|| p.kind.to_string());
                let mut s = format!("{}: {kind}", p.name);
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
        let type_params = match &self.generic {
            Some(g) => format!("<{}: {}>", g.param, g.bound),
            None => String::new(),
        };
        format!("{}{type_params}({})", self.name, all.join(", "))
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
///
/// A kernel may take one type parameter, as Triton's JIT specializes on the dtypes of
/// pointer arguments: `fn f<T: Float>(...)` is instantiated for every dtype of the
/// bound's list ([`Float`](crate::lang::Float): f32, f16, bf16, f64;
/// [`IntMarker`](crate::lang::IntMarker): the integers; [`NumericMarker`](crate::lang::NumericMarker):
/// both), and `fn f<T: MyTrait in [f32, f16]>(...)` names the list for any other bound. The
/// launch picks the instance from the argument dtypes (`KernelDef::instance_for`):
///
/// ```
/// use rtriton::prelude::*;
///
/// rtriton::kernel! {
///     /// y[i] = 2 x[i], for any float dtype.
///     pub fn twice<T: Float>(x_ptr: Ptr<T>, y_ptr: Ptr<T>, n: i32; const BLOCK: usize) {
///         let offs = program_id(0) * BLOCK as i32 + arange(0, BLOCK);
///         let mask = offs.lt(n);
///         let x = load(x_ptr + offs, Some(mask), Some(T::lit(0.0))).to::<f32>();
///         store(y_ptr + offs, (x * 2.0).to::<T>(), Some(mask));
///     }
/// }
/// let def = twice();
/// assert_eq!(def.signature(), "twice<T: Float>(x_ptr: *T, y_ptr: *T, n: i32, const BLOCK)");
/// let f16 = def.instance(rtriton::ir::ScalarType::F16).unwrap();
/// assert_eq!(f16.signature(), "twice(x_ptr: *f16, y_ptr: *f16, n: i32, const BLOCK)");
/// ```
#[macro_export]
macro_rules! kernel {
    (
        $(#[$meta:meta])*
        $vis:vis fn $name:ident < $tp:ident : $bound:ident in [ $($inst:ty),+ $(,)? ] > (
            $( $(#[$pattr:ident])* $pname:ident : $pty:ty ),* $(,)?
            $( ; $( const $cname:ident : $cty:ty ),* $(,)? )?
        ) $body:block
    ) => {
        $(#[$meta])*
        $vis fn $name() -> $crate::trace::KernelDef {
            #[allow(non_snake_case, unused_variables, clippy::unused_unit)]
            fn __rtriton_body<$tp: $bound + $crate::lang::ScalarMarker>(__binder: &mut $crate::trace::ArgBinder) {
                $( let $pname = __binder.param::<$pty>(stringify!($pname)); )*
                $($( let $cname: $cty = __binder.constexpr::<$cty>(stringify!($cname)); )*)?
                $body
            }
            fn __rtriton_instance<$tp: $bound + $crate::lang::ScalarMarker>() -> $crate::trace::KernelDef {
                $crate::trace::KernelDef {
                    name: stringify!($name),
                    params: vec![$( $crate::ir::ParamDecl::new::<$pty>(stringify!($pname)) $( .$pattr() )* ),*],
                    constexprs: vec![$($(stringify!($cname)),*)?],
                    body: __rtriton_body::<$tp>,
                    loc: $crate::ir::SourceLoc { file: file!(), line: line!(), column: column!() },
                    generic: None,
                    instance_of: Some(<$tp as $crate::lang::ScalarMarker>::SCALAR),
                }
            }
            let instances = vec![$(
                $crate::trace::Instance {
                    dtype: <$inst as $crate::lang::ScalarMarker>::SCALAR,
                    def: __rtriton_instance::<$inst>,
                }
            ),+];
            let mut def = (instances[0].def)();
            def.generic = Some($crate::trace::Generic { param: stringify!($tp), bound: stringify!($bound), instances });
            def
        }
    };
    (
        $(#[$meta:meta])*
        $vis:vis fn $name:ident < $tp:ident : $bound:ident > $($rest:tt)*
    ) => {
        $crate::__kernel_dtype_list! { $bound; $(#[$meta])* $vis fn $name < $tp : $bound > $($rest)* }
    };
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
                generic: None,
                instance_of: None,
            }
        }
    };
}

/// The dtype list of a dtype-family bound, for a generic `kernel!` that names none
/// (`fn f<T: Float>`). Another bound must name its list: `T: MyTrait in [f32, f16]`.
#[doc(hidden)]
#[macro_export]
macro_rules! __kernel_dtype_list {
    (Float; $(#[$meta:meta])* $vis:vis fn $name:ident < $tp:ident : $bound:ident > $($rest:tt)*) => {
        $crate::kernel! {
            $(#[$meta])* $vis fn $name < $tp : $bound in [f32, $crate::half::f16, $crate::half::bf16, f64] > $($rest)*
        }
    };
    (IntMarker; $(#[$meta:meta])* $vis:vis fn $name:ident < $tp:ident : $bound:ident > $($rest:tt)*) => {
        $crate::kernel! {
            $(#[$meta])* $vis fn $name < $tp : $bound in [i32, i64, i8, i16, u8, u32, u64] > $($rest)*
        }
    };
    (NumericMarker; $(#[$meta:meta])* $vis:vis fn $name:ident < $tp:ident : $bound:ident > $($rest:tt)*) => {
        $crate::kernel! {
            $(#[$meta])* $vis fn $name < $tp : $bound in
                [f32, $crate::half::f16, $crate::half::bf16, f64, i32, i64, i8, i16, u8, u32, u64] > $($rest)*
        }
    };
    ($other:ident; $($rest:tt)*) => {
        compile_error!(concat!(
            "`kernel!`: `", stringify!($other), "` has no dtype list of its own; name the dtypes to instantiate: `T: ",
            stringify!($other), " in [f32, f16, bf16]`"
        ));
    };
}
