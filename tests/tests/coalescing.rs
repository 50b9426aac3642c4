//! Coalescing by contiguity (the back end's `coalesce.rs`, Triton's Coalesce pass): the
//! kernel layout's fastest dim follows the loads' contiguity, so a tile of a transposed
//! view is read down its columns with 128-bit accesses.
//!
//! One tile-copy kernel with its own strides for `x` and `y` covers the access patterns
//! (rows or columns contiguous, a transposed copy either way, strided, misaligned, masked).
//! For each, a table says which layout the back end must choose and what that gives: the
//! vector width of the load and the store, and how many of the bytes of the 32-byte
//! sectors each warp touches are bytes it asked for (the simulator counts the sectors per
//! warp-wide access: `sim::sectors`). Every case also runs through the harness on the
//! interpreter, the simulator (bit for bit) and the GPU (ignored here), and its PTX is
//! assembled by ptxas for sm_86 and sm_90 without spills.

mod ptx_common;

use rtriton::backend::ptx::{AccessKind, Arch, Decisions, PtxOptions};
use rtriton::interp::Memory;
use rtriton::kernel;
use rtriton::prelude::*;
use rtriton::session::CompileSession;
use rtriton::sim::{self, SimReport};
use rtriton::spec::SpecPolicy;
use rtriton::trace::{KernelDef, TraceOptions};
use rtriton_kernels::RowMaxVariant;
use rtriton_testing::fill::special_f32;
use rtriton_testing::run::place;
use rtriton_testing::{Case, Rule, Suite, View};

kernel! {
    /// y[r, c] = x[r, c] over an n_rows x n_cols view, one BLOCK_M x BLOCK_N tile per
    /// program; x and y have their own strides, the edges are masked.
    fn tile_copy(x_ptr: Ptr<f32>, y_ptr: Ptr<f32>, n_rows: i32, n_cols: i32, sxr: i32, sxc: i32, syr: i32, syc: i32;
                 const BLOCK_M: usize, const BLOCK_N: usize) {
        let rows = (program_id(0) * BLOCK_M as i32 + arange(0, BLOCK_M)).expand_dims(1);
        let cols = (program_id(1) * BLOCK_N as i32 + arange(0, BLOCK_N)).expand_dims(0);
        let mask = rows.lt(n_rows) & cols.lt(n_cols);
        let x = load(x_ptr + rows * sxr + cols * sxc, Some(mask), None);
        store(y_ptr + rows * syr + cols * syc, x, Some(mask));
    }
}

/// How a tensor of the table lies in its buffer.
#[derive(Clone, Copy, Debug)]
enum Lay {
    /// Row-major `rows x cols`.
    Rows,
    /// The transpose of a row-major `cols x rows` buffer: `stride_row = 1`.
    Cols,
    /// Every other column of a row-major `rows x 2*cols` buffer.
    EveryOtherColumn,
}

/// The buffer of a `rows x cols` view laid out as `lay` (`rows_in_buffer` rows for `Cols`,
/// so a view can be narrower than its buffer), moved `offset` elements in.
fn view(lay: Lay, rows: usize, cols: usize, rows_in_buffer: usize, offset: usize) -> (usize, View) {
    let (len, strides) = match lay {
        Lay::Rows => (rows * cols, [cols as isize, 1]),
        Lay::Cols => (rows_in_buffer * cols, [1, rows_in_buffer as isize]),
        Lay::EveryOtherColumn => (rows * 2 * cols, [2 * cols as isize, 2]),
    };
    (len + offset, View::strided(&[rows, cols], &strides).with_offset(offset))
}

/// One access pattern and what the back end must make of it (4 warps, 32 x 32 tiles).
struct Pattern {
    name: &'static str,
    x: Lay,
    y: Lay,
    /// The view's rows (its buffer has 64 for `Cols`: a narrower view masks rows).
    rows: usize,
    x_offset: usize,
    order: [usize; 2],
    size_per_thread: [usize; 2],
    load_width: u32,
    store_width: u32,
    /// `100 * bytes asked for / (32 * sectors touched)`, rounded down, over the launch.
    load_efficiency: u64,
    store_efficiency: u64,
}

