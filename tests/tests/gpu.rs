//! GPU suite: the row-max family on the device against the CUDA C reference (bit for bit)
//! and the CPU, over the shared shape matrix, plus the launch API's checks and caches.
//!
//! The kernels run on the device through `rtriton-testing` (the harness users get). Every
//! test that needs the device is `#[ignore = "needs a GPU"]`, so `cargo test` lists it as
//! ignored instead of counting a skip as a pass; the GPU recipe runs them with
//! `cargo test -p rtriton-tests --test gpu -- --include-ignored` (see bench/results/ for
//! runs on the H200). Asked for without a GPU, such a test fails.

use rstest::rstest;
use rstest_reuse::apply;
use rtriton::spec::{SpecError, SpecPolicy};
use rtriton::trace::KernelDef;
use rtriton_host::HostError;
use rtriton_host::cache::DiskCache;
use rtriton_host::driver::{DeviceBuffer, Gpu};
use rtriton_host::launch::{Arg, JitKernel, LaunchError, Runtime, TensorArg};
use rtriton_host::reference::RowMaxReference;
use rtriton_host::validate::{ValidateOptions, compare_bits, launch_shape, render_tables, run_gpu};
use rtriton_kernels::RowMaxVariant;
use rtriton_kernels::cases::{RowMaxCase, SHAPE_MATRIX};
use rtriton_testing::{Backend, Suite};
use rtriton_tests::tables::{every_case, every_variant_and_case};
use rtriton_tests::{case, kernels, row_max_suite};

/// The GPU. Its callers are ignored tests that run only when asked for, so a missing GPU
/// is a failure here, never a skip.
fn gpu() -> Gpu {
    Gpu::open(0).unwrap_or_else(|e| panic!("this test needs a GPU (run it on the GPU machine): {e}"))
}

/// Runs `variants` (both specializations) on one case through `validate` and asserts
/// every row is bit-identical to the reference and the CPU (the reference itself is
/// always checked against the CPU).
fn check_case(name: &str, variants: &[RowMaxVariant]) {
    let options = ValidateOptions {
        variants: variants.to_vec(),
        cases: vec![case(name)],
        policies: vec![SpecPolicy::Triton, SpecPolicy::Off],
        progress: false,
        ..Default::default()
    };
    let report = run_gpu(&options).expect("the GPU run starts");
    println!("{}\n{}", report.heading(), render_tables(&report.results));
    assert!(report.ok(), "{}", report.summary());
    assert!(report.passed > 0, "nothing ran: {}", report.summary());
}

#[apply(every_case)]
#[ignore = "needs a GPU"]
fn cuda_reference_matches_the_cpu(name: &str) {
    check_case(name, &[]);
}

/// The harness suite of `def` (launched as `shaped_like`) on `cases`, each case with the
/// number of warps `validate` launches it with.
fn gpu_suite(def: KernelDef, shaped_like: RowMaxVariant, cases: &[RowMaxCase], propagate_nan: bool) -> Suite {
    let mut suite = row_max_suite(def, shaped_like, cases, propagate_nan);
    for (c, r) in suite.cases.iter_mut().zip(cases) {
        c.num_warps = launch_shape(shaped_like, r).num_warps;
    }
    suite
}

/// Every variant on the device through the harness, both specializations, bit for bit
/// against `cpu_row_max` and the interpreter; with `cuda_reference_matches_the_cpu`, bit for
/// bit against the CUDA reference too.
#[apply(every_variant_and_case)]
#[ignore = "needs a GPU"]
fn variant_matches_the_reference(variant: RowMaxVariant, name: &str) {
    gpu_suite(variant.def(), variant, &[case(name)], false).check(name, Backend::Gpu);
}

fn row_max_kernel(n_rows: usize, n_cols: usize) -> JitKernel {
    let v = RowMaxVariant::RowMax;
    JitKernel::new(v.def()).constexprs(&v.constexprs_for(n_rows, n_cols)).grid(move |_| [n_rows as u64, 1, 1])
}

fn row_max_args<'a>(x: TensorArg<'a>, y: TensorArg<'a>, n_rows: usize, n_cols: usize) -> Vec<Arg<'a>> {
    let s = x.strides.clone();
    vec![
        x.into(),
        y.into(),
        Arg::Int(n_rows as i64),
        Arg::Int(n_cols as i64),
        Arg::Int(s[0] as i64),
        Arg::Int(s[1] as i64),
    ]
}

