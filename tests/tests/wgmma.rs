//! `dot` as `wgmma` on sm_90a (`lower/wgmma.rs`): a pipelined K loop's 16-bit products
//! read `B` from their ring slots through shared-memory matrix descriptors.
//!
//! - The matmul port's `wgmma_*` cases lower to `wgmma.mma_async` of the tile's width, `A`
//!   and `B` through descriptors and one group in flight across the K loop, and the
//!   simulator, which reads them through the descriptors' fields and swizzle, gives the
//!   interpreter's bits (one `fma` per `k` in order), for one and two warpgroups, `B` in
//!   one 128-byte row or in 128-byte panels, `B` transposed in memory, specials.
//! - The same kernels for sm_86 and sm_90 keep `mma.sync`; attention's products, whose
//!   accumulators are rescaled or restarted each step, wait each step.
//! - Planted bugs the simulator catches: a removed `wgmma.wait_group` after the loop (the
//!   accumulators are read in flight) or in it (a copy refills a slot a `wgmma` in flight
//!   reads), a removed barrier after the loop's wait (one warpgroup refills what the
//!   other's `wgmma` may still read), a removed `fence.proxy.async` (the tensor cores
//!   could read the slot's old bytes), `B` read with the wrong major-ness, a descriptor
//!   whose stride byte offset is off by one 16-byte unit.
//! - The layouts text says which `dot` runs as `wgmma` and how its ring lays out `B`.
//! - ptxas assembles a `wgmma` ring kernel for sm_90a without spills (golden PTX).

mod ptx_common;

use rtriton::backend::ptx::lir::{Inst, Operand, Program};
use rtriton::backend::ptx::{self, Arch, PtxOptions};
use rtriton::interp::Memory;
use rtriton::session::CompileSession;
use rtriton::sim::{self, Check};
use rtriton::spec::SpecPolicy;
use rtriton::trace::TraceOptions;
use rtriton_host::ports::matmul::{Kernel, Spec, case, specs};
use rtriton_testing::run::{Outputs, Placed, lower_with, place, read_outputs, run_interpreter, run_simulator};
use rtriton_testing::suite::arg_values;

/// The CPU back ends' `sm_90a` cases of the matmul port.
fn sm90a_specs() -> Vec<Spec> {
    specs().into_iter().filter(|s| s.arch == Arch::Sm90a && !s.gpu_only).collect()
}

/// `kernel`'s program for `spec`'s case lowered for sm_90a from a front end whose rings
/// are one slot deeper where they can be (`deeper`, what `CompileSession::lower` asks
/// for sm_90a) or as deep as the loop's stages.
fn program_with_rings(kernel: Kernel, spec: &Spec, deeper: bool) -> Program {
    let c = case(kernel, spec);
    let args = arg_values(&c).expect("the case places");
    let def = spec.def(kernel);
    let key = CompileSession::specialize(&def, &args, SpecPolicy::Triton).expect("specializes");
    let trace = TraceOptions { deeper_rings: deeper, ..TraceOptions::default() };
    let verified = CompileSession::new().front_end(&def, &c.constexprs, &key, &trace).expect("traces");
    let options = PtxOptions { num_warps: c.num_warps, ..PtxOptions::for_arch(Arch::Sm90a) };
    ptx::lower(&verified, &options).unwrap_or_else(|e| panic!("{}: {e}", spec.name))
}

/// `kernel`'s program for `spec`'s case, lowered for `arch`.
fn program(kernel: Kernel, spec: &Spec, arch: Arch) -> Program {
    let c = case(kernel, spec);
    let args = arg_values(&c).expect("the case places");
    let options = PtxOptions { num_warps: c.num_warps, ..PtxOptions::for_arch(arch) };
    lower_with(&mut CompileSession::new(), &spec.def(kernel), &c.constexprs, &args, SpecPolicy::Triton, &options)
        .unwrap_or_else(|e| panic!("{}: {e}", spec.name))
}

