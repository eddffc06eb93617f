//! What a file is, told by its content: the zip's `mimetype` entry or
//! `[Content_Types].xml`, `%PDF-`, `{\rtf`, and for HTML an HTML sniff
//! *and* an HTML file name. A name alone never decides: `notes.docx`
//! holding plain text is read as plain text.

use std::fmt;

use memchr::memmem;

use crate::{archive::Archive, Error, Limits};

/// A format neardup reads text from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Format {
    /// Plain text: UTF-8, a leading BOM allowed, lossy only when asked.
    Text,
    /// Office Open XML word processing (`.docx`, `.docm`, `.dotx`).
    Docx,
    /// OpenDocument text (`.odt`, `.ott`).
    Odt,
    /// EPUB 2 or 3.
    Epub,
    /// HTML or XHTML.
    Html,
    /// PDF with a text layer.
    Pdf,
    /// Rich Text Format.
    Rtf,
}

impl Format {
    /// Every format, in the order the docs list them.
    pub const ALL: [Format; 7] = [
        Format::Text,
        Format::Docx,
        Format::Odt,
        Format::Epub,
        Format::Html,
        Format::Pdf,
        Format::Rtf,
    ];

    /// The lowercase name used by `--format`, `extract --json` and the
    /// Python package: `text`, `docx`, `odt`, `epub`, `html`, `pdf`, `rtf`.
    pub fn name(self) -> &'static str {
        match self {
            Format::Text => "text",
            Format::Docx => "docx",
            Format::Odt => "odt",
            Format::Epub => "epub",
            Format::Html => "html",
            Format::Pdf => "pdf",
            Format::Rtf => "rtf",
        }
    }

    /// The format called `name` (as [`Format::name`] spells it).
    ///
    /// ```
    /// use neardup_extract::Format;
    /// assert_eq!(Format::from_name("docx"), Some(Format::Docx));
    /// assert_eq!(Format::from_name("doc"), None);
    /// ```
    pub fn from_name(name: &str) -> Option<Format> {
        Format::ALL.into_iter().find(|f| f.name() == name)
    }
}

