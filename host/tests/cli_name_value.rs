//! The `NAME=V` flags as a user types them, through `rtriton explain` (the same parser
//! serves `ptx` and `lint`): each bad input of `docs/reliability.md` and its whole error text, and the
//! valid extremes accepted. `docs/reliability.md` lists these rows.

use rstest::rstest;
use rtriton_host::cli::run_captured;

/// Every int of row_max given, so a row only writes what it tests; `--only spec` keeps the
/// accepted output to the specialization key.
fn explain(extra: &[&str]) -> (u8, String) {
    let mut argv =
        vec!["rtriton", "explain", "row_max", "--only", "spec", "--arg", "n_rows=4", "--arg", "stride_row=64"];
    argv.extend_from_slice(extra);
    run_captured(argv)
}

#[rstest]
#[case::double_minus_int(
    &["--arg", "n_cols=--16", "--arg", "stride_col=1"],
    "--arg n_cols=--16: `--16` is not an integer; write it in decimal or 0x hex, with at most one leading `-`"
)]
#[case::double_minus_stride(
    &["--arg", "n_cols=16", "--arg", "stride_col=--1"],
    "--arg stride_col=--1: `--1` is not an integer; write it in decimal or 0x hex, with at most one leading `-`"
)]
#[case::negative_pointer(
    &["--arg", "x_ptr=-1", "--arg", "n_cols=16", "--arg", "stride_col=1"],
    "--arg x_ptr=-1: an address cannot be negative; give a value from 0 to 0xffffffffffffffff"
)]
#[case::duplicate(
    &["--arg", "n_cols=16", "--arg", "n_cols=32", "--arg", "stride_col=1"],
    "--arg n_cols is given twice; give each name once"
)]
#[case::negative_extent(
    &["--arg", "n_cols=16", "--arg", "stride_col=1", "--extent", "x_ptr=-5"],
    "--extent x_ptr=-5: an element count cannot be negative; give a value from 0 to 0xffffffffffffffff"
)]
#[case::extent_of_an_int(
    &["--arg", "n_cols=16", "--arg", "stride_col=1", "--extent", "n_cols=5"],
    "--extent n_cols: kernel `row_max` has no pointer parameter `n_cols`; give extents of its pointers"
)]
#[case::i32_past_range(
    &["--arg", "n_cols=2147483648", "--arg", "stride_col=1"],
    "--arg n_cols=2147483648: out of the i32 range -2147483648..=2147483647 of `n_cols`"
)]
#[case::missing_int(
    &["--arg", "n_cols=16"],
    "missing --arg stride_col=<i32>: integer and float arguments drive specialization, give every one (pointers default to 0x7f0000000000)"
)]
#[case::null_pointer(
    &["--arg", "x_ptr=0", "--arg", "n_cols=16", "--arg", "stride_col=1"],
    "kernel `row_max`: argument `x_ptr` is a null pointer; pass a device allocation"
)]
fn bad_values_are_refused_naming_the_flag(#[case] extra: &[&str], #[case] error: &str) {
    assert_eq!(explain(extra), (1, format!("{error}\n")));
}

/// Valid extremes are accepted: the largest address, i32's ends (the key shows the value's
/// specialization), hex.
#[rstest]
#[case::max_pointer(&["--arg", "x_ptr=0xffffffffffffffff", "--arg", "n_cols=16", "--arg", "stride_col=1"], "x_ptr:*f32:-")]
#[case::i32_min(&["--arg", "n_cols=16", "--arg", "stride_col=-2147483648"], "stride_col:i32:D16")]
#[case::i32_max_hex(&["--arg", "n_cols=0x7fffffff", "--arg", "stride_col=1"], "n_cols:i32:-")]
fn valid_extremes_are_accepted(#[case] extra: &[&str], #[case] in_key: &str) {
    let (code, out) = explain(extra);
    assert!(code == 0 && out.contains(in_key), "{code}\n{out}");
}
