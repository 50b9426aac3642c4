//! Shared base addresses (`lower/address.rs`): the vectors of one thread's access that lie
//! a compile-time distance apart read one address register plus an immediate offset, as
//! Triton's LLVM lowering does, when the distance is exact; and the registers that saves.
//!
//! - Offsets `arange` from 0, widened to i64 (exact): every vector of a thread reads one
//!   register, at `tile * 4` bytes apart, loads and stores alike.
//! - Offsets summed in i32 from a runtime start and then widened (`start + arange` may
//!   wrap past `i32::MAX` inside the block, where the widened addresses jump): no offset is
//!   folded, each vector keeps its own address.
//! - A start that is a multiple of the block (`pid * BLOCK + arange`): its runs cannot
//!   wrap inside, so it is folded.
//! - The interpreter and the simulator (which runs the `lir`, offsets included) agree on
//!   the folded copies.
//! - ptxas: the softmax port at 16384 columns on 16 warps fits 70 registers (79 before):
//!   `tests/tests/port_softmax.rs`, with the port's other register checks.

use rstest::rstest;
use rtriton::backend::ptx::lir::{Inst, Program};
use rtriton::prelude::*;
use rtriton::spec::{ArgValue, SpecPolicy};
use rtriton_testing::run::{run_interpreter, run_simulator};
use rtriton_testing::{Case, Data, View};

const X: u64 = 0x7f00_0000_0000;
const Y: u64 = 0x7f00_0010_0000;
const N: usize = 2048;

rtriton::kernel! {
    /// `y[start + i] = x[start + i]` for `i < BLOCK`, the offsets of `KIND`: 0 `arange`
    /// widened to i64 plus an i64 start; 1 `start + arange` in i32, widened by `add_ptr`;
    /// 2 `pid * BLOCK + arange` in i32 (`start` unused).
    fn copy_offsets(x_ptr: Ptr<f32>, y_ptr: Ptr<f32>, start: i32; const BLOCK: usize, const KIND: usize) {
        match KIND {
            0 => {
                let offs = arange(0, BLOCK).to::<i64>() + start.to::<i64>();
                store(y_ptr + offs, load(x_ptr + offs, None, None), None);
            }
            1 => {
                let offs = arange(0, BLOCK) + start;
                store(y_ptr + offs, load(x_ptr + offs, None, None), None);
            }
            _ => {
                let offs = program_id(0) * BLOCK as i32 + arange(0, BLOCK);
                store(y_ptr + offs, load(x_ptr + offs, None, None), None);
            }
        }
    }
}

/// Each global access of `p` as (address register, byte offset), loads and stores in
/// program order.
fn accesses(p: &Program) -> Vec<(String, i64)> {
    p.walk()
        .into_iter()
        .filter_map(|i| match i {
            Inst::LdGlobal { addr, offset, .. } | Inst::StGlobal { addr, offset, .. } => {
                Some((format!("{addr:?}"), *offset))
            }
            // every other instruction touches no global address through `addr + offset`
            _ => None,
        })
        .collect()
}

fn lower(kind: i64, start: i64) -> Program {
    let args = [ArgValue::Ptr(X), ArgValue::Ptr(Y), ArgValue::Int(start)];
    rtriton_tests::lower_def(&copy_offsets(), &[("BLOCK", N as i64), ("KIND", kind)], &args, SpecPolicy::Triton, 4)
        .unwrap_or_else(|e| panic!("kind {kind}: {e}"))
}

/// 2048 elements on 4 warps: 4 per vector, 512 per tile, so each thread holds 4 vectors
/// 2048 bytes apart, read through one register when the offsets are exact.
#[rstest]
#[case::i64_offsets(0, 32)]
#[case::block_multiple_i32(2, 0)]
fn exact_offsets_share_one_address_per_access(#[case] kind: i64, #[case] start: i64) {
    let p = lower(kind, start);
    let acc = accesses(&p);
    assert_eq!(acc.len(), 8, "4 vector loads and 4 vector stores: {acc:?}");
    for (access, vectors) in [("load", &acc[..4]), ("store", &acc[4..])] {
        let offsets: Vec<i64> = vectors.iter().map(|a| a.1).collect();
        assert_eq!(offsets, [0, 2048, 4096, 6144], "{access}: {vectors:?}");
        assert!(vectors.iter().all(|a| a.0 == vectors[0].0), "{access}: one address register: {vectors:?}");
    }
}

/// `start + arange` in i32 with a start not known to be a multiple of the block: the
/// widened addresses are consecutive only if the sum does not wrap, which nothing proves,
/// so every vector keeps the address computed for its own first element.
#[test]
fn i32_offsets_that_may_wrap_are_not_folded() {
    let p = lower(1, 32);
    let acc = accesses(&p);
    assert_eq!(acc.len(), 8, "{acc:?}");
    assert!(acc.iter().all(|a| a.1 == 0), "no immediate offsets: {acc:?}");
    let loads: std::collections::HashSet<&String> = acc[..4].iter().map(|a| &a.0).collect();
    assert_eq!(loads.len(), 4, "one address register per vector: {acc:?}");
}

/// The folded copies copy: the interpreter and the simulator (running the `lir` with its
/// immediate offsets) write the same bits, the input itself, at the offsets of `kind`.
#[rstest]
#[case::i64_offsets(0, 32)]
#[case::i32_offsets(1, 32)]
#[case::block_multiple_i32(2, 0)]
fn folded_copies_agree_with_the_interpreter(#[case] kind: i64, #[case] start: i64) {
    let n = N + start as usize;
    let input: Vec<f32> = (0..n).map(|i| i as f32 * 0.5 - 7.0).collect();
    let case = Case::new("copy")
        .input("x", input.clone(), View::contiguous(&[n]))
        .output("y", vec![0f32; n], View::contiguous(&[n]))
        .int(start)
        .constexpr("BLOCK", N as i64)
        .constexpr("KIND", kind)
        .num_warps(4);
    let y = |out: &rtriton_testing::Outputs| -> Vec<u32> {
        let data = rtriton_testing::suite::output(out, "y").and_then(Data::as_f32).expect("y is an f32 output");
        data.iter().map(|x| x.to_bits()).collect()
    };
    let interp = y(&run_interpreter(&copy_offsets(), &case, SpecPolicy::Triton).expect("interpreter"));
    let sim = y(&run_simulator(&copy_offsets(), &case, SpecPolicy::Triton).expect("simulator"));
    let want: Vec<u32> = (0..n).map(|i| if i < start as usize { 0f32 } else { input[i] }.to_bits()).collect();
    assert_eq!(interp, want, "interpreter, kind {kind}");
    assert_eq!(sim, interp, "simulator against the interpreter, kind {kind}");
}
