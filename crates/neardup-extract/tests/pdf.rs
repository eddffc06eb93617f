//! PDF extraction against the real tools: the fixtures (made by
//! LibreOffice and Chromium, `fixtures/pdf/make.sh`) must agree with
//! poppler's `pdftotext` on 99% of their words, in order, and give their
//! source's text; hostile files fail with one line and bounded work.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::Command;

use neardup_extract::{extract, Error, Format, Limits, Options};

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/pdf")
        .join(name)
}

fn pdf_with(bytes: &[u8], limits: Limits) -> Result<String, Error> {
    let opts = Options {
        format: Some(Format::Pdf),
        limits,
        ..Options::default()
    };
    extract(bytes, None, &opts).map(|got| got.text)
}

fn pdf(bytes: &[u8]) -> Result<String, Error> {
    pdf_with(bytes, Limits::default())
}

fn read(name: &str) -> Vec<u8> {
    std::fs::read(fixture(name)).unwrap()
}

/// The length of the longest common subsequence of two word lists.
fn lcs(a: &[&str], b: &[&str]) -> usize {
    let mut prev = vec![0; b.len() + 1];
    for x in a {
        let mut cur = vec![0; b.len() + 1];
        for (j, y) in b.iter().enumerate() {
            cur[j + 1] = if x == y {
                prev[j] + 1
            } else {
                prev[j + 1].max(cur[j])
            };
        }
        prev = cur;
    }
    prev[b.len()]
}

/// `pdftotext`'s text of a fixture, or `None` (with a message) when it is
/// not installed and `NEARDUP_REQUIRE_TOOLS=1` does not demand it.
fn pdftotext(name: &str) -> Option<String> {
    pdftotext_of(&fixture(name), None)
}

/// `pdftotext [MODE]` of a file (see [`pdftotext`]).
fn pdftotext_of(path: &Path, mode: Option<&str>) -> Option<String> {
    match Command::new("pdftotext")
        .args(["-enc", "UTF-8"])
        .args(mode)
        .arg(path)
        .arg("-")
        .output()
    {
        Ok(out) if out.status.success() => Some(String::from_utf8(out.stdout).unwrap()),
        result => {
            assert!(
                std::env::var("NEARDUP_REQUIRE_TOOLS").as_deref() != Ok("1"),
                "pdftotext (poppler-utils) is required: {result:?}"
            );
            eprintln!("skipped: pdftotext is not installed (poppler-utils)");
            None
        }
    }
}

/// We compare with `pdftotext`'s default mode, its own reading-order
/// analysis, rather than `-raw` (the content stream's order, which is our
/// rule too): agreeing with an independent reading is the stronger check.
#[test]
fn fixtures_agree_with_pdftotext() {
    for name in ["report.pdf", "page.pdf"] {
        let Some(want) = pdftotext(name) else {
            return;
        };
        let got = pdf(&read(name)).unwrap();
        let want: Vec<&str> = want.split_whitespace().collect();
        let got: Vec<&str> = got.split_whitespace().collect();
        let common = lcs(&want, &got);
        let percent = 100.0 * common as f64 / want.len() as f64;
        println!(
            "{name}: {percent:.2}% of pdftotext's {} words in order ({} extracted)",
            want.len(),
            got.len()
        );
        assert!(100 * common >= 99 * want.len(), "{name}: {percent:.2}%");
    }
}

