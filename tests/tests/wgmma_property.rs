//! Property test of sm_90a's `wgmma` path: the matmul port (tutorial 03's K loop of `dot`
//! through staging rings) lowered for sm_90a, on the interpreter and on the SIMT
//! simulator, which runs every `wgmma` through its shared-memory descriptor, agree bit for
//! bit over random launches (`docs/semantics.md`, "dot").
//!
//! A launch draws:
//! - the dtype, `f16` or `bf16`;
//! - the tile among those that run as `wgmma`: one warpgroup with `B`'s rows of 32 bytes
//!   (`m64n16`, the 32-byte swizzle), 64 bytes (`m64n32`, the 64-byte swizzle), 128 bytes
//!   (`m64n64`) or two 128-byte panels
//!   (`m64n128`), and two warpgroups along M; K tiles of 16, 32 or 64 (`A`'s rows of 32,
//!   64 or 128 bytes for `ldmatrix`), 2 or 3 stages;
//! - the sizes `M`, `N`, `K` from 1 to past two tiles (masked tails in every dim, K loops
//!   of one to several steps);
//! - `A` and `B` row-major or transposed (a transposed operand's tile is copied through
//!   registers into the same slots; unaligned strides do the same);
//! - the values: ordinary, or with infinities, a NaN and signed-zero rows; the fused
//!   `leaky_relu` or not;
//! - one program a tile, or the persistent kernel on 1 to 6 programs (each looping over
//!   its tiles, so the K loop's group in flight, its rings and its wait restart per tile).
//!
//! Both operands are read through descriptors (`A`'s slot with its 8-row groups permuted)
//! and the K loop keeps one group in flight, wherever the tile allows.
//!
//! 64 cases by default (`PROPTEST_CASES` overrides; `PROPTEST_RNG_SEED` replaces the
//! fixed seed).

use proptest::prelude::*;
use proptest::test_runner::{Config as TestConfig, RngSeed};
use rtriton::backend::ptx::{self, Arch, PtxOptions};
use rtriton::session::CompileSession;
use rtriton::spec::SpecPolicy;
use rtriton_host::ports::matmul::{Fill, Kernel, Layout, Spec, case};
use rtriton_kernels::ports::matmul::{Config, LEAKY_RELU, NO_ACTIVATION};
use rtriton_testing::run::{Outputs, lower_with, run_interpreter, run_simulator};
use rtriton_testing::suite::arg_values;

/// The tiles drawn: `(BLOCK_M, BLOCK_N, warps)`, every one a `wgmma` tile.
const TILES: [(usize, usize, u32); 5] = [(64, 16, 4), (64, 32, 4), (64, 64, 4), (64, 128, 4), (128, 64, 8)];

#[derive(Clone, Debug)]
struct Launch {
    kernel: Kernel,
    config: Config,
    sizes: [usize; 3],
    a: Layout,
    b: Layout,
    fill: Fill,
    activation: i64,
    persistent: Option<usize>,
}

fn launch() -> impl Strategy<Value = Launch> {
    (
        prop_oneof![Just(Kernel::F16), Just(Kernel::Bf16)],
        0..TILES.len(),
        prop_oneof![Just(16usize), Just(32), Just(64)],
        2u32..=3,
        (1usize..=140, 1usize..=140, 1usize..=150),
        (any::<bool>(), any::<bool>(), any::<bool>(), any::<bool>()),
        prop_oneof![Just(None), (1usize..=6).prop_map(Some)],
    )
        .prop_map(|(kernel, tile, block_k, stages, (m, n, k), (at, bt, specials, act), persistent)| {
            let (block_m, block_n, warps) = TILES[tile];
            let layout = |t: bool| if t { Layout::Transposed } else { Layout::Rows };
            Launch {
                kernel,
                config: Config::new(block_m, block_n, block_k, stages, warps),
                sizes: [m, n, k],
                a: layout(at),
                b: layout(bt),
                fill: if specials { Fill::Specials } else { Fill::Ordinary },
                activation: if act { LEAKY_RELU } else { NO_ACTIVATION },
                persistent,
            }
        })
}

fn spec(l: &Launch) -> Spec {
    let base = specs_base();
    Spec {
        m: l.sizes[0],
        n: l.sizes[1],
        k: l.sizes[2],
        a: l.a,
        b: l.b,
        fill: l.fill,
        activation: l.activation,
        config: Some(l.config),
        arch: Arch::Sm90a,
        persistent: l.persistent,
        ..base
    }
}

/// A CPU-sized `sm_90a` spec of the port, whose fields the launches replace.
fn specs_base() -> Spec {
    rtriton_host::ports::matmul::specs()
        .into_iter()
        .find(|s| s.arch == Arch::Sm90a && !s.gpu_only)
        .expect("the port has sm_90a cases")
}

fn bits(o: &Outputs) -> Vec<Vec<u8>> {
    o.buffers.iter().map(|(_, d)| d.to_le_bytes()).collect()
}

fn check(l: &Launch) -> Result<(), String> {
    let spec = spec(l);
    let c = case(l.kernel, &spec);
    let def = spec.def(l.kernel);
    let args = arg_values(&c).map_err(|e| e.to_string())?;
    let options = PtxOptions { num_warps: c.num_warps, ..PtxOptions::for_arch(Arch::Sm90a) };
    let program = lower_with(&mut CompileSession::new(), &def, &c.constexprs, &args, SpecPolicy::Triton, &options)
        .map_err(|e| format!("the lowering refused: {e}"))?;
    let want = format!("wgmma.mma_async.sync.aligned.m64n{}k16", l.config.block_n);
    let text = ptx::write(&program);
    if !text.contains(&want) {
        return Err(format!("no {want}"));
    }
    // Every drawn tile reads `A` through a descriptor and keeps a group in flight.
    if !text.contains(", 1, 1, 1, 0, ") || !text.contains("wgmma.wait_group.sync.aligned 1;") {
        return Err("A not through a descriptor, or no group in flight".into());
    }
    let sim = run_simulator(&def, &c, SpecPolicy::Triton).map_err(|e| format!("the simulator refused: {e}"))?;
    let interp = run_interpreter(&def, &c, SpecPolicy::Triton).map_err(|e| format!("the interpreter refused: {e}"))?;
    if bits(&sim) != bits(&interp) {
        return Err("the simulator's C differs from the interpreter's".into());
    }
    Ok(())
}

const CASES: u32 = 64;
const SEED: u64 = 0x0090_A000_0000_0001;

fn config() -> TestConfig {
    let default = TestConfig::default();
    let cases = if std::env::var_os("PROPTEST_CASES").is_some() { default.cases } else { CASES };
    let rng_seed = match default.rng_seed {
        RngSeed::Random => RngSeed::Fixed(SEED),
        fixed => fixed,
    };
    TestConfig { cases, rng_seed, ..default }
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn wgmma_matmuls_give_the_interpreters_bits(l in launch()) {
        check(&l).map_err(|e| TestCaseError::fail(format!("{l:?}: {e}")))?;
    }
}
