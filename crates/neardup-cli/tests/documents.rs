//! Documents (DOCX, ODT, EPUB, HTML, PDF, RTF) wherever the CLI takes a
//! file: `extract`, `--format`, what is refused, and the warnings for
//! texts that word shingles cannot compare.

use std::io::Write;

use crate::util::*;

/// A zip holding `entries`, stored, built by hand: the tests need no zip
/// writer to make a container that `neardup-extract` must recognise.
fn zip(entries: &[(&str, &[u8])]) -> Vec<u8> {
    let mut out = Vec::new();
    let mut central = Vec::new();
    for (name, data) in entries {
        let offset = out.len() as u32;
        let crc = crc32(data);
        let header = |sig: u32, central: bool| {
            let mut h = Vec::new();
            h.extend(sig.to_le_bytes());
            if central {
                h.extend(20u16.to_le_bytes()); // made by
            }
            h.extend(20u16.to_le_bytes()); // needed
            h.extend(0u16.to_le_bytes()); // flags
            h.extend(0u16.to_le_bytes()); // stored
            h.extend(0u32.to_le_bytes()); // time, date
            h.extend(crc.to_le_bytes());
            h.extend((data.len() as u32).to_le_bytes());
            h.extend((data.len() as u32).to_le_bytes());
            h.extend((name.len() as u16).to_le_bytes());
            h.extend(0u16.to_le_bytes()); // extra
            if central {
                h.extend([0u8; 6]); // comment length, disk, internal attributes
                h.extend(0u32.to_le_bytes()); // external attributes
                h.extend(offset.to_le_bytes());
            }
            h.extend(name.as_bytes());
            h
        };
        out.extend(header(0x0403_4b50, false));
        out.extend(*data);
        central.extend(header(0x0201_4b50, true));
    }
    let at = out.len() as u32;
    out.extend(&central);
    out.extend(0x0605_4b50u32.to_le_bytes());
    out.extend([0u8; 4]);
    out.extend((entries.len() as u16).to_le_bytes());
    out.extend((entries.len() as u16).to_le_bytes());
    out.extend((central.len() as u32).to_le_bytes());
    out.extend(at.to_le_bytes());
    out.extend(0u16.to_le_bytes());
    out
}

fn crc32(data: &[u8]) -> u32 {
    let mut crc = !0u32;
    for &b in data {
        crc ^= u32::from(b);
        for _ in 0..8 {
            crc = (crc >> 1) ^ (0xEDB8_8320 & (crc & 1).wrapping_neg());
        }
    }
    !crc
}

const TYPES: &str = "application/vnd.openxmlformats-officedocument";

#[test]
fn extract_prints_a_plain_text_exactly() {
    let d = Dir::new();
    let text = "\u{feff}Caf\u{e9}  au\tlait\r\nsecond line\n";
    let a = d.write("a.txt", text);
    assert_eq!(ok_stdout(&neardup(&["extract", &a])), text);
    let json = json_of(&neardup(&["extract", "--json", &a]));
    assert_eq!(json["format"], "text");
    assert_eq!(json["extractor"], "neardup-extract-v1");
    assert_eq!(json["text"], text);
    assert_eq!(json["warnings"], serde_json::json!([]));
    // -o writes the same bytes.
    let out = d.path("out.txt");
    ok(&neardup(&["extract", &a, "-o", &out]));
    assert_eq!(read(&out), text);
}

#[test]
fn html_in_a_text_file_stays_text() {
    let d = Dir::new();
    let html = "<!DOCTYPE html><p>Hello <b>world</b></p>";
    let a = d.write("page.txt", html);
    assert_eq!(ok_stdout(&neardup(&["extract", &a])), html);
    let json = json_of(&neardup(&["extract", "--json", &a]));
    assert_eq!(json["format"], "text");
}

#[test]
fn a_bad_format_is_one_line() {
    let d = Dir::new();
    let a = d.write("a.txt", "x");
    let o = neardup(&["extract", "--format", "doc", &a]);
    assert_error(&o, 2, "invalid value 'doc' for '--format <FORMAT>': expected one of text, docx, odt, epub, html, pdf, rtf");
}