/// The wider fixtures (`fixtures/pdf/wide/`, `make.sh` there): LibreOffice,
/// Chromium, pandoc through pdfLaTeX, pdfLaTeX with bitmap Type3 fonts and
/// Ghostscript; two columns, footnotes, hyphenation at line ends,
/// ligatures, tables, headers and footers, rotated text, Type3 fonts and
/// CID fonts with ToUnicode. Agreement is measured on the words neardup
/// compares (both texts normalized by SPEC §1), a ligature character that
/// pdftotext keeps (Ghostscript's maps give U+FB03 and U+FB04) read as the
/// letters our rule writes, against `pdftotext` in its default mode and
/// with `-raw` (the content stream's order, our rule). Each floor is
/// what the file reaches, rounded down; below 99%, the reason:
///
/// - `chromium.pdf`, `gs-chromium.pdf`: Chromium draws its header and
///   footer after the body, and pdftotext puts them at the top and foot
///   of the page; by content order they come last (EXTRACT.md, PDF).
/// - `pandoc-latex.pdf`: pdftotext joins a word hyphenated at a line's end
///   (`notwith-` `standing`); our rule keeps the hyphen (it may be real).
///   Joining when a letter and `-` end a line and a lowercase letter
///   starts the next would reach 99.0% (a new extractor version); the
///   rest are two footnote marks (`1The`: pdftotext starts a word where
///   the baseline rises) and a table it reads column by column.
/// - `latex-twocol.pdf`: pdftotext's layout analysis reads across the
///   narrow gutter of LaTeX's two columns and interleaves their lines;
///   with `-raw` the two agree on 99.6%.
/// - `gs-ps.pdf`: pdftotext reads the right column's last block and the
///   footer before the left column's first block; `-raw` agrees on 100%.
/// - `latex-type3.pdf`: pdfTeX's bitmap fonts have no ToUnicode and no
///   glyph names; pdftotext gives their ligature glyphs as the control
///   characters U+001B..U+001F (the TeX font's code points) and we give
///   nothing, so every word with fi, fl, ff, ffi or ffl differs. The rule
///   would need the TeX font encodings (T1, OT1) for such fonts, which no
///   field of the file names.
#[test]
fn wider_fixtures_agree_with_pdftotext() {
    let floors = [
        ("lo-docx.pdf", 99.0, 99.0),
        ("lo-layout.pdf", 99.0, 99.0),
        ("lo-readme.pdf", 99.0, 99.0),
        ("chromium.pdf", 98.5, 99.0),
        ("gs-chromium.pdf", 98.5, 99.0),
        ("pandoc-latex.pdf", 98.0, 99.0),
        ("latex-twocol.pdf", 65.0, 99.0),
        ("gs-ps.pdf", 75.0, 99.0),
        ("latex-type3.pdf", 60.0, 60.0),
    ];
    for (name, default, raw) in floors {
        let path = fixture("wide").join(name);
        let got = pdf(&std::fs::read(&path).unwrap()).unwrap();
        let got = neardup::normalize(&got);
        let got: Vec<&str> = got.split_whitespace().collect();
        for (mode, floor) in [(None, default), (Some("-raw"), raw)] {
            let Some(want) = pdftotext_of(&path, mode) else {
                return;
            };
            let want: String = want
                .chars()
                .map(|c| match c {
                    '\u{FB00}' => "ff".to_owned(),
                    '\u{FB01}' => "fi".to_owned(),
                    '\u{FB02}' => "fl".to_owned(),
                    '\u{FB03}' => "ffi".to_owned(),
                    '\u{FB04}' => "ffl".to_owned(),
                    c => c.to_string(),
                })
                .collect();
            let want = neardup::normalize(&want);
            let want: Vec<&str> = want.split_whitespace().collect();
            let percent = 100.0 * lcs(&want, &got) as f64 / want.len() as f64;
            println!(
                "{name} {}: {percent:.2}% of pdftotext's {} words in order",
                mode.unwrap_or("default"),
                want.len()
            );
            assert!(
                percent >= floor,
                "{name} {mode:?}: {percent:.2}% < {floor}%"
            );
        }
    }
}

/// The text is the source's, except where a PDF cannot give it back:
/// footnotes stand at the foot of their page (where `report.txt` puts
/// them), and LibreOffice draws a list's bullet as a glyph of its
/// OpenSymbol font (U+F095, private use), which the source holds as style.
#[test]
fn fixtures_give_their_source_text() {
    for (name, source) in [("report.pdf", "report.txt"), ("page.pdf", "page.txt")] {
        let got = pdf(&read(name)).unwrap().replace('\u{F095}', "");
        let want = String::from_utf8(read(source)).unwrap();
        assert_eq!(
            neardup::normalize(&got),
            neardup::normalize(&want),
            "{name}"
        );
    }
}

#[test]
fn lines_pages_and_tables_follow_the_rules() {
    let got = pdf(&read("report.pdf")).unwrap();
    assert!(got.starts_with("A report on river crossings\nThe old bridge"));
    assert!(got.contains("\nItem Weeks Cost\nFoundations four high\n"));
    // Page 2 starts with a form feed, on a line of its own page.
    assert!(got.contains("third session.\n\u{C}The second page is set in two columns.\n"));
    // The two columns are read one after the other.
    let left = got.find("may cross it.").unwrap();
    let right = got.find("Right column text").unwrap();
    assert!(left < right);
    // Chromium's ligature glyphs map to U+FB00..: they read as letters.
    let page = pdf(&read("page.pdf")).unwrap();
    assert!(page.contains("office, affluent, final and shuffle"));
    assert!(got.ends_with("fed them all.\n"));
}

fn message(result: Result<String, Error>) -> String {
    result.unwrap_err().to_string()
}

#[test]
fn an_encrypted_pdf_is_refused() {
    assert_eq!(
        message(pdf(&read("encrypted.pdf"))),
        "encrypted, not supported"
    );
}

#[test]
fn a_pdf_with_an_empty_user_password_is_read() {
    assert_eq!(pdf(&read("owner-only.pdf")), pdf(&read("report.pdf")));
}

#[test]
fn a_scanned_pdf_has_no_text_layer() {
    assert_eq!(
        message(pdf(&read("scanned.pdf"))),
        "has no text layer (scanned pages?): OCR it first"
    );
}

