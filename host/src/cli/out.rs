//! Everything the command line prints on stdout goes through here, so an output error
//! is never a panic (`println!` panics when a write fails):
//! - the reader went away (`rtriton list | head -1`, a broken pipe): the command stops
//!   quietly with status 0, as `head` expects of a producer;
//! - any other failure (`> /dev/full`): an error naming stdout, status 1.

use std::fmt;
use std::io::Write;

/// The reader of stdout closed it: not a failure of the command ([`super::main`] exits 0).
#[derive(Debug)]
pub struct StdoutClosed;

impl fmt::Display for StdoutClosed {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "stdout was closed by its reader")
    }
}

impl std::error::Error for StdoutClosed {}

/// The error a failed write to stdout is.
pub fn stdout_error(e: std::io::Error) -> anyhow::Error {
    if e.kind() == std::io::ErrorKind::BrokenPipe {
        StdoutClosed.into()
    } else {
        anyhow::anyhow!("could not write the output to stdout: {e}")
    }
}

/// Whether `e` (or anything it wraps) is [`StdoutClosed`].
pub fn is_stdout_closed(e: &anyhow::Error) -> bool {
    e.chain().any(|c| c.is::<StdoutClosed>())
}

/// Writes `text` to stdout and flushes it.
pub fn print(text: &str) -> anyhow::Result<()> {
    let mut out = std::io::stdout().lock();
    out.write_all(text.as_bytes()).and_then(|()| out.flush()).map_err(stdout_error)
}

/// `println!` that returns the write's error instead of panicking: `outln!(...)?`.
macro_rules! outln {
    () => { $crate::cli::out::print("\n") };
    ($($t:tt)*) => { $crate::cli::out::print(&format!("{}\n", format_args!($($t)*))) };
}

pub(crate) use outln;
