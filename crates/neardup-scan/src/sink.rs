//! Where results go: standard output, or files written atomically (a
//! reader never sees half a file, and a failed run leaves the old file).

use std::fs::File;
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};

use tempfile::NamedTempFile;

use crate::error::{message, Error, Result};
use neardup_corpus::describe;

/// Writes `bytes` to `path` atomically (see [`Sink`]).
pub fn write_atomic(path: &Path, bytes: &[u8]) -> Result<()> {
    let mut sink = Sink::create(Some(path))?;
    sink.write(bytes)?;
    sink.finish()
}

/// Where a command's lines go: buffered stdout, or a file written
/// atomically. A file is a [`Pending`] file in the same directory, flushed,
/// synced and put in place by [`Sink::finish`]: a reader never sees a
/// half-written file, and a failed run leaves any old file untouched (the
/// pending file is freed when the sink is dropped unfinished).
pub enum Sink {
    /// Standard output, buffered.
    Stdout(BufWriter<io::Stdout>),
    /// A path that is there and is not a regular file (`/dev/null`, a
    /// FIFO, a terminal), written in place: there is no file to replace,
    /// and a rename would replace the device itself.
    Special {
        /// The open path.
        out: BufWriter<File>,
        /// Its name, for errors.
        path: PathBuf,
    },
    /// A regular file (or none yet): a [`Pending`] file put at `path` by
    /// [`Sink::finish`].
    File {
        /// The pending file.
        tmp: BufWriter<Pending>,
        /// Where it goes.
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
        let fail = |e: io::Error| write_error(path, &e);
        match std::fs::metadata(path) {
            // Renaming over a directory would fail only at the very end.
            Ok(m) if m.is_dir() => {
                return Err(message!(
                    "writing '{}': it is a directory, not a file",
                    path.display()
                ))
            }
            Ok(m) if !m.is_file() => {
                let out = std::fs::OpenOptions::new()
                    .write(true)
                    .open(path)
                    .map_err(fail)?;
                return Ok(Sink::Special {
                    out: BufWriter::with_capacity(1 << 16, out),
                    path: path.to_owned(),
                });
            }
            _ => {}
        }
        let tmp = Pending::create(dir_of(path)).map_err(fail)?;
        Ok(Sink::File {
            tmp: BufWriter::with_capacity(1 << 16, tmp),
            path: path.to_owned(),
        })
    }

    /// The named temporary a file sink writes before it is renamed into
    /// place, if it has one (see [`Pending`]).
    pub fn temp_path(&self) -> Option<&Path> {
        match self {
            Sink::Stdout(_) | Sink::Special { .. } => None,
            Sink::File { tmp, .. } => tmp.get_ref().temp_path(),
        }
    }

    /// Writes all of `bytes`.
    pub fn write(&mut self, bytes: &[u8]) -> Result<()> {
        match self {
            Sink::Stdout(w) => w.write_all(bytes).map_err(Error::Stdout),
            Sink::Special { out, path } => out.write_all(bytes).map_err(|e| write_error(path, &e)),
            Sink::File { tmp, path } => tmp.write_all(bytes).map_err(|e| write_error(path, &e)),
        }
    }

    /// Flushes, and for a file, syncs and renames it into place.
    pub fn finish(self) -> Result<()> {
        match self {
            Sink::Stdout(mut w) => w.flush().map_err(Error::Stdout),
            Sink::Special { mut out, path } => out.flush().map_err(|e| write_error(&path, &e)),
            Sink::File { tmp, path } => {
                let fail = |e: io::Error| write_error(&path, &e);
                let tmp = tmp.into_inner().map_err(|e| fail(e.into_error()))?;
                tmp.file().sync_all().map_err(fail)?;
                tmp.persist(&path).map_err(fail)
            }
        }
    }
}

/// `writing 'PATH': PROBLEM`.
fn write_error(path: &Path, e: &io::Error) -> Error {
    message!("writing '{}': {}", path.display(), describe(e))
}

/// The directory a file at `path` goes in.
fn dir_of(path: &Path) -> &Path {
    match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    }
}

/// A file being written that gets its name only once it is complete, by
/// [`Pending::persist`], so that a reader never sees it half-written.
///
/// On Linux it is an unnamed file (`O_TMPFILE`) in the target's directory,
/// given its name by `linkat`: until then it is in no directory, so the
/// kernel frees it however the process ends, SIGKILL included. Elsewhere,
/// or on a filesystem without unnamed files, it is a hidden named temporary
/// (`.neardup-*.tmp`) renamed into place, which a killed process leaves
/// behind.
pub enum Pending {
    /// An `O_TMPFILE` file, in no directory until linked.
    #[cfg(target_os = "linux")]
    Unnamed(File),
    /// A hidden named temporary.
    Named(NamedTempFile),
}

impl Pending {
    /// A new pending file in `dir`: unnamed if the filesystem can, else
    /// named (whose error is the one reported, as it says what is wrong
    /// with `dir` where `O_TMPFILE` may only say it is not supported).
    pub fn create(dir: &Path) -> io::Result<Pending> {
        #[cfg(target_os = "linux")]
        if let Ok(file) = unnamed(dir) {
            return Ok(Pending::Unnamed(file));
        }
        named(dir).map(Pending::Named)
    }

    /// The open file, to write or sync.
    pub fn file(&self) -> &File {
        match self {
            #[cfg(target_os = "linux")]
            Pending::Unnamed(f) => f,
            Pending::Named(t) => t.as_file(),
        }
    }

