//! Planted bugs: every simulator check must fire on a program with a deliberate bug, and
//! name the kernel, the op's source line, the program, the thread and the address.
//!
//! Each test first runs the correct lowered program (it must pass every check and match
//! the CPU reference), then a copy mutated here, in the test only: a removed barrier, a store
//! without its owner guard, a misaligned vector load, a shuffle with a narrowed member
//! mask, a barrier inside a loop only some threads run... Hand-built programs cover what
//! the lowering cannot produce (divergent shuffles).

use rtriton::backend::ptx::lir::{BinOp, Cmp, Group, Inst, Operand, Param, ParamTy, Program, Reg, Special, Ty};
use rtriton::interp::Memory;
use rtriton::ir::SourceLoc;
use rtriton::kernel;
use rtriton::prelude::*;
use rtriton::sim::{self, Address, Check, SimError};
use rtriton::spec::{ArgValue, SpecPolicy};
use rtriton_kernels::RowMaxVariant;
use rtriton_kernels::cases::{Fill, RowMaxCase, ViewKind};
use rtriton_tests::{Launch, compare_bits, lower, prepare, reference};

kernel! {
    /// Two reductions of one block: both go through the same shared buffer, so the second
    /// reduction's writes must wait for the first one's reads (the trailing `bar.sync`).
    fn max_plus_min(x_ptr: Ptr<f32>, y_ptr: Ptr<f32>, n_rows: i32, n_cols: i32, stride_row: i32, stride_col: i32;
                    const BLOCK: usize) {
        let row = program_id(0).to::<i64>();
        let cols = arange(0, BLOCK);
        let x = load(x_ptr + row * stride_row + cols.to::<i64>() * stride_col, Some(cols.lt(n_cols)), Some(0.0));
        store(y_ptr + row, max(x, 0) + min(x, 0), None);
    }
}

fn case(n_rows: usize, n_cols: usize) -> RowMaxCase {
    RowMaxCase { name: "planted", n_rows, n_cols, view: ViewKind::Contiguous, fill: Fill::Random(42) }
}

/// A lowered program, its launch and the memory it runs on.
struct Setup {
    program: Program,
    launch: Launch,
    mem: Memory,
    case: RowMaxCase,
}

fn setup(def: &rtriton::trace::KernelDef, case: RowMaxCase, num_warps: u32) -> Setup {
    let mut mem = Memory::new();
    let launch = prepare(&mut mem, RowMaxVariant::RowMax, &case);
    let program = lower(def, &launch, SpecPolicy::Triton, num_warps).unwrap();
    Setup { program, launch, mem, case }
}

impl Setup {
    fn run(&self, program: &Program) -> Result<sim::SimReport, SimError> {
        let mut mem = self.mem.clone();
        sim::run(program, self.launch.grid, &self.launch.args, &mut mem)
    }

    /// The unmutated program passes every check and computes the row maxima.
    fn control(&self) {
        let mut mem = self.mem.clone();
        sim::run(&self.program, self.launch.grid, &self.launch.args, &mut mem).unwrap();
        let got = mem.read_f32(self.launch.y, self.case.n_rows).unwrap();
        compare_bits(&got, &reference(&self.case, false)).unwrap();
    }

    /// Runs a mutated copy and returns its error.
    fn fails(&self, mutate: impl FnOnce(&mut Program)) -> SimError {
        let mut p = self.program.clone();
        mutate(&mut p);
        self.run(&p).expect_err("the planted bug must be reported")
    }
}

/// The first instruction (in program order, loop bodies included) matching `pred`.
fn find_mut<'a>(insts: &'a mut [Inst], pred: &impl Fn(&Inst) -> bool) -> Option<&'a mut Inst> {
    for i in insts {
        if pred(i) {
            return Some(i);
        }
        if let Inst::Loop { body, .. } = i
            && let Some(found) = find_mut(body, pred)
        {
            return Some(found);
        }
    }
    None
}

/// Removes the `nth` instruction matching `pred` (counting in program order).
fn remove_nth(insts: &mut Vec<Inst>, pred: &impl Fn(&Inst) -> bool, nth: &mut usize) -> bool {
    let mut i = 0;
    while i < insts.len() {
        if pred(&insts[i]) {
            if *nth == 0 {
                insts.remove(i);
                return true;
            }
            *nth -= 1;
        }
        if let Inst::Loop { body, .. } = &mut insts[i]
            && remove_nth(body, pred, nth)
        {
            return true;
        }
        i += 1;
    }
    false
}

