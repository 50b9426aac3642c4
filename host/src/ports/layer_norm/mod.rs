//! Layer norm, Triton tutorial 05: the port (`PORT`: its suites, its example and its
//! bench points). The tutorial's kernels (`layer_norm_fwd_fused`,
//! `layer_norm_bwd_dx_fused`, `layer_norm_bwd_dwdb`) have their cases, f64 references and
//! tolerances in `tutorial.rs`; the lock-free persistent backward has its own in
//! [`persistent`], which builds on the tutorial's data and references.

pub mod chunked;
pub mod persistent;
pub mod rows;
mod tutorial;

pub use tutorial::*;

use rtriton::ir::ScalarType;
use rtriton::trace::KernelDef;
use rtriton_kernels::ports::layer_norm::{
    bwd_config, fwd_config, layer_norm_bwd_dwdb, layer_norm_bwd_dwdb_bf16, layer_norm_bwd_dwdb_f16,
    layer_norm_bwd_dx_fused, layer_norm_bwd_dx_fused_bf16, layer_norm_bwd_dx_fused_f16, layer_norm_fwd_fused,
    layer_norm_fwd_fused_bf16, layer_norm_fwd_fused_f16,
};
use rtriton_kernels::ports::layer_norm_fwd_plan;
use rtriton_kernels::ports::layer_norm_plan::{self, Form};
use rtriton_kernels::ports::softmax::H200_SHARED_BYTES;
use rtriton_testing::half::{bf16, f16};
use rtriton_testing::{Case, Element, Suite};

use super::Port;
use super::bench::{BenchPoint, DTYPES, Launches, SHAPES_2D, Target, elem_bytes};
use super::example::ExampleCase;

pub const PORT: Port = Port {
    name: "layer_norm",
    about: "Triton tutorial 05 (_layer_norm_fwd_fused, _layer_norm_bwd_dx_fused with its lock, \
            _layer_norm_bwd_dwdb) and lock-free backwards with f32 partial rows (persistent, and chunked for \
            wide rows): layer norm \
            forward and backward over strided views, in f32, f16 and bf16",
    kernels,
    suites: || {
        let [persistent_f32, sum_f32] = persistent::suites_of::<f32>();
        let [persistent_f16, sum_f16] = persistent::suites_of::<f16>();
        let [persistent_bf16, sum_bf16] = persistent::suites_of::<bf16>();
        let [row_sums_f32, chunked_f32] = chunked::suites_of::<f32>();
        let [row_sums_f16, chunked_f16] = chunked::suites_of::<f16>();
        let [row_sums_bf16, chunked_bf16] = chunked::suites_of::<bf16>();
        let mut suites = vec![
            forward_suite(),
            backward_dx_suite(),
            backward_dwdb_suite(),
            persistent_f32,
            sum_f32,
            row_sums_f32,
            chunked_f32,
            forward_suite_of::<f16>(layer_norm_fwd_fused_f16()),
            backward_dx_suite_of::<f16>(layer_norm_bwd_dx_fused_f16()),
            backward_dwdb_suite_of::<f16>(layer_norm_bwd_dwdb_f16()),
            persistent_f16,
            sum_f16,
            row_sums_f16,
            chunked_f16,
            forward_suite_of::<bf16>(layer_norm_fwd_fused_bf16()),
            backward_dx_suite_of::<bf16>(layer_norm_bwd_dx_fused_bf16()),
            backward_dwdb_suite_of::<bf16>(layer_norm_bwd_dwdb_bf16()),
            persistent_bf16,
            sum_bf16,
            row_sums_bf16,
            chunked_bf16,
        ];
        suites.extend(rows::suites());
        suites
    },
    example,
    bench: bench_points,
};