#[test]
fn spreadsheets_presentations_and_other_zips_are_refused_by_name() {
    let d = Dir::new();
    let xlsx = zip(&[(
        "[Content_Types].xml",
        format!("<Types><Override ContentType=\"{TYPES}.spreadsheetml.sheet.main+xml\"/></Types>")
            .as_bytes(),
    )]);
    let pptx = zip(&[(
        "[Content_Types].xml",
        format!("<Types><Override ContentType=\"{TYPES}.presentationml.presentation.main+xml\"/></Types>").as_bytes(),
    )]);
    let ods = zip(&[(
        "mimetype",
        b"application/vnd.oasis.opendocument.spreadsheet",
    )]);
    let plain = zip(&[("notes.txt", b"some words")]);
    let ole = [0xD0, 0xCF, 0x11, 0xE0, 0xA1, 0xB1, 0x1A, 0xE1, 0, 0, 0, 0];
    let b = d.write("b.txt", "some words");
    for (name, bytes, needle) in [
        ("s.xlsx", &xlsx[..], "a spreadsheet, not a text document"),
        ("p.pptx", &pptx, "a presentation, not a text document"),
        ("s.ods", &ods, "a spreadsheet, not a text document"),
        ("z.zip", &plain, "a zip archive, not a text document"),
        (
            "old.doc",
            &ole,
            "an OLE compound file (a legacy .doc, or an encrypted Office file)",
        ),
    ] {
        let a = d.write(name, bytes);
        for cmd in [
            &["compare", &a, &b][..],
            &["extract", &a],
            &["sign", &a],
            &["normalize", &a],
        ] {
            let o = neardup(cmd);
            assert_error(&o, 2, &format!("reading '{a}': {needle}"));
        }
    }
    // A directory scan skips them with the same words, and goes on.
    let o = neardup(&["scan", d.root().to_str().unwrap(), "--pairs", "-"]);
    let err = stderr(&o);
    assert!(o.status.success(), "{err}");
    assert!(
        err.contains("s.xlsx': a spreadsheet, not a text document (skipped)"),
        "{err}"
    );
    assert!(err.contains("5 skipped"), "{err}");
}

#[test]
fn texts_word_shingles_cannot_compare_are_warned_about() {
    let d = Dir::new();
    let chinese =
        "这是一个没有空格的句子，中文和日文都是这样书写的，所以词语瓦片无法比较它们。".repeat(5);
    let a = d.write("zh.txt", &chinese);
    let b = d.write("en.txt", "plain english words, five or more of them here");
    let o = neardup(&["compare", &a, &b]);
    let err = stderr(&o);
    assert!(o.status.success());
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(
        err.starts_with(&format!("neardup: warning: '{a}': 1 word(s) in 190 characters, fewer than k = 5: word shingles cannot compare this text")),
        "{err}"
    );
    // The verdict stays the spec's.
    assert!(stdout(&o).starts_with("INSUFFICIENT-DATA"));
    // With --json too, on stderr: the object stays the one every adapter
    // (Python's `to_json`, the page) prints.
    let o = neardup(&["compare", "--json", &a, &b]);
    assert!(json_of(&o).get("warnings").is_none());
    assert_eq!(stderr(&o), err);
    // scan's summary counts them.
    let o = neardup(&["scan", d.root().to_str().unwrap(), "--pairs", "-"]);
    assert!(
        stderr(&o).contains("warning: 1 text file(s) that word shingles cannot compare, first '"),
        "{}",
        stderr(&o)
    );
}

#[test]
fn extract_reads_stdin_and_refuses_a_directory() {
    let o = neardup_stdin(&["extract", "-"], b"from stdin");
    assert_eq!(ok_stdout(&o), "from stdin");
    let d = Dir::new();
    let o = neardup(&["extract", d.root().to_str().unwrap()]);
    assert_error(&o, 2, "it is a directory, not a file");
    let mut f = std::fs::File::create(d.path("bin")).unwrap();
    f.write_all(b"\x00\x01\x02\xff").unwrap();
    let o = neardup(&["extract", &d.path("bin")]);
    assert_error(&o, 2, "invalid UTF-8 at byte 3");
}