fn is_bar(i: &Inst) -> bool {
    matches!(i, Inst::BarSync { .. })
}

fn new_reg(p: &mut Program, ty: Ty) -> Reg {
    p.regs.push(ty);
    Reg(p.regs.len() as u32 - 1)
}

fn tid_reg(p: &Program) -> Reg {
    p.walk()
        .into_iter()
        .find_map(|i| match i {
            Inst::ReadSpecial { dst, sreg: Special::TidX } => Some(*dst),
            _ => None,
        })
        .expect("the program reads %tid.x")
}

/// The source line of `row_max`'s store of the row's maximum.
fn row_max_store_line() -> String {
    let src = include_str!("../../kernels-gpu/src/row_max.rs");
    let line =
        src.lines().position(|l| l.contains("store(y_ptr + row, maximum(max(x, 0), NEG_INF), None)")).unwrap() + 1;
    format!("kernels-gpu/src/row_max.rs:{line}")
}

#[test]
fn a_removed_barrier_is_a_shared_memory_race() {
    // 1024 columns on 4 warps: the maximum combines the warps' partials in shared memory.
    let s = setup(&rtriton_kernels::row_max(), case(3, 1024), 4);
    assert!(s.program.decisions.reductions[0].uses_shared_memory);
    s.control();
    let e = s.fails(|p| assert!(remove_nth(&mut p.body, &is_bar, &mut 0)));
    assert_eq!(e.check, Check::SharedRace, "{e}");
    assert_eq!(e.program, Some([0, 0, 0]));
    assert_eq!(e.loc.map(|l| l.short()).as_deref(), Some(row_max_store_line().as_str()));
    // Every thread reads warp 0's partial (slot 0), which thread 0 wrote: in lock step
    // thread 1 is the first reader that is not the writer.
    assert_eq!((e.thread, e.address), (Some(1), Some(Address::Shared(0))));
    assert!(e.message.contains("thread 1 reads shared byte 0 that thread 0 wrote"), "{e}");
}

#[test]
fn a_removed_trailing_barrier_races_when_the_buffer_is_reused() {
    let s = setup(&max_plus_min(), case(2, 512), 4);
    let mut control = s.mem.clone();
    sim::run(&s.program, s.launch.grid, &s.launch.args, &mut control).unwrap();
    // The second barrier ends the first reduction: without it the second reduction's
    // partials overwrite slots other threads are still reading.
    let e = s.fails(|p| assert!(remove_nth(&mut p.body, &is_bar, &mut 1)));
    assert_eq!(e.check, Check::SharedRace, "{e}");
    assert!(e.message.contains("writes shared byte") && e.message.contains("read"), "{e}");
}

#[test]
fn a_store_without_its_owner_guard_stores_one_element_from_many_threads() {
    let s = setup(&rtriton_kernels::row_max(), case(3, 100), 4);
    s.control();
    let e = s.fails(|p| {
        let Some(Inst::StGlobal { guard, .. }) = find_mut(&mut p.body, &|i| matches!(i, Inst::StGlobal { .. })) else {
            panic!("row_max stores")
        };
        assert!(guard.is_some(), "the scalar store is guarded so only its owner writes");
        *guard = None;
    });
    assert_eq!(e.check, Check::GlobalStoreConflict, "{e}");
    assert_eq!((e.program, e.thread, e.address), (Some([0, 0, 0]), Some(1), Some(Address::Global(s.launch.y))));
    assert!(e.message.contains("thread 1 and thread 0 of the same program"), "{e}");
}