/// The kernels of the suites above, in the same order, for each dtype: the tutorial's
/// three, the persistent and the chunked backward's two each, then the whole-row forwards.
fn kernels() -> Vec<KernelDef> {
    fn of<T: Element>(tutorial: [KernelDef; 3]) -> Vec<KernelDef> {
        let (dx, dwdb) = persistent::kernels::<T>();
        let (sums, chunked_dx) = chunked::kernels::<T>();
        let mut defs = tutorial.to_vec();
        defs.extend([dx, dwdb, sums, chunked_dx]);
        defs
    }
    let mut defs = of::<f32>([layer_norm_fwd_fused(), layer_norm_bwd_dx_fused(), layer_norm_bwd_dwdb()]);
    defs.extend(of::<f16>([layer_norm_fwd_fused_f16(), layer_norm_bwd_dx_fused_f16(), layer_norm_bwd_dwdb_f16()]));
    defs.extend(of::<bf16>([layer_norm_fwd_fused_bf16(), layer_norm_bwd_dx_fused_bf16(), layer_norm_bwd_dwdb_bf16()]));
    defs.extend(rows::kernels());
    defs
}

/// What `cargo run --example layer_norm [-- --dtype f32|f16|bf16]` runs, in the dtype
/// asked for: the tutorial's forward pass and the whole-row forward the bench runs, then
/// the two kernels of the tutorial's backward pass, in order, then the two kernels of the
/// lock-free persistent backward.
pub fn example() -> Vec<ExampleCase> {
    const FORWARD: &str = "forward: y = (x - mean) * rstd * w + b with rstd = 1 / sqrt(var + eps), one program per \
                           row (5 rows of 1151, BLOCK_SIZE 2048); each row's mean and rstd are stored for the \
                           backward pass";
    const ROWS: &str = "forward as the bench runs it for rows this wide: the whole row in one block, read once \
                        (5 rows of 1151 on one program each, BLOCK_SIZE 2048 on 4 warps, 16 elements a thread), its \
                        mean and centred variance two reductions of that block";
    const DX: &str = "backward, first kernel: dx of every row (10 rows of 1151), and each row's dy * x_hat and dy \
                      added into partial row (row % 4) of dw and db under that partial row's lock";
    const DWDB: &str = "backward, second kernel: the partial rows (256 of 1000 columns) summed into dw and db, \
                        32 x 128 at a time";
    const PERSISTENT: &str = "backward without the lock (what the bench runs for rows up to 4096): dx of 23 rows of \
                              1024 on 5 programs, program p taking rows p, p + 5, ... and keeping its sums of dy * \
                              x_hat and dy in f32, stored at the end as its partial row of dw and db";
    const SUM: &str = "backward without the lock, second kernel: 300 f32 partial rows of 1024 columns summed into dw \
                       and db, 256 x 8 at a time (128 programs, about one per SM of an H200)";
    let steps = |dtype: &'static str, forward: Suite, dx: Suite, dwdb: Suite, [persistent, sum]: [Suite; 2]| {
        let [rows_forward, _] = match dtype {
            "f16" => rows::suites_of::<f16>(layer_norm_fwd_plan::Form::Rows),
            "bf16" => rows::suites_of::<bf16>(layer_norm_fwd_plan::Form::Rows),
            _ => rows::suites_of::<f32>(layer_norm_fwd_plan::Form::Rows),
        };
        [
            ExampleCase::new(dtype, forward, "non_pow2_1151").saying(FORWARD),
            ExampleCase::new(dtype, rows_forward, "non_pow2_1151").saying(ROWS),
            ExampleCase::new(dtype, dx, "non_pow2_1151_group_4").saying(DX),
            ExampleCase::new(dtype, dwdb, "tutorial_256x1000").saying(DWDB),
            ExampleCase::new(dtype, persistent, "rows_of_1024_on_5_programs").saying(PERSISTENT),
            ExampleCase::new(dtype, sum, "planned_300x1024").saying(SUM),
        ]
    };
    let mut cases = Vec::new();
    cases.extend(steps(
        "f32",
        forward_suite(),
        backward_dx_suite(),
        backward_dwdb_suite(),
        persistent::suites_of::<f32>(),
    ));
    cases.extend(steps(
        "f16",
        forward_suite_of::<f16>(layer_norm_fwd_fused_f16()),
        backward_dx_suite_of::<f16>(layer_norm_bwd_dx_fused_f16()),
        backward_dwdb_suite_of::<f16>(layer_norm_bwd_dwdb_f16()),
        persistent::suites_of::<f16>(),
    ));
    cases.extend(steps(
        "bf16",
        forward_suite_of::<bf16>(layer_norm_fwd_fused_bf16()),
        backward_dx_suite_of::<bf16>(layer_norm_bwd_dx_fused_bf16()),
        backward_dwdb_suite_of::<bf16>(layer_norm_bwd_dwdb_bf16()),
        persistent::suites_of::<bf16>(),
    ));
    cases
}

