//! The office readers against files made by real tools (fixtures/office/,
//! made by its make.sh), and against hostile and wrong inputs, each
//! refused with one exact line.

use std::io::{Cursor, Write};
use std::path::Path;

use neardup::normalize;
use neardup_extract::{extract, Format, Limits, Options};
use zip::write::SimpleFileOptions;
use zip::{CompressionMethod, ZipWriter};

fn fixture(name: &str) -> Vec<u8> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/office")
        .join(name);
    std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn text_of(name: &str) -> String {
    let got = extract(&fixture(name), Some(name), &Options::default())
        .unwrap_or_else(|e| panic!("{name}: {e}"));
    got.text
}

fn expected(name: &str) -> String {
    String::from_utf8(fixture(name)).unwrap()
}

#[test]
fn each_fixture_gives_the_expected_text() {
    for (file, format, want) in [
        ("pandoc.docx", Format::Docx, "source.expected.txt"),
        ("pandoc.odt", Format::Odt, "source.expected.txt"),
        ("pandoc.html", Format::Html, "source.expected.txt"),
        ("pandoc.epub", Format::Epub, "pandoc.epub.expected.txt"),
        ("pandoc.rtf", Format::Rtf, "pandoc.rtf.expected.txt"),
        ("soffice.docx", Format::Docx, "source.expected.txt"),
        ("soffice.odt", Format::Odt, "source.expected.txt"),
        ("soffice.rtf", Format::Rtf, "source.expected.txt"),
    ] {
        let got = extract(&fixture(file), Some(file), &Options::default()).unwrap();
        assert_eq!(got.format, format, "{file}");
        assert_eq!(normalize(&got.text), normalize(&expected(want)), "{file}");
    }
}

#[test]
fn one_source_gives_one_text_in_every_format() {
    let want = normalize(&text_of("pandoc.docx"));
    for file in [
        "pandoc.odt",
        "pandoc.html",
        "soffice.rtf",
        "soffice.docx",
        "soffice.odt",
    ] {
        assert_eq!(normalize(&text_of(file)), want, "{file}");
    }
    // pandoc's EPUB adds a title page and a chapter title (the book's
    // title, `source`), which are text of the book.
    let epub = normalize(&text_of("pandoc.epub"));
    assert_eq!(epub.strip_prefix("source source "), Some(want.as_str()));
}

#[test]
fn notes_come_after_the_body_in_reference_order() {
    for file in ["pandoc.docx", "pandoc.odt", "pandoc.html", "soffice.rtf"] {
        let text = text_of(file);
        let body = text.find("ends the body").unwrap();
        let one = text.find("The first footnote").unwrap();
        let two = text.find("The second footnote").unwrap();
        assert!(body < one && one < two, "{file}: {text}");
    }
}

/// A zip of `entries` (name, bytes), deflated.
fn zip_of(entries: &[(&str, &[u8])]) -> Vec<u8> {
    let mut zip = ZipWriter::new(Cursor::new(Vec::new()));
    let options = SimpleFileOptions::default().compression_method(CompressionMethod::Deflated);
    for (name, bytes) in entries {
        zip.start_file(*name, options).unwrap();
        zip.write_all(bytes).unwrap();
    }
    zip.finish().unwrap().into_inner()
}

const DOCX_TYPES: &[u8] = br#"<?xml version="1.0"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/></Types>"#;

/// A DOCX whose main part is `document`.
fn docx_of(document: &[u8]) -> Vec<u8> {
    zip_of(&[
        ("[Content_Types].xml", DOCX_TYPES),
        ("word/document.xml", document),
    ])
}

fn error_of(bytes: &[u8], name: &str, opts: &Options) -> String {
    extract(bytes, Some(name), opts).unwrap_err().to_string()
}

fn with(limits: Limits) -> Options {
    Options {
        limits,
        ..Options::default()
    }
}