#[test]
fn stores_of_two_programs_to_one_element_conflict() {
    let s = setup(&rtriton_kernels::row_max(), case(3, 100), 1);
    s.control();
    // Store every row's result to y[0]: address the store with y_ptr itself.
    let e = s.fails(|p| {
        let ptrs: Vec<Reg> = p
            .walk()
            .into_iter()
            .filter_map(|i| match i {
                Inst::CvtaGlobal { dst, .. } => Some(*dst),
                _ => None,
            })
            .collect();
        assert_eq!(ptrs.len(), 2, "x_ptr and y_ptr");
        let Some(Inst::StGlobal { addr, .. }) = find_mut(&mut p.body, &|i| matches!(i, Inst::StGlobal { .. })) else {
            panic!("row_max stores")
        };
        *addr = ptrs[1];
    });
    assert_eq!(e.check, Check::GlobalStoreConflict, "{e}");
    assert_eq!((e.program, e.thread, e.address), (Some([1, 0, 0]), Some(0), Some(Address::Global(s.launch.y))));
    assert!(e.message.contains("thread 0 and thread 0 of program (0, 0, 0)"), "{e}");
}

#[test]
fn a_vector_load_from_a_misaligned_base_is_reported() {
    // Specialized for a 16-byte-aligned x (v4 loads), launched on x + 1 element.
    let s = setup(&rtriton_kernels::row_max(), case(2, 256), 1);
    assert_eq!(s.program.decisions.accesses[0].vector_width, 4, "{:?}", s.program.decisions.accesses);
    s.control();
    let mut args = s.launch.args.clone();
    let ArgValue::Ptr(x) = args[0] else { panic!("x_ptr") };
    args[0] = ArgValue::Ptr(x + 4);
    let mut mem = s.mem.clone();
    let e = sim::run(&s.program, s.launch.grid, &args, &mut mem).unwrap_err();
    assert_eq!(e.check, Check::Misaligned, "{e}");
    assert_eq!((e.program, e.thread, e.address), (Some([0, 0, 0]), Some(0), Some(Address::Global(x + 4))));
    assert!(e.message.contains("misaligned global .v4 load"), "{e}");
    assert!(e.message.contains("is not aligned to 16 bytes"), "{e}");
    let inst = e.inst.as_deref().unwrap();
    assert!(inst.contains("ld.global.v4.f32 {%f") && inst.ends_with("];"), "{inst}");
}

#[test]
fn an_unmasked_load_past_the_end_is_out_of_bounds() {
    // 100 columns in a block of 128: without its mask the last row reads past the end.
    let s = setup(&rtriton_kernels::row_max(), case(2, 100), 4);
    s.control();
    let e = s.fails(|p| {
        let Some(Inst::LdGlobal { guard, .. }) = find_mut(&mut p.body, &|i| matches!(i, Inst::LdGlobal { .. })) else {
            panic!("row_max loads")
        };
        *guard = None;
    });
    assert_eq!(e.check, Check::OutOfBounds, "{e}");
    assert_eq!(e.program, Some([1, 0, 0]));
    // One column per thread: thread 100 reads column 100 of row 1, element 200.
    assert_eq!(e.thread, Some(100));
    let x = s.launch.args[0];
    let ArgValue::Ptr(x) = x else { panic!("x_ptr") };
    assert_eq!(e.address, Some(Address::Global(x + 200 * 4)));
    assert!(e.message.contains("out-of-bounds global load"), "{e}");
}

#[test]
fn a_shuffle_member_mask_that_leaves_out_executing_lanes_is_reported() {
    let s = setup(&rtriton_kernels::row_max(), case(2, 256), 1);
    s.control();
    let e = s.fails(|p| {
        let Some(Inst::Shfl { member_mask, .. }) = find_mut(&mut p.body, &|i| matches!(i, Inst::Shfl { .. })) else {
            panic!("row_max shuffles")
        };
        *member_mask = 0x0000_ffff;
    });
    assert_eq!(e.check, Check::ShuffleMembership, "{e}");
    assert_eq!((e.program, e.thread), (Some([0, 0, 0]), Some(16)));
    assert!(e.message.contains("lane 16 executes shfl.sync but is not in its member mask 0x0000ffff"), "{e}");
    let inst = e.inst.as_deref().unwrap();
    assert!(inst.starts_with("shfl.sync.bfly.b32 %f") && inst.ends_with(", 16, 31, 0x0000ffff;"), "{inst}");
}

