//! Kernels the golden and whole-text suites trace, defined here rather than taken from
//! `rtriton-kernels`: snapshots and expected diagnostics embed each op's file:line, so
//! they name these files and an edit of a production kernel rewrites none of them.

pub mod row_max_family;
