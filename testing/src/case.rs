//! One launch as data: the tensors (buffers seen through views), scalars, constexprs,
//! `num_warps` and grid a kernel runs with. Every back end gets the same case.

use std::borrow::Cow;
use std::fmt;

use rtriton::ir::ScalarType;
use rtriton::trace::KernelDef;

use crate::args::{ArgError, ArgErrorKind, Bound, IntoScalar, ScalarValue, bind};
use crate::data::Data;
use crate::element::Element;
use crate::view::View;

/// A tensor argument: a whole buffer and the view the kernel is given.
#[derive(Clone, Debug, PartialEq)]
pub struct Tensor {
    pub name: &'static str,
    pub data: Data,
    pub view: View,
    /// Compared after the run (the whole buffer: bytes outside the view must not change).
    pub output: bool,
}

impl Tensor {
    fn wrong_dtype(&self, asked: ScalarType) -> ! {
        panic!("tensor `{}` holds {}, not {asked}", self.name, self.data.dtype())
    }

    /// The element at view index `index` of a tensor of `T`s (panics naming the tensor
    /// and both dtypes when it holds another type: a reference bug).
    pub fn at<T: Element>(&self, index: &[usize]) -> T {
        self.data.as_slice::<T>().unwrap_or_else(|| self.wrong_dtype(T::SCALAR))[self.view.element(index)]
    }

    /// Sets the element at view index `index` of a tensor of `T`s.
    pub fn set<T: Element>(&mut self, index: &[usize], value: T) {
        let e = self.view.element(index);
        let (name, dtype) = (self.name, self.data.dtype());
        self.data.as_slice_mut::<T>().unwrap_or_else(|| panic!("tensor `{name}` holds {dtype}, not {}", T::SCALAR))
            [e] = value;
    }

    /// The element at view index `index` as `f64`, whatever the dtype: exact for every
    /// float and for integers up to 2^53 (past that it panics; read it with [`Tensor::at`]).
    /// A reference written in `f64` with this and [`Tensor::set_f64`] serves every dtype.
    pub fn f64_at(&self, index: &[usize]) -> f64 {
        let e = self.view.element(index);
        self.data.f64_at(e).unwrap_or_else(|| {
            panic!(
                "tensor `{}`: element {index:?} ({}) is not exact in f64; read it with `at::<{}>`",
                self.name,
                self.data.describe(e),
                self.data.dtype()
            )
        })
    }

    /// Sets the element at view index `index` to `value` rounded once to the tensor's
    /// dtype, to nearest with ties to even (a NaN becomes the dtype's canonical NaN). An
    /// integer tensor takes only whole numbers in its range (else this panics: a
    /// reference that computes a fraction for an integer output has a bug).
    pub fn set_f64(&mut self, index: &[usize], value: f64) {
        let e = self.view.element(index);
        if let Err(why) = self.data.set_f64(e, value) {
            panic!("tensor `{}` ({}), element {index:?}: {why}", self.name, self.data.dtype());
        }
    }

    /// The element at view index `index` of an `f32` tensor.
    pub fn f32_at(&self, index: &[usize]) -> f32 {
        self.at(index)
    }

    pub fn set_f32(&mut self, index: &[usize], value: f32) {
        self.set(index, value)
    }

    pub fn i32_at(&self, index: &[usize]) -> i32 {
        self.at(index)
    }

    pub fn set_i32(&mut self, index: &[usize], value: i32) {
        self.set(index, value)
    }

    pub fn i64_at(&self, index: &[usize]) -> i64 {
        self.at(index)
    }

    pub fn set_i64(&mut self, index: &[usize], value: i64) {
        self.set(index, value)
    }
}

/// One runtime argument, in parameter order (a tensor, or a scalar given by position).
#[derive(Clone, Debug, PartialEq)]
pub enum CaseArg {
    Tensor(Tensor),
    Int(i64),
    F32(f32),
}