#[test]
fn a_barrier_only_some_threads_reach_is_reported_with_the_whole_diagnostic() {
    let s = setup(&rtriton_kernels::row_max(), case(2, 1024), 4);
    s.control();
    // Put the first bar.sync in a loop that only warp 0 runs (upper = tid < 32 ? 1 : 0).
    let e = s.fails(|p| {
        let tid = tid_reg(p);
        let (pred, upper, iv) = (new_reg(p, Ty::Pred), new_reg(p, Ty::I32), new_reg(p, Ty::I32));
        let at = p.body.iter().position(is_bar).expect("a top-level bar.sync");
        p.body[at] = Inst::Loop {
            ty: Ty::I32,
            iv,
            lower: Operand::Int(0),
            upper: upper.into(),
            step: Operand::Int(1),
            body: vec![Inst::BarSync { id: 0 }],
        };
        p.body.insert(at, Inst::Selp { ty: Ty::I32, dst: upper, a: Operand::Int(1), b: Operand::Int(0), cond: pred });
        p.body.insert(at, Inst::Setp { cmp: Cmp::Lt, ty: Ty::I32, dst: pred, a: tid.into(), b: Operand::Int(32) });
    });
    assert_eq!(e.check, Check::BarrierDivergence);
    let op = e.op.clone().unwrap();
    assert!(op.starts_with("%") && op.contains("reduce max axis 0"), "{op}");
    assert_eq!(
        e.to_string(),
        format!(
            "error[RT0507]: kernel `row_max` at {}: bar.sync 0 is reached by 32 of the CTA's 128 threads; thread 32 does not reach it (it left a loop whose trip count differs between threads, or skipped a branch the others took)\n  at: program (0, 0, 0), thread 32 (warp 1, lane 0)\n  op: {op}\n  inst: bar.sync 0;\n  help: every thread of the CTA must execute every bar.sync: keep barriers out of divergent code (loop bounds and branch conditions must be uniform)",
            row_max_store_line()
        )
    );
}

#[test]
fn a_load_whose_other_value_was_dropped_reads_an_unwritten_register() {
    // Masked-off lanes keep the destination's old value: the lowering moves `other` into
    // it first. Without that move the maximum reads a register never written.
    let s = setup(&rtriton_kernels::row_max(), case(2, 100), 4);
    s.control();
    let e = s.fails(|p| {
        let Some(Inst::LdGlobal { dsts, .. }) = find_mut(&mut p.body, &|i| matches!(i, Inst::LdGlobal { .. })) else {
            panic!("row_max loads")
        };
        let first = dsts[0];
        let mut n = 0;
        assert!(remove_nth(&mut p.body, &|i| matches!(i, Inst::Mov { dst, .. } if *dst == first), &mut n));
    });
    assert_eq!(e.check, Check::UninitializedRegister, "{e}");
    // One column per thread (128 on 128 threads): threads 100.. are masked off.
    assert_eq!((e.program, e.thread), (Some([0, 0, 0]), Some(100)));
    assert!(e.message.starts_with("register %f") && e.message.contains("is read before this thread wrote it"), "{e}");
}

#[test]
fn a_shared_buffer_too_small_for_its_slots_is_reported() {
    let s = setup(&rtriton_kernels::row_max(), case(2, 1024), 4);
    s.control();
    assert_eq!(s.program.shared_bytes, 16);
    let e = s.fails(|p| p.shared_bytes = 8);
    assert_eq!(e.check, Check::SharedOutOfBounds, "{e}");
    assert_eq!((e.thread, e.address), (Some(64), Some(Address::Shared(8))));
}

#[test]
fn arguments_that_do_not_fit_the_parameters_are_a_launch_error() {
    let s = setup(&rtriton_kernels::row_max(), case(2, 100), 4);
    let mut mem = s.mem.clone();
    let e = sim::run(&s.program, s.launch.grid, &s.launch.args[..5], &mut mem).unwrap_err();
    assert_eq!(e.check, Check::Launch);
    assert!(e.to_string().contains("5 runtime arguments given, the kernel takes 6"), "{e}");
}

// ---- hand-built programs: what the lowering cannot emit ---------------------------------

/// A one-warp program with a `y` pointer parameter, built instruction by instruction.
struct Builder {
    regs: Vec<Ty>,
    body: Vec<Inst>,
}

impl Builder {
    fn new() -> Builder {
        Builder { regs: Vec::new(), body: Vec::new() }
    }

