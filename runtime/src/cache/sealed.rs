//! The safe-write scheme of every file the runtime keeps on disk (PTX cache entries,
//! autotuning results): a header line `<magic> <body bytes> <sha256 of the body>` before
//! the body, so a truncated or edited file is recognized and treated as missing; and a
//! write to a unique temporary file in the same folder renamed over the destination, which
//! is atomic, so a reader sees the old file, the new one or none, never half of one.

use std::io::Write;
use std::path::Path;

use sha2::{Digest, Sha256};

fn sha256_hex(body: &[u8]) -> String {
    Sha256::digest(body).iter().map(|b| format!("{b:02x}")).collect()
}

/// The bytes of a file: header line, then `body`.
pub(crate) fn seal(magic: &str, body: &[u8]) -> Vec<u8> {
    let mut out = format!("{magic} {} {}\n", body.len(), sha256_hex(body)).into_bytes();
    out.extend_from_slice(body);
    out
}

/// The body of a file [`seal`]ed with `magic`, or why the file is not one.
pub(crate) fn unseal<'a>(magic: &str, bytes: &'a [u8]) -> Result<&'a [u8], String> {
    let newline = bytes.iter().position(|&b| b == b'\n').ok_or("no header line")?;
    let header = std::str::from_utf8(&bytes[..newline]).map_err(|_| "the header is not text")?;
    let body = &bytes[newline + 1..];
    let rest = header.strip_prefix(magic).and_then(|r| r.strip_prefix(' ')).ok_or("not an rtriton v1 entry")?;
    let (len, sum) = rest.split_once(' ').ok_or("the header has no checksum")?;
    let len: usize = len.parse().map_err(|_| "the header's length is not a number")?;
    if body.len() != len {
        return Err(format!("truncated or padded: {} body bytes, the header says {len}", body.len()));
    }
    if sha256_hex(body) != sum {
        return Err("checksum mismatch".into());
    }
    Ok(body)
}

/// Writes `bytes` to `path` (in `dir`, created if missing) through a temporary file of
/// its own renamed over `path`: any number of threads and processes may write at once.
pub(crate) fn write_atomically(dir: &Path, path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    std::fs::create_dir_all(dir)?;
    // A leading dot keeps a write in progress out of directory listings of entries.
    let mut tmp = tempfile::Builder::new().prefix(".").suffix(".tmp").tempfile_in(dir)?;
    tmp.write_all(bytes)?;
    tmp.persist(path).map_err(|e| e.error)?;
    Ok(())
}
