//! Where results go: stdout (tolerating closed pipes) and atomically written files.

use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};

use anyhow::{anyhow, Context, Result};
use tempfile::NamedTempFile;

use neardup_corpus::describe;

/// Writes `bytes` to `path` atomically (see [`Sink`]).
pub fn write_atomic(path: &Path, bytes: &[u8]) -> Result<()> {
    let mut sink = Sink::create(Some(path))?;
    sink.write(bytes)?;
    sink.finish()
}

/// Where a command's lines go: buffered stdout, or a file written
/// atomically. A file is a temporary in the same directory, flushed and
/// renamed over the target by [`Sink::finish`]: a reader never sees a
/// half-written file, and a failed run leaves any old file untouched (the
/// temporary is removed when the sink is dropped unfinished).
pub enum Sink {
    Stdout(BufWriter<io::Stdout>),
    File {
        tmp: BufWriter<NamedTempFile>,
        path: PathBuf,
    },
}

impl Sink {
    /// A sink for `path`, or stdout when `None`.
    pub fn create(path: Option<&Path>) -> Result<Sink> {
        let Some(path) = path else {
            return Ok(Sink::Stdout(BufWriter::with_capacity(
                1 << 16,
                io::stdout(),
            )));
        };
        // Renaming over a directory would fail only at the very end.
        if std::fs::metadata(path).is_ok_and(|m| m.is_dir()) {
            return Err(anyhow!(
                "writing '{}': it is a directory, not a file",
                path.display()
            ));
        }
        let dir = match path.parent() {
            Some(d) if !d.as_os_str().is_empty() => d,
            _ => Path::new("."),
        };
        let mut builder = tempfile::Builder::new();
        builder.prefix(".neardup-").suffix(".tmp");
        // A temporary is private (0600) by default; the output it becomes
        // gets the mode any new file gets (0666 less the umask).
        #[cfg(unix)]
        builder.permissions(std::os::unix::fs::PermissionsExt::from_mode(0o666));
        let tmp = builder
            .tempfile_in(dir)
            .map_err(|e| anyhow!("writing '{}': {}", path.display(), describe(&e)))?;
        Ok(Sink::File {
            tmp: BufWriter::with_capacity(1 << 16, tmp),
            path: path.to_owned(),
        })
    }

    /// The temporary a file sink writes before it is renamed into place.
    pub fn temp_path(&self) -> Option<&Path> {
        match self {
            Sink::Stdout(_) => None,
            Sink::File { tmp, .. } => Some(tmp.get_ref().path()),
        }
    }

    pub fn write(&mut self, bytes: &[u8]) -> Result<()> {
        match self {
            Sink::Stdout(w) => w.write_all(bytes).context("writing to standard output"),
            Sink::File { tmp, path } => tmp
                .write_all(bytes)
                .map_err(|e| anyhow!("writing '{}': {}", path.display(), describe(&e))),
        }
    }

    /// Flushes, and for a file, syncs and renames it into place.
    pub fn finish(self) -> Result<()> {
        match self {
            Sink::Stdout(mut w) => w.flush().context("writing to standard output"),
            Sink::File { tmp, path } => {
                let fail = |e: io::Error| anyhow!("writing '{}': {}", path.display(), describe(&e));
                let tmp = tmp.into_inner().map_err(|e| fail(e.into_error()))?;
                tmp.as_file().sync_all().map_err(fail)?;
                tmp.persist(&path).map_err(|e| fail(e.error))?;
                Ok(())
            }
        }
    }
}

/// For writers that take `io::Write` (compressors, the Parquet writer).
/// Errors keep [`Sink::write`]'s message, which names the file.
impl Write for Sink {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        Sink::write(self, buf).map_err(|e| io::Error::other(format!("{e:#}")))?;
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
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
