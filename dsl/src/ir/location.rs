//! Source locations of DSL calls, recorded with `#[track_caller]` while tracing.

use std::fmt;
use std::panic::Location;

/// Where in the kernel author's Rust source an op was written.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct SourceLoc {
    pub file: &'static str,
    pub line: u32,
    pub column: u32,
}

impl SourceLoc {
    /// The location of the caller of the `#[track_caller]` function that calls this.
    #[track_caller]
    pub fn caller() -> SourceLoc {
        SourceLoc::from(Location::caller())
    }

    /// A location for ops the compiler inserts with no user call (documented where used).
    pub const fn synthetic() -> SourceLoc {
        SourceLoc { file: "<rtriton>", line: 0, column: 0 }
    }

    /// `file:line`, the form diagnostics and PTX comments print. The file path is
    /// shortened to start at the crate folder so golden files do not depend on where the
    /// repository is checked out.
    pub fn short(&self) -> String {
        format!("{}:{}", short_path(self.file), self.line)
    }
}

impl From<&'static Location<'static>> for SourceLoc {
    fn from(l: &'static Location<'static>) -> Self {
        SourceLoc { file: l.file(), line: l.line(), column: l.column() }
    }
}

impl fmt::Display for SourceLoc {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}:{}", short_path(self.file), self.line, self.column)
    }
}

/// Drops an absolute prefix (a dependency path in `~/.cargo` or a checkout path) so only
/// the part from the crate folder on is printed. Relative paths (what `file!()` gives for
/// this workspace's crates) are already that part and stay whole: searching them for a
/// marker would cut `tests/tests/x.rs` down to `tests/x.rs`.
fn short_path(file: &str) -> &str {
    if !file.starts_with('/') && !file.contains(':') {
        return file;
    }
    for marker in ["kernels-gpu/", "dsl/", "host/", "tests/"] {
        if let Some(pos) = file.rfind(marker) {
            return &file[pos..];
        }
    }
    file
}
