//! Every buffer dtype through the harness: a copy kernel per dtype (placement, read-back
//! and bit-exact comparison of every special value, through a strided, offset view with
//! a masked tail) and a scale kernel per float dtype (a reference written once in f64 and
//! rounded to the dtype by `set_f64`), each a `Suite` run on the interpreter and the
//! simulator, the GPU test ignored; and what a mismatch report says for each dtype.

use rtriton::prelude::*;
use rtriton_testing::half::{self, bf16, f16};
use rtriton_testing::{Backend, Case, Element, FailureKind, Rule, Suite, View};

/// 300 elements in blocks of 128: three programs, the last one masked.
const N: usize = 300;
const BLOCK_ELEMS: i64 = 128;

/// `y[i] = x[offset + i * stride]` (for `copy` kernels) over the case's views.
fn copy_case<T: Element>(name: &str, stride: usize, offset: usize) -> Case {
    let xv = View::strided(&[N], &[stride as isize]).with_offset(offset);
    Case::new(name)
        .input("x", rtriton_testing::fill::special::<T>(xv.min_buffer_len()), xv)
        .output("y", vec![T::default(); N], View::contiguous(&[N]))
        .int(N as i64)
        .int(stride as i64)
        .constexpr("BLOCK", BLOCK_ELEMS)
        .grid([N.div_ceil(BLOCK_ELEMS as usize) as u32, 1, 1])
}

fn copy_suite<T: Element>(def: rtriton::trace::KernelDef) -> Suite {
    Suite::new(def)
        .cases([copy_case::<T>("contiguous", 1, 0), copy_case::<T>("strided_offset", 3, 5)])
        .reference(|c| {
            for i in 0..N {
                let x: T = c.tensor("x").at(&[i]);
                c.tensor_mut("y").set(&[i], x);
            }
        })
        .rule(Rule::BITS)
}

/// `y = x * 3` in the dtype: the f64 product is exact (a float times 3 needs two more
/// bits, and f64 has 29 more than f32), so rounding it once to the dtype is the correctly
/// rounded product, which is what the language gives (f16 and bf16 multiply in f32,
/// exact there too, then round once).
fn scale_suite<T: Element>(def: rtriton::trace::KernelDef) -> Suite {
    Suite::new(def)
        .cases([copy_case::<T>("contiguous", 1, 0), copy_case::<T>("strided_offset", 3, 5)])
        .reference(|c| {
            for i in 0..N {
                let x = c.tensor("x").f64_at(&[i]);
                c.tensor_mut("y").set_f64(&[i], x * 3.0);
            }
        })
        // A NaN times 3 is some NaN: the interpreter's and the GPU's are canonical.
        .rule(Rule::BITS.any_nan())
}

/// A module per dtype: `copy` (and `scale` for floats) kernels, their suites and one
/// test per case and back end.
macro_rules! dtype_suites {
    ($($m:ident: $t:ty $(, $scale:ident)?;)*) => {$(
        mod $m {
            use super::*;

            rtriton::kernel! {
                pub fn copy(x_ptr: Ptr<$t>, y_ptr: Ptr<$t>, n: i32, stride: i32; const BLOCK: usize) {
                    let offs = program_id(0) * BLOCK as i32 + arange(0, BLOCK);
                    let mask = offs.lt(n);
                    let x = load(x_ptr + offs * stride, Some(mask), None);
                    store(y_ptr + offs, x, Some(mask));
                }
            }

            pub fn copy_suite() -> Suite {
                super::copy_suite::<$t>(copy())
            }

            mod copy_tests {
                use super::*;
                rtriton_testing::backend_tests!(copy_suite => [contiguous, strided_offset]);
            }

            $(
                rtriton::kernel! {
                    pub fn $scale(x_ptr: Ptr<$t>, y_ptr: Ptr<$t>, n: i32, stride: i32; const BLOCK: usize) {
                        let offs = program_id(0) * BLOCK as i32 + arange(0, BLOCK);
                        let mask = offs.lt(n);
                        let x = load(x_ptr + offs * stride, Some(mask), None);
                        store(y_ptr + offs, x * 3.0, Some(mask));
                    }
                }

                pub fn scale_suite() -> Suite {
                    super::scale_suite::<$t>($scale())
                }

                mod scale_tests {
                    use super::*;
                    rtriton_testing::backend_tests!(scale_suite => [contiguous, strided_offset]);
                }
            )?
        }
    )*};
}