/// The peer script's `layer_norm_fwd` and `layer_norm_bwd` points: its 2-D shapes in f32,
/// f16 and bf16, contiguous. The forward runs as `layer_norm_fwd_plan::plan` says (the
/// whole row in one block, [`rows`]), with the tutorial's kernel at [`fwd_config`] beside
/// it as the variant `tutorial`, and the form the plan did not choose where the choice
/// was close (`rows::other_form`: `staged`, `rows` or `prefetch`); the backward
/// (`layer_norm_bwd`, the dx kernel and the dw/db sum timed together) as
/// `layer_norm_plan::plan` says for the device: the persistent form for rows up to 4096
/// columns, the chunked form for wider ones; the tutorial's lock form is measured too, as
/// the variant `lock` (which the peer script has no row of: the combined table compares
/// the planned form with torch and Triton). Bytes as the script counts them: `x` read and
/// `y` written (forward); `x`, `dy` read and `dx` written (backward, whatever a form
/// rereads). The backward points exist where the tutorial's backward does (rows of at
/// most 64 KB), as in the script.
pub fn bench_points() -> Vec<BenchPoint> {
    let mut out = Vec::new();
    for dtype in DTYPES {
        for (rows, cols) in SHAPES_2D {
            let elements = (rows * cols) as u64;
            let bytes = 2 * elements * elem_bytes(dtype);
            let planned: Launches = match dtype {
                "f32" => Box::new(move |t: Target| vec![rows::planned_launch::<f32>(rows, cols, t.sm_count)]),
                "f16" => Box::new(move |t: Target| vec![rows::planned_launch::<f16>(rows, cols, t.sm_count)]),
                _ => Box::new(move |t: Target| vec![rows::planned_launch::<bf16>(rows, cols, t.sm_count)]),
            };
            let shape = vec![rows, cols];
            out.push(BenchPoint {
                kernel: "layer_norm_fwd",
                variant: "",
                dtype,
                shape,
                bytes,
                flops: 0,
                launches: planned,
            });
            let fwd = layer_norm_fwd_plan::plan(cols, elem_bytes(dtype) as usize, true, H200_SHARED_BYTES);
            if let Some((variant, other)) = rows::other_form(fwd, elem_bytes(dtype) as usize) {
                let launches: Launches = match dtype {
                    "f32" => Box::new(move |t: Target| vec![rows::form_launch::<f32>(other, rows, cols, t.sm_count)]),
                    "f16" => Box::new(move |t: Target| vec![rows::form_launch::<f16>(other, rows, cols, t.sm_count)]),
                    _ => Box::new(move |t: Target| vec![rows::form_launch::<bf16>(other, rows, cols, t.sm_count)]),
                };
                let shape = vec![rows, cols];
                out.push(BenchPoint { kernel: "layer_norm_fwd", variant, dtype, shape, bytes, flops: 0, launches });
            }
            let tutorial: Launches = match dtype {
                "f32" => Box::new(move |_| vec![forward_launch::<f32>(layer_norm_fwd_fused(), rows, cols)]),
                "f16" => Box::new(move |_| vec![forward_launch::<f16>(layer_norm_fwd_fused_f16(), rows, cols)]),
                _ => Box::new(move |_| vec![forward_launch::<bf16>(layer_norm_fwd_fused_bf16(), rows, cols)]),
            };
            let shape = vec![rows, cols];
            out.push(BenchPoint {
                kernel: "layer_norm_fwd",
                variant: "tutorial",
                dtype,
                shape,
                bytes,
                flops: 0,
                launches: tutorial,
            });
            if bwd_config(cols, elem_bytes(dtype) as usize).is_none() {
                continue;
            }
            let planned: Launches = match dtype {
                "f32" => Box::new(move |t: Target| planned_backward::<f32>(rows, cols, t)),
                "f16" => Box::new(move |t: Target| planned_backward::<f16>(rows, cols, t)),
                _ => Box::new(move |t: Target| planned_backward::<bf16>(rows, cols, t)),
            };
            let bytes = 3 * elements * elem_bytes(dtype);
            let shape = vec![rows, cols];
            out.push(BenchPoint {
                kernel: "layer_norm_bwd",
                variant: "",
                dtype,
                shape,
                bytes,
                flops: 0,
                launches: planned,
            });
            let lock: Launches = match dtype {
                "f32" => Box::new(move |_| lock_backward::<f32>(rows, cols)),
                "f16" => Box::new(move |_| lock_backward::<f16>(rows, cols)),
                _ => Box::new(move |_| lock_backward::<bf16>(rows, cols)),
            };
            let shape = vec![rows, cols];
            out.push(BenchPoint {
                kernel: "layer_norm_bwd",
                variant: "lock",
                dtype,
                shape,
                bytes,
                flops: 0,
                launches: lock,
            });
        }
    }
    out
}

