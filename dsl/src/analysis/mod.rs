//! Analyses over traced IR that the teaching tools (lint, guard, explain) share. They
//! only read a [`crate::ir::Kernel`]; none changes it.

pub mod index_width;
pub mod writes;
