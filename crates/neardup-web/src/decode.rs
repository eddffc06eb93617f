//! Bytes to text: a plain text decoded (strict UTF-8, or lossy only when
//! the user asks, SPEC §1), or a document's text extracted by
//! `neardup_extract`, exactly as the CLI reads files.

use neardup_extract::{Error, Format, Limits, Options};

/// What a plain text's UTF-8 error adds: the page's way to read it anyway.
pub(crate) const LOSSY_HINT: &str =
    ". Tick \u{201c}Replace invalid UTF-8\u{201d} to decode it lossily.";

/// A document's text and how it was read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Decoded {
    /// The text that is compared.
    pub text: String,
    /// The format the bytes were read as.
    pub format: Format,
    /// The extractor's warnings, one line each.
    pub warnings: Vec<String>,
}

/// Reads one document. `file` is its file name, if it came from a file:
/// it tells HTML from plain text, as the CLI's path does. Plain text is
/// strict by default; with `lossy`, each invalid sequence becomes U+FFFD
/// exactly as the WHATWG decoder does (Rust's lossy decoder replaces the
/// same maximal subparts), which is what `neardup --lossy` does too.
///
/// The error names the document and the problem, in words a page can
/// show as they are.
///
/// ```
/// use neardup_web::decode;
/// assert_eq!(decode(b"caf\xc3\xa9".to_vec(), "A", None, false).unwrap().text, "café");
/// let e = decode(b"caf\xe9".to_vec(), "notes.txt", None, false).unwrap_err();
/// assert!(e.starts_with("notes.txt: invalid UTF-8 at byte 3"));
/// assert_eq!(decode(b"caf\xe9".to_vec(), "A", None, true).unwrap().text, "caf\u{fffd}");
/// let html = decode(b"<p>caf\xc3\xa9</p>".to_vec(), "A", Some("a.txt"), false).unwrap();
/// assert_eq!(html.format.name(), "text");
/// ```
pub fn decode(
    bytes: Vec<u8>,
    name: &str,
    file: Option<&str>,
    lossy: bool,
) -> Result<Decoded, String> {
    let opts = Options {
        format: None,
        lossy,
        // The browser's memory is the cap: a wasm32 heap holds at most 4 GiB.
        limits: Limits {
            max_size: 1 << 30,
            ..Limits::default()
        },
    };
    let got = neardup_extract::extract_owned(bytes, file, &opts).map_err(|e| match e {
        Error::Text(e) => format!("{name}: {e}{LOSSY_HINT}"),
        e => format!("{name}: {e}"),
    })?;
    Ok(Decoded {
        text: got.text,
        format: got.format,
        warnings: got.warnings,
    })
}
