//! The driver side of rtriton.
