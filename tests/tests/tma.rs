//! Tensor copies (sm_90's TMA) for staging rings filled through tensor descriptors
//! (`lower/tma.rs`): the matmul port's descriptor form (tutorial 09's
//! `matmul_kernel_descriptor_persistent`) on sm_90a.
//!
//! - Its K loop's `B` ring is filled by `cp.async.bulk.tensor` into `wgmma`'s swizzled
//!   panels, one thread arming each slot's mbarrier with the slot's bytes; every thread
//!   waits on the slot's phase; the tensor map is a 128-byte parameter after the kernel's
//!   own, and the program lists its recipe (parameters, box, swizzle). `A`'s slots, whose
//!   8-row groups are permuted for `wgmma`, keep `cp.async`.
//! - The simulator lands each copy only when a wait needs its phase, swizzled as the map
//!   says, and gives the interpreter's bits; the planted bugs it catches: a wait with the
//!   wrong parity (the slot is read while its copy is in flight), no wait at all, an
//!   `expect_tx` of more bytes than the copies bring (the wait never completes: the GPU
//!   hangs), a box past the shared buffer, and a store into a tile a copy is still
//!   reading (a global race).
//! - Where a descriptor's strides are not known to be multiples of 16 bytes, or on sm_86,
//!   the same kernel keeps `cp.async`.
//! - ptxas assembles the kernel for sm_90a without spills; on the GPU every descriptor
//!   case of the table is within the port's tolerance.

mod ptx_common;

use rtriton::backend::ptx::lir::{Inst, Operand, Program, Reg, TmaOp, Ty};
use rtriton::backend::ptx::tensor_map::Extent;
use rtriton::backend::ptx::{self, Arch, PtxOptions};
use rtriton::interp::Memory;
use rtriton::ir::ScalarType;
use rtriton::session::CompileSession;
use rtriton::sim::{self, Check};
use rtriton::spec::SpecPolicy;
use rtriton_host::ports::matmul::{Kernel, Spec, case, specs};
use rtriton_testing::run::{Outputs, Placed, lower_with, place, read_outputs, run_interpreter, run_simulator};
use rtriton_testing::suite::arg_values;

fn spec(name: &str) -> Spec {
    specs().into_iter().find(|s| s.name == name).expect("the case exists")
}

fn program(kernel: Kernel, spec: &Spec, arch: Arch) -> Program {
    let c = case(kernel, spec);
    let args = arg_values(&c).expect("the case places");
    let options = PtxOptions { num_warps: c.num_warps, ..PtxOptions::for_arch(arch) };
    lower_with(&mut CompileSession::new(), &spec.def(kernel), &c.constexprs, &args, SpecPolicy::Triton, &options)
        .unwrap_or_else(|e| panic!("{}: {e}", spec.name))
}

fn tma_ops(p: &Program) -> Vec<TmaOp> {
    p.walk().into_iter().filter_map(|i| if let Inst::Tma { op, .. } = i { Some(op.clone()) } else { None }).collect()
}

fn bits(o: &Outputs) -> Vec<(&'static str, Vec<u8>)> {
    o.buffers.iter().map(|(n, d)| (*n, d.to_le_bytes())).collect()
}

#[test]
fn descriptor_rings_are_filled_by_tensor_copies_on_sm90a() {
    for (name, kernel) in [
        ("descriptors_tma_150x208x80", Kernel::F16),
        ("descriptors_tma_panels_70x160x96", Kernel::Bf16),
        ("descriptors_tma_two_groups_150x64x48", Kernel::F16),
    ] {
        let s = spec(name);
        let p = program(kernel, &s, Arch::Sm90a);
        // B's ring, with a map whose parameters are the kernel's own (C's store's map
        // follows, `descriptor_stores_are_written_by_tensor_copies_on_sm90a`); A's slots
        // permute their 8-row groups for `wgmma` and keep `cp.async`.
        assert_eq!(p.tensor_maps.len(), 2, "{name}");
        let elem = if kernel == Kernel::F16 { ScalarType::F16 } else { ScalarType::BF16 };
        let m = &p.tensor_maps[0];
        assert_eq!((m.elem, m.base), (elem, 1), "{name}");
        assert_eq!(m.strides[1], Extent::Const(1), "{name}: the last stride is specialized to 1");
        assert!(matches!(m.dims[..], [Extent::Param(_), Extent::Param(_)]), "{name}");
        assert_eq!(m.box_dims[1] * 2, m.swizzle, "{name}: the box's rows are one swizzle span");
        let ops = tma_ops(&p);
        let count = |f: fn(&TmaOp) -> bool| ops.iter().filter(|o| f(o)).count();
        assert!(count(|o| matches!(o, TmaOp::Load { .. })) >= 2, "{name}");
        assert!(count(|o| matches!(o, TmaOp::Wait { .. })) >= 1, "{name}");
        assert!(count(|o| matches!(o, TmaOp::Init { count: 1, .. })) >= 3, "{name}: an mbarrier a slot");
        let text = ptx::write(&p);
        assert!(text.contains("cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"));
        assert!(text.contains("mbarrier.try_wait.parity.shared::cta.b64"));
        assert!(text.contains(&format!(".param .align 64 .b8 {}_tensor_map_0[128]", p.entry)), "{text}");
        assert!(text.contains("cp.async.cg"), "{name}: A's copies");
    }
}

