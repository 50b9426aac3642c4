//! The shared rstest tables: every row-max variant and every case of the shape matrix,
//! written once as `rstest_reuse` templates that suites `#[apply]` (adding their own
//! `#[values]` parameters), so a new variant or case reaches every suite by construction.
//! rstest needs literal lists; `values_lists` in `lib.rs` checks these against
//! `RowMaxVariant::ALL` and `SHAPE_MATRIX`.

use rstest_reuse::template;

/// Every `RowMaxVariant`, as the parameter `variant`.
#[template]
#[export]
#[hidden]
#[rstest]
pub fn every_variant(
    #[values(
        RowMaxVariant::RowMax,
        RowMaxVariant::RowMaxLoop,
        RowMaxVariant::RowMax2d,
        RowMaxVariant::I64Strides,
        RowMaxVariant::I64Index,
        RowMaxVariant::RowMaxI32
    )]
    variant: RowMaxVariant,
) {
}

/// Every case of `SHAPE_MATRIX` by name, as the parameter `name`.
#[template]
#[export]
#[hidden]
#[rstest]
pub fn every_case(
    #[values(
        "1x1",
        "single_row",
        "single_column",
        "non_pow2",
        "narrower_than_warp",
        "wider_than_block",
        "every_other_column",
        "transposed",
        "offset_base",
        "aligned_pow2",
        "odd_small",
        "tall_narrow",
        "all_negative",
        "all_neg_inf",
        "nan_rows",
        "signed_zeros",
        "one_column_specials",
        "one_column_specials_offset",
        "all_nan_pow2",
        "all_nan_non_pow2",
        "all_nan_pow2_transposed",
        "all_nan_two_columns"
    )]
    name: &str,
) {
}

/// Every variant x every case, as the parameters `variant` and `name`.
#[template]
#[export]
#[hidden]
#[rstest]
pub fn every_variant_and_case(
    #[values(
        RowMaxVariant::RowMax,
        RowMaxVariant::RowMaxLoop,
        RowMaxVariant::RowMax2d,
        RowMaxVariant::I64Strides,
        RowMaxVariant::I64Index,
        RowMaxVariant::RowMaxI32
    )]
    variant: RowMaxVariant,
    #[values(
        "1x1",
        "single_row",
        "single_column",
        "non_pow2",
        "narrower_than_warp",
        "wider_than_block",
        "every_other_column",
        "transposed",
        "offset_base",
        "aligned_pow2",
        "odd_small",
        "tall_narrow",
        "all_negative",
        "all_neg_inf",
        "nan_rows",
        "signed_zeros",
        "one_column_specials",
        "one_column_specials_offset",
        "all_nan_pow2",
        "all_nan_non_pow2",
        "all_nan_pow2_transposed",
        "all_nan_two_columns"
    )]
    name: &str,
) {
}
