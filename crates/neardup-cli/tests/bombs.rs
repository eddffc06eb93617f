//! Issue 38: decompression bombs of every container kind through the
//! real binary. Each is refused with one line naming the file and the
//! cap, exit 2, nothing on stdout and no output file; `--max-expanded`
//! moves the cap both ways. The bombs are built here, small on disk: a
//! 1 MiB block deflated with a full flush is byte-aligned and refers to
//! nothing before it, so one compressed copy, repeated, inflates to any
//! number of blocks. (Memory and time are measured by `bench/run-bombs`;
//! the extractor's own peak by `neardup-extract`'s `tests/memory.rs`.)

use std::io::Write;

use flate2::{Compress, Compression, Crc, FlushCompress};

use crate::util::*;

const MIB: usize = 1 << 20;

/// A raw deflate stream of `head`, `block` `count` times and `tail`, with
/// the CRC-32 and the length of what it inflates to.
struct Deflated {
    data: Vec<u8>,
    crc: u32,
    size: u64,
}

fn deflated(head: &[u8], block: &[u8], count: usize, tail: &[u8]) -> Deflated {
    let mut c = Compress::new(Compression::best(), false);
    let mut pass = |input: &[u8], flush| {
        let mut out = Vec::with_capacity(input.len() + 1024);
        c.compress_vec(input, &mut out, flush).unwrap();
        out
    };
    let mut data = pass(head, FlushCompress::Full);
    let block_once = pass(block, FlushCompress::Full);
    let again = pass(block, FlushCompress::Full);
    data.extend_from_slice(&block_once);
    for _ in 1..count {
        data.extend_from_slice(&again);
    }
    data.extend(pass(tail, FlushCompress::Finish));
    let mut crc = Crc::new();
    crc.update(head);
    for _ in 0..count {
        crc.update(block);
    }
    crc.update(tail);
    let size = (head.len() + block.len() * count + tail.len()) as u64;
    Deflated {
        data,
        crc: crc.sum(),
        size,
    }
}

/// A zip of (name, entry): deflated, or the bytes stored.
fn zip(entries: Vec<(&str, Result<Deflated, &[u8]>)>) -> Vec<u8> {
    let mut out = Vec::new();
    let mut central = Vec::new();
    let count = entries.len() as u16;
    for (name, entry) in entries {
        let (data, method, crc, size) = match &entry {
            Ok(d) => (&d.data[..], 8u16, d.crc, d.size as u32),
            Err(stored) => {
                let mut crc = Crc::new();
                crc.update(stored);
                (*stored, 0, crc.sum(), stored.len() as u32)
            }
        };
        let offset = out.len() as u32;
        let header = |sig: u32, central: bool| {
            let mut h = sig.to_le_bytes().to_vec();
            if central {
                h.extend(20u16.to_le_bytes());
            }
            for v in [20u16, 0, method, 0, 0x21] {
                h.extend(v.to_le_bytes());
            }
            for v in [crc, data.len() as u32, size] {
                h.extend(v.to_le_bytes());
            }
            h.extend((name.len() as u16).to_le_bytes());
            h.extend(0u16.to_le_bytes());
            if central {
                h.extend([0u8; 6]);
                h.extend(0u32.to_le_bytes());
                h.extend(offset.to_le_bytes());
            }
            h.extend(name.as_bytes());
            h
        };
        out.extend(header(0x0403_4b50, false));
        out.extend_from_slice(data);
        central.extend(header(0x0201_4b50, true));
    }
    let (at, len) = (out.len() as u32, central.len() as u32);
    out.extend(central);
    out.extend(0x0605_4b50u32.to_le_bytes());
    for v in [0u16, 0, count, count] {
        out.extend(v.to_le_bytes());
    }
    out.extend(len.to_le_bytes());
    out.extend(at.to_le_bytes());
    out.extend(0u16.to_le_bytes());
    out
}

const TYPES: &[u8] = br#"<?xml version="1.0"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/></Types>"#;
const DOC: &[u8] = b"<w:document xmlns:w=\"w\"><w:body>";