    fn reg(&mut self, ty: Ty) -> Reg {
        self.regs.push(ty);
        Reg(self.regs.len() as u32 - 1)
    }

    fn program(self, num_warps: u32) -> Program {
        Program {
            entry: "hand_built".into(),
            params: vec![Param { name: "y".into(), kind: ParamTy::Ptr }],
            target: "sm_86".into(),
            ptx_version: (7, 8),
            threads_per_cta: num_warps * 32,
            min_ctas_per_sm: 0,
            shared_bytes: 0,
            shared_align: 16,
            shared_site: None,
            regs: self.regs,
            body: self.body,
            layouts: Vec::new(),
            header: Vec::new(),
            decisions: Default::default(),
            tensor_maps: Vec::new(),
        }
    }

    /// A loop that only lanes `< active_lanes` run, around `body`.
    fn divergent(&mut self, active_lanes: i64, body: Vec<Inst>) {
        let tid = self.reg(Ty::I32);
        let lane = self.reg(Ty::I32);
        let p = self.reg(Ty::Pred);
        let upper = self.reg(Ty::I32);
        let iv = self.reg(Ty::I32);
        self.body.extend([
            Inst::Group(Group::at(
                "lanes below the cut run the loop",
                SourceLoc { file: "tests/tests/sim_planted_bugs.rs", line: 1, column: 1 },
            )),
            Inst::ReadSpecial { dst: tid, sreg: Special::TidX },
            Inst::Bin { op: BinOp::And, ty: Ty::I32, dst: lane, a: tid.into(), b: Operand::Int(31) },
            Inst::Setp { cmp: Cmp::Lt, ty: Ty::I32, dst: p, a: lane.into(), b: Operand::Int(active_lanes) },
            Inst::Selp { ty: Ty::I32, dst: upper, a: Operand::Int(1), b: Operand::Int(0), cond: p },
            Inst::Loop { ty: Ty::I32, iv, lower: Operand::Int(0), upper: upper.into(), step: Operand::Int(1), body },
        ]);
    }
}

/// `dst = shfl.sync.bfly(src, lane_mask, clamp, member_mask)` run by the lanes below
/// `active_lanes` only.
fn divergent_shuffle(
    active_lanes: i64,
    lane_mask: u32,
    clamp: u32,
    member_mask: u32,
) -> Result<(Vec<f32>, sim::SimReport), SimError> {
    let mut b = Builder::new();
    let (y, yg, d, lane_f, off, addr) =
        (b.reg(Ty::I64), b.reg(Ty::I64), b.reg(Ty::F32), b.reg(Ty::F32), b.reg(Ty::I64), b.reg(Ty::I64));
    let t = b.reg(Ty::I32);
    b.body.extend([
        Inst::LdParam { dst: y, param: 0 },
        Inst::CvtaGlobal { dst: yg, src: y },
        Inst::ReadSpecial { dst: t, sreg: Special::TidX },
        Inst::Cvt { dst: lane_f, to: Ty::F32, src: t, from: Ty::I32 },
        Inst::Mov { ty: Ty::F32, dst: d, src: Operand::F32(-1.0) },
        Inst::MulWide { dst: off, a: t.into(), b: Operand::Int(4) },
        Inst::Bin { op: BinOp::Add, ty: Ty::I64, dst: addr, a: yg.into(), b: off.into() },
    ]);
    let shfl = Inst::Shfl { ty: Ty::F32, dst: d, src: lane_f, lane_mask, clamp, member_mask };
    b.divergent(active_lanes, vec![shfl]);
    b.body.push(Inst::StGlobal { guard: None, ty: Ty::F32, srcs: vec![d], addr, offset: 0 });
    let p = b.program(1);
    let mut mem = Memory::new();
    let yp = mem.alloc(32 * 4);
    let report = sim::run(&p, [1, 1, 1], &[ArgValue::Ptr(yp)], &mut mem)?;
    Ok((mem.read_f32(yp, 32).unwrap(), report))
}

