//! [`FrontEndError`]: why a kernel could not be specialized, traced or verified. It lives
//! apart from the compile session so that the interpreter's errors can carry it without
//! importing the session that drives the stages.

use crate::diag::{Diagnostic, HasDiagnostics};
use crate::spec::SpecError;
use crate::trace::TraceError;
use crate::verify::VerifyError;

/// Why a kernel could not be specialized, traced or verified.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum FrontEndError {
    #[error(transparent)]
    Spec(#[from] SpecError),
    #[error(transparent)]
    Trace(#[from] TraceError),
    #[error(transparent)]
    Verify(#[from] VerifyError),
}

impl HasDiagnostics for FrontEndError {
    fn diagnostics(&self) -> Vec<Diagnostic> {
        match self {
            FrontEndError::Spec(e) => e.diagnostics(),
            FrontEndError::Trace(e) => e.diagnostics(),
            FrontEndError::Verify(e) => e.diagnostics(),
        }
    }
}