#[test]
fn the_sm90a_cases_run_wgmma_and_give_the_interpreters_bits() {
    let specs = sm90a_specs();
    assert!(specs.len() >= 4, "the port has its sm_90a cases");
    for kernel in [Kernel::F16, Kernel::Bf16] {
        for spec in &specs {
            let config = rtriton_host::ports::matmul::config_of(kernel, spec);
            let text = ptx::write(&program(kernel, spec, Arch::Sm90a));
            let instr = format!("wgmma.mma_async.sync.aligned.m64n{}k16.f32.", config.block_n);
            assert!(text.contains(&instr), "{} {}: no {instr}", kernel.name(), spec.name);
            assert!(
                text.contains("fence.proxy.async.shared::cta;") && text.contains("wgmma.wait_group.sync.aligned 0;")
            );
            // Both operands through descriptors (`imm-trans-a` 0 before `B`'s), and the
            // group in flight across the K loop's iterations.
            assert!(text.contains(", 1, 1, 1, 0, "), "{} {}: A is read through a descriptor", kernel.name(), spec.name);
            assert!(
                text.contains("wgmma.wait_group.sync.aligned 1;"),
                "{} {}: a group in flight",
                kernel.name(),
                spec.name
            );
            assert!(!text.contains("mma.sync"), "{} {}: B is no longer read by ldmatrix", kernel.name(), spec.name);
            let c = case(kernel, spec);
            let sim = run_simulator(&spec.def(kernel), &c, SpecPolicy::Triton).unwrap_or_else(|e| panic!("{e}"));
            let interp = run_interpreter(&spec.def(kernel), &c, SpecPolicy::Triton).unwrap_or_else(|e| panic!("{e}"));
            assert_eq!(bits(&sim), bits(&interp), "{} {}", kernel.name(), spec.name);
        }
    }
}

#[test]
fn other_targets_keep_mma_sync() {
    let spec = &sm90a_specs()[0];
    for arch in [Arch::Sm86, Arch::Sm90] {
        let text = ptx::write(&program(Kernel::F16, spec, arch));
        assert!(text.contains("mma.sync.aligned.m16n8k16") && !text.contains("wgmma"), "{arch}");
    }
    // tf32 has no `wgmma` path yet: `mma.sync` on sm_90a too.
    let text = ptx::write(&program(Kernel::Tf32, spec, Arch::Sm90a));
    assert!(text.contains("mma.sync.aligned.m16n8k8") && !text.contains("wgmma.mma_async"));
}

/// Attention's products keep each step's wait: `P V`'s accumulator is rescaled between
/// steps and `Q K^T`'s starts from zero each step, so neither is a loop's chained product
/// that may stay in flight, and `a` (`Q` hoisted, `P` computed) stays in registers.
#[test]
fn attentions_products_wait_each_step() {
    use rtriton_host::ports::attention;
    let specs: Vec<attention::Spec> =
        attention::specs().into_iter().filter(|s| s.arch == Arch::Sm90a && !s.gpu_only).collect();
    assert!(!specs.is_empty(), "the attention port has sm_90a cases");
    for spec in &specs {
        let def = attention::Kernel::F16.def();
        let unbound = attention::case(attention::Kernel::F16, spec);
        let c = unbound.resolve(&def).expect("the case binds");
        let args = arg_values(&c).expect("the case places");
        let options = PtxOptions { num_warps: c.num_warps, ..PtxOptions::for_arch(Arch::Sm90a) };
        let p = lower_with(&mut CompileSession::new(), &def, &c.constexprs, &args, SpecPolicy::Triton, &options)
            .unwrap_or_else(|e| panic!("{}: {e}", spec.name));
        let text = ptx::write(&p);
        assert!(text.contains("wgmma.mma_async") && text.contains("wgmma.wait_group.sync.aligned 0;"), "{}", spec.name);
        assert!(!text.contains("wgmma.wait_group.sync.aligned 1;"), "{}: a product left in flight", spec.name);
        assert!(!text.contains(", 1, 1, 1, 0, "), "{}: A through a descriptor", spec.name);
    }
}

/// Every output's bytes (NaNs compare by their bits).
fn bits(o: &Outputs) -> Vec<(&'static str, Vec<u8>)> {
    o.buffers.iter().map(|(n, d)| (*n, d.to_le_bytes())).collect()
}

/// A lowered `wgmma` matmul, its arguments and memory, for planting bugs.
struct Setup {
    program: Program,
    mem: Memory,
    placed: Placed,
    case: rtriton_testing::Case,
    want: Outputs,
}

fn setup(name: &str) -> Setup {
    setup_with_rings(name, true)
}

/// [`setup`] with rings one slot deeper where they can be (`deeper`), or not.
fn setup_with_rings(name: &str, deeper: bool) -> Setup {
    let spec = sm90a_specs().into_iter().find(|s| s.name == name).expect("the case exists");
    let c = case(Kernel::F16, &spec);
    let mut mem = Memory::new();
    let placed = place(&mut mem, &c).expect("the case places");
    let want = run_interpreter(&Kernel::F16.def(), &c, SpecPolicy::Triton).expect("the interpreter runs it");
    Setup { program: program_with_rings(Kernel::F16, &spec, deeper), mem, placed, case: c, want }
}