#[test]
fn a_small_docx_follows_the_rules() {
    let doc = br#"<w:document xmlns:w="w"><w:body>
<w:p><w:r><w:t>a</w:t></w:r><w:ins><w:r><w:t>b</w:t></w:r></w:ins><w:del><w:r><w:delText>gone</w:delText></w:r></w:del><w:r><w:softHyphen/><w:t>c</w:t><w:noBreakHyphen/><w:t>d</w:t></w:r></w:p>
<w:p><w:r><w:fldChar w:fldCharType="begin"/></w:r><w:r><w:instrText>PAGE</w:instrText></w:r><w:r><w:fldChar w:fldCharType="separate"/></w:r><w:r><w:t>7</w:t></w:r><w:r><w:fldChar w:fldCharType="end"/></w:r></w:p>
<w:p><w:r><w:rPr><w:vanish/></w:rPr><w:t>hidden</w:t></w:r><w:r><w:rPr><w:vanish w:val="0"/></w:rPr><w:t>shown</w:t><w:tab/><w:t>x</w:t><w:br/><w:t>y</w:t></w:r></w:p>
<w:p><w:pPr><w:tabs><w:tab w:val="left" w:pos="1"/></w:tabs></w:pPr></w:p>
<w:tbl><w:tr><w:tc><w:p><w:r><w:t>1</w:t></w:r></w:p><w:p><w:r><w:t>2</w:t></w:r></w:p></w:tc><w:tc><w:p><w:r><w:t>3</w:t></w:r></w:p></w:tc></w:tr></w:tbl>
</w:body></w:document>"#;
    let got = extract(&docx_of(doc), None, &Options::default()).unwrap();
    assert_eq!(got.text, "abc-d\n7\nshown\tx\ny\n1 2\t3\n");
}

#[test]
fn a_broken_or_truncated_zip_is_refused() {
    let docx = fixture("pandoc.docx");
    let opts = Options::default();
    assert_eq!(
        error_of(&docx[..docx.len() / 2], "a.docx", &opts),
        "not a valid zip file: broken zip: invalid Zip archive: Could not find EOCD"
    );
    // The main part's compressed bytes overwritten (its local header
    // found by its name).
    let mut corrupt = docx.clone();
    let at = docx
        .windows(17)
        .position(|w| w == b"word/document.xml")
        .unwrap();
    for b in &mut corrupt[at + 100..at + 400] {
        *b = 0x55;
    }
    let forced = Options {
        format: Some(Format::Docx),
        ..Options::default()
    };
    assert_eq!(
        error_of(&corrupt, "a.docx", &forced),
        "not a valid DOCX file: entry 'word/document.xml': corrupt deflate stream"
    );
}

#[test]
fn a_zip_bomb_is_refused() {
    let zeros = vec![0u8; 8 << 20];
    let bomb = docx_of(&zeros);
    assert!(bomb.len() < 64 << 10, "{}", bomb.len());
    let small = with(Limits {
        max_expanded: 4 << 20,
        ..Limits::default()
    });
    assert_eq!(
        error_of(&bomb, "bomb.docx", &small),
        "expands to more than the --max-expanded limit of 4194304 bytes (a decompression bomb?)"
    );
    let strict = with(Limits {
        max_ratio: 100,
        ..Limits::default()
    });
    assert_eq!(
        error_of(&bomb, "bomb.docx", &strict),
        "zip entry 'word/document.xml' expands more than 100:1 (a zip bomb?)"
    );
}

#[test]
fn too_many_entries_are_refused() {
    let names: Vec<String> = (0..12).map(|i| format!("f{i}")).collect();
    let mut entries: Vec<(&str, &[u8])> = names.iter().map(|n| (n.as_str(), &b"x"[..])).collect();
    entries.push(("[Content_Types].xml", DOCX_TYPES));
    let opts = Options {
        format: Some(Format::Docx),
        ..with(Limits {
            max_entries: 10,
            ..Limits::default()
        })
    };
    assert_eq!(
        error_of(&zip_of(&entries), "a.docx", &opts),
        "holds 13 zip entries, over the limit of 10"
    );
}

#[test]
fn a_billion_laughs_expands_nothing() {
    let mut dtd =
        String::from("<?xml version=\"1.0\"?><!DOCTYPE w:document [<!ENTITY lol \"lol\">");
    for i in 1..10 {
        let prev = if i == 1 {
            "lol".to_owned()
        } else {
            format!("lol{}", i - 1)
        };
        dtd += &format!("<!ENTITY lol{i} \"{}\">", format!("&{prev};").repeat(10));
    }
    dtd += "]><w:document xmlns:w=\"w\"><w:body><w:p><w:r><w:t>&lol9;</w:t></w:r></w:p></w:body></w:document>";
    assert_eq!(
        error_of(&docx_of(dtd.as_bytes()), "a.docx", &Options::default()),
        "not a valid DOCX file: word/document.xml: undefined entity '&lol9;' (DTDs are not read)"
    );
}