fn docx(document: Deflated) -> Vec<u8> {
    zip(vec![
        ("[Content_Types].xml", Err(TYPES)),
        ("word/document.xml", Ok(document)),
    ])
}

/// A DOCX of `mib` MiB of one-word paragraphs (its text: `word` lines).
fn paragraphs(mib: usize) -> Vec<u8> {
    let p = b"<w:p><w:r><w:t>word</w:t></w:r></w:p>";
    let block = p.repeat(MIB / p.len());
    docx(deflated(DOC, &block, mib, b"</w:body></w:document>"))
}

/// A one-page PDF whose FlateDecode content is `mib` MiB of spaces.
fn pdf_bomb(mib: usize) -> Vec<u8> {
    let mut content = Vec::new();
    {
        let mut z = flate2::write::ZlibEncoder::new(&mut content, Compression::best());
        z.write_all(b"BT /F1 12 Tf 72 720 Td (x) Tj ET\n").unwrap();
        for _ in 0..mib {
            z.write_all(&[b' '; MIB]).unwrap();
        }
        z.finish().unwrap();
    }
    let mut stream = format!(
        "<< /Filter /FlateDecode /Length {} >>\nstream\n",
        content.len()
    )
    .into_bytes();
    stream.extend(content);
    stream.extend(b"\nendstream");
    let objects: [&[u8]; 5] = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 5 0 R >> >> /Contents 4 0 R >>",
        &stream,
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
    ];
    let mut out = b"%PDF-1.4\n".to_vec();
    let mut offsets = Vec::new();
    for (i, body) in objects.iter().enumerate() {
        offsets.push(out.len());
        out.extend(format!("{} 0 obj\n", i + 1).bytes());
        out.extend_from_slice(body);
        out.extend(b"\nendobj\n");
    }
    let xref = out.len();
    out.extend(b"xref\n0 6\n0000000000 65535 f \n");
    for o in offsets {
        out.extend(format!("{o:010} 00000 n \n").bytes());
    }
    out.extend(format!("trailer\n<< /Size 6 /Root 1 0 R >>\nstartxref\n{xref}\n%%EOF\n").bytes());
    out
}

#[test]
fn issue_38_a_bomb_of_each_kind_is_refused_in_one_line_naming_the_cap() {
    let dir = Dir::new();
    let spaces = vec![b' '; MIB];
    let chapter = b"<p>a word</p>".repeat(MIB / 13);
    let opf = b"<package><manifest><item id=\"a\" href=\"a.xhtml\" media-type=\"application/xhtml+xml\"/></manifest><spine><itemref idref=\"a\"/></spine></package>";
    let container =
        b"<container><rootfiles><rootfile full-path=\"c.opf\"/></rootfiles></container>";
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
            docx(deflated(
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
            zip(vec![
                ("mimetype", Err(b"application/vnd.oasis.opendocument.text")),
                (
                    "content.xml",
                    Ok(deflated(b"<document-content><body><text><p>", &spaces, 1024, b"")),
                ),
            ]),
            ratio("content.xml"),
        ),
        (
            "chapter.epub",
            zip(vec![
                ("mimetype", Err(b"application/epub+zip")),
                ("META-INF/container.xml", Err(container)),
                ("c.opf", Err(opf)),
                ("a.xhtml", Ok(deflated(b"<html><body>", &chapter, 1024, b""))),
            ]),
            ratio("a.xhtml"),
        ),
        (
            "page.pdf",
            pdf_bomb(20),
            "a PDF page's content expands to more than 16777216 bytes, a quarter of the --max-expanded limit (a PDF bomb?)".into(),
        ),
    ];
    let nested = zip(vec![
        ("a.docx", Err(&cases[0].1[..])),
        ("b.docx", Err(&cases[1].1[..])),
    ]);
    let nested = zip(vec![("inner.zip", Err(&nested[..]))]);
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
    let mut z = flate2::write::DeflateEncoder::new(Vec::new(), Compression::default());
    z.write_all(&xml).unwrap();
    let data = z.finish().unwrap();
    let mut crc = Crc::new();
    crc.update(&xml);
    let part = Deflated {
        data,
        crc: crc.sum(),
        size: xml.len() as u64,
    };
    (docx(part), n)
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