impl Setup {
    /// Runs `p` on the simulator; the outputs' bytes.
    fn run(&self, p: &Program) -> Result<Vec<(&'static str, Vec<u8>)>, sim::SimError> {
        let mut mem = self.mem.clone();
        sim::run(p, self.case.grid, &self.placed.args, &mut mem)?;
        Ok(bits(&read_outputs(&mem, &self.case, &self.placed).expect("reads the outputs")))
    }

    fn want_bits(&self) -> Vec<(&'static str, Vec<u8>)> {
        bits(&self.want)
    }

    fn mutated(&self, mutate: impl Fn(&mut Inst)) -> Program {
        let mut p = self.program.clone();
        visit(&mut p.body, &mutate);
        p
    }

    /// The program with every instruction `drop` picks removed, in loops too.
    fn without(&self, drop: impl Fn(&Inst) -> bool) -> Program {
        fn remove(body: &mut Vec<Inst>, drop: &impl Fn(&Inst) -> bool) {
            body.retain(|i| !drop(i));
            for i in body.iter_mut() {
                for b in i.bodies_mut() {
                    remove(b, drop);
                }
            }
        }
        let mut p = self.program.clone();
        remove(&mut p.body, &drop);
        p
    }
}

fn visit(body: &mut [Inst], f: &impl Fn(&mut Inst)) {
    for i in body.iter_mut() {
        f(i);
        for b in i.bodies_mut() {
            visit(b, f);
        }
    }
}

#[test]
fn the_unmutated_program_gives_the_interpreters_bits() {
    let s = setup("wgmma_panels_70x160x96");
    assert_eq!(s.run(&s.program).unwrap(), s.want_bits());
}

#[test]
fn a_missing_wgmma_wait_group_after_the_loop_is_a_read_of_accumulators_in_flight() {
    let s = setup("wgmma_panels_70x160x96");
    let p = s.without(|i| matches!(i, Inst::WgmmaWait { pending: 0 }));
    assert_ne!(ptx::write(&p), ptx::write(&s.program), "the wait is planted");
    let e = s.run(&p).expect_err("reading an accumulator in flight must be reported");
    assert_eq!(e.check, Check::AsyncMmaPending, "{e}");
    assert!(e.to_string().contains("wgmma.wait_group"), "{e}");
}

#[test]
fn a_missing_wgmma_wait_group_in_the_loop_lets_a_copy_overwrite_operands_in_flight() {
    let s = setup("wgmma_panels_70x160x96");
    let p = s.without(|i| matches!(i, Inst::WgmmaWait { pending: 1 }));
    assert_ne!(ptx::write(&p), ptx::write(&s.program), "the wait is planted");
    let e = s.run(&p).expect_err("refilling a slot a wgmma in flight reads must be reported");
    assert_eq!(e.check, Check::AsyncMmaOperandOverwritten, "{e}");
    assert!(e.to_string().contains("in flight"), "{e}");
}

/// With rings as deep as the loop's stages, the barrier after `wait_group 1` is what tells
/// a warpgroup that the other one's group is done too: without it, one warpgroup refills
/// the slot the other's `wgmma` may still read. With one warpgroup the wait alone orders
/// the refill (no barrier needed).
#[test]
fn a_missing_barrier_after_the_loops_wait_is_a_race_between_warpgroups() {
    fn drop_barrier_after_wait(body: &mut Vec<Inst>) {
        let mut i = 0;
        while i + 1 < body.len() {
            if matches!(body[i], Inst::WgmmaWait { pending: 1 }) && matches!(body[i + 1], Inst::BarSync { .. }) {
                body.remove(i + 1);
            }
            for b in body[i].bodies_mut() {
                drop_barrier_after_wait(b);
            }
            i += 1;
        }
    }
    for (name, two_groups) in [("wgmma_two_groups_specials", true), ("wgmma_panels_70x160x96", false)] {
        let s = setup_with_rings(name, false);
        let mut p = s.program.clone();
        drop_barrier_after_wait(&mut p.body);
        assert_ne!(ptx::write(&p), ptx::write(&s.program), "{name}: the barrier is planted");
        match s.run(&p) {
            Err(e) if two_groups => {
                assert_eq!(e.check, Check::SharedRace, "{name}: {e}");
                assert!(e.to_string().contains("a wgmma of warpgroup"), "{name}: {e}");
            }
            Ok(got) if !two_groups => assert_eq!(got, s.want_bits(), "{name}"),
            other => panic!("{name}: {:?}", other.err().map(|e| e.to_string())),
        }
    }
}