/// A shuffle of an f16 register (ptxas refuses `shfl.sync.b32` on a `.b16` register, so the
/// driver would not load the program): the simulator refuses to run it, naming the
/// instruction. The f16 reduction lowering once emitted exactly this.
#[test]
fn a_shuffle_of_a_16_bit_register_is_refused() {
    let s = setup(&rtriton_kernels::row_max(), case(2, 256), 1);
    s.control();
    let e = s.fails(|p| {
        let Some(Inst::Shfl { ty, .. }) = find_mut(&mut p.body, &|i| matches!(i, Inst::Shfl { .. })) else {
            panic!("row_max shuffles")
        };
        *ty = Ty::F16;
    });
    assert!(e.to_string().contains("shfl.sync.b32 of a F16 register (shuffle 32-bit words)"), "{e}");
}

#[test]
fn shuffles_follow_ptx_lanes_and_clamps() {
    // All lanes, butterfly 16: lane l reads lane l ^ 16.
    let (got, report) = divergent_shuffle(32, 16, 0x1f, 0xffff_ffff).unwrap();
    assert_eq!(got, (0..32).map(|l| (l ^ 16) as f32).collect::<Vec<_>>());
    assert_eq!((report.shuffles, report.divergent_loops), (1, 0));
    // Clamp 0xf (no segment mask): maxLane is 15 for every lane, so lanes 0..15, whose
    // partner is above 15, read their own value; lanes 16..31 read lane l - 16.
    let (got, _) = divergent_shuffle(32, 16, 0xf, 0xffff_ffff).unwrap();
    assert_eq!(got, (0..32).map(|l| (l % 16) as f32).collect::<Vec<_>>());
    // Half a warp shuffling among itself with a matching mask is fine.
    // (The loop around it runs for lanes 0..15 only: legal, and counted as divergent.)
    let (got, report) = divergent_shuffle(16, 8, 0x1f, 0x0000_ffff).unwrap();
    let want: Vec<f32> = (0..32).map(|l| if l < 16 { (l ^ 8) as f32 } else { -1.0 }).collect();
    assert_eq!(got, want);
    assert_eq!((report.shuffles, report.divergent_loops), (1, 1));
}

#[test]
fn a_shuffle_reading_a_lane_outside_the_member_mask_is_reported() {
    let e = divergent_shuffle(16, 16, 0x1f, 0x0000_ffff).unwrap_err();
    assert_eq!(e.check, Check::ShuffleSource, "{e}");
    assert_eq!(e.thread, Some(0));
    assert!(e.message.contains("lane 0 reads lane 16 in shfl.sync.bfly"), "{e}");
    assert!(e.message.contains("which is outside the member mask"), "{e}");
    assert_eq!(e.loc.map(|l| l.short()).as_deref(), Some("tests/tests/sim_planted_bugs.rs:1"));
}

#[test]
fn a_shuffle_some_member_lanes_do_not_execute_is_reported() {
    let e = divergent_shuffle(16, 1, 0x1f, 0xffff_ffff).unwrap_err();
    assert_eq!(e.check, Check::ShuffleMembership, "{e}");
    assert_eq!(e.thread, Some(16));
    assert!(e.message.contains("lane 16 is named in the member mask 0xffffffff of shfl.sync but does not execute it"));
}

#[test]
fn a_loop_with_a_zero_step_is_reported() {
    let mut b = Builder::new();
    let iv = b.reg(Ty::I32);
    b.body.push(Inst::Loop {
        ty: Ty::I32,
        iv,
        lower: Operand::Int(0),
        upper: Operand::Int(4),
        step: Operand::Int(0),
        body: vec![],
    });
    let mut mem = Memory::new();
    let y = mem.alloc(4);
    let e = sim::run(&b.program(1), [1, 1, 1], &[ArgValue::Ptr(y)], &mut mem).unwrap_err();
    assert_eq!(e.check, Check::LoopBounds, "{e}");
}

#[test]
fn integer_division_by_zero_is_reported() {
    let mut b = Builder::new();
    let (t, q) = (b.reg(Ty::I32), b.reg(Ty::I32));
    b.body.extend([
        Inst::ReadSpecial { dst: t, sreg: Special::TidX },
        Inst::Bin { op: BinOp::Div, ty: Ty::I32, dst: q, a: Operand::Int(7), b: t.into() },
    ]);
    // `7 / tid`: thread 0 divides by zero. (An immediate first operand is legal lir.)
    let mut mem = Memory::new();
    let y = mem.alloc(4);
    let e = sim::run(&b.program(1), [1, 1, 1], &[ArgValue::Ptr(y)], &mut mem).unwrap_err();
    assert_eq!((e.check, e.thread), (Check::DivisionByZero, Some(0)), "{e}");
}

