//! Why an input could not be read. Every message names the input, the
//! line or the row, and quotes the bad value where there is one; the
//! adapters (CLI, Python, Spark) print it as it is.

use std::fmt;
use std::io;

/// An input that could not be read, or a document in it that is not one.
#[derive(Debug)]
pub enum Error {
    /// Opening or reading an input failed, or its bytes are unusable as a
    /// whole: `reading 'NAME': PROBLEM` (`reading standard input: ...`
    /// for `-`).
    Read {
        /// The input as the user named it (`-` for standard input).
        name: String,
        /// What went wrong, in words.
        problem: String,
    },
    /// One line (or Parquet row) is not a document: `line N: PROBLEM`.
    Line {
        /// The 1-based line or row number.
        number: u64,
        /// What is wrong with it, quoting the bad value.
        problem: String,
    },
    /// An error inside the named input: `'NAME': ERROR`.
    In {
        /// The input.
        name: String,
        /// The error inside it.
        error: Box<Error>,
    },
    /// A refusal whose message says all: what was given and why not.
    Refused(String),
}

/// A result with this crate's [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;

impl Error {
    /// `reading 'NAME': PROBLEM`.
    pub fn read(name: impl Into<String>, problem: impl Into<String>) -> Error {
        Error::Read {
            name: name.into(),
            problem: problem.into(),
        }
    }

    /// `reading 'NAME': ` and an I/O error in words.
    pub fn io(name: impl Into<String>, e: &io::Error) -> Error {
        Error::read(name, describe(e))
    }

    /// `line N: PROBLEM`.
    pub fn line(number: u64, problem: impl Into<String>) -> Error {
        Error::Line {
            number,
            problem: problem.into(),
        }
    }

    /// This error, said to be inside the input `name`.
    pub fn within(self, name: &str) -> Error {
        Error::In {
            name: name.to_owned(),
            error: Box::new(self),
        }
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Read { name, problem } if name == "-" => {
                write!(f, "reading standard input: {problem}")
            }
            Error::Read { name, problem } => write!(f, "reading '{name}': {problem}"),
            Error::Line { number, problem } => write!(f, "line {number}: {problem}"),
            Error::In { name, error } => write!(f, "'{name}': {error}"),
            Error::Refused(message) => f.write_str(message),
        }
    }
}

impl std::error::Error for Error {}

/// An I/O error in words, without Rust's `(os error 2)` suffix.
pub fn describe(e: &io::Error) -> String {
    match e.kind() {
        io::ErrorKind::NotFound => "no such file or directory".to_owned(),
        io::ErrorKind::PermissionDenied => "permission denied".to_owned(),
        io::ErrorKind::IsADirectory => "it is a directory, not a file".to_owned(),
        _ => {
            let s = e.to_string();
            match s.find(" (os error") {
                Some(i) => s[..i].to_lowercase(),
                None => s,
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn messages_name_the_input() {
        let e = Error::line(3, "missing field 'id'").within("c.jsonl");
        assert_eq!(e.to_string(), "'c.jsonl': line 3: missing field 'id'");
        assert_eq!(
            Error::read("-", "permission denied").to_string(),
            "reading standard input: permission denied"
        );
        let gone = io::Error::from(io::ErrorKind::NotFound);
        assert_eq!(
            Error::io("a.txt", &gone).to_string(),
            "reading 'a.txt': no such file or directory"
        );
    }
}
