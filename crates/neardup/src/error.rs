//! The core crate's one error type.

use std::fmt;

/// Everything the core can refuse.
///
/// Messages are lowercase and quote the offending value, so that an adapter
/// can print them as they are after adding its own context (a file name).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Error {
    /// `K` outside `1..=64` (SPEC, Parameters).
    ShingleSize(u64),
    /// `N` outside `16..=256` (SPEC, Parameters).
    Permutations(u64),
    /// A supplied receipt that SPEC §10 rejects: `field` names where
    /// (`documents[1].shingles`, or `(root)` for the whole text).
    MalformedReceipt {
        /// The JSON path of the offending field.
        field: String,
        /// What is wrong with it.
        problem: String,
    },
    /// A hex digest that is not 64 lowercase hex digits.
    Digest(String),
    /// Bytes that are not UTF-8, decoded strictly.
    InvalidUtf8 {
        /// The offset of the first invalid byte.
        offset: u64,
        /// Whether the bytes look binary rather than mis-encoded text.
        binary: bool,
    },
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::ShingleSize(k) => write!(f, "shingle size k must be 1..=64, got {k}"),
            Error::Permutations(n) => write!(f, "permutation count n must be 16..=256, got {n}"),
            Error::MalformedReceipt { field, problem } => {
                write!(f, "malformed receipt: field '{field}': {problem}")
            }
            Error::Digest(s) => {
                write!(f, "expected 64 lowercase hex digits, got '{}'", Snippet(s))
            }
            Error::InvalidUtf8 { offset, binary } => {
                write!(f, "invalid UTF-8 at byte {offset}")?;
                if *binary {
                    write!(f, " (it looks binary)")?;
                }
                Ok(())
            }
        }
    }
}

impl std::error::Error for Error {}

/// Quotes at most 80 characters of user input, so that an error about a
/// megabyte-long string stays on one readable line.
pub(crate) struct Snippet<'a>(pub &'a str);

impl fmt::Display for Snippet<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        const MAX: usize = 80;
        let mut chars = self.0.chars();
        let head: String = chars.by_ref().take(MAX).collect();
        write!(f, "{}", head.escape_debug())?;
        if chars.next().is_some() {
            write!(f, "…")?;
        }
        Ok(())
    }
}
