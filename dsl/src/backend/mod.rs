//! Back ends: turn a traced, verified [`crate::ir::Kernel`] into something a machine runs.
//!
//! - [`ptx`]: PTX text for NVIDIA GPUs (block IR -> [`ptx::lir`] thread-level form -> text).

pub mod ptx;