#[test]
fn a_truncated_pdf_is_corrupt() {
    let got = message(pdf(&read("truncated.pdf")));
    assert!(got.starts_with("not a valid PDF file: "), "{got}");
    // Cut anywhere, a file fails or gives text; it never panics.
    let whole = read("report.pdf");
    for end in (0..whole.len()).step_by(997) {
        let _ = pdf(&whole[..end]);
    }
}

/// A PDF of `objects` (numbered from 1; object 1 is the catalog), with a
/// correct cross-reference table.
fn handmade(objects: &[Vec<u8>]) -> Vec<u8> {
    let mut out = b"%PDF-1.4\n".to_vec();
    let mut offsets = Vec::new();
    for (i, body) in objects.iter().enumerate() {
        offsets.push(out.len());
        writeln!(out, "{} 0 obj", i + 1).unwrap();
        out.extend_from_slice(body);
        out.extend_from_slice(b"\nendobj\n");
    }
    let xref = out.len();
    write!(out, "xref\n0 {}\n0000000000 65535 f \n", objects.len() + 1).unwrap();
    for offset in offsets {
        writeln!(out, "{offset:010} 00000 n ").unwrap();
    }
    write!(
        out,
        "trailer\n<< /Size {} /Root 1 0 R >>\nstartxref\n{xref}\n%%EOF\n",
        objects.len() + 1
    )
    .unwrap();
    out
}

fn stream(dict: &str, data: &[u8]) -> Vec<u8> {
    let mut out = format!("<< {dict} /Length {} >>\nstream\n", data.len()).into_bytes();
    out.extend_from_slice(data);
    out.extend_from_slice(b"\nendstream");
    out
}

/// Catalog, pages, one page drawing `content` with Helvetica as `/F1`
/// and object 6 as XObject `/X`, plus `extra` objects from 6 on.
fn one_page(pages: &str, content: Vec<u8>, extra: &[Vec<u8>]) -> Vec<u8> {
    let mut objects = vec![
        b"<< /Type /Catalog /Pages 2 0 R >>".to_vec(),
        pages.as_bytes().to_vec(),
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 5 0 R >> /XObject << /X 6 0 R >> >> /Contents 4 0 R >>".to_vec(),
        content,
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>".to_vec(),
    ];
    objects.extend_from_slice(extra);
    handmade(&objects)
}

const PAGES: &str = "<< /Type /Pages /Kids [3 0 R] /Count 1 >>";

#[test]
fn a_handmade_pdf_reads() {
    let file = one_page(
        PAGES,
        stream(
            "",
            b"BT /F1 12 Tf 72 720 Td (Hello world) Tj 0 -14 Td [(A)-120(B)] TJ ET",
        ),
        &[],
    );
    assert_eq!(pdf(&file).unwrap(), "Hello world\nAB\n");
}

/// LibreOffice draws a glyph its font lacks as a stand-in wrapped in
/// `/Span << /ActualText (…) >> BDC … EMC`: the actual text is the text,
/// once, in place of the stand-ins (as poppler reads it).
#[test]
fn actual_text_replaces_the_glyphs_it_wraps() {
    let file = one_page(
        PAGES,
        stream(
            "",
            b"BT /F1 12 Tf 72 720 Td (Say ) Tj /Span << /ActualText <FEFF4E2D6587> >> BDC (xx) Tj EMC \
              /Span << /ActualText (!) >> BDC /Span << /ActualText (inner) >> BDC (y) Tj EMC EMC ( ok) Tj ET",
        ),
        &[],
    );
    assert_eq!(pdf(&file).unwrap(), "Say \u{4e2d}\u{6587}! ok\n");
}

/// A simple font's `/Differences` name glyphs by the Adobe Glyph List
/// (lopdf's `Glyph::from_name`, which `patches/lopdf` makes smaller: the
/// same names and codes); a name it does not know makes the font read as
/// StandardEncoding.
#[test]
fn differences_name_glyphs() {
    let objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>".to_vec(),
        PAGES.as_bytes().to_vec(),
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 5 0 R /F2 6 0 R >> >> /Contents 4 0 R >>".to_vec(),
        stream("", b"BT /F1 12 Tf 72 720 Td (ABCa b) Tj /F2 12 Tf 0 -14 Td (AB) Tj ET"),
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding << /Type /Encoding /BaseEncoding /WinAnsiEncoding /Differences [65 /eacute /fi /germandbls 97 /Alpha] >> >>".to_vec(),
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding << /Differences [65 /nosuchglyph] >> >>".to_vec(),
    ];
    assert_eq!(
        pdf(&handmade(&objects)).unwrap(),
        "\u{e9}fi\u{df}\u{391} b\nAB\n"
    );
}

