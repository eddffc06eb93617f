//! PDF: the text layer, page by page.
//!
//! Read with our own walker over [lopdf]'s objects: lopdf parses the file
//! (cross-reference tables and streams, object streams, decryption of
//! owner-only encryption) with bounded nesting and bounded decompression;
//! this module runs each page's content streams, decodes strings through
//! the font's `/ToUnicode` map or its encoding, and places glyphs by their
//! widths to find line ends and word gaps. Why not `pdf-extract` or lopdf's
//! `extract_text`: pdf-extract pins an older lopdf and panics on fonts it
//! does not understand, lopdf's `extract_text` neither infers spaces from
//! positions nor reads forms; both agreed with `pdftotext` less well on
//! the fixtures (see the `tests/pdf.rs` figures and EXTRACT.md).

mod font;
mod lines;
mod page;

use std::collections::HashSet;

use lopdf::{Document, LoadOptions};

use crate::{Error, Limits};

pub(crate) fn extract(
    bytes: &[u8],
    limits: &Limits,
    warnings: &mut Vec<String>,
) -> Result<String, Error> {
    // Object and cross-reference streams are inflated while loading, each
    // within the size cap and the ratio cap over the whole file.
    let cap = limits
        .max_size
        .min((bytes.len() as u64).saturating_mul(limits.max_ratio));
    let options = LoadOptions {
        max_decompressed_size: Some(usize::try_from(cap).unwrap_or(usize::MAX)),
        ..LoadOptions::default()
    };
    let doc = Document::load_mem_with_options(bytes, options).map_err(|e| load_error(e, limits))?;
    if doc.is_encrypted() {
        return Err(Error::Encrypted);
    }
    let mut budget = limits.max_size;
    let mut lines = lines::Lines::new(limits);
    let mut pages = 0usize;
    let mut runner = page::Runner::new(&doc, &mut budget, *limits, &mut lines);
    // A page tree that lists a node twice (or itself) gives each page once.
    let mut seen = HashSet::new();
    for id in doc.page_iter() {
        if !seen.insert(id) {
            continue;
        }
        pages += 1;
        runner.page(id)?;
        runner.end_page()?;
    }
    warnings.append(&mut runner.warnings);
    if pages == 0 {
        return Err(Error::corrupt("PDF", "no pages"));
    }
    lines.finish()?.ok_or(Error::NoTextLayer)
}

/// A load failure in words.
fn load_error(e: lopdf::Error, limits: &Limits) -> Error {
    match e {
        lopdf::Error::Decryption(_) | lopdf::Error::InvalidPassword => Error::Encrypted,
        lopdf::Error::Decompress(lopdf::DecompressError::MemoryLimitExceeded { .. }) => {
            limits.too_large()
        }
        e => Error::corrupt("PDF", e.to_string().to_lowercase()),
    }
}