/// The backward of a contiguous `rows x cols` input of `T` as `layer_norm_plan::plan`
/// says for `target`.
fn planned_backward<T: Element>(rows: usize, cols: usize, target: Target) -> Vec<(Suite, Case)> {
    let plan = layer_norm_plan::plan(cols, rows, T::SCALAR.size_bytes() as usize, target.sm_count)
        .expect("a layer norm element type");
    match plan.form {
        Form::Persistent => persistent::bench_launches::<T>(rows, cols, plan),
        Form::Chunked => chunked::bench_launches::<T>(rows, cols, plan),
    }
}

/// The tutorial's backward on a contiguous `rows x cols` input of `T`.
fn lock_backward<T: Element>(rows: usize, cols: usize) -> Vec<(Suite, Case)> {
    let defs = match T::SCALAR {
        ScalarType::F16 => (layer_norm_bwd_dx_fused_f16(), layer_norm_bwd_dwdb_f16()),
        ScalarType::BF16 => (layer_norm_bwd_dx_fused_bf16(), layer_norm_bwd_dwdb_bf16()),
        // f32 (the layer norm's other element type)
        _ => (layer_norm_bwd_dx_fused(), layer_norm_bwd_dwdb()),
    };
    backward_launches::<T>(defs, rows, cols)
}

/// The forward on a contiguous `rows x cols` input of `T`, with its suite's rule.
fn forward_launch<T: Element>(def: KernelDef, rows: usize, cols: usize) -> (Suite, Case) {
    let case = forward_case::<T>(
        "bench",
        (rows, cols),
        fwd_config(cols, T::SCALAR.size_bytes() as usize),
        Layout::Contiguous,
        Values::Ordinary,
    );
    (Suite::new(def).reference(forward_reference).rule(forward_rule::<T>()), case)
}

/// The backward's two launches on a contiguous `rows x cols` input of `T`: the dx kernel
/// with the tutorial's `GROUP_SIZE_M` (its rule for that many rows per partial row), and
/// the dw/db sum of that many partial rows in `32 x 128` blocks.
fn backward_launches<T: Element>((dx, dwdb): (KernelDef, KernelDef), rows: usize, cols: usize) -> Vec<(Suite, Case)> {
    let group = rtriton_kernels::ports::layer_norm::group_size_m(cols);
    let config = bwd_config(cols, T::SCALAR.size_bytes() as usize).expect("rows within the tutorial's 64 KB");
    let dx_case = backward_dx_case::<T>("bench", (rows, cols), (group, cols), config, Layout::Contiguous);
    let dx_suite =
        Suite::new(dx).reference(backward_dx_reference).rule(backward_dx_rule_for::<T>(rows.div_ceil(group)));
    let dwdb_case = backward_dwdb_case::<T>("bench", (group.min(rows), cols), (cols, 1), (32, 128, 4));
    let dwdb_suite = Suite::new(dwdb).reference(backward_dwdb_reference).rule(backward_dwdb_rule::<T>());
    vec![(dx_suite, dx_case), (dwdb_suite, dwdb_case)]
}

#[cfg(test)]
mod tests {
    use rtriton_testing::Backend;

    use super::*;
    use crate::ports::bench::Target;

    /// Every case of the kernel `name` in every dtype (`name`, `name_f16`, `name_bf16`), on
    /// the interpreter and the simulator.
    fn check_cpu(name: &str) {
        let names = [name.to_string(), format!("{name}_f16"), format!("{name}_bf16")];
        let suites: Vec<Suite> =
            (PORT.suites)().into_iter().filter(|s| names.iter().any(|n| n == s.def.name)).collect();
        assert_eq!(suites.len(), 3, "{name} in f32, f16 and bf16");
        for s in suites {
            s.check_all(Backend::Interpreter);
            s.check_all(Backend::Simulator);
        }
    }

