//! `max_contiguous` and `max_constancy` (Triton's `tl.max_contiguous`, `tl.max_constancy`):
//! promises about a block's runs that make loads vectors where an op in between hid the
//! runs from AxisInfo (the decision's reason says which fact bound the width), while every
//! back end computes the same values with the promise and without; the IR text; the
//! trace errors; ptxas.

mod ptx_common;

use half::f16;
use ptx_common::{compile_def, options};
use rtriton::backend::ptx::{AccessDecision, AccessKind, Arch};
use rtriton::diag::{Code, HasDiagnostics};
use rtriton::ir::print;
use rtriton::kernel;
use rtriton::prelude::*;
use rtriton::session::CompileSession;
use rtriton::spec::{ArgValue, SpecKey, SpecPolicy};
use rtriton::trace::{KernelDef, TraceOptions};
use rtriton_testing::{Backend, Case, Rule, Suite, View};

/// Programs of the first half copy their tile, those of the second half the tile at the
/// mirrored position: `offs` is one of two aligned ranges, picked by `where_`, which keeps
/// their alignment but not their contiguity. `HINT = 1` promises the runs back.
fn mirrored_tiles<T: ScalarMarker>(
    x_ptr: Tensor<Ptr<T>>,
    y_ptr: Tensor<Ptr<T>>,
    n_tiles: Tensor<i32>,
    block: usize,
    hint: usize,
) {
    let pid = program_id(0);
    let fwd = pid * block as i32 + arange(0, block);
    let bwd = (n_tiles - 1 - pid) * block as i32 + arange(0, block);
    let offs = where_((pid * 2).lt(n_tiles), fwd, bwd);
    let offs = if hint == 1 { max_contiguous(offs, block) } else { offs };
    let x = load(x_ptr + offs, None, None);
    store(y_ptr + fwd, x, None);
}

kernel! {
    /// [`mirrored_tiles`] of `f32`.
    fn mirrored_f32(x_ptr: Ptr<f32>, y_ptr: Ptr<f32>, n_tiles: i32; const BLOCK: usize, const HINT: usize) {
        mirrored_tiles(x_ptr, y_ptr, n_tiles, BLOCK, HINT);
    }
}

kernel! {
    /// [`mirrored_tiles`] of `f16` (eight to a 16-byte vector).
    fn mirrored_f16(x_ptr: Ptr<f16>, y_ptr: Ptr<f16>, n_tiles: i32; const BLOCK: usize, const HINT: usize) {
        mirrored_tiles(x_ptr, y_ptr, n_tiles, BLOCK, HINT);
    }
}

kernel! {
    /// `y = x` where the flag of the element's group of four is set, else 0: the mask is
    /// read through `offs >> 2`, which hides that it is constant over each group.
    /// `HINT = 1` promises it.
    fn grouped_mask(x_ptr: Ptr<f32>, flag_ptr: Ptr<i32>, y_ptr: Ptr<f32>; const BLOCK: usize, const HINT: usize) {
        let offs = program_id(0) * BLOCK as i32 + arange(0, BLOCK);
        let keep = load(flag_ptr + (offs >> 2), None, None).ne(0);
        let keep = if HINT == 1 { max_constancy(keep, 4usize) } else { keep };
        let x = load(x_ptr + offs, Some(keep), Some(0.0));
        store(y_ptr + offs, x, None);
    }
}

const TILE: i64 = 1024;
const TILES: usize = 6;
const X: u64 = 0x7f00_0000_0000;
const F: u64 = 0x7f10_0000_0000;
const Y: u64 = 0x7f20_0000_0000;

/// The loads of `def` compiled for `args` with `HINT = hint`.
fn loads(def: &KernelDef, args: &[ArgValue], hint: i64) -> Vec<AccessDecision> {
    let p = compile_def(def, &[("BLOCK", TILE), ("HINT", hint)], args, SpecPolicy::Triton, &options(Arch::Sm86, 4))
        .unwrap_or_else(|e| panic!("{}: {e}", def.name));
    p.decisions.accesses.into_iter().filter(|d| d.kind == AccessKind::Load).collect()
}

