//! The host path of a launch without a GPU: everything `Runtime::launch` does before the
//! driver call, for a launch whose signature was prepared before (the per-launch checks,
//! the signature hash and lookup, the grid, the parameters), and the signature alone.
//! `cargo bench -p rtriton-runtime --bench host_path`; the GPU figures (the driver call
//! included) are `rtriton bench --launch-overhead`'s.

use std::hint::black_box;
use std::sync::Arc;

use criterion::{Criterion, criterion_group, criterion_main};
use rtriton::ir::ScalarType;
use rtriton::spec::SpecKey;
use rtriton_kernels::RowMaxVariant;
use rtriton_runtime::driver::{DeviceId, Owner, RawBuffer};
use rtriton_runtime::launch::{
    Arg, Device, JitKernel, LaunchCache, LaunchRecord, TensorArg, arg_values, cache_key, host_path, signature,
};

fn host_path_bench(c: &mut Criterion) {
    let device = Device { id: DeviceId { gpu: 1, context: 0x1 }, max_grid: [1 << 31, 65535, 65535] };
    let buffer = |ptr, len| RawBuffer { owner: Owner::Gpu(1), ..RawBuffer::unowned(ptr, len, ScalarType::F32) };
    let (n_rows, n_cols) = (4096usize, 1024usize);
    let args: Vec<Arg<'_>> = vec![
        TensorArg::from_raw(buffer(0x7f00_0000_0000, n_rows * n_cols), &[n_rows, n_cols], &[n_cols as isize, 1]).into(),
        TensorArg::from_raw(buffer(0x7e00_0000_0000, n_rows), &[n_rows], &[1]).into(),
        Arg::Int(n_rows as i64),
        Arg::Int(n_cols as i64),
        Arg::Int(n_cols as i64),
        Arg::Int(1),
    ];
    let v = RowMaxVariant::RowMax;
    let kernel =
        JitKernel::new(v.def()).constexprs(&v.constexprs_for(n_rows, n_cols)).grid(move |_| [n_rows as u64, 1, 1]);
    let values = arg_values(kernel.def.name, &kernel.def.params, &args).unwrap();
    let spec = SpecKey::from_args(kernel.def.name, &kernel.def.params, &values, kernel.spec_policy).unwrap();
    let record = LaunchRecord {
        key: Arc::new(cache_key(&kernel, &spec, "bench")),
        spec: Arc::new(spec),
        grid: [0; 3],
        threads_per_cta: 128,
    };
    let mut cache = LaunchCache::default();
    cache.insert(&kernel, signature(&kernel, &args, false).unwrap(), false, record, ());
    assert!(host_path(&cache, &kernel, &args, device, 0).unwrap().is_some(), "the launch was prepared");

    c.bench_function("cached launch, host side (row_max, 6 arguments)", |b| {
        b.iter(|| host_path(&cache, black_box(&kernel), black_box(&args), device, 0).unwrap())
    });
    c.bench_function("signature (row_max, 6 arguments)", |b| {
        b.iter(|| signature(black_box(&kernel), black_box(&args), false).unwrap())
    });
}

criterion_group!(benches, host_path_bench);
criterion_main!(benches);
