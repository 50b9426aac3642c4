//! The `mma.sync` ceiling: what the tensor-core instruction rtriton's `dot` lowers to
//! (`mma.sync.aligned.m16n8k16`, PTX for sm_86 as every rtriton kernel) can do on the
//! device when nothing else runs: no memory traffic, only independent chains of
//! `mma.sync` in every warp. A matmul's TFLOPS are read against this number (the
//! `wgmma` of sm_90 has a higher one).
//!
//! The kernel is written here in PTX: each warp runs [`CHAINS`] independent accumulator
//! chains (so consecutive instructions do not wait for each other), [`WARPS`] warps a
//! CTA and [`CTAS_PER_SM`] CTAs per SM; every `A` and `B` element is 1, so each thread's
//! sum of its accumulators is exactly `4 * CHAINS * 16 * iters`, which [`run`] checks.
//! `rtriton bench --mma-ceiling` prints it for `f16` and `bf16`.

use rtriton_runtime::driver::{DeviceBuffer, Gpu, LoadedModule, RawParam, Timer};

/// Independent accumulator chains a warp.
pub const CHAINS: usize = 8;
/// Warps a CTA.
pub const WARPS: usize = 8;
/// CTAs an SM runs at once.
pub const CTAS_PER_SM: usize = 8;
/// Floating-point operations of one `m16n8k16` (a multiply and an add per product).
pub const FLOPS_PER_MMA: u64 = 2 * 16 * 8 * 16;

/// The operand type of the `mma.sync` measured.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Operand16 {
    F16,
    BF16,
}

impl Operand16 {
    pub fn name(self) -> &'static str {
        match self {
            Operand16::F16 => "f16",
            Operand16::BF16 => "bf16",
        }
    }

    /// Two 1.0s in one 32-bit register.
    fn ones(self) -> u32 {
        match self {
            Operand16::F16 => 0x3c00_3c00,
            Operand16::BF16 => 0x3f80_3f80,
        }
    }
}

/// The entry point's name.
pub const ENTRY: &str = "mma_ceiling";

/// The kernel's PTX: `mma_ceiling(out: *f32, iters: u32)`; thread `t` of CTA `c` writes
/// the sum of its accumulators to `out[c * WARPS * 32 + t]`.
pub fn ptx(op: Operand16) -> String {
    let x = op.name();
    let one = op.ones();
    let accs = CHAINS * 4;
    let mut s = String::new();
    s.push_str(".version 7.8\n.target sm_86\n.address_size 64\n\n");
    s.push_str(&format!(".visible .entry {ENTRY}(\n\t.param .u64 out,\n\t.param .u32 iters\n)\n"));
    s.push_str(&format!(".maxntid {}, 1, 1\n{{\n", WARPS * 32));
    s.push_str("\t.reg .pred %p<2>;\n\t.reg .b32 %r<16>;\n\t.reg .b64 %rd<4>;\n");
    s.push_str(&format!("\t.reg .f32 %f<{}>;\n", accs + 1));
    for r in 1..=6 {
        s.push_str(&format!("\tmov.b32 %r{r}, {one};\n"));
    }
    for f in 0..accs {
        s.push_str(&format!("\tmov.f32 %f{f}, 0f00000000;\n"));
    }
    s.push_str(
        "\tld.param.u32 %r10, [iters];\n\tmov.u32 %r11, 0;\n\tsetp.eq.u32 %p1, %r10, 0;\n\t@%p1 bra DONE;\nLOOP:\n",
    );
    for c in 0..CHAINS {
        let d = format!("{{%f{}, %f{}, %f{}, %f{}}}", 4 * c, 4 * c + 1, 4 * c + 2, 4 * c + 3);
        s.push_str(&format!(
            "\tmma.sync.aligned.m16n8k16.row.col.f32.{x}.{x}.f32 {d}, {{%r1, %r2, %r3, %r4}}, {{%r5, %r6}}, {d};\n"
        ));
    }
    s.push_str("\tadd.u32 %r11, %r11, 1;\n\tsetp.lt.u32 %p1, %r11, %r10;\n\t@%p1 bra LOOP;\nDONE:\n");
    for f in 1..accs {
        s.push_str(&format!("\tadd.f32 %f0, %f0, %f{f};\n"));
    }
    s.push_str(&format!(
        "\tmov.u32 %r12, %ctaid.x;\n\tmov.u32 %r13, %tid.x;\n\tmad.lo.u32 %r14, %r12, {}, %r13;\n",
        WARPS * 32
    ));
    s.push_str("\tld.param.u64 %rd1, [out];\n\tcvta.to.global.u64 %rd1, %rd1;\n\tmul.wide.u32 %rd2, %r14, 4;\n");
    s.push_str("\tadd.u64 %rd3, %rd1, %rd2;\n\tst.global.f32 [%rd3], %f0;\n\tret;\n}\n");
    s
}

