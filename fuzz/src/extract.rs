use neardup_extract::{extract, Format, Limits, Options};

/// `neardup_extract::extract` of `data` as `format` must return (text or
/// one error) on any input: no panic, no overflow, no hang. Text it gives
/// holds no soft hyphen (EXTRACT.md, common rules), and a refused input's
/// message is one line. The first byte's low bit picks lossy decoding.
/// Returns the text, for the target's own checks.
fn extract_any(data: &[u8], format: Format, limits: Limits) -> Option<String> {
    let opts = Options {
        format: Some(format),
        lossy: data.first().is_some_and(|b| b & 1 == 1),
        limits,
    };
    match extract(data, None, &opts) {
        Ok(got) => {
            assert!(!got.text.contains('\u{AD}'));
            Some(got.text)
        }
        Err(e) => {
            assert!(!e.to_string().contains('\n'), "{e}");
            None
        }
    }
}

/// The zip and markup readers' caps: small, so that a bomb is caught fast.
const SMALL: Limits = Limits {
    max_size: 4 << 20,
    max_expanded: 4 << 20,
    max_entries: 64,
    max_ratio: 1_100,
    max_depth: 64,
};

/// `neardup_extract::extract` read as Docx: see `extract_any` for what it
/// checks. Seeds: the office fixtures
/// (crates/neardup-extract/tests/fixtures/office/, fuzz/seeds.py).
pub fn extract_docx(data: &[u8]) {
    extract_any(data, Format::Docx, SMALL);
}

/// `neardup_extract::extract` read as Odt: see `extract_any` for what it
/// checks. Seeds: the office fixtures.
pub fn extract_odt(data: &[u8]) {
    extract_any(data, Format::Odt, SMALL);
}

/// `neardup_extract::extract` read as Epub: see `extract_any` for what it
/// checks. Seeds: the office fixtures.
pub fn extract_epub(data: &[u8]) {
    extract_any(data, Format::Epub, SMALL);
}

/// `neardup_extract::extract` read as Html: see `extract_any` for what it
/// checks. Seeds: the office fixtures.
pub fn extract_html(data: &[u8]) {
    extract_any(data, Format::Html, SMALL);
}

/// `neardup_extract::extract` read as Rtf: see `extract_any` for what it
/// checks. Seeds: the office fixtures.
pub fn extract_rtf(data: &[u8]) {
    extract_any(data, Format::Rtf, SMALL);
}

/// PDF extraction on any bytes: it returns text or a one-line error, never
/// panics, hangs or runs out of memory (the caps are small here so a bomb
/// is caught fast), and text it returns follows EXTRACT.md: not empty,
/// each line ends with `\n`, no control characters but `\n`, `\t` and the
/// page break `\f`, no soft hyphens (`extract_any`). Seeds: the PDF
/// fixtures and two small handmade files (fuzz/seeds.py).
pub fn extract_pdf(data: &[u8]) {
    let limits = Limits {
        max_size: 16 << 20,
        ..Limits::default()
    };
    if let Some(text) = extract_any(data, Format::Pdf, limits) {
        assert!(!text.trim().is_empty(), "empty text instead of an error");
        assert!(text.ends_with('\n'));
        assert!(text
            .chars()
            .all(|c| !c.is_control() || matches!(c, '\n' | '\t' | '\u{C}')));
    }
}