/// Without the promise the tile's load is scalar: its addresses are not provably
/// consecutive. With it, a 16-byte vector: four `f32`s, eight `f16`s.
#[test]
fn a_promised_contiguity_makes_the_tile_load_a_vector() {
    let args = [ArgValue::Ptr(X), ArgValue::Ptr(Y), ArgValue::Int(TILES as i64)];
    for (def, width) in [(mirrored_f32(), 4), (mirrored_f16(), 8)] {
        let plain = loads(&def, &args, 0);
        assert_eq!(plain.len(), 1, "{plain:?}");
        assert_eq!(plain[0].vector_width, 1, "{}: {}", def.name, plain[0].reason);
        assert!(plain[0].reason.contains("contiguity 1,"), "{}", plain[0].reason);
        assert!(plain[0].reason.contains("addresses not provably consecutive"), "{}", plain[0].reason);
        let hinted = loads(&def, &args, 1);
        assert_eq!(hinted[0].vector_width, width, "{}: {}", def.name, hinted[0].reason);
        assert!(
            hinted[0].reason.starts_with(&format!("v{width}: contiguity {TILE}, alignment ")),
            "{}",
            hinted[0].reason
        );
    }
}

/// Without the promise the masked load is scalar: the mask may change at every element.
/// With it, one vector a group of four, one predicate for it.
#[test]
fn a_promised_constancy_makes_the_masked_load_a_vector() {
    let args = [ArgValue::Ptr(X), ArgValue::Ptr(F), ArgValue::Ptr(Y)];
    let x_load = |hint| {
        let ls = loads(&grouped_mask(), &args, hint);
        assert_eq!(ls.len(), 2, "the flags' load and x's: {ls:?}");
        ls[1].clone()
    };
    let plain = x_load(0);
    assert_eq!(plain.vector_width, 1, "{}", plain.reason);
    assert!(plain.reason.contains("the mask may change every 1 elements"), "{}", plain.reason);
    let hinted = x_load(1);
    assert_eq!(hinted.vector_width, 4, "{}", hinted.reason);
    assert!(hinted.reason.contains("mask constant in runs of 4"), "{}", hinted.reason);
}

fn mirrored_suite(def: KernelDef, f16: bool) -> Suite {
    let n = TILES * TILE as usize;
    let cases = [0, 1].map(|hint| {
        let c = Case::new(format!("HINT={hint}"));
        let c = if f16 {
            let x: Vec<f16> = (0..n).map(|i| f16::from_f32(i as f32 * 0.25 - 100.0)).collect();
            c.input("x", x, View::contiguous(&[n])).output("y", vec![f16::NAN; n], View::contiguous(&[n]))
        } else {
            let x: Vec<f32> = (0..n).map(|i| i as f32 * 0.5 - 7.0).collect();
            c.input("x", x, View::contiguous(&[n])).output("y", vec![f32::NAN; n], View::contiguous(&[n]))
        };
        c.int(TILES as i64).constexpr("BLOCK", TILE).constexpr("HINT", hint).grid([TILES as u32, 1, 1])
    });
    Suite::new(def)
        .cases(cases)
        .reference(move |c| {
            let b = TILE as usize;
            let src = |i: usize| {
                let (tile, k) = (i / b, i % b);
                if tile * 2 < TILES { i } else { (TILES - 1 - tile) * b + k }
            };
            if f16 {
                let x: Vec<f16> = c.tensor("x").data.as_slice::<f16>().unwrap().to_vec();
                let y = c.tensor_mut("y").data.as_slice_mut::<f16>().unwrap();
                (0..y.len()).for_each(|i| y[i] = x[src(i)]);
            } else {
                let x = c.tensor("x").data.as_f32().unwrap().to_vec();
                let y = c.tensor_mut("y").data.as_f32_mut().unwrap();
                (0..y.len()).for_each(|i| y[i] = x[src(i)]);
            }
        })
        .rule(Rule::BITS)
}

