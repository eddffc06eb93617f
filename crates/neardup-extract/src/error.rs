//! Why a file gave no text. Messages are one line, lowercase, and do not
//! name the file: the adapter says `reading 'essay.docx': ` before them.

use std::{fmt, io};

/// A file that could not be read as the format it was taken for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Error {
    /// A plain text that is not UTF-8: the one failure that the user's
    /// lossy switch mends, so each adapter adds its own remedy to it (and
    /// only to it).
    Text(neardup::Error),
    /// An HTML file that is not UTF-8 (and declares no other encoding).
    Markup(neardup::Error),
    /// The file is encrypted (a password-protected PDF or Office file).
    Encrypted,
    /// A PDF whose pages hold no text, only images.
    NoTextLayer,
    /// A well-formed file of a kind that is not a text document: `a
    /// spreadsheet`, `a presentation`, `a zip archive`.
    NotADocument(&'static str),
    /// A file neardup cannot read, with the whole reason and its remedy.
    Unsupported(&'static str),
    /// The file is broken: `not a valid DOCX file: PROBLEM`.
    Corrupt {
        /// The format it was read as (`DOCX`).
        format: &'static str,
        /// What is broken, quoting the part where there is one.
        problem: String,
    },
    /// The file would expand past a cap of [`crate::Limits`]; the message
    /// names the cap and the option that raises it, if any.
    Limit(String),
}

impl Error {
    /// `not a valid FORMAT file: PROBLEM`.
    /// A parser's message may quote the file (quick-xml's "expected
    /// `</item>`, but `</\n<packa>` was found"): its control characters
    /// are escaped, so that the message stays one line.
    pub(crate) fn corrupt(format: &'static str, problem: impl fmt::Display) -> Error {
        let problem = problem.to_string();
        let problem = if problem.contains(char::is_control) {
            problem.chars().flat_map(one_line).collect()
        } else {
            problem
        };
        Error::Corrupt { format, problem }
    }

    /// This error carried through a reader's `io::Error`, so that a cap
    /// crossed deep inside a parser's read comes out as itself.
    pub(crate) fn into_io(self) -> io::Error {
        io::Error::other(self)
    }

    /// The error a read failed with: the one [`Error::into_io`] carried,
    /// or else a broken `part` of a `format` file (`not a valid DOCX
    /// file: entry 'word/document.xml': PROBLEM`).
    pub(crate) fn from_io(e: &io::Error, format: &'static str, part: &str) -> Error {
        match e.get_ref().and_then(|inner| inner.downcast_ref::<Error>()) {
            Some(carried) => carried.clone(),
            None => Error::corrupt(format, format!("entry '{part}': {e}")),
        }
    }
}

/// `c`, or its escape (`\n`) when it is a control character.
fn one_line(c: char) -> impl Iterator<Item = char> {
    let escaped = c.is_control().then(|| c.escape_default());
    let plain = (!c.is_control()).then_some(c);
    escaped.into_iter().flatten().chain(plain)
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Text(e) | Error::Markup(e) => write!(f, "{e}"),
            Error::Encrypted => write!(f, "encrypted, not supported"),
            Error::NoTextLayer => write!(f, "has no text layer (scanned pages?): OCR it first"),
            Error::Unsupported(message) => write!(f, "{message}"),
            Error::NotADocument(kind) => write!(f, "{kind}, not a text document"),
            Error::Corrupt { format, problem } => {
                write!(f, "not a valid {format} file: {problem}")
            }
            Error::Limit(message) => write!(f, "{message}"),
        }
    }
}

impl std::error::Error for Error {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_parser_message_quoting_the_file_stays_one_line() {
        let e = Error::corrupt("EPUB", "expected `</item>`, but `</\n<pack\ta>` was found");
        assert_eq!(
            e.to_string(),
            "not a valid EPUB file: expected `</item>`, but `</\\n<pack\\ta>` was found"
        );
    }
}