#[test]
fn a_partial_no_warp_writes_is_an_undefined_shared_read() {
    let s = setup(&rtriton_kernels::row_max(), case(2, 1024), 4);
    s.control();
    // Only thread 0 writes its warp's partial: the slots of warps 1..3 stay unwritten.
    let e = s.fails(|p| {
        let tid = tid_reg(p);
        let only_t0 = new_reg(p, Ty::Pred);
        let at = p.body.iter().position(|i| matches!(i, Inst::ReadSpecial { sreg: Special::TidX, .. })).unwrap();
        p.body
            .insert(at + 1, Inst::Setp { cmp: Cmp::Eq, ty: Ty::I32, dst: only_t0, a: tid.into(), b: Operand::Int(0) });
        let Some(Inst::StShared { guard, .. }) = find_mut(&mut p.body, &|i| matches!(i, Inst::StShared { .. })) else {
            panic!("row_max on 4 warps writes partials to shared memory")
        };
        *guard = Some(rtriton::backend::ptx::lir::Guard { pred: only_t0, negate: false });
    });
    assert_eq!(e.check, Check::UninitializedShared, "{e}");
    assert_eq!((e.thread, e.address), (Some(0), Some(Address::Shared(4))));
    assert!(e.message.contains("thread 0 reads shared byte 4, which no thread of this program wrote"), "{e}");
}

/// Runs `def` as 4 programs on `mem`: on the interpreter, which runs them in order, `y`
/// ends as `in_order`; on the simulator the same launch must be a [`Check::GlobalRace`],
/// which is returned.
fn race_on_four_programs(
    def: &rtriton::trace::KernelDef,
    args: &[ArgValue],
    mem: &Memory,
    y: u64,
    in_order: &[f32],
) -> SimError {
    let mut on_interp = mem.clone();
    rtriton::session::CompileSession::new()
        .interpret(def, &[], args, SpecPolicy::Triton, [4, 1, 1], &mut on_interp)
        .unwrap();
    assert_eq!(on_interp.read_f32(y, 4).unwrap(), in_order, "in program order it works");
    let program = rtriton_tests::lower_def(def, &[], args, SpecPolicy::Triton, 4).unwrap();
    let e = sim::run(&program, [4, 1, 1], args, &mut mem.clone()).unwrap_err();
    assert_eq!(e.check, Check::GlobalRace, "{e}");
    e
}

kernel! {
    /// Every program adds the previous program's result to its element: correct on the
    /// interpreter, which runs programs in order, and a race on the GPU, which does not.
    fn chained_sum(x_ptr: Ptr<f32>, y_ptr: Ptr<f32>) {
        let pid = program_id(0);
        let prev = load(y_ptr + (pid - 1), Some(pid.gt(0)), Some(0.0f32));
        store(y_ptr + pid, prev + load(x_ptr + pid, None, None), None);
    }
}

#[test]
fn a_program_reading_another_programs_store_is_a_race() {
    let def = chained_sum();
    let mut mem = Memory::new();
    let x = mem.alloc_f32(&[1.0, 2.0, 3.0, 4.0]);
    let y = mem.alloc(16);
    let args = [ArgValue::Ptr(x), ArgValue::Ptr(y)];
    let e = race_on_four_programs(&def, &args, &mem, y, &[1.0, 3.0, 6.0, 10.0]);
    assert_eq!((e.program, e.thread, e.address), (Some([1, 0, 0]), Some(0), Some(Address::Global(y))));
    assert!(e.message.contains("thread 0 loads a global element that thread 0 of program (0, 0, 0) stored"), "{e}");
    assert!(
        e.loc.map(|l| l.short()).as_deref().is_some_and(|l| l.starts_with("tests/tests/sim_planted_bugs.rs:")),
        "{e}"
    );
}

