//! Diagnostics shared by every stage: what went wrong, in which kernel, at which op's
//! source line, and what to do about it.

use std::fmt;

use crate::ir::SourceLoc;

/// How serious a diagnostic is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Severity {
    Error,
    Warning,
}

/// One finding of a stage, always tied to a kernel and a source location.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Diagnostic {
    pub severity: Severity,
    pub kernel: String,
    pub loc: SourceLoc,
    /// What is wrong, lowercase, no trailing period.
    pub message: String,
    /// What to do about it.
    pub help: String,
}

impl Diagnostic {
    pub fn error(kernel: &str, loc: SourceLoc, message: impl Into<String>, help: impl Into<String>) -> Self {
        Diagnostic {
            severity: Severity::Error,
            kernel: kernel.to_string(),
            loc,
            message: message.into(),
            help: help.into(),
        }
    }

    pub fn warning(kernel: &str, loc: SourceLoc, message: impl Into<String>, help: impl Into<String>) -> Self {
        Diagnostic { severity: Severity::Warning, ..Diagnostic::error(kernel, loc, message, help) }
    }
}

impl fmt::Display for Diagnostic {
    /// ```text
    /// error: kernel `row_max` at kernels-gpu/src/row_max.rs:31: message
    ///   help: what to do
    /// ```
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let sev = match self.severity {
            Severity::Error => "error",
            Severity::Warning => "warning",
        };
        write!(f, "{sev}: kernel `{}` at {}: {}", self.kernel, self.loc.short(), self.message)?;
        if !self.help.is_empty() {
            write!(f, "\n  help: {}", self.help)?;
        }
        Ok(())
    }
}

/// A non-empty list of diagnostics, printed one after another.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Diagnostics(pub Vec<Diagnostic>);

impl fmt::Display for Diagnostics {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, d) in self.0.iter().enumerate() {
            if i > 0 {
                writeln!(f)?;
            }
            write!(f, "{d}")?;
        }
        Ok(())
    }
}

impl std::error::Error for Diagnostics {}
