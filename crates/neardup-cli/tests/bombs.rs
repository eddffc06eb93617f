//! Issue 38: decompression bombs of every container kind through the
//! real binary. Each is refused with one line naming the file and the
//! cap, exit 2, nothing on stdout and no output file; `--max-expanded`
//! moves the cap both ways. The bombs, small on disk, come from the
//! extractor's test module `bomb`. (Memory and time are measured by
//! `bench/run-bombs`; the extractor's own peak by `neardup-extract`'s
//! `tests/memory.rs`.)

use crate::bomb::{docx, epub, odt, pdf, repeated, zip, Entry, DOC, MIB};
use crate::util::*;

/// A DOCX of `mib` MiB of one-word paragraphs (its text: `word` lines).
fn paragraphs(mib: usize) -> Vec<u8> {
    let p = b"<w:p><w:r><w:t>word</w:t></w:r></w:p>";
    let block = p.repeat(MIB / p.len());
    docx(repeated(DOC, &block, mib, b"</w:body></w:document>"))
}

#[test]
fn issue_38_a_bomb_of_each_kind_is_refused_in_one_line_naming_the_cap() {
    let dir = Dir::new();
    let spaces = vec![b' '; MIB];
    let chapter = b"<p>a word</p>".repeat(MIB / 13);
    let ratio = |entry: &str| {
        format!(
            "zip entry '{entry}' has expanded more than 256:1 past 16777216 bytes (a zip bomb?)"
        )
    };
    // A quarter of the default cap, for speed.
    let cap = ["--max-expanded", "64M"];
    let cases: Vec<(&str, Vec<u8>, String)> = vec![
        (
            "spaces.docx",
            docx(repeated(
                &[DOC, b"<w:p><w:r><w:t>"].concat(),
                &spaces,
                1024,
                b"",
            )),
            ratio("word/document.xml"),
        ),
        (
            "paragraphs.docx",
            paragraphs(1024),
            ratio("word/document.xml"),
        ),
        (
            "spaces.odt",
            odt(repeated(
                b"<document-content><body><text><p>",
                &spaces,
                1024,
                b"",
            )),
            ratio("content.xml"),
        ),
        (
            "chapter.epub",
            epub(repeated(b"<html><body>", &chapter, 1024, b"")),
            ratio("a.xhtml"),
        ),
        (
            "page.pdf",
            pdf(&[b' '; MIB], 20),
            "a PDF page's content expands to more than 16777216 bytes, a quarter of the --max-expanded limit (a PDF bomb?)".into(),
        ),
    ];
    let nested = zip(&[
        ("a.docx", Entry::Stored(&cases[0].1)),
        ("b.docx", Entry::Stored(&cases[1].1)),
    ]);
    let nested = zip(&[("inner.zip", Entry::Stored(&nested))]);
    for (name, bytes, needle) in cases
        .iter()
        .map(|(n, b, m)| (*n, &b[..], m.as_str()))
        .chain([(
            "nested.zip",
            &nested[..],
            "a zip archive, not a text document",
        )])
    {
        assert!(
            bytes.len() < 8 * MIB,
            "{name}: {} bytes on disk",
            bytes.len()
        );
        let path = dir.write(name, bytes);
        let out = dir.path(&format!("{name}.txt"));
        let o = neardup(&[&["extract", &path, "-o", &out][..], &cap].concat());
        assert_error(&o, 2, &format!("reading '{path}': {needle}"));
        assert!(
            !std::path::Path::new(&out).exists(),
            "{name}: no output file"
        );
        // The same refusal where a command compares documents.
        let o = neardup(&[&["compare", &path, &path][..], &cap].concat());
        assert_error(&o, 2, &format!("reading '{path}': {needle}"));
    }
}

/// A DOCX of `mib` MiB of numbered paragraphs (`word 000001`, ...):
/// markup that compresses about 20:1, as a real document's does, so only
/// `--max-expanded` stops it.
fn numbered(mib: usize) -> (Vec<u8>, usize) {
    let mut xml = DOC.to_vec();
    let mut n = 0;
    while xml.len() < mib * MIB {
        n += 1;
        xml.extend(format!("<w:p><w:r><w:t>word {n:06}</w:t></w:r></w:p>").bytes());
    }
    xml.extend(b"</w:body></w:document>");
    // Deflated whole: no block repeated.
    (docx(repeated(&xml, b"", 0, b"")), n)
}

#[test]
fn issue_38_max_expanded_moves_the_cap_both_ways() {
    let dir = Dir::new();
    // 24 MiB of markup: under the default, over a cap of 16M.
    let (bytes, n) = numbered(24);
    assert!(bytes.len() < 4 * MIB, "{} bytes", bytes.len());
    let path = dir.write("long.docx", bytes);
    let text = ok_stdout(&neardup(&["extract", &path]));
    assert_eq!(text.lines().count(), n);
    assert!(text.ends_with(&format!("word {n:06}\n")));
    let o = neardup(&["extract", "--max-expanded", "16M", &path]);
    assert_error(
        &o,
        2,
        &format!("reading '{path}': expands to more than the --max-expanded limit of 16777216 bytes (a decompression bomb?)"),
    );
    // Raised past the markup, the cap lets it through.
    let o = neardup(&["extract", "--max-expanded", "25M", &path]);
    assert_eq!(ok_stdout(&o), text);
}