/// The table. Efficiencies: a warp reading `k` aligned consecutive bytes touches `k / 32`
/// sectors (100); a store against the layout (the lanes' 4 registers run along the other
/// dim) writes 4 neighbours per sector from 4 lanes, 8 sectors for 128 bytes (50); 4 bytes
/// every 8 also touch 8 sectors for 128 bytes (50); 128 consecutive bytes 4 bytes past a
/// sector boundary touch 5 (80); in a 62-row view the second row block's 30 rows use 120 of
/// the 128 bytes of their 4 sectors (half the requests: 96).
const PATTERNS: &[Pattern] = &[
    pat("rows_to_rows", Lay::Rows, Lay::Rows, 64, 0, [1, 0], [1, 4], (4, 4), (100, 100)),
    pat("cols_to_cols", Lay::Cols, Lay::Cols, 64, 0, [0, 1], [4, 1], (4, 4), (100, 100)),
    // A transposing copy: the load decides, the store strides (one layout per kernel).
    pat("cols_to_rows", Lay::Cols, Lay::Rows, 64, 0, [0, 1], [4, 1], (4, 1), (100, 50)),
    pat("rows_to_cols", Lay::Rows, Lay::Cols, 64, 0, [1, 0], [1, 4], (4, 1), (100, 50)),
    // No contiguous dim to read along: the default order, scalar accesses.
    pat("every_other_column", Lay::EveryOtherColumn, Lay::Rows, 64, 0, [1, 0], [1, 1], (1, 1), (50, 100)),
    // One element past an aligned base: no vectors, but the lanes still read along dim 0.
    pat("cols_misaligned", Lay::Cols, Lay::Cols, 64, 1, [0, 1], [1, 1], (1, 1), (80, 100)),
    // 62 rows (no divisibility hint): the row mask may change at any row, so scalar
    // accesses, still along dim 0.
    pat("cols_62_rows", Lay::Cols, Lay::Cols, 62, 0, [0, 1], [1, 1], (1, 1), (96, 96)),
];

#[allow(clippy::too_many_arguments, reason = "one table row, named at the call")]
const fn pat(
    name: &'static str,
    x: Lay,
    y: Lay,
    rows: usize,
    x_offset: usize,
    order: [usize; 2],
    size_per_thread: [usize; 2],
    (load_width, store_width): (u32, u32),
    (load_efficiency, store_efficiency): (u64, u64),
) -> Pattern {
    Pattern {
        name,
        x,
        y,
        rows,
        x_offset,
        order,
        size_per_thread,
        load_width,
        store_width,
        load_efficiency,
        store_efficiency,
    }
}

const COLS: usize = 64;
const BUFFER_ROWS: usize = 64;
const BLOCK: usize = 32;

fn pattern(name: &str) -> &'static Pattern {
    PATTERNS.iter().find(|p| p.name == name).unwrap_or_else(|| panic!("no pattern `{name}`"))
}

fn tile_copy_case(p: &Pattern) -> Case {
    let (x_len, xv) = view(p.x, p.rows, COLS, BUFFER_ROWS, p.x_offset);
    let (y_len, yv) = view(p.y, p.rows, COLS, BUFFER_ROWS, 0);
    let (xs, ys) = (xv.strides.clone(), yv.strides.clone());
    Case::new(p.name)
        .input("x", special_f32(x_len), xv)
        .output("y", vec![0.0f32; y_len], yv)
        .int(p.rows as i64)
        .int(COLS as i64)
        .int(xs[0] as i64)
        .int(xs[1] as i64)
        .int(ys[0] as i64)
        .int(ys[1] as i64)
        .constexpr("BLOCK_M", BLOCK as i64)
        .constexpr("BLOCK_N", BLOCK as i64)
        .num_warps(4)
        .grid([p.rows.div_ceil(BLOCK) as u32, COLS.div_ceil(BLOCK) as u32, 1])
}

