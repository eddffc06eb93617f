//! Where results go: stdout (tolerating closed pipes) and atomically written files.

use std::io::{self, Write};
use std::path::Path;

use anyhow::{Context, Result};

use crate::input::describe;

/// Writes `bytes` to `path` atomically: a temporary file in the same
/// directory, flushed, then renamed over the target. A reader never sees a
/// half-written file, and a failure leaves any old file untouched.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> Result<()> {
    let name = path.display();
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    let mut tmp = tempfile::Builder::new()
        .prefix(".neardup-")
        .suffix(".tmp")
        .tempfile_in(dir)
        .map_err(|e| anyhow::anyhow!("writing '{name}': {}", describe(&e)))?;
    tmp.write_all(bytes)
        .and_then(|()| tmp.as_file().sync_all())
        .map_err(|e| anyhow::anyhow!("writing '{name}': {}", describe(&e)))?;
    tmp.persist(path)
        .map_err(|e| anyhow::anyhow!("writing '{name}': {}", describe(&e.error)))?;
    Ok(())
}

/// Writes all of `text` to stdout in one go.
pub fn print(text: &str) -> Result<()> {
    let mut out = io::stdout().lock();
    out.write_all(text.as_bytes())
        .and_then(|()| out.flush())
        .context("writing to standard output")
}

/// Whether an error chain ends in a closed pipe (`neardup ... | head`),
/// which is not a failure of ours.
pub fn is_broken_pipe(e: &anyhow::Error) -> bool {
    e.chain()
        .filter_map(|c| c.downcast_ref::<io::Error>())
        .any(|e| e.kind() == io::ErrorKind::BrokenPipe)
}