dtype_suites! {
    f16s: half::f16, scale;
    bf16s: half::bf16, scale;
    f32s: f32, scale;
    f64s: f64, scale;
    i8s: i8;
    i16s: i16;
    i32s: i32;
    i64s: i64;
    u8s: u8;
    u32s: u32;
    u64s: u64;
}

/// The copy suite with the reference wrong at element 41 (its bit pattern `step` higher:
/// `step` ULPs for a float, `step` more for an integer): the report the interpreter run
/// gives.
fn report_of<T: Element>(suite: Suite, rule: Rule, step: u64) -> String {
    let suite = suite.rule(rule);
    let want = suite.expected(suite.find("contiguous").unwrap());
    let planted = want.buffers[0].1.as_slice::<T>().unwrap()[41];
    let suite = suite.reference(move |c| {
        for i in 0..N {
            let x: T = c.tensor("x").at(&[i]);
            c.tensor_mut("y").set(&[i], if i == 41 { T::from_bits64(planted.bits() + step) } else { x });
        }
    });
    let failures = suite.run("contiguous", Backend::Interpreter).expect_err("element 41 differs").0;
    let FailureKind::Mismatch { total, .. } = &failures[0].what else { panic!("{}", failures[0]) };
    assert_eq!(*total, 1, "{}", failures[0]);
    failures[0].to_string()
}

/// `(dtype, report, the line it must contain)`: each dtype's values with its own bits,
/// and float distances in the dtype's ULPs.
#[test]
fn mismatch_reports_show_each_dtype_with_its_bits_and_ulps() {
    // Element 41 of the special fill is ordinary: 41 * 0.25 - 7 = 3.25 in every float
    // dtype, and 41 - 50 in every integer one (wrapped).
    let table: Vec<(&str, String, &str)> = vec![
        (
            "f16",
            report_of::<f16>(f16s::copy_suite(), Rule::ulps(1), 2),
            "y[41] (buffer element 41): got 3.25 (0x4280), expected 3.2539063 (0x4282), 2 ulp apart",
        ),
        (
            "bf16",
            report_of::<bf16>(bf16s::copy_suite(), Rule::ulps(1), 2),
            "y[41] (buffer element 41): got 3.25 (0x4050), expected 3.28125 (0x4052), 2 ulp apart",
        ),
        (
            "f64",
            report_of::<f64>(f64s::copy_suite(), Rule::ulps(1), 2),
            "y[41] (buffer element 41): got 3.25 (0x400A000000000000), expected 3.250000000000001 (0x400A000000000002), 2 ulp apart",
        ),
        (
            "i8",
            report_of::<i8>(i8s::copy_suite(), Rule::BITS, 2),
            "y[41] (buffer element 41): got -9 (0xF7), expected -7 (0xF9)",
        ),
        (
            "u64",
            report_of::<u64>(u64s::copy_suite(), Rule::BITS, 2),
            "y[41] (buffer element 41): got 18446744073709551607 (0xFFFFFFFFFFFFFFF7), expected 18446744073709551609 (0xFFFFFFFFFFFFFFF9)",
        ),
    ];
    for (dtype, report, line) in table {
        assert!(report.contains(line), "{dtype}: no line\n  {line}\nin\n{report}");
        assert!(report.contains(&format!("`y`: shape [300] strides [1] offset 0 (buffer of 300 {dtype})")), "{report}");
    }
}

/// Integer outputs are bit-exact whatever the rule: an `i16` off by one fails under a
/// rule that would accept a float a million ULPs away.
#[test]
fn integer_buffers_ignore_float_tolerances() {
    let report = report_of::<i16>(i16s::copy_suite(), Rule::ulps(1_000_000), 1);
    assert!(report.contains("got -9 (0xFFF7), expected -8 (0xFFF8)"), "{report}");
}