fn tile_copy_suite() -> Suite {
    Suite::new(tile_copy())
        .cases(PATTERNS.iter().map(tile_copy_case))
        .reference(|c| {
            let [rows, cols] = [c.tensor("x").view.shape[0], c.tensor("x").view.shape[1]];
            for r in 0..rows {
                for col in 0..cols {
                    let v = c.tensor("x").f32_at(&[r, col]);
                    c.tensor_mut("y").set_f32(&[r, col], v);
                }
            }
        })
        .rule(Rule::BITS)
}

rtriton_testing::backend_tests!(tile_copy_suite => [
    rows_to_rows, cols_to_cols, cols_to_rows, rows_to_cols, every_other_column, cols_misaligned, cols_62_rows,
]);

/// `case` lowered under `policy` and run on the simulator: what the back end decided and
/// what the launch's accesses touched.
fn lower_and_run(def: &KernelDef, case: &Case, policy: SpecPolicy) -> (Decisions, SimReport, String) {
    let mut mem = Memory::new();
    let placed = place(&mut mem, case).expect("places");
    let mut session = CompileSession::new();
    let spec = CompileSession::specialize(def, &placed.args, policy).expect("specializes");
    let options = PtxOptions { num_warps: case.num_warps, ..PtxOptions::default() };
    let program = session
        .lower(def, &case.constexprs, &spec, &TraceOptions::default(), &options)
        .unwrap_or_else(|e| panic!("{}: {e}", case.name));
    let report = sim::run(&program, case.grid, &placed.args, &mut mem).unwrap_or_else(|e| panic!("{}: {e}", case.name));
    let text = rtriton::backend::ptx::write(&program);
    (program.decisions.clone(), report, text)
}

fn efficiency(bytes: u64, sectors: u64) -> u64 {
    100 * bytes / (32 * sectors.max(1))
}

fn widths(d: &Decisions, kind: AccessKind) -> Vec<u32> {
    d.accesses.iter().filter(|a| a.kind == kind).map(|a| a.vector_width).collect()
}

#[test]
fn each_access_pattern_gets_its_coalesced_layout() {
    for p in PATTERNS {
        let (d, report, _) = lower_and_run(&tile_copy(), &tile_copy_case(p), SpecPolicy::Triton);
        let layout = d.layout.as_ref().expect("a layout decision");
        let got = (
            layout.order.clone(),
            layout.size_per_thread.clone(),
            widths(&d, AccessKind::Load),
            widths(&d, AccessKind::Store),
            efficiency(report.global_load_bytes, report.global_load_sectors),
            efficiency(report.global_store_bytes, report.global_store_sectors),
        );
        let want = (
            p.order.to_vec(),
            p.size_per_thread.to_vec(),
            vec![p.load_width],
            vec![p.store_width],
            p.load_efficiency,
            p.store_efficiency,
        );
        assert_eq!(got, want, "{}: {}", p.name, layout.reason);
    }
}

/// Without specialization no argument is the constant 1, so nothing is provably contiguous:
/// the default order and scalar accesses, and the transposed tile reads a sector per
/// element (Triton's reason to specialize an argument equal to 1).
#[test]
fn unspecialized_strides_prove_no_contiguity() {
    let p = pattern("cols_to_cols");
    let (d, report, _) = lower_and_run(&tile_copy(), &tile_copy_case(p), SpecPolicy::Off);
    let layout = d.layout.as_ref().unwrap();
    assert_eq!(layout.order, vec![1, 0], "{}", layout.reason);
    assert!(layout.reason.contains("(the default): no load or store"), "{}", layout.reason);
    assert_eq!(widths(&d, AccessKind::Load), vec![1]);
    assert_eq!(efficiency(report.global_load_bytes, report.global_load_sectors), 12);
    assert_eq!(efficiency(report.global_store_bytes, report.global_store_sectors), 12);
}

