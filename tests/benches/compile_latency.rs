//! Compile latency of the row-max family: trace + verify + lower + print PTX, per variant
//! and specialization, timed in a plain loop (no criterion: nothing to download, and the
//! figure wanted is a per-variant median, not a regression detector).
//!
//! `cargo bench -p rtriton-tests --bench compile_latency` (release profile). The target
//! is under 1 ms per variant; results are recorded in `docs/benchmarks.md`.

use std::hint::black_box;
use std::time::{Duration, Instant};

use rtriton::backend::ptx::PtxOptions;
use rtriton::session::CompileSession;
use rtriton::spec::{ArgValue, SpecPolicy};
use rtriton::trace::TraceOptions;
use rtriton_kernels::RowMaxVariant;

fn compile_once(v: RowMaxVariant, args: &[ArgValue], policy: SpecPolicy) -> usize {
    // A fresh session each time: the figure is a first compile, nothing memoized.
    let def = v.def();
    let spec = CompileSession::specialize(&def, args, policy).expect("specializes");
    CompileSession::new()
        .ptx(&def, &v.default_constexprs(), &spec, &TraceOptions::default(), &PtxOptions::default())
        .expect("compiles")
        .text
        .len()
}

fn main() {
    let args = rtriton_tests::contiguous_args();
    let quick = std::env::args().any(|a| a == "--quick");
    let (batches, per_batch) = if quick { (5, 20) } else { (21, 200) };
    println!("{:<20} {:<8} {:>12} {:>12} {:>10}", "variant", "spec", "median", "min", "PTX bytes");
    let mut worst = Duration::ZERO;
    for v in RowMaxVariant::ALL {
        for (tag, policy) in [("aligned", SpecPolicy::Triton), ("off", SpecPolicy::Off)] {
            let bytes = compile_once(v, &args, policy);
            let mut samples: Vec<Duration> = (0..batches)
                .map(|_| {
                    let t = Instant::now();
                    for _ in 0..per_batch {
                        black_box(compile_once(black_box(v), &args, policy));
                    }
                    t.elapsed() / per_batch
                })
                .collect();
            samples.sort_unstable();
            let median = samples[samples.len() / 2];
            worst = worst.max(median);
            println!(
                "{:<20} {:<8} {:>9.1} us {:>9.1} us {:>10}",
                v.name(),
                tag,
                median.as_secs_f64() * 1e6,
                samples[0].as_secs_f64() * 1e6,
                bytes
            );
        }
    }
    println!("slowest median: {:.1} us (target < 1000 us)", worst.as_secs_f64() * 1e6);
}