/// A loop from `lower` to `upper` by `step` that counts its trips into `y[0]`.
fn count_trips(ty: Ty, lower: i64, upper: i64, step: i64) -> Result<i32, SimError> {
    let mut b = Builder::new();
    let (y, yg, n, iv) = (b.reg(Ty::I64), b.reg(Ty::I64), b.reg(Ty::I32), b.reg(ty));
    let t = b.reg(Ty::I32);
    let is_t0 = b.reg(Ty::Pred);
    b.body.extend([
        Inst::LdParam { dst: y, param: 0 },
        Inst::CvtaGlobal { dst: yg, src: y },
        Inst::ReadSpecial { dst: t, sreg: Special::TidX },
        Inst::Setp { cmp: Cmp::Eq, ty: Ty::I32, dst: is_t0, a: t.into(), b: Operand::Int(0) },
        Inst::Mov { ty: Ty::I32, dst: n, src: Operand::Int(0) },
        Inst::Loop {
            ty,
            iv,
            lower: Operand::Int(lower),
            upper: Operand::Int(upper),
            step: Operand::Int(step),
            body: vec![Inst::Bin { op: BinOp::Add, ty: Ty::I32, dst: n, a: n.into(), b: Operand::Int(1) }],
        },
        Inst::StGlobal {
            guard: Some(rtriton::backend::ptx::lir::Guard { pred: is_t0, negate: false }),
            ty: Ty::I32,
            srcs: vec![n],
            addr: yg,
            offset: 0,
        },
    ]);
    let mut mem = Memory::new();
    let yp = mem.alloc(4);
    sim::run(&b.program(1), [1, 1, 1], &[ArgValue::Ptr(yp)], &mut mem)?;
    Ok(mem.read_i32(yp, 1).unwrap()[0])
}

#[test]
fn loops_count_their_trips_exactly_and_a_non_positive_step_traps() {
    assert_eq!(count_trips(Ty::I32, 0, 10, 3).unwrap(), 4);
    assert_eq!(count_trips(Ty::I32, 5, 5, 1).unwrap(), 0);
    assert_eq!(count_trips(Ty::I32, 7, -3, 1).unwrap(), 0);
    // Near the top of i32 the increment after the last trip wraps; the count is exact.
    assert_eq!(count_trips(Ty::I32, 0, i64::from(i32::MAX), 1 << 30).unwrap(), 2);
    assert_eq!(count_trips(Ty::I32, i64::from(i32::MIN), i64::from(i32::MAX), i64::from(i32::MAX)).unwrap(), 3);
    assert_eq!(count_trips(Ty::I64, i64::MAX - 10, i64::MAX, 4).unwrap(), 3);
    // A step of zero traps even when the loop would not run.
    let e = count_trips(Ty::I32, 4, 0, 0).unwrap_err();
    assert_eq!(e.check, Check::LoopBounds, "{e}");
    assert!(e.message.contains("loop step 0 is not positive"), "{e}");
    assert_eq!(count_trips(Ty::I32, 0, 4, -1).unwrap_err().check, Check::LoopBounds);
}

kernel! {
    /// Every program reads the next program's element before that program overwrites it:
    /// the interpreter's program order makes it read the old value; the GPU may not.
    fn read_next_then_store(x_ptr: Ptr<f32>, y_ptr: Ptr<f32>, n: i32) {
        let pid = program_id(0);
        let next = load(y_ptr + (pid + 1), Some((pid + 1).lt(n)), Some(0.0f32));
        store(y_ptr + pid, next + load(x_ptr + pid, None, None), None);
    }
}

#[test]
fn a_program_reading_what_a_later_program_stores_is_a_race() {
    let def = read_next_then_store();
    let mut mem = Memory::new();
    let x = mem.alloc_f32(&[1.0, 2.0, 3.0, 4.0]);
    let y = mem.alloc_f32(&[10.0, 20.0, 30.0, 40.0]);
    let args = [ArgValue::Ptr(x), ArgValue::Ptr(y), ArgValue::Int(4)];
    let e = race_on_four_programs(&def, &args, &mem, y, &[21.0, 32.0, 43.0, 4.0]);
    assert_eq!((e.program, e.thread, e.address), (Some([0, 0, 0]), Some(0), Some(Address::Global(y + 4))));
    assert!(
        e.message.contains("program (0, 0, 0) loads a global element that thread 0 of program (1, 0, 0) stores"),
        "{e}"
    );
    assert!(e.inst.as_deref().is_some_and(|i| i.contains("ld.global.f32")), "{e}");
}