#[test]
fn the_reason_names_the_deciding_access_and_the_losers() {
    let (d, _, _) = lower_and_run(&tile_copy(), &tile_copy_case(pattern("cols_to_cols")), SpecPolicy::Triton);
    let reason = &d.layout.unwrap().reason;
    assert!(reason.starts_with("dim 0 fastest: the load at tests/tests/coalescing.rs:"), "{reason}");
    assert!(reason.contains("is contiguous along it (contiguity [32, 1])"), "{reason}");
    assert!(
        reason.ends_with("4 element(s) per thread along dim 0: the widest vector a load proves (at most 16 bytes)")
    );
    // The store of a transposing copy prefers the other order; loads decide.
    let (d, _, _) = lower_and_run(&tile_copy(), &tile_copy_case(pattern("cols_to_rows")), SpecPolicy::Triton);
    let reason = &d.layout.unwrap().reason;
    assert!(reason.starts_with("dim 0 fastest: the load at"), "{reason}");
    assert!(
        reason.contains(
            "; the store at tests/tests/coalescing.rs:38 prefers order [1, 0] (one layout per kernel: not coalesced;"
        ),
        "{reason}"
    );
}

/// The transposed row max of the row-max targets: `row_max_2d` on a 64 x 256 view of a row-major 256 x 64
/// buffer. The layout runs down the columns, loads and the store of the row maxima are
/// 128-bit and use every byte of their sectors, and the reduction over the strided dim 1
/// needs no layout conversion. Unspecialized, the same launch reads 8 bytes per sector
/// (the default order puts 16 lanes along the strided dim, 2 along the rows).
#[test]
fn transposed_row_max_reads_whole_sectors() {
    let def = RowMaxVariant::RowMax2d.def();
    let (rows, cols) = (64, 256);
    let x = special_f32(rows * cols);
    let case = Case::new("transposed_row_max")
        .input("x", x, View::strided(&[rows, cols], &[1, rows as isize]))
        .output("y", vec![0.0f32; rows], View::contiguous(&[rows]))
        .int(rows as i64)
        .int(cols as i64)
        .int(1)
        .int(rows as i64)
        .constexpr("BLOCK_M", 64)
        .constexpr("BLOCK_N", 16)
        .num_warps(4)
        .grid([1, 1, 1]);
    let (d, report, text) = lower_and_run(&def, &case, SpecPolicy::Triton);
    assert_eq!(d.layout.as_ref().unwrap().order, vec![0, 1]);
    assert_eq!((widths(&d, AccessKind::Load), widths(&d, AccessKind::Store)), (vec![4], vec![4]));
    assert!(text.contains("ld.global.v4.f32") && text.contains("st.global.v4.f32"));
    assert_eq!(efficiency(report.global_load_bytes, report.global_load_sectors), 100);
    assert_eq!(efficiency(report.global_store_bytes, report.global_store_sectors), 100);
    assert!(d.conversions.is_empty(), "{:?}", d.conversions);
    let r = &d.reductions[0];
    assert!(r.uses_shuffles, "{}", r.reason);
    let (_, plain, _) = lower_and_run(&def, &case, SpecPolicy::Off);
    assert_eq!(efficiency(plain.global_load_bytes, plain.global_load_sectors), 25);
    // The results are the row maxima (bit for bit), whichever layout read them.
    let suite = Suite::new(def).case(case).reference(|c| {
        let [rows, cols] = [c.tensor("x").view.shape[0], c.tensor("x").view.shape[1]];
        for r in 0..rows {
            let row: Vec<f32> = (0..cols).map(|col| c.tensor("x").f32_at(&[r, col])).collect();
            let m = rtriton_kernels::cpu_row_max(&row, 0, 1, cols, cols as isize, 1, false)[0];
            c.tensor_mut("y").set_f32(&[r], m);
        }
    });
    suite.check("transposed_row_max", rtriton_testing::Backend::Interpreter);
    suite.check("transposed_row_max", rtriton_testing::Backend::Simulator);
}

