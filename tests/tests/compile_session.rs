//! The compile session runs each stage once per structured key: these tests count the
//! stages that ran (`CompileSession::stats`) while asking for the same kernel in the ways
//! callers do.

use std::sync::Arc;

use rtriton::backend::ptx::PtxOptions;
use rtriton::prelude::*;
use rtriton::session::{CompileError, CompileSession, FrontEndError, StageKey};
use rtriton::spec::{ArgValue, SpecKey, SpecPolicy};
use rtriton::trace::{Semantics, TraceOptions};

rtriton::kernel! {
    /// y[i] = x[i * stride] + 1 for a block of BLOCK elements.
    fn strided_add_one(x_ptr: Ptr<f32>, y_ptr: Ptr<f32>, n: i32, stride: i32; const BLOCK: usize, const UNUSED: usize) {
        let offs = program_id(0) * BLOCK as i32 + arange(0, BLOCK);
        let mask = offs.lt(n);
        let x = load(x_ptr + offs * stride, Some(mask), Some(0.0));
        store(y_ptr + offs, x + 1.0, Some(mask));
    }
}

const ARGS: [ArgValue; 4] = [ArgValue::Ptr(0x1000), ArgValue::Ptr(0x2000), ArgValue::Int(100), ArgValue::Int(1)];

fn spec(policy: SpecPolicy) -> SpecKey {
    let def = strided_add_one();
    CompileSession::specialize(&def, &ARGS, policy).expect("the arguments fit")
}

#[test]
fn every_stage_runs_once_per_key_and_hands_back_the_same_artifact() {
    let def = strided_add_one();
    let consts = [("BLOCK", 64), ("UNUSED", 0)];
    let (spec, opts) = (spec(SpecPolicy::Triton), TraceOptions::default());
    let mut s = CompileSession::new();
    let verified = s.front_end(&def, &consts, &spec, &opts).unwrap();
    let ptx = s.ptx(&def, &consts, &spec, &opts, &PtxOptions::default()).unwrap();
    assert!(Arc::ptr_eq(&verified, &s.front_end(&def, &consts, &spec, &opts).unwrap()));
    assert!(Arc::ptr_eq(&ptx, &s.ptx(&def, &consts, &spec, &opts, &PtxOptions::default()).unwrap()));
    s.lower(&def, &consts, &spec, &opts, &PtxOptions::default()).unwrap();
    let stats = s.stats();
    assert_eq!((stats.traces, stats.lowerings), (1, 1), "{stats:?}");
    // Other PTX options reuse the trace; only the back end runs again.
    s.ptx(&def, &consts, &spec, &opts, &PtxOptions { num_warps: 8, ..PtxOptions::default() }).unwrap();
    let stats = s.stats();
    assert_eq!((stats.traces, stats.lowerings), (1, 2), "{stats:?}");
}

#[test]
fn constexpr_order_does_not_matter_and_every_other_key_part_does() {
    let def = strided_add_one();
    let (a, b) = ([("BLOCK", 64), ("UNUSED", 0)], [("UNUSED", 0), ("BLOCK", 64)]);
    let (triton, opts) = (spec(SpecPolicy::Triton), TraceOptions::default());
    assert_eq!(StageKey::new(&def, &a, &triton, &opts), StageKey::new(&def, &b, &triton, &opts));
    let mut s = CompileSession::new();
    s.front_end(&def, &a, &triton, &opts).unwrap();
    s.front_end(&def, &b, &triton, &opts).unwrap();
    assert_eq!(s.stats().traces, 1);
    // Another constexpr value, another specialization, other semantics: three more traces.
    s.front_end(&def, &[("BLOCK", 128), ("UNUSED", 0)], &triton, &opts).unwrap();
    s.front_end(&def, &a, &spec(SpecPolicy::Off), &opts).unwrap();
    s.front_end(&def, &a, &triton, &TraceOptions { semantics: Semantics::Triton, ..TraceOptions::default() }).unwrap();
    assert_eq!(s.stats().traces, 4);
}

#[test]
fn a_failed_trace_is_remembered_not_repeated() {
    let def = strided_add_one();
    // BLOCK is missing: the trace fails, once.
    let consts = [("UNUSED", 0)];
    let (plain, opts) = (SpecKey::plain(&def.params), TraceOptions::default());
    let mut s = CompileSession::new();
    let first = s.ptx(&def, &consts, &plain, &opts, &PtxOptions::default()).unwrap_err();
    let CompileError::FrontEnd(front) = &first else { panic!("expected a front-end error, got {first:?}") };
    assert!(matches!(front, FrontEndError::Trace(_)), "{front:?}");
    assert_eq!(s.ptx(&def, &consts, &plain, &opts, &PtxOptions::default()).unwrap_err(), first);
    // The lint asks for the same unspecialized trace and gets the remembered error.
    assert_eq!(&s.lint(&def, &consts, &Default::default()).unwrap_err(), front);
    assert_eq!(s.stats().traces, 1);
}
