//! Ahead-of-time PTX of the row-max family, built by `kernels-gpu/build.rs` into
//! `OUT_DIR` and embedded with `include_str!` (the way Rust-CUDA's `cuda_builder` ships
//! PTX). Each entry records the specialization key, constexprs and launch options it was
//! compiled for; [`find`] returns one only for a launch with exactly those, so the JIT
//! path stays the general one.

use rtriton::spec::SpecKey;

use crate::RowMaxVariant;

/// One precompiled kernel.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AotKernel {
    pub variant: RowMaxVariant,
    /// `aligned` (the contiguous fast path) or `generic` (specialization off).
    pub specialization_name: &'static str,
    /// `SpecKey`'s text (`x_ptr:*f32:D16, ...`), compared with a launch's key.
    pub spec_key: &'static str,
    pub constexprs: &'static [(&'static str, i64)],
    pub arch: &'static str,
    pub num_warps: u32,
    pub threads_per_cta: u32,
    pub shared_bytes: u32,
    pub entry: &'static str,
    pub ptx: &'static str,
}

include!(concat!(env!("OUT_DIR"), "/aot_table.rs"));

/// The AOT kernel compiled for exactly this variant, specialization, constexprs and
/// `num_warps` on `sm_86`, if any.
pub fn find(
    variant: RowMaxVariant,
    spec: &SpecKey,
    constexprs: &[(&str, i64)],
    num_warps: u32,
) -> Option<&'static AotKernel> {
    let key = spec.to_string();
    AOT_KERNELS.iter().find(|k| {
        k.variant == variant
            && k.spec_key == key
            && k.num_warps == num_warps
            && k.constexprs.len() == constexprs.len()
            && k.constexprs.iter().all(|c| constexprs.contains(c))
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use rtriton::spec::{ArgValue, SpecPolicy};

    #[test]
    fn every_variant_has_both_specializations() {
        for v in RowMaxVariant::ALL {
            for name in ["aligned", "generic"] {
                let k = AOT_KERNELS.iter().find(|k| k.variant == v && k.specialization_name == name);
                let k = k.unwrap_or_else(|| panic!("{} {name} missing", v.name()));
                assert!(k.ptx.starts_with("// rtriton PTX") && k.ptx.contains(".target sm_86"));
                assert!(k.ptx.contains(&format!(".visible .entry {}(", v.name())));
            }
        }
    }

    #[test]
    fn find_matches_only_the_recorded_launch() {
        let v = RowMaxVariant::RowMax;
        let def = v.def();
        let aligned = [
            ArgValue::Ptr(0x7f00_0000_0000),
            ArgValue::Ptr(0x7f00_0020_0000),
            ArgValue::Int(999),
            ArgValue::Int(2048),
            ArgValue::Int(2048),
            ArgValue::Int(1),
        ];
        let key = SpecKey::from_args(def.name, &def.params, &aligned, SpecPolicy::Triton).unwrap();
        let k = find(v, &key, &v.default_constexprs(), 4).expect("aligned fast path is precompiled");
        assert_eq!(k.specialization_name, "aligned");
        let strided = [aligned[0], aligned[1], aligned[2], aligned[3], ArgValue::Int(4096), ArgValue::Int(2)];
        let key = SpecKey::from_args(def.name, &def.params, &strided, SpecPolicy::Triton).unwrap();
        assert!(find(v, &key, &v.default_constexprs(), 4).is_none(), "strided launches take the JIT path");
        assert!(find(v, &SpecKey::plain(&def.params), &v.default_constexprs(), 4).is_some());
        assert!(find(v, &SpecKey::plain(&def.params), &v.default_constexprs(), 8).is_none());
    }
}
