//! The matmul port (`rtriton_kernels::ports::matmul`) against its autotuning
//! configurations: each of Triton tutorial 03's CUDA configurations either compiles or is
//! refused with a coded diagnostic (never a panic), the ones `autotune_configs` keeps
//! assemble for sm_86 and sm_90 without spills, those left out are refused, spill or need
//! more shared memory than sm_86 has, the kept ones fit sm_86's shared memory with the
//! accumulator stored in 16-byte vectors, and the port is lint-clean.

mod ptx_common;

use rtriton::backend::ptx::{self, Arch};
use rtriton::diag::{Code, HasDiagnostics};
use rtriton::session::CompileSession;
use rtriton::spec::{ArgValue, SpecPolicy};
use rtriton::trace::{KernelDef, TraceOptions};
use rtriton_kernels::ports::matmul::{
    Config, LEAKY_RELU, NO_ACTIVATION, SM86_SHARED_BYTES, SM90_SHARED_BYTES, TUTORIAL_CONFIGS, autotune_configs,
    matmul_kernel_bf16, matmul_kernel_f16, matmul_kernel_tf32,
};

/// Each kernel with the configurations its autotuning keeps.
fn kernels() -> [(KernelDef, &'static [Config]); 3] {
    [
        (matmul_kernel_f16(), autotune_configs(false)),
        (matmul_kernel_bf16(), autotune_configs(false)),
        (matmul_kernel_tf32(), autotune_configs(true)),
    ]
}

/// The arguments of a contiguous `n x n x n` product at 256-byte aligned addresses (what
/// torch tensors get): row-major `A`, `B` and `C`.
fn contiguous_args(n: i64) -> Vec<ArgValue> {
    let mut args =
        vec![ArgValue::Ptr(0x7f00_0000_0000), ArgValue::Ptr(0x7f10_0000_0000), ArgValue::Ptr(0x7f20_0000_0000)];
    args.extend([n, n, n, n, 1, n, 1, n, 1].map(ArgValue::Int));
    args
}

/// The configuration's PTX for sm_86 under Triton's specialization of a 4096^3 product,
/// or the compiler's refusal.
fn compile(def: &KernelDef, config: Config, activation: i64) -> Result<String, ptx::PtxError> {
    compile_ptx(def, config, activation).map(|p| p.text)
}

fn compile_ptx(def: &KernelDef, config: Config, activation: i64) -> Result<ptx::Ptx, ptx::PtxError> {
    let constexprs = config.constexprs(activation);
    let verified = CompileSession::new()
        .front_end_for_args(def, &constexprs, &contiguous_args(4096), SpecPolicy::Triton, &TraceOptions::default())
        .unwrap_or_else(|e| panic!("{} {config:?}: the front end refused it: {e}", def.name));
    ptx::compile(&verified, &ptx_common::options(Arch::Sm86, config.num_warps))
}

/// Every tutorial configuration compiles, or is refused before any PTX with the register
/// budget's or the shared memory's diagnostic, and no configuration `autotune_configs`
/// keeps is refused.
#[test]
fn each_tutorial_config_compiles_or_is_refused_with_a_diagnostic() {
    for (def, kept) in kernels() {
        let mut refused = Vec::new();
        for config in TUTORIAL_CONFIGS {
            match compile(&def, config, NO_ACTIVATION) {
                Ok(text) => assert!(text.contains("mma.sync.aligned"), "{} {config:?}: no mma.sync", def.name),
                Err(e) => {
                    assert!(
                        e.has_code(Code::PtxRegisterBudget) || e.has_code(Code::PtxLayoutConflict),
                        "{} {config:?}: refused without the budget's diagnostic: {e}",
                        def.name
                    );
                    refused.push(config);
                }
            }
        }
        for config in kept {
            assert!(!refused.contains(config), "{} keeps {config:?}, which is refused", def.name);
        }
        assert!(!refused.is_empty(), "{}: the tutorial's largest tiles fit; revisit autotune_configs", def.name);
    }
}

/// Every kept configuration, in every dtype, with and without the activation, assembles
/// for sm_86 and sm_90 with no spills; tutorial configurations left out that compile are
/// left out because they spill.
#[test]
#[cfg_attr(not(has_ptxas), ignore = "needs ptxas on PATH")]
fn autotune_configs_assemble_without_spills() {
    let ptxas = ptx_common::ptxas("autotune_configs_assemble_without_spills");
    for (def, kept_configs) in kernels() {
        assert!(!kept_configs.is_empty(), "{} keeps no configuration", def.name);
        // The tutorial's configurations, then the kept ones that differ from them (a tile
        // run unstaged).
        let extra = kept_configs.iter().filter(|c| !TUTORIAL_CONFIGS.contains(c)).copied();
        for config in TUTORIAL_CONFIGS.into_iter().chain(extra) {
            let kept = kept_configs.contains(&config);
            for activation in [NO_ACTIVATION, LEAKY_RELU] {
                let Ok(text) = compile(&def, config, activation) else {
                    assert!(!kept, "{} {config:?} is kept but refused", def.name);
                    continue;
                };
                let mut spills = 0;
                for arch in ["sm_86", "sm_90"] {
                    let info = ptx_common::assemble(&ptxas, &text, arch, def.name)
                        .unwrap_or_else(|e| panic!("{} {config:?} on {arch}: {e}", def.name));
                    let s = ptx_common::spill_stores(&info).expect("ptxas reports spills");
                    if kept {
                        assert_eq!(s, 0, "{} {config:?} activation {activation} spills on {arch}:\n{info}", def.name);
                    }
                    spills += s;
                }
                // Left out: it spills, or its rings need more than sm_86's shared memory
                // (the launch would be refused there).
                let elem = if def.name.ends_with("tf32") { 4 } else { 2 };
                if !kept && activation == NO_ACTIVATION && config.ring_bytes(elem) <= SM86_SHARED_BYTES {
                    assert!(spills > 0, "{} {config:?} compiles without spills: keep it in autotune_configs", def.name);
                }
            }
        }
    }
}

/// The port's kernels raise no lint finding (what `rtriton lint --kernel NAME` prints):
/// every index-times-stride product is i64.
#[test]
fn the_port_is_lint_clean() {
    for (def, kept) in kernels() {
        let findings = CompileSession::new()
            .lint(&def, &kept[0].constexprs(LEAKY_RELU), &Default::default())
            .unwrap_or_else(|e| panic!("{}: {e}", def.name));
        assert!(findings.is_empty(), "{}: {findings:?}", def.name);
    }
}

/// Every kept configuration fits the shared memory a CTA has on sm_86 (its rings, and the
/// epilogue's conversion of the accumulator sharing their memory), or on sm_90 where its
/// rings alone are past sm_86's, and stores its
/// `BLOCK_M x BLOCK_N` result in 16-byte vectors only (the accumulator converted from the
/// `mma` fragment layout, whose threads hold pairs of columns, to the coalesced one).
#[test]
fn kept_configs_fit_sm_86_and_store_the_accumulator_in_16_byte_vectors() {
    for (def, kept) in kernels() {
        let elem = if def.name.ends_with("tf32") { 4 } else { 2 };
        for &config in kept {
            let p = compile_ptx(&def, config, NO_ACTIVATION).unwrap_or_else(|e| panic!("{} {config:?}: {e}", def.name));
            // The configurations for GPUs with more shared memory are those whose rings
            // alone are past sm_86's.
            let limit = if config.ring_bytes(elem) > SM86_SHARED_BYTES { SM90_SHARED_BYTES } else { SM86_SHARED_BYTES };
            assert!(
                p.shared_bytes as usize <= limit,
                "{} {config:?}: {} bytes of shared memory",
                def.name,
                p.shared_bytes
            );
            assert!(p.shared_bytes as usize >= config.ring_bytes(elem), "{} {config:?}", def.name);
            let threads = config.num_warps as usize * 32;
            let vectors = config.block_m * config.block_n * elem / 16;
            let want = vectors.div_ceil(threads);
            // Every store is a 16-byte vector, and they cover the tile (a layout wider
            // than the tile repeats some: the same bytes twice).
            let vector_stores = p.text.matches("st.global.v4.").count();
            assert_eq!(p.text.matches("st.global").count(), vector_stores, "{} {config:?}", def.name);
            assert!(vector_stores >= want, "{} {config:?}: {vector_stores} 16-byte stores a thread", def.name);
        }
    }
}