#[test]
fn reference_cycles_end() {
    // The page tree lists itself, and a form draws itself.
    let file = one_page(
        "<< /Type /Pages /Kids [3 0 R 2 0 R] /Count 2 >>",
        stream("", b"BT /F1 12 Tf 72 720 Td (Hi) Tj ET /X Do"),
        &[stream(
            "/Type /XObject /Subtype /Form /BBox [0 0 612 792] /Resources << /Font << /F1 5 0 R >> /XObject << /X 6 0 R >> >>",
            b"BT /F1 12 Tf 72 700 Td (again) Tj ET /X Do",
        )],
    );
    assert_eq!(pdf(&file).unwrap(), "Hi\nagain\n");
    // Contents that refer to each other, and a catalog that is its own pages.
    let file = one_page(
        PAGES,
        b"7 0 R".to_vec(),
        &[b"1 0 R".to_vec(), b"6 0 R".to_vec()],
    );
    assert_eq!(
        message(pdf(&file)),
        "has no text layer (scanned pages?): OCR it first"
    );
}

#[test]
fn a_stream_that_inflates_past_its_caps_is_stopped() {
    let mut z = flate2::write::ZlibEncoder::new(Vec::new(), flate2::Compression::best());
    z.write_all(b"BT /F1 12 Tf 72 720 Td (x) Tj ET\n").unwrap();
    for _ in 0..(64 << 20) / 4096 {
        z.write_all(&[b' '; 4096]).unwrap();
    }
    let packed = z.finish().unwrap();
    let file = one_page(PAGES, stream("/Filter /FlateDecode", &packed), &[]);
    let limits = Limits {
        max_expanded: 4 << 20,
        ..Limits::default()
    };
    let too_long = |what: &str| {
        format!("a PDF {what} expands to more than 1048576 bytes, a quarter of the --max-expanded limit (a PDF bomb?)")
    };
    assert_eq!(message(pdf_with(&file, limits)), too_long("page's content"));
    // An object stream, which lopdf inflates while loading the file.
    let objects = stream("/Type /ObjStm /N 1 /First 4 /Filter /FlateDecode", &packed);
    let file = one_page(PAGES, stream("", b"BT ET"), &[objects]);
    assert_eq!(message(pdf_with(&file, limits)), too_long("object stream"));
    // The ratio cap stops it too, whatever the size caps.
    let file = one_page(PAGES, stream("/Filter /FlateDecode", &packed), &[]);
    let limits = Limits {
        max_ratio: 100,
        ..Limits::default()
    };
    assert_eq!(
        message(pdf_with(&file, limits)),
        "a PDF stream expands more than 100:1 (a PDF bomb?)"
    );
}

/// lopdf inflates object streams while it loads a file, each within the
/// cap on one stream; together they are charged to `max_expanded` as they
/// load, so many of them just under that cap are refused, not inflated
/// for seconds.
#[test]
fn object_streams_together_are_charged_to_max_expanded() {
    let mut z = flate2::write::ZlibEncoder::new(Vec::new(), flate2::Compression::best());
    z.write_all(b"7 0 ").unwrap();
    z.write_all(&[b' '; 900 << 10]).unwrap();
    let packed = z.finish().unwrap();
    let streams: Vec<Vec<u8>> = (0..8)
        .map(|_| stream("/Type /ObjStm /N 1 /First 4 /Filter /FlateDecode", &packed))
        .collect();
    let file = one_page(
        PAGES,
        stream("", b"BT /F1 12 Tf 72 720 Td (Hi) Tj ET"),
        &streams,
    );
    // Each under the cap on one stream (1 MiB), 7.2 MiB together.
    let limits = |mib: u64| Limits {
        max_expanded: mib << 20,
        ..Limits::default()
    };
    assert_eq!(pdf_with(&file, limits(8)).unwrap(), "Hi\n");
    assert_eq!(
        message(pdf_with(&file, limits(4))),
        "expands to more than the --max-expanded limit of 4194304 bytes (a decompression bomb?)"
    );
}

#[test]
fn deep_nesting_fails_cleanly() {
    let deep = "[".repeat(100_000);
    // In a content stream.
    let mut content = b"BT /F1 12 Tf 72 720 Td (before) Tj ".to_vec();
    content.extend_from_slice(deep.as_bytes());
    let file = one_page(PAGES, stream("", &content), &[]);
    assert_eq!(pdf(&file).unwrap(), "before\n");
    // In the page's dictionary.
    let file = handmade(&[
        b"<< /Type /Catalog /Pages 2 0 R >>".to_vec(),
        PAGES.as_bytes().to_vec(),
        format!("<< /Type /Page /Parent 2 0 R /Deep {deep} >>").into_bytes(),
    ]);
    assert_eq!(
        message(pdf(&file)),
        "not a valid PDF file: 1 of its 1 pages do not parse"
    );
}
