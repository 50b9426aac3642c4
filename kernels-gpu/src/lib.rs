//! Kernels written in the rtriton DSL.
//!
//! The row-max family computes `y[r] = max_c x[r, c]` over a 2-D `f32` tensor given by
//! pointer, shape and both strides (so strided and transposed views work). NaN is ignored
//! (`tl.max`, CUDA `fmaxf`), the identity is `-inf`.

pub mod cases;
pub mod ports;
pub mod reference;
pub mod row_max;
pub mod row_max_plan;
pub mod row_max_split;
pub mod source;

pub use row_max::{
    RowMaxVariant, cpu_row_max, row_max, row_max_2d, row_max_i64_index, row_max_i64_strides, row_max_loop,
};
pub use row_max_plan::{Plan, ShapeClass, SplitConfig, UnsupportedDtype, plan};
pub use row_max_split::{row_max_split, split_kernels};
