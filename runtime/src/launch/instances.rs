//! Generic kernels at launch: a `kernel!` with a type parameter (`fn f<T: Float>`) is
//! launched as the instance its argument dtypes pick, as Triton's JIT specializes on
//! pointer dtypes. The instance is found once per launch configuration and dtype list
//! and kept, so later launches of a generic kernel cost a short search before the fast
//! path, not a new definition.

use std::sync::Arc;

use rtriton::ir::ScalarType;
use smallvec::SmallVec;

use super::signature::KernelIdentity;
use super::{Arg, JitKernel, LaunchError, debug_mode};

/// Each argument's element type when it is a tensor (kernels of up to 16 arguments keep
/// them inline).
type Pointees = SmallVec<[Option<ScalarType>; 16]>;

/// The instances launched so far.
#[derive(Debug, Default)]
pub(crate) struct Instances {
    entries: Vec<Entry>,
}

#[derive(Debug)]
struct Entry {
    identity: KernelIdentity,
    pointees: Pointees,
    instance: Arc<JitKernel>,
}

impl Instances {
    /// The instance of generic `kernel` for `args`: `kernel`'s launch configuration with
    /// the instance's definition. Arguments no instance takes are `RT0702`, naming the
    /// parameter and the dtypes the type parameter may take.
    pub(crate) fn resolve(&mut self, kernel: &JitKernel, args: &[Arg<'_>]) -> Result<Arc<JitKernel>, LaunchError> {
        let pointees: Pointees = args
            .iter()
            .map(|a| match a {
                Arg::Tensor(t) => Some(t.buffer.elem),
                Arg::Int(_) | Arg::F32(_) => None,
            })
            .collect();
        let debug = debug_mode(kernel);
        if let Some(e) = self.entries.iter().find(|e| e.pointees == pointees && e.identity.matches(kernel, debug)) {
            return Ok(e.instance.clone());
        }
        let def = kernel.def.instance_for(&pointees)?;
        let instance = Arc::new(kernel.with_def(def));
        self.entries.push(Entry { identity: KernelIdentity::of(kernel, debug), pointees, instance: instance.clone() });
        Ok(instance)
    }

    pub(crate) fn clear(&mut self) {
        self.entries.clear();
    }
}