/// C's tile (`c_desc.store`) is written by tensor copies: every thread writes its
/// accumulator elements into the scratch as the map's swizzled boxes (no conversion to the
/// blocked layout first), fences them, and thread 0 copies each box, commits and waits for
/// the reads; no thread stores to global memory. For `f16`, `bf16` and `f32` (the tf32
/// kernel's) tiles, in one box or in 128-byte panels.
#[test]
fn descriptor_stores_are_written_by_tensor_copies_on_sm90a() {
    for (name, kernel, rows, cols) in [
        ("descriptors_tma_150x208x80", Kernel::F16, 64, 64),
        ("descriptors_tma_panels_70x160x96", Kernel::Bf16, 64, 128),
        ("descriptors_tma_two_groups_150x64x48", Kernel::F16, 128, 64),
        ("descriptors_tma_150x208x80", Kernel::Tf32, 64, 64),
    ] {
        let s = spec(name);
        let p = program(kernel, &s, Arch::Sm90a);
        let m = p.tensor_maps.last().expect("a map");
        let elem = match kernel {
            Kernel::F16 => ScalarType::F16,
            Kernel::Bf16 => ScalarType::BF16,
            Kernel::Tf32 => ScalarType::F32,
        };
        let eb = elem.size_bytes() as u32;
        let row_bytes = cols * eb;
        let panel = row_bytes.min(128);
        assert_eq!((m.elem, m.base), (elem, 2), "{name}: c_ptr's map");
        assert_eq!((m.box_dims.clone(), m.swizzle), (vec![rows, panel / eb], panel), "{name}");
        let ops = tma_ops(&p);
        let stores = ops.iter().filter(|o| matches!(o, TmaOp::Store { .. })).count() as u32;
        assert_eq!(stores, row_bytes / panel, "{name}: a copy a panel");
        assert!(ops.contains(&TmaOp::StoreCommit) && ops.contains(&TmaOp::StoreWaitRead { pending: 0 }), "{name}");
        let text = ptx::write(&p);
        assert!(text.contains("cp.async.bulk.tensor.2d.global.shared::cta.bulk_group ["), "{name}");
        assert!(text.contains("cp.async.bulk.wait_group.read 0;"), "{name}");
        assert!(!text.contains("st.global"), "{name}: no thread stores C itself");
        assert!(p.decisions.conversions.iter().all(|c| !c.reason.contains("`store`")), "{name}: no conversion");
        // `explain` prints the store as a tensor copy, not as a vector width.
        let store = p.decisions.accesses.iter().find(|a| a.kind == ptx::AccessKind::Store).expect("C's store");
        assert_eq!(store.vector_width, 0, "{name}");
        assert!(store.reason.contains("written by tensor copies (TMA) from shared memory"), "{}", store.reason);
    }
    // Without a descriptor the same product's store stays a masked vector store.
    let p = program(Kernel::F16, &spec("persistent_wgmma_150x200x70"), Arch::Sm90a);
    assert!(p.tensor_maps.is_empty() && tma_ops(&p).is_empty());
}