    /// The named temporary's path, if it has one: what to remove on Ctrl-C.
    pub fn temp_path(&self) -> Option<&Path> {
        match self {
            #[cfg(target_os = "linux")]
            Pending::Unnamed(_) => None,
            Pending::Named(t) => Some(t.path()),
        }
    }

    /// Puts the file at `path`, replacing any file there in one step.
    pub fn persist(self, path: &Path) -> io::Result<()> {
        match self {
            #[cfg(target_os = "linux")]
            Pending::Unnamed(file) => link(file, path),
            Pending::Named(t) => t.persist(path).map(drop).map_err(|e| e.error),
        }
    }
}

impl Write for Pending {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.file().write(buf)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.file().flush()
    }
}

/// `.neardup-*.tmp`: hidden, and recognisably ours.
fn temp_names() -> tempfile::Builder<'static, 'static> {
    let mut builder = tempfile::Builder::new();
    builder.prefix(".neardup-").suffix(".tmp");
    builder
}

/// A named temporary in `dir`.
fn named(dir: &Path) -> io::Result<NamedTempFile> {
    let mut builder = temp_names();
    // A temporary is private (0600) by default; the output it becomes
    // gets the mode any new file gets (0666 less the umask).
    #[cfg(unix)]
    builder.permissions(std::os::unix::fs::PermissionsExt::from_mode(0o666));
    builder.tempfile_in(dir)
}

/// An unnamed file in `dir`, with the mode a new file gets (0666 less the
/// umask). Readable too, for [`link`]'s copy.
#[cfg(target_os = "linux")]
fn unnamed(dir: &Path) -> io::Result<File> {
    use std::os::unix::fs::OpenOptionsExt;
    std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .custom_flags(rustix::fs::OFlags::TMPFILE.bits() as i32)
        .mode(0o666)
        .open(dir)
}

/// Names the unnamed `file` `path`. Through `/proc/self/fd`, the kernel's
/// name for an open file: `linkat` with `AT_SYMLINK_FOLLOW` links what
/// that names (`AT_EMPTY_PATH` would take `CAP_DAC_READ_SEARCH`). `linkat`
/// never replaces a file, so when one is there the file is linked under a
/// temporary name and renamed over it, the one moment it has a name that
/// is not its own.
#[cfg(target_os = "linux")]
fn link(file: File, path: &Path) -> io::Result<()> {
    use rustix::fs::{linkat, AtFlags, CWD};
    use rustix::io::Errno;
    use std::os::fd::AsRawFd;
    let fd = format!("/proc/self/fd/{}", file.as_raw_fd());
    let link_as = |to: &Path| linkat(CWD, fd.as_str(), CWD, to, AtFlags::SYMLINK_FOLLOW);
    match link_as(path) {
        Ok(()) => Ok(()),
        Err(Errno::EXIST) => {
            let tmp = temp_names().make_in(dir_of(path), |p| Ok(link_as(p)?))?;
            tmp.persist(path).map_err(|e| e.error)
        }
        // No /proc mounted: copy into a named temporary instead.
        Err(Errno::NOENT) if !Path::new("/proc/self/fd").exists() => {
            use std::io::{Seek, SeekFrom};
            let mut file = file;
            let mut tmp = named(dir_of(path))?;
            file.seek(SeekFrom::Start(0))?;
            io::copy(&mut file, tmp.as_file_mut())?;
            tmp.as_file().sync_all()?;
            tmp.persist(path).map(drop).map_err(|e| e.error)
        }
        Err(e) => Err(e.into()),
    }
}

/// For writers that take `io::Write` (compressors, the Parquet writer).
/// Errors keep [`Sink::write`]'s message, which names the file.
impl Write for Sink {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        Sink::write(self, buf).map_err(|e| match e {
            Error::Stdout(e) => {
                io::Error::new(e.kind(), format!("writing to standard output: {e}"))
            }
            e => io::Error::other(e.to_string()),
        })?;
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(dir: &Path) -> Vec<String> {
        let mut v: Vec<String> = std::fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        v.sort();
        v
    }

    #[test]
    fn a_pending_file_is_named_only_once_complete() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("out.txt");
        let mut p = Pending::create(dir.path()).unwrap();
        p.write_all(b"first").unwrap();
        if cfg!(target_os = "linux") {
            // Unnamed until persisted (this dir's filesystem has O_TMPFILE).
            assert!(p.temp_path().is_none());
            assert_eq!(names(dir.path()), Vec::<String>::new());
        }
        p.persist(&path).unwrap();
        assert_eq!(std::fs::read(&path).unwrap(), b"first");

        // Over an existing file: replaced whole, nothing else left.
        let mut p = Pending::create(dir.path()).unwrap();
        p.write_all(b"second").unwrap();
        p.persist(&path).unwrap();
        assert_eq!(std::fs::read(&path).unwrap(), b"second");
        assert_eq!(names(dir.path()), ["out.txt"]);

        // Dropped unfinished: the old file stays, nothing is added.
        let mut p = Pending::create(dir.path()).unwrap();
        p.write_all(b"third").unwrap();
        drop(p);
        assert_eq!(std::fs::read(&path).unwrap(), b"second");
        assert_eq!(names(dir.path()), ["out.txt"]);
    }

    #[cfg(unix)]
    #[test]
    fn a_persisted_file_gets_the_mode_of_a_new_file() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("plain");
        std::fs::write(&path, "").unwrap();
        let want = std::fs::metadata(&path).unwrap().permissions().mode();
        let made = dir.path().join("made");
        Pending::create(dir.path()).unwrap().persist(&made).unwrap();
        assert_eq!(std::fs::metadata(&made).unwrap().permissions().mode(), want);
    }
}