    /// Rows over 64 KiB in f32 take the wide-row block (16384 on 8 warps): two trips with
    /// a masked tail, on the interpreter and the simulator.
    #[test]
    fn the_forward_of_rows_over_64_kib_passes_on_the_interpreter_and_the_simulator() {
        let config = fwd_config(16500, 4);
        assert_eq!(config, (16384, 8));
        let case = forward_case::<f32>("wide_rows_16500", (2, 16500), config, Layout::Contiguous, Values::Ordinary);
        let suite =
            Suite::new(layer_norm_fwd_fused()).case(case).reference(forward_reference).rule(forward_rule::<f32>());
        suite.check_all(Backend::Interpreter);
        suite.check_all(Backend::Simulator);
    }

    #[test]
    fn the_forward_passes_on_the_interpreter_and_the_simulator() {
        check_cpu("layer_norm_fwd_fused");
    }

    #[test]
    fn the_backward_dx_passes_on_the_interpreter_and_the_simulator() {
        check_cpu("layer_norm_bwd_dx_fused");
    }

    #[test]
    fn the_dw_db_sum_passes_on_the_interpreter_and_the_simulator() {
        check_cpu("layer_norm_bwd_dwdb");
    }

    /// The forward's tolerance is loose enough for the interpreter's longest sums (see
    /// `docs/semantics.md`) and still tells the tutorial's definition from near misses: a
    /// ten times larger `eps`, and the unbiased variance (`n - 1`), each move some output
    /// of some case outside the rule.
    #[test]
    fn the_forward_tolerance_tells_near_misses_apart() {
        let suite = forward_suite();
        let outside = |eps: f64, ddof: f64| {
            suite.cases.iter().any(|c| {
                let (mut right, mut wrong) = (c.clone(), c.clone());
                forward_reference(&mut right);
                forward_reference_with(&mut wrong, eps, ddof);
                right
                    .tensors()
                    .zip(wrong.tensors())
                    .any(|(a, b)| rtriton_testing::compare::differences(&a.data, &b.data, &suite.rule, 1).1 > 0)
            })
        };
        assert!(!outside(f64::from(EPS), 0.0));
        assert!(outside(10.0 * f64::from(EPS), 0.0), "eps x 10 passes the rule");
        assert!(outside(f64::from(EPS), 1.0), "the unbiased variance passes the rule");
    }