impl fmt::Display for Format {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// The file names that HTML content is read as HTML under.
const HTML_NAMES: [&str; 4] = [".html", ".htm", ".xhtml", ".xht"];

/// The format of a file, from its content (and, for HTML only, its name
/// too). A zip that is not a text document, and an OLE compound file
/// (legacy `.doc`, or any encrypted Office file), are refused here.
///
/// ```
/// use neardup_extract::format::detect;
/// use neardup_extract::Format;
/// assert_eq!(detect(b"%PDF-1.7\n...", None).unwrap(), Format::Pdf);
/// assert_eq!(detect(b"{\\rtf1\\ansi hi}", None).unwrap(), Format::Rtf);
/// assert_eq!(detect(b"<!DOCTYPE html><p>hi", Some("a.html")).unwrap(), Format::Html);
/// // The same bytes under another name stay text (`--format html` reads them as HTML).
/// assert_eq!(detect(b"<!DOCTYPE html><p>hi", Some("a.txt")).unwrap(), Format::Text);
/// assert_eq!(detect(b"just words", Some("a.html")).unwrap(), Format::Text);
/// ```
pub fn detect(bytes: &[u8], name: Option<&str>) -> Result<Format, Error> {
    if bytes.starts_with(b"PK\x03\x04") {
        return zipped(bytes);
    }
    if bytes.starts_with(&[0xD0, 0xCF, 0x11, 0xE0, 0xA1, 0xB1, 0x1A, 0xE1]) {
        return Err(Error::Unsupported(
            "an OLE compound file (a legacy .doc, or an encrypted Office file): save it as .docx without a password",
        ));
    }
    // Acrobat accepts the header anywhere in the first 1024 bytes.
    if memmem::find(&bytes[..bytes.len().min(1024)], b"%PDF-").is_some() {
        return Ok(Format::Pdf);
    }
    if bytes.starts_with(b"{\\rtf") {
        return Ok(Format::Rtf);
    }
    let html_name = name.is_some_and(|n| {
        let n = n.to_ascii_lowercase();
        HTML_NAMES.iter().any(|ext| n.ends_with(ext))
    });
    if html_name && sniffs_as_html(bytes) {
        return Ok(Format::Html);
    }
    Ok(Format::Text)
}

/// A zip container's format, from its `mimetype` entry (OpenDocument,
/// EPUB) or its `[Content_Types].xml` (Office Open XML).
fn zipped(bytes: &[u8]) -> Result<Format, Error> {
    let mut zip = Archive::open(bytes, "zip", &Limits::default())?;
    if let Some(mime) = zip.read_small("mimetype")? {
        let mime = String::from_utf8_lossy(&mime);
        let mime = mime.trim();
        return match mime {
            "application/epub+zip" => Ok(Format::Epub),
            m if m.starts_with("application/vnd.oasis.opendocument.text") => Ok(Format::Odt),
            m if m.starts_with("application/vnd.oasis.opendocument.spreadsheet") => {
                Err(Error::NotADocument("a spreadsheet"))
            }
            m if m.starts_with("application/vnd.oasis.opendocument.presentation") => {
                Err(Error::NotADocument("a presentation"))
            }
            _ => Err(Error::NotADocument("a zip archive")),
        };
    }
    if let Some(types) = zip.read_small("[Content_Types].xml")? {
        let has = |needle: &[u8]| memmem::find(&types, needle).is_some();
        if has(b"wordprocessingml.document.main+xml")
            || has(b"wordprocessingml.template.main+xml")
            || has(b"application/vnd.ms-word.")
        {
            return Ok(Format::Docx);
        }
        if has(b"spreadsheetml") || has(b"application/vnd.ms-excel") {
            return Err(Error::NotADocument("a spreadsheet"));
        }
        if has(b"presentationml") || has(b"application/vnd.ms-powerpoint") {
            return Err(Error::NotADocument("a presentation"));
        }
    }
    Err(Error::NotADocument("a zip archive"))
}

/// The WHATWG MIME sniffing standard's HTML patterns (§7.1, "text/html"):
/// after leading whitespace bytes (and a UTF-8 BOM), one of `<!DOCTYPE
/// HTML`, `<HTML`, `<HEAD`, `<SCRIPT`, `<IFRAME`, `<H1`, `<DIV`, `<FONT`,
/// `<TABLE`, `<A`, `<STYLE`, `<TITLE`, `<B`, `<BODY`, `<BR`, `<P` or
/// `<!--`, case-insensitive, then a space or `>`; plus `<?xml` for XHTML.
fn sniffs_as_html(bytes: &[u8]) -> bool {
    let bytes = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
    let start = bytes
        .iter()
        .position(|b| !matches!(b, b'\t' | b'\n' | b'\x0C' | b'\r' | b' '))
        .unwrap_or(bytes.len());
    let rest = &bytes[start..];
    if rest.starts_with(b"<?xml") {
        return true;
    }
    const TAGS: [&[u8]; 17] = [
        b"<!DOCTYPE HTML",
        b"<HTML",
        b"<HEAD",
        b"<SCRIPT",
        b"<IFRAME",
        b"<H1",
        b"<DIV",
        b"<FONT",
        b"<TABLE",
        b"<A",
        b"<STYLE",
        b"<TITLE",
        b"<B",
        b"<BODY",
        b"<BR",
        b"<P",
        b"<!--",
    ];
    TAGS.iter().any(|tag| {
        rest.len() > tag.len()
            && rest[..tag.len()].eq_ignore_ascii_case(tag)
            && matches!(rest[tag.len()], b' ' | b'>')
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn html_needs_both_the_name_and_the_content() {
        for (bytes, name, want) in [
            (&b"<html><body>x"[..], Some("a.HTM"), Format::Html),
            (
                b"\xEF\xBB\xBF\n  <!doctype html>\n",
                Some("a.xhtml"),
                Format::Html,
            ),
            (
                b"<?xml version='1.0'?><html/>",
                Some("ch1.xhtml"),
                Format::Html,
            ),
            (b"<html><body>x", Some("a.txt"), Format::Text),
            (b"<html><body>x", None, Format::Text),
            (b"<htmlx>", Some("a.html"), Format::Text),
            (b"<p", Some("a.html"), Format::Text),
        ] {
            assert_eq!(detect(bytes, name).unwrap(), want, "{bytes:?} {name:?}");
        }
    }

    #[test]
    fn an_ole_file_and_a_plain_zip_are_refused() {
        let ole = [0xD0, 0xCF, 0x11, 0xE0, 0xA1, 0xB1, 0x1A, 0xE1, 0, 0];
        assert!(detect(&ole, Some("a.doc"))
            .unwrap_err()
            .to_string()
            .contains("legacy .doc"));
    }
}
