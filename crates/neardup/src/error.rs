//! The core crate's one error type.

use std::fmt;

/// Everything the core can refuse.
///
/// Messages are lowercase and quote the offending value, so that an adapter
/// can print them as they are after adding its own context (a file name).
/// It is `#[non_exhaustive]`: a later version may refuse more things, and
/// an adapter's `match` must keep a catch-all arm for them.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
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
    /// A scan threshold outside `0 < T <= 1` or with more than 4 decimals,
    /// as the user wrote it.
    Threshold(String),
    /// LSH bands × rows that do not fit `N` slots.
    Banding {
        /// The bands asked for.
        bands: u64,
        /// The rows per band asked for.
        rows: u64,
        /// The signature length they must fit in.
        n: u64,
    },
    /// A signature of a length SPEC v1 does not allow, or not the run's `N`.
    SignatureLength {
        /// The number of slots found.
        got: u64,
        /// What was needed: `16..=256`, or the run's `N`.
        want: String,
    },
    /// A signature hex string with a character that is not lowercase hex.
    SignatureHex(String),
    /// More documents than `u32` document numbers can count.
    TooManyDocuments(u64),
    /// Documents of one run fingerprinted with different `K`, `N` or
    /// word rule.
    MixedParams {
        /// The document whose parameters differ.
        doc: u64,
        /// Its parameters.
        got: crate::Params,
        /// The run's.
        want: crate::Params,
    },
    /// A word rule that is neither `space` nor `script`, as written.
    WordRule(String),
    /// A text too long for evidence: `explain` indexes words with 31 bits.
    TooManyWords(u64),
    /// A signature record (a `neardup sign` line) that does not hold
    /// together: `field` names where, and `problem` says what, naming it.
    MalformedRecord {
        /// The record field at fault.
        field: String,
        /// What is wrong with it.
        problem: String,
    },
    /// A report needs the text of every document of a reported pair, and
    /// this document (its number, from 0) has none.
    MissingText(u64),
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
            Error::Threshold(s) => write!(
                f,
                "'{}' is not a threshold like 0.75 (0 < T <= 1, at most 4 decimals)",
                Snippet(s)
            ),
            Error::Banding { bands, rows, n } => write!(
                f,
                "{bands} bands × {rows} rows must be at least 1 each and use at most n = {n} slots"
            ),
            Error::SignatureLength { got, want } => {
                write!(f, "a signature must have {want} slots, got {got}")
            }
            Error::SignatureHex(s) => write!(
                f,
                "a signature must be 8·n lowercase hex digits, got '{}'",
                Snippet(s)
            ),
            Error::TooManyDocuments(n) => write!(
                f,
                "{n} documents: a scan numbers documents with 32 bits, so at most 4294967295"
            ),
            Error::MixedParams { doc, got, want } => write!(
                f,
                "document {doc} was signed with {got}, but this run uses {want}"
            ),
            Error::WordRule(s) => {
                write!(f, "words must be 'space' or 'script', got '{}'", Snippet(s))
            }
            Error::TooManyWords(w) => write!(
                f,
                "a text of {w} words is too long for evidence (at most 2147483647)"
            ),
            // The problem names the field already, in the words a user
            // reads: "field 'shingles' is 0 but the signature is set".
            Error::MalformedRecord { problem, .. } => f.write_str(problem),
            Error::MissingText(d) => write!(
                f,
                "document {d} is in a reported pair, but the report was given no text for it"
            ),
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