    /// Every peer-script shape has a forward point in every dtype, and a backward point
    /// where the tutorial's backward takes the row (f32 rows of 32768 are past its 64 KB);
    /// a backward point is the dx kernel and the dw/db sum over its partial rows, of the
    /// planned form; where that is the persistent form (rows up to 4096), the tutorial's
    /// lock form is a second point, the variant `lock`.
    #[test]
    fn the_bench_points_follow_the_peer_script_and_the_plan() {
        let points = bench_points();
        let count = |k: &str, v: &str| points.iter().filter(|p| p.kernel == k && p.variant == v).count();
        assert_eq!(
            (count("layer_norm_fwd", ""), count("layer_norm_bwd", ""), count("layer_norm_bwd", "lock")),
            (15, 14, 14)
        );
        // The tutorial's forward beside every planned one; the staged form beside the
        // register prefetch on rows of 16384; one program per row beside the 16-bit rows
        // of 4096 planned persistent, and the reverse for f32.
        let variants = ["tutorial", "staged", "rows", "prefetch"].map(|v| count("layer_norm_fwd", v));
        assert_eq!(variants, [15, 3, 2, 1]);
        let fwd = |dtype: &str, shape: [usize; 2], variant: &str| {
            let p = points
                .iter()
                .find(|p| p.kernel == "layer_norm_fwd" && p.dtype == dtype && p.shape == shape && p.variant == variant)
                .unwrap_or_else(|| panic!("no forward point {dtype} {shape:?} {variant:?}"));
            let launches = (p.launches)(Target::H200);
            assert_eq!(launches.len(), 1);
            let (suite, case) = &launches[0];
            assert!(case.check().is_ok());
            (suite.def.name, case.grid[0], case.num_warps)
        };
        assert_eq!(fwd("f32", [4096, 1024], ""), ("layer_norm_fwd_rows_f32", 4096, 2));
        assert_eq!(fwd("f32", [4096, 1024], "tutorial"), ("layer_norm_fwd_fused", 4096, 4));
        assert_eq!(fwd("f16", [4096, 16384], ""), ("layer_norm_fwd_prefetch_registers_f16", 132, 16));
        assert_eq!(fwd("f16", [4096, 16384], "staged"), ("layer_norm_fwd_prefetch_staged_f16", 132, 16));
        assert_eq!(fwd("bf16", [4096, 4096], ""), ("layer_norm_fwd_prefetch_registers_bf16", 4 * 132, 8));
        assert_eq!(fwd("bf16", [4096, 4096], "rows"), ("layer_norm_fwd_rows_bf16", 4096, 8));
        assert_eq!(fwd("f32", [4096, 4096], ""), ("layer_norm_fwd_rows_f32", 4096, 8));
        assert_eq!(fwd("f32", [4096, 4096], "prefetch"), ("layer_norm_fwd_prefetch_registers_f32", 4 * 132, 8));
        let point = |dtype: &str, shape: [usize; 2], variant: &str| {
            points
                .iter()
                .find(|p| p.kernel == "layer_norm_bwd" && p.dtype == dtype && p.shape == shape && p.variant == variant)
                .unwrap_or_else(|| panic!("no backward point {dtype} {shape:?} {variant:?}"))
        };
        let names = |launches: &[(Suite, Case)]| launches.iter().map(|(s, _)| s.def.name).collect::<Vec<_>>();

        // The planned form for rows of 1024 bf16: 7 CTAs of 72 registers per SM.
        let bwd = point("bf16", [4096, 1024], "");
        assert_eq!(bwd.bytes, 3 * 4096 * 1024 * 2);
        assert_eq!(bwd.label(), "layer_norm_bwd bf16 4096x1024");
        let launches = (bwd.launches)(Target::H200);
        assert_eq!(names(&launches), ["layer_norm_bwd_dx_persistent", "layer_norm_bwd_dwdb_from_f32"]);
        let (dx, sum) = (&launches[0].1, &launches[1].1);
        assert_eq!((dx.grid, dx.num_warps), ([7 * 132, 1, 1], 4));
        assert_eq!(dx.tensor("dw").view.shape, [7 * 132, 1024]);
        assert_eq!((sum.tensor("dw").view.shape.clone(), sum.grid), (vec![7 * 132, 1024], [128, 1, 1]));
        assert!(dx.check().is_ok() && sum.check().is_ok());
        let on_100 = (bwd.launches)(Target { sm_count: 100 });
        assert_eq!(on_100[0].1.grid, [700, 1, 1], "as many programs as the measured device holds");

        // The tutorial's lock form on the same point.
        let lock = point("bf16", [4096, 1024], "lock");
        assert_eq!(lock.label(), "layer_norm_bwd (lock) bf16 4096x1024");
        let launches = (lock.launches)(Target::H200);
        assert_eq!(names(&launches), ["layer_norm_bwd_dx_fused_bf16", "layer_norm_bwd_dwdb_bf16"]);
        let (dx, dwdb) = (&launches[0].1, &launches[1].1);
        assert_eq!(dx.tensor("dw").view.shape, [256, 1024]);
        assert_eq!(dwdb.tensor("dw").view.shape, [256, 1024]);
        assert_eq!(dwdb.grid, [8, 1, 1]);
        assert!(dx.check().is_ok() && dwdb.check().is_ok());

        // Past 4096 columns the plan runs the chunked form (`chunked::tests` checks its
        // launches on fewer rows: building these inputs takes minutes in a debug build),
        // with the lock form beside it.
        assert_eq!(layer_norm_plan::plan(32768, 2048, 2, 132).map(|p| p.form), Some(Form::Chunked));
        point("f16", [2048, 32768], "");
        point("f16", [2048, 32768], "lock");
        assert!(!points.iter().any(|p| p.kernel == "layer_norm_bwd" && p.dtype == "f32" && p.shape == [2048, 32768]));
    }
}