fn launch_error<T: std::fmt::Debug>(r: Result<T, HostError>) -> LaunchError {
    match r {
        Err(HostError::Launch(e)) => e,
        other => panic!("expected a launch error, got {other:?}"),
    }
}

#[test]
#[ignore = "needs a GPU"]
fn launch_checks_refuse_bad_arguments_before_the_driver() {
    let gpu = gpu();
    let x = DeviceBuffer::from_host(&gpu, &[1.0f32; 32]).unwrap();
    let y = DeviceBuffer::<f32>::zeros(&gpu, 4).unwrap();
    let other = Gpu::open(0).unwrap();
    let foreign = DeviceBuffer::from_host(&other, &[1.0f32; 32]).unwrap();
    let mut rt = Runtime::with_disk_cache(gpu, None);
    let k = row_max_kernel(4, 8);
    let xv = || TensorArg::contiguous(&x, &[4, 8]);
    let yv = || TensorArg::contiguous(&y, &[4]);

    let e = launch_error(rt.launch(&k, &row_max_args(xv(), yv(), 4, 8)[..5]));
    assert!(matches!(e, LaunchError::Spec(SpecError::ArgCount { expected: 6, got: 5, .. })), "{e}");
    let mut wrong = row_max_args(xv(), yv(), 4, 8);
    wrong[2] = Arg::F32(4.0);
    assert!(matches!(launch_error(rt.launch(&k, &wrong)), LaunchError::Spec(SpecError::ArgType { .. })));
    let e = launch_error(rt.launch(&k, &row_max_args(TensorArg::contiguous(&foreign, &[4, 8]), yv(), 4, 8)));
    assert!(matches!(e, LaunchError::ForeignPointer { .. }), "{e}");
    assert!(e.to_string().starts_with("kernel `row_max`"), "{e}");
    let e = launch_error(rt.launch(&k, &row_max_args(xv().with_offset(3), yv(), 4, 8)));
    assert!(matches!(e, LaunchError::ViewOutOfBounds { .. }), "{e}");
    let zero = row_max_kernel(4, 8).grid(|_| [0, 1, 1]);
    assert!(matches!(launch_error(rt.launch(&zero, &row_max_args(xv(), yv(), 4, 8))), LaunchError::GridZero { .. }));
    let too_big = row_max_kernel(4, 8).grid(|_| [1, 1 << 20, 1]);
    let e = launch_error(rt.launch(&too_big, &row_max_args(xv(), yv(), 4, 8)));
    assert!(matches!(e, LaunchError::GridTooLarge { .. }), "{e}");
    assert_eq!(rt.stats.compiles, 0, "nothing is compiled for refused launches");
}