#[test]
fn deep_nesting_is_one_error_in_every_reader() {
    let deep = "nested more than 512 levels deep";
    let n = 100_000;
    let xml = format!(
        "<w:document xmlns:w=\"w\"><w:body>{}{}</w:body></w:document>",
        "<w:p>".repeat(n),
        "</w:p>".repeat(n)
    );
    assert_eq!(
        error_of(&docx_of(xml.as_bytes()), "a.docx", &Options::default()),
        deep
    );
    let html = "<div>".repeat(n);
    assert_eq!(
        error_of(
            html.as_bytes(),
            "a.html",
            &Options {
                format: Some(Format::Html),
                ..Options::default()
            }
        ),
        deep
    );
    let rtf = "{\\rtf1 ".to_owned() + &"{".repeat(n) + &"}".repeat(n);
    assert_eq!(error_of(rtf.as_bytes(), "a.rtf", &Options::default()), deep);
    let odt = zip_of(&[
        ("mimetype", b"application/vnd.oasis.opendocument.text"),
        (
            "content.xml",
            format!("<r>{}</r>", "<text:span>".repeat(n)).as_bytes(),
        ),
    ]);
    assert_eq!(error_of(&odt, "a.odt", &Options::default()), deep);
}

#[test]
fn spreadsheets_and_presentations_are_refused() {
    let xlsx_types = br#"<Types><Override PartName="/xl/workbook.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml"/></Types>"#;
    let pptx_types = br#"<Types><Override PartName="/ppt/presentation.xml" ContentType="application/vnd.openxmlformats-officedocument.presentationml.presentation.main+xml"/></Types>"#;
    let opts = Options::default();
    for (name, zip, want) in [
        (
            "a.xlsx",
            zip_of(&[("[Content_Types].xml", xlsx_types)]),
            "a spreadsheet, not a text document",
        ),
        (
            "a.pptx",
            zip_of(&[("[Content_Types].xml", pptx_types)]),
            "a presentation, not a text document",
        ),
        (
            "a.ods",
            zip_of(&[(
                "mimetype",
                b"application/vnd.oasis.opendocument.spreadsheet",
            )]),
            "a spreadsheet, not a text document",
        ),
        (
            "a.zip",
            zip_of(&[("a.txt", b"hi")]),
            "a zip archive, not a text document",
        ),
    ] {
        assert_eq!(error_of(&zip, name, &opts), want, "{name}");
    }
}

#[test]
fn an_epub_with_a_missing_item_warns() {
    let container = br#"<container><rootfiles><rootfile full-path="OEBPS/p.opf" media-type="application/oebps-package+xml"/></rootfiles></container>"#;
    let opf = br#"<package><manifest><item id="a" href="a%20b.xhtml" media-type="application/xhtml+xml"/><item id="b" href="gone.xhtml" media-type="application/xhtml+xml"/></manifest><spine><itemref idref="a"/><itemref idref="b"/></spine></package>"#;
    let epub = zip_of(&[
        ("mimetype", b"application/epub+zip"),
        ("META-INF/container.xml", container),
        ("OEBPS/p.opf", opf),
        (
            "OEBPS/a b.xhtml",
            b"<?xml version='1.0'?><html><body><p>caf&eacute;<br/>x</p><div/>y</body></html>",
        ),
    ]);
    let got = extract(&epub, None, &Options::default()).unwrap();
    assert_eq!(got.text, "caf\u{e9}\nx\ny\n");
    assert_eq!(got.warnings, ["spine item 'OEBPS/gone.xhtml' is missing"]);
}

#[test]
fn an_encrypted_odt_is_refused() {
    let manifest = br#"<manifest:manifest xmlns:manifest="m"><manifest:file-entry manifest:full-path="content.xml"><manifest:encryption-data manifest:checksum="x"/></manifest:file-entry></manifest:manifest>"#;
    let odt = zip_of(&[
        ("mimetype", b"application/vnd.oasis.opendocument.text"),
        ("META-INF/manifest.xml", manifest),
        ("content.xml", b"\x8b\x12 not xml"),
    ]);
    assert_eq!(
        error_of(&odt, "a.odt", &Options::default()),
        "encrypted, not supported"
    );
}