fn grouped_suite() -> Suite {
    let n = 4 * TILE as usize;
    let cases = [0, 1].map(|hint| {
        let x: Vec<f32> = (0..n).map(|i| i as f32 + 0.5).collect();
        let flags: Vec<i32> = (0..n / 4).map(|g| i32::from(g % 3 != 1)).collect();
        Case::new(format!("HINT={hint}"))
            .input("x", x, View::contiguous(&[n]))
            .input("flag", flags, View::contiguous(&[n / 4]))
            .output("y", vec![f32::NAN; n], View::contiguous(&[n]))
            .constexpr("BLOCK", TILE)
            .constexpr("HINT", hint)
            .grid([4, 1, 1])
    });
    Suite::new(grouped_mask())
        .cases(cases)
        .reference(|c| {
            let x = c.tensor("x").data.as_f32().unwrap().to_vec();
            let flags = c.tensor("flag").data.as_i32().unwrap().to_vec();
            let y = c.tensor_mut("y").data.as_f32_mut().unwrap();
            (0..y.len()).for_each(|i| y[i] = if flags[i / 4] != 0 { x[i] } else { 0.0 });
        })
        .rule(Rule::BITS)
}

/// The promises change no value: with and without them, the interpreter and the
/// simulator (whose vector loads the promise made) give the expected elements.
#[test]
fn the_hints_change_no_result() {
    for suite in [mirrored_suite(mirrored_f32(), false), mirrored_suite(mirrored_f16(), true), grouped_suite()] {
        suite.check_all(Backend::Interpreter);
        suite.check_all(Backend::Simulator);
    }
}

/// The IR names each hint with its values, one per dim, and prints back as it reads.
#[test]
fn the_ir_text_names_the_hint_and_its_values() {
    let spec = SpecKey::plain(&grouped_mask().params);
    let k = CompileSession::new()
        .front_end(&grouped_mask(), &[("BLOCK", 64), ("HINT", 1)], &spec, &TraceOptions::default())
        .expect("traces");
    let text = print(k.kernel());
    assert!(
        text.contains(" = max_constancy %") && text.contains(", [4] : tensor<64xi1>  loc(tests/tests/axis_hints.rs:")
    );
    assert_eq!(print(&rtriton::ir::parse(&text).expect("parses")), text);
}

kernel! {
    /// A hint with the wrong number of values (`WHICH = 0`) or a zero (`1`).
    fn broken_hint(y_ptr: Ptr<i32>; const WHICH: usize) {
        let offs = expand_dims(arange(0, 16), 1) + expand_dims(arange(0, 16), 0);
        let offs = if WHICH == 0 { max_contiguous(offs, 16usize) } else { max_constancy(offs, [1usize, 0]) };
        store(y_ptr + offs, offs, None);
    }
}

#[test]
fn a_hint_takes_one_positive_value_per_dim() {
    let expected = [
        "max_contiguous of a tensor<16x16xi32> takes 2 value(s), one per dim, got 1",
        "max_constancy([1, 0]): a run length of 0",
    ];
    for (which, want) in expected.iter().enumerate() {
        let spec = SpecKey::plain(&broken_hint().params);
        let err = CompileSession::new()
            .front_end(&broken_hint(), &[("WHICH", which as i64)], &spec, &TraceOptions::default())
            .expect_err("a broken hint");
        let d = &err.diagnostics()[0];
        assert_eq!(d.code, Code::TraceRule);
        let text = d.to_string();
        assert!(text.contains(want) && text.contains("tests/tests/axis_hints.rs:"), "{text}");
    }
}

#[test]
#[cfg_attr(not(has_ptxas), ignore = "needs ptxas on PATH")]
fn the_hinted_kernels_assemble() {
    let ptxas = ptx_common::ptxas("axis_hints");
    let tiles = [ArgValue::Ptr(X), ArgValue::Ptr(Y), ArgValue::Int(TILES as i64)];
    let grouped = [ArgValue::Ptr(X), ArgValue::Ptr(F), ArgValue::Ptr(Y)];
    let kernels: [(KernelDef, &[ArgValue]); 3] =
        [(mirrored_f32(), &tiles), (mirrored_f16(), &tiles), (grouped_mask(), &grouped)];
    for (def, args) in kernels {
        for arch in [Arch::Sm86, Arch::Sm90] {
            let text = compile_def(&def, &[("BLOCK", TILE), ("HINT", 1)], args, SpecPolicy::Triton, &options(arch, 4))
                .expect("compiles")
                .text;
            ptx_common::assembles_without_spills(&ptxas, &text, arch, def.name).unwrap_or_else(|e| panic!("{e}"));
        }
    }
}
