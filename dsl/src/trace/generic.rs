//! Generic kernels: `kernel! { fn rms_norm<T: Float>(x_ptr: Ptr<T>, ...) { ... } }`.
//!
//! Triton's JIT specializes a kernel on the dtypes of its pointer arguments, so one
//! Python function serves f16, bf16 and f32 tensors. A Rust body is monomorphized at
//! compile time instead, so `kernel!` instantiates a generic body once per dtype of the
//! bound's list (for [`crate::lang::Float`]: f32, f16, bf16, f64; a user trait names its
//! list, `T: MyElement in [f32, f16]`) and the definition carries every instance. The
//! launch, the testing crate and `validate` pick the instance from the argument dtypes
//! ([`KernelDef::instance_for`]); each instance is a kernel of its own (its own body,
//! parameters and compile-cache entries), under the generic kernel's name, as Triton's
//! specializations share theirs.
//!
//! A generic definition is its first instance plus [`Generic`], so a tool that takes one
//! kernel and knows nothing of generics (the interpreter given plain addresses, `explain`
//! without tensors) traces the first dtype of the list.

use crate::ir::{ParamKind, ScalarType};
use crate::spec::SpecError;

use super::KernelDef;

/// What a generic `kernel!` adds to its definition: the type parameter and one instance
/// per dtype of its bound's list.
#[derive(Clone, Debug)]
pub struct Generic {
    /// The type parameter's name (`T`).
    pub param: &'static str,
    /// Its bound as written (`Float`).
    pub bound: &'static str,
    pub instances: Vec<Instance>,
}

/// One dtype of a generic kernel: `T = dtype`, and the definition it gives.
#[derive(Clone, Copy, Debug)]
pub struct Instance {
    pub dtype: ScalarType,
    pub def: fn() -> KernelDef,
}

impl KernelDef {
    /// Whether this is a generic kernel's definition (see the module doc).
    pub fn is_generic(&self) -> bool {
        self.generic.is_some()
    }

    /// The instance with its type parameter set to `dtype`, or `None` when `dtype` is not
    /// in the bound's list or the kernel is not generic.
    pub fn instance(&self, dtype: ScalarType) -> Option<KernelDef> {
        match &self.generic {
            None => None,
            Some(g) => g.instances.iter().find(|i| i.dtype == dtype).map(|i| (i.def)()),
        }
    }

    /// The instance whose parameters take arguments of these element types:
    /// `pointees[i]` is the element type of argument `i` when it is a tensor, `None` for
    /// a scalar (which the instance's own checks judge). A kernel that is not generic is
    /// returned as it is.
    ///
    /// The type parameter is read from the first pointer parameter whose type mentions
    /// it; every other such parameter must agree. Otherwise the error is `RT0702`
    /// (`SpecError::ArgType`), naming the parameter, the bound's dtypes and the type the
    /// parameter takes once `T` is fixed.
    pub fn instance_for(&self, pointees: &[Option<ScalarType>]) -> Result<KernelDef, SpecError> {
        let Some(generic) = &self.generic else { return Ok(self.clone()) };
        let instances: Vec<(ScalarType, KernelDef)> = generic.instances.iter().map(|i| (i.dtype, (i.def)())).collect();
        let generic_params = positions_of_type_parameter(&instances);
        let pointer_of = |def: &KernelDef, i: usize| match def.params.get(i).map(|p| p.kind) {
            Some(ParamKind::Ptr(elem)) => Some(elem),
            _ => None,
        };
        let matches = |def: &KernelDef| {
            generic_params.iter().all(|&i| match (pointer_of(def, i), pointees.get(i).copied().flatten()) {
                (Some(elem), Some(given)) => elem == given,
                // A scalar argument or a missing one: the instance's own checks say what is wrong.
                _ => true,
            })
        };
        if let Some((_, def)) = instances.iter().find(|(_, def)| matches(def)) {
            return Ok(def.clone());
        }
        // No instance: name the first parameter that rules the candidates out.
        let first = &instances[0].1;
        let dtypes: Vec<String> = instances.iter().map(|(d, _)| d.to_string()).collect();
        let given = |i: usize| pointees.get(i).copied().flatten();
        let deciding = generic_params.iter().copied().find(|&i| pointer_of(first, i).is_some() && given(i).is_some());
        let (param, expected, got) = match deciding {
            Some(i) => {
                let got = given(i).expect("found with a given dtype");
                match instances.iter().find(|(_, def)| pointer_of(def, i) == Some(got)) {
                    // `T` is fixed by parameter `i`; another parameter disagrees.
                    Some((dtype, def)) => {
                        let j = generic_params
                            .iter()
                            .copied()
                            .find(|&j| matches!((pointer_of(def, j), given(j)), (Some(e), Some(g)) if e != g))
                            .unwrap_or(i);
                        let expected = format!(
                            "{} ({} = {dtype}, from `{}`)",
                            def.params[j].kind, generic.param, def.params[i].name
                        );
                        (def.params[j].name, expected, format!("a tensor of {}", given(j).expect("disagrees")))
                    }
                    None => (
                        first.params[i].name,
                        format!(
                            "a pointer to {} with {}: {} ({})",
                            generic.param,
                            generic.param,
                            generic.bound,
                            dtypes.join(", ")
                        ),
                        format!("a tensor of {got}"),
                    ),
                }
            }
            None => (
                first.params.first().map_or("?", |p| p.name),
                format!("tensors that fix {}: {}", generic.param, generic.bound),
                "no tensor argument".to_string(),
            ),
        };
        Err(SpecError::ArgType { kernel: self.name.to_string(), param, expected, got })
    }

    /// The parameters whose type mentions the type parameter, as `kernel!` wrote them
    /// (`*T`), for [`KernelDef::signature`].
    pub(crate) fn generic_param_texts(&self) -> Option<Vec<Option<String>>> {
        let generic = self.generic.as_ref()?;
        let instances: Vec<(ScalarType, KernelDef)> = generic.instances.iter().map(|i| (i.dtype, (i.def)())).collect();
        let positions = positions_of_type_parameter(&instances);
        let first = &instances[0].1;
        Some(
            (0..first.params.len())
                .map(|i| {
                    positions.contains(&i).then(|| match first.params[i].kind {
                        ParamKind::Ptr(_) => format!("*{}", generic.param),
                        ParamKind::Scalar(_) => generic.param.to_string(),
                    })
                })
                .collect(),
        )
    }
}

/// The parameters whose kind follows the instance's dtype: those whose element type is
/// the instance's in every instance (a parameter of a fixed type, `Ptr<f32>` in every
/// instance, is not among them even in the `f32` instance).
fn positions_of_type_parameter(instances: &[(ScalarType, KernelDef)]) -> Vec<usize> {
    let Some((_, first)) = instances.first() else { return Vec::new() };
    let element = |k: ParamKind| match k {
        ParamKind::Ptr(e) | ParamKind::Scalar(e) => e,
    };
    (0..first.params.len())
        .filter(|&i| {
            instances.iter().all(|(dtype, def)| def.params.get(i).is_some_and(|p| element(p.kind) == *dtype))
                && instances.len() > 1
        })
        .collect()
}