/// `rtriton explain --ir layouts` says which copies are tensor copies, with the box.
#[test]
fn the_layouts_text_names_the_tensor_copies() {
    let s = spec("descriptors_tma_panels_70x160x96");
    let c = case(Kernel::F16, &s);
    let args = arg_values(&c).expect("places");
    let def = s.def(Kernel::F16);
    let key = CompileSession::specialize(&def, &args, SpecPolicy::Triton).expect("specializes");
    let trace = rtriton::trace::TraceOptions { deeper_rings: true, ..Default::default() };
    let verified = CompileSession::new().front_end(&def, &c.constexprs, &key, &trace).expect("traces");
    let options = PtxOptions { num_warps: c.num_warps, ..PtxOptions::for_arch(Arch::Sm90a) };
    let text = ptx::layouts_text(&verified, &options).unwrap_or_else(|e| panic!("{e}"));
    let lines: Vec<&str> = text.lines().filter(|l| l.contains("fills ring 1 by tensor copies (TMA)")).collect();
    // B's copies (the prologue's and the loop's), 32 rows of 64 columns a panel.
    assert!(!lines.is_empty(), "{text}");
    assert!(lines.iter().all(|l| l.contains("a 32 x 64 box a panel, 128-byte swizzle")), "{lines:?}");
    // C's store: two panels of the 64 x 128 tile, the value in the accumulator's layout.
    let stores: Vec<&str> = text.lines().filter(|l| l.contains("is written by tensor copies (TMA)")).collect();
    assert_eq!(stores.len(), 1, "{text}");
    assert!(stores[0].contains("2 boxes of 64 x 64 (128-byte swizzle), tensor map 1"), "{stores:?}");
    let store = text.lines().find(|l| l.trim_start().starts_with("store %")).expect("the store");
    let value = store.split(", ").nth(1).expect("the stored value");
    let def = text.lines().find(|l| l.trim_start().starts_with(&format!("{value} = "))).expect("its definition");
    // Nothing converts but the operands, which `wgmma` reads through descriptors.
    let converted: Vec<&str> = text.lines().filter(|l| l.contains(" = convert_layout ")).collect();
    assert!(def.contains("#mma") && !converted.is_empty(), "{def}\n{text}");
    assert!(
        converted
            .iter()
            .all(|l| l.contains("-> #dot_op<") && l.contains("read by wgmma through a shared-memory descriptor")),
        "{converted:#?}"
    );
}

#[test]
fn the_descriptor_form_keeps_cp_async_on_sm86_and_where_strides_are_unaligned() {
    let p = program(Kernel::F16, &spec("descriptors_tma_150x208x80"), Arch::Sm86);
    assert!(p.tensor_maps.is_empty() && tma_ops(&p).is_empty());
    // Rows 70 and 200 elements apart: not provably multiples of 16 bytes (specialization
    // marks multiples of 16 elements), so both rings keep `cp.async`.
    let s = spec("descriptors_unaligned_150x200x70");
    let c = case(Kernel::F16, &s);
    let args = arg_values(&c).expect("places");
    let key = CompileSession::specialize(&s.def(Kernel::F16), &args, SpecPolicy::Triton).expect("specializes");
    assert!(key.to_string().contains("stride_am:i32:-, "), "{key}");
    let p = program(Kernel::F16, &s, Arch::Sm90a);
    assert!(p.tensor_maps.is_empty() && tma_ops(&p).is_empty());
}