/// Every pattern's PTX, and the transposed row max's for tiles up to 64 x 64, assembles for
/// sm_86 and sm_90 without spills.
#[test]
#[cfg_attr(not(has_ptxas), ignore = "needs ptxas on PATH")]
fn patterns_assemble_without_spills() {
    let ptxas = ptx_common::ptxas("patterns_assemble_without_spills");
    let mut programs: Vec<(String, String)> = PATTERNS
        .iter()
        .map(|p| (p.name.to_string(), lower_and_run(&tile_copy(), &tile_copy_case(p), SpecPolicy::Triton).2))
        .collect();
    for (bm, bn, warps) in [(64, 16, 4), (64, 64, 4), (128, 32, 8), (16, 64, 4)] {
        let def = RowMaxVariant::RowMax2d.def();
        let p = ptx_common::compile_def(
            &def,
            &[("BLOCK_M", bm), ("BLOCK_N", bn)],
            &rtriton_tests::transposed_args(),
            SpecPolicy::Triton,
            &ptx_common::options(Arch::Sm86, warps),
        )
        .expect("compiles");
        assert!(p.text.contains("ld.global.v4.f32"), "row_max_2d {bm}x{bn}");
        programs.push((format!("row_max_2d_t_{bm}x{bn}_w{warps}"), p.text));
    }
    for (name, text) in programs {
        for arch in [Arch::Sm86, Arch::Sm90] {
            let text = text.replace(".target sm_86", &format!(".target {arch}"));
            let info = ptx_common::assemble(&ptxas, &text, arch.name(), &name)
                .unwrap_or_else(|e| panic!("{name} for {arch}: {e}\n{text}"));
            assert_eq!(ptx_common::spill_stores(&info), Some(0), "{name} for {arch}: {info}");
        }
    }
}

kernel! {
    /// y[r, c] = r - c over a BLOCK_M x BLOCK_N tile: no load, so the store decides.
    fn tile_fill(y_ptr: Ptr<f32>, n_rows: i32, n_cols: i32, syr: i32, syc: i32; const BLOCK_M: usize, const BLOCK_N: usize) {
        let rows = (program_id(0) * BLOCK_M as i32 + arange(0, BLOCK_M)).expand_dims(1);
        let cols = (program_id(1) * BLOCK_N as i32 + arange(0, BLOCK_N)).expand_dims(0);
        let mask = rows.lt(n_rows) & cols.lt(n_cols);
        store(y_ptr + rows * syr + cols * syc, (rows - cols).to::<f32>(), Some(mask));
    }
}

/// A kernel without loads: its store into a transposed view decides the order and the
/// vector width, and writes whole sectors.
#[test]
fn without_loads_the_store_decides() {
    let (rows, cols) = (64usize, 64usize);
    let case = Case::new("fill_transposed")
        .output("y", vec![0.0f32; rows * cols], View::strided(&[rows, cols], &[1, rows as isize]))
        .int(rows as i64)
        .int(cols as i64)
        .int(1)
        .int(rows as i64)
        .constexpr("BLOCK_M", 32)
        .constexpr("BLOCK_N", 32)
        .num_warps(4)
        .grid([2, 2, 1]);
    let (d, report, _) = lower_and_run(&tile_fill(), &case, SpecPolicy::Triton);
    let layout = d.layout.as_ref().unwrap();
    assert_eq!((layout.order.clone(), layout.size_per_thread.clone()), (vec![0, 1], vec![4, 1]), "{}", layout.reason);
    assert!(layout.reason.starts_with("dim 0 fastest: the store at"), "{}", layout.reason);
    assert!(layout.reason.ends_with("the widest vector a store proves (at most 16 bytes)"), "{}", layout.reason);
    assert_eq!(widths(&d, AccessKind::Store), vec![4]);
    assert_eq!(efficiency(report.global_store_bytes, report.global_store_sectors), 100);
    let suite = Suite::new(tile_fill()).case(case).reference(|c| {
        for r in 0..64 {
            for col in 0..64 {
                c.tensor_mut("y").set_f32(&[r, col], r as f32 - col as f32);
            }
        }
    });
    suite.check("fill_transposed", rtriton_testing::Backend::Interpreter);
    suite.check("fill_transposed", rtriton_testing::Backend::Simulator);
}