/// One measurement.
#[derive(Clone, Debug)]
pub struct Ceiling {
    pub op: Operand16,
    pub ctas: usize,
    pub iters: u32,
    /// Median milliseconds of the timed launches.
    pub median_ms: f64,
    pub tflops: f64,
}

/// The floating-point operations of one launch of `ctas` CTAs and `iters` iterations.
pub fn flops(ctas: usize, iters: u32) -> u64 {
    (ctas * WARPS * CHAINS) as u64 * u64::from(iters) * FLOPS_PER_MMA
}

/// Launches the kernel `reps` times on [`CTAS_PER_SM`] CTAs per SM of `gpu`, checks every
/// thread's sum, and returns the median time as TFLOPS.
pub fn run(gpu: &Gpu, op: Operand16, iters: u32, reps: usize) -> anyhow::Result<Ceiling> {
    let module = LoadedModule::load(gpu, &ptx(op), ENTRY)?;
    let ctas = gpu.info.multiprocessor_count * CTAS_PER_SM;
    let threads = ctas * WARPS * 32;
    let mut out = DeviceBuffer::<f32>::zeros(gpu, threads)?;
    let params = [RawParam::Ptr(out.raw().ptr), RawParam::I32(iters as i32)];
    let launch = |gpu: &Gpu| {
        // SAFETY: the entry takes (u64 out, u32 iters); `out` holds one f32 a thread of
        // the grid and outlives the launch (the timer and `to_host` wait for it).
        unsafe { module.launch(gpu, [ctas as u32, 1, 1], [(WARPS * 32) as u32, 1, 1], &params) }
    };
    launch(gpu)?;
    let mut times = Vec::with_capacity(reps);
    for _ in 0..reps {
        let t = Timer::start(gpu)?;
        launch(gpu)?;
        times.push(f64::from(t.stop(gpu)?));
    }
    let want = (4 * CHAINS * 16) as f64 * f64::from(iters);
    let got = out.to_host(gpu)?;
    if let Some((i, x)) = got.iter().enumerate().find(|(_, x)| f64::from(**x) != want) {
        anyhow::bail!(
            "the mma.sync ceiling kernel ({}) computed {x} in thread {i}, not {want}: the tensor-core result is wrong",
            op.name()
        );
    }
    out.fill_bytes(gpu, 0)?;
    times.sort_by(f64::total_cmp);
    let median_ms = times[times.len() / 2];
    let tflops = flops(ctas, iters) as f64 / (median_ms * 1e-3) / 1e12;
    Ok(Ceiling { op, ctas, iters, median_ms, tflops })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_kernel_issues_independent_chains_of_mma_only() {
        for op in [Operand16::F16, Operand16::BF16] {
            let text = ptx(op);
            let mmas = text.matches("mma.sync.aligned.m16n8k16.row.col.f32").count();
            assert_eq!(mmas, CHAINS, "{text}");
            assert!(text.contains(&format!(".f32.{}.{}.f32", op.name(), op.name())));
            // the loop body touches no memory: the only accesses are the final store and
            // the parameters
            assert_eq!(text.matches("ld.global").count() + text.matches("ld.shared").count(), 0);
            assert_eq!(text.matches("st.global").count(), 1);
        }
        assert_eq!(flops(1, 1), (WARPS * CHAINS) as u64 * 4096);
    }
}
