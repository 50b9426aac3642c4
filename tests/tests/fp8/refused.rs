//! Arithmetic and comparisons on fp8 are refused while tracing, with a located error that
//! says to convert to f16 or f32 first (Triton requires the conversion for most ops).

use rtriton::trace::KernelDef;

use crate::kernels;
use crate::run::{Launch, interpreter};

#[rstest::rstest]
#[case::add(kernels::add_f8(), "`add`", "fp8e5")]
#[case::compare(kernels::compare_f8(), "a comparison", "fp8e4nv")]
fn arithmetic_on_fp8_is_a_located_error(#[case] def: KernelDef, #[case] what: &str, #[case] dtype: &str) {
    let err = interpreter(&def, &Launch::elementwise(vec![vec![0; 8]], 8, 8)).expect_err("the trace must fail");
    assert!(err.contains(what) && err.contains(dtype), "{err}");
    assert!(err.contains("convert to f16 or f32 first"), "{err}");
    assert!(err.contains("fp8/kernels.rs"), "the error names the kernel's line: {err}");
}