#[test]
#[ignore = "needs a GPU"]
fn kernels_are_cached_in_memory_and_on_disk() {
    let gpu = gpu();
    let dir = std::env::temp_dir().join(format!("rtriton-gpu-cache-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let x = DeviceBuffer::from_host(&gpu, &(0..64).map(|i| i as f32).collect::<Vec<_>>()).unwrap();
    let y = DeviceBuffer::<f32>::zeros(&gpu, 7).unwrap();
    let mut rt = Runtime::with_disk_cache(gpu, Some(DiskCache::new(&dir)));
    let k = row_max_kernel(7, 8);
    let view = |offset: usize| TensorArg::new(&x, &[7, 8], &[8, 1]).with_offset(offset);
    let yv = || TensorArg::contiguous(&y, &[7]);

    let a = rt.launch(&k, &row_max_args(view(0), yv(), 7, 8)).unwrap();
    let b = rt.launch(&k, &row_max_args(view(0), yv(), 7, 8)).unwrap();
    assert_eq!((rt.stats.compiles, rt.stats.memory_hits), (1, 1));
    assert_eq!(a.key, b.key);
    // One element further in, the pointer is no longer 16-byte aligned: another key.
    let c = rt.launch(&k, &row_max_args(view(1), yv(), 7, 8)).unwrap();
    assert_ne!(c.key, a.key);
    assert!(c.spec.to_string().starts_with("x_ptr:*f32:-"), "{}", c.spec);
    assert_eq!(rt.stats.compiles, 2);
    let got = y.to_host(&rt.gpu).unwrap();
    assert_eq!(got, [8.0, 16.0, 24.0, 32.0, 40.0, 48.0, 56.0]);

    // A fresh runtime on the same cache folder (as a second process would) loads the PTX.
    let gpu2 = Gpu::open(0).unwrap();
    let x2 = DeviceBuffer::from_host(&gpu2, &[0.0f32; 64]).unwrap();
    let y2 = DeviceBuffer::<f32>::zeros(&gpu2, 7).unwrap();
    let mut rt2 = Runtime::with_disk_cache(gpu2, Some(DiskCache::new(&dir)));
    let args = row_max_args(TensorArg::new(&x2, &[7, 8], &[8, 1]), TensorArg::contiguous(&y2, &[7]), 7, 8);
    rt2.launch(&k, &args).unwrap();
    assert_eq!((rt2.stats.compiles, rt2.stats.disk_hits), (0, 1));
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A hand-written PTX `row_max` with the back end's signature (every runtime parameter in
/// declaration order: two `.u64` pointers, four `.u32` integers): thread 0 of each CTA
/// walks its row in column order with `max.f32`. It lets this suite drive the whole
/// launch path (checks, specialization, cache key, disk cache, module load, raw
/// parameters, grid) independently of the PTX back end.
const HAND_WRITTEN_ROW_MAX: &str = r#".version 7.8
.target sm_86
.address_size 64

.visible .entry row_max(
    .param .u64 x_ptr,
    .param .u64 y_ptr,
    .param .u32 n_rows,
    .param .u32 n_cols,
    .param .u32 stride_row,
    .param .u32 stride_col
)
.maxntid 128, 1, 1
{
    .reg .pred %p<3>;
    .reg .b32 %r<8>;
    .reg .b64 %rd<10>;
    .reg .f32 %f<3>;

    mov.u32 %r1, %tid.x;
    setp.ne.u32 %p1, %r1, 0;
    @%p1 bra DONE;
    ld.param.u64 %rd1, [x_ptr];
    ld.param.u64 %rd2, [y_ptr];
    ld.param.u32 %r2, [n_cols];
    ld.param.u32 %r3, [stride_row];
    ld.param.u32 %r4, [stride_col];
    cvta.to.global.u64 %rd1, %rd1;
    cvta.to.global.u64 %rd2, %rd2;
    mov.u32 %r5, %ctaid.x;
    mul.wide.s32 %rd3, %r5, %r3;
    shl.b64 %rd3, %rd3, 2;
    add.s64 %rd4, %rd1, %rd3;
    mul.wide.s32 %rd5, %r4, 4;
    mov.f32 %f1, 0fFF800000;
    mov.u32 %r6, 0;
LOOP:
    setp.ge.s32 %p2, %r6, %r2;
    @%p2 bra STORE;
    ld.global.f32 %f2, [%rd4];
    max.f32 %f1, %f1, %f2;
    add.s64 %rd4, %rd4, %rd5;
    add.s32 %r6, %r6, 1;
    bra.uni LOOP;
STORE:
    mul.wide.u32 %rd6, %r5, 4;
    add.s64 %rd7, %rd2, %rd6;
    st.global.f32 [%rd7], %f1;
DONE:
    ret;
}
"#;

#[apply(every_case)]
#[ignore = "needs a GPU"]
fn the_launch_path_runs_ptx_from_the_disk_cache_on_every_view(name: &str) {
    use rtriton_host::cache::CompiledPtx;
    let gpu = gpu();
    let c = case(name);
    let l = c.layout();
    let host_x = c.input();
    let x = DeviceBuffer::from_host(&gpu, &host_x).unwrap();
    let y = DeviceBuffer::<f32>::zeros(&gpu, c.n_rows).unwrap();
    let dir = std::env::temp_dir().join(format!("rtriton-gpu-seeded-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let disk = DiskCache::new(&dir);
    let mut rt = Runtime::with_disk_cache(gpu, Some(disk.clone()));

    let k = row_max_kernel(c.n_rows, c.n_cols);
    let xv = TensorArg::new(&x, &[c.n_rows, c.n_cols], &[l.stride_row as isize, l.stride_col as isize])
        .with_offset(l.offset);
    let args = row_max_args(xv, TensorArg::contiguous(&y, &[c.n_rows]), c.n_rows, c.n_cols);
    let values: Vec<_> = args.iter().map(|a| a.value().expect("the views' addresses fit")).collect();
    let spec = rtriton::spec::SpecKey::from_args("row_max", &k.def.params, &values, SpecPolicy::Triton).unwrap();
    let ptx = CompiledPtx {
        text: HAND_WRITTEN_ROW_MAX.into(),
        entry: "row_max".into(),
        threads_per_cta: 128,
        shared_bytes: 0,
        shared_site: None,
        tensor_maps: Vec::new(),
    };
    disk.put(&rt.key(&k, &spec), &ptx).unwrap();

    let first = rt.launch(&k, &args).unwrap();
    let second = rt.launch(&k, &args).unwrap();
    assert_eq!((rt.stats.compiles, rt.stats.disk_hits, rt.stats.memory_hits), (0, 1, 1));
    assert_eq!(*first.spec, spec);
    assert_eq!(second.grid, [c.n_rows as u32, 1, 1]);
    let got = y.to_host(&rt.gpu).unwrap();
    let want = rtriton_tests::reference(&c, false);
    let same = got.iter().zip(&want).all(|(g, w)| g.to_bits() == w.to_bits());
    assert!(same, "{name}: got {got:?}\nwant {want:?}");
    std::fs::remove_dir_all(&dir).unwrap();
}

fn nan_kernel(
    def: rtriton::trace::KernelDef,
    shaped_like: RowMaxVariant,
    c: &RowMaxCase,
    policy: SpecPolicy,
) -> JitKernel {
    let shape = launch_shape(shaped_like, c);
    let grid = shape.grid;
    JitKernel::new(def)
        .constexprs(&shape.constexprs)
        .num_warps(shape.num_warps)
        .spec_policy(policy)
        .grid(move |_| [grid, 1, 1])
}

/// Runs without a GPU: every NaN-propagating launch below compiles to PTX.
#[rstest]
#[case::single_block(kernels::row_max_nan(), RowMaxVariant::RowMax)]
#[case::looping(kernels::row_max_loop_nan(), RowMaxVariant::RowMaxLoop)]
fn nan_propagating_kernels_compile_for_every_case(
    #[case] def: rtriton::trace::KernelDef,
    #[case] shaped_like: RowMaxVariant,
    #[values(SpecPolicy::Triton, SpecPolicy::Off)] policy: SpecPolicy,
) {
    let mut session = rtriton::session::CompileSession::new();
    for c in SHAPE_MATRIX {
        let k = nan_kernel(def.clone(), shaped_like, c, policy);
        let values = rtriton_tests::row_max_args(c, 0x1000, 0x2000);
        let spec = rtriton::spec::SpecKey::from_args(def.name, &def.params, &values, policy).unwrap();
        let ptx =
            rtriton_host::launch::compile_kernel(&mut session, &k, &spec).unwrap_or_else(|e| panic!("{}: {e}", c.name));
        // A one-element block too: it still combines with -inf (the NaN rule of a reduction
        // of one element, docs/semantics.md).
        assert!(ptx.text.contains("max.NaN.f32"), "{}: no max.NaN.f32 in\n{}", c.name, ptx.text);
    }
}

/// The NaN-propagating rule on the GPU: DSL kernels with `PropagateNan::All` against the
/// CUDA reference's propagating entry and `cpu_row_max(.., true)`, bit for bit (any NaN
/// gives the canonical NaN 0x7FFFFFFF), on every case of the matrix.
#[rstest]
#[case::single_block(kernels::row_max_nan(), RowMaxVariant::RowMax)]
#[case::looping(kernels::row_max_loop_nan(), RowMaxVariant::RowMaxLoop)]
#[ignore = "needs a GPU"]
fn nan_propagating_kernels_match_the_propagating_references(
    #[case] def: rtriton::trace::KernelDef,
    #[case] shaped_like: RowMaxVariant,
    #[values(SpecPolicy::Triton, SpecPolicy::Off)] policy: SpecPolicy,
) {
    let gpu = gpu();
    let reference = RowMaxReference::compile(&gpu).unwrap();
    let mut failures = Vec::new();
    for c in SHAPE_MATRIX {
        let l = c.layout();
        let x = DeviceBuffer::from_host(&gpu, &c.input()).unwrap();
        let mut y_ref = DeviceBuffer::<f32>::zeros(&gpu, c.n_rows).unwrap();
        let view = TensorArg::new(&x, &[c.n_rows, c.n_cols], &[l.stride_row as isize, l.stride_col as isize])
            .with_offset(l.offset);
        reference.run_with_nan_rule(&gpu, &view, &mut y_ref, true).unwrap();
        let cmp = compare_bits(&y_ref.to_host(&gpu).unwrap(), &rtriton_tests::reference(c, true));
        if !cmp.equal() {
            failures.push(format!("{} reference vs cpu: {}", c.name, cmp.describe("the other")));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    // The kernels through the harness, against the same CPU reference (and so the CUDA one).
    gpu_suite(def, shaped_like, SHAPE_MATRIX, true).policies(&[policy]).check_all(Backend::Gpu);
}

/// The overflow guard on the real launch path: a zero-filled buffer of 65537 x 32768 f32
/// (8.6 GB, allocated and cleared on the device only). `row_max_i32` is refused before
/// anything is compiled or launched; `row_max` launches on the same view and gets it right.
#[test]
#[ignore = "needs a GPU"]
fn the_launch_path_refuses_row_max_i32_past_2_pow_31_and_runs_row_max() {
    let gpu = gpu();
    let (n_rows, n_cols) = (65537usize, 32768usize);
    let (free, _) = gpu.mem_info().unwrap();
    let needed = (n_rows * n_cols + n_rows) * 4;
    assert!(free >= needed, "this test needs {needed} bytes of device memory, {free} free");
    let x = DeviceBuffer::<f32>::zeros(&gpu, n_rows * n_cols).unwrap();
    let mut y = DeviceBuffer::<f32>::zeros(&gpu, n_rows).unwrap();
    y.fill_bytes(&gpu, 0xff).unwrap();
    let mut rt = Runtime::with_disk_cache(gpu, None);
    let kernel = |v: RowMaxVariant| {
        JitKernel::new(v.def())
            .constexprs(&v.constexprs_for(n_rows, n_cols))
            .num_warps(16)
            .grid(move |_| [n_rows as u64, 1, 1])
    };
    let args = || {
        row_max_args(TensorArg::contiguous(&x, &[n_rows, n_cols]), TensorArg::contiguous(&y, &[n_rows]), n_rows, n_cols)
    };
    let e = launch_error(rt.launch(&kernel(RowMaxVariant::RowMaxI32), &args()));
    assert!(matches!(e, LaunchError::IndexOverflow(_)), "{e:?}");
    // The runtime launches the production kernel; its line is found in its source.
    let at = rtriton_kernels::source::line_of(RowMaxVariant::RowMaxI32, "let x = load(").expect("row_max_i32 loads x");
    assert_eq!(
        e.to_string(),
        format!(
            "\
error[RT0601]: kernel `row_max_i32` at {at}: launch refused: tensor `x_ptr` has 2147516416 elements and a maximum element offset of 2147516415, past i32::MAX = 2147483647, but program_id(0) times `stride_row` is computed in i32 here and would wrap
  help: promote the index tensors to i64 before the index math (`program_id(0).to::<i64>()`, `offs.to::<i64>()`), or launch an i64-indexing variant"
        )
    );
    assert_eq!(rt.stats.compiles, 0, "the guard refuses before compiling");
    rt.launch(&kernel(RowMaxVariant::RowMax), &args()).unwrap();
    // One trace per specialization: row_max_i32's for its guard (refused before the lint
    // runs), row_max's for its guard (the compile reuses it), and row_max's unspecialized
    // one for the lint; one lowering, row_max's.
    let stats = rt.compile_stats();
    assert_eq!((stats.traces, stats.lowerings), (3, 1), "{stats:?}");
    let got = y.to_host(&rt.gpu).unwrap();
    assert!(got.iter().all(|v| v.to_bits() == 0), "every row of zeros has the maximum +0.0");
}

/// The portability lint runs at compile time: by default its findings are warnings and the
/// launch goes ahead; a kernel that asks to deny them is refused before anything compiles.
#[test]
#[ignore = "needs a GPU"]
fn the_compile_time_lint_warns_by_default_and_can_deny() {
    let gpu = gpu();
    let (n_rows, n_cols) = (4usize, 64usize);
    let x = DeviceBuffer::<f32>::zeros(&gpu, n_rows * n_cols).unwrap();
    let y = DeviceBuffer::<f32>::zeros(&gpu, n_rows).unwrap();
    let mut rt = Runtime::with_disk_cache(gpu, None);
    let v = RowMaxVariant::I64Strides;
    let kernel =
        || JitKernel::new(v.def()).constexprs(&v.constexprs_for(n_rows, n_cols)).grid(move |_| [n_rows as u64, 1, 1]);
    let args = || {
        row_max_args(TensorArg::contiguous(&x, &[n_rows, n_cols]), TensorArg::contiguous(&y, &[n_rows]), n_rows, n_cols)
    };
    let deny = rtriton::lint::LintOptions { deny: true, ..Default::default() };
    let e = rt.launch(&kernel().lint(Some(deny)), &args()).expect_err("denied lint findings refuse the launch");
    assert!(matches!(e, HostError::LintDenied(_)), "{e:?}");
    assert!(rtriton::diag::HasDiagnostics::has_code(&e, rtriton::diag::Code::LintToOnSpecializableArg), "{e}");
    assert_eq!(rt.stats.compiles, 0, "the lint refuses before compiling");
    rt.launch(&kernel(), &args()).expect("warnings do not stop a launch");
    assert!(rt.lint_findings().any(|d| d.kernel == "row_max_i64_strides"));
}

mod generic {
    use rtriton::prelude::*;

    rtriton::kernel! {
        /// `y = 2 x` for every float dtype: the runtime picks the instance per launch.
        pub fn generic_twice<T: Float>(x_ptr: Ptr<T>, y_ptr: Ptr<T>; const N: usize) {
            let offs = arange(0, N);
            let x = load(x_ptr + offs, None, None).to::<f32>();
            store(y_ptr + offs, (x * 2.0).to::<T>(), None);
        }
    }
}

/// A generic kernel launched with f16, then f32, then f16 again: each launch runs the
/// instance of its buffers' dtype (two compiles, the third launch finds its instance);
/// tensors that disagree on `T` are refused before the driver, naming the parameter.
#[test]
#[ignore = "needs a GPU"]
fn a_generic_kernel_launches_the_instance_of_its_argument_dtypes() {
    use half::f16;
    let gpu = gpu();
    let xs: Vec<f32> = (0..8).map(|i| i as f32 - 2.5).collect();
    let x32 = DeviceBuffer::from_host(&gpu, &xs).unwrap();
    let y32 = DeviceBuffer::<f32>::zeros(&gpu, 8).unwrap();
    let x16 = DeviceBuffer::from_host(&gpu, &xs.iter().map(|&v| f16::from_f32(v)).collect::<Vec<_>>()).unwrap();
    let y16 = DeviceBuffer::<f16>::zeros(&gpu, 8).unwrap();
    let mut rt = Runtime::with_disk_cache(gpu, None);
    let k = JitKernel::new(generic::generic_twice()).constexpr("N", 8);
    let args16 =
        || vec![Arg::Tensor(TensorArg::contiguous(&x16, &[8])), Arg::Tensor(TensorArg::contiguous(&y16, &[8]))];
    let args32 =
        || vec![Arg::Tensor(TensorArg::contiguous(&x32, &[8])), Arg::Tensor(TensorArg::contiguous(&y32, &[8]))];
    rt.launch(&k, &args16()).unwrap();
    rt.launch(&k, &args32()).unwrap();
    rt.launch(&k, &args16()).unwrap();
    assert_eq!(rt.stats.compiles, 2, "one compile per instance");
    let doubled: Vec<f32> = xs.iter().map(|v| v * 2.0).collect();
    assert_eq!(y32.to_host(&rt.gpu).unwrap(), doubled);
    assert_eq!(y16.to_host(&rt.gpu).unwrap(), doubled.iter().map(|&v| f16::from_f32(v)).collect::<Vec<_>>());
    let mixed = vec![Arg::Tensor(TensorArg::contiguous(&x16, &[8])), Arg::Tensor(TensorArg::contiguous(&y32, &[8]))];
    let e = launch_error(rt.launch(&k, &mixed));
    assert!(matches!(e, LaunchError::Spec(SpecError::ArgType { param: "y_ptr", .. })), "{e}");
    assert!(e.to_string().contains("T = f16, from `x_ptr`"), "{e}");
}