/// The extractor's fixtures: one source written by pandoc and LibreOffice.
fn fixture(name: &str) -> String {
    repo()
        .join("crates/neardup-extract/tests/fixtures")
        .join(name)
        .to_str()
        .unwrap()
        .to_owned()
}

#[test]
fn one_source_in_every_format_compares_identical() {
    // pandoc's RTF writes list numbers as text and its EPUB adds a title
    // page (EXTRACT.md): those two differ from the others on purpose.
    let base = fixture("office/pandoc.docx");
    for other in [
        "office/pandoc.odt",
        "office/pandoc.html",
        "office/soffice.docx",
        "office/soffice.odt",
        "office/soffice.rtf",
    ] {
        let o = neardup(&["compare", "--json", &base, &fixture(other)]);
        let json = json_of(&o);
        assert_eq!(json["verdict"], "IDENTICAL", "{other}: {}", stderr(&o));
    }
    // The receipt verifies, and is over the extracted text: the saved
    // text verifies it too.
    let d = Dir::new();
    let receipt = d.path("r.json");
    let odt = fixture("office/soffice.odt");
    ok(&neardup(&["compare", &base, &odt, "--receipt", &receipt]));
    ok(&neardup(&["verify", &receipt, &base, &odt]));
    let saved = d.path("a.txt");
    ok(&neardup(&["extract", &base, "-o", &saved]));
    ok(&neardup(&["verify", &receipt, &saved, &odt]));
    // A mismatch over a document names the extractor.
    let o = neardup(&["verify", &receipt, &base, &fixture("office/pandoc.rtf")]);
    assert_eq!(o.status.code(), Some(1));
    assert!(
        stdout(&o).contains("extracted by neardup-extract-v1; a receipt made over text extracted by another version"),
        "{}",
        stdout(&o)
    );
}

#[test]
fn a_directory_of_documents_is_scanned_as_one_document_each() {
    let d = Dir::new();
    for name in [
        "pandoc.docx",
        "soffice.odt",
        "pandoc.html",
        "soffice.rtf",
        "pandoc.epub",
    ] {
        std::fs::copy(fixture(&format!("office/{name}")), d.root().join(name)).unwrap();
    }
    d.write(
        "notes.txt",
        "a text of its own that matches nothing else in here",
    );
    let o = neardup(&["scan", d.root().to_str().unwrap(), "--clusters", "-"]);
    let err = stderr(&o);
    assert!(err.contains("6 documents"), "{err}");
    assert!(err.contains("identical groups: 1 (4 documents)"), "{err}");
    let clusters = stdout(&o);
    assert!(
        clusters.contains("pandoc.docx") && clusters.contains("pandoc.epub"),
        "{clusters}"
    );
}

/// A DOCX and the PDF LibreOffice prints from it compare IDENTICAL when
/// the text is paragraphs. With notes, lists and page numbers they do not:
/// a PDF draws note marks, bullets, list numbers and page numbers as text,
/// and puts notes at the foot of their page (EXTRACT.md, "PDF").
#[test]
fn a_docx_and_its_pdf() {
    let o = neardup(&[
        "compare",
        &fixture("pdf/plain.docx"),
        &fixture("pdf/plain.pdf"),
    ]);
    assert!(stdout(&o).starts_with("IDENTICAL"), "{}", stdout(&o));
    let o = neardup(&[
        "compare",
        "--json",
        &fixture("office/soffice.odt"),
        &fixture("office/soffice.pdf"),
    ]);
    let json = json_of(&o);
    assert_ne!(json["verdict"], "IDENTICAL");
    assert!(json["jaccard"].as_f64().unwrap() > 0.3, "{json}");
    // The CJK line LibreOffice drew with stand-in glyphs and /ActualText.
    let text = ok_stdout(&neardup(&["extract", &fixture("office/soffice.pdf")]));
    assert!(
        text.contains("中文的句子在这里。日本語の文もここにあります。"),
        "{text}"
    );
}
