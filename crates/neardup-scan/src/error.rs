//! Why a scan stopped. Every message names the input or output and the
//! problem, as the CLI prints it; a [`Error::Context`] says what was being
//! done, and its [`source`](std::error::Error::source) the inner error, so
//! that a chain of them reads `outer: inner` when printed with its sources
//! (anyhow's `{:#}`).

use std::fmt;
use std::io;

/// A scan's failure.
#[derive(Debug)]
pub enum Error {
    /// An input could not be read, or a document in it is not one.
    Corpus(neardup_corpus::Error),
    /// The core refused something (params, too many documents).
    Core(neardup::Error),
    /// Standard output could not be written; the I/O error is the source,
    /// so that a closed pipe (`neardup scan ... | head`) can be told apart.
    Stdout(io::Error),
    /// A message that says all: what was given or done, and what is wrong.
    Message(String),
    /// What was being done when `error` happened.
    Context {
        /// `reading 'a.jsonl' again`.
        context: String,
        /// The error inside.
        error: Box<Error>,
    },
}

/// A result with this crate's [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;

impl Error {
    /// Whether this error, or one inside it, is a closed standard output.
    pub fn is_broken_pipe(&self) -> bool {
        match self {
            Error::Stdout(e) => e.kind() == io::ErrorKind::BrokenPipe,
            Error::Context { error, .. } => error.is_broken_pipe(),
            _ => false,
        }
    }
}

/// `Error::Message(format!(…))`.
macro_rules! message {
    ($($arg:tt)*) => { $crate::error::Error::Message(format!($($arg)*)) };
}
pub(crate) use message;

/// `return Err(message!(…))`.
macro_rules! bail {
    ($($arg:tt)*) => { return Err($crate::error::message!($($arg)*)) };
}
pub(crate) use bail;

/// Adds what was being done to an error, as anyhow's `Context` does.
pub(crate) trait Context<T> {
    fn context(self, context: impl Into<String>) -> Result<T>;
    fn with_context(self, context: impl FnOnce() -> String) -> Result<T>;
}

impl<T, E: Into<Error>> Context<T> for Result<T, E> {
    fn context(self, context: impl Into<String>) -> Result<T> {
        self.map_err(|e| Error::Context {
            context: context.into(),
            error: Box::new(e.into()),
        })
    }

    fn with_context(self, context: impl FnOnce() -> String) -> Result<T> {
        self.map_err(|e| Error::Context {
            context: context(),
            error: Box::new(e.into()),
        })
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Corpus(e) => e.fmt(f),
            Error::Core(e) => e.fmt(f),
            Error::Stdout(_) => f.write_str("writing to standard output"),
            Error::Message(m) => f.write_str(m),
            Error::Context { context, .. } => f.write_str(context),
        }
    }
}

impl std::error::Error for Error {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            Error::Stdout(e) => Some(e),
            Error::Context { error, .. } => Some(&**error),
            _ => None,
        }
    }
}

impl From<neardup_corpus::Error> for Error {
    fn from(e: neardup_corpus::Error) -> Error {
        Error::Corpus(e)
    }
}

impl From<neardup::Error> for Error {
    fn from(e: neardup::Error) -> Error {
        Error::Core(e)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The whole chain on one line, as the CLI prints it.
    fn chain(e: &dyn std::error::Error) -> String {
        let mut s = e.to_string();
        let mut next = e.source();
        while let Some(inner) = next {
            s += &format!(": {inner}");
            next = inner.source();
        }
        s
    }

    #[test]
    fn a_chain_reads_outer_to_inner() {
        let inner: Result<()> = Err(neardup_corpus::Error::line(3, "bad").into());
        let e = inner.context("reading 'a.jsonl' again").unwrap_err();
        assert_eq!(chain(&e), "reading 'a.jsonl' again: line 3: bad");
        let pipe = Error::Stdout(io::ErrorKind::BrokenPipe.into());
        let e = Err::<(), _>(pipe).context("x").unwrap_err();
        assert!(e.is_broken_pipe());
        assert!(!message!("writing 'a': full").is_broken_pipe());
    }
}