/// Rings one slot deeper (what sm_90a's lowering asks the front end for) refill the slot
/// read two iterations earlier, which every warpgroup has waited for before the
/// iteration's first barrier: the loop keeps one barrier, none after its wait, and two
/// warpgroups run without a race to the interpreter's bits; the same case from rings as
/// deep as its stages keeps the second barrier.
#[test]
fn deeper_rings_need_no_barrier_after_the_loops_wait() {
    fn loop_barriers(body: &[Inst]) -> Option<(usize, bool)> {
        for i in body {
            if let Inst::Loop { body, .. } = i
                && body.iter().any(|x| matches!(x, Inst::WgmmaWait { pending: 1 }))
            {
                let bars = body.iter().filter(|x| matches!(x, Inst::BarSync { .. })).count();
                let after = body
                    .windows(2)
                    .any(|w| matches!(w[0], Inst::WgmmaWait { pending: 1 }) && matches!(w[1], Inst::BarSync { .. }));
                return Some((bars, after));
            }
            for b in i.bodies() {
                if let Some(found) = loop_barriers(b) {
                    return Some(found);
                }
            }
        }
        None
    }
    let deep = setup_with_rings("wgmma_two_groups_specials", true);
    assert_eq!(loop_barriers(&deep.program.body), Some((1, false)), "one barrier, none after the wait");
    assert_eq!(deep.run(&deep.program).unwrap(), deep.want_bits());
    let shallow = setup_with_rings("wgmma_two_groups_specials", false);
    assert_eq!(loop_barriers(&shallow.program.body), Some((2, true)), "the refill's barrier");
    let text = ptx::write(&deep.program);
    let shallow_text = ptx::write(&shallow.program);
    let rem = |t: &str| t.lines().filter(|l| l.contains("rem.s32") && l.contains(", 4;")).count();
    assert!(rem(&text) > 0 && rem(&shallow_text) == 0, "four slots against three");
}

#[test]
fn a_missing_proxy_fence_is_reported_at_the_wgmma() {
    let s = setup("wgmma_panels_70x160x96");
    let p = s.without(|i| matches!(i, Inst::FenceProxyAsync));
    assert_ne!(ptx::write(&p), ptx::write(&s.program), "the fence is planted");
    let e = s.run(&p).expect_err("a wgmma reading unfenced bytes must be reported");
    assert_eq!(e.check, Check::AsyncProxyUnfenced, "{e}");
    assert!(e.to_string().contains("fence.proxy.async"), "{e}");
}

#[test]
fn b_read_with_the_wrong_major_ness_gives_other_bits() {
    let s = setup("wgmma_130x70x100");
    let p = s.mutated(|i| {
        if let Inst::Wgmma { trans_b, .. } = i {
            *trans_b = !*trans_b;
        }
    });
    match s.run(&p) {
        Ok(got) => assert_ne!(got, s.want_bits(), "B read K-major must change the product"),
        // elements of rows other warps copied, read as the product's
        Err(e) => {
            let broken =
                [Check::SharedOutOfBounds, Check::UninitializedShared, Check::SharedRace, Check::AsyncProxyUnfenced];
            assert!(broken.contains(&e.check), "{e}")
        }
    }
}

#[test]
fn a_stride_byte_offset_off_by_one_unit_gives_other_bits() {
    let s = setup("wgmma_panels_70x160x96");
    // The descriptor's high word (the stride byte offset in 16-byte units, and the
    // swizzle mode) is the only `mov` of an immediate with bit 30 set.
    let p = s.mutated(|i| {
        if let Inst::Mov { src: Operand::Int(v), .. } = i
            && *v & (1 << 30) != 0
            && *v < 1 << 32
        {
            *v += 1;
        }
    });
    assert_ne!(ptx::write(&p), ptx::write(&s.program), "the descriptor's high word is planted");
    match s.run(&p) {
        Ok(got) => assert_ne!(got, s.want_bits(), "rows 8 apart read 16 bytes off must change the product"),
        // or the rows read are another slot's, still being copied
        Err(e) => assert!(
            matches!(e.check, Check::SharedOutOfBounds | Check::UninitializedShared | Check::AsyncCopyPending),
            "{e}"
        ),
    }
}
