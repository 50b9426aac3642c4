//! The CUDA C reference the row-max family is validated against (`cuda/row_max_ref.cu`):
//! one block per row, a strided column loop with `fmaxf`, a `__shfl_down_sync` ladder,
//! lane 0 of each warp to shared memory and a combine in warp 0. The host compiles it at
//! run time with NVRTC for [`ROW_MAX_REF_ARCH`].

/// The CUDA C source.
pub const ROW_MAX_REF_CU: &str = include_str!("../cuda/row_max_ref.cu");

/// The `extern "C"` entry point in [`ROW_MAX_REF_CU`] (`fmaxf`: NaN ignored).
pub const ROW_MAX_REF_ENTRY: &str = "row_max_ref";

/// The entry point with the NaN-propagating combine (any NaN gives `0x7FFF_FFFF`, what
/// PTX `max.NaN.f32` returns).
pub const ROW_MAX_REF_PROPAGATE_NAN_ENTRY: &str = "row_max_ref_propagate_nan";

/// The virtual architecture NVRTC compiles the reference for (`-arch=compute_86`).
pub const ROW_MAX_REF_ARCH: &str = "compute_86";

/// Threads per block the reference is launched with (8 warps).
pub const ROW_MAX_REF_THREADS: u32 = 256;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_source_has_the_entry_point_and_the_shuffle_ladder() {
        for entry in [ROW_MAX_REF_ENTRY, ROW_MAX_REF_PROPAGATE_NAN_ENTRY] {
            assert!(ROW_MAX_REF_CU.contains(&format!("extern \"C\" __global__ void {entry}(")), "{entry}");
        }
        assert!(ROW_MAX_REF_CU.contains("__shfl_down_sync(0xffffffff, v, off)"));
        assert!(ROW_MAX_REF_CU.contains("fmaxf"));
        assert!(ROW_MAX_REF_CU.contains("__syncthreads()"));
        assert_eq!(ROW_MAX_REF_THREADS % 32, 0);
    }
}
