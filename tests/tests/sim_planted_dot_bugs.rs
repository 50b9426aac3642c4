//! Planted bugs in a tensor-core `dot`: the simulator must catch each. The correct lowered
//! program (a 32 x 32 x 32 `f16` product on 4 warps: `ldmatrix`, `ldmatrix.trans`,
//! `mma.sync`) matches the documented `dot` order bit for bit; a copy mutated here, in the
//! test only, must give other bits or a located error:
//! - a wrong fragment lane mapping (two registers of an `ldmatrix` swapped),
//! - a padding (the shared layout's row skew) off by one 16-byte chunk,
//! - a removed barrier between the staging stores and the fragment reads;
//!
//! and in a pipelined K loop (`for_range_staged`, the tiles copied into shared-memory
//! rings by `cp.async` two iterations ahead, into swizzled slots):
//! - a missing `cp.async.wait_group` before the fragment reads,
//! - a `cp.async.wait_group` that leaves the read slot's copies in flight,
//! - a swizzle off by one: the fragment reads `xor` a row's phase plus one.

use half::f16;
use rtriton::backend::ptx::lir::{BinOp, Inst, Operand, Program, Reg, Ty};
use rtriton::backend::ptx::{self, PtxOptions};
use rtriton::interp::Memory;
use rtriton::kernel;
use rtriton::prelude::*;
use rtriton::session::CompileSession;
use rtriton::sim::{self, Check};
use rtriton::spec::{ArgValue, SpecKey, SpecPolicy};
use rtriton::trace::TraceOptions;

const N: usize = 32;

kernel! {
    fn dot32(a_ptr: Ptr<f16>, b_ptr: Ptr<f16>, c_ptr: Ptr<f32>) {
        let r = expand_dims(arange(0, 32), 1);
        let c = expand_dims(arange(0, 32), 0);
        let a = load(a_ptr + r * 32 + c, None, None);
        let b = load(b_ptr + r * 32 + c, None, None);
        store(c_ptr + r * 32 + c, dot(a, b, zeros::<f32>(&[32, 32])), None);
    }
}

kernel! {
    /// `c = a @ b` for 32 x 128 `a` and 128 x 32 `b`: four K steps of 32 through rings of
    /// 3 slots.
    fn dot_loop(a_ptr: Ptr<f16>, b_ptr: Ptr<f16>, c_ptr: Ptr<f32>) {
        let r = expand_dims(arange(0, 32), 1);
        let c = expand_dims(arange(0, 32), 0);
        let acc = for_range_staged(0, full::<i32>(&[], 4), 1, 3, zeros::<f32>(&[32, 32]), |k, acc| {
            let a = load(a_ptr + r * 128 + c + k * 32, None, None);
            let b = load(b_ptr + (r + k * 32) * 32 + c, None, None);
            dot(a, b, acc)
        });
        store(c_ptr + r * 32 + c, acc, None);
    }
}

struct Setup {
    program: Program,
    mem: Memory,
    args: Vec<ArgValue>,
    out: u64,
    want: Vec<f32>,
}

fn setup() -> Setup {
    setup_of(dot32(), N, false)
}

/// `def` lowered for 4 warps, with `32 x k` `a` and `k x 32` `b` and the documented order's
/// result; `aligned`: under Triton's specialization of the arguments (16-byte aligned
/// buffers: the loads are 16-byte vectors), else with no argument facts.
fn setup_of(def: rtriton::trace::KernelDef, k_len: usize, aligned: bool) -> Setup {
    let a: Vec<f16> = (0..N * k_len).map(|i| f16::from_f32(((i * 7 % 13) as f32 - 6.0) / 4.0)).collect();
    let b: Vec<f16> = (0..k_len * N).map(|i| f16::from_f32(((i * 5 % 11) as f32 - 5.0) / 8.0)).collect();
    let bytes = |x: &[f16]| x.iter().flat_map(|h| h.to_le_bytes()).collect::<Vec<u8>>();
    let mut mem = Memory::new();
    let pa = mem.alloc_bytes(&bytes(&a));
    let pb = mem.alloc_bytes(&bytes(&b));
    let out = mem.alloc_f32(&vec![0.0; N * N]);
    let args = vec![ArgValue::Ptr(pa), ArgValue::Ptr(pb), ArgValue::Ptr(out)];
    let spec = if aligned {
        SpecKey::from_args(def.name, &def.params, &args, SpecPolicy::Triton).unwrap()
    } else {
        SpecKey::plain(&def.params)
    };
    let k = CompileSession::new().front_end(&def, &[], &spec, &TraceOptions::default()).unwrap();
    let program = ptx::lower(&k, &PtxOptions { num_warps: 4, ..PtxOptions::default() }).unwrap();
    // The documented order: one fma per k, k increasing, from 0.
    let want = (0..N * N)
        .map(|e| (0..k_len).fold(0f32, |s, k| a[e / N * k_len + k].to_f32().mul_add(b[k * N + e % N].to_f32(), s)))
        .collect();
    Setup { program, mem, args, out, want }
}

impl Setup {
    fn run(&self, p: &Program) -> Result<Vec<f32>, sim::SimError> {
        let mut mem = self.mem.clone();
        sim::run(p, [1, 1, 1], &self.args, &mut mem)?;
        Ok(mem.read_f32(self.out, N * N).unwrap())
    }

    fn mutated(&self, mutate: impl FnOnce(&mut Vec<Inst>)) -> Program {
        let mut p = self.program.clone();
        mutate(&mut p.body);
        p
    }
}

fn first(body: &mut [Inst], pred: impl Fn(&Inst) -> bool) -> &mut Inst {
    body.iter_mut().find(|i| pred(i)).expect("the lowering emits it")
}

