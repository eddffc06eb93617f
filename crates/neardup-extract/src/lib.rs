//! Document bytes in, text out: the text neardup compares when it is
//! given a Word, OpenDocument, EPUB, HTML, PDF or RTF file. Pure (no I/O,
//! no clock), so the CLI, the Python package, Spark and the page's wasm
//! all extract the same text, and a receipt over extracted text can be
//! checked by anyone who has the file and the same [`VERSION`].
//!
//! The rules (which text comes out, in which order, with which
//! separators) are written down in `EXTRACT.md` at the repository's root
//! and versioned as [`VERSION`]: a change that alters any file's text
//! changes the version.
//!
//! - [`format`]: what a file is, told by its content.
//! - [`Limits`]: the caps that keep a hostile file bounded.
//! - [`Error`]: why a file gave no text.
//! - the readers, one per format: `docx`, `odt`, `epub`, `html`, `pdf`,
//!   `rtf`, over the shared `archive` (zip), `xml` and `out` (the text
//!   being written, with its separators).

use std::borrow::Cow;

mod archive;
pub(crate) mod docx;
mod epub;
mod error;
pub mod format;
pub(crate) mod html;
mod limits;
mod odt;
mod out;
mod pdf;
mod rtf;
mod xml;

pub use error::Error;
pub use format::Format;
pub use limits::Limits;

/// The version of the extraction rules (`EXTRACT.md`). Two extractors with
/// the same version give the same text for the same file.
pub const VERSION: &str = "neardup-extract-v1";

/// How a file is read.
#[derive(Debug, Clone, Copy, Default)]
pub struct Options {
    /// The format to read the file as; `None` detects it from the
    /// content ([`format::detect`]).
    pub format: Option<Format>,
    /// Replace invalid UTF-8 in a plain text (or an HTML file) with U+FFFD
    /// instead of failing.
    pub lossy: bool,
    /// The caps on what a file may expand to.
    pub limits: Limits,
}

/// The text of a file, and how it was read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Extracted {
    /// The text, by the rules of [`VERSION`].
    pub text: String,
    /// The format the file was read as.
    pub format: Format,
    /// What the reader passed over that a user may want to know about
    /// (an embedded object, an unreadable font map), one line each.
    pub warnings: Vec<String>,
}

/// Extracts the text of a file. `name` is the file's name, used only to
/// tell HTML from plain text (see [`format::detect`]); messages do not
/// repeat it, the adapters add it.
///
/// ```
/// use neardup_extract::{extract, Format, Options};
/// let got = extract(b"plain words", Some("a.txt"), &Options::default()).unwrap();
/// assert_eq!((got.text.as_str(), got.format), ("plain words", Format::Text));
/// ```
pub fn extract(bytes: &[u8], name: Option<&str>, opts: &Options) -> Result<Extracted, Error> {
    read(Cow::Borrowed(bytes), name, opts)
}

/// [`extract`] of bytes the caller gives up: a plain text becomes its
/// `String` in place, without the copy that borrowed bytes need. How the
/// CLI, the Python package and the page read a file they have just read.
///
/// ```
/// use neardup_extract::{extract_owned, Error, Options};
/// let got = extract_owned(b"caf\xc3\xa9".to_vec(), None, &Options::default()).unwrap();
/// assert_eq!(got.text, "café");
/// let e = extract_owned(b"caf\xe9".to_vec(), None, &Options::default()).unwrap_err();
/// assert!(matches!(e, Error::Text(_)));
/// ```
pub fn extract_owned(
    bytes: Vec<u8>,
    name: Option<&str>,
    opts: &Options,
) -> Result<Extracted, Error> {
    read(Cow::Owned(bytes), name, opts)
}

/// The one place that decides how bytes become text: the format given or
/// detected, then plain text decoded (strict, or lossy when asked) or a
/// document's reader run. Every adapter comes here, so a file gives the
/// same text and the same error wherever it is read.
fn read(bytes: Cow<'_, [u8]>, name: Option<&str>, opts: &Options) -> Result<Extracted, Error> {
    let format = match opts.format {
        Some(format) => format,
        None => format::detect(&bytes, name)?,
    };
    let mut warnings = Vec::new();
    let text = match format {
        Format::Text => neardup::decode(bytes.into_owned(), opts.lossy).map_err(Error::Text)?,
        Format::Docx => docx::extract(&bytes, &opts.limits, &mut warnings)?,
        Format::Odt => odt::extract(&bytes, &opts.limits, &mut warnings)?,
        Format::Epub => epub::extract(&bytes, &opts.limits, &mut warnings)?,
        Format::Html => html::extract(&bytes, opts.lossy, &opts.limits, &mut warnings)?,
        Format::Pdf => pdf::extract(&bytes, &opts.limits, &mut warnings)?,
        Format::Rtf => rtf::extract(&bytes, &opts.limits, &mut warnings)?,
    };
    Ok(Extracted {
        text,
        format,
        warnings,
    })
}