/// A launch description; build one with [`Case::new`] and the chained methods.
#[derive(Clone, Debug, PartialEq)]
pub struct Case {
    pub name: String,
    pub args: Vec<CaseArg>,
    pub constexprs: Vec<(&'static str, i64)>,
    pub num_warps: u32,
    /// CTAs an SM should hold at once (`.minnctapersm`, a register bound for ptxas; 0:
    /// none). Only the GPU's PTX carries it: the interpreter and the simulator run the
    /// same program either way.
    pub min_ctas_per_sm: u32,
    /// The target the simulator's and the GPU's program is lowered for (`sm_86` unless
    /// [`Case::arch`] says otherwise; the interpreter has no target).
    pub arch: rtriton::backend::ptx::Arch,
    pub grid: [u32; 3],
    /// Back ends this case cannot run on, each with the reason ([`Case::unsupported`]): a
    /// suite skips them and prints the reason instead of failing the case.
    pub unsupported: Vec<(crate::run::Backend, String)>,
    /// Scalars given by name ([`Case::arg`]), in the order given; bound to the kernel's
    /// parameters by [`Case::resolve`].
    pub named: Vec<(&'static str, ScalarValue)>,
    /// After [`Case::resolve`] of a case with named arguments: each parameter's name,
    /// in signature order (`args` is then in that order too).
    bound_params: Option<Vec<&'static str>>,
}

impl Case {
    /// An empty case: no arguments, 4 warps, one program.
    pub fn new(name: impl Into<String>) -> Case {
        Case {
            name: name.into(),
            args: Vec::new(),
            constexprs: Vec::new(),
            num_warps: 4,
            min_ctas_per_sm: 0,
            arch: rtriton::backend::ptx::Arch::Sm86,
            grid: [1, 1, 1],
            unsupported: Vec::new(),
            named: Vec::new(),
            bound_params: None,
        }
    }

    /// Declares that `backend` cannot run this case, and why (printed where the suite
    /// skips it). Without it, a back end that cannot run the case fails it, and the
    /// simulator or GPU compared with an interpreter that cannot run fails too.
    pub fn unsupported(mut self, backend: crate::run::Backend, reason: impl Into<String>) -> Case {
        self.unsupported.push((backend, reason.into()));
        self
    }

    /// Why `backend` cannot run this case, if the case declares it.
    pub fn unsupported_on(&self, backend: crate::run::Backend) -> Option<&str> {
        self.unsupported.iter().find(|(b, _)| *b == backend).map(|(_, r)| r.as_str())
    }

    /// A tensor the kernel reads: `data` is the whole buffer, `view` what the kernel sees.
    pub fn input(mut self, name: &'static str, data: impl Into<Data>, view: View) -> Case {
        self.args.push(CaseArg::Tensor(Tensor { name, data: data.into(), view, output: false }));
        self
    }

    /// A tensor the kernel writes (compared after the run); `data` is its initial content.
    pub fn output(mut self, name: &'static str, data: impl Into<Data>, view: View) -> Case {
        self.args.push(CaseArg::Tensor(Tensor { name, data: data.into(), view, output: true }));
        self
    }

    /// Scalar parameter `name` of the kernel gets `value` (an integer of any Rust integer
    /// type, or an `f32`). A case with named arguments passes every scalar by name, in any
    /// order; its tensors fill the pointer parameters in the order they are declared. The
    /// names are checked against the kernel's signature when the case runs
    /// ([`Case::resolve`]): an unknown name, one given twice, a parameter left without a
    /// value, a value of the wrong kind or range, or a positional `.int`/`.f32` in the
    /// same case is an [`ArgError`].
    pub fn arg(mut self, name: &'static str, value: impl IntoScalar) -> Case {
        self.named.push((name, value.into_scalar()));
        self
    }

    /// A scalar argument by position (the next parameter after the arguments before it).
    pub fn int(mut self, value: i64) -> Case {
        self.args.push(CaseArg::Int(value));
        self
    }

    /// An `f32` scalar argument by position.
    pub fn f32(mut self, value: f32) -> Case {
        self.args.push(CaseArg::F32(value));
        self
    }

    /// Sets constexpr `name`. Setting one twice is an error (panics): which value would a
    /// back end use? (Once, the interpreter and the simulator took the first and the GPU
    /// the last.)
    pub fn constexpr(mut self, name: &'static str, value: i64) -> Case {
        if let Some((_, old)) = self.constexprs.iter().find(|(n, _)| *n == name) {
            panic!(
                "case `{}`: constexpr `{name}` is set twice ({old}, then {value}); set each constexpr once",
                self.name
            );
        }
        self.constexprs.push((name, value));
        self
    }

    pub fn num_warps(mut self, num_warps: u32) -> Case {
        self.num_warps = num_warps;
        self
    }

    /// Lowers the simulator's and the GPU's program for `arch` (`sm_90a`: its `wgmma`
    /// path; the GPU must be compute capability 9.0).
    pub fn arch(mut self, arch: rtriton::backend::ptx::Arch) -> Case {
        self.arch = arch;
        self
    }

    /// Asks ptxas to fit `n` CTAs of this launch per SM (`.minnctapersm n`).
    pub fn min_ctas_per_sm(mut self, n: u32) -> Case {
        self.min_ctas_per_sm = n;
        self
    }

    pub fn grid(mut self, grid: [u32; 3]) -> Case {
        self.grid = grid;
        self
    }

    pub fn tensors(&self) -> impl Iterator<Item = &Tensor> {
        self.args.iter().filter_map(|a| if let CaseArg::Tensor(t) = a { Some(t) } else { None })
    }

    /// The tensor named `name` (for references, which write the expected outputs into it).
    pub fn tensor(&self, name: &str) -> &Tensor {
        self.tensors().find(|t| t.name == name).unwrap_or_else(|| panic!("case `{}` has no tensor `{name}`", self.name))
    }

    pub fn tensor_mut(&mut self, name: &str) -> &mut Tensor {
        let case = self.name.clone();
        self.args
            .iter_mut()
            .find_map(|a| if let CaseArg::Tensor(t) = a { (t.name == name).then_some(t) } else { None })
            .unwrap_or_else(|| panic!("case `{case}` has no tensor `{name}`"))
    }

    /// The value of named argument `name` (for references; panics naming the case when
    /// it has no such named argument).
    pub fn scalar(&self, name: &str) -> ScalarValue {
        self.named.iter().find(|(n, _)| *n == name).map(|(_, v)| *v).unwrap_or_else(|| {
            let names: Vec<&str> = self.named.iter().map(|(n, _)| *n).collect();
            panic!("case `{}` has no named argument `{name}`; it has: {}", self.name, names.join(", "))
        })
    }

    /// Named integer argument `name` (panics when it is missing or an `f32`).
    pub fn int_arg(&self, name: &str) -> i64 {
        match self.scalar(name) {
            ScalarValue::Int(v) => v,
            ScalarValue::F32(v) => panic!("case `{}`: argument `{name}` is an f32 ({v:?}), not an integer", self.name),
        }
    }

    /// Named `f32` argument `name` (panics when it is missing or an integer).
    pub fn f32_arg(&self, name: &str) -> f32 {
        match self.scalar(name) {
            ScalarValue::F32(v) => v,
            ScalarValue::Int(v) => panic!("case `{}`: argument `{name}` is an integer ({v}), not an f32", self.name),
        }
    }

    /// Whether the case has named arguments not yet bound to a signature.
    pub fn needs_binding(&self) -> bool {
        !self.named.is_empty() && self.bound_params.is_none()
    }

    /// The case with its arguments in `def`'s parameter order: a case with named
    /// arguments gets its tensors and named scalars bound to the parameters (see
    /// [`Case::arg`] for what is refused); a positional case, or one already bound, is
    /// returned as it is (the back ends check it as before).
    pub fn resolve(&self, def: &KernelDef) -> Result<Cow<'_, Case>, ArgError> {
        if !self.needs_binding() {
            return Ok(Cow::Borrowed(self));
        }
        let tensors: Vec<&Tensor> = self.tensors().collect();
        let names: Vec<&'static str> = tensors.iter().map(|t| t.name).collect();
        let positional: Vec<String> = self
            .args
            .iter()
            .enumerate()
            .filter_map(|(i, a)| match a {
                CaseArg::Tensor(_) => None,
                CaseArg::Int(v) => Some(format!(".int({v}) as argument {i}")),
                CaseArg::F32(v) => Some(format!(".f32({v:?}) as argument {i}")),
            })
            .collect();
        let bound = bind(def, &self.name, &names, &self.named, &positional)?;
        let args = bound
            .iter()
            .map(|b| match *b {
                Bound::Tensor(i) => CaseArg::Tensor(tensors[i].clone()),
                Bound::Scalar(ScalarValue::Int(v)) => CaseArg::Int(v),
                Bound::Scalar(ScalarValue::F32(v)) => CaseArg::F32(v),
            })
            .collect();
        let params = def.params.iter().map(|p| p.name).collect();
        Ok(Cow::Owned(Case { args, bound_params: Some(params), ..self.clone() }))
    }

    /// The error for a case with named arguments run without its kernel's signature.
    pub(crate) fn unresolved(&self) -> ArgError {
        let (name, _) = self.named[0];
        ArgError {
            kind: ArgErrorKind::Unresolved,
            kernel: "(not given)",
            case: self.name.clone(),
            arg: name.to_string(),
            detail: "the case passes arguments by name, and names need the kernel's signature: bind it with                      case.resolve(&kernel_def) before placing it"
                .to_string(),
            signature: String::new(),
        }
    }

    /// The runtime argument values with tensor `i`'s buffer at address `buffers[i]` (the
    /// kernel gets the address of the view's first element).
    pub fn arg_values(&self, buffers: &[u64]) -> Vec<rtriton::spec::ArgValue> {
        use rtriton::spec::ArgValue;
        let mut buffers = buffers.iter();
        self.args
            .iter()
            .map(|a| match a {
                CaseArg::Tensor(t) => {
                    let base = buffers
                        .next()
                        .copied()
                        .unwrap_or_else(|| panic!("case `{}`: no address for `{}`", self.name, t.name));
                    ArgValue::Ptr(base + t.view.offset as u64 * t.data.dtype().size_bytes())
                }
                CaseArg::Int(v) => ArgValue::Int(*v),
                CaseArg::F32(v) => ArgValue::F32(*v),
            })
            .collect()
    }

    /// `Ok` when every view fits its buffer; else which tensor is wrong and how.
    pub fn check(&self) -> Result<(), String> {
        self.check_names()?;
        for t in self.tensors() {
            t.view.check(t.data.len()).map_err(|e| format!("case `{}`, tensor `{}`: {e}", self.name, t.name))?;
        }
        Ok(())
    }

    /// Each constexpr set once and each tensor named once (what [`Case::check`] checks
    /// besides the views).
    pub fn check_names(&self) -> Result<(), String> {
        for (i, (name, v)) in self.constexprs.iter().enumerate() {
            if let Some((_, w)) = self.constexprs[i + 1..].iter().find(|(n, _)| n == name) {
                return Err(format!(
                    "case `{}`: constexpr `{name}` is set twice ({v}, then {w}); set each constexpr once",
                    self.name
                ));
            }
        }
        let names: Vec<&str> = self.tensors().map(|t| t.name).collect();
        for (i, name) in names.iter().enumerate() {
            if names[i + 1..].contains(name) {
                return Err(format!(
                    "case `{}`: two tensors are named `{name}`; the reference and the report find tensors by name, \
                     so an output named like an input would alias it: name each tensor once",
                    self.name
                ));
            }
        }
        Ok(())
    }
}

impl Case {
    /// `` `n` `` for argument `i` of a bound case (the parameter's name), else nothing.
    fn param_label(&self, i: usize) -> String {
        self.bound_params.as_ref().and_then(|p| p.get(i)).map(|n| format!(" `{n}`")).unwrap_or_default()
    }
}

impl fmt::Display for Case {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "case `{}`: grid {:?}, num_warps {}", self.name, self.grid, self.num_warps)?;
        if !self.constexprs.is_empty() {
            let c: Vec<String> = self.constexprs.iter().map(|(n, v)| format!("{n}={v}")).collect();
            write!(f, ", constexprs {}", c.join(" "))?;
        }
        for (i, a) in self.args.iter().enumerate() {
            match a {
                CaseArg::Tensor(t) => {
                    write!(f, "\n  arg {i} `{}`: {} (buffer of {} {})", t.name, t.view, t.data.len(), t.data.dtype())?
                }
                CaseArg::Int(v) => write!(f, "\n  arg {i}{}: {v}", self.param_label(i))?,
                CaseArg::F32(v) => write!(f, "\n  arg {i}{}: {v:?}", self.param_label(i))?,
            }
        }
        if self.bound_params.is_none() {
            for (name, v) in &self.named {
                write!(f, "\n  arg `{name}`: {v}")?;
            }
        }
        Ok(())
    }
}