#[test]
fn the_unmutated_dot_gives_the_documented_bits() {
    let s = setup();
    let text = ptx::write(&s.program);
    assert!(text.contains("ldmatrix.sync.aligned.m8n8.x4.shared.b16") && text.contains("mma.sync.aligned.m16n8k16"));
    let got = s.run(&s.program).unwrap();
    assert_eq!(
        got.iter().map(|x| x.to_bits()).collect::<Vec<_>>(),
        s.want.iter().map(|x| x.to_bits()).collect::<Vec<_>>()
    );
}

#[test]
fn a_wrong_fragment_lane_mapping_gives_other_bits() {
    let s = setup();
    let p = s.mutated(|body| {
        let Inst::Ldmatrix { dsts, .. } = first(body, |i| matches!(i, Inst::Ldmatrix { trans: false, .. })) else {
            unreachable!()
        };
        dsts.swap(1, 2);
    });
    let got = s.run(&p).expect("a wrong mapping breaks no access rule, only the result");
    assert_ne!(got, s.want, "the swapped fragments must change the product");
}

#[test]
fn a_padding_off_by_one_chunk_gives_other_bits_or_an_error() {
    let s = setup();
    let p = s.mutated(|body| {
        let Inst::Ldmatrix { offset, .. } = first(body, |i| matches!(i, Inst::Ldmatrix { trans: true, .. })) else {
            unreachable!()
        };
        *offset += 16;
    });
    match s.run(&p) {
        Ok(got) => assert_ne!(got, s.want, "rows read one chunk off must change the product"),
        Err(e) => assert!(matches!(e.check, Check::SharedOutOfBounds | Check::UninitializedShared), "{e}"),
    }
}

#[test]
fn a_removed_barrier_before_the_fragment_reads_is_a_shared_race() {
    let s = setup();
    let p = s.mutated(|body| {
        let at = body.iter().position(|i| matches!(i, Inst::Ldmatrix { .. })).expect("an ldmatrix");
        let bar = body[..at].iter().rposition(|i| matches!(i, Inst::BarSync { .. })).expect("a barrier before it");
        body.remove(bar);
    });
    let e = s.run(&p).expect_err("the race must be reported");
    assert_eq!(e.check, Check::SharedRace, "{e}");
    assert!(e.to_string().contains("ldmatrix"), "{e}");
}

/// The body of the first loop of `body`.
fn loop_body(body: &mut [Inst]) -> &mut Vec<Inst> {
    match body.iter_mut().find(|i| matches!(i, Inst::Loop { .. })) {
        Some(Inst::Loop { body, .. }) => body,
        _ => panic!("the K loop is a loop"),
    }
}

#[test]
fn the_pipelined_loop_copies_with_cp_async_and_gives_the_documented_bits() {
    let s = setup_of(dot_loop(), 128, true);
    let text = ptx::write(&s.program);
    assert!(text.contains("cp.async.cg.shared.global") && text.contains("cp.async.wait_group 2;"), "{text}");
    assert_eq!(s.run(&s.program).unwrap(), s.want);
}

#[test]
fn a_missing_wait_group_is_a_read_of_a_copy_in_flight() {
    let s = setup_of(dot_loop(), 128, true);
    let p = s.mutated(|body| {
        let inner = loop_body(body);
        let at = inner.iter().position(|i| matches!(i, Inst::CpAsyncWait { .. })).expect("the ring read waits");
        inner.remove(at);
    });
    let Err(e) = s.run(&p) else { panic!("reading a slot whose copy is in flight must be reported") };
    assert_eq!(e.check, Check::AsyncCopyPending, "{e}");
}

#[test]
fn a_wait_group_that_leaves_the_slot_in_flight_is_reported() {
    let s = setup_of(dot_loop(), 128, true);
    let p = s.mutated(|body| {
        let inner = loop_body(body);
        let Some(Inst::CpAsyncWait { pending }) = inner.iter_mut().find(|i| matches!(i, Inst::CpAsyncWait { .. }))
        else {
            unreachable!()
        };
        *pending += 2;
    });
    let Err(e) = s.run(&p) else { panic!("one group too many left in flight must be reported") };
    assert_eq!(e.check, Check::AsyncCopyPending, "{e}");
}

#[test]
fn a_swizzle_off_by_one_gives_other_bits_or_an_error() {
    let s = setup_of(dot_loop(), 128, true);
    let p = s.mutated(|body| {
        let inner = loop_body(body);
        let Some(Inst::Ldmatrix { addr, .. }) = inner.iter().find(|i| matches!(i, Inst::Ldmatrix { .. })).cloned()
        else {
            panic!("the loop reads fragments")
        };
        // The first fragment base is the lane's address `xor` its row's phase (times 16).
        let at = inner
            .iter()
            .position(|i| matches!(i, Inst::Bin { op: BinOp::Xor, dst, .. } if *dst == addr))
            .expect("the fragment base of a swizzled slot is an xor");
        let Inst::Bin { b: Operand::Reg(phase), .. } = inner[at] else { panic!("xor with the phase register") };
        // The reader's phase, one chunk (16 bytes) on: the writer's stays as it was.
        let off = Reg(9_999);
        inner.insert(
            at,
            Inst::Bin { op: BinOp::Add, ty: Ty::I32, dst: off, a: Operand::Reg(phase), b: Operand::Int(16) },
        );
        let Inst::Bin { b, .. } = &mut inner[at + 1] else { unreachable!() };
        *b = Operand::Reg(off);
    });
    let mut p = p;
    p.regs.resize(10_000, Ty::I32);
    match s.run(&p) {
        Ok(got) => assert_ne!(got, s.want, "fragments read one chunk off their swizzled place must change the product"),
        Err(e) => assert!(matches!(e.check, Check::SharedOutOfBounds | Check::UninitializedShared), "{e}"),
    }
}
