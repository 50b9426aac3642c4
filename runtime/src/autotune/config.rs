//! One configuration an autotuned kernel may launch with (Triton's `triton.Config`): its
//! constexprs and the PTX back end's knobs, `num_warps` and `min_ctas_per_sm` (the
//! register bound, where Triton's `Config` has `maxnreg`).

use std::fmt;

use crate::launch::JitKernel;

/// Constexprs and back-end knobs of one candidate launch.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Config {
    /// In the order given (printed in that order; the compile key sorts them).
    pub constexprs: Vec<(&'static str, i64)>,
    pub num_warps: u32,
    /// CTAs an SM should hold (PTX `.minnctapersm`, so ptxas bounds the registers a
    /// thread); 0: no bound.
    pub min_ctas_per_sm: u32,
}

impl Config {
    /// `constexprs` with 4 warps (Triton's default).
    pub fn new(constexprs: &[(&'static str, i64)]) -> Config {
        Config { constexprs: constexprs.to_vec(), num_warps: 4, min_ctas_per_sm: 0 }
    }

    pub fn num_warps(mut self, num_warps: u32) -> Config {
        self.num_warps = num_warps;
        self
    }

    /// Asks ptxas to fit `n` CTAs on an SM (0: no bound).
    pub fn min_ctas_per_sm(mut self, n: u32) -> Config {
        self.min_ctas_per_sm = n;
        self
    }

    /// The value of constexpr `name`, if this configuration sets it.
    pub fn get(&self, name: &str) -> Option<i64> {
        self.constexprs.iter().find(|(n, _)| *n == name).map(|(_, v)| *v)
    }

    /// `base` launched with this configuration: its constexprs set (replacing any of the
    /// same name), its `num_warps` and `min_ctas_per_sm`; grid closure, specialization and
    /// lint unchanged.
    pub fn apply(&self, base: &JitKernel) -> JitKernel {
        base.clone().constexprs(&self.constexprs).num_warps(self.num_warps).min_ctas_per_sm(self.min_ctas_per_sm)
    }
}

impl fmt::Display for Config {
    /// `BLOCK_M: 16, BLOCK_N: 64, num_warps: 4`, as Triton prints a `Config`, then
    /// `, min_ctas_per_sm: N` where it bounds the registers. This text also identifies the
    /// configuration in the on-disk store (so stores written before the knob still match).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (name, value) in &self.constexprs {
            write!(f, "{name}: {value}, ")?;
        }
        write!(f, "num_warps: {}", self.num_warps)?;
        if self.min_ctas_per_sm > 0 {
            write!(f, ", min_ctas_per_sm: {}", self.min_ctas_per_sm)?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use rtriton_kernels::RowMaxVariant;

    use super::*;

    #[test]
    fn a_config_prints_like_tritons_and_applies_its_constexprs_and_warps() {
        let c = Config::new(&[("BLOCK_M", 16), ("BLOCK_N", 64)]).num_warps(8);
        assert_eq!(c.to_string(), "BLOCK_M: 16, BLOCK_N: 64, num_warps: 8");
        assert_eq!(Config::new(&[]).to_string(), "num_warps: 4");
        assert_eq!((c.get("BLOCK_N"), c.get("BLOCK")), (Some(64), None));
        let base = JitKernel::new(RowMaxVariant::RowMax2d.def()).constexpr("BLOCK_M", 1).num_warps(2);
        let k = c.apply(&base);
        assert_eq!(k.meta.get("BLOCK_M"), Some(16));
        assert_eq!(k.meta.get("BLOCK_N"), Some(64));
        assert_eq!(k.num_warps, 8);
        assert_eq!(base.meta.get("BLOCK_M"), Some(1), "the base kernel is not changed");
        assert_eq!(k.min_ctas_per_sm, 0);
    }

    #[test]
    fn a_register_bound_is_printed_only_when_set_and_reaches_the_launch() {
        let c = Config::new(&[("BLOCK_M", 64)]).min_ctas_per_sm(10);
        assert_eq!(c.to_string(), "BLOCK_M: 64, num_warps: 4, min_ctas_per_sm: 10");
        assert_ne!(c, Config::new(&[("BLOCK_M", 64)]), "a bound makes another configuration");
        let base = JitKernel::new(RowMaxVariant::RowMax2d.def()).min_ctas_per_sm(2);
        assert_eq!(c.apply(&base).min_ctas_per_sm, 10);
        assert_eq!(Config::new(&[]).apply(&base).min_ctas_per_sm, 0, "a configuration without one clears it");
    }
}