/// A lowered descriptor matmul with its memory and arguments, for planting bugs.
struct Setup {
    program: Program,
    mem: Memory,
    placed: Placed,
    case: rtriton_testing::Case,
    want: Vec<(&'static str, Vec<u8>)>,
}

fn setup(name: &str) -> Setup {
    let s = spec(name);
    let c = case(Kernel::F16, &s);
    let mut mem = Memory::new();
    let placed = place(&mut mem, &c).expect("the case places");
    let want = bits(&run_interpreter(&s.def(Kernel::F16), &c, SpecPolicy::Triton).expect("the interpreter runs it"));
    Setup { program: program(Kernel::F16, &s, Arch::Sm90a), mem, placed, case: c, want }
}

impl Setup {
    fn run(&self, p: &Program) -> Result<Vec<(&'static str, Vec<u8>)>, sim::SimError> {
        let mut mem = self.mem.clone();
        sim::run(p, self.case.grid, &self.placed.args, &mut mem)?;
        Ok(bits(&read_outputs(&mem, &self.case, &self.placed).expect("reads the outputs")))
    }
}

fn edit(body: &mut Vec<Inst>, f: &mut impl FnMut(&mut Vec<Inst>)) {
    f(body);
    for i in body.iter_mut() {
        for b in i.bodies_mut() {
            edit(b, f);
        }
    }
}

#[test]
fn the_simulator_lands_the_copies_and_gives_the_interpreters_bits() {
    for name in
        ["descriptors_tma_150x208x80", "descriptors_tma_panels_70x160x96", "descriptors_tma_two_groups_150x64x48"]
    {
        let s = setup(name);
        assert_eq!(s.run(&s.program).unwrap_or_else(|e| panic!("{name}: {e}")), s.want, "{name}");
        let c = case(Kernel::F16, &spec(name));
        let got = run_simulator(&spec(name).def(Kernel::F16), &c, SpecPolicy::Triton).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(bits(&got), s.want, "{name}: through the test harness");
    }
}

#[test]
fn a_wait_with_the_wrong_parity_reads_a_slot_still_being_copied() {
    let s = setup("descriptors_tma_150x208x80");
    let mut p = s.program.clone();
    let mut regs = p.regs.clone();
    edit(&mut p.body, &mut |body: &mut Vec<Inst>| {
        let mut out = Vec::with_capacity(body.len());
        for i in body.drain(..) {
            if let Inst::Tma { guard, op: TmaOp::Wait { bar, parity } } = i {
                regs.push(Ty::I32);
                let flipped = Reg(regs.len() as u32 - 1);
                out.push(Inst::Bin {
                    op: rtriton::backend::ptx::lir::BinOp::Xor,
                    ty: Ty::I32,
                    dst: flipped,
                    a: parity.into(),
                    b: Operand::Int(1),
                });
                out.push(Inst::Tma { guard, op: TmaOp::Wait { bar, parity: flipped } });
            } else {
                out.push(i);
            }
        }
        *body = out;
    });
    p.regs = regs;
    let e = s.run(&p).expect_err("the wrong phase is caught");
    assert_eq!(e.check, Check::AsyncCopyPending, "{e}");
    assert!(e.message.contains("tensor copy (TMA)"), "{e}");
}

#[test]
fn a_missing_wait_reads_a_slot_still_being_copied() {
    let s = setup("descriptors_tma_150x208x80");
    let mut p = s.program.clone();
    edit(&mut p.body, &mut |body: &mut Vec<Inst>| {
        body.retain(|i| !matches!(i, Inst::Tma { op: TmaOp::Wait { .. }, .. }));
    });
    let e = s.run(&p).expect_err("the missing wait is caught");
    assert_eq!(e.check, Check::AsyncCopyPending, "{e}");
}

#[test]
fn an_expect_tx_past_the_copies_bytes_never_completes() {
    let s = setup("descriptors_tma_150x208x80");
    let mut p = s.program.clone();
    edit(&mut p.body, &mut |body: &mut Vec<Inst>| {
        for i in body.iter_mut() {
            if let Inst::Tma { op: TmaOp::ArriveExpectTx { bytes, .. }, .. } = i {
                *bytes += 16;
            }
        }
    });
    let e = s.run(&p).expect_err("the short phase is caught");
    assert_eq!(e.check, Check::MbarrierNeverCompletes, "{e}");
    assert!(e.message.contains("never completes"), "{e}");
}

#[test]
fn a_box_past_the_shared_buffer_is_reported() {
    let s = setup("descriptors_tma_150x208x80");
    let mut p = s.program.clone();
    p.tensor_maps[0].box_dims[0] *= 64;
    let e = s.run(&p).expect_err("the box past the buffer is caught");
    assert_eq!(e.check, Check::TensorCopyBox, "{e}");
    assert!(e.message.contains("past the buffer's end"), "{e}");
}

#[test]
fn a_store_into_a_tile_a_copy_is_still_reading_is_a_global_race() {
    let s = setup("descriptors_tma_150x208x80");
    let rtriton::spec::ArgValue::Ptr(b) = s.placed.args[1] else { panic!("b_ptr is a pointer") };
    let mut p = s.program.clone();
    let (addr, value) = (Reg(p.regs.len() as u32), Reg(p.regs.len() as u32 + 1));
    p.regs.extend([Ty::I64, Ty::F16]);
    let mut planted = false;
    edit(&mut p.body, &mut |body: &mut Vec<Inst>| {
        if planted {
            return;
        }
        // After the first tensor copy (the first tile's B, element [0, 0] among its
        // bytes), its issuing thread overwrites that element before any wait.
        let Some(at) = body.iter().position(|i| matches!(i, Inst::Tma { op: TmaOp::Load { .. }, .. })) else {
            return;
        };
        let Inst::Tma { guard, .. } = body[at] else { unreachable!() };
        body.insert(at + 1, Inst::Mov { ty: Ty::I64, dst: addr, src: Operand::Int(b as i64) });
        body.insert(at + 2, Inst::Mov { ty: Ty::F16, dst: value, src: Operand::Int(0x3c00) });
        body.insert(at + 3, Inst::StGlobal { guard, ty: Ty::F16, srcs: vec![value], addr, offset: 0 });
        planted = true;
    });
    assert!(planted);
    let e = s.run(&p).expect_err("the write under the copy is caught");
    assert_eq!(e.check, Check::GlobalRace, "{e}");
    assert!(e.message.contains("between the tensor copy that reads them and the wait"), "{e}");
}

/// Removes, in the body holding the first tensor store, the last instruction before it
/// that `which` picks (the writers' fence, the barrier), or every `StoreWaitRead`.
fn without_before_store(p: &mut Program, which: fn(&Inst) -> bool) -> bool {
    let mut done = false;
    edit(&mut p.body, &mut |body: &mut Vec<Inst>| {
        if done {
            return;
        }
        let Some(at) = body.iter().position(|i| matches!(i, Inst::Tma { op: TmaOp::Store { .. }, .. })) else { return };
        if let Some(j) = body[..at].iter().rposition(which) {
            body.remove(j);
            done = true;
        }
    });
    done
}

#[test]
fn a_tensor_store_of_unfenced_bytes_is_reported() {
    let s = setup("descriptors_tma_150x208x80");
    let mut p = s.program.clone();
    assert!(without_before_store(&mut p, |i| matches!(i, Inst::FenceProxyAsync)));
    let e = s.run(&p).expect_err("the missing fence is caught");
    assert_eq!(e.check, Check::AsyncProxyUnfenced, "{e}");
    assert!(e.message.contains("tensor store reads shared byte"), "{e}");
}

#[test]
fn a_tensor_store_issued_before_the_barrier_races_with_the_writers() {
    let s = setup("descriptors_tma_150x208x80");
    let mut p = s.program.clone();
    assert!(without_before_store(&mut p, |i| matches!(i, Inst::BarSync { .. })));
    let e = s.run(&p).expect_err("the missing barrier is caught");
    assert_eq!(e.check, Check::SharedRace, "{e}");
}

/// Without the wait for the stores' reads, the next tile's writes into the scratch (or
/// the program's end) come while a store may still read it.
#[test]
fn a_missing_wait_for_the_tensor_stores_reads_is_reported() {
    let s = setup("descriptors_tma_150x208x80");
    let mut p = s.program.clone();
    edit(&mut p.body, &mut |body: &mut Vec<Inst>| {
        body.retain(|i| !matches!(i, Inst::Tma { op: TmaOp::StoreWaitRead { .. }, .. }));
    });
    let e = s.run(&p).expect_err("the missing wait is caught");
    assert_eq!(e.check, Check::TensorStorePending, "{e}");
    // With the wait but the store never committed, the wait covers nothing.
    let mut p = s.program.clone();
    edit(&mut p.body, &mut |body: &mut Vec<Inst>| {
        body.retain(|i| !matches!(i, Inst::Tma { op: TmaOp::StoreCommit, .. }));
    });
    let e = s.run(&p).expect_err("the missing commit is caught");
    assert_eq!(e.check, Check::TensorStorePending, "{e}");
}

#[test]
#[ignore = "needs ptxas"]
fn the_descriptor_form_assembles_for_sm90a_without_spills() {
    let ptxas = ptx_common::ptxas("the_descriptor_form_assembles_for_sm90a_without_spills");
    for (name, kernel) in
        [("descriptors_tma_150x208x80", Kernel::F16), ("descriptors_tma_2000x1504x1008", Kernel::Bf16)]
    {
        let text = ptx::write(&program(kernel, &spec(name), Arch::Sm90a));
        ptx_common::assembles_without_spills(&ptxas, &text, Arch::Sm90a, name).unwrap_or_else(|e| panic!("{e}"));
    }
}

/// On the GPU (sm_90a, compute capability 9.0): every descriptor case of the table, the
/// large ones too, within the port's tolerance of the f64 reference, through the
/// runtime's launches (the tensor maps encoded from each launch's arguments).
#[test]
#[ignore = "needs a GPU"]
fn the_descriptor_form_runs_on_the_gpu() {
    let cases: Vec<Spec> = specs().into_iter().filter(|s| s.descriptors).collect();
    assert!(cases.iter().filter(|s| s.arch == Arch::Sm90a && s.gpu_only).count() >= 2);
    for kernel in [Kernel::F16, Kernel::Bf16] {
        for s in &cases {
            rtriton_host::ports::matmul::suite(kernel, s).check_all(rtriton_testing::Backend::Gpu);
        }
    }
}
