//! The ports' PTX (issue 11) through the real ptxas: every case of every port's suite, under
//! Triton's specialization and without it, compiled for `.target sm_86` and assembled with
//! `-arch=sm_86` and `-arch=sm_90` without spills; and the loads the reductions' and the
//! epilogue's performance rests on: 16-byte vector loads along contiguous rows, for
//! row-wise and column-wise tiles alike. Ignored without ptxas (`tests/build.rs`).

mod ptx_common;

use std::collections::BTreeMap;

use ptx_common::{assemble, options, ptxas, spill_stores};
use rtriton::backend::ptx::{self, Arch};
use rtriton::session::CompileSession;
use rtriton::spec::{ArgValue, SpecPolicy};
use rtriton::trace::{KernelDef, TraceOptions};
use rtriton_kernels::ports::reduce::{self as reduce_kernels, Direction};

fn compile(def: &KernelDef, constexprs: &[(&str, i64)], args: &[ArgValue], policy: SpecPolicy, warps: u32) -> String {
    let verified = CompileSession::new()
        .front_end_for_args(def, constexprs, args, policy, &TraceOptions::default())
        .unwrap_or_else(|e| panic!("front end failed for {}: {e}", def.name));
    ptx::compile(&verified, &options(Arch::Sm86, warps)).unwrap_or_else(|e| panic!("{}: {e}", def.name)).text
}

#[test]
#[cfg_attr(not(has_ptxas), ignore = "needs ptxas on PATH")]
fn every_ports_case_assembles_for_sm_86_and_sm_90_without_spills() {
    let ptxas = ptxas("every_ports_case_assembles_for_sm_86_and_sm_90_without_spills");
    // Many cases share a specialization and blocks, hence a PTX text: assemble each once.
    let mut texts: BTreeMap<String, String> = BTreeMap::new();
    for port in rtriton_host::ports::all() {
        for suite in (port.suites)() {
            for case in &suite.cases {
                let args = rtriton_testing::suite::arg_values(case).expect("the case places");
                for policy in [SpecPolicy::Triton, SpecPolicy::Off] {
                    let text = compile(&suite.def, &case.constexprs, &args, policy, case.num_warps);
                    texts.entry(text).or_insert_with(|| format!("{} case {} {policy:?}", suite.def.name, case.name));
                }
            }
        }
    }
    assert!(texts.len() > 40, "only {} distinct PTX texts", texts.len());
    for (text, what) in &texts {
        for arch in ["sm_86", "sm_90"] {
            let info = assemble(&ptxas, text, arch, "port").unwrap_or_else(|e| panic!("{what}, -arch={arch}: {e}"));
            assert_eq!(spill_stores(&info), Some(0), "{what} spills on {arch}:\n{info}");
        }
    }
}

/// The arguments of a reduction over a contiguous `rows x cols` input at 256-byte aligned
/// addresses (what a torch tensor gets).
fn reduction_args(rows: usize, cols: usize) -> Vec<ArgValue> {
    vec![
        ArgValue::Ptr(0x7f00_0000_0000),
        ArgValue::Ptr(0x7f10_0000_0000),
        ArgValue::Int(rows as i64),
        ArgValue::Int(cols as i64),
        ArgValue::Int(cols as i64),
        ArgValue::Int(1),
        ArgValue::Int(1),
    ]
}

/// Every reduction kernel on a contiguous 4096 x 4096 input with the launcher's blocks:
/// each load of a tile is a 16-byte `ld.global.v4`, in both directions.
#[test]
#[cfg_attr(not(has_ptxas), ignore = "needs ptxas on PATH")]
fn reductions_load_contiguous_rows_sixteen_bytes_at_a_time() {
    let ptxas = ptxas("reductions_load_contiguous_rows_sixteen_bytes_at_a_time");
    let kernels: [(fn() -> KernelDef, Direction); 6] = [
        (reduce_kernels::row_sum_f32, Direction::Rows),
        (reduce_kernels::row_argmax_f32, Direction::Rows),
        (reduce_kernels::row_min_i32, Direction::Rows),
        (reduce_kernels::col_sum_f32, Direction::Cols),
        (reduce_kernels::col_argmin_f32, Direction::Cols),
        (reduce_kernels::col_max_i32, Direction::Cols),
    ];
    for (def, direction) in kernels {
        let def = def();
        let (m, n) = reduce_kernels::blocks(direction, 4096, 4096, 4);
        let text = compile(
            &def,
            &[("BLOCK_M", m as i64), ("BLOCK_N", n as i64)],
            &reduction_args(4096, 4096),
            SpecPolicy::Triton,
            4,
        );
        let loads: Vec<&str> = text.lines().filter(|l| l.contains("ld.global")).collect();
        assert!(!loads.is_empty(), "{}: no global load", def.name);
        assert!(
            loads.iter().all(|l| l.contains("ld.global.v4.")),
            "{}: loads not all 16 bytes wide:\n{}",
            def.name,
            loads.join("\n")
        );
        let info = assemble(&ptxas, &text, "sm_90", def.name).unwrap_or_else(|e| panic!("{}: {e}", def.name));
        assert_eq!(spill_stores(&info), Some(0), "{} spills:\n{info}", def.name);
    }
}
