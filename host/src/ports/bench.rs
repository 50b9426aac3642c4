//! What `rtriton bench --kernel NAME|ports` measures of each port: points named as
//! `bench/peers/tutorial_peers.py` names them (kernel, dtype, shape), so the two JSON files
//! join into one table, with the bytes read + written counted the same way.

use rtriton_testing::{Case, Suite};

/// What a point's launches may depend on besides its shape: the device they run on (a
/// persistent grid is as many programs as the device runs at once).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Target {
    /// Streaming multiprocessors (`CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT`).
    pub sm_count: usize,
}

impl Target {
    /// The H200 the GPU records were measured on (132 SMs): what CPU-side tests build
    /// points for.
    pub const H200: Target = Target { sm_count: 132 };
}

/// A point's launches for a device, built only when the point is measured (on a worker
/// thread).
pub type Launches = Box<dyn Fn(Target) -> Vec<(Suite, Case)> + Send + Sync>;

/// One measurement: the launches of one (kernel, dtype, shape), timed together after one
/// L2 flush (layer norm's backward is two kernels), each checked against its suite's CPU
/// reference under the suite's rule before any time is taken.
pub struct BenchPoint {
    /// The peer script's kernel name (`add`, `softmax`, `layer_norm_fwd`, ...).
    pub kernel: &'static str,
    /// `dim1`/`dim0` for a reduction along that dimension (the peer script's
    /// `torch_dim1`/`torch_dim0`); `lock` for the tutorial's layer-norm backward where the
    /// plan runs another form (no peer row has it); else empty.
    pub variant: &'static str,
    /// `f32`, `f16` or `bf16`.
    pub dtype: &'static str,
    pub shape: Vec<usize>,
    /// Bytes read + written, as the peer script counts them for the same point.
    pub bytes: u64,
    /// Floating-point operations of the point (`2 M N K` for a matmul), reported as
    /// TFLOPS beside the bandwidth; 0 for the memory-bound ports.
    pub flops: u64,
    /// Builds the launches (inputs are built only when the point is measured, on a
    /// worker thread).
    pub launches: Launches,
}

impl std::fmt::Debug for BenchPoint {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}", self.label())
    }
}

impl BenchPoint {
    /// `kernel dtype AxB` as tables print it.
    pub fn label(&self) -> String {
        let v = if self.variant.is_empty() { String::new() } else { format!(" ({})", self.variant) };
        format!("{}{v} {} {}", self.kernel, self.dtype, shape_text(&self.shape))
    }
}

/// `4096x1024`, `16777216`.
pub fn shape_text(shape: &[usize]) -> String {
    shape.iter().map(usize::to_string).collect::<Vec<_>>().join("x")
}

/// The peer script's 2-D shapes (the ports' targets, `docs/benchmarks.md`).
pub const SHAPES_2D: [(usize, usize); 5] = [(4096, 1024), (4096, 4096), (4096, 16384), (2048, 32768), (32768, 1024)];
/// The peer script's 1-D sizes (vector add): 2^24 and 2^28.
pub const SIZES_1D: [usize; 2] = [1 << 24, 1 << 28];
/// The dtypes every port is measured in.
pub const DTYPES: [&str; 3] = ["f32", "f16", "bf16"];
/// The dtypes `bench --dtype` takes: [`DTYPES`] and `i32`, which the reductions are
/// measured in too.
pub const BENCH_DTYPES: [&str; 4] = ["f32", "f16", "bf16", "i32"];

/// Bytes per element of `dtype` (one of [`BENCH_DTYPES`]).
pub fn elem_bytes(dtype: &str) -> u64 {
    if dtype == "f16" || dtype == "bf16" { 2 } else { 4 }
}
