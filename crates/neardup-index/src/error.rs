//! The index's one error type: one line that names the index or the file
//! and says what is wrong with it.

use std::fmt;
use std::io;
use std::path::Path;

use neardup_corpus::describe;

/// `Result` with this crate's [`Error`].
pub type Result<T> = std::result::Result<T, Error>;

/// What went wrong, said in one line.
#[derive(Debug)]
pub enum Error {
    /// Reading or writing a file failed.
    Io {
        /// `reading 'IDX/MANIFEST'`, `writing 'IDX/seg-00000002.nds'`.
        doing: String,
        /// The operating system's error.
        source: io::Error,
    },
    /// The directory is missing or holds no index.
    NotAnIndex(String),
    /// A file of the index is not what the manifest says, or not what
    /// the format allows.
    Damaged(String),
    /// Another process holds the write lock.
    Locked(String),
    /// Settings or documents that do not fit this index: other params, a
    /// duplicate id, too many documents.
    Refused(String),
    /// The core refused the documents.
    Core(neardup::Error),
}

impl Error {
    /// An I/O error while `doing` something with `path`.
    pub(crate) fn io(doing: &str, path: &Path, source: io::Error) -> Error {
        Error::Io {
            doing: format!("{doing} '{}'", path.display()),
            source,
        }
    }

    /// `path` is damaged: `why`.
    pub(crate) fn damaged(path: &Path, why: impl fmt::Display) -> Error {
        Error::Damaged(format!(
            "'{}' is damaged: {why} (`neardup index verify` checks the whole index)",
            path.display()
        ))
    }

    /// Whether the disk is full: the one error a user fixes outside us.
    pub fn is_disk_full(&self) -> bool {
        matches!(self, Error::Io { source, .. } if source.raw_os_error() == Some(28))
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Io { doing, source } => write!(f, "{doing}: {}", describe(source)),
            Error::NotAnIndex(m) | Error::Damaged(m) | Error::Locked(m) | Error::Refused(m) => {
                f.write_str(m)
            }
            Error::Core(e) => e.fmt(f),
        }
    }
}

impl std::error::Error for Error {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            Error::Io { source, .. } => Some(source),
            Error::Core(e) => Some(e),
            _ => None,
        }
    }
}

impl From<neardup::Error> for Error {
    fn from(e: neardup::Error) -> Error {
        Error::Core(e)
    }
}