kernel! {
    /// The shapes of a matmul's operand tiles: `a` is `BM x BK`, `b` is `BK x BN` (wider), and
    /// `y = a[:, :BK] * 2` beside `z = b * 3`, so both loads are full tiles of the block.
    fn two_widths(a_ptr: Ptr<half::f16>, b_ptr: Ptr<half::f16>, y_ptr: Ptr<half::f16>, z_ptr: Ptr<half::f16>;
                  const BM: usize, const BK: usize, const BN: usize) {
        let am = arange(0, BM).expand_dims(1);
        let ak = arange(0, BK).expand_dims(0);
        let bk = arange(0, BK).expand_dims(1);
        let bn = arange(0, BN).expand_dims(0);
        let a = load(a_ptr + am * BK as i32 + ak, None, None);
        let b = load(b_ptr + bk * BN as i32 + bn, None, None);
        store(y_ptr + am * BK as i32 + ak, (a.to::<f32>() * 2.0).to::<half::f16>(), None);
        store(z_ptr + bk * BN as i32 + bn, (b.to::<f32>() * 3.0).to::<half::f16>(), None);
    }
}

/// Loads of two widths along the fastest dim (a matmul's `128 x 64` A tile beside its
/// `64 x 128` B tile): the lanes along that dim cover the narrower one, so no lane of its
/// load repeats another's elements (16 lanes would cover 128 columns and load each A
/// element twice); every load still reads whole sectors, and the results are exact.
#[test]
fn the_narrower_of_two_full_loads_sets_the_lanes_along_the_fastest_dim() {
    use half::f16;
    let (bm, bk, bn) = (128usize, 64usize, 128usize);
    let a: Vec<f16> = (0..bm * bk).map(|i| f16::from_f32((i % 97) as f32 - 48.0)).collect();
    let b: Vec<f16> = (0..bk * bn).map(|i| f16::from_f32((i % 89) as f32 / 4.0)).collect();
    let y: Vec<f16> = a.iter().map(|v| f16::from_f32(v.to_f32() * 2.0)).collect();
    let z: Vec<f16> = b.iter().map(|v| f16::from_f32(v.to_f32() * 3.0)).collect();
    let case = Case::new("two_widths")
        .input("a_ptr", a, View::contiguous(&[bm, bk]))
        .input("b_ptr", b, View::contiguous(&[bk, bn]))
        .output("y_ptr", vec![f16::ZERO; bm * bk], View::contiguous(&[bm, bk]))
        .output("z_ptr", vec![f16::ZERO; bk * bn], View::contiguous(&[bk, bn]))
        .constexpr("BM", bm as i64)
        .constexpr("BK", bk as i64)
        .constexpr("BN", bn as i64)
        .num_warps(4);
    let (d, report, _) = lower_and_run(&two_widths(), &case, SpecPolicy::Triton);
    let layout = d.layout.clone().unwrap();
    assert!(layout.blocked.contains("tpw=[4, 8]"), "{}", layout.blocked);
    assert!(
        layout.reason.contains("lanes along dim 1 cover 64 elements, the width of the load at"),
        "{}",
        layout.reason
    );
    assert_eq!(widths(&d, AccessKind::Load), [8, 8]);
    // Each element loaded once (a lane repeating another's elements loads them again),
    // in whole sectors.
    assert_eq!(report.global_load_bytes, 2 * (bm * bk + bk * bn) as u64);
    assert_eq!(efficiency(report.global_load_bytes, report.global_load_sectors), 100);
    let suite = Suite::new(two_widths()).case(case.clone()).rule(Rule::BITS).reference(move |c| {
        let (yv, zv) = (y.clone(), z.clone());
        for (i, v) in yv.into_iter().enumerate() {
            c.tensor_mut("y_ptr").set(&[i / bk, i % bk], v);
        }
        for (i, v) in zv.into_iter().enumerate() {
            c.tensor_mut("z_ptr").set(&[i / bn, i % bn], v);
        }
    });
    suite.check("two_widths", rtriton_testing::Backend::Interpreter);
    suite.check("two_widths", rtriton_testing::Backend::Simulator);
}
